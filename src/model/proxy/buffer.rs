//! One simulated proxy ([`Proxy`]): its buffer of server states, the display time it
//! decides each frame (adaptive or fixed delay, match-latest, forward or local simulation),
//! extrapolation when the buffer runs dry, recovery and the teleport threshold, and the
//! displayed state computed on demand.

use std::collections::VecDeque;

use super::display::ProxyFrame;
use super::interpolate::interpolate_field;
use crate::model::binding::{Bindings, Field, FieldMask};
use crate::model::messages::SpawnData;
use crate::model::pawn::{Execution, PawnValues, TickCtx, TickOutput, gen_prediction_tick};
use crate::model::settings::{
    ExtrapolationMode, Faults, GmcSettings, SmoothingMode, SmoothingSettings,
};
use crate::support::rng::Rng;

/// States kept per proxy.
const BUFFER_LEN: usize = 64;

/// How the displayed state is obtained (computed on demand).
#[derive(Clone, Debug, PartialEq)]
enum View {
    /// PostSpawnSmoothingPause: actor-property spawn data only.
    Paused,
    /// Computed this frame (MatchLatest, ForwardSimulation).
    Eager(PawnValues),
    /// Interpolated at this server time.
    At { at: f64 },
    /// Extrapolated to this server time from the newest state of that moment.
    Extrapolated {
        at: f64,
        base_t: f64,
        base: PawnValues,
    },
}

/// The smoothing settings `display` needs.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Look {
    extrapolation: ExtrapolationMode,
    max_extrapolation: f64,
    recovery_time: f64,
}

impl From<&SmoothingSettings> for Look {
    fn from(c: &SmoothingSettings) -> Self {
        Look {
            extrapolation: c.extrapolation,
            max_extrapolation: c.max_extrapolation_time,
            recovery_time: c.extrapolation_recovery_time,
        }
    }
}

/// Everything a forward-simulating proxy needs to run the tick.
pub struct SimulationCtx<'a> {
    pub gmc: &'a GmcSettings,
    pub faults: &'a Faults,
    pub out: &'a mut TickOutput,
}

#[derive(Clone, Debug)]
pub struct Proxy {
    pub pawn: u16,
    pub owner: Option<u16>,
    spawned_at: f64,
    /// What actor replication brought when the proxy was spawned.
    actor: SpawnData,
    states: VecDeque<(f64, PawnValues)>,
    view: View,
    look: Look,
    last_now: f64,
    /// Index of the newest state the display time has passed.
    cursor: usize,
    /// `discrete()` of the last display time, still the answer while the display time stays
    /// in `[disc_from, disc_until)` (`disc_until`: the time of the next state with other
    /// discrete values) and `disc_valid`.
    disc: (u8, u8),
    disc_from: f64,
    disc_until: f64,
    disc_valid: bool,
    applied_delay: Option<f64>,
    next_resync: f64,
    last_arrival: Option<f64>,
    interval_ewma: f64,
    jitter_ewma: f64,
    recovery: Option<(f64, PawnValues)>,
    /// The last [`Proxy::update`] left nothing that would make the next frame differ from it
    /// except the display time (see [`Proxy::update_quick`]); with the delay and latency it
    /// used.
    quick: bool,
    quick_delay: f64,
    quick_latency: f64,
    quick_newest: f64,
    /// A state arrived since the last update (the arrival estimates changed).
    quick_stale: bool,
    /// GenSimulationTick's unbound copy of the last `dash_count` it reacted to.
    pub last_effect_count: Option<u8>,
    /// LocalSimulation: the local copy's (server time, values) and the newest received
    /// state's time it started from.
    local: Option<(f64, PawnValues, f64)>,
    /// The buffer trace: the display delay and mode last reported.
    pub traced: Option<(f64, crate::model::telemetry::DisplayMode)>,
}

impl Proxy {
    /// A proxy that came into existence at local time `now`, where actor replication spawned
    /// it (`actor`: its transform then and its actor properties).
    pub fn new(pawn: u16, owner: Option<u16>, now: f64, actor: SpawnData) -> Self {
        Proxy {
            pawn,
            owner,
            spawned_at: now,
            actor,
            // One more than kept: a staged state is appended before the oldest goes.
            states: VecDeque::with_capacity(BUFFER_LEN + 1),
            view: View::Paused,
            look: Look::from(&SmoothingSettings::default()),
            last_now: now,
            cursor: 0,
            disc: (0, 0),
            disc_from: 0.0,
            disc_until: 0.0,
            disc_valid: false,
            applied_delay: None,
            next_resync: now,
            last_arrival: None,
            interval_ewma: 0.0,
            jitter_ewma: 0.0,
            recovery: None,
            quick: false,
            quick_delay: 0.0,
            quick_latency: 0.0,
            quick_newest: 0.0,
            quick_stale: false,
            last_effect_count: None,
            local: None,
            traced: None,
        }
    }

