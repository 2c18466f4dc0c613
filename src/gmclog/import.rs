//! Importing logs: the first pass (who is in them, their clocks), then the second pass that
//! merges the files' lines in session-time order and hands each to the assembler. Neither
//! pass holds a file's text: lines are read into a fixed buffer and forgotten.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::assemble::Assembler;
use super::cast::{Cast, CastBuilder, ClockSource, FileClock, Part};
use super::line::{self, NotALine, Verbosity};
use super::message::{self, Msg};
use super::names::Naming;
use super::reader::{LineReader, Next, sniff};
use crate::model::logged::{LogContents, LogFile, LogKinds};
use crate::model::telemetry::Record;

/// Progress shared with whoever shows it (a terminal bar, the app's), and the way to cancel.
#[derive(Debug, Default)]
pub struct Progress {
    /// Bytes read over both passes, out of `total` (twice the files' size).
    pub done: AtomicU64,
    pub total: AtomicU64,
    pub cancel: AtomicBool,
}

impl Progress {
    pub fn fraction(&self) -> f64 {
        let total = self.total.load(Ordering::Relaxed).max(1);
        (self.done.load(Ordering::Relaxed) as f64 / total as f64).min(1.0)
    }

    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// Why an import stopped.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {what}; movescope reads Unreal's text logs (Saved/Logs/*.log)")]
    NotText { path: PathBuf, what: &'static str },
    #[error(
        "{}: no GMC line in {} line(s): {}",
        path_list(paths),
        lines,
        super::how::ONE_LINE
    )]
    NoGmcLines { paths: Vec<PathBuf>, lines: u64 },
    #[error("cancelled")]
    Cancelled,
}

fn path_list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Lines movescope did not use, by kind: how many, and the first one with where it is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Skipped {
    pub kinds: BTreeMap<&'static str, SkippedKind>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SkippedKind {
    pub count: u64,
    pub file: PathBuf,
    pub line: u64,
    pub example: String,
}

impl Skipped {
    fn add(&mut self, kind: &'static str, file: &Path, line: u64, text: &str) {
        self.add_with(kind, file, line, || text.to_string());
    }

    /// Counts a line; its example is made only for the first of its kind.
    fn add_with(
        &mut self,
        kind: &'static str,
        file: &Path,
        line: u64,
        text: impl FnOnce() -> String,
    ) {
        if let Some(e) = self.kinds.get_mut(kind) {
            e.count += 1;
            return;
        }
        self.kinds.insert(
            kind,
            SkippedKind {
                count: 1,
                file: file.to_path_buf(),
                line,
                example: crate::support::text::shown(&text(), 160),
            },
        );
    }

    pub fn total(&self) -> u64 {
        self.kinds.values().map(|k| k.count).sum()
    }
}

/// Kinds of skipped lines.
pub const OTHER_CATEGORY: &str = "lines of other categories (not GMC's)";
pub const UNKNOWN_GMC: &str = "GMC lines movescope does not know (a newer GMC, a project's own)";
pub const UNUSED_GMC: &str = "GMC lines movescope reads but needs nothing from";
pub const NO_PREFIX: &str = "GMC lines without GMC's actor prefix";
pub const NO_ACTOR: &str = "GMC lines logged without an actor (`| No actor debug info available |`: no pawn to place them on)";
pub const NO_CATEGORY: &str = "lines without a log category (continuations, headers)";
pub const NOT_UTF8: &str = "lines that are not UTF-8 text";
pub const TOO_LONG: &str = "lines longer than 64 KiB";
pub const CUT_OFF: &str = "a last line cut off mid-line (the game was stopped while writing)";

/// What the first pass found.
pub struct Scan {
    pub paths: Vec<PathBuf>,
    pub cast: Cast,
    pub lines: u64,
    pub gmc_lines: u64,
    /// Lines in GMC 2.x and 1.x formats.
    pub v2_lines: u64,
    pub v1_lines: u64,
    /// Which kinds of lines are present (what the log can show).
    pub seen: Seen,
}

/// The kinds of GMC lines present, by the console variable or verbosity that writes them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    pub move_trace: bool,
    pub replay_block: bool,
    pub validation: bool,
    pub replayed_count: bool,
    pub iterations: bool,
    pub world_time: bool,
    pub clock_sync: bool,
    pub smoothing: bool,
    pub forced_updates: bool,
    pub dumps: bool,
    /// Any Verbose or VeryVerbose `LogGMCReplication` line: its verbosity is raised, so the
    /// validation lines would be there had a value failed.
    pub verbose: bool,
    pub executed_counts: bool,
    pub pings: bool,
}

