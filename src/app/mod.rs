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
use egui::{Color32, RichText};

use crate::live::{Command, LiveSession, Outcome};
use crate::model::telemetry::{Machine, Record};
use crate::preset::Preset;
use crate::recording::{Damage, Footer, Header, Recorder, Recording};
use crate::report::{REPORT_AFTER, REPORT_BEFORE};
use crate::store::{MarkKind, Metric, Store};
use crate::timeline::{SPEEDS, TimeCommand, TimeControl};

pub mod action;
mod bindings_window;
mod controls;
mod doctor_window;
mod gmc_window;
pub mod jobs;
pub mod layout;
mod lessons;
mod network;
pub mod plots;
mod whatif_window;

use action::{Action, Feedback, SessionView};
use jobs::{Job, Poll, StatusJobs};

/// Longest the UI spends draining live telemetry per frame.
const DRAIN_BUDGET: Duration = Duration::from_millis(6);
/// Longest the UI spends loading a recording per frame (it stays responsive meanwhile).
const LOAD_BUDGET: Duration = Duration::from_millis(25);
/// Seconds of history the store of a live session keeps by default.
pub const RETENTION: f64 = 600.0;
/// Folder recordings are saved in and opened from.
pub const RECORDINGS_DIR: &str = "recordings";
/// Folder bug reports are written to.
pub const REPORTS_DIR: &str = "reports";
/// Folder CSV exports are written to.
pub const EXPORTS_DIR: &str = "exports";
/// How far into a virtual-time recording the app re-simulates for a move's bound values (s).
/// The re-run happens on a background thread when a journey is asked for (the journey shows
/// at once, its values when the re-run is done): 600 s of the standard 8-client scenario,
/// records loaded and re-simulated, take about 1.5 s and hold about 200 MB meanwhile.
const RESIMULATE_MAX_S: f64 = 600.0;

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
}

/// How the app was started.
#[derive(Clone, Debug)]
pub struct AppOptions {
    pub preset: Preset,
    pub preset_name: String,
    pub screenshot: Option<ScreenshotPlan>,
    pub source: Source,
    /// Live: record the session to this file from the start.
    pub record: Option<PathBuf>,
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
            retention: Some(RETENTION),
            windows: Vec::new(),
            persist: false,
            whatif: Vec::new(),
            reopened: false,
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
}

