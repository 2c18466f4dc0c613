//! `bench --plots`: frame times of the app's plots over a long session (unchanged view, panning,
//! zooming).

use crate::bench::percentile;
use crate::bench::standard_scenario;

/// Frame `i` of the plots benchmark: 1280×800, the pointer hovering inside the first plot
/// (moving a pixel a frame), as a user reading values would.
pub(crate) fn plots_frame_input(i: usize) -> eframe::egui::RawInput {
    eframe::egui::RawInput {
        screen_rect: Some(eframe::egui::Rect::from_min_size(
            eframe::egui::Pos2::ZERO,
            eframe::egui::vec2(1280.0, 800.0),
        )),
        events: vec![eframe::egui::Event::PointerMoved(eframe::egui::pos2(
            200.0 + i as f32,
            120.0,
        ))],
        ..Default::default()
    }
}

pub(crate) fn bench_plots(seconds: f64) -> Result<(), String> {
    use movescope::app::plots::{PlotsPanel, View};
    use movescope::session::store::Store;
    let p = standard_scenario();
    let mut records = Vec::new();
    movescope::sim::harness::Session::new(&p)?.run_until(seconds, &mut |r| records.push(r));
    let mut store = Store::new(None);
    for r in &records {
        store.ingest(r);
    }
    let view_at = |shift: f64| View {
        t0: shift,
        t1: seconds + shift,
        cursor: seconds,
        range: None,
    };
    // `shift(i)`: where the view starts in frame `i`. Moving a little each frame (panning,
    // playing a recording), the decimated range snaps to a grid and mostly stays, so unchanged
    // series are not decimated again. Jumping back and forth by 0.3 of the window (past a grid
    // step every frame), nothing can be reused, as when following live, where every series
    // grew since the frame before.
    let measure = |naive: bool, frames: usize, shift: &dyn Fn(usize) -> f64| -> (f64, f64, usize) {
        let ctx = eframe::egui::Context::default();
        let mut panel = PlotsPanel::default();
        panel.naive = naive;
        let mut times = Vec::new();
        let mut ui_times = Vec::new();
        let mut vertices = 0;
        for i in 0..frames {
            let input = plots_frame_input(i);
            let started = std::time::Instant::now();
            let view = view_at(shift(i));
            let out = ctx.run_ui(input, |ui| {
                eframe::egui::CentralPanel::default().show(ui, |ui| {
                    panel.show(ui, &store, &view);
                });
            });
            let ui_pass = started.elapsed().as_secs_f64();
            let prims = ctx.tessellate(out.shapes, out.pixels_per_point);
            times.push(started.elapsed().as_secs_f64());
            ui_times.push(ui_pass);
            vertices = prims
                .iter()
                .map(|p| match &p.primitive {
                    eframe::epaint::Primitive::Mesh(m) => m.vertices.len(),
                    _ => 0,
                })
                .sum();
        }
        // The first frames lay out fonts and settle the plots' bounds.
        let median = |v: Vec<f64>| {
            let mut steady: Vec<f64> = v.into_iter().skip(3).collect();
            steady.sort_by(f64::total_cmp);
            percentile(&steady, 0.5)
        };
        (median(times), median(ui_times), vertices)
    };
    let points: usize = movescope::session::store::Metric::ALL
        .iter()
        .flat_map(|m| store.machines_with(*m).into_iter().map(move |c| (c, *m)))
        .filter_map(|(c, m)| store.series(c, m))
        .map(|s| s.len())
        .sum();
    println!(
        "plots panel: 1280×800, the 10 default plots of 8 clients × {seconds:.0} s ({points} stored points in all series), whole history in view, pointer hovering"
    );
    // A warm-up pass first: the first mode measured after building the store otherwise pays
    // for cold caches and fresh pages (it measured about 1.4× its own second run).
    let _ = measure(false, 20, &|_| 0.0);
    let (fast, fast_ui, fv) = measure(false, 43, &|_| 0.0);
    let (panning, panning_ui, pv) = measure(false, 43, &|i| i as f64 * 0.25);
    let (moving, moving_ui, mv) = measure(false, 43, &|i| (i % 2) as f64 * 0.3 * seconds);
    let (naive, naive_ui, nv) = measure(true, 10, &|_| 0.0);
    // Following live: the store grows by a frame of records (1/60 s) before each frame and
    // the view ends at the newest data, the last half of the session in view; against the
    // same window standing still on the same store.
    let half = seconds / 2.0;
    let follow = |grow: bool| -> f64 {
        let ctx = eframe::egui::Context::default();
        let mut panel = PlotsPanel::default();
        let start = seconds - 1.0;
        let mut live = Store::new(None);
        let mut next = 0;
        let mut times = Vec::new();
        for i in 0..43usize {
            let now = if grow { start + i as f64 / 60.0 } else { start };
            while next < records.len() && records[next].t <= now {
                live.ingest(&records[next]);
                next += 1;
            }
            let view = View {
                t0: now - half,
                t1: now,
                cursor: now,
                range: None,
            };
            let input = plots_frame_input(i);
            let started = std::time::Instant::now();
            let out = ctx.run_ui(input, |ui| {
                eframe::egui::CentralPanel::default().show(ui, |ui| {
                    panel.show(ui, &live, &view);
                });
            });
            let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
            times.push(started.elapsed().as_secs_f64());
        }
        let mut steady: Vec<f64> = times.into_iter().skip(3).collect();
        steady.sort_by(f64::total_cmp);
        percentile(&steady, 0.5)
    };
    let still = follow(false);
    let following = follow(true);
    println!(
        "movescope (decimated), view unchanged: median {:.2} ms per frame, UI pass + tessellation ({:.2} ms of it the UI pass), {fv} vertices",
        fast * 1000.0,
        fast_ui * 1000.0
    );
    println!(
        "movescope (decimated), view panning 0.25 s a frame: median {:.2} ms per frame ({:.2} ms of it the UI pass), {pv} vertices",
        panning * 1000.0,
        panning_ui * 1000.0
    );
    println!(
        "movescope (decimated), nothing reusable (a new range every frame): median {:.2} ms per frame ({:.2} ms of it the UI pass), {mv} vertices",
        moving * 1000.0,
        moving_ui * 1000.0
    );
    println!(
        "naive egui_plot (every point): median {:.2} ms per frame ({:.2} ms of it the UI pass), {nv} vertices",
        naive * 1000.0,
        naive_ui * 1000.0
    );
    println!(
        "following live (last {half:.0} s in view, a frame of records appended before each frame): median {:.2} ms per frame; the same window standing still: {:.2} ms; following costs {:.2}× standing still",
        following * 1000.0,
        still * 1000.0,
        following / still
    );
    println!(
        "decimated is {:.1}× faster (view unchanged), {:.1}× (panning), {:.1}× (nothing reusable), {:.1}× (following live)",
        naive / fast,
        naive / panning,
        naive / moving,
        naive / following
    );
    Ok(())
}
