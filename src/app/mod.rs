//! The desktop app: a live session of the chosen preset (or a recording being looked at),
//! time-aligned plots read from the [`Store`], a top-down world view, live controls for the
//! pitfall switches, the network and smoothing, an event log, a timeline to scrub through
//! the session, recording, CSV export, bug reports and screenshots.
//!
//! The UI never waits on simulation threads or on the disk: each frame it drains telemetry
//! (or a recording's loader) under a time budget into the store, and every view draws the
//! store at the timeline's cursor.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, bounded};
use eframe::egui;
use egui::Color32;

use crate::analysis::report::{REPORT_AFTER, REPORT_BEFORE};
use crate::model::telemetry::{Machine, Record};
use crate::net::live::{Command, LiveSession, Outcome};
use crate::session::preset::Preset;
use crate::session::recording::{Damage, Footer, Header, Recorder, Recording};
use crate::session::store::{MarkKind, Store};
use crate::session::timeline::{TimeCommand, TimeControl};

pub mod action;
mod bindings_window;
pub mod buffer_window;
mod controls;
mod doctor_window;
mod event_log;
mod export_dialog;
mod gmc_window;
mod help_window;
pub mod jobs;
mod journey_window;
pub mod layout;
mod lessons;
mod network;
mod open_dialog;
mod palette;
pub mod plots;
pub mod status;
mod timeline_bar;
mod top_bar;
pub mod track_window;
mod whatif_window;
mod world_view;

use action::{Action, Feedback, SessionView, Toggle};
use jobs::{Job, Poll, StatusJobs};

/// Longest the UI spends draining live telemetry per frame.
const DRAIN_BUDGET: Duration = Duration::from_millis(6);
/// Longest the UI spends loading a recording per frame (it stays responsive meanwhile).
const LOAD_BUDGET: Duration = Duration::from_millis(10);
/// Seconds of history the store of a live session keeps by default.
pub const RETENTION: f64 = 600.0;
/// Folder recordings are saved in and opened from.
pub const RECORDINGS_DIR: &str = "recordings";
/// Folder bug reports are written to.
pub const REPORTS_DIR: &str = "reports";
/// Folder CSV exports are written to.
pub const EXPORTS_DIR: &str = "exports";

/// `--screenshot FILE --screenshot-after SECONDS`.
#[derive(Clone, Debug)]
pub struct ScreenshotPlan {
    pub path: PathBuf,
    /// Seconds after the session started (live) or the recording finished loading.
    pub after: f64,
}

/// What the window shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The preset, running live.
    Live,
    /// A recording, opened at `at` (default: its own cursor, else its start).
    Recording { path: PathBuf, at: Option<f64> },
    /// The preset hosted for participants on other machines (the trainer's app).
    Host(crate::net::remote::HostOptions),
    /// One participant of a hosted session (the preset is the host's).
    Join(crate::net::remote::JoinOptions),
}

/// The windows `--window` can open at start.
pub const WINDOWS: [&str; 11] = [
    "bindings",
    "buffer",
    "doctor",
    "gmc",
    "help",
    "journey",
    "lessons",
    "presenter",
    "track",
    "vs-server",
    "whatif",
];

/// How the app was started.
#[derive(Clone, Debug)]
pub struct AppOptions {
    pub preset: Preset,
    pub preset_name: String,
    pub screenshot: Option<ScreenshotPlan>,
    pub source: Source,
    /// Live: record the session to this file from the start.
    pub record: Option<PathBuf>,
    /// `record` may replace an existing file (`--force`; by a rename when it is finished).
    pub record_force: bool,
    /// Seconds of a live session's history the store keeps (`None`: all of it).
    pub retention: Option<f64>,
    /// Windows open at start: "bindings", "gmc", "help" (for screenshots and docs).
    pub windows: Vec<String>,
    /// Restore the layout, theme and plot choices of the last run, and save them on exit.
    pub persist: bool,
    /// Recordings: run a what-if with these changes once loaded.
    pub whatif: Vec<String>,
    /// The preset was reopened because it was used last (the top bar says so, with a way
    /// back to the default).
    pub reopened: bool,
    /// `--answer K`: the lesson opened with `--window lessons` has its first question
    /// answered with choice K (1-based).
    pub answer: Option<usize>,
}

impl AppOptions {
    /// The preset, live, nothing else.
    pub fn live(preset: Preset, preset_name: &str) -> AppOptions {
        AppOptions {
            preset,
            preset_name: preset_name.to_string(),
            screenshot: None,
            source: Source::Live,
            record: None,
            record_force: false,
            retention: Some(RETENTION),
            windows: Vec::new(),
            persist: false,
            whatif: Vec::new(),
            reopened: false,
            answer: None,
        }
    }
}

pub(crate) fn color_of(m: Machine) -> Color32 {
    const PALETTE: [Color32; 8] = [
        Color32::from_rgb(31, 119, 180),
        Color32::from_rgb(255, 127, 14),
        Color32::from_rgb(44, 160, 44),
        Color32::from_rgb(214, 39, 40),
        Color32::from_rgb(148, 103, 189),
        Color32::from_rgb(140, 86, 75),
        Color32::from_rgb(227, 119, 194),
        Color32::from_rgb(127, 127, 127),
    ];
    match m {
        Machine::Server => Color32::from_rgb(90, 90, 90),
        Machine::Client(i) => PALETTE[usize::from(i) % PALETTE.len()],
    }
}

/// Writes a bug report's files, given its picture; says what it wrote.
/// (`None`: the window could not be captured in time; the other files are written.)
type ReportWork = Box<dyn FnOnce(Option<&egui::ColorImage>) -> Result<String, String> + Send>;

/// How long a bug report waits for its picture before it is written without one (a backend
/// that cannot capture the window, a headless harness).
const REPORT_PICTURE_WAIT: Duration = Duration::from_secs(3);

/// Opening (scanning) a recording.
type OpenJob = Job<Result<Recording, String>>;

enum ShotState {
    Waiting,
    Requested,
    Done,
}

enum LoadMsg {
    Batch(Vec<Record>),
    Done(Option<Damage>),
}

/// A recording shown in the window, loading in the background until `loader` is `None`.
struct Opened {
    recording: Arc<Recording>,
    loader: Option<Receiver<LoadMsg>>,
    damage: Option<Damage>,
    /// Where the cursor goes once the records around it are in the store.
    start: f64,
    placed: bool,
    /// `start` was asked for (`open --at`, a report's moment); otherwise the cursor moves to
    /// the first correction once the recording is loaded.
    start_asked: bool,
}