/// The CSV export dialog.
struct ExportDialog {
    metrics: Vec<(Metric, bool)>,
    path: String,
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
    /// Cursor the plots were last placed around (they are re-placed when it moves).
    placed_at: Option<f64>,
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
    status: String,
    plots: plots::PlotsPanel,
    viewer: Machine,
    show_trails: bool,
    show_velocity: bool,
    show_labels: bool,
    show_ghost: bool,
    show_delays: bool,
    show_help: bool,
    open_dialog: Option<String>,
    /// The Open dialog's list of recordings (read by a job when the dialog opens).
    recordings_list: Option<Vec<PathBuf>>,
    recordings_job: Option<Job<Vec<PathBuf>>>,
    export: Option<ExportDialog>,
    /// Timeline drag with Shift: where the range selection started.
    range_anchor: Option<f64>,
    controls: controls::ControlsPane,
    gmc: gmc_window::GmcWindow,
    bindings: bindings_window::BindingsWindow,
    /// The input last sent to the driven client.
    last_drive: Option<crate::model::input::RawInput>,
    light: bool,
    /// The theme the window was last set to.
    theme_applied: Option<bool>,
    layout: egui_tiles::Tree<layout::Pane>,
    lessons: lessons::LessonState,
    whatif: whatif_window::WhatIfState,
    doctor: doctor_window::DoctorState,
    /// The move lineage shown (or why none could be).
    lineage: Option<Result<crate::lineage::Lineage, String>>,
    /// The shown lineage again, with its bound values, once a background re-simulation ends
    /// (dropped when another journey is asked for or the window closes).
    lineage_job: Option<Job<Option<crate::lineage::Lineage>>>,
    /// The journey being traced (records read and matched on a job thread).
    lineage_first: Option<Job<Traced>>,
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
            placed_at: None,
            last_frame: Instant::now(),
            recent: VecDeque::new(),
            recorder: None,
            record_started: Instant::now(),
            ready_since: None,
            shot: ShotState::Waiting,
            shot_tx,
            shot_rx,
            shot_path: None,
            status: String::new(),
            plots: plots::PlotsPanel::default(),
            viewer: Machine::Client(0),
            show_trails: true,
            show_velocity: true,
            show_labels: true,
            show_ghost: true,
            show_delays: true,
            show_help: false,
            open_dialog: None,
            recordings_list: None,
            recordings_job: None,
            export: None,
            range_anchor: None,
            controls: controls::ControlsPane::default(),
            gmc: gmc_window::GmcWindow::default(),
            bindings: bindings_window::BindingsWindow::default(),
            last_drive: None,
            light: false,
            theme_applied: None,
            layout: layout::default_layout(),
            lessons: lessons::LessonState::default(),
            whatif: whatif_window::WhatIfState::default(),
            doctor: doctor_window::DoctorState::default(),
            lineage: None,
            lineage_job: None,
            lineage_first: None,
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
            if layout::is_complete(&state.layout) {
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
                }
                other => {
                    app.status = format!(
                        "unknown window `{other}` (bindings, doctor, gmc, help, journey, lessons, whatif)"
                    )
                }
            }
        }
        match app.options.source.clone() {
            Source::Live => {
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

    /// Traces a move of `client`: `move_id`, or the one it closed nearest to `t`. The records
    /// are read and matched on a job thread; bound values come from the value trace:
    /// recorded, traced live, or (a virtual-time recording up to ten minutes in)
    /// re-simulated on a second job — the journey shows first, then again with its values.
    pub fn show_lineage(&mut self, client: u16, move_id: Option<u32>, t: f64) {
        self.lineage_job = None;
        let source = match &self.opened {
            Some(o) => TraceSource::File(o.recording.clone()),
            None => TraceSource::Live {
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
        match Job::spawn(format!("tracing client {client}'s move"), move |_| {
            trace_move(source, client, move_id, t)
        }) {
            Ok(j) => self.lineage_first = Some(j),
            Err(e) => self.lineage = Some(Err(e)),
        }
    }

    /// Polls the journey's jobs.
    fn poll_lineage(&mut self, ctx: &egui::Context) {
        if let Some(job) = self.lineage_first.as_mut() {
            let traced = match job.poll() {
                Poll::Pending => {
                    ctx.request_repaint_after(Duration::from_millis(50));
                    return;
                }
                Poll::Ready(t) => t,
                Poll::Lost => Traced {
                    shown: Err("tracing the move stopped without a result".into()),
                    resimulate: None,
                },
            };
            self.lineage_first = None;
            let mut shown = traced.shown;
            if let (Ok(l), Some(plan)) = (&mut shown, traced.resimulate) {
                match Job::spawn("re-simulating for bound values", move |ctx| plan.run(ctx)) {
                    Ok(j) => self.lineage_job = Some(j),
                    Err(e) => {
                        l.value_trace =
                            format!("not traced; could not start the re-simulation: {e}")
                    }
                }
            }
            self.lineage = Some(shown);
        }
        if let Some(job) = self.lineage_job.as_mut() {
            match job.poll() {
                Poll::Ready(Some(l)) => {
                    self.lineage = Some(Ok(l));
                    self.lineage_job = None;
                }
                Poll::Ready(None) | Poll::Lost => {
                    self.lineage_job = None;
                    if let Some(Ok(l)) = &mut self.lineage {
                        l.value_trace =
                            "not traced; the re-simulation stopped without values".into();
                    }
                }
                Poll::Pending => ctx.request_repaint_after(Duration::from_millis(100)),
            }
        }
    }

    /// Whether a journey is being traced, or its bound values re-simulated.
    pub fn is_tracing_values(&self) -> bool {
        self.lineage_job.is_some() || self.lineage_first.is_some()
    }

    /// The lineage shown (for tests and tools).
    pub fn lineage(&self) -> Option<&Result<crate::lineage::Lineage, String>> {
        self.lineage.as_ref()
    }

    fn lineage_window(&mut self, ctx: &egui::Context) {
        self.poll_lineage(ctx);
        let tracing = self.lineage_job.is_some();
        let Some(l) = &self.lineage else { return };
        let mut open = true;
        let mut seek = None;
        egui::Window::new("Move lineage")
            .open(&mut open)
            .default_width(620.0)
            .show(ctx, |ui| match l {
                Err(e) => {
                    ui.colored_label(Color32::from_rgb(230, 120, 80), e);
                }
                Ok(l) => {
                    ui.label(RichText::new(format!("client {} move {}", l.client, l.move_id)).strong());
                    ui.weak("Click a step to move the cursor there. (inferred): matched by timing or order, not by the move's id.");
                    ui.horizontal(|ui| {
                        if tracing {
                            ui.spinner();
                        }
                        ui.weak(format!("Bound values in -> out of each execution: {}.", l.value_trace));
                    });
                    egui::ScrollArea::vertical().max_height(520.0).show(ui, |ui| {
                        for st in &l.steps {
                            let text = format!(
                                "{:8.3} s  {:<9} {}{}",
                                st.t,
                                st.machine,
                                st.what,
                                if st.inferred { "  (inferred)" } else { "" }
                            );
                            if ui.selectable_label(false, text).clicked() {
                                seek = Some(st.t);
                            }
                            if !st.hooks.is_empty() {
                                ui.label(RichText::new(format!("      hooks: {}", st.hooks.join(", "))).weak());
                            }
                            if let Some(v) = &st.values {
                                ui.label(RichText::new(v.to_text("      ")).monospace());
                            }
                        }
                    });
                }
            });
        if let Some(t) = seek {
            self.time_command(TimeCommand::Seek(t));
        }
        if !open {
            self.lineage = None;
            self.lineage_job = None;
            self.lineage_first = None;
        }
    }

    /// The last what-if comparison (for tests and tools).
    pub fn whatif_result(&self) -> Option<&crate::whatif::Comparison> {
        self.whatif.result.as_ref()
    }

    /// The status line (what the last action did).
    pub fn status(&self) -> &str {
        &self.status
    }

    /// Applies a timeline command (the bar, the keyboard and clicks go through here).
    pub fn time_command(&mut self, cmd: TimeCommand) {
        self.time.apply(cmd, &self.store);
    }

    fn reset_view(&mut self) {
        self.plots.overlay = None;
        self.plots.clear_cache();
        self.whatif.result = None;
        self.store = Store::new(self.options.retention);
        self.recent.clear();
        self.placed_at = None;
        self.paused = false;
        self.error = None;
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
        match LiveSession::start(&self.options.preset) {
            Ok(s) => {
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
                self.status = format!("started {name}");
                self.start_preset(p, name);
                true
            }
            Err(e) => {
                self.status = format!("error: {e}");
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
                self.status = job.what.clone();
                self.opening = Some((job, at));
            }
            Err(e) => self.status = format!("error: {e}"),
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
                self.status = format!("error: {e}");
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
        let start = at.or(recording.header.cursor).unwrap_or(recording.span().0);
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
            self.status = format!("error: cannot start loading: {e}");
            return;
        }
        self.status = format!("loading {}", recording.describe());
        self.opened = Some(Opened {
            recording,
            loader: Some(rx),
            damage: None,
            start,
            placed: false,
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
                self.status = format!("error: {e}");
            }
        }
    }

    /// Applies the actions queued during the frame, in order, in this one place.
    fn apply_actions(&mut self) {
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
                            self.status = format!("error: {e}");
                        }
                    }
                }
                Action::Start { preset, name } => self.start_preset(*preset, name),
                Action::StartNamed(name) => {
                    self.start_preset_named(&name);
                }
                Action::SavePreset(path) => self.save_preset(path),
                Action::Time(cmd) => self.time_command(cmd),
                Action::Journey { client, move_id, t } => self.show_lineage(client, move_id, t),
                Action::OpenRecording(path) => self.open_recording(&path, None),
            }
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
            Err(e) => self.status = format!("error: {e}"),
        }
        self.controls.refresh_presets();
    }

    fn take(&mut self, r: Record) {
        self.store.ingest(&r);
        if let Some(rec) = self.recorder.as_mut()
            && let Err(e) = rec.push(&r)
        {
            self.status = format!("error: recording stopped: {e}");
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
        self.time.apply(TimeCommand::Seek(t), &self.store);
        if let Some(o) = self.opened.as_mut() {
            o.loader = None;
            self.status = match &damage {
                Some(d) => format!("error: {}: {d}", o.recording.path.display()),
                None => format!("loaded {}", o.recording.describe()),
            };
            o.damage = damage;
        }
    }

    fn start_recording(&mut self, path: PathBuf) {
        let header = match Header::new(self.shown_preset(), &self.options.preset_name, "live") {
            Ok(h) => h,
            Err(e) => {
                self.status = format!("error: cannot record: {e}");
                return;
            }
        };
        match Recorder::create(&path, &header) {
            Ok(mut r) => {
                // The UI thread never waits for the writer: when it lags, chunks wait in
                // memory (up to 256 MB) and the top bar says so.
                r.never_block(256 << 20);
                self.status = format!("recording to {}", path.display());
                let shown = path.display().to_string();
                self.recent_recordings.retain(|p| *p != shown);
                self.recent_recordings.insert(0, shown);
                self.recent_recordings.truncate(10);
                self.recorder = Some(r);
                self.record_started = Instant::now();
            }
            Err(e) => self.status = format!("error: cannot record: {e}"),
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
                Err(e) => self.status = format!("error: {e}"),
            }
        }
    }

    /// Polls the status jobs and the screenshot channel.
    fn screenshots(&mut self, ctx: &egui::Context) {
        for r in self.status_jobs.finished() {
            self.status = match r {
                Ok(t) => {
                    if t.starts_with("preset saved") {
                        self.controls.refresh_presets();
                    }
                    t
                }
                Err(e) => format!("error: {e}"),
            };
        }
        if !self.status_jobs.is_empty() {
            ctx.request_repaint_after(Duration::from_millis(50));
        }
        if let Ok(img) = self.shot_rx.try_recv() {
            let path = self
                .shot_path
                .take()
                .unwrap_or_else(|| PathBuf::from("movescope.png"));
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
                    Err(e) => self.status = format!("error: {e}"),
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
                    self.status = format!("error: bug report failed: {e}");
                    return;
                }
            }
        };
        let out = dir.clone();
        let job = Job::spawn(
            format!("writing the bug report {}", dir.display()),
            move |_| {
                let (header, window) = match source {
                    Source::File(rec) => (
                        rec.header.clone(),
                        crate::report::records_between(&rec, t0, t1)
                            .map_err(|e| format!("bug report failed: {e}"))?,
                    ),
                    Source::Live(h, w) => (*h, w),
                };
                crate::report::write_report(&out, &header, &window, cursor)
                .map(|_| {
                    format!(
                        "bug report written to {} (session.msrec, preset.ron, summary.md, view.png)",
                        out.display()
                    )
                })
                .map_err(|e| format!("bug report failed: {e}"))
            },
        );
        match job {
            Ok(j) => {
                self.status_jobs.push(j);
                self.request_screenshot(ctx, dir.join("view.png"));
            }
            Err(e) => self.status = format!("error: {e}"),
        }
    }

    fn top_bar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.heading("movescope");
            if ui
                .button(RichText::new("Lessons").strong())
                .on_hover_text("Workshop lessons: one scenario per pitfall and network lesson, walked through step by step.")
                .clicked()
            {
                self.lessons.open = !self.lessons.open;
            }
            let (title, description) = {
                let p = self.shown_preset();
                (p.title.clone(), p.description.clone())
            };
            ui.label(RichText::new(title).strong())
                .on_hover_text(format!("{}\n\nPreset: {}", description, self.options.preset_name));
            if self.options.reopened {
                ui.colored_label(Color32::from_rgb(230, 160, 60), "reopened from last time")
                    .on_hover_text(format!(
                        "{} was the preset used last, so it opened again. The default preset is one click away.",
                        self.options.preset_name
                    ));
                if ui
                    .button("Default preset")
                    .on_hover_text("Start the shipped default preset live.")
                    .clicked()
                {
                    self.actions.push(Action::StartNamed("default".into()));
                }
            }
            ui.separator();
            if let Some(o) = &self.opened {
                let name = o
                    .recording
                    .path
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().to_string());
                ui.label(format!("recording {name}"))
                    .on_hover_text(o.recording.describe());
                if o.loader.is_some() {
                    ui.spinner();
                    ui.label(format!("{} records loaded", self.store.records()));
                }
                if let Some(d) = &o.damage {
                    ui.colored_label(Color32::from_rgb(230, 140, 40), "damaged")
                        .on_hover_text(d.to_string());
                }
                if ui
                    .button("Live session")
                    .on_hover_text("Start the recording's preset live.")
                    .clicked()
                {
                    let preset = o.recording.header.preset.clone();
                    let name = o.recording.header.preset_name.clone();
                    self.actions.push(Action::Start {
                        preset: Box::new(preset),
                        name,
                    });
                }
            } else {
                let now = self.session.as_ref().map_or(0.0, |s| s.clock().now());
                ui.label(format!("live, session time {now:.1} s"));
                let label = if self.paused {
                    "Resume (Space)"
                } else {
                    "Pause (Space)"
                };
                if ui
                    .button(label)
                    .on_hover_text("Pauses the simulation threads (the session clock stops).")
                    .clicked()
                {
                    self.toggle_pause();
                }
                if let Some(rec) = &self.recorder {
                    let lag = rec.lagging();
                    if ui
                        .button(RichText::new("Stop recording").color(Color32::RED))
                        .on_hover_text(format!("Recording to {}", rec.path().display()))
                        .clicked()
                    {
                        self.stop_recording();
                    }
                    if lag > 0 {
                        ui.colored_label(
                            Color32::from_rgb(230, 160, 60),
                            format!("disk lags: {lag} records waiting"),
                        );
                    }
                } else if ui
                    .button("Record")
                    .on_hover_text(format!(
                        "Record the session to {RECORDINGS_DIR}/ (written every second)."
                    ))
                    .clicked()
                {
                    let stamp = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs());
                    self.start_recording(
                        PathBuf::from(RECORDINGS_DIR).join(format!("session-{stamp}.msrec")),
                    );
                }
            }
            ui.separator();
            if ui
                .button("Open…")
                .on_hover_text("Open a recording (or drop a .msrec file on the window).")
                .clicked()
            {
                self.open_dialog = Some(format!("{RECORDINGS_DIR}/"));
                self.recordings_list = None;
                self.recordings_job = Job::spawn("listing recordings", |_| list_recordings()).ok();
            }
            ui.add(egui::Slider::new(&mut self.window_s, 5.0..=120.0).text("s shown"));
            if ui
                .button("Save screenshot")
                .on_hover_text("Saves a PNG of the window in the working directory.")
                .clicked()
            {
                let name = format!("movescope-{:.0}.png", self.time.cursor() * 1000.0);
                let ctx = ui.ctx().clone();
                self.request_screenshot(&ctx, PathBuf::from(name));
            }
            if ui
                .button("Bug report")
                .on_hover_text(format!(
                    "Writes {REPORTS_DIR}/report-…/: a picture of the window, the session from {REPORT_BEFORE} s before to {REPORT_AFTER} s after the cursor as a recording that opens at the cursor, the preset, and summary.md."
                ))
                .clicked()
            {
                let ctx = ui.ctx().clone();
                self.bug_report(&ctx);
            }
            if ui
                .button("Doctor")
                .on_hover_text("The desync doctor: every correction explained, causes ranked, where values parted.")
                .clicked()
            {
                self.doctor.open = !self.doctor.open;
                if self.doctor.open && self.doctor.report.is_none() {
                    self.run_doctor();
                }
            }
            if ui
                .button("What if…")
                .on_hover_text("Re-run the opened recording with a change and compare, plots overlaid.")
                .clicked()
            {
                self.whatif.open = !self.whatif.open;
            }
            let theme = if self.light { "Dark theme" } else { "Light theme" };
            if ui.button(theme).clicked() {
                self.light = !self.light;
            }
            if ui
                .button("Reset layout")
                .on_hover_text("Panes back to where they start (drag a pane's tab to move it; drag a border to resize).")
                .clicked()
            {
                self.layout = layout::default_layout();
            }
            if ui.button("Help").clicked() {
                self.show_help = !self.show_help;
            }
            if let Some(s) = self.session.as_ref() {
                let dropped = s.telemetry_dropped();
                if dropped > 0 {
                    ui.colored_label(Color32::YELLOW, format!("{dropped} records dropped"));
                }
            }
            for what in self.status_jobs.running() {
                ui.spinner();
                ui.label(what);
            }
            if let Some((job, _)) = &self.opening {
                ui.spinner();
                ui.label(&job.what);
            }
            if let Some(e) = self.status.strip_prefix("error: ") {
                ui.colored_label(Color32::from_rgb(230, 80, 80), e);
            } else if !self.status.is_empty() {
                ui.label(&self.status);
            }
        });
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
        match (self.viewer, moves) {
            (Machine::Server, true) => Machine::Client(0),
            (m, _) => m,
        }
    }

    fn timeline(&mut self, ui: &mut egui::Ui) {
        let (lo, hi) = (
            self.store.earliest(),
            self.store.latest().max(self.store.earliest()),
        );
        let mut cmds: Vec<TimeCommand> = Vec::new();
        let mut journey: Option<u16> = None;
        let all_marks = MarkKind::ALL.to_vec();
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new("Timeline").strong()).on_hover_text(
                "Every view shows the session at the cursor. Drag on the bar to seek, Shift+drag to select a range. Red: corrections, orange: corrections with replay, yellow: warnings, magenta: errors, blue: the session was changed (a setting, bindings, clients).",
            );
            ui.monospace(format!("{:9.3} s", self.time.cursor()));
            if ui.button("<< mark").on_hover_text("Previous correction or warning (PageUp)").clicked() {
                cmds.push(TimeCommand::JumpMark { kinds: all_marks.clone(), forward: false });
            }
            let mv = self.step_machine(true);
            let fr = self.step_machine(false);
            if ui.button("< move").on_hover_text(format!("Previous move closed by {mv} (Shift+Left)")).clicked() {
                cmds.push(TimeCommand::StepMove { machine: mv, forward: false });
            }
            if ui.button("< frame").on_hover_text(format!("Previous frame of {fr} (Left)")).clicked() {
                cmds.push(TimeCommand::StepFrame { machine: fr, forward: false });
            }
            let play = if self.time.is_playing() { "Pause" } else { "Play" };
            if ui.button(play).on_hover_text("Play the timeline from the cursor (Space when viewing a recording)").clicked() {
                cmds.push(TimeCommand::TogglePlay);
            }
            if ui.button("frame >").on_hover_text(format!("Next frame of {fr} (Right)")).clicked() {
                cmds.push(TimeCommand::StepFrame { machine: fr, forward: true });
            }
            if ui.button("move >").on_hover_text(format!("Next move closed by {mv} (Shift+Right)")).clicked() {
                cmds.push(TimeCommand::StepMove { machine: mv, forward: true });
            }
            if ui.button("mark >>").on_hover_text("Next correction or warning (PageDown)").clicked() {
                cmds.push(TimeCommand::JumpMark { kinds: all_marks.clone(), forward: true });
            }
            if ui
                .button("Move journey")
                .on_hover_text(format!("The lineage of the move {mv} closed nearest the cursor: frames, sending, the link, the server, the reply, corrections and replays."))
                .clicked()
                && let Machine::Client(c) = mv
            {
                journey = Some(c);
            }
            let mut speed = self.time.speed();
            egui::ComboBox::from_label("speed")
                .selected_text(format!("{speed}×"))
                .show_ui(ui, |ui| {
                    for s in SPEEDS {
                        ui.selectable_value(&mut speed, s, format!("{s}×"));
                    }
                });
            if speed != self.time.speed() {
                cmds.push(TimeCommand::SetSpeed(speed));
            }
            let follow_label = if self.session.is_some() { "Follow live (End)" } else { "Go to end (End)" };
            if ui
                .selectable_label(self.time.is_following(), follow_label)
                .on_hover_text("Keep the cursor on the newest data.")
                .clicked()
            {
                cmds.push(TimeCommand::FollowLive);
            }
            if let Some((a, b)) = self.time.range() {
                ui.label(format!("range {a:.2}–{b:.2} s"));
                if ui.small_button("clear").clicked() {
                    cmds.push(TimeCommand::ClearRange);
                }
            }
            if ui
                .button("Export CSV…")
                .on_hover_text("Export the selected range (or the shown window) of chosen series.")
                .clicked()
            {
                self.export = Some(ExportDialog {
                    metrics: Metric::ALL.iter().map(|m| (*m, true)).collect(),
                    path: String::new(),
                });
            }
        });
        // The bar.
        let width = ui.available_width();
        let (rect, resp) =
            ui.allocate_exact_size(egui::vec2(width, 26.0), egui::Sense::click_and_drag());
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 3.0, ui.visuals().extreme_bg_color);
        let span = (hi - lo).max(1e-6);
        let x_of = |t: f64| rect.left() + ((t - lo) / span) as f32 * rect.width();
        let t_of = |x: f32| lo + f64::from((x - rect.left()) / rect.width()) * span;
        if let Some((a, b)) = self.time.range() {
            painter.rect_filled(
                egui::Rect::from_x_y_ranges(x_of(a)..=x_of(b), rect.y_range()),
                0.0,
                Color32::from_rgba_unmultiplied(90, 140, 230, 60),
            );
        }
        // Markers, one per pixel column and kind.
        let cols = rect.width().max(1.0) as usize;
        let mut seen = vec![[false; MarkKind::ALL.len()]; cols + 1];
        for e in self.store.log() {
            let c = ((x_of(e.t) - rect.left()).max(0.0) as usize).min(cols);
            seen[c][e.kind as usize] = true;
        }
        for (c, kinds) in seen.iter().enumerate() {
            for (k, on) in kinds.iter().enumerate() {
                if !on {
                    continue;
                }
                let (color, y0, y1) = match k {
                    0 => (Color32::from_rgb(230, 60, 60), 0.0, 0.5),
                    1 => (Color32::from_rgb(240, 150, 40), 0.0, 0.5),
                    2 => (Color32::from_rgb(230, 210, 60), 0.5, 1.0),
                    3 => (Color32::from_rgb(220, 60, 220), 0.5, 1.0),
                    _ => (Color32::from_rgb(110, 160, 235), 0.0, 1.0),
                };
                let x = rect.left() + c as f32;
                painter.line_segment(
                    [
                        egui::pos2(x, rect.top() + rect.height() * y0),
                        egui::pos2(x, rect.top() + rect.height() * y1),
                    ],
                    egui::Stroke::new(1.0, color),
                );
            }
        }
        let cx = x_of(self.time.cursor());
        painter.line_segment(
            [egui::pos2(cx, rect.top()), egui::pos2(cx, rect.bottom())],
            egui::Stroke::new(2.0, ui.visuals().strong_text_color()),
        );
        painter.text(
            rect.left_bottom() + egui::vec2(3.0, -2.0),
            egui::Align2::LEFT_BOTTOM,
            format!("{lo:.1} s"),
            egui::FontId::proportional(10.0),
            ui.visuals().weak_text_color(),
        );
        painter.text(
            rect.right_bottom() + egui::vec2(-3.0, -2.0),
            egui::Align2::RIGHT_BOTTOM,
            format!("{hi:.1} s"),
            egui::FontId::proportional(10.0),
            ui.visuals().weak_text_color(),
        );
        let shift = ui.input(|i| i.modifiers.shift);
        if let Some(pos) = resp.interact_pointer_pos() {
            let t = t_of(pos.x);
            if shift {
                let anchor = *self.range_anchor.get_or_insert(t);
                cmds.push(TimeCommand::SelectRange(anchor, t));
            } else if resp.clicked() || resp.dragged() {
                cmds.push(TimeCommand::Seek(t));
            }
        }
        if !resp.dragged() {
            self.range_anchor = None;
        }
        for c in cmds {
            self.time_command(c);
        }
        // `--window journey`: the journey of the move at the cursor, once there is one.
        if self.journey_pending && (self.opened.is_some() || self.store.latest() > 2.0) {
            self.journey_pending = false;
            if journey.is_none() {
                journey = Some(match self.step_machine(true) {
                    Machine::Client(c) => c,
                    Machine::Server => 0,
                });
            }
        }
        if let Some(c) = journey {
            let t = self.time.cursor();
            self.show_lineage(c, None, t);
        }
    }

    fn keyboard(&mut self, ctx: &egui::Context) {
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
                self.toggle_pause();
            } else {
                self.time_command(TimeCommand::TogglePlay);
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
                self.time_command(cmd);
            }
        }
        for (pressed, forward) in [(pgup, false), (pgdn, true)] {
            if pressed {
                self.time_command(TimeCommand::JumpMark {
                    kinds: MarkKind::ALL.to_vec(),
                    forward,
                });
            }
        }
        if end {
            self.time_command(TimeCommand::FollowLive);
        }
        if f1 {
            self.show_help = !self.show_help;
        }
    }

    fn dialogs(&mut self, ctx: &egui::Context) {
        self.lineage_window(ctx);
        self.lessons_window(ctx);
        self.whatif_window(ctx);
        self.doctor_window(ctx);
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
            let mut open = true;
            egui::Window::new("Help")
                .open(&mut open)
                .default_width(420.0)
                .show(ctx, |ui| {
                    ui.label("movescope runs GMC's move cycle: clients predict their pawns, the server re-runs every move and corrects the clients that diverged; everyone else's pawns are smoothed proxies. Hover any title for what it shows.");
                    ui.separator();
                    egui::Grid::new("keys").num_columns(2).show(ui, |ui| {
                        for (k, what) in [
                            ("Space", "pause/resume a live session; play/pause a recording"),
                            ("Left / Right", "one frame back / forward (the viewed machine's frames)"),
                            ("Shift+Left / Right", "previous / next move"),
                            ("PageUp / PageDown", "previous / next correction or warning"),
                            ("End", "follow live (or go to the end of a recording)"),
                            ("Shift+drag on the timeline", "select a range (for CSV export)"),
                            ("click a plot or a log line", "move the cursor there"),
                            ("double-click a client's point", "the journey of its move (a correction plot: the corrected move)"),
                            ("click a player's pawn", "in the world view: the journey of its move at the cursor"),
                            ("Doctor (top bar)", "every correction explained: deviating values, where values parted, cause and evidence"),
                            ("Session > value trace", "bound values in and out of every move execution, for journeys and the doctor"),
                            ("drop a .msrec file", "open the recording"),
                            ("F1", "this window"),
                        ] {
                            ui.monospace(k);
                            ui.label(what);
                            ui.end_row();
                        }
                    });
                });
            self.show_help = open;
        }
        if let Some(mut path) = self.open_dialog.take() {
            let mut keep = true;
            let mut chosen: Option<PathBuf> = None;
            egui::Window::new("Open recording").show(ctx, |ui| {
                ui.horizontal(|ui| {
                    ui.label("file");
                    ui.text_edit_singleline(&mut path);
                    if ui.button("Open").clicked() {
                        chosen = Some(PathBuf::from(path.trim()));
                    }
                    if ui.button("Cancel").clicked() {
                        keep = false;
                    }
                });
                if !self.recent_recordings.is_empty() {
                    ui.label(RichText::new("Recent").strong());
                    for f in &self.recent_recordings {
                        if ui.selectable_label(false, f).clicked() {
                            chosen = Some(PathBuf::from(f));
                        }
                    }
                }
                let folder = std::env::current_dir()
                    .map(|d| d.join(RECORDINGS_DIR))
                    .unwrap_or_else(|_| PathBuf::from(RECORDINGS_DIR));
                ui.label(RichText::new(format!("In {}:", folder.display())).strong());
                if let Some(job) = self.recordings_job.as_mut() {
                    match job.poll() {
                        Poll::Ready(list) => {
                            self.recordings_list = Some(list);
                            self.recordings_job = None;
                        }
                        Poll::Lost => self.recordings_job = None,
                        Poll::Pending => ui.ctx().request_repaint(),
                    }
                }
                match &self.recordings_list {
                    None => {
                        ui.spinner();
                    }
                    Some(files) if files.is_empty() => {
                        ui.weak("No recordings in this folder (Record in the top bar saves them here; or type a path above, or drop a .msrec file on the window).");
                    }
                    Some(files) => {
                        egui::ScrollArea::vertical()
                            .max_height(240.0)
                            .show(ui, |ui| {
                                for f in files {
                                    if ui
                                        .selectable_label(false, f.display().to_string())
                                        .clicked()
                                    {
                                        chosen = Some(f.clone());
                                    }
                                }
                            });
                    }
                }
            });
            if let Some(p) = chosen {
                self.open_recording(&p, None);
            } else if keep {
                self.open_dialog = Some(path);
            }
        }
        if let Some(mut dlg) = self.export.take() {
            let mut keep = true;
            let (t0, t1) = self.time.range().unwrap_or((
                (self.time.cursor() - self.window_s).max(self.store.earliest()),
                self.time.cursor(),
            ));
            if dlg.path.is_empty() {
                dlg.path = format!("{EXPORTS_DIR}/movescope-{t0:.1}-{t1:.1}.csv");
            }
            egui::Window::new("Export CSV").show(ctx, |ui| {
                ui.label(format!(
                    "{t0:.2}–{t1:.2} s ({}), one row per point: series, machine, t_s, value, unit",
                    if self.time.range().is_some() {
                        "the selected range"
                    } else {
                        "the window shown"
                    }
                ));
                for (m, on) in &mut dlg.metrics {
                    ui.checkbox(on, m.name()).on_hover_text(m.unit());
                }
                ui.horizontal(|ui| {
                    ui.label("file");
                    ui.text_edit_singleline(&mut dlg.path);
                });
                ui.horizontal(|ui| {
                    if ui.button("Write").clicked() {
                        let metrics: Vec<Metric> = dlg
                            .metrics
                            .iter()
                            .filter(|(_, on)| *on)
                            .map(|(m, _)| *m)
                            .collect();
                        // The rows are gathered here (the store lives on this thread), the
                        // file is written by a job.
                        let mut rows = Vec::new();
                        let gathered = crate::report::export_csv(
                            &self.store,
                            &metrics,
                            &[],
                            t0,
                            t1,
                            &mut rows,
                        );
                        let path = PathBuf::from(dlg.path.trim());
                        match gathered {
                            Ok(n) => {
                                match Job::spawn(format!("writing {}", path.display()), move |_| {
                                    write_file(&path, &rows)
                                        .map(|()| format!("wrote {n} rows to {}", path.display()))
                                        .map_err(|e| format!("export failed: {e}"))
                                }) {
                                    Ok(j) => self.status_jobs.push(j),
                                    Err(e) => self.status = format!("error: {e}"),
                                }
                            }
                            Err(e) => self.status = format!("error: export failed: {e}"),
                        }
                        keep = false;
                    }
                    if ui.button("Cancel").clicked() {
                        keep = false;
                    }
                });
            });
            if keep {
                self.export = Some(dlg);
            }
        }
    }

    fn controls(&mut self, ui: &mut egui::Ui) {
        let view = Self::session_view(
            &self.session,
            &self.opened,
            &self.options,
            &self.time,
            &self.feedback,
        );
        let actions = self.controls.ui(ui, &view);
        self.actions.extend(actions);
        if std::mem::take(&mut self.controls.bindings_clicked) {
            self.bindings.open = !self.bindings.open;
        }
        if std::mem::take(&mut self.controls.gmc_clicked) {
            self.gmc.open = !self.gmc.open;
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

    /// Top-down view of every pawn as one machine shows it.
    fn world_view(&mut self, ui: &mut egui::Ui) {
        ui.weak("How to read this view (hover)").on_hover_text(
            "Every pawn as the chosen machine shows it: a client's own pawn is predicted (filled), \
             other pawns are simulated proxies shown in the past (rings); the green ring is the \
             server's authoritative pawn. Blue \"… ms ago\": how far in the past this machine shows \
             its proxies. Red/green marks: a correction moved the pawn from where the client had \
             it (red) to where the server put it (green). Seen from the server, hollow red marks \
             mirror the server's side: the location a client claimed in a move against the \
             server's result.",
        );
        let viewers = self.store.viewers();
        egui::ComboBox::from_label("seen from")
            .selected_text(self.viewer.to_string())
            .show_ui(ui, |ui| {
                for m in &viewers {
                    ui.selectable_value(&mut self.viewer, *m, m.to_string());
                }
            });
        ui.horizontal_wrapped(|ui| {
            ui.checkbox(&mut self.show_trails, "trails");
            ui.checkbox(&mut self.show_velocity, "velocity");
            ui.checkbox(&mut self.show_labels, "labels");
            ui.checkbox(&mut self.show_delays, "delays")
                .on_hover_text("How far in the past each simulated proxy is shown (this machine's mean display delay).");
            ui.checkbox(&mut self.show_ghost, "server ghost")
                .on_hover_text("The server's authoritative pawn next to the client's prediction.");
        });
        if !viewers.contains(&self.viewer) {
            ui.label(format!("No samples from {} yet.", self.viewer));
        }
        let side = ui.available_width().min(ui.available_height()).max(120.0);
        let (rect, response) = ui.allocate_exact_size(egui::vec2(side, side), egui::Sense::click());
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 4.0, Color32::from_gray(18));
        const HALF: f64 = 1600.0;
        let to_screen = |p: glam::DVec3| {
            egui::pos2(
                rect.center().x + (p.x / HALF) as f32 * rect.width() / 2.0,
                rect.center().y - (p.y / HALF) as f32 * rect.height() / 2.0,
            )
        };
        let grid = egui::Stroke::new(1.0, Color32::from_gray(40));
        for k in -3..=3 {
            let d = f64::from(k) * 500.0;
            painter.line_segment(
                [
                    to_screen(glam::DVec3::new(d, -HALF, 0.0)),
                    to_screen(glam::DVec3::new(d, HALF, 0.0)),
                ],
                grid,
            );
            painter.line_segment(
                [
                    to_screen(glam::DVec3::new(-HALF, d, 0.0)),
                    to_screen(glam::DVec3::new(HALF, d, 0.0)),
                ],
                grid,
            );
        }
        let font = egui::FontId::proportional(11.0);
        let cursor = self.time.cursor();
        let pawns: Vec<crate::store::PawnView> = self.store.pawns_at(self.viewer, cursor);
        let mut own: Option<u16> = None;
        // A click on a player's pawn: the journey of that client's move at the cursor.
        let picked = response
            .interact_pointer_pos()
            .filter(|_| response.clicked())
            .and_then(|at| {
                pawns
                    .iter()
                    .filter_map(|v| Some((v.owner?, to_screen(v.location).distance(at))))
                    .filter(|(_, d)| *d < 14.0)
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|(c, _)| c)
            });
        // How far in the past this machine shows its proxies (mean display delay at the cursor).
        let delay = self
            .store
            .series(self.viewer, Metric::InterpDelay)
            .and_then(|sr| sr.range(cursor - 1.0, cursor).last())
            .map(|p| p[1]);
        for v in &pawns {
            let color = v
                .owner
                .map_or(Color32::from_gray(170), |o| color_of(Machine::Client(o)));
            let at = to_screen(v.location);
            if self.show_trails && v.trail.len() > 1 {
                let pts: Vec<egui::Pos2> = v.trail.iter().map(|(_, p)| to_screen(*p)).collect();
                painter.add(egui::Shape::line(
                    pts,
                    egui::Stroke::new(1.0, color.gamma_multiply(0.4)),
                ));
            }
            match v.kind {
                crate::model::telemetry::SampleKind::Predicted => {
                    own = Some(v.pawn);
                    painter.circle_filled(at, 7.0, color);
                }
                crate::model::telemetry::SampleKind::Displayed => {
                    painter.circle_stroke(at, 7.0, egui::Stroke::new(2.0, color));
                }
                crate::model::telemetry::SampleKind::Authoritative => {
                    painter.circle_filled(at, 6.0, color);
                }
            }
            let yaw = v.yaw.to_radians();
            let nose = at + egui::vec2(yaw.cos() as f32, -(yaw.sin() as f32)) * 11.0;
            painter.line_segment([at, nose], egui::Stroke::new(2.0, color));
            if self.show_velocity {
                let tip = to_screen(v.location + v.velocity * 0.25);
                painter.line_segment(
                    [at, tip],
                    egui::Stroke::new(1.0, Color32::from_rgb(230, 230, 120)),
                );
            }
            if self.show_delays
                && v.kind == crate::model::telemetry::SampleKind::Displayed
                && let Some(d) = delay
            {
                painter.text(
                    at + egui::vec2(9.0, 3.0),
                    egui::Align2::LEFT_TOP,
                    format!("{:.0} ms ago", d * 1000.0),
                    egui::FontId::proportional(10.0),
                    Color32::from_rgb(150, 190, 240),
                );
            }
            if self.show_labels {
                let who = match v.owner {
                    Some(o) => format!("client {o}"),
                    None => format!("AI {}", v.pawn),
                };
                let what = match v.kind {
                    crate::model::telemetry::SampleKind::Predicted => {
                        "autonomous proxy (predicted)"
                    }
                    crate::model::telemetry::SampleKind::Displayed => "simulated proxy",
                    crate::model::telemetry::SampleKind::Authoritative => "server pawn",
                };
                // Labels near the right edge go to the pawn's left, so they stay readable.
                let (offset, align) = if at.x > rect.right() - 170.0 {
                    (egui::vec2(-9.0, -9.0), egui::Align2::RIGHT_BOTTOM)
                } else {
                    (egui::vec2(9.0, -9.0), egui::Align2::LEFT_BOTTOM)
                };
                painter.text(
                    at + offset,
                    align,
                    format!("{who}: {what}"),
                    font.clone(),
                    Color32::from_gray(200),
                );
            }
        }
        if let (true, Some(pawn), Machine::Client(_)) = (self.show_ghost, own, self.viewer)
            && let Some(g) = self.store.authoritative_at(pawn, cursor)
        {
            painter.circle_stroke(
                to_screen(g.location),
                9.0,
                egui::Stroke::new(1.5, Color32::from_rgb(60, 200, 90)),
            );
        }
        let now = cursor;
        for m in self.store.corrections_between(now - 3.0, now) {
            // A client sees its own corrections; the server view mirrors every correction the
            // server found: the location a client claimed against the server's result.
            let mirror = self.viewer == Machine::Server
                && m.detected_by == crate::model::telemetry::DetectedBy::Server;
            if m.machine != self.viewer && !mirror {
                continue;
            }
            let fade = (1.0 - (now - m.t) / 3.0).clamp(0.0, 1.0) as f32;
            let (p, a) = (to_screen(m.predicted), to_screen(m.authoritative));
            painter.line_segment(
                [p, a],
                egui::Stroke::new(1.0, Color32::from_gray(200).gamma_multiply(fade)),
            );
            let red = Color32::from_rgb(230, 60, 60).gamma_multiply(fade);
            if mirror {
                // Hollow: a claim that arrived in a move, not where the server has the pawn.
                painter.circle_stroke(p, 4.0, egui::Stroke::new(1.5, red));
            } else {
                painter.circle_filled(p, 4.0, red);
            }
            painter.circle_filled(a, 4.0, Color32::from_rgb(60, 200, 90).gamma_multiply(fade));
            if mirror && self.show_labels {
                painter.text(
                    p + egui::vec2(6.0, 6.0),
                    egui::Align2::LEFT_TOP,
                    format!("{} claimed", m.machine),
                    egui::FontId::proportional(10.0),
                    red,
                );
            }
        }
        painter.text(
            rect.left_bottom() + egui::vec2(6.0, -6.0),
            egui::Align2::LEFT_BOTTOM,
            "grid: 5 m   click a player's pawn: its move's journey",
            font,
            Color32::from_gray(120),
        );
        if let Some(c) = picked {
            self.show_lineage(c, None, cursor);
        }
    }

    fn plots(&mut self, ui: &mut egui::Ui) {
        self.plots.focus = self.lesson_focus();
        let view = plots::View::at(&self.time, self.window_s, self.placed_at);
        self.placed_at = Some(self.time.cursor());
        if let Some(click) = self.plots.show(ui, &self.store, &view) {
            self.time_command(TimeCommand::Seek(click.t));
            if let Some(c) = click.journey {
                self.show_lineage(c, click.move_id, click.t);
            }
        }
    }

    fn event_log(&mut self, ui: &mut egui::Ui) {
        ui.weak("What is listed (hover)").on_hover_text(
            "Corrections (with every bound value that deviated: predicted vs authoritative), warnings, errors and changes made to the running session (blue: a setting, the bindings, clients; from what to what) up to the cursor. Click a line to move the cursor there.",
        );
        let cursor = self.time.cursor();
        let upto = self.store.log_between(f64::NEG_INFINITY, cursor);
        let shown = &upto[upto.len().saturating_sub(400)..];
        let mut seek = None;
        let mut trace: Option<(u16, u32, f64)> = None;
        egui::ScrollArea::vertical()
            .stick_to_bottom(true)
            .show(ui, |ui| {
                if shown.is_empty() {
                    ui.weak("Nothing yet: corrections, warnings, errors and changes to the session appear here.");
                }
                for e in shown {
                    let color = match e.kind {
                        MarkKind::Error => Color32::from_rgb(220, 60, 60),
                        MarkKind::Warning => Color32::from_rgb(210, 160, 40),
                        MarkKind::Correction | MarkKind::Replay => ui.visuals().text_color(),
                        MarkKind::Change => Color32::from_rgb(110, 160, 235),
                    };
                    let near = (cursor - e.t).abs() < 0.5;
                    let text = RichText::new(format!("{:8.3} s  {}: {}", e.t, e.machine, e.text))
                        .color(color);
                    let text = if near {
                        text.strong().color(ui.visuals().strong_text_color())
                    } else {
                        text
                    };
                    ui.horizontal_top(|ui| {
                        // Long lines wrap instead of running out of the pane.
                        ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Wrap);
                        if let (Some(m), Machine::Client(c)) = (e.move_id, e.machine)
                            && ui
                                .small_button("journey")
                                .on_hover_text(format!("The lineage of client {c}'s move {m}."))
                                .clicked()
                        {
                            trace = Some((c, m, e.t));
                        }
                        if ui.selectable_label(false, text).clicked() {
                            seek = Some(e.t);
                        }
                    });
                }
            });
        if let Some((c, m, t)) = trace {
            self.show_lineage(c, Some(m), t);
        }
        if let Some(t) = seek {
            self.time_command(TimeCommand::Seek(t));
        }
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
        if self.options.persist {
            // A lesson's scenario is never reopened by itself (the next workshop participant
            // would start inside a pitfall), nor is the default (it opens anyway).
            let name = &self.options.preset_name;
            let last_preset = (self.session.is_some()
                && self.shown_preset().lesson.is_none()
                && name != crate::preset::DEFAULT_PRESET_NAME
                && name != "default"
                && Preset::find(name).is_ok())
            .then(|| name.clone());
            let state = layout::UiState {
                layout: self.layout.clone(),
                light: self.light,
                window_s: self.window_s,
                plots_shown: self.plots.shown.clone(),
                last_preset,
                recent_recordings: self.recent_recordings.clone(),
            };
            if let Err(e) = state.save() {
                eprintln!("movescope: could not save the layout: {e}");
            }
        }
    }
}

