//! The time-aligned plots: which there are, what each means in GMC terms, and drawing them
//! from the store at the cursor. Series are decimated to about two points per pixel column
//! (min/max, every extreme kept) before egui_plot sees them, which keeps a frame cheap however
//! much history the store holds (`movescope bench --plots` measures it against handing
//! egui_plot every point).

mod axes;
mod draw;
mod hover;
mod series;
mod window;

use eframe::egui;
use egui::Color32;

use self::window::Cached;
use super::color_of;
use crate::model::telemetry::Machine;
use crate::session::store::{Metric, Store};

pub use self::axes::{y_bounds, y_label, y_marks};
pub use self::series::{PLOTS, PlotSpec};
pub use self::window::{View, decimated_range};

/// A click on a plot: the time under the pointer and, for a double-click on a client's
/// series, that client (to show the journey of its move there).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlotClick {
    pub t: f64,
    pub journey: Option<u16>,
    /// On a correction plot, the corrected move under the pointer.
    pub move_id: Option<u32>,
    /// `t` is when the server executed the move (move age), not when the client closed it.
    pub on_server: bool,
}

/// The legend's name for a what-if run drawn over the session.
pub const WHATIF_LABEL: &str = "what-if run";

/// The plots panel: which plots are shown, and reusable buffers.
pub struct PlotsPanel {
    pub shown: Vec<bool>,
    decimated: Vec<[f64; 2]>,
    /// Draw every stored point instead of decimated series (for the benchmark).
    pub naive: bool,
    /// The plot a lesson points at (highlighted).
    pub focus: Option<String>,
    /// Scroll the list so this plot shows (once).
    pub scroll_to: Option<&'static str>,
    /// Presenter mode: only these plots, one column, sharing the height.
    pub only: Option<Vec<&'static str>>,
    /// A run drawn over the session (dashed, "(B)"): a what-if run, or the session before a
    /// change restarted it.
    pub overlay: Option<Store>,
    /// What the overlay is, for the legend.
    pub overlay_label: String,
    /// A participant's window: the server's records stay on the host, so plots only the
    /// server measures stay empty here; they are left out, and a note says where they are.
    pub server_elsewhere: bool,
    /// A recording imported from a game log: a plot the log left empty says what would fill
    /// it instead of drawing empty axes.
    pub from_game_log: bool,
    /// Machines whose series the plots leave out (picked in the legend or under
    /// "Machines…"): a server of 64 clients shows a few at a time.
    pub hidden: std::collections::BTreeSet<Machine>,
    /// The hidden set was chosen by the panel (many machines), not by the user.
    auto_hidden: bool,
    /// The user picked which machines to show (the panel no longer hides any by itself).
    user_chose: bool,
    /// The window a running lesson's figures come from: shaded on every plot, so a quoted
    /// figure can be checked against the points it was measured over.
    pub lesson_window: Option<(f64, f64)>,
    /// Decimated points by (metric, machine, what-if), with what they were made from.
    cache: std::collections::HashMap<(Metric, Machine, bool), Cached>,
    /// Where each plot drawn last frame put its values on screen (by title; for tests and
    /// tools that point at a value).
    transforms: std::collections::HashMap<&'static str, egui_plot::PlotTransform>,
}

impl Default for PlotsPanel {
    fn default() -> Self {
        PlotsPanel {
            shown: PLOTS.iter().map(|p| p.default_on).collect(),
            decimated: Vec::new(),
            naive: false,
            focus: None,
            scroll_to: None,
            only: None,
            overlay: None,
            overlay_label: WHATIF_LABEL.into(),
            server_elsewhere: false,
            from_game_log: false,
            hidden: std::collections::BTreeSet::new(),
            auto_hidden: false,
            user_chose: false,
            lesson_window: None,
            cache: std::collections::HashMap::new(),
            transforms: std::collections::HashMap::new(),
        }
    }
}

impl PlotsPanel {
    /// Where the plot titled `title` drew its values last frame (`None`: not drawn).
    pub fn transform(&self, title: &str) -> Option<egui_plot::PlotTransform> {
        self.transforms.get(title).copied()
    }

