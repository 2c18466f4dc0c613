//! The command palette (Ctrl+K): type a GMC console variable as GMC users already do —
//! `gmc.ShowClientCorrections`, `gmc.LogClientReplay`, `gmc.ShowSimulationDelay`,
//! `gmc.StatPing`, `gmc.LogNetWorldTime` — and the equivalent view turns on; or find any app
//! action by a word of its name. Enter runs the highlighted entry, the arrows move, Escape
//! closes.

use eframe::egui::{self, RichText};

use super::action::{Action, Toggle};
use crate::session::store::MarkKind;
use crate::session::timeline::TimeCommand;

/// What an entry does beyond plain actions: views the app changes itself.
#[derive(Clone, Debug, PartialEq)]
pub enum View {
    /// The event log shows only corrections (of every machine).
    LogCorrections,
    /// The event log shows everything.
    LogEverything,
    /// The world view's "… ms ago" delays on.
    WorldDelays,
    /// The world view side by side with the server's (or not).
    SideBySide(bool),
}

/// One thing the palette can do.
pub struct Entry {
    /// What it is called in the list.
    pub name: String,
    /// The GMC console variable it stands for, if any.
    pub gmc: Option<&'static str>,
    pub explain: &'static str,
    pub actions: Vec<Action>,
    pub views: Vec<View>,
}

impl Entry {
    fn new(name: &str, explain: &'static str, actions: Vec<Action>) -> Entry {
        Entry {
            name: name.to_string(),
            gmc: None,
            explain,
            actions,
            views: Vec::new(),
        }
    }

    fn gmc(
        gmc: &'static str,
        explain: &'static str,
        actions: Vec<Action>,
        views: Vec<View>,
    ) -> Entry {
        Entry {
            name: gmc.to_string(),
            gmc: Some(gmc),
            explain,
            actions,
            views,
        }
    }

    /// Whether every word of `query` is in the name, the GMC name or the explanation
    /// (case-insensitive); an empty query matches everything.
    pub fn matches(&self, query: &str) -> bool {
        let hay =
            format!("{} {} {}", self.name, self.gmc.unwrap_or(""), self.explain).to_lowercase();
        query
            .to_lowercase()
            .split_whitespace()
            .all(|w| hay.contains(w))
    }
}

