//! The world view: a top-down view of every pawn as one machine shows it at the cursor —
//! predicted pawns, simulated proxies in the past, the server's authoritative ghost,
//! corrections. Its own state is what it shows (which machine, which overlays).

use eframe::egui;
use egui::Color32;

use super::action::Action;
use super::color_of;
use super::world_labels::{
    CORRECTION_FADE_S, CORRECTIONS_DRAWN, Taken, correction_colors, footer_line, taken,
};
use crate::model::telemetry::Machine;
use crate::session::store::{Metric, Store};

/// How the view's camera is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Camera {
    /// Centred on the viewing client's own pawn (every pawn's centre for the server).
    Follow,
    /// Every pawn in view.
    FitAll,
    /// Where the user dragged it.
    Free,
}

#[derive(Clone)]
pub struct WorldView {
    /// The machine whose view is drawn.
    pub viewer: Machine,
    show_trails: bool,
    show_velocity: bool,
    show_labels: bool,
    show_ghost: bool,
    show_delays: bool,
    /// The viewer's view next to the server's at the same instant.
    pub side_by_side: bool,
    pub camera: Camera,
    /// Centre of the view (cm), used when the camera is free.
    center: glam::DVec2,
    /// Half the shorter side of the view (cm): the zoom.
    half: f64,
}

impl Default for WorldView {
    fn default() -> Self {
        WorldView {
            viewer: Machine::Client(0),
            show_trails: true,
            show_velocity: true,
            show_labels: true,
            show_ghost: true,
            show_delays: true,
            side_by_side: false,
            camera: Camera::Follow,
            center: glam::DVec2::ZERO,
            half: DEFAULT_HALF,
        }
    }
}

/// The default zoom: 16 m from the centre to the nearer edge.
const DEFAULT_HALF: f64 = 1600.0;

/// World (cm) to screen for one view rectangle.
#[derive(Clone, Copy)]
struct Projection {
    rect: egui::Rect,
    center: glam::DVec2,
    /// Points per cm.
    scale: f32,
}

/// Points at the view's foot kept for its footer line (grid, hints): the camera centres the
/// pawns in the part above it, so a fitted or followed pawn is never drawn under it.
const FOOTER_H: f32 = 22.0;

impl Projection {
    /// Where the camera's centre is drawn: the middle of the view above its footer line.
    fn mid(self) -> egui::Pos2 {
        egui::pos2(self.rect.center().x, self.rect.center().y - FOOTER_H / 2.0)
    }

    fn to_screen(self, p: glam::DVec3) -> egui::Pos2 {
        let mid = self.mid();
        egui::pos2(
            mid.x + ((p.x - self.center.x) as f32) * self.scale,
            mid.y - ((p.y - self.center.y) as f32) * self.scale,
        )
    }
}

impl WorldView {
    /// The "… ms ago" delays of proxies on (gmc.ShowSimulationDelay).
    pub fn show_delays(&mut self) {
        self.show_delays = true;
    }

