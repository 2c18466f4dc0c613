//! Figures measured in a running (or recorded) session, for text that quotes them: a lesson
//! writes `{rtt_ms}` and the learner reads the round trip the scenario in front of them
//! measured, never a number typed into the text. Each figure is a mean (or a maximum, or a
//! count) over the client machines of the store's series in a time window, or one client's
//! (`{frames_per_move#1}`).

use super::store::{Metric, Store};
use crate::model::telemetry::Machine;

mod table;
pub use table::FIGURES;

/// The machines a figure is measured over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// Every machine that has the figure's data (the clients, and the server where a
    /// figure counts its lines).
    All,
    /// One machine (`#N` after the name: client N).
    One(Machine),
}

impl Scope {
    fn has(self, m: Machine) -> bool {
        match self {
            Scope::All => true,
            Scope::One(one) => one == m,
        }
    }

    /// Every scope a store's figures can be quoted in: all machines, then each client.
    pub fn every(store: &Store) -> Vec<Scope> {
        std::iter::once(Scope::All)
            .chain(table::clients(store, Scope::All).map(Scope::One))
            .collect()
    }
}

/// A figure a text can quote: its name (between braces), what it is, and how it is measured.
pub struct FigureDef {
    pub name: &'static str,
    pub what: &'static str,
    measure: fn(&Store, Scope, f64, f64) -> Option<f64>,
    /// For a mean over the clients of one series: the series and its scale to the unit, so
    /// the text can say when the clients disagree (the mean of −250 and −750 ms is no
    /// client's offset).
    spread: Option<(Metric, f64)>,
    /// Unit after the number ("" for none) and decimals shown.
    unit: &'static str,
    decimals: usize,
    /// A lesson measures it over the whole of the state, not its last window: a count of
    /// things that happen once (a warning at the start, a correction as a client joins).
    pub over_state: bool,
}

/// The figure called `name`.
pub fn figure(name: &str) -> Option<&'static FigureDef> {
    FIGURES.iter().find(|f| f.name == name)
}

impl FigureDef {
    /// The figure over `[t0, t1)` of the store (none while it has no data there).
    pub fn value(&self, store: &Store, t0: f64, t1: f64) -> Option<f64> {
        self.value_in(store, Scope::All, t0, t1)
    }

    /// The figure over `[t0, t1)` on the machines of `scope`.
    pub fn value_in(&self, store: &Store, scope: Scope, t0: f64, t1: f64) -> Option<f64> {
        (self.measure)(store, scope, t0, t1).filter(|v| v.is_finite())
    }

    /// The figure as a text quotes it over `[t0, t1)`: the value with its unit and, when it
    /// is a mean of clients that disagree, who is where (none while it has no data there).
    pub fn text(&self, store: &Store, t0: f64, t1: f64) -> Option<String> {
        self.text_in(store, Scope::All, t0, t1)
    }

    /// [`FigureDef::text`] on the machines of `scope` (one machine's figure has no spread).
    pub fn text_in(&self, store: &Store, scope: Scope, t0: f64, t1: f64) -> Option<String> {
        let v = self.value_in(store, scope, t0, t1)?;
        let spread = match scope {
            Scope::All => self.disagreement(store, t0, t1),
            Scope::One(_) => None,
        };
        // A range that only repeats where the clients' own means lie says nothing more.
        let range = self
            .points_range(store, scope, v, t0, t1)
            .filter(|(_, lo, hi)| {
                spread.as_ref().is_none_or(|(_, a, b)| {
                    self.format(*lo) != self.format(*a) || self.format(*hi) != self.format(*b)
                })
            });
        let spread = spread.map(|(said, ..)| said);
        let range = range.map(|(said, ..)| said);
        let said: Vec<String> = spread.into_iter().chain(range).collect();
        Some(match said.is_empty() {
            true => self.format(v),
            false => format!("{} ({})", self.format(v), said.join("; ")),
        })
    }

