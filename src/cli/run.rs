//! `movescope run`: a headless session in virtual time or live, with its summary and recording.

use crate::cli::args::RunArgs;
use crate::cli::check_outputs;
use crate::cli::load_preset;
use crate::cli::recorded;
use crate::cli::write_summary;
use movescope::session::recording::{Header, Recorder};
use movescope::sim::run_deterministic;

pub(crate) fn run(args: RunArgs) -> Result<(), String> {
    let read = crate::cli::preset_inputs(args.preset.as_deref(), &args.set);
    let inputs: Vec<&std::path::Path> = read
        .iter()
        .map(|p| p.as_path())
        .chain(args.component.iter().map(|p| p.as_path()))
        .collect();
    check_outputs(
        &[
            ("--record", args.record.as_deref()),
            ("--summary-json", args.summary_json.as_deref()),
        ],
        &inputs,
    )?;
    if let Some(r) = &args.record {
        movescope::support::output::new_recording(r, args.force)?;
    }
    let (mut preset, mut name) = load_preset(&args)?;
    if !args.component.is_empty() {
        let layout = component_layout(&args, &preset)?;
        name = format!("{name} with {}", layout.class);
        preset.component = Some(layout);
        preset.checked_bindings().map_err(|e| e.to_string())?;
    }
    if args.gmc_log.is_some() {
        // The dumps of the logs GMC would write come from the value trace (which changes no
        // other record).
        preset.value_trace = true;
    }
    if args.record.is_none() {
        // Without a recording nothing reads the world-view samples (the summary and the GMC
        // log writer do not; `every_shipped_preset_…_without_world_view_samples` holds them to
        // it): not making them saves a tenth of a headless run.
        preset.world_view_rate = 0.0;
    }
    let mut gmc_log = gmc_log_writer(&args, &preset)?;
    let mut gmc_log_error = None;
    let mode = if args.live { "live" } else { "deterministic" };
    let recorder = match &args.record {
        Some(path) => Some(Recorder::create_replacing(
            path,
            &Header::new(&preset, &name, mode)?,
        )?),
        None => None,
    };
    let summary = recorded(recorder, |on_record| {
        // Without --gmc-log the records go straight to the recorder and summary (no extra
        // call per record).
        let mut both = |r: &movescope::model::telemetry::Record| {
            on_record(r);
            if let Some(w) = gmc_log.as_mut()
                && let Err(e) = w.push(r)
            {
                gmc_log_error.get_or_insert(e);
            }
        };
        let sink: &mut dyn FnMut(&movescope::model::telemetry::Record) = if args.gmc_log.is_some() {
            &mut both
        } else {
            on_record
        };
        if args.live {
            let seconds = args.seconds.unwrap_or(10.0);
            Ok(movescope::net::live::run_live(
                &preset, &name, seconds, sink,
            )?)
        } else {
            Ok(run_deterministic(&preset, &name, preset.seconds, sink)?)
        }
    })?;
    if let Some(e) = gmc_log_error {
        return Err(format!("--gmc-log: {e}"));
    }
    if let Some(w) = gmc_log {
        let files = w.finish().map_err(|e| format!("--gmc-log: {e}"))?;
        eprintln!(
            "wrote the logs GMC would write: {}",
            files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    write_summary(&summary, args.summary_json.as_deref())?;
    if preset.component.is_some() {
        // With the summary on standard output, the comparison goes to standard error.
        let to_stderr = args.summary_json.as_deref() == Some(std::path::Path::new("-"));
        bandwidth_against_table(&preset, &summary, to_stderr);
    }
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
    // So is a client the preset asked for that the server dropped and that never came back.
    let asked = preset.network_clients();
    let gone: Vec<String> = summary
        .clients
        .iter()
        .filter(|c| asked.contains(&c.id))
        .filter_map(|c| {
            c.gone_at_end()
                .map(|g| format!("client {} at {:.1} s ({})", c.id, g.at_s, g.why))
        })
        .collect();
    if !gone.is_empty() {
        return Err(format!(
            "{} client(s) stopped playing before the end of the run: {}",
            gone.len(),
            gone.join("; ")
        ));
    }
    Ok(())
}

/// The writer of `--gmc-log DIR`, with the logging `--gmc-log-without` leaves out.
fn gmc_log_writer(
    args: &RunArgs,
    preset: &movescope::session::preset::Preset,
) -> Result<Option<movescope::gmclog::write::GmcLogWriter>, String> {
    use movescope::gmclog::write::{GmcLogWriter, Switches};
    let Some(dir) = &args.gmc_log else {
        if !args.gmc_log_without.is_empty() {
            return Err("--gmc-log-without: needs --gmc-log DIR".into());
        }
        return Ok(None);
    };
    let mut switches = Switches::ALL;
    for name in &args.gmc_log_without {
        switches = switches.without(name).ok_or_else(|| {
            format!(
                "--gmc-log-without {name}: expected move-trace, replay, verbose, world-time or iterations"
            )
        })?;
    }
    let bindings = preset.checked_bindings().map_err(|e| e.to_string())?;
    let started_unix_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let listen = preset.net_mode == movescope::model::settings::NetMode::Listen;
    GmcLogWriter::create(dir, started_unix_ms, bindings.list(), listen, switches)
        .map(Some)
        .map_err(|e| format!("--gmc-log: {e}"))
}

/// The layout of the component `--component` names (the only one, or `--class`).
fn component_layout(
    args: &RunArgs,
    preset: &movescope::session::preset::Preset,
) -> Result<movescope::session::imported::ImportedLayout, String> {
    use movescope::analysis::lint::{self, Rates};
    let report = lint::lint_paths(&args.component, Rates::of(preset));
    for p in &report.problems {
        eprintln!("{}: warning: {}", p.path.display(), p.problem);
    }
    let with_bindings: Vec<_> = report
        .components
        .iter()
        .filter(|c| !c.bindings.is_empty())
        .collect();
    let chosen = match &args.class {
        Some(class) => report
            .components
            .iter()
            .find(|c| &c.class == class)
            .ok_or_else(|| {
                format!(
                    "--class {class}: no such component in the files (found: {})",
                    names(&report.components)
                )
            })?,
        None => match with_bindings.as_slice() {
            [one] => *one,
            [] => return Err("--component: the files hold no component that binds values".into()),
            _ => {
                return Err(format!(
                    "--component: the files hold several components that bind values; choose one with --class ({})",
                    names(&report.components)
                ));
            }
        },
    };
    let run = lint::run::run_layout(chosen, &report.files);
    for n in &run.notes {
        eprintln!("note: {n}");
    }
    if let Some(p) = run.layout.problem() {
        return Err(format!("--component: {p}"));
    }
    Ok(run.layout)
}

fn names(cs: &[movescope::analysis::lint::ComponentReport]) -> String {
    cs.iter()
        .map(|c| c.class.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Prints each client's measured send rate against the table's expectation.
fn bandwidth_against_table(
    preset: &movescope::session::preset::Preset,
    summary: &movescope::session::summary::Summary,
    to_stderr: bool,
) {
    let say = |line: String| {
        if to_stderr {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    };
    use movescope::analysis::lint::{self, Rates};
    let Ok(b) = preset.bindings() else { return };
    let t = lint::binding_totals(b.list(), Rates::of(preset));
    let want = t.client_bytes_per_s + t.ping_bytes_per_s;
    say(format!(
        "layout: expected {want:.0} B/s per client to the server at the preset's rates (moves {:.0} + pings {:.0}; {} bits of values per move, built-ins included)",
        t.client_bytes_per_s, t.ping_bytes_per_s, t.move_bits
    ));
    for c in &summary.clients {
        let (Some(got), Some(d)) = (c.bytes_sent_per_s, c.sending_seconds) else {
            continue;
        };
        let moves = (c.moves_sent + c.resent_moves) as f64 / d;
        let datagrams = c.move_datagrams as f64 / d;
        let at = lint::client_bytes_at(t.move_bits, moves, datagrams) + t.ping_bytes_per_s;
        say(format!(
            "layout: client {} sent {got:.0} B/s ({:+.1} % from the preset's rates); at its own {moves:.1} moves/s in {datagrams:.1} datagrams/s the table expects {at:.0} B/s ({:+.1} %); {:.1} bits of values per move",
            c.id,
            (got - want) / want.max(1.0) * 100.0,
            (got - at) / at.max(1.0) * 100.0,
            c.value_bits_per_move.unwrap_or(0.0)
        ));
    }
}
