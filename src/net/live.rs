//! Live sessions: the same model run for real. One server thread and one thread per client,
//! each with its own clock, exchanging datagrams through laminar on 127.0.0.1 (see
//! [`crate::net::transport`]). Threads take commands and give telemetry through bounded
//! crossbeam channels; a simulation thread never blocks on the consumer: when the telemetry
//! channel is full the oldest record is dropped and counted.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError, bounded};

use crate::conditions::link::{Link, LinkParams};
use crate::model::binding::Bindings;
use crate::model::input::RawInput;
use crate::model::messages::{Delivery, MsgKind};
use crate::model::server::Server;
use crate::model::telemetry::{Event, LogLevel, Machine, PacketFate, Record};
use crate::net::remote::{HostLink, HostOptions, HostShared, JoinOptions, Participant, RemoteCmd};
use crate::net::transport::{Endpoint, KEEPALIVE_INTERVAL, LinkNote, Roster, TransportEvent};
use crate::session::control::{MachineCmd, Settings, To};
use crate::session::preset::Preset;
use crate::session::setup::{self, packet_record};
use crate::support::rng::{derive_seed, purpose};

/// Records the telemetry channel holds before the oldest are dropped.
pub const TELEMETRY_CAPACITY: usize = 1 << 16;
/// Commands a thread's channel holds.
const COMMAND_CAPACITY: usize = 256;

/// Session time shared by every thread: wall time since the session started, minus pauses.
#[derive(Debug)]
pub struct SessionClock {
    epoch: Instant,
    paused_total_ns: AtomicU64,
    /// Wall nanoseconds since epoch at which the current pause began; 0 when running.
    pause_started_ns: AtomicU64,
    /// Session time (f64 bits) at which the current server started its world clock.
    server_start: AtomicU64,
    /// False on a participant until the host's first ping said the server's time (its
    /// clock-offset samples wait for it).
    server_known: AtomicBool,
}

impl SessionClock {
    pub fn new() -> Self {
        SessionClock {
            epoch: Instant::now(),
            paused_total_ns: AtomicU64::new(0),
            pause_started_ns: AtomicU64::new(0),
            server_start: AtomicU64::new(0f64.to_bits()),
            server_known: AtomicBool::new(true),
        }
    }

    /// A participant's clock: the server's time is not known until the host says it.
    pub fn for_participant() -> Self {
        let c = SessionClock::new();
        c.server_known.store(false, Ordering::Release);
        c
    }

    /// Whether [`SessionClock::server_time`] is known (always, but on a participant before
    /// the host's first ping).
    pub fn server_time_known(&self) -> bool {
        self.server_known.load(Ordering::Acquire)
    }

    fn wall_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// Seconds of session time.
    pub fn now(&self) -> f64 {
        let paused = self.pause_started_ns.load(Ordering::Acquire);
        let at = if paused != 0 { paused } else { self.wall_ns() };
        at.saturating_sub(self.paused_total_ns.load(Ordering::Acquire)) as f64 / 1e9
    }

    /// The `Instant` laminar is told for session time `t` (so pauses do not time out
    /// connections).
    pub fn instant(&self, t: f64) -> Instant {
        self.epoch + Duration::from_secs_f64(t.max(0.0))
    }

    pub fn is_paused(&self) -> bool {
        self.pause_started_ns.load(Ordering::Acquire) != 0
    }

    pub fn pause(&self) {
        if !self.is_paused() {
            self.pause_started_ns
                .store(self.wall_ns().max(1), Ordering::Release);
        }
    }

    pub fn resume(&self) {
        let started = self.pause_started_ns.swap(0, Ordering::AcqRel);
        if started != 0 {
            self.paused_total_ns
                .fetch_add(self.wall_ns().saturating_sub(started), Ordering::AcqRel);
        }
    }

    /// A participant's clock: the host's server said its world time is `server_time` at our
    /// session time `t` (the control channel's estimate).
    pub fn set_server_time(&self, t: f64, server_time: f64) {
        self.server_start
            .store((t - server_time).to_bits(), Ordering::Release);
        self.server_known.store(true, Ordering::Release);
    }

    /// The server's world time at session time `t`.
    pub fn server_time(&self, t: f64) -> f64 {
        t - f64::from_bits(self.server_start.load(Ordering::Acquire))
    }
}

impl Default for SessionClock {
    fn default() -> Self {
        Self::new()
    }
}

/// Telemetry producer that never blocks: when full, drops the oldest record and counts it.
#[derive(Clone)]
pub struct TelemetryTx {
    tx: Sender<Record>,
    oldest: Receiver<Record>,
    dropped: Arc<AtomicU64>,
    /// A participant: a copy of every record for the host (dropped, and counted, when the
    /// link to the host falls behind).
    copy: Option<(Sender<Record>, Arc<AtomicU64>)>,
}

