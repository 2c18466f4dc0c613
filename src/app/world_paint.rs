//! Painting one machine's view of the world at the cursor: the grid, each pawn with its
//! label and hover text, the server's ghost, the corrections, the caption and the footer.
//! The world view (`world_view.rs`) places the camera and hands each view rectangle here.

use eframe::egui;
use egui::Color32;

use super::color_of;
use super::world_labels::{
    CORRECTION_FADE_S, CORRECTIONS_DRAWN, Taken, correction_colors, footer_line, taken,
};
use crate::model::telemetry::{DetectedBy, Machine, SampleKind};
use crate::session::store::{CorrectionMark, Metric, PawnView, Store};

/// World (cm) to screen for one view rectangle.
#[derive(Clone, Copy)]
pub(super) struct Projection {
    pub rect: egui::Rect,
    pub center: glam::DVec2,
    /// Points per cm.
    pub scale: f32,
}

/// Points at the view's foot kept for its footer line (grid, hints): the camera centres the
/// pawns in the part above it, so a fitted or followed pawn is never drawn under it.
pub(super) const FOOTER_H: f32 = 22.0;

impl Projection {
    /// Where the camera's centre is drawn: the middle of the view above its footer line.
    fn mid(self) -> egui::Pos2 {
        egui::pos2(self.rect.center().x, self.rect.center().y - FOOTER_H / 2.0)
    }

    pub(super) fn to_screen(self, p: glam::DVec3) -> egui::Pos2 {
        let mid = self.mid();
        egui::pos2(
            mid.x + ((p.x - self.center.x) as f32) * self.scale,
            mid.y - ((p.y - self.center.y) as f32) * self.scale,
        )
    }
}

/// What the user chose to show over the pawns (the view's "show…" menu).
#[derive(Clone, Copy)]
pub(super) struct Overlays {
    pub trails: bool,
    pub velocity: bool,
    pub labels: bool,
    pub ghost: bool,
    pub delays: bool,
}

/// The view's colours in one theme.
#[derive(Clone, Copy)]
struct Ink {
    bg: Color32,
    grid: Color32,
    text: Color32,
    weak: Color32,
}

impl Ink {
    fn of(dark: bool) -> Ink {
        if dark {
            Ink {
                bg: Color32::from_gray(18),
                grid: Color32::from_gray(40),
                text: Color32::from_gray(215),
                weak: Color32::from_gray(130),
            }
        } else {
            Ink {
                bg: Color32::from_gray(238),
                grid: Color32::from_gray(210),
                text: Color32::from_gray(30),
                weak: Color32::from_gray(100),
            }
        }
    }
}

/// One machine's view being painted.
pub(super) struct Scene<'a> {
    pub store: &'a Store,
    pub cursor: f64,
    pub viewer: Machine,
    pub proj: Projection,
    pub dark: bool,
    /// Drawn beside the server's view (captions and "cm from server" labels).
    pub titled: bool,
    pub shown: Overlays,
}

/// How far in the past this machine shows its proxies: its mean display delay at the cursor
/// and, when its round trip is known, the link's part (half of it; the rest is the buffer).
#[derive(Clone, Copy)]
struct Delay {
    total: Option<f64>,
    one_way: Option<f64>,
}

/// A pawn under the pointer: its distance from it and its description.
type Hovered = Option<(f32, String)>;

