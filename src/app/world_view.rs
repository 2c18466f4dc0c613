//! The world view: a top-down view of every pawn as one machine shows it at the cursor —
//! predicted pawns, simulated proxies in the past, the server's authoritative ghost,
//! corrections. Its own state is what it shows (which machine, which overlays).

use eframe::egui;
use egui::Color32;

use super::action::Action;
use super::color_of;
use crate::model::telemetry::Machine;
use crate::store::{Metric, Store};

pub struct WorldView {
    /// The machine whose view is drawn.
    pub viewer: Machine,
    show_trails: bool,
    show_velocity: bool,
    show_labels: bool,
    show_ghost: bool,
    show_delays: bool,
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
        }
    }
}

impl WorldView {
    /// Top-down view of every pawn as one machine shows it.
    pub fn ui(&mut self, ui: &mut egui::Ui, store: &Store, cursor: f64) -> Vec<Action> {
        ui.weak("How to read this view (hover)").on_hover_text(
            "Every pawn as the chosen machine shows it: a client's own pawn is predicted (filled), \
             other pawns are simulated proxies shown in the past (rings); the green ring is the \
             server's authoritative pawn. Blue \"… ms ago\": how far in the past this machine shows \
             its proxies. Red/green marks: a correction moved the pawn from where the client had \
             it (red) to where the server put it (green). Seen from the server, hollow red marks \
             mirror the server's side: the location a client claimed in a move against the \
             server's result.",
        );
        let viewers = store.viewers();
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
            ui.checkbox(&mut self.show_delays, "delays")
                .on_hover_text("How far in the past each simulated proxy is shown (this machine's mean display delay).");
            ui.checkbox(&mut self.show_ghost, "server ghost")
                .on_hover_text("The server's authoritative pawn next to the client's prediction.");
        });
        if !viewers.contains(&self.viewer) {
            ui.label(format!("No samples from {} yet.", self.viewer));
        }
        let side = ui.available_width().min(ui.available_height()).max(120.0);
        let (rect, response) = ui.allocate_exact_size(egui::vec2(side, side), egui::Sense::click());
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
        let pawns: Vec<crate::store::PawnView> = store.pawns_at(self.viewer, cursor);
        let mut own: Option<u16> = None;
        // A click on a player's pawn: the journey of that client's move at the cursor.
        let picked = response
            .interact_pointer_pos()
            .filter(|_| response.clicked())
            .and_then(|at| {
                pawns
                    .iter()
                    .filter_map(|v| Some((v.owner?, to_screen(v.location).distance(at))))
                    .filter(|(_, d)| *d < 14.0)
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|(c, _)| c)
            });
        // How far in the past this machine shows its proxies (mean display delay at the cursor).
        let delay = store
            .series(self.viewer, Metric::InterpDelay)
            .and_then(|sr| sr.range(cursor - 1.0, cursor).last())
            .map(|p| p[1]);
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
            if self.show_delays
                && v.kind == crate::model::telemetry::SampleKind::Displayed
                && let Some(d) = delay
            {
                painter.text(
                    at + egui::vec2(9.0, 3.0),
                    egui::Align2::LEFT_TOP,
                    format!("{:.0} ms ago", d * 1000.0),
                    egui::FontId::proportional(10.0),
                    Color32::from_rgb(150, 190, 240),
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
                // Labels near the right edge go to the pawn's left, so they stay readable.
                let (offset, align) = if at.x > rect.right() - 170.0 {
                    (egui::vec2(-9.0, -9.0), egui::Align2::RIGHT_BOTTOM)
                } else {
                    (egui::vec2(9.0, -9.0), egui::Align2::LEFT_BOTTOM)
                };
                painter.text(
                    at + offset,
                    align,
                    format!("{who}: {what}"),
                    font.clone(),
                    Color32::from_gray(200),
                );
            }
        }
        if let (true, Some(pawn), Machine::Client(_)) = (self.show_ghost, own, self.viewer)
            && let Some(g) = store.authoritative_at(pawn, cursor)
        {
            painter.circle_stroke(
                to_screen(g.location),
                9.0,
                egui::Stroke::new(1.5, Color32::from_rgb(60, 200, 90)),
            );
        }
        let now = cursor;
        for m in store.corrections_between(now - 3.0, now) {
            // A client sees its own corrections; the server view mirrors every correction the
            // server found: the location a client claimed against the server's result.
            let mirror = self.viewer == Machine::Server
                && m.detected_by == crate::model::telemetry::DetectedBy::Server;
            if m.machine != self.viewer && !mirror {
                continue;
            }
            let fade = (1.0 - (now - m.t) / 3.0).clamp(0.0, 1.0) as f32;
            let (p, a) = (to_screen(m.predicted), to_screen(m.authoritative));
            painter.line_segment(
                [p, a],
                egui::Stroke::new(1.0, Color32::from_gray(200).gamma_multiply(fade)),
            );
            let red = Color32::from_rgb(230, 60, 60).gamma_multiply(fade);
            if mirror {
                // Hollow: a claim that arrived in a move, not where the server has the pawn.
                painter.circle_stroke(p, 4.0, egui::Stroke::new(1.5, red));
            } else {
                painter.circle_filled(p, 4.0, red);
            }
            painter.circle_filled(a, 4.0, Color32::from_rgb(60, 200, 90).gamma_multiply(fade));
            if mirror && self.show_labels {
                painter.text(
                    p + egui::vec2(6.0, 6.0),
                    egui::Align2::LEFT_TOP,
                    format!("{} claimed", m.machine),
                    egui::FontId::proportional(10.0),
                    red,
                );
            }
        }
        painter.text(
            rect.left_bottom() + egui::vec2(6.0, -6.0),
            egui::Align2::LEFT_BOTTOM,
            "grid: 5 m   click a player's pawn: its move's journey",
            font,
            Color32::from_gray(120),
        );
        match picked {
            Some(client) => vec![Action::Journey {
                client,
                move_id: None,
                t: cursor,
            }],
            None => Vec::new(),
        }
    }
}