impl TelemetryTx {
    fn new(capacity: usize) -> (TelemetryTx, Receiver<Record>) {
        let (tx, rx) = bounded(capacity);
        (
            TelemetryTx {
                tx,
                oldest: rx.clone(),
                dropped: Arc::new(AtomicU64::new(0)),
                copy: None,
            },
            rx,
        )
    }

    pub fn send(&self, r: Record) {
        if let Some((copy, dropped)) = &self.copy
            && copy.try_send(r.clone()).is_err()
        {
            dropped.fetch_add(1, Ordering::Relaxed);
        }
        let mut r = r;
        loop {
            match self.tx.try_send(r) {
                Ok(()) => return,
                Err(TrySendError::Full(back)) => {
                    if self.oldest.try_recv().is_ok() {
                        self.dropped.fetch_add(1, Ordering::Relaxed);
                    }
                    r = back;
                }
                Err(TrySendError::Disconnected(_)) => return,
            }
        }
    }
}

pub use crate::session::control::{Command, CommandError, Outcome, RESTART_ONLY, restart_keys};

/// What a thread is told: a setting for its machine, or just to wake up.
pub(crate) enum ThreadCmd {
    Do(MachineCmd),
    Wake,
}

pub(crate) struct Worker {
    pub(crate) tx: Sender<ThreadCmd>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
    /// A client's game address (a host takes it off its roster when the client goes).
    addr: Option<SocketAddr>,
}

impl Worker {
    pub(crate) fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        let _ = self.tx.try_send(ThreadCmd::Wake);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// A running live session: every machine in this process on loopback ([`LiveSession::start`]),
/// a host with participants on other machines ([`LiveSession::host`]), or one participant
/// ([`LiveSession::join`]).
pub struct LiveSession {
    /// The session's effective settings and layouts (shared logic with the virtual-time
    /// harness: [`crate::session::control`]).
    settings: Settings,
    clock: Arc<SessionClock>,
    server_addr: SocketAddr,
    /// The server thread (none on a participant: its server is the host's).
    server: Option<Worker>,
    clients: BTreeMap<u16, Worker>,
    /// Clients started after the session began (added or restarted, participants joining):
    /// each gets a new nonce.
    incarnations: Arc<AtomicU32>,
    tele_tx: TelemetryTx,
    tele_rx: Receiver<Record>,
    /// A host: who may send game datagrams to the server, as which client.
    roster: Option<Roster>,
    host: Option<HostLink>,
    participant: Option<Participant>,
}

impl LiveSession {
    /// Starts the server and the preset's clients on loopback.
    pub fn start(preset: &Preset) -> Result<LiveSession, String> {
        let endpoint = Endpoint::bind_loopback(0)
            .map_err(|e| format!("cannot bind the server socket: {e}"))?;
        LiveSession::launch(preset, endpoint, None)
    }

    /// Starts a hosted session: the server and the preset's local clients, and the control
    /// channel on `opts.listen` that admits participants with the join code
    /// ([`crate::net::remote`]). The game channel binds the same address and port when it is free
    /// (else another port on it; participants are told which).
    pub fn host(preset: &Preset, opts: &HostOptions) -> Result<LiveSession, String> {
        let listener = std::net::TcpListener::bind(opts.listen)
            .map_err(|e| format!("cannot listen on {}: {e}", opts.listen))?;
        let control = listener
            .local_addr()
            .map_err(|e| format!("cannot listen on {}: {e}", opts.listen))?;
        let endpoint = Endpoint::bind(control)
            .or_else(|_| Endpoint::bind(SocketAddr::new(control.ip(), 0)))
            .map_err(|e| format!("cannot bind the game socket on {}: {e}", control.ip()))?;
        let roster: Roster = Arc::default();
        let mut s = LiveSession::launch(preset, endpoint, Some(roster.clone()))?;
        let shared = Arc::new(std::sync::Mutex::new(HostShared {
            preset_ron: preset.to_ron(),
            local_ids: s.clients.keys().copied().collect(),
            participants: BTreeMap::new(),
            udp_port: s.server_addr.port(),
        }));
        let code = opts
            .code
            .clone()
            .unwrap_or_else(crate::net::remote::new_code);
        s.host = Some(HostLink::start(
            listener,
            code,
            opts.max_participants,
            crate::net::remote::HostContext {
                clock: s.clock.clone(),
                tele: s.tele_tx.clone(),
                roster,
                incarnations: s.incarnations.clone(),
                shared,
            },
        ));
        Ok(s)
    }

