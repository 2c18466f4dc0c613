//! Frame pacing: does each machine of a live session keep the frame rate its preset asks
//! for? A machine starved of CPU (a busy computer, software rendering) runs late frames, and
//! its moves, pings and states go out late: the plots then show delays that are not the
//! network's. Measured from the frame start times the store holds.

use super::preset::Preset;
use super::store::Store;
use crate::model::telemetry::Machine;

/// Below this share of its target frame rate a machine counts as not keeping it.
pub const KEEPS_RATE: f64 = 0.9;

/// One machine's frame pacing over a window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pacing {
    pub machine: Machine,
    pub target_fps: f64,
    pub measured_fps: f64,
    /// The longest time between two frame starts (s).
    pub longest_gap: f64,
}

impl Pacing {
    /// The machine keeps its frame rate: at least [`KEEPS_RATE`] of it, and no frame gap of
    /// more than four target frames.
    pub fn keeps_rate(&self) -> bool {
        self.measured_fps >= KEEPS_RATE * self.target_fps
            && self.longest_gap <= 4.0 / self.target_fps.max(1e-3)
    }
}

/// The frame rate the preset asks `machine` for.
pub fn target_fps(preset: &Preset, machine: Machine) -> f64 {
    match machine {
        Machine::Server => preset.server_fps,
        Machine::Client(id) => preset
            .client_overrides
            .iter()
            .find(|o| o.client == id)
            .and_then(|o| o.fps)
            .unwrap_or(preset.client_fps),
    }
}

/// Every machine's pacing over `[t0, t1)` (machines with fewer than two frames there are
/// left out).
pub fn pacing(store: &Store, preset: &Preset, t0: f64, t1: f64) -> Vec<Pacing> {
    let mut out = Vec::new();
    for m in store.framed_machines() {
        let f = store.frame_times(m, t0, t1);
        if f.len() < 2 {
            continue;
        }
        let span = t1 - t0;
        let longest = f.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
        out.push(Pacing {
            machine: m,
            target_fps: target_fps(preset, m),
            measured_fps: f.len() as f64 / span,
            longest_gap: longest,
        });
    }
    out
}

/// A sentence for the machines that do not keep their frame rate (none when all do).
pub fn complaint(all: &[Pacing]) -> Option<String> {
    let late: Vec<String> = all
        .iter()
        .filter(|p| !p.keeps_rate())
        .map(|p| {
            format!(
                "{} {:.0}/{:.0} fps (a {:.0} ms gap)",
                p.machine,
                p.measured_fps,
                p.target_fps,
                p.longest_gap * 1000.0
            )
        })
        .collect();
    (!late.is_empty()).then(|| {
        // The conclusion first (a status line is cut at the window's edge), then at most
        // three machines; the hover has them all.
        let named = if late.len() > 3 {
            format!("{}, and {} more", late[..3].join(", "), late.len() - 3)
        } else {
            late.join(", ")
        };
        format!(
            "This computer is too busy for the live session — delays on the plots are not the network's. Below their frame rate: {named}. (Late frames delay moves, pings and states.)"
        )
    })
}

