//! The event log: corrections (naming every deviating bound value, with units), warnings,
//! errors and changes made to the session, up to the cursor. Filters by machine and kind and
//! a search narrow it; rows are one line each, and the selected row shows the whole entry.
//! Clicking a row selects it and moves the cursor there. While the pointer is over the list
//! it holds still (new entries wait until the pointer leaves).

use eframe::egui;
use egui::{Color32, RichText};

use super::action::Action;
use crate::model::telemetry::Machine;
use crate::session::store::{LogEntry, MarkKind, Store};
use crate::session::timeline::TimeCommand;

/// The kinds of entries a filter can show or hide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Corrections,
    Problems,
    Changes,
    OneShots,
}

impl Kind {
    pub const ALL: [Kind; 4] = [
        Kind::Corrections,
        Kind::Problems,
        Kind::Changes,
        Kind::OneShots,
    ];

    pub fn of(kind: MarkKind) -> Kind {
        match kind {
            MarkKind::Correction | MarkKind::Replay => Kind::Corrections,
            MarkKind::Warning | MarkKind::Error => Kind::Problems,
            MarkKind::Change => Kind::Changes,
            MarkKind::OneShot => Kind::OneShots,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Kind::Corrections => "corrections",
            Kind::Problems => "warnings & errors",
            Kind::Changes => "session changes",
            Kind::OneShots => "one-shots",
        }
    }
}

/// What the log lists: by machine, by kind, and containing a text.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    /// `None`: every machine.
    pub machine: Option<Machine>,
    pub kinds: [bool; 4],
    /// Case-insensitive; empty: everything.
    pub search: String,
}

impl Default for Filter {
    fn default() -> Self {
        Filter {
            machine: None,
            // One-shots come several a second per pawn: listed only when asked for.
            kinds: [true, true, true, false],
            search: String::new(),
        }
    }
}

/// What an empty list says: with the corrections shown and none made, that client and
/// server agree (the goal, not a filter set wrongly); otherwise what the filters hide.
pub fn empty_text(filter: &Filter, all: &[LogEntry]) -> String {
    let hidden = all.len();
    let corrections_shown = filter.kinds[0] && filter.machine.is_none() && filter.search.is_empty();
    let corrections = all
        .iter()
        .filter(|e| Kind::of(e.kind) == Kind::Corrections)
        .count();
    if corrections_shown && corrections == 0 {
        let mut t = "No corrections: client and server agree on every move so far. That is the goal: each client predicted its moves, the server ran the same moves and got the same result.".to_string();
        if hidden > 0 {
            t.push_str(&format!(
                " ({hidden} other entr{} hidden by the filters above.)",
                if hidden == 1 { "y" } else { "ies" }
            ));
        } else {
            t.push_str(" Corrections, warnings, errors and changes to the session appear here.");
        }
        t
    } else if hidden > 0 {
        format!(
            "No entry matches the filters ({hidden} hidden: change the machine, the kinds or the search above)."
        )
    } else {
        "Nothing yet: corrections, warnings, errors and changes to the session appear here."
            .to_string()
    }
}

impl Filter {
    pub fn accepts(&self, e: &LogEntry) -> bool {
        let kind = Kind::ALL
            .iter()
            .position(|k| *k == Kind::of(e.kind))
            .is_some_and(|i| self.kinds[i]);
        kind && self.machine.is_none_or(|m| m == e.machine)
            && (self.search.is_empty()
                || e.text.to_lowercase().contains(&self.search.to_lowercase())
                || e.machine.to_string().contains(&self.search.to_lowercase()))
    }

    /// The entries up to `t` it accepts (newest last, at most `limit`).
    pub fn entries<'a>(&self, store: &'a Store, upto: f64, limit: usize) -> Vec<&'a LogEntry> {
        let all = store.log_between(f64::NEG_INFINITY, upto);
        let mut out: Vec<&LogEntry> = all
            .iter()
            .rev()
            .filter(|e| self.accepts(e))
            .take(limit)
            .collect();
        out.reverse();
        out
    }
}

#[derive(Default)]
pub struct EventLog {
    pub filter: Filter,
    /// The selected row (its time and machine): shown whole.
    selected: Option<(f64, Machine)>,
    /// While hovered: the cursor the list was frozen at.
    frozen_at: Option<f64>,
    /// After a click on a row: the list still reaches where it reached before the click (the
    /// cursor moved back to the row; later rows stay, drawn weak), until the cursor moves
    /// elsewhere. (how far the list reached, the row's time)
    kept: Option<(f64, f64)>,
}

/// Rows listed at most (the newest).
const SHOWN: usize = 400;

impl EventLog {
    /// Another recording or session is shown: its search, machine and selected row belonged to
    /// the last one (they would open it on "no entry matches"); which kinds show is kept.
    pub fn session_changed(&mut self) {
        self.filter.search.clear();
        self.filter.machine = None;
        self.selected = None;
        self.frozen_at = None;
        self.kept = None;
    }

