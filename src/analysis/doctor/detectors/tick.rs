//! The tick itself: a tick that reads other pawns as this machine displays them (judged over
//! every desync nothing else explains: do they follow the pawns' proximity?), and a tick that
//! computes differently on the two machines — seen in the values (both began the move alike
//! and ended apart), or, for movescope's own pawn whose every member the doctor knows, by
//! elimination.

use super::origin::{Origin, origin};
use super::{Ctx, TRACE_BOTH, VALUE_TRACE};
use crate::analysis::doctor::causes::Cause;
use crate::analysis::doctor::evidence::{Evidence, LogIndex};
use crate::analysis::doctor::parting::{Stage, parting};
use crate::analysis::doctor::subject::Subject;
use crate::analysis::doctor::verdict::{Answer, CauseVerdict, Quote, Strength};
use crate::model::binding::Binding;
use crate::model::logged::LoggedStage;
use crate::model::pawn::CROWD_RADIUS;

pub(super) const DISPLAYED_NEEDS: &str = "the server's positions of every pawn (simulated: always; game log: the server's dumps of every client's pawn), over every desync nothing else explains, against how often pawns are that close at all";
pub(super) const NONDET_NEEDS: &str = "simulated: the value trace (both machines began the move from the same values and parted in a sub-step), else every other cause ruled out for movescope's own pawn; game log: the client's and the server's dumps of the same move (same Input state and delta, Output states apart)";

/// How the desyncs nothing else explains relate to other pawns' proximity.
pub(in crate::analysis::doctor) struct CrowdStats {
    /// The share of those desyncs with another pawn within the crowd radius.
    share: Option<f64>,
    /// The share of sampled moments at which pawns are that close at all.
    baseline: Option<f64>,
}

/// Whether another pawn was within the crowd radius of `pawn` at `t` (the server's view).
fn crowded(ev: &Evidence<'_>, pawn: u16, t: f64) -> Option<bool> {
    let at = |p: u16| {
        let v = ev.positions.get(&p)?;
        let i = v.partition_point(|(x, _)| *x <= t);
        v.get(i.checked_sub(1)?).map(|(_, l)| *l)
    };
    let me = at(pawn)?;
    Some(
        ev.positions
            .keys()
            .filter(|p| **p != pawn)
            .any(|p| at(*p).is_some_and(|l| l.truncate().distance(me.truncate()) < CROWD_RADIUS)),
    )
}

