//! The server's side of its clients: incoming datagrams and messages (duplicates rejected,
//! pings answered at once), joins of new and restarted clients with their pawn and welcome,
//! and dropping a client with its pawn.

use std::collections::{BTreeMap, VecDeque};

use super::{PawnSet, RemoteClient, Server, ServerPawn, spawn_point, team_of};
use crate::model::messages::{ClientMsg, Delivery, ServerMsg};
use crate::model::pawn::PawnValues;
use crate::model::telemetry::{Event, Hook, Rejection, Role};
use crate::model::wire::{self, Datagram, DecodeError};

impl Server {
    /// Forgets a client and removes its pawn (it disconnected or timed out).
    pub fn drop_client(&mut self, now: f64, client: u16, why: &str) {
        if let Some(rc) = self.clients.remove(&client) {
            self.pawns.retain(|p| p.id != rc.pawn);
            self.host_view.remove(&rc.pawn);
            for (&c, other) in self.clients.iter_mut() {
                if other.known.remove(rc.pawn) {
                    self.outbox.push_back((
                        c,
                        ServerMsg::ProxyDespawn { pawn: rc.pawn },
                        Delivery::Reliable,
                    ));
                }
            }
            self.telemetry.push((
                now,
                Event::Log {
                    level: crate::model::telemetry::LogLevel::Warning,
                    text: format!("client {client} dropped ({why}); its pawn was removed"),
                },
            ));
        }
    }

    /// Hands a datagram to the server. Returns the sending client's id, so the transport can
    /// tell which address is whose. Malformed datagrams and duplicates are dropped and reported.
    pub fn handle_datagram(&mut self, now: f64, bytes: &[u8]) -> Result<u16, DecodeError> {
        let decoded = wire::decode(bytes, |v| self.layouts.get(v).map(|b| &**b));
        let reject =
            |s: &mut Self, reason: Rejection| s.telemetry.push((now, Event::Rejected { reason }));
        match decoded {
            Ok((h, Datagram::Client(msg))) => {
                // A restarted client numbers its datagrams from 1 again: its join (a nonce
                // the server has not seen from it) starts a new window, or it would look like
                // an old duplicate for as long as the old numbering ran ahead.
                if let ClientMsg::Join { nonce, .. } = &msg
                    && self
                        .clients
                        .get(&h.sender)
                        .is_some_and(|rc| rc.nonce != *nonce)
                {
                    self.recv_windows.remove(&h.sender);
                }
                if self.recv_windows.entry(h.sender).or_default().accept(h.seq) {
                    self.handle_msg(now, h.sender, msg);
                } else {
                    reject(self, Rejection::Duplicate);
                }
                Ok(h.sender)
            }
            Ok((h, Datagram::Keepalive)) => Ok(h.sender),
            Ok((_, Datagram::Server(_))) => {
                reject(self, Rejection::Malformed(DecodeError::WrongDirection));
                Err(DecodeError::WrongDirection)
            }
            Err(e) => {
                reject(self, Rejection::Malformed(e.clone()));
                Err(e)
            }
        }
    }

    /// Hands a decoded message from client `from` to the server. Pings are answered at once;
    /// everything else waits for the next frame.
    pub fn handle_msg(&mut self, now: f64, from: u16, msg: ClientMsg) {
        if let Some(rc) = self.clients.get_mut(&from) {
            rc.last_heard = now;
        }
        match msg {
            ClientMsg::Ping { seq, client_time } => self.outbox.push_back((
                from,
                ServerMsg::Pong { seq, client_time },
                Delivery::Unreliable,
            )),
            other => self.inbox.push((from, other)),
        }
    }

    pub(super) fn join(&mut self, now: f64, from: u16, nonce: u32, layout_hash: u32) {
        let own = self.layouts.current_bindings().layout_hash();
        if layout_hash != own && self.layout_errors.insert(from, layout_hash) != Some(layout_hash) {
            self.telemetry.push((
                now,
                Event::Log {
                    level: crate::model::telemetry::LogLevel::Error,
                    text: format!(
                        "client {from} bound a different binding list (layout {layout_hash:08x}, \
                         server {own:08x}): every state the two exchange is garbage"
                    ),
                },
            ));
        }
        let rejoin = match self.clients.get_mut(&from) {
            Some(rc) if rc.nonce == nonce => None, // a retransmitted join
            Some(rc) => {
                // The client restarted: a new session for the same pawn.
                rc.nonce = nonce;
                rc.last_executed = 0;
                rc.buffer.clear();
                rc.gap_since = None;
                rc.epoch = 0;
                rc.last_heard = now;
                rc.known.clear();
                Some(true)
            }
            None => {
                let id = self.next_pawn_id;
                self.next_pawn_id = self.next_pawn_id.wrapping_add(1);
                let (loc, yaw) = spawn_point(self.cfg.world.spawn_radius, u32::from(from));
                let first_turret = if self.cfg.world.turret_period_s > 0.0 {
                    now + self
                        .turret_rng
                        .range(0.5, 0.5 + self.cfg.world.turret_period_s)
                } else {
                    f64::INFINITY
                };
                let values = crate::model::imported::spawned(
                    PawnValues {
                        team: team_of(id),
                        ..PawnValues::spawn_at(loc, yaw)
                    },
                    self.layouts.current_bindings(),
                );
                self.pawns.push(ServerPawn {
                    id,
                    owner: Some(from),
                    values: values.clone(),
                    host: false,
                    ai: None,
                    next_turret: first_turret,
                    last_sent: values,
                    history: VecDeque::new(),
                });
                self.telemetry.push((
                    now,
                    Event::Role {
                        pawn: id,
                        role: Role::RemotelyControlledServerPawn,
                    },
                ));
                self.trace(
                    now,
                    Event::hook(Hook::BindReplicationData, id, 0, 0, None, None),
                );
                self.clients.insert(
                    from,
                    RemoteClient {
                        pawn: id,
                        nonce,
                        last_heard: now,
                        last_executed: 0,
                        buffer: BTreeMap::new(),
                        gap_since: None,
                        epoch: 0,
                        known: PawnSet::default(),
                        view_delay: 0.0,
                    },
                );
                Some(false)
            }
        };
        let Some(pawn_id) = self.clients.get(&from).map(|rc| rc.pawn) else {
            return;
        };
        if let Some(rejoin) = rejoin {
            self.telemetry.push((
                now,
                Event::Joined {
                    client: from,
                    pawn: pawn_id,
                    rejoin,
                },
            ));
        }
        let Some(pawn_idx) = self.pawn_index(pawn_id) else {
            return;
        };
        let p = &self.pawns[pawn_idx];
        let b = self.layouts.current_bindings();
        // What the owning client has of its pawn before the first server update: the actor's
        // spawn transform and what travels as ordinary actor properties. Server-authoritative
        // bound values arrive with the first update; the team also travels as an actor
        // property and seeds the bound copy, unless only bound (`spawn_data_only_bound`).
        let mut spawn = p.values.quantized(b.list(), b.bound);
        if self.cfg.faults.spawn_data_only_bound {
            spawn.team = 0;
        }
        self.outbox.push_back((
            from,
            ServerMsg::Welcome {
                layout: self.layouts.current(),
                pawn: p.id,
                spawn,
                replicators: self.cfg.world_time_replicators,
                server_time: now,
            },
            Delivery::Reliable,
        ));
    }
}
