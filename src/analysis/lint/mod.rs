//! `movescope lint`: checks a GMC component's C++ against the rules of the source document's
//! checklist, lists its binding table with the bits each value takes on the wire, and names the
//! lesson that shows each mistake. See docs/lint.md.
//!
//! Pipeline: [`source`] reads files and blanks Unreal macros (same lines and columns) →
//! [`syntax`] parses with tree-sitter's C++ grammar and extracts classes and function bodies as
//! events → [`program`] finds the components, their bindings and their prediction paths →
//! [`rules`] finds what breaks a rule → [`render`] prints text, JSON or SARIF.
//!
//! Invariants: no input makes it panic or loop without end (files are size-capped, the parse
//! has a time budget, every walk is iterative or depth-capped); findings come out in file, line,
//! column order; the bits per value are the wire model's own (`BoundType::nominal_bits`).

mod bind_calls;
mod binding_checks;
mod body;
mod carry;
mod ctx;
pub mod gmc;
pub mod guard;
mod headers;
mod inferred;
pub mod magnitude;
mod nodes;
mod prediction_checks;
pub mod program;
pub mod render;
pub mod rules;
pub mod run;
mod scale;
mod settled;
mod shadow;
pub mod source;
pub mod syntax;
pub mod table;
mod through;
mod units;
pub mod writes;

use std::collections::HashSet;
use std::path::PathBuf;

use crate::model::binding::{Binding, BoundType, CombineMode, PredictionMode, SimulationMode};
use crate::model::messages::{ClientMsg, HEADER_BYTES, WireMove, moves_frame_bits};
use crate::model::pawn::PawnValues;
use crate::session::preset::Preset;

pub use program::BindingRow;
pub use rules::{Finding, RULES, Rule, Severity};
pub use source::{ReadProblem, SourceFile};

/// The rates the bandwidth totals assume (from the preset).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rates {
    pub client_fps: f64,
    pub client_send_rate: f64,
    pub net_update_rate: f64,
    /// The delta up to which frames combine into one move (MaxCombinedDeltaTime).
    pub combine_limit: f64,
    /// Seconds between the client's pings (movescope's round-trip probe; a session sends
    /// them besides the moves).
    pub ping_interval: f64,
}

impl Rates {
    pub fn of(p: &Preset) -> Rates {
        Rates {
            client_fps: p.client_fps,
            client_send_rate: p.gmc.client_send_rate,
            net_update_rate: p.net_update_rate,
            combine_limit: p.gmc.combine_limit(),
            ping_interval: p.gmc.ping_interval,
        }
    }
}

/// The wire totals of one component's bindings.
#[derive(Clone, Debug, PartialEq)]
pub struct Totals {
    /// Bits of the bound values in each move the client sends (server-validated and
    /// client-authoritative values).
    pub move_bits: u32,
    /// Bits of the values the server sends with each state for the client to check
    /// (client-validated values).
    pub state_bits: u32,
    /// Bits of the values each update to a simulated proxy carries (SimulationMode not None).
    pub proxy_bits: u32,
    /// Frames per move and moves per second the client bandwidth assumes (inputs that allow
    /// combining, at the preset's frame rate).
    pub frames_per_move: u32,
    /// The input bound NeverCombine that makes every frame a move of its own, if any.
    pub never_combined_by: Option<String>,
    pub moves_per_s: f64,
    /// Client → server bytes per second of the moves (datagram headers and move framing
    /// included).
    pub client_bytes_per_s: f64,
    /// Client → server bytes per second of a session's pings (not GMC's: movescope's probe).
    pub ping_bytes_per_s: f64,
    /// Server → proxies bytes per second per proxy: its entry in each state update.
    pub proxy_bytes_per_s: f64,
    /// Bindings left out because a mode could not be read.
    pub unknown: usize,
    /// Bindings made in a loop, left out: each is one row for a count the lint cannot know.
    pub looped: usize,
    pub rates: Rates,
}

/// A component as the report shows it.
#[derive(Debug, Clone)]
pub struct ComponentReport {
    pub class: String,
    pub file: PathBuf,
    pub line: u32,
    pub through_pointer: bool,
    pub bindings: Vec<BindingRow>,
    /// The GMC class it derives from and where that class's bindings fall in `bindings`
    /// (`Program`'s `Component::gmc_parent`).
    pub gmc_parent: Option<(String, usize)>,
    pub totals: Totals,
    /// Where it writes its members (on the prediction path or not), for the desync doctor.
    pub writes: Vec<writes::MemberWrite>,
}

