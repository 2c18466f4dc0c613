//! Reading a recording: [`Recording::open`] reads the text header (or its backup copy) and the
//! index (or scans the chunks when there is none or it is wrong); chunks are then read,
//! checked and decoded on demand.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

mod header;

use self::header::{TextHeaderError, find_header_copy, text_header};
use super::encoding::{
    ENCODING_BUILT_INS, ENCODING_TAGGED, MovePrev, read_time_planes, take_tagged,
};
use super::format::{
    CHUNK_MAGIC, CHUNK_SECONDS, ChunkFrame, ChunkInfo, ChunkKind, Damage, FRAME_BYTES, Footer,
    Header, IndexPayload, RecordingError, TRAILER_BYTES, TRAILER_MAGIC,
};
use crate::model::telemetry::{Event, Machine, Record};
use crate::model::values_layout::read_legacy_layout;

/// An opened recording: header, chunk index and footer. Chunks are read on demand.
#[derive(Debug)]
pub struct Recording {
    pub path: PathBuf,
    pub header: Header,
    pub chunks: Vec<ChunkInfo>,
    /// `None` when the recording was not finished (crash, kill): chunks were found by scanning.
    pub footer: Option<Footer>,
    /// Damage found while opening (a scanned file): everything before it is in `chunks`.
    pub damage: Option<Damage>,
    /// Every damaged place found while opening (the first is `damage`), up to 64.
    pub damaged: Vec<Damage>,
    pub file_len: u64,
    body_offset: u64,
    /// Set when the text header could not be used and its backup copy was (why).
    pub header_note: Option<String>,
    /// Set when the index disagreed with the chunks and a scan of them was used (how).
    pub index_note: Option<String>,
    /// Set when a scan met damage that held no records (the header's backup copy).
    pub copy_note: Option<String>,
}

impl Recording {
    /// Reads the header and the index (or scans the chunks when there is no index). A
    /// damaged text header (unreadable, or its checksum does not match) is replaced by its
    /// backup copy when the file has one.
    pub fn open(path: &Path) -> Result<Recording, RecordingError> {
        let shown = path.display().to_string();
        let error = |offset: Option<u64>, message: String| RecordingError {
            path: shown.clone(),
            offset,
            position: None,
            message,
        };
        let mut file = File::open(path).map_err(|e| error(None, format!("cannot open: {e}")))?;
        let file_len = file
            .metadata()
            .map_err(|e| error(None, format!("cannot read: {e}")))?
            .len();
        let (header, body_offset, header_note) = match text_header(&shown, &mut file, file_len) {
            Ok((h, at)) => (h, at, None),
            Err(TextHeaderError::Newer(e)) => return Err(e),
            Err(TextHeaderError::Damaged(e)) => match find_header_copy(&mut file, file_len) {
                Some((h, at)) => (
                    h,
                    at,
                    Some(format!(
                        "the text header is damaged ({}); its backup copy was used",
                        e.message
                    )),
                ),
                None => return Err(e),
            },
        };
        let mut rec = Recording {
            path: path.to_path_buf(),
            header: tamed(header),
            chunks: Vec::new(),
            footer: None,
            damage: None,
            damaged: Vec::new(),
            file_len,
            body_offset,
            header_note,
            index_note: None,
            copy_note: None,
        };
        if !rec.read_index(&mut file) {
            rec.scan(&mut file);
        }
        Ok(rec)
    }