impl eframe::App for MovescopeApp {
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
            self.open_recording(&p, None);
        }
        let busy = self.session.is_some()
            || self.is_loading()
            || self.opening.is_some()
            || self.time.is_playing();
        ctx.request_repaint_after(Duration::from_millis(if busy { 33 } else { 250 }));
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        egui::Panel::top("top").show(ui, |ui| self.top_bar(ui));
        let ctx = ui.ctx().clone();
        self.dialogs(&ctx);
        if let Some(e) = &self.error {
            egui::CentralPanel::default().show(ui, |ui| {
                ui.colored_label(Color32::RED, format!("The session could not start: {e}"));
            });
            self.apply_actions();
            return;
        }
        egui::Panel::bottom("timeline")
            .resizable(false)
            .show(ui, |ui| self.timeline(ui));
        egui::CentralPanel::default()
            .frame(egui::Frame::new())
            .show(ui, |ui| {
                let mut tree = std::mem::replace(
                    &mut self.layout,
                    egui_tiles::Tree::empty(egui::Id::unique("movescope layout (in use)")),
                );
                tree.ui(&mut layout::PaneBehavior { app: self }, ui);
                self.layout = tree;
            });
        // Everything the panes asked for this frame, in one place.
        self.apply_actions();
    }
}

/// Where a journey's records come from.
enum TraceSource {
    File(Arc<Recording>),
    Live {
        records: Vec<Record>,
        bindings: Vec<crate::model::binding::Binding>,
    },
}

