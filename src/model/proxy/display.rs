//! What proxies showed: one proxy's figures of a frame ([`ProxyFrame`]) and their fold into
//! `ProxiesDisplayed` telemetry samples ([`DisplayStats`]).

/// What one proxy showed this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProxyFrame {
    /// `dash_count` and `team` as displayed (what GenSimulationTick reacts to).
    pub dash_count: u8,
    pub team: u8,
    /// How far in the past (server time) the displayed state is.
    pub delay: f64,
    pub extrapolating: bool,
    /// Inside PostSpawnSmoothingPause: no replicated state applied yet.
    pub paused: bool,
    /// Snapped instead of blending (teleport threshold exceeded).
    pub teleported: bool,
}

/// Seconds between `ProxiesDisplayed` samples.
pub const DISPLAY_SAMPLE_INTERVAL: f64 = 0.05;

/// Folds per-frame proxy figures into `ProxiesDisplayed` samples.
#[derive(Clone, Debug, Default)]
pub struct DisplayStats {
    since: Option<f64>,
    frames: u16,
    delay_sum: f64,
    delay_frames: u16,
    delay_max: f64,
    extrapolation_seconds: f64,
    team_unknown_frames: u32,
    proxies: u16,
    paused: u16,
}

impl DisplayStats {
    /// Adds one frame: each proxy's figures, and the frame's length.
    pub fn frame(&mut self, frames: &[ProxyFrame], dt: f64) {
        let mut acc = FrameAcc::default();
        for f in frames {
            self.add(&mut acc, f, dt);
        }
        self.end_frame(&acc, frames.len());
    }

    /// Adds one proxy's figures of the frame being accumulated in `acc`
    /// ([`DisplayStats::frame`] one proxy at a time).
    #[inline]
    pub fn add(&mut self, acc: &mut FrameAcc, f: &ProxyFrame, dt: f64) {
        if f.paused {
            acc.paused += 1;
        } else {
            acc.sum += f.delay;
            acc.live += 1;
            self.delay_max = self.delay_max.max(f.delay);
        }
        if f.extrapolating {
            self.extrapolation_seconds += dt;
        }
        if f.team == 0 {
            self.team_unknown_frames += 1;
        }
    }

    /// Adds a frame whose proxies gave what they gave in an earlier frame: `team_unknown`
    /// of them with no team and the largest delay `delay_max` (what [`DisplayStats::add`]
    /// does for each of them when none is paused or extrapolating; `max` ignores order).
    pub fn add_repeated(&mut self, team_unknown: u32, delay_max: f64) {
        self.delay_max = self.delay_max.max(delay_max);
        self.team_unknown_frames += team_unknown;
    }

    /// Ends a frame of `proxies` proxies added with [`DisplayStats::add`].
    pub fn end_frame(&mut self, acc: &FrameAcc, proxies: usize) {
        if acc.live > 0 {
            self.delay_sum += acc.sum / f64::from(acc.live);
            self.delay_frames += 1;
        }
        self.frames = self.frames.saturating_add(1);
        self.proxies = proxies as u16;
        self.paused = acc.paused;
    }

    /// The mean delay of the frames so far (what the owner's batches report).
    pub fn current_delay(&self) -> Option<f64> {
        (self.delay_frames > 0).then(|| self.delay_sum / f64::from(self.delay_frames))
    }

    /// A sample when one is due at `now` (and there was a frame with proxies).
    pub fn take(&mut self, now: f64) -> Option<crate::model::telemetry::Event> {
        let since = *self.since.get_or_insert(now);
        if now - since < DISPLAY_SAMPLE_INTERVAL || self.frames == 0 {
            return None;
        }
        let e = (self.proxies > 0).then(|| {
            crate::model::telemetry::Event::ProxiesDisplayed(std::sync::Arc::new(
                crate::model::telemetry::ProxiesDisplayed {
                    proxies: self.proxies,
                    paused: self.paused,
                    delay_mean: self.current_delay().unwrap_or(0.0),
                    delay_max: self.delay_max,
                    extrapolation_seconds: self.extrapolation_seconds,
                    team_unknown_frames: self.team_unknown_frames,
                    frames: self.frames,
                },
            ))
        });
        *self = DisplayStats {
            since: Some(now),
            ..Default::default()
        };
        e
    }
}

/// One frame's proxy figures while they are added ([`DisplayStats::add`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameAcc {
    /// Sum of the delays of the proxies not paused, in the order they were added.
    pub sum: f64,
    pub live: u16,
    pub paused: u16,
}
