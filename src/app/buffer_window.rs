//! The interpolation buffer view: for one simulated proxy on one machine, the states it
//! received (when each arrived, and how old it was then), how old the newest buffered state
//! is at every instant, and the time the proxy is shown at (the display delay) — coloured by
//! whether it interpolates between buffered states, extrapolates past the newest, or waits
//! (spawn pause) — with each re-sync of the adaptive delay marked. Times are drawn relative to
//! the machine's own server time, so "how far in the past" is a height: the render line under
//! the sawtooth of the newest state means interpolation; above it, the buffer ran dry.
//!
//! Reads the buffer trace (`buffer_trace`: `Event::ProxyState`, `Event::ProxyDisplay`), which
//! the window can switch on in a live session.

use eframe::egui::{self, Color32, RichText};
use egui_plot::{Line, PlotPoints, Points, VLine};

use super::action::Action;
use crate::model::telemetry::{DisplayMode, Machine};
use crate::net::live::Command;
use crate::session::store::{BufferTrack, Store};

pub struct BufferWindow {
    pub open: bool,
    /// The machine and proxy shown (`None`: the first the trace has).
    pub chosen: Option<(Machine, u16)>,
    /// Seconds shown, ending at the cursor (states arrive tens of times a second: a few
    /// seconds keep each one apart).
    pub span: f64,
}

impl Default for BufferWindow {
    fn default() -> Self {
        BufferWindow {
            open: false,
            chosen: None,
            span: 2.0,
        }
    }
}

/// What the view draws for a time window, in milliseconds relative to the machine's server
/// time (negative: in the past).
#[derive(Debug, Default, PartialEq)]
pub struct BufferPicture {
    /// (arrival time, the state's age then): one point per state received.
    pub arrivals: Vec<[f64; 2]>,
    /// The newest buffered state's age over time: rises at each arrival of a newer state,
    /// falls one millisecond per millisecond between them.
    pub newest: Vec<[f64; 2]>,
    /// The time shown, as segments of one mode: (mode, points).
    pub render: Vec<(DisplayMode, Vec<[f64; 2]>)>,
    /// Re-syncs: times the delay changed while interpolating or extrapolating.
    pub resyncs: Vec<f64>,
}

/// The picture of `b` over `[t0, t1]`, up to `now` (the newest data or the cursor).
pub fn picture(b: &BufferTrack, t0: f64, t1: f64) -> BufferPicture {
    let mut p = BufferPicture::default();
    // Arrivals, and the newest state's age (only a newer state lowers it).
    let mut newest: Option<(f64, f64)> = None; // (arrival time, age at arrival, ms)
    for &(t, state_time, server_now) in &b.states {
        if t > t1 {
            break;
        }
        let age = (state_time - server_now) * 1000.0;
        if t >= t0 {
            p.arrivals.push([t, age]);
        }
        let is_newer = newest.is_none_or(|(ta, a)| age > a - (t - ta) * 1000.0);
        if is_newer {
            if let Some((ta, a)) = newest
                && t >= t0
            {
                // The fall since the last newer state, then the rise.
                let from = ta.max(t0);
                p.newest.push([from, a - (from - ta) * 1000.0]);
                p.newest.push([t, a - (t - ta) * 1000.0]);
            }
            newest = Some((t, age));
        }
    }
    if let Some((ta, a)) = newest {
        let from = ta.max(t0);
        if t1 > from {
            p.newest.push([from, a - (from - ta) * 1000.0]);
            p.newest.push([t1, a - (t1 - ta) * 1000.0]);
        }
    }
    // The render line: −delay, held from each change to the next.
    let mut prev: Option<(f64, f64, DisplayMode)> = None;
    for &(t, delay, mode) in
        b.shown
            .iter()
            .chain(std::iter::once(&(t1, f64::NAN, DisplayMode::Waiting)))
    {
        if let Some((pt, pd, pm)) = prev {
            let (a, z) = (pt.max(t0), t.min(t1));
            if z > a && pm != DisplayMode::Waiting {
                p.render
                    .push((pm, vec![[a, -pd * 1000.0], [z, -pd * 1000.0]]));
            }
            if t >= t0
                && t <= t1
                && !delay.is_nan()
                && mode != DisplayMode::Waiting
                && pm != DisplayMode::Waiting
                && (delay - pd).abs() > 1e-9
            {
                p.resyncs.push(t);
            }
        }
        if t > t1 {
            break;
        }
        prev = Some((t, delay, mode));
    }
    p
}

