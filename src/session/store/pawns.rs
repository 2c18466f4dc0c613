//! What the store keeps of pawns: every sample each machine showed and the view at a time
//! with its trail, location corrections, and the proxies' buffer trace and the moves' value
//! trace.

use glam::DVec3;

use crate::model::telemetry::{DetectedBy, Machine, SampleKind};

/// A host's participant as its log lines name it: "participant ana (client 2)" (or
/// "participant client 2" without a name).
pub fn describe_participant(id: u16, name: Option<&str>) -> String {
    match name {
        Some(n) => format!("participant {n} (client {id})"),
        None => format!("participant client {id}"),
    }
}

/// The participant a host's log line names with [`describe_participant`] (its client id and
/// name), so views name its client by it, live and in recordings.
pub fn participant_named(what: &str) -> Option<(u16, String)> {
    let rest = what.strip_prefix("participant ")?;
    let at = rest.rfind(" (client ")?;
    let name = &rest[..at];
    let id = rest[at + " (client ".len()..]
        .split(')')
        .next()?
        .parse()
        .ok()?;
    (!name.is_empty()).then(|| (id, name.to_string()))
}

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
pub(super) struct PawnSampleAt {
    pub(super) t: f64,
    pub(super) location: DVec3,
    pub(super) velocity: DVec3,
    pub(super) yaw: f64,
}

/// Every sample of one pawn on one machine, in time order.
#[derive(Clone, Debug)]
pub(super) struct PawnTrack {
    pub(super) owner: Option<u16>,
    pub(super) samples: Vec<PawnSampleAt>,
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

pub(super) fn view_at(pawn: u16, kind: SampleKind, track: &PawnTrack, t: f64) -> Option<PawnView> {
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
