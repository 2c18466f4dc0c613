//! Drawing one plot: its series decimated (or extended) into the cache, lent to egui_plot
//! with the cursor and the selected range, and what a click or double-click on it means.

use eframe::egui;
use egui::{Color32, RichText};
use egui_plot::{
    AxisHints, Line, LineStyle, MarkerShape, Plot, PlotPoint, PlotPoints, Points, Span, VLine,
};

use super::axes::{y_bounds, y_label, y_marks};
use super::hover::HoverText;
use super::series::PlotSpec;
use super::window::{CacheKey, Cached, decimated_range};
use super::{PlotClick, PlotsPanel, View};
use crate::app::color_of;
use crate::model::telemetry::Machine;
use crate::session::store::{Metric, Series, Store};

/// A series lent to egui_plot: its machine, whether it is the overlaid run's, its points in view.
type InView<'a> = (Machine, bool, &'a [PlotPoint]);

impl PlotsPanel {
    pub(super) fn plot(
        &mut self,
        ui: &mut egui::Ui,
        store: &Store,
        view: &View,
        spec: &PlotSpec,
        height: f32,
        width: f32,
    ) -> Option<PlotClick> {
        self.title_row(ui, store, view, spec);
        if self.from_game_log && store.machines_with(spec.metric).is_empty() {
            silent_plot(ui, spec, width, height);
            return None;
        }
        let width_px = ui.available_width().max(100.0) as usize;
        let overlay = self.overlay.take();
        let slots = self.fill_cache(store, overlay.as_ref(), view, spec, width_px);
        self.overlay = overlay;
        let lines = lines_in_view(&self.cache, &slots, spec.metric, view);
        let resp = show_plot(
            ui,
            store,
            view,
            spec,
            (width, height),
            &lines,
            self.lesson_window,
        );
        self.transforms.insert(spec.title, resp.transform);
        click_of(&resp, &lines, store, spec)
    }

    /// The plot's title, marked when a lesson points at it; hovering it explains the plot
    /// and measures the session's own figures (only then).
    fn title_row(&self, ui: &mut egui::Ui, store: &Store, view: &View, spec: &PlotSpec) {
        let title = format!("{} ({})", spec.title, spec.unit);
        let t_here = view.t1.min(store.latest());
        let explain = |ui: &mut egui::Ui| {
            ui.label(spec.explain);
            if !spec.here.is_empty() {
                ui.label(crate::session::figures::fill(
                    spec.here,
                    store,
                    t_here - 10.0,
                    t_here,
                ));
            }
        };
        // The overlaid run's faint dashes are named on the plot that draws them, not only in
        // the legend above every plot.
        let overlaid = self
            .overlay
            .as_ref()
            .is_some_and(|o| overlaid_in_view(o, spec.metric, view));
        // Wrapped within the plot's column: a row wider than it would widen the column.
        ui.horizontal_wrapped(|ui| {
            if self.focus.as_deref() == Some(spec.title) {
                ui.label(
                    RichText::new(format!("{title}  <- look here"))
                        .strong()
                        .color(super::super::palette_look(ui.visuals().dark_mode)),
                )
                .on_hover_ui(explain);
            } else {
                ui.label(RichText::new(title).strong()).on_hover_ui(explain);
            }
            if overlaid {
                let drawn = if spec.points {
                    "B: squares"
                } else {
                    "B: dashed"
                };
                let note = egui::Label::new(RichText::new(drawn).weak())
                    .wrap_mode(egui::TextWrapMode::Extend);
                ui.add(note).on_hover_text(format!(
                    "{}: {} (B), drawn behind this session's series",
                    if spec.points {
                        "Hollow squares"
                    } else {
                        "Faint dashes"
                    },
                    self.overlay_label
                ));
            }
        });
    }