/// A journey as first shown, and the re-simulation that adds its bound values (if any).
struct Traced {
    shown: Result<crate::lineage::Lineage, String>,
    resimulate: Option<Resimulation>,
}

/// Re-simulating a virtual-time recording up to `until` for one move's bound values.
struct Resimulation {
    rec: Arc<Recording>,
    records: Vec<Record>,
    bindings: Vec<crate::model::binding::Binding>,
    client: u16,
    move_id: u32,
    until: f64,
}

impl Resimulation {
    fn run(self, ctx: &jobs::JobCtx) -> Option<crate::lineage::Lineage> {
        let (client, m) = (self.client, self.move_id);
        let (values, source) = match crate::report::records_between(&self.rec, 0.0, self.until) {
            Ok(from_start) => {
                if ctx.is_cancelled() {
                    return None;
                }
                crate::valuetrace::of_recording(
                    &self.rec,
                    &from_start,
                    Some(self.until),
                    &|c, mv| c == client && mv == m,
                )
            }
            Err(e) => (Vec::new(), format!("not traced; re-simulation failed: {e}")),
        };
        crate::lineage::trace(&self.bindings, &self.records, &values, &source, client, m)
    }
}

/// Reads the records around `t` and traces `client`'s move (on a job thread).
fn trace_move(source: TraceSource, client: u16, move_id: Option<u32>, t: f64) -> Traced {
    let plain = |shown| Traced {
        shown,
        resimulate: None,
    };
    let (records, bindings, rec) = match source {
        TraceSource::File(rec) => match crate::report::records_between(&rec, t - 3.0, t + 3.0) {
            Ok(r) => (r, rec.header.bindings.clone(), Some(rec)),
            Err(e) => return plain(Err(e)),
        },
        TraceSource::Live { records, bindings } => (records, bindings, None),
    };
    let Some(m) = move_id.or_else(|| crate::lineage::move_near(&records, client, t)) else {
        return plain(Err(format!("client {client} closed no move near {t:.2} s")));
    };
    let traced = records
        .iter()
        .any(|r| matches!(r.event, crate::model::telemetry::Event::MoveValues(_)));
    let trace = |source: &str| {
        crate::lineage::trace(&bindings, &records, &[], source, client, m)
            .ok_or_else(|| format!("no records of client {client}'s move {m} near {t:.2} s"))
    };
    let Some(rec) = rec else {
        return plain(trace(if traced {
            "traced live"
        } else {
            "not traced (switch the value trace on in the Session panel)"
        }));
    };
    let until = t + 3.0;
    if traced {
        return plain(trace("recorded"));
    }
    if until > RESIMULATE_MAX_S {
        return plain(trace(&format!(
            "not traced; re-simulating {until:.0} s is left to `movescope lineage` (the app re-simulates up to {RESIMULATE_MAX_S:.0} s)"
        )));
    }
    let shown = trace(&format!(
        "not traced; re-simulating the first {until:.0} s for them"
    ));
    let resimulate = shown.is_ok().then(|| Resimulation {
        rec,
        records: records.clone(),
        bindings: bindings.clone(),
        client,
        move_id: m,
        until,
    });
    Traced { shown, resimulate }
}

/// Writes `bytes` to `path`, creating its folder.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The recordings in `recordings/` (for the Open dialog; run on a job thread).
fn list_recordings() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(RECORDINGS_DIR)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension()
                        .is_some_and(|x| x == crate::recording::EXTENSION)
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
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
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w as u32, h as u32);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().map_err(|e| e.to_string())?;
    let bytes: Vec<u8> = img.pixels.iter().flat_map(|p| p.to_array()).collect();
    writer.write_image_data(&bytes).map_err(|e| e.to_string())?;
    Ok(())
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