/// Every entry: GMC's console variables first, then the app's actions, then each plot.
pub fn entries() -> Vec<Entry> {
    let show = |t: &str| Action::ShowPlot(t.to_string());
    let mut v = vec![
        Entry::gmc(
            "gmc.ShowClientCorrections",
            "Show the clients' corrections: the correction plots, the event log's corrections, the world view's correction arrows.",
            vec![
                show("Corrections: replay depth"),
                show("Corrections: error / tolerance"),
            ],
            vec![View::LogCorrections],
        ),
        Entry::gmc(
            "gmc.LogClientReplay",
            "Log every client replay: the event log lists the corrections with the moves each replayed; replay depth plotted.",
            vec![show("Corrections: replay depth")],
            vec![View::LogCorrections],
        ),
        Entry::gmc(
            "gmc.ShowSimulationDelay",
            "Show how far in the past simulated proxies are displayed: the interpolation delay plot, the world view's delays, the interpolation buffer view.",
            vec![show("Interpolation delay"), Action::Toggle(Toggle::Buffer)],
            vec![View::WorldDelays],
        ),
        Entry::gmc(
            "gmc.StatPing",
            "Show the ping: each client's measured round trip.",
            vec![show("Round trip (ping)")],
            Vec::new(),
        ),
        Entry::gmc(
            "gmc.LogNetWorldTime",
            "Show the synchronized world time: each client's clock against the server's, and move timestamps against server time.",
            vec![show("Clock offset"), show("Move timestamp − server time")],
            Vec::new(),
        ),
        Entry::new(
            "Pause or resume",
            "Pause the live session, or play the recording (Space).",
            vec![Action::TogglePause],
        ),
        Entry::new(
            "Follow live",
            "Back to the newest data, following it (End).",
            vec![Action::Time(TimeCommand::FollowLive)],
        ),
        Entry::new(
            "Next correction",
            "Move the cursor to the next correction (PageDown).",
            vec![Action::Time(TimeCommand::JumpMark {
                kinds: vec![MarkKind::Correction, MarkKind::Replay],
                forward: true,
            })],
        ),
        Entry::new(
            "Previous correction",
            "Move the cursor to the previous correction (PageUp).",
            vec![Action::Time(TimeCommand::JumpMark {
                kinds: vec![MarkKind::Correction, MarkKind::Replay],
                forward: false,
            })],
        ),
        Entry::new(
            "Record",
            "Record the live session to recordings/.",
            vec![Action::StartRecording],
        ),
        Entry::new(
            "Stop recording",
            "Finish the recording being made.",
            vec![Action::StopRecording],
        ),
        Entry::new(
            "Bug report",
            "A picture, the recording around the cursor, the preset and a summary in reports/.",
            vec![Action::BugReport],
        ),
        Entry::new(
            "Save screenshot",
            "A PNG of the window in the working directory.",
            vec![Action::Screenshot],
        ),
        Entry::new(
            "Desync doctor",
            "Explain every correction: the deviating values, the most likely cause, the evidence.",
            vec![Action::Examine],
        ),
        Entry::new(
            "What if…",
            "Re-run the opened recording with a change and compare.",
            vec![Action::Toggle(Toggle::WhatIf)],
        ),
        Entry::new(
            "Lessons",
            "Workshop lessons, one per pitfall.",
            vec![Action::Toggle(Toggle::Lessons)],
        ),
        Entry::new(
            "Open a recording",
            "Open a .msrec file.",
            vec![Action::Toggle(Toggle::Open)],
        ),
        Entry::new(
            "Interpolation buffer",
            "One proxy's states received and the time it is shown at.",
            vec![Action::Toggle(Toggle::Buffer)],
        ),
        Entry::new(
            "Track a value",
            "One pawn's member over time: predicted, server, replays, what others display (cl_pred_track).",
            vec![Action::Toggle(Toggle::Track)],
        ),
        Entry::new(
            "Bindings table",
            "The bound values: prediction, combine, simulation modes.",
            vec![Action::Toggle(Toggle::Bindings)],
        ),
        Entry::new(
            "GMC settings",
            "Move and smoothing settings of GMC.",
            vec![Action::Toggle(Toggle::Gmc)],
        ),
        Entry::new(
            "Help",
            "Keys and where things are (F1).",
            vec![Action::Toggle(Toggle::Help)],
        ),
        Entry::new(
            "Light or dark theme",
            "Switch the theme.",
            vec![Action::Toggle(Toggle::Theme)],
        ),
        Entry::new(
            "Reset layout",
            "Panes back to where they start.",
            vec![Action::ResetLayout],
        ),
        Entry::new(
            "Export CSV…",
            "Series of the session to CSV.",
            vec![Action::OpenExport],
        ),
        Entry {
            name: "World view: side by side with the server".into(),
            gmc: None,
            explain: "What the client sees next to what the server knows, at the same instant.",
            actions: Vec::new(),
            views: vec![View::SideBySide(true)],
        },
        Entry {
            name: "World view: one view".into(),
            gmc: None,
            explain: "The chosen machine's view alone.",
            actions: Vec::new(),
            views: vec![View::SideBySide(false)],
        },
        Entry {
            name: "Event log: only corrections".into(),
            gmc: None,
            explain: "Hide warnings, errors and session changes.",
            actions: Vec::new(),
            views: vec![View::LogCorrections],
        },
        Entry {
            name: "Event log: everything".into(),
            gmc: None,
            explain: "Every machine, every kind, no search.",
            actions: Vec::new(),
            views: vec![View::LogEverything],
        },
    ];
    for p in super::plots::PLOTS.iter() {
        v.push(Entry {
            name: format!("Show plot: {}", p.title),
            gmc: None,
            explain: p.explain,
            actions: vec![Action::ShowPlot(p.title.to_string())],
            views: Vec::new(),
        });
    }
    v
}

