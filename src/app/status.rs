//! The status line: what the last action did, and the last problem. A problem (an error or a
//! warning) stays until it is dismissed or another problem replaces it — a later message of
//! another kind does not hide it; other messages are replaced by the next one and cleared
//! when another session starts (they were about the previous one).

use eframe::egui;
use egui::{Color32, RichText};

use super::action::Action;

/// Seconds of frames the pacing warning looks at.
pub const PACING_WINDOW_S: f64 = 5.0;

/// The status bar, the window's full width: the problem (red: error, amber: warning, with a
/// close button), then what the last action did. Long messages are cut; hover for all.
/// `pacing`: the live session's machines that do not keep their frame rate, shown first (a
/// starved machine's delays must not be read as the network's).
/// (`pacing`: the line, and every late machine a line for the hover.)
pub fn ui(ui: &mut egui::Ui, status: &Status, pacing: Option<(&str, &str)>) -> Vec<Action> {
    let mut actions = Vec::new();
    ui.horizontal(|ui| {
        if let Some((text, machines)) = pacing {
            let color = super::palette_warn(ui.visuals().dark_mode);
            ui.add(egui::Label::new(RichText::new(text).color(color)).truncate())
                .on_hover_text(format!("{text}\n\n{machines}\n\nFrame pacing over the last {PACING_WINDOW_S:.0} s against each machine's target (the preset's client and server frame rates). Close other programs, lower the clients' frame rate or run fewer clients; `movescope run` in virtual time is never starved."));
            ui.separator();
        }
        if let Some(p) = status.problem() {
            let (level, text) = level_of(p);
            let dark = ui.visuals().dark_mode;
            let color = match (level, dark) {
                (Level::Warning, dark) => super::palette_warn(dark),
                (_, true) => Color32::from_rgb(240, 90, 90),
                (_, false) => Color32::from_rgb(185, 20, 20),
            };
            if ui
                .small_button("×")
                .on_hover_text("Close this message.")
                .clicked()
            {
                actions.push(Action::DismissStatus);
            }
            let word = if level == Level::Warning {
                "warning"
            } else {
                "error"
            };
            ui.add(
                egui::Label::new(
                    RichText::new(format!("{word}: {text}"))
                        .color(color)
                        .strong(),
                )
                .truncate(),
            )
            .on_hover_text(text);
            ui.separator();
        }
        match status.info() {
            Some(info) => {
                ui.add(egui::Label::new(info).truncate())
                    .on_hover_text(info);
            }
            None if status.problem().is_none() => {
                ui.weak("Messages about what you do (saved files, errors) appear here.");
            }
            None => {}
        }
    });
    actions
}

/// How a message reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Info,
    Warning,
    Error,
}

/// A message, by the prefix its text starts with (`error: `, `warning: `).
pub fn level_of(text: &str) -> (Level, &str) {
    if let Some(t) = text.strip_prefix("error: ") {
        (Level::Error, t)
    } else if let Some(t) = text.strip_prefix("warning: ") {
        (Level::Warning, t)
    } else {
        (Level::Info, text)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Status {
    /// The last error or warning, as given (with its prefix).
    problem: Option<String>,
    info: Option<String>,
    /// Whether the problem came after the info (the newest is `latest`).
    problem_newer: bool,
}

impl Status {
    /// A new message: `error: …` and `warning: …` are problems, the rest information.
    pub fn set(&mut self, text: impl Into<String>) {
        let text = text.into();
        if text.is_empty() {
            return;
        }
        match level_of(&text).0 {
            Level::Info => {
                self.info = Some(text);
                self.problem_newer = false;
            }
            Level::Warning | Level::Error => {
                self.problem = Some(text);
                self.problem_newer = true;
            }
        }
    }

    /// The user closed the problem.
    pub fn dismiss_problem(&mut self) {
        self.problem = None;
    }

    /// Work the information spoke of ("opening …", "importing …") ended in a problem: the
    /// information no longer holds beside it.
    pub fn failed(&mut self, error: impl Into<String>) {
        self.info = None;
        self.set(error);
    }

    /// Another session started: information about the last one no longer applies.
    pub fn session_changed(&mut self) {
        self.info = None;
    }

    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    pub fn info(&self) -> Option<&str> {
        self.info.as_deref()
    }

    /// The newest message (empty when there is none).
    pub fn latest(&self) -> &str {
        let newest = if self.problem_newer {
            self.problem.as_deref().or(self.info.as_deref())
        } else {
            self.info.as_deref().or(self.problem.as_deref())
        };
        newest.unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_stays_until_dismissed_or_replaced_by_a_problem() {
        let mut s = Status::default();
        s.set("error: disk full");
        s.set("screenshot saved to a.png");
        assert_eq!(s.problem(), Some("error: disk full"));
        assert_eq!(s.info(), Some("screenshot saved to a.png"));
        assert_eq!(s.latest(), "screenshot saved to a.png");
        s.set("warning: slow disk");
        assert_eq!(s.problem(), Some("warning: slow disk"));
        assert_eq!(s.latest(), "warning: slow disk");
        s.dismiss_problem();
        assert_eq!(s.problem(), None);
        assert_eq!(s.latest(), "screenshot saved to a.png");
    }

    #[test]
    fn information_is_cleared_by_another_session_and_problems_are_not() {
        let mut s = Status::default();
        s.set("recording to a.msrec");
        s.set("error: cannot record");
        s.session_changed();
        assert_eq!(s.info(), None);
        assert_eq!(s.problem(), Some("error: cannot record"));
        assert_eq!(level_of("warning: x"), (Level::Warning, "x"));
        assert_eq!(level_of("plain"), (Level::Info, "plain"));
    }
}
