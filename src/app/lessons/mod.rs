//! The lessons panel, docked at the window's right beside the plots: pick a lesson (a shipped
//! scenario with lesson material), it starts live, and the learner walks through its steps —
//! what to look at (the plot or pane is highlighted), a question to answer before the evidence
//! is shown ("predict, then reveal": a lesson whose first step asks starts paused, and runs
//! once answered), and the change itself ("Do it" returns to live so its effect shows). What
//! the learner should have seen and the fix appear only once the last step is answered and
//! done. Presenter mode is a projector layout: larger text, the world view large, and only
//! the plots the lesson names, full width.

use eframe::egui;
use egui::{Color32, RichText};

use super::action::Action;
use crate::session::figures;
use crate::session::preset::Preset;
use crate::session::store::Store;

/// Presenter mode's text size (at 1280×800 the window is then 1024×640 points).
pub const PRESENTER_ZOOM: f32 = 1.25;

/// Where a lesson's outcomes are shown.
pub const ORIGIN: &str = "lessons";

/// Seconds before the cursor over which quoted figures are measured.
pub use crate::session::lesson::{FIGURE_WINDOW_S, figure_window};
use crate::session::lesson::{LessonStates, TextId};

mod list;
mod panel;
pub mod pointers;
#[cfg(test)]
use list::lessons_with_local;
pub use list::{LessonEntry, lesson_key, lessons_for, shipped_lessons};

/// The lessons window: where the learner is in a lesson.
#[derive(Clone, Debug, Default)]
pub struct LessonsWindow {
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
    /// Why the step's change could not be made.
    error: Option<String>,
    /// The session was paused so a question is asked before its evidence appears.
    pub held: bool,
    /// The states the lesson went through (its start, then each change): a text's figures
    /// are those of the state it speaks of, quoted once a whole [`FIGURE_WINDOW_S`] of that
    /// state is measured ("…" before).
    pub states: LessonStates,
    /// `--walk`: the session time of the walk's last move.
    walked_at: Option<f64>,
}

/// Whether a lesson's texts quote measured figures.
fn lesson_quotes_figures(l: &crate::session::preset::Lesson) -> bool {
    let quotes = |t: &str| {
        crate::support::delimited::tokens(t, "{", "}").any(|q| figures::quote(q).is_some())
    };
    quotes(&l.expect) || l.steps.iter().any(|s| quotes(&s.say) || quotes(&s.reveal))
}

impl LessonsWindow {
    /// Opens the panel on the lesson named `name` and starts it (from the doctor's causes).
    pub fn start_named(&mut self, name: &str) -> Vec<Action> {
        self.open = true;
        if self.list.is_empty() {
            self.list = shipped_lessons();
        }
        match self
            .list
            .iter()
            .position(|e| lesson_key(&e.name) == lesson_key(name))
        {
            Some(i) => self.start(i),
            None => Vec::new(),
        }
    }

    /// Starts lesson `i` of the list at its first step; a first question holds the session.
    fn start(&mut self, i: usize) -> Vec<Action> {
        let mut actions = Vec::new();
        let Some(e) = self.list.get(i).cloned() else {
            return actions;
        };
        self.current = Some(i);
        self.step = 0;
        self.states = LessonStates::default();
        self.reset_step();
        // Each lesson starts from the view it was written for; the app gives the learner's
        // own back when the lesson ends.
        actions.push(Action::LessonView);
        let asks_first = e
            .preset
            .lesson
            .as_ref()
            .and_then(|l| l.steps.first())
            .is_some_and(|st| st.question.is_some());
        actions.push(Action::Start {
            preset: Box::new(e.preset),
            name: e.name,
        });
        if asks_first {
            self.held = true;
            actions.push(Action::Hold(true));
        }
        actions.extend(self.show_focus());
        actions
    }

    /// Answers the current step's question with the choice shown in place `k` (1 for the
    /// first), as a learner clicking it would (`--answer K`).
    pub fn choose_shown(&mut self, k: usize) {
        let Some(e) = self.current.and_then(|i| self.list.get(i)) else {
            return;
        };
        let Some(step) = e
            .preset
            .lesson
            .as_ref()
            .and_then(|l| l.steps.get(self.step))
        else {
            return;
        };
        let order = step.choice_order(e.preset.seed, &lesson_key(&e.name), self.step);
        self.choice = order.get(k.saturating_sub(1)).copied();
    }

