//! Layer `net`: the live drivers — the laminar transport (the only laminar user), live sessions
//! in threads over UDP loopback, and sessions across machines (host and join).
//!
//! May use: `support`, `model`, `conditions`, `session`, `sim`. Used by: `app`, `bench`, `cli`.
//! Within the layer: `live` uses `remote`, `remote` uses `transport`; `remote` never imports
//! `live` (the layering test checks file-level cycles).

pub mod live;
pub mod remote;
pub mod transport;
