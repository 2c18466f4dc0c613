//! The in-memory store every session fills (virtual or live) and the views read: telemetry
//! folded into per-machine time series, with min/max decimation for plots and a retention
//! window. Views never own data; they query the store for the range they show.

use std::collections::BTreeMap;

use crate::model::telemetry::{Event, Machine, PacketFate, Record, SampleKind};

mod ingest;
mod log;
mod own;
mod pawns;
mod sent;
mod series;
mod tally;

pub use self::log::{LogEntry, MarkKind};
pub use self::pawns::{
    BufferTrack, CorrectionMark, PawnView, STALE_SECONDS, Shown, TRAIL_SECONDS, ValueTrack,
    describe_participant, participant_named,
};
use self::pawns::{PawnTrack, view_at};
use self::sent::SentTally;

/// A move's point: session time, move id, the move's timestamp.
type MoveAt = (f64, u32, f64);
pub use self::sent::{SentRates, SentSecond};
pub use self::series::{Metric, Series};
use self::tally::Tallies;
pub use self::tally::Tally;

/// Every series of a session, by (machine, metric).
#[derive(Debug, Default)]
pub struct Store {
    series: BTreeMap<(Machine, Metric), Series>,
    /// Keep this many seconds behind the newest record (`None`: everything).
    retention: Option<f64>,
    latest: f64,
    /// What each machine sent, per second.
    sent: BTreeMap<Machine, SentTally>,
    tracks: BTreeMap<(Machine, u16, SampleKind), PawnTrack>,
    /// The buffer trace, by (displaying machine, proxy pawn).
    buffers: BTreeMap<(Machine, u16), BufferTrack>,
    /// The value trace's executions of each owner's moves (track one value).
    values: BTreeMap<u16, ValueTrack>,
    marks: Vec<CorrectionMark>,
    log: Vec<LogEntry>,
    /// Frame start times per machine (for stepping one frame).
    frames: BTreeMap<Machine, Vec<f64>>,
    /// Each client's moves by (client, executed on the server?): when it closed on the client
    /// or executed on the server, and its id (to name a plotted move).
    /// Per client (closed on it / executed on the server): (time, move id, GMC timestamp).
    move_ids: BTreeMap<(Machine, bool), Vec<MoveAt>>,
    /// A game log's checked moves' GMC timestamps by (client, move id): a log without the
    /// move trace names a corrected move only in its verdict lines.
    checked_ts: BTreeMap<(u16, u32), f64>,
    /// A game log's contents (what it holds), when the store shows an imported log.
    log_contents: Option<std::sync::Arc<crate::model::logged::LogContents>>,
    earliest: Option<f64>,
    records: u64,
    growing: bool,
    /// A host's participants' names by client id (from the host's log lines).
    names: BTreeMap<u16, String>,
    /// Clients the server cut off and that have not joined again: when, and why.
    lost: BTreeMap<u16, (f64, String)>,
    /// Events counted by machine and time (presses, dashes, one-shots, effects, log lines).
    tallies: Tallies,
    /// The owner's wait for its own input ([`Metric::OwnInputDelay`]).
    own: own::OwnInput,
}

impl Store {
    pub fn new(retention: Option<f64>) -> Self {
        Store {
            retention,
            ..Default::default()
        }
    }

    /// What the game log shown holds (`None`: not an imported log).
    pub fn log_contents(&self) -> Option<&crate::model::logged::LogContents> {
        self.log_contents.as_deref()
    }

    /// Newest session time seen.
    pub fn latest(&self) -> f64 {
        self.latest
    }

