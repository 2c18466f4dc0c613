//! The session being shown: the live session or a recording (opened on a job thread, loaded
//! in the background), the store every view reads, and draining telemetry or a recording's
//! records into it under a time budget each frame.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, bounded};

use super::MovescopeApp;
use super::action::{Feedback, SessionView};
use super::jobs::{Job, Poll};
use super::options::{AppOptions, Source};
use crate::analysis::report::{REPORT_AFTER, REPORT_BEFORE};
use crate::model::telemetry::Record;
use crate::net::live::LiveSession;
use crate::session::preset::Preset;
use crate::session::recording::{Damage, Recorder, Recording};
use crate::session::store::{MarkKind, Store};
use crate::session::timeline::{TimeCommand, TimeControl};

/// Longest the UI spends draining live telemetry per frame.
const DRAIN_BUDGET: Duration = Duration::from_millis(6);
/// Longest the UI spends loading a recording per frame (it stays responsive meanwhile).
const LOAD_BUDGET: Duration = Duration::from_millis(10);
/// Records the loader hands the UI thread at once, so the frame budget is checked often: an
/// imported log's records (moves with their values, checks) ingest slowly enough that a whole
/// chunk, or pieces of 4096, ran frames past 20 ms while a 64-client server log loaded.
const LOAD_PIECE: usize = 512;

/// Sends a chunk's records in pieces the frame budget can check between; `false` when the app
/// no longer listens.
fn send_in_pieces(tx: &crossbeam_channel::Sender<LoadMsg>, batch: Vec<Record>) -> bool {
    let mut records = batch.into_iter();
    loop {
        let piece: Vec<Record> = records.by_ref().take(LOAD_PIECE).collect();
        if piece.is_empty() {
            return true;
        }
        if tx.send(LoadMsg::Batch(piece)).is_err() {
            return false;
        }
    }
}

/// Opening (scanning) a recording.
pub(super) type OpenJob = Job<Result<Recording, String>>;

pub(super) enum LoadMsg {
    Batch(Vec<Record>),
    Done(Option<Damage>),
}

/// A recording shown in the window, loading in the background until `loader` is `None`.
pub(super) struct Opened {
    pub(super) recording: Arc<Recording>,
    pub(super) loader: Option<Receiver<LoadMsg>>,
    pub(super) damage: Option<Damage>,
    /// Where the cursor goes once the records around it are in the store.
    start: f64,
    placed: bool,
    /// `start` was asked for (`open --at`, a report's moment); otherwise the cursor moves to
    /// the first correction once the recording is loaded.
    start_asked: bool,
}

/// The session being shown, and what goes with it: the store, the recording being made of
/// it, the commands sent to it.
pub(super) struct Shown {
    pub(super) session: Option<LiveSession>,
    pub(super) opened: Option<Opened>,
    /// A recording being opened (scanned) on a job thread, with the cursor asked for.
    pub(super) opening: Option<(OpenJob, Option<f64>)>,
    pub(super) error: Option<String>,
    pub(super) store: Store,
    pub(super) paused: bool,
    /// Live sessions: the newest records, for bug reports.
    pub(super) recent: VecDeque<Record>,
    pub(super) recorder: Option<Recorder>,
    pub(super) record_started: Instant,
    /// The input last sent to the driven client.
    pub(super) last_drive: Option<crate::model::input::RawInput>,
    /// The outcome of each editor's last command.
    pub(super) feedback: Feedback,
    /// Every command sent to a session, described (for tests and the status line).
    pub(super) commands_sent: Vec<String>,
    /// Live sessions: the binding list in force from each session time on (the doctor judges
    /// each correction by the list of its time).
    pub(super) binding_epochs: Vec<(f64, Vec<crate::model::binding::Binding>)>,
    /// A change needs a restart (these settings): the next session's plots keep this one's
    /// over them, as "before the restart", so before and after stay on one plot.
    pub(super) keep_before: Option<String>,
}

impl Shown {
    pub(super) fn new() -> Self {
        Shown {
            session: None,
            opened: None,
            opening: None,
            error: None,
            store: Store::new(None),
            paused: false,
            recent: VecDeque::new(),
            recorder: None,
            record_started: Instant::now(),
            last_drive: None,
            feedback: Feedback::default(),
            commands_sent: Vec::new(),
            binding_epochs: Vec::new(),
            keep_before: None,
        }
    }

