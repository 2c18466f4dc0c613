//! The server: executes every remote move once, in order, with the client's input, delta and
//! timestamp; validates; replies with acknowledgements or corrections; runs the pawns it
//! controls (AI) one local move per frame; replicates world time. Sans-IO like the client.

use std::collections::{BTreeMap, VecDeque};

use std::sync::Arc;

use glam::{DVec2, DVec3};

use super::binding::{Bindings, Layouts};
use super::client::Transmit;
use super::cycle::{MoveClock, clamp_delta, compare, emit_one_shots, run_move};
use super::input::{InputScript, InputScriptConfig};
use super::messages::{
    ClientMsg, Delivery, DeviationReport, HEADER_BYTES, NO_OWNER, ProxyEntry,
    STATE_UPDATE_HEADER_BITS, ServerMsg, StateEntries, WireMove,
};
use super::pawn::{Execution, PawnValues, TickOutput};
use super::proxy::Proxy;
use super::settings::{Faults, GmcSettings, NetMode, SmoothingSettings, WorldSettings};
use super::telemetry::{Event, Hook, LogLevel, MoveValues, NetContext, Rejection, Role};
use super::wire::{self, Datagram, DecodeError, SeqWindow};
use crate::support::rng::{Rng, derive_seed, purpose};

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
    /// Recent (server time, location), for rollback.
    history: VecDeque<(f64, DVec3)>,
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
    nonce: u32,
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
            let values = PawnValues {
                team: team_of(k),
                ..PawnValues::spawn_at(loc, yaw)
            };
            pawns.push(ServerPawn {
                id: k,
                owner: None,
                values,
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
            let values = PawnValues {
                team: team_of(id),
                ..PawnValues::spawn_at(loc, yaw)
            };
            pawns.push(ServerPawn {
                id,
                owner: None,
                values,
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

    /// Forgets a client and removes its pawn (it disconnected or timed out).
    pub fn drop_client(&mut self, now: f64, client: u16, why: &str) {
        if let Some(rc) = self.clients.remove(&client) {
            self.pawns.retain(|p| p.id != rc.pawn);
            self.host_view.remove(&rc.pawn);
            for (&c, other) in self.clients.iter_mut() {
                if other.known.remove(rc.pawn) {
                    self.outbox.push_back((
                        c,
                        ServerMsg::ProxyDespawn { pawn: rc.pawn },
                        Delivery::Reliable,
                    ));
                }
            }
            self.telemetry.push((
                now,
                Event::Log {
                    level: super::telemetry::LogLevel::Warning,
                    text: format!("client {client} dropped ({why}); its pawn was removed"),
                },
            ));
        }
    }

    /// Clients currently joined.
    pub fn client_ids(&self) -> Vec<u16> {
        self.clients.keys().copied().collect()
    }

    /// Hands a datagram to the server. Returns the sending client's id, so the transport can
    /// tell which address is whose. Malformed datagrams and duplicates are dropped and reported.
    pub fn handle_datagram(&mut self, now: f64, bytes: &[u8]) -> Result<u16, DecodeError> {
        let decoded = wire::decode(bytes, |v| self.layouts.get(v).map(|b| &**b));
        let reject =
            |s: &mut Self, reason: Rejection| s.telemetry.push((now, Event::Rejected { reason }));
        match decoded {
            Ok((h, Datagram::Client(msg))) => {
                // A restarted client numbers its datagrams from 1 again: its join (a nonce
                // the server has not seen from it) starts a new window, or it would look like
                // an old duplicate for as long as the old numbering ran ahead.
                if let ClientMsg::Join { nonce, .. } = &msg
                    && self
                        .clients
                        .get(&h.sender)
                        .is_some_and(|rc| rc.nonce != *nonce)
                {
                    self.recv_windows.remove(&h.sender);
                }
                if self.recv_windows.entry(h.sender).or_default().accept(h.seq) {
                    self.handle_msg(now, h.sender, msg);
                } else {
                    reject(self, Rejection::Duplicate);
                }
                Ok(h.sender)
            }
            Ok((h, Datagram::Keepalive)) => Ok(h.sender),
            Ok((_, Datagram::Server(_))) => {
                reject(self, Rejection::Malformed(DecodeError::WrongDirection));
                Err(DecodeError::WrongDirection)
            }
            Err(e) => {
                reject(self, Rejection::Malformed(e.clone()));
                Err(e)
            }
        }
    }

    /// Hands a decoded message from client `from` to the server. Pings are answered at once;
    /// everything else waits for the next frame.
    pub fn handle_msg(&mut self, now: f64, from: u16, msg: ClientMsg) {
        if let Some(rc) = self.clients.get_mut(&from) {
            rc.last_heard = now;
        }
        match msg {
            ClientMsg::Ping { seq, client_time } => self.outbox.push_back((
                from,
                ServerMsg::Pong { seq, client_time },
                Delivery::Unreliable,
            )),
            other => self.inbox.push((from, other)),
        }
    }

    /// Runs one server frame at server time `now` (the authoritative world clock).
    pub fn frame(&mut self, now: f64) {
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
                ClientMsg::Join { nonce, layout_hash } => self.join(now, from, nonce, layout_hash),
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
                    Event::PawnSample(std::sync::Arc::new(super::telemetry::PawnSample::on_grid(
                        p.id,
                        p.owner,
                        super::telemetry::SampleKind::Authoritative,
                        p.values.location,
                        p.values.velocity,
                        p.values.rotation.y,
                    ))),
                ));
            }
            if self.cfg.net_mode == NetMode::Listen {
                let b = self.layouts.current_bindings().clone();
                for p in self.host_view.values() {
                    let v = p.display(&b);
                    self.telemetry.push((
                        now,
                        Event::PawnSample(std::sync::Arc::new(
                            super::telemetry::PawnSample::on_grid(
                                p.pawn,
                                p.owner,
                                super::telemetry::SampleKind::Displayed,
                                v.location,
                                v.velocity,
                                v.rotation.y,
                            ),
                        )),
                    ));
                }
            }
        }
        for p in &mut self.pawns {
            p.history.push_back((now, p.values.location));
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

    /// Where pawn `i` was at server time `at` (from its history; now if older than kept).
    fn location_at(&self, i: usize, at: f64) -> DVec3 {
        let h = &self.pawns[i].history;
        let k = h.partition_point(|(t, _)| *t <= at);
        match (k.checked_sub(1).and_then(|j| h.get(j)), h.get(k)) {
            (Some((t0, a)), Some((t1, b))) if t1 > t0 => a.lerp(*b, (at - t0) / (t1 - t0)),
            (Some((_, a)), _) => *a,
            (None, Some((_, b))) => *b,
            (None, None) => self.pawns[i].values.location,
        }
    }

    /// What a tick reading a random number without a bound seed gets (a draw only under
    /// that pitfall).
    fn tick_random(&mut self) -> f64 {
        if self.cfg.faults.unseeded_random_in_tick {
            self.tick_rng.f64()
        } else {
            0.5
        }
    }

    /// The hook trace of a rollback around a remote move: every pawn but the mover is swapped
    /// to its historical state (OnPawnRolledBack, then OnSyncDataApplied with RollbackSwap) and
    /// back after the move (OnSyncDataApplied with RollbackSwap).
    fn rollback_swap(&mut self, now: f64, mover: usize, move_id: u32, back_in_time: bool) {
        if self.hook_trace {
            let others = self
                .pawns
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != mover)
                .map(|(_, p)| p.id);
            super::cycle::rollback_hooks(&mut self.telemetry, now, others, move_id, back_in_time);
        }
    }

    /// The server's verdict on a dash by `client`'s pawn in move `move_id`: the nearest other
    /// pawn in reach, with every other pawn rolled back to the client's view time
    /// (bRollBackServerPawns) or where they are now.
    fn hit_check(&mut self, now: f64, pawn_idx: usize, client: u16, m: &WireMove) {
        let roll = self.cfg.gmc.roll_back_server_pawns;
        let view = m.timestamp - self.clients.get(&client).map_or(0.0, |c| c.view_delay);
        let from = self.pawns[pawn_idx].values.location;
        let others: Vec<(u16, DVec3)> = (0..self.pawns.len())
            .filter(|&i| i != pawn_idx)
            .map(|i| {
                let at = if roll {
                    self.location_at(i, view)
                } else {
                    self.pawns[i].values.location
                };
                (self.pawns[i].id, at)
            })
            .collect();
        let target = super::pawn::tag_target(from, others.into_iter());
        self.telemetry.push((
            now,
            Event::HitCheck {
                client,
                move_id: m.id,
                target,
                rolled_back: roll,
            },
        ));
    }

    /// Tells clients about pawns they do not know yet, sends forced updates for changed
    /// PeriodicAndOnChange values, and the periodic state updates.
    fn replicate_to_proxies(&mut self, now: f64) {
        if self.clients.is_empty() {
            // No proxies anywhere (standalone, or nobody joined yet).
            return;
        }
        let b = self.layouts.current_bindings().clone();
        let layout = self.layouts.current();
        let actor_team = !self.cfg.faults.spawn_data_only_bound;
        let predicting = self.cfg.gmc.use_client_prediction;
        // Spawns.
        for (&c, rc) in self.clients.iter_mut() {
            for p in &self.pawns {
                if p.id != rc.pawn && !rc.known.contains(p.id) && rc.known.insert(p.id) {
                    self.outbox.push_back((
                        c,
                        ServerMsg::ProxySpawn {
                            pawn: p.id,
                            owner: p.owner.unwrap_or(NO_OWNER),
                            team: if actor_team { p.values.team } else { 0 },
                        },
                        Delivery::Reliable,
                    ));
                }
            }
        }
        // Forced updates: a PeriodicAndOnChange value changed.
        let mut forced: Vec<ProxyEntry> = Vec::new();
        for p in &mut self.pawns {
            if !p.values.differs_in(&p.last_sent, b.on_change) {
                continue;
            }
            for bd in b.list() {
                if b.on_change.contains(bd.field)
                    && p.values.get(bd.field) != p.last_sent.get(bd.field)
                {
                    self.telemetry.push((
                        now,
                        Event::ForcedUpdate {
                            pawn: p.id,
                            binding: bd.name.clone(),
                        },
                    ));
                }
            }
            p.last_sent = p.values;
            forced.push(ProxyEntry {
                pawn: p.id,
                forced: true,
                values: p.values,
            });
        }
        let periodic = now >= self.next_net_update;
        if periodic {
            let interval = 1.0 / self.cfg.net_update_rate.max(0.1);
            self.next_net_update = (self.next_net_update + interval).max(now);
            for p in &mut self.pawns {
                p.last_sent = p.values;
            }
        }
        if forced.is_empty() && !periodic {
            return;
        }
        let all: Arc<[ProxyEntry]> = if periodic {
            self.pawns
                .iter()
                .map(|p| ProxyEntry {
                    pawn: p.id,
                    forced: forced.iter().any(|f| f.pawn == p.id),
                    values: p.values,
                })
                .collect()
        } else {
            forced.into()
        };
        // Each entry's encoded size (the same in every client's update): encoded once here,
        // into the cache the datagrams' encoding copies from, which also learns the list so
        // that it finds each picked entry's bits by index.
        let bits = self.entry_cache.share(&b, layout, now, &all);
        // Packed in order by the entries' actual sizes: a datagram takes entries while its
        // encoded size stays within the batch limit (at least one entry, at most 255).
        let limit_bits = (super::client::MAX_BATCH_BYTES - HEADER_BYTES) * 8;
        for (&c, rc) in &self.clients {
            let wanted = |e: &ProxyEntry| {
                (e.pawn != rc.pawn && rc.known.contains(e.pawn))
                    || (e.pawn == rc.pawn && !predicting)
            };
            let mut chunk: Vec<u16> = Vec::new();
            let mut chunk_bits = STATE_UPDATE_HEADER_BITS;
            for (i, (e, &(_, eb))) in all.iter().zip(bits).enumerate() {
                // `all` has one entry per pawn, far fewer than 2^16 (the preset's limits).
                let Ok(i) = u16::try_from(i) else {
                    break;
                };
                if !wanted(e) {
                    continue;
                }
                if !chunk.is_empty() && (chunk.len() >= 255 || chunk_bits + eb > limit_bits) {
                    self.outbox.push_back((
                        c,
                        ServerMsg::StateUpdate {
                            layout,
                            server_time: now,
                            entries: StateEntries::picked(all.clone(), std::mem::take(&mut chunk)),
                        },
                        Delivery::Unreliable,
                    ));
                    chunk_bits = STATE_UPDATE_HEADER_BITS;
                }
                if chunk.is_empty() {
                    chunk.reserve(all.len());
                }
                chunk.push(i);
                chunk_bits += eb;
            }
            if !chunk.is_empty() {
                self.outbox.push_back((
                    c,
                    ServerMsg::StateUpdate {
                        layout,
                        server_time: now,
                        entries: StateEntries::picked(all.clone(), chunk),
                    },
                    Delivery::Unreliable,
                ));
            }
        }
    }

    /// Listen server: the host displays remote pawns smoothed (IsSmoothedListenServerPawn);
    /// GenSimulationTick runs for them here.
    fn update_host_view(&mut self, now: f64, dt: f64) {
        let b = self.layouts.current_bindings().clone();
        let remote: Vec<(u16, Option<u16>, PawnValues)> = self
            .pawns
            .iter()
            .filter(|p| p.owner.is_some())
            .map(|p| (p.id, p.owner, p.values))
            .collect();
        let cfg = self.cfg.smoothing;
        let mut frames = Vec::new();
        let mut effects = Vec::new();
        for (id, owner, values) in remote {
            let p = match self.host_view.entry(id) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => {
                    self.telemetry.push((
                        now,
                        Event::Role {
                            pawn: id,
                            role: Role::SmoothedListenServerPawn,
                        },
                    ));
                    e.insert(Proxy::new(id, owner, now, values.team))
                }
            };
            p.receive(now, now, &values, b.simulated);
            let f = p.update(now, now, 0.0, &cfg, 0.0, &b, &mut self.view_rng, None);
            frames.push(f);
            let last = p.last_effect_count.replace(f.dash_count);
            if last.is_some_and(|l| l != f.dash_count) {
                effects.push(id);
            }
            if self.hook_trace {
                self.telemetry.push((
                    now,
                    Event::Hook {
                        hook: Hook::GenSimulationTick,
                        pawn: id,
                        move_id: 0,
                        iteration: 0,
                        exec: None,
                        context: None,
                    },
                ));
            }
        }
        for pawn in effects {
            self.telemetry.push((now, Event::ProxyEffect { pawn }));
        }
        if !frames.is_empty() {
            self.host_stats.frame(&frames, dt);
        }
        if let Some(e) = self.host_stats.take(now) {
            self.telemetry.push((now, e));
        }
    }

    fn join(&mut self, now: f64, from: u16, nonce: u32, layout_hash: u32) {
        let own = self.layouts.current_bindings().layout_hash();
        if layout_hash != own && self.layout_errors.insert(from, layout_hash) != Some(layout_hash) {
            self.telemetry.push((
                now,
                Event::Log {
                    level: super::telemetry::LogLevel::Error,
                    text: format!(
                        "client {from} bound a different binding list (layout {layout_hash:08x}, \
                         server {own:08x}): every state the two exchange is garbage"
                    ),
                },
            ));
        }
        let rejoin = match self.clients.get_mut(&from) {
            Some(rc) if rc.nonce == nonce => None, // a retransmitted join
            Some(rc) => {
                // The client restarted: a new session for the same pawn.
                rc.nonce = nonce;
                rc.last_executed = 0;
                rc.buffer.clear();
                rc.gap_since = None;
                rc.epoch = 0;
                rc.last_heard = now;
                rc.known.clear();
                Some(true)
            }
            None => {
                let id = self.next_pawn_id;
                self.next_pawn_id = self.next_pawn_id.wrapping_add(1);
                let (loc, yaw) = spawn_point(self.cfg.world.spawn_radius, u32::from(from));
                let first_turret = if self.cfg.world.turret_period_s > 0.0 {
                    now + self
                        .turret_rng
                        .range(0.5, 0.5 + self.cfg.world.turret_period_s)
                } else {
                    f64::INFINITY
                };
                let values = PawnValues {
                    team: team_of(id),
                    ..PawnValues::spawn_at(loc, yaw)
                };
                self.pawns.push(ServerPawn {
                    id,
                    owner: Some(from),
                    values,
                    host: false,
                    ai: None,
                    next_turret: first_turret,
                    last_sent: values,
                    history: VecDeque::new(),
                });
                self.telemetry.push((
                    now,
                    Event::Role {
                        pawn: id,
                        role: Role::RemotelyControlledServerPawn,
                    },
                ));
                self.trace(
                    now,
                    Event::hook(Hook::BindReplicationData, id, 0, 0, None, None),
                );
                self.clients.insert(
                    from,
                    RemoteClient {
                        pawn: id,
                        nonce,
                        last_heard: now,
                        last_executed: 0,
                        buffer: BTreeMap::new(),
                        gap_since: None,
                        epoch: 0,
                        known: PawnSet::default(),
                        view_delay: 0.0,
                    },
                );
                Some(false)
            }
        };
        let Some(pawn_id) = self.clients.get(&from).map(|rc| rc.pawn) else {
            return;
        };
        if let Some(rejoin) = rejoin {
            self.telemetry.push((
                now,
                Event::Joined {
                    client: from,
                    pawn: pawn_id,
                    rejoin,
                },
            ));
        }
        let Some(pawn_idx) = self.pawn_index(pawn_id) else {
            return;
        };
        let p = &self.pawns[pawn_idx];
        let b = self.layouts.current_bindings();
        // What the owning client has of its pawn before the first server update: the actor's
        // spawn transform and what travels as ordinary actor properties. Server-authoritative
        // bound values arrive with the first update; the team also travels as an actor
        // property and seeds the bound copy, unless only bound (`spawn_data_only_bound`).
        let mut spawn = p.values.quantized(b.list(), b.bound);
        if self.cfg.faults.spawn_data_only_bound {
            spawn.team = 0;
        }
        self.outbox.push_back((
            from,
            ServerMsg::Welcome {
                layout: self.layouts.current(),
                pawn: p.id,
                spawn,
                replicators: self.cfg.world_time_replicators,
                server_time: now,
            },
            Delivery::Reliable,
        ));
    }

    /// Executes the client's received moves in order and replies once. A missing move holds
    /// later ones back until it arrives or `move_gap_timeout` passes; then it is skipped.
    fn execute_remote_moves(&mut self, now: f64, client: u16) -> u16 {
        let gap_timeout = self.cfg.gmc.move_gap_timeout;
        let Some(rc) = self.clients.get_mut(&client) else {
            return 0;
        };
        let mut ready: Vec<(WireMove, u32, u8)> = Vec::new();
        let mut skipped: Option<(u32, u32)> = None;
        while let Some(entry) = rc.buffer.first_entry() {
            let id = *entry.key();
            if id != rc.last_executed + 1 {
                let since = *rc.gap_since.get_or_insert(now);
                if now - since < gap_timeout {
                    break;
                }
                skipped = Some((rc.last_executed + 1, id - 1));
            }
            rc.gap_since = None;
            rc.last_executed = id;
            ready.push(entry.remove());
        }
        if ready.is_empty() {
            return 0;
        }
        if let Some((from, to)) = skipped {
            self.telemetry
                .push((now, Event::MovesSkipped { client, from, to }));
        }
        let Some(rc) = self.clients.get(&client) else {
            return 0;
        };
        let current_epoch = rc.epoch;
        let Some(pawn_idx) = self.pawn_index(rc.pawn) else {
            return 0;
        };
        let mut reports: Vec<DeviationReport> = Vec::new();
        let mut newest = 0;
        let mut newest_layout = self.layouts.current();
        let mut count = 0u16;
        // The binding list of the moves' layout, cloned when the layout changes (not per move:
        // each clone is an atomic count).
        let mut held: Option<(u8, Arc<Bindings>)> = None;
        for (m, epoch, layout) in ready {
            if held.as_ref().is_none_or(|(l, _)| *l != layout) {
                held = self.layouts.get(layout).map(|b| (layout, b.clone()));
            }
            let Some((_, b)) = held.as_ref() else {
                self.telemetry.push((
                    now,
                    Event::Log {
                        level: LogLevel::Error,
                        text: format!(
                            "client {client} sent move {} with unknown binding layout {layout}; \
                             it was not executed",
                            m.id
                        ),
                    },
                ));
                continue;
            };
            // Without client prediction there is nothing to validate.
            let validate = self.cfg.gmc.use_client_prediction
                && epoch == current_epoch
                && (reports.is_empty() || self.cfg.gmc.force_full_validation);
            let sink = validate.then_some(&mut reports);
            self.execute_remote(now, pawn_idx, client, b, &m, sink);
            newest = m.id;
            newest_layout = layout;
            count += 1;
        }
        if count == 0 {
            return 0;
        }
        let Some(b) = self.layouts.get(newest_layout) else {
            return count;
        };
        let p = &self.pawns[pawn_idx];
        if reports.is_empty() {
            let values = p.values.quantized(b.list(), b.client_validated);
            self.outbox.push_back((
                client,
                ServerMsg::Ack {
                    layout: newest_layout,
                    move_id: newest,
                    values,
                },
                Delivery::Unreliable,
            ));
        } else {
            let state = p.values.quantized(b.list(), b.server_auth);
            let rc = self.clients.get_mut(&client).expect("client exists");
            rc.epoch += 1;
            self.telemetry.push((
                now,
                Event::CorrectionSent {
                    client,
                    move_id: newest,
                    deviations: reports.len() as u16,
                },
            ));
            self.outbox.push_back((
                client,
                ServerMsg::Correction {
                    layout: newest_layout,
                    move_id: newest,
                    epoch: rc.epoch,
                    state,
                    deviations: reports,
                },
                Delivery::Reliable,
            ));
        }
        count
    }

    fn execute_remote(
        &mut self,
        now: f64,
        pawn_idx: usize,
        client: u16,
        b: &Bindings,
        m: &WireMove,
        // Where to put deviations; `None` executes without validating.
        reports: Option<&mut Vec<DeviationReport>>,
    ) {
        let pawn_id = self.pawns[pawn_idx].id;
        // bRollBackServerPawns: for the whole execution (tick and hit check) the other pawns
        // stand where the moving client saw them, at its view time.
        let roll = self.cfg.gmc.roll_back_server_pawns;
        let others = if roll {
            let view = m.timestamp - self.clients.get(&client).map_or(0.0, |c| c.view_delay);
            self.rollback_swap(now, pawn_idx, m.id, true);
            if self.cfg.faults.tick_reads_proxy_transform {
                (0..self.pawns.len())
                    .filter(|&i| i != pawn_idx)
                    .map(|i| self.location_at(i, view))
                    .collect()
            } else {
                Vec::new()
            }
        } else {
            self.others(pawn_id)
        };
        self.trace(
            now,
            Event::hook(
                Hook::OnSyncDataApplied,
                pawn_id,
                m.id,
                0,
                None,
                Some(NetContext::ServerPawn_PreRemoteMoveExecution),
            ),
        );
        let (frame_delta, random) = (self.frame_dt, self.tick_random());
        let world = &self.cfg.world;
        let p = &mut self.pawns[pawn_idx];
        // The client's input for client-authoritative input values; server-owned inputs keep
        // the server's value.
        p.values.copy_fields(&m.input, b.client_auth_input);
        if now >= p.next_turret {
            let a = self.turret_rng.range(0.0, std::f64::consts::TAU);
            p.values.velocity += (DVec2::from_angle(a) * world.turret_knockback).extend(0.0);
            p.next_turret += world.turret_period_s.max(0.01);
            while p.next_turret <= now {
                p.next_turret += world.turret_period_s.max(0.01);
            }
            self.telemetry.push((now, Event::TurretHit { pawn: p.id }));
        }
        let delta = clamp_delta(&self.cfg.gmc, m.delta);
        // The value trace starts with the values at entry (no copy when it is off).
        if let Some(t) = self.value_trace.as_mut() {
            t.clear();
            t.push(p.values);
        }
        let n = run_move(
            &mut p.values,
            delta,
            Execution::Remote,
            MoveClock {
                move_timestamp: m.timestamp,
                world_time: now,
                others: &others,
                frame_delta,
                random,
            },
            &self.cfg.gmc,
            &self.cfg.faults,
            &mut self.tick_out,
            self.value_trace.as_mut(),
        );
        // GenAncillaryTick(delta, bLocalMove = false, bCombinedClientMove = false) runs here.
        p.values.copy_fields(&m.output, b.client_auth_output);
        if let Some(t) = self.value_trace.as_mut() {
            let (entry, substeps) = super::cycle::split_trace(std::mem::take(t), p.values);
            self.telemetry.push((
                now,
                Event::MoveValues(std::sync::Arc::new(MoveValues {
                    pawn: p.id,
                    owner: Some(client),
                    move_id: m.id,
                    exec: Execution::Remote,
                    entry,
                    substeps,
                    exit: p.values,
                })),
            ));
        }
        let dashed = self
            .tick_out
            .one_shots
            .iter()
            .any(|o| o.kind == super::pawn::OneShotKind::DashFired);
        let p = &self.pawns[pawn_idx];
        emit_one_shots(
            &mut self.telemetry,
            now,
            p.id,
            Some(client),
            Execution::Remote,
            &self.tick_out,
        );
        if dashed {
            self.hit_check(now, pawn_idx, client, m);
        }
        let p = &self.pawns[pawn_idx];
        if let Some(reports) = reports {
            let full = self.cfg.gmc.force_full_validation;
            let checks = b
                .server_validated_inputs()
                .map(|(i, bd)| (i, bd, m.input.get(bd.field)))
                .chain(
                    b.server_validated_outputs()
                        .map(|(i, bd)| (i, bd, m.output.get(bd.field))),
                );
            for (i, bd, claimed) in checks {
                let server_value = bd.ty.quantize(&p.values.get(bd.field));
                if compare(bd, m.id, &claimed, &server_value).is_some() {
                    reports.push(DeviationReport {
                        move_id: m.id,
                        binding: i as u16,
                        client_value: claimed,
                        server_value,
                    });
                    if !full {
                        break;
                    }
                }
            }
        }
        self.tick_hooks(now, pawn_id, m.id, n, Execution::Remote);
        self.trace(
            now,
            Event::hook(
                Hook::OnSyncDataApplied,
                pawn_id,
                m.id,
                0,
                None,
                Some(NetContext::ServerPawn_PostRemoteMoveExecution),
            ),
        );
        if roll {
            self.rollback_swap(now, pawn_idx, m.id, false);
        }
        let p = &self.pawns[pawn_idx];
        self.telemetry.push((
            now,
            Event::RemoteMoveExecuted(std::sync::Arc::new(super::telemetry::RemoteMove {
                pawn: p.id,
                client,
                move_id: m.id,
                timestamp: m.timestamp,
                delta,
                substeps: n,
                age: now - m.timestamp,
            })),
        ));
    }

    fn local_move(&mut self, now: f64, dt: f64, i: usize) {
        let delta = clamp_delta(&self.cfg.gmc, dt);
        let pawn_id = self.pawns[i].id;
        let others = self.others(pawn_id);
        self.trace(
            now,
            Event::hook(Hook::PreLocalMoveExecution, pawn_id, 0, 0, None, None),
        );
        let p = &mut self.pawns[i];
        let raw = match p.ai.as_mut() {
            Some(script) => script.sample(now),
            None => return,
        };
        // PreLocalMoveExecution.
        let mut input = p.values;
        input.input_move = raw.dir;
        input.input_dash = raw.dash;
        // Borrowed, not cloned (an atomic count per move).
        let b = self.layouts.current_bindings();
        let input = input.quantized(b.list(), b.input);
        p.values.copy_fields(&input, b.input);
        if self.hook_trace {
            self.telemetry.push((
                now,
                Event::hook(
                    Hook::OnSyncDataApplied,
                    pawn_id,
                    0,
                    0,
                    None,
                    Some(NetContext::ServerPawn_PreLocalMoveExecution),
                ),
            ));
        }
        let random = self.tick_random();
        let p = &mut self.pawns[i];
        let n = run_move(
            &mut p.values,
            delta,
            Execution::ServerLocal,
            MoveClock {
                move_timestamp: now,
                world_time: now,
                others: &others,
                frame_delta: dt,
                random,
            },
            &self.cfg.gmc,
            &self.cfg.faults,
            &mut self.tick_out,
            None,
        );
        emit_one_shots(
            &mut self.telemetry,
            now,
            p.id,
            None,
            Execution::ServerLocal,
            &self.tick_out,
        );
        self.telemetry.push((
            now,
            Event::LocalMoveExecuted {
                pawn: p.id,
                delta,
                substeps: n,
            },
        ));
        self.tick_hooks(now, pawn_id, 0, n, Execution::ServerLocal);
        self.trace(
            now,
            Event::hook(
                Hook::OnSyncDataApplied,
                pawn_id,
                0,
                0,
                None,
                Some(NetContext::ServerPawn_PostLocalMoveExecution),
            ),
        );
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
