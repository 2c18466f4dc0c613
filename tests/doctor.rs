//! The desync doctor names the right cause (or finding) on every pitfall scenario shipped in
//! `presets/`, and nothing on their fixed variants.

mod common;

use std::path::PathBuf;

use movescope::analysis::doctor::{Answer, Cause, Report, Stage, examine};
use movescope::session::preset::Preset;
use movescope::sim::run_deterministic;

fn report(name: &str) -> Report {
    report_with(name, false)
}

fn report_with(name: &str, value_trace: bool) -> Report {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("presets")
        .join(format!("{name}.ron"));
    let mut preset = Preset::load(&path).unwrap_or_else(|e| panic!("{e}"));
    preset.value_trace = value_trace;
    let mut records = Vec::new();
    run_deterministic(&preset, name, 20.0, &mut |r| records.push(r.clone())).expect("runs");
    let bindings = preset.checked_bindings().expect("valid");
    examine(bindings.list(), &records)
}

fn findings(r: &Report) -> Vec<&str> {
    r.findings.iter().map(|f| f.pitfall.as_str()).collect()
}

#[test]
fn corrections_get_the_right_cause() {
    for (name, cause) in [
        ("pitfall-01-unbound-member", Cause::UnboundMember),
        (
            "pitfall-02a-wall-clock-in-tick",
            Cause::NonDeterministicTick,
        ),
        (
            "pitfall-02b-reads-displayed-pawns",
            Cause::ReadsDisplayedPawns,
        ),
        (
            "pitfall-02c-frame-delta-in-tick",
            Cause::NonDeterministicTick,
        ),
        (
            "pitfall-02d-unseeded-random-in-tick",
            Cause::NonDeterministicTick,
        ),
        ("pitfall-10-binding-mismatch", Cause::BindingMismatch),
        ("pitfall-11-standalone-only-fixed", Cause::UnboundMember),
    ] {
        let r = report(name);
        assert!(r.corrections > 10, "{name}: {} corrections", r.corrections);
        assert_eq!(r.top_cause(), Some(cause), "{name}:\n{}", r.to_text(3));
        let d = &r.diagnoses[0];
        assert!(!d.deviations.is_empty() && !d.evidence.is_empty(), "{name}");
        assert!(d.deviations.iter().all(|v| v.ratio > 1.0), "{name}: {d:?}");
    }
}

#[test]
fn pitfalls_without_corrections_are_findings() {
    for (name, pitfall) in [
        ("pitfall-03-one-shot-not-sealed", "no_seal_after_one_shot"),
        ("pitfall-04-dash-always-combine", "dash_always_combine"),
        (
            "pitfall-05-unguarded-side-effects",
            "unguarded_side_effects",
        ),
        (
            "pitfall-06-no-world-time-replicator",
            "world_time_replicators",
        ),
        ("pitfall-07-spawn-data-only-bound", "spawn_data_only_bound"),
        (
            "pitfall-08-transition-in-sync-applied",
            "transition_in_sync_applied",
        ),
        (
            "pitfall-09-proxy-value-not-simulated",
            "proxy_value_not_simulated",
        ),
        (
            "pitfall-12-input-written-by-tick",
            "derived_value_bound_as_input",
        ),
    ] {
        let r = report(name);
        assert!(findings(&r).contains(&pitfall), "{name}:\n{}", r.to_text(3));
    }
    // The turret's corrections are expected ones, and named so.
    let r = report("pitfall-05-unguarded-side-effects");
    assert_eq!(r.top_cause(), Some(Cause::ServerDecidedOutcome));
}

#[test]
fn fixed_variants_and_standalone_are_clean() {
    for name in [
        "pitfall-01-unbound-member-fixed",
        "pitfall-02a-wall-clock-in-tick-fixed",
        "pitfall-02b-reads-displayed-pawns-fixed",
        "pitfall-02c-frame-delta-in-tick-fixed",
        "pitfall-02d-unseeded-random-in-tick-fixed",
        "pitfall-03-one-shot-not-sealed-fixed",
        "pitfall-04-dash-always-combine-fixed",
        "pitfall-05-unguarded-side-effects-fixed",
        "pitfall-06-no-world-time-replicator-fixed",
        "pitfall-07-spawn-data-only-bound-fixed",
        "pitfall-08-transition-in-sync-applied-fixed",
        "pitfall-09-proxy-value-not-simulated-fixed",
        "pitfall-10-binding-mismatch-fixed",
        "pitfall-11-standalone-only",
        // pitfall-12's fixed variant keeps its modified client, which is rightly corrected:
        // a_derived_value_bound_as_input_is_believed_and_its_fix_corrects_the_cheat.
    ] {
        let r = report(name);
        assert!(r.findings.is_empty(), "{name}:\n{}", r.to_text(3));
        assert!(
            r.diagnoses
                .iter()
                .all(|d| d.cause == Some(Cause::ServerDecidedOutcome)),
            "{name}:\n{}",
            r.to_text(3)
        );
    }
}

