//! Where a difference a move began with came from, over the value trace: a tick seen to part
//! values that began within tolerance (at this move or before it), else walking back
//! move by move — a change between two moves, a correction the client replayed from (its
//! values rounded by the wire), or the spawn (its transform rounded to one decimal).

use super::Ctx;
use crate::analysis::doctor::parting::{Stage, parting};
use crate::model::binding::Binding;
use crate::model::pawn::Execution;
use crate::model::telemetry::MoveValues;

/// Where a difference a move began with came from.
pub(super) enum Origin {
    /// Move `id`'s tick (at or before the desync's move) parted values that began within
    /// tolerance, or (`exact`) exactly equal: the values named.
    Tick {
        id: u32,
        names: Vec<String>,
        exact: bool,
    },
    /// Move `id` ended exactly as the server's and the next began apart: the difference came
    /// in between two moves (a write outside the move).
    Between(u32),
    /// The client replayed from the correction for move `id`: it took the server's values as
    /// they arrived, rounded to the wire's precision.
    Correction(u32),
    /// The client's first traced move (`id`) already began apart: its spawn.
    FromStart(u32),
    /// The look-back ran out (or an execution of move `id` is not traced on both machines).
    Unknown(u32),
}

/// Moves a walk goes back at most.
const WALK_LIMIT: usize = 2_000;

/// Every bound value with tolerance 0: where the two executions first held different values
/// at all, not only beyond tolerance.
fn exact(bindings: &[Binding]) -> Vec<Binding> {
    bindings
        .iter()
        .map(|b| Binding {
            tolerance: 0.0,
            ..b.clone()
        })
        .collect()
}

/// The client's execution of move `id` that the next move began from: its last at or before
/// `before` (a replay after a correction counts).
fn execution_before<'a>(ctx: &Ctx<'_, 'a>, id: u32, before: f64) -> Option<(f64, &'a MoveValues)> {
    let v = ctx.ev.trace.client.get(&(ctx.s.client, id))?;
    v.iter().rev().find(|(t, _)| *t <= before).copied()
}

/// The last move of the client, at or before the desync's, whose tick parted values that
/// began within tolerance and ended beyond; with the values it parted.
fn last_tick_parting(ctx: &Ctx<'_, '_>) -> Option<(u32, Vec<String>)> {
    let (c, m) = (ctx.s.client, ctx.s.move_id);
    let id = ctx
        .ev
        .trace
        .tick_parted
        .get(&c)?
        .iter()
        .copied()
        .rfind(|id| *id <= m)?;
    let client = ctx
        .ev
        .trace
        .client
        .get(&(c, id))?
        .iter()
        .rev()
        .find(|(_, x)| x.exec != Execution::Replay)?;
    let server = ctx.ev.trace.server.get(&(c, id))?;
    let names = crate::analysis::doctor::parting::tick_parted(ctx.ev.bindings, client.1, server)?;
    Some((id, names))
}

/// Where the desync's move got the difference it began with.
pub(super) fn origin(ctx: &Ctx<'_, '_>) -> Origin {
    let walked = walk_back(ctx);
    if matches!(walked, Origin::Tick { .. }) {
        return walked;
    }
    match last_tick_parting(ctx) {
        Some((id, names)) => Origin::Tick {
            id,
            names,
            exact: false,
        },
        None => walked,
    }
}

/// Walks back from the desync's move over the value trace (each move's client execution the
/// next one began from, against the server's) to where its entry difference came in.
fn walk_back(ctx: &Ctx<'_, '_>) -> Origin {
    let bindings = exact(ctx.ev.bindings);
    let all: Vec<&Binding> = bindings.iter().collect();
    let (c, m) = (ctx.s.client, ctx.s.move_id);
    let Some((mut at, mut later)) = ctx.judged else {
        return Origin::Unknown(m);
    };
    let before = ctx.ev.moves_before(c, m, WALK_LIMIT);
    let mut id = m;
    for &prev in before.iter().rev().skip(1) {
        id = prev;
        let client = execution_before(ctx, id, at);
        let server = ctx.ev.trace.server.get(&(c, id));
        let (Some((t, a)), Some(b)) = (client, server) else {
            return Origin::Unknown(id);
        };
        if later.exec == Execution::Replay && a.exec != Execution::Replay {
            return Origin::Correction(id);
        }
        let p = parting(&all, a, b);
        match p.stage {
            // Exactly equal values in, different values out: the tick computed differently.
            Stage::SubStep { .. } | Stage::AfterTick => {
                return Origin::Tick {
                    id,
                    names: p.bindings,
                    exact: true,
                };
            }
            Stage::Nowhere => return Origin::Between(id),
            Stage::SubStepCount => return Origin::Unknown(id),
            Stage::Entry => (at, later) = (t, a),
        }
    }
    if before.len() <= WALK_LIMIT {
        return Origin::FromStart(id);
    }
    Origin::Unknown(id)
}