impl Seen {
    fn note(&mut self, msg: &Msg<'_>) {
        match msg {
            Msg::Executed { .. }
            | Msg::Sent { .. }
            | Msg::ServerReceived { .. }
            | Msg::ServerExecuted { .. }
            | Msg::ReplyReceived { .. } => self.move_trace = true,
            Msg::Replay(_) => self.replay_block = true,
            Msg::NotValid { .. } | Msg::FailedValidation { .. } | Msg::SourceNotValid { .. } => {
                self.validation = true
            }
            Msg::Replayed { .. } => self.replayed_count = true,
            Msg::IterationStarted { .. } => self.iterations = true,
            Msg::WorldTime { .. } => self.world_time = true,
            Msg::ClockSynced { .. } | Msg::ClockCorrected { .. } => self.clock_sync = true,
            Msg::Smoothing { .. } | Msg::SmoothingDelay { .. } => self.smoothing = true,
            Msg::ForcedUpdate { .. } => self.forced_updates = true,
            Msg::DumpValue { .. } => self.dumps = true,
            Msg::RemoteMovesThisFrame { .. } => self.executed_counts = true,
            _ => {}
        }
        if matches!(
            msg,
            Msg::WorldTime {
                ping_ms: Some(_),
                ..
            } | Msg::ClockSynced {
                ping_ms: Some(_),
                ..
            }
        ) {
            self.pings = true;
        }
    }

    /// As the recording's evidence says it.
    pub fn kinds(&self) -> LogKinds {
        LogKinds {
            move_trace: self.move_trace,
            dumps: self.dumps,
            validation: self.validation,
            verbose: self.verbose,
            replay_block: self.replay_block,
            replayed_count: self.replayed_count,
            iterations: self.iterations,
            world_time: self.world_time,
            clock_sync: self.clock_sync,
            executed_counts: self.executed_counts,
            pings: self.pings,
        }
    }
}

/// What the whole import did.
pub struct Imported {
    pub scan: Scan,
    pub skipped: Skipped,
    pub records: u64,
    pub t_first: f64,
    pub t_last: f64,
    /// Lines of pawns on no known machine (proxies of a process with no predicting pawn).
    pub unplaced: u64,
    /// Where the component's table and the log disagree: types the log prints more values
    /// of than the table binds (type → highest index printed).
    pub beyond_table: std::collections::BTreeMap<String, u16>,
}

fn open(path: &Path) -> Result<LineReader<File>, ImportError> {
    let read = |source| ImportError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut f = File::open(path).map_err(read)?;
    let mut head = vec![0u8; 64 * 1024];
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]).map_err(read)? {
            0 => break,
            k => n += k,
        }
    }
    sniff(&head[..n]).map_err(|what| ImportError::NotText {
        path: path.to_path_buf(),
        what,
    })?;
    let f = File::open(path).map_err(read)?;
    Ok(LineReader::new(f))
}

/// The first pass over `paths`.
pub fn scan(paths: &[PathBuf], progress: &Progress) -> Result<Scan, ImportError> {
    let total: u64 = paths
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum();
    progress.total.store(total * 2, Ordering::Relaxed);
    let mut b = CastBuilder::default();
    let (mut lines, mut gmc, mut v1, mut v2) = (0, 0, 0, 0);
    let mut seen = Seen::default();
    for (i, path) in paths.iter().enumerate() {
        if progress.cancelled() {
            return Err(ImportError::Cancelled);
        }
        let mut r = open(path)?;
        let mut last_done = 0;
        loop {
            let line_no = r.line_no + 1;
            let next = r.next_line().map_err(|source| ImportError::Read {
                path: path.clone(),
                source,
            })?;
            let text = match next {
                Next::End => break,
                Next::Line(l) => l,
                _ => continue,
            };
            lines += 1;
            let Ok(l) = line::parse(text) else {
                continue;
            };
            let Some(who) = &l.who else {
                if let Some(w) = l.wall {
                    b.wall(i, w);
                }
                continue;
            };
            gmc += 1;
            let msg = message::classify(l.msg);
            match who.net_mode {
                Some(_) => v2 += 1,
                None => v1 += 1,
            }
            seen.note(&msg);
            seen.verbose |= l.category == "LogGMCReplication"
                && matches!(l.verbosity, Verbosity::Verbose | Verbosity::VeryVerbose);
            b.line(i, line_no, l.wall, who, &msg);
            if r.consumed - last_done > (1 << 20) {
                progress
                    .done
                    .fetch_add(r.consumed - last_done, Ordering::Relaxed);
                last_done = r.consumed;
                if progress.cancelled() {
                    return Err(ImportError::Cancelled);
                }
            }
        }
        progress
            .done
            .fetch_add(r.consumed - last_done, Ordering::Relaxed);
    }
    if gmc == 0 {
        return Err(ImportError::NoGmcLines {
            paths: paths.to_vec(),
            lines,
        });
    }
    Ok(Scan {
        paths: paths.to_vec(),
        cast: b.finish(),
        lines,
        gmc_lines: gmc,
        v2_lines: v2,
        v1_lines: v1,
        seen,
    })
}