/// A file that could not be linted.
#[derive(Debug, Clone)]
pub struct FileProblem {
    pub path: PathBuf,
    pub problem: ReadProblem,
}

/// Everything a lint run found.
#[derive(Debug)]
pub struct LintReport {
    pub files: Vec<SourceFile>,
    pub components: Vec<ComponentReport>,
    /// Sorted by file, line, column; `allow` comments applied.
    pub findings: Vec<Finding>,
    pub problems: Vec<FileProblem>,
    /// Lines read in all.
    pub lines: usize,
    /// Findings an `allow` comment silenced.
    pub silenced: usize,
}

impl LintReport {
    /// 2 when nothing could be read, 1 when a warning or an error was found, 0 otherwise.
    pub fn exit_code(&self) -> i32 {
        if self.files.is_empty() {
            2
        } else if self.findings.iter().any(|f| f.severity != Severity::Note) {
            1
        } else {
            0
        }
    }

    pub fn count(&self, s: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == s).count()
    }
}

/// Lints the files and folders named.
pub fn lint_paths(paths: &[PathBuf], rates: Rates) -> LintReport {
    let (mut names, mut problems) = source::collect(paths);
    names.extend(headers::companions(&names));
    let mut files = Vec::new();
    for p in names {
        match source::read(&p) {
            Ok(f) => files.push(f),
            Err(problem) => problems.push((p, problem)),
        }
    }
    let mut report = lint_sources(files, rates);
    let mut read: Vec<FileProblem> = problems
        .into_iter()
        .map(|(path, problem)| FileProblem { path, problem })
        .collect();
    read.append(&mut report.problems);
    report.problems = read;
    report
}

/// The source files of headers named alone (`MyCmp.h` → `MyCmp.cpp` beside it, or in the
/// module's `Private` folder): a component's binds are usually in its `.cpp`.
pub fn sources_of_headers(paths: &[PathBuf]) -> Vec<PathBuf> {
    headers::sources_of(paths)
}

/// Lints files already read.
pub fn lint_sources(files: Vec<SourceFile>, rates: Rates) -> LintReport {
    let mut problems = Vec::new();
    let mut kept = Vec::new();
    let mut syn = Vec::new();
    let parsed = parse_all(&files);
    for (f, r) in files.into_iter().zip(parsed) {
        match r {
            Ok(mut s) => {
                for x in &mut s.funcs {
                    x.file = kept.len();
                }
                for x in &mut s.classes {
                    x.file = kept.len();
                }
                syn.push(s);
                kept.push(f);
            }
            Err(problem) => problems.push(FileProblem {
                path: f.path.clone(),
                problem,
            }),
        }
    }
    let paths: Vec<PathBuf> = kept.iter().map(|f| f.path.clone()).collect();
    units::separate(&mut syn, &paths);
    let rpcs: HashSet<String> = kept.iter().flat_map(|f| f.rpcs.iter().cloned()).collect();
    let mut prog = program::Program::new(syn, rpcs);
    prog.file_names = kept
        .iter()
        .map(|f| {
            f.path.file_name().map_or_else(
                || f.path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect();
    let mut comps = prog.components();
    for c in &mut comps {
        magnitude::decide(&prog, &c.class, &mut c.bindings);
    }
    let mut findings = rules::check(&prog, &comps);
    let before = findings.len();
    findings.retain(|f| !allowed(&kept, &prog, f));
    let silenced = before - findings.len();
    findings.sort_by(|a, b| {
        (a.file, a.pos.line, a.pos.col, a.rule.id).cmp(&(b.file, b.pos.line, b.pos.col, b.rule.id))
    });
    findings.dedup_by(|a, b| a.file == b.file && a.pos == b.pos && a.rule.id == b.rule.id);
    let components = comps
        .iter()
        .filter(|c| {
            !c.bindings.is_empty()
                || !c.bind_funcs.is_empty()
                || !prog.prediction_path(&c.class).is_empty()
                || !prog.path_of(&c.class, gmc::SYNC_APPLIED).is_empty()
        })
        .map(|c| ComponentReport {
            class: c.class.clone(),
            file: kept.get(c.file).map(|f| f.path.clone()).unwrap_or_default(),
            line: c.pos.line,
            through_pointer: c.through_pointer,
            gmc_parent: c.gmc_parent.clone(),
            totals: totals(&c.bindings, rates),
            bindings: c.bindings.clone(),
            writes: writes::member_writes(&prog, c, &kept),
        })
        .collect();
    let lines = kept.iter().map(|f| f.text.lines().count()).sum();
    LintReport {
        files: kept,
        components,
        findings,
        problems,
        lines,
        silenced,
    }
}

/// Parses every file, on as many threads as the machine has cores (each with its own parser),
/// results in file order. A thread that stops reports its files as not parsed.
fn parse_all(files: &[SourceFile]) -> Vec<Result<syntax::FileSyntax, ReadProblem>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8)
        .min(files.len().max(1));
    let next = AtomicUsize::new(0);
    let mut out: Vec<Option<Result<syntax::FileSyntax, ReadProblem>>> =
        (0..files.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    let mut parser = syntax::cpp_parser();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(f) = files.get(i) else { break };
                        let r = match &mut parser {
                            Ok(p) => syntax::analyse(p, i, f),
                            Err(e) => Err(e.clone()),
                        };
                        mine.push((i, r));
                    }
                    mine
                })
            })
            .collect();
        for h in handles {
            if let Ok(done) = h.join() {
                for (i, r) in done {
                    out[i] = Some(r);
                }
            }
        }
    });
    out.into_iter()
        .map(|r| r.unwrap_or_else(|| Err(ReadProblem::Parse("the parser thread stopped".into()))))
        .collect()
}

