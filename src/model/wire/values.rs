//! Bound values at their wire size: two-decimal packed components, strings, every
//! [`BoundType`], the fast paths for the demo pawn's members (checked and unchecked reads),
//! masked value lists, and times a peer could send.

use std::sync::Arc;

use glam::{DVec2, DVec3};

use super::bits::{BitReader, BitWriter};
use super::header::{DecodeError, MAX_DATAGRAM, MAX_TIME_S};
use crate::model::binding::{Bindings, BoundType, FieldMask, Value, hundredths, unzigzag, zigzag};
use crate::model::messages::SpawnData;
use crate::model::pawn::{Field, PawnValues};

/// A ping's (and its pong's) body: the sequence number and the client's time.
#[inline]
pub(super) fn write_ping(w: &mut BitWriter, seq: u32, client_time: f64) {
    w.bits(u64::from(seq), 32);
    w.bits(client_time.to_bits(), 64);
}

/// Reads what [`write_ping`] wrote.
#[inline]
pub(super) fn read_ping(r: &mut BitReader) -> Result<(u32, f64), DecodeError> {
    let seq = r.bits(32)? as u32;
    Ok((seq, read_time(r)?))
}

/// Reads a 64-bit time and checks it is one a peer could send.
pub(super) fn read_time(r: &mut BitReader) -> Result<f64, DecodeError> {
    let t = f64::from_bits(r.bits(64)?);
    if t.is_finite() && t.abs() <= MAX_TIME_S {
        Ok(t)
    } else {
        Err(DecodeError::InsaneTime)
    }
}

fn write_packed(w: &mut BitWriter, comps: &[f64]) {
    match *comps {
        [x] => write_packed_n(w, [x]),
        [x, y] => write_packed_n(w, [x, y]),
        [x, y, z, ..] => write_packed_n(w, [x, y, z]),
        [] => write_packed_n(w, []),
    }
}

#[inline]
pub(super) fn write_packed_n<const N: usize>(w: &mut BitWriter, comps: [f64; N]) {
    let mut z = [0u64; N];
    let mut any = 0u64;
    for (zi, c) in z.iter_mut().zip(comps) {
        *zi = zigzag(hundredths(c));
        any |= *zi;
    }
    // The widest component decides the width: the highest bit set in any of them.
    let width = (64 - any.leading_zeros()).max(1);
    if 6 + width as usize * N <= 64 {
        // Common case: header and components in one field.
        let mut packed = u64::from(width);
        for (k, zi) in z.iter().enumerate() {
            packed |= zi << (6 + width as usize * k);
        }
        w.bits(packed, 6 + width * N as u32);
    } else {
        w.bits(u64::from(width), 6);
        for zi in &z {
            w.bits(*zi, width);
        }
    }
}

#[inline(always)]
fn read_packed<const N: usize>(r: &mut BitReader) -> Result<[f64; N], DecodeError> {
    let mut out = [0.0; N];
    // Common case: the width header and every component within the next 64 bits.
    let next = r.peek64();
    let width = (next & 63) as u32;
    if 6 + width as usize * N <= 64 {
        r.skip(6 + width * N as u32)?;
        let mask = (1u64 << width) - 1;
        for (k, c) in out.iter_mut().enumerate() {
            *c = unzigzag((next >> (6 + width as usize * k)) & mask) as f64 / 100.0;
        }
    } else {
        let width = r.bits(6)? as u32;
        for c in &mut out {
            *c = unzigzag(r.bits(width)?) as f64 / 100.0;
        }
    }
    Ok(out)
}

fn write_str(w: &mut BitWriter, s: &str) {
    let bytes = &s.as_bytes()[..s.len().min(255)];
    w.bits(bytes.len() as u64, 8);
    for b in bytes {
        w.bits(u64::from(*b), 8);
    }
}

fn read_str(r: &mut BitReader) -> Result<Arc<str>, DecodeError> {
    let n = r.bits(8)? as usize;
    let mut bytes = Vec::with_capacity(n);
    for _ in 0..n {
        bytes.push(r.bits(8)? as u8);
    }
    String::from_utf8(bytes)
        .map(Arc::from)
        .map_err(|_| DecodeError::BadString)
}

