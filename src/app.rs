//! The desktop app (first cut): a live session of the chosen preset, time-aligned plots read
//! from the [`Store`], live controls for the pitfall switches, the network and a few GMC
//! settings, an event log, and screenshots (in-app and `--screenshot`).
//!
//! The UI never waits on simulation threads: each frame it drains telemetry under a time
//! budget and draws decimated series.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, bounded};
use eframe::egui;
use egui::{Color32, RichText};
use egui_plot::{Legend, Line, MarkerShape, Plot, Points};

use crate::live::{Command, LiveSession};
use crate::model::settings::{Faults, SmoothingMode};
use crate::model::telemetry::{Event, LogLevel, Machine};
use crate::preset::{Direction, Preset};
use crate::sim::link::LinkParams;
use crate::store::{Metric, Store};

/// Longest the UI spends draining telemetry per frame.
const DRAIN_BUDGET: Duration = Duration::from_millis(6);
/// Seconds of history kept in the store.
const RETENTION: f64 = 600.0;

/// `--screenshot FILE --screenshot-after SECONDS`.
#[derive(Clone, Debug)]
pub struct ScreenshotPlan {
    pub path: PathBuf,
    pub after: f64,
}

/// How the app was started.
#[derive(Clone, Debug)]
pub struct AppOptions {
    pub preset: Preset,
    pub preset_name: String,
    pub screenshot: Option<ScreenshotPlan>,
}

/// One plot: what it shows and what it means in GMC terms.
struct PlotSpec {
    title: &'static str,
    explain: &'static str,
    metric: Metric,
    scale: f64,
    unit: &'static str,
    points: bool,
    /// Keep zero in view (a quantity whose size matters, not only its wiggles).
    zero: bool,
}

const PLOTS: [PlotSpec; 8] = [
    PlotSpec {
        title: "Move delta",
        explain: "Each move's delta time on its owning client (ms), from timestamps, clamped to MaxMoveDeltaTime. Combined moves carry the accumulated delta of their frames.",
        metric: Metric::MoveDelta,
        scale: 1000.0,
        unit: "ms",
        points: true,
        zero: true,
    },
    PlotSpec {
        title: "Frames per move",
        explain: "Frames merged into each move while the inputs allow combining and the delta stays within MaxCombinedDeltaTime: about 4 at 120 fps, 1 at 30 fps.",
        metric: Metric::FramesPerMove,
        scale: 1.0,
        unit: "frames",
        points: true,
        zero: true,
    },
    PlotSpec {
        title: "Corrections: replay depth",
        explain: "One marker per correction the client adopted: how many pending moves it replayed (CL_IsReplaying). Grows with latency.",
        metric: Metric::ReplayDepth,
        scale: 1.0,
        unit: "moves",
        points: true,
        zero: true,
    },
    PlotSpec {
        title: "Interpolation delay",
        explain: "How far in the past each client displays the other pawns (ms): latency estimate + smoothing buffer with AdaptiveBufferedInterpolation.",
        metric: Metric::InterpDelay,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: true,
    },
    PlotSpec {
        title: "Move age on the server",
        explain: "Server time minus the move's timestamp when the server executed it (ms): half a round trip plus batching and frame waits. Huge without a world-time replicator.",
        metric: Metric::MoveAge,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: true,
    },
    PlotSpec {
        title: "Round trip (ping)",
        explain: "Ping round-trip time measured by each client (ms); half of it is the latency estimate used for clock sync and smoothing.",
        metric: Metric::Rtt,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: true,
    },
    PlotSpec {
        title: "Clock offset",
        explain: "Each client's synchronized clock (GetTime) minus the server's clock at the same instant (ms). Near zero with one AGMC_WorldTimeReplicator.",
        metric: Metric::ClockOffset,
        scale: 1000.0,
        unit: "ms",
        points: false,
        zero: false,
    },
    PlotSpec {
        title: "Bytes sent per second",
        explain: "Datagram bytes each machine sent per second (movescope's bit-packed format, headers included).",
        metric: Metric::BytesSent,
        scale: 1.0,
        unit: "B/s",
        points: false,
        zero: true,
    },
];

