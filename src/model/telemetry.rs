//! The typed telemetry stream. The model appends events stamped with the emitting machine's
//! own clock; whoever drives the model (harness or live runtime) re-stamps them with session
//! time and passes them on. Everything downstream (summary, plots, recordings) reads only this.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::binding::Value;
use super::messages::MsgKind;
use super::pawn::{Execution, OneShotKind};
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

/// Who noticed a deviation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DetectedBy {
    /// A client-validated value differed from the server's acknowledgement.
    Client,
    /// A server-validated value the client sent differed from the server's result.
    Server,
}

/// One bound value that deviated beyond its tolerance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Deviation {
    pub move_id: u32,
    pub binding: Arc<str>,
    /// What the client predicted (or claimed).
    pub predicted: Value,
    /// What the server computed.
    pub authoritative: Value,
    pub error: f64,
    pub tolerance: f64,
}

/// Why a received datagram was not acted on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Rejection {
    /// Its sequence number was seen before.
    Duplicate,
    /// It could not be decoded.
    Malformed(DecodeError),
    /// Live sessions: not even a laminar datagram; dropped before the transport.
    Foreign,
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
    Frame { dt: f64 },
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
    RemoteMoveExecuted {
        pawn: u16,
        client: u16,
        move_id: u32,
        timestamp: f64,
        delta: f64,
        substeps: u16,
        /// Server time minus the move timestamp.
        age: f64,
    },
    /// Server: a pawn it controls executed a local move.
    LocalMoveExecuted {
        pawn: u16,
        delta: f64,
        substeps: u16,
    },
    /// Server: moves `from..=to` never arrived in time and were skipped (the pawn will
    /// diverge from the client's prediction).
    MovesSkipped { client: u16, from: u32, to: u32 },
    /// Server: end of a frame, with the number of remote moves it executed.
    ServerFrame { remote_moves: u16 },
    /// Client: a correction was adopted and pending moves replayed.
    Correction {
        move_id: u32,
        detected_by: DetectedBy,
        deviations: Vec<Deviation>,
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
    TurretHit { pawn: u16 },
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
    Rtt { rtt: f64 },
    /// Client: its synchronized clock was re-synced from a world-time update.
    ClockSync {
        synced_time: f64,
        latency_estimate: f64,
    },
    /// Harness/runtime: the client's synchronized clock minus the server's clock at the same
    /// instant (the error a designer aligning logs would see).
    ClockOffset { offset: f64 },
    /// Harness/runtime: one packet event on a link.
    Packet {
        from: Machine,
        to: Machine,
        bytes: u32,
        fate: PacketFate,
        kind: MsgKind,
    },
    /// A received datagram was dropped (duplicate or malformed).
    Rejected { reason: Rejection },
    /// A LogGMC-style line.
    Log { level: LogLevel, text: String },
}

/// An event with session time and machine.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Record {
    /// Seconds since the session started (the harness's or runtime's clock).
    pub t: f64,
    pub machine: Machine,
    pub event: Event,
}
