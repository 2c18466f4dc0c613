//! One frame of the app: the eframe `logic` (polling, draining, the clock, keys) and `ui`
//! (the top bar, the status line, the timeline, the lessons and the panes' layout), the
//! keyboard and driving a pawn with it.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use eframe::egui;
use egui::Color32;

use super::action::{Action, Toggle};
use super::{
    MovescopeApp, component_window, layout, lessons, plots, status, timeline_bar, top_bar,
};
use crate::model::telemetry::Machine;
use crate::net::live::{Command, LiveSession};
use crate::session::store::MarkKind;
use crate::session::timeline::TimeCommand;

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
        let dt = now.duration_since(self.view.last_frame).as_secs_f64();
        self.view.last_frame = now;
        self.view.time.advance(dt, &self.shown.store);
        self.screenshots(ctx);
        self.keyboard(ctx);
        self.drive_keys(ctx);
        if self.view.theme_applied != Some(self.view.light) {
            ctx.set_theme(if self.view.light {
                egui::Theme::Light
            } else {
                egui::Theme::Dark
            });
            self.view.theme_applied = Some(self.view.light);
        }
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        // C++ sources and folders go to "Your component"; anything else is a recording.
        let (sources, others): (Vec<PathBuf>, Vec<PathBuf>) = dropped
            .into_iter()
            .partition(|p| component_window::is_source(p));
        if !sources.is_empty() {
            let rates = crate::analysis::lint::Rates::of(self.shown_preset());
            self.windows.component.lint(sources, rates);
        }
        // Several files dropped together (a server's log and its clients'), or a folder of
        // logs: one game, imported together.
        if crate::gmclog::record::opens_as_logs(&others) {
            self.actions.push(Action::OpenPaths(others));
        } else if let Some(p) = others.into_iter().next() {
            self.actions.push(Action::OpenRecording(p));
        }
        let busy = self.shown.session.is_some()
            || self.is_loading()
            || self.shown.opening.is_some()
            || self.view.time.is_playing();
        ctx.request_repaint_after(Duration::from_millis(if busy { 33 } else { 250 }));
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        // Presenter mode's text size, while the lessons panel is open.
        let zoom = if self.windows.lessons.open && self.windows.lessons.presenter {
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
                let pacing = self.pacing_complaint();
                let pacing = pacing.as_ref().map(|(c, l)| (c.as_str(), l.as_str()));
                let actions = status::ui(ui, &self.status, pacing);
                self.actions.extend(actions);
            });
        let ctx = ui.ctx().clone();
        super::set_window_area(&ctx, ui.available_rect_before_wrap());
        if self.shown.error.is_some() {
            self.dialogs(&ctx);
            self.basics_offer(&ctx);
        }
        if let Some(e) = &self.shown.error {
            egui::CentralPanel::default().show(ui, |ui| {
                ui.colored_label(Color32::RED, format!("The session could not start: {e}"));
            });
            self.apply_actions(&ctx);
            return;
        }
        egui::Panel::bottom("timeline")
            .resizable(false)
            .show(ui, |ui| {
                let actions = self.panes.timeline.ui(
                    ui,
                    &self.shown.store,
                    &self.view.time,
                    self.shown.session.is_some(),
                    self.panes.world.viewer,
                );
                self.actions.extend(actions);
            });
        // Windows stay above the timeline too (a growing window, the Track window's plot,
        // covered its buttons).
        super::set_window_area(&ctx, ui.available_rect_before_wrap());
        self.dialogs(&ctx);
        self.basics_offer(&ctx);
        // The lessons, docked beside the plots (never over what they point at). A live
        // lesson's texts speak of the session as it runs: its newest moment, not the cursor
        // (a click in the event log moves the cursor back; the texts stay measured).
        let now = if self.shown.session.is_some() {
            self.shown.store.latest()
        } else {
            self.view.time.cursor()
        };
        let actions = self.windows.lessons.ui(
            ui,
            self.shown
                .session_view(&self.options, &self.view.time)
                .preset,
            &self.shown.feedback,
            &self.shown.store,
            now,
        );
        self.actions.extend(actions);
        if let Some(every) = self.options.walk {
            let preset = self
                .shown
                .session_view(&self.options, &self.view.time)
                .preset;
            let walked = self
                .windows
                .lessons
                .walk(every, preset, &self.shown.store, now);
            self.actions.extend(walked);
        }
        self.panes.plots.lesson_window = self.windows.lessons.figures_window(now);
        // `--window journey`: the journey of the move at the cursor, once there is one.
        if self.windows.journey_pending
            && (self.shown.opened.is_some() || self.shown.store.latest() > 2.0)
        {
            self.windows.journey_pending = false;
            let client = match self.step_machine(true) {
                Machine::Client(c) => c,
                Machine::Server => 0,
            };
            self.actions.push(Action::Journey {
                client,
                move_id: None,
                t: self.view.time.cursor(),
                on_server: false,
            });
        }
        egui::CentralPanel::default()
            .frame(egui::Frame::new())
            .show(ui, |ui| {
                self.panes.plots.focus = self.windows.lessons.focus();
                self.panes.controls.question_open = self.windows.lessons.asking();
                let presenter = self.windows.lessons.open && self.windows.lessons.presenter;
                self.panes.plots.only = presenter.then(|| self.windows.lessons.presenter_plots());
                self.panes.plots.from_game_log =
                    self.shown.session.is_none()
                        && self.shown.opened.as_ref().is_some_and(|o| {
                            o.recording.header.mode == crate::gmclog::record::MODE
                        });
                self.panes.plots.server_elsewhere = self
                    .shown
                    .session
                    .as_ref()
                    .is_some_and(|s| s.joined().is_some());
                let plot_view = plots::View::at(
                    &self.view.time,
                    self.view.window_s,
                    (self.shown.store.earliest(), self.shown.store.latest()),
                    self.view.plot_window,
                );
                self.view.plot_window = Some((plot_view.t0, plot_view.t1));
                let mut behavior = layout::PaneBehavior {
                    focus: self.windows.lessons.focus(),
                    controls: &mut self.panes.controls,
                    plots: &mut self.panes.plots,
                    world: &mut self.panes.world,
                    log: &mut self.panes.log,
                    view: self.shown.session_view(&self.options, &self.view.time),
                    plot_view,
                    store: &self.shown.store,
                    cursor: self.view.time.cursor(),
                    actions: &mut self.actions,
                };
                if presenter {
                    self.view.presenter_layout.ui(&mut behavior, ui);
                } else {
                    self.view.layout.ui(&mut behavior, ui);
                }
            });
        // Everything the panes asked for this frame, in one place.
        self.apply_actions(&ctx);
    }
}

