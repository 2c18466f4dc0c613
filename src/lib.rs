//! movescope: a live, visual simulation of GMC's client-predicted movement cycle.
//!
//! Layers (see docs/ARCHITECTURE.md): [`model`] is the sans-IO GMC model; [`sim`] drives it in
//! virtual time over a seeded link model; [`preset`] reads session descriptions; [`summary`]
//! folds telemetry into the run summary.

pub mod app;
pub mod control;
pub mod doctor;
pub mod lineage;
pub mod live;
pub mod model;
pub mod output;
pub mod preset;
pub mod ranges;
pub mod recording;
pub mod remote;
pub mod report;
pub mod rng;
pub mod setup;
pub mod shipped;
pub mod sim;
pub mod store;
pub mod summary;
pub mod timeline;
pub mod transport;
pub mod valuetrace;
pub mod whatif;
