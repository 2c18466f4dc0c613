//! Sessions across machines: a host (the server, its AI pawns and local clients, and the
//! trainer's app) and participants (one client each, on their own machine).
//!
//! Two channels join a participant to its host:
//! - the **game channel**: the model's datagrams over laminar UDP ([`crate::net::transport`]),
//!   exactly as between threads of one process, with the simulated link conditions applied
//!   on both ends on top of the real network;
//! - the **control channel**: one TCP connection per participant, never subject to the
//!   simulated conditions. It carries the handshake (join code, name), the session's preset,
//!   the trainer's changes, clock pings (the real round trip, measured apart from the
//!   simulated one), and the participant's telemetry, so the host's app, recording, doctor and
//!   journeys see every machine.
//!
//! Admission: the host's server takes UDP datagrams only from addresses on its
//! [`Roster`]. An address gets on it only through a handshake on the control channel that
//! carried the session's join code; the roster also says which client id that address may
//! speak for, so a participant drives its own pawn and no other. Wrong codes are refused with
//! the reason (and more than [`MAX_WRONG_CODES`] a minute from one address are refused
//! without checking); the host holds at most its participant limit; control connections that
//! are not movescope's, malformed frames, records for another machine and records over
//! [`RECORDS_PER_S`] are dropped and counted (`Rejected` records: the summary and the log
//! show them).
//!
//! Nothing here reads the model's state: the host's link thread only moves bytes between
//! sockets, the telemetry channel and the session.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::conditions::link::LinkParams;
use crate::model::settings::{Faults, GmcSettings, SmoothingSettings, WorldSettings};
use crate::model::telemetry::Record;
use crate::session::control::MachineCmd;

mod host;
mod join;

pub use host::{HostContext, HostLink, HostOptions, HostShared, ParticipantInfo};
pub use join::{JoinError, JoinOptions, Participant, shake_hands};

/// The control protocol's version (a participant of another version is refused, with both
/// numbers). 2: a participant says `Leave`; the host sends the preset after each change and
/// the participants' names (a version-1 participant could not read those, and would drop its
/// connection at the trainer's first change).
pub const PROTOCOL: u16 = 2;
/// The first bytes a participant sends on the control channel.
const MAGIC: &[u8; 4] = b"MSJ1";
/// Largest control frame (a batch of records, a preset).
pub const MAX_FRAME: usize = 1 << 20;
/// Seconds a new control connection has to send its handshake.
pub const HELLO_TIMEOUT: f64 = 3.0;
/// Participants a host holds unless told otherwise (`--max-participants`).
pub const DEFAULT_MAX_PARTICIPANTS: usize = 32;
/// Control connections still in their handshake at once.
pub const MAX_HANDSHAKING: usize = 16;
/// Control connections from one address still in their handshake at once (so connections
/// from one address that send nothing cannot hold every handshake slot: a participant from
/// another address always gets one).
pub const MAX_HANDSHAKING_PER_ADDR: usize = 4;
/// Wrong join codes one address may send a minute before it is refused without a check.
pub const MAX_WRONG_CODES: usize = 5;
/// The window those wrong codes are counted in (s): an address that sent
/// [`MAX_WRONG_CODES`] is refused, even with the right code, until its oldest wrong code in
/// the window is this old.
pub const WRONG_CODE_WINDOW: f64 = 60.0;
/// Records a second one participant may send (a busy client sends a few thousand).
pub const RECORDS_PER_S: f64 = 50_000.0;
/// How often the host measures each participant's real round trip.
pub const PING_INTERVAL: f64 = 0.5;
/// Outgoing bytes a host keeps for a participant that does not read before it drops it.
const MAX_BACKLOG: usize = 8 << 20;
/// The port a host listens on when `--listen` names none.
pub const DEFAULT_PORT: u16 = 7777;

/// What a participant sends on the control channel.
#[derive(Debug, Serialize, Deserialize)]
enum Up {
    Hello {
        protocol: u16,
        code: String,
        name: Option<String>,
        /// The participant's game (UDP) port, on the address the control connection came from.
        udp_port: u16,
    },
    /// Telemetry of the participant's client, stamped with the participant's session time.
    Records(Vec<Record>),
    /// The answer to a ping: the host's time echoed, the participant's time, and how long the
    /// participant held the ping before answering (s).
    Pong { host_t: f64, p_t: f64, held: f64 },
    /// The participant ends its part in the session (its run is over, or its user closed
    /// it): the host logs it as left and the server removes its pawn at once.
    Leave { why: String },
}

