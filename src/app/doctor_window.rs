//! The desync doctor in the app: the opened recording (the whole file, on a background
//! thread, with the value trace re-simulated where it can be) or the live session's recent
//! records, explained — causes ranked, findings, changes made to the session, and every
//! correction with its deviating values, where its values parted, and the evidence. Click a
//! correction to move the cursor there; "journey" shows its move.

use std::sync::Arc;

use eframe::egui::{self, Color32, RichText};

use super::action::Action;
use super::jobs::{Job, Poll};
use crate::analysis::doctor::Report;
use crate::model::binding::Binding;
use crate::model::telemetry::Record;
use crate::session::recording::Recording;
use crate::session::timeline::TimeCommand;

/// What the doctor examines.
pub enum DoctorSource {
    /// The whole recording (the value trace re-simulated where it can be).
    Recording(Arc<Recording>),
    /// A live session's recent records, with the binding lists in force from each session
    /// time on (each correction is judged by the list of its time).
    Live {
        epochs: Vec<(f64, Vec<Binding>)>,
        records: Vec<Record>,
    },
}

#[derive(Default)]
pub struct DoctorWindow {
    pub open: bool,
    running: Option<Job<Result<Report, String>>>,
    pub report: Option<Report>,
    /// What the report covers ("the whole recording", "the last 30 s of the live session").
    pub covers: String,
    pub error: Option<String>,
    /// A lesson picked under "learn it", waiting for the user to confirm (starting it ends
    /// what is shown now).
    confirm: Option<(String, String)>,
    /// The move "Go to move" goes to: (client, move id).
    go_to: (u16, u32),
}

/// Corrections listed in the window (the rest are counted).
const LISTED: usize = 300;

impl DoctorWindow {
    /// Examines `source` on a job (the report shows when it ends).
    pub fn examine(&mut self, source: DoctorSource) {
        self.error = None;
        let job = match source {
            DoctorSource::Recording(rec) => {
                self.covers = "the whole recording".into();
                Job::spawn("the doctor", move |_| {
                    let (records, damage) = rec.load_all();
                    let mut report = crate::analysis::doctor::examine_recording(&rec, &records);
                    if let Some(d) = damage {
                        report.value_trace += &format!(" (the file is damaged: {d})");
                    }
                    Ok(report)
                })
            }
            DoctorSource::Live { epochs, records } => {
                self.covers = format!(
                    "the live session's last {:.0} s",
                    records
                        .first()
                        .zip(records.last())
                        .map_or(0.0, |(a, b)| b.t - a.t)
                );
                Job::spawn("the doctor", move |_| {
                    Ok(crate::analysis::doctor::examine_epochs(&epochs, &records))
                })
            }
        };
        match job {
            Ok(j) => self.running = Some(j),
            Err(e) => self.error = Some(e),
        }
    }

    /// Forgets the report (another session or recording is shown).
    pub fn reset(&mut self) {
        self.running = None;
        self.report = None;
        self.error = None;
    }

    /// The doctor's last report (for tests and tools).
    pub fn report(&self) -> Option<&Report> {
        self.report.as_ref()
    }

