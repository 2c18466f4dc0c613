//! The app's settings panels: session, network (per client and direction, named profiles,
//! scripted outages and lag spikes), the bindings table, GMC settings, driving a pawn from
//! the keyboard, and presets. Every change goes to the live session as a [`Command`] and into
//! the app's copy of the preset (what "Save preset" writes and a restart uses).

use std::path::PathBuf;

use eframe::egui;
use egui::{Color32, RichText};
use glam::DVec2;

use super::MovescopeApp;
use crate::live::Command;
use crate::model::binding::{
    Binding, BoundType, CombineMode, InterpolationFunction, PredictionMode, SimulationMode, Value,
};
use crate::model::input::RawInput;
use crate::model::pawn::default_bindings;
use crate::model::settings::NetMode;
use crate::preset::{BindingOverride, Direction};
use crate::sim::link::{LagSpike, LinkParams, Window};

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

impl MovescopeApp {
    /// The binding list the session uses now (from the app's preset).
    fn current_bindings(&self) -> Vec<Binding> {
        self.options
            .preset
            .bindings()
            .map(|b| b.list().to_vec())
            .unwrap_or_else(|_| default_bindings(&self.faults))
    }

    /// Applies an edited binding list: preset overrides for what differs from the demo
    /// pawn's defaults, then a binding change in the session.
    pub(super) fn apply_bindings(&mut self, edited: &[Binding]) {
        let defaults = default_bindings(&self.faults);
        let overrides: Vec<BindingOverride> = edited
            .iter()
            .filter(|b| defaults.iter().find(|d| d.name == b.name) != Some(*b))
            .map(|b| BindingOverride {
                name: b.name.to_string(),
                ty: Some(b.ty),
                prediction: Some(b.prediction),
                combine: Some(b.combine),
                simulation: Some(b.simulation),
                interpolation: Some(b.interpolation),
                tolerance: Some(b.tolerance),
            })
            .collect();
        let mut p = self.options.preset.clone();
        p.bindings = overrides;
        match p.bindings() {
            Ok(b) => {
                self.options.preset = p;
                self.bindings_error = None;
                self.command(Command::ChangeBindings {
                    bindings: b,
                    consistent: !self.bindings_clients_only,
                });
            }
            Err((field, e)) => self.bindings_error = Some(format!("`{field}`: expected {e}")),
        }
    }