    /// Buffers a state stamped with server time `server_time`, received at local `now`.
    /// Only the `mask` fields are taken from `values`; the rest keep the previous state's.
    pub fn receive(&mut self, now: f64, server_time: f64, values: &PawnValues, mask: FieldMask) {
        self.arrived(now);
        // States nearly always arrive in order: the newest is the base, and it is appended.
        if let Some((newest_t, newest)) = self.states.back()
            && *newest_t < server_time
        {
            let mut state = newest.clone();
            state.copy_fields(values, mask);
            self.states.push_back((server_time, state));
            self.appended();
            return;
        }
        self.disc_valid = false;
        let mut state = self
            .states
            .iter()
            .rev()
            .find(|(t, _)| *t <= server_time)
            .map_or_else(PawnValues::default, |(_, v)| v.clone());
        state.copy_fields(values, mask);
        // Keep the buffer ordered by server time; a duplicate time replaces the older copy.
        // States nearly always arrive in order: append without searching.
        if self.states.back().is_none_or(|(t, _)| *t < server_time) {
            self.states.push_back((server_time, state));
        } else {
            let pos = self.states.partition_point(|(t, _)| *t < server_time);
            if self.states.get(pos).is_some_and(|(t, _)| *t == server_time) {
                self.states[pos].1 = state;
            } else {
                self.states.insert(pos, (server_time, state));
                if pos <= self.cursor {
                    self.cursor += 1;
                }
            }
        }
        while self.states.len() > BUFFER_LEN {
            self.states.pop_front();
            self.cursor = self.cursor.saturating_sub(1);
        }
    }

    /// A state arrived at local `now`: the arrival estimates follow.
    #[inline]
    fn arrived(&mut self, now: f64) {
        if let Some(prev) = self.last_arrival {
            let interval = now - prev;
            if interval > 0.0 {
                let dev = (interval - self.interval_ewma).abs();
                self.interval_ewma += 0.1 * (interval - self.interval_ewma);
                self.jitter_ewma += 0.1 * (dev - self.jitter_ewma);
            }
        }
        self.last_arrival = Some(now);
        // The quick update must first check the new target delay and the newest state.
        self.quick_stale = true;
    }

    /// A state newer than every other was just appended: the oldest goes if the buffer is
    /// over full, and the discrete-value cache learns of it.
    #[inline]
    fn appended(&mut self) {
        let cursor = self.cursor;
        let dropped = self.states.len() > BUFFER_LEN;
        if dropped {
            self.states.pop_front();
            self.cursor = self.cursor.saturating_sub(1);
        }
        let Some((server_time, state)) = self.states.back().cloned() else {
            return;
        };
        // The discrete values stay those of the cursor's state unless it was dropped;
        // if no later state had other discrete values and this one has, they change when
        // the display time passes it.
        if dropped && cursor == 0 {
            self.disc_valid = false;
        } else if self.disc_until == f64::INFINITY && (state.dash_count, state.team) != self.disc {
            self.disc_until = server_time;
        }
    }

    /// The first half of [`Proxy::receive`] for a state decoded in place: when a state
    /// stamped `server_time` would be appended (it is newer than the newest), a copy of the
    /// newest is appended with that time and handed out to be overwritten with the state's
    /// simulated members, as `receive` would copy them. Then [`Proxy::commit_staged`] (what
    /// `receive` does next) or [`Proxy::unstage`] (nothing happened). `None` (nothing
    /// appended) when `receive` would take its other path.
    #[inline]
    pub fn stage(&mut self, server_time: f64) -> Option<&mut PawnValues> {
        let (newest_t, newest) = self.states.back().cloned()?;
        if newest_t < server_time {
            self.states.push_back((server_time, newest));
            self.states.back_mut().map(|(_, v)| v)
        } else {
            None
        }
    }

    /// Completes [`Proxy::stage`]: the staged state received at local `now`. The proxy is then
    /// as if `receive` had been called with the state.
    #[inline]
    pub fn commit_staged(&mut self, now: f64) {
        self.arrived(now);
        self.appended();
    }

    /// Undoes [`Proxy::stage`].
    #[inline]
    pub fn unstage(&mut self) {
        self.states.pop_back();
    }

