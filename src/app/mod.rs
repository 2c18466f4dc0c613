//! The desktop app: a live session of the chosen preset (or a recording being looked at),
//! time-aligned plots read from the [`Store`], a top-down world view, live controls for the
//! pitfall switches, the network and smoothing, an event log, a timeline to scrub through
//! the session, recording, CSV export, bug reports and screenshots.
//!
//! The UI never waits on simulation threads or on the disk: each frame it drains telemetry
//! (or a recording's loader) under a time budget into the store, and every view draws the
//! store at the timeline's cursor.

use std::path::Path;

use eframe::egui;
use egui::Color32;

use crate::model::telemetry::Machine;
use crate::net::live::LiveSession;
use crate::session::preset::Preset;
use crate::session::store::Store;
use crate::session::timeline::TimeControl;

pub mod action;
mod apply;
mod bindings_window;
pub mod buffer_window;
mod capture;
pub mod component_run;
pub mod component_window;
mod controls;
mod doctor_window;
mod event_log;
mod export_dialog;
mod frame;
mod gmc_window;
mod help_window;
pub mod jobs;
mod journey_lanes;
mod journey_window;
pub mod layout;
mod lessons;
mod network;
mod open_dialog;
mod options;
mod palette;
pub mod plots;
mod recording_ctl;
mod shown;
pub mod status;
mod timeline_bar;
mod top_bar;
pub mod track_window;
mod view;
mod welcome;
mod whatif_window;
mod windows;
mod world_labels;
mod world_paint;
mod world_view;

use action::Action;
use capture::Capture;
use jobs::StatusJobs;
use shown::Shown;
use view::ViewState;
use windows::{Panes, Windows};

pub use capture::save_png;
/// Whether a lesson on screen points at a control (by id; for tests and tools).
pub use lessons::pointers::is_pointed;
pub use options::{AppOptions, RETENTION, ScreenshotPlan, Source, WINDOWS};

/// Folder recordings are saved in and opened from.
pub const RECORDINGS_DIR: &str = "recordings";
/// Folder bug reports are written to.
pub const REPORTS_DIR: &str = "reports";
/// Folder CSV exports are written to.
pub const EXPORTS_DIR: &str = "exports";

pub(crate) fn color_of(m: Machine) -> Color32 {
    // Green and red never side by side (clients 2 and 3 were): the colour-blind common case.
    const PALETTE: [Color32; 8] = [
        Color32::from_rgb(31, 119, 180),
        Color32::from_rgb(255, 127, 14),
        Color32::from_rgb(44, 160, 44),
        Color32::from_rgb(148, 103, 189),
        Color32::from_rgb(227, 119, 194),
        Color32::from_rgb(214, 39, 40),
        Color32::from_rgb(140, 86, 75),
        Color32::from_rgb(127, 127, 127),
    ];
    match m {
        Machine::Server => Color32::from_rgb(90, 90, 90),
        Machine::Client(i) => PALETTE[usize::from(i) % PALETTE.len()],
    }
}

/// The app: how it was started, the session shown, the view of it, the panes' and windows'
/// own state, screenshots under way, and the status line.
pub struct MovescopeApp {
    /// How the app was started. `options.preset` is only what a session is started from:
    /// once running, the session's own preset is the truth ([`Self::shown_preset`]).
    options: AppOptions,
    /// The session (or recording) shown, its store and what was sent to it.
    shown: Shown,
    /// The cursor, the plots' window, the layout and the theme.
    view: ViewState,
    panes: Panes,
    windows: Windows,
    capture: Capture,
    status: status::Status,
    /// Actions the panes asked for this frame, applied once after it ([`Self::apply_actions`]).
    actions: Vec<Action>,
    /// File writes and other slow work whose result is a status line.
    status_jobs: StatusJobs,
}

