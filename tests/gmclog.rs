//! Game logs: the round trip (a simulated session written as GMC would log it, imported back:
//! the same moves, corrections, replay depths and first deviating values, nothing invented)
//! and hand-written logs of what the simulator cannot produce (tests/gmclog/).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::TempDir;
use movescope::analysis::lint::{self, Rates};
use movescope::gmclog::import::{CUT_OFF, OTHER_CATEGORY, UNKNOWN_GMC};
use movescope::gmclog::write::{GmcLogWriter, Switches};
use movescope::gmclog::{Imported, Naming, Progress, assemble, names, scan, values};
use movescope::model::binding::{Binding, Value};
use movescope::model::telemetry::{Event, Machine, Record};
use movescope::session::preset::Preset;
use movescope::sim::run_deterministic;

/// A correction as a user compares it: client, GMC timestamp (µs), replay depth, and the
/// first deviating value's name with both values as GMC prints them.
type Seen = (u16, i64, u16, String, String, String);

fn run(name: &str, seconds: f64) -> (Preset, Vec<Record>) {
    let (mut p, _) = Preset::find(name).expect("shipped preset");
    p.value_trace = true;
    let mut records = Vec::new();
    run_deterministic(&p, name, seconds, &mut |r| records.push(r.clone())).expect("runs");
    (p, records)
}

fn write_logs(p: &Preset, records: &[Record], dir: &Path, switches: Switches) -> Vec<PathBuf> {
    let list = p.checked_bindings().expect("valid").list().to_vec();
    let listen = p.net_mode == movescope::model::settings::NetMode::Listen;
    let mut w =
        GmcLogWriter::create(dir, 1_767_225_600_000, &list, listen, switches).expect("log folder");
    for r in records {
        w.push(r).expect("writes");
    }
    w.finish().expect("finishes")
}

/// A component written for the test: it binds the session's values in its order, as GMC's
/// Bind functions, in a class deriving from a GMC class that binds nothing itself. GMC's
/// built-ins (location, velocity, …) are not among them: GMC keeps those itself.
fn component_for(list: &[Binding], dir: &Path) -> PathBuf {
    let mut cpp = String::from(
        "#include \"TestMoveCmp.h\"\n\nvoid UTestMoveCmp::BindReplicationData_Implementation()\n{\n    Super::BindReplicationData_Implementation();\n",
    );
    for b in list
        .iter()
        .filter(|b| values::integrated_name(b.field).is_none())
    {
        cpp += &format!(
            "    {}({}, EGMC_PredictionMode::{:?}, EGMC_CombineMode::{:?}, EGMC_SimulationMode::{:?}, EGMC_InterpolationFunction::{:?});\n",
            b.ty.gmc_function(),
            b.name,
            b.prediction,
            b.combine,
            b.simulation,
            b.interpolation
        );
    }
    cpp += "}\n";
    let header = "#pragma once\n#include \"Components/GMCMovementUtilityComponent.h\"\n#include \"TestMoveCmp.generated.h\"\n\nUCLASS()\nclass UTestMoveCmp : public UGMC_MovementUtilityCmp\n{\n    GENERATED_BODY()\npublic:\n    virtual void BindReplicationData_Implementation() override;\n    FVector2D input_move;\n    bool input_dash;\n    FVector location;\n    FRotator rotation;\n    FVector velocity;\n    float dash_cooldown;\n    uint8 dash_count;\n    float stride;\n    float move_ramp;\n    uint8 team;\n};\n";
    let h = dir.join("TestMoveCmp.h");
    std::fs::write(&h, header).expect("writes");
    std::fs::write(dir.join("TestMoveCmp.cpp"), cpp).expect("writes");
    dir.to_path_buf()
}

fn naming_from(component: &Path) -> Naming {
    let report = lint::lint_paths(&[component.to_path_buf()], Rates::of(&Preset::default()));
    let c = report
        .components
        .iter()
        .find(|c| !c.bindings.is_empty())
        .expect("the test component binds values");
    let (list, source) = names::component_list(c);
    Naming::from_list(&list, source)
}

