//! "Your component": `movescope lint` in the app. Name (or drop) a GMC component's `.h`/`.cpp`
//! files or its folder; the window shows each component's binding table with its bits and
//! bandwidth at the running session's rates, and the findings with their code line, each
//! with "Show me", which starts the lesson that shows the mistake. The lint runs as a job.

use std::path::{Path, PathBuf};

use eframe::egui::{self, Color32, RichText};

use super::action::Action;
use super::component_run::{self, RunContext, RunPanel};
use super::jobs::{Job, Poll};
use crate::analysis::lint::{self, LintReport, Rates, Severity};

#[derive(Default)]
pub struct ComponentWindow {
    pub open: bool,
    /// The files and folders linted (and re-linted by "Again").
    pub paths: Vec<PathBuf>,
    /// What the path field holds.
    pub typed: String,
    report: Option<LintReport>,
    running: Option<Job<LintReport>>,
    error: Option<String>,
    /// The component whose table is shown.
    pub selected: usize,
    /// "Run with this layout".
    run: RunPanel,
    /// "Show me" or "Run with this layout", waiting for the user to confirm: either replaces
    /// the session shown.
    pending: Option<Vec<Action>>,
}

/// True for what the window takes: a folder, or a `.h`/`.hpp`/`.cpp` file.
pub fn is_source(p: &Path) -> bool {
    p.is_dir()
        || p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
            lint::source::EXTENSIONS
                .iter()
                .any(|x| x.eq_ignore_ascii_case(e))
        })
}

fn severity_colour(s: Severity, light: bool) -> Color32 {
    match (s, light) {
        (Severity::Error, false) => Color32::from_rgb(240, 100, 100),
        (Severity::Error, true) => Color32::from_rgb(180, 30, 30),
        (Severity::Warning, false) => Color32::from_rgb(235, 190, 80),
        (Severity::Warning, true) => Color32::from_rgb(150, 100, 0),
        (Severity::Note, _) => Color32::GRAY,
    }
}

impl ComponentWindow {
    /// Lints `paths` at `rates` (in a job) and opens the window.
    pub fn lint(&mut self, paths: Vec<PathBuf>, rates: Rates) {
        self.open = true;
        self.error = None;
        self.typed = paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join("; ");
        self.paths = paths.clone();
        match Job::spawn("the lint", move |_| lint::lint_paths(&paths, rates)) {
            Ok(j) => self.running = Some(j),
            Err(e) => self.error = Some(e),
        }
    }

    /// The last report (for tests).
    pub fn report(&self) -> Option<&LintReport> {
        self.report.as_ref()
    }

