//! The in-memory store every session fills (virtual or live) and the views read: telemetry
//! folded into per-machine time series, with min/max decimation for plots and a retention
//! window. Views never own data; they query the store for the range they show.

use std::collections::BTreeMap;

use glam::DVec3;

use crate::model::binding::Value;
use crate::model::telemetry::{
    DetectedBy, Event, LogLevel, Machine, PacketFate, Record, SampleKind,
};

/// Seconds of trail kept per pawn view.
pub const TRAIL_SECONDS: f64 = 3.0;
/// A pawn not sampled for this long before the cursor is not shown.
pub const STALE_SECONDS: f64 = 1.0;

/// One pawn as one machine shows it at some time, with its trail up to then.
#[derive(Clone, Debug, PartialEq)]
pub struct PawnView {
    pub pawn: u16,
    pub owner: Option<u16>,
    pub kind: SampleKind,
    pub t: f64,
    pub location: DVec3,
    pub velocity: DVec3,
    pub yaw: f64,
    pub trail: Vec<(f64, DVec3)>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct PawnSampleAt {
    t: f64,
    location: DVec3,
    velocity: DVec3,
    yaw: f64,
}

/// Every sample of one pawn on one machine, in time order.
#[derive(Clone, Debug)]
struct PawnTrack {
    owner: Option<u16>,
    samples: Vec<PawnSampleAt>,
}

/// A correction of a location: where the client had its pawn, where the server put it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CorrectionMark {
    pub t: f64,
    pub machine: Machine,
    /// Server: the client sent its location (a claim) and the server's result differed —
    /// what the server sees of the correction. Client: the server's acknowledgement differed.
    pub detected_by: DetectedBy,
    pub predicted: DVec3,
    pub authoritative: DVec3,
}

/// One proxy's interpolation buffer on one machine (the buffer trace), in time order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BufferTrack {
    /// Each arrived state: (session time, the state's server time, the machine's server time
    /// at arrival).
    pub states: Vec<(f64, f64, f64)>,
    /// Each change of how it is displayed: (session time, display delay, mode); holds until
    /// the next.
    pub shown: Vec<(f64, f64, crate::model::telemetry::DisplayMode)>,
}

/// The value trace of one owner's moves: each execution's values on leaving it (time order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValueTrack {
    /// On the owning client: live, combined and replayed executions.
    pub client: Vec<(
        f64,
        crate::model::pawn::Execution,
        crate::model::pawn::PawnValues,
    )>,
    /// On the server (remote executions).
    pub server: Vec<(f64, crate::model::pawn::PawnValues)>,
}

/// One sample of a pawn as a machine showed it (for tracking a value over time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shown {
    pub t: f64,
    pub location: DVec3,
    pub velocity: DVec3,
    pub yaw: f64,
}

/// What a log entry (and its timeline marker) is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MarkKind {
    /// A correction the client adopted without pending moves to replay.
    Correction,
    /// A correction followed by a replay of pending moves.
    Replay,
    Warning,
    Error,
    /// The running session was changed (a setting, bindings, clients).
    Change,
    /// A one-shot event raised by a tick (GMC's replicated one-shots): listed in the event
    /// log when its filter asks, never a timeline marker (a pawn raises several a second).
    OneShot,
}

impl MarkKind {
    pub const ALL: [MarkKind; 5] = [
        MarkKind::Correction,
        MarkKind::Replay,
        MarkKind::Warning,
        MarkKind::Error,
        MarkKind::Change,
    ];
}

/// A line of the event log, with what the timeline needs.
#[derive(Clone, Debug, PartialEq)]
pub struct LogEntry {
    pub t: f64,
    pub machine: Machine,
    pub kind: MarkKind,
    pub move_id: Option<u32>,
    pub text: String,
}

