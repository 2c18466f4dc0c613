//! The CSV export dialog: the selected range (or the window shown), the series to write and
//! the file. The range is the one shown when the dialog opened: its heading, the file's name
//! and the points written agree, however far a live session runs meanwhile. The points are copied out of the store here (plain copies); formatting and
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
    /// The range exported (session seconds), and whether the user selected it; fixed when the
    /// dialog first shows.
    range: Option<(f64, f64, bool)>,
}

impl Default for ExportDialog {
    fn default() -> Self {
        ExportDialog {
            metrics: Metric::ALL.iter().map(|m| (*m, true)).collect(),
            path: String::new(),
            range: None,
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
        let (t0, t1, selected) = *self.range.get_or_insert_with(|| {
            let (a, b) = time.range().unwrap_or((
                (time.cursor() - window_s).max(store.earliest()),
                time.cursor(),
            ));
            (a, b, time.range().is_some())
        });
        if self.path.is_empty() {
            self.path = format!("{EXPORTS_DIR}/movescope-{t0:.1}-{t1:.1}.csv");
        }
        super::window(ctx, "Export CSV").show(ctx, |ui| {
            ui.label(format!(
                "{t0:.1}–{t1:.1} s ({}), one row per point: series, machine, t_s, value, unit",
                if selected {
                    "the selected range"
                } else {
                    "the window shown when this opened"
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A live session runs on while the dialog is open: its heading, the file's name and the
    /// points written keep the range shown when it opened.
    #[test]
    fn the_range_is_the_one_shown_when_the_dialog_opened() {
        use crate::model::telemetry::{Event, Machine, Record};
        let mut store = Store::new(None);
        for i in 0..400 {
            store.ingest(&Record {
                t: f64::from(i) * 0.1,
                machine: Machine::Client(0),
                event: Event::Rtt { rtt: 0.05 },
            });
        }
        let mut dialog = ExportDialog::default();
        let ctx = egui::Context::default();
        let mut shown = Vec::new();
        for cursor in [20.0, 35.0] {
            let time = TimeControl::at(cursor);
            let _ = ctx.run_ui(egui::RawInput::default(), |ui| {
                let _ = dialog.ui(ui.ctx(), &store, &time, 10.0);
            });
            shown.push((dialog.range, dialog.path.clone()));
        }
        assert_eq!(shown[0], shown[1], "nothing moved with the cursor");
        assert_eq!(shown[0].0, Some((10.0, 20.0, false)));
        assert!(
            shown[0].1.ends_with("movescope-10.0-20.0.csv"),
            "{}",
            shown[0].1
        );
    }
}
