//! Layer `gmclog`: GMC's Unreal logs, both ways. `import` reads an engineer's game logs (GMC
//! 2.x and 1.x formats: docs/gmc-logs.md) into the same records the simulator produces, so
//! every view opens them as a recording; `write` writes, for a simulated session, the log GMC
//! would write (the round-trip oracle of the import's tests).
//!
//! May use: `support`, `model`, `conditions`, `session`, `sim`, `net`, `analysis` (the lint's
//! binding tables name dumped values). Used by: `app`, `bench`, `cli`. Reads text and
//! produces records; the views never learn that a recording came from a log, except where
//! the log is silent and a view says so.

mod assemble;
pub mod cast;
mod client;
pub mod how;
pub mod import;
pub mod line;
pub mod message;
pub mod names;
mod numbering;
pub mod reader;
pub mod record;
pub mod scan;
pub mod values;
pub mod write;

pub use import::{ImportError, Imported, Progress, Scan, Skipped, assemble, scan};
pub use names::Naming;
