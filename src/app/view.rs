//! The view: the cursor (the timeline's state), the plots' window, the layout of the panes,
//! the theme and the recent recordings, restored from the last run and saved on exit
//! (`--persist`).

use std::time::Instant;

use super::MovescopeApp;
use super::layout;
use crate::session::preset::Preset;
use crate::session::timeline::{TimeCommand, TimeControl};

/// How the session is looked at: where the cursor is, what the plots span, how the panes
/// are laid out, the theme.
pub(super) struct ViewState {
    pub(super) time: TimeControl,
    pub(super) window_s: f64,
    /// The window the plots showed last frame (kept while the cursor stays inside it).
    pub(super) plot_window: Option<(f64, f64)>,
    pub(super) last_frame: Instant,
    pub(super) light: bool,
    /// The theme the window was last set to.
    pub(super) theme_applied: Option<bool>,
    pub(super) layout: egui_tiles::Tree<layout::Pane>,
    /// The panes in presenter mode (lessons).
    pub(super) presenter_layout: egui_tiles::Tree<layout::Pane>,
    /// Recordings opened or made in this and earlier runs (newest first).
    pub(super) recent_recordings: Vec<String>,
    /// The basics lessons are offered (first run: no remembered answer).
    pub(super) offer_basics: bool,
    /// The offer was answered in this or an earlier run.
    pub(super) basics_offered: bool,
}

impl ViewState {
    pub(super) fn new() -> Self {
        ViewState {
            time: TimeControl::following(),
            window_s: 20.0,
            plot_window: None,
            last_frame: Instant::now(),
            light: false,
            theme_applied: None,
            layout: layout::default_layout(),
            presenter_layout: layout::presenter_layout(),
            recent_recordings: Vec::new(),
            offer_basics: false,
            basics_offered: false,
        }
    }
}

impl MovescopeApp {
    /// Applies a timeline command (the bar, the keyboard and clicks go through here).
    pub fn time_command(&mut self, cmd: TimeCommand) {
        self.view.time.apply(cmd, &self.shown.store);
    }

    /// `--persist`: the layout, theme, plots' window, plot choices and recent recordings of
    /// the last run.
    pub(super) fn restore_ui_state(&mut self) {
        let state = if self.options.persist {
            layout::UiState::load()
        } else {
            None
        };
        if self.options.persist
            && let Some(problem) = layout::state_path().and_then(|p| layout::state_problem_at(&p))
        {
            self.status.set(problem);
        }
        // First run: offered over a plain start (the default preset, live, no window asked for).
        self.view.basics_offered = state.as_ref().is_some_and(|s| s.basics_offered);
        self.view.offer_basics = self.options.offer_basics
            || (self.options.persist
                && !self.view.basics_offered
                && matches!(self.options.source, super::options::Source::Live)
                && self.options.preset.lesson.is_none()
                && self.options.windows.is_empty()
                && self.options.screenshot.is_none()
                && !self.options.reopened);
        if let Some(state) = state {
            // A layout saved by an older movescope (another arrangement of panes) is replaced.
            if layout::is_complete(&state.layout) && state.layout_version == layout::LAYOUT_VERSION
            {
                self.view.layout = state.layout;
            }
            self.view.light = state.light;
            if (5.0..=120.0).contains(&state.window_s) {
                self.view.window_s = state.window_s;
            }
            if state.plots_shown.len() == self.panes.plots.shown.len() {
                self.panes.plots.shown = state.plots_shown;
            }
            self.view.recent_recordings = state.recent_recordings;
        }
    }

    /// `--persist`: saves what [`Self::restore_ui_state`] restores, and the preset the next
    /// plain start reopens.
    pub(super) fn save_ui_state(&self) {
        if self.options.persist {
            let last_preset = self
                .shown
                .session
                .as_ref()
                .and_then(|s| remembered_preset(&self.options.preset_name, s.preset()));
            let state = layout::UiState {
                layout: self.view.layout.clone(),
                light: self.view.light,
                window_s: self.view.window_s,
                plots_shown: self.panes.plots.shown.clone(),
                last_preset,
                recent_recordings: self.view.recent_recordings.clone(),
                layout_version: layout::LAYOUT_VERSION,
                basics_offered: self.view.basics_offered,
            };
            if let Err(e) = state.save() {
                eprintln!("movescope: could not save the layout: {e}");
            }
        }
    }
}

impl MovescopeApp {
    /// The first-run offer, while it stands; its answer is remembered at once.
    pub(super) fn basics_offer(&mut self, ctx: &eframe::egui::Context) {
        if !self.view.offer_basics {
            return;
        }
        if let Some(a) = super::welcome::ui(ctx) {
            self.view.offer_basics = false;
            self.view.basics_offered = true;
            self.save_ui_state();
            self.actions.extend(super::welcome::actions(a));
        }
    }
}

/// The preset the next plain start reopens, if any: the one running under `name` — never a
/// lesson's scenario (the next workshop participant would start inside a pitfall), nor the
/// default (it opens anyway), nor one that cannot be found again.
fn remembered_preset(name: &str, running: &Preset) -> Option<String> {
    (running.lesson.is_none()
        && name != crate::session::preset::DEFAULT_PRESET_NAME
        && name != "default"
        && Preset::find(name).is_ok())
    .then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lesson_or_the_default_is_never_reopened() {
        let (lesson, name) = Preset::find("pitfall-01-unbound-member").unwrap();
        assert_eq!(remembered_preset(&name, &lesson), None);
        let (net, name) = Preset::find("net-01-high-latency").unwrap();
        // The network presets are lessons too.
        assert_eq!(
            remembered_preset(&name, &net),
            net.lesson.is_none().then(|| name.clone())
        );
        let plain = Preset::builtin_default();
        assert_eq!(remembered_preset("default", &plain), None);
        assert_eq!(
            remembered_preset(crate::session::preset::DEFAULT_PRESET_NAME, &plain),
            None
        );
        assert_eq!(remembered_preset("no-such-preset", &plain), None);
        let mut edited = plain.clone();
        edited.title = "mine".into();
        assert_eq!(
            remembered_preset("pitfall-01-unbound-member-fixed", &edited),
            Some("pitfall-01-unbound-member-fixed".to_string())
        );
    }
}
