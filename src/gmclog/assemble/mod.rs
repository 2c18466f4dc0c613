//! The second pass: each line, in session-time order across the files, turned into movescope
//! records — moves closed and sent, server executions, corrections with their replays and
//! deviating values, clock re-syncs, forced updates, proxy display and the pawns' locations.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use glam::DVec3;

mod correction;
mod dumps;
mod server;
mod v1;

use super::cast::{Cast, Part};
use super::client::{ClientPawn, OpenMove, PendingCheck};
use super::line::{Line, Verbosity};
use super::message::{Dump, Msg, Side};
use super::names::Naming;
use super::scan::Ts;
use super::values;
use crate::model::binding::Value;
use crate::model::logged::{LogContents, LogLine, LoggedStage};
use crate::model::telemetry::{
    Deviation, DisplayMode, Event, LogLevel, Machine, PawnSample, Record, SampleKind,
};

/// Server-side deviations kept for the client's correction that follows.
const SERVER_VERDICTS: usize = 4096;
/// Seconds a correction the server found waits for the server's lines that name the value.
const AWAIT_S: f64 = 2.0;
/// Seconds between a pawn's location samples (the world view's rate).
const SAMPLE_EVERY_S: f64 = 0.05;

/// Where a pawn's dump lines are going.
#[derive(Clone, Copy, Debug, PartialEq)]
enum DumpTarget {
    None,
    /// The output state of an execution: the pawn's location for the world view.
    Output(SampleKind),
    /// A dump nobody uses (inputs, replies, smoothing states).
    Ignored,
}

#[derive(Default)]
struct Sample {
    location: Option<DVec3>,
    velocity: Option<DVec3>,
    yaw: Option<f64>,
}

/// Per pawn of the cast: what its lines are building.
struct PawnState {
    dump: DumpTarget,
    sample: Sample,
    last_sample_t: f64,
    /// The dump being read as evidence.
    capture: Option<dumps::Capture>,
    /// Server copies: the per-value lines awaiting their verdict line, and iterations counted.
    pending: PendingCheck,
    /// Server copies: the move being processed (its timestamp), for a verdict line missing.
    current: Option<Ts>,
    /// Server copies: the last check, held while more verdict lines of its move may follow.
    held: Option<(f64, crate::model::logged::LoggedCheck)>,
    iterations: u16,
    display: Option<DisplayMode>,
}

impl Default for PawnState {
    fn default() -> Self {
        PawnState {
            dump: DumpTarget::None,
            sample: Sample::default(),
            last_sample_t: f64::NEG_INFINITY,
            capture: None,
            pending: PendingCheck::default(),
            current: None,
            held: None,
            iterations: 0,
            display: None,
        }
    }
}

/// Builds records from lines.
pub struct Assembler {
    pub cast: Cast,
    naming: Naming,
    pawns: Vec<PawnState>,
    clients: HashMap<u16, ClientPawn>,
    verdicts: HashMap<(u16, i64), Vec<Deviation>>,
    verdict_order: VecDeque<(u16, i64)>,
    /// The server's frame counter and moves executed in it.
    server_frame: Option<(usize, u16, u16)>,
    pub out: Vec<Record>,
    /// Lines whose pawn is in no machine the logs name.
    pub unplaced: u64,
    /// Corrections the server found, waiting for the server's own lines naming the value
    /// (its log's clock may put them a little later): (client, timestamp), deadline, record.
    awaiting: VecDeque<((u16, i64), f64, Record)>,
    /// Types the log prints more values of than the component binds: type → highest index.
    pub beyond_table: std::collections::BTreeMap<String, u16>,
    /// The dumps kept as evidence.
    dumps: dumps::Dumps,
    /// The file and line being read.
    at: LogLine,
    /// What the logs hold (the GMC generation decides how a ping reads).
    contents: Arc<LogContents>,
}

