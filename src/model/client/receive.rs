//! Incoming datagrams and messages: decoding (state updates straight into the proxies'
//! buffers), duplicate rejection, the join handshake, clock sync and pongs, proxy spawns, and
//! starting or rejoining a session.

use super::{Client, Phase};
use crate::model::messages::{MsgKind, ServerMsg, SpawnData, StateEntries};
use crate::model::pawn::PawnValues;
use crate::model::proxy::{Proxy, ProxyList};
use crate::model::telemetry::{Event, Hook, LogLevel, Rejection, Role};
use crate::model::wire::{self, Datagram, DecodeError, SeqWindow};

impl Client {
    /// Hands a datagram from the server to the client. A malformed datagram or a duplicate is
    /// dropped and reported in telemetry, never acted on.
    pub fn handle_datagram(&mut self, now: f64, bytes: &[u8]) -> Result<(), DecodeError> {
        if wire::kind_of(bytes) == MsgKind::StateUpdate && self.receive_state_update(now, bytes) {
            return Ok(());
        }
        self.handle_datagram_decoded(now, bytes)
    }

    /// A state update decoded straight into the proxies' buffers (no entry list; the same
    /// result as [`Client::handle_datagram_decoded`], which `state_updates_decoded_in_place_
    /// match_the_entry_list` checks). Every entry is staged in its proxy and committed only
    /// once the whole datagram decoded: false, with nothing changed, when the datagram must
    /// take the usual way (it does not decode, an entry is for the own pawn shown as a proxy,
    /// for a proxy twice, or for a proxy that would not append it).
    fn receive_state_update(&mut self, now: f64, bytes: &[u8]) -> bool {
        let mut target = StagedEntries {
            proxies: &mut self.proxies,
            own: (self.phase == Phase::Playing).then_some((self.pawn, self.own_proxy.is_some())),
            staged: std::mem::take(&mut self.staged),
            ignored: PawnValues::default(),
        };
        let decoded = wire::decode_state_update_into(
            bytes,
            |v| self.layouts.get(v).map(|b| &**b),
            &mut target,
        );
        let mut staged = std::mem::take(&mut target.staged);
        let applied = match decoded {
            Some((h, _)) => {
                if self.recv_window.accept(h.seq) {
                    self.last_heard = now;
                    let server_now = self.buffer_trace.then(|| self.synced_time(now));
                    for &i in &staged {
                        if let Some(p) = self.proxies.at_mut(i) {
                            p.commit_staged(now);
                            if let (Some(server_now), Some(state_time)) =
                                (server_now, p.newest_time())
                            {
                                self.telemetry.push((
                                    now,
                                    Event::ProxyState {
                                        pawn: p.pawn,
                                        state_time,
                                        server_now,
                                    },
                                ));
                            }
                        }
                    }
                } else {
                    self.unstage(&staged);
                    self.telemetry.push((
                        now,
                        Event::Rejected {
                            reason: Rejection::Duplicate,
                        },
                    ));
                }
                true
            }
            None => {
                self.unstage(&staged);
                false
            }
        };
        staged.clear();
        self.staged = staged;
        applied
    }

    fn unstage(&mut self, staged: &[usize]) {
        for &i in staged {
            if let Some(p) = self.proxies.at_mut(i) {
                p.unstage();
            }
        }
    }

    /// [`Client::handle_datagram`] through a decoded message.
    fn handle_datagram_decoded(&mut self, now: f64, bytes: &[u8]) -> Result<(), DecodeError> {
        let decoded = wire::decode_reusing(
            bytes,
            |v| self.layouts.get(v).map(|b| &**b),
            &mut self.entry_scratch,
        );
        match decoded {
            Ok((h, Datagram::Server(msg))) => {
                // A restarted server numbers its datagrams from 1 again, so its Reset would
                // look like an old duplicate for as long as the old numbering ran ahead. A
                // Reset only makes the client join again, so it is taken whatever its number;
                // rejoining starts a new window for the new server's numbering.
                if matches!(msg, ServerMsg::Reset) || self.recv_window.accept(h.seq) {
                    self.handle_msg(now, msg);
                } else {
                    self.telemetry.push((
                        now,
                        Event::Rejected {
                            reason: Rejection::Duplicate,
                        },
                    ));
                }
                Ok(())
            }
            Ok((_, Datagram::Keepalive)) => Ok(()),
            Ok((_, Datagram::Client(_))) => {
                let e = DecodeError::WrongDirection;
                self.reject(now, &e);
                Err(e)
            }
            Err(e) => {
                self.reject(now, &e);
                Err(e)
            }
        }
    }

