//! Move lineage: the journey of one move, from the records — the frames merged into it, its
//! sub-steps, the batch and datagram it left in and that datagram's fate on the link, its
//! execution on the server (age, sub-steps), the reply, the correction if any, and every
//! replay that re-ran it.
//!
//! Exact where the records name the move (closing, execution, corrections, skips); inferred
//! where they do not: the batch is the client's first send after the move closed, and a
//! datagram's delivery is matched to its send in order per link (each step says which).
//!
//! With the value trace (recorded, or re-simulated for a virtual-time recording), every
//! execution of the move — live, combined, each replay on the client, remote on the server —
//! shows the bound values in, after each sub-step, and out.

use serde::Serialize;

use crate::model::binding::Binding;
use crate::model::messages::MsgKind;
use crate::model::pawn::Execution;
use crate::model::pawn::PawnValues;
use crate::model::telemetry::{
    Event, Hook, Machine, MoveValues, NetContext, PacketFate, REPLAY_DEPTH_UNKNOWN, Record,
};

/// One bound value through one execution.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValueRow {
    pub binding: String,
    pub entry: String,
    /// After each sub-step.
    pub substeps: Vec<String>,
    pub exit: String,
}

/// The bound values of one execution of the move.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExecValues {
    /// live, combined, replay (client) or remote (server).
    pub exec: String,
    pub rows: Vec<ValueRow>,
}

impl ExecValues {
    fn new(bindings: &[Binding], v: &MoveValues) -> ExecValues {
        let show = |p: &PawnValues, b: &Binding| p.get(b.field).to_string();
        ExecValues {
            exec: format!("{:?}", v.exec).to_lowercase(),
            rows: bindings
                .iter()
                .map(|b| ValueRow {
                    binding: b.name.to_string(),
                    entry: show(&v.entry, b),
                    substeps: v.substeps.iter().map(|p| show(p, b)).collect(),
                    exit: show(&v.exit, b),
                })
                .collect(),
        }
    }

    /// One line per bound value: in -> (sub-steps ->) out, `=` when unchanged.
    pub fn to_text(&self, indent: &str) -> String {
        let w = self.rows.iter().map(|r| r.binding.len()).max().unwrap_or(0);
        let mut s = String::new();
        for r in &self.rows {
            let mut line = r.entry.clone();
            if r.substeps.len() > 1 {
                for (i, v) in r.substeps.iter().enumerate() {
                    line += &format!(" ->[{}] {v}", i + 1);
                }
            }
            if r.exit == r.entry && r.substeps.iter().all(|v| *v == r.entry) {
                line += "  (unchanged)";
            } else {
                line += &format!(" -> {}", r.exit);
            }
            s += &format!("{indent}{:<w$}  {line}\n", r.binding);
        }
        s
    }
}

/// One step of a move's journey.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    pub t: f64,
    pub machine: String,
    pub what: String,
    /// The step is matched by timing or order, not by the move's id.
    pub inferred: bool,
    /// An execution's bound values in, after each sub-step, and out (value trace).
    pub values: Option<ExecValues>,
    /// The hooks GMC called for the move at this step, in order (hook trace).
    pub hooks: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lineage {
    pub client: u16,
    pub move_id: u32,
    /// Where the bound values come from: recorded, re-simulated, or why there are none.
    pub value_trace: String,
    pub steps: Vec<Step>,
}

impl Lineage {
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "client {} move {} (bound values: {})\n",
            self.client, self.move_id, self.value_trace
        );
        for st in &self.steps {
            s += &format!(
                "{:9.3} s  {:<9} {}{}\n",
                st.t,
                st.machine,
                st.what,
                if st.inferred { "  (inferred)" } else { "" }
            );
            if !st.hooks.is_empty() {
                s += &format!("                       hooks: {}\n", st.hooks.join(", "));
            }
            if let Some(v) = &st.values {
                s += &v.to_text("                       ");
            }
        }
        s
    }
}

/// How a correction step's text starts.
const CORRECTED: &str = "corrected";

