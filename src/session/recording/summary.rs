//! What a recording tells its user in words: the run summary computed from its records, the
//! notes about its state (unfinished, damaged, header from the backup copy) and a one-line
//! description.

use super::format::{Damage, Footer};
use super::reader::Recording;

impl Recording {
    /// The run summary, computed from the records exactly as `movescope run` computed it
    /// (with the damage, when the file is damaged: the summary then covers what loaded).
    pub fn summarize(&self) -> (crate::session::summary::Summary, Option<Damage>) {
        let mut b = crate::session::summary::SummaryBuilder::for_clients(
            self.header.preset.network_clients(),
        );
        let mut last = self.header.t_start;
        let damage = self
            .for_each(&mut |r| {
                last = last.max(r.t);
                b.record(&r);
            })
            .err();
        let footer = self.footer.clone().unwrap_or(Footer {
            simulated_seconds: last,
            wall_seconds: 0.0,
            dropped_records: 0,
        });
        let mut s = b.finish(
            &self.header.mode,
            &self.header.preset_name,
            self.header.seed,
            footer.simulated_seconds,
            footer.wall_seconds,
        );
        s.note_dropped(footer.dropped_records);
        if self.header.mode == "live" {
            // As the live run judged it: each machine against the preset's frame rates.
            s.judge_pacing(&self.header.preset);
        }
        (s, damage)
    }

    /// What a user must know before trusting what a command reads from this file: it was not
    /// finished (or was cut at a chunk boundary), it is damaged, its header came from the
    /// backup copy. Every command that opens a recording prints these.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some(n) = &self.header_note {
            notes.push(n.clone());
        }
        if let Some(n) = &self.index_note {
            notes.push(n.clone());
        }
        if let Some(n) = &self.copy_note {
            notes.push(n.clone());
        }
        if self.footer.is_none() && self.damage.is_none() {
            notes.push(format!(
                "not finished (no index): it ends at {:.2} s with chunk {} — the recorder was stopped before it finished, or the file was cut at a chunk boundary",
                self.span().1,
                self.chunks.len()
            ));
        }
        if let Some(d) = &self.damage {
            notes.push(format!("damaged: {d}"));
        }
        if let Some(more) = self.more_damage() {
            notes.push(more);
        }
        notes
    }

    /// The damaged places found while opening past the first, when there are any.
    fn more_damage(&self) -> Option<String> {
        let first = self.damage.as_ref()?;
        let rest: Vec<String> = self
            .damaged
            .iter()
            .filter(|d| d.offset != first.offset)
            .map(|d| format!("byte {} (chunk {})", d.offset, d.chunk))
            .collect();
        if rest.is_empty() {
            return None;
        }
        Some(format!(
            "also damaged (each costs its chunk): {}",
            rest.join(", ")
        ))
    }

    /// A one-line description for users.
    pub fn describe(&self) -> String {
        let (a, b) = self.span();
        format!(
            "{}: {} session, preset {}, seed {}, {:.1}–{:.1} s, {} records in {} chunks, {} bytes{}",
            self.path.display(),
            self.header.mode,
            self.header.preset_name,
            self.header.seed,
            a.min(b),
            b,
            self.record_count(),
            self.chunks.len(),
            self.file_len,
            if self.footer.is_none() && self.damage.is_none() {
                " (not finished: read by scanning)"
            } else {
                ""
            }
        )
    }
}
