//! What the doctor reports: each correction explained ([`Diagnosis`]), the causes ranked, the
//! findings that cause no correction, and the whole as text for people.

use serde::Serialize;

use super::causes::Cause;
use super::parting::Parting;
use super::verdict::{Answer, CauseVerdict};

/// One deviating value of a correction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviationReport {
    pub binding: String,
    pub predicted: String,
    pub authoritative: String,
    pub error: f64,
    pub tolerance: f64,
    /// Error over tolerance (how far past the line).
    pub ratio: f64,
}

impl DeviationReport {
    /// `velocity predicted (1, 0, 0) but server (2, 0, 0): error 1.000 = 0.1× tolerance 10.000`
    /// (a game log gives no tolerance: then the difference alone).
    pub fn describe(&self) -> String {
        let head = format!(
            "{} predicted {} but server {}",
            self.binding, self.predicted, self.authoritative
        );
        if self.tolerance.is_finite() {
            format!(
                "{head}: error {:.3} = {:.1}× tolerance {:.3}",
                self.error, self.ratio, self.tolerance
            )
        } else if self.error.is_finite() {
            format!(
                "{head}: differs by {:.3} (the log gives no tolerance)",
                self.error
            )
        } else {
            head
        }
    }
}

impl Diagnosis {
    /// ` (GMC timestamp 52.150000 s, 2 frames, 1 sub-steps)`: what is known of the move.
    pub fn move_details(&self) -> String {
        let mut parts = Vec::new();
        if let Some(ts) = self.timestamp {
            parts.push(format!("GMC timestamp {ts:.6} s"));
        }
        if let Some(f) = self.frames {
            parts.push(format!("{f} frames"));
        }
        if let Some(k) = self.substeps {
            parts.push(format!("{k} sub-steps"));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        }
    }
}

/// One desync, explained.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnosis {
    /// When it was found (the client's correction, or the server's first rejection).
    pub t: f64,
    pub client: u16,
    /// The first move found wrong: the first the server rejected, else the move whose reply
    /// the client checked.
    pub move_id: u32,
    /// The move's timestamp: GMC's identity of the move (what its log prints).
    pub timestamp: Option<f64>,
    /// Sub-steps and frames of the move as the client closed it (when recorded).
    pub substeps: Option<u16>,
    pub frames: Option<u16>,
    /// `client`, `server`, or `server and client`.
    pub found_by: String,
    /// How each side's check is known, with the lines that show it.
    pub found: Vec<String>,
    /// Moves the client replayed (`None`: not in the records, a game log without the lines).
    pub replay_depth: Option<u16>,
    pub deviations: Vec<DeviationReport>,
    /// Every move the server rejected in this desync, with its values.
    pub rejected: Vec<RejectedMove>,
    /// The move whose reply the client checked, when it is not `move_id` (GMC replicates one
    /// reply per net update, for the last move the server executed).
    pub reply_move: Option<u32>,
    /// Where the corrected move's values first parted (needs the value trace).
    pub parted: Option<Parting>,
    /// The best-supported cause; `None` when the evidence supports none.
    pub cause: Option<Cause>,
    /// The leading cause's evidence, or what is open.
    pub evidence: String,
    /// Every detector's answer: supported (strongest first), then those the evidence cannot
    /// decide, then those ruled out.
    pub verdicts: Vec<CauseVerdict>,
}

/// A move the server rejected (its validation failed), with the values its lines named.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RejectedMove {
    pub move_id: u32,
    pub timestamp: f64,
    pub deviations: Vec<DeviationReport>,
    /// The verdict's line (`server.log:123`).
    pub at: Option<String>,
    /// The client had predicted it before the correction reached it (in flight).
    pub in_flight: bool,
}

impl RejectedMove {
    pub fn describe(&self) -> String {
        let values: Vec<String> = self
            .deviations
            .iter()
            .map(DeviationReport::describe)
            .collect();
        format!(
            "move {} (GMC timestamp {:.6} s){}{}: {}",
            self.move_id,
            self.timestamp,
            if self.in_flight {
                ", predicted before the correction arrived"
            } else {
                ""
            },
            self.at
                .as_ref()
                .map_or(String::new(), |a| format!(" at {a}")),
            if values.is_empty() {
                "no value named (the log's per-value line is missing)".to_string()
            } else {
                values.join("; ")
            }
        )
    }
}

impl Diagnosis {
    /// The verdicts with this answer.
    pub fn answered(&self, a: Answer) -> impl Iterator<Item = &CauseVerdict> {
        self.verdicts.iter().filter(move |v| v.answer == a)
    }

    /// `replayed 3`, or what the records lack.
    pub fn replay_text(&self) -> String {
        match self.replay_depth {
            Some(d) => format!("replayed {d}"),
            None => "replay depth not in the log".to_string(),
        }
    }

    /// The cause's name, or that none is supported.
    pub fn cause_text(&self) -> String {
        match self.cause {
            Some(c) => format!("{} ({c:?})", c.title()),
            None => "no cause supported by the evidence".to_string(),
        }
    }
}

/// Something wrong that causes no correction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub pitfall: String,
    pub evidence: String,
}

