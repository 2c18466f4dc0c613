//! A move's journey drawn as lanes: the client above, the server below, the link between
//! them, each step a mark on its machine's lane.

use eframe::egui;
use egui::Color32;

/// What a step of a journey is, for the picture: its short label.
fn short_label(what: &str) -> &'static str {
    const LABELS: [(&str, &str); 12] = [
        ("closed", "closed"),
        ("sent in a batch", "sent"),
        ("the datagram was lost", "lost"),
        ("the datagram arrived", "arrived"),
        ("executed on the server", "executed"),
        ("skipped by the server", "skipped"),
        ("the server sent a correction", "correction sent"),
        ("acknowledged", "acknowledged"),
        ("corrected", "corrected"),
        ("re-run in the replay", "replayed"),
        ("executed live", "executed live"),
        ("re-executed", "re-executed"),
    ];
    LABELS
        .iter()
        .find(|(prefix, _)| what.starts_with(prefix))
        .map_or("", |(_, l)| l)
}

/// The journey as lanes (as Godot's rollback log inspector draws peers): the client above,
/// the server below, each step a mark at its time on its machine's lane, the datagram as an
/// arrow across the link with its delay (or a cross where it was lost), the correction as an
/// arrow back. Hover a mark for the step; click one to move the cursor there.
pub(super) fn lanes(ui: &mut egui::Ui, l: &crate::analysis::lineage::Lineage) -> Option<f64> {
    let steps = &l.steps;
    let (t0, t1) = steps
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), s| {
            (a.min(s.t), b.max(s.t))
        });
    if !t0.is_finite() {
        return None;
    }
    let width = ui.available_width().max(300.0);
    let (rect, response) = ui.allocate_exact_size(egui::vec2(width, 184.0), egui::Sense::click());
    let lanes = Lanes::new(ui, rect, (t0, t1), l.client);
    lanes.frame();
    lanes.datagrams(steps);
    let hovered = lanes.marks(steps, response.hover_pos());
    lanes.ends();
    let st = hovered?;
    response.clone().on_hover_text_at_pointer(format!(
        "{:.3} s  {}: {}{}",
        st.t,
        st.machine,
        st.what,
        if st.inferred { " (inferred)" } else { "" }
    ));
    response.clicked().then_some(st.t)
}

/// The lanes' drawing: where each lane lies, the time axis, the colours.
struct Lanes {
    painter: egui::Painter,
    rect: egui::Rect,
    /// The first and last step's times.
    t0: f64,
    t1: f64,
    /// The time axis's ends (room at the ends for labels centred on the first and last marks).
    left: f32,
    right: f32,
    client_y: f32,
    server_y: f32,
    client: u16,
    text_c: Color32,
    weak_c: Color32,
    lane_c: Color32,
    arrow_c: Color32,
    lost_c: Color32,
}

impl Lanes {
    fn new(ui: &egui::Ui, rect: egui::Rect, (t0, t1): (f64, f64), client: u16) -> Lanes {
        let dark = ui.visuals().dark_mode;
        let pick = |on_dark: Color32, on_light: Color32| if dark { on_dark } else { on_light };
        Lanes {
            painter: ui.painter_at(rect),
            rect,
            t0,
            t1,
            left: rect.left() + 90.0,
            right: rect.right() - 60.0,
            client_y: rect.top() + 52.0,
            server_y: rect.top() + 126.0,
            client,
            text_c: ui.visuals().text_color(),
            weak_c: ui.visuals().weak_text_color(),
            lane_c: pick(Color32::from_gray(60), Color32::from_gray(200)),
            arrow_c: pick(
                Color32::from_rgb(150, 190, 240),
                Color32::from_rgb(30, 90, 170),
            ),
            lost_c: pick(
                Color32::from_rgb(240, 100, 100),
                Color32::from_rgb(190, 30, 30),
            ),
        }
    }

    fn span(&self) -> f64 {
        (self.t1 - self.t0).max(0.01)
    }

    fn x(&self, t: f64) -> f32 {
        self.left + ((t - self.t0) / self.span()) as f32 * (self.right - self.left)
    }

    fn text(
        &self,
        at: egui::Pos2,
        align: egui::Align2,
        text: impl ToString,
        size: f32,
        c: Color32,
    ) {
        self.painter.text(
            at,
            align,
            text.to_string(),
            egui::FontId::proportional(size),
            c,
        );
    }

    /// The two lanes with their machines' names, and the link between them.
    fn frame(&self) {
        let me = format!("client {}", self.client);
        for (y, name) in [(self.client_y, me.as_str()), (self.server_y, "server")] {
            self.painter.line_segment(
                [egui::pos2(self.left, y), egui::pos2(self.right, y)],
                egui::Stroke::new(1.0, self.lane_c),
            );
            self.text(
                egui::pos2(self.rect.left() + 4.0, y),
                egui::Align2::LEFT_CENTER,
                name,
                12.0,
                self.text_c,
            );
        }
        let mid = (self.client_y + self.server_y) / 2.0;
        self.text(
            egui::pos2(self.rect.left() + 4.0, mid),
            egui::Align2::LEFT_CENTER,
            "link",
            11.0,
            self.weak_c,
        );
    }

