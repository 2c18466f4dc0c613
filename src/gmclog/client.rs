//! A predicting client's pawn, assembled from its lines: moves (each re-execution of a
//! combined move is a version of one move), batches sent, the server's replies, and
//! corrections with their replays.

use std::collections::{HashMap, VecDeque};

use super::message::Side;
use super::scan::Ts;
use crate::model::logged::{CheckedState, LogLine};
use crate::model::telemetry::{Deviation, Event};

/// Moves remembered per client (for ids by timestamp, replay depths and v1's short
/// timestamps); older ones are forgotten, so memory stays flat over any length of log.
const REMEMBERED: usize = 4096;

/// The move being built: versions of one move until a new move starts or it is sent.
#[derive(Clone, Debug)]
pub struct OpenMove {
    pub id: u32,
    pub ts: Ts,
    pub delta: Option<f64>,
    /// Versions seen (frames merged); 0 when the move was seen only in a batch sent.
    pub frames: u16,
    /// Iterations of the newest version (0: the log does not say).
    pub substeps: u16,
}

/// One side's validation lines being gathered for a verdict: the values they named, the
/// lines, which state the verdict line named, and whether their punctuation is that side's.
#[derive(Clone, Debug)]
pub struct PendingCheck {
    pub deviations: Vec<Deviation>,
    pub lines: Vec<LogLine>,
    pub state: Option<CheckedState>,
    pub punctuation_agrees: bool,
}

impl Default for PendingCheck {
    fn default() -> Self {
        PendingCheck {
            deviations: Vec::new(),
            lines: Vec::new(),
            state: None,
            punctuation_agrees: true,
        }
    }
}

impl PendingCheck {
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// A per-value line read on `side`, printed in `punct`'s punctuation.
    pub fn value_line(&mut self, d: Option<Deviation>, at: LogLine, side: Side, punct: Side) {
        self.deviations.extend(d);
        self.lines.push(at);
        self.punctuation_agrees &= side == punct;
    }

    /// A verdict line (`… failed client-side validation …`, `Source move … was not valid.`).
    pub fn verdict_line(&mut self, at: LogLine, state: Option<CheckedState>) {
        self.lines.push(at);
        self.state = self.state.or(state);
    }
}

/// A correction being gathered from the lines around one reply.
#[derive(Clone, Debug, Default)]
pub struct PendingCorrection {
    pub t: f64,
    pub source: Option<Ts>,
    /// The client's own check: the values it named, its lines.
    pub check: PendingCheck,
    /// 1.x `Client was corrected by server` (locations before and after): a deviation the
    /// client's check did not name.
    pub shown: Vec<Deviation>,
    /// `Replayed N moves.` (or 1.x's replayed-move lines counted).
    pub replayed: Option<u16>,
    pub replayed_lines: u16,
    /// Distinct move timestamps executed during the replay (2.x VeryVerbose iterations).
    pub replay_ts: Vec<i64>,
    pub not_replayed: bool,
    /// A verdict line was read (`… failed client-side validation …`, `Source move … was not
    /// valid.`): a value line after it starts the next correction.
    pub decided: Option<Ts>,
    /// Inside the replay block (2.x `Client replay :::` or 1.x Start … End).
    pub in_block: bool,
}

/// What the client pawn knows.
#[derive(Debug, Default)]
pub struct ClientPawn {
    pub open: Option<OpenMove>,
    next_id: u32,
    ids: HashMap<i64, u32>,
    order: VecDeque<(Ts, u32)>,
    /// Moves sent at least once, with when they were first sent (to tell a resent move from
    /// a new one, and a reply's round trip).
    sent: HashMap<u32, f64>,
    sent_order: VecDeque<u32>,
    pub batch: Option<(u16, u16)>,
    pub correction: Option<PendingCorrection>,
    /// The newest reply received (its move's timestamp).
    pub last_reply: Option<Ts>,
    /// Iterations counted since the last execution line (`IterationStarted` lines).
    pub iterations: u16,
    pub last_executed: Option<Ts>,
}

impl ClientPawn {
    pub fn new() -> ClientPawn {
        ClientPawn {
            next_id: 1,
            ..ClientPawn::default()
        }
    }

