//! Where client and server parted in a corrected move: the stage of the move's execution
//! where their traced values first differ, found by comparing the two executions stage by
//! stage.

use serde::Serialize;

use crate::model::binding::{Binding, Field};
use crate::model::pawn::PawnValues;
use crate::model::telemetry::MoveValues;

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
pub(super) fn parting(bindings: &[&Binding], client: &MoveValues, server: &MoveValues) -> Parting {
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

/// The most rounding on the way can part a bound value's copies on the two machines: one wire
/// step in each component of a two-decimal value (0.01; 0.017 for a vector), and for the
/// spawn transform (location, rotation) what Unreal's one-decimal spawn rounding leaves,
/// 0.05 in each component (0.087 for a vector). 0 for a value sent whole.
pub(crate) fn rounding_limit(b: &Binding) -> f64 {
    let Some(wire) = b.ty.wire_resolution() else {
        return 0.0;
    };
    match b.field {
        Field::Location | Field::Rotation => wire.max(0.05 * f64::from(b.ty.components()).sqrt()),
        _ => wire,
    }
}

/// Whether a move's tick computed differently on the two machines, as far as the values
/// show: they began it within every value's tolerance and ended it beyond the tolerance of a
/// value whose tolerance is above what rounding can part it by ([`rounding_limit`]). A value
/// whose tolerance is below that is no witness: a start
/// apart by rounding, grown within the other values' tolerances, ends it beyond as well.
/// Gives the values.
pub(super) fn tick_parted(
    bindings: &[Binding],
    client: &MoveValues,
    server: &MoveValues,
) -> Option<Vec<String>> {
    let gap = |b: &Binding, x: &PawnValues, y: &PawnValues| {
        b.ty.distance(&x.get(b.field), &y.get(b.field))
    };
    let began_alike = bindings
        .iter()
        .all(|b| gap(b, &client.entry, &server.entry) <= b.tolerance);
    if !began_alike {
        return None;
    }
    let ended: Vec<String> = bindings
        .iter()
        .filter(|b| b.tolerance >= rounding_limit(b))
        .filter(|b| gap(b, &client.exit, &server.exit) > b.tolerance)
        .map(|b| b.name.to_string())
        .collect();
    (!ended.is_empty()).then_some(ended)
}
