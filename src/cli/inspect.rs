//! Reading recordings: `inspect` (summary, notes, events), `export` (CSV) and `report` (bug
//! reports).

use crate::cli::app::open_recording;
use crate::cli::check_outputs;
use crate::cli::open_recording_file;
use crate::cli::write_summary;
use movescope::model::telemetry::{Machine, Record};

/// `inspect --events`: the records as JSON lines, filtered.
pub(crate) fn inspect_events(
    file: &std::path::Path,
    from: Option<f64>,
    to: Option<f64>,
    machine: Option<&str>,
    kinds: &[String],
) -> Result<(), String> {
    use std::io::Write;
    let machine = match machine {
        None => None,
        Some("server") => Some(Machine::Server),
        Some(c) => Some(Machine::Client(c.parse().map_err(|_| {
            format!("--machine: expected `server` or a client number, got `{c}`")
        })?)),
    };
    let rec = open_recording_file(file)?;
    let (lo, hi) = (
        from.unwrap_or(f64::NEG_INFINITY),
        to.unwrap_or(f64::INFINITY),
    );
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let mut printed = 0usize;
    let mut failed: Option<String> = None;
    let mut closed = false;
    let damage = rec.for_each(&mut |r: Record| {
        if closed || failed.is_some() || r.t < lo || r.t > hi {
            return;
        }
        if machine.is_some_and(|m| m != r.machine) {
            return;
        }
        let v = match serde_json::to_value(&r) {
            Ok(v) => v,
            Err(e) => {
                failed = Some(e.to_string());
                return;
            }
        };
        // The event's kind is its variant name: the single key of the externally tagged enum
        // (or the string of a unit variant).
        let kind = match &v["event"] {
            serde_json::Value::Object(o) => o.keys().next().cloned().unwrap_or_default(),
            serde_json::Value::String(s) => s.clone(),
            _ => String::new(),
        };
        if !kinds.is_empty() && !kinds.iter().any(|k| k.eq_ignore_ascii_case(&kind)) {
            return;
        }
        printed += 1;
        // The reader may go away (e.g. `| head`): stop quietly.
        closed = writeln!(out, "{v}").is_err();
    });
    drop(out);
    if let Some(e) = failed {
        return Err(e);
    }
    if let Err(d) = damage {
        eprintln!("warning: {}: {d}", file.display());
    }
    if printed == 0 {
        eprintln!("no records match");
    }
    Ok(())
}

pub(crate) fn inspect(
    file: &std::path::Path,
    summary_json: Option<&std::path::Path>,
) -> Result<(), String> {
    check_outputs(&[("--summary-json", summary_json)], &[file])?;
    let rec = open_recording_file(file)?;
    eprintln!("{}", rec.describe());
    let (summary, damage) = rec.summarize();
    if let Some(d) = &damage {
        eprintln!("warning: {}: {d}", file.display());
    }
    write_summary(&summary, summary_json)
}

pub(crate) fn report(
    file: &std::path::Path,
    at: f64,
    out: &std::path::Path,
    no_picture: bool,
    force: bool,
) -> Result<(), String> {
    use movescope::analysis::report::{REPORT_AFTER, REPORT_BEFORE, records_between, write_report};
    if out.exists() && !out.is_dir() {
        return Err(format!(
            "--out {}: is not a folder; expected a folder for the report's files",
            out.display()
        ));
    }
    for name in movescope::analysis::report::REPORT_FILES {
        let f = out.join(name);
        movescope::support::output::not_an_input(&f, &[file]).map_err(|e| format!("--out {e}"))?;
        if f.exists() && !force {
            return Err(format!(
                "--out {}: holds an earlier report ({name}); pass --force to replace it",
                out.display()
            ));
        }
    }
    let rec = open_recording_file(file)?;
    let (t0, t1) = rec.span();
    if !(at.is_finite() && at >= t0 && at <= t1) {
        return Err(format!(
            "--at {at}: expected a time the recording holds ({t0:.2}–{t1:.2} s)"
        ));
    }
    let window = records_between(&rec, at - REPORT_BEFORE, at + REPORT_AFTER)?;
    let files = write_report(out, &rec.header, &window, at)?;
    println!(
        "wrote {}, {}, {}",
        files.recording.display(),
        files.preset.display(),
        files.summary.display()
    );
    if no_picture {
        return Ok(());
    }
    // The picture: the trimmed recording opened as a user would, at its cursor.
    open_recording(
        crate::cli::app::OpenWhat {
            files: vec![files.recording.clone()],
            component: Vec::new(),
            class: None,
        },
        None,
        Some(files.picture.clone()),
        1.0,
        Vec::new(),
        Vec::new(),
    )
    .map_err(|e| format!("the picture needs a display ({e}); the other files are written"))?;
    println!("wrote {}", files.picture.display());
    Ok(())
}

pub(crate) fn export(
    file: &std::path::Path,
    from: Option<f64>,
    to: Option<f64>,
    series: &[String],
    out: &std::path::Path,
) -> Result<(), String> {
    use movescope::session::store::{Metric, Store};
    let metrics: Vec<Metric> = if series.is_empty() {
        Metric::ALL.to_vec()
    } else {
        series
            .iter()
            .map(|n| {
                Metric::from_name(n).ok_or_else(|| {
                    let names: Vec<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
                    format!("--series {n}: expected one of {}", names.join(", "))
                })
            })
            .collect::<Result<_, _>>()?
    };
    check_outputs(&[("--out", Some(out))], &[file])?;
    let rec = open_recording_file(file)?;
    let mut store = Store::new(None);
    if let Err(d) = rec.for_each(&mut |r| store.ingest(&r)) {
        eprintln!("warning: {}: {d}", file.display());
    }
    let (t0, t1) = (
        from.unwrap_or(f64::NEG_INFINITY),
        to.unwrap_or(f64::INFINITY),
    );
    let rows = if out.as_os_str() == "-" {
        let mut w = std::io::stdout().lock();
        movescope::analysis::report::export_csv(&store, &metrics, &[], t0, t1, &mut w)
    } else {
        return movescope::support::output::write_atomic(out, |w| {
            movescope::analysis::report::export_csv(&store, &metrics, &[], t0, t1, w)
        })
        .map(|rows| eprintln!("{rows} rows"))
        .map_err(String::from);
    }
    .map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!("{rows} rows");
    Ok(())
}
