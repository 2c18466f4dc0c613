//! Explaining a desync: `doctor`, `lineage` and `whatif`.

use crate::cli::check_outputs;
use crate::cli::open_recording_file;
use movescope::session::recording::{Footer, Header};

pub(crate) fn doctor(file: &std::path::Path, json: bool, list: usize) -> Result<(), String> {
    let rec = open_recording_file(file)?;
    let (records, damage) = rec.load_all();
    if let Some(d) = &damage {
        eprintln!("warning: {}: {d}", file.display());
    }
    let report = movescope::analysis::doctor::examine_recording(&rec, &records);
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        );
    } else {
        println!("{}", rec.describe());
        print!("{}", report.to_text(list));
    }
    Ok(())
}

pub(crate) fn lineage(
    file: &std::path::Path,
    client: u16,
    move_id: Option<u32>,
    at: Option<f64>,
    json: bool,
) -> Result<(), String> {
    let rec = open_recording_file(file)?;
    if let Some(t) = at {
        let (t0, t1) = rec.span();
        if !(t.is_finite() && t >= t0.min(t1) - 1.0 && t <= t1 + 1.0) {
            return Err(format!(
                "--at {t}: expected a time the recording holds ({:.2}–{t1:.2} s)",
                t0.min(t1)
            ));
        }
    }
    let (records, damage) = rec.load_all();
    if let Some(d) = &damage {
        eprintln!("warning: {}: {d}", file.display());
    }
    let m = match (move_id, at) {
        (Some(m), _) => m,
        (None, Some(t)) => movescope::analysis::lineage::move_near(&records, client, t)
            .ok_or_else(|| format!("client {client} closed no move in this recording"))?,
        (None, None) => return Err("give --move ID or --at SECONDS".into()),
    };
    let (values, source) =
        movescope::analysis::valuetrace::of_recording(&rec, &records, None, &|c, mv| {
            c == client && mv == m
        });
    let l = movescope::analysis::lineage::trace(
        &rec.header.bindings,
        &records,
        &values,
        &source,
        client,
        m,
    )
    .ok_or_else(|| format!("the recording holds no move {m} of client {client}"))?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&l).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", l.to_text());
    }
    Ok(())
}

pub(crate) fn whatif(
    file: &std::path::Path,
    set: &[String],
    summary_json: Option<&std::path::Path>,
    json: bool,
    record: Option<&std::path::Path>,
    force: bool,
) -> Result<(), String> {
    check_outputs(
        &[("--summary-json", summary_json), ("--record", record)],
        &[file],
    )?;
    if let Some(r) = record {
        movescope::support::output::new_recording(r, force)?;
    }
    let rec = open_recording_file(file)?;
    let w = movescope::analysis::whatif::run(&rec, set)?;
    if let Some(path) = record {
        let mut header = Header::new(&w.preset_b, &rec.header.preset_name, "deterministic")?;
        header.seed = w.preset_b.seed;
        let stats = movescope::session::recording::write_all(
            path,
            &header,
            w.records_b.iter().cloned(),
            Footer {
                simulated_seconds: w.summary_b.simulated_seconds,
                wall_seconds: w.summary_b.wall_seconds,
                dropped_records: 0,
            },
        )?;
        eprintln!(
            "recorded B to {} ({} bytes)",
            stats.path.display(),
            stats.bytes
        );
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&w.comparison).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", w.comparison.to_text());
    }
    match summary_json {
        Some(p) if p.as_os_str() == "-" && json => {
            return Err("--summary-json - and --json both want standard output".into());
        }
        Some(p) => {
            let text = serde_json::to_string_pretty(&w.summary_b).map_err(|e| e.to_string())?;
            if p.as_os_str() == "-" {
                println!("{text}");
            } else {
                movescope::support::output::write_file(p, (text + "\n").as_bytes())?;
            }
        }
        None => {}
    }
    Ok(())
}
