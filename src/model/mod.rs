//! The GMC move-cycle model: sans-IO and deterministic. Nothing in here reads a clock, sleeps,
//! spawns a thread, touches a socket or draws unseeded random numbers. Time and datagrams are
//! passed in; datagrams and telemetry are polled out.

pub mod binding;
pub mod client;
pub mod cycle;
pub mod demo_bindings;
pub mod deviation;
pub mod imported;
pub mod input;
pub mod logged;
pub mod messages;
pub mod pawn;
pub mod proxy;
pub mod server;
pub mod settings;
pub mod telemetry;
pub mod time_units;
pub mod values_layout;
pub mod wire;