    /// Joins a host as one participant: the handshake happens here (a refusal is the error,
    /// with the host's reason); the session then runs this participant's client against the
    /// host's server, with the host's preset.
    pub fn join(opts: JoinOptions) -> Result<LiveSession, String> {
        let (mut tele_tx, tele_rx) = TelemetryTx::new(TELEMETRY_CAPACITY);
        let (copy_tx, copy_rx) = bounded(TELEMETRY_CAPACITY);
        tele_tx.copy = Some((copy_tx, Arc::new(AtomicU64::new(0))));
        let clock = Arc::new(SessionClock::for_participant());
        let p = Participant::join(opts, clock.clone(), tele_tx.clone(), copy_rx)?;
        let settings = Settings::new(p.preset())?;
        Ok(LiveSession {
            settings,
            clock,
            server_addr: p.server(),
            server: None,
            clients: BTreeMap::new(),
            incarnations: Arc::default(),
            tele_tx,
            tele_rx,
            roster: None,
            host: None,
            participant: Some(p),
        })
    }

    fn launch(
        preset: &Preset,
        endpoint: Endpoint,
        roster: Option<Roster>,
    ) -> Result<LiveSession, String> {
        let settings = Settings::new(preset)?;
        let bindings = settings.initial_bindings().clone();
        let (tele_tx, rx) = TelemetryTx::new(TELEMETRY_CAPACITY);
        let clock = Arc::new(SessionClock::new());
        let server_addr = endpoint.local_addr();
        let server = spawn_server(
            preset,
            bindings.clone(),
            &[],
            endpoint,
            ServerCx {
                clock: clock.clone(),
                tele: tele_tx.clone(),
                roster: roster.clone(),
            },
            0.0,
        );
        let mut s = LiveSession {
            settings,
            clock,
            server_addr,
            server: Some(server),
            clients: BTreeMap::new(),
            incarnations: Arc::default(),
            tele_tx,
            tele_rx: rx,
            roster,
            host: None,
            participant: None,
        };
        for i in preset.network_clients() {
            s.start_client(i, setup::join_time(preset, i), 0)?;
        }
        Ok(s)
    }

    /// A host's control address and join code.
    pub fn hosting(&self) -> Option<(SocketAddr, &str)> {
        self.host.as_ref().map(|h| (h.addr(), h.code()))
    }

    /// A host's participants (every one that joined, connected or not).
    pub fn participants(&self) -> Vec<crate::net::remote::ParticipantInfo> {
        self.host
            .as_ref()
            .map(|h| h.participants())
            .unwrap_or_default()
    }

    /// A participant: its client id and the host's game address.
    pub fn joined(&self) -> Option<(u16, SocketAddr)> {
        self.participant.as_ref().map(|p| (p.id(), p.server()))
    }

    /// Where a local client reaches the server (a host listening on every interface is
    /// reached on loopback).
    fn local_server_addr(&self) -> SocketAddr {
        if self.server_addr.ip().is_unspecified() {
            SocketAddr::new(
                std::net::Ipv4Addr::LOCALHOST.into(),
                self.server_addr.port(),
            )
        } else {
            self.server_addr
        }
    }

    /// The preset as the session runs it now (live changes applied).
    pub fn preset(&self) -> &Preset {
        self.settings.preset()
    }

    pub fn clock(&self) -> &Arc<SessionClock> {
        &self.clock
    }

    pub fn server_addr(&self) -> SocketAddr {
        self.server_addr
    }

    /// The binding list the server uses now: the newest consistent binding change, or the
    /// list the session started with.
    pub fn bindings(&self) -> Arc<Bindings> {
        self.settings.bindings()
    }

