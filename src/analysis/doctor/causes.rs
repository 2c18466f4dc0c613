//! The checklist of causes the doctor names: what each means, its title, and the pitfall
//! switches that produce it.

use serde::Serialize;

/// A cause from the checklist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// Client and server bind different lists: every exchanged state is garbage.
    BindingMismatch,
    /// A member the tick writes is not bound: replays and combined re-runs start from the
    /// wrong value.
    UnboundMember,
    /// A one-frame input was merged away (bound AlwaysCombine): the server never saw it.
    InputPulseLost,
    /// A one-shot raised from bound state fired again on a combined re-run (move not sealed).
    OneShotReRaised,
    /// The server decided something the client could not predict (a turret hit): an expected
    /// correction, not a bug.
    ServerDecidedOutcome,
    /// The server skipped moves that never arrived (loss or outage).
    MovesSkipped,
    /// No (or more than one) world-time replicator: timestamps in different clock domains.
    ClockDomains,
    /// The tick read other pawns as this machine displays them (proxies are in the past).
    ReadsDisplayedPawns,
    /// The tick depends on something that differs between client and server: wall-clock or
    /// world time, frame delta, unseeded random.
    NonDeterministicTick,
    /// The owning client predicted its first moves without a server-authoritative value it
    /// only gets with its first server update (spawn data that travels only bound).
    BeforeFirstServerUpdate,
    /// A server-authoritative value changed on the client between two of its moves, outside
    /// the move cycle (game code outside the prediction path, or a modified client): the
    /// server, which only runs the moves, never made that change.
    WrittenOutsideMove,
    /// A bound value changed on the server between two of the client's moves, outside the
    /// move cycle (a server-only system, gameplay code): the client, which only predicts the
    /// moves, cannot know.
    ServerWroteOutsideMove,
    /// The server ran the move with another delta time than the client (GMC derives it from
    /// consecutive timestamps: a clock re-sync, a move it never got, a clamp).
    DeltaTimeDiffers,
    /// A value sent with two decimals is compared with a tolerance below what they resolve
    /// (0.01 in each component): the machines agree only while their values round alike.
    ToleranceFinerThanWire,
}

