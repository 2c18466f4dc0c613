//! The panes' and windows' own state, held by the app: the windows opened at start
//! (`--window`), opening and closing them, and drawing the floating windows and dialogs each
//! frame.

use std::time::Instant;

use eframe::egui;

use super::action::{Action, Toggle};
use super::options::WINDOWS;
use super::{
    MovescopeApp, bindings_window, buffer_window, component_run, component_window, controls,
    doctor_window, event_log, export_dialog, gmc_window, help_window, journey_window, lessons,
    open_dialog, palette, plots, timeline_bar, track_window, whatif_window, world_view,
};

/// The panes of the layout.
#[derive(Default)]
pub(super) struct Panes {
    pub(super) plots: plots::PlotsPanel,
    pub(super) world: world_view::WorldView,
    pub(super) log: event_log::EventLog,
    pub(super) timeline: timeline_bar::TimelineBar,
    pub(super) controls: controls::ControlsPane,
    /// The view before a lesson started, given back when it ends.
    pub(super) before_lesson: Option<LessonView>,
}

/// What a lesson sets when it starts and gives back when it ends: the event log's filter, the
/// world view (whose view, vs server, camera, what it draws) and which machines the plots
/// hide. A lesson's steps point at labels and rows these decide ("ms ago" beside the pawns,
/// corrections in the log), so it starts from the view it was written for.
pub(super) struct LessonView {
    filter: event_log::Filter,
    world: world_view::WorldView,
    machines: Option<std::collections::BTreeSet<crate::model::telemetry::Machine>>,
}

impl Panes {
    /// The view as it is now.
    pub(super) fn view_now(&self) -> LessonView {
        LessonView {
            filter: self.log.filter.clone(),
            world: self.world.clone(),
            machines: self.plots.machines_chosen(),
        }
    }

    /// Puts `v` back (or the view a fresh window starts with, for [`LessonView::known`]).
    pub(super) fn set_view(&mut self, v: LessonView) {
        self.log.filter = v.filter;
        self.world = v.world;
        self.plots.choose_machines(v.machines);
    }
}

impl LessonView {
    /// The view a lesson is written for: the event log's default filter (one-shots hidden),
    /// client 0's world view on its own, following its pawn, and the plots' own choice of
    /// machines.
    pub(super) fn known() -> LessonView {
        LessonView {
            filter: event_log::Filter::default(),
            world: world_view::WorldView::default(),
            machines: None,
        }
    }
}

/// The floating windows and dialogs, each with its own state (whether it is open included).
#[derive(Default)]
pub(super) struct Windows {
    pub(super) show_help: bool,
    pub(super) open_dialog: Option<open_dialog::OpenDialog>,
    pub(super) export: Option<export_dialog::ExportDialog>,
    pub(super) gmc: gmc_window::GmcWindow,
    pub(super) bindings: bindings_window::BindingsWindow,
    pub(super) lessons: lessons::LessonsWindow,
    /// "Your component" (the lint).
    pub(super) component: component_window::ComponentWindow,
    pub(super) whatif: whatif_window::WhatIfWindow,
    pub(super) doctor: doctor_window::DoctorWindow,
    /// The interpolation buffer view.
    pub(super) buffer: buffer_window::BufferWindow,
    /// The command palette (Ctrl+K).
    pub(super) palette: palette::Palette,
    /// Track one value.
    pub(super) track: track_window::TrackWindow,
    /// The move journey window.
    pub(super) journey: journey_window::JourneyWindow,
    /// Show the journey of the move at the cursor as soon as there is one (`--window journey`).
    pub(super) journey_pending: bool,
}

impl MovescopeApp {
    /// `--whatif` and `--window`: the windows open at start.
    pub(super) fn open_windows_at_start(&mut self) {
        if !self.options.whatif.is_empty() {
            self.windows.whatif.open = true;
            self.windows.whatif.changes = self.options.whatif.join("\n");
            self.windows.whatif.pending = true;
        }
        if !self.options.component.is_empty() {
            let rates = crate::analysis::lint::Rates::of(self.shown_preset());
            self.windows
                .component
                .lint(self.options.component.clone(), rates);
        }
        self.open_lessons_at_start();
        for w in self.options.windows.clone() {
            match w.as_str() {
                "bindings" => self.windows.bindings.open = true,
                "component" => self.windows.component.open = true,
                "gmc" => self.windows.gmc.open = true,
                "help" => self.windows.show_help = true,
                "whatif" => self.windows.whatif.open = true,
                "journey" => self.windows.journey_pending = true,
                "doctor" => self.windows.doctor.open = true,
                "buffer" => self.windows.buffer.open = true,
                "track" => self.windows.track.open = true,
                // Not a window: presenter mode of the lessons panel (which it opens).
                "presenter" => self.windows.lessons.presenter = true,
                // Not a window: the world view side by side with the server's.
                "vs-server" => self.panes.world.side_by_side = true,
                // Opened before the loop, once, with the presenter mode and `--answer` too.
                "lessons" => {}
                other => {
                    self.status.set(format!(
                        "error: unknown window `{other}` ({})",
                        WINDOWS.join(", ")
                    ));
                }
            }
        }
    }

