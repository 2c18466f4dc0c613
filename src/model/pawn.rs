//! The demo pawn: a top-down character with a move input and a one-shot dash, and its
//! predicted logic (`GenPredictionTick`).
//!
//! The pawn's members live in [`PawnValues`]. Which of them are *bound* is decided by the
//! binding list, not by this struct: a member missing from the list is an unbound member, which
//! resets and replays do not restore (pitfall 1).

use std::sync::Arc;

use glam::{DVec2, DVec3};
use serde::{Deserialize, Serialize};

pub use super::binding::Field;
use super::binding::{Binding, BoundType, FieldMask, Value, packed_bits, round_half_away, round2};
pub use super::demo_bindings::{default_bindings, mismatched_client_bindings};
use super::settings::Faults;

/// Top speed while walking (cm/s).
pub const MAX_SPEED: f64 = 600.0;
/// Acceleration towards the desired velocity (cm/s²).
pub const ACCEL: f64 = 4000.0;
/// Velocity added by a dash (cm/s).
pub const DASH_SPEED: f64 = 1200.0;
/// Seconds before the dash can fire again.
pub const DASH_COOLDOWN: f32 = 1.0;
/// Distance between footsteps (cm).
pub const STRIDE_LENGTH: f32 = 150.0;
/// Seconds of continuous input before the walk reaches full speed.
pub const RAMP_TIME: f32 = 0.5;
/// Relative amplitude and frequency (Hz) of the wind gust that scales walking speed. The gust
/// is a function of the move timestamp (correct) or of the machine's clock (pitfall 2).
pub const GUST_AMPLITUDE: f64 = 0.15;
pub const GUST_FREQUENCY: f64 = 0.4;
/// A dash tags the nearest other pawn within this distance (cm): the hit check that shows why
/// rollback matters.
pub const TAG_RADIUS: f64 = 300.0;
/// Under `tick_reads_proxy_transform`, pawns closer than this (cm) to another slow down.
pub const CROWD_RADIUS: f64 = 500.0;

/// Every member of the demo pawn, bound or not, and the values of an imported layout.
///
/// Serialized (recordings) in field order; the three GMC built-ins after `team` came with
/// recording encoding 2. Reading is `model::values_layout`'s: an older chunk is read with its
/// `read_legacy_layout` on, which reads the members it holds and gives the built-ins their
/// spawn values.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PawnValues {
    pub input_move: DVec2,
    pub input_dash: bool,
    pub location: DVec3,
    /// (pitch, yaw, roll) in degrees.
    pub rotation: DVec3,
    pub velocity: DVec3,
    pub dash_cooldown: f32,
    pub dash_count: u8,
    pub stride: f32,
    pub move_ramp: f32,
    /// 0 = unknown, 1 or 2: spawn-time data proxies need (pitfall 7).
    pub team: u8,
    /// GMC's built-in actor scale (1, 1, 1: the demo pawn never changes it).
    pub scale: DVec3,
    /// GMC's built-in angular velocity (°/s about X, Y, Z): the tick's turn rate.
    pub angular_velocity: DVec3,
    /// GMC's built-in control rotation (pitch, yaw, roll in degrees): where the player looks.
    pub control_rotation: DVec3,
    /// The values of an imported layout ([`Field::Custom`] slots), empty for the demo pawn
    /// (no allocation). Not written to recordings: a recording of an imported layout keeps
    /// the demo members only (docs/lint.md).
    #[serde(skip)]
    pub custom: CustomValues,
}

impl Default for PawnValues {
    fn default() -> Self {
        PawnValues {
            input_move: DVec2::ZERO,
            input_dash: false,
            location: DVec3::ZERO,
            rotation: DVec3::ZERO,
            velocity: DVec3::ZERO,
            dash_cooldown: 0.0,
            dash_count: 0,
            stride: 0.0,
            move_ramp: 0.0,
            team: 0,
            scale: DVec3::ONE,
            angular_velocity: DVec3::ZERO,
            control_rotation: DVec3::ZERO,
            custom: CustomValues::default(),
        }
    }
}

