//! The first pass over the logs: who is in them (each pawn as GMC's prefix names it, per
//! file), which machine each is on, the client pawn each server copy belongs to (paired by
//! the move timestamps both logged: GMC's move identity), and each file's clock.

use std::collections::HashSet;

use super::line::{NetMode, Role, Who};
use super::message::Msg;
use crate::model::telemetry::Machine;

/// Timestamps kept per pawn for pairing.
const PAIRING_SAMPLES: usize = 512;
/// Clock samples kept per file.
const CLOCK_SAMPLES: usize = 4096;

/// A pawn as one file's lines name it.
#[derive(Clone, Debug, PartialEq)]
pub struct PawnKey {
    pub file: usize,
    pub player: String,
    pub actor: String,
    pub net_mode: Option<NetMode>,
    pub role: Role,
}

impl PawnKey {
    pub fn is(&self, file: usize, who: &Who<'_>) -> bool {
        self.file == file
            && self.role == who.role
            && self.net_mode == who.net_mode
            && self.actor == who.actor
            && self.player == who.player
    }

    fn of(file: usize, who: &Who<'_>) -> PawnKey {
        PawnKey {
            file,
            player: who.player.to_string(),
            actor: who.actor.to_string(),
            net_mode: who.net_mode,
            role: who.role,
        }
    }

    /// Whether the process that logged it is a server (a GMC 1.x line says it by its role).
    pub fn on_server(&self) -> bool {
        match self.net_mode {
            Some(m) => m.is_server(),
            None => matches!(self.role, Role::LocalAuthority | Role::RemoteAuthority),
        }
    }
}

/// What a pawn is in the session movescope builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// A client's own, predicted pawn.
    Predicting,
    /// The server's copy of a client's pawn.
    ServerCopy,
    /// A pawn the server controls (a listen host's, an AI, a standalone game's).
    ServerLocal,
    /// Another pawn as a client shows it.
    Proxy,
    /// A pawn whose machine the logs do not say (a proxy line of a process with no predicting
    /// pawn): its lines are counted, not used.
    Unplaced,
}

/// One pawn: its key, its machine, its pawn id, and for server copies the client it belongs
/// to.
#[derive(Clone, Debug)]
pub struct Pawn {
    pub key: PawnKey,
    pub part: Part,
    pub machine: Machine,
    pub pawn: u16,
    /// The client whose pawn this is (predicting pawns and server copies).
    pub client: Option<u16>,
    /// First line (1-based) of the file that names it.
    pub first_line: u64,
}

/// Each file's clock: session time = the line's wall time + `offset`, so that times are in
/// GMC's move-time domain (the server's clock).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FileClock {
    /// `None`: the file's lines carry no time; a line's time is the last move time before it.
    pub offset: Option<f64>,
    pub source: ClockSource,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockSource {
    /// `gmc.LogNetWorldTime` lines: the world time against the wall clock.
    WorldTime,
    /// The predicting client's move timestamps (its synchronized clock).
    ClientMoves,
    /// The server's received moves: the move timestamps' upper envelope (the moves' shortest
    /// age is taken as 0).
    ServerMoves,
    /// The client's verdicts on the server's replies (Verbose lines only): a reply comes at
    /// least a round trip after its move, so times read early by about the shortest one.
    ClientVerdicts,
    /// Another file's anchor: both files' engine date-times are UTC, so one offset serves
    /// both (a server log without world-time lines, beside a client's).
    SharedWall,
    /// No anchor: the first line is time 0.
    FirstLine,
    /// No wall time in the file.
    MoveTimes,
}

impl ClockSource {
    /// How the file's times were put on the session's axis, in words.
    pub fn describe(self) -> &'static str {
        match self {
            ClockSource::WorldTime => "from gmc.LogNetWorldTime lines (exact)",
            ClockSource::ClientMoves => {
                "from the client's move timestamps (its synchronized clock)"
            }
            ClockSource::ServerMoves => {
                "from the server's received moves (the shortest move age taken as 0; turn on gmc.LogNetWorldTime for an exact clock)"
            }
            ClockSource::ClientVerdicts => {
                "from the client's verdicts on replies (only Verbose lines: times read early by about a round trip; gmc.LogClientMoveTrace or gmc.LogNetWorldTime give an exact clock)"
            }
            ClockSource::SharedWall => {
                "from another file's anchor, both files' engine times being UTC (the machines' clocks taken as in step)"
            }
            ClockSource::FirstLine => "no anchor: the first line is time 0",
            ClockSource::MoveTimes => {
                "no times in the lines: each line takes the last move timestamp before it"
            }
        }
    }
}