impl Assembler {
    /// An assembler for the logs `cast` describes; `contents` is emitted first, at the cast's
    /// start.
    pub fn new(cast: Cast, naming: Naming, contents: LogContents) -> Assembler {
        let mut clients = HashMap::new();
        for (id, _) in &cast.clients {
            clients.insert(*id, ClientPawn::new());
        }
        let contents = Arc::new(contents);
        let first = Record {
            t: cast.t_start,
            machine: Machine::Server,
            event: Event::LogContents(contents.clone()),
        };
        Assembler {
            pawns: cast.pawns.iter().map(|_| PawnState::default()).collect(),
            cast,
            naming,
            clients,
            verdicts: HashMap::new(),
            verdict_order: VecDeque::new(),
            server_frame: None,
            out: vec![first],
            unplaced: 0,
            awaiting: VecDeque::new(),
            beyond_table: std::collections::BTreeMap::new(),
            dumps: dumps::Dumps::default(),
            at: LogLine { file: 0, line: 0 },
            contents,
        }
    }

    /// The file (its index among the imported ones) and line the next line comes from.
    pub fn place(&mut self, file: usize, line: u64) {
        self.at = LogLine {
            file: u16::try_from(file).unwrap_or(u16::MAX),
            line,
        };
    }

    fn emit(&mut self, t: f64, machine: Machine, event: Event) {
        self.out.push(Record { t, machine, event });
    }

    /// One GMC line of `file` at session time `t`. Returns whether movescope used it.
    pub fn line(&mut self, file: usize, t: f64, line: &Line<'_>, msg: &Msg<'_>) {
        self.expire(t);
        let Some(who) = &line.who else {
            return;
        };
        let Some(p) = self.cast.find(file, who) else {
            return;
        };
        if self.cast.pawns[p].part == Part::Unplaced {
            self.unplaced += 1;
            return;
        }
        match *msg {
            Msg::DumpValue { name, value } => self.capture_line(p, None, Some((name, value))),
            Msg::DumpHeader(d) => {
                self.end_dump(p, t);
                self.capture_line(p, Some(d), None);
            }
            _ => {
                self.end_dump(p, t);
                self.end_capture(p, t);
            }
        }
        self.check_against_table(msg);
        if matches!(line.verbosity, Verbosity::Warning | Verbosity::Error) {
            self.notice(p, t, line.msg, line.verbosity);
        }
        if !matches!(msg, Msg::FailedValidation { .. }) {
            self.flush_check(p);
        }
        match self.cast.pawns[p].part {
            Part::Predicting => self.client_line(p, t, msg),
            Part::ServerCopy => self.server_line(p, file, t, line.frame, msg),
            Part::ServerLocal => self.local_line(p, t, msg),
            Part::Proxy => self.proxy_line(p, t, msg),
            Part::Unplaced => {}
        }
        if line.msg.starts_with("TrackClientMove: ") {
            self.v1_track(p, t, line.msg, msg);
        }
    }

    /// Notes a bound value the component's table has no binding for (its index is past the
    /// values of its type the table binds).
    fn check_against_table(&mut self, msg: &Msg<'_>) {
        if self.naming.is_empty() {
            return;
        }
        let mut note = |name: &str, i: u16| {
            if let Some(ty) = values::type_of(name)
                && i >= self.naming.count(ty)
            {
                let e = self.beyond_table.entry(name.to_string()).or_insert(i);
                *e = (*e).max(i);
            }
        };
        match *msg {
            Msg::DumpValue { name, value } if values::type_of(name).is_some() => {
                if let Some(last) = values::entries(value).map(|(i, _)| i).max() {
                    note(name, last);
                }
            }
            Msg::NotValid {
                name,
                index: Some(i),
                ..
            } => note(name, i),
            _ => {}
        }
    }

    fn notice(&mut self, p: usize, t: f64, text: &str, v: Verbosity) {
        let level = if v == Verbosity::Error {
            LogLevel::Error
        } else {
            LogLevel::Warning
        };
        let m = self.cast.pawns[p].machine;
        self.emit(
            t,
            m,
            Event::Log {
                level,
                text: format!("GMC: {text}"),
            },
        );
    }

    // ---- predicting clients ----

    fn client_of(&mut self, p: usize) -> Option<&mut ClientPawn> {
        let id = self.cast.pawns[p].client?;
        self.clients.get_mut(&id)
    }