/// The values of an imported layout's own members: shared until written (copy on write), so
/// cloning a [`PawnValues`] — several times per move and per frame — copies a pointer, and for
/// the demo pawn (no custom values) nothing at all.
#[derive(Clone, Debug, Default)]
pub struct CustomValues(Option<Arc<Vec<Value>>>);

impl CustomValues {
    pub fn as_slice(&self) -> &[Value] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    pub fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    pub fn get(&self, i: usize) -> Option<&Value> {
        self.as_slice().get(i)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Value> {
        self.as_slice().iter()
    }

    /// Writes slot `i`, growing the list with zeros; copies the list first if it is shared.
    pub fn set(&mut self, i: usize, v: &Value) {
        let list = Arc::make_mut(self.0.get_or_insert_with(Default::default));
        if list.len() <= i {
            list.resize(i + 1, Value::Int(0));
        }
        list[i] = v.clone();
    }
}

impl PartialEq for CustomValues {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl From<Vec<Value>> for CustomValues {
    fn from(v: Vec<Value>) -> Self {
        CustomValues((!v.is_empty()).then(|| Arc::new(v)))
    }
}

impl PawnValues {
    pub fn spawn_at(location: DVec3, yaw: f64) -> Self {
        PawnValues {
            location,
            rotation: DVec3::new(0.0, yaw, 0.0),
            ..Default::default()
        }
    }

    /// Loads a frame's stick and dash where input is gathered, with the control rotation the
    /// player looks along: the stick's direction while it is held, the last one otherwise
    /// (the demo pawn's camera follows the stick).
    pub fn gather_input(&mut self, dir: DVec2, dash: bool) {
        // A stick held as it was keeps the control rotation it gave (no angle to work out).
        if dir != DVec2::ZERO && (dir != self.input_move || self.control_rotation == DVec3::ZERO) {
            self.control_rotation = DVec3::new(0.0, dir.y.atan2(dir.x).to_degrees(), 0.0);
        }
        self.input_move = dir;
        self.input_dash = dash;
    }

    /// A three-component member (location, rotation, scale, the velocities, control
    /// rotation), for the fast paths that read it without a [`Value`].
    #[inline(always)]
    pub fn vec3(&self, f: Field) -> Option<DVec3> {
        match f {
            Field::Location => Some(self.location),
            Field::Rotation => Some(self.rotation),
            Field::Velocity => Some(self.velocity),
            Field::Scale => Some(self.scale),
            Field::AngularVelocity => Some(self.angular_velocity),
            Field::ControlRotation => Some(self.control_rotation),
            _ => None,
        }
    }

    /// [`PawnValues::vec3`], to write.
    #[inline(always)]
    pub fn vec3_mut(&mut self, f: Field) -> Option<&mut DVec3> {
        match f {
            Field::Location => Some(&mut self.location),
            Field::Rotation => Some(&mut self.rotation),
            Field::Velocity => Some(&mut self.velocity),
            Field::Scale => Some(&mut self.scale),
            Field::AngularVelocity => Some(&mut self.angular_velocity),
            Field::ControlRotation => Some(&mut self.control_rotation),
            _ => None,
        }
    }

    pub fn get(&self, f: Field) -> Value {
        match f {
            Field::InputMove => Value::Vec2(self.input_move),
            Field::InputDash => Value::Bool(self.input_dash),
            Field::Location => Value::Vec3(self.location),
            Field::Rotation => Value::Vec3(self.rotation),
            Field::Velocity => Value::Vec3(self.velocity),
            Field::Scale => Value::Vec3(self.scale),
            Field::AngularVelocity => Value::Vec3(self.angular_velocity),
            Field::ControlRotation => Value::Vec3(self.control_rotation),
            Field::DashCooldown => Value::Float(self.dash_cooldown),
            Field::DashCount => Value::Byte(self.dash_count),
            Field::Stride => Value::Float(self.stride),
            Field::MoveRamp => Value::Float(self.move_ramp),
            Field::Team => Value::Byte(self.team),
            Field::Custom(i) => self
                .custom
                .get(usize::from(i))
                .cloned()
                .unwrap_or(Value::Int(0)),
        }
    }