impl LogEntry {
    /// The entry an event makes, if it is one the log shows.
    pub fn from_record(r: &Record) -> Option<LogEntry> {
        match &r.event {
            Event::Correction {
                move_id,
                deviations,
                replay_depth,
                replayed,
                detected_by,
            } => Some(LogEntry {
                t: r.t,
                machine: r.machine,
                kind: if *replayed && *replay_depth > 0 {
                    MarkKind::Replay
                } else {
                    MarkKind::Correction
                },
                move_id: Some(*move_id),
                // What deviated comes first: a row cut to one line still names it.
                text: format!(
                    "move {move_id} corrected: {}; replayed {replay_depth}, found by the {}",
                    deviations
                        .iter()
                        .map(|d| {
                            let unit = d.unit_suffix();
                            format!(
                                "{} predicted {}{unit} but server {}{unit} (error {:.3}{unit} > tolerance {:.3}{unit})",
                                d.binding, d.predicted, d.authoritative, d.error, d.tolerance
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("; "),
                    match detected_by {
                        DetectedBy::Client => "client",
                        DetectedBy::Server => "server",
                    },
                ),
            }),
            Event::Log { level, text } => Some(LogEntry {
                t: r.t,
                machine: r.machine,
                kind: match level {
                    LogLevel::Warning => MarkKind::Warning,
                    LogLevel::Error => MarkKind::Error,
                },
                move_id: None,
                text: text.clone(),
            }),
            Event::OneShot {
                pawn,
                owner,
                kind,
                exec,
            } => Some(LogEntry {
                t: r.t,
                machine: r.machine,
                kind: MarkKind::OneShot,
                move_id: None,
                text: format!(
                    "one-shot {} raised on pawn {pawn}{} ({exec:?} execution)",
                    kind.name(),
                    owner.map(|o| format!(" (client {o}'s)")).unwrap_or_default()
                ),
            }),
            Event::SessionChanged { what } => Some(LogEntry {
                t: r.t,
                machine: r.machine,
                kind: MarkKind::Change,
                move_id: None,
                text: format!("session changed: {what}"),
            }),
            _ => None,
        }
    }
}

/// What a series measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    /// Client: each closed move's timestamp minus the server time at that instant (s).
    MoveTimestampOffset,
    /// Server, per client: server time minus the move timestamp when it executed (s).
    MoveAge,
    /// Client: each closed move's delta time (s).
    MoveDelta,
    /// Client: frames merged into each move.
    FramesPerMove,
    /// Client: sub-steps of each move.
    Substeps,
    /// Client: each correction's replay depth (moves re-run).
    ReplayDepth,
    /// Client: each correction's largest deviation over its tolerance.
    CorrectionError,
    /// Client/host: mean display delay of proxies (s).
    InterpDelay,
    /// Client: ping round trip (s).
    Rtt,
    /// Client: synchronized clock minus server clock (s).
    ClockOffset,
    /// Bytes per second sent by a machine (one point per second).
    BytesSent,
    /// Server: remote moves executed per server frame.
    RemoteMovesPerFrame,
}

impl Metric {
    /// The name used in CSV exports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Metric::MoveTimestampOffset => "move_timestamp_offset",
            Metric::MoveAge => "move_age",
            Metric::MoveDelta => "move_delta",
            Metric::FramesPerMove => "frames_per_move",
            Metric::Substeps => "substeps",
            Metric::ReplayDepth => "replay_depth",
            Metric::CorrectionError => "correction_error",
            Metric::InterpDelay => "interp_delay",
            Metric::Rtt => "rtt",
            Metric::ClockOffset => "clock_offset",
            Metric::BytesSent => "bytes_sent",
            Metric::RemoteMovesPerFrame => "remote_moves_per_frame",
        }
    }

    /// The unit of the stored values.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::MoveTimestampOffset
            | Metric::MoveAge
            | Metric::MoveDelta
            | Metric::InterpDelay
            | Metric::Rtt
            | Metric::ClockOffset => "s",
            Metric::FramesPerMove => "frames",
            Metric::Substeps => "substeps",
            Metric::ReplayDepth => "moves",
            Metric::CorrectionError => "error/tolerance",
            Metric::BytesSent => "bytes/s",
            Metric::RemoteMovesPerFrame => "moves",
        }
    }

    /// Points of this metric are placed when the server executed a client's move (not when
    /// the client closed it).
    pub fn at_server_execution(self) -> bool {
        self == Metric::MoveAge
    }

    pub fn from_name(name: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == name)
    }

    pub const ALL: [Metric; 12] = [
        Metric::MoveTimestampOffset,
        Metric::MoveAge,
        Metric::MoveDelta,
        Metric::FramesPerMove,
        Metric::Substeps,
        Metric::ReplayDepth,
        Metric::CorrectionError,
        Metric::InterpDelay,
        Metric::Rtt,
        Metric::ClockOffset,
        Metric::BytesSent,
        Metric::RemoteMovesPerFrame,
    ];
}

/// One series: (time, value) points in time order, with a min/max pyramid for fast
/// decimation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    t: Vec<f64>,
    v: Vec<f64>,
    /// Absolute index of `t[0]` (points trimmed off the front so far); pyramid buckets are
    /// aligned on absolute indices, so trimming does not move them.
    base: usize,
    /// Level k: for each bucket of `BUCKET << (2 k)` consecutive points, the absolute indices
    /// of its smallest and largest value.
    levels: Vec<Level>,
    /// Points inserted before the newest so far (not appended): a view that cached a
    /// decimation can extend it only while this is unchanged.
    inserts: u64,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Level {
    size: usize,
    /// Absolute bucket number of `lo[0]`.
    first: usize,
    lo: Vec<usize>,
    hi: Vec<usize>,
}

/// Points per bucket at the finest pyramid level; each level is 4× coarser.
const BUCKET: usize = 4;
const LEVELS: usize = 8;