    /// Means over the whole seconds starting in `[from, to)` of what `m` sent (bytes, and
    /// for a client its moves and the datagrams that carried them).
    pub fn sent_rates(&self, m: Machine, from: f64, to: f64) -> Option<SentRates> {
        self.sent.get(&m)?.rates(from, to)
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

    /// A machine as every view names it: "client 1", or "client 1 · ana" for a host's
    /// participant that gave its name.
    pub fn machine_name(&self, m: Machine) -> String {
        match m {
            Machine::Client(id) => self.client_name(id),
            Machine::Server => m.to_string(),
        }
    }

    /// The clients the server cut off that have not joined again: when (session time) and
    /// why — what every view says instead of letting a client vanish.
    pub fn lost(&self) -> &BTreeMap<u16, (f64, String)> {
        &self.lost
    }

    /// A client as every view names it ("client 1", "client 1 · ana").
    pub fn client_name(&self, id: u16) -> String {
        match self.names.get(&id) {
            Some(n) => format!("client {id} · {n}"),
            None => format!("client {id}"),
        }
    }

    /// A pawn as every view names it: "client 1" for a player's pawn (with a participant's
    /// name: "client 1 · ana"), "AI 0" for the server's own (from the pawn samples; "pawn N"
    /// before any sample names its owner).
    pub fn pawn_name(&self, pawn: u16) -> String {
        let owner = self
            .tracks
            .iter()
            .find(|((_, p, _), _)| *p == pawn)
            .map(|(_, t)| t.owner);
        match owner {
            Some(Some(o)) => self.client_name(o),
            Some(None) => format!("AI {pawn}"),
            None => format!("pawn {pawn}"),
        }
    }

    /// Frames `machine` started in `[t0, t1)`.
    pub fn frames_between(&self, machine: Machine, t0: f64, t1: f64) -> usize {
        self.frames.get(&machine).map_or(0, |f| {
            f.partition_point(|&t| t < t1) - f.partition_point(|&t| t < t0)
        })
    }

    /// The start times of `machine`'s frames in `[t0, t1)`.
    pub fn frame_times(&self, machine: Machine, t0: f64, t1: f64) -> &[f64] {
        self.frames.get(&machine).map_or(&[], |f| {
            &f[f.partition_point(|&t| t < t0)..f.partition_point(|&t| t < t1)]
        })
    }

    /// The machines whose frames the store holds.
    pub fn framed_machines(&self) -> Vec<Machine> {
        self.frames.keys().copied().collect()
    }

    /// How many `tally` events `m` had in `[t0, t1)` (the sum, for an amount).
    pub fn tally(&self, m: Machine, tally: Tally, t0: f64, t1: f64) -> f64 {
        self.tallies.count(m, tally, t0, t1)
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

    /// The timestamp of client `machine`'s move `id` (one of its last 512 closed moves).
    pub fn move_timestamp(&self, machine: Machine, id: Option<u32>) -> Option<f64> {
        let id = id?;
        let closed = self
            .move_ids
            .get(&(machine, false))
            .and_then(|v| v.iter().rev().take(512).find(|m| m.1 == id).map(|m| m.2));
        let client = match machine {
            Machine::Client(c) => Some(c),
            Machine::Server => None,
        };
        closed.or_else(|| self.checked_ts.get(&(client?, id)).copied())
    }

    /// When client `machine` closed its move `id` (the latest such move: ids start again
    /// when a client rejoins), if the store holds it.
    pub fn move_closed_at(&self, machine: Machine, id: u32) -> Option<f64> {
        self.move_ids
            .get(&(machine, false))?
            .iter()
            .rev()
            .find(|m| m.1 == id)
            .map(|m| m.0)
    }

    /// The ids of client `machine`'s moves whose points are nearest `t` (within `within` s):
    /// closed on the client, or executed on the server (`on_server`; the server executes
    /// several moves of a client in one frame, at one time). Empty when none is that near.
    pub fn moves_at(&self, machine: Machine, t: f64, on_server: bool, within: f64) -> Vec<u32> {
        let Some(v) = self.move_ids.get(&(machine, on_server)) else {
            return Vec::new();
        };
        let i = v.partition_point(|m| m.0 < t);
        let nearest = [i.checked_sub(1), Some(i)]
            .into_iter()
            .flatten()
            .filter_map(|k| v.get(k))
            .filter(|m| (m.0 - t).abs() <= within)
            .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()));
        let Some(&(at, _, _)) = nearest else {
            return Vec::new();
        };
        let from = v.partition_point(|m| m.0 < at);
        v[from..]
            .iter()
            .take_while(|m| m.0 == at)
            .map(|m| m.1)
            .collect()
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
        self.tallies.ingest(r);
        if let Some((client, wait)) = self.own.derive(r) {
            self.point(client, Metric::OwnInputDelay, r.t, wait);
        }
        self.note_game_log(r);
        self.log_entry(r);
        self.fold_event(r);
        if let Some(keep) = self.retention {
            self.keep_after(self.latest - keep);
        }
    }

    /// Which series, tracks and tables the record's event feeds: one function per kind that
    /// does more than one thing.
    fn fold_event(&mut self, r: &Record) {
        let (m, t) = (r.machine, r.t);
        match &r.event {
            Event::SessionChanged { what } => {
                if let Some((id, name)) = pawns::participant_named(what) {
                    self.names.insert(id, name);
                }
            }
            Event::ClientDropped { client, why } => {
                self.lost.insert(*client, (t, why.clone()));
            }
            Event::Joined { client, .. } => {
                self.lost.remove(client);
            }
            Event::MoveClosed { .. } => self.on_move_closed(r),
            Event::RemoteMoveExecuted(x) => self.on_remote_move(t, x),
            Event::ProxyState {
                pawn,
                state_time,
                server_now,
            } => {
                let b = self.buffers.entry((m, *pawn)).or_default();
                b.states.push((t, *state_time, *server_now));
            }
            Event::ProxyDisplay { pawn, delay, mode } => {
                let b = self.buffers.entry((m, *pawn)).or_default();
                b.shown.push((t, *delay, *mode));
            }
            Event::MoveValues(v) => self.on_move_values(m, t, v),
            Event::PawnSample(s) => self.on_pawn_sample(m, t, s),
            Event::Frame { .. } => push_sorted(self.frames.entry(m).or_default(), t),
            Event::Correction {
                replay_depth,
                deviations,
                detected_by,
                ..
            } => self.on_correction(m, t, *replay_depth, deviations, *detected_by),
            Event::ProxiesDisplayed(x) if x.proxies > x.paused => {
                self.point(m, Metric::InterpDelay, t, x.delay_mean)
            }
            Event::Rtt { rtt } => self.point(m, Metric::Rtt, t, *rtt),
            Event::ClockOffset { offset } => self.point(m, Metric::ClockOffset, t, *offset),
            Event::ServerFrame { remote_moves } => {
                self.point(m, Metric::RemoteMovesPerFrame, t, f64::from(*remote_moves));
            }
            Event::Packet {
                from,
                bytes,
                fate: PacketFate::Sent,
                kind,
                ..
            } => self.on_datagram_sent(*from, t, *bytes, *kind),
            Event::MovesSent {
                new_moves,
                resent_moves,
                value_bits,
                ..
            } => self.on_moves_sent(
                m,
                t,
                u64::from(*new_moves) + u64::from(*resent_moves),
                *value_bits,
            ),
            _ => {}
        }
    }
}

