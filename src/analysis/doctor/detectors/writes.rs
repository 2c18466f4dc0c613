//! Bound values written between two moves, outside the move cycle: on the client (game code
//! outside the prediction path, a modified client) or on the server (a server-only system).
//! Nothing in GMC's move cycle writes a bound value between two moves except the inputs the
//! next move brings, so a value that entered a move other than the previous move left it on
//! one machine was written by something else.

use super::{Ctx, Detector, TRACE_BOTH, VALUE_TRACE};
use crate::analysis::doctor::causes::Cause;
use crate::analysis::doctor::evidence::Evidence;
use crate::analysis::doctor::logview::{self, Side, Write};
use crate::analysis::doctor::verdict::{CauseVerdict, Quote, Strength};
use crate::model::logged::MemberCode;
use crate::model::pawn::Execution;
use crate::model::telemetry::MoveValues;

/// Moves searched back for an earlier write outside the move (value trace).
const TRACE_BACK: u32 = 400;

pub(super) const WRITTEN_OUTSIDE: Detector = Detector {
    cause: Cause::WrittenOutsideMove,
    needs: "simulated: the value trace (each client execution's values in and out); game log: the client's dumps of consecutive moves (Output state of one, Input state of the next), with the server's to tell inputs apart",
    judge: written_outside,
};

fn written_outside(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    if ctx.ev.imported() {
        return logged_writes(ctx, Side::Client);
    }
    if ctx.ev.trace.client.is_empty() {
        return CauseVerdict::cannot_tell(
            Cause::WrittenOutsideMove,
            "only the value trace shows the values each execution began from",
            VALUE_TRACE,
        );
    }
    let Some((_, judged)) = ctx.judged else {
        return CauseVerdict::cannot_tell(
            Cause::WrittenOutsideMove,
            format!(
                "the value trace holds no execution of move {} by client {}",
                ctx.s.move_id, ctx.s.client
            ),
            VALUE_TRACE,
        );
    };
    let c = ctx.s.client;
    let here = traced_writes(ctx.ev, c, judged);
    if !here.is_empty() {
        return CauseVerdict::supported(
            Cause::WrittenOutsideMove,
            Strength::Observed,
            format!(
                "{}: nothing in the move cycle writes a value between two moves, and the server, which only runs the moves, never made that change",
                here.join("; ")
            ),
            Vec::new(),
        );
    }
    let apart = ctx.server.is_some_and(|s| entered_apart(ctx.ev, judged, s));
    if let Some((m, what)) = apart
        .then(|| earlier_write(ctx.ev, c, ctx.s.move_id))
        .flatten()
    {
        return CauseVerdict::supported(
            Cause::WrittenOutsideMove,
            Strength::Observed,
            format!(
                "move {} began on client {c} from values a little apart from the server's (within tolerance, carried from earlier moves); the latest write outside the move before it, at move {m}: {}",
                ctx.s.move_id,
                what.join("; ")
            ),
            Vec::new(),
        );
    }
    CauseVerdict::ruled_out(
        Cause::WrittenOutsideMove,
        "the value trace shows every server-authoritative value entering the client's moves as the previous move left it",
    )
}

/// With the value trace: the server-authoritative values that entered client `c`'s live or
/// combined execution `judged` other than its previous move left them, with no correction
/// between the two.
fn traced_writes(ev: &Evidence<'_>, c: u16, judged: &MoveValues) -> Vec<String> {
    if !matches!(judged.exec, Execution::Live | Execution::Combined) || judged.move_id == 0 {
        return Vec::new();
    }
    let Some(t) = ev.trace.time_of(c, judged) else {
        return Vec::new();
    };
    let prev_id = judged.move_id - 1;
    let Some((pt, prev)) = ev.trace.last_before(c, prev_id, t) else {
        return Vec::new();
    };
    let adopted = ev
        .per(c)
        .and_then(|p| p.corrected.get(&prev_id))
        .is_some_and(|v| v.iter().any(|x| *x >= pt && *x <= t));
    if adopted {
        return Vec::new();
    }
    ev.bindings
        .iter()
        .filter(|b| b.prediction.is_server_auth() && !b.prediction.is_input())
        .filter_map(|b| {
            let was = b.ty.quantize(&prev.exit.get(b.field));
            let now = b.ty.quantize(&judged.entry.get(b.field));
            (b.ty.distance(&was, &now) > 1e-6).then(|| {
                format!(
                    "{} entered client {c}'s move {} as {now}, but its move {prev_id} had left it at {was}",
                    b.name, judged.move_id
                )
            })
        })
        .collect()
}

