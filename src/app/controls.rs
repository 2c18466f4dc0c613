//! The Controls pane: the session's settings (restart-only ones staged and visibly pending),
//! presets (shipped ones built in, local `presets/` files added), pitfall switches, the
//! network editor, smoothing, traces and driving a pawn. Every control shows the session's
//! effective value; an edit is an [`Action`].

use std::path::PathBuf;

use eframe::egui;
use egui::{Color32, RichText};

use super::action::{Action, SessionView, Toggle};
use super::jobs::{Job, Poll};
use super::network::NetworkPanel;
use crate::model::settings::{Faults, NetMode, SmoothingMode};
use crate::net::live::{Command, restart_keys};
use crate::session::preset::Preset;
use crate::support::ranges;

pub const ORIGIN: &str = "controls";
/// Width a slider's value box and its longest name ("server fps") take beside it.
const SLIDER_ROOM: f32 = 140.0;
pub const SESSION_ORIGIN: &str = "session";

/// A preset the Presets list offers.
#[derive(Clone, Debug)]
pub struct PresetEntry {
    /// A shipped name (`net-01-high-latency`) or a local file's path.
    pub name: String,
    pub title: String,
    pub local: bool,
}

/// The presets list: the shipped ones, then the files in `./presets/` that are not shipped
/// (read on a job thread, when the section is first shown and on "Refresh").
pub fn list_presets() -> Vec<PresetEntry> {
    let mut out: Vec<PresetEntry> = crate::support::shipped::PRESETS
        .iter()
        .map(|(name, text)| PresetEntry {
            name: name.to_string(),
            title: Preset::from_ron(text, name)
                .map(|p| p.title)
                .unwrap_or_default(),
            local: false,
        })
        .collect();
    let mut local: Vec<PathBuf> = std::fs::read_dir("presets")
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "ron"))
                .collect()
        })
        .unwrap_or_default();
    local.sort();
    for path in local {
        let stem = path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().to_string());
        let shipped_same = crate::support::shipped::preset_text(&stem)
            .is_some_and(|(_, text)| std::fs::read_to_string(&path).is_ok_and(|t| t == text));
        if shipped_same {
            continue;
        }
        let title =
            Preset::load(&path).map_or_else(|e| format!("(does not load: {e})"), |p| p.title);
        out.push(PresetEntry {
            name: path.display().to_string(),
            title,
            local: true,
        });
    }
    out
}

/// The restart-only settings as the user staged them.
#[derive(Clone, Debug, PartialEq)]
struct Staged {
    net_mode: NetMode,
    clients: u16,
    ai_pawns: u16,
    server_fps: f64,
    seed: u64,
}

impl Staged {
    fn of(p: &Preset) -> Staged {
        Staged {
            net_mode: p.net_mode,
            clients: p.clients,
            ai_pawns: p.ai_pawns,
            server_fps: p.server_fps,
            seed: p.seed,
        }
    }

    fn onto(&self, p: &Preset) -> Preset {
        let mut p = p.clone();
        p.net_mode = self.net_mode;
        p.clients = self.clients;
        p.ai_pawns = self.ai_pawns;
        p.server_fps = self.server_fps;
        p.seed = self.seed;
        p
    }
}

pub struct ControlsPane {
    pub network: NetworkPanel,
    /// Restart-only settings staged until "Restart with these" (`None`: nothing staged).
    staged: Option<Staged>,
    /// The Presets list (loaded by a job), and the job loading it.
    presets: Option<Vec<PresetEntry>>,
    presets_job: Option<Job<Vec<PresetEntry>>>,
    /// The preset file field (open / save).
    pub preset_path: String,
    /// The client the keyboard drives.
    pub drive: Option<u16>,
    /// A lesson's question is open: the pitfall switches (which show the answer) are hidden.
    pub question_open: bool,
}

impl Default for ControlsPane {
    fn default() -> Self {
        ControlsPane {
            network: NetworkPanel::default(),
            staged: None,
            presets: None,
            presets_job: None,
            preset_path: "presets/my-session.ron".into(),
            drive: None,
            question_open: false,
        }
    }
}