impl MovescopeApp {
    fn top_bar(&mut self, ui: &mut egui::Ui) {
        let preset = self.shown_preset();
        let mut running = self.status_jobs.running();
        if let Some((job, _)) = &self.shown.opening {
            let p = job.progress();
            running.push(if p > 0.0 {
                format!("{} ({:.0} %)", job.what, p * 100.0)
            } else {
                job.what.clone()
            });
        }
        let view = top_bar::TopView {
            title: &preset.title,
            description: &preset.description,
            preset_name: &self.options.preset_name,
            reopened: self.options.reopened,
            recording: self.shown.opened.as_ref().map(|o| top_bar::RecordingShown {
                file_name: o
                    .recording
                    .path
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().to_string()),
                describe: o.recording.describe(),
                loading: o.loader.is_some().then(|| self.shown.store.records()),
                damage: o.damage.as_ref().map(|d| d.to_string()),
            }),
            live_now: self.shown.session.as_ref().map(|s| s.clock().now()),
            network: self.shown.session.as_ref().and_then(network_shown),
            paused: self.shown.paused,
            recording_to: self
                .shown
                .recorder
                .as_ref()
                .map(|r| (r.path().display().to_string(), r.lagging())),
            window_s: self.view.window_s,
            light: self.view.light,
            dropped: self
                .shown
                .session
                .as_ref()
                .map_or(0, |s| s.telemetry_dropped()),
            running,
        };
        let actions = top_bar::ui(ui, &view);
        self.actions.extend(actions);
    }

    /// The machine whose frames and moves the step buttons use.
    fn step_machine(&self, moves: bool) -> Machine {
        timeline_bar::step_machine(self.panes.world.viewer, moves)
    }

    /// Keys become actions (applied after the frame with the rest).
    fn keyboard(&mut self, ctx: &egui::Context) {
        // Ctrl+K (Cmd+K): the command palette, wherever the keyboard focus is.
        if ctx.input(|i| i.modifiers.command && i.key_pressed(egui::Key::K)) {
            self.windows.palette.open = !self.windows.palette.open;
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
        if space && self.panes.controls.drive.is_none() {
            if self.shown.session.is_some() {
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

    /// Sends the keyboard's input to the driven client when it changes.
    fn drive_keys(&mut self, ctx: &egui::Context) {
        let Some(client) = self.panes.controls.drive else {
            self.shown.last_drive = None;
            return;
        };
        if ctx.egui_wants_keyboard_input() {
            return;
        }
        let input = ctx.input(|i| {
            let k = |key| i.key_down(key);
            let x = f64::from(i8::from(k(egui::Key::D)) - i8::from(k(egui::Key::A)));
            let y = f64::from(i8::from(k(egui::Key::W)) - i8::from(k(egui::Key::S)));
            use crate::model::binding::InputKey;
            let keys = InputKey::ALL
                .into_iter()
                .filter(|key| match key {
                    InputKey::Space => k(egui::Key::Space),
                    InputKey::Shift => i.modifiers.shift,
                    InputKey::Ctrl => i.modifiers.ctrl,
                    InputKey::C => k(egui::Key::C),
                    InputKey::E => k(egui::Key::E),
                    InputKey::F => k(egui::Key::F),
                    InputKey::Q => k(egui::Key::Q),
                    InputKey::R => k(egui::Key::R),
                })
                .fold(0, |bits, key| bits | key.bit());
            crate::model::input::RawInput {
                dir: glam::DVec2::new(x, y).normalize_or_zero(),
                dash: k(egui::Key::Space),
                keys,
                from_keys: true,
            }
        });
        if self.shown.last_drive != Some(input) {
            self.shown.last_drive = Some(input);
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

impl MovescopeApp {
    /// The live session's machines that do not keep their frame rate (while it runs): the
    /// status line, and every such machine a line.
    fn pacing_complaint(&self) -> Option<(String, String)> {
        let session = self.shown.session.as_ref()?;
        if self.shown.paused {
            return None;
        }
        let t1 = self.shown.store.latest();
        let t0 = t1 - status::PACING_WINDOW_S;
        if t0 < self.shown.store.earliest() + 1.0 {
            return None;
        }
        let all = crate::session::pacing::pacing(&self.shown.store, session.preset(), t0, t1);
        crate::session::pacing::complaint(&all)
            .map(|c| (c, crate::session::pacing::late_list(&all)))
    }
}
