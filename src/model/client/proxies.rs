//! The other pawns as the client shows them: simulated proxies smoothed from the buffered
//! states each frame (with the steady-frame shortcut), the buffer trace, and the world-view
//! samples.

use super::{BUFFER_TRACE_DELAY_STEP, Client, SteadyFrame};
use crate::model::cycle::emit_one_shots;
use crate::model::pawn::Execution;
use crate::model::proxy::{Proxy, SimulationCtx};
use crate::model::telemetry::{DisplayMode, Event, Hook, NetContext, PawnSample, SampleKind};

impl Client {
    /// Simulated proxies: buffer → display, then GenSimulationTick (cosmetics).
    pub(super) fn update_proxies(&mut self, now: f64, dt: f64) {
        let server_now = self.synced_time(now);
        let latency = self.rtt.unwrap_or(0.0) / 2.0;
        let b = &**self.layouts.current_bindings();
        let cfg = self.cfg.smoothing;
        let pause = self.cfg.gmc.post_spawn_smoothing_pause;
        let mut acc = crate::model::proxy::FrameAcc::default();
        let mut count = 0usize;
        // Sum of the delays of proxies not paused (from the first, not from 0).
        let mut view_sum: Option<f64> = None;
        let mut effects: Vec<u16> = Vec::new();
        let own = if self.cfg.gmc.use_client_prediction {
            None
        } else {
            self.own_proxy.as_mut()
        };
        let forward = cfg.mode.simulates();
        // Proxies may take the quick update when nothing they were updated with changed.
        let same_settings = self.proxy_settings == Some((cfg, pause));
        self.proxy_settings = Some((cfg, pause));
        // A steady frame: every proxy would take the quick update and give what it gave last
        // frame (no state arrived, no proxy came or went, same settings and latency, the
        // display time moved forward but passed no buffered state and no re-sync is due).
        // Then only the display times move, and the frame's figures are the last frame's.
        let steady = match self.steady.as_mut() {
            Some(s)
                if same_settings
                    && own.is_none()
                    && s.set_version == self.proxy_set_version
                    && s.latency == latency
                    && server_now >= s.server_now
                    && server_now < s.server_until
                    && now < s.now_until
                    && self.proxies.values().all(|p| !p.has_new_state()) =>
            {
                s.server_now = server_now;
                Some(*s)
            }
            _ => None,
        };
        if let Some(s) = steady {
            for p in self.proxies.values_mut() {
                p.steady_frame(now, server_now);
            }
            self.display_stats.add_repeated(s.team_unknown, s.delay_max);
            acc = s.acc;
            count = s.count;
            view_sum = s.view_sum;
        }
        // Whether this frame's figures can stand for the next frames (all quick updates).
        let mut all_quick = !forward;
        let mut team_unknown = 0u32;
        let mut delay_max = f64::NAN;
        let mut server_until = f64::INFINITY;
        let mut now_until = f64::INFINITY;
        let proxies = if steady.is_some() {
            None
        } else {
            Some(self.proxies.values_mut().chain(own))
        };
        for p in proxies.into_iter().flatten() {
            // Each simulated execution reports only what it raised itself (not what the live
            // move or the previous proxy left in the buffer).
            self.tick_out.clear();
            let sim = forward.then_some(SimulationCtx {
                gmc: &self.cfg.gmc,
                faults: &self.cfg.faults,
                out: &mut self.tick_out,
            });
            let quick = if same_settings {
                p.update_quick(now, server_now, latency, &cfg, pause)
            } else {
                None
            };
            let f = match quick {
                Some(f) => {
                    let (server, local) = p.steady_until();
                    server_until = server_until.min(server);
                    now_until = now_until.min(local);
                    f
                }
                None => {
                    all_quick = false;
                    p.update(now, server_now, latency, &cfg, pause, b, &mut self.rng, sim)
                }
            };
            if f.team == 0 {
                team_unknown += 1;
            }
            delay_max = delay_max.max(f.delay);
            if forward {
                // Simulated executions (IsSimulatedMove): guarded side effects stay silent.
                emit_one_shots(
                    &mut self.telemetry,
                    now,
                    p.pawn,
                    p.owner,
                    Execution::Simulated,
                    &self.tick_out,
                );
                self.tick_out.clear();
            }
            // The buffer trace: how the proxy is displayed, when that changes (a re-sync, the
            // buffer running dry or refilling, the spawn pause ending). Steady frames change
            // nothing, so skipping them misses nothing.
            if self.buffer_trace && p.owner != Some(self.cfg.id) {
                let mode = if f.paused || f.delay.is_nan() {
                    DisplayMode::Waiting
                } else if f.extrapolating {
                    DisplayMode::Extrapolating
                } else {
                    DisplayMode::Interpolating
                };
                let changed = p.traced.is_none_or(|(d, m)| {
                    m != mode || (d - f.delay).abs() > BUFFER_TRACE_DELAY_STEP
                });
                if changed {
                    p.traced = Some((f.delay, mode));
                    self.telemetry.push((
                        now,
                        Event::ProxyDisplay {
                            pawn: p.pawn,
                            delay: f.delay,
                            mode,
                        },
                    ));
                }
            }
            self.display_stats.add(&mut acc, &f, dt);
            count += 1;
            if !f.paused {
                view_sum = Some(view_sum.map_or(f.delay, |s| s + f.delay));
            }
            // GenSimulationTick: react to bound values that changed (cosmetics only).
            if !f.paused {
                let last = p.last_effect_count.replace(f.dash_count);
                if last.is_some_and(|l| l != f.dash_count) {
                    effects.push(p.pawn);
                }
            }
        }
        if steady.is_none() {
            self.steady = all_quick.then_some(SteadyFrame {
                set_version: self.proxy_set_version,
                latency,
                server_now,
                server_until,
                now_until,
                acc,
                count,
                view_sum,
                team_unknown,
                delay_max,
            });
        }
        if self.hook_trace {
            // Every smoothed pawn that had a state applied this frame (not those inside
            // PostSpawnSmoothingPause): the proxies, and the own pawn without prediction.
            let own = if self.cfg.gmc.use_client_prediction {
                None
            } else {
                self.own_proxy.as_ref()
            };
            let pawns: Vec<(u16, bool)> = self
                .proxies
                .values()
                .chain(own)
                .map(|p| (p.pawn, p.applies_state()))
                .collect();
            for (pawn, applied) in pawns {
                if applied {
                    self.telemetry.push((
                        now,
                        Event::hook(
                            Hook::OnSyncDataApplied,
                            pawn,
                            0,
                            0,
                            None,
                            Some(NetContext::RemoteClientPawn_Simulation),
                        ),
                    ));
                }
                // GenSimulationTick runs every frame, also inside the spawn pause.
                self.telemetry.push((
                    now,
                    Event::hook(Hook::GenSimulationTick, pawn, 0, 0, None, None),
                ));
            }
        }
        for pawn in effects {
            self.telemetry.push((now, Event::ProxyEffect { pawn }));
        }
        if count > 0 {
            self.display_stats.end_frame(&acc, count);
        }
        if let Some(d) = view_sum {
            self.view_delay = d / f64::from(acc.live);
        }
        if let Some(e) = self.display_stats.take(now) {
            self.telemetry.push((now, e));
        }
    }