    fn client_line(&mut self, p: usize, t: f64, msg: &Msg<'_>) {
        let m = self.cast.pawns[p].machine;
        match *msg {
            Msg::Executed { ts, delta } => {
                self.executed(p, t, ts, delta);
                self.capture_client_move(p, t, LoggedStage::ClientExecuted, ts, delta);
            }
            Msg::Sent { index, of, ts } => {
                self.sent(p, t, index, of, ts);
                self.sent_dump(p, t, ts);
            }
            Msg::ReplyReceived { ts } => {
                self.reply(p, t, ts, true);
                self.capture_client_move(p, t, LoggedStage::ReplyReceived, ts, None);
            }
            Msg::ReplyComplemented { ts } => self.reply(p, t, ts, false),
            Msg::IterationStarted { ts } => self.iteration(p, ts),
            Msg::DumpHeader(Dump::Output) => {
                self.pawns[p].dump = self.output_dump_of_client(p);
            }
            Msg::DumpHeader(_) => self.pawns[p].dump = DumpTarget::Ignored,
            Msg::DumpValue { name, value } => self.dump_value(p, name, value),
            Msg::Replay(stage) => self.replay_stage(p, t, stage),
            // `Replayed N moves.` closes a correction (only the "differs by" lines follow).
            Msg::Replayed { moves } => {
                self.correction(p, t).replayed = Some(moves);
                self.finish_correction(p, t);
            }
            Msg::NotValid { punct, .. } => {
                if self.decided(p).is_some() {
                    self.finish_correction(p, t);
                }
                let d = self.deviation(msg);
                let at = self.at;
                self.correction(p, t)
                    .check
                    .value_line(d, at, Side::Client, punct);
            }
            // The client's own check (`CL_ShouldReplay`): its verdict lines, whatever the server
            // decided (a 1.x server line in a client's file is not the client's).
            Msg::FailedValidation { side, ts, state } => {
                self.client_verdict(p, t, ts);
                let at = self.at;
                let c = self.correction(p, t);
                c.check.verdict_line(at, state);
                c.check.punctuation_agrees &= side == Side::Client;
            }
            Msg::SourceNotValid { ts } => {
                self.client_verdict(p, t, ts);
                let at = self.at;
                self.correction(p, t).check.verdict_line(at, None);
            }
            Msg::ReplayNotAllowed | Msg::AdoptedWithoutReplay => {
                self.correction(p, t).not_replayed = true;
            }
            Msg::ClockSynced {
                new_time,
                old_time,
                ping_ms,
            } => {
                let v1 = self.cast.pawns[p].key.net_mode.is_none();
                self.clock_synced(m, t, new_time, old_time, ping_ms, v1)
            }
            Msg::ClockCorrected { seconds } => self.emit(
                t,
                m,
                Event::Log {
                    level: LogLevel::Warning,
                    text: format!("GMC: the client's clock was corrected by {seconds:.6} s"),
                },
            ),
            // GMC 1.x prints half the connection's average lag (one way) as its ping.
            Msg::WorldTime {
                ping_ms: Some(ping),
                ..
            } => self.emit(
                t,
                m,
                Event::Rtt {
                    rtt: 2.0 * ping / 1000.0,
                },
            ),
            Msg::Notice(text) => self.notice(p, t, text, Verbosity::Warning),
            _ => {}
        }
    }

    /// The move the correction being gathered was decided for, if a verdict line was read.
    fn decided(&self, p: usize) -> Option<Ts> {
        let c = self.clients.get(&self.cast.pawns[p].client?)?;
        c.correction.as_ref()?.decided
    }

    /// A client verdict line for move `ts`: one for another move than the correction being
    /// gathered starts the next correction (a log with only Verbose lines has nothing else
    /// between them).
    fn client_verdict(&mut self, p: usize, t: f64, ts: Ts) {
        if self.decided(p).is_some_and(|d| d.micros != ts.micros) {
            self.finish_correction(p, t);
        }
        let c = self.correction(p, t);
        c.source.get_or_insert(ts);
        c.decided = Some(ts);
    }

    fn output_dump_of_client(&self, p: usize) -> DumpTarget {
        let in_replay = self.cast.pawns[p]
            .client
            .and_then(|c| self.clients.get(&c))
            .is_some_and(|c| c.correction.as_ref().is_some_and(|x| x.in_block));
        if in_replay {
            DumpTarget::Ignored
        } else {
            DumpTarget::Output(SampleKind::Predicted)
        }
    }

