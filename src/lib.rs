//! movescope: a live, visual simulation of GMC's client-predicted movement cycle.
//!
//! The crate is layered; each layer is a folder whose module doc says what it owns and what it
//! may use, and dependencies only point down (docs/ARCHITECTURE.md; `tests/layering.rs` checks
//! it):
//!
//! `support` → `model` → `conditions` → `session` → `sim` → `net` → `analysis` → `gmclog` →
//! `app`
//!
//! [`model`] is the sans-IO GMC model; [`conditions`] the seeded network conditions;
//! [`session`] presets, settings, summaries, the store and recordings; [`sim`] the
//! virtual-time driver; [`net`] the live drivers; [`analysis`] explains recordings; [`app`] is
//! the desktop app.

pub mod analysis;
pub mod app;
pub mod conditions;
pub mod gmclog;
pub mod model;
pub mod net;
pub mod session;
pub mod sim;
pub mod support;
