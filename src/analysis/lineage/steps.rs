//! The steps of a move's journey for [`super::trace`], one function per kind of
//! step: its closing, the batch and datagram it left in, what the server and the client did
//! with it (one record at a time), the value trace's executions, the hooks called for it, and
//! the server's reply.

use super::{CORRECTED, ExecValues, Step};
use crate::model::binding::Binding;
use crate::model::messages::MsgKind;
use crate::model::pawn::Execution;
use crate::model::telemetry::{
    Event, Hook, Machine, MoveValues, NetContext, PacketFate, REPLAY_DEPTH_UNKNOWN, Record,
};

/// A step without values or hooks.
fn step(t: f64, m: Machine, what: String, inferred: bool) -> Step {
    Step {
        t,
        machine: m.to_string(),
        what,
        inferred,
        values: None,
        hooks: Vec::new(),
    }
}

/// Where `me` closed `move_id` (its record's index), and the closing step with the frames
/// merged into it (since the previous move closed); `None` when the records do not hold it.
pub(super) fn closing(records: &[Record], me: Machine, move_id: u32) -> Option<(usize, Step)> {
    let (t_close, close_idx) = records
        .iter()
        .enumerate()
        .find_map(|(i, r)| match &r.event {
            Event::MoveClosed { move_id: m, .. } if r.machine == me && *m == move_id => {
                Some((r.t, i))
            }
            _ => None,
        })?;
    let prev_close = records[..close_idx]
        .iter()
        .rev()
        .find(|r| r.machine == me && matches!(r.event, Event::MoveClosed { .. }))
        .map_or(f64::NEG_INFINITY, |r| r.t);
    let Event::MoveClosed {
        timestamp,
        delta,
        frames: n,
        substeps,
        ..
    } = &records[close_idx].event
    else {
        return None;
    };
    let around: Vec<(f64, f64)> = records
        .iter()
        .filter(|r| r.machine == me && r.t >= prev_close && r.t <= t_close)
        .filter_map(|r| match r.event {
            Event::Frame { dt } => Some((r.t, dt)),
            _ => None,
        })
        .collect();
    let frames = frames_of_move(&around, (prev_close, t_close), *n, *delta);
    let what = closed_text(*n, &frames, *timestamp, *delta, *substeps);
    Some((close_idx, step(t_close, me, what, false)))
}

/// The times of a move's frames among the frames `around` it (time, frame delta) from the
/// previous move's closing to its own. A move closes either at the end of its last frame or
/// when a frame that does not merge arrives (that frame starts the next move), so the frame
/// at either end may be this move's or its neighbour's: of the four readings, the one with
/// the move's frame count and, among those, the frame deltas summing nearest the move's delta.
fn frames_of_move(
    around: &[(f64, f64)],
    (prev_close, t_close): (f64, f64),
    n: u16,
    delta: f64,
) -> Vec<f64> {
    let first_shared = around.first().is_some_and(|f| f.0 == prev_close);
    let last_shared = around.last().is_some_and(|f| f.0 == t_close);
    // (count differs, distance from the move's delta, first, end)
    let mut best: Option<(bool, f64, usize, usize)> = None;
    for drop_first in [true, false] {
        for drop_last in [true, false] {
            if (!drop_first && !first_shared) || (!drop_last && !last_shared) {
                continue;
            }
            let from = usize::from(drop_first && first_shared);
            let to = (around.len() - usize::from(drop_last && last_shared)).max(from);
            let sum: f64 = around[from..to].iter().map(|f| f.1).sum();
            let reading = (to - from != usize::from(n), (sum - delta).abs(), from, to);
            if best.is_none_or(|b| (reading.0, reading.1) < (b.0, b.1)) {
                best = Some(reading);
            }
        }
    }
    best.map_or_else(Vec::new, |(_, _, from, to)| {
        around[from..to].iter().map(|f| f.0).collect()
    })
}

