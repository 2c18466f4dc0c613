//! Bound values: GMC's binding types, their wire sizes and quantization, and the four modes
//! every binding carries (prediction, combine, simulation, interpolation).
//!
//! The list of bindings is data ([`Bindings`]); its order is the wire layout and the
//! comparison layout, exactly as in GMC.

use std::sync::Arc;

use glam::{DVec2, DVec3};
use serde::{Deserialize, Serialize};

use super::pawn::Field;

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

/// `EGMC_PredictionMode`: who owns a value, which side of the move it belongs to, and who
/// validates it.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PredictionMode {
    ServerAuth_Input_ClientValidated,
    ServerAuth_Output_ClientValidated,
    ServerAuth_InputOutput_ClientValidated,
    ServerAuth_Input_ServerValidated,
    ServerAuth_Output_ServerValidated,
    ServerAuth_InputOutput_ServerValidated,
    ClientAuth_Input,
    ClientAuth_Output,
    ClientAuth_InputOutput,
    Local,
}

impl PredictionMode {
    pub const ALL: [PredictionMode; 10] = [
        PredictionMode::ServerAuth_Input_ClientValidated,
        PredictionMode::ServerAuth_Output_ClientValidated,
        PredictionMode::ServerAuth_InputOutput_ClientValidated,
        PredictionMode::ServerAuth_Input_ServerValidated,
        PredictionMode::ServerAuth_Output_ServerValidated,
        PredictionMode::ServerAuth_InputOutput_ServerValidated,
        PredictionMode::ClientAuth_Input,
        PredictionMode::ClientAuth_Output,
        PredictionMode::ClientAuth_InputOutput,
        PredictionMode::Local,
    ];

    /// Part of the move's input state.
    pub fn is_input(self) -> bool {
        use PredictionMode::*;
        matches!(
            self,
            ServerAuth_Input_ClientValidated
                | ServerAuth_InputOutput_ClientValidated
                | ServerAuth_Input_ServerValidated
                | ServerAuth_InputOutput_ServerValidated
                | ClientAuth_Input
                | ClientAuth_InputOutput
        )
    }

    /// Part of the move's output state.
    pub fn is_output(self) -> bool {
        use PredictionMode::*;
        matches!(
            self,
            ServerAuth_Output_ClientValidated
                | ServerAuth_InputOutput_ClientValidated
                | ServerAuth_Output_ServerValidated
                | ServerAuth_InputOutput_ServerValidated
                | ClientAuth_Output
                | ClientAuth_InputOutput
        )
    }

    pub fn is_server_auth(self) -> bool {
        use PredictionMode::*;
        matches!(
            self,
            ServerAuth_Input_ClientValidated
                | ServerAuth_Output_ClientValidated
                | ServerAuth_InputOutput_ClientValidated
                | ServerAuth_Input_ServerValidated
                | ServerAuth_Output_ServerValidated
                | ServerAuth_InputOutput_ServerValidated
        )
    }

    pub fn is_client_auth(self) -> bool {
        use PredictionMode::*;
        matches!(
            self,
            ClientAuth_Input | ClientAuth_Output | ClientAuth_InputOutput
        )
    }

    /// The server sends its value with every acknowledgement and the client compares.
    pub fn is_client_validated(self) -> bool {
        use PredictionMode::*;
        matches!(
            self,
            ServerAuth_Input_ClientValidated
                | ServerAuth_Output_ClientValidated
                | ServerAuth_InputOutput_ClientValidated
        )
    }

    /// The client sends its value with every move and the server compares.
    pub fn is_server_validated(self) -> bool {
        use PredictionMode::*;
        matches!(
            self,
            ServerAuth_Input_ServerValidated
                | ServerAuth_Output_ServerValidated
                | ServerAuth_InputOutput_ServerValidated
        )
    }

    /// The client puts this value into the moves it sends.
    pub fn client_sends(self) -> bool {
        self.is_server_validated() || self.is_client_auth()
    }