/// `// movescope: allow(rule-id)` on the finding's line, the line above it, or in the comment
/// block right above the function it is in. Several ids may be listed, comma-separated.
fn allowed(files: &[SourceFile], prog: &program::Program, f: &Finding) -> bool {
    let Some(src) = files.get(f.file) else {
        return false;
    };
    let allows = |line: u32| allows_rule(src.line(line as usize), f.rule.id);
    if allows(f.pos.line) || (f.pos.line > 1 && allows(f.pos.line - 1)) {
        return true;
    }
    let Some(func) = f.func.and_then(|i| prog.funcs.get(i)) else {
        return false;
    };
    if func.file != f.file {
        return false;
    }
    let mut line = func.first_line;
    while line > 1 {
        line -= 1;
        let text = src.line(line as usize).trim();
        let comment = text.starts_with("//") || text.starts_with("/*") || text.starts_with('*');
        if !comment {
            return false;
        }
        if allows_rule(text, f.rule.id) {
            return true;
        }
    }
    false
}

fn allows_rule(line: &str, id: &str) -> bool {
    let Some(at) = line.find("movescope: allow(") else {
        return false;
    };
    let rest = &line[at + "movescope: allow(".len()..];
    let list = rest.split(')').next().unwrap_or("");
    list.split(',').any(|x| x.trim() == id)
}

/// Wire totals of a binding list at `rates`; bindings made in a loop are left out and
/// counted apart ([`Totals::looped`]).
pub fn totals(rows: &[BindingRow], rates: Rates) -> Totals {
    totals_of(
        rows.iter().map(|b| WireRow {
            ty: b.ty,
            prediction: b.prediction.value(),
            simulation: b.simulation.value(),
            bits: row_bits(b),
            combine: b.combine.value(),
            name: b.member_name(),
            looped: b.in_loop,
        }),
        rates,
    )
}

/// Wire totals of a session's binding list at `rates`: what a session running it should
/// send (built-ins included when the list has them).
pub fn binding_totals(list: &[Binding], rates: Rates) -> Totals {
    totals_of(
        list.iter().map(|b| {
            let p = Some(b.prediction);
            WireRow {
                ty: b.ty,
                prediction: p,
                simulation: Some(b.simulation),
                bits: session_bits(b),
                combine: Some(b.combine),
                name: &b.name,
                looped: false,
            }
        }),
        rates,
    )
}