    /// Brings every shown (machine, run) series of the plot into the cache, decimated for
    /// `width_px`; returns the slots drawn, in drawing order.
    fn fill_cache(
        &mut self,
        store: &Store,
        overlay: Option<&Store>,
        view: &View,
        spec: &PlotSpec,
        width_px: usize,
    ) -> Vec<(Machine, bool)> {
        let (d0, d1, range_px) = decimated_range(view.t0, view.t1, width_px);
        // Lines: one column per pixel. Markers (3 px wide): one column per 3 pixels.
        let per_column = if spec.points { 3 } else { 2 };
        let columns = range_px / per_column;
        let dodges = Dodges::new(store, spec, &self.hidden);
        let mut slots: Vec<(Machine, bool)> = Vec::new();
        let sources = std::iter::once((store, false)).chain(overlay.map(|o| (o, true)));
        for (src, is_b) in sources {
            for m in src.machines_with(spec.metric) {
                if self.hidden.contains(&m) {
                    continue;
                }
                let Some(s) = src.series(m, spec.metric) else {
                    continue;
                };
                slots.push((m, is_b));
                let slot = (spec.metric, m, is_b);
                let scaled = Scaled {
                    scale: spec.scale,
                    dodge: dodges.of(m),
                };
                if self.naive {
                    // The benchmark's reference: every point, every frame.
                    let pts = s
                        .range(f64::NEG_INFINITY, f64::INFINITY)
                        .map(|p| scaled.point(&p))
                        .collect();
                    self.cache.insert(slot, (None, pts));
                    continue;
                }
                let key = CacheKey {
                    len: s.len(),
                    first: s.first_t(),
                    last: s.last_t(),
                    d0,
                    d1,
                    columns,
                    dodge: scaled.dodge,
                    inserts: s.inserts(),
                };
                self.decimate_into_cache(slot, s, key, scaled);
            }
        }
        slots
    }

    /// Decimates one series into its cache slot: nothing when the slot was made from the same
    /// key, only the newest columns when points were appended since (following live), all of
    /// it otherwise.
    fn decimate_into_cache(
        &mut self,
        slot: (Metric, Machine, bool),
        s: &Series,
        key: CacheKey,
        scaled: Scaled,
    ) {
        if self.cache.get(&slot).is_some_and(|(k, _)| *k == Some(key)) {
            return;
        }
        let (d0, d1, columns) = (key.d0, key.d1, key.columns);
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
            pts.extend(self.decimated.iter().map(|p| scaled.point(p)));
            *old = key;
            return;
        }
        s.decimate(d0, d1, columns, &mut self.decimated);
        let pts = self.decimated.iter().map(|p| scaled.point(p)).collect();
        self.cache.insert(slot, (Some(key), pts));
    }
}

/// The overlaid run has points of `metric` in the view's window.
fn overlaid_in_view(overlay: &Store, metric: Metric, view: &View) -> bool {
    overlay.machines_with(metric).into_iter().any(|m| {
        overlay
            .series(m, metric)
            .is_some_and(|s| s.range(view.t0, view.t1).next().is_some())
    })
}

/// How a stored value becomes a plotted one: the plot's scale, and the dodge that keeps equal
/// values of several clients' discrete series apart.
#[derive(Clone, Copy)]
struct Scaled {
    scale: f64,
    dodge: f64,
}

impl Scaled {
    fn point(&self, p: &[f64; 2]) -> PlotPoint {
        PlotPoint::new(p[0], p[1] * self.scale + self.dodge)
    }
}

/// Clients' series of a discrete quantity are drawn a little apart (dodged), so equal values
/// of several clients stay visible; the hover text rounds back.
struct Dodges {
    clients: Vec<Machine>,
    discrete: bool,
}

impl Dodges {
    fn new(store: &Store, spec: &PlotSpec, hidden: &std::collections::BTreeSet<Machine>) -> Dodges {
        let clients = store
            .machines_with(spec.metric)
            .into_iter()
            .filter(|m| matches!(m, Machine::Client(_)) && !hidden.contains(m))
            .collect();
        Dodges {
            clients,
            discrete: spec.discrete(),
        }
    }

    fn of(&self, m: Machine) -> f64 {
        if !self.discrete || self.clients.len() < 2 {
            return 0.0;
        }
        let n = self.clients.len() as f64;
        let i = self.clients.iter().position(|c| *c == m).unwrap_or(0) as f64;
        let gap = (0.4 / (n - 1.0)).min(0.12);
        (i - (n - 1.0) / 2.0) * gap
    }
}

