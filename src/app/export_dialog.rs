//! The CSV export dialog: the selected range (or the window shown), the series to write and
//! the file. The points are copied out of the store here (plain copies); formatting and
//! writing them is a job ([`Action::ExportCsv`]).

use std::path::PathBuf;

use eframe::egui;

use super::EXPORTS_DIR;
use super::action::Action;
use crate::session::store::{Metric, Store};
use crate::session::timeline::TimeControl;

pub struct ExportDialog {
    metrics: Vec<(Metric, bool)>,
    path: String,
}

impl Default for ExportDialog {
    fn default() -> Self {
        ExportDialog {
            metrics: Metric::ALL.iter().map(|m| (*m, true)).collect(),
            path: String::new(),
        }
    }
}

impl ExportDialog {
    /// Shows the dialog; returns whether it stays open, and the export asked for.
    pub fn ui(
        &mut self,
        ctx: &egui::Context,
        store: &Store,
        time: &TimeControl,
        window_s: f64,
    ) -> (bool, Vec<Action>) {
        let mut keep = true;
        let mut actions = Vec::new();
        let (t0, t1) = time.range().unwrap_or((
            (time.cursor() - window_s).max(store.earliest()),
            time.cursor(),
        ));
        if self.path.is_empty() {
            self.path = format!("{EXPORTS_DIR}/movescope-{t0:.1}-{t1:.1}.csv");
        }
        super::window(ctx, "Export CSV").show(ctx, |ui| {
            ui.label(format!(
                "{t0:.2}–{t1:.2} s ({}), one row per point: series, machine, t_s, value, unit",
                if time.range().is_some() {
                    "the selected range"
                } else {
                    "the window shown"
                }
            ));
            for (m, on) in &mut self.metrics {
                ui.checkbox(on, m.name()).on_hover_text(m.unit());
            }
            ui.horizontal(|ui| {
                ui.label("file");
                ui.text_edit_singleline(&mut self.path);
            });
            ui.horizontal(|ui| {
                if ui.button("Write").clicked() {
                    let metrics: Vec<Metric> = self
                        .metrics
                        .iter()
                        .filter(|(_, on)| *on)
                        .map(|(m, _)| *m)
                        .collect();
                    actions.push(Action::ExportCsv {
                        path: PathBuf::from(self.path.trim()),
                        points: crate::analysis::report::export_points(
                            store,
                            &metrics,
                            &[],
                            t0,
                            t1,
                        ),
                    });
                    keep = false;
                }
                if ui.button("Cancel").clicked() {
                    keep = false;
                }
            });
        });
        (keep, actions)
    }
}
