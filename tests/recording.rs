//! Recordings: what `run --record` writes is what `inspect` and the app read back, damaged
//! files load every intact chunk without panicking (damage costs the chunk it hits), and a
//! killed recorder loses at most about a second.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use movescope::model::telemetry::Record;
use movescope::session::recording::{Footer, Header, Recorder, Recording, write_all};
use movescope::session::timeline::{TimeCommand, TimeControl};
use proptest::prelude::*;

fn movescope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_movescope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs")
}

/// Runs movescope with `args` and fails the test with its stderr if it fails.
fn ok(args: &[&str]) {
    let out = movescope(args);
    assert!(
        out.status.success(),
        "movescope {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `run <extra> --record R --summary-json A`, then `inspect R --summary-json B`: both summaries.
fn run_then_inspect(name: &str, extra: &[&str]) -> (serde_json::Value, serde_json::Value) {
    let d = tmp_dir(name);
    let (rec, a, b) = (d.join("r.msrec"), d.join("a.json"), d.join("b.json"));
    let mut args = vec!["run"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&[
        "--record",
        rec.to_str().unwrap(),
        "--summary-json",
        a.to_str().unwrap(),
    ]);
    ok(&args);
    ok(&[
        "inspect",
        rec.to_str().unwrap(),
        "--summary-json",
        b.to_str().unwrap(),
    ]);
    (json(&a), json(&b))
}

fn tmp_dir(name: &str) -> common::TempDir {
    common::TempDir::new(&format!("it-{name}"))
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("summary written")).expect("JSON")
}

#[test]
fn inspect_prints_the_summary_run_printed() {
    let (a, b) = run_then_inspect(
        "inspect",
        &[
            "--seconds",
            "8",
            "--set",
            "link.latency_ms=60",
            "--set",
            "link.loss=0.05",
            "--set",
            "faults.unbound_member=true",
        ],
    );
    assert!(
        a["clients"][0]["corrections"].as_u64().unwrap() > 0,
        "the pitfall shows"
    );
    assert_eq!(a, b, "inspect reproduces run's summary exactly");
}

#[test]
fn inspect_reproduces_a_live_run() {
    let (a, b) = run_then_inspect("live", &["--live", "--seconds", "2"]);
    assert_eq!(a["mode"], "live");
    assert!(a["packets"]["sent"].as_u64().unwrap() > 0);
    assert_eq!(a, b);
}

#[test]
fn a_live_recording_keeps_its_value_trace_for_the_doctor() {
    let d = tmp_dir("live-values");
    let rec = d.join("r.msrec");
    ok(&[
        "run",
        "--live",
        "--seconds",
        "3",
        "--set",
        "faults.unbound_member=true",
        "--set",
        "value_trace=true",
        "--record",
        rec.to_str().unwrap(),
    ]);
    let r = Recording::open(&rec).expect("opens");
    let (records, damage) = r.load_all();
    assert!(damage.is_none());
    let report = movescope::analysis::doctor::examine_recording(&r, &records);
    assert_eq!(report.value_trace, "recorded");
    assert!(report.corrections > 0, "the pitfall corrects");
    assert!(
        report.diagnoses.iter().any(|d| d.parted.is_some()),
        "{}",
        report.to_text(3)
    );
}

fn record_to(path: &Path, sets: &[&str], seconds: f64) -> Vec<Record> {
    let (summary, records) = common::run_collect(sets, seconds);
    let header = Header::new(&common::preset(sets), "test", "deterministic").expect("header");
    write_all(
        path,
        &header,
        records.clone(),
        Footer {
            simulated_seconds: summary.simulated_seconds,
            wall_seconds: summary.wall_seconds,
            dropped_records: 0,
        },
    )
    .expect("written");
    records
}

#[test]
fn same_seed_same_records_and_the_store_fills_alike() {
    let d = tmp_dir("same");
    let a = record_to(&d.join("a.msrec"), &["seed=5"], 3.0);
    let rec = Recording::open(&d.join("a.msrec")).expect("opens");
    let (back, damage) = rec.load_all();
    assert!(damage.is_none());
    assert_eq!(back, a, "every record comes back bit for bit");
    let b = record_to(&d.join("b.msrec"), &["seed=5"], 3.0);
    assert_eq!(a, b);
    // Seeking: the chunk for any time holds that time.
    for t in [0.0, 1.5, 2.9] {
        let i = rec.chunk_at(t).expect("a chunk");
        let c = rec.chunks[i];
        assert!(c.t_first <= t.max(rec.chunks[0].t_first));
        assert!(i + 1 == rec.chunks.len() || rec.chunks[i + 1].t_first > t);
    }
}

#[test]
fn the_time_control_walks_a_recorded_session() {
    let d = tmp_dir("walk");
    record_to(
        &d.join("w.msrec"),
        &["faults.unbound_member=true", "link.latency_ms=50"],
        6.0,
    );
    let rec = Recording::open(&d.join("w.msrec")).expect("opens");
    let mut store = movescope::session::store::Store::new(None);
    rec.for_each(&mut |r| store.ingest(&r)).expect("intact");
    let mut tc = TimeControl::at(0.0);
    let kinds = movescope::session::store::MarkKind::ALL.to_vec();
    tc.apply(
        TimeCommand::JumpMark {
            kinds: kinds.clone(),
            forward: true,
        },
        &store,
    );
    let first = tc.cursor();
    assert!(first > 0.0, "a correction to jump to");
    let near = store.log_between(first, first);
    assert!(
        !near.is_empty()
            && near[0].text.contains("predicted")
            && near[0].text.contains("but server"),
        "the log names the deviating value: {near:?}"
    );
    tc.apply(
        TimeCommand::StepMove {
            machine: movescope::model::telemetry::Machine::Client(0),
            forward: true,
        },
        &store,
    );
    assert!(tc.cursor() > first);
    let views = store.pawns_at(movescope::model::telemetry::Machine::Client(0), tc.cursor());
    assert!(!views.is_empty(), "the world view has pawns at the cursor");
}

fn damaged_case() -> &'static (Vec<u8>, Vec<Record>) {
    static CASE: std::sync::OnceLock<(Vec<u8>, Vec<Record>)> = std::sync::OnceLock::new();
    CASE.get_or_init(|| {
        let d = tmp_dir("fuzz-src");
        let p = d.join("f.msrec");
        let records = record_to(&p, &["clients=1", "ai_pawns=1"], 3.0);
        (std::fs::read(&p).expect("read"), records)
    })
}

