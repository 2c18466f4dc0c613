//! The time-aligned plots: which there are, what each means in GMC terms, and drawing them
//! from the store at the cursor. Series are decimated to about two points per pixel column
//! (min/max, every extreme kept) before egui_plot sees them, which keeps a frame cheap however
//! much history the store holds (`movescope bench --plots` measures it against handing
//! egui_plot every point).

use eframe::egui;
use egui::{Color32, RichText};
use egui_plot::{
    ItemId, Legend, Line, LineStyle, MarkerShape, Plot, PlotPoint, PlotPoints, Points, Span, VLine,
};

use super::color_of;
use crate::model::telemetry::Machine;
use crate::store::{Metric, Store};
use crate::timeline::TimeControl;

/// One plot: what it shows and what it means in GMC terms.
pub struct PlotSpec {
    pub title: &'static str,
    pub explain: &'static str,
    pub metric: Metric,
    pub scale: f64,
    pub unit: &'static str,
    pub points: bool,
    /// Keep zero in view (a quantity whose size matters, not only its wiggles).
    pub zero: bool,
    /// Shown unless the user hides it.
    pub default_on: bool,
}

pub const PLOTS: [PlotSpec; 12] = [
    PlotSpec {
        title: "Move delta",
        explain: "Each move's delta time on its owning client (ms), from timestamps, clamped to MaxMoveDeltaTime. Combined moves carry the accumulated delta of their frames.",
        metric: Metric::MoveDelta,
        scale: 1000.0,
        unit: "ms",
        points: true,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Frames per move",
        explain: "Frames merged into each move while the inputs allow combining and the delta stays within MaxCombinedDeltaTime: about 4 at 120 fps, 1 at 30 fps.",
        metric: Metric::FramesPerMove,
        scale: 1.0,
        unit: "frames",
        points: true,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Corrections: replay depth",
        explain: "One marker per correction the client adopted: how many pending moves it replayed (CL_IsReplaying). Grows with latency.",
        metric: Metric::ReplayDepth,
        scale: 1.0,
        unit: "moves",
        points: true,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Interpolation delay",
        explain: "How far in the past each client displays the other pawns (ms): latency estimate + smoothing buffer with AdaptiveBufferedInterpolation.",
        metric: Metric::InterpDelay,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Move age on the server",
        explain: "Server time minus the move's timestamp when the server executed it (ms): half a round trip plus batching and frame waits. Huge without a world-time replicator.",
        metric: Metric::MoveAge,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Round trip (ping)",
        explain: "Ping round-trip time measured by each client (ms); half of it is the latency estimate used for clock sync and smoothing.",
        metric: Metric::Rtt,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Clock offset",
        explain: "Each client's synchronized clock (GetTime) minus the server's clock at the same instant (ms). Near zero with one AGMC_WorldTimeReplicator.",
        metric: Metric::ClockOffset,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: false,
        default_on: true,
    },
    PlotSpec {
        title: "Bytes sent per second",
        explain: "Datagram bytes each machine sent per second (movescope's bit-packed format, headers included).",
        metric: Metric::BytesSent,
        scale: 1.0,
        unit: "B/s",
        points: false,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Corrections: error / tolerance",
        explain: "One marker per correction: its largest deviation divided by that value's tolerance (1 = just over). The event log names the value and both sides.",
        metric: Metric::CorrectionError,
        scale: 1.0,
        unit: "× tol",
        points: true,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Sub-steps per move",
        explain: "How many slices a move was executed in: a delta larger than MaxTimeStep is sub-stepped (up to MaxIterations). More than 1 at low frame rates.",
        metric: Metric::Substeps,
        scale: 1.0,
        unit: "steps",
        points: true,
        zero: true,
        default_on: true,
    },
    PlotSpec {
        title: "Move timestamp − server time",
        explain: "Each move's timestamp (the client's synchronized clock) minus the server's clock when it closed (ms): the timestamps a client puts on its moves, seen against server time.",
        metric: Metric::MoveTimestampOffset,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: false,
        default_on: false,
    },
    PlotSpec {
        title: "Remote moves per server frame",
        explain: "Moves from clients the server executed in each of its frames: bursts after loss or batching, zero while a client is silent.",
        metric: Metric::RemoteMovesPerFrame,
        scale: 1.0,
        unit: "moves",
        points: true,
        zero: true,
        default_on: false,
    },
];

