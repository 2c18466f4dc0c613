//! The app commands: no command (the app with a live session) and `open` (a recording).

use std::path::PathBuf;

use crate::cli::args::AppArgs;
use crate::cli::args::RunArgs;
use crate::cli::check_outputs;
use crate::cli::check_windows;
use crate::cli::load_preset;
use crate::cli::open_recording_file;
use movescope::app::{AppOptions, Source};
use movescope::session::preset::Preset;

/// The app on a hosted or joined session.
pub(crate) fn app_for(
    args: AppArgs,
    preset: Preset,
    name: String,
    source: Source,
) -> Result<(), String> {
    check_windows(&args.windows)?;
    movescope::app::run(from_args(args, preset, name, source))
}

/// The app's options for `source`, as a command without app flags starts it (the layout of
/// the last run restored and saved).
fn options(preset: Preset, preset_name: String, source: Source) -> AppOptions {
    AppOptions {
        preset,
        preset_name,
        screenshot: None,
        source,
        record: None,
        record_force: false,
        retention: None,
        windows: Vec::new(),
        persist: true,
        whatif: Vec::new(),
        reopened: false,
        answer: None,
        walk: None,
        offer_basics: false,
        component: Vec::new(),
    }
}

fn screenshot(path: Option<PathBuf>, after: f64) -> Option<movescope::app::ScreenshotPlan> {
    path.map(|path| movescope::app::ScreenshotPlan { path, after })
}

/// The app's options from its flags (`--screenshot`, `--record`, `--retention`, `--window`).
fn from_args(args: AppArgs, preset: Preset, name: String, source: Source) -> AppOptions {
    AppOptions {
        screenshot: screenshot(args.screenshot, args.screenshot_after),
        record: args.record,
        record_force: args.force,
        retention: (args.retention > 0.0).then_some(args.retention),
        windows: args.windows,
        component: args.component,
        ..options(preset, name, source)
    }
}

pub(crate) fn open_app(args: AppArgs) -> Result<(), String> {
    // Without --preset the app opens the preset used last, if it still loads (never a
    // lesson's scenario: those are not remembered); the top bar says so.
    let last = if args.preset.is_none() {
        movescope::app::layout::UiState::load()
            .and_then(|s| s.last_preset)
            .filter(|p| Preset::find(p).is_ok_and(|(p, _)| p.lesson.is_none()))
            .map(PathBuf::from)
    } else {
        None
    };
    if let Some(p) = &last {
        eprintln!(
            "movescope: opening {}, the preset used last (--preset default for the default)",
            p.display()
        );
    }
    let reopened = last.is_some();
    let used = args.preset.clone().or(last);
    let inputs = crate::cli::preset_inputs(used.as_deref(), &args.set);
    let (preset, name) = load_preset(&RunArgs {
        preset: used,
        set: args.set.clone(),
        ..RunArgs::default()
    })?;
    if !(args.retention >= 0.0 && args.retention.is_finite()) {
        return Err(format!(
            "--retention: expected seconds ≥ 0, got {}",
            args.retention
        ));
    }
    if !(args.screenshot_after >= 0.0 && args.screenshot_after.is_finite()) {
        return Err(format!(
            "--screenshot-after: expected seconds ≥ 0, got {}",
            args.screenshot_after
        ));
    }
    check_windows(&args.windows)?;
    if let Some(k) = args.answer {
        let choices = preset
            .lesson
            .as_ref()
            .and_then(|l| l.steps.first())
            .filter(|st| st.question.is_some())
            .map(|st| st.choices.len());
        match choices {
            None => {
                return Err(format!(
                    "--answer: the preset {name} is not a lesson whose first step asks a question"
                ));
            }
            Some(n) if k == 0 || k > n => {
                return Err(format!(
                    "--answer: expected a choice from 1 to {n}, got {k}"
                ));
            }
            Some(_) => {}
        }
    }
    check_outputs(
        &[
            ("--screenshot", args.screenshot.as_deref()),
            ("--record", args.record.as_deref()),
        ],
        &inputs.iter().map(|p| p.as_path()).collect::<Vec<_>>(),
    )?;
    if let Some(r) = &args.record {
        movescope::support::output::new_recording(r, args.force)?;
    }
    if let Some(w) = args.walk {
        if !w.is_finite() || w < 1.0 {
            return Err(format!("--walk: expected seconds ≥ 1, got {w}"));
        }
        if preset.lesson.is_none() {
            return Err(format!("--walk: the preset {name} is not a lesson"));
        }
    }
    let (answer, walk) = (args.answer, args.walk);
    movescope::app::run(AppOptions {
        reopened,
        answer,
        walk,
        ..from_args(args, preset, name, Source::Live)
    })
}

/// What `movescope open` names: a recording, or a game's logs (files or a folder) with the
/// component that names their values.
pub(crate) struct OpenWhat {
    pub(crate) files: Vec<PathBuf>,
    pub(crate) component: Vec<PathBuf>,
    pub(crate) class: Option<String>,
}

pub(crate) fn open_recording(
    what: OpenWhat,
    at: Option<f64>,
    screenshot: Option<PathBuf>,
    screenshot_after: f64,
    whatif: Vec<String>,
    windows: Vec<String>,
) -> Result<(), String> {
    check_windows(&windows)?;
    let inputs: Vec<&std::path::Path> = what.files.iter().map(PathBuf::as_path).collect();
    check_outputs(&[("--screenshot", screenshot.as_deref())], &inputs)?;
    let file = if movescope::gmclog::record::opens_as_logs(&what.files) {
        import_for_opening(&what)?
    } else {
        what.files
            .first()
            .cloned()
            .ok_or("open: name a recording or a game's logs")?
    };
    let rec = open_recording_file(&file)?;
    let preset = rec.header.preset.clone();
    let name = rec.header.preset_name.clone();
    movescope::app::run(AppOptions {
        screenshot: self::screenshot(screenshot, screenshot_after),
        windows,
        whatif,
        ..options(preset, name, Source::Recording { path: file, at })
    })
}

/// `open game.log …` (or a folder): the logs imported together first (progress on the
/// terminal) into the temporary folder, their values named by `--component` when given.
fn import_for_opening(what: &OpenWhat) -> Result<PathBuf, String> {
    use movescope::gmclog::record::{ImportJob, game_logs, imported_path, to_recording};
    let logs = game_logs(&what.files).map_err(|e| e.to_string())?;
    let (naming, bindings) =
        crate::cli::import::naming_for(&what.component, what.class.as_deref())?;
    let job = ImportJob {
        out: imported_path(&logs),
        logs,
        naming,
        bindings,
    };
    let imported = crate::cli::import::with_progress(|p| to_recording(&job, p))?;
    eprintln!(
        "imported {} GMC line(s) of {} log(s) into {}",
        imported.scan.gmc_lines,
        job.logs.len(),
        job.out.display()
    );
    for hint in crate::cli::import::missing(&imported) {
        eprintln!("missing: {hint}");
    }
    Ok(job.out)
}
