//! Labels in the world view that never pile up: each goes to the first free place around its
//! pawn, inside the view, touching no label or pawn already placed, keeping off the server's
//! ring, the correction marks and (where it can) the trails. With them, the view's footer line
//! and the correction marks' colours and counts.

use eframe::egui;
use egui::{Color32, FontId, Pos2, Rect};

/// Puts the first of `texts` that fits beside the point `at` — right, then left, above or
/// below it, then a row further out — inside `area`, clear of every rect in `placed` (which
/// gets its rect), and clear of `avoid` too (the trails) where a place allows. Returns
/// whether one was put (none: every place was taken). Never where the label lies nearer
/// another of the pawns at `spots` than its own (a crowd, or the views side by side): a
/// label is read as naming the pawn nearest it.
pub(super) fn place_near(
    painter: &egui::Painter,
    (placed, avoid, spots): (&mut Vec<Rect>, &[Rect], &[Pos2]),
    (area, at): (Rect, Pos2),
    texts: Vec<String>,
    font: &FontId,
    color: Color32,
) -> bool {
    for text in texts {
        let galley = painter.layout_no_wrap(text, font.clone(), color);
        let size = galley.size();
        let (w, h) = (size.x, size.y);
        let candidates = [
            (14.0, -h - 3.0),
            (-14.0 - w, -h - 3.0),
            (14.0, 3.0),
            (-14.0 - w, 3.0),
            (-w / 2.0, -h - 14.0),
            (-w / 2.0, 14.0),
            (14.0, -2.0 * h - 5.0),
            (-14.0 - w, -2.0 * h - 5.0),
            (14.0, h + 5.0),
            (-14.0 - w, h + 5.0),
        ]
        .map(|(dx, dy)| Rect::from_min_size(at + egui::vec2(dx, dy), size));
        let free = |r: &Rect, of: &[Rect]| !of.iter().any(|p| p.intersects(r.expand(1.0)));
        let own = |r: &Rect| {
            let mine = r.distance_to_pos(at);
            spots
                .iter()
                .filter(|p| p.distance(at) > 1.0)
                .all(|p| r.distance_to_pos(*p) >= mine)
        };
        let fits = |r: &&Rect| area.contains_rect(**r) && free(r, placed) && own(r);
        let clear = candidates.iter().filter(fits).find(|r| free(r, avoid));
        if let Some(&r) = clear.or_else(|| candidates.iter().find(fits)) {
            placed.push(r);
            painter.galley(r.min, galley, color);
            return true;
        }
    }
    false
}

/// Colours of a correction (Okabe–Ito-like yellow and cyan: told apart with any colour vision,
/// and not used for clients): where the client had the pawn, and where the server put it.
pub(super) fn correction_colors(dark: bool) -> (Color32, Color32) {
    if dark {
        (
            Color32::from_rgb(240, 228, 66),
            Color32::from_rgb(70, 215, 235),
        )
    } else {
        (
            Color32::from_rgb(165, 140, 0),
            Color32::from_rgb(0, 130, 165),
        )
    }
}

/// The colour of a correction's label: the server's cyan, darkened on the light theme so the
/// text reads at small size (the arrow keeps the lighter cyan).
pub(super) fn correction_label_color(dark: bool) -> Color32 {
    if dark {
        correction_colors(true).1
    } else {
        Color32::from_rgb(0, 95, 125)
    }
}

/// Corrections drawn at once (the newest).
pub(super) const CORRECTIONS_DRAWN: usize = 6;

/// Seconds a correction's arrow stays, fading.
pub(super) const CORRECTION_FADE_S: f64 = 2.0;

/// The places pawn labels must keep off, and those they should where they can.
pub(super) struct Taken {
    pub placed: Vec<Rect>,
    /// The correction marks' places in `placed` (the newest mark's own label may sit there).
    pub marks: std::ops::Range<usize>,
    /// The trails' segments, a box each.
    pub trails: Vec<Rect>,
}

