//! The client's traces: the hook trace (every hook invocation), the value trace (a pawn's
//! values around each move execution), OnSyncDataApplied and the dash-transition detection it
//! may host, and the random number a tick reads.

use super::Client;
use crate::model::pawn::Execution;
use crate::model::telemetry::{Event, Hook, MoveValues, NetContext};

impl Client {
    pub(super) fn hook(
        &mut self,
        now: f64,
        hook: Hook,
        move_id: u32,
        iteration: u16,
        exec: Option<Execution>,
        context: Option<NetContext>,
    ) {
        if self.hook_trace {
            self.telemetry.push((
                now,
                Event::Hook {
                    hook,
                    pawn: self.pawn,
                    move_id,
                    iteration,
                    exec,
                    context,
                },
            ));
        }
    }

    /// GenPredictionTick ran `n` iterations of move `move_id`.
    pub(super) fn tick_hooks(&mut self, now: f64, move_id: u32, n: u16, exec: Execution) {
        if self.hook_trace {
            for i in 0..n {
                self.hook(now, Hook::GenPredictionTick, move_id, i, Some(exec), None);
            }
        }
    }

    /// The hook trace of a rollback around a replayed move (bRollBackClientPawns): every proxy
    /// is swapped to its state at the move's view time (OnPawnRolledBack, then
    /// OnSyncDataApplied with RollbackSwap) and back after the move (RollbackSwap).
    pub(super) fn rollback_swap(&mut self, now: f64, move_id: u32, back_in_time: bool) {
        if self.hook_trace {
            let others = self.proxies.keys();
            crate::model::cycle::rollback_hooks(
                &mut self.telemetry,
                now,
                others,
                move_id,
                back_in_time,
            );
        }
    }

    /// What a tick reading a random number without a bound seed gets (a draw only under
    /// that pitfall, so the generator's stream is untouched otherwise).
    pub(super) fn tick_random(&mut self) -> f64 {
        crate::model::cycle::tick_random(&self.cfg.faults, &mut self.tick_rng)
    }

    /// GMC loaded a state into the pawn: OnSyncDataApplied. Under the
    /// `transition_in_sync_applied` pitfall the dash transition is detected here.
    pub(super) fn sync_applied(&mut self, now: f64, context: NetContext, move_id: u32) {
        self.hook(
            now,
            Hook::OnSyncDataApplied,
            move_id,
            0,
            None,
            Some(context),
        );
        if self.cfg.faults.transition_in_sync_applied {
            self.detect_transition(now, true);
        }
    }

    pub(super) fn detect_transition(&mut self, now: f64, in_sync_applied: bool) {
        let count = self.values.dash_count;
        if self.last_seen_dash.is_some_and(|c| c != count) {
            self.telemetry.push((
                now,
                Event::TransitionDetected {
                    pawn: self.pawn,
                    in_sync_applied,
                },
            ));
        }
        self.last_seen_dash = Some(count);
    }

    /// Switches the hook trace on or off.
    pub fn set_hook_trace(&mut self, on: bool) {
        self.hook_trace = on;
    }

    /// Switches the buffer trace (`Event::ProxyState`/`ProxyDisplay`); each proxy reports how
    /// it is displayed again from the next frame.
    pub fn set_buffer_trace(&mut self, on: bool) {
        self.buffer_trace = on;
        for p in self.proxies.values_mut() {
            p.traced = None;
        }
    }

    /// Switches the value trace on or off.
    pub fn set_value_trace(&mut self, on: bool) {
        self.value_trace = on.then(Vec::new);
    }

    /// Value trace: the execution of `move_id` that just ran, from its entry values (the
    /// trace's first element) through the sub-steps `run_move` collected to the pawn's values
    /// now.
    pub(super) fn trace_values(&mut self, now: f64, move_id: u32, exec: Execution) {
        if let Some(t) = self.value_trace.as_mut() {
            let (entry, substeps) =
                crate::model::cycle::split_trace(std::mem::take(t), self.values.clone());
            self.telemetry.push((
                now,
                Event::MoveValues(std::sync::Arc::new(MoveValues {
                    pawn: self.pawn,
                    owner: Some(self.cfg.id),
                    move_id,
                    exec,
                    entry,
                    substeps,
                    exit: self.values.clone(),
                })),
            ));
        }
    }
}
