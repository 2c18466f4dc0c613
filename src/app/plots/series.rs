//! Which plots there are and which series each shows: the metric, its scale and unit, and
//! what it means in GMC terms.

use crate::session::store::Metric;

/// One plot: what it shows and what it means in GMC terms.
pub struct PlotSpec {
    pub title: &'static str,
    pub explain: &'static str,
    /// The running session's own figures for the tooltip (`{figure}`s filled in from the
    /// last 10 s; empty: none).
    pub here: &'static str,
    pub metric: Metric,
    pub scale: f64,
    pub unit: &'static str,
    pub points: bool,
    /// Keep zero in view (a quantity whose size matters, not only its wiggles).
    pub zero: bool,
    /// Shown unless the user hides it.
    pub default_on: bool,
}

pub const PLOTS: [PlotSpec; 13] = [
    PlotSpec {
        title: "Move delta",
        explain: "Each move's delta time on its owning client (ms), from timestamps, clamped to MaxMoveDeltaTime. Combined moves carry the accumulated delta of their frames.",
        here: "This session, last 10 s: moves of {move_delta_ms} on average, {move_delta_max_ms} at most.",
        metric: Metric::MoveDelta,
        scale: 1000.0,
        unit: "ms",
        points: true,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Frames per move",
        explain: "Frames merged into each move while the inputs allow combining and the delta stays within MaxCombinedDeltaTime: at 120 fps about 4 while the inputs hold still, at 30 fps 1.",
        here: "This session, last 10 s: clients at {fps}, {frames_per_move} frames per move, {moves_per_s}.",
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
        here: "This session, last 10 s: {corrections} corrections, {replay_depth} replayed on average at a {rtt_ms} round trip.",
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
        here: "This session, last 10 s: other pawns shown {interp_delay_ms} in the past on average.",
        metric: Metric::InterpDelay,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Move age on the server",
        explain: "Server time minus the move's timestamp when the server executed it (ms): half a round trip plus batching and frame waits. Huge without a world-time replicator. A few ms below 0 at low latency: the client's synchronized clock runs that much ahead of the server's (the Clock offset plot), not a move from the future.",
        here: "This session, last 10 s: moves executed {move_age_ms} after their timestamp, at a {rtt_ms} round trip.",
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
        here: "This session, last 10 s: {rtt_ms} on average.",
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
        here: "This session, last 10 s: {clock_offset_ms} on average.",
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
        here: "This session, last 10 s: each client sends {sends_per_s} of moves.",
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
        here: "This session, last 10 s: {corrections} corrections.",
        metric: Metric::CorrectionError,
        scale: 1.0,
        unit: "× tol",
        points: true,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Sub-steps per move",
        explain: "How many slices a move was executed in: a delta larger than MaxTimeStep is sub-stepped (up to MaxIterations). More than 1 at low frame rates. 0 when the client does not predict: its moves carry input only and the movement runs on the server alone.",
        here: "This session, last 10 s: {substeps} sub-steps per move on average, {substeps_max} at most.",
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
        here: "This session, last 10 s: {timestamp_offset_ms} on average.",
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
        here: "",
        metric: Metric::RemoteMovesPerFrame,
        scale: 1.0,
        unit: "moves",
        points: true,
        zero: true,
        default_on: false,
    },
    PlotSpec {
        title: "Own input to screen",
        explain: "How long after a client made a move its own pawn shows the result (ms). With client prediction, 0: the client runs the move at once and shows its own result. Without (bUseClientPrediction off), the move's age on the server plus the delay the client displays the server's states with, as for another player's pawn: there, executed, back and smoothed.",
        here: "This session, last 10 s: {own_input_delay_ms} on average, at a {rtt_ms} round trip.",
        metric: Metric::OwnInputDelay,
        scale: 1000.0,
        unit: "ms",
        points: false,
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
