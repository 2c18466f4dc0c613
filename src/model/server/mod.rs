//! The server: executes every remote move once, in order, with the client's input, delta and
//! timestamp; validates; replies with acknowledgements or corrections; runs the pawns it
//! controls (AI) one local move per frame; replicates world time. Sans-IO like the client.
//!
//! This file holds the server's state and its frame; the work is split by concern: `clients`
//! (incoming messages, joins, drops), `execute` (remote and local moves) and `replicate`
//! (proxy spawns and state updates, the listen host's view).

use std::collections::{BTreeMap, VecDeque};

use std::sync::Arc;

use glam::DVec3;

use super::binding::{Bindings, Layouts};
use super::client::Transmit;
use super::input::{InputScript, InputScriptConfig};
use super::messages::{ClientMsg, Delivery, ServerMsg, WireMove};
use super::pawn::{Execution, PawnValues, TickOutput};
use super::proxy::Proxy;
use super::settings::{Faults, GmcSettings, NetMode, SmoothingSettings, WorldSettings};
use super::telemetry::{Event, Hook, PawnSample, Role, SampleKind};
use super::wire::{self, SeqWindow};
use crate::support::rng::{Rng, derive_seed, purpose};

mod clients;
mod execute;
mod replicate;

#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub gmc: GmcSettings,
    pub faults: Faults,
    pub world: WorldSettings,
    pub bindings: Arc<Bindings>,
    /// Number of AGMC_WorldTimeReplicator actors the game mode spawned.
    pub world_time_replicators: u8,
    pub ai_pawns: u16,
    pub ai_input: InputScriptConfig,
    pub seed: u64,
    pub net_mode: NetMode,
    /// State updates per second to simulated proxies.
    pub net_update_rate: f64,
    /// Smoothing of remote pawns on a listen-server host.
    pub smoothing: SmoothingSettings,
    /// Input script of the host's pawn (listen server, standalone).
    pub host_input: InputScriptConfig,
    pub hook_trace: bool,
    /// Emit the pawn's values around every remote move execution (`Event::MoveValues`).
    pub value_trace: bool,
    /// Pawn samples per second for the world view (0: none).
    pub world_view_rate: f64,
    /// The join secret every client of this session carries in its join.
    pub join_secret: u64,
    /// Client ids run from 0 to this (excluded); a join for another is refused.
    pub max_clients: u16,
}

/// A pawn as the server holds it.
#[derive(Clone, Debug)]
pub struct ServerPawn {
    pub id: u16,
    /// The controlling client; `None` for pawns the server controls (AI).
    pub owner: Option<u16>,
    pub values: PawnValues,
    /// The listen-server host's or standalone player's pawn.
    pub host: bool,
    ai: Option<InputScript>,
    next_turret: f64,
    /// PeriodicAndOnChange values as last sent to proxies.
    last_sent: PawnValues,
    /// Recent (server time, values) at the end of each server frame, for rollback: the states
    /// a rollback loads into the pawn while another pawn's move runs.
    history: VecDeque<(f64, PawnValues)>,
}

/// A set of pawn ids, a bit per id.
#[derive(Clone, Debug, Default)]
struct PawnSet {
    words: Vec<u64>,
}

impl PawnSet {
    fn contains(&self, id: u16) -> bool {
        self.words
            .get(usize::from(id) / 64)
            .is_some_and(|w| w >> (id % 64) & 1 == 1)
    }

    /// True if `id` was not in the set.
    fn insert(&mut self, id: u16) -> bool {
        let i = usize::from(id) / 64;
        if i >= self.words.len() {
            self.words.resize(i + 1, 0);
        }
        let bit = 1u64 << (id % 64);
        let fresh = self.words[i] & bit == 0;
        self.words[i] |= bit;
        fresh
    }

    /// True if `id` was in the set.
    fn remove(&mut self, id: u16) -> bool {
        let was = self.contains(id);
        if let Some(w) = self.words.get_mut(usize::from(id) / 64) {
            *w &= !(1u64 << (id % 64));
        }
        was
    }

    fn clear(&mut self) {
        self.words.clear();
    }
}

#[derive(Clone, Debug)]
struct RemoteClient {
    /// Id of the pawn it controls.
    pawn: u16,
    incarnation: u32,
    last_heard: f64,
    /// Newest move executed (moves are numbered from 1).
    last_executed: u32,
    /// Received moves not executed yet, by id, with the epoch of their batch.
    buffer: BTreeMap<u32, (WireMove, u32, u8)>,
    /// Since when the next expected move has been missing while later ones wait.
    gap_since: Option<f64>,
    /// Corrections sent so far; batches from an older epoch are executed but not validated.
    epoch: u32,
    /// Pawns this client has been told exist (ProxySpawn sent).
    known: PawnSet,
    /// How far in the past the client displays other pawns (s).
    view_delay: f64,
}