/// What the first pass learnt.
#[derive(Clone, Debug, Default)]
pub struct Cast {
    pub pawns: Vec<Pawn>,
    pub clocks: Vec<FileClock>,
    /// Clients by number (from 0), with the player name their lines give.
    pub clients: Vec<(u16, String)>,
    /// The session time of the first GMC line of any file.
    pub t_start: f64,
}

impl Cast {
    /// The pawn a line of `file` names.
    pub fn find(&self, file: usize, who: &Who<'_>) -> Option<usize> {
        self.pawns.iter().position(|p| p.key.is(file, who))
    }
}

/// Gathers the first pass, one line at a time.
#[derive(Default)]
pub struct CastBuilder {
    keys: Vec<(PawnKey, u64, HashSet<i64>)>,
    files: Vec<ClockSamples>,
    last: Option<usize>,
}

#[derive(Default)]
struct ClockSamples {
    world: Vec<f64>,
    client: Vec<f64>,
    server_max: Option<f64>,
    /// The client's verdicts on replies: timestamp − wall time (a reply comes at least a round
    /// trip after its move: the largest is the closest).
    client_verdict_max: Option<f64>,
    first_wall: Option<f64>,
    /// The first GMC line's wall time (where the recording starts).
    first_gmc_wall: Option<f64>,
    first_ts: Option<f64>,
    any_wall: bool,
    /// The engine's date-time prefix (seconds since 1970), not a time of day or since start:
    /// files with it share one clock up to the machines' clock error.
    calendar: bool,
}

/// Wall times above this are calendar times (seconds since 1970), not times of day.
const CALENDAR: f64 = 1e8;

impl CastBuilder {
    /// One line of file `file` (line number `n`), with its wall time and message.
    pub fn line(&mut self, file: usize, n: u64, wall: Option<f64>, who: &Who<'_>, msg: &Msg<'_>) {
        while self.files.len() <= file {
            self.files.push(ClockSamples::default());
        }
        let i = self.pawn(file, n, who);
        if let Some(ts) = move_ts(who.role, msg) {
            self.files[file].first_ts.get_or_insert(ts as f64 / 1e6);
            let set = &mut self.keys[i].2;
            if set.len() < PAIRING_SAMPLES {
                set.insert(ts);
            }
        }
        if let Some(w) = wall {
            self.files[file].first_gmc_wall.get_or_insert(w);
            self.clock(file, w, who.role, msg);
        }
    }

    /// A line with a wall time but no GMC pawn (other categories): only the clock learns.
    pub fn wall(&mut self, file: usize, wall: f64) {
        while self.files.len() <= file {
            self.files.push(ClockSamples::default());
        }
        let f = &mut self.files[file];
        f.any_wall = true;
        f.calendar |= wall > CALENDAR;
        f.first_wall.get_or_insert(wall);
    }

    fn pawn(&mut self, file: usize, n: u64, who: &Who<'_>) -> usize {
        if let Some(i) = self.last.filter(|i| self.keys[*i].0.is(file, who)) {
            return i;
        }
        let i = match self.keys.iter().position(|k| k.0.is(file, who)) {
            Some(i) => i,
            None => {
                self.keys.push((PawnKey::of(file, who), n, HashSet::new()));
                self.keys.len() - 1
            }
        };
        self.last = Some(i);
        i
    }

    fn clock(&mut self, file: usize, wall: f64, role: Role, msg: &Msg<'_>) {
        let f = &mut self.files[file];
        f.any_wall = true;
        f.calendar |= wall > CALENDAR;
        f.first_wall.get_or_insert(wall);
        match (role, msg) {
            (_, Msg::WorldTime { time, .. }) if f.world.len() < CLOCK_SAMPLES => {
                f.world.push(time - wall)
            }
            (Role::AutonomousProxy, Msg::Executed { ts, .. }) if f.client.len() < CLOCK_SAMPLES => {
                f.client.push(ts.secs() - wall)
            }
            (
                Role::RemoteAuthority,
                Msg::ServerReceived { ts }
                | Msg::ServerExecuted { ts, .. }
                | Msg::FailedValidation { ts, .. },
            ) => {
                let d = ts.secs() - wall;
                f.server_max = Some(f.server_max.map_or(d, |m: f64| m.max(d)));
            }
            (
                Role::AutonomousProxy,
                Msg::SourceNotValid { ts } | Msg::FailedValidation { ts, .. },
            ) => {
                let d = ts.secs() - wall;
                f.client_verdict_max = Some(f.client_verdict_max.map_or(d, |m: f64| m.max(d)));
            }
            _ => {}
        }
    }

