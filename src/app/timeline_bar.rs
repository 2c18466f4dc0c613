//! The timeline bar: the cursor, stepping by frame, move and mark, play and speed, follow
//! live, a range selection, and the bar itself with the session's marks (corrections,
//! warnings, errors, changes). Dragging seeks; Shift+drag selects a range.

use eframe::egui;
use egui::{Color32, RichText};

use super::action::Action;
use crate::model::telemetry::Machine;
use crate::session::store::{MarkKind, Store};
use crate::session::timeline::{SPEEDS, TimeCommand, TimeControl};

/// The machine whose frames and moves the step buttons use: the viewed one, or client 0 for
/// moves when the server is viewed.
pub fn step_machine(viewer: Machine, moves: bool) -> Machine {
    match (viewer, moves) {
        (Machine::Server, true) => Machine::Client(0),
        (m, _) => m,
    }
}

#[derive(Default)]
pub struct TimelineBar {
    /// Timeline drag with Shift: where the range selection started.
    range_anchor: Option<f64>,
}

impl TimelineBar {
    /// The bar over `store` at `time`'s cursor; `live`: a session is running; `viewer`: the
    /// machine the world view shows (its frames and moves are the steps).
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        store: &Store,
        time: &TimeControl,
        live: bool,
        viewer: Machine,
    ) -> Vec<Action> {
        let mut actions = Vec::new();
        let mut cmds: Vec<TimeCommand> = Vec::new();
        let mut journey: Option<u16> = None;
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new("Timeline").strong()).on_hover_text(
                "Every view shows the session at the cursor. Drag on the bar to seek, Shift+drag to select a range. Red: corrections, orange: corrections with replay, yellow: warnings, magenta: errors, blue: the session was changed (a setting, bindings, clients).",
            );
            ui.monospace(format!("{:9.3} s", time.cursor()));
            step_buttons(ui, viewer, false, &mut cmds);
            // Following a live session is playing (at the session's pace): the button pauses
            // there, it never restarts from the session's start.
            let live_follow = live && time.is_following();
            let (play, hover) = play_label(live, time.is_playing() || live_follow);
            let button = egui::Button::new(play).min_size(egui::vec2(play_button_width(ui), 0.0));
            if ui.add(button).on_hover_text(hover).clicked() {
                cmds.push(if live_follow { TimeCommand::Pause } else { TimeCommand::TogglePlay });
            }
            step_buttons(ui, viewer, true, &mut cmds);
            journey = journey_button(ui, viewer);
            speed_and_follow(ui, time, live, &mut cmds);
            if let Some((a, b)) = time.range() {
                ui.label(format!("range {a:.2}–{b:.2} s"));
                if ui.small_button("clear").clicked() {
                    cmds.push(TimeCommand::ClearRange);
                }
            }
            if ui
                .button(if narrow(ui) { "CSV…" } else { "Export CSV…" })
                .on_hover_text("Export the selected range (or the shown window) of chosen series.")
                .clicked()
            {
                actions.push(Action::OpenExport);
            }
        });
        self.bar(ui, store, time, &mut cmds);
        actions.extend(cmds.into_iter().map(Action::Time));
        if let Some(client) = journey {
            actions.push(Action::Journey {
                client,
                move_id: None,
                t: time.cursor(),
                on_server: false,
            });
        }
        actions
    }

    /// The bar itself: the session's span with its marks, the range and the cursor; a click
    /// or drag seeks, Shift+drag selects a range.
    fn bar(
        &mut self,
        ui: &mut egui::Ui,
        store: &Store,
        time: &TimeControl,
        cmds: &mut Vec<TimeCommand>,
    ) {
        let (lo, hi) = (store.earliest(), store.latest().max(store.earliest()));
        let width = ui.available_width();
        let (rect, resp) =
            ui.allocate_exact_size(egui::vec2(width, 26.0), egui::Sense::click_and_drag());
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 3.0, ui.visuals().extreme_bg_color);
        let span = (hi - lo).max(1e-6);
        let x_of = |t: f64| rect.left() + ((t - lo) / span) as f32 * rect.width();
        let t_of = |x: f32| lo + f64::from((x - rect.left()) / rect.width()) * span;
        if let Some((a, b)) = time.range() {
            painter.rect_filled(
                egui::Rect::from_x_y_ranges(x_of(a)..=x_of(b), rect.y_range()),
                0.0,
                Color32::from_rgba_unmultiplied(90, 140, 230, 60),
            );
        }
        paint_marks(&painter, rect, store, &x_of);
        let cx = x_of(time.cursor());
        painter.line_segment(
            [egui::pos2(cx, rect.top()), egui::pos2(cx, rect.bottom())],
            egui::Stroke::new(2.0, ui.visuals().strong_text_color()),
        );
        let weak = ui.visuals().weak_text_color();
        let corner = |at: egui::Pos2, align, text: String| {
            painter.text(at, align, text, egui::FontId::proportional(10.0), weak);
        };
        corner(
            rect.left_bottom() + egui::vec2(3.0, -2.0),
            egui::Align2::LEFT_BOTTOM,
            format!("{lo:.1} s"),
        );
        corner(
            rect.right_bottom() + egui::vec2(-3.0, -2.0),
            egui::Align2::RIGHT_BOTTOM,
            format!("{hi:.1} s"),
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
    }
}