fn color_of(m: Machine) -> Color32 {
    const PALETTE: [Color32; 8] = [
        Color32::from_rgb(31, 119, 180),
        Color32::from_rgb(255, 127, 14),
        Color32::from_rgb(44, 160, 44),
        Color32::from_rgb(214, 39, 40),
        Color32::from_rgb(148, 103, 189),
        Color32::from_rgb(140, 86, 75),
        Color32::from_rgb(227, 119, 194),
        Color32::from_rgb(127, 127, 127),
    ];
    match m {
        Machine::Server => Color32::from_rgb(90, 90, 90),
        Machine::Client(i) => PALETTE[usize::from(i) % PALETTE.len()],
    }
}

/// A line of the event log.
struct LogLine {
    t: f64,
    level: Option<LogLevel>,
    text: String,
}

enum ShotState {
    Waiting,
    Requested,
    Done,
}

pub struct MovescopeApp {
    options: AppOptions,
    session: Option<LiveSession>,
    error: Option<String>,
    store: Store,
    log: VecDeque<LogLine>,
    paused: bool,
    window_s: f64,
    follow: bool,
    /// Edited copies of what the session runs with.
    faults: Faults,
    link: LinkParams,
    smoothing: SmoothingMode,
    started: Instant,
    shot: ShotState,
    shot_tx: Sender<Arc<egui::ColorImage>>,
    shot_rx: Receiver<Arc<egui::ColorImage>>,
    shot_path: Option<PathBuf>,
    status: String,
    decimated: Vec<[f64; 2]>,
    viewer: Machine,
    show_trails: bool,
    show_velocity: bool,
    show_labels: bool,
    show_ghost: bool,
}

impl MovescopeApp {
    pub fn new(options: AppOptions) -> Self {
        let (session, error) = match LiveSession::start(&options.preset) {
            Ok(s) => (Some(s), None),
            Err(e) => (None, Some(e)),
        };
        let (shot_tx, shot_rx) = bounded(2);
        MovescopeApp {
            faults: options.preset.faults.clone(),
            link: options.preset.link.clone(),
            smoothing: options.preset.smoothing.mode,
            options,
            session,
            error,
            store: Store::new(Some(RETENTION)),
            log: VecDeque::new(),
            paused: false,
            window_s: 20.0,
            follow: true,
            started: Instant::now(),
            shot: ShotState::Waiting,
            shot_tx,
            shot_rx,
            shot_path: None,
            status: String::new(),
            decimated: Vec::new(),
            viewer: Machine::Client(0),
            show_trails: true,
            show_velocity: true,
            show_labels: true,
            show_ghost: true,
        }
    }

    /// The live session (for tests and tools).
    pub fn session(&self) -> Option<&LiveSession> {
        self.session.as_ref()
    }

    pub fn is_paused(&self) -> bool {
        self.paused
    }

    fn command(&mut self, cmd: Command) {
        if let Some(s) = self.session.as_mut()
            && let Err(e) = s.command(cmd)
        {
            self.status = e;
        }
    }