    /// One-line explanation for tooltips and docs.
    pub fn explain(self) -> &'static str {
        use PredictionMode::*;
        match self {
            ServerAuth_Input_ClientValidated => {
                "Server-owned input value; the server sends it down and the client checks its copy."
            }
            ServerAuth_Output_ClientValidated => {
                "Server-owned result; the server sends it with every reply and the client compares (downstream pressure)."
            }
            ServerAuth_InputOutput_ClientValidated => {
                "Server-owned on both sides of the move; checked by the client."
            }
            ServerAuth_Input_ServerValidated => {
                "Server-owned input value; the client sends its copy up and the server compares."
            }
            ServerAuth_Output_ServerValidated => {
                "Server-owned result; the client sends its prediction up and the server compares (upstream pressure)."
            }
            ServerAuth_InputOutput_ServerValidated => {
                "Server-owned on both sides of the move; checked by the server."
            }
            ClientAuth_Input => {
                "Client-owned input (player input): sent up and used by the server unquestioned."
            }
            ClientAuth_Output => {
                "Client-owned result: the server overwrites its own result with the client's. Cheatable."
            }
            ClientAuth_InputOutput => "Client-owned on both sides of the move.",
            Local => "Never synchronized; saved and restored with moves on this machine only.",
        }
    }
}

/// `EGMC_CombineMode`: how a bound input behaves when frames are merged into one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CombineMode {
    CombineIfUnchanged,
    AlwaysCombine,
    AlwaysCombineOverwrite,
    Default,
    NeverCombine,
}

impl CombineMode {
    pub const ALL: [CombineMode; 5] = [
        CombineMode::CombineIfUnchanged,
        CombineMode::AlwaysCombine,
        CombineMode::AlwaysCombineOverwrite,
        CombineMode::Default,
        CombineMode::NeverCombine,
    ];

    /// The concrete rule `Default` stands for, per type (docs/model.md): discrete types behave
    /// as CombineIfUnchanged, continuous ones as AlwaysCombineOverwrite.
    pub fn resolve(self, ty: BoundType) -> CombineMode {
        match self {
            CombineMode::Default if ty.is_continuous() => CombineMode::AlwaysCombineOverwrite,
            CombineMode::Default => CombineMode::CombineIfUnchanged,
            m => m,
        }
    }

    pub fn explain(self) -> &'static str {
        match self {
            CombineMode::CombineIfUnchanged => {
                "A change of this input starts a new move: right for inputs, guarantees the server sees one-frame pulses."
            }
            CombineMode::AlwaysCombine => {
                "Frames merge regardless; the move keeps the FIRST value of the window. A one-frame pulse mid-window is lost."
            }
            CombineMode::AlwaysCombineOverwrite => {
                "Frames merge regardless; the move keeps the LATEST value of the window."
            }
            CombineMode::Default => {
                "The type's built-in rule: discrete types as CombineIfUnchanged, continuous ones as AlwaysCombineOverwrite."
            }
            CombineMode::NeverCombine => {
                "Every frame becomes its own move: more moves, more bandwidth."
            }
        }
    }
}

/// `EGMC_SimulationMode`: whether and when a value reaches simulated proxies.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SimulationMode {
    Periodic_Input,
    Periodic_Output,
    Periodic_InputOutput,
    PeriodicAndOnChange_Input,
    PeriodicAndOnChange_Output,
    PeriodicAndOnChange_InputOutput,
    None,
}

impl SimulationMode {
    pub const ALL: [SimulationMode; 7] = [
        SimulationMode::Periodic_Input,
        SimulationMode::Periodic_Output,
        SimulationMode::Periodic_InputOutput,
        SimulationMode::PeriodicAndOnChange_Input,
        SimulationMode::PeriodicAndOnChange_Output,
        SimulationMode::PeriodicAndOnChange_InputOutput,
        SimulationMode::None,
    ];

