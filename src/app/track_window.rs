//! Track one value (as Source's `cl_pred_track` does): pick a player's pawn and one of its
//! members; a plot shows, over the seconds up to the cursor, what the owning client predicted
//! (its live and combined executions), what the server computed (remote executions), the
//! values each replay re-computed, and — for the location, velocity and yaw — what the other
//! clients display of that pawn as a simulated proxy; the client's corrections are marked.
//!
//! The predicted and server values come from the value trace (`value_trace`, switchable live
//! here); what proxies display comes from the world-view samples.

use eframe::egui::{self, Color32};
use egui_plot::{Line, LineStyle, MarkerShape, PlotPoints, Points, VLine};

use super::action::Action;
use super::color_of;
use crate::model::binding::Value;
use crate::model::pawn::{Execution, Field, PawnValues};
use crate::model::telemetry::Machine;
use crate::net::live::Command;
use crate::session::store::{MarkKind, Shown, Store};

/// Which number of a value is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    X,
    Y,
    Z,
    /// The vector's length (a speed, for the velocity).
    Length,
}

impl Component {
    const ALL: [Component; 4] = [Component::X, Component::Y, Component::Z, Component::Length];

    fn label(self) -> &'static str {
        match self {
            Component::X => "x",
            Component::Y => "y",
            Component::Z => "z",
            Component::Length => "length",
        }
    }
}

/// A value as one number: a scalar as it is, a vector's component (rotators: x pitch, y yaw,
/// z roll), `None` for what is not a number.
pub fn number(v: &Value, c: Component) -> Option<f64> {
    let pick3 = |x: f64, y: f64, z: f64| match c {
        Component::X => x,
        Component::Y => y,
        Component::Z => z,
        Component::Length => (x * x + y * y + z * z).sqrt(),
    };
    match v {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Byte(b) => Some(f64::from(*b)),
        Value::Int(i) => Some(f64::from(*i)),
        Value::Float(x) => Some(f64::from(*x)),
        Value::Double(x) => Some(*x),
        Value::Vec2(v) => Some(pick3(v.x, v.y, 0.0)),
        Value::Vec3(v) => Some(pick3(v.x, v.y, v.z)),
        _ => None,
    }
}

/// What a proxy sample says of `field` (location, velocity and yaw only).
fn shown_number(s: &Shown, field: Field, c: Component) -> Option<f64> {
    match field {
        Field::Location => number(&Value::Vec3(s.location), c),
        Field::Velocity => number(&Value::Vec3(s.velocity), c),
        Field::Rotation => match c {
            Component::Y => Some(s.yaw),
            _ => None,
        },
        _ => None,
    }
}

fn is_vector(field: Field) -> bool {
    matches!(
        field,
        Field::Location
            | Field::Velocity
            | Field::Rotation
            | Field::InputMove
            | Field::Scale
            | Field::AngularVelocity
            | Field::ControlRotation
    )
}

pub struct TrackWindow {
    pub open: bool,
    pub owner: Option<u16>,
    pub field: Field,
    pub component: Component,
    /// Seconds shown, ending at the cursor.
    pub span: f64,
}

impl Default for TrackWindow {
    fn default() -> Self {
        TrackWindow {
            open: false,
            owner: None,
            field: Field::Velocity,
            component: Component::X,
            span: 3.0,
        }
    }
}

impl TrackWindow {
    /// `trace_on`: the live session's value trace (`None`: a recording).
    pub fn ui(
        &mut self,
        ctx: &egui::Context,
        store: &Store,
        cursor: f64,
        trace_on: Option<bool>,
    ) -> Vec<Action> {
        let mut actions = Vec::new();
        if !self.open {
            return actions;
        }
        let mut open = true;
        let owners = store.value_owners();
        let owner = self
            .owner
            .filter(|o| owners.contains(o))
            .or(owners.first().copied());
        super::window(ctx, "Track a value")
            .open(&mut open)
            .default_size([580.0, 360.0])
            .default_pos(egui::pos2(600.0, 400.0))
            .show(ctx, |ui| {
                ui.horizontal_wrapped(|ui| {
                    actions.extend(super::action::trace_switch(
                        ui,
                        trace_on,
                        ("value trace", "Report the pawn's values around every move execution (verbose; recordings keep it)."),
                        Command::ValueTrace,
                        "track",
                    ));
                    self.choosers(ui, owner, &owners);
                });
                let Some(owner) = owner else {
                    ui.label(match trace_on {
                        Some(false) => "The value trace is off: switch it on above, and each move's values appear here.",
                        Some(true) => "No move has been executed yet.",
                        None => "This recording has no value trace (record with --set value_trace=true).",
                    });
                    return;
                };
                let (t0, t1) = ((cursor - self.span).max(store.earliest()), cursor);
                let tracked = Tracked::of(store, owner, self.shown_value(), (t0, t1));
                ui.label(self.summary(owner, &tracked));
                draw(ui, store, owner, &tracked, (t0, t1));
                if !matches!(self.field, Field::Location | Field::Velocity | Field::Rotation) {
                    ui.weak("What other clients display is sampled for location, velocity and yaw only.");
                }
            });
        self.open = open;
        actions
    }

