//! The desync doctor in the app: the opened recording (the whole file, on a background
//! thread, with the value trace re-simulated where it can be) or the live session's recent
//! records, explained — causes ranked, findings, changes made to the session, and every
//! correction with its deviating values, where its values parted, and the evidence. Click a
//! correction to move the cursor there; "journey" shows its move.

use std::sync::Arc;

use eframe::egui::{self, Color32, RichText};

use super::action::Action;
use super::jobs::{Job, Poll};
use crate::analysis::doctor::{Answer, Cause, CauseVerdict, Diagnosis, Report};
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
        self.poll(ctx);
        if !self.open {
            return Vec::new();
        }
        let mut picked = Picked::default();
        // Opened on a recording (`--window doctor`, or the button): examine it once.
        if self.report.is_none() && self.running.is_none() && self.error.is_none() && recording {
            picked.run = true;
        }
        let mut open = true;
        super::window(ctx, "Desync doctor")
            .open(&mut open)
            .default_width(720.0)
            .show(ctx, |ui| self.body(ui, recording, &mut picked));
        self.open = open;
        picked.actions()
    }

    /// A finished examination's report, or its error.
    fn poll(&mut self, ctx: &egui::Context) {
        let Some(job) = self.running.as_mut() else {
            return;
        };
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

    fn body(&mut self, ui: &mut egui::Ui, recording: bool, picked: &mut Picked) {
        ui.label("Every desync explained: who found it, which move, every bound value that deviated, and for each cause on the checklist of GMC pitfalls whether the evidence supports it, rules it out, or cannot tell (and what would) — docs/doctor.md.");
        if let Some(name) = self.confirm_ui(ui, recording) {
            picked.lesson = Some(name);
        }
        ui.horizontal(|ui| {
            let busy = self.running.is_some();
            let what = if recording {
                "Examine the recording"
            } else {
                "Examine the last 30 s"
            };
            if ui.add_enabled(!busy, egui::Button::new(what)).clicked() {
                picked.run = true;
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
            picked.go = Some(self.go_to);
        }
        let Some(r) = &self.report else { return };
        ui.separator();
        let plural = if r.corrections == 1 { "" } else { "s" };
        ui.label(
            RichText::new(format!(
                "{} desync{plural} in {}.",
                r.corrections, self.covers
            ))
            .strong(),
        );
        ui.weak(format!("Value trace: {}.", r.value_trace));
        let mut confirm = None;
        egui::ScrollArea::vertical()
            .max_height(480.0)
            .show(ui, |ui| {
                confirm = causes_ui(ui, r);
                others_ui(ui, r, picked);
                if !r.diagnoses.is_empty() {
                    ui.label(
                        RichText::new(format!(
                            "Desyncs ({} of {} listed; click one to move the cursor there)",
                            r.diagnoses.len().min(LISTED),
                            r.diagnoses.len()
                        ))
                        .strong(),
                    );
                }
                for d in r.diagnoses.iter().take(LISTED) {
                    if let Some(c) = diagnosis_ui(ui, d, picked) {
                        confirm = Some(c);
                    }
                }
            });
        if confirm.is_some() {
            self.confirm = confirm;
        }
    }

    /// "Start the lesson?" for a lesson picked under "learn it"; the lesson's name when
    /// confirmed.
    fn confirm_ui(&mut self, ui: &mut egui::Ui, recording: bool) -> Option<String> {
        let (name, title) = self.confirm.clone()?;
        let mut start = None;
        ui.group(|ui| {
            ui.label(RichText::new(format!("Start the lesson \"{title}\"?")).strong());
            ui.label(if recording {
                "Its scenario starts live in place of this recording (the file stays on disk; Open… brings it back)."
            } else {
                "Its scenario replaces the running session: what it did is gone unless you record it first (Record in the top bar)."
            });
            ui.horizontal(|ui| {
                if ui.button("Start the lesson").clicked() {
                    start = Some(name.clone());
                    self.confirm = None;
                }
                if ui.button("Cancel").clicked() {
                    self.confirm = None;
                }
            });
        });
        start
    }
}

/// What the window's clicks ask for.
#[derive(Default)]
struct Picked {
    run: bool,
    seek: Option<f64>,
    journey: Option<(u16, u32, f64)>,
    lesson: Option<String>,
    go: Option<(u16, u32)>,
}

impl Picked {
    fn actions(self) -> Vec<Action> {
        let mut actions = Vec::new();
        if self.run {
            actions.push(Action::Examine);
        }
        if let Some(name) = self.lesson {
            actions.push(Action::StartLesson(name));
        }
        if let Some(t) = self.seek {
            actions.push(Action::Time(TimeCommand::Seek(t)));
        }
        if let Some((client, move_id)) = self.go {
            actions.push(Action::GoToMove { client, move_id });
        }
        if let Some((client, m, t)) = self.journey {
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

/// The causes ranked, each with the lessons that show it; a lesson picked: (name, title).
fn causes_ui(ui: &mut egui::Ui, r: &Report) -> Option<(String, String)> {
    let mut picked = None;
    if r.causes.is_empty() && r.unexplained == 0 {
        return None;
    }
    ui.label(RichText::new("Most likely causes").strong());
    for c in &r.causes {
        ui.label(format!("{:>5}  {}", c.corrections, c.line()));
        if let Some(p) = lessons_row(ui, c.cause, "       learn it:") {
            picked = Some(p);
        }
    }
    if r.unexplained > 0 {
        ui.label(format!(
            "{:>5}  No cause supported by the evidence: each desync below lists what the records cannot tell and what would",
            r.unexplained
        ));
    }
    picked
}

/// The lessons that show `cause`, as buttons after `label`; the one clicked.
fn lessons_row(ui: &mut egui::Ui, cause: Cause, label: &str) -> Option<(String, String)> {
    let lessons = super::lessons::lessons_for(cause);
    if lessons.is_empty() {
        return None;
    }
    let mut picked = None;
    ui.horizontal_wrapped(|ui| {
        ui.weak(label);
        for l in lessons {
            if ui
                .small_button(&l.preset.title)
                .on_hover_text(format!("Start the lesson: {}", l.preset.description))
                .clicked()
            {
                picked = Some((l.name.clone(), l.preset.title.clone()));
            }
        }
    });
    picked
}

/// Findings and the changes made while the session ran.
fn others_ui(ui: &mut egui::Ui, r: &Report, picked: &mut Picked) {
    if !r.findings.is_empty() {
        ui.label(RichText::new("Findings without corrections").strong());
        for f in &r.findings {
            ui.label(format!("{}: {}", f.pitfall, f.evidence));
        }
    }
    if !r.session_changes.is_empty() {
        ui.label(RichText::new("Changes made while the session ran").strong());
        for (t, what) in &r.session_changes {
            if ui
                .selectable_label(false, format!("{t:8.3} s  {what}"))
                .clicked()
            {
                picked.seek = Some(*t);
            }
        }
    }
}

const SUPPORTED: Color32 = Color32::from_rgb(110, 170, 110);
const OPEN: Color32 = Color32::from_rgb(210, 160, 60);

/// One desync: its head line, values, who found it, rejected moves, where it parted, the
/// supported causes (with lessons), the open ones (with the lessons that look the same, and
/// what would tell), and those ruled out (folded). A lesson picked: (name, title).
fn diagnosis_ui(ui: &mut egui::Ui, d: &Diagnosis, picked: &mut Picked) -> Option<(String, String)> {
    let mut lesson = None;
    ui.horizontal_top(|ui| {
        if ui.small_button("journey").on_hover_text("The journey of this move, with its bound values").clicked() {
            picked.journey = Some((d.client, d.move_id, d.t));
        }
        ui.vertical(|ui| {
            let head = format!(
                "{:8.3} s  client {} move {}{}, found by the {}, {}: {}",
                d.t, d.client, d.move_id, d.move_details(), d.found_by, d.replay_text(), d.cause_text()
            );
            if ui.selectable_label(false, head).on_hover_text(found_hover(d)).clicked() {
                picked.seek = Some(d.t);
            }
            for v in &d.deviations {
                ui.weak(v.describe());
            }
            for f in &d.found {
                ui.weak(format!("found: {f}"));
            }
            for r in &d.rejected {
                ui.weak(format!("rejected by the server: {}", r.describe()));
            }
            if let Some(m) = d.reply_move {
                ui.weak(format!("the reply the client checked was move {m}'s (GMC replicates one reply per net update)"));
            }
            if let Some(p) = &d.parted {
                ui.label(RichText::new(p.describe()).color(Color32::from_rgb(110, 160, 235)));
            }
            lesson = verdicts_ui(ui, d);
        });
    });
    lesson
}

fn found_hover(d: &Diagnosis) -> &'static str {
    match d.found_by.as_str() {
        "client" => {
            "Found by the client: its own check (CL_ShouldReplay) compared the server's reply with its prediction of the move."
        }
        "server" => {
            "Found by the server: it compared the values the client sent with its own result and rejected the move."
        }
        _ => {
            "Found by both: the server rejected the move, and the client's own check of the reply failed too."
        }
    }
}

/// The verdicts of one desync; a lesson picked.
fn verdicts_ui(ui: &mut egui::Ui, d: &Diagnosis) -> Option<(String, String)> {
    let mut lesson = None;
    // The supported causes' lessons are listed once, with the causes at the top.
    for v in d.answered(Answer::Supported) {
        ui.label(RichText::new(format!("supported: {}", v.describe())).color(SUPPORTED));
        quotes_ui(ui, v);
    }
    let open: Vec<&CauseVerdict> = d.answered(Answer::CannotTell).collect();
    // With no cause supported, the open ones are the candidates: each with the lesson that
    // shows what it looks like.
    let candidates = d.cause.is_none();
    if !open.is_empty() {
        let head = if candidates {
            "No cause is supported; the evidence cannot tell between these (each says what would):"
        } else {
            "The evidence cannot tell:"
        };
        ui.label(RichText::new(head).color(OPEN));
        for v in open {
            ui.label(RichText::new(format!("  {}", v.describe())).color(OPEN));
            if candidates && let Some(p) = lessons_row(ui, v.cause, "     what it looks like:") {
                lesson = Some(p);
            }
        }
    }
    let out: Vec<&CauseVerdict> = d.answered(Answer::RuledOut).collect();
    if !out.is_empty() {
        ui.collapsing(format!("{} causes ruled out", out.len()), |ui| {
            for v in out {
                ui.weak(v.describe());
                quotes_ui(ui, v);
            }
        });
    }
    lesson
}

fn quotes_ui(ui: &mut egui::Ui, v: &CauseVerdict) {
    for q in &v.quotes {
        ui.weak(format!("      {}", q.line()));
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