    /// Every client of the session: this process's, a host's participants (connected or
    /// not: their pawns stay), or a participant's own.
    pub fn client_ids(&self) -> Vec<u16> {
        if let Some(p) = &self.participant {
            return vec![p.id()];
        }
        let mut ids: Vec<u16> = self.clients.keys().copied().collect();
        ids.extend(self.participants().iter().map(|p| p.id));
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Records dropped because the consumer fell behind.
    pub fn telemetry_dropped(&self) -> u64 {
        self.tele_tx.dropped.load(Ordering::Relaxed)
    }

    /// The telemetry stream (records from all threads, each thread's in time order).
    pub fn telemetry(&self) -> &Receiver<Record> {
        &self.tele_rx
    }

    /// Starts client `id`: `incarnation` 0 for the clients the session starts with, the
    /// session's next number for one added or restarted later.
    fn start_client(&mut self, id: u16, start_delay: f64, incarnation: u32) -> Result<(), String> {
        let server = self.local_server_addr();
        let endpoint = Endpoint::bind(SocketAddr::new(server.ip(), 0))
            .map_err(|e| format!("cannot bind a client socket: {e}"))?;
        if let Some(r) = &self.roster
            && let Ok(mut r) = r.lock()
        {
            if let Some(w) = self.clients.get(&id)
                && let Some(old) = w.addr
            {
                r.remove(&old);
            }
            r.insert(endpoint.local_addr(), id);
        }
        let addr = endpoint.local_addr();
        let mut w = spawn_client(ClientSpawn {
            preset: self.settings.preset(),
            id,
            incarnation,
            bindings: self.settings.client_bindings().clone(),
            layouts: self.settings.client_layouts().to_vec(),
            endpoint,
            server,
            clock: self.clock.clone(),
            tele: self.tele_tx.clone(),
            start: self.clock.now() + start_delay,
        });
        w.addr = Some(addr);
        self.clients.insert(id, w);
        if let Some(h) = &self.host {
            h.set_local_ids(self.clients.keys().copied().collect());
        }
        Ok(())
    }

    fn to_client(&self, id: u16, cmd: ThreadCmd) {
        if let Some(w) = self.clients.get(&id) {
            let _ = w.tx.try_send(cmd);
        } else if let (Some(h), ThreadCmd::Do(c)) = (&self.host, &cmd)
            && let Some(rc) = RemoteCmd::from_machine(c)
        {
            h.send(id, rc);
        }
    }

    fn to_server(&self, cmd: ThreadCmd) {
        if let Some(s) = &self.server {
            let _ = s.tx.try_send(cmd);
        }
    }

    /// A host's participants that are not this process's clients.
    fn remote_ids(&self) -> Vec<u16> {
        self.participants()
            .iter()
            .map(|p| p.id)
            .filter(|id| !self.clients.contains_key(id))
            .collect()
    }

    /// The same command to every client (this process's, and a host's participants).
    fn to_clients(&self, make: impl Fn() -> ThreadCmd) {
        for w in self.clients.values() {
            let _ = w.tx.try_send(make());
        }
        for id in self.remote_ids() {
            self.to_client(id, make());
        }
    }

    /// The same command to the server and every client.
    fn to_everyone(&self, make: impl Fn() -> ThreadCmd) {
        self.to_server(make());
        self.to_clients(make);
    }

    /// What a participant's session does with a command: it drives its own pawn; the
    /// session's settings are the trainer's.
    fn participant_command(&mut self, cmd: Command) -> Result<Outcome, CommandError> {
        let Some(p) = &self.participant else {
            return Ok(Outcome::NoChange);
        };
        match cmd {
            Command::Drive { client, input } if client == p.id() => {
                p.drive(input);
                Ok(Outcome::AppliedNow)
            }
            Command::Drive { client, .. } => Err(CommandError::Refused(format!(
                "a participant drives only its own pawn (client {}), not client {client}",
                p.id()
            ))),
            _ => Err(CommandError::Refused(
                "only the trainer (the host) changes a hosted session".into(),
            )),
        }
    }

    /// Applies `cmd`: validated and planned by the session's [`Settings`] (the same code the
    /// virtual-time harness runs), carried to the threads through their command channels (in
    /// effect at their next loop iteration, a few milliseconds later), and recorded as a
    /// `SessionChanged` record (what changed, from what to what) so recordings show it.
    pub fn command(&mut self, cmd: Command) -> Result<Outcome, CommandError> {
        if self.participant.is_some() {
            return self.participant_command(cmd);
        }
        let ids = self.client_ids();
        let remote = self.remote_ids();
        if matches!(cmd, Command::ChangeBindings { .. }) && !remote.is_empty() {
            return Err(CommandError::Refused(
                "binding changes are not carried to participants on other machines: change bindings before they join".into(),
            ));
        }
        if let Command::Drive { client, .. } = &cmd
            && remote.contains(client)
        {
            return Err(CommandError::Refused(format!(
                "client {client} is a participant's: only they drive their pawn"
            )));
        }
        let planned = self.settings.plan(&cmd, &ids)?;
        match cmd {
            Command::Pause => {
                self.clock.pause();
                if let Some(h) = &self.host {
                    for id in &remote {
                        h.send(*id, RemoteCmd::Pause);
                    }
                }
            }
            Command::Resume => {
                self.clock.resume();
                self.to_everyone(|| ThreadCmd::Wake);
                if let Some(h) = &self.host {
                    for id in &remote {
                        h.send(*id, RemoteCmd::Resume);
                    }
                }
            }
            Command::AddClient => {
                let id = Settings::next_client_id(&ids);
                let n = self.incarnations.fetch_add(1, Ordering::AcqRel) + 1;
                self.start_client(id, 0.0, n)
                    .map_err(CommandError::Socket)?;
            }
            Command::RemoveClient(id) if remote.contains(&id) => {
                if let Some(h) = &self.host {
                    h.remove(id, "the trainer removed this participant from the session");
                }
            }
            Command::RemoveClient(id) => {
                if let Some(mut w) = self.clients.remove(&id) {
                    w.stop();
                }
            }
            Command::RestartClient(id) => self.restart_client(id)?,
            Command::RestartServer => self.restart_server()?,
            _ => {}
        }
        if planned.respawn {
            // A new binding list: new pawns everywhere, as a new build would have.
            self.restart_server()?;
            for id in ids {
                self.restart_client(id)?;
            }
        }
        for (to, c) in planned.sends {
            match to {
                To::Server => self.to_server(ThreadCmd::Do(c)),
                To::Client(id) => self.to_client(id, ThreadCmd::Do(c)),
                To::Clients => self.to_clients(|| ThreadCmd::Do(c.clone())),
                To::Everyone => self.to_everyone(|| ThreadCmd::Do(c.clone())),
            }
        }
        if let Some(h) = &self.host {
            h.set_preset(self.settings.preset());
        }
        if let Some(what) = planned.change {
            self.tele_tx.send(Record {
                t: self.clock.now(),
                machine: Machine::Server,
                event: Event::SessionChanged { what },
            });
        }
        Ok(planned.outcome)
    }

    /// Client `id`'s thread stopped and a new incarnation started (it joins again).
    fn restart_client(&mut self, id: u16) -> Result<(), CommandError> {
        if !self.clients.contains_key(&id)
            && let Some(h) = &self.host
            && h.has(id)
        {
            // A participant's client starts again on its own machine (it joins anew).
            h.rejoin(id);
            return Ok(());
        }
        if let Some(mut w) = self.clients.remove(&id) {
            w.stop();
            if let (Some(r), Some(a)) = (&self.roster, w.addr)
                && let Ok(mut r) = r.lock()
            {
                r.remove(&a);
            }
        }
        let n = self.incarnations.fetch_add(1, Ordering::AcqRel) + 1;
        self.start_client(id, 0.0, n).map_err(CommandError::Socket)
    }

    /// The server thread stopped and a new one started on the same port with the session's
    /// settings and binding layouts (clients rejoin it).
    fn restart_server(&mut self) -> Result<(), CommandError> {
        let Some(server) = self.server.as_mut() else {
            return Err(CommandError::Refused(
                "only the trainer (the host) restarts the server".into(),
            ));
        };
        server.stop();
        let addr = self.server_addr;
        let endpoint = Endpoint::bind(addr).map_err(|e| {
            CommandError::Socket(format!(
                "cannot bind the server socket again on {addr}: {e}"
            ))
        })?;
        let now = self.clock.now();
        self.clock
            .server_start
            .store(now.to_bits(), Ordering::Release);
        self.server = Some(spawn_server(
            self.settings.preset(),
            self.settings.initial_bindings().clone(),
            &self.settings.server_layouts(),
            endpoint,
            ServerCx {
                clock: self.clock.clone(),
                tele: self.tele_tx.clone(),
                roster: self.roster.clone(),
            },
            now,
        ));
        Ok(())
    }

    /// Brings the running session to `target`'s settings with the commands that change what
    /// differs (each recorded as a `SessionChanged`). Settings only a restart can apply
    /// ([`RESTART_ONLY`]) are not applied: the outcome names them, and nothing was changed.
    /// What may change live is decided in one place ([`Settings::commands_to`]).
    pub fn change_to(&mut self, target: &Preset) -> Result<Outcome, CommandError> {
        if self.participant.is_some() {
            return self.participant_command(Command::Pause);
        }
        let cmds = match self.settings.commands_to(target, &self.client_ids())? {
            Ok(cmds) => cmds,
            Err(keys) => return Ok(Outcome::NeedsRestart(keys)),
        };
        let mut outcome = Outcome::NoChange;
        for c in cmds {
            outcome = outcome.max(self.command(c)?);
        }
        self.settings.adopt(target);
        if let Some(h) = &self.host {
            h.set_preset(self.settings.preset());
        }
        Ok(outcome)
    }

    /// Stops every thread and waits for them.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(mut p) = self.participant.take() {
            p.stop();
        }
        if let Some(mut h) = self.host.take() {
            h.stop();
        }
        for w in self.clients.values_mut() {
            w.stop();
        }
        if let Some(s) = self.server.as_mut() {
            s.stop();
        }
    }
}