pub struct MovescopeApp {
    /// How the app was started. `options.preset` is only what a session is started from:
    /// once running, the session's own preset is the truth ([`Self::shown_preset`]).
    options: AppOptions,
    session: Option<LiveSession>,
    opened: Option<Opened>,
    /// A recording being opened (scanned) on a job thread, with the cursor asked for.
    opening: Option<(OpenJob, Option<f64>)>,
    error: Option<String>,
    store: Store,
    paused: bool,
    window_s: f64,
    time: TimeControl,
    /// The window the plots showed last frame (kept while the cursor stays inside it).
    plot_window: Option<(f64, f64)>,
    last_frame: Instant,
    /// Live sessions: the newest records, for bug reports.
    recent: VecDeque<Record>,
    recorder: Option<Recorder>,
    record_started: Instant,
    /// When the view became worth a screenshot (session started, recording loaded).
    ready_since: Option<Instant>,
    shot: ShotState,
    shot_tx: Sender<Arc<egui::ColorImage>>,
    shot_rx: Receiver<Arc<egui::ColorImage>>,
    shot_path: Option<PathBuf>,
    /// A bug report waiting for its picture: writes every file once it arrives.
    report_pending: Option<(ReportWork, Instant)>,
    status: status::Status,
    plots: plots::PlotsPanel,
    world: world_view::WorldView,
    log: event_log::EventLog,
    timeline: timeline_bar::TimelineBar,
    show_help: bool,
    open_dialog: Option<open_dialog::OpenDialog>,
    export: Option<export_dialog::ExportDialog>,
    controls: controls::ControlsPane,
    gmc: gmc_window::GmcWindow,
    bindings: bindings_window::BindingsWindow,
    /// The input last sent to the driven client.
    last_drive: Option<crate::model::input::RawInput>,
    light: bool,
    /// The theme the window was last set to.
    theme_applied: Option<bool>,
    layout: egui_tiles::Tree<layout::Pane>,
    lessons: lessons::LessonsWindow,
    whatif: whatif_window::WhatIfWindow,
    doctor: doctor_window::DoctorWindow,
    /// The interpolation buffer view.
    buffer: buffer_window::BufferWindow,
    /// The command palette (Ctrl+K).
    palette: palette::Palette,
    /// The panes in presenter mode (lessons).
    presenter_layout: egui_tiles::Tree<layout::Pane>,
    /// Track one value.
    track: track_window::TrackWindow,
    /// The move journey window.
    journey: journey_window::JourneyWindow,
    /// Show the journey of the move at the cursor as soon as there is one (`--window journey`).
    journey_pending: bool,
    /// Actions the panes asked for this frame, applied once after it ([`Self::apply_actions`]).
    actions: Vec<Action>,
    /// The outcome of each editor's last command.
    feedback: Feedback,
    /// Every command sent to a session, described (for tests and the status line).
    commands_sent: Vec<String>,
    /// File writes and other slow work whose result is a status line.
    status_jobs: StatusJobs,
    /// Recordings opened or made in this and earlier runs (newest first).
    recent_recordings: Vec<String>,
}

impl MovescopeApp {
    pub fn new(options: AppOptions) -> Self {
        let (shot_tx, shot_rx) = bounded(2);
        let mut app = MovescopeApp {
            options,
            session: None,
            opened: None,
            opening: None,
            error: None,
            store: Store::new(None),
            paused: false,
            window_s: 20.0,
            time: TimeControl::following(),
            plot_window: None,
            last_frame: Instant::now(),
            recent: VecDeque::new(),
            recorder: None,
            record_started: Instant::now(),
            ready_since: None,
            shot: ShotState::Waiting,
            shot_tx,
            shot_rx,
            shot_path: None,
            report_pending: None,
            status: status::Status::default(),
            plots: plots::PlotsPanel::default(),
            world: world_view::WorldView::default(),
            log: event_log::EventLog::default(),
            timeline: timeline_bar::TimelineBar::default(),
            show_help: false,
            open_dialog: None,
            export: None,
            controls: controls::ControlsPane::default(),
            gmc: gmc_window::GmcWindow::default(),
            bindings: bindings_window::BindingsWindow::default(),
            last_drive: None,
            light: false,
            theme_applied: None,
            layout: layout::default_layout(),
            lessons: lessons::LessonsWindow::default(),
            whatif: whatif_window::WhatIfWindow::default(),
            doctor: doctor_window::DoctorWindow::default(),
            buffer: buffer_window::BufferWindow::default(),
            palette: palette::Palette::default(),
            presenter_layout: layout::presenter_layout(),
            track: track_window::TrackWindow::default(),
            journey: journey_window::JourneyWindow::default(),
            journey_pending: false,
            actions: Vec::new(),
            feedback: Feedback::default(),
            commands_sent: Vec::new(),
            status_jobs: StatusJobs::default(),
            recent_recordings: Vec::new(),
        };
        if app.options.persist
            && let Some(state) = layout::UiState::load()
        {
            // A layout saved by an older movescope (another arrangement of panes) is replaced.
            if layout::is_complete(&state.layout) && state.layout_version == layout::LAYOUT_VERSION
            {
                app.layout = state.layout;
            }
            app.light = state.light;
            if (5.0..=120.0).contains(&state.window_s) {
                app.window_s = state.window_s;
            }
            if state.plots_shown.len() == app.plots.shown.len() {
                app.plots.shown = state.plots_shown;
            }
            app.recent_recordings = state.recent_recordings;
        }
        if !app.options.whatif.is_empty() {
            app.whatif.open = true;
            app.whatif.changes = app.options.whatif.join("\n");
            app.whatif.pending = true;
        }
        for w in app.options.windows.clone() {
            match w.as_str() {
                "bindings" => app.bindings.open = true,
                "gmc" => app.gmc.open = true,
                "help" => app.show_help = true,
                "whatif" => app.whatif.open = true,
                "journey" => app.journey_pending = true,
                "doctor" => app.doctor.open = true,
                "buffer" => app.buffer.open = true,
                "track" => app.track.open = true,
                // Not a window: presenter mode of the lessons panel (opened with it).
                "presenter" => {
                    app.lessons.presenter = true;
                    app.lessons.open = true;
                }
                // Not a window: the world view side by side with the server's.
                "vs-server" => app.world.side_by_side = true,
                "lessons" => {
                    // Opened on a lesson's preset: that lesson is the current one.
                    app.lessons.open = true;
                    app.lessons.list = lessons::shipped_lessons();
                    let name = lessons::lesson_key(&app.options.preset_name);
                    app.lessons.current = app
                        .lessons
                        .list
                        .iter()
                        .position(|e| lessons::lesson_key(&e.name) == name);
                    // As when picked in the panel: a first question holds the session.
                    let asks_first = app
                        .lessons
                        .current
                        .and_then(|i| app.lessons.list.get(i))
                        .and_then(|e| e.preset.lesson.as_ref())
                        .and_then(|l| l.steps.first())
                        .is_some_and(|st| st.question.is_some());
                    match app.options.answer {
                        // Answered already: the session runs and the answer shows.
                        Some(k) if asks_first => {
                            app.lessons.choice = Some(k.saturating_sub(1));
                            app.lessons.revealed = true;
                        }
                        None if asks_first => {
                            app.lessons.held = true;
                            app.actions.push(Action::Hold(true));
                        }
                        _ => {}
                    }
                }
                other => {
                    app.status.set(format!(
                        "error: unknown window `{other}` ({})",
                        WINDOWS.join(", ")
                    ));
                }
            }
        }
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
        self.session.as_ref()
    }

    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// The timeline's state (for tests and tools).
    pub fn time(&self) -> &TimeControl {
        &self.time
    }