/// Every machine that does not keep its frame rate, one a line (the status bar's hover).
pub fn late_list(all: &[Pacing]) -> String {
    all.iter()
        .filter(|p| !p.keeps_rate())
        .map(|p| {
            format!(
                "{}: {:.0} of {:.0} fps, longest frame gap {:.0} ms",
                p.machine,
                p.measured_fps,
                p.target_fps,
                p.longest_gap * 1000.0
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::telemetry::{Event, Record};

    fn frames(store: &mut Store, m: Machine, times: impl Iterator<Item = f64>) {
        for t in times {
            store.ingest(&Record {
                t,
                machine: m,
                event: Event::Frame { dt: 1.0 / 60.0 },
            });
        }
    }

    #[test]
    fn a_machine_that_misses_frames_is_named_and_one_that_keeps_them_is_not() {
        let p = Preset::default();
        let mut s = Store::new(None);
        frames(
            &mut s,
            Machine::Server,
            (0..300).map(|i| f64::from(i) / 60.0),
        );
        // Client 0: 60 fps but a 300 ms stall in the middle; client 1: 30 fps throughout.
        frames(
            &mut s,
            Machine::Client(0),
            (0..300)
                .filter(|i| !(100..118).contains(i))
                .map(|i| f64::from(i) / 60.0),
        );
        frames(
            &mut s,
            Machine::Client(1),
            (0..150).map(|i| f64::from(i) / 30.0),
        );
        let all = pacing(&s, &p, 0.0, 5.0);
        assert_eq!(all.len(), 3);
        let by = |m| all.iter().find(|x| x.machine == m).copied().expect("paced");
        assert!(by(Machine::Server).keeps_rate());
        assert!(!by(Machine::Client(0)).keeps_rate(), "a stall");
        assert!((by(Machine::Client(1)).measured_fps - 30.0).abs() < 0.5);
        assert!(!by(Machine::Client(1)).keeps_rate());
        let text = complaint(&all).expect("named");
        assert!(
            text.contains("client 0") && text.contains("client 1"),
            "{text}"
        );
        assert!(!text.contains("server"), "{text}");
        assert!(text.starts_with("This computer is too busy"), "{text}");
        // Many machines: three named, the rest counted (the whole list is in the hover).
        let many: Vec<Pacing> = (0..5u16)
            .map(|i| Pacing {
                machine: Machine::Client(i),
                ..by(Machine::Client(1))
            })
            .collect();
        let text = complaint(&many).expect("named");
        assert!(text.contains("gap), and 2 more."), "{text}");
        assert!(
            text.contains("client 2 ") && !text.contains("client 3"),
            "{text}"
        );
        assert_eq!(late_list(&many).lines().count(), 5);
        assert_eq!(complaint(&[by(Machine::Server)]), None);
    }

    #[test]
    fn a_run_summary_judges_each_machine_against_its_preset_rate() {
        let mut p = Preset::default();
        p.client_overrides
            .push(crate::session::preset::ClientOverride {
                client: 1,
                fps: Some(30.0),
                ..Default::default()
            });
        let mut t = FrameTally::default();
        for i in 0..600 {
            let at = f64::from(i) / 60.0;
            t.frame(Machine::Server, at);
            // Client 0 stalls for half a second at 5 s.
            if !(300..330).contains(&i) {
                t.frame(Machine::Client(0), at);
            }
            if i % 2 == 0 {
                t.frame(Machine::Client(1), at);
            }
        }
        let mut all = t.finish();
        for x in &mut all {
            x.judge(&p);
        }
        let by = |name: &str| all.iter().find(|x| x.machine == name).expect(name);
        assert_eq!(by("server").keeps_rate, Some(true));
        assert_eq!(by("client 1").target_fps, Some(30.0));
        assert_eq!(by("client 1").keeps_rate, Some(true), "its own target");
        assert_eq!(by("client 0").keeps_rate, Some(false));
        assert!((by("client 0").longest_gap_ms - 516.7).abs() < 1.0);
    }
}

/// Frame starts per machine, folded as a summary sees them (first, last, count, longest gap).
#[derive(Debug, Default)]
pub struct FrameTally {
    machines: std::collections::BTreeMap<Machine, (u64, f64, f64, f64)>,
}

impl FrameTally {
    pub fn frame(&mut self, m: Machine, t: f64) {
        let e = self.machines.entry(m).or_insert((0, t, t, 0.0));
        e.3 = e.3.max(t - e.2);
        e.0 += 1;
        e.2 = t;
    }

    /// Each machine's pacing, its target not yet known.
    pub fn finish(&self) -> Vec<FramePacing> {
        self.machines
            .iter()
            .filter(|(_, e)| e.0 > 1 && e.2 > e.1)
            .map(|(m, e)| FramePacing {
                machine: m.to_string(),
                measured_fps: (e.0 - 1) as f64 / (e.2 - e.1),
                longest_gap_ms: e.3 * 1000.0,
                target_fps: None,
                keeps_rate: None,
                id: *m,
            })
            .collect()
    }
}

/// One machine's frame pacing over a whole run, in the summary.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FramePacing {
    pub machine: String,
    pub measured_fps: f64,
    pub longest_gap_ms: f64,
    /// The preset's frame rate for it (set by the driver that knows the preset).
    pub target_fps: Option<f64>,
    pub keeps_rate: Option<bool>,
    #[serde(skip)]
    pub id: Machine,
}

impl FramePacing {
    /// Sets the target from `preset` and judges the pacing against it.
    pub fn judge(&mut self, preset: &Preset) {
        let target = target_fps(preset, self.id);
        let p = Pacing {
            machine: self.id,
            target_fps: target,
            measured_fps: self.measured_fps,
            longest_gap: self.longest_gap_ms / 1000.0,
        };
        self.target_fps = Some(target);
        self.keeps_rate = Some(p.keeps_rate());
    }
}