fn import(logs: &[PathBuf], naming: &Naming) -> (Imported, Vec<Record>) {
    let progress = Progress::default();
    let s = scan(logs, &progress).expect("scans");
    let mut out = Vec::new();
    let imported = assemble(s, naming, &progress, &mut |r| out.push(r)).expect("imports");
    (imported, out)
}

/// Each client's move timestamps by move id (from its closed moves).
fn stamps(records: &[Record]) -> BTreeMap<(u16, u32), i64> {
    records
        .iter()
        .filter_map(|r| match (&r.machine, &r.event) {
            (
                Machine::Client(c),
                Event::MoveClosed {
                    move_id, timestamp, ..
                },
            ) => Some(((*c, *move_id), (timestamp * 1e6).round() as i64)),
            _ => None,
        })
        .collect()
}

fn corrections(
    records: &[Record],
    list: &[Binding],
    names_of: &dyn Fn(&str) -> String,
) -> Vec<Seen> {
    let ts = stamps(records);
    let mut out: Vec<Seen> = records
        .iter()
        .filter_map(|r| match (&r.machine, &r.event) {
            (
                Machine::Client(c),
                Event::Correction {
                    move_id,
                    deviations,
                    replay_depth,
                    ..
                },
            ) => {
                let d = deviations.first()?;
                let ty = list
                    .iter()
                    .find(|b| names_of(&b.name) == names_of(&d.binding))?
                    .ty;
                Some((
                    *c,
                    *ts.get(&(*c, *move_id))?,
                    *replay_depth,
                    names_of(&d.binding),
                    values::format(ty, &d.predicted),
                    values::format(ty, &d.authoritative),
                ))
            }
            _ => None,
        })
        .collect();
    out.sort();
    out
}

fn server_moves(records: &[Record]) -> Vec<(u16, i64)> {
    let mut v: Vec<(u16, i64)> = records
        .iter()
        .filter_map(|r| match &r.event {
            Event::RemoteMoveExecuted(x) => Some((x.client, (x.timestamp * 1e6).round() as i64)),
            _ => None,
        })
        .collect();
    v.sort();
    v
}

fn moves(records: &[Record]) -> Vec<(u16, i64, u16)> {
    let mut v: Vec<(u16, i64, u16)> = records
        .iter()
        .filter_map(|r| match (&r.machine, &r.event) {
            (
                Machine::Client(c),
                Event::MoveClosed {
                    timestamp, frames, ..
                },
            ) => Some((*c, (timestamp * 1e6).round() as i64, *frames)),
            _ => None,
        })
        .collect();
    v.sort();
    v
}

/// Equal lists, or a failure naming the first difference (never the whole lists).
fn same_lists<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T], what: &str) {
    if let Some(i) = (0..got.len().max(want.len())).find(|i| got.get(*i) != want.get(*i)) {
        panic!(
            "{what}: {} imported against {} simulated; first difference at {i}: imported {:?}, simulated {:?}",
            got.len(),
            want.len(),
            got.get(i),
            want.get(i)
        );
    }
}

/// The round trip of one scenario.
fn round_trip(name: &str, seconds: f64, expect_corrections: bool) {
    let dir = TempDir::new(&format!("gmclog-{name}"));
    let (p, sim) = run(name, seconds);
    let logs = write_logs(&p, &sim, &dir.join("logs"), Switches::ALL);
    let list = p.checked_bindings().expect("valid").list().to_vec();
    std::fs::create_dir_all(dir.join("src")).expect("folder");
    let naming = naming_from(&component_for(&list, &dir.join("src")));
    let (imported, got) = import(&logs, &naming);
    assert_eq!(
        imported.scan.cast.clients.len() as u16,
        p.network_clients().len() as u16
    );
    // A built-in deviates in a GMC log under its integrated type's name (`ActorLocation`).
    let gmc_name = |s: &str| {
        list.iter()
            .find(|b| &*b.name == s)
            .and_then(|b| values::integrated_name(b.field))
            .unwrap_or(s)
            .to_string()
    };
    let want = corrections(&sim, &list, &gmc_name);
    let have = corrections(&got, &list, &gmc_name);
    let all = sim
        .iter()
        .filter(|r| matches!(r.event, Event::Correction { .. }))
        .count();
    assert_eq!(
        want.is_empty(),
        !expect_corrections,
        "{name}: the scenario's corrections ({all} in all)"
    );
    same_lists(&have, &want, &format!("{name}: corrections"));
    same_lists(
        &moves(&got),
        &moves(&sim),
        &format!("{name}: moves, their timestamps and frames"),
    );
    same_lists(
        &server_moves(&got),
        &server_moves(&sim),
        &format!("{name}: server executions"),
    );
    assert_eq!(
        imported.skipped.total(),
        0,
        "{name}: every written line is read"
    );
}