    /// Writes a value; a value of the wrong shape is ignored (it cannot come from this
    /// program's own binding lists, which are type-checked).
    pub fn set(&mut self, f: Field, v: &Value) {
        match (f, v) {
            (Field::InputMove, Value::Vec2(x)) => self.input_move = *x,
            (Field::InputDash, Value::Bool(x)) => self.input_dash = *x,
            (Field::Location, Value::Vec3(x)) => self.location = *x,
            (Field::Rotation, Value::Vec3(x)) => self.rotation = *x,
            (Field::Velocity, Value::Vec3(x)) => self.velocity = *x,
            (Field::Scale, Value::Vec3(x)) => self.scale = *x,
            (Field::AngularVelocity, Value::Vec3(x)) => self.angular_velocity = *x,
            (Field::ControlRotation, Value::Vec3(x)) => self.control_rotation = *x,
            (Field::DashCooldown, Value::Float(x)) => self.dash_cooldown = *x,
            (Field::DashCount, Value::Byte(x)) => self.dash_count = *x,
            (Field::Stride, Value::Float(x)) => self.stride = *x,
            (Field::MoveRamp, Value::Float(x)) => self.move_ramp = *x,
            (Field::Team, Value::Byte(x)) => self.team = *x,
            (Field::Custom(i), v) => self.custom.set(usize::from(i), v),
            _ => {}
        }
    }

    /// Copies the members in `mask` from `src`: what GMC does when it loads a saved state into
    /// the pawn. Members outside the mask keep their current value.
    pub fn copy_fields(&mut self, src: &PawnValues, mask: FieldMask) {
        for f in Field::ALL {
            if mask.contains(f) {
                match f {
                    Field::InputMove => self.input_move = src.input_move,
                    Field::InputDash => self.input_dash = src.input_dash,
                    Field::Location => self.location = src.location,
                    Field::Rotation => self.rotation = src.rotation,
                    Field::Velocity => self.velocity = src.velocity,
                    Field::Scale => self.scale = src.scale,
                    Field::AngularVelocity => self.angular_velocity = src.angular_velocity,
                    Field::ControlRotation => self.control_rotation = src.control_rotation,
                    Field::DashCooldown => self.dash_cooldown = src.dash_cooldown,
                    Field::DashCount => self.dash_count = src.dash_count,
                    Field::Stride => self.stride = src.stride,
                    Field::MoveRamp => self.move_ramp = src.move_ramp,
                    Field::Team => self.team = src.team,
                    Field::Custom(_) => {}
                }
            }
        }
        if mask.0 >> Field::ALL.len() != 0 {
            for (i, v) in src.custom.iter().enumerate() {
                let f = Field::Custom(i as u8);
                if mask.contains(f) {
                    self.set(f, v);
                }
            }
        }
    }

    /// Whether any member in `mask` differs from `other`'s (as `get(f) != other.get(f)`).
    pub fn differs_in(&self, other: &PawnValues, mask: FieldMask) -> bool {
        Field::ALL.iter().any(|&f| {
            mask.contains(f)
                && match f {
                    Field::InputMove => self.input_move != other.input_move,
                    Field::InputDash => self.input_dash != other.input_dash,
                    Field::Location => self.location != other.location,
                    Field::Rotation => self.rotation != other.rotation,
                    Field::Velocity => self.velocity != other.velocity,
                    Field::Scale => self.scale != other.scale,
                    Field::AngularVelocity => self.angular_velocity != other.angular_velocity,
                    Field::ControlRotation => self.control_rotation != other.control_rotation,
                    Field::DashCooldown => self.dash_cooldown != other.dash_cooldown,
                    Field::DashCount => self.dash_count != other.dash_count,
                    Field::Stride => self.stride != other.stride,
                    Field::MoveRamp => self.move_ramp != other.move_ramp,
                    Field::Team => self.team != other.team,
                    Field::Custom(_) => false,
                }
        }) || (mask.0 >> Field::ALL.len() != 0
            && (0..self.custom.len().max(other.custom.len())).any(|i| {
                let f = Field::Custom(i as u8);
                mask.contains(f) && self.get(f) != other.get(f)
            }))
    }

