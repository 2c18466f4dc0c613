//! The lessons panel drawn: its header (presenter mode, restart, the lesson), the step (its
//! text, question, reveal and "Do it"), the conclusion, and what the learner asked for,
//! applied once the panel is drawn. Each piece decides one part of the panel.

use eframe::egui;
use egui::{Color32, RichText};

use super::{
    FIGURE_WINDOW_S, LessonsWindow, ORIGIN, fit_text, in_words, lesson_key, lesson_quotes_figures,
    not_borne_out, pointers, show_answered, still_to_do, verdict_colors,
};
use crate::app::action::{Action, Feedback};
use crate::session::figures;
use crate::session::lesson::{LessonStates, TextId};
use crate::session::preset::{Lesson, Preset};
use crate::session::store::Store;

/// What the learner asked for while the panel was drawn.
#[derive(Default)]
struct Asked {
    close: bool,
    start: Option<usize>,
    sets: Option<Vec<String>>,
    step_to: Option<usize>,
    fixed: Option<String>,
    answered: bool,
    doctor: bool,
    restart: Option<Action>,
}

/// A lesson's texts with their figures, each in the state it speaks of.
struct Texts<'a> {
    states: &'a mut LessonStates,
    store: &'a Store,
    now: f64,
    /// The current state's window (`None` while it is not yet whole).
    window: Option<(f64, f64)>,
}

impl Texts<'_> {
    /// A text with its figures, and how each of its claims reads where the session does not
    /// bear it out.
    fn said(&mut self, id: TextId, text: &str, claims: &[String]) -> (String, Vec<String>) {
        (
            self.states.fill(id, text, self.store, self.now),
            self.states.refuted(id, claims, self.store, self.now),
        )
    }

    /// A text about the running scenario (its description, what to watch): the current
    /// state's figures ("…" before a whole window of it is measured).
    fn now(&self, text: &str) -> String {
        match self.window {
            Some((a, b)) => figures::fill(text, self.store, a, b),
            None => figures::fill(text, &Store::new(None), 0.0, 0.0),
        }
    }
}

