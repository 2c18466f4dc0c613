//! The Open dialog: a path field, the recordings opened or made recently, the shipped
//! examples (built in), and the `recordings/` folder of the working directory (it says which
//! folder; listed by a job).

use std::path::PathBuf;

use eframe::egui;
use egui::RichText;

use super::RECORDINGS_DIR;
use super::action::Action;
use super::jobs::{Job, Poll};

pub struct OpenDialog {
    path: String,
    list: Option<Vec<PathBuf>>,
    job: Option<Job<Vec<PathBuf>>>,
    /// An example that could not be written out.
    error: Option<String>,
}

impl OpenDialog {
    /// The dialog, listing the recordings folder on a job.
    pub fn new() -> OpenDialog {
        OpenDialog {
            path: format!("{RECORDINGS_DIR}/"),
            list: None,
            job: Job::spawn("listing recordings", |_| list_recordings()).ok(),
            error: None,
        }
    }

    /// Shows the dialog; returns whether it stays open, and what was chosen.
    pub fn ui(&mut self, ctx: &egui::Context, recent: &[String]) -> (bool, Vec<Action>) {
        let mut keep = true;
        let mut chosen: Option<PathBuf> = None;
        let mut several: Option<Vec<PathBuf>> = None;
        if let Some(job) = self.job.as_mut() {
            match job.poll() {
                Poll::Ready(list) => {
                    self.list = Some(list);
                    self.job = None;
                }
                Poll::Lost => {
                    self.list = Some(Vec::new());
                    self.job = None;
                }
                Poll::Pending => ctx.request_repaint(),
            }
        }
        super::window(ctx, "Open a recording or game logs").show(ctx, |ui| {
            ui.horizontal(|ui| {
                let label = ui.label("file");
                let field = ui.text_edit_singleline(&mut self.path).labelled_by(label.id);
                // Enter in the field opens it, as the button does.
                let entered = field.lost_focus()
                    && ui.input(|i| i.key_pressed(egui::Key::Enter))
                    && !self.path.trim().is_empty();
                if ui.button("Open").clicked() || entered {
                    let paths: Vec<PathBuf> = self
                        .path
                        .split(';')
                        .map(str::trim)
                        .filter(|p| !p.is_empty())
                        .map(PathBuf::from)
                        .collect();
                    if crate::gmclog::record::opens_as_logs(&paths) {
                        several = Some(paths);
                    } else {
                        chosen = paths.into_iter().next();
                    }
                }
                if ui.button("Cancel").clicked() {
                    keep = false;
                }
            });
            ui.weak("A recording (.msrec), or a game's Unreal logs: a server's log and its clients' separated by ; or the folder that holds them (imported together).");
            if !recent.is_empty() {
                ui.label(RichText::new("Recent").strong());
                for f in recent {
                    if ui.selectable_label(false, f).clicked() {
                        chosen = Some(PathBuf::from(f));
                    }
                }
            }
            // The shipped examples, from any folder.
            ui.label(RichText::new("Examples (built in)").strong());
            ui.horizontal_wrapped(|ui| {
                for (name, _) in crate::support::shipped::RECORDINGS {
                    if ui
                        .selectable_label(false, *name)
                        .on_hover_text("A recording shipped with movescope (docs/recordings.md).")
                        .clicked()
                    {
                        match crate::support::shipped::example_recording(name) {
                            Ok(p) => chosen = Some(p),
                            Err(e) => self.error = Some(format!("{name}: {e}")),
                        }
                    }
                }
            });
            if let Some(e) = &self.error {
                ui.colored_label(egui::Color32::from_rgb(220, 70, 70), e);
            }
            let folder = std::env::current_dir()
                .map(|d| d.join(RECORDINGS_DIR))
                .unwrap_or_else(|_| PathBuf::from(RECORDINGS_DIR));
            ui.label(RichText::new(format!("In {}:", folder.display())).strong());
            match &self.list {
                None => {
                    ui.spinner();
                }
                Some(files) if files.is_empty() => {
                    ui.weak("No recordings in this folder (Record in the top bar saves them here; or type a path above, or drop a .msrec file on the window).");
                }
                Some(files) => {
                    egui::ScrollArea::vertical()
                        .max_height(240.0)
                        .show(ui, |ui| {
                            for f in files {
                                if ui
                                    .selectable_label(false, f.display().to_string())
                                    .clicked()
                                {
                                    chosen = Some(f.clone());
                                }
                            }
                        });
                }
            }
        });
        match (chosen, several) {
            (_, Some(paths)) => (false, vec![Action::OpenPaths(paths)]),
            (Some(p), None) => (false, vec![Action::OpenRecording(p)]),
            (None, None) => (keep, Vec::new()),
        }
    }
}

/// The recordings in `recordings/` (run on a job thread).
fn list_recordings() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(RECORDINGS_DIR)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension()
                        .is_some_and(|x| x == crate::session::recording::EXTENSION)
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}