    /// The newest buffered state's server time.
    pub fn newest_time(&self) -> Option<f64> {
        self.states.back().map(|(t, _)| *t)
    }

    pub fn newest(&self) -> Option<&PawnValues> {
        self.states.back().map(|(_, v)| v)
    }

    /// The buffered states (server time, values), oldest first.
    pub fn states(&self) -> impl Iterator<Item = &(f64, PawnValues)> {
        self.states.iter()
    }

    /// The total delay adaptive smoothing aims for now.
    #[inline]
    pub fn target_delay(&self, latency: f64, cfg: &SmoothingSettings) -> f64 {
        let dynamic = self.interval_ewma + 4.0 * self.jitter_ewma;
        let buffer = cfg.buffer_time.max(dynamic).clamp(
            cfg.min_buffer_time,
            cfg.max_buffer_time.max(cfg.min_buffer_time),
        );
        (latency + buffer).clamp(cfg.min_delay, cfg.max_delay.max(cfg.min_delay))
    }

    /// Advances the proxy to local time `now`, given this machine's server-time and latency
    /// estimates: decides the display time (the delay), whether the proxy extrapolates, and
    /// the discrete values GenSimulationTick reacts to. The full displayed state is computed
    /// on demand by [`Proxy::display`] (most frames nobody reads it).
    #[allow(clippy::too_many_arguments)]
    pub fn update(
        &mut self,
        now: f64,
        server_now: f64,
        latency: f64,
        cfg: &SmoothingSettings,
        post_spawn_pause: f64,
        bindings: &Bindings,
        rng: &mut Rng,
        sim: Option<SimulationCtx>,
    ) -> ProxyFrame {
        self.last_now = now;
        self.look = Look::from(cfg);
        if now - self.spawned_at < post_spawn_pause || self.states.is_empty() {
            // Nothing replicated applied yet: only actor-property spawn data.
            self.view = View::Paused;
            self.quick = false;
            return ProxyFrame {
                paused: now - self.spawned_at < post_spawn_pause,
                team: self.actor.team,
                ..Default::default()
            };
        }
        let newest_t = self.states.back().map_or(0.0, |(t, _)| *t);
        // Whether the delay stays the same while latency and buffered states do.
        let mut steady_delay = cfg.mode == SmoothingMode::FixedDelayInterpolation;
        let delay = match cfg.mode {
            SmoothingMode::AdaptiveBufferedInterpolation => {
                let target = self.target_delay(latency, cfg);
                let resync = match self.applied_delay {
                    None => true,
                    Some(a) => now >= self.next_resync || (target - a).abs() > cfg.resync_tolerance,
                };
                if resync {
                    self.applied_delay = Some(target);
                    self.next_resync =
                        now + cfg.resync_interval + cfg.resync_spread * (2.0 * rng.f64() - 1.0);
                }
                // Until the next periodic re-sync, the same target decides the same way.
                steady_delay = self
                    .applied_delay
                    .is_some_and(|a| (target - a).abs() <= cfg.resync_tolerance);
                self.applied_delay.unwrap_or(target)
            }
            SmoothingMode::FixedDelayInterpolation => cfg.fixed_delay,
            SmoothingMode::MatchLatest => (server_now - newest_t).max(0.0),
            SmoothingMode::ForwardSimulation | SmoothingMode::LocalSimulation => 0.0,
        };
        let at = server_now - delay;
        let mut frame = ProxyFrame {
            delay,
            ..Default::default()
        };
        let was_extrapolating = matches!(self.view, View::Extrapolated { .. });
        let newest = |s: &Self| {
            s.states
                .back()
                .map_or_else(PawnValues::default, |(_, v)| v.clone())
        };
        // The view is changed in place; `previous` is the view extrapolation ended with.
        let previous = match cfg.mode {
            SmoothingMode::MatchLatest
            | SmoothingMode::ForwardSimulation
            | SmoothingMode::LocalSimulation => {
                let v = match (cfg.mode, sim) {
                    (SmoothingMode::ForwardSimulation, Some(ctx)) => {
                        forward_simulate(&newest(self), (at - newest_t).clamp(0.0, 0.5), at, ctx)
                    }
                    (SmoothingMode::LocalSimulation, Some(ctx)) => {
                        // Continue the local copy from where the last frame left it, or
                        // from a state that arrived since.
                        let (from_t, from) = match &self.local {
                            Some((t, v, base)) if *base == newest_t && *t <= at => (*t, v.clone()),
                            _ => (newest_t, newest(self)),
                        };
                        let v = forward_simulate(&from, (at - from_t).clamp(0.0, 0.5), at, ctx);
                        self.local = Some((at, v.clone(), newest_t));
                        v
                    }
                    _ => newest(self),
                };
                let old = std::mem::replace(&mut self.view, View::Eager(v));
                was_extrapolating.then_some(old)
            }
            _ => {
                frame.extrapolating = at > newest_t;
                if frame.extrapolating {
                    match &mut self.view {
                        // Same base as last frame: only the time moves.
                        View::Extrapolated { at: a, base_t, .. } if *base_t == newest_t => *a = at,
                        _ => {
                            self.view = View::Extrapolated {
                                at,
                                base_t: newest_t,
                                base: newest(self),
                            }
                        }
                    }
                    None
                } else if was_extrapolating {
                    Some(std::mem::replace(&mut self.view, View::At { at }))
                } else {
                    self.view = View::At { at };
                    None
                }
            }
        };
        // Blend back after extrapolating, unless the jump is a teleport (decided once, here).
        if let Some(previous) = previous {
            {
                let from = self.compute(previous, bindings);
                let to = self.compute(self.view.clone(), bindings);
                let jump = from.location.distance(to.location);
                if cfg.teleport_threshold >= 0.0 && jump > cfg.teleport_threshold {
                    frame.teleported = true;
                    self.recovery = None;
                } else {
                    self.recovery = Some((now, from));
                }
            }
        }
        if self
            .recovery
            .clone()
            .is_some_and(|(start, _)| now - start >= cfg.extrapolation_recovery_time)
        {
            self.recovery = None;
        }
        let (count, team) = self.discrete();
        frame.dash_count = count;
        frame.team = team;
        self.quick =
            steady_delay && self.recovery.is_none() && matches!(self.view, View::At { .. });
        self.quick_delay = delay;
        self.quick_latency = latency;
        self.quick_newest = newest_t;
        self.quick_stale = false;
        frame
    }

