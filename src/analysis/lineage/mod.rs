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
use crate::model::pawn::PawnValues;
use crate::model::telemetry::{Event, Machine, MoveValues, Record};

mod steps;

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
    /// The values `bindings` took through the execution `v`.
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
    let (close_idx, closing) = steps::closing(records, me, move_id)?;
    let mut steps = vec![closing];
    steps.extend(steps::batch(records, me, close_idx));
    steps.extend(
        records
            .iter()
            .filter_map(|r| steps::of_record(r, client, move_id)),
    );
    steps.sort_by(|a, b| a.t.total_cmp(&b.t));
    let mut steps = steps::with_values(bindings, records, values, client, move_id, steps);
    steps::add_hooks(records, client, move_id, &mut steps);
    steps::add_reply(&mut steps);
    Some(Lineage {
        client,
        move_id,
        value_trace: value_trace.to_string(),
        steps,
    })
}
