//! The demo pawn's bindable members ([`Field`]): their names, units, the type each is bound
//! as by default and the types each accepts. Here, below the binding list that refers to
//! them; `pawn` re-exports it.

use serde::{Deserialize, Serialize};

use super::types::BoundType;

/// The members of the demo pawn that can be bound, and the values of an imported layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Field {
    InputMove,
    InputDash,
    Location,
    Rotation,
    /// GMC's built-in actor scale (the demo pawn never changes it).
    Scale,
    Velocity,
    /// GMC's built-in angular velocity (°/s about X, Y, Z): the demo pawn's turn rate.
    AngularVelocity,
    /// GMC's built-in control rotation (pitch, yaw, roll): where the player looks, an input
    /// the client gathers with the move input.
    ControlRotation,
    DashCooldown,
    DashCount,
    Stride,
    MoveRamp,
    Team,
    /// A value of an imported binding layout (`movescope lint`'s table run as a session): its
    /// slot in [`PawnValues::custom`](crate::model::pawn::PawnValues). Its name, type and
    /// behaviour are the binding's.
    Custom(u8),
}

/// How many imported values one layout can carry (the bits left in a [`FieldMask`]).
pub const MAX_CUSTOM: usize = 128 - Field::ALL.len();

impl Field {
    pub const ALL: [Field; 13] = [
        Field::InputMove,
        Field::InputDash,
        Field::Location,
        Field::Rotation,
        Field::Scale,
        Field::Velocity,
        Field::AngularVelocity,
        Field::ControlRotation,
        Field::DashCooldown,
        Field::DashCount,
        Field::Stride,
        Field::MoveRamp,
        Field::Team,
    ];

    /// The field's bit in a [`FieldMask`]: the demo members first, then the imported slots.
    #[inline(always)]
    pub fn index(self) -> u32 {
        match self {
            Field::InputMove => 0,
            Field::InputDash => 1,
            Field::Location => 2,
            Field::Rotation => 3,
            Field::Velocity => 4,
            Field::DashCooldown => 5,
            Field::DashCount => 6,
            Field::Stride => 7,
            Field::MoveRamp => 8,
            Field::Team => 9,
            Field::Scale => 10,
            Field::AngularVelocity => 11,
            Field::ControlRotation => 12,
            Field::Custom(i) => 13 + u32::from(i),
        }
    }

    /// The member's name in the demo pawn (as it appears in binding lists and reports); an
    /// imported value's name is its binding's, `imported` here.
    pub fn member_name(self) -> &'static str {
        match self {
            Field::Custom(_) => "imported",
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
            Field::Scale => "scale",
            Field::AngularVelocity => "angular_velocity",
            Field::ControlRotation => "control_rotation",
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
            Field::Rotation | Field::ControlRotation => "°",
            Field::AngularVelocity => "°/s",
            Field::DashCooldown => "s",
            Field::Scale
            | Field::InputMove
            | Field::InputDash
            | Field::DashCount
            | Field::MoveRamp
            | Field::Team
            | Field::Custom(_) => "",
        }
    }

    /// The type the demo pawn binds this member as by default (an imported value: the type it
    /// was imported with decides; Double stands in).
    pub fn natural_type(self) -> BoundType {
        match self {
            Field::Custom(_) => BoundType::Double,
            Field::InputMove => BoundType::CompressedVector2D,
            Field::InputDash => BoundType::Bool,
            Field::Location | Field::Velocity | Field::Scale | Field::AngularVelocity => {
                BoundType::CompressedVector
            }
            Field::Rotation | Field::ControlRotation => BoundType::CompressedRotator,
            Field::DashCooldown | Field::Stride | Field::MoveRamp => BoundType::CompressedFloat,
            Field::DashCount | Field::Team => BoundType::Byte,
        }
    }

    /// Whether the member's C++-side type can be bound with this function.
    pub fn accepts(self, ty: BoundType) -> bool {
        if let Field::Custom(_) = self {
            return true;
        }
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
