//! The top bar: what runs (the preset, live or a recording), pause, record, open, the seconds
//! shown, screenshot, bug report, the doctor, what-if, theme, layout, help, and work in
//! progress (with a spinner). It reads a [`TopView`] and returns actions. The status line is
//! its own bar at the bottom of the window ([`super::status::ui`]).

use eframe::egui;
use egui::{Color32, RichText};

use super::action::{Action, Toggle};
use super::{RECORDINGS_DIR, REPORTS_DIR};
use crate::analysis::report::{REPORT_AFTER, REPORT_BEFORE};

/// A recording shown, as the top bar names it.
pub struct RecordingShown {
    pub file_name: String,
    pub describe: String,
    /// Records loaded so far, while loading.
    pub loading: Option<u64>,
    pub damage: Option<String>,
}

/// Everything the top bar shows.
pub struct TopView<'a> {
    pub title: &'a str,
    pub description: &'a str,
    pub preset_name: &'a str,
    /// The preset was reopened because it was used last.
    pub reopened: bool,
    pub recording: Option<RecordingShown>,
    /// Live: session time now.
    pub live_now: Option<f64>,
    /// A session across machines: what to show (hosting: address, code, participants; a
    /// participant: its client and host) and the hover text.
    pub network: Option<(String, String)>,
    pub paused: bool,
    /// Live and recording: the file, and records waiting for the disk.
    pub recording_to: Option<(String, usize)>,
    pub window_s: f64,
    pub light: bool,
    pub dropped: u64,
    /// Work in progress ("writing exports/a.csv").
    pub running: Vec<String>,
}

/// One row at 1280×800 and up: the buttons first, in fixed places (the rarer ones in the View
/// menu), then what runs, cut to the width left (hover for all of it).
/// The session's title as the room left allows: whole, or a lesson's short name (the part
/// before its colon, "Basics 4") rather than a title cut mid-word; cut only when even that
/// does not fit.
fn fitted_title<'a>(ui: &egui::Ui, title: &'a str) -> &'a str {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let wide = |t: &str| {
        ui.painter()
            .layout_no_wrap(t.to_string(), font.clone(), Color32::WHITE)
            .size()
            .x
    };
    match title.split_once(':') {
        Some((short, _)) if wide(title) > ui.available_width() => short,
        _ => title,
    }
}

/// Below this window width (points) the bars use their short labels.
pub(super) const NARROW_BELOW: f32 = 1100.0;

pub fn ui(ui: &mut egui::Ui, v: &TopView) -> Vec<Action> {
    let mut actions = Vec::new();
    ui.horizontal(|ui| {
        ui.heading("movescope");
        if ui
            .button(RichText::new("Lessons").strong())
            .on_hover_text("Workshop lessons: one scenario per pitfall and network lesson, walked through step by step.")
            .clicked()
        {
            actions.push(Action::Toggle(Toggle::Lessons));
        }
        ui.separator();
        session_buttons(ui, v, &mut actions);
        tool_buttons(ui, &mut actions);
        view_menu(ui, v, &mut actions);
        if ui.button("Help").clicked() {
            actions.push(Action::Toggle(Toggle::Help));
        }
        ui.separator();
        if v.reopened {
            reopened_note(ui, v, &mut actions);
        }
        what_runs(ui, v);
        warnings(ui, v);
        // The status first (short; the session time must stay readable, in presenter mode's
        // larger text too), then what runs: its title changes length, so it comes last and is
        // cut to the width left (hover for everything).
        ui.add(egui::Label::new(RichText::new(fitted_title(ui, v.title)).strong()).truncate())
            .on_hover_text(format!("{}\n\nTitle: {}\nPreset: {}", v.description, v.title, v.preset_name));
    });
    actions
}