    /// What the settings panes read (borrows only the session shown, the options and the
    /// cursor, so a pane of the app can be drawn with it).
    pub(super) fn session_view<'a>(
        &'a self,
        options: &'a AppOptions,
        time: &TimeControl,
    ) -> SessionView<'a> {
        let (session, opened, feedback) = (&self.session, &self.opened, &self.feedback);
        let preset = match (session, opened) {
            (Some(s), _) => s.preset(),
            (None, Some(o)) => &o.recording.header.preset,
            (None, None) => &options.preset,
        };
        let client_ids = match session {
            Some(s) => s.client_ids(),
            None => preset.network_clients().collect(),
        };
        let imported = session.is_none()
            && opened
                .as_ref()
                .is_some_and(|o| o.recording.header.mode == crate::gmclog::record::MODE);
        SessionView {
            preset,
            live: session.is_some(),
            imported,
            client_ids,
            now: session.as_ref().map_or(time.cursor(), |s| s.clock().now()),
            feedback,
        }
    }
}

impl MovescopeApp {
    fn reset_view(&mut self) {
        self.panes.plots.clear_cache();
        self.windows.whatif.result = None;
        self.windows.doctor.reset();
        let before = std::mem::replace(&mut self.shown.store, Store::new(self.options.retention));
        match self.shown.keep_before.take() {
            Some(keys) if before.records() > 0 => {
                self.panes.plots.overlay = Some(before);
                self.panes.plots.overlay_label = format!("before the restart for {keys}");
            }
            _ => {
                self.panes.plots.overlay = None;
                retire(before);
            }
        }
        self.shown.recent.clear();
        self.shown.binding_epochs.clear();
        self.view.plot_window = None;
        self.shown.paused = false;
        self.shown.error = None;
        self.status.session_changed();
    }

    /// Starts `options.preset` live. The session takes the preset: from here on it is the
    /// only copy that counts.
    pub(super) fn start_live(&mut self) {
        self.stop_recording();
        self.shown.opened = None;
        self.shown.opening = None;
        self.reset_view();
        self.panes.controls.session_changed();
        self.shown.feedback.clear();
        let started = match &self.options.source {
            Source::Host(o) => LiveSession::host(&self.options.preset, o),
            Source::Join(o) => LiveSession::join(o.clone()),
            Source::Live | Source::Recording { .. } => LiveSession::start(&self.options.preset),
        };
        match started {
            Ok(s) => {
                // A participant's keyboard drives its own pawn from the start.
                if let Some((id, _)) = s.joined() {
                    self.panes.controls.drive = Some(id);
                    self.panes.world.viewer = crate::model::telemetry::Machine::Client(id);
                }
                // A trainer hosting with the window open reads the address and the code in
                // the terminal too (the same line a headless host prints), to dictate them.
                if let Some((addr, code)) = s.hosting() {
                    println!("movescope host: listening on {addr} code: {code}");
                }
                self.shown.session = Some(s);
                self.shown.store.set_growing(true);
                self.view.time = TimeControl::following();
                self.capture.ready_since = Some(Instant::now());
            }
            Err(e) => self.shown.error = Some(e.to_string()),
        }
    }

    /// Starts `preset` live under `name` (empty: keep the current name).
    pub(super) fn start_preset(&mut self, preset: Preset, name: String) {
        if let Some(s) = self.shown.session.take() {
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
        if path.is_dir() || crate::gmclog::record::is_game_log(path) {
            return self.open_game_logs(vec![path.to_path_buf()], at);
        }
        let shown = path.to_path_buf();
        match Job::spawn(format!("opening {}", path.display()), move |_| {
            Recording::open(&shown).map_err(|e| e.to_string())
        }) {
            Ok(job) => {
                self.status.set(job.what.clone());
                self.shown.opening = Some((job, at));
            }
            Err(e) => self.status.set(format!("error: {e}")),
        }
    }

    /// Several paths: a game's logs (files, or a folder of them) imported together; a single
    /// recording opens as one.
    pub fn open_paths(&mut self, paths: Vec<PathBuf>, at: Option<f64>) {
        match paths.as_slice() {
            [one] if !crate::gmclog::record::opens_as_logs(&paths) => self.open_recording(one, at),
            _ => self.open_game_logs(paths, at),
        }
    }

    /// A game's logs: listed and imported on a job (progress in the top bar, cancelled with
    /// the job) into one recording in the temporary folder, which then opens as any recording
    /// does. Named by the component of "Your component", when one is linted.
    fn open_game_logs(&mut self, paths: Vec<PathBuf>, at: Option<f64>) {
        let name = |p: &PathBuf| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        };
        let what = match paths.as_slice() {
            [one] if one.is_dir() => format!("importing the game logs in {}", name(one)),
            [one] => format!("importing the game log {}", name(one)),
            many => format!("importing {} game logs", many.len()),
        };
        let component = self.windows.component.paths.clone();
        match Job::spawn(what, move |ctx| import_game_logs(&paths, &component, ctx)) {
            Ok(job) => {
                self.status.set(job.what.clone());
                self.shown.opening = Some((job, at));
            }
            Err(e) => self.status.set(format!("error: {e}")),
        }
    }

