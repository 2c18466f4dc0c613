//! Building the client's own moves: PreLocalMoveExecution, saving input, combining frames into
//! the open move per the input bindings' combine modes, running the tick, sealing and closing
//! moves into the history.

use super::{Client, Move};
use crate::model::binding::{Bindings, CombineMode};
use crate::model::cycle::{MoveClock, clamp_delta, emit_one_shots, quantize_time, run_move};
use crate::model::imported::{self, IMPORTED_PHASE_S};
use crate::model::input::RawInput;
use crate::model::pawn::{Execution, PawnValues};
use crate::model::telemetry::{Event, Hook, LogLevel, NetContext};

impl Client {
    /// PreLocalMoveExecution → save input → GenPredictionTick → GenAncillaryTick → save output.
    pub(super) fn local_move(&mut self, now: f64, dt: f64, raw: RawInput) {
        let layout = self.layouts.current();
        let ts = quantize_time(self.synced_time(now)).max(self.last_timestamp);
        self.last_timestamp = ts;
        // Without client prediction the owner runs no local move (it is smoothed like a proxy
        // and gets GenSimulationTick); the frame's input is still saved and sent.
        let predicting = self.cfg.gmc.use_client_prediction;

        // PreLocalMoveExecution runs first, before the input is saved: what it writes (the
        // demo pawn: the frame's stick and dash) is the move's input and takes part in
        // combining. The trace entry is patched with the move the frame ends up in.
        let pre_hook = (predicting && self.hook_trace).then(|| {
            self.hook(now, Hook::PreLocalMoveExecution, 0, 0, None, None);
            self.telemetry.len() - 1
        });
        let frame_input = self.frame_input(now, dt, &raw);
        let merge = self.merges_into_current(layout, ts, &frame_input);
        let move_id = if merge {
            self.current.as_ref().map_or(self.next_move_id, |m| m.id)
        } else {
            self.next_move_id
        };
        if let Some((_, Event::Hook { move_id: id, .. })) =
            pre_hook.and_then(|i| self.telemetry.get_mut(i))
        {
            *id = move_id;
        }
        let exec = if merge {
            self.combine_into_current(ts, &frame_input)
        } else {
            self.start_move(now, dt, ts, layout, &frame_input)
        };
        if predicting {
            // The move's start state with its input is loaded: a fresh move and a combined
            // re-run alike.
            self.sync_applied(
                now,
                NetContext::LocalClientPawn_PreLocalMoveExecution,
                move_id,
            );
        }
        let (n, close) = self.run_current_move(dt, ts, exec);
        emit_one_shots(
            &mut self.telemetry,
            now,
            self.pawn,
            Some(self.cfg.id),
            exec,
            &self.tick_out,
        );
        self.claim_hit_on_dash(now, move_id);
        if predicting {
            // GenAncillaryTick(delta, bLocalMove = true, bCombinedClientMove = frames > 1):
            // the demo pawn has no work in it; the hook trace records the call.
            self.tick_hooks(now, move_id, n, exec);
            self.hook(now, Hook::GenAncillaryTick, move_id, 0, Some(exec), None);
        }
        // The output is saved after GenAncillaryTick: what it writes is part of the move.
        if let Some(cur) = self.current.as_mut() {
            cur.output = self.values.clone();
        }
        if predicting {
            self.trace_values(now, move_id, exec);
            self.sync_applied(
                now,
                NetContext::LocalClientPawn_PostLocalMoveExecution,
                move_id,
            );
        }
        if close {
            // No later frame will fit (or the move was sealed): complete it now so it can be
            // sent without waiting a frame.
            self.close_current(now);
        }
    }

    /// The frame's input as the move saves it: the pawn with the frame's stick and dash (and
    /// the imported inputs), at wire precision (docs/model.md).
    fn frame_input(&mut self, now: f64, dt: f64, raw: &RawInput) -> PawnValues {
        // Borrowed, not cloned (an atomic count per frame).
        let b = &**self.layouts.current_bindings();
        if self.cfg.modified {
            // A modified client writes the member outside the move cycle, every frame.
            self.values.move_ramp = crate::model::pawn::RAMP_TIME;
        }
        let mut frame_input = self.values.clone();
        frame_input.gather_input(raw.dir, raw.dash);
        if b.is_imported() {
            let phase = f64::from(self.cfg.id) * IMPORTED_PHASE_S;
            imported::write_inputs(&mut frame_input, b.imported_inputs(), raw, now, dt, phase);
        }
        frame_input.quantize(b.list(), b.input);
        frame_input
    }

    /// Whether the frame merges into the open move: same layout, within the combine limit,
    /// and inputs that combine per their bindings.
    fn merges_into_current(&self, layout: u8, ts: f64, frame_input: &PawnValues) -> bool {
        let b = &**self.layouts.current_bindings();
        match &self.current {
            Some(cur) => {
                cur.layout == layout
                    && ts - cur.prev_timestamp <= self.cfg.gmc.combine_limit() + 1e-9
                    && inputs_combine(b, &cur.input, frame_input)
            }
            None => false,
        }
    }

    /// Merges the frame into the open move and resets the pawn to the move's start state
    /// (bound members only) with the combined input loaded: a combined re-run.
    fn combine_into_current(&mut self, ts: f64, frame_input: &PawnValues) -> Execution {
        let b = &**self.layouts.current_bindings();
        let cur = self.current.as_mut().expect("merge implies a current move");
        // The combined input of the merged move (the hooks before do not touch the move).
        let combined = combine_inputs(b, &cur.input, frame_input);
        cur.timestamp = ts;
        cur.delta = clamp_delta(&self.cfg.gmc, ts - cur.prev_timestamp);
        cur.input = combined;
        cur.frames += 1;
        self.values.copy_fields(&cur.start, b.bound);
        self.values.copy_fields(&cur.input, b.input);
        Execution::Combined
    }

