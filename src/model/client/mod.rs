//! The owning client (autonomous proxy): builds, combines, sends and replays moves, keeps its
//! synchronized clock, and measures ping. Sans-IO: time and datagrams come in as arguments,
//! datagrams and telemetry go out through `poll_*`.

use std::collections::VecDeque;
use std::sync::Arc;

use super::binding::{Bindings, CombineMode, Layouts};
use super::cycle::{MoveClock, clamp_delta, compare, emit_one_shots, quantize_time, run_move};
use super::input::RawInput;
use super::messages::{
    ClientMsg, Delivery, MsgKind, ServerMsg, WireMove, move_value_bits, moves_bytes_with,
};
use super::pawn::{Execution, PawnValues, TickOutput};
use super::proxy::{Proxy, ProxyList, SimulationCtx};
use super::settings::SmoothingSettings;
use super::settings::{Faults, GmcSettings};
use super::telemetry::{
    DetectedBy, Deviation, DisplayMode, Event, Hook, LogLevel, MoveValues, NetContext, Rejection,
    Role, SampleKind,
};
use super::wire::{self, Datagram, DecodeError, SeqWindow};
use crate::support::rng::Rng;

/// Largest payload a move batch may have, so the transport never fragments.
pub const MAX_BATCH_BYTES: usize = 1100;
/// Seconds without any message from the server after which the client rejoins.
pub const CONNECTION_TIMEOUT: f64 = 5.0;
/// Datagrams an unreliable send may use to repeat unacknowledged moves.
pub const MAX_UNRELIABLE_DATAGRAMS: usize = 3;

/// The buffer trace reports a proxy's display delay again when it moved by more than this
/// (s): every re-sync of the adaptive delay, not MatchLatest's every-frame drift.
pub const BUFFER_TRACE_DELAY_STEP: f64 = 0.001;

#[derive(Clone, Debug)]
pub struct ClientConfig {
    pub id: u16,
    /// Differs between two runs of the same client id (a restarted client), so the server can
    /// tell a rejoin from a retransmitted join.
    pub nonce: u32,
    pub gmc: GmcSettings,
    pub faults: Faults,
    pub bindings: Arc<Bindings>,
    pub smoothing: SmoothingSettings,
    /// Seeds the client's own random stream (smoothing re-sync spread).
    pub seed: u64,
    /// Emit a telemetry event for every hook invocation.
    pub hook_trace: bool,
    /// Emit the pawn's values around every move execution (`Event::MoveValues`).
    pub value_trace: bool,
    /// Emit each proxy state's arrival and every change of how a proxy is displayed
    /// (`Event::ProxyState`, `Event::ProxyDisplay`: the interpolation buffer view).
    pub buffer_trace: bool,
    /// Pawn samples per second for the world view (0: none).
    pub world_view_rate: f64,
}

/// A move in the client's history.
#[derive(Clone, Debug, PartialEq)]
pub struct Move {
    pub id: u32,
    /// Binding layout version the move was made with.
    pub layout: u8,
    pub timestamp: f64,
    /// Timestamp of the move before it; the delta is derived from the two.
    pub prev_timestamp: f64,
    pub delta: f64,
    /// The input state (input fields only are meaningful).
    pub input: PawnValues,
    /// The pawn before the move ran (what a combined re-run resets to).
    pub start: PawnValues,
    /// The pawn after the move ran (the prediction the server's result is compared with).
    pub output: PawnValues,
    /// Frames merged into this move.
    pub frames: u16,
    /// Iterations of the latest execution, and the most any execution of it used.
    pub substeps: u16,
    pub max_substeps: u16,
    pub sealed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    Connecting { join_sent: Option<f64> },
    Playing,
}

/// A datagram ready to leave, with how it must travel.
#[derive(Clone, Debug, PartialEq)]
pub struct Transmit {
    pub bytes: Vec<u8>,
    pub delivery: Delivery,
    pub kind: MsgKind,
}

pub struct Client {
    cfg: ClientConfig,
    layouts: Layouts,
    proxies: ProxyList,
    /// Smoothing settings and spawn pause of the last proxy update.
    proxy_settings: Option<(SmoothingSettings, f64)>,
    /// Changes whenever a proxy appears or goes.
    proxy_set_version: u64,
    /// What the last frame's proxy update gave, while later frames would give the same.
    steady: Option<SteadyFrame>,
    /// The entries buffer of the last state update, reused for decoding the next.
    entry_scratch: Vec<super::messages::ProxyEntry>,
    /// Positions of the proxies a state update decoded in place staged a state in (reused).
    staged: Vec<usize>,
    /// The own pawn shown from server states when client prediction is off.
    own_proxy: Option<Proxy>,
    rng: Rng,
    /// The generator a tick reads without a bound seed (`unseeded_random_in_tick`).
    tick_rng: Rng,
    /// This frame's delta (what a tick reading the frame delta gets).
    frame_dt: f64,
    hook_trace: bool,
    /// Proxy arrivals and display changes (the interpolation buffer view).
    buffer_trace: bool,
    /// Sub-step values of the execution running, when the value trace is on.
    value_trace: Option<Vec<PawnValues>>,
    last_seen_dash: Option<u8>,
    /// How far in the past proxies are displayed (s), as of the last frame.
    view_delay: f64,
    next_sample: f64,
    display_stats: super::proxy::DisplayStats,

    send_seq: u32,
    recv_window: SeqWindow,
    phase: Phase,
    pawn: u16,
    values: PawnValues,
    /// Closed moves the server has not acknowledged yet, oldest first.
    history: VecDeque<Move>,
    /// The move frames are still merged into.
    current: Option<Move>,
    next_move_id: u32,
    last_closed_timestamp: Option<f64>,
    last_timestamp: f64,
    acked: u32,
    sent_upto: u32,
    epoch: u32,
    reliable_in_flight: VecDeque<u32>,
    last_send: Option<f64>,
    replicators: Option<u8>,
    clock_offset: Option<f64>,
    last_world_time: f64,
    rtt: Option<f64>,
    join_rtt: Option<f64>,
    next_ping: f64,
    ping_seq: u32,
    last_pong_seq: u32,
    last_frame: Option<f64>,
    last_heard: f64,
    prev_dash: bool,
    history_overflow_logged: bool,
    inbox: Vec<ServerMsg>,
    outbox: VecDeque<(ClientMsg, Delivery)>,
    telemetry: Vec<(f64, Event)>,
    tick_out: TickOutput,
}

impl Client {
    pub fn new(cfg: ClientConfig) -> Self {
        Client {
            layouts: Layouts::new(cfg.bindings.clone()),
            proxies: ProxyList::default(),
            entry_scratch: Vec::new(),
            staged: Vec::new(),
            proxy_settings: None,
            proxy_set_version: 0,
            steady: None,
            own_proxy: None,
            rng: Rng::new(cfg.seed),
            tick_rng: Rng::new(crate::support::rng::derive_seed(
                cfg.seed,
                crate::support::rng::purpose::TICK_RANDOM,
                0,
            )),
            frame_dt: 0.0,
            hook_trace: cfg.hook_trace,
            buffer_trace: cfg.buffer_trace,
            value_trace: cfg.value_trace.then(Vec::new),
            last_seen_dash: None,
            view_delay: 0.0,
            next_sample: 0.0,
            display_stats: Default::default(),

            send_seq: 0,
            recv_window: SeqWindow::default(),
            cfg,
            phase: Phase::Connecting { join_sent: None },
            pawn: 0,
            values: PawnValues::default(),
            history: VecDeque::new(),
            current: None,
            next_move_id: 1,
            last_closed_timestamp: None,
            last_timestamp: f64::NEG_INFINITY,
            acked: 0,
            sent_upto: 0,
            epoch: 0,
            reliable_in_flight: VecDeque::new(),
            last_send: None,
            replicators: None,
            clock_offset: None,
            last_world_time: f64::NEG_INFINITY,
            rtt: None,
            join_rtt: None,
            next_ping: 0.0,
            ping_seq: 0,
            last_pong_seq: 0,
            last_frame: None,
            last_heard: 0.0,
            prev_dash: false,
            history_overflow_logged: false,
            inbox: Vec::new(),
            outbox: VecDeque::new(),
            telemetry: Vec::new(),
            tick_out: TickOutput::default(),
        }
    }

