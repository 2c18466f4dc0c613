//! The server's replies to moves: acknowledgements validated against the prediction,
//! corrections adopted, and the pending moves replayed from the corrected state.

use super::Client;
use crate::model::cycle::{MoveClock, compare, emit_one_shots, run_move};
use crate::model::messages::ServerMsg;
use crate::model::pawn::{Execution, PawnValues};
use crate::model::telemetry::{DetectedBy, Deviation, Event, NetContext};

impl Client {
    pub(super) fn apply_server_msg(&mut self, now: f64, msg: ServerMsg) {
        if !self.cfg.gmc.use_client_prediction {
            // Nothing was predicted, so nothing is compared or replayed.
            if let ServerMsg::Ack { move_id, .. } | ServerMsg::Correction { move_id, .. } = msg {
                self.acknowledge(move_id);
                return;
            }
        }
        match msg {
            ServerMsg::Ack {
                move_id, values, ..
            } => {
                if move_id <= self.acked {
                    return; // duplicate or older than what we know
                }
                let mut deviations = Vec::new();
                let mut base = None;
                if let Some(m) = self.history.iter().find(|m| m.id == move_id) {
                    let b = self.bindings_of(m.layout);
                    for (_, bd) in b.client_validated() {
                        // Compared as the wire carries it, as the server compares.
                        let predicted = bd.ty.quantize(&m.output.get(bd.field));
                        if let Some(d) = compare(bd, move_id, &predicted, &values.get(bd.field)) {
                            deviations.push(d);
                            if !self.cfg.gmc.force_full_validation {
                                break;
                            }
                        }
                    }
                    if !deviations.is_empty() {
                        let mut s = m.output.clone();
                        s.copy_fields(&values, b.client_validated);
                        base = Some((s, m.layout));
                    }
                }
                if let Some((state, layout)) = base {
                    self.correct(now, move_id, layout, state, DetectedBy::Client, deviations);
                }
                self.acknowledge(move_id);
            }
            ServerMsg::Correction {
                layout,
                move_id,
                epoch,
                state,
                deviations,
            } => {
                self.epoch = self.epoch.max(epoch);
                if move_id < self.acked {
                    return; // a newer acknowledgement already superseded it
                }
                let b = self.bindings_of(layout);
                let mut base = self
                    .history
                    .iter()
                    .find(|m| m.id == move_id)
                    .map_or(self.values.clone(), |m| m.output.clone());
                base.copy_fields(&state, b.server_auth);
                let devs = deviations
                    .into_iter()
                    .filter_map(|d| {
                        let bd = b.list().get(d.binding as usize)?;
                        Some(Deviation {
                            move_id: d.move_id,
                            binding: bd.name.clone(),
                            error: bd.ty.distance(&d.client_value, &d.server_value),
                            tolerance: bd.tolerance,
                            predicted: d.client_value,
                            authoritative: d.server_value,
                        })
                    })
                    .collect();
                self.correct(now, move_id, layout, base, DetectedBy::Server, devs);
                self.acknowledge(move_id);
            }
            ServerMsg::Reset => {
                self.rejoin(now, "the server does not know this client (it restarted?)");
            }
            // Handled on receipt.
            ServerMsg::Welcome { .. }
            | ServerMsg::WorldTime { .. }
            | ServerMsg::Pong { .. }
            | ServerMsg::ProxySpawn { .. }
            | ServerMsg::ProxyDespawn { .. }
            | ServerMsg::StateUpdate { .. } => {}
        }
    }

    fn acknowledge(&mut self, move_id: u32) {
        self.acked = self.acked.max(move_id);
        while self.history.front().is_some_and(|m| m.id <= move_id) {
            self.history.pop_front();
        }
    }

    /// Adopts the server's state for `move_id` and (bUseClientReplay) re-executes every later
    /// pending move in order with its recorded input and delta.
    fn correct(
        &mut self,
        now: f64,
        move_id: u32,
        layout: u8,
        state: PawnValues,
        detected_by: DetectedBy,
        deviations: Vec<Deviation>,
    ) {
        let b = self.bindings_of(layout).clone();
        let gmc = self.cfg.gmc;
        self.values.copy_fields(&state, b.bound);
        self.sync_applied(now, NetContext::LocalClientPawn_ServerStateAdopted, move_id);
        let mut depth = 0u16;
        let replay = gmc.use_client_replay;
        if replay {
            let ts_now = self.synced_time(now);
            let others = if self.cfg.faults.tick_reads_proxy_transform {
                self.proxy_locations()
            } else {
                Vec::new()
            };
            let mut slots: Vec<Option<usize>> = (0..self.history.len())
                .filter(|&i| self.history[i].id > move_id)
                .map(Some)
                .collect();
            if self.current.is_some() {
                slots.push(None);
            }
            for slot in slots {
                let Some(m) = (match slot {
                    Some(i) => self.history.get(i),
                    None => self.current.as_ref(),
                }) else {
                    continue;
                };
                let (id, input, delta, timestamp) = (m.id, m.input.clone(), m.delta, m.timestamp);
                // bRollBackClientPawns: the replayed move reads the others as they were then.
                let others =
                    if self.cfg.faults.tick_reads_proxy_transform && gmc.roll_back_client_pawns {
                        let view = timestamp - self.view_delay;
                        self.proxies
                            .values()
                            .map(|p| p.values_at(view, &b).location)
                            .collect()
                    } else {
                        others.clone()
                    };
                let mb = self.bindings_of(m.layout).clone();
                let start = self.values.clone();
                if gmc.roll_back_client_pawns {
                    self.rollback_swap(now, id, true);
                }
                self.sync_applied(now, NetContext::LocalClientPawn_PreReplayMoveExecution, id);
                self.values.copy_fields(&input, mb.input);
                if let Some(t) = self.value_trace.as_mut() {
                    t.clear();
                    t.push(self.values.clone());
                }
                let random = self.tick_random();
                let n = run_move(
                    &mut self.values,
                    delta,
                    Execution::Replay,
                    MoveClock {
                        move_timestamp: timestamp,
                        world_time: ts_now,
                        others: &others,
                        frame_delta: self.frame_dt,
                        random,
                        imported: Some(&*mb).filter(|b| b.is_imported()),
                    },
                    &gmc,
                    &self.cfg.faults,
                    &mut self.tick_out,
                    self.value_trace.as_mut(),
                );
                self.trace_values(now, id, Execution::Replay);
                self.tick_hooks(now, id, n, Execution::Replay);
                self.sync_applied(now, NetContext::LocalClientPawn_PostReplayMoveExecution, id);
                if gmc.roll_back_client_pawns {
                    self.rollback_swap(now, id, false);
                }
                let output = self.values.clone();
                if let Some(m) = match slot {
                    Some(i) => self.history.get_mut(i),
                    None => self.current.as_mut(),
                } {
                    m.start = start;
                    m.output = output;
                    m.max_substeps = m.max_substeps.max(n);
                }
                depth += 1;
                emit_one_shots(
                    &mut self.telemetry,
                    now,
                    self.pawn,
                    Some(self.cfg.id),
                    Execution::Replay,
                    &self.tick_out,
                );
            }
        } else if let Some(cur) = self.current.as_mut() {
            // No replay: the pawn snaps to the server's state; the open move continues from it.
            cur.start = self.values.clone();
        }
        self.telemetry.push((
            now,
            Event::Correction {
                move_id,
                detected_by,
                deviations: deviations.into_boxed_slice(),
                replay_depth: depth,
                replayed: replay,
            },
        ));
    }
}
