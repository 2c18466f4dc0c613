//! Presets: RON files describing a session (docs/presets.md). Unknown fields and bad values are
//! errors that name the file, line, column and what was expected. `--set key=value` edits a
//! preset by dotted path.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::conditions::link::LinkParams;
use crate::model::binding::{
    BindingError, Bindings, BoundType, CombineMode, InterpolationFunction, PredictionMode,
    SimulationMode,
};
use crate::model::client::ClientConfig;
use crate::model::input::InputScriptConfig;
use crate::model::server::ServerConfig;
use crate::model::settings::{Faults, GmcSettings, NetMode, SmoothingSettings, WorldSettings};
use crate::session::imported::ImportedLayout;
pub use crate::session::lesson::{Lesson, LessonStep};

/// The default preset, shipped as `presets/default.ron` and built into the binary.
pub const DEFAULT_PRESET_RON: &str = include_str!("../../presets/default.ron");
pub const DEFAULT_PRESET_NAME: &str = "presets/default.ron";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Client to server.
    Up,
    /// Server to client.
    Down,
    Both,
}

/// Replaces the link of one client in one or both directions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkOverride {
    pub client: u16,
    pub direction: Direction,
    pub link: LinkParams,
}

/// Per-client differences from the preset's defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClientOverride {
    pub client: u16,
    pub fps: Option<f64>,
    pub fps_jitter: Option<f64>,
    pub input: Option<InputScriptConfig>,
    /// A modified game client (a cheat): it writes a full `move_ramp` before every frame.
    pub modified: bool,
}

/// Changes to one of the demo pawn's bindings, by member name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BindingOverride {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: Option<BoundType>,
    pub prediction: Option<PredictionMode>,
    pub combine: Option<CombineMode>,
    pub simulation: Option<SimulationMode>,
    pub interpolation: Option<InterpolationFunction>,
    pub tolerance: Option<f64>,
}

/// A whole session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Preset {
    pub title: String,
    pub description: String,
    pub seed: u64,
    /// Length of a headless run (s).
    pub seconds: f64,
    pub clients: u16,
    pub ai_pawns: u16,
    /// Frame rate of every client (overridable per client).
    pub client_fps: f64,
    /// Relative frame-time jitter (0 = fixed frame rate, 0.2 = ±20 %).
    pub client_fps_jitter: f64,
    pub server_fps: f64,
    /// Client k (0-based) starts its world and joins (k + 1) × this many seconds after the
    /// server started, so every machine has its own clock.
    pub join_interval_s: f64,
    /// AGMC_WorldTimeReplicator actors in the world: 1 is correct.
    pub world_time_replicators: u8,
    /// `dedicated`, `listen` (client 0 plays on the server) or `standalone` (client 0 alone).
    pub net_mode: NetMode,
    /// State updates per second to simulated proxies.
    pub net_update_rate: f64,
    pub smoothing: SmoothingSettings,
    /// Emit an event for every hook invocation (verbose).
    pub hook_trace: bool,
    /// Emit the owning pawn's values around every move execution — on its client (live,
    /// combined, replay) and on the server (remote) — for the move lineage and the desync
    /// doctor (verbose).
    pub value_trace: bool,
    /// Emit each simulated proxy's state arrivals and display changes, for the interpolation
    /// buffer view (verbose).
    pub buffer_trace: bool,
    /// Pawn samples per second each machine emits for the world view (0: none).
    pub world_view_rate: f64,
    pub gmc: GmcSettings,
    pub faults: Faults,
    pub world: WorldSettings,
    /// Link conditions of every client, both directions.
    pub link: LinkParams,
    pub link_overrides: Vec<LinkOverride>,
    pub client_overrides: Vec<ClientOverride>,
    /// Input script of every client.
    pub input: InputScriptConfig,
    /// Input script of the AI pawns.
    pub ai_input: InputScriptConfig,
    pub bindings: Vec<BindingOverride>,
    /// A GMC component's binding layout to run instead of the demo pawn's (`movescope lint`'s
    /// table; "Run with this layout" in the component window). `bindings` overrides apply to
    /// it by name.
    pub component: Option<ImportedLayout>,
    /// Workshop material: what this scenario teaches (none for plain presets).
    pub lesson: Option<Lesson>,
}