    pub fn id(&self) -> u16 {
        self.cfg.id
    }
    pub fn is_playing(&self) -> bool {
        self.phase == Phase::Playing
    }
    pub fn pawn(&self) -> u16 {
        self.pawn
    }
    /// The pawn as the client shows it now (predicted).
    pub fn values(&self) -> &PawnValues {
        &self.values
    }
    /// The binding list new moves use.
    pub fn bindings(&self) -> &Arc<Bindings> {
        self.layouts.current_bindings()
    }

    pub fn layouts(&self) -> &Layouts {
        &self.layouts
    }

    /// Defines a binding layout version. Defining the version in use changes the client's
    /// bindings without the server knowing (the inconsistent change, pitfall 10).
    pub fn define_layout(&mut self, version: u8, b: Arc<Bindings>) {
        self.layouts.define(version, b);
    }

    /// From the next new move on, moves use this layout version (a move boundary).
    pub fn use_layout(&mut self, version: u8) -> bool {
        self.layouts.select(version)
    }

    /// Changes GMC settings from the next frame on.
    pub fn set_gmc(&mut self, gmc: GmcSettings) {
        self.cfg.gmc = gmc;
    }

    /// Changes how proxies are smoothed from the next frame on.
    pub fn set_smoothing(&mut self, smoothing: SmoothingSettings) {
        self.cfg.smoothing = smoothing;
    }

    /// Changes the pitfall switches that live in the tick (binding mistakes are layouts).
    pub fn set_faults(&mut self, faults: Faults) {
        self.cfg.faults = faults;
    }
    /// Moves awaiting acknowledgement (closed ones plus the open one).
    pub fn pending_moves(&self) -> usize {
        self.history.len() + usize::from(self.current.is_some())
    }
    pub fn rtt(&self) -> Option<f64> {
        self.rtt
    }

    /// `GetTime()` on this client: the synchronized server time, or the client's own world
    /// time when no world-time replicator ever synchronized it.
    pub fn synced_time(&self, now: f64) -> f64 {
        now + self.clock_offset.unwrap_or(0.0)
    }

    /// Hands a datagram from the server to the client. A malformed datagram or a duplicate is
    /// dropped and reported in telemetry, never acted on.
    pub fn handle_datagram(&mut self, now: f64, bytes: &[u8]) -> Result<(), DecodeError> {
        if wire::kind_of(bytes) == MsgKind::StateUpdate && self.receive_state_update(now, bytes) {
            return Ok(());
        }
        self.handle_datagram_decoded(now, bytes)
    }

    /// A state update decoded straight into the proxies' buffers (no entry list; the same
    /// result as [`Client::handle_datagram_decoded`], which `state_updates_decoded_in_place_
    /// match_the_entry_list` checks). Every entry is staged in its proxy and committed only
    /// once the whole datagram decoded: false, with nothing changed, when the datagram must
    /// take the usual way (it does not decode, an entry is for the own pawn shown as a proxy,
    /// for a proxy twice, or for a proxy that would not append it).
    fn receive_state_update(&mut self, now: f64, bytes: &[u8]) -> bool {
        let mut target = StagedEntries {
            proxies: &mut self.proxies,
            own: (self.phase == Phase::Playing).then_some((self.pawn, self.own_proxy.is_some())),
            staged: std::mem::take(&mut self.staged),
            ignored: PawnValues::default(),
        };
        let decoded = wire::decode_state_update_into(
            bytes,
            |v| self.layouts.get(v).map(|b| &**b),
            &mut target,
        );
        let mut staged = std::mem::take(&mut target.staged);
        let applied = match decoded {
            Some((h, _)) => {
                if self.recv_window.accept(h.seq) {
                    self.last_heard = now;
                    let server_now = self.buffer_trace.then(|| self.synced_time(now));
                    for &i in &staged {
                        if let Some(p) = self.proxies.at_mut(i) {
                            p.commit_staged(now);
                            if let (Some(server_now), Some(state_time)) =
                                (server_now, p.newest_time())
                            {
                                self.telemetry.push((
                                    now,
                                    Event::ProxyState {
                                        pawn: p.pawn,
                                        state_time,
                                        server_now,
                                    },
                                ));
                            }
                        }
                    }
                } else {
                    self.unstage(&staged);
                    self.telemetry.push((
                        now,
                        Event::Rejected {
                            reason: Rejection::Duplicate,
                        },
                    ));
                }
                true
            }
            None => {
                self.unstage(&staged);
                false
            }
        };
        staged.clear();
        self.staged = staged;
        applied
    }

    fn unstage(&mut self, staged: &[usize]) {
        for &i in staged {
            if let Some(p) = self.proxies.at_mut(i) {
                p.unstage();
            }
        }
    }

    /// [`Client::handle_datagram`] through a decoded message.
    fn handle_datagram_decoded(&mut self, now: f64, bytes: &[u8]) -> Result<(), DecodeError> {
        let decoded = wire::decode_reusing(
            bytes,
            |v| self.layouts.get(v).map(|b| &**b),
            &mut self.entry_scratch,
        );
        match decoded {
            Ok((h, Datagram::Server(msg))) => {
                // A restarted server numbers its datagrams from 1 again, so its Reset would
                // look like an old duplicate for as long as the old numbering ran ahead. A
                // Reset only makes the client join again, so it is taken whatever its number;
                // rejoining starts a new window for the new server's numbering.
                if matches!(msg, ServerMsg::Reset) || self.recv_window.accept(h.seq) {
                    self.handle_msg(now, msg);
                } else {
                    self.telemetry.push((
                        now,
                        Event::Rejected {
                            reason: Rejection::Duplicate,
                        },
                    ));
                }
                Ok(())
            }
            Ok((_, Datagram::Keepalive)) => Ok(()),
            Ok((_, Datagram::Client(_))) => {
                let e = DecodeError::WrongDirection;
                self.reject(now, &e);
                Err(e)
            }
            Err(e) => {
                self.reject(now, &e);
                Err(e)
            }
        }
    }

    fn reject(&mut self, now: f64, e: &DecodeError) {
        self.telemetry.push((
            now,
            Event::Rejected {
                reason: Rejection::Malformed(e.clone()),
            },
        ));
    }

