//! "Run with this layout": a component's binding table, read by `movescope lint`, run as a
//! session. The session must run the user's layout as written (no corrections from the
//! imported values themselves: they are deterministic functions of the move) and send what
//! the table's totals say it sends.

use std::path::{Path, PathBuf};

use movescope::analysis::lint::{self, Rates, run::run_layout};
use movescope::model::binding::Field;
use movescope::model::telemetry::{Event, Machine, PacketFate};
use movescope::session::preset::Preset;

fn component() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/run/TraversalMovement.cpp")
}

fn imported_preset() -> Preset {
    let mut p = Preset::default();
    let report = lint::lint_paths(&[component()], Rates::of(&p));
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    let c = &report.components[0];
    let run = run_layout(c, &report.files);
    assert!(run.notes.is_empty(), "{:?}", run.notes);
    assert_eq!(run.layout.values.len(), c.bindings.len());
    p.component = Some(run.layout);
    p
}

/// Mean bytes per second each client sent from `from` to `to` (session seconds).
fn client_rates(
    p: &Preset,
    from: f64,
    to: f64,
) -> (Vec<f64>, movescope::session::summary::Summary) {
    let clients = p.clients;
    let mut bytes = vec![0u64; usize::from(clients)];
    let summary = movescope::sim::run_deterministic(p, "imported", to, &mut |r| {
        if let Event::Packet {
            from: Machine::Client(c),
            bytes: b,
            fate: PacketFate::Sent,
            ..
        } = &r.event
            && r.t >= from
            && let Some(n) = bytes.get_mut(usize::from(*c))
        {
            *n += u64::from(*b);
        }
    })
    .expect("the imported layout runs");
    (
        bytes.iter().map(|b| *b as f64 / (to - from)).collect(),
        summary,
    )
}

#[test]
fn the_layout_runs_as_written_after_the_built_ins() {
    let p = imported_preset();
    let b = p.checked_bindings().expect("valid bindings");
    assert!(b.is_imported());
    let names: Vec<&str> = b.list().iter().map(|x| &*x.name).collect();
    assert_eq!(
        &names[..4],
        ["input_move", "location", "rotation", "velocity"]
    );
    assert_eq!(names[4], "bWantsToSprint");
    assert_eq!(names.last().copied(), Some("HeadAim"));
    assert!(
        b.list()[4..]
            .iter()
            .all(|x| matches!(x.field, Field::Custom(_)))
    );
    // The demo's own members are not in the layout.
    assert!(!names.contains(&"input_dash") && !names.contains(&"team"));
}

#[test]
fn an_imported_session_is_clean_and_sends_what_the_table_says() {
    let p = imported_preset();
    let b = p.checked_bindings().expect("valid bindings");
    let t = lint::binding_totals(b.list(), Rates::of(&p));
    let expected = t.client_bytes_per_s + t.ping_bytes_per_s;
    let (rates, summary) = client_rates(&p, 5.0, 25.0);
    for c in &summary.clients {
        assert_eq!(
            c.corrections, 0,
            "client {} corrected: {:?}",
            c.id, c.deviations
        );
        assert!(c.moves_sent > 500, "client {} moved", c.id);
    }
    for (i, r) in rates.iter().enumerate() {
        let off = (r - expected) / expected;
        eprintln!(
            "client {i}: measured {r:.0} B/s, table {:.0} B/s ({:+.1} %)",
            expected,
            off * 100.0
        );
        assert!(
            off.abs() < 0.05,
            "client {i}: {r:.0} B/s against {expected:.0}"
        );
    }
}

/// Every correct-form component of the lint tests, run with its layout: clean, and within
/// 5 % of its table's client totals (the layouts differ in types, modes and combining).
#[test]
fn every_lint_example_runs_clean_and_within_five_percent() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/lint")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".good.cpp"))
        .collect();
    files.sort();
    let mut ran = 0;
    for f in files {
        let mut p = Preset {
            clients: 2,
            ..Preset::default()
        };
        let report = lint::lint_paths(std::slice::from_ref(&f), Rates::of(&p));
        for c in &report.components {
            let run = run_layout(c, &report.files);
            if run.layout.problem().is_some() {
                continue;
            }
            p.component = Some(run.layout);
            let b = p.checked_bindings().expect("valid bindings");
            let t = lint::binding_totals(b.list(), Rates::of(&p));
            let expected = t.client_bytes_per_s + t.ping_bytes_per_s;
            let (rates, summary) = client_rates(&p, 4.0, 14.0);
            for s in &summary.clients {
                assert_eq!(s.corrections, 0, "{}: {:?}", f.display(), s.deviations);
            }
            for r in rates {
                let off = (r - expected) / expected;
                assert!(
                    off.abs() < 0.05,
                    "{} {}: {r:.0} B/s against {expected:.0} ({:+.1} %)",
                    f.display(),
                    c.class,
                    off * 100.0
                );
            }
            ran += 1;
        }
    }
    assert!(ran >= 10, "only {ran} components ran");
}