pub struct Server {
    cfg: ServerConfig,
    layouts: Layouts,
    send_seq: u32,
    recv_windows: BTreeMap<u16, SeqWindow>,
    pawns: Vec<ServerPawn>,
    clients: BTreeMap<u16, RemoteClient>,
    inbox: Vec<(u16, ClientMsg)>,
    outbox: VecDeque<(u16, ServerMsg, Delivery)>,
    telemetry: Vec<(f64, Event)>,
    last_frame: Option<f64>,
    last_world_time_sent: Option<f64>,
    next_pawn_id: u16,
    layout_errors: BTreeMap<u16, u32>,
    /// Kinds of refused joins already logged (bits; each is logged once).
    refusals_logged: u8,
    /// The MaxCombinedDeltaTime > MaxMoveDeltaTime warning was logged for these settings.
    combine_warned: bool,
    /// The generator a tick reads without a bound seed (`unseeded_random_in_tick`).
    tick_rng: Rng,
    /// This frame's delta (what a tick reading the frame delta gets).
    frame_dt: f64,
    turret_rng: Rng,
    tick_out: TickOutput,
    next_net_update: f64,
    next_sample: f64,
    hook_trace: bool,
    /// Sub-step values of the remote move running, when the value trace is on.
    value_trace: Option<Vec<PawnValues>>,
    /// Listen server: remote pawns as the host displays them.
    host_view: BTreeMap<u16, Proxy>,
    host_stats: super::proxy::DisplayStats,
    view_rng: Rng,
    /// State-update entries of the current update, encoded once for every client.
    entry_cache: wire::EntryCache,
    /// Clients that must join by a session time (a live server's clients after it starts):
    /// one that has not is reported cut off, once.
    expected: BTreeMap<u16, f64>,
}

/// Seconds of pawn history the server keeps for rollback.
const ROLLBACK_HISTORY: f64 = 1.0;

/// Team of a pawn (1 or 2): spawn-time data proxies need.
fn team_of(pawn: u16) -> u8 {
    1 + (pawn % 2) as u8
}

fn spawn_point(radius: f64, slot: u32) -> (DVec3, f64) {
    let angle = f64::from(slot) * 2.399_963_229_728_653; // golden angle
    let loc = DVec3::new(radius * angle.cos(), radius * angle.sin(), 0.0);
    // Face the centre.
    let yaw = (-loc.y).atan2(-loc.x).to_degrees();
    (loc, yaw)
}

impl Server {
    pub fn new(cfg: ServerConfig) -> Self {
        let mut pawns = Vec::new();
        for k in 0..cfg.ai_pawns {
            let (loc, yaw) = spawn_point(cfg.world.spawn_radius * 0.5, u32::from(k));
            let values = crate::model::imported::spawned(
                PawnValues {
                    team: team_of(k),
                    ..PawnValues::spawn_at(loc, yaw)
                },
                &cfg.bindings,
            );
            pawns.push(ServerPawn {
                id: k,
                owner: None,
                values: values.clone(),
                host: false,
                ai: Some(InputScript::new(
                    cfg.ai_input.clone(),
                    derive_seed(cfg.seed, purpose::AI_INPUT, u64::from(k)),
                )),
                next_turret: f64::INFINITY,
                last_sent: values,
                history: VecDeque::new(),
            });
        }
        if cfg.net_mode != NetMode::Dedicated {
            // The host plays on the server machine (as client 0 would).
            let id = cfg.ai_pawns;
            let (loc, yaw) = spawn_point(cfg.world.spawn_radius, 0);
            let values = crate::model::imported::spawned(
                PawnValues {
                    team: team_of(id),
                    ..PawnValues::spawn_at(loc, yaw)
                },
                &cfg.bindings,
            );
            pawns.push(ServerPawn {
                id,
                owner: None,
                values: values.clone(),
                host: true,
                ai: Some(InputScript::new(
                    cfg.host_input.clone(),
                    derive_seed(cfg.seed, purpose::CLIENT_INPUT, 0),
                )),
                next_turret: f64::INFINITY,
                last_sent: values,
                history: VecDeque::new(),
            });
        }
        let turret_rng = Rng::new(derive_seed(cfg.seed, purpose::HAZARD, 0));
        let next_pawn_id = pawns.len() as u16;
        let view_rng = Rng::new(derive_seed(
            cfg.seed,
            purpose::SMOOTHING,
            u64::from(u16::MAX),
        ));
        let hook_trace = cfg.hook_trace;
        let tick_rng = Rng::new(derive_seed(cfg.seed, purpose::TICK_RANDOM, u64::MAX));
        let value_trace = cfg.value_trace.then(Vec::new);
        let mut telemetry = Vec::new();
        for p in &pawns {
            telemetry.push((
                0.0,
                Event::Role {
                    pawn: p.id,
                    role: Role::LocallyControlledServerPawn,
                },
            ));
            if hook_trace {
                // Every machine binds once per pawn, before any net serialization.
                telemetry.push((
                    0.0,
                    Event::hook(Hook::BindReplicationData, p.id, 0, 0, None, None),
                ));
            }
        }
        Server {
            layouts: Layouts::new(cfg.bindings.clone()),
            send_seq: 0,
            recv_windows: BTreeMap::new(),
            cfg,
            pawns,
            clients: BTreeMap::new(),
            inbox: Vec::new(),
            outbox: VecDeque::new(),
            telemetry,
            last_frame: None,
            last_world_time_sent: None,
            next_pawn_id,
            layout_errors: BTreeMap::new(),
            refusals_logged: 0,
            combine_warned: false,
            tick_rng,
            frame_dt: 0.0,
            turret_rng,
            tick_out: TickOutput::default(),
            next_net_update: 0.0,
            next_sample: 0.0,
            hook_trace,
            value_trace,
            host_view: BTreeMap::new(),
            host_stats: Default::default(),
            view_rng,
            entry_cache: wire::EntryCache::default(),
            expected: BTreeMap::new(),
        }
    }

