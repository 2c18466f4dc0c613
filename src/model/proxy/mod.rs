//! Simulated proxies: buffered server states shown slightly in the past (smoothing), with
//! per-binding interpolation, extrapolation when the buffer runs dry, recovery, a teleport
//! threshold and PostSpawnSmoothingPause. Used by clients for pawns they do not control, for
//! an owner without client prediction, and by a listen-server host for remote pawns.
//!
//! `buffer` holds one proxy, `interpolate` the per-binding blends, `display` the per-frame
//! figures and their telemetry samples, `list` a machine's proxies.

mod buffer;
mod display;
mod interpolate;
mod list;

pub use self::buffer::{Proxy, SimulationCtx};
pub use self::display::{DISPLAY_SAMPLE_INTERVAL, DisplayStats, FrameAcc, ProxyFrame};
pub use self::interpolate::interpolate_value;
pub use self::list::ProxyList;
