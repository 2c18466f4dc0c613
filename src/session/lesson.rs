//! Workshop material a preset carries: what its scenario teaches, in steps a learner walks
//! through in the lessons panel (docs/workshop.md). Texts may quote figures the running
//! session measures (`{rtt_ms}`, see [`super::figures`]), never numbers typed in.

use serde::{Deserialize, Serialize};

use super::claim::Claim;
use super::store::Store;

/// What a scenario teaches, for the lessons panel and docs/workshop.md.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Lesson {
    /// Order in the lessons list.
    pub order: u32,
    /// What to watch (which plot, which pawn, which view).
    pub watch: String,
    /// What the learner should see.
    pub expect: String,
    /// How to fix it (empty for network lessons that have no fix).
    pub fix: String,
    /// The preset file of the fixed variant, if there is one.
    pub fixed: Option<String>,
    pub steps: Vec<LessonStep>,
    /// What the conclusion (`expect`) claims, checked in the lesson's last state
    /// ([`super::claim`]).
    pub claims: Vec<String>,
}

/// One step of a lesson: what to say and look at, optionally a question to answer before a
/// change is made ("predict, then reveal").
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LessonStep {
    pub say: String,
    /// A plot title, "world view" or "event log": what to look at.
    pub look_at: Option<String>,
    /// Asked before the change; answered by picking one of `choices`.
    pub question: Option<String>,
    pub choices: Vec<String>,
    /// Index of the right choice.
    pub answer: Option<usize>,
    /// Why each choice is right or wrong, in the order of `choices` (shown under every choice
    /// once the question is answered).
    pub why: Vec<String>,
    /// Shown after answering (or after the change).
    pub reveal: String,
    /// `--set` assignments applied to the running session when the learner clicks "Do it".
    pub set: Vec<String>,
    /// What the reveal claims, checked in the state the reveal is shown in
    /// ([`super::claim`]).
    pub claims: Vec<String>,
}

impl LessonStep {
    /// The order the choices are shown in, as indices into `choices`: shuffled from `seed`
    /// (the preset's), the lesson's name and the step's place, so where the right answer sits
    /// gives nothing away, and a presenter's screen, a learner's and a test agree.
    pub fn choice_order(&self, seed: u64, lesson: &str, step: usize) -> Vec<usize> {
        use crate::support::rng::{Rng, derive_seed, purpose};
        let mut order: Vec<usize> = (0..self.choices.len()).collect();
        let mut rng = Rng::new(derive_seed(
            seed ^ fnv1a(lesson.as_bytes()),
            purpose::LESSON_CHOICES,
            step as u64,
        ));
        for i in (1..order.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
        order
    }
}

/// FNV-1a of `bytes`: a hash that stays the same across runs, platforms and Rust versions.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Lesson {
    /// The first question whose reasons do not match its choices one for one: (field, what
    /// was expected).
    pub fn reasons_problem(&self) -> Option<(String, String)> {
        self.steps.iter().enumerate().find_map(|(i, st)| {
            (!st.why.is_empty() && st.why.len() != st.choices.len()).then(|| {
                (
                    format!("lesson.steps[{i}].why"),
                    format!(
                        "one reason per choice ({} choices, {} reasons)",
                        st.choices.len(),
                        st.why.len()
                    ),
                )
            })
        })
    }

    /// The claims of the text shown as `id` (a step's reveal, or the conclusion).
    pub fn claims_of(&self, id: TextId) -> &[String] {
        match id {
            TextId::Reveal(k) => self.steps.get(k).map_or(&[], |s| &s.claims),
            TextId::Expect => &self.claims,
            TextId::Say(_) | TextId::Fix => &[],
        }
    }

    /// The states the lesson goes through: the scenario as it starts, and one after each
    /// step that makes a change.
    pub fn state_count(&self) -> usize {
        1 + self.steps.iter().filter(|s| !s.set.is_empty()).count()
    }