/// The session's own buttons, in fixed widths so the buttons after them stay in place whether
/// a live session or a recording is shown, paused or not, recording or not: a recording's
/// "Live session"; a live session's pause and record.
fn session_buttons(ui: &mut egui::Ui, v: &TopView, actions: &mut Vec<Action>) {
    let h = ui.spacing().interact_size.y;
    // A narrow window (presenter mode's larger text at 1280×800 is 1024 points wide):
    // shorter labels, so the session's title keeps its room.
    let narrow = ui.ctx().content_rect().width() < NARROW_BELOW;
    let (pause_w, record_w) = if narrow { (70.0, 84.0) } else { (118.0, 118.0) };
    if v.recording.is_some() {
        let w = pause_w + record_w + ui.spacing().item_spacing.x;
        if ui
            .add_sized([w, h], egui::Button::new("Live session"))
            .on_hover_text("Start the recording's preset live.")
            .clicked()
        {
            actions.push(Action::LiveFromRecording);
        }
        return;
    }
    if v.live_now.is_none() {
        return;
    }
    let label = match (v.paused, narrow) {
        (true, false) => "Resume (Space)",
        (false, false) => "Pause (Space)",
        (true, true) => "Resume",
        (false, true) => "Pause",
    };
    if ui
        .add_sized([pause_w, h], egui::Button::new(label))
        .on_hover_text("Pauses the simulation threads (the session clock stops). Key: Space.")
        .clicked()
    {
        actions.push(Action::TogglePause);
    }
    record_button(ui, v, [record_w, h], actions);
}

/// Record, or stop the recording under way.
fn record_button(ui: &mut egui::Ui, v: &TopView, size: [f32; 2], actions: &mut Vec<Action>) {
    let narrow = size[0] < 100.0;
    if let Some((path, _)) = &v.recording_to {
        let stop = RichText::new(if narrow {
            "Stop rec."
        } else {
            "Stop recording"
        })
        .color(Color32::RED);
        if ui
            .add_sized(size, egui::Button::new(stop))
            .on_hover_text(format!("Recording to {path}"))
            .clicked()
        {
            actions.push(Action::StopRecording);
        }
    } else if ui
        .add_sized(size, egui::Button::new("Record"))
        .on_hover_text(format!(
            "Record the session to {RECORDINGS_DIR}/ (written every second)."
        ))
        .clicked()
    {
        actions.push(Action::StartRecording);
    }
}

/// Open…, Bug report, Doctor, What if….
fn tool_buttons(ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    if ui
        .button("Open…")
        .on_hover_text("Open a recording (or drop a .msrec file on the window).")
        .clicked()
    {
        actions.push(Action::Toggle(Toggle::Open));
    }
    ui.separator();
    if ui
        .button("Bug report")
        .on_hover_text(format!(
            "Writes {REPORTS_DIR}/report-…/: a picture of the window, the session from {REPORT_BEFORE} s before to {REPORT_AFTER} s after the cursor as a recording that opens at the cursor, the preset, and summary.md."
        ))
        .clicked()
    {
        actions.push(Action::BugReport);
    }
    let doctor = ui.button("Doctor").on_hover_text(
        "The desync doctor: every correction explained, causes ranked, where values parted.",
    );
    super::lessons::pointers::mark(ui, "top.doctor", &doctor);
    if doctor.clicked() {
        actions.push(Action::Toggle(Toggle::Doctor));
    }
    if ui
        .button("What if…")
        .on_hover_text("Re-run the opened recording with a change and compare, plots overlaid.")
        .clicked()
    {
        actions.push(Action::Toggle(Toggle::WhatIf));
    }
}

/// The View menu: seconds shown, screenshot, the rarer windows, theme, layout.
fn view_menu(ui: &mut egui::Ui, v: &TopView, actions: &mut Vec<Action>) {
    let view_menu = ui.menu_button("View", |ui| {
        let mut window_s = v.window_s;
        if ui
            .add(egui::Slider::new(&mut window_s, 5.0..=120.0).text("s shown"))
            .on_hover_text("Seconds of the session the plots show.")
            .changed()
        {
            actions.push(Action::WindowSeconds(window_s));
        }
        if ui
            .button("Save screenshot")
            .on_hover_text("Saves a PNG of the window in the working directory.")
            .clicked()
        {
            actions.push(Action::Screenshot);
            ui.close();
        }
        view_windows(ui, actions);
        let theme = if v.light { "Dark theme" } else { "Light theme" };
        if ui.button(theme).clicked() {
            actions.push(Action::Toggle(Toggle::Theme));
            ui.close();
        }
        if ui
            .button("Reset layout")
            .on_hover_text("Panes back to where they start (drag a pane's tab to move it; drag a border to resize).")
            .clicked()
        {
            actions.push(Action::ResetLayout);
            ui.close();
        }
    });
    // A lesson pointing at one of its items outlines the menu too.
    super::lessons::pointers::mark(ui, "view.", &view_menu.response);
}