/// Pitfall 12: a value the tick derives bound as a client-authoritative input. The server
/// believes whatever a client sends (the modified client 1 is never corrected) and a ramp that
/// changes every frame stops frames combining; bound as a server-computed output, only the
/// modified client is corrected, each correction is named as a write outside the move, and
/// frames combine again.
#[test]
fn a_derived_value_bound_as_input_is_believed_and_its_fix_corrects_the_cheat() {
    use movescope::model::pawn::{Execution, RAMP_TIME};
    use movescope::model::telemetry::{Event, Machine};
    let run = |name: &str| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("presets")
            .join(format!("{name}.ron"));
        let mut preset = Preset::load(&path).unwrap_or_else(|e| panic!("{e}"));
        preset.value_trace = true;
        let mut records = Vec::new();
        run_deterministic(&preset, name, 20.0, &mut |r| records.push(r.clone())).expect("runs");
        let bindings = preset.checked_bindings().expect("valid");
        let report = examine(bindings.list(), &records);
        (records, report)
    };
    // The ramps the server ran client `c`'s moves from, and the frames per move client `c`
    // closed.
    let server_ramps = |records: &[movescope::model::telemetry::Record], c: u16| -> Vec<f32> {
        records
            .iter()
            .filter_map(|r| match (&r.machine, &r.event) {
                (Machine::Server, Event::MoveValues(v))
                    if v.owner == Some(c) && v.exec == Execution::Remote =>
                {
                    Some(v.entry.move_ramp)
                }
                _ => None,
            })
            .collect()
    };
    let frames_per_move = |records: &[movescope::model::telemetry::Record], c: u16| -> f64 {
        let f: Vec<f64> = records
            .iter()
            .filter_map(|r| match (&r.machine, &r.event) {
                (Machine::Client(x), Event::MoveClosed { frames, .. }) if *x == c => {
                    Some(f64::from(*frames))
                }
                _ => None,
            })
            .collect();
        f.iter().sum::<f64>() / f.len() as f64
    };

    let (bad, r) = run("pitfall-12-input-written-by-tick");
    assert_eq!(r.corrections, 0, "{}", r.to_text(3));
    let finding = r
        .findings
        .iter()
        .find(|f| f.pitfall == "derived_value_bound_as_input")
        .unwrap_or_else(|| panic!("{}", r.to_text(3)));
    assert!(
        finding.evidence.contains("client 1:"),
        "{}",
        finding.evidence
    );
    for honest in [0u16, 2] {
        assert!(
            !finding.evidence.contains(&format!("client {honest}:")),
            "{}",
            finding.evidence
        );
    }
    let cheat = server_ramps(&bad, 1);
    assert!(!cheat.is_empty());
    assert!(
        cheat.iter().all(|x| (*x - RAMP_TIME).abs() < 0.006),
        "the server ran client 1's moves with the ramp it sent"
    );
    assert!(server_ramps(&bad, 0).iter().any(|x| *x < 0.3 * RAMP_TIME));

    let (good, r) = run("pitfall-12-input-written-by-tick-fixed");
    assert!(r.findings.is_empty(), "{}", r.to_text(3));
    assert!(r.corrections >= 3, "{}", r.to_text(3));
    // The first move starts from the cheat before any server update: the doctor cannot tell
    // that from a spawn value the client lacks (pitfall 7), nor can anyone from the records.
    assert_eq!(
        r.top_cause(),
        Some(Cause::WrittenOutsideMove),
        "{}",
        r.to_text(20)
    );
    for d in &r.diagnoses {
        assert_eq!(d.client, 1, "{}", r.to_text(20));
        assert!(
            matches!(
                d.cause,
                Some(Cause::WrittenOutsideMove | Cause::BeforeFirstServerUpdate)
            ),
            "{}",
            r.to_text(20)
        );
    }
    assert!(
        r.diagnoses
            .iter()
            .any(|d| d.evidence.contains("move_ramp entered client 1's move")),
        "{}",
        r.to_text(3)
    );
    assert!(
        server_ramps(&good, 1).iter().any(|x| *x < 0.3 * RAMP_TIME),
        "the server derives client 1's ramp itself"
    );
    for honest in [0u16, 2] {
        let (with, without) = (
            frames_per_move(&bad, honest),
            frames_per_move(&good, honest),
        );
        assert!(
            with < without - 0.3,
            "client {honest}: {with:.2} frames per move bound as input, {without:.2} as output"
        );
    }
}