/// A game log without this plot's quantity: an outlined box saying what the log lacks.
fn silent_plot(ui: &mut egui::Ui, spec: &PlotSpec, width: f32, height: f32) {
    let (rect, _) = ui.allocate_exact_size(egui::vec2(width, height), egui::Sense::hover());
    ui.painter().rect_stroke(
        rect,
        2.0,
        ui.visuals().widgets.noninteractive.bg_stroke,
        egui::StrokeKind::Inside,
    );
    ui.put(
        rect.shrink(12.0),
        egui::Label::new(RichText::new(crate::gmclog::how::silent_plot(spec.metric)).weak()).wrap(),
    );
}

/// Only what is in view (and the neighbours a line needs at the edges) goes to egui_plot: the
/// cache covers three windows, tessellating all of it would triple the work.
fn lines_in_view<'a>(
    cache: &'a std::collections::HashMap<(Metric, Machine, bool), Cached>,
    slots: &[(Machine, bool)],
    metric: Metric,
    view: &View,
) -> Vec<InView<'a>> {
    slots
        .iter()
        .filter_map(|&(m, is_b)| {
            cache.get(&(metric, m, is_b)).map(|(_, pts)| {
                let a = pts.partition_point(|p| p.x < view.t0).saturating_sub(1);
                let b = (pts.partition_point(|p| p.x <= view.t1) + 1).min(pts.len());
                (m, is_b, &pts[a..b.max(a)])
            })
        })
        .collect()
}

/// The plot's frame: the window and the value range are the app's (dragging, zooming and
/// scrolling over a plot would only fight them; the wheel scrolls the list of plots).
fn frame_of(spec: &PlotSpec, (width, height): (f32, f32)) -> Plot<'static> {
    let discrete = spec.discrete();
    Plot::new(spec.title)
        .height(height)
        .width(width)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .allow_boxed_zoom(false)
        .allow_double_click_reset(false)
        // The hover label (label_formatter) needs show_x/show_y; no crosshair.
        .show_x(true)
        .show_y(true)
        .show_crosshair(false)
        // Time marks far enough apart to label, and at least two however narrow.
        .x_grid_spacer(super::axes::x_marks)
        .custom_x_axes(vec![
            AxisHints::new_x()
                .formatter(|mark, _range| {
                    if mark.step_size >= 1.0 {
                        format!("{:.0} s", mark.value)
                    } else {
                        format!("{:.1} s", mark.value)
                    }
                })
                .label_spacing(20.0..=24.0),
        ])
        .y_grid_spacer(move |input| y_marks(input, discrete))
        .custom_y_axes(vec![
            AxisHints::new_y()
                .formatter(|mark, _range| y_label(mark.value, mark.step_size))
                .label_spacing(16.0..=18.0),
        ])
        .y_axis_min_width(34.0)
}

/// Correction plots name the deviating values of the correction under the pointer and
/// mark their points as diamonds.
fn names_corrections(metric: Metric) -> bool {
    matches!(metric, Metric::ReplayDepth | Metric::CorrectionError)
}