    /// The store every view reads (for tests and tools).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Whether a recording is still loading.
    pub fn is_loading(&self) -> bool {
        self.opened.as_ref().is_some_and(|o| o.loader.is_some())
    }

    /// Traces a move of `client` (`move_id`, or the one it closed nearest `t` — executed on
    /// the server nearest `t` when `on_server`) in the move journey window, from the opened
    /// recording or the live session's recent records.
    pub fn show_lineage(&mut self, client: u16, move_id: Option<u32>, t: f64, on_server: bool) {
        let source = match &self.opened {
            Some(o) => journey_window::TraceSource::File(o.recording.clone()),
            None => journey_window::TraceSource::Live {
                records: self
                    .recent
                    .iter()
                    .filter(|r| r.t >= t - 3.0 && r.t <= t + 3.0)
                    .cloned()
                    .collect(),
                bindings: self
                    .session
                    .as_ref()
                    .map(|s| s.bindings().list().to_vec())
                    .unwrap_or_default(),
            },
        };
        self.journey.trace(source, client, move_id, t, on_server);
    }

    /// The lineage shown (for tests and tools).
    pub fn lineage(&self) -> Option<&Result<crate::analysis::lineage::Lineage, String>> {
        self.journey.shown()
    }

    /// Whether a journey is being traced, or its bound values re-simulated.
    pub fn is_tracing_values(&self) -> bool {
        self.journey.is_tracing()
    }

    /// The last what-if comparison (for tests and tools).
    pub fn whatif_result(&self) -> Option<&crate::analysis::whatif::Comparison> {
        self.whatif.result.as_ref()
    }

    /// Where the plot titled `title` drew its values last frame (for tests and tools).
    pub fn plot_transform(&self, title: &str) -> Option<egui_plot::PlotTransform> {
        self.plots.transform(title)
    }

    /// The time window the plots show.
    pub fn plot_window(&self) -> Option<(f64, f64)> {
        self.plot_window
    }

    /// The status line (what the last action did).
    pub fn status(&self) -> &str {
        self.status.latest()
    }

    /// The doctor's last report (for tests and tools).
    pub fn doctor_report(&self) -> Option<&crate::analysis::doctor::Report> {
        self.doctor.report()
    }

    /// Runs the doctor on what is shown: the recording, or the live session's recent records.
    fn examine(&mut self) {
        let source = match &self.opened {
            Some(o) => doctor_window::DoctorSource::Recording(o.recording.clone()),
            None => doctor_window::DoctorSource::Live {
                bindings: self
                    .session
                    .as_ref()
                    .map(|s| s.bindings().list().to_vec())
                    .unwrap_or_default(),
                records: self.recent.iter().cloned().collect(),
            },
        };
        self.doctor.examine(source);
    }

    /// Applies a timeline command (the bar, the keyboard and clicks go through here).
    pub fn time_command(&mut self, cmd: TimeCommand) {
        self.time.apply(cmd, &self.store);
    }

    fn reset_view(&mut self) {
        self.plots.overlay = None;
        self.plots.clear_cache();
        self.whatif.result = None;
        self.doctor.reset();
        self.store = Store::new(self.options.retention);
        self.recent.clear();
        self.plot_window = None;
        self.paused = false;
        self.error = None;
        self.status.session_changed();
    }

    /// The settings shown: the live session's own preset (every change applied), a
    /// recording's, or (when nothing runs) the preset the app was started with.
    pub fn shown_preset(&self) -> &Preset {
        if let Some(s) = &self.session {
            return s.preset();
        }
        if let Some(o) = &self.opened {
            return &o.recording.header.preset;
        }
        &self.options.preset
    }

