//! The owning client (autonomous proxy): builds, combines, sends and replays moves, keeps its
//! synchronized clock, and measures ping. Sans-IO: time and datagrams come in as arguments,
//! datagrams and telemetry go out through `poll_*`.
//!
//! This file holds the client's state and its frame; the work is split by concern: `receive`
//! (incoming messages, session and clock), `moves` (building and combining), `send` (batches),
//! `replay` (acks and corrections), `proxies` (the others' display) and `trace`.

use std::collections::VecDeque;
use std::sync::Arc;

use super::binding::{Bindings, Layouts};
use super::input::RawInput;
use super::messages::{ClientMsg, Delivery, MsgKind, ServerMsg};
use super::pawn::{PawnValues, TickOutput};
use super::proxy::{Proxy, ProxyList};
use super::settings::SmoothingSettings;
use super::settings::{Faults, GmcSettings};
use super::telemetry::{Event, Hook, LogLevel};
use super::wire::SeqWindow;
use crate::support::rng::Rng;

mod moves;
mod proxies;
mod receive;
mod replay;
mod send;
mod trace;

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
    /// 0 for the clients a session starts with; every client started later (added or
    /// restarted) gets the session's next number, so the server tells a rejoin from a
    /// retransmitted join and both from a replay.
    pub incarnation: u32,
    /// The client's own join key ([`crate::model::messages::client_key`]): its joins carry
    /// a proof made with it, the key itself never travels.
    pub join_key: u64,
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
    /// A modified game client (a cheat): before every frame it writes a full `move_ramp`
    /// into its pawn, outside the move cycle. What the server makes of that depends on how
    /// `move_ramp` is bound (pitfall 12).
    pub modified: bool,
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
    /// Sets the key the client proves its joins with (its own, derived from a live session's
    /// secret, or given to a participant by its host; set before the client runs).
    pub fn set_join_key(&mut self, key: u64) {
        self.cfg.join_key = key;
    }
    /// The join this client sends: its incarnation and binding list, proven with its key.
    fn join_msg(&self) -> ClientMsg {
        let (incarnation, layout_hash) = (
            self.cfg.incarnation,
            self.layouts.current_bindings().layout_hash(),
        );
        ClientMsg::Join {
            incarnation,
            proof: crate::model::messages::join_proof(
                self.cfg.join_key,
                self.cfg.id,
                incarnation,
                layout_hash,
            ),
            layout_hash,
        }
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
                self.outbox.push_back((self.join_msg(), Delivery::Reliable));
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

    fn bindings_of(&self, layout: u8) -> &Arc<Bindings> {
        self.layouts
            .get(layout)
            .unwrap_or_else(|| self.layouts.current_bindings())
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
