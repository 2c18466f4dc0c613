//! The desync doctor: for every correction in a session, which bound values deviated (all of
//! them, as with full validation), by how much against their tolerance, in which move (and
//! how many sub-steps it had), and the most likely cause from the checklist of GMC pitfalls,
//! with the evidence. A session report ranks the causes and lists findings that cause no
//! correction (side effects on replay, proxy problems).
//!
//! Where the recording carries the value trace (`value_trace`), the doctor also finds the
//! stage of the corrected move where client and server first parted: already at its entry, in
//! which sub-step, or after the tick. [`examine_recording`] re-simulates a virtual-time
//! recording without the trace to get it (the same session, exactly, with the trace on).
//!
//! The doctor reads only what a recording holds: the records and the header's binding list.
//! It knows the demo pawn (which members its tick writes, which values a dash drives), as an
//! engineer knows their own pawn; it never reads the preset's pitfall switches.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::model::binding::{Binding, CombineMode, SimulationMode};
use crate::model::pawn::{
    CROWD_RADIUS, Execution, Field, OneShotKind, PawnValues, default_bindings,
};
use crate::model::settings::Faults;
use crate::model::telemetry::{
    DetectedBy, Event, LogLevel, Machine, MoveValues, Record, Role, SampleKind,
};
use crate::session::recording::Recording;

/// A cause from the checklist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// Client and server bind different lists: every exchanged state is garbage.
    BindingMismatch,
    /// A member the tick writes is not bound: replays and combined re-runs start from the
    /// wrong value.
    UnboundMember,
    /// A one-frame input was merged away (bound AlwaysCombine): the server never saw it.
    InputPulseLost,
    /// A one-shot raised from bound state fired again on a combined re-run (move not sealed).
    OneShotReRaised,
    /// The server decided something the client could not predict (a turret hit): an expected
    /// correction, not a bug.
    ServerDecidedOutcome,
    /// The server skipped moves that never arrived (loss or outage).
    MovesSkipped,
    /// No (or more than one) world-time replicator: timestamps in different clock domains.
    ClockDomains,
    /// The tick read other pawns as this machine displays them (proxies are in the past).
    ReadsDisplayedPawns,
    /// The tick depends on something that differs between client and server: wall-clock or
    /// world time, frame delta, unseeded random.
    NonDeterministicTick,
    /// The owning client predicted its first moves without a server-authoritative value it
    /// only gets with its first server update (spawn data that travels only bound).
    BeforeFirstServerUpdate,
}