#[test]
fn pitfall_01_round_trip() {
    round_trip("pitfall-01-unbound-member", 12.0, true);
}

/// Pitfalls 3 and 4 make no correction in their shipped presets (a one-shot raised twice, a
/// press lost in a combined move: the server agrees with what the client sent); their round
/// trip is the combined moves (3.8 frames per move at 120 fps) and the server's executions.
#[test]
fn pitfall_03_round_trip() {
    round_trip("pitfall-03-one-shot-not-sealed", 30.0, false);
}

#[test]
fn pitfall_04_round_trip() {
    round_trip("pitfall-04-dash-always-combine", 30.0, false);
}

#[test]
fn pitfall_10_round_trip() {
    round_trip("pitfall-10-binding-mismatch", 12.0, true);
}

#[test]
fn a_clean_session_imports_with_no_correction() {
    round_trip("default", 12.0, false);
}

/// Without the Verbose lines the log does not say which value deviated: the import keeps the
/// corrections (from the replay blocks) and invents no value.
#[test]
fn without_verbose_no_value_is_invented() {
    let dir = TempDir::new("gmclog-quiet");
    let (p, sim) = run("pitfall-01-unbound-member", 8.0);
    let quiet = Switches::ALL.without("verbose").expect("a switch");
    let logs = write_logs(&p, &sim, &dir.join("logs"), quiet);
    let (_, got) = import(&logs, &Naming::none());
    let sim_n = sim
        .iter()
        .filter(|r| matches!(r.event, Event::Correction { .. }))
        .count();
    let mut n = 0;
    for r in &got {
        if let Event::Correction { deviations, .. } = &r.event {
            n += 1;
            assert!(
                deviations.is_empty(),
                "no deviation without the Verbose lines"
            );
        }
    }
    assert_eq!(n, sim_n);
}

// ---- hand-written logs ----

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/gmclog")
        .join(name)
}

/// A correction's machine, move id, replay depth and deviating values (name, client's, server's).
type Found = (Machine, u32, u16, Vec<(String, Value, Value)>);

fn corrections_of(records: &[Record]) -> Vec<Found> {
    records
        .iter()
        .filter_map(|r| match &r.event {
            Event::Correction {
                move_id,
                deviations,
                replay_depth,
                ..
            } => Some((
                r.machine,
                *move_id,
                *replay_depth,
                deviations
                    .iter()
                    .map(|d| {
                        (
                            d.binding.to_string(),
                            d.predicted.clone(),
                            d.authoritative.clone(),
                        )
                    })
                    .collect(),
            )),
            _ => None,
        })
        .collect()
}

