//! The lessons panel: pick a lesson (a shipped scenario with lesson material), it starts live,
//! and the learner walks through its steps — what to look at (the plot is highlighted), a
//! question to answer before a change ("predict, then reveal"), and the change itself. A
//! presenter mode enlarges everything for a projector.

use std::path::PathBuf;

use eframe::egui;
use egui::{Color32, RichText};

use super::MovescopeApp;
use crate::live::Command;
use crate::preset::{Direction, Preset};

/// A lesson as listed: its preset file and contents.
#[derive(Clone, Debug)]
pub struct LessonEntry {
    pub path: PathBuf,
    pub preset: Preset,
}

/// Where the learner is in a lesson.
#[derive(Clone, Debug, Default)]
pub struct LessonState {
    pub open: bool,
    pub list: Vec<LessonEntry>,
    /// Index into `list` of the running lesson.
    pub current: Option<usize>,
    pub step: usize,
    /// The learner's choice for the current step's question, and whether it was revealed.
    pub choice: Option<usize>,
    pub revealed: bool,
    /// The current step's change was made.
    pub done: bool,
    pub presenter: bool,
}

/// Every preset in `presets/` with lesson material, in lesson order.
pub fn shipped_lessons() -> Vec<LessonEntry> {
    let mut v: Vec<LessonEntry> = std::fs::read_dir("presets")
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "ron"))
                .filter_map(|path| {
                    let preset = Preset::load(&path).ok()?;
                    preset.lesson.as_ref()?;
                    Some(LessonEntry { path, preset })
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort_by_key(|e| e.preset.lesson.as_ref().map_or(u32::MAX, |l| l.order));
    v
}

impl MovescopeApp {
    /// The plot title the current lesson step points at, if any.
    pub(super) fn lesson_focus(&self) -> Option<String> {
        let l = &self.lessons;
        let entry = l.list.get(l.current?)?;
        let step = entry.preset.lesson.as_ref()?.steps.get(l.step)?;
        step.look_at.clone()
    }

    fn start_lesson(&mut self, i: usize) {
        let Some(e) = self.lessons.list.get(i).cloned() else {
            return;
        };
        self.lessons.current = Some(i);
        self.lessons.step = 0;
        self.reset_step();
        self.start_preset(e.preset, e.path.display().to_string());
        self.show_focus();
    }

    fn reset_step(&mut self) {
        self.lessons.choice = None;
        self.lessons.revealed = false;
        self.lessons.done = false;
    }

    /// Makes sure the plot the step points at is shown.
    fn show_focus(&mut self) {
        if let Some(title) = self.lesson_focus()
            && let Some(i) = super::plots::PLOTS.iter().position(|p| p.title == title)
        {
            self.plots.shown[i] = true;
        }
    }

    /// Applies `key=value` changes to the running session: pitfall switches, links, smoothing,
    /// world and GMC settings live; anything else by restarting with the changed preset.
    pub(super) fn apply_sets(&mut self, sets: &[String]) {
        let before = self.options.preset.clone();
        let mut p = before.clone();
        for kv in sets {
            if let Err(e) = p.set(kv) {
                self.status = e.to_string();
                return;
            }
        }
        let mut rest = p.clone();
        rest.faults = before.faults.clone();
        rest.link = before.link.clone();
        rest.smoothing = before.smoothing;
        rest.world = before.world.clone();
        rest.gmc = before.gmc;
        if rest != before || self.session.is_none() {
            let name = self.options.preset_name.clone();
            self.start_preset(p, name);
            return;
        }
        if p.faults != before.faults {
            self.apply_faults(p.faults.clone());
        }
        if p.link != before.link {
            let ids = self
                .session
                .as_ref()
                .map(|s| s.client_ids())
                .unwrap_or_default();
            for client in ids {
                self.command(Command::SetLink {
                    client,
                    direction: Direction::Both,
                    params: p.link.clone(),
                });
            }
        }
        if p.smoothing != before.smoothing {
            self.smoothing = p.smoothing.mode;
            self.command(Command::SetSmoothing(p.smoothing));
        }
        if p.world != before.world {
            self.command(Command::SetWorld(p.world.clone()));
        }
        if p.gmc != before.gmc {
            self.command(Command::SetGmc(p.gmc));
        }
        self.options.preset = p;
    }

    pub(super) fn lessons_window(&mut self, ctx: &egui::Context) {
        if !self.lessons.open {
            return;
        }
        if self.lessons.list.is_empty() {
            self.lessons.list = shipped_lessons();
        }
        let mut open = true;
        let mut start: Option<usize> = None;
        let mut sets: Option<Vec<String>> = None;
        let mut step_to: Option<usize> = None;
        let mut fixed: Option<PathBuf> = None;
        egui::Window::new("Lessons")
            .open(&mut open)
            .default_width(460.0)
            .default_pos(egui::pos2(300.0, 70.0))
            .show(ctx, |ui| {
                ui.horizontal(|ui| {
                    let mut presenter = self.lessons.presenter;
                    if ui
                        .checkbox(&mut presenter, "presenter mode")
                        .on_hover_text("Larger text and plots, for a projector.")
                        .changed()
                    {
                        self.lessons.presenter = presenter;
                        ctx.set_zoom_factor(if presenter { 1.4 } else { 1.0 });
                    }
                });
                let current = self.lessons.current;
                egui::ComboBox::from_label("lesson")
                    .selected_text(
                        current
                            .and_then(|i| self.lessons.list.get(i))
                            .map_or("choose a lesson".to_string(), |e| e.preset.title.clone()),
                    )
                    .height(500.0)
                    .show_ui(ui, |ui| {
                        for (i, e) in self.lessons.list.iter().enumerate() {
                            if ui
                                .selectable_label(current == Some(i), &e.preset.title)
                                .on_hover_text(&e.preset.description)
                                .clicked()
                            {
                                start = Some(i);
                            }
                        }
                    });
                let Some(entry) = current.and_then(|i| self.lessons.list.get(i)) else {
                    ui.label(
                        "Pick a lesson: it starts its scenario live and walks you through it.",
                    );
                    return;
                };
                let Some(lesson) = entry.preset.lesson.as_ref() else {
                    return;
                };
                ui.label(&entry.preset.description);
                ui.label(RichText::new(format!("Watch: {}", lesson.watch)).italics());
                ui.separator();
                let n = lesson.steps.len();
                let k = self.lessons.step.min(n.saturating_sub(1));
                ui.label(RichText::new(format!("Step {} of {n}", k + 1)).strong());
                if let Some(step) = lesson.steps.get(k) {
                    ui.label(&step.say);
                    if let Some(look) = &step.look_at {
                        ui.colored_label(
                            Color32::from_rgb(240, 200, 80),
                            format!("Look at: {look}"),
                        );
                    }
                    let asked = step.question.is_some();
                    if let Some(q) = &step.question {
                        ui.label(RichText::new(q).strong());
                        for (i, c) in step.choices.iter().enumerate() {
                            ui.radio_value(&mut self.lessons.choice, Some(i), c);
                        }
                        if !self.lessons.revealed
                            && ui
                                .add_enabled(
                                    self.lessons.choice.is_some(),
                                    egui::Button::new("Answer"),
                                )
                                .clicked()
                        {
                            self.lessons.revealed = true;
                        }
                        if self.lessons.revealed {
                            let right = self.lessons.choice == step.answer;
                            ui.colored_label(
                                if right {
                                    Color32::from_rgb(80, 200, 110)
                                } else {
                                    Color32::from_rgb(230, 120, 80)
                                },
                                if right { "Right." } else { "Not quite." },
                            );
                        }
                    }
                    let show_reveal = if asked {
                        self.lessons.revealed
                    } else {
                        step.set.is_empty() || self.lessons.done
                    };
                    if show_reveal && !step.reveal.is_empty() {
                        ui.label(&step.reveal);
                    }
                    if !step.set.is_empty() {
                        let ready = !asked || self.lessons.revealed;
                        if ui
                            .add_enabled(ready && !self.lessons.done, egui::Button::new("Do it"))
                            .on_hover_text(step.set.join(", "))
                            .clicked()
                        {
                            sets = Some(step.set.clone());
                        }
                        if self.lessons.done {
                            ui.weak(format!("Done: {}", step.set.join(", ")));
                        }
                    }
                }
                ui.horizontal(|ui| {
                    if ui
                        .add_enabled(k > 0, egui::Button::new("Previous step"))
                        .clicked()
                    {
                        step_to = Some(k - 1);
                    }
                    if ui
                        .add_enabled(k + 1 < n, egui::Button::new("Next step"))
                        .clicked()
                    {
                        step_to = Some(k + 1);
                    }
                });
                if k + 1 == n {
                    ui.separator();
                    ui.label(RichText::new(format!(
                        "What you should have seen: {}",
                        lesson.expect
                    )));
                    if !lesson.fix.is_empty() {
                        ui.label(format!("The fix: {}", lesson.fix));
                    }
                    if let Some(f) = &lesson.fixed
                        && ui
                            .button("Open the paired variant")
                            .on_hover_text(f.as_str())
                            .clicked()
                    {
                        fixed = Some(PathBuf::from(f));
                    }
                }
            });
        self.lessons.open = open;
        if let Some(i) = start {
            self.start_lesson(i);
        }
        if let Some(s) = sets {
            self.apply_sets(&s);
            self.lessons.done = true;
        }
        if let Some(k) = step_to {
            self.lessons.step = k;
            self.reset_step();
            self.show_focus();
        }
        if let Some(path) = fixed
            && self.start_preset_file(&path)
        {
            self.status = format!("started {}", path.display());
        }
    }
}