    /// Hands a decoded message to the client. Clock messages are applied at once (their
    /// timing matters); the rest waits for the next frame, as in an engine tick.
    pub fn handle_msg(&mut self, now: f64, msg: ServerMsg) {
        self.last_heard = now;
        match msg {
            ServerMsg::Pong { seq, client_time } => {
                if seq > self.last_pong_seq {
                    self.last_pong_seq = seq;
                    let sample = (now - client_time).max(0.0);
                    self.rtt = Some(match self.rtt {
                        Some(r) => r + 0.25 * (sample - r),
                        None => sample,
                    });
                    self.telemetry.push((now, Event::Rtt { rtt: sample }));
                }
            }
            ServerMsg::WorldTime {
                replicator,
                server_time,
            } => {
                // The clock is synchronized only when exactly one replicator exists: with none
                // or several, GMC leaves every clock in its own domain (docs/model.md).
                if self.replicators == Some(1)
                    && replicator == 0
                    && server_time > self.last_world_time
                {
                    self.last_world_time = server_time;
                    self.resync(now, server_time);
                }
            }
            ServerMsg::Welcome {
                pawn,
                spawn,
                replicators,
                server_time,
                ..
            } => {
                if let Phase::Connecting { join_sent } = self.phase {
                    self.start_session();
                    self.phase = Phase::Playing;
                    self.pawn = pawn;
                    self.values = spawn;
                    self.last_seen_dash = Some(spawn.dash_count);
                    self.replicators = Some(replicators);
                    self.hook(now, Hook::BindReplicationData, 0, 0, None, None);
                    let predicted = self.cfg.gmc.use_client_prediction;
                    if !predicted {
                        self.own_proxy = Some(Proxy::new(pawn, Some(self.cfg.id), now, spawn.team));
                    }
                    self.telemetry.push((
                        now,
                        Event::Role {
                            pawn,
                            role: if predicted {
                                Role::AutonomousProxy
                            } else {
                                Role::AutonomousProxyNotPredicted
                            },
                        },
                    ));
                    match replicators {
                        0 => self.log(
                            now,
                            LogLevel::Warning,
                            "LogGMCReplication: no AGMC_WorldTimeReplicator found in the world; \
                             this client's clock is never synchronized and its move timestamps \
                             are in its own time domain"
                                .to_string(),
                        ),
                        1 => {
                            // Until the first pong, the join round trip (which includes a
                            // server frame wait) is the only latency estimate.
                            self.join_rtt = join_sent.map(|sent| (now - sent).max(0.0));
                            self.resync(now, server_time);
                        }
                        n => self.log(
                            now,
                            LogLevel::Error,
                            format!(
                                "LogGMCReplication: {n} AGMC_WorldTimeReplicator actors found; \
                                 exactly one must exist: this client's clock is never \
                                 synchronized and its move timestamps are in its own time domain"
                            ),
                        ),
                    }
                }
            }
            ServerMsg::ProxySpawn { pawn, owner, team } => {
                if pawn != self.pawn || self.phase != Phase::Playing {
                    let owner = (owner != super::messages::NO_OWNER).then_some(owner);
                    if !self.proxies.contains(pawn) {
                        self.proxies.insert(Proxy::new(pawn, owner, now, team));
                        self.proxy_set_version += 1;
                        self.telemetry.push((
                            now,
                            Event::ProxySpawned {
                                pawn,
                                owner,
                                actor_team: team,
                            },
                        ));
                        self.telemetry.push((
                            now,
                            Event::Role {
                                pawn,
                                role: Role::SimulatedProxy,
                            },
                        ));
                        if self.hook_trace {
                            self.telemetry.push((
                                now,
                                Event::hook(Hook::BindReplicationData, pawn, 0, 0, None, None),
                            ));
                        }
                    }
                }
            }
            ServerMsg::ProxyDespawn { pawn } => {
                if self.proxies.remove(pawn) {
                    self.proxy_set_version += 1;
                    self.telemetry.push((now, Event::ProxyDespawned { pawn }));
                }
            }
            ServerMsg::StateUpdate {
                layout,
                server_time,
                entries,
            } => {
                let simulated = self.bindings_of(layout).simulated;
                let server_now = self.buffer_trace.then(|| self.synced_time(now));
                for e in &entries {
                    if e.pawn == self.pawn && self.phase == Phase::Playing {
                        if let Some(p) = self.own_proxy.as_mut() {
                            p.receive(now, server_time, &e.values, simulated);
                        }
                    } else if let Some(p) = self.proxies.get_mut(e.pawn) {
                        p.receive(now, server_time, &e.values, simulated);
                        if let Some(server_now) = server_now {
                            self.telemetry.push((
                                now,
                                Event::ProxyState {
                                    pawn: e.pawn,
                                    state_time: server_time,
                                    server_now,
                                },
                            ));
                        }
                    }
                }
                // A decoded list's buffer serves the next state update's decoding.
                if entries.shared_parts().is_none() {
                    self.entry_scratch = entries.into_vec();
                }
            }
            other => self.inbox.push(other),
        }
    }

    /// Forgets every move: a new session with the server starts (first join, or rejoin after
    /// the server restarted or the connection timed out). Move ids start again at 1.
    fn start_session(&mut self) {
        self.history.clear();
        self.current = None;
        self.next_move_id = 1;
        self.last_closed_timestamp = None;
        self.last_timestamp = f64::NEG_INFINITY;
        self.acked = 0;
        self.sent_upto = 0;
        self.epoch = 0;
        self.reliable_in_flight.clear();
        self.last_send = None;
        self.clock_offset = None;
        self.last_world_time = f64::NEG_INFINITY;
        self.inbox.clear();
        self.proxies.clear();
        self.proxy_set_version += 1;
        self.own_proxy = None;
    }

    fn rejoin(&mut self, now: f64, why: &str) {
        self.log(now, LogLevel::Warning, format!("{why}: joining again"));
        self.phase = Phase::Connecting { join_sent: None };
        self.last_heard = now;
        // The server may have restarted its numbering.
        self.recv_window = SeqWindow::default();
    }

    fn resync(&mut self, now: f64, server_time: f64) {
        if self.replicators != Some(1) {
            return;
        }
        let latency = self.rtt.or(self.join_rtt).unwrap_or(0.0) / 2.0;
        self.clock_offset = Some(server_time + latency - now);
        self.telemetry.push((
            now,
            Event::ClockSync {
                synced_time: server_time + latency,
                latency_estimate: latency,
            },
        ));
    }

    fn log(&mut self, now: f64, level: LogLevel, text: String) {
        self.telemetry.push((now, Event::Log { level, text }));
    }

    /// Runs one frame at local time `now` with this frame's raw input.
    pub fn frame(&mut self, now: f64, raw: RawInput) {
        let dt = now - self.last_frame.unwrap_or(now);
        self.last_frame = Some(now);
        self.frame_dt = dt;
        self.telemetry.push((now, Event::Frame { dt }));

        let mut inbox = std::mem::take(&mut self.inbox);
        for msg in inbox.drain(..) {
            if self.phase == Phase::Playing {
                self.apply_server_msg(now, msg);
            }
        }
        // The emptied vector goes back, its allocation kept for the next frames' messages.
        if self.inbox.is_empty() {
            self.inbox = inbox;
        }
        if self.phase == Phase::Playing && now - self.last_heard > CONNECTION_TIMEOUT {
            self.rejoin(
                now,
                &format!("no message from the server for {CONNECTION_TIMEOUT} s"),
            );
        }

        if let Phase::Connecting { join_sent } = self.phase {
            if join_sent.is_none_or(|t| now - t >= 1.0) {
                self.phase = Phase::Connecting {
                    join_sent: Some(now),
                };
                self.outbox.push_back((
                    ClientMsg::Join {
                        nonce: self.cfg.nonce,
                        layout_hash: self.layouts.current_bindings().layout_hash(),
                    },
                    Delivery::Reliable,
                ));
            }
            return;
        }

        if raw.dash && !self.prev_dash {
            self.telemetry.push((now, Event::DashPressed));
        }
        self.prev_dash = raw.dash;

        self.local_move(now, dt, raw);
        self.maybe_send(now);
        self.update_proxies(now, dt);
        self.sample_pawns(now);
        // WorldTickEnd: once per frame, after moves, replays and smoothing.
        self.hook(now, Hook::WorldTickEnd, 0, 0, None, None);
        if !self.cfg.faults.transition_in_sync_applied {
            self.detect_transition(now, false);
        }

        if now >= self.next_ping {
            self.ping_seq += 1;
            self.next_ping = now + self.cfg.gmc.ping_interval;
            self.outbox.push_back((
                ClientMsg::Ping {
                    seq: self.ping_seq,
                    client_time: now,
                },
                Delivery::Unreliable,
            ));
        }
    }

