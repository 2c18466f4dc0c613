//! The size rule of docs/ARCHITECTURE.md, checked on the source: no function in `src/` a
//! reader has to scroll through. Each function is counted by its brace span (the line of its
//! `fn` to the line of its closing brace), in the non-test part of each file (up to its first
//! `#[cfg(test)]`), with comments, strings and character literals skipped so a brace inside
//! them is not counted.

use std::path::{Path, PathBuf};

/// No function may be longer than this.
const LONGEST: usize = 250;
/// At most `LONG_ALLOWED` functions may be longer than `LONG`.
const LONG: usize = 150;
const LONG_ALLOWED: usize = 5;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `text` with comments, string and character literals blanked (newlines kept), so braces
/// and `fn` are only code's.
fn code_only(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: &[u8]| {
        out.extend(from.iter().map(|c| if *c == b'\n' { b'\n' } else { b' ' }));
    };
    while i < b.len() {
        let rest = &b[i..];
        let end = if rest.starts_with(b"//") {
            rest.iter().position(|c| *c == b'\n').unwrap_or(rest.len())
        } else if rest.starts_with(b"/*") {
            block_comment_len(rest)
        } else if let Some(n) = raw_string_len(b, i) {
            n
        } else if rest[0] == b'"' {
            quoted_len(rest, b'"')
        } else if rest[0] == b'\'' {
            char_literal_len(rest).unwrap_or(0)
        } else {
            0
        };
        if end == 0 {
            out.push(b[i]);
            i += 1;
        } else {
            blank(&mut out, &rest[..end]);
            i += end;
        }
    }
    out
}

/// Length of a (nested) block comment at the start of `s`.
fn block_comment_len(s: &[u8]) -> usize {
    let (mut depth, mut i) = (0usize, 0);
    while i + 1 < s.len() {
        if s[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if s[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    s.len()
}

/// Length of a raw string (`r"…"`, `r#"…"#`, `br"…"`) starting at `b[i]`, if one does.
fn raw_string_len(b: &[u8], i: usize) -> Option<usize> {
    let after_ident = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    if after_ident {
        return None;
    }
    let start = if b[i..].starts_with(b"br") {
        2
    } else if b[i] == b'r' {
        1
    } else {
        return None;
    };
    let hashes = b[i + start..].iter().take_while(|c| **c == b'#').count();
    if b.get(i + start + hashes) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = i + start + hashes + 1;
    let n = b[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map_or(b.len() - body, |p| p + close.len());
    Some(body - i + n)
}

/// Length of a quoted literal at the start of `s` (escapes skipped).
fn quoted_len(s: &[u8], quote: u8) -> usize {
    let mut i = 1;
    while i < s.len() {
        match s[i] {
            b'\\' => i += 2,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    s.len()
}

/// Length of a character literal at the start of `s`; None for a lifetime (`'a`).
fn char_literal_len(s: &[u8]) -> Option<usize> {
    if s.get(1) == Some(&b'\\') {
        return Some(quoted_len(s, b'\''));
    }
    // One character (of up to 4 bytes) then the closing quote.
    (2..=5)
        .find(|n| {
            s.get(*n) == Some(&b'\'')
                && std::str::from_utf8(&s[1..*n]).is_ok_and(|c| c.chars().count() == 1)
        })
        .map(|n| n + 1)
}

/// Every function of `code` with a body: (name, first line, lines spanned).
fn functions(code: &[u8]) -> Vec<(String, usize, usize)> {
    let line_of = |at: usize| code[..at].iter().filter(|c| **c == b'\n').count() + 1;
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i + 3 < code.len() {
        let is_fn = code[i..].starts_with(b"fn")
            && code[i + 2].is_ascii_whitespace()
            && (i == 0 || !is_ident(code[i - 1]));
        if !is_fn {
            i += 1;
            continue;
        }
        let name_at = i
            + 2
            + code[i + 2..]
                .iter()
                .take_while(|c| c.is_ascii_whitespace())
                .count();
        let name: String = code[name_at..]
            .iter()
            .take_while(|c| is_ident(**c))
            .map(|c| char::from(*c))
            .collect();
        if let Some((open, close)) = body_of(code, name_at) {
            out.push((name, line_of(i), line_of(close) - line_of(i) + 1));
            i = open + 1;
        } else {
            i = name_at;
        }
    }
    out
}

/// The braces of the body of a function whose signature starts at `from`: the first `{`
/// outside parentheses and brackets, and its match; None for a declaration ending in `;`.
fn body_of(code: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut depth = 0i32;
    let mut open = None;
    for (k, c) in code.iter().enumerate().skip(from) {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b';' if depth <= 0 => return None,
            b'{' if depth <= 0 => {
                open = Some(k);
                break;
            }
            _ => {}
        }
    }
    let open = open?;
    let mut braces = 0i32;
    for (k, c) in code.iter().enumerate().skip(open) {
        match c {
            b'{' => braces += 1,
            b'}' => {
                braces -= 1;
                if braces == 0 {
                    return Some((open, k));
                }
            }
            _ => {}
        }
    }
    None
}

/// Every function of `src/`, longest first: (lines, file, name, first line).
fn measured() -> Vec<(usize, String, String, usize)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut all = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read a source file");
        let code = text.split("\n#[cfg(test)]").next().unwrap_or(&text);
        let rel = path
            .strip_prefix(&src)
            .expect("under src")
            .display()
            .to_string();
        for (name, line, lines) in functions(&code_only(code)) {
            all.push((lines, rel.clone(), name, line));
        }
    }
    all.sort_by_key(|f| std::cmp::Reverse(f.0));
    all
}

#[test]
fn no_function_in_src_has_to_be_scrolled_through() {
    let all = measured();
    assert!(
        all.len() > 1000,
        "found only {} functions: the scan is broken",
        all.len()
    );
    let listed = |min: usize| {
        all.iter()
            .filter(|f| f.0 > min)
            .map(|(n, file, name, line)| format!("  {n} lines: {file}:{line} `{name}`"))
            .collect::<Vec<_>>()
    };
    let longest = listed(LONGEST);
    assert!(
        longest.is_empty(),
        "functions over {LONGEST} lines (split them by the decisions they make; docs/ARCHITECTURE.md):\n{}",
        longest.join("\n")
    );
    let long = listed(LONG);
    assert!(
        long.len() <= LONG_ALLOWED,
        "{} functions over {LONG} lines, at most {LONG_ALLOWED} allowed:\n{}",
        long.len(),
        long.join("\n")
    );
}

/// The counter itself: braces in strings, comments, raw strings and character literals do not
/// count, a declaration without a body is no function, nested functions count on their own.
#[test]
fn the_counter_counts_brace_spans_of_code_only() {
    let code = r####"
fn one() {
    let s = "}}}";
    let r = r#"{ "# ;
    let c = '{';
    // }
    /* } /* } */ } */
    let l: &'static str = "x";
}

trait T {
    fn declared(&self) -> Vec<u8>;
}

fn two<F: Fn(&[u8; 4]) -> bool>(f: F) -> bool
where
    F: Copy,
{
    fn inner() {}
    f(&[0; 4])
}
"####;
    let found = functions(&code_only(code));
    let names: Vec<(&str, usize)> = found.iter().map(|(n, _, l)| (n.as_str(), *l)).collect();
    assert_eq!(names, [("one", 8), ("two", 7), ("inner", 1)]);
}