/// What the world view draws besides the labels, by screen place: the pawns (at `pawns`), the
/// caption's strip (when `titled`) and the footer's strip of `area`, the server's ring around
/// `ghost`, the correction marks (from where the client had the pawn to where the server put
/// it), and the trails. The ring and the marks are drawn after the pawns: their places are
/// taken first, so no pawn label crosses them.
pub(super) fn taken(
    (area, titled): (Rect, bool),
    pawns: &[Pos2],
    ghost: Option<Pos2>,
    marks: &[(Pos2, Pos2)],
    trails: &[Vec<Pos2>],
) -> Taken {
    let mut placed: Vec<Rect> = pawns
        .iter()
        .map(|at| Rect::from_center_size(*at, egui::vec2(22.0, 22.0)))
        .collect();
    if titled {
        placed.push(Rect::from_min_size(
            area.left_top(),
            egui::vec2(area.width(), 22.0),
        ));
    }
    placed.push(Rect::from_min_max(
        egui::pos2(area.left(), area.bottom() - 22.0),
        area.right_bottom(),
    ));
    placed.extend(ghost.map(|g| Rect::from_center_size(g, egui::vec2(24.0, 24.0))));
    let first_mark = placed.len();
    placed.extend(
        marks
            .iter()
            .map(|(p, a)| Rect::from_two_pos(*p, *a).expand(11.0)),
    );
    let marks = first_mark..placed.len();
    let trails = trails
        .iter()
        .flat_map(|t| {
            t.windows(2)
                .map(|w| Rect::from_two_pos(w[0], w[1]).expand(2.0))
        })
        .collect();
    Taken {
        placed,
        marks,
        trails,
    }
}

/// The footer line at the bottom left of `area`, on a backdrop of the view's colour `bg`: a
/// pawn or trail under it does not make it unreadable.
pub(super) fn footer_line(
    painter: &egui::Painter,
    area: Rect,
    text: String,
    (font, color): (FontId, Color32),
    bg: Color32,
) {
    let galley = painter.layout_no_wrap(text, font, color);
    let at = area.left_bottom() + egui::vec2(6.0, -6.0 - galley.size().y);
    painter.rect_filled(
        Rect::from_min_size(at, galley.size()).expand(3.0),
        3.0,
        bg.gamma_multiply(0.85),
    );
    painter.galley(at, galley, color);
}

