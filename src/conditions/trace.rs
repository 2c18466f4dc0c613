//! Network traces: a real link's round trips and losses over time, replayed by the link model
//! instead of its latency, jitter and random loss (docs/presets.md, "Traces").
//!
//! Sans-IO: [`parse`] takes the text of a file; reading it is the caller's. Formats:
//! - the output of `ping` on Linux and macOS (`… icmp_seq=N … time=12.3 ms`; a sequence number
//!   that never answered is a loss; "Request timeout for icmp_seq N" and "no answer yet for
//!   icmp_seq=N" lines too; the interval from the statistics line, else 1 s);
//! - the output of `ping` on Windows (`Reply from …: bytes=32 time=9ms TTL=…`, `time<1ms`,
//!   "Request timed out." for a loss; one a second);
//! - a CSV with a header: `time_s` and either `rtt_ms` (round trip) or `one_way_ms` (doubled to a
//!   round trip), and optionally `lost` (1/0, true/false); a row without a delay is lost.
//!
//! Replay ([`Replay`]): a packet sent at session time `t` reads the sample at `t` (the trace
//! looped, or stretched over `stretch_s`); each direction is delayed by half that sample's
//! round trip (lost samples take their nearest answered neighbour's), and is lost with
//! probability `1 − √(1 − L)`, where `L` is the fraction of lost samples in the 11 around it
//! — so a round trip is lost with probability `L`, the trace's loss on average, and a run of
//! losses in the trace is a burst in the session.

use serde::{Deserialize, Serialize};

use crate::support::text::quoted;

/// A trace: round trips (ms; `None` for a loss) at times (s from its start).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// Where it came from (a file name).
    pub source: String,
    /// (time s, round trip ms or lost), in time order.
    pub samples: Vec<(f64, Option<f64>)>,
}

/// Why a trace could not be read: the line (1-based) and what was expected.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceError {
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

/// Samples a trace may hold (a day of pings at 5 a second).
pub const MAX_SAMPLES: usize = 500_000;
/// Round trips a trace may claim (ms).
pub const MAX_RTT_MS: f64 = 60_000.0;

/// Seconds a trace may span (a week).
pub const MAX_TRACE_S: f64 = 7.0 * 86_400.0;

fn number_after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(key)? + key.len();
    let rest = &line[at..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The whole value after `key` (to the next space, without a trailing `ms`): what a ping line
/// says, so `time=1e300 ms`, `time=1,2 ms` or `time=0x10 ms` is read as written and refused,
/// not as its leading digits.
fn token_after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(key)? + key.len();
    let rest = &line[at..];
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let v = &rest[..end];
    Some(v.strip_suffix("ms").unwrap_or(v))
}

/// A plain decimal number (`12`, `12.5`, `0.083`): digits with at most one point. Exponents,
/// signs, commas, hexadecimal, `NaN` and `inf` are not.
fn plain_decimal(v: &str) -> Option<f64> {
    let v = v.trim();
    let digits = v.chars().filter(char::is_ascii_digit).count();
    let points = v.chars().filter(|c| *c == '.').count();
    (digits > 0 && points <= 1 && digits + points == v.len())
        .then(|| v.parse().ok())
        .flatten()
}

/// Parses a trace (see the module's formats); `source` names it.
pub fn parse(text: &str, source: &str) -> Result<Trace, TraceError> {
    // Spreadsheet programs start a CSV with a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .ok_or(TraceError {
            line: None,
            message: "an empty file: expected ping output or a CSV with a header".into(),
        })?;
    let lower = first.to_ascii_lowercase();
    let samples = if lower.contains("time_s") {
        parse_csv(text)?
    } else if text.contains("icmp_seq") {
        parse_unix_ping(text)?
    } else if text.contains("Reply from") || text.contains("Request timed out") {
        parse_windows_ping(text)?
    } else {
        return Err(TraceError {
            line: Some(1),
            message: "expected ping output (Linux, macOS or Windows) or a CSV whose header has time_s and rtt_ms or one_way_ms".into(),
        });
    };
    if samples.len() < 2 {
        return Err(TraceError {
            line: None,
            message: format!(
                "expected at least 2 samples, found {} (ping output lines with a time, or CSV rows)",
                samples.len()
            ),
        });
    }
    if samples.len() > MAX_SAMPLES {
        return Err(TraceError {
            line: None,
            message: format!(
                "expected at most {MAX_SAMPLES} samples, found {}",
                samples.len()
            ),
        });
    }
    if samples.iter().all(|(_, r)| r.is_none()) {
        return Err(TraceError {
            line: None,
            message: "every sample is lost: expected at least one round trip".into(),
        });
    }
    Ok(Trace {
        source: source.to_string(),
        samples,
    })
}