impl Drop for LiveSession {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// What a stopped machine's error record says (the summary, the app and `run --live` look
/// for it).
pub const STOPPED: &str = "stopped: it panicked";

/// Runs a machine's thread; if it panics, the panic becomes an error record naming the
/// machine and why (the thread ends, the session goes on without it).
fn guarded(me: Machine, tele: &TelemetryTx, clock: &SessionClock, body: impl FnOnce()) {
    if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        let why = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        tele.send(Record {
            t: clock.now(),
            machine: me,
            event: Event::Log {
                level: LogLevel::Error,
                text: format!("{me} {STOPPED}: {why}"),
            },
        });
    }
}

/// Pushes model telemetry as records stamped with session time.
fn forward(tele: &TelemetryTx, machine: Machine, offset: f64, scratch: &mut Vec<(f64, Event)>) {
    for (local, event) in scratch.drain(..) {
        tele.send(Record {
            t: offset + local,
            machine,
            event,
        });
    }
}

/// Reports what the transport's gate dropped since the last call, by kind, as `Rejected`
/// records of machine `me`.
fn report_foreign(
    endpoint: &Endpoint,
    seen: &mut crate::net::transport::DropCounts,
    tele: &TelemetryTx,
    t: f64,
    me: Machine,
) {
    use crate::model::telemetry::Rejection;
    let now = endpoint.drops();
    for (was, is, reason) in [
        (&mut seen.foreign, now.foreign, Rejection::Foreign),
        (
            &mut seen.wrong_source,
            now.wrong_source,
            Rejection::WrongSource,
        ),
        (&mut seen.unadmitted, now.unadmitted, Rejection::Unadmitted),
        (
            &mut seen.rate_limited,
            now.rate_limited,
            Rejection::RateLimited,
        ),
    ] {
        if *was == 0 && is > 0 {
            tele.send(Record {
                t,
                machine: me,
                event: Event::Log {
                    level: LogLevel::Warning,
                    text: format!(
                        "transport: dropping datagrams ({}); the summary counts them",
                        match reason {
                            Rejection::Foreign => "not movescope's",
                            Rejection::WrongSource => "from an unexpected address",
                            Rejection::Unadmitted => "from an address that did not join",
                            _ => "over a sender's rate limit",
                        }
                    ),
                },
            });
        }
        while *was < is {
            *was += 1;
            tele.send(Record {
                t,
                machine: me,
                event: Event::Rejected {
                    reason: reason.clone(),
                },
            });
        }
    }
}

