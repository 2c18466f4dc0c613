//! What the doctor reports: each correction explained ([`Diagnosis`]), the causes ranked, the
//! findings that cause no correction, and the whole as text for people.

use serde::Serialize;

use super::causes::Cause;
use super::parting::Parting;

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

/// One correction, explained.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnosis {
    pub t: f64,
    pub client: u16,
    pub move_id: u32,
    /// The move's timestamp: GMC's identity of the move (what its log prints).
    pub timestamp: Option<f64>,
    /// Sub-steps and frames of the move as the client closed it (when recorded).
    pub substeps: Option<u16>,
    pub frames: Option<u16>,
    pub found_by: String,
    pub replay_depth: u16,
    pub deviations: Vec<DeviationReport>,
    /// Where the corrected move's values first parted (needs the value trace).
    pub parted: Option<Parting>,
    pub cause: Cause,
    pub evidence: String,
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
        findings: Vec::new(),
        session_changes: Vec::new(),
        diagnoses: Vec::new(),
    };
    for p in parts {
        out.corrections += p.corrections;
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
            "{} corrections. Value trace: {}.\n",
            self.corrections, self.value_trace
        );
        if !self.causes.is_empty() {
            s += "\nMost likely causes:\n";
            for c in &self.causes {
                s += &format!("  {:>5}  {}\n", c.corrections, c.line());
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
                "\nCorrections (first {} of {}):\n",
                max_listed.min(self.diagnoses.len()),
                self.diagnoses.len()
            );
        }
        for d in self.diagnoses.iter().take(max_listed) {
            s += &format!(
                "  {:.3} s  client {} move {}{}, found by the {}, replayed {}: {:?}\n",
                d.t,
                d.client,
                d.move_id,
                d.move_details(),
                d.found_by,
                d.replay_depth,
                d.cause
            );
            for v in &d.deviations {
                s += &format!("      {}\n", v.describe());
            }
            if let Some(p) = &d.parted {
                s += &format!("      {}\n", p.describe());
            }
            s += &format!("      evidence: {}\n", d.evidence);
        }
        s
    }
}
