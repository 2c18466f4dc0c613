//! The what-if window: re-run the opened recording with changes (in virtual time, on a
//! background thread) and draw the changed run over the original in every plot.

use crossbeam_channel::{Receiver, bounded};
use eframe::egui;

use super::MovescopeApp;
use crate::store::Store;
use crate::timeline::TimeCommand;
use crate::whatif::Comparison;

#[derive(Default)]
pub struct WhatIfState {
    pub open: bool,
    /// `key=value` changes, one per line.
    pub changes: String,
    running: Option<Receiver<Result<(Comparison, Store), String>>>,
    pub result: Option<Comparison>,
    pub error: Option<String>,
    /// Run as soon as the recording has loaded (`movescope open FILE --whatif …`).
    pub pending: bool,
}

impl MovescopeApp {
    pub(super) fn whatif_window(&mut self, ctx: &egui::Context) {
        // A finished run.
        if let Some(rx) = &self.whatif.running
            && let Ok(done) = rx.try_recv()
        {
            self.whatif.running = None;
            match done {
                Ok((cmp, store_b)) => {
                    self.plots.overlay = Some(store_b);
                    self.plots.clear_cache();
                    self.whatif.result = Some(cmp);
                    self.whatif.error = None;
                }
                Err(e) => self.whatif.error = Some(e),
            }
            if self.ready_since.is_none() {
                self.ready_since = Some(std::time::Instant::now());
            }
        }
        if !self.whatif.open {
            return;
        }
        let mut open = true;
        let mut run = self.whatif.pending && !self.is_loading() && self.opened.is_some();
        if run {
            self.whatif.pending = false;
        }
        let mut seek = None;
        let mut clear = false;
        let recording = self.opened.as_ref().map(|o| o.recording.clone());
        egui::Window::new("What if")
            .open(&mut open)
            .default_width(640.0)
            .show(ctx, |ui| {
                ui.label("Re-run this recording in virtual time with changes (same preset, seed and length) and draw the result over it: dashed lines and hollow markers, \"(B)\" in the legends.");
                if recording.is_none() {
                    ui.colored_label(
                        egui::Color32::from_rgb(230, 160, 60),
                        "Open a recording first (live sessions: Record, then Open…).",
                    );
                }
                ui.label("Changes, one per line (as for --set), e.g. faults.unbound_member=false, link.latency_ms=150, gmc.use_client_replay=false:");
                ui.add(
                    egui::TextEdit::multiline(&mut self.whatif.changes)
                        .desired_rows(3)
                        .desired_width(f32::INFINITY),
                )
                .accessible_name("changes");
                ui.horizontal_wrapped(|ui| {
                    ui.label("Flip a pitfall:");
                    for (i, (name, explain)) in
                        crate::model::settings::Faults::EXPLAINED.iter().enumerate()
                    {
                        if ui.small_button(*name).on_hover_text(*explain).clicked() {
                            let on = self.shown_preset().faults.is_on(i);
                            if !self.whatif.changes.is_empty() && !self.whatif.changes.ends_with('\n') {
                                self.whatif.changes.push('\n');
                            }
                            self.whatif.changes += &format!("faults.{name}={}", !on);
                        }
                    }
                });
                ui.horizontal(|ui| {
                    let busy = self.whatif.running.is_some();
                    if ui
                        .add_enabled(recording.is_some() && !busy, egui::Button::new("Run B"))
                        .clicked()
                    {
                        run = true;
                    }
                    if busy {
                        ui.spinner();
                    }
                    if ui
                        .add_enabled(self.plots.overlay.is_some(), egui::Button::new("Clear B"))
                        .clicked()
                    {
                        clear = true;
                    }
                });
                if let Some(e) = &self.whatif.error {
                    ui.colored_label(egui::Color32::from_rgb(230, 80, 80), e);
                }
                if let Some(c) = &self.whatif.result {
                    ui.separator();
                    ui.monospace(c.to_text());
                    if let Some(d) = &c.first_divergence
                        && ui.button("Go to the first difference").clicked()
                    {
                        seek = Some(d.t);
                    }
                }
            });
        self.whatif.open = open;
        if clear {
            self.plots.overlay = None;
            self.plots.clear_cache();
            self.whatif.result = None;
        }
        if let Some(t) = seek {
            self.time_command(TimeCommand::Seek(t));
        }
        if run && let Some(rec) = recording {
            let changes: Vec<String> = self
                .whatif
                .changes
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect();
            let (tx, rx) = bounded(1);
            let spawned = std::thread::Builder::new()
                .name("what-if".into())
                .spawn(move || {
                    let out = crate::whatif::run(&rec, &changes).map(|w| {
                        let mut store = Store::new(None);
                        for r in &w.records_b {
                            store.ingest(r);
                        }
                        (w.comparison, store)
                    });
                    let _ = tx.send(out);
                });
            match spawned {
                Ok(_) => self.whatif.running = Some(rx),
                Err(e) => self.whatif.error = Some(e.to_string()),
            }
        }
    }
}
