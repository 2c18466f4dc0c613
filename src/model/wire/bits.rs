//! Little-endian bit streams: the writer (whole fields through a 128-bit accumulator,
//! appending bits another writer wrote) and the reader (checked reads, and unchecked ones for
//! state-update entries).

use super::header::DecodeError;
use crate::model::messages::HEADER_BYTES;

/// Little-endian bit writer (whole fields at a time through a 128-bit accumulator).
pub(super) struct BitWriter {
    bytes: Vec<u8>,
    acc: u128,
    pending: u32,
    /// Bits written, header included.
    pub(super) bit: usize,
}

impl BitWriter {
    #[cfg(test)]
    pub(super) fn new(header: [u8; HEADER_BYTES]) -> Self {
        Self::reusing(Vec::new(), header, 64)
    }
    /// A writer into `bytes` (emptied first; a spare buffer whose allocation is reused).
    pub(super) fn reusing(mut bytes: Vec<u8>, header: [u8; HEADER_BYTES], capacity: usize) -> Self {
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
    pub(super) fn bits(&mut self, value: u64, n: u32) {
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
    pub(super) fn resuming(mut bytes: Vec<u8>, bit_len: usize) -> Self {
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
    pub(super) fn append_range(&mut self, src: &[u8], start: usize, bits: usize) {
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
    pub(super) fn finish(mut self) -> Vec<u8> {
        let rest = self.pending.div_ceil(8) as usize;
        self.bytes
            .extend_from_slice(&(self.acc as u64).to_le_bytes()[..rest]);
        self.pending = 0;
        self.bytes
    }
}

/// Little-endian bit reader: a checked read is one unaligned 8-byte load (plus one byte for
/// reads that straddle it); an unchecked read (state-update entries) is one 16-byte load (a
/// 128-bit window, shifted to the bit, which also holds a whole packed vector); near the
/// end, the missing bytes read as zeros.
pub(super) struct BitReader<'a> {
    bytes: &'a [u8],
    pub(super) bit: usize,
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
    pub(super) fn new(bytes: &'a [u8], bit: usize) -> Self {
        BitReader { bytes, bit }
    }
    #[inline(always)]
    pub(super) fn bits(&mut self, n: u32) -> Result<u64, DecodeError> {
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
    pub(super) fn peek128(&self) -> u128 {
        load128(self.bytes, self.bit / 8) >> (self.bit % 8)
    }
    /// The next 64 bits without consuming them (zeros past the end).
    #[inline(always)]
    pub(super) fn peek64(&self) -> u64 {
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
    pub(super) fn take(&mut self, n: u32) -> u64 {
        let v = self.peek128() as u64;
        self.advance(n);
        if n >= 64 { v } else { v & ((1u64 << n) - 1) }
    }
    /// Consumes `n` bits without a check (as [`BitReader::take`]).
    #[inline(always)]
    pub(super) fn advance(&mut self, n: u32) {
        self.bit += n as usize;
    }
    /// A read without checks went past the end (the position only grows, so it is past the
    /// end from then on).
    #[inline(always)]
    pub(super) fn overrun(&self) -> bool {
        self.bit > self.bytes.len() * 8
    }
    /// Consumes `n` bits, as `bits(n)` does.
    #[inline(always)]
    pub(super) fn skip(&mut self, n: u32) -> Result<(), DecodeError> {
        if n > 64 || self.bit + n as usize > self.bytes.len() * 8 {
            return Err(DecodeError::Truncated);
        }
        self.bit += n as usize;
        Ok(())
    }
    pub(super) fn finish(&self) -> Result<(), DecodeError> {
        let used = self.bit.div_ceil(8);
        if used < self.bytes.len() {
            Err(DecodeError::TrailingBytes(self.bytes.len() - used))
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
