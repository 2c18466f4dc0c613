//! Figures measured in a running (or recorded) session, for text that quotes them: a lesson
//! writes `{rtt_ms}` and the learner reads the round trip the scenario in front of them
//! measured, never a number typed into the text. Each figure is a mean (or a maximum, or a
//! count) over the client machines of the store's series in a time window.

use super::store::{Metric, Store};
use crate::model::telemetry::Machine;

/// A figure a text can quote: its name (between braces), what it is, and how it is measured.
pub struct FigureDef {
    pub name: &'static str,
    pub what: &'static str,
    measure: fn(&Store, f64, f64) -> Option<f64>,
    /// For a mean over the clients of one series: the series and its scale to the unit, so
    /// the text can say when the clients disagree (the mean of −250 and −750 ms is no
    /// client's offset).
    spread: Option<(Metric, f64)>,
    /// Unit after the number ("" for none) and decimals shown.
    unit: &'static str,
    decimals: usize,
}

/// Every figure, by name.
pub const FIGURES: &[FigureDef] = &[
    FigureDef {
        name: "rtt_ms",
        what: "the clients' mean ping round trip",
        measure: |s, a, b| mean_of(s, Metric::Rtt, a, b).map(|v| v * 1000.0),
        spread: Some((Metric::Rtt, 1000.0)),
        unit: " ms",
        decimals: 0,
    },
    FigureDef {
        name: "move_age_ms",
        what: "how old the clients' moves are when the server executes them (mean)",
        measure: |s, a, b| mean_of(s, Metric::MoveAge, a, b).map(|v| v * 1000.0),
        spread: Some((Metric::MoveAge, 1000.0)),
        unit: " ms",
        decimals: 0,
    },
    FigureDef {
        name: "timestamp_offset_ms",
        what: "a closed move's timestamp minus the server's clock at that instant (mean)",
        measure: |s, a, b| mean_of(s, Metric::MoveTimestampOffset, a, b).map(|v| v * 1000.0),
        spread: Some((Metric::MoveTimestampOffset, 1000.0)),
        unit: " ms",
        decimals: 0,
    },
    FigureDef {
        name: "clock_offset_ms",
        what: "the clients' synchronized clock minus the server's (mean)",
        measure: |s, a, b| mean_of(s, Metric::ClockOffset, a, b).map(|v| v * 1000.0),
        spread: Some((Metric::ClockOffset, 1000.0)),
        unit: " ms",
        decimals: 1,
    },
    FigureDef {
        name: "frames_per_move",
        what: "frames combined into each move (mean)",
        measure: |s, a, b| mean_of(s, Metric::FramesPerMove, a, b),
        spread: Some((Metric::FramesPerMove, 1.0)),
        unit: "",
        decimals: 1,
    },
    FigureDef {
        name: "fps",
        what: "the clients' frames per second",
        measure: |s, a, b| per_second(s, a, b, |s, m, a, b| s.frames_between(m, a, b) as f64),
        spread: None,
        unit: " fps",
        decimals: 0,
    },
    FigureDef {
        name: "moves_per_s",
        what: "moves each client closes per second",
        measure: |s, a, b| {
            per_second(s, a, b, |s, m, a, b| {
                s.series(m, Metric::MoveDelta)
                    .map_or(0.0, |x| x.range(a, b).count() as f64)
            })
        },
        spread: None,
        unit: " moves/s",
        decimals: 0,
    },
    FigureDef {
        name: "sends_per_s",
        what: "datagrams of moves each client sends per second",
        measure: |s, a, b| {
            let v: Vec<f64> = clients(s)
                .filter_map(|m| s.sent_rates(m, a, b))
                .map(|r| r.move_datagrams_per_s)
                .collect();
            mean(&v)
        },
        spread: None,
        unit: " datagrams/s",
        decimals: 0,
    },
    FigureDef {
        name: "move_delta_ms",
        what: "a move's delta time (mean)",
        measure: |s, a, b| mean_of(s, Metric::MoveDelta, a, b).map(|v| v * 1000.0),
        spread: Some((Metric::MoveDelta, 1000.0)),
        unit: " ms",
        decimals: 1,
    },
    FigureDef {
        name: "move_delta_max_ms",
        what: "the longest move delta",
        measure: |s, a, b| max_of(s, Metric::MoveDelta, a, b).map(|v| v * 1000.0),
        spread: None,
        unit: " ms",
        decimals: 1,
    },
    FigureDef {
        name: "substeps",
        what: "sub-steps per move (mean)",
        measure: |s, a, b| mean_of(s, Metric::Substeps, a, b),
        spread: Some((Metric::Substeps, 1.0)),
        unit: "",
        decimals: 1,
    },
    FigureDef {
        name: "substeps_max",
        what: "the most sub-steps in one move",
        measure: |s, a, b| max_of(s, Metric::Substeps, a, b),
        spread: None,
        unit: "",
        decimals: 0,
    },
    FigureDef {
        name: "corrections",
        what: "corrections the clients received",
        measure: |s, a, b| {
            Some(
                clients(s)
                    .filter_map(|m| s.series(m, Metric::ReplayDepth))
                    .map(|x| x.range(a, b).count() as f64)
                    .sum(),
            )
        },
        spread: None,
        unit: "",
        decimals: 0,
    },
    FigureDef {
        name: "replay_depth",
        what: "moves re-run after a correction (mean)",
        measure: |s, a, b| mean_of(s, Metric::ReplayDepth, a, b),
        spread: Some((Metric::ReplayDepth, 1.0)),
        unit: " moves",
        decimals: 1,
    },
    FigureDef {
        name: "replay_depth_max",
        what: "the deepest replay",
        measure: |s, a, b| max_of(s, Metric::ReplayDepth, a, b),
        spread: None,
        unit: " moves",
        decimals: 0,
    },
    FigureDef {
        name: "interp_delay_ms",
        what: "how far in the past the clients show other pawns (mean)",
        measure: |s, a, b| mean_of(s, Metric::InterpDelay, a, b).map(|v| v * 1000.0),
        spread: Some((Metric::InterpDelay, 1000.0)),
        unit: " ms",
        decimals: 0,
    },
    FigureDef {
        name: "interp_delay_max_ms",
        what: "the furthest in the past another pawn was shown",
        measure: |s, a, b| max_of(s, Metric::InterpDelay, a, b).map(|v| v * 1000.0),
        spread: None,
        unit: " ms",
        decimals: 0,
    },
];

