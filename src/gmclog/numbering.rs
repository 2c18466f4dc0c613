//! How GMC numbers a session's bound values in its log: each bound (generic) type counts its
//! own values from 0 in binding order; GMC's built-ins have no index, they are kept in
//! integrated types printed on lines of their own. The dump of a state and the name of a
//! deviating value follow from it.

use std::collections::HashMap;

use super::values::{format, integrated_name, log_name};
use crate::model::binding::{Binding, BoundType, Field};
use crate::model::pawn::PawnValues;

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

    /// The type name and index GMC prints for a deviating binding (a built-in: its integrated
    /// type's name, no index), and whether it is a single-value type (GMC punctuates those
    /// the other way round).
    pub(super) fn printed_name(&self, binding: &str) -> Option<(String, BoundType, bool)> {
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