    /// The pawn, the value, its component (for a vector) and the seconds shown.
    fn choosers(&mut self, ui: &mut egui::Ui, owner: Option<u16>, owners: &[u16]) {
        egui::ComboBox::from_label("pawn")
            .selected_text(owner.map_or("none".into(), |o| format!("client {o}")))
            .width(80.0)
            .show_ui(ui, |ui| {
                for o in owners {
                    ui.selectable_value(&mut self.owner, Some(*o), format!("client {o}"));
                }
            });
        egui::ComboBox::from_label("value")
            .selected_text(self.field.member_name())
            .width(110.0)
            .show_ui(ui, |ui| {
                for f in Field::ALL {
                    ui.selectable_value(&mut self.field, f, f.member_name());
                }
            });
        if is_vector(self.field) {
            egui::ComboBox::from_id_salt("track component")
                .selected_text(self.component.label())
                .width(60.0)
                .show_ui(ui, |ui| {
                    for c in Component::ALL {
                        ui.selectable_value(&mut self.component, c, c.label());
                    }
                })
                .response
                .accessible_name("component");
        }
        ui.add(
            egui::Slider::new(&mut self.span, 0.5..=30.0)
                .logarithmic(true)
                .text("s shown"),
        );
    }

    /// The value tracked and the number plotted of it (a scalar's own; a vector's chosen
    /// component).
    fn shown_value(&self) -> (Field, Component) {
        let comp = if is_vector(self.field) {
            self.component
        } else {
            Component::X
        };
        (self.field, comp)
    }

    /// One line saying what is plotted and how many of each.
    fn summary(&self, owner: u16, t: &Tracked) -> String {
        let (field, comp) = self.shown_value();
        let unit = field.unit();
        format!(
            "client {owner}'s {}{}{}: {} predicted, {} on the server, {} replayed, {} corrections in view",
            field.member_name(),
            if is_vector(field) {
                format!(" ({})", comp.label())
            } else {
                String::new()
            },
            if unit.is_empty() {
                String::new()
            } else {
                format!(", {unit}")
            },
            t.predicted.len(),
            t.server.len(),
            t.replays.len(),
            t.corrections.len()
        )
    }
}

/// One pawn's value between two times: what its client predicted and replayed, what the
/// server computed, what other machines show, and when its client was corrected.
struct Tracked {
    field: Field,
    predicted: Vec<[f64; 2]>,
    replays: Vec<[f64; 2]>,
    server: Vec<[f64; 2]>,
    /// Each other machine's display of the pawn, as plotted points (machines with none left out).
    shown: Vec<(Machine, Vec<[f64; 2]>)>,
    corrections: Vec<f64>,
}

