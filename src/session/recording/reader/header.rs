//! Reading a recording's text header: the first line, the RON header after it, the writer's
//! version against this build's, and the backup copy of the header when the text is damaged.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};

use super::read_chunk_at;
use crate::session::recording::format::{
    CHUNK_MAGIC, ChunkKind, FORMAT_VERSION, Header, MAGIC_LINE, RecordingError,
};

/// The first line and the RON header after it; the body's offset.
pub(super) fn text_header(
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
    // Format 2 and later always carry the header's checksum: without it the header cannot
    // be checked (a damaged `crc=`), and the backup copy is used instead.
    if format >= 2 && crc.is_none() {
        return Err(error(
            Some(0),
            "the first line has no `crc=<checksum>`: the header cannot be checked".into(),
        ));
    }
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

/// `"1.2.3"` as numbers, for comparing versions; `None` when it is not three numbers.
fn version_parts(v: &str) -> Option<(u64, u64, u64)> {
    let mut it = v.split('.').map(|p| p.parse::<u64>().ok());
    let parts = (it.next()??, it.next()??, it.next()??);
    it.next().is_none().then_some(parts)
}

pub(super) enum TextHeaderError {
    /// Written by a newer movescope: not damage, and no copy helps.
    Newer(RecordingError),
    Damaged(RecordingError),
}

/// The backup copy of the header: the first intact header-copy chunk among the first 4 MB.
/// Returns it with its offset (where the body's scan starts).
pub(super) fn find_header_copy(file: &mut File, file_len: u64) -> Option<(Header, u64)> {
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
