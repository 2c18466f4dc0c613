//! The world view: a top-down view of every pawn as one machine shows it at the cursor —
//! predicted pawns, simulated proxies in the past, the server's authoritative ghost,
//! corrections. Its own state is what it shows (which machine, which overlays).

use eframe::egui;

use super::action::Action;
use super::world_paint::{FOOTER_H, Overlays, Projection, Scene};
use crate::model::telemetry::Machine;
use crate::session::store::Store;

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

impl WorldView {
    /// The "… ms ago" delays of proxies on (gmc.ShowSimulationDelay).
    pub fn show_delays(&mut self) {
        self.show_delays = true;
    }

    fn overlays(&self) -> Overlays {
        Overlays {
            trails: self.show_trails,
            velocity: self.show_velocity,
            labels: self.show_labels,
            ghost: self.show_ghost,
            delays: self.show_delays,
        }
    }

    /// Top-down view of every pawn as one machine shows it (and the server's next to it).
    pub fn ui(&mut self, ui: &mut egui::Ui, store: &Store, cursor: f64) -> Vec<Action> {
        let viewers = store.viewers();
        self.toolbar(ui, store, &viewers);
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
        let scale = self.place_camera(ui, &response, view_rect, &pawns);
        let mut picked = None;
        let mut hovered_text = None;
        for (machine, r) in &rects {
            let proj = Projection {
                rect: *r,
                center: self.center,
                scale,
            };
            let scene = Scene {
                store,
                cursor,
                viewer: *machine,
                proj,
                dark,
                titled: server_too,
                shown: self.overlays(),
            };
            let (pick, hover) = scene.draw(ui, &response);
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

    /// The view's toolbar: whose view, vs server, the camera, what is shown, how to read it.
    fn toolbar(&mut self, ui: &mut egui::Ui, store: &Store, viewers: &[Machine]) {
        ui.horizontal_wrapped(|ui| {
        let seen = egui::ComboBox::from_label("seen from")
            .selected_text(store.machine_name(self.viewer))
            .width(80.0)
            .show_ui(ui, |ui| {
                for m in viewers {
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
    }

    /// Places the camera (following the own pawn, fitting every pawn, or where the user
    /// dragged and zoomed it); returns the scale (points per cm).
    fn place_camera(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        view_rect: egui::Rect,
        pawns: &[crate::session::store::PawnView],
    ) -> f32 {
        let above_footer = (view_rect.height() - FOOTER_H).max(1.0);
        let short = view_rect.width().min(above_footer).max(1.0);
        match self.camera {
            Camera::Follow => {
                let own = pawns
                    .iter()
                    .find(|v| v.kind == crate::model::telemetry::SampleKind::Predicted)
                    .map(|v| v.location.truncate());
                self.center = own.unwrap_or_else(|| centroid(pawns));
            }
            Camera::FitAll => {
                if let Some((lo, hi)) = bounds(pawns) {
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
        scale
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
