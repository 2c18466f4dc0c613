//! Applying the actions the panes, windows and keys asked for during a frame, in this one
//! place after it; commands to the live session go through here.

use std::path::PathBuf;

use eframe::egui;

use super::action::{self, Action};
use super::{MovescopeApp, RECORDINGS_DIR, export_dialog, layout, plots, write_file};
use crate::net::live::{Command, Outcome};

impl MovescopeApp {
    /// Sends a command to the live session; its outcome is shown at `origin` and kept in
    /// [`Self::commands_sent`].
    pub(super) fn command(&mut self, origin: action::Origin, cmd: Command) {
        let Some(s) = self.shown.session.as_mut() else {
            self.shown
                .feedback
                .set(origin, false, "refused: no live session".into());
            return;
        };
        let described = format!("{cmd:?}");
        let text: String = described.chars().take(200).collect();
        let changes_figures = !matches!(
            cmd,
            Command::Pause
                | Command::Resume
                | Command::HookTrace(_)
                | Command::ValueTrace(_)
                | Command::BufferTrace(_)
        );
        match s.command(cmd) {
            Ok(outcome) => {
                if changes_figures {
                    self.learner_changed();
                }
                self.shown.commands_sent.push(text);
                self.shown.feedback.set(origin, true, outcome.describe());
            }
            Err(e) => {
                self.shown.commands_sent.push(format!("{text} (refused)"));
                self.shown.feedback.set(origin, false, e.to_string());
                self.status.set(format!("error: {e}"));
            }
        }
    }

