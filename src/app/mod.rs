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

use crate::live::{Command, LiveSession};
use crate::model::settings::{Faults, SmoothingMode};
use crate::model::telemetry::{Machine, Record};
use crate::preset::{Direction, Preset};
use crate::recording::{Damage, Footer, Header, Recorder, Recording};
use crate::report::{REPORT_AFTER, REPORT_BEFORE};
use crate::store::{MarkKind, Metric, Store};
use crate::timeline::{SPEEDS, TimeCommand, TimeControl};

mod doctor_window;
pub mod layout;
mod lessons;
mod panels;
pub mod plots;
mod whatif_window;

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
}

/// The CSV export dialog.
struct ExportDialog {
    metrics: Vec<(Metric, bool)>,
    path: String,
}

pub struct MovescopeApp {
    options: AppOptions,
    session: Option<LiveSession>,
    opened: Option<Opened>,
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
    /// Edited copies of what the session runs with.
    faults: Faults,
    smoothing: SmoothingMode,
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
    export: Option<ExportDialog>,
    /// Timeline drag with Shift: where the range selection started.
    range_anchor: Option<f64>,
    bindings_open: bool,
    bindings_clients_only: bool,
    bindings_error: Option<String>,
    gmc_open: bool,
    /// Network panel: which client (`None`: all) and which direction it edits.
    net_target: Option<u16>,
    net_direction: Direction,
    outage_seconds: f64,
    /// The client the keyboard drives, and the input last sent to it.
    drive: Option<u16>,
    last_drive: Option<crate::model::input::RawInput>,
    /// Session settings staged until "Restart with these".
    session_edit: Preset,
    preset_path: String,
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
    lineage_job: Option<Receiver<crate::lineage::Lineage>>,
    /// Show the journey of the move at the cursor as soon as there is one (`--window journey`).
    journey_pending: bool,
}

