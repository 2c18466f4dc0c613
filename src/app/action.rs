//! Actions: what a pane or window asks for, as data. Panes read a [`SessionView`] and return
//! actions; the app queues them during the frame and applies them once after it, in one place
//! ([`super::MovescopeApp::apply_actions`]). No pane changes the session itself, so looking
//! at a pane (opening, closing, hovering, scrolling) cannot change anything: only an action
//! can, and an action is only made by a user's edit.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::net::live::Command;
use crate::session::preset::Preset;
use crate::session::timeline::TimeCommand;

/// Which editor an action came from: its outcome is shown there.
pub type Origin = &'static str;

#[derive(Clone, Debug)]
pub enum Action {
    /// A command to the running session; its outcome is shown at `origin`.
    Session {
        origin: Origin,
        command: Command,
    },
    /// Bring the running session to this preset's settings (what may change live changes;
    /// settings only a restart applies restart the session with it).
    ChangeTo {
        origin: Origin,
        preset: Box<Preset>,
    },
    /// Stop the session and start this preset live under `name`.
    Start {
        preset: Box<Preset>,
        name: String,
    },
    /// Load a preset (a file, or a shipped preset by name) and start it live.
    StartNamed(String),
    /// Save the session's preset (every live change included) to this file.
    SavePreset(PathBuf),
    Time(TimeCommand),
    /// The journey of `client`'s move (`move_id`, or the one it closed nearest `t`).
    /// Pause (`true`) or run the live session (a lesson holds it until its question is
    /// answered).
    Hold(bool),
    /// A lesson starts: keep the view as it is (unless a lesson already did) and show the
    /// view lessons are written for ([`super::windows::LessonView::known`]).
    LessonView,
    /// Open the lessons panel on this lesson and start it (from a cause the doctor names).
    StartLesson(String),
    /// Close the status line's error or warning.
    DismissStatus,
    Journey {
        client: u16,
        move_id: Option<u32>,
        t: f64,
        /// `t` is when the server executed the move, not when the client closed it.
        on_server: bool,
    },
    /// Move the cursor to where client `client` closed move `move_id`, and open its journey.
    GoToMove {
        client: u16,
        move_id: u32,
    },
    OpenRecording(PathBuf),
    /// Open several paths at once: a game's logs (files, or a folder of them), imported
    /// together.
    OpenPaths(Vec<PathBuf>),
    /// Open or close a window (or switch the theme).
    Toggle(Toggle),
    /// Start the shown recording's preset live.
    LiveFromRecording,
    TogglePause,
    /// Record the live session to a new file in `recordings/`.
    StartRecording,
    StopRecording,
    /// Seconds of session the plots show.
    WindowSeconds(f64),
    /// Save a picture of the window in the working directory.
    Screenshot,
    BugReport,
    ResetLayout,
    /// Run the doctor on what is shown (the recording, or the live session's recent records).
    Examine,
    /// Remove the what-if run drawn over the plots.
    ClearOverlay,
    /// Show the plot with this title (a lesson step points at it).
    ShowPlot(String),
    /// The CSV export dialog.
    OpenExport,
    /// Write these points as CSV to `path` (a job).
    ExportCsv {
        path: PathBuf,
        points: Vec<crate::analysis::report::SeriesPoints>,
    },
}

/// Windows the top bar and the controls open and close.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Toggle {
    Lessons,
    Open,
    Doctor,
    WhatIf,
    Help,
    Bindings,
    Gmc,
    /// The interpolation buffer view.
    Buffer,
    /// Track one value.
    Track,
    /// "Your component": the lint's binding table and findings.
    Component,
    /// Light or dark.
    Theme,
}

/// A live session's trace switch (`on`: as the session has it; `None`: a recording, no
/// switch): the command that flips it when the checkbox is clicked, from `origin`.
pub fn trace_switch(
    ui: &mut eframe::egui::Ui,
    on: Option<bool>,
    (label, explain): (&str, &str),
    command: fn(bool) -> Command,
    origin: Origin,
) -> Option<Action> {
    let mut flipped = on?;
    ui.checkbox(&mut flipped, label)
        .on_hover_text(explain)
        .changed()
        .then(|| Action::Session {
            origin,
            command: command(flipped),
        })
}

/// The plot of a window that follows the cursor (the buffer trace, a tracked value): its
/// legend at the top left, the time axis in seconds, set by the window and never dragged,
/// zoomed or scrolled.
/// (No legend inside: the data would sit under it; [`legend_row`] draws one above.)
pub fn cursor_plot(id: &str) -> egui_plot::Plot<'static> {
    egui_plot::Plot::new(id)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .allow_boxed_zoom(false)
        .x_axis_formatter(|m, _| format!("{:.1} s", m.value))
}

/// A plot's legend as a row above it, outside the data: (colour, name, dashed) per entry.
pub fn legend_row(ui: &mut eframe::egui::Ui, entries: &[(eframe::egui::Color32, &str, bool)]) {
    ui.horizontal_wrapped(|ui| {
        for (c, name, dashed) in entries {
            let _ = super::plots::legend_entry(ui, *c, name, *dashed);
        }
    });
}

/// The newest outcome of each editor's last action ("applied now", "refused: …"), shown next
/// to that editor.
#[derive(Default, Debug)]
pub struct Feedback {
    by_origin: BTreeMap<Origin, (bool, String)>,
}

impl Feedback {
    pub fn set(&mut self, origin: Origin, ok: bool, text: String) {
        self.by_origin.insert(origin, (ok, text));
    }

    pub fn get(&self, origin: Origin) -> Option<&(bool, String)> {
        self.by_origin.get(origin)
    }

    pub fn clear(&mut self) {
        self.by_origin.clear();
    }

    /// Shows `origin`'s outcome, if any: weak when it went through, red when refused.
    pub fn show(&self, ui: &mut eframe::egui::Ui, origin: Origin) {
        if let Some((ok, text)) = self.get(origin) {
            if *ok {
                ui.weak(format!("last change: {text}"));
            } else {
                ui.colored_label(eframe::egui::Color32::from_rgb(220, 70, 70), text);
            }
        }
    }
}

/// What the settings panes read: the session's own settings (live), or the settings a
/// recording was made with. There is no other copy of the preset in the app.
pub struct SessionView<'a> {
    /// The effective settings: the live session's preset (every change applied), or the
    /// recording's header.
    pub preset: &'a Preset,
    /// A live session runs: edits are possible.
    pub live: bool,
    /// The recording shown is a game's imported log: it records no settings.
    pub imported: bool,
    /// The clients of the live session (or of the recording's preset).
    pub client_ids: Vec<u16>,
    /// Session time now (live) or at the cursor.
    pub now: f64,
    pub feedback: &'a Feedback,
}
