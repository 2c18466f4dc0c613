//! What leaves the app besides recordings: CSV exports of series and bug reports (a trimmed
//! recording around a cursor, the preset and a Markdown summary; the caller adds the PNG).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::model::telemetry::{Event, Machine, Record};
use crate::session::recording::{
    Damage, Footer, Header, Recording, RecordingError, WriteError, write_all,
};
use crate::session::store::{MarkKind, Metric, Store};
use crate::support::output::OutputError;

/// Seconds of session kept before and after the cursor in a bug report.
pub const REPORT_BEFORE: f64 = 20.0;
pub const REPORT_AFTER: f64 = 5.0;
/// Seconds around the cursor the summary describes in detail.
pub const NEAR: f64 = 5.0;
/// Log entries the summary lists at most.
const MAX_NEAR_ENTRIES: usize = 25;

/// The points of one series between two times, copied out of the store (so they can be
/// written elsewhere, e.g. on a job thread).
#[derive(Clone, Debug)]
pub struct SeriesPoints {
    pub metric: Metric,
    pub machine: Machine,
    /// Times (s).
    pub t: Vec<f64>,
    pub v: Vec<f64>,
}

/// The points of `metrics` (of `machines`, or every machine) with `t0 <= t <= t1`: plain
/// copies, cheap next to formatting them.
pub fn export_points(
    store: &Store,
    metrics: &[Metric],
    machines: &[Machine],
    t0: f64,
    t1: f64,
) -> Vec<SeriesPoints> {
    let mut out = Vec::new();
    for &metric in metrics {
        for m in store.machines_with(metric) {
            if !machines.is_empty() && !machines.contains(&m) {
                continue;
            }
            let Some(series) = store.series(m, metric) else {
                continue;
            };
            let (t, v) = series.range(t0, t1).map(|[t, v]| (t, v)).unzip();
            out.push(SeriesPoints {
                metric,
                machine: m,
                t,
                v,
            });
        }
    }
    out
}

/// Writes points as CSV rows: `series,machine,t_s,value,unit`. Returns the number of rows.
pub fn write_points_csv(points: &[SeriesPoints], out: &mut dyn Write) -> std::io::Result<usize> {
    writeln!(out, "series,machine,t_s,value,unit")?;
    let mut rows = 0;
    for p in points {
        for (t, v) in p.t.iter().zip(&p.v) {
            // `{}` prints the shortest text that reads back as the same f64.
            writeln!(
                out,
                "{},{},{t},{v},{}",
                p.metric.name(),
                p.machine,
                p.metric.unit()
            )?;
            rows += 1;
        }
    }
    Ok(rows)
}

/// Writes the points of `metrics` between two times as CSV (see [`write_points_csv`]).
pub fn export_csv(
    store: &Store,
    metrics: &[Metric],
    machines: &[Machine],
    t0: f64,
    t1: f64,
    out: &mut dyn Write,
) -> std::io::Result<usize> {
    write_points_csv(&export_points(store, metrics, machines, t0, t1), out)
}