/// The View menu's windows: interpolation buffer, your component, track a value.
fn view_windows(ui: &mut egui::Ui, actions: &mut Vec<Action>) {
    let buffer = ui
        .button("Interpolation buffer")
        .on_hover_text("For one proxy: the states it received, how old the newest is, and the time it is shown at — interpolating, extrapolating, re-syncing.");
    super::lessons::pointers::mark(ui, "view.buffer", &buffer);
    if buffer.clicked() {
        actions.push(Action::Toggle(Toggle::Buffer));
        ui.close();
    }
    if ui
        .button("Your component")
        .on_hover_text("Check your GMC component's C++: its binding table with bits and bandwidth, and each prediction rule it breaks, with the lesson that shows it.")
        .clicked()
    {
        actions.push(Action::Toggle(Toggle::Component));
        ui.close();
    }
    let track = ui
        .button("Track a value")
        .on_hover_text("One pawn's member over time: what its client predicted, what the server computed, replays, what the others display; corrections marked.");
    super::lessons::pointers::mark(ui, "view.track", &track);
    if track.clicked() {
        actions.push(Action::Toggle(Toggle::Track));
        ui.close();
    }
}

/// The preset reopened from last time, said, with the default one click away.
fn reopened_note(ui: &mut egui::Ui, v: &TopView, actions: &mut Vec<Action>) {
    ui.colored_label(Color32::from_rgb(230, 160, 60), "reopened from last time")
        .on_hover_text(format!(
            "{} was the preset used last, so it opened again. The default preset is one click away.",
            v.preset_name
        ));
    if ui
        .button("Default preset")
        .on_hover_text("Start the shipped default preset live.")
        .clicked()
    {
        actions.push(Action::StartNamed("default".into()));
    }
}

/// What runs: the recording (loading, damaged) or the live session (its network, its time).
fn what_runs(ui: &mut egui::Ui, v: &TopView) {
    if let Some(r) = &v.recording {
        ui.add(egui::Label::new(format!("recording {}", r.file_name)).truncate())
            .on_hover_text(&r.describe);
        if let Some(n) = r.loading {
            ui.spinner();
            ui.label(format!("{n} records loaded"));
        }
        if let Some(d) = &r.damage {
            ui.colored_label(Color32::from_rgb(230, 140, 40), "damaged")
                .on_hover_text(d);
        }
    } else if let Some(now) = v.live_now {
        if let Some((shown, hover)) = &v.network {
            // Blue as the log's session changes: light on dark, dark on light.
            let blue = if v.light {
                Color32::from_rgb(20, 80, 180)
            } else {
                Color32::from_rgb(120, 170, 240)
            };
            ui.add(egui::Label::new(RichText::new(shown).color(blue)).truncate())
                .on_hover_text(hover);
        }
        ui.label(format!("live, {now:.1} s"))
            .on_hover_text("A live session: session time now.");
    }
}

/// What is going wrong or still running: the disk lagging, records dropped, work in progress.
fn warnings(ui: &mut egui::Ui, v: &TopView) {
    if let Some((_, lag)) = &v.recording_to
        && *lag > 0
    {
        ui.colored_label(
            super::palette_warn(!v.light),
            format!("disk lags: {lag} records waiting"),
        );
    }
    if v.dropped > 0 {
        ui.colored_label(super::palette_warn(!v.light), format!("{} records dropped", v.dropped))
            .on_hover_text("The window fell behind the session's telemetry (this computer is too busy): the oldest waiting records were dropped, so the plots, the log and a recording made now have gaps there (a recording's footer counts them). Pause, close other programs or run fewer clients; `movescope run` in virtual time never drops.");
    }
    for what in &v.running {
        ui.spinner();
        ui.add(egui::Label::new(what).truncate());
    }
}