impl LessonsWindow {
    /// The panel (docked at the right of `root`) over the session's settings (`preset`);
    /// returns what the learner asked for.
    /// Figures quoted in the texts (`{rtt_ms}`) are the store's over the last
    /// [`FIGURE_WINDOW_S`] before `now`.
    pub fn ui(
        &mut self,
        root: &mut egui::Ui,
        preset: &Preset,
        feedback: &Feedback,
        store: &Store,
        now: f64,
    ) -> Vec<Action> {
        // A change that restarted the session: its data begins again at 0, before the time
        // the change was made (a cursor moved back keeps the data after it).
        if store.latest() + 1e-9 < self.states.since {
            self.states.restarted();
        }
        pointers::set_pointed(root.ctx(), self.pointed());
        if !self.open {
            return Vec::new();
        }
        if self.list.is_empty() {
            self.list = super::shipped_lessons();
        }
        let mut states = std::mem::take(&mut self.states);
        let window = super::figure_window(now, states.since);
        let mut texts = Texts {
            states: &mut states,
            store,
            now,
            window,
        };
        let mut asked = Asked::default();
        egui::Panel::right("lessons")
            .resizable(true)
            .default_size(330.0)
            .min_size(260.0)
            .show(root, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    self.panel(ui, preset, feedback, &mut texts, &mut asked);
                });
            });
        self.states = states;
        self.act(asked, preset, store, now)
    }

    /// The panel's contents, top to bottom.
    fn panel(
        &mut self,
        ui: &mut egui::Ui,
        preset: &Preset,
        feedback: &Feedback,
        texts: &mut Texts<'_>,
        asked: &mut Asked,
    ) {
        self.header(ui, preset, asked);
        let Some(entry) = self.current.and_then(|i| self.list.get(i)).cloned() else {
            ui.label("Pick a lesson: it starts its scenario live and walks you through it.");
            return;
        };
        let Some(lesson) = entry.preset.lesson.as_ref() else {
            return;
        };
        let n = lesson.steps.len();
        let k = self.step.min(n.saturating_sub(1));
        // The scenario's description tells what happens: it waits until the first question
        // is answered.
        let first_asks = lesson.steps.first().is_some_and(|st| st.question.is_some());
        let started = !first_asks || k > 0 || self.revealed;
        if started {
            ui.label(pointers::in_words(&texts.now(&entry.preset.description)));
            let watch = pointers::in_words(&texts.now(&lesson.watch));
            ui.label(RichText::new(format!("Watch: {watch}")).italics());
        }
        ui.separator();
        step_bar(ui, k, n, asked);
        self.step_texts(ui, (&entry, k), feedback, texts, asked);
        if lesson_quotes_figures(lesson) {
            ui.weak(format!("Numbers in this lesson are measured in the running session over the last {FIGURE_WINDOW_S:.0} s, shaded green on the plots (… while they are being measured). Once a change ends a state, its texts keep the figures of its last {FIGURE_WINDOW_S:.0} s."));
        }
        self.conclusion(ui, lesson, k, texts, asked);
        if started && doctor_button(ui) {
            asked.doctor = true;
        }
    }

    /// The panel's heading, presenter mode and restart, and the lesson's list.
    fn header(&mut self, ui: &mut egui::Ui, preset: &Preset, asked: &mut Asked) {
        ui.horizontal(|ui| {
            ui.heading("Lesson");
            if ui
                .small_button("close")
                .on_hover_text("Close the lessons panel (the session goes on).")
                .clicked()
            {
                asked.close = true;
            }
        });
        ui.horizontal(|ui| {
            ui.checkbox(&mut self.presenter, "presenter mode")
                .on_hover_text("For a projector: larger text, the world view large, and only the plots this lesson names (full width); the Controls pane is hidden.");
            if let Some(e) = self.current.and_then(|i| self.list.get(i)) {
                let r = ui
                    .small_button("restart")
                    .on_hover_text("Start this scenario again from 0 s, with the changes made so far; the lesson stays at this step.");
                pointers::mark(ui, "lessons.restart", &r);
                if r.clicked() {
                    asked.restart = Some(Action::Start {
                        preset: Box::new(preset.clone()),
                        name: e.name.clone(),
                    });
                }
            }
        });
        self.lesson_list(ui, asked);
    }

    /// The lesson drop-down: the running lesson's title (cut to leave the label its room; the
    /// list shows it whole), every lesson to pick.
    fn lesson_list(&self, ui: &mut egui::Ui, asked: &mut Asked) {
        let current = self.current;
        let title = current
            .and_then(|i| self.list.get(i))
            .map_or("choose a lesson".to_string(), |e| e.preset.title.clone());
        let room = ui.available_width() - 90.0;
        egui::ComboBox::from_label("lesson")
            .selected_text(fit_text(ui, &title, room))
            .height(500.0)
            .show_ui(ui, |ui| {
                for (i, e) in self.list.iter().enumerate() {
                    if ui
                        .selectable_label(current == Some(i), &e.preset.title)
                        .on_hover_text(&e.preset.description)
                        .clicked()
                    {
                        asked.start = Some(i);
                    }
                }
            })
            .response
            .on_hover_text(&title);
    }

    /// Step `k` of the lesson of `entry`: what it says and points at, its question (answered:
    /// every choice with its reason), its reveal and its change.
    fn step_texts(
        &mut self,
        ui: &mut egui::Ui,
        (entry, k): (&super::LessonEntry, usize),
        feedback: &Feedback,
        texts: &mut Texts<'_>,
        asked: &mut Asked,
    ) {
        let Some(step) = entry.preset.lesson.as_ref().and_then(|l| l.steps.get(k)) else {
            return;
        };
        ui.label(pointers::in_words(
            &texts.said(TextId::Say(k), &step.say, &[]).0,
        ));
        if let Some(look) = &step.look_at {
            ui.colored_label(
                crate::app::palette_look(ui.visuals().dark_mode),
                format!("Look at: {look}"),
            );
        }
        let asks = step.question.is_some();
        if asks {
            let order = step.choice_order(entry.preset.seed, &lesson_key(&entry.name), k);
            self.question(ui, step, &order, asked);
        }
        let show_reveal = if asks {
            self.revealed
        } else {
            step.set.is_empty() || self.done
        };
        if show_reveal && !step.reveal.is_empty() {
            let (said, not_so) = texts.said(TextId::Reveal(k), &step.reveal, &step.claims);
            ui.label(pointers::in_words(&said));
            not_borne_out(ui, &not_so);
        }
        if !step.set.is_empty() {
            self.do_it(ui, step, !asks || self.revealed, feedback, asked);
        }
    }

    /// The step's question: its choices (once answered, each marked with its reason), the
    /// Answer button, and right or not.
    fn question(
        &mut self,
        ui: &mut egui::Ui,
        step: &crate::session::lesson::LessonStep,
        order: &[usize],
        asked: &mut Asked,
    ) {
        if let Some(q) = &step.question {
            ui.label(RichText::new(q).strong());
        }
        if self.revealed {
            // Answered: the choices stay readable in both themes, the answer and the
            // learner's choice marked, each with its reason.
            show_answered(ui, step, order, self.choice);
        } else {
            for &i in order {
                ui.radio_value(&mut self.choice, Some(i), &step.choices[i]);
            }
        }
        if self.held && !self.revealed {
            ui.weak("The session waits for your answer: then watch it run.");
        }
        if !self.revealed
            && ui
                .add_enabled(self.choice.is_some(), egui::Button::new("Answer"))
                .clicked()
        {
            self.revealed = true;
            asked.answered = true;
        }
        if self.revealed {
            let right = self.choice == step.answer;
            let (good, bad) = verdict_colors(ui.visuals().dark_mode);
            ui.colored_label(
                if right { good } else { bad },
                RichText::new(if right { "Right." } else { "Not quite." }).strong(),
            );
        }
    }

    /// The step's change: "Do it" (once the question, if any, is answered), what it did in
    /// words, and why it could not be made.
    fn do_it(
        &self,
        ui: &mut egui::Ui,
        step: &crate::session::lesson::LessonStep,
        ready: bool,
        feedback: &Feedback,
        asked: &mut Asked,
    ) {
        if ui
            .add_enabled(ready && !self.done, egui::Button::new("Do it"))
            .on_hover_text(step.set.join(", "))
            .clicked()
        {
            asked.sets = Some(step.set.clone());
        }
        if self.done {
            let said: Vec<String> = step.set.iter().map(|kv| in_words(kv)).collect();
            ui.weak(format!("Done: {}", said.join("; ")));
            feedback.show(ui, ORIGIN);
        }
        if let Some(e) = &self.error {
            ui.colored_label(Color32::from_rgb(230, 80, 80), e);
        }
    }

    /// "What you should have seen" and the fix, once the last step is answered and done (what
    /// it still asks before then).
    fn conclusion(
        &self,
        ui: &mut egui::Ui,
        lesson: &Lesson,
        k: usize,
        texts: &mut Texts<'_>,
        asked: &mut Asked,
    ) {
        if k + 1 != lesson.steps.len() {
            return;
        }
        let last_done = lesson.steps.get(k).is_none_or(|st| {
            (st.question.is_none() || self.revealed) && (st.set.is_empty() || self.done)
        });
        if !last_done {
            ui.weak(still_to_do(lesson.steps.get(k)));
            return;
        }
        ui.separator();
        let (said, not_so) = texts.said(TextId::Expect, &lesson.expect, &lesson.claims);
        ui.label(format!(
            "What you should have seen: {}",
            pointers::in_words(&said)
        ));
        not_borne_out(ui, &not_so);
        if !lesson.fix.is_empty() {
            let fix = texts.said(TextId::Fix, &lesson.fix, &[]).0;
            ui.label(format!("The fix: {}", pointers::in_words(&fix)));
        }
        if let Some(f) = &lesson.fixed
            && ui
                .button("Open the paired variant")
                .on_hover_text(f.as_str())
                .clicked()
        {
            asked.fixed = Some(f.clone());
        }
    }

    /// What the learner asked for, made: the actions for the app, and the panel's own state
    /// (the lesson, the step, a change made).
    fn act(&mut self, asked: Asked, preset: &Preset, store: &Store, now: f64) -> Vec<Action> {
        let mut actions = Vec::new();
        self.open = !asked.close;
        actions.extend(asked.restart);
        if asked.doctor {
            actions.push(Action::Examine);
        }
        if asked.answered && self.held {
            // The evidence, now that the learner has predicted it.
            self.held = false;
            actions.push(Action::Hold(false));
            actions.push(Action::Time(
                crate::session::timeline::TimeCommand::FollowLive,
            ));
        }
        if let Some(i) = asked.start {
            // A first question is asked before the scenario shows its answer.
            actions.extend(self.start(i));
        }
        if let Some(s) = asked.sets {
            actions.extend(self.make_change(preset, &s, store, now));
        }
        if let Some(k) = asked.step_to {
            self.step = k;
            self.reset_step();
            actions.extend(self.show_focus());
        }
        if let Some(name) = asked.fixed {
            actions.push(Action::StartNamed(name));
        }
        actions
    }

    /// `--walk`: once every `every` seconds of session, the learner's next move through the
    /// running lesson — the question answered with the right choice, then "Do it", then the
    /// next step — until its conclusion shows (for slides and scripted screenshots). A
    /// session restarted by a change counts from its new start.
    pub fn walk(&mut self, every: f64, preset: &Preset, store: &Store, now: f64) -> Vec<Action> {
        let last = self.walked_at.get_or_insert(now);
        if now < *last {
            *last = now;
        }
        // A session held for a question does not run: its answer comes at once.
        if now - *last < every && !self.held {
            return Vec::new();
        }
        *last = now;
        self.walk_once(preset, store, now)
    }

    /// The learner's next move through the running lesson (nothing once it is over).
    fn walk_once(&mut self, preset: &Preset, store: &Store, now: f64) -> Vec<Action> {
        let Some(lesson) = self
            .current
            .and_then(|i| self.list.get(i))
            .and_then(|e| e.preset.lesson.clone())
        else {
            return Vec::new();
        };
        let Some(step) = lesson.steps.get(self.step) else {
            return Vec::new();
        };
        if step.question.is_some() && !self.revealed {
            self.choice = step.answer;
            self.revealed = true;
            let asked = Asked {
                answered: true,
                ..Asked::default()
            };
            return self.act(asked, preset, store, now);
        }
        if !step.set.is_empty() && !self.done {
            return self.make_change(preset, &step.set, store, now);
        }
        if self.step + 1 < lesson.steps.len() {
            self.step += 1;
            self.reset_step();
            return self.show_focus();
        }
        Vec::new()
    }

    /// "Do it": the step's changes as one change of the session, which then runs live so the
    /// change's effect shows; a change that cannot be made is said under the button.
    fn make_change(
        &mut self,
        preset: &Preset,
        sets: &[String],
        store: &Store,
        now: f64,
    ) -> Vec<Action> {
        match self.apply_sets(preset, sets) {
            Ok(a) => {
                self.done = true;
                self.states.change(store, now);
                self.error = None;
                self.held = false;
                vec![
                    a,
                    Action::Hold(false),
                    Action::Time(crate::session::timeline::TimeCommand::FollowLive),
                ]
            }
            Err(e) => {
                self.error = Some(e);
                Vec::new()
            }
        }
    }
}

/// "Step k of n" with the way on, at the step's top: a long step (reasons, reveal) never
/// pushes them below the panel's visible part.
fn step_bar(ui: &mut egui::Ui, k: usize, n: usize, asked: &mut Asked) {
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(format!("Step {} of {n}", k + 1)).strong());
        if ui
            .add_enabled(k > 0, egui::Button::new("Previous step"))
            .clicked()
        {
            asked.step_to = Some(k - 1);
        }
        if ui
            .add_enabled(k + 1 < n, egui::Button::new("Next step"))
            .clicked()
        {
            asked.step_to = Some(k + 1);
        }
    });
}

/// "Ask the doctor": the desync doctor on what the scenario did so far.
fn doctor_button(ui: &mut egui::Ui) -> bool {
    let r = ui
        .button("Ask the doctor")
        .on_hover_text("The desync doctor on the last 30 s of this scenario: the corrections, their most likely cause and the evidence.");
    pointers::mark(ui, "lessons.doctor", &r);
    r.clicked()
}