/// One file in the merge: its reader and its next line, owned.
struct Cursor {
    reader: LineReader<File>,
    clock: FileClock,
    head: Option<Head>,
    last_t: f64,
    done_reported: u64,
}

struct Head {
    t: f64,
    text: String,
    line_no: u64,
    kind: HeadKind,
}

#[derive(Clone, Copy, PartialEq)]
enum HeadKind {
    Line,
    TooLong,
    NotUtf8,
    CutOff,
}

impl Cursor {
    /// Reads the next line into `head` with its session time.
    fn advance(&mut self, path: &Path) -> Result<(), ImportError> {
        let mut text = self.head.take().map(|h| h.text).unwrap_or_default();
        text.clear();
        let next = self
            .reader
            .next_line()
            .map_err(|source| ImportError::Read {
                path: path.to_path_buf(),
                source,
            })?;
        let kind = match next {
            Next::End => return Ok(()),
            Next::Line(l) => {
                text.push_str(l);
                HeadKind::Line
            }
            Next::CutOff(l) => {
                text.push_str(l);
                HeadKind::CutOff
            }
            Next::TooLong => HeadKind::TooLong,
            Next::NotUtf8 => HeadKind::NotUtf8,
        };
        let t = if kind == HeadKind::Line {
            self.time_of(&text)
        } else {
            self.last_t
        };
        self.last_t = t;
        self.head = Some(Head {
            t,
            text,
            line_no: self.reader.line_no,
            kind,
        });
        Ok(())
    }

    /// A line's session time: its wall time on the file's clock, or (no wall time) the last
    /// move time before it.
    fn time_of(&self, text: &str) -> f64 {
        let Ok(l) = line::parse(text) else {
            return self.last_t;
        };
        match (self.clock.offset, l.wall) {
            (Some(off), Some(w)) => w + off,
            (None, _) if l.who.is_some() => match message::classify(l.msg) {
                Msg::Executed { ts, .. }
                | Msg::Sent { ts, .. }
                | Msg::ServerReceived { ts }
                | Msg::ServerExecuted { ts, .. } => ts.secs().max(self.last_t),
                _ => self.last_t,
            },
            _ => self.last_t,
        }
    }
}

/// The second pass: every line in session-time order through the assembler, records to
/// `sink`.
pub fn assemble(
    scan: Scan,
    naming: &Naming,
    progress: &Progress,
    sink: &mut dyn FnMut(Record),
) -> Result<Imported, ImportError> {
    let mut cursors = Vec::new();
    for (i, path) in scan.paths.iter().enumerate() {
        let mut c = Cursor {
            reader: open(path)?,
            clock: scan.cast.clocks.get(i).copied().unwrap_or(FileClock {
                offset: None,
                source: ClockSource::MoveTimes,
            }),
            head: None,
            last_t: 0.0,
            done_reported: 0,
        };
        c.advance(path)?;
        cursors.push(c);
    }
    if progress.cancelled() {
        return Err(ImportError::Cancelled);
    }
    let contents = contents(&scan, naming);
    let mut a = Assembler::new(scan.cast.clone(), naming.clone(), contents);
    let mut skipped = Skipped::default();
    let (mut records, mut t_first, mut t_last) = (0u64, f64::INFINITY, f64::NEG_INFINITY);
    let mut since_check = 0u32;
    while let Some(i) = earliest(&cursors) {
        let head = cursors[i].head.as_ref().map(|h| (h.t, h.line_no, h.kind));
        if let (Some((t, n, kind)), Some(h)) = (head, cursors[i].head.as_ref()) {
            one_line(&mut a, &mut skipped, &scan.paths[i], i, t, n, kind, &h.text);
        }
        for r in a.out.drain(..) {
            t_first = t_first.min(r.t);
            t_last = t_last.max(r.t);
            records += 1;
            sink(r);
        }
        cursors[i].advance(&scan.paths[i])?;
        since_check += 1;
        if since_check >= 4096 {
            since_check = 0;
            report(&mut cursors, progress);
            if progress.cancelled() {
                return Err(ImportError::Cancelled);
            }
        }
    }
    report(&mut cursors, progress);
    let t_end = if t_last.is_finite() { t_last } else { 0.0 };
    a.finish(t_end);
    for r in a.out.drain(..) {
        t_first = t_first.min(r.t);
        t_last = t_last.max(r.t);
        records += 1;
        sink(r);
    }
    Ok(Imported {
        unplaced: a.unplaced,
        beyond_table: std::mem::take(&mut a.beyond_table),
        scan,
        skipped,
        records,
        t_first: if t_first.is_finite() { t_first } else { 0.0 },
        t_last: if t_last.is_finite() { t_last } else { 0.0 },
    })
}