fn rtt_value(v: &str, line: usize) -> Result<f64, TraceError> {
    let x: f64 = plain_decimal(v).ok_or_else(|| TraceError {
        line: Some(line),
        message: format!(
            "expected a delay in milliseconds as a plain decimal number (e.g. 12.3), found {}",
            quoted(v)
        ),
    })?;
    if !(x.is_finite() && (0.0..=MAX_RTT_MS).contains(&x)) {
        return Err(TraceError {
            line: Some(line),
            message: format!("expected a delay from 0 to {MAX_RTT_MS} ms, found {x}"),
        });
    }
    Ok(x)
}

fn parse_unix_ping(text: &str) -> Result<Vec<(f64, Option<f64>)>, TraceError> {
    let mut answered: std::collections::BTreeMap<u64, f64> = Default::default();
    let mut timed_out: std::collections::BTreeSet<u64> = Default::default();
    let mut interval = 1.0;
    let mut transmitted: Option<u64> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.contains("packets transmitted") {
            transmitted = line
                .split_whitespace()
                .next()
                .and_then(|w| w.parse::<u64>().ok());
            // Linux: "…, 0% packet loss, time 101903ms"
            if let (Some(tx), Some(ms)) = (transmitted, number_after(line, "time ")) {
                let ms: f64 = ms.parse().unwrap_or(0.0);
                if tx > 1 && ms > 0.0 {
                    interval = ms / 1000.0 / (tx - 1) as f64;
                }
            }
            continue;
        }
        let Some(seq) = number_after(line, "icmp_seq=")
            .or_else(|| number_after(line, "icmp_seq "))
            .and_then(|s| s.parse::<u64>().ok())
        else {
            continue;
        };
        if line.contains("time=") {
            let v = token_after(line, "time=").unwrap_or_default();
            answered.insert(seq, rtt_value(v, n)?);
        } else if line.contains("timeout") || line.contains("no answer") {
            timed_out.insert(seq);
        }
    }
    let first = answered
        .keys()
        .chain(timed_out.iter())
        .min()
        .copied()
        .unwrap_or(0);
    let mut last = answered
        .keys()
        .chain(timed_out.iter())
        .max()
        .copied()
        .unwrap_or(0);
    if let Some(tx) = transmitted {
        // Pings sent after the last answer and never answered are losses too.
        last = last.max(first + tx.saturating_sub(1));
    }
    if last - first >= MAX_SAMPLES as u64 {
        return Err(TraceError {
            line: None,
            message: format!("expected at most {MAX_SAMPLES} samples"),
        });
    }
    Ok((first..=last)
        .map(|s| ((s - first) as f64 * interval, answered.get(&s).copied()))
        .collect())
}

fn parse_windows_ping(text: &str) -> Result<Vec<(f64, Option<f64>)>, TraceError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = out.len() as f64;
        if line.contains("Reply from") {
            // A reply without a time is not a round trip (a "Destination host unreachable"
            // reply from a router): a loss.
            let v = token_after(line, "time=").or_else(|| token_after(line, "time<"));
            match v {
                Some(v) => out.push((t, Some(rtt_value(v, i + 1)?))),
                None => out.push((t, None)),
            }
        } else if line.contains("Request timed out") || line.contains("unreachable") {
            out.push((t, None));
        }
    }
    Ok(out)
}

