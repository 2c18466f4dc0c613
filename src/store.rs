//! The in-memory store every session fills (virtual or live) and the views read: telemetry
//! folded into per-machine time series, with min/max decimation for plots and a retention
//! window. Views never own data; they query the store for the range they show.

use std::collections::BTreeMap;

use std::collections::VecDeque;

use glam::DVec3;

use crate::model::binding::Value;
use crate::model::telemetry::{Event, Machine, PacketFate, Record, SampleKind};

/// Seconds of trail kept per pawn view.
pub const TRAIL_SECONDS: f64 = 3.0;

/// The newest sample of one pawn as one machine shows it, with its recent trail.
#[derive(Clone, Debug, PartialEq)]
pub struct PawnView {
    pub pawn: u16,
    pub owner: Option<u16>,
    pub kind: SampleKind,
    pub t: f64,
    pub location: DVec3,
    pub velocity: DVec3,
    pub yaw: f64,
    pub trail: VecDeque<(f64, DVec3)>,
}

/// A correction of a location: where the client had its pawn, where the server put it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CorrectionMark {
    pub t: f64,
    pub machine: Machine,
    pub predicted: DVec3,
    pub authoritative: DVec3,
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

/// One series: (time, value) points in time order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    t: Vec<f64>,
    v: Vec<f64>,
}

impl Series {
    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// Adds a point; out-of-order points (several threads feed a live store) are inserted in
    /// place.
    pub fn push(&mut self, t: f64, v: f64) {
        if self.t.last().is_none_or(|&last| last <= t) {
            self.t.push(t);
            self.v.push(v);
        } else {
            let i = self.t.partition_point(|&x| x <= t);
            self.t.insert(i, t);
            self.v.insert(i, v);
        }
    }

    /// The points with `t0 <= t <= t1`.
    pub fn range(&self, t0: f64, t1: f64) -> impl Iterator<Item = [f64; 2]> + '_ {
        let a = self.t.partition_point(|&x| x < t0);
        let b = self.t.partition_point(|&x| x <= t1);
        (a..b).map(move |i| [self.t[i], self.v[i]])
    }

    /// At most two points per column of `(t1 - t0) / columns` seconds — the smallest and the
    /// largest value, in time order — so a line drawn through them looks like the full series
    /// at that resolution, and every extreme stays visible.
    pub fn decimate(&self, t0: f64, t1: f64, columns: usize, out: &mut Vec<[f64; 2]>) {
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
        let col = |t: f64| (((t - t0) / width).floor().max(0.0) as usize).min(last);
        let mut i = a;
        while i < b {
            let c = col(self.t[i]);
            let (mut lo, mut hi) = (i, i);
            let mut j = i + 1;
            while j < b && col(self.t[j]) == c {
                if self.v[j] < self.v[lo] {
                    lo = j;
                }
                if self.v[j] > self.v[hi] {
                    hi = j;
                }
                j += 1;
            }
            let (first, second) = if lo <= hi { (lo, hi) } else { (hi, lo) };
            out.push([self.t[first], self.v[first]]);
            if second != first {
                out.push([self.t[second], self.v[second]]);
            }
            i = j;
        }
    }

    /// Drops points older than `t`.
    fn trim_before(&mut self, t: f64) {
        let k = self.t.partition_point(|&x| x < t);
        if k > 0 {
            self.t.drain(..k);
            self.v.drain(..k);
        }
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
    views: BTreeMap<(Machine, u16, SampleKind), PawnView>,
    marks: VecDeque<CorrectionMark>,
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

    /// The pawns `machine` shows, newest samples (pawns not sampled for 1 s are left out).
    pub fn pawns(&self, machine: Machine) -> impl Iterator<Item = &PawnView> {
        let latest = self.latest;
        self.views
            .range(
                (machine, 0, SampleKind::Predicted)
                    ..=(machine, u16::MAX, SampleKind::Authoritative),
            )
            .map(|(_, v)| v)
            .filter(move |v| latest - v.t < 1.0)
    }

    /// The server's authoritative sample of `pawn`.
    pub fn authoritative(&self, pawn: u16) -> Option<&PawnView> {
        self.views
            .get(&(Machine::Server, pawn, SampleKind::Authoritative))
    }

    /// Machines that have world-view samples.
    pub fn viewers(&self) -> Vec<Machine> {
        let mut m: Vec<Machine> = self.views.keys().map(|(m, _, _)| *m).collect();
        m.dedup();
        m
    }

    /// Location corrections newer than `since`.
    pub fn corrections_since(&self, since: f64) -> impl Iterator<Item = &CorrectionMark> {
        self.marks.iter().filter(move |m| m.t >= since)
    }

    /// Folds one record in.
    pub fn ingest(&mut self, r: &Record) {
        self.latest = self.latest.max(r.t);
        let m = r.machine;
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
            Event::RemoteMoveExecuted { client, age, .. } => {
                self.point(Machine::Client(*client), Metric::MoveAge, r.t, *age);
            }
            Event::PawnSample {
                pawn,
                owner,
                kind,
                location,
                velocity,
                yaw,
            } => {
                let v = self
                    .views
                    .entry((m, *pawn, *kind))
                    .or_insert_with(|| PawnView {
                        pawn: *pawn,
                        owner: *owner,
                        kind: *kind,
                        t: r.t,
                        location: *location,
                        velocity: *velocity,
                        yaw: *yaw,
                        trail: VecDeque::new(),
                    });
                v.t = r.t;
                v.location = *location;
                v.velocity = *velocity;
                v.yaw = *yaw;
                v.trail.push_back((r.t, *location));
                while v
                    .trail
                    .front()
                    .is_some_and(|(t, _)| r.t - t > TRAIL_SECONDS)
                {
                    v.trail.pop_front();
                }
            }
            Event::Correction {
                replay_depth,
                deviations,
                ..
            } => {
                for d in deviations.iter().filter(|d| &*d.binding == "location") {
                    if let (Value::Vec3(p), Value::Vec3(a)) = (&d.predicted, &d.authoritative) {
                        self.marks.push_back(CorrectionMark {
                            t: r.t,
                            machine: m,
                            predicted: *p,
                            authoritative: *a,
                        });
                        while self.marks.len() > 2000 {
                            self.marks.pop_front();
                        }
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
            Event::ProxiesDisplayed {
                delay_mean,
                proxies,
                paused,
                ..
            } if proxies > paused => self.point(m, Metric::InterpDelay, r.t, *delay_mean),
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
            }
        }
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
