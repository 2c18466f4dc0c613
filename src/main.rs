use std::process::ExitCode;

use clap::Parser;

mod bench;
mod cli;

use crate::bench::bench_seconds;
use crate::bench::import::{bench_import, bench_import_server};
use crate::bench::lint::bench_lint;
use crate::bench::live::bench_live;
use crate::bench::participants::bench_participants;
use crate::bench::plots::bench_plots;
use crate::bench::recording::bench_recording;
use crate::bench::soak::bench_soak;
use crate::cli::app::open_app;
use crate::cli::app::{OpenWhat, open_recording};
use crate::cli::args::Cli;
use crate::cli::args::Command;
use crate::cli::explain::doctor;
use crate::cli::explain::lineage;
use crate::cli::explain::whatif;
use crate::cli::import::import;
use crate::cli::inspect::export;
use crate::cli::inspect::inspect;
use crate::cli::inspect::inspect_events;
use crate::cli::inspect::report;
use crate::cli::lint::lint;
use crate::cli::remote::host;
use crate::cli::remote::join;
use crate::cli::run::run;
use crate::cli::trace::trace;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Run(args)) => run(args),
        Some(Command::Host(args)) => host(args),
        Some(Command::Trace {
            file,
            fit,
            preset,
            json,
        }) => trace(&file, fit.as_deref(), preset, json),
        Some(Command::Join(args)) => join(args),
        Some(Command::Bench {
            soak: Some(minutes),
            ..
        }) => bench_seconds("--soak", minutes).and_then(bench_soak),
        Some(Command::Bench {
            lint: Some(lines), ..
        }) => bench_lint(lines),
        Some(Command::Bench {
            import: Some(mb), ..
        }) => bench_import(mb),
        Some(Command::Bench {
            import_server: Some(clients),
            ..
        }) => bench_import_server(clients),
        Some(Command::Bench { live: true, .. }) => bench_live(),
        Some(Command::Bench {
            participants: Some(list),
            ..
        }) => bench_participants(&list),
        Some(Command::Bench {
            plots: true,
            seconds,
            ..
        }) => bench_seconds("--seconds", seconds).and_then(bench_plots),
        Some(Command::Bench {
            recording: true,
            seconds,
            hour_seconds,
            ..
        }) => bench_seconds("--seconds", seconds).and_then(|s| {
            bench_seconds("--hour-seconds", hour_seconds).and_then(|h| bench_recording(s, h))
        }),
        Some(Command::Bench { seconds, .. }) => {
            bench_seconds("--seconds", seconds).and_then(bench::bench)
        }
        Some(Command::Open {
            files,
            component,
            class,
            at,
            screenshot,
            screenshot_after,
            whatif,
        }) => {
            // `movescope --screenshot F open FILE` means the same as `open FILE --screenshot F`
            // (it used to be ignored, and the window never closed).
            let (screenshot, screenshot_after) = match screenshot {
                Some(s) => (Some(s), screenshot_after),
                None => (cli.app.screenshot.clone(), cli.app.screenshot_after),
            };
            let mut component = component;
            component.extend(cli.app.component.iter().cloned());
            open_recording(
                OpenWhat {
                    files,
                    component,
                    class,
                },
                at,
                screenshot,
                screenshot_after,
                whatif,
                cli.app.windows.clone(),
            )
        }
        Some(Command::Inspect {
            file,
            events: true,
            from,
            to,
            machine,
            kinds,
            ..
        }) => inspect_events(&file, from, to, machine.as_deref(), &kinds),
        Some(Command::Inspect {
            file, summary_json, ..
        }) => inspect(&file, summary_json.as_deref()),
        Some(Command::Doctor { file, json, list }) => doctor(&file, json, list),
        Some(Command::Lineage {
            file,
            client,
            move_id,
            at,
            json,
        }) => lineage(&file, client, move_id, at, json),
        Some(Command::Whatif {
            file,
            set,
            summary_json,
            json,
            record,
            force,
        }) => whatif(
            &file,
            &set,
            summary_json.as_deref(),
            json,
            record.as_deref(),
            force,
        ),
        Some(Command::Report {
            file,
            at,
            out,
            no_picture,
            force,
        }) => report(&file, at, &out, no_picture, force),
        Some(Command::Export {
            file,
            from,
            to,
            series,
            out,
        }) => export(&file, from, to, &series, &out),
        Some(Command::Import(args)) => import(args),
        Some(Command::Lint(args)) => return lint(args),
        None => open_app(cli.app),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // An error may quote a file: each line short, control characters escaped.
            let e = movescope::support::text::each_line_shown(&e.to_string(), 600);
            eprintln!("movescope: {e}");
            ExitCode::FAILURE
        }
    }
}