    pub fn explain(self) -> &'static str {
        match self {
            SimulationMode::Periodic_Input
            | SimulationMode::Periodic_Output
            | SimulationMode::Periodic_InputOutput => {
                "Sent to simulated proxies with every state update; values between updates may be missed."
            }
            SimulationMode::PeriodicAndOnChange_Input
            | SimulationMode::PeriodicAndOnChange_Output
            | SimulationMode::PeriodicAndOnChange_InputOutput => {
                "Sent with every update and also forces an update when it changes: for rare flags."
            }
            SimulationMode::None => "Never reaches simulated proxies.",
        }
    }
}

/// `EGMC_InterpolationFunction` (Custom1–Custom8 are user code in GMC and not modelled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum InterpolationFunction {
    NearestNeighbour,
    StartValue,
    TargetValue,
    Linear,
    Cubic,
}

impl InterpolationFunction {
    pub const ALL: [InterpolationFunction; 5] = [
        InterpolationFunction::NearestNeighbour,
        InterpolationFunction::StartValue,
        InterpolationFunction::TargetValue,
        InterpolationFunction::Linear,
        InterpolationFunction::Cubic,
    ];
}

/// One `Bind*` call: which member, as which type, with which modes and tolerance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Binding {
    pub name: Arc<str>,
    pub field: Field,
    pub ty: BoundType,
    pub prediction: PredictionMode,
    pub combine: CombineMode,
    pub simulation: SimulationMode,
    pub interpolation: InterpolationFunction,
    /// A difference larger than this is a deviation.
    pub tolerance: f64,
}

/// A set of fields, as a bit mask over [`Field`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FieldMask(pub u32);

impl FieldMask {
    pub const EMPTY: FieldMask = FieldMask(0);
    pub fn with(self, f: Field) -> FieldMask {
        FieldMask(self.0 | (1 << f as u32))
    }
    pub fn contains(self, f: Field) -> bool {
        self.0 & (1 << f as u32) != 0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// The ordered binding list one machine made in `BindReplicationData`, with the masks the
/// move cycle needs precomputed.
#[derive(Clone, Debug, PartialEq)]
pub struct Bindings {
    list: Vec<Binding>,
    /// Every bound field: what a reset or an adopted state restores.
    pub bound: FieldMask,
    /// Fields in the move's input state.
    pub input: FieldMask,
    /// Input fields the client sends with each move.
    pub client_sends_input: FieldMask,
    /// Output fields the client sends with each move.
    pub client_sends_output: FieldMask,
    /// Input fields the server takes from the client unquestioned.
    pub client_auth_input: FieldMask,
    /// Output fields the server takes from the client unquestioned.
    pub client_auth_output: FieldMask,
    /// Fields the server sends with every acknowledgement for the client to compare.
    pub client_validated: FieldMask,
    /// Fields a server correction carries (every server-authoritative field).
    pub server_auth: FieldMask,
    /// Fields that reach simulated proxies (SimulationMode other than None).
    pub simulated: FieldMask,
    /// Fields whose change forces a state update to proxies (PeriodicAndOnChange_*).
    pub on_change: FieldMask,
    input_idx: Vec<usize>,
    /// (field, type, interpolation) of every simulated binding, in layout order.
    simulated_list: Vec<(Field, BoundType, InterpolationFunction)>,
    client_validated_idx: Vec<usize>,
    server_validated_input_idx: Vec<usize>,
    server_validated_output_idx: Vec<usize>,
}

/// Why a binding list was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum BindingError {
    Duplicate(String),
    TypeMismatch { name: String, expected: BoundType },
}

impl std::fmt::Display for BindingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BindingError::Duplicate(n) => write!(f, "member `{n}` is bound twice"),
            BindingError::TypeMismatch { name, expected } => write!(
                f,
                "member `{name}` cannot be bound as this type; expected {expected:?}"
            ),
        }
    }
}