    /// Waits for the running lint (tests and screenshots); false if none ran or it was lost.
    pub fn wait(&mut self) -> bool {
        let Some(mut job) = self.running.take() else {
            return self.report.is_some();
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while std::time::Instant::now() < deadline {
            match job.poll() {
                Poll::Ready(r) => {
                    self.report = Some(r);
                    return true;
                }
                Poll::Lost => return false,
                Poll::Pending => std::thread::yield_now(),
            }
        }
        false
    }

    pub fn ui(&mut self, ctx: &egui::Context, rc: &RunContext, light: bool) -> Vec<Action> {
        let rates = Rates::of(rc.preset);
        let mut actions = Vec::new();
        if let Some(job) = self.running.as_mut() {
            match job.poll() {
                Poll::Pending => ctx.request_repaint_after(std::time::Duration::from_millis(100)),
                Poll::Ready(r) => {
                    self.running = None;
                    self.selected = 0;
                    self.report = Some(r);
                }
                Poll::Lost => {
                    self.running = None;
                    self.error = Some("the lint stopped without a report".into());
                }
            }
        }
        if !self.open {
            return actions;
        }
        let mut open = true;
        let mut relint: Option<Vec<PathBuf>> = None;
        let mut confirmed: Vec<Action> = Vec::new();
        super::window(ctx, "Your component")
            .open(&mut open)
            .default_width(900.0)
            .default_height(600.0)
            .show(ctx, |ui| {
                if let Some(p) = &self.pending {
                    let (yes, settled) = confirm_ui(ui, p);
                    confirmed = yes.unwrap_or_default();
                    if settled {
                        self.pending = None;
                    }
                }
                ui.label("Check your GMC component's C++ against the prediction checklist: its binding table with the bits each value takes on the wire, and each rule it breaks with the lesson that shows what that does (docs/lint.md). Drop .h / .cpp files or a folder on the window, or type paths (separated by ;).");
                ui.horizontal(|ui| {
                    let field = ui.add(
                        egui::TextEdit::singleline(&mut self.typed)
                            .hint_text("Source/MyGame/MyMovementComponent.cpp; Source/MyGame/Public")
                            .desired_width(560.0),
                    );
                    let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                    let busy = self.running.is_some();
                    if ui.add_enabled(!busy, egui::Button::new("Check")).clicked() || (enter && !busy) {
                        let paths: Vec<PathBuf> = self
                            .typed
                            .split(';')
                            .map(str::trim)
                            .filter(|s| !s.is_empty())
                            .map(PathBuf::from)
                            .collect();
                        if paths.is_empty() {
                            self.error = Some("name a file or a folder first".into());
                        } else {
                            relint = Some(paths);
                        }
                    }
                    if busy {
                        ui.spinner();
                    }
                });
                if let Some(e) = &self.error {
                    ui.colored_label(severity_colour(Severity::Error, light), e);
                }
                let Some(r) = &self.report else {
                    ui.weak("Nothing checked yet.");
                    return;
                };
                ui.separator();
                ui.label(
                    RichText::new(format!(
                        "{} file{}, {} lines, {} component{}: {} error{}, {} warning{}, {} note{}",
                        r.files.len(),
                        if r.files.len() == 1 { "" } else { "s" },
                        r.lines,
                        r.components.len(),
                        if r.components.len() == 1 { "" } else { "s" },
                        r.count(Severity::Error),
                        if r.count(Severity::Error) == 1 { "" } else { "s" },
                        r.count(Severity::Warning),
                        if r.count(Severity::Warning) == 1 { "" } else { "s" },
                        r.count(Severity::Note),
                        if r.count(Severity::Note) == 1 { "" } else { "s" },
                    ))
                    .strong(),
                );
                for p in &r.problems {
                    ui.colored_label(
                        severity_colour(Severity::Error, light),
                        format!("{}: {}", p.path.display(), p.problem),
                    );
                }
                egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
                    if !r.components.is_empty() {
                        self.selected = self.selected.min(r.components.len() - 1);
                        ui.horizontal(|ui| {
                            ui.label(RichText::new("Binding table").strong());
                            egui::ComboBox::from_id_salt("component")
                                .selected_text(&r.components[self.selected].class)
                                .show_ui(ui, |ui| {
                                    for (i, c) in r.components.iter().enumerate() {
                                        ui.selectable_value(&mut self.selected, i, &c.class);
                                    }
                                })
                                .response
                                .accessible_name("component shown");
                            actions.extend(self.run.run_button(ui, &r.components[self.selected], &r.files, rc));
                        });
                        table(ui, r, self.selected, rates);
                        component_run::session_bandwidth(ui, &r.components[self.selected].class, rc, light);
                        ui.add_space(8.0);
                        actions.extend(self.run.ui(ui, &r.components[self.selected], &r.files, rc, light));
                        ui.add_space(8.0);
                    }
                    ui.label(RichText::new(format!("Findings ({})", r.findings.len())).strong());
                    if r.findings.is_empty() {
                        ui.label("No rule is broken: nothing the lint can see would make client and server disagree.");
                    }
                    for f in &r.findings {
                        finding(ui, r, f, light, &mut actions);
                    }
                });
            });
        if let Some(paths) = relint {
            self.lint(paths, rates);
        }
        self.open = open;
        // What would replace the session waits for a confirmation.
        let (replacing, mut rest): (Vec<Action>, Vec<Action>) =
            actions.into_iter().partition(replaces_session);
        if !replacing.is_empty() {
            self.pending = Some(replacing);
        }
        rest.extend(confirmed);
        rest
    }
}

