//! The GMC settings window: GMC's component settings and the smoothing parameters of the
//! running session. Every field shows the session's value and accepts exactly what preset
//! validation accepts (the one table in [`crate::support::ranges`]): opening the window never clamps a
//! value, and only an edit makes a command.

use eframe::egui;
use egui::RichText;

use super::action::{Action, SessionView};
use crate::net::live::Command;
use crate::support::ranges;

pub const ORIGIN: &str = "gmc";

#[derive(Default)]
pub struct GmcWindow {
    pub open: bool,
    /// The last value refused, and why (shown until a valid edit).
    refused: Option<String>,
}

/// A number editor for `key`'s range: applied when the edit is finished (Enter or focus
/// leaving the field), never per keystroke; a value outside the range is refused with a
/// message, not clamped. Returns whether a valid value was entered.
fn num(
    ui: &mut egui::Ui,
    name: &str,
    help: &str,
    key: &str,
    v: &mut f64,
    speed: f64,
    refused: &mut Option<String>,
) -> bool {
    let range = ranges::of(key);
    let label = ui.label(name).on_hover_text(help);
    let before = *v;
    let changed = ui
        .add(
            egui::DragValue::new(v)
                .speed(speed)
                .max_decimals(4)
                .update_while_editing(false),
        )
        .labelled_by(label.id)
        .on_hover_text(format!("{help}\nAccepts {}.", range.expected()))
        .changed();
    ui.end_row();
    judge(changed, key, before, v, |x: f64| x, refused)
}

/// Whether an edited value is valid: an invalid one is put back and the reason kept.
fn judge<T: Copy>(
    changed: bool,
    key: &str,
    before: T,
    v: &mut T,
    as_f64: impl Fn(T) -> f64,
    refused: &mut Option<String>,
) -> bool {
    if !changed {
        return false;
    }
    let range = ranges::of(key);
    if range.contains(as_f64(*v)) {
        *refused = None;
        true
    } else {
        *refused = Some(format!(
            "`{key}` refused: {} is not {}; the session keeps {}.",
            as_f64(*v),
            range.expected(),
            as_f64(before)
        ));
        *v = before;
        false
    }
}

/// An integer editor for `key`'s range (applied and refused as [`num`]).
fn int<T>(
    ui: &mut egui::Ui,
    name: &str,
    help: &str,
    key: &str,
    v: &mut T,
    refused: &mut Option<String>,
) -> bool
where
    T: egui::emath::Numeric,
{
    let range = ranges::of(key);
    let label = ui.label(name).on_hover_text(help);
    let before = *v;
    let changed = ui
        .add(egui::DragValue::new(v).update_while_editing(false))
        .labelled_by(label.id)
        .on_hover_text(format!("{help}\nAccepts {}.", range.expected()))
        .changed();
    ui.end_row();
    judge(changed, key, before, v, |x: T| x.to_f64(), refused)
}

