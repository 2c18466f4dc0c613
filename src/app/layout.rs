//! The window's panes (egui_tiles: resizable, rearrangeable by dragging their tabs) and what
//! the app remembers between runs: the layout, the theme, the plots shown, the seconds shown
//! and the last preset file.
//!
//! The state lives in `$MOVESCOPE_STATE` if set, else `$XDG_CONFIG_HOME/movescope/ui.ron`,
//! else `~/.config/movescope/ui.ron`. A file that cannot be read is reported and ignored.

use std::path::PathBuf;

use eframe::egui;
use egui_tiles::{Container, SimplificationOptions, Tile, TileId, Tiles, Tree, UiResponse};
use serde::{Deserialize, Serialize};

use super::action::{Action, SessionView};
use super::controls::ControlsPane;
use super::event_log::EventLog;
use super::plots::{PlotsPanel, View};
use super::world_view::WorldView;
use crate::session::store::Store;
use crate::session::timeline::TimeCommand;

/// A pane of the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pane {
    Controls,
    Plots,
    World,
    Log,
}

impl Pane {
    pub fn title(self) -> &'static str {
        match self {
            Pane::Controls => "Controls",
            Pane::Plots => "Plots",
            Pane::World => "World view",
            Pane::Log => "Event log",
        }
    }
}

const LAYOUT_ID: &str = "movescope layout";

/// The default arrangement's version: a remembered layout of another version is replaced by
/// the default (2: the world view and the log share the right column).
pub const LAYOUT_VERSION: u32 = 2;

/// Controls | plots | (world view over the event log), sized for 1280×800: the plots get the
/// window's full height, the world view a square, the log a dozen rows.
pub fn default_layout() -> Tree<Pane> {
    let mut tiles = Tiles::default();
    let controls = tiles.insert_pane(Pane::Controls);
    let plots = tiles.insert_pane(Pane::Plots);
    let log = tiles.insert_pane(Pane::Log);
    let world = tiles.insert_pane(Pane::World);
    let right = tiles.insert_vertical_tile(vec![world, log]);
    set_shares(&mut tiles, right, &[(world, 1.2), (log, 1.0)]);
    let root = tiles.insert_horizontal_tile(vec![controls, plots, right]);
    set_shares(
        &mut tiles,
        root,
        &[(controls, 1.0), (plots, 2.55), (right, 1.7)],
    );
    Tree::new(egui::Id::unique(LAYOUT_ID), root, tiles)
}

/// Presenter mode, for a projector: plots | (a large world view over the event log); the
/// Controls pane is left out (the lesson panel is at the right).
pub fn presenter_layout() -> Tree<Pane> {
    let mut tiles = Tiles::default();
    let plots = tiles.insert_pane(Pane::Plots);
    let log = tiles.insert_pane(Pane::Log);
    let world = tiles.insert_pane(Pane::World);
    let right = tiles.insert_vertical_tile(vec![world, log]);
    set_shares(&mut tiles, right, &[(world, 2.2), (log, 1.0)]);
    let root = tiles.insert_horizontal_tile(vec![plots, right]);
    set_shares(&mut tiles, root, &[(plots, 1.0), (right, 1.0)]);
    Tree::new(egui::Id::unique("movescope presenter layout"), root, tiles)
}

fn set_shares(tiles: &mut Tiles<Pane>, container: TileId, shares: &[(TileId, f32)]) {
    if let Some(Tile::Container(Container::Linear(lin))) = tiles.get_mut(container) {
        for (id, share) in shares {
            lin.shares.set_share(*id, *share);
        }
    }
}

/// Whether every pane appears exactly once (a remembered layout from another version may not).
pub fn is_complete(tree: &Tree<Pane>) -> bool {
    let mut seen: Vec<Pane> = tree
        .tiles
        .iter()
        .filter_map(|(_, t)| match t {
            Tile::Pane(p) => Some(*p),
            Tile::Container(_) => None,
        })
        .collect();
    seen.sort_by_key(|p| *p as u8);
    seen == [Pane::Controls, Pane::Plots, Pane::World, Pane::Log]
}

/// What the panes need for one frame: each pane's own state, and read-only views of the
/// session and the store. Panes return actions; nothing else is changed through here.
pub(super) struct PaneBehavior<'a> {
    /// What a lesson step points at: a plot's title, "world view" or "event log".
    pub focus: Option<String>,
    pub controls: &'a mut ControlsPane,
    pub plots: &'a mut PlotsPanel,
    pub world: &'a mut WorldView,
    pub log: &'a mut EventLog,
    pub view: SessionView<'a>,
    pub plot_view: View,
    pub store: &'a Store,
    pub cursor: f64,
    pub actions: &'a mut Vec<Action>,
}