impl Default for Preset {
    fn default() -> Self {
        Preset {
            title: "Default session".into(),
            description: "A clean session: three clients, two AI pawns, no pitfall switched on."
                .into(),
            seed: 1,
            seconds: 30.0,
            clients: 3,
            ai_pawns: 2,
            client_fps: 60.0,
            client_fps_jitter: 0.0,
            server_fps: 60.0,
            join_interval_s: 0.25,
            world_time_replicators: 1,
            net_mode: NetMode::Dedicated,
            net_update_rate: 30.0,
            smoothing: SmoothingSettings::default(),
            hook_trace: false,
            value_trace: false,
            buffer_trace: false,
            world_view_rate: 20.0,
            gmc: GmcSettings::default(),
            faults: Faults::default(),
            world: WorldSettings::default(),
            link: LinkParams::default(),
            link_overrides: Vec::new(),
            client_overrides: Vec::new(),
            input: InputScriptConfig::default(),
            ai_input: InputScriptConfig {
                dash_period_s: 0.0,
                ..InputScriptConfig::default()
            },
            bindings: Vec::new(),
            component: None,
            lesson: None,
        }
    }
}

/// A preset that could not be read or does not make sense.
#[derive(Debug, Clone, PartialEq)]
pub struct PresetError {
    /// The file (or `--set`) the problem is in.
    pub source: String,
    /// 1-based line and column, when known.
    pub position: Option<(usize, usize)>,
    pub message: String,
}

impl std::fmt::Display for PresetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The message may quote the file (between backticks): each quote shown short, control
        // characters escaped.
        let message = crate::support::text::spans_shown(&self.message, 160);
        match self.position {
            Some((l, c)) => write!(f, "{}:{}:{}: {message}", self.source, l, c),
            None => write!(f, "{}: {message}", self.source),
        }
    }
}

impl std::error::Error for PresetError {}

/// Why a trace file could not be loaded: it could not be read, or its text is not a trace (the
/// line and what was expected are in the [`TraceError`](crate::conditions::trace::TraceError)).
#[derive(Debug, thiserror::Error)]
pub enum LoadTraceError {
    #[error("trace {}: cannot read: {source}", path.display())]
    Read {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("trace {}: {error}", path.display())]
    Parse {
        path: std::path::PathBuf,
        error: crate::conditions::trace::TraceError,
    },
}

/// The CLI and `--set` report errors as text; `?` turns a trace error into its message.
impl From<LoadTraceError> for String {
    fn from(e: LoadTraceError) -> String {
        e.to_string()
    }
}

/// Why a preset's binding list cannot be built. Each variant names the key (`gmc.max_time_step`,
/// `bindings.2.type`) and what was expected; the text is what the CLI prints.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BindingsError {
    /// A setting outside its range (preset validation).
    #[error("`{key}`: expected {expected}")]
    Setting { key: String, expected: String },
    /// Binding override `index` (the one for member `name`) cannot apply: which of its fields
    /// (`name`, `type`, `tolerance`) and what was expected.
    #[error("`bindings.{index}.{field}`: expected {expected}")]
    Override {
        index: usize,
        field: &'static str,
        name: String,
        expected: String,
    },
    /// The server's list is refused (a member bound twice, or as a type it cannot take).
    #[error("`bindings`: expected {error}")]
    List { error: BindingError },
    /// The list the clients make under `faults.binding_mismatch` is refused.
    #[error("the clients' binding list: {error}")]
    ClientList { error: BindingError },
    /// The imported component's layout cannot run.
    #[error("`component`: {problem}")]
    Component { problem: String },
}

impl BindingsError {
    /// The dotted key and what was expected (how preset validation reports a problem).
    pub fn key_expected(&self) -> (String, String) {
        match self {
            BindingsError::Setting { key, expected } => (key.clone(), expected.clone()),
            BindingsError::Override {
                index,
                field,
                expected,
                ..
            } => (format!("bindings.{index}.{field}"), expected.clone()),
            BindingsError::List { error } | BindingsError::ClientList { error } => {
                ("bindings".into(), error.to_string())
            }
            BindingsError::Component { problem } => ("component".into(), problem.clone()),
        }
    }
}

/// The CLI reports errors as text; `?` turns a binding error into its message.
impl From<BindingsError> for String {
    fn from(e: BindingsError) -> String {
        e.to_string()
    }
}