    /// The move id of a timestamp (v1's 3-decimal timestamps match within their precision).
    pub fn id_of(&self, ts: Ts) -> Option<u32> {
        if ts.decimals >= 6 {
            return self.ids.get(&ts.micros).copied();
        }
        self.order
            .iter()
            .rev()
            .find(|(t, _)| ts.matches(*t))
            .map(|(_, id)| *id)
    }

    /// The id of a timestamp, a new one if the client's lines never named it.
    pub fn id_or_new(&mut self, ts: Ts) -> u32 {
        match self.id_of(ts) {
            Some(id) => id,
            None => {
                let id = self.fresh_id();
                self.remember(ts, id);
                id
            }
        }
    }

    pub fn fresh_id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id = self.next_id.saturating_add(1);
        id
    }

    pub fn remember(&mut self, ts: Ts, id: u32) {
        self.ids.insert(ts.micros, id);
        self.order.push_back((ts, id));
        while self.order.len() > REMEMBERED {
            if let Some((old, old_id)) = self.order.pop_front()
                && self.ids.get(&old.micros) == Some(&old_id)
            {
                self.ids.remove(&old.micros);
            }
        }
    }

    /// Whether an execution with (`ts`, `delta`) is a new version of the open move: GMC
    /// moves the combined move's timestamp to the new frame's and grows its delta by the same
    /// amount, while a new move's delta is the time since the previous move.
    pub fn is_version(&self, ts: Ts, delta: Option<f64>) -> bool {
        let Some(open) = &self.open else {
            return false;
        };
        let (Some(d), Some(old)) = (delta, open.delta) else {
            return false;
        };
        let step = ts.secs() - open.ts.secs();
        if step <= 0.0 {
            return step == 0.0 && (d - old).abs() < 1e-6;
        }
        (d - (old + step)).abs() < (d - step).abs()
    }

    /// Marks a move sent at `t`; true when it had been sent before.
    pub fn mark_sent(&mut self, id: u32, t: f64) -> bool {
        if self.sent.contains_key(&id) {
            return true;
        }
        self.sent.insert(id, t);
        self.sent_order.push_back(id);
        while self.sent_order.len() > REMEMBERED {
            if let Some(old) = self.sent_order.pop_front() {
                self.sent.remove(&old);
            }
        }
        false
    }

    /// When move `id` was first sent, if the log said.
    pub fn sent_at(&self, id: u32) -> Option<f64> {
        self.sent.get(&id).copied()
    }

    /// Moves newer than `source` the client had made (what GMC replays after adopting the
    /// server's state for `source`).
    pub fn newer_than(&self, source: Ts) -> u16 {
        let n = self
            .order
            .iter()
            .rev()
            .take_while(|(t, _)| t.micros > source.micros && !source.matches(*t))
            .count();
        u16::try_from(n).unwrap_or(u16::MAX)
    }

    /// The `MoveClosed` event of the open move, which it takes.
    pub fn close(&mut self) -> Option<Event> {
        let m = self.open.take()?;
        Some(Event::MoveClosed {
            move_id: m.id,
            timestamp: m.ts.secs(),
            delta: m.delta.unwrap_or(f64::NAN),
            frames: m.frames,
            substeps: m.substeps,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: f64) -> Ts {
        Ts::from_secs(s)
    }

    #[test]
    fn a_combined_version_grows_its_delta_by_the_step() {
        let mut c = ClientPawn::new();
        c.open = Some(OpenMove {
            id: 1,
            ts: ts(1.0),
            delta: Some(0.016),
            frames: 1,
            substeps: 0,
        });
        assert!(c.is_version(ts(1.016), Some(0.032)));
        assert!(!c.is_version(ts(1.016), Some(0.016)));
        assert!(!c.is_version(ts(1.016), None));
    }

    #[test]
    fn ids_are_remembered_and_forgotten_in_order() {
        let mut c = ClientPawn::new();
        for i in 0..(REMEMBERED as u32 + 10) {
            let id = c.fresh_id();
            c.remember(ts(f64::from(i) * 0.01), id);
        }
        assert_eq!(c.id_of(ts(0.0)), None);
        assert!(c.id_of(ts(f64::from(REMEMBERED as u32) * 0.01)).is_some());
        let short = Ts {
            micros: 40_960_000,
            decimals: 3,
        };
        assert!(c.id_of(short).is_some());
        assert_eq!(c.newer_than(ts(41.0)), 5);
    }
}
