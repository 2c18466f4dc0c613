//! `bench --recording`: recording overhead, opening and seeking a recording.

use crate::bench::percentile;
use crate::bench::standard_scenario;
use movescope::session::preset::Preset;
use movescope::session::recording::{Footer, Header, Recorder, Recording};

pub(crate) fn bench_recording(seconds: f64, hour_seconds: f64) -> Result<(), String> {
    use movescope::sim::harness::Session;
    let dir = std::env::temp_dir().join(format!("movescope-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let finish = |rec: Recorder, simulated: f64| {
        rec.finish(Footer {
            simulated_seconds: simulated,
            wall_seconds: 0.0,
            dropped_records: 0,
        })
    };

    // Size: the default preset (3 clients at 60 fps, 2 AI pawns) for a simulated minute, with
    // and without world-view samples.
    for (label, sets) in [
        ("default preset", vec![]),
        (
            "default preset, world_view_rate = 0",
            vec!["world_view_rate=0"],
        ),
    ] {
        let mut p = Preset::builtin_default();
        for kv in &sets {
            p.set(kv).map_err(|e| e.to_string())?;
        }
        let path = dir.join("size.msrec");
        let mut rec =
            Recorder::create_replacing(&path, &Header::new(&p, "bench", "deterministic")?)?;
        let mut session = Session::new(&p)?;
        let mut err = None;
        session.run_until(60.0, &mut |r| {
            if let Err(e) = rec.push(&r) {
                err.get_or_insert(e);
            }
        });
        if let Some(e) = err {
            return Err(e.into());
        }
        let stats = finish(rec, 60.0)?;
        println!(
            "size, {label}: {} records, {:.0} KB per client-minute ({} clients, 60 s)",
            stats.records,
            stats.bytes as f64 / 1024.0 / f64::from(p.clients),
            p.clients
        );
    }

    // Overhead: the standard scenario (records kept in memory, as `bench` does) with and
    // without recording, alternating twice.
    let p = standard_scenario();
    let mut plain = Vec::new();
    let mut recorded = Vec::new();
    for _ in 0..2 {
        let started = std::time::Instant::now();
        let mut kept = Vec::new();
        Session::new(&p)?.run_until(seconds, &mut |r| kept.push(r));
        plain.push(started.elapsed().as_secs_f64());
        drop(kept);
        let path = dir.join("overhead.msrec");
        let started = std::time::Instant::now();
        let mut rec =
            Recorder::create_replacing(&path, &Header::new(&p, "bench", "deterministic")?)?;
        let mut kept = Vec::new();
        Session::new(&p)?.run_until(seconds, &mut |r| {
            let _ = rec.push(&r);
            kept.push(r);
        });
        finish(rec, seconds)?;
        recorded.push(started.elapsed().as_secs_f64());
    }
    let best = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "overhead, standard scenario {seconds:.0} s: {:.0}× real time without recording, {:.0}× with (best of 2 each, alternating): {:+.1} %",
        seconds / best(&plain),
        seconds / best(&recorded),
        (best(&recorded) / best(&plain) - 1.0) * 100.0
    );

    // A long recording of the standard scenario: write it, open it, seek in it.
    let path = dir.join("hour.msrec");
    let started = std::time::Instant::now();
    let mut rec = Recorder::create_replacing(&path, &Header::new(&p, "bench", "deterministic")?)?;
    Session::new(&p)?.run_until(hour_seconds, &mut |r| {
        let _ = rec.push(&r);
    });
    let stats = finish(rec, hour_seconds)?;
    println!(
        "long recording: {hour_seconds:.0} s of 8 clients, {} records, {:.1} MB ({:.0} KB per client-minute), written in {:.1} s",
        stats.records,
        stats.bytes as f64 / 1e6,
        stats.bytes as f64 / 1024.0 / 8.0 / (hour_seconds / 60.0),
        started.elapsed().as_secs_f64()
    );
    let mut open_times = Vec::new();
    let mut opened = None;
    for _ in 0..5 {
        let started = std::time::Instant::now();
        let r = Recording::open(&path).map_err(|e| e.to_string())?;
        // What the app shows first: the chunk at the cursor, in a store.
        let mut store = movescope::session::store::Store::new(None);
        for x in r
            .read_chunk(r.chunk_at(0.0).unwrap_or(0))
            .map_err(|d| d.to_string())?
        {
            store.ingest(&x);
        }
        open_times.push(started.elapsed().as_secs_f64());
        opened = Some(r);
    }
    let r = opened.ok_or("not opened")?;
    open_times.sort_by(f64::total_cmp);
    println!(
        "open (header + index + first chunk into a store): median {:.1} ms",
        percentile(&open_times, 0.5) * 1000.0
    );
    let mut file = r.reopen().map_err(|e| e.to_string())?;
    let mut rng = movescope::support::rng::Rng::new(7);
    let mut seeks = Vec::new();
    for _ in 0..200 {
        let t = rng.f64() * hour_seconds;
        let started = std::time::Instant::now();
        let i = r.chunk_at(t).ok_or("no chunks")?;
        let records = r.read_chunk_with(&mut file, i).map_err(|d| d.to_string())?;
        seeks.push(started.elapsed().as_secs_f64());
        std::hint::black_box(records);
    }
    seeks.sort_by(f64::total_cmp);
    println!(
        "seek (find and decode the chunk holding a random time): median {:.2} ms, p99 {:.2} ms",
        percentile(&seeks, 0.5) * 1000.0,
        percentile(&seeks, 0.99) * 1000.0
    );
    let started = std::time::Instant::now();
    let mut store = movescope::session::store::Store::new(None);
    let damage = r.for_each(&mut |x| store.ingest(&x));
    println!(
        "full load of the long recording into the store (what the app does in the background): {:.1} s{}",
        started.elapsed().as_secs_f64(),
        if damage.is_err() { " (damaged!)" } else { "" }
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
