//! The help window: what movescope shows, and the keys.

use eframe::egui;

/// Shows the help window; returns whether it stays open.
pub fn ui(ctx: &egui::Context) -> bool {
    let mut open = true;
    super::window(ctx, "Help")
            .open(&mut open)
            .default_width(780.0)
            .min_width(600.0)
            .show(ctx, |ui| {
                ui.label("movescope runs GMC's move cycle: clients predict their pawns, the server re-runs every move and corrects the clients that diverged; everyone else's pawns are smoothed proxies. Hover any title for what it shows.");
                ui.separator();
                // Long explanations wrap inside their column: the window never runs past the screen.
                egui::Grid::new("keys").num_columns(2).max_col_width(540.0).show(ui, |ui| {
                    for (k, what) in [
                        ("Space", "pause/resume a live session; play/pause a recording (a dash while you drive a pawn)"),
                        ("W A S D", "drive a client's pawn, once Controls > Drive a pawn has given it to the keyboard (click the world view first so the keys reach it)"),
                        ("Left / Right", "one frame back / forward (the viewed machine's frames)"),
                        ("Shift+Left / Right", "previous / next move"),
                        ("PageUp / PageDown", "previous / next correction or warning"),
                        ("End", "follow live (or go to the end of a recording)"),
                        ("Shift+drag on the timeline", "select a range (for CSV export)"),
                        ("click a plot or a log line", "move the cursor there"),
                        ("double-click a client's point", "the journey of its move (a correction plot: the corrected move)"),
                        ("click a player's pawn", "in the world view: the journey of its move at the cursor"),
                        ("Doctor (top bar)", "every correction explained: deviating values, where values parted, cause and evidence"),
                        ("Session > value trace", "bound values in and out of every move execution, for journeys and the doctor"),
                        ("drop a .msrec file", "open the recording"),
                        ("Ctrl+K", "the command palette: GMC's console names (gmc.ShowClientCorrections, gmc.LogClientReplay, gmc.ShowSimulationDelay, gmc.StatPing, gmc.LogNetWorldTime) and every action by name"),
                        ("F1", "this window"),
                    ] {
                        ui.monospace(k);
                        ui.add(egui::Label::new(what).wrap());
                        ui.end_row();
                    }
                });
            });
    open
}