/// Writes one value at its bound type's wire size (`BoundType::wire_bits`).
pub(super) fn write_value(w: &mut BitWriter, ty: BoundType, v: &Value) {
    match ty {
        BoundType::Bool => w.bits(u64::from(matches!(v, Value::Bool(true))), 1),
        BoundType::HalfByte => w.bits(u64::from(as_byte(v) & 0x0F), 4),
        BoundType::Byte => w.bits(u64::from(as_byte(v)), 8),
        BoundType::Int => w.bits(u64::from(as_int(v) as u32), 32),
        BoundType::Float => w.bits(u64::from((as_f64(v) as f32).to_bits()), 32),
        BoundType::TruncatedDouble => w.bits(u64::from((as_f64(v) as f32).to_bits()), 32),
        BoundType::Double => w.bits(as_f64(v).to_bits(), 64),
        BoundType::CompressedFloat | BoundType::CompressedDouble => write_packed(w, &[as_f64(v)]),
        BoundType::CompressedVector2D => {
            let x = match v {
                Value::Vec2(x) => *x,
                _ => DVec2::ZERO,
            };
            write_packed(w, &[x.x, x.y]);
        }
        BoundType::CompressedVector | BoundType::CompressedRotator => {
            let x = match v {
                Value::Vec3(x) => *x,
                _ => DVec3::ZERO,
            };
            write_packed(w, &[x.x, x.y, x.z]);
        }
        BoundType::ActorReference
        | BoundType::ActorComponentReference
        | BoundType::AnimMontageReference => {
            let id = match v {
                Value::ObjectRef(id) => *id,
                _ => 0,
            };
            w.bits(u64::from(id), 32);
        }
        BoundType::Name | BoundType::GameplayTag => match v {
            Value::Name(s) => write_str(w, s),
            _ => write_str(w, ""),
        },
        BoundType::GameplayTagContainer => {
            let tags: &[Arc<str>] = match v {
                Value::Tags(t) => t,
                _ => &[],
            };
            let n = tags.len().min(255);
            w.bits(n as u64, 8);
            for t in &tags[..n] {
                write_str(w, t);
            }
        }
        BoundType::InstancedStruct => {
            let bytes: &[u8] = match v {
                Value::Struct(b) => b,
                _ => &[],
            };
            let n = bytes.len().min(u16::MAX as usize);
            w.bits(n as u64, 16);
            for b in &bytes[..n] {
                w.bits(u64::from(*b), 8);
            }
        }
    }
}

/// Writes actor spawn data (transform as 32-bit floats, then the team).
pub(super) fn write_spawn(w: &mut BitWriter, s: &SpawnData) {
    for v in [s.location, s.rotation] {
        for x in v.to_array() {
            w.bits(u64::from((x as f32).to_bits()), 32);
        }
    }
    w.bits(u64::from(s.team), 8);
}

/// Reads what [`write_spawn`] wrote; a transform that is not finite is refused.
pub(super) fn read_spawn(r: &mut BitReader) -> Result<SpawnData, DecodeError> {
    let mut v = [0.0f64; 6];
    for x in &mut v {
        *x = f64::from(finite_f32(r.bits(32)? as u32)?);
    }
    Ok(SpawnData {
        location: DVec3::new(v[0], v[1], v[2]),
        rotation: DVec3::new(v[3], v[4], v[5]),
        team: r.bits(8)? as u8,
    })
}

fn finite_f32(bits: u32) -> Result<f32, DecodeError> {
    let v = f32::from_bits(bits);
    if v.is_finite() {
        Ok(v)
    } else {
        Err(DecodeError::InsaneValue)
    }
}

