//! Pointers as data: a lesson names a control by id (`[[world.vs_server]]`), and the words the
//! learner reads come from the control's real label and place here, so a renamed or moved
//! control cannot leave a lesson pointing at nothing. Plots are named by their titles in a
//! step's `look_at` (and shown while the step needs them).

use eframe::egui;

/// A control a lesson can point at.
pub struct Control {
    pub id: &'static str,
    /// Its label as drawn.
    pub label: &'static str,
    /// Where it is, as the learner would look for it.
    pub place: &'static str,
}

pub const CONTROLS: &[Control] = &[
    Control {
        id: "world.vs_server",
        label: "vs server",
        place: "the toggle above the world view",
    },
    Control {
        id: "world.seen_from",
        label: "seen from",
        place: "the box above the world view",
    },
    Control {
        id: "view.buffer",
        label: "Interpolation buffer",
        place: "in the View menu of the top bar",
    },
    Control {
        id: "view.track",
        label: "Track a value",
        place: "in the View menu of the top bar",
    },
    Control {
        id: "top.doctor",
        label: "Doctor",
        place: "in the top bar",
    },
    Control {
        id: "lessons.restart",
        label: "restart",
        place: "at the top of this panel, beside presenter mode",
    },
    Control {
        id: "lessons.doctor",
        label: "Ask the doctor",
        place: "at the foot of this panel",
    },
];

/// The control called `id`.
pub fn control(id: &str) -> Option<&'static Control> {
    CONTROLS.iter().find(|c| c.id == id)
}

/// `text` with every `[[id]]` in words: “label” (place). An unknown id is left as written
/// (the shipped lessons are tested to name none).
pub fn in_words(text: &str) -> String {
    crate::support::delimited::replace(text, "[[", "]]", |id| {
        control(id).map(|c| format!("“{}” ({})", c.label, c.place))
    })
}

/// The ids `text` points at.
pub fn named(text: &str) -> impl Iterator<Item = &str> {
    crate::support::delimited::tokens(text, "[[", "]]")
}

fn pointed_id() -> egui::Id {
    egui::Id::unique("lesson points at controls")
}

/// The controls the lesson's texts on screen point at (kept in egui's memory for the frame,
/// so a control anywhere in the app can ask).
pub fn set_pointed(ctx: &egui::Context, ids: Vec<String>) {
    ctx.data_mut(|d| d.insert_temp(pointed_id(), ids));
}

/// Whether a lesson on screen points at control `id` (or, for a menu, at one of its items:
/// `view.` for the View menu).
pub fn is_pointed(ctx: &egui::Context, id: &str) -> bool {
    ctx.data(|d| {
        d.get_temp::<Vec<String>>(pointed_id()).is_some_and(|ids| {
            ids.iter()
                .any(|p| p == id || (id.ends_with('.') && p.starts_with(id)))
        })
    })
}

/// Outlines `response` in the lesson's "look here" colour when a lesson points at `id`.
pub fn mark(ui: &egui::Ui, id: &str, response: &egui::Response) {
    if is_pointed(ui.ctx(), id) {
        let look = super::super::palette_look(ui.visuals().dark_mode);
        ui.painter().rect_stroke(
            response.rect.expand(2.0),
            4.0,
            egui::Stroke::new(2.5, look),
            egui::StrokeKind::Outside,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The source that draws a control, by the first part of its id.
    fn source_of(id: &str) -> &'static str {
        match id.split('.').next() {
            Some("world") => include_str!("../world_view.rs"),
            Some("view" | "top") => include_str!("../top_bar.rs"),
            Some("lessons") => include_str!("panel.rs"),
            _ => panic!("{id}: say which source draws it"),
        }
    }

    #[test]
    fn every_control_a_lesson_can_name_is_drawn_with_that_label() {
        for c in CONTROLS {
            assert!(
                source_of(c.id).contains(&format!("\"{}\"", c.label)),
                "{}: no control labelled \"{}\" where it is said to be",
                c.id,
                c.label
            );
        }
    }

    #[test]
    fn pointers_read_as_the_controls_label_and_place() {
        assert_eq!(
            in_words("Turn on [[world.vs_server]]. [[nope]]"),
            "Turn on “vs server” (the toggle above the world view). [[nope]]"
        );
        assert_eq!(named("a [[x.y]] b [[z]]").collect::<Vec<_>>(), ["x.y", "z"]);
    }

    /// Every pointer in a shipped lesson names a control, and no lesson points in prose at a
    /// menu path or a place that a control's pointer should name.
    #[test]
    fn no_lesson_names_a_control_that_does_not_exist() {
        for e in super::super::shipped_lessons() {
            let l = e.preset.lesson.as_ref().expect("a lesson");
            let mut texts = vec![&e.preset.description, &l.watch, &l.expect, &l.fix];
            for st in &l.steps {
                texts.extend([&st.say, &st.reveal]);
                texts.extend(st.question.iter());
            }
            for t in texts {
                for id in named(t) {
                    assert!(control(id).is_some(), "{}: no control `{id}`: {t}", e.name);
                }
                for prose in ["→", "top bar", "(Plots", "menu"] {
                    assert!(
                        !t.contains(prose),
                        "{}: a control named in prose (`{prose}`), not by id: {t}",
                        e.name
                    );
                }
            }
        }
    }
}
