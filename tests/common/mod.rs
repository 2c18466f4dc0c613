//! Helpers shared by the virtual-time test files.
#![allow(dead_code)]

pub mod proc;
pub mod ui;

use movescope::model::telemetry::Record;
use movescope::session::preset::Preset;
use movescope::session::summary::{ClientSummary, Summary};
use movescope::sim::run_deterministic;

/// The default preset with `key=value` changes applied.
pub fn preset(sets: &[&str]) -> Preset {
    let mut p = Preset::default();
    for kv in sets {
        p.set(kv).unwrap_or_else(|e| panic!("{kv}: {e}"));
    }
    p
}

pub fn run(sets: &[&str], seconds: f64) -> Summary {
    run_deterministic(&preset(sets), "test", seconds, &mut |_| {}).expect("valid preset")
}

pub fn run_collect(sets: &[&str], seconds: f64) -> (Summary, Vec<Record>) {
    let mut records = Vec::new();
    let s = run_deterministic(&preset(sets), "test", seconds, &mut |r| {
        records.push(r.clone())
    })
    .expect("valid preset");
    (s, records)
}

/// Sum of a per-client figure over all clients.
pub fn total(s: &Summary, f: impl Fn(&ClientSummary) -> u64) -> u64 {
    s.clients.iter().map(f).sum()
}

/// Runs the movescope binary with `args` in the project folder and fails the test with its
/// stderr unless it succeeds; returns its output.
pub fn movescope_ok(args: &[&str]) -> std::process::Output {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_movescope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "movescope {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A folder of the test's own under the system's temp folder (`movescope-NAME-PID`), emptied
/// first, and removed with everything in it when dropped, also when the test fails.
pub struct TempDir(std::path::PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("movescope-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        TempDir(dir)
    }
}

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;

    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for TempDir {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Reads records until `done` says so or `limit` passes; panics with `what` on timeout.
pub fn until(
    s: &movescope::net::live::LiveSession,
    limit: std::time::Duration,
    what: &str,
    mut done: impl FnMut(&Record) -> bool,
) -> Vec<Record> {
    let deadline = std::time::Instant::now() + limit;
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        assert!(
            !left.is_zero(),
            "timed out after {limit:?} waiting for {what}"
        );
        if let Ok(r) = s.telemetry().recv_timeout(left) {
            let stop = done(&r);
            seen.push(r);
            if stop {
                return seen;
            }
        }
    }
}

/// `p` itself if it is a file, else every file under it, sorted.
pub fn files_of(p: &std::path::Path) -> Vec<std::path::PathBuf> {
    if p.is_file() {
        return vec![p.to_path_buf()];
    }
    let mut v = Vec::new();
    let mut stack = vec![p.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let q = e.path();
            if q.is_dir() {
                stack.push(q);
            } else {
                v.push(q);
            }
        }
    }
    v.sort();
    v
}
