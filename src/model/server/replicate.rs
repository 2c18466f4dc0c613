//! Replication to the proxies: spawns for pawns a client does not know yet, forced updates
//! for changed PeriodicAndOnChange values, periodic state updates packed into datagrams, and
//! the listen host's smoothed view of the remote pawns.

use std::sync::Arc;

use super::Server;
use crate::model::messages::{
    Delivery, HEADER_BYTES, NO_OWNER, ProxyEntry, STATE_UPDATE_HEADER_BITS, ServerMsg, SpawnData,
    StateEntries,
};
use crate::model::pawn::PawnValues;
use crate::model::proxy::Proxy;
use crate::model::telemetry::{Event, Hook, Role};

impl Server {
    /// Tells clients about pawns they do not know yet, sends forced updates for changed
    /// PeriodicAndOnChange values, and the periodic state updates.
    pub(super) fn replicate_to_proxies(&mut self, now: f64) {
        if self.clients.is_empty() {
            // No proxies anywhere (standalone, or nobody joined yet).
            return;
        }
        let b = self.layouts.current_bindings().clone();
        let layout = self.layouts.current();
        let actor_team = !self.cfg.faults.spawn_data_only_bound;
        let predicting = self.cfg.gmc.use_client_prediction;
        // Spawns.
        for (&c, rc) in self.clients.iter_mut() {
            for p in &self.pawns {
                if p.id != rc.pawn && !rc.known.contains(p.id) && rc.known.insert(p.id) {
                    self.outbox.push_back((
                        c,
                        ServerMsg::ProxySpawn {
                            pawn: p.id,
                            owner: p.owner.unwrap_or(NO_OWNER),
                            spawn: SpawnData::of(&p.values, actor_team),
                        },
                        Delivery::Reliable,
                    ));
                }
            }
        }
        // Forced updates: a PeriodicAndOnChange value changed.
        let mut forced: Vec<ProxyEntry> = Vec::new();
        for p in &mut self.pawns {
            if !p.values.differs_in(&p.last_sent, b.on_change) {
                continue;
            }
            for bd in b.list() {
                if b.on_change.contains(bd.field)
                    && p.values.get(bd.field) != p.last_sent.get(bd.field)
                {
                    self.telemetry.push((
                        now,
                        Event::ForcedUpdate {
                            pawn: p.id,
                            binding: bd.name.clone(),
                        },
                    ));
                }
            }
            p.last_sent = p.values.clone();
            forced.push(ProxyEntry {
                pawn: p.id,
                forced: true,
                values: p.values.clone(),
            });
        }
        let periodic = now >= self.next_net_update;
        if periodic {
            let interval = 1.0 / self.cfg.net_update_rate.max(0.1);
            self.next_net_update = (self.next_net_update + interval).max(now);
            for p in &mut self.pawns {
                p.last_sent = p.values.clone();
            }
        }
        if forced.is_empty() && !periodic {
            return;
        }
        let all: Arc<[ProxyEntry]> = if periodic {
            self.pawns
                .iter()
                .map(|p| ProxyEntry {
                    pawn: p.id,
                    forced: forced.iter().any(|f| f.pawn == p.id),
                    values: p.values.clone(),
                })
                .collect()
        } else {
            forced.into()
        };
        // Each entry's encoded size (the same in every client's update): encoded once here,
        // into the cache the datagrams' encoding copies from, which also learns the list so
        // that it finds each picked entry's bits by index.
        let bits = self.entry_cache.share(&b, layout, now, &all);
        // Packed in order by the entries' actual sizes: a datagram takes entries while its
        // encoded size stays within the batch limit (at least one entry, at most 255).
        let limit_bits = (crate::model::client::MAX_BATCH_BYTES - HEADER_BYTES) * 8;
        for (&c, rc) in &self.clients {
            let wanted = |e: &ProxyEntry| {
                (e.pawn != rc.pawn && rc.known.contains(e.pawn))
                    || (e.pawn == rc.pawn && !predicting)
            };
            let mut chunk: Vec<u16> = Vec::new();
            let mut chunk_bits = STATE_UPDATE_HEADER_BITS;
            for (i, (e, &(_, eb))) in all.iter().zip(bits).enumerate() {
                // `all` has one entry per pawn, far fewer than 2^16 (the preset's limits).
                let Ok(i) = u16::try_from(i) else {
                    break;
                };
                if !wanted(e) {
                    continue;
                }
                if !chunk.is_empty() && (chunk.len() >= 255 || chunk_bits + eb > limit_bits) {
                    self.outbox.push_back((
                        c,
                        ServerMsg::StateUpdate {
                            layout,
                            server_time: now,
                            entries: StateEntries::picked(all.clone(), std::mem::take(&mut chunk)),
                        },
                        Delivery::Unreliable,
                    ));
                    chunk_bits = STATE_UPDATE_HEADER_BITS;
                }
                if chunk.is_empty() {
                    chunk.reserve(all.len());
                }
                chunk.push(i);
                chunk_bits += eb;
            }
            if !chunk.is_empty() {
                self.outbox.push_back((
                    c,
                    ServerMsg::StateUpdate {
                        layout,
                        server_time: now,
                        entries: StateEntries::picked(all.clone(), chunk),
                    },
                    Delivery::Unreliable,
                ));
            }
        }
    }

    /// Listen server: the host displays remote pawns smoothed (IsSmoothedListenServerPawn);
    /// GenSimulationTick runs for them here.
    pub(super) fn update_host_view(&mut self, now: f64, dt: f64) {
        let b = self.layouts.current_bindings().clone();
        let remote: Vec<(u16, Option<u16>, PawnValues)> = self
            .pawns
            .iter()
            .filter(|p| p.owner.is_some())
            .map(|p| (p.id, p.owner, p.values.clone()))
            .collect();
        let cfg = self.cfg.smoothing;
        let mut frames = Vec::new();
        let mut effects = Vec::new();
        for (id, owner, values) in remote {
            let p = match self.host_view.entry(id) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => {
                    self.telemetry.push((
                        now,
                        Event::Role {
                            pawn: id,
                            role: Role::SmoothedListenServerPawn,
                        },
                    ));
                    e.insert(Proxy::new(id, owner, now, SpawnData::of(&values, true)))
                }
            };
            p.receive(now, now, &values, b.simulated);
            let f = p.update(now, now, 0.0, &cfg, 0.0, &b, &mut self.view_rng, None);
            frames.push(f);
            let last = p.last_effect_count.replace(f.dash_count);
            if last.is_some_and(|l| l != f.dash_count) {
                effects.push(id);
            }
            if self.hook_trace {
                self.telemetry.push((
                    now,
                    Event::hook(Hook::GenSimulationTick, id, 0, 0, None, None),
                ));
            }
        }
        for pawn in effects {
            self.telemetry.push((now, Event::ProxyEffect { pawn }));
        }
        if !frames.is_empty() {
            self.host_stats.frame(&frames, dt);
        }
        if let Some(e) = self.host_stats.take(now) {
            self.telemetry.push((now, e));
        }
    }
}