impl MovescopeApp {
    /// Runs `work` as a job whose result is a status line (a job that cannot start says so
    /// there at once).
    fn status_job(
        &mut self,
        what: impl Into<String>,
        work: impl FnOnce(&jobs::JobCtx) -> Result<String, String> + Send + 'static,
    ) {
        match jobs::Job::spawn(what, work) {
            Ok(j) => self.status_jobs.push(j),
            Err(e) => self.status.set(format!("error: {e}")),
        }
    }

    pub fn new(options: AppOptions) -> Self {
        let mut app = MovescopeApp {
            options,
            shown: Shown::new(),
            view: ViewState::new(),
            panes: Panes::default(),
            windows: Windows::default(),
            capture: Capture::new(),
            status: status::Status::default(),
            actions: Vec::new(),
            status_jobs: StatusJobs::default(),
        };
        app.restore_ui_state();
        app.open_windows_at_start();
        match app.options.source.clone() {
            Source::Live | Source::Host(_) | Source::Join(_) => {
                app.start_live();
                if let Some(path) = app.options.record.clone() {
                    app.start_recording(path);
                }
            }
            Source::Recording { path, at } => app.open_recording(&path, at),
        }
        app
    }

    /// The live session (for tests and tools).
    pub fn session(&self) -> Option<&LiveSession> {
        self.shown.session.as_ref()
    }

    pub fn is_paused(&self) -> bool {
        self.shown.paused
    }

    /// The timeline's state (for tests and tools).
    pub fn time(&self) -> &TimeControl {
        &self.view.time
    }

    /// The store every view reads (for tests and tools).
    pub fn store(&self) -> &Store {
        &self.shown.store
    }

    /// The machines whose series the plots leave out (for tests and tools).
    pub fn plots_hidden(&self) -> Vec<crate::model::telemetry::Machine> {
        self.panes.plots.hidden.iter().copied().collect()
    }

    /// What the run drawn over the plots is, when there is one (for tests and tools).
    pub fn overlay_label(&self) -> Option<&str> {
        self.panes
            .plots
            .overlay
            .as_ref()
            .map(|_| self.panes.plots.overlay_label.as_str())
    }

    /// Whether a recording is still loading.
    pub fn is_loading(&self) -> bool {
        self.shown
            .opened
            .as_ref()
            .is_some_and(|o| o.loader.is_some())
    }

    /// The lineage shown (for tests and tools).
    pub fn lineage(&self) -> Option<&Result<crate::analysis::lineage::Lineage, String>> {
        self.windows.journey.shown()
    }

    /// Whether a journey is being traced, or its bound values re-simulated.
    pub fn is_tracing_values(&self) -> bool {
        self.windows.journey.is_tracing()
    }

    /// The last what-if comparison (for tests and tools).
    pub fn whatif_result(&self) -> Option<&crate::analysis::whatif::Comparison> {
        self.windows.whatif.result.as_ref()
    }

    /// Where the plot titled `title` drew its values last frame (for tests and tools).
    pub fn plot_transform(&self, title: &str) -> Option<egui_plot::PlotTransform> {
        self.panes.plots.transform(title)
    }

    /// The time window the plots show.
    pub fn plot_window(&self) -> Option<(f64, f64)> {
        self.view.plot_window
    }

    /// The event log's search text (for tests and tools).
    pub fn event_log_search_mut(&mut self) -> &mut String {
        &mut self.panes.log.filter.search
    }

    /// The status line (what the last action did).
    pub fn status(&self) -> &str {
        self.status.latest()
    }

    /// The doctor's last report (for tests and tools).
    pub fn doctor_report(&self) -> Option<&crate::analysis::doctor::Report> {
        self.windows.doctor.report()
    }

    /// The settings shown: the live session's own preset (every change applied), a
    /// recording's, or (when nothing runs) the preset the app was started with.
    pub fn shown_preset(&self) -> &Preset {
        if let Some(s) = &self.shown.session {
            return s.preset();
        }
        if let Some(o) = &self.shown.opened {
            return &o.recording.header.preset;
        }
        &self.options.preset
    }