    /// The session was replaced by `name`: unless that is the running lesson's own scenario
    /// or its paired variant ("Open the paired variant"), the lesson ends (its step, question
    /// and "look here" pointer go).
    pub fn session_replaced(&mut self, name: &str) {
        let key = lesson_key(name);
        let ours = self
            .current
            .and_then(|i| self.list.get(i))
            .is_some_and(|e| {
                lesson_key(&e.name) == key
                    || e.preset
                        .lesson
                        .as_ref()
                        .and_then(|l| l.fixed.as_deref())
                        .is_some_and(|f| lesson_key(f) == key)
            });
        if !ours {
            self.current = None;
            self.step = 0;
            self.held = false;
            self.reset_step();
        }
    }

    /// A lesson's question is open and not yet answered (the pitfall switches, which would
    /// give the answer away, are hidden meanwhile).
    pub fn asking(&self) -> bool {
        self.open
            && !self.revealed
            && self
                .current
                .and_then(|i| self.list.get(i))
                .and_then(|e| e.preset.lesson.as_ref())
                .and_then(|l| l.steps.get(self.step))
                .is_some_and(|st| st.question.is_some())
    }

    /// The controls the texts on screen point at (`[[id]]`): the lesson's watch line and the
    /// current step's text, its reveal once shown.
    fn pointed(&self) -> Vec<String> {
        let Some(lesson) = self
            .current
            .filter(|_| self.open)
            .and_then(|i| self.list.get(i))
            .and_then(|e| e.preset.lesson.as_ref())
        else {
            return Vec::new();
        };
        let step = lesson.steps.get(self.step);
        let reveal = step
            .filter(|_| self.revealed || self.done)
            .map(|st| st.reveal.as_str());
        std::iter::once(lesson.watch.as_str())
            .chain(step.map(|st| st.say.as_str()))
            .chain(reveal)
            .flat_map(pointers::named)
            .map(str::to_string)
            .collect()
    }

    /// The plot title the current lesson step points at, if any.
    pub fn focus(&self) -> Option<String> {
        let entry = self.list.get(self.current?)?;
        let step = entry.preset.lesson.as_ref()?.steps.get(self.step)?;
        step.look_at.clone()
    }