#[derive(Default)]
pub struct Palette {
    pub open: bool,
    pub query: String,
    selected: usize,
}

impl Palette {
    /// The palette (when open): returns what the chosen entry does.
    pub fn ui(&mut self, ctx: &egui::Context) -> (Vec<Action>, Vec<View>) {
        if !self.open {
            return (Vec::new(), Vec::new());
        }
        let all = entries();
        let shown: Vec<&Entry> = all.iter().filter(|e| e.matches(&self.query)).collect();
        self.selected = self.selected.min(shown.len().saturating_sub(1));
        let (up, down, enter, escape) = ctx.input(|i| {
            (
                i.key_pressed(egui::Key::ArrowUp),
                i.key_pressed(egui::Key::ArrowDown),
                i.key_pressed(egui::Key::Enter),
                i.key_pressed(egui::Key::Escape),
            )
        });
        if down {
            self.selected = (self.selected + 1).min(shown.len().saturating_sub(1));
        }
        if up {
            self.selected = self.selected.saturating_sub(1);
        }
        let mut chosen: Option<usize> = enter.then_some(self.selected);
        super::window(ctx, "Command palette")
            .collapsible(false)
            .resizable(false)
            .default_width(520.0)
            .anchor(egui::Align2::CENTER_TOP, egui::vec2(0.0, 80.0))
            .show(ctx, |ui| {
                let r = ui.add(
                    egui::TextEdit::singleline(&mut self.query)
                        .hint_text("gmc.ShowClientCorrections, a plot, an action…")
                        .desired_width(f32::INFINITY),
                );
                r.request_focus();
                if r.changed() {
                    self.selected = 0;
                }
                ui.weak("Enter runs the highlighted entry; arrows move; Escape closes.");
                egui::ScrollArea::vertical()
                    .max_height(360.0)
                    .show(ui, |ui| {
                        if shown.is_empty() {
                            ui.weak("Nothing matches.");
                        }
                        for (i, e) in shown.iter().enumerate() {
                            let text = if e.gmc.is_some() {
                                RichText::new(&e.name).monospace().strong()
                            } else {
                                RichText::new(&e.name)
                            };
                            if ui
                                .selectable_label(i == self.selected, text)
                                .on_hover_text(e.explain)
                                .clicked()
                            {
                                chosen = Some(i);
                            }
                            if i == self.selected {
                                ui.weak(e.explain);
                            }
                        }
                    });
            });
        if escape {
            self.open = false;
        }
        match chosen.and_then(|i| shown.get(i)) {
            Some(e) => {
                self.open = false;
                self.query.clear();
                (e.actions.clone(), e.views.clone())
            }
            None => (Vec::new(), Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gmc_console_names_find_their_views() {
        let all = entries();
        for name in [
            "gmc.ShowClientCorrections",
            "gmc.LogClientReplay",
            "gmc.ShowSimulationDelay",
            "gmc.StatPing",
            "gmc.LogNetWorldTime",
        ] {
            let found: Vec<&Entry> = all.iter().filter(|e| e.matches(name)).collect();
            assert_eq!(found.len(), 1, "{name}");
            assert!(!found[0].actions.is_empty() || !found[0].views.is_empty());
        }
        // Every plot a console variable shows exists.
        for e in &all {
            for a in &e.actions {
                if let Action::ShowPlot(t) = a {
                    assert!(
                        super::super::plots::PLOTS.iter().any(|p| p.title == t),
                        "{}: no plot {t}",
                        e.name
                    );
                }
            }
        }
        // Words in any order, any case; a word of the explanation finds it too.
        assert!(all.iter().any(|e| e.matches("report bug")));
        assert!(all.iter().any(|e| e.matches("PING")));
        assert!(all.iter().filter(|e| e.matches("")).count() == all.len());
    }
}