    /// Every command sent to a session so far, described (for tests and tools).
    pub fn commands_sent(&self) -> &[String] {
        &self.shown.commands_sent
    }

    /// The "Your component" window (the lint), for tests and tools.
    pub fn component_window(&mut self) -> &mut component_window::ComponentWindow {
        &mut self.windows.component
    }

    /// The lesson the lessons panel shows, if it is open on one.
    /// Whether a journey of the live session is being kept up to date (for tests and tools).
    pub fn is_following_journey(&self) -> bool {
        self.windows.journey.is_following()
    }

    /// The machine the world view shows the pawns as (for tests and tools).
    /// The event log's filter: which kinds it lists (corrections, warnings & errors, session
    /// changes, one-shots).
    pub fn event_log_kinds(&self) -> [bool; 4] {
        self.panes.log.filter.kinds
    }

    /// The world view shows the viewer's view next to the server's.
    pub fn world_vs_server(&self) -> bool {
        self.panes.world.side_by_side
    }

    pub fn world_viewer(&self) -> crate::model::telemetry::Machine {
        self.panes.world.viewer
    }

    pub fn lesson_shown(&self) -> Option<&str> {
        let l = &self.windows.lessons;
        l.current
            .filter(|_| l.open)
            .and_then(|i| l.list.get(i))
            .map(|e| e.name.as_str())
    }

    /// Whether a recording is being opened (scanned) or loaded.
    pub fn is_opening(&self) -> bool {
        self.shown.opening.is_some()
    }
}

impl Drop for MovescopeApp {
    fn drop(&mut self) {
        // Closing the window finishes the recording (index and all), and waits for every
        // file being written.
        self.stop_recording();
        for r in self.status_jobs.wait_all() {
            if let Err(e) = r {
                eprintln!("movescope: {e}");
            }
        }
        self.save_ui_state();
    }
}

/// Writes `bytes` to `path`, creating its folder.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    Ok(crate::support::output::write_file(path, bytes)?)
}

/// Opens the window.
/// Where the app's windows may be: below the top bar and above the status bar (set each
/// frame once those are shown; a window never opens over the top bar's buttons).
const WINDOW_AREA: &str = "movescope window area";

/// Notes the area windows are kept in this frame.
fn set_window_area(ctx: &egui::Context, area: egui::Rect) {
    ctx.data_mut(|d| d.insert_temp(egui::Id::unique(WINDOW_AREA), area));
}

/// A window of the app, kept inside the area below the top bar.
fn window<'a>(ctx: &egui::Context, title: &'a str) -> egui::Window<'a> {
    let w = egui::Window::new(title);
    match ctx.data(|d| d.get_temp::<egui::Rect>(egui::Id::unique(WINDOW_AREA))) {
        Some(area) => w.constrain_to(area),
        None => w,
    }
}

pub fn run(options: AppOptions) -> Result<(), String> {
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size([1280.0, 800.0])
            .with_title("movescope"),
        ..Default::default()
    };
    eframe::run_native(
        "movescope",
        native,
        Box::new(move |_cc| Ok(Box::new(MovescopeApp::new(options)))),
    )
    .map_err(|e| e.to_string())
}

/// The colour of a warning (frame pacing, dropped records, a lagging disk): amber, dark
/// enough to read on the light theme's white.
pub(crate) fn palette_warn(dark: bool) -> eframe::egui::Color32 {
    if dark {
        eframe::egui::Color32::from_rgb(235, 180, 60)
    } else {
        eframe::egui::Color32::from_rgb(150, 95, 0)
    }
}

/// The colour of "look here" (a lesson's pointer): amber, dark enough to read on the light
/// theme's white.
pub(crate) fn palette_look(dark: bool) -> eframe::egui::Color32 {
    if dark {
        eframe::egui::Color32::from_rgb(240, 200, 80)
    } else {
        eframe::egui::Color32::from_rgb(160, 95, 0)
    }
}