impl Level {
    /// Folds the point at absolute index `abs` (value `v`) into its bucket.
    fn add(&mut self, abs: usize, v: f64, values: &[f64], base: usize) {
        let b = abs / self.size;
        if self.lo.is_empty() {
            self.first = b;
        }
        let k = b - self.first;
        if k == self.lo.len() {
            self.lo.push(abs);
            self.hi.push(abs);
        } else {
            if v < values[self.lo[k] - base] {
                self.lo[k] = abs;
            }
            if v > values[self.hi[k] - base] {
                self.hi[k] = abs;
            }
        }
    }
}

impl Series {
    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    fn ensure_levels(&mut self) {
        if self.levels.is_empty() {
            self.levels = (0..LEVELS)
                .map(|k| Level {
                    size: BUCKET << (2 * k),
                    ..Level::default()
                })
                .collect();
        }
    }

    /// Adds a point; out-of-order points (several threads feed a live store) are inserted in
    /// place.
    pub fn push(&mut self, t: f64, v: f64) {
        self.ensure_levels();
        if self.t.last().is_none_or(|&last| last <= t) {
            self.t.push(t);
            self.v.push(v);
            let abs = self.base + self.t.len() - 1;
            for level in &mut self.levels {
                level.add(abs, v, &self.v, self.base);
            }
        } else {
            let i = self.t.partition_point(|&x| x <= t);
            self.t.insert(i, t);
            self.v.insert(i, v);
            self.inserts += 1;
            self.reindex_from(i);
        }
    }

    /// Re-indexes every bucket from the one holding local index `i` on (points after `i`
    /// moved by one).
    fn reindex_from(&mut self, i: usize) {
        let abs = self.base + i;
        for level in &mut self.levels {
            let keep = (abs / level.size).saturating_sub(level.first);
            let keep = keep.min(level.lo.len());
            level.lo.truncate(keep);
            level.hi.truncate(keep);
            let from = ((level.first + keep) * level.size).max(self.base) - self.base;
            for j in from..self.v.len() {
                level.add(self.base + j, self.v[j], &self.v, self.base);
            }
        }
    }

    /// Time of the oldest point held.
    /// How many points were inserted before the newest (out of time order) so far.
    pub fn inserts(&self) -> u64 {
        self.inserts
    }

    pub fn first_t(&self) -> Option<f64> {
        self.t.first().copied()
    }

    /// Time of the newest point.
    pub fn last_t(&self) -> Option<f64> {
        self.t.last().copied()
    }

    /// The points with `t0 <= t <= t1`.
    pub fn range(&self, t0: f64, t1: f64) -> impl Iterator<Item = [f64; 2]> + '_ {
        let a = self.t.partition_point(|&x| x < t0);
        let b = self.t.partition_point(|&x| x <= t1);
        (a..b).map(move |i| [self.t[i], self.v[i]])
    }

    /// At most two points per column of `(t1 - t0) / columns` seconds — the smallest and the
    /// largest value, in time order — so a line drawn through them looks like the full series
    /// at that resolution, and every extreme stays visible. Long ranges read the pyramid:
    /// whole buckets of at most half a column contribute their smallest and largest point
    /// (each to the column of its own time), so the cost follows the columns, not the points;
    /// a bucket straddling two columns can hide a non-extreme value of one of them.
    pub fn decimate(&self, t0: f64, t1: f64, columns: usize, out: &mut Vec<[f64; 2]>) {
        self.decimate_with(t0, t1, columns, out, true);
    }

    /// The same decimation looking at every point (the reference the pyramid is tested
    /// against).
    pub fn decimate_exact(&self, t0: f64, t1: f64, columns: usize, out: &mut Vec<[f64; 2]>) {
        self.decimate_with(t0, t1, columns, out, false);
    }

    fn decimate_with(
        &self,
        t0: f64,
        t1: f64,
        columns: usize,
        out: &mut Vec<[f64; 2]>,
        pyramid: bool,
    ) {
        out.clear();
        let a = self.t.partition_point(|&x| x < t0);
        let b = self.t.partition_point(|&x| x <= t1);
        if b <= a || columns == 0 {
            return;
        }
        if b - a <= 2 * columns {
            out.extend((a..b).map(|i| [self.t[i], self.v[i]]));
            return;
        }
        // An empty time range is one column.
        let width = if t1 > t0 {
            (t1 - t0) / columns as f64
        } else {
            f64::INFINITY
        };
        let last = columns - 1;
        let col = |t: f64| column_of(t, t0, width, last);
        // Points per column where there are points (the range may reach past the data).
        let occupied = ((self.t[b - 1] - self.t[a]) / width)
            .ceil()
            .clamp(1.0, columns as f64);
        let per_column = ((b - a) as f64 / occupied) as usize;
        let level = self
            .levels
            .iter()
            .rev()
            .find(|l| pyramid && l.size * 2 <= per_column);
        // The column being gathered, where it ends, and its extremes (local indices). Points
        // are compared with the column's end; the column number is computed only when it
        // changes.
        let mut current: Option<(usize, f64, usize, usize)> = None;
        let mut take = |i: usize, out: &mut Vec<[f64; 2]>| {
            let t = self.t[i];
            if let Some((c, end, lo, hi)) = &mut current
                && (t < *end || *c == last)
            {
                if self.v[i] < self.v[*lo] {
                    *lo = i;
                }
                if self.v[i] > self.v[*hi] {
                    *hi = i;
                }
                return;
            }
            let c = col(t);
            match &mut current {
                Some((cc, _, lo, hi)) if *cc == c => {
                    if self.v[i] < self.v[*lo] {
                        *lo = i;
                    }
                    if self.v[i] > self.v[*hi] {
                        *hi = i;
                    }
                }
                _ => {
                    if let Some((_, _, lo, hi)) = current {
                        emit(&self.t, &self.v, lo, hi, out);
                    }
                    current = Some((c, t0 + (c + 1) as f64 * width, i, i));
                }
            }
        };
        let mut i = a;
        while i < b {
            let abs = self.base + i;
            if let Some(l) = level
                && abs.is_multiple_of(l.size)
                && i + l.size <= b
                && let Some(k) = (abs / l.size).checked_sub(l.first)
                && k < l.lo.len()
            {
                let (lo, hi) = (l.lo[k] - self.base, l.hi[k] - self.base);
                take(lo.min(hi), out);
                take(lo.max(hi), out);
                i += l.size;
            } else {
                take(i, out);
                i += 1;
            }
        }
        if let Some((_, _, lo, hi)) = current {
            emit(&self.t, &self.v, lo, hi, out);
        }
    }

    /// Drops points older than `t`.
    fn trim_before(&mut self, t: f64) {
        let k = self.t.partition_point(|&x| x < t);
        if k == 0 {
            return;
        }
        self.t.drain(..k);
        self.v.drain(..k);
        self.base += k;
        for level in &mut self.levels {
            // Buckets wholly trimmed go; the first remaining one is recomputed from its
            // surviving points.
            let first = self.base / level.size;
            let gone = first.saturating_sub(level.first).min(level.lo.len());
            level.lo.drain(..gone);
            level.hi.drain(..gone);
            level.first = first;
            if !level.lo.is_empty() {
                let end = ((first + 1) * level.size - self.base).min(self.v.len());
                let (mut lo, mut hi) = (self.base, self.base);
                for j in 0..end {
                    if self.v[j] < self.v[lo - self.base] {
                        lo = self.base + j;
                    }
                    if self.v[j] > self.v[hi - self.base] {
                        hi = self.base + j;
                    }
                }
                level.lo[0] = lo;
                level.hi[0] = hi;
            }
        }
    }
}

