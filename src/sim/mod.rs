//! Layer `sim`: drives the model in virtual time — the event-heap harness (client and server
//! frames, deliveries over the seeded link model, retransmission, commands at a session time)
//! and `run_deterministic`, the headless run that folds a session into its summary.
//!
//! May use: `model`, `support`, `conditions`, `session`. Used by: `net`, `analysis`, `app`,
//! `bench`, `cli`. Never reads the wall clock inside the loop.

pub mod harness;

use crate::model::telemetry::Record;
use crate::session::preset::{BindingsError, Preset};
use crate::session::summary::{Summary, SummaryBuilder};

/// Runs a preset headless in virtual time for `seconds` of session time and returns its
/// summary. `on_record` sees every telemetry record. Fails when the preset is invalid.
pub fn run_deterministic(
    preset: &Preset,
    preset_name: &str,
    seconds: f64,
    on_record: &mut dyn FnMut(&Record),
) -> Result<Summary, BindingsError> {
    let started = std::time::Instant::now();
    let mut session = harness::Session::new(preset)?;
    let mut builder = SummaryBuilder::for_clients(preset.network_clients());
    session.run_until(seconds, &mut |r| {
        builder.record(&r);
        on_record(&r);
    });
    Ok(builder.finish(
        "deterministic",
        preset_name,
        preset.seed,
        seconds,
        started.elapsed().as_secs_f64(),
    ))
}
