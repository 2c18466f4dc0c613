//! The time-aligned plots: which there are, what each means in GMC terms, and drawing them
//! from the store at the cursor. Series are decimated to about two points per pixel column
//! (min/max, every extreme kept) before egui_plot sees them, which keeps a frame cheap however
//! much history the store holds (`movescope bench --plots` measures it against handing
//! egui_plot every point).

use eframe::egui;
use egui::{Color32, RichText};
use egui_plot::{
    AxisHints, GridInput, GridMark, Line, LineStyle, MarkerShape, Plot, PlotPoint, PlotPoints,
    Points, Span, VLine,
};

use super::color_of;
use crate::model::telemetry::Machine;
use crate::session::store::{Metric, Store};
use crate::session::timeline::TimeControl;

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
    /// `t` is when the server executed the move (move age), not when the client closed it.
    pub on_server: bool,
}

/// What part of the session the plots show.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub t0: f64,
    pub t1: f64,
    pub cursor: f64,
    pub range: Option<(f64, f64)>,
}

impl View {
    /// The window the plots show, inside the session's `extent` (what the store holds).
    /// Following live, it ends at the cursor (the newest data). Away from live, the window
    /// shown before (`previous`) stays while the cursor is inside it and its length is
    /// unchanged — a click in a plot moves the cursor, never the plot under the pointer;
    /// otherwise the cursor is placed at three quarters. The window never starts before the
    /// session or ends after its newest data; a session shorter than the window is shown
    /// whole.
    pub fn at(
        time: &TimeControl,
        window_s: f64,
        extent: (f64, f64),
        previous: Option<(f64, f64)>,
    ) -> View {
        let cursor = time.cursor();
        let (lo, hi) = (extent.0, extent.1.max(extent.0));
        let (t0, t1) = if time.is_following() {
            (
                (cursor - window_s).max(lo),
                cursor.max(lo + window_s.min(1.0)),
            )
        } else {
            let w = window_s.min(hi - lo).max(1e-3);
            let kept = previous.filter(|(a, b)| {
                ((b - a) - w).abs() <= 1e-6 * w.max(1.0)
                    && *a >= lo - 1e-9
                    && *b <= hi + 1e-9
                    && cursor >= *a
                    && cursor <= *b
            });
            match kept {
                Some(window) => window,
                None => {
                    let mut a = cursor - w * 0.75;
                    let mut b = a + w;
                    if b > hi {
                        a -= b - hi;
                        b = hi;
                    }
                    if a < lo {
                        b += lo - a;
                        a = lo;
                    }
                    (a, b)
                }
            }
        };
        View {
            t0,
            t1,
            cursor,
            range: time.range(),
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
    /// Scroll the list so this plot shows (once).
    pub scroll_to: Option<&'static str>,
    /// Presenter mode: only these plots, one column, sharing the height.
    pub only: Option<Vec<&'static str>>,
    /// A what-if run drawn over the session (dashed, "(B)").
    pub overlay: Option<Store>,
    /// Decimated points by (metric, machine, what-if), with what they were made from.
    cache: std::collections::HashMap<(Metric, Machine, bool), Cached>,
    /// Where each plot drawn last frame put its values on screen (by title; for tests and
    /// tools that point at a value).
    transforms: std::collections::HashMap<&'static str, egui_plot::PlotTransform>,
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
    /// How far a discrete series is drawn from its values (see `dodge_of`).
    dodge: f64,
    /// The series' out-of-order inserts (unchanged: it only grew at its end).
    inserts: u64,
}

impl CacheKey {
    /// Whether `self` (what the cache was made from) is `new` minus points appended at the
    /// end: the same range, columns and start, nothing inserted, more points.
    fn extends_to(&self, new: &CacheKey) -> bool {
        self.d0 == new.d0
            && self.d1 == new.d1
            && self.columns == new.columns
            && self.dodge == new.dodge
            && self.first == new.first
            && self.inserts == new.inserts
            && new.len > self.len
            && self.last.is_some()
    }
}

impl Default for PlotsPanel {
    fn default() -> Self {
        PlotsPanel {
            shown: PLOTS.iter().map(|p| p.default_on).collect(),
            decimated: Vec::new(),
            naive: false,
            focus: None,
            scroll_to: None,
            only: None,
            overlay: None,
            cache: std::collections::HashMap::new(),
            transforms: std::collections::HashMap::new(),
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
    /// Where the plot titled `title` drew its values last frame (`None`: not drawn).
    pub fn transform(&self, title: &str) -> Option<egui_plot::PlotTransform> {
        self.transforms.get(title).copied()
    }

    /// Forgets cached decimations (the store they came from was replaced).
    pub fn clear_cache(&mut self) {
        self.cache.clear();
    }

    /// Draws the shown plots in two columns under one legend of the machines' colours;
    /// returns what the user clicked.
    pub fn show(&mut self, ui: &mut egui::Ui, store: &Store, view: &View) -> Option<PlotClick> {
        let specs: Vec<&PlotSpec> = match &self.only {
            Some(titles) => titles
                .iter()
                .filter_map(|t| PLOTS.iter().find(|p| p.title == *t))
                .collect(),
            None => PLOTS
                .iter()
                .zip(&self.shown)
                .filter(|(_, on)| **on)
                .map(|(s, _)| s)
                .collect(),
        };
        let columns = if self.only.is_some() { 1 } else { 2 };
        ui.horizontal_wrapped(|ui| {
            ui.menu_button("Plots…", |ui| {
                for (i, spec) in PLOTS.iter().enumerate() {
                    ui.checkbox(&mut self.shown[i], spec.title)
                        .on_hover_text(spec.explain);
                }
            })
            .response
            .on_hover_text("Choose the plots shown.");
            // One legend for every plot, outside the data.
            let machines: std::collections::BTreeSet<Machine> = specs
                .iter()
                .flat_map(|s| store.machines_with(s.metric))
                .collect();
            for m in &machines {
                legend_entry(ui, color_of(*m), &m.to_string(), false);
            }
            if self.overlay.is_some() {
                legend_entry(ui, ui.visuals().text_color(), "what-if run (B)", true);
            }
            ui.weak("·  hover a title for what it measures; click: move the cursor; double-click a client's point: its move's journey")
                .on_hover_text("The plots show the window of the session around the cursor (the slider in View sets its length). Values of discrete quantities (frames, moves, steps) are drawn a little apart per client so each stays visible; the hover text gives the exact value.");
        });
        // Four rows fill the panel (presenter mode: the plots named share it); more scroll.
        let rows = if columns == 1 {
            specs.len().max(1) as f32
        } else {
            4.0
        };
        let height = ((ui.available_height() - 26.0 * rows) / rows).max(96.0);
        let col_w = ((ui.available_width() - 12.0 * columns as f32) / columns as f32).max(200.0);
        let mut seek = None;
        egui::ScrollArea::vertical().show(ui, |ui| {
            egui::Grid::new("plots")
                .num_columns(columns)
                .show(ui, |ui| {
                    for (i, spec) in specs.iter().enumerate() {
                        ui.vertical(|ui| {
                            ui.set_width(col_w);
                            // Plots scrolled out of sight keep their space but are not drawn.
                            let cell = egui::Rect::from_min_size(
                                ui.cursor().min,
                                egui::vec2(col_w, height + 22.0),
                            );
                            if self.scroll_to == Some(spec.title) {
                                self.scroll_to = None;
                                ui.scroll_to_rect(cell, Some(egui::Align::Center));
                            }
                            if !ui.is_rect_visible(cell) {
                                ui.allocate_space(cell.size());
                            } else if let Some(t) = self.plot(ui, store, view, spec, height, col_w)
                            {
                                seek = Some(t);
                            }
                        });
                        if i % columns == columns - 1 || i + 1 == specs.len() {
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
        let title = format!("{} ({})", spec.title, spec.unit);
        if self.focus.as_deref() == Some(spec.title) {
            ui.label(
                RichText::new(format!("{title}  <- look here"))
                    .strong()
                    .color(Color32::from_rgb(240, 200, 80)),
            )
            .on_hover_text(spec.explain);
        } else {
            ui.label(RichText::new(title).strong())
                .on_hover_text(spec.explain);
        }
        let width_px = ui.available_width().max(100.0) as usize;
        let (d0, d1, range_px) = decimated_range(view.t0, view.t1, width_px);
        let discrete = spec.discrete();
        // Clients' series of a discrete quantity are drawn a little apart (dodged), so equal
        // values of several clients stay visible; the hover text rounds back.
        let clients_here: Vec<Machine> = store
            .machines_with(spec.metric)
            .into_iter()
            .filter(|m| matches!(m, Machine::Client(_)))
            .collect();
        let dodge_of = |m: Machine| -> f64 {
            if !discrete || clients_here.len() < 2 {
                return 0.0;
            }
            let n = clients_here.len() as f64;
            let i = clients_here.iter().position(|c| *c == m).unwrap_or(0) as f64;
            let gap = (0.4 / (n - 1.0)).min(0.12);
            (i - (n - 1.0) / 2.0) * gap
        };
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
                let dodge = dodge_of(m);
                if self.naive {
                    // The benchmark's reference: every point, every frame.
                    let pts = s
                        .range(f64::NEG_INFINITY, f64::INFINITY)
                        .map(|p| PlotPoint::new(p[0], p[1] * spec.scale + dodge))
                        .collect();
                    self.cache.insert(slot, (None, pts));
                    continue;
                }
                // Lines: one column per pixel. Markers (3 px wide): one column per 3 pixels.
                let per_column = if spec.points { 3 } else { 2 };
                let columns = range_px / per_column;
                let key = CacheKey {
                    len: s.len(),
                    first: s.first_t(),
                    last: s.last_t(),
                    d0,
                    d1,
                    columns,
                    dodge,
                    inserts: s.inserts(),
                };
                if self.cache.get(&slot).is_some_and(|(k, _)| *k == Some(key)) {
                    continue;
                }
                // Points appended since (following live): only the columns from the one that
                // held the newest cached point on are decimated again.
                if let Some((Some(old), pts)) = self.cache.get_mut(&slot)
                    && old.extends_to(&key)
                    && columns > 0
                    && d1 > d0
                {
                    let width = (d1 - d0) / columns as f64;
                    let last_old = old.last.unwrap_or(d0);
                    let c = ((last_old - d0) / width)
                        .floor()
                        .clamp(0.0, (columns - 1) as f64);
                    let from = d0 + c * width;
                    pts.truncate(pts.partition_point(|p| p.x < from));
                    s.decimate(from, d1, columns - c as usize, &mut self.decimated);
                    pts.extend(
                        self.decimated
                            .iter()
                            .map(|p| PlotPoint::new(p[0], p[1] * spec.scale + dodge)),
                    );
                    *old = key;
                    continue;
                }
                s.decimate(d0, d1, columns, &mut self.decimated);
                let pts = self
                    .decimated
                    .iter()
                    .map(|p| PlotPoint::new(p[0], p[1] * spec.scale + dodge))
                    .collect();
                self.cache.insert(slot, (Some(key), pts));
            }
        }
        let cache = &self.cache;
        // Only what is in view (and the neighbours a line needs at the edges) goes to
        // egui_plot: the cache covers three windows, tessellating all of it would triple the
        // work.
        let lines: Vec<(Machine, bool, &[PlotPoint])> = slots
            .iter()
            .filter_map(|&(m, is_b)| {
                cache.get(&(spec.metric, m, is_b)).map(|(_, pts)| {
                    let a = pts.partition_point(|p| p.x < view.t0).saturating_sub(1);
                    let b = (pts.partition_point(|p| p.x <= view.t1) + 1).min(pts.len());
                    (m, is_b, &pts[a..b.max(a)])
                })
            })
            .collect();
        self.overlay = overlay;
        let (y0, y1) = y_bounds(spec, &lines, view.t0, view.t1);
        // The cursor: light amber on dark, dark amber on light.
        let cursor_color = if ui.visuals().dark_mode {
            Color32::from_rgb(240, 220, 120)
        } else {
            Color32::from_rgb(190, 120, 0)
        };
        let unit = spec.unit;
        // Correction plots name the deviating values of the correction under the pointer.
        let names_corrections =
            matches!(spec.metric, Metric::ReplayDepth | Metric::CorrectionError);
        // The window and the value range are the app's: dragging, zooming and scrolling over a
        // plot would only fight them (the wheel scrolls the list of plots instead).
        let plot = Plot::new(spec.title)
            .height(height)
            .width(width)
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .allow_boxed_zoom(false)
            .allow_double_click_reset(false)
            .show_x(false)
            .show_y(false)
            // Steps of 1, 5, 25 s…: a label every few seconds in short windows too.
            .x_grid_spacer(egui_plot::log_grid_spacer(5))
            .x_axis_formatter(|mark, _range| {
                if mark.step_size >= 1.0 {
                    format!("{:.0} s", mark.value)
                } else {
                    format!("{:.1} s", mark.value)
                }
            })
            .y_grid_spacer(move |input| y_marks(input, discrete))
            .custom_y_axes(vec![
                AxisHints::new_y()
                    .formatter(|mark, _range| y_label(mark.value, mark.step_size))
                    .label_spacing(16.0..=18.0),
            ])
            .y_axis_min_width(34.0);
        let resp = plot
            .label_formatter(move |h| match h {
                egui_plot::HoverPosition::NearDataPoint {
                    plot_name,
                    position,
                    ..
                } => {
                    let value = if discrete {
                        format!("{:.0}", position.y.round())
                    } else {
                        format!("{:.2}", position.y)
                    };
                    let mut text = format!("{plot_name}\nt = {:.3} s\n{value} {unit}", position.x);
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
                plot_ui.set_plot_bounds_x(view.t0..=view.t1.max(view.t0 + 1e-3));
                plot_ui.set_plot_bounds_y(y0..=y1);
                plot_ui.set_auto_bounds([false, false]);
                if let Some((a, b)) = view.range {
                    // Unnamed items stay out of the legend.
                    plot_ui.span(
                        Span::new("", a..=b)
                            .fill(Color32::from_rgba_unmultiplied(90, 140, 230, 40)),
                    );
                }
                for &(m, is_b, pts) in &lines {
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
                        let (radius, shape) = if names_corrections {
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
                plot_ui.vline(VLine::new("", view.cursor).color(cursor_color).width(1.5));
            });
        self.transforms.insert(spec.title, resp.transform);
        let pos = resp.response.interact_pointer_pos()?;
        if resp.response.double_clicked() {
            // The client's point under the pointer: its own time (a move's closing, or its
            // execution on the server), not the pointer's.
            let near = nearest_client_point(&lines, &resp.transform, pos, 12.0);
            let Some((c, point)) = near else {
                let t = resp.transform.value_from_position(pos).x;
                return Some(PlotClick {
                    t,
                    journey: None,
                    move_id: None,
                    on_server: false,
                });
            };
            let t = point.x;
            // On a correction plot, the corrected move there (as the hover text names it).
            let move_id = if names_corrections {
                store
                    .log_between(t - 0.05, t + 0.05)
                    .iter()
                    .filter(|e| e.machine == Machine::Client(c))
                    .filter_map(|e| Some((e.t, e.move_id?)))
                    .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
                    .map(|(_, m)| m)
            } else {
                None
            };
            return Some(PlotClick {
                t,
                journey: Some(c),
                move_id,
                on_server: spec.metric.at_server_execution(),
            });
        }
        let t = resp.transform.value_from_position(pos).x;
        resp.response.clicked().then_some(PlotClick {
            t,
            journey: None,
            move_id: None,
            on_server: false,
        })
    }
}

impl PlotSpec {
    /// A count (frames, moves, steps): whole numbers, ticks on whole numbers, dodged series.
    pub fn discrete(&self) -> bool {
        matches!(
            self.metric,
            Metric::FramesPerMove
                | Metric::ReplayDepth
                | Metric::Substeps
                | Metric::RemoteMovesPerFrame
        )
    }
}

/// A legend entry: a swatch (a dash for the what-if run) and a name.
fn legend_entry(ui: &mut egui::Ui, color: Color32, name: &str, dashed: bool) {
    let (rect, _) = ui.allocate_exact_size(egui::vec2(14.0, 12.0), egui::Sense::hover());
    if dashed {
        let y = rect.center().y;
        for i in 0..3 {
            let x = rect.left() + f32::from(i as u8) * 5.0;
            ui.painter().line_segment(
                [egui::pos2(x, y), egui::pos2(x + 3.0, y)],
                egui::Stroke::new(2.0, color),
            );
        }
    } else {
        ui.painter().circle_filled(rect.center(), 5.0, color);
    }
    ui.label(name);
}

/// The value range shown: the data in the window with headroom above it; from zero for a
/// quantity whose size matters; at least 0..1 (0..2 for counts) when there is no data.
pub fn y_bounds(
    spec: &PlotSpec,
    lines: &[(Machine, bool, &[PlotPoint])],
    t0: f64,
    t1: f64,
) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for (_, _, pts) in lines {
        let a = pts.partition_point(|p| p.x < t0);
        let b = pts.partition_point(|p| p.x <= t1);
        for p in &pts[a..b.max(a)] {
            if p.y.is_finite() {
                lo = lo.min(p.y);
                hi = hi.max(p.y);
            }
        }
    }
    if spec.discrete() {
        // Dodged values sit up to ±0.2 from their whole number.
        lo = lo.round();
        hi = hi.round();
    }
    if lo > hi || lo.is_nan() || hi.is_nan() {
        return if spec.discrete() {
            (-0.4, 2.4)
        } else {
            (0.0, 1.0)
        };
    }
    if spec.zero {
        lo = lo.min(0.0);
    }
    if spec.discrete() {
        hi = hi.max(lo + 2.0);
        return (lo - 0.4, hi + 0.4);
    }
    let mut span = hi - lo;
    if span <= f64::EPSILON * hi.abs().max(1.0) {
        span = hi.abs().max(1.0);
        if !spec.zero || lo < 0.0 {
            lo -= span * 0.5;
        }
    }
    let pad = span * 0.12;
    let lo = if spec.zero && lo >= 0.0 { lo } else { lo - pad };
    (lo, lo.max(hi) + pad.max(span * 0.12))
}

/// Tick marks for the value axis: a 1-2-5 step that leaves at least 24 points between
/// labels (whole numbers for counts), so every plot has numbered ticks at any size.
pub fn y_marks(input: GridInput, discrete: bool) -> Vec<GridMark> {
    let (lo, hi) = input.bounds;
    if !(hi > lo && lo.is_finite() && hi.is_finite()) {
        return Vec::new();
    }
    // egui_plot's base step is the value of its minimum grid spacing (8 points).
    let per_point = input.base_step_size / 8.0;
    let mut min_step = per_point * 24.0;
    if discrete {
        min_step = min_step.max(1.0);
    }
    let step = nice_step(min_step);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last)
        .take(64)
        .map(|k| GridMark {
            value: k as f64 * step,
            step_size: step,
        })
        .collect()
}

/// The smallest 1, 2 or 5 × 10ⁿ at least `min`.
fn nice_step(min: f64) -> f64 {
    if !(min > 0.0 && min.is_finite()) {
        return 1.0;
    }
    let p = 10f64.powf(min.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= min * (1.0 - 1e-9))
        .unwrap_or(10.0 * p)
}

/// A tick label: as many decimals as the step needs; thousands as `k`.
pub fn y_label(value: f64, step: f64) -> String {
    let v = if value.abs() < step * 1e-6 {
        0.0
    } else {
        value
    };
    if v == 0.0 {
        "0".to_string()
    } else if step >= 1000.0 {
        format!("{}k", v / 1000.0)
    } else if step >= 1.0 {
        format!("{v:.0}")
    } else {
        let decimals = (-step.log10()).ceil().clamp(1.0, 6.0) as usize;
        format!("{v:.decimals$}")
    }
}

/// The client point (not the what-if run's) nearest `pos` on screen, within `radius` points.
fn nearest_client_point(
    lines: &[(Machine, bool, &[PlotPoint])],
    transform: &egui_plot::PlotTransform,
    pos: egui::Pos2,
    radius: f32,
) -> Option<(u16, PlotPoint)> {
    let t = transform.value_from_position(pos).x;
    let dt = f64::from(radius) * transform.dvalue_dpos()[0].abs();
    let mut best: Option<(f32, u16, PlotPoint)> = None;
    for (m, is_b, pts) in lines {
        let Machine::Client(c) = m else { continue };
        if *is_b {
            continue;
        }
        let a = pts.partition_point(|p| p.x < t - dt);
        let b = pts.partition_point(|p| p.x <= t + dt);
        for p in &pts[a..b.max(a)] {
            let d = transform.position_from_point(p).distance(pos);
            if d <= radius && best.is_none_or(|(bd, _, _)| d < bd) {
                best = Some((d, *c, *p));
            }
        }
    }
    best.map(|(_, c, p)| (c, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_stays_inside_the_session_and_holds_still_under_a_click() {
        let parked = |t: f64| {
            let mut time = TimeControl::at(t);
            time.apply(
                crate::session::timeline::TimeCommand::Pause,
                &crate::session::store::Store::new(None),
            );
            time
        };
        // A 10 s recording in a 20 s window: shown whole, never negative time.
        let v = View::at(&parked(1.0), 20.0, (0.0, 10.0), None);
        assert_eq!((v.t0, v.t1), (0.0, 10.0));
        // A long session: the cursor at three quarters, clamped to the ends.
        let v = View::at(&parked(50.0), 20.0, (0.0, 100.0), None);
        assert_eq!((v.t0, v.t1), (35.0, 55.0));
        let v = View::at(&parked(99.0), 20.0, (0.0, 100.0), None);
        assert_eq!((v.t0, v.t1), (80.0, 100.0));
        let v = View::at(&parked(2.0), 20.0, (0.0, 100.0), None);
        assert_eq!((v.t0, v.t1), (0.0, 20.0));
        // A click inside the window moves the cursor, not the window.
        let kept = View::at(&parked(40.0), 20.0, (0.0, 100.0), Some((35.0, 55.0)));
        assert_eq!((kept.t0, kept.t1), (35.0, 55.0));
        assert_eq!(kept.cursor, 40.0);
        // Outside it (or with another length), the window moves to the cursor.
        let moved = View::at(&parked(70.0), 20.0, (0.0, 100.0), Some((35.0, 55.0)));
        assert_eq!((moved.t0, moved.t1), (55.0, 75.0));
        let moved = View::at(&parked(40.0), 10.0, (0.0, 100.0), Some((35.0, 55.0)));
        assert_eq!((moved.t0, moved.t1), (32.5, 42.5));
        // Following live: ending at the newest data, from the session's start.
        let live = View::at(&TimeControl::following(), 20.0, (0.0, 0.0), None);
        assert!(live.t0 >= 0.0 && live.t1 > live.t0);
    }

    fn spec(metric: Metric) -> &'static PlotSpec {
        PLOTS.iter().find(|p| p.metric == metric).unwrap()
    }

    /// Draws `panel` over `store` once (a headless frame at 1280×800).
    fn frame(
        panel: &mut PlotsPanel,
        ctx: &egui::Context,
        store: &crate::session::store::Store,
        view: &View,
    ) {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1280.0, 800.0),
            )),
            ..Default::default()
        };
        let _ = ctx.run_ui(input, |ui| {
            egui::CentralPanel::default().show(ui, |ui| {
                panel.show(ui, store, view);
            });
        });
    }

    #[test]
    fn following_live_extends_the_decimation_to_what_a_fresh_one_gives() {
        use crate::model::telemetry::{Event, Record};
        // 10 minutes of a client's 120 Hz moves with wiggling deltas (the pyramid is read).
        let record = |i: u32| Record {
            t: f64::from(i) / 120.0,
            machine: Machine::Client(0),
            event: Event::MoveClosed {
                move_id: i,
                timestamp: f64::from(i) / 120.0,
                delta: 0.008 + f64::from((i * 7919) % 97) * 1e-4,
                frames: 1 + (i % 3) as u16,
                substeps: 1,
            },
        };
        let mut store = crate::session::store::Store::new(None);
        for i in 0..72_000 {
            store.ingest(&record(i));
        }
        let ctx = egui::Context::default();
        let mut panel = PlotsPanel::default();
        let view = |now: f64| View {
            t0: 0.0,
            t1: now,
            cursor: now,
            range: None,
        };
        frame(&mut panel, &ctx, &store, &view(600.0));
        // A frame's worth of moves appended, twice (the range and columns stay).
        for i in 72_000..72_004 {
            store.ingest(&record(i));
        }
        frame(&mut panel, &ctx, &store, &view(600.02));
        let mut fresh = PlotsPanel::default();
        frame(&mut fresh, &ctx, &store, &view(600.02));
        let key = (Metric::MoveDelta, Machine::Client(0), false);
        let (k_ext, ext) = panel.cache.get(&key).expect("decimated");
        let (k_new, new) = fresh.cache.get(&key).expect("decimated");
        assert_eq!(k_ext, k_new, "made from the same series and range");
        // The same envelope: the extremes of every column agree (the extension may keep more
        // points inside the newest columns, never other extremes).
        let k = k_new.expect("a decimation");
        let width = (k.d1 - k.d0) / k.columns as f64;
        let extremes = |pts: &[PlotPoint]| {
            let mut m: std::collections::BTreeMap<i64, (f64, f64)> = Default::default();
            for p in pts {
                let c = ((p.x - k.d0) / width).floor() as i64;
                let e = m.entry(c).or_insert((f64::MAX, f64::MIN));
                e.0 = e.0.min(p.y);
                e.1 = e.1.max(p.y);
            }
            m
        };
        assert_eq!(extremes(ext), extremes(new));
        assert!(
            ext.last().unwrap().x > 600.0,
            "the appended moves are drawn"
        );
    }

    #[test]
    fn values_have_headroom_and_start_where_the_quantity_does() {
        let pts = [PlotPoint::new(1.0, 10.0), PlotPoint::new(2.0, 40.0)];
        let lines = [(Machine::Client(0), false, &pts[..])];
        // From zero, with room above the largest value.
        let (lo, hi) = y_bounds(spec(Metric::MoveDelta), &lines, 0.0, 5.0);
        assert_eq!(lo, 0.0);
        assert!(hi > 40.0 * 1.1, "{hi}");
        // Only the window's points count.
        let (_, hi) = y_bounds(spec(Metric::MoveDelta), &lines, 0.0, 1.5);
        assert!(hi < 40.0, "{hi}");
        // Counts: replay depth never runs below zero; empty plots show 0..2.
        let (lo, hi) = y_bounds(spec(Metric::ReplayDepth), &[], 0.0, 5.0);
        assert!(lo > -0.5 && lo < 0.0 && hi >= 2.0, "{lo}..{hi}");
        // A signed quantity keeps its sign, with room on both sides.
        let off = [PlotPoint::new(1.0, -4.0), PlotPoint::new(2.0, 3.0)];
        let (lo, hi) = y_bounds(
            spec(Metric::ClockOffset),
            &[(Machine::Client(0), false, &off[..])],
            0.0,
            5.0,
        );
        assert!(lo < -4.0 && hi > 3.0, "{lo}..{hi}");
    }

    #[test]
    fn every_plot_size_gets_numbered_ticks() {
        // 80 points high over 0..45: at least three labelled ticks, 24 points apart or more.
        for (height, lo, hi, discrete) in [
            (80.0, 0.0, 45.0, false),
            (80.0, -0.4, 4.4, true),
            (200.0, 0.0, 16_000.0, false),
            (60.0, -5.5, 4.2, false),
        ] {
            let per_point = (hi - lo) / height;
            let marks = y_marks(
                GridInput {
                    bounds: (lo, hi),
                    base_step_size: per_point * 8.0,
                },
                discrete,
            );
            assert!(marks.len() >= 2, "{height} {lo}..{hi}: {marks:?}");
            let step = marks[1].value - marks[0].value;
            assert!(step / per_point >= 23.9, "{step} for {height}");
            if discrete {
                assert!(marks.iter().all(|m| m.value.fract() == 0.0));
            }
        }
        assert_eq!(y_label(0.0, 5.0), "0");
        assert_eq!(y_label(15_000.0, 5000.0), "15k");
        assert_eq!(y_label(0.25, 0.05), "0.25");
        assert_eq!(y_label(20.0, 10.0), "20");
    }

    #[test]
    fn a_double_click_picks_the_point_under_the_pointer() {
        let frame = egui::Rect::from_min_size(egui::pos2(0.0, 0.0), egui::vec2(400.0, 100.0));
        let bounds = egui_plot::PlotBounds::from_min_max([0.0, 0.0], [10.0, 100.0]);
        let tr = egui_plot::PlotTransform::new(frame, bounds, egui::Vec2b::new(false, false));
        let a = [PlotPoint::new(5.0, 50.0), PlotPoint::new(5.1, 50.0)];
        let b = [PlotPoint::new(5.05, 53.0)];
        let lines = [
            (Machine::Client(0), false, &a[..]),
            (Machine::Client(1), false, &b[..]),
            // The what-if run is never picked.
            (Machine::Client(2), true, &b[..]),
        ];
        let at = |p: PlotPoint| tr.position_from_point(&p);
        // Exactly on client 1's point, between two of client 0's: client 1's.
        assert_eq!(
            nearest_client_point(&lines, &tr, at(b[0]), 12.0),
            Some((1, b[0]))
        );
        assert_eq!(
            nearest_client_point(&lines, &tr, at(a[1]), 12.0),
            Some((0, a[1]))
        );
        // Far from every point: none.
        assert_eq!(
            nearest_client_point(&lines, &tr, egui::pos2(20.0, 90.0), 12.0),
            None
        );
    }

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