    /// Uses the trailer's index when it is intact.
    fn read_index(&mut self, file: &mut File) -> bool {
        if self.file_len < self.body_offset + TRAILER_BYTES {
            return false;
        }
        let mut trailer = [0u8; TRAILER_BYTES as usize];
        if file.seek(SeekFrom::End(-(TRAILER_BYTES as i64))).is_err()
            || file.read_exact(&mut trailer).is_err()
            || trailer[..8] != TRAILER_MAGIC
        {
            return false;
        }
        let mut o = [0u8; 8];
        o.copy_from_slice(&trailer[8..]);
        let at = u64::from_le_bytes(o);
        if at < self.body_offset || at > self.file_len - TRAILER_BYTES {
            return false;
        }
        let Ok((frame, raw)) = read_chunk_at(file, at, self.file_len) else {
            return false;
        };
        if frame.kind != ChunkKind::Index as u8 {
            return false;
        }
        let Ok(index) = postcard::from_bytes::<IndexPayload>(&raw) else {
            return false;
        };
        // Every indexed chunk must lie inside the body, in order.
        let ok = index.chunks.windows(2).all(|w| w[0].offset < w[1].offset)
            && index
                .chunks
                .iter()
                .all(|c| c.offset >= self.body_offset && c.offset < at);
        if !ok {
            return false;
        }
        // The index must say what the chunks' frames say, every one of them (a walk over the
        // frames alone: 44 bytes read a chunk). An index that disagrees — even with a valid
        // checksum, listing no chunk at all or times that are not numbers — is set aside: the
        // chunks are found by scanning, and the recording says so.
        let walked = self.walk_frames(file, at, &index.chunks);
        if walked.as_ref() != Ok(&index.chunks) {
            let found = match &walked {
                Ok(w) => format!(
                    "{} chunks of {} records{}",
                    w.len(),
                    records_in(w),
                    first_difference(&index.chunks, w)
                ),
                Err(e) => format!("damage at byte {e}"),
            };
            self.index_note = Some(format!(
                "the index disagrees with the chunks (it lists {} chunks of {} records; the file holds {found}): repaired from a scan of the chunks",
                index.chunks.len(),
                records_in(&index.chunks)
            ));
            return false;
        }
        self.chunks = index.chunks;
        self.footer = Some(index.footer);
        true
    }

    /// The record chunks' frames from the start of the body up to `until` (the index), read
    /// without their payloads; `Err` at a frame that cannot be read or is not plausible (the
    /// offset) where the index cannot vouch for what follows. A damaged frame where the index
    /// places a chunk (or before the first indexed chunk: the header's copy) is damage, not
    /// disagreement: the index's entry is kept (reading that chunk reports the damage) and the
    /// walk goes on at the next indexed chunk.
    fn walk_frames(
        &self,
        file: &mut File,
        until: u64,
        index: &[ChunkInfo],
    ) -> Result<Vec<ChunkInfo>, u64> {
        let mut out = Vec::new();
        let mut at = self.body_offset;
        while at < until {
            if let Some((info, next)) = frame_at(file, at, until, index) {
                out.extend(info);
                at = next;
                continue;
            }
            let i = index.partition_point(|c| c.offset < at);
            let indexed = index.get(i).filter(|c| c.offset == at);
            out.extend(indexed.copied());
            let before_all = i == 0 && indexed.is_none();
            match index.get(i + usize::from(indexed.is_some())) {
                Some(c) if before_all || indexed.is_some() => at = c.offset,
                None if indexed.is_some() => break,
                _ => return Err(at),
            }
        }
        Ok(out)
    }

    /// Walks the chunks from the start of the body, checking each. Every chunk stands on its
    /// own: at damage (recorded) the walk looks for the next intact chunk and goes on from
    /// there, so damage costs the chunk it hits, not the rest of the file.
    fn scan(&mut self, file: &mut File) {
        let mut at = self.body_offset;
        let mut seq = 0u32;
        while at < self.file_len {
            let checked = read_chunk_at(file, at, self.file_len).and_then(|(frame, raw)| {
                let records = frame.kind == ChunkKind::Records as u8;
                match implausible(&frame).filter(|_| records) {
                    Some(why) => Err(why),
                    None => Ok((frame, raw)),
                }
            });
            let (frame, raw) = match checked {
                Ok(read) => read,
                Err(message) => {
                    let next = next_intact_chunk(file, at + 1, self.file_len);
                    let next_seq = next.and_then(|n| records_seq_at(file, n, self.file_len));
                    if next_seq == Some(seq) {
                        // The next intact chunk is the one expected: no records were lost.
                        self.note_lost_nothing(at, next.unwrap_or(at), &message);
                    } else {
                        self.note_damage(at, seq, message);
                        seq += 1;
                    }
                    match next {
                        Some(next) => at = next,
                        None => return,
                    }
                    continue;
                }
            };
            let start = at;
            at += FRAME_BYTES as u64 + u64::from(frame.payload_len);
            if frame.kind == ChunkKind::Index as u8 {
                if let Ok(index) = postcard::from_bytes::<IndexPayload>(&raw) {
                    self.footer = Some(index.footer);
                }
                // The trailer follows; nothing after it is data.
                return;
            }
            if frame.kind == ChunkKind::Records as u8 {
                self.chunks.push(ChunkInfo {
                    offset: start,
                    seq: frame.seq,
                    count: frame.count,
                    t_first: frame.t_first,
                    t_last: frame.t_last,
                });
                seq = frame.seq.wrapping_add(1);
            }
        }
    }

