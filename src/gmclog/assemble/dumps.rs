//! The state dumps after a trace header, kept as evidence: each client's and each server
//! copy's dumps of the last moves (as printed, in a ring per client), emitted as `LoggedMove`
//! records around every desync — the moves before it, so the doctor can find where the two
//! machines parted, and those that follow within a few seconds.
//!
//! Invariants: memory is bounded per client whatever the log holds ([`RING`] moves, buffers
//! reused); a dump is emitted at most once; values are what GMC printed, named by the
//! component when one was given.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::Assembler;
use crate::gmclog::message::Dump;
use crate::gmclog::scan::Ts;
use crate::gmclog::values;
use crate::model::logged::{LogLine, LoggedMove, LoggedStage, LoggedValue};
use crate::model::telemetry::{Event, Machine};

/// Dumps kept per client, every stage together (about 20 moves of both machines).
const RING: usize = 96;
/// Moves before a desync's move emitted with it (where the two machines first parted can lie
/// a few moves back: a small difference grows until it fails validation).
const BACK: u32 = 24;
/// Moves after it.
const AHEAD: u32 = 4;
/// Seconds after a desync during which its moves' dumps are still emitted as they come (the
/// other machine's file may sit a little later on the time axis).
const WATCH_S: f64 = 3.0;

/// One move's dump as printed: the trace header's move, and its state lines.
struct RawMove {
    t: f64,
    stage: LoggedStage,
    client: u16,
    move_id: u32,
    ts: Ts,
    delta: f64,
    at: LogLine,
    input: Vec<(String, String, LogLine)>,
    output: Vec<(String, String, LogLine)>,
    emitted: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Section {
    Header,
    Input,
    Output,
}

/// A dump being read for one pawn.
pub(super) struct Capture {
    raw: RawMove,
    section: Section,
}

/// The rings, the recycled buffers and what is being watched.
#[derive(Default)]
pub(super) struct Dumps {
    rings: HashMap<u16, VecDeque<RawMove>>,
    spare: Vec<RawMove>,
    /// Per client: moves `lo..=hi` are wanted until session time `until`.
    watch: HashMap<u16, (u32, u32, f64)>,
}

impl Assembler {
    /// A trace header of `stage` for `client`'s move: its dump lines follow.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn begin_capture(
        &mut self,
        p: usize,
        t: f64,
        stage: LoggedStage,
        client: u16,
        move_id: u32,
        ts: Ts,
        delta: Option<f64>,
    ) {
        // GMC 1.x prints no dumps: its trace lines' columns are read whole (`v1.rs`).
        if self.cast.pawns[p].key.net_mode.is_none() {
            return;
        }
        let mut raw = self.dumps.spare.pop().unwrap_or_else(|| RawMove {
            t,
            stage,
            client,
            move_id,
            ts,
            delta: f64::NAN,
            at: self.at,
            input: Vec::new(),
            output: Vec::new(),
            emitted: false,
        });
        raw.t = t;
        raw.stage = stage;
        raw.client = client;
        raw.move_id = move_id;
        raw.ts = ts;
        raw.delta = delta.unwrap_or(f64::NAN);
        raw.at = self.at;
        raw.input.clear();
        raw.output.clear();
        raw.emitted = false;
        self.pawns[p].capture = Some(Capture {
            raw,
            section: Section::Header,
        });
    }

    /// A dump header or value line of pawn `p`: into its capture, if one is open.
    pub(super) fn capture_line(
        &mut self,
        p: usize,
        header: Option<Dump>,
        value: Option<(&str, &str)>,
    ) {
        let at = self.at;
        let Some(cap) = self.pawns[p].capture.as_mut() else {
            return;
        };
        match (header, value) {
            (Some(Dump::Input), _) => cap.section = Section::Input,
            (Some(Dump::Output), _) => cap.section = Section::Output,
            (Some(Dump::Smoothing), _) => cap.section = Section::Header,
            (None, Some((name, text))) => {
                let list = match cap.section {
                    Section::Input => &mut cap.raw.input,
                    Section::Output => &mut cap.raw.output,
                    Section::Header => return,
                };
                // Values past a sane count are a damaged or hostile line, not a pawn.
                if list.len() < 64 {
                    list.push((name.to_string(), text.to_string(), at));
                }
            }
            _ => {}
        }
    }

    /// The end of pawn `p`'s dump (any other line of it): kept, and emitted if wanted.
    pub(super) fn end_capture(&mut self, p: usize, t: f64) {
        let Some(cap) = self.pawns[p].capture.take() else {
            return;
        };
        self.keep(cap.raw, t);
    }