    /// Each client of `deadlines` (id, session time) must join by its time; one that has not
    /// by then is reported cut off (`ClientDropped`), once. A live server expects its
    /// session's clients, so a client that never comes back after a restart is said, not
    /// silently missing.
    pub fn expect_clients(&mut self, deadlines: impl IntoIterator<Item = (u16, f64)>) {
        self.expected.extend(deadlines);
    }

    /// The expected clients past their time that never joined, reported.
    fn report_missing(&mut self, now: f64) {
        let late: Vec<u16> = self
            .expected
            .iter()
            .filter(|(id, by)| now >= **by && !self.clients.contains_key(id))
            .map(|(id, _)| *id)
            .collect();
        self.expected
            .retain(|id, by| now < *by && !self.clients.contains_key(id));
        for client in late {
            self.telemetry.push((
                now,
                Event::Log {
                    level: super::telemetry::LogLevel::Warning,
                    text: format!(
                        "client {client} had not joined the server by {now:.1} s (5 s after its turn to join): it is cut off"
                    ),
                },
            ));
            self.telemetry.push((
                now,
                Event::ClientDropped {
                    client,
                    why: "it did not join the (re)started server within 5 s of its turn"
                        .to_string(),
                },
            ));
        }
    }

    /// Switches the hook trace on or off.
    pub fn set_hook_trace(&mut self, on: bool) {
        self.hook_trace = on;
    }

    /// Switches the value trace on or off.
    pub fn set_value_trace(&mut self, on: bool) {
        self.value_trace = on.then(Vec::new);
    }

    /// Listen server: the remote pawns as the host displays them (smoothed).
    pub fn host_view(&self) -> impl Iterator<Item = &Proxy> {
        self.host_view.values()
    }

    /// Records a hook-trace event when the trace is on.
    fn trace(&mut self, now: f64, event: Event) {
        if self.hook_trace {
            self.telemetry.push((now, event));
        }
    }

    fn tick_hooks(&mut self, now: f64, pawn: u16, move_id: u32, n: u16, exec: Execution) {
        if self.hook_trace {
            for i in 0..n {
                self.trace(
                    now,
                    Event::hook(Hook::GenPredictionTick, pawn, move_id, i, Some(exec), None),
                );
            }
            self.trace(
                now,
                Event::hook(Hook::GenAncillaryTick, pawn, move_id, 0, Some(exec), None),
            );
        }
    }

    /// Locations of every pawn but `except` (for the `tick_reads_proxy_transform` pitfall:
    /// on the server these are authoritative).
    fn others(&self, except: u16) -> Vec<DVec3> {
        if self.cfg.faults.tick_reads_proxy_transform {
            self.pawns
                .iter()
                .filter(|p| p.id != except)
                .map(|p| p.values.location)
                .collect()
        } else {
            Vec::new()
        }
    }

    pub fn pawns(&self) -> &[ServerPawn] {
        &self.pawns
    }