/// One PIE log: a listen server and two clients, a component deriving from GMC's organic
/// component, unknown lines, another category, a clock re-sync and a correction found by
/// the server.
#[test]
fn a_pie_log_with_a_listen_server_and_two_clients() {
    let naming = naming_from(&fixture("sprint"));
    let (imported, got) = import(&[fixture("pie-listen-two-clients.log")], &naming);
    let cast = &imported.scan.cast;
    assert_eq!(cast.clients.len(), 2, "{:?}", cast.clients);
    let names: Vec<&str> = cast.clients.iter().map(|(_, n)| n.as_str()).collect();
    // Numbered by first appearance: Ben's first move comes first.
    assert_eq!(names, ["Ben", "Ana"]);
    let c = corrections_of(&got);
    assert_eq!(c.len(), 1, "{c:?}");
    let (machine, _, depth, devs) = &c[0];
    assert_eq!(*machine, Machine::Client(0), "Ben's pawn was corrected");
    assert_eq!(*depth, 3);
    assert_eq!(
        devs[0].0, "Stamina",
        "SinglePrecisionFloat[2] after the organic component's two"
    );
    assert_eq!(devs[0].1, Value::Float(42.5));
    assert_eq!(devs[0].2, Value::Float(40.0));
    // Moves are the move trace's, each client's own; the server executed Ben's.
    let ben_moves = got
        .iter()
        .filter(|r| r.machine == Machine::Client(0) && matches!(r.event, Event::MoveClosed { .. }))
        .count();
    assert_eq!(ben_moves, 5);
    assert!(
        got.iter()
            .any(|r| matches!(&r.event, Event::RemoteMoveExecuted(x) if x.client == 0))
    );
    assert!(
        got.iter()
            .any(|r| matches!(r.event, Event::ClockSync { .. }))
    );
    let skipped = &imported.skipped.kinds;
    assert!(
        skipped.get(UNKNOWN_GMC).is_some_and(|k| k.count == 2),
        "{skipped:?}"
    );
    assert!(
        skipped.get(OTHER_CATEGORY).is_some_and(|k| k.line == 1),
        "{skipped:?}"
    );
}

/// GMC 1.x: a client's and a server's log, moves by TrackClientMove, the replay by
/// ClientReplayLog (3-decimal timestamps), the deviating value by "Bound data deviates".
#[test]
fn v1_logs_from_a_client_and_a_server() {
    let (imported, got) = import(
        &[fixture("v1-server.log"), fixture("v1-client.log")],
        &Naming::none(),
    );
    assert_eq!(imported.scan.v1_lines, imported.scan.gmc_lines);
    assert_eq!(
        imported.scan.cast.clients.len(),
        1,
        "the server's copy is paired"
    );
    let c = corrections_of(&got);
    assert_eq!(c.len(), 1, "{c:?}");
    let (machine, move_id, depth, devs) = &c[0];
    assert_eq!(*machine, Machine::Client(0));
    assert_eq!(*depth, 2, "two Replaying lines");
    assert_eq!(devs[0].0, "Float1");
    assert_eq!(devs[0].1, Value::Float(2.0), "the client's value");
    assert_eq!(devs[0].2, Value::Float(1.5), "the server's value");
    let ts = stamps(&got);
    assert_eq!(
        ts.get(&(0, *move_id)),
        Some(&12_100_000),
        "the 3-decimal source matched"
    );
}

/// A log cut off mid-line: everything before it is read, the cut line is counted, not read
/// as a short number.
#[test]
fn a_log_cut_off_mid_line() {
    let (imported, got) = import(&[fixture("cut-off.log")], &Naming::none());
    let cut = imported
        .skipped
        .kinds
        .get(CUT_OFF)
        .expect("the cut line is counted");
    assert_eq!(cut.count, 1);
    let moves = got
        .iter()
        .filter(|r| matches!(r.event, Event::MoveClosed { .. }))
        .count();
    assert_eq!(moves, 3);
}

#[test]
fn a_binary_file_is_named_as_such() {
    let dir = TempDir::new("gmclog-binary");
    let f = dir.join("game.log");
    std::fs::write(&f, [0u8, 159, 146, 150, 0, 1, 2, 3]).expect("writes");
    let err = scan(&[f], &Progress::default()).err().expect("refused");
    assert!(err.to_string().contains("binary"), "{err}");
}

#[test]
fn a_log_without_gmc_lines_says_what_to_turn_on() {
    let dir = TempDir::new("gmclog-empty");
    let f = dir.join("game.log");
    std::fs::write(
        &f,
        "[2026.01.01-00.00.00:000][  0]LogInit: Display: hello\n",
    )
    .expect("writes");
    let err = scan(&[f], &Progress::default()).err().expect("refused");
    assert!(
        err.to_string().contains("gmc.LogClientMoveTrace 1"),
        "{err}"
    );
}

