//! "Run with this layout" in the component window: the shown component's binding table as a
//! session (`Preset::component`), with the behaviour that drives each imported value shown and
//! editable, and, while such a session runs, the client bandwidth its table expects against
//! what the session measures.

use std::collections::BTreeMap;

use eframe::egui::{self, Color32, RichText};

use super::action::Action;
use crate::analysis::lint::{self, ComponentReport, Rates, SourceFile, run::run_layout};
use crate::model::binding::{Behaviour, InputKey};
use crate::model::telemetry::Machine;
use crate::net::live::Command;
use crate::session::imported::ImportedLayout;
use crate::session::preset::Preset;
use crate::session::store::{Metric, Store};

pub const ORIGIN: &str = "component";

/// Seconds of the bandwidth plot the measured figure averages.
pub const MEASURE_WINDOW_S: f64 = 10.0;

/// What the run panel reads of the shown session.
pub struct RunContext<'a> {
    pub preset: &'a Preset,
    /// A live session runs (its bindings can be changed).
    pub live: bool,
    /// Mean client → server bytes per second over the last [`MEASURE_WINDOW_S`].
    pub measured: Option<Measured>,
}

/// The clients' measured sending (means over clients of whole seconds of the store's tally,
/// the same seconds the "Bytes sent per second" plot shows).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    pub bytes_per_s: f64,
    /// Moves carried per second (new and repeated).
    pub moves_per_s: f64,
    /// Datagrams that carried them, per second.
    pub move_datagrams_per_s: f64,
    /// Bits of bound values per move on the wire.
    pub value_bits_per_move: Option<f64>,
    pub clients: usize,
    pub seconds: f64,
}

/// The mean over clients of what each sent per second in the whole seconds of the last
/// `window` seconds before `now`; none before a whole second is in.
pub fn measure(store: &Store, now: f64, window: f64) -> Option<Measured> {
    let mut all = Vec::new();
    for m in store.machines_with(Metric::BytesSent) {
        if !matches!(m, Machine::Client(_)) {
            continue;
        }
        if let Some(r) = store.sent_rates(m, now - window, now) {
            all.push(r);
        }
    }
    if all.is_empty() {
        return None;
    }
    let n = all.len() as f64;
    let mean = |f: fn(&crate::session::store::SentRates) -> f64| all.iter().map(f).sum::<f64>() / n;
    Some(Measured {
        bytes_per_s: mean(|r| r.bytes_per_s),
        moves_per_s: mean(|r| r.moves_per_s),
        move_datagrams_per_s: mean(|r| r.move_datagrams_per_s),
        value_bits_per_move: {
            let v: Vec<f64> = all.iter().filter_map(|r| r.value_bits_per_move).collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        },
        clients: all.len(),
        seconds: all.iter().map(|r| r.seconds).max().unwrap_or(0) as f64,
    })
}

/// What the table expects at the rates a session measured: its bits per move, the moves and
/// datagrams per second the session sent, the pings at their interval.
pub fn expected_at(t: &lint::Totals, m: &Measured) -> f64 {
    lint::client_bytes_at(t.move_bits, m.moves_per_s, m.move_datagrams_per_s) + t.ping_bytes_per_s
}

/// The expected client → server bytes per second of a session's binding list: the moves at
/// nominal sizes plus the pings.
pub fn expected(preset: &Preset) -> Option<(f64, lint::Totals)> {
    let b = preset.bindings().ok()?;
    let t = lint::binding_totals(b.list(), Rates::of(preset));
    Some((t.client_bytes_per_s + t.ping_bytes_per_s, t))
}

#[derive(Default)]
pub struct RunPanel {
    /// Behaviours the user chose, by (class, member).
    edits: BTreeMap<(String, String), Behaviour>,
    error: Option<String>,
}

/// The behaviours offered for a value: its guess first, then the others of its role.
fn choices(current: Behaviour, input: bool) -> Vec<Behaviour> {
    let period = current.period().unwrap_or(2.0);
    let key = match current {
        Behaviour::Press { key, .. } | Behaviour::Hold { key, .. } => key,
        _ => InputKey::Space,
    };
    if input {
        vec![
            Behaviour::Axis,
            Behaviour::Press {
                key,
                period_s: period,
            },
            Behaviour::Hold {
                key,
                period_s: period,
            },
            Behaviour::Toggle { period_s: period },
        ]
    } else {
        vec![
            Behaviour::Wave { period_s: period },
            Behaviour::Counter,
            Behaviour::Constant,
        ]
    }
}

