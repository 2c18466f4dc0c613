//! Per-binding interpolation between buffered proxy states: the fast path for the demo
//! pawn's members ([`interpolate_field`]), the generic one over [`Value`]s
//! ([`interpolate_value`]), and the monotone cubic and shortest-way-round angle blends both use.

use glam::{DVec2, DVec3};

use crate::model::binding::{BoundType, InterpolationFunction, Value};
use crate::model::pawn::{Field, PawnValues};

/// Fast path of [`interpolate_value`] for the demo pawn's members (no `Value` round trip).
pub(super) fn interpolate_field(
    out: &mut PawnValues,
    field: Field,
    ty: BoundType,
    f: InterpolationFunction,
    s: [&PawnValues; 4],
    t: [f64; 4],
    alpha: f64,
) {
    use InterpolationFunction as I;
    let k = alpha.clamp(0.0, 1.0);
    let pick = |f: InterpolationFunction| match f {
        I::StartValue => 1,
        I::TargetValue => 2,
        _ => {
            if k < 0.5 {
                1
            } else {
                2
            }
        }
    };
    let scalar = |x: [f64; 4]| match f {
        I::Linear => x[1] + (x[2] - x[1]) * k,
        I::Cubic => monotone_cubic(x, t, k),
        other => x[pick(other)],
    };
    match field {
        Field::Location | Field::Velocity | Field::Scale | Field::AngularVelocity => {
            let g = |v: &PawnValues| v.vec3(field).unwrap_or_default();
            let v = [g(s[0]), g(s[1]), g(s[2]), g(s[3])];
            let r = DVec3::new(
                scalar([v[0].x, v[1].x, v[2].x, v[3].x]),
                scalar([v[0].y, v[1].y, v[2].y, v[3].y]),
                scalar([v[0].z, v[1].z, v[2].z, v[3].z]),
            );
            if let Some(m) = out.vec3_mut(field) {
                *m = r;
            }
        }
        Field::Rotation | Field::ControlRotation if ty == BoundType::CompressedRotator => {
            let g = |v: &PawnValues| v.vec3(field).unwrap_or_default();
            let (a, b) = (g(s[1]), g(s[2]));
            let r = match f {
                I::Linear | I::Cubic => DVec3::new(
                    lerp_angle(a.x, b.x, k),
                    lerp_angle(a.y, b.y, k),
                    lerp_angle(a.z, b.z, k),
                ),
                other => g(s[pick(other)]),
            };
            if let Some(m) = out.vec3_mut(field) {
                *m = r;
            }
        }
        Field::DashCooldown | Field::Stride | Field::MoveRamp => {
            let g = |v: &PawnValues| {
                f64::from(match field {
                    Field::DashCooldown => v.dash_cooldown,
                    Field::Stride => v.stride,
                    _ => v.move_ramp,
                })
            };
            let r = scalar([g(s[0]), g(s[1]), g(s[2]), g(s[3])]) as f32;
            match field {
                Field::DashCooldown => out.dash_cooldown = r,
                Field::Stride => out.stride = r,
                _ => out.move_ramp = r,
            }
        }
        Field::InputMove => {
            let v = [
                s[0].input_move,
                s[1].input_move,
                s[2].input_move,
                s[3].input_move,
            ];
            out.input_move = DVec2::new(
                scalar([v[0].x, v[1].x, v[2].x, v[3].x]),
                scalar([v[0].y, v[1].y, v[2].y, v[3].y]),
            );
        }
        // Discrete members: NearestNeighbour, or the start/target value.
        _ => {
            let src = s[pick(f)];
            out.set(field, &src.get(field));
        }
    }
}

fn lerp_angle(a: f64, b: f64, k: f64) -> f64 {
    // Shortest way round; angles are within a few turns, so a loop beats fmod.
    let mut d = b - a;
    while d > 180.0 {
        d -= 360.0;
    }
    while d < -180.0 {
        d += 360.0;
    }
    a + d * k
}

/// Monotone cubic (Fritsch–Carlson) between p1 and p2 with neighbours p0 and p3: never leaves
/// [min(p1, p2), max(p1, p2)].
fn monotone_cubic(p: [f64; 4], t: [f64; 4], k: f64) -> f64 {
    let h = t[2] - t[1];
    if h <= 0.0 {
        return p[2];
    }
    let slope = |i: usize, j: usize| {
        let dt = t[j] - t[i];
        if dt > 0.0 { (p[j] - p[i]) / dt } else { 0.0 }
    };
    let d = slope(1, 2);
    let (d0, d2) = (slope(0, 1), slope(2, 3));
    let tangent = |a: f64, b: f64| {
        if a * b <= 0.0 {
            0.0
        } else {
            // Harmonic mean keeps the curve monotone.
            2.0 * a * b / (a + b)
        }
    };
    let (m1, m2) = if d == 0.0 {
        (0.0, 0.0)
    } else {
        (
            tangent(d0, d).clamp(-3.0 * d.abs(), 3.0 * d.abs()),
            tangent(d, d2).clamp(-3.0 * d.abs(), 3.0 * d.abs()),
        )
    };
    let (k2, k3) = (k * k, k * k * k);
    let v = (2.0 * k3 - 3.0 * k2 + 1.0) * p[1]
        + (k3 - 2.0 * k2 + k) * h * m1
        + (-2.0 * k3 + 3.0 * k2) * p[2]
        + (k3 - k2) * h * m2;
    v.clamp(p[1].min(p[2]), p[1].max(p[2]))
}