impl Cause {
    pub fn explain(self) -> &'static str {
        match self {
            Cause::BindingMismatch => {
                "client and server bind different lists (order or set): every state they exchange is read with the wrong layout"
            }
            Cause::UnboundMember => {
                "a member the tick writes is not bound: replays and combined re-runs start from its newest value instead of the move's"
            }
            Cause::InputPulseLost => {
                "a one-frame input bound AlwaysCombine was merged away: the server never saw the press"
            }
            Cause::OneShotReRaised => {
                "a one-shot raised from bound state did not seal the move: the combined re-run raised it again"
            }
            Cause::ServerDecidedOutcome => {
                "the server decided an outcome the client cannot predict (a turret hit): an expected correction"
            }
            Cause::MovesSkipped => {
                "moves never reached the server in time (loss, outage) and were skipped"
            }
            Cause::ClockDomains => {
                "no single world-time replicator: client timestamps are in another clock domain than the server's"
            }
            Cause::ReadsDisplayedPawns => {
                "the tick reads other pawns as this machine displays them; proxies are shown in the past, so client and server see them in different places"
            }
            Cause::NonDeterministicTick => {
                "the tick reads something client and server do not share (wall-clock time, frame delta, unseeded random)"
            }
            Cause::BeforeFirstServerUpdate => {
                "the owning client predicted its first moves before its first server update, without a server-authoritative value that only travels bound (it is not also an actor property)"
            }
        }
    }

    /// The cause in a few plain words (its identifier is shown second).
    pub fn title(self) -> &'static str {
        match self {
            Cause::BindingMismatch => "Client and server bind different lists",
            Cause::UnboundMember => "A member the tick writes is not bound",
            Cause::InputPulseLost => "A one-frame input was combined away",
            Cause::OneShotReRaised => "A one-shot fired again on a re-run",
            Cause::ServerDecidedOutcome => "The server decided the outcome (expected)",
            Cause::MovesSkipped => "Moves were lost or late and skipped",
            Cause::ClockDomains => "Timestamps in another clock domain",
            Cause::ReadsDisplayedPawns => "The tick read pawns as displayed (in the past)",
            Cause::NonDeterministicTick => "The tick is not deterministic",
            Cause::BeforeFirstServerUpdate => "Predicted before the first server update",
        }
    }

    /// Every preset setting that demonstrates this cause in movescope: pitfall switches by
    /// key, or `world_time_replicators` (a lesson runs without exactly one).
    pub fn pitfalls(self) -> &'static [&'static str] {
        match self {
            Cause::NonDeterministicTick => &[
                "wall_clock_in_tick",
                "frame_delta_in_tick",
                "unseeded_random_in_tick",
            ],
            Cause::BindingMismatch => &["binding_mismatch"],
            Cause::UnboundMember => &["unbound_member"],
            Cause::InputPulseLost => &["dash_always_combine"],
            Cause::OneShotReRaised => &["no_seal_after_one_shot"],
            Cause::ReadsDisplayedPawns => &["tick_reads_proxy_transform"],
            Cause::BeforeFirstServerUpdate => &["spawn_data_only_bound"],
            Cause::ClockDomains => &["world_time_replicators"],
            Cause::ServerDecidedOutcome | Cause::MovesSkipped => &[],
        }
    }

    /// The pitfall switch that demonstrates this cause in movescope (for lessons and tests).
    pub fn pitfall(self) -> Option<&'static str> {
        match self {
            Cause::BindingMismatch => Some("binding_mismatch"),
            Cause::UnboundMember => Some("unbound_member"),
            Cause::InputPulseLost => Some("dash_always_combine"),
            Cause::OneShotReRaised => Some("no_seal_after_one_shot"),
            Cause::ReadsDisplayedPawns => Some("tick_reads_proxy_transform"),
            Cause::NonDeterministicTick => Some("wall_clock_in_tick"),
            Cause::BeforeFirstServerUpdate => Some("spawn_data_only_bound"),
            Cause::ClockDomains => Some("world_time_replicators"),
            Cause::ServerDecidedOutcome | Cause::MovesSkipped => None,
        }
    }
}

/// One deviating value of a correction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviationReport {
    pub binding: String,
    pub predicted: String,
    pub authoritative: String,
    pub error: f64,
    pub tolerance: f64,
    /// Error over tolerance (how far past the line).
    pub ratio: f64,
}

/// One correction, explained.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnosis {
    pub t: f64,
    pub client: u16,
    pub move_id: u32,
    /// Sub-steps and frames of the move as the client closed it (when recorded).
    pub substeps: Option<u16>,
    pub frames: Option<u16>,
    pub found_by: String,
    pub replay_depth: u16,
    pub deviations: Vec<DeviationReport>,
    /// Where the corrected move's values first parted (needs the value trace).
    pub parted: Option<Parting>,
    pub cause: Cause,
    pub evidence: String,
}

/// The stage of a move's execution where client and server first held different values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "at", rename_all = "snake_case")]
pub enum Stage {
    /// Before the first sub-step: the move began from different values (an earlier move, or a
    /// change outside the tick such as a server-decided outcome).
    Entry,
    /// After sub-step `index` (1-based) of `of`: the tick computed differently there.
    SubStep { index: u16, of: u16 },
    /// Every sub-step agreed, the end did not: something after the tick changed a value.
    AfterTick,
    /// The two sides ran different numbers of sub-steps (different deltas) and agreed until
    /// one of them stopped.
    SubStepCount,
    /// The traced values agree within tolerance at every stage.
    Nowhere,
}

/// Where client and server parted in a corrected move, from the value trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Parting {
    pub stage: Stage,
    /// The bound values that differ there (beyond their tolerance).
    pub bindings: Vec<String>,
    /// The first of them, as the client and the server had it there.
    pub client_value: String,
    pub server_value: String,
    /// The client's execution compared (its last before the server's verdict): live, combined
    /// or replay.
    pub client_exec: String,
    pub client_substeps: u16,
    pub server_substeps: u16,
}

impl Parting {
    /// One line for people.
    pub fn describe(&self) -> String {
        let at = match self.stage {
            Stage::Entry => "already at the move's entry, before its first sub-step (carried over from an earlier move, or changed outside the tick)".to_string(),
            Stage::SubStep { index, of } => format!("in sub-step {index} of {of}"),
            Stage::AfterTick => "after the tick (every sub-step agreed)".to_string(),
            Stage::SubStepCount => format!(
                "in the number of sub-steps (client {}, server {})",
                self.client_substeps, self.server_substeps
            ),
            Stage::Nowhere => {
                return format!(
                    "the traced values agree within tolerance at every stage (client's {} execution against the server's)",
                    self.client_exec
                );
            }
        };
        format!(
            "first parted {at}: {} (client {}, server {}; client's {} execution against the server's)",
            self.bindings.join(", "),
            self.client_value,
            self.server_value,
            self.client_exec
        )
    }
}