/// A click on a plot: the time under the pointer and, for a double-click on a client's
/// series, that client (to show the journey of its move there).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlotClick {
    pub t: f64,
    pub journey: Option<u16>,
    /// On a correction plot, the corrected move under the pointer.
    pub move_id: Option<u32>,
}

/// What part of the session the plots show.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub t0: f64,
    pub t1: f64,
    pub cursor: f64,
    pub range: Option<(f64, f64)>,
    /// Move the plots to [t0, t1] this frame (the cursor moved, or they follow live).
    pub place: bool,
}

impl View {
    /// The window around the timeline's cursor: ending at it when following, with the cursor
    /// at three quarters otherwise.
    pub fn at(time: &TimeControl, window_s: f64, placed_at: Option<f64>) -> View {
        let cursor = time.cursor();
        let (t0, t1) = if time.is_following() {
            ((cursor - window_s).max(0.0), cursor.max(window_s.min(1.0)))
        } else {
            (cursor - window_s * 0.75, cursor + window_s * 0.25)
        };
        View {
            t0,
            t1,
            cursor,
            range: time.range(),
            place: time.is_following() || placed_at != Some(cursor),
        }
    }
}

/// The plots panel: which plots are shown, and reusable buffers.
pub struct PlotsPanel {
    pub shown: Vec<bool>,
    decimated: Vec<[f64; 2]>,
    /// Draw every stored point instead of decimated series (for the benchmark).
    pub naive: bool,
    /// The plot a lesson points at (highlighted).
    pub focus: Option<String>,
    /// A what-if run drawn over the session (dashed, "(B)").
    pub overlay: Option<Store>,
    /// Decimated points by (metric, machine, what-if), with what they were made from.
    cache: std::collections::HashMap<(Metric, Machine, bool), Cached>,
}

/// Points ready for egui_plot and what they were made from (`None`: every point, the
/// benchmark's reference, made again each frame).
type Cached = (Option<CacheKey>, Vec<PlotPoint>);

/// What a cached decimation was made from.
#[derive(Clone, Copy, Debug, PartialEq)]
struct CacheKey {
    len: usize,
    first: Option<f64>,
    last: Option<f64>,
    d0: f64,
    d1: f64,
    columns: usize,
}

impl Default for PlotsPanel {
    fn default() -> Self {
        PlotsPanel {
            shown: PLOTS.iter().map(|p| p.default_on).collect(),
            decimated: Vec::new(),
            naive: false,
            focus: None,
            overlay: None,
            cache: std::collections::HashMap::new(),
        }
    }
}

/// The range series are decimated over for a view of `t0..t1` drawn `width_px` pixels wide,
/// and its width in pixels at the view's scale: a window's length beyond the view on both
/// sides (so panning shows data), widened to a grid of a power of two near a quarter of the
/// window. While the view pans or plays by less than a grid step the range stays the same,
/// and so do the decimations made for it (a series that did not change is not decimated
/// again); a range of no length is the view's.
pub fn decimated_range(t0: f64, t1: f64, width_px: usize) -> (f64, f64, usize) {
    let span = t1 - t0;
    if !(span > 0.0 && span.is_finite()) {
        return (t0, t1, width_px);
    }
    let step = 2f64.powi((span / 4.0).log2().floor() as i32);
    let d0 = ((t0 - span) / step).floor() * step;
    let d1 = ((t1 + span) / step).ceil() * step;
    let px = ((d1 - d0) / span * width_px as f64).round() as usize;
    (d0, d1, px.max(width_px))
}