pub(super) fn read_value(r: &mut BitReader, ty: BoundType) -> Result<Value, DecodeError> {
    Ok(match ty {
        BoundType::Bool => Value::Bool(r.bits(1)? == 1),
        BoundType::HalfByte => Value::Byte(r.bits(4)? as u8),
        BoundType::Byte => Value::Byte(r.bits(8)? as u8),
        BoundType::Int => Value::Int(r.bits(32)? as u32 as i32),
        BoundType::Float => Value::Float(finite_f32(r.bits(32)? as u32)?),
        BoundType::TruncatedDouble => Value::Double(f64::from(finite_f32(r.bits(32)? as u32)?)),
        BoundType::Double => {
            let v = f64::from_bits(r.bits(64)?);
            if !v.is_finite() {
                return Err(DecodeError::InsaneValue);
            }
            Value::Double(v)
        }
        BoundType::CompressedFloat => Value::Float(read_packed::<1>(r)?[0] as f32),
        BoundType::CompressedDouble => Value::Double(read_packed::<1>(r)?[0]),
        BoundType::CompressedVector2D => {
            let [x, y] = read_packed::<2>(r)?;
            Value::Vec2(DVec2::new(x, y))
        }
        BoundType::CompressedVector | BoundType::CompressedRotator => {
            let [x, y, z] = read_packed::<3>(r)?;
            Value::Vec3(DVec3::new(x, y, z))
        }
        BoundType::ActorReference
        | BoundType::ActorComponentReference
        | BoundType::AnimMontageReference => Value::ObjectRef(r.bits(32)? as u32),
        BoundType::Name | BoundType::GameplayTag => Value::Name(read_str(r)?),
        BoundType::GameplayTagContainer => {
            let n = r.bits(8)? as usize;
            let mut tags = Vec::with_capacity(n);
            for _ in 0..n {
                tags.push(read_str(r)?);
            }
            Value::Tags(tags.into())
        }
        BoundType::InstancedStruct => {
            let n = r.bits(16)? as usize;
            if n > MAX_DATAGRAM {
                return Err(DecodeError::Truncated);
            }
            let mut bytes = Vec::with_capacity(n);
            for _ in 0..n {
                bytes.push(r.bits(8)? as u8);
            }
            Value::Struct(bytes.into())
        }
    })
}

fn as_byte(v: &Value) -> u8 {
    match v {
        Value::Byte(b) => *b,
        _ => 0,
    }
}
fn as_int(v: &Value) -> i32 {
    match v {
        Value::Int(i) => *i,
        _ => 0,
    }
}
fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Float(f) => f64::from(*f),
        Value::Double(d) => *d,
        _ => 0.0,
    }
}

/// Writes `field` of `v` bound as `ty`: the same bits as `write_value(w, ty, &v.get(field))`,
/// without a `Value` for the demo pawn's members.
#[inline]
pub(super) fn write_field(w: &mut BitWriter, ty: BoundType, field: Field, v: &PawnValues) {
    use BoundType as T;
    match (ty, field) {
        (T::CompressedVector | T::CompressedRotator, Field::Location) => {
            write_packed_n(w, v.location.to_array());
        }
        (T::CompressedVector | T::CompressedRotator, Field::Rotation) => {
            write_packed_n(w, v.rotation.to_array());
        }
        (T::CompressedVector | T::CompressedRotator, Field::Velocity) => {
            write_packed_n(w, v.velocity.to_array());
        }
        (
            T::CompressedVector | T::CompressedRotator,
            Field::Scale | Field::AngularVelocity | Field::ControlRotation,
        ) => {
            write_packed_n(w, v.vec3(field).unwrap_or_default().to_array());
        }
        (T::CompressedVector2D, Field::InputMove) => write_packed_n(w, v.input_move.to_array()),
        (T::CompressedFloat | T::CompressedDouble, Field::DashCooldown) => {
            write_packed_n(w, [f64::from(v.dash_cooldown)]);
        }
        (T::CompressedFloat | T::CompressedDouble, Field::Stride) => {
            write_packed_n(w, [f64::from(v.stride)]);
        }
        (T::CompressedFloat | T::CompressedDouble, Field::MoveRamp) => {
            write_packed_n(w, [f64::from(v.move_ramp)]);
        }
        (T::Byte, Field::DashCount) => w.bits(u64::from(v.dash_count), 8),
        (T::Byte, Field::Team) => w.bits(u64::from(v.team), 8),
        (T::Bool, Field::InputDash) => w.bits(u64::from(v.input_dash), 1),
        _ => write_value(w, ty, &v.get(field)),
    }
}

