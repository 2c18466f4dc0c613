//! `movescope import`: an engineer's game logs into a recording, with what was read, what was
//! skipped and what to turn on for more (docs/gmc-logs.md).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::cli::args::ImportArgs;
use crate::cli::check_outputs;
use movescope::gmclog::record::{ImportJob, to_recording};
use movescope::gmclog::{Imported, Naming, Progress, how, names};

pub(crate) fn import(args: ImportArgs) -> Result<(), String> {
    if args.how {
        print!("{}", how::text());
        return Ok(());
    }
    if args.logs.is_empty() {
        return Err("import: name one or more log files (or --how for what to turn on)".into());
    }
    let Some(out) = args.out.clone() else {
        return Err("import: --out FILE.msrec is required".into());
    };
    let inputs: Vec<&Path> = args
        .logs
        .iter()
        .chain(&args.component)
        .map(PathBuf::as_path)
        .collect();
    check_outputs(&[("--out", Some(&out))], &inputs)?;
    movescope::support::output::new_recording(&out, args.force)?;
    let (naming, bindings) = naming_for(&args.component, args.class.as_deref())?;
    let job = ImportJob {
        logs: args.logs.clone(),
        naming,
        bindings,
        out: out.clone(),
    };
    let imported = with_progress(|p| to_recording(&job, p))?;
    print_report(&imported, &job, &out);
    Ok(())
}

/// Names for the dumped values from `--component` (none without it), and the component's
/// binding list for the recording.
pub(crate) fn naming_for(
    component: &[PathBuf],
    class: Option<&str>,
) -> Result<(Naming, Vec<movescope::model::binding::Binding>), String> {
    if component.is_empty() {
        return Ok((Naming::none(), Vec::new()));
    }
    let c = names::for_component(component, class).map_err(|e| e.to_string())?;
    for p in &c.problems {
        eprintln!("warning: {p}");
    }
    Ok((c.naming, c.bindings))
}

/// Runs `work` while a progress line is drawn on standard error.
pub(crate) fn with_progress<T, E: std::fmt::Display>(
    work: impl FnOnce(&Progress) -> Result<T, E> + Send,
) -> Result<T, String>
where
    T: Send,
{
    let progress = Progress::default();
    let tty = std::io::stderr().is_terminal();
    let (tx, rx) = crossbeam_channel::bounded::<()>(0);
    let result = std::thread::scope(|s| {
        let p = &progress;
        s.spawn(move || {
            let mut last_tenth = 0;
            while rx.recv_timeout(Duration::from_millis(250))
                == Err(crossbeam_channel::RecvTimeoutError::Timeout)
            {
                let f = p.fraction();
                let mb = p.done.load(Ordering::Relaxed) as f64 / 2e6;
                if tty {
                    eprint!("\rimporting: {:5.1} % ({mb:.0} MB read)", f * 100.0);
                } else if (f * 10.0) as u32 > last_tenth {
                    last_tenth = (f * 10.0) as u32;
                    eprintln!("importing: {:.0} %", f * 100.0);
                }
            }
            if tty {
                eprintln!("\rimporting: 100.0 %                ");
            }
        });
        let r = work(p);
        drop(tx);
        r
    });
    result.map_err(|e| e.to_string())
}