    /// Moves telemetry into the store, for at most [`DRAIN_BUDGET`].
    fn drain(&mut self) {
        let Some(s) = self.session.as_ref() else {
            return;
        };
        let rx = s.telemetry().clone();
        let deadline = Instant::now() + DRAIN_BUDGET;
        while Instant::now() < deadline {
            let Ok(r) = rx.try_recv() else { break };
            self.store.ingest(&r);
            let line = match &r.event {
                Event::Correction {
                    move_id,
                    deviations,
                    replay_depth,
                    ..
                } => Some(LogLine {
                    t: r.t,
                    level: None,
                    text: format!(
                        "{}: correction at move {move_id}, replayed {replay_depth}: {}",
                        r.machine,
                        deviations
                            .iter()
                            .map(|d| format!(
                                "{} predicted {} but server {} (error {:.2} > {:.2})",
                                d.binding, d.predicted, d.authoritative, d.error, d.tolerance
                            ))
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                }),
                Event::Log { level, text } => Some(LogLine {
                    t: r.t,
                    level: Some(*level),
                    text: format!("{}: {text}", r.machine),
                }),
                _ => None,
            };
            if let Some(l) = line {
                self.log.push_back(l);
                while self.log.len() > 500 {
                    self.log.pop_front();
                }
            }
        }
    }

    fn screenshots(&mut self, ctx: &egui::Context) {
        if let Ok(img) = self.shot_rx.try_recv() {
            let path = self
                .shot_path
                .take()
                .unwrap_or_else(|| PathBuf::from("movescope.png"));
            match save_png(&path, &img) {
                Ok(()) => self.status = format!("screenshot saved to {}", path.display()),
                Err(e) => self.status = format!("screenshot failed: {e}"),
            }
            if matches!(self.shot, ShotState::Requested) && self.options.screenshot.is_some() {
                self.shot = ShotState::Done;
                if !self.status.starts_with("screenshot saved") {
                    eprintln!("movescope: {}", self.status);
                    std::process::exit(1);
                }
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
        if let (Some(plan), ShotState::Waiting) = (&self.options.screenshot, &self.shot)
            && self.started.elapsed().as_secs_f64() >= plan.after
        {
            let path = plan.path.clone();
            self.shot = ShotState::Requested;
            self.request_screenshot(ctx, path);
        }
    }

    fn request_screenshot(&mut self, ctx: &egui::Context, path: PathBuf) {
        self.shot_path = Some(path);
        let tx = self.shot_tx.clone();
        let repaint = ctx.clone();
        ctx.request_screenshot(move |img| {
            let _ = tx.try_send(img);
            repaint.request_repaint();
        });
    }

    fn top_bar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.heading("movescope");
            ui.label(RichText::new(&self.options.preset.title).strong())
                .on_hover_text(&self.options.preset.description);
            ui.separator();
            let now = self.session.as_ref().map_or(0.0, |s| s.clock().now());
            ui.label(format!("session time {now:.1} s"));
            ui.separator();
            let label = if self.paused {
                "Resume (Space)"
            } else {
                "Pause (Space)"
            };
            if ui.button(label).clicked() {
                self.toggle_pause();
            }
            ui.checkbox(&mut self.follow, "Follow live")
                .on_hover_text("Keep the plots on the newest data.");
            ui.add(egui::Slider::new(&mut self.window_s, 5.0..=120.0).text("s shown"));
            if ui
                .button("Save screenshot")
                .on_hover_text("Saves a PNG of the window in the working directory.")
                .clicked()
            {
                let name = format!("movescope-{:.0}.png", now * 1000.0);
                let ctx = ui.ctx().clone();
                self.request_screenshot(&ctx, PathBuf::from(name));
            }
            if let Some(s) = self.session.as_ref() {
                let dropped = s.telemetry_dropped();
                if dropped > 0 {
                    ui.colored_label(Color32::YELLOW, format!("{dropped} records dropped"));
                }
            }
            if !self.status.is_empty() {
                ui.label(&self.status);
            }
        });
    }

    fn toggle_pause(&mut self) {
        self.paused = !self.paused;
        self.command(if self.paused {
            Command::Pause
        } else {
            Command::Resume
        });
    }