/// Reads `field` bound as `ty` into `into`: the same as `into.set(field, &read_value(r, ty)?)`,
/// without a `Value` for the demo pawn's members.
#[inline(always)]
pub(super) fn read_field(
    r: &mut BitReader,
    ty: BoundType,
    field: Field,
    into: &mut PawnValues,
) -> Result<(), DecodeError> {
    use BoundType as T;
    match (ty, field) {
        (T::CompressedVector | T::CompressedRotator, Field::Location) => {
            into.location = DVec3::from_array(read_packed::<3>(r)?);
        }
        (T::CompressedVector | T::CompressedRotator, Field::Rotation) => {
            into.rotation = DVec3::from_array(read_packed::<3>(r)?);
        }
        (T::CompressedVector | T::CompressedRotator, Field::Velocity) => {
            into.velocity = DVec3::from_array(read_packed::<3>(r)?);
        }
        (
            T::CompressedVector | T::CompressedRotator,
            Field::Scale | Field::AngularVelocity | Field::ControlRotation,
        ) => {
            let x = DVec3::from_array(read_packed::<3>(r)?);
            if let Some(m) = into.vec3_mut(field) {
                *m = x;
            }
        }
        (T::CompressedVector2D, Field::InputMove) => {
            into.input_move = DVec2::from_array(read_packed::<2>(r)?);
        }
        (T::CompressedFloat, Field::DashCooldown) => {
            into.dash_cooldown = read_packed::<1>(r)?[0] as f32;
        }
        (T::CompressedFloat, Field::Stride) => into.stride = read_packed::<1>(r)?[0] as f32,
        (T::CompressedFloat, Field::MoveRamp) => into.move_ramp = read_packed::<1>(r)?[0] as f32,
        (T::Byte, Field::DashCount) => into.dash_count = r.bits(8)? as u8,
        (T::Byte, Field::Team) => into.team = r.bits(8)? as u8,
        (T::Bool, Field::InputDash) => into.input_dash = r.bits(1)? == 1,
        _ => {
            let v = read_value(r, ty)?;
            into.set(field, &v);
        }
    }
    Ok(())
}

/// Packed components read with [`BitReader::take`].
#[inline(always)]
pub(super) fn take_packed<const N: usize>(r: &mut BitReader) -> [f64; N] {
    let mut out = [0.0; N];
    // Common case: the width header and every component within one window.
    let next = r.peek128();
    let width = (next & 63) as u32;
    if 6 + width as usize * N <= 121 {
        r.advance(6 + width * N as u32);
        let mask = (1u64 << width) - 1;
        for (k, c) in out.iter_mut().enumerate() {
            *c = unzigzag((next >> (6 + width as usize * k)) as u64 & mask) as f64 / 100.0;
        }
    } else {
        r.advance(6);
        for c in &mut out {
            *c = unzigzag(r.take(width)) as f64 / 100.0;
        }
    }
    out
}

