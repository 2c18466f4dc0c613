//! The live server's thread: its model `Server`, its endpoint (with a host's roster), its
//! frame clock, commands from the session and telemetry to it.

use crate::conditions::link::{Link, LinkParams};
use crate::model::binding::Bindings;
use crate::model::messages::{Delivery, MsgKind};
use crate::model::server::Server;
use crate::model::telemetry::{Event, LogLevel, Machine, PacketFate, Record};
use crate::net::runtime::COMMAND_CAPACITY;
use crate::net::runtime::MachineLoop;
use crate::net::runtime::SessionClock;
use crate::net::runtime::TelemetryTx;
use crate::net::runtime::ThreadCmd;
use crate::net::runtime::Worker;
use crate::net::runtime::guarded;
use crate::net::transport::{Departures, Endpoint, KEEPALIVE_INTERVAL, Roster, TransportEvent};
use crate::session::control::MachineCmd;
use crate::session::preset::Preset;
use crate::session::setup::packet_record;
use crate::support::rng::{derive_seed, purpose};
use crossbeam_channel::bounded;
use std::collections::BTreeMap;

/// Seconds a (re)started server waits for each of the session's clients to join.
const EXPECT_JOIN_S: f64 = 5.0;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a server thread shares with its session.
pub(crate) struct ServerCx {
    pub(crate) clock: Arc<SessionClock>,
    pub(crate) tele: TelemetryTx,
    /// A host: the addresses admitted, and the client each may speak for.
    pub(crate) roster: Option<Roster>,
    /// The session's join secret.
    pub(crate) secret: u64,
    /// A host: participants that said they leave, removed at the next turn.
    pub(crate) departures: Option<Departures>,
}

