//! movescope's wire format: a versioned header, then the message with every bound value
//! bit-packed at its wire size, in binding order. Pure (no IO); used by the live transport and
//! by tests. `encode_*(..).len()` always equals the model's `wire_bytes`.
//!
//! Header (11 bytes): magic `MS` (2), protocol version (1), kind (1), sender (2, client id or
//! 0xFFFF for the server), sequence number (4, per sender), binding layout version (1).

use std::sync::Arc;

use glam::{DVec2, DVec3};

use crate::model::binding::{
    Bindings, BoundType, FieldMask, InterpolationFunction, Value, hundredths, unzigzag, zigzag,
};
use crate::model::messages::{
    ClientMsg, DeviationReport, HEADER_BYTES, MsgKind, ProxyEntry, ServerMsg, WireMove,
};
use crate::model::pawn::{Field, PawnValues};

pub const MAGIC: [u8; 2] = *b"MS";
pub const PROTOCOL_VERSION: u8 = 1;
/// Sender id of the server.
pub const SERVER_SENDER: u16 = 0xFFFF;
/// No datagram may be larger than this (laminar must never fragment).
pub const MAX_DATAGRAM: usize = 1200;

const K_JOIN: u8 = 1;
const K_MOVES: u8 = 2;
const K_PING: u8 = 3;
const K_KEEPALIVE: u8 = 4;
const K_WELCOME: u8 = 16;
const K_ACK: u8 = 17;
const K_CORRECTION: u8 = 18;
const K_WORLD_TIME: u8 = 19;
const K_PONG: u8 = 20;
const K_RESET: u8 = 21;
const K_PROXY_SPAWN: u8 = 22;
const K_PROXY_DESPAWN: u8 = 23;
const K_STATE_UPDATE: u8 = 24;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub sender: u16,
    pub seq: u32,
    pub layout: u8,
}

/// A decoded datagram.
#[derive(Clone, Debug, PartialEq)]
pub enum Datagram {
    Client(ClientMsg),
    Server(ServerMsg),
    /// Transport-level keep-alive (carries no message).
    Keepalive,
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

/// Reads a 64-bit time and checks it is one a peer could send.
fn read_time(r: &mut BitReader) -> Result<f64, DecodeError> {
    let t = f64::from_bits(r.bits(64)?);
    if t.is_finite() && t.abs() <= MAX_TIME_S {
        Ok(t)
    } else {
        Err(DecodeError::InsaneTime)
    }
}

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

/// The binding list of messages that carry no bound values.
static NO_BINDINGS: std::sync::LazyLock<Bindings> = std::sync::LazyLock::new(Bindings::empty);

/// Little-endian bit writer (whole fields at a time through a 128-bit accumulator).
struct BitWriter {
    bytes: Vec<u8>,
    acc: u128,
    pending: u32,
    /// Bits written, header included.
    bit: usize,
}

impl BitWriter {
    #[cfg(test)]
    fn new(header: [u8; HEADER_BYTES]) -> Self {
        Self::reusing(Vec::new(), header, 64)
    }
    /// A writer into `bytes` (emptied first; a spare buffer whose allocation is reused).
    fn reusing(mut bytes: Vec<u8>, header: [u8; HEADER_BYTES], capacity: usize) -> Self {
        bytes.clear();
        bytes.reserve(capacity);
        bytes.extend_from_slice(&header);
        BitWriter {
            bytes,
            acc: 0,
            pending: 0,
            bit: HEADER_BYTES * 8,
        }
    }
    /// A writer that appends to `bytes` (counting bits from 0).
    #[cfg(test)]
    fn appending_to(bytes: Vec<u8>) -> Self {
        BitWriter {
            bytes,
            acc: 0,
            pending: 0,
            bit: 0,
        }
    }
    #[inline]
    fn bits(&mut self, value: u64, n: u32) {
        if n == 0 {
            return;
        }
        let v = if n >= 64 {
            value
        } else {
            value & ((1u64 << n) - 1)
        };
        self.acc |= u128::from(v) << self.pending;
        self.pending += n;
        self.bit += n as usize;
        if self.pending >= 64 {
            self.bytes
                .extend_from_slice(&(self.acc as u64).to_le_bytes());
            self.acc >>= 64;
            self.pending -= 64;
        }
    }
    /// A writer that appends to a bit stream of `bit_len` bits held in `bytes` (its last
    /// byte partly used when `bit_len` is not a whole number of bytes; bits above it zero),
    /// counting bits from 0.
    fn resuming(mut bytes: Vec<u8>, bit_len: usize) -> Self {
        let whole = bit_len / 8;
        let rest = (bit_len % 8) as u32;
        let acc = if rest > 0 {
            bytes.get(whole).map_or(0, |&b| b & ((1u8 << rest) - 1))
        } else {
            0
        };
        bytes.truncate(whole);
        BitWriter {
            bytes,
            acc: u128::from(acc),
            pending: rest,
            bit: 0,
        }
    }
    /// Appends `bits` bits written earlier by another writer (`bytes`, little-endian; bits
    /// past the first `bits`, and bytes past them, are ignored).
    #[cfg(test)]
    fn append(&mut self, bytes: &[u8], bits: usize) {
        self.append_range(bytes, 0, bits);
    }
    /// Appends the `bits` bits of the little-endian bit stream `src` from bit `start` (bits
    /// around them are ignored).
    fn append_range(&mut self, src: &[u8], start: usize, bits: usize) {
        // Whole words: `bits(word, 64)` each, with the pending bits (fewer than 64, those
        // above them zero) kept in a register rather than in `acc`.
        let full = bits / 64;
        self.bytes.reserve(full * 8 + 8);
        let p = self.pending;
        let mut low = self.acc as u64;
        let mut at = start;
        for _ in 0..full {
            let word = load64_at_bit(src, at);
            self.bytes
                .extend_from_slice(&(low | (word << p)).to_le_bytes());
            low = if p == 0 { 0 } else { word >> (64 - p) };
            at += 64;
        }
        self.acc = u128::from(low);
        self.bit += full * 64;
        let rest = (bits % 64) as u32;
        if rest > 0 {
            self.bits(load64_at_bit(src, at), rest);
        }
    }
    fn finish(mut self) -> Vec<u8> {
        let rest = self.pending.div_ceil(8) as usize;
        self.bytes
            .extend_from_slice(&(self.acc as u64).to_le_bytes()[..rest]);
        self.pending = 0;
        self.bytes
    }
}

/// State-update entries already encoded. The server sends the same pawn's entry of one
/// update to every client that knows the pawn; with this cache it is bit-packed once and its
/// bits are copied into every datagram (the bytes are identical to packing it again). An
/// entry is reused only when it is equal (pawn, forced flag, values) to one encoded for the
/// same layout version and server time; the owner clears the cache when a layout changes.
/// Entries are packed one after the other in one bit stream, so entries encoded in a row
/// that travel in a row (an update's list, less the client's own pawn) are copied at once.
#[derive(Clone, Debug, Default)]
pub struct EntryCache {
    key: Option<(u8, u64)>,
    /// (entry, first bit in `bytes`, bits).
    entries: Vec<(ProxyEntry, usize, usize)>,
    /// The bit stream of every entry, `bit_len` bits.
    bytes: Vec<u8>,
    bit_len: usize,
    /// By pawn id: 1 + the index in `entries` of that pawn's newest entry (0: none).
    by_pawn: Vec<u32>,
    /// The list of the current update that [`EntryCache::share`] encoded, and (first bit in
    /// `bytes`, bits) of each of its entries by index. Holding the list keeps its address
    /// from being reused, so a message's list that is the same allocation is this list.
    shared: Option<Arc<[ProxyEntry]>>,
    shared_at: Vec<(usize, usize)>,
}

impl EntryCache {
    /// Forgets every encoded entry.
    pub fn clear(&mut self) {
        self.key = None;
        self.entries.clear();
        self.bytes.clear();
        self.bit_len = 0;
        self.by_pawn.clear();
        self.shared = None;
        self.shared_at.clear();
    }

    /// Encodes every entry of `all` (an update's list, which the update's datagrams then
    /// pick from by index) and gives (first bit, bits) of each, by index.
    pub fn share(
        &mut self,
        b: &Bindings,
        layout: u8,
        server_time: f64,
        all: &Arc<[ProxyEntry]>,
    ) -> &[(usize, usize)] {
        let mut at = std::mem::take(&mut self.shared_at);
        at.clear();
        for e in all.iter() {
            at.push(self.encoded(b, layout, server_time, e));
        }
        // Encoding cleared the cache if the key changed; the list belongs to this key.
        self.shared = Some(all.clone());
        self.shared_at = at;
        &self.shared_at
    }

    /// Writes the picked entries of `all`, or `None` when `all` is not the list this cache
    /// shares for `layout` and `server_time` (the caller then writes them by value).
    fn write_shared(
        &self,
        w: &mut BitWriter,
        layout: u8,
        server_time: f64,
        all: &Arc<[ProxyEntry]>,
        picked: &[u16],
    ) -> Option<()> {
        if self.key != Some((layout, server_time.to_bits()))
            || !self.shared.as_ref().is_some_and(|s| Arc::ptr_eq(s, all))
        {
            return None;
        }
        // `all` is the shared list, so every index is within `shared_at`; checked anyway
        // before anything is written.
        if picked
            .iter()
            .any(|&i| usize::from(i) >= self.shared_at.len())
        {
            return None;
        }
        // Entries that lie one after the other in the stream are copied as one run.
        let mut run: Option<(usize, usize)> = None;
        for &i in picked {
            let (start, bits) = self.shared_at[usize::from(i)];
            run = match run {
                Some((from, len)) if from + len == start => Some((from, len + bits)),
                Some((from, len)) => {
                    w.append_range(&self.bytes, from, len);
                    Some((start, bits))
                }
                None => Some((start, bits)),
            };
        }
        if let Some((from, len)) = run {
            w.append_range(&self.bytes, from, len);
        }
        Some(())
    }