    /// An arrow across the link with its label at the middle.
    fn arrow(&self, from: egui::Pos2, to: egui::Pos2, c: Color32, label: String) {
        self.painter
            .line_segment([from, to], egui::Stroke::new(1.8, c));
        let dir = (to - from).normalized();
        let n = egui::vec2(-dir.y, dir.x);
        let head = to - dir * 8.0;
        self.painter.add(egui::Shape::convex_polygon(
            vec![to, head + n * 4.0, head - n * 4.0],
            c,
            egui::Stroke::NONE,
        ));
        let mid = from + (to - from) * 0.5;
        self.text(
            mid + egui::vec2(6.0, 0.0),
            egui::Align2::LEFT_CENTER,
            label,
            11.0,
            c,
        );
    }

    /// A datagram sent at `ts` and lost: a short stroke into the link, crossed out.
    fn lost(&self, ts: f64) {
        let from = egui::pos2(self.x(ts), self.client_y + 6.0);
        let mid = egui::pos2(self.x(ts) + 14.0, (self.client_y + self.server_y) / 2.0);
        self.painter
            .line_segment([from, mid], egui::Stroke::new(1.8, self.lost_c));
        for d in [egui::vec2(5.0, 5.0), egui::vec2(5.0, -5.0)] {
            self.painter
                .line_segment([mid - d, mid + d], egui::Stroke::new(2.0, self.lost_c));
        }
        self.text(
            mid + egui::vec2(8.0, 0.0),
            egui::Align2::LEFT_CENTER,
            "lost",
            11.0,
            self.lost_c,
        );
    }

    /// Datagrams: each send to the arrival (or loss) that follows it; the correction back.
    fn datagrams(&self, steps: &[crate::analysis::lineage::Step]) {
        let mut sent: Option<f64> = None;
        let mut correction: Option<(f64, &str)> = None;
        for st in steps {
            match short_label(&st.what) {
                "sent" => sent = Some(st.t),
                "arrived" => {
                    if let Some(ts) = sent.take() {
                        self.arrow(
                            egui::pos2(self.x(ts), self.client_y + 6.0),
                            egui::pos2(self.x(st.t), self.server_y - 6.0),
                            self.arrow_c,
                            format!("{:.0} ms", (st.t - ts) * 1000.0),
                        );
                    }
                }
                "lost" => {
                    if let Some(ts) = sent.take() {
                        self.lost(ts);
                    }
                }
                // The server's reply: a correction, or an acknowledgement the client checks
                // its client-validated values against (and may find a deviation in).
                "correction sent" => correction = Some((st.t, "correction")),
                "acknowledged" => correction = Some((st.t, "reply")),
                "corrected" => {
                    if let Some((tc, what)) = correction.take() {
                        self.arrow(
                            egui::pos2(self.x(tc), self.server_y - 6.0),
                            egui::pos2(self.x(st.t), self.client_y + 6.0),
                            self.lost_c,
                            format!("{what}, {:.0} ms", (st.t - tc) * 1000.0),
                        );
                    }
                }
                _ => {}
            }
        }
    }

    /// The marks; labels in up to three rows per lane, each where it overlaps no other (the
    /// rest on hover). Returns the step under the pointer.
    fn marks<'s>(
        &self,
        steps: &'s [crate::analysis::lineage::Step],
        pointer: Option<egui::Pos2>,
    ) -> Option<&'s crate::analysis::lineage::Step> {
        let mut hovered = None;
        let mut last_label: [[f32; 3]; 2] = [[f32::NEG_INFINITY; 3]; 2];
        for st in steps {
            let on_server = st.machine == "server";
            let y = if on_server {
                self.server_y
            } else {
                self.client_y
            };
            let at = egui::pos2(self.x(st.t), y);
            let label = short_label(&st.what);
            let c = match label {
                "corrected" | "correction sent" | "lost" | "skipped" => self.lost_c,
                _ if on_server => self.text_c,
                _ => super::color_of(crate::model::telemetry::Machine::Client(self.client)),
            };
            if st.inferred {
                self.painter
                    .circle_stroke(at, 5.0, egui::Stroke::new(1.5, c));
            } else {
                self.painter.circle_filled(at, 5.0, c);
            }
            let lane = &mut last_label[usize::from(on_server)];
            if let Some(row) = free_row(lane, at.x, label) {
                let dy_row = row as f32;
                let (dy, align) = if on_server {
                    (10.0 + 12.0 * dy_row, egui::Align2::CENTER_TOP)
                } else {
                    (-10.0 - 12.0 * dy_row, egui::Align2::CENTER_BOTTOM)
                };
                self.text(at + egui::vec2(0.0, dy), align, label, 11.0, c);
            }
            if pointer.is_some_and(|p| p.distance(at) < 8.0) {
                hovered = Some(st);
            }
        }
        hovered
    }

    /// The first and last step's times, and the span between them, under the axis's ends.
    fn ends(&self) {
        let bottom = self.rect.bottom() - 2.0;
        self.text(
            egui::pos2(self.left, bottom),
            egui::Align2::LEFT_BOTTOM,
            format!("{:.3} s", self.t0),
            10.0,
            self.weak_c,
        );
        self.text(
            egui::pos2(self.right, bottom),
            egui::Align2::RIGHT_BOTTOM,
            format!("{:.3} s ({:.0} ms)", self.t1, self.span() * 1000.0),
            10.0,
            self.weak_c,
        );
    }
}

/// The row (of a lane's three) a label centred at `x` fits in, taking it: a row is free when
/// the last label in it is at least a label's width away. None for an empty label or no room.
fn free_row(rows: &mut [f32; 3], x: f32, label: &str) -> Option<usize> {
    if label.is_empty() {
        return None;
    }
    let width = 7.0 * label.len() as f32 + 8.0;
    let row = rows.iter().position(|last| x - last >= width)?;
    rows[row] = x;
    Some(row)
}
