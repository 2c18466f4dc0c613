//! A game log imported into a `.msrec` recording that every view opens: the header names the
//! machines the logs hold and, with a component, its binding list; mode `imported`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::import::{ImportError, Imported, Progress, assemble, scan};
use super::names::Naming;
use crate::model::binding::Binding;
use crate::model::telemetry::{Event, Machine, Record};
use crate::session::preset::Preset;
use crate::session::recording::{Footer, Header, Recorder, WriteError};
use crate::session::store::describe_participant;

/// The header's mode for a recording made from game logs.
pub const MODE: &str = "imported";

/// Why an import into a recording failed.
#[derive(Debug, thiserror::Error)]
pub enum ToRecordingError {
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// What to import and where.
pub struct ImportJob {
    pub logs: Vec<PathBuf>,
    pub naming: Naming,
    /// The component's own binding list, for the header (empty without a component).
    pub bindings: Vec<Binding>,
    pub out: PathBuf,
}

/// Imports `job.logs` into `job.out`. The recording grows in a sibling file and is renamed
/// into place when complete: a failed or cancelled import leaves nothing behind, and an
/// existing file is replaced only by a complete new one.
pub fn to_recording(job: &ImportJob, progress: &Progress) -> Result<Imported, ToRecordingError> {
    let started = Instant::now();
    let scanned = scan(&job.logs, progress)?;
    let header = header(&job.logs, &scanned.cast, &job.bindings);
    let temp = partial_path(&job.out);
    let _ = std::fs::remove_file(&temp);
    let mut rec = Recorder::create(&temp, &header)?;
    let mut write_error = None;
    let names: Vec<(u16, String)> = scanned.cast.clients.clone();
    let t0 = scanned.cast.t_start;
    for (id, name) in names.iter().filter(|(_, n)| !n.is_empty()) {
        let what = describe_participant(*id, Some(name));
        let r = Record {
            t: t0,
            machine: Machine::Server,
            event: Event::SessionChanged { what },
        };
        if let Err(e) = rec.push(&r) {
            write_error.get_or_insert(e);
        }
    }
    let result = assemble(scanned, &job.naming, progress, &mut |r| {
        if write_error.is_none()
            && let Err(e) = rec.push(&r)
        {
            write_error = Some(e);
        }
    });
    let finish = |rec: Recorder, imported: &Imported| {
        rec.finish(Footer {
            simulated_seconds: imported.t_last,
            wall_seconds: started.elapsed().as_secs_f64(),
            dropped_records: 0,
        })
    };
    let outcome = match (result, write_error) {
        (Ok(imported), None) => finish(rec, &imported)
            .map(|_| imported)
            .map_err(ToRecordingError::from),
        (Err(e), _) => Err(e.into()),
        (Ok(_), Some(e)) => Err(e.into()),
    };
    match outcome {
        Ok(imported) => match std::fs::rename(&temp, &job.out) {
            Ok(()) => Ok(imported),
            Err(source) => {
                let _ = std::fs::remove_file(&temp);
                Err(WriteError::Io {
                    path: job.out.clone(),
                    source,
                }
                .into())
            }
        },
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            Err(e)
        }
    }
}

/// Whether `path` is a game log rather than a recording: its start is not a recording's
/// first line, and it names itself a log (`.log`, `.txt`) or its first line reads as an
/// Unreal log line.
pub fn is_game_log(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 512];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    let head = &head[..n];
    if head.starts_with(b"MOVESCOPE-RECORDING") {
        return false;
    }
    let named = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("log") || e.eq_ignore_ascii_case("txt"));
    let head = head.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(head);
    let first = head.split(|b| *b == b'\n').next().unwrap_or(&[]);
    let reads = std::str::from_utf8(first)
        .ok()
        .is_some_and(|l| super::line::parse(l.trim_end()).is_ok());
    named || reads
}

/// Where a game's logs opened in the app are imported to: the system's temporary folder,
/// named by the first log (and how many more) and the time.
pub fn imported_path(logs: &[PathBuf]) -> PathBuf {
    let stem = logs
        .first()
        .and_then(|l| l.file_stem())
        .map_or_else(|| "game-log".into(), |s| s.to_string_lossy().into_owned());
    let more = match logs.len() {
        0 | 1 => String::new(),
        n => format!("-and-{}-more", n - 1),
    };
    std::env::temp_dir().join(format!(
        "movescope-{stem}{more}-{}.msrec",
        crate::support::stamp::now_utc()
    ))
}

/// Why paths named to open cannot be read as a game's logs.
#[derive(Debug, thiserror::Error)]
pub enum LogsError {
    #[error("{path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{folder}: no .log file in this folder (a game's logs are in Saved/Logs)")]
    NoLogs { folder: PathBuf },
    #[error("{path}: not a game log; open several files together only when all are logs")]
    NotALog { path: PathBuf },
}

/// Whether `paths` open as a game's logs: several paths, a folder, or a game log.
pub fn opens_as_logs(paths: &[PathBuf]) -> bool {
    paths.len() > 1 || paths.iter().any(|p| p.is_dir() || is_game_log(p))
}

/// The logs `paths` name, in order: files as given, folders as the `.log` files they hold
/// (sorted by name). Refused: a folder without logs, a file that is not a log.
pub fn game_logs(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LogsError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut logs: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|source| LogsError::Read {
                    path: p.clone(),
                    source,
                })?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.is_file()
                        && f.extension()
                            .and_then(|e| e.to_str())
                            .is_some_and(|e| e.eq_ignore_ascii_case("log"))
                })
                .collect();
            if logs.is_empty() {
                return Err(LogsError::NoLogs { folder: p.clone() });
            }
            logs.sort();
            out.extend(logs);
        } else if !p.exists() {
            return Err(LogsError::Read {
                path: p.clone(),
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            });
        } else if is_game_log(p) {
            out.push(p.clone());
        } else {
            return Err(LogsError::NotALog { path: p.clone() });
        }
    }
    Ok(out)
}

/// Where the recording grows until it is complete.
pub fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".importing");
    out.with_file_name(name)
}

fn header(logs: &[PathBuf], cast: &super::cast::Cast, bindings: &[Binding]) -> Header {
    let mut preset = Preset::builtin_default();
    preset.clients = cast.clients.len() as u16;
    preset.ai_pawns = 0;
    preset.lesson = None;
    let names: Vec<String> = logs
        .iter()
        .map(|p| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect();
    preset.title = format!("Game log: {}", names.join(" + "));
    preset.description = format!(
        "Imported from GMC's Unreal log ({}): moves, corrections and values as the game logged them. The settings panes show movescope's defaults: a log does not say what the game ran with (docs/gmc-logs.md).",
        names.join(", ")
    );
    let mut machines = vec![Machine::Server];
    machines.extend(cast.clients.iter().map(|(id, _)| Machine::Client(*id)));
    Header {
        format: crate::session::recording::FORMAT_VERSION,
        app_version: env!("CARGO_PKG_VERSION").to_string(),
        mode: MODE.to_string(),
        preset_name: format!("game log {}", names.join(" + ")),
        seed: 0,
        started_unix_ms: 0,
        machines,
        bindings: bindings.to_vec(),
        cursor: None,
        t_start: cast.t_start,
        preset,
    }
}
