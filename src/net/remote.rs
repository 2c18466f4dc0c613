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

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, bounded};
use serde::{Deserialize, Serialize};

use crate::conditions::link::LinkParams;
use crate::model::input::RawInput;
use crate::model::settings::{Faults, GmcSettings, SmoothingSettings, WorldSettings};
use crate::model::telemetry::{Event, LogLevel, Machine, Record, Rejection};
use crate::net::live::{ClientSpawn, SessionClock, TelemetryTx, ThreadCmd, Worker, spawn_client};
use crate::net::transport::{Endpoint, Roster};
use crate::session::control::{MachineCmd, Settings};
use crate::session::preset::Preset;

/// The control protocol's version (a participant of another version is refused, with both
/// numbers).
pub const PROTOCOL: u16 = 1;
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
/// Wrong join codes one address may send a minute before it is refused without a check.
pub const MAX_WRONG_CODES: usize = 5;
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
}

/// What a host sends on the control channel.
#[derive(Debug, Serialize, Deserialize)]
enum Down {
    Welcome {
        id: u16,
        incarnation: u32,
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
            MachineCmd::DownLink { .. }
            | MachineCmd::DefineLayout { .. }
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

/// Blocks until one of `streams` (or `listener`) is readable or `timeout` passes.
#[cfg(unix)]
fn wait_readable(listener: &TcpListener, streams: &[&TcpStream], timeout: Duration) {
    use std::os::fd::AsRawFd;
    let mut fds: Vec<libc::pollfd> = std::iter::once(listener.as_raw_fd())
        .chain(streams.iter().map(|s| s.as_raw_fd()))
        .map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ms = timeout.as_millis().min(1000) as libc::c_int;
    // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs for the whole call.
    unsafe {
        libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms);
    }
}

#[cfg(not(unix))]
fn wait_readable(_: &TcpListener, _: &[&TcpStream], timeout: Duration) {
    std::thread::sleep(timeout.min(Duration::from_millis(2)));
}

// ---------------------------------------------------------------------------------------
// The host side.

/// How a host is started.
#[derive(Clone, Debug, PartialEq)]
pub struct HostOptions {
    /// Where the control channel listens (the game channel takes the same address, or the
    /// next free port on it). Loopback unless the user says otherwise.
    pub listen: SocketAddr,
    /// The join code (`None`: a new random one).
    pub code: Option<String>,
    pub max_participants: usize,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions {
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, DEFAULT_PORT)),
            code: None,
            max_participants: DEFAULT_MAX_PARTICIPANTS,
        }
    }
}

/// A participant as the host knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ParticipantInfo {
    pub id: u16,
    pub name: Option<String>,
    pub connected: bool,
    /// Where its game datagrams come from.
    pub udp: SocketAddr,
    /// Newest real round trip on the control channel (s).
    pub real_rtt: Option<f64>,
    /// Control-channel bytes from and to it on its current connection (updated twice a
    /// second).
    pub control_in: u64,
    pub control_out: u64,
}

/// What the session and the host's link thread share.
#[derive(Debug, Default)]
pub struct HostShared {
    /// The session's preset as it runs now (RON), for participants joining.
    pub preset_ron: String,
    /// Client ids run in the host's own process.
    pub local_ids: Vec<u16>,
    /// Every participant that joined (ids are kept for names that come back).
    pub participants: BTreeMap<u16, ParticipantInfo>,
    /// The server's game port.
    pub udp_port: u16,
}

