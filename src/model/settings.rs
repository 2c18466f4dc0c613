//! GMC settings (with GMC's defaults), pitfall switches and world rules. All of them are
//! plain data: presets carry them, the UI edits them, the model reads them.

use serde::{Deserialize, Serialize};

/// The GMC settings the move cycle reads. Defaults are GMC 2.x's (model-facts.md), except
/// where docs/model.md says the simulator chose a value because GMC's is unknown.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GmcSettings {
    /// MaxTimeStep (s): a move whose delta is larger is sub-stepped into slices of at most this.
    pub max_time_step: f64,
    /// MaxIterations: at most this many sub-steps per move.
    pub max_iterations: u16,
    /// MaxMoveDeltaTime (s): a move's delta (from timestamps) is clamped to this.
    pub max_move_delta_time: f64,
    /// MaxCombinedDeltaTime (s): a pending move absorbs frames while its delta stays within this.
    pub max_combined_delta_time: f64,
    /// MoveHistoryMaxSize: moves kept on the client for replay.
    pub move_history_max_size: usize,
    /// ClientSendRate (1/s): completed moves are sent at most this often, batched.
    pub client_send_rate: f64,
    /// WorldTimeUpdateInterval (s): how often each world-time replicator sends the server clock.
    pub world_time_update_interval: f64,
    /// bUseClientReplay: re-execute pending moves after adopting a correction.
    pub use_client_replay: bool,
    /// ForceFullSyncDataValidation: list every deviating value, not only the first.
    pub force_full_validation: bool,
    /// Pending reliable move packets beyond which moves are sent unreliably (simulator's
    /// choice; GMC's threshold is not public).
    pub reliable_pending_threshold: usize,
    /// Seconds the server waits for a missing move before skipping it and executing the later
    /// ones (simulator's choice).
    pub move_gap_timeout: f64,
    /// Seconds between pings (simulator's choice).
    pub ping_interval: f64,
    /// PostSpawnSmoothingPause (s). Used by proxies (smoothing).
    pub post_spawn_smoothing_pause: f64,
    /// bUseClientPrediction.
    pub use_client_prediction: bool,
}

impl Default for GmcSettings {
    fn default() -> Self {
        GmcSettings {
            max_time_step: 0.04,
            max_iterations: 15,
            max_move_delta_time: 0.05,
            max_combined_delta_time: 0.03334,
            move_history_max_size: 256,
            client_send_rate: 30.0,
            world_time_update_interval: 0.01,
            use_client_replay: true,
            force_full_validation: false,
            reliable_pending_threshold: 24,
            move_gap_timeout: 2.0,
            ping_interval: 0.25,
            post_spawn_smoothing_pause: 1.0,
            use_client_prediction: true,
        }
    }
}

/// Pitfall switches: each reproduces one mistake from the source document. All off by default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Faults {
    /// The tick writes `move_ramp` but it is not bound: resets and replays do not restore it.
    pub unbound_member: bool,
    /// The tick reads the machine's world clock instead of the move timestamp.
    pub wall_clock_in_tick: bool,
    /// One-shots raised inside a move do not call CL_DoNotCombineNextMove().
    pub no_seal_after_one_shot: bool,
    /// The dash input is bound AlwaysCombine instead of CombineIfUnchanged.
    pub dash_always_combine: bool,
    /// Cosmetic side effects are not guarded by the live-move check.
    pub unguarded_side_effects: bool,
}

impl Faults {
    /// (key, one-line explanation) for every switch, in display order.
    pub const EXPLAINED: [(&'static str, &'static str); 5] = [
        (
            "unbound_member",
            "The tick writes `move_ramp` without binding it: combined re-runs and replays start from its newest value, so client and server diverge and corrections follow.",
        ),
        (
            "wall_clock_in_tick",
            "The tick reads the machine's clock (GetTime) instead of the move timestamp: the server runs the move later and computes a different result.",
        ),
        (
            "no_seal_after_one_shot",
            "One-shots raised from bound state do not seal the move: the next combined re-run starts from the state before the event and raises it again.",
        ),
        (
            "dash_always_combine",
            "The dash input is bound AlwaysCombine: a one-frame press in the middle of a combined move is replaced by the window's first value and the server never sees it.",
        ),
        (
            "unguarded_side_effects",
            "Cosmetic side effects play without the live-move check: every replay plays them again.",
        ),
    ];

    pub fn any(&self) -> bool {
        self.unbound_member
            || self.wall_clock_in_tick
            || self.no_seal_after_one_shot
            || self.dash_always_combine
            || self.unguarded_side_effects
    }
}

/// Rules of the demo world that are not GMC settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorldSettings {
    /// Every this many seconds the server's turret hits each player pawn with a knockback: an
    /// outcome decided on the server that the client cannot predict, so it is corrected and
    /// replays. 0 turns the turret off.
    pub turret_period_s: f64,
    /// Speed added by a turret hit (cm/s).
    pub turret_knockback: f64,
    /// Radius of the circle pawns spawn on (cm).
    pub spawn_radius: f64,
}

impl Default for WorldSettings {
    fn default() -> Self {
        WorldSettings {
            turret_period_s: 0.0,
            turret_knockback: 900.0,
            spawn_radius: 800.0,
        }
    }
}
