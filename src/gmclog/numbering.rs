//! How GMC numbers a session's bound values in its log: each bound (generic) type counts its
//! own values from 0 in binding order; GMC's built-ins have no index, they are kept in
//! integrated types printed on lines of their own. The dump of a state and the name of a
//! deviating value follow from it.

use std::collections::HashMap;

use super::values::{format, integrated_name, log_name};
use crate::model::binding::{Binding, BoundType, Field};
use crate::model::pawn::PawnValues;
use crate::model::telemetry::Deviation;

/// A binding list with GMC's per-type index of each binding.
pub(super) struct Numbering {
    bindings: Vec<Binding>,
    /// Each binding's index among the bound values of its type (unused for a built-in).
    indexes: Vec<u16>,
}

impl Numbering {
    pub(super) fn new(bindings: &[Binding]) -> Numbering {
        let mut counts: HashMap<BoundType, u16> = HashMap::new();
        let indexes = bindings
            .iter()
            .map(|b| {
                let n = counts.entry(b.ty).or_insert(0);
                *n += u16::from(generic(b));
                n.saturating_sub(1)
            })
            .collect();
        Numbering {
            bindings: bindings.to_vec(),
            indexes,
        }
    }

    /// GMC's dump: the integrated types (always, each on its line, in GMC's order), then each
    /// bound type with its values by index.
    pub(super) fn dump_lines(&self, v: &PawnValues) -> Vec<String> {
        let mut out = vec!["ActorBase:  Null".to_string()];
        for f in [
            Field::Velocity,
            Field::AngularVelocity,
            Field::Location,
            Field::Rotation,
            Field::Scale,
            Field::ControlRotation,
        ] {
            if let Some(name) = integrated_name(f) {
                out.push(format!("{name}:  {}", format(f.natural_type(), &v.get(f))));
            }
        }
        for ty in BoundType::ALL {
            let entries: Vec<String> = self
                .bindings
                .iter()
                .zip(&self.indexes)
                .filter(|(b, _)| b.ty == ty && generic(b))
                .map(|(b, i)| format!("[{i}] {}", format(ty, &v.get(b.field))))
                .collect();
            if !entries.is_empty() {
                out.push(format!("{}:  {}", log_name(ty), entries.join("  ")));
            }
        }
        out
    }

    /// GMC's Verbose line naming a deviating value (`ActorLocation was not valid: …`), in the
    /// punctuation of the side that checked: GMC's client and server put commas and double
    /// spaces the other way round, and single-value (integrated) types the other way again.
    pub(super) fn not_valid_line(&self, d: &Deviation, by_client: bool) -> Option<String> {
        let (name, ty, single) = self.printed_name(&d.binding)?;
        let (client, server) = (format(ty, &d.predicted), format(ty, &d.authoritative));
        Some(if single == by_client {
            format!("{name} was not valid: client value = {client}, server value = {server}")
        } else {
            format!("{name} was not valid:  client value = {client}  server value = {server}")
        })
    }

    /// The type name and index GMC prints for a deviating binding (a built-in: its integrated
    /// type's name, no index), and whether it is a single-value type (GMC punctuates those
    /// the other way round).
    fn printed_name(&self, binding: &str) -> Option<(String, BoundType, bool)> {
        let i = self.bindings.iter().position(|b| &*b.name == binding)?;
        let b = &self.bindings[i];
        Some(match integrated_name(b.field) {
            Some(name) => (name.to_string(), b.ty, true),
            None => (
                format!("{}[{}]", log_name(b.ty), self.indexes[i]),
                b.ty,
                false,
            ),
        })
    }
}

/// Whether a binding is one of GMC's bound (generic) values, numbered per type; the built-ins
/// are kept in integrated types instead.
fn generic(b: &Binding) -> bool {
    integrated_name(b.field).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::binding::Value;
    use crate::model::pawn::default_bindings;
    use crate::model::settings::Faults;

    /// GMC's four forms (gmc-log-facts §5.1): a single-value type with a comma on the client
    /// and double spaces on the server; a bound type the other way round, with its index.
    #[test]
    fn each_side_punctuates_as_gmc_does() {
        let n = Numbering::new(&default_bindings(&Faults::default()));
        let dev = |binding: &str, a: Value, b: Value| Deviation {
            move_id: 1,
            binding: binding.into(),
            predicted: a,
            authoritative: b,
            error: 1.0,
            tolerance: 0.0,
        };
        let loc = dev(
            "location",
            Value::Vec3(glam::DVec3::new(1.0, 2.0, 3.0)),
            Value::Vec3(glam::DVec3::new(1.0, 2.5, 3.0)),
        );
        let stride = dev("stride", Value::Float(1.0), Value::Float(2.0));
        let line = |d: &Deviation, client: bool| n.not_valid_line(d, client).expect("bound");
        assert_eq!(
            line(&loc, true),
            "ActorLocation was not valid: client value = X=1.00 Y=2.00 Z=3.00, server value = X=1.00 Y=2.50 Z=3.00"
        );
        assert_eq!(
            line(&loc, false),
            "ActorLocation was not valid:  client value = X=1.00 Y=2.00 Z=3.00  server value = X=1.00 Y=2.50 Z=3.00"
        );
        assert_eq!(
            line(&stride, true),
            "CompressedSinglePrecisionFloat[1] was not valid:  client value = 1.00  server value = 2.00"
        );
        assert_eq!(
            line(&stride, false),
            "CompressedSinglePrecisionFloat[1] was not valid: client value = 1.00, server value = 2.00"
        );
    }
}