impl Tracked {
    fn of(
        store: &Store,
        owner: u16,
        (field, comp): (Field, Component),
        (t0, t1): (f64, f64),
    ) -> Tracked {
        let num = |p: &PawnValues| number(&p.get(field), comp);
        let within = |t: f64| t >= t0 && t <= t1;
        let mut predicted = Vec::new();
        let mut replays = Vec::new();
        let mut server = Vec::new();
        if let Some(track) = store.values(owner) {
            for (t, exec, v) in track.client.iter().filter(|(t, _, _)| within(*t)) {
                let Some(y) = num(v) else { continue };
                match exec {
                    Execution::Replay => replays.push([*t, y]),
                    _ => predicted.push([*t, y]),
                }
            }
            server = track
                .server
                .iter()
                .filter(|(t, _)| within(*t))
                .filter_map(|(t, v)| Some([*t, num(v)?]))
                .collect();
        }
        let shown = store
            .shown_by_others(owner, t0, t1)
            .into_iter()
            .map(|(m, samples)| {
                let pts: Vec<[f64; 2]> = samples
                    .iter()
                    .filter_map(|s| Some([s.t, shown_number(s, field, comp)?]))
                    .collect();
                (m, pts)
            })
            .filter(|(_, pts)| !pts.is_empty())
            .collect();
        let corrections = store
            .log_between(t0, t1)
            .iter()
            .filter(|e| {
                e.machine == Machine::Client(owner)
                    && matches!(e.kind, MarkKind::Correction | MarkKind::Replay)
            })
            .map(|e| e.t)
            .collect();
        Tracked {
            field,
            predicted,
            replays,
            server,
            shown,
            corrections,
        }
    }
}

/// The legend and the plot of a tracked value.
fn draw(ui: &mut egui::Ui, store: &Store, owner: u16, t: &Tracked, (t0, t1): (f64, f64)) {
    let dark = ui.visuals().dark_mode;
    let server_c = if dark {
        Color32::from_gray(230)
    } else {
        Color32::from_gray(20)
    };
    let mark_c = if dark {
        Color32::from_rgb(240, 228, 66)
    } else {
        Color32::from_rgb(165, 140, 0)
    };
    let own_c = color_of(Machine::Client(owner));
    let own_name = format!("client {owner} predicted");
    let shows: Vec<(Color32, String)> = t
        .shown
        .iter()
        .map(|(m, _)| {
            (
                color_of(*m).gamma_multiply(0.7),
                format!("{} shows it", store.machine_name(*m)),
            )
        })
        .collect();
    let mut legend = vec![
        (own_c, own_name.as_str(), false),
        (server_c, "server", true),
        (own_c, "replayed (hollow diamonds)", false),
        (mark_c, "correction", true),
    ];
    legend.extend(shows.iter().map(|(c, n)| (*c, n.as_str(), false)));
    super::action::legend_row(ui, &legend);
    super::action::cursor_plot("track one value")
        .y_axis_label(t.field.unit())
        .show(ui, |plot_ui| {
            plot_ui.set_plot_bounds_x(t0..=t1.max(t0 + 1e-3));
            for at in &t.corrections {
                plot_ui.vline(
                    VLine::new("correction", *at)
                        .color(mark_c)
                        .style(LineStyle::dashed_dense()),
                );
            }
            plot_ui.line(
                Line::new(own_name.clone(), PlotPoints::from(t.predicted.clone()))
                    .color(own_c)
                    .width(2.0),
            );
            plot_ui.line(
                Line::new("server", PlotPoints::from(t.server.clone()))
                    .color(server_c)
                    .style(LineStyle::dashed_loose())
                    .width(1.5),
            );
            plot_ui.points(
                Points::new("replayed", PlotPoints::from(t.replays.clone()))
                    .color(own_c)
                    .shape(MarkerShape::Diamond)
                    .filled(false)
                    .radius(3.5),
            );
            for ((_, pts), (color, name)) in t.shown.iter().zip(&shows) {
                plot_ui.line(
                    Line::new(name.clone(), PlotPoints::from(pts.clone()))
                        .color(*color)
                        .width(1.0),
                );
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_become_numbers() {
        let v = Value::Vec3(glam::DVec3::new(3.0, 4.0, 0.0));
        assert_eq!(number(&v, Component::X), Some(3.0));
        assert_eq!(number(&v, Component::Y), Some(4.0));
        assert_eq!(number(&v, Component::Length), Some(5.0));
        assert_eq!(number(&Value::Bool(true), Component::X), Some(1.0));
        assert_eq!(number(&Value::Byte(7), Component::Length), Some(7.0));
        assert_eq!(number(&Value::Name("a".into()), Component::X), None);
        let s = Shown {
            t: 1.0,
            location: glam::DVec3::new(1.0, 2.0, 3.0),
            velocity: glam::DVec3::ZERO,
            yaw: 90.0,
        };
        assert_eq!(shown_number(&s, Field::Location, Component::Z), Some(3.0));
        assert_eq!(shown_number(&s, Field::Rotation, Component::Y), Some(90.0));
        assert_eq!(shown_number(&s, Field::Stride, Component::X), None);
    }
}