    /// (first bit in `bytes`, bits) of `e` encoded, encoding it if needed.
    #[inline]
    fn encoded(
        &mut self,
        b: &Bindings,
        layout: u8,
        server_time: f64,
        e: &ProxyEntry,
    ) -> (usize, usize) {
        // The usual case inline: the pawn's newest cached entry, for this update, is `e`.
        if self.key == Some((layout, server_time.to_bits()))
            && let Some(&hint) = self.by_pawn.get(usize::from(e.pawn))
            && let Some((c, start, bits)) = hint
                .checked_sub(1)
                .and_then(|i| self.entries.get(i as usize))
            && c == e
        {
            return (*start, *bits);
        }
        self.encoded_otherwise(b, layout, server_time, e)
    }

    /// [`EntryCache::encoded`] when `e` is not the pawn's newest cached entry.
    #[inline(never)]
    fn encoded_otherwise(
        &mut self,
        b: &Bindings,
        layout: u8,
        server_time: f64,
        e: &ProxyEntry,
    ) -> (usize, usize) {
        let key = (layout, server_time.to_bits());
        if self.key != Some(key) {
            self.clear();
            self.key = Some(key);
        }
        let slot = usize::from(e.pawn);
        let hint = self.by_pawn.get(slot).copied().unwrap_or(0) as usize;
        let found = match hint.checked_sub(1).and_then(|i| self.entries.get(i)) {
            Some(c) if c.0 == *e => Some(c),
            _ => self.entries.iter().find(|(c, ..)| c == e),
        };
        match found {
            Some(&(_, start, bits)) => (start, bits),
            None => {
                let start = self.bit_len;
                let mut ew = BitWriter::resuming(std::mem::take(&mut self.bytes), start);
                write_entry(&mut ew, b, e);
                let bits = ew.bit;
                self.bytes = ew.finish();
                self.bit_len = start + bits;
                self.entries.push((e.clone(), start, bits));
                if self.by_pawn.len() <= slot {
                    self.by_pawn.resize(slot + 1, 0);
                }
                self.by_pawn[slot] = self.entries.len() as u32;
                (start, bits)
            }
        }
    }

    fn write(
        &mut self,
        w: &mut BitWriter,
        b: &Bindings,
        layout: u8,
        server_time: f64,
        e: &ProxyEntry,
    ) {
        let (start, bits) = self.encoded(b, layout, server_time, e);
        w.append_range(&self.bytes, start, bits);
    }
}

fn write_entry(w: &mut BitWriter, b: &Bindings, e: &ProxyEntry) {
    // Pawn (16 bits), then the forced flag.
    w.bits(u64::from(e.pawn) | u64::from(e.forced) << 16, 17);
    if usual_simulated(b.simulated_list()) {
        write_usual_simulated(w, &e.values);
    } else {
        write_members(w, b, &e.values);
    }
}

/// The simulated members of `v`, one [`write_field`] each.
fn write_members(w: &mut BitWriter, b: &Bindings, v: &PawnValues) {
    for &(field, ty, _) in b.simulated_list() {
        write_field(w, ty, field, v);
    }
}

/// What [`write_field`] writes for each member of [`usual_simulated`] bindings in turn,
/// without a call and a dispatch per member.
#[inline(always)]
fn write_usual_simulated(w: &mut BitWriter, v: &PawnValues) {
    write_packed_n(w, v.location.to_array());
    write_packed_n(w, v.rotation.to_array());
    write_packed_n(w, v.velocity.to_array());
    write_packed_n(w, [f64::from(v.dash_cooldown)]);
    // Dash count, then team: 8 bits each.
    w.bits(u64::from(v.dash_count) | u64::from(v.team) << 8, 16);
}

/// Little-endian bit reader: a checked read is one unaligned 8-byte load (plus one byte for
/// reads that straddle it); an unchecked read (state-update entries) is one 16-byte load (a
/// 128-bit window, shifted to the bit, which also holds a whole packed vector); near the
/// end, the missing bytes read as zeros.
struct BitReader<'a> {
    bytes: &'a [u8],
    bit: usize,
}

/// The 8 bytes from `first` as a little-endian word (zeros past the end).
#[inline(always)]
fn load64(bytes: &[u8], first: usize) -> u64 {
    match bytes.get(first..first + 8) {
        Some(w) => u64::from_le_bytes(<[u8; 8]>::try_from(w).unwrap_or([0; 8])),
        None => load64_tail(bytes, first),
    }
}

/// The 64 bits of `bytes` from bit `at` (little-endian; zeros past the end).
#[inline(always)]
fn load64_at_bit(bytes: &[u8], at: usize) -> u64 {
    let (first, shift) = (at / 8, at % 8);
    let low = load64(bytes, first);
    if shift == 0 {
        low
    } else {
        let next = bytes.get(first + 8).copied().unwrap_or(0);
        (low >> shift) | (u64::from(next) << (64 - shift))
    }
}

#[cold]
#[inline(never)]
fn load64_tail(bytes: &[u8], first: usize) -> u64 {
    let tail = bytes.get(first..).unwrap_or(&[]);
    let mut word = 0u64;
    for (k, b) in tail.iter().take(8).enumerate() {
        word |= u64::from(*b) << (8 * k);
    }
    word
}

/// The 16 bytes from `first` as a little-endian word (zeros past the end).
#[inline(always)]
fn load128(bytes: &[u8], first: usize) -> u128 {
    match bytes.get(first..first + 16) {
        Some(w) => u128::from_le_bytes(<[u8; 16]>::try_from(w).unwrap_or([0; 16])),
        None => u128::from(load64(bytes, first)) | u128::from(load64(bytes, first + 8)) << 64,
    }
}

impl<'a> BitReader<'a> {
    fn new(bytes: &'a [u8], bit: usize) -> Self {
        BitReader { bytes, bit }
    }
    #[inline(always)]
    fn bits(&mut self, n: u32) -> Result<u64, DecodeError> {
        if n == 0 {
            return Ok(0);
        }
        if n > 64 || self.bit + n as usize > self.bytes.len() * 8 {
            return Err(DecodeError::Truncated);
        }
        let v = self.peek64();
        self.bit += n as usize;
        Ok(if n == 64 { v } else { v & ((1u64 << n) - 1) })
    }
    /// The next 121 bits (at least) without consuming them (zeros past the end).
    #[inline(always)]
    fn peek128(&self) -> u128 {
        load128(self.bytes, self.bit / 8) >> (self.bit % 8)
    }
    /// The next 64 bits without consuming them (zeros past the end).
    #[inline(always)]
    fn peek64(&self) -> u64 {
        let first = self.bit / 8;
        let off = (self.bit % 8) as u32;
        let mut v = load64(self.bytes, first) >> off;
        if off > 0 {
            v |= u64::from(self.bytes.get(first + 8).copied().unwrap_or(0)) << (64 - off);
        }
        v
    }
    /// `n` bits (at most 64) without a check: past the end they read as zeros and
    /// [`BitReader::overrun`] turns true; the caller checks it before anything else can fail
    /// (it stands for `DecodeError::Truncated` at the first read that went past the end).
    #[inline(always)]
    fn take(&mut self, n: u32) -> u64 {
        let v = self.peek128() as u64;
        self.advance(n);
        if n >= 64 { v } else { v & ((1u64 << n) - 1) }
    }
    /// Consumes `n` bits without a check (as [`BitReader::take`]).
    #[inline(always)]
    fn advance(&mut self, n: u32) {
        self.bit += n as usize;
    }
    /// A read without checks went past the end (the position only grows, so it is past the
    /// end from then on).
    #[inline(always)]
    fn overrun(&self) -> bool {
        self.bit > self.bytes.len() * 8
    }
    /// Consumes `n` bits, as `bits(n)` does.
    #[inline(always)]
    fn skip(&mut self, n: u32) -> Result<(), DecodeError> {
        if n > 64 || self.bit + n as usize > self.bytes.len() * 8 {
            return Err(DecodeError::Truncated);
        }
        self.bit += n as usize;
        Ok(())
    }
    fn finish(&self) -> Result<(), DecodeError> {
        let used = self.bit.div_ceil(8);
        if used < self.bytes.len() {
            Err(DecodeError::TrailingBytes(self.bytes.len() - used))
        } else {
            Ok(())
        }
    }
}

/// Per-batch facts the compact move encoding needs.
pub struct BatchMeta {
    /// Ids are first, first + 1, …: only the first is sent.
    pub consecutive: bool,
    /// Bits of each timestamp step (zigzag units).
    pub step_width: u32,
    /// Bits of each explicit delta (zigzag units).
    pub delta_width: u32,
    /// Per move: its delta equals the step from the previous move (one bit instead of a delta).
    pub delta_is_step: Vec<bool>,
}

fn width_of(v: u64) -> u32 {
    (64 - v.leading_zeros()).max(1)
}

/// [`batch_meta`] without the per-move list: the consecutive flag, the two widths, and how
/// many moves carry an explicit delta.
pub fn batch_widths(moves: &[WireMove]) -> (bool, u32, u32, usize) {
    use super::cycle::to_units;
    let consecutive = moves.windows(2).all(|w| w[1].id == w[0].id.wrapping_add(1));
    let mut step_width = 1;
    let mut delta_width = 1;
    let mut explicit = 0;
    for (i, m) in moves.iter().enumerate() {
        let delta = to_units(m.delta);
        if i == 0 {
            explicit += 1;
            delta_width = delta_width.max(width_of(zigzag(delta)));
        } else {
            let step = to_units(m.timestamp) - to_units(moves[i - 1].timestamp);
            step_width = step_width.max(width_of(zigzag(step)));
            if step != delta {
                explicit += 1;
                delta_width = delta_width.max(width_of(zigzag(delta)));
            }
        }
    }
    (
        consecutive,
        step_width.min(63),
        delta_width.min(63),
        explicit,
    )
}

pub fn batch_meta(moves: &[WireMove]) -> BatchMeta {
    use super::cycle::to_units;
    let consecutive = moves.windows(2).all(|w| w[1].id == w[0].id.wrapping_add(1));
    let mut step_width = 1;
    let mut delta_width = 1;
    let mut delta_is_step = Vec::with_capacity(moves.len());
    for (i, m) in moves.iter().enumerate() {
        let delta = to_units(m.delta);
        if i == 0 {
            delta_is_step.push(false);
            delta_width = delta_width.max(width_of(zigzag(delta)));
        } else {
            let step = to_units(m.timestamp) - to_units(moves[i - 1].timestamp);
            step_width = step_width.max(width_of(zigzag(step)));
            let same = step == delta;
            delta_is_step.push(same);
            if !same {
                delta_width = delta_width.max(width_of(zigzag(delta)));
            }
        }
    }
    BatchMeta {
        consecutive,
        step_width: step_width.min(63),
        delta_width: delta_width.min(63),
        delta_is_step,
    }
}

