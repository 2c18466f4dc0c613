//! A lesson's claims: what its texts say of the session, written so they can be checked.
//! A reveal saying "no corrections" carries the claim `corrections = 0`; the lesson test
//! holds every shipped lesson to its claims in the state each text is shown in, and the app
//! says so when the session in front of the learner does not bear a claim out (a setting
//! changed since the scenario started, say).
//!
//! The form: `FIGURE OP BOUND` or `FIGURE in LOW..HIGH`, where FIGURE is a quote as a text
//! writes it between braces (`replay_depth`, `rtt_ms@0`, `frames_per_move#1`), OP one of
//! `<`, `<=`, `>`, `>=`, `=`, and BOUND a number or `[NUMBER *] FIGURE`
//! (`move_age_ms > 0.5 * rtt_ms`).

use super::figures::{Quote, quote};

/// One checked statement about the session's figures.
#[derive(Clone, Copy)]
pub struct Claim {
    pub left: Quote,
    cmp: Cmp,
    bound: Bound,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Within,
}

#[derive(Clone, Copy)]
enum Bound {
    Number(f64),
    /// `factor * figure`.
    Figure(f64, Quote),
    Range(f64, f64),
}

/// A claim that does not parse: what was expected where it went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimError(pub String);

impl std::fmt::Display for ClaimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "expected {}", self.0)
    }
}

impl std::error::Error for ClaimError {}

/// What a claim's figures measured: the value and its text.
pub type Measured = (f64, String);

impl Claim {
    /// Parses `text`, or says what was expected where it went wrong.
    pub fn parse(text: &str) -> Result<Claim, ClaimError> {
        Self::parse_words(text).map_err(ClaimError)
    }

    fn parse_words(text: &str) -> Result<Claim, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let [left, op, rest @ ..] = words.as_slice() else {
            return Err(format!("`FIGURE OP BOUND`, not `{text}`"));
        };
        let left = figure_quote(left)?;
        let cmp = match *op {
            "<" => Cmp::Lt,
            "<=" => Cmp::Le,
            ">" => Cmp::Gt,
            ">=" => Cmp::Ge,
            "=" => Cmp::Eq,
            "in" => Cmp::Within,
            other => {
                return Err(format!(
                    "one of <, <=, >, >=, =, in after the figure, not `{other}`"
                ));
            }
        };
        let bound = match (cmp, rest) {
            (Cmp::Within, [range]) => range_bound(range)?,
            (Cmp::Within, _) => return Err(format!("`LOW..HIGH` after `in`, in `{text}`")),
            (_, [one]) => one_bound(one)?,
            (_, [factor, "*", figure]) => Bound::Figure(number(factor)?, figure_quote(figure)?),
            _ => return Err(format!("a number or `[NUMBER *] FIGURE` in `{text}`")),
        };
        Ok(Claim { left, cmp, bound })
    }

    /// The figures the claim reads: its left side, and the bound's if it is one.
    pub fn quotes(&self) -> impl Iterator<Item = Quote> {
        let right = match self.bound {
            Bound::Figure(_, q) => Some(q),
            _ => None,
        };
        std::iter::once(self.left).chain(right)
    }

    /// Whether the claim holds, given what its figures measured (`right` only for a bound
    /// that is a figure).
    pub fn holds(&self, left: f64, right: Option<f64>) -> bool {
        let (lo, hi) = match (self.bound, right) {
            (Bound::Range(lo, hi), _) => (lo, hi),
            (Bound::Number(x), _) => (x, x),
            (Bound::Figure(f, _), Some(r)) => (f * r, f * r),
            (Bound::Figure(..), None) => return false,
        };
        // A figure is quoted rounded: equality is to its shown precision.
        let eps = 0.5 * 10f64.powi(-(self.left.def.decimals() as i32));
        match self.cmp {
            Cmp::Lt => left < lo,
            Cmp::Le => left <= lo + eps,
            Cmp::Gt => left > lo,
            Cmp::Ge => left >= lo - eps,
            Cmp::Eq => (left - lo).abs() < eps,
            Cmp::Within => (lo - eps..=hi + eps).contains(&left),
        }
    }

    /// How the claim reads to a learner when the session does not bear it out: "Corrections
    /// the clients received: 12 here; the lesson says 0".
    pub fn refuted(&self, left: &Measured, right: Option<&Measured>) -> String {
        let fmt = |x: f64| self.left.def.format(x);
        let bound = match (self.bound, right) {
            (Bound::Number(x), _) => fmt(x),
            (Bound::Range(lo, hi), _) => format!("{} and {}", fmt(lo), fmt(hi)),
            (Bound::Figure(f, q), r) => {
                let times = if (f - 1.0).abs() < 1e-12 {
                    String::new()
                } else {
                    format!("{f} × ")
                };
                // In words: what the figure is, and what it measured here (never its key).
                let said = r.map(|(_, s)| format!(" ({s} here)")).unwrap_or_default();
                format!("{times}{}{said}", q.def.what)
            }
        };
        let op = match self.cmp {
            Cmp::Lt => "below ",
            Cmp::Le => "at most ",
            Cmp::Gt => "above ",
            Cmp::Ge => "at least ",
            Cmp::Eq => "",
            Cmp::Within => "between ",
        };
        format!(
            "{}: {} here; the lesson says {op}{bound}",
            capitalised(self.left.def.what),
            left.1
        )
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn figure_quote(word: &str) -> Result<Quote, String> {
    quote(word).ok_or_else(|| format!("a figure (`name`, `name@k`, `name#client`), not `{word}`"))
}

fn number(word: &str) -> Result<f64, String> {
    word.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("a number, not `{word}`"))
}

