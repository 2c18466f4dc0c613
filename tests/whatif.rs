//! What-if re-runs: no change reproduces a virtual-time recording exactly; a change shows
//! where the runs part and how corrections change.

mod common;

use movescope::session::recording::Recording;

fn recording(name: &str) -> Recording {
    Recording::open(&std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(name))
        .expect("opens")
}

#[test]
fn no_change_reproduces_the_recording_exactly() {
    for name in [
        "recordings/default.msrec",
        "recordings/pitfall-01-unbound-member.msrec",
        "recordings/net-01-high-latency.msrec",
    ] {
        let w = movescope::analysis::whatif::run(&recording(name), &[]).expect("runs");
        assert_eq!(w.comparison.first_divergence, None, "{name}");
        assert_eq!(w.records_a, w.records_b, "{name}");
        assert_eq!(w.comparison.records_a, w.comparison.records_b);
    }
}

#[test]
fn a_change_shows_where_the_runs_part() {
    let rec = recording("recordings/pitfall-01-unbound-member.msrec");
    let w = movescope::analysis::whatif::run(&rec, &["faults.unbound_member=false".to_string()])
        .expect("runs");
    let d = w.comparison.first_divergence.clone().expect("they differ");
    assert!(
        d.t < 1.0,
        "the binding list differs from the first welcome: {d:?}"
    );
    let a: u64 = w.comparison.clients.iter().map(|c| c.corrections_a).sum();
    let b: u64 = w.comparison.clients.iter().map(|c| c.corrections_b).sum();
    assert!(a > 20 && b == 0, "corrections {a} → {b}");
    let bad = movescope::analysis::whatif::run(&rec, &["faults.nope=true".to_string()]);
    match bad {
        Err(movescope::analysis::whatif::WhatIfError::Change { key, error }) => {
            assert_eq!(key, "faults.nope");
            assert!(
                error.message.contains("unknown key `faults.nope`"),
                "{error}"
            );
        }
        Err(e) => panic!("expected the change refused, got {e:?}"),
        Ok(_) => panic!("an unknown key runs"),
    }
}

#[test]
fn whatif_from_the_command_line() {
    let out = common::movescope_ok(&[
        "whatif",
        "recordings/pitfall-01-unbound-member.msrec",
        "--set",
        "link.latency_ms=150",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["changes"][0], "link.latency_ms=150");
    assert!(v["first_divergence"]["record"].as_u64().is_some());
    let clients = v["clients"].as_array().expect("clients");
    assert_eq!(clients.len(), 3);
    // Deeper replays at 150 ms than at 60 ms.
    let depth = |k: &str| {
        clients
            .iter()
            .map(|c| c[k].as_u64().unwrap_or(0))
            .max()
            .unwrap_or(0)
    };
    assert!(depth("replay_depth_max_b") > depth("replay_depth_max_a"));
}