    fn controls(&mut self, ui: &mut egui::Ui) {
        egui::ScrollArea::vertical().show(ui, |ui| {
            ui.heading("Pitfall switches");
            let mut f = self.faults.clone();
            let mut changed = false;
            {
                let fields: [(&mut bool, &str); 10] = [
                    (&mut f.unbound_member, Faults::EXPLAINED[0].1),
                    (&mut f.wall_clock_in_tick, Faults::EXPLAINED[1].1),
                    (&mut f.no_seal_after_one_shot, Faults::EXPLAINED[2].1),
                    (&mut f.dash_always_combine, Faults::EXPLAINED[3].1),
                    (&mut f.unguarded_side_effects, Faults::EXPLAINED[4].1),
                    (&mut f.proxy_value_not_simulated, Faults::EXPLAINED[5].1),
                    (&mut f.spawn_data_only_bound, Faults::EXPLAINED[6].1),
                    (&mut f.transition_in_sync_applied, Faults::EXPLAINED[7].1),
                    (&mut f.binding_mismatch, Faults::EXPLAINED[8].1),
                    (&mut f.tick_reads_proxy_transform, Faults::EXPLAINED[9].1),
                ];
                for (i, (flag, explain)) in fields.into_iter().enumerate() {
                    changed |= ui
                        .checkbox(flag, Faults::EXPLAINED[i].0)
                        .on_hover_text(explain)
                        .changed();
                }
            }
            if changed {
                self.apply_faults(f);
            }
            ui.separator();
            ui.heading("Network (every client, both ways)");
            let mut link = self.link.clone();
            let mut lc = false;
            lc |= ui
                .add(egui::Slider::new(&mut link.latency_ms, 0.0..=300.0).text("latency ms"))
                .on_hover_text("One-way latency of every client's link.")
                .changed();
            lc |= ui
                .add(egui::Slider::new(&mut link.jitter_ms, 0.0..=100.0).text("jitter ms"))
                .changed();
            lc |= ui
                .add(egui::Slider::new(&mut link.loss, 0.0..=0.3).text("loss"))
                .on_hover_text("Probability that a datagram is lost.")
                .changed();
            if lc {
                self.link = link.clone();
                let ids = self
                    .session
                    .as_ref()
                    .map(|s| s.client_ids())
                    .unwrap_or_default();
                for id in ids {
                    self.command(Command::SetLink {
                        client: id,
                        direction: Direction::Both,
                        params: link.clone(),
                    });
                }
            }
            ui.separator();
            ui.heading("Smoothing");
            let before = self.smoothing;
            for (m, explain) in [
                (
                    SmoothingMode::AdaptiveBufferedInterpolation,
                    "GMC's default: show states latency + an adaptive buffer in the past.",
                ),
                (
                    SmoothingMode::FixedDelayInterpolation,
                    "A fixed total delay (0.15 s): runs dry, and extrapolates, when latency is higher.",
                ),
                (SmoothingMode::MatchLatest, "Show the newest state as it arrives: jerky."),
                (
                    SmoothingMode::ForwardSimulation,
                    "Run the prediction tick (simulated executions) from the newest state to now.",
                ),
            ] {
                ui.radio_value(&mut self.smoothing, m, format!("{m:?}"))
                    .on_hover_text(explain);
            }
            if self.smoothing != before {
                let mut sm = self.options.preset.smoothing;
                sm.mode = self.smoothing;
                self.options.preset.smoothing = sm;
                self.command(Command::SetSmoothing(sm));
            }
        });
    }

    /// Tick pitfalls go to the threads as they are; binding mistakes need a binding change.
    fn apply_faults(&mut self, f: Faults) {
        let bindings_changed = f.unbound_member != self.faults.unbound_member
            || f.dash_always_combine != self.faults.dash_always_combine
            || f.proxy_value_not_simulated != self.faults.proxy_value_not_simulated;
        self.faults = f.clone();
        self.options.preset.faults = f.clone();
        self.command(Command::SetFaults(f));
        if bindings_changed {
            match self.options.preset.bindings() {
                Ok(b) => self.command(Command::ChangeBindings {
                    bindings: b,
                    consistent: true,
                }),
                Err((field, e)) => self.status = format!("`{field}`: {e}"),
            }
        }
    }