    /// "range 67 to 117 ms" when the plot's points of a mean lie far
    /// from it (a quarter of it, and five shown steps): a mean of 1.0 sub-steps beside a
    /// plot that shows 2s says the 2s too.
    fn points_range(
        &self,
        store: &Store,
        scope: Scope,
        mean: f64,
        t0: f64,
        t1: f64,
    ) -> Option<(String, f64, f64)> {
        let (metric, scale) = self.spread?;
        let (lo, hi) = store
            .machines_with(metric)
            .into_iter()
            .filter(|m| scope.has(*m))
            .filter_map(|m| store.series(m, metric))
            .flat_map(|x| x.range(t0, t1).map(|p| p[1] * scale))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
                (lo.min(y), hi.max(y))
            });
        let wide = hi - lo;
        let shown_step = 10f64.powi(-(self.decimals as i32));
        (wide.is_finite() && wide > 0.25 * mean.abs() && wide >= 5.0 * shown_step).then(|| {
            let low = self.format(lo);
            let low = low.strip_suffix(self.unit).unwrap_or(&low);
            (format!("range {low} to {}", self.format(hi)), lo, hi)
        })
    }

    /// "the mean of 3 clients, from −750.4 ms on client 2 to −250.1 ms on client 0" when
    /// the machines' own means lie more than a quarter apart (and further than the shown
    /// precision): a mean of machines that disagree is no machine's figure.
    fn disagreement(&self, store: &Store, t0: f64, t1: f64) -> Option<(String, f64, f64)> {
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
                let said = format!(
                    "the mean of {} clients, from {} on {} to {} on {}",
                    per.len(),
                    self.format(lo.1),
                    lo.0,
                    self.format(hi.1),
                    hi.0
                );
                (said, lo.1, hi.1)
            })
    }

    /// The span a lesson measures the figure over, given its window in a state that
    /// began at `since`.
    pub fn span(&self, window: (f64, f64), since: f64) -> (f64, f64) {
        if self.over_state {
            (since, window.1)
        } else {
            window
        }
    }

    /// Decimals the figure is shown with.
    pub fn decimals(&self) -> usize {
        self.decimals
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

/// A figure a text quotes: `{name}` (measured in the state the text is shown in) or
/// `{name@k}` (in the lesson's state `k`: 0 the scenario as it starts, `k` after its `k`-th
/// change), so a summary can speak of a state that is over; `#N` after either makes it
/// client N's alone (`{frames_per_move@1#0}`).
#[derive(Clone, Copy)]
pub struct Quote {
    pub def: &'static FigureDef,
    pub state: Option<usize>,
    pub scope: Scope,
}

/// The quote between braces, if `inner` is one.
pub fn quote(inner: &str) -> Option<Quote> {
    let (rest, scope) = match inner.split_once('#') {
        Some((rest, c)) => (rest, Scope::One(Machine::Client(c.parse::<u16>().ok()?))),
        None => (inner, Scope::All),
    };
    let (name, state) = match rest.split_once('@') {
        Some((name, k)) => (name, Some(k.parse::<usize>().ok()?)),
        None => (rest, None),
    };
    Some(Quote {
        def: figure(name)?,
        state,
        scope,
    })
}

impl Quote {
    /// The quoted figure over `[t0, t1)`, with its text.
    pub fn measure(&self, store: &Store, t0: f64, t1: f64) -> Option<(f64, String)> {
        Some((
            self.def.value_in(store, self.scope, t0, t1)?,
            self.def.text_in(store, self.scope, t0, t1)?,
        ))
    }
}

/// Text with every quote (`{figure}`, `{figure@k}`) replaced by what `say` makes of it;
/// braces that quote no figure are left as they are.
pub fn fill_with(text: &str, mut say: impl FnMut(Quote) -> String) -> String {
    let filled =
        crate::support::delimited::replace(text, "{", "}", |inside| quote(inside).map(&mut say));
    singular_after_one(&filled)
}

/// Nouns lesson texts count after a figure ("{corrections} corrections").
const COUNTED: [(&str, &str); 7] = [
    ("corrections", "correction"),
    ("moves", "move"),
    ("presses", "press"),
    ("dashes", "dash"),
    ("frames", "frame"),
    ("clients", "client"),
    ("sub-steps", "sub-step"),
];

/// A count of one reads in the singular: "1 corrections" → "1 correction" (a whole 1 only:
/// "1.0 sub-steps" and "21 moves" stay).
fn singular_after_one(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("1 ") {
        let whole_one = !rest[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_digit() || c == '.' || c == ',');
        out.push_str(&rest[..at + 2]);
        rest = &rest[at + 2..];
        if !whole_one {
            continue;
        }
        let word_end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '-'))
            .unwrap_or(rest.len());
        if let Some((_, one)) = COUNTED.iter().find(|(many, _)| *many == &rest[..word_end]) {
            out.push_str(one);
            rest = &rest[word_end..];
        }
    }
    out.push_str(rest);
    out
}

/// Text with every `{figure}` replaced by its value over `[t0, t1)` (`…` while it has no
/// data); braces that name no figure are left as they are.
pub fn fill(text: &str, store: &Store, t0: f64, t1: f64) -> String {
    fill_with(text, |q| {
        q.measure(store, t0, t1)
            .map_or_else(|| "…".to_string(), |(_, said)| said)
    })
}

/// The figures `text` quotes in a named state (`{name@k}`), with the state.
pub fn states_quoted(text: &str) -> impl Iterator<Item = (&'static str, usize)> + '_ {
    crate::support::delimited::tokens(text, "{", "}")
        .filter_map(quote)
        .filter_map(|q| Some((q.def.name, q.state?)))
}

/// The quotes between braces in `text` that are not figures (a preset's lesson is refused
/// with them).
pub fn unknown_in(text: &str) -> Vec<String> {
    crate::support::delimited::tokens(text, "{", "}")
        .filter(|inside| quote(inside).is_none())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_of_one_reads_in_the_singular() {
        assert_eq!(
            singular_after_one(
                "1 corrections in the last 10 s, 21 moves, 1.0 sub-steps, 11 dashes"
            ),
            "1 correction in the last 10 s, 21 moves, 1.0 sub-steps, 11 dashes"
        );
        assert_eq!(singular_after_one("(1 moves)"), "(1 move)");
        assert_eq!(singular_after_one("1 correctionsX"), "1 correctionsX");
        assert_eq!(singular_after_one("ends with 1 "), "ends with 1 ");
    }
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
        // A mean whose points lie far apart says their range (the plot shows both).
        assert_eq!(
            fill("{rtt_ms}", &store, 0.0, 10.0),
            "250 ms (range 200 to 300 ms)"
        );
        store.ingest(&Record {
            t: 3.0,
            machine: Machine::Client(0),
            event: Event::Rtt { rtt: 0.25 },
        });
        assert_eq!(fill("{rtt_ms}", &store, 2.5, 10.0), "250 ms", "one point");
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