fn parse_csv(text: &str) -> Result<Vec<(f64, Option<f64>)>, TraceError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((hn, header)) = lines.next() else {
        return Ok(Vec::new());
    };
    let cols: Vec<String> = header
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    let find = |name: &str| cols.iter().position(|c| c == name);
    let time = find("time_s").ok_or(TraceError {
        line: Some(hn + 1),
        message: "expected a header with time_s".into(),
    })?;
    let (delay, factor) = match (find("rtt_ms"), find("one_way_ms")) {
        (Some(c), _) => (c, 1.0),
        (None, Some(c)) => (c, 2.0),
        (None, None) => {
            return Err(TraceError {
                line: Some(hn + 1),
                message: "expected a header with rtt_ms or one_way_ms".into(),
            });
        }
    };
    let lost = find("lost");
    let mut out: Vec<(f64, Option<f64>)> = Vec::new();
    for (i, line) in lines {
        let n = i + 1;
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() > cols.len() {
            return Err(TraceError {
                line: Some(n),
                message: format!(
                    "expected at most {} fields as in the header, found {} (write decimals with a point: 0.25, not 0,25)",
                    cols.len(),
                    f.len()
                ),
            });
        }
        let t: f64 = f
            .get(time)
            .and_then(|v| plain_decimal(v))
            .filter(|t: &f64| *t <= MAX_TRACE_S)
            .ok_or_else(|| TraceError {
                line: Some(n),
                message: format!(
                    "expected time_s as seconds from 0 to {MAX_TRACE_S} in a plain decimal number, found {}",
                    quoted(f.get(time).copied().unwrap_or(""))
                ),
            })?;
        if out.last().is_some_and(|(p, _)| t <= *p) {
            return Err(TraceError {
                line: Some(n),
                message: format!("expected time_s after the previous row's, found {t}"),
            });
        }
        let is_lost = match lost.and_then(|c| f.get(c)) {
            None | Some(&"") => false,
            Some(v) => match v.to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" => true,
                "0" | "false" | "no" => false,
                other => {
                    return Err(TraceError {
                        line: Some(n),
                        message: format!(
                            "expected lost as 1/0 or true/false, found {}",
                            quoted(other)
                        ),
                    });
                }
            },
        };
        let d = f.get(delay).copied().unwrap_or("");
        let rtt = if is_lost || d.is_empty() {
            None
        } else {
            Some(rtt_value(d, n)? * factor)
        };
        out.push((t, rtt));
        if out.len() > MAX_SAMPLES {
            break;
        }
    }
    Ok(out)
}

/// A trace's statistics.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceStats {
    pub samples: usize,
    pub seconds: f64,
    /// Seconds between samples (median).
    pub interval_s: f64,
    pub rtt_mean_ms: f64,
    pub rtt_p50_ms: f64,
    pub rtt_p99_ms: f64,
    pub rtt_min_ms: f64,
    pub rtt_max_ms: f64,
    /// Fraction of samples lost.
    pub loss: f64,
    /// Runs of consecutive losses: how many, mean and longest length (samples).
    pub bursts: usize,
    pub burst_mean: f64,
    pub burst_max: usize,
}

/// The `q` quantile (0–1) of sorted values (nearest rank).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

impl Trace {
    /// Median seconds between samples.
    pub fn interval(&self) -> f64 {
        let mut d: Vec<f64> = self.samples.windows(2).map(|w| w[1].0 - w[0].0).collect();
        d.sort_by(f64::total_cmp);
        d.get(d.len() / 2).copied().unwrap_or(1.0).max(1e-3)
    }

    /// Seconds the trace covers (its last sample holds for one interval).
    pub fn duration(&self) -> f64 {
        self.samples.last().map_or(0.0, |s| s.0) + self.interval()
    }

    pub fn stats(&self) -> TraceStats {
        let mut rtts: Vec<f64> = self.samples.iter().filter_map(|s| s.1).collect();
        rtts.sort_by(f64::total_cmp);
        let lost = self.samples.iter().filter(|s| s.1.is_none()).count();
        let mut runs = Vec::new();
        let mut run = 0usize;
        for s in &self.samples {
            if s.1.is_none() {
                run += 1;
            } else if run > 0 {
                runs.push(run);
                run = 0;
            }
        }
        if run > 0 {
            runs.push(run);
        }
        TraceStats {
            samples: self.samples.len(),
            seconds: self.duration(),
            interval_s: self.interval(),
            rtt_mean_ms: rtts.iter().sum::<f64>() / rtts.len().max(1) as f64,
            rtt_p50_ms: quantile(&rtts, 0.5),
            rtt_p99_ms: quantile(&rtts, 0.99),
            rtt_min_ms: rtts.first().copied().unwrap_or(f64::NAN),
            rtt_max_ms: rtts.last().copied().unwrap_or(f64::NAN),
            loss: lost as f64 / self.samples.len().max(1) as f64,
            bursts: runs.len(),
            burst_mean: if runs.is_empty() {
                0.0
            } else {
                runs.iter().sum::<usize>() as f64 / runs.len() as f64
            },
            burst_max: runs.iter().copied().max().unwrap_or(0),
        }
    }
}

/// Half-width of the window a sample's loss rate is taken over.
const LOSS_WINDOW: usize = 5;

/// A trace ready to replay: per sample, the one-way delay (s) and the chance a packet in one
/// direction is lost.
#[derive(Clone, Debug)]
pub struct Replay {
    times: Vec<f64>,
    delay: Vec<f64>,
    loss: Vec<f64>,
    duration: f64,
    stretch_s: f64,
}

