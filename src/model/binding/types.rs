//! The types a value can be bound as ([`BoundType`], GMC's `Bind*` functions) with their wire
//! sizes, quantization and distances, the two-decimal packing arithmetic they share, and the
//! bound [`Value`] itself.

use std::sync::Arc;

use glam::{DVec2, DVec3};
use serde::{Deserialize, Serialize};

/// The type a value is bound as (GMC's `Bind*` functions). It decides the wire size and the
/// quantization both machines see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BoundType {
    /// `BindBool`: 1 bit.
    Bool,
    /// `BindHalfByte`: the lower 4 bits of a byte.
    HalfByte,
    /// `BindByte`: 8 bits.
    Byte,
    /// `BindInt`: 32 bits.
    Int,
    /// `BindSinglePrecisionFloat`: 32 bits, exact.
    Float,
    /// `BindCompressedSinglePrecisionFloat`: two decimals.
    CompressedFloat,
    /// `BindDoublePrecisionFloat`: 64 bits, exact.
    Double,
    /// `BindCompressedDoublePrecisionFloat`: two decimals.
    CompressedDouble,
    /// `BindTruncatedDoublePrecisionFloat`: sent as a 32-bit float.
    TruncatedDouble,
    /// `BindCompressedVector2D`: two decimals per component.
    CompressedVector2D,
    /// `BindCompressedVector`: two decimals per component.
    CompressedVector,
    /// `BindCompressedRotator`: two decimals per component (pitch, yaw, roll in degrees).
    CompressedRotator,
    /// `BindActorReference`: a network object id.
    ActorReference,
    /// `BindActorComponentReference`: a network object id.
    ActorComponentReference,
    /// `BindAnimMontageReference`: a network object id.
    AnimMontageReference,
    /// `BindName`: serialized string.
    Name,
    /// `BindGameplayTag`: serialized string.
    GameplayTag,
    /// `BindGameplayTagContainer`: serialized list of strings.
    GameplayTagContainer,
    /// `BindInstancedStruct`: serialized bytes.
    InstancedStruct,
}

impl BoundType {
    pub const ALL: [BoundType; 19] = [
        BoundType::Bool,
        BoundType::HalfByte,
        BoundType::Byte,
        BoundType::Int,
        BoundType::Float,
        BoundType::CompressedFloat,
        BoundType::Double,
        BoundType::CompressedDouble,
        BoundType::TruncatedDouble,
        BoundType::CompressedVector2D,
        BoundType::CompressedVector,
        BoundType::CompressedRotator,
        BoundType::ActorReference,
        BoundType::ActorComponentReference,
        BoundType::AnimMontageReference,
        BoundType::Name,
        BoundType::GameplayTag,
        BoundType::GameplayTagContainer,
        BoundType::InstancedStruct,
    ];