/// The figure called `name`.
pub fn figure(name: &str) -> Option<&'static FigureDef> {
    FIGURES.iter().find(|f| f.name == name)
}

impl FigureDef {
    /// The figure over `[t0, t1)` of the store (none while it has no data there).
    pub fn value(&self, store: &Store, t0: f64, t1: f64) -> Option<f64> {
        (self.measure)(store, t0, t1).filter(|v| v.is_finite())
    }

    /// The figure as a text quotes it over `[t0, t1)`: the value with its unit and, when it
    /// is a mean of clients that disagree, who is where (none while it has no data there).
    pub fn text(&self, store: &Store, t0: f64, t1: f64) -> Option<String> {
        let v = self.value(store, t0, t1)?;
        Some(self.format(v) + &self.disagreement(store, t0, t1).unwrap_or_default())
    }

    /// " (the mean of 3 clients, from −750.4 ms on client 2 to −250.1 ms on client 0)" when
    /// the machines' own means lie more than a quarter apart (and further than the shown
    /// precision): a mean of machines that disagree is no machine's figure.
    fn disagreement(&self, store: &Store, t0: f64, t1: f64) -> Option<String> {
        let (metric, scale) = self.spread?;
        let per: Vec<(Machine, f64)> = store
            .machines_with(metric)
            .into_iter()
            .filter_map(|m| {
                let x = store.series(m, metric)?;
                let (sum, n) = x
                    .range(t0, t1)
                    .fold((0.0, 0usize), |(s, n), p| (s + p[1], n + 1));
                (n > 0).then(|| (m, sum / n as f64 * scale))
            })
            .collect();
        let lo = per.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
        let hi = per.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
        let wide = hi.1 - lo.1;
        let shown_step = 10f64.powi(-(self.decimals as i32));
        (per.len() > 1 && wide > 0.25 * lo.1.abs().max(hi.1.abs()) && wide >= 5.0 * shown_step)
            .then(|| {
                format!(
                    " (the mean of {} clients, from {} on {} to {} on {})",
                    per.len(),
                    self.format(lo.1),
                    lo.0,
                    self.format(hi.1),
                    hi.0
                )
            })
    }

    /// The figure with its unit.
    pub fn format(&self, v: f64) -> String {
        let text = format!("{v:.*}", self.decimals);
        // A value that rounds to zero is shown without a sign ("-0 ms" reads as a fault).
        let text = match text.strip_prefix('-') {
            Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
            _ => text,
        };
        format!("{text}{}", self.unit)
    }
}

fn clients(s: &Store) -> impl Iterator<Item = Machine> + '_ {
    let mut all: Vec<Machine> = s
        .framed_machines()
        .into_iter()
        .chain(s.machines_with(Metric::MoveDelta))
        .chain(s.machines_with(Metric::BytesSent))
        .filter(|m| matches!(m, Machine::Client(_)))
        .collect();
    all.sort();
    all.dedup();
    all.into_iter()
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// The mean of every client point of `metric` in the window (server-side series included:
/// the move age is kept per client).
fn mean_of(s: &Store, metric: Metric, a: f64, b: f64) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0usize);
    for m in s.machines_with(metric) {
        if let Some(x) = s.series(m, metric) {
            for p in x.range(a, b) {
                sum += p[1];
                n += 1;
            }
        }
    }
    (n > 0).then(|| sum / n as f64)
}

fn max_of(s: &Store, metric: Metric, a: f64, b: f64) -> Option<f64> {
    s.machines_with(metric)
        .into_iter()
        .filter_map(|m| s.series(m, metric))
        .flat_map(|x| x.range(a, b).map(|p| p[1]))
        .reduce(f64::max)
}

