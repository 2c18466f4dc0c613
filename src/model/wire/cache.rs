//! The server's cache of encoded state-update entries ([`EntryCache`]): each entry is
//! bit-packed once per update and its bits copied into every datagram that carries it.

use std::sync::Arc;

use super::bits::BitWriter;
use super::entries::write_entry;
use crate::model::binding::Bindings;
use crate::model::messages::ProxyEntry;

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
    pub(super) fn write_shared(
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

    pub(super) fn write(
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
