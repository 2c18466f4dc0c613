//! One bound value that deviated: what a correction names (below `telemetry` and `logged`,
//! which both carry it).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::binding::Value;

/// One bound value that deviated beyond its tolerance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Deviation {
    pub move_id: u32,
    pub binding: Arc<str>,
    /// What the client predicted (or claimed).
    pub predicted: Value,
    /// What the server computed.
    pub authoritative: Value,
    pub error: f64,
    pub tolerance: f64,
}

impl Deviation {
    /// `velocity predicted (1, 0, 0) cm/s but server (2, 0, 0) cm/s (error 1.000 cm/s >
    /// tolerance 0.500 cm/s)`, or, where the record has no tolerance (a game log), the
    /// difference alone.
    pub fn describe(&self) -> String {
        let unit = self.unit_suffix();
        let head = format!(
            "{} predicted {}{unit} but server {}{unit}",
            self.binding, self.predicted, self.authoritative
        );
        match (self.error.is_finite(), self.tolerance.is_finite()) {
            (true, true) => format!(
                "{head} (error {:.3}{unit} > tolerance {:.3}{unit})",
                self.error, self.tolerance
            ),
            (true, false) => format!(
                "{head} (differs by {:.3}{unit}; the log gives no tolerance)",
                self.error
            ),
            _ => head,
        }
    }

    /// " cm", " cm/s", " °", " s" after this value's numbers ("" for counts, flags and
    /// fractions, and for members movescope's pawn does not have).
    pub fn unit_suffix(&self) -> String {
        crate::model::pawn::Field::from_name(&self.binding)
            .map(|f| f.unit())
            .filter(|u| !u.is_empty())
            .map(|u| format!(" {u}"))
            .unwrap_or_default()
    }
}
