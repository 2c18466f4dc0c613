//! Causes in what the game did around the move: an outcome the server decided, a move
//! predicted before the first server update, an input the server did not execute as the client
//! predicted it, a one-shot raised again.

use super::{Ctx, Detector, TRACE_BOTH};
use crate::analysis::doctor::causes::Cause;
use crate::analysis::doctor::evidence::any_between;
use crate::analysis::doctor::logview::{self, Pair};
use crate::analysis::doctor::verdict::{CauseVerdict, Quote, Strength};
use crate::model::binding::{Binding, Field};
use crate::model::logged::LoggedStage;

/// Seconds before a correction in which events count as its evidence.
pub(in crate::analysis::doctor) const WINDOW: f64 = 1.0;

pub(super) const SERVER_DECIDED: Detector = Detector {
    cause: Cause::ServerDecidedOutcome,
    needs: "simulated: the turret's hits on the client's pawn (between the server's executions of the move and the one before: observed; within 1 s: nearby); game log: GMC logs no outcome (the server-write detector shows whether the server changed a value)",
    judge: server_decided,
};

fn server_decided(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    if ctx.ev.imported() {
        return CauseVerdict::cannot_tell(
            Cause::ServerDecidedOutcome,
            "a log does not say why the server changed a state (a hit, a knock-back); whether it changed one between moves is the server-write cause's question",
            "your game's own log line where it decides such an outcome",
        );
    }
    let (c, m, t) = (ctx.s.client, ctx.s.move_id, ctx.s.t);
    let Some(p) = ctx.ev.per(c) else {
        return ruled_out_hit(c);
    };
    let between = match (p.executed.get(&m.saturating_sub(1)), p.executed.get(&m)) {
        (Some((a, _)), Some((b, _))) => any_between(&p.turret, *a, *b),
        _ => false,
    };
    if between {
        return CauseVerdict::supported(
            Cause::ServerDecidedOutcome,
            Strength::Observed,
            format!(
                "the server's turret hit client {c}'s pawn between its executions of moves {} and {m}",
                m.saturating_sub(1)
            ),
            Vec::new(),
        );
    }
    if any_between(&p.turret, t - WINDOW, t) {
        return CauseVerdict::supported(
            Cause::ServerDecidedOutcome,
            Strength::Nearby,
            format!("the server's turret hit client {c}'s pawn within {WINDOW} s before"),
            Vec::new(),
        );
    }
    ruled_out_hit(c)
}

fn ruled_out_hit(c: u16) -> CauseVerdict {
    CauseVerdict::ruled_out(
        Cause::ServerDecidedOutcome,
        format!("nothing hit client {c}'s pawn within {WINDOW} s before"),
    )
}

pub(super) const FIRST_UPDATE: Detector = Detector {
    cause: Cause::BeforeFirstServerUpdate,
    needs: "simulated: the client's first batch after it joined (moves predicted before any server update); game log: the client's first reply against when it closed the move",
    judge: first_update,
};

