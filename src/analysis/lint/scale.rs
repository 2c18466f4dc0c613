//! The three scales a bound two-decimal value is costed at ([`Scale`]) and what decided one
//! ([`Basis`], [`Measure`]): the vocabulary the binding table's rows and `magnitude`'s decisions
//! share, below both.

use crate::model::binding::{NOMINAL_ANGLE, NOMINAL_MAGNITUDE};

/// What a value measures, smallest range first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scale {
    /// A unit direction or an input axis: 1 per component.
    Unit,
    /// Degrees: 180 per component.
    Angle,
    /// A position, velocity or acceleration in cm: 1000 per component.
    Magnitude,
}

/// What decided a [`Scale`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// The bound type (a rotator holds angles).
    Type,
    /// What the class writes to the member.
    Written,
    /// The member's name (nothing written tells).
    Name,
    /// The type and mode alone: an input float or 2D vector is a stick, other values
    /// magnitudes.
    Default,
}

/// A binding's scale and what decided it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measure {
    pub scale: Scale,
    pub basis: Basis,
}

impl Scale {
    pub fn as_str(self) -> &'static str {
        match self {
            Scale::Unit => "unit",
            Scale::Angle => "angle",
            Scale::Magnitude => "magnitude",
        }
    }

    pub(super) fn per_component(self) -> f64 {
        match self {
            Scale::Unit => 1.0,
            Scale::Angle => NOMINAL_ANGLE,
            Scale::Magnitude => NOMINAL_MAGNITUDE,
        }
    }
}

impl Basis {
    pub fn as_str(self) -> &'static str {
        match self {
            Basis::Type => "type",
            Basis::Written => "written",
            Basis::Name => "name",
            Basis::Default => "default",
        }
    }
}