/// A narrow window (presenter mode at 1280×800): short labels, so the bar stays one line (the
/// keys and hover texts say the rest).
fn narrow(ui: &egui::Ui) -> bool {
    ui.ctx().content_rect().width() < super::top_bar::NARROW_BELOW
}

/// The steps one way: by mark, move and frame (backward), or frame, move and mark (forward).
fn step_buttons(ui: &mut egui::Ui, viewer: Machine, forward: bool, cmds: &mut Vec<TimeCommand>) {
    let mv = step_machine(viewer, true);
    let fr = step_machine(viewer, false);
    let all_marks = || MarkKind::ALL.to_vec();
    let mark = TimeCommand::JumpMark {
        kinds: all_marks(),
        forward,
    };
    let step_move = TimeCommand::StepMove {
        machine: mv,
        forward,
    };
    let frame = TimeCommand::StepFrame {
        machine: fr,
        forward,
    };
    let buttons = if forward {
        [
            ("frame >", format!("Next frame of {fr} (Right)"), frame),
            (
                "move >",
                format!("Next move closed by {mv} (Shift+Right)"),
                step_move,
            ),
            (
                "mark >>",
                "Next correction or warning (PageDown)".to_string(),
                mark,
            ),
        ]
    } else {
        [
            (
                "<< mark",
                "Previous correction or warning (PageUp)".to_string(),
                mark,
            ),
            (
                "< move",
                format!("Previous move closed by {mv} (Shift+Left)"),
                step_move,
            ),
            ("< frame", format!("Previous frame of {fr} (Left)"), frame),
        ]
    };
    for (label, hover, cmd) in buttons {
        if ui.button(label).on_hover_text(hover).clicked() {
            cmds.push(cmd);
        }
    }
}

/// The journey of the viewed client's move nearest the cursor (client 0's from the server).
fn journey_button(ui: &mut egui::Ui, viewer: Machine) -> Option<u16> {
    let mv = step_machine(viewer, true);
    let clicked = ui
        .button(if narrow(ui) { "Journey" } else { "Move journey" })
        .on_hover_text(format!("The journey of the move {mv} closed nearest the cursor: frames, sending, the link, the server, the reply, corrections and replays."))
        .clicked();
    match mv {
        Machine::Client(c) if clicked => Some(c),
        _ => None,
    }
}

/// The play speed and following the newest moment.
fn speed_and_follow(
    ui: &mut egui::Ui,
    time: &TimeControl,
    live: bool,
    cmds: &mut Vec<TimeCommand>,
) {
    let narrow = narrow(ui);
    let mut speed = time.speed();
    egui::ComboBox::from_label("speed")
        .width(if narrow {
            44.0
        } else {
            ui.spacing().combo_width
        })
        .selected_text(format!("{speed}×"))
        .show_ui(ui, |ui| {
            for s in SPEEDS {
                ui.selectable_value(&mut speed, s, format!("{s}×"));
            }
        });
    if speed != time.speed() {
        cmds.push(TimeCommand::SetSpeed(speed));
    }
    let follow_label = match (live, narrow) {
        (true, false) => "Follow live (End)",
        (false, false) => "Go to end (End)",
        (true, true) => "Live",
        (false, true) => "End",
    };
    if ui
        .selectable_label(time.is_following(), follow_label)
        .on_hover_text("Keep the cursor on the newest data.")
        .clicked()
    {
        cmds.push(TimeCommand::FollowLive);
    }
}

/// The session's marks on the bar, one line per pixel column and kind: corrections (red, top
/// half), corrections with replay (orange), warnings (yellow, bottom half), errors (magenta),
/// changes (blue, full height).
fn paint_marks(
    painter: &egui::Painter,
    rect: egui::Rect,
    store: &Store,
    x_of: &dyn Fn(f64) -> f32,
) {
    let cols = rect.width().max(1.0) as usize;
    let mut seen = vec![[false; MarkKind::ALL.len()]; cols + 1];
    for e in store
        .log()
        .iter()
        .filter(|e| MarkKind::ALL.contains(&e.kind))
    {
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
}

/// The cursor's play button: "Play" from the cursor; while it moves, "Pause" in a recording
/// and "Hold view" in a live session — there the top bar's "Pause" stops the session itself,
/// and this one only holds the views while the session runs on.
fn play_label(live: bool, moving: bool) -> (&'static str, &'static str) {
    match (live, moving) {
        (_, false) => (
            "Play",
            "Play the timeline from the cursor (Space when viewing a recording).",
        ),
        (false, true) => ("Pause", "Stop playing at the cursor (Space)."),
        (true, true) => (
            "Hold view",
            "Hold every view at this moment while the session runs on (the top bar's Pause stops the session itself); Follow live returns to the newest moment.",
        ),
    }
}

/// The width of the widest label of the play button, so the buttons after it keep their
/// place when the label changes.
fn play_button_width(ui: &egui::Ui) -> f32 {
    let font = egui::TextStyle::Button.resolve(ui.style());
    let widest = ["Play", "Pause", "Hold view"]
        .iter()
        .map(|t| {
            ui.painter()
                .layout_no_wrap(t.to_string(), font.clone(), egui::Color32::WHITE)
                .size()
                .x
        })
        .fold(0.0, f32::max);
    widest + 2.0 * ui.spacing().button_padding.x
}
