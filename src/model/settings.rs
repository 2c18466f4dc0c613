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
    /// bRollBackServerPawns: the server rolls other pawns back to a mover's view time while it
    /// checks that mover's hits.
    pub roll_back_server_pawns: bool,
    /// bRollBackClientPawns: a client replaying a move reads the other pawns as they were at
    /// that move's view time.
    pub roll_back_client_pawns: bool,
}

impl GmcSettings {
    /// The delta up to which a pending move absorbs frames: MaxCombinedDeltaTime, as in GMC —
    /// not capped at MaxMoveDeltaTime. A combined move longer than MaxMoveDeltaTime has its
    /// delta clamped and loses the rest of its frames' time: the pawn runs slow (the warning
    /// says so).
    pub fn combine_limit(&self) -> f64 {
        self.max_combined_delta_time
    }

    /// The share of real time a pawn keeps when every move combines up to the limit: the
    /// clamped delta over the combined one (1 when MaxCombinedDeltaTime is within
    /// MaxMoveDeltaTime).
    pub fn combined_time_kept(&self) -> f64 {
        if self.max_combined_delta_time > self.max_move_delta_time {
            self.max_move_delta_time / self.max_combined_delta_time
        } else {
            1.0
        }
    }

    /// The warning for a MaxCombinedDeltaTime above MaxMoveDeltaTime, if it is.
    pub fn combine_warning(&self) -> Option<String> {
        (self.max_combined_delta_time > self.max_move_delta_time).then(|| {
            format!(
                "MaxCombinedDeltaTime {} s is above MaxMoveDeltaTime {} s: a move combines frames \
                 up to {} s and its delta is then clamped to {} s, so the rest of its frames' \
                 time is lost and the pawn runs slow (down to {:.0} % of real time while frames \
                 combine fully), as in GMC",
                self.max_combined_delta_time,
                self.max_move_delta_time,
                self.max_combined_delta_time,
                self.max_move_delta_time,
                self.combined_time_kept() * 100.0
            )
        })
    }
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
            roll_back_server_pawns: true,
            roll_back_client_pawns: true,
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
    /// `dash_count`, which proxies need to play the dash effect, is bound SimulationMode None.
    pub proxy_value_not_simulated: bool,
    /// The pawn's `team` (needed at spawn) travels only as a bound value, not also as an
    /// ordinary actor property: proxies show no team during PostSpawnSmoothingPause.
    pub spawn_data_only_bound: bool,
    /// The dash transition is detected in OnSyncDataApplied instead of WorldTickEnd.
    pub transition_in_sync_applied: bool,
    /// The clients bind `rotation` before `location` (the server binds them in the usual
    /// order): every exchanged state is garbage.
    pub binding_mismatch: bool,
    /// The tick slows the pawn near other pawns, reading their transforms as this machine
    /// displays them.
    pub tick_reads_proxy_transform: bool,
    /// The tick integrates with the frame's delta time instead of the move's.
    pub frame_delta_in_tick: bool,
    /// The tick varies the speed with a random number from an unbound seed (each machine's
    /// own generator).
    pub unseeded_random_in_tick: bool,
    /// `move_ramp`, which the tick derives, is bound `ClientAuth_Input` instead of
    /// `ServerAuth_Output_ClientValidated`: the server takes each client's value as sent.
    pub derived_value_bound_as_input: bool,
}

impl Faults {
    /// The switches in [`Faults::EXPLAINED`] order.
    pub fn flags(&self) -> [bool; 13] {
        [
            self.unbound_member,
            self.wall_clock_in_tick,
            self.no_seal_after_one_shot,
            self.dash_always_combine,
            self.unguarded_side_effects,
            self.proxy_value_not_simulated,
            self.spawn_data_only_bound,
            self.transition_in_sync_applied,
            self.binding_mismatch,
            self.tick_reads_proxy_transform,
            self.frame_delta_in_tick,
            self.unseeded_random_in_tick,
            self.derived_value_bound_as_input,
        ]
    }

    /// Whether switch `i` of [`Faults::EXPLAINED`] is on.
    pub fn is_on(&self, i: usize) -> bool {
        self.flags().get(i).copied().unwrap_or(false)
    }

    /// (key, one-line explanation) for every switch, in display order.
    /// The switches in plain words, in [`Faults::EXPLAINED`] order (the identifier is the
    /// preset key, shown second).
    pub const TITLES: [&'static str; 13] = [
        "Member written, not bound",
        "Tick reads the clock",
        "One-shot without a seal",
        "Dash press combined away",
        "Side effects replayed",
        "Proxies lack a value",
        "Team only travels bound",
        "Dash found on every load",
        "Bindings differ by side",
        "Tick reads proxies",
        "Tick uses frame delta",
        "Tick uses unseeded random",
        "Derived value bound as input",
    ];

