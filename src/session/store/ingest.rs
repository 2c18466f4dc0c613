//! What [`Store::ingest`] does with one record, one function per kind of event that does more
//! than one thing, and the retention window.

use super::pawns::{CorrectionMark, PawnSampleAt, PawnTrack};
use super::{LogEntry, Metric, Store};
use crate::model::binding::Value;
use crate::model::messages::MsgKind;
use crate::model::telemetry::{
    DetectedBy, Deviation, Event, Machine, MoveValues, PawnSample, REPLAY_DEPTH_UNKNOWN, Record,
    RemoteMove,
};

impl Store {
    /// What a game log's records tell the store beyond their events: a checked move's GMC
    /// timestamp, and what the log holds.
    pub(super) fn note_game_log(&mut self, r: &Record) {
        if let Event::LoggedCheck(k) = &r.event
            && k.timestamp.is_finite()
        {
            self.checked_ts.insert((k.client, k.move_id), k.timestamp);
        }
        if let Event::LogContents(c) = &r.event {
            self.log_contents = Some(c.clone());
        }
    }

    /// The event log's entry for `r`, if it makes one, in time order; a correction's names
    /// the corrected move's GMC timestamp when the store knows it.
    pub(super) fn log_entry(&mut self, r: &Record) {
        let Some(mut entry) = LogEntry::from_record(r) else {
            return;
        };
        if let (Event::Correction { move_id, .. }, Some(ts)) =
            (&r.event, self.move_timestamp(r.machine, entry.move_id))
        {
            // GMC's identity of the move (what its log prints), after what deviated.
            entry.text = format!("{}; move {move_id} has GMC timestamp {ts:.6} s", entry.text);
        }
        let i = self.log.partition_point(|e| e.t <= entry.t);
        self.log.insert(i, entry);
    }

    /// A move closed on a client: its point (to name it) and the move series.
    pub(super) fn on_move_closed(&mut self, r: &Record) {
        let Event::MoveClosed {
            move_id,
            timestamp,
            delta,
            frames,
            substeps,
        } = &r.event
        else {
            return;
        };
        let m = r.machine;
        self.move_ids
            .entry((m, false))
            .or_default()
            .push((r.t, *move_id, *timestamp));
        self.point(m, Metric::MoveDelta, r.t, *delta);
        self.point(m, Metric::FramesPerMove, r.t, f64::from(*frames));
        self.point(m, Metric::Substeps, r.t, f64::from(*substeps));
        // The server's clock is session time minus its start (0 unless restarted).
        self.point(m, Metric::MoveTimestampOffset, r.t, timestamp - r.t);
    }

    /// The server executed a client's move: the move's age, and its point (to name it).
    pub(super) fn on_remote_move(&mut self, t: f64, x: &RemoteMove) {
        let RemoteMove {
            client,
            age,
            move_id,
            timestamp,
            ..
        } = x;
        self.point(Machine::Client(*client), Metric::MoveAge, t, *age);
        self.move_ids
            .entry((Machine::Client(*client), true))
            .or_default()
            .push((t, *move_id, *timestamp));
    }

    /// The value trace: an execution of an owner's move kept where it ran (the server, or the
    /// owner itself; other clients' are not kept).
    pub(super) fn on_move_values(&mut self, m: Machine, t: f64, v: &MoveValues) {
        let Some(owner) = v.owner else {
            return;
        };
        let track = self.values.entry(owner).or_default();
        match m {
            Machine::Server => track.server.push((t, v.exit.clone())),
            Machine::Client(c) if c == owner => {
                track.client.push((t, v.exec, v.exit.clone()));
            }
            Machine::Client(_) => {}
        }
    }

