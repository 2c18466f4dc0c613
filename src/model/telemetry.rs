//! The typed telemetry stream. The model appends events stamped with the emitting machine's
//! own clock; whoever drives the model (harness or live runtime) re-stamps them with session
//! time and passes them on. Everything downstream (summary, plots, recordings) reads only this.

use glam::DVec3;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::messages::MsgKind;
use super::pawn::{Execution, OneShotKind, PawnValues};
use super::wire::DecodeError;

/// Which machine an event happened on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Machine {
    Server,
    Client(u16),
}

impl std::fmt::Display for Machine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Machine::Server => write!(f, "server"),
            Machine::Client(i) => write!(f, "client {i}"),
        }
    }
}

/// GMC's hooks (the hook trace).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Hook {
    BindReplicationData,
    PreLocalMoveExecution,
    GenPredictionTick,
    GenAncillaryTick,
    GenSimulationTick,
    OnSyncDataApplied,
    WorldTickEnd,
    /// A pawn other than the one moving was rolled back to the mover's view time
    /// (bRollBackServerPawns / bRollBackClientPawns).
    OnPawnRolledBack,
}

/// The context OnSyncDataApplied reports (names after GMC's `EGMC_NetContext` where the source
/// document gives them; the others are the simulator's).
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NetContext {
    LocalClientPawn_PreLocalMoveExecution,
    LocalClientPawn_PostLocalMoveExecution,
    LocalClientPawn_ServerStateAdopted,
    LocalClientPawn_PreReplayMoveExecution,
    LocalClientPawn_PostReplayMoveExecution,
    ServerPawn_PreRemoteMoveExecution,
    ServerPawn_PostRemoteMoveExecution,
    RemoteClientPawn_Simulation,
    RollbackSwap,
    /// Around a local move of a pawn the server controls (AI, listen host, standalone); the
    /// document names no context for these loads, so these two names are the simulator's.
    ServerPawn_PreLocalMoveExecution,
    ServerPawn_PostLocalMoveExecution,
}

/// A pawn's net role on one machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The owning client's pawn, predicted.
    AutonomousProxy,
    /// The owning client's pawn with bUseClientPrediction off: smoothed like a proxy.
    AutonomousProxyNotPredicted,
    SimulatedProxy,
    LocallyControlledServerPawn,
    RemotelyControlledServerPawn,
    /// A remote pawn as a listen-server host displays it (authoritative, smoothed for display).
    SmoothedListenServerPawn,
}

/// What a pawn sample shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum SampleKind {
    /// The owning client's predicted pawn.
    Predicted,
    /// A simulated proxy as this machine displays it (or a listen host's smoothed pawn).
    Displayed,
    /// The server's authoritative pawn.
    Authoritative,
}

/// Who noticed a deviation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DetectedBy {
    /// A client-validated value differed from the server's acknowledgement.
    Client,
    /// A server-validated value the client sent differed from the server's result.
    Server,
}

/// A correction's replay depth when the record cannot say it (a game log without the lines
/// that count it): views and the doctor show "not in the log", never a number.
pub const REPLAY_DEPTH_UNKNOWN: u16 = u16::MAX;

pub use super::deviation::Deviation;

