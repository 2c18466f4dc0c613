//! Layer `conditions`: network conditions — the seeded link model (latency, jitter, loss,
//! bursts, outages, reordering) and network traces replayed in its place. Pure: fates are
//! computed from seeds and the times passed in.
//!
//! May use: `support`. Used by: `session`, `sim`, `net` and up.

pub mod link;
pub mod trace;
