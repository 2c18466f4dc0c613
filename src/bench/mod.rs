//! Layer `bench` (the binary's): the `movescope bench` modes, printing figures
//! (docs/benchmarks.md). This file holds the standard scenario's speed run and what the modes
//! share (percentiles, the resident-set probe).
//!
//! May use every library layer.

pub(crate) mod import;
pub(crate) mod lint;
pub(crate) mod live;
pub(crate) mod participants;
pub(crate) mod plots;
pub(crate) mod recording;
pub(crate) mod soak;

use movescope::model::telemetry::Record;
use movescope::session::preset::Preset;

/// `--seconds` of a bench (and `--hour-seconds`): the range of a run's length.
pub(crate) fn bench_seconds(flag: &str, s: f64) -> Result<f64, String> {
    movescope::support::ranges::check_as("seconds", flag, s)
        .map_err(|(k, e)| format!("{k}: expected {e}"))?;
    Ok(s)
}

/// The standard scenario of the speed goal.
pub(crate) fn standard_scenario() -> Preset {
    let mut p = Preset::builtin_default();
    p.title = "standard benchmark".into();
    p.clients = 8;
    p.ai_pawns = 8;
    p.client_fps = 120.0;
    p.link.latency_ms = 50.0;
    p.link.loss = 0.01;
    p
}

pub(crate) fn bench(seconds: f64) -> Result<(), String> {
    // The same scenario without world-view samples, for comparison (one run, both figures).
    // Its records are kept too, as the standard benchmark always did, so it compares like
    // with like against builds from before world-view samples.
    let mut quiet = standard_scenario();
    quiet.world_view_rate = 0.0;
    let started = std::time::Instant::now();
    let mut session = movescope::sim::harness::Session::new(&quiet)?;
    let mut quiet_records: Vec<Record> = Vec::new();
    session.run_until(seconds, &mut |r| quiet_records.push(r));
    let quiet_wall = started.elapsed().as_secs_f64();
    let kept = quiet_records.len();
    drop(quiet_records);

    let preset = standard_scenario();
    let mut records: Vec<Record> = Vec::new();
    let started = std::time::Instant::now();
    let mut session = movescope::sim::harness::Session::new(&preset)?;
    session.run_until(seconds, &mut |r| records.push(r));
    let wall = started.elapsed().as_secs_f64();
    println!(
        "standard scenario: 8 clients at 120 fps, 8 AI pawns, 50 ms one-way, 1 % loss, full telemetry"
    );
    println!(
        "simulated {seconds:.0} s in {wall:.3} wall s: {:.0}× real time ({} telemetry records kept)",
        seconds / wall,
        records.len()
    );
    println!(
        "without world-view samples (world_view_rate = 0): {:.0}× real time ({kept} telemetry records kept)",
        seconds / quiet_wall
    );

    // The store views read, and the decimation plots will be fed.
    use movescope::session::store::{Metric, Store};
    let started = std::time::Instant::now();
    let mut store = Store::new(None);
    for r in &records {
        store.ingest(r);
    }
    let ingest = started.elapsed().as_secs_f64();
    let machines = store.machines_with(Metric::MoveDelta);
    let points: usize = machines
        .iter()
        .filter_map(|m| store.series(*m, Metric::MoveDelta))
        .map(|s| s.len())
        .sum();
    let mut out = Vec::new();
    let rounds = 20;
    let started = std::time::Instant::now();
    for _ in 0..rounds {
        for m in &machines {
            if let Some(s) = store.series(*m, Metric::MoveDelta) {
                s.decimate(0.0, seconds, 1000, &mut out);
            }
        }
    }
    let decimate = started.elapsed().as_secs_f64() / f64::from(rounds);
    println!(
        "store: {} records ingested in {:.0} ms; {} series, {} move deltas in all, decimated to 1000 columns in {:.2} ms",
        records.len(),
        ingest * 1000.0,
        machines.len(),
        points,
        decimate * 1000.0
    );
    Ok(())
}

pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Resident memory of this process (kB), from /proc (Linux); None elsewhere.
///
/// Linux only (it reads `/proc/self/status`); elsewhere `None`, and the benchmarks print
/// "?" for memory.
#[cfg(target_os = "linux")]
pub(crate) fn rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// The resident set size is read from `/proc` on Linux only.
#[cfg(not(target_os = "linux"))]
pub(crate) fn rss_kb() -> Option<u64> {
    None
}
