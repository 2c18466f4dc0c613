//! The evidence a session's records hold, gathered once: per client (moves, the server's
//! executions of them, dash presses and dashes, one-shots, hits, skipped moves, clock
//! re-syncs, GMC's warnings), the value trace, and for an imported game log its own evidence
//! (each machine's dumps of the moves around each desync, each side's failed checks, what the
//! logs hold). Detectors read only this.

use std::collections::{BTreeMap, BTreeSet};

use glam::DVec3;

use crate::model::binding::{Binding, CombineMode, PredictionMode};
use crate::model::logged::{CheckSide, LogContents, LoggedCheck, LoggedMove, LoggedStage};
use crate::model::pawn::{Execution, Field, OneShotKind, default_bindings};
use crate::model::settings::Faults;
use crate::model::telemetry::{Event, LogLevel, Machine, MoveValues, Record, Role, SampleKind};

/// A client move as the client closed it.
#[derive(Clone, Copy, Debug)]
pub(super) struct MoveFacts {
    pub t: f64,
    pub frames: u16,
    pub substeps: u16,
    pub timestamp: f64,
    pub delta: f64,
}

/// What the records say about one client.
#[derive(Default)]
pub(super) struct PerClient {
    pub moves: BTreeMap<u32, MoveFacts>,
    /// The server's executions of its moves: when, and with which delta.
    pub executed: BTreeMap<u32, (f64, f64)>,
    pub presses: Vec<f64>,
    pub server_dashes: Vec<f64>,
    pub client_one_shots: usize,
    pub server_one_shots: usize,
    pub turret: Vec<f64>,
    /// Moves the server skipped: when, first and last.
    pub skipped: Vec<(f64, u32, u32)>,
    /// Each (re)join's time and the last move of the first batch sent after it (0: none yet).
    pub first_batch: Vec<(f64, u32)>,
    /// Clock re-syncs (time, what).
    pub clock_syncs: Vec<(f64, String)>,
    /// GMC's warnings about moves on this client's machine or its server copy (time, text).
    pub notices: Vec<(f64, String)>,
    /// Round trips measured (their times): a game log's first is its first reply.
    pub rtts: Vec<f64>,
    /// When each move's correction was adopted.
    pub corrected: BTreeMap<u32, Vec<f64>>,
}

/// The value trace: each client's executions of each of its moves (in time order), and the
/// server's.
#[derive(Default)]
pub(super) struct Trace<'a> {
    pub client: BTreeMap<(u16, u32), Vec<(f64, &'a MoveValues)>>,
    pub server: BTreeMap<(u16, u32), &'a MoveValues>,
    /// Per client, the moves whose tick parted values that began within tolerance (the
    /// client's execution it sent against the server's): a tick computing differently, seen.
    pub tick_parted: BTreeMap<u16, Vec<u32>>,
}

impl<'a> Trace<'a> {
    /// When client `c` ran the execution `m`.
    pub fn time_of(&self, c: u16, m: &MoveValues) -> Option<f64> {
        self.client
            .get(&(c, m.move_id))?
            .iter()
            .find(|(_, x)| std::ptr::eq(*x, m))
            .map(|(t, _)| *t)
    }

    /// The last execution of client `c`'s move `n` at or before `t`.
    pub fn last_before(&self, c: u16, n: u32, t: f64) -> Option<(f64, &'a MoveValues)> {
        self.client
            .get(&(c, n))?
            .iter()
            .rev()
            .find(|(x, _)| *x <= t)
            .copied()
    }
}

/// A game log's own evidence.
#[derive(Default)]
pub(super) struct LogIndex<'a> {
    pub contents: Option<&'a LogContents>,
    pub moves: BTreeMap<(u16, u32, LoggedStage), &'a LoggedMove>,
    /// Failed checks in time order.
    pub checks: Vec<(f64, &'a LoggedCheck)>,
}

impl<'a> LogIndex<'a> {
    pub fn dump(&self, client: u16, move_id: u32, stage: LoggedStage) -> Option<&'a LoggedMove> {
        self.moves.get(&(client, move_id, stage)).copied()
    }

    /// The state the server's pawn ended `move_id` with: validated, else as executed.
    pub fn server_end(&self, client: u16, move_id: u32) -> Option<&'a LoggedMove> {
        self.dump(client, move_id, LoggedStage::ServerValidated)
            .or_else(|| self.dump(client, move_id, LoggedStage::ServerExecuted))
    }

    /// `file:line` of a log line.
    pub fn place(&self, at: crate::model::logged::LogLine) -> String {
        self.contents
            .map_or_else(|| format!("line {}", at.line), |c| c.place(at))
    }

    /// The server's failed checks of `client`'s moves.
    pub fn rejections(&self, client: u16) -> impl Iterator<Item = &(f64, &'a LoggedCheck)> {
        self.checks
            .iter()
            .filter(move |(_, c)| c.client == client && c.side == CheckSide::Server)
    }
}