    fn executed(&mut self, p: usize, t: f64, ts: Ts, delta: Option<f64>) {
        self.finish_correction(p, t);
        let m = self.cast.pawns[p].machine;
        let Some(c) = self.client_of(p) else {
            return;
        };
        let frame_dt = c.last_executed.map(|prev| ts.secs() - prev.secs());
        c.last_executed = Some(ts);
        let substeps = std::mem::take(&mut c.iterations);
        let mut closed = None;
        if c.is_version(ts, delta) {
            if let Some(open) = c.open.as_mut() {
                let new_frame = ts.micros != open.ts.micros;
                open.ts = ts;
                open.delta = delta;
                open.frames = open.frames.saturating_add(u16::from(new_frame));
                open.substeps = substeps;
                let id = open.id;
                c.remember(ts, id);
            }
        } else {
            closed = c.close();
            let id = match c.id_of(ts) {
                Some(id) => id,
                None => c.fresh_id(),
            };
            c.remember(ts, id);
            c.open = Some(OpenMove {
                id,
                ts,
                delta,
                frames: 1,
                substeps,
            });
        }
        if let Some(e) = closed {
            self.emit(t, m, e);
        }
        if let Some(dt) = frame_dt.filter(|d| *d > 0.0) {
            self.emit(t, m, Event::Frame { dt });
        }
    }

    fn sent(&mut self, p: usize, t: f64, index: u16, of: Option<u16>, ts: Ts) {
        self.finish_correction(p, t);
        let m = self.cast.pawns[p].machine;
        let Some(c) = self.client_of(p) else {
            return;
        };
        let open_is_it = c.open.as_ref().is_some_and(|o| o.ts.matches(ts));
        let known = c.id_of(ts);
        let mut closed = Vec::new();
        let id = if open_is_it {
            let id = c.open.as_ref().map_or(0, |o| o.id);
            closed.extend(c.close());
            id
        } else if let Some(id) = known {
            id
        } else {
            // Only the batch names it: a move with no execution line (frames unknown).
            closed.extend(c.close());
            let id = c.fresh_id();
            c.remember(ts, id);
            closed.push(Event::MoveClosed {
                move_id: id,
                timestamp: ts.secs(),
                delta: f64::NAN,
                frames: 0,
                substeps: 0,
            });
            id
        };
        let resent = c.mark_sent(id, t);
        let (new, old) = c.batch.get_or_insert((0, 0));
        if resent {
            *old += 1;
        } else {
            *new += 1;
        }
        for e in closed {
            self.emit(t, m, e);
        }
        // 1.x prints no batch size: its batch ends at the pawn's next other line
        // (`finish_batch_if_open`).
        if of.is_some_and(|n| index >= n) {
            self.end_batch(p, t);
        }
    }

    fn end_batch(&mut self, p: usize, t: f64) {
        let m = self.cast.pawns[p].machine;
        let Some(c) = self.client_of(p) else {
            return;
        };
        if let Some((new_moves, resent_moves)) = c.batch.take() {
            self.emit(
                t,
                m,
                Event::MovesSent {
                    new_moves,
                    resent_moves,
                    value_bits: 0,
                    bytes: 0,
                    reliable: false,
                    pending_reliable: 0,
                },
            );
        }
    }

    /// A 1.x batch (no size printed) ends at the first line of its pawn that is neither a
    /// sent move nor a dump line of one. (A 2.x batch ends at its `n/n`: each sent move is
    /// followed by its own Input and Output dumps.)
    pub fn finish_batch_if_open(&mut self, file: usize, t: f64, line: &Line<'_>, msg: &Msg<'_>) {
        if matches!(
            msg,
            Msg::Sent { .. } | Msg::DumpHeader(_) | Msg::DumpValue { .. }
        ) {
            return;
        }
        let Some(who) = &line.who else {
            return;
        };
        if let Some(p) = self.cast.find(file, who)
            && self.cast.pawns[p].part == Part::Predicting
        {
            self.end_batch(p, t);
        }
    }

    /// A reply from the server: each one received is processed anew (a correction being
    /// gathered belongs to the previous one); its complement line only names its move.
    fn reply(&mut self, p: usize, t: f64, ts: Ts, received: bool) {
        if received {
            self.finish_correction(p, t);
        }
        let m = self.cast.pawns[p].machine;
        let pinged = self.contents.kinds.pings;
        let Some(c) = self.client_of(p) else {
            return;
        };
        let first = c.last_reply.is_none_or(|r| r.micros != ts.micros);
        c.last_reply = Some(ts);
        // Without a ping in the logs, the client's own trace times the round trip: from the
        // move's first send to its reply (the server's wait for its next net update included).
        let sent = c.id_of(ts).and_then(|id| c.sent_at(id));
        if received
            && first
            && !pinged
            && let Some(rtt) = sent.map(|s| t - s).filter(|r| *r > 0.0)
        {
            self.emit(t, m, Event::Rtt { rtt });
        }
    }

