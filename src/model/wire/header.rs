//! The datagram header (magic, protocol version, kind, sender, sequence number, layout
//! version): its constants and message kinds, writing and peeking it, why a datagram is
//! dropped ([`DecodeError`]), and the per-sender duplicate filter ([`SeqWindow`]).

use crate::model::messages::{HEADER_BYTES, MsgKind};

pub const MAGIC: [u8; 2] = *b"MS";
pub const PROTOCOL_VERSION: u8 = 2;
/// Sender id of the server.
pub const SERVER_SENDER: u16 = 0xFFFF;
/// No datagram may be larger than this (laminar must never fragment).
pub const MAX_DATAGRAM: usize = 1200;

pub(super) const K_JOIN: u8 = 1;
pub(super) const K_MOVES: u8 = 2;
pub(super) const K_PING: u8 = 3;
pub(super) const K_KEEPALIVE: u8 = 4;
pub(super) const K_WELCOME: u8 = 16;
pub(super) const K_ACK: u8 = 17;
pub(super) const K_CORRECTION: u8 = 18;
pub(super) const K_WORLD_TIME: u8 = 19;
pub(super) const K_PONG: u8 = 20;
pub(super) const K_RESET: u8 = 21;
pub(super) const K_PROXY_SPAWN: u8 = 22;
pub(super) const K_PROXY_DESPAWN: u8 = 23;
pub(super) const K_STATE_UPDATE: u8 = 24;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub sender: u16,
    pub seq: u32,
    pub layout: u8,
}

/// Why a datagram was dropped.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum DecodeError {
    /// A client message arrived at a client, or a server message at the server.
    WrongDirection,
    TooShort(usize),
    BadMagic,
    UnsupportedVersion(u8),
    UnknownKind(u8),
    UnknownLayout(u8),
    Truncated,
    TrailingBytes(usize),
    BadString,
    TooLarge(usize),
    /// A time no peer sends: not finite, or beyond [`MAX_TIME_S`].
    InsaneTime,
    /// A bound value that is not finite.
    InsaneValue,
}

