//! The host's side of a session across machines: the link thread that accepts control
//! connections, checks join codes, puts participants on the server's roster (each only as its
//! own client), carries settings down and telemetry up, and logs every refusal.

use crate::model::telemetry::{Event, LogLevel, Machine, Record, Rejection};
use crate::net::remote::DEFAULT_MAX_PARTICIPANTS;
use crate::net::remote::DEFAULT_PORT;
use crate::net::remote::Down;
use crate::net::remote::Inbox;
use crate::net::remote::MAX_BACKLOG;
use crate::net::remote::MAX_HANDSHAKING;
use crate::net::remote::MAX_HANDSHAKING_PER_ADDR;
use crate::net::remote::Outbox;
use crate::net::remote::PING_INTERVAL;
use crate::net::remote::RemoteCmd;
use crate::net::remote::wait_readable;
use crate::net::runtime::{SessionClock, TelemetryTx};
use crate::net::transport::{Departures, Roster};
use crate::session::preset::Preset;
use crossbeam_channel::{Receiver, Sender, bounded};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

mod serve;
use self::serve::serve;

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
    /// Bumped whenever a participant joins: the link thread then sends every connected
    /// participant the names (`Down::Names`).
    pub names_version: u64,
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
    /// The session's join secret, given to each admitted participant.
    pub secret: u64,
    pub shared: Arc<Mutex<HostShared>>,
    /// Participants that said they leave, for the server to remove at once.
    pub departures: Departures,
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

    /// The preset participants get when they join from now on; the connected ones get it
    /// too when it changed, so their panes show the session's settings.
    pub fn set_preset(&self, p: &Preset) {
        let ron = p.to_ron();
        let Ok(mut s) = self.shared.lock() else {
            return;
        };
        if s.preset_ron == ron {
            return;
        }
        for q in s.participants.values().filter(|q| q.connected) {
            let _ = self.tx.try_send((
                q.id,
                Down::Preset {
                    preset: ron.clone(),
                },
            ));
        }
        s.preset_ron = ron;
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

pub(crate) enum ConnState {
    /// Waiting for the magic and the handshake.
    Handshaking {
        since: f64,
        magic_ok: bool,
    },
    Joined(Joined),
    /// The participant said it leaves: the connection closes without another word.
    Left,
}

/// A joined participant's connection: its clock offset, round trip and pings, and the rate
/// limit on its records.
pub(crate) struct Joined {
    id: u16,
    /// Host session time − participant session time.
    offset: f64,
    last_ping: f64,
    rtt: Option<f64>,
    tokens: f64,
    last_t: f64,
    /// Records that came before the first pong (their offset is not known yet).
    early: Vec<Record>,
}

/// Records a participant's connection holds until its clock offset is known.
pub(crate) const MAX_EARLY: usize = 100_000;

pub(crate) struct Conn {
    stream: TcpStream,
    peer: SocketAddr,
    inbox: Inbox,
    outbox: Outbox,
    state: ConnState,
    /// Close once the outbox is written (a refusal).
    closing: bool,
}

pub(crate) fn log(t: f64, level: LogLevel, text: String) -> Record {
    Record {
        t,
        machine: Machine::Server,
        event: Event::Log { level, text },
    }
}

pub(crate) fn changed(t: f64, what: String) -> Record {
    Record {
        t,
        machine: Machine::Server,
        event: Event::SessionChanged { what },
    }
}

pub(crate) fn rejected(t: f64, reason: Rejection) -> Record {
    Record {
        t,
        machine: Machine::Server,
        event: Event::Rejected { reason },
    }
}

pub(crate) fn host_loop(
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
    let mut names_sent = 0u64;
    let tele = &cx.tele;
    while !stop.load(Ordering::Acquire) {
        {
            let streams: Vec<&TcpStream> = conns.iter().map(|c| &c.stream).collect();
            wait_readable(&listener, &streams, Duration::from_millis(5));
        }
        let t = cx.clock.now();
        // New connections.
        while let Ok((stream, peer)) = listener.accept() {
            if !make_room(&mut conns, peer.ip()) || stream.set_nonblocking(true).is_err() {
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
                .find(|c| matches!(&c.state, ConnState::Joined(j) if j.id == id))
            {
                if matches!(msg, Down::Bye { .. }) {
                    c.closing = true;
                }
                c.outbox.push(&msg);
            }
        }
        // Who is who, to every participant, after someone joined.
        if let Ok(s) = cx.shared.lock()
            && s.names_version != names_sent
        {
            names_sent = s.names_version;
            let names: Vec<(u16, String)> = s
                .participants
                .values()
                .filter_map(|p| Some((p.id, p.name.clone()?)))
                .collect();
            for c in &mut conns {
                if matches!(c.state, ConnState::Joined(_)) && !c.closing {
                    c.outbox.push(&Down::Names {
                        names: names.clone(),
                    });
                }
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
                gone.push((i, why.to_string()));
                continue;
            }
            if let ConnState::Joined(j) = &mut c.state
                && t - j.last_ping >= PING_INTERVAL
            {
                j.last_ping = t;
                if let Ok(mut s) = cx.shared.lock()
                    && let Some(p) = s.participants.get_mut(&j.id)
                {
                    p.control_in = c.inbox.total;
                    p.control_out = c.outbox.total;
                }
                c.outbox.push(&Down::Ping {
                    host_t: t,
                    server_time: cx.clock.server_time(t),
                    rtt: j.rtt,
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
            if let ConnState::Joined(Joined { id, .. }) = c.state {
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

/// Whether a new control connection from `ip` may start its handshake: at most
/// [`MAX_HANDSHAKING_PER_ADDR`] from one address wait at once, and when [`MAX_HANDSHAKING`]
/// wait in all, the oldest waiting connection of the address holding the most slots gives its
/// place up (connections that send nothing cannot keep a participant from another address
/// out; each is closed [`HELLO_TIMEOUT`](crate::net::remote::HELLO_TIMEOUT) after it was accepted in any case).
pub(crate) fn make_room(conns: &mut Vec<Conn>, ip: IpAddr) -> bool {
    let mut waiting: HashMap<IpAddr, usize> = HashMap::new();
    for c in conns.iter() {
        if matches!(c.state, ConnState::Handshaking { .. }) && !c.closing {
            *waiting.entry(c.peer.ip()).or_default() += 1;
        }
    }
    if waiting.get(&ip).copied().unwrap_or(0) >= MAX_HANDSHAKING_PER_ADDR {
        return false;
    }
    if waiting.values().sum::<usize>() < MAX_HANDSHAKING {
        return true;
    }
    let Some((&hog, _)) = waiting.iter().max_by_key(|(a, n)| (**n, **a != ip)) else {
        return false;
    };
    if hog == ip {
        return false;
    }
    match conns
        .iter()
        .position(|c| c.peer.ip() == hog && matches!(c.state, ConnState::Handshaking { .. }))
    {
        Some(i) => {
            conns.remove(i);
            true
        }
        None => false,
    }
}

pub(crate) fn describe(id: u16, name: Option<&str>) -> String {
    crate::session::store::describe_participant(id, name)
}

/// A participant's control connection closed: it stays known (its pawn stays on the server,
/// and its name gets the same id back), its game address leaves the roster.
pub(crate) fn leave(cx: &HostContext, id: u16) -> Option<String> {
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

// ---------------------------------------------------------------------------------------
// The participant side.