/// The wire totals of what GMC binds itself on every pawn and no component's table lists:
/// location, rotation, scale, the linear and angular velocities and the control rotation,
/// with GMC's default modes (movescope's demo pawn binds them so).
pub fn built_in_totals(rates: Rates) -> Totals {
    use crate::model::pawn::Field;
    let list: Vec<Binding> =
        crate::model::pawn::default_bindings(&crate::model::settings::Faults::default())
            .into_iter()
            .filter(|b| b.field != Field::InputMove)
            .filter(|b| crate::session::imported::BUILT_INS.contains(&b.field))
            .collect();
    binding_totals(&list, rates)
}

/// The bits a session's bound value is costed at: GMC's built-ins by what they measure
/// (scale a unit, the rotations angles, location and the velocities magnitudes), the others
/// as [`is_axis`] says.
fn session_bits(b: &Binding) -> u32 {
    use crate::model::pawn::Field;
    use magnitude::Scale;
    let scale = match b.field {
        Field::Scale => Some(Scale::Unit),
        Field::Rotation | Field::ControlRotation => Some(Scale::Angle),
        Field::Location | Field::Velocity | Field::AngularVelocity => Some(Scale::Magnitude),
        _ => None,
    };
    match scale {
        Some(s) => magnitude::bits(b.ty, s),
        None => {
            b.ty.nominal_bits_as(is_axis(b.ty, Some(b.prediction), &b.name))
        }
    }
}

/// One bound value as the wire totals count it; a mode that could not be read is `None`.
struct WireRow<'a> {
    ty: BoundType,
    prediction: Option<PredictionMode>,
    simulation: Option<SimulationMode>,
    /// Its bits on the wire.
    bits: u32,
    combine: Option<CombineMode>,
    name: &'a str,
    /// Made in a loop: its count is unknown, so it is not counted.
    looped: bool,
}

impl WireRow<'_> {
    /// An input bound NeverCombine: every frame becomes its own move.
    fn never_combines(&self) -> bool {
        self.prediction.is_some_and(PredictionMode::is_input)
            && self.combine.map(|c| c.resolve(self.ty)) == Some(CombineMode::NeverCombine)
    }
}

/// Wire totals of the bound values; a value whose mode could not be read is left out and
/// counted as unknown.
fn totals_of<'a>(rows: impl Iterator<Item = WireRow<'a>>, rates: Rates) -> Totals {
    let mut move_bits = 0;
    let mut state_bits = 0;
    let mut proxy_bits = 0;
    let mut unknown = 0;
    let mut looped = 0;
    let mut never_combined_by = None;
    for row in rows {
        let bits = row.bits;
        if never_combined_by.is_none() && row.never_combines() {
            never_combined_by = Some(row.name.to_string());
        }
        if row.looped {
            looped += 1;
            continue;
        }
        let (Some(p), Some(s)) = (row.prediction, row.simulation) else {
            unknown += 1;
            continue;
        };
        if p.client_sends() {
            move_bits += bits;
        }
        if p.is_client_validated() {
            state_bits += bits;
        }
        if s != SimulationMode::None && p != PredictionMode::Local {
            proxy_bits += bits;
        }
    }
    let fps = rates.client_fps.max(1e-3);
    // Frames merge into a move while every input allows it (up to MaxCombinedDeltaTime); an
    // input bound NeverCombine makes every frame a move of its own.
    let frames_per_move = if never_combined_by.is_some() {
        1
    } else {
        ((rates.combine_limit * fps + 1e-6).floor() as u32).max(1)
    };
    let moves_per_s = fps / f64::from(frames_per_move);
    let sends_per_s = rates.client_send_rate.min(moves_per_s).max(0.0);
    let client_bytes_per_s = client_bytes_at(move_bits, moves_per_s, sends_per_s);
    // One proxy's entry: pawn id (16), forced flag (1), its values.
    let proxy_bytes_per_s = rates.net_update_rate * f64::from(17 + proxy_bits) / 8.0;
    let ping = ClientMsg::Ping {
        seq: 0,
        client_time: 0.0,
    };
    let ping_bytes_per_s = if rates.ping_interval > 0.0 {
        ping.fixed_bytes().unwrap_or(0) as f64 / rates.ping_interval
    } else {
        0.0
    };
    Totals {
        move_bits,
        state_bits,
        proxy_bits,
        frames_per_move,
        never_combined_by,
        moves_per_s,
        client_bytes_per_s,
        ping_bytes_per_s,
        proxy_bytes_per_s,
        unknown,
        looped,
        rates,
    }
}