    fn reject(&mut self, now: f64, e: &DecodeError) {
        self.telemetry.push((
            now,
            Event::Rejected {
                reason: Rejection::Malformed(e.clone()),
            },
        ));
    }

    /// Hands a decoded message to the client. Clock messages are applied at once (their
    /// timing matters); the rest waits for the next frame, as in an engine tick.
    pub fn handle_msg(&mut self, now: f64, msg: ServerMsg) {
        self.last_heard = now;
        match msg {
            ServerMsg::Pong { seq, client_time } => self.on_pong(now, seq, client_time),
            ServerMsg::WorldTime {
                replicator,
                server_time,
            } => self.on_world_time(now, replicator, server_time),
            ServerMsg::Welcome {
                pawn,
                spawn,
                replicators,
                server_time,
                ..
            } => self.on_welcome(now, pawn, spawn, replicators, server_time),
            ServerMsg::ProxySpawn { pawn, owner, spawn } => {
                self.on_proxy_spawn(now, pawn, owner, spawn);
            }
            ServerMsg::ProxyDespawn { pawn } => {
                if self.proxies.remove(pawn) {
                    self.proxy_set_version += 1;
                    self.telemetry.push((now, Event::ProxyDespawned { pawn }));
                }
            }
            ServerMsg::StateUpdate {
                layout,
                server_time,
                entries,
            } => self.on_state_update(now, layout, server_time, entries),
            other => self.inbox.push(other),
        }
    }

    /// A pong newer than the last one: a round-trip sample, smoothed into the RTT estimate.
    fn on_pong(&mut self, now: f64, seq: u32, client_time: f64) {
        if seq > self.last_pong_seq {
            self.last_pong_seq = seq;
            let sample = (now - client_time).max(0.0);
            self.rtt = Some(match self.rtt {
                Some(r) => r + 0.25 * (sample - r),
                None => sample,
            });
            self.telemetry.push((now, Event::Rtt { rtt: sample }));
        }
    }

    /// A newer world time re-syncs the clock, only when exactly one replicator exists: with
    /// none or several, GMC leaves every clock in its own domain (docs/model.md).
    fn on_world_time(&mut self, now: f64, replicator: u8, server_time: f64) {
        if self.replicators == Some(1) && replicator == 0 && server_time > self.last_world_time {
            self.last_world_time = server_time;
            self.resync(now, server_time);
        }
    }

    /// The join answered while connecting: a new session starts with the own pawn as spawned
    /// (predicted, or shown from server states), and the clock syncs if it can.
    fn on_welcome(
        &mut self,
        now: f64,
        pawn: u16,
        spawn: SpawnData,
        replicators: u8,
        server_time: f64,
    ) {
        let Phase::Connecting { join_sent } = self.phase else {
            return;
        };
        self.start_session();
        self.phase = Phase::Playing;
        self.pawn = pawn;
        // The actor as spawned: its transform and actor properties, every bound value at the
        // class default (the layout's spawn values).
        self.values =
            crate::model::imported::spawned(spawn.values(), self.layouts.current_bindings());
        self.last_seen_dash = Some(self.values.dash_count);
        self.replicators = Some(replicators);
        self.hook(now, Hook::BindReplicationData, 0, 0, None, None);
        let predicted = self.cfg.gmc.use_client_prediction;
        if !predicted {
            self.own_proxy = Some(Proxy::new(pawn, Some(self.cfg.id), now, spawn));
        }
        self.telemetry.push((
            now,
            Event::Role {
                pawn,
                role: if predicted {
                    Role::AutonomousProxy
                } else {
                    Role::AutonomousProxyNotPredicted
                },
            },
        ));
        match replicators {
            0 => self.log(
                now,
                LogLevel::Warning,
                "LogGMCReplication: no AGMC_WorldTimeReplicator found in the world; this \
                 client's clock is never synchronized and its move timestamps are in its own \
                 time domain"
                    .to_string(),
            ),
            1 => {
                // Until the first pong, the join round trip (which includes a server frame
                // wait) is the only latency estimate.
                self.join_rtt = join_sent.map(|sent| (now - sent).max(0.0));
                self.resync(now, server_time);
            }
            n => self.log(
                now,
                LogLevel::Error,
                format!(
                    "LogGMCReplication: {n} AGMC_WorldTimeReplicator actors found; exactly one \
                     must exist: this client's clock is never synchronized and its move \
                     timestamps are in its own time domain"
                ),
            ),
        }
    }

