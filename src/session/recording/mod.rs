//! Session recordings (`.msrec`): a human-readable RON header followed by a compact body of
//! checksummed, compressed chunks and an index for seeking.
//!
//! ```text
//! MOVESCOPE-RECORDING format=2 header=<N> crc=<CRC-32 of the RON, hex>\n     one text line
//! <N bytes of RON: Header>\n                      readable in any editor
//! header copy chunk                               the same RON, checksummed (format 2)
//! chunk*                                          one per second of session time
//! index chunk                                     chunk offsets and times, the run's footer
//! trailer: "MSTRAIL1" + u64 LE offset of the index chunk
//! ```
//!
//! A chunk is a 44-byte frame ([`ChunkFrame`]) and its payload, zstd-compressed: the records'
//! session times as XOR-delta byte planes, then each record's `(machine, event)` in postcard. The frame carries a CRC-32 over itself and the payload, so damage is found
//! exactly where it starts. The recorder writes a chunk as soon as a second of session time
//! has gathered (a crash or kill loses at most that second); the index and trailer come only
//! when the recording is finished, and a file without them is read by scanning its chunks.
//!
//! Chunk boundaries depend only on the records, so a virtual-time session writes the same
//! bytes every time (apart from the header's wall-clock start).

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use crossbeam_channel::{Sender, bounded};
use serde::{Deserialize, Serialize};

use crate::model::binding::Binding;
use crate::model::telemetry::{Machine, Record};
use crate::session::preset::Preset;

/// The format this build writes and the newest it reads.
/// Format 2 adds the header's checksum and its backup copy; format 1 files still open.
pub const FORMAT_VERSION: u32 = 2;
/// File extension of recordings.
pub const EXTENSION: &str = "msrec";
/// Session seconds gathered into one chunk.
pub const CHUNK_SECONDS: f64 = 1.0;

const MAGIC_LINE: &str = "MOVESCOPE-RECORDING";
const CHUNK_MAGIC: [u8; 4] = *b"MSCH";
const TRAILER_MAGIC: [u8; 8] = *b"MSTRAIL1";
const FRAME_BYTES: usize = 44;
const TRAILER_BYTES: u64 = 16;
/// Larger chunks than these are damage, not data (a chunk holds about a second).
const MAX_PAYLOAD: u32 = 64 << 20;
const MAX_RAW: u32 = 256 << 20;
/// A chunk is also closed when it holds this many records.
const MAX_PENDING: usize = 250_000;
const ZSTD_LEVEL: i32 = 3;

/// The human-readable start of a recording.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub format: u32,
    /// movescope version that wrote the file.
    pub app_version: String,
    /// "deterministic" (virtual time) or "live".
    pub mode: String,
    /// Where the preset came from (a file name or "default").
    pub preset_name: String,
    pub seed: u64,
    /// Wall-clock start, milliseconds since 1970-01-01 UTC.
    pub started_unix_ms: u64,
    /// Machines of the session when it started.
    pub machines: Vec<Machine>,
    /// The server's binding list when the session started.
    pub bindings: Vec<Binding>,
    /// Session time the viewer opens at (bug-report recordings set it).
    #[serde(default)]
    pub cursor: Option<f64>,
    /// First session time the recording holds (a trimmed recording starts later than 0).
    #[serde(default)]
    pub t_start: f64,
    pub preset: Preset,
}

impl Header {
    /// The header of a new recording of `preset`.
    pub fn new(preset: &Preset, preset_name: &str, mode: &str) -> Result<Header, String> {
        let bindings = preset.checked_bindings()?.list().to_vec();
        let mut machines = vec![Machine::Server];
        machines.extend(preset.network_clients().map(Machine::Client));
        let started_unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        Ok(Header {
            format: FORMAT_VERSION,
            app_version: env!("CARGO_PKG_VERSION").to_string(),
            mode: mode.to_string(),
            preset_name: preset_name.to_string(),
            seed: preset.seed,
            started_unix_ms,
            machines,
            bindings,
            cursor: None,
            t_start: 0.0,
            preset: preset.clone(),
        })
    }
}

/// What the run knew when it ended (kept in the index chunk).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Footer {
    pub simulated_seconds: f64,
    pub wall_seconds: f64,
    /// Telemetry records a live session dropped before they reached the recorder.
    pub dropped_records: u64,
}

/// Where one chunk is and what it covers.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkInfo {
    pub offset: u64,
    pub seq: u32,
    pub count: u32,
    pub t_first: f64,
    pub t_last: f64,
}

#[derive(Serialize, Deserialize)]
struct IndexPayload {
    chunks: Vec<ChunkInfo>,
    footer: Footer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ChunkKind {
    Records = 0,
    Index = 2,
    /// The header's RON again, checksummed like any chunk: used when the text header is
    /// damaged.
    HeaderCopy = 3,
}

/// The fixed frame in front of every chunk payload.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ChunkFrame {
    kind: u8,
    /// How a records payload encodes its records: 0 (format 1) each `(machine, event)` in
    /// postcard; [`ENCODING_TAGGED`] a tag byte first, pawn samples packed.
    encoding: u8,
    seq: u32,
    count: u32,
    t_first: f64,
    t_last: f64,
    raw_len: u32,
    payload_len: u32,
    crc: u32,
}

impl ChunkFrame {
    fn bytes_without_crc(&self) -> [u8; FRAME_BYTES - 4] {
        let mut b = [0u8; FRAME_BYTES - 4];
        b[0..4].copy_from_slice(&CHUNK_MAGIC);
        b[4] = self.kind;
        b[5] = 1; // flags: zstd
        b[6] = self.encoding;
        // b[7] reserved
        b[8..12].copy_from_slice(&self.seq.to_le_bytes());
        b[12..16].copy_from_slice(&self.count.to_le_bytes());
        b[16..24].copy_from_slice(&self.t_first.to_le_bytes());
        b[24..32].copy_from_slice(&self.t_last.to_le_bytes());
        b[32..36].copy_from_slice(&self.raw_len.to_le_bytes());
        b[36..40].copy_from_slice(&self.payload_len.to_le_bytes());
        b
    }

    fn checksum(&self, payload: &[u8]) -> u32 {
        let mut h = crc32fast::Hasher::new();
        h.update(&self.bytes_without_crc());
        h.update(payload);
        h.finalize()
    }

    fn encode(&self) -> [u8; FRAME_BYTES] {
        let mut b = [0u8; FRAME_BYTES];
        b[..FRAME_BYTES - 4].copy_from_slice(&self.bytes_without_crc());
        b[FRAME_BYTES - 4..].copy_from_slice(&self.crc.to_le_bytes());
        b
    }

    /// Parses a frame; `Err` says what is wrong with it.
    fn decode(b: &[u8; FRAME_BYTES]) -> Result<ChunkFrame, String> {
        if b[0..4] != CHUNK_MAGIC {
            return Err("expected a chunk (`MSCH`), found other bytes".into());
        }
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let f64_at = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i..i + 8]);
            f64::from_le_bytes(a)
        };
        let f = ChunkFrame {
            kind: b[4],
            encoding: b[6],
            seq: u32_at(8),
            count: u32_at(12),
            t_first: f64_at(16),
            t_last: f64_at(24),
            raw_len: u32_at(32),
            payload_len: u32_at(36),
            crc: u32_at(40),
        };
        if b[5] != 1 {
            return Err(format!("unknown chunk flags {}", b[5]));
        }
        if b[6] > ENCODING_TAGGED {
            return Err(format!("unknown record encoding {}", b[6]));
        }
        if f.kind != ChunkKind::Records as u8
            && f.kind != ChunkKind::Index as u8
            && f.kind != ChunkKind::HeaderCopy as u8
        {
            return Err(format!("unknown chunk kind {}", f.kind));
        }
        if f.payload_len > MAX_PAYLOAD || f.raw_len > MAX_RAW {
            return Err(format!(
                "implausible chunk sizes ({} compressed, {} raw bytes)",
                f.payload_len, f.raw_len
            ));
        }
        Ok(f)
    }
}