impl ControlsPane {
    /// Forgets what was staged for another session.
    pub fn session_changed(&mut self) {
        self.staged = None;
    }

    /// Lists the presets again (after a save).
    pub fn refresh_presets(&mut self) {
        self.presets_job = Job::spawn("listing presets", |_| list_presets()).ok();
    }

    /// Whether a restart-only setting is staged and differs from the session's.
    pub fn has_pending(&self, p: &Preset) -> bool {
        self.staged.as_ref().is_some_and(|s| *s != Staged::of(p))
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, view: &SessionView) -> Vec<Action> {
        let mut actions = Vec::new();
        if let Some(job) = self.presets_job.as_mut() {
            match job.poll() {
                Poll::Ready(list) => {
                    self.presets = Some(list);
                    self.presets_job = None;
                }
                Poll::Lost => self.presets_job = None,
                Poll::Pending => ui.ctx().request_repaint(),
            }
        }
        egui::ScrollArea::vertical().show(ui, |ui| {
            if view.imported {
                ui.label(
                    "Viewing a game's log: a log records no settings, so these are movescope's \
                     defaults, not what the game ran with (docs/gmc-logs.md).",
                );
            } else if !view.live {
                ui.label(
                    "Viewing a recording: these are the settings it was recorded with. Start it \
                     live (top bar) to change them.",
                );
            }
            ui.horizontal_wrapped(|ui| {
                if ui
                    .button("Bindings table")
                    .on_hover_text("Every bound value with its type and modes, editable live.")
                    .clicked()
                {
                    actions.push(Action::Toggle(Toggle::Bindings));
                }
                if ui
                    .button("GMC settings")
                    .on_hover_text("GMC's component settings and the smoothing parameters, live.")
                    .clicked()
                {
                    actions.push(Action::Toggle(Toggle::Gmc));
                }
            });
            ui.add_enabled_ui(view.live, |ui| {
                actions.extend(self.session_section(ui, view));
            });
            actions.extend(self.presets_section(ui, view));
            ui.add_enabled_ui(view.live, |ui| {
                ui.separator();
                if self.question_open {
                    ui.heading("Pitfall switches");
                    ui.weak("Hidden while the lesson's question is open: they would give the answer away. Answer it in the lessons panel.");
                } else {
                    actions.extend(pitfall_switches(ui, view));
                }
                view.feedback.show(ui, ORIGIN);
                ui.separator();
                actions.extend(self.network.ui(ui, view));
                ui.separator();
                actions.extend(smoothing(ui, view));
                ui.separator();
                actions.extend(self.drive_section(ui, view));
            });
        });
        if !view.live {
            actions.retain(|a| matches!(a, Action::StartNamed(_) | Action::Toggle(_)));
        }
        actions
    }