    /// The window; `recording`: a recording is shown (else a live session). Asks for an
    /// examination (`Action::Examine`) when opened on a recording without a report.
    pub fn ui(&mut self, ctx: &egui::Context, recording: bool) -> Vec<Action> {
        let mut actions = Vec::new();
        if let Some(job) = self.running.as_mut() {
            match job.poll() {
                Poll::Pending => ctx.request_repaint_after(std::time::Duration::from_millis(100)),
                Poll::Ready(done) => {
                    self.running = None;
                    match done {
                        Ok(r) => {
                            // "Go to move" starts at the first correction's move.
                            if let Some(d) = r.diagnoses.first() {
                                self.go_to = (d.client, d.move_id);
                            }
                            self.report = Some(r);
                        }
                        Err(e) => self.error = Some(e),
                    }
                }
                Poll::Lost => {
                    self.running = None;
                    self.error = Some("the doctor stopped without a report".into());
                }
            }
        }
        if !self.open {
            return actions;
        }
        // Opened on a recording (`--window doctor`, or the button): examine it once.
        if self.report.is_none() && self.running.is_none() && self.error.is_none() && recording {
            actions.push(Action::Examine);
        }
        let mut open = true;
        let mut run = false;
        let mut seek = None;
        let mut journey = None;
        let mut lesson: Option<String> = None;
        let mut go = None;
        super::window(ctx, "Desync doctor")
            .open(&mut open)
            .default_width(700.0)
            .show(ctx, |ui| {
                ui.label("Every correction explained: which bound values deviated and by how much against their tolerance, where the move's values first parted (with the value trace), and the most likely cause from the checklist of GMC pitfalls, with its evidence (docs/doctor.md).");
                // "learn it" asks first: the lesson's scenario replaces what is shown.
                if let Some((name, title)) = self.confirm.clone() {
                    ui.group(|ui| {
                        ui.label(RichText::new(format!("Start the lesson \"{title}\"?")).strong());
                        ui.label(if recording {
                            "Its scenario starts live in place of this recording (the file stays on disk; Open… brings it back)."
                        } else {
                            "Its scenario replaces the running session: what it did is gone unless you record it first (Record in the top bar)."
                        });
                        ui.horizontal(|ui| {
                            if ui.button("Start the lesson").clicked() {
                                lesson = Some(name.clone());
                                self.confirm = None;
                            }
                            if ui.button("Cancel").clicked() {
                                self.confirm = None;
                            }
                        });
                    });
                }
                ui.horizontal(|ui| {
                    let busy = self.running.is_some();
                    let what = if recording { "Examine the recording" } else { "Examine the last 30 s" };
                    if ui.add_enabled(!busy, egui::Button::new(what)).clicked() {
                        run = true;
                    }
                    if busy {
                        ui.spinner();
                        ui.weak("re-simulating for the value trace if needed…");
                    }
                });
                if let Some(e) = &self.error {
                    ui.colored_label(Color32::from_rgb(230, 80, 80), e);
                }
                if go_to_move_row(ui, &mut self.go_to) {
                    go = Some(self.go_to);
                }
                let Some(r) = &self.report else { return };
                ui.separator();
                ui.label(RichText::new(format!("{} corrections in {}.", r.corrections, self.covers)).strong());
                ui.weak(format!("Value trace: {}.", r.value_trace));
                egui::ScrollArea::vertical().max_height(480.0).show(ui, |ui| {
                    if !r.causes.is_empty() {
                        ui.label(RichText::new("Most likely causes").strong());
                        for c in &r.causes {
                            ui.label(format!("{:>5}  {}", c.corrections, c.line()));
                            // From the symptom to the lesson that shows it.
                            let lessons = super::lessons::lessons_for(c.cause);
                            if !lessons.is_empty() {
                                ui.horizontal_wrapped(|ui| {
                                    ui.weak("       learn it:");
                                    for l in lessons {
                                        if ui
                                            .small_button(&l.preset.title)
                                            .on_hover_text(format!("Start the lesson: {}", l.preset.description))
                                            .clicked()
                                        {
                                            self.confirm =
                                                Some((l.name.clone(), l.preset.title.clone()));
                                        }
                                    }
                                });
                            }
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
                                    "{:8.3} s  client {} move {}{}, found by the {}, replayed {}: {} ({:?})",
                                    d.t, d.client, d.move_id, d.move_details(), d.found_by, d.replay_depth, d.cause.title(), d.cause
                                );
                                if ui
                                    .selectable_label(false, head)
                                    .on_hover_text(if d.found_by == "client" {
                                        "Found by the client: a client-validated value (ServerAuth_Output_ClientValidated); the client compared its prediction with the state the server sent back."
                                    } else {
                                        "Found by the server: a server-validated value; the server compared the result the client claimed with its own and sent the correction."
                                    })
                                    .clicked()
                                {
                                    seek = Some(d.t);
                                }
                                for v in &d.deviations {
                                    ui.weak(v.describe());
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
        self.open = open;
        if run {
            actions.push(Action::Examine);
        }
        if let Some(name) = lesson {
            actions.push(Action::StartLesson(name));
        }
        if let Some(t) = seek {
            actions.push(Action::Time(TimeCommand::Seek(t)));
        }
        if let Some((client, move_id)) = go {
            actions.push(Action::GoToMove { client, move_id });
        }
        if let Some((client, m, t)) = journey {
            actions.push(Action::Time(TimeCommand::Seek(t)));
            actions.push(Action::Journey {
                client,
                move_id: Some(m),
                t,
                on_server: false,
            });
        }
        actions
    }
}

/// "Go to move": a client and a move id (as a GMC log or a bug report names it); true when
/// the button was clicked.
fn go_to_move_row(ui: &mut egui::Ui, go_to: &mut (u16, u32)) -> bool {
    ui.horizontal(|ui| {
        let l = ui.label("Go to client");
        ui.add(egui::DragValue::new(&mut go_to.0).range(0..=255))
            .labelled_by(l.id);
        let l = ui.label("move");
        ui.add(egui::DragValue::new(&mut go_to.1).range(0..=u32::MAX))
            .labelled_by(l.id);
        ui.button("Go")
            .on_hover_text("Move the cursor to where this client closed this move, and open its journey (its frames, the link, the server, and the correction if there was one).")
            .clicked()
    })
    .inner
}
