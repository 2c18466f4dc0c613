//! One detector's answer about one correction: the cause is supported (with the evidence that
//! shows it, quoted from the records or from the log's lines), ruled out (and why), or the
//! evidence cannot tell (what is missing, and what would tell). The doctor never falls back to
//! a cause nobody supported.

use serde::Serialize;

use super::causes::Cause;
use crate::support::text::shown;

/// A detector's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Supported,
    CannotTell,
    RuledOut,
}

/// How a supported cause is shown, strongest first: the ranking of a correction's causes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strength {
    /// Values the records or the log hold show it happening to this move.
    Observed,
    /// The binding list or the component's code has the mistake (true of every correction).
    Code,
    /// Something that causes it happened just before (a hit, skipped moves, counts that
    /// disagree).
    Nearby,
    /// Every other cause is ruled out, for a pawn the doctor knows whole (movescope's own).
    Elimination,
}

/// A piece of evidence: what it says, and where it is (`server.log:123`, or a session time).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Quote {
    pub text: String,
    pub at: Option<String>,
}

/// Characters of a quote shown: a quote may carry a log line's text, which is untrusted.
const QUOTE_CHARS: usize = 600;

impl Quote {
    pub fn at(text: impl Into<String>, at: impl Into<String>) -> Quote {
        Quote {
            text: shown(&text.into(), QUOTE_CHARS),
            at: Some(shown(&at.into(), QUOTE_CHARS)),
        }
    }

    pub fn plain(text: impl Into<String>) -> Quote {
        Quote {
            text: shown(&text.into(), QUOTE_CHARS),
            at: None,
        }
    }

    /// `text (server.log:123)`.
    pub fn line(&self) -> String {
        match &self.at {
            Some(at) => format!("{} ({at})", self.text),
            None => self.text.clone(),
        }
    }
}

/// One detector's answer about one correction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CauseVerdict {
    pub cause: Cause,
    pub answer: Answer,
    /// How it is shown (supported causes only).
    pub strength: Option<Strength>,
    /// The evidence in a sentence (supported), why not (ruled out), or what is missing.
    pub says: String,
    /// The records or log lines it rests on.
    pub quotes: Vec<Quote>,
    /// Cannot tell: the console variable, setting or file that would tell.
    pub would_tell: Option<String>,
}

impl CauseVerdict {
    pub fn supported(
        cause: Cause,
        strength: Strength,
        says: impl Into<String>,
        quotes: Vec<Quote>,
    ) -> Self {
        CauseVerdict {
            cause,
            answer: Answer::Supported,
            strength: Some(strength),
            says: says.into(),
            quotes,
            would_tell: None,
        }
    }

    pub fn ruled_out(cause: Cause, why: impl Into<String>) -> Self {
        CauseVerdict {
            cause,
            answer: Answer::RuledOut,
            strength: None,
            says: why.into(),
            quotes: Vec::new(),
            would_tell: None,
        }
    }

    pub fn ruled_out_by(cause: Cause, why: impl Into<String>, quotes: Vec<Quote>) -> Self {
        CauseVerdict {
            quotes,
            ..CauseVerdict::ruled_out(cause, why)
        }
    }

    pub fn cannot_tell(
        cause: Cause,
        missing: impl Into<String>,
        would_tell: impl Into<String>,
    ) -> Self {
        CauseVerdict {
            cause,
            answer: Answer::CannotTell,
            strength: None,
            says: missing.into(),
            quotes: Vec::new(),
            would_tell: Some(would_tell.into()),
        }
    }

    pub fn is_supported(&self) -> bool {
        self.answer == Answer::Supported
    }

    /// The answer in one line: `supported (observed): …`, `ruled out: …`, `cannot tell: … (would
    /// tell: …)`.
    pub fn describe(&self) -> String {
        let head = match (self.answer, self.strength) {
            (Answer::Supported, Some(s)) => format!("supported ({})", strength_word(s)),
            (Answer::Supported, None) => "supported".to_string(),
            (Answer::RuledOut, _) => "ruled out".to_string(),
            (Answer::CannotTell, _) => "cannot tell".to_string(),
        };
        let mut s = format!(
            "{} ({:?}): {head}: {}",
            self.cause.title(),
            self.cause,
            self.says
        );
        if let Some(w) = &self.would_tell {
            s += &format!(" — would tell: {w}");
        }
        s
    }
}

/// The ranking order: supported strongest first, then the causes the evidence cannot decide,
/// then those ruled out; ties in the checklist's order.
pub fn rank(verdicts: &mut [CauseVerdict]) {
    verdicts.sort_by_key(|v| (v.answer, v.strength, v.cause.precedence()));
}

fn strength_word(s: Strength) -> &'static str {
    match s {
        Strength::Observed => "observed in this move",
        Strength::Code => "in the binding list or the code",
        Strength::Nearby => "happened just before",
        Strength::Elimination => "by elimination",
    }
}
