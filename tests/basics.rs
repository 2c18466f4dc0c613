//! The basics lessons (before the pitfalls): each scenario, in the state of each of its steps,
//! measures every figure its texts quote, and the figures say what the lesson teaches.

use movescope::session::figures::{self, figure};
use movescope::session::preset::Preset;
use movescope::session::store::Store;

const NAMES: &[&str] = &[
    "basics-01-no-prediction",
    "basics-02-prediction",
    "basics-03-correction-and-replay",
    "basics-04-replay-depth-and-latency",
    "basics-05-combining",
    "basics-06-slow-frame",
    "basics-07-proxies-show-the-past",
    "basics-08-the-clock",
];

const SECONDS: f64 = 20.0;

fn preset(name: &str) -> Preset {
    let (_, text) = movescope::support::shipped::preset_text(name).expect("shipped");
    Preset::from_ron(text, name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The store of `p` run headless for [`SECONDS`].
fn run(p: &Preset) -> Store {
    let mut store = Store::new(None);
    movescope::sim::run_deterministic(p, "basics", SECONDS, &mut |r| store.ingest(r))
        .expect("the scenario runs");
    store
}

/// `p` with the changes of steps `..=k` made.
fn at_step(p: &Preset, k: usize) -> Preset {
    let mut q = p.clone();
    for st in &p.lesson.as_ref().expect("a lesson").steps[..=k] {
        for kv in &st.set {
            q.set(kv).unwrap_or_else(|e| panic!("{kv}: {e}"));
        }
    }
    q
}

fn value(store: &Store, name: &str) -> f64 {
    figure(name)
        .expect("a figure")
        .value(store, SECONDS - 10.0, SECONDS)
        .unwrap_or_else(|| panic!("{name} measured"))
}

#[test]
fn the_basics_come_first_in_order_and_every_quoted_figure_is_measured() {
    let mut orders = Vec::new();
    for name in NAMES {
        let p = preset(name);
        let lesson = p.lesson.as_ref().expect("a lesson");
        orders.push(lesson.order);
        // A first question holds the session: nothing is measured before it is answered.
        if lesson.steps[0].question.is_some() {
            let say = &lesson.steps[0].say;
            assert!(
                figures::fill(say, &Store::new(None), 0.0, 10.0) == *say,
                "{name}: the first step's text quotes a figure while the session waits: {say}"
            );
        }
        for (k, st) in lesson.steps.iter().enumerate() {
            let store = run(&at_step(&p, k));
            for text in [&st.say, &st.reveal] {
                let filled = figures::fill(text, &store, SECONDS - 10.0, SECONDS);
                assert!(!filled.contains('…'), "{name} step {k}: {filled}");
                assert!(!filled.contains('{'), "{name} step {k}: {filled}");
                eprintln!("{name} step {k}: {filled}");
            }
        }
        let last = at_step(&p, lesson.steps.len() - 1);
        let store = run(&last);
        let filled = figures::fill(&lesson.expect, &store, SECONDS - 10.0, SECONDS);
        assert!(!filled.contains('…'), "{name}: {filled}");
    }
    let mut sorted = orders.clone();
    sorted.sort();
    assert_eq!(orders, sorted, "in order");
    // Before every other lesson.
    for (name, text) in movescope::support::shipped::PRESETS {
        if name.starts_with("basics-") {
            continue;
        }
        if let Ok(p) = Preset::from_ron(text, name)
            && let Some(l) = p.lesson
        {
            assert!(l.order > *orders.last().expect("basics"), "{name}");
        }
    }
}

#[test]
fn without_prediction_the_owner_waits_a_round_trip_and_with_it_the_server_is_behind() {
    let p = preset("basics-01-no-prediction");
    let off = run(&p);
    let rtt = value(&off, "rtt_ms");
    assert!((180.0..260.0).contains(&rtt), "{rtt}");
    let on = run(&at_step(&p, 1));
    let age = value(&on, "move_age_ms");
    assert!((80.0..200.0).contains(&age), "{age}");
    assert_eq!(value(&on, "corrections"), 0.0);
}

#[test]
fn prediction_agrees_with_the_server_and_the_log_stays_empty() {
    let s = run(&preset("basics-02-prediction"));
    assert_eq!(value(&s, "corrections"), 0.0);
    let age = value(&s, "move_age_ms");
    let rtt = value(&s, "rtt_ms");
    assert!(age > 0.3 * rtt && age < 0.8 * rtt, "age {age} rtt {rtt}");
}

#[test]
fn a_turret_hit_is_corrected_and_replayed_and_stops_with_the_turret() {
    let p = preset("basics-03-correction-and-replay");
    let s = run(&p);
    assert!(value(&s, "corrections") >= 6.0);
    assert!(value(&s, "replay_depth") >= 2.0);
    let off = run(&at_step(&p, 2));
    assert_eq!(value(&off, "corrections"), 0.0);
}

#[test]
fn replay_depth_grows_with_latency() {
    let p = preset("basics-04-replay-depth-and-latency");
    let near = value(&run(&p), "replay_depth");
    let far = value(&run(&at_step(&p, 1)), "replay_depth");
    eprintln!("replay depth: {near} at 30 ms, {far} at 90 ms");
    assert!(far > 2.0 * near, "{near} → {far}");
}

#[test]
fn frames_combine_at_144_fps_and_not_at_30() {
    let p = preset("basics-05-combining");
    let fast = run(&p);
    let fpm = value(&fast, "frames_per_move");
    assert!(fpm >= 3.0, "{fpm}");
    assert!(value(&fast, "sends_per_s") <= 30.5);
    let slow = run(&at_step(&p, 1));
    assert!(value(&slow, "frames_per_move") < 1.1);
}

#[test]
fn a_slow_frame_is_clamped_and_sub_stepped() {
    let p = preset("basics-06-slow-frame");
    let s = run(&p);
    let max = value(&s, "move_delta_max_ms");
    assert!((49.0..=50.01).contains(&max), "{max}");
    assert!(value(&s, "substeps") >= 2.0);
    let fast = run(&at_step(&p, 1));
    assert!(value(&fast, "substeps") < 1.01);
}

#[test]
fn other_pawns_are_shown_in_the_past_and_jitter_pushes_them_further() {
    let p = preset("basics-07-proxies-show-the-past");
    let calm = value(&run(&p), "interp_delay_ms");
    assert!(calm > 50.0, "{calm}");
    let jitter = value(&run(&at_step(&p, 1)), "interp_delay_ms");
    eprintln!("interpolation delay: {calm} calm, {jitter} with jitter");
    assert!(jitter > calm, "{calm} → {jitter}");
}

#[test]
fn the_clock_follows_the_server_with_a_replicator_and_drifts_without() {
    let p = preset("basics-08-the-clock");
    let s = run(&p);
    let with = value(&s, "clock_offset_ms").abs();
    assert!(with < 5.0, "{with}");
    let without = value(&run(&at_step(&p, 1)), "clock_offset_ms").abs();
    eprintln!("clock offset: {with} ms with, {without} ms without");
    assert!(without > 10.0 * with.max(0.1), "{with} → {without}");
}