/// A problem with a recording file, with where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordingError {
    pub path: String,
    /// Byte offset of the problem, when it has one.
    pub offset: Option<u64>,
    /// Line and column (1-based) in the header, for header problems.
    pub position: Option<(usize, usize)>,
    pub message: String,
}

impl std::fmt::Display for RecordingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.position, self.offset) {
            (Some((l, c)), _) => write!(f, "{}:{l}:{c}: {}", self.path, self.message),
            (None, Some(o)) => write!(f, "{}: byte {o}: {}", self.path, self.message),
            (None, None) => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

impl std::error::Error for RecordingError {}

/// Where a readable recording stops being readable.
#[derive(Clone, Debug, PartialEq)]
pub struct Damage {
    /// Byte offset where the damage starts.
    pub offset: u64,
    /// Number of the first chunk that could not be read.
    pub chunk: u32,
    /// Session time up to which everything loaded.
    pub loaded_until: f64,
    pub message: String,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "damaged from byte {} (chunk {}): {}; everything up to {:.2} s loaded",
            self.offset, self.chunk, self.message, self.loaded_until
        )
    }
}

// ---------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------

struct Job {
    frame: ChunkFrame,
    records: Vec<Record>,
}

/// A chunk's raw payload: the times as byte planes, then each `(machine, event)` in postcard.
/// Records encoding 1: each record starts with a tag — [`TAG_POSTCARD`]: `(machine, event)` in
/// postcard; [`TAG_SAMPLE`]: a pawn sample on its grids ([`PawnSample::on_grid`]), as the
/// difference, in whole grid steps, from a prediction made from the previous sample of the
/// same machine, pawn and kind in the chunk (zigzag varints): the location from the previous
/// location moved by the previous velocity over the time between the two (dead reckoning, a
/// residual of a few steps), velocity and yaw from their previous values. The prediction is
/// computed identically when reading (the times are exact), so every value reads back bit for
/// bit.
const ENCODING_TAGGED: u8 = 1;
const TAG_POSTCARD: u8 = 0;
const TAG_SAMPLE: u8 = 1;
/// `MoveClosed` with its timestamp and delta in the wire's 10 µs units: the id as the step
/// from the machine's previous closed move (usually 1), the delta, and the timestamp as its
/// difference from the previous timestamp plus this delta (usually 0).
const TAG_MOVE_CLOSED: u8 = 2;
/// `RemoteMoveExecuted` packed the same way per client (the age stays a full f64).
const TAG_REMOTE_MOVE: u8 = 3;

/// A time in the wire's units, if it is exactly one.
fn exact_units(t: f64) -> Option<i64> {
    let u = crate::model::cycle::to_units(t);
    (crate::model::cycle::from_units(u).to_bits() == t.to_bits()).then_some(u)
}

/// The previous move (id, timestamp units) of each client, for the move tags.
#[derive(Default)]
struct MovePrev {
    closed: std::collections::HashMap<Machine, (u32, i64)>,
    remote: std::collections::HashMap<u16, (u32, i64)>,
}

fn put_move(raw: &mut Vec<u8>, prev: &mut (u32, i64), id: u32, ts: i64, delta: i64) {
    put_varint(raw, zigzag(i64::from(id) - i64::from(prev.0)));
    put_varint(raw, zigzag(delta));
    put_varint(raw, zigzag(ts - (prev.1 + delta)));
    *prev = (id, ts);
}

fn take_move(rest: &mut &[u8], prev: &mut (u32, i64)) -> Option<(u32, f64, f64)> {
    let id = i64::from(prev.0) + unzigzag(take_varint(rest)?);
    let delta = unzigzag(take_varint(rest)?);
    let ts = prev
        .1
        .checked_add(delta)?
        .checked_add(unzigzag(take_varint(rest)?))?;
    let id = u32::try_from(id).ok()?;
    *prev = (id, ts);
    Some((
        id,
        crate::model::cycle::from_units(ts),
        crate::model::cycle::from_units(delta),
    ))
}

use crate::model::telemetry::{Event, PawnSample, SampleKind};

type SampleKey = (Machine, u16, u8);
/// A sample's grid steps and its time (what the next one is predicted from).
type SamplePrev = ([i64; 7], f64);

/// The steps a sample at time `t` is expected to have after `prev`.
fn predict(prev: &SamplePrev, t: f64) -> [i64; 7] {
    let (s, t0) = *prev;
    let mut p = s;
    let dt = t - t0;
    if dt.is_finite() && dt > 0.0 && dt < 10.0 {
        let per_step = PawnSample::VELOCITY_STEP / PawnSample::LOCATION_STEP * dt;
        for i in 0..3 {
            let moved = (s[3 + i] as f64 * per_step).round();
            if moved.abs() < 1e15 {
                p[i] = s[i].wrapping_add(moved as i64);
            }
        }
    }
    p
}

fn sample_steps(s: &PawnSample) -> Option<[i64; 7]> {
    let k = |x: f64, step: f64| {
        let n = (x / step).round();
        // Exactly on the grid, or not packed (then it goes as postcard, bit for bit).
        (n.abs() < 1e15 && ((n as i64) as f64 * step).to_bits() == x.to_bits()).then_some(n as i64)
    };
    Some([
        k(s.location.x, PawnSample::LOCATION_STEP)?,
        k(s.location.y, PawnSample::LOCATION_STEP)?,
        k(s.location.z, PawnSample::LOCATION_STEP)?,
        k(s.velocity.x, PawnSample::VELOCITY_STEP)?,
        k(s.velocity.y, PawnSample::VELOCITY_STEP)?,
        k(s.velocity.z, PawnSample::VELOCITY_STEP)?,
        k(s.yaw, PawnSample::YAW_STEP)?,
    ])
}