impl Cause {
    pub fn explain(self) -> &'static str {
        match self {
            Cause::BindingMismatch => {
                "client and server bind different lists (order or set): every state they exchange is read with the wrong layout"
            }
            Cause::UnboundMember => {
                "a member the tick writes is not bound: replays and combined re-runs start from its newest value instead of the move's"
            }
            Cause::InputPulseLost => {
                "a one-frame input bound AlwaysCombine was merged away: the server never saw the press"
            }
            Cause::OneShotReRaised => {
                "a one-shot raised from bound state did not seal the move: the combined re-run raised it again"
            }
            Cause::ServerDecidedOutcome => {
                "the server decided an outcome the client cannot predict (a turret hit): an expected correction"
            }
            Cause::MovesSkipped => {
                "moves never reached the server in time (loss, outage) and were skipped"
            }
            Cause::ClockDomains => {
                "no single world-time replicator: client timestamps are in another clock domain than the server's"
            }
            Cause::ReadsDisplayedPawns => {
                "the tick reads other pawns as this machine displays them; proxies are shown in the past, so client and server see them in different places"
            }
            Cause::NonDeterministicTick => {
                "the tick reads something client and server do not share (wall-clock time, frame delta, unseeded random)"
            }
            Cause::WrittenOutsideMove => {
                "a server-authoritative value changed on the client between two of its moves, outside the move cycle (game code outside the prediction path, or a modified client); the server never made that change, and its state wins"
            }
            Cause::BeforeFirstServerUpdate => {
                "the owning client predicted its first moves before its first server update, without a server-authoritative value that only travels bound (it is not also an actor property)"
            }
            Cause::ServerWroteOutsideMove => {
                "a bound value changed on the server between two of the client's moves, outside the move cycle (a server-only system or gameplay code); the client predicts only the moves and cannot know"
            }
            Cause::DeltaTimeDiffers => {
                "the server ran the move with another delta time than the client (GMC derives it from consecutive move timestamps: a clock re-sync, a move it never got or a clamp changes it)"
            }
            Cause::ToleranceFinerThanWire => {
                "the value travels with two decimals but its tolerance is below what they resolve (0.01 in each component: 0.017 for a vector): the machines agree only while their values round to the same steps, so a gap far below anything shown (Unreal's one-decimal spawn transform, a correction's rounded value) becomes a correction, and each correction hands the client a rounded value again"
            }
        }
    }

    /// The checklist's order: ties between causes equally supported go to the earlier (the more
    /// specific explanation first).
    pub fn precedence(self) -> u8 {
        match self {
            Cause::BindingMismatch => 0,
            Cause::UnboundMember => 1,
            Cause::WrittenOutsideMove => 2,
            Cause::ServerDecidedOutcome => 3,
            Cause::ServerWroteOutsideMove => 4,
            Cause::BeforeFirstServerUpdate => 5,
            Cause::InputPulseLost => 6,
            Cause::OneShotReRaised => 7,
            Cause::MovesSkipped => 8,
            Cause::DeltaTimeDiffers => 9,
            Cause::ClockDomains => 10,
            Cause::ToleranceFinerThanWire => 11,
            Cause::ReadsDisplayedPawns => 12,
            Cause::NonDeterministicTick => 13,
        }
    }

    /// Every cause, in the checklist's order.
    pub const ALL: [Cause; 14] = [
        Cause::BindingMismatch,
        Cause::UnboundMember,
        Cause::WrittenOutsideMove,
        Cause::ServerDecidedOutcome,
        Cause::ServerWroteOutsideMove,
        Cause::BeforeFirstServerUpdate,
        Cause::InputPulseLost,
        Cause::OneShotReRaised,
        Cause::MovesSkipped,
        Cause::DeltaTimeDiffers,
        Cause::ClockDomains,
        Cause::ToleranceFinerThanWire,
        Cause::ReadsDisplayedPawns,
        Cause::NonDeterministicTick,
    ];

    /// The cause in a few plain words (its identifier is shown second).
    pub fn title(self) -> &'static str {
        match self {
            Cause::BindingMismatch => "Client and server bind different lists",
            Cause::UnboundMember => "A member the tick writes is not bound",
            Cause::InputPulseLost => "A one-frame input was combined away",
            Cause::OneShotReRaised => "A one-shot fired again on a re-run",
            Cause::ServerDecidedOutcome => "The server decided the outcome (expected)",
            Cause::MovesSkipped => "Moves were lost or late and skipped",
            Cause::ClockDomains => "Timestamps in another clock domain",
            Cause::ReadsDisplayedPawns => "The tick read pawns as displayed (in the past)",
            Cause::NonDeterministicTick => "The tick is not deterministic",
            Cause::BeforeFirstServerUpdate => "Predicted before the first server update",
            Cause::WrittenOutsideMove => "A bound value was written outside the move",
            Cause::ServerWroteOutsideMove => "The server changed a bound value between moves",
            Cause::DeltaTimeDiffers => "The server ran the move with another delta time",
            Cause::ToleranceFinerThanWire => "The tolerance is finer than the wire's rounding",
        }
    }

    /// Every preset setting that demonstrates this cause in movescope: pitfall switches by
    /// key, `world_time_replicators` (a lesson runs without exactly one), or
    /// `modified_client` (a lesson has a client override with `modified: true`).
    pub fn pitfalls(self) -> &'static [&'static str] {
        match self {
            Cause::NonDeterministicTick => &[
                "wall_clock_in_tick",
                "frame_delta_in_tick",
                "unseeded_random_in_tick",
            ],
            Cause::BindingMismatch => &["binding_mismatch"],
            Cause::UnboundMember => &["unbound_member"],
            Cause::InputPulseLost => &["dash_always_combine"],
            Cause::OneShotReRaised => &["no_seal_after_one_shot"],
            Cause::ReadsDisplayedPawns => &["tick_reads_proxy_transform"],
            Cause::BeforeFirstServerUpdate => &["spawn_data_only_bound"],
            Cause::WrittenOutsideMove => &["modified_client"],
            Cause::ClockDomains => &["world_time_replicators"],
            Cause::ServerDecidedOutcome
            | Cause::MovesSkipped
            | Cause::ServerWroteOutsideMove
            | Cause::DeltaTimeDiffers
            | Cause::ToleranceFinerThanWire => &[],
        }
    }

    /// The pitfall switch that demonstrates this cause in movescope (for lessons and tests).
    pub fn pitfall(self) -> Option<&'static str> {
        match self {
            Cause::BindingMismatch => Some("binding_mismatch"),
            Cause::UnboundMember => Some("unbound_member"),
            Cause::InputPulseLost => Some("dash_always_combine"),
            Cause::OneShotReRaised => Some("no_seal_after_one_shot"),
            Cause::ReadsDisplayedPawns => Some("tick_reads_proxy_transform"),
            Cause::NonDeterministicTick => Some("wall_clock_in_tick"),
            Cause::BeforeFirstServerUpdate => Some("spawn_data_only_bound"),
            Cause::WrittenOutsideMove => None,
            Cause::ClockDomains => Some("world_time_replicators"),
            Cause::ServerDecidedOutcome
            | Cause::MovesSkipped
            | Cause::ServerWroteOutsideMove
            | Cause::DeltaTimeDiffers
            | Cause::ToleranceFinerThanWire => None,
        }
    }
}
