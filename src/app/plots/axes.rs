//! The value axis of a plot: the range shown, its tick marks and their labels.

use egui_plot::{GridInput, GridMark, PlotPoint};

use super::series::PlotSpec;
use crate::model::telemetry::Machine;

/// The value range shown: the data in the window with headroom above it; from zero for a
/// quantity whose size matters; at least 0..1 (0..2 for counts) when there is no data.
pub fn y_bounds(
    spec: &PlotSpec,
    lines: &[(Machine, bool, &[PlotPoint])],
    t0: f64,
    t1: f64,
) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for (_, _, pts) in lines {
        let a = pts.partition_point(|p| p.x < t0);
        let b = pts.partition_point(|p| p.x <= t1);
        for p in &pts[a..b.max(a)] {
            if p.y.is_finite() {
                lo = lo.min(p.y);
                hi = hi.max(p.y);
            }
        }
    }
    if spec.discrete() {
        // Dodged values sit up to ±0.2 from their whole number.
        lo = lo.round();
        hi = hi.round();
    }
    if lo > hi || lo.is_nan() || hi.is_nan() {
        return if spec.discrete() {
            (-0.4, 2.4)
        } else {
            (0.0, 1.0)
        };
    }
    // A series lying on zero (no wait with prediction, no extrapolation) is drawn a little
    // above the frame's edge, not on it.
    let on_zero = lo >= 0.0 && lo <= 0.01 * hi.abs();
    if spec.zero {
        lo = lo.min(0.0);
    }
    if spec.discrete() {
        hi = hi.max(lo + 2.0);
        return (lo - 0.4, hi + 0.4);
    }
    let mut span = hi - lo;
    if span <= f64::EPSILON * hi.abs().max(1.0) {
        span = hi.abs().max(1.0);
        if !spec.zero || lo < 0.0 {
            lo -= span * 0.5;
        }
    }
    let pad = span * 0.12;
    let lo = match (spec.zero && lo >= 0.0, on_zero) {
        (true, true) => -span * 0.03,
        (true, false) => lo,
        (false, _) => lo - pad,
    };
    (lo, lo.max(hi) + pad.max(span * 0.12))
}

/// Tick marks for the value axis: a 1-2-5 step that leaves at least 24 points between
/// labels (whole numbers for counts), so every plot has numbered ticks at any size.
pub fn y_marks(input: GridInput, discrete: bool) -> Vec<GridMark> {
    let (lo, hi) = input.bounds;
    if !(hi > lo && lo.is_finite() && hi.is_finite()) {
        return Vec::new();
    }
    // egui_plot's base step is the value of its minimum grid spacing (8 points).
    let per_point = input.base_step_size / 8.0;
    let mut min_step = per_point * 24.0;
    if discrete {
        min_step = min_step.max(1.0);
    }
    marks_every(lo, hi, nice_step(min_step))
}

/// Marks at every multiple of `step` in `[lo, hi]` (at most 64).
fn marks_every(lo: f64, hi: f64, step: f64) -> Vec<GridMark> {
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last)
        .take(64)
        .map(|k| GridMark {
            value: k as f64 * step,
            step_size: step,
        })
        .collect()
}

/// Points between labelled time marks (a "12.5 s" label fits with room to spare).
pub const X_MARK_SPACING: f64 = 56.0;

/// Time marks: 1, 2 or 5 × 10ⁿ seconds at least [`X_MARK_SPACING`] points apart, and at least
/// two in any window however narrow the plot (a smaller step then, labels still apart enough
/// to read: the axis labels are shown from 24 points apart).
pub fn x_marks(input: GridInput) -> Vec<GridMark> {
    let (lo, hi) = input.bounds;
    if !(hi > lo && lo.is_finite() && hi.is_finite()) {
        return Vec::new();
    }
    let per_point = input.base_step_size / 8.0;
    let mut step = nice_step(per_point * X_MARK_SPACING);
    let count = |step: f64| ((hi / step).floor() - (lo / step).ceil()) as i64 + 1;
    while count(step) < 2 && step > 1e-3 {
        step = nice_step(step * 0.4);
    }
    marks_every(lo, hi, step)
}

/// The smallest 1, 2 or 5 × 10ⁿ at least `min`.
fn nice_step(min: f64) -> f64 {
    if !(min > 0.0 && min.is_finite()) {
        return 1.0;
    }
    let p = 10f64.powf(min.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= min * (1.0 - 1e-9))
        .unwrap_or(10.0 * p)
}

