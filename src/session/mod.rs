//! Layer `session`: what a session is and what it leaves — presets and `--set`, the command
//! vocabulary and effective settings (`control`), one client machine's setup, the summary,
//! the store of time series, recordings and the timeline cursor.
//!
//! May use: `support`, `model`, `conditions`. Used by: `sim`, `net`, `analysis`, `app`, `bench`,
//! `cli`. Runs no session itself (the drivers in `sim` and `net` do).

pub mod claim;
pub mod control;
pub mod figures;
pub mod imported;
pub mod lesson;
pub mod pacing;
pub mod preset;
mod preset_bindings;
pub mod recording;
pub mod setup;
pub mod store;
pub mod summary;
pub mod timeline;
