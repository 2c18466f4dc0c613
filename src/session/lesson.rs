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
    /// Shown after answering (or after the change).
    pub reveal: String,
    /// `--set` assignments applied to the running session when the learner clicks "Do it".
    pub set: Vec<String>,
}

impl Lesson {
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