/// The decimation column of time `t`: column `c` holds `t0 + c·width <= t < t0 + (c+1)·width`
/// (the last column also everything after it), with the edges computed exactly as the
/// decimation compares them.
fn column_of(t: f64, t0: f64, width: f64, last: usize) -> usize {
    let mut c = (((t - t0) / width).floor().max(0.0) as usize).min(last);
    while c < last && t >= t0 + (c + 1) as f64 * width {
        c += 1;
    }
    while c > 0 && t < t0 + c as f64 * width {
        c -= 1;
    }
    c
}

fn emit(t: &[f64], v: &[f64], lo: usize, hi: usize, out: &mut Vec<[f64; 2]>) {
    let (first, second) = if lo <= hi { (lo, hi) } else { (hi, lo) };
    out.push([t[first], v[first]]);
    if second != first {
        out.push([t[second], v[second]]);
    }
}

/// Every series of a session, by (machine, metric).
#[derive(Debug, Default)]
pub struct Store {
    series: BTreeMap<(Machine, Metric), Series>,
    /// Keep this many seconds behind the newest record (`None`: everything).
    retention: Option<f64>,
    latest: f64,
    /// Bytes sent per machine in the second being accumulated.
    bytes: BTreeMap<Machine, (f64, u64)>,
    tracks: BTreeMap<(Machine, u16, SampleKind), PawnTrack>,
    /// The buffer trace, by (displaying machine, proxy pawn).
    buffers: BTreeMap<(Machine, u16), BufferTrack>,
    /// The value trace's executions of each owner's moves (track one value).
    values: BTreeMap<u16, ValueTrack>,
    marks: Vec<CorrectionMark>,
    log: Vec<LogEntry>,
    /// Frame start times per machine (for stepping one frame).
    frames: BTreeMap<Machine, Vec<f64>>,
    earliest: Option<f64>,
    records: u64,
    growing: bool,
}

impl Store {
    pub fn new(retention: Option<f64>) -> Self {
        Store {
            retention,
            ..Default::default()
        }
    }

    /// Newest session time seen.
    pub fn latest(&self) -> f64 {
        self.latest
    }

    /// The value trace of `owner`'s moves.
    pub fn values(&self, owner: u16) -> Option<&ValueTrack> {
        self.values.get(&owner)
    }

    /// The owners the value trace has.
    pub fn value_owners(&self) -> Vec<u16> {
        self.values.keys().copied().collect()
    }

