//! The wire's time units (10 µs): move timestamps and deltas are whole units on both machines.
//! The lowest file of the model's time handling: messages, the codec and the move cycle use it.

/// Move timestamps and deltas travel in units of 10 µs; both machines round to the same
/// units so they execute identical numbers.
pub const TIME_UNITS_PER_SECOND: f64 = 100_000.0;

/// Seconds to whole time units.
pub fn to_units(t: f64) -> i64 {
    let u = super::binding::round_half_away(t * TIME_UNITS_PER_SECOND);
    if u.is_finite() {
        u.clamp(-(1i64 << 46) as f64, (1i64 << 46) as f64) as i64
    } else {
        0
    }
}

/// Whole time units to seconds.
pub fn from_units(u: i64) -> f64 {
    u as f64 / TIME_UNITS_PER_SECOND
}

/// Rounds seconds to the wire's time units.
pub fn quantize_time(t: f64) -> f64 {
    from_units(to_units(t))
}
