//! Live sessions: the same model run for real. One server thread and one thread per client,
//! each with its own clock, exchanging datagrams through laminar on 127.0.0.1 (see
//! [`crate::net::transport`]). Threads take commands and give telemetry through bounded
//! crossbeam channels; a simulation thread never blocks on the consumer: when the telemetry
//! channel is full the oldest record is dropped and counted.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, bounded};

use crate::model::binding::Bindings;
use crate::model::telemetry::{Event, Machine, Record};
use crate::net::remote::{
    HostLink, HostOptions, HostShared, JoinError, JoinOptions, Participant, RemoteCmd,
};
use crate::net::transport::{Departures, Endpoint, Roster};
use crate::session::control::{Settings, To};
use crate::session::preset::{BindingsError, Preset};
use crate::session::setup::{self};

use crate::net::client_thread::ClientSpawn;
use crate::net::client_thread::spawn_client;
use crate::net::runtime::SessionClock;
use crate::net::runtime::TELEMETRY_CAPACITY;
use crate::net::runtime::TelemetryTx;
use crate::net::runtime::ThreadCmd;
use crate::net::runtime::Worker;
use crate::net::server_thread::ServerCx;
use crate::net::server_thread::spawn_server;

pub use crate::net::runtime::STOPPED;
pub use crate::session::control::{Command, CommandError, Outcome, RESTART_ONLY, restart_keys};

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
    /// each gets the session's next incarnation.
    incarnations: Arc<AtomicU32>,
    /// The join secret every client of this session carries (drawn when the session starts;
    /// a participant has its host's).
    secret: u64,
    tele_tx: TelemetryTx,
    tele_rx: Receiver<Record>,
    /// A host: who may send game datagrams to the server, as which client.
    roster: Option<Roster>,
    /// A host: participants that said they leave, for the server thread.
    departures: Option<Departures>,
    host: Option<HostLink>,
    participant: Option<Participant>,
}

