//! The live transport: laminar 0.5 over UDP on loopback, driven by `manual_poll` from the
//! caller's loop (never `start_polling`), with the project's own seeded [`Link`] model applied
//! to every outgoing datagram through a custom laminar `DatagramSocket` with a delay heap.
//!
//! This is the only module that imports laminar. Measured laminar quirks it works around
//! (see shared/reference/transport-and-deps-notes.md):
//! - reliable resends are triggered by acks that ride only on reliable packets: both ends send
//!   a tiny reliable keep-alive every few milliseconds ([`KEEPALIVE_INTERVAL`]);
//! - `reliable_unordered` can deliver duplicates: the model drops them by sequence number;
//! - fragmented payloads corrupt under reordering and oversize payloads are truncated or
//!   dropped silently: payloads over [`MAX_PAYLOAD`] are refused here, and the model never
//!   produces one;
//! - every unknown address costs laminar a connection (~1.5 MB): datagrams that do not carry
//!   laminar's protocol id are dropped and counted before laminar sees them.
//!
//! The gate in front of laminar (what a datagram from anyone on the machine can do):
//! - a client endpoint takes datagrams only from its server's address ([`Endpoint::only_from`]);
//! - a server endpoint lets a datagram from an unknown address reach laminar (which keeps
//!   ~1.5 MB of state per address) only if it carries a movescope message (magic and
//!   version: a join, or a client of a restarted server, which the model answers with a
//!   reset), and only while that address is one of at most [`MAX_PENDING`] pending peers; the
//!   caller admits it once its join decoded ([`Endpoint::admit`]), else after
//!   [`PENDING_TIMEOUT`] it is refused from then on (a bounded memory of refused addresses);
//!   admitted peers are at most [`MAX_ADMITTED`]. (Letting a lost join's companions through
//!   is what lets laminar resend the join at once, as it does for any reliable packet.)
//! - every peer has a token bucket of [`RATE_PER_S`] datagrams a second;
//! - each drop is counted by kind ([`DropCounts`]), so memory stays bounded under any flood.

use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use laminar::{Config, ConnectionManager, DatagramSocket, Packet, SocketEvent, VirtualConnection};

use crate::conditions::link::{Fate, Link};
use crate::model::telemetry::PacketFate;

/// Largest payload handed to laminar (well under its 1444-byte unfragmented limit).
pub const MAX_PAYLOAD: usize = crate::model::wire::MAX_DATAGRAM;
/// How often each end sends a reliable keep-alive so laminar's acks keep flowing.
pub const KEEPALIVE_INTERVAL: Duration = Duration::from_millis(5);