fn check_damaged(bytes: &[u8], name: &str) -> Result<(), TestCaseError> {
    let (_, original) = damaged_case();
    let d = tmp_dir("fuzz");
    let p = d.join(name);
    std::fs::write(&p, bytes).expect("write");
    if let Ok(rec) = Recording::open(&p) {
        let (back, _damage) = rec.load_all();
        prop_assert!(back.len() <= original.len());
        prop_assert!(
            in_order_within(&back, original),
            "what loads is what was recorded, in its order, less the damaged chunks"
        );
        let _ = rec.summarize();
        let _ = rec.describe();
    }
    Ok(())
}

/// Whether `part` is `whole` with some records left out (order kept).
fn in_order_within(part: &[Record], whole: &[Record]) -> bool {
    let mut rest = whole.iter();
    part.iter().all(|r| rest.any(|w| w == r))
}

/// Bytes of a chunk to flip a bit in: every byte of its frame, and payload bytes at its start,
/// middle and end.
fn bytes_to_flip(start: usize, end: usize) -> Vec<usize> {
    const FRAME: usize = 44;
    let frame = start..(start + FRAME).min(end);
    let payload = [start + FRAME, start + FRAME + 1, (start + end) / 2, end - 1];
    frame
        .chain(payload.into_iter().filter(|b| *b < end))
        .collect()
}

