//! What-if re-runs: a session (from a recording: preset, seed, length) simulated again in
//! virtual time with a change, compared with the original — corrections and replay depth per
//! client, and the first record where the two runs differ. With no change, a virtual-time
//! recording is reproduced exactly (tested).

use serde::Serialize;

use crate::model::telemetry::{Event, Machine, Record};
use crate::session::preset::{BindingsError, Preset, PresetError};
use crate::session::recording::{Damage, Recording};
use crate::session::summary::Summary;

/// Per-client comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClientDiff {
    pub client: u16,
    pub corrections_a: u64,
    pub corrections_b: u64,
    pub replay_depth_mean_a: Option<f64>,
    pub replay_depth_mean_b: Option<f64>,
    pub replay_depth_max_a: u64,
    pub replay_depth_max_b: u64,
}

/// Where the two runs first differ.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Divergence {
    /// Index of the first differing record.
    pub record: usize,
    pub t: f64,
    pub machine: String,
    pub a: String,
    pub b: String,
}

/// The first move whose correction differs between the runs, in words: which client, which
/// move, which value, what was predicted against what the server computed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveDivergence {
    pub t: f64,
    pub client: u16,
    pub move_id: u32,
    /// What happened to the move in A and in B ("no correction" where there was none).
    pub a: String,
    pub b: String,
}

impl MoveDivergence {
    pub fn describe(&self) -> String {
        format!(
            "First diverging move: client {} move {} at {:.3} s. A: {}. B: {}.",
            self.client, self.move_id, self.t, self.a, self.b
        )
    }
}