/// Why a live session could not start. Each variant names the address it could not use (and
/// the io error), or says what was wrong with the preset or the handshake; the text is what
/// the CLI prints.
#[derive(Debug, thiserror::Error)]
pub enum SessionStartError {
    #[error("cannot bind the server socket on {}: {source}", addr.ip())]
    ServerSocket {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// A host's control channel.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// A host's game channel (neither the control channel's port nor another on its address).
    #[error("cannot bind the game socket on {ip}: {source}")]
    GameSocket {
        ip: std::net::IpAddr,
        source: std::io::Error,
    },
    #[error("cannot bind a client socket on {ip}: {source}")]
    ClientSocket {
        client: u16,
        ip: std::net::IpAddr,
        source: std::io::Error,
    },
    /// The preset is invalid (the key and what it expected).
    #[error(transparent)]
    Preset(#[from] BindingsError),
    /// A participant's handshake failed (the host's address and why).
    #[error(transparent)]
    Join(#[from] JoinError),
}

/// The CLI reports errors as text; `?` turns a start error into its message.
impl From<SessionStartError> for String {
    fn from(e: SessionStartError) -> String {
        e.to_string()
    }
}

impl LiveSession {
    /// Starts the server and the preset's clients on loopback.
    pub fn start(preset: &Preset) -> Result<LiveSession, SessionStartError> {
        let addr = SocketAddr::from(([127, 0, 0, 1], 0));
        let endpoint = Endpoint::bind(addr)
            .map_err(|source| SessionStartError::ServerSocket { addr, source })?;
        LiveSession::launch(preset, endpoint, None)
    }

    /// Starts a hosted session: the server and the preset's local clients, and the control
    /// channel on `opts.listen` that admits participants with the join code
    /// ([`crate::net::remote`]). The game channel binds the same address and port when it is free
    /// (else another port on it; participants are told which).
    pub fn host(preset: &Preset, opts: &HostOptions) -> Result<LiveSession, SessionStartError> {
        let listen = |source| SessionStartError::Listen {
            addr: opts.listen,
            source,
        };
        let listener = std::net::TcpListener::bind(opts.listen).map_err(listen)?;
        let control = listener.local_addr().map_err(listen)?;
        let endpoint = Endpoint::bind(control)
            .or_else(|_| Endpoint::bind(SocketAddr::new(control.ip(), 0)))
            .map_err(|source| SessionStartError::GameSocket {
                ip: control.ip(),
                source,
            })?;
        let roster: Roster = Arc::default();
        let mut s = LiveSession::launch(preset, endpoint, Some(roster.clone()))?;
        let shared = Arc::new(std::sync::Mutex::new(HostShared {
            preset_ron: preset.to_ron(),
            local_ids: s.clients.keys().copied().collect(),
            participants: BTreeMap::new(),
            udp_port: s.server_addr.port(),
            names_version: 0,
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
                secret: s.secret,
                shared,
                departures: s.departures.clone().unwrap_or_default(),
            },
        ));
        Ok(s)
    }

    /// Joins a host as one participant: the handshake happens here (a refusal is the error,
    /// with the host's reason); the session then runs this participant's client against the
    /// host's server, with the host's preset.
    pub fn join(opts: JoinOptions) -> Result<LiveSession, SessionStartError> {
        let (mut tele_tx, tele_rx) = TelemetryTx::new(TELEMETRY_CAPACITY);
        let (copy_tx, copy_rx) = bounded(TELEMETRY_CAPACITY);
        tele_tx.copy = Some((copy_tx, Arc::new(AtomicU64::new(0))));
        let clock = Arc::new(SessionClock::for_participant());
        let (host, name) = (opts.host, opts.name.clone());
        let p = Participant::join(opts, clock.clone(), tele_tx.clone(), copy_rx)?;
        let settings = Settings::new(p.preset())?;
        // This window's own record of who it is (views name its client by it); not sent to
        // the host, which logged the join itself.
        let name = name.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
        let _ = tele_tx.tx.try_send(Record {
            t: clock.now(),
            machine: Machine::Client(p.id()),
            event: Event::SessionChanged {
                what: format!(
                    "{} joined the session hosted at {host}",
                    crate::session::store::describe_participant(p.id(), name.as_deref())
                ),
            },
        });
        Ok(LiveSession {
            settings,
            clock,
            server_addr: p.server(),
            server: None,
            clients: BTreeMap::new(),
            incarnations: Arc::default(),
            secret: p.secret(),
            tele_tx,
            tele_rx,
            roster: None,
            departures: None,
            host: None,
            participant: Some(p),
        })
    }

    fn launch(
        preset: &Preset,
        endpoint: Endpoint,
        roster: Option<Roster>,
    ) -> Result<LiveSession, SessionStartError> {
        let settings = Settings::new(preset)?;
        let bindings = settings.initial_bindings().clone();
        let secret = draw_secret();
        let departures: Option<Departures> = roster.as_ref().map(|_| Arc::default());
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
                secret,
                departures: departures.clone(),
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
            secret,
            tele_tx,
            tele_rx: rx,
            roster,
            departures,
            host: None,
            participant: None,
        };
        for i in preset.network_clients() {
            s.start_client(i, setup::join_time(preset, i), 0)
                .map_err(|(ip, source)| SessionStartError::ClientSocket {
                    client: i,
                    ip,
                    source,
                })?;
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

    /// A participant: takes the preset its host sent after the trainer changed the session
    /// (or after a rejoin), so [`Self::preset`] — and the panes that show it — hold the
    /// settings in force, not the ones it joined with. True if it took one.
    pub fn follow_host(&mut self) -> bool {
        let Some(p) = self
            .participant
            .as_ref()
            .and_then(|p| p.take_newer_preset())
        else {
            return false;
        };
        match Settings::new(&p) {
            Ok(s) => {
                self.settings = s;
                true
            }
            Err(_) => false,
        }
    }

    pub fn clock(&self) -> &Arc<SessionClock> {
        &self.clock
    }

    /// The session's join secret, from which each client's own key is derived (tests make a
    /// client's join byte for byte with it). A participant holds its own key only.
    pub fn join_secret(&self) -> u64 {
        self.secret
    }

    /// Client `id`'s join key: derived from the session's secret, or a participant's own as
    /// its host gave it.
    fn client_key(&self, id: u16) -> u64 {
        if self.participant.is_some() {
            self.secret
        } else {
            crate::model::messages::client_key(self.secret, id)
        }
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
    /// session's next number for one added or restarted later. `Err`: the address its socket
    /// could not bind on, and why.
    fn start_client(
        &mut self,
        id: u16,
        start_delay: f64,
        incarnation: u32,
    ) -> Result<(), (std::net::IpAddr, std::io::Error)> {
        let server = self.local_server_addr();
        let endpoint =
            Endpoint::bind(SocketAddr::new(server.ip(), 0)).map_err(|e| (server.ip(), e))?;
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
            key: self.client_key(id),
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
        let bindings_before = self.bindings();
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
                self.start_client(id, 0.0, n).map_err(client_socket)?;
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
            // A new binding list: new pawns everywhere, as a new build would have. Every
            // local client stops before the new server starts: a client of the old session
            // still sending would be answered with a reset, rejoin from its old address and
            // take the place its new start then could not.
            let restarted: Vec<u16> = ids
                .iter()
                .copied()
                .filter(|id| self.stop_local_client(*id))
                .collect();
            self.restart_server()?;
            for id in ids {
                if restarted.contains(&id) {
                    self.start_again(id)?;
                } else {
                    self.restart_client(id)?;
                }
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
            let t = self.clock.now();
            self.tele_tx.send(Record {
                t,
                machine: Machine::Server,
                event: Event::SessionChanged { what },
            });
            let now = self.bindings();
            if now.list() != bindings_before.list() {
                self.tele_tx.send(Record {
                    t,
                    machine: Machine::Server,
                    event: Event::BindingsInForce {
                        list: Arc::new(now.list().to_vec()),
                    },
                });
            }
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
        self.stop_local_client(id);
        self.start_again(id)
    }

    /// Stops client `id`'s thread (and takes its address off the roster); false when it is
    /// not a client of this process.
    fn stop_local_client(&mut self, id: u16) -> bool {
        let Some(mut w) = self.clients.remove(&id) else {
            return false;
        };
        w.stop();
        if let (Some(r), Some(a)) = (&self.roster, w.addr)
            && let Ok(mut r) = r.lock()
        {
            r.remove(&a);
        }
        true
    }

    /// Starts client `id` again as its next incarnation (it joins anew).
    fn start_again(&mut self, id: u16) -> Result<(), CommandError> {
        let n = self.incarnations.fetch_add(1, Ordering::AcqRel) + 1;
        self.start_client(id, 0.0, n).map_err(client_socket)
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
                secret: self.secret,
                departures: self.departures.clone(),
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

/// A client socket that could not be bound refuses the command that needed it.
fn client_socket((ip, e): (std::net::IpAddr, std::io::Error)) -> CommandError {
    CommandError::Socket(format!("cannot bind a client socket on {ip}: {e}"))
}

impl Drop for LiveSession {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Runs a preset live for `seconds` of wall time and returns its summary (`mode: "live"`).
/// `on_record` sees every telemetry record.
pub fn run_live(
    preset: &Preset,
    preset_name: &str,
    seconds: f64,
    on_record: &mut dyn FnMut(&Record),
) -> Result<crate::session::summary::Summary, SessionStartError> {
    let started = Instant::now();
    let session = LiveSession::start(preset)?;
    Ok(run_session(
        session,
        started,
        preset_name,
        seconds,
        on_record,
    ))
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
) -> crate::session::summary::Summary {
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
    summary.judge_pacing(&preset);
    summary
}

/// A session's join secret: 64 bits from the standard library's per-process random hash keys
/// (drawn from the operating system), mixed with the time and process id. Not a cryptographic
/// credential: it keeps strangers' and replayed joins out of a local session, whose server and
/// clients share it in memory (docs/live.md).
fn draw_secret() -> u64 {
    use std::hash::BuildHasher;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    std::collections::hash_map::RandomState::new().hash_one((nanos, std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::telemetry::LogLevel;
    use crate::net::runtime::guarded;

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