impl Scene<'_> {
    /// Draws the view into its rectangle; returns the client whose pawn was clicked and the
    /// description of the pawn under the pointer.
    pub fn draw(&self, ui: &egui::Ui, response: &egui::Response) -> (Option<u16>, Option<String>) {
        let rect = self.proj.rect;
        let painter = ui.painter_at(rect);
        let ink = Ink::of(self.dark);
        painter.rect_filled(rect, 4.0, ink.bg);
        let step = self.grid(&painter, ink);
        let pawns: Vec<PawnView> = self.store.pawns_at(self.viewer, self.cursor);
        let picked = self.picked(response, &pawns);
        let marks = self
            .store
            .corrections_between(self.cursor - CORRECTION_FADE_S, self.cursor);
        // The newest few only: a burst of corrections would bury the pawns under marks.
        let marks = &marks[marks.len().saturating_sub(CORRECTIONS_DRAWN)..];
        let spots: Vec<egui::Pos2> = pawns.iter().map(|v| self.at(v.location)).collect();
        let mut taken = self.taken_places(&pawns, &spots, marks);
        let pointer = response.hover_pos().filter(|p| rect.contains(*p));
        let mut hovered: Hovered = None;
        let delay = self.delay();
        for v in &pawns {
            let texts = self.pawn(&painter, ink, v, &pawns, delay);
            self.hover(&mut hovered, pointer, v, &texts);
            self.label(&painter, ink, (&mut taken, &spots), v, texts);
        }
        self.ghost(&painter, ink, &pawns);
        self.corrections(&painter, marks, &mut taken);
        self.caption_and_footer(&painter, ink, step, &pawns);
        (picked, hovered.map(|(_, t)| t))
    }

    fn at(&self, p: glam::DVec3) -> egui::Pos2 {
        self.proj.to_screen(p)
    }

    /// A 5 m grid (10 m, 20 m… when zoomed out) reaching both edges; returns its step (cm).
    fn grid(&self, painter: &egui::Painter, ink: Ink) -> f64 {
        let (proj, rect) = (self.proj, self.proj.rect);
        let mut step = 500.0;
        while f64::from(proj.scale) * step < 24.0 {
            step *= 2.0;
        }
        let half_w = f64::from(rect.width() / 2.0 / proj.scale);
        // (The centre sits above the footer: the grid reaches both edges.)
        let half_h = f64::from((rect.height() / 2.0 + FOOTER_H) / proj.scale);
        let stroke = egui::Stroke::new(1.0, ink.grid);
        let (x0, x1) = (proj.center.x - half_w, proj.center.x + half_w);
        let (y0, y1) = (proj.center.y - half_h, proj.center.y + half_h);
        let point = |x: f64, y: f64| self.at(glam::DVec3::new(x, y, 0.0));
        let mut x = (x0 / step).floor() * step;
        while x <= x1 {
            painter.line_segment([point(x, y0), point(x, y1)], stroke);
            x += step;
        }
        let mut y = (y0 / step).floor() * step;
        while y <= y1 {
            painter.line_segment([point(x0, y), point(x1, y)], stroke);
            y += step;
        }
        step
    }

    /// A click on a player's pawn: that client (its move's journey at the cursor opens).
    fn picked(&self, response: &egui::Response, pawns: &[PawnView]) -> Option<u16> {
        let at = response
            .interact_pointer_pos()
            .filter(|at| response.clicked() && self.proj.rect.contains(*at))?;
        pawns
            .iter()
            .filter_map(|v| Some((v.owner?, self.at(v.location).distance(at))))
            .filter(|(_, d)| *d < 14.0)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(c, _)| c)
    }

    fn delay(&self) -> Delay {
        let last = |metric, window: f64| {
            self.store
                .series(self.viewer, metric)
                .and_then(|sr| sr.range(self.cursor - window, self.cursor).last())
                .map(|p| p[1])
        };
        Delay {
            total: last(Metric::InterpDelay, 1.0),
            one_way: last(Metric::Rtt, 2.0).map(|rtt| rtt / 2.0),
        }
    }

    /// The server's pawn of this client's own, where the ghost is drawn.
    fn ghost_at(&self, pawns: &[PawnView]) -> Option<egui::Pos2> {
        if !self.shown.ghost || !matches!(self.viewer, Machine::Client(_)) {
            return None;
        }
        let own = pawns.iter().find(|v| v.kind == SampleKind::Predicted)?;
        let g = self.store.authoritative_at(own.pawn, self.cursor)?;
        Some(self.at(g.location))
    }

    /// A correction this view draws: a client sees its own; the server every one.
    fn sees(&self, m: &CorrectionMark) -> bool {
        m.machine == self.viewer || self.viewer == Machine::Server
    }

    /// Places labels only where they overlap no other, no pawn, no mark, the caption and the
    /// footer line (hover for the rest).
    fn taken_places(
        &self,
        pawns: &[PawnView],
        spots: &[egui::Pos2],
        marks: &[CorrectionMark],
    ) -> Taken {
        let mark_spots: Vec<_> = marks
            .iter()
            .filter(|m| self.sees(m))
            .map(|m| (self.at(m.predicted), self.at(m.authoritative)))
            .collect();
        let trails: Vec<Vec<egui::Pos2>> = pawns
            .iter()
            .filter(|_| self.shown.trails)
            .map(|v| v.trail.iter().map(|(_, p)| self.at(*p)).collect())
            .collect();
        taken(
            (self.proj.rect, self.titled),
            spots,
            self.ghost_at(pawns),
            &mark_spots,
            &trails,
        )
    }

    /// Draws a pawn (trail, body, nose, velocity); returns its name, label and hover text.
    fn pawn(
        &self,
        painter: &egui::Painter,
        ink: Ink,
        v: &PawnView,
        pawns: &[PawnView],
        delay: Delay,
    ) -> PawnTexts {
        let color = v.owner.map_or(ink.weak, |o| color_of(Machine::Client(o)));
        let at = self.at(v.location);
        if self.shown.trails && v.trail.len() > 1 {
            let pts: Vec<egui::Pos2> = v.trail.iter().map(|(_, p)| self.at(*p)).collect();
            painter.add(egui::Shape::line(
                pts,
                egui::Stroke::new(1.0, color.gamma_multiply(0.45)),
            ));
        }
        match v.kind {
            SampleKind::Predicted => painter.circle_filled(at, 7.0, color),
            SampleKind::Displayed => painter.circle_stroke(at, 7.0, egui::Stroke::new(2.0, color)),
            SampleKind::Authoritative => painter.circle_filled(at, 6.0, color),
        };
        let yaw = v.yaw.to_radians();
        let nose = at + egui::vec2(yaw.cos() as f32, -(yaw.sin() as f32)) * 11.0;
        painter.line_segment([at, nose], egui::Stroke::new(2.0, color));
        if self.shown.velocity {
            let tip = self.at(v.location + v.velocity * 0.25);
            painter.line_segment([at, tip], egui::Stroke::new(1.0, ink.weak));
        }
        self.texts(v, pawns, delay)
    }

    /// A pawn's name, label and hover text.
    fn texts(&self, v: &PawnView, pawns: &[PawnView], delay: Delay) -> PawnTexts {
        let who = who(self.store, v, pawns);
        let ago = match (v.kind, delay.total) {
            (SampleKind::Displayed, Some(d)) if self.shown.delays => delay_words(d, delay.one_way),
            _ => String::new(),
        };
        let off_server = self.off_server(v);
        let label = match off_server {
            Some(d) if self.titled => format!("{who}: {d:.0} cm"),
            _ => format!("{who}{ago}"),
        };
        let hover = hover_words(v, &who, &ago, off_server);
        PawnTexts { who, label, hover }
    }

    /// Side by side with the server's view: how far this machine shows the pawn from where
    /// the server has it at the same moment.
    fn off_server(&self, v: &PawnView) -> Option<f64> {
        match (self.viewer, v.kind) {
            (Machine::Client(_), SampleKind::Authoritative) | (Machine::Server, _) => None,
            _ => self
                .store
                .authoritative_at(v.pawn, self.cursor)
                .map(|a| (a.location - v.location).truncate().length()),
        }
    }

    /// Keeps the description of the pawn nearest the pointer (within 14 points).
    fn hover(
        &self,
        hovered: &mut Hovered,
        pointer: Option<egui::Pos2>,
        v: &PawnView,
        texts: &PawnTexts,
    ) {
        let Some(p) = pointer else { return };
        let d = p.distance(self.at(v.location));
        if d < 14.0 && hovered.as_ref().is_none_or(|(bd, _)| d < *bd) {
            *hovered = Some((d, texts.hover.clone()));
        }
    }

    /// The whole label where it fits, else the name alone (a crowded view still names every
    /// pawn it can). A pawn outside the view (or under its footer line) gets no label: a label
    /// at the edge would name a pawn the reader cannot see.
    fn label(
        &self,
        painter: &egui::Painter,
        ink: Ink,
        (taken, spots): (&mut Taken, &[egui::Pos2]),
        v: &PawnView,
        texts: PawnTexts,
    ) {
        let rect = self.proj.rect;
        let at = self.at(v.location);
        let in_view = rect
            .with_max_y(rect.max.y - FOOTER_H)
            .shrink(2.0)
            .contains(at);
        if !self.shown.labels || !in_view {
            return;
        }
        let PawnTexts { who, label, .. } = texts;
        let texts = if label == who {
            vec![label]
        } else {
            vec![label, who]
        };
        super::world_labels::place_near(
            painter,
            (&mut taken.placed, &taken.trails, spots),
            (rect, at),
            texts,
            &egui::FontId::proportional(11.0),
            ink.text,
        );
    }

    /// The server's pawn of this client's own: a dashed ring (not a pawn this client shows).
    fn ghost(&self, painter: &egui::Painter, ink: Ink, pawns: &[PawnView]) {
        let Some(c) = self.ghost_at(pawns) else {
            return;
        };
        for k in 0..12 {
            let a0 = k as f32 / 12.0 * std::f32::consts::TAU;
            let a1 = a0 + std::f32::consts::TAU / 24.0;
            painter.line_segment(
                [
                    c + egui::vec2(a0.cos(), a0.sin()) * 10.0,
                    c + egui::vec2(a1.cos(), a1.sin()) * 10.0,
                ],
                egui::Stroke::new(1.5, ink.text),
            );
        }
    }

    /// The corrections this view sees, fading; only the newest is labelled.
    fn corrections(&self, painter: &egui::Painter, marks: &[CorrectionMark], taken: &mut Taken) {
        let newest = marks.iter().rposition(|m| self.sees(m));
        for (i, m) in marks.iter().enumerate() {
            // A client sees its own corrections; the server view mirrors every correction the
            // server found: the location a client claimed against the server's result.
            let mirror = self.viewer == Machine::Server && m.detected_by == DetectedBy::Server;
            if m.machine != self.viewer && !mirror {
                continue;
            }
            self.correction_mark(painter, m, mirror, Some(i) == newest);
            if self.shown.labels && Some(i) == newest {
                self.correction_label(painter, m, mirror, taken);
            }
        }
    }

    /// A correction's marks: where the client had its pawn (a square, hollow for a claim seen
    /// from the server), an arrow to where the server put it and a dot there.
    fn correction_mark(
        &self,
        painter: &egui::Painter,
        m: &CorrectionMark,
        mirror: bool,
        newest: bool,
    ) {
        let (had_c, put_c) = correction_colors(self.dark);
        let fade = (1.0 - (self.cursor - m.t) / CORRECTION_FADE_S).clamp(0.15, 1.0) as f32;
        let (p, a) = (self.at(m.predicted), self.at(m.authoritative));
        let had = had_c.gamma_multiply(fade);
        let put = put_c.gamma_multiply(fade);
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
        if len <= 10.0 && newest {
            // Shorter than its own marks (a few cm at this zoom): a ring around the newest
            // says a correction is here; its label and zooming in say how large.
            painter.circle_stroke(p + dir / 2.0, 11.0, egui::Stroke::new(1.5, put));
        }
    }

    /// The newest correction's size, beside its own marks where nothing else is. Text stays
    /// readable while its arrow fades: unfaded, and darker on the light theme than the arrow.
    fn correction_label(
        &self,
        painter: &egui::Painter,
        m: &CorrectionMark,
        mirror: bool,
        taken: &mut Taken,
    ) {
        let size_cm = (m.authoritative - m.predicted).truncate().length();
        let text = if mirror {
            format!("{} claimed: {size_cm:.0} cm off", m.machine)
        } else {
            format!("corrected {size_cm:.0} cm")
        };
        let ink = super::world_labels::correction_label_color(self.dark);
        let galley = painter.layout_no_wrap(text, egui::FontId::proportional(11.0), ink);
        let a = self.at(m.authoritative);
        let r = egui::Rect::from_min_size(a + egui::vec2(6.0, 6.0), galley.size());
        // (Beside its own marks, whose places were taken for the pawns' labels.)
        let free = !taken
            .placed
            .iter()
            .enumerate()
            .any(|(j, p)| !taken.marks.contains(&j) && p.intersects(r));
        if self.proj.rect.contains_rect(r) && free {
            taken.placed.push(r);
            painter.galley(r.min, galley, ink);
        }
    }

    /// The caption (whose view, beside the server's) and the footer line (grid, hint, what
    /// a game log lacks).
    fn caption_and_footer(&self, painter: &egui::Painter, ink: Ink, step: f64, pawns: &[PawnView]) {
        let rect = self.proj.rect;
        let viewer = self.viewer;
        let caption = if self.titled && viewer != Machine::Server {
            format!("{viewer} (cm from server)")
        } else if self.titled {
            format!("{viewer}")
        } else {
            String::new()
        };
        painter.text(
            rect.left_top() + egui::vec2(6.0, 4.0),
            egui::Align2::LEFT_TOP,
            caption,
            egui::FontId::proportional(13.0),
            ink.text,
        );
        let footer = if self.titled {
            format!("grid: {} m", step / 100.0)
        } else {
            format!(
                "grid: {} m   click a player's pawn: its move's journey",
                step / 100.0
            )
        };
        let footer = match super::world_labels::log_gaps(self.store, viewer, pawns) {
            Some(gap) => format!("{gap}   {footer}"),
            None => footer,
        };
        let font = egui::FontId::proportional(11.0);
        footer_line(painter, rect, footer, (font, ink.weak), ink.bg);
    }
}

