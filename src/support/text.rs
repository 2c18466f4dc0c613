//! Text that came from outside (a file, a datagram, a log line) as it may be shown: control
//! characters escaped, so an escape sequence cannot drive a terminal, and cut to a length a
//! line can hold, saying how much was left out.

/// Characters of untrusted text a one-line message shows.
pub const SHOWN_CHARS: usize = 160;

/// `text` with every control character escaped (`\u{1b}`, `\n`) and at most `max` characters
/// of it, followed by "… (N more characters)" when it was cut.
pub fn shown(text: &str, max: usize) -> String {
    cut_escaped(text, max, |_| false)
}

/// [`shown`] for text of several lines (a description): line breaks and tabs are kept.
pub fn shown_lines(text: &str, max: usize) -> String {
    cut_escaped(text, max, |c| c == '\n' || c == '\t')
}

fn cut_escaped(text: &str, max: usize, keep: fn(char) -> bool) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    for c in chars.by_ref().take(max) {
        if c.is_control() && !keep(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    let more = chars.count();
    if more > 0 {
        out.push_str(&format!("… ({more} more characters)"));
    }
    out
}

/// Every line of `text` as [`shown`] shows it, at most `max` characters each: how an error
/// message (which may quote a file) reaches a terminal.
pub fn each_line_shown(text: &str, max: usize) -> String {
    text.split('\n')
        .map(|l| shown(l, max))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A message that quotes what it found between backticks (`` `value` ``), as it may be shown:
/// each quoted span at most `max` characters, control characters escaped everywhere (line
/// breaks outside the quotes kept).
pub fn spans_shown(text: &str, max: usize) -> String {
    text.split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                shown(part, max)
            } else {
                shown_lines(part, usize::MAX)
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// `words` joined by ", " into lines of about `width` characters, each after `indent`.
pub fn wrapped(
    words: impl IntoIterator<Item = impl AsRef<str>>,
    width: usize,
    indent: &str,
) -> String {
    let mut lines: Vec<String> = vec![indent.to_string()];
    for w in words {
        let w = w.as_ref();
        let line = lines.last_mut().expect("one line at least");
        if line.len() > indent.len() && line.len() + w.len() + 2 > width {
            line.push(',');
            lines.push(format!("{indent}{w}"));
        } else {
            if line.len() > indent.len() {
                line.push_str(", ");
            }
            line.push_str(w);
        }
    }
    lines.join("\n")
}

/// [`shown`] with [`SHOWN_CHARS`], in double quotes: how a message quotes a value it found.
pub fn quoted(text: &str) -> String {
    format!("\"{}\"", shown(text, SHOWN_CHARS))
}

/// Whether `text` would be shown as it is (short enough, no control characters).
pub fn is_plain(text: &str, max: usize) -> bool {
    text.chars().count() <= max && !text.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_long_text_is_cut_saying_how_much() {
        assert_eq!(shown("live", 10), "live");
        assert_eq!(shown("a\u{1b}[31mred", 20), "a\\u{1b}[31mred");
        assert_eq!(shown("two\nlines", 20), "two\\nlines");
        let long = "x".repeat(5_000_000);
        let s = shown(&long, 8);
        assert_eq!(s, "xxxxxxxx… (4999992 more characters)");
        assert_eq!(quoted("0,2"), "\"0,2\"");
        assert_eq!(shown_lines("a\nb\u{7}", 9), "a\nb\\u{7}");
        assert_eq!(
            each_line_shown("ab\ncdef\u{1b}", 3),
            "ab\ncde… (2 more characters)"
        );
        assert!(quoted(&long).len() < 200);
        assert!(is_plain("default", 10) && !is_plain("a\tb", 10) && !is_plain(&long, 10));
    }
}