    /// While the pointer holds the list still, how many newer entries wait (the list is
    /// not lagging: it waits for the pointer to leave).
    fn say_held(&self, ui: &mut egui::Ui, store: &Store, upto: f64, cursor: f64) {
        if cursor <= upto {
            return;
        }
        let waiting = store
            .log_between(upto, cursor)
            .iter()
            .filter(|e| e.t > upto && self.filter.accepts(e))
            .count();
        if waiting > 0 {
            ui.weak(format!(
                "Held still while the pointer is over the list: {waiting} newer entr{} wait until it leaves.",
                if waiting == 1 { "y" } else { "ies" }
            ));
        }
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, store: &Store, cursor: f64) -> Vec<Action> {
        let mut actions = Vec::new();
        ui.horizontal_wrapped(|ui| {
            let machines: std::collections::BTreeSet<Machine> =
                store.log().iter().map(|e| e.machine).collect();
            let shown = self
                .filter
                .machine
                .map_or("all".to_string(), |m| m.to_string());
            egui::ComboBox::from_label("machine")
                .selected_text(shown)
                .width(70.0)
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.filter.machine, None, "all");
                    for m in machines {
                        ui.selectable_value(&mut self.filter.machine, Some(m), m.to_string());
                    }
                })
                .response
                .on_hover_text("Only the entries of one machine.");
            for (i, k) in Kind::ALL.iter().enumerate() {
                ui.toggle_value(&mut self.filter.kinds[i], k.label())
                    .on_hover_text(match k {
                        Kind::Corrections => "Corrections the clients adopted: the move, who found it, how many moves were replayed, and every bound value that deviated (predicted against the server's, with the tolerance).",
                        Kind::Problems => "Warnings and errors of the model and the transport (amber: warning, red: error).",
                        Kind::Changes => "Changes made to the running session (a setting, the bindings, clients): from what to what.",
                        Kind::OneShots => "One-shot events the ticks raised (DashFired, DashReady, Footstep), with the execution that raised them — a combined or replayed move raising one again is pitfall 3. Off by default: a pawn raises several a second.",
                    });
            }
            ui.add(
                egui::TextEdit::singleline(&mut self.filter.search)
                    .hint_text("search")
                    .desired_width(90.0),
            )
            .on_hover_text("Only entries containing this text (a value's name, a move number, a word).");
        });
        let hovering = ui.rect_contains_pointer(ui.available_rect_before_wrap());
        // The list holds still under the pointer: entries after the moment it arrived wait.
        let upto = if hovering {
            *self.frozen_at.get_or_insert(cursor)
        } else {
            self.frozen_at = None;
            cursor
        };
        if self.kept.is_some_and(|(_, at)| at != cursor) {
            self.kept = None;
        }
        let upto = self.kept.map_or(upto, |(reach, _)| reach.max(upto));
        if hovering {
            self.say_held(ui, store, upto, cursor);
        }
        let entries = self.filter.entries(store, upto, SHOWN);
        let mut seek = None;
        let mut trace: Option<(u16, u32, f64)> = None;
        // The newest entry in view, every frame, scrolled to at once after the last row
        // (egui's stick-to-bottom let go for good when a burst of rows arrived in one frame:
        // the list then stayed at its top, 13 s behind live). The pointer over the list lets
        // it be scrolled.
        let follow = !hovering && !entries.is_empty();
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                if entries.is_empty() {
                    ui.weak(empty_text(
                        &self.filter,
                        store.log_between(f64::NEG_INFINITY, upto),
                    ));
                }
                let strong = ui.visuals().strong_text_color();
                let dark = ui.visuals().dark_mode;
                for e in entries {
                    let color = match e.kind {
                        MarkKind::Error if dark => Color32::from_rgb(240, 90, 90),
                        MarkKind::Error => Color32::from_rgb(180, 20, 20),
                        MarkKind::Warning if dark => Color32::from_rgb(225, 175, 60),
                        MarkKind::Warning => Color32::from_rgb(140, 90, 0),
                        MarkKind::Correction | MarkKind::Replay => ui.visuals().text_color(),
                        MarkKind::OneShot => ui.visuals().weak_text_color(),
                        MarkKind::Change if dark => Color32::from_rgb(120, 170, 240),
                        MarkKind::Change => Color32::from_rgb(20, 80, 180),
                    };
                    let selected = self.selected == Some((e.t, e.machine));
                    let near = (cursor - e.t).abs() < 0.5;
                    let line = format!("{:7.3} s  {}: {}", e.t, e.machine, e.text);
                    // Rows after the cursor (kept after a click on an earlier row): weak.
                    let color = if e.t > cursor {
                        color.gamma_multiply(0.55)
                    } else {
                        color
                    };
                    let mut text = RichText::new(line).color(if near { strong } else { color });
                    if near {
                        text = text.strong();
                    }
                    ui.horizontal_top(|ui| {
                        // The selected row offers its move's journey.
                        if let (true, Some(m), Machine::Client(c)) =
                            (selected, e.move_id, e.machine)
                            && ui
                                .small_button("journey")
                                .on_hover_text(format!("The journey of client {c}'s move {m} (`movescope lineage` on the command line)."))
                                .clicked()
                        {
                            trace = Some((c, m, e.t));
                        }
                        // One line each; the selected row shows the whole entry.
                        ui.style_mut().wrap_mode = Some(if selected {
                            egui::TextWrapMode::Wrap
                        } else {
                            egui::TextWrapMode::Truncate
                        });
                        let r = ui.selectable_label(selected, text);
                        // A row cut to one line: its whole entry on hover, and what a click
                        // does (it moves the cursor, which leaves "follow live").
                        let r = if r.hovered() && !selected {
                            r.on_hover_text(format!(
                                "{}\n\nClick: show it whole and move the cursor to {:.3} s (the session view stops following live; End follows again).",
                                e.text, e.t
                            ))
                        } else {
                            r
                        };
                        if r.clicked() {
                            self.selected = (!selected).then_some((e.t, e.machine));
                            seek = Some(e.t);
                            self.kept = Some((upto, e.t));
                        }
                    });
                }
                // (Only when the last row is out of view: a list at its end asks for nothing.)
                if follow && ui.cursor().top() > ui.clip_rect().bottom() + 0.5 {
                    ui.scroll_to_cursor_animation(
                        Some(egui::Align::BOTTOM),
                        egui::style::ScrollAnimation::none(),
                    );
                }
            });
        if let Some((client, m, t)) = trace {
            actions.push(Action::Journey {
                client,
                move_id: Some(m),
                t,
                on_server: false,
            });
        }
        if let Some(t) = seek {
            actions.push(Action::Time(TimeCommand::Seek(t)));
        }
        actions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::telemetry::{Event, LogLevel, Record};

    /// Clicking a row moves the cursor back to it, and the rows after it stay listed.
    #[test]
    fn clicking_a_row_keeps_the_later_rows() {
        use egui_kittest::kittest::Queryable;
        let mut store = Store::new(None);
        for (t, text) in [
            (1.0, "first warning"),
            (2.0, "second warning"),
            (3.0, "third warning"),
        ] {
            store.ingest(&Record {
                t,
                machine: Machine::Server,
                event: Event::Log {
                    level: LogLevel::Warning,
                    text: text.into(),
                },
            });
        }
        // (the log, the cursor, what the log asked for)
        let state = (EventLog::default(), 5.0, Vec::<Action>::new());
        let mut h = egui_kittest::Harness::new_ui_state(
            move |ui, (log, cursor, asked): &mut (EventLog, f64, Vec<Action>)| {
                let actions = log.ui(ui, &store, *cursor);
                for a in &actions {
                    if let Action::Time(TimeCommand::Seek(t)) = a {
                        *cursor = *t;
                    }
                }
                asked.extend(actions);
            },
            state,
        );
        h.run();
        h.get_by_label_contains("first warning").click();
        h.run();
        // The pointer leaves the list (while hovered, the list holds still anyway).
        h.event(egui::Event::PointerGone);
        h.run();
        h.run();
        assert_eq!(h.state().1, 1.0, "the cursor moved to the row");
        h.get_by_label_contains("second warning");
        h.get_by_label_contains("third warning");
        // The cursor moved elsewhere: the list is up to it again.
        h.state_mut().1 = 1.5;
        h.run();
        assert!(h.query_by_label_contains("third warning").is_none());
    }

    #[test]
    fn filters_narrow_the_entries() {
        let mut store = Store::new(None);
        for (t, machine, level, text) in [
            (1.0, Machine::Client(0), LogLevel::Warning, "slow frame"),
            (2.0, Machine::Client(1), LogLevel::Error, "link lost"),
            (3.0, Machine::Server, LogLevel::Warning, "combine limit"),
        ] {
            store.ingest(&Record {
                t,
                machine,
                event: Event::Log {
                    level,
                    text: text.into(),
                },
            });
        }
        store.ingest(&Record {
            t: 4.0,
            machine: Machine::Server,
            event: Event::SessionChanged {
                what: "latency 50 -> 100 ms".into(),
            },
        });
        store.ingest(&Record {
            t: 3.5,
            machine: Machine::Client(0),
            event: Event::OneShot {
                pawn: 1,
                owner: Some(0),
                kind: crate::model::pawn::OneShotKind::DashFired,
                exec: crate::model::pawn::Execution::Replay,
            },
        });
        let texts = |f: &Filter, upto: f64| -> Vec<String> {
            f.entries(&store, upto, 100)
                .iter()
                .map(|e| e.text.clone())
                .collect()
        };
        let mut f = Filter::default();
        assert_eq!(texts(&f, 10.0).len(), 4);
        // Up to the cursor only.
        assert_eq!(texts(&f, 2.5).len(), 2);
        f.machine = Some(Machine::Client(1));
        assert_eq!(texts(&f, 10.0), vec!["link lost"]);
        f.machine = None;
        f.kinds = [true, false, true, false];
        assert_eq!(
            texts(&f, 10.0),
            vec!["session changed: latency 50 -> 100 ms"]
        );
        // One-shots are listed only when asked for.
        f.kinds = [false, false, false, true];
        assert_eq!(
            texts(&f, 10.0),
            vec!["one-shot DashFired raised on pawn 1 (client 0's) (Replay execution)"]
        );
        f.kinds = [true; 4];
        f.search = "LIMIT".into();
        assert_eq!(texts(&f, 10.0), vec!["combine limit"]);
        // The newest `limit`, oldest first.
        let f = Filter::default();
        let newest: Vec<f64> = f.entries(&store, 10.0, 2).iter().map(|e| e.t).collect();
        assert_eq!(newest, vec![3.0, 4.0]);
    }

    /// Following live with the one-shots listed (tens of entries a second), the newest row
    /// is in view every frame: the list never lags the cursor.
    #[test]
    fn following_live_with_one_shots_keeps_the_newest_row_in_view() {
        use egui_kittest::kittest::Queryable;
        let store = std::rc::Rc::new(std::cell::RefCell::new(Store::new(None)));
        let shared = store.clone();
        let mut log = EventLog::default();
        log.filter.kinds = [true; 4];
        let state = (log, 0.0f64);
        let mut h = egui_kittest::Harness::builder()
            .with_size(egui::vec2(400.0, 300.0))
            .build_ui_state(
                move |ui, (log, cursor): &mut (EventLog, f64)| {
                    let _ = log.ui(ui, &shared.borrow(), *cursor);
                },
                state,
            );
        h.event(egui::Event::PointerGone);
        // A few frames with nothing listed yet (the start of a session), then the entries.
        for _ in 0..5 {
            h.run_steps(1);
        }
        let mut n = 0u32;
        for frame in 0..240 {
            let now = 1.0 + f64::from(frame) / 60.0 * 4.0;
            // 30 one-shots a second, as a few pawns raise them.
            while f64::from(n) / 30.0 <= now {
                store.borrow_mut().ingest(&Record {
                    t: f64::from(n) / 30.0,
                    machine: Machine::Client(0),
                    event: Event::OneShot {
                        pawn: 1,
                        owner: Some(0),
                        kind: crate::model::pawn::OneShotKind::Footstep,
                        exec: crate::model::pawn::Execution::Live,
                    },
                });
                n += 1;
            }
            h.state_mut().1 = now;
            h.run_steps(1);
        }
        let newest = format!("{:7.3} s", f64::from(n - 1) / 30.0);
        let row = h.get_by_label_contains(&newest);
        let area = h.ctx.content_rect();
        assert!(
            area.contains_rect(row.rect()),
            "the newest row ({newest}) is in view: {:?} in {area:?}",
            row.rect()
        );
    }

    /// The pointer over the list holds it still, and the list says so, with how many newer
    /// entries wait: a held list is not mistaken for one lagging live.
    #[test]
    fn a_held_list_says_how_many_entries_wait() {
        use egui_kittest::kittest::Queryable;
        let mut store = Store::new(None);
        for t in 1..=6 {
            store.ingest(&Record {
                t: f64::from(t),
                machine: Machine::Server,
                event: Event::Log {
                    level: LogLevel::Warning,
                    text: format!("warning {t}"),
                },
            });
        }
        let state = (EventLog::default(), 2.5f64);
        let mut h = egui_kittest::Harness::builder()
            .with_size(egui::vec2(400.0, 300.0))
            .build_ui_state(
                move |ui, (log, cursor): &mut (EventLog, f64)| {
                    let _ = log.ui(ui, &store, *cursor);
                },
                state,
            );
        h.run();
        let row = h.get_by_label_contains("warning 2").rect().center();
        h.event(egui::Event::PointerMoved(row));
        h.run();
        h.state_mut().1 = 6.5;
        h.run();
        h.run();
        assert!(h.query_by_label_contains("warning 5").is_none(), "held");
        h.get_by_label_contains("4 newer entries wait");
        h.event(egui::Event::PointerGone);
        h.run();
        h.run();
        h.get_by_label_contains("warning 6");
        assert!(h.query_by_label_contains("newer entries wait").is_none());
    }
}