    /// The binding list the server's own pawns use.
    pub fn bindings(&self) -> &Arc<Bindings> {
        self.layouts.current_bindings()
    }

    pub fn layouts(&self) -> &Layouts {
        &self.layouts
    }

    /// Defines a binding layout version (moves tagged with it are executed with it).
    pub fn define_layout(&mut self, version: u8, b: Arc<Bindings>) {
        self.layouts.define(version, b);
        self.entry_cache.clear();
    }

    /// The layout the server's own pawns (and welcomes) use from now on.
    pub fn use_layout(&mut self, version: u8) -> bool {
        self.entry_cache.clear();
        self.layouts.select(version)
    }

    pub fn set_gmc(&mut self, gmc: GmcSettings) {
        self.cfg.gmc = gmc;
    }

    pub fn set_faults(&mut self, faults: Faults) {
        self.cfg.faults = faults;
    }

    /// Smoothing of the listen host's view.
    pub fn set_smoothing(&mut self, smoothing: SmoothingSettings) {
        self.cfg.smoothing = smoothing;
    }

    /// State updates per second to proxies.
    pub fn set_net_update_rate(&mut self, rate: f64) {
        self.cfg.net_update_rate = rate.max(0.1);
    }

    pub fn set_world(&mut self, world: WorldSettings) {
        // The turret switched on or off while pawns play: their next hit is scheduled (from
        // the server's last frame, as at a join) or cancelled.
        let (was, period) = (self.cfg.world.turret_period_s, world.turret_period_s);
        if was != period {
            let now = self.last_frame.unwrap_or(0.0);
            for p in self.pawns.iter_mut().filter(|p| p.owner.is_some()) {
                p.next_turret = if period > 0.0 {
                    if p.next_turret.is_finite() {
                        p.next_turret
                    } else {
                        now + self.turret_rng.range(0.5, 0.5 + period)
                    }
                } else {
                    f64::INFINITY
                };
            }
        }
        self.cfg.world = world;
    }

    /// The pawn a client controls, once it joined.
    pub fn pawn_of(&self, client: u16) -> Option<&ServerPawn> {
        let id = self.clients.get(&client)?.pawn;
        self.pawns.iter().find(|p| p.id == id)
    }

    fn pawn_index(&self, id: u16) -> Option<usize> {
        self.pawns.iter().position(|p| p.id == id)
    }

    /// Clients currently joined.
    pub fn client_ids(&self) -> Vec<u16> {
        self.clients.keys().copied().collect()
    }

