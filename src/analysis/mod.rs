//! Layer `analysis`: reading recorded sessions and source code — the desync doctor, a move's
//! lineage, the value trace, what-if re-runs, reports and exports.
//!
//! May use: `support`, `model`, `conditions`, `session`, `sim`. Used by: `app`, `bench`, `cli`.

pub mod doctor;
pub mod lineage;
pub mod lint;
pub mod report;
pub mod valuetrace;
pub mod whatif;