    /// The lessons panel at start: `--window lessons`, `--window presenter` (presenter mode
    /// of the same panel), `--answer K` or `--walk SECONDS` alone each open it on the lesson of the preset, and
    /// a lesson whose first step asks a question holds the session until it is answered (or
    /// shows `--answer`'s choice revealed).
    fn open_lessons_at_start(&mut self) {
        let asked = |w: &str| self.options.windows.iter().any(|x| x == w);
        let scripted = self.options.answer.is_some() || self.options.walk.is_some();
        if !(asked("lessons") || asked("presenter") || scripted) {
            return;
        }
        // Opened on a lesson's preset: that lesson is the current one.
        self.windows.lessons.open = true;
        self.windows.lessons.list = lessons::shipped_lessons();
        let name = lessons::lesson_key(&self.options.preset_name);
        self.windows.lessons.current = self
            .windows
            .lessons
            .list
            .iter()
            .position(|e| lessons::lesson_key(&e.name) == name);
        // As when picked in the panel: the plot the first step looks at is shown.
        if let Some(plot) = self.windows.lessons.focus() {
            self.actions.push(Action::ShowPlot(plot));
        }
        // As when picked in the panel: a first question holds the session.
        let asks_first = self
            .windows
            .lessons
            .current
            .and_then(|i| self.windows.lessons.list.get(i))
            .and_then(|e| e.preset.lesson.as_ref())
            .and_then(|l| l.steps.first())
            .is_some_and(|st| st.question.is_some());
        match self.options.answer {
            // Answered already: the session runs and the answer shows.
            Some(k) if asks_first => {
                self.windows.lessons.choose_shown(k);
                self.windows.lessons.revealed = true;
            }
            None if asks_first => {
                self.windows.lessons.held = true;
                self.actions.push(Action::Hold(true));
            }
            _ => {}
        }
    }

    /// Traces a move of `client` (`move_id`, or the one it closed nearest `t` — executed on
    /// the server nearest `t` when `on_server`) in the move journey window, from the opened
    /// recording or the live session's recent records.
    pub fn show_lineage(&mut self, client: u16, move_id: Option<u32>, t: f64, on_server: bool) {
        let source = match &self.shown.opened {
            Some(o) => journey_window::TraceSource::File(o.recording.clone()),
            None => journey_window::TraceSource::Live {
                records: self
                    .shown
                    .recent
                    .iter()
                    .filter(|r| {
                        r.t >= t - journey_window::LIVE_SPAN_S
                            && r.t <= t + journey_window::LIVE_SPAN_S
                    })
                    .cloned()
                    .collect(),
                bindings: self.live_bindings(),
            },
        };
        self.windows
            .journey
            .trace(source, client, move_id, t, on_server);
    }

    /// The cursor to where `client` closed `move_id`, and the move's journey; the status line
    /// says so when the data held has no such move.
    pub fn go_to_move(&mut self, client: u16, move_id: u32) {
        let machine = crate::model::telemetry::Machine::Client(client);
        match self.shown.store.move_closed_at(machine, move_id) {
            Some(t) => {
                self.actions.push(Action::Time(crate::session::timeline::TimeCommand::Seek(t)));
                self.show_lineage(client, Some(move_id), t, false);
            }
            None => self.status.set(format!(
                "client {client} closed no move {move_id} in the data held (a live session keeps its last minutes; a client that rejoined counts its moves from 1 again)"
            )),
        }
    }

    /// A journey opened on the live session is traced again while its move is young, so
    /// what happened to the move after it was opened shows.
    pub(super) fn refresh_live_journey(&mut self) {
        if self.shown.opened.is_some() {
            self.windows.journey.stop_following();
            return;
        }
        let latest = self.shown.store.latest();
        if let Some((client, move_id, t, on_server, last)) = self.windows.journey.due(latest) {
            self.show_lineage(client, move_id, t, on_server);
            if last {
                self.windows.journey.stop_following();
            }
        }
    }

    /// The live session's binding list now (empty without a session).
    fn live_bindings(&self) -> Vec<crate::model::binding::Binding> {
        self.shown
            .session
            .as_ref()
            .map(|s| s.bindings().list().to_vec())
            .unwrap_or_default()
    }

    /// Runs the doctor on what is shown: the recording, or the live session's recent records.
    pub(super) fn examine(&mut self) {
        let source = match &self.shown.opened {
            Some(o) => doctor_window::DoctorSource::Recording(o.recording.clone()),
            None => doctor_window::DoctorSource::Live {
                epochs: if self.shown.binding_epochs.is_empty() {
                    vec![(f64::NEG_INFINITY, self.live_bindings())]
                } else {
                    self.shown.binding_epochs.clone()
                },
                records: self.shown.recent.iter().cloned().collect(),
            },
        };
        self.windows.doctor.examine(source);
    }

