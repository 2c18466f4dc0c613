//! The bindings table: every value the demo pawn binds, with its type and modes, editable
//! live. An edit is one binding change: consistent (GMC binds once per pawn, so every pawn is
//! respawned with the new list on every machine, as a new build would), or the clients only
//! (the binding-mismatch pitfall, switched at the clients' next move boundary).

use eframe::egui;
use egui::{Color32, RichText};

use super::action::{Action, SessionView};
use crate::model::binding::{
    Binding, BoundType, CombineMode, InterpolationFunction, PredictionMode, SimulationMode, Value,
};
use crate::model::pawn::Field;
use crate::net::live::Command;

pub const ORIGIN: &str = "bindings";

#[derive(Default)]
pub struct BindingsWindow {
    pub open: bool,
    /// Apply edits to the clients only (the binding-mismatch pitfall).
    pub clients_only: bool,
    /// Why the last edit was refused.
    error: Option<String>,
}

/// What goes wrong with a prediction mode, for the bindings table's tooltips.
fn prediction_risk(m: PredictionMode) -> &'static str {
    use PredictionMode::*;
    match m {
        ClientAuth_Output | ClientAuth_InputOutput => {
            "Risk: the server takes the client's value unchecked; a cheating or buggy client decides it."
        }
        Local => {
            "Risk: never synchronized; if it drives the movement, client and server diverge without any correction naming it."
        }
        ClientAuth_Input => "Risk: only for inputs; an output bound this way is never corrected.",
        _ => {
            "Risk: every validated value costs bits each move; validate what the move really needs."
        }
    }
}

fn combine_risk(m: CombineMode) -> &'static str {
    match m {
        CombineMode::AlwaysCombine => {
            "Risk: a one-frame press (the dash) mid-window is lost: the server never sees it (pitfall dash_always_combine)."
        }
        CombineMode::AlwaysCombineOverwrite => {
            "Risk: a press released before the move closes is lost."
        }
        CombineMode::NeverCombine => "Risk: one move per frame: 4× the moves at 120 fps.",
        CombineMode::CombineIfUnchanged | CombineMode::Default => {
            "Risk: a noisy analog input that changes every frame prevents combining."
        }
    }
}

fn simulation_risk(m: SimulationMode) -> &'static str {
    match m {
        SimulationMode::None => {
            "Risk: proxies never get it; an effect that needs it never plays on other machines (pitfall proxy_value_not_simulated)."
        }
        SimulationMode::Periodic_Input
        | SimulationMode::Periodic_Output
        | SimulationMode::Periodic_InputOutput => {
            "Risk: a change shorter than one state update (1 / net update rate) can be missed by proxies."
        }
        _ => "Risk: a value that changes every frame forces an update every frame (bandwidth).",
    }
}

fn interpolation_explain(f: InterpolationFunction) -> &'static str {
    match f {
        InterpolationFunction::NearestNeighbour => {
            "Proxies show the nearer of the two bracketing states: right for discrete values (flags, counters)."
        }
        InterpolationFunction::StartValue => "Proxies show the older bracketing state.",
        InterpolationFunction::TargetValue => "Proxies show the newer bracketing state.",
        InterpolationFunction::Linear => {
            "Straight line between the bracketing states: smooth positions; a flag would flicker through in-between values."
        }
        InterpolationFunction::Cubic => {
            "Monotone cubic through four states: smoothest for positions; never overshoots its bracket."
        }
    }
}