/// Why a received datagram was not acted on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Rejection {
    /// Its sequence number was seen before.
    Duplicate,
    /// It could not be decoded.
    Malformed(DecodeError),
    /// Live sessions: not even a laminar datagram; dropped before the transport.
    Foreign,
    /// Live sessions: from an address that is not the expected peer's (a client hears only its
    /// server; the server hears a client's messages only from the address it joined from).
    WrongSource,
    /// Live sessions: from an address the server did not admit (no valid join in time, or too
    /// many unknown addresses at once).
    Unadmitted,
    /// Live sessions: over the sender's rate limit.
    RateLimited,
    /// A join without its client's proof of exactly that join (a stranger's, or one rewritten
    /// from a captured join: another id, a newer incarnation, another binding list).
    ForgedJoin,
    /// A join for a client id the session cannot have.
    ClientIdOutOfRange,
    /// A join older than the incarnation the client joined with (a replay).
    StaleJoin,
    /// Live sessions: a join for a client joined from another address that is not a newer
    /// incarnation of it (a replay from elsewhere).
    ReplayedJoin,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LogLevel {
    Warning,
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PacketFate {
    /// Left the sender (counted once per transmission, retransmissions included).
    Sent,
    Dropped,
    /// The link delivers an extra copy.
    Duplicated,
    /// A copy arrived at the receiver.
    Delivered,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Event {
    /// A frame ran on this machine; `dt` is the frame delta.
    Frame {
        dt: f64,
    },
    /// Client: a key press of the dash input (raw input, before combining).
    DashPressed,
    /// Client: a move was completed (no further frame will be merged into it).
    MoveClosed {
        move_id: u32,
        timestamp: f64,
        delta: f64,
        frames: u16,
        substeps: u16,
    },
    /// Client: a batch of moves left for the server.
    MovesSent {
        new_moves: u16,
        resent_moves: u16,
        /// Bits of the bound values the batch carries (its bit-packed minimum).
        value_bits: u32,
        /// Bytes of the datagrams, headers included.
        bytes: u32,
        reliable: bool,
        pending_reliable: u16,
    },
    /// Server: a move received from a client was executed.
    RemoteMoveExecuted(Arc<RemoteMove>),
    /// Server: a pawn it controls executed a local move.
    LocalMoveExecuted {
        pawn: u16,
        delta: f64,
        substeps: u16,
    },
    /// Server: moves `from..=to` never arrived in time and were skipped (the pawn will
    /// diverge from the client's prediction).
    MovesSkipped {
        client: u16,
        from: u32,
        to: u32,
    },
    /// Server: end of a frame, with the number of remote moves it executed.
    ServerFrame {
        remote_moves: u16,
    },
    /// Client: a correction was adopted and pending moves replayed.
    Correction {
        move_id: u32,
        detected_by: DetectedBy,
        deviations: Box<[Deviation]>,
        replay_depth: u16,
        replayed: bool,
    },
    /// Server: a correction was sent to a client.
    CorrectionSent {
        client: u16,
        move_id: u32,
        deviations: u16,
    },
    /// Server: a client joined (or rejoined after it restarted) and controls `pawn`.
    Joined {
        client: u16,
        pawn: u16,
        rejoin: bool,
    },
    /// Server: the turret hit a pawn (an unpredictable, server-decided outcome).
    TurretHit {
        pawn: u16,
    },
    OneShot {
        pawn: u16,
        /// The controlling client when the pawn is a player's.
        owner: Option<u16>,
        kind: OneShotKind,
        exec: Execution,
    },
    SideEffect {
        pawn: u16,
        owner: Option<u16>,
        kind: OneShotKind,
        exec: Execution,
    },
    /// Client: round-trip time measured by a ping.
    Rtt {
        rtt: f64,
    },
    /// Client: its synchronized clock was re-synced from a world-time update.
    ClockSync {
        synced_time: f64,
        latency_estimate: f64,
    },
    /// Harness/runtime: the client's synchronized clock minus the server's clock at the same
    /// instant (the error a designer aligning logs would see).
    ClockOffset {
        offset: f64,
    },
    /// Harness/runtime: one packet event on a link.
    Packet {
        from: Machine,
        to: Machine,
        bytes: u32,
        fate: PacketFate,
        kind: MsgKind,
    },
    /// A received datagram was dropped (duplicate or malformed).
    Rejected {
        reason: Rejection,
    },
    /// Where a machine shows a pawn (sampled at `world_view_rate`, for the world view).
    /// Behind an `Arc`: the largest event would otherwise make every record a third larger,
    /// and a record is cloned (recorder, app) without allocating.
    PawnSample(Arc<PawnSample>),
    /// A pawn's role on this machine (once, when the machine first has the pawn).
    Role {
        pawn: u16,
        role: Role,
    },
    /// Hook trace (only when switched on): one hook invocation.
    Hook {
        hook: Hook,
        pawn: u16,
        move_id: u32,
        iteration: u16,
        exec: Option<Execution>,
        context: Option<NetContext>,
    },
    /// Client/host: a simulated proxy came into existence; `actor_team` is the spawn data that
    /// came as an ordinary actor property (0: none).
    ProxySpawned {
        pawn: u16,
        owner: Option<u16>,
        actor_team: u8,
    },
    ProxyDespawned {
        pawn: u16,
    },
    /// Client/host, every 50 ms: how the proxies were displayed over the frames since the
    /// last sample.
    ProxiesDisplayed(Arc<ProxiesDisplayed>),
    /// A proxy played the dash effect (GenSimulationTick saw `dash_count` change).
    ProxyEffect {
        pawn: u16,
    },
    /// The owning client detected its pawn's dash transition.
    TransitionDetected {
        pawn: u16,
        in_sync_applied: bool,
    },
    /// Server: a PeriodicAndOnChange value changed and forced a state update.
    ForcedUpdate {
        pawn: u16,
        binding: Arc<str>,
    },
    /// Client: its dash tagged `target` as the client displays the other pawns (`None`: it
    /// saw nobody in reach).
    HitClaim {
        move_id: u32,
        target: Option<u16>,
    },
    /// Server: its verdict on the same dash, with the other pawns rolled back to the client's
    /// view time or not.
    HitCheck {
        client: u16,
        move_id: u32,
        target: Option<u16>,
        rolled_back: bool,
    },
    /// A LogGMC-style line.
    Log {
        level: LogLevel,
        text: String,
    },
    /// Value trace (only when switched on): one move execution's values.
    MoveValues(Arc<MoveValues>),
    /// Live sessions: someone changed the running session (a setting, the binding list, a
    /// client added or restarted). Stamped with the server as machine.
    SessionChanged {
        what: String,
    },
    /// Client/host, with the buffer trace on: a state of a simulated proxy arrived — its
    /// server timestamp, and this machine's synchronized server time at arrival.
    ProxyState {
        pawn: u16,
        state_time: f64,
        server_now: f64,
    },
    /// Client/host, with the buffer trace on: how a simulated proxy is displayed changed — a
    /// new display delay (a re-sync, or the first), or it started or stopped extrapolating or
    /// waiting. Holds until the next one for the pawn.
    ProxyDisplay {
        pawn: u16,
        delay: f64,
        mode: DisplayMode,
    },
    /// A participant of a hosted session: the real round trip between it and the host,
    /// measured on the control channel (not subject to the simulated link conditions).
    RealRtt {
        rtt: f64,
    },
    /// Server: a client was cut off and its pawn removed; `why` says how (nothing heard for
    /// 5 s, …). A later `Joined` for the same client is its return. (A host's participant
    /// that says it leaves is not cut off: the host logs it as left.)
    ClientDropped {
        client: u16,
        why: String,
    },
    /// Live sessions: the binding list in force from now on, after a change made while the
    /// session ran (a lesson's "Do it", a pitfall switch that changes the list, a binding
    /// edit). Stamped with the server as machine; a recording's header holds the list it
    /// started with, so the doctor judges each correction by the list of its time.
    BindingsInForce {
        list: Arc<Vec<super::binding::Binding>>,
    },
    /// A game log (imported sessions): what GMC printed about one move on one machine, kept
    /// for the moves around each desync.
    LoggedMove(Arc<super::logged::LoggedMove>),
    /// A game log: one side's validation of a move failed, with the lines that say so (on the
    /// server: GMC marked the move invalid; it replicates one reply per net update, for the
    /// last move executed, so this move's own reply need not be the one the client receives).
    LoggedCheck(Arc<super::logged::LoggedCheck>),
    /// A game log: what the imported logs hold (once, at the start). Stamped with the server.
    LogContents(Arc<super::logged::LogContents>),
    /// Server, after a [`Event::HitCheck`] that tagged a pawn: what the check read of its
    /// target during the move — the bound state a rollback loaded (`rolled_back`), else the
    /// present one. Last of the variants, so recordings made before it still read.
    HitTargetRead(Arc<HitRead>),
}

/// What a server's hit check read of its target ([`Event::HitTargetRead`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HitRead {
    pub client: u16,
    pub move_id: u32,
    pub target: u16,
    /// The server time of the state read: the client's view time when rolled back.
    pub seen_at: f64,
    pub location: DVec3,
    pub velocity: DVec3,
    /// The target's bound flag `input_dash` as read.
    pub dashing: bool,
    pub rolled_back: bool,
}

/// How a simulated proxy is shown (the buffer trace).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DisplayMode {
    /// Between two buffered states.
    Interpolating,
    /// Past the newest state (the buffer ran dry).
    Extrapolating,
    /// Inside PostSpawnSmoothingPause, or nothing buffered yet.
    Waiting,
}