    /// How each machine other than `owner`'s showed `owner`'s pawn as a simulated proxy, in
    /// `[t0, t1]`: (machine, samples).
    pub fn shown_by_others(&self, owner: u16, t0: f64, t1: f64) -> Vec<(Machine, Vec<Shown>)> {
        self.tracks
            .iter()
            .filter(|((m, _, kind), track)| {
                *kind == SampleKind::Displayed
                    && track.owner == Some(owner)
                    && *m != Machine::Client(owner)
            })
            .map(|((m, _, _), track)| {
                let a = track.samples.partition_point(|s| s.t < t0);
                let b = track.samples.partition_point(|s| s.t <= t1);
                (
                    *m,
                    track.samples[a..b.max(a)]
                        .iter()
                        .map(|s| Shown {
                            t: s.t,
                            location: s.location,
                            velocity: s.velocity,
                            yaw: s.yaw,
                        })
                        .collect(),
                )
            })
            .collect()
    }

    /// The buffer trace of `pawn` as `machine` displays it.
    pub fn buffer(&self, machine: Machine, pawn: u16) -> Option<&BufferTrack> {
        self.buffers.get(&(machine, pawn))
    }

    /// The (machine, proxy) pairs the buffer trace has.
    pub fn buffered(&self) -> Vec<(Machine, u16)> {
        self.buffers.keys().copied().collect()
    }

    pub fn series(&self, machine: Machine, metric: Metric) -> Option<&Series> {
        self.series.get(&(machine, metric))
    }

    /// The machines that have a series of `metric`.
    pub fn machines_with(&self, metric: Metric) -> Vec<Machine> {
        self.series
            .keys()
            .filter(|(_, m)| *m == metric)
            .map(|(machine, _)| *machine)
            .collect()
    }

    fn point(&mut self, machine: Machine, metric: Metric, t: f64, v: f64) {
        self.series.entry((machine, metric)).or_default().push(t, v);
    }

    /// Oldest session time still held.
    pub fn earliest(&self) -> f64 {
        self.earliest.unwrap_or(0.0)
    }

    /// Whether more records are still coming (a live session, a recording being loaded).
    pub fn is_growing(&self) -> bool {
        self.growing
    }

    pub fn set_growing(&mut self, growing: bool) {
        self.growing = growing;
    }

    /// Records folded in so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The pawns `machine` shows at time `t`: each pawn's newest sample at or before `t` (pawns
    /// not sampled within [`STALE_SECONDS`] before it are left out), with its trail.
    pub fn pawns_at(&self, machine: Machine, t: f64) -> Vec<PawnView> {
        self.tracks
            .range(
                (machine, 0, SampleKind::Predicted)
                    ..=(machine, u16::MAX, SampleKind::Authoritative),
            )
            .filter_map(|(&(_, pawn, kind), track)| view_at(pawn, kind, track, t))
            .collect()
    }

    /// The server's authoritative `pawn` at time `t`.
    pub fn authoritative_at(&self, pawn: u16, t: f64) -> Option<PawnView> {
        let kind = SampleKind::Authoritative;
        self.tracks
            .get(&(Machine::Server, pawn, kind))
            .and_then(|track| view_at(pawn, kind, track, t))
    }

    /// Machines that have world-view samples.
    pub fn viewers(&self) -> Vec<Machine> {
        let mut m: Vec<Machine> = self.tracks.keys().map(|(m, _, _)| *m).collect();
        m.dedup();
        m
    }

    /// Location corrections with `t0 <= t <= t1`.
    pub fn corrections_between(&self, t0: f64, t1: f64) -> &[CorrectionMark] {
        let a = self.marks.partition_point(|m| m.t < t0);
        let b = self.marks.partition_point(|m| m.t <= t1);
        &self.marks[a..b.max(a)]
    }

    /// Log entries (corrections, warnings, errors) in time order.
    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    /// Log entries with `t0 <= t <= t1`.
    pub fn log_between(&self, t0: f64, t1: f64) -> &[LogEntry] {
        let a = self.log.partition_point(|e| e.t < t0);
        let b = self.log.partition_point(|e| e.t <= t1);
        &self.log[a..b.max(a)]
    }

    /// The nearest frame start of `machine` strictly after (`forward`) or before `t`.
    pub fn next_frame(&self, machine: Machine, t: f64, forward: bool) -> Option<f64> {
        neighbour(self.frames.get(&machine)?, t, forward)
    }

    /// The nearest move close of client `machine` strictly after (`forward`) or before `t`.
    pub fn next_move(&self, machine: Machine, t: f64, forward: bool) -> Option<f64> {
        neighbour(&self.series(machine, Metric::MoveDelta)?.t, t, forward)
    }