/// A cause and how many corrections it explains.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CauseCount {
    pub cause: Cause,
    pub corrections: usize,
    pub explain: String,
}

impl CauseCount {
    /// The cause in one line, its title said once: "Title (Cause): why", or, when the
    /// explanation opens with the title (most do), the explanation capitalised with the
    /// cause after it.
    pub fn line(&self) -> String {
        let title = self.cause.title();
        let opens_with_title = self
            .explain
            .get(..title.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(title));
        if opens_with_title {
            format!("{title}{} ({:?})", &self.explain[title.len()..], self.cause)
        } else {
            format!("{title} ({:?}): {}", self.cause, self.explain)
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Where the value trace came from: recorded, re-simulated, or why there is none.
    pub value_trace: String,
    pub corrections: usize,
    /// Causes, most corrections first.
    pub causes: Vec<CauseCount>,
    /// Desyncs for which the evidence supports no cause (each lists what would tell).
    pub unexplained: usize,
    pub findings: Vec<Finding>,
    /// Changes made to the running session (live recordings): when, and what.
    pub session_changes: Vec<(f64, String)>,
    pub diagnoses: Vec<Diagnosis>,
}

/// Reports of consecutive parts of one session as one: corrections and diagnoses in time
/// order, causes recounted, findings and session changes without repeats.
pub(super) fn merge(parts: Vec<Report>) -> Report {
    let mut out = Report {
        value_trace: parts
            .first()
            .map_or_else(String::new, |p| p.value_trace.clone()),
        corrections: 0,
        causes: Vec::new(),
        unexplained: 0,
        findings: Vec::new(),
        session_changes: Vec::new(),
        diagnoses: Vec::new(),
    };
    for p in parts {
        out.corrections += p.corrections;
        out.unexplained += p.unexplained;
        out.diagnoses.extend(p.diagnoses);
        for f in p.findings {
            if !out.findings.contains(&f) {
                out.findings.push(f);
            }
        }
        for c in p.session_changes {
            if !out.session_changes.contains(&c) {
                out.session_changes.push(c);
            }
        }
        for c in p.causes {
            match out.causes.iter_mut().find(|x| x.cause == c.cause) {
                Some(x) => x.corrections += c.corrections,
                None => out.causes.push(c),
            }
        }
    }
    out.diagnoses.sort_by(|a, b| a.t.total_cmp(&b.t));
    out.causes.sort_by_key(|c| std::cmp::Reverse(c.corrections));
    out
}

impl Report {
    /// The cause behind most corrections.
    pub fn top_cause(&self) -> Option<Cause> {
        self.causes.first().map(|c| c.cause)
    }

    /// The report as text for people.
    pub fn to_text(&self, max_listed: usize) -> String {
        let mut s = format!(
            "{} desync{}. Value trace: {}.\n",
            self.corrections,
            if self.corrections == 1 { "" } else { "s" },
            self.value_trace
        );
        if !self.causes.is_empty() || self.unexplained > 0 {
            s += "\nMost likely causes:\n";
            for c in &self.causes {
                s += &format!("  {:>5}  {}\n", c.corrections, c.line());
            }
            if self.unexplained > 0 {
                s += &format!(
                    "  {:>5}  No cause is supported by the evidence the records hold (each lists what would tell)\n",
                    self.unexplained
                );
            }
        }
        if !self.session_changes.is_empty() {
            s += "\nThe session was changed while it ran:\n";
            for (t, what) in &self.session_changes {
                s += &format!("  {t:9.3} s  {what}\n");
            }
        }
        if !self.findings.is_empty() {
            s += "\nFindings without corrections:\n";
            for f in &self.findings {
                s += &format!("  {}: {}\n", f.pitfall, f.evidence);
            }
        }
        if !self.diagnoses.is_empty() {
            s += &format!(
                "\nDesyncs (first {} of {}):\n",
                max_listed.min(self.diagnoses.len()),
                self.diagnoses.len()
            );
        }
        for d in self.diagnoses.iter().take(max_listed) {
            s += &diagnosis_text(d);
        }
        s
    }
}

/// One desync as text: the head line, its values, who found it, the rejected moves, where it
/// parted, and every detector's answer.
fn diagnosis_text(d: &Diagnosis) -> String {
    let mut s = format!(
        "  {:.3} s  client {} move {}{}, found by the {}, {}: {}\n",
        d.t,
        d.client,
        d.move_id,
        d.move_details(),
        d.found_by,
        d.replay_text(),
        d.cause_text()
    );
    for v in &d.deviations {
        s += &format!("      {}\n", v.describe());
    }
    for f in &d.found {
        s += &format!("      found: {f}\n");
    }
    for r in &d.rejected {
        s += &format!("      rejected by the server: {}\n", r.describe());
    }
    if let Some(m) = d.reply_move {
        s += &format!("      the reply the client checked was move {m}'s\n");
    }
    if let Some(p) = &d.parted {
        s += &format!("      {}\n", p.describe());
    }
    s += &format!("      evidence: {}\n", d.evidence);
    for v in &d.verdicts {
        s += &format!("      - {}\n", v.describe());
        for q in &v.quotes {
            s += &format!("          {}\n", q.line());
        }
    }
    s
}
