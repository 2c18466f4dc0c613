//! Writing, for a session movescope simulates, the log GMC would write: one file per machine
//! (`server.log`, `client-1.log`, …) in GMC 2.x's formats (docs/gmc-logs.md), from the record
//! stream. It is the oracle of the import's tests: importing these files must give back the
//! session's moves, corrections, replay depths and first deviating values.
//!
//! What the records do not hold is not written: a batch's composition on the server (no
//! "received" lines), the intermediate versions' exact times (a combined move's versions are
//! spaced evenly over its delta), dumps of replies and replays.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::numbering::Numbering;
use crate::model::binding::Binding;
use crate::model::pawn::{Execution, PawnValues};
use crate::model::telemetry::{DetectedBy, Deviation, Event, Machine, Record};

/// Lines are held this long (session seconds) before they are written, so lines that come
/// from a later record (the server's deviating values, known from the client's correction)
/// land at their own time.
const HOLD_S: f64 = 5.0;
/// Moves remembered per client for their timestamps.
const REMEMBERED: usize = 4096;

/// Which of GMC's logging is on in the written logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Switches {
    /// `gmc.LogClientMoveTrace 1`.
    pub move_trace: bool,
    /// `gmc.LogClientReplay 1`.
    pub replay: bool,
    /// `Log LogGMCReplication Verbose`: validation failures and `Replayed N moves.`.
    pub verbose: bool,
    /// `gmc.LogNetWorldTime 1` (the server's world time each frame).
    pub world_time: bool,
    /// `Log LogGMCMovement VeryVerbose`: each iteration of a move.
    pub iterations: bool,
}

impl Switches {
    pub const ALL: Switches = Switches {
        move_trace: true,
        replay: true,
        verbose: true,
        world_time: true,
        iterations: true,
    };

    /// Turns one off by name (`move-trace`, `replay`, `verbose`, `world-time`, `iterations`).
    pub fn without(mut self, name: &str) -> Option<Switches> {
        match name {
            "move-trace" => self.move_trace = false,
            "replay" => self.replay = false,
            "verbose" => self.verbose = false,
            "world-time" => self.world_time = false,
            "iterations" => self.iterations = false,
            _ => return None,
        }
        Some(self)
    }
}

/// Why the logs could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct WriteLogError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

struct Out {
    path: PathBuf,
    file: BufWriter<File>,
    /// Lines not yet written, by (time, order).
    held: BTreeMap<(i64, u64), String>,
    frames: u64,
}

#[derive(Default)]
struct ClientState {
    /// id → (timestamp, delta), newest last.
    moves: VecDeque<(u32, f64, f64)>,
    unsent: VecDeque<u32>,
    sent: VecDeque<u32>,
    /// The newest output values of each move's newest execution (value trace).
    outputs: HashMap<u32, (PawnValues, PawnValues)>,
    /// The client's synchronized clock minus the server's (session time), newest.
    offset: Option<f64>,
}

/// Turns records into GMC log lines, one file per machine.
pub struct GmcLogWriter {
    dir: PathBuf,
    started_unix_ms: u64,
    switches: Switches,
    /// GMC's per-type index of each binding, for dumps and deviation names.
    numbering: Numbering,
    listen: bool,
    outs: HashMap<Machine, Out>,
    clients: HashMap<u16, ClientState>,
    /// Server verdicts waiting for the values (client, move id) → time of the verdict.
    verdicts: HashMap<(u16, u32), f64>,
    /// Or the values waiting for the verdict (a client's record can come first in the
    /// stream): (client, move id) → (timestamp, deviations).
    values_first: HashMap<(u16, u32), (f64, Vec<Deviation>)>,
    /// The server's values around each remote move it executed (value trace), by (client,
    /// timestamp's bits), until its trace lines are written.
    server_values: HashMap<(u16, u64), (PawnValues, PawnValues)>,
    /// Each client's pawn on the server (from `Joined`).
    pawn_of: BTreeMap<u16, u16>,
    order: u64,
    now: f64,
}