/// Compares the client's and the server's execution of one move, stage by stage, on the
/// given bound values.
fn parting(bindings: &[&Binding], client: &MoveValues, server: &MoveValues) -> Parting {
    let differ = |a: &PawnValues, b: &PawnValues| -> Vec<&Binding> {
        bindings
            .iter()
            .copied()
            .filter(|bd| bd.ty.distance(&a.get(bd.field), &b.get(bd.field)) > bd.tolerance)
            .collect()
    };
    let (nc, ns) = (client.substeps.len(), server.substeps.len());
    let mut found = None;
    let d = differ(&client.entry, &server.entry);
    if !d.is_empty() {
        found = Some((Stage::Entry, d, &client.entry, &server.entry));
    }
    if found.is_none() {
        for (i, (a, b)) in client.substeps.iter().zip(&server.substeps).enumerate() {
            let d = differ(a, b);
            if !d.is_empty() {
                found = Some((
                    Stage::SubStep {
                        index: i as u16 + 1,
                        of: nc.max(ns) as u16,
                    },
                    d,
                    a,
                    b,
                ));
                break;
            }
        }
    }
    if found.is_none() {
        let d = differ(&client.exit, &server.exit);
        if !d.is_empty() {
            let stage = if nc == ns {
                Stage::AfterTick
            } else {
                Stage::SubStepCount
            };
            found = Some((stage, d, &client.exit, &server.exit));
        }
    }
    let (stage, names, cv, sv) = match found {
        Some((stage, d, a, b)) => (
            stage,
            d.iter().map(|bd| bd.name.to_string()).collect(),
            d.first()
                .map_or(String::new(), |bd| a.get(bd.field).to_string()),
            d.first()
                .map_or(String::new(), |bd| b.get(bd.field).to_string()),
        ),
        None => (Stage::Nowhere, Vec::new(), String::new(), String::new()),
    };
    Parting {
        stage,
        bindings: names,
        client_value: cv,
        server_value: sv,
        client_exec: format!("{:?}", client.exec).to_lowercase(),
        client_substeps: nc as u16,
        server_substeps: ns as u16,
    }
}

/// Something wrong that causes no correction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub pitfall: String,
    pub evidence: String,
}

/// A cause and how many corrections it explains.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CauseCount {
    pub cause: Cause,
    pub corrections: usize,
    pub explain: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Where the value trace came from: recorded, re-simulated, or why there is none.
    pub value_trace: String,
    pub corrections: usize,
    /// Causes, most corrections first.
    pub causes: Vec<CauseCount>,
    pub findings: Vec<Finding>,
    /// Changes made to the running session (live recordings): when, and what.
    pub session_changes: Vec<(f64, String)>,
    pub diagnoses: Vec<Diagnosis>,
}

impl Report {
    /// The cause behind most corrections.
    pub fn top_cause(&self) -> Option<Cause> {
        self.causes.first().map(|c| c.cause)
    }

    /// The report as text for people.
    pub fn to_text(&self, max_listed: usize) -> String {
        let mut s = format!(
            "{} corrections. Value trace: {}.\n",
            self.corrections, self.value_trace
        );
        if !self.causes.is_empty() {
            s += "\nMost likely causes:\n";
            for c in &self.causes {
                s += &format!(
                    "  {:>5}  {} ({:?}): {}\n",
                    c.corrections,
                    c.cause.title(),
                    c.cause,
                    c.explain
                );
            }
        }
        if !self.session_changes.is_empty() {
            s += "\nThe session was changed while it ran:\n";
            for (t, what) in &self.session_changes {
                s += &format!("  {t:9.3} s  {what}\n");
            }
        }
        if !self.findings.is_empty() {
            s += "\nFindings without corrections:\n";
            for f in &self.findings {
                s += &format!("  {}: {}\n", f.pitfall, f.evidence);
            }
        }
        if !self.diagnoses.is_empty() {
            s += &format!(
                "\nCorrections (first {} of {}):\n",
                max_listed.min(self.diagnoses.len()),
                self.diagnoses.len()
            );
        }
        for d in self.diagnoses.iter().take(max_listed) {
            s += &format!(
                "  {:.3} s  client {} move {}{}, found by the {}, replayed {}: {:?}\n",
                d.t,
                d.client,
                d.move_id,
                match (d.frames, d.substeps) {
                    (Some(f), Some(k)) => format!(" ({f} frames, {k} sub-steps)"),
                    _ => String::new(),
                },
                d.found_by,
                d.replay_depth,
                d.cause
            );
            for v in &d.deviations {
                s += &format!(
                    "      {} predicted {} but server {}: error {:.3} = {:.1}× tolerance {:.3}\n",
                    v.binding, v.predicted, v.authoritative, v.error, v.ratio, v.tolerance
                );
            }
            if let Some(p) = &d.parted {
                s += &format!("      {}\n", p.describe());
            }
            s += &format!("      evidence: {}\n", d.evidence);
        }
        s
    }
}

