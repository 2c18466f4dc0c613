//! What a bound two-decimal value measures, for the bits the table states: a unit direction or
//! stick axis (1 per component), an angle (180°), or a magnitude (a position, a velocity, an
//! acceleration: 1000 per component). Decided from the bound type, then from what the class
//! writes to the member (`= Velocity`, `GetSafeNormal()`, `.Normalize()`,
//! `FindDeltaAngleDegrees`, `.Yaw`), then — only when nothing is written that tells — from
//! the member's name, and last from the type and mode alone (an input float or 2D vector is a
//! stick).

use std::collections::HashMap;

use glam::{DVec2, DVec3};

use super::gmc;
use super::program::{BindingRow, Program, bound_member};
use super::syntax::EventKind;
use crate::model::binding::{BoundType, PredictionMode, Value};

pub use super::scale::{Basis, Measure, Scale};

/// The bits a value of `ty` at `scale` takes on the wire: the wire model's own count of a
/// value that size (two-decimal types), or the type's fixed size.
pub fn bits(ty: BoundType, scale: Scale) -> u32 {
    let m = scale.per_component();
    let v = match ty {
        BoundType::CompressedFloat => Value::Float(m as f32),
        BoundType::CompressedDouble => Value::Double(m),
        BoundType::CompressedVector2D => Value::Vec2(DVec2::splat(m)),
        BoundType::CompressedVector | BoundType::CompressedRotator => Value::Vec3(DVec3::splat(m)),
        _ => return ty.nominal_bits(),
    };
    ty.wire_bits(&v)
}

/// The scale of a value of `ty` bound with `prediction` and named `name` when nothing written
/// to it tells: a rotator's angles; else the name; else an input float or 2D vector is a
/// stick and anything else a magnitude.
pub fn unwritten(ty: BoundType, prediction: Option<PredictionMode>, name: &str) -> Measure {
    if ty == BoundType::CompressedRotator {
        return Measure {
            scale: Scale::Angle,
            basis: Basis::Type,
        };
    }
    if let Some(scale) = of_name(ty, prediction, name) {
        return Measure {
            scale,
            basis: Basis::Name,
        };
    }
    let input = prediction.is_some_and(PredictionMode::is_input);
    let stick = input
        && matches!(
            ty,
            BoundType::CompressedFloat
                | BoundType::CompressedDouble
                | BoundType::CompressedVector2D
        );
    Measure {
        scale: if stick { Scale::Unit } else { Scale::Magnitude },
        basis: Basis::Default,
    }
}

/// Sets every row's scale (see the module's text). `class` is the component whose table the
/// rows are; a member reached through a pointer is looked up in its declaring class.
pub(super) fn decide(p: &Program, class: &str, rows: &mut [BindingRow]) {
    let mut sites: HashMap<String, Sites> = HashMap::new();
    for r in rows.iter_mut() {
        let (owner, key) = match &r.declared_by {
            Some(c) => (c.clone(), last_part(&r.member).to_string()),
            None => (class.to_string(), r.member.clone()),
        };
        let written = sites
            .entry(owner.clone())
            .or_insert_with(|| Sites::of(p, &owner))
            .scale(&key);
        r.scale = Some(match written {
            Some(scale) if r.ty != BoundType::CompressedRotator => Measure {
                scale,
                basis: Basis::Written,
            },
            _ => unwritten(r.ty, r.prediction.value(), r.member_name()),
        });
    }
}

/// `Stats.Health` of `Owner->Stats.Health`.
fn last_part(member: &str) -> &str {
    member.rsplit_once("->").map_or(member, |(_, m)| m)
}

/// What each member of a class is given: the scales the written values tell, and the members
/// normalized in place (`Heading.Normalize()`: whatever was written, a unit direction stays).
struct Sites {
    by_member: HashMap<String, Vec<Scale>>,
    normalized: std::collections::HashSet<String>,
}

impl Sites {
    /// The writes of `class`'s functions (and its bases' in the files).
    fn of(p: &Program, class: &str) -> Sites {
        let chain = p.chain(class);
        let mut by_member: HashMap<String, Vec<Scale>> = HashMap::new();
        let mut normalized = std::collections::HashSet::new();
        for f in p
            .funcs
            .iter()
            .filter(|f| f.class.as_ref().is_some_and(|c| chain.contains(c)))
        {
            for e in &f.events {
                let (target, scale) = match &e.kind {
                    EventKind::Write { path, rhs, .. } if !f.locals.contains(path) => {
                        (path.clone(), of_written(f, rhs, last_part(path)))
                    }
                    EventKind::Call {
                        name,
                        receiver: Some(r),
                        ..
                    } if matches!(name.as_str(), "Normalize" | "Normalize2D") => {
                        normalized.insert(bound_member(r));
                        continue;
                    }
                    _ => continue,
                };
                if let Some(s) = scale {
                    by_member.entry(target).or_default().push(s);
                }
            }
        }
        Sites {
            by_member,
            normalized,
        }
    }