/// Reads a network trace file (ping output or CSV; [`crate::conditions::trace`]); errors name the
/// file, the line and what was expected.
pub fn load_trace(path: &Path) -> Result<crate::conditions::trace::Trace, LoadTraceError> {
    let text = std::fs::read_to_string(path).map_err(|source| LoadTraceError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().to_string(),
    );
    crate::conditions::trace::parse(&text, &name).map_err(|error| LoadTraceError::Parse {
        path: path.to_path_buf(),
        error,
    })
}

impl Preset {
    /// Parses RON text; `source` names it in errors.
    pub fn from_ron(text: &str, source: &str) -> Result<Preset, PresetError> {
        let opts = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
        let preset: Preset = opts.from_str(text).map_err(|e| PresetError {
            source: source.to_string(),
            position: Some((e.span.start.line, e.span.start.col)),
            message: e.code.to_string(),
        })?;
        preset.validate().map_err(|(field, expected)| PresetError {
            source: source.to_string(),
            position: find_key(text, field.rsplit('.').next().unwrap_or(&field)),
            message: format!("`{field}`: expected {expected}"),
        })?;
        Ok(preset)
    }

    pub fn load(path: &Path) -> Result<Preset, PresetError> {
        let text = std::fs::read_to_string(path).map_err(|e| PresetError {
            source: path.display().to_string(),
            position: None,
            message: format!("cannot read: {e}"),
        })?;
        Preset::from_ron(&text, &path.display().to_string())
    }

    /// A preset by file path, or a shipped preset by name (`pitfall-01-unbound-member`,
    /// `presets/pitfall-01-unbound-member.ron`): a file on disk wins, so local edits of a
    /// shipped preset are used where they exist. Returns the preset and the name it goes by.
    pub fn find(name: &str) -> Result<(Preset, String), PresetError> {
        let path = Path::new(name);
        if path.is_file() {
            return Ok((Preset::load(path)?, name.to_string()));
        }
        match crate::support::shipped::preset_text(name) {
            Some((shipped, text)) => Ok((
                Preset::from_ron(text, &format!("{shipped} (built in)"))?,
                shipped.to_string(),
            )),
            None => Err(PresetError {
                source: name.to_string(),
                position: None,
                message: format!(
                    "no such file, and no shipped preset of that name; the shipped presets:\n{}",
                    crate::support::text::wrapped(crate::support::shipped::names(), 96, "  ")
                ),
            }),
        }
    }

    /// The shipped default preset.
    pub fn builtin_default() -> Preset {
        Preset::from_ron(DEFAULT_PRESET_RON, DEFAULT_PRESET_NAME)
            .expect("the shipped default preset is valid (tested)")
    }

    pub fn to_ron(&self) -> String {
        let cfg = ron::ser::PrettyConfig::new()
            .depth_limit(4)
            .struct_names(false);
        ron::ser::to_string_pretty(self, cfg).expect("presets always serialize")
    }

    /// Applies `key=value`, where key is a dotted path (`link.latency_ms`, `gmc.client_send_rate`,
    /// `link_overrides.0.link.loss`) and value is JSON or a bare word.
    pub fn set(&mut self, assignment: &str) -> Result<(), PresetError> {
        let err = |message: String| PresetError {
            source: format!("--set {assignment}"),
            position: None,
            message,
        };
        let (key, raw) = assignment
            .split_once('=')
            .ok_or_else(|| err("expected KEY=VALUE".into()))?;
        let key = key.trim();
        let raw = raw.trim();
        let mut root = serde_json::to_value(&*self).map_err(|e| err(e.to_string()))?;
        let mut node = &mut root;
        let parts: Vec<&str> = key.split('.').collect();
        for (depth, part) in parts.iter().enumerate() {
            let here = parts[..depth].join(".");
            node = match node {
                serde_json::Value::Object(map) => {
                    let known: Vec<String> = map.keys().cloned().collect();
                    map.get_mut(*part).ok_or_else(|| {
                        err(format!(
                            "unknown key `{key}`: {} has no `{part}` (known: {})",
                            if here.is_empty() {
                                "the preset".to_string()
                            } else {
                                format!("`{here}`")
                            },
                            known.join(", ")
                        ))
                    })?
                }
                serde_json::Value::Array(items) => {
                    let len = items.len();
                    let i: usize = part.parse().map_err(|_| {
                        err(format!(
                            "`{here}` is a list: expected an index, got `{part}`"
                        ))
                    })?;
                    items.get_mut(i).ok_or_else(|| {
                        err(format!(
                            "`{here}` has {len} entries; index {i} is out of range"
                        ))
                    })?
                }
                _ => {
                    return Err(err(format!("`{here}` is a value, it has no `{part}`")));
                }
            };
        }
        let value: serde_json::Value = if parts.last() == Some(&"trace") {
            // A trace is given as a file (ping output or CSV) and kept in the preset.
            match raw {
                "" | "none" | "null" => serde_json::Value::Null,
                path => {
                    let trace = load_trace(Path::new(path)).map_err(|e| err(e.to_string()))?;
                    serde_json::to_value(trace).map_err(|e| err(e.to_string()))?
                }
            }
        } else {
            serde_json::from_str(raw).unwrap_or_else(|_| serde_json::Value::String(raw.to_string()))
        };
        *node = value;
        let updated: Preset = serde_json::from_value(root)
            .map_err(|e| err(format!("`{key}` cannot be `{raw}`: {e}")))?;
        updated
            .validate()
            .map_err(|(field, expected)| err(format!("`{field}`: expected {expected}")))?;
        *self = updated;
        Ok(())
    }

