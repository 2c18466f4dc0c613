//! Writing a recording: the [`Recorder`] gathers records on the caller's thread and hands each
//! chunk to a writer thread that encodes, compresses, checksums and writes it, and at the end
//! the index and trailer; [`write_all`] writes a finished recording in one go.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use crossbeam_channel::{Sender, bounded};

use super::encoding::{ENCODING_BUILT_INS, encode_records};
use super::format::{
    CHUNK_SECONDS, ChunkFrame, ChunkInfo, ChunkKind, FRAME_BYTES, Footer, Header, IndexPayload,
    MAGIC_LINE, TRAILER_BYTES, TRAILER_MAGIC,
};
use crate::model::telemetry::Record;

/// A chunk is also closed when it holds this many records.
const MAX_PENDING: usize = 250_000;
pub(super) const ZSTD_LEVEL: i32 = 3;

struct Job {
    frame: ChunkFrame,
    records: Vec<Record>,
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

/// Why a recording could not be written. Each variant names the file (or the folder made for
/// it); the text is what the CLI prints.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The recording's folder could not be made.
    #[error("{}: {source}", dir.display())]
    Folder {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: is a folder; expected a recording file name (.msrec)", path.display())]
    IsAFolder { path: PathBuf },
    /// [`Recorder::create`] never replaces a file.
    #[error("{}: exists; a recording is never replaced without --force", path.display())]
    Exists { path: PathBuf },
    /// Creating, writing, syncing or renaming the file failed.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: cannot write the header: {error}", path.display())]
    Header { path: PathBuf, error: ron::Error },
    #[error("{}: cannot encode the records: {error}", path.display())]
    Encode {
        path: PathBuf,
        error: postcard::Error,
    },
    #[error("{}: cannot start the recording thread: {source}", path.display())]
    Thread {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The writer lagged past [`Recorder::never_block`]'s limit: the recording stopped, and
    /// `waiting` records were not written.
    #[error("{}: the recording's writer fell behind by more than {limit_mb} MB: recording stopped, the last {waiting} records were not written", path.display())]
    FellBehind {
        path: PathBuf,
        limit_mb: usize,
        waiting: usize,
    },
    /// The writer thread ended without saying why.
    #[error("{}: the recorder stopped", path.display())]
    Stopped { path: PathBuf },
    #[error("{}: the recording thread panicked", path.display())]
    Panicked { path: PathBuf },
    #[error("{}: the recording was already finished", path.display())]
    Finished { path: PathBuf },
}

/// The CLI reports errors as text; `?` turns a write error into its message.
impl From<WriteError> for String {
    fn from(e: WriteError) -> String {
        e.to_string()
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
    writer: Option<JoinHandle<Result<RecordingStats, WriteError>>>,
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
    pub fn create(path: &Path, header: &Header) -> Result<Recorder, WriteError> {
        Self::create_at(path, None, header)
    }

    /// Like [`Recorder::create`], but an existing file at `path` is replaced — by a rename
    /// of the complete new recording when it is finished (`--force`). Until then the old
    /// file is untouched and the new one grows in a temporary sibling (which a crash leaves
    /// readable). A folder is refused at once.
    pub fn create_replacing(path: &Path, header: &Header) -> Result<Recorder, WriteError> {
        if path.is_dir() {
            return Err(WriteError::IsAFolder {
                path: path.to_path_buf(),
            });
        }
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
    ) -> Result<Recorder, WriteError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| WriteError::Folder {
                dir: dir.to_path_buf(),
                source,
            })?;
        }
        if path.is_dir() {
            return Err(WriteError::IsAFolder {
                path: path.to_path_buf(),
            });
        }
        let io = |source| WriteError::Io {
            path: path.to_path_buf(),
            source,
        };
        let cfg = ron::ser::PrettyConfig::new().depth_limit(3);
        let ron_text =
            ron::ser::to_string_pretty(header, cfg).map_err(|error| WriteError::Header {
                path: path.to_path_buf(),
                error,
            })?;
        let mut file = File::options()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => WriteError::Exists {
                    path: path.to_path_buf(),
                },
                _ => io(e),
            })?;
        let head = format!(
            "{MAGIC_LINE} format={} header={} crc={:08x}\n{ron_text}\n",
            header.format,
            ron_text.len(),
            crc32fast::hash(ron_text.as_bytes())
        );
        file.write_all(head.as_bytes())
            .and_then(|()| file.flush())
            .map_err(io)?;
        let mut offset = head.len() as u64;
        // The backup copy of the header, checksummed like every chunk.
        let copy = ChunkFrame::new(ChunkKind::HeaderCopy, 0, u32::MAX, 0, (0.0, 0.0));
        let mut zstd = zstd::bulk::Compressor::new(ZSTD_LEVEL).map_err(io)?;
        write_chunk(&mut file, &mut offset, &mut zstd, copy, ron_text.as_bytes()).map_err(io)?;
        let (tx, rx) = bounded::<ToWriter>(4);
        let shown = path.to_path_buf();
        let writer = std::thread::Builder::new()
            .name("recorder".into())
            .spawn(move || write_chunks(file, shown, offset, zstd, rx))
            .map_err(|source| WriteError::Thread {
                path: path.to_path_buf(),
                source,
            })?;
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
    fn drain_backlog(&mut self) -> Result<(), WriteError> {
        while let Some(msg) = self.backlog.pop_front() {
            let Some(tx) = self.tx.as_ref() else {
                return Err(self.stopped());
            };
            let n = msg.records();
            match tx.try_send(msg) {
                Ok(()) => self.backlog_records -= n,
                Err(crossbeam_channel::TrySendError::Full(back)) => {
                    self.backlog.push_front(back);
                    return Ok(());
                }
                Err(crossbeam_channel::TrySendError::Disconnected(_)) => {
                    return Err(self.why_stopped());
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
    pub fn push(&mut self, r: &Record) -> Result<(), WriteError> {
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
    pub fn flush(&mut self) -> Result<(), WriteError> {
        if self.count == 0 {
            return Ok(());
        }
        let frame = ChunkFrame::new(
            ChunkKind::Records,
            ENCODING_BUILT_INS,
            self.seq,
            self.count,
            (self.t_first, self.t_last),
        );
        self.seq += 1;
        self.count = 0;
        self.t_first = f64::INFINITY;
        self.t_last = f64::NEG_INFINITY;
        let records = std::mem::replace(&mut self.pending, Vec::with_capacity(1 << 14));
        self.send(ToWriter::Chunk(Job { frame, records }))
    }

    fn send(&mut self, msg: ToWriter) -> Result<(), WriteError> {
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
                return Err(WriteError::FellBehind {
                    path: self.path.clone(),
                    limit_mb: limit >> 20,
                    waiting,
                });
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
            Err(self.why_stopped())
        }
    }

    fn stopped(&self) -> WriteError {
        WriteError::Stopped {
            path: self.path.clone(),
        }
    }

    /// The writer stopped: why (its error, or that it stopped).
    fn why_stopped(&mut self) -> WriteError {
        self.join().err().unwrap_or_else(|| self.stopped())
    }

    fn join(&mut self) -> Result<RecordingStats, WriteError> {
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
            Some(h) => h.join().unwrap_or_else(|_| {
                Err(WriteError::Panicked {
                    path: self.path.clone(),
                })
            }),
            None => Err(WriteError::Finished {
                path: self.path.clone(),
            }),
        }
    }

    /// Writes the last chunk, the index and the trailer, and closes the file.
    pub fn finish(mut self, footer: Footer) -> Result<RecordingStats, WriteError> {
        self.flush()?;
        self.send(ToWriter::Finish(footer))?;
        let mut stats = self.join()?;
        stats.records = self.records;
        if let Some(target) = self.replaces.take() {
            std::fs::rename(&self.path, &target).map_err(|source| WriteError::Io {
                path: target.clone(),
                source,
            })?;
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
    zstd: &mut zstd::bulk::Compressor<'static>,
    mut frame: ChunkFrame,
    raw: &[u8],
) -> std::io::Result<u64> {
    // One compressor for the whole recording: a fresh one per chunk cleared its tables each
    // time (a quarter of the compression's instructions). The bytes are the same.
    let payload = zstd.compress(raw)?;
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
    mut zstd: zstd::bulk::Compressor<'static>,
    rx: crossbeam_channel::Receiver<ToWriter>,
) -> Result<RecordingStats, WriteError> {
    let err = |source: std::io::Error| WriteError::Io {
        path: path.clone(),
        source,
    };
    let encode = |error: postcard::Error| WriteError::Encode {
        path: path.clone(),
        error,
    };
    let mut chunks = Vec::new();
    let mut index_written = false;
    for msg in rx {
        match msg {
            ToWriter::Chunk(job) => {
                let raw = encode_records(&job.records).map_err(encode)?;
                let at =
                    write_chunk(&mut file, &mut offset, &mut zstd, job.frame, &raw).map_err(err)?;
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
                .map_err(encode)?;
                let frame = ChunkFrame::new(
                    ChunkKind::Index,
                    0,
                    n,
                    n,
                    (
                        chunks.first().map_or(0.0, |c| c.t_first),
                        chunks.last().map_or(0.0, |c| c.t_last),
                    ),
                );
                let at =
                    write_chunk(&mut file, &mut offset, &mut zstd, frame, &body).map_err(err)?;
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

/// Writes `records` as a finished recording (used to trim and to convert). An existing file
/// is replaced by a rename of the complete new one: callers decide whether it may be (a
/// recording is never replaced without `--force`).
pub fn write_all(
    path: &Path,
    header: &Header,
    records: impl IntoIterator<Item = Record>,
    footer: Footer,
) -> Result<RecordingStats, WriteError> {
    let mut rec = Recorder::create_replacing(path, header)?;
    for r in records {
        rec.push(&r)?;
    }
    rec.finish(footer)
}