    /// The nearest log entry of one of `kinds` strictly after (`forward`) or before `t`.
    pub fn next_mark(&self, kinds: &[MarkKind], t: f64, forward: bool) -> Option<f64> {
        if forward {
            let i = self.log.partition_point(|e| e.t <= t);
            self.log[i..]
                .iter()
                .find(|e| kinds.contains(&e.kind))
                .map(|e| e.t)
        } else {
            let i = self.log.partition_point(|e| e.t < t);
            self.log[..i]
                .iter()
                .rev()
                .find(|e| kinds.contains(&e.kind))
                .map(|e| e.t)
        }
    }

    /// Folds one record in.
    pub fn ingest(&mut self, r: &Record) {
        self.latest = self.latest.max(r.t);
        self.earliest = Some(self.earliest.map_or(r.t, |e| e.min(r.t)));
        self.records += 1;
        let m = r.machine;
        if let Some(entry) = LogEntry::from_record(r) {
            let i = self.log.partition_point(|e| e.t <= entry.t);
            self.log.insert(i, entry);
        }
        match &r.event {
            Event::MoveClosed {
                timestamp,
                delta,
                frames,
                substeps,
                ..
            } => {
                self.point(m, Metric::MoveDelta, r.t, *delta);
                self.point(m, Metric::FramesPerMove, r.t, f64::from(*frames));
                self.point(m, Metric::Substeps, r.t, f64::from(*substeps));
                // The server's clock is session time minus its start (0 unless restarted).
                self.point(m, Metric::MoveTimestampOffset, r.t, timestamp - r.t);
            }
            Event::RemoteMoveExecuted(x) => {
                let crate::model::telemetry::RemoteMove { client, age, .. } = &**x;
                self.point(Machine::Client(*client), Metric::MoveAge, r.t, *age);
            }
            Event::ProxyState {
                pawn,
                state_time,
                server_now,
            } => {
                let b = self.buffers.entry((m, *pawn)).or_default();
                b.states.push((r.t, *state_time, *server_now));
            }
            Event::ProxyDisplay { pawn, delay, mode } => {
                let b = self.buffers.entry((m, *pawn)).or_default();
                b.shown.push((r.t, *delay, *mode));
            }
            Event::MoveValues(v) => {
                if let Some(owner) = v.owner {
                    let track = self.values.entry(owner).or_default();
                    match m {
                        Machine::Server => track.server.push((r.t, v.exit)),
                        Machine::Client(c) if c == owner => {
                            track.client.push((r.t, v.exec, v.exit));
                        }
                        Machine::Client(_) => {}
                    }
                }
            }
            Event::PawnSample(s) => {
                let crate::model::telemetry::PawnSample {
                    pawn,
                    owner,
                    kind,
                    location,
                    velocity,
                    yaw,
                } = &**s;
                let track = self
                    .tracks
                    .entry((m, *pawn, *kind))
                    .or_insert_with(|| PawnTrack {
                        owner: *owner,
                        samples: Vec::new(),
                    });
                let sample = PawnSampleAt {
                    t: r.t,
                    location: *location,
                    velocity: *velocity,
                    yaw: *yaw,
                };
                if track.samples.last().is_none_or(|s| s.t <= r.t) {
                    track.samples.push(sample);
                } else {
                    let i = track.samples.partition_point(|s| s.t <= r.t);
                    track.samples.insert(i, sample);
                }
            }
            Event::Frame { .. } => push_sorted(self.frames.entry(m).or_default(), r.t),
            Event::Correction {
                replay_depth,
                deviations,
                detected_by,
                ..
            } => {
                for d in deviations.iter().filter(|d| &*d.binding == "location") {
                    if let (Value::Vec3(p), Value::Vec3(a)) = (&d.predicted, &d.authoritative) {
                        let mark = CorrectionMark {
                            t: r.t,
                            machine: m,
                            detected_by: *detected_by,
                            predicted: *p,
                            authoritative: *a,
                        };
                        let i = self.marks.partition_point(|x| x.t <= r.t);
                        self.marks.insert(i, mark);
                    }
                }
                self.point(m, Metric::ReplayDepth, r.t, f64::from(*replay_depth));
                let worst = deviations
                    .iter()
                    .map(|d| {
                        if d.tolerance > 0.0 {
                            d.error / d.tolerance
                        } else {
                            d.error
                        }
                    })
                    .filter(|x| x.is_finite())
                    .fold(0.0, f64::max);
                self.point(m, Metric::CorrectionError, r.t, worst);
            }
            Event::ProxiesDisplayed(x) if x.proxies > x.paused => {
                self.point(m, Metric::InterpDelay, r.t, x.delay_mean)
            }
            Event::Rtt { rtt } => self.point(m, Metric::Rtt, r.t, *rtt),
            Event::ClockOffset { offset } => self.point(m, Metric::ClockOffset, r.t, *offset),
            Event::ServerFrame { remote_moves } => {
                self.point(
                    m,
                    Metric::RemoteMovesPerFrame,
                    r.t,
                    f64::from(*remote_moves),
                );
            }
            Event::Packet {
                from,
                bytes,
                fate: PacketFate::Sent,
                ..
            } => {
                let second = r.t.floor();
                let (start, sum) = self.bytes.entry(*from).or_insert((second, 0));
                if second > *start {
                    let (s, total) = (*start, *sum);
                    *start = second;
                    *sum = 0;
                    self.point(*from, Metric::BytesSent, s + 0.5, total as f64);
                }
                if let Some((_, sum)) = self.bytes.get_mut(from) {
                    *sum += u64::from(*bytes);
                }
            }
            _ => {}
        }
        if let Some(keep) = self.retention {
            // Trim in steps, not on every record.
            let cut = self.latest - keep;
            if self
                .series
                .values()
                .next()
                .and_then(|s| s.t.first())
                .is_some_and(|&first| first < cut - 1.0)
            {
                for s in self.series.values_mut() {
                    s.trim_before(cut);
                }
                for track in self.tracks.values_mut() {
                    let k = track.samples.partition_point(|s| s.t < cut);
                    track.samples.drain(..k);
                }
                for f in self.frames.values_mut() {
                    let k = f.partition_point(|&t| t < cut);
                    f.drain(..k);
                }
                for v in self.values.values_mut() {
                    let k = v.client.partition_point(|s| s.0 < cut);
                    v.client.drain(..k);
                    let k = v.server.partition_point(|s| s.0 < cut);
                    v.server.drain(..k);
                }
                for b in self.buffers.values_mut() {
                    let k = b.states.partition_point(|s| s.0 < cut);
                    b.states.drain(..k);
                    // The display change in force at the cut stays (it holds until the next).
                    let k = b.shown.partition_point(|s| s.0 < cut).saturating_sub(1);
                    b.shown.drain(..k);
                }
                let k = self.marks.partition_point(|m| m.t < cut);
                self.marks.drain(..k);
                let k = self.log.partition_point(|e| e.t < cut);
                self.log.drain(..k);
                self.earliest = Some(cut);
            }
        }
    }
}