    /// Runs one server frame at server time `now` (the authoritative world clock).
    pub fn frame(&mut self, now: f64) {
        if !self.expected.is_empty() {
            self.report_missing(now);
        }
        let dt = now - self.last_frame.unwrap_or(now);
        self.last_frame = Some(now);
        self.frame_dt = dt;
        self.telemetry.push((now, Event::Frame { dt }));
        if self.cfg.gmc.max_combined_delta_time > self.cfg.gmc.max_move_delta_time {
            if !self.combine_warned {
                self.combine_warned = true;
                if let Some(text) = self.cfg.gmc.combine_warning() {
                    self.telemetry.push((
                        now,
                        Event::Log {
                            level: super::telemetry::LogLevel::Warning,
                            text,
                        },
                    ));
                }
            }
        } else {
            self.combine_warned = false;
        }

        let mut inbox = std::mem::take(&mut self.inbox);
        for (from, msg) in inbox.drain(..) {
            match msg {
                ClientMsg::Join {
                    incarnation,
                    layout_hash,
                    ..
                } => self.join(now, from, incarnation, layout_hash),
                ClientMsg::Moves {
                    layout,
                    epoch,
                    view_delay_ms,
                    moves,
                } => match self.clients.get_mut(&from) {
                    Some(rc) => {
                        rc.view_delay = f64::from(view_delay_ms) / 1000.0;
                        for m in moves {
                            if m.id > rc.last_executed {
                                rc.buffer.entry(m.id).or_insert((m, epoch, layout));
                            }
                        }
                    }
                    None => self
                        .outbox
                        .push_back((from, ServerMsg::Reset, Delivery::Unreliable)),
                },
                ClientMsg::Ping { .. } => {}
            }
        }
        // The emptied vector goes back, its allocation kept for the next frames' messages.
        if self.inbox.is_empty() {
            self.inbox = inbox;
        }

        let silent: Vec<u16> = self
            .clients
            .iter()
            .filter(|(_, rc)| now - rc.last_heard > super::client::CONNECTION_TIMEOUT)
            .map(|(id, _)| *id)
            .collect();
        for id in silent {
            self.drop_client(
                now,
                id,
                &format!("nothing heard for {} s", super::client::CONNECTION_TIMEOUT),
            );
        }

        let mut remote_moves = 0u16;
        let ids: Vec<u16> = self.clients.keys().copied().collect();
        for id in ids {
            remote_moves = remote_moves.saturating_add(self.execute_remote_moves(now, id));
        }

        for i in 0..self.pawns.len() {
            if self.pawns[i].ai.is_some() && dt > 0.0 {
                self.local_move(now, dt, i);
            }
        }
        self.replicate_to_proxies(now);
        if self.cfg.net_mode == NetMode::Listen {
            self.update_host_view(now, dt);
        }

        if self.cfg.world_time_replicators > 0
            && self
                .last_world_time_sent
                .is_none_or(|t| now - t >= self.cfg.gmc.world_time_update_interval - 1e-9)
        {
            self.last_world_time_sent = Some(now);
            for r in 0..self.cfg.world_time_replicators {
                for &c in self.clients.keys() {
                    self.outbox.push_back((
                        c,
                        ServerMsg::WorldTime {
                            replicator: r,
                            server_time: now,
                        },
                        Delivery::Unreliable,
                    ));
                }
            }
        }
        self.telemetry
            .push((now, Event::ServerFrame { remote_moves }));
        if self.cfg.world_view_rate > 0.0 && now >= self.next_sample {
            self.next_sample = now + 1.0 / self.cfg.world_view_rate;
            for p in &self.pawns {
                self.telemetry.push((
                    now,
                    PawnSample::event(p.id, p.owner, SampleKind::Authoritative, &p.values),
                ));
            }
            if self.cfg.net_mode == NetMode::Listen {
                let b = self.layouts.current_bindings();
                for p in self.host_view.values() {
                    let v = p.display_pose(b);
                    self.telemetry.push((
                        now,
                        PawnSample::event(p.pawn, p.owner, SampleKind::Displayed, &v),
                    ));
                }
            }
        }
        for p in &mut self.pawns {
            p.history.push_back((now, p.values.clone()));
            while p
                .history
                .front()
                .is_some_and(|(t, _)| now - t > ROLLBACK_HISTORY)
            {
                p.history.pop_front();
            }
        }
        self.trace(
            now,
            Event::hook(Hook::WorldTickEnd, u16::MAX, 0, 0, None, None),
        );
    }

    /// What a tick reading a random number without a bound seed gets (a draw only under
    /// that pitfall).
    fn tick_random(&mut self) -> f64 {
        crate::model::cycle::tick_random(&self.cfg.faults, &mut self.tick_rng)
    }

    /// The next message to send, typed (tests and tools).
    pub fn poll_msg(&mut self) -> Option<(u16, ServerMsg, Delivery)> {
        self.outbox.pop_front()
    }

    /// The next datagram to send, encoded, with its destination client.
    pub fn poll_transmit(&mut self) -> Option<(u16, Transmit)> {
        self.poll_transmit_reusing(&mut Vec::new())
    }

    /// [`Server::poll_transmit`], encoding into a spare buffer from `spare` when it has one
    /// (the same bytes; the driver gives delivered datagrams' buffers back to save allocations).
    pub fn poll_transmit_reusing(&mut self, spare: &mut Vec<Vec<u8>>) -> Option<(u16, Transmit)> {
        // Encoded where it waits, then dropped there (a message is large to move).
        let (to, msg, delivery) = self.outbox.front()?;
        self.send_seq = self.send_seq.wrapping_add(1);
        let b = self
            .layouts
            .get(msg.layout())
            .unwrap_or_else(|| self.layouts.current_bindings());
        let buf = spare.pop().unwrap_or_default();
        let tx = (
            *to,
            Transmit {
                bytes: wire::encode_server_cached_into(
                    self.send_seq,
                    msg,
                    b,
                    &mut self.entry_cache,
                    buf,
                ),
                delivery: *delivery,
                kind: msg.kind(),
            },
        );
        drop(self.outbox.pop_front());
        Some(tx)
    }

    pub fn drain_telemetry(&mut self, out: &mut Vec<(f64, Event)>) {
        out.append(&mut self.telemetry);
    }

    /// Hands every telemetry event since the last call to `f`, in order (what
    /// [`Server::drain_telemetry`] appends, without the intermediate vector).
    pub fn drain_telemetry_each(&mut self, mut f: impl FnMut(f64, Event)) {
        for (t, e) in self.telemetry.drain(..) {
            f(t, e);
        }
    }
}
