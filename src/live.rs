//! Live sessions: the same model run for real. One server thread and one thread per client,
//! each with its own clock, exchanging datagrams through laminar on 127.0.0.1 (see
//! [`crate::transport`]). Threads take commands and give telemetry through bounded
//! crossbeam channels; a simulation thread never blocks on the consumer: when the telemetry
//! channel is full the oldest record is dropped and counted.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError, bounded};

use crate::model::binding::Bindings;
use crate::model::client::Client;
use crate::model::input::{InputScript, RawInput};
use crate::model::messages::{Delivery, MsgKind};
use crate::model::server::Server;
use crate::model::settings::{Faults, GmcSettings, SmoothingSettings, WorldSettings};
use crate::model::telemetry::{Event, LogLevel, Machine, PacketFate, Record};
use crate::preset::{Direction, Preset};
use crate::rng::{Rng, derive_seed, purpose};
use crate::sim::link::{Link, LinkParams};
use crate::transport::{Endpoint, KEEPALIVE_INTERVAL, LinkNote, TransportEvent};

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
}

impl SessionClock {
    pub fn new() -> Self {
        SessionClock {
            epoch: Instant::now(),
            paused_total_ns: AtomicU64::new(0),
            pause_started_ns: AtomicU64::new(0),
            server_start: AtomicU64::new(0f64.to_bits()),
        }
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
}

impl TelemetryTx {
    pub fn send(&self, r: Record) {
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

/// What the outside can change while a session runs.
#[derive(Clone, Debug)]
pub enum Command {
    /// One client's link in one or both directions.
    SetLink {
        client: u16,
        direction: Direction,
        params: LinkParams,
    },
    SetGmc(GmcSettings),
    /// Pitfall switches that live in the tick (binding mistakes go through `ChangeBindings`).
    SetFaults(Faults),
    SetWorld(WorldSettings),
    /// Smoothing of simulated proxies.
    SetSmoothing(SmoothingSettings),
    /// State updates per second to proxies.
    SetNetUpdateRate(f64),
    /// Switch the hook trace on or off everywhere.
    HookTrace(bool),
    /// Switch the value trace on or off everywhere.
    ValueTrace(bool),
    /// A new binding list. Consistent: server and clients switch at the next move boundary.
    /// Not consistent: only the clients change (the pitfall).
    ChangeBindings {
        bindings: Bindings,
        consistent: bool,
    },
    Pause,
    Resume,
    AddClient,
    /// Stops a client cleanly; the server drops it after its connection timeout.
    RemoveClient(u16),
    /// Kills a client and starts it again with a fresh socket and nonce (it rejoins).
    RestartClient(u16),
    /// Stops the server and starts a new one on the same port (clients rejoin).
    RestartServer,
    /// Drive a client's pawn from outside (keyboard) instead of its input script; `None`
    /// hands it back to the script.
    Drive {
        client: u16,
        input: Option<RawInput>,
    },
}

/// What a command did to the running session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing changed: the session already ran with that value.
    NoChange,
    /// In effect at the threads' next loop iteration (a few milliseconds).
    AppliedNow,
    /// In effect at the next move boundary (binding lists switch between moves).
    AtNextMoveBoundary,
    /// These settings only take effect in a new session: nothing was applied.
    NeedsRestart(Vec<String>),
}

impl Outcome {
    /// The stronger of two outcomes (a restart over a move boundary over now over nothing).
    fn max(self, other: Outcome) -> Outcome {
        fn rank(o: &Outcome) -> u8 {
            match o {
                Outcome::NoChange => 0,
                Outcome::AppliedNow => 1,
                Outcome::AtNextMoveBoundary => 2,
                Outcome::NeedsRestart(_) => 3,
            }
        }
        if rank(&other) > rank(&self) {
            other
        } else {
            self
        }
    }