/// Whether `a` replaces the session shown (a lesson's scenario, or a session with a layout).
fn replaces_session(a: &Action) -> bool {
    matches!(a, Action::StartLesson(_) | Action::Start { .. })
}

/// The question asked before `pending` replaces the session shown.
fn pending_question(pending: &[Action]) -> String {
    match pending.first() {
        Some(Action::StartLesson(name)) => format!("Start the lesson {name}?"),
        Some(Action::Start { name, .. }) => format!("Run \"{name}\"?"),
        _ => "Replace the session?".into(),
    }
}

/// Asks whether the pending actions may replace the session shown; returns them once the user
/// says so, and whether the question is settled (answered either way).
fn confirm_ui(ui: &mut egui::Ui, pending: &[Action]) -> (Option<Vec<Action>>, bool) {
    let mut out = (None, false);
    ui.group(|ui| {
        ui.label(RichText::new(pending_question(pending)).strong());
        ui.label("It replaces the session shown: what a live session did is gone unless you record it first (Record in the top bar); a recording stays on disk (Open… brings it back).");
        ui.horizontal(|ui| {
            if ui.button("Replace the session").clicked() {
                out = (Some(pending.to_vec()), true);
            }
            if ui.button("Cancel").clicked() {
                out = (None, true);
            }
        });
    });
    out
}

/// A mode as shown: its name, and whether it was `{}` or left out.
fn shown<T: std::fmt::Debug + Copy>(a: &lint::gmc::Arg<T>) -> (String, bool) {
    match a {
        lint::gmc::Arg::Given(v) => (format!("{v:?}"), false),
        lint::gmc::Arg::Default(v) => (format!("{v:?}"), true),
        lint::gmc::Arg::Unknown(t) => (format!("? ({t})"), false),
    }
}

fn table(ui: &mut egui::Ui, r: &LintReport, k: usize, rates: Rates) {
    let c = &r.components[k];
    ui.weak(format!(
        "{} ({}:{}){}",
        c.class,
        c.file.display(),
        c.line,
        if c.through_pointer {
            ", binding through a pointer"
        } else {
            ""
        }
    ));
    egui::Grid::new(("bindings", k)).striped(true).num_columns(9).show(ui, |ui| {
        for h in ["#", "member", "bind", "bits", "prediction", "combine", "simulation", "interpolation", "line"] {
            ui.label(RichText::new(h).strong());
        }
        ui.end_row();
        for (i, b) in c.bindings.iter().enumerate() {
            ui.label((i + 1).to_string());
            let mut member = lint::render::shown_member(b);
            if b.in_loop {
                member.push_str(" ×N, uncounted");
            }
            match &b.condition {
                Some(cond) => {
                    ui.monospace(format!("{member} †")).on_hover_text(format!(
                        "† made only when {cond} holds: every machine must make the same list (binding-under-condition)"
                    ));
                }
                None => {
                    ui.monospace(member);
                }
            }
            ui.label(&b.bind);
            ui.label(lint::row_bits(b).to_string())
                .on_hover_text("Bits on the wire, from movescope's wire model (docs/lint.md: two-decimal values assume 1000 per component)");
            let mode = |ui: &mut egui::Ui, text: String, default: bool, explain: Option<&str>| {
                let shown = if default { format!("{text} *") } else { text };
                let resp = ui.label(shown);
                let mut tip = explain.unwrap_or("").to_string();
                if default {
                    tip.push_str("\n* written as {} or left out: GMC's enumerator 0");
                }
                if !tip.trim().is_empty() {
                    resp.on_hover_text(tip.trim());
                }
            };
            let (t, d) = shown(&b.prediction);
            mode(ui, t, d, b.prediction.value().map(|m| m.explain()));
            let (t, d) = shown(&b.combine);
            mode(ui, t, d, b.combine.value().map(|m| m.explain()));
            let (t, d) = shown(&b.simulation);
            mode(ui, t, d, b.simulation.value().map(|m| m.explain()));
            let (t, d) = shown(&b.interpolation);
            mode(ui, t, d, None);
            let file = r.files.get(b.file).map(|f| f.path.display().to_string()).unwrap_or_default();
            ui.label(b.pos.line.to_string()).on_hover_text(file);
            ui.end_row();
        }
    });
    if c.bindings.iter().any(|b| b.condition.is_some()) {
        ui.weak("† made only when a condition holds (binding-under-condition): the layouts can differ between machines");
    }
    // At the running session's rates now (the report's totals are those of when it was
    // linted: a frame rate changed since would put stale moves beside the new rate).
    let t = &lint::totals(&c.bindings, rates);
    let bits = |n: u32| format!("{n} bit{}", if n == 1 { "" } else { "s" });
    ui.label(format!(
        "Per move client to server: {} · per server state: {} · per proxy update: {}",
        bits(t.move_bits),
        bits(t.state_bits),
        bits(t.proxy_bits)
    ));
    ui.label(format!(
        "Client to server ≈ {:.0} B/s ({:.0} moves/s at {} fps, {} frame{} per move, sent at {} Hz) · per proxy ≈ {:.0} B/s at {} updates/s",
        t.client_bytes_per_s,
        t.moves_per_s,
        rates.client_fps,
        t.frames_per_move,
        if t.frames_per_move == 1 { "" } else { "s" },
        rates.client_send_rate,
        t.proxy_bytes_per_s,
        rates.net_update_rate
    ))
    .on_hover_text("At the running session's rates (Network and GMC settings). Only this table's values are counted; GMC's built-ins come on top (the line below).");
    if t.looped > 0 {
        ui.weak(format!(
            "×N: {} binding{} made in a loop, once per pass: not in the figures above (the count is not known from the source); add {} bits per pass.",
            t.looped,
            if t.looped == 1 { "" } else { "s" },
            if t.looped == 1 { "its" } else { "their" }
        ));
    }
    let g = lint::built_in_totals(rates);
    ui.weak(format!(
        "GMC's built-ins, bound by GMC itself on every pawn (location, rotation, scale, linear and angular velocity, control rotation), add per move {} · per server state {} · per proxy update {}.",
        bits(g.move_bits),
        bits(g.state_bits),
        bits(g.proxy_bits)
    ))
    .on_hover_text("With GMC's default modes: location, rotation and scale go up for the server to validate, control rotation goes up as a client-authoritative input; the velocities come down for the client to check; all six reach proxies.");
}