impl Replay {
    /// `stretch_s` > 0: the trace is stretched (or squeezed) over that many seconds; 0: looped.
    pub fn new(trace: &Trace, stretch_s: f64) -> Replay {
        let n = trace.samples.len();
        let times: Vec<f64> = trace.samples.iter().map(|s| s.0).collect();
        // Lost samples take the nearest answered neighbour's delay.
        let mut delay = vec![f64::NAN; n];
        let mut last = None;
        for (i, s) in trace.samples.iter().enumerate() {
            if let Some(r) = s.1 {
                last = Some(r);
            }
            if let Some(r) = s.1.or(last) {
                delay[i] = r;
            }
        }
        let mut next = None;
        for i in (0..n).rev() {
            if let Some(r) = trace.samples[i].1 {
                next = Some(r);
            }
            if delay[i].is_nan()
                && let Some(r) = next
            {
                delay[i] = r;
            }
        }
        let delay = delay.iter().map(|r| r / 2000.0).collect();
        let lost: Vec<bool> = trace.samples.iter().map(|s| s.1.is_none()).collect();
        let w = LOSS_WINDOW.min(n.saturating_sub(1) / 2);
        let loss = (0..n)
            .map(|i| {
                let k = (0..=2 * w).filter(|j| lost[(i + n + j - w) % n]).count();
                let rt = k as f64 / (2 * w + 1) as f64;
                1.0 - (1.0 - rt).max(0.0).sqrt()
            })
            .collect();
        Replay {
            times,
            delay,
            loss,
            duration: trace.duration(),
            stretch_s,
        }
    }

    /// The sample a packet sent at session time `t` reads.
    fn index(&self, t: f64) -> usize {
        let at = if self.stretch_s > 0.0 {
            (t.max(0.0) * self.duration / self.stretch_s).min(self.duration)
        } else {
            t.max(0.0).rem_euclid(self.duration)
        };
        self.times
            .partition_point(|&x| x <= at)
            .saturating_sub(1)
            .min(self.times.len() - 1)
    }