    /// In words, for editors and the status line.
    pub fn describe(&self) -> String {
        match self {
            Outcome::NoChange => "no change".into(),
            Outcome::AppliedNow => "applied now".into(),
            Outcome::AtNextMoveBoundary => "applies at the next move boundary".into(),
            Outcome::NeedsRestart(keys) => {
                format!("needs a restart ({})", keys.join(", "))
            }
        }
    }
}

/// Why a command was refused. Nothing was changed.
#[derive(Clone, Debug, PartialEq)]
pub enum CommandError {
    /// A value preset validation refuses: the key and what it expected.
    Invalid {
        key: String,
        expected: String,
    },
    NoSuchClient(u16),
    /// At most 64 clients.
    TooManyClients,
    /// At most 255 binding changes in one session (the layout version is a byte).
    TooManyLayouts,
    /// A socket could not be bound.
    Socket(String),
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommandError::Invalid { key, expected } => {
                write!(f, "refused: `{key}`: expected {expected}")
            }
            CommandError::NoSuchClient(c) => write!(f, "refused: there is no client {c}"),
            CommandError::TooManyClients => write!(f, "refused: at most 64 clients"),
            CommandError::TooManyLayouts => {
                write!(f, "refused: too many binding changes in one session (255)")
            }
            CommandError::Socket(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CommandError {}

fn invalid((key, expected): (String, String)) -> CommandError {
    CommandError::Invalid { key, expected }
}

/// Settings a running session cannot change: a new session (restart) applies them.
pub const RESTART_ONLY: [&str; 13] = [
    "net_mode",
    "clients",
    "ai_pawns",
    "client_fps",
    "client_fps_jitter",
    "server_fps",
    "seed",
    "join_interval_s",
    "world_time_replicators",
    "world_view_rate",
    "input",
    "ai_input",
    "client_overrides",
];

/// Which restart-only settings differ between two presets (top-level keys).
pub fn restart_keys(a: &Preset, b: &Preset) -> Vec<String> {
    let (Ok(serde_json::Value::Object(x)), Ok(serde_json::Value::Object(y))) =
        (serde_json::to_value(a), serde_json::to_value(b))
    else {
        return Vec::new();
    };
    RESTART_ONLY
        .iter()
        .filter(|k| x.get(**k) != y.get(**k))
        .map(|k| k.to_string())
        .collect()
}

enum ThreadCmd {
    SetSmoothing(SmoothingSettings),
    SetNetUpdateRate(f64),
    HookTrace(bool),
    ValueTrace(bool),
    SetLink(LinkParams),
    SetClientLink {
        client: u16,
        params: LinkParams,
    },
    SetGmc(GmcSettings),
    SetFaults(Faults),
    SetWorld(WorldSettings),
    DefineLayout {
        version: u8,
        bindings: Arc<Bindings>,
        select: bool,
    },
    Drive(Option<RawInput>),
    Wake,
}

struct Worker {
    tx: Sender<ThreadCmd>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Worker {
    fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        let _ = self.tx.try_send(ThreadCmd::Wake);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// A running live session.
pub struct LiveSession {
    preset: Preset,
    clock: Arc<SessionClock>,
    server_addr: SocketAddr,
    server: Worker,
    clients: BTreeMap<u16, Worker>,
    nonces: u32,
    layout_version: u8,
    /// The binding list the session started with (layout version 0).
    initial_bindings: Arc<Bindings>,
    /// The list clients start with (differs only under `faults.binding_mismatch`).
    client_bindings: Arc<Bindings>,
    /// Layouts defined since, in order: (version, list, selected). Unselected entries are
    /// client-only redefinitions (the pitfall).
    client_layouts: Vec<(u8, Arc<Bindings>, bool)>,
    tele_tx: TelemetryTx,
    tele_rx: Receiver<Record>,
}

impl LiveSession {
    /// Starts the server and the preset's clients on loopback.
    pub fn start(preset: &Preset) -> Result<LiveSession, String> {
        let bindings = Arc::new(preset.checked_bindings()?);
        let (tx, rx) = bounded(TELEMETRY_CAPACITY);
        let tele_tx = TelemetryTx {
            tx,
            oldest: rx.clone(),
            dropped: Arc::new(AtomicU64::new(0)),
        };
        let clock = Arc::new(SessionClock::new());
        let endpoint = Endpoint::bind_loopback(0)
            .map_err(|e| format!("cannot bind the server socket: {e}"))?;
        let server_addr = endpoint.local_addr();
        let server = spawn_server(
            preset,
            bindings.clone(),
            &[],
            endpoint,
            clock.clone(),
            tele_tx.clone(),
            0.0,
        );
        let mut s = LiveSession {
            preset: preset.clone(),
            clock,
            server_addr,
            server,
            clients: BTreeMap::new(),
            nonces: 0,
            layout_version: 0,
            initial_bindings: bindings,
            client_bindings: Arc::new(preset.client_bindings()?),
            client_layouts: Vec::new(),
            tele_tx,
            tele_rx: rx,
        };
        for i in preset.network_clients() {
            let start = f64::from(i + 1) * preset.join_interval_s;
            s.start_client(i, start)?;
        }
        Ok(s)
    }

    /// The preset as the session runs it now (live changes applied).
    pub fn preset(&self) -> &Preset {
        &self.preset
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
        self.client_layouts
            .iter()
            .rev()
            .find(|(_, _, consistent)| *consistent)
            .map_or_else(|| self.initial_bindings.clone(), |(_, b, _)| b.clone())
    }

    pub fn client_ids(&self) -> Vec<u16> {
        self.clients.keys().copied().collect()
    }

    /// Records dropped because the consumer fell behind.
    pub fn telemetry_dropped(&self) -> u64 {
        self.tele_tx.dropped.load(Ordering::Relaxed)
    }

    /// The telemetry stream (records from all threads, each thread's in time order).
    pub fn telemetry(&self) -> &Receiver<Record> {
        &self.tele_rx
    }

    fn start_client(&mut self, id: u16, start_delay: f64) -> Result<(), String> {
        self.nonces += 1;
        let endpoint =
            Endpoint::bind_loopback(0).map_err(|e| format!("cannot bind a client socket: {e}"))?;
        let nonce = derive_seed(self.preset.seed, purpose::CLIENT_NONCE, u64::from(id)) as u32
            ^ self.nonces.wrapping_mul(0x9E37_79B9);
        let w = spawn_client(ClientSpawn {
            preset: &self.preset,
            id,
            nonce,
            bindings: self.client_bindings.clone(),
            layouts: self.client_layouts.clone(),
            endpoint,
            server: self.server_addr,
            clock: self.clock.clone(),
            tele: self.tele_tx.clone(),
            start: self.clock.now() + start_delay,
        });
        self.clients.insert(id, w);
        Ok(())
    }

    fn to_client(&self, id: u16, cmd: ThreadCmd) {
        if let Some(w) = self.clients.get(&id) {
            let _ = w.tx.try_send(cmd);
        }
    }

    fn to_server(&self, cmd: ThreadCmd) {
        let _ = self.server.tx.try_send(cmd);
    }

    /// The same command to the server and every client thread.
    fn to_everyone(&self, make: impl Fn() -> ThreadCmd) {
        self.to_server(make());
        for w in self.clients.values() {
            let _ = w.tx.try_send(make());
        }
    }

    /// Applies a command. Changes reach the threads through their command channels and take
    /// effect on their next loop iteration (at most a few milliseconds later).
    /// Applies `cmd`. Changes to the running session are also recorded as a
    /// `SessionChanged` record (what changed, from what to what), so recordings show them.
    pub fn command(&mut self, cmd: Command) -> Result<Outcome, CommandError> {
        let what = self.describe(&cmd);
        let before = what
            .as_ref()
            .map(|_| (self.preset.clone(), self.bindings()));
        let link = match &cmd {
            Command::SetLink {
                client, direction, ..
            } => Some((*client, *direction)),
            _ => None,
        };
        let new_bindings = match &cmd {
            Command::ChangeBindings { bindings, .. } => Some(bindings.clone()),
            _ => None,
        };
        let outcome = self.apply(cmd)?;
        let (Some(what), Some((before, bindings_before))) = (what, before) else {
            return Ok(outcome);
        };
        let mut diff = match link {
            Some((c, direction)) => {
                let mut d = Vec::new();
                for (up, name) in [(true, "up"), (false, "down")] {
                    let hit = match direction {
                        Direction::Both => true,
                        Direction::Up => up,
                        Direction::Down => !up,
                    };
                    if hit {
                        d.extend(
                            json_diff(&before.link_params(c, up), &self.preset.link_params(c, up))
                                .into_iter()
                                .map(|x| format!("{name} {x}")),
                        );
                    }
                }
                d
            }
            None => preset_diff(&before, &self.preset),
        };
        // A binding change, or a pitfall switch that changed the binding list.
        let now_bindings = new_bindings.map_or_else(|| self.bindings(), Arc::new);
        diff.extend(bindings_diff(&bindings_before, &now_bindings));
        if what.is_empty() && diff.is_empty() {
            return Ok(Outcome::NoChange); // set to what it was
        }
        let text = match (what.is_empty(), diff.is_empty()) {
            (true, _) => diff.join("; "),
            (false, true) => what,
            (false, false) => format!("{what}: {}", diff.join("; ")),
        };
        self.tele_tx.send(Record {
            t: self.clock.now(),
            machine: Machine::Server,
            event: Event::SessionChanged { what: text },
        });
        Ok(outcome)
    }

    /// Brings the running session to `target`'s settings with the commands that change what
    /// differs (each recorded as a `SessionChanged`). Settings only a restart can apply
    /// ([`RESTART_ONLY`]) are not applied: the outcome names them, and nothing was changed.
    /// The one place that decides what may change live (the lessons and the panels use it).
    pub fn change_to(&mut self, target: &Preset) -> Result<Outcome, CommandError> {
        target.validate().map_err(invalid)?;
        let restart = restart_keys(&self.preset, target);
        if !restart.is_empty() {
            return Ok(Outcome::NeedsRestart(restart));
        }
        let mut outcome = Outcome::NoChange;
        if target.faults != self.preset.faults {
            outcome = outcome.max(self.command(Command::SetFaults(target.faults.clone()))?);
        }
        if target.bindings != self.preset.bindings {
            let bindings = target
                .checked_bindings()
                .map_err(|e| CommandError::Invalid {
                    key: "bindings".into(),
                    expected: e,
                })?;
            outcome = outcome.max(self.command(Command::ChangeBindings {
                bindings,
                consistent: true,
            })?);
        }
        for client in self.client_ids() {
            let up = target.link_params(client, true);
            let down = target.link_params(client, false);
            let (now_up, now_down) = (
                self.preset.link_params(client, true),
                self.preset.link_params(client, false),
            );
            let sends: Vec<(Direction, LinkParams)> =
                if up == down && (up != now_up || down != now_down) {
                    vec![(Direction::Both, up)]
                } else {
                    let mut v = Vec::new();
                    if up != now_up {
                        v.push((Direction::Up, up));
                    }
                    if down != now_down {
                        v.push((Direction::Down, down));
                    }
                    v
                };
            for (direction, params) in sends {
                outcome = outcome.max(self.command(Command::SetLink {
                    client,
                    direction,
                    params,
                })?);
            }
        }
        // The effective links now equal the target's: keep its base link and overrides.
        self.preset.link = target.link.clone();
        self.preset.link_overrides = target.link_overrides.clone();
        if target.smoothing != self.preset.smoothing {
            outcome = outcome.max(self.command(Command::SetSmoothing(target.smoothing))?);
        }
        if target.world != self.preset.world {
            outcome = outcome.max(self.command(Command::SetWorld(target.world.clone()))?);
        }
        if target.gmc != self.preset.gmc {
            outcome = outcome.max(self.command(Command::SetGmc(target.gmc))?);
        }
        if target.net_update_rate != self.preset.net_update_rate {
            outcome = outcome.max(self.command(Command::SetNetUpdateRate(target.net_update_rate))?);
        }
        if target.hook_trace != self.preset.hook_trace {
            outcome = outcome.max(self.command(Command::HookTrace(target.hook_trace))?);
        }
        if target.value_trace != self.preset.value_trace {
            outcome = outcome.max(self.command(Command::ValueTrace(target.value_trace))?);
        }
        // Names and lesson material change nothing that runs.
        self.preset.title = target.title.clone();
        self.preset.description = target.description.clone();
        self.preset.lesson = target.lesson.clone();
        self.preset.seconds = target.seconds;
        Ok(outcome)
    }

    /// The preset with `edit` applied, validated like a preset file (the one table of
    /// ranges): what a settings command would make the session run with.
    fn validated(&self, edit: impl FnOnce(&mut Preset)) -> Result<Preset, CommandError> {
        let mut p = self.preset.clone();
        edit(&mut p);
        p.validate().map_err(invalid)?;
        Ok(p)
    }

    /// What a command changes, named (empty: the settings' difference says it); `None` for
    /// commands that change nothing about the session (pause, resume, driving a pawn).
    fn describe(&self, cmd: &Command) -> Option<String> {
        match cmd {
            Command::SetLink { client, .. } => Some(format!("client {client} link")),
            Command::ChangeBindings { consistent, .. } => Some(
                if *consistent {
                    "binding list changed on the server and every client"
                } else {
                    "binding list changed on the clients only (the binding-mismatch pitfall)"
                }
                .to_string(),
            ),
            Command::AddClient => Some(format!(
                "client {} added",
                self.clients.keys().next_back().map_or(0, |k| k + 1)
            )),
            Command::RemoveClient(id) => Some(format!("client {id} removed")),
            Command::RestartClient(id) => Some(format!("client {id} restarted (it rejoins)")),
            Command::RestartServer => Some("server restarted (clients rejoin)".to_string()),
            Command::SetGmc(_)
            | Command::SetFaults(_)
            | Command::SetWorld(_)
            | Command::SetSmoothing(_)
            | Command::SetNetUpdateRate(_)
            | Command::HookTrace(_)
            | Command::ValueTrace(_) => Some(String::new()),
            Command::Pause | Command::Resume | Command::Drive { .. } => None,
        }
    }

    fn apply(&mut self, cmd: Command) -> Result<Outcome, CommandError> {
        match cmd {
            Command::SetLink {
                client,
                direction,
                params,
            } => {
                params
                    .validate()
                    .map_err(|(f, e)| invalid((format!("link.{f}"), e)))?;
                if !self.clients.contains_key(&client) {
                    return Err(CommandError::NoSuchClient(client));
                }
                // Remembered as an override, so restarted threads get it too. It replaces
                // the overrides it covers, so dragging a slider does not pile them up.
                self.preset.link_overrides.retain(|o| {
                    o.client != client
                        || !(direction == Direction::Both || o.direction == direction)
                });
                self.preset
                    .link_overrides
                    .push(crate::preset::LinkOverride {
                        client,
                        direction,
                        link: params.clone(),
                    });
                if matches!(direction, Direction::Up | Direction::Both) {
                    self.to_client(client, ThreadCmd::SetLink(params.clone()));
                }
                if matches!(direction, Direction::Down | Direction::Both) {
                    self.to_server(ThreadCmd::SetClientLink { client, params });
                }
            }
            Command::SetGmc(g) => {
                self.preset = self.validated(|p| p.gmc = g)?;
                self.to_everyone(|| ThreadCmd::SetGmc(g));
            }
            Command::SetFaults(f) => {
                // Binding mistakes change the binding list: the session switches to the list
                // the new switches make, at the next move boundary, everywhere.
                let binding_switch = f.unbound_member != self.preset.faults.unbound_member
                    || f.dash_always_combine != self.preset.faults.dash_always_combine
                    || f.proxy_value_not_simulated != self.preset.faults.proxy_value_not_simulated;
                let p = self.validated(|p| p.faults = f.clone())?;
                self.preset.faults = f.clone();
                self.to_everyone(|| ThreadCmd::SetFaults(f.clone()));
                if binding_switch {
                    let bindings = p.checked_bindings().map_err(|e| CommandError::Invalid {
                        key: "bindings".into(),
                        expected: e,
                    })?;
                    self.define_layout(bindings, true)?;
                    return Ok(Outcome::AtNextMoveBoundary);
                }
            }
            Command::SetWorld(w) => {
                self.preset = self.validated(|p| p.world = w.clone())?;
                self.to_server(ThreadCmd::SetWorld(w));
            }
            Command::SetSmoothing(sm) => {
                self.preset = self.validated(|p| p.smoothing = sm)?;
                self.to_everyone(|| ThreadCmd::SetSmoothing(sm));
            }
            Command::SetNetUpdateRate(rate) => {
                self.preset = self.validated(|p| p.net_update_rate = rate)?;
                self.to_server(ThreadCmd::SetNetUpdateRate(rate));
            }
            Command::HookTrace(on) => {
                self.preset.hook_trace = on;
                self.to_everyone(|| ThreadCmd::HookTrace(on));
            }
            Command::ValueTrace(on) => {
                self.preset.value_trace = on;
                self.to_everyone(|| ThreadCmd::ValueTrace(on));
            }
            Command::ChangeBindings {
                bindings,
                consistent,
            } => {
                if consistent {
                    // The preset keeps the list as overrides of the demo pawn's bindings, so
                    // saving it or restarting keeps the change.
                    self.preset.set_binding_list(bindings.list());
                }
                self.define_layout(bindings, consistent)?;
                return Ok(Outcome::AtNextMoveBoundary);
            }
            Command::Pause => self.clock.pause(),
            Command::Resume => {
                self.clock.resume();
                self.to_everyone(|| ThreadCmd::Wake);
            }
            Command::AddClient => {
                let id = self.clients.keys().next_back().map_or(0, |k| k + 1);
                if id >= 64 {
                    return Err(CommandError::TooManyClients);
                }
                self.start_client(id, 0.0).map_err(CommandError::Socket)?;
            }
            Command::RemoveClient(id) => {
                let mut w = self
                    .clients
                    .remove(&id)
                    .ok_or(CommandError::NoSuchClient(id))?;
                w.stop();
            }
            Command::RestartClient(id) => {
                let mut w = self
                    .clients
                    .remove(&id)
                    .ok_or(CommandError::NoSuchClient(id))?;
                w.stop();
                self.start_client(id, 0.0).map_err(CommandError::Socket)?;
            }
            Command::RestartServer => {
                self.server.stop();
                let port = self.server_addr.port();
                let endpoint = Endpoint::bind_loopback(port).map_err(|e| {
                    CommandError::Socket(format!(
                        "cannot bind the server socket again on port {port}: {e}"
                    ))
                })?;
                let now = self.clock.now();
                self.clock
                    .server_start
                    .store(now.to_bits(), Ordering::Release);
                let layouts: Vec<(u8, Arc<Bindings>)> = self
                    .client_layouts
                    .iter()
                    .filter(|(_, _, consistent)| *consistent)
                    .map(|(v, b, _)| (*v, b.clone()))
                    .collect();
                self.server = spawn_server(
                    &self.preset,
                    self.initial_bindings.clone(),
                    &layouts,
                    endpoint,
                    self.clock.clone(),
                    self.tele_tx.clone(),
                    now,
                );
            }
            Command::Drive { client, input } => {
                if !self.clients.contains_key(&client) {
                    return Err(CommandError::NoSuchClient(client));
                }
                self.to_client(client, ThreadCmd::Drive(input));
            }
        }
        Ok(Outcome::AppliedNow)
    }

    /// A new binding list. Consistent: the server and every client define it as the next
    /// layout version and switch at their next move boundary. Not consistent: the clients
    /// redefine the current version (the binding-mismatch pitfall).
    fn define_layout(&mut self, bindings: Bindings, consistent: bool) -> Result<(), CommandError> {
        let b = Arc::new(bindings);
        if consistent {
            self.layout_version = self
                .layout_version
                .checked_add(1)
                .ok_or(CommandError::TooManyLayouts)?;
            self.to_server(ThreadCmd::DefineLayout {
                version: self.layout_version,
                bindings: b.clone(),
                select: true,
            });
        }
        let v = self.layout_version;
        self.client_layouts.push((v, b.clone(), consistent));
        for id in self.client_ids() {
            self.to_client(
                id,
                ThreadCmd::DefineLayout {
                    version: v,
                    bindings: b.clone(),
                    select: consistent,
                },
            );
        }
        Ok(())
    }

    /// Stops every thread and waits for them.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        for w in self.clients.values_mut() {
            w.stop();
        }
        self.server.stop();
    }
}

impl Drop for LiveSession {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// `key: old -> new` for every leaf that differs between two serializable values (dotted keys;
/// arrays compare whole).
fn json_diff<T: serde::Serialize>(a: &T, b: &T) -> Vec<String> {
    fn walk(key: &str, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
        use serde_json::Value;
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for (k, va) in x {
                    let path = if key.is_empty() {
                        k.clone()
                    } else {
                        format!("{key}.{k}")
                    };
                    match y.get(k) {
                        Some(vb) => walk(&path, va, vb, out),
                        None => out.push(format!("{path}: {va} -> (none)")),
                    }
                }
            }
            _ if a != b => out.push(format!("{key}: {a} -> {b}")),
            _ => {}
        }
    }
    let (Ok(a), Ok(b)) = (serde_json::to_value(a), serde_json::to_value(b)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    walk("", &a, &b, &mut out);
    out
}

/// The settings that differ between two presets (links are described by their command).
fn preset_diff(a: &Preset, b: &Preset) -> Vec<String> {
    json_diff(a, b)
        .into_iter()
        .filter(|d| !d.starts_with("link_overrides:") && !d.starts_with("lesson"))
        .collect()
}

/// Bindings added, removed or changed (by name) between two binding lists.
fn bindings_diff(a: &Bindings, b: &Bindings) -> Vec<String> {
    let mut out = Vec::new();
    for x in a.list() {
        match b.list().iter().find(|y| y.name == x.name) {
            None => out.push(format!("binding {} removed", x.name)),
            Some(y) => out.extend(
                json_diff(x, y)
                    .into_iter()
                    .filter(|d| !d.starts_with("name:"))
                    .map(|d| format!("binding {} {d}", x.name)),
            ),
        }
    }
    for y in b.list() {
        if !a.list().iter().any(|x| x.name == y.name) {
            out.push(format!("binding {} added", y.name));
        }
    }
    if out.is_empty() && a.list() != b.list() {
        out.push("binding order changed".to_string());
    }
    out
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

fn packet_record(
    t: f64,
    from: Machine,
    to: Machine,
    bytes: usize,
    fate: PacketFate,
    kind: MsgKind,
) -> Record {
    let machine = if fate == PacketFate::Delivered {
        to
    } else {
        from
    };
    Record {
        t,
        machine,
        event: Event::Packet {
            from,
            to,
            bytes: bytes as u32,
            fate,
            kind,
        },
    }
}

/// Reports datagrams the transport dropped before laminar since the last call.
fn report_foreign(endpoint: &Endpoint, seen: &mut u64, tele: &TelemetryTx, t: f64, me: Machine) {
    let (foreign, _) = endpoint.drop_counts();
    while *seen < foreign {
        *seen += 1;
        tele.send(Record {
            t,
            machine: me,
            event: Event::Rejected {
                reason: crate::model::telemetry::Rejection::Foreign,
            },
        });
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

struct ClientSpawn<'a> {
    preset: &'a Preset,
    id: u16,
    nonce: u32,
    bindings: Arc<Bindings>,
    layouts: Vec<(u8, Arc<Bindings>, bool)>,
    endpoint: Endpoint,
    server: SocketAddr,
    clock: Arc<SessionClock>,
    tele: TelemetryTx,
    start: f64,
}

fn spawn_client(s: ClientSpawn) -> Worker {
    let (tx, rx) = bounded(COMMAND_CAPACITY);
    let stop = Arc::new(AtomicBool::new(false));
    let p = s.preset;
    let idx = u64::from(s.id);
    let o = p.client_overrides.iter().find(|o| o.client == s.id);
    let fps = o.and_then(|o| o.fps).unwrap_or(p.client_fps);
    let fps_jitter = o.and_then(|o| o.fps_jitter).unwrap_or(p.client_fps_jitter);
    let script = InputScript::new(
        o.and_then(|o| o.input.clone())
            .unwrap_or_else(|| p.input.clone()),
        derive_seed(p.seed, purpose::CLIENT_INPUT, idx),
    );
    let mut frame_rng = Rng::new(derive_seed(p.seed, purpose::CLIENT_FRAMES, idx));
    let mut endpoint = s.endpoint;
    endpoint.set_link(
        s.server,
        Some(Link::new(
            p.link_params(s.id, true),
            derive_seed(p.seed, purpose::LINK_UP, idx),
        )),
    );
    let mut client = Client::new(p.client_config(s.id, s.nonce, s.bindings));
    for (v, b, select) in s.layouts {
        client.define_layout(v, b);
        if select {
            client.use_layout(v);
        }
    }
    let stop2 = stop.clone();
    let (clock, tele, server, start, id) = (s.clock, s.tele, s.server, s.start, s.id);
    let handle = std::thread::Builder::new()
        .name(format!("client {id}"))
        .spawn(move || {
            let me = Machine::Client(id);
            let mut script = script;
            let mut drive: Option<RawInput> = None;
            let mut events = Vec::new();
            let mut notes: Vec<LinkNote> = Vec::new();
            let mut scratch = Vec::new();
            let mut next_frame = start;
            let mut next_keepalive = start;
            let mut next_sample = start;
            let mut foreign_seen = 0u64;
            let mut pending: Option<ThreadCmd> = None;
            while !stop2.load(Ordering::Acquire) {
                let cmds = pending.take().into_iter().chain(rx.try_iter());
                for c in cmds.collect::<Vec<_>>() {
                    match c {
                        ThreadCmd::SetLink(params) => {
                            if let Some(l) = endpoint.link_mut(&server) {
                                l.set_params(params);
                            }
                        }
                        ThreadCmd::SetGmc(g) => client.set_gmc(g),
                        ThreadCmd::SetFaults(f) => client.set_faults(f),
                        ThreadCmd::DefineLayout {
                            version,
                            bindings,
                            select,
                        } => {
                            client.define_layout(version, bindings);
                            if select {
                                client.use_layout(version);
                            }
                        }
                        ThreadCmd::Drive(i) => drive = i,
                        ThreadCmd::SetSmoothing(sm) => client.set_smoothing(sm),
                        ThreadCmd::HookTrace(on) => client.set_hook_trace(on),
                        ThreadCmd::ValueTrace(on) => client.set_value_trace(on),
                        ThreadCmd::SetClientLink { .. }
                        | ThreadCmd::SetWorld(_)
                        | ThreadCmd::SetNetUpdateRate(_)
                        | ThreadCmd::Wake => {}
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
                    let dt = (1.0 / fps) * (1.0 + fps_jitter * (2.0 * frame_rng.f64() - 1.0));
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
                    if client.is_playing() {
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
        .expect("spawning a thread");
    Worker {
        tx,
        stop,
        handle: Some(handle),
    }
}

fn spawn_server(
    p: &Preset,
    bindings: Arc<Bindings>,
    layouts: &[(u8, Arc<Bindings>)],
    endpoint: Endpoint,
    clock: Arc<SessionClock>,
    tele: TelemetryTx,
    start: f64,
) -> Worker {
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
    let handle = std::thread::Builder::new()
        .name("server".into())
        .spawn(move || {
            let mut endpoint = endpoint;
            let mut addr_of: BTreeMap<u16, SocketAddr> = BTreeMap::new();
            let mut down_links: BTreeMap<u16, LinkParams> = BTreeMap::new();
            let mut events = Vec::new();
            let mut notes: Vec<LinkNote> = Vec::new();
            let mut scratch = Vec::new();
            let mut next_frame = start;
            let mut next_keepalive = start;
            let mut foreign_seen = 0u64;
            let mut pending: Option<ThreadCmd> = None;
            while !stop2.load(Ordering::Acquire) {
                let cmds = pending.take().into_iter().chain(rx.try_iter());
                for c in cmds.collect::<Vec<_>>() {
                    match c {
                        ThreadCmd::SetClientLink { client, params } => {
                            if let Some(l) = addr_of.get(&client).and_then(|a| endpoint.link_mut(a))
                            {
                                l.set_params(params.clone());
                            }
                            down_links.insert(client, params);
                        }
                        ThreadCmd::SetGmc(g) => server.set_gmc(g),
                        ThreadCmd::SetFaults(f) => server.set_faults(f),
                        ThreadCmd::SetWorld(w) => server.set_world(w),
                        ThreadCmd::DefineLayout {
                            version,
                            bindings,
                            select,
                        } => {
                            server.define_layout(version, bindings);
                            if select {
                                server.use_layout(version);
                            }
                        }
                        ThreadCmd::SetSmoothing(sm) => server.set_smoothing(sm),
                        ThreadCmd::SetNetUpdateRate(r) => server.set_net_update_rate(r),
                        ThreadCmd::HookTrace(on) => server.set_hook_trace(on),
                        ThreadCmd::ValueTrace(on) => server.set_value_trace(on),
                        ThreadCmd::SetLink(_) | ThreadCmd::Drive(_) | ThreadCmd::Wake => {}
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
                            if let Ok(sender) = server.handle_datagram(local, &bytes) {
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
                                    addr_of.insert(sender, from);
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
                    let ka = crate::model::wire::encode_keepalive(&crate::model::wire::Header {
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
        .expect("spawning a thread");
    Worker {
        tx,
        stop,
        handle: Some(handle),
    }
}

/// Runs a preset live for `seconds` of wall time and returns its summary (`mode: "live"`).
/// `on_record` sees every telemetry record.
pub fn run_live(
    preset: &Preset,
    preset_name: &str,
    seconds: f64,
    on_record: &mut dyn FnMut(&Record),
) -> Result<crate::summary::Summary, String> {
    let started = Instant::now();
    let session = LiveSession::start(preset)?;
    let rx = session.telemetry().clone();
    let mut builder = crate::summary::SummaryBuilder::for_clients(preset.network_clients());
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