    /// Damage between `from` and `to` that held no records (the header's backup copy): said,
    /// not counted as damage.
    fn note_lost_nothing(&mut self, from: u64, to: u64, why: &str) {
        let what = if from == self.body_offset {
            "the header's backup copy"
        } else {
            "bytes between two chunks"
        };
        self.copy_note = Some(format!(
            "bytes {from}–{to} are damaged ({why}); they held {what}, no records were lost"
        ));
    }

    /// Damage at `at` (chunk `seq`): the first is the recording's `damage`, every one is
    /// listed.
    fn note_damage(&mut self, at: u64, seq: u32, message: String) {
        let d = Damage {
            offset: at,
            chunk: seq,
            loaded_until: self.chunks.last().map_or(0.0, |c| c.t_last),
            message,
        };
        self.damage.get_or_insert_with(|| d.clone());
        if self.damaged.len() < MAX_DAMAGES_LISTED {
            self.damaged.push(d);
        }
    }

    /// The session time span the recording covers.
    pub fn span(&self) -> (f64, f64) {
        (
            self.chunks
                .iter()
                .map(|c| c.t_first)
                .fold(f64::INFINITY, f64::min)
                .min(self.chunks.first().map_or(0.0, |c| c.t_first)),
            self.chunks.iter().map(|c| c.t_last).fold(0.0, f64::max),
        )
    }

    /// Records in the file (from the index or scan).
    pub fn record_count(&self) -> u64 {
        self.chunks.iter().map(|c| u64::from(c.count)).sum()
    }

    /// The chunk holding session time `t` (the last chunk starting at or before it).
    pub fn chunk_at(&self, t: f64) -> Option<usize> {
        if self.chunks.is_empty() {
            return None;
        }
        let i = self.chunks.partition_point(|c| c.t_first <= t);
        Some(i.saturating_sub(1))
    }

    /// Reads and decodes chunk `i` from `file` (a handle on this recording).
    pub fn read_chunk_with(&self, file: &mut File, i: usize) -> Result<Vec<Record>, Damage> {
        let Some(info) = self.chunks.get(i) else {
            return Ok(Vec::new());
        };
        let damage = |message: String| Damage {
            offset: info.offset,
            chunk: i as u32,
            loaded_until: if i == 0 {
                self.header.t_start
            } else {
                self.chunks[i - 1].t_last
            },
            message,
        };
        let (frame, raw) = read_chunk_at(file, info.offset, self.file_len).map_err(damage)?;
        if frame.kind != ChunkKind::Records as u8 {
            return Err(damage("expected a chunk of records, found an index".into()));
        }
        if let Some(why) = implausible(&frame) {
            return Err(damage(why));
        }
        let n = frame.count as usize;
        let Some(times) = read_time_planes(&raw, n) else {
            return Err(damage(format!(
                "the chunk is too short for the times of its {n} records"
            )));
        };
        // Capacity from what the chunk can hold, not from what its frame claims.
        let mut out = Vec::with_capacity(n.min(raw.len() / 10 + 1).min(1 << 16));
        let mut rest: &[u8] = &raw[8 * n..];
        let mut last = rustc_hash::FxHashMap::default();
        let mut moves = MovePrev::default();
        while !rest.is_empty() {
            let Some(&t) = times.get(out.len()) else {
                return Err(damage(format!("the chunk holds more than its {n} records")));
            };
            let legacy = frame.encoding < ENCODING_BUILT_INS;
            let decoded = read_legacy_layout(legacy, || {
                if frame.encoding >= ENCODING_TAGGED {
                    take_tagged(&mut rest, t, &mut last, &mut moves)
                } else {
                    postcard::take_from_bytes::<(Machine, Event)>(rest)
                        .map(|(v, tail)| {
                            rest = tail;
                            v
                        })
                        .map_err(|e| e.to_string())
                }
            });
            match decoded {
                Ok((machine, event)) => {
                    out.push(Record { t, machine, event });
                }
                Err(e) => {
                    return Err(damage(format!(
                        "record {} of the chunk cannot be decoded: {e}",
                        out.len()
                    )));
                }
            }
        }
        if out.len() != frame.count as usize {
            return Err(damage(format!(
                "the chunk holds {} records, its frame says {}",
                out.len(),
                frame.count
            )));
        }
        Ok(out)
    }