/// A client's corrections in a run: (time, client, move, what deviated).
fn corrections(records: &[Record]) -> Vec<(f64, u16, u32, String)> {
    records
        .iter()
        .filter_map(|r| match (&r.machine, &r.event) {
            (Machine::Client(c), Event::Correction { move_id, deviations, .. }) => Some((
                r.t,
                *c,
                *move_id,
                deviations
                    .iter()
                    .map(|d| {
                        let unit = d.unit_suffix();
                        format!(
                            "{} predicted {}{unit} but the server computed {}{unit} (error {:.3}{unit}, tolerance {:.3}{unit})",
                            d.binding, d.predicted, d.authoritative, d.error, d.tolerance
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            )),
            _ => None,
        })
        .collect()
}

/// The first correction present in one run and not the other (or different in them).
pub fn first_diverging_move(records_a: &[Record], records_b: &[Record]) -> Option<MoveDivergence> {
    let (ca, cb) = (corrections(records_a), corrections(records_b));
    let key = |c: &(f64, u16, u32, String)| (c.1, c.2, c.3.clone());
    let i = ca
        .iter()
        .zip(&cb)
        .position(|(a, b)| key(a) != key(b))
        .or_else(|| (ca.len() != cb.len()).then(|| ca.len().min(cb.len())))?;
    // The earlier of the two corrections at the first difference is the diverging move.
    let first = match (ca.get(i), cb.get(i)) {
        (Some(a), Some(b)) => {
            if a.0 <= b.0 {
                a
            } else {
                b
            }
        }
        (Some(a), None) => a,
        (None, Some(b)) => b,
        (None, None) => return None,
    };
    let (t, client, move_id) = (first.0, first.1, first.2);
    let find = |cs: &[(f64, u16, u32, String)]| {
        cs.iter()
            .find(|c| c.1 == client && c.2 == move_id)
            .map_or("no correction".to_string(), |c| {
                format!("corrected: {}", c.3)
            })
    };
    Some(MoveDivergence {
        t,
        client,
        move_id,
        a: find(&ca),
        b: find(&cb),
    })
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub changes: Vec<String>,
    /// "the recording" (virtual time) or "a virtual-time re-run of its preset" (live).
    pub a_is: String,
    pub records_a: usize,
    pub records_b: usize,
    pub clients: Vec<ClientDiff>,
    /// `None`: the two runs are identical.
    pub first_divergence: Option<Divergence>,
    /// `None`: both runs corrected the same moves the same way.
    pub first_diverging_move: Option<MoveDivergence>,
}

/// The result of a what-if run: the comparison, both summaries and both record streams.
pub struct WhatIf {
    pub comparison: Comparison,
    pub summary_a: Summary,
    pub summary_b: Summary,
    pub records_a: Vec<Record>,
    pub records_b: Vec<Record>,
    pub preset_b: Preset,
}

fn short(e: &Event) -> String {
    let s = format!("{e:?}");
    if s.len() > 160 {
        format!("{}…", &s[..s.floor_char_boundary(160)])
    } else {
        s
    }
}

/// Why a what-if could not run. Each variant names the recording or the change; the text is
/// what the CLI prints.
#[derive(Debug, thiserror::Error)]
pub enum WhatIfError {
    #[error("{}: this recording is trimmed (it starts at {t_start:.2} s); a what-if needs the whole session from its start", path.display())]
    Trimmed {
        path: std::path::PathBuf,
        t_start: f64,
    },
    /// A change (`key=value`) that cannot apply: its key (an unknown key, a bad value); the
    /// error says what was expected.
    #[error("{error}")]
    Change { key: String, error: PresetError },
    /// The recording is damaged before its end (a what-if compares the whole session).
    #[error("{}: {damage}", path.display())]
    Damaged {
        path: std::path::PathBuf,
        damage: Damage,
    },
    /// The recording's preset (or the changed one) is invalid.
    #[error(transparent)]
    Preset(#[from] BindingsError),
}

/// The CLI reports errors as text; `?` turns a what-if error into its message.
impl From<WhatIfError> for String {
    fn from(e: WhatIfError) -> String {
        e.to_string()
    }
}

/// Re-runs `rec` with `changes` (`key=value`, as `--set`) and compares.
pub fn run(rec: &Recording, changes: &[String]) -> Result<WhatIf, WhatIfError> {
    // Bounded by the records really in the file (a crafted footer cannot make it run long).
    let seconds = rec.resimulation_seconds();
    if rec.header.t_start > 0.0 {
        return Err(WhatIfError::Trimmed {
            path: rec.path.clone(),
            t_start: rec.header.t_start,
        });
    }
    let preset_a = rec.header.preset.clone();
    let mut preset_b = preset_a.clone();
    for kv in changes {
        preset_b.set(kv).map_err(|error| WhatIfError::Change {
            key: kv
                .split_once('=')
                .map_or(kv.as_str(), |(k, _)| k)
                .trim()
                .to_string(),
            error,
        })?;
    }
    let name = &rec.header.preset_name;
    let deterministic = rec.header.mode == "deterministic";
    let (records_a, summary_a, a_is) = if deterministic {
        let (records, damage) = rec.load_all();
        if let Some(damage) = damage {
            return Err(WhatIfError::Damaged {
                path: rec.path.clone(),
                damage,
            });
        }
        (records, rec.summarize().0, "the recording".to_string())
    } else {
        let mut v = Vec::new();
        let s =
            crate::sim::run_deterministic(&preset_a, name, seconds, &mut |r| v.push(r.clone()))?;
        // Changes made while the live session ran are not replayed.
        let mut changes = 0usize;
        // Damage only shortens the count; the re-run does not depend on it.
        let _ = rec.for_each(&mut |r: Record| {
            if matches!(r.event, Event::SessionChanged { .. }) {
                changes += 1;
            }
        });
        let note = if changes > 0 {
            format!(
                "; the {changes} change(s) made while it ran are not replayed: the re-run keeps the settings it started with"
            )
        } else {
            String::new()
        };
        (
            v,
            s,
            format!("a virtual-time re-run of its preset (the recording is live){note}"),
        )
    };
    let mut records_b = Vec::new();
    let summary_b = crate::sim::run_deterministic(&preset_b, name, seconds, &mut |r| {
        records_b.push(r.clone())
    })?;
    let first_divergence = records_a
        .iter()
        .zip(&records_b)
        .position(|(a, b)| a != b)
        .or_else(|| {
            (records_a.len() != records_b.len()).then(|| records_a.len().min(records_b.len()))
        })
        .map(|i| {
            let (a, b) = (records_a.get(i), records_b.get(i));
            let any = a.or(b);
            Divergence {
                record: i,
                t: any.map_or(seconds, |r| r.t),
                machine: any.map_or_else(String::new, |r| r.machine.to_string()),
                a: a.map_or("(ended)".into(), |r| {
                    format!("{} {}", r.machine, short(&r.event))
                }),
                b: b.map_or("(ended)".into(), |r| {
                    format!("{} {}", r.machine, short(&r.event))
                }),
            }
        });
    let mut clients = Vec::new();
    for ca in &summary_a.clients {
        let cb = summary_b.clients.iter().find(|c| c.id == ca.id);
        clients.push(ClientDiff {
            client: ca.id,
            corrections_a: ca.corrections,
            corrections_b: cb.map_or(0, |c| c.corrections),
            replay_depth_mean_a: ca.mean_replay_depth,
            replay_depth_mean_b: cb.and_then(|c| c.mean_replay_depth),
            replay_depth_max_a: u64::from(ca.max_replay_depth),
            replay_depth_max_b: cb.map_or(0, |c| u64::from(c.max_replay_depth)),
        });
    }
    Ok(WhatIf {
        comparison: Comparison {
            changes: changes.to_vec(),
            a_is,
            records_a: records_a.len(),
            records_b: records_b.len(),
            clients,
            first_divergence,
            first_diverging_move: first_diverging_move(&records_a, &records_b),
        },
        summary_a,
        summary_b,
        records_a,
        records_b,
        preset_b,
    })
}

impl Comparison {
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "A: {} ({} records). B: the same session with {} ({} records).\n",
            self.a_is,
            self.records_a,
            if self.changes.is_empty() {
                "no change".to_string()
            } else {
                self.changes.join(", ")
            },
            self.records_b
        );
        s += &format!(
            "{:>6} {:>14} {:>14} {:>18} {:>18}\n",
            "client", "corrections A", "corrections B", "replay mean/max A", "replay mean/max B"
        );
        let f =
            |m: Option<f64>, x: u64| format!("{}/{x}", m.map_or("-".into(), |v| format!("{v:.1}")));
        for c in &self.clients {
            s += &format!(
                "{:>6} {:>14} {:>14} {:>18} {:>18}\n",
                c.client,
                c.corrections_a,
                c.corrections_b,
                f(c.replay_depth_mean_a, c.replay_depth_max_a),
                f(c.replay_depth_mean_b, c.replay_depth_max_b)
            );
        }
        match &self.first_diverging_move {
            None => s += "Both runs corrected the same moves the same way.\n",
            Some(m) => s += &format!("{}\n", m.describe()),
        }
        match &self.first_divergence {
            None => s += "The two runs are identical, record for record.\n",
            Some(d) => {
                s += &format!(
                    "First difference at record {} ({:.3} s, {}):\n  A: {}\n  B: {}\n",
                    d.record, d.t, d.machine, d.a, d.b
                );
            }
        }
        s
    }
}