    /// PreLocalMoveExecution → save input → GenPredictionTick → GenAncillaryTick → save output.
    fn local_move(&mut self, now: f64, dt: f64, raw: RawInput) {
        let gmc = self.cfg.gmc;
        let layout = self.layouts.current();
        let ts = quantize_time(self.synced_time(now)).max(self.last_timestamp);
        self.last_timestamp = ts;
        // Without client prediction the owner runs no local move (it is smoothed like a proxy
        // and gets GenSimulationTick); the frame's input is still saved and sent.
        let predicting = gmc.use_client_prediction;

        // PreLocalMoveExecution runs first, before the input is saved: what it writes (the
        // demo pawn: the frame's stick and dash) is the move's input and takes part in
        // combining. The trace entry is patched with the move the frame ends up in.
        let pre_hook = (predicting && self.hook_trace).then(|| {
            self.hook(now, Hook::PreLocalMoveExecution, 0, 0, None, None);
            self.telemetry.len() - 1
        });
        // Borrowed, not cloned (an atomic count per frame): only its masks are needed once
        // the hooks run.
        let b = &**self.layouts.current_bindings();
        let (bound, input_mask) = (b.bound, b.input);
        // The input is saved at wire precision (docs/model.md).
        let mut frame_input = self.values;
        frame_input.input_move = raw.dir;
        frame_input.input_dash = raw.dash;
        let frame_input = frame_input.quantized(b.list(), b.input);

        let merge = match &self.current {
            Some(cur) => {
                cur.layout == layout
                    && ts - cur.prev_timestamp <= gmc.combine_limit() + 1e-9
                    && inputs_combine(b, &cur.input, &frame_input)
            }
            None => false,
        };
        // The combined input of a merged move (the hooks below do not touch the move).
        let combined = match &self.current {
            Some(cur) if merge => Some(combine_inputs(b, &cur.input, &frame_input)),
            _ => None,
        };

        let move_id = if merge {
            self.current.as_ref().map_or(self.next_move_id, |m| m.id)
        } else {
            self.next_move_id
        };
        if let Some((_, Event::Hook { move_id: id, .. })) =
            pre_hook.and_then(|i| self.telemetry.get_mut(i))
        {
            *id = move_id;
        }
        let exec = if merge {
            let cur = self.current.as_mut().expect("merge implies a current move");
            cur.timestamp = ts;
            cur.delta = clamp_delta(&gmc, ts - cur.prev_timestamp);
            if let Some(c) = combined {
                cur.input = c;
            }
            cur.frames += 1;
            // Reset the pawn to the move's start state (bound members only) and load the
            // combined input.
            self.values.copy_fields(&cur.start, bound);
            self.values.copy_fields(&cur.input, input_mask);
            Execution::Combined
        } else {
            self.close_current(now);
            let prev = self
                .last_closed_timestamp
                .unwrap_or_else(|| quantize_time(ts - dt.clamp(0.0, gmc.max_move_delta_time)));
            let mv = Move {
                id: self.next_move_id,
                layout,
                timestamp: ts,
                prev_timestamp: prev,
                delta: clamp_delta(&gmc, ts - prev),
                input: frame_input,
                start: self.values,
                output: self.values,
                frames: 1,
                substeps: 0,
                max_substeps: 0,
                sealed: false,
            };
            self.next_move_id += 1;
            self.values.copy_fields(&frame_input, input_mask);
            self.current = Some(mv);
            Execution::Live
        };
        if predicting {
            // The move's start state with its input is loaded: a fresh move and a combined
            // re-run alike.
            self.sync_applied(
                now,
                NetContext::LocalClientPawn_PreLocalMoveExecution,
                move_id,
            );
        }

        let others = if self.cfg.faults.tick_reads_proxy_transform {
            self.proxy_locations()
        } else {
            Vec::new()
        };
        let random = self.tick_random();
        let cur = self.current.as_mut().expect("a current move exists");
        // The value trace starts with the values at entry (no copy when it is off).
        if let Some(t) = self.value_trace.as_mut() {
            t.clear();
            t.push(self.values);
        }
        // Without client prediction the tick does not run here: the move only carries input,
        // and the pawn is shown from server states.
        let n = if !predicting {
            self.tick_out.clear();
            0
        } else {
            run_move(
                &mut self.values,
                cur.delta,
                exec,
                MoveClock {
                    move_timestamp: cur.timestamp,
                    world_time: ts,
                    others: &others,
                    frame_delta: dt,
                    random,
                },
                &gmc,
                &self.cfg.faults,
                &mut self.tick_out,
                self.value_trace.as_mut(),
            )
        };
        cur.output = self.values;
        cur.substeps = n;
        cur.max_substeps = cur.max_substeps.max(n);
        if self.tick_out.seal {
            cur.sealed = true;
        }
        let close = cur.sealed || (ts - cur.prev_timestamp) + dt > gmc.combine_limit();
        if predicting {
            self.trace_values(now, move_id, exec);
        }
        emit_one_shots(
            &mut self.telemetry,
            now,
            self.pawn,
            Some(self.cfg.id),
            exec,
            &self.tick_out,
        );
        if self
            .tick_out
            .one_shots
            .iter()
            .any(|o| o.kind == super::pawn::OneShotKind::DashFired)
        {
            // The dash tags whoever this client shows in reach (the claim the server checks).
            let from = self.values.location;
            let b = self.layouts.current_bindings();
            let target = super::pawn::tag_target(
                from,
                self.proxies
                    .values()
                    .map(|p| (p.pawn, p.display(b).location)),
            );
            self.telemetry
                .push((now, Event::HitClaim { move_id, target }));
        }
        if predicting {
            // GenAncillaryTick(delta, bLocalMove = true, bCombinedClientMove = frames > 1):
            // the demo pawn has no work in it; the hook trace records the call.
            self.tick_hooks(now, move_id, n, exec);
            self.hook(now, Hook::GenAncillaryTick, move_id, 0, Some(exec), None);
            self.sync_applied(
                now,
                NetContext::LocalClientPawn_PostLocalMoveExecution,
                move_id,
            );
        }
        if close {
            // No later frame will fit (or the move was sealed): complete it now so it can be
            // sent without waiting a frame.
            self.close_current(now);
        }
    }

    fn close_current(&mut self, now: f64) {
        if let Some(mv) = self.current.take() {
            self.last_closed_timestamp = Some(mv.timestamp);
            self.telemetry.push((
                now,
                Event::MoveClosed {
                    move_id: mv.id,
                    timestamp: mv.timestamp,
                    delta: mv.delta,
                    frames: mv.frames,
                    substeps: mv.max_substeps,
                },
            ));
            self.history.push_back(mv);
            if self.history.len() > self.cfg.gmc.move_history_max_size {
                self.history.pop_front();
                if !self.history_overflow_logged {
                    self.history_overflow_logged = true;
                    self.log(
                        now,
                        LogLevel::Warning,
                        "move history full (MoveHistoryMaxSize): the oldest unacknowledged moves \
                         can no longer be replayed"
                            .to_string(),
                    );
                }
            }
        }
    }

    fn bindings_of(&self, layout: u8) -> &Arc<Bindings> {
        self.layouts
            .get(layout)
            .unwrap_or_else(|| self.layouts.current_bindings())
    }

    fn wire_move(&self, m: &Move) -> WireMove {
        let b = self.bindings_of(m.layout);
        WireMove {
            id: m.id,
            timestamp: m.timestamp,
            delta: m.delta,
            input: m.input,
            output: m.output.quantized(b.list(), b.client_sends_output),
        }
    }

