//! The event log: corrections (naming every deviating bound value), warnings, errors and
//! changes made to the session, up to the cursor. Clicking a line moves the cursor there.

use eframe::egui;
use egui::{Color32, RichText};

use super::action::Action;
use crate::model::telemetry::Machine;
use crate::store::{MarkKind, Store};
use crate::timeline::TimeCommand;

#[derive(Default)]
pub struct EventLog {}

impl EventLog {
    pub fn ui(&mut self, ui: &mut egui::Ui, store: &Store, cursor: f64) -> Vec<Action> {
        ui.weak("What is listed (hover)").on_hover_text(
            "Corrections (with every bound value that deviated: predicted vs authoritative), warnings, errors and changes made to the running session (blue: a setting, the bindings, clients; from what to what) up to the cursor. Click a line to move the cursor there.",
        );
        let upto = store.log_between(f64::NEG_INFINITY, cursor);
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
        let mut actions = Vec::new();
        if let Some((client, m, t)) = trace {
            actions.push(Action::Journey {
                client,
                move_id: Some(m),
                t,
            });
        }
        if let Some(t) = seek {
            actions.push(Action::Time(TimeCommand::Seek(t)));
        }
        actions
    }
}
