//! `movescope bench --import MB`: game logs of about MB megabytes (the logs GMC would write for
//! the default preset with every trace on, `run --gmc-log`), imported by `movescope import` in
//! a child process at a quarter and at the whole size; prints the time, MB/s and the child's
//! peak resident memory (sampled every 10 ms), so a flat memory shows as the same peak.

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
        "import: writing about {megabytes:.0} MB of game logs ({seconds:.0} simulated seconds of the default preset, every trace on)…"
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
    }
    Ok(())
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

fn write_logs(dir: &Path, seconds: f64) -> Result<Vec<PathBuf>, String> {
    let mut p = Preset::builtin_default();
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