/// A game log shown: the clients whose pawns the viewed machine's log gives no position for at
/// the cursor, and the console variable that would (`None`: every client is there, or the
/// store is not a log).
pub fn log_gaps(
    store: &crate::session::store::Store,
    viewer: crate::model::telemetry::Machine,
    pawns: &[crate::session::store::PawnView],
) -> Option<String> {
    use crate::model::telemetry::Machine;
    let contents = store.log_contents()?;
    let mut clients: Vec<u16> = contents
        .client_logs
        .iter()
        .chain(&contents.server_copies)
        .copied()
        .collect();
    clients.sort_unstable();
    clients.dedup();
    let missing: Vec<u16> = clients
        .iter()
        .copied()
        .filter(|c| !pawns.iter().any(|p| p.owner == Some(*c)))
        .collect();
    if missing.is_empty() || pawns.is_empty() {
        return None;
    }
    let names: Vec<String> = missing
        .iter()
        .take(3)
        .map(|c| format!("client {c}"))
        .collect();
    let more = missing.len().saturating_sub(3);
    let how = match viewer {
        Machine::Server => "gmc.LogClientMoveTrace 1",
        Machine::Client(_) => "gmc.LogSmoothing 1",
    };
    Some(format!(
        "no position in the log for {}{} ({how})",
        names.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_painter(f: impl Fn(&egui::Painter)) {
        let ctx = egui::Context::default();
        let _ = ctx.run_ui(egui::RawInput::default(), |ui| f(ui.painter()));
    }

    fn long(i: u16) -> String {
        format!("client {i}, 130 ms ago (link + buffer)")
    }

    /// Twelve labelled pawns close together: no two labels overlap and all stay in the view.
    /// WCAG contrast ratio of two colours.
    fn contrast(a: Color32, b: Color32) -> f32 {
        let lum = |c: Color32| {
            let ch = |v: u8| {
                let v = f32::from(v) / 255.0;
                if v <= 0.039_28 {
                    v / 12.92
                } else {
                    ((v + 0.055) / 1.055).powf(2.4)
                }
            };
            0.2126 * ch(c.r()) + 0.7152 * ch(c.g()) + 0.0722 * ch(c.b())
        };
        let (x, y) = (lum(a), lum(b));
        (x.max(y) + 0.05) / (x.min(y) + 0.05)
    }

    /// The "corrected" label reads on the world view's ground in both themes (4.5:1, the
    /// contrast small text needs).
    #[test]
    fn the_correction_label_reads_in_both_themes() {
        for (dark, ground) in [
            (true, Color32::from_gray(18)),
            (false, Color32::from_gray(238)),
        ] {
            let c = contrast(correction_label_color(dark), ground);
            assert!(c >= 4.5, "dark {dark}: {c:.2}");
        }
        // The arrow's own light-theme cyan would not (what the label was drawn in before).
        assert!(contrast(correction_colors(false).1, Color32::from_gray(238)) < 4.5);
    }

    #[test]
    fn labels_never_overlap() {
        with_painter(|painter| {
            let area = Rect::from_min_size(Pos2::ZERO, egui::vec2(400.0, 300.0));
            let font = FontId::proportional(12.0);
            let mut placed = Vec::new();
            let put = (0..12u16)
                .filter(|&i| {
                    let at = Pos2::new(150.0 + 8.0 * f32::from(i), 150.0);
                    let texts = vec![long(i), format!("client {i}")];
                    place_near(
                        painter,
                        (&mut placed, &[], &[]),
                        (area, at),
                        texts,
                        &font,
                        Color32::WHITE,
                    )
                })
                .count();
            assert_eq!(put, placed.len());
            assert!(put >= 4, "{put} placed");
            for (i, a) in placed.iter().enumerate() {
                assert!(area.contains_rect(*a));
                for b in &placed[i + 1..] {
                    assert!(!a.intersects(*b), "{a:?} over {b:?}");
                }
            }
        });
    }

    /// A label goes where it crosses no trail when such a place is free, and crosses one
    /// rather than lose its text when none is.
    #[test]
    fn a_label_keeps_off_a_trail_where_it_can() {
        with_painter(|painter| {
            let area = Rect::from_min_size(Pos2::ZERO, egui::vec2(400.0, 300.0));
            let font = FontId::proportional(12.0);
            let at = Pos2::new(200.0, 150.0);
            // A trail along the right of the pawn, where the first place would be.
            let trail = [Rect::from_min_max(
                Pos2::new(205.0, 120.0),
                Pos2::new(400.0, 160.0),
            )];
            let mut placed = Vec::new();
            assert!(place_near(
                painter,
                (&mut placed, &trail, &[]),
                (area, at),
                vec![long(1)],
                &font,
                Color32::WHITE
            ));
            assert!(!placed[0].intersects(trail[0]), "{:?}", placed[0]);
            // Trails everywhere: the label is put anyway.
            let everywhere = [area];
            let mut placed = Vec::new();
            assert!(place_near(
                painter,
                (&mut placed, &everywhere, &[]),
                (area, at),
                vec![long(1)],
                &font,
                Color32::WHITE
            ));
        });
    }

    /// Where the whole label fits nowhere, the name alone is put.
    #[test]
    fn a_pawn_with_no_room_for_its_label_keeps_its_name() {
        with_painter(|painter| {
            let font = FontId::proportional(12.0);
            let size = |t: String| {
                painter
                    .layout_no_wrap(t, font.clone(), Color32::WHITE)
                    .size()
            };
            let (long_w, short_w) = (size(long(2)).x, size("client 2".into()).x);
            // Room beside the pawn for the name, not for the whole label.
            let width = 2.0 * (14.0 + short_w + 4.0);
            assert!(long_w > width, "{long_w} {width}");
            let area = Rect::from_min_size(Pos2::ZERO, egui::vec2(width, 120.0));
            let mut placed = Vec::new();
            let texts = vec![long(2), "client 2".to_string()];
            let at = Pos2::new(width / 2.0, 60.0);
            assert!(place_near(
                painter,
                (&mut placed, &[], &[]),
                (area, at),
                texts,
                &font,
                Color32::WHITE
            ));
            assert_eq!(placed.len(), 1);
            assert!((placed[0].width() - short_w).abs() < 0.5, "{:?}", placed[0]);
        });
    }

    /// In a crowd each label lies nearer its own pawn than any other, or is not drawn.
    #[test]
    fn a_label_is_nearest_its_own_pawn() {
        with_painter(|painter| {
            let area = Rect::from_min_size(Pos2::ZERO, egui::vec2(400.0, 300.0));
            let font = FontId::proportional(12.0);
            let spots: Vec<Pos2> = (0..8u16)
                .map(|i| {
                    Pos2::new(
                        150.0 + 22.0 * f32::from(i % 4),
                        130.0 + 26.0 * f32::from(i / 4),
                    )
                })
                .collect();
            let mut placed = Vec::new();
            let mut mine = Vec::new();
            for (i, at) in spots.iter().enumerate() {
                if place_near(
                    painter,
                    (&mut placed, &[], &spots),
                    (area, *at),
                    vec![format!("client {i}")],
                    &font,
                    Color32::WHITE,
                ) {
                    mine.push((*at, *placed.last().expect("placed")));
                }
            }
            assert!(mine.len() >= 4, "{} placed", mine.len());
            for (at, r) in &mine {
                let own = r.distance_to_pos(*at);
                for p in &spots {
                    assert!(
                        r.distance_to_pos(*p) >= own - 1e-3,
                        "{r:?} nearer {p:?} than {at:?}"
                    );
                }
            }
        });
    }
}