#[test]
fn every_pitfall_scenario_has_a_lesson_and_its_fixed_variant_exists() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("presets");
    let mut lessons = 0;
    // Where the right answer is shown, over every question.
    let mut answer_places = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(&dir).expect("presets") {
        let p = e.expect("entry").path();
        let Ok(preset) = Preset::load(&p) else {
            panic!("{} does not load", p.display())
        };
        let Some(l) = preset.lesson.clone() else {
            continue;
        };
        lessons += 1;
        assert!(!l.watch.is_empty() && !l.expect.is_empty() && !l.steps.is_empty());
        if let Some(f) = &l.fixed {
            let fixed = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(f);
            Preset::load(&fixed).unwrap_or_else(|e| panic!("{}: fixed variant: {e}", p.display()));
        }
        let name = p
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        for (k, s) in l.steps.iter().enumerate() {
            if let (Some(a), Some(_)) = (s.answer, &s.question) {
                assert!(a < s.choices.len(), "{}: answer out of range", p.display());
                // Every choice, right or wrong, has its reason.
                assert_eq!(
                    s.why.len(),
                    s.choices.len(),
                    "{}: step {k}: one reason per choice",
                    p.display()
                );
                assert!(s.why.iter().all(|w| !w.trim().is_empty()));
                let shown = s.choice_order(preset.seed, &name, k);
                answer_places.insert(shown.iter().position(|&i| i == a).expect("shown"));
            }
            let mut q = preset.clone();
            for kv in &s.set {
                q.set(kv).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            }
        }
    }
    assert!(lessons >= 16, "{lessons} lessons");
    assert_eq!(
        answer_places.len(),
        3,
        "the right answer is shown in every place across the lessons: {answer_places:?}"
    );
}

#[test]
fn with_the_value_trace_each_correction_names_where_values_parted() {
    // Without the trace the doctor says so and names no stage.
    let r = report("pitfall-05-unguarded-side-effects");
    assert!(
        r.value_trace.starts_with("not recorded"),
        "{}",
        r.value_trace
    );
    assert!(r.diagnoses.iter().all(|d| d.parted.is_none()));

    // The turret knocks the server's pawn before its tick runs: the move parts at its entry,
    // in velocity (the correction itself may list only location).
    let r = report_with("pitfall-05-unguarded-side-effects", true);
    assert_eq!(r.value_trace, "recorded");
    let turret: Vec<_> = r
        .diagnoses
        .iter()
        .filter(|d| d.cause == Some(Cause::ServerDecidedOutcome))
        .collect();
    assert!(!turret.is_empty());
    for d in &turret {
        let p = d.parted.as_ref().expect("parted");
        assert!(
            p.stage == Stage::Entry && p.bindings.iter().any(|b| b == "velocity"),
            "{}",
            r.to_text(40)
        );
    }

    // An unbound member: the evidence names its value at the move's entry on both sides.
    let r = report_with("pitfall-01-unbound-member", true);
    assert!(
        r.diagnoses.iter().any(|d| d
            .evidence
            .contains("move_ramp (not bound) entered the client's replay")
            && d.evidence
                .contains("a value changed during replay without being bound")),
        "{}",
        r.to_text(5)
    );

    // A tick reading the clock computes differently: each client's first correction parts
    // inside a sub-step, from equal values at the move's entry.
    let r = report_with("pitfall-02a-wall-clock-in-tick", true);
    let mut seen = std::collections::BTreeSet::new();
    for d in &r.diagnoses {
        if seen.insert(d.client) {
            let p = d.parted.as_ref().expect("parted");
            assert!(
                matches!(p.stage, Stage::SubStep { index: 1, .. }),
                "{}",
                r.to_text(5)
            );
            assert!(p.describe().contains("sub-step 1 of"), "{}", p.describe());
        }
    }
    assert!(seen.len() >= 2);
}

