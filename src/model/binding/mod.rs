//! Bound values: GMC's binding types, their wire sizes and quantization, and the four modes
//! every binding carries (prediction, combine, simulation, interpolation).
//!
//! The list of bindings is data ([`Bindings`]); its order is the wire layout and the
//! comparison layout, exactly as in GMC.
//!
//! `types` holds the bound types and values, `modes` the four modes, `field` the pawn members
//! that can be bound, `list` the binding list and its layouts.

mod behaviour;
mod field;
mod list;
mod modes;
mod types;

pub use self::behaviour::{Behaviour, InputKey};
pub use self::field::{Field, MAX_CUSTOM};
pub use self::list::{Binding, BindingError, Bindings, FieldMask, ImportedRule, Layouts};
pub use self::modes::{CombineMode, InterpolationFunction, PredictionMode, SimulationMode};
pub use self::types::{
    BoundType, NOMINAL_ANGLE, NOMINAL_MAGNITUDE, NOMINAL_NAME_LEN, NOMINAL_STRUCT_BYTES, Value,
    hundredths, packed_width, round_half_away, unzigzag, zigzag,
};
pub(crate) use self::types::{packed_bits, round2};