    /// The GMC function that binds this type.
    pub fn gmc_function(self) -> &'static str {
        match self {
            BoundType::Bool => "BindBool",
            BoundType::HalfByte => "BindHalfByte",
            BoundType::Byte => "BindByte",
            BoundType::Int => "BindInt",
            BoundType::Float => "BindSinglePrecisionFloat",
            BoundType::CompressedFloat => "BindCompressedSinglePrecisionFloat",
            BoundType::Double => "BindDoublePrecisionFloat",
            BoundType::CompressedDouble => "BindCompressedDoublePrecisionFloat",
            BoundType::TruncatedDouble => "BindTruncatedDoublePrecisionFloat",
            BoundType::CompressedVector2D => "BindCompressedVector2D",
            BoundType::CompressedVector => "BindCompressedVector",
            BoundType::CompressedRotator => "BindCompressedRotator",
            BoundType::ActorReference => "BindActorReference",
            BoundType::ActorComponentReference => "BindActorComponentReference",
            BoundType::AnimMontageReference => "BindAnimMontageReference",
            BoundType::Name => "BindName",
            BoundType::GameplayTag => "BindGameplayTag",
            BoundType::GameplayTagContainer => "BindGameplayTagContainer",
            BoundType::InstancedStruct => "BindInstancedStruct",
        }
    }

    /// True for types whose values are numbers (interpolable, compared against a tolerance).
    pub fn is_numeric(self) -> bool {
        !matches!(
            self,
            BoundType::ActorReference
                | BoundType::ActorComponentReference
                | BoundType::AnimMontageReference
                | BoundType::Name
                | BoundType::GameplayTag
                | BoundType::GameplayTagContainer
                | BoundType::InstancedStruct
        )
    }

    /// True for continuous types (floats, vectors, rotators). Used by the `Default` combine
    /// rule (see docs/model.md).
    pub fn is_continuous(self) -> bool {
        matches!(
            self,
            BoundType::Float
                | BoundType::CompressedFloat
                | BoundType::Double
                | BoundType::CompressedDouble
                | BoundType::TruncatedDouble
                | BoundType::CompressedVector2D
                | BoundType::CompressedVector
                | BoundType::CompressedRotator
        )
    }

    /// The step of a two-decimal type's wire values (0.01 in the value's unit, per
    /// component): the smallest difference the wire carries. None for the types sent whole
    /// (their step is the type's own precision).
    pub fn wire_step(self) -> Option<f64> {
        matches!(
            self,
            BoundType::CompressedFloat
                | BoundType::CompressedDouble
                | BoundType::CompressedVector2D
                | BoundType::CompressedVector
                | BoundType::CompressedRotator
        )
        .then_some(0.01)
    }

    /// The largest distance rounding to the wire's step alone can put between two values of
    /// this type that began less than a step apart: one step in every component (0.01 for a
    /// scalar, 0.017 for a vector). None for the types sent whole.
    pub fn wire_resolution(self) -> Option<f64> {
        self.wire_step()
            .map(|s| s * f64::from(self.components()).sqrt())
    }

    /// The number of numeric components of a value of this type (1 for scalars).
    pub fn components(self) -> u32 {
        match self {
            BoundType::CompressedVector2D => 2,
            BoundType::CompressedVector | BoundType::CompressedRotator => 3,
            _ => 1,
        }
    }

    /// Brings a value to what the other machine will read after it crossed the wire.
    pub fn quantize(self, v: &Value) -> Value {
        match (self, v) {
            (BoundType::HalfByte, Value::Byte(b)) => Value::Byte(b & 0x0F),
            (BoundType::CompressedFloat, Value::Float(f)) => {
                Value::Float((round_half_away(*f as f64 * 100.0) / 100.0) as f32)
            }
            (BoundType::CompressedDouble, Value::Double(d)) => Value::Double(round2(*d)),
            (BoundType::TruncatedDouble, Value::Double(d)) => Value::Double(*d as f32 as f64),
            (BoundType::CompressedVector2D, Value::Vec2(v)) => {
                Value::Vec2(DVec2::new(round2(v.x), round2(v.y)))
            }
            (BoundType::CompressedVector, Value::Vec3(v))
            | (BoundType::CompressedRotator, Value::Vec3(v)) => {
                Value::Vec3(DVec3::new(round2(v.x), round2(v.y), round2(v.z)))
            }
            _ => v.clone(),
        }
    }

    /// A representative value of this type for tables that have no running session (the lint's
    /// binding table): two-decimal values at [`NOMINAL_MAGNITUDE`] per component (a position or
    /// speed in centimetres), names and tags of [`NOMINAL_NAME_LEN`] characters, a tag container
    /// of two tags, an instanced struct of [`NOMINAL_STRUCT_BYTES`] bytes; zero elsewhere (the
    /// width of fixed-size types does not depend on the value).
    pub fn nominal_value(self) -> Value {
        self.nominal_value_as(false)
    }

    /// Per-component magnitude of this type's representative value: an input's continuous
    /// value is an axis (1 per component: GMC's move input is a normalized direction), a
    /// rotator's components are angles ([`NOMINAL_ANGLE`] degrees), other two-decimal values
    /// [`NOMINAL_MAGNITUDE`].
    pub fn nominal_magnitude(self, input: bool) -> f64 {
        if input && self.is_continuous() {
            1.0
        } else if self == BoundType::CompressedRotator {
            NOMINAL_ANGLE
        } else {
            NOMINAL_MAGNITUDE
        }
    }

    /// [`Self::nominal_value`] of an input (`input`) or an output value.
    pub fn nominal_value_as(self, input: bool) -> Value {
        let m = self.nominal_magnitude(input);
        let name = || -> Arc<str> { Arc::from("n".repeat(NOMINAL_NAME_LEN).as_str()) };
        match self {
            BoundType::Bool => Value::Bool(false),
            BoundType::HalfByte | BoundType::Byte => Value::Byte(0),
            BoundType::Int => Value::Int(0),
            BoundType::Float => Value::Float(0.0),
            BoundType::CompressedFloat => Value::Float(m as f32),
            BoundType::Double | BoundType::TruncatedDouble => Value::Double(0.0),
            BoundType::CompressedDouble => Value::Double(m),
            BoundType::CompressedVector2D => Value::Vec2(DVec2::splat(m)),
            BoundType::CompressedVector | BoundType::CompressedRotator => {
                Value::Vec3(DVec3::splat(m))
            }
            BoundType::ActorReference
            | BoundType::ActorComponentReference
            | BoundType::AnimMontageReference => Value::ObjectRef(0),
            BoundType::Name | BoundType::GameplayTag => Value::Name(name()),
            BoundType::GameplayTagContainer => Value::Tags(Arc::from(vec![name(), name()])),
            BoundType::InstancedStruct => Value::Struct(Arc::from(vec![0u8; NOMINAL_STRUCT_BYTES])),
        }
    }

    /// [`Self::wire_bits`] of [`Self::nominal_value`]: the bits a static table states for this
    /// type. The same function the wire model counts with, so the two cannot disagree.
    pub fn nominal_bits(self) -> u32 {
        self.wire_bits(&self.nominal_value())
    }

    /// [`Self::nominal_bits`] of an input (`input`) or an output value.
    pub fn nominal_bits_as(self, input: bool) -> u32 {
        self.wire_bits(&self.nominal_value_as(input))
    }

    /// The type a GMC `Bind*` function binds, by the function's name.
    pub fn from_gmc_function(name: &str) -> Option<BoundType> {
        BoundType::ALL
            .into_iter()
            .find(|t| t.gmc_function() == name)
    }

    /// Bits this value occupies on the wire when bit-packed at this type.
    pub fn wire_bits(self, v: &Value) -> u32 {
        match self {
            BoundType::Bool => 1,
            BoundType::HalfByte => 4,
            BoundType::Byte => 8,
            BoundType::Int | BoundType::Float | BoundType::TruncatedDouble => 32,
            BoundType::Double => 64,
            BoundType::ActorReference
            | BoundType::ActorComponentReference
            | BoundType::AnimMontageReference => 32,
            BoundType::CompressedFloat => match v {
                Value::Float(f) => packed_bits(&[*f as f64]),
                _ => packed_bits(&[0.0]),
            },
            BoundType::CompressedDouble => match v {
                Value::Double(d) => packed_bits(&[*d]),
                _ => packed_bits(&[0.0]),
            },
            BoundType::CompressedVector2D => match v {
                Value::Vec2(v) => packed_bits(&[v.x, v.y]),
                _ => packed_bits(&[0.0, 0.0]),
            },
            BoundType::CompressedVector | BoundType::CompressedRotator => match v {
                Value::Vec3(v) => packed_bits(&[v.x, v.y, v.z]),
                _ => packed_bits(&[0.0, 0.0, 0.0]),
            },
            BoundType::Name | BoundType::GameplayTag => match v {
                Value::Name(s) => 8 + 8 * s.len().min(255) as u32,
                _ => 8,
            },
            BoundType::GameplayTagContainer => match v {
                Value::Tags(t) => {
                    8 + t
                        .iter()
                        .map(|s| 8 + 8 * s.len().min(255) as u32)
                        .sum::<u32>()
                }
                _ => 8,
            },
            BoundType::InstancedStruct => match v {
                Value::Struct(b) => 16 + 8 * b.len().min(u16::MAX as usize) as u32,
                _ => 16,
            },
        }
    }

    /// How far apart two values are, in the unit the tolerance is given in: absolute
    /// difference for scalars, Euclidean distance for vectors, the largest wrapped angle
    /// difference (degrees) for rotators. Non-numeric values are 0 when equal, infinite when
    /// not.
    pub fn distance(self, a: &Value, b: &Value) -> f64 {
        match (a, b) {
            (Value::Bool(x), Value::Bool(y)) => f64::from(u8::from(x != y)),
            (Value::Byte(x), Value::Byte(y)) => (f64::from(*x) - f64::from(*y)).abs(),
            (Value::Int(x), Value::Int(y)) => (f64::from(*x) - f64::from(*y)).abs(),
            (Value::Float(x), Value::Float(y)) => (f64::from(*x) - f64::from(*y)).abs(),
            (Value::Double(x), Value::Double(y)) => (x - y).abs(),
            (Value::Vec2(x), Value::Vec2(y)) => x.distance(*y),
            (Value::Vec3(x), Value::Vec3(y)) if self == BoundType::CompressedRotator => {
                let d = |p: f64, q: f64| {
                    let r = (p - q).rem_euclid(360.0);
                    r.min(360.0 - r)
                };
                d(x.x, y.x).max(d(x.y, y.y)).max(d(x.z, y.z))
            }
            (Value::Vec3(x), Value::Vec3(y)) => x.distance(*y),
            (x, y) => {
                if x == y {
                    0.0
                } else {
                    f64::INFINITY
                }
            }
        }
    }
}

