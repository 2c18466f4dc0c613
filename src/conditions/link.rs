//! A seeded network link model for one direction of one client's connection: latency, jitter
//! (uniform, normal, pareto), random and Gilbert–Elliott burst loss, duplication, optional
//! reordering, a bandwidth cap with a queue limit, scripted outages and lag spikes.
//!
//! Sans-IO: `send(now, bytes)` returns the packet's fate. Every packet draws the same number of
//! random numbers whatever the parameters, so the same seed gives the same fates, and changing
//! one parameter changes as little else as possible.

use serde::{Deserialize, Serialize};

use crate::conditions::trace::{Trace, quantile};
use crate::support::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JitterDistribution {
    /// Uniform in ±jitter.
    Uniform,
    /// Normal with standard deviation = jitter.
    Normal,
    /// Non-negative, heavy-tailed (Pareto, shape 3) extra delay whose mean is the jitter.
    Pareto,
}

/// A time window (seconds since the session started).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Window {
    pub start_s: f64,
    pub duration_s: f64,
}

impl Window {
    pub fn contains(&self, t: f64) -> bool {
        t >= self.start_s && t < self.start_s + self.duration_s
    }
}

/// Extra one-way latency during a window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LagSpike {
    pub start_s: f64,
    pub duration_s: f64,
    pub extra_ms: f64,
}

/// Conditions of one direction of a link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LinkParams {
    /// One-way latency (ms).
    pub latency_ms: f64,
    /// Jitter (ms); its meaning depends on the distribution.
    pub jitter_ms: f64,
    pub jitter_distribution: JitterDistribution,
    /// Independent random loss probability (0–1).
    pub loss: f64,
    /// Gilbert–Elliott burst loss: chance per packet to enter the bad state (0 disables).
    pub burst_enter: f64,
    /// Chance per packet to leave the bad state.
    pub burst_exit: f64,
    /// Loss probability in the bad state (netem's 1−h).
    pub burst_loss_bad: f64,
    /// Loss probability in the good state (netem's 1−k).
    pub burst_loss_good: f64,
    /// Probability that a packet is delivered twice.
    pub duplicate: f64,
    /// Allow jitter to reorder packets; when false, delivery is first-in first-out.
    pub reorder: bool,
    /// Bandwidth cap (kbit/s); 0 is unlimited.
    pub bandwidth_kbps: f64,
    /// Packets that may wait for the bandwidth; 0 is unlimited. Beyond it packets are dropped.
    pub queue_limit: usize,
    /// Windows during which every packet is lost.
    pub outages: Vec<Window>,
    /// Windows of extra latency.
    pub lag_spikes: Vec<LagSpike>,
    /// A recorded network trace replayed instead of `latency_ms`, jitter and `loss` (burst
    /// loss, duplication, bandwidth, outages and lag spikes still apply on top): set with
    /// `--set link.trace=FILE` (ping output or CSV; [`crate::conditions::trace`]), kept in the preset.
    pub trace: Option<std::sync::Arc<crate::conditions::trace::Trace>>,
    /// Seconds the trace is stretched (or squeezed) over; 0 loops it.
    pub trace_stretch_s: f64,
}

impl Default for LinkParams {
    fn default() -> Self {
        LinkParams {
            latency_ms: 0.0,
            jitter_ms: 0.0,
            jitter_distribution: JitterDistribution::Uniform,
            loss: 0.0,
            burst_enter: 0.0,
            burst_exit: 0.25,
            burst_loss_bad: 1.0,
            burst_loss_good: 0.0,
            duplicate: 0.0,
            reorder: false,
            bandwidth_kbps: 0.0,
            queue_limit: 0,
            outages: Vec::new(),
            lag_spikes: Vec::new(),
            trace: None,
            trace_stretch_s: 0.0,
        }
    }
}