    /// Opens a read handle on the file.
    pub fn reopen(&self) -> Result<File, RecordingError> {
        File::open(&self.path).map_err(|e| RecordingError {
            path: self.path.display().to_string(),
            offset: None,
            position: None,
            message: format!("cannot open: {e}"),
        })
    }

    /// Reads chunk `i`.
    pub fn read_chunk(&self, i: usize) -> Result<Vec<Record>, Damage> {
        let mut f = self.reopen().map_err(|e| Damage {
            offset: 0,
            chunk: i as u32,
            loaded_until: 0.0,
            message: e.message,
        })?;
        self.read_chunk_with(&mut f, i)
    }

    /// Feeds the records of every intact chunk in file order to `each`; a damaged chunk is
    /// skipped (its records are lost, the others are fed). Returns the first damage, found
    /// while opening or while reading.
    pub fn for_each(&self, each: &mut dyn FnMut(Record)) -> Result<(), Damage> {
        let mut f = self.reopen().map_err(|e| Damage {
            offset: 0,
            chunk: 0,
            loaded_until: 0.0,
            message: e.message,
        })?;
        let mut first: Option<Damage> = None;
        for i in 0..self.chunks.len() {
            match self.read_chunk_with(&mut f, i) {
                Ok(records) => records.into_iter().for_each(&mut *each),
                Err(d) => {
                    first.get_or_insert(d);
                }
            }
        }
        let opened = self.damage.clone();
        match (opened, first) {
            (Some(a), Some(b)) => Err(if a.offset <= b.offset { a } else { b }),
            (Some(d), None) | (None, Some(d)) => Err(d),
            (None, None) => Ok(()),
        }
    }

    /// Every record, or the ones before the damage and the damage.
    pub fn load_all(&self) -> (Vec<Record>, Option<Damage>) {
        // The index's counts are a claim: allocate from them only up to a bound, then grow
        // with what is really read.
        let mut v = Vec::with_capacity((self.record_count() as usize).min(1 << 20));
        let d = self.for_each(&mut |r| v.push(r)).err();
        (v, d)
    }

    /// The session time of the last record that really reads (from the last readable chunk):
    /// what bounds work driven by the file's claims (a footer's length, chunk times).
    pub fn real_end(&self) -> f64 {
        (0..self.chunks.len())
            .rev()
            .find_map(|i| {
                self.read_chunk(i)
                    .ok()
                    .and_then(|rs| rs.last().map(|r| r.t))
            })
            .unwrap_or(0.0)
    }

    /// How long a re-simulation of this recording runs: the footer's length (or the chunks'
    /// span), but at least to the last record that really reads and never more than a chunk
    /// past it.
    pub fn resimulation_seconds(&self) -> f64 {
        let claimed = self
            .footer
            .as_ref()
            .map(|f| f.simulated_seconds)
            .unwrap_or_else(|| self.span().1);
        // A chunk closes after a second of session time, so N chunks cover about N seconds:
        // a record claiming a time far past that is damage, not a session.
        let plausible =
            self.header.t_start.max(0.0) + (self.chunks.len() as f64 + 1.0) * CHUNK_SECONDS * 2.0;
        let real = self.real_end().min(plausible);
        if claimed.is_finite() {
            claimed.clamp(real, real + CHUNK_SECONDS)
        } else {
            real
        }
    }
}