    fn maybe_send(&mut self, now: f64) {
        let interval = 1.0 / self.cfg.gmc.client_send_rate.max(0.001);
        if self.last_send.is_some_and(|t| now - t < interval - 1e-6) {
            return;
        }
        let newest = self.history.back().map_or(0, |m| m.id);
        if newest <= self.sent_upto {
            return;
        }
        self.last_send = Some(now);
        while self
            .reliable_in_flight
            .front()
            .is_some_and(|&id| id <= self.acked)
        {
            self.reliable_in_flight.pop_front();
        }
        let reliable = self.reliable_in_flight.len() < self.cfg.gmc.reliable_pending_threshold;
        // Reliable batches carry only new moves; unreliable ones repeat every unacknowledged
        // move that fits, so a lost datagram is covered by the next one.
        let first = if reliable { self.sent_upto } else { self.acked };
        // The moves to send, converted one by one into the batch (no list of candidates; the
        // batch sized for all of them, so it is not regrown move by move).
        let candidates = || self.history.iter().filter(|m| m.id > first);
        // One layout per batch; a layout change starts a new batch. Each batch carries the sum
        // of its moves' value bits (what `moves_bytes` would add up again).
        let mut batches: Vec<(u8, Vec<WireMove>, usize)> = Vec::new();
        let mut cur: Vec<WireMove> = Vec::with_capacity(candidates().count());
        let mut cur_bits = 0usize;
        let mut cur_layout = candidates().next().map_or(0, |m| m.layout);
        let mut b = self.bindings_of(cur_layout);
        for (layout, m) in candidates().map(|m| (m.layout, self.wire_move(m))) {
            if layout != cur_layout {
                if !cur.is_empty() {
                    batches.push((cur_layout, std::mem::take(&mut cur), cur_bits));
                    cur_bits = 0;
                }
                cur_layout = layout;
                b = self.bindings_of(layout);
            }
            let m_bits = move_value_bits(b, &m);
            cur.push(m);
            cur_bits += m_bits;
            if cur.len() > 1
                && (cur.len() >= 255 || moves_bytes_with(&cur, cur_bits) > MAX_BATCH_BYTES)
            {
                let last = cur.pop().expect("len > 1");
                batches.push((cur_layout, std::mem::take(&mut cur), cur_bits - m_bits));
                cur.push(last);
                cur_bits = m_bits;
            }
        }
        if !cur.is_empty() {
            batches.push((cur_layout, cur, cur_bits));
        }
        if !reliable && batches.len() > MAX_UNRELIABLE_DATAGRAMS {
            // Unreliable: the newest moves, at most this many datagrams.
            batches.drain(..batches.len() - MAX_UNRELIABLE_DATAGRAMS);
        }
        let mut new_moves = 0u16;
        let mut resent = 0u16;
        let mut value_bits = 0u32;
        let mut bytes = 0u32;
        for (layout, batch, batch_bits) in batches {
            let batch_newest = batch.last().map_or(0, |m| m.id);
            bytes += moves_bytes_with(&batch, batch_bits) as u32;
            value_bits += batch_bits as u32;
            for m in &batch {
                if m.id > self.sent_upto {
                    new_moves += 1;
                } else {
                    resent += 1;
                }
            }
            self.sent_upto = self.sent_upto.max(batch_newest);
            if reliable {
                self.reliable_in_flight.push_back(batch_newest);
            }
            self.outbox.push_back((
                ClientMsg::Moves {
                    layout,
                    epoch: self.epoch,
                    view_delay_ms: (self.view_delay * 1000.0).round().clamp(0.0, 65535.0) as u16,
                    moves: batch,
                },
                if reliable {
                    Delivery::Reliable
                } else {
                    Delivery::Unreliable
                },
            ));
        }
        self.telemetry.push((
            now,
            Event::MovesSent {
                new_moves,
                resent_moves: resent,
                value_bits,
                bytes,
                reliable,
                pending_reliable: self.reliable_in_flight.len() as u16,
            },
        ));
    }

    fn apply_server_msg(&mut self, now: f64, msg: ServerMsg) {
        if !self.cfg.gmc.use_client_prediction {
            // Nothing was predicted, so nothing is compared or replayed.
            if let ServerMsg::Ack { move_id, .. } | ServerMsg::Correction { move_id, .. } = msg {
                self.acknowledge(move_id);
                return;
            }
        }
        match msg {
            ServerMsg::Ack {
                move_id, values, ..
            } => {
                if move_id <= self.acked {
                    return; // duplicate or older than what we know
                }
                let mut deviations = Vec::new();
                let mut base = None;
                if let Some(m) = self.history.iter().find(|m| m.id == move_id) {
                    let b = self.bindings_of(m.layout);
                    for (_, bd) in b.client_validated() {
                        if let Some(d) =
                            compare(bd, move_id, &m.output.get(bd.field), &values.get(bd.field))
                        {
                            deviations.push(d);
                            if !self.cfg.gmc.force_full_validation {
                                break;
                            }
                        }
                    }
                    if !deviations.is_empty() {
                        let mut s = m.output;
                        s.copy_fields(&values, b.client_validated);
                        base = Some((s, m.layout));
                    }
                }
                if let Some((state, layout)) = base {
                    self.correct(now, move_id, layout, state, DetectedBy::Client, deviations);
                }
                self.acknowledge(move_id);
            }
            ServerMsg::Correction {
                layout,
                move_id,
                epoch,
                state,
                deviations,
            } => {
                self.epoch = self.epoch.max(epoch);
                if move_id < self.acked {
                    return; // a newer acknowledgement already superseded it
                }
                let b = self.bindings_of(layout);
                let mut base = self
                    .history
                    .iter()
                    .find(|m| m.id == move_id)
                    .map_or(self.values, |m| m.output);
                base.copy_fields(&state, b.server_auth);
                let devs = deviations
                    .into_iter()
                    .filter_map(|d| {
                        let bd = b.list().get(d.binding as usize)?;
                        Some(Deviation {
                            move_id: d.move_id,
                            binding: bd.name.clone(),
                            error: bd.ty.distance(&d.client_value, &d.server_value),
                            tolerance: bd.tolerance,
                            predicted: d.client_value,
                            authoritative: d.server_value,
                        })
                    })
                    .collect();
                self.correct(now, move_id, layout, base, DetectedBy::Server, devs);
                self.acknowledge(move_id);
            }
            ServerMsg::Reset => {
                self.rejoin(now, "the server does not know this client (it restarted?)");
            }
            // Handled on receipt.
            ServerMsg::Welcome { .. }
            | ServerMsg::WorldTime { .. }
            | ServerMsg::Pong { .. }
            | ServerMsg::ProxySpawn { .. }
            | ServerMsg::ProxyDespawn { .. }
            | ServerMsg::StateUpdate { .. } => {}
        }
    }

    fn acknowledge(&mut self, move_id: u32) {
        self.acked = self.acked.max(move_id);
        while self.history.front().is_some_and(|m| m.id <= move_id) {
            self.history.pop_front();
        }
    }

    /// Adopts the server's state for `move_id` and (bUseClientReplay) re-executes every later
    /// pending move in order with its recorded input and delta.
    fn correct(
        &mut self,
        now: f64,
        move_id: u32,
        layout: u8,
        state: PawnValues,
        detected_by: DetectedBy,
        deviations: Vec<Deviation>,
    ) {
        let b = self.bindings_of(layout).clone();
        let gmc = self.cfg.gmc;
        self.values.copy_fields(&state, b.bound);
        self.sync_applied(now, NetContext::LocalClientPawn_ServerStateAdopted, move_id);
        let mut depth = 0u16;
        let replay = gmc.use_client_replay;
        if replay {
            let ts_now = self.synced_time(now);
            let others = if self.cfg.faults.tick_reads_proxy_transform {
                self.proxy_locations()
            } else {
                Vec::new()
            };
            let mut slots: Vec<Option<usize>> = (0..self.history.len())
                .filter(|&i| self.history[i].id > move_id)
                .map(Some)
                .collect();
            if self.current.is_some() {
                slots.push(None);
            }
            for slot in slots {
                let Some(m) = (match slot {
                    Some(i) => self.history.get(i),
                    None => self.current.as_ref(),
                }) else {
                    continue;
                };
                let (id, input, delta, timestamp) = (m.id, m.input, m.delta, m.timestamp);
                // bRollBackClientPawns: the replayed move reads the others as they were then.
                let others =
                    if self.cfg.faults.tick_reads_proxy_transform && gmc.roll_back_client_pawns {
                        let view = timestamp - self.view_delay;
                        self.proxies
                            .values()
                            .map(|p| p.values_at(view, &b).location)
                            .collect()
                    } else {
                        others.clone()
                    };
                let mb = self.bindings_of(m.layout).clone();
                let start = self.values;
                if gmc.roll_back_client_pawns {
                    self.rollback_swap(now, id, true);
                }
                self.sync_applied(now, NetContext::LocalClientPawn_PreReplayMoveExecution, id);
                self.values.copy_fields(&input, mb.input);
                if let Some(t) = self.value_trace.as_mut() {
                    t.clear();
                    t.push(self.values);
                }
                let random = self.tick_random();
                let n = run_move(
                    &mut self.values,
                    delta,
                    Execution::Replay,
                    MoveClock {
                        move_timestamp: timestamp,
                        world_time: ts_now,
                        others: &others,
                        frame_delta: self.frame_dt,
                        random,
                    },
                    &gmc,
                    &self.cfg.faults,
                    &mut self.tick_out,
                    self.value_trace.as_mut(),
                );
                self.trace_values(now, id, Execution::Replay);
                self.tick_hooks(now, id, n, Execution::Replay);
                self.sync_applied(now, NetContext::LocalClientPawn_PostReplayMoveExecution, id);
                if gmc.roll_back_client_pawns {
                    self.rollback_swap(now, id, false);
                }
                let output = self.values;
                if let Some(m) = match slot {
                    Some(i) => self.history.get_mut(i),
                    None => self.current.as_mut(),
                } {
                    m.start = start;
                    m.output = output;
                    m.max_substeps = m.max_substeps.max(n);
                }
                depth += 1;
                emit_one_shots(
                    &mut self.telemetry,
                    now,
                    self.pawn,
                    Some(self.cfg.id),
                    Execution::Replay,
                    &self.tick_out,
                );
            }
        } else if let Some(cur) = self.current.as_mut() {
            // No replay: the pawn snaps to the server's state; the open move continues from it.
            cur.start = self.values;
        }
        self.telemetry.push((
            now,
            Event::Correction {
                move_id,
                detected_by,
                deviations: deviations.into_boxed_slice(),
                replay_depth: depth,
                replayed: replay,
            },
        ));
    }