    /// Pairs server copies with predicting pawns, numbers the clients and settles the clocks.
    pub fn finish(self) -> Cast {
        let mut clocks: Vec<FileClock> = self.files.iter().map(settle_clock).collect();
        share_calendar_clocks(&self.files, &mut clocks);
        let t_start = self
            .files
            .iter()
            .zip(&clocks)
            .filter_map(|(f, c)| match c.offset {
                Some(off) => f.first_gmc_wall.or(f.first_wall).map(|w| w + off),
                None => f.first_ts,
            })
            .fold(f64::INFINITY, f64::min);
        let mut cast = Cast {
            clocks,
            t_start: if t_start.is_finite() { t_start } else { 0.0 },
            ..Cast::default()
        };
        let order = first_seen_order(&self.keys);
        place_predicting(&self.keys, &order, &mut cast);
        place_server_copies(&self.keys, &order, &mut cast);
        place_the_rest(&self.keys, &order, &mut cast);
        cast.pawns.sort_by_key(|p| (p.key.file, p.first_line));
        cast
    }
}

/// The move timestamp a line names, for pairing (client: executed, sent, a reply or its own
/// verdict on one; server: received, executed, or its verdict): a log with only the Verbose
/// verdict lines pairs by those.
fn move_ts(role: Role, msg: &Msg<'_>) -> Option<i64> {
    match (role, msg) {
        (
            Role::AutonomousProxy,
            Msg::Executed { ts, .. }
            | Msg::Sent { ts, .. }
            | Msg::ReplyReceived { ts }
            | Msg::SourceNotValid { ts }
            | Msg::FailedValidation { ts, .. },
        )
        | (
            Role::RemoteAuthority,
            Msg::ServerReceived { ts }
            | Msg::ServerExecuted { ts, .. }
            | Msg::ServerSavedReply { ts }
            | Msg::FailedValidation { ts, .. },
        ) => Some(ts.micros),
        _ => None,
    }
}

fn median(v: &[f64]) -> Option<f64> {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    s.sort_by(f64::total_cmp);
    s.get(s.len() / 2).copied()
}

fn settle_clock(f: &ClockSamples) -> FileClock {
    let (offset, source) = if let Some(m) = median(&f.world) {
        (Some(m), ClockSource::WorldTime)
    } else if let Some(m) = median(&f.client) {
        (Some(m), ClockSource::ClientMoves)
    } else if let Some(m) = f.server_max {
        (Some(m), ClockSource::ServerMoves)
    } else if let Some(m) = f.client_verdict_max {
        (Some(m), ClockSource::ClientVerdicts)
    } else if let Some(w) = f.first_wall {
        (Some(-w), ClockSource::FirstLine)
    } else {
        (None, ClockSource::MoveTimes)
    };
    let offset = if f.any_wall { offset } else { None };
    let source = if f.any_wall {
        source
    } else {
        ClockSource::MoveTimes
    };
    FileClock { offset, source }
}

/// Files whose engine times are calendar times share a clock: a file with only a weak anchor
/// (the server's received moves, which assume the fastest move took no time, or none at all)
/// takes the offset of the files with a strong one (world time, the client's synchronized
/// move timestamps); with no strong anchor anywhere, files without one take a weak one's, and
/// with none at all the earliest first line of them all is time 0.
fn share_calendar_clocks(files: &[ClockSamples], clocks: &mut [FileClock]) {
    let calendar = |i: usize| files.get(i).is_some_and(|f| f.calendar);
    let offsets_of = |clocks: &[FileClock], sources: &[ClockSource]| -> Vec<f64> {
        (0..clocks.len())
            .filter(|i| calendar(*i) && sources.contains(&clocks[*i].source))
            .filter_map(|i| clocks[i].offset)
            .collect()
    };
    let strong = offsets_of(clocks, &[ClockSource::WorldTime, ClockSource::ClientMoves]);
    let weak = offsets_of(
        clocks,
        &[ClockSource::ServerMoves, ClockSource::ClientVerdicts],
    );
    let (shared, replaces): (Option<f64>, &[ClockSource]) = if let Some(m) = median(&strong) {
        (
            Some(m),
            &[
                ClockSource::ServerMoves,
                ClockSource::ClientVerdicts,
                ClockSource::FirstLine,
            ],
        )
    } else if let Some(m) = median(&weak) {
        (Some(m), &[ClockSource::FirstLine])
    } else {
        let first = (0..clocks.len())
            .filter(|i| calendar(*i))
            .filter_map(|i| files[i].first_wall)
            .fold(f64::INFINITY, f64::min);
        (first.is_finite().then_some(-first), &[])
    };
    let Some(off) = shared else {
        return;
    };
    for (i, c) in clocks.iter_mut().enumerate() {
        if !calendar(i) {
            continue;
        }
        if replaces.contains(&c.source) {
            *c = FileClock {
                offset: Some(off),
                source: ClockSource::SharedWall,
            };
        } else if replaces.is_empty() && c.source == ClockSource::FirstLine {
            c.offset = Some(off);
        }
    }
}