/// While paused: sleeps until a command arrives (or a short timeout, to notice the stop flag).
fn wait(rx: &Receiver<ThreadCmd>) -> Option<ThreadCmd> {
    rx.recv_timeout(Duration::from_millis(20)).ok()
}

/// While running: sleeps until `until` (session time), the next delayed datagram is due, or a
/// datagram arrives, whichever is first. Commands are picked up on the next loop iteration (at
/// most a keep-alive interval later).
fn sleep_until(endpoint: &Endpoint, clock: &SessionClock, until: f64) {
    let until = endpoint.next_due().map_or(until, |d| until.min(d));
    let dt = (until - clock.now()).clamp(0.0, 0.02);
    if dt > 0.0 {
        endpoint.wait_readable(Duration::from_secs_f64(dt));
    }
}

pub(crate) struct ClientSpawn<'a> {
    pub(crate) preset: &'a Preset,
    pub(crate) id: u16,
    pub(crate) incarnation: u32,
    pub(crate) bindings: Arc<Bindings>,
    pub(crate) layouts: Vec<(u8, Arc<Bindings>, bool)>,
    pub(crate) endpoint: Endpoint,
    pub(crate) server: SocketAddr,
    pub(crate) clock: Arc<SessionClock>,
    pub(crate) tele: TelemetryTx,
    pub(crate) start: f64,
}