#[test]
fn a_flipped_bit_anywhere_in_a_chunk_loses_that_chunk_and_nothing_else() {
    let (bytes, original) = damaged_case();
    let d = tmp_dir("flip");
    let p = d.join("intact.msrec");
    std::fs::write(&p, bytes).expect("write");
    let intact = Recording::open(&p).expect("opens");
    assert!(intact.chunks.len() >= 3, "a few chunks to damage");
    let chunks: Vec<Vec<Record>> = (0..intact.chunks.len())
        .map(|i| intact.read_chunk(i).expect("intact chunk"))
        .collect();
    assert_eq!(chunks.concat(), *original);
    for (i, chunk) in intact.chunks.iter().enumerate() {
        let mut want = chunks.clone();
        want.remove(i);
        let want = want.concat();
        // A chunk ends where the next begins; the last one's end is not public (the index
        // follows it), so only its frame and first payload bytes are flipped.
        let start = chunk.offset as usize;
        let end = match intact.chunks.get(i + 1) {
            Some(next) => next.offset as usize,
            None => start + 46,
        };
        for at in bytes_to_flip(start, end) {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[at] ^= 1 << bit;
                let q = d.join("flipped.msrec");
                std::fs::write(&q, &b).expect("write");
                let rec = Recording::open(&q).expect("a damaged chunk does not stop the open");
                let (back, damage) = rec.load_all();
                let Some(damage) = damage else {
                    // A bit nothing reads (the frame's reserved byte) changes nothing.
                    assert!(
                        back == *original,
                        "byte {at} bit {bit}: records changed unseen"
                    );
                    continue;
                };
                assert_eq!(damage.chunk as usize, i, "byte {at} bit {bit}: {damage}");
                assert!(
                    back == want,
                    "byte {at} bit {bit} of chunk {i}: {} records back, {} wanted ({damage})",
                    back.len(),
                    want.len()
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn truncated_files_load_a_prefix(cut in 0usize..100_000) {
        let (bytes, _) = damaged_case();
        let cut = cut % (bytes.len() + 1);
        check_damaged(&bytes[..cut], "trunc.msrec")?;
    }

    #[test]
    fn corrupted_files_never_panic(
        edits in proptest::collection::vec((0usize..1_000_000, any::<u8>()), 1..8),
        span in 0usize..64,
    ) {
        let (bytes, _) = damaged_case();
        let mut b = bytes.clone();
        for (at, v) in edits {
            let len = b.len();
            let at = at % len;
            let end = (at + span).min(len - 1);
            for x in &mut b[at..=end] {
                *x ^= v | 1;
            }
        }
        check_damaged(&b, "corrupt.msrec")?;
    }
}

#[test]
fn a_killed_recorder_loses_at_most_about_a_second() {
    let d = tmp_dir("kill");
    let path = d.join("k.msrec");
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_movescope"))
        .args([
            "run",
            "--live",
            "--seconds",
            "60",
            "--record",
            path.to_str().unwrap(),
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawns");
    // Wait (bounded) until a few chunks are on disk, then kill without warning.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let chunks = Recording::open(&path).map(|r| r.chunks.len()).unwrap_or(0);
        if chunks >= 3 {
            break;
        }
        assert!(Instant::now() < deadline, "no chunks written within 20 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(700));
    let lived = started.elapsed().as_secs_f64();
    child.kill().expect("kill");
    let _ = child.wait();
    let rec = Recording::open(&path).expect("a killed recording still opens");
    assert!(rec.footer.is_none(), "no index: it was killed");
    let (records, damage) = rec.load_all();
    if let Some(d) = damage {
        assert!(
            d.message.contains("ends inside"),
            "only a torn last chunk: {d}"
        );
    }
    let last = records.iter().map(|r| r.t).fold(0.0, f64::max);
    assert!(
        lived - last < 2.0,
        "lost {:.2} s (process lived {lived:.2} s, last record at {last:.2} s)",
        lived - last
    );
}

#[test]
fn a_recorder_dropped_without_finishing_is_read_by_scanning() {
    let d = tmp_dir("drop");
    let p = d.join("d.msrec");
    let (_, records) = common::run_collect(&[], 2.5);
    let header = Header::new(&common::preset(&[]), "test", "deterministic").expect("header");
    {
        let mut r = Recorder::create(&p, &header).expect("create");
        for x in &records {
            r.push(x).expect("push");
        }
    }
    let rec = Recording::open(&p).expect("opens");
    assert!(rec.footer.is_none() && rec.damage.is_none());
    let (back, damage) = rec.load_all();
    assert!(damage.is_none());
    assert_eq!(back, records);
}

#[test]
fn report_and_export_from_the_command_line() {
    let d = tmp_dir("report");
    let out_dir = d.join("r");
    let out = movescope(&[
        "report",
        "recordings/pitfall-01-unbound-member.msrec",
        "--at",
        "6",
        "--out",
        out_dir.to_str().unwrap(),
        "--no-picture",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let trimmed = Recording::open(&out_dir.join("session.msrec")).expect("opens");
    assert_eq!(trimmed.header.cursor, Some(6.0), "reopens at the cursor");
    let (first, last) = trimmed.span();
    assert!(
        first >= 0.0 && (6.0..=10.0).contains(&last),
        "{first}–{last}"
    );
    let md = std::fs::read_to_string(out_dir.join("summary.md")).expect("summary.md");
    assert!(
        md.contains("unbound_member") && md.contains("predicted"),
        "{md}"
    );
    movescope::session::preset::Preset::load(&out_dir.join("preset.ron"))
        .expect("the preset loads");
    let bad = movescope(&[
        "report",
        "recordings/pitfall-01-unbound-member.msrec",
        "--at",
        "99",
        "--out",
        "x",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected a time the recording holds"));

    let csv = d.join("x.csv");
    let out = movescope(&[
        "export",
        "recordings/net-01-high-latency.msrec",
        "--series",
        "rtt",
        "--from",
        "2",
        "--to",
        "8",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&csv).expect("csv");
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows[0], "series,machine,t_s,value,unit");
    assert!(rows.len() > 1 && rows[1..].iter().all(|r| r.starts_with("rtt,client ")));
    let bad = movescope(&[
        "export",
        "recordings/net-01-high-latency.msrec",
        "--series",
        "nope",
        "--out",
        "-",
    ]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected one of"));
}
