//! Reading a log file line by line without holding it: a fixed buffer, lines up to a length
//! cap (longer ones are skipped whole and counted), Windows line ends, a last line with no
//! line end reported as cut off, and text that is not UTF-8 reported by line.

use std::io::Read;

/// Longest line read (a GMC dump line of every bound value is far shorter).
pub const MAX_LINE: usize = 64 * 1024;
const BUFFER: usize = 1 << 20;

/// What the reader hands out.
#[derive(Debug, PartialEq)]
pub enum Next<'a> {
    Line(&'a str),
    /// Longer than [`MAX_LINE`]: skipped.
    TooLong,
    NotUtf8,
    /// The file ended inside this line (no line end): the writer was stopped mid-line.
    CutOff(&'a str),
    End,
}

pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// Lines handed out so far (the current line's number, 1-based).
    pub line_no: u64,
    /// Bytes consumed so far.
    pub consumed: u64,
}

impl<R: Read> LineReader<R> {
    pub fn new(inner: R) -> LineReader<R> {
        LineReader {
            inner,
            buf: vec![0; BUFFER],
            start: 0,
            end: 0,
            eof: false,
            line_no: 0,
            consumed: 0,
        }
    }

    /// The next line.
    pub fn next_line(&mut self) -> std::io::Result<Next<'_>> {
        let mut skipping = false;
        loop {
            if let Some(nl) = memchr::memchr(b'\n', &self.buf[self.start..self.end]) {
                let (from, to) = (self.start, self.start + nl);
                self.start = to + 1;
                self.consumed += (nl + 1) as u64;
                self.line_no += 1;
                if skipping || to - from > MAX_LINE {
                    return Ok(Next::TooLong);
                }
                let from = self.after_bom(from);
                return Ok(text(&self.buf[from..to], false));
            }
            if self.eof {
                return Ok(self.last(skipping));
            }
            if skipping || self.end - self.start >= MAX_LINE {
                // Drop what is buffered of an over-long line and keep looking for its end.
                self.consumed += (self.end - self.start) as u64;
                self.start = self.end;
                skipping = true;
            }
            self.refill()?;
        }
    }

    fn last(&mut self, skipping: bool) -> Next<'_> {
        if self.start == self.end && !skipping {
            return Next::End;
        }
        let (from, to) = (self.start, self.end);
        self.consumed += (to - from) as u64;
        self.start = self.end;
        self.line_no += 1;
        if skipping {
            return Next::TooLong;
        }
        let from = self.after_bom(from);
        match text(&self.buf[from..to], true) {
            Next::Line(l) => Next::CutOff(l),
            other => other,
        }
    }

    /// The first line's start past a UTF-8 byte-order mark (Unreal writes one first in
    /// every log).
    fn after_bom(&self, from: usize) -> usize {
        if self.line_no == 1 && self.buf[from..].starts_with(&[0xEF, 0xBB, 0xBF]) {
            from + 3
        } else {
            from
        }
    }

    fn refill(&mut self) -> std::io::Result<()> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        while self.end < self.buf.len() {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    self.end += n;
                    break;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

fn text(bytes: &[u8], _last: bool) -> Next<'_> {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => Next::Line(s),
        Err(_) => Next::NotUtf8,
    }
}

/// Whether the start of a file looks like text: no NUL byte, and mostly UTF-8. A log written
/// as UTF-16 (Unreal can) has NULs in every other byte and is named as such.
pub fn sniff(head: &[u8]) -> Result<(), &'static str> {
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        return Err("UTF-16 text (convert it to UTF-8 first, e.g. `iconv -f UTF-16 -t UTF-8`)");
    }
    if head.contains(&0) {
        return Err("binary data, not a text log (it has NUL bytes)");
    }
    let valid = match std::str::from_utf8(head) {
        Ok(_) => head.len(),
        Err(e) if e.error_len().is_none() => head.len(),
        Err(e) => e.valid_up_to(),
    };
    if head.len() > 64 && valid < head.len() / 2 {
        return Err("not UTF-8 text");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8]) -> Vec<String> {
        let mut r = LineReader::new(input);
        let mut out = Vec::new();
        loop {
            match r.next_line().unwrap() {
                Next::End => return out,
                Next::Line(l) if l.len() > 40 => out.push(format!("L:({} bytes)", l.len())),
                Next::Line(l) => out.push(format!("L:{l}")),
                Next::CutOff(l) => out.push(format!("C:{l}")),
                Next::TooLong => out.push("TOO LONG".into()),
                Next::NotUtf8 => out.push("NOT UTF-8".into()),
            }
        }
    }

    #[test]
    fn lines_line_ends_and_a_cut_last_line() {
        assert_eq!(all(b"a\r\nb\n\ncut"), vec!["L:a", "L:b", "L:", "C:cut"]);
        assert_eq!(all(b"a\n\xff\xfe\nb\n"), vec!["L:a", "NOT UTF-8", "L:b"]);
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_line() {
        assert_eq!(
            all(b"\xEF\xBB\xBFLogGMC: a\r\n\xEF\xBB\xBFb\r\n"),
            vec!["L:LogGMC: a", "L:\u{feff}b"]
        );
        assert_eq!(all(b"\xEF\xBB\xBFcut"), vec!["C:cut"]);
    }

    #[test]
    fn an_over_long_line_is_skipped_whole() {
        let mut input = b"first\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE * 3 + 17));
        input.extend(b"\nafter\n");
        assert_eq!(all(&input), vec!["L:first", "TOO LONG", "L:after"]);
        // Longer than the reader's buffer too.
        let mut input = b"first\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 3 << 20));
        input.extend(b"\nafter");
        assert_eq!(all(&input), vec!["L:first", "TOO LONG", "C:after"]);
    }

    #[test]
    fn binary_and_utf16_are_named() {
        assert!(sniff(b"[2026.01.01-00.00.00:000][  0]LogInit: hello\n").is_ok());
        assert!(
            sniff(&[0xFF, 0xFE, b'[', 0])
                .unwrap_err()
                .contains("UTF-16")
        );
        assert!(sniff(&[1, 2, 0, 4]).unwrap_err().contains("binary"));
    }
}