    /// A sent move's dump stands for its execution when the log printed none for it (the
    /// sent block dumps the move as it left: where it began and its prediction).
    fn sent_dump(&mut self, p: usize, t: f64, ts: Ts) {
        let Some(client) = self.cast.pawns[p].client else {
            return;
        };
        let Some(id) = self.clients.get(&client).and_then(|c| c.id_of(ts)) else {
            return;
        };
        if !self.has_dump(client, id, LoggedStage::ClientExecuted) {
            self.begin_capture(p, t, LoggedStage::ClientExecuted, client, id, ts, None);
        }
    }

    /// A client's trace header whose dump follows (its move must be known by then).
    fn capture_client_move(
        &mut self,
        p: usize,
        t: f64,
        stage: LoggedStage,
        ts: Ts,
        delta: Option<f64>,
    ) {
        let Some(client) = self.cast.pawns[p].client else {
            return;
        };
        let Some(id) = self.clients.get(&client).and_then(|c| c.id_of(ts)) else {
            return;
        };
        self.begin_capture(p, t, stage, client, id, ts, delta);
    }

    fn iteration(&mut self, p: usize, ts: Ts) {
        let Some(c) = self.client_of(p) else {
            return;
        };
        match c.correction.as_mut().filter(|x| x.in_block) {
            Some(x) => {
                if !x.replay_ts.contains(&ts.micros) {
                    x.replay_ts.push(ts.micros);
                }
            }
            None => c.iterations = c.iterations.saturating_add(1),
        }
    }

    // ---- dumps → the world view ----

    fn dump_value(&mut self, p: usize, name: &str, value: &str) {
        if !matches!(self.pawns[p].dump, DumpTarget::Output(_)) {
            return;
        }
        let s = &mut self.pawns[p].sample;
        match name {
            "ActorLocation" => s.location = vec3(value),
            "LinearVelocity" => s.velocity = vec3(value),
            "ActorRotation" => {
                if let Value::Vec3(r) = values::parse(
                    Some(crate::model::binding::BoundType::CompressedRotator),
                    value,
                ) {
                    s.yaw = Some(r.y);
                }
            }
            _ => {}
        }
    }

    /// The end of a pawn's dump: its location sample, at most one per 50 ms.
    fn end_dump(&mut self, p: usize, t: f64) {
        let target = std::mem::replace(&mut self.pawns[p].dump, DumpTarget::None);
        let sample = std::mem::take(&mut self.pawns[p].sample);
        let (DumpTarget::Output(kind), Some(location)) = (target, sample.location) else {
            return;
        };
        if t - self.pawns[p].last_sample_t < SAMPLE_EVERY_S {
            return;
        }
        self.pawns[p].last_sample_t = t;
        let info = &self.cast.pawns[p];
        let owner = info.client;
        let event = Event::PawnSample(Arc::new(PawnSample::on_grid(
            info.pawn,
            owner,
            kind,
            location,
            sample.velocity.unwrap_or(DVec3::ZERO),
            sample.yaw.unwrap_or(0.0),
        )));
        let m = info.machine;
        self.emit(t, m, event);
    }

    /// The end of the logs: open moves closed, pending corrections and batches emitted.
    pub fn finish(&mut self, t: f64) {
        for p in 0..self.cast.pawns.len() {
            self.end_dump(p, t);
            self.flush_check(p);
            if self.cast.pawns[p].part == Part::Predicting {
                self.finish_correction(p, t);
                self.end_batch(p, t);
                let m = self.cast.pawns[p].machine;
                if let Some(e) = self.client_of(p).and_then(ClientPawn::close) {
                    self.emit(t, m, e);
                }
            }
        }
        self.flush_server_frame(t);
        self.expire(f64::INFINITY);
    }
}

fn vec3(text: &str) -> Option<DVec3> {
    match values::parse(
        Some(crate::model::binding::BoundType::CompressedVector),
        text,
    ) {
        Value::Vec3(v) => Some(v),
        _ => None,
    }
}