    fn hook(
        &mut self,
        now: f64,
        hook: Hook,
        move_id: u32,
        iteration: u16,
        exec: Option<Execution>,
        context: Option<NetContext>,
    ) {
        if self.hook_trace {
            self.telemetry.push((
                now,
                Event::Hook {
                    hook,
                    pawn: self.pawn,
                    move_id,
                    iteration,
                    exec,
                    context,
                },
            ));
        }
    }

    /// GenPredictionTick ran `n` iterations of move `move_id`.
    fn tick_hooks(&mut self, now: f64, move_id: u32, n: u16, exec: Execution) {
        if self.hook_trace {
            for i in 0..n {
                self.hook(now, Hook::GenPredictionTick, move_id, i, Some(exec), None);
            }
        }
    }

    /// GMC loaded a state into the pawn: OnSyncDataApplied. Under the
    /// `transition_in_sync_applied` pitfall the dash transition is detected here.
    /// The hook trace of a rollback around a replayed move (bRollBackClientPawns): every proxy
    /// is swapped to its state at the move's view time (OnPawnRolledBack, then
    /// OnSyncDataApplied with RollbackSwap) and back after the move (RollbackSwap).
    fn rollback_swap(&mut self, now: f64, move_id: u32, back_in_time: bool) {
        if self.hook_trace {
            let others = self.proxies.keys();
            super::cycle::rollback_hooks(&mut self.telemetry, now, others, move_id, back_in_time);
        }
    }

    /// What a tick reading a random number without a bound seed gets (a draw only under
    /// that pitfall, so the generator's stream is untouched otherwise).
    fn tick_random(&mut self) -> f64 {
        if self.cfg.faults.unseeded_random_in_tick {
            self.tick_rng.f64()
        } else {
            0.5
        }
    }

    fn sync_applied(&mut self, now: f64, context: NetContext, move_id: u32) {
        self.hook(
            now,
            Hook::OnSyncDataApplied,
            move_id,
            0,
            None,
            Some(context),
        );
        if self.cfg.faults.transition_in_sync_applied {
            self.detect_transition(now, true);
        }
    }

    fn detect_transition(&mut self, now: f64, in_sync_applied: bool) {
        let count = self.values.dash_count;
        if self.last_seen_dash.is_some_and(|c| c != count) {
            self.telemetry.push((
                now,
                Event::TransitionDetected {
                    pawn: self.pawn,
                    in_sync_applied,
                },
            ));
        }
        self.last_seen_dash = Some(count);
    }

    /// Switches the hook trace on or off.
    pub fn set_hook_trace(&mut self, on: bool) {
        self.hook_trace = on;
    }

    /// Switches the value trace on or off.
    /// Switches the buffer trace (`Event::ProxyState`/`ProxyDisplay`); each proxy reports how
    /// it is displayed again from the next frame.
    pub fn set_buffer_trace(&mut self, on: bool) {
        self.buffer_trace = on;
        for p in self.proxies.values_mut() {
            p.traced = None;
        }
    }

    pub fn set_value_trace(&mut self, on: bool) {
        self.value_trace = on.then(Vec::new);
    }

    /// Value trace: the execution of `move_id` that just ran, from its entry values (the
    /// trace's first element) through the sub-steps `run_move` collected to the pawn's values
    /// now.
    fn trace_values(&mut self, now: f64, move_id: u32, exec: Execution) {
        if let Some(t) = self.value_trace.as_mut() {
            let (entry, substeps) = super::cycle::split_trace(std::mem::take(t), self.values);
            self.telemetry.push((
                now,
                Event::MoveValues(std::sync::Arc::new(MoveValues {
                    pawn: self.pawn,
                    owner: Some(self.cfg.id),
                    move_id,
                    exec,
                    entry,
                    substeps,
                    exit: self.values,
                })),
            ));
        }
    }