fn first_seen_order(keys: &[(PawnKey, u64, HashSet<i64>)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|i| (keys[*i].0.file, keys[*i].1));
    order
}

fn place_predicting(keys: &[(PawnKey, u64, HashSet<i64>)], order: &[usize], cast: &mut Cast) {
    for &i in order {
        let (key, first, _) = &keys[i];
        if key.role != Role::AutonomousProxy || key.on_server() {
            continue;
        }
        let id = cast.clients.len() as u16;
        cast.clients.push((id, key.player.clone()));
        cast.pawns.push(Pawn {
            key: key.clone(),
            part: Part::Predicting,
            machine: Machine::Client(id),
            pawn: id,
            client: Some(id),
            first_line: *first,
        });
    }
}

/// Each server copy goes with the predicting pawn it shares the most move timestamps with
/// (greedy, best pairs first); one with none shared is a client whose own log is missing.
fn place_server_copies(keys: &[(PawnKey, u64, HashSet<i64>)], order: &[usize], cast: &mut Cast) {
    let copies: Vec<usize> = order
        .iter()
        .copied()
        .filter(|i| keys[*i].0.role == Role::RemoteAuthority)
        .collect();
    let predicting: Vec<(usize, u16)> = cast
        .pawns
        .iter()
        .filter_map(|p| {
            let i = keys.iter().position(|k| k.0 == p.key)?;
            Some((i, p.client?))
        })
        .collect();
    let mut pairs: Vec<(usize, usize, u16)> = Vec::new();
    for &s in &copies {
        for &(c, id) in &predicting {
            let shared = keys[s].2.intersection(&keys[c].2).count();
            if shared > 0 {
                pairs.push((shared, s, id));
            }
        }
    }
    pairs.sort_by_key(|p| std::cmp::Reverse(p.0));
    let mut taken_copy = HashSet::new();
    let mut taken_client = HashSet::new();
    let mut client_of = std::collections::HashMap::new();
    for (_, s, id) in pairs {
        if taken_copy.contains(&s) || taken_client.contains(&id) {
            continue;
        }
        taken_copy.insert(s);
        taken_client.insert(id);
        client_of.insert(s, id);
    }
    pair_leftovers_in_order(&copies, &predicting, &mut client_of);
    for s in copies {
        let id = match client_of.get(&s) {
            Some(id) => *id,
            None => {
                let id = cast.clients.len() as u16;
                cast.clients.push((id, keys[s].0.actor.clone()));
                id
            }
        };
        cast.pawns.push(Pawn {
            key: keys[s].0.clone(),
            part: Part::ServerCopy,
            machine: Machine::Server,
            pawn: id,
            client: Some(id),
            first_line: keys[s].1,
        });
    }
}

/// Copies and clients that shared no move timestamp (logs with too few lines) are paired in
/// the order they first logged when as many of each are left: a client is not doubled by
/// its own server copy.
fn pair_leftovers_in_order(
    copies: &[usize],
    predicting: &[(usize, u16)],
    client_of: &mut std::collections::HashMap<usize, u16>,
) {
    let left_copies: Vec<usize> = copies
        .iter()
        .copied()
        .filter(|s| !client_of.contains_key(s))
        .collect();
    let taken: HashSet<u16> = client_of.values().copied().collect();
    let left_clients: Vec<u16> = predicting
        .iter()
        .map(|(_, id)| *id)
        .filter(|id| !taken.contains(id))
        .collect();
    if left_copies.len() == left_clients.len() {
        for (s, id) in left_copies.into_iter().zip(left_clients) {
            client_of.insert(s, id);
        }
    }
}

/// Server-controlled pawns and proxies (a proxy belongs to the client machine of its file
/// and player, when the logs have one).
fn place_the_rest(keys: &[(PawnKey, u64, HashSet<i64>)], order: &[usize], cast: &mut Cast) {
    let mut next_pawn = cast.clients.len() as u16;
    for &i in order {
        let (key, first, _) = &keys[i];
        if cast.pawns.iter().any(|p| &p.key == key) {
            continue;
        }
        let (part, machine) = if key.on_server() {
            (Part::ServerLocal, Some(Machine::Server))
        } else {
            let host = cast.pawns.iter().find(|p| {
                p.part == Part::Predicting
                    && p.key.file == key.file
                    && (p.key.player == key.player || key.net_mode.is_none())
            });
            match host {
                Some(h) => (Part::Proxy, Some(h.machine)),
                None => (Part::Unplaced, None),
            }
        };
        cast.pawns.push(Pawn {
            key: key.clone(),
            part,
            machine: machine.unwrap_or(Machine::Server),
            pawn: next_pawn,
            client: None,
            first_line: *first,
        });
        next_pawn = next_pawn.saturating_add(1);
    }
}