impl egui_tiles::Behavior<Pane> for PaneBehavior<'_> {
    fn pane_ui(&mut self, ui: &mut egui::Ui, _tile_id: TileId, pane: &mut Pane) -> UiResponse {
        let fill = ui.visuals().panel_fill;
        egui::Frame::new()
            .fill(fill)
            .inner_margin(egui::Margin::same(6))
            .show(ui, |ui| {
                // The pane's fill covers all of it, not only its content.
                ui.set_min_size(ui.available_size());
                // A lesson pointing at this pane: outlined, and said at its top.
                if self
                    .focus
                    .as_deref()
                    .is_some_and(|f| f.eq_ignore_ascii_case(pane.title()))
                {
                    let look = super::palette_look(ui.visuals().dark_mode);
                    ui.painter().rect_stroke(
                        ui.max_rect().expand(3.0),
                        4.0,
                        egui::Stroke::new(3.0, look),
                        egui::StrokeKind::Inside,
                    );
                    ui.label(
                        egui::RichText::new("<- look here (the lesson's step)")
                            .strong()
                            .color(look),
                    );
                }
                let actions = match pane {
                    Pane::Controls => self.controls.ui(ui, &self.view),
                    Pane::Plots => match self.plots.show(ui, self.store, &self.plot_view) {
                        Some(click) => {
                            let mut a = vec![Action::Time(TimeCommand::Seek(click.t))];
                            if let Some(client) = click.journey {
                                a.push(Action::Journey {
                                    client,
                                    move_id: click.move_id,
                                    t: click.t,
                                    on_server: click.on_server,
                                });
                            }
                            a
                        }
                        None => Vec::new(),
                    },
                    Pane::World => self.world.ui(ui, self.store, self.cursor),
                    Pane::Log => self.log.ui(ui, self.store, self.cursor),
                };
                self.actions.extend(actions);
            });
        UiResponse::None
    }

    fn tab_title_for_pane(&mut self, pane: &Pane) -> egui::WidgetText {
        pane.title().into()
    }

    fn simplification_options(&self) -> SimplificationOptions {
        SimplificationOptions {
            all_panes_must_have_tabs: true,
            ..SimplificationOptions::default()
        }
    }
}

/// What is remembered between runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UiState {
    pub layout: Tree<Pane>,
    pub light: bool,
    pub window_s: f64,
    pub plots_shown: Vec<bool>,
    /// The preset last used (a file or a shipped name; never the default or a lesson's
    /// scenario).
    pub last_preset: Option<String>,
    /// Recordings opened or made, newest first (the Open dialog lists them).
    #[serde(default)]
    pub recent_recordings: Vec<String>,
    /// Which default arrangement `layout` derives from ([`LAYOUT_VERSION`]; 0 before it was
    /// kept).
    #[serde(default)]
    pub layout_version: u32,
    /// The first-run offer of the basics lessons was answered (started or dismissed).
    #[serde(default)]
    pub basics_offered: bool,
}

/// Where the state is kept.
pub fn state_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MOVESCOPE_STATE") {
        return Some(PathBuf::from(p));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("movescope").join("ui.ron"))
}

/// Why the state cannot be kept at `path`, said in the window's status line (not only on
/// stderr): a folder where the file should be.
pub fn state_problem_at(path: &std::path::Path) -> Option<String> {
    path.is_dir().then(|| {
        format!(
            "warning: {} is a folder, so the layout, the theme and the recent recordings are not saved: point MOVESCOPE_STATE at a file (e.g. {})",
            path.display(),
            path.join("ui.ron").display()
        )
    })
}

impl UiState {
    /// The remembered state, if there is a readable one (problems are printed, not fatal).
    pub fn load() -> Option<UiState> {
        let path = state_path()?;
        let text = std::fs::read_to_string(&path).ok()?;
        match ron::from_str::<UiState>(&text) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!(
                    "movescope: ignoring {}:{}:{}: {} (the layout starts fresh)",
                    path.display(),
                    e.span.start.line,
                    e.span.start.col,
                    e.code
                );
                None
            }
        }
    }

    pub fn save(&self) -> Result<PathBuf, String> {
        let path = state_path().ok_or("no HOME or XDG_CONFIG_HOME to keep the layout in")?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let text = ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::new())
            .map_err(|e| e.to_string())?;
        crate::support::output::write_file(&path, text.as_bytes())?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_given_as_the_state_file_is_said_in_the_status_line() {
        let dir = std::env::temp_dir().join(format!("movescope-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let said = state_problem_at(&dir).expect("a folder is a problem");
        assert!(
            said.starts_with("warning: ") && said.contains("is a folder"),
            "{said}"
        );
        assert!(state_problem_at(&dir.join("ui.ron")).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_default_layout_has_every_pane_and_round_trips() {
        let t = default_layout();
        assert!(is_complete(&t));
        let state = UiState {
            layout: t,
            light: true,
            window_s: 30.0,
            plots_shown: vec![true, false],
            last_preset: Some("presets/net-01-high-latency.ron".into()),
            recent_recordings: vec!["recordings/a.msrec".into()],
            basics_offered: true,
            layout_version: LAYOUT_VERSION,
        };
        let text = ron::ser::to_string_pretty(&state, ron::ser::PrettyConfig::new()).unwrap();
        let back: UiState = ron::from_str(&text).unwrap();
        assert!(is_complete(&back.layout));
        assert_eq!(back.layout, state.layout);
        assert_eq!(back.last_preset, state.last_preset);
        assert!(back.light);
    }
}
