//! The examination: the evidence gathered once, the desyncs found in it, every detector's
//! answer for each (the detectors that judge a desync alone, then proximity and the tick), who
//! found each and which moves the server rejected; then the causes counted and the findings
//! that cause no correction.

use std::collections::BTreeMap;

use super::causes::Cause;
use super::detectors::{self, Ctx, crowd_stats};
use super::evidence::Evidence;
use super::findings::findings;
use super::parting::parting;
use super::report::{CauseCount, DeviationReport, Diagnosis, RejectedMove, Report};
use super::subject::{Subject, subjects};
use super::verdict::{Answer, CauseVerdict, rank};
use crate::model::binding::Binding;
use crate::model::logged::{CheckSide, LoggedCheck, LoggedStage};
use crate::model::telemetry::{DetectedBy, Deviation, Record};

pub(super) fn examine_with(
    bindings: &[Binding],
    records: &[Record],
    extra: &[Record],
    source: &str,
) -> Report {
    let ev = Evidence::gather(bindings, records, extra);
    let subjects = subjects(&ev, records);
    let ctxs: Vec<Ctx<'_, '_>> = subjects.iter().map(|s| Ctx::new(&ev, s)).collect();
    let verdicts = judge_all(&ev, &ctxs);
    let mut diagnoses: Vec<Diagnosis> = ctxs
        .iter()
        .zip(verdicts)
        .map(|(ctx, v)| diagnosis(ctx, v))
        .collect();
    carry_earlier_causes(&ctxs, &mut diagnoses);
    let (causes, unexplained) = count(&diagnoses);
    Report {
        value_trace: source.to_string(),
        corrections: diagnoses.len(),
        causes,
        unexplained,
        findings: findings(&ev, &diagnoses),
        session_changes: ev.session_changes.clone(),
        diagnoses,
    }
}

/// Every detector on every desync: those that judge a desync alone first, then proximity to
/// other pawns (over the desyncs none of them explains) and the tick.
fn judge_all(ev: &Evidence<'_>, ctxs: &[Ctx<'_, '_>]) -> Vec<Vec<CauseVerdict>> {
    let first: Vec<Vec<CauseVerdict>> = ctxs
        .iter()
        .map(|ctx| detectors::FIRST.iter().map(|d| (d.judge)(ctx)).collect())
        .collect();
    let unexplained: Vec<&Subject<'_>> = ctxs
        .iter()
        .zip(&first)
        .filter(|(_, v)| !v.iter().any(CauseVerdict::is_supported))
        .map(|(c, _)| c.s)
        .collect();
    let crowd = crowd_stats(ev, &unexplained);
    ctxs.iter()
        .zip(first)
        .map(|(ctx, mut v)| {
            let last = detectors::last(ctx, &crowd, &v);
            v.extend(last);
            rank(&mut v);
            v
        })
        .collect()
}

/// One desync's diagnosis from its verdicts.
fn diagnosis(ctx: &Ctx<'_, '_>, verdicts: Vec<CauseVerdict>) -> Diagnosis {
    let (ev, s) = (ctx.ev, ctx.s);
    let facts = ev.per(s.client).and_then(|p| p.moves.get(&s.move_id));
    let timestamp = facts
        .map(|f| f.timestamp)
        .or_else(|| s.rejected.first().map(|k| k.timestamp))
        .or_else(|| s.client_check.map(|k| k.timestamp))
        .filter(|t| t.is_finite());
    let top = verdicts.first().filter(|v| v.is_supported());
    let (found_by, found) = found(ctx);
    let parted = match (ctx.judged, ctx.server) {
        (Some((_, a)), Some(b)) => {
            let all: Vec<&Binding> = ev.bindings.iter().collect();
            Some(parting(&all, a, b))
        }
        _ => None,
    };
    Diagnosis {
        t: s.t,
        client: s.client,
        move_id: s.move_id,
        timestamp,
        substeps: facts.map(|f| f.substeps).filter(|k| *k > 0),
        frames: facts.map(|f| f.frames).filter(|f| *f > 0),
        found_by,
        found,
        replay_depth: s.replay_depth,
        deviations: s.deviations.iter().map(deviation_report).collect(),
        rejected: rejected(ctx),
        reply_move: s.reply.filter(|r| *r != s.move_id),
        parted,
        cause: top.map(|v| v.cause),
        evidence: top.map_or_else(|| open_questions(&verdicts), |v| v.says.clone()),
        verdicts,
    }
}

