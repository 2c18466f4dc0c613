//! The code of an imported layout's values (a GMC component's binding table run as a
//! session): inputs written each frame from the input script or the keyboard, outputs written
//! by the prediction tick as a deterministic function of the move's inputs, timestamp and
//! delta. What each value does is its binding's [`Behaviour`] (docs/lint.md, "Run with this
//! layout").

use std::sync::{Arc, OnceLock};

use glam::{DVec2, DVec3};

use super::binding::{
    Behaviour, Bindings, BoundType, ImportedRule, NOMINAL_NAME_LEN, NOMINAL_STRUCT_BYTES, Value,
};
use super::input::RawInput;
use super::pawn::PawnValues;

/// Seconds each pawn's input-script periods are shifted by, per pawn id, so pawns do not
/// press in step.
pub const IMPORTED_PHASE_S: f64 = 0.37;
/// Where in its bit band a [`Behaviour::Wave`] output swings (fractions of the band), and how
/// much an active input raises it.
pub const WAVE_CENTRE: f64 = 0.5;
pub const WAVE_AMPLITUDE: f64 = 0.3;
pub const WAVE_INPUT_RAISE: f64 = 0.15;

/// The two-decimal values that take as many bits as `m` (same width bit-packed): `[lo, hi]`.
pub fn bit_band(m: f64) -> (f64, f64) {
    let units = (m.abs() * 100.0).max(1.0);
    let w = units.log2().floor();
    (w.exp2() / 100.0, ((w + 1.0).exp2() - 1.0) / 100.0)
}

/// A wave output's level: inside the bit band of its type's nominal magnitude, so it takes
/// the bits the table states for it whatever the phase.
pub fn wave_level(ty: BoundType, s: f64, active: bool) -> f64 {
    let (lo, hi) = bit_band(ty.nominal_magnitude(false));
    let raise = if active { WAVE_INPUT_RAISE } else { 0.0 };
    lo + (hi - lo) * (WAVE_CENTRE + WAVE_AMPLITUDE * s + raise)
}

/// Two names (and two tags) of the table's nominal length, and two structs of its nominal
/// size: what name-like values switch between.
fn names() -> &'static [[Arc<str>; 2]; 3] {
    static NAMES: OnceLock<[[Arc<str>; 2]; 3]> = OnceLock::new();
    NAMES.get_or_init(|| {
        let pad = |s: &str| -> Arc<str> {
            let mut s = s.to_string();
            while s.len() < NOMINAL_NAME_LEN {
                s.push('.');
            }
            s.truncate(NOMINAL_NAME_LEN);
            Arc::from(s.as_str())
        };
        [
            [pad("State.Idle"), pad("State.Active")],
            [pad("Tag.Grounded"), pad("Tag.Moving")],
            [pad("Tag.Alive"), pad("Tag.Boosted")],
        ]
    })
}

fn structs() -> &'static [Arc<[u8]>; 2] {
    static STRUCTS: OnceLock<[Arc<[u8]>; 2]> = OnceLock::new();
    STRUCTS.get_or_init(|| {
        [
            Arc::from(vec![0u8; NOMINAL_STRUCT_BYTES]),
            Arc::from(vec![1u8; NOMINAL_STRUCT_BYTES]),
        ]
    })
}

/// The value of type `ty` at `level` (a number; flags and names switch at 0.5), with `dir` for
/// vectors that follow the move direction.
pub fn value_at(ty: BoundType, level: f64, dir: Option<DVec3>) -> Value {
    let on = level > 0.5;
    let pick = |k: usize| names()[k][usize::from(on)].clone();
    match ty {
        BoundType::Bool => Value::Bool(on),
        BoundType::HalfByte => Value::Byte((level.max(0.0) as u64 % 16) as u8),
        BoundType::Byte => Value::Byte((level.max(0.0) as u64 % 256) as u8),
        BoundType::Int => Value::Int((level as i64 % i64::from(i32::MAX)) as i32),
        BoundType::Float | BoundType::CompressedFloat => Value::Float(level as f32),
        BoundType::Double | BoundType::CompressedDouble | BoundType::TruncatedDouble => {
            Value::Double(level)
        }
        BoundType::CompressedVector2D => {
            Value::Vec2(dir.map_or(DVec2::new(level, -level), |d| d.truncate()))
        }
        BoundType::CompressedVector | BoundType::CompressedRotator => {
            Value::Vec3(dir.unwrap_or(DVec3::new(level, -level, level * 0.5)))
        }
        BoundType::ActorReference
        | BoundType::ActorComponentReference
        | BoundType::AnimMontageReference => Value::ObjectRef(u32::from(on) * 7),
        BoundType::Name => Value::Name(pick(0)),
        BoundType::GameplayTag => Value::Name(pick(1)),
        BoundType::GameplayTagContainer => Value::Tags(Arc::from(vec![pick(1), pick(2)])),
        BoundType::InstancedStruct => Value::Struct(structs()[usize::from(on)].clone()),
    }
}