    fn plots(&mut self, ui: &mut egui::Ui) {
        let now = self.store.latest();
        let (t0, t1) = (
            (now - self.window_s).max(0.0),
            now.max(self.window_s.min(1.0)),
        );
        let rows = 4;
        let height = ((ui.available_height() - 30.0 * rows as f32) / rows as f32).max(80.0);
        let col_w = ((ui.available_width() - 16.0) / 2.0).max(200.0);
        egui::Grid::new("plots").num_columns(2).show(ui, |ui| {
            for (i, spec) in PLOTS.iter().enumerate() {
                ui.vertical(|ui| {
                    ui.set_width(col_w);
                    ui.label(RichText::new(spec.title).strong())
                        .on_hover_text(spec.explain);
                    let width_px = ui.available_width().max(100.0) as usize;
                    let mut lines: Vec<(Machine, Vec<[f64; 2]>)> = Vec::new();
                    for m in self.store.machines_with(spec.metric) {
                        if let Some(s) = self.store.series(m, spec.metric) {
                            s.decimate(t0, t1, width_px, &mut self.decimated);
                            lines.push((
                                m,
                                self.decimated
                                    .iter()
                                    .map(|p| [p[0], p[1] * spec.scale])
                                    .collect(),
                            ));
                        }
                    }
                    let follow = self.follow;
                    let unit = spec.unit;
                    let mut plot = Plot::new(spec.title).height(height).width(col_w);
                    if spec.zero {
                        plot = plot.include_y(0.0);
                    }
                    plot = plot.x_axis_formatter(|mark, _range| format!("{:.0} s", mark.value));
                    plot.link_axis(egui::Id::unique("time axis"), [true, false])
                        .legend(Legend::default())
                        .y_axis_label(unit)
                        .label_formatter(move |h| match h {
                            egui_plot::HoverPosition::NearDataPoint {
                                plot_name,
                                position,
                                ..
                            } => Some(format!(
                                "{plot_name}\nt = {:.2} s\n{:.2} {unit}",
                                position.x, position.y
                            )),
                            _ => None,
                        })
                        .show(ui, |plot_ui| {
                            if follow {
                                plot_ui.set_plot_bounds_x(t0..=t1);
                                plot_ui.set_auto_bounds([false, true]);
                            }
                            for (m, pts) in lines {
                                let name = m.to_string();
                                if spec.points {
                                    let (radius, shape) = if spec.metric == Metric::ReplayDepth {
                                        (4.0, MarkerShape::Diamond)
                                    } else {
                                        (1.5, MarkerShape::Circle)
                                    };
                                    plot_ui.points(
                                        Points::new(name, pts)
                                            .color(color_of(m))
                                            .radius(radius)
                                            .shape(shape),
                                    );
                                } else {
                                    plot_ui.line(Line::new(name, pts).color(color_of(m)));
                                }
                            }
                        });
                });
                if i % 2 == 1 {
                    ui.end_row();
                }
            }
        });
    }

