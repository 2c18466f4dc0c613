//! Corrections on the predicting client: gathered from the lines around one reply (the
//! replay block, validation verdicts, `Replayed N moves.`), completed with the server's values
//! when its lines name them, and emitted; clock re-syncs; a deviation read from a line.

use std::sync::Arc;

use glam::DVec3;

use super::{AWAIT_S, Assembler, DumpTarget};
use crate::gmclog::cast::Part;
use crate::gmclog::client::PendingCorrection;
use crate::gmclog::message::{Msg, ReplayStage};
use crate::gmclog::scan::Ts;
use crate::gmclog::values;
use crate::model::binding::Value;
use crate::model::logged::{CheckSide, LoggedCheck};
use crate::model::telemetry::REPLAY_DEPTH_UNKNOWN;
use crate::model::telemetry::{DetectedBy, Deviation, Event, LogLevel, Machine, Record};

impl Assembler {
    /// The correction being gathered, opened at `t` if there is none.
    pub(super) fn correction(&mut self, p: usize, t: f64) -> &mut PendingCorrection {
        let id = self.cast.pawns[p].client.unwrap_or(0);
        let c = self.clients.entry(id).or_default();
        let last_reply = c.last_reply;
        c.correction.get_or_insert_with(|| PendingCorrection {
            t,
            source: last_reply,
            ..PendingCorrection::default()
        })
    }

    pub(super) fn replay_stage(&mut self, p: usize, t: f64, stage: ReplayStage) {
        if stage == ReplayStage::Start
            && self
                .client_of(p)
                .is_some_and(|c| c.correction.as_ref().is_some_and(|x| x.in_block))
        {
            // A new replay block: the previous correction is complete.
            self.finish_correction(p, t);
        }
        let c = self.correction(p, t);
        match stage {
            ReplayStage::Start => c.in_block = true,
            ReplayStage::Source(ts) => c.source = Some(ts),
            ReplayStage::ReplayedMove => c.replayed_lines = c.replayed_lines.saturating_add(1),
            ReplayStage::End => c.in_block = false,
            ReplayStage::Corrected {
                original,
                corrected,
            } => {
                let (a, b) = (DVec3::from(original), DVec3::from(corrected));
                c.shown.push(Deviation {
                    move_id: 0,
                    binding: "location".into(),
                    predicted: Value::Vec3(a),
                    authoritative: Value::Vec3(b),
                    error: a.distance(b),
                    tolerance: f64::NAN,
                });
            }
            ReplayStage::ClientStateBefore | ReplayStage::CorrectedBefore | ReplayStage::After => {}
        }
        if stage != ReplayStage::Start {
            self.pawns[p].dump = DumpTarget::Ignored;
        }
    }

    /// Emits the correction gathered for this pawn, if any: the client's own check as
    /// evidence, and the correction once the server's verdict on its move is known (it waits up
    /// to [`AWAIT_S`] for the server's lines when the server's log is there).
    pub fn finish_correction(&mut self, p: usize, t_now: f64) {
        let m = self.cast.pawns[p].machine;
        let Some(id) = self.cast.pawns[p].client else {
            return;
        };
        let traced = self.contents.kinds.move_trace;
        let Some(c) = self.clients.get_mut(&id) else {
            return;
        };
        let Some(x) = c.correction.take() else {
            return;
        };
        let source = x.source.or(c.last_reply);
        let move_id = match source {
            Some(ts) => c.id_or_new(ts),
            None => c.fresh_id(),
        };
        let depth = x
            .replayed
            .or((x.replayed_lines > 0).then_some(x.replayed_lines))
            .or((!x.replay_ts.is_empty()).then_some(x.replay_ts.len() as u16))
            .or_else(|| source.filter(|_| traced).map(|s| c.newer_than(s)))
            .unwrap_or(REPLAY_DEPTH_UNKNOWN);
        let server = source.and_then(|s| self.verdicts.remove(&(id, s.micros)));
        let detected_by = if server.is_some() {
            DetectedBy::Server
        } else {
            DetectedBy::Client
        };
        let mut deviations = match (&server, x.check.deviations.is_empty()) {
            (_, false) => x.check.deviations.clone(),
            (Some(s), true) => s.clone(),
            (None, true) => x.shown.clone(),
        };
        for d in &mut deviations {
            d.move_id = move_id;
        }
        if !x.check.is_empty() {
            self.client_check(m, &x, id, move_id, source);
        }
        self.want(id, move_id, x.t);
        let record = Record {
            t: x.t,
            machine: m,
            event: Event::Correction {
                move_id,
                detected_by,
                deviations: deviations.into_boxed_slice(),
                replay_depth: depth,
                replayed: !x.not_replayed,
            },
        };
        match source.filter(|_| server.is_none() && self.has_server_copy(id)) {
            Some(ts) => self
                .awaiting
                .push_back(((id, ts.micros), t_now + AWAIT_S, record)),
            None => self.out.push(record),
        }
    }