    /// Applies the actions queued during the frame, in order, in this one place.
    pub(super) fn apply_actions(&mut self, ctx: &egui::Context) {
        let actions = std::mem::take(&mut self.actions);
        for a in actions {
            match a {
                Action::Session { origin, command } => self.command(origin, command),
                Action::ChangeTo { origin, preset } => {
                    if origin != super::lessons::ORIGIN {
                        self.learner_changed();
                    }
                    let Some(s) = self.shown.session.as_mut() else {
                        let name = self.options.preset_name.clone();
                        self.start_preset(*preset, name);
                        continue;
                    };
                    match s.change_to(&preset) {
                        Ok(Outcome::NeedsRestart(keys)) => {
                            self.shown
                                .commands_sent
                                .push(format!("restart for {}", keys.join(", ")));
                            let name = self.options.preset_name.clone();
                            self.shown.keep_before = Some(keys.join(", "));
                            self.start_preset(*preset, name);
                            self.shown.feedback.set(
                                origin,
                                true,
                                format!("restarted the session ({})", keys.join(", ")),
                            );
                        }
                        Ok(outcome) => {
                            self.shown.commands_sent.push("change to a preset".into());
                            self.shown.feedback.set(origin, true, outcome.describe());
                        }
                        Err(e) => {
                            self.shown.feedback.set(origin, false, e.to_string());
                            self.status.set(format!("error: {e}"));
                        }
                    }
                }
                Action::Start { preset, name } => {
                    // A session other than the running lesson's ends the lesson: its question
                    // and pointer would speak of a session no longer shown.
                    self.lesson_session_replaced(&name);
                    self.start_preset(*preset, name)
                }
                Action::StartNamed(name) => {
                    self.lesson_session_replaced(&name);
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
                Action::GoToMove { client, move_id } => self.go_to_move(client, move_id),
                Action::OpenRecording(path) => self.open_recording(&path, None),
                Action::OpenPaths(paths) => self.open_paths(paths, None),
                Action::Toggle(t) => self.toggle(t),
                Action::DismissStatus => self.status.dismiss_problem(),
                Action::LessonView => {
                    if self.panes.before_lesson.is_none() {
                        self.panes.before_lesson = Some(self.panes.view_now());
                    }
                    self.panes.set_view(super::windows::LessonView::known());
                }
                Action::StartLesson(name) => {
                    let more = self.windows.lessons.start_named(&name);
                    self.actions.extend(more);
                }
                Action::Hold(pause) => {
                    if self.shown.paused != pause && self.shown.session.is_some() {
                        self.toggle_pause();
                    }
                }
                Action::LiveFromRecording => {
                    if let Some(o) = &self.shown.opened {
                        let preset = o.recording.header.preset.clone();
                        let name = o.recording.header.preset_name.clone();
                        self.start_preset(preset, name);
                    }
                }
                Action::TogglePause => self.toggle_pause(),
                Action::StartRecording => {
                    let stamp = crate::support::stamp::now_utc();
                    self.start_recording(
                        PathBuf::from(RECORDINGS_DIR).join(format!("session-{stamp}.msrec")),
                    );
                }
                Action::StopRecording => self.stop_recording(),
                Action::WindowSeconds(s) => self.view.window_s = s.clamp(5.0, 120.0),
                Action::Screenshot => {
                    let name = format!("movescope-{:.0}.png", self.view.time.cursor() * 1000.0);
                    self.request_screenshot(ctx, PathBuf::from(name));
                }
                Action::BugReport => self.bug_report(ctx),
                Action::ResetLayout => self.view.layout = layout::default_layout(),
                Action::Examine => {
                    self.windows.doctor.open = true;
                    self.examine();
                }
                Action::ClearOverlay => {
                    self.panes.plots.overlay = None;
                    self.panes.plots.clear_cache();
                }
                Action::ShowPlot(title) => {
                    if let Some(i) = plots::PLOTS.iter().position(|p| p.title == title) {
                        self.panes.plots.shown[i] = true;
                        // Brought into view (it may be below the fold).
                        self.panes.plots.scroll_to = Some(plots::PLOTS[i].title);
                    }
                }
                Action::OpenExport => {
                    self.windows.export = Some(export_dialog::ExportDialog::default());
                }
                Action::ExportCsv { path, points } => {
                    self.status_job(format!("writing {}", path.display()), move |_| {
                        let mut text = Vec::new();
                        let n = crate::analysis::report::write_points_csv(&points, &mut text)
                            .map_err(|e| format!("export failed: {e}"))?;
                        write_file(&path, &text)
                            .map(|()| format!("wrote {n} rows to {}", path.display()))
                            .map_err(|e| format!("export failed: {e}"))
                    });
                }
            }
        }
    }

    /// Writes the session's preset (every live change included) on a job thread.
    /// A setting changed by the learner, not by a lesson's "Do it": a running lesson's texts
    /// keep the figures from before it.
    fn learner_changed(&mut self) {
        // (The session's newest moment, as the lesson's texts measure it.)
        let now = self.shown.store.latest();
        self.windows.lessons.learner_changed(&self.shown.store, now);
    }

    /// Another session replaces the shown one: a lesson it is not part of ends, and the view
    /// the learner had before the lesson comes back.
    fn lesson_session_replaced(&mut self, name: &str) {
        self.windows.lessons.session_replaced(name);
        if self.windows.lessons.current.is_none()
            && let Some(before) = self.panes.before_lesson.take()
        {
            self.panes.set_view(before);
        }
    }

    fn save_preset(&mut self, path: PathBuf) {
        let text = format!(
            "// Saved by movescope from a live session.\n// Schema: docs/presets.md.\n{}\n",
            self.shown_preset().to_ron()
        );
        let shown = path.display().to_string();
        self.status_job(format!("saving {shown}"), move |_| {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(format!("preset saved to {}", path.display()))
        });
        self.panes.controls.refresh_presets();
    }

    fn toggle_pause(&mut self) {
        self.shown.paused = !self.shown.paused;
        self.command(
            "pause",
            if self.shown.paused {
                Command::Pause
            } else {
                Command::Resume
            },
        );
        if self.shown.paused {
            // A paused session loses nothing if the app is killed now.
            if let Some(rec) = self.shown.recorder.as_mut() {
                let _ = rec.flush();
            }
        }
    }
}
