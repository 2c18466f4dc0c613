//! Layer `net`: the live drivers — the laminar transport (the only laminar user), live sessions
//! in threads over UDP loopback, and sessions across machines (host and join).
//!
//! May use: `support`, `model`, `conditions`, `session`, `sim`. Used by: `app`, `bench`, `cli`.
//! Within the layer: `runtime` (the session clock, telemetry channel, worker threads) sits
//! under `client_thread` and `server_thread`; `remote` uses those and `transport`; `live` uses
//! all of them and `remote` never imports `live` (the layering test checks file-level cycles).

pub mod client_thread;
pub mod live;
pub mod remote;
pub mod runtime;
pub mod server_thread;
pub mod transport;
