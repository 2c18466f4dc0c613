//! A plot's hover text: the point's machine, time and value, its move, and on a correction
//! plot the correction's deviating values.

use crate::model::telemetry::Machine;
use crate::session::store::{LogEntry, Store};

/// How far (s) a plotted point may be from its move's record: points are placed at the
/// record's own time, decimation keeps real points.
const MOVE_POINT_WITHIN: f64 = 1e-6;

/// What the hover text of a plot needs to know.
pub(super) struct HoverText<'a> {
    pub store: &'a Store,
    /// The session's machines drawn (the what-if run's are not in the store).
    pub machines: Vec<Machine>,
    pub discrete: bool,
    pub unit: &'static str,
    pub per_move: bool,
    pub on_server: bool,
    pub names_corrections: bool,
}

impl HoverText<'_> {
    /// The point's machine, time and value; on a per-move plot its move; on a correction
    /// plot the correction's deviating values.
    pub fn text(&self, h: &egui_plot::HoverPosition) -> Option<String> {
        let egui_plot::HoverPosition::NearDataPoint {
            plot_name,
            position,
            ..
        } = h
        else {
            return None;
        };
        let value = if self.discrete {
            format!("{:.0}", position.y.round())
        } else {
            format!("{:.2}", position.y)
        };
        let unit = self.unit;
        let mut text = format!("{plot_name}\nt = {:.3} s\n{value} {unit}", position.x);
        let machine = plot_name.to_string();
        let m = self
            .machines
            .iter()
            .find(|m| self.store.machine_name(**m) == machine);
        if self.per_move
            && let Some(m) = m
        {
            text.push_str(&self.moves_words(*m, position.x));
        }
        if self.names_corrections
            && let Some(e) = self.correction_near(&machine, position.x)
        {
            text.push('\n');
            text.push_str(&e.text);
        }
        Some(text)
    }

    /// The move (or moves the server executed in one frame) of a per-move point at `t`.
    fn moves_words(&self, m: Machine, t: f64) -> String {
        let ids = self.store.moves_at(m, t, self.on_server, MOVE_POINT_WITHIN);
        match ids.as_slice() {
            [] => String::new(),
            [id] => match self.store.move_timestamp(m, Some(*id)) {
                Some(ts) => format!("\nmove {id} (GMC timestamp {ts:.6} s)"),
                None => format!("\nmove {id}"),
            },
            [first, .., last] => {
                format!("\nmoves {first}–{last} (the server executed them in one frame)")
            }
        }
    }

    /// The event log's entry of a correction of `machine` nearest `t` (within 50 ms).
    fn correction_near(&self, machine: &str, t: f64) -> Option<&LogEntry> {
        self.store
            .log_between(t - 0.05, t + 0.05)
            .iter()
            .filter(|e| e.move_id.is_some() && self.store.machine_name(e.machine) == machine)
            .min_by(|a, b| (a.t - t).abs().total_cmp(&(b.t - t).abs()))
    }
}