fn one_bound(word: &str) -> Result<Bound, String> {
    match word.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(Bound::Number(x)),
        _ => Ok(Bound::Figure(1.0, figure_quote(word)?)),
    }
}

fn range_bound(word: &str) -> Result<Bound, String> {
    let (lo, hi) = word
        .split_once("..")
        .ok_or_else(|| format!("`LOW..HIGH`, not `{word}`"))?;
    let (lo, hi) = (number(lo)?, number(hi)?);
    if lo > hi {
        return Err(format!("LOW no higher than HIGH in `{word}`"));
    }
    Ok(Bound::Range(lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(text: &str, left: f64, right: Option<f64>) -> bool {
        Claim::parse(text).expect("parses").holds(left, right)
    }

    #[test]
    fn claims_compare_a_figure_with_a_number_a_range_or_another_figure() {
        assert!(holds("corrections = 0", 0.0, None));
        assert!(!holds("corrections = 0", 1.0, None));
        assert!(holds("replay_depth > 2", 2.5, None));
        assert!(!holds("replay_depth > 2", 2.0, None));
        assert!(
            holds("move_delta_max_ms in 49..50", 50.04, None),
            "to the shown 0.1"
        );
        assert!(!holds("move_delta_max_ms in 49..50", 50.2, None));
        assert!(holds("move_age_ms > 0.5 * rtt_ms", 101.0, Some(200.0)));
        assert!(!holds("move_age_ms > 0.5 * rtt_ms", 99.0, Some(200.0)));
        assert!(holds(
            "interp_delay_ms@1 > interp_delay_ms@0",
            120.0,
            Some(100.0)
        ));
        assert!(!holds("interp_delay_ms@1 > interp_delay_ms@0", 1.0, None));
        let c = Claim::parse("frames_per_move#1 >= 3").expect("parses");
        assert_eq!(c.quotes().count(), 1);
        let c = Claim::parse("move_age_ms@1 <= 1.2 * move_age_ms@0").expect("parses");
        assert_eq!(
            c.quotes().filter_map(|q| q.state).collect::<Vec<_>>(),
            [1, 0]
        );
    }

    #[test]
    fn a_malformed_claim_says_what_was_expected() {
        for (text, expected) in [
            ("corrections", "FIGURE OP BOUND"),
            ("nope = 0", "a figure"),
            ("corrections == 0", "one of <, <=, >, >=, =, in"),
            ("corrections = x", "a figure"),
            ("corrections in 3", "LOW..HIGH"),
            ("corrections in 3..1", "LOW no higher"),
            ("rtt_ms > 2 * nope", "a figure"),
            ("rtt_ms > 2 + rtt_ms", "a number or"),
        ] {
            let e = Claim::parse(text)
                .err()
                .unwrap_or_else(|| panic!("{text} refused"));
            assert!(e.to_string().contains(expected), "{text}: {e}");
        }
    }

    #[test]
    fn a_refuted_claim_names_the_figure_what_it_measured_and_what_was_said() {
        let c = Claim::parse("corrections = 0").expect("parses");
        assert_eq!(
            c.refuted(&(12.0, "12".into()), None),
            "Corrections the clients received: 12 here; the lesson says 0"
        );
        let c = Claim::parse("move_age_ms > 0.5 * rtt_ms").expect("parses");
        let said = c.refuted(&(40.0, "40 ms".into()), Some(&(200.0, "200 ms".into())));
        assert!(
            said.ends_with("above 0.5 × the clients' mean ping round trip (200 ms here)"),
            "{said}"
        );
    }
}
