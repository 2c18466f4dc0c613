//! Conditions from network traces: a session driven by a trace reproduces its round trips and
//! its loss (virtual time, seeded), and the command line reads ping output and CSV.

use movescope::conditions::trace::{parse, quantile};
use movescope::model::telemetry::{Event, Machine, PacketFate};
use movescope::support::rng::Rng;

mod common;

/// Linux `ping` output of `n` pings at 1 s: a floor, skewed jitter, a congested stretch, and
/// runs of losses (1–4 in a row), from a seeded generator (a stand-in for a recorded trace:
/// what is tested is the replay, not the network).
fn ping_output(n: u64, seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let mut out = String::from("PING 192.0.2.1 (192.0.2.1) 56(84) bytes of data.\n");
    let mut lost_run = 0;
    let mut received = 0;
    for seq in 1..=n {
        if lost_run == 0 && rng.f64() < 0.008 {
            lost_run = 1 + (rng.f64() * 4.0) as u32;
        }
        if lost_run > 0 {
            lost_run -= 1;
            continue;
        }
        let congested = (200..260).contains(&seq);
        let jitter = -((1.0 - rng.f64()).max(1e-9)).ln() * if congested { 40.0 } else { 8.0 };
        let rtt = 42.0 + jitter;
        out.push_str(&format!(
            "64 bytes from 192.0.2.1: icmp_seq={seq} ttl=57 time={rtt:.2} ms\n"
        ));
        received += 1;
    }
    out.push_str(&format!(
        "\n--- 192.0.2.1 ping statistics ---\n{n} packets transmitted, {received} received, {:.1}% packet loss, time {}ms\n",
        100.0 * (n - received) as f64 / n as f64,
        (n - 1) * 1000
    ));
    out
}

#[test]
fn a_session_driven_by_a_trace_reproduces_its_round_trips_and_loss() {
    let dir = common::TempDir::new("trace-replay");
    let file = dir.join("wifi.txt");
    std::fs::write(&file, ping_output(600, 11)).unwrap();
    let trace = parse(&std::fs::read_to_string(&file).unwrap(), "wifi.txt").unwrap();
    let want = trace.stats();
    assert_eq!(want.samples, 600);
    assert!(want.loss > 0.01 && want.bursts > 2, "{want:?}");
    let set = format!("link.trace={}", file.display());
    let (_, records) = common::run_collect(
        &[
            "clients=1",
            "ai_pawns=0",
            &set,
            "gmc.ping_interval=0.05",
            "seconds=600",
        ],
        600.0,
    );
    let mut rtts: Vec<f64> = records
        .iter()
        .filter_map(|r| match r.event {
            Event::Rtt { rtt } => Some(rtt * 1000.0),
            _ => None,
        })
        .collect();
    assert!(rtts.len() > 10_000, "{} pings", rtts.len());
    rtts.sort_by(f64::total_cmp);
    let mean = rtts.iter().sum::<f64>() / rtts.len() as f64;
    let p99 = quantile(&rtts, 0.99);
    let (mut sent, mut lost) = ([0u64; 2], [0u64; 2]);
    for r in &records {
        if let Event::Packet { from, fate, .. } = &r.event {
            let dir = usize::from(*from == Machine::Server);
            match fate {
                PacketFate::Sent => sent[dir] += 1,
                PacketFate::Dropped => lost[dir] += 1,
                _ => {}
            }
        }
    }
    let one_way = |d: usize| lost[d] as f64 / sent[d].max(1) as f64;
    let round_trip_loss = 1.0 - (1.0 - one_way(0)) * (1.0 - one_way(1));
    eprintln!(
        "session: mean {mean:.2} p99 {p99:.2} loss {round_trip_loss:.4} ({} pings); trace: mean {:.2} p99 {:.2} loss {:.4}",
        rtts.len(),
        want.rtt_mean_ms,
        want.rtt_p99_ms,
        want.loss
    );
    let within = |got: f64, want: f64| (got - want).abs() <= 0.05 * want;
    assert!(
        within(mean, want.rtt_mean_ms),
        "mean round trip {mean:.1} ms against the trace's {:.1} ms",
        want.rtt_mean_ms
    );
    assert!(
        within(p99, want.rtt_p99_ms),
        "p99 round trip {p99:.1} ms against the trace's {:.1} ms",
        want.rtt_p99_ms
    );
    assert!(
        (round_trip_loss - want.loss).abs() <= 0.01,
        "round-trip loss {round_trip_loss:.4} against the trace's {:.4}",
        want.loss
    );
}

