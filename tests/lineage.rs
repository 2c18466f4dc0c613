//! Move lineage over a shipped recording: a corrected move's whole journey, and a move that
//! replays re-ran.

use movescope::analysis::lineage::{Lineage, move_near};
use movescope::model::telemetry::{Event, Machine, Record};
use movescope::session::recording::Recording;

fn recording() -> Recording {
    Recording::open(
        &std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("recordings/pitfall-01-unbound-member.msrec"),
    )
    .expect("opens")
}

fn records() -> Vec<Record> {
    let (r, damage) = recording().load_all();
    assert!(damage.is_none());
    r
}

/// The lineage without bound values.
fn trace(records: &[Record], client: u16, m: u32) -> Option<Lineage> {
    let b = recording().header.bindings;
    movescope::analysis::lineage::trace(&b, records, &[], "not traced", client, m)
}

#[test]
fn a_corrected_move_from_frames_to_replay() {
    let records = records();
    // The first correction of client 1, from the doctor's point of view.
    let (t, m) = records
        .iter()
        .find_map(|r| match (&r.machine, &r.event) {
            (Machine::Client(1), Event::Correction { move_id, .. }) => Some((r.t, *move_id)),
            _ => None,
        })
        .expect("a correction");
    let l = trace(&records, 1, m).expect("traced");
    let what: Vec<&str> = l.steps.iter().map(|s| s.what.as_str()).collect();
    let find = |p: &str| {
        what.iter()
            .position(|w| w.starts_with(p))
            .unwrap_or_else(|| panic!("no `{p}` step in {what:#?}"))
    };
    let (closed, sent, arrived, executed, corrected) = (
        find("closed"),
        find("sent in a batch"),
        find("the datagram arrived"),
        find("executed on the server"),
        find("corrected"),
    );
    assert!(closed < sent && sent < arrived && arrived <= executed && executed < corrected);
    assert!(
        l.steps.windows(2).all(|w| w[0].t <= w[1].t),
        "in time order"
    );
    assert!(l.steps[corrected].t == t);
    assert!(l.steps[arrived].inferred && !l.steps[executed].inferred);
    // A later move was re-run by that correction's replay.
    let next = trace(&records, 1, m + 1).expect("traced");
    assert!(
        next.steps
            .iter()
            .any(|s| s.what == format!("re-run in the replay after move {m} was corrected")),
        "{}",
        next.to_text()
    );
    assert_eq!(move_near(&records, 1, l.steps[closed].t), Some(m));
    assert!(trace(&records, 1, 1_000_000).is_none());
}

#[test]
fn bound_values_in_and_out_of_every_execution() {
    let rec = recording();
    let records = records();
    // A move of client 1 the server corrected after a replay had re-run it, found by the
    // client (its prediction is the last execution's result).
    let (t, m, devs) = records
        .iter()
        .find_map(|r| match (&r.machine, &r.event) {
            (
                Machine::Client(1),
                Event::Correction {
                    move_id,
                    deviations,
                    detected_by: movescope::model::telemetry::DetectedBy::Client,
                    ..
                },
            ) => Some((r.t, *move_id, deviations.clone())),
            _ => None,
        })
        .expect("a correction found by the client");
    // The shipped recording has no value trace: it is re-simulated, and checked.
    let (values, source) =
        movescope::analysis::valuetrace::of_recording(&rec, &records, None, &|c, mv| {
            c == 1 && mv == m
        });
    assert!(source.starts_with("re-simulated"), "{source}");
    assert!(!values.is_empty());
    let l =
        movescope::analysis::lineage::trace(&rec.header.bindings, &records, &values, &source, 1, m)
            .expect("traced");
    let text = l.to_text();
    let with_values: Vec<_> = l.steps.iter().filter(|s| s.values.is_some()).collect();
    // Executed live on the client, and on the server.
    assert!(
        with_values
            .iter()
            .any(|s| s.what.starts_with("executed live")),
        "{text}"
    );
    let server = with_values
        .iter()
        .find(|s| s.what.starts_with("executed on the server"))
        .unwrap_or_else(|| panic!("{text}"));
    // Every bound value has a row, with one value per sub-step.
    for s in &with_values {
        let v = s.values.as_ref().expect("values");
        assert_eq!(v.rows.len(), rec.header.bindings.len());
        assert!(v.rows.iter().all(|r| !r.substeps.is_empty()), "{text}");
    }
    // What the client predicted is the out value of its last execution before the
    // correction; what the server computed shows in its execution.
    let last = with_values
        .iter()
        .rev()
        .find(|s| s.machine == "client 1" && s.t <= t)
        .and_then(|s| s.values.as_ref())
        .expect("a client execution");
    for d in &devs {
        let row = |v: &movescope::analysis::lineage::ExecValues| {
            v.rows
                .iter()
                .find(|r| r.binding == *d.binding)
                .map(|r| r.exit.clone())
                .expect("bound")
        };
        assert_eq!(row(last), d.predicted.to_string(), "{text}");
        assert_ne!(
            row(server.values.as_ref().expect("values")),
            row(last),
            "{text}"
        );
    }
    assert!(text.contains(" -> "), "{text}");
}