impl Lineage {
    /// Where the move's bound values parted between the client and the server, in words:
    /// the server's execution against the client's execution the server's verdict was checked
    /// against — its last before the correction arrived (a replay's re-run when an earlier
    /// correction re-ran it), or its last at all (the move's final live or combined run) —
    /// never an execution a later one superseded. Empty without values on both sides.
    pub fn parted(&self) -> Vec<String> {
        let verdict = self
            .steps
            .iter()
            .find(|s| s.machine != "server" && s.what.starts_with(CORRECTED))
            .map_or(f64::INFINITY, |s| s.t);
        let client = self
            .steps
            .iter()
            .rfind(|s| s.machine != "server" && s.t <= verdict && s.values.is_some());
        let server = self
            .steps
            .iter()
            .find(|s| s.machine == "server" && s.values.is_some());
        let (Some(cs), Some(ss)) = (client, server) else {
            return Vec::new();
        };
        let (Some(c), Some(sv)) = (&cs.values, &ss.values) else {
            return Vec::new();
        };
        let which = format!("its {} execution at {:.3} s", c.exec, cs.t);
        let mut out = Vec::new();
        for (a, b) in c.rows.iter().zip(&sv.rows) {
            if a.binding != b.binding {
                continue;
            }
            if a.entry != b.entry {
                out.push(format!(
                    "{} started differently: client {} ({which}), server {}",
                    a.binding, a.entry, b.entry
                ));
            } else if a.exit != b.exit {
                out.push(format!(
                    "{} ended differently: client {} ({which}), server {}",
                    a.binding, a.exit, b.exit
                ));
            }
        }
        if out.is_empty() {
            out.push(format!(
                "client ({which}) and server computed the same bound values for this move"
            ));
        }
        out
    }
}

/// The move `client` closed nearest to time `t`, if any.
pub fn move_near(records: &[Record], client: u16, t: f64) -> Option<u32> {
    records
        .iter()
        .filter_map(|r| match (&r.machine, &r.event) {
            (Machine::Client(c), Event::MoveClosed { move_id, .. }) if *c == client => {
                Some((r.t, *move_id))
            }
            _ => None,
        })
        .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
        .map(|(_, m)| m)
}

