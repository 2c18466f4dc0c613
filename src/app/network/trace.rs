//! Replaying a recorded network trace on the selected links, in the Network pane.

use eframe::egui;
use egui::Color32;

use super::{NetworkPanel, describe_trace, link_actions};
use crate::app::action::Action;
use crate::conditions::link::LinkParams;

impl NetworkPanel {
    /// Replaying a recorded trace on the selected links: what replays now (its statistics),
    /// a file to replay, a profile fitted to it, looping or stretching.
    pub(super) fn trace_ui(
        &mut self,
        ui: &mut egui::Ui,
        links: &[(u16, bool, LinkParams)],
    ) -> Vec<Action> {
        let traces: Vec<Option<&std::sync::Arc<crate::conditions::trace::Trace>>> =
            links.iter().map(|(_, _, l)| l.trace.as_ref()).collect();
        let same = traces.windows(2).all(|w| w[0] == w[1]);
        let title = match (&traces[0], same) {
            (Some(t), true) => format!("trace: {}", t.source),
            (None, true) => "trace: none".to_string(),
            _ => "trace: mixed".to_string(),
        };
        let mut out = Vec::new();
        egui::CollapsingHeader::new(title)
            .id_salt("net trace")
            .show(ui, |ui| {
                ui.weak("A real network's round trips and losses (ping output or a CSV), replayed instead of latency, jitter and loss.");
                if let (Some(t), true) = (&traces[0], same) {
                    ui.label(describe_trace(t));
                    let fitted = crate::conditions::link::LinkParams::fit(t);
                    ui.horizontal_wrapped(|ui| {
                        if ui
                            .button("Stop replaying")
                            .on_hover_text("Back to the latency, jitter and loss above.")
                            .clicked()
                        {
                            out.extend(link_actions(links, |l| l.trace = None));
                        }
                        if ui
                            .button("Use a fitted profile")
                            .on_hover_text(format!(
                                "Replace the trace with a profile fitted to it: {:.1} ms one way, {:.1} ms {:?} jitter, burst loss (enter {:.4}, end {:.3}).",
                                fitted.latency_ms,
                                fitted.jitter_ms,
                                fitted.jitter_distribution,
                                fitted.burst_enter,
                                fitted.burst_exit
                            ))
                            .clicked()
                        {
                            out.extend(link_actions(links, |l| {
                                let keep = (l.outages.clone(), l.lag_spikes.clone());
                                *l = fitted.clone();
                                (l.outages, l.lag_spikes) = keep;
                            }));
                        }
                    });
                    let stretch = links[0].2.trace_stretch_s;
                    let mut looped = stretch == 0.0;
                    ui.horizontal(|ui| {
                        if ui
                            .checkbox(&mut looped, "loop")
                            .on_hover_text("Loop the trace; off: stretch (or squeeze) it over the seconds given.")
                            .changed()
                        {
                            let s = if looped { 0.0 } else { t.duration() };
                            out.extend(link_actions(links, |l| l.trace_stretch_s = s));
                        }
                        if !looped {
                            let mut s = stretch;
                            if ui
                                .add(egui::DragValue::new(&mut s).range(1.0..=1_000_000.0).suffix(" s"))
                                .on_hover_text("Seconds the whole trace is stretched over.")
                                .changed()
                            {
                                out.extend(link_actions(links, |l| l.trace_stretch_s = s));
                            }
                        }
                    });
                }
                ui.horizontal(|ui| {
                    ui.add(
                        egui::TextEdit::singleline(&mut self.trace_path)
                            .hint_text("ping.txt or trace.csv")
                            // Room for the Replay button beside it (its text, padding and
                            // the spacing between them).
                            .desired_width((ui.available_width() - 84.0).max(60.0)),
                    )
                    .accessible_name("trace file");
                    if ui
                        .button("Replay")
                        .on_hover_text("Read the file (ping output from Linux, macOS or Windows, or a CSV with time_s and rtt_ms or one_way_ms, and lost) and replay it on the selected links.")
                        .clicked()
                    {
                        match crate::session::preset::load_trace(std::path::Path::new(self.trace_path.trim())) {
                            Ok(t) => {
                                self.trace_error = None;
                                let t = std::sync::Arc::new(t);
                                out.extend(link_actions(links, |l| l.trace = Some(t.clone())));
                            }
                            Err(e) => self.trace_error = Some(e.to_string()),
                        }
                    }
                });
                if let Some(e) = &self.trace_error {
                    ui.colored_label(Color32::from_rgb(230, 90, 80), e);
                }
            });
        out
    }
}