impl LinkParams {
    /// Checks ranges; returns (field, what was expected) for the first bad value.
    pub fn validate(&self) -> Result<(), (String, String)> {
        // The ranges are listed under `link.` in the one table; errors name the bare field
        // (the preset prefixes it with the link's own path).
        let check =
            |name: &str, v: f64| crate::support::ranges::check_as(&format!("link.{name}"), name, v);
        check("latency_ms", self.latency_ms)?;
        check("jitter_ms", self.jitter_ms)?;
        check("loss", self.loss)?;
        check("burst_enter", self.burst_enter)?;
        check("burst_exit", self.burst_exit)?;
        check("burst_loss_bad", self.burst_loss_bad)?;
        check("burst_loss_good", self.burst_loss_good)?;
        check("duplicate", self.duplicate)?;
        check("bandwidth_kbps", self.bandwidth_kbps)?;
        // A window (an outage, a lag spike) is checked as `link.window`, named by its path.
        let window = |at: &dyn Fn(&str) -> String, start_s: f64, duration_s: f64| {
            crate::support::ranges::check_as("link.window.start_s", &at("start_s"), start_s)?;
            crate::support::ranges::check_as(
                "link.window.duration_s",
                &at("duration_s"),
                duration_s,
            )
        };
        for (i, w) in self.outages.iter().enumerate() {
            window(&|f| format!("outages.{i}.{f}"), w.start_s, w.duration_s)?;
        }
        crate::support::ranges::check_as(
            "link.trace_stretch_s",
            "trace_stretch_s",
            self.trace_stretch_s,
        )?;
        if let Some(t) = &self.trace {
            let bad = t.samples.len() < 2
                || t.samples.len() > crate::conditions::trace::MAX_SAMPLES
                || t.samples.windows(2).any(|w| w[1].0 <= w[0].0)
                || t.samples.iter().all(|s| s.1.is_none())
                || t.samples.iter().any(|(at, r)| {
                    !at.is_finite()
                        || *at < 0.0
                        || r.is_some_and(|r| {
                            !(r.is_finite()
                                && (0.0..=crate::conditions::trace::MAX_RTT_MS).contains(&r))
                        })
                });
            if bad {
                return Err((
                    "trace".into(),
                    "2 or more samples in increasing time, round trips from 0 to 60000 ms, at least one answered".into(),
                ));
            }
        }
        for (i, w) in self.lag_spikes.iter().enumerate() {
            let at = |f: &str| format!("lag_spikes.{i}.{f}");
            window(&at, w.start_s, w.duration_s)?;
            crate::support::ranges::check_as(
                "link.lag_spikes.extra_ms",
                &at("extra_ms"),
                w.extra_ms,
            )?;
        }
        Ok(())
    }
}

/// What happened to one packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fate {
    Dropped(DropReason),
    Delivered(f64),
    /// Delivered twice, at these times.
    Duplicated(f64, f64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    Loss,
    Burst,
    Outage,
    QueueFull,
}

/// The running state of one direction.
#[derive(Clone, Debug)]
pub struct Link {
    params: LinkParams,
    /// The trace ready to replay, when the params have one.
    replay: Option<crate::conditions::trace::Replay>,
    rng: Rng,
    bad_state: bool,
    last_delivery: f64,
    queue_free_at: f64,
    queued: std::collections::VecDeque<f64>,
}

impl Link {
    pub fn new(params: LinkParams, seed: u64) -> Self {
        Link {
            replay: Self::replay_of(&params),
            params,
            rng: Rng::new(seed),
            bad_state: false,
            last_delivery: f64::NEG_INFINITY,
            queue_free_at: f64::NEG_INFINITY,
            queued: std::collections::VecDeque::new(),
        }
    }

    pub fn params(&self) -> &LinkParams {
        &self.params
    }

    /// Changes the conditions from now on; packets already in flight keep their fate.
    pub fn set_params(&mut self, params: LinkParams) {
        if params.trace != self.params.trace
            || params.trace_stretch_s != self.params.trace_stretch_s
        {
            self.replay = Self::replay_of(&params);
        }
        self.params = params;
    }

    fn replay_of(p: &LinkParams) -> Option<crate::conditions::trace::Replay> {
        p.trace
            .as_ref()
            .map(|t| crate::conditions::trace::Replay::new(t, p.trace_stretch_s))
    }

    fn jitter(&self, u1: f64, u2: f64) -> f64 {
        let j = self.params.jitter_ms / 1000.0;
        if j <= 0.0 {
            return 0.0;
        }
        match self.params.jitter_distribution {
            JitterDistribution::Uniform => (2.0 * u1 - 1.0) * j,
            JitterDistribution::Normal => {
                let u1 = u1.max(f64::MIN_POSITIVE);
                j * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
            }
            JitterDistribution::Pareto => {
                const ALPHA: f64 = 3.0;
                let u = (1.0 - u1).max(1e-12);
                j * (ALPHA - 1.0) * (u.powf(-1.0 / ALPHA) - 1.0)
            }
        }
    }

