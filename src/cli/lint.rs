//! `movescope lint PATH...`: checks GMC components' C++ and prints the findings and binding
//! tables (docs/lint.md). Exit 1 when a warning or an error is found, 0 when clean, 2 when
//! nothing could be read.

use std::io::Write;
use std::process::ExitCode;

use crate::cli::args::{LintArgs, LintFormat};
use movescope::analysis::lint::{self, Rates, render};
use movescope::session::preset::Preset;

pub(crate) fn lint(args: LintArgs) -> ExitCode {
    match run(&args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // An error may quote a file: each line short, control characters escaped.
            let e = movescope::support::text::each_line_shown(&e.to_string(), 600);
            eprintln!("movescope: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &LintArgs) -> Result<u8, String> {
    let mut preset = match &args.preset {
        Some(p) => {
            Preset::find(&p.display().to_string())
                .map_err(|e| e.to_string())?
                .0
        }
        None => Preset::builtin_default(),
    };
    for kv in &args.set {
        preset.set(kv).map_err(|e| e.to_string())?;
    }
    if args.paths.is_empty() {
        return Err("lint: name at least one file or folder (.h, .hpp, .cpp)".into());
    }
    let report = lint::lint_paths(&args.paths, Rates::of(&preset));
    let out = match args.format {
        LintFormat::Text => render::text(&report, !args.no_tables),
        LintFormat::Json => pretty(&render::json(&report))?,
        LintFormat::Sarif => pretty(&render::sarif(&report))?,
    };
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(out.as_bytes())
        .and_then(|_| stdout.flush())
        .map_err(|e| format!("cannot write the report: {e}"))?;
    if args.format != LintFormat::Text {
        for p in &report.problems {
            eprintln!("{}: error: {}", p.path.display(), p.problem);
        }
    }
    Ok(report.exit_code() as u8)
}

fn pretty(v: &serde_json::Value) -> Result<String, String> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| format!("cannot write the report: {e}"))
}