    /// Quantizes the members in the binding list to their wire precision.
    pub fn quantized(&self, bindings: &[Binding], mask: FieldMask) -> PawnValues {
        let mut out = self.clone();
        out.quantize(bindings, mask);
        out
    }

    /// [`PawnValues::quantized`] in place (no copy when the caller owns the values).
    pub fn quantize(&mut self, bindings: &[Binding], mask: FieldMask) {
        for b in bindings {
            if mask.contains(b.field) {
                self.quantize_member(b.field, b.ty);
            }
        }
    }

    /// `self.set(f, &ty.quantize(&self.get(f)))`, without a `Value` for the usual types. Out of
    /// line: inlined, the compiler quantizes every member up front, bound or not.
    #[inline(never)]
    fn quantize_member(&mut self, f: Field, ty: BoundType) {
        use BoundType as T;
        let v3 = |v: &mut DVec3| *v = DVec3::new(round2(v.x), round2(v.y), round2(v.z));
        let f32q = |x: &mut f32| *x = (round_half_away(f64::from(*x) * 100.0) / 100.0) as f32;
        match (ty, f) {
            (T::CompressedVector | T::CompressedRotator, Field::Location) => v3(&mut self.location),
            (T::CompressedVector | T::CompressedRotator, Field::Rotation) => v3(&mut self.rotation),
            (T::CompressedVector | T::CompressedRotator, Field::Velocity) => v3(&mut self.velocity),
            (T::CompressedVector | T::CompressedRotator, Field::Scale) => v3(&mut self.scale),
            (T::CompressedVector | T::CompressedRotator, Field::AngularVelocity) => {
                v3(&mut self.angular_velocity)
            }
            (T::CompressedVector | T::CompressedRotator, Field::ControlRotation) => {
                v3(&mut self.control_rotation)
            }
            (T::CompressedVector2D, Field::InputMove) => {
                self.input_move = DVec2::new(round2(self.input_move.x), round2(self.input_move.y));
            }
            (T::CompressedFloat, Field::DashCooldown) => f32q(&mut self.dash_cooldown),
            (T::CompressedFloat, Field::Stride) => f32q(&mut self.stride),
            (T::CompressedFloat, Field::MoveRamp) => f32q(&mut self.move_ramp),
            (T::HalfByte, Field::DashCount) => self.dash_count &= 0x0F,
            (T::HalfByte, Field::Team) => self.team &= 0x0F,
            (T::Byte, Field::DashCount | Field::Team) | (T::Bool, Field::InputDash) => {}
            _ => {
                let q = ty.quantize(&self.get(f));
                self.set(f, &q);
            }
        }
    }