    /// Another pawn appears (not the own pawn once playing, nor one already shown): a new
    /// simulated proxy.
    fn on_proxy_spawn(&mut self, now: f64, pawn: u16, owner: u16, spawn: SpawnData) {
        if pawn == self.pawn && self.phase == Phase::Playing {
            return;
        }
        let owner = (owner != crate::model::messages::NO_OWNER).then_some(owner);
        if self.proxies.contains(pawn) {
            return;
        }
        self.proxies.insert(Proxy::new(pawn, owner, now, spawn));
        self.proxy_set_version += 1;
        self.telemetry.push((
            now,
            Event::ProxySpawned {
                pawn,
                owner,
                actor_team: spawn.team,
            },
        ));
        self.telemetry.push((
            now,
            Event::Role {
                pawn,
                role: Role::SimulatedProxy,
            },
        ));
        if self.hook_trace {
            self.telemetry.push((
                now,
                Event::hook(Hook::BindReplicationData, pawn, 0, 0, None, None),
            ));
        }
    }

    /// A decoded state update: each entry into its proxy's buffer (the own pawn's into the
    /// own proxy when it is shown from server states).
    fn on_state_update(&mut self, now: f64, layout: u8, server_time: f64, entries: StateEntries) {
        let simulated = self.bindings_of(layout).simulated;
        let server_now = self.buffer_trace.then(|| self.synced_time(now));
        for e in &entries {
            if e.pawn == self.pawn && self.phase == Phase::Playing {
                if let Some(p) = self.own_proxy.as_mut() {
                    p.receive(now, server_time, &e.values, simulated);
                }
            } else if let Some(p) = self.proxies.get_mut(e.pawn) {
                p.receive(now, server_time, &e.values, simulated);
                if let Some(server_now) = server_now {
                    self.telemetry.push((
                        now,
                        Event::ProxyState {
                            pawn: e.pawn,
                            state_time: server_time,
                            server_now,
                        },
                    ));
                }
            }
        }
        // A decoded list's buffer serves the next state update's decoding.
        if entries.shared_parts().is_none() {
            self.entry_scratch = entries.into_vec();
        }
    }

    /// Forgets every move: a new session with the server starts (first join, or rejoin after
    /// the server restarted or the connection timed out). Move ids start again at 1.
    fn start_session(&mut self) {
        self.history.clear();
        self.current = None;
        self.next_move_id = 1;
        self.last_closed_timestamp = None;
        self.last_timestamp = f64::NEG_INFINITY;
        self.acked = 0;
        self.sent_upto = 0;
        self.epoch = 0;
        self.reliable_in_flight.clear();
        self.last_send = None;
        self.clock_offset = None;
        self.last_world_time = f64::NEG_INFINITY;
        self.inbox.clear();
        self.proxies.clear();
        self.proxy_set_version += 1;
        self.own_proxy = None;
    }

    pub(super) fn rejoin(&mut self, now: f64, why: &str) {
        self.log(now, LogLevel::Warning, format!("{why}: joining again"));
        self.phase = Phase::Connecting { join_sent: None };
        self.last_heard = now;
        // The server may have restarted its numbering.
        self.recv_window = SeqWindow::default();
    }