/// Whether client and server began the move from different server-authoritative values (at
/// all: below tolerance too).
fn entered_apart(ev: &Evidence<'_>, client: &MoveValues, server: &MoveValues) -> bool {
    ev.bindings
        .iter()
        .filter(|b| b.prediction.is_server_auth() && !b.prediction.is_input())
        .any(|b| {
            let x = b.ty.quantize(&client.entry.get(b.field));
            let y = b.ty.quantize(&server.entry.get(b.field));
            b.ty.distance(&x, &y) > 1e-6
        })
}

/// The latest of client `c`'s moves before `n` whose live execution began from values written
/// outside the move (a difference below tolerance can be carried for seconds before it shows).
fn earlier_write(ev: &Evidence<'_>, c: u16, n: u32) -> Option<(u32, Vec<String>)> {
    (n.saturating_sub(TRACE_BACK)..n).rev().find_map(|m| {
        let (_, live) = ev.trace.client.get(&(c, m))?.first()?;
        let w = traced_writes(ev, c, live);
        (!w.is_empty()).then_some((m, w))
    })
}

pub(super) const SERVER_WROTE: Detector = Detector {
    cause: Cause::ServerWroteOutsideMove,
    needs: "game log: the server's dumps of consecutive moves (the validated Output state of one, the executed Input state of the next), with the client's to tell inputs apart; simulated: the demo world's only server write between moves is the turret's hit (its own cause)",
    judge: server_wrote,
};

fn server_wrote(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    if ctx.ev.imported() {
        return logged_writes(ctx, Side::Server);
    }
    CauseVerdict::ruled_out(
        Cause::ServerWroteOutsideMove,
        "in movescope's world nothing writes the server's pawn between two moves but the turret's hit (a server-decided outcome, judged on its own)",
    )
}

/// A game log: a value that entered one of the desync's moves on `side` other than the
/// previous move left it.
fn logged_writes(ctx: &Ctx<'_, '_>, side: Side) -> CauseVerdict {
    let cause = match side {
        Side::Client => Cause::WrittenOutsideMove,
        Side::Server => Cause::ServerWroteOutsideMove,
    };
    let c = ctx.s.client;
    if !logview::dumps_on(ctx.ev, c, side, &ctx.moves) {
        return cannot_see(ctx, cause, side);
    }
    // A write after the two machines first parted cannot have started it; before a move they
    // began alike, it did not reach the other machine's comparison either.
    let moves = ctx.moves_to_parting();
    let writes = logview::writes(ctx.ev, c, side, moves);
    let relevant: Vec<&Write<'_>> = match &ctx.parted {
        Some(p) if p.inputs.is_empty() => Vec::new(),
        Some(p) => writes
            .iter()
            .filter(|w| {
                w.values
                    .iter()
                    .any(|(_, now)| p.inputs.iter().any(|(a, _)| a.name == now.name))
            })
            .collect(),
        None => writes.iter().collect(),
    };
    if let Some(w) = relevant.last() {
        return supported_write(ctx, cause, side, w);
    }
    let began_alike = ctx.parted.as_ref().is_some_and(|p| p.inputs.is_empty());
    let undecided = if began_alike {
        Vec::new()
    } else {
        logview::undecided(ctx.ev, c, side, moves)
    };
    if !undecided.is_empty() {
        return CauseVerdict::cannot_tell(
            cause,
            format!(
                "{} changed between two of the {}'s moves; an input changes there too, and neither a binding mode nor the other machine's log says which it is",
                undecided.join(", "),
                side_word(side)
            ),
            "`--component` (the binding modes), or the other machine's log",
        );
    }
    match relevant.last() {
        Some(w) => supported_write(ctx, cause, side, w),
        None => CauseVerdict::ruled_out(
            cause,
            format!(
                "the {} dumps show every value entering {} as the previous move left it (inputs aside){}",
                side_word(side),
                Ctx::moves_text(moves),
                ctx.parted.as_ref().filter(|p| p.inputs.is_empty()).map_or(
                    String::new(),
                    |p| format!(
                        "; both machines began move {}, the first to end apart, alike",
                        p.move_id
                    )
                )
            ),
        ),
    }
}