/// The mean over clients of `count(machine, a, b) / (b − a)`, over the part of the window the
/// store holds.
fn per_second(
    s: &Store,
    a: f64,
    b: f64,
    count: fn(&Store, Machine, f64, f64) -> f64,
) -> Option<f64> {
    let a = a.max(s.earliest());
    let b = b.min(s.latest());
    if b - a < 0.5 {
        return None;
    }
    let v: Vec<f64> = clients(s).map(|m| count(s, m, a, b) / (b - a)).collect();
    mean(&v).filter(|&x| x > 0.0)
}

/// A figure a text quotes: `{name}` (measured in the state the text is shown in) or
/// `{name@k}` (in the lesson's state `k`: 0 the scenario as it starts, `k` after its `k`-th
/// change), so a summary can speak of a state that is over.
#[derive(Clone, Copy)]
pub struct Quote {
    pub def: &'static FigureDef,
    pub state: Option<usize>,
}

/// The quote between braces, if `inner` is one.
pub fn quote(inner: &str) -> Option<Quote> {
    let (name, state) = match inner.split_once('@') {
        Some((name, k)) => (name, Some(k.parse::<usize>().ok()?)),
        None => (inner, None),
    };
    Some(Quote {
        def: figure(name)?,
        state,
    })
}

/// Text with every quote (`{figure}`, `{figure@k}`) replaced by what `say` makes of it;
/// braces that quote no figure are left as they are.
pub fn fill_with(text: &str, mut say: impl FnMut(Quote) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after
            .find('}')
            .and_then(|j| quote(&after[..j]).map(|q| (j, q)))
        {
            Some((j, q)) => {
                out.push_str(&say(q));
                rest = &after[j + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Text with every `{figure}` replaced by its value over `[t0, t1)` (`…` while it has no
/// data); braces that name no figure are left as they are.
pub fn fill(text: &str, store: &Store, t0: f64, t1: f64) -> String {
    fill_with(text, |q| {
        q.def.text(store, t0, t1).unwrap_or_else(|| "…".to_string())
    })
}

/// The figures `text` quotes in a named state (`{name@k}`), with the state.
pub fn states_quoted(text: &str) -> impl Iterator<Item = (&'static str, usize)> + '_ {
    text.split('{')
        .skip(1)
        .filter_map(|part| quote(part.split_once('}')?.0))
        .filter_map(|q| Some((q.def.name, q.state?)))
}

/// The quotes between braces in `text` that are not figures (a preset's lesson is refused
/// with them).
pub fn unknown_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        let after = &rest[i + 1..];
        let Some(j) = after.find('}') else { break };
        let name = &after[..j];
        if quote(name).is_none() {
            out.push(name.to_string());
        }
        rest = &after[j + 1..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::telemetry::{Event, Record};

    #[test]
    fn text_quotes_measured_figures_and_waits_without_data() {
        let mut store = Store::new(None);
        assert_eq!(
            fill("round trip {rtt_ms}, {nope} {", &store, 0.0, 10.0),
            "round trip …, {nope} {"
        );
        for (t, rtt) in [(1.0, 0.2), (2.0, 0.3)] {
            store.ingest(&Record {
                t,
                machine: Machine::Client(0),
                event: Event::Rtt { rtt },
            });
        }
        assert_eq!(fill("{rtt_ms}", &store, 0.0, 10.0), "250 ms");
        // Outside the window: no data.
        assert_eq!(fill("{rtt_ms}", &store, 5.0, 10.0), "…");
        let f = figure("clock_offset_ms").expect("a figure");
        assert_eq!(f.format(-0.01), "0.0 ms");
        assert_eq!(f.format(-1.25), "-1.2 ms");
        assert_eq!(
            unknown_in("a {rtt_ms} b {rtt} {fps}"),
            vec!["rtt".to_string()]
        );
    }

    #[test]
    fn a_mean_of_clients_that_disagree_says_who_is_where() {
        let mut store = Store::new(None);
        let mut offsets = |per: &[f64]| {
            for (c, o) in per.iter().enumerate() {
                store.ingest(&Record {
                    t: 1.0,
                    machine: Machine::Client(c as u16),
                    event: Event::ClockOffset { offset: *o },
                });
            }
        };
        offsets(&[-0.250, -0.500, -0.750]);
        assert_eq!(
            fill("{clock_offset_ms}", &store, 0.0, 2.0),
            "-500.0 ms (the mean of 3 clients, from -750.0 ms on client 2 to -250.0 ms on client 0)"
        );
        let mut agreeing = Store::new(None);
        for (c, o) in [0.010, 0.011].iter().enumerate() {
            agreeing.ingest(&Record {
                t: 1.0,
                machine: Machine::Client(c as u16),
                event: Event::ClockOffset { offset: *o },
            });
        }
        assert_eq!(fill("{clock_offset_ms}", &agreeing, 0.0, 2.0), "10.5 ms");
    }
}