/// Whether a value counts as active (a pressed key, a moving axis, a set flag).
fn active(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Byte(b) => *b != 0,
        Value::Int(i) => *i != 0,
        Value::Float(f) => *f != 0.0,
        Value::Double(d) => *d != 0.0,
        Value::Vec2(v) => *v != DVec2::ZERO,
        Value::Vec3(v) => *v != DVec3::ZERO,
        Value::ObjectRef(r) => *r != 0,
        Value::Name(n) => names().iter().any(|p| Arc::ptr_eq(&p[1], n)),
        Value::Tags(t) => t.first().is_some_and(|n| names()[1][1] == *n),
        Value::Struct(s) => s.first().is_some_and(|b| *b != 0),
    }
}

/// The spawn values of an imported layout: every slot at its type's zero (a wave's start is
/// written by the first tick).
pub fn spawn_values(v: &mut PawnValues, inputs: &[ImportedRule], outputs: &[ImportedRule]) {
    for r in inputs.iter().chain(outputs) {
        v.set(r.field, &value_at(r.ty, 0.0, None));
    }
}

/// A new pawn's values under layout `b`: `v` with the imported slots at their spawn values.
pub fn spawned(mut v: PawnValues, b: &Bindings) -> PawnValues {
    if b.is_imported() {
        spawn_values(&mut v, b.imported_inputs(), b.imported_outputs());
    }
    v
}

