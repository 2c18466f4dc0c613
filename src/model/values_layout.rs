//! How [`PawnValues`] reads back from a recording. Encoding 2 added GMC's built-in scale,
//! angular velocity and control rotation after `team`; a chunk written before holds the
//! members without them. Postcard cannot tell the two apart from the bytes, so the recording
//! reader says which layout a chunk has ([`read_legacy_layout`]) around decoding it.

use std::cell::Cell;

use glam::{DVec2, DVec3};
use serde::{Deserialize, Deserializer};

use super::pawn::PawnValues;

thread_local! {
    static LEGACY: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with [`PawnValues`] read in the layout before the built-ins (recording encodings
/// 0 and 1) when `legacy` is true; the layout is restored afterwards, also on a panic.
pub fn read_legacy_layout<R>(legacy: bool, f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            LEGACY.with(|l| l.set(self.0));
        }
    }
    let _restore = Restore(LEGACY.with(|l| l.replace(legacy)));
    f()
}

/// The members every layout holds, in order.
#[derive(Deserialize)]
struct Before {
    input_move: DVec2,
    input_dash: bool,
    location: DVec3,
    rotation: DVec3,
    velocity: DVec3,
    dash_cooldown: f32,
    dash_count: u8,
    stride: f32,
    move_ramp: f32,
    team: u8,
}

/// The layout with the built-ins (encoding 2 and later): the members every layout holds, then
/// scale, angular velocity and control rotation. Postcard writes a struct as its fields in
/// order, so a nested struct reads the same bytes as its fields written in line.
#[derive(Deserialize)]
struct WithBuiltIns(Before, DVec3, DVec3, DVec3);

impl From<Before> for PawnValues {
    /// An older recording's values: the built-ins it did not hold at their spawn values.
    fn from(b: Before) -> Self {
        PawnValues {
            input_move: b.input_move,
            input_dash: b.input_dash,
            location: b.location,
            rotation: b.rotation,
            velocity: b.velocity,
            dash_cooldown: b.dash_cooldown,
            dash_count: b.dash_count,
            stride: b.stride,
            move_ramp: b.move_ramp,
            team: b.team,
            ..PawnValues::default()
        }
    }
}

impl From<WithBuiltIns> for PawnValues {
    fn from(WithBuiltIns(before, scale, angular_velocity, control_rotation): WithBuiltIns) -> Self {
        PawnValues {
            scale,
            angular_velocity,
            control_rotation,
            ..PawnValues::from(before)
        }
    }
}

impl<'de> Deserialize<'de> for PawnValues {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if LEGACY.with(Cell::get) {
            Before::deserialize(d).map(PawnValues::from)
        } else {
            WithBuiltIns::deserialize(d).map(PawnValues::from)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PawnValues {
        PawnValues {
            input_move: DVec2::new(0.5, -1.0),
            input_dash: true,
            location: DVec3::new(1.0, 2.0, 3.0),
            velocity: DVec3::new(4.0, 5.0, 0.0),
            team: 2,
            scale: DVec3::new(1.0, 1.5, 1.0),
            angular_velocity: DVec3::new(0.0, 0.0, 90.0),
            control_rotation: DVec3::new(-10.0, 45.0, 0.0),
            ..PawnValues::default()
        }
    }

    #[test]
    fn the_current_layout_reads_back_every_member() {
        let v = sample();
        let bytes = postcard::to_allocvec(&v).expect("encodes");
        let back: PawnValues = postcard::from_bytes(&bytes).expect("decodes");
        assert_eq!(back, v);
    }

    /// The older layout's bytes are the members before the built-ins; read with the legacy
    /// layout they give those members and spawn-value built-ins, and the bytes after them are
    /// left for the next value (what a chunk of many records needs).
    #[test]
    fn an_older_layout_reads_its_members_and_leaves_the_rest() {
        let v = sample();
        let bytes = postcard::to_allocvec(&v).expect("encodes");
        let built_ins = 3 * 3 * 8;
        let older = &bytes[..bytes.len() - built_ins];
        let mut stream = older.to_vec();
        stream.push(0x2A);
        let (back, rest) = read_legacy_layout(true, || {
            postcard::take_from_bytes::<PawnValues>(&stream).expect("decodes")
        });
        assert_eq!(rest, &[0x2A]);
        assert_eq!(back.location, v.location);
        assert_eq!(back.team, 2);
        assert_eq!(back.scale, DVec3::ONE);
        assert_eq!(back.control_rotation, DVec3::ZERO);
        // The layout is restored afterwards.
        assert!(postcard::from_bytes::<PawnValues>(older).is_err());
    }
}
