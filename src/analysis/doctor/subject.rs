//! The desyncs the doctor examines: each correction a client adopted, with the server's
//! rejections of that client's moves that led to it (GMC replicates one reply per net update,
//! for the last move executed: the move the client checked need not be the first the server
//! rejected); and, where only the server's log shows a desync, each run of moves the server
//! rejected.

use std::collections::BTreeSet;

use super::evidence::Evidence;
use crate::model::logged::{CheckSide, LoggedCheck};
use crate::model::telemetry::{
    DetectedBy, Deviation, Event, Machine, REPLAY_DEPTH_UNKNOWN, Record,
};

/// Seconds after a correction within which a rejection of the same desync may still appear
/// (the server's log can sit a little later on the session's time axis).
const AFTER_S: f64 = 1.0;
/// Seconds before a correction within which the rejections that led to it lie.
const BEFORE_S: f64 = 5.0;
/// Seconds after a correction during which moves the client predicted before it are rejected
/// too (they were in flight).
const IN_FLIGHT_S: f64 = 3.0;

/// One desync under examination.
pub(super) struct Subject<'a> {
    /// When it was found: the client's correction, or the server's first rejection.
    pub t: f64,
    pub client: u16,
    /// The first move found wrong: the first the server rejected, else the move whose reply
    /// the client checked.
    pub move_id: u32,
    /// The move whose reply the client checked (a client's correction).
    pub reply: Option<u32>,
    /// The correction record's verdict (none: only the server's log shows this desync).
    pub detected_by: Option<DetectedBy>,
    pub deviations: &'a [Deviation],
    pub replay_depth: Option<u16>,
    /// The server's rejections that led to it, in move order.
    pub rejected: Vec<&'a LoggedCheck>,
    /// Rejections of moves the client had predicted before the correction reached it.
    pub in_flight: Vec<&'a LoggedCheck>,
    /// The client's own check of the reply.
    pub client_check: Option<&'a LoggedCheck>,
}

/// Every desync of the records, in time order.
pub(super) fn subjects<'a>(ev: &Evidence<'a>, records: &'a [Record]) -> Vec<Subject<'a>> {
    let mut out: Vec<Subject<'a>> = records.iter().filter_map(|r| correction(ev, r)).collect();
    let mut taken: BTreeSet<*const LoggedCheck> = BTreeSet::new();
    let clients: BTreeSet<u16> = ev
        .log
        .checks
        .iter()
        .map(|(_, c)| c.client)
        .chain(out.iter().map(|s| s.client))
        .collect();
    for c in clients {
        attach_rejections(ev, c, &mut out, &mut taken);
    }
    for c in ev
        .log
        .checks
        .iter()
        .map(|(_, c)| c.client)
        .collect::<BTreeSet<_>>()
    {
        out.extend(server_runs(ev, c, &taken));
    }
    for s in &mut out {
        let first_rejected = s.rejected.first().map(|k| (k.timestamp, k.move_id));
        let own = reply_ts(ev, s, s.move_id);
        if let Some((ts, m)) = first_rejected
            && own.is_none_or(|o| ts < o)
        {
            s.move_id = m;
        }
    }
    out.sort_by(|a, b| a.t.total_cmp(&b.t));
    out
}

/// A client's correction as a subject, with its own check.
fn correction<'a>(ev: &Evidence<'a>, r: &'a Record) -> Option<Subject<'a>> {
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
        return None;
    };
    let client_check = ev
        .log
        .checks
        .iter()
        .filter(|(t, k)| {
            k.side == CheckSide::Client
                && k.client == *c
                && k.move_id == *move_id
                && (t - r.t).abs() < 0.5
        })
        .map(|(_, k)| *k)
        .next();
    Some(Subject {
        t: r.t,
        client: *c,
        move_id: *move_id,
        reply: Some(*move_id),
        detected_by: Some(*detected_by),
        deviations,
        replay_depth: (*replay_depth != REPLAY_DEPTH_UNKNOWN).then_some(*replay_depth),
        rejected: Vec::new(),
        in_flight: Vec::new(),
        client_check,
    })
}