impl BufferWindow {
    /// The window over `store`, the `span` seconds up to the cursor; `trace_on`: the live
    /// session's buffer trace (`None`: a recording).
    pub fn ui(
        &mut self,
        ctx: &egui::Context,
        store: &Store,
        cursor: f64,
        trace_on: Option<bool>,
    ) -> Vec<Action> {
        let mut actions = Vec::new();
        if !self.open {
            return actions;
        }
        let mut open = true;
        let all = store.buffered();
        let chosen = self.chosen.filter(|c| all.contains(c)).or_else(|| {
            all.iter()
                .copied()
                .find(|(m, _)| matches!(m, Machine::Client(_)))
        });
        super::window(ctx, "Interpolation buffer")
            .open(&mut open)
            .default_size([560.0, 330.0])
            .default_pos(egui::pos2(10.0, 64.0))
            .show(ctx, |ui| {
                ui.horizontal_wrapped(|ui| {
                    actions.extend(super::action::trace_switch(
                        ui,
                        trace_on,
                        ("buffer trace", "Report every state a proxy receives and every change of how it is shown (verbose; recordings keep it)."),
                        Command::BufferTrace,
                        "buffer",
                    ));
                    let text = chosen.map_or("none".to_string(), |(m, p)| format!("{} as {} shows it", store.pawn_name(p), store.machine_name(m)));
                    egui::ComboBox::from_label("proxy")
                        .selected_text(text)
                        .show_ui(ui, |ui| {
                            for (m, p) in &all {
                                if ui
                                    .selectable_label(chosen == Some((*m, *p)), format!("{} as {} shows it", store.pawn_name(*p), store.machine_name(*m)))
                                    .clicked()
                                {
                                    self.chosen = Some((*m, *p));
                                }
                            }
                        })
                        .response
                        .on_hover_text("Which machine's view of which proxy.");
                    ui.add(
                        egui::Slider::new(&mut self.span, 0.5..=20.0)
                            .logarithmic(true)
                            .text("s shown"),
                    )
                    .on_hover_text("Seconds shown, ending at the cursor.");
                    ui.weak("how to read (hover)").on_hover_text(
                        "Heights are times relative to this machine's server time (ms; below 0: the past). \
                         Dots: each state received, at its arrival, as old as it was then (the one-way \
                         latency plus the server's wait). Sawtooth: how old the newest buffered state is \
                         — it jumps up when a newer state arrives and ages between arrivals. Thick line: \
                         the time the proxy is shown at (minus the display delay): blue while it \
                         interpolates between buffered states, orange while it extrapolates past the \
                         newest (the line is above the sawtooth: the buffer ran dry). Dashed marks: \
                         re-syncs of the adaptive delay.",
                    );
                });
                let Some((machine, pawn)) = chosen else {
                    ui.label(match trace_on {
                        Some(false) => "The buffer trace is off: switch it on above, and the states each proxy receives appear here.",
                        Some(true) => "No proxy has received a state yet.",
                        None => "This recording has no buffer trace (record with the buffer trace on: --set buffer_trace=true).",
                    });
                    return;
                };
                let Some(b) = store.buffer(machine, pawn) else {
                    return;
                };
                let (t0, t1) = ((cursor - self.span).max(store.earliest()), cursor);
                let pic = picture(b, t0, t1);
                // Figures at the cursor.
                let last_delay = b
                    .shown
                    .iter()
                    .take_while(|s| s.0 <= cursor)
                    .last()
                    .map(|s| (s.1, s.2));
                let extrapolated: f64 = pic
                    .render
                    .iter()
                    .filter(|(m, _)| *m == DisplayMode::Extrapolating)
                    .map(|(_, pts)| pts[1][0] - pts[0][0])
                    .sum::<f64>()
                    // An empty sum is −0.0: shown as "0.00 s", not "-0.00 s".
                    + 0.0;
                ui.label(RichText::new(format!(
                    "{machine} shows {} {} in the past{}; {} states received, {} re-syncs, {:.2} s extrapolated in view",
                    store.pawn_name(pawn),
                    last_delay.map_or("-".to_string(), |(d, _)| format!("{:.0} ms", d * 1000.0)),
                    match last_delay.map(|x| x.1) {
                        Some(DisplayMode::Extrapolating) => " (extrapolating now)",
                        Some(DisplayMode::Waiting) => " (waiting: spawn pause)",
                        _ => "",
                    },
                    pic.arrivals.len(),
                    pic.resyncs.len(),
                    extrapolated
                )).strong());
                let dark = ui.visuals().dark_mode;
                let (interp, extrap, newest_c, arrival_c) = if dark {
                    (
                        Color32::from_rgb(90, 160, 240),
                        Color32::from_rgb(240, 150, 40),
                        Color32::from_gray(170),
                        Color32::from_rgb(120, 210, 130),
                    )
                } else {
                    (
                        Color32::from_rgb(20, 90, 190),
                        Color32::from_rgb(200, 100, 0),
                        Color32::from_gray(90),
                        Color32::from_rgb(20, 140, 50),
                    )
                };
                super::action::legend_row(
                    ui,
                    &[
                        (newest_c, "newest state's age", false),
                        (arrival_c, "state received", false),
                        (interp, "shown at: interpolating", false),
                        (extrap, "shown at: extrapolating", false),
                        (interp.gamma_multiply(0.6), "re-sync", true),
                    ],
                );
                super::action::cursor_plot("interpolation buffer")
                    .y_axis_label("ms from now")
                    .include_y(0.0)
                    .show(ui, |plot_ui| {
                        plot_ui.set_plot_bounds_x(t0..=t1.max(t0 + 1e-3));
                        plot_ui.line(
                            Line::new("newest state's age", PlotPoints::from(pic.newest.clone()))
                                .color(newest_c)
                                .width(1.0),
                        );
                        plot_ui.points(
                            Points::new("state received", PlotPoints::from(pic.arrivals.clone()))
                                .color(arrival_c)
                                .radius(2.0),
                        );
                        for (i, (mode, pts)) in pic.render.iter().enumerate() {
                            let (name, c) = match mode {
                                DisplayMode::Extrapolating => ("shown at: extrapolating", extrap),
                                _ => ("shown at: interpolating", interp),
                            };
                            plot_ui.line(
                                Line::new(name, PlotPoints::from(pts.clone()))
                                    .id(("render", i))
                                    .color(c)
                                    .width(3.0),
                            );
                        }
                        for t in &pic.resyncs {
                            plot_ui.vline(
                                VLine::new("re-sync", *t)
                                    .color(interp.gamma_multiply(0.6))
                                    .style(egui_plot::LineStyle::dashed_dense()),
                            );
                        }
                    });
            });
        self.open = open;
        actions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_picture_shows_arrivals_the_newest_state_and_the_render_line() {
        // States every 50 ms, each 60 ms old on arrival; shown 150 ms in the past, then a
        // gap of 300 ms in which the proxy extrapolates, then a re-sync to 200 ms.
        let mut b = BufferTrack::default();
        for k in 0..10 {
            let t = 1.0 + f64::from(k) * 0.05;
            b.states.push((t, t - 0.06, t));
        }
        for k in 0..4 {
            let t = 1.8 + f64::from(k) * 0.05;
            b.states.push((t, t - 0.06, t));
        }
        b.shown.push((0.9, 0.0, DisplayMode::Waiting));
        b.shown.push((1.0, 0.15, DisplayMode::Interpolating));
        b.shown.push((1.55, 0.15, DisplayMode::Extrapolating));
        b.shown.push((1.8, 0.15, DisplayMode::Interpolating));
        b.shown.push((1.85, 0.2, DisplayMode::Interpolating));
        let p = picture(&b, 0.0, 2.0);
        assert_eq!(p.arrivals.len(), 14);
        assert!(p.arrivals.iter().all(|a| (a[1] + 60.0).abs() < 1e-6));
        // The newest state's age falls to 60 + 350 ms in the gap, then rises to 60 again.
        let lowest = p.newest.iter().map(|q| q[1]).fold(f64::MAX, f64::min);
        assert!((lowest + 60.0 + 350.0).abs() < 1e-6, "{lowest}");
        // Render segments: interpolating, extrapolating, interpolating, interpolating.
        let modes: Vec<DisplayMode> = p.render.iter().map(|(m, _)| *m).collect();
        assert_eq!(
            modes,
            vec![
                DisplayMode::Interpolating,
                DisplayMode::Extrapolating,
                DisplayMode::Interpolating,
                DisplayMode::Interpolating
            ]
        );
        assert_eq!(p.render[3].1[0], [1.85, -200.0]);
        assert_eq!(p.render[3].1[1], [2.0, -200.0]);
        // One re-sync (the delay changed while shown); mode changes alone are not.
        assert_eq!(p.resyncs, vec![1.85]);
        // A window in the middle: only what falls in it.
        let p = picture(&b, 1.2, 1.4);
        assert!(p.arrivals.iter().all(|a| a[0] >= 1.2 && a[0] <= 1.4));
        assert_eq!(p.render.len(), 1);
    }
}