    /// Net mode, clients, AI pawns, frame rates and seed: staged, then applied by restarting
    /// the session; the traces switch live.
    fn session_section(&mut self, ui: &mut egui::Ui, view: &SessionView) -> Vec<Action> {
        let mut actions = Vec::new();
        let p = view.preset;
        // Pending settings stay visible with the section closed.
        let title = if self.has_pending(p) {
            RichText::new("Session (restart pending)").color(Color32::from_rgb(230, 160, 60))
        } else {
            RichText::new("Session")
        };
        egui::CollapsingHeader::new(title)
            .id_salt("session section")
            .default_open(false)
            .show(ui, |ui| {
                let mut s = self.staged.clone().unwrap_or_else(|| Staged::of(p));
                let before = s.clone();
                // Slider, value and name fit the pane's width: a wider row would widen the
                // pane's content, and cut every label in it at the pane's edge.
                ui.spacing_mut().slider_width =
                    (ui.available_width() - SLIDER_ROOM).clamp(30.0, 220.0);
                egui::ComboBox::from_label("net mode")
                    .selected_text(format!("{:?}", s.net_mode))
                    .show_ui(ui, |ui| {
                        for (m, help) in [
                            (NetMode::Dedicated, "A server with no player; every client predicts."),
                            (NetMode::Listen, "Client 0 plays on the server: its pawn is authoritative, remote pawns are smoothed for display on the host."),
                            (NetMode::Standalone, "Client 0 alone: no prediction, replay, combining or smoothing."),
                        ] {
                            ui.selectable_value(&mut s.net_mode, m, format!("{m:?}")).on_hover_text(help);
                        }
                    });
                let r = ranges::of("clients");
                ui.add(
                    egui::Slider::new(&mut s.clients, r.min as u16..=r.max as u16)
                        .clamping(egui::SliderClamping::Edits)
                        .text("clients"),
                );
                let r = ranges::of("ai_pawns");
                ui.add(
                    egui::Slider::new(&mut s.ai_pawns, r.min as u16..=r.max as u16)
                        .clamping(egui::SliderClamping::Edits)
                        .text("AI pawns"),
                );
                // The clients' frame rate changes live (the plots keep what came before).
                let mut fps = p.client_fps;
                if ui
                    .add(
                        egui::Slider::new(&mut fps, ranges::of("client_fps").inclusive())
                            .logarithmic(true)
                            .clamping(egui::SliderClamping::Edits)
                            .text("client fps"),
                    )
                    .on_hover_text("Frame rate of every client, changed live (combining: ~4 frames per move at 120 fps, 1 at 30). A client with its own rate in the preset keeps it.")
                    .changed()
                    && fps != p.client_fps
                {
                    actions.push(Action::Session {
                        origin: SESSION_ORIGIN,
                        command: Command::SetClientFrameRate {
                            fps,
                            jitter: p.client_fps_jitter,
                        },
                    });
                }
                ui.add(
                    egui::Slider::new(&mut s.server_fps, ranges::of("server_fps").inclusive())
                        .logarithmic(true)
                        .clamping(egui::SliderClamping::Edits)
                        .text("server fps"),
                );
                ui.add(egui::DragValue::new(&mut s.seed).prefix("seed "))
                    .accessible_name("seed")
                    .on_hover_text("Seeds the input scripts and the links: the same seed replays the same virtual-time session.");
                if s != before {
                    self.staged = Some(s.clone());
                }
                // Only a staged edit is compared (serializing two presets is not for every
                // frame of an untouched section).
                let target = s.onto(p);
                let pending = if s != Staged::of(p) {
                    restart_keys(p, &target)
                } else {
                    Vec::new()
                };
                if !pending.is_empty() {
                    let what: Vec<String> = pending
                        .iter()
                        .map(|k| {
                            let get = |p: &Preset| {
                                serde_json::to_value(p)
                                    .ok()
                                    .and_then(|v| v.get(k.as_str()).cloned())
                                    .map_or_else(String::new, |v| v.to_string())
                            };
                            format!("{k} {} -> {}", get(p), get(&target))
                        })
                        .collect();
                    ui.colored_label(
                        Color32::from_rgb(230, 160, 60),
                        format!("Pending until restart: {}", what.join(", ")),
                    );
                    ui.horizontal(|ui| {
                        if ui
                            .button("Restart with these")
                            .on_hover_text("Stops the session and starts a new one with these settings (and the session's current pitfalls, network, bindings and GMC settings).")
                            .clicked()
                        {
                            // As any change that needs a restart: the session before it
                            // stays on the plots.
                            actions.push(Action::ChangeTo {
                                origin: SESSION_ORIGIN,
                                preset: Box::new(target.clone()),
                            });
                        }
                        if ui.button("Discard").clicked() {
                            self.staged = None;
                        }
                    });
                }
                ui.separator();
                ui.label(RichText::new("Traces (live, verbose)").strong());
                let mut hooks = p.hook_trace;
                let mut values = p.value_trace;
                if ui
                    .checkbox(&mut hooks, "hook trace")
                    .on_hover_text(
                        "An event for every hook invocation (BindReplicationData, GenPredictionTick, \
                         OnSyncDataApplied with its context, WorldTickEnd...): the move journey lists \
                         the hooks of each execution; recordings keep them (`movescope inspect FILE \
                         --events --kind Hook` prints them).",
                    )
                    .changed()
                {
                    actions.push(Action::Session {
                        origin: SESSION_ORIGIN,
                        command: Command::HookTrace(hooks),
                    });
                }
                if ui
                    .checkbox(&mut values, "value trace")
                    .on_hover_text(
                        "The owning pawn's values before a move, after each sub-step and at the end, \
                         on its client (live, combined, replay) and on the server (remote): the move \
                         journey shows them, and the desync doctor names the sub-step where a \
                         corrected value first diverged. Recordings made with it keep them.",
                    )
                    .changed()
                {
                    actions.push(Action::Session {
                        origin: SESSION_ORIGIN,
                        command: Command::ValueTrace(values),
                    });
                }
                // Below the controls, so a new line moves nothing the user aims at.
                view.feedback.show(ui, SESSION_ORIGIN);
            });
        actions
    }