fn kind(b: Behaviour) -> &'static str {
    match b {
        Behaviour::Axis => "move direction",
        Behaviour::Press { .. } => "press",
        Behaviour::Hold { .. } => "hold",
        Behaviour::Toggle { .. } => "toggle",
        Behaviour::Wave { .. } => "wave",
        Behaviour::Counter => "counter",
        Behaviour::Constant => "constant",
    }
}

fn explain(b: Behaviour) -> &'static str {
    match b {
        Behaviour::Axis => {
            "Input: the input script's move direction (a vector takes it whole, a number its x, a flag whether the pawn moves)."
        }
        Behaviour::Press { .. } => {
            "Input: pressed for one frame once per period (the input script), or while its key is down when you drive the pawn."
        }
        Behaviour::Hold { .. } => {
            "Input: held for the first half of each period (the input script), or while its key is down when you drive the pawn."
        }
        Behaviour::Toggle { .. } => "Input: flips once per period.",
        Behaviour::Wave { .. } => {
            "Output: a wave of the move's timestamp, raised while an input is active; computed by the prediction tick, so client and server agree."
        }
        Behaviour::Counter => {
            "Output: counts the iterations in which an input is active; computed by the prediction tick."
        }
        Behaviour::Constant => "Output: keeps its spawn value.",
    }
}

impl RunPanel {
    /// The layout the shown component runs as, with the user's behaviours.
    fn layout(&self, c: &ComponentReport, files: &[SourceFile]) -> (ImportedLayout, Vec<String>) {
        let run = run_layout(c, files);
        let mut layout = run.layout;
        for v in &mut layout.values {
            if let Some(b) = self.edits.get(&(layout.class.clone(), v.name.clone())) {
                v.behaviour = Some(*b);
            }
        }
        (layout, run.notes)
    }