/// Shows the plot: its bounds, the lesson's window, the selected range, the series and the
/// cursor, with a hover text naming the point's machine, value and move.
fn show_plot(
    ui: &mut egui::Ui,
    store: &Store,
    view: &View,
    spec: &PlotSpec,
    size: (f32, f32),
    lines: &[InView<'_>],
    lesson_window: Option<(f64, f64)>,
) -> egui_plot::PlotResponse<()> {
    let (y0, y1) = y_bounds(spec, lines, view.t0, view.t1);
    let dark = ui.visuals().dark_mode;
    let hover = HoverText {
        store,
        machines: lines.iter().filter(|l| !l.1).map(|l| l.0).collect(),
        discrete: spec.discrete(),
        unit: spec.unit,
        per_move: spec.metric.per_move(),
        on_server: spec.metric.at_server_execution(),
        names_corrections: names_corrections(spec.metric),
    };
    frame_of(spec, size)
        .label_formatter(move |h| hover.text(h))
        .show(ui, |plot_ui| {
            plot_ui.set_plot_bounds_x(view.t0..=view.t1.max(view.t0 + 1e-3));
            plot_ui.set_plot_bounds_y(y0..=y1);
            plot_ui.set_auto_bounds([false, false]);
            if let Some((a, b)) = lesson_window {
                plot_ui.span(Span::new("", a..=b).fill(lesson_fill(dark)));
            }
            if let Some((a, b)) = view.range {
                // Unnamed items stay out of the legend.
                plot_ui.span(
                    Span::new("", a..=b).fill(Color32::from_rgba_unmultiplied(90, 140, 230, 40)),
                );
            }
            for &line in lines {
                draw_series(plot_ui, store, spec, line);
            }
            plot_ui.vline(
                VLine::new("", view.cursor)
                    .color(cursor_color(dark))
                    .width(1.5),
            );
        })
}

/// The cursor: light amber on dark, dark amber on light.
fn cursor_color(dark: bool) -> Color32 {
    if dark {
        Color32::from_rgb(240, 220, 120)
    } else {
        Color32::from_rgb(190, 120, 0)
    }
}

/// The lesson's figures' window: a pale green band, readable under the points in both themes.
fn lesson_fill(dark: bool) -> Color32 {
    if dark {
        Color32::from_rgba_unmultiplied(80, 200, 110, 28)
    } else {
        Color32::from_rgba_unmultiplied(20, 140, 60, 30)
    }
}

/// One series: the session's as a line or markers in its machine's colour; the overlaid
/// run's (the what-if run or the run before a restart) thin and faint, or hollow markers.
fn draw_series<'a>(
    plot_ui: &mut egui_plot::PlotUi<'a>,
    store: &Store,
    spec: &PlotSpec,
    line: InView<'a>,
) {
    let (m, is_b, pts) = line;
    let id = ("series", m, is_b);
    let name = if is_b {
        format!("{} (B)", store.machine_name(m))
    } else {
        store.machine_name(m)
    };
    let pts = PlotPoints::Borrowed(pts);
    if is_b {
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
            // Thin and faint: dashes of a noisy series run together, so the run before
            // reads as a lighter trace behind this one.
            plot_ui.line(
                Line::new(name, pts)
                    .id(id)
                    .color(color.gamma_multiply(0.6))
                    .width(1.0)
                    .style(LineStyle::dashed_loose()),
            );
        }
    } else if spec.points {
        let (radius, shape) = if names_corrections(spec.metric) {
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

/// What a click or double-click on the plot asks for: a double-click on a client's point
/// opens its journey at that point's own time (a move's closing, or its execution on the
/// server) and, on a correction plot, the corrected move; a click moves the cursor.
fn click_of(
    resp: &egui_plot::PlotResponse<()>,
    lines: &[InView<'_>],
    store: &Store,
    spec: &PlotSpec,
) -> Option<PlotClick> {
    let pos = resp.response.interact_pointer_pos()?;
    let at_pointer = PlotClick {
        t: resp.transform.value_from_position(pos).x,
        journey: None,
        move_id: None,
        on_server: false,
    };
    if !resp.response.double_clicked() {
        return resp.response.clicked().then_some(at_pointer);
    }
    let Some((c, point)) = nearest_client_point(lines, &resp.transform, pos, 12.0) else {
        return Some(at_pointer);
    };
    let t = point.x;
    let move_id = if names_corrections(spec.metric) {
        corrected_move_near(store, c, t)
    } else {
        None
    };
    Some(PlotClick {
        t,
        journey: Some(c),
        move_id,
        on_server: spec.metric.at_server_execution(),
    })
}

/// The move of client `c`'s event-log entry nearest `t` (within 50 ms): the corrected move
/// a correction plot's hover text names there.
fn corrected_move_near(store: &Store, c: u16, t: f64) -> Option<u32> {
    store
        .log_between(t - 0.05, t + 0.05)
        .iter()
        .filter(|e| e.machine == Machine::Client(c))
        .filter_map(|e| Some((e.t, e.move_id?)))
        .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
        .map(|(_, m)| m)
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
}