/// What is open when no cause is supported.
fn open_questions(verdicts: &[CauseVerdict]) -> String {
    let open: Vec<String> = verdicts
        .iter()
        .filter(|v| v.answer == Answer::CannotTell)
        .map(|v| {
            format!(
                "{}{}",
                v.cause.title(),
                v.would_tell
                    .as_ref()
                    .map_or(String::new(), |w| format!(" (would tell: {w})"))
            )
        })
        .collect();
    if open.is_empty() {
        "every cause on the checklist is ruled out by the records".to_string()
    } else {
        format!("the evidence supports no cause; open: {}", open.join("; "))
    }
}

pub(super) fn deviation_report(d: &Deviation) -> DeviationReport {
    DeviationReport {
        binding: d.binding.to_string(),
        predicted: d.predicted.to_string(),
        authoritative: d.authoritative.to_string(),
        error: d.error,
        tolerance: d.tolerance,
        ratio: if d.tolerance > 0.0 && d.tolerance.is_finite() {
            d.error / d.tolerance
        } else if d.tolerance.is_finite() {
            f64::INFINITY
        } else {
            f64::NAN
        },
    }
}

/// The moves the server rejected in this desync.
fn rejected(ctx: &Ctx<'_, '_>) -> Vec<RejectedMove> {
    let one = |k: &LoggedCheck, in_flight: bool| RejectedMove {
        move_id: k.move_id,
        timestamp: k.timestamp,
        deviations: k.deviations.iter().map(deviation_report).collect(),
        at: k.lines.last().map(|l| ctx.ev.log.place(*l)),
        in_flight,
    };
    ctx.s
        .rejected
        .iter()
        .map(|k| one(k, false))
        .chain(ctx.s.in_flight.iter().map(|k| one(k, true)))
        .collect()
}

/// Who found the desync, and how each side's check is known.
fn found(ctx: &Ctx<'_, '_>) -> (String, Vec<String>) {
    let s = ctx.s;
    if !ctx.ev.imported() {
        let who = match s.detected_by {
            Some(DetectedBy::Server) => "server",
            _ => "client",
        };
        return (who.to_string(), Vec::new());
    }
    let mut lines = Vec::new();
    let client = s.detected_by.is_some();
    if client {
        lines.push(client_side(ctx));
    } else if !ctx.has_client_log() {
        lines.push(
            "the client's log is not among the logs: whether its own check failed and it replayed is not known"
                .to_string(),
        );
    } else {
        lines.push("the client's log shows no correction for these moves: its own check of the replies it got passed".to_string());
    }
    let server_said = !s.rejected.is_empty();
    let inferred = !server_said && client && inferred_rejection(ctx);
    lines.push(server_side(ctx, inferred));
    let who = match (server_said || inferred, client) {
        (true, true) => "server and client",
        (true, false) => "server",
        _ => "client",
    };
    (who.to_string(), lines)
}

fn client_side(ctx: &Ctx<'_, '_>) -> String {
    let s = ctx.s;
    let reply = s.reply.unwrap_or(s.move_id);
    match s.client_check {
        Some(k) => format!(
            "the client's own check (CL_ShouldReplay) of the server's reply for move {reply} failed{}: {}",
            if k.punctuation_agrees {
                ""
            } else {
                " (its per-value line has the server's punctuation)"
            },
            places(ctx, k)
        ),
        None => format!(
            "the client adopted the server's state for move {reply} (the log has no line of its check: `Log LogGMCReplication Verbose` prints it)"
        ),
    }
}