    /// Decides the fate of a packet of `bytes` sent at `now` (seconds, session time).
    pub fn send(&mut self, now: f64, bytes: usize) -> Fate {
        let u: [f64; 8] = std::array::from_fn(|_| self.rng.f64());
        let p = &self.params;

        if p.outages.iter().any(|w| w.contains(now)) {
            return Fate::Dropped(DropReason::Outage);
        }

        // Gilbert–Elliott state advances with every packet.
        if p.burst_enter > 0.0 {
            if self.bad_state {
                if u[0] < p.burst_exit {
                    self.bad_state = false;
                }
            } else if u[0] < p.burst_enter {
                self.bad_state = true;
            }
            let loss = if self.bad_state {
                p.burst_loss_bad
            } else {
                p.burst_loss_good
            };
            if u[1] < loss {
                return Fate::Dropped(DropReason::Burst);
            }
        }
        // A trace replaces the latency, the jitter and the random loss.
        let traced = self.replay.as_ref().map(|r| r.at(now));
        let loss = traced.map_or(p.loss, |(_, q)| q);
        if u[2] < loss {
            return Fate::Dropped(DropReason::Loss);
        }

        let mut depart = now;
        if p.bandwidth_kbps > 0.0 {
            while self.queued.front().is_some_and(|&d| d <= now) {
                self.queued.pop_front();
            }
            if p.queue_limit > 0 && self.queued.len() >= p.queue_limit {
                return Fate::Dropped(DropReason::QueueFull);
            }
            // Serialization delay, counting UDP/IP headers (28 bytes).
            let tx = (bytes + 28) as f64 * 8.0 / (p.bandwidth_kbps * 1000.0);
            depart = self.queue_free_at.max(now) + tx;
            self.queue_free_at = depart;
            self.queued.push_back(depart);
        }

        let spike: f64 = p
            .lag_spikes
            .iter()
            .filter(|s| now >= s.start_s && now < s.start_s + s.duration_s)
            .map(|s| s.extra_ms / 1000.0)
            .sum();
        let (base, jitter) = match traced {
            Some((delay, _)) => (delay + spike, 0.0),
            None => (p.latency_ms / 1000.0 + spike, self.jitter(u[3], u[4])),
        };
        let mut at = depart + (base + jitter).max(0.0);
        if !p.reorder {
            at = at.max(self.last_delivery);
        }
        self.last_delivery = self.last_delivery.max(at);
        if u[5] < p.duplicate {
            let jitter2 = if traced.is_some() {
                0.0
            } else {
                self.jitter(u[6], u[7])
            };
            let mut second = depart + (base + jitter2).max(0.0);
            if !p.reorder {
                second = second.max(self.last_delivery);
            }
            self.last_delivery = self.last_delivery.max(second);
            return Fate::Duplicated(at, second);
        }
        Fate::Delivered(at)
    }
}