    /// Simulated proxies: buffer → display, then GenSimulationTick (cosmetics).
    fn update_proxies(&mut self, now: f64, dt: f64) {
        let server_now = self.synced_time(now);
        let latency = self.rtt.unwrap_or(0.0) / 2.0;
        let b = &**self.layouts.current_bindings();
        let cfg = self.cfg.smoothing;
        let pause = self.cfg.gmc.post_spawn_smoothing_pause;
        let mut acc = super::proxy::FrameAcc::default();
        let mut count = 0usize;
        // Sum of the delays of proxies not paused (from the first, not from 0).
        let mut view_sum: Option<f64> = None;
        let mut effects: Vec<u16> = Vec::new();
        let own = if self.cfg.gmc.use_client_prediction {
            None
        } else {
            self.own_proxy.as_mut()
        };
        let forward = cfg.mode.simulates();
        // Proxies may take the quick update when nothing they were updated with changed.
        let same_settings = self.proxy_settings == Some((cfg, pause));
        self.proxy_settings = Some((cfg, pause));
        // A steady frame: every proxy would take the quick update and give what it gave last
        // frame (no state arrived, no proxy came or went, same settings and latency, the
        // display time moved forward but passed no buffered state and no re-sync is due).
        // Then only the display times move, and the frame's figures are the last frame's.
        let steady = match self.steady.as_mut() {
            Some(s)
                if same_settings
                    && own.is_none()
                    && s.set_version == self.proxy_set_version
                    && s.latency == latency
                    && server_now >= s.server_now
                    && server_now < s.server_until
                    && now < s.now_until
                    && self.proxies.values().all(|p| !p.has_new_state()) =>
            {
                s.server_now = server_now;
                Some(*s)
            }
            _ => None,
        };
        if let Some(s) = steady {
            for p in self.proxies.values_mut() {
                p.steady_frame(now, server_now);
            }
            self.display_stats.add_repeated(s.team_unknown, s.delay_max);
            acc = s.acc;
            count = s.count;
            view_sum = s.view_sum;
        }
        // Whether this frame's figures can stand for the next frames (all quick updates).
        let mut all_quick = !forward;
        let mut team_unknown = 0u32;
        let mut delay_max = f64::NAN;
        let mut server_until = f64::INFINITY;
        let mut now_until = f64::INFINITY;
        let proxies = if steady.is_some() {
            None
        } else {
            Some(self.proxies.values_mut().chain(own))
        };
        for p in proxies.into_iter().flatten() {
            // Each simulated execution reports only what it raised itself (not what the live
            // move or the previous proxy left in the buffer).
            self.tick_out.clear();
            let sim = forward.then_some(SimulationCtx {
                gmc: &self.cfg.gmc,
                faults: &self.cfg.faults,
                out: &mut self.tick_out,
            });
            let quick = if same_settings {
                p.update_quick(now, server_now, latency, &cfg, pause)
            } else {
                None
            };
            let f = match quick {
                Some(f) => {
                    let (server, local) = p.steady_until();
                    server_until = server_until.min(server);
                    now_until = now_until.min(local);
                    f
                }
                None => {
                    all_quick = false;
                    p.update(now, server_now, latency, &cfg, pause, b, &mut self.rng, sim)
                }
            };
            if f.team == 0 {
                team_unknown += 1;
            }
            delay_max = delay_max.max(f.delay);
            if forward {
                // Simulated executions (IsSimulatedMove): guarded side effects stay silent.
                emit_one_shots(
                    &mut self.telemetry,
                    now,
                    p.pawn,
                    p.owner,
                    Execution::Simulated,
                    &self.tick_out,
                );
                self.tick_out.clear();
            }
            // The buffer trace: how the proxy is displayed, when that changes (a re-sync, the
            // buffer running dry or refilling, the spawn pause ending). Steady frames change
            // nothing, so skipping them misses nothing.
            if self.buffer_trace && p.owner != Some(self.cfg.id) {
                let mode = if f.paused || f.delay.is_nan() {
                    DisplayMode::Waiting
                } else if f.extrapolating {
                    DisplayMode::Extrapolating
                } else {
                    DisplayMode::Interpolating
                };
                let changed = p.traced.is_none_or(|(d, m)| {
                    m != mode || (d - f.delay).abs() > BUFFER_TRACE_DELAY_STEP
                });
                if changed {
                    p.traced = Some((f.delay, mode));
                    self.telemetry.push((
                        now,
                        Event::ProxyDisplay {
                            pawn: p.pawn,
                            delay: f.delay,
                            mode,
                        },
                    ));
                }
            }
            self.display_stats.add(&mut acc, &f, dt);
            count += 1;
            if !f.paused {
                view_sum = Some(view_sum.map_or(f.delay, |s| s + f.delay));
            }
            // GenSimulationTick: react to bound values that changed (cosmetics only).
            if !f.paused {
                let last = p.last_effect_count.replace(f.dash_count);
                if last.is_some_and(|l| l != f.dash_count) {
                    effects.push(p.pawn);
                }
            }
        }
        if steady.is_none() {
            self.steady = all_quick.then_some(SteadyFrame {
                set_version: self.proxy_set_version,
                latency,
                server_now,
                server_until,
                now_until,
                acc,
                count,
                view_sum,
                team_unknown,
                delay_max,
            });
        }
        if self.hook_trace {
            // Every smoothed pawn that had a state applied this frame (not those inside
            // PostSpawnSmoothingPause): the proxies, and the own pawn without prediction.
            let own = if self.cfg.gmc.use_client_prediction {
                None
            } else {
                self.own_proxy.as_ref()
            };
            let pawns: Vec<(u16, bool)> = self
                .proxies
                .values()
                .chain(own)
                .map(|p| (p.pawn, p.applies_state()))
                .collect();
            for (pawn, applied) in pawns {
                if applied {
                    self.telemetry.push((
                        now,
                        Event::Hook {
                            hook: Hook::OnSyncDataApplied,
                            pawn,
                            move_id: 0,
                            iteration: 0,
                            exec: None,
                            context: Some(NetContext::RemoteClientPawn_Simulation),
                        },
                    ));
                }
                // GenSimulationTick runs every frame, also inside the spawn pause.
                self.telemetry.push((
                    now,
                    Event::Hook {
                        hook: Hook::GenSimulationTick,
                        pawn,
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
        if count > 0 {
            self.display_stats.end_frame(&acc, count);
        }
        if let Some(d) = view_sum {
            self.view_delay = d / f64::from(acc.live);
        }
        if let Some(e) = self.display_stats.take(now) {
            self.telemetry.push((now, e));
        }
    }

    /// World-view samples: the predicted own pawn and every displayed proxy.
    fn sample_pawns(&mut self, now: f64) {
        let rate = self.cfg.world_view_rate;
        if rate <= 0.0 || now < self.next_sample {
            return;
        }
        self.next_sample = now + 1.0 / rate;
        let b = self.layouts.current_bindings().clone();
        let own = match (&self.own_proxy, self.cfg.gmc.use_client_prediction) {
            (Some(p), false) => p.display(&b),
            _ => self.values,
        };
        self.telemetry.push((
            now,
            Event::PawnSample(std::sync::Arc::new(super::telemetry::PawnSample::on_grid(
                self.pawn,
                Some(self.cfg.id),
                SampleKind::Predicted,
                own.location,
                own.velocity,
                own.rotation.y,
            ))),
        ));
        for p in self.proxies.values() {
            let v = p.display(&b);
            self.telemetry.push((
                now,
                Event::PawnSample(std::sync::Arc::new(super::telemetry::PawnSample::on_grid(
                    p.pawn,
                    p.owner,
                    SampleKind::Displayed,
                    v.location,
                    v.velocity,
                    v.rotation.y,
                ))),
            ));
        }
    }

    /// Displayed locations of the other pawns (what this machine shows).
    pub fn proxy_locations(&self) -> Vec<glam::DVec3> {
        let b = self.layouts.current_bindings();
        self.proxies
            .values()
            .map(|p| p.display(b).location)
            .collect()
    }

    /// The simulated proxies this client shows.
    pub fn proxies(&self) -> impl Iterator<Item = &Proxy> {
        self.proxies.values()
    }

    /// The next message to send, as a typed message (tests and tools).
    pub fn poll_msg(&mut self) -> Option<(ClientMsg, Delivery)> {
        self.outbox.pop_front()
    }

    /// The next datagram to send, encoded.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.poll_transmit_reusing(&mut Vec::new())
    }

    /// [`Client::poll_transmit`], encoding into a spare buffer from `spare` when it has one
    /// (the same bytes; the driver gives delivered datagrams' buffers back to save allocations).
    pub fn poll_transmit_reusing(&mut self, spare: &mut Vec<Vec<u8>>) -> Option<Transmit> {
        let (msg, delivery) = self.outbox.pop_front()?;
        self.send_seq = self.send_seq.wrapping_add(1);
        let b = self.bindings_of(msg.layout());
        let buf = spare.pop().unwrap_or_default();
        Some(Transmit {
            bytes: wire::encode_client_into(self.cfg.id, self.send_seq, &msg, b, buf),
            delivery,
            kind: msg.kind(),
        })
    }

    /// Moves the telemetry gathered since the last call into `out`, stamped with local time.
    pub fn drain_telemetry(&mut self, out: &mut Vec<(f64, Event)>) {
        out.append(&mut self.telemetry);
    }

    /// Hands every telemetry event since the last call to `f`, in order (what
    /// [`Client::drain_telemetry`] appends, without the intermediate vector).
    pub fn drain_telemetry_each(&mut self, mut f: impl FnMut(f64, Event)) {
        for (t, e) in self.telemetry.drain(..) {
            f(t, e);
        }
    }
}

/// A frame of proxy updates that later frames repeat while nothing changes
/// ([`Client::update_proxies`]).
#[derive(Clone, Copy, Debug)]
struct SteadyFrame {
    set_version: u64,
    latency: f64,
    /// The synchronized time of the last frame (display times only move forward).
    server_now: f64,
    /// Steady while the synchronized time is before this and the local time before
    /// `now_until` (the proxies' [`Proxy::steady_until`]).
    server_until: f64,
    now_until: f64,
    acc: super::proxy::FrameAcc,
    count: usize,
    view_sum: Option<f64>,
    team_unknown: u32,
    delay_max: f64,
}

/// Whether a frame's input may be merged into the open move, per the input bindings' combine
/// modes.
/// Where [`Client::receive_state_update`] decodes entries: a state staged in the entry's
/// proxy ([`Proxy::stage`]), or a scratch copy for entries the client ignores (no proxy for
/// the pawn, or its own pawn while playing and predicting).
struct StagedEntries<'a> {
    proxies: &'a mut ProxyList,
    /// The own pawn while playing, and whether it is shown as a proxy.
    own: Option<(u16, bool)>,
    /// Positions in `proxies` with a staged state.
    staged: Vec<usize>,
    ignored: PawnValues,
}

impl wire::EntryTarget for StagedEntries<'_> {
    #[inline]
    fn entry(&mut self, server_time: f64, pawn: u16, _forced: bool) -> Option<&mut PawnValues> {
        if let Some((own, shown)) = self.own
            && own == pawn
        {
            // The own proxy (prediction off) takes the usual way.
            return if shown { None } else { Some(&mut self.ignored) };
        }
        // Entries come in pawn order, as the proxies are: the next proxy is the likely one.
        let hint = self.staged.last().map_or(0, |i| i + 1);
        let Some(i) = self.proxies.position_from(pawn, hint) else {
            return Some(&mut self.ignored);
        };
        // A pawn's second entry finds its first staged (at the same server time), which
        // `stage` does not append to.
        let v = self.proxies.at_mut(i)?.stage(server_time)?;
        self.staged.push(i);
        Some(v)
    }
}

fn inputs_combine(b: &Bindings, pending: &PawnValues, frame: &PawnValues) -> bool {
    b.inputs().all(|(_, bd)| match bd.combine.resolve(bd.ty) {
        CombineMode::NeverCombine => false,
        CombineMode::CombineIfUnchanged => pending.get(bd.field) == frame.get(bd.field),
        _ => true,
    })
}

/// The merged move's input: AlwaysCombine keeps the first value of the window,
/// AlwaysCombineOverwrite the latest (CombineIfUnchanged values are equal anyway).
fn combine_inputs(b: &Bindings, pending: &PawnValues, frame: &PawnValues) -> PawnValues {
    let mut out = *pending;
    for (_, bd) in b.inputs() {
        if bd.combine.resolve(bd.ty) == CombineMode::AlwaysCombineOverwrite {
            out.set(bd.field, &frame.get(bd.field));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::messages::ProxyEntry;
    use crate::model::pawn::default_bindings;
    use glam::DVec3;

    fn client(predicted: bool) -> Client {
        let bindings = Arc::new(Bindings::new(default_bindings(&Faults::default())).unwrap());
        let gmc = GmcSettings {
            use_client_prediction: predicted,
            ..GmcSettings::default()
        };
        Client::new(ClientConfig {
            id: 3,
            nonce: 1,
            gmc,
            faults: Faults::default(),
            bindings,
            smoothing: SmoothingSettings::default(),
            seed: 5,
            hook_trace: false,
            value_trace: false,
            buffer_trace: false,
            world_view_rate: 0.0,
        })
    }

    /// Everything a state update can change, as text (floats printed exactly).
    fn proxy_state(c: &Client) -> String {
        format!(
            "{:?} {:?} {:?} {}",
            c.proxies.values().collect::<Vec<_>>(),
            c.own_proxy,
            c.recv_window,
            c.last_heard
        )
    }

    #[test]
    fn state_updates_decoded_in_place_match_the_entry_list() {
        // Two clients get the same datagrams: one decodes state updates straight into its
        // proxies, the other through the entry list (`handle_datagram_decoded`, the path the
        // in-place decoding replaces). Updates come in and out of order, with repeated and
        // equal server times, duplicates, unknown and own pawns, a pawn twice, truncated,
        // lengthened and damaged datagrams, and proxies coming and going; both run frames.
        // After every datagram the proxies, the telemetry and the result must be the same.
        for predicted in [true, false] {
            let (mut a, mut b) = (client(predicted), client(predicted));
            let bindings = a.bindings().clone();
            let layout = a.layouts().current();
            let mut rng = Rng::new(11);
            let mut seq = 0u32;
            let mut server_time = 1.0;
            let mut in_place = 0;
            let send = |a: &mut Client, b: &mut Client, now: f64, bytes: &[u8]| {
                let ra = a.handle_datagram(now, bytes);
                let rb = b.handle_datagram_decoded(now, bytes);
                assert_eq!(ra, rb);
                let (mut ta, mut tb) = (Vec::new(), Vec::new());
                a.drain_telemetry(&mut ta);
                b.drain_telemetry(&mut tb);
                assert_eq!(ta, tb);
                assert_eq!(proxy_state(a), proxy_state(b));
            };
            let welcome = ServerMsg::Welcome {
                layout,
                pawn: 0,
                spawn: PawnValues::default(),
                replicators: 1,
                server_time,
            };
            seq += 1;
            let bytes = wire::encode_server(seq, &welcome, &bindings);
            send(&mut a, &mut b, 0.0, &bytes);
            assert!(a.is_playing());
            for k in 0..4000u32 {
                let now = f64::from(k) / 120.0;
                if k % 20 == 0 {
                    // Proxies come and go.
                    let pawn = 1 + rng.below(8) as u16;
                    let msg = if rng.chance(0.7) {
                        ServerMsg::ProxySpawn {
                            pawn,
                            owner: 9,
                            team: 1,
                        }
                    } else {
                        ServerMsg::ProxyDespawn { pawn }
                    };
                    seq += 1;
                    let bytes = wire::encode_server(seq, &msg, &bindings);
                    send(&mut a, &mut b, now, &bytes);
                }
                server_time += match rng.below(50) {
                    0 => -0.05,
                    1 => 0.0,
                    _ => 1.0 / 30.0,
                };
                let mut entries: Vec<ProxyEntry> = Vec::new();
                for pawn in 0..10u16 {
                    if rng.chance(0.8) {
                        let x = rng.range(-3000.0, 3000.0);
                        entries.push(ProxyEntry {
                            pawn,
                            forced: rng.chance(0.1),
                            values: PawnValues {
                                location: DVec3::new(x, -x / 2.0, 90.0),
                                rotation: DVec3::new(0.0, x / 20.0, 0.0),
                                velocity: DVec3::new(x / 10.0, 1.5, 0.0),
                                dash_cooldown: rng.range(0.0, 2.0) as f32,
                                dash_count: (k / 300) as u8 + u8::from(rng.chance(0.02)),
                                team: 1 + u8::from(rng.chance(0.01)),
                                ..PawnValues::default()
                            },
                        });
                    }
                }
                if rng.chance(0.02)
                    && let Some(e) = entries.first().cloned()
                {
                    entries.push(e);
                }
                let msg = ServerMsg::StateUpdate {
                    layout,
                    server_time,
                    entries: entries.into(),
                };
                if !rng.chance(0.02) {
                    seq += 1;
                }
                let mut bytes = wire::encode_server(seq, &msg, &bindings);
                match rng.below(60) {
                    0 => bytes.truncate(rng.below(bytes.len() as u64) as usize),
                    1 => bytes.push(0),
                    2 => {
                        let i = super::super::messages::HEADER_BYTES + 8;
                        if let Some(n) = bytes.get_mut(i) {
                            *n = n.wrapping_add(1);
                        }
                    }
                    3 => {
                        let i = rng.below(bytes.len() as u64) as usize;
                        bytes[i] ^= 0x10;
                    }
                    _ => {}
                }
                // `handle_datagram`, counting the updates taken in place.
                let ra = if a.receive_state_update(now, &bytes) {
                    in_place += 1;
                    Ok(())
                } else {
                    a.handle_datagram_decoded(now, &bytes)
                };
                assert_eq!(ra, b.handle_datagram_decoded(now, &bytes));
                a.frame(now, RawInput::default());
                b.frame(now, RawInput::default());
                let (mut ta, mut tb) = (Vec::new(), Vec::new());
                a.drain_telemetry(&mut ta);
                b.drain_telemetry(&mut tb);
                assert_eq!(ta, tb, "frame {k}");
                assert_eq!(proxy_state(&a), proxy_state(&b), "frame {k}");
            }
            // Without prediction most updates carry the own pawn, shown as a proxy: those take
            // the entry list.
            let least = if predicted { 3000 } else { 500 };
            assert!(in_place > least, "state updates taken in place: {in_place}");
        }
    }
}