    /// `ty.wire_bits(&self.get(f))`, without a `Value` for the usual types (out of line, as
    /// [`PawnValues::quantize_member`]).
    #[inline(never)]
    pub fn member_wire_bits(&self, f: Field, ty: BoundType) -> u32 {
        use BoundType as T;
        match (ty, f) {
            (T::CompressedVector | T::CompressedRotator, Field::Location) => {
                packed_bits(&self.location.to_array())
            }
            (T::CompressedVector | T::CompressedRotator, Field::Rotation) => {
                packed_bits(&self.rotation.to_array())
            }
            (T::CompressedVector | T::CompressedRotator, Field::Velocity) => {
                packed_bits(&self.velocity.to_array())
            }
            (T::CompressedVector | T::CompressedRotator, Field::Scale) => {
                packed_bits(&self.scale.to_array())
            }
            (T::CompressedVector | T::CompressedRotator, Field::AngularVelocity) => {
                packed_bits(&self.angular_velocity.to_array())
            }
            (T::CompressedVector | T::CompressedRotator, Field::ControlRotation) => {
                packed_bits(&self.control_rotation.to_array())
            }
            (T::CompressedVector2D, Field::InputMove) => packed_bits(&self.input_move.to_array()),
            (T::CompressedFloat, Field::DashCooldown) => {
                packed_bits(&[f64::from(self.dash_cooldown)])
            }
            (T::CompressedFloat, Field::Stride) => packed_bits(&[f64::from(self.stride)]),
            (T::CompressedFloat, Field::MoveRamp) => packed_bits(&[f64::from(self.move_ramp)]),
            (T::Byte, Field::DashCount | Field::Team) => 8,
            (T::Bool, Field::InputDash) => 1,
            _ => ty.wire_bits(&self.get(f)),
        }
    }
}

/// Which kind of execution of the prediction tick is running (GMC's net-context queries).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Execution {
    /// Owning client, a newly enqueued move (`IsLocalMove`).
    Live,
    /// Owning client, re-run of the pending move with a merged frame (`IsCombinedMove`).
    Combined,
    /// Owning client, replay after a correction (`CL_IsReplaying`).
    Replay,
    /// Server, a move received from the owning client (`SV_IsExecutingRemoteMoves`).
    Remote,
    /// Server, a pawn it controls itself: AI, listen host, standalone.
    ServerLocal,
    /// A display or rollback execution (`IsSimulatedMove`).
    Simulated,
}

impl Execution {
    /// GMC's "live move" check: `!CL_IsReplaying() && !IsSimulatedMove()`.
    pub fn is_live(self) -> bool {
        !matches!(self, Execution::Replay | Execution::Simulated)
    }

    /// The role queries true during this execution, in the document's words (labels for the
    /// journey and the doctor).
    pub fn queries(self) -> &'static str {
        match self {
            Execution::Live => "IsLocalMove",
            Execution::Combined => "IsLocalMove, IsCombinedMove",
            Execution::Replay => "CL_IsReplaying",
            Execution::Remote => "SV_IsExecutingRemoteMoves",
            Execution::ServerLocal => "IsLocallyControlledServerPawn, IsLocalMove",
            Execution::Simulated => "IsSimulatedMove",
        }
    }

    /// GenAncillaryTick's arguments `(bLocalMove, bCombinedClientMove)` after this execution;
    /// `None` where it is not called (replays, simulated executions).
    pub fn ancillary_args(self) -> Option<(bool, bool)> {
        match self {
            Execution::Live | Execution::ServerLocal => Some((true, false)),
            Execution::Combined => Some((true, true)),
            Execution::Remote => Some((false, false)),
            Execution::Replay | Execution::Simulated => None,
        }
    }
}

/// What the tick knows besides the pawn's members.
#[derive(Clone, Copy, Debug)]
pub struct TickCtx<'a> {
    pub exec: Execution,
    /// `GetMoveTimestamp()`.
    pub move_timestamp: f64,
    /// `GetTime()`: this machine's (synchronized) world clock now.
    pub world_time: f64,
    /// `GetIterationNumber()` (0-based) and the number of iterations of this move.
    pub iteration: u16,
    pub iterations: u16,
    /// Other pawns' locations as this machine has them (displayed proxies on a client,
    /// authoritative on the server). Only the `tick_reads_proxy_transform` pitfall reads them.
    pub others: &'a [DVec3],
    /// This iteration's share of the executing machine's frame delta. Only the
    /// `frame_delta_in_tick` pitfall reads it.
    pub frame_delta: f64,
    /// A number in [0, 1) from the executing machine's own generator (no bound seed). Only
    /// the `unseeded_random_in_tick` pitfall reads it.
    pub random: f64,
    /// The pawn runs an imported layout: it walks, and the demo pawn's own members (ramp,
    /// dash, stride) are not its code. The imported outputs are written after the tick
    /// (`model::imported`).
    pub imported: bool,
}

/// One-shot events the demo pawn raises inside a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OneShotKind {
    /// The dash fired (driven by the dash input).
    DashFired,
    /// The dash cooldown reached zero (driven by bound state).
    DashReady,
    /// A footstep (driven by the bound stride accumulator).
    Footstep,
}