/// Where the component's table binds fewer values of a type than the log prints, the import
/// says so (and those values keep GMC's own name).
#[test]
fn a_table_that_binds_fewer_values_than_the_log_prints_is_named() {
    use movescope::model::binding::BoundType;
    let naming = Naming::from_list(&[("Stamina".to_string(), BoundType::Float)], "test".into());
    let (imported, got) = import(&[fixture("pie-listen-two-clients.log")], &naming);
    assert_eq!(imported.beyond_table.get("SinglePrecisionFloat"), Some(&2));
    assert_eq!(imported.beyond_table.get("Bool"), Some(&3));
    let c = corrections_of(&got);
    assert_eq!(c[0].3[0].0, "SinglePrecisionFloat[2]");
    let (right, _) = import(
        &[fixture("pie-listen-two-clients.log")],
        &naming_from(&fixture("sprint")),
    );
    assert!(right.beyond_table.is_empty(), "{:?}", right.beyond_table);
}

/// The event log names a corrected move by GMC's timestamp too, so the lines can be found
/// again in the game's log.
#[test]
fn the_event_log_gives_a_corrected_moves_gmc_timestamp() {
    let (_, got) = import(
        &[fixture("pie-listen-two-clients.log")],
        &naming_from(&fixture("sprint")),
    );
    let mut store = movescope::session::store::Store::new(None);
    for r in &got {
        store.ingest(r);
    }
    let row = store
        .log()
        .iter()
        .find(|e| e.text.contains("corrected"))
        .expect("the correction's row");
    assert!(
        row.text.starts_with("move 3 corrected: Stamina"),
        "{}",
        row.text
    );
    assert!(
        row.text.ends_with("GMC timestamp 52.150000 s"),
        "{}",
        row.text
    );
}

/// A cancelled import leaves nothing behind: no recording, no partial file.
#[test]
fn a_cancelled_import_leaves_nothing_behind() {
    use movescope::gmclog::record::{ImportJob, partial_path, to_recording};
    let dir = TempDir::new("gmclog-cancel");
    let out = dir.join("cancelled.msrec");
    let job = ImportJob {
        logs: vec![fixture("pie-listen-two-clients.log")],
        naming: Naming::none(),
        bindings: Vec::new(),
        out: out.clone(),
    };
    let progress = Progress::default();
    progress
        .cancel
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let err = to_recording(&job, &progress).err().expect("cancelled");
    assert!(err.to_string().contains("cancelled"), "{err}");
    assert!(!out.exists());
    assert!(!partial_path(&out).exists());
}

/// The command line end to end: the logs `run --gmc-log` writes, imported with the demo
/// pawn's component, opened by `inspect` and explained by `doctor`.
#[test]
fn run_gmc_log_then_import_and_doctor() {
    let dir = TempDir::new("gmclog-cli");
    let logs = dir.join("logs");
    let rec = dir.join("imported.msrec");
    let logs_s = logs.to_string_lossy().to_string();
    common::movescope_ok(&[
        "run",
        "--preset",
        "pitfall-01-unbound-member",
        "--seconds",
        "6",
        "--gmc-log",
        &logs_s,
    ]);
    let mut args: Vec<String> = vec!["import".into()];
    for f in ["server.log", "client-0.log", "client-1.log", "client-2.log"] {
        args.push(logs.join(f).to_string_lossy().to_string());
    }
    args.extend(
        [
            "--component",
            "tests/gmclog/demo",
            "--out",
            &rec.to_string_lossy(),
        ]
        .map(String::from),
    );
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = common::movescope_ok(&argv);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("the server's copy of client 2's pawn"),
        "{text}"
    );
    assert!(
        text.contains("values named from UMovescopePawnCmp"),
        "{text}"
    );
    let out = common::movescope_ok(&["doctor", &rec.to_string_lossy(), "--list", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("GMC timestamp"), "{text}");
    assert!(
        // GMC's built-ins deviate under GMC's names for them.
        text.contains("LinearVelocity predicted") || text.contains("ActorLocation predicted"),
        "{text}"
    );
}
