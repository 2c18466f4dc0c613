//! The value trace of a recording: the pawn's values around each move execution
//! (`Event::MoveValues`). Recorded when the session ran with `value_trace` on; otherwise a
//! virtual-time recording made from its start is re-simulated with the trace on — the model is
//! deterministic, so the re-run is the same session (checked record by record) with the trace
//! added. Live and trimmed recordings cannot be re-simulated; the description says so.

use crate::model::telemetry::{Event, Record};
use crate::session::preset::BindingsError;
use crate::session::recording::Recording;

/// The value-trace records to use with `records` (empty when they are in `records` already)
/// and a description of where they come from. `until`: re-simulate only this far (s);
/// `keep(client, move)`: which moves' executions to keep.
pub fn of_recording(
    rec: &Recording,
    records: &[Record],
    until: Option<f64>,
    keep: &dyn Fn(u16, u32) -> bool,
) -> (Vec<Record>, String) {
    if records
        .iter()
        .any(|r| matches!(r.event, Event::MoveValues(_)))
    {
        return (Vec::new(), "recorded".into());
    }
    if rec.header.mode == "imported" {
        return (
            Vec::new(),
            "not traced: a game log holds no values per sub-step (GMC logs a move's input and output only)".into(),
        );
    }
    if rec.header.mode != "deterministic" {
        return (
            Vec::new(),
            "not traced: a live recording cannot be re-simulated (record with the value trace on)"
                .into(),
        );
    }
    if rec.header.t_start > 0.0 {
        return (
            Vec::new(),
            "not traced: a trimmed recording cannot be re-simulated from its start".into(),
        );
    }
    match resimulate(rec, records, until, keep) {
        Ok(v) => (
            v,
            "re-simulated in virtual time with the value trace on (the re-run reproduced every record)"
                .into(),
        ),
        Err(why) => (Vec::new(), format!("not traced: {why}")),
    }
}

/// Why a re-simulation could not stand in for the recording's value trace.
#[derive(Debug, thiserror::Error)]
pub enum ResimulateError {
    /// The recording's preset is invalid here.
    #[error(transparent)]
    Preset(#[from] BindingsError),
    #[error(
        "the re-run with the value trace differs from the recording at record {record} ({t:.3} s): made by another version of movescope?"
    )]
    Differs { record: usize, t: f64 },
    #[error("the re-run ended after {produced} of the recording's {expected} records")]
    Short { produced: usize, expected: usize },
}

/// Re-runs a virtual-time recording with the value trace on, keeps the traced executions
/// `keep` selects, and fails if the re-run differs from `records` (which must start at the
/// session's start; records after `until` are not compared).
pub fn resimulate(
    rec: &Recording,
    records: &[Record],
    until: Option<f64>,
    keep: &dyn Fn(u16, u32) -> bool,
) -> Result<Vec<Record>, ResimulateError> {
    let mut preset = rec.header.preset.clone();
    preset.value_trace = true;
    let end = records
        .last()
        .map_or(0.0, |r| r.t)
        .min(rec.resimulation_seconds());
    // The footer's length, bounded by the records really read (a crafted footer cannot make
    // it run long).
    let whole = rec.footer.as_ref().map_or(end, |f| {
        if f.simulated_seconds.is_finite() {
            f.simulated_seconds
                .clamp(end, end + crate::session::recording::CHUNK_SECONDS)
        } else {
            end
        }
    });
    let seconds = until.map_or(whole, |u| u.min(whole));
    let mut kept = Vec::new();
    let mut i = 0usize;
    let mut differs: Option<usize> = None;
    crate::sim::run_deterministic(&preset, &rec.header.preset_name, seconds, &mut |r| {
        if let Event::MoveValues(v) = &r.event {
            if let Some(c) = v.owner
                && keep(c, v.move_id)
            {
                kept.push(r.clone());
            }
            return;
        }
        if differs.is_none() && records.get(i).is_some_and(|x| x != r) {
            differs = Some(i);
        }
        i += 1;
    })?;
    if let Some(i) = differs {
        return Err(ResimulateError::Differs {
            record: i,
            t: records[i].t,
        });
    }
    let expected = match until {
        // Records at the very end of a shortened run may or may not be produced by it.
        Some(_) => records.iter().take_while(|r| r.t < seconds - 1e-6).count(),
        None => records.len(),
    };
    if i < expected {
        return Err(ResimulateError::Short {
            produced: i,
            expected,
        });
    }
    Ok(kept)
}