    /// Opens or closes a window (or switches the theme).
    pub(super) fn toggle(&mut self, t: Toggle) {
        match t {
            Toggle::Lessons => self.windows.lessons.open = !self.windows.lessons.open,
            Toggle::Open => {
                if self.windows.open_dialog.take().is_none() {
                    self.windows.open_dialog = Some(open_dialog::OpenDialog::new());
                }
            }
            Toggle::Doctor => {
                self.windows.doctor.open = !self.windows.doctor.open;
                if self.windows.doctor.open && self.windows.doctor.report.is_none() {
                    self.examine();
                }
            }
            Toggle::WhatIf => self.windows.whatif.open = !self.windows.whatif.open,
            Toggle::Help => self.windows.show_help = !self.windows.show_help,
            Toggle::Bindings => self.windows.bindings.open = !self.windows.bindings.open,
            Toggle::Gmc => self.windows.gmc.open = !self.windows.gmc.open,
            Toggle::Buffer => self.windows.buffer.open = !self.windows.buffer.open,
            Toggle::Track => self.windows.track.open = !self.windows.track.open,
            Toggle::Component => self.windows.component.open = !self.windows.component.open,
            Toggle::Theme => self.view.light = !self.view.light,
        }
    }

    pub(super) fn dialogs(&mut self, ctx: &egui::Context) {
        self.refresh_live_journey();
        let actions = self.windows.journey.ui(ctx);
        self.actions.extend(actions);
        let values_on = self.shown.session.as_ref().map(|s| s.preset().value_trace);
        let actions =
            self.windows
                .track
                .ui(ctx, &self.shown.store, self.view.time.cursor(), values_on);
        self.actions.extend(actions);
        let (actions, views) = self.windows.palette.ui(ctx);
        self.actions.extend(actions);
        for v in views {
            match v {
                palette::View::LogCorrections => {
                    self.panes.log.filter = event_log::Filter {
                        kinds: [true, false, false, false],
                        ..Default::default()
                    }
                }
                palette::View::LogEverything => {
                    self.panes.log.filter = event_log::Filter::default()
                }
                palette::View::WorldDelays => self.panes.world.show_delays(),
                palette::View::SideBySide(on) => self.panes.world.side_by_side = on,
            }
        }
        let trace_on = self.shown.session.as_ref().map(|s| s.preset().buffer_trace);
        let actions =
            self.windows
                .buffer
                .ui(ctx, &self.shown.store, self.view.time.cursor(), trace_on);
        self.actions.extend(actions);
        if let Some(store_b) = self.windows.whatif.poll() {
            self.panes.plots.overlay = Some(store_b);
            self.panes.plots.overlay_label = plots::WHATIF_LABEL.into();
            self.panes.plots.clear_cache();
        }
        if self.capture.ready_since.is_none()
            && !self.windows.whatif.is_running()
            && !self.windows.whatif.pending
            && self
                .shown
                .opened
                .as_ref()
                .is_some_and(|o| o.loader.is_none())
        {
            // A `--whatif` run waited for its result before the screenshot.
            self.capture.ready_since = Some(Instant::now());
        }
        let loaded = self
            .shown
            .opened
            .as_ref()
            .filter(|o| o.loader.is_none())
            .map(|o| o.recording.clone());
        let view = whatif_window::WhatIfView {
            recording: loaded,
            faults: &self
                .shown
                .session_view(&self.options, &self.view.time)
                .preset
                .faults,
            overlay: self.panes.plots.overlay.is_some(),
        };
        let mut actions = self.windows.whatif.ui(ctx, &view);
        actions.extend(self.windows.doctor.ui(ctx, self.shown.opened.is_some()));
        let now = self.shown.session_view(&self.options, &self.view.time).now;
        let preset = self.shown_preset().clone();
        let rc = component_run::RunContext {
            preset: &preset,
            live: self.shown.session.is_some(),
            measured: component_run::measure(
                &self.shown.store,
                now,
                component_run::MEASURE_WINDOW_S,
            ),
        };
        actions.extend(self.windows.component.ui(ctx, &rc, self.view.light));
        self.actions.extend(actions);
        {
            let bindings: Vec<crate::model::binding::Binding> = match &self.shown.session {
                Some(s) => s.bindings().list().to_vec(),
                None => self
                    .shown_preset()
                    .bindings()
                    .map(|b| b.list().to_vec())
                    .unwrap_or_default(),
            };
            let view = self.shown.session_view(&self.options, &self.view.time);
            let mut actions = self.windows.bindings.ui(ctx, &view, &bindings);
            actions.extend(self.windows.gmc.ui(ctx, &view));
            self.actions.extend(actions);
        }
        if self.windows.show_help {
            self.windows.show_help = help_window::ui(ctx);
        }
        if let Some(dlg) = self.windows.open_dialog.as_mut() {
            let (keep, actions) = dlg.ui(ctx, &self.view.recent_recordings);
            self.actions.extend(actions);
            if !keep {
                self.windows.open_dialog = None;
            }
        }
        if let Some(dlg) = self.windows.export.as_mut() {
            let (keep, actions) =
                dlg.ui(ctx, &self.shown.store, &self.view.time, self.view.window_s);
            self.actions.extend(actions);
            if !keep {
                self.windows.export = None;
            }
        }
    }
}