    /// Top-down view of every pawn as one machine shows it.
    fn world_view(&mut self, ui: &mut egui::Ui) {
        ui.heading("World view").on_hover_text(
            "Every pawn as the chosen machine shows it: a client's own pawn is predicted (filled), \
             other pawns are simulated proxies shown in the past (rings); the green ring is the \
             server's authoritative pawn. Red/green marks: a correction moved the pawn from where \
             the client had it (red) to where the server put it (green).",
        );
        let viewers = self.store.viewers();
        egui::ComboBox::from_label("seen from")
            .selected_text(self.viewer.to_string())
            .show_ui(ui, |ui| {
                for m in &viewers {
                    ui.selectable_value(&mut self.viewer, *m, m.to_string());
                }
            });
        ui.horizontal_wrapped(|ui| {
            ui.checkbox(&mut self.show_trails, "trails");
            ui.checkbox(&mut self.show_velocity, "velocity");
            ui.checkbox(&mut self.show_labels, "labels");
            ui.checkbox(&mut self.show_ghost, "server ghost")
                .on_hover_text("The server's authoritative pawn next to the client's prediction.");
        });
        if !viewers.contains(&self.viewer) {
            ui.label(format!("No samples from {} yet.", self.viewer));
        }
        let side = ui.available_width().min(ui.available_height()).max(120.0);
        let (rect, _) = ui.allocate_exact_size(egui::vec2(side, side), egui::Sense::hover());
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 4.0, Color32::from_gray(18));
        const HALF: f64 = 1600.0;
        let to_screen = |p: glam::DVec3| {
            egui::pos2(
                rect.center().x + (p.x / HALF) as f32 * rect.width() / 2.0,
                rect.center().y - (p.y / HALF) as f32 * rect.height() / 2.0,
            )
        };
        let grid = egui::Stroke::new(1.0, Color32::from_gray(40));
        for k in -3..=3 {
            let d = f64::from(k) * 500.0;
            painter.line_segment(
                [
                    to_screen(glam::DVec3::new(d, -HALF, 0.0)),
                    to_screen(glam::DVec3::new(d, HALF, 0.0)),
                ],
                grid,
            );
            painter.line_segment(
                [
                    to_screen(glam::DVec3::new(-HALF, d, 0.0)),
                    to_screen(glam::DVec3::new(HALF, d, 0.0)),
                ],
                grid,
            );
        }
        let font = egui::FontId::proportional(11.0);
        let pawns: Vec<crate::store::PawnView> = self.store.pawns(self.viewer).cloned().collect();
        let mut own: Option<u16> = None;
        for v in &pawns {
            let color = v
                .owner
                .map_or(Color32::from_gray(170), |o| color_of(Machine::Client(o)));
            let at = to_screen(v.location);
            if self.show_trails && v.trail.len() > 1 {
                let pts: Vec<egui::Pos2> = v.trail.iter().map(|(_, p)| to_screen(*p)).collect();
                painter.add(egui::Shape::line(
                    pts,
                    egui::Stroke::new(1.0, color.gamma_multiply(0.4)),
                ));
            }
            match v.kind {
                crate::model::telemetry::SampleKind::Predicted => {
                    own = Some(v.pawn);
                    painter.circle_filled(at, 7.0, color);
                }
                crate::model::telemetry::SampleKind::Displayed => {
                    painter.circle_stroke(at, 7.0, egui::Stroke::new(2.0, color));
                }
                crate::model::telemetry::SampleKind::Authoritative => {
                    painter.circle_filled(at, 6.0, color);
                }
            }
            let yaw = v.yaw.to_radians();
            let nose = at + egui::vec2(yaw.cos() as f32, -(yaw.sin() as f32)) * 11.0;
            painter.line_segment([at, nose], egui::Stroke::new(2.0, color));
            if self.show_velocity {
                let tip = to_screen(v.location + v.velocity * 0.25);
                painter.line_segment(
                    [at, tip],
                    egui::Stroke::new(1.0, Color32::from_rgb(230, 230, 120)),
                );
            }
            if self.show_labels {
                let who = match v.owner {
                    Some(o) => format!("client {o}"),
                    None => format!("AI {}", v.pawn),
                };
                let what = match v.kind {
                    crate::model::telemetry::SampleKind::Predicted => {
                        "autonomous proxy (predicted)"
                    }
                    crate::model::telemetry::SampleKind::Displayed => "simulated proxy",
                    crate::model::telemetry::SampleKind::Authoritative => "server pawn",
                };
                painter.text(
                    at + egui::vec2(9.0, -9.0),
                    egui::Align2::LEFT_BOTTOM,
                    format!("{who}: {what}"),
                    font.clone(),
                    Color32::from_gray(200),
                );
            }
        }
        if let (true, Some(pawn), Machine::Client(_)) = (self.show_ghost, own, self.viewer)
            && let Some(g) = self.store.authoritative(pawn)
        {
            painter.circle_stroke(
                to_screen(g.location),
                9.0,
                egui::Stroke::new(1.5, Color32::from_rgb(60, 200, 90)),
            );
        }
        let now = self.store.latest();
        for m in self.store.corrections_since(now - 3.0) {
            if m.machine != self.viewer {
                continue;
            }
            let fade = (1.0 - (now - m.t) / 3.0).clamp(0.0, 1.0) as f32;
            let (p, a) = (to_screen(m.predicted), to_screen(m.authoritative));
            painter.line_segment(
                [p, a],
                egui::Stroke::new(1.0, Color32::from_gray(200).gamma_multiply(fade)),
            );
            painter.circle_filled(p, 4.0, Color32::from_rgb(230, 60, 60).gamma_multiply(fade));
            painter.circle_filled(a, 4.0, Color32::from_rgb(60, 200, 90).gamma_multiply(fade));
        }
        painter.text(
            rect.left_bottom() + egui::vec2(6.0, -6.0),
            egui::Align2::LEFT_BOTTOM,
            "grid: 5 m",
            font,
            Color32::from_gray(120),
        );
    }

    fn event_log(&mut self, ui: &mut egui::Ui) {
        ui.heading("Event log");
        egui::ScrollArea::vertical()
            .stick_to_bottom(true)
            .show(ui, |ui| {
                for l in &self.log {
                    let color = match l.level {
                        Some(LogLevel::Error) => Color32::from_rgb(220, 60, 60),
                        Some(LogLevel::Warning) => Color32::from_rgb(210, 160, 40),
                        None => ui.visuals().text_color(),
                    };
                    ui.colored_label(color, format!("{:7.2} s  {}", l.t, l.text));
                }
            });
    }
}

