//! Layer `cli` (the binary's): one file per command; `main.rs` only parses and dispatches.
//! This file holds what several commands share: loading a `--preset` with its `--set`s, opening
//! a recording, checking outputs and windows, the recorder loop of a headless run, and printing
//! a summary.
//!
//! May use every library layer. Contains no model logic.

pub(crate) mod app;
pub(crate) mod args;
pub(crate) mod explain;
pub(crate) mod import;
pub(crate) mod inspect;
pub(crate) mod lint;
pub(crate) mod remote;
pub(crate) mod run;
pub(crate) mod trace;

use std::io::Write;

use crate::cli::args::AppArgs;
use crate::cli::args::HeadlessArgs;
use crate::cli::args::RunArgs;
use movescope::model::telemetry::Record;
use movescope::session::preset::{DEFAULT_PRESET_NAME, Preset};
use movescope::session::recording::{Footer, Header, Recorder, Recording};
use movescope::session::summary::Summary;

/// A headless host or participant: runs the session, writes the recording (`--record`) and
/// the summary.
pub(crate) fn run_headless(
    session: movescope::net::live::LiveSession,
    started: std::time::Instant,
    name: &str,
    h: &HeadlessArgs,
    app: &AppArgs,
) -> Result<(), String> {
    let record = app.record.as_deref();
    movescope::support::ranges::check_as("seconds", "--seconds", h.seconds)
        .map_err(|(k, e)| format!("{k}: expected {e}"))?;
    let recorder = match record {
        Some(path) => Some(Recorder::create_replacing(
            path,
            &Header::new(session.preset(), name, "live")?,
        )?),
        None => None,
    };
    let summary = recorded(recorder, |on_record| {
        Ok(movescope::net::live::run_session(
            session, started, name, h.seconds, on_record,
        ))
    })?;
    write_summary(&summary, h.summary_json.as_deref())
}

/// Runs `run` with every record pushed to `recorder` (if any), then finishes the recording
/// (its footer from the summary) and says what was written.
pub(crate) fn recorded(
    mut recorder: Option<Recorder>,
    run: impl FnOnce(&mut dyn FnMut(&Record)) -> Result<Summary, String>,
) -> Result<Summary, String> {
    let mut record_error: Option<movescope::session::recording::WriteError> = None;
    let mut on_record = |r: &Record| {
        if let Some(rec) = recorder.as_mut()
            && let Err(e) = rec.push(r)
        {
            record_error.get_or_insert(e);
        }
    };
    let summary = run(&mut on_record)?;
    if let Some(e) = record_error {
        return Err(format!("recording failed: {e}"));
    }
    if let Some(rec) = recorder {
        let stats = rec.finish(Footer {
            simulated_seconds: summary.simulated_seconds,
            wall_seconds: summary.wall_seconds,
            dropped_records: summary.telemetry_dropped,
        })?;
        eprintln!(
            "recorded {} records in {} chunks to {} ({} bytes)",
            stats.records,
            stats.chunks,
            stats.path.display(),
            stats.bytes
        );
    }
    Ok(summary)
}

pub(crate) fn check_headless(h: &HeadlessArgs, app: &AppArgs) -> Result<(), String> {
    if !h.headless && h.summary_json.is_some() {
        return Err("--summary-json: needs --headless (the app shows the summary itself)".into());
    }
    if h.headless && (app.screenshot.is_some() || !app.windows.is_empty()) {
        return Err("--headless: no window, so no --screenshot or --window".into());
    }
    let record = app.record.as_deref();
    let inputs = preset_inputs(app.preset.as_deref(), &app.set);
    check_outputs(
        &[
            ("--record", record),
            ("--summary-json", h.summary_json.as_deref()),
            ("--screenshot", app.screenshot.as_deref()),
        ],
        &inputs.iter().map(|p| p.as_path()).collect::<Vec<_>>(),
    )?;
    if let Some(r) = record {
        movescope::support::output::new_recording(r, app.force)?;
    }
    Ok(())
}

pub(crate) fn load_preset(args: &RunArgs) -> Result<(Preset, String), String> {
    let (mut preset, name) = match &args.preset {
        Some(path) => Preset::find(&path.display().to_string()).map_err(|e| e.to_string())?,
        None => (Preset::builtin_default(), DEFAULT_PRESET_NAME.to_string()),
    };
    for kv in &args.set {
        preset.set(kv).map_err(|e| e.to_string())?;
    }
    if let Some(seed) = args.seed {
        preset.seed = seed;
    }
    if let Some(s) = args.seconds {
        movescope::support::ranges::check_as("seconds", "--seconds", s)
            .map_err(|(k, e)| format!("{k}: expected {e}"))?;
        preset.seconds = s;
    }
    Ok((preset, name))
}

/// Opens a recording for a command and says on standard error what the user must know
/// about it (not finished, damaged, header from its backup copy).
pub(crate) fn open_recording_file(file: &std::path::Path) -> Result<Recording, String> {
    let rec = Recording::open(file).map_err(|e| e.to_string())?;
    for n in rec.notes() {
        eprintln!("warning: {}: {n}", file.display());
    }
    Ok(rec)
}

