//! Move lineage over a shipped recording: a corrected move's whole journey, and a move that
//! replays re-ran.

use movescope::lineage::{move_near, trace};
use movescope::recording::Recording;

fn records() -> Vec<movescope::model::telemetry::Record> {
    let rec = Recording::open(
        &std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("recordings/pitfall-01-unbound-member.msrec"),
    )
    .expect("opens");
    let (r, damage) = rec.load_all();
    assert!(damage.is_none());
    r
}

#[test]
fn a_corrected_move_from_frames_to_replay() {
    let records = records();
    // The first correction of client 1, from the doctor's point of view.
    let (t, m) = records
        .iter()
        .find_map(|r| match (&r.machine, &r.event) {
            (
                movescope::model::telemetry::Machine::Client(1),
                movescope::model::telemetry::Event::Correction { move_id, .. },
            ) => Some((r.t, *move_id)),
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