fn kind_byte(k: SampleKind) -> u8 {
    match k {
        SampleKind::Predicted => 0,
        SampleKind::Displayed => 1,
        SampleKind::Authoritative => 2,
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn take_varint(b: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = b.split_first()?;
        *b = rest;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn encode_records(records: &[Record]) -> Result<Vec<u8>, String> {
    let times: Vec<f64> = records.iter().map(|r| r.t).collect();
    let mut raw = time_planes(&times);
    raw.reserve(records.len() * 24);
    let mut last: std::collections::HashMap<SampleKey, SamplePrev> = Default::default();
    let mut moves = MovePrev::default();
    // Most records fit a small stack buffer (encoding into a slice is the fast path).
    let mut buf = [0u8; 256];
    for r in records {
        if let Event::PawnSample(s) = &r.event
            && let Some(steps) = sample_steps(s)
        {
            raw.push(TAG_SAMPLE);
            let m = postcard::to_slice(&r.machine, &mut buf).map_err(|e| e.to_string())?;
            raw.extend_from_slice(m);
            put_varint(&mut raw, u64::from(s.pawn));
            put_varint(&mut raw, s.owner.map_or(0, |o| u64::from(o) + 1));
            let kind = kind_byte(s.kind);
            raw.push(kind);
            let prev = last
                .entry((r.machine, s.pawn, kind))
                .or_insert(([0; 7], r.t));
            let expected = predict(prev, r.t);
            for (p, v) in expected.iter().zip(steps) {
                put_varint(&mut raw, zigzag(v.wrapping_sub(*p)));
            }
            *prev = (steps, r.t);
            continue;
        }
        if let Event::MoveClosed {
            move_id,
            timestamp,
            delta,
            frames,
            substeps,
        } = &r.event
            && let (Some(ts), Some(d)) = (exact_units(*timestamp), exact_units(*delta))
        {
            raw.push(TAG_MOVE_CLOSED);
            let m = postcard::to_slice(&r.machine, &mut buf).map_err(|e| e.to_string())?;
            raw.extend_from_slice(m);
            let prev = moves.closed.entry(r.machine).or_insert((0, 0));
            put_move(&mut raw, prev, *move_id, ts, d);
            put_varint(&mut raw, u64::from(*frames));
            put_varint(&mut raw, u64::from(*substeps));
            continue;
        }
        if let Event::RemoteMoveExecuted(x) = &r.event
            && let (Some(ts), Some(d)) = (exact_units(x.timestamp), exact_units(x.delta))
        {
            raw.push(TAG_REMOTE_MOVE);
            let m = postcard::to_slice(&r.machine, &mut buf).map_err(|e| e.to_string())?;
            raw.extend_from_slice(m);
            put_varint(&mut raw, u64::from(x.client));
            put_varint(&mut raw, u64::from(x.pawn));
            let prev = moves.remote.entry(x.client).or_insert((0, 0));
            put_move(&mut raw, prev, x.move_id, ts, d);
            put_varint(&mut raw, u64::from(x.substeps));
            raw.extend_from_slice(&x.age.to_le_bytes());
            continue;
        }
        raw.push(TAG_POSTCARD);
        match postcard::to_slice(&(r.machine, &r.event), &mut buf) {
            Ok(bytes) => raw.extend_from_slice(bytes),
            Err(_) => {
                let v = postcard::to_stdvec(&(r.machine, &r.event)).map_err(|e| e.to_string())?;
                raw.extend_from_slice(&v);
            }
        }
    }
    Ok(raw)
}

/// One record of a tagged payload; `last` carries the samples' previous steps.
fn take_tagged(
    rest: &mut &[u8],
    t: f64,
    last: &mut std::collections::HashMap<SampleKey, SamplePrev>,
    moves: &mut MovePrev,
) -> Result<(Machine, Event), String> {
    let (&tag, tail) = rest.split_first().ok_or("the record ends before its tag")?;
    *rest = tail;
    let short = |what: &str| format!("a packed {what} ends early or is out of range");
    let u16_of = |v: u64| u16::try_from(v).ok();
    match tag {
        TAG_MOVE_CLOSED => {
            let (machine, tail) =
                postcard::take_from_bytes::<Machine>(rest).map_err(|e| e.to_string())?;
            *rest = tail;
            let prev = moves.closed.entry(machine).or_insert((0, 0));
            let (move_id, timestamp, delta) =
                take_move(rest, prev).ok_or_else(|| short("closed move"))?;
            let frames = take_varint(rest)
                .and_then(u16_of)
                .ok_or_else(|| short("closed move"))?;
            let substeps = take_varint(rest)
                .and_then(u16_of)
                .ok_or_else(|| short("closed move"))?;
            Ok((
                machine,
                Event::MoveClosed {
                    move_id,
                    timestamp,
                    delta,
                    frames,
                    substeps,
                },
            ))
        }
        TAG_REMOTE_MOVE => {
            let (machine, tail) =
                postcard::take_from_bytes::<Machine>(rest).map_err(|e| e.to_string())?;
            *rest = tail;
            let bad = || short("remote move");
            let client = take_varint(rest).and_then(u16_of).ok_or_else(bad)?;
            let pawn = take_varint(rest).and_then(u16_of).ok_or_else(bad)?;
            let prev = moves.remote.entry(client).or_insert((0, 0));
            let (move_id, timestamp, delta) = take_move(rest, prev).ok_or_else(bad)?;
            let substeps = take_varint(rest).and_then(u16_of).ok_or_else(bad)?;
            let (age, tail) = rest.split_at_checked(8).ok_or_else(bad)?;
            *rest = tail;
            let age = f64::from_le_bytes(age.try_into().map_err(|_| bad())?);
            Ok((
                machine,
                Event::RemoteMoveExecuted(std::sync::Arc::new(
                    crate::model::telemetry::RemoteMove {
                        pawn,
                        client,
                        move_id,
                        timestamp,
                        delta,
                        substeps,
                        age,
                    },
                )),
            ))
        }
        TAG_POSTCARD => {
            let (v, tail) =
                postcard::take_from_bytes::<(Machine, Event)>(rest).map_err(|e| e.to_string())?;
            *rest = tail;
            Ok(v)
        }
        TAG_SAMPLE => {
            let (machine, tail) =
                postcard::take_from_bytes::<Machine>(rest).map_err(|e| e.to_string())?;
            *rest = tail;
            let bad = || "a pawn sample ends early".to_string();
            let pawn = u16::try_from(take_varint(rest).ok_or_else(bad)?)
                .map_err(|_| "a pawn id out of range".to_string())?;
            let owner = match take_varint(rest).ok_or_else(bad)? {
                0 => None,
                o => Some(u16::try_from(o - 1).map_err(|_| "an owner out of range".to_string())?),
            };
            let (&kind, tail) = rest.split_first().ok_or_else(bad)?;
            *rest = tail;
            let sample_kind = match kind {
                0 => SampleKind::Predicted,
                1 => SampleKind::Displayed,
                2 => SampleKind::Authoritative,
                k => return Err(format!("unknown sample kind {k}")),
            };
            let prev = last.entry((machine, pawn, kind)).or_insert(([0; 7], t));
            let mut steps = predict(prev, t);
            for p in steps.iter_mut() {
                *p = p.wrapping_add(unzigzag(take_varint(rest).ok_or_else(bad)?));
            }
            *prev = (steps, t);
            let v = |i: usize, step: f64| steps[i] as f64 * step;
            let (ls, vs) = (PawnSample::LOCATION_STEP, PawnSample::VELOCITY_STEP);
            Ok((
                machine,
                Event::PawnSample(std::sync::Arc::new(PawnSample {
                    pawn,
                    owner,
                    kind: sample_kind,
                    location: glam::DVec3::new(v(0, ls), v(1, ls), v(2, ls)),
                    velocity: glam::DVec3::new(v(3, vs), v(4, vs), v(5, vs)),
                    yaw: v(6, PawnSample::YAW_STEP),
                })),
            ))
        }
        t => Err(format!("unknown record tag {t}")),
    }
}

enum ToWriter {
    Chunk(Job),
    Finish(Footer),
}

impl ToWriter {
    fn records(&self) -> usize {
        match self {
            ToWriter::Chunk(j) => j.records.len(),
            ToWriter::Finish(_) => 0,
        }
    }
}

/// What a finished recording holds.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordingStats {
    pub path: PathBuf,
    pub bytes: u64,
    pub chunks: u32,
    pub records: u64,
}

/// Writes a recording while a session runs. The caller's thread only gathers records;
/// encoding, compression, checksums and file writes happen on a writer thread, so a fast
/// virtual-time run is slowed as little as possible. Every chunk is written (and flushed to the OS) as
/// soon as it is complete.
pub struct Recorder {
    path: PathBuf,
    /// Replacing an existing file: the recording is written to `path` (a temporary sibling)
    /// and renamed over this one when finished.
    replaces: Option<PathBuf>,
    tx: Option<Sender<ToWriter>>,
    writer: Option<JoinHandle<Result<RecordingStats, String>>>,
    /// The gathered records (encoded, compressed and written on the writer thread).
    pending: Vec<Record>,
    count: u32,
    t_first: f64,
    t_last: f64,
    chunk_start: f64,
    seq: u32,
    records: u64,
    /// Chunks the writer has not taken yet (only when [`Recorder::never_block`] was asked).
    backlog: std::collections::VecDeque<ToWriter>,
    backlog_records: usize,
    /// `Some(bytes)`: `push` never blocks; chunks wait in the backlog, up to this many bytes
    /// of records, when the writer lags.
    backlog_limit: Option<usize>,
}

impl Recorder {
    /// Creates the file (and its folder) and writes the header. An existing file is never
    /// replaced here (see [`Recorder::create_replacing`]).
    pub fn create(path: &Path, header: &Header) -> Result<Recorder, String> {
        Self::create_at(path, None, header)
    }

    /// Like [`Recorder::create`], but an existing file at `path` is replaced — by a rename
    /// of the complete new recording when it is finished (`--force`). Until then the old
    /// file is untouched and the new one grows in a temporary sibling (which a crash leaves
    /// readable).
    pub fn create_replacing(path: &Path, header: &Header) -> Result<Recorder, String> {
        if path.exists() {
            Self::create_at(
                &crate::support::output::temp_sibling(path),
                Some(path.to_path_buf()),
                header,
            )
        } else {
            Self::create_at(path, None, header)
        }
    }

    fn create_at(
        path: &Path,
        replaces: Option<PathBuf>,
        header: &Header,
    ) -> Result<Recorder, String> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        if path.is_dir() {
            return Err(format!(
                "{}: is a folder; expected a recording file name (.msrec)",
                path.display()
            ));
        }
        let cfg = ron::ser::PrettyConfig::new().depth_limit(3);
        let ron_text = ron::ser::to_string_pretty(header, cfg).map_err(|e| e.to_string())?;
        let mut file = File::options()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => format!(
                    "{}: exists; a recording is never replaced without --force",
                    path.display()
                ),
                _ => format!("{}: {e}", path.display()),
            })?;
        let head = format!(
            "{MAGIC_LINE} format={} header={} crc={:08x}\n{ron_text}\n",
            header.format,
            ron_text.len(),
            crc32fast::hash(ron_text.as_bytes())
        );
        file.write_all(head.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let mut offset = head.len() as u64;
        // The backup copy of the header, checksummed like every chunk.
        let copy = ChunkFrame {
            kind: ChunkKind::HeaderCopy as u8,
            encoding: 0,
            seq: u32::MAX,
            count: 0,
            t_first: 0.0,
            t_last: 0.0,
            raw_len: 0,
            payload_len: 0,
            crc: 0,
        };
        write_chunk(&mut file, &mut offset, copy, ron_text.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let (tx, rx) = bounded::<ToWriter>(4);
        let shown = path.to_path_buf();
        let writer = std::thread::Builder::new()
            .name("recorder".into())
            .spawn(move || write_chunks(file, shown, offset, rx))
            .map_err(|e| e.to_string())?;
        Ok(Recorder {
            path: path.to_path_buf(),
            replaces,
            tx: Some(tx),
            writer: Some(writer),
            pending: Vec::with_capacity(1 << 14),
            count: 0,
            t_first: f64::INFINITY,
            t_last: f64::NEG_INFINITY,
            chunk_start: 0.0,
            seq: 0,
            records: 0,
            backlog: std::collections::VecDeque::new(),
            backlog_records: 0,
            backlog_limit: None,
        })
    }

    /// `push` and `flush` never block from now on (for a UI thread): when the writer lags,
    /// finished chunks wait in memory, up to `limit_bytes` of records, and are handed over as
    /// the writer catches up. Past the limit the recording stops with an error saying so;
    /// nothing is dropped silently.
    pub fn never_block(&mut self, limit_bytes: usize) {
        self.backlog_limit = Some(limit_bytes);
    }

    /// Records waiting for the writer (0 unless it lags).
    pub fn lagging(&self) -> usize {
        self.backlog_records
    }

    /// Hands waiting chunks to the writer while it takes them without blocking.
    fn drain_backlog(&mut self) -> Result<(), String> {
        while let Some(msg) = self.backlog.pop_front() {
            let Some(tx) = self.tx.as_ref() else {
                return Err("the recorder stopped".into());
            };
            let n = msg.records();
            match tx.try_send(msg) {
                Ok(()) => self.backlog_records -= n,
                Err(crossbeam_channel::TrySendError::Full(back)) => {
                    self.backlog.push_front(back);
                    return Ok(());
                }
                Err(crossbeam_channel::TrySendError::Disconnected(_)) => {
                    return Err(self
                        .join()
                        .err()
                        .unwrap_or_else(|| "the recorder stopped".into()));
                }
            }
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records written so far (including the chunk being gathered).
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Adds one record; closes the chunk when it spans [`CHUNK_SECONDS`].
    pub fn push(&mut self, r: &Record) -> Result<(), String> {
        if !self.backlog.is_empty() {
            self.drain_backlog()?;
        }
        if self.count > 0
            && (r.t - self.chunk_start >= CHUNK_SECONDS || self.pending.len() >= MAX_PENDING)
        {
            self.flush()?;
        }
        if self.count == 0 {
            self.chunk_start = r.t;
        }
        self.pending.push(r.clone());
        self.count += 1;
        self.records += 1;
        self.t_first = self.t_first.min(r.t);
        self.t_last = self.t_last.max(r.t);
        Ok(())
    }

    /// Hands the gathered records to the writer as a chunk (nothing when there are none).
    pub fn flush(&mut self) -> Result<(), String> {
        if self.count == 0 {
            return Ok(());
        }
        let frame = ChunkFrame {
            kind: ChunkKind::Records as u8,
            encoding: ENCODING_TAGGED,
            seq: self.seq,
            count: self.count,
            t_first: self.t_first,
            t_last: self.t_last,
            raw_len: 0,
            payload_len: 0,
            crc: 0,
        };
        self.seq += 1;
        self.count = 0;
        self.t_first = f64::INFINITY;
        self.t_last = f64::NEG_INFINITY;
        let records = std::mem::replace(&mut self.pending, Vec::with_capacity(1 << 14));
        self.send(ToWriter::Chunk(Job { frame, records }))
    }

    fn send(&mut self, msg: ToWriter) -> Result<(), String> {
        if let Some(limit) = self.backlog_limit
            && !matches!(msg, ToWriter::Finish(_))
        {
            self.backlog_records += msg.records();
            self.backlog.push_back(msg);
            self.drain_backlog()?;
            let bytes = self.backlog_records * std::mem::size_of::<Record>();
            if bytes > limit {
                let waiting = self.backlog_records;
                self.backlog.clear();
                self.backlog_records = 0;
                let _ = self.join();
                return Err(format!(
                    "the recording's writer fell behind by more than {} MB: recording stopped, the last {waiting} records were not written",
                    limit >> 20
                ));
            }
            return Ok(());
        }
        // Anything waiting goes first, in order.
        while let Some(m) = self.backlog.pop_front() {
            self.backlog_records -= m.records();
            if self.tx.as_ref().is_none_or(|tx| tx.send(m).is_err()) {
                break;
            }
        }
        let sent = self.tx.as_ref().is_some_and(|tx| tx.send(msg).is_ok());
        if sent {
            Ok(())
        } else {
            // The writer stopped: report why.
            Err(self
                .join()
                .err()
                .unwrap_or_else(|| "the recorder stopped".into()))
        }
    }

    fn join(&mut self) -> Result<RecordingStats, String> {
        // Chunks still waiting go to the writer first (blocking: the writer is ending).
        while let Some(msg) = self.backlog.pop_front() {
            self.backlog_records -= msg.records();
            if self.tx.as_ref().is_none_or(|tx| tx.send(msg).is_err()) {
                self.backlog.clear();
                self.backlog_records = 0;
                break;
            }
        }
        self.tx = None;
        match self.writer.take() {
            Some(h) => h
                .join()
                .unwrap_or_else(|_| Err("the recording thread panicked".into())),
            None => Err("the recording was already finished".into()),
        }
    }

    /// Writes the last chunk, the index and the trailer, and closes the file.
    pub fn finish(mut self, footer: Footer) -> Result<RecordingStats, String> {
        self.flush()?;
        self.send(ToWriter::Finish(footer))?;
        let mut stats = self.join()?;
        stats.records = self.records;
        if let Some(target) = self.replaces.take() {
            std::fs::rename(&self.path, &target)
                .map_err(|e| format!("{}: {e}", target.display()))?;
            stats.path = target;
        }
        Ok(stats)
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        // Dropped without finish: flush what was gathered; the file stays readable by scanning.
        if self.writer.is_some() {
            let _ = self.flush();
            let _ = self.join();
        }
    }
}

fn write_chunk(
    file: &mut File,
    offset: &mut u64,
    mut frame: ChunkFrame,
    raw: &[u8],
) -> std::io::Result<u64> {
    let payload = zstd::bulk::compress(raw, ZSTD_LEVEL)?;
    frame.raw_len = raw.len() as u32;
    frame.payload_len = payload.len() as u32;
    frame.crc = frame.checksum(&payload);
    let at = *offset;
    file.write_all(&frame.encode())?;
    file.write_all(&payload)?;
    file.flush()?;
    *offset += (FRAME_BYTES + payload.len()) as u64;
    Ok(at)
}

fn write_chunks(
    mut file: File,
    path: PathBuf,
    mut offset: u64,
    rx: crossbeam_channel::Receiver<ToWriter>,
) -> Result<RecordingStats, String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut chunks = Vec::new();
    let mut index_written = false;
    for msg in rx {
        match msg {
            ToWriter::Chunk(job) => {
                let raw = encode_records(&job.records)?;
                let at = write_chunk(&mut file, &mut offset, job.frame, &raw).map_err(err)?;
                chunks.push(ChunkInfo {
                    offset: at,
                    seq: job.frame.seq,
                    count: job.frame.count,
                    t_first: job.frame.t_first,
                    t_last: job.frame.t_last,
                });
            }
            ToWriter::Finish(footer) => {
                let n = chunks.len() as u32;
                let body = postcard::to_stdvec(&IndexPayload {
                    chunks: chunks.clone(),
                    footer,
                })
                .map_err(|e| e.to_string())?;
                let frame = ChunkFrame {
                    kind: ChunkKind::Index as u8,
                    encoding: 0,
                    seq: n,
                    count: n,
                    t_first: chunks.first().map_or(0.0, |c| c.t_first),
                    t_last: chunks.last().map_or(0.0, |c| c.t_last),
                    raw_len: 0,
                    payload_len: 0,
                    crc: 0,
                };
                let at = write_chunk(&mut file, &mut offset, frame, &body).map_err(err)?;
                let mut trailer = [0u8; TRAILER_BYTES as usize];
                trailer[..8].copy_from_slice(&TRAILER_MAGIC);
                trailer[8..].copy_from_slice(&at.to_le_bytes());
                file.write_all(&trailer).map_err(err)?;
                offset += TRAILER_BYTES;
                file.sync_all().map_err(err)?;
                index_written = true;
                break;
            }
        }
    }
    if !index_written {
        let _ = file.sync_all();
    }
    Ok(RecordingStats {
        path,
        bytes: offset,
        chunks: chunks.len() as u32,
        records: 0,
    })
}

// ---------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------

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
    pub file_len: u64,
    body_offset: u64,
    /// Set when the text header could not be used and its backup copy was (why).
    pub header_note: Option<String>,
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
        let (header, body_offset, header_note) =
            match Self::text_header(&shown, &mut file, file_len) {
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
            header,
            chunks: Vec::new(),
            footer: None,
            damage: None,
            file_len,
            body_offset,
            header_note,
        };
        if !rec.read_index(&mut file) {
            rec.scan(&mut file);
        }
        Ok(rec)
    }

    /// The first line and the RON header after it; the body's offset.
    fn text_header(
        shown: &str,
        file: &mut File,
        file_len: u64,
    ) -> Result<(Header, u64), TextHeaderError> {
        let error = |offset: Option<u64>, message: String| {
            TextHeaderError::Damaged(RecordingError {
                path: shown.to_string(),
                offset,
                position: None,
                message,
            })
        };
        file.seek(SeekFrom::Start(0))
            .map_err(|e| error(Some(0), format!("cannot read: {e}")))?;
        let mut rd = BufReader::new(&mut *file);
        // The first line: magic, format version, header length, checksum.
        let mut line = Vec::new();
        for _ in 0..200 {
            let mut b = [0u8; 1];
            match rd.read(&mut b) {
                Ok(1) if b[0] == b'\n' => break,
                Ok(1) => line.push(b[0]),
                Ok(_) => break,
                Err(e) => return Err(error(Some(0), format!("cannot read: {e}"))),
            }
        }
        let line = String::from_utf8_lossy(&line).to_string();
        let mut words = line.split(' ');
        if words.next() != Some(MAGIC_LINE) {
            return Err(error(
                Some(0),
                format!(
                    "not a movescope recording: expected a first line starting with `{MAGIC_LINE}`"
                ),
            ));
        }
        let mut format = None;
        let mut header_len = None;
        let mut crc = None;
        for w in words {
            if let Some(v) = w.strip_prefix("format=") {
                format = v.parse::<u32>().ok();
            } else if let Some(v) = w.strip_prefix("header=") {
                header_len = v.parse::<u64>().ok();
            } else if let Some(v) = w.strip_prefix("crc=") {
                crc = Some(u32::from_str_radix(v, 16).ok());
            }
        }
        let Some(format) = format else {
            return Err(error(
                Some(0),
                "the first line has no readable `format=<number>`".into(),
            ));
        };
        let Some(header_len) = header_len.filter(|n| *n <= file_len) else {
            return Err(error(
                Some(0),
                "the first line has no plausible `header=<bytes>`".into(),
            ));
        };
        let first_line_len = line.len() as u64 + 1;
        let mut text = vec![0u8; header_len as usize];
        rd.read_exact(&mut text).map_err(|_| {
            error(
                Some(first_line_len),
                format!("the file ends inside its header (expected {header_len} bytes of RON)"),
            )
        })?;
        if let Some(expected) = crc
            && expected != Some(crc32fast::hash(&text))
        {
            return Err(error(
                Some(first_line_len),
                "the header does not match its checksum".into(),
            ));
        }
        let text = String::from_utf8(text).map_err(|e| {
            error(
                Some(first_line_len),
                format!("the header is not UTF-8: {e}"),
            )
        })?;
        if format > FORMAT_VERSION {
            let writer = text
                .split("app_version:")
                .nth(1)
                .and_then(|s| s.split('"').nth(1))
                .unwrap_or("an unknown version");
            // A header written by this movescope or an older one cannot belong to a newer
            // format: the first line's digit is damaged, and the backup copy can help.
            if let (Some(w), Some(me)) = (
                version_parts(writer),
                version_parts(env!("CARGO_PKG_VERSION")),
            ) && w <= me
            {
                return Err(error(
                    Some(0),
                    format!(
                        "the first line says format {format}, but its header was written by \
                         movescope {writer}, which writes format {FORMAT_VERSION} at most: the \
                         first line is damaged"
                    ),
                ));
            }
            return Err(TextHeaderError::Newer(RecordingError {
                path: shown.to_string(),
                offset: None,
                position: None,
                message: format!(
                    "recording format {format} (written by movescope {writer}) is newer than this \
                     movescope {} reads (format {FORMAT_VERSION}); open it with a newer movescope",
                    env!("CARGO_PKG_VERSION")
                ),
            }));
        }
        let header: Header = ron::from_str(&text).map_err(|e| {
            TextHeaderError::Damaged(RecordingError {
                path: shown.to_string(),
                offset: None,
                // The header starts on line 2.
                position: Some((e.span.start.line + 1, e.span.start.col)),
                message: format!("header: {}", e.code),
            })
        })?;
        Ok((header, first_line_len + header_len + 1))
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
        // Spot-check the index against the chunks it points at (first, middle, last): wrong
        // offsets mean the chunks are found by scanning instead.
        let n = index.chunks.len();
        for i in [0, n / 2, n.saturating_sub(1)] {
            let Some(c) = index.chunks.get(i) else { break };
            let mut fb = [0u8; FRAME_BYTES];
            let frame = file
                .seek(SeekFrom::Start(c.offset))
                .and_then(|_| file.read_exact(&mut fb))
                .ok()
                .and_then(|()| ChunkFrame::decode(&fb).ok());
            if !frame.is_some_and(|f| {
                f.kind == ChunkKind::Records as u8 && f.seq == c.seq && f.count == c.count
            }) {
                return false;
            }
        }
        self.chunks = index.chunks;
        self.footer = Some(index.footer);
        true
    }

    /// Walks the chunks from the start of the body, checking each; stops at the first
    /// damage (recorded in `damage`) or at the end of the file.
    fn scan(&mut self, file: &mut File) {
        let mut at = self.body_offset;
        let mut seq = 0u32;
        while at < self.file_len {
            match read_chunk_at(file, at, self.file_len) {
                Ok((frame, raw)) => {
                    let len = FRAME_BYTES as u64 + u64::from(frame.payload_len);
                    if frame.kind == ChunkKind::HeaderCopy as u8 {
                        at += len;
                        continue;
                    }
                    if frame.kind == ChunkKind::Index as u8 {
                        if let Ok(index) = postcard::from_bytes::<IndexPayload>(&raw) {
                            self.footer = Some(index.footer);
                        }
                        // The trailer follows; nothing after it is data.
                        return;
                    }
                    self.chunks.push(ChunkInfo {
                        offset: at,
                        seq: frame.seq,
                        count: frame.count,
                        t_first: frame.t_first,
                        t_last: frame.t_last,
                    });
                    at += len;
                    seq += 1;
                }
                Err(message) => {
                    self.damage = Some(Damage {
                        offset: at,
                        chunk: seq,
                        loaded_until: self.chunks.last().map_or(0.0, |c| c.t_last),
                        message,
                    });
                    return;
                }
            }
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
        let n = frame.count as usize;
        let Some(times) = read_time_planes(&raw, n) else {
            return Err(damage(format!(
                "the chunk is too short for the times of its {n} records"
            )));
        };
        // Capacity from what the chunk can hold, not from what its frame claims.
        let mut out = Vec::with_capacity(n.min(raw.len() / 10 + 1).min(1 << 16));
        let mut rest: &[u8] = &raw[8 * n..];
        let mut last = std::collections::HashMap::new();
        let mut moves = MovePrev::default();
        while !rest.is_empty() {
            let Some(&t) = times.get(out.len()) else {
                return Err(damage(format!("the chunk holds more than its {n} records")));
            };
            let decoded = if frame.encoding == ENCODING_TAGGED {
                take_tagged(&mut rest, t, &mut last, &mut moves)
            } else {
                postcard::take_from_bytes::<(Machine, Event)>(rest)
                    .map(|(v, tail)| {
                        rest = tail;
                        v
                    })
                    .map_err(|e| e.to_string())
            };
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

    /// Feeds every record in file order to `each`; stops at the first damaged chunk and
    /// returns it (everything before it was fed). Damage found while opening is returned too.
    pub fn for_each(&self, each: &mut dyn FnMut(Record)) -> Result<(), Damage> {
        let mut f = self.reopen().map_err(|e| Damage {
            offset: 0,
            chunk: 0,
            loaded_until: 0.0,
            message: e.message,
        })?;
        for i in 0..self.chunks.len() {
            for r in self.read_chunk_with(&mut f, i)? {
                each(r);
            }
        }
        match &self.damage {
            Some(d) => Err(d.clone()),
            None => Ok(()),
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

    /// The run summary, computed from the records exactly as `movescope run` computed it
    /// (with the damage, when the file is damaged: the summary then covers what loaded).
    pub fn summarize(&self) -> (crate::session::summary::Summary, Option<Damage>) {
        let mut b = crate::session::summary::SummaryBuilder::for_clients(
            self.header.preset.network_clients(),
        );
        let mut last = self.header.t_start;
        let damage = self
            .for_each(&mut |r| {
                last = last.max(r.t);
                b.record(&r);
            })
            .err();
        let footer = self.footer.clone().unwrap_or(Footer {
            simulated_seconds: last,
            wall_seconds: 0.0,
            dropped_records: 0,
        });
        let mut s = b.finish(
            &self.header.mode,
            &self.header.preset_name,
            self.header.seed,
            footer.simulated_seconds,
            footer.wall_seconds,
        );
        s.note_dropped(footer.dropped_records);
        (s, damage)
    }

    /// A one-line description for users.
    /// What a user must know before trusting what a command reads from this file: it was not
    /// finished (or was cut at a chunk boundary), it is damaged, its header came from the
    /// backup copy. Every command that opens a recording prints these.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some(n) = &self.header_note {
            notes.push(n.clone());
        }
        if self.footer.is_none() && self.damage.is_none() {
            notes.push(format!(
                "not finished (no index): it ends at {:.2} s with chunk {} — the recorder was stopped before it finished, or the file was cut at a chunk boundary",
                self.span().1,
                self.chunks.len()
            ));
        }
        if let Some(d) = &self.damage {
            notes.push(format!("damaged: {d}"));
        }
        notes
    }

    pub fn describe(&self) -> String {
        let (a, b) = self.span();
        format!(
            "{}: {} session, preset {}, seed {}, {:.1}–{:.1} s, {} records in {} chunks, {} bytes{}",
            self.path.display(),
            self.header.mode,
            self.header.preset_name,
            self.header.seed,
            a.min(b),
            b,
            self.record_count(),
            self.chunks.len(),
            self.file_len,
            if self.footer.is_none() && self.damage.is_none() {
                " (not finished: read by scanning)"
            } else {
                ""
            }
        )
    }
}

/// Session times as eight byte planes (most significant first) of each time's bits XOR the
/// previous time's: records of one frame share their time, so most planes are runs of zeros
/// that compress to almost nothing, and the times come back bit for bit.
fn time_planes(times: &[f64]) -> Vec<u8> {
    let n = times.len();
    let mut out = vec![0u8; 8 * n];
    let mut prev = 0u64;
    for (i, t) in times.iter().enumerate() {
        let bits = t.to_bits();
        let x = bits ^ prev;
        prev = bits;
        for (plane, byte) in x.to_be_bytes().iter().enumerate() {
            out[plane * n + i] = *byte;
        }
    }
    out
}

fn read_time_planes(raw: &[u8], n: usize) -> Option<Vec<f64>> {
    let planes = raw.get(..n.checked_mul(8)?)?;
    let mut prev = 0u64;
    Some(
        (0..n)
            .map(|i| {
                let mut b = [0u8; 8];
                for (plane, byte) in b.iter_mut().enumerate() {
                    *byte = planes[plane * n + i];
                }
                prev ^= u64::from_be_bytes(b);
                f64::from_bits(prev)
            })
            .collect(),
    )
}

/// Reads the chunk at `at`, checks its frame and checksum and decompresses it.
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
    let frame = ChunkFrame::decode(&fb)?;
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

/// `"1.2.3"` as numbers, for comparing versions; `None` when it is not three numbers.
fn version_parts(v: &str) -> Option<(u64, u64, u64)> {
    let mut it = v.split('.').map(|p| p.parse::<u64>().ok());
    let parts = (it.next()??, it.next()??, it.next()??);
    it.next().is_none().then_some(parts)
}

enum TextHeaderError {
    /// Written by a newer movescope: not damage, and no copy helps.
    Newer(RecordingError),
    Damaged(RecordingError),
}

/// The backup copy of the header: the first intact header-copy chunk among the first 4 MB.
/// Returns it with its offset (where the body's scan starts).
fn find_header_copy(file: &mut File, file_len: u64) -> Option<(Header, u64)> {
    let n = file_len.min(4 << 20) as usize;
    let mut head = vec![0u8; n];
    file.seek(SeekFrom::Start(0)).ok()?;
    file.read_exact(&mut head).ok()?;
    let mut from = 0;
    while let Some(i) = head[from..]
        .windows(CHUNK_MAGIC.len())
        .position(|w| w == CHUNK_MAGIC)
    {
        let at = (from + i) as u64;
        if let Ok((frame, raw)) = read_chunk_at(file, at, file_len)
            && frame.kind == ChunkKind::HeaderCopy as u8
            && let Ok(text) = std::str::from_utf8(&raw)
            && let Ok(h) = ron::from_str::<Header>(text)
        {
            return Some((h, at));
        }
        from += i + 1;
    }
    None
}

/// Writes `records` as a finished recording (used to trim and to convert). An existing file
/// is replaced by a rename of the complete new one: callers decide whether it may be (a
/// recording is never replaced without `--force`).
pub fn write_all(
    path: &Path,
    header: &Header,
    records: impl IntoIterator<Item = Record>,
    footer: Footer,
) -> Result<RecordingStats, String> {
    let mut rec = Recorder::create_replacing(path, header)?;
    for r in records {
        rec.push(&r)?;
    }
    rec.finish(footer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::telemetry::Event;

    fn sample_records(n: usize) -> Vec<Record> {
        (0..n)
            .map(|i| Record {
                t: i as f64 * 0.01,
                machine: if i % 3 == 0 {
                    Machine::Server
                } else {
                    Machine::Client((i % 3) as u16)
                },
                event: if i % 2 == 0 {
                    Event::Frame { dt: 1.0 / 60.0 }
                } else {
                    Event::Rtt {
                        rtt: 0.05 + i as f64 * 1e-6,
                    }
                },
            })
            .collect()
    }

    /// A file in a folder of the test's own, removed with it when dropped (also when the
    /// test fails).
    struct TmpFile(PathBuf);

    impl std::ops::Deref for TmpFile {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl AsRef<Path> for TmpFile {
        fn as_ref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TmpFile {
        fn drop(&mut self) {
            if let Some(dir) = self.0.parent() {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }

    fn tmp(name: &str) -> TmpFile {
        let dir = std::env::temp_dir().join(format!(
            "movescope-rec-{}-{}",
            std::process::id(),
            name.replace('.', "-")
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TmpFile(dir.join(name))
    }

    #[test]
    fn round_trip_with_index() {
        let path = tmp("round.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "deterministic").unwrap();
        let recs = sample_records(1000);
        let stats = write_all(&path, &header, recs.clone(), Footer::default()).unwrap();
        assert_eq!(stats.records, 1000);
        assert_eq!(stats.chunks, 10, "one chunk per session second");
        let r = Recording::open(&path).unwrap();
        assert!(r.footer.is_some() && r.damage.is_none());
        assert_eq!(r.header, header);
        assert_eq!(r.chunks.len(), 10);
        let (back, damage) = r.load_all();
        assert!(damage.is_none());
        assert_eq!(back, recs);
        assert_eq!(r.chunk_at(5.5), Some(5));
        assert_eq!(r.chunk_at(-1.0), Some(0));
        assert_eq!(r.chunk_at(100.0), Some(9));
    }

    #[test]
    fn unfinished_file_is_scanned_and_truncation_reports_where() {
        let path = tmp("cut.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        let recs = sample_records(500);
        write_all(&path, &header, recs.clone(), Footer::default()).unwrap();
        let full = std::fs::read(&path).unwrap();
        let r = Recording::open(&path).unwrap();
        let third = r.chunks[3].offset as usize;
        // Cut in the middle of chunk 3: chunks 0..3 load, damage names chunk 3's offset.
        std::fs::write(&path, &full[..third + 60]).unwrap();
        let r = Recording::open(&path).unwrap();
        assert!(r.footer.is_none());
        let d = r.damage.clone().unwrap();
        assert_eq!((d.offset, d.chunk), (third as u64, 3));
        assert!(d.message.contains("ends inside"), "{}", d.message);
        let (back, damage) = r.load_all();
        assert_eq!(damage.unwrap().chunk, 3);
        assert_eq!(back, recs[..300].to_vec());
        // A flipped byte inside chunk 1 of a finished file: found when the chunk is read.
        let mut bad = full.clone();
        let second = r.chunks[1].offset as usize;
        bad[second + FRAME_BYTES + 5] ^= 0x40;
        std::fs::write(&path, &bad).unwrap();
        let r = Recording::open(&path).unwrap();
        let (back, damage) = r.load_all();
        let d = damage.unwrap();
        assert_eq!((d.chunk, d.offset), (1, second as u64));
        assert!(d.message.contains("checksum"), "{}", d.message);
        assert_eq!(back, recs[..100].to_vec());
        assert!(d.to_string().contains(&format!("byte {second}")));
    }

    #[test]
    fn newer_format_is_refused_naming_both_versions() {
        let path = tmp("newer.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        write_all(&path, &header, sample_records(10), Footer::default()).unwrap();
        // A newer movescope writes its own version into the header (and its checksum).
        let bytes = std::fs::read(&path).unwrap();
        let nl = bytes.iter().position(|b| *b == b'\n').unwrap();
        let first = String::from_utf8(bytes[..nl].to_vec()).unwrap();
        let header_len: usize = first
            .split(' ')
            .find_map(|w| w.strip_prefix("header="))
            .unwrap()
            .parse()
            .unwrap();
        let ron_text = String::from_utf8(bytes[nl + 1..nl + 1 + header_len].to_vec())
            .unwrap()
            .replace(
                &format!("app_version: \"{}\"", env!("CARGO_PKG_VERSION")),
                "app_version: \"99.0.0\"",
            );
        assert!(ron_text.contains("99.0.0"));
        let mut s = format!(
            "{MAGIC_LINE} format=7 header={} crc={:08x}\n{ron_text}",
            ron_text.len(),
            crc32fast::hash(ron_text.as_bytes()),
        )
        .into_bytes();
        s.extend_from_slice(&bytes[nl + 1 + header_len..]);
        std::fs::write(&path, &s).unwrap();
        let e = Recording::open(&path).unwrap_err().to_string();
        assert!(
            e.contains("format 7") && e.contains(&format!("format {FORMAT_VERSION}")),
            "{e}"
        );
        assert!(
            e.contains("99.0.0") && e.contains(env!("CARGO_PKG_VERSION")),
            "{e}"
        );
    }

    #[test]
    fn a_damaged_format_digit_is_damage_not_a_newer_file() {
        // The header says this movescope wrote it, so format 7 on the first line is a flipped
        // digit: the file opens from its backup header and says so.
        let path = tmp("digit.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        let recs = sample_records(10);
        write_all(&path, &header, recs.clone(), Footer::default()).unwrap();
        let mut s = std::fs::read(&path).unwrap();
        s[MAGIC_LINE.len() + " format=".len()] = b'7';
        std::fs::write(&path, &s).unwrap();
        let r = Recording::open(&path).unwrap();
        let notes = r.notes().join(" ");
        assert!(notes.contains("first line is damaged"), "{notes}");
        assert_eq!(r.load_all().0, recs);
    }

    #[test]
    fn header_errors_give_line_and_column() {
        let path = tmp("hdr.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        write_all(&path, &header, sample_records(10), Footer::default()).unwrap();
        let text = std::fs::read(&path).unwrap();
        // Without its checksum and its backup copy (a format 1 file), a damaged header is
        // reported where it is damaged.
        let first_line_end = text.iter().position(|b| *b == b'\n').unwrap();
        let line = String::from_utf8_lossy(&text[..first_line_end]).to_string();
        let crc_at = line.find(" crc=").unwrap();
        let mut b = text[..crc_at].to_vec();
        b.extend_from_slice(&text[first_line_end..]);
        let copy = b.windows(4).position(|w| w == CHUNK_MAGIC).unwrap();
        b[copy..copy + 4].copy_from_slice(b"XXXX");
        let s = String::from_utf8_lossy(&b).to_string();
        let at = s.find("seed:").unwrap();
        b[at + 6] = b'x';
        std::fs::write(&path, &b).unwrap();
        let e = Recording::open(&path).unwrap_err();
        let (line, _) = e.position.expect("a header position");
        let expected_line = s[..at].lines().count();
        assert_eq!(line, expected_line, "{e}");
        assert!(
            e.to_string()
                .starts_with(&format!("{}:{line}:", path.display()))
        );
    }

    #[test]
    fn a_damaged_header_is_replaced_by_its_backup_copy() {
        let path = tmp("flip.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        let recs = sample_records(300);
        write_all(&path, &header, recs.clone(), Footer::default()).unwrap();
        let good = std::fs::read(&path).unwrap();
        let header_end = good.windows(4).position(|w| w == CHUNK_MAGIC).unwrap();
        let mut opened = 0;
        // One flipped bit anywhere in the first line or the RON header.
        for at in (0..header_end).step_by(5) {
            let mut b = good.clone();
            b[at] ^= 1 << (at % 8);
            std::fs::write(&path, &b).unwrap();
            let rec = Recording::open(&path).unwrap_or_else(|e| panic!("flip at byte {at}: {e}"));
            assert_eq!(
                rec.header, header,
                "flip at byte {at}: the header as written"
            );
            let (back, damage) = rec.load_all();
            assert!(damage.is_none(), "flip at byte {at}: {damage:?}");
            assert_eq!(back, recs, "flip at byte {at}");
            opened += 1;
        }
        assert!(opened > 100, "{opened}");
    }

    /// Replaces a finished recording's index with a valid (checksummed) one saying `chunks`
    /// and `footer`.
    fn rewrite_index(path: &Path, chunks: Vec<ChunkInfo>, footer: Footer) {
        let mut b = std::fs::read(path).unwrap();
        let mut at = [0u8; 8];
        at.copy_from_slice(&b[b.len() - 8..]);
        let index_at = u64::from_le_bytes(at) as usize;
        let body = postcard::to_stdvec(&IndexPayload { chunks, footer }).unwrap();
        let payload = zstd::bulk::compress(&body, ZSTD_LEVEL).unwrap();
        let mut frame =
            ChunkFrame::decode(b[index_at..index_at + FRAME_BYTES].try_into().unwrap()).unwrap();
        frame.raw_len = body.len() as u32;
        frame.payload_len = payload.len() as u32;
        frame.crc = frame.checksum(&payload);
        b.truncate(index_at);
        b.extend_from_slice(&frame.encode());
        b.extend_from_slice(&payload);
        b.extend_from_slice(&TRAILER_MAGIC);
        b.extend_from_slice(&(index_at as u64).to_le_bytes());
        std::fs::write(path, &b).unwrap();
    }

    #[test]
    fn an_index_with_wrong_offsets_is_replaced_by_a_scan() {
        let path = tmp("index.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        let recs = sample_records(300_000);
        write_all(&path, &header, recs.clone(), Footer::default()).unwrap();
        let good = Recording::open(&path).unwrap();
        assert!(good.chunks.len() > 2 && good.footer.is_some());
        // Re-write the index with every offset shifted by one byte (a valid index chunk).
        let mut chunks = good.chunks.clone();
        for c in &mut chunks {
            c.offset += 1;
        }
        rewrite_index(&path, chunks, Footer::default());
        let rec = Recording::open(&path).unwrap();
        assert_eq!(rec.chunks, good.chunks, "found by scanning");
        assert_eq!(rec.load_all().0, recs);
    }

    #[test]
    fn claims_in_a_crafted_index_bound_nothing_but_themselves() {
        let path = tmp("crafted.msrec");
        let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
        let recs = sample_records(2000);
        write_all(&path, &header, recs.clone(), Footer::default()).unwrap();
        let good = Recording::open(&path).unwrap();
        // Huge record counts (the frames still say the truth) and a footer of 1e12 s.
        let mut chunks = good.chunks.clone();
        for c in &mut chunks {
            c.count = u32::MAX;
            c.t_last = 90_112.0;
        }
        rewrite_index(
            &path,
            chunks,
            Footer {
                simulated_seconds: 1e12,
                ..Footer::default()
            },
        );
        let rec = Recording::open(&path).unwrap();
        // The spot check finds the counts wrong: the chunks come from a scan.
        assert_eq!(rec.chunks, good.chunks);
        let (back, _) = rec.load_all();
        assert_eq!(back, recs);
        let last = recs.last().unwrap().t;
        let secs = rec.resimulation_seconds();
        assert!(
            secs <= last + CHUNK_SECONDS,
            "{secs} s for records ending at {last} s"
        );
    }

    proptest::proptest! {
        /// The packed records (pawn samples on and off their grids, closed and executed moves
        /// in and out of the wire's units, in any order) read back bit for bit.
        #[test]
        fn packed_records_read_back_exactly(
            xs in proptest::collection::vec((0u8..6, -1.0e5f64..1.0e5, 0u16..4, 0u32..50), 1..400),
        ) {
            use crate::model::telemetry::{PawnSample, RemoteMove, SampleKind};
            let mut t = 0.0;
            let records: Vec<Record> = xs
                .iter()
                .map(|&(k, x, who, id)| {
                    t += (x.abs() % 7.0) / 100.0;
                    let machine = if who == 3 { Machine::Server } else { Machine::Client(who) };
                    let units = |v: f64| crate::model::cycle::quantize_time(v);
                    let event = match k {
                        0 => Event::PawnSample(std::sync::Arc::new(PawnSample::on_grid(
                            who,
                            (id % 2 == 0).then_some(who),
                            SampleKind::Displayed,
                            glam::DVec3::new(x, -x / 3.0, 0.0),
                            glam::DVec3::new(x / 7.0, 1.5, -0.0),
                            x / 11.0,
                        ))),
                        1 => Event::PawnSample(std::sync::Arc::new(PawnSample {
                            pawn: who,
                            owner: None,
                            kind: SampleKind::Predicted,
                            location: glam::DVec3::new(x, x.abs().sqrt(), f64::MIN_POSITIVE),
                            velocity: glam::DVec3::splat(x / 3.0),
                            yaw: x,
                        })),
                        2 => Event::MoveClosed {
                            move_id: id,
                            timestamp: units(t),
                            delta: units(x.abs() % 0.05),
                            frames: who,
                            substeps: 1,
                        },
                        3 => Event::MoveClosed {
                            move_id: id,
                            timestamp: t + 1e-9,
                            delta: x,
                            frames: 2,
                            substeps: 3,
                        },
                        4 => Event::RemoteMoveExecuted(std::sync::Arc::new(RemoteMove {
                            pawn: who,
                            client: who,
                            move_id: id,
                            timestamp: units(t - 0.05),
                            delta: units(0.016),
                            substeps: 1,
                            age: x / 1000.0,
                        })),
                        _ => Event::Frame { dt: x },
                    };
                    Record { t, machine, event }
                })
                .collect();
            let path = tmp("packed.msrec");
            let header = Header::new(&Preset::builtin_default(), "default", "live").unwrap();
            write_all(&path, &header, records.clone(), Footer::default()).unwrap();
            let (back, damage) = Recording::open(&path).unwrap().load_all();
            proptest::prop_assert!(damage.is_none());
            proptest::prop_assert_eq!(back.len(), records.len());
            for (a, b) in back.iter().zip(&records) {
                // Bit for bit (NaN-free inputs; -0.0 must stay -0.0).
                proptest::prop_assert_eq!(format!("{a:?}"), format!("{b:?}"));
                proptest::prop_assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn not_a_recording() {
        let path = tmp("junk.msrec");
        std::fs::write(&path, b"hello\nworld").unwrap();
        let e = Recording::open(&path).unwrap_err().to_string();
        assert!(e.contains("not a movescope recording"), "{e}");
    }
}