    /// [`Proxy::update`] for the common frame, when it can be decided cheaply: the smoothing
    /// settings (`cfg`) and the spawn pause are those of the last update, the latency
    /// estimate is the same, no periodic re-sync is due, states that arrived since leave the
    /// target delay within the re-sync tolerance, and the display time stays within the
    /// buffer. Then the result (and the proxy afterwards) is exactly what `update` gives;
    /// otherwise `None`, and nothing changed.
    #[inline]
    pub fn update_quick(
        &mut self,
        now: f64,
        server_now: f64,
        latency: f64,
        cfg: &SmoothingSettings,
        post_spawn_pause: f64,
    ) -> Option<ProxyFrame> {
        if !self.quick
            || latency != self.quick_latency
            || now >= self.next_resync
            || now - self.spawned_at < post_spawn_pause
        {
            return None;
        }
        let delay = self.quick_delay;
        if self.quick_stale {
            // What `update` decides about re-syncing, for the new arrival estimates.
            if cfg.mode != SmoothingMode::AdaptiveBufferedInterpolation
                || self.applied_delay != Some(delay)
            {
                return None;
            }
            let target = self.target_delay(latency, cfg);
            // (A NaN difference is not within the tolerance either.)
            let within = (target - delay).abs() <= cfg.resync_tolerance;
            if !within {
                return None;
            }
        }
        let newest_t = if self.quick_stale {
            self.states.back().map(|(t, _)| *t)?
        } else {
            self.quick_newest
        };
        let at = server_now - delay;
        if at > newest_t {
            return None;
        }
        self.quick_newest = newest_t;
        self.quick_stale = false;
        self.last_now = now;
        self.view = View::At { at };
        let (dash_count, team) = self.discrete_at(at);
        Some(ProxyFrame {
            dash_count,
            team,
            delay,
            ..Default::default()
        })
    }

    /// Whether a state arrived since the last update.
    pub fn has_new_state(&self) -> bool {
        self.quick_stale
    }

    /// After an update that took the quick path ([`Proxy::update_quick`]), while no state
    /// arrives and the settings and latency stay the same: the synchronized server time
    /// before which every later frame's quick update changes nothing but the display time
    /// (the display time stays before the newest state and before the next buffered state
    /// the discrete values change at; 1 µs short of it, so rounding cannot cross it), and the
    /// local time of the next re-sync.
    pub fn steady_until(&self) -> (f64, f64) {
        let edge = if self.quick && self.disc_valid {
            self.quick_newest.min(self.disc_until)
        } else {
            f64::NEG_INFINITY
        };
        (edge + self.quick_delay - 1e-6, self.next_resync)
    }