/// The pawn a dash at `from` tags: the nearest of `others` within [`TAG_RADIUS`].
pub fn tag_target(from: DVec3, others: impl Iterator<Item = (u16, DVec3)>) -> Option<u16> {
    others
        .map(|(id, at)| (id, at.truncate().distance(from.truncate())))
        .filter(|(_, d)| *d <= TAG_RADIUS)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(id, _)| id)
}

impl OneShotKind {
    pub fn name(self) -> &'static str {
        match self {
            OneShotKind::DashFired => "DashFired",
            OneShotKind::DashReady => "DashReady",
            OneShotKind::Footstep => "Footstep",
        }
    }
}

/// A one-shot raised by the tick, and whether its cosmetic side effect (FX, sound) played.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OneShot {
    pub kind: OneShotKind,
    pub side_effect_played: bool,
}

/// What a tick produced besides the new member values.
#[derive(Clone, Debug, Default)]
pub struct TickOutput {
    pub one_shots: Vec<OneShot>,
    /// `CL_DoNotCombineNextMove()` was called.
    pub seal: bool,
}

impl TickOutput {
    pub fn clear(&mut self) {
        self.one_shots.clear();
        self.seal = false;
    }
}

/// The demo pawn's `GenPredictionTick`. A pure function of the members, the delta and the
/// context, unless a pitfall switch makes it read something else.
pub fn gen_prediction_tick(
    v: &mut PawnValues,
    dt: f64,
    ctx: &TickCtx,
    faults: &Faults,
    out: &mut TickOutput,
) {
    let live = ctx.exec.is_live();
    // Right: the move's delta. Wrong (pitfall 2): the frame's.
    let dt = if faults.frame_delta_in_tick {
        ctx.frame_delta
    } else {
        dt
    };
    let raise = |kind: OneShotKind, out: &mut TickOutput| {
        out.one_shots.push(OneShot {
            kind,
            // The correct code guards cosmetics with the live-move check (pitfall 5).
            side_effect_played: live || faults.unguarded_side_effects,
        });
        if !faults.no_seal_after_one_shot {
            // CL_DoNotCombineNextMove(): seal the move that fired (pitfall 3 without it).
            out.seal = true;
        }
    };

    let dir = v.input_move.normalize_or_zero();
    let moving = dir != DVec2::ZERO;
    let demo = !ctx.imported;
    // The ramp is written every tick; bound, replays restore it (pitfall 1 when it is not).
    if demo {
        v.move_ramp = if moving {
            (v.move_ramp + dt as f32).min(RAMP_TIME)
        } else {
            0.0
        };
    }
    // Right: the move's timestamp. Wrong (pitfall 2): the machine's clock now.
    let t = if faults.wall_clock_in_tick {
        ctx.world_time
    } else {
        ctx.move_timestamp
    };
    let gust = 1.0 + GUST_AMPLITUDE * (std::f64::consts::TAU * GUST_FREQUENCY * t).sin();
    let ramp = if demo {
        0.6 + 0.4 * f64::from(v.move_ramp / RAMP_TIME)
    } else {
        1.0
    };
    // Pitfall: slow down near other pawns, as this machine displays them.
    let crowd = if faults.tick_reads_proxy_transform {
        let nearest = ctx
            .others
            .iter()
            .map(|o| o.truncate().distance(v.location.truncate()))
            .fold(f64::INFINITY, f64::min);
        if nearest < CROWD_RADIUS {
            0.4 + 0.6 * nearest / CROWD_RADIUS
        } else {
            1.0
        }
    } else {
        1.0
    };
    // Pitfall: a random number without a bound seed (each machine draws its own).
    let luck = if faults.unseeded_random_in_tick {
        0.85 + 0.3 * ctx.random
    } else {
        1.0
    };
    let desired = dir * MAX_SPEED * ramp * gust * crowd * luck;

    if demo && v.input_dash && v.dash_cooldown <= 0.0 {
        let vel = v.velocity.truncate();
        let facing = if moving {
            dir
        } else if vel.length_squared() > 1.0 {
            vel.normalize()
        } else {
            let yaw = v.rotation.y.to_radians();
            DVec2::new(yaw.cos(), yaw.sin())
        };
        v.velocity += (facing * DASH_SPEED).extend(0.0);
        v.dash_cooldown = DASH_COOLDOWN;
        v.dash_count = v.dash_count.wrapping_add(1);
        raise(OneShotKind::DashFired, out);
    }

    let mut vel = v.velocity.truncate();
    let dv = (desired - vel).clamp_length_max(ACCEL * dt);
    vel += dv;
    v.velocity = vel.extend(0.0);
    v.location += v.velocity * dt;
    let speed = vel.length();
    let yaw_before = v.rotation.y;
    if speed > 1.0 {
        v.rotation.y = vel.y.atan2(vel.x).to_degrees();
    }
    v.angular_velocity = DVec3::new(0.0, 0.0, turn_rate(yaw_before, v.rotation.y, dt));

    if v.dash_cooldown > 0.0 {
        v.dash_cooldown = (v.dash_cooldown - dt as f32).max(0.0);
        if v.dash_cooldown == 0.0 {
            raise(OneShotKind::DashReady, out);
        }
    }

    if !demo {
        return;
    }
    v.stride += (speed * dt) as f32;
    if v.stride >= STRIDE_LENGTH {
        v.stride -= STRIDE_LENGTH;
        raise(OneShotKind::Footstep, out);
    }
}