/// The host's control channel: a thread accepting participants.
pub struct HostLink {
    addr: SocketAddr,
    code: String,
    shared: Arc<Mutex<HostShared>>,
    tx: Sender<(u16, Down)>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

/// What the host's link thread needs of the session.
pub struct HostContext {
    pub clock: Arc<SessionClock>,
    pub tele: TelemetryTx,
    pub roster: Roster,
    pub incarnations: Arc<AtomicU32>,
    pub shared: Arc<Mutex<HostShared>>,
}

impl HostLink {
    /// Listens on `listener` (already bound) for participants.
    pub fn start(listener: TcpListener, code: String, max: usize, cx: HostContext) -> HostLink {
        let addr = listener
            .local_addr()
            .unwrap_or(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)));
        let (tx, rx) = bounded(4096);
        let stop = Arc::new(AtomicBool::new(false));
        let shared = cx.shared.clone();
        let stop2 = stop.clone();
        let code2 = code.clone();
        let handle = std::thread::Builder::new()
            .name("host link".into())
            .spawn(move || host_loop(listener, code2, max, cx, rx, stop2))
            .expect("spawning a thread");
        HostLink {
            addr,
            code,
            shared,
            tx,
            stop,
            handle: Some(handle),
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn code(&self) -> &str {
        &self.code
    }

    /// Every participant that joined so far (connected or not).
    pub fn participants(&self) -> Vec<ParticipantInfo> {
        self.shared
            .lock()
            .map(|s| s.participants.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Participants connected now.
    pub fn connected(&self) -> usize {
        self.participants().iter().filter(|p| p.connected).count()
    }

    pub fn has(&self, id: u16) -> bool {
        self.shared
            .lock()
            .is_ok_and(|s| s.participants.contains_key(&id))
    }

    /// Carries a setting to participant `id`'s client (dropped if it is not connected: it
    /// gets the session's settings when it joins again).
    pub fn send(&self, id: u16, c: RemoteCmd) {
        let _ = self.tx.try_send((id, Down::Cmd(c)));
    }

    /// The participant starts its client again (a new incarnation).
    pub fn rejoin(&self, id: u16) {
        let _ = self.tx.try_send((id, Down::Rejoin));
    }

    /// The participant leaves the session, told why.
    pub fn remove(&self, id: u16, why: &str) {
        let _ = self.tx.try_send((id, Down::Bye { why: why.into() }));
    }

    /// The client ids the host's own process runs (participants get others).
    pub fn set_local_ids(&self, ids: Vec<u16>) {
        if let Ok(mut s) = self.shared.lock() {
            s.local_ids = ids;
        }
    }

    /// The preset participants get when they join from now on.
    pub fn set_preset(&self, p: &Preset) {
        if let Ok(mut s) = self.shared.lock() {
            s.preset_ron = p.to_ron();
        }
    }

    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for HostLink {
    fn drop(&mut self) {
        self.stop();
    }
}

enum ConnState {
    /// Waiting for the magic and the handshake.
    Handshaking { since: f64, magic_ok: bool },
    Joined {
        id: u16,
        /// Host session time − participant session time.
        offset: f64,
        last_ping: f64,
        rtt: Option<f64>,
        tokens: f64,
        last_t: f64,
        /// Records that came before the first pong (their offset is not known yet).
        early: Vec<Record>,
    },
}

/// Records a participant's connection holds until its clock offset is known.
const MAX_EARLY: usize = 100_000;

struct Conn {
    stream: TcpStream,
    peer: SocketAddr,
    inbox: Inbox,
    outbox: Outbox,
    state: ConnState,
    /// Close once the outbox is written (a refusal).
    closing: bool,
}

fn log(t: f64, level: LogLevel, text: String) -> Record {
    Record {
        t,
        machine: Machine::Server,
        event: Event::Log { level, text },
    }
}

fn changed(t: f64, what: String) -> Record {
    Record {
        t,
        machine: Machine::Server,
        event: Event::SessionChanged { what },
    }
}

fn rejected(t: f64, reason: Rejection) -> Record {
    Record {
        t,
        machine: Machine::Server,
        event: Event::Rejected { reason },
    }
}

fn host_loop(
    listener: TcpListener,
    code: String,
    max: usize,
    cx: HostContext,
    rx: Receiver<(u16, Down)>,
    stop: Arc<AtomicBool>,
) {
    let _ = listener.set_nonblocking(true);
    let mut conns: Vec<Conn> = Vec::new();
    let mut wrong: HashMap<IpAddr, VecDeque<f64>> = HashMap::new();
    let tele = &cx.tele;
    while !stop.load(Ordering::Acquire) {
        {
            let streams: Vec<&TcpStream> = conns.iter().map(|c| &c.stream).collect();
            wait_readable(&listener, &streams, Duration::from_millis(5));
        }
        let t = cx.clock.now();
        // New connections.
        while let Ok((stream, peer)) = listener.accept() {
            let handshaking = conns
                .iter()
                .filter(|c| matches!(c.state, ConnState::Handshaking { .. }))
                .count();
            if handshaking >= MAX_HANDSHAKING || stream.set_nonblocking(true).is_err() {
                tele.send(rejected(t, Rejection::RateLimited));
                continue;
            }
            let _ = stream.set_nodelay(true);
            conns.push(Conn {
                stream,
                peer,
                inbox: Inbox::default(),
                outbox: Outbox::default(),
                state: ConnState::Handshaking {
                    since: t,
                    magic_ok: false,
                },
                closing: false,
            });
        }
        // Messages from the session to participants.
        for (id, msg) in rx.try_iter() {
            if let Some(c) = conns
                .iter_mut()
                .find(|c| matches!(c.state, ConnState::Joined { id: j, .. } if j == id))
            {
                if matches!(msg, Down::Bye { .. }) {
                    c.closing = true;
                }
                c.outbox.push(&msg);
            }
        }
        let mut gone: Vec<(usize, String)> = Vec::new();
        for (i, c) in conns.iter_mut().enumerate() {
            if c.closing {
                if c.outbox.flush(&mut c.stream).is_err() || c.outbox.buf.is_empty() {
                    gone.push((i, String::new()));
                }
                continue;
            }
            match c.inbox.fill(&mut c.stream) {
                Ok(true) => {}
                Ok(false) => {
                    gone.push((i, "it closed the connection".into()));
                    continue;
                }
                Err(e) => {
                    gone.push((i, format!("the connection failed: {e}")));
                    continue;
                }
            }
            if let Err(why) = serve(c, t, &code, max, &cx, &mut wrong) {
                gone.push((i, why));
                continue;
            }
            if let ConnState::Joined {
                id, last_ping, rtt, ..
            } = &mut c.state
                && t - *last_ping >= PING_INTERVAL
            {
                *last_ping = t;
                if let Ok(mut s) = cx.shared.lock()
                    && let Some(p) = s.participants.get_mut(id)
                {
                    p.control_in = c.inbox.total;
                    p.control_out = c.outbox.total;
                }
                c.outbox.push(&Down::Ping {
                    host_t: t,
                    server_time: cx.clock.server_time(t),
                    rtt: *rtt,
                });
            }
            if c.outbox.buf.len() > MAX_BACKLOG {
                gone.push((i, "it stopped reading (its backlog is full)".into()));
                continue;
            }
            if let Err(e) = c.outbox.flush(&mut c.stream) {
                gone.push((i, format!("the connection failed: {e}")));
            }
        }
        for (i, why) in gone.into_iter().rev() {
            let c = conns.remove(i);
            if let ConnState::Joined { id, .. } = c.state {
                let name = leave(&cx, id);
                let who = describe(id, name.as_deref());
                if why.is_empty() {
                    tele.send(changed(t, format!("{who} was removed from the session")));
                } else {
                    tele.send(changed(t, format!("{who} left: {why}")));
                }
            }
        }
    }
}

fn describe(id: u16, name: Option<&str>) -> String {
    match name {
        Some(n) => format!("participant {n} (client {id})"),
        None => format!("participant client {id}"),
    }
}

/// A participant's control connection closed: it stays known (its pawn stays on the server,
/// and its name gets the same id back), its game address leaves the roster.
fn leave(cx: &HostContext, id: u16) -> Option<String> {
    let mut name = None;
    let mut udp = None;
    if let Ok(mut s) = cx.shared.lock()
        && let Some(p) = s.participants.get_mut(&id)
    {
        p.connected = false;
        name = p.name.clone();
        udp = Some(p.udp);
    }
    if let (Some(a), Ok(mut r)) = (udp, cx.roster.lock()) {
        r.remove(&a);
    }
    name
}

/// Handles what arrived on one connection. `Err`: drop it, for this reason.
fn serve(
    c: &mut Conn,
    t: f64,
    code: &str,
    max: usize,
    cx: &HostContext,
    wrong: &mut HashMap<IpAddr, VecDeque<f64>>,
) -> Result<(), String> {
    let tele = &cx.tele;
    loop {
        match &mut c.state {
            ConnState::Handshaking { since, magic_ok } => {
                if !*magic_ok {
                    match c.inbox.take_raw(MAGIC.len()) {
                        Some(m) if m == MAGIC => *magic_ok = true,
                        Some(_) => {
                            tele.send(rejected(t, Rejection::Foreign));
                            return Err("not a movescope participant".into());
                        }
                        None => {
                            return if t - *since > HELLO_TIMEOUT {
                                tele.send(rejected(t, Rejection::Unadmitted));
                                Err("no handshake in time".into())
                            } else {
                                Ok(())
                            };
                        }
                    }
                }
                let hello = match c.inbox.next::<Up>() {
                    Ok(Some(m)) => m,
                    Ok(None) => {
                        return if t - *since > HELLO_TIMEOUT {
                            tele.send(rejected(t, Rejection::Unadmitted));
                            Err("no handshake in time".into())
                        } else {
                            Ok(())
                        };
                    }
                    Err(_) => {
                        tele.send(rejected(
                            t,
                            Rejection::Malformed(crate::model::wire::DecodeError::Truncated),
                        ));
                        return Err("a malformed handshake".into());
                    }
                };
                match admit(c.peer, hello, t, code, max, cx, wrong) {
                    Ok((id, welcome, who)) => {
                        c.outbox.push(&welcome);
                        c.state = ConnState::Joined {
                            id,
                            offset: 0.0,
                            // The first ping a tenth of a second after the welcome, when the
                            // participant's loop runs (one in the welcome's segment would be
                            // read late, after its client started, and set its clock late).
                            last_ping: t - PING_INTERVAL + 0.1,
                            rtt: None,
                            tokens: RECORDS_PER_S,
                            last_t: t,
                            early: Vec::new(),
                        };
                        tele.send(changed(t, format!("{who} joined from {}", c.peer.ip())));
                    }
                    Err(why) => {
                        tele.send(log(
                            t,
                            LogLevel::Warning,
                            format!("host: refused a participant from {}: {why}", c.peer),
                        ));
                        c.outbox.push(&Down::Refused { why });
                        c.closing = true;
                        return Ok(());
                    }
                }
            }
            ConnState::Joined {
                id,
                offset,
                rtt,
                tokens,
                last_t,
                early,
                ..
            } => {
                let msg = match c.inbox.next::<Up>() {
                    Ok(Some(m)) => m,
                    Ok(None) => return Ok(()),
                    Err(_) => {
                        tele.send(rejected(
                            t,
                            Rejection::Malformed(crate::model::wire::DecodeError::Truncated),
                        ));
                        return Err("it sent a malformed frame".into());
                    }
                };
                match msg {
                    Up::Records(rs) => {
                        *tokens =
                            (*tokens + (t - *last_t).max(0.0) * RECORDS_PER_S).min(RECORDS_PER_S);
                        *last_t = t;
                        for mut r in rs {
                            if *tokens < 1.0 {
                                tele.send(rejected(t, Rejection::RateLimited));
                                continue;
                            }
                            *tokens -= 1.0;
                            if r.machine != Machine::Client(*id) || !r.t.is_finite() {
                                tele.send(rejected(t, Rejection::WrongSource));
                                continue;
                            }
                            if rtt.is_none() {
                                if early.len() < MAX_EARLY {
                                    early.push(r);
                                } else {
                                    tele.send(rejected(t, Rejection::RateLimited));
                                }
                                continue;
                            }
                            r.t += *offset;
                            tele.send(r);
                        }
                    }
                    Up::Pong { host_t, p_t, held } => {
                        let trip = (t - host_t - held.clamp(0.0, 1.0)).max(0.0);
                        if host_t.is_finite() && p_t.is_finite() && host_t <= t {
                            *rtt = Some(trip);
                            *offset = host_t + held + trip / 2.0 - p_t;
                            if let Ok(mut s) = cx.shared.lock()
                                && let Some(p) = s.participants.get_mut(id)
                            {
                                p.real_rtt = Some(trip);
                            }
                            tele.send(Record {
                                t,
                                machine: Machine::Client(*id),
                                event: Event::RealRtt { rtt: trip },
                            });
                            // What came before the offset was known, on the host's time now.
                            for mut r in early.drain(..) {
                                r.t += *offset;
                                tele.send(r);
                            }
                        }
                    }
                    Up::Hello { .. } => {
                        tele.send(rejected(t, Rejection::Duplicate));
                    }
                }
            }
        }
    }
}

/// Checks a handshake; on success puts the participant on the roster and says what to send.
fn admit(
    peer: SocketAddr,
    hello: Up,
    t: f64,
    code: &str,
    max: usize,
    cx: &HostContext,
    wrong: &mut HashMap<IpAddr, VecDeque<f64>>,
) -> Result<(u16, Down, String), String> {
    let Up::Hello {
        protocol,
        code: given,
        name,
        udp_port,
    } = hello
    else {
        return Err("the first message was not a handshake".into());
    };
    if protocol != PROTOCOL {
        return Err(format!(
            "this host speaks movescope's join protocol {PROTOCOL}, the participant {protocol}: use the same movescope version"
        ));
    }
    let tries = wrong.entry(peer.ip()).or_default();
    while tries.front().is_some_and(|&w| t - w > 60.0) {
        tries.pop_front();
    }
    if tries.len() >= MAX_WRONG_CODES {
        cx.tele.send(rejected(t, Rejection::RateLimited));
        return Err(format!(
            "too many wrong join codes from {} in the last minute; wait a minute",
            peer.ip()
        ));
    }
    if !same_code(&given, code) {
        tries.push_back(t);
        cx.tele.send(rejected(t, Rejection::Unadmitted));
        return Err("wrong join code (ask the trainer for the code the host printed)".into());
    }
    let name = name
        .map(|n| {
            n.trim()
                .chars()
                .filter(|c| !c.is_control())
                .take(32)
                .collect::<String>()
        })
        .filter(|n| !n.is_empty());
    let mut s = cx
        .shared
        .lock()
        .map_err(|_| "the host is shutting down".to_string())?;
    let returning = name.as_ref().and_then(|n| {
        s.participants
            .values()
            .find(|p| p.name.as_ref() == Some(n))
            .cloned()
    });
    if let Some(p) = &returning
        && p.connected
    {
        return Err(format!(
            "the name {} is in use by a connected participant; choose another with --name",
            p.name.as_deref().unwrap_or_default()
        ));
    }
    let connected = s.participants.values().filter(|p| p.connected).count();
    if connected >= max {
        cx.tele.send(rejected(t, Rejection::RateLimited));
        return Err(format!("the session is full ({max} participants)"));
    }
    let id = match &returning {
        Some(p) => p.id,
        None => {
            let taken: Vec<u16> = s
                .local_ids
                .iter()
                .copied()
                .chain(s.participants.keys().copied())
                .collect();
            let id = Settings::next_client_id(&taken);
            if id >= crate::session::control::MAX_CLIENTS {
                return Err(format!(
                    "the session has no room for another client (at most {})",
                    crate::session::control::MAX_CLIENTS
                ));
            }
            id
        }
    };
    let udp = SocketAddr::new(peer.ip(), udp_port);
    if let Ok(mut r) = cx.roster.lock() {
        if let Some(old) = returning.as_ref().map(|p| p.udp) {
            r.remove(&old);
        }
        r.insert(udp, id);
    }
    s.participants.insert(
        id,
        ParticipantInfo {
            id,
            name: name.clone(),
            connected: true,
            udp,
            real_rtt: None,
            control_in: 0,
            control_out: 0,
        },
    );
    let incarnation = cx.incarnations.fetch_add(1, Ordering::AcqRel) + 1;
    let who = describe(id, name.as_deref());
    let who = if returning.is_some() {
        format!("{who}, back for its pawn,")
    } else {
        who
    };
    Ok((
        id,
        Down::Welcome {
            id,
            incarnation,
            preset: s.preset_ron.clone(),
            udp_port: s.udp_port,
        },
        who,
    ))
}

// ---------------------------------------------------------------------------------------
// The participant side.

/// How a participant joins.
#[derive(Clone, Debug, PartialEq)]
pub struct JoinOptions {
    /// The host's control address (what the host printed).
    pub host: SocketAddr,
    pub code: String,
    pub name: Option<String>,
}

/// What a host said to a participant's handshake.
struct Welcomed {
    id: u16,
    incarnation: u32,
    preset: Preset,
    server: SocketAddr,
    stream: TcpStream,
    endpoint: Endpoint,
    inbox: Inbox,
}

/// Connects, shakes hands, and returns the welcome (or why the host refused).
fn handshake(opts: &JoinOptions) -> Result<Welcomed, String> {
    let host = opts.host;
    let stream = TcpStream::connect_timeout(&host, Duration::from_secs(3))
        .map_err(|e| format!("cannot reach the host at {host}: {e}"))?;
    let local_ip = stream
        .local_addr()
        .map_or(IpAddr::V4(Ipv4Addr::LOCALHOST), |a| a.ip());
    let endpoint = Endpoint::bind(SocketAddr::new(local_ip, 0))
        .map_err(|e| format!("cannot bind a game socket on {local_ip}: {e}"))?;
    let (id, incarnation, preset, server, stream, inbox) =
        greet(opts, stream, endpoint.local_addr().port())?;
    Ok(Welcomed {
        id,
        incarnation,
        preset,
        server,
        stream,
        endpoint,
        inbox,
    })
}

/// The handshake alone, for a caller with its own game socket on `udp_port` (tests, tools):
/// the client id the host gave, the host's game address, and the control connection (the
/// participant stays joined while it is open).
pub fn shake_hands(
    opts: &JoinOptions,
    udp_port: u16,
) -> Result<(u16, SocketAddr, TcpStream), String> {
    let stream = TcpStream::connect_timeout(&opts.host, Duration::from_secs(3))
        .map_err(|e| format!("cannot reach the host at {}: {e}", opts.host))?;
    let (id, _, _, server, stream, _) = greet(opts, stream, udp_port)?;
    Ok((id, server, stream))
}

type Greeted = (u16, u32, Preset, SocketAddr, TcpStream, Inbox);

fn greet(opts: &JoinOptions, mut stream: TcpStream, udp_port: u16) -> Result<Greeted, String> {
    let host = opts.host;
    let _ = stream.set_nodelay(true);
    let mut out = Vec::from(&MAGIC[..]);
    out.extend(frame(&Up::Hello {
        protocol: PROTOCOL,
        code: opts.code.clone(),
        name: opts.name.clone(),
        udp_port,
    }));
    stream
        .write_all(&out)
        .map_err(|e| format!("cannot talk to the host at {host}: {e}"))?;
    let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut inbox = Inbox::default();
    loop {
        let open = inbox
            .fill(&mut stream)
            .map_err(|e| format!("the host at {host} closed the connection: {e}"))?;
        match inbox.next::<Down>() {
            Ok(Some(Down::Welcome {
                id,
                incarnation,
                preset,
                udp_port,
            })) => {
                let preset =
                    Preset::from_ron(&preset, &format!("the host at {host}")).map_err(|e| {
                        format!("the host sent a preset this movescope cannot read: {e}")
                    })?;
                let server = SocketAddr::new(host.ip(), udp_port);
                return Ok((id, incarnation, preset, server, stream, inbox));
            }
            Ok(Some(Down::Refused { why })) => return Err(format!("the host refused: {why}")),
            Ok(Some(_)) => {}
            Ok(None) if !open => {
                return Err(format!(
                    "the host at {host} closed the connection without an answer"
                ));
            }
            Ok(None) => {}
            Err(e) => return Err(format!("the host sent a malformed answer ({e:?})")),
        }
        if Instant::now() > deadline {
            return Err(format!("the host at {host} did not answer the handshake"));
        }
    }
}

/// A participant's link to its host: a thread that runs the participant's client, carries
/// its telemetry up and the trainer's settings down, and rejoins when the host comes back.
pub struct Participant {
    id: u16,
    preset: Preset,
    server: SocketAddr,
    drive: Sender<Option<RawInput>>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Participant {
    /// Joins the host (the handshake happens here: its refusal is this call's error).
    /// `uplink` is the copy of the client's telemetry the thread sends to the host.
    pub fn join(
        opts: JoinOptions,
        clock: Arc<SessionClock>,
        tele: TelemetryTx,
        uplink: Receiver<Record>,
    ) -> Result<Participant, String> {
        let w = handshake(&opts)?;
        let (id, preset, server) = (w.id, w.preset.clone(), w.server);
        let (drive_tx, drive_rx) = bounded(64);
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let handle = std::thread::Builder::new()
            .name("participant link".into())
            .spawn(move || participant_loop(opts, w, clock, tele, uplink, drive_rx, stop2))
            .expect("spawning a thread");
        Ok(Participant {
            id,
            preset,
            server,
            drive: drive_tx,
            stop,
            handle: Some(handle),
        })
    }

    /// The client id the host gave this participant.
    pub fn id(&self) -> u16 {
        self.id
    }

    /// The session's preset as the host sent it.
    pub fn preset(&self) -> &Preset {
        &self.preset
    }

    /// The host's game address.
    pub fn server(&self) -> SocketAddr {
        self.server
    }

    /// Drives the participant's own pawn (`None`: its script again).
    pub fn drive(&self, input: Option<RawInput>) {
        let _ = self.drive.try_send(input);
    }

    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Participant {
    fn drop(&mut self) {
        self.stop();
    }
}

fn local_log(tele: &TelemetryTx, t: f64, me: Machine, level: LogLevel, text: String) {
    tele.send(Record {
        t,
        machine: me,
        event: Event::Log { level, text },
    });
}

fn start_worker(
    w: Welcomed,
    clock: &Arc<SessionClock>,
    tele: &TelemetryTx,
) -> Result<(Worker, TcpStream, Inbox, u16), String> {
    let settings = Settings::new(&w.preset)?;
    let worker = spawn_client(ClientSpawn {
        preset: &w.preset,
        id: w.id,
        incarnation: w.incarnation,
        bindings: settings.client_bindings().clone(),
        layouts: settings.client_layouts().to_vec(),
        endpoint: w.endpoint,
        server: w.server,
        clock: clock.clone(),
        tele: tele.clone(),
        start: clock.now(),
    });
    Ok((worker, w.stream, w.inbox, w.id))
}

fn participant_loop(
    opts: JoinOptions,
    first: Welcomed,
    clock: Arc<SessionClock>,
    tele: TelemetryTx,
    uplink: Receiver<Record>,
    drive_rx: Receiver<Option<RawInput>>,
    stop: Arc<AtomicBool>,
) {
    let mut next = Some(first);
    let mut driving: Option<RawInput> = None;
    let mut me = Machine::Client(0);
    while !stop.load(Ordering::Acquire) {
        let welcomed = match next.take() {
            Some(w) => w,
            None => {
                // Reconnect once a second until the host takes us back (or we are stopped).
                let mut got = None;
                while got.is_none() && !stop.load(Ordering::Acquire) {
                    match handshake(&opts) {
                        Ok(w) => got = Some(w),
                        Err(_) => {
                            for _ in 0..20 {
                                if stop.load(Ordering::Acquire) {
                                    break;
                                }
                                std::thread::sleep(Duration::from_millis(50));
                            }
                        }
                    }
                }
                match got {
                    Some(w) => {
                        let t = clock.now();
                        local_log(
                            &tele,
                            t,
                            Machine::Client(w.id),
                            LogLevel::Warning,
                            format!("rejoined the host at {} as client {}", opts.host, w.id),
                        );
                        w
                    }
                    None => return,
                }
            }
        };
        let (mut worker, mut stream, mut inbox, id) = match start_worker(welcomed, &clock, &tele) {
            Ok(x) => x,
            Err(e) => {
                local_log(
                    &tele,
                    clock.now(),
                    me,
                    LogLevel::Error,
                    format!("cannot run the host's preset: {e}"),
                );
                return;
            }
        };
        me = Machine::Client(id);
        if driving.is_some() {
            let _ = worker
                .tx
                .try_send(ThreadCmd::Do(MachineCmd::Drive(driving)));
        }
        let _ = stream.set_read_timeout(Some(Duration::from_millis(5)));
        let mut outbox = Outbox::default();
        let mut batch: Vec<Record> = Vec::new();
        let mut last_sent = clock.now();
        let why: Option<String> = loop {
            if stop.load(Ordering::Acquire) {
                break None;
            }
            match inbox.fill(&mut stream) {
                Ok(true) => {}
                Ok(false) => break Some("the host closed the connection".into()),
                Err(e) => break Some(format!("the connection to the host failed: {e}")),
            }
            let mut leave: Option<Option<String>> = None;
            loop {
                match inbox.next::<Down>() {
                    Ok(Some(Down::Ping {
                        host_t,
                        server_time,
                        rtt,
                    })) => {
                        let got = clock.now();
                        clock.set_server_time(got, server_time + rtt.unwrap_or(0.0) / 2.0);
                        let p_t = clock.now();
                        outbox.push(&Up::Pong {
                            host_t,
                            p_t,
                            held: p_t - got,
                        });
                    }
                    Ok(Some(Down::Cmd(c))) => match (&c, c.to_machine()) {
                        (RemoteCmd::Pause, _) => clock.pause(),
                        (RemoteCmd::Resume, _) => {
                            clock.resume();
                            let _ = worker.tx.try_send(ThreadCmd::Wake);
                        }
                        (_, Some(m)) => {
                            let _ = worker.tx.try_send(ThreadCmd::Do(m));
                        }
                        (_, None) => {}
                    },
                    Ok(Some(Down::Rejoin)) => {
                        leave = Some(None);
                        break;
                    }
                    Ok(Some(Down::Bye { why })) => {
                        local_log(
                            &tele,
                            clock.now(),
                            me,
                            LogLevel::Error,
                            format!("the host removed this participant: {why}"),
                        );
                        stop.store(true, Ordering::Release);
                        leave = Some(None);
                        break;
                    }
                    Ok(Some(Down::Welcome { .. } | Down::Refused { .. })) => {}
                    Ok(None) => break,
                    Err(e) => {
                        leave = Some(Some(format!("the host sent a malformed frame ({e:?})")));
                        break;
                    }
                }
            }
            if let Some(l) = leave {
                break l;
            }
            for d in drive_rx.try_iter() {
                driving = d;
                let _ = worker.tx.try_send(ThreadCmd::Do(MachineCmd::Drive(d)));
            }
            let t = clock.now();
            batch.extend(uplink.try_iter().filter(|r| r.machine == me));
            if !batch.is_empty() && (t - last_sent >= 0.02 || batch.len() >= 2048) {
                for chunk in batch.chunks(2048) {
                    outbox.push(&Up::Records(chunk.to_vec()));
                }
                batch.clear();
                last_sent = t;
            }
            if outbox.buf.len() > MAX_BACKLOG {
                break Some("the host stopped reading".into());
            }
            let _ = stream.set_nonblocking(true);
            let flushed = outbox.flush(&mut stream);
            let _ = stream.set_nonblocking(false);
            if let Err(e) = flushed {
                break Some(format!("the connection to the host failed: {e}"));
            }
        };
        worker.stop();
        if let Some(why) = why {
            local_log(
                &tele,
                clock.now(),
                me,
                LogLevel::Warning,
                format!(
                    "lost the host at {} ({why}); trying to rejoin every second",
                    opts.host
                ),
            );
        }
    }
}

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