    /// The preset "Run with this layout" starts: the shown session's settings, the demo's
    /// pitfall switches and binding overrides off, the component's layout on.
    fn preset(base: &Preset, layout: ImportedLayout) -> Preset {
        let mut p = base.clone();
        p.faults = Default::default();
        p.bindings.clear();
        p.lesson = None;
        p.title = format!("{}: your layout", layout.class);
        p.description = format!(
            "GMC's built-in values as movescope binds them, then {}'s own values as its BindReplicationData binds them (movescope lint).",
            layout.class
        );
        p.component = Some(layout);
        p
    }

    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        c: &ComponentReport,
        files: &[SourceFile],
        rc: &RunContext,
        light: bool,
    ) -> Vec<Action> {
        let mut actions = Vec::new();
        let (layout, notes) = self.layout(c, files);
        let running = rc
            .preset
            .component
            .as_ref()
            .is_some_and(|l| l.class == layout.class);
        ui.label(RichText::new("Your layout as a session").strong());
        ui.label("A session whose pawns bind GMC's built-in values (move input, location, rotation, scale, linear and angular velocity, control rotation, as movescope's pawn binds them), then this component's values with their types and modes as written. Wire sizes, packets, combining and bandwidth are then your layout's. Inputs are driven by the AI input script, or by their key while you drive a pawn; outputs are computed by the prediction tick from the move, identically on client and server (docs/lint.md, \"Run with this layout\").");
        for n in &notes {
            ui.weak(format!("• {n}"));
        }
        let problem = layout.problem();
        if let Some(p) = &problem {
            ui.colored_label(warn_colour(light), p);
        }
        let mut edited: Option<(String, Behaviour)> = None;
        egui::Grid::new(("behaviours", &layout.class))
            .striped(true)
            .num_columns(4)
            .show(ui, |ui| {
                for h in ["value", "role", "driven by", "period / key"] {
                    ui.label(RichText::new(h).strong());
                }
                ui.end_row();
                for v in &layout.values {
                    let input = v.prediction.is_input();
                    let mut b = v.behaviour();
                    let before = b;
                    ui.monospace(&v.name);
                    ui.label(if input { "input" } else { "output" })
                        .on_hover_text(v.prediction.explain());
                    egui::ComboBox::from_id_salt(("behaviour", &v.name))
                        .selected_text(kind(b))
                        .width(130.0)
                        .show_ui(ui, |ui| {
                            for choice in choices(b, input) {
                                ui.selectable_value(&mut b, choice, kind(choice))
                                    .on_hover_text(explain(choice));
                            }
                        })
                        .response
                        .accessible_name(format!("{} driven by", v.name))
                        .on_hover_text(explain(b));
                    ui.horizontal(|ui| {
                        if let Behaviour::Press { key, .. } | Behaviour::Hold { key, .. } = &mut b {
                            egui::ComboBox::from_id_salt(("key", &v.name))
                                .selected_text(key.label())
                                .width(60.0)
                                .show_ui(ui, |ui| {
                                    for k in InputKey::ALL {
                                        ui.selectable_value(key, k, k.label());
                                    }
                                })
                                .response
                                .accessible_name(format!("{} key", v.name));
                        }
                        let mut period = b.period();
                        if let Some(p) = period.as_mut() {
                            ui.add(
                                egui::DragValue::new(p)
                                    .range(0.1..=60.0)
                                    .speed(0.05)
                                    .suffix(" s"),
                            )
                            .accessible_name(format!("{} period", v.name));
                        }
                        if let Some(p) = period {
                            b = with_period(b, p);
                        }
                    });
                    if b != before {
                        edited = Some((v.name.clone(), b));
                    }
                    ui.end_row();
                }
            });
        if let Some((name, b)) = edited {
            self.edits.insert((layout.class.clone(), name), b);
        }
        // The list after this frame's edit.
        let (layout, _) = self.layout(c, files);
        ui.horizontal(|ui| {
            if !running {
                ui.weak("Changed behaviours take effect with \"Run with this layout\" (above).");
            }
            if running && rc.live {
                let differs = rc.preset.component.as_ref() != Some(&layout);
                let apply = ui
                    .add_enabled(differs, egui::Button::new("Apply to the running session"))
                    .on_hover_text("A binding change: every pawn is respawned with the new behaviours, as other binding edits do.");
                if apply.clicked() {
                    let mut p = rc.preset.clone();
                    p.component = Some(layout.clone());
                    match p.bindings() {
                        Ok(bindings) => {
                            self.error = None;
                            actions.push(Action::Session {
                                origin: ORIGIN,
                                command: Command::ChangeBindings {
                                    bindings: Box::new(bindings),
                                    consistent: true,
                                },
                            });
                        }
                        Err((key, e)) => self.error = Some(format!("`{key}`: expected {e}")),
                    }
                }
            }
        });
        if let Some(e) = &self.error {
            ui.colored_label(warn_colour(light), e);
        }
        actions
    }

    /// "Run with this layout": stop the shown session and start one whose pawns bind the
    /// shown component's layout with the behaviours chosen below it.
    pub fn run_button(
        &mut self,
        ui: &mut egui::Ui,
        c: &ComponentReport,
        files: &[SourceFile],
        rc: &RunContext,
    ) -> Vec<Action> {
        let (layout, _) = self.layout(c, files);
        let problem = layout.problem();
        let run = ui
            .add_enabled(problem.is_none(), egui::Button::new("Run with this layout"))
            .on_hover_text(problem.unwrap_or_else(|| "Stop the shown session and start one whose pawns bind this layout, driven as set under \"Your layout as a session\" (the shown session's network and GMC settings are kept).".into()));
        if !run.clicked() {
            return Vec::new();
        }
        let p = Self::preset(rc.preset, layout);
        match p.bindings() {
            Ok(_) => {
                self.error = None;
                vec![Action::Start {
                    name: p.title.clone(),
                    preset: Box::new(p),
                }]
            }
            Err((key, e)) => {
                self.error = Some(format!("`{key}`: expected {e}"));
                Vec::new()
            }
        }
    }
}

