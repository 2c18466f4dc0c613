//! The demo pawn's bindable members ([`Field`]): their names, units, the type each is bound
//! as by default and the types each accepts. Here, below the binding list that refers to
//! them; `pawn` re-exports it.

use serde::{Deserialize, Serialize};

use super::types::BoundType;

/// The members of the demo pawn that can be bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Field {
    InputMove = 0,
    InputDash = 1,
    Location = 2,
    Rotation = 3,
    Velocity = 4,
    DashCooldown = 5,
    DashCount = 6,
    Stride = 7,
    MoveRamp = 8,
    Team = 9,
}

impl Field {
    pub const ALL: [Field; 10] = [
        Field::InputMove,
        Field::InputDash,
        Field::Location,
        Field::Rotation,
        Field::Velocity,
        Field::DashCooldown,
        Field::DashCount,
        Field::Stride,
        Field::MoveRamp,
        Field::Team,
    ];

    /// The member's name in the demo pawn (as it appears in binding lists and reports).
    pub fn member_name(self) -> &'static str {
        match self {
            Field::InputMove => "input_move",
            Field::InputDash => "input_dash",
            Field::Location => "location",
            Field::Rotation => "rotation",
            Field::Velocity => "velocity",
            Field::DashCooldown => "dash_cooldown",
            Field::DashCount => "dash_count",
            Field::Stride => "stride",
            Field::MoveRamp => "move_ramp",
            Field::Team => "team",
        }
    }

    pub fn from_name(name: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|f| f.member_name() == name)
    }

    /// The unit the member's values are in, as shown after them (empty: a count, a flag or a
    /// fraction).
    pub fn unit(self) -> &'static str {
        match self {
            Field::Location | Field::Stride => "cm",
            Field::Velocity => "cm/s",
            Field::Rotation => "°",
            Field::DashCooldown => "s",
            Field::InputMove
            | Field::InputDash
            | Field::DashCount
            | Field::MoveRamp
            | Field::Team => "",
        }
    }

    /// The type the demo pawn binds this member as by default.
    pub fn natural_type(self) -> BoundType {
        match self {
            Field::InputMove => BoundType::CompressedVector2D,
            Field::InputDash => BoundType::Bool,
            Field::Location | Field::Velocity => BoundType::CompressedVector,
            Field::Rotation => BoundType::CompressedRotator,
            Field::DashCooldown | Field::Stride | Field::MoveRamp => BoundType::CompressedFloat,
            Field::DashCount | Field::Team => BoundType::Byte,
        }
    }

    /// Whether the member's C++-side type can be bound with this function.
    pub fn accepts(self, ty: BoundType) -> bool {
        match self.natural_type() {
            BoundType::CompressedFloat => {
                matches!(ty, BoundType::CompressedFloat | BoundType::Float)
            }
            BoundType::Byte => matches!(ty, BoundType::Byte | BoundType::HalfByte),
            BoundType::CompressedVector => ty == BoundType::CompressedVector,
            other => other == ty,
        }
    }
}