    pub(super) fn bindings_window(&mut self, ctx: &egui::Context) {
        if !self.bindings_open {
            return;
        }
        let mut open = true;
        let mut edited = self.current_bindings();
        let mut changed = false;
        let live = self.session.is_some();
        egui::Window::new("Bindings")
            .open(&mut open)
            .default_width(1260.0)
            .default_pos(egui::pos2(10.0, 60.0))
            .show(ctx, |ui| {
                ui.label("Every value the demo pawn binds (GMC's Bind* calls), in binding order. Hover a cell for what the mode does and what goes wrong with it; a change applies at the next move boundary on the server and every client.");
                ui.horizontal(|ui| {
                    ui.checkbox(&mut self.bindings_clients_only, "apply to the clients only")
                        .on_hover_text("The binding-mismatch pitfall: the clients switch to the edited list, the server keeps its own. Exchanged states are read with the wrong layout.");
                    if ui.add_enabled(live, egui::Button::new("Reset to the demo pawn's bindings")).clicked() {
                        edited = default_bindings(&self.faults);
                        changed = true;
                    }
                });
                if let Some(e) = &self.bindings_error {
                    ui.colored_label(Color32::from_rgb(230, 80, 80), e);
                }
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
                                    ui.label(&row);
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
        self.bindings_open = open;
        if changed && live {
            self.apply_bindings(&edited);
        }
    }

    pub(super) fn gmc_window(&mut self, ctx: &egui::Context) {
        if !self.gmc_open {
            return;
        }
        let mut open = true;
        let mut g = self.options.preset.gmc;
        let mut sm = self.options.preset.smoothing;
        let mut rate = self.options.preset.net_update_rate;
        let live = self.session.is_some();
        egui::Window::new("GMC settings")
            .open(&mut open)
            .default_width(420.0)
            .show(ctx, |ui| {
                ui.add_enabled_ui(live, |ui| {
                    egui::Grid::new("gmc").num_columns(2).striped(true).show(ui, |ui| {
                        let num = |ui: &mut egui::Ui, name: &str, help: &str, v: &mut f64, range: std::ops::RangeInclusive<f64>, speed: f64| {
                            ui.label(name).on_hover_text(help);
                            ui.add(egui::DragValue::new(v).range(range).speed(speed))
                                .accessible_name(name)
                                .on_hover_text(help);
                            ui.end_row();
                        };
                        num(ui, "MaxTimeStep (s)", "A move whose delta is larger is sub-stepped into slices of at most this.", &mut g.max_time_step, 0.001..=1.0, 0.001);
                        num(ui, "MaxMoveDeltaTime (s)", "A move's delta (from timestamps) is clamped to this.", &mut g.max_move_delta_time, 0.001..=2.0, 0.001);
                        num(ui, "MaxCombinedDeltaTime (s)", "A pending move absorbs frames while its delta stays within this.", &mut g.max_combined_delta_time, 0.0..=1.0, 0.001);
                        num(ui, "ClientSendRate (1/s)", "Completed moves are sent at most this often, batched.", &mut g.client_send_rate, 1.0..=240.0, 1.0);
                        num(ui, "WorldTimeUpdateInterval (s)", "How often each world-time replicator sends the server clock.", &mut g.world_time_update_interval, 0.05..=30.0, 0.05);
                        num(ui, "PostSpawnSmoothingPause (s)", "A new proxy shows no replicated state for this long.", &mut g.post_spawn_smoothing_pause, 0.0..=10.0, 0.05);
                        num(ui, "move gap timeout (s)", "movescope's choice: how long the server waits for a missing move before skipping it.", &mut g.move_gap_timeout, 0.01..=10.0, 0.01);
                        num(ui, "ping interval (s)", "movescope's choice: seconds between pings.", &mut g.ping_interval, 0.05..=30.0, 0.05);
                        ui.label("MaxIterations").on_hover_text("At most this many sub-steps per move.");
                        ui.add(egui::DragValue::new(&mut g.max_iterations).range(1..=64)).accessible_name("MaxIterations");
                        ui.end_row();
                        ui.label("MoveHistoryMaxSize").on_hover_text("Moves kept on the client for replay.");
                        ui.add(egui::DragValue::new(&mut g.move_history_max_size).range(1..=4096)).accessible_name("MoveHistoryMaxSize");
                        ui.end_row();
                        ui.label("reliable pending threshold").on_hover_text("movescope's choice: pending reliable move packets beyond which moves are sent unreliably.");
                        ui.add(egui::DragValue::new(&mut g.reliable_pending_threshold).range(0..=64)).accessible_name("reliable pending threshold");
                        ui.end_row();
                    });
                    for (flag, name, help) in [
                        (&mut g.use_client_replay, "bUseClientReplay", "Re-execute pending moves after adopting a correction. Off: the pawn snaps to the server's old state and stays behind."),
                        (&mut g.force_full_validation, "ForceFullSyncDataValidation", "List every deviating value in a correction, not only the first."),
                        (&mut g.use_client_prediction, "bUseClientPrediction", "Off: the owning client shows its pawn smoothed, like a proxy (input lag of a round trip)."),
                        (&mut g.roll_back_server_pawns, "bRollBackServerPawns", "The server checks a mover's hits against the other pawns as that client saw them."),
                        (&mut g.roll_back_client_pawns, "bRollBackClientPawns", "A replaying client reads the other pawns as they were at the move's view time."),
                    ] {
                        ui.checkbox(flag, name).on_hover_text(help);
                    }
                    ui.separator();
                    ui.label(RichText::new("Smoothing of simulated proxies").strong());
                    egui::Grid::new("smoothing").num_columns(2).show(ui, |ui| {
                        for (name, help, v) in [
                            ("buffer time (s)", "Adaptive mode: extra delay on top of the latency estimate.", &mut sm.buffer_time),
                            ("fixed delay (s)", "Fixed-delay mode: the total display delay.", &mut sm.fixed_delay),
                            ("max extrapolation (s)", "How long a proxy extrapolates when its buffer runs dry.", &mut sm.max_extrapolation_time),
                        ] {
                            ui.label(name).on_hover_text(help);
                            ui.add(egui::DragValue::new(v).range(0.0..=5.0).speed(0.005)).accessible_name(name);
                            ui.end_row();
                        }
                        ui.label("net update rate (1/s)").on_hover_text("State updates per second to simulated proxies.");
                        ui.add(egui::DragValue::new(&mut rate).range(1.0..=120.0)).accessible_name("net update rate");
                        ui.end_row();
                    });
                });
            });
        self.gmc_open = open;
        if g != self.options.preset.gmc {
            self.options.preset.gmc = g;
            self.command(Command::SetGmc(g));
        }
        if sm != self.options.preset.smoothing {
            self.options.preset.smoothing = sm;
            self.command(Command::SetSmoothing(sm));
        }
        if rate != self.options.preset.net_update_rate {
            self.options.preset.net_update_rate = rate;
            self.command(Command::SetNetUpdateRate(rate));
        }
    }

    /// Net mode, clients, AI pawns, frame rates and seed: applied by restarting the session.
    pub(super) fn session_section(&mut self, ui: &mut egui::Ui) {
        egui::CollapsingHeader::new("Session")
            .default_open(false)
            .show(ui, |ui| {
                let p = &mut self.session_edit;
                egui::ComboBox::from_label("net mode")
                    .selected_text(format!("{:?}", p.net_mode))
                    .show_ui(ui, |ui| {
                        for (m, help) in [
                            (NetMode::Dedicated, "A server with no player; every client predicts."),
                            (NetMode::Listen, "Client 0 plays on the server: its pawn is authoritative, remote pawns are smoothed for display on the host."),
                            (NetMode::Standalone, "Client 0 alone: no prediction, replay, combining or smoothing."),
                        ] {
                            ui.selectable_value(&mut p.net_mode, m, format!("{m:?}")).on_hover_text(help);
                        }
                    });
                ui.add(egui::Slider::new(&mut p.clients, 1..=16).text("clients"));
                ui.add(egui::Slider::new(&mut p.ai_pawns, 0..=16).text("AI pawns"));
                ui.add(egui::Slider::new(&mut p.client_fps, 10.0..=240.0).text("client fps"))
                    .on_hover_text("Frame rate of every client (combining: ~4 frames per move at 120 fps, 1 at 30).");
                ui.add(egui::Slider::new(&mut p.server_fps, 10.0..=240.0).text("server fps"));
                ui.add(egui::DragValue::new(&mut p.seed).prefix("seed "))
                    .accessible_name("seed")
                    .on_hover_text("Seeds the input scripts and the links: the same seed replays the same virtual-time session.");
                if ui
                    .button("Restart with these")
                    .on_hover_text("Stops the session and starts a new one with these settings (and the current pitfalls, network, bindings and GMC settings).")
                    .clicked()
                {
                    let edit = self.session_edit.clone();
                    let p = &mut self.options.preset;
                    p.net_mode = edit.net_mode;
                    p.clients = edit.clients;
                    p.ai_pawns = edit.ai_pawns;
                    p.client_fps = edit.client_fps;
                    p.server_fps = edit.server_fps;
                    p.seed = edit.seed;
                    if let Some(s) = &self.session {
                        // Keep the live edits (link overrides, faults) the session collected.
                        p.link_overrides = s.preset().link_overrides.clone();
                    }
                    self.start_live();
                }
                ui.separator();
                ui.label(RichText::new("Traces (live, verbose)").strong());
                let mut hooks = self.options.preset.hook_trace;
                let mut values = self.options.preset.value_trace;
                ui.checkbox(&mut hooks, "hook trace").on_hover_text(
                    "An event for every hook invocation (BindReplicationData, GenPredictionTick, \
                     OnSyncDataApplied with its context, WorldTickEnd...): the move journey lists \
                     the hooks of each execution; recordings keep them (`movescope inspect FILE \
                     --events --kind Hook` prints them).",
                );
                ui.checkbox(&mut values, "value trace").on_hover_text(
                    "The owning pawn's values before a move, after each sub-step and at the end, \
                     on its client (live, combined, replay) and on the server (remote): the move \
                     journey shows them, and the desync doctor names the sub-step where a \
                     corrected value first diverged. Recordings made with it keep them.",
                );
                if hooks != self.options.preset.hook_trace {
                    self.options.preset.hook_trace = hooks;
                    self.command(Command::HookTrace(hooks));
                }
                if values != self.options.preset.value_trace {
                    self.options.preset.value_trace = values;
                    self.command(Command::ValueTrace(values));
                }
            });
    }

    /// The link of the network panel's target as the session has it now.
    fn target_link(&self) -> LinkParams {
        let p = self
            .session
            .as_ref()
            .map_or(&self.options.preset, |s| s.preset());
        match self.net_target {
            None => p.link.clone(),
            Some(c) => p.link_params(c, self.net_direction != Direction::Down),
        }
    }

    fn send_link(&mut self, link: LinkParams) {
        let targets: Vec<u16> = match self.net_target {
            Some(c) => vec![c],
            None => self
                .session
                .as_ref()
                .map(|s| s.client_ids())
                .unwrap_or_default(),
        };
        if self.net_target.is_none() && self.net_direction == Direction::Both {
            self.options.preset.link = link.clone();
        }
        for client in targets {
            self.command(Command::SetLink {
                client,
                direction: self.net_direction,
                params: link.clone(),
            });
        }
    }

    pub(super) fn network_section(&mut self, ui: &mut egui::Ui) {
        ui.heading("Network").on_hover_text(
            "Link conditions, per client and per direction (up: client to server, down: server to client).",
        );
        let ids = self
            .session
            .as_ref()
            .map(|s| s.client_ids())
            .unwrap_or_default();
        ui.horizontal(|ui| {
            ui.label("edit");
            egui::ComboBox::from_id_salt("net target")
                .selected_text(match self.net_target {
                    None => "all clients".to_string(),
                    Some(c) => format!("client {c}"),
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.net_target, None, "all clients");
                    for id in &ids {
                        ui.selectable_value(
                            &mut self.net_target,
                            Some(*id),
                            format!("client {id}"),
                        );
                    }
                })
                .response
                .accessible_name("link of");
            egui::ComboBox::from_id_salt("net direction")
                .selected_text(format!("{:?}", self.net_direction))
                .show_ui(ui, |ui| {
                    for (d, help) in [
                        (Direction::Both, "both directions"),
                        (Direction::Up, "client to server"),
                        (Direction::Down, "server to client"),
                    ] {
                        ui.selectable_value(&mut self.net_direction, d, format!("{d:?}"))
                            .on_hover_text(help);
                    }
                })
                .response
                .accessible_name("direction");
        });
        let mut link = self.target_link();
        let mut changed = false;
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
        if let Some(i) = profile {
            let (_, d, j, l) = PROFILES[i];
            link.latency_ms = d;
            link.jitter_ms = j;
            link.loss = l;
            changed = true;
        }
        changed |= ui
            .add(egui::Slider::new(&mut link.latency_ms, 0.0..=600.0).text("latency ms"))
            .on_hover_text("One-way latency.")
            .changed();
        changed |= ui
            .add(egui::Slider::new(&mut link.jitter_ms, 0.0..=100.0).text("jitter ms"))
            .on_hover_text("Random extra delay per packet (uniform by default).")
            .changed();
        changed |= ui
            .add(egui::Slider::new(&mut link.loss, 0.0..=0.3).text("loss"))
            .on_hover_text("Probability that a datagram is lost.")
            .changed();
        egui::CollapsingHeader::new("more link settings").show(ui, |ui| {
            changed |= ui
                .add(egui::Slider::new(&mut link.duplicate, 0.0..=0.2).text("duplicate"))
                .on_hover_text("Probability that a datagram arrives twice.")
                .changed();
            changed |= ui
                .checkbox(&mut link.reorder, "reorder")
                .on_hover_text("Let jitter reorder datagrams (off: first in, first out).")
                .changed();
            changed |= ui
                .add(egui::Slider::new(&mut link.burst_enter, 0.0..=0.2).text("burst start"))
                .on_hover_text("Gilbert–Elliott burst loss: chance per packet to enter the bad state (0: off).")
                .changed();
            changed |= ui
                .add(egui::Slider::new(&mut link.burst_exit, 0.01..=1.0).text("burst end"))
                .on_hover_text("Chance per packet to leave the bad state.")
                .changed();
            changed |= ui
                .add(egui::Slider::new(&mut link.bandwidth_kbps, 0.0..=10_000.0).text("kbit/s cap"))
                .on_hover_text("Bandwidth cap (0: unlimited).")
                .changed();
        });
        let now = self.session.as_ref().map_or(0.0, |s| s.clock().now());
        ui.horizontal_wrapped(|ui| {
            ui.add(
                egui::DragValue::new(&mut self.outage_seconds)
                    .range(0.1..=30.0)
                    .suffix(" s"),
            )
            .accessible_name("outage seconds");
            if ui
                .button("Outage now")
                .on_hover_text("Every datagram on this link is lost for that long, from now.")
                .clicked()
            {
                link.outages.push(Window {
                    start_s: now,
                    duration_s: self.outage_seconds,
                });
                changed = true;
            }
            if ui
                .button("Lag spike now")
                .on_hover_text("200 ms extra latency for that long, from now.")
                .clicked()
            {
                link.lag_spikes.push(LagSpike {
                    start_s: now,
                    duration_s: self.outage_seconds,
                    extra_ms: 200.0,
                });
                changed = true;
            }
        });
        let scheduled = link
            .outages
            .iter()
            .filter(|w| w.start_s + w.duration_s > now)
            .count()
            + link
                .lag_spikes
                .iter()
                .filter(|w| w.start_s + w.duration_s > now)
                .count();
        if scheduled > 0 {
            ui.colored_label(
                Color32::from_rgb(230, 160, 60),
                format!("{scheduled} outage(s)/lag spike(s) running or scheduled"),
            );
        }
        if changed {
            self.send_link(link);
        }
    }

    /// WASD + Space drive one client's pawn instead of its input script.
    pub(super) fn drive_section(&mut self, ui: &mut egui::Ui) {
        ui.heading("Drive a pawn").on_hover_text(
            "Take over one client's pawn with the keyboard (W A S D to move, Space to dash) instead of its input script. Click the world view first so the keys reach the app.",
        );
        let ids = self
            .session
            .as_ref()
            .map(|s| s.client_ids())
            .unwrap_or_default();
        let before = self.drive;
        egui::ComboBox::from_label("drive")
            .selected_text(match self.drive {
                None => "nobody (scripts)".to_string(),
                Some(c) => format!("client {c}"),
            })
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut self.drive, None, "nobody (scripts)");
                for id in ids {
                    ui.selectable_value(&mut self.drive, Some(id), format!("client {id}"));
                }
            });
        if before != self.drive {
            if let Some(c) = before {
                self.command(Command::Drive {
                    client: c,
                    input: None,
                });
            }
            self.last_drive = None;
        }
        if self.drive.is_some() {
            ui.label("W A S D: move, Space: dash (Space no longer pauses).");
        }
    }

    /// Sends the keyboard's input to the driven client when it changes.
    pub(super) fn drive_keys(&mut self, ctx: &egui::Context) {
        let Some(client) = self.drive else { return };
        if ctx.egui_wants_keyboard_input() {
            return;
        }
        let input = ctx.input(|i| {
            let k = |key| i.key_down(key);
            let x = f64::from(i8::from(k(egui::Key::D)) - i8::from(k(egui::Key::A)));
            let y = f64::from(i8::from(k(egui::Key::W)) - i8::from(k(egui::Key::S)));
            RawInput {
                dir: DVec2::new(x, y).normalize_or_zero(),
                dash: k(egui::Key::Space),
            }
        });
        if self.last_drive != Some(input) {
            self.last_drive = Some(input);
            self.command(Command::Drive {
                client,
                input: Some(input),
            });
        }
    }

    /// The shipped presets, open a preset file, save the session's preset.
    pub(super) fn presets_section(&mut self, ui: &mut egui::Ui) {
        egui::CollapsingHeader::new("Presets")
            .default_open(false)
            .show(ui, |ui| {
                let mut files: Vec<PathBuf> = std::fs::read_dir("presets")
                    .map(|d| {
                        d.filter_map(|e| e.ok().map(|e| e.path()))
                            .filter(|p| p.extension().is_some_and(|x| x == "ron"))
                            .collect()
                    })
                    .unwrap_or_default();
                files.sort();
                let mut load: Option<PathBuf> = None;
                for f in &files {
                    let name = f.file_stem().map_or_else(String::new, |s| s.to_string_lossy().to_string());
                    if ui
                        .selectable_label(self.options.preset_name == f.display().to_string(), &name)
                        .on_hover_text(format!("Start {} live.", f.display()))
                        .clicked()
                    {
                        load = Some(f.clone());
                    }
                }
                ui.horizontal(|ui| {
                    ui.add(egui::TextEdit::singleline(&mut self.preset_path).desired_width(150.0))
                        .accessible_name("preset file");
                    if ui.button("Open").on_hover_text("Load this preset file and start it live.").clicked() {
                        load = Some(PathBuf::from(self.preset_path.trim()));
                    }
                    if ui
                        .button("Save")
                        .on_hover_text("Save the session's preset (with every live change) as RON to this file.")
                        .clicked()
                    {
                        self.save_preset(PathBuf::from(self.preset_path.trim()));
                    }
                });
                if let Some(path) = load
                    && self.start_preset_file(&path)
                {
                    self.preset_path = path.display().to_string();
                }
            });
    }

    fn save_preset(&mut self, path: PathBuf) {
        let mut p = self.options.preset.clone();
        if let Some(s) = &self.session {
            p.link_overrides = s.preset().link_overrides.clone();
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            self.status = format!("{}: {e}", dir.display());
            return;
        }
        let text = format!(
            "// Saved by movescope from a live session.\n// Schema: docs/presets.md.\n{}\n",
            p.to_ron()
        );
        self.status = match std::fs::write(&path, text) {
            Ok(()) => format!("preset saved to {}", path.display()),
            Err(e) => format!("{}: {e}", path.display()),
        };
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
}