/// Client → server bytes per second of moves carrying `move_bits` of values each, at
/// `moves_per_s` moves in `datagrams_per_s` datagrams (datagram headers and move framing
/// included; the timestamps evenly spaced). A fractional number of moves per datagram mixes
/// the two whole batch sizes around it so the mean is that number. The table uses it at the
/// preset's nominal rates; a running session at the rates it measures (its frames do not
/// combine as evenly as the nominal frame rate assumes).
pub fn client_bytes_at(move_bits: u32, moves_per_s: f64, datagrams_per_s: f64) -> f64 {
    if !(moves_per_s > 0.0 && datagrams_per_s > 0.0) {
        return 0.0;
    }
    let per = (moves_per_s / datagrams_per_s).max(1.0);
    let step = 1.0 / moves_per_s;
    let batch_bytes = |n: usize| -> f64 {
        let moves: Vec<WireMove> = (0..n)
            .map(|i| WireMove {
                id: i as u32,
                timestamp: ((i as f64 + 1.0) * step * 1e5).round() / 1e5,
                delta: (step * 1e5).round() / 1e5,
                input: PawnValues::default(),
                output: PawnValues::default(),
            })
            .collect();
        let bits = moves_frame_bits(&moves) + n * move_bits as usize;
        (HEADER_BYTES + bits.div_ceil(8)) as f64
    };
    let lo = per.floor();
    let frac = per - lo;
    let lo = lo as usize;
    let mean = if frac < 1e-9 {
        batch_bytes(lo)
    } else {
        (1.0 - frac) * batch_bytes(lo) + frac * batch_bytes(lo + 1)
    };
    // Moves per datagram fixed: the datagram rate is the moves' rate over it.
    moves_per_s / per * mean
}

/// The bits the table states for a binding (one of them, for a binding made in a loop): the
/// wire model's size of a value of its type at its scale — a unit direction or stick, an
/// angle, a magnitude — decided from its type and what is written to it
/// ([`magnitude`], docs/lint.md).
pub fn row_bits(b: &BindingRow) -> u32 {
    magnitude::bits(b.ty, row_measure(b).scale)
}

/// The scale of a binding's value and what decided it (docs/lint.md).
pub fn row_measure(b: &BindingRow) -> magnitude::Measure {
    b.scale
        .unwrap_or_else(|| magnitude::unwritten(b.ty, b.prediction.value(), b.member_name()))
}

/// Whether a session's bound value is costed as an input axis (1 per component), as movescope
/// drives a session's values (it has no source to read): an input float or 2D vector, or an
/// input vector named as a direction (`InputVector`, `MoveDirection`, `Axis`…); a rotator is
/// angles, another input vector a position or a velocity. The lint's own table decides from
/// the source instead ([`row_bits`]).
fn is_axis(ty: BoundType, p: Option<PredictionMode>, name: &str) -> bool {
    if !p.is_some_and(PredictionMode::is_input) {
        return false;
    }
    match ty {
        BoundType::CompressedRotator => false,
        BoundType::CompressedVector => {
            let n = name.to_ascii_lowercase();
            ["input", "direction", "dir", "axis", "stick", "move"]
                .iter()
                .any(|w| n.contains(w))
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::client_bytes_at;

    #[test]
    fn bytes_at_rates_mix_whole_batches_and_grow_with_moves() {
        // One move per datagram: the datagram rate times one batch.
        let one = client_bytes_at(200, 30.0, 30.0);
        let two = client_bytes_at(200, 60.0, 30.0);
        assert!(one > 30.0 * (11.0 + 200.0 / 8.0));
        // Two moves per datagram cost less than twice one (one header, one batch frame).
        assert!(two > one && two < 2.0 * one, "{one} {two}");
        // 1.5 moves per datagram: between the two whole sizes, at the same datagram rate.
        let mid = client_bytes_at(200, 45.0, 30.0);
        assert!(mid > one && mid < two, "{one} {mid} {two}");
        assert!((mid - (one + two) / 2.0).abs() < 0.02 * mid);
        // Fewer moves than datagrams is not possible: one move each.
        assert_eq!(
            client_bytes_at(200, 10.0, 30.0),
            client_bytes_at(200, 10.0, 10.0)
        );
        assert_eq!(client_bytes_at(200, 0.0, 30.0), 0.0);
        assert_eq!(client_bytes_at(200, f64::NAN, 30.0), 0.0);
    }
}