/// A combo box for one enum-valued cell, named for screen readers and tests as
/// "`row` `column`".
/// What a GMC built-in is and where its defaults come from (hover on its name).
fn built_in_explain(f: Field) -> Option<&'static str> {
    let text = match f {
        Field::Location => {
            "GMC built-in (ActorLocation): the actor's location. GMC's default: server-authoritative, validated by the server at 2.0 cm."
        }
        Field::Rotation => {
            "GMC built-in (ActorRotation): the actor's rotation. GMC's default: server-authoritative, validated by the server at 2.0°."
        }
        Field::Scale => {
            "GMC built-in (ActorScale): the actor's scale. GMC's default: server-authoritative, validated by the server at 0.01 — a hundredth, as fine as two-decimal compression can carry. The demo pawn keeps it at 1."
        }
        Field::Velocity => {
            "GMC built-in (LinearVelocity). GMC's default: server-authoritative, the server sends it and the client checks it at 10 cm/s."
        }
        Field::AngularVelocity => {
            "GMC built-in (AngularVelocity, °/s). GMC's default: server-authoritative, checked by the client at 10. The demo pawn's turn rate about Z."
        }
        Field::ControlRotation => {
            "GMC built-in (ControlRotation): where the player looks. GMC's default: a client-authoritative input the server uses unquestioned; it goes up with every move and to proxies. The demo pawn looks along its stick."
        }
        _ => return None,
    };
    Some(text)
}

fn enum_cell<T: Copy + PartialEq + std::fmt::Debug>(
    ui: &mut egui::Ui,
    row: &str,
    column: &str,
    value: &mut T,
    all: &[T],
    explain: impl Fn(T) -> String,
) -> bool {
    let before = *value;
    let width = match column {
        "prediction" => 270.0,
        "simulation" => 235.0,
        "interpolation" => 140.0,
        _ => 170.0,
    };
    let resp = egui::ComboBox::from_id_salt((row, column))
        .selected_text(format!("{value:?}"))
        .width(width)
        .show_ui(ui, |ui| {
            for v in all {
                ui.selectable_value(value, *v, format!("{v:?}"))
                    .on_hover_text(explain(*v));
            }
        });
    resp.response
        .accessible_name(format!("{row} {column}"))
        .on_hover_text(explain(*value));
    *value != before
}

