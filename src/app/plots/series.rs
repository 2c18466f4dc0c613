//! Which plots there are and which series each shows: the metric, its scale and unit, and
//! what it means in GMC terms.

use crate::session::store::Metric;

/// One plot: what it shows and what it means in GMC terms.
pub struct PlotSpec {
    pub title: &'static str,
    pub explain: &'static str,
    pub metric: Metric,
    pub scale: f64,
    pub unit: &'static str,
    pub points: bool,
    /// Keep zero in view (a quantity whose size matters, not only its wiggles).
    pub zero: bool,
    /// Shown unless the user hides it.
    pub default_on: bool,
}

pub const PLOTS: [PlotSpec; 12] = [
    PlotSpec {
        title: "Move delta",
        explain: "Each move's delta time on its owning client (ms), from timestamps, clamped to MaxMoveDeltaTime. Combined moves carry the accumulated delta of their frames.",
        metric: Metric::MoveDelta,
        scale: 1000.0,
        unit: "ms",
        points: true,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Frames per move",
        explain: "Frames merged into each move while the inputs allow combining and the delta stays within MaxCombinedDeltaTime: about 4 at 120 fps, 1 at 30 fps.",
        metric: Metric::FramesPerMove,
        scale: 1.0,
        unit: "frames",
        points: true,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Corrections: replay depth",
        explain: "One marker per correction the client adopted: how many pending moves it replayed (CL_IsReplaying). Grows with latency.",
        metric: Metric::ReplayDepth,
        scale: 1.0,
        unit: "moves",
        points: true,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Interpolation delay",
        explain: "How far in the past each client displays the other pawns (ms): latency estimate + smoothing buffer with AdaptiveBufferedInterpolation.",
        metric: Metric::InterpDelay,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Move age on the server",
        explain: "Server time minus the move's timestamp when the server executed it (ms): half a round trip plus batching and frame waits. Huge without a world-time replicator.",
        metric: Metric::MoveAge,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Round trip (ping)",
        explain: "Ping round-trip time measured by each client (ms); half of it is the latency estimate used for clock sync and smoothing.",
        metric: Metric::Rtt,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Clock offset",
        explain: "Each client's synchronized clock (GetTime) minus the server's clock at the same instant (ms). Near zero with one AGMC_WorldTimeReplicator.",
        metric: Metric::ClockOffset,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: false,
        default_on: true,
    },
    PlotSpec {
        title: "Bytes sent per second",
        explain: "Datagram bytes each machine sent per second (movescope's bit-packed format, headers included).",
        metric: Metric::BytesSent,
        scale: 1.0,
        unit: "B/s",
        points: false,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Corrections: error / tolerance",
        explain: "One marker per correction: its largest deviation divided by that value's tolerance (1 = just over). The event log names the value and both sides.",
        metric: Metric::CorrectionError,
        scale: 1.0,
        unit: "× tol",
        points: true,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Sub-steps per move",
        explain: "How many slices a move was executed in: a delta larger than MaxTimeStep is sub-stepped (up to MaxIterations). More than 1 at low frame rates.",
        metric: Metric::Substeps,
        scale: 1.0,
        unit: "steps",
        points: true,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Move timestamp − server time",
        explain: "Each move's timestamp (the client's synchronized clock) minus the server's clock when it closed (ms): the timestamps a client puts on its moves, seen against server time.",
        metric: Metric::MoveTimestampOffset,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: false,
        default_on: false,
    },
    PlotSpec {
        title: "Remote moves per server frame",
        explain: "Moves from clients the server executed in each of its frames: bursts after loss or batching, zero while a client is silent.",
        metric: Metric::RemoteMovesPerFrame,
        scale: 1.0,
        unit: "moves",
        points: true,
        zero: true,
        default_on: false,
    },
];

impl PlotSpec {
    /// A count (frames, moves, steps): whole numbers, ticks on whole numbers, dodged series.
    pub fn discrete(&self) -> bool {
        matches!(
            self.metric,
            Metric::FramesPerMove
                | Metric::ReplayDepth
                | Metric::Substeps
                | Metric::RemoteMovesPerFrame
        )
    }
}
