//! The figures a lesson's texts and claims can quote, and how each is measured.

use super::{FigureDef, Scope};
use crate::model::telemetry::Machine;
use crate::session::store::{Metric, Store, Tally};

/// Every figure, by name.
pub const FIGURES: &[FigureDef] = &[
    FigureDef {
        name: "rtt_ms",
        what: "the clients' mean ping round trip",
        measure: |s, w, a, b| mean_of(s, w, Metric::Rtt, a, b).map(|v| v * 1000.0),
        spread: Some((Metric::Rtt, 1000.0)),
        unit: " ms",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "move_age_ms",
        what: "how old the clients' moves are when the server executes them (mean)",
        measure: |s, w, a, b| mean_of(s, w, Metric::MoveAge, a, b).map(|v| v * 1000.0),
        spread: Some((Metric::MoveAge, 1000.0)),
        unit: " ms",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "timestamp_offset_ms",
        what: "a closed move's timestamp minus the server's clock at that instant (mean)",
        measure: |s, w, a, b| mean_of(s, w, Metric::MoveTimestampOffset, a, b).map(|v| v * 1000.0),
        spread: Some((Metric::MoveTimestampOffset, 1000.0)),
        unit: " ms",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "clock_offset_ms",
        what: "the clients' synchronized clock minus the server's (mean)",
        measure: |s, w, a, b| mean_of(s, w, Metric::ClockOffset, a, b).map(|v| v * 1000.0),
        spread: Some((Metric::ClockOffset, 1000.0)),
        unit: " ms",
        decimals: 1,
        over_state: false,
    },
    FigureDef {
        name: "frames_per_move",
        what: "frames combined into each move (mean)",
        measure: |s, w, a, b| mean_of(s, w, Metric::FramesPerMove, a, b),
        spread: Some((Metric::FramesPerMove, 1.0)),
        unit: "",
        decimals: 1,
        over_state: false,
    },
    FigureDef {
        name: "fps",
        what: "the clients' frames per second",
        measure: |s, w, a, b| per_second(s, w, a, b, |s, m, a, b| s.frames_between(m, a, b) as f64),
        spread: None,
        unit: " fps",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "moves_per_s",
        what: "moves each client closes per second",
        measure: |s, w, a, b| {
            per_second(s, w, a, b, |s, m, a, b| {
                s.series(m, Metric::MoveDelta)
                    .map_or(0.0, |x| x.range(a, b).count() as f64)
            })
        },
        spread: None,
        unit: " moves/s",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "sends_per_s",
        what: "datagrams of moves each client sends per second",
        measure: |s, w, a, b| {
            let v: Vec<f64> = clients(s, w)
                .filter_map(|m| s.sent_rates(m, a, b))
                .map(|r| r.move_datagrams_per_s)
                .collect();
            mean(&v)
        },
        spread: None,
        unit: " datagrams/s",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "move_delta_ms",
        what: "a move's delta time (mean)",
        measure: |s, w, a, b| mean_of(s, w, Metric::MoveDelta, a, b).map(|v| v * 1000.0),
        spread: Some((Metric::MoveDelta, 1000.0)),
        unit: " ms",
        decimals: 1,
        over_state: false,
    },
    FigureDef {
        name: "move_delta_max_ms",
        what: "the longest move delta",
        measure: |s, w, a, b| max_of(s, w, Metric::MoveDelta, a, b).map(|v| v * 1000.0),
        spread: None,
        unit: " ms",
        decimals: 1,
        over_state: false,
    },
    FigureDef {
        name: "substeps",
        what: "sub-steps per move (mean)",
        measure: |s, w, a, b| mean_of(s, w, Metric::Substeps, a, b),
        spread: Some((Metric::Substeps, 1.0)),
        unit: "",
        decimals: 1,
        over_state: false,
    },
    FigureDef {
        name: "substeps_max",
        what: "the most sub-steps in one move",
        measure: |s, w, a, b| max_of(s, w, Metric::Substeps, a, b),
        spread: None,
        unit: "",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "corrections",
        what: "corrections the clients received",
        measure: corrections,
        spread: None,
        unit: "",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "replay_depth",
        what: "moves re-run after a correction (mean)",
        measure: |s, w, a, b| mean_of(s, w, Metric::ReplayDepth, a, b),
        spread: Some((Metric::ReplayDepth, 1.0)),
        unit: " moves",
        decimals: 1,
        over_state: false,
    },
    FigureDef {
        name: "replay_depth_max",
        what: "the deepest replay",
        measure: |s, w, a, b| max_of(s, w, Metric::ReplayDepth, a, b),
        spread: None,
        unit: " moves",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "interp_delay_ms",
        what: "how far in the past the clients show other pawns (mean)",
        measure: |s, w, a, b| mean_of(s, w, Metric::InterpDelay, a, b).map(|v| v * 1000.0),
        spread: Some((Metric::InterpDelay, 1000.0)),
        unit: " ms",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "interp_delay_max_ms",
        what: "the furthest in the past another pawn was shown",
        measure: |s, w, a, b| max_of(s, w, Metric::InterpDelay, a, b).map(|v| v * 1000.0),
        spread: None,
        unit: " ms",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "own_input_delay_ms",
        what: "how long after a client made a move its own pawn shows the result (mean)",
        measure: |s, w, a, b| mean_of(s, w, Metric::OwnInputDelay, a, b).map(|v| v * 1000.0),
        spread: Some((Metric::OwnInputDelay, 1000.0)),
        unit: " ms",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "remote_moves_per_frame_max",
        what: "the most client moves the server executed in one of its frames",
        measure: |s, _, a, b| max_of(s, Scope::All, Metric::RemoteMovesPerFrame, a, b),
        spread: None,
        unit: " moves",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "dash_presses",
        what: "dash presses on the clients",
        measure: |s, w, a, b| count(s, w, Tally::DashPressed, a, b),
        spread: None,
        unit: "",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "server_dashes",
        what: "dashes the server fired in the clients' moves",
        measure: |s, w, a, b| count(s, w, Tally::DashFiredOnServer, a, b),
        spread: None,
        unit: "",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "client_one_shots",
        what: "one-shots the clients raised on their own pawns, in every execution",
        measure: |s, w, a, b| count(s, w, Tally::OneShotOnOwner, a, b),
        spread: None,
        unit: "",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "server_one_shots",
        what: "one-shots the server raised executing the clients' moves",
        measure: |s, w, a, b| count(s, w, Tally::OneShotOnServer, a, b),
        spread: None,
        unit: "",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "effects_in_replays",
        what: "cosmetic effects the clients played outside a live move (in replays and simulated moves)",
        measure: |s, w, a, b| count(s, w, Tally::EffectOutsideLiveMove, a, b),
        spread: None,
        unit: "",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "proxy_effects",
        what: "dash effects the clients' proxies played",
        measure: |s, w, a, b| count(s, w, Tally::ProxyEffect, a, b),
        spread: None,
        unit: "",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "transitions",
        what: "dash transitions the clients detected on their own pawns",
        measure: |s, w, a, b| count(s, w, Tally::TransitionDetected, a, b),
        spread: None,
        unit: "",
        decimals: 0,
        over_state: false,
    },
    FigureDef {
        name: "warnings",
        what: "warning lines logged (every machine) since the state began",
        measure: |s, w, a, b| count(s, w, Tally::Warning, a, b),
        spread: None,
        unit: "",
        decimals: 0,
        over_state: true,
    },
    FigureDef {
        name: "errors",
        what: "error lines logged (every machine) since the state began",
        measure: |s, w, a, b| count(s, w, Tally::Error, a, b),
        spread: None,
        unit: "",
        decimals: 0,
        over_state: true,
    },
    FigureDef {
        name: "extrapolated_pct",
        what: "the share of the time the clients showed proxies that they extrapolated them (their buffer ran dry)",
        measure: |s, w, a, b| {
            let shown = count(s, w, Tally::ProxySeconds, a, b)?;
            let dry = count(s, w, Tally::ExtrapolationSeconds, a, b)?;
            (shown > 0.0).then(|| 100.0 * dry / shown)
        },
        spread: None,
        unit: " %",
        decimals: 1,
        over_state: false,
    },
    FigureDef {
        name: "teamless_frames",
        what: "proxy-frames the clients showed without a team since the state began",
        measure: |s, w, a, b| count(s, w, Tally::TeamUnknownFrames, a, b),
        spread: None,
        unit: "",
        decimals: 0,
        over_state: true,
    },
    FigureDef {
        name: "state_corrections",
        what: "corrections the clients received since the state began",
        measure: corrections,
        spread: None,
        unit: "",
        decimals: 0,
        over_state: true,
    },
    FigureDef {
        name: "move_age_max_ms",
        what: "the oldest a client's move was when the server executed it",
        measure: |s, w, a, b| max_of(s, w, Metric::MoveAge, a, b).map(|v| v * 1000.0),
        spread: None,
        unit: " ms",
        decimals: 0,
        over_state: false,
    },
];

