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

/// Starts the server's thread: its model with the session's layouts, its endpoint (admitting
/// only a host's roster), and the clients a local session expects to join.
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
    let stop2 = stop.clone();
    let (guard_tele, guard_clock) = (tele.clone(), clock.clone());
    let handle = std::thread::Builder::new()
        .name("server".into())
        .spawn(move || {
            guarded(Machine::Server, &guard_tele, &guard_clock, move || {
                let mut lp = MachineLoop::new(&clock, &tele, (Machine::Server, start), rx);
                let mut st = ServerThread {
                    server,
                    endpoint,
                    tele: &tele,
                    fps: preset.server_fps,
                    preset,
                    roster,
                    departures,
                    start,
                    addr_of: BTreeMap::new(),
                    down_links: BTreeMap::new(),
                    next_frame: start,
                    next_keepalive: start,
                };
                while !stop2.load(Ordering::Acquire) {
                    for c in lp.commands() {
                        st.on_command(c);
                    }
                    if lp.paused() {
                        continue;
                    }
                    st.turn(&mut lp, clock.now());
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

/// The server thread's state from turn to turn: its model, its endpoint, each client's
/// address and down link, and when the next frame and keepalive are due.
struct ServerThread<'a> {
    server: Server,
    endpoint: Endpoint,
    tele: &'a TelemetryTx,
    preset: Preset,
    fps: f64,
    roster: Option<Roster>,
    departures: Option<Departures>,
    /// Session time of the server's local time 0.
    start: f64,
    addr_of: BTreeMap<u16, SocketAddr>,
    down_links: BTreeMap<u16, LinkParams>,
    next_frame: f64,
    next_keepalive: f64,
}

impl ServerThread<'_> {
    /// A command from the session: a client's down link is kept for its next address too;
    /// the rest goes to the model.
    fn on_command(&mut self, c: ThreadCmd) {
        match c {
            ThreadCmd::Do(MachineCmd::DownLink { client, params }) => {
                if let Some(l) = self
                    .addr_of
                    .get(&client)
                    .and_then(|a| self.endpoint.link_mut(a))
                {
                    l.set_params(params.clone());
                }
                self.down_links.insert(client, params);
            }
            ThreadCmd::Do(c) => c.apply_to_server(&mut self.server),
            ThreadCmd::Wake => {}
        }
    }

    /// One turn at session time `t`: departures, what the transport delivered, the frame and
    /// keepalives when due, what the model sends, then the loop's end of turn.
    fn turn(&mut self, lp: &mut MachineLoop<'_>, t: f64) {
        let local = t - self.start;
        self.release_departed();
        for ev in lp.poll(&mut self.endpoint, t) {
            match ev {
                TransportEvent::Datagram { from, bytes } => {
                    self.on_datagram(t, local, from, &bytes);
                }
                TransportEvent::TimedOut(a) | TransportEvent::Disconnected(a) => {
                    self.on_lost(t, a);
                }
                TransportEvent::Connected(_) => {}
            }
        }
        if t >= self.next_frame {
            self.server.frame(local);
            self.next_frame += 1.0 / self.fps;
            if self.next_frame < t {
                self.next_frame = t + 1.0 / self.fps;
            }
        }
        self.send_transmits(t);
        if t >= self.next_keepalive {
            self.send_keepalives(t);
        }
        let addr_of = &self.addr_of;
        let server = &mut self.server;
        lp.end_turn(
            &mut self.endpoint,
            t,
            self.next_frame.min(self.next_keepalive),
            |to| {
                addr_of
                    .iter()
                    .find(|(_, a)| **a == to)
                    .map_or(Machine::Server, |(id, _)| Machine::Client(*id))
            },
            |s| server.drain_telemetry(s),
        );
    }

    /// A host: the participants that said they leave are released, their addresses and down
    /// links forgotten.
    fn release_departed(&mut self) {
        let left: Vec<(u16, String)> = self
            .departures
            .as_ref()
            .and_then(|d| d.lock().ok().map(|mut d| std::mem::take(&mut *d)))
            .unwrap_or_default();
        for (id, _why) in left {
            self.server.release_client(id);
            if let Some(a) = self.addr_of.remove(&id) {
                self.endpoint.forget(a);
            }
            self.down_links.remove(&id);
        }
    }

    /// A datagram from `from`: to the model unless its source may not speak for the client it
    /// claims; a client's first datagram from an address (re)learns where it is.
    fn on_datagram(&mut self, t: f64, local: f64, from: SocketAddr, bytes: &[u8]) {
        let len = bytes.len();
        let kind = crate::model::wire::kind_of(bytes);
        if self.refuses_source(t, local, from, kind, bytes) {
            return;
        }
        if let Ok(sender) = self.server.handle_datagram(local, bytes) {
            if kind == MsgKind::Join {
                self.endpoint.admit(from);
            }
            let kind = crate::model::wire::kind_of(bytes);
            if kind != MsgKind::Transport {
                self.tele.send(packet_record(
                    t,
                    Machine::Client(sender),
                    Machine::Server,
                    len,
                    PacketFate::Delivered,
                    kind,
                ));
            }
            if self.addr_of.get(&sender) != Some(&from) {
                self.learn_address(sender, from);
            }
        }
    }

    /// Whether a datagram is refused for where it comes from. A client's messages count only
    /// from the address it joined from; only a join may come from a new one. (A client this
    /// server does not know is answered by the model with a reset, so it joins again: after a
    /// server restart, all of them.)
    fn refuses_source(
        &mut self,
        t: f64,
        local: f64,
        from: SocketAddr,
        kind: MsgKind,
        bytes: &[u8],
    ) -> bool {
        let claimed = crate::model::wire::peek_header(bytes)
            .map(|(_, h)| h.sender)
            .ok();
        // A host: an address speaks only for the client its handshake admitted it as (a
        // participant drives its own pawn only).
        let foreign_claim = claimed.is_some()
            && self
                .roster
                .as_ref()
                .is_some_and(|r| crate::net::transport::roster_id(r, &from) != claimed);
        let elsewhere = claimed
            .and_then(|c| self.addr_of.get(&c))
            .is_some_and(|a| *a != from);
        // A join for a client joined from another address may take its place only as a newer
        // start of it: a replay carries the incarnation it joined with (or an older one).
        if kind == MsgKind::Join
            && elsewhere
            && let Some(c) = claimed
            && let Some(joined) = self.server.incarnation_of(c)
            && crate::model::wire::join_incarnation(bytes).is_none_or(|n| n <= joined)
        {
            self.server
                .refuse_join(local, c, crate::model::telemetry::Rejection::ReplayedJoin);
            return true;
        }
        if foreign_claim || kind != MsgKind::Join && elsewhere {
            self.tele.send(Record {
                t,
                machine: Machine::Server,
                event: Event::Rejected {
                    reason: crate::model::telemetry::Rejection::WrongSource,
                },
            });
            return true;
        }
        false
    }

    /// Client `sender` speaks from `from` now: a restarted client's old address is done, and
    /// the new one gets the client's down link.
    fn learn_address(&mut self, sender: u16, from: SocketAddr) {
        if let Some(old) = self.addr_of.insert(sender, from) {
            // A restarted client: its old address is done.
            self.endpoint.forget(old);
        }
        let params = self
            .down_links
            .get(&sender)
            .cloned()
            .unwrap_or_else(|| self.preset.link_params(sender, false));
        self.endpoint.set_link(
            from,
            Some(Link::new(
                params,
                derive_seed(self.preset.seed, purpose::LINK_DOWN, u64::from(sender)),
            )),
        );
    }

    /// The transport lost address `a`: said when it was a client's.
    fn on_lost(&mut self, t: f64, a: SocketAddr) {
        if let Some((&id, _)) = self.addr_of.iter().find(|(_, x)| **x == a) {
            self.tele.send(Record {
                t,
                machine: Machine::Server,
                event: Event::Log {
                    level: LogLevel::Warning,
                    text: format!("transport: the connection to client {id} timed out"),
                },
            });
        }
    }

    /// What the model sends, to each client with a known address.
    fn send_transmits(&mut self, t: f64) {
        while let Some((to, txm)) = self.server.poll_transmit() {
            if let Some(a) = self.addr_of.get(&to) {
                self.tele.send(packet_record(
                    t,
                    Machine::Server,
                    Machine::Client(to),
                    txm.bytes.len(),
                    PacketFate::Sent,
                    txm.kind,
                ));
                self.endpoint
                    .send(*a, txm.bytes, txm.delivery == Delivery::Reliable);
            }
        }
    }

    /// A keepalive to every joined client, and when the next is due.
    fn send_keepalives(&mut self, t: f64) {
        self.next_keepalive = t + KEEPALIVE_INTERVAL.as_secs_f64();
        let ka = crate::model::wire::encode_keepalive(&crate::model::wire::Header {
            sender: crate::model::wire::SERVER_SENDER,
            seq: 0,
            layout: 0,
        });
        for id in self.server.client_ids() {
            if let Some(a) = self.addr_of.get(&id) {
                self.endpoint.send(*a, ka.clone(), true);
            }
        }
    }
}