/// Inserts `t` into the sorted `v`, at its end when it is the newest (the usual case).
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Hovering a per-move plot's point names its move: the store finds the move whose
    /// closing (or server execution) made the point, from a real session's records.
    #[test]
    fn a_plotted_move_is_named_by_its_id() {
        let p = crate::session::preset::Preset::builtin_default();
        let mut st = Store::new(None);
        let mut closed = Vec::new();
        let mut executed = Vec::new();
        crate::sim::run_deterministic(&p, "t", 3.0, &mut |r| {
            st.ingest(r);
            match (&r.machine, &r.event) {
                (Machine::Client(1), Event::MoveClosed { move_id, .. }) => {
                    closed.push((r.t, *move_id))
                }
                (Machine::Server, Event::RemoteMoveExecuted(x)) if x.client == 1 => {
                    executed.push((r.t, x.move_id))
                }
                _ => {}
            }
        })
        .expect("runs");
        assert!(closed.len() > 50 && executed.len() > 50);
        let delta = st
            .series(Machine::Client(1), Metric::MoveDelta)
            .expect("plotted");
        for (i, &t) in delta.t.iter().enumerate() {
            assert_eq!(
                st.moves_at(Machine::Client(1), t, false, 1e-6),
                vec![closed[i].1]
            );
        }
        // On the server, the moves executed in the point's frame, the point's among them.
        let age = st
            .series(Machine::Client(1), Metric::MoveAge)
            .expect("plotted");
        let mut shared = 0;
        for (i, &t) in age.t.iter().enumerate() {
            let ids = st.moves_at(Machine::Client(1), t, true, 1e-6);
            let same_frame: Vec<u32> = executed.iter().filter(|e| e.0 == t).map(|e| e.1).collect();
            assert!(ids.contains(&executed[i].1));
            assert_eq!(ids, same_frame);
            shared += usize::from(ids.len() > 1);
        }
        assert!(shared > 0, "some server frames execute two of its moves");
        // Between two moves, none within a microsecond.
        let mid = (closed[3].0 + closed[4].0) / 2.0;
        assert!(st.moves_at(Machine::Client(1), mid, false, 1e-6).is_empty());
    }

    #[test]
    fn pawns_are_named_as_every_view_names_them() {
        let mut st = Store::new(None);
        for (pawn, owner) in [(0u16, None), (3, Some(1u16))] {
            st.ingest(&Record {
                t: 1.0,
                machine: Machine::Client(0),
                event: Event::PawnSample(std::sync::Arc::new(
                    crate::model::telemetry::PawnSample {
                        pawn,
                        owner,
                        kind: SampleKind::Displayed,
                        location: glam::DVec3::ZERO,
                        velocity: glam::DVec3::ZERO,
                        yaw: 0.0,
                    },
                )),
            });
        }
        assert_eq!(st.pawn_name(0), "AI 0");
        assert_eq!(st.pawn_name(3), "client 1");
        assert_eq!(st.pawn_name(9), "pawn 9");
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

    #[test]
    fn a_participant_is_named_by_the_name_it_joined_with() {
        assert_eq!(
            pawns::participant_named(&describe_participant(2, Some("ana (client 9)"))),
            Some((2, "ana (client 9)".to_string()))
        );
        assert_eq!(
            pawns::participant_named(&describe_participant(2, None)),
            None
        );
        let mut st = Store::new(None);
        assert_eq!(st.machine_name(Machine::Client(1)), "client 1");
        st.ingest(&Record {
            t: 1.0,
            machine: Machine::Server,
            event: Event::SessionChanged {
                what: format!(
                    "{} joined from 10.77.0.2",
                    describe_participant(1, Some("ana"))
                ),
            },
        });
        assert_eq!(st.machine_name(Machine::Client(1)), "client 1 · ana");
        assert_eq!(st.machine_name(Machine::Client(0)), "client 0");
        assert_eq!(st.machine_name(Machine::Server), "server");
    }
}