impl BindingsWindow {
    /// The window over `current` (the list the server uses now). Returns the binding
    /// change the user made, if any.
    pub fn ui(
        &mut self,
        ctx: &egui::Context,
        view: &SessionView,
        current: &[Binding],
    ) -> Vec<Action> {
        if !self.open {
            return Vec::new();
        }
        let mut open = true;
        let mut edited = current.to_vec();
        let mut changed = false;
        let live = view.live;
        super::window(ctx, "Bindings")
            .open(&mut open)
            .default_width(1260.0)
            .default_pos(egui::pos2(10.0, 60.0))
            .show(ctx, |ui| {
                match &view.preset.component {
                    Some(c) => ui.label(format!("Every value the pawns bind (GMC's Bind* calls), in binding order: GMC's built-ins as movescope binds them, then {}'s own values (\"Your component\" window). Hover a cell for what the mode does and what goes wrong with it.", c.class)),
                    None => ui.label("Every value the demo pawn binds (GMC's Bind* calls), in binding order. Hover a cell for what the mode does and what goes wrong with it."),
                };
                ui.label(RichText::new("GMC binds once per pawn (BindReplicationData): an edit respawns every pawn with the new list on the server and every client, as a new build would. The session, its plots and its recording go on; the timeline marks the respawn.").italics());
                ui.horizontal(|ui| {
                    ui.checkbox(&mut self.clients_only, "apply to the clients only")
                        .on_hover_text("The binding-mismatch pitfall: the clients switch to the edited list, the server keeps its own. Exchanged states are read with the wrong layout.");
                    let reset = if view.preset.component.is_some() {
                        "Reset to the component's bindings"
                    } else {
                        "Reset to the demo pawn's bindings"
                    };
                    if ui.add_enabled(live, egui::Button::new(reset)).clicked() {
                        edited = view.preset.base_bindings();
                        changed = true;
                    }
                });
                if let Some(e) = &self.error {
                    ui.colored_label(Color32::from_rgb(230, 80, 80), e);
                }
                view.feedback.show(ui, ORIGIN);
                ui.add_enabled_ui(live, |ui| {
                    egui::ScrollArea::both().show(ui, |ui| {
                        egui::Grid::new("bindings table")
                            .striped(true)
                            .num_columns(8)
                            .show(ui, |ui| {
                                for h in [
                                    ("value", "The bound member of the pawn."),
                                    ("type", "The Bind* function: how the value is quantized and packed."),
                                    ("bits", "Wire bits of the value as it is now (bit-packed)."),
                                    ("prediction", "EGMC_PredictionMode: who owns the value and who checks it."),
                                    ("combine", "EGMC_CombineMode: what happens to it when frames merge into one move."),
                                    ("simulation", "EGMC_SimulationMode: whether simulated proxies receive it."),
                                    ("interpolation", "EGMC_InterpolationFunction: how proxies blend it between states."),
                                    ("tolerance", "A difference larger than this is a deviation (a correction)."),
                                ] {
                                    ui.label(RichText::new(h.0).strong()).on_hover_text(h.1);
                                }
                                ui.end_row();
                                for b in &mut edited {
                                    let row = b.name.to_string();
                                    let name = ui.label(&row);
                                    if let Some(text) = built_in_explain(b.field) {
                                        name.on_hover_text(text);
                                    }
                                    changed |= enum_cell(ui, &row, "type", &mut b.ty, &BoundType::ALL, |t| {
                                        format!("{t:?}")
                                    });
                                    // Any other kind of value gives the type's smallest size.
                                    let bits = b.ty.wire_bits(&Value::Bool(false));
                                    let fixed = matches!(
                                        b.ty,
                                        BoundType::Bool
                                            | BoundType::HalfByte
                                            | BoundType::Byte
                                            | BoundType::Int
                                            | BoundType::Float
                                            | BoundType::TruncatedDouble
                                            | BoundType::Double
                                            | BoundType::ActorReference
                                            | BoundType::ActorComponentReference
                                            | BoundType::AnimMontageReference
                                    );
                                    if fixed {
                                        ui.label(bits.to_string());
                                    } else {
                                        ui.label(format!("≥{bits}"))
                                            .on_hover_text("Grows with the value: bit-packed, this is its smallest size.");
                                    }
                                    changed |= enum_cell(ui, &row, "prediction", &mut b.prediction, &PredictionMode::ALL, |m| {
                                        format!("{}\n{}", m.explain(), prediction_risk(m))
                                    });
                                    changed |= enum_cell(ui, &row, "combine", &mut b.combine, &CombineMode::ALL, |m| {
                                        format!("{}\n{}", m.explain(), combine_risk(m))
                                    });
                                    changed |= enum_cell(ui, &row, "simulation", &mut b.simulation, &SimulationMode::ALL, |m| {
                                        format!("{}\n{}", m.explain(), simulation_risk(m))
                                    });
                                    changed |= enum_cell(ui, &row, "interpolation", &mut b.interpolation, &InterpolationFunction::ALL, |f| {
                                        interpolation_explain(f).to_string()
                                    });
                                    let before = b.tolerance;
                                    ui.add(
                                        egui::DragValue::new(&mut b.tolerance)
                                            .range(0.0..=1e6)
                                            .clamp_existing_to_range(false)
                                            .speed(0.01),
                                    )
                                    .accessible_name(format!("{row} tolerance"));
                                    changed |= b.tolerance != before;
                                    ui.end_row();
                                }
                            });
                    });
                });
            });
        self.open = open;
        if !(changed && live) {
            return Vec::new();
        }
        // Validated like a preset's binding overrides, then one consistent (or clients-only)
        // binding change.
        let mut p = view.preset.clone();
        p.set_binding_list(&edited);
        match p.bindings() {
            Ok(bindings) => {
                self.error = None;
                vec![Action::Session {
                    origin: ORIGIN,
                    command: Command::ChangeBindings {
                        bindings: Box::new(bindings),
                        consistent: !self.clients_only,
                    },
                }]
            }
            Err((field, e)) => {
                self.error = Some(format!("`{field}`: expected {e}"));
                Vec::new()
            }
        }
    }
}
