//! Events counted (and amounts summed) by time and machine, for the figures a lesson's claims
//! read: how often a player pressed dash, how often the server fired a dash for it, how many
//! one-shots each side raised, how many effects played outside a live move, how long proxies
//! were extrapolated. Each count is kept under the
//! client the event is about (a server event on a player's pawn under that player), so a
//! figure can be one client's.

use std::collections::BTreeMap;

use crate::model::pawn::{Execution, OneShotKind};
use crate::model::proxy::DISPLAY_SAMPLE_INTERVAL;
use crate::model::telemetry::{Event, LogLevel, Machine, Record};

/// What is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tally {
    /// A client's player pressed dash (raw input, before combining).
    DashPressed,
    /// The server fired a dash in a move of the client's pawn.
    DashFiredOnServer,
    /// A one-shot the client raised on its own pawn, in any of its executions (live,
    /// combined re-run, replay).
    OneShotOnOwner,
    /// A one-shot the server raised executing the client's moves.
    OneShotOnServer,
    /// A cosmetic effect the client played in an execution that is not a live move (GMC's
    /// `CL_IsReplaying()` or `IsSimulatedMove()` was true).
    EffectOutsideLiveMove,
    /// A proxy on the client played the dash effect.
    ProxyEffect,
    /// The client detected its pawn's dash transition.
    TransitionDetected,
    /// A warning line a machine logged.
    Warning,
    /// An error line a machine logged.
    Error,
    /// Proxy-seconds the client spent extrapolating (a sum, not a count).
    ExtrapolationSeconds,
    /// Proxy-frames the client showed without a team (a sum).
    TeamUnknownFrames,
    /// Proxy-seconds the client showed proxies for (a sum: proxies × the time since the
    /// machine's previous display sample).
    ProxySeconds,
}

/// (time, amount) per (machine, tally), sorted by time.
#[derive(Debug, Default)]
pub struct Tallies {
    times: BTreeMap<(Machine, Tally), Vec<(f64, f64)>>,
    /// Each machine's last display sample, for the time the next one covers.
    last_display: BTreeMap<Machine, f64>,
}

impl Tallies {
    /// Counts `r` if it is an event some tally counts.
    pub fn ingest(&mut self, r: &Record) {
        if let Event::ProxiesDisplayed(x) = &r.event {
            let last = self.last_display.insert(r.machine, r.t);
            // A sample covers the frames since the last one; after a gap with no proxies
            // (no samples), no more than a slow frame's worth.
            let covered = last.map_or(DISPLAY_SAMPLE_INTERVAL, |l| (r.t - l).clamp(0.0, 0.5));
            self.add(
                r.machine,
                Tally::ProxySeconds,
                r.t,
                f64::from(x.proxies) * covered,
            );
        }
        for (m, tally, amount) in counted(r).into_iter().flatten() {
            self.add(m, tally, r.t, amount);
        }
    }

    fn add(&mut self, m: Machine, tally: Tally, t: f64, amount: f64) {
        let v = self.times.entry((m, tally)).or_default();
        let i = v.partition_point(|x| x.0 <= t);
        v.insert(i, (t, amount));
    }

    /// The sum of `tally` on `m` in `[t0, t1)` (the count, for events).
    pub fn count(&self, m: Machine, tally: Tally, t0: f64, t1: f64) -> f64 {
        self.times.get(&(m, tally)).map_or(0.0, |v| {
            let (a, b) = (
                v.partition_point(|x| x.0 < t0),
                v.partition_point(|x| x.0 < t1),
            );
            v[a..b.max(a)].iter().map(|x| x.1).sum()
        })
    }

    /// Forgets events before `cut`.
    pub fn trim_before(&mut self, cut: f64) {
        for v in self.times.values_mut() {
            let k = v.partition_point(|x| x.0 < cut);
            v.drain(..k);
        }
    }
}

/// The machine, tally and amount `r` counts under (a dash the server fires is a one-shot
/// too).
fn counted(r: &Record) -> [Option<(Machine, Tally, f64)>; 2] {
    let m = r.machine;
    let client = matches!(m, Machine::Client(_));
    let tally = match &r.event {
        Event::DashPressed if client => Tally::DashPressed,
        Event::OneShot {
            owner: Some(owner),
            kind,
            exec: Execution::Remote,
            ..
        } if m == Machine::Server => {
            let on = Machine::Client(*owner);
            let dash =
                (*kind == OneShotKind::DashFired).then_some((on, Tally::DashFiredOnServer, 1.0));
            return [Some((on, Tally::OneShotOnServer, 1.0)), dash];
        }
        Event::OneShot {
            owner: Some(owner),
            exec: Execution::Live | Execution::Combined | Execution::Replay,
            ..
        } if m == Machine::Client(*owner) => Tally::OneShotOnOwner,
        Event::SideEffect { exec, .. } if client && !exec.is_live() => Tally::EffectOutsideLiveMove,
        Event::ProxyEffect { .. } if client => Tally::ProxyEffect,
        Event::TransitionDetected { .. } if client => Tally::TransitionDetected,
        Event::Log {
            level: LogLevel::Warning,
            ..
        } => Tally::Warning,
        Event::Log {
            level: LogLevel::Error,
            ..
        } => Tally::Error,
        Event::ProxiesDisplayed(x) if client => {
            return [
                Some((m, Tally::ExtrapolationSeconds, x.extrapolation_seconds)),
                Some((
                    m,
                    Tally::TeamUnknownFrames,
                    f64::from(x.team_unknown_frames),
                )),
            ];
        }
        _ => return [None, None],
    };
    [Some((m, tally, 1.0)), None]
}