fn write_packed(w: &mut BitWriter, comps: &[f64]) {
    match *comps {
        [x] => write_packed_n(w, [x]),
        [x, y] => write_packed_n(w, [x, y]),
        [x, y, z, ..] => write_packed_n(w, [x, y, z]),
        [] => write_packed_n(w, []),
    }
}

#[inline]
fn write_packed_n<const N: usize>(w: &mut BitWriter, comps: [f64; N]) {
    let mut z = [0u64; N];
    let mut any = 0u64;
    for (zi, c) in z.iter_mut().zip(comps) {
        *zi = zigzag(hundredths(c));
        any |= *zi;
    }
    // The widest component decides the width: the highest bit set in any of them.
    let width = (64 - any.leading_zeros()).max(1);
    if 6 + width as usize * N <= 64 {
        // Common case: header and components in one field.
        let mut packed = u64::from(width);
        for (k, zi) in z.iter().enumerate() {
            packed |= zi << (6 + width as usize * k);
        }
        w.bits(packed, 6 + width * N as u32);
    } else {
        w.bits(u64::from(width), 6);
        for zi in &z {
            w.bits(*zi, width);
        }
    }
}

#[inline(always)]
fn read_packed<const N: usize>(r: &mut BitReader) -> Result<[f64; N], DecodeError> {
    let mut out = [0.0; N];
    // Common case: the width header and every component within the next 64 bits.
    let next = r.peek64();
    let width = (next & 63) as u32;
    if 6 + width as usize * N <= 64 {
        r.skip(6 + width * N as u32)?;
        let mask = (1u64 << width) - 1;
        for (k, c) in out.iter_mut().enumerate() {
            *c = unzigzag((next >> (6 + width as usize * k)) & mask) as f64 / 100.0;
        }
    } else {
        let width = r.bits(6)? as u32;
        for c in &mut out {
            *c = unzigzag(r.bits(width)?) as f64 / 100.0;
        }
    }
    Ok(out)
}

fn write_str(w: &mut BitWriter, s: &str) {
    let bytes = &s.as_bytes()[..s.len().min(255)];
    w.bits(bytes.len() as u64, 8);
    for b in bytes {
        w.bits(u64::from(*b), 8);
    }
}

fn read_str(r: &mut BitReader) -> Result<Arc<str>, DecodeError> {
    let n = r.bits(8)? as usize;
    let mut bytes = Vec::with_capacity(n);
    for _ in 0..n {
        bytes.push(r.bits(8)? as u8);
    }
    String::from_utf8(bytes)
        .map(Arc::from)
        .map_err(|_| DecodeError::BadString)
}

/// Writes one value at its bound type's wire size (`BoundType::wire_bits`).
fn write_value(w: &mut BitWriter, ty: BoundType, v: &Value) {
    match ty {
        BoundType::Bool => w.bits(u64::from(matches!(v, Value::Bool(true))), 1),
        BoundType::HalfByte => w.bits(u64::from(as_byte(v) & 0x0F), 4),
        BoundType::Byte => w.bits(u64::from(as_byte(v)), 8),
        BoundType::Int => w.bits(u64::from(as_int(v) as u32), 32),
        BoundType::Float => w.bits(u64::from((as_f64(v) as f32).to_bits()), 32),
        BoundType::TruncatedDouble => w.bits(u64::from((as_f64(v) as f32).to_bits()), 32),
        BoundType::Double => w.bits(as_f64(v).to_bits(), 64),
        BoundType::CompressedFloat | BoundType::CompressedDouble => write_packed(w, &[as_f64(v)]),
        BoundType::CompressedVector2D => {
            let x = match v {
                Value::Vec2(x) => *x,
                _ => DVec2::ZERO,
            };
            write_packed(w, &[x.x, x.y]);
        }
        BoundType::CompressedVector | BoundType::CompressedRotator => {
            let x = match v {
                Value::Vec3(x) => *x,
                _ => DVec3::ZERO,
            };
            write_packed(w, &[x.x, x.y, x.z]);
        }
        BoundType::ActorReference
        | BoundType::ActorComponentReference
        | BoundType::AnimMontageReference => {
            let id = match v {
                Value::ObjectRef(id) => *id,
                _ => 0,
            };
            w.bits(u64::from(id), 32);
        }
        BoundType::Name | BoundType::GameplayTag => match v {
            Value::Name(s) => write_str(w, s),
            _ => write_str(w, ""),
        },
        BoundType::GameplayTagContainer => {
            let tags: &[Arc<str>] = match v {
                Value::Tags(t) => t,
                _ => &[],
            };
            let n = tags.len().min(255);
            w.bits(n as u64, 8);
            for t in &tags[..n] {
                write_str(w, t);
            }
        }
        BoundType::InstancedStruct => {
            let bytes: &[u8] = match v {
                Value::Struct(b) => b,
                _ => &[],
            };
            let n = bytes.len().min(u16::MAX as usize);
            w.bits(n as u64, 16);
            for b in &bytes[..n] {
                w.bits(u64::from(*b), 8);
            }
        }
    }
}

fn finite_f32(bits: u32) -> Result<f32, DecodeError> {
    let v = f32::from_bits(bits);
    if v.is_finite() {
        Ok(v)
    } else {
        Err(DecodeError::InsaneValue)
    }
}

fn read_value(r: &mut BitReader, ty: BoundType) -> Result<Value, DecodeError> {
    Ok(match ty {
        BoundType::Bool => Value::Bool(r.bits(1)? == 1),
        BoundType::HalfByte => Value::Byte(r.bits(4)? as u8),
        BoundType::Byte => Value::Byte(r.bits(8)? as u8),
        BoundType::Int => Value::Int(r.bits(32)? as u32 as i32),
        BoundType::Float => Value::Float(finite_f32(r.bits(32)? as u32)?),
        BoundType::TruncatedDouble => Value::Double(f64::from(finite_f32(r.bits(32)? as u32)?)),
        BoundType::Double => {
            let v = f64::from_bits(r.bits(64)?);
            if !v.is_finite() {
                return Err(DecodeError::InsaneValue);
            }
            Value::Double(v)
        }
        BoundType::CompressedFloat => Value::Float(read_packed::<1>(r)?[0] as f32),
        BoundType::CompressedDouble => Value::Double(read_packed::<1>(r)?[0]),
        BoundType::CompressedVector2D => {
            let [x, y] = read_packed::<2>(r)?;
            Value::Vec2(DVec2::new(x, y))
        }
        BoundType::CompressedVector | BoundType::CompressedRotator => {
            let [x, y, z] = read_packed::<3>(r)?;
            Value::Vec3(DVec3::new(x, y, z))
        }
        BoundType::ActorReference
        | BoundType::ActorComponentReference
        | BoundType::AnimMontageReference => Value::ObjectRef(r.bits(32)? as u32),
        BoundType::Name | BoundType::GameplayTag => Value::Name(read_str(r)?),
        BoundType::GameplayTagContainer => {
            let n = r.bits(8)? as usize;
            let mut tags = Vec::with_capacity(n);
            for _ in 0..n {
                tags.push(read_str(r)?);
            }
            Value::Tags(tags.into())
        }
        BoundType::InstancedStruct => {
            let n = r.bits(16)? as usize;
            if n > MAX_DATAGRAM {
                return Err(DecodeError::Truncated);
            }
            let mut bytes = Vec::with_capacity(n);
            for _ in 0..n {
                bytes.push(r.bits(8)? as u8);
            }
            Value::Struct(bytes.into())
        }
    })
}

fn as_byte(v: &Value) -> u8 {
    match v {
        Value::Byte(b) => *b,
        _ => 0,
    }
}
fn as_int(v: &Value) -> i32 {
    match v {
        Value::Int(i) => *i,
        _ => 0,
    }
}
fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Float(f) => f64::from(*f),
        Value::Double(d) => *d,
        _ => 0.0,
    }
}

/// Writes `field` of `v` bound as `ty`: the same bits as `write_value(w, ty, &v.get(field))`,
/// without a `Value` for the demo pawn's members.
#[inline]
fn write_field(w: &mut BitWriter, ty: BoundType, field: Field, v: &PawnValues) {
    use BoundType as T;
    match (ty, field) {
        (T::CompressedVector | T::CompressedRotator, Field::Location) => {
            write_packed_n(w, v.location.to_array());
        }
        (T::CompressedVector | T::CompressedRotator, Field::Rotation) => {
            write_packed_n(w, v.rotation.to_array());
        }
        (T::CompressedVector | T::CompressedRotator, Field::Velocity) => {
            write_packed_n(w, v.velocity.to_array());
        }
        (T::CompressedVector2D, Field::InputMove) => write_packed_n(w, v.input_move.to_array()),
        (T::CompressedFloat | T::CompressedDouble, Field::DashCooldown) => {
            write_packed_n(w, [f64::from(v.dash_cooldown)]);
        }
        (T::CompressedFloat | T::CompressedDouble, Field::Stride) => {
            write_packed_n(w, [f64::from(v.stride)]);
        }
        (T::CompressedFloat | T::CompressedDouble, Field::MoveRamp) => {
            write_packed_n(w, [f64::from(v.move_ramp)]);
        }
        (T::Byte, Field::DashCount) => w.bits(u64::from(v.dash_count), 8),
        (T::Byte, Field::Team) => w.bits(u64::from(v.team), 8),
        (T::Bool, Field::InputDash) => w.bits(u64::from(v.input_dash), 1),
        _ => write_value(w, ty, &v.get(field)),
    }
}