    /// A move's state read from columns (GMC 1.x): kept as a dump is, completing what another
    /// line of the same move and stage gave (the server's received move brings the state it
    /// began from, its result line the state it ended with).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn keep_columns(
        &mut self,
        t: f64,
        stage: LoggedStage,
        client: u16,
        move_id: u32,
        ts: Ts,
        input: Vec<(String, String)>,
        output: Vec<(String, String)>,
    ) {
        let at = self.at;
        let with_at = |v: Vec<(String, String)>| -> Vec<(String, String, LogLine)> {
            v.into_iter().map(|(n, x)| (n, x, at)).collect()
        };
        let mut raw = RawMove {
            t,
            stage,
            client,
            move_id,
            ts,
            delta: f64::NAN,
            at,
            input: with_at(input),
            output: with_at(output),
            emitted: false,
        };
        if let Some(old) = self.dumps.rings.get_mut(&client).and_then(|ring| {
            ring.iter_mut()
                .rev()
                .find(|r| r.stage == stage && r.move_id == move_id)
        }) {
            if raw.input.is_empty() {
                raw.input = std::mem::take(&mut old.input);
                raw.at = old.at;
            }
            if raw.output.is_empty() {
                raw.output = std::mem::take(&mut old.output);
            }
        }
        self.keep(raw, t);
    }

    /// A dump into its client's ring (a move's newer version of the same stage replaces the
    /// older), emitted at once if its move is wanted.
    fn keep(&mut self, raw: RawMove, t: f64) {
        let client = raw.client;
        let wanted = self
            .dumps
            .watch
            .get(&client)
            .is_some_and(|(lo, hi, until)| t <= *until && (*lo..=*hi).contains(&raw.move_id));
        let ring = self.dumps.rings.entry(client).or_default();
        // A combined move is executed again every frame: keep its newest version only.
        if let Some(i) = ring
            .iter()
            .rposition(|r| r.stage == raw.stage && r.move_id == raw.move_id)
            && let Some(old) = ring.remove(i)
        {
            self.dumps.spare.push(old);
        }
        ring.push_back(raw);
        while ring.len() > RING {
            if let Some(old) = ring.pop_front() {
                self.dumps.spare.push(old);
            }
        }
        if wanted {
            self.emit_ring(client, t, |r| !r.emitted);
        }
    }

    /// Whether a dump of `client`'s move `move_id` at `stage` is kept.
    pub(super) fn has_dump(&self, client: u16, move_id: u32, stage: LoggedStage) -> bool {
        self.dumps
            .rings
            .get(&client)
            .is_some_and(|r| r.iter().any(|x| x.stage == stage && x.move_id == move_id))
    }

    /// A desync at `client`'s move `move_id`: the dumps kept of the moves around it are
    /// emitted, and those that come within [`WATCH_S`] too.
    pub(super) fn want(&mut self, client: u16, move_id: u32, t: f64) {
        let lo = move_id.saturating_sub(BACK);
        let hi = move_id.saturating_add(AHEAD);
        let w = self
            .dumps
            .watch
            .entry(client)
            .or_insert((lo, hi, t + WATCH_S));
        *w = if t <= w.2 && lo <= w.1 {
            (w.0.min(lo), w.1.max(hi), t + WATCH_S)
        } else {
            (lo, hi, t + WATCH_S)
        };
        self.emit_ring(client, t, |r| !r.emitted && (lo..=hi).contains(&r.move_id));
    }

    fn emit_ring(&mut self, client: u16, t: f64, pick: impl Fn(&RawMove) -> bool) {
        let Some(ring) = self.dumps.rings.get_mut(&client) else {
            return;
        };
        let mut events = Vec::new();
        for r in ring.iter_mut().filter(|r| pick(r)) {
            r.emitted = true;
            events.push(logged(r, &self.naming));
        }
        for e in events {
            let machine = if e.stage.on_server() {
                Machine::Server
            } else {
                Machine::Client(client)
            };
            self.emit(t, machine, Event::LoggedMove(Arc::new(e)));
        }
    }
}

/// A kept dump as a record's evidence: values named and read.
fn logged(r: &RawMove, naming: &crate::gmclog::Naming) -> LoggedMove {
    LoggedMove {
        t: r.t,
        client: r.client,
        move_id: r.move_id,
        timestamp: r.ts.secs(),
        delta: r.delta,
        stage: r.stage,
        input: state(&r.input, naming),
        output: state(&r.output, naming),
        at: r.at,
    }
}

/// A dump's lines as values: an integrated value is one, a bound type's line one per index.
fn state(lines: &[(String, String, LogLine)], naming: &crate::gmclog::Naming) -> Vec<LoggedValue> {
    let mut out = Vec::new();
    for (name, text, at) in lines {
        match values::type_of(name) {
            Some(ty) => {
                for (i, v) in values::entries(text) {
                    out.push(LoggedValue {
                        name: Arc::from(naming.label(name, Some(ty), Some(i)).as_str()),
                        value: values::parse(Some(ty), v),
                        text: Arc::from(v),
                        at: *at,
                    });
                }
            }
            None => out.push(LoggedValue {
                name: Arc::from(name.as_str()),
                value: values::parse(values::value_type(name), text),
                text: Arc::from(text.trim()),
                at: *at,
            }),
        }
    }
    out
}
