//! `movescope bench --import MB`: game logs of about MB megabytes (the logs GMC would write for
//! pitfall 1's preset with every trace on, `run --gmc-log`: desyncs all along), imported by
//! `movescope import` in a child process at a quarter and at the whole size; prints the time,
//! MB/s and the child's peak resident memory (sampled every 10 ms), so a flat memory shows as
//! the same peak; then the desync doctor's time on each recording.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use movescope::gmclog::write::{GmcLogWriter, Switches};
use movescope::session::preset::Preset;
use movescope::sim::run_deterministic;

pub(crate) fn bench_import(megabytes: f64) -> Result<(), String> {
    if !(megabytes.is_finite() && megabytes > 0.0) {
        return Err("--import: a size in MB greater than 0".into());
    }
    let dir = std::env::temp_dir().join(format!("movescope-bench-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let result = run_in(&dir, megabytes);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn run_in(dir: &Path, megabytes: f64) -> Result<(), String> {
    let target = (megabytes * 1e6) as u64;
    let rate = bytes_per_second(&dir.join("calibrate"))?;
    let seconds = (target as f64 / rate).ceil();
    println!(
        "import: writing about {megabytes:.0} MB of game logs ({seconds:.0} simulated seconds of pitfall 1's preset, every trace on)…"
    );
    let full = write_logs(&dir.join("full"), seconds)?;
    let quarter = write_logs(&dir.join("quarter"), (seconds / 4.0).ceil())?;
    for (name, logs) in [("a quarter", &quarter), ("the whole", &full)] {
        let bytes: u64 = logs
            .iter()
            .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
            .sum();
        let out = dir.join(format!("{}.msrec", name.replace(' ', "-")));
        let (secs, peak_kb) = import_child(logs, &out)?;
        println!(
            "import: {name}: {:.0} MB in {} files in {secs:.2} s ({:.0} MB/s), peak resident memory {:.0} MB",
            bytes as f64 / 1e6,
            logs.len(),
            bytes as f64 / 1e6 / secs.max(1e-9),
            peak_kb as f64 / 1024.0
        );
        doctor_on(name, &out)?;
    }
    Ok(())
}

/// The desync doctor on an imported recording, as `movescope doctor` runs it: its time (goal
/// for the whole: 5 s), desyncs and causes.
fn doctor_on(name: &str, recording: &Path) -> Result<(), String> {
    let started = Instant::now();
    let rec =
        movescope::session::recording::Recording::open(recording).map_err(|e| e.to_string())?;
    let (records, _) = rec.load_all();
    let report = movescope::analysis::doctor::examine_recording(&rec, &records);
    let secs = started.elapsed().as_secs_f64();
    println!(
        "import: doctor on {name}: {} records, {} desyncs ({} with a supported cause) in {secs:.2} s (goal for the whole: 5 s)",
        records.len(),
        report.corrections,
        report.corrections - report.unexplained
    );
    Ok(())
}

/// `bench --import-server CLIENTS`: a dedicated server's log of `clients` clients over ten
/// minutes (pitfall 1's preset, every trace on), imported alone: time, MB/s, peak memory,
/// and the doctor's time.
pub(crate) fn bench_import_server(clients: u16) -> Result<(), String> {
    if clients == 0 {
        return Err("--import-server: at least 1 client".into());
    }
    let dir = std::env::temp_dir().join(format!("movescope-bench-server-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let result = server_log_in(&dir, clients);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn server_log_in(dir: &Path, clients: u16) -> Result<(), String> {
    println!(
        "import: writing a dedicated server's log of {clients} clients over 600 s (pitfall 1's preset, every trace on)…"
    );
    let logs = write_logs_with(&dir.join("logs"), 600.0, |p| {
        p.clients = clients;
        p.ai_pawns = 0;
    })?;
    let server: Vec<PathBuf> = logs
        .into_iter()
        .filter(|l| l.file_name().is_some_and(|n| n == "server.log"))
        .collect();
    let bytes: u64 = server
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum();
    let out = dir.join("server.msrec");
    let (secs, peak_kb) = import_child(&server, &out)?;
    println!(
        "import: the server's log: {:.0} MB in {secs:.2} s ({:.0} MB/s; goal 1 GB in 15 s: 67 MB/s), peak resident memory {:.0} MB",
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / secs.max(1e-9),
        peak_kb as f64 / 1024.0
    );
    doctor_on("the server's log", &out)
}

/// Bytes the logs take per simulated second of the default preset.
fn bytes_per_second(dir: &Path) -> Result<f64, String> {
    let logs = write_logs(dir, 20.0)?;
    let bytes: u64 = logs
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum();
    let _ = std::fs::remove_dir_all(dir);
    Ok((bytes as f64 / 20.0).max(1.0))
}

/// The logs GMC would write for pitfall 1 (an unbound member: desyncs all along, so the
/// import keeps the dumps around each and the doctor has work), every trace on.
fn write_logs(dir: &Path, seconds: f64) -> Result<Vec<PathBuf>, String> {
    write_logs_with(dir, seconds, |_| {})
}

fn write_logs_with(
    dir: &Path,
    seconds: f64,
    change: impl FnOnce(&mut Preset),
) -> Result<Vec<PathBuf>, String> {
    let (mut p, _) = Preset::find("pitfall-01-unbound-member").map_err(|e| e.to_string())?;
    change(&mut p);
    p.value_trace = true;
    let list = p
        .checked_bindings()
        .map_err(|e| e.to_string())?
        .list()
        .to_vec();
    let mut w = GmcLogWriter::create(dir, 1_767_225_600_000, &list, false, Switches::ALL)
        .map_err(|e| e.to_string())?;
    let mut error = None;
    run_deterministic(&p, "bench", seconds, &mut |r| {
        if error.is_none()
            && let Err(e) = w.push(r)
        {
            error = Some(e);
        }
    })
    .map_err(|e| e.to_string())?;
    if let Some(e) = error {
        return Err(e.to_string());
    }
    w.finish().map_err(|e| e.to_string())
}

/// Runs `movescope import` on `logs`; its wall time and peak resident memory (kB).
fn import_child(logs: &[PathBuf], out: &Path) -> Result<(f64, u64), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let started = Instant::now();
    let mut child = Command::new(exe)
        .arg("import")
        .args(logs)
        .arg("--out")
        .arg(out)
        .arg("--force")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start the import: {e}"))?;
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let status = loop {
        peak = peak.max(resident_kb(&status_file));
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(s) => break s,
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    let secs = started.elapsed().as_secs_f64();
    if !status.success() {
        return Err(format!("the import failed ({status})"));
    }
    Ok((secs, peak))
}

/// The resident memory a `/proc/PID/status` file gives (0 where there is none).
fn resident_kb(status_file: &str) -> u64 {
    std::fs::read_to_string(status_file)
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}