fn print_report(imported: &Imported, job: &ImportJob, out: &Path) {
    let scan = &imported.scan;
    println!(
        "imported {} GMC line(s) of {} ({} in GMC 2.x format, {} in 1.x) into {} records: {}",
        scan.gmc_lines,
        scan.lines,
        scan.v2_lines,
        scan.v1_lines,
        imported.records,
        out.display()
    );
    println!(
        "session time {:.3} s to {:.3} s (GMC's move-time domain)",
        imported.t_first, imported.t_last
    );
    for line in describe_cast(imported) {
        println!("  {line}");
    }
    if job.naming.is_empty() {
        println!("values: as GMC prints them (Type[index]); --component names them");
    } else {
        println!("values named from {}", job.naming.source);
        for (ty, last) in &imported.beyond_table {
            println!(
                "  the log and the component disagree: it prints {ty}[{last}], the component binds {} {ty} value(s) (GMC's or a plugin's own bindings the table does not know, or another version of the component); those values keep GMC's name",
                job.naming.count(
                    movescope::gmclog::values::type_of(ty)
                        .unwrap_or(movescope::model::binding::BoundType::Bool)
                )
            );
        }
    }
    if imported.skipped.total() > 0 {
        println!("not used:");
        for (kind, k) in &imported.skipped.kinds {
            println!(
                "  {} {kind}; first at {}:{}{}",
                k.count,
                k.file.display(),
                k.line,
                if k.example.is_empty() {
                    String::new()
                } else {
                    format!(": {}", k.example)
                }
            );
        }
    }
    if imported.unplaced > 0 {
        println!(
            "  {} line(s) of pawns on no machine the logs name (a proxy of a process whose own pawn never logged)",
            imported.unplaced
        );
    }
    for hint in missing(imported) {
        println!("missing: {hint}");
    }
}

/// Who is who, and how each file's clock was set.
pub(crate) fn describe_cast(imported: &Imported) -> Vec<String> {
    use movescope::gmclog::cast::Part;
    let scan = &imported.scan;
    let mut out = Vec::new();
    for p in &scan.cast.pawns {
        let file = scan.paths.get(p.key.file).map_or(String::new(), |f| {
            f.file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned())
        });
        let who = format!(
            "{} ({}{}) in {file}:{}",
            p.key.actor,
            if p.key.player.is_empty() {
                String::new()
            } else {
                format!("player {}, ", p.key.player)
            },
            p.key
                .net_mode
                .map_or("GMC 1.x".to_string(), |m| format!("{m:?}")),
            p.first_line
        );
        let what = match (p.part, p.client) {
            (Part::Predicting, Some(c)) => format!("client {c}'s predicted pawn"),
            (Part::ServerCopy, Some(c)) => format!("the server's copy of client {c}'s pawn"),
            (Part::ServerLocal, _) => "a pawn the server controls".to_string(),
            (Part::Proxy, _) => format!("a proxy on {}", p.machine),
            _ => "on no machine the logs name (its lines are counted, not used)".to_string(),
        };
        out.push(format!("{who}: {what}"));
    }
    for (i, c) in scan.cast.clocks.iter().enumerate() {
        let how = c.source.describe();
        let file = scan
            .paths
            .get(i)
            .map_or(String::new(), |p| p.display().to_string());
        out.push(format!("clock of {file}: {how}"));
    }
    out
}

/// What the logs lack, with the switch that would give it.
pub(crate) fn missing(imported: &Imported) -> Vec<String> {
    let seen = &imported.scan.seen;
    let mut v = Vec::new();
    if !seen.move_trace {
        v.push(
            "no move trace: moves, deltas, move age and pairing need `gmc.LogClientMoveTrace 1`"
                .to_string(),
        );
    }
    // With LogGMCReplication at Verbose, no validation line means none failed.
    if !seen.validation && !seen.verbose {
        v.push(
            "no validation lines: the deviating value needs `Log LogGMCReplication Verbose`"
                .to_string(),
        );
    }
    if !seen.replayed_count && !seen.iterations {
        v.push("no `Replayed N moves.`: replay depths are counted from the moves the trace shows (`Log LogGMCReplication Verbose` prints them)".to_string());
    }
    if !seen.iterations {
        v.push(
            "no iterations: sub-steps per move need `Log LogGMCMovement VeryVerbose`".to_string(),
        );
    }
    // GMC 1.x's trace lines carry the locations in their columns.
    let v1_columns = seen.move_trace && imported.scan.v1_lines > 0;
    if !(seen.dumps || v1_columns) {
        v.push(
            "no state dumps: the world view has no locations (the move trace's dumps carry them)"
                .to_string(),
        );
    }
    v
}