    /// What the settings panes read (borrows only the fields it names, so a pane of the
    /// app can be drawn with it).
    fn session_view<'a>(
        session: &'a Option<LiveSession>,
        opened: &'a Option<Opened>,
        options: &'a AppOptions,
        time: &TimeControl,
        feedback: &'a Feedback,
    ) -> SessionView<'a> {
        let preset = match (session, opened) {
            (Some(s), _) => s.preset(),
            (None, Some(o)) => &o.recording.header.preset,
            (None, None) => &options.preset,
        };
        let client_ids = match session {
            Some(s) => s.client_ids(),
            None => preset.network_clients().collect(),
        };
        SessionView {
            preset,
            live: session.is_some(),
            client_ids,
            now: session.as_ref().map_or(time.cursor(), |s| s.clock().now()),
            feedback,
        }
    }

    /// Every command sent to a session so far, described (for tests and tools).
    pub fn commands_sent(&self) -> &[String] {
        &self.commands_sent
    }

    /// Starts `options.preset` live. The session takes the preset: from here on it is the
    /// only copy that counts.
    fn start_live(&mut self) {
        self.stop_recording();
        self.opened = None;
        self.opening = None;
        self.reset_view();
        self.controls.session_changed();
        self.feedback.clear();
        let started = match &self.options.source {
            Source::Host(o) => LiveSession::host(&self.options.preset, o),
            Source::Join(o) => LiveSession::join(o.clone()),
            Source::Live | Source::Recording { .. } => LiveSession::start(&self.options.preset),
        };
        match started {
            Ok(s) => {
                // A participant's keyboard drives its own pawn from the start.
                if let Some((id, _)) = s.joined() {
                    self.controls.drive = Some(id);
                    self.world.viewer = crate::model::telemetry::Machine::Client(id);
                }
                self.session = Some(s);
                self.store.set_growing(true);
                self.time = TimeControl::following();
                self.ready_since = Some(Instant::now());
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Starts `preset` live under `name` (empty: keep the current name).
    pub(super) fn start_preset(&mut self, preset: Preset, name: String) {
        if let Some(s) = self.session.take() {
            s.stop();
        }
        self.options.preset = preset;
        if !name.is_empty() {
            self.options.preset_name = name;
        }
        self.options.reopened = false;
        self.start_live();
    }

    /// Loads a preset (a file, or a shipped preset by name) and starts it live (a load error
    /// goes to the status line).
    pub(super) fn start_preset_named(&mut self, name: &str) -> bool {
        match Preset::find(name) {
            Ok((p, name)) => {
                self.start_preset(p, name.clone());
                self.status.set(format!("started {name}"));
                true
            }
            Err(e) => {
                self.status.set(format!("error: {e}"));
                false
            }
        }
    }

    /// Stops any live session once `path` is open, and loads it in the background. Opening
    /// (which may scan a damaged file) runs on a job thread.
    pub fn open_recording(&mut self, path: &Path, at: Option<f64>) {
        let shown = path.to_path_buf();
        match Job::spawn(format!("opening {}", path.display()), move |_| {
            Recording::open(&shown).map_err(|e| e.to_string())
        }) {
            Ok(job) => {
                self.status.set(job.what.clone());
                self.opening = Some((job, at));
            }
            Err(e) => self.status.set(format!("error: {e}")),
        }
    }

    /// Polls the recording being opened; once open, shows it.
    fn poll_opening(&mut self) {
        let Some((job, at)) = self.opening.as_mut() else {
            return;
        };
        let at = *at;
        let result = match job.poll() {
            Poll::Pending => return,
            Poll::Ready(r) => r,
            Poll::Lost => Err(format!("{} stopped without a result", job.what)),
        };
        self.opening = None;
        match result {
            Ok(r) => self.show_recording(Arc::new(r), at),
            Err(e) => {
                self.status.set(format!("error: {e}"));
                if self.session.is_none() && self.opened.is_none() {
                    self.error = Some(e);
                }
            }
        }
    }

    /// Whether a recording is being opened (scanned) or loaded.
    pub fn is_opening(&self) -> bool {
        self.opening.is_some()
    }

    fn show_recording(&mut self, recording: Arc<Recording>, at: Option<f64>) {
        self.stop_recording();
        if let Some(s) = self.session.take() {
            s.stop();
        }
        self.reset_view();
        self.controls.session_changed();
        self.feedback.clear();
        self.store = Store::new(None);
        self.store.set_growing(true);
        self.options.preset_name = recording.header.preset_name.clone();
        self.options.reopened = false;
        let path = recording.path.display().to_string();
        self.recent_recordings.retain(|p| *p != path);
        self.recent_recordings.insert(0, path);
        self.recent_recordings.truncate(10);
        let asked = at.or(recording.header.cursor);
        let (first, last) = recording.span();
        let start = asked.unwrap_or(first);
        // Opened fitted to its length (within what the plots' window allows).
        if (last - first).is_finite() {
            self.window_s = (last - first).clamp(5.0, 120.0);
        }
        // The cursor is placed once the store holds the records around it.
        self.time = TimeControl::at(start);
        self.ready_since = None;
        let (tx, rx) = bounded(8);
        let rec = recording.clone();
        let spawned = std::thread::Builder::new()
            .name("recording loader".into())
            .spawn(move || {
                let mut file = match rec.reopen() {
                    Ok(f) => f,
                    Err(e) => {
                        let _ = tx.send(LoadMsg::Done(Some(Damage {
                            offset: 0,
                            chunk: 0,
                            loaded_until: 0.0,
                            message: e.message,
                        })));
                        return;
                    }
                };
                for i in 0..rec.chunks.len() {
                    match rec.read_chunk_with(&mut file, i) {
                        Ok(batch) => {
                            if tx.send(LoadMsg::Batch(batch)).is_err() {
                                return;
                            }
                        }
                        Err(d) => {
                            let _ = tx.send(LoadMsg::Done(Some(d)));
                            return;
                        }
                    }
                }
                let _ = tx.send(LoadMsg::Done(rec.damage.clone()));
            });
        if let Err(e) = spawned {
            self.status.set(format!("error: cannot start loading: {e}"));
            return;
        }
        self.status.set(format!("loading {}", recording.describe()));
        self.opened = Some(Opened {
            recording,
            loader: Some(rx),
            damage: None,
            start,
            placed: false,
            start_asked: asked.is_some(),
        });
    }

    /// Sends a command to the live session; its outcome is shown at `origin` and kept in
    /// [`Self::commands_sent`].
    fn command(&mut self, origin: action::Origin, cmd: Command) {
        let Some(s) = self.session.as_mut() else {
            self.feedback
                .set(origin, false, "refused: no live session".into());
            return;
        };
        let described = format!("{cmd:?}");
        let text: String = described.chars().take(200).collect();
        match s.command(cmd) {
            Ok(outcome) => {
                self.commands_sent.push(text);
                self.feedback.set(origin, true, outcome.describe());
            }
            Err(e) => {
                self.commands_sent.push(format!("{text} (refused)"));
                self.feedback.set(origin, false, e.to_string());
                self.status.set(format!("error: {e}"));
            }
        }
    }

    /// Applies the actions queued during the frame, in order, in this one place.
    fn apply_actions(&mut self, ctx: &egui::Context) {
        let actions = std::mem::take(&mut self.actions);
        for a in actions {
            match a {
                Action::Session { origin, command } => self.command(origin, command),
                Action::ChangeTo { origin, preset } => {
                    let Some(s) = self.session.as_mut() else {
                        let name = self.options.preset_name.clone();
                        self.start_preset(*preset, name);
                        continue;
                    };
                    match s.change_to(&preset) {
                        Ok(Outcome::NeedsRestart(keys)) => {
                            self.commands_sent
                                .push(format!("restart for {}", keys.join(", ")));
                            let name = self.options.preset_name.clone();
                            self.start_preset(*preset, name);
                            self.feedback.set(
                                origin,
                                true,
                                format!("restarted the session ({})", keys.join(", ")),
                            );
                        }
                        Ok(outcome) => {
                            self.commands_sent.push("change to a preset".into());
                            self.feedback.set(origin, true, outcome.describe());
                        }
                        Err(e) => {
                            self.feedback.set(origin, false, e.to_string());
                            self.status.set(format!("error: {e}"));
                        }
                    }
                }
                Action::Start { preset, name } => self.start_preset(*preset, name),
                Action::StartNamed(name) => {
                    self.start_preset_named(&name);
                }
                Action::SavePreset(path) => self.save_preset(path),
                Action::Time(cmd) => self.time_command(cmd),
                Action::Journey {
                    client,
                    move_id,
                    t,
                    on_server,
                } => self.show_lineage(client, move_id, t, on_server),
                Action::OpenRecording(path) => self.open_recording(&path, None),
                Action::Toggle(t) => self.toggle(t),
                Action::DismissStatus => self.status.dismiss_problem(),
                Action::StartLesson(name) => {
                    let more = self.lessons.start_named(&name);
                    self.actions.extend(more);
                }
                Action::Hold(pause) => {
                    if self.paused != pause && self.session.is_some() {
                        self.toggle_pause();
                    }
                }
                Action::LiveFromRecording => {
                    if let Some(o) = &self.opened {
                        let preset = o.recording.header.preset.clone();
                        let name = o.recording.header.preset_name.clone();
                        self.start_preset(preset, name);
                    }
                }
                Action::TogglePause => self.toggle_pause(),
                Action::StartRecording => {
                    let stamp = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs());
                    self.start_recording(
                        PathBuf::from(RECORDINGS_DIR).join(format!("session-{stamp}.msrec")),
                    );
                }
                Action::StopRecording => self.stop_recording(),
                Action::WindowSeconds(s) => self.window_s = s.clamp(5.0, 120.0),
                Action::Screenshot => {
                    let name = format!("movescope-{:.0}.png", self.time.cursor() * 1000.0);
                    self.request_screenshot(ctx, PathBuf::from(name));
                }
                Action::BugReport => self.bug_report(ctx),
                Action::ResetLayout => self.layout = layout::default_layout(),
                Action::Examine => {
                    self.doctor.open = true;
                    self.examine();
                }
                Action::ClearOverlay => {
                    self.plots.overlay = None;
                    self.plots.clear_cache();
                }
                Action::ShowPlot(title) => {
                    if let Some(i) = plots::PLOTS.iter().position(|p| p.title == title) {
                        self.plots.shown[i] = true;
                        // Brought into view (it may be below the fold).
                        self.plots.scroll_to = Some(plots::PLOTS[i].title);
                    }
                }
                Action::OpenExport => {
                    self.export = Some(export_dialog::ExportDialog::default());
                }
                Action::ExportCsv { path, points } => {
                    let job = Job::spawn(format!("writing {}", path.display()), move |_| {
                        let mut text = Vec::new();
                        let n = crate::analysis::report::write_points_csv(&points, &mut text)
                            .map_err(|e| format!("export failed: {e}"))?;
                        write_file(&path, &text)
                            .map(|()| format!("wrote {n} rows to {}", path.display()))
                            .map_err(|e| format!("export failed: {e}"))
                    });
                    match job {
                        Ok(j) => self.status_jobs.push(j),
                        Err(e) => self.status.set(format!("error: {e}")),
                    }
                }
            }
        }
    }

    /// Opens or closes a window (or switches the theme).
    fn toggle(&mut self, t: Toggle) {
        match t {
            Toggle::Lessons => self.lessons.open = !self.lessons.open,
            Toggle::Open => {
                if self.open_dialog.take().is_none() {
                    self.open_dialog = Some(open_dialog::OpenDialog::new());
                }
            }
            Toggle::Doctor => {
                self.doctor.open = !self.doctor.open;
                if self.doctor.open && self.doctor.report.is_none() {
                    self.examine();
                }
            }
            Toggle::WhatIf => self.whatif.open = !self.whatif.open,
            Toggle::Help => self.show_help = !self.show_help,
            Toggle::Bindings => self.bindings.open = !self.bindings.open,
            Toggle::Gmc => self.gmc.open = !self.gmc.open,
            Toggle::Buffer => self.buffer.open = !self.buffer.open,
            Toggle::Track => self.track.open = !self.track.open,
            Toggle::Theme => self.light = !self.light,
        }
    }

    /// Writes the session's preset (every live change included) on a job thread.
    fn save_preset(&mut self, path: PathBuf) {
        let text = format!(
            "// Saved by movescope from a live session.\n// Schema: docs/presets.md.\n{}\n",
            self.shown_preset().to_ron()
        );
        let shown = path.display().to_string();
        match Job::spawn(format!("saving {shown}"), move |_| {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(format!("preset saved to {}", path.display()))
        }) {
            Ok(job) => self.status_jobs.push(job),
            Err(e) => self.status.set(format!("error: {e}")),
        }
        self.controls.refresh_presets();
    }

    fn take(&mut self, r: Record) {
        self.store.ingest(&r);
        // A machine that stopped is said in the top bar, not only in the log.
        if let crate::model::telemetry::Event::Log {
            level: crate::model::telemetry::LogLevel::Error,
            text,
        } = &r.event
            && text.contains(crate::net::live::STOPPED)
        {
            self.status.set(format!("error: {text}"));
        }
        if let Some(rec) = self.recorder.as_mut()
            && let Err(e) = rec.push(&r)
        {
            self.status.set(format!("error: recording stopped: {e}"));
            self.recorder = None;
        }
        if self.session.is_some() {
            let keep = REPORT_BEFORE + REPORT_AFTER + 5.0;
            while self.recent.front().is_some_and(|f| r.t - f.t > keep) {
                self.recent.pop_front();
            }
            self.recent.push_back(r);
        }
    }

    /// Moves telemetry (or a recording's records) into the store, under a time budget.
    fn drain(&mut self) {
        if let Some(s) = self.session.as_ref() {
            let rx = s.telemetry().clone();
            let deadline = Instant::now() + DRAIN_BUDGET;
            while Instant::now() < deadline {
                let Ok(r) = rx.try_recv() else { break };
                self.take(r);
            }
            return;
        }
        let Some(rx) = self.opened.as_ref().and_then(|o| o.loader.clone()) else {
            return;
        };
        let deadline = Instant::now() + LOAD_BUDGET;
        while Instant::now() < deadline {
            match rx.try_recv() {
                Ok(LoadMsg::Batch(batch)) => {
                    for r in batch {
                        self.store.ingest(&r);
                    }
                    // The cursor is placed once the store reaches it (not while it is empty).
                    if let Some(o) = self.opened.as_mut()
                        && !o.placed
                        && self.store.latest() >= o.start
                    {
                        o.placed = true;
                        let start = o.start;
                        self.time.apply(TimeCommand::Seek(start), &self.store);
                    }
                }
                Ok(LoadMsg::Done(damage)) => {
                    self.finish_loading(damage);
                    break;
                }
                Err(crossbeam_channel::TryRecvError::Empty) => break,
                Err(crossbeam_channel::TryRecvError::Disconnected) => {
                    self.finish_loading(None);
                    break;
                }
            }
        }
    }

    fn finish_loading(&mut self, damage: Option<Damage>) {
        self.store.set_growing(false);
        // A --whatif run waits for it (and the screenshot waits for the what-if).
        self.ready_since = (!self.whatif.pending).then(Instant::now);
        let t = match self.opened.as_mut() {
            Some(o) if !o.placed => {
                o.placed = true;
                o.start
            }
            _ => self.time.cursor(),
        };
        // Not asked where to open, and not moved while loading: at the first correction,
        // where there is something to see (the world view and log are filled there).
        let t = match &self.opened {
            Some(o) if !o.start_asked && (t - o.start).abs() < 1e-9 => self
                .store
                .next_mark(
                    &[MarkKind::Correction, MarkKind::Replay],
                    f64::NEG_INFINITY,
                    true,
                )
                .unwrap_or(t),
            _ => t,
        };
        self.time.apply(TimeCommand::Seek(t), &self.store);
        if let Some(o) = self.opened.as_mut() {
            o.loader = None;
            self.status.set(match &damage {
                Some(d) => format!("error: {}: {d}", o.recording.path.display()),
                None => format!("loaded {}", o.recording.describe()),
            });
            o.damage = damage;
        }
    }

    fn start_recording(&mut self, path: PathBuf) {
        let header = match Header::new(self.shown_preset(), &self.options.preset_name, "live") {
            Ok(h) => h,
            Err(e) => {
                self.status.set(format!("error: cannot record: {e}"));
                return;
            }
        };
        let replace = self.options.record_force && self.options.record.as_ref() == Some(&path);
        let created = if replace {
            Recorder::create_replacing(&path, &header)
        } else {
            Recorder::create(&path, &header)
        };
        match created {
            Ok(mut r) => {
                // The UI thread never waits for the writer: when it lags, chunks wait in
                // memory (up to 256 MB) and the top bar says so.
                r.never_block(256 << 20);
                self.status.set(format!("recording to {}", path.display()));
                let shown = path.display().to_string();
                self.recent_recordings.retain(|p| *p != shown);
                self.recent_recordings.insert(0, shown);
                self.recent_recordings.truncate(10);
                self.recorder = Some(r);
                self.record_started = Instant::now();
            }
            Err(e) => self.status.set(format!("error: cannot record: {e}")),
        }
    }

    /// Finishes the recording on a job thread (the last chunk, the index, the trailer).
    fn stop_recording(&mut self) {
        if let Some(rec) = self.recorder.take() {
            let footer = Footer {
                simulated_seconds: self.store.latest(),
                wall_seconds: self.record_started.elapsed().as_secs_f64(),
                dropped_records: self.session.as_ref().map_or(0, |s| s.telemetry_dropped()),
            };
            let what = format!("finishing {}", rec.path().display());
            match Job::spawn(what, move |_| {
                rec.finish(footer)
                    .map(|stats| {
                        format!(
                            "recorded {} records to {} ({} KB)",
                            stats.records,
                            stats.path.display(),
                            stats.bytes / 1024
                        )
                    })
                    .map_err(|e| format!("recording failed: {e}"))
            }) {
                Ok(job) => self.status_jobs.push(job),
                Err(e) => self.status.set(format!("error: {e}")),
            }
        }
    }

    /// Polls the status jobs and the screenshot channel.
    fn screenshots(&mut self, ctx: &egui::Context) {
        for r in self.status_jobs.finished() {
            self.status.set(match r {
                Ok(t) => {
                    if t.starts_with("preset saved") {
                        self.controls.refresh_presets();
                    }
                    t
                }
                Err(e) => format!("error: {e}"),
            });
        }
        if !self.status_jobs.is_empty() {
            ctx.request_repaint_after(Duration::from_millis(50));
        }
        // A bug report whose picture did not come: the other three files, and a warning.
        if self
            .report_pending
            .as_ref()
            .is_some_and(|(_, since)| since.elapsed() > REPORT_PICTURE_WAIT)
            && let Some((work, _)) = self.report_pending.take()
        {
            // (A picture that still comes is saved where it was meant to go, view.png.)
            match Job::spawn("writing the bug report", move |_| work(None)) {
                Ok(j) => self.status_jobs.push(j),
                Err(e) => self.status.set(format!("error: {e}")),
            }
        }
        if self.report_pending.is_some() {
            ctx.request_repaint_after(Duration::from_millis(100));
        }
        if let Ok(img) = self.shot_rx.try_recv() {
            let path = self
                .shot_path
                .take()
                .unwrap_or_else(|| PathBuf::from("movescope.png"));
            if let Some((work, _)) = self.report_pending.take() {
                match Job::spawn(
                    format!("writing the bug report {}", path.display()),
                    move |_| work(Some(&img)),
                ) {
                    Ok(j) => self.status_jobs.push(j),
                    Err(e) => self.status.set(format!("error: {e}")),
                }
                return;
            }
            let exiting =
                matches!(self.shot, ShotState::Requested) && self.options.screenshot.is_some();
            if exiting {
                // `--screenshot`: written here, then the window closes.
                self.shot = ShotState::Done;
                if let Err(e) = save_png(&path, &img) {
                    eprintln!("movescope: screenshot failed: {e}");
                    std::process::exit(1);
                }
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            } else {
                let job = Job::spawn(format!("writing {}", path.display()), move |_| {
                    save_png(&path, &img)
                        .map(|()| format!("screenshot saved to {}", path.display()))
                });
                match job {
                    Ok(j) => self.status_jobs.push(j),
                    Err(e) => self.status.set(format!("error: {e}")),
                }
            }
        }
        if let (Some(plan), ShotState::Waiting, Some(ready)) =
            (&self.options.screenshot, &self.shot, self.ready_since)
            && ready.elapsed().as_secs_f64() >= plan.after
        {
            let path = plan.path.clone();
            self.shot = ShotState::Requested;
            self.request_screenshot(ctx, path);
        }
    }

    fn request_screenshot(&mut self, ctx: &egui::Context, path: PathBuf) {
        self.shot_path = Some(path);
        let tx = self.shot_tx.clone();
        let repaint = ctx.clone();
        ctx.request_screenshot(move |img| {
            let _ = tx.try_send(img);
            repaint.request_repaint();
        });
    }

    /// One action: a trimmed recording around the cursor, the preset, a Markdown summary and
    /// a picture of the window, in a new folder under `reports/`. The picture is taken now;
    /// reading the recording and writing the files run on a job thread.
    pub fn bug_report(&mut self, ctx: &egui::Context) {
        let cursor = self.time.cursor();
        let (t0, t1) = (cursor - REPORT_BEFORE, cursor + REPORT_AFTER);
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let dir = PathBuf::from(REPORTS_DIR).join(format!("report-{stamp}"));
        enum Source {
            File(Arc<Recording>),
            Live(Box<Header>, Vec<Record>),
        }
        let source = if let Some(o) = &self.opened {
            Source::File(o.recording.clone())
        } else {
            match Header::new(self.shown_preset(), &self.options.preset_name, "live") {
                Ok(h) => Source::Live(
                    Box::new(h),
                    self.recent
                        .iter()
                        .filter(|r| r.t >= t0 && r.t <= t1)
                        .cloned()
                        .collect(),
                ),
                Err(e) => {
                    self.status.set(format!("error: bug report failed: {e}"));
                    return;
                }
            }
        };
        // The picture is taken first; once it arrives, one job writes all four files, so the
        // status line names them together (or says what failed).
        let out = dir.clone();
        let work: ReportWork = Box::new(move |img: Option<&egui::ColorImage>| {
            let (header, window) = match source {
                Source::File(rec) => (
                    rec.header.clone(),
                    crate::analysis::report::records_between(&rec, t0, t1)
                        .map_err(|e| format!("bug report failed: {e}"))?,
                ),
                Source::Live(h, w) => (*h, w),
            };
            let files = crate::analysis::report::write_report(&out, &header, &window, cursor)
                .map_err(|e| format!("bug report failed: {e}"))?;
            match img {
                Some(img) => {
                    save_png(&files.picture, img).map_err(|e| {
                        format!("bug report failed: {}: {e}", files.picture.display())
                    })?;
                    Ok(format!(
                        "bug report written to {}: session.msrec, preset.ron, summary.md, view.png",
                        out.display()
                    ))
                }
                None => Ok(format!(
                    "warning: bug report written to {} without its picture (the window could not be captured): session.msrec, preset.ron, summary.md",
                    out.display()
                )),
            }
        });
        self.report_pending = Some((work, Instant::now()));
        self.request_screenshot(ctx, dir.join("view.png"));
    }

    fn top_bar(&mut self, ui: &mut egui::Ui) {
        let preset = self.shown_preset();
        let mut running = self.status_jobs.running();
        if let Some((job, _)) = &self.opening {
            running.push(job.what.clone());
        }
        let view = top_bar::TopView {
            title: &preset.title,
            description: &preset.description,
            preset_name: &self.options.preset_name,
            reopened: self.options.reopened,
            recording: self.opened.as_ref().map(|o| top_bar::RecordingShown {
                file_name: o
                    .recording
                    .path
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().to_string()),
                describe: o.recording.describe(),
                loading: o.loader.is_some().then(|| self.store.records()),
                damage: o.damage.as_ref().map(|d| d.to_string()),
            }),
            live_now: self.session.as_ref().map(|s| s.clock().now()),
            network: self.session.as_ref().and_then(network_shown),
            paused: self.paused,
            recording_to: self
                .recorder
                .as_ref()
                .map(|r| (r.path().display().to_string(), r.lagging())),
            window_s: self.window_s,
            light: self.light,
            dropped: self.session.as_ref().map_or(0, |s| s.telemetry_dropped()),
            running,
        };
        let actions = top_bar::ui(ui, &view);
        self.actions.extend(actions);
    }

    fn toggle_pause(&mut self) {
        self.paused = !self.paused;
        self.command(
            "pause",
            if self.paused {
                Command::Pause
            } else {
                Command::Resume
            },
        );
        if self.paused {
            // A paused session loses nothing if the app is killed now.
            if let Some(rec) = self.recorder.as_mut() {
                let _ = rec.flush();
            }
        }
    }

    /// The machine whose frames and moves the step buttons use.
    fn step_machine(&self, moves: bool) -> Machine {
        timeline_bar::step_machine(self.world.viewer, moves)
    }

    /// Keys become actions (applied after the frame with the rest).
    fn keyboard(&mut self, ctx: &egui::Context) {
        // Ctrl+K (Cmd+K): the command palette, wherever the keyboard focus is.
        if ctx.input(|i| i.modifiers.command && i.key_pressed(egui::Key::K)) {
            self.palette.open = !self.palette.open;
        }
        if ctx.egui_wants_keyboard_input() {
            return;
        }
        let (space, left, right, shift, pgup, pgdn, end, f1) = ctx.input(|i| {
            (
                i.key_pressed(egui::Key::Space),
                i.key_pressed(egui::Key::ArrowLeft),
                i.key_pressed(egui::Key::ArrowRight),
                i.modifiers.shift,
                i.key_pressed(egui::Key::PageUp),
                i.key_pressed(egui::Key::PageDown),
                i.key_pressed(egui::Key::End),
                i.key_pressed(egui::Key::F1),
            )
        });
        // Space dashes while the keyboard drives a pawn.
        if space && self.controls.drive.is_none() {
            if self.session.is_some() {
                self.actions.push(Action::TogglePause);
            } else {
                self.actions.push(Action::Time(TimeCommand::TogglePlay));
            }
        }
        for (pressed, forward) in [(left, false), (right, true)] {
            if pressed {
                let cmd = if shift {
                    TimeCommand::StepMove {
                        machine: self.step_machine(true),
                        forward,
                    }
                } else {
                    TimeCommand::StepFrame {
                        machine: self.step_machine(false),
                        forward,
                    }
                };
                self.actions.push(Action::Time(cmd));
            }
        }
        for (pressed, forward) in [(pgup, false), (pgdn, true)] {
            if pressed {
                self.actions.push(Action::Time(TimeCommand::JumpMark {
                    kinds: MarkKind::ALL.to_vec(),
                    forward,
                }));
            }
        }
        if end {
            self.actions.push(Action::Time(TimeCommand::FollowLive));
        }
        if f1 {
            self.actions.push(Action::Toggle(Toggle::Help));
        }
    }

    fn dialogs(&mut self, ctx: &egui::Context) {
        let actions = self.journey.ui(ctx);
        self.actions.extend(actions);
        let values_on = self.session.as_ref().map(|s| s.preset().value_trace);
        let actions = self
            .track
            .ui(ctx, &self.store, self.time.cursor(), values_on);
        self.actions.extend(actions);
        let (actions, views) = self.palette.ui(ctx);
        self.actions.extend(actions);
        for v in views {
            match v {
                palette::View::LogCorrections => {
                    self.log.filter = event_log::Filter {
                        kinds: [true, false, false, false],
                        ..Default::default()
                    }
                }
                palette::View::LogEverything => self.log.filter = event_log::Filter::default(),
                palette::View::WorldDelays => self.world.show_delays(),
                palette::View::SideBySide(on) => self.world.side_by_side = on,
            }
        }
        let trace_on = self.session.as_ref().map(|s| s.preset().buffer_trace);
        let actions = self
            .buffer
            .ui(ctx, &self.store, self.time.cursor(), trace_on);
        self.actions.extend(actions);
        if let Some(store_b) = self.whatif.poll() {
            self.plots.overlay = Some(store_b);
            self.plots.clear_cache();
        }
        if self.ready_since.is_none()
            && !self.whatif.is_running()
            && !self.whatif.pending
            && self.opened.as_ref().is_some_and(|o| o.loader.is_none())
        {
            // A `--whatif` run waited for its result before the screenshot.
            self.ready_since = Some(Instant::now());
        }
        let loaded = self
            .opened
            .as_ref()
            .filter(|o| o.loader.is_none())
            .map(|o| o.recording.clone());
        let view = whatif_window::WhatIfView {
            recording: loaded,
            faults: &Self::session_view(
                &self.session,
                &self.opened,
                &self.options,
                &self.time,
                &self.feedback,
            )
            .preset
            .faults,
            overlay: self.plots.overlay.is_some(),
        };
        let mut actions = self.whatif.ui(ctx, &view);
        actions.extend(self.doctor.ui(ctx, self.opened.is_some()));
        self.actions.extend(actions);
        {
            let bindings: Vec<crate::model::binding::Binding> = match &self.session {
                Some(s) => s.bindings().list().to_vec(),
                None => self
                    .shown_preset()
                    .bindings()
                    .map(|b| b.list().to_vec())
                    .unwrap_or_default(),
            };
            let view = Self::session_view(
                &self.session,
                &self.opened,
                &self.options,
                &self.time,
                &self.feedback,
            );
            let mut actions = self.bindings.ui(ctx, &view, &bindings);
            actions.extend(self.gmc.ui(ctx, &view));
            self.actions.extend(actions);
        }
        if self.show_help {
            self.show_help = help_window::ui(ctx);
        }
        if let Some(dlg) = self.open_dialog.as_mut() {
            let (keep, actions) = dlg.ui(ctx, &self.recent_recordings);
            self.actions.extend(actions);
            if !keep {
                self.open_dialog = None;
            }
        }
        if let Some(dlg) = self.export.as_mut() {
            let (keep, actions) = dlg.ui(ctx, &self.store, &self.time, self.window_s);
            self.actions.extend(actions);
            if !keep {
                self.export = None;
            }
        }
    }

    /// Sends the keyboard's input to the driven client when it changes.
    fn drive_keys(&mut self, ctx: &egui::Context) {
        let Some(client) = self.controls.drive else {
            self.last_drive = None;
            return;
        };
        if ctx.egui_wants_keyboard_input() {
            return;
        }
        let input = ctx.input(|i| {
            let k = |key| i.key_down(key);
            let x = f64::from(i8::from(k(egui::Key::D)) - i8::from(k(egui::Key::A)));
            let y = f64::from(i8::from(k(egui::Key::W)) - i8::from(k(egui::Key::S)));
            crate::model::input::RawInput {
                dir: glam::DVec2::new(x, y).normalize_or_zero(),
                dash: k(egui::Key::Space),
            }
        });
        if self.last_drive != Some(input) {
            self.last_drive = Some(input);
            self.command(
                "drive",
                Command::Drive {
                    client,
                    input: Some(input),
                },
            );
        }
    }
}