    /// World-view samples: the predicted own pawn and every displayed proxy.
    pub(super) fn sample_pawns(&mut self, now: f64) {
        let rate = self.cfg.world_view_rate;
        if rate <= 0.0 || now < self.next_sample {
            return;
        }
        self.next_sample = now + 1.0 / rate;
        let b = self.layouts.current_bindings();
        let shown;
        let own = match (&self.own_proxy, self.cfg.gmc.use_client_prediction) {
            (Some(p), false) => {
                shown = p.display_pose(b);
                &shown
            }
            _ => &self.values,
        };
        self.telemetry.push((
            now,
            PawnSample::event(self.pawn, Some(self.cfg.id), SampleKind::Predicted, own),
        ));
        for p in self.proxies.values() {
            let v = p.display_pose(b);
            self.telemetry.push((
                now,
                PawnSample::event(p.pawn, p.owner, SampleKind::Displayed, &v),
            ));
        }
    }

    /// Displayed locations of the other pawns (what this machine shows).
    pub fn proxy_locations(&self) -> Vec<glam::DVec3> {
        let b = self.layouts.current_bindings();
        self.proxies
            .values()
            .map(|p| p.display(b).location)
            .collect()
    }

    /// The simulated proxies this client shows.
    pub fn proxies(&self) -> impl Iterator<Item = &Proxy> {
        self.proxies.values()
    }
}
