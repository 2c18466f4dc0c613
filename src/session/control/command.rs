//! The command vocabulary itself: what the outside can ask of a running session
//! ([`Command`]), what a command did ([`Outcome`]), why one was refused ([`CommandError`]), and
//! which settings only a restart can change.

use crate::conditions::link::LinkParams;
use crate::model::binding::Bindings;
use crate::model::input::RawInput;
use crate::model::settings::{Faults, GmcSettings, SmoothingSettings, WorldSettings};
use crate::session::preset::{Direction, Preset};

/// Most clients a session holds.
pub const MAX_CLIENTS: u16 = 64;

/// What the outside can change while a session runs.
#[derive(Clone, Debug)]
pub enum Command {
    /// One client's link in one or both directions.
    SetLink {
        client: u16,
        direction: Direction,
        params: LinkParams,
    },
    SetGmc(GmcSettings),
    /// Pitfall switches that live in the tick (binding mistakes go through `ChangeBindings`).
    SetFaults(Faults),
    SetWorld(WorldSettings),
    /// Smoothing of simulated proxies.
    SetSmoothing(SmoothingSettings),
    /// State updates per second to proxies.
    SetNetUpdateRate(f64),
    /// The clients' frame rate and its jitter (a client with its own in `client_overrides`
    /// keeps its own).
    SetClientFrameRate {
        fps: f64,
        jitter: f64,
    },
    /// Switch the hook trace on or off everywhere.
    HookTrace(bool),
    /// Switch the value trace on or off everywhere.
    ValueTrace(bool),
    /// Switch the buffer trace (proxy arrivals and display changes, for the interpolation buffer
    /// view) on or off everywhere.
    BufferTrace(bool),
    /// A new binding list. Consistent: server and clients switch at the next move boundary.
    /// Not consistent: only the clients change (the pitfall).
    ChangeBindings {
        bindings: Box<Bindings>,
        consistent: bool,
    },
    Pause,
    Resume,
    AddClient,
    /// Stops a client cleanly; the server drops it after its connection timeout.
    RemoveClient(u16),
    /// Kills a client and starts it again with a fresh socket and a new incarnation (it rejoins).
    RestartClient(u16),
    /// Stops the server and starts a new one on the same port (clients rejoin).
    RestartServer,
    /// Drive a client's pawn from outside (keyboard) instead of its input script; `None`
    /// hands it back to the script.
    Drive {
        client: u16,
        input: Option<RawInput>,
    },
}

/// What a command did to the running session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing changed: the session already ran with that value.
    NoChange,
    /// In effect now (live: at the threads' next loop iteration, a few milliseconds; virtual
    /// time: at the command's time).
    AppliedNow,
    /// In effect at the next move boundary (binding lists switch between moves).
    AtNextMoveBoundary,
    /// A new binding list: bindings are made once per pawn (BindReplicationData), so every
    /// pawn was respawned with it on every machine, as a new build would (the server and the
    /// clients restarted; the session, its plots and its recording go on).
    Respawned,
    /// These settings only take effect in a new session: nothing was applied.
    NeedsRestart(Vec<String>),
}

impl Outcome {
    /// The stronger of two outcomes (a restart over a move boundary over now over nothing).
    pub fn max(self, other: Outcome) -> Outcome {
        fn rank(o: &Outcome) -> u8 {
            match o {
                Outcome::NoChange => 0,
                Outcome::AppliedNow => 1,
                Outcome::AtNextMoveBoundary => 2,
                Outcome::Respawned => 3,
                Outcome::NeedsRestart(_) => 4,
            }
        }
        if rank(&other) > rank(&self) {
            other
        } else {
            self
        }
    }

    /// In words, for editors and the status line.
    pub fn describe(&self) -> String {
        match self {
            Outcome::NoChange => "no change".into(),
            Outcome::AppliedNow => "applied now".into(),
            Outcome::AtNextMoveBoundary => "applies at the next move boundary".into(),
            Outcome::Respawned => {
                "every pawn respawned with the new bindings (as a new build would)".into()
            }
            Outcome::NeedsRestart(keys) => {
                format!("needs a restart ({})", keys.join(", "))
            }
        }
    }
}

/// Why a command was refused. Nothing was changed.
#[derive(Clone, Debug, PartialEq)]
pub enum CommandError {
    /// A value preset validation refuses: the key and what it expected.
    Invalid {
        key: String,
        expected: String,
    },
    NoSuchClient(u16),
    /// At most 64 clients.
    TooManyClients,
    /// At most 255 binding changes in one session (the layout version is a byte).
    TooManyLayouts,
    /// A socket could not be bound.
    Socket(String),
    /// Not this session's to change (a participant's session, or what a hosted session cannot
    /// carry to other machines): why.
    Refused(String),
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommandError::Invalid { key, expected } => {
                write!(f, "refused: `{key}`: expected {expected}")
            }
            CommandError::NoSuchClient(c) => write!(f, "refused: there is no client {c}"),
            CommandError::TooManyClients => write!(f, "refused: at most 64 clients"),
            CommandError::TooManyLayouts => {
                write!(f, "refused: too many binding changes in one session (255)")
            }
            CommandError::Socket(e) => write!(f, "{e}"),
            CommandError::Refused(why) => write!(f, "refused: {why}"),
        }
    }
}

impl std::error::Error for CommandError {}

/// A preset whose binding list cannot be built refuses the command with the key and what it
/// expected (`bindings.2.type`).
impl From<crate::session::preset::BindingsError> for CommandError {
    fn from(e: crate::session::preset::BindingsError) -> CommandError {
        invalid(e.key_expected())
    }
}

pub(crate) fn invalid((key, expected): (String, String)) -> CommandError {
    CommandError::Invalid { key, expected }
}

/// Settings a running session cannot change: a new session (restart) applies them.
pub const RESTART_ONLY: [&str; 11] = [
    "net_mode",
    "clients",
    "ai_pawns",
    "server_fps",
    "seed",
    "join_interval_s",
    "world_time_replicators",
    "world_view_rate",
    "input",
    "ai_input",
    "client_overrides",
];

/// Which restart-only settings differ between two presets (top-level keys).
pub fn restart_keys(a: &Preset, b: &Preset) -> Vec<String> {
    let (Ok(serde_json::Value::Object(x)), Ok(serde_json::Value::Object(y))) =
        (serde_json::to_value(a), serde_json::to_value(b))
    else {
        return Vec::new();
    };
    let mut keys: Vec<String> = RESTART_ONLY
        .iter()
        .filter(|k| x.get(**k) != y.get(**k))
        .map(|k| k.to_string())
        .collect();
    // Whether the owner predicts decides its pawn's role when the pawn is set up (an
    // autonomous proxy, or one smoothed like a simulated proxy). A client that did not predict
    // never ran its moves: switched on mid-session it would predict from members the server
    // left behind long ago, unbound ones included (docs/model.md). So it starts a new session.
    if a.gmc.use_client_prediction != b.gmc.use_client_prediction {
        keys.push("gmc.use_client_prediction".into());
    }
    // Another component (or none) is another pawn class: a new session. The same component
    // with other behaviours or modes is a binding change.
    let class = |p: &Preset| p.component.as_ref().map(|c| c.class.clone());
    if class(a) != class(b) {
        keys.push("component".into());
    }
    keys
}