fn same_shape(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// Writes the imported inputs of one frame: `now` is the owning machine's frame time and `dt`
/// its frame delta; `phase` shifts the input-script periods so pawns do not press in step.
pub fn write_inputs(
    v: &mut PawnValues,
    rules: &[ImportedRule],
    raw: &RawInput,
    now: f64,
    dt: f64,
    phase: f64,
) {
    for r in rules {
        let t = now + phase;
        let value = match r.behaviour {
            Behaviour::Axis => match r.ty {
                BoundType::CompressedVector2D
                | BoundType::CompressedVector
                | BoundType::CompressedRotator => value_at(r.ty, 0.0, Some(raw.dir.extend(0.0))),
                _ if r.ty.is_continuous() => value_at(r.ty, raw.dir.x, None),
                _ => value_at(r.ty, f64::from(u8::from(raw.dir != DVec2::ZERO)), None),
            },
            Behaviour::Press { key, period_s } => {
                let down = if raw.from_keys {
                    raw.keys & key.bit() != 0
                } else {
                    // Periods counted in microseconds, so a boundary that `t - dt` and the
                    // previous frame's `t` see on different sides (rounding) is one press.
                    let p = period_s.max(0.01);
                    let period = |x: f64| ((x / p) * 1e6).round().div_euclid(1e6);
                    period(t) != period(t - dt.max(0.0))
                };
                value_at(r.ty, f64::from(u8::from(down)), None)
            }
            Behaviour::Hold { key, period_s } => {
                let down = if raw.from_keys {
                    raw.keys & key.bit() != 0
                } else {
                    (t / period_s.max(0.01)).fract() < 0.5
                };
                value_at(r.ty, f64::from(u8::from(down)), None)
            }
            Behaviour::Toggle { period_s } => {
                let on = (t / period_s.max(0.01)).floor().rem_euclid(2.0) >= 1.0;
                value_at(r.ty, f64::from(u8::from(on)), None)
            }
            // An output behaviour on an input: the input keeps its value.
            Behaviour::Wave { .. } | Behaviour::Counter | Behaviour::Constant => continue,
        };
        v.set(r.field, &value);
    }
}

/// One iteration of the imported outputs, after the pawn walked: `timestamp` is the move's,
/// `dt` the iteration's delta. Reads only the pawn's values, so every machine computes the
/// same outputs from the same move.
pub fn tick_outputs(
    v: &mut PawnValues,
    inputs: &[ImportedRule],
    outputs: &[ImportedRule],
    timestamp: f64,
    dt: f64,
) {
    let any_active = v.input_move != DVec2::ZERO || inputs.iter().any(|r| active(&v.get(r.field)));
    for (k, r) in outputs.iter().enumerate() {
        let value = match r.behaviour {
            Behaviour::Wave { period_s } => {
                let phase = k as f64 * 0.7;
                let s = (std::f64::consts::TAU * timestamp / period_s.max(0.01) + phase).sin();
                let level = if r.ty.is_continuous() {
                    wave_level(r.ty, s, any_active)
                } else {
                    match r.ty {
                        BoundType::Byte | BoundType::HalfByte | BoundType::Int => {
                            (4.0 + 3.0 * s).round() + f64::from(u8::from(any_active))
                        }
                        _ => f64::from(u8::from(s > 0.0 || any_active)),
                    }
                };
                value_at(r.ty, level, None)
            }
            Behaviour::Counter => {
                if !any_active {
                    continue;
                }
                let zero = value_at(r.ty, 0.0, None);
                let cur = Some(v.get(r.field))
                    .filter(|c| same_shape(c, &zero))
                    .unwrap_or(zero);
                match cur {
                    Value::Byte(b) => {
                        let mask = if r.ty == BoundType::HalfByte {
                            0x0F
                        } else {
                            0xFF
                        };
                        Value::Byte(b.wrapping_add(1) & mask)
                    }
                    Value::Int(i) => Value::Int(i.wrapping_add(1)),
                    Value::Float(f) => Value::Float(f + dt as f32),
                    Value::Double(d) => Value::Double(d + dt),
                    Value::Vec2(x) => Value::Vec2(x + DVec2::splat(dt)),
                    Value::Vec3(x) => Value::Vec3(x + DVec3::splat(dt)),
                    other => value_at(r.ty, f64::from(u8::from(!active(&other))), None),
                }
            }
            Behaviour::Constant
            | Behaviour::Axis
            | Behaviour::Press { .. }
            | Behaviour::Hold { .. }
            | Behaviour::Toggle { .. } => continue,
        };
        v.set(r.field, &value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::binding::{Field, InputKey};

    fn rule(i: u8, ty: BoundType, behaviour: Behaviour) -> ImportedRule {
        ImportedRule {
            field: Field::Custom(i),
            ty,
            behaviour,
        }
    }

    #[test]
    fn every_type_round_trips_its_shape_and_names_keep_the_nominal_length() {
        for ty in BoundType::ALL {
            for level in [0.0, 1.0, 1000.0] {
                let v = value_at(ty, level, None);
                assert_eq!(
                    std::mem::discriminant(&v),
                    std::mem::discriminant(&ty.nominal_value()),
                    "{ty:?}"
                );
                if !ty.is_numeric() {
                    // Names, tags and structs are the size the table assumes.
                    assert_eq!(ty.wire_bits(&v), ty.nominal_bits(), "{ty:?}");
                }
            }
        }
    }

    #[test]
    fn presses_come_once_per_period_or_follow_the_key() {
        let r = [rule(
            0,
            BoundType::Bool,
            Behaviour::Press {
                key: InputKey::Space,
                period_s: 1.0,
            },
        )];
        let mut v = PawnValues::default();
        let mut presses = 0;
        for f in 0..600 {
            let now = f64::from(f) / 60.0;
            write_inputs(&mut v, &r, &RawInput::default(), now, 1.0 / 60.0, 0.3);
            presses += usize::from(v.get(Field::Custom(0)) == Value::Bool(true));
        }
        assert_eq!(presses, 10, "one frame per second over ten seconds");
        let keys = RawInput {
            keys: InputKey::Space.bit(),
            from_keys: true,
            ..RawInput::default()
        };
        write_inputs(&mut v, &r, &keys, 0.5, 1.0 / 60.0, 0.0);
        assert_eq!(v.get(Field::Custom(0)), Value::Bool(true));
        write_inputs(
            &mut v,
            &r,
            &RawInput {
                from_keys: true,
                ..RawInput::default()
            },
            0.0,
            1.0 / 60.0,
            0.0,
        );
        assert_eq!(v.get(Field::Custom(0)), Value::Bool(false), "key up");
    }

    #[test]
    fn outputs_are_a_function_of_the_move_and_counters_count_active_inputs() {
        let inputs = [rule(
            0,
            BoundType::Bool,
            Behaviour::Toggle { period_s: 1.0 },
        )];
        let outputs = [
            rule(
                1,
                BoundType::CompressedFloat,
                Behaviour::Wave { period_s: 2.0 },
            ),
            rule(2, BoundType::Byte, Behaviour::Counter),
        ];
        let mut a = PawnValues::default();
        spawn_values(&mut a, &inputs, &outputs);
        let mut b = a.clone();
        a.set(Field::Custom(0), &Value::Bool(true));
        b.set(Field::Custom(0), &Value::Bool(true));
        for _ in 0..5 {
            tick_outputs(&mut a, &inputs, &outputs, 1.25, 0.01);
            tick_outputs(&mut b, &inputs, &outputs, 1.25, 0.01);
        }
        assert_eq!(a, b);
        assert_eq!(a.get(Field::Custom(2)), Value::Byte(5));
        let Value::Float(w) = a.get(Field::Custom(1)) else {
            panic!("a float");
        };
        let s = (std::f64::consts::TAU * 1.25 / 2.0).sin();
        assert!((f64::from(w) - wave_level(BoundType::CompressedFloat, s, true)).abs() < 1e-3);
        // Inside the nominal bit band whatever the phase.
        for s in [-1.0, 0.0, 1.0] {
            for on in [false, true] {
                for ty in [
                    BoundType::CompressedFloat,
                    BoundType::CompressedVector,
                    BoundType::CompressedRotator,
                ] {
                    let v = value_at(ty, wave_level(ty, s, on), None);
                    assert_eq!(
                        ty.wire_bits(&ty.quantize(&v)),
                        ty.nominal_bits(),
                        "{ty:?} {s} {on}"
                    );
                }
            }
        }
        a.set(Field::Custom(0), &Value::Bool(false));
        tick_outputs(&mut a, &inputs, &outputs, 1.3, 0.01);
        assert_eq!(a.get(Field::Custom(2)), Value::Byte(5), "idle: no count");
    }
}