pub(crate) fn round2(x: f64) -> f64 {
    round_half_away(x * 100.0) / 100.0
}

/// `f64::round` out of line, so the compiler does not compute it for every value (it would
/// speculate the intrinsic, a libm call on this target, to avoid the branch).
#[cold]
#[inline(never)]
fn round_rare(q: f64) -> f64 {
    q.round()
}

/// Rounds half away from zero, like `f64::round`, without the libm call (the baseline x86-64
/// target has no rounding instruction, and this runs for every packed value).
#[inline]
pub fn round_half_away(q: f64) -> f64 {
    if q.is_nan() || q.abs() >= 4.0e15 {
        return round_rare(q);
    }
    let t = q as i64 as f64;
    let frac = q - t;
    if frac >= 0.5 {
        t + 1.0
    } else if frac <= -0.5 {
        t - 1.0
    } else {
        t
    }
}

/// Per-component magnitude [`BoundType::nominal_value`] assumes for two-decimal values.
pub const NOMINAL_MAGNITUDE: f64 = 1000.0;
/// Per-component angle (degrees) [`BoundType::nominal_value`] assumes for rotators: a half turn.
pub const NOMINAL_ANGLE: f64 = 180.0;
/// Characters of a name or tag in [`BoundType::nominal_value`].
pub const NOMINAL_NAME_LEN: usize = 16;
/// Bytes of an instanced struct in [`BoundType::nominal_value`].
pub const NOMINAL_STRUCT_BYTES: usize = 32;

