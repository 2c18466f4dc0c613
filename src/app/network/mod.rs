//! The Network editor: link conditions per client and per direction, named profiles, scripted
//! outages and lag spikes. It shows the *effective* link of what it edits (the session's
//! per-client, per-direction links); where the selected links differ it says so ("mixed:
//! 0–100") instead of showing one of them. An edit changes only the field edited, on each
//! selected link: editing jitter for all clients leaves every latency as it was.

use eframe::egui;
use egui::{Color32, RichText};

mod trace;

use super::action::{Action, SessionView};
use crate::conditions::link::{LagSpike, LinkParams, Window};
use crate::net::live::Command;
use crate::session::preset::{Direction, Preset};
use crate::support::ranges;

/// Where the editor's outcomes are shown.
pub const ORIGIN: &str = "network";

/// Named network profiles (one-way delay ms, jitter ms, loss): the common presets of network
/// simulators (Unity's Network Simulator list), applied per direction.
pub const PROFILES: [(&str, f64, f64, f64); 16] = [
    ("Perfect (loopback)", 0.0, 0.0, 0.0),
    ("Home Fiber", 10.0, 1.0, 0.0),
    ("Home Cable", 25.0, 5.0, 0.0),
    ("Home DSL", 30.0, 10.0, 0.0),
    ("Home Broadband", 32.0, 12.0, 0.02),
    ("Home Satellite", 100.0, 10.0, 0.0),
    ("Congested", 50.0, 50.0, 0.01),
    ("Mobile 5G", 30.0, 20.0, 0.04),
    ("Mobile 4.5G", 80.0, 20.0, 0.04),
    ("Mobile 4G", 100.0, 20.0, 0.04),
    ("Mobile 3.75G", 130.0, 30.0, 0.06),
    ("Mobile 3.5G", 160.0, 30.0, 0.06),
    ("Mobile 3G", 360.0, 30.0, 0.07),
    ("Mobile 2.75G", 440.0, 40.0, 0.07),
    ("Mobile 2.5G", 480.0, 40.0, 0.07),
    ("Mobile 2G", 520.0, 50.0, 0.07),
];

/// Sets one field of a link.
type Setter = fn(&mut LinkParams, f64);

/// One numeric field of a link, as the editor shows it.
struct Field {
    key: &'static str,
    label: &'static str,
    help: &'static str,
    get: fn(&LinkParams) -> f64,
    set: Setter,
    log: bool,
    /// Decimals shown.
    decimals: usize,
}

const MAIN_FIELDS: [Field; 3] = [
    Field {
        key: "link.latency_ms",
        label: "latency ms",
        help: "One-way latency.",
        get: |l| l.latency_ms,
        set: |l, v| l.latency_ms = v,
        log: true,
        decimals: 0,
    },
    Field {
        key: "link.jitter_ms",
        label: "jitter ms",
        help: "Random extra delay per packet (uniform by default).",
        get: |l| l.jitter_ms,
        set: |l, v| l.jitter_ms = v,
        log: true,
        decimals: 0,
    },
    Field {
        key: "link.loss",
        label: "loss",
        help: "Probability that a datagram is lost.",
        get: |l| l.loss,
        set: |l, v| l.loss = v,
        log: false,
        decimals: 3,
    },
];

const MORE_FIELDS: [Field; 4] = [
    Field {
        key: "link.duplicate",
        label: "duplicate",
        help: "Probability that a datagram arrives twice.",
        get: |l| l.duplicate,
        set: |l, v| l.duplicate = v,
        log: false,
        decimals: 3,
    },
    Field {
        key: "link.burst_enter",
        label: "burst start",
        help: "Gilbert–Elliott burst loss: chance per packet to enter the bad state (0: off).",
        get: |l| l.burst_enter,
        set: |l, v| l.burst_enter = v,
        log: false,
        decimals: 3,
    },
    Field {
        key: "link.burst_exit",
        label: "burst end",
        help: "Chance per packet to leave the bad state.",
        get: |l| l.burst_exit,
        set: |l, v| l.burst_exit = v,
        log: false,
        decimals: 3,
    },
    Field {
        key: "link.bandwidth_kbps",
        label: "kbit/s cap",
        help: "Bandwidth cap (0: unlimited).",
        get: |l| l.bandwidth_kbps,
        set: |l, v| l.bandwidth_kbps = v,
        log: true,
        decimals: 0,
    },
];