/// Server: a move received from a client was executed. (Behind an `Arc` in `Event`, like
/// the other events with more than 24 bytes of fields, so every record stays small.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RemoteMove {
    pub pawn: u16,
    pub client: u16,
    pub move_id: u32,
    pub timestamp: f64,
    pub delta: f64,
    pub substeps: u16,
    /// Server time minus the move timestamp.
    pub age: f64,
}

/// Client/host, every 50 ms: how the proxies were displayed over the frames since the last
/// sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProxiesDisplayed {
    /// Proxies, and those inside PostSpawnSmoothingPause, at the last frame.
    pub proxies: u16,
    pub paused: u16,
    /// Mean and largest display delay of the proxies showing replicated state (s).
    pub delay_mean: f64,
    pub delay_max: f64,
    /// Proxy-seconds spent extrapolating.
    pub extrapolation_seconds: f64,
    /// Proxy-frames shown without a team.
    pub team_unknown_frames: u32,
    /// Frames folded into this sample.
    pub frames: u16,
}

/// Where a machine shows a pawn at one instant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PawnSample {
    pub pawn: u16,
    pub owner: Option<u16>,
    pub kind: SampleKind,
    pub location: glam::DVec3,
    pub velocity: glam::DVec3,
    pub yaw: f64,
}