pub(crate) fn spawn_client(s: ClientSpawn) -> Worker {
    let (tx, rx) = bounded(COMMAND_CAPACITY);
    let stop = Arc::new(AtomicBool::new(false));
    let setup::ClientSetup {
        mut client,
        script,
        mut frames,
        up,
        down: _,
    } = setup::client(s.preset, s.id, s.incarnation, s.bindings, &s.layouts);
    let mut endpoint = s.endpoint;
    // A client hears only its server: anything else is dropped before laminar.
    endpoint.only_from(s.server);
    endpoint.set_link(s.server, Some(up));
    let stop2 = stop.clone();
    let (clock, tele, server, start, id) = (s.clock, s.tele, s.server, s.start, s.id);
    let (guard_tele, guard_clock) = (tele.clone(), clock.clone());
    let handle = std::thread::Builder::new()
        .name(format!("client {id}"))
        .spawn(move || {
            guarded(Machine::Client(id), &guard_tele, &guard_clock, move || {
                let me = Machine::Client(id);
                let mut script = script;
                let mut drive: Option<RawInput> = None;
                let mut events = Vec::new();
                let mut notes: Vec<LinkNote> = Vec::new();
                let mut scratch = Vec::new();
                let mut next_frame = start;
                let mut next_keepalive = start;
                let mut next_sample = start;
                let mut foreign_seen = crate::net::transport::DropCounts::default();
                let mut pending: Option<ThreadCmd> = None;
                while !stop2.load(Ordering::Acquire) {
                    let cmds = pending.take().into_iter().chain(rx.try_iter());
                    for c in cmds.collect::<Vec<_>>() {
                        match c {
                            ThreadCmd::Do(MachineCmd::UpLink(params)) => {
                                if let Some(l) = endpoint.link_mut(&server) {
                                    l.set_params(params);
                                }
                            }
                            ThreadCmd::Do(MachineCmd::Drive(i)) => drive = i,
                            ThreadCmd::Do(c) => c.apply_to_client(&mut client),
                            ThreadCmd::Wake => {}
                        }
                    }
                    if clock.is_paused() {
                        pending = wait(&rx);
                        continue;
                    }
                    let t = clock.now();
                    if t < start {
                        sleep_until(&endpoint, &clock, start);
                        continue;
                    }
                    let local = t - start;
                    endpoint.poll(t, clock.instant(t), &mut events);
                    for ev in events.drain(..) {
                        match ev {
                            TransportEvent::Datagram { bytes, .. } => {
                                let kind = crate::model::wire::kind_of(&bytes);
                                if kind != MsgKind::Transport {
                                    tele.send(packet_record(
                                        t,
                                        Machine::Server,
                                        me,
                                        bytes.len(),
                                        PacketFate::Delivered,
                                        kind,
                                    ));
                                }
                                let _ = client.handle_datagram(local, &bytes);
                            }
                            TransportEvent::TimedOut(_) | TransportEvent::Disconnected(_) => {
                                tele.send(Record {
                                    t,
                                    machine: me,
                                    event: Event::Log {
                                        level: LogLevel::Warning,
                                        text: "transport: the connection to the server timed out"
                                            .into(),
                                    },
                                });
                            }
                            TransportEvent::Connected(_) => {}
                        }
                    }
                    if t >= next_frame {
                        let raw = if client.is_playing() {
                            let scripted = script.sample(local);
                            drive.unwrap_or(scripted)
                        } else {
                            RawInput::default()
                        };
                        client.frame(local, raw);
                        let dt = frames.next_dt();
                        next_frame += dt;
                        if next_frame < t {
                            next_frame = t + dt; // fell behind: do not try to catch up
                        }
                    }
                    while let Some(txm) = client.poll_transmit() {
                        tele.send(packet_record(
                            t,
                            me,
                            Machine::Server,
                            txm.bytes.len(),
                            PacketFate::Sent,
                            txm.kind,
                        ));
                        endpoint.send(server, txm.bytes, txm.delivery == Delivery::Reliable);
                    }
                    if t >= next_keepalive {
                        next_keepalive = t + KEEPALIVE_INTERVAL.as_secs_f64();
                        endpoint.send(
                            server,
                            crate::model::wire::encode_keepalive(&crate::model::wire::Header {
                                sender: id,
                                seq: 0,
                                layout: 0,
                            }),
                            true,
                        );
                    }
                    if t >= next_sample {
                        next_sample = t + crate::sim::harness::CLOCK_SAMPLE_INTERVAL;
                        if client.is_playing() && clock.server_time_known() {
                            tele.send(Record {
                                t,
                                machine: me,
                                event: Event::ClockOffset {
                                    offset: client.synced_time(local) - clock.server_time(t),
                                },
                            });
                        }
                    }
                    endpoint.poll(t, clock.instant(t), &mut events);
                    endpoint.take_notes(&mut notes);
                    for n in notes.drain(..) {
                        if n.fate != PacketFate::Sent {
                            tele.send(packet_record(
                                t,
                                me,
                                Machine::Server,
                                n.bytes,
                                n.fate,
                                MsgKind::Transport,
                            ));
                        }
                    }
                    report_foreign(&endpoint, &mut foreign_seen, &tele, t, me);
                    client.drain_telemetry(&mut scratch);
                    forward(&tele, me, start, &mut scratch);
                    sleep_until(&endpoint, &clock, next_frame.min(next_keepalive));
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

/// What a server thread shares with its session.
struct ServerCx {
    clock: Arc<SessionClock>,
    tele: TelemetryTx,
    /// A host: the addresses admitted, and the client each may speak for.
    roster: Option<Roster>,
}

fn spawn_server(
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
    } = cx;
    let mut endpoint = endpoint;
    if let Some(r) = &roster {
        endpoint.admit_only(r.clone());
    }
    let (tx, rx) = bounded(COMMAND_CAPACITY);
    let stop = Arc::new(AtomicBool::new(false));
    let mut server = Server::new(p.server_config(bindings));
    for (v, b) in layouts {
        server.define_layout(*v, b.clone());
        server.use_layout(*v);
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
                let mut events = Vec::new();
                let mut notes: Vec<LinkNote> = Vec::new();
                let mut scratch = Vec::new();
                let mut next_frame = start;
                let mut next_keepalive = start;
                let mut foreign_seen = crate::net::transport::DropCounts::default();
                let mut pending: Option<ThreadCmd> = None;
                while !stop2.load(Ordering::Acquire) {
                    let cmds = pending.take().into_iter().chain(rx.try_iter());
                    for c in cmds.collect::<Vec<_>>() {
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
                    if clock.is_paused() {
                        pending = wait(&rx);
                        continue;
                    }
                    let t = clock.now();
                    let local = t - start;
                    endpoint.poll(t, clock.instant(t), &mut events);
                    for ev in events.drain(..) {
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
                                if foreign_claim
                                    || kind != MsgKind::Join
                                        && claimed
                                            .and_then(|c| addr_of.get(&c))
                                            .is_some_and(|a| *a != from)
                                {
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
                    endpoint.poll(t, clock.instant(t), &mut events);
                    endpoint.take_notes(&mut notes);
                    for n in notes.drain(..) {
                        if n.fate != PacketFate::Sent {
                            let to = addr_of
                                .iter()
                                .find(|(_, a)| **a == n.to)
                                .map_or(Machine::Server, |(id, _)| Machine::Client(*id));
                            tele.send(packet_record(
                                t,
                                Machine::Server,
                                to,
                                n.bytes,
                                n.fate,
                                MsgKind::Transport,
                            ));
                        }
                    }
                    report_foreign(&endpoint, &mut foreign_seen, &tele, t, Machine::Server);
                    server.drain_telemetry(&mut scratch);
                    forward(&tele, Machine::Server, start, &mut scratch);
                    sleep_until(&endpoint, &clock, next_frame.min(next_keepalive));
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

/// Runs a preset live for `seconds` of wall time and returns its summary (`mode: "live"`).
/// `on_record` sees every telemetry record.
pub fn run_live(
    preset: &Preset,
    preset_name: &str,
    seconds: f64,
    on_record: &mut dyn FnMut(&Record),
) -> Result<crate::session::summary::Summary, String> {
    let started = Instant::now();
    let session = LiveSession::start(preset)?;
    run_session(session, started, preset_name, seconds, on_record)
}

/// Runs a started session (local, hosted or joined) until `seconds` of wall time after
/// `started`, and returns its summary (`mode: "live"`; a host's covers every participant, a
/// participant's its own client). `on_record` sees every telemetry record.
pub fn run_session(
    session: LiveSession,
    started: Instant,
    preset_name: &str,
    seconds: f64,
    on_record: &mut dyn FnMut(&Record),
) -> Result<crate::session::summary::Summary, String> {
    let preset = session.preset().clone();
    let rx = session.telemetry().clone();
    let mut builder = crate::session::summary::SummaryBuilder::for_clients(session.client_ids());
    let deadline = started + Duration::from_secs_f64(seconds);
    // Drain in batches every few milliseconds rather than waking for every record: the
    // simulation threads share two cores with this consumer.
    loop {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(10)));
        for r in rx.try_iter() {
            builder.record(&r);
            on_record(&r);
        }
    }
    let simulated = session.clock().now();
    let dropped = session.telemetry_dropped();
    session.stop();
    while let Ok(r) = rx.try_recv() {
        builder.record(&r);
        on_record(&r);
    }
    let mut summary = builder.finish(
        "live",
        preset_name,
        preset.seed,
        simulated,
        started.elapsed().as_secs_f64(),
    );
    summary.note_dropped(dropped);
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_machine_becomes_an_error_record_naming_it() {
        let (tele, rx) = TelemetryTx::new(16);
        let clock = SessionClock::new();
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        guarded(Machine::Client(2), &tele, &clock, || {
            panic!("a bad value");
        });
        std::panic::set_hook(prev);
        let r = rx.try_recv().expect("an error record");
        assert_eq!(r.machine, Machine::Client(2));
        match r.event {
            Event::Log { level, text } => {
                assert_eq!(level, LogLevel::Error);
                assert_eq!(text, format!("client 2 {STOPPED}: a bad value"));
            }
            other => panic!("{other:?}"),
        }
        // A thread that ends normally says nothing.
        guarded(Machine::Server, &tele, &clock, || {});
        assert!(rx.try_recv().is_err());
    }
}