impl GmcLogWriter {
    /// Writes into `dir` (created if missing). `bindings` is the session's list (its order
    /// gives GMC's per-type indexes); `listen` names the server a listen server.
    pub fn create(
        dir: &Path,
        started_unix_ms: u64,
        bindings: &[Binding],
        listen: bool,
        switches: Switches,
    ) -> Result<GmcLogWriter, WriteLogError> {
        std::fs::create_dir_all(dir).map_err(|source| WriteLogError {
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(GmcLogWriter {
            dir: dir.to_path_buf(),
            started_unix_ms,
            switches,
            numbering: Numbering::new(bindings),
            listen,
            outs: HashMap::new(),
            clients: HashMap::new(),
            verdicts: HashMap::new(),
            values_first: HashMap::new(),
            server_values: HashMap::new(),
            pawn_of: BTreeMap::new(),
            order: 0,
            now: 0.0,
        })
    }

    /// The files written so far.
    pub fn files(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = self.outs.values().map(|o| o.path.clone()).collect();
        v.sort();
        v
    }

    fn out(&mut self, m: Machine) -> Result<&mut Out, WriteLogError> {
        if !self.outs.contains_key(&m) {
            let name = match m {
                Machine::Server => "server.log".to_string(),
                Machine::Client(c) => format!("client-{c}.log"),
            };
            let path = self.dir.join(name);
            let file = File::create(&path).map_err(|source| WriteLogError {
                path: path.clone(),
                source,
            })?;
            self.outs.insert(
                m,
                Out {
                    path,
                    file: BufWriter::new(file),
                    held: BTreeMap::new(),
                    frames: 0,
                },
            );
        }
        Ok(self.outs.get_mut(&m).expect("inserted above"))
    }

    /// The engine's prefix and GMC's for a line at session time `t`.
    fn prefix(&self, frames: u64, t: f64, category: &str, verbosity: &str, who: &Who) -> String {
        let ms = self.started_unix_ms as i64 + (t * 1000.0).round() as i64;
        let (date, tod) = utc(ms);
        format!(
            "[{date}][{:3}]{category}: {verbosity}+{tod} {:<20} ({}: {:<16} | {:<16}): ",
            frames % 1000,
            who.player,
            who.actor,
            who.net_mode,
            who.role
        )
    }

    fn who(&self, m: Machine, pawn: u16, owner: Option<u16>) -> Who {
        match m {
            Machine::Client(c) => Who {
                player: format!("client{c}"),
                actor: "BP_MovescopePawn_C_0".to_string(),
                net_mode: "Client",
                role: "Autonomous Proxy",
            },
            Machine::Server => Who {
                player: if self.listen {
                    "host".to_string()
                } else {
                    String::new()
                },
                // Actor names differ between processes: the import pairs by timestamps.
                actor: format!("BP_MovescopePawn_C_{}", 100 + u32::from(pawn)),
                net_mode: if self.listen {
                    "Listen Server"
                } else {
                    "Dedicated Server"
                },
                role: if owner.is_some() {
                    "remote Authority"
                } else {
                    "local  Authority"
                },
            },
        }
    }

    fn hold(
        &mut self,
        m: Machine,
        t: f64,
        who: &Who,
        category: &str,
        verbosity: &str,
        text: &str,
    ) -> Result<(), WriteLogError> {
        let frames = self.out(m)?.frames;
        let line = self.prefix(frames, t, category, verbosity, who) + text;
        self.order += 1;
        let key = ((t * 1e6).round() as i64, self.order);
        self.out(m)?.held.insert(key, line);
        Ok(())
    }

    fn gmc(
        &mut self,
        m: Machine,
        t: f64,
        who: &Who,
        verbose: bool,
        text: &str,
    ) -> Result<(), WriteLogError> {
        let v = if verbose { "Verbose: " } else { "" };
        self.hold(m, t, who, "LogGMCReplication", v, text)
    }

    /// One record.
    pub fn push(&mut self, r: &Record) -> Result<(), WriteLogError> {
        self.now = self.now.max(r.t);
        match (&r.event, r.machine) {
            (Event::Frame { .. }, m) => {
                self.out(m)?.frames += 1;
                if m == Machine::Server && self.switches.world_time {
                    self.world_time(r.t)?;
                }
            }
            (Event::ClockOffset { offset }, Machine::Client(c)) => {
                self.clients.entry(c).or_default().offset = Some(*offset);
            }
            (Event::Joined { client, pawn, .. }, Machine::Server) => {
                self.pawn_of.insert(*client, *pawn);
            }
            (Event::MoveValues(v), Machine::Server) if v.exec == Execution::Remote => {
                if let Some(c) = v.owner
                    && let Some((ts, _)) = self.ts_of(c, v.move_id)
                {
                    self.server_values
                        .insert((c, ts.to_bits()), (v.entry.clone(), v.exit.clone()));
                    if self.server_values.len() > REMEMBERED {
                        self.server_values.clear();
                    }
                }
            }
            (Event::MoveValues(v), Machine::Client(c))
                if matches!(v.exec, Execution::Live | Execution::Combined) =>
            {
                let s = self.clients.entry(c).or_default();
                s.outputs
                    .insert(v.move_id, (v.entry.clone(), v.exit.clone()));
                if s.outputs.len() > 64 {
                    let oldest = s.outputs.keys().min().copied();
                    if let Some(o) = oldest {
                        s.outputs.remove(&o);
                    }
                }
            }
            (
                Event::MoveClosed {
                    move_id,
                    timestamp,
                    delta,
                    frames,
                    substeps,
                },
                Machine::Client(c),
            ) => self.move_closed(c, r.t, *move_id, *timestamp, *delta, *frames, *substeps)?,
            (
                Event::MovesSent {
                    new_moves,
                    resent_moves,
                    ..
                },
                Machine::Client(c),
            ) => self.moves_sent(c, r.t, *new_moves, *resent_moves)?,
            (Event::RemoteMoveExecuted(x), Machine::Server) => {
                self.server_executed(r.t, x.pawn, x.client, x.timestamp, x.delta, x.substeps)?
            }
            (
                Event::CorrectionSent {
                    client, move_id, ..
                },
                Machine::Server,
            ) => match self.values_first.remove(&(*client, *move_id)) {
                Some((ts, devs)) => self.server_lines(*client, r.t, ts, &devs)?,
                None => {
                    self.verdicts.insert((*client, *move_id), r.t);
                }
            },
            (
                Event::Correction {
                    move_id,
                    detected_by,
                    deviations,
                    replay_depth,
                    replayed,
                },
                Machine::Client(c),
            ) => self.correction(
                c,
                r.t,
                *move_id,
                *detected_by,
                deviations,
                *replay_depth,
                *replayed,
            )?,
            (Event::ForcedUpdate { pawn, .. }, Machine::Server) => {
                let owner = self
                    .pawn_of
                    .iter()
                    .find(|(_, p)| *p == pawn)
                    .map(|(c, _)| *c);
                let who = self.who(Machine::Server, *pawn, owner);
                self.gmc(
                    Machine::Server,
                    r.t,
                    &who,
                    false,
                    "Log forced net updates ::: Forced update due to bound simulation setting.",
                )?;
            }
            _ => {}
        }
        self.release(false)
    }

    fn world_time(&mut self, t: f64) -> Result<(), WriteLogError> {
        let pawns: Vec<(u16, u16)> = self.pawn_of.iter().map(|(c, p)| (*c, *p)).collect();
        let ms = self.started_unix_ms as i64 + (t * 1000.0).round() as i64;
        let (_, tod) = utc(ms);
        for (c, pawn) in pawns {
            let who = self.who(Machine::Server, pawn, Some(c));
            let text = format!("UtcNow: {tod} | ServerWorldTime = {t:12.6} s");
            self.hold(Machine::Server, t, &who, "LogGMCController", "", &text)?;
        }
        Ok(())
    }

    fn ts_of(&self, c: u16, id: u32) -> Option<(f64, f64)> {
        self.clients
            .get(&c)?
            .moves
            .iter()
            .rev()
            .find(|m| m.0 == id)
            .map(|m| (m.1, m.2))
    }

    #[allow(clippy::too_many_arguments)]
    fn move_closed(
        &mut self,
        c: u16,
        t: f64,
        id: u32,
        ts: f64,
        delta: f64,
        frames: u16,
        substeps: u16,
    ) -> Result<(), WriteLogError> {
        {
            let s = self.clients.entry(c).or_default();
            s.moves.push_back((id, ts, delta));
            s.unsent.push_back(id);
            while s.moves.len() > REMEMBERED {
                s.moves.pop_front();
            }
        }
        if !self.switches.move_trace {
            return Ok(());
        }
        let who = self.who(Machine::Client(c), c, Some(c));
        // A version was executed when the client's clock read its timestamp (the move may
        // be closed a frame later, when the next one opens).
        let offset = self.clients.get(&c).and_then(|s| s.offset);
        let n = frames.max(1);
        let start = ts - delta;
        for j in 1..=n {
            let ts_j = start + delta * f64::from(j) / f64::from(n);
            let ts_j = if j == n {
                ts
            } else {
                (ts_j * 1e5).round() / 1e5
            };
            let d_j = ts_j - start;
            let t_j = match offset {
                Some(off) => (ts_j - off).min(t),
                None => t - (ts - ts_j),
            };
            if self.switches.iterations {
                for _ in 0..substeps.max(1) {
                    let text = format!(
                        "UGMC_MovementUtilityCmp::PredictionTick: Starting execution of move with timestamp {ts_j:.6} (move delta time = {d_j:.6}, sub-stepped iteration = {}).",
                        substeps > 1
                    );
                    self.hold(
                        Machine::Client(c),
                        t_j,
                        &who,
                        "LogGMCMovement",
                        "VeryVerbose: ",
                        &text,
                    )?;
                }
            }
            let text = format!(
                "Client move trace ::: Client executed local move with timestamp {ts_j:.6} s and delta time {d_j:.6} s."
            );
            self.gmc(Machine::Client(c), t_j, &who, false, &text)?;
            if j == n {
                self.dumps(c, t_j, id, &who)?;
            }
        }
        Ok(())
    }

    /// The final version's input and output states, when the value trace gave them.
    fn dumps(&mut self, c: u16, t: f64, id: u32, who: &Who) -> Result<(), WriteLogError> {
        let Some((entry, exit)) = self
            .clients
            .get(&c)
            .and_then(|s| s.outputs.get(&id))
            .cloned()
        else {
            return Ok(());
        };
        self.dump_blocks(Machine::Client(c), t, who, &entry, &exit)
    }

    /// `Input state:` and `Output state:` with their values.
    fn dump_blocks(
        &mut self,
        m: Machine,
        t: f64,
        who: &Who,
        entry: &PawnValues,
        exit: &PawnValues,
    ) -> Result<(), WriteLogError> {
        for (title, values) in [("Input state:", entry), ("Output state:", exit)] {
            self.gmc(m, t, who, false, &format!("Client move trace ::: {title}"))?;
            for line in self.numbering.dump_lines(values) {
                self.gmc(m, t, who, false, &format!("Client move trace ::: {line}"))?;
            }
        }
        Ok(())
    }

    fn moves_sent(
        &mut self,
        c: u16,
        t: f64,
        new_moves: u16,
        resent: u16,
    ) -> Result<(), WriteLogError> {
        let s = self.clients.entry(c).or_default();
        let mut batch: Vec<u32> = s
            .sent
            .iter()
            .rev()
            .take(usize::from(resent))
            .rev()
            .copied()
            .collect();
        for _ in 0..new_moves {
            if let Some(id) = s.unsent.pop_front() {
                batch.push(id);
                s.sent.push_back(id);
            }
        }
        while s.sent.len() > 64 {
            s.sent.pop_front();
        }
        if !self.switches.move_trace {
            return Ok(());
        }
        let who = self.who(Machine::Client(c), c, Some(c));
        let n = batch.len();
        for (i, id) in batch.iter().enumerate() {
            if let Some((ts, d)) = self.ts_of(c, *id) {
                let text = format!(
                    "Client move trace ::: Client sent move {}/{n} with timestamp {ts:.6} s and delta time {d:.6} s.",
                    i + 1
                );
                self.gmc(Machine::Client(c), t, &who, false, &text)?;
            }
        }
        Ok(())
    }

    fn server_executed(
        &mut self,
        t: f64,
        pawn: u16,
        client: u16,
        ts: f64,
        delta: f64,
        substeps: u16,
    ) -> Result<(), WriteLogError> {
        if !self.switches.move_trace {
            return Ok(());
        }
        self.clients.entry(client).or_default();
        let who = self.who(Machine::Server, pawn, Some(client));
        if self.switches.iterations {
            for _ in 0..substeps.max(1) {
                let text = format!(
                    "UGMC_MovementUtilityCmp::PredictionTick: Starting execution of move with timestamp {ts:.6} (move delta time = {delta:.6}, sub-stepped iteration = {}).",
                    substeps > 1
                );
                self.hold(
                    Machine::Server,
                    t,
                    &who,
                    "LogGMCMovement",
                    "VeryVerbose: ",
                    &text,
                )?;
            }
        }
        // Executed (with the state it began from and its result), then — after the verdict
        // lines of a rejected move, written at t + 1 µs — validated and saved.
        let values = self.server_values.remove(&(client, ts.to_bits()));
        for (what, at, dump) in [
            ("Server executed remote move", t, true),
            ("Server validated remote move", t + 2e-6, true),
            ("Server saved autonomous proxy move", t + 2e-6, false),
        ] {
            let text = format!(
                "Client move trace ::: {what} with timestamp {ts:.6} s and delta time {delta:.6} s."
            );
            self.gmc(Machine::Server, at, &who, false, &text)?;
            if let Some((entry, exit)) = values.as_ref().filter(|_| dump) {
                self.dump_blocks(Machine::Server, at, &who, entry, exit)?;
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn correction(
        &mut self,
        c: u16,
        t: f64,
        id: u32,
        by: DetectedBy,
        devs: &[Deviation],
        depth: u16,
        replayed: bool,
    ) -> Result<(), WriteLogError> {
        let Some((ts, _)) = self.ts_of(c, id) else {
            return Ok(());
        };
        let who = self.who(Machine::Client(c), c, Some(c));
        let m = Machine::Client(c);
        if self.switches.move_trace {
            for what in ["received", "complemented"] {
                let text = format!(
                    "Client move trace ::: Client {what} autonomous proxy move with timestamp {ts:.6} s and delta time -1.000000 s."
                );
                self.gmc(m, t, &who, false, &text)?;
            }
        }
        // GMC's client always checks the reply itself (`CL_ShouldReplay`): its per-value line
        // (the client's punctuation), its verdict, then its decision to replay. A move the
        // server rejected also has the server's lines, in the server's log.
        if self.switches.verbose {
            for d in devs {
                // The client's punctuation (`IsValidCheckOtherClientValue`).
                if let Some(text) = self.numbering.not_valid_line(d, true) {
                    self.gmc(m, t, &who, true, &text)?;
                }
            }
            let text = format!(
                "One or more values of the client output state failed client-side validation (timestamp = {ts:.6})."
            );
            self.gmc(m, t, &who, true, &text)?;
            self.gmc(
                m,
                t,
                &who,
                true,
                &format!("Source move with timestamp {ts:.6} s was not valid."),
            )?;
            if by == DetectedBy::Server {
                self.server_verdict(c, id, ts, devs)?;
            }
        }
        if self.switches.replay && replayed {
            for stage in [
                "Logging complemented AP move.",
                "Logging client state before replay.",
                "Logging corrected client state before replay.",
                "Logging corrected client state after replay.",
            ] {
                self.gmc(m, t, &who, false, &format!("Client replay ::: {stage}"))?;
            }
        }
        if self.switches.verbose && replayed {
            self.gmc(m, t, &who, true, &format!("Replayed {depth} moves."))?;
        }
        Ok(())
    }

    /// The server's lines for a move it found wrong, at the time it found it (now if the
    /// verdict came first in the stream, else when it comes).
    fn server_verdict(
        &mut self,
        c: u16,
        id: u32,
        ts: f64,
        devs: &[Deviation],
    ) -> Result<(), WriteLogError> {
        match self.verdicts.remove(&(c, id)) {
            Some(t) => self.server_lines(c, t, ts, devs),
            None => {
                self.values_first.insert((c, id), (ts, devs.to_vec()));
                if self.values_first.len() > REMEMBERED {
                    self.values_first.clear();
                }
                Ok(())
            }
        }
    }

    fn server_lines(
        &mut self,
        c: u16,
        t: f64,
        ts: f64,
        devs: &[Deviation],
    ) -> Result<(), WriteLogError> {
        let pawn = self.pawn_of.get(&c).copied().unwrap_or(c);
        let who = self.who(Machine::Server, pawn, Some(c));
        // Between the move's `Server executed` block and its `Server validated` one.
        let t = t + 1e-6;
        for d in devs {
            // The server's punctuation (`IsValidCheckCurrentServerValue`).
            if let Some(text) = self.numbering.not_valid_line(d, false) {
                self.gmc(Machine::Server, t, &who, true, &text)?;
            }
        }
        let text = format!(
            "One or more values of the client output state failed server-side validation (timestamp = {ts:.6})."
        );
        self.gmc(Machine::Server, t, &who, true, &text)
    }

    /// Writes the lines older than the hold (all of them at the end).
    fn release(&mut self, all: bool) -> Result<(), WriteLogError> {
        let cut = ((self.now - HOLD_S) * 1e6).round() as i64;
        for out in self.outs.values_mut() {
            while let Some(entry) = out.held.first_entry() {
                if !all && entry.key().0 >= cut {
                    break;
                }
                let line = entry.remove();
                writeln!(out.file, "{line}").map_err(|source| WriteLogError {
                    path: out.path.clone(),
                    source,
                })?;
            }
        }
        Ok(())
    }

    /// Writes everything held and closes the files.
    pub fn finish(mut self) -> Result<Vec<PathBuf>, WriteLogError> {
        self.release(true)?;
        for out in self.outs.values_mut() {
            out.file.flush().map_err(|source| WriteLogError {
                path: out.path.clone(),
                source,
            })?;
        }
        Ok(self.files())
    }
}

struct Who {
    player: String,
    actor: String,
    net_mode: &'static str,
    role: &'static str,
}

/// (`YYYY.MM.DD-HH.MM.SS:mmm`, `HH:MM:SS.mmm`) of milliseconds since 1970 (UTC).
fn utc(ms: i64) -> (String, String) {
    let secs = ms.div_euclid(1000);
    let milli = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let (h, mi, s) = (sod / 3600, (sod / 60) % 60, sod % 60);
    (
        format!("{y:04}.{m:02}.{d:02}-{h:02}.{mi:02}.{s:02}:{milli:03}"),
        format!("{h:02}:{mi:02}:{s:02}.{milli:03}"),
    )
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_text_reads_back_through_the_line_parser() {
        let (date, tod) = utc(1_767_225_600_016);
        assert_eq!(date, "2026.01.01-00.00.00:016");
        assert_eq!(tod, "00:00:00.016");
        let line = format!(
            "[{date}][  1]LogGMCReplication: +{tod} {:<20} (A_0: {:<16} | {:<16}): hello",
            "", "Client", "Autonomous Proxy"
        );
        let l = super::super::line::parse(&line).unwrap();
        assert!((l.wall.unwrap() - 1_767_225_600.016).abs() < 1e-6);
    }
}
