//! The what-if window: re-run the opened recording with changes (in virtual time, on a
//! background thread) and draw the changed run over the original in every plot.

use std::sync::Arc;

use eframe::egui;

use super::action::Action;
use super::jobs::{Job, Poll};
use crate::analysis::whatif::Comparison;
use crate::model::settings::Faults;
use crate::session::recording::Recording;
use crate::session::store::Store;
use crate::session::timeline::TimeCommand;

#[derive(Default)]
pub struct WhatIfWindow {
    pub open: bool,
    /// `key=value` changes, one per line.
    pub changes: String,
    running: Option<Job<Result<(Comparison, Store), String>>>,
    pub result: Option<Comparison>,
    pub error: Option<String>,
    /// Run as soon as the recording has loaded (`movescope open FILE --whatif …`).
    pub pending: bool,
}

/// What the what-if window needs to know of the app.
pub struct WhatIfView<'a> {
    /// The recording shown, once loaded.
    pub recording: Option<Arc<Recording>>,
    /// The pitfall switches the recording runs with.
    pub faults: &'a Faults,
    /// A changed run is drawn over the plots.
    pub overlay: bool,
}

impl WhatIfWindow {
    /// Polls a run; returns the changed run's store once it ended (the app overlays it).
    pub fn poll(&mut self) -> Option<Store> {
        let job = self.running.as_mut()?;
        let done = match job.poll() {
            Poll::Pending => return None,
            Poll::Ready(done) => done,
            Poll::Lost => Err("the what-if run stopped without a result".into()),
        };
        self.running = None;
        match done {
            Ok((cmp, store_b)) => {
                self.result = Some(cmp);
                self.error = None;
                Some(store_b)
            }
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }

    /// Whether a run is going on.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    pub fn ui(&mut self, ctx: &egui::Context, view: &WhatIfView) -> Vec<Action> {
        let mut actions = Vec::new();
        if self.running.is_some() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        if !self.open {
            return actions;
        }
        let mut open = true;
        let mut run = self.pending && view.recording.is_some();
        if run {
            self.pending = false;
        }
        let mut seek = None;
        let mut clear = false;
        let recording = view.recording.clone();
        super::window(ctx, "What if")
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
                    egui::TextEdit::multiline(&mut self.changes)
                        .desired_rows(3)
                        .desired_width(f32::INFINITY),
                )
                .accessible_name("changes");
                ui.horizontal_wrapped(|ui| {
                    ui.label("Flip a pitfall:");
                    for (i, (name, explain)) in
                        crate::model::settings::Faults::EXPLAINED.iter().enumerate()
                    {
                        let title = crate::model::settings::Faults::TITLES[i];
                        if ui
                            .small_button(title)
                            .on_hover_text(format!("{explain}\n\nAdds `faults.{name}=…` (switches it the other way)."))
                            .clicked()
                        {
                            let on = view.faults.is_on(i);
                            if !self.changes.is_empty() && !self.changes.ends_with('\n') {
                                self.changes.push('\n');
                            }
                            self.changes += &format!("faults.{name}={}", !on);
                        }
                    }
                });
                ui.horizontal(|ui| {
                    let busy = self.running.is_some();
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
                        .add_enabled(view.overlay, egui::Button::new("Clear B"))
                        .clicked()
                    {
                        clear = true;
                    }
                });
                if let Some(e) = &self.error {
                    ui.colored_label(egui::Color32::from_rgb(230, 80, 80), e);
                }
                if let Some(c) = &self.result {
                    ui.separator();
                    // The first move that went differently, in words; the record-level detail
                    // under it.
                    match &c.first_diverging_move {
                        Some(m) => {
                            ui.label(egui::RichText::new(m.describe()).strong());
                            if ui.button("Go to that move").clicked() {
                                seek = Some(m.t);
                            }
                        }
                        None => {
                            ui.label("Both runs corrected the same moves the same way.");
                        }
                    }
                    egui::CollapsingHeader::new("Counts and the first differing record")
                        .default_open(true)
                        .show(ui, |ui| {
                            ui.monospace(c.to_text());
                            if let Some(d) = &c.first_divergence
                                && ui.button("Go to the first difference").clicked()
                            {
                                seek = Some(d.t);
                            }
                        });
                }
            });
        self.open = open;
        if clear {
            self.result = None;
            actions.push(Action::ClearOverlay);
        }
        if let Some(t) = seek {
            actions.push(Action::Time(TimeCommand::Seek(t)));
        }
        if run && let Some(rec) = recording {
            let changes: Vec<String> = self
                .changes
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect();
            match Job::spawn("what-if", move |_| {
                crate::analysis::whatif::run(&rec, &changes)
                    .map(|w| {
                        let mut store = Store::new(None);
                        for r in &w.records_b {
                            store.ingest(r);
                        }
                        (w.comparison, store)
                    })
                    .map_err(|e| e.to_string())
            }) {
                Ok(j) => self.running = Some(j),
                Err(e) => self.error = Some(e),
            }
        }
        actions
    }
}