/// Reads `field` bound as `ty` into `into`: the same as `into.set(field, &read_value(r, ty)?)`,
/// without a `Value` for the demo pawn's members.
#[inline(always)]
fn read_field(
    r: &mut BitReader,
    ty: BoundType,
    field: Field,
    into: &mut PawnValues,
) -> Result<(), DecodeError> {
    use BoundType as T;
    match (ty, field) {
        (T::CompressedVector | T::CompressedRotator, Field::Location) => {
            into.location = DVec3::from_array(read_packed::<3>(r)?);
        }
        (T::CompressedVector | T::CompressedRotator, Field::Rotation) => {
            into.rotation = DVec3::from_array(read_packed::<3>(r)?);
        }
        (T::CompressedVector | T::CompressedRotator, Field::Velocity) => {
            into.velocity = DVec3::from_array(read_packed::<3>(r)?);
        }
        (T::CompressedVector2D, Field::InputMove) => {
            into.input_move = DVec2::from_array(read_packed::<2>(r)?);
        }
        (T::CompressedFloat, Field::DashCooldown) => {
            into.dash_cooldown = read_packed::<1>(r)?[0] as f32;
        }
        (T::CompressedFloat, Field::Stride) => into.stride = read_packed::<1>(r)?[0] as f32,
        (T::CompressedFloat, Field::MoveRamp) => into.move_ramp = read_packed::<1>(r)?[0] as f32,
        (T::Byte, Field::DashCount) => into.dash_count = r.bits(8)? as u8,
        (T::Byte, Field::Team) => into.team = r.bits(8)? as u8,
        (T::Bool, Field::InputDash) => into.input_dash = r.bits(1)? == 1,
        _ => {
            let v = read_value(r, ty)?;
            into.set(field, &v);
        }
    }
    Ok(())
}

/// Packed components read with [`BitReader::take`].
#[inline(always)]
fn take_packed<const N: usize>(r: &mut BitReader) -> [f64; N] {
    let mut out = [0.0; N];
    // Common case: the width header and every component within one window.
    let next = r.peek128();
    let width = (next & 63) as u32;
    if 6 + width as usize * N <= 121 {
        r.advance(6 + width * N as u32);
        let mask = (1u64 << width) - 1;
        for (k, c) in out.iter_mut().enumerate() {
            *c = unzigzag((next >> (6 + width as usize * k)) as u64 & mask) as f64 / 100.0;
        }
    } else {
        r.advance(6);
        for c in &mut out {
            *c = unzigzag(r.take(width)) as f64 / 100.0;
        }
    }
    out
}

/// [`read_field`] for the usual (type, member) pairs, with unchecked reads (the caller checks
/// `overrun`); false, reading nothing, for the others.
#[inline(always)]
fn take_field(r: &mut BitReader, ty: BoundType, field: Field, into: &mut PawnValues) -> bool {
    use BoundType as T;
    match (ty, field) {
        (T::CompressedVector | T::CompressedRotator, Field::Location) => {
            into.location = DVec3::from_array(take_packed::<3>(r));
        }
        (T::CompressedVector | T::CompressedRotator, Field::Rotation) => {
            into.rotation = DVec3::from_array(take_packed::<3>(r));
        }
        (T::CompressedVector | T::CompressedRotator, Field::Velocity) => {
            into.velocity = DVec3::from_array(take_packed::<3>(r));
        }
        (T::CompressedVector2D, Field::InputMove) => {
            into.input_move = DVec2::from_array(take_packed::<2>(r));
        }
        (T::CompressedFloat, Field::DashCooldown) => {
            into.dash_cooldown = take_packed::<1>(r)[0] as f32;
        }
        (T::CompressedFloat, Field::Stride) => into.stride = take_packed::<1>(r)[0] as f32,
        (T::CompressedFloat, Field::MoveRamp) => into.move_ramp = take_packed::<1>(r)[0] as f32,
        (T::Byte, Field::DashCount) => into.dash_count = r.take(8) as u8,
        (T::Byte, Field::Team) => into.team = r.take(8) as u8,
        (T::Bool, Field::InputDash) => into.input_dash = r.take(1) == 1,
        _ => return false,
    }
    true
}

fn write_values(w: &mut BitWriter, b: &Bindings, v: &PawnValues, mask: FieldMask) {
    for bd in b.list() {
        if mask.contains(bd.field) {
            write_field(w, bd.ty, bd.field, v);
        }
    }
}

fn read_values(
    r: &mut BitReader,
    b: &Bindings,
    into: &mut PawnValues,
    mask: FieldMask,
) -> Result<(), DecodeError> {
    for bd in b.list() {
        if mask.contains(bd.field) {
            read_field(r, bd.ty, bd.field, into)?;
        }
    }
    Ok(())
}