/// The closing step: frames, timestamp, delta and sub-steps — a game log's 0 frames or
/// sub-steps and NaN delta are what it did not print, and are said so.
fn closed_text(n: u16, frames: &[f64], timestamp: f64, delta: f64, substeps: u16) -> String {
    let merged = if n == 0 {
        "frames not in the log".to_string()
    } else {
        format!(
            "{n} frame(s) merged (frames at {})",
            frames
                .iter()
                .map(|t| format!("{t:.3}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let delta = if delta.is_finite() {
        format!("delta {:.1} ms", delta * 1000.0)
    } else {
        "delta not in the log".to_string()
    };
    let steps = if substeps == 0 {
        "sub-steps not in the log (Log LogGMCMovement VeryVerbose)".to_string()
    } else {
        format!("{substeps} sub-step(s)")
    };
    format!("closed: {merged}, timestamp {timestamp:.6} s, {delta}, {steps}")
}

/// A game log's failed server check, as the journey says it.
fn rejected_text(k: &crate::model::logged::LoggedCheck) -> String {
    let values: Vec<String> = k
        .deviations
        .iter()
        .map(crate::model::telemetry::Deviation::describe)
        .collect();
    format!(
        "rejected by the server (its validation failed: {}); GMC marks the move invalid and replicates one reply per net update, for the last move it executed — this move's reply reaches the client only if it was that one",
        if values.is_empty() {
            "the log names no value".to_string()
        } else {
            values.join("; ")
        }
    )
}

/// The batch the move left in (the client's first send after it closed, at or after record
/// `close_idx`) and that datagram's fate on the link: no steps when `me` sent none.
pub(super) fn batch(records: &[Record], me: Machine, close_idx: usize) -> Vec<Step> {
    let Some((i, r)) = records
        .iter()
        .enumerate()
        .skip(close_idx)
        .find(|(_, r)| r.machine == me && matches!(r.event, Event::MovesSent { .. }))
    else {
        return Vec::new();
    };
    let Event::MovesSent {
        new_moves,
        resent_moves,
        bytes,
        reliable,
        ..
    } = &r.event
    else {
        return Vec::new();
    };
    let mut steps = vec![step(
        r.t,
        me,
        batch_text(*new_moves, *resent_moves, *bytes, *reliable),
        true,
    )];
    steps.extend(datagram_fate(records, me, i, r.t));
    steps
}

/// How the batch step says the batch: a game log's batch has moves but no datagram.
fn batch_text(new_moves: u16, resent_moves: u16, bytes: u32, reliable: bool) -> String {
    if bytes == 0 {
        // A game log's batch: GMC logs the moves, not the datagram.
        format!(
            "sent in a batch of {new_moves} new move(s) and {resent_moves} resent (the log gives no bytes or channel)"
        )
    } else {
        format!(
            "sent in a batch of {new_moves} new move(s) and {resent_moves} resent, {bytes} bytes, {}",
            if reliable {
                "reliable"
            } else {
                "unreliable (sent again in later batches until acknowledged)"
            }
        )
    }
}

/// Whether `r` is a Moves datagram from `me` to the server with this `fate`.
fn is_moves(r: &Record, me: Machine, fate: PacketFate) -> bool {
    matches!(&r.event, Event::Packet { from, to, fate: f, kind: MsgKind::Moves, .. }
        if *from == me && *to == Machine::Server && *f == fate)
}

/// The fate of the datagram the batch sent at `sent_t` (its send record at index `send`) left
/// in: lost, arrived (when), or nothing when no record says. Sends and deliveries of Moves
/// datagrams on this link are matched in order.
fn datagram_fate(records: &[Record], me: Machine, send: usize, sent_t: f64) -> Option<Step> {
    // This send's own datagram record (at the same instant, just before or after).
    let own = records
        .iter()
        .enumerate()
        .filter(|(_, r)| r.t == sent_t && is_moves(r, me, PacketFate::Sent))
        .min_by_key(|(j, _)| j.abs_diff(send))
        .map_or(send, |(j, _)| j);
    let k = records[..own]
        .iter()
        .filter(|r| is_moves(r, me, PacketFate::Sent))
        .count();
    let dropped_before = records[..own]
        .iter()
        .filter(|r| is_moves(r, me, PacketFate::Dropped))
        .count();
    let dropped_now = records[own..]
        .iter()
        .take_while(|r| r.t <= sent_t)
        .skip(1)
        .take_while(|r| !is_moves(r, me, PacketFate::Sent))
        .any(|r| is_moves(r, me, PacketFate::Dropped));
    if dropped_now {
        return Some(step(
            sent_t,
            me,
            "the datagram was lost on the link".into(),
            true,
        ));
    }
    let d = delivery(records, me, own, k - dropped_before, sent_t)?;
    Some(step(
        d.t,
        Machine::Server,
        format!(
            "the datagram arrived after {:.1} ms on the link",
            (d.t - sent_t) * 1000.0
        ),
        true,
    ))
}

/// The delivery of the datagram sent at `sent_t` (record `own`), the `nth` not dropped on its
/// link. In order per link: the n-th datagram not dropped is the n-th delivered. The records
/// may start mid-flight (a window of a recording), so the match must also arrive after the
/// send and have its size; otherwise the first delivery after the send with its size.
fn delivery(
    records: &[Record],
    me: Machine,
    own: usize,
    nth: usize,
    sent_t: f64,
) -> Option<&Record> {
    let bytes_of = |r: &Record| match &r.event {
        Event::Packet { bytes, .. } => Some(*bytes),
        _ => None,
    };
    let size = bytes_of(&records[own]);
    let fits = |r: &&Record| r.t >= sent_t && size.is_none_or(|n| bytes_of(r) == Some(n));
    records
        .iter()
        .filter(|r| is_moves(r, me, PacketFate::Delivered))
        .nth(nth)
        .filter(fits)
        .or_else(|| {
            records
                .iter()
                .filter(|r| is_moves(r, me, PacketFate::Delivered))
                .find(fits)
        })
}

/// The step record `r` is of `client`'s move `move_id`, if it is one: its execution, a failed
/// check, a skip or a correction sent on the server; its correction, or a replay that re-ran
/// it, on the client.
pub(super) fn of_record(r: &Record, client: u16, move_id: u32) -> Option<Step> {
    let me = Machine::Client(client);
    let server = |what: String| Some(step(r.t, Machine::Server, what, false));
    match (&r.machine, &r.event) {
        (Machine::Server, Event::RemoteMoveExecuted(x))
            if x.client == client && x.move_id == move_id =>
        {
            server(format!(
                "executed on the server, {:.1} ms after its timestamp, {} sub-step(s)",
                x.age * 1000.0,
                x.substeps
            ))
        }
        // A game log: the server's validation failed. GMC marks the move invalid and
        // sends no correction of its own: the client gets one reply per net update, for
        // the last move executed.
        (Machine::Server, Event::LoggedCheck(k)) if k.client == client && k.move_id == move_id => {
            server(rejected_text(k))
        }
        (
            Machine::Server,
            Event::MovesSkipped {
                client: c,
                from,
                to,
            },
        ) if *c == client && (*from..=*to).contains(&move_id) => server(format!(
            "skipped by the server (moves {from}–{to} never arrived in time)"
        )),
        (
            Machine::Server,
            Event::CorrectionSent {
                client: c,
                move_id: m,
                deviations,
            },
        ) if *c == client && *m == move_id => server(format!(
            "the server sent a correction ({deviations} deviating value(s))"
        )),
        (Machine::Client(c), Event::Correction { .. }) if *c == client => {
            correction_step(r, me, move_id)
        }
        _ => None,
    }
}

/// The step a client's correction record `r` is of the move `move_id`: the move corrected, or
/// re-run in the replay after an earlier move's correction; `None` when neither.
fn correction_step(r: &Record, me: Machine, move_id: u32) -> Option<Step> {
    let Event::Correction {
        move_id: m,
        deviations,
        replay_depth,
        detected_by,
        ..
    } = &r.event
    else {
        return None;
    };
    if *m == move_id {
        let what = format!(
            "{CORRECTED} (found by the {}): {}; then {}",
            format!("{detected_by:?}").to_lowercase(),
            if deviations.is_empty() {
                "no value named (the log has no validation line for it)".to_string()
            } else {
                deviations
                    .iter()
                    .map(crate::model::telemetry::Deviation::describe)
                    .collect::<Vec<_>>()
                    .join("; ")
            },
            if *replay_depth == REPLAY_DEPTH_UNKNOWN {
                "the pending moves replayed (how many, the log does not say)".to_string()
            } else {
                format!("{replay_depth} pending move(s) replayed")
            }
        );
        Some(step(r.t, me, what, false))
    } else if *replay_depth != REPLAY_DEPTH_UNKNOWN
        && *m < move_id
        && move_id <= m.saturating_add(u32::from(*replay_depth))
    {
        Some(step(
            r.t,
            me,
            format!("re-run in the replay after move {m} was corrected"),
            false,
        ))
    } else {
        None
    }
}

/// `steps` with the value trace: each execution's values on the step that names it (the
/// server's execution, a replay) or as a step of its own (the live and combined executions),
/// sorted by time — stable, executions first: a move executed in the frame it closed shows
/// before its closing.
pub(super) fn with_values(
    bindings: &[Binding],
    records: &[Record],
    values: &[Record],
    client: u16,
    move_id: u32,
    mut steps: Vec<Step>,
) -> Vec<Step> {
    let mut own_steps = Vec::new();
    for r in records.iter().chain(values) {
        let Event::MoveValues(v) = &r.event else {
            continue;
        };
        if v.owner != Some(client) || v.move_id != move_id {
            continue;
        }
        let ev = ExecValues::new(bindings, v);
        match values_step(&mut steps, r, v) {
            Some(s) => s.values = Some(ev),
            None => {
                let mut st = step(r.t, r.machine, execution_text(v), false);
                st.values = Some(ev);
                own_steps.push(st);
            }
        }
    }
    own_steps.append(&mut steps);
    own_steps.sort_by(|a, b| a.t.total_cmp(&b.t));
    own_steps
}

/// The step that names the execution `v` (recorded by `r`) and has no values yet: the
/// server's execution, or a replay's re-run; `None` for the others (live, combined).
fn values_step<'s>(steps: &'s mut [Step], r: &Record, v: &MoveValues) -> Option<&'s mut Step> {
    let on =
        |s: &Step, prefix: &str| s.t == r.t && s.values.is_none() && s.what.starts_with(prefix);
    match (r.machine, v.exec) {
        (Machine::Server, _) => steps.iter_mut().find(|s| on(s, "executed on the server")),
        (_, Execution::Replay) => steps.iter_mut().find(|s| on(s, "re-run in the replay")),
        _ => None,
    }
}

/// How an execution with a step of its own is named: live, combined, or by its kind.
fn execution_text(v: &MoveValues) -> String {
    match v.exec {
        e @ Execution::Live => format!(
            "executed live ({}), {} sub-step(s)",
            e.queries(),
            v.substeps.len()
        ),
        e @ Execution::Combined => format!(
            "re-executed with the next frame merged ({}), {} sub-step(s)",
            e.queries(),
            v.substeps.len()
        ),
        e => format!(
            "executed ({}: {}), {} sub-step(s)",
            format!("{e:?}").to_lowercase(),
            e.queries(),
            v.substeps.len()
        ),
    }
}

/// Adds the hook trace to `steps`: each hook called for the move on the step of the same
/// instant and machine (an execution where there is one), else as a step of its own.
pub(super) fn add_hooks(records: &[Record], client: u16, move_id: u32, steps: &mut Vec<Step>) {
    let on_server = ServerRun::of(records, client, move_id);
    for r in records {
        let Event::Hook {
            hook,
            pawn,
            move_id: m,
            iteration,
            exec,
            context,
        } = &r.event
        else {
            continue;
        };
        let ours = *m == move_id
            && match r.machine {
                Machine::Client(c) => c == client && client_hook_is_ours(*hook, *exec, *context),
                Machine::Server => on_server.has(r.t, *hook, *pawn, *context),
            };
        if !ours {
            continue;
        }
        let name = hook_name(*hook, *iteration, *exec, *context);
        match hook_step(steps, r, *exec, *context) {
            Some(i) => steps[i].hooks.push(name),
            None => {
                let mut st = step(r.t, r.machine, "hooks called".into(), false);
                st.hooks.push(name);
                let i = steps.partition_point(|s| s.t <= r.t);
                steps.insert(i, st);
            }
        }
    }
}

/// Whether a hook the owning client called was for its own pawn's local and replayed
/// executions (not its display of others).
fn client_hook_is_ours(hook: Hook, exec: Option<Execution>, context: Option<NetContext>) -> bool {
    matches!(hook, Hook::PreLocalMoveExecution)
        || exec.is_some_and(|e| !matches!(e, Execution::Simulated))
        || context.is_some_and(|x| !matches!(x, NetContext::RemoteClientPawn_Simulation))
}

/// Where and when the server executed the move. A server hook carries only the move's number
/// and the pawn it ran on: a rollback swaps the other pawns under the mover's move number, so
/// another client's move of the same number rolls this client's pawn back too — a rollback on
/// this move's pawn is never this move's.
struct ServerRun {
    pawn: Option<u16>,
    /// The instants the server executed this move.
    at: Vec<f64>,
}

impl ServerRun {
    fn of(records: &[Record], client: u16, move_id: u32) -> ServerRun {
        let mut run = ServerRun {
            pawn: None,
            at: Vec::new(),
        };
        for r in records {
            if let Event::RemoteMoveExecuted(x) = &r.event
                && x.client == client
                && x.move_id == move_id
            {
                run.pawn = Some(x.pawn);
                run.at.push(r.t);
            }
        }
        run
    }

    /// A server hook at `t` was for this move: at one of its executions, on its pawn, and not
    /// a rollback (which swaps a pawn for another pawn's move).
    fn has(&self, t: f64, hook: Hook, pawn: u16, context: Option<NetContext>) -> bool {
        let rollback = hook == Hook::OnPawnRolledBack || context == Some(NetContext::RollbackSwap);
        !rollback && Some(pawn) == self.pawn && self.at.contains(&t)
    }
}

/// How a hook call is listed: its name, the iteration of a prediction tick, an ancillary
/// tick's arguments, and its net context.
fn hook_name(
    hook: Hook,
    iteration: u16,
    exec: Option<Execution>,
    context: Option<NetContext>,
) -> String {
    let mut name = format!("{hook:?}");
    if hook == Hook::GenPredictionTick {
        name += &format!("[{iteration}]");
    }
    if hook == Hook::GenAncillaryTick
        && let Some((local, combined)) = exec.and_then(|e| e.ancillary_args())
    {
        name += &format!("(bLocalMove={local}, bCombinedClientMove={combined})");
    }
    if let Some(x) = context {
        name += &format!("({x:?})");
    }
    name
}

/// The step (its index) a hook call recorded by `r` goes to: the latest execution of its own
/// kind at its instant and machine (a replay and a local move can run in the same frame:
/// replay hooks, with their rollback swaps, go to the replay step), else any execution there,
/// else a step there that names one; `None`: a step of its own.
fn hook_step(
    steps: &[Step],
    r: &Record,
    exec: Option<Execution>,
    context: Option<NetContext>,
) -> Option<usize> {
    let machine = r.machine.to_string();
    let replay_hook = exec == Some(Execution::Replay)
        || matches!(
            context,
            Some(
                NetContext::LocalClientPawn_PreReplayMoveExecution
                    | NetContext::LocalClientPawn_PostReplayMoveExecution
                    | NetContext::RollbackSwap
            )
        );
    let kind_matches = |s: &Step| {
        r.machine == Machine::Server || s.what.starts_with("re-run in the replay") == replay_hook
    };
    steps
        .iter()
        .rposition(|s| s.t == r.t && s.machine == machine && s.values.is_some() && kind_matches(s))
        .or_else(|| {
            steps
                .iter()
                .rposition(|s| s.t == r.t && s.machine == machine && s.values.is_some())
        })
        .or_else(|| {
            steps.iter().rposition(|s| {
                s.t == r.t
                    && s.machine == machine
                    && (s.what.starts_with("executed")
                        || s.what.starts_with("re-executed")
                        || s.what.starts_with("re-run")
                        || s.what.starts_with("hooks"))
            })
        })
}

/// Adds the reply to an executed move when the server sent no correction: an acknowledgement
/// carrying the server's values, at its execution.
pub(super) fn add_reply(steps: &mut Vec<Step>) {
    if steps
        .iter()
        .any(|s| s.what.starts_with("the server sent a correction"))
    {
        return;
    }
    let Some(t) = steps
        .iter()
        .find(|s| s.what.starts_with("executed on the server"))
        .map(|s| s.t)
    else {
        return;
    };
    steps.push(step(
        t,
        Machine::Server,
        "acknowledged: the server replied with its result (the client checks its client-validated values against it)".into(),
        false,
    ));
    steps.sort_by(|a, b| a.t.total_cmp(&b.t));
}