#[test]
fn a_virtual_recording_without_the_trace_is_re_simulated_for_it() {
    let dir = common::TempDir::new("doctor");
    let file = dir.join("wall-clock.msrec");
    let preset = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("presets/pitfall-02a-wall-clock-in-tick.ron");
    common::movescope_ok(&[
        "run",
        "--seconds",
        "8",
        "--preset",
        preset.to_str().expect("UTF-8 path"),
        "--record",
        file.to_str().expect("UTF-8 path"),
    ]);
    let rec = movescope::session::recording::Recording::open(&file).expect("opens");
    let (records, damage) = rec.load_all();
    assert!(damage.is_none());
    let from_file = movescope::analysis::doctor::examine_recording(&rec, &records);
    assert!(
        from_file.value_trace.starts_with("re-simulated"),
        "{}",
        from_file.value_trace
    );
    // The same partings as a session that ran with the trace on.
    let mut p = Preset::load(&preset).expect("loads");
    p.value_trace = true;
    let mut traced = Vec::new();
    run_deterministic(&p, "t", 8.0, &mut |r| traced.push(r.clone())).expect("runs");
    let live = examine(p.checked_bindings().expect("valid").list(), &traced);
    assert!(from_file.corrections > 5);
    assert_eq!(from_file.corrections, live.corrections);
    for (a, b) in from_file.diagnoses.iter().zip(&live.diagnoses) {
        assert!(a.parted.is_some());
        assert_eq!(a.parted, b.parted);
    }
}

/// A live session recorded while its binding list changed (pitfall 1's switch turned on
/// half-way, as a lesson or a trainer does): the recording carries the list in force from
/// then on, and the doctor judges each correction by the list of its time — not by the
/// header's list, which had the member bound and would blame the tick.
#[test]
fn a_recording_across_a_binding_change_is_judged_by_the_list_of_each_correction() {
    use movescope::model::telemetry::Event;
    use movescope::net::live::{Command, LiveSession};
    use movescope::session::recording::{Footer, Header, Recording, write_all};
    let (mut p, _) = Preset::find("pitfall-01-unbound-member").expect("shipped");
    p.set("faults.unbound_member=false").expect("valid");
    let header = Header::new(&p, "pitfall-01 fixed", "live").expect("valid");
    let mut s = LiveSession::start(&p).expect("starts");
    let mut records = Vec::new();
    let drain = |s: &LiveSession, secs: f64, records: &mut Vec<_>| {
        let end = std::time::Instant::now() + std::time::Duration::from_secs_f64(secs);
        while let Some(left) = end.checked_duration_since(std::time::Instant::now()) {
            if let Ok(r) = s.telemetry().recv_timeout(left) {
                records.push(r);
            }
        }
    };
    drain(&s, 2.0, &mut records);
    let mut f = p.faults.clone();
    f.unbound_member = true;
    s.command(Command::SetFaults(f)).expect("switched on");
    drain(&s, 6.0, &mut records);
    s.stop();
    assert!(
        records
            .iter()
            .any(|r| matches!(&r.event, Event::BindingsInForce { list } if list.as_slice() != header.bindings.as_slice())),
        "the change of list is recorded"
    );
    let dir = common::TempDir::new("doctor-epochs");
    let file = dir.join("switched.msrec");
    write_all(
        &file,
        &header,
        records,
        Footer {
            simulated_seconds: 8.0,
            wall_seconds: 8.0,
            dropped_records: 0,
        },
    )
    .expect("writes");
    let rec = Recording::open(&file).expect("opens");
    let (records, damage) = rec.load_all();
    assert!(damage.is_none());
    let report = movescope::analysis::doctor::examine_recording(&rec, &records);
    assert!(report.corrections > 0, "the switch caused corrections");
    assert_eq!(
        report.top_cause(),
        Some(Cause::UnboundMember),
        "{:?}",
        report.causes
    );
    let by_header = examine(&rec.header.bindings, &records);
    assert_ne!(
        by_header.top_cause(),
        Some(Cause::UnboundMember),
        "the defect this guards: judged by the header's list"
    );
}

/// A cause's line says its title once (the explanations restate it before the colon).
#[test]
fn a_cause_line_says_its_title_once() {
    use movescope::analysis::doctor::CauseCount;
    for cause in [
        Cause::BindingMismatch,
        Cause::UnboundMember,
        Cause::InputPulseLost,
        Cause::OneShotReRaised,
        Cause::ServerDecidedOutcome,
        Cause::MovesSkipped,
        Cause::ClockDomains,
        Cause::ReadsDisplayedPawns,
        Cause::NonDeterministicTick,
        Cause::BeforeFirstServerUpdate,
        Cause::WrittenOutsideMove,
    ] {
        let line = CauseCount {
            cause,
            corrections: 1,
            explain: cause.explain().to_string(),
        }
        .line();
        let title = cause.title().to_lowercase();
        assert_eq!(line.to_lowercase().matches(&title).count(), 1, "{line}");
        assert!(
            line.len() > title.len() + 20,
            "an explanation follows: {line}"
        );
    }
}