    /// Top-down view of every pawn as one machine shows it (and the server's next to it).
    pub fn ui(&mut self, ui: &mut egui::Ui, store: &Store, cursor: f64) -> Vec<Action> {
        let viewers = store.viewers();
        ui.horizontal_wrapped(|ui| {
            let seen = egui::ComboBox::from_label("seen from")
                .selected_text(store.machine_name(self.viewer))
                .width(80.0)
                .show_ui(ui, |ui| {
                    for m in &viewers {
                        ui.selectable_value(&mut self.viewer, *m, store.machine_name(*m));
                    }
                })
                .response
                .on_hover_text("Whose view is drawn: a client's (its prediction and its proxies) or the server's.");
            super::lessons::pointers::mark(ui, "world.seen_from", &seen);
            let vs = ui.toggle_value(&mut self.side_by_side, "vs server")
                .on_hover_text("Side by side: what this client sees next to what the server knows at the same instant. The client's own pawn is ahead of the server's (prediction); its proxies lag behind theirs (interpolation delay).");
            super::lessons::pointers::mark(ui, "world.vs_server", &vs);
            ui.selectable_value(&mut self.camera, Camera::Follow, "follow")
                .on_hover_text("Keep the viewing client's own pawn in the centre.");
            ui.selectable_value(&mut self.camera, Camera::FitAll, "fit all")
                .on_hover_text("Keep every pawn in view.");
            if ui
                .button("reset")
                .on_hover_text("Follow again at the default zoom (16 m to the nearer edge). Drag to pan, scroll to zoom.")
                .clicked()
            {
                self.camera = Camera::Follow;
                self.half = DEFAULT_HALF;
            }
            ui.menu_button("show…", |ui| {
                ui.checkbox(&mut self.show_trails, "trails");
                ui.checkbox(&mut self.show_velocity, "velocity");
                ui.checkbox(&mut self.show_labels, "labels");
                ui.checkbox(&mut self.show_delays, "delays")
                    .on_hover_text("How far in the past each simulated proxy is shown (this machine's mean display delay).");
                ui.checkbox(&mut self.show_ghost, "server ghost")
                    .on_hover_text("The server's authoritative pawn next to the client's prediction.");
            });
            ui.weak("how to read (hover)").on_hover_text(
                "Every pawn as the chosen machine shows it: a client's own pawn is predicted (filled), \
                 other pawns are simulated proxies shown in the past (rings); the dashed ring is the \
                 server's authoritative pawn. \"… ms ago (… ms link + … ms buffer)\" next to a proxy: how far in the \
                 past this machine shows it — the server's states arrive a one-way trip late (the link: \
                 half this machine's round trip) and are buffered so they play smoothly (the buffer: \
                 GMC's interpolation buffer, there even at no latency; the Interpolation delay plot), not a fault. A correction is an arrow from where the client had its pawn (yellow \
                 square) to where the server put it (cyan dot), fading over two seconds, with its \
                 size. Seen from the server, a hollow square is the location a client claimed in a \
                 move against the server's result. Drag to pan, scroll to zoom; hover a pawn for \
                 what it is.",
            );
        });
        if !viewers.contains(&self.viewer) {
            ui.label(match store.log_contents() {
                Some(_) => format!(
                    "The log holds no positions from {}'s machine (its dumps need gmc.LogClientMoveTrace 1 on that machine; \"seen from\" picks another).",
                    store.machine_name(self.viewer)
                ),
                None => format!("No samples from {} yet.", self.viewer),
            });
        }
        let size = ui.available_size().max(egui::vec2(120.0, 120.0));
        let (rect, response) = ui.allocate_exact_size(size, egui::Sense::click_and_drag());
        let dark = ui.visuals().dark_mode;
        let server_too = self.side_by_side && self.viewer != Machine::Server;
        let rects = if server_too {
            let w = rect.width() / 2.0 - 2.0;
            vec![
                (
                    self.viewer,
                    egui::Rect::from_min_size(rect.min, egui::vec2(w, rect.height())),
                ),
                (
                    Machine::Server,
                    egui::Rect::from_min_size(
                        rect.min + egui::vec2(w + 4.0, 0.0),
                        egui::vec2(w, rect.height()),
                    ),
                ),
            ]
        } else {
            vec![(self.viewer, rect)]
        };
        let view_rect = rects[0].1;
        let pawns: Vec<crate::session::store::PawnView> = store.pawns_at(self.viewer, cursor);
        // The camera.
        let above_footer = (view_rect.height() - FOOTER_H).max(1.0);
        let short = view_rect.width().min(above_footer).max(1.0);
        match self.camera {
            Camera::Follow => {
                let own = pawns
                    .iter()
                    .find(|v| v.kind == crate::model::telemetry::SampleKind::Predicted)
                    .map(|v| v.location.truncate());
                self.center = own.unwrap_or_else(|| centroid(&pawns));
            }
            Camera::FitAll => {
                if let Some((lo, hi)) = bounds(&pawns) {
                    self.center = (lo + hi) / 2.0;
                    let need_x = (hi.x - lo.x) / 2.0 * f64::from(short / view_rect.width());
                    let need_y = (hi.y - lo.y) / 2.0 * f64::from(short / above_footer);
                    self.half = (need_x.max(need_y) + 300.0).max(500.0);
                }
            }
            Camera::Free => {}
        }
        let scale = short / 2.0 / self.half as f32;
        if response.dragged() {
            let d = response.drag_delta();
            self.center -= glam::DVec2::new(f64::from(d.x / scale), -f64::from(d.y / scale));
            self.camera = Camera::Free;
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                self.half = (self.half * f64::from((-scroll / 200.0).exp())).clamp(200.0, 50_000.0);
                if self.camera == Camera::FitAll {
                    self.camera = Camera::Free;
                }
            }
        }
        let mut picked = None;
        let mut hovered_text = None;
        for (machine, r) in &rects {
            let proj = Projection {
                rect: *r,
                center: self.center,
                scale,
            };
            let (pick, hover) = self.draw(
                ui, store, cursor, *machine, proj, dark, &response, server_too,
            );
            picked = picked.or(pick);
            hovered_text = hovered_text.or(hover);
        }
        if let Some(text) = hovered_text {
            response.clone().on_hover_text_at_pointer(text);
        }
        match picked {
            Some(client) => vec![Action::Journey {
                client,
                move_id: None,
                t: cursor,
                on_server: false,
            }],
            None => Vec::new(),
        }
    }

    /// Draws one machine's view into `proj.rect`; returns the client whose pawn was clicked
    /// and the description of the pawn under the pointer.
    #[allow(clippy::too_many_arguments)]
    fn draw(
        &self,
        ui: &egui::Ui,
        store: &Store,
        cursor: f64,
        viewer: Machine,
        proj: Projection,
        dark: bool,
        response: &egui::Response,
        titled: bool,
    ) -> (Option<u16>, Option<String>) {
        let rect = proj.rect;
        let painter = ui.painter_at(rect);
        let (bg, grid_c, text_c, weak_c) = if dark {
            (
                Color32::from_gray(18),
                Color32::from_gray(40),
                Color32::from_gray(215),
                Color32::from_gray(130),
            )
        } else {
            (
                Color32::from_gray(238),
                Color32::from_gray(210),
                Color32::from_gray(30),
                Color32::from_gray(100),
            )
        };
        painter.rect_filled(rect, 4.0, bg);
        // A 5 m grid (10 m, 20 m… when zoomed out).
        let mut step = 500.0;
        while f64::from(proj.scale) * step < 24.0 {
            step *= 2.0;
        }
        let half_w = f64::from(rect.width() / 2.0 / proj.scale);
        // (The centre sits above the footer: the grid reaches both edges.)
        let half_h = f64::from((rect.height() / 2.0 + FOOTER_H) / proj.scale);
        let grid = egui::Stroke::new(1.0, grid_c);
        let (x0, x1) = (proj.center.x - half_w, proj.center.x + half_w);
        let (y0, y1) = (proj.center.y - half_h, proj.center.y + half_h);
        let mut x = (x0 / step).floor() * step;
        while x <= x1 {
            painter.line_segment(
                [
                    proj.to_screen(glam::DVec3::new(x, y0, 0.0)),
                    proj.to_screen(glam::DVec3::new(x, y1, 0.0)),
                ],
                grid,
            );
            x += step;
        }
        let mut y = (y0 / step).floor() * step;
        while y <= y1 {
            painter.line_segment(
                [
                    proj.to_screen(glam::DVec3::new(x0, y, 0.0)),
                    proj.to_screen(glam::DVec3::new(x1, y, 0.0)),
                ],
                grid,
            );
            y += step;
        }
        let font = egui::FontId::proportional(11.0);
        let pawns: Vec<crate::session::store::PawnView> = store.pawns_at(viewer, cursor);
        let pointer = response.hover_pos().filter(|p| rect.contains(*p));
        let mut own: Option<u16> = None;
        // A click on a player's pawn: the journey of that client's move at the cursor.
        let picked = response
            .interact_pointer_pos()
            .filter(|at| response.clicked() && rect.contains(*at))
            .and_then(|at| {
                pawns
                    .iter()
                    .filter_map(|v| Some((v.owner?, proj.to_screen(v.location).distance(at))))
                    .filter(|(_, d)| *d < 14.0)
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|(c, _)| c)
            });
        // How far in the past this machine shows its proxies (mean display delay at the cursor).
        let delay = store
            .series(viewer, Metric::InterpDelay)
            .and_then(|sr| sr.range(cursor - 1.0, cursor).last())
            .map(|p| p[1]);
        // Its link's part: half this machine's round trip (the rest is the smoothing buffer).
        let one_way = store
            .series(viewer, Metric::Rtt)
            .and_then(|sr| sr.range(cursor - 2.0, cursor).last())
            .map(|p| p[1] / 2.0);
        // Labels are placed only where they overlap no other, no pawn, the caption and the
        // footer line (hover for the rest).
        let marks = store.corrections_between(cursor - CORRECTION_FADE_S, cursor);
        // The newest few only: a burst of corrections would bury the pawns under marks.
        let marks = &marks[marks.len().saturating_sub(CORRECTIONS_DRAWN)..];
        let own_pawn = pawns
            .iter()
            .find(|v| v.kind == crate::model::telemetry::SampleKind::Predicted)
            .map(|v| v.pawn);
        let ghost = match (self.show_ghost, own_pawn, viewer) {
            (true, Some(pawn), Machine::Client(_)) => store
                .authoritative_at(pawn, cursor)
                .map(|g| proj.to_screen(g.location)),
            _ => None,
        };
        let mine = |m: &&crate::session::store::CorrectionMark| {
            m.machine == viewer || viewer == Machine::Server
        };
        // Every pawn's place on screen: labels keep nearest their own.
        let spots: Vec<egui::Pos2> = pawns.iter().map(|v| proj.to_screen(v.location)).collect();
        let Taken {
            mut placed,
            marks: mark_places,
            trails,
        } = taken(
            (rect, titled),
            &spots,
            ghost,
            &marks
                .iter()
                .filter(mine)
                .map(|m| (proj.to_screen(m.predicted), proj.to_screen(m.authoritative)))
                .collect::<Vec<_>>(),
            &pawns
                .iter()
                .filter(|_| self.show_trails)
                .map(|v| v.trail.iter().map(|(_, p)| proj.to_screen(*p)).collect())
                .collect::<Vec<_>>(),
        );
        let mut hovered: Option<(f32, String)> = None;
        for v in &pawns {
            let color = v.owner.map_or(weak_c, |o| color_of(Machine::Client(o)));
            let at = proj.to_screen(v.location);
            if self.show_trails && v.trail.len() > 1 {
                let pts: Vec<egui::Pos2> =
                    v.trail.iter().map(|(_, p)| proj.to_screen(*p)).collect();
                painter.add(egui::Shape::line(
                    pts,
                    egui::Stroke::new(1.0, color.gamma_multiply(0.45)),
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
                let tip = proj.to_screen(v.location + v.velocity * 0.25);
                painter.line_segment([at, tip], egui::Stroke::new(1.0, weak_c));
            }
            let who = match v.owner {
                // A client with two pawns in view (its pawn respawned: the old one still
                // shown): the pawn ids tell them apart.
                Some(o)
                    if pawns
                        .iter()
                        .filter(|x| x.owner == Some(o) && x.kind == v.kind)
                        .count()
                        > 1 =>
                {
                    format!("{} (pawn {})", store.client_name(o), v.pawn)
                }
                Some(o) => store.client_name(o),
                None => format!("AI {}", v.pawn),
            };
            let what = match v.kind {
                crate::model::telemetry::SampleKind::Predicted => "own pawn, predicted",
                crate::model::telemetry::SampleKind::Displayed => "simulated proxy",
                crate::model::telemetry::SampleKind::Authoritative => "server pawn",
            };
            let ago = match (v.kind, delay) {
                (crate::model::telemetry::SampleKind::Displayed, Some(d)) if self.show_delays => {
                    delay_words(d, one_way)
                }
                _ => String::new(),
            };
            // Side by side with the server's view: how far this machine shows the pawn from
            // where the server has it at the same moment.
            let off_server = match (viewer, v.kind) {
                (Machine::Client(_), crate::model::telemetry::SampleKind::Authoritative)
                | (Machine::Server, _) => None,
                _ => store
                    .authoritative_at(v.pawn, cursor)
                    .map(|a| (a.location - v.location).truncate().length()),
            };
            let label = match off_server {
                Some(d) if titled => format!("{who}: {d:.0} cm"),
                _ => format!("{who}{ago}"),
            };
            let off_text = off_server.map_or(String::new(), |d| {
                let why = match v.kind {
                    crate::model::telemetry::SampleKind::Predicted => {
                        " (ahead of it: the client predicts moves the server has not executed yet)"
                    }
                    _ => " (behind it: shown in the past)",
                };
                format!("\n{d:.0} cm from where the server has it at this moment{why}")
            });
            if let Some(p) = pointer {
                let d = p.distance(at);
                if d < 14.0 && hovered.as_ref().is_none_or(|(bd, _)| d < *bd) {
                    hovered = Some((
                        d,
                        format!(
                            "{who}: {what}{ago}{}{off_text}\n({:.0}, {:.0}) cm, {:.0} cm/s",
                            if ago.is_empty() {
                                ""
                            } else {
                                "\nShown in the past: the server's state of this pawn took the link's delay to arrive, then waited in the smoothing buffer so it plays smoothly."
                            },
                            v.location.x,
                            v.location.y,
                            v.velocity.truncate().length()
                        ),
                    ));
                }
            }
            // The whole label where it fits; else the name alone (a crowded view still
            // names every pawn it can).
            // A pawn outside the view (or under its footer line) gets no label: a label at the
            // edge would name a pawn the reader cannot see.
            let in_view = rect
                .with_max_y(rect.max.y - FOOTER_H)
                .shrink(2.0)
                .contains(at);
            if self.show_labels && in_view {
                let texts = if label == who {
                    vec![label]
                } else {
                    vec![label, who]
                };
                super::world_labels::place_near(
                    &painter,
                    (&mut placed, &trails, &spots),
                    (rect, at),
                    texts,
                    &font,
                    text_c,
                );
            }
        }
        if let (true, Some(pawn), Machine::Client(_)) = (self.show_ghost, own, viewer)
            && let Some(g) = store.authoritative_at(pawn, cursor)
        {
            let c = proj.to_screen(g.location);
            // Dashed: the server's pawn, not one this client shows.
            for k in 0..12 {
                let a0 = k as f32 / 12.0 * std::f32::consts::TAU;
                let a1 = a0 + std::f32::consts::TAU / 24.0;
                painter.line_segment(
                    [
                        c + egui::vec2(a0.cos(), a0.sin()) * 10.0,
                        c + egui::vec2(a1.cos(), a1.sin()) * 10.0,
                    ],
                    egui::Stroke::new(1.5, text_c),
                );
            }
        }
        let (had_c, put_c) = correction_colors(dark);
        // Only the newest correction is labelled (older ones are fading arrows).
        let newest = marks
            .iter()
            .rposition(|m| m.machine == viewer || viewer == Machine::Server);
        for (i, m) in marks.iter().enumerate() {
            // A client sees its own corrections; the server view mirrors every correction the
            // server found: the location a client claimed against the server's result.
            let mirror = viewer == Machine::Server
                && m.detected_by == crate::model::telemetry::DetectedBy::Server;
            if m.machine != viewer && !mirror {
                continue;
            }
            let fade = (1.0 - (cursor - m.t) / CORRECTION_FADE_S).clamp(0.15, 1.0) as f32;
            let (p, a) = (proj.to_screen(m.predicted), proj.to_screen(m.authoritative));
            let had = had_c.gamma_multiply(fade);
            let put = put_c.gamma_multiply(fade);
            // Where the client had it: a square (hollow for a claim seen from the server).
            let sq = egui::Rect::from_center_size(p, egui::vec2(7.0, 7.0));
            if mirror {
                painter.rect_stroke(
                    sq,
                    0.0,
                    egui::Stroke::new(2.0, had),
                    egui::StrokeKind::Middle,
                );
            } else {
                painter.rect_filled(sq, 0.0, had);
            }
            // The arrow to where the server put it, and a dot there.
            let dir = a - p;
            let len = dir.length();
            if len > 6.0 {
                let u = dir / len;
                let head = a - u * 7.0;
                let n = egui::vec2(-u.y, u.x);
                painter.line_segment([p, head], egui::Stroke::new(2.5, put));
                painter.add(egui::Shape::convex_polygon(
                    vec![a, head + n * 5.0, head - n * 5.0],
                    put,
                    egui::Stroke::NONE,
                ));
            }
            painter.circle_filled(a, 4.0, put);
            if len <= 10.0 && Some(i) == newest {
                // Shorter than its own marks (a few cm at this zoom): a ring around the newest
                // says a correction is here; its label and zooming in say how large.
                painter.circle_stroke(p + dir / 2.0, 11.0, egui::Stroke::new(1.5, put));
            }
            let size_cm = (m.authoritative - m.predicted).truncate().length();
            if self.show_labels && Some(i) == newest {
                let text = if mirror {
                    format!("{} claimed: {size_cm:.0} cm off", m.machine)
                } else {
                    format!("corrected {size_cm:.0} cm")
                };
                // Text stays readable while its arrow fades: unfaded, and darker on the light
                // theme than the arrow's cyan.
                let ink = super::world_labels::correction_label_color(dark);
                let galley = painter.layout_no_wrap(text, font.clone(), ink);
                let r = egui::Rect::from_min_size(a + egui::vec2(6.0, 6.0), galley.size());
                // (Beside its own marks, whose places were taken for the pawns' labels.)
                let free = !placed
                    .iter()
                    .enumerate()
                    .any(|(j, p)| !mark_places.contains(&j) && p.intersects(r));
                if rect.contains_rect(r) && free {
                    placed.push(r);
                    painter.galley(r.min, galley, ink);
                }
            }
        }
        let caption = if titled && viewer != Machine::Server {
            format!("{viewer} (cm from server)")
        } else if titled {
            format!("{viewer}")
        } else {
            String::new()
        };
        painter.text(
            rect.left_top() + egui::vec2(6.0, 4.0),
            egui::Align2::LEFT_TOP,
            caption,
            egui::FontId::proportional(13.0),
            text_c,
        );
        let footer = if titled {
            format!("grid: {} m", step / 100.0)
        } else {
            format!(
                "grid: {} m   click a player's pawn: its move's journey",
                step / 100.0
            )
        };
        let footer = match super::world_labels::log_gaps(store, viewer, &pawns) {
            Some(gap) => format!("{gap}   {footer}"),
            None => footer,
        };
        footer_line(&painter, rect, footer, (font, weak_c), bg);
        (picked, hovered.map(|(_, t)| t))
    }
}