impl PlotsPanel {
    /// Forgets cached decimations (the store they came from was replaced).
    pub fn clear_cache(&mut self) {
        self.cache.clear();
    }

    /// Draws the shown plots in two columns; returns what the user clicked.
    pub fn show(&mut self, ui: &mut egui::Ui, store: &Store, view: &View) -> Option<PlotClick> {
        ui.horizontal_wrapped(|ui| {
            ui.menu_button("Plots…", |ui| {
                for (i, spec) in PLOTS.iter().enumerate() {
                    ui.checkbox(&mut self.shown[i], spec.title)
                        .on_hover_text(spec.explain);
                }
            })
            .response
            .on_hover_text("Choose the plots shown.");
            ui.weak("Hover a title for what it measures; click a plot to move the cursor there; double-click a client's point for its move's journey.");
        });
        let specs: Vec<&PlotSpec> = PLOTS
            .iter()
            .zip(&self.shown)
            .filter(|(_, on)| **on)
            .map(|(s, _)| s)
            .collect();
        // Four rows fill the panel; more scroll.
        let height = ((ui.available_height() - 30.0 * 4.0) / 4.0).max(90.0);
        let col_w = ((ui.available_width() - 24.0) / 2.0).max(200.0);
        let mut seek = None;
        egui::ScrollArea::vertical().show(ui, |ui| {
            egui::Grid::new("plots").num_columns(2).show(ui, |ui| {
                for (i, spec) in specs.iter().enumerate() {
                    ui.vertical(|ui| {
                        ui.set_width(col_w);
                        // Plots scrolled out of sight keep their space but are not drawn.
                        let cell = egui::Rect::from_min_size(
                            ui.cursor().min,
                            egui::vec2(col_w, height + 24.0),
                        );
                        if !ui.is_rect_visible(cell) {
                            ui.allocate_space(cell.size());
                        } else if let Some(t) = self.plot(ui, store, view, spec, height, col_w) {
                            seek = Some(t);
                        }
                    });
                    if i % 2 == 1 || i + 1 == specs.len() {
                        ui.end_row();
                    }
                }
            });
        });
        seek
    }