    /// The first claim that does not parse or names a state the lesson does not have:
    /// (field, what was expected).
    pub fn claims_problem(&self) -> Option<(String, String)> {
        let states = self.state_count();
        let fields = std::iter::once(("lesson.claims".to_string(), &self.claims)).chain(
            self.steps
                .iter()
                .enumerate()
                .map(|(i, st)| (format!("lesson.steps[{i}].claims"), &st.claims)),
        );
        for (field, claims) in fields {
            for text in claims {
                let problem = match super::claim::Claim::parse(text) {
                    Err(e) => Some(e.0),
                    Ok(c) => c.quotes().find_map(|q| {
                        q.state.filter(|&k| k >= states).map(|k| {
                            format!("a state from 0 to {} in `{text}`, not @{k}", states - 1)
                        })
                    }),
                };
                if let Some(p) = problem {
                    return Some((field, p));
                }
            }
        }
        None
    }

    /// The first text naming a figure that does not exist: (field, name).
    pub fn unknown_figure(&self) -> Option<(String, String)> {
        let texts = [
            ("lesson.expect", &self.expect),
            ("lesson.fix", &self.fix),
            ("lesson.watch", &self.watch),
        ];
        let states = self.state_count();
        let bad = |t: &str| {
            super::figures::unknown_in(t)
                .into_iter()
                .chain(
                    super::figures::states_quoted(t)
                        .filter(|&(_, k)| k >= states)
                        .map(|(name, k)| {
                            format!("{name}@{k} (the lesson has states 0 to {})", states - 1)
                        }),
                )
                .next()
        };
        for (field, t) in texts {
            if let Some(n) = bad(t) {
                return Some((field.to_string(), n));
            }
        }
        for (i, st) in self.steps.iter().enumerate() {
            for (field, t) in [("say", &st.say), ("reveal", &st.reveal)] {
                if let Some(n) = bad(t) {
                    return Some((format!("lesson.steps[{i}].{field}"), n));
                }
            }
        }
        None
    }
}

/// Seconds of a state over which a lesson's figures are measured.
pub const FIGURE_WINDOW_S: f64 = 10.0;

/// The window a lesson's figures are measured over at `now`, the state having begun at
/// `since`: the last [`FIGURE_WINDOW_S`], once that much of the state has run (none before:
/// a half-measured window, or one mixing two states, is not the figure; nor a cursor moved
/// back before the state began).
pub fn figure_window(now: f64, since: f64) -> Option<(f64, f64)> {
    (now - since >= FIGURE_WINDOW_S - 1e-9).then_some((now - FIGURE_WINDOW_S, now))
}

/// A text of a lesson, by where it is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TextId {
    Say(usize),
    Reveal(usize),
    /// The conclusion ("What you should have seen").
    Expect,
    /// The fix, shown with the conclusion.
    Fix,
}

/// The states a running lesson went through, for the figures its texts quote: state 0 is the
/// scenario as it starts, state `k` the session after the lesson's `k`-th change ("Do it").
/// A text's figures are measured in the state it was first shown in (a question's reveal
/// stays about the state before the change made after it), or in the state it names
/// (`{figure@k}`); a state that is over keeps the figures of its last window. The app and
/// the lesson test walk lessons through this one type.
#[derive(Clone, Debug, Default)]
pub struct LessonStates {
    /// Session time the current state began.
    pub since: f64,
    /// Per state that is over: every figure over its last window (`None`: it ran shorter
    /// than the window).
    ended: Vec<Ended>,
    /// The state each text was first shown in.
    shown_in: Vec<(TextId, usize)>,
    /// The current state's figures as they were when the learner changed a setting in it.
    frozen: Option<Ended>,
}

impl LessonStates {
    /// The current state's number.
    pub fn current(&self) -> usize {
        self.ended.len()
    }

    /// The session left the current state at `now` (a change was made): its figures are
    /// kept as they were (or as they were when the learner first changed a setting in it),
    /// and the next state begins.
    pub fn change(&mut self, store: &Store, now: f64) {
        let ended = match self.frozen.take() {
            Some(f) => f,
            None => self.measure(store, now),
        };
        self.ended.push(ended);
        self.since = now;
    }

    /// The learner changed a setting themselves (a slider a step asks them to drag): the
    /// state the lesson's texts speak of is over, so its figures are kept as they were at
    /// `now` and its texts go on quoting those; the lesson's own next change still starts
    /// state `current() + 1`.
    pub fn learner_changed(&mut self, store: &Store, now: f64) {
        if self.frozen.is_none() {
            self.frozen = Some(self.measure(store, now));
        }
    }