    /// The shipped presets and local preset files; open a preset file, save the session's.
    fn presets_section(&mut self, ui: &mut egui::Ui, view: &SessionView) -> Vec<Action> {
        let mut actions = Vec::new();
        let resp = egui::CollapsingHeader::new("Presets")
            .default_open(false)
            .show(ui, |ui| {
                if self.presets.is_none() && self.presets_job.is_none() {
                    self.refresh_presets();
                }
                match &self.presets {
                    None => {
                        ui.horizontal(|ui| {
                            ui.spinner();
                            ui.weak("listing presets…");
                        });
                    }
                    Some(list) => {
                        ui.weak("Built in (work from any folder); local files from ./presets/ below them.");
                        egui::ScrollArea::vertical()
                            .id_salt("presets list")
                            .max_height(220.0)
                            .show(ui, |ui| {
                                for e in list {
                                    let label = if e.local {
                                        format!("{} (local)", e.name)
                                    } else {
                                        e.name.clone()
                                    };
                                    if ui
                                        .selectable_label(false, label)
                                        .on_hover_text(format!("{}\nStart it live.", e.title))
                                        .clicked()
                                    {
                                        actions.push(Action::StartNamed(e.name.clone()));
                                    }
                                }
                            });
                    }
                }
                ui.add(
                    egui::TextEdit::singleline(&mut self.preset_path)
                        .desired_width(f32::INFINITY),
                )
                .accessible_name("preset file");
                ui.horizontal_wrapped(|ui| {
                    if ui
                        .button("Open")
                        .on_hover_text("Load this preset file (or a shipped preset by name) and start it live.")
                        .clicked()
                    {
                        actions.push(Action::StartNamed(self.preset_path.trim().to_string()));
                    }
                    if ui
                        .add_enabled(view.live, egui::Button::new("Save"))
                        .on_hover_text("Save the session's preset (with every live change) as RON to this file.")
                        .clicked()
                    {
                        actions.push(Action::SavePreset(PathBuf::from(self.preset_path.trim())));
                    }
                    if ui.button("Refresh").on_hover_text("List ./presets/ again.").clicked() {
                        self.refresh_presets();
                    }
                });
            });
        let _ = resp;
        actions
    }

    /// WASD + Space drive one client's pawn instead of its input script.
    fn drive_section(&mut self, ui: &mut egui::Ui, view: &SessionView) -> Vec<Action> {
        let mut actions = Vec::new();
        ui.heading("Drive a pawn").on_hover_text(
            "Take over one client's pawn with the keyboard (W A S D to move, Space to dash) instead of its input script. Click the world view first so the keys reach the app.",
        );
        let before = self.drive;
        egui::ComboBox::from_label("drive")
            .selected_text(match self.drive {
                None => "nobody (scripts)".to_string(),
                Some(c) => format!("client {c}"),
            })
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut self.drive, None, "nobody (scripts)");
                for id in &view.client_ids {
                    ui.selectable_value(&mut self.drive, Some(*id), format!("client {id}"));
                }
            });
        if before != self.drive
            && let Some(c) = before
        {
            actions.push(Action::Session {
                origin: "drive",
                command: Command::Drive {
                    client: c,
                    input: None,
                },
            });
        }
        if self.drive.is_some() {
            ui.label("W A S D: move, Space: dash (Space no longer pauses).");
        }
        view.feedback.show(ui, "drive");
        actions
    }
}