/// CRC-16/X-25 of laminar's protocol version string: the first two bytes (big-endian) of every
/// laminar datagram.
pub fn laminar_protocol_id() -> u16 {
    let mut crc: u16 = 0xFFFF;
    for b in b"laminar-0.1.0" {
        crc ^= u16::from(*b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x8408
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Unknown addresses a server lets through at once, before any of them joined.
pub const MAX_PENDING: usize = 16;
/// Seconds a pending address has to send a valid join.
pub const PENDING_TIMEOUT: f64 = 2.0;
/// Admitted peers a server keeps (clients, plus restarted clients' old addresses).
pub const MAX_ADMITTED: usize = 128;
/// Refused addresses remembered (oldest forgotten first).
pub const MAX_REFUSED: usize = 4096;
/// Datagrams a second one peer may send (laminar's keep-alives and a session's traffic are
/// well under 1000); the bucket holds a quarter second's worth.
pub const RATE_PER_S: f64 = 4000.0;

/// Datagrams dropped before laminar, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropCounts {
    /// Not laminar's protocol (junk, another program).
    pub foreign: u64,
    /// Payloads too large to send unfragmented (outgoing).
    pub oversize: u64,
    /// From an address this client's server is not.
    pub wrong_source: u64,
    /// From an address the server refused (no join in time, or too many pending).
    pub unadmitted: u64,
    /// Over a peer's rate.
    pub rate_limited: u64,
}

/// Whether a laminar datagram carries a movescope message: its payload (after laminar's
/// 5-byte header, plus 8 bytes of acknowledgements when reliable) starts with movescope's
/// magic and version.
fn carries_movescope(datagram: &[u8]) -> bool {
    let prefix = &crate::model::wire::join_prefix()[..3];
    [5usize, 13]
        .iter()
        .any(|&at| datagram.get(at..at + prefix.len()) == Some(prefix))
}

#[derive(Clone, Copy, Debug)]
struct Peer {
    admitted: bool,
    first_seen: f64,
    tokens: f64,
    last: f64,
}

/// A hosted session's admissions: the address each client's datagrams come from, and the
/// client id it may speak for. The host fills it when a participant's handshake carried the
/// join code (and for its own local clients); the server's gate lets nothing else in.
pub type Roster = Arc<Mutex<HashMap<SocketAddr, u16>>>;

/// A host's participants that said they leave (client id, their words), for the server
/// thread to remove with their pawns at once instead of waiting for their silence.
pub type Departures = Arc<Mutex<Vec<(u16, String)>>>;

/// The client id `from` was admitted for, if any (a poisoned roster admits nobody).
pub fn roster_id(roster: &Roster, from: &SocketAddr) -> Option<u16> {
    roster.lock().ok().and_then(|r| r.get(from).copied())
}

/// Who may reach laminar through a socket.
#[derive(Debug, Default)]
struct Gate {
    only_from: Option<SocketAddr>,
    /// A hosted server: only addresses on the roster get in (no pending peers at all).
    roster: Option<Roster>,
    peers: HashMap<SocketAddr, Peer>,
    refused: HashSet<SocketAddr>,
    refused_order: VecDeque<SocketAddr>,
    counts: DropCounts,
}

impl Gate {
    /// Whether a (laminar) datagram from `from` at session time `now` may pass.
    fn pass(&mut self, from: SocketAddr, now: f64, datagram: &[u8]) -> bool {
        if self.roster.is_some() && !self.peers.contains_key(&from) {
            // A hosted server: an address gets in only once a handshake with the join code
            // put it on the roster (the roster wins over an earlier refusal: a port the system
            // gives out again); nothing is remembered about the others but the count.
            if self
                .roster
                .as_ref()
                .and_then(|r| roster_id(r, &from))
                .is_none()
            {
                self.counts.unadmitted += 1;
                return false;
            }
            if self.refused.remove(&from) {
                self.refused_order.retain(|a| *a != from);
            }
            self.peers.insert(
                from,
                Peer {
                    admitted: true,
                    first_seen: now,
                    tokens: RATE_PER_S / 4.0,
                    last: now,
                },
            );
        }
        if let Some(only) = self.only_from {
            if from != only {
                self.counts.wrong_source += 1;
                return false;
            }
        } else if self.refused.contains(&from) {
            self.counts.unadmitted += 1;
            return false;
        }
        let peer = match self.peers.get_mut(&from) {
            Some(p) => p,
            None => {
                if self.only_from.is_none() {
                    if !carries_movescope(datagram) {
                        self.counts.unadmitted += 1;
                        return false;
                    }
                    let pending = self.peers.values().filter(|p| !p.admitted).count();
                    if pending >= MAX_PENDING {
                        self.counts.unadmitted += 1;
                        return false;
                    }
                }
                self.peers.entry(from).or_insert(Peer {
                    admitted: self.only_from.is_some(),
                    first_seen: now,
                    tokens: RATE_PER_S / 4.0,
                    last: now,
                })
            }
        };
        peer.tokens = (peer.tokens + (now - peer.last).max(0.0) * RATE_PER_S).min(RATE_PER_S / 4.0);
        peer.last = now;
        if peer.tokens < 1.0 {
            self.counts.rate_limited += 1;
            return false;
        }
        peer.tokens -= 1.0;
        true
    }

    /// Pending peers past their time are refused from now on.
    fn expire(&mut self, now: f64) {
        if self.only_from.is_some() {
            return;
        }
        let late: Vec<SocketAddr> = self
            .peers
            .iter()
            .filter(|(_, p)| !p.admitted && now - p.first_seen > PENDING_TIMEOUT)
            .map(|(a, _)| *a)
            .collect();
        for a in late {
            self.peers.remove(&a);
            self.refuse(a);
        }
    }

    fn refuse(&mut self, a: SocketAddr) {
        if self.refused.insert(a) {
            self.refused_order.push_back(a);
            while self.refused_order.len() > MAX_REFUSED {
                if let Some(old) = self.refused_order.pop_front() {
                    self.refused.remove(&old);
                }
            }
        }
    }
}

/// What the link did with one outgoing datagram (for telemetry).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkNote {
    pub to: SocketAddr,
    pub bytes: usize,
    pub fate: PacketFate,
}

#[derive(Debug)]
struct Delayed {
    due: f64,
    seq: u64,
    to: SocketAddr,
    payload: Vec<u8>,
}

impl PartialEq for Delayed {
    fn eq(&self, o: &Self) -> bool {
        self.seq == o.seq
    }
}
impl Eq for Delayed {}
impl PartialOrd for Delayed {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Delayed {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // Earliest due first in a max-heap.
        o.due.total_cmp(&self.due).then(o.seq.cmp(&self.seq))
    }
}

/// A UDP socket whose outgoing datagrams pass through per-destination link models.
#[derive(Debug)]
pub struct ConditionedSocket {
    socket: UdpSocket,
    links: HashMap<SocketAddr, Link>,
    delayed: BinaryHeap<Delayed>,
    /// Session time (s) of the current poll.
    now_s: f64,
    seq: u64,
    notes: Vec<LinkNote>,
    protocol_id: [u8; 2],
    gate: Gate,
}

impl ConditionedSocket {
    fn bind(addr: SocketAddr) -> io::Result<Self> {
        let socket = UdpSocket::bind(addr)?;
        socket.set_nonblocking(true)?;
        Ok(ConditionedSocket {
            socket,
            links: HashMap::new(),
            delayed: BinaryHeap::new(),
            now_s: 0.0,
            seq: 0,
            notes: Vec::new(),
            protocol_id: laminar_protocol_id().to_be_bytes(),
            gate: Gate::default(),
        })
    }

    fn flush_due(&mut self) {
        while self.delayed.peek().is_some_and(|d| d.due <= self.now_s) {
            let Some(d) = self.delayed.pop() else { break };
            // A send error on loopback means the peer is gone; the datagram is lost like any.
            let _ = self.socket.send_to(&d.payload, d.to);
        }
    }

    fn note(&mut self, to: SocketAddr, bytes: usize, fate: PacketFate) {
        self.notes.push(LinkNote { to, bytes, fate });
    }
}

impl DatagramSocket for ConditionedSocket {
    fn send_packet(&mut self, addr: &SocketAddr, payload: &[u8]) -> io::Result<usize> {
        if payload.len() > MAX_PAYLOAD + 64 {
            self.gate.counts.oversize += 1;
            return Ok(0);
        }
        let now = self.now_s;
        let Some(link) = self.links.get_mut(addr) else {
            self.note(*addr, payload.len(), PacketFate::Sent);
            return self.socket.send_to(payload, addr);
        };
        let fate = link.send(now, payload.len());
        self.note(*addr, payload.len(), PacketFate::Sent);
        let push = |s: &mut Self, due: f64| {
            s.seq += 1;
            s.delayed.push(Delayed {
                due,
                seq: s.seq,
                to: *addr,
                payload: payload.to_vec(),
            });
        };
        match fate {
            Fate::Dropped(_) => self.note(*addr, payload.len(), PacketFate::Dropped),
            Fate::Delivered(at) => push(self, at),
            Fate::Duplicated(a, b) => {
                self.note(*addr, payload.len(), PacketFate::Duplicated);
                push(self, a);
                push(self, b);
            }
        }
        self.flush_due();
        Ok(payload.len())
    }

    fn receive_packet<'a>(&mut self, buffer: &'a mut [u8]) -> io::Result<(&'a [u8], SocketAddr)> {
        self.flush_due();
        loop {
            let (n, from) = self.socket.recv_from(buffer)?;
            if n < 5 || buffer[0..2] != self.protocol_id {
                self.gate.counts.foreign += 1;
            } else if self.gate.pass(from, self.now_s, &buffer[..n]) {
                return Ok((&buffer[..n], from));
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    fn is_blocking_mode(&self) -> bool {
        false
    }
}

/// What a poll brought in.
#[derive(Debug, PartialEq)]
pub enum TransportEvent {
    Datagram { from: SocketAddr, bytes: Vec<u8> },
    Connected(SocketAddr),
    TimedOut(SocketAddr),
    Disconnected(SocketAddr),
}

/// One laminar endpoint on loopback.
pub struct Endpoint {
    mgr: ConnectionManager<ConditionedSocket, VirtualConnection>,
    addr: SocketAddr,
    /// Readiness of the UDP socket (level-triggered, so nothing needs re-arming): how a thread
    /// sleeps until a datagram arrives or its next due time, on every platform alike.
    poller: polling::Poller,
    events: std::cell::RefCell<polling::Events>,
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        let _ = self.poller.delete(&self.mgr.socket().socket);
    }
}

impl Endpoint {
    /// Binds `127.0.0.1:port` (0 picks a free port).
    pub fn bind_loopback(port: u16) -> io::Result<Endpoint> {
        Endpoint::bind(SocketAddr::from(([127, 0, 0, 1], port)))
    }

    /// Binds `addr` (a hosted session's `--listen` address, or a participant's side of it).
    pub fn bind(addr: SocketAddr) -> io::Result<Endpoint> {
        let socket = ConditionedSocket::bind(addr)?;
        let addr = socket.local_addr()?;
        let config = Config {
            blocking_mode: false,
            idle_connection_timeout: Duration::from_secs(5),
            heartbeat_interval: None,
            max_packets_in_flight: 4096,
            ..Config::default()
        };
        let poller = polling::Poller::new()?;
        // SAFETY: the socket is owned by `mgr`, which lives exactly as long as `poller`;
        // `Drop for Endpoint` deletes it from the poller before either is dropped.
        unsafe {
            poller.add_with_mode(
                &socket.socket,
                polling::Event::readable(0),
                polling::PollMode::Level,
            )?;
        }
        Ok(Endpoint {
            mgr: ConnectionManager::new(socket, config),
            addr,
            poller,
            events: std::cell::RefCell::new(polling::Events::new()),
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Applies a link model to datagrams sent to `to` (`None`: send straight away).
    pub fn set_link(&mut self, to: SocketAddr, link: Option<Link>) {
        let s = self.mgr.socket_mut();
        match link {
            Some(l) => {
                s.links.insert(to, l);
            }
            None => {
                s.links.remove(&to);
            }
        }
    }

    pub fn link_mut(&mut self, to: &SocketAddr) -> Option<&mut Link> {
        self.mgr.socket_mut().links.get_mut(to)
    }

    /// Queues a payload; it leaves on the next [`Endpoint::poll`]. Refuses payloads laminar
    /// would fragment or truncate.
    pub fn send(&mut self, to: SocketAddr, bytes: Vec<u8>, reliable: bool) -> bool {
        if bytes.len() > MAX_PAYLOAD {
            self.mgr.socket_mut().gate.counts.oversize += 1;
            return false;
        }
        let packet = if reliable {
            Packet::reliable_unordered(to, bytes)
        } else {
            Packet::unreliable(to, bytes)
        };
        self.mgr.event_sender().send(packet).is_ok()
    }

    /// Sends due delayed datagrams, lets laminar process traffic at `now` (session seconds
    /// `now_s`, laminar `Instant` `now`), and collects what arrived.
    pub fn poll(&mut self, now_s: f64, now: Instant, out: &mut Vec<TransportEvent>) {
        {
            let s = self.mgr.socket_mut();
            s.now_s = now_s;
            s.flush_due();
            s.gate.expire(now_s);
        }
        self.mgr.manual_poll(now);
        while let Ok(ev) = self.mgr.event_receiver().try_recv() {
            out.push(match ev {
                SocketEvent::Packet(p) => TransportEvent::Datagram {
                    from: p.addr(),
                    bytes: p.payload().to_vec(),
                },
                SocketEvent::Connect(a) => TransportEvent::Connected(a),
                SocketEvent::Timeout(a) => TransportEvent::TimedOut(a),
                SocketEvent::Disconnect(a) => TransportEvent::Disconnected(a),
            });
        }
    }

    /// Blocks until a datagram can be read or `timeout` passes (returns early either way;
    /// never consumes anything). This is how a thread sleeps without missing traffic. The
    /// `polling` crate keeps the timeout's precision on Linux (epoll with a nanosecond timer;
    /// socket read timeouts would round to the kernel tick, up to 4 ms, adding that much
    /// latency to every delayed datagram) and wakes on arrival on every platform.
    pub fn wait_readable(&self, timeout: Duration) -> bool {
        if timeout.is_zero() {
            return false;
        }
        let mut events = self.events.borrow_mut();
        events.clear();
        match self.poller.wait(&mut events, Some(timeout)) {
            Ok(n) => n > 0,
            // An interrupted wait returns early, as a wait may.
            Err(_) => false,
        }
    }

    /// Session time of the next delayed datagram.
    pub fn next_due(&self) -> Option<f64> {
        self.mgr.socket().delayed.peek().map(|d| d.due)
    }

    /// Link fates since the last call.
    pub fn take_notes(&mut self, out: &mut Vec<LinkNote>) {
        out.append(&mut self.mgr.socket_mut().notes);
    }

    /// (foreign datagrams dropped, oversize payloads refused).
    pub fn drop_counts(&self) -> (u64, u64) {
        let c = self.mgr.socket().gate.counts;
        (c.foreign, c.oversize)
    }

    /// Every drop before laminar, by kind.
    pub fn drops(&self) -> DropCounts {
        self.mgr.socket().gate.counts
    }

    /// A client endpoint: only datagrams from `server` reach laminar.
    pub fn only_from(&mut self, server: SocketAddr) {
        self.mgr.socket_mut().gate.only_from = Some(server);
    }

    /// A hosted server endpoint: only addresses on `roster` reach laminar; an address taken
    /// off the roster is refused once [`Endpoint::forget`] is called for it.
    pub fn admit_only(&mut self, roster: Roster) {
        self.mgr.socket_mut().gate.roster = Some(roster);
    }

    /// A server endpoint: `peer` sent a valid join; it stays admitted (until forgotten).
    /// False when the table of admitted peers is full (the peer stays pending).
    pub fn admit(&mut self, peer: SocketAddr) -> bool {
        let g = &mut self.mgr.socket_mut().gate;
        let admitted = g.peers.values().filter(|p| p.admitted).count();
        match g.peers.get_mut(&peer) {
            Some(p) if p.admitted => true,
            Some(p) if admitted < MAX_ADMITTED => {
                p.admitted = true;
                true
            }
            _ => false,
        }
    }

    /// A server endpoint: `peer` is no client's address any more (a restarted client's old
    /// one); its later datagrams are refused.
    pub fn forget(&mut self, peer: SocketAddr) {
        let g = &mut self.mgr.socket_mut().gate;
        g.peers.remove(&peer);
        g.refuse(peer);
    }

    /// Peers the gate keeps state for (admitted and pending), and refused addresses
    /// remembered: both bounded.
    pub fn gate_sizes(&self) -> (usize, usize) {
        let g = &self.mgr.socket().gate;
        (g.peers.len(), g.refused.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conditions::link::LinkParams;

    fn pump(
        a: &mut Endpoint,
        b: &mut Endpoint,
        t0: Instant,
        until: impl Fn(&[TransportEvent]) -> bool,
    ) -> Vec<TransportEvent> {
        let mut got = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            let now = Instant::now();
            let s = (now - t0).as_secs_f64();
            let mut sink = Vec::new();
            a.poll(s, now, &mut sink);
            b.poll(s, now, &mut got);
            if until(&got) {
                return got;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        panic!("timed out waiting; got {got:?}");
    }

    #[test]
    fn protocol_id_matches_what_laminar_sends() {
        let mut a = Endpoint::bind_loopback(0).unwrap();
        let probe = UdpSocket::bind("127.0.0.1:0").unwrap();
        probe
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        a.send(probe.local_addr().unwrap(), b"hi".to_vec(), false);
        a.poll(0.0, Instant::now(), &mut Vec::new());
        let mut buf = [0u8; 64];
        let (n, _) = probe.recv_from(&mut buf).expect("laminar sent");
        assert!(n > 2);
        assert_eq!(buf[0..2], laminar_protocol_id().to_be_bytes());
    }

    #[test]
    fn datagrams_cross_loopback_with_the_configured_delay() {
        let t0 = Instant::now();
        let mut a = Endpoint::bind_loopback(0).unwrap();
        let mut b = Endpoint::bind_loopback(0).unwrap();
        let (aa, ba) = (a.local_addr(), b.local_addr());
        b.only_from(aa);
        a.set_link(
            ba,
            Some(Link::new(
                LinkParams {
                    latency_ms: 30.0,
                    ..Default::default()
                },
                1,
            )),
        );
        let sent_at = Instant::now();
        a.send(ba, b"MS-hello".to_vec(), true);
        let got = pump(&mut a, &mut b, t0, |g| {
            g.iter()
                .any(|e| matches!(e, TransportEvent::Datagram { .. }))
        });
        let took = sent_at.elapsed();
        assert!(took >= Duration::from_millis(29), "{took:?}");
        assert!(took < Duration::from_millis(200), "{took:?}");
        assert!(got.contains(&TransportEvent::Datagram {
            from: aa,
            bytes: b"MS-hello".to_vec()
        }));
    }

    #[test]
    fn foreign_datagrams_are_counted_and_never_reach_laminar() {
        let t0 = Instant::now();
        let mut a = Endpoint::bind_loopback(0).unwrap();
        let mut b = Endpoint::bind_loopback(0).unwrap();
        b.only_from(a.local_addr());
        let junk = UdpSocket::bind("127.0.0.1:0").unwrap();
        for i in 0..50u8 {
            junk.send_to(&[i; 40], b.local_addr()).unwrap();
        }
        a.send(b.local_addr(), b"real".to_vec(), false);
        let got = pump(&mut a, &mut b, t0, |g| {
            g.iter()
                .any(|e| matches!(e, TransportEvent::Datagram { .. }))
        });
        assert_eq!(
            got.iter()
                .filter(|e| matches!(e, TransportEvent::Datagram { .. }))
                .count(),
            1
        );
        // All junk was read before or with the real datagram.
        let deadline = Instant::now() + Duration::from_secs(2);
        while b.drop_counts().0 < 50 && Instant::now() < deadline {
            b.poll(
                (Instant::now() - t0).as_secs_f64(),
                Instant::now(),
                &mut Vec::new(),
            );
        }
        assert_eq!(b.drop_counts().0, 50);
    }

    fn addr(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    /// A reliable laminar datagram carrying a movescope join.
    fn join() -> Vec<u8> {
        let mut d = laminar_protocol_id().to_be_bytes().to_vec();
        d.extend_from_slice(&[0, 1, 0, 0, 1, 255, 255, 0, 0, 0, 0]);
        d.extend_from_slice(&crate::model::wire::join_prefix());
        d.extend_from_slice(&[0; 7]);
        d
    }

    /// An unreliable laminar datagram carrying something else.
    fn other() -> Vec<u8> {
        let mut d = laminar_protocol_id().to_be_bytes().to_vec();
        d.extend_from_slice(&[0, 0, 0, b'x', b'y', 1, 2, 3]);
        d
    }

    #[test]
    fn the_join_prefix_is_where_laminar_puts_the_payload() {
        // What laminar really sends, reliable and unreliable.
        let mut a = Endpoint::bind_loopback(0).unwrap();
        let probe = UdpSocket::bind("127.0.0.1:0").unwrap();
        probe
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        let mut payload = crate::model::wire::join_prefix().to_vec();
        payload.extend_from_slice(&[0; 7]);
        a.send(probe.local_addr().unwrap(), payload.clone(), true);
        a.send(probe.local_addr().unwrap(), payload, false);
        a.poll(0.0, Instant::now(), &mut Vec::new());
        let mut buf = [0u8; 64];
        for _ in 0..2 {
            let (n, _) = probe.recv_from(&mut buf).expect("laminar sent");
            assert!(carries_movescope(&buf[..n]), "{:?}", &buf[..n]);
        }
        assert!(carries_movescope(&join()));
        assert!(!carries_movescope(&other()));
    }

    #[test]
    fn a_client_gate_passes_only_its_server() {
        let mut g = Gate {
            only_from: Some(addr(1)),
            ..Gate::default()
        };
        assert!(g.pass(addr(1), 0.0, &join()));
        for p in 2..200 {
            assert!(!g.pass(addr(p), 0.0, &join()));
        }
        assert_eq!(g.counts.wrong_source, 198);
        assert_eq!(g.peers.len(), 1);
    }

    #[test]
    fn a_server_gate_stays_bounded_under_a_flood_of_new_addresses() {
        let mut g = Gate::default();
        let mut t = 0.0;
        for round in 0..50u16 {
            for p in 0..1000u16 {
                g.pass(addr(1000 + (round * 1000 + p) % 60000), t, &join());
            }
            t += 0.5;
            g.expire(t);
            assert!(g.peers.len() <= MAX_PENDING, "{}", g.peers.len());
            assert!(g.refused.len() <= MAX_REFUSED);
            assert_eq!(g.refused.len(), g.refused_order.len());
        }
        assert!(g.counts.unadmitted > 40_000, "{:?}", g.counts);
    }

    #[test]
    fn datagrams_not_movescope_from_unknown_addresses_leave_no_state() {
        let mut g = Gate::default();
        for p in 0..5000 {
            assert!(!g.pass(addr(p), 0.0, &other()));
        }
        assert!(g.peers.is_empty());
        assert_eq!(g.counts.unadmitted, 5000);
    }

    #[test]
    fn an_admitted_peer_stays_and_a_late_one_is_refused() {
        let mut g = Gate::default();
        assert!(g.pass(addr(1), 0.0, &join()));
        assert!(g.pass(addr(2), 0.0, &join()));
        g.peers.get_mut(&addr(1)).unwrap().admitted = true;
        g.expire(PENDING_TIMEOUT + 0.1);
        assert!(g.pass(addr(1), PENDING_TIMEOUT + 0.2, &other()));
        assert!(!g.pass(addr(2), PENDING_TIMEOUT + 0.2, &join()));
        assert_eq!(g.counts.unadmitted, 1);
    }

    #[test]
    fn a_peer_over_its_rate_is_dropped_and_recovers() {
        let mut g = Gate::default();
        let burst = (RATE_PER_S / 4.0) as u64;
        let passed = (0..burst * 2)
            .filter(|_| g.pass(addr(1), 1.0, &join()))
            .count() as u64;
        assert_eq!(passed, burst);
        assert_eq!(g.counts.rate_limited, burst);
        // A tenth of a second later, a tenth of the rate is back.
        let again = (0..burst)
            .filter(|_| g.pass(addr(1), 1.1, &other()))
            .count() as f64;
        assert!((again - RATE_PER_S * 0.1).abs() <= 1.0, "{again}");
    }

    #[test]
    fn oversize_payloads_are_refused() {
        let mut a = Endpoint::bind_loopback(0).unwrap();
        let to = SocketAddr::from(([127, 0, 0, 1], 9));
        assert!(!a.send(to, vec![0; MAX_PAYLOAD + 1], false));
        assert_eq!(a.drop_counts().1, 1);
    }
}