/// While a session runs `class`'s layout: its expected client bandwidth against the plot's.
pub fn session_bandwidth(ui: &mut egui::Ui, class: &str, rc: &RunContext, light: bool) {
    if rc
        .preset
        .component
        .as_ref()
        .is_some_and(|l| l.class == class)
    {
        bandwidth(ui, rc, light);
    }
}

fn with_period(b: Behaviour, p: f64) -> Behaviour {
    match b {
        Behaviour::Press { key, .. } => Behaviour::Press { key, period_s: p },
        Behaviour::Hold { key, .. } => Behaviour::Hold { key, period_s: p },
        Behaviour::Toggle { .. } => Behaviour::Toggle { period_s: p },
        Behaviour::Wave { .. } => Behaviour::Wave { period_s: p },
        other => other,
    }
}

fn warn_colour(light: bool) -> Color32 {
    if light {
        Color32::from_rgb(150, 100, 0)
    } else {
        Color32::from_rgb(235, 190, 80)
    }
}

/// The running session's expected client bandwidth against the plot's: at the preset's
/// nominal rates, and at the rates the session measured (the comparison that tests the
/// layout's sizes: combining depends on how evenly frames arrive, not on the layout).
fn bandwidth(ui: &mut egui::Ui, rc: &RunContext, light: bool) {
    let Some((want, t)) = expected(rc.preset) else {
        return;
    };
    ui.label(format!(
        "This session, per client to the server, at the preset's rates: expected {want:.0} B/s = moves {:.0} B/s ({} bits of values per move, GMC's built-ins included; {:.0} moves/s, {} frame{} each) + pings {:.0} B/s",
        t.client_bytes_per_s,
        t.move_bits,
        t.moves_per_s,
        t.frames_per_move,
        if t.frames_per_move == 1 { "" } else { "s" },
        t.ping_bytes_per_s
    ))
    .on_hover_text("From the table: nominal sizes (two-decimal values 1000 per component, inputs 1 as an axis, rotators 180°), the preset's frame rate, combining and send rate, datagram headers and move framing.");
    let m = match rc.measured {
        Some(m) if m.seconds >= 3.0 => m,
        _ => {
            ui.weak("Measured: waiting for a few seconds of the \"Bytes sent per second\" plot.");
            return;
        }
    };
    let at = expected_at(&t, &m);
    let off = (m.bytes_per_s - at) / at.max(1.0) * 100.0;
    let nominal_off = (m.bytes_per_s - want) / want.max(1.0) * 100.0;
    let text = format!(
        "Measured (\"Bytes sent per second\" plot, mean of {} client{} over the last {:.0} s): {:.0} B/s ({nominal_off:+.1} % from the preset's rates). At the {:.1} moves/s in {:.1} datagrams/s the session sent, the table expects {at:.0} B/s: {off:+.1} %",
        m.clients,
        if m.clients == 1 { "" } else { "s" },
        m.seconds,
        m.bytes_per_s,
        m.moves_per_s,
        m.move_datagrams_per_s,
    );
    let why = "The table's bits per move against the wire: the moves and datagrams per second are the session's own. A live session combines fewer frames than its nominal frame rate suggests: two frames at 60 fps add up to 0.03333 s against MaxCombinedDeltaTime 0.03334 s, so a frame a few microseconds late starts a new move.";
    if off.abs() <= 5.0 {
        ui.label(text).on_hover_text(why);
    } else {
        ui.colored_label(warn_colour(light), text).on_hover_text(format!("{why}\n\nMore than 5 % off at the session's own rates: idle inputs and small values take fewer bits than nominal, values far above their nominal size more."));
    }
    if let Some(bits) = m.value_bits_per_move {
        ui.label(format!(
            "Bits of values per move: the table {} (nominal sizes), the wire {bits:.1} ({:+.1} %)",
            t.move_bits,
            (bits - f64::from(t.move_bits)) / f64::from(t.move_bits.max(1)) * 100.0
        ))
        .on_hover_text("Two-decimal values take the bits their size needs: a still stick, a pawn near the origin or a small number cost fewer bits than the table's nominal 1000 per component (1 for an input's axis), a far location more.");
    }
}