/// One bound value between its bracketing states `v[1]` (at `t[1]`) and `v[2]` (at `t[2]`),
/// `alpha` of the way, with `v[0]`, `v[3]` the neighbours (for Cubic).
pub fn interpolate_value(
    ty: BoundType,
    f: InterpolationFunction,
    v: [&Value; 4],
    t: [f64; 4],
    alpha: f64,
) -> Value {
    use InterpolationFunction as I;
    let k = alpha.clamp(0.0, 1.0);
    let nearest = if k < 0.5 { v[1] } else { v[2] };
    let f = if ty.is_continuous() {
        f
    } else {
        // Non-numeric and discrete values use NearestNeighbour or TargetValue.
        match f {
            I::TargetValue | I::StartValue => f,
            _ => I::NearestNeighbour,
        }
    };
    match f {
        I::NearestNeighbour => nearest.clone(),
        I::StartValue => v[1].clone(),
        I::TargetValue => v[2].clone(),
        I::Linear | I::Cubic => {
            let cubic = f == I::Cubic;
            let s = |x: [f64; 4]| {
                if cubic {
                    monotone_cubic(x, t, k)
                } else {
                    x[1] + (x[2] - x[1]) * k
                }
            };
            match (v[0], v[1], v[2], v[3]) {
                (Value::Float(p0), Value::Float(a), Value::Float(b), Value::Float(p3)) => {
                    Value::Float(
                        s([f64::from(*p0), f64::from(*a), f64::from(*b), f64::from(*p3)]) as f32,
                    )
                }
                (Value::Double(p0), Value::Double(a), Value::Double(b), Value::Double(p3)) => {
                    Value::Double(s([*p0, *a, *b, *p3]))
                }
                (Value::Vec2(p0), Value::Vec2(a), Value::Vec2(b), Value::Vec2(p3)) => Value::Vec2(
                    DVec2::new(s([p0.x, a.x, b.x, p3.x]), s([p0.y, a.y, b.y, p3.y])),
                ),
                (_, Value::Vec3(a), Value::Vec3(b), _) if ty == BoundType::CompressedRotator => {
                    // Rotators: shortest way round, linearly.
                    Value::Vec3(DVec3::new(
                        lerp_angle(a.x, b.x, k),
                        lerp_angle(a.y, b.y, k),
                        lerp_angle(a.z, b.z, k),
                    ))
                }
                (Value::Vec3(p0), Value::Vec3(a), Value::Vec3(b), Value::Vec3(p3)) => {
                    Value::Vec3(DVec3::new(
                        s([p0.x, a.x, b.x, p3.x]),
                        s([p0.y, a.y, b.y, p3.y]),
                        s([p0.z, a.z, b.z, p3.z]),
                    ))
                }
                _ => nearest.clone(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn fast_path_agrees_with_the_generic_interpolation(
            xs in proptest::collection::vec(-1000.0f64..1000.0, 4),
            alpha in 0.0f64..1.0,
            f in 0usize..5,
        ) {
            let f = InterpolationFunction::ALL[f];
            let states: Vec<PawnValues> = xs.iter().map(|x| PawnValues {
                location: DVec3::new(*x, 2.0 * x, 0.0),
                rotation: DVec3::new(0.0, x.rem_euclid(360.0), 0.0),
                dash_cooldown: (*x as f32) / 1000.0,
                dash_count: (*x as i32).rem_euclid(256) as u8,
                ..Default::default()
            }).collect();
            let t = [0.0, 1.0, 2.0, 3.0];
            for (field, ty) in [
                (Field::Location, BoundType::CompressedVector),
                (Field::Rotation, BoundType::CompressedRotator),
                (Field::DashCooldown, BoundType::CompressedFloat),
                (Field::DashCount, BoundType::Byte),
            ] {
                let mut fast = PawnValues::default();
                interpolate_field(&mut fast, field, ty, f, [&states[0], &states[1], &states[2], &states[3]], t, alpha);
                let v = interpolate_value(
                    ty,
                    f,
                    [&states[0].get(field), &states[1].get(field), &states[2].get(field), &states[3].get(field)],
                    t,
                    alpha,
                );
                prop_assert_eq!(fast.get(field), v, "{:?} {:?}", field, f);
            }
        }

        #[test]
        fn interpolation_stays_between_bracketing_states(
            xs in proptest::collection::vec(-1000.0f64..1000.0, 4),
            alpha in 0.0f64..1.0,
            f in 0usize..5,
        ) {
            let f = InterpolationFunction::ALL[f];
            let vals: Vec<Value> = xs.iter().map(|x| Value::Vec3(DVec3::new(*x, -x, 0.5 * x))).collect();
            let v = interpolate_value(
                BoundType::CompressedVector,
                f,
                [&vals[0], &vals[1], &vals[2], &vals[3]],
                [0.0, 1.0, 2.0, 3.0],
                alpha,
            );
            let Value::Vec3(v) = v else { panic!() };
            let (lo, hi) = (xs[1].min(xs[2]), xs[1].max(xs[2]));
            prop_assert!(v.x >= lo - 1e-9 && v.x <= hi + 1e-9, "{f:?}: {} not in [{lo}, {hi}]", v.x);
        }
    }
}