    /// The client's own check of a reply, as evidence.
    fn client_check(
        &mut self,
        m: Machine,
        x: &PendingCorrection,
        client: u16,
        move_id: u32,
        source: Option<Ts>,
    ) {
        let check = LoggedCheck {
            client,
            move_id,
            timestamp: source.map_or(f64::NAN, Ts::secs),
            side: CheckSide::Client,
            state: x.check.state,
            deviations: x
                .check
                .deviations
                .iter()
                .cloned()
                .map(|mut d| {
                    d.move_id = move_id;
                    d
                })
                .collect(),
            lines: x.check.lines.clone(),
            punctuation_agrees: x.check.punctuation_agrees,
        };
        self.emit(x.t, m, Event::LoggedCheck(Arc::new(check)));
    }

    pub(super) fn has_server_copy(&self, client: u16) -> bool {
        self.cast
            .pawns
            .iter()
            .any(|p| p.part == Part::ServerCopy && p.client == Some(client))
    }

    /// Emits the waiting corrections whose server lines did not come in time.
    pub(super) fn expire(&mut self, t: f64) {
        while self.awaiting.front().is_some_and(|a| a.1 < t) {
            if let Some((_, _, r)) = self.awaiting.pop_front() {
                self.out.push(r);
            }
        }
    }

    /// A waiting correction learns the server's verdict on its move: the server found it too
    /// (and its values stand where the client's lines named none).
    pub(super) fn complete_awaiting(&mut self, client: u16, ts: Ts) {
        let Some(i) = self
            .awaiting
            .iter()
            .position(|a| a.0 == (client, ts.micros))
        else {
            return;
        };
        let Some((_, _, mut r)) = self.awaiting.remove(i) else {
            return;
        };
        let devs = self
            .verdicts
            .remove(&(client, ts.micros))
            .unwrap_or_default();
        if let Event::Correction {
            move_id,
            deviations,
            detected_by,
            ..
        } = &mut r.event
        {
            *detected_by = DetectedBy::Server;
            if deviations.is_empty() {
                *deviations = devs
                    .into_iter()
                    .map(|mut d| {
                        d.move_id = *move_id;
                        d
                    })
                    .collect();
            }
        }
        self.out.push(r);
    }

    pub(super) fn clock_synced(
        &mut self,
        m: Machine,
        t: f64,
        new_time: f64,
        old_time: Option<f64>,
        ping_ms: Option<f64>,
        one_way: bool,
    ) {
        // GMC 1.x's sync prints its one-way estimate (half the average lag) as `avg ping`.
        let rtt = ping_ms.map(|p| if one_way { 2.0 * p } else { p } / 1000.0);
        self.emit(
            t,
            m,
            Event::ClockSync {
                synced_time: new_time,
                latency_estimate: rtt.map_or(f64::NAN, |r| r / 2.0),
            },
        );
        if let Some(r) = rtt {
            self.emit(t, m, Event::Rtt { rtt: r });
        }
        let jump = old_time.map_or(String::new(), |o| {
            format!(" (it jumped {:+.6} s)", new_time - o)
        });
        self.emit(
            t,
            m,
            Event::Log {
                level: LogLevel::Warning,
                text: format!(
                    "GMC: the client's clock was re-synced with the server's to {new_time:.6} s{jump}: later move timestamps continue from there"
                ),
            },
        );
    }

    // ---- deviations ----

    pub(super) fn deviation(&self, msg: &Msg<'_>) -> Option<Deviation> {
        let Msg::NotValid {
            name,
            index,
            client,
            server,
            by,
            ..
        } = *msg
        else {
            return None;
        };
        let ty = values::value_type(name);
        let binding = self.naming.label(name, values::type_of(name), index);
        let predicted = values::parse(ty, client.unwrap_or(""));
        let authoritative = values::parse(ty, server.unwrap_or(""));
        let (error, tolerance) = match by {
            Some((e, tol)) => (e, tol),
            None => (
                ty.map_or(f64::NAN, |t| t.distance(&predicted, &authoritative)),
                f64::NAN,
            ),
        };
        Some(Deviation {
            move_id: 0,
            binding: Arc::from(binding.as_str()),
            predicted,
            authoritative,
            error,
            tolerance,
        })
    }
}