/// Seconds before a correction in which events count as its evidence.
const WINDOW: f64 = 1.0;

/// Examines a session: its binding list (from the recording header) and its records. The
/// value trace, if any, is read from the records.
pub fn examine(bindings: &[Binding], records: &[Record]) -> Report {
    let traced = records
        .iter()
        .any(|r| matches!(r.event, Event::MoveValues(_)));
    let source = if traced {
        "recorded"
    } else {
        "not recorded (switch value_trace on to see where values parted)"
    };
    examine_with(bindings, records, &[], source)
}

/// Examines a recording; when it has no value trace but was made in virtual time from its
/// start, re-simulates it with the trace on (checking that the re-run reproduces every record)
/// to find where each corrected move parted.
pub fn examine_recording(rec: &Recording, records: &[Record]) -> Report {
    let corrected: BTreeSet<(u16, u32)> = records
        .iter()
        .filter_map(|r| match (&r.machine, &r.event) {
            (Machine::Client(c), Event::Correction { move_id, .. }) => Some((*c, *move_id)),
            _ => None,
        })
        .collect();
    let (values, source) =
        crate::analysis::valuetrace::of_recording(rec, records, None, &|c, m| {
            corrected.contains(&(c, m))
        });
    examine_with(&rec.header.bindings, records, &values, &source)
}

