//! Labels in the world view that never pile up: each goes to the first free place around its
//! pawn, inside the view, touching no label or pawn already placed.

use eframe::egui;
use egui::{Color32, FontId, Pos2, Rect};

/// Puts the first of `texts` that fits beside the point `at` — right, then left, above or
/// below it, then a row further out — inside `area`, clear of every rect in `placed` (which
/// gets its rect), and clear of `avoid` too (the trails) where a place allows. Returns
/// whether one was put (none: every place was taken).
pub(super) fn place(
    painter: &egui::Painter,
    (placed, avoid): (&mut Vec<Rect>, &[Rect]),
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
        let fits = |r: &&Rect| area.contains_rect(**r) && free(r, placed);
        let clear = candidates.iter().filter(fits).find(|r| free(r, avoid));
        if let Some(&r) = clear.or_else(|| candidates.iter().find(fits)) {
            placed.push(r);
            painter.galley(r.min, galley, color);
            return true;
        }
    }
    false
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
                    place(
                        painter,
                        (&mut placed, &[]),
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
            assert!(place(
                painter,
                (&mut placed, &trail),
                (area, at),
                vec![long(1)],
                &font,
                Color32::WHITE
            ));
            assert!(!placed[0].intersects(trail[0]), "{:?}", placed[0]);
            // Trails everywhere: the label is put anyway.
            let everywhere = [area];
            let mut placed = Vec::new();
            assert!(place(
                painter,
                (&mut placed, &everywhere),
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
            assert!(place(
                painter,
                (&mut placed, &[]),
                (area, at),
                texts,
                &font,
                Color32::WHITE
            ));
            assert_eq!(placed.len(), 1);
            assert!((placed[0].width() - short_w).abs() < 0.5, "{:?}", placed[0]);
        });
    }
}