/// Why a recording's records could not be read: the file could not be opened again, or a
/// chunk is damaged (the file, and where).
#[derive(Debug, thiserror::Error)]
pub enum ReadRecordsError {
    #[error(transparent)]
    Open(#[from] RecordingError),
    #[error("{}: {damage}", path.display())]
    Damaged { path: PathBuf, damage: Damage },
}

/// Why a bug report could not be written: its folder, the recording or another file (each
/// names its path).
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{}: {source}", dir.display())]
    Folder {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Recording(#[from] WriteError),
    #[error(transparent)]
    Output(#[from] OutputError),
}

/// The CLI reports errors as text; `?` turns these errors into their messages.
impl From<ReadRecordsError> for String {
    fn from(e: ReadRecordsError) -> String {
        e.to_string()
    }
}

impl From<ReportError> for String {
    fn from(e: ReportError) -> String {
        e.to_string()
    }
}

/// The records of `rec` with `t0 <= t <= t1`, reading only the chunks that cover them.
pub fn records_between(rec: &Recording, t0: f64, t1: f64) -> Result<Vec<Record>, ReadRecordsError> {
    let mut f = rec.reopen()?;
    let mut out = Vec::new();
    for (i, c) in rec.chunks.iter().enumerate() {
        if c.t_last < t0 || c.t_first > t1 {
            continue;
        }
        let records =
            rec.read_chunk_with(&mut f, i)
                .map_err(|damage| ReadRecordsError::Damaged {
                    path: rec.path.clone(),
                    damage,
                })?;
        out.extend(records.into_iter().filter(|r| r.t >= t0 && r.t <= t1));
    }
    Ok(out)
}

/// Files a bug report consists of.
#[derive(Clone, Debug)]
pub struct ReportFiles {
    pub dir: PathBuf,
    pub recording: PathBuf,
    pub preset: PathBuf,
    pub summary: PathBuf,
    /// Where the caller saves the picture of the view.
    pub picture: PathBuf,
}

/// The files a report writes into its folder.
pub const REPORT_FILES: [&str; 4] = ["session.msrec", "preset.ron", "summary.md", "view.png"];

/// Writes a bug report into `dir`: `session.msrec` (the records in the window around
/// `cursor`, opening at `cursor`), `preset.ron` and `summary.md`. Each file is replaced (if it
/// exists) only by a rename of its complete new version.
pub fn write_report(
    dir: &Path,
    header: &Header,
    window: &[Record],
    cursor: f64,
) -> Result<ReportFiles, ReportError> {
    std::fs::create_dir_all(dir).map_err(|source| ReportError::Folder {
        dir: dir.to_path_buf(),
        source,
    })?;
    let files = ReportFiles {
        dir: dir.to_path_buf(),
        recording: dir.join("session.msrec"),
        preset: dir.join("preset.ron"),
        summary: dir.join("summary.md"),
        picture: dir.join("view.png"),
    };
    let t0 = window.iter().map(|r| r.t).fold(cursor, f64::min);
    let t1 = window.iter().map(|r| r.t).fold(cursor, f64::max);
    let mut h = header.clone();
    h.cursor = Some(cursor);
    h.t_start = t0;
    write_all(
        &files.recording,
        &h,
        window.iter().cloned(),
        Footer {
            simulated_seconds: t1,
            wall_seconds: 0.0,
            dropped_records: 0,
        },
    )?;
    crate::support::output::write_file(&files.preset, (header.preset.to_ron() + "\n").as_bytes())?;
    crate::support::output::write_file(
        &files.summary,
        summary_markdown(header, window, cursor).as_bytes(),
    )?;
    Ok(files)
}

/// The Markdown summary of a bug report.
pub fn summary_markdown(header: &Header, window: &[Record], cursor: f64) -> String {
    let p = &header.preset;
    let mut store = Store::new(None);
    for r in window {
        store.ingest(r);
    }
    let mut md = String::new();
    let t0 = store.earliest();
    let t1 = store.latest();
    md += &format!("# movescope bug report at {cursor:.3} s\n\n");
    md += &format!(
        "- Preset: {} ({}), seed {}, {} session recorded by movescope {}\n",
        p.title, header.preset_name, header.seed, header.mode, header.app_version
    );
    md += &format!(
        "- Net mode {:?}, {} clients at {} fps, {} AI pawns, server at {} fps\n",
        p.net_mode, p.clients, p.client_fps, p.ai_pawns, p.server_fps
    );
    md += &format!(
        "- Link: {} ms one-way, {} ms jitter, {:.1} % loss ({} per-client overrides)\n",
        p.link.latency_ms,
        p.link.jitter_ms,
        p.link.loss * 100.0,
        p.link_overrides.len()
    );
    let faults: Vec<&str> = crate::model::settings::Faults::EXPLAINED
        .iter()
        .enumerate()
        .filter(|(i, _)| p.faults.is_on(*i))
        .map(|(_, (name, _))| *name)
        .collect();
    md += &format!(
        "- Pitfall switches on: {}\n",
        if faults.is_empty() {
            "none".to_string()
        } else {
            faults.join(", ")
        }
    );
    md += &format!(
        "- Smoothing: {:?}, net update rate {} Hz\n",
        p.smoothing.mode, p.net_update_rate
    );
    md += &format!(
        "- This report holds {t0:.2}–{t1:.2} s ({} records). Open it with `movescope open session.msrec`; it lands on {cursor:.3} s.\n\n",
        window.len()
    );
    let doctor = crate::analysis::doctor::examine(&header.bindings, window);
    if doctor.corrections > 0 || !doctor.findings.is_empty() {
        md += "## The desync doctor on this window\n\n";
        for c in &doctor.causes {
            md += &format!(
                "- {} correction(s): {:?} — {}\n",
                c.corrections, c.cause, c.explain
            );
        }
        for f in &doctor.findings {
            md += &format!("- finding, {}: {}\n", f.pitfall, f.evidence);
        }
        if let Some(d) = doctor
            .diagnoses
            .iter()
            .min_by(|a, b| (a.t - cursor).abs().total_cmp(&(b.t - cursor).abs()))
        {
            md += &format!(
                "\nThe correction nearest the cursor ({:.3} s, client {}, move {}): {:?} — evidence: {}\n",
                d.t, d.client, d.move_id, d.cause, d.evidence
            );
        }
        md += "\n";
    }
    // One-shots are not what a bug report is about (a pawn raises several a second).
    let near: Vec<&crate::session::store::LogEntry> = store
        .log_between(cursor - NEAR, cursor + NEAR)
        .iter()
        .filter(|e| e.kind != MarkKind::OneShot)
        .collect();
    md += &format!("## Within {NEAR} s of the cursor\n\n");
    if near.is_empty() {
        md += "No corrections, warnings or errors.\n";
    }
    // The entries nearest the cursor, in time order.
    let mut nearest: Vec<&crate::session::store::LogEntry> = near.clone();
    nearest.sort_by(|a, b| (a.t - cursor).abs().total_cmp(&(b.t - cursor).abs()));
    nearest.truncate(MAX_NEAR_ENTRIES);
    nearest.sort_by(|a, b| a.t.total_cmp(&b.t));
    if near.len() > nearest.len() {
        md += &format!(
            "The {} entries nearest the cursor of {} (all are in the recording):\n\n",
            nearest.len(),
            near.len()
        );
    }
    for e in nearest {
        let what = match e.kind {
            MarkKind::Correction | MarkKind::Replay => "correction",
            MarkKind::Warning => "warning",
            MarkKind::Error => "error",
            MarkKind::Change => "change",
            MarkKind::OneShot => "one-shot",
        };
        md += &format!("- {:.3} s, {}, {what}: {}\n", e.t, e.machine, e.text);
    }
    let mut counts = std::collections::BTreeMap::<String, u32>::new();
    for e in store.log().iter().filter(|e| e.kind != MarkKind::OneShot) {
        *counts
            .entry(format!("{} {:?}", e.machine, e.kind))
            .or_default() += 1;
    }
    md += "\n## In the whole report window\n\n";
    if counts.is_empty() {
        md += "No corrections, warnings or errors.\n";
    }
    for (k, n) in counts {
        md += &format!("- {k}: {n}\n");
    }
    md += "\n| machine | moves closed | corrections | mean RTT ms |\n|---|---|---|---|\n";
    for m in store.machines_with(Metric::MoveDelta) {
        let moves = store.series(m, Metric::MoveDelta).map_or(0, |s| s.len());
        let corrections = window
            .iter()
            .filter(|r| r.machine == m && matches!(r.event, Event::Correction { .. }))
            .count();
        let rtt = store.series(m, Metric::Rtt).and_then(|s| {
            let v: Vec<f64> = s.range(t0, t1).map(|p| p[1]).collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64 * 1000.0)
        });
        md += &format!(
            "| {m} | {moves} | {corrections} | {} |\n",
            rtt.map_or("-".into(), |x| format!("{x:.1}"))
        );
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::telemetry::Event;

    #[test]
    fn csv_rows_read_back_exactly() {
        let mut st = Store::new(None);
        for i in 0..50 {
            st.ingest(&Record {
                t: f64::from(i) * 0.1,
                machine: Machine::Client(1),
                event: Event::Rtt {
                    rtt: 0.05 + f64::from(i) / 3.0,
                },
            });
        }
        let mut out = Vec::new();
        let n = export_csv(&st, &[Metric::Rtt], &[], 1.0, 2.0, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(n, rows.len());
        assert_eq!(n, 11, "1.0 ..= 2.0 s in 0.1 s steps");
        let first: Vec<&str> = rows[0].split(',').collect();
        assert_eq!(first[0], "rtt");
        assert_eq!(first[1], "client 1");
        let v: f64 = first[3].parse().unwrap();
        assert_eq!(v, 0.05 + 10.0 / 3.0, "values survive the text exactly");
    }
}
