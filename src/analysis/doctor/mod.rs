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
//!
//! One detector per cause (`detectors/`) answers for each desync: supported, with the evidence
//! (quoted from the records, or from a game log's lines with their numbers), ruled out, or
//! cannot tell (what is missing, and what would tell). There is no default cause: a desync
//! whose evidence supports none says so, with the open questions. An imported game log
//! carries its own evidence (`model::logged`): each machine's dumps of the moves around each
//! desync, each side's failed checks, and what the logs hold.

use std::collections::BTreeSet;

use crate::model::binding::Binding;
use crate::model::telemetry::{Event, Machine, Record};
use crate::session::recording::Recording;

mod causes;
mod detectors;
mod diagnose;
mod evidence;
mod findings;
mod logview;
mod parting;
mod report;
mod subject;
mod verdict;

pub use self::causes::Cause;
pub use self::detectors::needs;
use self::diagnose::examine_with;
pub use self::parting::{Parting, Stage};
pub use self::report::{CauseCount, DeviationReport, Diagnosis, Finding, RejectedMove, Report};
pub use self::verdict::{Answer, CauseVerdict, Quote, Strength};

/// Examines a session: its binding list (from the recording header) and its records. The
/// value trace, if any, is read from the records.
pub fn examine(bindings: &[Binding], records: &[Record]) -> Report {
    examine_with(bindings, records, &[], trace_source(records))
}

/// Where the value trace of `records` comes from, as the report says it.
fn trace_source(records: &[Record]) -> &'static str {
    if records
        .iter()
        .any(|r| matches!(r.event, Event::MoveValues(_)))
    {
        "recorded"
    } else {
        "not recorded (switch value_trace on to see where values parted)"
    }
}

/// Examines a session whose binding list changed while it ran (a lesson's "Do it", a
/// binding edit): `epochs` gives the list in force from each session time on, in time order.
/// Each correction is judged by the list of its time, with the records of its epoch as
/// evidence (evidence from before a change does not count for a correction after it).
pub fn examine_epochs(epochs: &[(f64, Vec<Binding>)], records: &[Record]) -> Report {
    by_epochs(epochs, records, &[], trace_source(records))
}

/// Each epoch's records (and value-trace records) judged by its list, the reports merged.
fn by_epochs(
    epochs: &[(f64, Vec<Binding>)],
    records: &[Record],
    extra: &[Record],
    source: &str,
) -> Report {
    if epochs.len() <= 1 {
        let list = epochs.first().map_or(&[][..], |(_, b)| b.as_slice());
        return examine_with(list, records, extra, source);
    }
    let mut parts = Vec::new();
    for (i, (from, list)) in epochs.iter().enumerate() {
        let to = epochs.get(i + 1).map_or(f64::INFINITY, |(t, _)| *t);
        let within = |rs: &[Record]| -> Vec<Record> {
            rs.iter()
                .filter(|r| r.t >= *from && r.t < to)
                .cloned()
                .collect()
        };
        parts.push(examine_with(list, &within(records), &within(extra), source));
    }
    report::merge(parts)
}

/// The binding lists a recording ran with: its header's from the start, then each
/// `BindingsInForce` record's from its time.
pub fn recorded_epochs(header: &[Binding], records: &[Record]) -> Vec<(f64, Vec<Binding>)> {
    let mut epochs = vec![(f64::NEG_INFINITY, header.to_vec())];
    for r in records {
        if let Event::BindingsInForce { list } = &r.event
            && epochs.last().is_some_and(|(_, b)| b != &**list)
        {
            epochs.push((r.t, list.to_vec()));
        }
    }
    epochs
}

/// Moves before each corrected move whose value trace a re-simulation keeps (and every move
/// of a client up to its first correction): where a move that began apart got its
/// difference is searched for among them.
pub(crate) const TRACE_BACK: u32 = 96;

/// Examines a recording; when it has no value trace but was made in virtual time from its
/// start, re-simulates it with the trace on (checking that the re-run reproduces every record)
/// to find where each corrected move parted, and where a move that began apart got its
/// difference (the [`TRACE_BACK`] moves before each corrected move are kept, and a client's moves up to
/// its first correction).
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
            let first = corrected.range((c, 0)..=(c, u32::MAX)).next();
            first.is_some_and(|(_, f)| m <= *f)
                || corrected
                    .range((c, m)..=(c, m.saturating_add(TRACE_BACK)))
                    .next()
                    .is_some()
        });
    by_epochs(
        &recorded_epochs(&rec.header.bindings, records),
        records,
        &values,
        &source,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pitfall 1, then its fix half-way: the corrections before the fix are judged by the
    /// list without `move_ramp` (an unbound member), not by the list after it.
    #[test]
    fn corrections_are_judged_by_the_bindings_in_force_when_they_happened() {
        let (p, _) = crate::session::preset::Preset::find("pitfall-01-unbound-member").unwrap();
        let mut records = Vec::new();
        crate::sim::run_deterministic(&p, "t", 12.0, &mut |r| records.push(r.clone())).unwrap();
        let before = p.checked_bindings().unwrap().list().to_vec();
        let mut fixed = p.clone();
        fixed.set("faults.unbound_member=false").unwrap();
        let after = fixed.checked_bindings().unwrap().list().to_vec();
        assert_ne!(before, after);
        let wrong = examine(&after, &records);
        let right = examine_epochs(&[(f64::NEG_INFINITY, before), (12.0, after)], &records);
        assert!(right.corrections > 0);
        assert_eq!(right.corrections, wrong.corrections);
        assert_eq!(
            right.top_cause(),
            Some(Cause::UnboundMember),
            "{:?}",
            right.causes
        );
        assert_ne!(
            wrong.top_cause(),
            Some(Cause::UnboundMember),
            "the defect this guards"
        );
    }

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