fn server_side(ctx: &Ctx<'_, '_>, inferred: bool) -> String {
    let s = ctx.s;
    let reply = s.reply.unwrap_or(s.move_id);
    if let Some(first) = s.rejected.first() {
        let ids: Vec<String> = s.rejected.iter().map(|k| k.move_id.to_string()).collect();
        return format!(
            "the server's validation (SV_ApplyValidatedState) failed on move(s) {}, first at {}",
            ids.join(", "),
            places(ctx, first)
        );
    }
    if inferred {
        return format!(
            "the server rejected move {reply} too: the client compared {}, which GMC sends for the client's check only when the server marked the move invalid (no server log shows it)",
            s.deviations
                .iter()
                .map(|d| &*d.binding)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if !ctx.has_server_log() {
        return "the server's verdict is not in the logs (no server log for this client)"
            .to_string();
    }
    match ctx
        .ev
        .log
        .dump(s.client, reply, LoggedStage::ServerValidated)
    {
        Some(v) => format!(
            "the server validated move {reply} without a failure ({})",
            ctx.ev.log.place(v.at)
        ),
        None => format!("the server's log shows no failed validation of move {reply}"),
    }
}

/// The client compared a value GMC validates on the server (replicated for the client's
/// check only when the server marked the move invalid): the server rejected it.
fn inferred_rejection(ctx: &Ctx<'_, '_>) -> bool {
    !ctx.has_server_log()
        && ctx.s.deviations.iter().any(|d| {
            ctx.ev
                .mode_of(&d.binding)
                .is_some_and(|m| m.is_server_validated())
        })
}

/// `client.log:12, client.log:13`.
fn places(ctx: &Ctx<'_, '_>, k: &LoggedCheck) -> String {
    let v: Vec<String> = k.lines.iter().map(|l| ctx.ev.log.place(*l)).collect();
    let side = match k.side {
        CheckSide::Client => "client",
        CheckSide::Server => "server",
    };
    format!("{side} lines {}", v.join(", "))
}

/// A desync that began where an earlier one left the client: with the value trace, a move
/// the client sent before the correction of an earlier move reached it; in a game log, a
/// move that began apart right after a replay (the replay did not bring the client back to
/// the server's state). It carried that divergence, and has its cause.
fn carry_earlier_causes(ctxs: &[Ctx<'_, '_>], diagnoses: &mut [Diagnosis]) {
    for i in 0..diagnoses.len() {
        if diagnoses[i].cause.is_none()
            && let Some(p) = replayed_into(&ctxs[i], &diagnoses[..i])
        {
            inherit(
                diagnoses,
                i,
                p,
                "began apart from the server right after the client's replay for the earlier desync (the replay did not bring it back to the server's state)",
            );
            continue;
        }
        let Some(jt) = ctxs[i].judged.map(|(t, _)| t) else {
            continue;
        };
        let (c, m) = (diagnoses[i].client, diagnoses[i].move_id);
        let parent = diagnoses[..i]
            .iter()
            .rposition(|d| d.client == c && d.move_id < m && d.t > jt && d.cause.is_some());
        if let Some(p) = parent {
            inherit(
                diagnoses,
                i,
                p,
                "left the client before the correction of that earlier move reached it",
            );
        }
    }
}

/// Game log: the earlier desync whose correction the client replayed just before this one's
/// first move that ended apart began apart.
fn replayed_into(ctx: &Ctx<'_, '_>, earlier: &[Diagnosis]) -> Option<usize> {
    let p = ctx.parted.as_ref().filter(|p| !p.inputs.is_empty())?;
    let began = p.client.t;
    earlier.iter().rposition(|d| {
        d.client == ctx.s.client && d.cause.is_some() && d.t < began && began - d.t < 2.0
    })
}

fn inherit(diagnoses: &mut [Diagnosis], i: usize, p: usize, how: &str) {
    let (cause, pm, pt) = (diagnoses[p].cause, diagnoses[p].move_id, diagnoses[p].t);
    let d = &mut diagnoses[i];
    let says = format!(
        "client {}'s move {} {how}: carried from the desync of its move {pm} (at {pt:.3} s), and has its cause",
        d.client, d.move_id
    );
    if let Some(cause) = cause {
        d.verdicts.retain(|v| v.cause != cause);
        d.verdicts.insert(
            0,
            CauseVerdict::supported(
                cause,
                super::verdict::Strength::Observed,
                says.clone(),
                Vec::new(),
            ),
        );
    }
    d.cause = cause;
    d.evidence = says;
}

/// Desyncs per cause (most first), and those with none supported.
fn count(diagnoses: &[Diagnosis]) -> (Vec<CauseCount>, usize) {
    let mut counts: BTreeMap<Cause, usize> = BTreeMap::new();
    let mut unexplained = 0;
    for d in diagnoses {
        match d.cause {
            Some(c) => *counts.entry(c).or_default() += 1,
            None => unexplained += 1,
        }
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
    (causes, unexplained)
}