/// The move of `client` the server executed at `t` (a move-age point's time), or the nearest
/// execution of one of its moves.
pub fn move_executed_near(records: &[Record], client: u16, t: f64) -> Option<u32> {
    records
        .iter()
        .filter_map(|r| match &r.event {
            Event::RemoteMoveExecuted(x) if x.client == client => Some((r.t, x.move_id)),
            _ => None,
        })
        .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
        .map(|(_, m)| m)
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

/// The journey of `move_id` of `client`, or `None` when the records do not hold its closing.
/// Executions traced in `records` or in `values` (value-trace records from a re-simulation)
/// show `bindings`' values; `value_trace` says where they come from.
pub fn trace(
    bindings: &[Binding],
    records: &[Record],
    values: &[Record],
    value_trace: &str,
    client: u16,
    move_id: u32,
) -> Option<Lineage> {
    let me = Machine::Client(client);
    let mut steps = Vec::new();
    let step = |t: f64, m: Machine, what: String, inferred: bool| Step {
        t,
        machine: m.to_string(),
        what,
        inferred,
        values: None,
        hooks: Vec::new(),
    };
    // Closing, and the frames merged into it (since the previous move closed).
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
    let frames: Vec<f64> = records
        .iter()
        .filter(|r| {
            r.machine == me
                && matches!(r.event, Event::Frame { .. })
                && r.t > prev_close
                && r.t <= t_close
        })
        .map(|r| r.t)
        .collect();
    if let Event::MoveClosed {
        timestamp,
        delta,
        frames: n,
        substeps,
        ..
    } = &records[close_idx].event
    {
        steps.push(step(
            t_close,
            me,
            closed_text(*n, &frames, *timestamp, *delta, *substeps),
            false,
        ));
    }
    // The batch it left in: the client's first send after it closed.
    if let Some((i, r)) = records
        .iter()
        .enumerate()
        .skip(close_idx)
        .find(|(_, r)| r.machine == me && matches!(r.event, Event::MovesSent { .. }))
        && let Event::MovesSent {
            new_moves,
            resent_moves,
            bytes,
            reliable,
            ..
        } = &r.event
    {
        steps.push(step(
            r.t,
            me,
            if *bytes == 0 {
                // A game log's batch: GMC logs the moves, not the datagram.
                format!(
                    "sent in a batch of {new_moves} new move(s) and {resent_moves} resent (the log gives no bytes or channel)"
                )
            } else {
                format!(
                    "sent in a batch of {new_moves} new move(s) and {resent_moves} resent, {bytes} bytes, {}",
                    if *reliable { "reliable" } else { "unreliable (sent again in later batches until acknowledged)" }
                )
            },
            true,
        ));
        // That datagram's fate: sends and deliveries of Moves datagrams on this link, in order.
        let sent_t = r.t;
        let is_moves = |r: &Record, fate: PacketFate| {
            matches!(&r.event, Event::Packet { from, to, fate: f, kind: MsgKind::Moves, .. }
                if *from == me && *to == Machine::Server && *f == fate)
        };
        // This send's own datagram record (at the same instant, just before or after).
        let own = records
            .iter()
            .enumerate()
            .filter(|(_, r)| r.t == sent_t && is_moves(r, PacketFate::Sent))
            .min_by_key(|(j, _)| j.abs_diff(i))
            .map_or(i, |(j, _)| j);
        let k = records[..own]
            .iter()
            .filter(|r| is_moves(r, PacketFate::Sent))
            .count();
        let dropped_before = records[..own]
            .iter()
            .filter(|r| is_moves(r, PacketFate::Dropped))
            .count();
        let dropped_now = records[own..]
            .iter()
            .take_while(|r| r.t <= sent_t)
            .skip(1)
            .take_while(|r| !is_moves(r, PacketFate::Sent))
            .any(|r| is_moves(r, PacketFate::Dropped));
        if dropped_now {
            steps.push(step(
                sent_t,
                me,
                "the datagram was lost on the link".into(),
                true,
            ));
        } else if let Some(d) = {
            // In order per link: the k-th datagram not dropped is the k-th delivered. The
            // records may start mid-flight (a window of a recording), so the match must also
            // arrive after the send and have its size; otherwise the first delivery after the
            // send with its size.
            let bytes_of = |r: &Record| match &r.event {
                Event::Packet { bytes, .. } => Some(*bytes),
                _ => None,
            };
            let size = bytes_of(&records[own]);
            let fits = |r: &&Record| r.t >= sent_t && size.is_none_or(|n| bytes_of(r) == Some(n));
            records
                .iter()
                .filter(|r| is_moves(r, PacketFate::Delivered))
                .nth(k - dropped_before)
                .filter(fits)
                .or_else(|| {
                    records
                        .iter()
                        .filter(|r| is_moves(r, PacketFate::Delivered))
                        .find(fits)
                })
        } {
            steps.push(step(
                d.t,
                Machine::Server,
                format!(
                    "the datagram arrived after {:.1} ms on the link",
                    (d.t - sent_t) * 1000.0
                ),
                true,
            ));
        }
    }
    for r in records {
        match (&r.machine, &r.event) {
            (Machine::Server, Event::RemoteMoveExecuted(x))
                if x.client == client && x.move_id == move_id =>
            {
                steps.push(step(
                    r.t,
                    Machine::Server,
                    format!(
                        "executed on the server, {:.1} ms after its timestamp, {} sub-step(s)",
                        x.age * 1000.0,
                        x.substeps
                    ),
                    false,
                ))
            }
            // A game log: the server's validation failed. GMC marks the move invalid and
            // sends no correction of its own: the client gets one reply per net update, for
            // the last move executed.
            (Machine::Server, Event::LoggedCheck(k))
                if k.client == client && k.move_id == move_id =>
            {
                steps.push(step(r.t, Machine::Server, rejected_text(k), false))
            }
            (
                Machine::Server,
                Event::MovesSkipped {
                    client: c,
                    from,
                    to,
                },
            ) if *c == client && (*from..=*to).contains(&move_id) => steps.push(step(
                r.t,
                Machine::Server,
                format!("skipped by the server (moves {from}–{to} never arrived in time)"),
                false,
            )),
            (
                Machine::Server,
                Event::CorrectionSent {
                    client: c,
                    move_id: m,
                    deviations,
                },
            ) if *c == client && *m == move_id => steps.push(step(
                r.t,
                Machine::Server,
                format!("the server sent a correction ({deviations} deviating value(s))"),
                false,
            )),
            (
                Machine::Client(c),
                Event::Correction {
                    move_id: m,
                    deviations,
                    replay_depth,
                    detected_by,
                    ..
                },
            ) if *c == client => {
                if *m == move_id {
                    steps.push(step(
                        r.t,
                        me,
                        format!(
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
                                "the pending moves replayed (how many, the log does not say)"
                                    .to_string()
                            } else {
                                format!("{replay_depth} pending move(s) replayed")
                            }
                        ),
                        false,
                    ));
                } else if *replay_depth != REPLAY_DEPTH_UNKNOWN
                    && *m < move_id
                    && move_id <= m.saturating_add(u32::from(*replay_depth))
                {
                    steps.push(step(
                        r.t,
                        me,
                        format!("re-run in the replay after move {m} was corrected"),
                        false,
                    ));
                }
            }
            _ => {}
        }
    }
    steps.sort_by(|a, b| a.t.total_cmp(&b.t));
    // The value trace: each execution's values, on the step that names it (the server's
    // execution, a replay) or as a step of its own (the live and combined executions).
    let mut own_steps = Vec::new();
    for r in records.iter().chain(values) {
        let Event::MoveValues(v) = &r.event else {
            continue;
        };
        if v.owner != Some(client) || v.move_id != move_id {
            continue;
        }
        let ev = ExecValues::new(bindings, v);
        let on =
            |s: &Step, prefix: &str| s.t == r.t && s.values.is_none() && s.what.starts_with(prefix);
        let target = match (r.machine, v.exec) {
            (Machine::Server, _) => steps.iter_mut().find(|s| on(s, "executed on the server")),
            (_, crate::model::pawn::Execution::Replay) => {
                steps.iter_mut().find(|s| on(s, "re-run in the replay"))
            }
            _ => None,
        };
        match target {
            Some(s) => s.values = Some(ev),
            None => {
                let what = match v.exec {
                    e @ crate::model::pawn::Execution::Live => format!(
                        "executed live ({}), {} sub-step(s)",
                        e.queries(),
                        v.substeps.len()
                    ),
                    e @ crate::model::pawn::Execution::Combined => format!(
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
                };
                let mut st = step(r.t, r.machine, what, false);
                st.values = Some(ev);
                own_steps.push(st);
            }
        }
    }
    // Stable, executions first: a move executed in the frame it closed shows before its
    // closing.
    own_steps.append(&mut steps);
    steps = own_steps;
    steps.sort_by(|a, b| a.t.total_cmp(&b.t));
    // The hook trace: the hooks called for this move, on the step of the same instant and
    // machine (an execution where there is one), else as a step of their own.
    let server_pawn = records.iter().find_map(|r| match &r.event {
        Event::RemoteMoveExecuted(x) if x.client == client && x.move_id == move_id => Some(x.pawn),
        _ => None,
    });
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
                // The owning client's own pawn: its local and replayed executions.
                Machine::Client(c) => {
                    c == client
                        && (matches!(hook, Hook::PreLocalMoveExecution)
                            || exec.is_some_and(|e| !matches!(e, Execution::Simulated))
                            || context.is_some_and(|x| {
                                !matches!(x, NetContext::RemoteClientPawn_Simulation)
                            }))
                }
                Machine::Server => Some(*pawn) == server_pawn,
            };
        if !ours {
            continue;
        }
        let mut name = format!("{hook:?}");
        if *hook == Hook::GenPredictionTick {
            name += &format!("[{iteration}]");
        }
        if *hook == Hook::GenAncillaryTick
            && let Some((local, combined)) = exec.and_then(|e| e.ancillary_args())
        {
            name += &format!("(bLocalMove={local}, bCombinedClientMove={combined})");
        }
        if let Some(x) = context {
            name += &format!("({x:?})");
        }
        let machine = r.machine.to_string();
        // A replay and a local move can run in the same frame: a hook goes to the execution
        // of its own kind (replay hooks, with their rollback swaps, to the replay step).
        let replay_hook = *exec == Some(Execution::Replay)
            || matches!(
                context,
                Some(
                    NetContext::LocalClientPawn_PreReplayMoveExecution
                        | NetContext::LocalClientPawn_PostReplayMoveExecution
                        | NetContext::RollbackSwap
                )
            );
        let kind_matches = |s: &Step| {
            r.machine == Machine::Server
                || s.what.starts_with("re-run in the replay") == replay_hook
        };
        let at = steps
            .iter()
            .rposition(|s| {
                s.t == r.t && s.machine == machine && s.values.is_some() && kind_matches(s)
            })
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
            });
        match at {
            Some(i) => steps[i].hooks.push(name),
            None => {
                let mut st = step(r.t, r.machine, "hooks called".into(), false);
                st.hooks.push(name);
                let i = steps.partition_point(|s| s.t <= r.t);
                steps.insert(i, st);
            }
        }
    }
    // The reply to an executed move: a correction (the server found a deviation) or an
    // acknowledgement carrying the server's values.
    if !steps
        .iter()
        .any(|s| s.what.starts_with("the server sent a correction"))
        && steps
            .iter()
            .any(|s| s.what.starts_with("executed on the server"))
    {
        let t = steps
            .iter()
            .find(|s| s.what.starts_with("executed on the server"))
            .map_or(0.0, |s| s.t);
        steps.push(step(
            t,
            Machine::Server,
            "acknowledged: the server replied with its result (the client checks its client-validated values against it)".into(),
            false,
        ));
        steps.sort_by(|a, b| a.t.total_cmp(&b.t));
    }
    Some(Lineage {
        client,
        move_id,
        value_trace: value_trace.to_string(),
        steps,
    })
}