fn finding(
    ui: &mut egui::Ui,
    r: &LintReport,
    f: &lint::Finding,
    light: bool,
    actions: &mut Vec<Action>,
) {
    let path = r
        .files
        .get(f.file)
        .map(|s| s.path.display().to_string())
        .unwrap_or_default();
    ui.horizontal_wrapped(|ui| {
        ui.label(
            RichText::new(f.severity.as_str())
                .color(severity_colour(f.severity, light))
                .strong(),
        );
        ui.monospace(format!("{path}:{}:{}", f.pos.line, f.pos.col));
        ui.weak(format!("[{}]", f.rule.id));
        if let Some(p) = f.rule.pitfall
            && ui
                .button("Show me")
                .on_hover_text(format!(
                    "Start the lesson {p}: it shows what this mistake does in a running session"
                ))
                .clicked()
        {
            actions.push(Action::StartLesson(p.to_string()));
        }
    });
    ui.label(&f.message);
    // The whole statement (a Bind call written over several lines), each line numbered.
    let lines = r
        .files
        .get(f.file)
        .map(|s| s.statement(f.pos.line as usize))
        .unwrap_or_default();
    for (k, code) in lines.iter().enumerate() {
        ui.monospace(format!(
            "{:>5} | {}",
            f.pos.line as usize + k,
            shown_code(code)
        ));
    }
    ui.weak(format!("why: {}", f.rule.why));
    ui.weak(format!("fix: {}", f.rule.fix));
    ui.add_space(6.0);
}

/// A code line as the findings show it: tabs as four spaces, long lines cut (the caret's
/// column is in the finding's header).
fn shown_code(code: &str) -> String {
    let code = code.replace('\t', "    ");
    let code = code.trim_end();
    if code.chars().count() > 110 {
        code.chars().take(109).chain(std::iter::once('…')).collect()
    } else {
        code.to_string()
    }
}
