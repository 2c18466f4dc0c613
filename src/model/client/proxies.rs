//! The other pawns as the client shows them: simulated proxies smoothed from the buffered
//! states each frame (with the steady-frame shortcut), the buffer trace, and the world-view
//! samples.

use super::{BUFFER_TRACE_DELAY_STEP, Client, SteadyFrame};
use crate::model::cycle::emit_one_shots;
use crate::model::pawn::Execution;
use crate::model::proxy::{FrameAcc, Proxy, ProxyFrame, SimulationCtx};
use crate::model::telemetry::{DisplayMode, Event, Hook, NetContext, PawnSample, SampleKind};

impl Client {
    /// Simulated proxies: buffer → display, then GenSimulationTick (cosmetics).
    pub(super) fn update_proxies(&mut self, now: f64, dt: f64) {
        let server_now = self.synced_time(now);
        let latency = self.rtt.unwrap_or(0.0) / 2.0;
        let cfg = self.cfg.smoothing;
        let pause = self.cfg.gmc.post_spawn_smoothing_pause;
        let mut effects: Vec<u16> = Vec::new();
        // Proxies may take the quick update when nothing they were updated with changed.
        let same_settings = self.proxy_settings == Some((cfg, pause));
        self.proxy_settings = Some((cfg, pause));
        let frame = match self.repeat_steady_frame(now, server_now, latency, same_settings) {
            Some(s) => s,
            None => {
                let (frame, all_quick) = self.smooth_every_proxy(
                    now,
                    server_now,
                    latency,
                    dt,
                    same_settings,
                    &mut effects,
                );
                self.steady = all_quick.then_some(frame);
                frame
            }
        };
        if self.hook_trace {
            self.trace_proxy_hooks(now);
        }
        for pawn in effects {
            self.telemetry.push((now, Event::ProxyEffect { pawn }));
        }
        if frame.count > 0 {
            self.display_stats.end_frame(&frame.acc, frame.count);
        }
        if let Some(d) = frame.view_sum {
            self.view_delay = d / f64::from(frame.acc.live);
        }
        if let Some(e) = self.display_stats.take(now) {
            self.telemetry.push((now, e));
        }
    }

    /// Whether this frame is steady: every proxy would take the quick update and give what it
    /// gave last frame (no state arrived, no proxy came or went, same settings and latency, the
    /// display time moved forward but passed no buffered state and no re-sync is due). Then
    /// only the display times move, and the frame's figures are the last frame's.
    fn repeat_steady_frame(
        &mut self,
        now: f64,
        server_now: f64,
        latency: f64,
        same_settings: bool,
    ) -> Option<SteadyFrame> {
        let own_shown = !self.cfg.gmc.use_client_prediction && self.own_proxy.is_some();
        let s = match self.steady.as_mut() {
            Some(s)
                if same_settings
                    && !own_shown
                    && s.set_version == self.proxy_set_version
                    && s.latency == latency
                    && server_now >= s.server_now
                    && server_now < s.server_until
                    && now < s.now_until
                    && self.proxies.values().all(|p| !p.has_new_state()) =>
            {
                s.server_now = server_now;
                *s
            }
            _ => return None,
        };
        for p in self.proxies.values_mut() {
            p.steady_frame(now, server_now);
        }
        self.display_stats.add_repeated(s.team_unknown, s.delay_max);
        Some(s)
    }

    /// Updates every proxy (and the own pawn shown from server states without prediction):
    /// the quick update when it holds, else the full one (simulated forward when the smoothing
    /// mode simulates). Gives the frame's figures and whether they can stand for the next
    /// frames (all quick updates); the pawns whose effects fire go to `effects`.
    fn smooth_every_proxy(
        &mut self,
        now: f64,
        server_now: f64,
        latency: f64,
        dt: f64,
        same_settings: bool,
        effects: &mut Vec<u16>,
    ) -> (SteadyFrame, bool) {
        let b = &**self.layouts.current_bindings();
        let cfg = self.cfg.smoothing;
        let pause = self.cfg.gmc.post_spawn_smoothing_pause;
        let forward = cfg.mode.simulates();
        let own = if self.cfg.gmc.use_client_prediction {
            None
        } else {
            self.own_proxy.as_mut()
        };
        let mut frame = SteadyFrame::start(self.proxy_set_version, latency, server_now);
        let mut all_quick = !forward;
        for p in self.proxies.values_mut().chain(own) {
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
                    frame.steady_until(p.steady_until());
                    f
                }
                None => {
                    all_quick = false;
                    p.update(now, server_now, latency, &cfg, pause, b, &mut self.rng, sim)
                }
            };
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
            // Steady frames change nothing, so tracing only here misses nothing.
            if self.buffer_trace && p.owner != Some(self.cfg.id) {
                trace_display(&mut self.telemetry, now, p, &f);
            }
            self.display_stats.add(&mut frame.acc, &f, dt);
            frame.count_proxy(&f);
            // GenSimulationTick: react to bound values that changed (cosmetics only).
            if !f.paused {
                let last = p.last_effect_count.replace(f.dash_count);
                if last.is_some_and(|l| l != f.dash_count) {
                    effects.push(p.pawn);
                }
            }
        }
        (frame, all_quick)
    }

    /// The hook trace of the proxy update: OnSyncDataApplied for every smoothed pawn that had a
    /// state applied this frame (not those inside PostSpawnSmoothingPause), GenSimulationTick
    /// for every one: the proxies, and the own pawn without prediction.
    fn trace_proxy_hooks(&mut self, now: f64) {
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

/// The buffer trace: reports how the proxy is displayed when that changed (a re-sync, the
/// buffer running dry or refilling, the spawn pause ending).
fn trace_display(telemetry: &mut Vec<(f64, Event)>, now: f64, p: &mut Proxy, f: &ProxyFrame) {
    let mode = if f.paused || f.delay.is_nan() {
        DisplayMode::Waiting
    } else if f.extrapolating {
        DisplayMode::Extrapolating
    } else {
        DisplayMode::Interpolating
    };
    let changed = p
        .traced
        .is_none_or(|(d, m)| m != mode || (d - f.delay).abs() > BUFFER_TRACE_DELAY_STEP);
    if changed {
        p.traced = Some((f.delay, mode));
        telemetry.push((
            now,
            Event::ProxyDisplay {
                pawn: p.pawn,
                delay: f.delay,
                mode,
            },
        ));
    }
}

impl SteadyFrame {
    /// A frame's figures before any proxy is counted.
    fn start(set_version: u64, latency: f64, server_now: f64) -> Self {
        SteadyFrame {
            set_version,
            latency,
            server_now,
            server_until: f64::INFINITY,
            now_until: f64::INFINITY,
            acc: FrameAcc::default(),
            count: 0,
            view_sum: None,
            team_unknown: 0,
            delay_max: f64::NAN,
        }
    }

    /// Narrows the steady span to a quick-updated proxy's (server time, local time) limits.
    fn steady_until(&mut self, (server, local): (f64, f64)) {
        self.server_until = self.server_until.min(server);
        self.now_until = self.now_until.min(local);
    }

    /// Counts one updated proxy: its team when unknown, its delay (the largest, and the sum
    /// of the delays of proxies not paused, from the first, not from 0).
    fn count_proxy(&mut self, f: &ProxyFrame) {
        if f.team == 0 {
            self.team_unknown += 1;
        }
        self.delay_max = self.delay_max.max(f.delay);
        self.count += 1;
        if !f.paused {
            self.view_sum = Some(self.view_sum.map_or(f.delay, |s| s + f.delay));
        }
    }
}
