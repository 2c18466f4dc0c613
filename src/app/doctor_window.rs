//! The desync doctor in the app: the opened recording (the whole file, on a background
//! thread, with the value trace re-simulated where it can be) or the live session's recent
//! records, explained — causes ranked, findings, changes made to the session, and every
//! correction with its deviating values, where its values parted, and the evidence. Click a
//! correction to move the cursor there; "journey" shows its move.

use eframe::egui::{self, Color32, RichText};

use super::MovescopeApp;
use super::jobs::{Job, Poll};
use crate::doctor::Report;
use crate::timeline::TimeCommand;

#[derive(Default)]
pub struct DoctorState {
    pub open: bool,
    running: Option<Job<Result<Report, String>>>,
    pub report: Option<Report>,
    /// What the report covers ("the whole recording", "the last 30 s of the live session").
    pub covers: String,
    pub error: Option<String>,
}

/// Corrections listed in the window (the rest are counted).
const LISTED: usize = 300;

impl MovescopeApp {
    /// Examines the opened recording (in the background) or the live session's recent records.
    pub fn run_doctor(&mut self) {
        self.doctor.error = None;
        let job = match &self.opened {
            Some(o) => {
                let rec = o.recording.clone();
                self.doctor.covers = "the whole recording".into();
                Job::spawn("the doctor", move |_| {
                    let (records, damage) = rec.load_all();
                    let mut report = crate::doctor::examine_recording(&rec, &records);
                    if let Some(d) = damage {
                        report.value_trace += &format!(" (the file is damaged: {d})");
                    }
                    Ok(report)
                })
            }
            None => {
                let bindings = self
                    .session
                    .as_ref()
                    .map(|s| s.bindings().list().to_vec())
                    .unwrap_or_default();
                let records: Vec<_> = self.recent.iter().cloned().collect();
                self.doctor.covers = format!(
                    "the live session's last {:.0} s",
                    records
                        .first()
                        .zip(records.last())
                        .map_or(0.0, |(a, b)| b.t - a.t)
                );
                Job::spawn("the doctor", move |_| {
                    Ok(crate::doctor::examine(&bindings, &records))
                })
            }
        };
        match job {
            Ok(j) => self.doctor.running = Some(j),
            Err(e) => self.doctor.error = Some(e),
        }
    }

    /// The doctor's last report (for tests and tools).
    pub fn doctor_report(&self) -> Option<&Report> {
        self.doctor.report.as_ref()
    }

    pub(super) fn doctor_window(&mut self, ctx: &egui::Context) {
        if let Some(job) = self.doctor.running.as_mut() {
            match job.poll() {
                Poll::Pending => ctx.request_repaint_after(std::time::Duration::from_millis(100)),
                Poll::Ready(done) => {
                    self.doctor.running = None;
                    match done {
                        Ok(r) => self.doctor.report = Some(r),
                        Err(e) => self.doctor.error = Some(e),
                    }
                }
                Poll::Lost => {
                    self.doctor.running = None;
                    self.doctor.error = Some("the doctor stopped without a report".into());
                }
            }
        }
        if !self.doctor.open {
            return;
        }
        // Opened on a recording (`--window doctor`, or the button): examine it once.
        if self.doctor.report.is_none()
            && self.doctor.running.is_none()
            && self.doctor.error.is_none()
            && self.opened.is_some()
        {
            self.run_doctor();
        }
        let mut open = true;
        let mut run = false;
        let mut seek = None;
        let mut journey = None;
        egui::Window::new("Desync doctor")
            .open(&mut open)
            .default_width(700.0)
            .show(ctx, |ui| {
                ui.label("Every correction explained: which bound values deviated and by how much against their tolerance, where the move's values first parted (with the value trace), and the most likely cause from the checklist of GMC pitfalls, with its evidence (docs/doctor.md).");
                ui.horizontal(|ui| {
                    let busy = self.doctor.running.is_some();
                    let what = if self.opened.is_some() { "Examine the recording" } else { "Examine the last 30 s" };
                    if ui.add_enabled(!busy, egui::Button::new(what)).clicked() {
                        run = true;
                    }
                    if busy {
                        ui.spinner();
                        ui.weak("re-simulating for the value trace if needed…");
                    }
                });
                if let Some(e) = &self.doctor.error {
                    ui.colored_label(Color32::from_rgb(230, 80, 80), e);
                }
                let Some(r) = &self.doctor.report else { return };
                ui.separator();
                ui.label(RichText::new(format!("{} corrections in {}.", r.corrections, self.doctor.covers)).strong());
                ui.weak(format!("Value trace: {}.", r.value_trace));
                egui::ScrollArea::vertical().max_height(480.0).show(ui, |ui| {
                    if !r.causes.is_empty() {
                        ui.label(RichText::new("Most likely causes").strong());
                        for c in &r.causes {
                            ui.label(format!("{:>5}  {:?}: {}", c.corrections, c.cause, c.explain));
                        }
                    }
                    if !r.findings.is_empty() {
                        ui.label(RichText::new("Findings without corrections").strong());
                        for f in &r.findings {
                            ui.label(format!("{}: {}", f.pitfall, f.evidence));
                        }
                    }
                    if !r.session_changes.is_empty() {
                        ui.label(RichText::new("Changes made while the session ran").strong());
                        for (t, what) in &r.session_changes {
                            if ui.selectable_label(false, format!("{t:8.3} s  {what}")).clicked() {
                                seek = Some(*t);
                            }
                        }
                    }
                    if !r.diagnoses.is_empty() {
                        ui.label(RichText::new(format!(
                            "Corrections ({} of {} listed; click one to move the cursor there)",
                            r.diagnoses.len().min(LISTED),
                            r.diagnoses.len()
                        )).strong());
                    }
                    for d in r.diagnoses.iter().take(LISTED) {
                        ui.horizontal_top(|ui| {
                            if ui.small_button("journey").on_hover_text("The journey of this move, with its bound values").clicked() {
                                journey = Some((d.client, d.move_id, d.t));
                            }
                            ui.vertical(|ui| {
                                let head = format!(
                                    "{:8.3} s  client {} move {}, found by the {}, replayed {}: {:?}",
                                    d.t, d.client, d.move_id, d.found_by, d.replay_depth, d.cause
                                );
                                if ui.selectable_label(false, head).clicked() {
                                    seek = Some(d.t);
                                }
                                for v in &d.deviations {
                                    ui.weak(format!(
                                        "{} predicted {} but server {}: error {:.3} = {:.1}× tolerance {:.3}",
                                        v.binding, v.predicted, v.authoritative, v.error, v.ratio, v.tolerance
                                    ));
                                }
                                if let Some(p) = &d.parted {
                                    ui.label(RichText::new(p.describe()).color(Color32::from_rgb(110, 160, 235)));
                                }
                                ui.weak(format!("evidence: {}", d.evidence));
                            });
                        });
                    }
                });
            });
        self.doctor.open = open;
        if run {
            self.run_doctor();
        }
        if let Some(t) = seek {
            self.time_command(TimeCommand::Seek(t));
        }
        if let Some((c, m, t)) = journey {
            self.time_command(TimeCommand::Seek(t));
            self.show_lineage(c, Some(m), t);
        }
    }
}