impl GmcWindow {
    pub fn ui(&mut self, ctx: &egui::Context, view: &SessionView) -> Vec<Action> {
        let mut actions = Vec::new();
        if !self.open {
            return actions;
        }
        let p = view.preset;
        let mut g = p.gmc;
        let mut sm = p.smoothing;
        let mut rate = p.net_update_rate;
        let (mut gmc_edit, mut sm_edit, mut rate_edit) = (false, false, false);
        let mut open = true;
        let mut refused = self.refused.take();
        super::window(ctx, "GMC settings")
            .open(&mut open)
            .default_width(420.0)
            .show(ctx, |ui| {
                if !view.live {
                    ui.label("The settings the recording was made with (start it live to change them).");
                }
                ui.add_enabled_ui(view.live, |ui| {
                    egui::Grid::new("gmc").num_columns(2).striped(true).show(ui, |ui| {
                        gmc_edit |= num(ui, "MaxTimeStep (s)", "A move whose delta is larger is sub-stepped into slices of at most this.", "gmc.max_time_step", &mut g.max_time_step, 0.001, &mut refused);
                        gmc_edit |= num(ui, "MaxMoveDeltaTime (s)", "A move's delta (from timestamps) is clamped to this.", "gmc.max_move_delta_time", &mut g.max_move_delta_time, 0.001, &mut refused);
                        gmc_edit |= num(ui, "MaxCombinedDeltaTime (s)", "A pending move absorbs frames while its delta stays within this. Above MaxMoveDeltaTime, as in GMC, a combined move has its delta clamped and loses the rest of its frames' time: the pawn runs slow (warned).", "gmc.max_combined_delta_time", &mut g.max_combined_delta_time, 0.001, &mut refused);
                        gmc_edit |= num(ui, "ClientSendRate (1/s)", "Completed moves are sent at most this often, batched.", "gmc.client_send_rate", &mut g.client_send_rate, 1.0, &mut refused);
                        gmc_edit |= num(ui, "WorldTimeUpdateInterval (s)", "How often each world-time replicator sends the server clock (GMC's default: 0.01).", "gmc.world_time_update_interval", &mut g.world_time_update_interval, 0.005, &mut refused);
                        gmc_edit |= num(ui, "PostSpawnSmoothingPause (s)", "A new proxy shows no replicated state for this long.", "gmc.post_spawn_smoothing_pause", &mut g.post_spawn_smoothing_pause, 0.05, &mut refused);
                        gmc_edit |= num(ui, "move gap timeout (s)", "movescope's choice: how long the server waits for a missing move before skipping it.", "gmc.move_gap_timeout", &mut g.move_gap_timeout, 0.01, &mut refused);
                        gmc_edit |= num(ui, "ping interval (s)", "movescope's choice: seconds between pings.", "gmc.ping_interval", &mut g.ping_interval, 0.05, &mut refused);
                        gmc_edit |= int(ui, "MaxIterations", "At most this many sub-steps per move.", "gmc.max_iterations", &mut g.max_iterations, &mut refused);
                        gmc_edit |= int(ui, "MoveHistoryMaxSize", "Moves kept on the client for replay.", "gmc.move_history_max_size", &mut g.move_history_max_size, &mut refused);
                        gmc_edit |= int(ui, "reliable pending threshold", "movescope's choice: pending reliable move packets beyond which moves are sent unreliably.", "gmc.reliable_pending_threshold", &mut g.reliable_pending_threshold, &mut refused);
                    });
                    if let Some(w) = p.gmc.combine_warning() {
                        ui.colored_label(ui.visuals().warn_fg_color, w);
                    }
                    for (flag, name, help) in [
                        (&mut g.use_client_replay, "bUseClientReplay", "Re-execute pending moves after adopting a correction. Off: the pawn snaps to the server's old state and stays behind."),
                        (&mut g.force_full_validation, "ForceFullSyncDataValidation", "List every deviating value in a correction, not only the first."),
                        (&mut g.use_client_prediction, "bUseClientPrediction", "Off: the owning client shows its pawn smoothed, like a proxy (input lag of a round trip)."),
                        (&mut g.roll_back_server_pawns, "bRollBackServerPawns", "While a client's move runs on the server (its tick and its hit check), the other pawns stand where that client saw them."),
                        (&mut g.roll_back_client_pawns, "bRollBackClientPawns", "A replaying client reads the other pawns as they were at the move's view time."),
                    ] {
                        gmc_edit |= ui.checkbox(flag, name).on_hover_text(help).changed();
                    }
                    ui.separator();
                    ui.label(RichText::new("Smoothing of simulated proxies").strong());
                    egui::Grid::new("smoothing").num_columns(2).show(ui, |ui| {
                        sm_edit |= num(ui, "buffer time (s)", "Adaptive mode: extra delay on top of the latency estimate.", "smoothing.buffer_time", &mut sm.buffer_time, 0.005, &mut refused);
                        sm_edit |= num(ui, "fixed delay (s)", "Fixed-delay mode: the total display delay.", "smoothing.fixed_delay", &mut sm.fixed_delay, 0.005, &mut refused);
                        sm_edit |= num(ui, "max extrapolation (s)", "How long a proxy extrapolates when its buffer runs dry.", "smoothing.max_extrapolation_time", &mut sm.max_extrapolation_time, 0.005, &mut refused);
                        rate_edit |= num(ui, "net update rate (1/s)", "State updates per second to simulated proxies.", "net_update_rate", &mut rate, 1.0, &mut refused);
                    });
                });
                if let Some(r) = &refused {
                    ui.colored_label(ui.visuals().error_fg_color, r);
                }
                view.feedback.show(ui, ORIGIN);
            });
        self.refused = refused;
        self.open = open;
        if !view.live {
            return actions;
        }
        if gmc_edit && g.use_client_prediction != view.preset.gmc.use_client_prediction {
            // The owner's role is decided when its pawn is set up: a new session
            // (`restart_keys`), which the app starts with these settings.
            let mut target = view.preset.clone();
            target.gmc = g;
            actions.push(Action::ChangeTo {
                origin: ORIGIN,
                preset: Box::new(target),
            });
        } else if gmc_edit {
            actions.push(Action::Session {
                origin: ORIGIN,
                command: Command::SetGmc(g),
            });
        }
        if sm_edit {
            actions.push(Action::Session {
                origin: ORIGIN,
                command: Command::SetSmoothing(sm),
            });
        }
        if rate_edit {
            actions.push(Action::Session {
                origin: ORIGIN,
                command: Command::SetNetUpdateRate(rate),
            });
        }
        actions
    }
}