/// What a host sends on the control channel.
#[derive(Debug, Serialize, Deserialize)]
enum Down {
    Welcome {
        id: u16,
        incarnation: u32,
        /// The participant's own join key (never the session's secret): its joins are proven
        /// with it.
        secret: u64,
        /// The session's preset as it runs now (RON).
        preset: String,
        udp_port: u16,
    },
    Refused {
        why: String,
    },
    /// Clock and round trip: the host's session time, the server's world time, and the newest
    /// round trip measured (s).
    Ping {
        host_t: f64,
        server_time: f64,
        rtt: Option<f64>,
    },
    Cmd(RemoteCmd),
    /// Start the client again (a new incarnation): the trainer restarted it, or respawned
    /// every pawn.
    Rejoin,
    /// The host ends this participant's part in the session.
    Bye {
        why: String,
    },
    /// The session's preset as it runs now (RON), after the trainer changed it: the
    /// participant's panes show it (its client already had the change as a `Cmd`).
    Preset {
        preset: String,
    },
    /// The participants that gave names (client id, name), after one joined: the
    /// participant's views call the other pawns by them.
    Names {
        names: Vec<(u16, String)>,
    },
}

/// The settings a host carries to a participant's client (a [`MachineCmd`] a participant can
/// apply; driving stays the participant's own).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum RemoteCmd {
    UpLink(LinkParams),
    Gmc(GmcSettings),
    Faults(Faults),
    World(WorldSettings),
    Smoothing(SmoothingSettings),
    NetUpdateRate(f64),
    HookTrace(bool),
    ValueTrace(bool),
    BufferTrace(bool),
    Pause,
    Resume,
}

impl RemoteCmd {
    /// The command a participant's client can take, if `c` is one (binding layouts are not
    /// carried: a hosted session refuses binding changes while participants are joined).
    pub fn from_machine(c: &MachineCmd) -> Option<RemoteCmd> {
        Some(match c {
            MachineCmd::UpLink(p) => RemoteCmd::UpLink(p.clone()),
            MachineCmd::Gmc(g) => RemoteCmd::Gmc(*g),
            MachineCmd::Faults(f) => RemoteCmd::Faults(f.clone()),
            MachineCmd::World(w) => RemoteCmd::World(w.clone()),
            MachineCmd::Smoothing(s) => RemoteCmd::Smoothing(*s),
            MachineCmd::NetUpdateRate(r) => RemoteCmd::NetUpdateRate(*r),
            MachineCmd::HookTrace(on) => RemoteCmd::HookTrace(*on),
            MachineCmd::ValueTrace(on) => RemoteCmd::ValueTrace(*on),
            MachineCmd::BufferTrace(on) => RemoteCmd::BufferTrace(*on),
            // A participant's frame rate is its own machine's.
            MachineCmd::DownLink { .. }
            | MachineCmd::DefineLayout { .. }
            | MachineCmd::FrameRate { .. }
            | MachineCmd::Drive(_) => return None,
        })
    }

    fn to_machine(&self) -> Option<MachineCmd> {
        Some(match self {
            RemoteCmd::UpLink(p) => MachineCmd::UpLink(p.clone()),
            RemoteCmd::Gmc(g) => MachineCmd::Gmc(*g),
            RemoteCmd::Faults(f) => MachineCmd::Faults(f.clone()),
            RemoteCmd::World(w) => MachineCmd::World(w.clone()),
            RemoteCmd::Smoothing(s) => MachineCmd::Smoothing(*s),
            RemoteCmd::NetUpdateRate(r) => MachineCmd::NetUpdateRate(*r),
            RemoteCmd::HookTrace(on) => MachineCmd::HookTrace(*on),
            RemoteCmd::ValueTrace(on) => MachineCmd::ValueTrace(*on),
            RemoteCmd::BufferTrace(on) => MachineCmd::BufferTrace(*on),
            RemoteCmd::Pause | RemoteCmd::Resume => return None,
        })
    }
}

/// A join code: six letters and digits nobody confuses when read aloud or from a projector
/// (no 0/O, 1/I/L). Drawn from the system's randomness (not the model's: the code is not part
/// of any simulation).
pub fn new_code() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    let mut x = h.finish();
    (0..6)
        .map(|_| {
            let c = ALPHABET[(x % ALPHABET.len() as u64) as usize] as char;
            x /= ALPHABET.len() as u64;
            c
        })
        .collect()
}

/// Codes compare without regard to case or surrounding spaces (read aloud, typed in a hurry).
fn same_code(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// Whether `addr` is a loopback address (what a host listens on unless told otherwise).
pub fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback()
}

// ---------------------------------------------------------------------------------------
// Framing: a 4-byte little-endian length, then a postcard-encoded message.

