//! A preset's binding lists: the server's (the demo pawn's after pitfall switches, or an
//! imported component's, with the preset's overrides), the clients' (another order under the
//! binding-mismatch pitfall), and a list kept back as overrides.

use super::preset::{BindingOverride, BindingsError, Preset};
use crate::model::binding::{Binding, Bindings};
use crate::model::pawn::{Field, default_bindings, mismatched_client_bindings};

impl Preset {
    /// The binding list clients make: the server's, unless `faults.binding_mismatch` makes
    /// them bind in another order.
    pub fn client_bindings(&self) -> Result<Bindings, BindingsError> {
        if !self.faults.binding_mismatch {
            return self.checked_bindings();
        }
        let server = self.checked_bindings()?;
        let mut list = mismatched_client_bindings(&self.faults);
        // Same modes as the server's list, only the order differs.
        for b in &mut list {
            if let Some(s) = server.by_name(&b.name) {
                *b = s.clone();
            }
        }
        Bindings::new(list).map_err(|error| BindingsError::ClientList { error })
    }

    /// Keeps `list` as this preset's binding overrides: for each binding that differs from
    /// the demo pawn's (with this preset's pitfall switches), every mode of it, or from the
    /// imported layout's.
    /// An imported layout keeps the behaviours the list gives its values.
    pub fn set_binding_list(&mut self, list: &[Binding]) {
        if let Some(c) = self.component.as_mut() {
            for b in list {
                if let (Field::Custom(i), Some(behaviour)) = (b.field, b.behaviour)
                    && let Some(v) = c.values.get_mut(usize::from(i))
                {
                    v.behaviour = Some(behaviour);
                }
            }
        }
        let defaults = self.base_bindings();
        self.bindings = list
            .iter()
            .filter(|b| defaults.iter().find(|d| d.name == b.name) != Some(*b))
            .map(|b| BindingOverride {
                name: b.name.to_string(),
                ty: Some(b.ty),
                prediction: Some(b.prediction),
                combine: Some(b.combine),
                simulation: Some(b.simulation),
                interpolation: Some(b.interpolation),
                tolerance: Some(b.tolerance),
            })
            .collect();
    }

    /// Validates the preset and returns its binding list, with messages for users.
    pub fn checked_bindings(&self) -> Result<Bindings, BindingsError> {
        self.validate_settings()
            .map_err(|(key, expected)| BindingsError::Setting { key, expected })?;
        self.build_bindings()
    }

    /// The demo pawn's binding list after pitfall switches and the preset's overrides; an
    /// error is (dotted key, what was expected).
    pub fn bindings(&self) -> Result<Bindings, (String, String)> {
        self.build_bindings().map_err(|e| e.key_expected())
    }

    /// The binding list before overrides: the demo pawn's (after pitfall switches), or the
    /// imported component's.
    pub fn base_bindings(&self) -> Vec<Binding> {
        match &self.component {
            Some(c) => c.binding_list(),
            None => default_bindings(&self.faults),
        }
    }

    fn build_bindings(&self) -> Result<Bindings, BindingsError> {
        if let Some(problem) = self.component.as_ref().and_then(|c| c.problem()) {
            return Err(BindingsError::Component { problem });
        }
        let mut list: Vec<Binding> = self.base_bindings();
        for (index, o) in self.bindings.iter().enumerate() {
            let refused = |field: &'static str, expected: String| BindingsError::Override {
                index,
                field,
                name: o.name.clone(),
                expected,
            };
            let field = match Field::from_name(&o.name) {
                Some(f) if self.component.is_none() || list.iter().any(|b| b.field == f) => f,
                _ => match list.iter().find(|b| *b.name == *o.name) {
                    Some(b) => b.field,
                    None => {
                        let names: Vec<&str> = if self.component.is_some() {
                            list.iter().map(|b| &*b.name).collect()
                        } else {
                            Field::ALL.iter().map(|f| f.member_name()).collect()
                        };
                        return Err(refused(
                            "name",
                            format!("one of {}, got `{}`", names.join(", "), o.name),
                        ));
                    }
                },
            };
            let Some(b) = list.iter_mut().find(|b| b.field == field) else {
                return Err(refused(
                    "name",
                    format!(
                        "a bound member; `{}` is unbound by a pitfall switch",
                        o.name
                    ),
                ));
            };
            if let Some(ty) = o.ty {
                let same_shape = std::mem::discriminant(&ty.nominal_value())
                    == std::mem::discriminant(&b.ty.nominal_value());
                if let (Field::Custom(_), false) = (field, same_shape) {
                    return Err(refused(
                        "type",
                        format!(
                            "a type of the same kind as {:?} (an imported value keeps its shape), got {ty:?}",
                            b.ty
                        ),
                    ));
                }
                if !field.accepts(ty) {
                    return Err(refused(
                        "type",
                        format!(
                            "a type `{}` can be bound as (e.g. {:?}), got {ty:?}",
                            o.name,
                            field.natural_type()
                        ),
                    ));
                }
                b.ty = ty;
            }
            if let Some(p) = o.prediction {
                b.prediction = p;
            }
            if let Some(c) = o.combine {
                b.combine = c;
            }
            if let Some(s) = o.simulation {
                b.simulation = s;
            }
            if let Some(f) = o.interpolation {
                b.interpolation = f;
            }
            if let Some(t) = o.tolerance {
                let range = crate::support::ranges::of("bindings.tolerance");
                if !range.contains(t) {
                    return Err(refused(
                        "tolerance",
                        format!(
                            "{}, got {}",
                            range.expected(),
                            crate::support::ranges::shown(t)
                        ),
                    ));
                }
                b.tolerance = t;
            }
        }
        Bindings::new(list).map_err(|error| BindingsError::List { error })
    }
}
