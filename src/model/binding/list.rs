//! The binding list: one [`Binding`] per `Bind*` call, the [`Bindings`] a machine made with
//! the field masks the move cycle needs, their layout hash, and the versioned [`Layouts`].

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::behaviour::Behaviour;
use super::field::{Field, MAX_CUSTOM};
use super::modes::{CombineMode, InterpolationFunction, PredictionMode, SimulationMode};
use super::types::BoundType;

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
    /// What drives an imported value ([`Field::Custom`]); `None` for the demo pawn's members,
    /// whose code is the demo pawn's tick.
    #[serde(default)]
    pub behaviour: Option<Behaviour>,
}

/// An imported value and what drives it, as the pawn's code applies it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImportedRule {
    pub field: Field,
    pub ty: BoundType,
    pub behaviour: Behaviour,
}

/// A set of fields, as a bit mask over [`Field::index`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FieldMask(pub u128);

impl FieldMask {
    pub const EMPTY: FieldMask = FieldMask(0);
    #[inline(always)]
    pub fn with(self, f: Field) -> FieldMask {
        FieldMask(self.0 | (1 << f.index()))
    }
    #[inline(always)]
    pub fn contains(self, f: Field) -> bool {
        self.0 & (1 << f.index()) != 0
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
    /// The imported values' inputs and outputs, in layout order; `imported` is true when the
    /// list is an imported layout (the demo pawn's own logic beyond walking is then off).
    imported_inputs: Vec<ImportedRule>,
    imported_outputs: Vec<ImportedRule>,
    imported: bool,
}

/// Why a binding list was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum BindingError {
    Duplicate(String),
    TypeMismatch {
        name: String,
        expected: BoundType,
    },
    /// More imported values than a layout can carry.
    TooManyImported {
        count: usize,
    },
}

impl std::fmt::Display for BindingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BindingError::Duplicate(n) => write!(f, "member `{n}` is bound twice"),
            BindingError::TypeMismatch { name, expected } => write!(
                f,
                "member `{name}` cannot be bound as this type; expected {expected:?}"
            ),
            BindingError::TooManyImported { count } => write!(
                f,
                "{count} imported values; a layout carries at most {MAX_CUSTOM}"
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
            imported_inputs: Vec::new(),
            imported_outputs: Vec::new(),
            imported: false,
        }
    }

    pub fn new(list: Vec<Binding>) -> Result<Self, BindingError> {
        let mut bound = FieldMask::EMPTY;
        let customs = list
            .iter()
            .filter(|b| matches!(b.field, Field::Custom(_)))
            .count();
        if list
            .iter()
            .any(|b| matches!(b.field, Field::Custom(i) if usize::from(i) >= MAX_CUSTOM))
        {
            return Err(BindingError::TooManyImported { count: customs });
        }
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
        let rules = |inputs: bool| {
            list.iter()
                .filter_map(|b| match b.field {
                    Field::Custom(_) if b.prediction.is_input() == inputs => Some(ImportedRule {
                        field: b.field,
                        ty: b.ty,
                        behaviour: b.behaviour.unwrap_or_else(|| {
                            Behaviour::guess(&b.name, b.ty, b.prediction.is_input())
                        }),
                    }),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        Ok(Bindings {
            imported_inputs: rules(true),
            imported_outputs: rules(false),
            imported: customs > 0,
            bound,
            input: mask(&|b| p(b).is_input()),
            client_sends_input: mask(&|b| p(b).is_input() && p(b).client_sends()),
            client_sends_output: mask(&|b| p(b).is_output() && p(b).client_sends()),
            client_auth_input: mask(&|b| p(b).is_input() && p(b).is_client_auth()),
            client_auth_output: mask(&|b| p(b).is_output() && p(b).is_client_auth()),
            client_validated: mask(&|b| p(b).is_client_validated()),
            server_auth: mask(&|b| p(b).is_server_auth()),
            // A Local value is never sent, to proxies neither, whatever its simulation mode.
            simulated: mask(&|b| b.simulation != SimulationMode::None && !p(b).is_local()),
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
                .filter(|b| b.simulation != SimulationMode::None && !p(b).is_local())
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

    /// Whether this is an imported layout (a component's table run as a session).
    pub fn is_imported(&self) -> bool {
        self.imported
    }

    /// The imported inputs (written each frame) and outputs (written by the tick).
    pub fn imported_inputs(&self) -> &[ImportedRule] {
        &self.imported_inputs
    }

    pub fn imported_outputs(&self) -> &[ImportedRule] {
        &self.imported_outputs
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
