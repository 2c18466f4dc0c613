//! Move execution on the server: each client's remote moves once and in order (a gap buffer
//! holds later moves back), validated, answered with one ack or correction per frame; the
//! rollback of the other pawns and the dash hit check; the local moves of the pawns the server
//! controls (AI, the host's pawn).

use std::sync::Arc;

use glam::{DVec2, DVec3};

use super::{Server, ServerPawn};
use crate::model::binding::{Bindings, Field, FieldMask};
use crate::model::cycle::{MoveClock, clamp_delta, compare, emit_one_shots, run_move};
use crate::model::imported::{self, IMPORTED_PHASE_S};
use crate::model::messages::{Delivery, DeviationReport, ServerMsg, WireMove};
use crate::model::pawn::{Execution, PawnValues};
use crate::model::telemetry::{Event, HitRead, Hook, LogLevel, MoveValues, NetContext};

impl Server {
    /// Loads pawn `i`'s bound state at server time `at` into it, as a rollback does: every
    /// value in `bound` from the last state kept at or before `at` (the earliest kept when `at`
    /// is older), the location interpolated between the kept states around `at`. Members
    /// outside `bound` keep their present value; with nothing kept yet the pawn stays as it is.
    fn load_state_at(&mut self, i: usize, at: f64, bound: FieldMask) {
        let ServerPawn {
            history, values, ..
        } = &mut self.pawns[i];
        let k = history.partition_point(|(t, _)| *t <= at);
        let (before, after) = (
            k.checked_sub(1).and_then(|j| history.get(j)),
            history.get(k),
        );
        let Some((_, state)) = before.or(after) else {
            return;
        };
        values.copy_fields(state, bound);
        if let (Some((t0, a)), Some((t1, b))) = (before, after)
            && t1 > t0
            && bound.contains(Field::Location)
        {
            values.location = a.location.lerp(b.location, (at - t0) / (t1 - t0));
        }
    }

    /// The server time at which `client` saw the other pawns when it made move `m`: the move's
    /// time less the client's interpolation delay.
    fn view_time(&self, client: u16, m: &WireMove) -> f64 {
        m.timestamp - self.clients.get(&client).map_or(0.0, |c| c.view_delay)
    }

    /// With bRollBackServerPawns, before a remote move: every pawn but the mover takes its bound
    /// state at the moving client's view time, for the whole execution (tick and hit check;
    /// traced). Gives their present states, which [`Server::restore_others`] puts back.
    fn roll_back_others(
        &mut self,
        now: f64,
        pawn_idx: usize,
        client: u16,
        m: &WireMove,
        bound: FieldMask,
    ) -> Vec<(usize, PawnValues)> {
        let view = self.view_time(client, m);
        self.rollback_swap(now, pawn_idx, m.id, true);
        let mut present = Vec::with_capacity(self.pawns.len());
        for i in (0..self.pawns.len()).filter(|&i| i != pawn_idx) {
            present.push((i, self.pawns[i].values.clone()));
            self.load_state_at(i, view, bound);
        }
        present
    }

    /// After a rolled-back remote move: the other pawns' present states back (traced).
    fn restore_others(
        &mut self,
        now: f64,
        mover: usize,
        move_id: u32,
        present: Vec<(usize, PawnValues)>,
    ) {
        for (i, v) in present {
            self.pawns[i].values = v;
        }
        self.rollback_swap(now, mover, move_id, false);
    }