    /// Closes the open move and opens a new one from the frame: a live execution.
    fn start_move(
        &mut self,
        now: f64,
        dt: f64,
        ts: f64,
        layout: u8,
        frame_input: &PawnValues,
    ) -> Execution {
        let input_mask = self.layouts.current_bindings().input;
        self.close_current(now);
        let gmc = &self.cfg.gmc;
        let prev = self
            .last_closed_timestamp
            .unwrap_or_else(|| quantize_time(ts - dt.clamp(0.0, gmc.max_move_delta_time)));
        let mv = Move {
            id: self.next_move_id,
            layout,
            timestamp: ts,
            prev_timestamp: prev,
            delta: clamp_delta(gmc, ts - prev),
            input: frame_input.clone(),
            start: self.values.clone(),
            output: self.values.clone(),
            frames: 1,
            substeps: 0,
            max_substeps: 0,
            sealed: false,
        };
        self.next_move_id += 1;
        self.values.copy_fields(frame_input, input_mask);
        self.current = Some(mv);
        Execution::Live
    }

    /// GenPredictionTick on the open move (none without client prediction: the move only
    /// carries input, and the pawn is shown from server states). Gives the iterations, and
    /// whether the move closes this frame (sealed, or no later frame fits).
    fn run_current_move(&mut self, dt: f64, ts: f64, exec: Execution) -> (u16, bool) {
        let others = if self.cfg.faults.tick_reads_proxy_transform {
            self.proxy_locations()
        } else {
            Vec::new()
        };
        let random = self.tick_random();
        let cur = self.current.as_mut().expect("a current move exists");
        // The value trace starts with the values at entry (no copy when it is off).
        if let Some(t) = self.value_trace.as_mut() {
            t.clear();
            t.push(self.values.clone());
        }
        let gmc = &self.cfg.gmc;
        let n = if !gmc.use_client_prediction {
            self.tick_out.clear();
            0
        } else {
            run_move(
                &mut self.values,
                cur.delta,
                exec,
                MoveClock {
                    move_timestamp: cur.timestamp,
                    world_time: ts,
                    others: &others,
                    frame_delta: dt,
                    random,
                    imported: Some(&**self.layouts.current_bindings()).filter(|b| b.is_imported()),
                },
                gmc,
                &self.cfg.faults,
                &mut self.tick_out,
                self.value_trace.as_mut(),
            )
        };
        cur.substeps = n;
        cur.max_substeps = cur.max_substeps.max(n);
        if self.tick_out.seal {
            cur.sealed = true;
        }
        (
            n,
            cur.sealed || (ts - cur.prev_timestamp) + dt > gmc.combine_limit(),
        )
    }

    /// A dash that fired tags whoever this client shows in reach: the claim the server checks.
    fn claim_hit_on_dash(&mut self, now: f64, move_id: u32) {
        if self
            .tick_out
            .one_shots
            .iter()
            .any(|o| o.kind == crate::model::pawn::OneShotKind::DashFired)
        {
            let from = self.values.location;
            let b = self.layouts.current_bindings();
            let target = crate::model::pawn::tag_target(
                from,
                self.proxies
                    .values()
                    .map(|p| (p.pawn, p.display(b).location)),
            );
            self.telemetry
                .push((now, Event::HitClaim { move_id, target }));
        }
    }

    fn close_current(&mut self, now: f64) {
        if let Some(mv) = self.current.take() {
            self.last_closed_timestamp = Some(mv.timestamp);
            self.telemetry.push((
                now,
                Event::MoveClosed {
                    move_id: mv.id,
                    timestamp: mv.timestamp,
                    delta: mv.delta,
                    frames: mv.frames,
                    substeps: mv.max_substeps,
                },
            ));
            self.history.push_back(mv);
            if self.history.len() > self.cfg.gmc.move_history_max_size {
                self.history.pop_front();
                if !self.history_overflow_logged {
                    self.history_overflow_logged = true;
                    self.log(
                        now,
                        LogLevel::Warning,
                        "move history full (MoveHistoryMaxSize): the oldest unacknowledged moves \
                         can no longer be replayed"
                            .to_string(),
                    );
                }
            }
        }
    }
}

/// Whether a frame's input may be merged into the open move, per the input bindings' combine
/// modes.
fn inputs_combine(b: &Bindings, pending: &PawnValues, frame: &PawnValues) -> bool {
    b.inputs().all(|(_, bd)| match bd.combine.resolve(bd.ty) {
        CombineMode::NeverCombine => false,
        CombineMode::CombineIfUnchanged => pending.get(bd.field) == frame.get(bd.field),
        _ => true,
    })
}

/// The merged move's input: AlwaysCombine keeps the first value of the window,
/// AlwaysCombineOverwrite the latest (CombineIfUnchanged values are equal anyway).
fn combine_inputs(b: &Bindings, pending: &PawnValues, frame: &PawnValues) -> PawnValues {
    let mut out = pending.clone();
    for (_, bd) in b.inputs() {
        if bd.combine.resolve(bd.ty) == CombineMode::AlwaysCombineOverwrite {
            out.set(bd.field, &frame.get(bd.field));
        }
    }
    out
}