/// Counts for the findings (pitfalls that cause no correction).
#[derive(Default)]
pub(super) struct Tallies {
    pub side_effects_replayed: usize,
    pub team_unknown: u64,
    pub transitions_in_sync: usize,
    pub transitions_real: usize,
    pub proxy_effects: usize,
}

/// Everything the detectors read.
pub(super) struct Evidence<'a> {
    pub bindings: &'a [Binding],
    /// The list binds movescope's own demo pawn (the doctor knows what its tick writes).
    pub demo_pawn: bool,
    /// Members the demo pawn's tick writes that the list does not bind.
    pub written_unbound: Vec<String>,
    pub dash_always_combine: bool,
    pub clients: BTreeMap<u16, PerClient>,
    pub trace: Trace<'a>,
    pub log: LogIndex<'a>,
    pub mismatch_logged: BTreeSet<u16>,
    pub clock_warning: Option<String>,
    pub pawn_of: BTreeMap<u16, u16>,
    pub positions: BTreeMap<u16, Vec<(f64, DVec3)>>,
    pub session_changes: Vec<(f64, String)>,
    pub tallies: Tallies,
    /// Each client's moves in timestamp order (a game log numbers moves as it first meets
    /// them, which need not be their order).
    pub order: BTreeMap<u16, Vec<(f64, u32)>>,
}

