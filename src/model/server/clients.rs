//! The server's side of its clients: incoming datagrams and messages (duplicates rejected,
//! pings answered at once), joins of new and restarted clients with their pawn and welcome,
//! and dropping a client with its pawn.

use std::collections::{BTreeMap, VecDeque};

use super::{PawnSet, RemoteClient, Server, ServerPawn, spawn_point, team_of};
use crate::model::messages::{ClientMsg, Delivery, ServerMsg, SpawnData};
use crate::model::pawn::PawnValues;
use crate::model::telemetry::{Event, Hook, Rejection, Role};
use crate::model::wire::{self, Datagram, DecodeError};

impl Server {
    /// Forgets a client and removes its pawn, telling the others; false if it was not joined.
    fn forget_client(&mut self, client: u16) -> bool {
        let Some(rc) = self.clients.remove(&client) else {
            return false;
        };
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
        true
    }

    /// A client that said it leaves (a host's participant, on its control channel): forgotten
    /// with its pawn at once. It was not cut off, so no [`Event::ClientDropped`]: whoever
    /// heard it leave logs that. False if it was not joined.
    pub fn release_client(&mut self, client: u16) -> bool {
        self.forget_client(client)
    }

    /// Forgets a client and removes its pawn (it disconnected or timed out).
    pub fn drop_client(&mut self, now: f64, client: u16, why: &str) {
        if self.forget_client(client) {
            self.telemetry.push((
                now,
                Event::Log {
                    level: crate::model::telemetry::LogLevel::Warning,
                    text: format!("client {client} dropped ({why}); its pawn was removed"),
                },
            ));
            self.telemetry.push((
                now,
                Event::ClientDropped {
                    client,
                    why: why.to_string(),
                },
            ));
        }
    }

    /// Hands a datagram to the server. Returns the sending client's id, so the transport can
    /// tell which address is whose. Malformed datagrams, duplicates and refused joins are
    /// dropped and reported; the error says why.
    pub fn handle_datagram(&mut self, now: f64, bytes: &[u8]) -> Result<u16, Rejection> {
        let decoded = wire::decode(bytes, |v| self.layouts.get(v).map(|b| &**b));
        let reject =
            |s: &mut Self, reason: Rejection| s.telemetry.push((now, Event::Rejected { reason }));
        match decoded {
            Ok((h, Datagram::Client(msg))) => {
                if let ClientMsg::Join {
                    incarnation,
                    proof,
                    layout_hash,
                } = &msg
                {
                    let join = (*incarnation, *layout_hash, *proof);
                    if let Some(reason) = self.join_refusal(h.sender, join) {
                        self.refuse_join(now, h.sender, reason.clone());
                        return Err(reason);
                    }
                    // A restarted client numbers its datagrams from 1 again: its join (a newer
                    // incarnation) starts a new window, or it would look like an old duplicate
                    // for as long as the old numbering ran ahead.
                    if self
                        .clients
                        .get(&h.sender)
                        .is_some_and(|rc| rc.incarnation != *incarnation)
                    {
                        self.recv_windows.remove(&h.sender);
                    }
                }
                if self.recv_windows.entry(h.sender).or_default().accept(h.seq) {
                    self.handle_msg(now, h.sender, msg);
                    Ok(h.sender)
                } else {
                    reject(self, Rejection::Duplicate);
                    Err(Rejection::Duplicate)
                }
            }
            Ok((h, Datagram::Keepalive)) => Ok(h.sender),
            Ok((_, Datagram::Server(_))) => {
                let r = Rejection::Malformed(DecodeError::WrongDirection);
                reject(self, r.clone());
                Err(r)
            }
            Err(e) => {
                let r = Rejection::Malformed(e);
                reject(self, r.clone());
                Err(r)
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

    /// Why a join for client `id` — its (incarnation, layout hash, proof) — would be refused:
    /// without that client's proof of exactly this join (a stranger's, or one rewritten from a
    /// captured join: another id, a newer incarnation), for an id the session cannot have, or
    /// older than the incarnation the client joined with.
    pub fn join_refusal(
        &self,
        id: u16,
        (incarnation, layout_hash, proof): (u32, u32, u64),
    ) -> Option<Rejection> {
        let key = crate::model::messages::client_key(self.cfg.join_secret, id);
        if proof != crate::model::messages::join_proof(key, id, incarnation, layout_hash) {
            Some(Rejection::ForgedJoin)
        } else if id >= self.cfg.max_clients {
            Some(Rejection::ClientIdOutOfRange)
        } else if self
            .clients
            .get(&id)
            .is_some_and(|rc| incarnation < rc.incarnation)
        {
            Some(Rejection::StaleJoin)
        } else {
            None
        }
    }

    /// The incarnation client `id` joined with, while it is joined.
    pub fn incarnation_of(&self, id: u16) -> Option<u32> {
        self.clients.get(&id).map(|rc| rc.incarnation)
    }

    /// Reports a refused join: counted every time, logged once per kind.
    pub fn refuse_join(&mut self, now: f64, id: u16, reason: Rejection) {
        self.telemetry.push((
            now,
            Event::Rejected {
                reason: reason.clone(),
            },
        ));
        let (bit, why) = match reason {
            Rejection::ForgedJoin => (1u8, "it does not carry this client's proof of this join"),
            Rejection::ClientIdOutOfRange => (2, "this session has no such client"),
            Rejection::StaleJoin => (4, "it is older than the join that client made"),
            Rejection::ReplayedJoin => (
                8,
                "that client joined from another address and this is not a newer start of it \
                 (a replayed join)",
            ),
            _ => return,
        };
        if self.refusals_logged & bit == 0 {
            self.refusals_logged |= bit;
            self.telemetry.push((
                now,
                Event::Log {
                    level: crate::model::telemetry::LogLevel::Warning,
                    text: format!(
                        "refused a join claiming to be client {id}: {why}; the joined clients \
                         keep playing (further refusals of this kind are counted, not logged)"
                    ),
                },
            ));
        }
    }

    pub(super) fn join(&mut self, now: f64, from: u16, incarnation: u32, layout_hash: u32) {
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
            Some(rc) if rc.incarnation >= incarnation => None, // a retransmitted join
            Some(rc) => {
                // The client restarted: a new session for the same pawn.
                rc.incarnation = incarnation;
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
                        incarnation,
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
        // What the owning client has of its pawn before the first server update: the actor's
        // spawn transform and what travels as ordinary actor properties; no bound value (they
        // come with the first update). The team travels as an actor property and seeds the
        // bound copy, unless only bound (`spawn_data_only_bound`).
        let spawn = SpawnData::of(&p.values, !self.cfg.faults.spawn_data_only_bound);
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