    /// More than [`SHOWN_AT_ONCE`] machines (a server of many clients): the plots show the
    /// server and the first clients until the user picks others.
    fn limit_many(&mut self, machines: &std::collections::BTreeSet<Machine>) {
        if self.user_chose {
            return;
        }
        // Machines appear one by one in a live session: the first nine stay the shown ones.
        self.hidden = machines.iter().skip(SHOWN_AT_ONCE).copied().collect();
        self.auto_hidden = !self.hidden.is_empty();
    }

    /// Which machines the user hid (`None`: the panel chooses, as at start).
    pub fn machines_chosen(&self) -> Option<std::collections::BTreeSet<Machine>> {
        self.user_chose.then(|| self.hidden.clone())
    }

    /// Hides the machines of a choice [`Self::machines_chosen`] returned; `None` gives the
    /// choice back to the panel (the server and the first clients shown).
    pub fn choose_machines(&mut self, chosen: Option<std::collections::BTreeSet<Machine>>) {
        self.user_chose = chosen.is_some();
        self.auto_hidden = false;
        self.hidden = chosen.unwrap_or_default();
    }

    /// The user picked machines: the panel's own choice is over.
    fn user_chose(&mut self) {
        self.auto_hidden = false;
        self.user_chose = true;
    }

    /// "Machines…": every machine with a check box, all and none.
    fn machines_menu(
        &mut self,
        ui: &mut egui::Ui,
        store: &Store,
        machines: &std::collections::BTreeSet<Machine>,
    ) {
        if machines.len() < 2 {
            return;
        }
        ui.menu_button("Machines…", |ui| {
            ui.horizontal(|ui| {
                if ui.button("all").clicked() {
                    self.hidden.clear();
                    self.user_chose();
                }
                if ui.button("none").clicked() {
                    self.hidden = machines.clone();
                    self.user_chose();
                }
            });
            egui::ScrollArea::vertical()
                .max_height(360.0)
                .show(ui, |ui| {
                    for m in machines {
                        let mut on = !self.hidden.contains(m);
                        if ui.checkbox(&mut on, store.machine_name(*m)).changed() {
                            self.user_chose();
                            if on {
                                self.hidden.remove(m);
                            } else {
                                self.hidden.insert(*m);
                            }
                        }
                    }
                });
        })
        .response
        .on_hover_text("Choose which machines' series the plots show.");
    }

    /// Forgets cached decimations (the store they came from was replaced).
    pub fn clear_cache(&mut self) {
        self.cache.clear();
        // The panel's own choice of machines was for the store replaced.
        if self.auto_hidden {
            self.hidden.clear();
            self.auto_hidden = false;
        }
    }

