//! State-update entries (pawn, forced flag, simulated members): writing one, reading a
//! datagram's entries into an [`EntryTarget`], and the unrolled path for the demo pawn's
//! usual simulated bindings.

use glam::DVec3;

use super::bits::{BitReader, BitWriter};
use super::header::DecodeError;
use super::values::{read_field, take_field, take_packed, write_field, write_packed_n};
use crate::model::binding::{Bindings, BoundType, InterpolationFunction};
use crate::model::messages::ProxyEntry;
use crate::model::pawn::{Field, PawnValues};

pub(super) fn write_entry(w: &mut BitWriter, b: &Bindings, e: &ProxyEntry) {
    // Pawn (16 bits), then the forced flag.
    w.bits(u64::from(e.pawn) | u64::from(e.forced) << 16, 17);
    if usual_simulated(b.simulated_list()) {
        write_usual_simulated(w, &e.values);
    } else {
        write_members(w, b, &e.values);
    }
}

/// The simulated members of `v`, one [`write_field`] each.
pub(super) fn write_members(w: &mut BitWriter, b: &Bindings, v: &PawnValues) {
    for &(field, ty, _) in b.simulated_list() {
        write_field(w, ty, field, v);
    }
}

/// What [`write_field`] writes for each member of [`usual_simulated`] bindings in turn,
/// without a call and a dispatch per member.
#[inline(always)]
pub(super) fn write_usual_simulated(w: &mut BitWriter, v: &PawnValues) {
    write_packed_n(w, v.location.to_array());
    write_packed_n(w, v.rotation.to_array());
    write_packed_n(w, v.scale.to_array());
    write_packed_n(w, v.velocity.to_array());
    write_packed_n(w, v.angular_velocity.to_array());
    write_packed_n(w, v.control_rotation.to_array());
    write_packed_n(w, [f64::from(v.dash_cooldown)]);
    // Dash count, then team: 8 bits each.
    w.bits(u64::from(v.dash_count) | u64::from(v.team) << 8, 16);
}

/// Where state-update entries are decoded to (see [`decode_state_update_into`]).
///
/// [`decode_state_update_into`]: super::decode_state_update_into
pub trait EntryTarget {
    /// The values entry `pawn` of the update stamped `server_time` is decoded into: the
    /// entry's simulated members are written there, the others keep what the target holds.
    /// `None` stops decoding (the caller then decodes the datagram with [`decode_reusing`]).
    ///
    /// [`decode_reusing`]: super::decode_reusing
    fn entry(&mut self, server_time: f64, pawn: u16, forced: bool) -> Option<&mut PawnValues>;
}

/// A list takes every entry, each starting from default values.
impl EntryTarget for Vec<ProxyEntry> {
    #[inline]
    fn entry(&mut self, _server_time: f64, pawn: u16, forced: bool) -> Option<&mut PawnValues> {
        self.push(ProxyEntry {
            pawn,
            forced,
            values: PawnValues::default(),
        });
        self.last_mut().map(|e| &mut e.values)
    }
}

/// The demo pawn's usual simulated bindings: location, rotation, scale, velocity, angular
/// velocity, control rotation, dash cooldown, dash count and team, in that order, at their natural types (any type [`take_field`]
/// reads the same way).
pub(super) fn usual_simulated(list: &[(Field, BoundType, InterpolationFunction)]) -> bool {
    use BoundType as T;
    let vector = |ty| matches!(ty, T::CompressedVector | T::CompressedRotator);
    matches!(
        list,
        [
            (Field::Location, l, _),
            (Field::Rotation, r, _),
            (Field::Scale, s, _),
            (Field::Velocity, v, _),
            (Field::AngularVelocity, a, _),
            (Field::ControlRotation, c, _),
            (Field::DashCooldown, T::CompressedFloat, _),
            (Field::DashCount, T::Byte, _),
            (Field::Team, T::Byte, _),
        ] if [l, r, s, v, a, c].into_iter().all(|t| vector(*t))
    )
}

/// The members of [`usual_simulated`] bindings read with [`BitReader::take`]: what
/// [`take_field`] reads for each of them in turn.
#[inline(always)]
pub(super) fn take_usual_simulated(r: &mut BitReader, into: &mut PawnValues) {
    into.location = DVec3::from_array(take_packed::<3>(r));
    into.rotation = DVec3::from_array(take_packed::<3>(r));
    into.scale = DVec3::from_array(take_packed::<3>(r));
    into.velocity = DVec3::from_array(take_packed::<3>(r));
    into.angular_velocity = DVec3::from_array(take_packed::<3>(r));
    into.control_rotation = DVec3::from_array(take_packed::<3>(r));
    into.dash_cooldown = take_packed::<1>(r)[0] as f32;
    // Dash count, then team: 8 bits each.
    let bytes = r.take(16);
    into.dash_count = bytes as u8;
    into.team = (bytes >> 8) as u8;
}

/// Reads `n` state-update entries into `into`; false if it stopped taking them.
#[inline(always)]
pub(super) fn read_entries(
    r: &mut BitReader,
    b: &Bindings,
    server_time: f64,
    n: usize,
    into: &mut impl EntryTarget,
) -> Result<bool, DecodeError> {
    let usual = usual_simulated(b.simulated_list());
    for _ in 0..n {
        // Pawn (16 bits), then the forced flag.
        let head = r.take(17);
        let (pawn, forced) = (head as u16, head >> 16 == 1);
        let Some(values) = into.entry(server_time, pawn, forced) else {
            return Ok(false);
        };
        if usual {
            take_usual_simulated(r, values);
        } else {
            for &(field, ty, _) in b.simulated_list() {
                if !take_field(r, ty, field, values) {
                    if r.overrun() {
                        return Err(DecodeError::Truncated);
                    }
                    read_field(r, ty, field, values)?;
                }
            }
        }
        // Everything read unchecked so far: the first overrun is the error.
        if r.overrun() {
            return Err(DecodeError::Truncated);
        }
    }
    Ok(true)
}