fn first_update(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    let (c, m) = (ctx.s.client, ctx.s.move_id);
    let Some(p) = ctx.ev.per(c) else {
        return CauseVerdict::cannot_tell(
            Cause::BeforeFirstServerUpdate,
            format!("the records hold none of client {c}'s moves"),
            TRACE_BOTH,
        );
    };
    if ctx.ev.imported() {
        return CauseVerdict::cannot_tell(
            Cause::BeforeFirstServerUpdate,
            "a log does not show when the client got its first server update (it may begin mid-session, when the console variables were set)",
            "the client's log from its start, with `gmc.LogClientMoveTrace 1`",
        );
    }
    let last = p
        .first_batch
        .iter()
        .rev()
        .find(|(t, _)| *t <= ctx.s.t)
        .map(|(_, last)| *last)
        .filter(|last| m <= *last);
    if let (Some(_), Some(only)) = (last, spawn_only_gap(ctx)) {
        return CauseVerdict::ruled_out(
            Cause::BeforeFirstServerUpdate,
            format!(
                "move {m} was predicted before client {c}'s first server update, but it began apart only in {only}, which the client had from its spawn (actor replication, rounded to one decimal): no value that travels only bound was missing"
            ),
        );
    }
    match last {
        Some(last) => CauseVerdict::supported(
            Cause::BeforeFirstServerUpdate,
            Strength::Observed,
            format!(
                "move {m} was in the first batch client {c} sent after joining (moves 1 to {last}), predicted before any server update reached it; {} differed",
                ctx.s
                    .deviations
                    .iter()
                    .map(|d| &*d.binding)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Vec::new(),
        ),
        None => CauseVerdict::ruled_out(
            Cause::BeforeFirstServerUpdate,
            format!("move {m} left client {c} after its first batch"),
        ),
    }
}

/// Value trace: when the move began apart only in the spawn transform (location, rotation),
/// those values' names.
fn spawn_only_gap(ctx: &Ctx<'_, '_>) -> Option<String> {
    let ((_, client), server) = (ctx.judged?, ctx.server?);
    let apart: Vec<&Binding> = ctx
        .ev
        .bindings
        .iter()
        .filter(|b| {
            b.ty.distance(&client.entry.get(b.field), &server.entry.get(b.field)) > 0.0
        })
        .collect();
    let spawned = |b: &&Binding| matches!(b.field, Field::Location | Field::Rotation);
    (!apart.is_empty() && apart.iter().all(spawned)).then(|| {
        apart
            .iter()
            .map(|b| &*b.name)
            .collect::<Vec<_>>()
            .join(" and ")
    })
}

pub(super) const INPUT_PULSE: Detector = Detector {
    cause: Cause::InputPulseLost,
    needs: "simulated: input_dash bound AlwaysCombine, and the client's dash presses against the dashes the server fired; game log: the inputs (by their modes: `--component`; ControlRotation by GMC's default) in the client's and the server's dumps of the same moves",
    judge: input_pulse,
};

fn input_pulse(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    if ctx.ev.imported() {
        return logged_inputs(ctx);
    }
    let c = ctx.s.client;
    if !ctx.ev.dash_always_combine {
        return CauseVerdict::ruled_out(
            Cause::InputPulseLost,
            "input_dash is bound CombineIfUnchanged: a press closes the move it is in",
        );
    }
    let (presses, dashes) = ctx
        .ev
        .per(c)
        .map_or((0, 0), |p| (p.presses.len(), p.server_dashes.len()));
    let dash_values = ctx
        .s
        .deviations
        .iter()
        .any(|d| &*d.binding == "dash_cooldown" || &*d.binding == "dash_count");
    let near = ctx
        .ev
        .per(c)
        .is_some_and(|p| any_between(&p.presses, ctx.s.t - WINDOW, ctx.s.t));
    if presses > dashes && (dash_values || near) {
        return CauseVerdict::supported(
            Cause::InputPulseLost,
            Strength::Nearby,
            format!(
                "input_dash is bound AlwaysCombine; client {c} pressed dash {presses} times, the server fired {dashes} dashes for it"
            ),
            Vec::new(),
        );
    }
    CauseVerdict::ruled_out(
        Cause::InputPulseLost,
        format!(
            "client {c} pressed dash {presses} times and the server fired {dashes} dashes; none was pressed near this correction with a dash value wrong"
        ),
    )
}

/// A game log: did the server execute the desync's moves with the inputs the client predicted
/// them with?
fn logged_inputs(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    let c = ctx.s.client;
    let log = &ctx.ev.log;
    let mut compared = 0;
    for &m in &ctx.moves {
        let (Some(a), Some(b)) = (
            log.dump(c, m, LoggedStage::ClientExecuted),
            log.dump(c, m, LoggedStage::ServerExecuted),
        ) else {
            continue;
        };
        let inputs: Vec<Pair<'_>> = logview::apart(ctx.ev, &a.input, &b.input)
            .into_iter()
            .filter(|(x, _)| ctx.ev.mode_of(&x.name).is_some_and(|mode| mode.is_input()))
            .collect();
        compared += 1;
        if !inputs.is_empty() {
            return CauseVerdict::supported(
                Cause::InputPulseLost,
                Strength::Observed,
                format!(
                    "the server executed move {m} with inputs other than the client predicted it with: {}",
                    inputs
                        .iter()
                        .map(logview::sides_text)
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
                vec![
                    Quote::at(
                        format!("the client's Input state of move {m}"),
                        log.place(a.at),
                    ),
                    Quote::at(
                        format!("the server's Input state of move {m}"),
                        log.place(b.at),
                    ),
                ],
            );
        }
    }
    if compared == 0 {
        return CauseVerdict::cannot_tell(
            Cause::InputPulseLost,
            "no move of the desync was dumped on both machines",
            TRACE_BOTH,
        );
    }
    let named = ctx.ev.log.contents.is_some_and(|c| c.component.is_some());
    if !named {
        return CauseVerdict::cannot_tell(
            Cause::InputPulseLost,
            format!(
                "both machines began the {compared} move(s) compared with the same ControlRotation; which other values are inputs only the component says"
            ),
            "`--component` with the component's source (its binding modes)",
        );
    }
    CauseVerdict::ruled_out(
        Cause::InputPulseLost,
        format!(
            "the server executed the {compared} move(s) both machines dumped with the inputs the client predicted them with"
        ),
    )
}

pub(super) const ONE_SHOT: Detector = Detector {
    cause: Cause::OneShotReRaised,
    needs: "simulated: one-shots the client raised in live executions against those the server raised for its moves, on a correction of a value one-shots drive; game log: GMC logs no one-shot (the lint's one-shot-not-sealed rule reads the code)",
    judge: one_shot,
};

fn one_shot(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    if ctx.ev.imported() {
        let lint: Vec<String> = ctx
            .ev
            .log
            .contents
            .iter()
            .flat_map(|c| &c.code)
            .flat_map(|m| &m.findings)
            .filter(|f| f.starts_with("one-shot-not-sealed"))
            .cloned()
            .collect();
        let says = if lint.is_empty() {
            "GMC logs no one-shot, so a log cannot show one raised twice".to_string()
        } else {
            format!(
                "GMC logs no one-shot; the lint reads the code: {}",
                lint.join("; ")
            )
        };
        return CauseVerdict::cannot_tell(
            Cause::OneShotReRaised,
            says,
            "your game's log line where the one-shot fires, on both machines",
        );
    }
    let c = ctx.s.client;
    let (cl, sv) = ctx
        .ev
        .per(c)
        .map_or((0, 0), |p| (p.client_one_shots, p.server_one_shots));
    let excess = cl > sv + (sv / 10).max(3);
    let values = ctx
        .s
        .deviations
        .iter()
        .any(|d| matches!(&*d.binding, "dash_cooldown" | "dash_count" | "stride"));
    if excess && values {
        return CauseVerdict::supported(
            Cause::OneShotReRaised,
            Strength::Nearby,
            format!(
                "client {c} raised {} more one-shots than the server did for its moves (raised again in combined re-runs), and this correction concerns a value one-shots drive",
                cl - sv
            ),
            Vec::new(),
        );
    }
    CauseVerdict::ruled_out(
        Cause::OneShotReRaised,
        format!(
            "client {c} raised {cl} one-shots, the server {sv} for its moves{}",
            if excess {
                ", but no value they drive deviated"
            } else {
                ""
            }
        ),
    )
}
