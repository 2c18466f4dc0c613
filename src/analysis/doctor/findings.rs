//! Findings: pitfalls the records show that cause no correction (or none named for them).

use std::collections::BTreeMap;

use super::causes::Cause;
use super::evidence::{Evidence, Trace};
use super::report::{Diagnosis, Finding};
use crate::model::binding::{Binding, SimulationMode};
use crate::model::pawn::{Execution, Field};

pub(super) fn findings(ev: &Evidence<'_>, diagnoses: &[Diagnosis]) -> Vec<Finding> {
    let named = |c: Cause| diagnoses.iter().any(|d| d.cause == Some(c));
    let mut out = Vec::new();
    let t = &ev.tallies;
    if t.side_effects_replayed > 0 {
        out.push(finding(
            "unguarded_side_effects",
            format!(
                "{} cosmetic side effects played in replayed or simulated executions (they should play in live moves only)",
                t.side_effects_replayed
            ),
        ));
    }
    if t.team_unknown > 0 {
        out.push(finding(
            "spawn_data_only_bound",
            format!(
                "proxies were shown without their team for {} proxy-frames (spawn data that only travels as a bound value is not applied during PostSpawnSmoothingPause)",
                t.team_unknown
            ),
        ));
    }
    if t.transitions_in_sync > 0 {
        out.push(finding(
            "transition_in_sync_applied",
            format!(
                "the dash transition was detected {} times in OnSyncDataApplied ({} detections in WorldTickEnd); it fires with historical states",
                t.transitions_in_sync, t.transitions_real
            ),
        ));
    }
    out.extend(dash_findings(ev, named(Cause::InputPulseLost)));
    out.extend(derived_input_finding(ev.bindings, &ev.trace));
    out.extend(one_shot_finding(ev, named(Cause::OneShotReRaised)));
    if let Some(w) = ev
        .clock_warning
        .as_ref()
        .filter(|_| !named(Cause::ClockDomains))
    {
        out.push(finding("world_time_replicators", w.clone()));
    }
    out
}

fn finding(pitfall: &str, evidence: String) -> Finding {
    Finding {
        pitfall: pitfall.into(),
        evidence,
    }
}

/// `dash_count` bound SimulationMode None, and presses lost to AlwaysCombine without a
/// correction naming them.
fn dash_findings(ev: &Evidence<'_>, pulse_named: bool) -> Vec<Finding> {
    let mut out = Vec::new();
    let dashes: usize = ev.clients.values().map(|p| p.server_dashes.len()).sum();
    let none = ev
        .bindings
        .iter()
        .any(|b| b.field == Field::DashCount && b.simulation == SimulationMode::None);
    if none {
        out.push(finding(
            "proxy_value_not_simulated",
            format!(
                "dash_count is bound SimulationMode None: proxies played {} dash effects for {dashes} dashes",
                ev.tallies.proxy_effects
            ),
        ));
    }
    let presses: usize = ev.clients.values().map(|p| p.presses.len()).sum();
    if ev.dash_always_combine && !pulse_named && presses > dashes {
        out.push(finding(
            "dash_always_combine",
            format!("input_dash is bound AlwaysCombine: {presses} presses, {dashes} dashes on the server"),
        ));
    }
    out
}

/// Clients that raised more one-shots than the server did for their moves.
fn one_shot_finding(ev: &Evidence<'_>, named: bool) -> Option<Finding> {
    let over: Vec<String> = ev
        .clients
        .iter()
        .filter_map(|(c, p)| {
            let (cl, sv) = (p.client_one_shots, p.server_one_shots);
            (cl > sv + (sv / 10).max(3)).then(|| format!("client {c}: {} more", cl - sv))
        })
        .collect();
    (!over.is_empty() && !named).then(|| {
        finding(
            "no_seal_after_one_shot",
            format!(
                "clients raised more one-shots than the server did for their moves ({}): raised again in combined re-runs because the move was not sealed",
                over.join(", ")
            ),
        )
    })
}

/// A value the tick derives (the demo pawn's `move_ramp`) bound client-authoritative: the
/// server takes each client's value as sent. With the value trace, the clients whose moves
/// carried a value their previous move did not leave (something outside the move wrote it;
/// the server believed it).
fn derived_input_finding(bindings: &[Binding], trace: &Trace<'_>) -> Option<Finding> {
    let b = bindings
        .iter()
        .find(|b| b.field == Field::MoveRamp && b.prediction.is_client_auth())?;
    let mut sent_other: BTreeMap<u16, usize> = BTreeMap::new();
    for (&(c, n), list) in &trace.client {
        let Some(&(t, first)) = list.first() else {
            continue;
        };
        if n == 0 || first.exec != Execution::Live {
            continue;
        }
        if let Some((_, prev)) = trace.last_before(c, n - 1, t) {
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
    Some(finding(
        "derived_value_bound_as_input",
        format!(
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
    ))
}