/// The top bar's words for a session across machines, and its hover text.
fn network_shown(s: &LiveSession) -> Option<(String, String)> {
    if let Some((addr, code)) = s.hosting() {
        let ps = s.participants();
        let connected = ps.iter().filter(|p| p.connected).count();
        let mut hover = format!(
            "Hosting a session. Participants join with:\n  movescope join {addr} --code {code} --name NAME\n\nParticipants:"
        );
        if ps.is_empty() {
            hover.push_str(" none yet");
        }
        for p in &ps {
            hover.push_str(&format!(
                "\n  client {} {}: {}{}",
                p.id,
                p.name.as_deref().unwrap_or("(no name)"),
                if p.connected {
                    "connected"
                } else {
                    "gone (its pawn waits)"
                },
                p.real_rtt
                    .map(|r| format!(", real round trip {:.1} ms", r * 1000.0))
                    .unwrap_or_default()
            ));
        }
        return Some((
            format!("hosting {addr} · code {code} · {connected} joined"),
            hover,
        ));
    }
    s.joined().map(|(id, server)| {
        (
            format!("participant: client {id} of {server}"),
            format!(
                "You are client {id} of the session hosted at {server}. W A S D and Space drive your pawn; the trainer changes the session's settings."
            ),
        )
    })
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
        if self.options.persist {
            let last_preset = self
                .session
                .as_ref()
                .and_then(|s| remembered_preset(&self.options.preset_name, s.preset()));
            let state = layout::UiState {
                layout: self.layout.clone(),
                light: self.light,
                window_s: self.window_s,
                plots_shown: self.plots.shown.clone(),
                last_preset,
                recent_recordings: self.recent_recordings.clone(),
                layout_version: layout::LAYOUT_VERSION,
            };
            if let Err(e) = state.save() {
                eprintln!("movescope: could not save the layout: {e}");
            }
        }
    }
}