    /// Every figure over the current state's last window before `now`.
    fn measure(&self, store: &Store, now: f64) -> Ended {
        let window = figure_window(now, self.since);
        let scopes = super::figures::Scope::every(store);
        let kept = super::figures::FIGURES
            .iter()
            .flat_map(|f| scopes.iter().map(move |w| (f, *w)))
            .map(|(f, w)| {
                let said = window
                    .map(|win| f.span(win, self.since))
                    .and_then(|(a, b)| {
                        Some((f.value_in(store, w, a, b)?, f.text_in(store, w, a, b)?))
                    });
                ((f.name, w), said)
            })
            .collect();
        Ended {
            whole: window.is_some(),
            window,
            kept,
        }
    }

    /// The session's data restarted at 0 (a change that restarts it): the current state
    /// began there.
    pub fn restarted(&mut self) {
        self.since = 0.0;
        for e in self.ended.iter_mut().chain(self.frozen.as_mut()) {
            e.window = None;
        }
    }

    /// The state the text shown as `id` speaks of, if it was shown.
    pub fn state_of(&self, id: TextId) -> Option<usize> {
        self.shown_in
            .iter()
            .find(|(t, _)| *t == id)
            .map(|&(_, k)| k)
    }

    /// The window state `k`'s figures are (or were) measured over, while the session's data
    /// still holds it: a state that is over, its last window; the current one, the last
    /// [`FIGURE_WINDOW_S`] before `now` once that much of it ran.
    pub fn window_of(&self, k: usize, now: f64) -> Option<(f64, f64)> {
        if let Some(e) = self.ended.get(k) {
            return e.window;
        }
        if k != self.current() {
            return None;
        }
        match &self.frozen {
            Some(f) => f.window,
            None => figure_window(now, self.since),
        }
    }

    /// The state `text` speaks of: the one it was first shown in (this call shows it).
    pub fn shown(&mut self, id: TextId) -> usize {
        let now = self.current();
        match self.shown_in.iter().find(|(t, _)| *t == id) {
            Some(&(_, k)) => k,
            None => {
                self.shown_in.push((id, now));
                now
            }
        }
    }

    /// `text` (shown as `id`) with its figures: those of its state, over the last window of
    /// that state; "…" while the current state's window is not yet whole.
    pub fn fill(&mut self, id: TextId, text: &str, store: &Store, now: f64) -> String {
        let own = self.shown(id);
        super::figures::fill_with(text, |q| match self.resolve(own, q, store, now) {
            Resolved::Measured(_, said) => said,
            Resolved::TooShort => "(not measured: that state ran under 10 s)".into(),
            Resolved::NoData => "(nothing measured then)".into(),
            Resolved::Waiting => "…".into(),
        })
    }

    /// The value the text shown as `id` quotes for `figure` (its first quote of it), as
    /// [`LessonStates::fill`] says it: what a test checks a sentence against.
    pub fn quoted(
        &mut self,
        id: TextId,
        text: &str,
        figure: &str,
        store: &Store,
        now: f64,
    ) -> Option<f64> {
        let own = self.shown(id);
        let q = crate::support::delimited::tokens(text, "{", "}")
            .filter_map(super::figures::quote)
            .find(|q| q.def.name == figure)?;
        match self.resolve(own, q, store, now) {
            Resolved::Measured(v, _) => Some(v),
            _ => None,
        }
    }

    /// Whether `claim`, made by the text shown as `id`, holds in that text's state.
    pub fn check(&mut self, id: TextId, claim: &Claim, store: &Store, now: f64) -> Verdict {
        let own = self.shown(id);
        let mut measured = Vec::new();
        for q in claim.quotes() {
            match self.resolve(own, q, store, now) {
                Resolved::Measured(v, said) => measured.push((v, said)),
                Resolved::Waiting => return Verdict::Waiting,
                Resolved::TooShort | Resolved::NoData => {
                    return Verdict::Unmeasured(q.def.name);
                }
            }
        }
        let right = measured.get(1);
        if claim.holds(measured[0].0, right.map(|m| m.0)) {
            Verdict::Holds
        } else {
            Verdict::Refuted(claim.refuted(&measured[0], right))
        }
    }

