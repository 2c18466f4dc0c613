//! Small readers for the numbers and fixed texts of GMC's lines.

/// A move timestamp as GMC printed it: its identity (GMC keys moves by timestamp and prints
/// it with 6 decimals on both machines, so the same move has the same text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ts {
    /// Microseconds, rounded from the printed text.
    pub micros: i64,
    /// Decimals printed (6 for `%f`; GMC 1.x replay lines print 3).
    pub decimals: u8,
}

impl Ts {
    pub fn secs(self) -> f64 {
        self.micros as f64 / 1e6
    }

    pub fn from_secs(secs: f64) -> Ts {
        Ts {
            micros: (secs * 1e6).round() as i64,
            decimals: 6,
        }
    }

    /// Whether `other` (printed with at least as many decimals) is the same move as this one,
    /// within this one's printed precision.
    pub fn matches(self, other: Ts) -> bool {
        if self.decimals >= 6 && other.decimals >= 6 {
            return self.micros == other.micros;
        }
        let half = 10i64.pow(6 - u32::from(self.decimals.min(other.decimals).min(6))) / 2;
        (self.micros - other.micros).abs() <= half
    }
}

impl std::fmt::Display for Ts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.*}", usize::from(self.decimals), self.secs())
    }
}

/// Reads a decimal number at the start of `s` (after spaces): sign, digits, point, digits,
/// exponent. Returns it and the rest.
pub fn number(s: &str) -> Option<(f64, &str)> {
    let t = s.trim_start();
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let digits_from = i;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
        i += 1;
    }
    if i == digits_from {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    let v: f64 = t[..i].parse().ok()?;
    v.is_finite().then_some((v, &t[i..]))
}

/// A timestamp at the start of `s` (after spaces).
pub fn timestamp(s: &str) -> Option<(Ts, &str)> {
    let t = s.trim_start();
    let (v, rest) = number(t)?;
    let text = &t[..t.len() - rest.len()];
    let decimals = text.find('.').map_or(0, |p| {
        text[p + 1..].bytes().take_while(u8::is_ascii_digit).count()
    });
    let ts = Ts {
        micros: (v * 1e6).round() as i64,
        decimals: decimals.min(9) as u8,
    };
    Some((ts, rest))
}

/// A whole number at the start of `s` (after spaces).
pub fn whole(s: &str) -> Option<(i64, &str)> {
    let t = s.trim_start();
    let end = t
        .bytes()
        .enumerate()
        .position(|(i, c)| !(c.is_ascii_digit() || (i == 0 && c == b'-')))
        .unwrap_or(t.len());
    Some((t[..end].parse().ok()?, &t[end..]))
}

/// The text after the first `pat`.
pub fn after<'a>(s: &'a str, pat: &str) -> Option<&'a str> {
    s.find(pat).map(|i| &s[i + pat.len()..])
}

/// The number after the first `pat`.
pub fn number_after(s: &str, pat: &str) -> Option<f64> {
    number(after(s, pat)?).map(|(v, _)| v)
}

/// The timestamp after the first `pat`.
pub fn ts_after(s: &str, pat: &str) -> Option<Ts> {
    timestamp(after(s, pat)?).map(|(v, _)| v)
}

/// Three numbers separated by commas (`1.0, 2.0, 3.0`) at the start of `s`.
pub fn triple(s: &str) -> Option<([f64; 3], &str)> {
    let (x, r) = number(s)?;
    let (y, r) = number(r.trim_start().strip_prefix(',')?)?;
    let (z, r) = number(r.trim_start().strip_prefix(',')?)?;
    Some(([x, y, z], r))
}

/// The three numbers after `pat` (`pat 1.0, 2.0, 3.0`).
pub fn triple_after(s: &str, pat: &str) -> Option<[f64; 3]> {
    triple(after(s, pat)?).map(|(v, _)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_timestamps() {
        assert_eq!(number(" -1.5e2 s"), Some((-150.0, " s")));
        assert_eq!(number("abc"), None);
        assert_eq!(number("nan"), None);
        let (t, rest) = timestamp("52.183331 s").unwrap();
        assert_eq!((t.micros, t.decimals, rest), (52_183_331, 6, " s"));
        let (short, _) = timestamp("  52.183").unwrap();
        assert!(short.matches(t));
        assert!(!Ts::from_secs(52.18334).matches(t));
        assert_eq!(t.to_string(), "52.183331");
        assert_eq!(whole(" 12/3"), Some((12, "/3")));
        assert_eq!(triple("1.0, -2, 3.5 | x"), Some(([1.0, -2.0, 3.5], " | x")));
    }
}