impl MovescopeApp {
    pub fn new(options: AppOptions) -> Self {
        let (shot_tx, shot_rx) = bounded(2);
        let mut app = MovescopeApp {
            faults: options.preset.faults.clone(),
            smoothing: options.preset.smoothing.mode,
            options,
            session: None,
            opened: None,
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
            export: None,
            range_anchor: None,
            bindings_open: false,
            bindings_clients_only: false,
            bindings_error: None,
            gmc_open: false,
            net_target: None,
            net_direction: Direction::Both,
            outage_seconds: 3.0,
            drive: None,
            last_drive: None,
            session_edit: Preset::default(),
            preset_path: "presets/my-session.ron".into(),
            light: false,
            theme_applied: None,
            layout: layout::default_layout(),
            lessons: lessons::LessonState::default(),
            whatif: whatif_window::WhatIfState::default(),
            doctor: doctor_window::DoctorState::default(),
            lineage: None,
            lineage_job: None,
            journey_pending: false,
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
        }
        app.session_edit = app.options.preset.clone();
        if !app.options.whatif.is_empty() {
            app.whatif.open = true;
            app.whatif.changes = app.options.whatif.join("\n");
            app.whatif.pending = true;
        }
        for w in app.options.windows.clone() {
            match w.as_str() {
                "bindings" => app.bindings_open = true,
                "gmc" => app.gmc_open = true,
                "help" => app.show_help = true,
                "whatif" => app.whatif.open = true,
                "journey" => app.journey_pending = true,
                "doctor" => app.doctor.open = true,
                "lessons" => {
                    // Opened on a lesson's preset: that lesson is the current one.
                    app.lessons.open = true;
                    app.lessons.list = lessons::shipped_lessons();
                    let name = std::path::Path::new(&app.options.preset_name);
                    app.lessons.current = app
                        .lessons
                        .list
                        .iter()
                        .position(|e| e.path == name || e.path.file_name() == name.file_name());
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

    /// Records around `t` (from the recording's file, or a live session's recent records).
    fn records_around(&self, t: f64, before: f64, after: f64) -> Result<Vec<Record>, String> {
        match &self.opened {
            Some(o) => crate::report::records_between(&o.recording, t - before, t + after),
            None => Ok(self
                .recent
                .iter()
                .filter(|r| r.t >= t - before && r.t <= t + after)
                .cloned()
                .collect()),
        }
    }

    /// Traces a move of `client`: `move_id`, or the one it closed nearest to `t`. Bound
    /// values come from the value trace: recorded, traced live, or (a virtual-time recording
    /// up to ten minutes in) re-simulated on a background thread — the journey shows at once,
    /// and again with the values when the re-run ends.
    pub fn show_lineage(&mut self, client: u16, move_id: Option<u32>, t: f64) {
        self.lineage_job = None;
        let records = match self.records_around(t, 3.0, 3.0) {
            Ok(r) => r,
            Err(e) => {
                self.lineage = Some(Err(e));
                return;
            }
        };
        let m = match move_id.or_else(|| crate::lineage::move_near(&records, client, t)) {
            Some(m) => m,
            None => {
                self.lineage = Some(Err(format!("client {client} closed no move near {t:.2} s")));
                return;
            }
        };
        let traced = records
            .iter()
            .any(|r| matches!(r.event, crate::model::telemetry::Event::MoveValues(_)));
        let missing = || format!("no records of client {client}'s move {m} near {t:.2} s");
        let trace = |bindings: &[crate::model::binding::Binding], source: &str| {
            crate::lineage::trace(bindings, &records, &[], source, client, m).ok_or_else(missing)
        };
        let Some(o) = &self.opened else {
            let bindings = self
                .session
                .as_ref()
                .map(|s| s.bindings().list().to_vec())
                .unwrap_or_default();
            let source = if traced {
                "traced live"
            } else {
                "not traced (switch the value trace on in the Session panel)"
            };
            self.lineage = Some(trace(&bindings, source));
            return;
        };
        let bindings = o.recording.header.bindings.clone();
        let until = t + 3.0;
        if traced {
            self.lineage = Some(trace(&bindings, "recorded"));
            return;
        }
        if until > RESIMULATE_MAX_S {
            self.lineage = Some(trace(
                &bindings,
                &format!(
                    "not traced; re-simulating {until:.0} s is left to `movescope lineage` (the app re-simulates up to {RESIMULATE_MAX_S:.0} s)"
                ),
            ));
            return;
        }
        let shown = trace(
            &bindings,
            &format!("not traced; re-simulating the first {until:.0} s for them"),
        );
        if shown.is_ok() {
            let rec = o.recording.clone();
            let (tx, rx) = bounded(1);
            let spawned = std::thread::Builder::new()
                .name("journey".into())
                .spawn(move || {
                    let (values, source) = match crate::report::records_between(&rec, 0.0, until) {
                        Ok(from_start) => crate::valuetrace::of_recording(
                            &rec,
                            &from_start,
                            Some(until),
                            &|c, mv| c == client && mv == m,
                        ),
                        Err(e) => (Vec::new(), format!("not traced; re-simulation failed: {e}")),
                    };
                    if let Some(l) =
                        crate::lineage::trace(&bindings, &records, &values, &source, client, m)
                    {
                        let _ = tx.send(l);
                    }
                });
            match spawned {
                Ok(_) => self.lineage_job = Some(rx),
                Err(e) => {
                    self.lineage = Some(shown.map(|mut l| {
                        l.value_trace =
                            format!("not traced; could not start the re-simulation: {e}");
                        l
                    }));
                    return;
                }
            }
        }
        self.lineage = Some(shown);
    }

    /// Whether a journey's bound values are still being re-simulated.
    pub fn is_tracing_values(&self) -> bool {
        self.lineage_job.is_some()
    }

    /// The lineage shown (for tests and tools).
    pub fn lineage(&self) -> Option<&Result<crate::lineage::Lineage, String>> {
        self.lineage.as_ref()
    }

    fn lineage_window(&mut self, ctx: &egui::Context) {
        if let Some(rx) = &self.lineage_job {
            match rx.try_recv() {
                Ok(l) => {
                    self.lineage = Some(Ok(l));
                    self.lineage_job = None;
                }
                Err(crossbeam_channel::TryRecvError::Disconnected) => {
                    self.lineage_job = None;
                    if let Some(Ok(l)) = &mut self.lineage {
                        l.value_trace =
                            "not traced; the re-simulation stopped without values".into();
                    }
                }
                Err(crossbeam_channel::TryRecvError::Empty) => {
                    ctx.request_repaint_after(Duration::from_millis(100));
                }
            }
        }
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

    fn start_live(&mut self) {
        self.stop_recording();
        self.opened = None;
        self.reset_view();
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

    /// Starts `preset` live under `name`; the panels show its settings.
    pub(super) fn start_preset(&mut self, preset: Preset, name: String) {
        self.faults = preset.faults.clone();
        self.smoothing = preset.smoothing.mode;
        self.session_edit = preset.clone();
        self.options.preset = preset;
        self.options.preset_name = name;
        self.start_live();
    }

    /// Loads a preset file and starts it live (a load error goes to the status line).
    pub(super) fn start_preset_file(&mut self, path: &Path) -> bool {
        match Preset::load(path) {
            Ok(p) => {
                self.start_preset(p, path.display().to_string());
                true
            }
            Err(e) => {
                self.status = e.to_string();
                false
            }
        }
    }

    /// Stops any live session and loads `path` in the background.
    pub fn open_recording(&mut self, path: &Path, at: Option<f64>) {
        let recording = match Recording::open(path) {
            Ok(r) => Arc::new(r),
            Err(e) => {
                self.status = e.to_string();
                if self.session.is_none() && self.opened.is_none() {
                    self.error = Some(e.to_string());
                }
                return;
            }
        };
        self.stop_recording();
        if let Some(s) = self.session.take() {
            s.stop();
        }
        self.reset_view();
        self.store = Store::new(None);
        self.store.set_growing(true);
        self.options.preset = recording.header.preset.clone();
        self.options.preset_name = recording.header.preset_name.clone();
        self.faults = self.options.preset.faults.clone();
        self.smoothing = self.options.preset.smoothing.mode;
        let start = at.or(recording.header.cursor).unwrap_or(recording.span().0);
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
            self.status = format!("cannot start loading: {e}");
            return;
        }
        self.status = format!("loading {}", recording.describe());
        self.opened = Some(Opened {
            recording,
            loader: Some(rx),
            damage: None,
        });
    }

    fn command(&mut self, cmd: Command) {
        if let Some(s) = self.session.as_mut()
            && let Err(e) = s.command(cmd)
        {
            self.status = e;
        }
    }

    fn take(&mut self, r: Record) {
        self.store.ingest(&r);
        if let Some(rec) = self.recorder.as_mut()
            && let Err(e) = rec.push(&r)
        {
            self.status = format!("recording stopped: {e}");
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
        let t = self.time.cursor();
        self.time.apply(TimeCommand::Seek(t), &self.store);
        if let Some(o) = self.opened.as_mut() {
            o.loader = None;
            self.status = match &damage {
                Some(d) => format!("{}: {d}", o.recording.path.display()),
                None => format!("loaded {}", o.recording.describe()),
            };
            o.damage = damage;
        }
    }

    fn start_recording(&mut self, path: PathBuf) {
        let header = match Header::new(&self.options.preset, &self.options.preset_name, "live") {
            Ok(h) => h,
            Err(e) => {
                self.status = format!("cannot record: {e}");
                return;
            }
        };
        match Recorder::create(&path, &header) {
            Ok(r) => {
                self.status = format!("recording to {}", path.display());
                self.recorder = Some(r);
                self.record_started = Instant::now();
            }
            Err(e) => self.status = format!("cannot record: {e}"),
        }
    }

    fn stop_recording(&mut self) {
        if let Some(rec) = self.recorder.take() {
            let footer = Footer {
                simulated_seconds: self.store.latest(),
                wall_seconds: self.record_started.elapsed().as_secs_f64(),
                dropped_records: self.session.as_ref().map_or(0, |s| s.telemetry_dropped()),
            };
            self.status = match rec.finish(footer) {
                Ok(stats) => format!(
                    "recorded {} records to {} ({} KB)",
                    stats.records,
                    stats.path.display(),
                    stats.bytes / 1024
                ),
                Err(e) => format!("recording failed: {e}"),
            };
        }
    }

    fn screenshots(&mut self, ctx: &egui::Context) {
        if let Ok(img) = self.shot_rx.try_recv() {
            let path = self
                .shot_path
                .take()
                .unwrap_or_else(|| PathBuf::from("movescope.png"));
            match save_png(&path, &img) {
                Ok(()) => self.status = format!("screenshot saved to {}", path.display()),
                Err(e) => self.status = format!("screenshot failed: {e}"),
            }
            if matches!(self.shot, ShotState::Requested) && self.options.screenshot.is_some() {
                self.shot = ShotState::Done;
                if !self.status.starts_with("screenshot saved") {
                    eprintln!("movescope: {}", self.status);
                    std::process::exit(1);
                }
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
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
    /// a picture of the window, in a new folder under `reports/`.
    pub fn bug_report(&mut self, ctx: &egui::Context) {
        let cursor = self.time.cursor();
        let (t0, t1) = (cursor - REPORT_BEFORE, cursor + REPORT_AFTER);
        let (header, window) = if let Some(o) = &self.opened {
            match crate::report::records_between(&o.recording, t0, t1) {
                Ok(w) => (o.recording.header.clone(), w),
                Err(e) => {
                    self.status = format!("bug report failed: {e}");
                    return;
                }
            }
        } else {
            match Header::new(&self.options.preset, &self.options.preset_name, "live") {
                Ok(h) => (
                    h,
                    self.recent
                        .iter()
                        .filter(|r| r.t >= t0 && r.t <= t1)
                        .cloned()
                        .collect(),
                ),
                Err(e) => {
                    self.status = format!("bug report failed: {e}");
                    return;
                }
            }
        };
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let dir = PathBuf::from(REPORTS_DIR).join(format!("report-{stamp}"));
        match crate::report::write_report(&dir, &header, &window, cursor) {
            Ok(files) => {
                self.request_screenshot(ctx, files.picture.clone());
                self.status = format!(
                    "bug report written to {} (recording, preset, summary.md, view.png)",
                    dir.display()
                );
            }
            Err(e) => self.status = format!("bug report failed: {e}"),
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
            ui.label(RichText::new(&self.options.preset.title).strong())
                .on_hover_text(&self.options.preset.description);
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
                    self.start_live();
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
                if self.recorder.is_some() {
                    if ui
                        .button(RichText::new("Stop recording").color(Color32::RED))
                        .clicked()
                    {
                        self.stop_recording();
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
            if !self.status.is_empty() {
                ui.label(&self.status);
            }
        });
    }

    fn toggle_pause(&mut self) {
        self.paused = !self.paused;
        self.command(if self.paused {
            Command::Pause
        } else {
            Command::Resume
        });
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
        if space && self.drive.is_none() {
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
        self.bindings_window(ctx);
        self.gmc_window(ctx);
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
                ui.label(format!("In {RECORDINGS_DIR}/:"));
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
                egui::ScrollArea::vertical()
                    .max_height(240.0)
                    .show(ui, |ui| {
                        for f in files {
                            if ui
                                .selectable_label(false, f.display().to_string())
                                .clicked()
                            {
                                chosen = Some(f);
                            }
                        }
                    });
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
                        self.status =
                            match write_csv(&self.store, &metrics, t0, t1, Path::new(&dlg.path)) {
                                Ok(n) => format!("wrote {n} rows to {}", dlg.path),
                                Err(e) => format!("export failed: {e}"),
                            };
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
        egui::ScrollArea::vertical().show(ui, |ui| {
            if self.session.is_none() {
                ui.label(
                    "Viewing a recording: these are the settings it was recorded with. Start it \
                     live (top bar) to change them.",
                );
            }
            ui.add_enabled_ui(self.session.is_some(), |ui| self.control_widgets(ui));
        });
    }

    fn control_widgets(&mut self, ui: &mut egui::Ui) {
        {
            ui.horizontal_wrapped(|ui| {
                if ui
                    .button("Bindings table")
                    .on_hover_text("Every bound value with its type and modes, editable live.")
                    .clicked()
                {
                    self.bindings_open = !self.bindings_open;
                }
                if ui
                    .button("GMC settings")
                    .on_hover_text("GMC's component settings and the smoothing parameters, live.")
                    .clicked()
                {
                    self.gmc_open = !self.gmc_open;
                }
            });
            self.session_section(ui);
            self.presets_section(ui);
            ui.separator();
            ui.heading("Pitfall switches");
            let mut f = self.faults.clone();
            let mut changed = false;
            {
                let fields: [(&mut bool, &str); 10] = [
                    (&mut f.unbound_member, Faults::EXPLAINED[0].1),
                    (&mut f.wall_clock_in_tick, Faults::EXPLAINED[1].1),
                    (&mut f.no_seal_after_one_shot, Faults::EXPLAINED[2].1),
                    (&mut f.dash_always_combine, Faults::EXPLAINED[3].1),
                    (&mut f.unguarded_side_effects, Faults::EXPLAINED[4].1),
                    (&mut f.proxy_value_not_simulated, Faults::EXPLAINED[5].1),
                    (&mut f.spawn_data_only_bound, Faults::EXPLAINED[6].1),
                    (&mut f.transition_in_sync_applied, Faults::EXPLAINED[7].1),
                    (&mut f.binding_mismatch, Faults::EXPLAINED[8].1),
                    (&mut f.tick_reads_proxy_transform, Faults::EXPLAINED[9].1),
                ];
                for (i, (flag, explain)) in fields.into_iter().enumerate() {
                    changed |= ui
                        .checkbox(flag, Faults::EXPLAINED[i].0)
                        .on_hover_text(explain)
                        .changed();
                }
            }
            if changed {
                self.apply_faults(f);
            }
            ui.separator();
            self.network_section(ui);
            ui.separator();
            ui.heading("Smoothing");
            let before = self.smoothing;
            for (m, explain) in [
                (
                    SmoothingMode::AdaptiveBufferedInterpolation,
                    "GMC's default: show states latency + an adaptive buffer in the past.",
                ),
                (
                    SmoothingMode::FixedDelayInterpolation,
                    "A fixed total delay (0.15 s): runs dry, and extrapolates, when latency is higher.",
                ),
                (
                    SmoothingMode::MatchLatest,
                    "Show the newest state as it arrives: jerky.",
                ),
                (
                    SmoothingMode::ForwardSimulation,
                    "Run the prediction tick (simulated executions) from the newest state to now.",
                ),
            ] {
                ui.radio_value(&mut self.smoothing, m, format!("{m:?}"))
                    .on_hover_text(explain);
            }
            if self.smoothing != before {
                let mut sm = self.options.preset.smoothing;
                sm.mode = self.smoothing;
                self.options.preset.smoothing = sm;
                self.command(Command::SetSmoothing(sm));
            }
            ui.separator();
            self.drive_section(ui);
        }
    }

    /// Tick pitfalls go to the threads as they are; binding mistakes need a binding change.
    fn apply_faults(&mut self, f: Faults) {
        let bindings_changed = f.unbound_member != self.faults.unbound_member
            || f.dash_always_combine != self.faults.dash_always_combine
            || f.proxy_value_not_simulated != self.faults.proxy_value_not_simulated;
        self.faults = f.clone();
        self.options.preset.faults = f.clone();
        self.command(Command::SetFaults(f));
        if bindings_changed {
            match self.options.preset.bindings() {
                Ok(b) => self.command(Command::ChangeBindings {
                    bindings: b,
                    consistent: true,
                }),
                Err((field, e)) => self.status = format!("`{field}`: {e}"),
            }
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
        // Closing the window finishes the recording (index and all).
        self.stop_recording();
        if self.options.persist {
            let last_preset = std::path::Path::new(&self.options.preset_name)
                .is_file()
                .then(|| self.options.preset_name.clone());
            let state = layout::UiState {
                layout: self.layout.clone(),
                light: self.light,
                window_s: self.window_s,
                plots_shown: self.plots.shown.clone(),
                last_preset,
            };
            if let Err(e) = state.save() {
                eprintln!("movescope: could not save the layout: {e}");
            }
        }
    }
}

impl eframe::App for MovescopeApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
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
        let busy = self.session.is_some() || self.is_loading() || self.time.is_playing();
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
    }
}

/// Writes a CSV export to `path` (creating its folder).
fn write_csv(
    store: &Store,
    metrics: &[Metric],
    t0: f64,
    t1: f64,
    path: &Path,
) -> Result<usize, String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut w = std::io::BufWriter::new(file);
    let n = crate::report::export_csv(store, metrics, &[], t0, t1, &mut w)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    std::io::Write::flush(&mut w).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(n)
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