/// The editor's own state: what it edits.
pub struct NetworkPanel {
    /// Which client (`None`: all) and which direction.
    pub target: Option<u16>,
    pub direction: Direction,
    outage_seconds: f64,
    /// The trace file field, and why the last one could not be read.
    trace_path: String,
    trace_error: Option<String>,
    /// The last typed value refused, and why (shown until a valid edit).
    refused: Option<String>,
}

impl Default for NetworkPanel {
    fn default() -> Self {
        NetworkPanel {
            target: None,
            direction: Direction::Both,
            outage_seconds: 3.0,
            trace_path: String::new(),
            trace_error: None,
            refused: None,
        }
    }
}

/// A trace in words: its statistics (for the editor and its hover).
pub fn describe_trace(t: &crate::conditions::trace::Trace) -> String {
    let s = t.stats();
    format!(
        "{}: {} samples over {:.0} s; round trip mean {:.1} ms, p99 {:.1} ms; loss {:.1} % ({} runs of losses, mean {:.1}, longest {})",
        t.source,
        s.samples,
        s.seconds,
        s.rtt_mean_ms,
        s.rtt_p99_ms,
        s.loss * 100.0,
        s.bursts,
        s.burst_mean,
        s.burst_max
    )
}

/// The links the editor edits: (client, up) for each selected client and direction.
pub fn selected_links(
    preset: &Preset,
    clients: &[u16],
    target: Option<u16>,
    direction: Direction,
) -> Vec<(u16, bool, LinkParams)> {
    let ids: Vec<u16> = match target {
        Some(c) => vec![c],
        None => clients.to_vec(),
    };
    let mut out = Vec::new();
    for c in ids {
        for up in [true, false] {
            let hit = match direction {
                Direction::Both => true,
                Direction::Up => up,
                Direction::Down => !up,
            };
            if hit {
                out.push((c, up, preset.link_params(c, up)));
            }
        }
    }
    out
}

/// The commands that give each selected link `edit` applied to its own current value: one
/// command per client when both of its directions end up equal, else one per direction.
pub fn link_commands(
    links: &[(u16, bool, LinkParams)],
    edit: impl Fn(&mut LinkParams),
) -> Vec<Command> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < links.len() {
        let (c, up, ref l) = links[i];
        let mut new = l.clone();
        edit(&mut new);
        // Up and down of one client are adjacent: merge them when they end up equal.
        if let Some((c2, false, l2)) = links.get(i + 1).filter(|n| n.0 == c && up) {
            let mut new2 = l2.clone();
            edit(&mut new2);
            if new == new2 {
                out.push(Command::SetLink {
                    client: *c2,
                    direction: Direction::Both,
                    params: new,
                });
            } else {
                out.push(Command::SetLink {
                    client: c,
                    direction: Direction::Up,
                    params: new,
                });
                out.push(Command::SetLink {
                    client: c,
                    direction: Direction::Down,
                    params: new2,
                });
            }
            i += 2;
            continue;
        }
        out.push(Command::SetLink {
            client: c,
            direction: if up { Direction::Up } else { Direction::Down },
            params: new,
        });
        i += 1;
    }
    out
}

/// [`link_commands`] as the pane's actions.
fn link_actions(
    links: &[(u16, bool, LinkParams)],
    edit: impl Fn(&mut LinkParams),
) -> impl Iterator<Item = Action> {
    link_commands(links, edit)
        .into_iter()
        .map(|command| Action::Session {
            origin: ORIGIN,
            command,
        })
}

