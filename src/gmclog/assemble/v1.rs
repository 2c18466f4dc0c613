//! GMC 1.x's move trace (`TrackClientMove:`) prints a move's state in columns on one line
//! rather than as dumps: `InLocation(NoRep) = x, y, z | … | OutLocation = x, y, z | …`. Its
//! columns become the same evidence as 2.x's dumps (the state a move began from and ended
//! with, per machine) and the world view's location samples.
//!
//! The server's evidence for one move takes two lines: `Server received move` (its `In*`
//! columns are the server's own pawn before the move; its `Out*` are the client's claim, not
//! used) and `Server move execution result (raw)` (the server's result).

use std::sync::Arc;

use glam::DVec3;

use super::Assembler;
use crate::gmclog::message::Msg;
use crate::gmclog::scan::{Ts, triple};
use crate::model::logged::LoggedStage;
use crate::model::telemetry::{Event, PawnSample, SampleKind};

/// `(name, text)` columns of a 1.x trace line: `In*` → the state the move began from, `Out*` →
/// the state it ended with, the rest (the input vector, flags, a state's plain columns) by
/// their own names.
pub(super) struct Columns {
    pub input: Vec<(String, String)>,
    pub output: Vec<(String, String)>,
}

/// Reads the columns of a 1.x trace line.
pub(super) fn columns(text: &str) -> Columns {
    let mut c = Columns {
        input: Vec::new(),
        output: Vec::new(),
    };
    for part in text.split('|').skip(1) {
        let Some((key, value)) = part.split_once('=') else {
            continue;
        };
        let key = key.trim().trim_end_matches("(NoRep)").trim();
        // Columns are padded for alignment: one space between numbers is the value.
        let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
        if key.is_empty() || key.contains(' ') || key == "Timestamp" {
            continue;
        }
        if let Some(k) = key.strip_prefix("Out") {
            c.output.push((k.to_string(), value));
        } else if let Some(k) = key.strip_prefix("In").filter(|_| !key.starts_with("Input")) {
            c.input.push((k.to_string(), value));
        } else if key == "InputVector" || key == "bFlags" {
            c.input.push((key.to_string(), value));
        } else {
            c.output.push((key.to_string(), value));
        }
    }
    c
}

impl Assembler {
    /// A 1.x trace line of pawn `p`: its columns kept as the move's evidence, and a location
    /// sample from its result.
    pub(super) fn v1_track(&mut self, p: usize, t: f64, text: &str, msg: &Msg<'_>) {
        let Some(client) = self.cast.pawns[p].client else {
            return;
        };
        let (stage, ts, keep_input, keep_output, sample) = match *msg {
            Msg::Executed { ts, .. } => (
                LoggedStage::ClientExecuted,
                ts,
                true,
                true,
                Some(SampleKind::Predicted),
            ),
            Msg::ServerReceived { ts } => (LoggedStage::ServerExecuted, ts, true, false, None),
            Msg::ServerExecuted { ts, .. } => (
                LoggedStage::ServerExecuted,
                ts,
                false,
                true,
                Some(SampleKind::Authoritative),
            ),
            Msg::ServerValidated { ts } => (LoggedStage::ServerValidated, ts, false, true, None),
            Msg::ReplyReceived { ts } => (LoggedStage::ReplyReceived, ts, false, true, None),
            _ => return,
        };
        let Some(id) = self.v1_move_id(client, ts, stage) else {
            return;
        };
        let cols = columns(text);
        if let Some(kind) = sample {
            self.v1_sample(p, t, kind, &cols.output);
        }
        let input = if keep_input { cols.input } else { Vec::new() };
        let output = if keep_output { cols.output } else { Vec::new() };
        self.keep_columns(t, stage, client, id, ts, input, output);
    }

    /// The move a 1.x line names (a server line may name one its client never logged).
    fn v1_move_id(&mut self, client: u16, ts: Ts, stage: LoggedStage) -> Option<u32> {
        let c = self.clients.entry(client).or_default();
        if stage.on_server() {
            Some(c.id_or_new(ts))
        } else {
            c.id_of(ts)
        }
    }

    /// A location sample from a 1.x result's columns (at most one per 50 ms per pawn).
    fn v1_sample(&mut self, p: usize, t: f64, kind: SampleKind, output: &[(String, String)]) {
        let col = |name: &str| -> Option<DVec3> {
            let (_, v) = output.iter().find(|(k, _)| k == name)?;
            let (x, _) = triple(v)?;
            Some(DVec3::from(x))
        };
        let Some(location) = col("Location") else {
            return;
        };
        if t - self.pawns[p].last_sample_t < super::SAMPLE_EVERY_S {
            return;
        }
        self.pawns[p].last_sample_t = t;
        let velocity = col("Velocity")
            .filter(|v| v.is_finite())
            .unwrap_or(DVec3::ZERO);
        let yaw = col("Rotation").map_or(0.0, |r| r.z);
        let info = &self.cast.pawns[p];
        let event = Event::PawnSample(Arc::new(PawnSample::on_grid(
            info.pawn,
            info.client,
            kind,
            location,
            velocity,
            if yaw.is_finite() { yaw } else { 0.0 },
        )));
        let m = info.machine;
        self.emit(t, m, event);
    }
}
