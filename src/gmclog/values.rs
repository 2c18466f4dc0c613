//! Bound values as GMC prints them: the sync types' log names, each type's value text (both
//! ways), and the entries of a dump line (`Bool:  [0] true  [1] false`).

use glam::{DVec2, DVec3};

use super::scan::{number, triple};
use crate::model::binding::{BoundType, Value};

/// GMC's integrated (always printed, single-value) sync types and their log names.
pub const INTEGRATED: [&str; 7] = [
    "ActorBase",
    "LinearVelocity",
    "AngularVelocity",
    "ActorLocation",
    "ActorRotation",
    "ActorScale",
    "ControlRotation",
];

/// The integrated type GMC keeps a built-in member in (its log name), if the member is one:
/// built-ins are printed on their own line and have no index among the bound types.
pub fn integrated_name(f: crate::model::pawn::Field) -> Option<&'static str> {
    use crate::model::pawn::Field;
    match f {
        Field::Velocity => Some("LinearVelocity"),
        Field::AngularVelocity => Some("AngularVelocity"),
        Field::Location => Some("ActorLocation"),
        Field::Rotation => Some("ActorRotation"),
        Field::Scale => Some("ActorScale"),
        Field::ControlRotation => Some("ControlRotation"),
        _ => None,
    }
}

/// The log name GMC prints for a bound (generic) type (`SyncCore.cpp`).
pub fn log_name(ty: BoundType) -> &'static str {
    match ty {
        BoundType::Bool => "Bool",
        BoundType::HalfByte => "HalfByte",
        BoundType::Byte => "Byte",
        BoundType::Int => "Int",
        BoundType::Float => "SinglePrecisionFloat",
        BoundType::CompressedFloat => "CompressedSinglePrecisionFloat",
        BoundType::Double => "DoublePrecisionFloat",
        BoundType::CompressedDouble => "CompressedDoublePrecisionFloat",
        BoundType::TruncatedDouble => "TruncatedDoublePrecisionFloat",
        BoundType::CompressedVector2D => "CompressedVector2D",
        BoundType::CompressedVector => "CompressedVector",
        BoundType::CompressedRotator => "CompressedRotator",
        BoundType::ActorReference => "ActorReference",
        BoundType::ActorComponentReference => "ActorComponentReference",
        BoundType::AnimMontageReference => "AnimMontageReference",
        BoundType::Name => "Name",
        BoundType::GameplayTag => "GameplayTag",
        BoundType::GameplayTagContainer => "GameplayTagContainer",
        BoundType::InstancedStruct => "InstancedStruct",
    }
}

/// The bound type of a log name, if it is one.
pub fn type_of(name: &str) -> Option<BoundType> {
    BoundType::ALL.into_iter().find(|t| log_name(*t) == name)
}

/// How an integrated type's value reads (location and velocities as vectors, rotations as
/// rotators).
fn integrated_type(name: &str) -> Option<BoundType> {
    match name {
        "LinearVelocity" | "AngularVelocity" | "ActorLocation" | "ActorScale" => {
            Some(BoundType::CompressedVector)
        }
        "ActorRotation" | "ControlRotation" => Some(BoundType::CompressedRotator),
        _ => None,
    }
}

/// The type a printed name's values are read as: a bound type's log name, an integrated
/// type, or a GMC 1.x slot name (`Float3`, `Vector12`, `location`).
pub fn value_type(name: &str) -> Option<BoundType> {
    type_of(name).or_else(|| integrated_type(name)).or_else(|| {
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
        match base.to_ascii_lowercase().as_str() {
            "bool" => Some(BoundType::Bool),
            "halfbyte" | "byte" => Some(BoundType::Byte),
            "int" => Some(BoundType::Int),
            "float" => Some(BoundType::Float),
            "vector" | "normal" | "location" | "velocity" => Some(BoundType::CompressedVector),
            "rotator" | "rotation" | "control rotation" => Some(BoundType::CompressedRotator),
            _ => None,
        }
    })
}

/// Reads a value's text as GMC prints it for `ty` (and 1.x's `a, b, c` and `X: a, Y: b`
/// forms); text that is not a number of the type stays a name.
pub fn parse(ty: Option<BoundType>, text: &str) -> Value {
    let text = text.trim();
    let parsed = match ty {
        Some(BoundType::Bool) => parse_bool(text),
        Some(BoundType::HalfByte | BoundType::Byte) => {
            number(text).map(|(v, _)| Value::Byte(v.clamp(0.0, 255.0) as u8))
        }
        Some(BoundType::Int) => number(text).map(|(v, _)| Value::Int(v as i32)),
        Some(BoundType::Float | BoundType::CompressedFloat | BoundType::TruncatedDouble) => {
            number(text).map(|(v, _)| Value::Float(v as f32))
        }
        Some(BoundType::Double | BoundType::CompressedDouble) => {
            number(text).map(|(v, _)| Value::Double(v))
        }
        Some(BoundType::CompressedVector2D) => {
            labelled(text, &["X", "Y"]).map(|v| Value::Vec2(DVec2::new(v[0], v[1])))
        }
        Some(BoundType::CompressedVector) => labelled(text, &["X", "Y", "Z"])
            .or_else(|| triple(text).map(|(v, _)| v.to_vec()))
            .map(|v| Value::Vec3(DVec3::new(v[0], v[1], v[2]))),
        Some(BoundType::CompressedRotator) => labelled(text, &["Roll", "Pitch", "Yaw"])
            .map(|v| Value::Vec3(DVec3::new(v[1], v[2], v[0])))
            .or_else(|| {
                // 1.x columns are Roll, Pitch, Yaw too.
                triple(text).map(|(v, _)| Value::Vec3(DVec3::new(v[1], v[2], v[0])))
            }),
        _ => None,
    };
    parsed.unwrap_or_else(|| Value::Name(text.into()))
}

