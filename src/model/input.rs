//! Seeded input scripts: the "players" (and AI controllers) that drive pawns, so that every
//! session is reproducible. A script is a pure function of its seed and the times it is
//! sampled at.

use glam::DVec2;
use serde::{Deserialize, Serialize};

use crate::support::rng::Rng;

/// Raw input for one frame, before it is written into the bound input members.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RawInput {
    /// Move direction; digital (8 directions or none) for the shipped scripts.
    pub dir: DVec2,
    /// The dash key is down this frame.
    pub dash: bool,
    /// Keys down this frame ([`InputKey::bit`](crate::model::binding::InputKey::bit)), for
    /// the inputs of an imported layout.
    pub keys: u16,
    /// The frame comes from the keyboard: imported inputs bound to a key follow `keys`
    /// instead of their input-script period.
    pub from_keys: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WalkPattern {
    /// A new direction (one of eight, or a stop) after every segment; drifts back towards
    /// the spawn point.
    RandomWalk,
    /// Steps through the eight directions in order: a rough circle.
    Circle,
    /// Alternates between north-east and south-east.
    Zigzag,
    /// Never moves (dashes still fire if enabled).
    Idle,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InputScriptConfig {
    pub pattern: WalkPattern,
    /// Shortest and longest segment (s) before the direction changes.
    pub segment_min_s: f64,
    pub segment_max_s: f64,
    /// Chance that a random-walk segment is a stop.
    pub stop_chance: f64,
    /// Seconds between dash presses (each held for exactly one frame); 0 never dashes.
    pub dash_period_s: f64,
}

impl Default for InputScriptConfig {
    fn default() -> Self {
        InputScriptConfig {
            pattern: WalkPattern::RandomWalk,
            segment_min_s: 0.4,
            segment_max_s: 1.6,
            stop_chance: 0.15,
            dash_period_s: 2.5,
        }
    }
}

const DIRS: [(f64, f64); 8] = [
    (1.0, 0.0),
    (1.0, 1.0),
    (0.0, 1.0),
    (-1.0, 1.0),
    (-1.0, 0.0),
    (-1.0, -1.0),
    (0.0, -1.0),
    (1.0, -1.0),
];

fn dir(i: usize) -> DVec2 {
    let (x, y) = DIRS[i % 8];
    DVec2::new(x, y).normalize()
}

/// A running script.
#[derive(Clone, Debug)]
pub struct InputScript {
    cfg: InputScriptConfig,
    rng: Rng,
    dir: DVec2,
    step: usize,
    next_change: f64,
    next_dash: f64,
    last_t: f64,
    /// Where the script believes it is (dead-reckoned from its own inputs), to steer back.
    est_pos: DVec2,
}

impl InputScript {
    pub fn new(cfg: InputScriptConfig, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let first_dash = if cfg.dash_period_s > 0.0 {
            rng.range(0.3, 0.3 + cfg.dash_period_s)
        } else {
            f64::INFINITY
        };
        let step = rng.below(8) as usize;
        InputScript {
            cfg,
            rng,
            dir: DVec2::ZERO,
            step,
            next_change: 0.0,
            next_dash: first_dash,
            last_t: 0.0,
            est_pos: DVec2::ZERO,
        }
    }

    /// Input for the frame at local time `t` (non-decreasing between calls).
    pub fn sample(&mut self, t: f64) -> RawInput {
        self.est_pos += self.dir * (t - self.last_t).max(0.0);
        self.last_t = t;
        while t >= self.next_change {
            let seg = self.rng.range(
                self.cfg.segment_min_s,
                self.cfg.segment_max_s.max(self.cfg.segment_min_s),
            );
            self.next_change += seg.max(0.05);
            self.dir = match self.cfg.pattern {
                WalkPattern::Idle => DVec2::ZERO,
                WalkPattern::Circle => {
                    self.step += 1;
                    dir(self.step)
                }
                WalkPattern::Zigzag => {
                    self.step += 1;
                    if self.step.is_multiple_of(2) {
                        dir(1)
                    } else {
                        dir(7)
                    }
                }
                WalkPattern::RandomWalk => {
                    let stop = self.rng.chance(self.cfg.stop_chance);
                    let pick = self.rng.below(8) as usize;
                    if stop {
                        DVec2::ZERO
                    } else if self.est_pos.length() > 2.0 {
                        // Head roughly home: the direction closest to -est_pos.
                        let home = -self.est_pos;
                        let best = (0..8)
                            .max_by(|a, b| dir(*a).dot(home).total_cmp(&dir(*b).dot(home)))
                            .unwrap_or(pick);
                        dir(best)
                    } else {
                        dir(pick)
                    }
                }
            };
        }
        let dash = t >= self.next_dash;
        if dash {
            while self.next_dash <= t {
                self.next_dash += self.cfg.dash_period_s;
            }
        }
        RawInput {
            dir: self.dir,
            dash,
            ..RawInput::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_reproducible_and_dash_is_a_one_frame_pulse() {
        let cfg = InputScriptConfig::default();
        let mut a = InputScript::new(cfg.clone(), 9);
        let mut b = InputScript::new(cfg.clone(), 9);
        let mut presses = 0;
        let mut prev = false;
        for k in 0..(120 * 20) {
            let t = k as f64 / 120.0;
            let ia = a.sample(t);
            assert_eq!(ia, b.sample(t));
            assert!(!(prev && ia.dash), "dash held for more than one frame");
            presses += usize::from(ia.dash);
            prev = ia.dash;
        }
        // 20 s at one press per 2.5 s.
        assert!((7..=9).contains(&presses), "{presses}");
    }

    #[test]
    fn random_walk_stays_near_home() {
        let mut s = InputScript::new(InputScriptConfig::default(), 3);
        let mut pos = DVec2::ZERO;
        let mut far = 0.0f64;
        for k in 0..(60 * 120) {
            let i = s.sample(k as f64 / 60.0);
            pos += i.dir / 60.0;
            far = far.max(pos.length());
        }
        assert!(far < 8.0, "drifted {far}");
    }
}