/// The crowd statistics over `unexplained` (desyncs no first detector supported a cause for).
pub(in crate::analysis::doctor) fn crowd_stats(
    ev: &Evidence<'_>,
    unexplained: &[&Subject<'_>],
) -> CrowdStats {
    let flags: Vec<bool> = unexplained
        .iter()
        .filter_map(|s| ev.pawn_of.get(&s.client).and_then(|p| crowded(ev, *p, s.t)))
        .collect();
    let share = (!flags.is_empty())
        .then(|| flags.iter().filter(|c| **c).count() as f64 / flags.len() as f64);
    let times: Vec<f64> = ev
        .positions
        .values()
        .next()
        .map(|v| v.iter().map(|(t, _)| *t).collect())
        .unwrap_or_default();
    let (mut n, mut k) = (0usize, 0usize);
    for t in times.iter().step_by(5) {
        for p in ev.pawn_of.values() {
            if let Some(c) = crowded(ev, *p, *t) {
                n += 1;
                k += usize::from(c);
            }
        }
    }
    CrowdStats {
        share,
        baseline: (n > 0).then(|| k as f64 / n as f64),
    }
}

pub(super) fn displayed_pawns(ctx: &Ctx<'_, '_>, crowd: &CrowdStats) -> CauseVerdict {
    let c = ctx.s.client;
    let here = ctx
        .ev
        .pawn_of
        .get(&c)
        .and_then(|p| crowded(ctx.ev, *p, ctx.s.t));
    if here.is_some() && ctx.ev.positions.len() <= 1 {
        return CauseVerdict::cannot_tell(
            Cause::ReadsDisplayedPawns,
            "the records hold no other pawn's position",
            "the server's log with `gmc.LogClientMoveTrace 1` for every pawn near this one",
        );
    }
    if here.is_some() && crowd.share.is_none() {
        return CauseVerdict::ruled_out(
            Cause::ReadsDisplayedPawns,
            "another cause explains every desync of the session: none is left whose times could follow the pawns' proximity",
        );
    }
    let (Some(near), Some(share), Some(base)) = (here, crowd.share, crowd.baseline) else {
        return CauseVerdict::cannot_tell(
            Cause::ReadsDisplayedPawns,
            "the records hold no positions of the pawns around this desync on the server",
            if ctx.ev.imported() {
                "`gmc.LogClientMoveTrace 1` on the server (its dumps hold every pawn's location)"
            } else {
                "the server's pawn samples (world_view_rate)"
            },
        );
    };
    let figures = format!(
        "{:.0} % of the unexplained desyncs happened with another pawn within {CROWD_RADIUS} cm, against {:.0} % of the time overall",
        share * 100.0,
        base * 100.0
    );
    if near && share >= 0.8 && share > base + 0.2 {
        CauseVerdict::supported(
            Cause::ReadsDisplayedPawns,
            Strength::Nearby,
            format!(
                "another pawn was within {CROWD_RADIUS} cm of client {c}'s pawn at this correction; {figures}"
            ),
            Vec::new(),
        )
    } else {
        CauseVerdict::ruled_out(
            Cause::ReadsDisplayedPawns,
            format!("the desyncs do not follow other pawns' proximity: {figures}"),
        )
    }
}

pub(super) fn non_deterministic(ctx: &Ctx<'_, '_>, others: &[&CauseVerdict]) -> CauseVerdict {
    if ctx.ev.imported() {
        return logged_tick(ctx);
    }
    if let (Some((_, a)), Some(b)) = (ctx.judged, ctx.server) {
        let all: Vec<&Binding> = ctx.ev.bindings.iter().collect();
        let p = parting(&all, a, b);
        let witnessed = crate::analysis::doctor::parting::tick_parted(ctx.ev.bindings, a, b);
        if witnessed.is_some() {
            return CauseVerdict::supported(
                Cause::NonDeterministicTick,
                Strength::Observed,
                format!(
                    "client and server began move {} from the same values and {}: the tick computed differently",
                    ctx.s.move_id,
                    p.describe()
                ),
                Vec::new(),
            );
        }
        if p.stage == Stage::Entry {
            return carried_in(ctx, others);
        }
    }
    by_elimination(ctx, others)
}

/// The desync's move began apart: whether an earlier tick parted the values (below
/// tolerance, carried since) or the difference came from outside every tick.
fn carried_in(ctx: &Ctx<'_, '_>, others: &[&CauseVerdict]) -> CauseVerdict {
    let m = ctx.s.move_id;
    let found = origin(ctx);
    match found {
        Origin::Tick { id, names, exact } => CauseVerdict::supported(
            Cause::NonDeterministicTick,
            if id == m || exact {
                Strength::Observed
            } else {
                Strength::Nearby
            },
            format!(
                "client and server began move {id} {} and its tick ended {} apart{}: the tick computed differently{}",
                if exact {
                    "from exactly the same values"
                } else {
                    "within every value's tolerance"
                },
                names.join(", "),
                if exact { "" } else { " beyond tolerance" },
                if id == m {
                    String::new()
                } else {
                    format!(
                        " (move {m} began apart: such differences are carried from move to move)"
                    )
                }
            ),
            Vec::new(),
        ),
        Origin::Between(id) => CauseVerdict::ruled_out(
            Cause::NonDeterministicTick,
            format!(
                "move {m} began apart, and no tick made the difference: move {id} ended exactly alike on both machines and the next began apart, so the values parted between moves (a write outside the move)"
            ),
        ),
        Origin::Correction(id) => CauseVerdict::ruled_out(
            Cause::NonDeterministicTick,
            format!(
                "move {m} began apart, and no tick was seen to part values that began alike: the gap goes back to the correction for move {id}, from which the client replayed with the server's values as they crossed the wire (rounded to their precision), not as the server holds them"
            ),
        ),
        Origin::FromStart(id) => CauseVerdict::ruled_out(
            Cause::NonDeterministicTick,
            format!(
                "move {m} began apart, no tick was seen to part values that began alike, and every traced move back to client {}'s first (move {id}) began apart: the difference was there from the spawn",
                ctx.s.client
            ),
        ),
        Origin::Unknown(id) => {
            if others.iter().any(|v| v.is_supported()) {
                return by_elimination(ctx, others);
            }
            CauseVerdict::cannot_tell(
                Cause::NonDeterministicTick,
                format!(
                    "move {m} began apart and every traced move back to move {id} did too: where the values parted is older than the trace reaches"
                ),
                "the value trace from earlier in the session",
            )
        }
    }
}

/// Movescope's own pawn: the doctor knows every member its tick writes, so when nothing else
/// is supported, a tick that reads something the machines do not share is what is left.
fn by_elimination(ctx: &Ctx<'_, '_>, others: &[&CauseVerdict]) -> CauseVerdict {
    if !ctx.ev.demo_pawn {
        return CauseVerdict::cannot_tell(
            Cause::NonDeterministicTick,
            "only the values of both machines' executions show a tick computing differently, and the doctor does not know this component's members",
            VALUE_TRACE,
        );
    }
    if others.iter().any(|v| v.is_supported()) {
        return CauseVerdict::ruled_out(
            Cause::NonDeterministicTick,
            "another cause explains it; only the value trace would show the tick computing differently as well",
        );
    }
    let open: Vec<&str> = others
        .iter()
        .filter(|v| v.answer == Answer::CannotTell)
        .map(|v| v.cause.title())
        .collect();
    CauseVerdict::supported(
        Cause::NonDeterministicTick,
        Strength::Elimination,
        format!(
            "by elimination: the network was clean around it (no skipped moves, no server-decided outcome), the binding lists agree, every member the tick writes is bound and it does not follow other pawns' proximity: what the tick reads differs between client and server{}",
            if open.is_empty() {
                String::new()
            } else {
                format!(
                    " (the records cannot tell: {}; the value trace would show where the values parted)",
                    open.join(", ")
                )
            }
        ),
        Vec::new(),
    )
}

/// A game log: the first move both machines ended apart — did they begin it alike?
fn logged_tick(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    let log = &ctx.ev.log;
    let Some(p) = &ctx.parted else {
        let says = match super::logview::compared_alike(ctx.ev, ctx.s.client, &ctx.moves) {
            Some(n) => format!(
                "the {n} move(s) both machines dumped around it ended alike: the desync began where the dumps do not reach"
            ),
            None => "no move of the desync was dumped on both machines".to_string(),
        };
        return CauseVerdict::cannot_tell(Cause::NonDeterministicTick, says, TRACE_BOTH);
    };
    let quotes = vec![
        Quote::at(
            format!("the client's execution of move {}", p.move_id),
            log.place(p.client.at),
        ),
        Quote::at(
            format!("the server's execution of move {}", p.move_id),
            log.place(p.server.at),
        ),
    ];
    let ended: Vec<String> = p.outputs.iter().map(super::logview::sides_text).collect();
    let compared_before = ctx
        .moves
        .iter()
        .take_while(|m| **m != p.move_id)
        .any(|m| both_sides_dumped(log, ctx.s.client, *m));
    if !p.inputs.is_empty() && !compared_before {
        return CauseVerdict::cannot_tell(
            Cause::NonDeterministicTick,
            format!(
                "move {}, the first move around the desync both machines dumped, already began apart: the divergence began before the dumps kept for it (a difference below tolerance can be carried for many moves)",
                p.move_id
            ),
            "the logs from earlier on (the doctor reads the 24 moves before each desync)",
        );
    }
    if !p.inputs.is_empty() {
        let began: Vec<String> = p.inputs.iter().map(super::logview::sides_text).collect();
        return CauseVerdict::ruled_out_by(
            Cause::NonDeterministicTick,
            format!(
                "move {}, the first both machines ended apart, already began apart ({}): its tick did not start the desync",
                p.move_id,
                began.join("; ")
            ),
            quotes,
        );
    }
    let (dc, ds) = (p.client.delta, p.server.delta);
    if dc.is_finite() && ds.is_finite() && (dc - ds).abs() > 1e-4 {
        return CauseVerdict::ruled_out_by(
            Cause::NonDeterministicTick,
            format!(
                "both machines began move {} alike but ran it with different delta times ({dc:.6} s and {ds:.6} s)",
                p.move_id
            ),
            quotes,
        );
    }
    CauseVerdict::supported(
        Cause::NonDeterministicTick,
        Strength::Observed,
        format!(
            "both machines began move {} from the same state ({} values alike{}) and ended it apart ({}): the tick computed differently — it reads something the two machines do not share: the clock, the frame's delta, a random number, another pawn as displayed, or a member it writes without binding it (pitfall 1 looks exactly like this; `--component` tells them apart)",
            p.move_id,
            p.client.input.len(),
            if dc.is_finite() && ds.is_finite() {
                format!(", delta {dc:.6} s on both")
            } else {
                String::new()
            },
            ended.join("; ")
        ),
        quotes,
    )
}

/// Whether the log holds both the client's and the server's dump of move `id`.
fn both_sides_dumped(log: &LogIndex<'_>, client: u16, id: u32) -> bool {
    log.dump(client, id, LoggedStage::ClientExecuted).is_some()
        && log.dump(client, id, LoggedStage::ServerExecuted).is_some()
}