/// Reads the chunk at `at`, checks its frame and checksum and decompresses it.
/// Records a list of chunks claims.
/// Where an index and the chunks' frames first part: `; chunk 3: the index says 3.00 s to
/// 4.00 s, its frame -1.000e300 s to 1.000e300 s` (empty when they differ only in length).
fn first_difference(index: &[ChunkInfo], frames: &[ChunkInfo]) -> String {
    let Some((i, (a, b))) = index
        .iter()
        .zip(frames)
        .enumerate()
        .find(|(_, (a, b))| a != b)
    else {
        return String::new();
    };
    let says = |c: &ChunkInfo| {
        format!(
            "byte {}, {} records, {} to {}",
            c.offset,
            c.count,
            seconds(c.t_first),
            seconds(c.t_last)
        )
    };
    format!(
        "; chunk {i}: the index says {}, its frame {}",
        says(a),
        says(b)
    )
}

fn records_in(chunks: &[ChunkInfo]) -> u64 {
    chunks.iter().map(|c| u64::from(c.count)).sum()
}

/// Session seconds a recording's times may reach (about three years).
const MAX_SESSION_S: f64 = 1e8;

/// A time as a message shows it: `12.35 s`, or `1.000e300 s` when it is no session time.
fn seconds(t: f64) -> String {
    if t.abs() < 1e9 {
        format!("{t:.2} s")
    } else {
        format!("{t:.3e} s")
    }
}

/// Why a records chunk's frame cannot be what it says (`None`: it can): its times are not
/// finite or run backwards, or it claims more records than its bytes hold (each record's time
/// alone takes 8 bytes).
fn implausible(f: &ChunkFrame) -> Option<String> {
    if !(f.t_first.is_finite() && f.t_last.is_finite() && f.t_first <= f.t_last) {
        return Some(format!(
            "the chunk's times are not a span ({} to {})",
            seconds(f.t_first),
            seconds(f.t_last)
        ));
    }
    if f.t_first < -MAX_SESSION_S || f.t_last > MAX_SESSION_S {
        return Some(format!(
            "the chunk's times ({} to {}) are not session times (expected within ±{MAX_SESSION_S:e} s)",
            seconds(f.t_first),
            seconds(f.t_last)
        ));
    }
    if u64::from(f.count) * 8 > u64::from(f.raw_len) {
        return Some(format!(
            "the chunk claims {} records in {} bytes",
            f.count, f.raw_len
        ));
    }
    None
}

fn read_chunk_at(file: &mut File, at: u64, file_len: u64) -> Result<(ChunkFrame, Vec<u8>), String> {
    if at + FRAME_BYTES as u64 > file_len {
        return Err(format!(
            "the file ends inside a chunk frame ({} of {FRAME_BYTES} bytes)",
            file_len.saturating_sub(at)
        ));
    }
    file.seek(SeekFrom::Start(at)).map_err(|e| e.to_string())?;
    let mut fb = [0u8; FRAME_BYTES];
    file.read_exact(&mut fb).map_err(|e| e.to_string())?;
    let frame = ChunkFrame::decode(&fb).map_err(|e| e.to_string())?;
    let end = at + FRAME_BYTES as u64 + u64::from(frame.payload_len);
    if end > file_len {
        return Err(format!(
            "the file ends inside a chunk (expected {} payload bytes, {} present)",
            frame.payload_len,
            file_len - at - FRAME_BYTES as u64
        ));
    }
    let mut payload = vec![0u8; frame.payload_len as usize];
    file.read_exact(&mut payload).map_err(|e| e.to_string())?;
    if frame.checksum(&payload) != frame.crc {
        return Err("checksum mismatch".into());
    }
    let raw = zstd::bulk::decompress(&payload, frame.raw_len as usize)
        .map_err(|e| format!("cannot decompress: {e}"))?;
    if raw.len() != frame.raw_len as usize {
        return Err(format!(
            "decompressed to {} bytes, the frame says {}",
            raw.len(),
            frame.raw_len
        ));
    }
    Ok((frame, raw))
}