fn frame<T: Serialize>(msg: &T) -> Vec<u8> {
    let body = postcard::to_stdvec(msg).unwrap_or_default();
    let mut out = Vec::with_capacity(body.len() + 4);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// Why a control connection's bytes could not be read.
#[derive(Debug, PartialEq)]
enum FrameError {
    TooLarge(usize),
    Malformed,
}

/// Bytes received on a control connection, cut into frames.
#[derive(Default)]
struct Inbox {
    buf: Vec<u8>,
    /// Bytes read so far.
    total: u64,
}

impl Inbox {
    /// Reads what is available. `Ok(false)`: the peer closed the connection.
    fn fill(&mut self, s: &mut TcpStream) -> io::Result<bool> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            match s.read(&mut chunk) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.total += n as u64;
                    self.buf.extend_from_slice(&chunk[..n]);
                    // A short read took everything there was: return now rather than wait
                    // out a read timeout (a ping is answered at once).
                    if n < chunk.len() || self.buf.len() > MAX_FRAME * 2 {
                        return Ok(true);
                    }
                }
                Err(e)
                    if e.kind() == io::ErrorKind::WouldBlock
                        || e.kind() == io::ErrorKind::TimedOut =>
                {
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Takes `n` raw bytes (the magic), if there.
    fn take_raw(&mut self, n: usize) -> Option<Vec<u8>> {
        (self.buf.len() >= n).then(|| self.buf.drain(..n).collect())
    }

    /// The next whole frame, decoded.
    fn next<T: for<'de> Deserialize<'de>>(&mut self) -> Result<Option<T>, FrameError> {
        let Some(len) = self.buf.get(..4) else {
            return Ok(None);
        };
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        if len > MAX_FRAME {
            return Err(FrameError::TooLarge(len));
        }
        if self.buf.len() < 4 + len {
            return Ok(None);
        }
        let msg = postcard::from_bytes(&self.buf[4..4 + len]).map_err(|_| FrameError::Malformed);
        self.buf.drain(..4 + len);
        msg.map(Some)
    }
}

/// Bytes waiting to be written to a non-blocking control connection.
#[derive(Default)]
struct Outbox {
    buf: VecDeque<u8>,
    /// Bytes written so far.
    total: u64,
}

impl Outbox {
    fn push<T: Serialize>(&mut self, msg: &T) {
        self.buf.extend(frame(msg));
    }

    /// Writes what the socket takes now.
    fn flush(&mut self, s: &mut TcpStream) -> io::Result<()> {
        while !self.buf.is_empty() {
            let (a, _) = self.buf.as_slices();
            match s.write(a) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    self.total += n as u64;
                    self.buf.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// Blocks until one of `streams` (or `listener`) is readable or `timeout` passes (at most a
/// second). The same `polling` wait on every platform; if a poller cannot be had, a short sleep.
pub(crate) fn wait_readable(listener: &TcpListener, streams: &[&TcpStream], timeout: Duration) {
    let timeout = timeout.min(Duration::from_secs(1));
    let Ok(poller) = polling::Poller::new() else {
        std::thread::sleep(timeout.min(Duration::from_millis(2)));
        return;
    };
    let mut added: Vec<&TcpStream> = Vec::with_capacity(streams.len());
    // SAFETY: every source added here is borrowed for the whole function and deleted from the
    // poller before it returns, so none is dropped while registered.
    let listener_added = unsafe { poller.add(listener, polling::Event::readable(0)) }.is_ok();
    for (i, s) in streams.iter().enumerate() {
        if unsafe { poller.add(*s, polling::Event::readable(i + 1)) }.is_ok() {
            added.push(s);
        }
    }
    let mut events = polling::Events::new();
    let _ = poller.wait(&mut events, Some(timeout));
    for s in added {
        let _ = poller.delete(s);
    }
    if listener_added {
        let _ = poller.delete(listener);
    }
}

// ---------------------------------------------------------------------------------------
// The host side.

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_refuse_oversize_and_garbage() {
        let mut inbox = Inbox::default();
        inbox.buf.extend(frame(&Down::Refused { why: "x".into() }));
        inbox.buf.extend(frame(&Down::Rejoin));
        assert!(matches!(
            inbox.next::<Down>(),
            Ok(Some(Down::Refused { .. }))
        ));
        assert!(matches!(inbox.next::<Down>(), Ok(Some(Down::Rejoin))));
        assert!(matches!(inbox.next::<Down>(), Ok(None)));
        // Half a frame waits for the rest.
        let f = frame(&Down::Bye { why: "late".into() });
        inbox.buf.extend(&f[..3]);
        assert!(matches!(inbox.next::<Down>(), Ok(None)));
        inbox.buf.extend(&f[3..]);
        assert!(matches!(inbox.next::<Down>(), Ok(Some(Down::Bye { .. }))));
        // A length over the limit is an error, not an allocation.
        inbox.buf.extend((MAX_FRAME as u32 + 1).to_le_bytes());
        assert_eq!(
            inbox.next::<Down>().map(|_| ()),
            Err(FrameError::TooLarge(MAX_FRAME + 1))
        );
        let mut inbox = Inbox::default();
        inbox.buf.extend(3u32.to_le_bytes());
        inbox.buf.extend([0xFF, 0xFF, 0xFF]);
        assert_eq!(inbox.next::<Down>().map(|_| ()), Err(FrameError::Malformed));
    }

    #[test]
    fn codes_are_six_unambiguous_characters_and_compare_loosely() {
        let a = new_code();
        assert_eq!(a.len(), 6);
        assert!(
            a.chars()
                .all(|c| "ABCDEFGHJKMNPQRSTUVWXYZ23456789".contains(c))
        );
        assert!(same_code(&a, &format!(" {} ", a.to_lowercase())));
        assert!(!same_code("ABCDEF", "ABCDEG"));
    }
}