    /// A frame before [`Proxy::steady_until`] (and at or after the last update's server
    /// time): exactly what [`Proxy::update_quick`] does then, whose result is the last one.
    #[inline]
    pub fn steady_frame(&mut self, now: f64, server_now: f64) {
        self.last_now = now;
        self.view = View::At {
            at: server_now - self.quick_delay,
        };
    }

    /// Whether the last update applied a replicated state (false inside
    /// PostSpawnSmoothingPause or before any state arrived).
    pub fn applies_state(&self) -> bool {
        !matches!(self.view, View::Paused)
    }

    /// The buffered state at server time `at` (interpolated; the nearest end outside the
    /// buffer): what a rollback swaps in.
    pub fn values_at(&self, at: f64, bindings: &Bindings) -> PawnValues {
        if self.states.is_empty() {
            return PawnValues::default();
        }
        self.interpolate(at, bindings)
    }

    /// What the machine shows for this pawn now (as of the last [`Proxy::update`]).
    pub fn display(&self, bindings: &Bindings) -> PawnValues {
        self.display_fields(bindings, |_| true)
    }

    /// [`Proxy::display`]'s location, rotation and velocity (what a world-view sample reads),
    /// the same numbers, without interpolating the other members (they keep the newer
    /// bracketing state's values): a sample of every proxy 20 times a second cost a tenth of a
    /// headless run when it built the whole display.
    pub fn display_pose(&self, bindings: &Bindings) -> PawnValues {
        self.display_fields(bindings, |f| {
            matches!(f, Field::Location | Field::Rotation | Field::Velocity)
        })
    }

    fn display_fields(&self, bindings: &Bindings, wanted: impl Fn(Field) -> bool) -> PawnValues {
        let mut v = self.compute_fields(&self.view, bindings, wanted);
        if let Some((start, from)) = &self.recovery {
            let k = if self.look.recovery_time > 0.0 {
                ((self.last_now - start) / self.look.recovery_time).clamp(0.0, 1.0)
            } else {
                1.0
            };
            v.location = from.location.lerp(v.location, k);
            v.velocity = from.velocity.lerp(v.velocity, k);
        }
        v
    }

    fn compute(&self, view: View, bindings: &Bindings) -> PawnValues {
        match view {
            View::Eager(v) => v,
            other => self.compute_fields(&other, bindings, |_| true),
        }
    }

    fn compute_fields(
        &self,
        view: &View,
        bindings: &Bindings,
        wanted: impl Fn(Field) -> bool,
    ) -> PawnValues {
        match view {
            View::Paused => self.actor.values(),
            View::Eager(v) => v.clone(),
            View::Extrapolated { at, base_t, base } => {
                let mut v = base.clone();
                if self.look.extrapolation == ExtrapolationMode::DeadReckoning {
                    v.location += base.velocity * (at - base_t).min(self.look.max_extrapolation);
                }
                v
            }
            View::At { at } => self.interpolate_fields(*at, bindings, wanted),
        }
    }

    /// `dash_count` and `team` of the newest state the display time has passed: what
    /// GenSimulationTick reacts to. A cursor walks the buffer, so this is O(1) per frame.
    fn discrete(&mut self) -> (u8, u8) {
        match &self.view {
            View::Paused => (0, self.actor.team),
            View::Eager(v) | View::Extrapolated { base: v, .. } => (v.dash_count, v.team),
            View::At { at } => {
                let at = *at;
                self.discrete_at(at)
            }
        }
    }

    /// [`Proxy::discrete`] for the display time `at` (view `At`).
    #[inline]
    fn discrete_at(&mut self, at: f64) -> (u8, u8) {
        if self.disc_valid && at >= self.disc_from && at < self.disc_until {
            // The display time has not passed another state.
            return self.disc;
        }
        self.discrete_walk(at)
    }

    #[inline(never)]
    fn discrete_walk(&mut self, at: f64) -> (u8, u8) {
        // The cursor is the index of the last state the display time passed; it moves a step
        // or two per frame.
        let n = self.states.len();
        let mut i = self.cursor.min(n - 1);
        while i + 1 < n && self.states[i + 1].0 <= at {
            i += 1;
        }
        while i > 0 && self.states[i].0 > at {
            i -= 1;
        }
        self.cursor = i;
        let v = &self.states[i].1;
        self.disc = (v.dash_count, v.team);
        self.disc_from = if i == 0 {
            f64::NEG_INFINITY
        } else {
            self.states[i].0
        };
        // Until the next state with other discrete values (the answer is the same up to it).
        let mut j = i + 1;
        while j < n && (self.states[j].1.dash_count, self.states[j].1.team) == self.disc {
            j += 1;
        }
        self.disc_until = if j < n {
            self.states[j].0
        } else {
            f64::INFINITY
        };
        self.disc_valid = true;
        self.disc
    }

