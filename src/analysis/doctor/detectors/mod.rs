//! One detector per cause. Each reads only the evidence it names in [`Detector::needs`] and
//! answers for one desync: supported (with the evidence), ruled out (why), or cannot tell
//! (what is missing and what would tell). The same detectors serve simulated sessions,
//! recordings and imported game logs; each source carries its own evidence (docs/doctor.md
//! has the table of causes by source).

mod gameplay;
mod lists;
mod network;
mod origin;
mod precision;
mod tick;
mod writes;

use super::causes::Cause;
use super::evidence::Evidence;
use super::logview::{self, Parted};
use super::subject::Subject;
use super::verdict::CauseVerdict;
use crate::model::telemetry::{DetectedBy, MoveValues};

pub(super) use tick::{CrowdStats, crowd_stats};

/// Moves before a desync's first move a game log's dumps are searched for where it began.
pub(super) const LOOK_BACK: usize = 24;

/// What a detector is given about one desync.
pub(super) struct Ctx<'e, 'a> {
    pub ev: &'e Evidence<'a>,
    pub s: &'e Subject<'a>,
    /// Value trace: the client's execution the verdict judged (with its time), and the
    /// server's execution of the same move.
    pub judged: Option<(f64, &'a MoveValues)>,
    pub server: Option<&'a MoveValues>,
    /// Game log: where the client's and the server's executions first ended apart.
    pub parted: Option<Parted<'a>>,
    /// The moves a game log's dumps are searched over: the desync's first move and the
    /// [`LOOK_BACK`] before it, in timestamp order.
    pub moves: Vec<u32>,
}

impl<'e, 'a> Ctx<'e, 'a> {
    pub fn new(ev: &'e Evidence<'a>, s: &'e Subject<'a>) -> Ctx<'e, 'a> {
        let judged = judged_execution(ev, s);
        let server = ev.trace.server.get(&(s.client, s.move_id)).copied();
        let moves = if ev.imported() {
            ev.moves_before(s.client, s.move_id, LOOK_BACK)
        } else {
            Vec::new()
        };
        let parted = logview::first_parted(ev, s.client, &moves);
        Ctx {
            ev,
            s,
            judged,
            server,
            parted,
            moves,
        }
    }

    /// The moves up to the first the two machines ended apart (all of them when none did).
    pub fn moves_to_parting(&self) -> &[u32] {
        let end = self
            .parted
            .as_ref()
            .and_then(|p| self.moves.iter().position(|m| *m == p.move_id))
            .map_or(self.moves.len(), |i| i + 1);
        &self.moves[..end]
    }

    /// `moves 3–9` (by the first and last of the window).
    pub fn moves_text(moves: &[u32]) -> String {
        match (moves.first(), moves.last()) {
            (Some(a), Some(b)) if a != b => format!("moves {a}–{b}"),
            (Some(a), _) => format!("move {a}"),
            _ => "no move".to_string(),
        }
    }

    pub fn has_client_log(&self) -> bool {
        self.ev
            .log
            .contents
            .is_some_and(|c| c.has_client_log(self.s.client))
    }

    pub fn has_server_log(&self) -> bool {
        self.ev
            .log
            .contents
            .is_some_and(|c| c.has_server_copy(self.s.client))
    }
}

/// The client's execution a verdict judged (value trace): for the client's own check, its
/// last before the verdict; for the server's, the last whose end is the value the client sent
/// (a replay may have re-run the move after it left).
fn judged_execution<'a>(ev: &Evidence<'a>, s: &Subject<'a>) -> Option<(f64, &'a MoveValues)> {
    let execs: Vec<(f64, &'a MoveValues)> = ev
        .trace
        .client
        .get(&(s.client, s.move_id))?
        .iter()
        .filter(|(t, _)| *t <= s.t)
        .copied()
        .collect();
    if s.detected_by != Some(DetectedBy::Server) {
        return execs.last().copied();
    }
    let first = s.deviations.first();
    let bd = first.and_then(|d| ev.binding(&d.binding));
    execs
        .iter()
        .rev()
        .find(|(_, m)| match (first, bd) {
            (Some(d), Some(b)) => {
                b.ty.distance(&b.ty.quantize(&m.exit.get(b.field)), &d.predicted) < 1e-9
            }
            _ => false,
        })
        .or(execs.last())
        .copied()
}

/// A detector: its cause, the evidence it reads, and its judgement.
pub(super) struct Detector {
    pub cause: Cause,
    /// The evidence it reads, in words (docs/doctor.md's table).
    pub needs: &'static str,
    pub judge: fn(&Ctx<'_, '_>) -> CauseVerdict,
}

/// The detectors judged on each desync alone (the statistical and the eliminating ones come
/// after: [`tick`]).
pub(super) const FIRST: [Detector; 12] = [
    lists::BINDING_MISMATCH,
    lists::UNBOUND_MEMBER,
    writes::WRITTEN_OUTSIDE,
    gameplay::SERVER_DECIDED,
    writes::SERVER_WROTE,
    gameplay::FIRST_UPDATE,
    gameplay::INPUT_PULSE,
    gameplay::ONE_SHOT,
    network::MOVES_SKIPPED,
    network::DELTA_TIME,
    network::CLOCK_DOMAINS,
    precision::WIRE_PRECISION,
];

/// Judged last: proximity to other pawns over every desync no first detector explains, then
/// the tick itself (observed, or by elimination).
pub(super) fn last(
    ctx: &Ctx<'_, '_>,
    crowd: &CrowdStats,
    so_far: &[CauseVerdict],
) -> [CauseVerdict; 2] {
    let displayed = tick::displayed_pawns(ctx, crowd);
    let mut all: Vec<&CauseVerdict> = so_far.iter().collect();
    all.push(&displayed);
    let nondet = tick::non_deterministic(ctx, &all);
    [displayed, nondet]
}

/// What every detector reads, for the docs and `--explain`.
pub fn needs() -> Vec<(Cause, &'static str)> {
    let mut v: Vec<(Cause, &'static str)> = FIRST.iter().map(|d| (d.cause, d.needs)).collect();
    v.push((Cause::ReadsDisplayedPawns, tick::DISPLAYED_NEEDS));
    v.push((Cause::NonDeterministicTick, tick::NONDET_NEEDS));
    v
}

/// `gmc.LogClientMoveTrace 1` on both machines, for the dumps a game log's detector needs.
pub(super) const TRACE_BOTH: &str =
    "`gmc.LogClientMoveTrace 1` on the client and the server (its Input/Output state dumps)";
/// The value trace of a simulated session.
pub(super) const VALUE_TRACE: &str = "the value trace (`--set value_trace=true`, or Session ▸ value trace; `movescope doctor` re-simulates a virtual-time recording for it)";