/// Largest time (s) a datagram may carry: far past any session, far below where float steps
/// get coarse.
pub const MAX_TIME_S: f64 = 1.0e9;

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::WrongDirection => write!(f, "message sent in the wrong direction"),
            DecodeError::TooShort(n) => write!(f, "{n} bytes is shorter than the header"),
            DecodeError::BadMagic => write!(f, "not a movescope datagram (bad magic)"),
            DecodeError::UnsupportedVersion(v) => {
                write!(
                    f,
                    "protocol version {v}, this build speaks {PROTOCOL_VERSION}"
                )
            }
            DecodeError::UnknownKind(k) => write!(f, "unknown message kind {k}"),
            DecodeError::UnknownLayout(l) => write!(f, "unknown binding layout version {l}"),
            DecodeError::Truncated => write!(f, "message ends before its content"),
            DecodeError::TrailingBytes(n) => write!(f, "{n} unexpected bytes after the message"),
            DecodeError::BadString => write!(f, "a name is not valid UTF-8"),
            DecodeError::TooLarge(n) => write!(f, "{n} bytes is larger than any datagram"),
            DecodeError::InsaneTime => {
                write!(f, "a time that is not finite or beyond {MAX_TIME_S} s")
            }
            DecodeError::InsaneValue => write!(f, "a bound value that is not finite"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Duplicate filter over sequence numbers: remembers the newest 128. A number far below the
/// newest is taken as the peer having restarted (its numbering starts again).
#[derive(Clone, Debug, Default)]
pub struct SeqWindow {
    highest: Option<u32>,
    seen: u128,
}

impl SeqWindow {
    /// True the first time `seq` is seen.
    pub fn accept(&mut self, seq: u32) -> bool {
        let Some(high) = self.highest else {
            self.highest = Some(seq);
            self.seen = 1;
            return true;
        };
        if seq > high {
            let shift = seq - high;
            self.seen = if shift >= 128 { 0 } else { self.seen << shift };
            self.seen |= 1;
            self.highest = Some(seq);
            true
        } else {
            let back = high - seq;
            if back >= 1024 {
                // Far behind: the peer restarted its numbering.
                self.highest = Some(seq);
                self.seen = 1;
                true
            } else if back >= 128 {
                false
            } else {
                let bit = 1u128 << back;
                let fresh = self.seen & bit == 0;
                self.seen |= bit;
                fresh
            }
        }
    }
}

pub(super) fn header(kind: u8, h: &Header) -> [u8; HEADER_BYTES] {
    let mut out = [0u8; HEADER_BYTES];
    out[0..2].copy_from_slice(&MAGIC);
    out[2] = PROTOCOL_VERSION;
    out[3] = kind;
    out[4..6].copy_from_slice(&h.sender.to_le_bytes());
    out[6..10].copy_from_slice(&h.seq.to_le_bytes());
    out[10] = h.layout;
    out
}

/// A keep-alive datagram (header only).
pub fn encode_keepalive(h: &Header) -> Vec<u8> {
    header(K_KEEPALIVE, h).to_vec()
}

/// The message kind a datagram's header announces (`Transport` for keep-alives and unknown
/// kinds).
pub fn kind_of(bytes: &[u8]) -> MsgKind {
    match peek_header(bytes).map(|(k, _)| k) {
        Ok(K_JOIN) => MsgKind::Join,
        Ok(K_MOVES) => MsgKind::Moves,
        Ok(K_PING) => MsgKind::Ping,
        Ok(K_WELCOME) => MsgKind::Welcome,
        Ok(K_ACK) => MsgKind::Ack,
        Ok(K_CORRECTION) => MsgKind::Correction,
        Ok(K_WORLD_TIME) => MsgKind::WorldTime,
        Ok(K_PONG) => MsgKind::Pong,
        Ok(K_RESET) => MsgKind::Reset,
        Ok(K_PROXY_SPAWN) => MsgKind::ProxySpawn,
        Ok(K_PROXY_DESPAWN) => MsgKind::ProxyDespawn,
        Ok(K_STATE_UPDATE) => MsgKind::StateUpdate,
        _ => MsgKind::Transport,
    }
}

/// The first bytes of every join datagram (magic, version, kind): what the live transport's
/// gate looks for before it lets an unknown address reach laminar.
pub fn join_prefix() -> [u8; 4] {
    [MAGIC[0], MAGIC[1], PROTOCOL_VERSION, K_JOIN]
}

/// The incarnation a join datagram carries (`None` when `bytes` is not a join of this
/// protocol version): what the live server needs to tell a client's newer start from a replay
/// of its old join, before the datagram reaches the model.
pub fn join_incarnation(bytes: &[u8]) -> Option<u32> {
    match peek_header(bytes) {
        Ok((K_JOIN, _)) => bytes
            .get(HEADER_BYTES..HEADER_BYTES + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        _ => None,
    }
}

/// Reads the header only (to learn the sender and layout before decoding the body).
pub fn peek_header(bytes: &[u8]) -> Result<(u8, Header), DecodeError> {
    if bytes.len() > MAX_DATAGRAM {
        return Err(DecodeError::TooLarge(bytes.len()));
    }
    if bytes.len() < HEADER_BYTES {
        return Err(DecodeError::TooShort(bytes.len()));
    }
    if bytes[0..2] != MAGIC {
        return Err(DecodeError::BadMagic);
    }
    if bytes[2] != PROTOCOL_VERSION {
        return Err(DecodeError::UnsupportedVersion(bytes[2]));
    }
    let h = Header {
        sender: u16::from_le_bytes([bytes[4], bytes[5]]),
        seq: u32::from_le_bytes([bytes[6], bytes[7], bytes[8], bytes[9]]),
        layout: bytes[10],
    };
    Ok((bytes[3], h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seq_window_drops_duplicates_and_follows_restarts() {
        let mut w = SeqWindow::default();
        assert!(w.accept(10));
        assert!(!w.accept(10));
        assert!(w.accept(12));
        assert!(w.accept(11), "late but new");
        assert!(!w.accept(11));
        assert!(w.accept(500));
        assert!(!w.accept(300), "too old to tell: dropped");
        assert!(w.accept(5000));
        assert!(w.accept(1), "numbering restarted");
        assert!(w.accept(2));
        assert!(!w.accept(2));
    }
}
