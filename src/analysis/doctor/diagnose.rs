//! The examination itself: the evidence a session's records hold (per client, over the whole
//! session), and for each correction the most likely cause with its evidence; then the
//! findings that cause no correction.

use std::collections::{BTreeMap, BTreeSet};

use super::causes::Cause;
use super::parting::parting;
use super::report::{CauseCount, DeviationReport, Diagnosis, Finding, Report};
use crate::model::binding::{Binding, CombineMode, SimulationMode};
use crate::model::pawn::{CROWD_RADIUS, Execution, Field, OneShotKind, default_bindings};
use crate::model::settings::Faults;
use crate::model::telemetry::{
    DetectedBy, Event, LogLevel, Machine, MoveValues, Record, Role, SampleKind,
};

/// Seconds before a correction in which events count as its evidence.
const WINDOW: f64 = 1.0;

pub(super) fn examine_with(
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
    let mut client_exec: ClientExecs = BTreeMap::new();
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
    // Static evidence from the binding list, against the demo pawn: only for a list that binds
    // the demo pawn's members (a game log's list, or none, says nothing of the demo pawn).
    let bound: BTreeSet<&str> = bindings.iter().map(|b| &*b.name).collect();
    let demo_pawn = bindings
        .iter()
        .any(|b| !matches!(b.field, Field::Custom(_)));
    let written: Vec<String> = default_bindings(&Faults::default())
        .iter()
        .map(|b| b.name.to_string())
        .filter(|n| demo_pawn && !bound.contains(n.as_str()))
        .collect();
    let by_name = |f: Field| bindings.iter().find(|b| b.field == f);
    let dash_always_combine =
        by_name(Field::InputDash).is_some_and(|b| b.combine == CombineMode::AlwaysCombine);

    // Dynamic evidence, per client.
    let mut mismatch_logged: BTreeSet<u16> = BTreeSet::new();
    let mut clock_warning: Option<String> = None;
    let mut moves: BTreeMap<(u16, u32), (u16, u16, f64)> = BTreeMap::new();
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
            // A participant's name names a client; it changes nothing.
            (_, Event::SessionChanged { what })
                if crate::session::store::participant_named(what).is_none() =>
            {
                session_changes.push((r.t, what.clone()))
            }
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
                    timestamp,
                    ..
                },
            ) => {
                moves.insert((*c, *move_id), (*frames, *substeps, *timestamp));
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

    // When each client's moves were corrected (a correction adopts the server's state between
    // two executions).
    let mut corrected: BTreeMap<(u16, u32), Vec<f64>> = BTreeMap::new();
    for r in records {
        if let (Machine::Client(c), Event::Correction { move_id, .. }) = (&r.machine, &r.event) {
            corrected.entry((*c, *move_id)).or_default().push(r.t);
        }
    }
    // Every client move whose live execution began from values written outside the move, found
    // once (a correction then looks up the latest before it instead of scanning back).
    let outside_writes = outside_writes(bindings, &client_exec, &corrected);
    let mut diagnoses: Vec<Diagnosis> = Vec::new();
    let mut unexplained: Vec<usize> = Vec::new();
    // (diagnosis, the earlier correction whose divergence it carried).
    let mut inherits: Vec<(usize, usize)> = Vec::new();
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
        // A game log's move seen only in a batch sent has no frame or sub-step count (0).
        let (frames, substeps, timestamp) =
            moves
                .get(&(c, *move_id))
                .map_or((None, None, None), |(f, k, ts)| {
                    (
                        Some(*f).filter(|f| *f > 0),
                        Some(*k).filter(|k| *k > 0),
                        Some(*ts),
                    )
                });
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
        // A move the client sent before the correction of an earlier move reached it carried
        // that divergence: it has that correction's cause.
        let judged_t = judged.and_then(|j| exec_time(&client_exec, c, j));
        let parent = judged_t.and_then(|jt| {
            diagnoses
                .iter()
                .rposition(|d: &Diagnosis| d.client == c && d.move_id < *move_id && d.t > jt)
        });
        let (cause, evidence) = if mismatch_logged.contains(&c) {
            (
                Cause::BindingMismatch,
                format!("the server logged that client {c} bound a different binding list"),
            )
        } else if !written.is_empty() {
            (
                Cause::UnboundMember,
                format!(
                    "the pawn's tick writes {} but the binding list in force has no such binding{}",
                    written.join(", "),
                    if unbound_entry.is_empty() {
                        String::new()
                    } else {
                        format!("; {}", unbound_entry.join("; "))
                    }
                ),
            )
        } else if let Some(p) = parent {
            inherits.push((diagnoses.len(), p));
            (diagnoses[p].cause, String::new())
        } else if let Some(outside) = judged
            .map(|j| written_outside(bindings, &client_exec, &corrected, c, j))
            .filter(|w| !w.is_empty())
        {
            (
                Cause::WrittenOutsideMove,
                format!(
                    "{}: nothing in the move cycle writes a value between two moves, and the server, which only runs the moves, never made that change",
                    outside.join("; ")
                ),
            )
        } else if let Some((_, what)) = judged
            .zip(server_side)
            .filter(|(a, b)| entered_apart(bindings, a, b))
            .and_then(|_| earlier_outside_write(&outside_writes, c, *move_id))
        {
            (
                Cause::WrittenOutsideMove,
                format!(
                    "move {move_id} began on client {c} from values a little apart from the server's (within tolerance, carried from earlier moves); the latest write outside the move before it: {}",
                    what.join("; ")
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
            timestamp,
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
                        "the network was clean around it (no skipped moves, no server-decided outcome), {}, and it does not follow other pawns' proximity{}: what the tick reads differs between client and server",
                        if demo_pawn {
                            "the binding lists agree and every member the tick writes is bound"
                        } else {
                            "the binding lists agree as far as the records show (a game log cannot show a member the tick writes but does not bind: pitfall 1 looks the same)"
                        },
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

    for &(i, p) in &inherits {
        let (cause, move_id, t) = (diagnoses[p].cause, diagnoses[p].move_id, diagnoses[p].t);
        let d = &mut diagnoses[i];
        d.cause = cause;
        d.evidence = format!(
            "client {} sent move {} before the correction of its move {move_id} reached it (at {t:.3} s): the move carried that divergence, and has its cause",
            d.client, d.move_id
        );
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
    if let Some(f) = derived_input_finding(bindings, &client_exec) {
        findings.push(f);
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

/// Each client's executions of each of its moves, in time order (the value trace).
type ClientExecs<'a> = BTreeMap<(u16, u32), Vec<(f64, &'a MoveValues)>>;

/// When client `c` ran the execution `m` (one of its value-trace records).
fn exec_time(execs: &ClientExecs, c: u16, m: &MoveValues) -> Option<f64> {
    execs
        .get(&(c, m.move_id))?
        .iter()
        .find(|(_, x)| std::ptr::eq(*x, m))
        .map(|(t, _)| *t)
}

/// The last execution of client `c`'s move `n` at or before `t`.
fn last_exec<'a>(execs: &ClientExecs<'a>, c: u16, n: u32, t: f64) -> Option<(f64, &'a MoveValues)> {
    execs
        .get(&(c, n))?
        .iter()
        .rev()
        .find(|(x, _)| *x <= t)
        .copied()
}

/// With the value trace: the server-authoritative values that entered client `c`'s live or
/// combined execution `judged` other than its previous move left them, with no correction
/// between the two. Nothing in the move cycle writes between two moves: game code outside
/// the prediction path (or a modified client) did.
fn written_outside(
    bindings: &[Binding],
    execs: &ClientExecs,
    corrected: &BTreeMap<(u16, u32), Vec<f64>>,
    c: u16,
    judged: &MoveValues,
) -> Vec<String> {
    if !matches!(judged.exec, Execution::Live | Execution::Combined) || judged.move_id == 0 {
        return Vec::new();
    }
    let Some(t) = exec_time(execs, c, judged) else {
        return Vec::new();
    };
    let prev_id = judged.move_id - 1;
    let Some((pt, prev)) = last_exec(execs, c, prev_id, t) else {
        return Vec::new();
    };
    let adopted = corrected
        .get(&(c, prev_id))
        .is_some_and(|v| v.iter().any(|x| *x >= pt && *x <= t));
    if adopted {
        return Vec::new();
    }
    bindings
        .iter()
        .filter(|b| b.prediction.is_server_auth() && !b.prediction.is_input())
        .filter_map(|b| {
            let (was, now) = (b.ty.quantize(&prev.exit.get(b.field)), b.ty.quantize(&judged.entry.get(b.field)));
            (b.ty.distance(&was, &now) > 1e-6).then(|| {
                format!(
                    "{} entered client {c}'s move {} as {now}, but its move {prev_id} had left it at {was}",
                    b.name, judged.move_id
                )
            })
        })
        .collect()
}

/// A value the tick derives (the demo pawn's `move_ramp`) bound client-authoritative: the
/// server takes each client's value as sent. With the value trace, the clients whose moves
/// carried a value their previous move did not leave (something outside the move wrote it;
/// the server believed it).
fn derived_input_finding(bindings: &[Binding], execs: &ClientExecs) -> Option<Finding> {
    let b = bindings
        .iter()
        .find(|b| b.field == Field::MoveRamp && b.prediction.is_client_auth())?;
    let mut sent_other: BTreeMap<u16, usize> = BTreeMap::new();
    for (&(c, n), list) in execs {
        let Some(&(t, first)) = list.first() else {
            continue;
        };
        if n == 0 || first.exec != Execution::Live {
            continue;
        }
        if let Some((_, prev)) = last_exec(execs, c, n - 1, t) {
            let was = b.ty.quantize(&prev.exit.get(b.field));
            let now = b.ty.quantize(&first.entry.get(b.field));
            if b.ty.distance(&was, &now) > 1e-6 {
                *sent_other.entry(c).or_default() += 1;
            }
        }
    }
    let who: Vec<String> = sent_other
        .iter()
        .map(|(c, k)| format!("client {c}: {k} moves"))
        .collect();
    Some(Finding {
        pitfall: "derived_value_bound_as_input".into(),
        evidence: format!(
            "{}, which the tick derives, is bound {:?}: the server runs every move with the value the client sent and never corrects it{}",
            b.name,
            b.prediction,
            if who.is_empty() {
                String::new()
            } else {
                format!(
                    "; moves that carried a value their previous move did not leave (written outside the move, and believed): {}",
                    who.join(", ")
                )
            }
        ),
    })
}

/// Whether client and server began the move from different server-authoritative values (at
/// all: below tolerance too).
fn entered_apart(bindings: &[Binding], client: &MoveValues, server: &MoveValues) -> bool {
    bindings
        .iter()
        .filter(|b| b.prediction.is_server_auth() && !b.prediction.is_input())
        .any(|b| {
            let (x, y) = (
                b.ty.quantize(&client.entry.get(b.field)),
                b.ty.quantize(&server.entry.get(b.field)),
            );
            b.ty.distance(&x, &y) > 1e-6
        })
}

/// Each client's moves whose live execution began from values written outside the move, by
/// client then move, with what was written.
type OutsideWrites = BTreeMap<(u16, u32), Vec<String>>;

fn outside_writes(
    bindings: &[Binding],
    execs: &ClientExecs,
    corrected: &BTreeMap<(u16, u32), Vec<f64>>,
) -> OutsideWrites {
    execs
        .iter()
        .filter_map(|(&(c, m), list)| {
            let (_, live) = list.first()?;
            let w = written_outside(bindings, execs, corrected, c, live);
            (!w.is_empty()).then_some(((c, m), w))
        })
        .collect()
}

/// The latest of client `c`'s moves before `n` whose live execution began from values written
/// outside the move, with what was written (a difference below tolerance can be carried for
/// seconds before it shows).
fn earlier_outside_write(writes: &OutsideWrites, c: u16, n: u32) -> Option<(u32, Vec<String>)> {
    writes
        .range((c, 0)..(c, n))
        .next_back()
        .map(|(&(_, m), w)| (m, w.clone()))
}