    /// How each of `claims` (made by the text shown as `id`) reads where the session does not
    /// bear it out, in the text's state (a claim still being measured says nothing).
    pub fn refuted(
        &mut self,
        id: TextId,
        claims: &[String],
        store: &Store,
        now: f64,
    ) -> Vec<String> {
        claims
            .iter()
            .filter_map(|c| Claim::parse(c).ok())
            .filter_map(|c| match self.check(id, &c, store, now) {
                Verdict::Refuted(said) => Some(said),
                _ => None,
            })
            .collect()
    }

    fn resolve(&self, own: usize, q: super::figures::Quote, store: &Store, now: f64) -> Resolved {
        let k = q.state.unwrap_or(own);
        let frozen = self.frozen.as_ref().filter(|_| k == self.current());
        if let Some(ended) = self.ended.get(k).or(frozen) {
            return match ended.kept.iter().find(|(n, _)| *n == (q.def.name, q.scope)) {
                Some((_, Some((v, said)))) => Resolved::Measured(*v, said.clone()),
                _ if !ended.whole => Resolved::TooShort,
                _ => Resolved::NoData,
            };
        }
        let window = figure_window(now, self.since).filter(|_| k == self.current());
        let span = window.map(|win| q.def.span(win, self.since));
        match span.and_then(|(a, b)| q.measure(store, a, b)) {
            Some((v, said)) => Resolved::Measured(v, said),
            None => Resolved::Waiting,
        }
    }
}

/// Whether a claim holds in its text's state.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Holds,
    /// It does not: how it reads to the learner.
    Refuted(String),
    /// Its state's window is not yet whole.
    Waiting,
    /// Its state ended before a whole window, or had nothing to measure for this figure.
    Unmeasured(&'static str),
}

/// A state that is over: every figure over its last window.
#[derive(Clone, Debug)]
struct Ended {
    /// It ran a whole window.
    whole: bool,
    /// The window its figures were measured over, while the store still holds it (`None`
    /// once the session restarted: its data is gone).
    window: Option<(f64, f64)>,
    /// Per figure and scope, its value and text (`None`: nothing measured).
    kept: Vec<(FigureIn, Option<(f64, String)>)>,
}

/// A figure by name, in a scope.
type FigureIn = (&'static str, super::figures::Scope);

/// What a quoted figure reads.
enum Resolved {
    /// Its state is over, ran a whole window, and had nothing to measure.
    NoData,
    Measured(f64, String),
    /// Its state is over and ran shorter than the window.
    TooShort,
    /// Its state's window is not yet whole (or the state is still to come).
    Waiting,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(n: usize) -> LessonStep {
        LessonStep {
            choices: (0..n).map(|i| format!("choice {i}")).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn choices_are_shuffled_the_same_way_for_the_same_seed_and_differently_across_steps() {
        let s = step(3);
        let a = s.choice_order(1, "basics-05-combining", 0);
        assert_eq!(a, s.choice_order(1, "basics-05-combining", 0), "seeded");
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, vec![0, 1, 2], "a permutation");
        // Over many lessons the right answer (index 1) lands in every place.
        let places: std::collections::BTreeSet<usize> = (0..40)
            .map(|k| {
                let o = s.choice_order(1, &format!("lesson-{k}"), 0);
                o.iter().position(|&i| i == 1).unwrap()
            })
            .collect();
        assert_eq!(places.len(), 3, "{places:?}");
    }

    #[test]
    fn a_figure_may_name_a_state_the_lesson_has_and_no_other() {
        let mut l = Lesson {
            expect: "{rtt_ms@0} then {rtt_ms@1}".into(),
            steps: vec![LessonStep {
                set: vec!["link.latency_ms=90".into()],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(l.unknown_figure(), None);
        l.expect = "{rtt_ms@2}".into();
        let (field, what) = l.unknown_figure().expect("refused");
        assert_eq!(field, "lesson.expect");
        assert!(what.contains("states 0 to 1"), "{what}");
        l.expect = "{rtt_ms@x}".into();
        assert!(l.unknown_figure().is_some());
    }

    #[test]
    fn reasons_must_match_the_choices() {
        let mut l = Lesson {
            steps: vec![step(3)],
            ..Default::default()
        };
        assert_eq!(l.reasons_problem(), None, "no reasons is allowed");
        l.steps[0].why = vec!["a".into(), "b".into()];
        assert_eq!(
            l.reasons_problem().map(|(f, _)| f),
            Some("lesson.steps[0].why".to_string())
        );
    }
}