    /// A member normalized in place is a unit direction; else the widest scale written to
    /// it, if any write tells.
    fn scale(&self, member: &str) -> Option<Scale> {
        if self.normalized.contains(member) {
            return Some(Scale::Unit);
        }
        self.by_member.get(member)?.iter().copied().max()
    }
}

/// The scale a written expression tells, looking one step into a local it names (its
/// initialiser and what the function assigns it). The member's own name in it (`Lean =
/// FInterpTo(Lean, …)`) tells nothing: that would be its name deciding.
fn of_written(f: &super::syntax::Func, rhs: &str, member: &str) -> Option<Scale> {
    let r = rhs.trim();
    if f.locals.contains(r) {
        return f
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Local { name, init, .. } if name == r => of_expression_for(init, member),
                EventKind::Write { path, rhs, .. } if path == r => of_expression_for(rhs, member),
                _ => None,
            })
            .max();
    }
    of_expression_for(r, member)
}

/// The scale an expression tells: its last marker in reading order (the outermost call of a
/// chain: `Velocity.GetSafeNormal()` is a direction, `GetActorRotation().Yaw` an angle), or a
/// magnitude when one is multiplied in (`Direction * Speed`). Constants tell nothing.
pub fn of_expression(rhs: &str) -> Option<Scale> {
    of_expression_for(rhs, "")
}

/// [`of_expression`], the name `member` (and `this`'s members by that name) left out.
fn of_expression_for(rhs: &str, member: &str) -> Option<Scale> {
    let marks: Vec<Scale> = gmc::words(rhs)
        .filter(|w| *w != member)
        .filter_map(marker)
        .collect();
    let last = *marks.last()?;
    if rhs.contains('*') && marks.contains(&Scale::Magnitude) {
        return Some(Scale::Magnitude);
    }
    Some(last)
}

/// What one name in an expression says of the value it gives: a known call or field, else
/// the last word of a name that ends like one (`ImpactNormal`, `ComponentVelocity`,
/// `DesiredYaw`).
fn marker(word: &str) -> Option<Scale> {
    known_marker(word).or_else(|| {
        let last = camel_words(word).pop()?;
        match last.as_str() {
            "normal" | "direction" => Some(Scale::Unit),
            "yaw" | "pitch" | "roll" | "rotation" | "degrees" | "angle" => Some(Scale::Angle),
            "velocity" | "acceleration" | "location" | "position" => Some(Scale::Magnitude),
            _ => None,
        }
    })
}

fn known_marker(word: &str) -> Option<Scale> {
    Some(match word {
        "GetSafeNormal"
        | "GetSafeNormal2D"
        | "GetUnsafeNormal"
        | "GetUnsafeNormal2D"
        | "GetNormalized"
        | "Normalize"
        | "GetForwardVector"
        | "GetRightVector"
        | "GetUpVector"
        | "Vector"
        | "GetSignVector"
        | "GetRawInputVector"
        | "GetProcessedInputVector"
        | "RawInputVector"
        | "ProcessedInputVector"
        | "GetLastInputVector"
        | "GetPendingInputVector" => Scale::Unit,
        "FindDeltaAngleDegrees"
        | "UnwindDegrees"
        | "ClampAngle"
        | "NormalizeAxis"
        | "ClampAxis"
        | "Yaw"
        | "Pitch"
        | "Roll"
        | "RadiansToDegrees"
        | "Rotation"
        | "Rotator"
        | "ToOrientationRotator"
        | "GetControlRotation"
        | "GetActorRotation"
        | "GetComponentRotation"
        | "RInterpTo"
        | "RInterpConstantTo"
        | "FRotator"
        | "MakeRotFromX"
        | "FindLookAtRotation" => Scale::Angle,
        "Velocity"
        | "GetVelocity"
        | "GetLinearVelocity"
        | "GetPhysicsLinearVelocity"
        | "GetActorLocation"
        | "GetComponentLocation"
        | "GetLocation"
        | "Location"
        | "Acceleration"
        | "GetInputAcceleration"
        | "GetMaxSpeed"
        | "MaxSpeed"
        | "Speed"
        | "Size"
        | "Size2D"
        | "Distance"
        | "Dist"
        | "GetLinearVelocity2D" => Scale::Magnitude,
        _ => return None,
    })
}

