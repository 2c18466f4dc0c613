//! Pictures of the window: screenshots (`--screenshot` and the button) and bug reports (a
//! trimmed recording, the preset, a summary and a picture), and writing PNGs.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, bounded};
use eframe::egui;

use super::{MovescopeApp, REPORTS_DIR};
use crate::analysis::report::{REPORT_AFTER, REPORT_BEFORE};
use crate::model::telemetry::Record;
use crate::session::recording::{Header, Recording};
use crate::session::timeline::TimeCommand;

/// Writes a bug report's files, given its picture; says what it wrote.
/// (`None`: the window could not be captured in time; the other files are written.)
pub(super) type ReportWork =
    Box<dyn FnOnce(Option<&egui::ColorImage>) -> Result<String, String> + Send>;

/// How long a bug report waits for its picture before it is written without one (a backend
/// that cannot capture the window, a headless harness).
const REPORT_PICTURE_WAIT: Duration = Duration::from_secs(3);

pub(super) enum ShotState {
    Waiting,
    Requested,
    Done,
}

/// Screenshots and bug reports under way.
pub(super) struct Capture {
    /// When the view became worth a screenshot (session started, recording loaded).
    pub(super) ready_since: Option<Instant>,
    pub(super) shot: ShotState,
    pub(super) shot_tx: Sender<Arc<egui::ColorImage>>,
    pub(super) shot_rx: Receiver<Arc<egui::ColorImage>>,
    pub(super) shot_path: Option<PathBuf>,
    /// A bug report waiting for its picture: writes every file once it arrives.
    pub(super) report_pending: Option<(ReportWork, Instant)>,
}

impl Capture {
    pub(super) fn new() -> Self {
        let (shot_tx, shot_rx) = bounded(2);
        Capture {
            ready_since: None,
            shot: ShotState::Waiting,
            shot_tx,
            shot_rx,
            shot_path: None,
            report_pending: None,
        }
    }
}

impl MovescopeApp {
    /// Polls the status jobs and the screenshot channel.
    pub(super) fn screenshots(&mut self, ctx: &egui::Context) {
        for r in self.status_jobs.finished() {
            self.status.set(match r {
                Ok(t) => {
                    if t.starts_with("preset saved") {
                        self.panes.controls.refresh_presets();
                    }
                    t
                }
                Err(e) => format!("error: {e}"),
            });
        }
        if !self.status_jobs.is_empty() {
            ctx.request_repaint_after(Duration::from_millis(50));
        }
        // A bug report whose picture did not come: the other three files, and a warning.
        if self
            .capture
            .report_pending
            .as_ref()
            .is_some_and(|(_, since)| since.elapsed() > REPORT_PICTURE_WAIT)
            && let Some((work, _)) = self.capture.report_pending.take()
        {
            // (A picture that still comes is saved where it was meant to go, view.png.)
            self.status_job("writing the bug report", move |_| work(None));
        }
        if self.capture.report_pending.is_some() {
            ctx.request_repaint_after(Duration::from_millis(100));
        }
        if let Ok(img) = self.capture.shot_rx.try_recv() {
            let path = self
                .capture
                .shot_path
                .take()
                .unwrap_or_else(|| PathBuf::from("movescope.png"));
            if let Some((work, _)) = self.capture.report_pending.take() {
                self.status_job(
                    format!("writing the bug report {}", path.display()),
                    move |_| work(Some(&img)),
                );
                return;
            }
            let exiting = matches!(self.capture.shot, ShotState::Requested)
                && self.options.screenshot.is_some();
            if exiting {
                // `--screenshot`: written here, then the window closes.
                self.capture.shot = ShotState::Done;
                if let Err(e) = save_png(&path, &img) {
                    eprintln!("movescope: screenshot failed: {e}");
                    std::process::exit(1);
                }
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            } else {
                self.status_job(format!("writing {}", path.display()), move |_| {
                    save_png(&path, &img)
                        .map(|()| format!("screenshot saved to {}", path.display()))
                });
            }
        }
        if let (Some(plan), ShotState::Waiting, Some(ready)) = (
            &self.options.screenshot,
            &self.capture.shot,
            self.capture.ready_since,
        ) && ready.elapsed().as_secs_f64() >= plan.after
        {
            let path = plan.path.clone();
            self.capture.shot = ShotState::Requested;
            self.request_screenshot(ctx, path);
        }
    }

