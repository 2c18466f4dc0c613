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
        &names[..7],
        [
            "input_move",
            "location",
            "rotation",
            "scale",
            "velocity",
            "angular_velocity",
            "control_rotation"
        ]
    );
    assert_eq!(names[7], "bWantsToSprint");
    assert_eq!(names.last().copied(), Some("HeadAim"));
    assert!(
        b.list()[7..]
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

/// The store's tally of what each client sent (the app's "measured" figures) against the
/// session's own records, and the table's framing model at the measured rates: given the
/// bits of values the wire carried, `client_bytes_at` must reproduce the bytes sent, so the
/// app's "at the session's rates" figure differs from the measured one only by the values'
/// sizes.
#[test]
fn the_tally_of_sends_matches_the_records_and_the_framing_model_matches_the_wire() {
    let p = imported_preset();
    let b = p.checked_bindings().expect("valid bindings");
    let t = lint::binding_totals(b.list(), Rates::of(&p));
    let mut store = movescope::session::store::Store::new(None);
    let mut counted = vec![(0u64, 0u64, 0u64); usize::from(p.clients)];
    movescope::sim::run_deterministic(&p, "imported", 25.0, &mut |r| {
        store.ingest(r);
        if r.t < 5.0 || r.t >= 24.0 {
            return;
        }
        match (&r.machine, &r.event) {
            (
                _,
                Event::Packet {
                    from: Machine::Client(c),
                    bytes,
                    fate: PacketFate::Sent,
                    kind,
                    ..
                },
            ) => {
                let n = &mut counted[usize::from(*c)];
                n.0 += u64::from(*bytes);
                if *kind == movescope::model::messages::MsgKind::Moves {
                    n.1 += 1;
                }
            }
            (
                Machine::Client(c),
                Event::MovesSent {
                    new_moves,
                    resent_moves,
                    ..
                },
            ) => counted[usize::from(*c)].2 += u64::from(*new_moves) + u64::from(*resent_moves),
            _ => {}
        }
    })
    .expect("the imported layout runs");
    for (c, &(bytes, datagrams, moves)) in counted.iter().enumerate() {
        let r = store
            .sent_rates(Machine::Client(c as u16), 5.0, 24.0)
            .expect("whole seconds tallied");
        assert_eq!(r.seconds, 19, "client {c}");
        assert!(
            (r.bytes_per_s - bytes as f64 / 19.0).abs() < 1e-9,
            "client {c}"
        );
        assert!((r.move_datagrams_per_s - datagrams as f64 / 19.0).abs() < 1e-9);
        assert!((r.moves_per_s - moves as f64 / 19.0).abs() < 1e-9);
        let bits = r.value_bits_per_move.expect("moves sent");
        assert!(bits > 0.0 && bits <= f64::from(t.move_bits) * 1.5, "{bits}");
        // The framing model with the wire's own value bits: within 2 % of the bytes sent (it
        // spaces the timestamps evenly; the real steps vary a little in width).
        let model =
            lint::client_bytes_at(bits.round() as u32, r.moves_per_s, r.move_datagrams_per_s)
                + t.ping_bytes_per_s;
        let off = (r.bytes_per_s - model) / model;
        eprintln!(
            "client {c}: sent {:.0} B/s, framing model {model:.0} B/s ({:+.2} %), {bits:.1} bits of values per move (table {})",
            r.bytes_per_s,
            off * 100.0,
            t.move_bits
        );
        assert!(off.abs() < 0.02, "client {c}: {off}");
    }
}

/// An input bound NeverCombine makes every frame a move of its own: the table counts one
/// frame per move (and says why), the session it runs measures one frame per move, and its
/// bandwidth matches the table's. The same layout with the input allowed to combine counts
/// two frames per move at 60 fps.
#[test]
fn an_input_bound_never_combine_is_counted_one_frame_per_move() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/run/HoverboardMovement.cpp");
    let mut p = Preset {
        clients: 2,
        client_fps: 60.0,
        ..Preset::default()
    };
    let report = lint::lint_paths(std::slice::from_ref(&path), Rates::of(&p));
    let c = &report.components[0];
    let table = lint::totals(&c.bindings, Rates::of(&p));
    assert_eq!(table.frames_per_move, 1);
    assert_eq!(table.never_combined_by.as_deref(), Some("Throttle"));
    assert!(
        (table.moves_per_s - 60.0).abs() < 1e-9,
        "{}",
        table.moves_per_s
    );
    let text = lint::render::text(&report, true);
    assert!(
        text.contains("1 frame per move as `Throttle` is bound NeverCombine"),
        "{text}"
    );
    let run = run_layout(c, &report.files);
    p.component = Some(run.layout);
    let b = p.checked_bindings().expect("valid bindings");
    let t = lint::binding_totals(b.list(), Rates::of(&p));
    assert_eq!(t.frames_per_move, 1, "the session's list counts the same");
    let expected = t.client_bytes_per_s + t.ping_bytes_per_s;
    let (rates, summary) = client_rates(&p, 4.0, 14.0);
    for s in &summary.clients {
        assert_eq!(s.corrections, 0, "{:?}", s.deviations);
        let fpm = s.mean_frames_per_move.expect("moves were closed");
        assert!(
            (fpm - 1.0).abs() < 0.01,
            "client {} merged frames: {fpm}",
            s.id
        );
    }
    // Within 8 %: at two moves a datagram the wire's values average 158 bits a move against
    // the table's 169 for this list (the built-ins' variable sizes), which the 5 % of the
    // combining examples above does not cover. Counted at two frames a move, the table said
    // about half of what was sent.
    for r in rates {
        let off = (r - expected) / expected;
        assert!(
            off.abs() < 0.08,
            "measured {r:.0} B/s against {expected:.0}"
        );
    }
    // Look-alike: the same throttle allowed to combine (overwrite) merges two frames a move.
    let text = std::fs::read_to_string(&path).expect("the component");
    let combining = std::env::temp_dir().join("HoverboardCombining.cpp");
    std::fs::write(
        &combining,
        text.replace("NeverCombine", "AlwaysCombineOverwrite"),
    )
    .expect("write a copy");
    let report = lint::lint_paths(
        std::slice::from_ref(&combining),
        Rates::of(&Preset::default()),
    );
    let t = lint::totals(
        &report.components[0].bindings,
        Rates::of(&Preset::default()),
    );
    assert_eq!((t.frames_per_move, t.never_combined_by), (2, None));
}