/// The server's rejections of client `c`'s moves, each given to the correction it led to:
/// moves up to the reply the client checked, after the previous correction's (by GMC's
/// timestamps); then moves the client had predicted before the correction reached it.
fn attach_rejections<'a>(
    ev: &Evidence<'a>,
    c: u16,
    out: &mut [Subject<'a>],
    taken: &mut BTreeSet<*const LoggedCheck>,
) {
    let rejections: Vec<(f64, &'a LoggedCheck)> = ev.log.rejections(c).copied().collect();
    let mut prev_reply = f64::NEG_INFINITY;
    for s in out.iter_mut().filter(|s| s.client == c) {
        let Some(reply) = s.reply.and_then(|r| reply_ts(ev, s, r)) else {
            continue;
        };
        for (t, k) in &rejections {
            let ptr: *const LoggedCheck = *k;
            let mine = k.timestamp <= reply && k.timestamp > prev_reply;
            if !taken.contains(&ptr) && mine && *t <= s.t + AFTER_S && *t >= s.t - BEFORE_S {
                s.rejected.push(k);
                taken.insert(ptr);
            }
        }
        prev_reply = prev_reply.max(reply);
    }
    for s in out.iter_mut().filter(|s| s.client == c) {
        let Some(reply) = s.reply.and_then(|r| reply_ts(ev, s, r)) else {
            continue;
        };
        for (t, k) in &rejections {
            let ptr: *const LoggedCheck = *k;
            let predicted_before = ev
                .per(c)
                .and_then(|p| p.moves.get(&k.move_id))
                .is_some_and(|m| m.t < s.t);
            if !taken.contains(&ptr)
                && k.timestamp > reply
                && predicted_before
                && *t >= s.t - AFTER_S
                && *t <= s.t + IN_FLIGHT_S
            {
                s.in_flight.push(k);
                taken.insert(ptr);
            }
        }
        s.rejected
            .sort_by(|a, b| a.timestamp.total_cmp(&b.timestamp));
        s.in_flight
            .sort_by(|a, b| a.timestamp.total_cmp(&b.timestamp));
    }
}

/// The timestamp of the move whose reply the client checked.
fn reply_ts(ev: &Evidence<'_>, s: &Subject<'_>, reply: u32) -> Option<f64> {
    s.client_check
        .map(|k| k.timestamp)
        .filter(|t| t.is_finite())
        .or_else(|| ev.ts_of(s.client, reply))
}

/// Rejections no correction explains (the client's log is missing, or its check passed):
/// runs of moves the server rejected with none accepted between them, each a subject found by
/// the server alone.
fn server_runs<'a>(
    ev: &Evidence<'a>,
    c: u16,
    taken: &BTreeSet<*const LoggedCheck>,
) -> Vec<Subject<'a>> {
    let mut left: Vec<(f64, &'a LoggedCheck)> = ev
        .log
        .rejections(c)
        .filter(|(_, k)| !taken.contains(&(*k as *const LoggedCheck)))
        .copied()
        .collect();
    left.sort_by(|a, b| a.1.timestamp.total_cmp(&b.1.timestamp));
    let mut runs: Vec<Vec<(f64, &'a LoggedCheck)>> = Vec::new();
    for (t, k) in left {
        let joins = runs.last().and_then(|r| r.last()).is_some_and(|(pt, pk)| {
            (t - pt).abs() <= 2.0 && !accepted_between(ev, c, pk.move_id, k.move_id)
        });
        match runs.last_mut() {
            Some(run) if joins => run.push((t, k)),
            _ => runs.push(vec![(t, k)]),
        }
    }
    runs.into_iter()
        .filter_map(|run| {
            let (t, first) = *run.first()?;
            Some(Subject {
                t,
                client: c,
                move_id: first.move_id,
                reply: None,
                detected_by: None,
                deviations: &first.deviations,
                replay_depth: None,
                rejected: run.iter().map(|(_, k)| *k).collect(),
                in_flight: Vec::new(),
                client_check: None,
            })
        })
        .collect()
}

/// Whether the server executed a move of client `c` between moves `a` and `b` (by
/// timestamp) without rejecting it.
fn accepted_between(ev: &Evidence<'_>, c: u16, a: u32, b: u32) -> bool {
    let Some(per) = ev.per(c) else {
        return false;
    };
    ev.moves_between(c, a, b).iter().any(|m| {
        per.executed.contains_key(m) && !ev.log.rejections(c).any(|(_, k)| k.move_id == *m)
    })
}
