//! The part of the session the plots show (the window around the cursor) and the wider range
//! series are decimated over and cached for, so panning or playing does not decimate again.

use egui_plot::PlotPoint;

use crate::session::timeline::TimeControl;

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

/// Points ready for egui_plot and what they were made from (`None`: every point, the
/// benchmark's reference, made again each frame).
pub(super) type Cached = (Option<CacheKey>, Vec<PlotPoint>);

/// What a cached decimation was made from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct CacheKey {
    pub(super) len: usize,
    pub(super) first: Option<f64>,
    pub(super) last: Option<f64>,
    pub(super) d0: f64,
    pub(super) d1: f64,
    pub(super) columns: usize,
    /// How far a discrete series is drawn from its values (see `dodge_of`).
    pub(super) dodge: f64,
    /// The series' out-of-order inserts (unchanged: it only grew at its end).
    pub(super) inserts: u64,
}

impl CacheKey {
    /// Whether `self` (what the cache was made from) is `new` minus points appended at the
    /// end: the same range, columns and start, nothing inserted, more points.
    pub(super) fn extends_to(&self, new: &CacheKey) -> bool {
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