/// The default preset with `location` compared at `tolerance`.
fn location_at(tolerance: f64) -> Preset {
    Preset {
        bindings: vec![movescope::session::preset::BindingOverride {
            name: "location".to_string(),
            tolerance: Some(tolerance),
            ..Default::default()
        }],
        ..Preset::default()
    }
}

/// The default session with `location` compared at `tolerance`, traced, for `seconds`.
fn location_tolerance(tolerance: f64, faults: &[&str], seconds: f64) -> Report {
    let mut p = location_at(tolerance);
    for f in faults {
        p.set(f).expect("a fault switch");
    }
    p.value_trace = true;
    let mut records = Vec::new();
    run_deterministic(&p, "t", seconds, &mut |r| records.push(r.clone())).expect("runs");
    examine(p.checked_bindings().expect("valid").list(), &records)
}

/// Location compared at tolerance 0 although it travels with two decimals: the spawn
/// transform (rounded to one decimal by actor replication) and each correction's rounded
/// values leave gaps below a step, which become corrections. The doctor names the tolerance
/// with where the gap came from, and does not blame a tick that is deterministic (its
/// evidence said the values "parted already at the move's entry"). At a tolerance above what
/// rounding can part the copies by, the same session has no correction at all.
#[test]
fn a_tolerance_below_the_wire_step_is_named_and_the_tick_is_not_blamed() {
    let r = location_tolerance(0.0, &[], 30.0);
    assert!(r.corrections > 50, "{} corrections", r.corrections);
    let mut from = (0, 0);
    for d in &r.diagnoses {
        assert_eq!(
            d.cause,
            Some(Cause::ToleranceFinerThanWire),
            "{}",
            r.to_text(3)
        );
        let tick = d
            .verdicts
            .iter()
            .find(|v| v.cause == Cause::NonDeterministicTick)
            .expect("answered");
        assert_ne!(tick.answer, Answer::Supported, "{}", tick.says);
        from.0 += usize::from(d.evidence.contains("spawn"));
        from.1 += usize::from(d.evidence.contains("the correction for move"));
    }
    assert!(
        from.0 > 0 && from.1 > 0,
        "spawn {}, corrections {}",
        from.0,
        from.1
    );
    // What rounding can part location's copies by: the spawn's one decimal, 0.05 in each
    // component (0.087), more than the wire's step in each (0.017).
    let fixed = location_tolerance(0.09, &[], 30.0);
    assert_eq!(fixed.corrections, 0, "{}", fixed.to_text(3));
}

/// The look-alike: a tick that reads the wall clock, at the default tolerance. Moves after a
/// correction begin apart too, but the tick was seen to part values that began within
/// tolerance: every desync names the tick, none the rounding, none is left unexplained.
#[test]
fn a_desync_carried_after_a_non_deterministic_tick_still_names_the_tick() {
    let r = location_tolerance(2.0, &["faults.wall_clock_in_tick=true"], 20.0);
    assert!(r.corrections > 50, "{} corrections", r.corrections);
    for d in &r.diagnoses {
        assert_eq!(d.cause, Some(Cause::NonDeterministicTick), "{}", d.evidence);
        let wire = d
            .verdicts
            .iter()
            .find(|v| v.cause == Cause::ToleranceFinerThanWire)
            .expect("answered");
        assert_eq!(wire.answer, Answer::RuledOut, "{}", wire.says);
    }
}

/// The same tolerance judged from a recording made without the trace: the doctor
/// re-simulates it, keeping every move up to each client's first correction, and names the
/// tolerance for every desync.
#[test]
fn a_recording_at_tolerance_zero_is_judged_the_same_from_the_file() {
    let dir = common::TempDir::new("doctor-wire");
    let preset = dir.join("tolerance-0.ron");
    std::fs::write(&preset, location_at(0.0).to_ron()).expect("writes");
    let file = dir.join("tolerance-0.msrec");
    common::movescope_ok(&[
        "run",
        "--seconds",
        "12",
        "--preset",
        preset.to_str().expect("UTF-8 path"),
        "--record",
        file.to_str().expect("UTF-8 path"),
    ]);
    let rec = movescope::session::recording::Recording::open(&file).expect("opens");
    let (records, _) = rec.load_all();
    let r = movescope::analysis::doctor::examine_recording(&rec, &records);
    assert!(r.corrections > 10, "{} corrections", r.corrections);
    assert!(
        r.diagnoses
            .iter()
            .all(|d| d.cause == Some(Cause::ToleranceFinerThanWire)),
        "{}",
        r.to_text(3)
    );
}