    /// Range checks that serde cannot express, from the one table of ranges
    /// ([`crate::support::ranges`]) the app's editors use too. Returns (dotted field, what was
    /// expected).
    pub fn validate(&self) -> Result<(), (String, String)> {
        self.validate_settings()?;
        if let Some(problem) = self
            .lesson
            .as_ref()
            .and_then(|l| l.reasons_problem().or_else(|| l.claims_problem()))
        {
            return Err(problem);
        }
        if let Some((field, name)) = self.lesson.as_ref().and_then(|l| l.unknown_figure()) {
            return Err((
                field,
                format!(
                    "a measured figure in braces (one of {}), not `{{{name}}}`",
                    super::figures::FIGURES
                        .iter()
                        .map(|f| f.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        self.bindings().map(|_| ())
    }

    /// [`Preset::validate`] but for the binding overrides.
    pub(super) fn validate_settings(&self) -> Result<(), (String, String)> {
        use crate::support::ranges::check_as;
        let check = |key: &str, v: f64| check_as(key, key, v);
        let g = &self.gmc;
        let sm = &self.smoothing;
        let w = &self.world;
        for (key, v) in [
            ("seconds", self.seconds),
            ("clients", f64::from(self.clients)),
            ("ai_pawns", f64::from(self.ai_pawns)),
            ("client_fps", self.client_fps),
            ("client_fps_jitter", self.client_fps_jitter),
            ("server_fps", self.server_fps),
            ("join_interval_s", self.join_interval_s),
            (
                "world_time_replicators",
                f64::from(self.world_time_replicators),
            ),
            ("net_update_rate", self.net_update_rate),
            ("world_view_rate", self.world_view_rate),
            ("gmc.max_time_step", g.max_time_step),
            ("gmc.max_iterations", f64::from(g.max_iterations)),
            ("gmc.max_move_delta_time", g.max_move_delta_time),
            ("gmc.max_combined_delta_time", g.max_combined_delta_time),
            ("gmc.move_history_max_size", g.move_history_max_size as f64),
            ("gmc.client_send_rate", g.client_send_rate),
            (
                "gmc.world_time_update_interval",
                g.world_time_update_interval,
            ),
            (
                "gmc.reliable_pending_threshold",
                g.reliable_pending_threshold as f64,
            ),
            ("gmc.move_gap_timeout", g.move_gap_timeout),
            ("gmc.ping_interval", g.ping_interval),
            (
                "gmc.post_spawn_smoothing_pause",
                g.post_spawn_smoothing_pause,
            ),
            ("smoothing.buffer_time", sm.buffer_time),
            ("smoothing.min_buffer_time", sm.min_buffer_time),
            ("smoothing.max_buffer_time", sm.max_buffer_time),
            ("smoothing.min_delay", sm.min_delay),
            ("smoothing.max_delay", sm.max_delay),
            ("smoothing.resync_interval", sm.resync_interval),
            ("smoothing.resync_spread", sm.resync_spread),
            ("smoothing.resync_tolerance", sm.resync_tolerance),
            ("smoothing.fixed_delay", sm.fixed_delay),
            (
                "smoothing.max_extrapolation_time",
                sm.max_extrapolation_time,
            ),
            (
                "smoothing.extrapolation_recovery_time",
                sm.extrapolation_recovery_time,
            ),
            ("smoothing.teleport_threshold", sm.teleport_threshold),
            ("world.turret_period_s", w.turret_period_s),
            ("world.turret_knockback", w.turret_knockback),
            ("world.spawn_radius", w.spawn_radius),
        ] {
            check(key, v)?;
        }
        // The smoothing buffer's and delay's bounds in order.
        for (lo, hi, lo_key, hi_key) in [
            (
                sm.min_buffer_time,
                sm.max_buffer_time,
                "min_buffer_time",
                "max_buffer_time",
            ),
            (sm.min_delay, sm.max_delay, "min_delay", "max_delay"),
        ] {
            if lo > hi {
                return Err((
                    format!("smoothing.{hi_key}"),
                    format!("at least smoothing.{lo_key} ({lo}), got {hi}"),
                ));
            }
        }
        // Input scripts: the players', the AI's, and each client's own.
        let script = |path: &str, c: &InputScriptConfig| -> Result<(), (String, String)> {
            for (field, v) in [
                ("segment_min_s", c.segment_min_s),
                ("segment_max_s", c.segment_max_s),
                ("stop_chance", c.stop_chance),
                ("dash_period_s", c.dash_period_s),
            ] {
                check_as(&format!("input.{field}"), &format!("{path}.{field}"), v)?;
            }
            if c.segment_min_s > c.segment_max_s {
                return Err((
                    format!("{path}.segment_max_s"),
                    format!(
                        "at least segment_min_s ({}), got {}",
                        c.segment_min_s, c.segment_max_s
                    ),
                ));
            }
            Ok(())
        };
        script("input", &self.input)?;
        script("ai_input", &self.ai_input)?;
        for (i, o) in self.client_overrides.iter().enumerate() {
            check_as(
                "client",
                &format!("client_overrides.{i}.client"),
                f64::from(o.client),
            )?;
            if let Some(fps) = o.fps {
                check_as("client_fps", &format!("client_overrides.{i}.fps"), fps)?;
            }
            if let Some(j) = o.fps_jitter {
                check_as(
                    "client_fps_jitter",
                    &format!("client_overrides.{i}.fps_jitter"),
                    j,
                )?;
            }
            if let Some(input) = &o.input {
                script(&format!("client_overrides.{i}.input"), input)?;
            }
        }
        for (i, o) in self.link_overrides.iter().enumerate() {
            check_as(
                "client",
                &format!("link_overrides.{i}.client"),
                f64::from(o.client),
            )?;
        }
        self.link
            .validate()
            .map_err(|(f, e)| (format!("link.{f}"), e))?;
        for (i, o) in self.link_overrides.iter().enumerate() {
            o.link
                .validate()
                .map_err(|(f, e)| (format!("link_overrides.{i}.link.{f}"), e))?;
        }
        Ok(())
    }

    /// The link of `client` in one direction (`up`: client to server), after overrides (the
    /// last matching override wins).
    pub fn link_params(&self, client: u16, up: bool) -> LinkParams {
        let mut params = self.link.clone();
        for o in &self.link_overrides {
            let applies = match o.direction {
                Direction::Up => up,
                Direction::Down => !up,
                Direction::Both => true,
            };
            if o.client == client && applies {
                params = o.link.clone();
            }
        }
        params
    }

    /// Client ids that run as network clients: in a listen server client 0 is the host (it plays
    /// on the server), standalone has none.
    pub fn network_clients(&self) -> std::ops::Range<u16> {
        match self.net_mode {
            NetMode::Dedicated => 0..self.clients,
            NetMode::Listen => 1.min(self.clients)..self.clients,
            NetMode::Standalone => 0..0,
        }
    }

    /// The input script of client `client`.
    pub fn input_for(&self, client: u16) -> InputScriptConfig {
        self.client_overrides
            .iter()
            .find(|o| o.client == client)
            .and_then(|o| o.input.clone())
            .unwrap_or_else(|| self.input.clone())
    }

    /// The server's configuration (bindings already checked).
    pub fn server_config(&self, bindings: std::sync::Arc<Bindings>) -> ServerConfig {
        ServerConfig {
            gmc: self.gmc,
            faults: self.faults.clone(),
            world: self.world.clone(),
            bindings,
            world_time_replicators: self.world_time_replicators,
            ai_pawns: self.ai_pawns,
            ai_input: self.ai_input.clone(),
            seed: self.seed,
            net_mode: self.net_mode,
            net_update_rate: self.net_update_rate,
            smoothing: self.smoothing,
            host_input: self.input_for(0),
            hook_trace: self.hook_trace,
            value_trace: self.value_trace,
            world_view_rate: self.world_view_rate,
            join_secret: self.join_secret(),
            max_clients: crate::session::control::MAX_CLIENTS,
        }
    }

    /// The join secret of a session run from this preset in virtual time (derived from the
    /// seed, so runs repeat); a live session draws its own ([`crate::net`]).
    pub fn join_secret(&self) -> u64 {
        crate::support::rng::derive_seed(self.seed, crate::support::rng::purpose::JOIN_SECRET, 0)
    }

    /// Client `id`'s configuration (`incarnation` 0 for the clients a session starts with,
    /// the session's next number for one started later).
    pub fn client_config(
        &self,
        id: u16,
        incarnation: u32,
        bindings: std::sync::Arc<Bindings>,
    ) -> ClientConfig {
        ClientConfig {
            id,
            incarnation,
            join_key: crate::model::messages::client_key(self.join_secret(), id),
            gmc: self.gmc,
            faults: self.faults.clone(),
            bindings,
            smoothing: self.smoothing,
            seed: crate::support::rng::derive_seed(
                self.seed,
                crate::support::rng::purpose::SMOOTHING,
                u64::from(id),
            ),
            hook_trace: self.hook_trace,
            value_trace: self.value_trace,
            buffer_trace: self.buffer_trace,
            world_view_rate: self.world_view_rate,
            modified: self
                .client_overrides
                .iter()
                .any(|o| o.client == id && o.modified),
        }
    }
}

/// Best-effort position of `key:` in RON text, for errors found after parsing.
fn find_key(text: &str, key: &str) -> Option<(usize, usize)> {
    for (ln, line) in text.lines().enumerate() {
        if let Some(col) = line.find(&format!("{key}:")) {
            let before = line[..col].chars().last();
            if before.is_none_or(|c| !c.is_alphanumeric() && c != '_') {
                return Some((ln + 1, col + 1));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_default_equals_builtin_default() {
        assert_eq!(Preset::builtin_default(), Preset::default());
        assert!(
            !Preset::default().faults.any(),
            "the default session is clean"
        );
    }

    #[test]
    fn unknown_field_names_file_line_and_column() {
        let text = "(\n  clients: 2,\n  link: (latency_ms: 10, lossy: 0.5),\n)";
        let e = Preset::from_ron(text, "presets/x.ron").unwrap_err();
        assert_eq!(e.source, "presets/x.ron");
        let (line, col) = e.position.expect("position");
        assert_eq!(line, 3);
        assert!(col > 20, "col {col}");
        assert!(e.message.contains("lossy"), "{e}");
        assert!(e.to_string().starts_with("presets/x.ron:3:"), "{e}");
    }

    #[test]
    fn bad_values_are_explained() {
        let e = Preset::from_ron("(clients: \"three\")", "p.ron").unwrap_err();
        assert!(
            e.message.contains("integer") || e.message.contains("u16"),
            "{e}"
        );
        let e = Preset::from_ron("(\n link: (\n  loss: 1.5,\n ),\n)", "p.ron").unwrap_err();
        assert_eq!(e.position, Some((3, 3)), "{e}");
        assert!(
            e.message.contains("link.loss") && e.message.contains("probability"),
            "{e}"
        );
        let e = Preset::from_ron("(bindings: [(name: \"nose\")])", "p.ron").unwrap_err();
        assert!(e.message.contains("nose"), "{e}");
    }

    #[test]
    fn set_reaches_every_documented_key() {
        let mut p = Preset::default();
        for kv in [
            "clients=5",
            "ai_pawns=4",
            "client_fps=120",
            "link.latency_ms=100",
            "link.jitter_ms=5",
            "link.loss=0.05",
            "gmc.max_combined_delta_time=0.05",
            "gmc.max_time_step=0.02",
            "gmc.max_move_delta_time=0.1",
            "gmc.client_send_rate=20",
            "gmc.use_client_replay=false",
            "world_time_replicators=0",
            "faults.unbound_member=true",
            "faults.wall_clock_in_tick=true",
            "faults.no_seal_after_one_shot=true",
            "faults.dash_always_combine=true",
            "faults.unguarded_side_effects=true",
            "link.jitter_distribution=pareto",
            "net_mode=listen",
            "smoothing.mode=ForwardSimulation",
            "smoothing.buffer_time=0.2",
            "net_update_rate=20",
            "hook_trace=true",
            "value_trace=true",
            "faults.proxy_value_not_simulated=true",
            "faults.spawn_data_only_bound=true",
            "faults.transition_in_sync_applied=true",
            "faults.binding_mismatch=true",
            "faults.tick_reads_proxy_transform=true",
        ] {
            p.set(kv).unwrap_or_else(|e| panic!("{kv}: {e}"));
        }
        assert_eq!(p.clients, 5);
        assert_eq!(p.ai_pawns, 4);
        assert_eq!(p.client_fps, 120.0);
        assert_eq!(p.link.latency_ms, 100.0);
        assert_eq!(p.link.loss, 0.05);
        assert_eq!(p.gmc.max_combined_delta_time, 0.05);
        assert!(!p.gmc.use_client_replay);
        assert_eq!(p.world_time_replicators, 0);
        assert!(p.faults.unbound_member && p.faults.unguarded_side_effects);
        assert_eq!(
            p.link.jitter_distribution,
            crate::conditions::link::JitterDistribution::Pareto
        );
        assert_eq!(p.net_mode, NetMode::Listen);
        assert_eq!(
            p.smoothing.mode,
            crate::model::settings::SmoothingMode::ForwardSimulation
        );
        assert_eq!(p.smoothing.buffer_time, 0.2);
        assert_eq!(p.net_update_rate, 20.0);
        assert!(p.hook_trace && p.value_trace);
        assert!(p.faults.binding_mismatch && p.faults.tick_reads_proxy_transform);
    }

    #[test]
    fn set_rejects_unknown_keys_and_bad_values() {
        let mut p = Preset::default();
        let e = p.set("link.latncy_ms=3").unwrap_err();
        assert!(
            e.message.contains("latncy_ms") && e.message.contains("latency_ms"),
            "{e}"
        );
        let e = p.set("clients=many").unwrap_err();
        assert!(e.message.contains("clients"), "{e}");
        let e = p.set("link.loss=2").unwrap_err();
        assert!(e.message.contains("probability"), "{e}");
        assert!(p.set("nokey").is_err());
        assert_eq!(p, Preset::default(), "failed sets change nothing");
    }

    #[test]
    fn binding_errors_name_the_override_and_the_key() {
        let mut p = Preset::default();
        p.bindings.push(BindingOverride {
            name: "velocity".into(),
            ..BindingOverride::default()
        });
        p.bindings.push(BindingOverride {
            name: "nose".into(),
            ..BindingOverride::default()
        });
        match p.checked_bindings().unwrap_err() {
            BindingsError::Override {
                index, field, name, ..
            } => assert_eq!((index, field, name.as_str()), (1, "name", "nose")),
            e => panic!("{e:?}"),
        }
        p.bindings[1] = BindingOverride {
            name: "velocity".into(),
            tolerance: Some(-1.0),
            ..BindingOverride::default()
        };
        let e = p.checked_bindings().unwrap_err();
        assert!(
            matches!(
                &e,
                BindingsError::Override {
                    index: 1,
                    field: "tolerance",
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "`bindings.1.tolerance`: expected a number in [0, 1000000] (in the value's unit (cm, cm/s, °…); 0 compares exactly), got -1"
        );
        assert_eq!(p.bindings().unwrap_err().0, "bindings.1.tolerance");
        let p = Preset {
            server_fps: 0.0,
            ..Preset::default()
        };
        let e = p.client_bindings().unwrap_err();
        assert!(
            matches!(&e, BindingsError::Setting { key, .. } if key == "server_fps"),
            "{e:?}"
        );
    }

    #[test]
    fn round_trips_through_ron() {
        let mut p = Preset::default();
        p.set("link.latency_ms=42").unwrap();
        p.bindings.push(BindingOverride {
            name: "input_dash".into(),
            combine: Some(CombineMode::AlwaysCombine),
            ..Default::default()
        });
        let text = p.to_ron();
        assert_eq!(Preset::from_ron(&text, "roundtrip").unwrap(), p);
    }
}