fn push_sorted(v: &mut Vec<f64>, t: f64) {
    if v.last().is_none_or(|&last| last <= t) {
        v.push(t);
    } else {
        let i = v.partition_point(|&x| x <= t);
        v.insert(i, t);
    }
}

/// The nearest element strictly after (`forward`) or before `t` in a sorted list.
fn neighbour(v: &[f64], t: f64, forward: bool) -> Option<f64> {
    if forward {
        v.get(v.partition_point(|&x| x <= t)).copied()
    } else {
        let i = v.partition_point(|&x| x < t);
        i.checked_sub(1).map(|i| v[i])
    }
}

fn view_at(pawn: u16, kind: SampleKind, track: &PawnTrack, t: f64) -> Option<PawnView> {
    let i = track.samples.partition_point(|s| s.t <= t);
    let newest = track.samples.get(i.checked_sub(1)?)?;
    if t - newest.t > STALE_SECONDS {
        return None;
    }
    let from = track.samples[..i].partition_point(|s| s.t < t - TRAIL_SECONDS);
    Some(PawnView {
        pawn,
        owner: track.owner,
        kind,
        t: newest.t,
        location: newest.location,
        velocity: newest.velocity,
        yaw: newest.yaw,
        trail: track.samples[from..i]
            .iter()
            .map(|s| (s.t, s.location))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn decimation_keeps_every_extreme() {
        let mut s = Series::default();
        for i in 0..100_000 {
            let t = i as f64 / 1000.0;
            // A spike every 10 s.
            let v = if i % 10_000 == 5_000 {
                100.0
            } else {
                (t * 3.0).sin()
            };
            s.push(t, v);
        }
        let mut out = Vec::new();
        s.decimate(0.0, 100.0, 500, &mut out);
        assert!(out.len() <= 1000, "{}", out.len());
        assert_eq!(
            out.iter().filter(|p| p[1] == 100.0).count(),
            10,
            "every spike survives"
        );
        assert!(out.windows(2).all(|w| w[0][0] <= w[1][0]), "time order");
        let min = out.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min);
        assert!(min < -0.999);
    }

    #[test]
    fn the_value_trace_is_kept_per_owner_by_where_it_ran() {
        use crate::model::pawn::{Execution, PawnValues};
        use crate::model::telemetry::MoveValues;
        let mut st = Store::new(None);
        let rec = |t: f64, machine: Machine, owner: u16, exec: Execution, x: f32| Record {
            t,
            machine,
            event: Event::MoveValues(std::sync::Arc::new(MoveValues {
                pawn: owner,
                owner: Some(owner),
                move_id: 1,
                exec,
                entry: PawnValues::default(),
                substeps: Vec::new(),
                exit: PawnValues {
                    stride: x,
                    ..PawnValues::default()
                },
            })),
        };
        st.ingest(&rec(1.0, Machine::Client(0), 0, Execution::Live, 1.0));
        st.ingest(&rec(1.1, Machine::Server, 0, Execution::Remote, 2.0));
        st.ingest(&rec(1.2, Machine::Client(0), 0, Execution::Replay, 3.0));
        // Another client's simulated execution of client 0's pawn is not the owner's.
        st.ingest(&rec(1.3, Machine::Client(1), 0, Execution::Simulated, 4.0));
        let v = st.values(0).unwrap();
        assert_eq!(v.client.len(), 2);
        assert_eq!(v.client[1].1, Execution::Replay);
        assert_eq!(v.server.len(), 1);
        assert_eq!(v.server[0].1.stride, 2.0);
        assert_eq!(st.value_owners(), vec![0]);
    }

    #[test]
    fn retention_drops_old_points() {
        let mut st = Store::new(Some(10.0));
        for i in 0..3000 {
            let t = i as f64 / 100.0;
            st.ingest(&Record {
                t,
                machine: Machine::Client(0),
                event: Event::Rtt { rtt: 0.05 },
            });
        }
        let s = st.series(Machine::Client(0), Metric::Rtt).unwrap();
        let first = s.range(0.0, 100.0).next().unwrap()[0];
        assert!((29.99 - 11.0..=29.99 - 9.9).contains(&first), "{first}");
    }

    proptest! {
        #[test]
        fn the_pyramid_keeps_what_matters(
            vals in proptest::collection::vec(-1e3f64..1e3, 1..20_000),
            shuffled in proptest::collection::vec((0usize..20_000, -1e3f64..1e3), 0..20),
            trim in 0usize..5_000,
            columns in 1usize..200,
            window in (0usize..20_000, 0usize..20_000),
        ) {
            let mut s = Series::default();
            for (i, v) in vals.iter().enumerate() {
                s.push(i as f64 * 0.01, *v);
            }
            // Out-of-order points and a trim keep the pyramid consistent.
            for (at, v) in &shuffled {
                s.push((*at % vals.len()) as f64 * 0.01 + 0.005, *v);
            }
            s.trim_before((trim % vals.len()) as f64 * 0.01);
            let (x, y) = window;
            let n = vals.len() as f64 * 0.01;
            let (t0, t1) = ((x.min(y) as f64 * 0.01).min(n), (x.max(y) as f64 * 0.01).min(n));
            let (mut fast, mut exact) = (Vec::new(), Vec::new());
            s.decimate(t0, t1, columns, &mut fast);
            s.decimate_exact(t0, t1, columns, &mut exact);
            let all: Vec<[f64; 2]> = s.range(t0, t1).collect();
            if all.is_empty() {
                prop_assert!(fast.is_empty());
            } else {
                // The extremes of the range survive; every point is a real point in time order.
                let max = all.iter().map(|p| p[1]).fold(f64::MIN, f64::max);
                let min = all.iter().map(|p| p[1]).fold(f64::MAX, f64::min);
                prop_assert_eq!(fast.iter().map(|p| p[1]).fold(f64::MIN, f64::max), max);
                prop_assert_eq!(fast.iter().map(|p| p[1]).fold(f64::MAX, f64::min), min);
                prop_assert!(fast.windows(2).all(|w| w[0][0] <= w[1][0]));
                prop_assert!(fast.iter().all(|p| all.contains(p)));
                if all.len() <= 2 * columns {
                    prop_assert_eq!(&fast, &all, "short ranges are returned whole");
                } else {
                    // At most two points per column.
                    let width = if t1 > t0 { (t1 - t0) / columns as f64 } else { f64::INFINITY };
                    let mut per = std::collections::BTreeMap::<usize, usize>::new();
                    for p in &fast {
                        let c = column_of(p[0], t0, width, columns - 1);
                        *per.entry(c).or_default() += 1;
                    }
                    prop_assert!(per.values().all(|n| *n <= 2), "{:?}", per);
                }
                if all.len() / columns < 8 && (all[all.len() - 1][0] - all[0][0]) >= (t1 - t0) * 0.99 {
                    // No pyramid level is coarse enough to be used: exactly the full scan.
                    prop_assert_eq!(&fast, &exact);
                }
            }
        }

        #[test]
        fn decimated_extremes_equal_the_range_extremes(
            vals in proptest::collection::vec(-1e3f64..1e3, 1..3000),
            columns in 1usize..300,
        ) {
            let mut s = Series::default();
            for (i, v) in vals.iter().enumerate() {
                s.push(i as f64 * 0.01, *v);
            }
            let t1 = (vals.len() - 1) as f64 * 0.01;
            let mut out = Vec::new();
            s.decimate(0.0, t1, columns, &mut out);
            let max = vals.iter().copied().fold(f64::MIN, f64::max);
            let min = vals.iter().copied().fold(f64::MAX, f64::min);
            prop_assert_eq!(out.iter().map(|p| p[1]).fold(f64::MIN, f64::max), max);
            prop_assert_eq!(out.iter().map(|p| p[1]).fold(f64::MAX, f64::min), min);
            prop_assert!(out.len() <= 2 * columns);
        }
    }
}
