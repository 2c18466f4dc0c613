//! The doctor on game logs written from GMC's own order of events (tests/gmclog/doctor/, each
//! scenario's EXPECTED.md says what an engineer should conclude), not from movescope's writer:
//! who found each desync, the first move the server rejected, every rejected move with its
//! values, the reply the client checked, and each cause supported, ruled out or undecidable
//! with the log lines that show it.

use std::path::PathBuf;

use movescope::analysis::doctor::{Answer, Cause, Diagnosis, Report, examine};
use movescope::gmclog::{Imported, Progress, assemble, names, scan};
use movescope::model::binding::Binding;
use movescope::model::telemetry::{Event, Machine, Record, SampleKind};

fn scenario_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/gmclog/doctor")
        .join(name)
}

fn logs(name: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(scenario_dir(name))
        .expect("the scenario exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    v.sort();
    v
}

struct Examined {
    imported: Imported,
    records: Vec<Record>,
    report: Report,
}

/// Imports a scenario's logs (named by the test component when `component`), and examines
/// them as `movescope doctor` does.
fn examine_logs(paths: &[PathBuf], component: bool) -> Examined {
    let (naming, bindings): (_, Vec<Binding>) = if component {
        let c = names::for_component(
            &[scenario_dir("component").join("StaminaMovementCmp.h")],
            None,
        )
        .expect("the test component binds values");
        (c.naming, c.bindings)
    } else {
        (movescope::gmclog::Naming::none(), Vec::new())
    };
    let progress = Progress::default();
    let s = scan(paths, &progress).expect("scans");
    let mut records = Vec::new();
    let imported = assemble(s, &naming, &progress, &mut |r| records.push(r)).expect("imports");
    let report = examine(&bindings, &records);
    Examined {
        imported,
        records,
        report,
    }
}

fn only(r: &Report) -> &Diagnosis {
    assert_eq!(r.diagnoses.len(), 1, "{}", r.to_text(5));
    &r.diagnoses[0]
}

fn answer(d: &Diagnosis, cause: Cause) -> Answer {
    d.verdicts
        .iter()
        .find(|v| v.cause == cause)
        .unwrap_or_else(|| panic!("no verdict on {cause:?}"))
        .answer
}

/// Every place the diagnosis quotes (its verdicts' quotes, its found lines, its rejections).
fn places(d: &Diagnosis) -> String {
    let mut s = String::new();
    for v in &d.verdicts {
        for q in &v.quotes {
            s += &q.line();
            s += "\n";
        }
    }
    for f in &d.found {
        s += f;
        s += "\n";
    }
    for r in &d.rejected {
        s += &r.describe();
        s += "\n";
    }
    s
}

fn ts_of(d: &Diagnosis) -> i64 {
    (d.timestamp.expect("the move's GMC timestamp") * 1e6).round() as i64
}

fn rejected_ts(d: &Diagnosis) -> Vec<i64> {
    d.rejected
        .iter()
        .map(|r| (r.timestamp * 1e6).round() as i64)
        .collect()
}

#[test]
fn found_by_the_client_alone_a_tick_that_diverged_from_equal_inputs() {
    let e = examine_logs(&logs("found-by-client"), false);
    let d = only(&e.report);
    assert_eq!(d.found_by, "client", "{}", e.report.to_text(1));
    assert_eq!(ts_of(d), 52_096_379);
    assert!(d.rejected.is_empty(), "the server accepted every move");
    assert_eq!(d.cause, Some(Cause::NonDeterministicTick));
    assert_eq!(answer(d, Cause::WrittenOutsideMove), Answer::RuledOut);
    assert_eq!(answer(d, Cause::ServerWroteOutsideMove), Answer::RuledOut);
    assert_eq!(answer(d, Cause::DeltaTimeDiffers), Answer::RuledOut);
    let p = places(d);
    assert!(
        p.contains("server validated move") || p.contains("server.log:"),
        "{p}"
    );
    assert!(
        p.contains("client.log:504"),
        "the client's per-value line:\n{p}"
    );
    assert_eq!(d.deviations[0].binding, "LinearVelocity");
}

#[test]
fn found_by_the_server_alone_a_write_between_two_server_moves() {
    for component in [false, true] {
        let e = examine_logs(&logs("found-by-server-alone"), component);
        let d = only(&e.report);
        assert_eq!(d.found_by, "server", "{}", e.report.to_text(1));
        assert_eq!(ts_of(d), 52_120_256, "the first move the server rejected");
        assert_eq!(rejected_ts(d), vec![52_120_256, 52_137_382, 52_154_529]);
        let first = &d.rejected[0].deviations[0];
        let name = if component {
            "Stamina"
        } else {
            "SinglePrecisionFloat[0]"
        };
        assert_eq!(first.binding, name);
        assert!((first.error - 10.0).abs() < 1e-3, "{first:?}");
        assert_eq!(
            d.cause,
            Some(Cause::ServerWroteOutsideMove),
            "{}",
            e.report.to_text(1)
        );
        assert_eq!(
            answer(d, Cause::WrittenOutsideMove),
            Answer::CannotTell,
            "no client log"
        );
        assert_eq!(answer(d, Cause::NonDeterministicTick), Answer::CannotTell);
        let p = places(d);
        assert!(
            p.contains("server.log:342") && p.contains("server.log:417"),
            "{p}"
        );
        if component {
            assert!(
                p.contains("StaminaMovementCmp.cpp:130"),
                "the write in the code:\n{p}"
            );
        }
        assert_eq!(
            d.replay_depth, None,
            "no client log: no replay in the records"
        );
    }
}

#[test]
fn two_moves_rejected_in_one_server_frame_and_a_client_side_write() {
    for component in [false, true] {
        let e = examine_logs(&logs("found-by-both-two-in-one-frame"), component);
        let d = only(&e.report);
        assert_eq!(d.found_by, "server and client", "{}", e.report.to_text(1));
        assert_eq!(
            ts_of(d),
            52_063_624,
            "the first rejected, not the reply's move"
        );
        assert_eq!(rejected_ts(d), vec![52_063_624, 52_080_063]);
        for r in &d.rejected {
            assert_eq!(r.deviations[0].binding, "ActorLocation");
        }
        let reply = d.reply_move.expect("the reply was another move's");
        assert_ne!(reply, d.move_id);
        assert_eq!(d.replay_depth, Some(7));
        assert_eq!(
            d.cause,
            Some(Cause::WrittenOutsideMove),
            "{}",
            e.report.to_text(1)
        );
        assert_eq!(answer(d, Cause::ServerWroteOutsideMove), Answer::RuledOut);
        assert_eq!(answer(d, Cause::NonDeterministicTick), Answer::RuledOut);
        let p = places(d);
        assert!(
            p.contains("client.log:104") && p.contains("client.log:115"),
            "{p}"
        );
        assert!(
            p.contains("server.log:429") && p.contains("server.log:494"),
            "{p}"
        );
        if component {
            assert!(p.contains("StaminaMovementCmp.cpp:114"), "{p}");
        }
    }
}

#[test]
fn a_server_side_write_with_both_logs() {
    let e = examine_logs(&logs("server-write-both-logs"), true);
    let d = only(&e.report);
    assert_eq!(d.found_by, "server and client");
    assert_eq!(ts_of(d), 52_049_435);
    assert_eq!(rejected_ts(d), vec![52_049_435, 52_066_143, 52_082_775]);
    assert!(
        d.rejected[2].in_flight,
        "the third was predicted before the correction came"
    );
    assert_eq!(
        d.cause,
        Some(Cause::ServerWroteOutsideMove),
        "{}",
        e.report.to_text(1)
    );
    assert_eq!(answer(d, Cause::WrittenOutsideMove), Answer::RuledOut);
    assert!(places(d).contains("StaminaMovementCmp.cpp:130"));
}

#[test]
fn a_pie_log_tick_divergence_with_equal_inputs() {
    let e = examine_logs(&logs("pie-tick-divergence"), false);
    assert_eq!(e.imported.scan.cast.clients.len(), 1, "no phantom client");
    let d = only(&e.report);
    assert_eq!(d.found_by, "server and client");
    assert_eq!(ts_of(d), 51_967_587);
    assert_eq!(rejected_ts(d), vec![51_967_587]);
    assert_eq!(d.cause, Some(Cause::NonDeterministicTick));
    assert_eq!(answer(d, Cause::WrittenOutsideMove), Answer::RuledOut);
    assert_eq!(answer(d, Cause::ServerWroteOutsideMove), Answer::RuledOut);
    // Without the component the same symptom is open to an unbound member.
    assert_eq!(answer(d, Cause::UnboundMember), Answer::CannotTell);
}

#[test]
fn gmc_1_logs_a_one_way_ping_and_locations_in_their_trace() {
    let e = examine_logs(&logs("v1-one-way-ping"), false);
    let rtts: Vec<f64> = e
        .records
        .iter()
        .filter_map(|r| match r.event {
            Event::Rtt { rtt } => Some(rtt),
            _ => None,
        })
        .collect();
    assert!(
        !rtts.is_empty() && rtts.iter().all(|r| (r - 0.080).abs() < 1e-9),
        "{rtts:?}"
    );
    for kind in [SampleKind::Predicted, SampleKind::Authoritative] {
        assert!(
            e.records
                .iter()
                .any(|r| matches!(&r.event, Event::PawnSample(s) if s.kind == kind)),
            "{kind:?} locations from the trace columns"
        );
    }
    let d = only(&e.report);
    assert_eq!(d.found_by, "server and client");
    assert_eq!(ts_of(d), 51_832_967);
    assert_eq!(d.rejected.len(), 7);
    assert_eq!(d.rejected.iter().filter(|r| r.in_flight).count(), 6);
    assert_eq!(
        d.cause,
        Some(Cause::NonDeterministicTick),
        "{}",
        e.report.to_text(1)
    );
}

#[test]
fn a_client_log_with_only_verbose_lines_cannot_tell_the_cause() {
    let e = examine_logs(&logs("client-log-only-verbose"), false);
    let r = &e.report;
    assert_eq!(r.diagnoses.len(), 3, "{}", r.to_text(5));
    assert_eq!(r.unexplained, 3);
    let depths: Vec<Option<u16>> = r.diagnoses.iter().map(|d| d.replay_depth).collect();
    assert_eq!(depths, vec![Some(5), Some(5), Some(7)]);
    for d in &r.diagnoses {
        assert_eq!(d.found_by, "client");
        assert_eq!(d.cause, None);
        let tick = d
            .verdicts
            .iter()
            .find(|v| v.cause == Cause::NonDeterministicTick)
            .expect("judged");
        assert_eq!(tick.answer, Answer::CannotTell);
        assert!(
            tick.would_tell
                .as_deref()
                .is_some_and(|w| w.contains("gmc.LogClientMoveTrace"))
        );
        assert!(
            d.found.iter().any(|f| f.contains("no server log")),
            "{:?}",
            d.found
        );
    }
}

/// Only the Verbose lines of both machines, with their UTC prefixes: the server's copy is the
/// client's (paired by the verdicts' timestamps), not a second client.
#[test]
fn verbose_lines_alone_pair_the_server_copy_with_its_client() {
    let dir = std::env::temp_dir().join(format!("movescope-verbose-only-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let mut paths = Vec::new();
    for f in ["server.log", "client.log"] {
        let text =
            std::fs::read(scenario_dir("found-by-both-two-in-one-frame").join(f)).expect("reads");
        let kept: Vec<&[u8]> = text
            .split(|b| *b == b'\n')
            .filter(|l| {
                let l = String::from_utf8_lossy(l);
                l.contains("Verbose: ") || l.contains("Log file")
            })
            .collect();
        let p = dir.join(f);
        std::fs::write(&p, kept.join(&b'\n')).expect("writes");
        paths.push(p);
    }
    let e = examine_logs(&paths, false);
    assert_eq!(e.imported.scan.cast.clients.len(), 1);
    let d = only(&e.report);
    assert_eq!(d.found_by, "server and client");
    assert_eq!(ts_of(d), 52_063_624);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `Client sent move i/n` lines are one batch of n moves (each followed by its own dumps).
#[test]
fn a_batch_of_n_sent_moves_is_one_batch() {
    let e = examine_logs(&logs("found-by-client"), false);
    let batches: Vec<u16> = e
        .records
        .iter()
        .filter(|r| matches!(r.machine, Machine::Client(_)))
        .filter_map(|r| match r.event {
            Event::MovesSent { new_moves, .. } => Some(new_moves),
            _ => None,
        })
        .collect();
    assert!(batches.iter().any(|n| *n >= 2), "{batches:?}");
}

/// Both files carry the engine's UTC date-times: the server's file takes the client's anchor,
/// so move ages are not read low by the fastest one-way trip.
#[test]
fn files_with_utc_prefixes_share_the_clients_anchor() {
    let e = examine_logs(&logs("found-by-both-two-in-one-frame"), false);
    let ages: Vec<f64> = e
        .records
        .iter()
        .filter_map(|r| match &r.event {
            Event::RemoteMoveExecuted(x) => Some(x.age),
            _ => None,
        })
        .collect();
    assert!(!ages.is_empty());
    let min = ages.iter().copied().fold(f64::INFINITY, f64::min);
    // One-way latency ~40 ms plus the server's frame: the shortest age is well above 0.
    assert!(min > 0.03, "ages {ages:?}");
    let source = e.imported.scan.cast.clocks[0].source.describe();
    assert!(!source.contains("shortest move age"), "{source}");
}

/// The examination stays within what the doctor's window shows: every verdict names a cause
/// once per desync, supported ones first.
#[test]
fn every_cause_is_answered_once_and_ranked() {
    for name in [
        "found-by-client",
        "found-by-server-alone",
        "found-by-both-two-in-one-frame",
        "server-write-both-logs",
        "pie-tick-divergence",
        "v1-one-way-ping",
        "client-log-only-verbose",
    ] {
        let e = examine_logs(&logs(name), true);
        for d in &e.report.diagnoses {
            let mut causes: Vec<Cause> = d.verdicts.iter().map(|v| v.cause).collect();
            causes.sort();
            causes.dedup();
            assert_eq!(
                causes.len(),
                d.verdicts.len(),
                "{name}: a cause answered twice"
            );
            assert_eq!(
                d.verdicts.len(),
                Cause::ALL.len(),
                "{name}: every cause on the checklist"
            );
            let answers: Vec<Answer> = d.verdicts.iter().map(|v| v.answer).collect();
            let mut sorted = answers.clone();
            sorted.sort();
            assert_eq!(answers, sorted, "{name}: supported, cannot tell, ruled out");
            assert_eq!(
                d.cause.is_some(),
                answers.first() == Some(&Answer::Supported)
            );
        }
    }
}
