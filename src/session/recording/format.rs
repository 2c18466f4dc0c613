//! The `.msrec` format's building blocks: the header and footer, the chunk index, the fixed
//! frame in front of every chunk with its checksum, and the errors a damaged file reports.

use serde::{Deserialize, Serialize};

use super::encoding::ENCODING_BUILT_INS;
use crate::model::binding::Binding;
use crate::model::telemetry::Machine;
use crate::session::preset::Preset;

/// The format this build writes and the newest it reads.
/// Format 2 adds the header's checksum and its backup copy; format 3 writes its records in
/// encoding 2 (GMC's built-in scale, angular velocity and control rotation in every pawn
/// state). Format 1 and 2 files still open.
pub const FORMAT_VERSION: u32 = 3;
/// File extension of recordings.
pub const EXTENSION: &str = "msrec";
/// Session seconds gathered into one chunk.
pub const CHUNK_SECONDS: f64 = 1.0;

pub(super) const MAGIC_LINE: &str = "MOVESCOPE-RECORDING";
pub(super) const CHUNK_MAGIC: [u8; 4] = *b"MSCH";
pub(super) const TRAILER_MAGIC: [u8; 8] = *b"MSTRAIL1";
pub(super) const FRAME_BYTES: usize = 44;
pub(super) const TRAILER_BYTES: u64 = 16;
/// Larger chunks than these are damage, not data (a chunk holds about a second).
const MAX_PAYLOAD: u32 = 64 << 20;
const MAX_RAW: u32 = 256 << 20;

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
    /// The header of a new recording of `preset`; fails when the preset is invalid.
    pub fn new(
        preset: &Preset,
        preset_name: &str,
        mode: &str,
    ) -> Result<Header, crate::session::preset::BindingsError> {
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
pub(super) struct IndexPayload {
    pub(super) chunks: Vec<ChunkInfo>,
    pub(super) footer: Footer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ChunkKind {
    Records = 0,
    Index = 2,
    /// The header's RON again, checksummed like any chunk: used when the text header is
    /// damaged.
    HeaderCopy = 3,
}

/// The fixed frame in front of every chunk payload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ChunkFrame {
    pub(super) kind: u8,
    /// How a records payload encodes its records: 0 (format 1) each `(machine, event)` in
    /// postcard; `ENCODING_TAGGED` (1) a tag byte first, pawn samples packed;
    /// [`ENCODING_BUILT_INS`] the same with the built-ins in every pawn state.
    pub(super) encoding: u8,
    pub(super) seq: u32,
    pub(super) count: u32,
    pub(super) t_first: f64,
    pub(super) t_last: f64,
    pub(super) raw_len: u32,
    pub(super) payload_len: u32,
    pub(super) crc: u32,
}

impl ChunkFrame {
    /// A frame to write: its sizes and checksum are filled in when the payload is written.
    pub(super) fn new(kind: ChunkKind, encoding: u8, seq: u32, count: u32, t: (f64, f64)) -> Self {
        ChunkFrame {
            kind: kind as u8,
            encoding,
            seq,
            count,
            t_first: t.0,
            t_last: t.1,
            raw_len: 0,
            payload_len: 0,
            crc: 0,
        }
    }

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

    pub(super) fn checksum(&self, payload: &[u8]) -> u32 {
        let mut h = crc32fast::Hasher::new();
        h.update(&self.bytes_without_crc());
        h.update(payload);
        h.finalize()
    }

    pub(super) fn encode(&self) -> [u8; FRAME_BYTES] {
        let mut b = [0u8; FRAME_BYTES];
        b[..FRAME_BYTES - 4].copy_from_slice(&self.bytes_without_crc());
        b[FRAME_BYTES - 4..].copy_from_slice(&self.crc.to_le_bytes());
        b
    }

    /// Parses a frame; `Err` says what is wrong with it.
    pub(super) fn decode(b: &[u8; FRAME_BYTES]) -> Result<ChunkFrame, FrameError> {
        if b[0..4] != CHUNK_MAGIC {
            return Err(FrameError::NotAChunk);
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
            return Err(FrameError::UnknownFlags(b[5]));
        }
        if b[6] > ENCODING_BUILT_INS {
            return Err(FrameError::UnknownEncoding(b[6]));
        }
        if f.kind != ChunkKind::Records as u8
            && f.kind != ChunkKind::Index as u8
            && f.kind != ChunkKind::HeaderCopy as u8
        {
            return Err(FrameError::UnknownKind(f.kind));
        }
        if f.payload_len > MAX_PAYLOAD || f.raw_len > MAX_RAW {
            return Err(FrameError::ImplausibleSizes {
                compressed: f.payload_len,
                raw: f.raw_len,
            });
        }
        Ok(f)
    }
}

/// What is wrong with a chunk frame that does not parse; its `Display` says what was expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FrameError {
    /// The frame does not start with the chunk magic `MSCH`.
    NotAChunk,
    /// The flags byte is not 1 (zstd), the only flags known.
    UnknownFlags(u8),
    /// The record encoding is past the last one known.
    UnknownEncoding(u8),
    /// The chunk kind is none of records, index or header copy.
    UnknownKind(u8),
    /// The compressed or raw size is past what a writer produces.
    ImplausibleSizes { compressed: u32, raw: u32 },
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::NotAChunk => write!(f, "expected a chunk (`MSCH`), found other bytes"),
            FrameError::UnknownFlags(v) => write!(f, "unknown chunk flags {v}"),
            FrameError::UnknownEncoding(v) => write!(f, "unknown record encoding {v}"),
            FrameError::UnknownKind(v) => write!(f, "unknown chunk kind {v}"),
            FrameError::ImplausibleSizes { compressed, raw } => write!(
                f,
                "implausible chunk sizes ({compressed} compressed, {raw} raw bytes)"
            ),
        }
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
            "damaged from byte {} (chunk {}): {}; that chunk is lost, the intact chunks around it load (up to {:.2} s without a gap)",
            self.offset, self.chunk, self.message, self.loaded_until
        )
    }
}