    pub(super) fn request_screenshot(&mut self, ctx: &egui::Context, path: PathBuf) {
        self.capture.shot_path = Some(path);
        let tx = self.capture.shot_tx.clone();
        let repaint = ctx.clone();
        ctx.request_screenshot(move |img| {
            let _ = tx.try_send(img);
            repaint.request_repaint();
        });
    }

    /// One action: a trimmed recording around the cursor, the preset, a Markdown summary and
    /// a picture of the window, in a new folder under `reports/`. The picture is taken now;
    /// reading the recording and writing the files run on a job thread.
    pub fn bug_report(&mut self, ctx: &egui::Context) {
        let cursor = self.view.time.cursor();
        let (t0, t1) = (cursor - REPORT_BEFORE, cursor + REPORT_AFTER);
        // Named by what and when: the preset, the cursor's moment, the time of day (UTC).
        let preset: String = self
            .options
            .preset_name
            .rsplit('/')
            .next()
            .unwrap_or("session")
            .trim_end_matches(".ron")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let name = format!(
            "report-{preset}-at-{cursor:.1}s-{}",
            crate::support::stamp::now_utc()
        );
        let dir = std::path::absolute(PathBuf::from(REPORTS_DIR).join(&name))
            .unwrap_or_else(|_| PathBuf::from(REPORTS_DIR).join(name));
        enum Source {
            File(Arc<Recording>),
            Live(Box<Header>, Vec<Record>),
        }
        let source = if let Some(o) = &self.shown.opened {
            Source::File(o.recording.clone())
        } else {
            match Header::new(self.shown_preset(), &self.options.preset_name, "live") {
                Ok(h) => Source::Live(
                    Box::new(h),
                    self.shown
                        .recent
                        .iter()
                        .filter(|r| r.t >= t0 && r.t <= t1)
                        .cloned()
                        .collect(),
                ),
                Err(e) => {
                    self.status.set(format!("error: bug report failed: {e}"));
                    return;
                }
            }
        };
        // The picture is taken first; once it arrives, one job writes all four files, so the
        // status line names them together (or says what failed).
        let out = dir.clone();
        let work: ReportWork = Box::new(move |img: Option<&egui::ColorImage>| {
            let (header, window) = match source {
                Source::File(rec) => (
                    rec.header.clone(),
                    crate::analysis::report::records_between(&rec, t0, t1)
                        .map_err(|e| format!("bug report failed: {e}"))?,
                ),
                Source::Live(h, w) => (*h, w),
            };
            let files = crate::analysis::report::write_report(&out, &header, &window, cursor)
                .map_err(|e| format!("bug report failed: {e}"))?;
            match img {
                Some(img) => {
                    save_png(&files.picture, img).map_err(|e| {
                        format!("bug report failed: {}: {e}", files.picture.display())
                    })?;
                    Ok(format!(
                        "bug report written to {}: session.msrec, preset.ron, summary.md, view.png",
                        out.display()
                    ))
                }
                None => Ok(format!(
                    "warning: bug report written to {} without its picture (the window could not be captured): session.msrec, preset.ron, summary.md",
                    out.display()
                )),
            }
        });
        // The picture shows the report's moment: following live, the view would have moved
        // on by the time the window is captured (End follows live again).
        if self.view.time.is_following() {
            self.view
                .time
                .apply(TimeCommand::Seek(cursor), &self.shown.store);
        }
        self.capture.report_pending = Some((work, Instant::now()));
        self.request_screenshot(ctx, dir.join("view.png"));
    }
}

/// Writes an RGBA PNG; refuses an image with a single colour (a blank window).
pub fn save_png(path: &std::path::Path, img: &egui::ColorImage) -> Result<(), String> {
    let [w, h] = img.size;
    if w == 0 || h == 0 {
        return Err("the screenshot is empty".into());
    }
    let first = img.pixels[0];
    if img.pixels.iter().all(|p| *p == first) {
        return Err("the screenshot is blank (one colour)".into());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let bytes: Vec<u8> = img.pixels.iter().flat_map(|p| p.to_array()).collect();
    crate::support::output::write_atomic(path, |out| {
        let mut enc = png::Encoder::new(out, w as u32, h as u32);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(std::io::Error::other)?;
        writer
            .write_image_data(&bytes)
            .map_err(std::io::Error::other)?;
        writer.finish().map_err(std::io::Error::other)
    })
    .map_err(String::from)
}