/// A tick label: as many decimals as the step needs; thousands as `k`.
pub fn y_label(value: f64, step: f64) -> String {
    let v = if value.abs() < step * 1e-6 {
        0.0
    } else {
        value
    };
    if v == 0.0 {
        "0".to_string()
    } else if step >= 1000.0 {
        format!("{}k", v / 1000.0)
    } else if step >= 1.0 {
        format!("{v:.0}")
    } else {
        let decimals = (-step.log10()).ceil().clamp(1.0, 6.0) as usize;
        format!("{v:.decimals$}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::series::PLOTS;
    use super::*;
    use crate::session::store::Metric;

    fn spec(metric: Metric) -> &'static PlotSpec {
        PLOTS.iter().find(|p| p.metric == metric).unwrap()
    }

    #[test]
    fn a_narrow_time_axis_keeps_at_least_two_marks() {
        // 16 s in 150 points (a plot squeezed by the lessons panel), and 20 s in 700.
        for (span, points) in [(16.0, 150.0), (20.0, 700.0), (0.5, 80.0), (600.0, 120.0)] {
            let input = GridInput {
                bounds: (3.2, 3.2 + span),
                base_step_size: span / points * 8.0,
            };
            let marks = x_marks(input);
            assert!(
                marks.len() >= 2,
                "{span} s in {points} points: {}",
                marks.len()
            );
            let apart = marks[0].step_size / span * points;
            assert!(
                apart >= 24.0 || marks.len() == 2,
                "{span} s in {points}: {apart}"
            );
        }
    }

    #[test]
    fn values_have_headroom_and_start_where_the_quantity_does() {
        let pts = [PlotPoint::new(1.0, 10.0), PlotPoint::new(2.0, 40.0)];
        let lines = [(Machine::Client(0), false, &pts[..])];
        // From zero, with room above the largest value.
        let (lo, hi) = y_bounds(spec(Metric::MoveDelta), &lines, 0.0, 5.0);
        assert_eq!(lo, 0.0);
        assert!(hi > 40.0 * 1.1, "{hi}");
        // A series on zero is drawn just above the frame's edge (no tick below zero).
        let flat = [PlotPoint::new(1.0, 0.0), PlotPoint::new(2.0, 350.0)];
        let (lo, _) = y_bounds(
            spec(Metric::OwnInputDelay),
            &[(Machine::Client(0), false, &flat[..])],
            0.0,
            5.0,
        );
        assert!(lo < 0.0 && lo > -0.05 * 350.0, "{lo}");
        // Only the window's points count.
        let (_, hi) = y_bounds(spec(Metric::MoveDelta), &lines, 0.0, 1.5);
        assert!(hi < 40.0, "{hi}");
        // Counts: replay depth never runs below zero; empty plots show 0..2.
        let (lo, hi) = y_bounds(spec(Metric::ReplayDepth), &[], 0.0, 5.0);
        assert!(lo > -0.5 && lo < 0.0 && hi >= 2.0, "{lo}..{hi}");
        // A signed quantity keeps its sign, with room on both sides.
        let off = [PlotPoint::new(1.0, -4.0), PlotPoint::new(2.0, 3.0)];
        let (lo, hi) = y_bounds(
            spec(Metric::ClockOffset),
            &[(Machine::Client(0), false, &off[..])],
            0.0,
            5.0,
        );
        assert!(lo < -4.0 && hi > 3.0, "{lo}..{hi}");
    }

    #[test]
    fn every_plot_size_gets_numbered_ticks() {
        // 80 points high over 0..45: at least three labelled ticks, 24 points apart or more.
        for (height, lo, hi, discrete) in [
            (80.0, 0.0, 45.0, false),
            (80.0, -0.4, 4.4, true),
            (200.0, 0.0, 16_000.0, false),
            (60.0, -5.5, 4.2, false),
        ] {
            let per_point = (hi - lo) / height;
            let marks = y_marks(
                GridInput {
                    bounds: (lo, hi),
                    base_step_size: per_point * 8.0,
                },
                discrete,
            );
            assert!(marks.len() >= 2, "{height} {lo}..{hi}: {marks:?}");
            let step = marks[1].value - marks[0].value;
            assert!(step / per_point >= 23.9, "{step} for {height}");
            if discrete {
                assert!(marks.iter().all(|m| m.value.fract() == 0.0));
            }
        }
        assert_eq!(y_label(0.0, 5.0), "0");
        assert_eq!(y_label(15_000.0, 5000.0), "15k");
        assert_eq!(y_label(0.25, 0.05), "0.25");
        assert_eq!(y_label(20.0, 10.0), "20");
    }
}