impl Bindings {
    /// No bindings at all.
    pub fn empty() -> Self {
        Bindings {
            list: Vec::new(),
            bound: FieldMask::EMPTY,
            input: FieldMask::EMPTY,
            client_sends_input: FieldMask::EMPTY,
            client_sends_output: FieldMask::EMPTY,
            client_auth_input: FieldMask::EMPTY,
            client_auth_output: FieldMask::EMPTY,
            client_validated: FieldMask::EMPTY,
            server_auth: FieldMask::EMPTY,
            simulated: FieldMask::EMPTY,
            on_change: FieldMask::EMPTY,
            input_idx: Vec::new(),
            simulated_list: Vec::new(),
            client_validated_idx: Vec::new(),
            server_validated_input_idx: Vec::new(),
            server_validated_output_idx: Vec::new(),
        }
    }

    pub fn new(list: Vec<Binding>) -> Result<Self, BindingError> {
        let mut bound = FieldMask::EMPTY;
        for b in &list {
            if bound.contains(b.field) {
                return Err(BindingError::Duplicate(b.name.to_string()));
            }
            if !b.field.accepts(b.ty) {
                return Err(BindingError::TypeMismatch {
                    name: b.name.to_string(),
                    expected: b.field.natural_type(),
                });
            }
            bound = bound.with(b.field);
        }
        let mask = |pred: &dyn Fn(&Binding) -> bool| {
            list.iter()
                .filter(|b| pred(b))
                .fold(FieldMask::EMPTY, |m, b| m.with(b.field))
        };
        let idx = |pred: &dyn Fn(&Binding) -> bool| {
            list.iter()
                .enumerate()
                .filter(|(_, b)| pred(b))
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        };
        let p = |b: &Binding| b.prediction;
        Ok(Bindings {
            bound,
            input: mask(&|b| p(b).is_input()),
            client_sends_input: mask(&|b| p(b).is_input() && p(b).client_sends()),
            client_sends_output: mask(&|b| p(b).is_output() && p(b).client_sends()),
            client_auth_input: mask(&|b| p(b).is_input() && p(b).is_client_auth()),
            client_auth_output: mask(&|b| p(b).is_output() && p(b).is_client_auth()),
            client_validated: mask(&|b| p(b).is_client_validated()),
            server_auth: mask(&|b| p(b).is_server_auth()),
            simulated: mask(&|b| b.simulation != SimulationMode::None),
            on_change: mask(&|b| {
                matches!(
                    b.simulation,
                    SimulationMode::PeriodicAndOnChange_Input
                        | SimulationMode::PeriodicAndOnChange_Output
                        | SimulationMode::PeriodicAndOnChange_InputOutput
                )
            }),
            input_idx: idx(&|b| p(b).is_input()),
            simulated_list: list
                .iter()
                .filter(|b| b.simulation != SimulationMode::None)
                .map(|b| (b.field, b.ty, b.interpolation))
                .collect(),
            client_validated_idx: idx(&|b| p(b).is_client_validated()),
            server_validated_input_idx: idx(&|b| p(b).is_server_validated() && p(b).is_input()),
            server_validated_output_idx: idx(&|b| p(b).is_server_validated() && p(b).is_output()),
            list,
        })
    }

    pub fn list(&self) -> &[Binding] {
        &self.list
    }

    /// (field, type, interpolation) of the bindings that reach simulated proxies.
    pub fn simulated_list(&self) -> &[(Field, BoundType, InterpolationFunction)] {
        &self.simulated_list
    }

    /// A fingerprint of the layout (names, types and modes in order), so two machines can tell
    /// whether they bound identically. FNV-1a.
    pub fn layout_hash(&self) -> u32 {
        let mut h: u32 = 0x811C_9DC5;
        let mut eat = |bytes: &[u8]| {
            for b in bytes {
                h ^= u32::from(*b);
                h = h.wrapping_mul(0x0100_0193);
            }
        };
        for b in &self.list {
            eat(b.name.as_bytes());
            eat(format!("{:?}{:?}{:?}", b.ty, b.prediction, b.combine).as_bytes());
        }
        h
    }

