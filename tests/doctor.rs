//! The desync doctor names the right cause (or finding) on every pitfall scenario shipped in
//! `presets/`, and nothing on their fixed variants.

use std::path::PathBuf;

use movescope::doctor::{Cause, Report, examine};
use movescope::preset::Preset;
use movescope::sim::run_deterministic;

fn report(name: &str) -> Report {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("presets")
        .join(format!("{name}.ron"));
    let preset = Preset::load(&path).unwrap_or_else(|e| panic!("{e}"));
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
        "pitfall-03-one-shot-not-sealed-fixed",
        "pitfall-04-dash-always-combine-fixed",
        "pitfall-05-unguarded-side-effects-fixed",
        "pitfall-06-no-world-time-replicator-fixed",
        "pitfall-07-spawn-data-only-bound-fixed",
        "pitfall-08-transition-in-sync-applied-fixed",
        "pitfall-09-proxy-value-not-simulated-fixed",
        "pitfall-10-binding-mismatch-fixed",
        "pitfall-11-standalone-only",
    ] {
        let r = report(name);
        assert!(r.findings.is_empty(), "{name}:\n{}", r.to_text(3));
        assert!(
            r.diagnoses
                .iter()
                .all(|d| d.cause == Cause::ServerDecidedOutcome),
            "{name}:\n{}",
            r.to_text(3)
        );
    }
}

#[test]
fn every_pitfall_scenario_has_a_lesson_and_its_fixed_variant_exists() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("presets");
    let mut lessons = 0;
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
        for s in &l.steps {
            if let (Some(a), Some(_)) = (s.answer, &s.question) {
                assert!(a < s.choices.len(), "{}: answer out of range", p.display());
            }
            let mut q = preset.clone();
            for kv in &s.set {
                q.set(kv).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            }
        }
    }
    assert!(lessons >= 16, "{lessons} lessons");
}