/// Degrees per second from `from` to `to` (yaw, the short way round) over `dt`.
fn turn_rate(from: f64, to: f64, dt: f64) -> f64 {
    if dt <= 0.0 {
        return 0.0;
    }
    let d = (to - from + 180.0).rem_euclid(360.0) - 180.0;
    d / dt
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::binding::CombineMode;

    proptest::proptest! {
        #[test]
        fn member_fast_paths_agree_with_values(
            xs in proptest::collection::vec(-1.0e6f64..1.0e6, 12),
            bytes in proptest::collection::vec(0u8..=255, 2),
            dash: bool,
        ) {
            let v = PawnValues {
                input_move: DVec2::new(xs[0] / 1e6, xs[1] / 1e6),
                input_dash: dash,
                location: DVec3::new(xs[2], xs[3], xs[4]),
                rotation: DVec3::new(xs[5] / 1e3, xs[6] / 1e3, xs[7] / 1e3),
                velocity: DVec3::new(xs[8] / 1e2, xs[9] / 1e2, xs[10] / 1e2),
                dash_cooldown: (xs[11] / 1e6) as f32,
                dash_count: bytes[0],
                stride: (xs[0] / 1e3) as f32,
                move_ramp: (xs[1] / 1e6) as f32,
                team: bytes[1],
                scale: DVec3::new(xs[3] / 1e5, 1.0, xs[4] / 1e5),
                angular_velocity: DVec3::new(0.0, xs[5] / 1e2, xs[6] / 1e3),
                control_rotation: DVec3::new(xs[7] / 1e4, xs[8] / 1e4, 0.0),
                custom: CustomValues::default(),
            };
            for f in Field::ALL {
                for ty in BoundType::ALL {
                    if !f.accepts(ty) {
                        continue;
                    }
                    let mut fast = v.clone();
                    fast.quantize_member(f, ty);
                    let mut slow = v.clone();
                    slow.set(f, &ty.quantize(&v.get(f)));
                    proptest::prop_assert_eq!(fast, slow, "{:?} {:?}", f, ty);
                    proptest::prop_assert_eq!(
                        v.member_wire_bits(f, ty),
                        ty.wire_bits(&v.get(f)),
                        "{:?} {:?}", f, ty
                    );
                }
            }
        }
    }
    use crate::model::binding::Bindings;

    fn ctx(exec: Execution) -> TickCtx<'static> {
        TickCtx {
            exec,
            move_timestamp: 1.0,
            world_time: 1.0,
            iteration: 0,
            iterations: 1,
            others: &[],
            frame_delta: 0.01,
            random: 0.5,
            imported: false,
        }
    }

    #[test]
    fn default_bindings_are_valid_and_every_field_round_trips() {
        let list = default_bindings(&Faults::default());
        let b = Bindings::new(list).expect("valid");
        for f in Field::ALL {
            assert!(b.bound.contains(f), "{f:?} bound by default");
            let mut v = PawnValues::default();
            let val = PawnValues {
                input_move: DVec2::new(1.0, 0.0),
                input_dash: true,
                location: DVec3::new(1.0, 2.0, 3.0),
                rotation: DVec3::new(0.0, 90.0, 0.0),
                velocity: DVec3::new(4.0, 5.0, 0.0),
                dash_cooldown: 0.5,
                dash_count: 7,
                stride: 12.0,
                move_ramp: 0.25,
                team: 2,
                scale: DVec3::new(1.0, 2.0, 1.0),
                angular_velocity: DVec3::new(0.0, 0.0, 90.0),
                control_rotation: DVec3::new(-10.0, 45.0, 0.0),
                custom: CustomValues::default(),
            };
            v.set(f, &val.get(f));
            assert_eq!(v.get(f), val.get(f));
        }
        let faulty = default_bindings(&Faults {
            unbound_member: true,
            dash_always_combine: true,
            ..Faults::default()
        });
        let fb = Bindings::new(faulty).expect("valid");
        assert!(!fb.bound.contains(Field::MoveRamp));
        assert_eq!(
            fb.by_name("input_dash").map(|b| b.combine),
            Some(CombineMode::AlwaysCombine)
        );
    }

    #[test]
    fn dash_fires_once_seals_and_guards_its_side_effect() {
        let mut v = PawnValues {
            input_move: DVec2::new(1.0, 0.0),
            input_dash: true,
            ..Default::default()
        };
        let mut out = TickOutput::default();
        gen_prediction_tick(
            &mut v,
            0.01,
            &ctx(Execution::Replay),
            &Faults::default(),
            &mut out,
        );
        assert_eq!(out.one_shots.len(), 1);
        assert_eq!(out.one_shots[0].kind, OneShotKind::DashFired);
        assert!(!out.one_shots[0].side_effect_played, "guarded in replay");
        assert!(out.seal);
        assert_eq!(v.dash_count, 1);
        assert!(v.velocity.x > 1000.0);
        // Cooldown blocks a second dash.
        out.clear();
        gen_prediction_tick(
            &mut v,
            0.01,
            &ctx(Execution::Live),
            &Faults::default(),
            &mut out,
        );
        assert!(
            out.one_shots
                .iter()
                .all(|o| o.kind != OneShotKind::DashFired)
        );
        // Unguarded: plays in replay too.
        let mut w = PawnValues {
            input_dash: true,
            ..Default::default()
        };
        out.clear();
        let faults = Faults {
            unguarded_side_effects: true,
            no_seal_after_one_shot: true,
            ..Faults::default()
        };
        gen_prediction_tick(&mut w, 0.01, &ctx(Execution::Replay), &faults, &mut out);
        assert!(out.one_shots[0].side_effect_played);
        assert!(!out.seal);
    }

    #[test]
    fn tick_is_deterministic_and_reads_the_clock_only_under_the_fault() {
        let start = PawnValues {
            input_move: DVec2::new(0.71, 0.71),
            ..Default::default()
        };
        let run = |world_time: f64, faults: &Faults| {
            let mut v = start.clone();
            let mut out = TickOutput::default();
            let c = TickCtx {
                world_time,
                ..ctx(Execution::Live)
            };
            for _ in 0..30 {
                gen_prediction_tick(&mut v, 1.0 / 60.0, &c, faults, &mut out);
            }
            v
        };
        let clean = Faults::default();
        assert_eq!(run(1.0, &clean), run(7.3, &clean));
        let clock = Faults {
            wall_clock_in_tick: true,
            ..Faults::default()
        };
        assert_ne!(run(1.0, &clock), run(1.6, &clock));
    }
}