/// Corrections the clients of `scope` received in the window (none when the scope is a
/// client the store does not know; 0 for a session without clients, a standalone one).
fn corrections(s: &Store, scope: Scope, a: f64, b: f64) -> Option<f64> {
    let machines: Vec<Machine> = clients(s, scope).collect();
    let known = !machines.is_empty() || (scope == Scope::All && s.records() > 0);
    known.then(|| {
        machines
            .iter()
            .filter_map(|m| s.series(*m, Metric::ReplayDepth))
            .map(|x| x.range(a, b).count() as f64)
            .sum()
    })
}

/// The client machines the store has heard of, in `scope`.
pub(super) fn clients(s: &Store, scope: Scope) -> impl Iterator<Item = Machine> + '_ {
    let mut all: Vec<Machine> = s
        .framed_machines()
        .into_iter()
        .chain(s.machines_with(Metric::MoveDelta))
        .chain(s.machines_with(Metric::BytesSent))
        .filter(|m| matches!(m, Machine::Client(_)) && scope.has(*m))
        .collect();
    all.sort();
    all.dedup();
    all.into_iter()
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// The mean of every point of `metric` in the window on the machines of `scope` (server-side
/// series included: the move age is kept per client).
fn mean_of(s: &Store, scope: Scope, metric: Metric, a: f64, b: f64) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0usize);
    for m in s
        .machines_with(metric)
        .into_iter()
        .filter(|m| scope.has(*m))
    {
        if let Some(x) = s.series(m, metric) {
            for p in x.range(a, b) {
                sum += p[1];
                n += 1;
            }
        }
    }
    (n > 0).then(|| sum / n as f64)
}

