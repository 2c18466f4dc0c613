//! Workshop material a preset carries: what its scenario teaches, in steps a learner walks
//! through in the lessons panel (docs/workshop.md). Texts may quote figures the running
//! session measures (`{rtt_ms}`, see [`super::figures`]), never numbers typed in.

use serde::{Deserialize, Serialize};

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

    /// The first text naming a figure that does not exist: (field, name).
    pub fn unknown_figure(&self) -> Option<(String, String)> {
        let texts = [
            ("lesson.expect", &self.expect),
            ("lesson.fix", &self.fix),
            ("lesson.watch", &self.watch),
        ];
        for (field, t) in texts {
            if let Some(n) = super::figures::unknown_in(t).into_iter().next() {
                return Some((field.to_string(), n));
            }
        }
        for (i, st) in self.steps.iter().enumerate() {
            for (field, t) in [("say", &st.say), ("reveal", &st.reveal)] {
                if let Some(n) = super::figures::unknown_in(t).into_iter().next() {
                    return Some((format!("lesson.steps[{i}].{field}"), n));
                }
            }
        }
        None
    }
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
