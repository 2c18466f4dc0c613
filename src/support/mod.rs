//! Layer `support`: small leaves every other layer may use — seeded random streams
//! (`rng`), the table of accepted setting ranges (`ranges`), the presets built into the binary
//! (`shipped`), safe output writing (`output`), readable time stamps for names (`stamp`), untrusted text
//! as it may be shown (`text`), the keyed hash joins are proven with (`siphash`) and the scanner of delimited tokens in lesson texts (`delimited`).
//!
//! May use: nothing else in the crate. Used by: every layer.

pub mod delimited;
pub mod output;
pub mod ranges;
pub mod rng;
pub mod shipped;
pub mod siphash;
pub mod stamp;
pub mod text;
