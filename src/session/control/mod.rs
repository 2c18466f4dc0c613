//! The one command vocabulary of a running session, for both drivers: the live threads and
//! the virtual-time harness apply the same [`Command`]s through the same [`Settings`] (which
//! validates a command, keeps the session's effective settings and binding layouts, and says
//! what each machine must be told and which `SessionChanged` record to write). A driver only
//! carries [`MachineCmd`]s to its machines and runs the lifecycle (clients added, removed,
//! restarted; the server restarted) its own way. Pure: no clock, thread or socket.

mod command;
mod diff;
mod machine;
mod plan;

pub use self::command::{Command, CommandError, MAX_CLIENTS, Outcome, RESTART_ONLY, restart_keys};
pub use self::machine::{MachineCmd, To};
pub use self::plan::{Planned, Settings};