    /// The state at server time `at`, between its bracketing buffered states, per binding.
    fn interpolate(&self, at: f64, bindings: &Bindings) -> PawnValues {
        self.interpolate_fields(at, bindings, |_| true)
    }

    /// [`Proxy::interpolate`] of the `wanted` members; the others keep the newer bracketing
    /// state's values.
    fn interpolate_fields(
        &self,
        at: f64,
        bindings: &Bindings,
        wanted: impl Fn(Field) -> bool,
    ) -> PawnValues {
        let n = self.states.len();
        let i = self.states.partition_point(|(t, _)| *t <= at);
        if i == 0 {
            return self.states[0].1.clone();
        }
        if i >= n {
            return self.states[n - 1].1.clone();
        }
        let (t0, a) = &self.states[i - 1];
        let (t1, b) = &self.states[i];
        let alpha = if t1 > t0 { (at - t0) / (t1 - t0) } else { 1.0 };
        let before = if i >= 2 {
            &self.states[i - 2]
        } else {
            &self.states[i - 1]
        };
        let after = if i + 1 < n {
            &self.states[i + 1]
        } else {
            &self.states[i]
        };
        let mut out = b.clone();
        let (p0, p3) = (&before.1, &after.1);
        let ts = [before.0, *t0, *t1, after.0];
        for &(field, ty, f) in bindings.simulated_list() {
            if wanted(field) {
                interpolate_field(&mut out, field, ty, f, [p0, a, b, p3], ts, alpha);
            }
        }
        out
    }
}