/// The last resort: the member's name, split into its words (`CustomComputeInputAcceleration`
/// → custom, compute, input, acceleration), read from the last word back, as a name's head
/// noun comes last: the first word that names a magnitude, an angle or a direction decides
/// (an "input" acceleration is no stick, a "target" yaw an angle). For an input vector whose
/// words say none of these, `input` and `move` name a stick.
fn of_name(ty: BoundType, prediction: Option<PredictionMode>, name: &str) -> Option<Scale> {
    const MAGNITUDE: &[&str] = &[
        "accel", "veloc", "location", "position", "offset", "speed", "force", "impulse",
        "distance", "height", "origin", "loc", "pos",
    ];
    const ANGLE: &[&str] = &["yaw", "pitch", "roll", "angle", "heading", "bearing"];
    const UNIT: &[&str] = &[
        "direction",
        "dir",
        "axis",
        "stick",
        "normal",
        "forward",
        "intent",
    ];
    let words = camel_words(name);
    // A short stem is a word of its own (`Dir`, `Loc`), not the start of one (`Dirty`, `Lock`).
    let is = |w: &str, list: &[&str]| {
        list.iter().any(|l| {
            if l.len() <= 3 {
                w == *l
            } else {
                w.starts_with(l)
            }
        })
    };
    for w in words.iter().rev() {
        if is(w, MAGNITUDE) {
            return Some(Scale::Magnitude);
        }
        if is(w, ANGLE) {
            return Some(Scale::Angle);
        }
        if is(w, UNIT) {
            return Some(Scale::Unit);
        }
    }
    let input = prediction.is_some_and(PredictionMode::is_input);
    let stick = words.iter().any(|w| w == "input" || w == "move");
    (input && ty == BoundType::CompressedVector && stick).then_some(Scale::Unit)
}

/// `bWantsMoveDir` → ["wants", "move", "dir"] (lower case; a leading `b` flag prefix dropped).
fn camel_words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let boundary = c == '_'
            || (c.is_ascii_uppercase()
                && i > 0
                && (chars[i - 1].is_ascii_lowercase()
                    || chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase())));
        if boundary && !cur.is_empty() {
            out.push(std::mem::take(&mut cur).to_ascii_lowercase());
        }
        if c != '_' {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur.to_ascii_lowercase());
    }
    if out.first().is_some_and(|w| w == "b") {
        out.remove(0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_tell_their_scale_by_their_outermost_call() {
        assert_eq!(of_expression("Velocity"), Some(Scale::Magnitude));
        assert_eq!(of_expression("GetVelocity()"), Some(Scale::Magnitude));
        assert_eq!(of_expression("Velocity.GetSafeNormal()"), Some(Scale::Unit));
        assert_eq!(
            of_expression("FMath::FindDeltaAngleDegrees(A, B)"),
            Some(Scale::Angle)
        );
        assert_eq!(of_expression("GetActorRotation().Yaw"), Some(Scale::Angle));
        assert_eq!(
            of_expression("Facing.Rotation().Vector()"),
            Some(Scale::Unit)
        );
        assert_eq!(
            of_expression("Dir.GetSafeNormal() * MaxSpeed"),
            Some(Scale::Magnitude)
        );
        assert_eq!(of_expression("FVector::ZeroVector"), None);
        // The member's own name does not decide its scale.
        assert_eq!(
            of_expression_for("FMath::FInterpTo(LeanAngle, Goal, Dt, 5.f)", "LeanAngle"),
            None
        );
        assert_eq!(of_expression("0.f"), None);
    }

    #[test]
    fn names_are_split_into_words() {
        assert_eq!(
            camel_words("CustomComputeInputAcceleration"),
            ["custom", "compute", "input", "acceleration"]
        );
        assert_eq!(camel_words("bWantsMoveDir"), ["wants", "move", "dir"]);
        assert_eq!(camel_words("AIControlYaw"), ["ai", "control", "yaw"]);
        let input = Some(PredictionMode::ClientAuth_Input);
        assert_eq!(
            of_name(
                BoundType::CompressedVector,
                input,
                "CustomComputeInputAcceleration"
            ),
            Some(Scale::Magnitude)
        );
        assert_eq!(
            of_name(BoundType::CompressedVector, input, "MoveInput"),
            Some(Scale::Unit)
        );
        assert_eq!(
            of_name(BoundType::CompressedVector, input, "Redirect"),
            None
        );
        assert_eq!(
            of_name(BoundType::CompressedFloat, None, "TargetYaw"),
            Some(Scale::Angle)
        );
        assert_eq!(
            of_name(BoundType::CompressedVector, input, "MoveDirectionInput"),
            Some(Scale::Unit)
        );
    }

    #[test]
    fn bits_follow_the_wire_model() {
        assert_eq!(bits(BoundType::CompressedVector, Scale::Magnitude), 60);
        assert_eq!(bits(BoundType::CompressedVector, Scale::Unit), 30);
        assert_eq!(bits(BoundType::CompressedRotator, Scale::Angle), 54);
        assert_eq!(
            bits(BoundType::CompressedVector2D, Scale::Unit),
            BoundType::CompressedVector2D.nominal_bits_as(true)
        );
        assert_eq!(bits(BoundType::Bool, Scale::Magnitude), 1);
    }
}
