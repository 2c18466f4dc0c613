//! The event log: its entries (corrections, warnings, errors, session changes, one-shots) and
//! the kinds that are also timeline markers.

use crate::model::telemetry::{
    DetectedBy, Deviation, Event, LogLevel, Machine, REPLAY_DEPTH_UNKNOWN, Record,
};

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
                    "move {move_id} corrected: {}; {}, found by the {}",
                    if deviations.is_empty() {
                        "no value named (the log has no validation line for it: `Log LogGMCReplication Verbose` prints one)".to_string()
                    } else {
                        deviations
                            .iter()
                            .map(Deviation::describe)
                            .collect::<Vec<_>>()
                            .join("; ")
                    },
                    if *replay_depth == REPLAY_DEPTH_UNKNOWN {
                        "replay depth not in the log".to_string()
                    } else {
                        format!("replayed {replay_depth}")
                    },
                    match detected_by {
                        DetectedBy::Client =>
                            "client (a client-validated value: the client compared its prediction with the state the server sent back)",
                        DetectedBy::Server =>
                            "server (a server-validated value: the server compared the client's claimed result with its own)",
                    },
                ),
            }),
            Event::LoggedCheck(k) if k.side == crate::model::logged::CheckSide::Server => {
                Some(LogEntry {
                    t: r.t,
                    machine: r.machine,
                    kind: MarkKind::Correction,
                    move_id: Some(k.move_id),
                    text: format!(
                        "client {}'s move {} rejected by the server: {}; GMC timestamp {:.6} s",
                        k.client,
                        k.move_id,
                        if k.deviations.is_empty() {
                            "no value named".to_string()
                        } else {
                            k.deviations
                                .iter()
                                .map(Deviation::describe)
                                .collect::<Vec<_>>()
                                .join("; ")
                        },
                        k.timestamp
                    ),
                })
            }
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
                    owner
                        .map(|o| format!(" (client {o}'s)"))
                        .unwrap_or_default()
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
