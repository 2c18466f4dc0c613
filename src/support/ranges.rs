//! One table of the ranges every numeric setting accepts. Preset validation, `--set` and the
//! app's editors all read it, so an editor can show (and accept) every value a preset may hold
//! and nothing a preset would refuse: opening an editor never clamps a value.
//!
//! Bounds are finite on purpose: a setting that drives a loop (a frame rate, a period) stays
//! within what a run can take.

/// The values one setting accepts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    /// The dotted preset key (`gmc.world_time_update_interval`).
    pub key: &'static str,
    pub min: f64,
    pub max: f64,
    /// The minimum itself is refused (`> min`, not `≥ min`).
    pub min_exclusive: bool,
    /// The maximum itself is refused (`< max`).
    pub max_exclusive: bool,
    /// 0 is accepted too (it switches the setting off), below `min`.
    pub zero_off: bool,
    /// Why these bounds (shown with an error and in editors' tooltips).
    pub why: &'static str,
}

impl Range {
    const fn closed(key: &'static str, min: f64, max: f64, why: &'static str) -> Range {
        Range {
            key,
            min,
            max,
            min_exclusive: false,
            max_exclusive: false,
            zero_off: false,
            why,
        }
    }

    /// 0 (off), or `[min, max]`.
    const fn off_or(key: &'static str, min: f64, max: f64, why: &'static str) -> Range {
        Range {
            zero_off: true,
            ..Range::closed(key, min, max, why)
        }
    }

    /// `(min, max]`: a positive amount.
    const fn above(key: &'static str, min: f64, max: f64, why: &'static str) -> Range {
        Range {
            key,
            min,
            max,
            min_exclusive: true,
            max_exclusive: false,
            zero_off: false,
            why,
        }
    }

    /// Whether `v` is accepted (NaN never is).
    pub fn contains(&self, v: f64) -> bool {
        if self.zero_off && v == 0.0 {
            return true;
        }
        let low = if self.min_exclusive {
            v > self.min
        } else {
            v >= self.min
        };
        let high = if self.max_exclusive {
            v < self.max
        } else {
            v <= self.max
        };
        low && high
    }

    /// What is expected, in words: "a number in (0, 60]".
    pub fn expected(&self) -> String {
        format!(
            "{}a number in {}{}, {}{} ({})",
            if self.zero_off { "0 (off) or " } else { "" },
            if self.min_exclusive { "(" } else { "[" },
            self.min,
            self.max,
            if self.max_exclusive { ")" } else { "]" },
            self.why
        )
    }

    /// `Ok` if `v` is accepted, else (key, what was expected and what was given).
    pub fn check(&self, v: f64) -> Result<(), (String, String)> {
        if self.contains(v) {
            Ok(())
        } else {
            Err((
                self.key.to_string(),
                format!("{}, got {}", self.expected(), shown(v)),
            ))
        }
    }

    /// The range for an editor widget (the exclusive ends as the nearest accepted value an
    /// editor can show: an editor's steps never reach an excluded end exactly).
    pub fn inclusive(&self) -> std::ops::RangeInclusive<f64> {
        let lo = if self.min_exclusive {
            next_up(self.min)
        } else {
            self.min
        };
        let hi = if self.max_exclusive {
            next_down(self.max)
        } else {
            self.max
        };
        lo..=hi
    }
}

/// A refused value as a person reads it: `1e-300` and `1e300`, not three hundred digits.
pub fn shown(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-4..1e9).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

fn next_up(x: f64) -> f64 {
    if x == 0.0 {
        f64::MIN_POSITIVE
    } else if x > 0.0 {
        f64::from_bits(x.to_bits() + 1)
    } else {
        f64::from_bits(x.to_bits() - 1)
    }
}

fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

const FRAME_RATE: &str = "frames per second; a frame step must stay well above float resolution";
const PERIOD: &str = "seconds";