fn header(kind: u8, h: &Header) -> [u8; HEADER_BYTES] {
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

/// Encodes a client message; `b` must be the binding list of `msg.layout()`.
pub fn encode_client(sender: u16, seq: u32, msg: &ClientMsg, b: &Bindings) -> Vec<u8> {
    encode_client_into(sender, seq, msg, b, Vec::new())
}

/// [`encode_client`] into `buf` (emptied first; the same bytes, its allocation reused).
pub fn encode_client_into(
    sender: u16,
    seq: u32,
    msg: &ClientMsg,
    b: &Bindings,
    buf: Vec<u8>,
) -> Vec<u8> {
    let h = &Header {
        sender,
        seq,
        layout: msg.layout(),
    };
    let kind = match msg {
        ClientMsg::Join { .. } => K_JOIN,
        ClientMsg::Moves { .. } => K_MOVES,
        ClientMsg::Ping { .. } => K_PING,
    };
    let mut w = BitWriter::reusing(buf, header(kind, h), 64);
    match msg {
        ClientMsg::Join { nonce, layout_hash } => {
            w.bits(u64::from(*nonce), 32);
            w.bits(u64::from(*layout_hash), 32);
        }
        ClientMsg::Moves {
            epoch,
            view_delay_ms,
            moves,
            ..
        } => {
            use super::cycle::to_units;
            let moves = &moves[..moves.len().min(255)];
            let meta = batch_meta(moves);
            w.bits(u64::from(*epoch), 32);
            w.bits(u64::from(*view_delay_ms), 16);
            w.bits(moves.len() as u64, 8);
            w.bits(u64::from(meta.consecutive), 1);
            w.bits(u64::from(moves.first().map_or(0, |m| m.id)), 32);
            w.bits(
                zigzag(moves.first().map_or(0, |m| to_units(m.timestamp))),
                48,
            );
            w.bits(u64::from(meta.step_width), 6);
            w.bits(u64::from(meta.delta_width), 6);
            for (i, m) in moves.iter().enumerate() {
                if !meta.consecutive {
                    w.bits(u64::from(m.id), 32);
                }
                if i > 0 {
                    let step = to_units(m.timestamp) - to_units(moves[i - 1].timestamp);
                    w.bits(zigzag(step), meta.step_width);
                    w.bits(u64::from(meta.delta_is_step[i]), 1);
                }
                if i == 0 || !meta.delta_is_step[i] {
                    w.bits(zigzag(to_units(m.delta)), meta.delta_width);
                }
                write_values(&mut w, b, &m.input, b.client_sends_input);
                write_values(&mut w, b, &m.output, b.client_sends_output);
            }
        }
        ClientMsg::Ping { seq, client_time } => {
            w.bits(u64::from(*seq), 32);
            w.bits(client_time.to_bits(), 64);
        }
    }
    w.finish()
}

/// Encodes a server message; `b` must be the binding list of `msg.layout()`.
pub fn encode_server(seq: u32, msg: &ServerMsg, b: &Bindings) -> Vec<u8> {
    encode_server_with(seq, msg, b, None, Vec::new())
}

/// [`encode_server`], reusing state-update entries encoded earlier (the same bytes).
pub fn encode_server_cached(
    seq: u32,
    msg: &ServerMsg,
    b: &Bindings,
    cache: &mut EntryCache,
) -> Vec<u8> {
    encode_server_with(seq, msg, b, Some(cache), Vec::new())
}

/// [`encode_server_cached`] into `buf` (emptied first; the same bytes, its allocation reused).
pub fn encode_server_cached_into(
    seq: u32,
    msg: &ServerMsg,
    b: &Bindings,
    cache: &mut EntryCache,
    buf: Vec<u8>,
) -> Vec<u8> {
    encode_server_with(seq, msg, b, Some(cache), buf)
}

fn encode_server_with(
    seq: u32,
    msg: &ServerMsg,
    b: &Bindings,
    mut cache: Option<&mut EntryCache>,
    buf: Vec<u8>,
) -> Vec<u8> {
    let h = &Header {
        sender: SERVER_SENDER,
        seq,
        layout: msg.layout(),
    };
    let kind = match msg {
        ServerMsg::Welcome { .. } => K_WELCOME,
        ServerMsg::Ack { .. } => K_ACK,
        ServerMsg::Correction { .. } => K_CORRECTION,
        ServerMsg::WorldTime { .. } => K_WORLD_TIME,
        ServerMsg::Pong { .. } => K_PONG,
        ServerMsg::Reset => K_RESET,
        ServerMsg::ProxySpawn { .. } => K_PROXY_SPAWN,
        ServerMsg::ProxyDespawn { .. } => K_PROXY_DESPAWN,
        ServerMsg::StateUpdate { .. } => K_STATE_UPDATE,
    };
    // Room for the usual size of each entry, so the buffer is not grown while writing.
    let capacity = match msg {
        ServerMsg::StateUpdate { entries, .. } => 32 + 40 * entries.len(),
        _ => 64,
    };
    let mut w = BitWriter::reusing(buf, header(kind, h), capacity.min(MAX_DATAGRAM + 8));
    match msg {
        ServerMsg::Welcome {
            pawn,
            spawn,
            replicators,
            server_time,
            ..
        } => {
            w.bits(u64::from(*pawn), 16);
            w.bits(u64::from(*replicators), 8);
            w.bits(server_time.to_bits(), 64);
            write_values(&mut w, b, spawn, b.bound);
        }
        ServerMsg::Ack {
            move_id, values, ..
        } => {
            w.bits(u64::from(*move_id), 32);
            write_values(&mut w, b, values, b.client_validated);
        }
        ServerMsg::Correction {
            move_id,
            epoch,
            state,
            deviations,
            ..
        } => {
            w.bits(u64::from(*move_id), 32);
            w.bits(u64::from(*epoch), 32);
            write_values(&mut w, b, state, b.server_auth);
            let n = deviations.len().min(255);
            w.bits(n as u64, 8);
            for d in &deviations[..n] {
                w.bits(u64::from(d.move_id), 32);
                w.bits(u64::from(d.binding as u8), 8);
                let ty = b
                    .list()
                    .get(d.binding as usize)
                    .map_or(BoundType::Bool, |x| x.ty);
                write_value(&mut w, ty, &d.client_value);
                write_value(&mut w, ty, &d.server_value);
            }
        }
        ServerMsg::WorldTime {
            replicator,
            server_time,
        } => {
            w.bits(u64::from(*replicator), 8);
            w.bits(server_time.to_bits(), 64);
        }
        ServerMsg::Pong { seq, client_time } => {
            w.bits(u64::from(*seq), 32);
            w.bits(client_time.to_bits(), 64);
        }
        ServerMsg::Reset => {}
        ServerMsg::ProxySpawn { pawn, owner, team } => {
            w.bits(u64::from(*pawn), 16);
            w.bits(u64::from(*owner), 16);
            w.bits(u64::from(*team), 8);
        }
        ServerMsg::ProxyDespawn { pawn } => w.bits(u64::from(*pawn), 16),
        ServerMsg::StateUpdate {
            server_time,
            entries,
            ..
        } => {
            w.bits(server_time.to_bits(), 64);
            let n = entries.len().min(255);
            w.bits(n as u64, 8);
            let shared = match (entries.shared_parts(), cache.as_deref()) {
                (Some((all, picked)), Some(c)) => {
                    c.write_shared(&mut w, h.layout, *server_time, all, &picked[..n])
                }
                _ => None,
            };
            if shared.is_none() {
                for e in entries.iter().take(n) {
                    match cache.as_deref_mut() {
                        Some(c) => c.write(&mut w, b, h.layout, *server_time, e),
                        None => write_entry(&mut w, b, e),
                    }
                }
            }
        }
    }
    w.finish()
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

/// Decodes a datagram. `layouts` maps the header's layout version to a binding list.
pub fn decode<'b>(
    bytes: &[u8],
    layouts: impl Fn(u8) -> Option<&'b Bindings>,
) -> Result<(Header, Datagram), DecodeError> {
    decode_reusing(bytes, layouts, &mut Vec::new())
}

/// [`decode`], with the state-update entries written into `entries`' buffer (taken; its
/// contents are dropped), so a receiver that hands the buffer back allocates none per
/// datagram.
pub fn decode_reusing<'b>(
    bytes: &[u8],
    layouts: impl Fn(u8) -> Option<&'b Bindings>,
    entries: &mut Vec<ProxyEntry>,
) -> Result<(Header, Datagram), DecodeError> {
    let (kind, h) = peek_header(bytes)?;
    let needs_layout = matches!(
        kind,
        K_MOVES | K_WELCOME | K_ACK | K_CORRECTION | K_STATE_UPDATE
    );
    let b: &Bindings = if needs_layout {
        layouts(h.layout).ok_or(DecodeError::UnknownLayout(h.layout))?
    } else {
        &NO_BINDINGS
    };
    let mut r = BitReader::new(bytes, HEADER_BYTES * 8);
    let msg = match kind {
        K_KEEPALIVE => Datagram::Keepalive,
        K_JOIN => Datagram::Client(ClientMsg::Join {
            nonce: r.bits(32)? as u32,
            layout_hash: r.bits(32)? as u32,
        }),
        K_MOVES => {
            use super::cycle::from_units;
            let epoch = r.bits(32)? as u32;
            let view_delay_ms = r.bits(16)? as u16;
            let n = r.bits(8)? as usize;
            let consecutive = r.bits(1)? == 1;
            let first_id = r.bits(32)? as u32;
            let mut ts_units = unzigzag(r.bits(48)?);
            let step_width = r.bits(6)? as u32;
            let delta_width = r.bits(6)? as u32;
            let mut moves: Vec<WireMove> = Vec::with_capacity(n.min(64));
            for i in 0..n {
                let id = if consecutive {
                    first_id.wrapping_add(i as u32)
                } else {
                    r.bits(32)? as u32
                };
                let mut delta_units = None;
                if i > 0 {
                    let step = unzigzag(r.bits(step_width)?);
                    ts_units = ts_units.wrapping_add(step);
                    if r.bits(1)? == 1 {
                        delta_units = Some(step);
                    }
                }
                let delta_units = match delta_units {
                    Some(d) => d,
                    None => unzigzag(r.bits(delta_width)?),
                };
                let mut input = PawnValues::default();
                read_values(&mut r, b, &mut input, b.client_sends_input)?;
                let mut output = PawnValues::default();
                read_values(&mut r, b, &mut output, b.client_sends_output)?;
                moves.push(WireMove {
                    id,
                    timestamp: from_units(ts_units),
                    delta: from_units(delta_units),
                    input,
                    output,
                });
            }
            Datagram::Client(ClientMsg::Moves {
                layout: h.layout,
                epoch,
                view_delay_ms,
                moves,
            })
        }
        K_PING => Datagram::Client(ClientMsg::Ping {
            seq: r.bits(32)? as u32,
            client_time: read_time(&mut r)?,
        }),
        K_WELCOME => {
            let pawn = r.bits(16)? as u16;
            let replicators = r.bits(8)? as u8;
            let server_time = read_time(&mut r)?;
            let mut spawn = PawnValues::default();
            read_values(&mut r, b, &mut spawn, b.bound)?;
            Datagram::Server(ServerMsg::Welcome {
                layout: h.layout,
                pawn,
                spawn,
                replicators,
                server_time,
            })
        }
        K_ACK => {
            let move_id = r.bits(32)? as u32;
            let mut values = PawnValues::default();
            read_values(&mut r, b, &mut values, b.client_validated)?;
            Datagram::Server(ServerMsg::Ack {
                layout: h.layout,
                move_id,
                values,
            })
        }
        K_CORRECTION => {
            let move_id = r.bits(32)? as u32;
            let epoch = r.bits(32)? as u32;
            let mut state = PawnValues::default();
            read_values(&mut r, b, &mut state, b.server_auth)?;
            let n = r.bits(8)? as usize;
            let mut deviations = Vec::with_capacity(n.min(16));
            for _ in 0..n {
                let dm = r.bits(32)? as u32;
                let binding = r.bits(8)? as u16;
                let ty = b
                    .list()
                    .get(binding as usize)
                    .map(|x| x.ty)
                    .ok_or(DecodeError::Truncated)?;
                let client_value = read_value(&mut r, ty)?;
                let server_value = read_value(&mut r, ty)?;
                deviations.push(DeviationReport {
                    move_id: dm,
                    binding,
                    client_value,
                    server_value,
                });
            }
            Datagram::Server(ServerMsg::Correction {
                layout: h.layout,
                move_id,
                epoch,
                state,
                deviations,
            })
        }
        K_WORLD_TIME => Datagram::Server(ServerMsg::WorldTime {
            replicator: r.bits(8)? as u8,
            server_time: read_time(&mut r)?,
        }),
        K_PONG => Datagram::Server(ServerMsg::Pong {
            seq: r.bits(32)? as u32,
            client_time: read_time(&mut r)?,
        }),
        K_RESET => Datagram::Server(ServerMsg::Reset),
        K_PROXY_SPAWN => Datagram::Server(ServerMsg::ProxySpawn {
            pawn: r.bits(16)? as u16,
            owner: r.bits(16)? as u16,
            team: r.bits(8)? as u8,
        }),
        K_PROXY_DESPAWN => Datagram::Server(ServerMsg::ProxyDespawn {
            pawn: r.bits(16)? as u16,
        }),
        K_STATE_UPDATE => {
            let server_time = read_time(&mut r)?;
            let n = r.bits(8)? as usize;
            let mut entries = std::mem::take(entries);
            entries.clear();
            entries.reserve(n.min(64));
            // A list takes every entry.
            read_entries(&mut r, b, server_time, n, &mut entries)?;
            Datagram::Server(ServerMsg::StateUpdate {
                layout: h.layout,
                server_time,
                entries: entries.into(),
            })
        }
        k => return Err(DecodeError::UnknownKind(k)),
    };
    r.finish()?;
    Ok((h, msg))
}

/// Where state-update entries are decoded to (see [`decode_state_update_into`]).
pub trait EntryTarget {
    /// The values entry `pawn` of the update stamped `server_time` is decoded into: the
    /// entry's simulated members are written there, the others keep what the target holds.
    /// `None` stops decoding (the caller then decodes the datagram with [`decode_reusing`]).
    fn entry(&mut self, server_time: f64, pawn: u16, forced: bool) -> Option<&mut PawnValues>;
}

/// A list takes every entry, each starting from default values.
impl EntryTarget for Vec<ProxyEntry> {
    #[inline]
    fn entry(&mut self, _server_time: f64, pawn: u16, forced: bool) -> Option<&mut PawnValues> {
        self.push(ProxyEntry {
            pawn,
            forced,
            values: PawnValues::default(),
        });
        self.last_mut().map(|e| &mut e.values)
    }
}

/// The demo pawn's usual simulated bindings: location, rotation, velocity, dash cooldown,
/// dash count and team, in that order, at their natural types (any type [`take_field`]
/// reads the same way).
fn usual_simulated(list: &[(Field, BoundType, InterpolationFunction)]) -> bool {
    use BoundType as T;
    let vector = |ty| matches!(ty, T::CompressedVector | T::CompressedRotator);
    matches!(
        list,
        [
            (Field::Location, l, _),
            (Field::Rotation, r, _),
            (Field::Velocity, v, _),
            (Field::DashCooldown, T::CompressedFloat, _),
            (Field::DashCount, T::Byte, _),
            (Field::Team, T::Byte, _),
        ] if vector(*l) && vector(*r) && vector(*v)
    )
}

/// The members of [`usual_simulated`] bindings read with [`BitReader::take`]: what
/// [`take_field`] reads for each of them in turn.
#[inline(always)]
fn take_usual_simulated(r: &mut BitReader, into: &mut PawnValues) {
    into.location = DVec3::from_array(take_packed::<3>(r));
    into.rotation = DVec3::from_array(take_packed::<3>(r));
    into.velocity = DVec3::from_array(take_packed::<3>(r));
    into.dash_cooldown = take_packed::<1>(r)[0] as f32;
    // Dash count, then team: 8 bits each.
    let bytes = r.take(16);
    into.dash_count = bytes as u8;
    into.team = (bytes >> 8) as u8;
}