#[test]
fn a_window_of_records_never_pairs_a_send_with_an_earlier_arrival() {
    // The app traces moves from a window of records around the cursor: datagrams in flight
    // at the window's start must not shift the pairing of sends and arrivals.
    let records = records();
    let b = recording().header.bindings;
    for start in [1.0, 2.5, 4.0] {
        let window: Vec<Record> = records
            .iter()
            .filter(|r| r.t >= start - 0.013 && r.t <= start + 3.0)
            .cloned()
            .collect();
        let mut arrivals = 0;
        for m in 0..400 {
            let Some(l) = movescope::analysis::lineage::trace(&b, &window, &[], "", 0, m) else {
                continue;
            };
            let sent = l
                .steps
                .iter()
                .find(|s| s.what.starts_with("sent in a batch"));
            if let (Some(sent), Some(arrived)) = (
                sent,
                l.steps
                    .iter()
                    .find(|s| s.what.starts_with("the datagram arrived")),
            ) {
                arrivals += 1;
                assert!(arrived.t >= sent.t, "{}", l.to_text());
            }
        }
        assert!(arrivals > 10, "{arrivals} arrivals from {start} s");
    }
}

#[test]
fn with_the_hook_trace_each_execution_lists_its_hooks_in_order() {
    let p = movescope::session::preset::Preset {
        hook_trace: true,
        value_trace: true,
        ..Default::default()
    };
    let mut records = Vec::new();
    movescope::sim::run_deterministic(&p, "t", 3.0, &mut |r| records.push(r.clone()))
        .expect("runs");
    let b = p.checked_bindings().expect("valid");
    let l = movescope::analysis::lineage::trace(b.list(), &records, &[], "recorded", 0, 60)
        .expect("traced");
    let text = l.to_text();
    let live = l
        .steps
        .iter()
        .find(|s| s.what.starts_with("executed live"))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(
        live.hooks,
        [
            "PreLocalMoveExecution",
            "OnSyncDataApplied(LocalClientPawn_PreLocalMoveExecution)",
            "GenPredictionTick[0]",
            "GenAncillaryTick(bLocalMove=true, bCombinedClientMove=false)",
            "OnSyncDataApplied(LocalClientPawn_PostLocalMoveExecution)"
        ],
        "{text}"
    );
    let server = l
        .steps
        .iter()
        .find(|s| s.what.starts_with("executed on the server"))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(
        server.hooks.first().map(String::as_str),
        Some("OnSyncDataApplied(ServerPawn_PreRemoteMoveExecution)"),
        "{text}"
    );
    assert_eq!(
        server.hooks.last().map(String::as_str),
        Some("OnSyncDataApplied(ServerPawn_PostRemoteMoveExecution)"),
        "{text}"
    );
    assert!(
        server.hooks.iter().any(|h| h == "GenPredictionTick[0]"),
        "{text}"
    );
    // The datagram arrived before the server executed the move (a link without latency).
    let arrived = l
        .steps
        .iter()
        .find(|s| s.what.starts_with("the datagram arrived"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(arrived.t <= server.t, "{text}");
}

/// The journey's headline compares the execution the server's verdict was checked against,
/// not one a later execution superseded: client 0's move 108 ran live (velocity 405.87),
/// merged with the next frame (403.34), and was re-run in a replay (314.17) before its
/// correction arrived; the correction and the doctor name 314.17, and so must the headline.
#[test]
fn the_headline_compares_the_execution_the_server_checked() {
    let rec = recording();
    let records = records();
    let m = 108;
    let (values, source) =
        movescope::analysis::valuetrace::of_recording(&rec, &records, None, &|c, mv| {
            c == 0 && mv == m
        });
    let l =
        movescope::analysis::lineage::trace(&rec.header.bindings, &records, &values, &source, 0, m)
            .expect("traced");
    let text = l.to_text();
    let corrected = l
        .steps
        .iter()
        .find(|s| s.what.starts_with("corrected"))
        .unwrap_or_else(|| panic!("move 108 was corrected: {text}"));
    assert!(
        corrected.what.contains("velocity predicted (314.17"),
        "{text}"
    );
    let head = l.parted().join("\n");
    assert!(
        head.contains("velocity ended differently: client (314.17, 314.17, 0.00) (its replay execution at 4.000 s), server (403.34, 403.34, 0.00)"),
        "{head}\n{text}"
    );
    assert!(!head.contains("405.87"), "{head}");
}

/// A journey lists what happened to its own move: a rollback the server made for another
/// client's move of the same number (which swaps this client's pawn) is not this move's, and
/// nothing the server did before the move existed is; the closing lists exactly the frames it
/// merged (a move closed by a frame that did not merge does not own that frame).
#[test]
fn a_journey_keeps_to_its_own_move_and_frames() {
    use movescope::model::telemetry::NetContext;
    let p = movescope::session::preset::Preset {
        hook_trace: true,
        clients: 3,
        client_fps: 144.0,
        ..Default::default()
    };
    let mut records = Vec::new();
    movescope::sim::run_deterministic(&p, "t", 6.0, &mut |r| records.push(r.clone()))
        .expect("runs");
    let b = p.checked_bindings().expect("valid");
    let mut swapped = 0;
    for m in (40..400).step_by(7) {
        let Some(l) = movescope::analysis::lineage::trace(b.list(), &records, &[], "", 1, m) else {
            continue;
        };
        let text = l.to_text();
        let closed = l
            .steps
            .iter()
            .find(|s| s.what.starts_with("closed"))
            .unwrap_or_else(|| panic!("{text}"));
        let n: usize = closed.what["closed: ".len()..]
            .split(' ')
            .next()
            .and_then(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("a frame count in {}", closed.what));
        let times = closed
            .what
            .split_once("(frames at ")
            .and_then(|(_, rest)| rest.split_once(')'))
            .map_or(0, |(list, _)| {
                list.split(", ").filter(|t| !t.is_empty()).count()
            });
        assert_eq!(times, n, "frames listed against merged: {}", closed.what);
        // Another client's move of the same number swaps client 1's pawn under that number.
        let own_pawn = records.iter().find_map(|r| match &r.event {
            Event::RemoteMoveExecuted(x) if x.client == 1 && x.move_id == m => Some(x.pawn),
            _ => None,
        });
        swapped += usize::from(records.iter().any(|r| {
            r.machine == Machine::Server
                && matches!(&r.event, Event::Hook { pawn, move_id, context: Some(NetContext::RollbackSwap), .. }
                    if *move_id == m && Some(*pawn) == own_pawn)
        }));
        let server = || l.steps.iter().filter(|s| s.machine == "server");
        let listed_swaps: usize = server()
            .map(|s| {
                s.hooks
                    .iter()
                    .filter(|h| h.contains("RollbackSwap"))
                    .count()
            })
            .sum();
        assert_eq!(listed_swaps, 0, "another move's rollback listed:\n{text}");
        assert!(
            server().all(|s| s.hooks.is_empty() || s.t >= closed.t),
            "a server hook before the move existed:\n{text}"
        );
    }
    assert!(
        swapped > 10,
        "moves another move's rollback swapped: {swapped}"
    );
}