#[test]
fn the_trace_command_prints_statistics_and_saves_a_fitted_preset() {
    let dir = common::TempDir::new("trace-cli");
    let file = dir.join("link.csv");
    let mut csv = String::from("time_s,rtt_ms,lost\n");
    for i in 0..300 {
        let lost = i % 50 == 7;
        let rtt = 80.0 + f64::from(i % 7) * 3.0;
        if lost {
            csv.push_str(&format!("{}.0,,1\n", i));
        } else {
            csv.push_str(&format!("{}.0,{rtt},0\n", i));
        }
    }
    std::fs::write(&file, csv).unwrap();
    let out_preset = dir.join("fitted.ron");
    let out = common::movescope_ok(&[
        "trace",
        file.to_str().unwrap(),
        "--fit",
        out_preset.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("300 samples"), "{text}");
    assert!(text.contains("loss 2.0 %"), "{text}");
    let fitted = movescope::session::preset::Preset::load(&out_preset).expect("a valid preset");
    assert!(fitted.link.trace.is_none());
    assert!(
        (fitted.link.latency_ms - 40.0).abs() < 10.0,
        "{:?}",
        fitted.link
    );
    // A malformed trace names its line.
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "time_s,rtt_ms\n0,10\n1,ten\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_movescope"))
        .args(["run", "--set", &format!("link.trace={}", bad.display())])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 3") && err.contains("milliseconds"),
        "{err}"
    );
}

#[test]
fn a_trace_that_cannot_be_read_and_one_that_is_not_a_trace_are_told_apart() {
    use movescope::session::preset::{LoadTraceError, load_trace};
    let dir = std::env::temp_dir().join(format!("movescope-load-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let missing = dir.join("missing.txt");
    let e = load_trace(&missing).expect_err("no such file");
    assert!(
        matches!(&e, LoadTraceError::Read { path, .. } if *path == missing),
        "{e:?}"
    );
    assert!(e.to_string().contains("cannot read"), "{e}");
    let garbage = dir.join("garbage.txt");
    std::fs::write(&garbage, "this is not ping output\nnor a csv\n").expect("write");
    let e = load_trace(&garbage).expect_err("not a trace");
    assert!(
        matches!(&e, LoadTraceError::Parse { path, .. } if *path == garbage),
        "{e:?}"
    );
    assert!(e.to_string().starts_with("trace "), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Times that are not plain decimal numbers in range are refused with their line, in every
/// format: Linux ping `time=1e300 ms`, `1e400`, `1,2`, `0x10` (read before as 1 and 0 ms),
/// Windows lines with NaN, inf or a negative time (skipped silently before), CSV
/// `time_s=1e300` (accepted before).
#[test]
fn times_that_are_not_plain_numbers_are_refused_with_their_line() {
    let linux = |t: &str| {
        format!(
            "PING 192.0.2.1 (192.0.2.1) 56(84) bytes of data.\n\
             64 bytes from 192.0.2.1: icmp_seq=1 ttl=57 time=12.5 ms\n\
             64 bytes from 192.0.2.1: icmp_seq=2 ttl=57 time={t} ms\n\
             64 bytes from 192.0.2.1: icmp_seq=3 ttl=57 time=13.0 ms\n"
        )
    };
    for t in ["1e300", "1e400", "1,2", "0x10", "-3", "NaN", "inf", "70000"] {
        let e = parse(&linux(t), "ping.txt").expect_err(t);
        assert_eq!(e.line, Some(3), "{t}: {e}");
        assert!(
            e.to_string().contains(&format!("{t:?}")) || t == "70000",
            "{t}: {e}"
        );
    }
    let ok = parse(&linux("12.75"), "ping.txt").expect("a plain number");
    assert_eq!(ok.samples[1].1, Some(12.75));
    let windows = |t: &str| {
        format!(
            "Pinging 192.0.2.1 with 32 bytes of data:\r\n\
             Reply from 192.0.2.1: bytes=32 time=9ms TTL=57\r\n\
             Reply from 192.0.2.1: bytes=32 time={t}ms TTL=57\r\n\
             Reply from 192.0.2.1: bytes=32 time<1ms TTL=57\r\n"
        )
    };
    for t in ["NaN", "inf", "-5", "1e300"] {
        let e = parse(&windows(t), "win.txt").expect_err(t);
        assert_eq!(e.line, Some(3), "{t}: {e}");
    }
    assert_eq!(
        parse(&windows("11"), "win.txt")
            .expect("fine")
            .samples
            .len(),
        3
    );
    for t in ["1e300", "NaN", "-1", "0x10", "1e3"] {
        let csv = format!("time_s,rtt_ms\n0,20\n{t},21\n");
        let e = parse(&csv, "t.csv").expect_err(t);
        assert_eq!(e.line, Some(3), "{t}: {e}");
        assert!(e.message.contains("time_s"), "{e}");
    }
    let e = parse("time_s,rtt_ms\n0,20\n1,2e1\n", "t.csv").expect_err("an exponent");
    assert_eq!(e.line, Some(3));
}