    /// Draws the shown plots in two columns under one legend of the machines' colours;
    /// returns what the user clicked.
    pub fn show(&mut self, ui: &mut egui::Ui, store: &Store, view: &View) -> Option<PlotClick> {
        let specs: Vec<&PlotSpec> = match &self.only {
            Some(titles) => titles
                .iter()
                .filter_map(|t| PLOTS.iter().find(|p| p.title == *t))
                .collect(),
            None => PLOTS
                .iter()
                .zip(&self.shown)
                .filter(|(_, on)| **on)
                .map(|(s, _)| s)
                .collect(),
        };
        // A participant: the plots of what the server measures stay on the host.
        let mut on_host: Vec<&str> = Vec::new();
        let specs: Vec<&PlotSpec> = specs
            .into_iter()
            .filter(|s| {
                let keep = !(self.server_elsewhere && s.metric.measured_on_server());
                if !keep {
                    on_host.push(s.title);
                }
                keep
            })
            .collect();
        let columns = if self.only.is_some() { 1 } else { 2 };
        ui.horizontal_wrapped(|ui| {
            ui.menu_button("Plots…", |ui| {
                for (i, spec) in PLOTS.iter().enumerate() {
                    ui.checkbox(&mut self.shown[i], spec.title)
                        .on_hover_text(spec.explain);
                }
            })
            .response
            .on_hover_text("Choose the plots shown.");
            // One legend for every plot, outside the data; a click shows or hides a machine.
            let machines: std::collections::BTreeSet<Machine> = specs
                .iter()
                .flat_map(|s| store.machines_with(s.metric))
                .collect();
            self.limit_many(&machines);
            self.machines_menu(ui, store, &machines);
            let visible: Vec<Machine> = machines
                .iter()
                .filter(|m| !self.hidden.contains(m))
                .copied()
                .collect();
            for m in &visible {
                if legend_entry(ui, color_of(*m), &store.machine_name(*m), false)
                    .on_hover_text("Click to hide this machine's series (Machines… brings it back).")
                    .clicked()
                {
                    self.hidden.insert(*m);
                    self.user_chose();
                }
            }
            let hidden = machines.iter().filter(|m| self.hidden.contains(m)).count();
            if hidden > 0 {
                ui.weak(format!("·  {hidden} hidden (Machines…)"));
            }
            lost_clients(ui, store);
            if self.overlay.is_some() {
                let _ = legend_entry(ui, ui.visuals().text_color(), &format!("{} (B)", self.overlay_label), true);
            }
            if !on_host.is_empty() {
                ui.weak(format!("·  on the trainer's screen only: {}", on_host.join(", ")))
                    .on_hover_text("A participant records its own client only: what the server measures (the age of your moves when the server ran them, its frames) stays on the host, whose window and recording show every machine.");
            }
            ui.weak("·  hover a title for what it measures; click: move the cursor; double-click a client's point: its move's journey")
                .on_hover_text("The plots show the window of the session around the cursor (the slider in View sets its length). Values of discrete quantities (frames, moves, steps) are drawn a little apart per client so each stays visible; the hover text gives the exact value.");
        });
        // Four rows fill the panel (presenter mode: the plots named share it); more scroll.
        let rows = if columns == 1 {
            specs.len().max(1) as f32
        } else {
            4.0
        };
        let height = ((ui.available_height() - 26.0 * rows) / rows).max(96.0);
        let col_w = ((ui.available_width() - 12.0 * columns as f32) / columns as f32).max(200.0);
        let mut seek = None;
        egui::ScrollArea::vertical().show(ui, |ui| {
            egui::Grid::new("plots")
                .num_columns(columns)
                .show(ui, |ui| {
                    for (i, spec) in specs.iter().enumerate() {
                        ui.vertical(|ui| {
                            ui.set_width(col_w);
                            // Plots scrolled out of sight keep their space but are not drawn.
                            let cell = egui::Rect::from_min_size(
                                ui.cursor().min,
                                egui::vec2(col_w, height + 22.0),
                            );
                            if self.scroll_to == Some(spec.title) {
                                self.scroll_to = None;
                                ui.scroll_to_rect(cell, Some(egui::Align::Center));
                            }
                            if !ui.is_rect_visible(cell) {
                                ui.allocate_space(cell.size());
                            } else if let Some(t) = self.plot(ui, store, view, spec, height, col_w)
                            {
                                seek = Some(t);
                            }
                        });
                        if i % columns == columns - 1 || i + 1 == specs.len() {
                            ui.end_row();
                        }
                    }
                });
        });
        seek
    }
}

/// The clients the server cut off (and that did not come back), said in the legend in the
/// warning colour: a lost client's series stop, and this says why.
fn lost_clients(ui: &mut egui::Ui, store: &Store) {
    for (client, (t, why)) in store.lost() {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!("·  {} lost at {t:.1} s", store.client_name(*client)),
        )
        .on_hover_text(format!(
            "The server cut this client off: {why}. Its series stop there and its pawn is gone from the world view; the event log has the warning."
        ));
    }
}

/// Machines the plots show at once before the rest are hidden (Machines… picks others).
const SHOWN_AT_ONCE: usize = 9;

/// A legend entry: a swatch (a dash for the what-if run) and a name.
pub(crate) fn legend_entry(
    ui: &mut egui::Ui,
    color: Color32,
    name: &str,
    dashed: bool,
) -> egui::Response {
    let (rect, _) = ui.allocate_exact_size(egui::vec2(14.0, 12.0), egui::Sense::hover());
    if dashed {
        let y = rect.center().y;
        for i in 0..3 {
            let x = rect.left() + f32::from(i as u8) * 5.0;
            ui.painter().line_segment(
                [egui::pos2(x, y), egui::pos2(x + 3.0, y)],
                egui::Stroke::new(2.0, color),
            );
        }
    } else {
        ui.painter().circle_filled(rect.center(), 5.0, color);
    }
    ui.add(egui::Label::new(name).sense(egui::Sense::click()))
}
