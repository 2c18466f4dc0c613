//! Pieces of the move cycle shared by client and server: executing one move with
//! sub-stepping, and comparing values against their tolerance.

use super::binding::{Binding, Bindings, Value};
use super::imported;
use super::pawn::{Execution, PawnValues, TickCtx, TickOutput, gen_prediction_tick};
use super::settings::{Faults, GmcSettings};
use super::telemetry::{Deviation, Event};

pub use super::time_units::{TIME_UNITS_PER_SECOND, from_units, quantize_time, to_units};

/// The random number the demo tick draws: from the machine's own stream (seeded per machine,
/// so client and server draw different numbers) under the `unseeded_random_in_tick` pitfall,
/// else a constant, as a tick that uses no randomness (or a bound seed) would.
pub fn tick_random(faults: &Faults, rng: &mut crate::support::rng::Rng) -> f64 {
    if faults.unseeded_random_in_tick {
        rng.f64()
    } else {
        0.5
    }
}

/// Clamps a delta derived from timestamps to [0, MaxMoveDeltaTime] and rounds it to the wire's
/// time units.
pub fn clamp_delta(gmc: &GmcSettings, raw: f64) -> f64 {
    quantize_time(raw.clamp(0.0, gmc.max_move_delta_time))
}

/// Number of iterations a move of `delta` is split into: slices of at most MaxTimeStep, at most
/// MaxIterations of them, all of equal length.
pub fn iterations_for(gmc: &GmcSettings, delta: f64) -> u16 {
    if delta <= gmc.max_time_step || gmc.max_time_step <= 0.0 {
        return 1;
    }
    let n = (delta / gmc.max_time_step - 1e-9).ceil();
    (n as u16).clamp(1, gmc.max_iterations.max(1))
}

/// What a move execution can read besides the pawn: the two clocks and the other pawns.
#[derive(Clone, Copy, Debug)]
pub struct MoveClock<'a> {
    /// `GetMoveTimestamp()`.
    pub move_timestamp: f64,
    /// `GetTime()` on the executing machine now.
    pub world_time: f64,
    /// Other pawns' locations as this machine has them.
    pub others: &'a [glam::DVec3],
    /// The executing machine's frame delta (split evenly over the iterations).
    pub frame_delta: f64,
    /// A number in [0, 1) from the executing machine's own generator.
    pub random: f64,
    /// The layout the move runs with, when it is an imported one (its outputs are written
    /// after each iteration).
    pub imported: Option<&'a Bindings>,
}

/// Runs `GenPredictionTick` for one move, sub-stepped. One-shots raised by any iteration
/// accumulate in `out` (cleared first). With `trace`, the values after each iteration are
/// appended to it (the value trace). Returns the number of iterations.
#[allow(clippy::too_many_arguments)]
pub fn run_move(
    values: &mut PawnValues,
    delta: f64,
    exec: Execution,
    clock: MoveClock<'_>,
    gmc: &GmcSettings,
    faults: &Faults,
    out: &mut TickOutput,
    mut trace: Option<&mut Vec<PawnValues>>,
) -> u16 {
    out.clear();
    let n = iterations_for(gmc, delta);
    let slice = delta / f64::from(n);
    for i in 0..n {
        let ctx = TickCtx {
            exec,
            move_timestamp: clock.move_timestamp,
            world_time: clock.world_time,
            iteration: i,
            iterations: n,
            others: clock.others,
            frame_delta: clock.frame_delta / f64::from(n),
            random: clock.random,
            imported: clock.imported.is_some(),
        };
        gen_prediction_tick(values, slice, &ctx, faults, out);
        if let Some(b) = clock.imported {
            imported::tick_outputs(
                values,
                b.imported_inputs(),
                b.imported_outputs(),
                clock.move_timestamp,
                slice,
            );
        }
        if let Some(t) = trace.as_deref_mut() {
            t.push(values.clone());
        }
    }
    n
}

/// A value trace as collected (the entry values, then one per sub-step) split into the entry
/// and the sub-steps; `now` stands in for an empty trace's entry.
pub fn split_trace(mut trace: Vec<PawnValues>, now: PawnValues) -> (PawnValues, Vec<PawnValues>) {
    if trace.is_empty() {
        return (now, trace);
    }
    let entry = trace.remove(0);
    (entry, trace)
}

/// The hook trace of a rollback swap on the pawns `others` around move `move_id`: going back
/// in time, OnPawnRolledBack then OnSyncDataApplied(RollbackSwap) on each; coming back,
/// OnSyncDataApplied(RollbackSwap). Client replays and server remote moves share it.
pub fn rollback_hooks(
    telemetry: &mut Vec<(f64, Event)>,
    now: f64,
    others: impl Iterator<Item = u16>,
    move_id: u32,
    back_in_time: bool,
) {
    use super::telemetry::{Hook, NetContext};
    for pawn in others {
        if back_in_time {
            telemetry.push((
                now,
                Event::hook(Hook::OnPawnRolledBack, pawn, move_id, 0, None, None),
            ));
        }
        telemetry.push((
            now,
            Event::hook(
                Hook::OnSyncDataApplied,
                pawn,
                move_id,
                0,
                None,
                Some(NetContext::RollbackSwap),
            ),
        ));
    }
}

/// Appends OneShot and SideEffect events for what the last execution raised.
pub fn emit_one_shots(
    telemetry: &mut Vec<(f64, Event)>,
    now: f64,
    pawn: u16,
    owner: Option<u16>,
    exec: Execution,
    out: &TickOutput,
) {
    for o in &out.one_shots {
        telemetry.push((
            now,
            Event::OneShot {
                pawn,
                owner,
                kind: o.kind,
                exec,
            },
        ));
        if o.side_effect_played {
            telemetry.push((
                now,
                Event::SideEffect {
                    pawn,
                    owner,
                    kind: o.kind,
                    exec,
                },
            ));
        }
    }
}

/// Compares one bound value; returns the deviation when it exceeds the tolerance.
pub fn compare(
    b: &Binding,
    move_id: u32,
    predicted: &Value,
    authoritative: &Value,
) -> Option<Deviation> {
    let error = b.ty.distance(predicted, authoritative);
    (error > b.tolerance).then(|| Deviation {
        move_id,
        binding: b.name.clone(),
        predicted: predicted.clone(),
        authoritative: authoritative.clone(),
        error,
        tolerance: b.tolerance,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substeps_follow_max_time_step_and_max_iterations() {
        let gmc = GmcSettings::default();
        assert_eq!(iterations_for(&gmc, 1.0 / 120.0), 1);
        assert_eq!(iterations_for(&gmc, 0.04), 1);
        assert_eq!(iterations_for(&gmc, 0.05), 2);
        let loose = GmcSettings {
            max_move_delta_time: 1.0,
            ..GmcSettings::default()
        };
        assert_eq!(iterations_for(&loose, 0.1), 3);
        assert_eq!(iterations_for(&loose, 1.0), 15, "capped by MaxIterations");
        assert_eq!(clamp_delta(&gmc, 0.1), 0.05);
        assert_eq!(clamp_delta(&gmc, -0.01), 0.0);
        assert_eq!(clamp_delta(&gmc, 1.0 / 120.0), 0.00833);
        // Idempotent: a delta read from the wire clamps to itself.
        let d = clamp_delta(&gmc, 0.0166666);
        assert_eq!(clamp_delta(&gmc, d), d);
        assert_eq!(to_units(quantize_time(12.3456789)), 1_234_568);
    }
}