    /// The hook trace of a rollback around a remote move: every pawn but the mover is swapped
    /// to its historical state (OnPawnRolledBack, then OnSyncDataApplied with RollbackSwap) and
    /// back after the move (OnSyncDataApplied with RollbackSwap).
    fn rollback_swap(&mut self, now: f64, mover: usize, move_id: u32, back_in_time: bool) {
        if self.hook_trace {
            let others = self
                .pawns
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != mover)
                .map(|(_, p)| p.id);
            crate::model::cycle::rollback_hooks(
                &mut self.telemetry,
                now,
                others,
                move_id,
                back_in_time,
            );
        }
    }

    /// The server's verdict on a dash by `client`'s pawn in move `move_id`: the nearest other
    /// pawn in reach, where the other pawns stand during the move (rolled back to the client's
    /// view time under bRollBackServerPawns, else now), and what the check read of its target.
    fn hit_check(&mut self, now: f64, pawn_idx: usize, client: u16, m: &WireMove) {
        let roll = self.cfg.gmc.roll_back_server_pawns;
        let from = self.pawns[pawn_idx].values.location;
        let others = self
            .pawns
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != pawn_idx)
            .map(|(_, p)| (p.id, p.values.location));
        let target = crate::model::pawn::tag_target(from, others);
        self.telemetry.push((
            now,
            Event::HitCheck {
                client,
                move_id: m.id,
                target,
                rolled_back: roll,
            },
        ));
        let Some(seen) = target.and_then(|t| self.pawns.iter().find(|p| p.id == t)) else {
            return;
        };
        self.telemetry.push((
            now,
            Event::HitTargetRead(Arc::new(HitRead {
                client,
                move_id: m.id,
                target: seen.id,
                seen_at: if roll { self.view_time(client, m) } else { now },
                location: seen.values.location,
                velocity: seen.values.velocity,
                dashing: seen.values.input_dash,
                rolled_back: roll,
            })),
        ));
    }

    /// Executes the client's received moves in order and replies once. A missing move holds
    /// later ones back until it arrives or `move_gap_timeout` passes; then it is skipped.
    pub(super) fn execute_remote_moves(&mut self, now: f64, client: u16) -> u16 {
        let gap_timeout = self.cfg.gmc.move_gap_timeout;
        let Some(rc) = self.clients.get_mut(&client) else {
            return 0;
        };
        let mut ready: Vec<(WireMove, u32, u8)> = Vec::new();
        let mut skipped: Option<(u32, u32)> = None;
        while let Some(entry) = rc.buffer.first_entry() {
            let id = *entry.key();
            if id != rc.last_executed + 1 {
                let since = *rc.gap_since.get_or_insert(now);
                if now - since < gap_timeout {
                    break;
                }
                skipped = Some((rc.last_executed + 1, id - 1));
            }
            rc.gap_since = None;
            rc.last_executed = id;
            ready.push(entry.remove());
        }
        if ready.is_empty() {
            return 0;
        }
        if let Some((from, to)) = skipped {
            self.telemetry
                .push((now, Event::MovesSkipped { client, from, to }));
        }
        let Some(rc) = self.clients.get(&client) else {
            return 0;
        };
        let current_epoch = rc.epoch;
        let Some(pawn_idx) = self.pawn_index(rc.pawn) else {
            return 0;
        };
        let mut reports: Vec<DeviationReport> = Vec::new();
        let mut newest = 0;
        let mut newest_layout = self.layouts.current();
        let mut count = 0u16;
        // The binding list of the moves' layout, cloned when the layout changes (not per move:
        // each clone is an atomic count).
        let mut held: Option<(u8, Arc<Bindings>)> = None;
        for (m, epoch, layout) in ready {
            if held.as_ref().is_none_or(|(l, _)| *l != layout) {
                held = self.layouts.get(layout).map(|b| (layout, b.clone()));
            }
            let Some((_, b)) = held.as_ref() else {
                self.telemetry.push((
                    now,
                    Event::Log {
                        level: LogLevel::Error,
                        text: format!(
                            "client {client} sent move {} with unknown binding layout {layout}; \
                             it was not executed",
                            m.id
                        ),
                    },
                ));
                continue;
            };
            // Without client prediction there is nothing to validate.
            let validate = self.cfg.gmc.use_client_prediction
                && epoch == current_epoch
                && (reports.is_empty() || self.cfg.gmc.force_full_validation);
            let sink = validate.then_some(&mut reports);
            self.execute_remote(now, pawn_idx, client, b, &m, sink);
            newest = m.id;
            newest_layout = layout;
            count += 1;
        }
        if count == 0 {
            return 0;
        }
        let Some(b) = self.layouts.get(newest_layout) else {
            return count;
        };
        let p = &self.pawns[pawn_idx];
        if reports.is_empty() {
            let values = p.values.quantized(b.list(), b.client_validated);
            self.outbox.push_back((
                client,
                ServerMsg::Ack {
                    layout: newest_layout,
                    move_id: newest,
                    values,
                },
                Delivery::Unreliable,
            ));
        } else {
            let state = p.values.quantized(b.list(), b.server_auth);
            let rc = self.clients.get_mut(&client).expect("client exists");
            rc.epoch += 1;
            self.telemetry.push((
                now,
                Event::CorrectionSent {
                    client,
                    move_id: newest,
                    deviations: reports.len() as u16,
                },
            ));
            self.outbox.push_back((
                client,
                ServerMsg::Correction {
                    layout: newest_layout,
                    move_id: newest,
                    epoch: rc.epoch,
                    state,
                    deviations: reports,
                },
                Delivery::Reliable,
            ));
        }
        count
    }

    /// Executes one remote move of `client`'s pawn: rolled back among the others when
    /// bRollBackServerPawns, the tick, the hit check of a dash, and the validation against
    /// what the client claims.
    fn execute_remote(
        &mut self,
        now: f64,
        pawn_idx: usize,
        client: u16,
        b: &Bindings,
        m: &WireMove,
        // Where to put deviations; `None` executes without validating.
        reports: Option<&mut Vec<DeviationReport>>,
    ) {
        let pawn_id = self.pawns[pawn_idx].id;
        let rolled = self
            .cfg
            .gmc
            .roll_back_server_pawns
            .then(|| self.roll_back_others(now, pawn_idx, client, m, b.bound));
        let others = self.others(pawn_id);
        self.trace(
            now,
            Event::hook(
                Hook::OnSyncDataApplied,
                pawn_id,
                m.id,
                0,
                None,
                Some(NetContext::ServerPawn_PreRemoteMoveExecution),
            ),
        );
        let (delta, n) = self.run_remote_tick(now, pawn_idx, client, b, m, &others);
        let dashed = self
            .tick_out
            .one_shots
            .iter()
            .any(|o| o.kind == crate::model::pawn::OneShotKind::DashFired);
        let p = &self.pawns[pawn_idx];
        emit_one_shots(
            &mut self.telemetry,
            now,
            p.id,
            Some(client),
            Execution::Remote,
            &self.tick_out,
        );
        if dashed {
            self.hit_check(now, pawn_idx, client, m);
        }
        if let Some(reports) = reports {
            self.validate_remote(pawn_idx, b, m, reports);
        }
        self.tick_hooks(now, pawn_id, m.id, n, Execution::Remote);
        self.trace(
            now,
            Event::hook(
                Hook::OnSyncDataApplied,
                pawn_id,
                m.id,
                0,
                None,
                Some(NetContext::ServerPawn_PostRemoteMoveExecution),
            ),
        );
        if let Some(present) = rolled {
            self.restore_others(now, pawn_idx, m.id, present);
        }
        let p = &self.pawns[pawn_idx];
        self.telemetry.push((
            now,
            Event::RemoteMoveExecuted(std::sync::Arc::new(crate::model::telemetry::RemoteMove {
                pawn: p.id,
                client,
                move_id: m.id,
                timestamp: m.timestamp,
                delta,
                substeps: n,
                age: now - m.timestamp,
            })),
        ));
    }

    /// Runs the remote move's tick on the pawn: the client's input in, a turret hit when one
    /// is due, GenPredictionTick, the client's outputs in. Gives the clamped delta and the
    /// iterations.
    fn run_remote_tick(
        &mut self,
        now: f64,
        pawn_idx: usize,
        client: u16,
        b: &Bindings,
        m: &WireMove,
        others: &[DVec3],
    ) -> (f64, u16) {
        let (frame_delta, random) = (self.frame_dt, self.tick_random());
        // The client's input for client-authoritative input values; server-owned inputs keep
        // the server's value.
        self.pawns[pawn_idx]
            .values
            .copy_fields(&m.input, b.client_auth_input);
        self.turret_hit(now, pawn_idx);
        let delta = clamp_delta(&self.cfg.gmc, m.delta);
        let p = &mut self.pawns[pawn_idx];
        // The value trace starts with the values at entry (no copy when it is off).
        if let Some(t) = self.value_trace.as_mut() {
            t.clear();
            t.push(p.values.clone());
        }
        let n = run_move(
            &mut p.values,
            delta,
            Execution::Remote,
            MoveClock {
                move_timestamp: m.timestamp,
                world_time: now,
                others,
                frame_delta,
                random,
                imported: Some(b).filter(|b| b.is_imported()),
            },
            &self.cfg.gmc,
            &self.cfg.faults,
            &mut self.tick_out,
            self.value_trace.as_mut(),
        );
        // GenAncillaryTick(delta, bLocalMove = false, bCombinedClientMove = false) runs here.
        p.values.copy_fields(&m.output, b.client_auth_output);
        if let Some(t) = self.value_trace.as_mut() {
            let (entry, substeps) =
                crate::model::cycle::split_trace(std::mem::take(t), p.values.clone());
            self.telemetry.push((
                now,
                Event::MoveValues(std::sync::Arc::new(MoveValues {
                    pawn: p.id,
                    owner: Some(client),
                    move_id: m.id,
                    exec: Execution::Remote,
                    entry,
                    substeps,
                    exit: p.values.clone(),
                })),
            ));
        }
        (delta, n)
    }

    /// The world's turret: when its period came round, knocks the pawn in a random direction.
    fn turret_hit(&mut self, now: f64, pawn_idx: usize) {
        let world = &self.cfg.world;
        let p = &mut self.pawns[pawn_idx];
        if now >= p.next_turret {
            let a = self.turret_rng.range(0.0, std::f64::consts::TAU);
            p.values.velocity += (DVec2::from_angle(a) * world.turret_knockback).extend(0.0);
            p.next_turret += world.turret_period_s.max(0.01);
            while p.next_turret <= now {
                p.next_turret += world.turret_period_s.max(0.01);
            }
            self.telemetry.push((now, Event::TurretHit { pawn: p.id }));
        }
    }

    /// Compares the server-validated inputs and outputs the client claims with the server's
    /// result; each that differs becomes a deviation report (only the first, unless
    /// bForceFullValidation).
    fn validate_remote(
        &self,
        pawn_idx: usize,
        b: &Bindings,
        m: &WireMove,
        reports: &mut Vec<DeviationReport>,
    ) {
        let p = &self.pawns[pawn_idx];
        let full = self.cfg.gmc.force_full_validation;
        let checks = b
            .server_validated_inputs()
            .map(|(i, bd)| (i, bd, m.input.get(bd.field)))
            .chain(
                b.server_validated_outputs()
                    .map(|(i, bd)| (i, bd, m.output.get(bd.field))),
            );
        for (i, bd, claimed) in checks {
            let server_value = bd.ty.quantize(&p.values.get(bd.field));
            if compare(bd, m.id, &claimed, &server_value).is_some() {
                reports.push(DeviationReport {
                    move_id: m.id,
                    binding: i as u16,
                    client_value: claimed,
                    server_value,
                });
                if !full {
                    break;
                }
            }
        }
    }

    pub(super) fn local_move(&mut self, now: f64, dt: f64, i: usize) {
        let delta = clamp_delta(&self.cfg.gmc, dt);
        let pawn_id = self.pawns[i].id;
        let others = self.others(pawn_id);
        self.trace(
            now,
            Event::hook(Hook::PreLocalMoveExecution, pawn_id, 0, 0, None, None),
        );
        let p = &mut self.pawns[i];
        let raw = match p.ai.as_mut() {
            Some(script) => script.sample(now),
            None => return,
        };
        // PreLocalMoveExecution.
        let mut input = p.values.clone();
        input.gather_input(raw.dir, raw.dash);
        // Borrowed, not cloned (an atomic count per move).
        let b = self.layouts.current_bindings();
        if b.is_imported() {
            let phase = f64::from(pawn_id) * IMPORTED_PHASE_S;
            imported::write_inputs(&mut input, b.imported_inputs(), &raw, now, delta, phase);
        }
        input.quantize(b.list(), b.input);
        p.values.copy_fields(&input, b.input);
        if self.hook_trace {
            self.telemetry.push((
                now,
                Event::hook(
                    Hook::OnSyncDataApplied,
                    pawn_id,
                    0,
                    0,
                    None,
                    Some(NetContext::ServerPawn_PreLocalMoveExecution),
                ),
            ));
        }
        let random = self.tick_random();
        let p = &mut self.pawns[i];
        let n = run_move(
            &mut p.values,
            delta,
            Execution::ServerLocal,
            MoveClock {
                move_timestamp: now,
                world_time: now,
                others: &others,
                frame_delta: dt,
                random,
                imported: Some(&**self.layouts.current_bindings()).filter(|b| b.is_imported()),
            },
            &self.cfg.gmc,
            &self.cfg.faults,
            &mut self.tick_out,
            None,
        );
        emit_one_shots(
            &mut self.telemetry,
            now,
            p.id,
            None,
            Execution::ServerLocal,
            &self.tick_out,
        );
        self.telemetry.push((
            now,
            Event::LocalMoveExecuted {
                pawn: p.id,
                delta,
                substeps: n,
            },
        ));
        self.tick_hooks(now, pawn_id, 0, n, Execution::ServerLocal);
        self.trace(
            now,
            Event::hook(
                Hook::OnSyncDataApplied,
                pawn_id,
                0,
                0,
                None,
                Some(NetContext::ServerPawn_PostLocalMoveExecution),
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use glam::DVec3;

    use crate::model::binding::{Bindings, Field};
    use crate::model::messages::WireMove;
    use crate::model::pawn::{PawnValues, default_bindings};
    use crate::model::server::Server;
    use crate::session::preset::Preset;

    fn state(x: f64, vx: f64, dashing: bool, stride: f32) -> PawnValues {
        PawnValues {
            location: DVec3::new(x, 0.0, 0.0),
            velocity: DVec3::new(vx, 0.0, 0.0),
            input_dash: dashing,
            stride,
            ..Default::default()
        }
    }

    /// A rollback loads every bound value of the state kept for the view time (velocity and
    /// the flag `input_dash` included), interpolates the location, leaves unbound members as
    /// they are, and the move's end puts the present state back.
    #[test]
    fn a_rollback_loads_the_whole_bound_state_and_gives_it_back() {
        let p = Preset::default();
        let mut list = default_bindings(&p.faults);
        list.retain(|b| b.field != Field::Stride);
        let b = Bindings::new(list).expect("valid list");
        let mut server = Server::new(p.server_config(Arc::new(b.clone())));
        assert!(server.pawns.len() >= 2, "the default preset has AI pawns");
        let present = state(900.0, 500.0, false, 7.0);
        server.pawns[1].values = present.clone();
        server.pawns[1].history = [
            (1.0, state(100.0, 100.0, true, 1.0)),
            (2.0, state(300.0, 300.0, false, 2.0)),
        ]
        .into_iter()
        .collect();
        // No such client: its view delay counts as 0, so the view time is the move's time.
        let m = WireMove {
            id: 5,
            timestamp: 1.5,
            delta: 0.016,
            input: PawnValues::default(),
            output: PawnValues::default(),
        };
        let kept = server.roll_back_others(2.1, 0, 99, &m, b.bound);
        let seen = &server.pawns[1].values;
        assert_eq!(
            seen.velocity,
            DVec3::new(100.0, 0.0, 0.0),
            "velocity at 1.5 s"
        );
        assert!(seen.input_dash, "the flag as it was at 1.5 s");
        assert_eq!(
            seen.location,
            DVec3::new(200.0, 0.0, 0.0),
            "location interpolated"
        );
        assert_eq!(
            seen.stride, 7.0,
            "an unbound member is not part of the state"
        );
        server.restore_others(2.1, 0, m.id, kept);
        assert_eq!(server.pawns[1].values, present);
    }
}