fn forward_simulate(newest: &PawnValues, ahead: f64, at: f64, ctx: SimulationCtx) -> PawnValues {
    let mut v = newest.clone();
    let step = ctx.gmc.max_time_step.max(0.001);
    let n = (ahead / step).ceil() as u16;
    for i in 0..n {
        let dt = ahead / f64::from(n);
        let tick = TickCtx {
            exec: Execution::Simulated,
            move_timestamp: at,
            world_time: at,
            iteration: i,
            iterations: n,
            others: &[],
            frame_delta: dt,
            random: 0.5,
            imported: false,
        };
        gen_prediction_tick(&mut v, dt, &tick, ctx.faults, ctx.out);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::pawn::default_bindings;
    use glam::DVec3;

    fn bindings() -> Bindings {
        Bindings::new(default_bindings(&Faults::default())).unwrap()
    }

    fn at(x: f64) -> PawnValues {
        PawnValues {
            location: DVec3::new(x, 0.0, 0.0),
            velocity: DVec3::new(100.0, 0.0, 0.0),
            team: 1,
            ..Default::default()
        }
    }

    fn team_spawn(team: u8) -> SpawnData {
        SpawnData {
            team,
            ..Default::default()
        }
    }

    #[test]
    fn adaptive_delay_is_latency_plus_buffer_and_resyncs() {
        let b = bindings();
        let cfg = SmoothingSettings::default();
        let mut rng = crate::support::rng::Rng::new(1);
        let mut p = Proxy::new(1, None, 0.0, team_spawn(1));
        for k in 0..100 {
            let t = f64::from(k) / 30.0;
            p.receive(t + 0.05, t, &at(t * 100.0), b.simulated);
        }
        let f = p.update(3.4, 3.35, 0.05, &cfg, 0.0, &b, &mut rng, None);
        assert!((f.delay - 0.18).abs() < 1e-9, "{f:?}");
        assert!(!f.extrapolating);
        // Latency doubles: outside the tolerance, so the delay re-syncs at once.
        let f = p.update(3.41, 3.36, 0.2, &cfg, 0.0, &b, &mut rng, None);
        assert!((f.delay - 0.33).abs() < 1e-9, "{f:?}");
        // A small change waits for the periodic re-sync (about 2 s).
        let f = p.update(3.42, 3.37, 0.25, &cfg, 0.0, &b, &mut rng, None);
        assert!((f.delay - 0.33).abs() < 1e-9, "{f:?}");
        let f = p.update(6.0, 5.95, 0.25, &cfg, 0.0, &b, &mut rng, None);
        assert!((f.delay - 0.38).abs() < 1e-9, "{f:?}");
    }

    /// "The actor is visible where actor replication spawned it": during the pause the proxy
    /// stands at its spawn transform, not at the world origin.
    #[test]
    fn during_the_post_spawn_pause_a_proxy_stands_where_actor_replication_spawned_it() {
        let b = bindings();
        let cfg = SmoothingSettings::default();
        let mut rng = crate::support::rng::Rng::new(1);
        let spawn = SpawnData {
            location: DVec3::new(300.0, -120.0, 90.0),
            rotation: DVec3::new(0.0, 45.0, 0.0),
            team: 1,
        };
        let mut p = Proxy::new(1, None, 10.0, spawn);
        p.receive(10.1, 5.0, &at(500.0), b.simulated);
        let f = p.update(10.5, 5.4, 0.0, &cfg, 1.0, &b, &mut rng, None);
        assert!(f.paused);
        let shown = p.display(&b);
        assert_eq!(shown.location, spawn.location);
        assert_eq!(shown.rotation, spawn.rotation);
        // Before any state arrived at all, the same.
        let mut fresh = Proxy::new(2, None, 10.0, spawn);
        fresh.update(12.0, 7.0, 0.0, &cfg, 1.0, &b, &mut rng, None);
        assert_eq!(fresh.display(&b).location, spawn.location);
    }

    #[test]
    fn post_spawn_pause_shows_only_actor_properties() {
        let b = bindings();
        let cfg = SmoothingSettings::default();
        let mut rng = crate::support::rng::Rng::new(1);
        let mut with_team = Proxy::new(1, None, 10.0, team_spawn(2));
        let mut without = Proxy::new(2, None, 10.0, team_spawn(0));
        for p in [&mut with_team, &mut without] {
            p.receive(10.1, 5.0, &at(500.0), b.simulated);
            p.receive(10.2, 5.1, &at(510.0), b.simulated);
            let f = p.update(10.5, 5.4, 0.0, &cfg, 1.0, &b, &mut rng, None);
            assert!(f.paused);
            assert_eq!(p.display(&b).location, DVec3::ZERO, "the spawn transform");
        }
        assert_eq!(with_team.display(&b).team, 2);
        assert_eq!(
            without.display(&b).team,
            0,
            "spawn data only as a bound value: unknown"
        );
        let f = without.update(11.1, 5.3, 0.0, &cfg, 1.0, &b, &mut rng, None);
        assert!(!f.paused);
        assert_eq!(
            without.display(&b).team,
            1,
            "after the pause the bound copy arrives"
        );
    }

    #[test]
    fn extrapolates_when_dry_and_recovers() {
        let b = bindings();
        let cfg = SmoothingSettings {
            mode: SmoothingMode::FixedDelayInterpolation,
            fixed_delay: 0.05,
            ..Default::default()
        };
        let mut rng = crate::support::rng::Rng::new(1);
        let mut p = Proxy::new(1, None, 0.0, team_spawn(1));
        p.receive(0.1, 1.0, &at(100.0), b.simulated);
        p.receive(0.2, 1.1, &at(110.0), b.simulated);
        // Display time 1.25 > newest 1.1: dead reckoning at 100 cm/s.
        let f = p.update(1.0, 1.3, 0.0, &cfg, 0.0, &b, &mut rng, None);
        assert!(f.extrapolating);
        assert!(
            (p.display(&b).location.x - 125.0).abs() < 1e-9,
            "{:?}",
            p.display(&b).location
        );
        // New states arrive: blend back over the recovery time.
        p.receive(1.1, 1.3, &at(112.0), b.simulated);
        let f = p.update(1.1, 1.3, 0.0, &cfg, 0.0, &b, &mut rng, None);
        assert!(!f.extrapolating);
        let x = p.display(&b).location.x;
        assert!(x > 111.0 && x < 125.0, "{x}");
    }

    #[test]
    fn quick_update_is_the_full_update() {
        // Two copies of a proxy get the same states; one takes the quick update whenever it
        // applies. Every frame and every display must be identical.
        let b = bindings();
        let cfg = SmoothingSettings::default();
        let (mut rng_a, mut rng_b) = (
            crate::support::rng::Rng::new(7),
            crate::support::rng::Rng::new(7),
        );
        let mut full = Proxy::new(1, None, 0.0, team_spawn(1));
        let mut quick = full.clone();
        let mut taken = 0;
        let mut next_state = 0.0;
        for k in 0..2400 {
            let now = f64::from(k) / 120.0;
            // 30 states a second with jitter and a gap, a latency that changes now and then.
            if now >= next_state && !(10.0..11.0).contains(&now) {
                let st = now - 0.05;
                let mut v = at(st * 100.0);
                v.dash_count = (k / 5) as u8;
                full.receive(now, st, &v, b.simulated);
                quick.receive(now, st, &v, b.simulated);
                next_state = now + 1.0 / 30.0 + if k % 7 == 0 { 0.01 } else { 0.0 };
            }
            let latency = 0.05 + f64::from(k / 500) * 0.01;
            let server_now = now + 0.01;
            let a = full.update(now, server_now, latency, &cfg, 0.2, &b, &mut rng_a, None);
            let q = match quick.update_quick(now, server_now, latency, &cfg, 0.2) {
                Some(f) => {
                    taken += 1;
                    f
                }
                None => quick.update(now, server_now, latency, &cfg, 0.2, &b, &mut rng_b, None),
            };
            assert_eq!(a, q, "frame {k}");
            assert_eq!(full.display(&b), quick.display(&b), "frame {k}");
            if !q.paused && !q.extrapolating {
                // The discrete values are those of the newest state the display time passed.
                let at = server_now - q.delay;
                let states: Vec<_> = quick.states().collect();
                let i = states.iter().rposition(|(t, _)| *t <= at).unwrap_or(0);
                assert_eq!(
                    (q.dash_count, q.team),
                    (states[i].1.dash_count, states[i].1.team),
                    "frame {k}"
                );
            }
        }
        assert_eq!(rng_a.f64(), rng_b.f64(), "the same draws");
        assert!(taken > 1000, "the quick update was taken {taken} times");
    }

    #[test]
    fn steady_frames_repeat_the_quick_update() {
        // Two copies of a proxy get the same states; one takes the quick update whenever it
        // applies, the other repeats its last frame (`steady_frame`) while `steady_until`
        // allows, as `Client::update_proxies` does. Every frame and every display must be
        // identical, and the discrete values those of the newest state the display passed.
        let b = bindings();
        let cfg = SmoothingSettings::default();
        let (mut rng_a, mut rng_b) = (
            crate::support::rng::Rng::new(7),
            crate::support::rng::Rng::new(7),
        );
        let mut quick = Proxy::new(1, None, 0.0, team_spawn(1));
        let mut steady = quick.clone();
        // (frame, latency, server time until, local time until) of the last quick update.
        let mut last: Option<(ProxyFrame, f64, f64, f64)> = None;
        let mut repeated = 0;
        let mut next_state = 0.0;
        for k in 0..2400 {
            let now = f64::from(k) / 120.0;
            if now >= next_state && !(10.0..11.0).contains(&now) {
                let st = now - 0.05;
                let mut v = at(st * 100.0);
                // Discrete values that stay the same over several states.
                v.dash_count = (k / 45) as u8;
                v.team = 1 + u8::from(k % 700 > 650);
                quick.receive(now, st, &v, b.simulated);
                steady.receive(now, st, &v, b.simulated);
                next_state = now + 1.0 / 30.0 + if k % 7 == 0 { 0.01 } else { 0.0 };
            }
            let latency = 0.05 + f64::from(k / 500) * 0.01;
            let server_now = now + 0.01;
            let a = match quick.update_quick(now, server_now, latency, &cfg, 0.2) {
                Some(f) => f,
                None => quick.update(now, server_now, latency, &cfg, 0.2, &b, &mut rng_a, None),
            };
            let s = match last {
                Some((f, l, server_until, now_until))
                    if l == latency
                        && server_now < server_until
                        && now < now_until
                        && !steady.has_new_state() =>
                {
                    repeated += 1;
                    steady.steady_frame(now, server_now);
                    f
                }
                _ => match steady.update_quick(now, server_now, latency, &cfg, 0.2) {
                    Some(f) => {
                        let (server_until, now_until) = steady.steady_until();
                        last = Some((f, latency, server_until, now_until));
                        f
                    }
                    None => {
                        last = None;
                        steady.update(now, server_now, latency, &cfg, 0.2, &b, &mut rng_b, None)
                    }
                },
            };
            assert_eq!(a, s, "frame {k}");
            assert_eq!(quick.display(&b), steady.display(&b), "frame {k}");
            if !s.paused && !s.extrapolating {
                let at = server_now - s.delay;
                let states: Vec<_> = steady.states().collect();
                let i = states.iter().rposition(|(t, _)| *t <= at).unwrap_or(0);
                assert_eq!(
                    (s.dash_count, s.team),
                    (states[i].1.dash_count, states[i].1.team),
                    "frame {k}"
                );
            }
        }
        assert_eq!(rng_a.f64(), rng_b.f64(), "the same draws");
        assert!(repeated > 800, "steady frames: {repeated}");
    }
}