/// Reads `n` state-update entries into `into`; false if it stopped taking them.
#[inline(always)]
fn read_entries(
    r: &mut BitReader,
    b: &Bindings,
    server_time: f64,
    n: usize,
    into: &mut impl EntryTarget,
) -> Result<bool, DecodeError> {
    let usual = usual_simulated(b.simulated_list());
    for _ in 0..n {
        // Pawn (16 bits), then the forced flag.
        let head = r.take(17);
        let (pawn, forced) = (head as u16, head >> 16 == 1);
        let Some(values) = into.entry(server_time, pawn, forced) else {
            return Ok(false);
        };
        if usual {
            take_usual_simulated(r, values);
        } else {
            for &(field, ty, _) in b.simulated_list() {
                if !take_field(r, ty, field, values) {
                    if r.overrun() {
                        return Err(DecodeError::Truncated);
                    }
                    read_field(r, ty, field, values)?;
                }
            }
        }
        // Everything read unchecked so far: the first overrun is the error.
        if r.overrun() {
            return Err(DecodeError::Truncated);
        }
    }
    Ok(true)
}

/// Decodes a state update straight into `target` (no entry list): the header if the whole
/// datagram decoded and every entry was taken. `None` when it is not a state update, when
/// the target stopped taking entries, or when [`decode_reusing`] would fail: the caller then
/// undoes whatever the target took and decodes the datagram with [`decode_reusing`] (which
/// gives the error). So a datagram that does not decode never partly applies.
pub fn decode_state_update_into<'b>(
    bytes: &[u8],
    layouts: impl Fn(u8) -> Option<&'b Bindings>,
    target: &mut impl EntryTarget,
) -> Option<(Header, f64)> {
    let (kind, h) = peek_header(bytes).ok()?;
    if kind != K_STATE_UPDATE {
        return None;
    }
    let b = layouts(h.layout)?;
    let mut r = BitReader::new(bytes, HEADER_BYTES * 8);
    let server_time = read_time(&mut r).ok()?;
    let n = r.bits(8).ok()? as usize;
    match read_entries(&mut r, b, server_time, n, target) {
        Ok(true) => {}
        Ok(false) | Err(_) => return None,
    }
    r.finish().ok()?;
    Some((h, server_time))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::messages::{StateEntries, proxy_entry_bits};
    use crate::model::pawn::default_bindings;
    use crate::model::settings::Faults;
    use proptest::prelude::*;

    fn bindings() -> Bindings {
        Bindings::new(default_bindings(&Faults::default())).unwrap()
    }

    #[test]
    fn times_no_peer_sends_do_not_decode() {
        let b = bindings();
        for t in [f64::NAN, f64::INFINITY, 1.0e234, -4.0e10] {
            let bytes = encode_client(
                0,
                1,
                &ClientMsg::Ping {
                    seq: 1,
                    client_time: t,
                },
                &b,
            );
            assert_eq!(
                decode(&bytes, |_| Some(&b)).unwrap_err(),
                DecodeError::InsaneTime,
                "{t}"
            );
            let bytes = encode_server(
                1,
                &ServerMsg::WorldTime {
                    replicator: 0,
                    server_time: t,
                },
                &b,
            );
            assert_eq!(
                decode(&bytes, |_| Some(&b)).unwrap_err(),
                DecodeError::InsaneTime
            );
        }
        let ok = encode_client(
            0,
            1,
            &ClientMsg::Ping {
                seq: 1,
                client_time: 3600.0,
            },
            &b,
        );
        assert!(decode(&ok, |_| Some(&b)).is_ok());
    }

    fn pawn(seed: f64) -> PawnValues {
        PawnValues {
            input_move: DVec2::new(0.71, -0.71),
            input_dash: seed > 0.5,
            location: DVec3::new(123.45 * seed, -9876.5, 0.0),
            rotation: DVec3::new(0.0, 179.99 * seed, 0.0),
            velocity: DVec3::new(600.0 * seed, -12.0, 0.0),
            dash_cooldown: 0.37,
            dash_count: 200,
            stride: 149.99,
            move_ramp: 0.5,
            team: 1,
        }
    }

    fn sample_messages(b: &Bindings) -> (Vec<ClientMsg>, Vec<ServerMsg>) {
        let mv = |id: u32, s: f64| WireMove {
            id,
            timestamp: crate::model::cycle::quantize_time(12.345678 + s),
            delta: 0.033,
            input: pawn(s).quantized(b.list(), b.input),
            output: pawn(s).quantized(b.list(), b.bound),
        };
        let client = vec![
            ClientMsg::Join {
                nonce: 77,
                layout_hash: b.layout_hash(),
            },
            ClientMsg::Moves {
                layout: 0,
                epoch: 3,
                view_delay_ms: 180,
                moves: vec![mv(1, 0.1), mv(2, 0.9), mv(3, 0.4)],
            },
            ClientMsg::Ping {
                seq: 9,
                client_time: 1.5,
            },
        ];
        let server = vec![
            ServerMsg::Welcome {
                layout: 0,
                pawn: 4,
                spawn: pawn(0.3).quantized(b.list(), b.bound),
                replicators: 1,
                server_time: 99.25,
            },
            ServerMsg::Ack {
                layout: 0,
                move_id: 17,
                values: pawn(0.6).quantized(b.list(), b.bound),
            },
            ServerMsg::Correction {
                layout: 0,
                move_id: 18,
                epoch: 2,
                state: pawn(0.7).quantized(b.list(), b.bound),
                deviations: vec![DeviationReport {
                    move_id: 16,
                    binding: 2,
                    client_value: Value::Vec3(DVec3::new(1.0, 2.0, 0.0)),
                    server_value: Value::Vec3(DVec3::new(5.5, 2.0, 0.0)),
                }],
            },
            ServerMsg::WorldTime {
                replicator: 0,
                server_time: 3.0,
            },
            ServerMsg::Pong {
                seq: 9,
                client_time: 1.5,
            },
            ServerMsg::Reset,
            ServerMsg::ProxySpawn {
                pawn: 3,
                owner: 1,
                team: 2,
            },
            ServerMsg::ProxyDespawn { pawn: 3 },
            ServerMsg::StateUpdate {
                layout: 0,
                server_time: 12.5,
                entries: vec![
                    ProxyEntry {
                        pawn: 2,
                        forced: false,
                        values: pawn(0.2).quantized(b.list(), b.bound),
                    },
                    ProxyEntry {
                        pawn: 5,
                        forced: true,
                        values: pawn(0.8).quantized(b.list(), b.bound),
                    },
                ]
                .into(),
            },
        ];
        (client, server)
    }

    /// Only the fields a message carries survive the trip; compare those.
    fn masked(b: &Bindings, v: &PawnValues, mask: FieldMask) -> PawnValues {
        let mut out = PawnValues::default();
        out.copy_fields(v, mask);
        out.quantized(b.list(), mask)
    }

    #[test]
    fn member_fast_paths_write_and_read_what_values_do() {
        for seed in [0.0, 0.13, 0.5, 0.77, 1.0, 3.7e6] {
            let v = pawn_values_for(seed);
            for f in Field::ALL {
                for ty in BoundType::ALL {
                    if !f.accepts(ty) {
                        continue;
                    }
                    let mut fast = BitWriter::new([0; HEADER_BYTES]);
                    write_field(&mut fast, ty, f, &v);
                    let mut slow = BitWriter::new([0; HEADER_BYTES]);
                    write_value(&mut slow, ty, &v.get(f));
                    let bytes = fast.finish();
                    assert_eq!(bytes, slow.finish(), "{f:?} {ty:?}");
                    let mut read_fast = PawnValues::default();
                    let mut r = BitReader::new(&bytes, HEADER_BYTES * 8);
                    read_field(&mut r, ty, f, &mut read_fast).unwrap();
                    let mut read_slow = PawnValues::default();
                    let mut r = BitReader::new(&bytes, HEADER_BYTES * 8);
                    read_slow.set(f, &read_value(&mut r, ty).unwrap());
                    assert_eq!(read_fast, read_slow, "{f:?} {ty:?}");
                }
            }
        }
    }

    #[test]
    fn a_cut_state_update_is_truncated() {
        let b = bindings();
        let (_, server) = sample_messages(&b);
        let update = server
            .iter()
            .find(|m| matches!(m, ServerMsg::StateUpdate { .. }))
            .expect("a state update sample");
        let good = encode_server(1, update, &b);
        for cut in HEADER_BYTES..good.len() {
            assert_eq!(
                decode(&good[..cut], |_| Some(&b)).unwrap_err(),
                DecodeError::Truncated,
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn shared_state_update_entries_encode_to_the_same_bytes() {
        let b = bindings();
        let entry = |pawn: u16, forced: bool, seed: f64| ProxyEntry {
            pawn,
            forced,
            values: pawn_values_for(seed),
        };
        let update =
            |server_time: f64, layout: u8, entries: Vec<ProxyEntry>| ServerMsg::StateUpdate {
                layout,
                server_time,
                entries: entries.into(),
            };
        // Hits, a same pawn with other values or flags, a new time, another layout.
        let msgs = [
            update(1.0, 0, vec![entry(2, false, 0.1), entry(3, false, 0.2)]),
            update(1.0, 0, vec![entry(1, false, 0.3), entry(3, false, 0.2)]),
            update(1.0, 0, vec![entry(3, true, 0.2), entry(2, false, 0.15)]),
            update(1.0, 0, vec![entry(2, false, 0.1)]),
            update(1.5, 0, vec![entry(2, false, 0.1), entry(3, false, 0.2)]),
            update(1.5, 1, vec![entry(2, false, 0.1), entry(3, false, 0.2)]),
            update(2.0, 0, vec![entry(4, false, 1e9), entry(5, false, -3e-3)]),
        ];
        let mut cache = EntryCache::default();
        for (seq, msg) in msgs.iter().enumerate() {
            let fresh = encode_server(seq as u32, msg, &b);
            let shared = encode_server_cached(seq as u32, msg, &b, &mut cache);
            assert_eq!(fresh, shared, "message {seq}");
            assert_eq!(shared.len(), msg.wire_bytes(&b), "message {seq}");
        }
    }

    /// Entries picked by index from the list the cache shares encode to the bytes of the same
    /// entries held in a list of their own, with and without the cache; a list the cache does
    /// not share (another allocation with equal entries, another time or layout, an index
    /// past its end) takes the by-value path and gives the same bytes too.
    #[test]
    fn picked_state_update_entries_encode_to_the_same_bytes() {
        let b = bindings();
        let all: Arc<[ProxyEntry]> = (0..16u16)
            .map(|pawn| ProxyEntry {
                pawn,
                forced: pawn % 5 == 0,
                values: pawn_values_for(0.37 * f64::from(pawn) - 2.0),
            })
            .chain(std::iter::once(ProxyEntry {
                pawn: 3,
                forced: false,
                values: pawn_values_for(0.37 * 3.0 - 2.0),
            }))
            .collect();
        let equal_copy: Arc<[ProxyEntry]> = all.iter().cloned().collect();
        let mut cache = EntryCache::default();
        let bits = cache.share(&b, 0, 4.0, &all).to_vec();
        for (e, &(_, eb)) in all.iter().zip(&bits) {
            assert_eq!(eb, proxy_entry_bits(&b, e));
        }
        let picks: [Vec<u16>; 5] = [
            (1..16).collect(),
            (0..16).filter(|&i| i != 7).collect(),
            vec![15, 0, 16, 3, 3],
            vec![],
            vec![2, 17],
        ];
        for (seq, picked) in picks.iter().enumerate() {
            for (time, layout, list) in [
                (4.0, 0, &all),
                (4.0, 0, &equal_copy),
                (4.5, 0, &all),
                (4.0, 1, &all),
            ] {
                let msg = ServerMsg::StateUpdate {
                    layout,
                    server_time: time,
                    entries: StateEntries::picked(list.clone(), picked.clone()),
                };
                let owned = ServerMsg::StateUpdate {
                    layout,
                    server_time: time,
                    entries: picked
                        .iter()
                        .filter_map(|&i| all.get(usize::from(i)).cloned())
                        .collect(),
                };
                let expected = encode_server(seq as u32, &owned, &b);
                let mut fresh = EntryCache::default();
                assert_eq!(encode_server(seq as u32, &msg, &b), expected, "{picked:?}");
                assert_eq!(
                    encode_server_cached(seq as u32, &msg, &b, &mut fresh),
                    expected,
                    "{picked:?}"
                );
                assert_eq!(
                    encode_server_cached(seq as u32, &msg, &b, &mut cache),
                    expected,
                    "{picked:?} at {time} layout {layout}"
                );
                // Encoding at another time cleared the cache: share the list again.
                cache.share(&b, 0, 4.0, &all);
            }
        }
    }

    /// Appending bits written by another writer gives the bytes of writing them bit by bit, at
    /// every offset and length, from any bit of the source; and a writer resuming a stream
    /// continues it as one writer would have.
    #[test]
    fn appended_bits_match_bits_written_one_by_one() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for offset in 0..70u32 {
            for from in [0usize, 1, 5, 8, 13, 63, 64, 71] {
                for len in [0usize, 1, 7, 8, 63, 64, 65, 127, 128, 129, 200, 257] {
                    let lead = next();
                    let bits: Vec<u64> = (0..len).map(|_| next() & 1).collect();
                    // The source: `from` other bits, the bits, then more other bits.
                    let mut src = BitWriter::appending_to(Vec::new());
                    for _ in 0..from {
                        src.bits(next(), 1);
                    }
                    for &v in &bits {
                        src.bits(v, 1);
                    }
                    src.bits(next(), (len % 9) as u32 * 7);
                    let src = src.finish();
                    let mut slow = BitWriter::appending_to(Vec::new());
                    let mut fast = BitWriter::appending_to(Vec::new());
                    for w in [&mut slow, &mut fast] {
                        w.bits(lead, offset.min(64));
                        w.bits(lead >> 3, offset.saturating_sub(64));
                    }
                    for &v in &bits {
                        slow.bits(v, 1);
                    }
                    if from == 0 {
                        fast.append(&src, len);
                    } else {
                        fast.append_range(&src, from, len);
                    }
                    assert_eq!(slow.bit, fast.bit, "{offset} {from} {len}");
                    let (slow, fast) = (slow.finish(), fast.finish());
                    assert_eq!(slow, fast, "{offset} {from} {len}");
                    // Resuming the stream and writing the rest gives one writer's bytes.
                    let mut one = BitWriter::appending_to(Vec::new());
                    let mut resumed = BitWriter::appending_to(Vec::new());
                    for w in [&mut one, &mut resumed] {
                        w.bits(lead, offset.min(64));
                        w.bits(lead >> 3, offset.saturating_sub(64));
                    }
                    let first = resumed.bit;
                    let mut resumed = BitWriter::resuming(resumed.finish(), first);
                    for &v in &bits {
                        one.bits(v, 1);
                        resumed.bits(v, 1);
                    }
                    assert_eq!(resumed.bit, len, "{offset} {len}");
                    assert_eq!(one.finish(), resumed.finish(), "{offset} {len}");
                }
            }
        }
    }

    /// Encoding into a spare buffer (the harness's recycled datagrams) gives the bytes of
    /// encoding into a new one, whatever the spare held before.
    #[test]
    fn encoding_into_spare_buffers_matches_fresh_encoding() {
        let b = bindings();
        let (client, server) = sample_messages(&b);
        let mut spare = vec![0xA5u8; 2000];
        for (seq, m) in client.iter().enumerate() {
            let fresh = encode_client(3, seq as u32, m, &b);
            spare = encode_client_into(3, seq as u32, m, &b, spare);
            assert_eq!(fresh, spare, "{m:?}");
            spare.push(0x5A);
        }
        let mut cache = EntryCache::default();
        let mut fresh_cache = EntryCache::default();
        for (seq, m) in server.iter().enumerate() {
            let fresh = encode_server_cached(seq as u32, m, &b, &mut fresh_cache);
            spare = encode_server_cached_into(seq as u32, m, &b, &mut cache, spare);
            assert_eq!(fresh, spare, "{m:?}");
            assert_eq!(fresh, encode_server(seq as u32, m, &b), "{m:?}");
            spare.extend_from_slice(&[0xFF; 7]);
        }
    }

    fn pawn_values_for(seed: f64) -> PawnValues {
        PawnValues {
            location: DVec3::new(1234.56 * seed, -98.7 * seed, 3.0),
            velocity: DVec3::new(600.0 * seed, 0.0, -1.5),
            rotation: DVec3::new(0.0, 359.99 * seed, 0.0),
            dash_cooldown: (seed * 0.37) as f32,
            dash_count: (seed * 100.0) as u8,
            team: 2,
            ..Default::default()
        }
    }

    #[test]
    fn round_trip_and_sizes_match_wire_bytes() {
        let b = bindings();
        let h = Header {
            sender: 3,
            seq: 1234,
            layout: 0,
        };
        let (client, server) = sample_messages(&b);
        for m in &client {
            let bytes = encode_client(3, 1234, m, &b);
            assert_eq!(bytes.len(), m.wire_bytes(&b), "{m:?}");
            let (h2, d) = decode(&bytes, |_| Some(&b)).expect("decodes");
            assert_eq!(h2, h);
            let expected = match m.clone() {
                ClientMsg::Moves {
                    layout,
                    epoch,
                    view_delay_ms,
                    moves,
                } => ClientMsg::Moves {
                    layout,
                    epoch,
                    view_delay_ms,
                    moves: moves
                        .into_iter()
                        .map(|x| WireMove {
                            input: masked(&b, &x.input, b.client_sends_input),
                            output: masked(&b, &x.output, b.client_sends_output),
                            ..x
                        })
                        .collect(),
                },
                other => other,
            };
            assert_eq!(d, Datagram::Client(expected));
        }
        for m in &server {
            let bytes = encode_server(1234, m, &b);
            assert_eq!(bytes.len(), m.wire_bytes(&b), "{m:?}");
            let (_, d) = decode(&bytes, |_| Some(&b)).expect("decodes");
            let expected = match m.clone() {
                ServerMsg::Ack {
                    layout,
                    move_id,
                    values,
                } => ServerMsg::Ack {
                    layout,
                    move_id,
                    values: masked(&b, &values, b.client_validated),
                },
                ServerMsg::Correction {
                    layout,
                    move_id,
                    epoch,
                    state,
                    deviations,
                } => ServerMsg::Correction {
                    layout,
                    move_id,
                    epoch,
                    state: masked(&b, &state, b.server_auth),
                    deviations,
                },
                ServerMsg::StateUpdate {
                    layout,
                    server_time,
                    entries,
                } => ServerMsg::StateUpdate {
                    layout,
                    server_time,
                    entries: entries
                        .into_vec()
                        .into_iter()
                        .map(|e| ProxyEntry {
                            values: masked(&b, &e.values, b.simulated),
                            ..e
                        })
                        .collect(),
                },
                other => other,
            };
            assert_eq!(d, Datagram::Server(expected));
        }
    }

    #[test]
    fn every_bound_type_round_trips_at_its_wire_size() {
        let samples = [
            (BoundType::Bool, Value::Bool(true)),
            (BoundType::HalfByte, Value::Byte(0x0C)),
            (BoundType::Byte, Value::Byte(0xAB)),
            (BoundType::Int, Value::Int(-123_456)),
            (BoundType::Float, Value::Float(1.5e-3)),
            (BoundType::CompressedFloat, Value::Float(-3.25)),
            (BoundType::Double, Value::Double(1.0 / 3.0)),
            (BoundType::CompressedDouble, Value::Double(-1234.56)),
            (BoundType::TruncatedDouble, Value::Double(0.1f32 as f64)),
            (
                BoundType::CompressedVector2D,
                Value::Vec2(DVec2::new(0.71, -0.71)),
            ),
            (
                BoundType::CompressedVector,
                Value::Vec3(DVec3::new(1e6, -2.5, 0.01)),
            ),
            (
                BoundType::CompressedRotator,
                Value::Vec3(DVec3::new(0.0, 359.99, -90.0)),
            ),
            (BoundType::ActorReference, Value::ObjectRef(42)),
            (BoundType::ActorComponentReference, Value::ObjectRef(7)),
            (BoundType::AnimMontageReference, Value::ObjectRef(0)),
            (BoundType::Name, Value::Name("Team.Red".into())),
            (BoundType::GameplayTag, Value::Name("State.Stunned".into())),
            (
                BoundType::GameplayTagContainer,
                Value::Tags(vec![Arc::<str>::from("A.B"), Arc::<str>::from("C")].into()),
            ),
            (
                BoundType::InstancedStruct,
                Value::Struct(vec![1u8, 2, 3, 255].into()),
            ),
        ];
        assert_eq!(samples.len(), BoundType::ALL.len());
        for (ty, v) in samples {
            let mut w = BitWriter::new([0; HEADER_BYTES]);
            write_value(&mut w, ty, &v);
            assert_eq!(
                w.bit - HEADER_BYTES * 8,
                ty.wire_bits(&v) as usize,
                "{ty:?}"
            );
            let bytes = w.finish();
            let mut r = BitReader::new(&bytes, HEADER_BYTES * 8);
            assert_eq!(read_value(&mut r, ty).unwrap(), ty.quantize(&v), "{ty:?}");
        }
    }

    #[test]
    fn foreign_and_damaged_datagrams_are_rejected() {
        let b = bindings();
        assert_eq!(
            decode(b"hello", |_| Some(&b)).unwrap_err(),
            DecodeError::TooShort(5)
        );
        assert_eq!(
            decode(b"GET / HTTP/1.1\r\n", |_| Some(&b)).unwrap_err(),
            DecodeError::BadMagic
        );
        let (client, _) = sample_messages(&b);
        let good = encode_client(1, 1, &client[1], &b);
        for cut in HEADER_BYTES..good.len() {
            assert!(decode(&good[..cut], |_| Some(&b)).is_err(), "cut at {cut}");
        }
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(
            decode(&longer, |_| Some(&b)).unwrap_err(),
            DecodeError::TrailingBytes(1)
        );
        let mut v2 = good.clone();
        v2[2] = 2;
        assert_eq!(
            decode(&v2, |_| Some(&b)).unwrap_err(),
            DecodeError::UnsupportedVersion(2)
        );
        assert_eq!(
            decode(&good, |_| None).unwrap_err(),
            DecodeError::UnknownLayout(0)
        );
        assert!(matches!(
            decode(&vec![0u8; 5000], |_| Some(&b)),
            Err(DecodeError::TooLarge(5000))
        ));
    }

    #[test]
    fn move_metadata_is_compact_and_exact() {
        let b = bindings();
        let q = crate::model::cycle::quantize_time;
        let mv = |id: u32, ts: f64, delta: f64| WireMove {
            id,
            timestamp: q(ts),
            delta: q(delta),
            input: PawnValues::default(),
            output: PawnValues::default(),
        };
        for moves in [
            // Consecutive, deltas equal to the steps: one bit each.
            vec![
                mv(5, 1.0, 0.01667),
                mv(6, 1.01667, 0.01667),
                mv(7, 1.03334, 0.01667),
            ],
            // A gap in the ids and a clamped delta.
            vec![mv(5, 1.0, 0.016), mv(7, 1.1, 0.05), mv(8, 1.11, 0.01)],
            vec![mv(1, 0.0, 0.0)],
        ] {
            let msg = ClientMsg::Moves {
                layout: 0,
                epoch: 1,
                view_delay_ms: 0,
                moves: moves.clone(),
            };
            let bytes = encode_client(1, 1, &msg, &b);
            assert_eq!(bytes.len(), msg.wire_bytes(&b));
            // The frame bits, exactly, as the encoder lays them out.
            let meta = batch_meta(&moves);
            let frame: usize = crate::model::messages::MOVES_BATCH_HEADER_BITS
                + (0..moves.len())
                    .map(|i| {
                        usize::from(!meta.consecutive) * 32
                            + if i > 0 {
                                meta.step_width as usize + 1
                            } else {
                                0
                            }
                            + if i == 0 || !meta.delta_is_step[i] {
                                meta.delta_width as usize
                            } else {
                                0
                            }
                    })
                    .sum::<usize>();
            assert_eq!(crate::model::messages::moves_frame_bits(&moves), frame);
            let (_, d) = decode(&bytes, |_| Some(&b)).unwrap();
            let Datagram::Client(ClientMsg::Moves { moves: got, .. }) = d else {
                panic!("{d:?}")
            };
            for (a, g) in moves.iter().zip(&got) {
                assert_eq!((a.id, a.timestamp, a.delta), (g.id, g.timestamp, g.delta));
            }
        }
    }

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

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..1300)) {
            let b = bindings();
            let _ = decode(&bytes, |_| Some(&b));
        }

        #[test]
        fn random_bodies_behind_a_valid_header_never_panic(
            kind in 0u8..24,
            body in proptest::collection::vec(any::<u8>(), 0..400),
        ) {
            let b = bindings();
            let mut bytes = header(kind, &Header { sender: 1, seq: 1, layout: 0 }).to_vec();
            bytes.extend(body);
            let _ = decode(&bytes, |_| Some(&b));
        }

        #[test]
        fn the_usual_simulated_members_write_as_each_member_writes(
            xs in proptest::collection::vec(-1.0e7f64..1.0e7, 10),
            scale in proptest::collection::vec(-20i32..20, 10),
            bytes in proptest::collection::vec(any::<u8>(), 2),
            lead in 0u32..64,
        ) {
            // `write_usual_simulated` against `write_field` member by member (what it
            // replaces), from every bit offset, with components from tiny to past 2^61
            // hundredths (clamped), and non-finite ones.
            let b = bindings();
            prop_assert!(usual_simulated(b.simulated_list()));
            let c = |k: usize| match scale[k] {
                19 => f64::NAN,
                -20 => f64::INFINITY,
                s => xs[k] * 10f64.powi(s),
            };
            let v = PawnValues {
                location: DVec3::new(c(0), c(1), c(2)),
                rotation: DVec3::new(c(3), c(4), c(5)),
                velocity: DVec3::new(c(6), c(7), c(8)),
                dash_cooldown: c(9) as f32,
                dash_count: bytes[0],
                team: bytes[1],
                ..PawnValues::default()
            };
            let mut usual = BitWriter::new([0; HEADER_BYTES]);
            let mut each = BitWriter::new([0; HEADER_BYTES]);
            for w in [&mut usual, &mut each] {
                w.bits(0x5A5A_5A5A_5A5A_5A5A, lead);
            }
            write_usual_simulated(&mut usual, &v);
            write_members(&mut each, &b, &v);
            prop_assert_eq!(usual.bit, each.bit);
            prop_assert_eq!(usual.finish(), each.finish());
        }

        #[test]
        fn the_usual_simulated_members_read_as_each_member_reads(
            xs in proptest::collection::vec(-1.0e7f64..1.0e7, 10),
            bytes in proptest::collection::vec(any::<u8>(), 2),
            cut in 0usize..80,
        ) {
            // `take_usual_simulated` against `read_field` member by member (what it replaces),
            // on an encoded entry, also cut short (where both must see the overrun).
            let b = bindings();
            prop_assert!(usual_simulated(b.simulated_list()));
            let v = PawnValues {
                // Up to 58-bit components: past one 128-bit window.
                location: DVec3::new(xs[0] * 1.0e8, xs[1], xs[2]),
                rotation: DVec3::new(xs[3], xs[4] / 1.0e4, xs[5]),
                velocity: DVec3::new(xs[6] / 1.0e3, xs[7], xs[8] / 1.0e5),
                dash_cooldown: (xs[9] / 1.0e6) as f32,
                dash_count: bytes[0],
                team: bytes[1],
                ..PawnValues::default()
            };
            let e = ProxyEntry { pawn: 3, forced: false, values: v };
            let mut w = BitWriter::new([0; HEADER_BYTES]);
            write_entry(&mut w, &b, &e);
            let mut encoded = w.finish();
            encoded.truncate(encoded.len().min(HEADER_BYTES + cut));
            let mut usual = PawnValues::default();
            let mut r = BitReader::new(&encoded, HEADER_BYTES * 8 + 17);
            take_usual_simulated(&mut r, &mut usual);
            let mut each = PawnValues::default();
            let mut r2 = BitReader::new(&encoded, HEADER_BYTES * 8 + 17);
            let mut failed = false;
            for &(field, ty, _) in b.simulated_list() {
                failed |= read_field(&mut r2, ty, field, &mut each).is_err();
            }
            if failed {
                prop_assert!(r.overrun());
            } else {
                prop_assert!(!r.overrun());
                prop_assert_eq!(r.bit, r2.bit);
                prop_assert_eq!(usual, each);
            }
        }

        #[test]
        fn state_updates_decode_in_place_exactly_when_they_decode(
            seed in 0.0f64..100.0,
            cut in 0usize..2000,
            flip in proptest::option::of((0usize..2000, 0u8..8)),
        ) {
            // `decode_state_update_into` with a list gives the entries `decode` gives, and
            // nothing where `decode` fails (a cut, lengthened or damaged state update).
            let b = bindings();
            let entries = (0..15u16)
                .map(|pawn| ProxyEntry {
                    pawn,
                    forced: pawn % 4 == 0,
                    values: pawn_values_for(seed + f64::from(pawn)),
                })
                .collect();
            let msg = ServerMsg::StateUpdate { layout: 0, server_time: seed, entries };
            let mut bytes = encode_server(7, &msg, &b);
            if cut > bytes.len() {
                bytes.push(0);
            } else if cut >= HEADER_BYTES {
                bytes.truncate(cut);
            }
            if let Some((i, bit)) = flip
                && let Some(x) = bytes.get_mut(HEADER_BYTES + i % 40)
            {
                *x ^= 1 << bit;
            }
            let mut list = Vec::new();
            let in_place = decode_state_update_into(&bytes, |_| Some(&b), &mut list);
            match decode(&bytes, |_| Some(&b)) {
                Ok((h, Datagram::Server(ServerMsg::StateUpdate { server_time, entries, .. }))) => {
                    prop_assert_eq!(in_place, Some((h, server_time)));
                    prop_assert_eq!(StateEntries::from(list), entries);
                }
                _ => prop_assert_eq!(in_place, None),
            }
        }
    }
}