/// The pitfall switches, as the session has them.
fn pitfall_switches(ui: &mut egui::Ui, view: &SessionView) -> Vec<Action> {
    ui.heading("Pitfall switches");
    let mut f: Faults = view.preset.faults.clone();
    let mut changed = false;
    {
        let fields: [(&mut bool, &str); 13] = [
            (&mut f.unbound_member, Faults::EXPLAINED[0].1),
            (&mut f.wall_clock_in_tick, Faults::EXPLAINED[1].1),
            (&mut f.no_seal_after_one_shot, Faults::EXPLAINED[2].1),
            (&mut f.dash_always_combine, Faults::EXPLAINED[3].1),
            (&mut f.unguarded_side_effects, Faults::EXPLAINED[4].1),
            (&mut f.proxy_value_not_simulated, Faults::EXPLAINED[5].1),
            (&mut f.spawn_data_only_bound, Faults::EXPLAINED[6].1),
            (&mut f.transition_in_sync_applied, Faults::EXPLAINED[7].1),
            (&mut f.binding_mismatch, Faults::EXPLAINED[8].1),
            (&mut f.tick_reads_proxy_transform, Faults::EXPLAINED[9].1),
            (&mut f.frame_delta_in_tick, Faults::EXPLAINED[10].1),
            (&mut f.unseeded_random_in_tick, Faults::EXPLAINED[11].1),
            (&mut f.derived_value_bound_as_input, Faults::EXPLAINED[12].1),
        ];
        // Plain words; the preset key (GMC-side name) and what it does on hover.
        for (i, (flag, explain)) in fields.into_iter().enumerate() {
            changed |= ui
                .checkbox(flag, Faults::TITLES[i])
                .on_hover_text(format!("{}\n\n`{}`", explain, Faults::EXPLAINED[i].0))
                .changed();
        }
    }
    if changed {
        vec![Action::Session {
            origin: ORIGIN,
            command: Command::SetFaults(f),
        }]
    } else {
        Vec::new()
    }
}

/// GMC's identifier as a radio button's label: whole where it fits beside the button, else
/// split into its words ("Adaptive Buffered Interpolation") so a narrow pane wraps it between
/// words, never inside one.
fn fitted_identifier(ui: &egui::Ui, name: &str) -> String {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let wide = ui
        .painter()
        .layout_no_wrap(name.to_string(), font, egui::Color32::WHITE)
        .size()
        .x;
    let room = ui.available_width() - ui.spacing().icon_width - ui.spacing().icon_spacing;
    if wide <= room {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.char_indices() {
        if i > 0 && c.is_uppercase() {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// The smoothing mode, as the session has it.
fn smoothing(ui: &mut egui::Ui, view: &SessionView) -> Vec<Action> {
    ui.heading("Smoothing");
    let mut sm = view.preset.smoothing;
    let mut changed = false;
    for (m, explain) in [
        (
            SmoothingMode::AdaptiveBufferedInterpolation,
            "GMC's default: show states latency + an adaptive buffer in the past.",
        ),
        (
            SmoothingMode::FixedDelayInterpolation,
            "A fixed total delay (0.15 s): runs dry, and extrapolates, when latency is higher.",
        ),
        (
            SmoothingMode::MatchLatest,
            "Show the newest state as it arrives: jerky.",
        ),
        (
            SmoothingMode::ForwardSimulation,
            "Run the prediction tick (simulated executions) from the newest state to now, every frame.",
        ),
        (
            SmoothingMode::LocalSimulation,
            "Run the prediction tick (simulated executions) on a local copy, one frame at a time; each arriving state restarts it.",
        ),
    ] {
        let name = format!("{m:?}");
        changed |= ui
            .radio_value(&mut sm.mode, m, fitted_identifier(ui, &name))
            .on_hover_text(format!("{name}: {explain}"))
            .changed();
    }
    view.feedback.show(ui, "smoothing");
    if changed {
        vec![Action::Session {
            origin: "smoothing",
            command: Command::SetSmoothing(sm),
        }]
    } else {
        Vec::new()
    }
}
