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

use std::collections::{BinaryHeap, HashMap};
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use laminar::{Config, ConnectionManager, DatagramSocket, Packet, SocketEvent, VirtualConnection};

use crate::model::telemetry::PacketFate;
use crate::sim::link::{Fate, Link};

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
    /// Datagrams dropped before laminar: not laminar's, or too large to send.
    pub foreign_dropped: u64,
    pub oversize_dropped: u64,
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
            foreign_dropped: 0,
            oversize_dropped: 0,
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
            self.oversize_dropped += 1;
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
            if n >= 5 && buffer[0..2] == self.protocol_id {
                return Ok((&buffer[..n], from));
            }
            self.foreign_dropped += 1;
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
}

impl Endpoint {
    /// Binds `127.0.0.1:port` (0 picks a free port).
    pub fn bind_loopback(port: u16) -> io::Result<Endpoint> {
        let socket = ConditionedSocket::bind(SocketAddr::from(([127, 0, 0, 1], port)))?;
        let addr = socket.local_addr()?;
        let config = Config {
            blocking_mode: false,
            idle_connection_timeout: Duration::from_secs(5),
            heartbeat_interval: None,
            max_packets_in_flight: 4096,
            ..Config::default()
        };
        Ok(Endpoint {
            mgr: ConnectionManager::new(socket, config),
            addr,
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
            self.mgr.socket_mut().oversize_dropped += 1;
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
    /// never consumes anything). This is how a thread sleeps without missing traffic.
    /// `ppoll` is used for its nanosecond timeout: socket read timeouts are rounded to the
    /// kernel tick (up to 4 ms), which would add that much latency to every delayed datagram.
    #[cfg(unix)]
    pub fn wait_readable(&self, timeout: Duration) -> bool {
        use std::os::fd::AsRawFd;
        if timeout.is_zero() {
            return false;
        }
        let mut pfd = libc::pollfd {
            fd: self.mgr.socket().socket.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ts = libc::timespec {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_nsec: libc::c_long::from(timeout.subsec_nanos() as i32),
        };
        // SAFETY: `pfd` and `ts` are valid for the duration of the call, the count matches the
        // single pollfd, and a null signal mask leaves the thread's mask unchanged.
        let r = unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
        r > 0
    }

    /// Portable fallback: a plain sleep (datagrams arriving meanwhile wait for it to end).
    #[cfg(not(unix))]
    pub fn wait_readable(&self, timeout: Duration) -> bool {
        std::thread::sleep(timeout);
        false
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
        let s = self.mgr.socket();
        (s.foreign_dropped, s.oversize_dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::link::LinkParams;

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

    #[test]
    fn oversize_payloads_are_refused() {
        let mut a = Endpoint::bind_loopback(0).unwrap();
        let to = SocketAddr::from(([127, 0, 0, 1], 9));
        assert!(!a.send(to, vec![0; MAX_PAYLOAD + 1], false));
        assert_eq!(a.drop_counts().1, 1);
    }
}