    fn resync(&mut self, now: f64, server_time: f64) {
        if self.replicators != Some(1) {
            return;
        }
        let latency = self.rtt.or(self.join_rtt).unwrap_or(0.0) / 2.0;
        self.clock_offset = Some(server_time + latency - now);
        self.telemetry.push((
            now,
            Event::ClockSync {
                synced_time: server_time + latency,
                latency_estimate: latency,
            },
        ));
    }
}

/// Where [`Client::receive_state_update`] decodes entries: a state staged in the entry's
/// proxy ([`Proxy::stage`]), or a scratch copy for entries the client ignores (no proxy for
/// the pawn, or its own pawn while playing and predicting).
struct StagedEntries<'a> {
    proxies: &'a mut ProxyList,
    /// The own pawn while playing, and whether it is shown as a proxy.
    own: Option<(u16, bool)>,
    /// Positions in `proxies` with a staged state.
    staged: Vec<usize>,
    ignored: PawnValues,
}

impl wire::EntryTarget for StagedEntries<'_> {
    #[inline]
    fn entry(&mut self, server_time: f64, pawn: u16, _forced: bool) -> Option<&mut PawnValues> {
        if let Some((own, shown)) = self.own
            && own == pawn
        {
            // The own proxy (prediction off) takes the usual way.
            return if shown { None } else { Some(&mut self.ignored) };
        }
        // Entries come in pawn order, as the proxies are: the next proxy is the likely one.
        let hint = self.staged.last().map_or(0, |i| i + 1);
        let Some(i) = self.proxies.position_from(pawn, hint) else {
            return Some(&mut self.ignored);
        };
        // A pawn's second entry finds its first staged (at the same server time), which
        // `stage` does not append to.
        let v = self.proxies.at_mut(i)?.stage(server_time)?;
        self.staged.push(i);
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::model::binding::Bindings;
    use crate::model::client::ClientConfig;
    use crate::model::input::RawInput;
    use crate::model::messages::ProxyEntry;
    use crate::model::pawn::default_bindings;
    use crate::model::settings::{Faults, GmcSettings, SmoothingSettings};
    use crate::support::rng::Rng;
    use glam::DVec3;

    fn client(predicted: bool) -> Client {
        let bindings = Arc::new(Bindings::new(default_bindings(&Faults::default())).unwrap());
        let gmc = GmcSettings {
            use_client_prediction: predicted,
            ..GmcSettings::default()
        };
        Client::new(ClientConfig {
            id: 3,
            incarnation: 1,
            join_key: 5,
            gmc,
            faults: Faults::default(),
            bindings,
            smoothing: SmoothingSettings::default(),
            seed: 5,
            hook_trace: false,
            value_trace: false,
            buffer_trace: false,
            world_view_rate: 0.0,
            modified: false,
        })
    }

    /// Everything a state update can change, as text (floats printed exactly).
    fn proxy_state(c: &Client) -> String {
        format!(
            "{:?} {:?} {:?} {}",
            c.proxies.values().collect::<Vec<_>>(),
            c.own_proxy,
            c.recv_window,
            c.last_heard
        )
    }

    #[test]
    fn state_updates_decoded_in_place_match_the_entry_list() {
        // Two clients get the same datagrams: one decodes state updates straight into its
        // proxies, the other through the entry list (`handle_datagram_decoded`, the path the
        // in-place decoding replaces). Updates come in and out of order, with repeated and
        // equal server times, duplicates, unknown and own pawns, a pawn twice, truncated,
        // lengthened and damaged datagrams, and proxies coming and going; both run frames.
        // After every datagram the proxies, the telemetry and the result must be the same.
        for predicted in [true, false] {
            let (mut a, mut b) = (client(predicted), client(predicted));
            let bindings = a.bindings().clone();
            let layout = a.layouts().current();
            let mut rng = Rng::new(11);
            let mut seq = 0u32;
            let mut server_time = 1.0;
            let mut in_place = 0;
            let send = |a: &mut Client, b: &mut Client, now: f64, bytes: &[u8]| {
                let ra = a.handle_datagram(now, bytes);
                let rb = b.handle_datagram_decoded(now, bytes);
                assert_eq!(ra, rb);
                let (mut ta, mut tb) = (Vec::new(), Vec::new());
                a.drain_telemetry(&mut ta);
                b.drain_telemetry(&mut tb);
                assert_eq!(ta, tb);
                assert_eq!(proxy_state(a), proxy_state(b));
            };
            let welcome = ServerMsg::Welcome {
                layout,
                pawn: 0,
                spawn: crate::model::messages::SpawnData::default(),
                replicators: 1,
                server_time,
            };
            seq += 1;
            let bytes = wire::encode_server(seq, &welcome, &bindings);
            send(&mut a, &mut b, 0.0, &bytes);
            assert!(a.is_playing());
            for k in 0..4000u32 {
                let now = f64::from(k) / 120.0;
                if k % 20 == 0 {
                    // Proxies come and go.
                    let pawn = 1 + rng.below(8) as u16;
                    let msg = if rng.chance(0.7) {
                        ServerMsg::ProxySpawn {
                            pawn,
                            owner: 9,
                            spawn: crate::model::messages::SpawnData {
                                team: 1,
                                ..Default::default()
                            },
                        }
                    } else {
                        ServerMsg::ProxyDespawn { pawn }
                    };
                    seq += 1;
                    let bytes = wire::encode_server(seq, &msg, &bindings);
                    send(&mut a, &mut b, now, &bytes);
                }
                server_time += match rng.below(50) {
                    0 => -0.05,
                    1 => 0.0,
                    _ => 1.0 / 30.0,
                };
                let mut entries: Vec<ProxyEntry> = Vec::new();
                for pawn in 0..10u16 {
                    if rng.chance(0.8) {
                        let x = rng.range(-3000.0, 3000.0);
                        entries.push(ProxyEntry {
                            pawn,
                            forced: rng.chance(0.1),
                            values: PawnValues {
                                location: DVec3::new(x, -x / 2.0, 90.0),
                                rotation: DVec3::new(0.0, x / 20.0, 0.0),
                                velocity: DVec3::new(x / 10.0, 1.5, 0.0),
                                dash_cooldown: rng.range(0.0, 2.0) as f32,
                                dash_count: (k / 300) as u8 + u8::from(rng.chance(0.02)),
                                team: 1 + u8::from(rng.chance(0.01)),
                                ..PawnValues::default()
                            },
                        });
                    }
                }
                if rng.chance(0.02)
                    && let Some(e) = entries.first().cloned()
                {
                    entries.push(e);
                }
                let msg = ServerMsg::StateUpdate {
                    layout,
                    server_time,
                    entries: entries.into(),
                };
                if !rng.chance(0.02) {
                    seq += 1;
                }
                let mut bytes = wire::encode_server(seq, &msg, &bindings);
                match rng.below(60) {
                    0 => bytes.truncate(rng.below(bytes.len() as u64) as usize),
                    1 => bytes.push(0),
                    2 => {
                        let i = crate::model::messages::HEADER_BYTES + 8;
                        if let Some(n) = bytes.get_mut(i) {
                            *n = n.wrapping_add(1);
                        }
                    }
                    3 => {
                        let i = rng.below(bytes.len() as u64) as usize;
                        bytes[i] ^= 0x10;
                    }
                    _ => {}
                }
                // `handle_datagram`, counting the updates taken in place.
                let ra = if a.receive_state_update(now, &bytes) {
                    in_place += 1;
                    Ok(())
                } else {
                    a.handle_datagram_decoded(now, &bytes)
                };
                assert_eq!(ra, b.handle_datagram_decoded(now, &bytes));
                a.frame(now, RawInput::default());
                b.frame(now, RawInput::default());
                let (mut ta, mut tb) = (Vec::new(), Vec::new());
                a.drain_telemetry(&mut ta);
                b.drain_telemetry(&mut tb);
                assert_eq!(ta, tb, "frame {k}");
                assert_eq!(proxy_state(&a), proxy_state(&b), "frame {k}");
            }
            // Without prediction most updates carry the own pawn, shown as a proxy: those take
            // the entry list.
            let least = if predicted { 3000 } else { 500 };
            assert!(in_place > least, "state updates taken in place: {in_place}");
        }
    }
}