impl eframe::App for MovescopeApp {
    /// `--screenshot`: the picture shows the app, not wherever the pointer happens to be (a
    /// pointer left over a plot would add a tooltip and a highlighted series).
    fn raw_input_hook(&mut self, _ctx: &egui::Context, raw_input: &mut egui::RawInput) {
        if self.options.screenshot.is_some() {
            raw_input.events.retain(|e| {
                !matches!(
                    e,
                    egui::Event::PointerMoved(_) | egui::Event::PointerButton { .. }
                )
            });
            raw_input.events.push(egui::Event::PointerGone);
        }
    }

    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.poll_opening();
        self.drain();
        let now = Instant::now();
        let dt = now.duration_since(self.last_frame).as_secs_f64();
        self.last_frame = now;
        self.time.advance(dt, &self.store);
        self.screenshots(ctx);
        self.keyboard(ctx);
        self.drive_keys(ctx);
        if self.theme_applied != Some(self.light) {
            ctx.set_theme(if self.light {
                egui::Theme::Light
            } else {
                egui::Theme::Dark
            });
            self.theme_applied = Some(self.light);
        }
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        if let Some(p) = dropped.into_iter().next() {
            self.actions.push(Action::OpenRecording(p));
        }
        let busy = self.session.is_some()
            || self.is_loading()
            || self.opening.is_some()
            || self.time.is_playing();
        ctx.request_repaint_after(Duration::from_millis(if busy { 33 } else { 250 }));
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        // Presenter mode's text size, while the lessons panel is open.
        let zoom = if self.lessons.open && self.lessons.presenter {
            lessons::PRESENTER_ZOOM
        } else {
            1.0
        };
        if ui.ctx().zoom_factor() != zoom {
            ui.ctx().set_zoom_factor(zoom);
        }
        egui::Panel::top("top").show(ui, |ui| self.top_bar(ui));
        egui::Panel::bottom("status")
            .resizable(false)
            .show(ui, |ui| {
                let actions = status::ui(ui, &self.status);
                self.actions.extend(actions);
            });
        let ctx = ui.ctx().clone();
        self.dialogs(&ctx);
        if let Some(e) = &self.error {
            egui::CentralPanel::default().show(ui, |ui| {
                ui.colored_label(Color32::RED, format!("The session could not start: {e}"));
            });
            self.apply_actions(&ctx);
            return;
        }
        egui::Panel::bottom("timeline")
            .resizable(false)
            .show(ui, |ui| {
                let actions = self.timeline.ui(
                    ui,
                    &self.store,
                    &self.time,
                    self.session.is_some(),
                    self.world.viewer,
                );
                self.actions.extend(actions);
            });
        // The lessons, docked beside the plots (never over what they point at).
        let actions = self.lessons.ui(
            ui,
            Self::session_view(
                &self.session,
                &self.opened,
                &self.options,
                &self.time,
                &self.feedback,
            )
            .preset,
            &self.feedback,
        );
        self.actions.extend(actions);
        // `--window journey`: the journey of the move at the cursor, once there is one.
        if self.journey_pending && (self.opened.is_some() || self.store.latest() > 2.0) {
            self.journey_pending = false;
            let client = match self.step_machine(true) {
                Machine::Client(c) => c,
                Machine::Server => 0,
            };
            self.actions.push(Action::Journey {
                client,
                move_id: None,
                t: self.time.cursor(),
                on_server: false,
            });
        }
        egui::CentralPanel::default()
            .frame(egui::Frame::new())
            .show(ui, |ui| {
                self.plots.focus = self.lessons.focus();
                let presenter = self.lessons.open && self.lessons.presenter;
                self.plots.only = presenter.then(|| self.lessons.presenter_plots());
                let plot_view = plots::View::at(
                    &self.time,
                    self.window_s,
                    (self.store.earliest(), self.store.latest()),
                    self.plot_window,
                );
                self.plot_window = Some((plot_view.t0, plot_view.t1));
                let mut behavior = layout::PaneBehavior {
                    focus: self.lessons.focus(),
                    controls: &mut self.controls,
                    plots: &mut self.plots,
                    world: &mut self.world,
                    log: &mut self.log,
                    view: Self::session_view(
                        &self.session,
                        &self.opened,
                        &self.options,
                        &self.time,
                        &self.feedback,
                    ),
                    plot_view,
                    store: &self.store,
                    cursor: self.time.cursor(),
                    actions: &mut self.actions,
                };
                if presenter {
                    self.presenter_layout.ui(&mut behavior, ui);
                } else {
                    self.layout.ui(&mut behavior, ui);
                }
            });
        // Everything the panes asked for this frame, in one place.
        self.apply_actions(&ctx);
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

/// Writes `bytes` to `path`, creating its folder.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    crate::support::output::write_file(path, bytes)
}

/// Writes an RGBA PNG; refuses an image with a single colour (a blank window).
pub fn save_png(path: &std::path::Path, img: &egui::ColorImage) -> Result<(), String> {
    let [w, h] = img.size;
    if w == 0 || h == 0 {
        return Err("the screenshot is empty".into());
    }
    let first = img.pixels[0];
    if img.pixels.iter().all(|p| *p == first) {
        return Err("the screenshot is blank (one colour)".into());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let bytes: Vec<u8> = img.pixels.iter().flat_map(|p| p.to_array()).collect();
    crate::support::output::write_atomic(path, |out| {
        let mut enc = png::Encoder::new(out, w as u32, h as u32);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(std::io::Error::other)?;
        writer
            .write_image_data(&bytes)
            .map_err(std::io::Error::other)?;
        writer.finish().map_err(std::io::Error::other)
    })
}

/// Opens the window.
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
