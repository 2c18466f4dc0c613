//! Recording the live session: starting a recording (the recorder never blocks the UI) and
//! finishing it on a job thread.

use std::path::PathBuf;
use std::time::Instant;

use super::MovescopeApp;
use crate::session::recording::{Footer, Header, Recorder};

impl MovescopeApp {
    pub(super) fn start_recording(&mut self, path: PathBuf) {
        let header = match Header::new(self.shown_preset(), &self.options.preset_name, "live") {
            Ok(h) => h,
            Err(e) => {
                self.status.set(format!("error: cannot record: {e}"));
                return;
            }
        };
        let replace = self.options.record_force && self.options.record.as_ref() == Some(&path);
        let created = if replace {
            Recorder::create_replacing(&path, &header)
        } else {
            Recorder::create(&path, &header)
        };
        match created {
            Ok(mut r) => {
                // The UI thread never waits for the writer: when it lags, chunks wait in
                // memory (up to 256 MB) and the top bar says so.
                r.never_block(256 << 20);
                self.status.set(format!("recording to {}", path.display()));
                let shown = path.display().to_string();
                self.view.recent_recordings.retain(|p| *p != shown);
                self.view.recent_recordings.insert(0, shown);
                self.view.recent_recordings.truncate(10);
                self.shown.recorder = Some(r);
                self.shown.record_started = Instant::now();
            }
            Err(e) => self.status.set(format!("error: cannot record: {e}")),
        }
    }

    /// Finishes the recording on a job thread (the last chunk, the index, the trailer).
    pub(super) fn stop_recording(&mut self) {
        if let Some(rec) = self.shown.recorder.take() {
            let footer = Footer {
                simulated_seconds: self.shown.store.latest(),
                wall_seconds: self.shown.record_started.elapsed().as_secs_f64(),
                dropped_records: self
                    .shown
                    .session
                    .as_ref()
                    .map_or(0, |s| s.telemetry_dropped()),
            };
            let what = format!("finishing {}", rec.path().display());
            self.status_job(what, move |_| {
                rec.finish(footer)
                    .map(|stats| {
                        format!(
                            "recorded {} records to {} ({} KB)",
                            stats.records,
                            stats.path.display(),
                            stats.bytes / 1024
                        )
                    })
                    .map_err(|e| format!("recording failed: {e}"))
            });
        }
    }
}