/// The frame at `at` when it reads and is plausible: the records chunk it describes (none
/// for a header copy) and where the next chunk starts. A frame that disagrees with the index
/// (says other than the index's entry for this place, or ends elsewhere than where the index
/// places the next chunk) counts
/// as read only when its checksum holds: else it is damage, not a different chunk.
fn frame_at(
    file: &mut File,
    at: u64,
    until: u64,
    index: &[ChunkInfo],
) -> Option<(Option<ChunkInfo>, u64)> {
    let mut fb = [0u8; FRAME_BYTES];
    file.seek(SeekFrom::Start(at)).ok()?;
    file.read_exact(&mut fb).ok()?;
    let frame = ChunkFrame::decode(&fb).ok()?;
    let next = at + FRAME_BYTES as u64 + u64::from(frame.payload_len);
    let records = frame.kind == ChunkKind::Records as u8;
    let known = records || frame.kind == ChunkKind::HeaderCopy as u8;
    if next > until || !known || (records && implausible(&frame).is_some()) {
        return None;
    }
    let info = records.then_some(ChunkInfo {
        offset: at,
        seq: frame.seq,
        count: frame.count,
        t_first: frame.t_first,
        t_last: frame.t_last,
    });
    // The index is in offset order (checked before the walk).
    let i = index.partition_point(|c| c.offset < at);
    let indexed = index.get(i).filter(|c| c.offset == at).copied();
    let after = index.get(i + usize::from(indexed.is_some()));
    // Chunks follow each other: this one should end where the index places the next.
    let ends_where_indexed = after.map_or(until, |c| c.offset) == next;
    let disagrees = !ends_where_indexed || (indexed.is_some() && indexed != info);
    if disagrees && read_chunk_at(file, at, until).is_err() {
        return None;
    }
    Some((info, next))
}

/// Characters of a label read from a recording's header (a preset's name, a mode).
const LABEL_CHARS: usize = 200;
/// Characters of a preset's description read from a recording's header.
const DESCRIPTION_CHARS: usize = 4000;

/// The header with its labels as they may be shown: a file's text is untrusted, so control
/// characters are escaped and a label longer than a line can hold is cut, saying so. A header
/// movescope wrote is unchanged.
fn tamed(mut h: Header) -> Header {
    use crate::support::text::{is_plain, shown, shown_lines};
    for label in [
        &mut h.app_version,
        &mut h.mode,
        &mut h.preset_name,
        &mut h.preset.title,
    ] {
        *label = shown(label, LABEL_CHARS);
    }
    h.preset.description = shown_lines(&h.preset.description, DESCRIPTION_CHARS);
    for b in &mut h.bindings {
        if !is_plain(&b.name, LABEL_CHARS) {
            b.name = shown(&b.name, LABEL_CHARS).into();
        }
    }
    h
}

/// The sequence number of the records chunk at `at`, when one is there.
fn records_seq_at(file: &mut File, at: u64, file_len: u64) -> Option<u32> {
    let (frame, _) = read_chunk_at(file, at, file_len).ok()?;
    (frame.kind == ChunkKind::Records as u8).then_some(frame.seq)
}

/// Damaged places a recording lists (the count of the rest is not kept).
const MAX_DAMAGES_LISTED: usize = 64;

/// The offset of the first intact chunk (any kind: its frame decodes and its payload's
/// checksum holds) at or after `from`, found by its magic; `None` when there is none.
fn next_intact_chunk(file: &mut File, from: u64, file_len: u64) -> Option<u64> {
    const WINDOW: usize = 1 << 20;
    let mut at = from;
    let mut buf = vec![0u8; WINDOW + CHUNK_MAGIC.len()];
    while at < file_len {
        let n = ((file_len - at) as usize).min(buf.len());
        file.seek(SeekFrom::Start(at)).ok()?;
        file.read_exact(&mut buf[..n]).ok()?;
        let mut from_i = 0;
        while let Some(i) = buf[from_i..n]
            .windows(CHUNK_MAGIC.len())
            .position(|w| w == CHUNK_MAGIC)
        {
            let candidate = at + (from_i + i) as u64;
            if read_chunk_at(file, candidate, file_len).is_ok() {
                return Some(candidate);
            }
            from_i += i + 1;
        }
        if n < buf.len() {
            return None;
        }
        // Overlap by the magic's length so a magic across the window's edge is found.
        at += WINDOW as u64;
    }
    None
}