    /// Polls the recording being opened; once open, shows it.
    pub(super) fn poll_opening(&mut self) {
        let Some((job, at)) = self.shown.opening.as_mut() else {
            return;
        };
        let at = *at;
        let result = match job.poll() {
            Poll::Pending => return,
            Poll::Ready(r) => r,
            Poll::Lost => Err(format!("{} stopped without a result", job.what)),
        };
        self.shown.opening = None;
        match result {
            Ok(r) => self.show_recording(Arc::new(r), at),
            Err(e) => {
                self.status.failed(format!("error: {e}"));
                if self.shown.session.is_none() && self.shown.opened.is_none() {
                    self.shown.error = Some(e);
                }
            }
        }
    }

    fn show_recording(&mut self, recording: Arc<Recording>, at: Option<f64>) {
        self.stop_recording();
        if let Some(s) = self.shown.session.take() {
            s.stop();
        }
        self.reset_view();
        self.panes.controls.session_changed();
        self.panes.log.session_changed();
        self.shown.feedback.clear();
        retire(std::mem::replace(&mut self.shown.store, Store::new(None)));
        self.shown.store.set_growing(true);
        self.options.preset_name = recording.header.preset_name.clone();
        self.options.reopened = false;
        let path = recording.path.display().to_string();
        self.view.recent_recordings.retain(|p| *p != path);
        self.view.recent_recordings.insert(0, path);
        self.view.recent_recordings.truncate(10);
        let asked = at.or(recording.header.cursor);
        let (first, last) = recording.span();
        let start = asked.unwrap_or(first);
        // Opened fitted to its length (within what the plots' window allows).
        if (last - first).is_finite() {
            self.view.window_s = (last - first).clamp(5.0, 120.0);
        }
        // The cursor is placed once the store holds the records around it.
        self.view.time = TimeControl::at(start);
        self.capture.ready_since = None;
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
                // A damaged chunk is skipped: the intact ones around it load.
                let mut first = rec.damage.clone();
                for i in 0..rec.chunks.len() {
                    match rec.read_chunk_with(&mut file, i) {
                        Ok(batch) => {
                            if !send_in_pieces(&tx, batch) {
                                return;
                            }
                        }
                        Err(d) => {
                            first.get_or_insert(d);
                        }
                    }
                }
                let _ = tx.send(LoadMsg::Done(first));
            });
        if let Err(e) = spawned {
            self.status.set(format!("error: cannot start loading: {e}"));
            return;
        }
        self.status.set(format!("loading {}", recording.describe()));
        self.shown.opened = Some(Opened {
            recording,
            loader: Some(rx),
            damage: None,
            start,
            placed: false,
            start_asked: asked.is_some(),
        });
    }

    fn take(&mut self, r: Record) {
        self.shown.store.ingest(&r);
        // The binding list in force: from the first record, and after every change.
        if let Some(s) = self.shown.session.as_ref()
            && (self.shown.binding_epochs.is_empty()
                || matches!(
                    r.event,
                    crate::model::telemetry::Event::SessionChanged { .. }
                ))
        {
            let bindings = s.bindings();
            let now = bindings.list();
            if self
                .shown
                .binding_epochs
                .last()
                .is_none_or(|(_, b)| b.as_slice() != now)
            {
                let t = if self.shown.binding_epochs.is_empty() {
                    f64::NEG_INFINITY
                } else {
                    r.t
                };
                self.shown.binding_epochs.push((t, now.to_vec()));
            }
        }
        // A machine that stopped is said in the top bar, not only in the log.
        if let crate::model::telemetry::Event::Log {
            level: crate::model::telemetry::LogLevel::Error,
            text,
        } = &r.event
            && text.contains(crate::net::live::STOPPED)
        {
            self.status.set(format!("error: {text}"));
        }
        if let Some(rec) = self.shown.recorder.as_mut()
            && let Err(e) = rec.push(&r)
        {
            self.status.set(format!("error: recording stopped: {e}"));
            self.shown.recorder = None;
        }
        if self.shown.session.is_some() {
            let keep = REPORT_BEFORE + REPORT_AFTER + 5.0;
            while self.shown.recent.front().is_some_and(|f| r.t - f.t > keep) {
                self.shown.recent.pop_front();
            }
            self.shown.recent.push_back(r);
        }
    }

    /// Moves telemetry (or a recording's records) into the store, under a time budget.
    pub(super) fn drain(&mut self) {
        if let Some(s) = self.shown.session.as_mut() {
            // A participant's panes follow the trainer's changes.
            if s.follow_host() {
                self.panes.controls.session_changed();
            }
            let rx = s.telemetry().clone();
            let deadline = Instant::now() + DRAIN_BUDGET;
            while Instant::now() < deadline {
                let Ok(r) = rx.try_recv() else { break };
                self.take(r);
            }
            return;
        }
        let Some(rx) = self.shown.opened.as_ref().and_then(|o| o.loader.clone()) else {
            return;
        };
        let deadline = Instant::now() + LOAD_BUDGET;
        while Instant::now() < deadline {
            match rx.try_recv() {
                Ok(LoadMsg::Batch(batch)) => {
                    for r in batch {
                        self.shown.store.ingest(&r);
                    }
                    // The cursor is placed once the store reaches it (not while it is empty).
                    if let Some(o) = self.shown.opened.as_mut()
                        && !o.placed
                        && self.shown.store.latest() >= o.start
                    {
                        o.placed = true;
                        let start = o.start;
                        self.view
                            .time
                            .apply(TimeCommand::Seek(start), &self.shown.store);
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
        self.shown.store.set_growing(false);
        // A --whatif run waits for it (and the screenshot waits for the what-if).
        self.capture.ready_since = (!self.windows.whatif.pending).then(Instant::now);
        let t = match self.shown.opened.as_mut() {
            Some(o) if !o.placed => {
                o.placed = true;
                o.start
            }
            _ => self.view.time.cursor(),
        };
        // Not asked where to open, and not moved while loading: at the first correction,
        // where there is something to see (the world view and log are filled there), seen
        // from the client it corrected; without one, at the end (every plot filled).
        let t = match &self.shown.opened {
            Some(o) if !o.start_asked && (t - o.start).abs() < 1e-9 => {
                let store = &self.shown.store;
                match store.next_mark(
                    &[MarkKind::Correction, MarkKind::Replay],
                    f64::NEG_INFINITY,
                    true,
                ) {
                    Some(c) => {
                        if let Some(m) = store
                            .log_between(c, c)
                            .iter()
                            .find(|e| matches!(e.kind, MarkKind::Correction | MarkKind::Replay))
                            .map(|e| e.machine)
                            .filter(|m| matches!(m, crate::model::telemetry::Machine::Client(_)))
                        {
                            self.panes.world.viewer = m;
                        }
                        c
                    }
                    None => store.latest(),
                }
            }
            _ => t,
        };
        self.view
            .time
            .apply(TimeCommand::Seek(t), &self.shown.store);
        if let Some(o) = self.shown.opened.as_mut() {
            o.loader = None;
            self.status.set(match &damage {
                Some(d) => format!("error: {}: {d}", o.recording.path.display()),
                // What the reader repaired or fell back on (a header's backup copy, an index
                // rebuilt from the chunks) is said as the command line says it.
                None => match o.recording.notes() {
                    n if n.is_empty() => format!("loaded {}", o.recording.describe()),
                    n => format!(
                        "warning: loaded {}: {}",
                        o.recording.describe(),
                        n.join("; ")
                    ),
                },
            });
            o.damage = damage;
        }
    }
}

/// Imports a game's logs (named by `component` when the app has one, else as GMC prints
/// them) and opens the recording they made, reporting the import's progress to the job.
fn import_game_logs(
    paths: &[PathBuf],
    component: &[PathBuf],
    ctx: &super::jobs::JobCtx,
) -> Result<Recording, String> {
    use crate::gmclog::record::{ImportJob, game_logs, imported_path, to_recording};
    use crate::gmclog::{Naming, Progress, names};
    use std::sync::atomic::Ordering;
    let logs = game_logs(paths).map_err(|e| e.to_string())?;
    let (naming, bindings) = match component {
        [] => (Naming::none(), Vec::new()),
        c => names::for_component(c, None)
            .map(|c| (c.naming, c.bindings))
            .unwrap_or_else(|_| (Naming::none(), Vec::new())),
    };
    let job = ImportJob {
        out: imported_path(&logs),
        logs,
        naming,
        bindings,
    };
    let progress = Progress::default();
    let result = std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            while !progress.cancel.load(Ordering::Relaxed) {
                ctx.set_progress(progress.fraction());
                if ctx.is_cancelled() {
                    progress.cancel.store(true, Ordering::Relaxed);
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        });
        let r = to_recording(&job, &progress);
        progress.cancel.store(true, Ordering::Relaxed);
        let _ = watcher.join();
        r
    });
    result.map_err(|e| e.to_string())?;
    Recording::open(&job.out).map_err(|e| e.to_string())
}

/// Frees a store that is no longer shown on a thread of its own: an hour of records takes tens
/// of milliseconds to free, a frame's worth of time the UI thread does not have.
fn retire(store: Store) {
    if store.records() < 100_000 {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("free a store".into())
        .spawn(move || drop(store));
}