/// How far in the past a proxy is shown, in its two parts when the round trip is known:
/// ", 130 ms ago (0 ms link + 130 ms buffer)" — at no latency the delay is all buffer.
fn delay_words(delay: f64, one_way: Option<f64>) -> String {
    match one_way {
        Some(link) if link.is_finite() => {
            let link = link.clamp(0.0, delay);
            format!(
                ", {:.0} ms ago ({:.0} ms link + {:.0} ms buffer)",
                delay * 1000.0,
                link * 1000.0,
                (delay - link) * 1000.0
            )
        }
        _ => format!(", {:.0} ms ago (link + buffer)", delay * 1000.0),
    }
}

/// The middle of the pawns (the origin when there are none).
fn centroid(pawns: &[crate::session::store::PawnView]) -> glam::DVec2 {
    bounds(pawns).map_or(glam::DVec2::ZERO, |(lo, hi)| (lo + hi) / 2.0)
}

/// The box around the pawns.
fn bounds(pawns: &[crate::session::store::PawnView]) -> Option<(glam::DVec2, glam::DVec2)> {
    let mut it = pawns.iter().map(|v| v.location.truncate());
    let first = it.next()?;
    Some(it.fold((first, first), |(lo, hi), p| (lo.min(p), hi.max(p))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At no latency the whole delay is the buffer; with a round trip, its half is the link's.
    #[test]
    fn a_proxys_delay_says_its_link_and_its_buffer() {
        assert_eq!(
            delay_words(0.130, Some(0.0)),
            ", 130 ms ago (0 ms link + 130 ms buffer)"
        );
        assert_eq!(
            delay_words(0.180, Some(0.050)),
            ", 180 ms ago (50 ms link + 130 ms buffer)"
        );
        // A link estimate longer than the delay (a round trip measured before a change).
        assert_eq!(
            delay_words(0.100, Some(0.300)),
            ", 100 ms ago (100 ms link + 0 ms buffer)"
        );
        assert_eq!(delay_words(0.130, None), ", 130 ms ago (link + buffer)");
    }
}
