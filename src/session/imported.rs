//! An imported binding layout in a preset: a GMC component's `BindReplicationData` as
//! `movescope lint` read it (types and modes as written), with what drives each value. A
//! session with one binds GMC's built-in values as movescope models them, then the
//! component's values in its binding order (Super first, as in the component).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::model::binding::{
    Behaviour, Binding, BoundType, CombineMode, Field, InterpolationFunction, MAX_CUSTOM,
    PredictionMode, SimulationMode,
};
use crate::model::pawn::default_bindings;
use crate::model::settings::Faults;

/// One imported value: a `Bind*` call of the component.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportedValue {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: BoundType,
    pub prediction: PredictionMode,
    pub combine: CombineMode,
    pub simulation: SimulationMode,
    pub interpolation: InterpolationFunction,
    /// A difference larger than this is a deviation (GMC's default comparison: exact).
    #[serde(default)]
    pub tolerance: f64,
    /// What drives the value; guessed from its name and role when left out.
    #[serde(default)]
    pub behaviour: Option<Behaviour>,
    /// Where the `Bind*` call is (shown in tables).
    #[serde(default)]
    pub file: Option<PathBuf>,
    #[serde(default)]
    pub line: u32,
}

impl ImportedValue {
    /// The behaviour the value runs with: its own, else the guess from its name and role.
    pub fn behaviour(&self) -> Behaviour {
        self.behaviour
            .unwrap_or_else(|| Behaviour::guess(&self.name, self.ty, self.prediction.is_input()))
    }
}

/// A component's layout, as a preset carries it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ImportedLayout {
    /// The component's class.
    pub class: String,
    pub values: Vec<ImportedValue>,
}

/// The demo pawn's members that stand for GMC's built-in values (configured in
/// `ReplicationSettings`, not bound): the move input, location, rotation, scale, the linear
/// and angular velocities and the control rotation. An imported session binds them first,
/// as movescope's demo pawn does.
pub const BUILT_INS: [Field; 7] = [
    Field::InputMove,
    Field::Location,
    Field::Rotation,
    Field::Scale,
    Field::Velocity,
    Field::AngularVelocity,
    Field::ControlRotation,
];

impl ImportedLayout {
    /// Why the layout cannot run, if it cannot (what a user should change).
    pub fn problem(&self) -> Option<String> {
        if self.values.is_empty() {
            return Some(format!(
                "`{}` binds no values: there is nothing of its own to run",
                self.class
            ));
        }
        if self.values.len() > MAX_CUSTOM {
            return Some(format!(
                "`{}` binds {} values; a session carries at most {MAX_CUSTOM}",
                self.class,
                self.values.len()
            ));
        }
        let builtin = |n: &str| BUILT_INS.iter().any(|f| f.member_name() == n);
        if let Some(v) = self.values.iter().find(|v| builtin(&v.name)) {
            return Some(format!(
                "`{}` has the name of a built-in value movescope binds itself",
                v.name
            ));
        }
        None
    }

    /// The session's binding list: the built-ins, then the imported values.
    pub fn binding_list(&self) -> Vec<Binding> {
        let mut list: Vec<Binding> = default_bindings(&Faults::default())
            .into_iter()
            .filter(|b| BUILT_INS.contains(&b.field))
            .collect();
        for (i, v) in self.values.iter().take(MAX_CUSTOM).enumerate() {
            list.push(Binding {
                name: v.name.as_str().into(),
                field: Field::Custom(i as u8),
                ty: v.ty,
                prediction: v.prediction,
                combine: v.combine,
                simulation: v.simulation,
                interpolation: v.interpolation,
                tolerance: v.tolerance,
                behaviour: Some(v.behaviour()),
            });
        }
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::binding::Bindings;

    fn value(name: &str, ty: BoundType, prediction: PredictionMode) -> ImportedValue {
        ImportedValue {
            name: name.into(),
            ty,
            prediction,
            combine: CombineMode::CombineIfUnchanged,
            simulation: SimulationMode::None,
            interpolation: InterpolationFunction::NearestNeighbour,
            tolerance: 0.0,
            behaviour: None,
            file: None,
            line: 0,
        }
    }

    #[test]
    fn the_list_is_built_ins_then_the_component_in_order() {
        let layout = ImportedLayout {
            class: "UMyMovement".into(),
            values: vec![
                value(
                    "bWantsToSprint",
                    BoundType::Bool,
                    PredictionMode::ClientAuth_Input,
                ),
                value(
                    "Stamina",
                    BoundType::CompressedFloat,
                    PredictionMode::ServerAuth_Output_ClientValidated,
                ),
            ],
        };
        assert_eq!(layout.problem(), None);
        let b = Bindings::new(layout.binding_list()).expect("a valid list");
        assert!(b.is_imported());
        let names: Vec<&str> = b.list().iter().map(|b| &*b.name).collect();
        assert_eq!(
            names,
            [
                "input_move",
                "location",
                "rotation",
                "scale",
                "velocity",
                "angular_velocity",
                "control_rotation",
                "bWantsToSprint",
                "Stamina"
            ]
        );
        assert_eq!(b.imported_inputs().len(), 1);
        assert_eq!(b.imported_outputs().len(), 1);
        assert!(matches!(
            b.imported_inputs()[0].behaviour,
            Behaviour::Hold { .. }
        ));
        let empty = ImportedLayout {
            class: "UEmpty".into(),
            values: vec![],
        };
        assert!(
            empty
                .problem()
                .is_some_and(|p| p.contains("binds no values"))
        );
    }
}
