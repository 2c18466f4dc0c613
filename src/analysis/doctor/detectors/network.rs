//! Causes in how the moves travelled and were timed: moves the server never executed, a move
//! the server ran with another delta time, and client timestamps in another clock domain.

use super::gameplay::WINDOW;
use super::{Ctx, Detector, TRACE_BOTH};
use crate::analysis::doctor::causes::Cause;
use crate::analysis::doctor::verdict::{CauseVerdict, Quote, Strength};

pub(super) const MOVES_SKIPPED: Detector = Detector {
    cause: Cause::MovesSkipped,
    needs: "simulated: the server's skipped-moves records; game log: the moves the client closed (its trace) against those the server executed (the server's trace), and GMC's warnings of discarded moves",
    judge: moves_skipped,
};

fn moves_skipped(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    let (c, t) = (ctx.s.client, ctx.s.t);
    let per = ctx.ev.per(c);
    if !ctx.ev.imported() {
        let near = per.is_some_and(|p| {
            p.skipped
                .iter()
                .any(|(x, _, _)| *x >= t - WINDOW && *x <= t)
        });
        return if near {
            CauseVerdict::supported(
                Cause::MovesSkipped,
                Strength::Nearby,
                format!("the server skipped moves of client {c} within {WINDOW} s before"),
                Vec::new(),
            )
        } else {
            CauseVerdict::ruled_out(
                Cause::MovesSkipped,
                format!("the server skipped no move of client {c} within {WINDOW} s before"),
            )
        };
    }
    let notices: Vec<Quote> = per
        .into_iter()
        .flat_map(|p| &p.notices)
        .filter(|(x, text)| *x >= t - WINDOW && *x <= t && text.contains("discarded"))
        .map(|(x, text)| Quote::at(text.clone(), format!("{x:.3} s")))
        .collect();
    if !notices.is_empty() {
        return CauseVerdict::supported(
            Cause::MovesSkipped,
            Strength::Nearby,
            format!("GMC discarded moves of client {c} within {WINDOW} s before"),
            notices,
        );
    }
    let (Some(p), true, true) = (per, ctx.has_client_log(), ctx.has_server_log()) else {
        return CauseVerdict::cannot_tell(
            Cause::MovesSkipped,
            "it takes both the client's and the server's log to see a move the server never ran",
            "the client's and the server's logs, with `gmc.LogClientMoveTrace 1`",
        );
    };
    if p.moves.is_empty() || p.executed.is_empty() {
        return CauseVerdict::cannot_tell(
            Cause::MovesSkipped,
            "the logs list no moves (closed by the client, or executed by the server)",
            TRACE_BOTH,
        );
    }
    let missing: Vec<u32> = p
        .moves
        .range(..=ctx.s.move_id)
        .filter(|(m, f)| f.t >= t - WINDOW - 0.5 && f.t <= t - 0.2 && !p.executed.contains_key(m))
        .map(|(m, _)| *m)
        .collect();
    if missing.is_empty() {
        CauseVerdict::ruled_out(
            Cause::MovesSkipped,
            format!("the server executed every move client {c} closed in the second before"),
        )
    } else {
        CauseVerdict::supported(
            Cause::MovesSkipped,
            Strength::Nearby,
            format!(
                "the server's log shows no execution of client {c}'s move(s) {} of the second before",
                missing
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Vec::new(),
        )
    }
}

pub(super) const DELTA_TIME: Detector = Detector {
    cause: Cause::DeltaTimeDiffers,
    needs: "the delta time the client closed the move with against the one the server executed it with (game log: both trace headers), and clock re-syncs before it",
    judge: delta_time,
};

fn delta_time(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    let c = ctx.s.client;
    let m = ctx.parted.as_ref().map_or(ctx.s.move_id, |p| p.move_id);
    let per = ctx.ev.per(c);
    let client = per
        .and_then(|p| p.moves.get(&m))
        .map(|f| f.delta)
        .filter(|d| d.is_finite());
    let server = per
        .and_then(|p| p.executed.get(&m))
        .map(|(_, d)| *d)
        .filter(|d| d.is_finite());
    let (Some(a), Some(b)) = (client, server) else {
        return CauseVerdict::cannot_tell(
            Cause::DeltaTimeDiffers,
            format!("the records do not hold both deltas of move {m}"),
            if ctx.ev.imported() {
                TRACE_BOTH
            } else {
                "the server's execution of the move (it may not have been executed yet)"
            },
        );
    };
    if (a - b).abs() <= 1e-4 {
        return CauseVerdict::ruled_out(
            Cause::DeltaTimeDiffers,
            format!("the server ran move {m} with the client's delta time ({a:.6} s)"),
        );
    }
    let resync: Vec<Quote> = per
        .into_iter()
        .flat_map(|p| &p.clock_syncs)
        .filter(|(t, _)| *t <= ctx.s.t && *t >= ctx.s.t - 2.0 * WINDOW)
        .map(|(t, what)| Quote::at(what.clone(), format!("{t:.3} s")))
        .collect();
    CauseVerdict::supported(
        Cause::DeltaTimeDiffers,
        Strength::Observed,
        format!(
            "client {c} closed move {m} with a delta of {a:.6} s, the server executed it with {b:.6} s{}",
            if resync.is_empty() {
                String::new()
            } else {
                "; the client's clock was re-synced just before (its timestamps jumped)".to_string()
            }
        ),
        resync,
    )
}

pub(super) const CLOCK_DOMAINS: Detector = Detector {
    cause: Cause::ClockDomains,
    needs: "simulated: a client's warning that the level has no (or more than one) world-time replicator; game log: GMC prints no such line",
    judge: clock_domains,
};

fn clock_domains(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    if ctx.ev.imported() {
        return CauseVerdict::cannot_tell(
            Cause::ClockDomains,
            "GMC prints no line about the level's world-time replicators",
            "a look at the level: exactly one AGMC_WorldTimeReplicator",
        );
    }
    match &ctx.ev.clock_warning {
        Some(w) => CauseVerdict::supported(
            Cause::ClockDomains,
            Strength::Code,
            format!("a client logged: {w}"),
            Vec::new(),
        ),
        None => CauseVerdict::ruled_out(
            Cause::ClockDomains,
            "no client logged a missing or second world-time replicator",
        ),
    }
}