/// Every numeric setting's range, by dotted key. Link fields are per link (`link.…`,
/// `link_overrides.N.link.…`): they are listed under `link.`.
pub const RANGES: &[Range] = &[
    Range::above("seconds", 0.0, 86_400.0, "seconds of a run, at most a day"),
    Range::closed("clients", 0.0, 64.0, "clients in a session"),
    Range::closed("ai_pawns", 0.0, 64.0, "AI pawns on the server"),
    Range::closed("client_fps", 1.0, 1000.0, FRAME_RATE),
    Range {
        key: "client_fps_jitter",
        min: 0.0,
        max: 1.0,
        min_exclusive: false,
        max_exclusive: true,
        zero_off: false,
        why: "a fraction of the frame time",
    },
    Range::closed("client", 0.0, 63.0, "a client id (at most 64 clients)"),
    Range::closed(
        "input.segment_min_s",
        0.01,
        3600.0,
        "seconds before the direction changes",
    ),
    Range::closed(
        "input.segment_max_s",
        0.01,
        3600.0,
        "seconds before the direction changes",
    ),
    Range::closed("input.stop_chance", 0.0, 1.0, "a probability"),
    Range::off_or(
        "input.dash_period_s",
        0.05,
        3600.0,
        "seconds between dash presses",
    ),
    Range::closed("server_fps", 1.0, 1000.0, FRAME_RATE),
    Range::closed("join_interval_s", 0.0, 60.0, "seconds between client joins"),
    Range::closed(
        "world_time_replicators",
        0.0,
        8.0,
        "AGMC_WorldTimeReplicator actors: 1 is correct",
    ),
    Range::closed(
        "net_update_rate",
        0.1,
        1000.0,
        "state updates per second to simulated proxies",
    ),
    Range::closed(
        "world_view_rate",
        0.0,
        1000.0,
        "pawn samples per second for the world view (0: none)",
    ),
    // At least 1 ms: sub-steps per simulated second are at most about 1/MaxTimeStep a pawn, so
    // the cost stays within ~17× GMC's default (0.04 s at 60 fps: one a move); 1e-300 with
    // MaxIterations 1024 made every move 1024 sub-steps (90 s took 13 s to simulate).
    Range::closed(
        "gmc.max_time_step",
        0.001,
        1.0,
        "seconds; a longer move is sub-stepped; at least 1 ms, so a simulated second costs at most ~1000 sub-steps a pawn",
    ),
    Range::closed("gmc.max_iterations", 1.0, 1024.0, "sub-steps per move"),
    Range::above(
        "gmc.max_move_delta_time",
        0.0,
        2.0,
        "seconds; a move's delta is clamped to it",
    ),
    Range::closed(
        "gmc.max_combined_delta_time",
        0.0,
        1.0,
        "seconds; 0 never combines",
    ),
    Range::closed(
        "gmc.move_history_max_size",
        1.0,
        65_536.0,
        "moves kept for replay",
    ),
    Range::closed("gmc.client_send_rate", 1.0, 1000.0, "sends per second"),
    Range::above(
        "gmc.world_time_update_interval",
        0.0,
        60.0,
        "seconds between world-time updates (GMC's default is 0.01)",
    ),
    Range::closed(
        "gmc.reliable_pending_threshold",
        0.0,
        1024.0,
        "pending reliable move packets",
    ),
    Range::above("gmc.move_gap_timeout", 0.0, 60.0, PERIOD),
    Range::above("gmc.ping_interval", 0.0, 60.0, PERIOD),
    Range::closed("gmc.post_spawn_smoothing_pause", 0.0, 60.0, PERIOD),
    Range::above("smoothing.buffer_time", 0.0, 10.0, PERIOD),
    Range::closed("smoothing.min_buffer_time", 0.0, 10.0, PERIOD),
    Range::closed("smoothing.max_buffer_time", 0.0, 10.0, PERIOD),
    Range::closed("smoothing.min_delay", 0.0, 10.0, PERIOD),
    Range::closed("smoothing.max_delay", 0.0, 10.0, PERIOD),
    Range::above("smoothing.resync_interval", 0.0, 600.0, PERIOD),
    Range::closed("smoothing.resync_spread", 0.0, 600.0, PERIOD),
    Range::closed("smoothing.resync_tolerance", 0.0, 10.0, PERIOD),
    // A binding's tolerance, in its value's unit (cm, cm/s, °, s, …): finite, and at most
    // 10 km — a larger one would never see a correction.
    Range::closed(
        "bindings.tolerance",
        0.0,
        1e6,
        "in the value's unit (cm, cm/s, °…); 0 compares exactly",
    ),
    Range::closed("smoothing.fixed_delay", 0.0, 10.0, PERIOD),
    Range::closed("smoothing.max_extrapolation_time", 0.0, 10.0, PERIOD),
    Range::closed("smoothing.extrapolation_recovery_time", 0.0, 10.0, PERIOD),
    Range::closed(
        "smoothing.teleport_threshold",
        -1.0,
        1e7,
        "cm; negative disables",
    ),
    Range::closed(
        "world.turret_period_s",
        0.0,
        3600.0,
        "seconds; 0: no turret",
    ),
    Range::closed("world.turret_knockback", 0.0, 1e6, "cm/s"),
    Range::closed("world.spawn_radius", 0.0, 1e6, "cm"),
    Range::closed("link.latency_ms", 0.0, 10_000.0, "one-way milliseconds"),
    Range::closed("link.jitter_ms", 0.0, 10_000.0, "milliseconds"),
    Range::closed("link.loss", 0.0, 1.0, "a probability"),
    Range::closed("link.duplicate", 0.0, 1.0, "a probability"),
    Range::closed("link.burst_enter", 0.0, 1.0, "a probability per packet"),
    Range::closed("link.burst_exit", 0.0, 1.0, "a probability per packet"),
    Range::closed("link.burst_loss_bad", 0.0, 1.0, "a probability"),
    Range::closed("link.burst_loss_good", 0.0, 1.0, "a probability"),
    Range::closed("link.bandwidth_kbps", 0.0, 1e7, "kbit/s; 0: unlimited"),
    Range::closed(
        "link.window.start_s",
        0.0,
        1e6,
        "session seconds an outage or lag spike starts",
    ),
    Range::closed(
        "link.window.duration_s",
        0.0,
        86_400.0,
        "seconds an outage or lag spike lasts",
    ),
    Range::closed("link.lag_spikes.extra_ms", 0.0, 10_000.0, "milliseconds"),
    Range::closed(
        "link.trace_stretch_s",
        0.0,
        1_000_000.0,
        "seconds (0 loops the trace)",
    ),
];