/// A pawn's texts: its name, its label on the view, its hover text.
struct PawnTexts {
    who: String,
    label: String,
    hover: String,
}

/// A pawn's name: its client's, with the pawn id when the client has two pawns of one kind in
/// view (its pawn respawned: the old one still shown), or "AI n".
fn who(store: &Store, v: &PawnView, pawns: &[PawnView]) -> String {
    match v.owner {
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
    }
}

/// What a pawn is, how far in the past it is shown and why, how far from the server's, where
/// and how fast.
fn hover_words(v: &PawnView, who: &str, ago: &str, off_server: Option<f64>) -> String {
    let what = match v.kind {
        SampleKind::Predicted => "own pawn, predicted",
        SampleKind::Displayed => "simulated proxy",
        SampleKind::Authoritative => "server pawn",
    };
    let off_text = off_server.map_or(String::new(), |d| {
        let why = match v.kind {
            SampleKind::Predicted => {
                " (ahead of it: the client predicts moves the server has not executed yet)"
            }
            _ => " (behind it: shown in the past)",
        };
        format!("\n{d:.0} cm from where the server has it at this moment{why}")
    });
    let past = if ago.is_empty() {
        ""
    } else {
        "\nShown in the past: the server's state of this pawn took the link's delay to arrive, then waited in the smoothing buffer so it plays smoothly (GMC's default SmoothingMode, AdaptiveBufferedInterpolation, starts that buffer at 130 ms and adapts it, even at no latency: the Interpolation delay plot)."
    };
    format!(
        "{who}: {what}{ago}{past}{off_text}\n({:.0}, {:.0}) cm, {:.0} cm/s",
        v.location.x,
        v.location.y,
        v.velocity.truncate().length()
    )
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