/// A value in hundredths, as two-decimal compression sends it (clamped to ±2^61 so the
/// zigzag form fits the 6-bit width header).
pub fn hundredths(x: f64) -> i64 {
    const LIMIT: f64 = (1u64 << 61) as f64;
    let q = x * 100.0;
    if q.abs() < 4.0e15 {
        // `round_half_away(q) as i64`, in integers (exact below 2^52).
        let t = q as i64;
        let frac = q - t as f64;
        return t + i64::from(frac >= 0.5) - i64::from(frac <= -0.5);
    }
    let q = round_half_away(q);
    if q.is_finite() {
        q.clamp(-LIMIT, LIMIT) as i64
    } else {
        0
    }
}

/// Zigzag form of a signed integer (small magnitudes → small numbers).
pub fn zigzag(q: i64) -> u64 {
    ((q << 1) ^ (q >> 63)) as u64
}

/// Inverse of [`zigzag`].
pub fn unzigzag(z: u64) -> i64 {
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

/// Bit width of the packed form of these components (at least 1).
pub fn packed_width(components: &[f64]) -> u32 {
    components
        .iter()
        .map(|c| 64 - zigzag(hundredths(*c)).leading_zeros())
        .max()
        .unwrap_or(1)
        .max(1)
}

/// Packed two-decimal components: a 6-bit width header, then every component as a zigzag
/// integer of hundredths in that many bits (the widest component decides the width).
pub(crate) fn packed_bits(components: &[f64]) -> u32 {
    6 + packed_width(components) * components.len() as u32
}

/// A bound value as stored in a pawn state or carried on the wire.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Value {
    Bool(bool),
    /// Half-byte and byte values.
    Byte(u8),
    Int(i32),
    Float(f32),
    Double(f64),
    Vec2(DVec2),
    /// Vectors, and rotators as (pitch, yaw, roll) in degrees.
    Vec3(DVec3),
    /// Actor, component and montage references: a network object id (0 = none).
    ObjectRef(u32),
    /// Names and gameplay tags.
    Name(Arc<str>),
    /// Gameplay tag containers.
    Tags(Arc<[Arc<str>]>),
    /// Instanced structs, serialized.
    Struct(Arc<[u8]>),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Byte(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x:.3}"),
            Value::Double(x) => write!(f, "{x:.3}"),
            Value::Vec2(v) => write!(f, "({:.2}, {:.2})", v.x, v.y),
            Value::Vec3(v) => write!(f, "({:.2}, {:.2}, {:.2})", v.x, v.y, v.z),
            Value::ObjectRef(id) => write!(f, "#{id}"),
            Value::Name(s) => write!(f, "{s}"),
            Value::Tags(t) => write!(f, "[{}]", t.join(", ")),
            Value::Struct(b) => write!(f, "<{} bytes>", b.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_quantizes_like_its_wire_format() {
        assert_eq!(
            BoundType::HalfByte.quantize(&Value::Byte(0xAB)),
            Value::Byte(0x0B)
        );
        assert_eq!(
            BoundType::CompressedFloat.quantize(&Value::Float(1.23456)),
            Value::Float(1.23)
        );
        assert_eq!(
            BoundType::CompressedDouble.quantize(&Value::Double(-2.005001)),
            Value::Double(-2.01)
        );
        assert_eq!(
            BoundType::TruncatedDouble.quantize(&Value::Double(0.1)),
            Value::Double(0.1f32 as f64)
        );
        assert_eq!(
            BoundType::CompressedVector.quantize(&Value::Vec3(DVec3::new(1.001, 2.019, -3.333))),
            Value::Vec3(DVec3::new(1.0, 2.02, -3.33))
        );
        assert_eq!(
            BoundType::Double.quantize(&Value::Double(0.123456789)),
            Value::Double(0.123456789)
        );
        assert_eq!(
            BoundType::Name.quantize(&Value::Name("Team.Red".into())),
            Value::Name("Team.Red".into())
        );
    }

    #[test]
    fn wire_sizes_match_the_source_document() {
        assert_eq!(BoundType::Bool.wire_bits(&Value::Bool(true)), 1);
        assert_eq!(BoundType::HalfByte.wire_bits(&Value::Byte(3)), 4);
        assert_eq!(BoundType::Byte.wire_bits(&Value::Byte(3)), 8);
        assert_eq!(BoundType::Int.wire_bits(&Value::Int(3)), 32);
        assert_eq!(BoundType::Float.wire_bits(&Value::Float(3.0)), 32);
        assert_eq!(BoundType::Double.wire_bits(&Value::Double(3.0)), 64);
        assert_eq!(
            BoundType::TruncatedDouble.wire_bits(&Value::Double(3.0)),
            32
        );
        // 1.00 -> 100 hundredths -> zigzag 200 -> 8 bits, plus the 6-bit header.
        assert_eq!(
            BoundType::CompressedFloat.wire_bits(&Value::Float(1.0)),
            6 + 8
        );
        // Compression pays off for small values and stays bounded for large ones.
        let small = BoundType::CompressedVector.wire_bits(&Value::Vec3(DVec3::new(1.0, 0.0, 0.0)));
        let large =
            BoundType::CompressedVector.wire_bits(&Value::Vec3(DVec3::new(100_000.0, -5.0, 0.0)));
        assert!(small < 3 * 32 && large > small && large <= 6 + 3 * 32);
        assert_eq!(
            BoundType::Name.wire_bits(&Value::Name("abc".into())),
            8 + 24
        );
    }

    proptest::proptest! {
        #[test]
        fn fast_rounding_matches_f64_round(x in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO) {
            proptest::prop_assert_eq!(round_half_away(x), x.round());
        }

        #[test]
        fn hundredths_in_integers_match_rounding_in_floats(
            x in proptest::num::f64::ANY,
            k in -1_000_000_000i64..1_000_000_000,
            d in -1e-7f64..1e-7,
        ) {
            let reference = |x: f64| {
                let q = (x * 100.0).round();
                if q.is_finite() {
                    q.clamp(-((1u64 << 61) as f64), (1u64 << 61) as f64) as i64
                } else {
                    0
                }
            };
            proptest::prop_assert_eq!(hundredths(x), reference(x));
            let near_half = (k as f64 + 0.5) / 100.0 + d;
            proptest::prop_assert_eq!(hundredths(near_half), reference(near_half));
        }

        #[test]
        fn fast_rounding_matches_near_halves(k in -1_000_000i64..1_000_000, d in -1e-9f64..1e-9) {
            let x = k as f64 + 0.5 + d;
            proptest::prop_assert_eq!(round_half_away(x), x.round());
        }
    }

    #[test]
    fn rotator_distance_wraps_around() {
        let a = Value::Vec3(DVec3::new(0.0, 359.0, 0.0));
        let b = Value::Vec3(DVec3::new(0.0, 1.0, 0.0));
        assert!((BoundType::CompressedRotator.distance(&a, &b) - 2.0).abs() < 1e-9);
        assert!((BoundType::CompressedVector.distance(&a, &b) - 358.0).abs() < 1e-9);
    }
}