/// `--window` names: each one the app knows.
pub(crate) fn check_windows(windows: &[String]) -> Result<(), String> {
    match windows
        .iter()
        .find(|w| !movescope::app::WINDOWS.contains(&w.as_str()))
    {
        Some(w) => Err(format!(
            "--window {w}: expected one of {}",
            movescope::app::WINDOWS.join(", ")
        )),
        None => Ok(()),
    }
}

/// The files a command reads besides its own positional inputs: the preset, when it is a
/// file, and every trace a `--set …trace=FILE` names (read when the preset is loaded).
pub(crate) fn preset_inputs(
    preset: Option<&std::path::Path>,
    set: &[String],
) -> Vec<std::path::PathBuf> {
    let traces = set.iter().filter_map(|kv| {
        let (key, value) = kv.split_once('=')?;
        (key.trim() == "trace" || key.trim().ends_with(".trace"))
            .then(|| std::path::PathBuf::from(value.trim()))
    });
    preset
        .map(std::path::Path::to_path_buf)
        .into_iter()
        .chain(traces)
        .filter(|p| p.is_file())
        .collect()
}

/// Checks a command's outputs before it runs: none is one of its inputs (under any spelling:
/// relative, `..`, a symbolic or hard link), no two name one file, and each can be written as
/// a file (`-`, standard output, passes).
pub(crate) fn check_outputs(
    outputs: &[(&str, Option<&std::path::Path>)],
    inputs: &[&std::path::Path],
) -> Result<(), String> {
    let files: Vec<(&str, &std::path::Path)> = outputs
        .iter()
        .filter_map(|(what, out)| Some((*what, out.filter(|o| o.as_os_str() != "-")?)))
        .collect();
    for (i, (what, out)) in files.iter().enumerate() {
        movescope::support::output::not_an_input(out, inputs).map_err(|e| format!("{what} {e}"))?;
        if let Some((other, _)) = files[..i]
            .iter()
            .find(|(_, o)| movescope::support::output::same_file(o, out))
        {
            return Err(format!(
                "{other} and {what} both name {}: each output needs a file of its own",
                out.display()
            ));
        }
        movescope::support::output::writable_file(out, what)?;
    }
    Ok(())
}

pub(crate) fn write_summary(
    summary: &Summary,
    summary_json: Option<&std::path::Path>,
) -> Result<(), String> {
    match summary_json {
        Some(path) => {
            let json = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
            if path.as_os_str() == "-" {
                println!("{json}");
            } else {
                movescope::support::output::write_file(path, (json + "\n").as_bytes())
                    .map_err(|e| format!("--summary-json {e}"))?;
                print_summary(summary);
            }
        }
        None => print_summary(summary),
    }
    Ok(())
}

pub(crate) fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".to_string(), |x| format!("{x:.digits$}"))
}

pub(crate) fn print_summary(s: &Summary) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{} — {:.1} simulated s in {:.2} wall s ({} mode, seed {})",
        s.preset, s.simulated_seconds, s.wall_seconds, s.mode, s.seed
    );
    for w in &s.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    for e in &s.errors {
        let _ = writeln!(out, "error: {e}");
    }
    let _ = writeln!(
        out,
        "{:>6} {:>7} {:>7} {:>11} {:>7} {:>11} {:>12} {:>8} {:>10} {:>9}",
        "client",
        "frames",
        "moves",
        "frames/move",
        "substep",
        "corrections",
        "replay(mean)",
        "rtt ms",
        "clock ms",
        "one-shots"
    );
    for c in &s.clients {
        let _ = writeln!(
            out,
            "{:>6} {:>7} {:>7} {:>11} {:>7} {:>11} {:>12} {:>8} {:>10} {:>9}",
            c.id,
            c.frames,
            c.moves_sent,
            opt(c.mean_frames_per_move, 2),
            c.max_substeps,
            c.corrections,
            opt(c.mean_replay_depth, 1),
            opt(c.rtt_ms_mean, 1),
            opt(c.clock_offset_ms_mean, 1),
            c.one_shot_events
        );
        if !c.deviations.is_empty() {
            let d: Vec<String> = c
                .deviations
                .iter()
                .map(|(k, v)| format!("{k} ×{v}"))
                .collect();
            let _ = writeln!(out, "       deviated: {}", d.join(", "));
        }
        if let Some(real) = c.real_rtt_ms_mean {
            let _ = writeln!(
                out,
                "       a participant: real round trip to the host {real:.1} ms (the rtt column adds the simulated link)"
            );
        }
    }
    let _ = writeln!(
        out,
        "server: {} remote moves, {} local moves, {} one-shots, {} corrections sent",
        s.server.remote_moves_executed,
        s.server.local_moves_executed,
        s.server.one_shot_events,
        s.server.corrections_sent
    );
    let _ = writeln!(
        out,
        "packets: {} sent, {} delivered, {} dropped, {} duplicated, {} bytes",
        s.packets.sent,
        s.packets.delivered,
        s.packets.dropped,
        s.packets.duplicated,
        s.packets.bytes
    );
}