    /// The plots presenter mode shows: the step's plot, then every plot the lesson's "watch"
    /// names, in that order (at most three); the correction plots when it names none.
    pub fn presenter_plots(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        let plots = &super::plots::PLOTS;
        if let Some(f) = self.focus()
            && let Some(p) = plots.iter().find(|p| p.title == f)
        {
            out.push(p.title);
        }
        if let Some(watch) = self
            .current
            .and_then(|i| self.list.get(i))
            .and_then(|e| e.preset.lesson.as_ref())
            .map(|l| l.watch.to_lowercase())
        {
            let mut named: Vec<(usize, &'static str)> = plots
                .iter()
                .filter_map(|p| {
                    let title = p.title.to_lowercase();
                    // "Corrections: replay depth and error / tolerance" names both.
                    let short = title.split(": ").last().unwrap_or(&title).to_string();
                    watch
                        .find(&title)
                        .or_else(|| watch.find(&short))
                        .map(|at| (at, p.title))
                })
                .collect();
            named.sort();
            for (_, t) in named {
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
        if out.is_empty() {
            out = vec![
                "Corrections: replay depth",
                "Corrections: error / tolerance",
            ];
        }
        out.truncate(3);
        out
    }

    /// The actions that make the step's plot visible.
    fn show_focus(&self) -> Vec<Action> {
        self.focus().map(Action::ShowPlot).into_iter().collect()
    }

    fn reset_step(&mut self) {
        self.choice = None;
        self.revealed = false;
        self.done = false;
    }

    /// The learner changed a setting themselves while a lesson runs (a step asks them to drag
    /// a slider, or they try something): the lesson's texts keep the figures of the state
    /// before it ([`LessonStates::learner_changed`]), so a claim is never refuted by the
    /// learner doing what a step asks.
    pub fn learner_changed(&mut self, store: &Store, now: f64) {
        if self.current.is_some() {
            self.states.learner_changed(store, now);
        }
    }

    /// The window the current step's figures come from (shaded on the plots), when the
    /// running lesson quotes figures and its step's state has measured one.
    pub fn figures_window(&self, now: f64) -> Option<(f64, f64)> {
        let lesson = self.list.get(self.current?)?.preset.lesson.as_ref()?;
        if !self.open || !lesson_quotes_figures(lesson) {
            return None;
        }
        let k = self
            .states
            .state_of(TextId::Reveal(self.step))
            .or_else(|| self.states.state_of(TextId::Say(self.step)))
            .unwrap_or(self.states.current());
        self.states.window_of(k, now)
    }

    /// `key=value` changes applied to the running session's settings (`preset`): one
    /// `ChangeTo`, so the session decides what changes live and what needs a restart
    /// ([`crate::net::live::LiveSession::change_to`]).
    fn apply_sets(&mut self, preset: &Preset, sets: &[String]) -> Result<Action, String> {
        let mut p = preset.clone();
        for kv in sets {
            p.set(kv).map_err(|e| e.to_string())?;
        }
        Ok(Action::ChangeTo {
            origin: ORIGIN,
            preset: Box::new(p),
        })
    }
}

/// What the last step still asks before the conclusion shows: only what it has (a question,
/// a change, or both).
fn still_to_do(step: Option<&crate::session::lesson::LessonStep>) -> &'static str {
    let asks = step.is_some_and(|st| st.question.is_some());
    let sets = step.is_some_and(|st| !st.set.is_empty());
    match (asks, sets) {
        (true, true) => "Answer, then press Do it, to see what you should have seen, and the fix.",
        (true, false) => "Answer the question to see what you should have seen, and the fix.",
        _ => "Press Do it to see what you should have seen, and the fix.",
    }
}

/// A lesson's `key=value` in words first, the identifier second: a pitfall switch by its
/// title ("“One-shot without a seal” switched off (faults.no_seal_after_one_shot=false)").
fn in_words(kv: &str) -> String {
    use crate::model::settings::Faults;
    let switch = kv.strip_prefix("faults.").and_then(|rest| {
        let (key, value) = rest.split_once('=')?;
        let i = Faults::EXPLAINED.iter().position(|(k, _)| *k == key)?;
        let on = match value.trim() {
            "true" => "on",
            "false" => "off",
            _ => return None,
        };
        Some(format!("“{}” switched {on}", Faults::TITLES[i]))
    });
    match switch {
        Some(words) => format!("{words} ({kv})"),
        None => kv.to_string(),
    }
}

/// `text` cut (with "…") to at most `width` points in the body font.
/// What the text above claims and this session does not bear out (a setting changed since
/// the scenario started, or a scenario that behaves otherwise): said under the text, so a
/// lesson never leaves a learner with a claim the plots contradict.
fn not_borne_out(ui: &mut egui::Ui, not_so: &[String]) {
    let (_, bad) = verdict_colors(ui.visuals().dark_mode);
    for said in not_so {
        ui.colored_label(bad, format!("Not so in this session: {said}."))
            .on_hover_text("The lesson's claim is checked against the figures this session measured in the state the text speaks of. A setting changed since the scenario started can make a claim untrue here.");
    }
}

fn fit_text(ui: &egui::Ui, text: &str, width: f32) -> String {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let painter = ui.painter();
    let wide = |t: String| {
        painter
            .layout_no_wrap(t, font.clone(), egui::Color32::WHITE)
            .size()
            .x
    };
    if wide(text.to_string()) <= width {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut n = chars.len();
    while n > 1 {
        n -= 1;
        let cut: String = chars[..n].iter().collect::<String>().trim_end().to_string() + "…";
        if wide(cut.clone()) <= width {
            return cut;
        }
    }
    "…".to_string()
}

/// The colours of a right and a wrong answer, readable on this theme's panel.
fn verdict_colors(dark: bool) -> (Color32, Color32) {
    if dark {
        (
            Color32::from_rgb(80, 200, 110),
            Color32::from_rgb(235, 130, 90),
        )
    } else {
        (
            Color32::from_rgb(20, 115, 45),
            Color32::from_rgb(175, 60, 20),
        )
    }
}

/// An answered question's choices in the order shown: the right one and the learner's marked
/// in words and colour, the others in the panel's ordinary text colour (never faded: a
/// disabled radio button is nearly invisible on the light theme); under each, its reason.
fn show_answered(
    ui: &mut egui::Ui,
    step: &crate::session::lesson::LessonStep,
    order: &[usize],
    chosen: Option<usize>,
) {
    let (good, bad) = verdict_colors(ui.visuals().dark_mode);
    for &i in order {
        let Some(c) = step.choices.get(i) else {
            continue;
        };
        let (mark, colour) = match (Some(i) == step.answer, Some(i) == chosen) {
            (true, true) => ("  (your choice, right)", Some(good)),
            (true, false) => ("  (right)", Some(good)),
            (false, true) => ("  (your choice)", Some(bad)),
            (false, false) => ("", None),
        };
        let mut text = RichText::new(format!("{c}{mark}"));
        if Some(i) == chosen {
            text = text.strong();
        }
        match colour {
            Some(col) => ui.colored_label(col, text),
            None => ui.label(text),
        };
        if let Some(why) = step.why.get(i) {
            ui.indent(("why", i), |ui| ui.weak(why));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_step_asks_only_for_what_it_has() {
        use crate::session::lesson::LessonStep;
        let ask = LessonStep {
            question: Some("?".into()),
            ..Default::default()
        };
        let set = LessonStep {
            set: vec!["link.latency_ms=90".into()],
            ..Default::default()
        };
        let both = LessonStep {
            set: set.set.clone(),
            ..ask.clone()
        };
        assert!(!still_to_do(Some(&ask)).contains("Do it"));
        assert!(still_to_do(Some(&ask)).starts_with("Answer"));
        assert!(!still_to_do(Some(&set)).contains("Answer"));
        assert!(
            still_to_do(Some(&both)).contains("Answer")
                && still_to_do(Some(&both)).contains("Do it")
        );
    }

    #[test]
    fn a_done_step_says_its_switch_in_words_first() {
        assert_eq!(
            in_words("faults.no_seal_after_one_shot=false"),
            "“One-shot without a seal” switched off (faults.no_seal_after_one_shot=false)"
        );
        assert_eq!(in_words("link.latency_ms=200"), "link.latency_ms=200");
    }

    #[test]
    fn the_lessons_are_there_without_a_presets_folder() {
        let none = lessons_with_local(std::path::Path::new("/nonexistent/movescope/presets"));
        // Every pitfall and network lesson, from the binary alone.
        assert!(none.len() >= 15, "{}", none.len());
        assert!(none.iter().any(|e| e.name == "pitfall-01-unbound-member"));
        let orders: Vec<u32> = none
            .iter()
            .map(|e| e.preset.lesson.as_ref().unwrap().order)
            .collect();
        assert!(orders.windows(2).all(|w| w[0] <= w[1]), "in lesson order");
        // The repository's own folder adds nothing: its files are the shipped ones.
        let repo =
            lessons_with_local(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("presets"));
        assert_eq!(repo.len(), none.len());
    }

    #[test]
    fn every_look_at_target_exists() {
        // A plot's title, or a pane the layout highlights.
        let panes = ["world view", "event log"];
        for e in shipped_lessons() {
            for (i, step) in e.preset.lesson.as_ref().unwrap().steps.iter().enumerate() {
                if let Some(look) = &step.look_at {
                    assert!(
                        super::super::plots::PLOTS.iter().any(|p| p.title == look)
                            || panes.iter().any(|p| p.eq_ignore_ascii_case(look)),
                        "{} step {}: no plot or pane `{look}`",
                        e.name,
                        i + 1
                    );
                }
            }
        }
        for p in panes {
            assert!(
                [
                    super::super::layout::Pane::World,
                    super::super::layout::Pane::Log
                ]
                .iter()
                .any(|pane| pane.title().eq_ignore_ascii_case(p))
            );
        }
    }

    #[test]
    fn every_cause_with_a_pitfall_links_to_its_lessons() {
        use crate::analysis::doctor::Cause;
        let names = |c: Cause| -> Vec<String> {
            lessons_for(c)
                .into_iter()
                .map(|e| lesson_key(&e.name))
                .collect()
        };
        assert!(names(Cause::UnboundMember).contains(&"pitfall-01-unbound-member".to_string()));
        let nondet = names(Cause::NonDeterministicTick);
        for l in [
            "pitfall-02a-wall-clock-in-tick",
            "pitfall-02c-frame-delta-in-tick",
            "pitfall-02d-unseeded-random-in-tick",
        ] {
            assert!(nondet.contains(&l.to_string()), "{nondet:?}");
        }
        assert!(
            names(Cause::ClockDomains).contains(&"pitfall-06-no-world-time-replicator".to_string())
        );
        // Fixed variants are not lessons of the pitfall.
        assert!(nondet.iter().all(|n| !n.ends_with("-fixed")), "{nondet:?}");
        for c in [
            Cause::BindingMismatch,
            Cause::UnboundMember,
            Cause::InputPulseLost,
            Cause::OneShotReRaised,
            Cause::ClockDomains,
            Cause::ReadsDisplayedPawns,
            Cause::NonDeterministicTick,
            Cause::BeforeFirstServerUpdate,
            Cause::WrittenOutsideMove,
        ] {
            assert!(!lessons_for(c).is_empty(), "no lesson shows {c:?}");
        }
    }

    #[test]
    fn a_figure_waits_for_a_whole_window_of_its_state() {
        assert_eq!(
            figure_window(4.0, 0.0),
            None,
            "half a window after the start"
        );
        assert_eq!(figure_window(10.0, 0.0), Some((0.0, 10.0)));
        assert_eq!(
            figure_window(25.0, 20.0),
            None,
            "five seconds after a change"
        );
        assert_eq!(figure_window(31.0, 20.0), Some((21.0, 31.0)));
        assert_eq!(
            figure_window(15.0, 20.0),
            None,
            "the cursor moved back before it"
        );
    }

    #[test]
    fn another_session_ends_the_lesson_its_own_scenario_does_not() {
        let mut w = LessonsWindow {
            list: shipped_lessons(),
            ..Default::default()
        };
        w.start_named("pitfall-04-dash-always-combine");
        let own = w.list[w.current.expect("started")].name.clone();
        assert!(w.focus().is_some());
        w.session_replaced(&own);
        assert!(w.current.is_some(), "the lesson's own scenario keeps it");
        w.session_replaced("Your layout: UTraversalMovement");
        assert!(w.current.is_none() && w.focus().is_none() && !w.asking());
    }

    #[test]
    fn presenter_mode_shows_the_plots_a_lesson_names() {
        let mut w = LessonsWindow {
            list: shipped_lessons(),
            ..Default::default()
        };
        w.current = w
            .list
            .iter()
            .position(|e| e.name == "pitfall-01-unbound-member");
        // The step's plot first, then those the lesson's "watch" names; at most three.
        assert_eq!(
            w.presenter_plots(),
            vec![
                "Corrections: replay depth",
                "Corrections: error / tolerance"
            ]
        );
        for e in 0..w.list.len() {
            w.current = Some(e);
            w.step = 0;
            let p = w.presenter_plots();
            assert!(!p.is_empty() && p.len() <= 3, "{}: {p:?}", w.list[e].name);
        }
    }

    #[test]
    fn lesson_names_match_however_they_are_spelled() {
        assert_eq!(lesson_key("presets/pitfall-01-x.ron"), "pitfall-01-x");
        assert_eq!(lesson_key("pitfall-01-x.ron"), "pitfall-01-x");
        assert_eq!(lesson_key("pitfall-01-x"), "pitfall-01-x");
    }
}