/// [`read_field`] for the usual (type, member) pairs, with unchecked reads (the caller checks
/// `overrun`); false, reading nothing, for the others.
#[inline(always)]
pub(super) fn take_field(
    r: &mut BitReader,
    ty: BoundType,
    field: Field,
    into: &mut PawnValues,
) -> bool {
    use BoundType as T;
    match (ty, field) {
        (T::CompressedVector | T::CompressedRotator, Field::Location) => {
            into.location = DVec3::from_array(take_packed::<3>(r));
        }
        (T::CompressedVector | T::CompressedRotator, Field::Rotation) => {
            into.rotation = DVec3::from_array(take_packed::<3>(r));
        }
        (T::CompressedVector | T::CompressedRotator, Field::Velocity) => {
            into.velocity = DVec3::from_array(take_packed::<3>(r));
        }
        (
            T::CompressedVector | T::CompressedRotator,
            Field::Scale | Field::AngularVelocity | Field::ControlRotation,
        ) => {
            let x = DVec3::from_array(take_packed::<3>(r));
            if let Some(m) = into.vec3_mut(field) {
                *m = x;
            }
        }
        (T::CompressedVector2D, Field::InputMove) => {
            into.input_move = DVec2::from_array(take_packed::<2>(r));
        }
        (T::CompressedFloat, Field::DashCooldown) => {
            into.dash_cooldown = take_packed::<1>(r)[0] as f32;
        }
        (T::CompressedFloat, Field::Stride) => into.stride = take_packed::<1>(r)[0] as f32,
        (T::CompressedFloat, Field::MoveRamp) => into.move_ramp = take_packed::<1>(r)[0] as f32,
        (T::Byte, Field::DashCount) => into.dash_count = r.take(8) as u8,
        (T::Byte, Field::Team) => into.team = r.take(8) as u8,
        (T::Bool, Field::InputDash) => into.input_dash = r.take(1) == 1,
        _ => return false,
    }
    true
}

pub(super) fn write_values(w: &mut BitWriter, b: &Bindings, v: &PawnValues, mask: FieldMask) {
    for bd in b.list() {
        if mask.contains(bd.field) {
            write_field(w, bd.ty, bd.field, v);
        }
    }
}

pub(super) fn read_values(
    r: &mut BitReader,
    b: &Bindings,
    into: &mut PawnValues,
    mask: FieldMask,
) -> Result<(), DecodeError> {
    for bd in b.list() {
        if mask.contains(bd.field) {
            read_field(r, bd.ty, bd.field, into)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::messages::HEADER_BYTES;

    #[test]
    fn every_bound_type_round_trips_at_its_wire_size() {
        let samples = [
            (BoundType::Bool, Value::Bool(true)),
            (BoundType::HalfByte, Value::Byte(0x0C)),
            (BoundType::Byte, Value::Byte(0xAB)),
            (BoundType::Int, Value::Int(-123_456)),
            (BoundType::Float, Value::Float(1.5e-3)),
            (BoundType::CompressedFloat, Value::Float(-3.25)),
            (BoundType::Double, Value::Double(1.0 / 3.0)),
            (BoundType::CompressedDouble, Value::Double(-1234.56)),
            (BoundType::TruncatedDouble, Value::Double(0.1f32 as f64)),
            (
                BoundType::CompressedVector2D,
                Value::Vec2(DVec2::new(0.71, -0.71)),
            ),
            (
                BoundType::CompressedVector,
                Value::Vec3(DVec3::new(1e6, -2.5, 0.01)),
            ),
            (
                BoundType::CompressedRotator,
                Value::Vec3(DVec3::new(0.0, 359.99, -90.0)),
            ),
            (BoundType::ActorReference, Value::ObjectRef(42)),
            (BoundType::ActorComponentReference, Value::ObjectRef(7)),
            (BoundType::AnimMontageReference, Value::ObjectRef(0)),
            (BoundType::Name, Value::Name("Team.Red".into())),
            (BoundType::GameplayTag, Value::Name("State.Stunned".into())),
            (
                BoundType::GameplayTagContainer,
                Value::Tags(vec![Arc::<str>::from("A.B"), Arc::<str>::from("C")].into()),
            ),
            (
                BoundType::InstancedStruct,
                Value::Struct(vec![1u8, 2, 3, 255].into()),
            ),
        ];
        assert_eq!(samples.len(), BoundType::ALL.len());
        for (ty, v) in samples {
            let mut w = BitWriter::new([0; HEADER_BYTES]);
            write_value(&mut w, ty, &v);
            assert_eq!(
                w.bit - HEADER_BYTES * 8,
                ty.wire_bits(&v) as usize,
                "{ty:?}"
            );
            let bytes = w.finish();
            let mut r = BitReader::new(&bytes, HEADER_BYTES * 8);
            assert_eq!(read_value(&mut r, ty).unwrap(), ty.quantize(&v), "{ty:?}");
        }
    }
}