fn max_of(s: &Store, scope: Scope, metric: Metric, a: f64, b: f64) -> Option<f64> {
    s.machines_with(metric)
        .into_iter()
        .filter(|m| scope.has(*m))
        .filter_map(|m| s.series(m, metric))
        .flat_map(|x| x.range(a, b).map(|p| p[1]))
        .reduce(f64::max)
}

/// Events of `tally` in the window, summed over the machines of `scope` (the server's own
/// log lines included when the scope is every machine); none when the scope has no machine.
fn count(s: &Store, scope: Scope, tally: Tally, a: f64, b: f64) -> Option<f64> {
    let machines: Vec<Machine> = std::iter::once(Machine::Server)
        .filter(|m| scope.has(*m) && s.records() > 0)
        .chain(clients(s, scope))
        .collect();
    let n: f64 = machines.iter().map(|m| s.tally(*m, tally, a, b)).sum();
    (!machines.is_empty()).then_some(n)
}

/// The mean over clients of `count(machine, a, b) / (b − a)`, over the part of the window the
/// store holds.
fn per_second(
    s: &Store,
    scope: Scope,
    a: f64,
    b: f64,
    count: fn(&Store, Machine, f64, f64) -> f64,
) -> Option<f64> {
    let a = a.max(s.earliest());
    let b = b.min(s.latest());
    if b - a < 0.5 {
        return None;
    }
    let v: Vec<f64> = clients(s, scope)
        .map(|m| count(s, m, a, b) / (b - a))
        .collect();
    mean(&v).filter(|&x| x > 0.0)
}
