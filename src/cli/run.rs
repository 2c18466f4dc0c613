//! `movescope run`: a headless session in virtual time or live, with its summary and recording.

use crate::cli::args::RunArgs;
use crate::cli::check_outputs;
use crate::cli::load_preset;
use crate::cli::recorded;
use crate::cli::write_summary;
use movescope::session::recording::{Header, Recorder};
use movescope::sim::run_deterministic;

pub(crate) fn run(args: RunArgs) -> Result<(), String> {
    let preset_file = args.preset.as_deref().filter(|p| p.is_file());
    let inputs: Vec<&std::path::Path> = preset_file.into_iter().collect();
    check_outputs(
        &[
            ("--record", args.record.as_deref()),
            ("--summary-json", args.summary_json.as_deref()),
        ],
        &inputs,
    )?;
    if let (Some(r), Some(j)) = (&args.record, &args.summary_json)
        && movescope::support::output::same_file(r, j)
    {
        return Err(format!(
            "--record and --summary-json both name {}",
            r.display()
        ));
    }
    if let Some(r) = &args.record {
        movescope::support::output::new_recording(r, args.force)?;
    }
    let (preset, name) = load_preset(&args)?;
    let mode = if args.live { "live" } else { "deterministic" };
    let recorder = match &args.record {
        Some(path) => Some(Recorder::create_replacing(
            path,
            &Header::new(&preset, &name, mode)?,
        )?),
        None => None,
    };
    let summary = recorded(recorder, |on_record| {
        if args.live {
            let seconds = args.seconds.unwrap_or(10.0);
            Ok(movescope::net::live::run_live(
                &preset, &name, seconds, on_record,
            )?)
        } else {
            Ok(run_deterministic(
                &preset,
                &name,
                preset.seconds,
                on_record,
            )?)
        }
    })?;
    write_summary(&summary, args.summary_json.as_deref())?;
    // A machine whose thread panicked is an error of the run, after the summary is written.
    let stopped: Vec<&String> = summary
        .errors
        .iter()
        .filter(|e| e.contains(movescope::net::live::STOPPED))
        .collect();
    if !stopped.is_empty() {
        return Err(format!(
            "{} machine(s) stopped during the run: {}",
            stopped.len(),
            stopped
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    Ok(())
}