    fn plot(
        &mut self,
        ui: &mut egui::Ui,
        store: &Store,
        view: &View,
        spec: &PlotSpec,
        height: f32,
        width: f32,
    ) -> Option<PlotClick> {
        if self.focus.as_deref() == Some(spec.title) {
            ui.label(
                RichText::new(format!("{}  <- look here", spec.title))
                    .strong()
                    .color(Color32::from_rgb(240, 200, 80)),
            )
            .on_hover_text(spec.explain);
        } else {
            ui.label(RichText::new(spec.title).strong())
                .on_hover_text(spec.explain);
        }
        let width_px = ui.available_width().max(100.0) as usize;
        let (d0, d1, range_px) = decimated_range(view.t0, view.t1, width_px);
        // Points of each (machine, run) are kept in the cache and lent to egui_plot; a view of
        // an unchanged series is not decimated (or copied) again.
        let mut slots: Vec<(Machine, bool)> = Vec::new();
        let overlay = self.overlay.take();
        let sources = std::iter::once((store, false)).chain(overlay.as_ref().map(|o| (o, true)));
        for (src, is_b) in sources {
            for m in src.machines_with(spec.metric) {
                let Some(s) = src.series(m, spec.metric) else {
                    continue;
                };
                let slot = (spec.metric, m, is_b);
                slots.push((m, is_b));
                if self.naive {
                    // The benchmark's reference: every point, every frame.
                    let pts = s
                        .range(f64::NEG_INFINITY, f64::INFINITY)
                        .map(|p| PlotPoint::new(p[0], p[1] * spec.scale))
                        .collect();
                    self.cache.insert(slot, (None, pts));
                    continue;
                }
                // Lines: one column per pixel. Markers (3 px wide): one column per 3 pixels.
                let per_column = if spec.points { 3 } else { 1 };
                let columns = range_px / per_column;
                let key = CacheKey {
                    len: s.len(),
                    first: s.first_t(),
                    last: s.last_t(),
                    d0,
                    d1,
                    columns,
                };
                if self.cache.get(&slot).is_some_and(|(k, _)| *k == Some(key)) {
                    continue;
                }
                s.decimate(d0, d1, columns, &mut self.decimated);
                let pts = self
                    .decimated
                    .iter()
                    .map(|p| PlotPoint::new(p[0], p[1] * spec.scale))
                    .collect();
                self.cache.insert(slot, (Some(key), pts));
            }
        }
        let cache = &self.cache;
        let lines: Vec<(Machine, bool, &[PlotPoint])> = slots
            .iter()
            .filter_map(|&(m, is_b)| {
                cache
                    .get(&(spec.metric, m, is_b))
                    .map(|(_, pts)| (m, is_b, pts.as_slice()))
            })
            .collect();
        // The clients' own series, by plot item (a double-click on one opens a journey).
        let clients: Vec<(ItemId, u16)> = lines
            .iter()
            .filter_map(|(m, is_b, _)| match m {
                Machine::Client(c) if !is_b => Some((ItemId::new(("series", *m, false)), *c)),
                _ => None,
            })
            .collect();
        self.overlay = overlay;
        let unit = spec.unit;
        // Correction plots name the deviating values of the correction under the pointer.
        let names_corrections =
            matches!(spec.metric, Metric::ReplayDepth | Metric::CorrectionError);
        let mut plot = Plot::new(spec.title).height(height).width(width);
        if spec.zero {
            plot = plot.include_y(0.0);
        }
        // Steps of 1, 5, 25 s…: a label every few seconds in short windows too.
        plot = plot.x_grid_spacer(egui_plot::log_grid_spacer(5));
        plot = plot.x_axis_formatter(|mark, _range| {
            if mark.step_size >= 1.0 {
                format!("{:.0} s", mark.value)
            } else {
                format!("{:.1} s", mark.value)
            }
        });
        let resp = plot
            .link_axis(egui::Id::unique("time axis"), [true, false])
            .legend(Legend::default())
            .y_axis_label(unit)
            .label_formatter(move |h| match h {
                egui_plot::HoverPosition::NearDataPoint {
                    plot_name,
                    position,
                    ..
                } => {
                    let mut text = format!(
                        "{plot_name}\nt = {:.3} s\n{:.2} {unit}",
                        position.x, position.y
                    );
                    let machine = plot_name.to_string();
                    if names_corrections
                        && let Some(e) = store
                            .log_between(position.x - 0.05, position.x + 0.05)
                            .iter()
                            .filter(|e| e.move_id.is_some() && e.machine.to_string() == machine)
                            .min_by(|a, b| {
                                (a.t - position.x)
                                    .abs()
                                    .total_cmp(&(b.t - position.x).abs())
                            })
                    {
                        text.push('\n');
                        text.push_str(&e.text);
                    }
                    Some(text)
                }
                _ => None,
            })
            .show(ui, |plot_ui| {
                if view.place {
                    plot_ui.set_plot_bounds_x(view.t0..=view.t1);
                    plot_ui.set_auto_bounds([false, true]);
                }
                if let Some((a, b)) = view.range {
                    // Unnamed items stay out of the legend.
                    plot_ui.span(
                        Span::new("", a..=b)
                            .fill(Color32::from_rgba_unmultiplied(90, 140, 230, 40)),
                    );
                }
                for (m, is_b, pts) in lines {
                    let id = ("series", m, is_b);
                    let name = if is_b {
                        format!("{m} (B)")
                    } else {
                        m.to_string()
                    };
                    let pts = PlotPoints::Borrowed(pts);
                    if is_b {
                        // The what-if run: dashed lines, hollow markers.
                        let color = color_of(m).gamma_multiply(0.8);
                        if spec.points {
                            plot_ui.points(
                                Points::new(name, pts)
                                    .id(id)
                                    .color(color)
                                    .radius(3.0)
                                    .filled(false)
                                    .shape(MarkerShape::Square),
                            );
                        } else {
                            plot_ui.line(
                                Line::new(name, pts)
                                    .id(id)
                                    .color(color)
                                    .style(LineStyle::dashed_loose()),
                            );
                        }
                    } else if spec.points {
                        let (radius, shape) = if spec.metric == Metric::ReplayDepth {
                            (4.0, MarkerShape::Diamond)
                        } else {
                            (1.5, MarkerShape::Circle)
                        };
                        plot_ui.points(
                            Points::new(name, pts)
                                .id(id)
                                .color(color_of(m))
                                .radius(radius)
                                .shape(shape),
                        );
                    } else {
                        plot_ui.line(Line::new(name, pts).id(id).color(color_of(m)));
                    }
                }
                plot_ui.vline(
                    VLine::new("", view.cursor)
                        .color(Color32::from_rgb(240, 220, 120))
                        .width(1.5),
                );
            });
        let pos = resp.response.interact_pointer_pos()?;
        let t = resp.transform.value_from_position(pos).x;
        if resp.response.double_clicked() {
            // The client whose series is under the pointer (items are identified by machine).
            let journey = resp.hovered_plot_item.and_then(|id| {
                clients
                    .iter()
                    .find(|(item, _)| *item == id)
                    .map(|(_, c)| *c)
            });
            // On a correction plot, the corrected move there (as the hover text names it).
            let move_id = journey.filter(|_| names_corrections).and_then(|c| {
                store
                    .log_between(t - 0.05, t + 0.05)
                    .iter()
                    .filter(|e| e.machine == Machine::Client(c))
                    .filter_map(|e| Some((e.t, e.move_id?)))
                    .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
                    .map(|(_, m)| m)
            });
            return Some(PlotClick {
                t,
                journey,
                move_id,
            });
        }
        resp.response.clicked().then_some(PlotClick {
            t,
            journey: None,
            move_id: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::decimated_range;

    #[test]
    fn the_decimated_range_covers_the_view_and_stays_while_it_pans() {
        let w = 1000;
        for (t0, t1) in [(0.0, 600.0), (12.3, 42.3), (-5.0, 0.001), (1e6, 1e6 + 7.0)] {
            let span = t1 - t0;
            let (d0, d1, px) = decimated_range(t0, t1, w);
            // A window's length beyond the view on both sides, and at most a half more.
            assert!(d0 <= t0 - span && d1 >= t1 + span, "{t0}..{t1}: {d0}..{d1}");
            assert!(
                d1 - d0 <= 3.5 * span * (1.0 + 1e-9),
                "{t0}..{t1}: {d0}..{d1}"
            );
            // About one column per pixel at the view's scale.
            let expected = (d1 - d0) / span * w as f64;
            assert!((px as f64 - expected).abs() <= 1.0, "{px} vs {expected}");
        }
        // Panning by a little (a quarter second a frame over ten minutes) keeps the range for
        // most frames: it changes only when an end crosses a grid line.
        let ranges: Vec<_> = (0..600)
            .map(|i| decimated_range(f64::from(i) * 0.25, 600.0 + f64::from(i) * 0.25, w))
            .collect();
        let changes = ranges.windows(2).filter(|r| r[0] != r[1]).count();
        assert!(changes <= 2, "{changes} changes in 600 frames");
        // No length: the view itself.
        assert_eq!(decimated_range(5.0, 5.0, w), (5.0, 5.0, w));
    }
}