    pub const EXPLAINED: [(&'static str, &'static str); 13] = [
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
        (
            "proxy_value_not_simulated",
            "`dash_count` is bound SimulationMode None: it never reaches simulated proxies, so other players never see the dash effect.",
        ),
        (
            "spawn_data_only_bound",
            "The team travels only as a bound value: for PostSpawnSmoothingPause after a proxy spawns nothing replicated is applied, so it shows no team.",
        ),
        (
            "transition_in_sync_applied",
            "The dash transition is detected in OnSyncDataApplied: it fires with historical states on every load, replay and re-run, many times per real dash.",
        ),
        (
            "binding_mismatch",
            "The client binds `rotation` before `location`; the server does not: the two read each other's states with the wrong layout.",
        ),
        (
            "tick_reads_proxy_transform",
            "The tick slows the pawn near other pawns as this machine displays them: proxies are in the past, so client and server disagree.",
        ),
        (
            "frame_delta_in_tick",
            "The tick integrates with the frame's delta time instead of the move's: a combined move, a replay and the server's execution each use another frame's delta, so results differ.",
        ),
        (
            "unseeded_random_in_tick",
            "The tick varies the speed with a random number from an unbound seed: each machine draws its own, so every execution computes something else.",
        ),
        (
            "derived_value_bound_as_input",
            "`move_ramp`, which the tick derives, is bound ClientAuth_Input: the server runs each move with the ramp the client sent, so a client that sends a full ramp starts at full speed and nobody corrects it; while it ramps, every frame is a new move (the input changed).",
        ),
    ];

    pub fn any(&self) -> bool {
        *self != Faults::default()
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

/// How the session is hosted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetMode {
    /// A server with no local player; every player is a remote client.
    #[default]
    Dedicated,
    /// Client 0 plays on the server machine: its pawn is a locally controlled server pawn and
    /// the remote pawns are smoothed for display there.
    Listen,
    /// One player, no network: never predicted, replayed, combined or smoothed.
    Standalone,
}

/// `EGMC_SmoothingMode` as the simulator models it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SmoothingMode {
    /// Delay = latency estimate + an adaptive buffer, re-synced periodically (GMC's default).
    #[default]
    AdaptiveBufferedInterpolation,
    /// A fixed total delay (`fixed_delay`).
    FixedDelayInterpolation,
    /// Show the newest received state as it is.
    MatchLatest,
    /// Run the prediction tick as a simulated execution (`IsSimulatedMove`) from the newest
    /// state up to the present.
    ForwardSimulation,
    /// Run the prediction tick as a simulated execution (`IsSimulatedMove`) on a local copy
    /// of the proxy, one frame at a time, restarting from each newly received state
    /// (movescope's reading of GMC's LocalSimulation; docs/model.md).
    LocalSimulation,
}

impl SmoothingMode {
    /// The modes that run the prediction tick as simulated executions (`IsSimulatedMove`).
    pub fn simulates(self) -> bool {
        matches!(
            self,
            SmoothingMode::ForwardSimulation | SmoothingMode::LocalSimulation
        )
    }
}

/// What a proxy does when its buffer runs dry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExtrapolationMode {
    /// Hold the newest state.
    None,
    /// Continue along the newest velocity.
    #[default]
    DeadReckoning,
}

/// Smoothing of simulated proxies (GMC 2.x header defaults, model-facts.md).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SmoothingSettings {
    pub mode: SmoothingMode,
    /// Base buffer time (s) of adaptive smoothing.
    pub buffer_time: f64,
    /// The dynamic buffer stays within these (s).
    pub min_buffer_time: f64,
    pub max_buffer_time: f64,
    /// The total delay (latency + buffer) stays within these (s).
    pub min_delay: f64,
    pub max_delay: f64,
    /// Re-sync the applied delay about this often (s), give or take `resync_spread`.
    pub resync_interval: f64,
    pub resync_spread: f64,
    /// ... or as soon as the target delay differs from the applied one by more than this (s).
    pub resync_tolerance: f64,
    /// Total delay of FixedDelayInterpolation (s).
    pub fixed_delay: f64,
    pub extrapolation: ExtrapolationMode,
    /// Longest extrapolation (s) before the proxy holds.
    pub max_extrapolation_time: f64,
    /// Seconds to blend back from an extrapolated state.
    pub extrapolation_recovery_time: f64,
    /// Above this distance (cm) a proxy snaps instead of blending; negative disables.
    pub teleport_threshold: f64,
}

impl Default for SmoothingSettings {
    fn default() -> Self {
        SmoothingSettings {
            mode: SmoothingMode::AdaptiveBufferedInterpolation,
            buffer_time: 0.13,
            min_buffer_time: 0.05,
            max_buffer_time: 1.0,
            min_delay: 0.05,
            max_delay: 2.0,
            resync_interval: 2.0,
            resync_spread: 0.4,
            resync_tolerance: 0.1,
            fixed_delay: 0.15,
            extrapolation: ExtrapolationMode::DeadReckoning,
            max_extrapolation_time: 0.5,
            extrapolation_recovery_time: 0.3,
            teleport_threshold: 1000.0,
        }
    }
}