impl eframe::App for MovescopeApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.drain();
        self.screenshots(ctx);
        if ctx.input(|i| i.key_pressed(egui::Key::Space)) && !ctx.egui_wants_keyboard_input() {
            self.toggle_pause();
        }
        ctx.request_repaint_after(Duration::from_millis(33));
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        egui::Panel::top("top").show(ui, |ui| self.top_bar(ui));
        if let Some(e) = &self.error {
            egui::CentralPanel::default().show(ui, |ui| {
                ui.colored_label(Color32::RED, format!("The session could not start: {e}"));
            });
            return;
        }
        egui::Panel::left("controls")
            .resizable(true)
            .default_size(270.0)
            .show(ui, |ui| self.controls(ui));
        egui::Panel::right("world")
            .resizable(true)
            .default_size(430.0)
            .show(ui, |ui| self.world_view(ui));
        egui::Panel::bottom("log")
            .resizable(true)
            .default_size(150.0)
            .min_size(110.0)
            .show(ui, |ui| self.event_log(ui));
        egui::CentralPanel::default().show(ui, |ui| self.plots(ui));
    }
}

/// Writes an RGBA PNG; refuses an image with a single colour (a blank window).
pub fn save_png(path: &std::path::Path, img: &egui::ColorImage) -> Result<(), String> {
    let [w, h] = img.size;
    if w == 0 || h == 0 {
        return Err("the screenshot is empty".into());
    }
    let first = img.pixels[0];
    if img.pixels.iter().all(|p| *p == first) {
        return Err("the screenshot is blank (one colour)".into());
    }
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w as u32, h as u32);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().map_err(|e| e.to_string())?;
    let bytes: Vec<u8> = img.pixels.iter().flat_map(|p| p.to_array()).collect();
    writer.write_image_data(&bytes).map_err(|e| e.to_string())?;
    Ok(())
}

/// Opens the window.
pub fn run(options: AppOptions) -> Result<(), String> {
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size([1280.0, 800.0])
            .with_title("movescope"),
        ..Default::default()
    };
    eframe::run_native(
        "movescope",
        native,
        Box::new(move |_cc| Ok(Box::new(MovescopeApp::new(options)))),
    )
    .map_err(|e| e.to_string())
}