    /// A pawn sample, into its track in time order.
    pub(super) fn on_pawn_sample(&mut self, m: Machine, t: f64, s: &PawnSample) {
        let PawnSample {
            pawn,
            owner,
            kind,
            location,
            velocity,
            yaw,
        } = s;
        let track = self
            .tracks
            .entry((m, *pawn, *kind))
            .or_insert_with(|| PawnTrack {
                owner: *owner,
                samples: Vec::new(),
            });
        let sample = PawnSampleAt {
            t,
            location: *location,
            velocity: *velocity,
            yaw: *yaw,
        };
        if track.samples.last().is_none_or(|s| s.t <= t) {
            track.samples.push(sample);
        } else {
            let i = track.samples.partition_point(|s| s.t <= t);
            track.samples.insert(i, sample);
        }
    }

    /// A correction: its location marks, its replay depth and its worst error — a game log
    /// may not say the depth (`Replayed N moves.` missing) or the tolerance (2.x prints
    /// none): nothing is drawn for what it does not say.
    pub(super) fn on_correction(
        &mut self,
        m: Machine,
        t: f64,
        replay_depth: u16,
        deviations: &[Deviation],
        detected_by: DetectedBy,
    ) {
        for d in deviations.iter().filter(|d| &*d.binding == "location") {
            if let (Value::Vec3(p), Value::Vec3(a)) = (&d.predicted, &d.authoritative) {
                let mark = CorrectionMark {
                    t,
                    machine: m,
                    detected_by,
                    predicted: *p,
                    authoritative: *a,
                };
                let i = self.marks.partition_point(|x| x.t <= t);
                self.marks.insert(i, mark);
            }
        }
        if replay_depth != REPLAY_DEPTH_UNKNOWN {
            self.point(m, Metric::ReplayDepth, t, f64::from(replay_depth));
        }
        if let Some(worst) = worst_error(deviations) {
            self.point(m, Metric::CorrectionError, t, worst);
        }
    }

    /// A datagram sent: its bytes into the sender's second, and the second before plotted
    /// once it is done.
    pub(super) fn on_datagram_sent(&mut self, from: Machine, t: f64, bytes: u32, kind: MsgKind) {
        let (done, cur) = self.sent.entry(from).or_default().at(t);
        cur.bytes += u64::from(bytes);
        if kind == MsgKind::Moves {
            cur.move_datagrams += 1;
        }
        if let Some(d) = done {
            self.point(from, Metric::BytesSent, d.start + 0.5, d.bytes as f64);
        }
    }

    /// A batch of `moves` sent: into the sender's second; the second before is plotted once
    /// done only if a datagram was seen in it — a second with moves but no datagram seen has
    /// bytes not known (a game log's batches), not zero.
    pub(super) fn on_moves_sent(&mut self, m: Machine, t: f64, moves: u64, value_bits: u32) {
        let (done, cur) = self.sent.entry(m).or_default().at(t);
        cur.moves += moves;
        cur.value_bits += u64::from(value_bits);
        if let Some(d) = done.filter(|d| d.bytes > 0 || d.move_datagrams > 0) {
            self.point(m, Metric::BytesSent, d.start + 0.5, d.bytes as f64);
        }
    }

    /// The retention window: drops what is older than `cut`, in steps (once the oldest point
    /// is a second past it), not on every record.
    pub(super) fn keep_after(&mut self, cut: f64) {
        if !self
            .series
            .values()
            .next()
            .and_then(|s| s.t.first())
            .is_some_and(|&first| first < cut - 1.0)
        {
            return;
        }
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
        for v in self.move_ids.values_mut() {
            let k = v.partition_point(|m| m.0 < cut);
            v.drain(..k);
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
        self.tallies.trim_before(cut);
        self.earliest = Some(cut);
    }
}

/// A correction's worst error as a share of its tolerance (the error itself where the
/// tolerance is 0); `None` when no deviation gives a finite one.
fn worst_error(deviations: &[Deviation]) -> Option<f64> {
    deviations
        .iter()
        .filter(|d| d.tolerance.is_finite())
        .map(|d| {
            if d.tolerance > 0.0 {
                d.error / d.tolerance
            } else {
                d.error
            }
        })
        .filter(|x| x.is_finite())
        .fold(None, |worst: Option<f64>, x| {
            Some(worst.unwrap_or(0.0).max(x))
        })
}