/// The range of `key` (a dotted preset key). Every key the editors and validation use is in
/// the table (tested); an unknown key is a programming error caught by that test.
pub fn of(key: &str) -> &'static Range {
    RANGES
        .iter()
        .find(|r| r.key == key)
        .unwrap_or_else(|| panic!("no range for `{key}` in ranges::RANGES"))
}

/// Checks `v` against `key`'s range, naming `shown_as` (the key as the input spells it, e.g.
/// `link_overrides.2.link.loss`) in the error.
pub fn check_as(key: &str, shown_as: &str, v: f64) -> Result<(), (String, String)> {
    of(key).check(v).map_err(|(_, e)| (shown_as.to_string(), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_bounds_ordered_and_finite() {
        for (i, r) in RANGES.iter().enumerate() {
            assert!(r.min.is_finite() && r.max.is_finite(), "{}", r.key);
            assert!(r.min < r.max, "{}", r.key);
            assert!(
                RANGES[i + 1..].iter().all(|o| o.key != r.key),
                "{} twice",
                r.key
            );
            let inc = r.inclusive();
            assert!(
                r.contains(*inc.start()) && r.contains(*inc.end()),
                "{}",
                r.key
            );
        }
    }

    #[test]
    fn nan_and_infinities_are_refused_everywhere() {
        for r in RANGES {
            for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                assert!(!r.contains(v), "{} accepts {v}", r.key);
            }
        }
    }

    #[test]
    fn zero_switches_off_but_tiny_periods_are_refused() {
        let r = of("input.dash_period_s");
        assert!(r.contains(0.0) && r.contains(2.5));
        assert!(
            !r.contains(1e-20),
            "a period below the minimum never ends a loop"
        );
        assert!(
            r.check(1e-20)
                .unwrap_err()
                .1
                .starts_with("0 (off) or a number in [0.05")
        );
    }

    #[test]
    fn exclusive_ends_are_refused_and_named() {
        let r = of("gmc.world_time_update_interval");
        assert!(!r.contains(0.0));
        assert!(r.contains(0.01));
        let (key, e) = r.check(0.0).unwrap_err();
        assert_eq!(key, "gmc.world_time_update_interval");
        assert!(e.starts_with("a number in (0, 60]"), "{e}");
        assert!(e.ends_with("got 0"), "{e}");
    }
}
