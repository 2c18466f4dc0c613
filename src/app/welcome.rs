//! The first-run offer: with no remembered state (or one that never answered it), the app
//! opens with the basics lessons offered — one click starts the first, one click dismisses
//! the offer, and either is remembered at once (not only at exit).

use eframe::egui;

use super::action::Action;

/// The lesson the offer starts.
pub const FIRST_LESSON: &str = "basics-01-no-prediction";

/// What the learner did with the offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Start,
    Dismiss,
}

/// The offer, over the running default session; `None` while unanswered.
pub fn ui(ctx: &egui::Context) -> Option<Answer> {
    let mut answer = None;
    super::window(ctx, "New to client-side prediction?")
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_CENTER, egui::vec2(0.0, 0.0))
        .default_width(460.0)
        .show(ctx, |ui| {
            ui.label(
                "Behind this window a server and three clients play on this machine, running GMC's move cycle: each client predicts its own pawn and the server checks every move.",
            );
            ui.add_space(4.0);
            ui.label(
                "Eight short lessons teach the basics first: what prediction buys, what a correction and its replay are, why latency deepens replays, how frames combine into moves, what a slow frame does, why other players are shown in the past, and whose clock a move carries. Each runs its own live scenario, asks you to predict what will happen, then shows it with the numbers it measures.",
            );
            ui.add_space(8.0);
            ui.horizontal(|ui| {
                if ui
                    .button(egui::RichText::new("Start the first lesson").strong())
                    .on_hover_text("Basics 1: no prediction. The lessons panel opens at the right; the session waits for your first answer.")
                    .clicked()
                {
                    answer = Some(Answer::Start);
                }
                if ui
                    .button("Not now")
                    .on_hover_text("Not offered again. The lessons are always under Lessons in the top bar.")
                    .clicked()
                {
                    answer = Some(Answer::Dismiss);
                }
            });
            ui.weak("Either way this is not offered again; the lessons stay under Lessons in the top bar.");
        });
    answer
}

/// The actions an answer leads to.
pub fn actions(answer: Answer) -> Vec<Action> {
    match answer {
        Answer::Start => vec![Action::StartLesson(FIRST_LESSON.to_string())],
        Answer::Dismiss => Vec::new(),
    }
}
