//! The store's time series: what a series measures ([`Metric`]) and the points of one series
//! with the min/max pyramid that decimates a long range for a plot quickly.

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
    /// Client: how long after the client made a move its own pawn shows the move's result
    /// (s): 0 with prediction (the move's result is shown in the frame it was made);
    /// without, the move's age on the server plus the display delay the client shows the
    /// server's states with. Placed when the server executed the move.
    OwnInputDelay,
}

impl Metric {
    /// Measured from the server's records (a participant, whose server is its host's, has
    /// none of these).
    pub fn measured_on_server(self) -> bool {
        matches!(
            self,
            Metric::MoveAge | Metric::RemoteMovesPerFrame | Metric::OwnInputDelay
        )
    }

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
            Metric::OwnInputDelay => "own_input_delay",
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
            | Metric::ClockOffset
            | Metric::OwnInputDelay => "s",
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
        matches!(self, Metric::MoveAge | Metric::OwnInputDelay)
    }

    /// One point per move (closed on its client, or executed on the server): the store can
    /// name the move of a point ([`super::Store::move_at`]).
    pub fn per_move(self) -> bool {
        matches!(
            self,
            Metric::MoveTimestampOffset
                | Metric::MoveAge
                | Metric::OwnInputDelay
                | Metric::MoveDelta
                | Metric::FramesPerMove
                | Metric::Substeps
        )
    }

    pub fn from_name(name: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == name)
    }

    pub const ALL: [Metric; 13] = [
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
        Metric::OwnInputDelay,
    ];
}

/// One series: (time, value) points in time order, with a min/max pyramid for fast
/// decimation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub(super) t: Vec<f64>,
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

    /// How many points were inserted before the newest (out of time order) so far.
    pub fn inserts(&self) -> u64 {
        self.inserts
    }

    /// Time of the oldest point held.
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
    pub(super) fn trim_before(&mut self, t: f64) {
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