    /// (one-way delay s, chance of loss) for a packet sent at `t`.
    pub fn at(&self, t: f64) -> (f64, f64) {
        let i = self.index(t);
        (self.delay[i], self.loss[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_from_a_spreadsheet_with_a_bom_reads_and_a_decimal_comma_is_refused_with_its_line() {
        let t = parse("\u{feff}time_s,rtt_ms\n0,20\n0.5,22.5\n", "x").unwrap();
        assert_eq!(t.samples, vec![(0.0, Some(20.0)), (0.5, Some(22.5))]);
        let e = parse("time_s,rtt_ms\n0,20\n0,2,1,2\n", "x").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("expected at most 2 fields"), "{e}");
        assert!(e.message.contains("0.25, not 0,25"), "{e}");
    }

    #[test]
    fn a_huge_or_escaping_field_is_quoted_short_and_escaped() {
        let field = "9".repeat(50_000_000);
        let e = parse(&format!("time_s,rtt_ms\n0,20\n1,{field}x\n"), "x").unwrap_err();
        assert!(e.message.len() < 400, "{} bytes", e.message.len());
        assert!(
            e.message.contains("more characters"),
            "{}",
            &e.message[..200]
        );
        let e = parse("time_s,rtt_ms\n0,20\n1,\u{1b}[2J\n", "x").unwrap_err();
        assert!(
            !e.message.contains('\u{1b}') && e.message.contains("\\u{1b}"),
            "{e}"
        );
    }

    #[test]
    fn linux_ping_output_with_gaps_and_a_statistics_line() {
        let text = "PING 10.0.0.1 (10.0.0.1) 56(84) bytes of data.\n\
64 bytes from 10.0.0.1: icmp_seq=1 ttl=64 time=10.5 ms\n\
64 bytes from 10.0.0.1: icmp_seq=2 ttl=64 time=12 ms\n\
no answer yet for icmp_seq=3\n\
64 bytes from 10.0.0.1: icmp_seq=5 ttl=64 time=11.0 ms\n\
\n--- 10.0.0.1 ping statistics ---\n\
6 packets transmitted, 3 received, 50% packet loss, time 1000ms\n";
        let t = parse(text, "x").unwrap();
        assert_eq!(
            t.samples,
            vec![
                (0.0, Some(10.5)),
                (0.2, Some(12.0)),
                (0.4, None),
                (0.6000000000000001, None),
                (0.8, Some(11.0)),
                (1.0, None),
            ]
        );
        let s = t.stats();
        assert_eq!(s.loss, 0.5);
        assert_eq!((s.bursts, s.burst_max), (2, 2));
    }

    #[test]
    fn macos_and_windows_ping_output() {
        let mac = "64 bytes from 1.1.1.1: icmp_seq=0 ttl=57 time=20.1 ms\nRequest timeout for icmp_seq 1\n64 bytes from 1.1.1.1: icmp_seq=2 ttl=57 time=22.9 ms\n";
        let t = parse(mac, "m").unwrap();
        assert_eq!(
            t.samples,
            vec![(0.0, Some(20.1)), (1.0, None), (2.0, Some(22.9))]
        );
        let win = "Pinging 8.8.8.8 with 32 bytes of data:\r\nReply from 8.8.8.8: bytes=32 time=9ms TTL=64\r\nRequest timed out.\r\nReply from 8.8.8.8: bytes=32 time<1ms TTL=64\r\n";
        let t = parse(win, "w").unwrap();
        assert_eq!(
            t.samples,
            vec![(0.0, Some(9.0)), (1.0, None), (2.0, Some(1.0))]
        );
    }

    #[test]
    fn csv_with_round_trips_or_one_way_delays_and_errors_with_lines() {
        let t = parse("time_s,rtt_ms,lost\n0,40,0\n0.5,,1\n1.0,44,0\n", "c").unwrap();
        assert_eq!(
            t.samples,
            vec![(0.0, Some(40.0)), (0.5, None), (1.0, Some(44.0))]
        );
        let t = parse("time_s,one_way_ms\n0,20\n1,22\n", "c").unwrap();
        assert_eq!(t.samples, vec![(0.0, Some(40.0)), (1.0, Some(44.0))]);
        let e = parse("time_s,rtt_ms\n0,40\n0,41\n", "c").unwrap_err();
        assert_eq!(e.line, Some(3));
        let e = parse("time_s,rtt_ms\n0,40\n1,fast\n", "c").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("milliseconds"), "{e}");
        let e = parse("time_s,latency\n0,40\n", "c").unwrap_err();
        assert!(e.message.contains("rtt_ms"), "{e}");
        assert!(parse("hello\n", "c").is_err());
        assert!(parse("", "c").is_err());
    }

    #[test]
    fn replay_loops_holds_samples_and_spreads_loss_over_its_window() {
        let mut samples: Vec<(f64, Option<f64>)> =
            (0..100).map(|i| (f64::from(i), Some(100.0))).collect();
        samples[50].1 = None;
        let t = Trace {
            source: "t".into(),
            samples,
        };
        let r = Replay::new(&t, 0.0);
        assert_eq!(r.at(3.5), (0.05, 0.0));
        // Looped: 100 s later, the same sample.
        assert_eq!(r.at(103.5), r.at(3.5));
        // Around the lost sample one in eleven round trips is lost.
        let (d, q) = r.at(50.2);
        assert_eq!(d, 0.05, "a lost sample takes its neighbour's delay");
        let rt = 1.0 - (1.0 - q) * (1.0 - q);
        assert!((rt - 1.0 / 11.0).abs() < 1e-12, "{rt}");
        // The mean round-trip loss over the trace is the trace's loss.
        let mean: f64 = (0..100)
            .map(|i| {
                let q = r.at(f64::from(i) + 0.5).1;
                1.0 - (1.0 - q) * (1.0 - q)
            })
            .sum::<f64>()
            / 100.0;
        assert!((mean - 0.01).abs() < 1e-12, "{mean}");
        // Stretched over 50 s: twice as fast.
        let r = Replay::new(&t, 50.0);
        assert_eq!(r.index(25.0), 50);
    }

    #[test]
    fn a_fitted_profile_has_the_trace_s_floor_and_bursts() {
        let samples: Vec<(f64, Option<f64>)> = (0..1000)
            .map(|i| {
                let r = if (i / 100) % 2 == 0 { 40.0 } else { 60.0 };
                (f64::from(i), if i % 97 < 3 { None } else { Some(r) })
            })
            .collect();
        let t = Trace {
            source: "t".into(),
            samples,
        };
        let p = crate::conditions::link::LinkParams::fit(&t);
        assert!(p.validate().is_ok());
        assert!(p.latency_ms >= 20.0 && p.latency_ms <= 30.0, "{p:?}");
        assert!((p.burst_exit - 1.0 / 3.0).abs() < 0.05, "{p:?}");
        // 11 runs of 3 in about 970 answered samples, half of it each way.
        assert!((p.burst_enter - 11.0 / 967.0 / 2.0).abs() < 1e-3, "{p:?}");
        assert!(p.burst_enter > 0.0);
    }
}