    pub fn get(&self, i: usize) -> &Binding {
        &self.list[i]
    }

    pub fn by_name(&self, name: &str) -> Option<&Binding> {
        self.list.iter().find(|b| &*b.name == name)
    }

    /// Bindings in the move's input state, in layout order.
    pub fn inputs(&self) -> impl Iterator<Item = (usize, &Binding)> {
        self.input_idx.iter().map(|&i| (i, &self.list[i]))
    }

    pub fn client_validated(&self) -> impl Iterator<Item = (usize, &Binding)> {
        self.client_validated_idx
            .iter()
            .map(|&i| (i, &self.list[i]))
    }

    pub fn server_validated_inputs(&self) -> impl Iterator<Item = (usize, &Binding)> {
        self.server_validated_input_idx
            .iter()
            .map(|&i| (i, &self.list[i]))
    }

    pub fn server_validated_outputs(&self) -> impl Iterator<Item = (usize, &Binding)> {
        self.server_validated_output_idx
            .iter()
            .map(|&i| (i, &self.list[i]))
    }
}

/// The binding layouts one machine knows, by version (the version travels in every datagram
/// header). Version 0 is the list made in `BindReplicationData`; live binding changes add
/// versions. `current` is the version new moves use.
#[derive(Clone, Debug)]
pub struct Layouts {
    versions: Vec<Option<Arc<Bindings>>>,
    current: u8,
}

impl Layouts {
    pub fn new(initial: Arc<Bindings>) -> Self {
        Layouts {
            versions: vec![Some(initial)],
            current: 0,
        }
    }

    pub fn current(&self) -> u8 {
        self.current
    }

    pub fn current_bindings(&self) -> &Arc<Bindings> {
        self.get(self.current)
            .expect("the current layout is always defined")
    }

    pub fn get(&self, version: u8) -> Option<&Arc<Bindings>> {
        self.versions.get(usize::from(version))?.as_ref()
    }

    /// Defines (or redefines) a version.
    pub fn define(&mut self, version: u8, b: Arc<Bindings>) {
        let i = usize::from(version);
        if self.versions.len() <= i {
            self.versions.resize(i + 1, None);
        }
        self.versions[i] = Some(b);
    }

    /// Makes a defined version current; returns false when it is not defined.
    pub fn select(&mut self, version: u8) -> bool {
        let ok = self.get(version).is_some();
        if ok {
            self.current = version;
        }
        ok
    }

    /// The next unused version number.
    pub fn next_version(&self) -> u8 {
        self.versions.len().min(255) as u8
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

    #[test]
    fn mode_flags_follow_the_table() {
        for m in PredictionMode::ALL {
            // Exactly one authority class.
            let classes = [
                m.is_server_auth(),
                m.is_client_auth(),
                m == PredictionMode::Local,
            ];
            assert_eq!(classes.iter().filter(|x| **x).count(), 1, "{m:?}");
            if m.is_server_auth() {
                assert!(m.is_client_validated() ^ m.is_server_validated(), "{m:?}");
            }
            if m == PredictionMode::Local {
                assert!(!m.is_input() && !m.is_output() && !m.client_sends());
            } else {
                assert!(m.is_input() || m.is_output(), "{m:?}");
            }
        }
        assert!(!PredictionMode::ServerAuth_Output_ClientValidated.client_sends());
        assert!(PredictionMode::ServerAuth_Output_ServerValidated.client_sends());
        assert!(PredictionMode::ClientAuth_Input.client_sends());
        assert_eq!(
            CombineMode::Default.resolve(BoundType::Bool),
            CombineMode::CombineIfUnchanged
        );
        assert_eq!(
            CombineMode::Default.resolve(BoundType::CompressedVector2D),
            CombineMode::AlwaysCombineOverwrite
        );
    }
}