fn examine_with(
    bindings: &[Binding],
    records: &[Record],
    extra: &[Record],
    source: &str,
) -> Report {
    // Where a corrected move parted is judged on every bound value: the one that parted
    // first is not always the one the correction lists (a knocked velocity shows up as a
    // location error).
    let all_bound: Vec<&Binding> = bindings.iter().collect();
    // The value trace: each client's executions of a move, and the server's.
    let mut client_exec: BTreeMap<(u16, u32), Vec<(f64, &MoveValues)>> = BTreeMap::new();
    let mut server_exec: BTreeMap<(u16, u32), &MoveValues> = BTreeMap::new();
    for r in records.iter().chain(extra) {
        if let Event::MoveValues(v) = &r.event
            && let Some(c) = v.owner
        {
            match (r.machine, v.exec) {
                (Machine::Client(_), _) => {
                    client_exec
                        .entry((c, v.move_id))
                        .or_default()
                        .push((r.t, v));
                }
                (Machine::Server, Execution::Remote) => {
                    server_exec.insert((c, v.move_id), v);
                }
                _ => {}
            }
        }
    }
    // Static evidence from the binding list, against the demo pawn.
    let bound: BTreeSet<&str> = bindings.iter().map(|b| &*b.name).collect();
    let written: Vec<String> = default_bindings(&Faults::default())
        .iter()
        .map(|b| b.name.to_string())
        .filter(|n| !bound.contains(n.as_str()))
        .collect();
    let by_name = |f: Field| bindings.iter().find(|b| b.field == f);
    let dash_always_combine =
        by_name(Field::InputDash).is_some_and(|b| b.combine == CombineMode::AlwaysCombine);

    // Dynamic evidence, per client.
    let mut mismatch_logged: BTreeSet<u16> = BTreeSet::new();
    let mut clock_warning: Option<String> = None;
    let mut moves: BTreeMap<(u16, u32), (u16, u16)> = BTreeMap::new();
    let mut presses: BTreeMap<u16, Vec<f64>> = BTreeMap::new();
    let mut server_dashes: BTreeMap<u16, Vec<f64>> = BTreeMap::new();
    // One-shots the owning client raised in live executions against those the server raised
    // for its moves: more on the client means some were raised again in combined re-runs.
    let mut client_one_shots: BTreeMap<u16, usize> = BTreeMap::new();
    let mut server_one_shots: BTreeMap<u16, usize> = BTreeMap::new();
    let mut turret: BTreeMap<u16, Vec<f64>> = BTreeMap::new();
    let mut skipped: BTreeMap<u16, Vec<f64>> = BTreeMap::new();
    let mut pawn_of: BTreeMap<u16, u16> = BTreeMap::new();
    let mut positions: BTreeMap<u16, Vec<(f64, glam::DVec3)>> = BTreeMap::new();
    let mut side_effects_replayed = 0usize;
    let mut team_unknown = 0u64;
    let mut transitions_in_sync = 0usize;
    let mut transitions_real = 0usize;
    let mut proxy_effects = 0usize;
    let mut session_changes = Vec::new();
    // Per client, each (re)join's time and the last move id of the first batch it sent after
    // (0 until it sent one): the moves it predicted before any server update.
    let mut first_batch: BTreeMap<u16, Vec<(f64, u32)>> = BTreeMap::new();
    for r in records {
        match (&r.machine, &r.event) {
            (_, Event::SessionChanged { what }) => session_changes.push((r.t, what.clone())),
            (Machine::Server, Event::Log { level, text }) => {
                if *level == LogLevel::Error
                    && text.contains("bound a different binding list")
                    && let Some(c) = text
                        .strip_prefix("client ")
                        .and_then(|s| s.split(' ').next())
                        .and_then(|n| n.parse().ok())
                {
                    mismatch_logged.insert(c);
                }
            }
            (Machine::Client(_), Event::Log { text, .. })
                if text.contains("AGMC_WorldTimeReplicator") =>
            {
                clock_warning.get_or_insert_with(|| text.clone());
            }
            (
                Machine::Client(c),
                Event::MoveClosed {
                    move_id,
                    frames,
                    substeps,
                    ..
                },
            ) => {
                moves.insert((*c, *move_id), (*frames, *substeps));
            }
            (Machine::Client(c), Event::DashPressed) => presses.entry(*c).or_default().push(r.t),
            (
                Machine::Client(c),
                Event::Role {
                    role: Role::AutonomousProxy,
                    ..
                },
            ) => first_batch.entry(*c).or_default().push((r.t, 0)),
            (Machine::Client(c), Event::MovesSent { new_moves, .. }) => {
                if let Some(last) = first_batch.get_mut(c).and_then(|v| v.last_mut())
                    && last.1 == 0
                {
                    last.1 = u32::from(*new_moves);
                }
            }
            (Machine::Client(c), Event::OneShot { exec, .. }) if exec.is_live() => {
                *client_one_shots.entry(*c).or_default() += 1;
            }
            (
                Machine::Server,
                Event::OneShot {
                    owner: Some(c),
                    kind,
                    exec: Execution::Remote,
                    ..
                },
            ) => {
                *server_one_shots.entry(*c).or_default() += 1;
                if *kind == OneShotKind::DashFired {
                    server_dashes.entry(*c).or_default().push(r.t);
                }
            }
            (Machine::Server, Event::Joined { client, pawn, .. }) => {
                pawn_of.insert(*client, *pawn);
            }
            (Machine::Server, Event::TurretHit { pawn }) => {
                if let Some((c, _)) = pawn_of.iter().find(|(_, p)| **p == *pawn) {
                    turret.entry(*c).or_default().push(r.t);
                }
            }
            (Machine::Server, Event::MovesSkipped { client, .. }) => {
                skipped.entry(*client).or_default().push(r.t);
            }
            (Machine::Server, Event::PawnSample(s)) if s.kind == SampleKind::Authoritative => {
                positions.entry(s.pawn).or_default().push((r.t, s.location));
            }
            (_, Event::SideEffect { exec, .. }) if !exec.is_live() => {
                side_effects_replayed += 1;
            }
            (_, Event::ProxiesDisplayed(x)) => team_unknown += u64::from(x.team_unknown_frames),
            (
                Machine::Client(_),
                Event::TransitionDetected {
                    in_sync_applied, ..
                },
            ) => {
                if *in_sync_applied {
                    transitions_in_sync += 1;
                } else {
                    transitions_real += 1;
                }
            }
            (_, Event::ProxyEffect { .. }) => proxy_effects += 1,
            _ => {}
        }
    }
    let excess = |c: u16| {
        let (cl, sv) = (
            client_one_shots.get(&c).copied().unwrap_or(0),
            server_one_shots.get(&c).copied().unwrap_or(0),
        );
        (cl > sv + (sv / 10).max(3)).then(|| cl - sv)
    };
    let near = |list: Option<&Vec<f64>>, t: f64| {
        list.is_some_and(|v| {
            let i = v.partition_point(|x| *x < t - WINDOW);
            v.get(i).is_some_and(|x| *x <= t)
        })
    };
    // Was another pawn within the crowd radius of `pawn` at `t` (server's view)?
    let crowded =
        |pawn: u16, t: f64| -> Option<bool> {
            let at = |p: u16| {
                let v = positions.get(&p)?;
                let i = v.partition_point(|(x, _)| *x <= t);
                v.get(i.checked_sub(1)?).map(|(_, l)| *l)
            };
            let me = at(pawn)?;
            Some(positions.keys().filter(|p| **p != pawn).any(|p| {
                at(*p).is_some_and(|l| l.truncate().distance(me.truncate()) < CROWD_RADIUS)
            }))
        };
    // How often pawns are crowded at all (the baseline the correction times are compared to).
    let sample_times: Vec<f64> = positions
        .values()
        .next()
        .map(|v| v.iter().map(|(t, _)| *t).collect())
        .unwrap_or_default();

    let mut diagnoses = Vec::new();
    let mut unexplained: Vec<usize> = Vec::new();
    for r in records {
        let (
            Machine::Client(c),
            Event::Correction {
                move_id,
                detected_by,
                deviations,
                replay_depth,
                ..
            },
        ) = (&r.machine, &r.event)
        else {
            continue;
        };
        let c = *c;
        let (frames, substeps) = moves
            .get(&(c, *move_id))
            .map_or((None, None), |(f, k)| (Some(*f), Some(*k)));
        let devs: Vec<DeviationReport> = deviations
            .iter()
            .map(|d| DeviationReport {
                binding: d.binding.to_string(),
                predicted: d.predicted.to_string(),
                authoritative: d.authoritative.to_string(),
                error: d.error,
                tolerance: d.tolerance,
                ratio: if d.tolerance > 0.0 {
                    d.error / d.tolerance
                } else {
                    f64::INFINITY
                },
            })
            .collect();
        let bds: Vec<&Binding> = devs
            .iter()
            .filter_map(|d| bindings.iter().find(|bd| *bd.name == *d.binding))
            .collect();
        // The client's execution the verdict judged: for the client's own check, its last
        // before the verdict; for the server's, the last whose end is what the client sent
        // (the claimed value), since a replay may have re-run the move after it left.
        let execs: Vec<&MoveValues> = client_exec
            .get(&(c, *move_id))
            .map(|v| {
                v.iter()
                    .filter(|(t, _)| *t <= r.t)
                    .map(|(_, m)| *m)
                    .collect()
            })
            .unwrap_or_default();
        let judged = match detected_by {
            DetectedBy::Client => execs.last().copied(),
            DetectedBy::Server => execs
                .iter()
                .rev()
                .find(|m| {
                    deviations.first().is_some_and(|d| {
                        bds.first().is_some_and(|bd| {
                            bd.ty
                                .distance(&bd.ty.quantize(&m.exit.get(bd.field)), &d.predicted)
                                < 1e-9
                        })
                    })
                })
                .or(execs.last())
                .copied(),
        };
        let server_side = server_exec.get(&(c, *move_id)).copied();
        let parted = match (judged, server_side) {
            (Some(a), Some(b)) => Some(parting(&all_bound, a, b)),
            _ => None,
        };
        // With the value trace: the unbound members the move began with on each side (the
        // value a replay or combined re-run did not restore).
        let unbound_entry: Vec<String> = match (judged, server_side) {
            (Some(a), Some(b)) => written
                .iter()
                .filter_map(|name| {
                    let f = Field::from_name(name)?;
                    let (x, y) = (a.entry.get(f), b.entry.get(f));
                    (f.natural_type().distance(&x, &y) > 1e-6).then(|| {
                        let why = match a.exec {
                            Execution::Replay => {
                                "a value changed during replay without being bound"
                            }
                            Execution::Combined => {
                                "the combined re-run began from its newest value, not the move's (unbound values are not reset)"
                            }
                            _ => "not bound, so no correction restores it",
                        };
                        format!(
                            "{name} (not bound) entered the client's {} execution as {x} but the server's as {y}: {why}",
                            format!("{:?}", a.exec).to_lowercase()
                        )
                    })
                })
                .collect(),
            _ => Vec::new(),
        };
        let dash_values = devs
            .iter()
            .any(|d| d.binding == "dash_cooldown" || d.binding == "dash_count");
        let one_shot_values = dash_values || devs.iter().any(|d| d.binding == "stride");
        let lost_press =
            presses.get(&c).map_or(0, |v| v.len()) > server_dashes.get(&c).map_or(0, |v| v.len());
        let (cause, evidence) = if mismatch_logged.contains(&c) {
            (
                Cause::BindingMismatch,
                format!("the server logged that client {c} bound a different binding list"),
            )
        } else if !written.is_empty() {
            (
                Cause::UnboundMember,
                format!(
                    "the pawn's tick writes {} but the recording's binding list has no such binding{}",
                    written.join(", "),
                    if unbound_entry.is_empty() {
                        String::new()
                    } else {
                        format!("; {}", unbound_entry.join("; "))
                    }
                ),
            )
        } else if let Some(last) = first_batch
            .get(&c)
            .and_then(|v| v.iter().rev().find(|(t, _)| *t <= r.t))
            .map(|(_, last)| *last)
            .filter(|last| *move_id <= *last)
        {
            (
                Cause::BeforeFirstServerUpdate,
                format!(
                    "move {move_id} was in the first batch client {c} sent after joining (moves 1 to {last}), predicted before any server update reached it; {} differed",
                    devs.iter()
                        .map(|d| d.binding.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        } else if dash_always_combine && lost_press && (dash_values || near(presses.get(&c), r.t)) {
            (
                Cause::InputPulseLost,
                format!(
                    "input_dash is bound AlwaysCombine; client {c} pressed dash {} times, the server fired {} dashes for it",
                    presses.get(&c).map_or(0, |v| v.len()),
                    server_dashes.get(&c).map_or(0, |v| v.len())
                ),
            )
        } else if let Some(extra) = excess(c).filter(|_| one_shot_values) {
            (
                Cause::OneShotReRaised,
                format!(
                    "client {c} raised {extra} more one-shots than the server did for its moves (raised again in combined re-runs), and this correction concerns a value one-shots drive"
                ),
            )
        } else if near(turret.get(&c), r.t) {
            (
                Cause::ServerDecidedOutcome,
                format!("the server's turret hit client {c}'s pawn within {WINDOW} s before"),
            )
        } else if near(skipped.get(&c), r.t) {
            (
                Cause::MovesSkipped,
                format!("the server skipped moves of client {c} within {WINDOW} s before"),
            )
        } else if let Some(w) = &clock_warning {
            (Cause::ClockDomains, format!("a client logged: {w}"))
        } else {
            unexplained.push(diagnoses.len());
            (Cause::NonDeterministicTick, String::new())
        };
        diagnoses.push(Diagnosis {
            t: r.t,
            client: c,
            move_id: *move_id,
            substeps,
            frames,
            found_by: format!("{detected_by:?}").to_lowercase(),
            replay_depth: *replay_depth,
            deviations: devs,
            parted,
            cause,
            evidence,
        });
    }
    // The rest: does the correction follow other pawns' proximity, or nothing shared at all?
    if !unexplained.is_empty() {
        let baseline = {
            let pawns: Vec<u16> = pawn_of.values().copied().collect();
            let mut n = 0usize;
            let mut k = 0usize;
            for t in sample_times.iter().step_by(5) {
                for p in &pawns {
                    if let Some(c) = crowded(*p, *t) {
                        n += 1;
                        k += usize::from(c);
                    }
                }
            }
            (n > 0).then(|| k as f64 / n as f64)
        };
        let flags: Vec<Option<bool>> = unexplained
            .iter()
            .map(|&i| {
                let d = &diagnoses[i];
                pawn_of.get(&d.client).and_then(|p| crowded(*p, d.t))
            })
            .collect();
        let known = flags.iter().flatten().count();
        let crowded_share = (known > 0)
            .then(|| flags.iter().flatten().filter(|c| **c).count() as f64 / known as f64);
        for (&i, flag) in unexplained.iter().zip(&flags) {
            let d = &mut diagnoses[i];
            match (crowded_share, baseline, flag) {
                (Some(share), Some(base), Some(true)) if share >= 0.8 && share > base + 0.2 => {
                    d.cause = Cause::ReadsDisplayedPawns;
                    d.evidence = format!(
                        "another pawn was within {CROWD_RADIUS} cm of client {}'s pawn at this correction; {:.0} % of such corrections happened that close, against {:.0} % of the time overall",
                        d.client,
                        share * 100.0,
                        base * 100.0
                    );
                }
                _ => {
                    d.evidence = format!(
                        "the network was clean around it (no skipped moves, no server-decided outcome), the binding lists agree and every member the tick writes is bound, and it does not follow other pawns' proximity{}: what the tick reads differs between client and server",
                        crowded_share.map_or(String::new(), |s| format!(
                            " ({:.0} % of these corrections near another pawn, {:.0} % of the time overall)",
                            s * 100.0,
                            baseline.unwrap_or(0.0) * 100.0
                        ))
                    );
                }
            }
        }
    }

    let mut counts: BTreeMap<Cause, usize> = BTreeMap::new();
    for d in &diagnoses {
        *counts.entry(d.cause).or_default() += 1;
    }
    let mut causes: Vec<CauseCount> = counts
        .into_iter()
        .map(|(cause, corrections)| CauseCount {
            cause,
            corrections,
            explain: cause.explain().to_string(),
        })
        .collect();
    causes.sort_by(|a, b| {
        b.corrections
            .cmp(&a.corrections)
            .then(a.cause.cmp(&b.cause))
    });

    let mut findings = Vec::new();
    if side_effects_replayed > 0 {
        findings.push(Finding {
            pitfall: "unguarded_side_effects".into(),
            evidence: format!(
                "{side_effects_replayed} cosmetic side effects played in replayed or simulated executions (they should play in live moves only)"
            ),
        });
    }
    if team_unknown > 0 {
        findings.push(Finding {
            pitfall: "spawn_data_only_bound".into(),
            evidence: format!(
                "proxies were shown without their team for {team_unknown} proxy-frames (spawn data that only travels as a bound value is not applied during PostSpawnSmoothingPause)"
            ),
        });
    }
    if transitions_in_sync > 0 {
        findings.push(Finding {
            pitfall: "transition_in_sync_applied".into(),
            evidence: format!(
                "the dash transition was detected {transitions_in_sync} times in OnSyncDataApplied ({transitions_real} detections in WorldTickEnd); it fires with historical states"
            ),
        });
    }
    let dash_count_none =
        by_name(Field::DashCount).is_some_and(|b| b.simulation == SimulationMode::None);
    if dash_count_none {
        let dashes: usize = server_dashes.values().map(|v| v.len()).sum();
        findings.push(Finding {
            pitfall: "proxy_value_not_simulated".into(),
            evidence: format!(
                "dash_count is bound SimulationMode None: proxies played {proxy_effects} dash effects for {dashes} dashes"
            ),
        });
    }
    if dash_always_combine && !diagnoses.iter().any(|d| d.cause == Cause::InputPulseLost) {
        let p: usize = presses.values().map(|v| v.len()).sum();
        let f: usize = server_dashes.values().map(|v| v.len()).sum();
        if p > f {
            findings.push(Finding {
                pitfall: "dash_always_combine".into(),
                evidence: format!(
                    "input_dash is bound AlwaysCombine: {p} presses, {f} dashes on the server"
                ),
            });
        }
    }
    let over: Vec<String> = client_one_shots
        .keys()
        .filter_map(|c| excess(*c).map(|n| format!("client {c}: {n} more")))
        .collect();
    if !over.is_empty() && !diagnoses.iter().any(|d| d.cause == Cause::OneShotReRaised) {
        findings.push(Finding {
            pitfall: "no_seal_after_one_shot".into(),
            evidence: format!(
                "clients raised more one-shots than the server did for their moves ({}): raised again in combined re-runs because the move was not sealed",
                over.join(", ")
            ),
        });
    }
    if let Some(w) = &clock_warning
        && !diagnoses.iter().any(|d| d.cause == Cause::ClockDomains)
    {
        findings.push(Finding {
            pitfall: "world_time_replicators".into(),
            evidence: w.clone(),
        });
    }
    Report {
        value_trace: source.to_string(),
        corrections: diagnoses.len(),
        causes,
        findings,
        session_changes,
        diagnoses,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_session_has_nothing_to_report() {
        let p = crate::session::preset::Preset::default();
        let mut records = Vec::new();
        crate::sim::run_deterministic(&p, "t", 10.0, &mut |r| records.push(r.clone())).unwrap();
        let b = p.checked_bindings().unwrap();
        let r = examine(b.list(), &records);
        assert_eq!(r.corrections, 0);
        assert!(r.findings.is_empty(), "{:?}", r.findings);
    }
}