fn parse_bool(text: &str) -> Option<Value> {
    match text {
        "true" | "True" | "1" => Some(Value::Bool(true)),
        "false" | "False" | "0" => Some(Value::Bool(false)),
        _ => None,
    }
}

/// `X=1.00 Y=2.00 Z=3.00` (or `X: 1.0, Y: 2.0, Z: 3.0`) in the labels' order.
fn labelled(text: &str, labels: &[&str]) -> Option<Vec<f64>> {
    let mut out = Vec::with_capacity(labels.len());
    let mut rest = text;
    for l in labels {
        let at = rest.find(l)?;
        let r = rest[at + l.len()..].trim_start();
        let r = r.strip_prefix('=').or_else(|| r.strip_prefix(':'))?;
        let (v, r) = number(r)?;
        out.push(v);
        rest = r.trim_start().trim_start_matches(',');
    }
    Some(out)
}

/// The entries of a generic dump line's value part: `[0] true  [1] false` → (0, "true"),
/// (1, "false").
pub fn entries(text: &str) -> impl Iterator<Item = (u16, &str)> {
    text.split("  [").filter_map(|part| {
        let part = part.strip_prefix('[').unwrap_or(part);
        let (i, v) = part.split_once("] ")?;
        Some((i.trim().parse().ok()?, v.trim()))
    })
}

/// A value as GMC prints it for its type (`%.6f`, `%.2f`, `X=%.2f Y=%.2f Z=%.2f`, `Roll=…`).
pub fn format(ty: BoundType, v: &Value) -> String {
    match (ty, v) {
        (_, Value::Bool(b)) => b.to_string(),
        (_, Value::Byte(b)) => b.to_string(),
        (_, Value::Int(i)) => i.to_string(),
        (BoundType::CompressedFloat | BoundType::CompressedDouble, Value::Float(x)) => {
            format!("{x:.2}")
        }
        (BoundType::CompressedFloat | BoundType::CompressedDouble, Value::Double(x)) => {
            format!("{x:.2}")
        }
        (BoundType::Double, Value::Double(x)) => format!("{x:.14}"),
        (_, Value::Float(x)) => format!("{x:.6}"),
        (_, Value::Double(x)) => format!("{x:.6}"),
        (_, Value::Vec2(p)) => format!("X={:.2} Y={:.2}", p.x, p.y),
        (BoundType::CompressedRotator, Value::Vec3(r)) => {
            format!("Roll={:.2} Pitch={:.2} Yaw={:.2}", r.z, r.x, r.y)
        }
        (_, Value::Vec3(p)) => format!("X={:.2} Y={:.2} Z={:.2}", p.x, p.y, p.z),
        (_, Value::ObjectRef(0)) => "Null".to_string(),
        (_, Value::ObjectRef(id)) => format!("Object_{id}"),
        (_, Value::Name(n)) => n.to_string(),
        (_, Value::Tags(t)) => t.join(", "),
        (_, Value::Struct(_)) => "<logging not supported>".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_back_as_printed() {
        for (ty, v) in [
            (BoundType::Bool, Value::Bool(true)),
            (BoundType::Byte, Value::Byte(7)),
            (BoundType::Int, Value::Int(-3)),
            (BoundType::Float, Value::Float(0.25)),
            (
                BoundType::CompressedVector2D,
                Value::Vec2(DVec2::new(1.0, -0.5)),
            ),
            (
                BoundType::CompressedVector,
                Value::Vec3(DVec3::new(1.5, 2.0, -3.25)),
            ),
            (
                BoundType::CompressedRotator,
                Value::Vec3(DVec3::new(10.0, 90.0, 0.5)),
            ),
        ] {
            let text = format(ty, &v);
            assert_eq!(parse(Some(ty), &text), v, "{text}");
        }
        assert_eq!(
            parse(Some(BoundType::CompressedVector), "1.0, 2.0, 3.0"),
            Value::Vec3(DVec3::new(1.0, 2.0, 3.0))
        );
        assert_eq!(
            parse(Some(BoundType::Int), "abc"),
            Value::Name("abc".into())
        );
    }

    #[test]
    fn dump_entries_and_names() {
        let e: Vec<_> = entries("[0] X=1.00 Y=2.00 Z=3.00  [1] X=0.00 Y=0.00 Z=0.00").collect();
        assert_eq!(
            e,
            vec![(0, "X=1.00 Y=2.00 Z=3.00"), (1, "X=0.00 Y=0.00 Z=0.00")]
        );
        assert_eq!(value_type("Float3"), Some(BoundType::Float));
        assert_eq!(
            value_type("ActorLocation"),
            Some(BoundType::CompressedVector)
        );
        assert_eq!(
            type_of("CompressedSinglePrecisionFloat"),
            Some(BoundType::CompressedFloat)
        );
    }
}