fn supported_write(ctx: &Ctx<'_, '_>, cause: Cause, side: Side, w: &Write<'_>) -> CauseVerdict {
    let log = &ctx.ev.log;
    let prev = ctx.ev.prev_move(ctx.s.client, w.move_id).unwrap_or(0);
    let mut quotes = Vec::new();
    for (a, b) in &w.values {
        quotes.push(Quote::at(
            format!(
                "move {prev} ended with {} = {} (`{}`, Output state)",
                a.name,
                a.text,
                w.before.stage.gmc_line()
            ),
            log.place(a.at),
        ));
        quotes.push(Quote::at(
            format!(
                "move {} began with {} = {} (`{}`, Input state)",
                w.move_id,
                b.name,
                b.text,
                w.after.stage.gmc_line()
            ),
            log.place(b.at),
        ));
    }
    let other_side = match side {
        Side::Client => Side::Server,
        Side::Server => Side::Client,
    };
    let other_kept = logview::dumps_on(ctx.ev, ctx.s.client, other_side, &[w.move_id])
        && logview::writes(ctx.ev, ctx.s.client, other_side, &[w.move_id])
            .iter()
            .all(|o| {
                !o.values
                    .iter()
                    .any(|(_, now)| w.values.iter().any(|(_, v)| v.name == now.name))
            });
    let changes: Vec<String> = w
        .values
        .iter()
        .map(|p| match logview::change(p) {
            Some(d) => format!(
                "{} (a change of {d:+.3} no move made)",
                logview::pair_text(p)
            ),
            None => logview::pair_text(p),
        })
        .collect();
    let mut code_says = Vec::new();
    for (_, now) in &w.values {
        code_says.push(code_evidence(ctx, &now.name, &mut quotes));
    }
    let says = format!(
        "{} between its moves {prev} and {} on the {}{}{}",
        changes.join("; "),
        w.move_id,
        side_word(side),
        if other_kept {
            format!(
                ", while the {}'s own moves carried it on unchanged",
                side_word(other_side)
            )
        } else {
            String::new()
        },
        code_says
            .iter()
            .filter(|s| !s.is_empty())
            .map(|s| format!("; {s}"))
            .collect::<String>()
    );
    CauseVerdict::supported(cause, Strength::Observed, says, quotes)
}

/// What the component's code says of a member written between moves: where it writes it
/// outside the prediction path, or that it shows no such write.
fn code_evidence(ctx: &Ctx<'_, '_>, name: &str, quotes: &mut Vec<Quote>) -> String {
    let Some(contents) = ctx.ev.log.contents.filter(|c| !c.code.is_empty()) else {
        return String::new();
    };
    let Some(m) = contents.code_of(name) else {
        return format!(
            "the component's code ({}) does not name {name}",
            contents.component.clone().unwrap_or_default()
        );
    };
    let outside: Vec<&crate::model::logged::WriteSite> =
        m.writes.iter().filter(|w| w.hook.is_none()).collect();
    for w in &outside {
        quotes.push(Quote::at(
            format!(
                "{} writes {} outside the move{} (`{}`)",
                w.function,
                m.member,
                w.guard
                    .as_ref()
                    .map_or(String::new(), |g| format!(", under {g}")),
                w.statement
            ),
            w.place.clone(),
        ));
    }
    for f in &m.findings {
        quotes.push(Quote::plain(format!("lint: {f}")));
    }
    describe_code(m, outside.len())
}

fn describe_code(m: &MemberCode, outside: usize) -> String {
    if outside > 0 {
        format!(
            "the component writes {} outside the prediction path in {} place(s) (quoted)",
            m.member, outside
        )
    } else {
        format!(
            "the component's code shows no write of {} outside the move, so it is written outside the component (gameplay code, another system)",
            m.member
        )
    }
}

fn side_word(side: Side) -> &'static str {
    match side {
        Side::Client => "client",
        Side::Server => "server",
    }
}

/// What is missing for a game log's write detector.
fn cannot_see(ctx: &Ctx<'_, '_>, cause: Cause, side: Side) -> CauseVerdict {
    let has_log = match side {
        Side::Client => ctx.has_client_log(),
        Side::Server => ctx.has_server_log(),
    };
    let (missing, would) = if !has_log {
        (
            format!("the {}'s log is not among the logs", side_word(side)),
            format!(
                "the {}'s log, with `gmc.LogClientMoveTrace 1`",
                side_word(side)
            ),
        )
    } else {
        (
            format!(
                "the {}'s log holds no dumps of two consecutive moves around move {}",
                side_word(side),
                ctx.s.move_id
            ),
            TRACE_BOTH.to_string(),
        )
    };
    CauseVerdict::cannot_tell(cause, missing, would)
}