fn report(cursors: &mut [Cursor], progress: &Progress) {
    for c in cursors {
        let now = c.reader.consumed;
        progress
            .done
            .fetch_add(now - c.done_reported, Ordering::Relaxed);
        c.done_reported = now;
    }
}

/// The file whose next line comes first (ties: the earlier file).
fn earliest(cursors: &[Cursor]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, c) in cursors.iter().enumerate() {
        if let Some(h) = &c.head
            && best.is_none_or(|(_, t)| h.t < t)
        {
            best = Some((i, h.t));
        }
    }
    best.map(|(i, _)| i)
}

#[allow(clippy::too_many_arguments)]
fn one_line(
    a: &mut Assembler,
    skipped: &mut Skipped,
    path: &Path,
    file: usize,
    t: f64,
    n: u64,
    kind: HeadKind,
    text: &str,
) {
    match kind {
        HeadKind::TooLong => return skipped.add(TOO_LONG, path, n, ""),
        HeadKind::NotUtf8 => return skipped.add(NOT_UTF8, path, n, ""),
        HeadKind::CutOff => return skipped.add(CUT_OFF, path, n, text),
        HeadKind::Line => {}
    }
    let l = match line::parse(text) {
        Ok(l) => l,
        Err(NotALine::NoCategory) => return skipped.add(NO_CATEGORY, path, n, text),
        Err(NotALine::NoGmcPrefix) => return skipped.add(NO_PREFIX, path, n, text),
    };
    // The example is the line from its category on: the engine's and GMC's prefixes would
    // fill it before the message.
    let from_category = |l: &line::Line<'_>| -> String {
        let verbosity = match l.verbosity {
            line::Verbosity::Log => String::new(),
            v => format!("{v:?}: "),
        };
        format!("{}: {verbosity}{}", l.category, l.msg)
    };
    if !l.category.starts_with("LogGMC") {
        return skipped.add_with(OTHER_CATEGORY, path, n, || from_category(&l));
    }
    if l.who.is_none() {
        return skipped.add_with(NO_ACTOR, path, n, || from_category(&l));
    }
    let msg = message::classify(l.msg);
    match msg {
        Msg::Unknown => skipped.add_with(UNKNOWN_GMC, path, n, || from_category(&l)),
        Msg::Known => skipped.add_with(UNUSED_GMC, path, n, || from_category(&l)),
        _ => {}
    }
    a.place(file, n);
    a.finish_batch_if_open(file, t, &l, &msg);
    a.line(file, t, &l, &msg);
}

/// What the logs hold, as the recording's evidence says it: each file (its GMC generation,
/// whose lines it holds, its clock), the kinds of lines, who logged, the component.
fn contents(scan: &Scan, naming: &Naming) -> LogContents {
    let pawns = &scan.cast.pawns;
    let clients_of = |part: Part, file: Option<usize>| -> Vec<u16> {
        let mut v: Vec<u16> = pawns
            .iter()
            .filter(|p| p.part == part && file.is_none_or(|f| p.key.file == f))
            .filter_map(|p| p.client)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let files = scan
        .paths
        .iter()
        .enumerate()
        .map(|(i, path)| {
            let mine: Vec<&super::cast::Pawn> = pawns.iter().filter(|p| p.key.file == i).collect();
            let gmc = match (
                mine.is_empty(),
                mine.iter().all(|p| p.key.net_mode.is_none()),
            ) {
                (true, _) => 0,
                (false, true) => 1,
                (false, false) => 2,
            };
            LogFile {
                name: path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                ),
                gmc,
                server: mine.iter().any(|p| p.key.on_server()),
                clients: clients_of(Part::Predicting, Some(i)),
                clock: scan
                    .cast
                    .clocks
                    .get(i)
                    .map_or_else(String::new, |c| c.source.describe().to_string()),
            }
        })
        .collect();
    LogContents {
        files,
        kinds: scan.seen.kinds(),
        client_logs: clients_of(Part::Predicting, None),
        server_copies: clients_of(Part::ServerCopy, None),
        component: (!naming.source.is_empty()).then(|| naming.source.clone()),
        code: naming.code.clone(),
    }
}

/// A shared progress for a job.
pub fn progress() -> Arc<Progress> {
    Arc::new(Progress::default())
}