impl LinkParams {
    /// A link profile fitted to the trace (for one direction; a round trip is two of them):
    /// latency half the minimum round trip, jitter from the rest — Pareto (mean excess) when
    /// the tail is heavy (p99 excess over 4× the median excess), else Normal (standard
    /// deviation) — and Gilbert–Elliott burst loss from the runs of losses (leaving the bad
    /// state at 1/mean run length, entering it at runs per answered sample, each direction
    /// losing half a round trip's share).
    pub fn fit(trace: &Trace) -> LinkParams {
        let s = trace.stats();
        let mut rtts: Vec<f64> = trace.samples.iter().filter_map(|x| x.1).collect();
        rtts.sort_by(f64::total_cmp);
        let base = s.rtt_min_ms / 2.0;
        let excess: Vec<f64> = rtts.iter().map(|r| r / 2.0 - base).collect();
        let median_ex = quantile(&excess, 0.5);
        let p99_ex = quantile(&excess, 0.99);
        let mean_ex = excess.iter().sum::<f64>() / excess.len().max(1) as f64;
        let heavy = p99_ex > 4.0 * median_ex.max(0.5);
        let (dist, jitter, latency) = if heavy {
            (JitterDistribution::Pareto, mean_ex, base)
        } else {
            let var = excess.iter().map(|e| (e - mean_ex).powi(2)).sum::<f64>()
                / excess.len().max(1) as f64;
            // Normal jitter is centred: the latency is the mean.
            (JitterDistribution::Normal, var.sqrt(), base + mean_ex)
        };
        let answered = (s.samples - (s.loss * s.samples as f64).round() as usize).max(1);
        // A round trip crosses both directions, each with its own bad state: each enters it
        // half as often as the trace's runs of losses begin.
        let (enter, exit) = if s.bursts == 0 {
            (0.0, 0.25)
        } else {
            (
                (s.bursts as f64 / answered as f64 / 2.0).min(1.0),
                (1.0 / s.burst_mean).clamp(0.0, 1.0),
            )
        };
        LinkParams {
            latency_ms: latency.clamp(0.0, 10_000.0),
            jitter_ms: jitter.clamp(0.0, 10_000.0),
            jitter_distribution: dist,
            loss: 0.0,
            burst_enter: enter,
            burst_exit: exit,
            burst_loss_bad: 1.0,
            burst_loss_good: 0.0,
            ..LinkParams::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn run(params: &LinkParams, seed: u64, n: usize) -> Vec<Fate> {
        let mut l = Link::new(params.clone(), seed);
        (0..n).map(|i| l.send(i as f64 * 0.01, 100)).collect()
    }

    #[test]
    fn latency_is_applied_exactly_without_jitter() {
        let p = LinkParams {
            latency_ms: 40.0,
            ..Default::default()
        };
        for (i, f) in run(&p, 1, 100).into_iter().enumerate() {
            assert_eq!(f, Fate::Delivered(i as f64 * 0.01 + 0.04));
        }
    }

    #[test]
    fn loss_rate_matches_the_setting() {
        let p = LinkParams {
            loss: 0.05,
            ..Default::default()
        };
        let fates = run(&p, 2, 100_000);
        let lost = fates
            .iter()
            .filter(|f| matches!(f, Fate::Dropped(_)))
            .count();
        let rate = lost as f64 / fates.len() as f64;
        assert!((rate - 0.05).abs() < 0.003, "{rate}");
    }

    #[test]
    fn burst_loss_comes_in_runs() {
        // Enter 2 %, leave 25 %: mean burst length 4, stationary bad share ≈ 7.4 %.
        let p = LinkParams {
            burst_enter: 0.02,
            burst_exit: 0.25,
            ..Default::default()
        };
        let fates = run(&p, 3, 200_000);
        let lost: Vec<bool> = fates
            .iter()
            .map(|f| matches!(f, Fate::Dropped(_)))
            .collect();
        let rate = lost.iter().filter(|x| **x).count() as f64 / lost.len() as f64;
        let runs = lost.windows(2).filter(|w| w[1] && !w[0]).count();
        let mean_run = lost.iter().filter(|x| **x).count() as f64 / runs as f64;
        assert!((rate - 0.074).abs() < 0.01, "rate {rate}");
        assert!(mean_run > 3.0, "mean burst {mean_run}");
    }

    #[test]
    fn outages_drop_everything_inside_the_window() {
        let p = LinkParams {
            outages: vec![Window {
                start_s: 0.2,
                duration_s: 0.3,
            }],
            ..Default::default()
        };
        for (i, f) in run(&p, 4, 100).into_iter().enumerate() {
            let t = i as f64 * 0.01;
            let inside = (0.2..0.5).contains(&t);
            assert_eq!(
                matches!(f, Fate::Dropped(DropReason::Outage)),
                inside,
                "t={t}"
            );
        }
    }

    #[test]
    fn bandwidth_cap_queues_and_drops_beyond_the_limit() {
        let p = LinkParams {
            bandwidth_kbps: 100.0,
            queue_limit: 5,
            ..Default::default()
        };
        let mut l = Link::new(p, 5);
        // 20 packets of 972 bytes at once: each takes 80 ms at 100 kbit/s.
        let fates: Vec<Fate> = (0..20).map(|_| l.send(0.0, 972)).collect();
        let delivered: Vec<f64> = fates
            .iter()
            .filter_map(|f| match f {
                Fate::Delivered(t) => Some(*t),
                _ => None,
            })
            .collect();
        assert_eq!(delivered.len(), 5);
        assert!((delivered[4] - 0.4).abs() < 1e-9, "{delivered:?}");
        assert!(
            fates[5..]
                .iter()
                .all(|f| *f == Fate::Dropped(DropReason::QueueFull))
        );
    }

    #[test]
    fn lag_spike_adds_latency_in_its_window() {
        let p = LinkParams {
            latency_ms: 10.0,
            lag_spikes: vec![LagSpike {
                start_s: 1.0,
                duration_s: 0.5,
                extra_ms: 200.0,
            }],
            reorder: true,
            ..Default::default()
        };
        let mut l = Link::new(p, 6);
        assert_eq!(l.send(0.5, 10), Fate::Delivered(0.51));
        assert_eq!(l.send(1.2, 10), Fate::Delivered(1.2 + 0.21));
    }

    proptest! {
        #[test]
        fn same_seed_same_fates_and_fifo_without_reorder(
            seed in any::<u64>(),
            latency in 0.0f64..200.0,
            jitter in 0.0f64..100.0,
            loss in 0.0f64..0.5,
            dup in 0.0f64..0.5,
            dist in 0usize..3,
        ) {
            let p = LinkParams {
                latency_ms: latency,
                jitter_ms: jitter,
                jitter_distribution: [JitterDistribution::Uniform, JitterDistribution::Normal, JitterDistribution::Pareto][dist],
                loss,
                duplicate: dup,
                ..Default::default()
            };
            let a = run(&p, seed, 300);
            prop_assert_eq!(&a, &run(&p, seed, 300));
            let mut last = f64::NEG_INFINITY;
            for (i, f) in a.iter().enumerate() {
                let sent = i as f64 * 0.01;
                let times: Vec<f64> = match f {
                    Fate::Delivered(t) => vec![*t],
                    Fate::Duplicated(t, u) => vec![*t, *u],
                    Fate::Dropped(_) => vec![],
                };
                for t in times {
                    prop_assert!(t >= sent, "delivered before it was sent");
                    prop_assert!(t >= last, "reordered although reorder is off");
                    last = t;
                }
            }
        }
    }
}