pub(crate) fn spawn_server(
    p: &Preset,
    bindings: Arc<Bindings>,
    layouts: &[(u8, Arc<Bindings>)],
    endpoint: Endpoint,
    cx: ServerCx,
    start: f64,
) -> Worker {
    let ServerCx {
        clock,
        tele,
        roster,
        secret,
        departures,
    } = cx;
    let mut endpoint = endpoint;
    if let Some(r) = &roster {
        endpoint.admit_only(r.clone());
    }
    let (tx, rx) = bounded(COMMAND_CAPACITY);
    let stop = Arc::new(AtomicBool::new(false));
    let mut server = Server::new(crate::model::server::ServerConfig {
        join_secret: secret,
        ..p.server_config(bindings)
    });
    for (v, b) in layouts {
        server.define_layout(*v, b.clone());
        server.use_layout(*v);
    }
    // Every client of a local session must join this server: one that does not is said. (A
    // host's participants join when they come.)
    if roster.is_none() {
        server.expect_clients(
            p.network_clients()
                .map(|id| (id, crate::session::setup::join_time(p, id) + EXPECT_JOIN_S)),
        );
    }
    let preset = p.clone();
    let fps = p.server_fps;
    let stop2 = stop.clone();
    let (guard_tele, guard_clock) = (tele.clone(), clock.clone());
    let handle = std::thread::Builder::new()
        .name("server".into())
        .spawn(move || {
            guarded(Machine::Server, &guard_tele, &guard_clock, move || {
                let mut addr_of: BTreeMap<u16, SocketAddr> = BTreeMap::new();
                let mut down_links: BTreeMap<u16, LinkParams> = BTreeMap::new();
                let mut lp = MachineLoop::new(&clock, &tele, (Machine::Server, start), rx);
                let mut next_frame = start;
                let mut next_keepalive = start;
                while !stop2.load(Ordering::Acquire) {
                    for c in lp.commands() {
                        match c {
                            ThreadCmd::Do(MachineCmd::DownLink { client, params }) => {
                                if let Some(l) =
                                    addr_of.get(&client).and_then(|a| endpoint.link_mut(a))
                                {
                                    l.set_params(params.clone());
                                }
                                down_links.insert(client, params);
                            }
                            ThreadCmd::Do(c) => c.apply_to_server(&mut server),
                            ThreadCmd::Wake => {}
                        }
                    }
                    if lp.paused() {
                        continue;
                    }
                    let t = clock.now();
                    let local = t - start;
                    let left: Vec<(u16, String)> = departures
                        .as_ref()
                        .and_then(|d| d.lock().ok().map(|mut d| std::mem::take(&mut *d)))
                        .unwrap_or_default();
                    for (id, _why) in left {
                        server.release_client(id);
                        if let Some(a) = addr_of.remove(&id) {
                            endpoint.forget(a);
                        }
                        down_links.remove(&id);
                    }
                    for ev in lp.poll(&mut endpoint, t) {
                        match ev {
                            TransportEvent::Datagram { from, bytes } => {
                                let len = bytes.len();
                                // A client's messages count only from the address it joined
                                // from; only a join may come from a new one. (A client this
                                // server does not know is answered by the model with a reset,
                                // so it joins again: after a server restart, all of them.)
                                let kind = crate::model::wire::kind_of(&bytes);
                                let claimed = crate::model::wire::peek_header(&bytes)
                                    .map(|(_, h)| h.sender)
                                    .ok();
                                // A host: an address speaks only for the client its handshake
                                // admitted it as (a participant drives its own pawn only).
                                let foreign_claim = claimed.is_some()
                                    && roster.as_ref().is_some_and(|r| {
                                        crate::net::transport::roster_id(r, &from) != claimed
                                    });
                                let elsewhere = claimed
                                    .and_then(|c| addr_of.get(&c))
                                    .is_some_and(|a| *a != from);
                                // A join for a client joined from another address may take
                                // its place only as a newer start of it: a replay carries the
                                // incarnation it joined with (or an older one).
                                if kind == MsgKind::Join
                                    && elsewhere
                                    && let Some(c) = claimed
                                    && let Some(joined) = server.incarnation_of(c)
                                    && crate::model::wire::join_incarnation(&bytes)
                                        .is_none_or(|n| n <= joined)
                                {
                                    server.refuse_join(
                                        local,
                                        c,
                                        crate::model::telemetry::Rejection::ReplayedJoin,
                                    );
                                    continue;
                                }
                                if foreign_claim || kind != MsgKind::Join && elsewhere {
                                    tele.send(Record {
                                        t,
                                        machine: Machine::Server,
                                        event: Event::Rejected {
                                            reason: crate::model::telemetry::Rejection::WrongSource,
                                        },
                                    });
                                    continue;
                                }
                                if let Ok(sender) = server.handle_datagram(local, &bytes) {
                                    if kind == MsgKind::Join {
                                        endpoint.admit(from);
                                    }
                                    let kind = crate::model::wire::kind_of(&bytes);
                                    if kind != MsgKind::Transport {
                                        tele.send(packet_record(
                                            t,
                                            Machine::Client(sender),
                                            Machine::Server,
                                            len,
                                            PacketFate::Delivered,
                                            kind,
                                        ));
                                    }
                                    if addr_of.get(&sender) != Some(&from) {
                                        if let Some(old) = addr_of.insert(sender, from) {
                                            // A restarted client: its old address is done.
                                            endpoint.forget(old);
                                        }
                                        let params = down_links
                                            .get(&sender)
                                            .cloned()
                                            .unwrap_or_else(|| preset.link_params(sender, false));
                                        endpoint.set_link(
                                            from,
                                            Some(Link::new(
                                                params,
                                                derive_seed(
                                                    preset.seed,
                                                    purpose::LINK_DOWN,
                                                    u64::from(sender),
                                                ),
                                            )),
                                        );
                                    }
                                }
                            }
                            TransportEvent::TimedOut(a) | TransportEvent::Disconnected(a) => {
                                if let Some((&id, _)) = addr_of.iter().find(|(_, x)| **x == a) {
                                    tele.send(Record {
                                        t,
                                        machine: Machine::Server,
                                        event: Event::Log {
                                            level: LogLevel::Warning,
                                            text: format!(
                                                "transport: the connection to client {id} timed out"
                                            ),
                                        },
                                    });
                                }
                            }
                            TransportEvent::Connected(_) => {}
                        }
                    }
                    if t >= next_frame {
                        server.frame(local);
                        next_frame += 1.0 / fps;
                        if next_frame < t {
                            next_frame = t + 1.0 / fps;
                        }
                    }
                    while let Some((to, txm)) = server.poll_transmit() {
                        if let Some(a) = addr_of.get(&to) {
                            tele.send(packet_record(
                                t,
                                Machine::Server,
                                Machine::Client(to),
                                txm.bytes.len(),
                                PacketFate::Sent,
                                txm.kind,
                            ));
                            endpoint.send(*a, txm.bytes, txm.delivery == Delivery::Reliable);
                        }
                    }
                    if t >= next_keepalive {
                        next_keepalive = t + KEEPALIVE_INTERVAL.as_secs_f64();
                        let ka =
                            crate::model::wire::encode_keepalive(&crate::model::wire::Header {
                                sender: crate::model::wire::SERVER_SENDER,
                                seq: 0,
                                layout: 0,
                            });
                        for id in server.client_ids() {
                            if let Some(a) = addr_of.get(&id) {
                                endpoint.send(*a, ka.clone(), true);
                            }
                        }
                    }
                    lp.end_turn(
                        &mut endpoint,
                        t,
                        next_frame.min(next_keepalive),
                        |to| {
                            addr_of
                                .iter()
                                .find(|(_, a)| **a == to)
                                .map_or(Machine::Server, |(id, _)| Machine::Client(*id))
                        },
                        |s| server.drain_telemetry(s),
                    );
                }
            })
        })
        .expect("spawning a thread");
    Worker {
        tx,
        stop,
        handle: Some(handle),
        addr: None,
    }
}