impl<'a> Evidence<'a> {
    /// Gathers the evidence of `records` (and value-trace records re-simulated into `extra`),
    /// judged against the binding list `bindings`.
    pub fn gather(
        bindings: &'a [Binding],
        records: &'a [Record],
        extra: &'a [Record],
    ) -> Evidence<'a> {
        let demo_pawn = bindings
            .iter()
            .any(|b| !matches!(b.field, Field::Custom(_)));
        let bound: BTreeSet<&str> = bindings.iter().map(|b| &*b.name).collect();
        let written_unbound = default_bindings(&Faults::default())
            .iter()
            .map(|b| b.name.to_string())
            .filter(|n| demo_pawn && !bound.contains(n.as_str()))
            .collect();
        let dash_always_combine = bindings
            .iter()
            .any(|b| b.field == Field::InputDash && b.combine == CombineMode::AlwaysCombine);
        let mut ev = Evidence {
            bindings,
            demo_pawn,
            written_unbound,
            dash_always_combine,
            clients: BTreeMap::new(),
            trace: Trace::default(),
            log: LogIndex::default(),
            mismatch_logged: BTreeSet::new(),
            clock_warning: None,
            pawn_of: BTreeMap::new(),
            positions: BTreeMap::new(),
            session_changes: Vec::new(),
            tallies: Tallies::default(),
            order: BTreeMap::new(),
        };
        for r in records.iter().chain(extra) {
            if let Event::MoveValues(v) = &r.event {
                ev.trace_record(r, v);
            }
        }
        for r in records {
            ev.record(r);
        }
        ev.order_moves();
        ev.trace.tick_parted = ev.tick_partings();
        ev
    }

    /// Every traced move whose tick parted values that began within tolerance
    /// ([`super::parting::tick_parted`]): the client's last execution before any replay (the
    /// one it sent) against the server's.
    fn tick_partings(&self) -> BTreeMap<u16, Vec<u32>> {
        let mut out: BTreeMap<u16, Vec<u32>> = BTreeMap::new();
        for (&(c, m), server) in &self.trace.server {
            let sent = self
                .trace
                .client
                .get(&(c, m))
                .and_then(|v| v.iter().rev().find(|(_, x)| x.exec != Execution::Replay));
            let Some((_, client)) = sent else {
                continue;
            };
            if super::parting::tick_parted(self.bindings, client, server).is_some() {
                out.entry(c).or_default().push(m);
            }
        }
        out
    }

    /// Every move the records name, per client, in timestamp order.
    fn order_moves(&mut self) {
        let mut order: BTreeMap<u16, BTreeMap<u32, f64>> = BTreeMap::new();
        for (c, p) in &self.clients {
            let o = order.entry(*c).or_default();
            for (m, f) in &p.moves {
                o.insert(*m, f.timestamp);
            }
        }
        for m in self.log.moves.values() {
            order
                .entry(m.client)
                .or_default()
                .entry(m.move_id)
                .or_insert(m.timestamp);
        }
        for (_, k) in &self.log.checks {
            order
                .entry(k.client)
                .or_default()
                .entry(k.move_id)
                .or_insert(k.timestamp);
        }
        for (c, ids) in order {
            let mut v: Vec<(f64, u32)> = ids
                .into_iter()
                .filter(|(_, ts)| ts.is_finite())
                .map(|(m, ts)| (ts, m))
                .collect();
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            self.order.insert(c, v);
        }
    }

    /// The timestamp of client `c`'s move `m`.
    pub fn ts_of(&self, c: u16, m: u32) -> Option<f64> {
        self.order
            .get(&c)?
            .iter()
            .find(|(_, x)| *x == m)
            .map(|(t, _)| *t)
    }

    /// Client `c`'s moves up to and including `m`, the `n` before it first, in timestamp order.
    pub fn moves_before(&self, c: u16, m: u32, n: usize) -> Vec<u32> {
        let Some(v) = self.order.get(&c) else {
            return vec![m];
        };
        let Some(i) = v.iter().position(|(_, x)| *x == m) else {
            return vec![m];
        };
        v[i.saturating_sub(n)..=i].iter().map(|(_, x)| *x).collect()
    }

    /// The move client `c` made just before `m`.
    pub fn prev_move(&self, c: u16, m: u32) -> Option<u32> {
        let v = self.order.get(&c)?;
        let i = v.iter().position(|(_, x)| *x == m)?;
        v.get(i.checked_sub(1)?).map(|(_, x)| *x)
    }

    /// Client `c`'s moves with timestamps strictly between those of `a` and `b`.
    pub fn moves_between(&self, c: u16, a: u32, b: u32) -> Vec<u32> {
        let (Some(ta), Some(tb)) = (self.ts_of(c, a), self.ts_of(c, b)) else {
            return Vec::new();
        };
        self.order.get(&c).map_or_else(Vec::new, |v| {
            v.iter()
                .filter(|(t, _)| *t > ta && *t < tb)
                .map(|(_, m)| *m)
                .collect()
        })
    }

    fn client(&mut self, c: u16) -> &mut PerClient {
        self.clients.entry(c).or_default()
    }

    fn trace_record(&mut self, r: &'a Record, v: &'a MoveValues) {
        let Some(c) = v.owner else {
            return;
        };
        match (r.machine, v.exec) {
            (Machine::Client(_), _) => self
                .trace
                .client
                .entry((c, v.move_id))
                .or_default()
                .push((r.t, v)),
            (Machine::Server, Execution::Remote) => {
                self.trace.server.insert((c, v.move_id), v);
            }
            _ => {}
        }
    }

    /// One record, by where it happened.
    fn record(&mut self, r: &'a Record) {
        match r.machine {
            Machine::Client(c) => self.client_record(c, r),
            Machine::Server => self.server_record(r),
        }
        self.any_record(r);
    }

    fn client_record(&mut self, c: u16, r: &'a Record) {
        let t = r.t;
        match &r.event {
            Event::MoveClosed {
                move_id,
                frames,
                substeps,
                timestamp,
                delta,
            } => {
                let m = MoveFacts {
                    t,
                    frames: *frames,
                    substeps: *substeps,
                    timestamp: *timestamp,
                    delta: *delta,
                };
                self.client(c).moves.insert(*move_id, m);
            }
            Event::DashPressed => self.client(c).presses.push(t),
            Event::Role {
                role: Role::AutonomousProxy,
                ..
            } => self.client(c).first_batch.push((t, 0)),
            Event::MovesSent { new_moves, .. } => {
                if let Some(last) = self.client(c).first_batch.last_mut()
                    && last.1 == 0
                {
                    last.1 = u32::from(*new_moves);
                }
            }
            Event::OneShot { exec, .. } if exec.is_live() => self.client(c).client_one_shots += 1,
            Event::Log { text, .. } if text.contains("AGMC_WorldTimeReplicator") => {
                self.clock_warning.get_or_insert_with(|| text.clone());
            }
            Event::Log { text, .. } if text.starts_with("GMC: ") => {
                self.client(c).notices.push((t, text.clone()))
            }
            Event::ClockSync { synced_time, .. } => self
                .client(c)
                .clock_syncs
                .push((t, format!("the clock was re-synced to {synced_time:.6} s"))),
            Event::Rtt { .. } => self.client(c).rtts.push(t),
            Event::Correction { move_id, .. } => self
                .client(c)
                .corrected
                .entry(*move_id)
                .or_default()
                .push(t),
            Event::TransitionDetected {
                in_sync_applied, ..
            } => {
                if *in_sync_applied {
                    self.tallies.transitions_in_sync += 1;
                } else {
                    self.tallies.transitions_real += 1;
                }
            }
            _ => {}
        }
    }

    fn server_record(&mut self, r: &'a Record) {
        let t = r.t;
        match &r.event {
            Event::Log { level, text } => {
                if *level == LogLevel::Error
                    && text.contains("bound a different binding list")
                    && let Some(c) = text
                        .strip_prefix("client ")
                        .and_then(|s| s.split(' ').next())
                        .and_then(|n| n.parse().ok())
                {
                    self.mismatch_logged.insert(c);
                }
            }
            Event::RemoteMoveExecuted(x) => {
                self.client(x.client)
                    .executed
                    .insert(x.move_id, (t, x.delta));
            }
            Event::OneShot {
                owner: Some(c),
                kind,
                exec: Execution::Remote,
                ..
            } => {
                let pc = self.client(*c);
                pc.server_one_shots += 1;
                if *kind == OneShotKind::DashFired {
                    pc.server_dashes.push(t);
                }
            }
            Event::Joined { client, pawn, .. } => {
                self.pawn_of.insert(*client, *pawn);
            }
            Event::TurretHit { pawn } => {
                if let Some(c) = self
                    .pawn_of
                    .iter()
                    .find(|(_, p)| **p == *pawn)
                    .map(|(c, _)| *c)
                {
                    self.client(c).turret.push(t);
                }
            }
            Event::MovesSkipped { client, from, to } => {
                self.client(*client).skipped.push((t, *from, *to))
            }
            Event::PawnSample(s) if s.kind == SampleKind::Authoritative => {
                self.positions
                    .entry(s.pawn)
                    .or_default()
                    .push((t, s.location));
                // A game log has no joins: its samples say whose pawn each is.
                if let Some(c) = s.owner {
                    self.pawn_of.entry(c).or_insert(s.pawn);
                }
            }
            Event::LogContents(c) => self.log.contents = Some(c),
            _ => {}
        }
    }

    /// Records that count wherever they happened.
    fn any_record(&mut self, r: &'a Record) {
        match &r.event {
            Event::SessionChanged { what }
                if crate::session::store::participant_named(what).is_none() =>
            {
                self.session_changes.push((r.t, what.clone()))
            }
            Event::SideEffect { exec, .. } if !exec.is_live() => {
                self.tallies.side_effects_replayed += 1
            }
            Event::ProxiesDisplayed(x) => {
                self.tallies.team_unknown += u64::from(x.team_unknown_frames)
            }
            Event::ProxyEffect { .. } => self.tallies.proxy_effects += 1,
            Event::LoggedMove(m) => {
                self.log.moves.insert((m.client, m.move_id, m.stage), m);
            }
            Event::LoggedCheck(c) => self.log.checks.push((r.t, c)),
            _ => {}
        }
    }

    /// Whether the records come from a game log.
    pub fn imported(&self) -> bool {
        self.log.contents.is_some()
    }

    /// The binding of a value by its name (the component's member, for a game log).
    pub fn binding(&self, name: &str) -> Option<&'a Binding> {
        self.bindings.iter().find(|b| &*b.name == name)
    }

    /// Whether a value is one the logs show validated as an output (a failed check of a
    /// move's Output state named it): whatever its mode, it is not an input.
    pub fn validated_output(&self, name: &str) -> bool {
        self.log.checks.iter().any(|(_, k)| {
            k.state == Some(crate::model::logged::CheckedState::Output)
                && k.deviations.iter().any(|d| &*d.binding == name)
        })
    }

    /// The prediction mode of a value, when known: the binding list's (a component's, for a
    /// game log), else GMC's default for its integrated values.
    pub fn mode_of(&self, name: &str) -> Option<PredictionMode> {
        if let Some(b) = self.binding(name) {
            return Some(b.prediction);
        }
        match name {
            "ActorBase" | "ActorLocation" | "ActorRotation" | "ActorScale" => {
                Some(PredictionMode::ServerAuth_Output_ServerValidated)
            }
            "LinearVelocity" | "AngularVelocity" => {
                Some(PredictionMode::ServerAuth_Output_ClientValidated)
            }
            "ControlRotation" => Some(PredictionMode::ClientAuth_Input),
            _ => None,
        }
    }

    pub fn per(&self, c: u16) -> Option<&PerClient> {
        self.clients.get(&c)
    }
}

/// Whether any time in `times` lies in `from..=to`.
pub(super) fn any_between(times: &[f64], from: f64, to: f64) -> bool {
    let i = times.partition_point(|x| *x < from);
    times.get(i).is_some_and(|x| *x <= to)
}