/// "12" or "mixed: 0–100" for the values of one field over the selected links.
pub fn describe_values(values: &[f64]) -> Option<String> {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if values.is_empty() || lo == hi {
        None
    } else {
        Some(format!("mixed: {}–{}", trim(lo), trim(hi)))
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl NetworkPanel {
    pub fn ui(&mut self, ui: &mut egui::Ui, view: &SessionView) -> Vec<Action> {
        let mut actions = Vec::new();
        ui.heading("Network").on_hover_text(
            "Link conditions, per client and per direction (up: client to server, down: server \
             to client). The numbers are the links in effect for what you edit; \"mixed\" when \
             the selected links differ. An edit changes only that number on each selected link.",
        );
        if self.target.is_some_and(|c| !view.client_ids.contains(&c)) {
            self.target = None;
        }
        self.target_row(ui, view);
        let links = selected_links(view.preset, &view.client_ids, self.target, self.direction);
        // Slider, value and label fit the pane's width.
        ui.spacing_mut().slider_width = (ui.available_width() - 170.0).clamp(50.0, 220.0);
        if links.is_empty() {
            ui.weak("No client links in this session.");
            return actions;
        }
        let profile = profile_choice(ui);
        let mut edits = self.main_fields(ui, &links);
        egui::CollapsingHeader::new("more link settings").show(ui, |ui| {
            edits.extend(self.more_fields(ui, &links, &mut actions));
        });
        actions.extend(self.trace_ui(ui, &links));
        if let Some(i) = profile {
            let (_, d, j, l) = PROFILES[i];
            actions.extend(link_actions(&links, |link| {
                link.latency_ms = d;
                link.jitter_ms = j;
                link.loss = l;
            }));
        }
        for (set, v) in edits {
            actions.extend(link_actions(&links, |l| set(l, v)));
        }
        actions.extend(self.events_row(ui, &links, view.now));
        scheduled_note(ui, &links, view.now);
        view.feedback.show(ui, ORIGIN);
        if !view.live {
            actions.clear();
        }
        actions
    }

    /// Which links an edit changes: all clients or one, both directions or one. Wrapped: with
    /// the lesson panel open the Controls pane is narrower than the row, and a clipped
    /// direction box hides which links an edit changes.
    fn target_row(&mut self, ui: &mut egui::Ui, view: &SessionView) {
        ui.horizontal_wrapped(|ui| {
            ui.label("edit");
            // Narrow enough that the row fits the Controls pane at 1280×800.
            egui::ComboBox::from_id_salt("net target")
                .width(84.0)
                .selected_text(match self.target {
                    None => "all clients".to_string(),
                    Some(c) => format!("client {c}"),
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.target, None, "all clients");
                    for id in &view.client_ids {
                        ui.selectable_value(&mut self.target, Some(*id), format!("client {id}"));
                    }
                })
                .response
                .accessible_name("link of");
            egui::ComboBox::from_id_salt("net direction")
                .width(62.0)
                .selected_text(format!("{:?}", self.direction))
                .show_ui(ui, |ui| {
                    for (d, help) in [
                        (Direction::Both, "both directions"),
                        (Direction::Up, "client to server"),
                        (Direction::Down, "server to client"),
                    ] {
                        ui.selectable_value(&mut self.direction, d, format!("{d:?}"))
                            .on_hover_text(help);
                    }
                })
                .response
                .accessible_name("direction");
        });
    }

    /// Latency, jitter and loss (greyed while a trace replays: their sliders would not tell
    /// the truth); returns the edits made.
    fn main_fields(
        &mut self,
        ui: &mut egui::Ui,
        links: &[(u16, bool, LinkParams)],
    ) -> Vec<(Setter, f64)> {
        let mut edits = Vec::new();
        let traced = links.iter().all(|(_, _, l)| l.trace.is_some());
        ui.add_enabled_ui(!traced, |ui| {
            for f in &MAIN_FIELDS {
                if let Some(v) = field_row(ui, f, links, &mut self.refused) {
                    edits.push((f.set, v));
                }
            }
        });
        if let Some(r) = &self.refused {
            ui.colored_label(ui.visuals().error_fg_color, r);
        }
        if traced {
            ui.weak("Latency, jitter and loss come from the trace (below) while it replays.");
        }
        edits
    }

    /// The rarer link settings and reordering; returns the edits made (reordering's
    /// change goes to `actions` at once).
    fn more_fields(
        &mut self,
        ui: &mut egui::Ui,
        links: &[(u16, bool, LinkParams)],
        actions: &mut Vec<Action>,
    ) -> Vec<(Setter, f64)> {
        let mut edits = Vec::new();
        for f in &MORE_FIELDS {
            if let Some(v) = field_row(ui, f, links, &mut self.refused) {
                edits.push((f.set, v));
            }
        }
        let reorder: Vec<bool> = links.iter().map(|(_, _, l)| l.reorder).collect();
        let mut on = reorder[0];
        let mixed = reorder.iter().any(|r| *r != on);
        let label = if mixed { "reorder (mixed)" } else { "reorder" };
        if ui
            .checkbox(&mut on, label)
            .on_hover_text("Let jitter reorder datagrams (off: first in, first out).")
            .changed()
        {
            actions.extend(link_actions(links, |l| l.reorder = on));
        }
        edits
    }

    /// An outage or a lag spike on the selected links, from now, for the seconds chosen.
    fn events_row(
        &mut self,
        ui: &mut egui::Ui,
        links: &[(u16, bool, LinkParams)],
        now: f64,
    ) -> Vec<Action> {
        let mut actions = Vec::new();
        ui.horizontal_wrapped(|ui| {
            ui.add(
                egui::DragValue::new(&mut self.outage_seconds)
                    .range(0.1..=30.0)
                    .suffix(" s"),
            )
            .accessible_name("outage seconds");
            let secs = self.outage_seconds;
            if ui
                .button("Outage now")
                .on_hover_text(
                    "Every datagram on the selected links is lost for that long, from now.",
                )
                .clicked()
            {
                actions.extend(link_actions(links, |l| {
                    l.outages.push(Window {
                        start_s: now,
                        duration_s: secs,
                    })
                }));
            }
            if ui
                .button("Lag spike now")
                .on_hover_text(
                    "200 ms extra latency on the selected links for that long, from now.",
                )
                .clicked()
            {
                actions.extend(link_actions(links, |l| {
                    l.lag_spikes.push(LagSpike {
                        start_s: now,
                        duration_s: secs,
                        extra_ms: 200.0,
                    })
                }));
            }
        });
        actions
    }
}

/// A shipped link profile picked from the list, if one was.
fn profile_choice(ui: &mut egui::Ui) -> Option<usize> {
    let mut profile: Option<usize> = None;
    egui::ComboBox::from_label("profile")
        .selected_text("choose…")
        .height(420.0)
        .show_ui(ui, |ui| {
            for (i, (name, d, j, l)) in PROFILES.iter().enumerate() {
                ui.selectable_value(&mut profile, Some(i), *name)
                    .on_hover_text(format!(
                        "{d} ms one way, {j} ms jitter, {:.0} % loss",
                        l * 100.0
                    ));
            }
        });
    profile
}

/// How many outages and lag spikes run or wait on the busiest selected link, said when any.
fn scheduled_note(ui: &mut egui::Ui, links: &[(u16, bool, LinkParams)], now: f64) {
    let scheduled: usize = links
        .iter()
        .map(|(_, _, l)| {
            l.outages
                .iter()
                .filter(|w| w.start_s + w.duration_s > now)
                .count()
                + l.lag_spikes
                    .iter()
                    .filter(|w| w.start_s + w.duration_s > now)
                    .count()
        })
        .max()
        .unwrap_or(0);
    if scheduled > 0 {
        ui.colored_label(
            Color32::from_rgb(230, 160, 60),
            format!("{scheduled} outage(s)/lag spike(s) running or scheduled"),
        );
    }
}

/// One field's row: a slider showing the effective value (or "mixed: a–b"), accepting what
/// preset validation accepts. Returns the new value when the user edited it: a typed value
/// when the edit is finished (Enter or focus leaving), never per keystroke; one outside the
/// range is refused with a message (`refused`), not clamped.
/// Narrows the slider so slider, value box and `label` fit the pane's width (a long label,
/// "burst start", beside a narrow pane was cut); `false` when even a short slider leaves the
/// label no room beside it (it then goes above).
fn fit_slider(ui: &mut egui::Ui, label: &str) -> bool {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let text = ui
        .painter()
        .layout_no_wrap(label.to_string(), font, Color32::WHITE)
        .size()
        .x;
    let gap = ui.spacing().item_spacing.x;
    // The value box beside the slider (a value like "0.000").
    let value = 46.0;
    let room = ui.available_width() - text - value - 2.0 * gap - 2.0;
    let beside = room >= 32.0;
    let room = if beside {
        room
    } else {
        ui.available_width() - value - gap - 2.0
    };
    let s = ui.spacing_mut();
    s.slider_width = room.clamp(32.0, s.slider_width);
    beside
}

fn field_row(
    ui: &mut egui::Ui,
    f: &Field,
    links: &[(u16, bool, LinkParams)],
    refused: &mut Option<String>,
) -> Option<f64> {
    let values: Vec<f64> = links.iter().map(|(_, _, l)| (f.get)(l)).collect();
    let mixed = describe_values(&values);
    let range = ranges::of(f.key);
    let mut v = values.iter().copied().fold(f64::INFINITY, f64::min);
    let mut slider = egui::Slider::new(&mut v, range.inclusive())
        .logarithmic(f.log)
        .fixed_decimals(f.decimals)
        .clamping(egui::SliderClamping::Never)
        .update_while_editing(false);
    if let Some(m) = mixed.clone() {
        slider = slider.custom_formatter(move |_, _| m.clone());
    }
    let resp = ui
        .scope(|ui| {
            if fit_slider(ui, f.label) {
                ui.add(slider.text(f.label))
            } else {
                // Too narrow for the label beside: above it, the slider named by it.
                ui.label(f.label);
                ui.add(slider).on_hover_text(f.label)
            }
        })
        .inner
        .on_hover_text(format!("{}\nAccepts {}.", f.help, range.expected()));
    if mixed.is_some() {
        ui.label(
            RichText::new(format!(
                "{}: the selected links differ; a drag sets them all",
                f.label
            ))
            .small()
            .weak(),
        );
    }
    if !resp.changed() {
        return None;
    }
    if range.contains(v) {
        *refused = None;
        Some(v)
    } else {
        *refused = Some(format!(
            "{} refused: {v} is not {}; the link keeps its value.",
            f.label,
            range.expected()
        ));
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_is_a_valid_link() {
        for (name, d, j, l) in PROFILES {
            let link = LinkParams {
                latency_ms: d,
                jitter_ms: j,
                loss: l,
                ..LinkParams::default()
            };
            assert!(link.validate().is_ok(), "{name}");
        }
    }

    fn preset_with_client0_at(latency: f64) -> Preset {
        let mut p = Preset {
            clients: 3,
            ..Preset::default()
        };
        p.link.latency_ms = 0.0;
        p.link_overrides.push(crate::session::preset::LinkOverride {
            client: 0,
            direction: Direction::Both,
            link: LinkParams {
                latency_ms: latency,
                jitter_ms: 10.0,
                ..LinkParams::default()
            },
        });
        p
    }

    #[test]
    fn the_editor_reads_each_clients_effective_link() {
        let p = preset_with_client0_at(100.0);
        let one = selected_links(&p, &[0, 1, 2], Some(0), Direction::Both);
        assert_eq!(one.len(), 2);
        assert!(one.iter().all(|(_, _, l)| l.latency_ms == 100.0));
        let all = selected_links(&p, &[0, 1, 2], None, Direction::Both);
        let lat: Vec<f64> = all.iter().map(|(_, _, l)| l.latency_ms).collect();
        assert_eq!(describe_values(&lat).as_deref(), Some("mixed: 0–100"));
        assert_eq!(describe_values(&[5.0, 5.0]), None);
    }

    #[test]
    fn an_edit_changes_only_its_field_on_every_selected_link() {
        let p = preset_with_client0_at(100.0);
        let all = selected_links(&p, &[0, 1, 2], None, Direction::Both);
        let cmds = link_commands(&all, |l| l.jitter_ms = 25.0);
        // One command per client (its two directions are equal).
        assert_eq!(cmds.len(), 3);
        for c in cmds {
            let Command::SetLink {
                client,
                direction,
                params,
            } = c
            else {
                panic!("not a link command");
            };
            assert_eq!(direction, Direction::Both);
            assert_eq!(params.jitter_ms, 25.0);
            let before = p.link_params(client, true);
            assert_eq!(params.latency_ms, before.latency_ms, "client {client}");
        }
    }

    #[test]
    fn directions_that_differ_stay_apart() {
        let mut p = preset_with_client0_at(100.0);
        p.link_overrides.push(crate::session::preset::LinkOverride {
            client: 0,
            direction: Direction::Down,
            link: LinkParams {
                latency_ms: 7.0,
                ..LinkParams::default()
            },
        });
        let links = selected_links(&p, &[0], Some(0), Direction::Both);
        let cmds = link_commands(&links, |l| l.loss = 0.1);
        assert_eq!(cmds.len(), 2);
        let up = selected_links(&p, &[0], Some(0), Direction::Up);
        let cmds = link_commands(&up, |l| l.loss = 0.1);
        assert!(matches!(
            &cmds[..],
            [Command::SetLink {
                direction: Direction::Up,
                ..
            }]
        ));
    }
}