impl PawnSample {
    /// Grid of sampled locations (cm): 1 mm, far below what the world view draws (a pixel is
    /// 2 cm or more) or the doctor's crowd radius (120 cm) resolves.
    pub const LOCATION_STEP: f64 = 0.1;
    /// Grid of sampled velocities (cm/s): 1 mm/s (the world view's velocity arrows).
    pub const VELOCITY_STEP: f64 = 0.1;
    /// Grid of sampled yaws (degrees).
    pub const YAW_STEP: f64 = 0.01;

    /// A sample on the grids above. Samples are for the world view only (the model never
    /// reads them); on a grid they are whole numbers of steps, which recordings store as small
    /// integer deltas, and a re-simulation produces them bit for bit.
    pub fn on_grid(
        pawn: u16,
        owner: Option<u16>,
        kind: SampleKind,
        location: glam::DVec3,
        velocity: glam::DVec3,
        yaw: f64,
    ) -> PawnSample {
        let snap = |x: f64, step: f64| {
            let k = (x / step).round();
            if k.is_finite() && k.abs() < 1e15 {
                // (+ 0.0: no negative zero, which a whole number of steps cannot say.)
                k * step + 0.0
            } else {
                x
            }
        };
        let v3 = |v: glam::DVec3, step: f64| {
            glam::DVec3::new(snap(v.x, step), snap(v.y, step), snap(v.z, step))
        };
        PawnSample {
            pawn,
            owner,
            kind,
            location: v3(location, Self::LOCATION_STEP),
            velocity: v3(velocity, Self::VELOCITY_STEP),
            yaw: snap(yaw, Self::YAW_STEP),
        }
    }

    /// The event of a sample of `values` (its location, velocity and yaw, on the grids).
    #[inline(always)]
    pub fn event(pawn: u16, owner: Option<u16>, kind: SampleKind, values: &PawnValues) -> Event {
        Event::PawnSample(Arc::new(PawnSample::on_grid(
            pawn,
            owner,
            kind,
            values.location,
            values.velocity,
            values.rotation.y,
        )))
    }
}

/// The pawn's members (bound or not) around one execution of a move: when GenPredictionTick
/// began (the input loaded, the start state in place), after each sub-step, and at the end —
/// what the client keeps as its prediction, or what the server validates and acknowledges.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveValues {
    pub pawn: u16,
    /// The controlling client.
    pub owner: Option<u16>,
    pub move_id: u32,
    /// Live, Combined and Replay on the owning client; Remote on the server.
    pub exec: Execution,
    pub entry: PawnValues,
    /// After each GenPredictionTick iteration, in order.
    pub substeps: Vec<PawnValues>,
    pub exit: PawnValues,
}

impl Event {
    /// A hook-trace event.
    pub fn hook(
        hook: Hook,
        pawn: u16,
        move_id: u32,
        iteration: u16,
        exec: Option<Execution>,
        context: Option<NetContext>,
    ) -> Event {
        Event::Hook {
            hook,
            pawn,
            move_id,
            iteration,
            exec,
            context,
        }
    }
}

/// An event with session time and machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Seconds since the session started (the harness's or runtime's clock).
    pub t: f64,
    pub machine: Machine,
    pub event: Event,
}

#[cfg(test)]
mod tests {
    /// Every record is copied several times on its way (model, driver, channel, store,
    /// recorder): large events sit behind an `Arc`, so a record stays small and clones
    /// without allocating.
    #[test]
    fn records_stay_small() {
        assert!(std::mem::size_of::<super::Event>() <= 32);
        assert!(std::mem::size_of::<super::Record>() <= 48);
    }
}
