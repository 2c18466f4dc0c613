//! Scenario tests of the GMC model in virtual time: each pins one documented behaviour.
//! Deterministic (seeded links, virtual clock) and fast.

use movescope::model::telemetry::{Event, Machine, Record};
use movescope::session::control::Command;
use movescope::session::preset::Preset;
use movescope::session::summary::Summary;
use movescope::sim::harness::Session;
use movescope::sim::run_deterministic;
use proptest::prelude::*;

mod common;

use common::{preset, run, run_collect, total};

#[test]
fn about_four_frames_per_move_at_120_fps_and_one_at_30() {
    let fast = run(&["client_fps=120"], 20.0);
    for c in &fast.clients {
        let m = c.mean_frames_per_move.expect("moves");
        assert!((3.5..=4.0).contains(&m), "client {} at 120 fps: {m}", c.id);
    }
    let slow = run(&["client_fps=30"], 20.0);
    for c in &slow.clients {
        assert_eq!(
            c.mean_frames_per_move,
            Some(1.0),
            "client {} at 30 fps",
            c.id
        );
    }
}

#[test]
fn low_frame_rates_sub_step_and_deltas_are_clamped() {
    let s60 = run(&["client_fps=60"], 5.0);
    assert!(s60.clients.iter().all(|c| c.max_substeps == 1));
    // 20 fps: 50 ms moves > MaxTimeStep 40 ms -> 2 iterations.
    let s20 = run(&["client_fps=20"], 5.0);
    assert!(
        s20.clients.iter().all(|c| c.max_substeps == 2),
        "{:?}",
        s20.clients
    );
    // 10 fps with MaxMoveDeltaTime raised to 0.2: 100 ms moves -> 3 iterations.
    let s10 = run(&["client_fps=10", "gmc.max_move_delta_time=0.2"], 5.0);
    assert!(
        s10.clients.iter().all(|c| c.max_substeps == 3),
        "{:?}",
        s10.clients
    );
    // MaxIterations caps it.
    let capped = run(
        &[
            "client_fps=10",
            "gmc.max_move_delta_time=0.2",
            "gmc.max_iterations=2",
        ],
        5.0,
    );
    assert!(capped.clients.iter().all(|c| c.max_substeps == 2));
    // The delta is clamped to MaxMoveDeltaTime: at 10 fps every move says 50 ms.
    let (_, records) = run_collect(&["client_fps=10"], 5.0);
    let deltas: Vec<f64> = records
        .iter()
        .filter_map(|r| match r.event {
            Event::MoveClosed { delta, .. } => Some(delta),
            _ => None,
        })
        .collect();
    assert!(deltas.len() > 30);
    assert!(
        deltas[1..].iter().all(|d| (d - 0.05).abs() < 1e-6),
        "{deltas:?}"
    );
}

#[test]
fn clean_session_with_100ms_and_5_percent_loss_has_no_corrections() {
    for fps in ["client_fps=120", "client_fps=30", "client_fps=60"] {
        let s = run(&[fps, "link.latency_ms=100", "link.loss=0.05"], 60.0);
        assert_eq!(total(&s, |c| c.corrections), 0, "{fps}: {:?}", s.clients);
        assert!(s.packets.dropped > 100, "loss was applied");
        assert!(s.warnings.is_empty() && s.errors.is_empty());
        for c in &s.clients {
            let rtt = c.rtt_ms_mean.expect("pinged");
            assert!((199.0..=201.0).contains(&rtt), "rtt {rtt}");
        }
    }
}

#[test]
fn unbound_member_causes_corrections_only_when_switched_on() {
    let with = run(&["faults.unbound_member=true", "link.latency_ms=50"], 20.0);
    let without = run(&["link.latency_ms=50"], 20.0);
    assert!(total(&with, |c| c.corrections) > 20, "{:?}", with.clients);
    assert_eq!(total(&without, |c| c.corrections), 0);
    // The correction names server-authoritative movement values.
    let named: u64 = with
        .clients
        .iter()
        .map(|c| {
            c.deviations.get("velocity").copied().unwrap_or(0)
                + c.deviations.get("location").copied().unwrap_or(0)
        })
        .sum();
    assert!(named > 0, "{:?}", with.clients);
}

#[test]
fn reading_the_clock_in_the_tick_causes_corrections_only_when_switched_on() {
    let with = run(
        &["faults.wall_clock_in_tick=true", "link.latency_ms=50"],
        20.0,
    );
    let without = run(&["link.latency_ms=50"], 20.0);
    assert!(total(&with, |c| c.corrections) > 20, "{:?}", with.clients);
    assert_eq!(total(&without, |c| c.corrections), 0);
}

#[test]
fn unsealed_one_shots_fire_again_on_combined_re_runs() {
    let with = run(
        &["faults.no_seal_after_one_shot=true", "client_fps=120"],
        30.0,
    );
    let without = run(&["client_fps=120"], 30.0);
    for c in &with.clients {
        assert!(
            c.one_shot_events as f64 > 1.5 * c.server_one_shot_events as f64,
            "client {} raised {} one-shots, server {}",
            c.id,
            c.one_shot_events,
            c.server_one_shot_events
        );
    }
    for c in &without.clients {
        // Equal except for moves still in flight when the run ends.
        assert!(
            c.one_shot_events.abs_diff(c.server_one_shot_events) <= 3,
            "client {}: {} vs {}",
            c.id,
            c.one_shot_events,
            c.server_one_shot_events
        );
    }
    // At 30 fps nothing is combined, so the fault has nothing to repeat.
    let slow = run(
        &["faults.no_seal_after_one_shot=true", "client_fps=30"],
        30.0,
    );
    for c in &slow.clients {
        assert!(c.one_shot_events.abs_diff(c.server_one_shot_events) <= 3);
    }
}

#[test]
fn dash_bound_always_combine_is_missed_by_the_server_at_high_fps() {
    let with = run(&["faults.dash_always_combine=true", "client_fps=120"], 40.0);
    let without = run(&["client_fps=120"], 40.0);
    let presses = total(&with, |c| c.dash_presses);
    let seen = total(&with, |c| c.server_dashes);
    assert!(presses >= 40);
    assert!(seen * 2 < presses, "server saw {seen} of {presses} dashes");
    for c in &without.clients {
        assert!(c.dash_presses - c.server_dashes <= 1, "{c:?}");
    }
    // Combining is the cause: at 30 fps every frame is its own move.
    let slow = run(&["faults.dash_always_combine=true", "client_fps=30"], 40.0);
    for c in &slow.clients {
        assert!(c.dash_presses - c.server_dashes <= 1, "{c:?}");
    }
}

#[test]
fn unguarded_side_effects_repeat_on_replay() {
    let base = ["world.turret_period_s=1.5", "link.latency_ms=80"];
    let with = run(
        &[base[0], base[1], "faults.unguarded_side_effects=true"],
        40.0,
    );
    let without = run(&base, 40.0);
    assert!(total(&with, |c| c.corrections) > 10);
    assert!(
        total(&with, |c| c.side_effects) > total(&with, |c| c.one_shot_events) + 5,
        "{:?}",
        with.clients
    );
    for c in &without.clients {
        assert_eq!(
            c.side_effects, c.one_shot_events,
            "guarded: once per live event"
        );
    }
}

#[test]
fn replay_depth_grows_with_latency() {
    let depth = |ms: u32| {
        let s = run(
            &["world.turret_period_s=2", &format!("link.latency_ms={ms}")],
            30.0,
        );
        let corr = total(&s, |c| c.corrections);
        assert!(corr > 20, "turret corrections at {ms} ms: {corr}");
        s.clients
            .iter()
            .map(|c| c.mean_replay_depth.expect("corrections"))
            .sum::<f64>()
            / s.clients.len() as f64
    };
    let (d20, d60, d150) = (depth(20), depth(60), depth(150));
    assert!(d20 < d60 && d60 < d150, "{d20} {d60} {d150}");
    // Roughly one move per 33 ms of round trip plus batching.
    assert!(d150 > 8.0, "{d150}");
}

#[test]
fn without_client_replay_corrections_snap_and_replay_nothing() {
    let (s, records) = run_collect(
        &[
            "world.turret_period_s=2",
            "link.latency_ms=60",
            "gmc.use_client_replay=false",
        ],
        20.0,
    );
    assert!(total(&s, |c| c.corrections) > 5);
    assert_eq!(s.clients.iter().map(|c| c.max_replay_depth).max(), Some(0));
    assert!(
        records
            .iter()
            .all(|r| !matches!(r.event, Event::Correction { replayed: true, .. }))
    );
}

#[test]
fn no_world_time_replicator_warns_and_clocks_disagree() {
    let s = run(&["world_time_replicators=0", "link.latency_ms=30"], 10.0);
    assert_eq!(s.warnings.len(), 3, "{:?}", s.warnings);
    assert!(s.warnings[0].contains("AGMC_WorldTimeReplicator"));
    assert!(s.errors.is_empty());
    for c in &s.clients {
        let off = c.clock_offset_ms_mean.expect("sampled");
        assert!(off < -200.0, "client {} offset {off}", c.id);
        let age = c.move_age_ms_mean.expect("moves executed");
        assert!(age > 200.0, "moves look {age} ms old on the server");
    }
    let synced = run(&["link.latency_ms=30"], 10.0);
    assert!(synced.warnings.is_empty());
    for c in &synced.clients {
        let off = c.clock_offset_ms_mean.expect("sampled");
        assert!(off.abs() < 5.0, "client {} offset {off}", c.id);
        let age = c.move_age_ms_mean.expect("moves");
        // Half a round trip plus batching and frame waits.
        assert!((30.0..=80.0).contains(&age), "age {age}");
    }
}

#[test]
fn two_world_time_replicators_are_an_error_and_clocks_stay_apart() {
    // The document: the clock is synchronized only if exactly one replicator exists; two is
    // an error. The clocks stay in their own domains, as with none.
    let s = run(&["world_time_replicators=2", "link.latency_ms=30"], 10.0);
    assert_eq!(s.errors.len(), 3, "{:?}", s.errors);
    assert!(s.errors[0].contains("exactly one"));
    for c in &s.clients {
        let off = c.clock_offset_ms_mean.expect("sampled");
        assert!(
            off < -200.0,
            "client {} offset {off}: not synchronized",
            c.id
        );
        let age = c.move_age_ms_mean.expect("moves executed");
        assert!(age > 200.0, "moves look {age} ms old on the server");
    }
}

#[test]
fn same_seed_reproduces_and_another_seed_differs() {
    let sets = [
        "link.latency_ms=60",
        "link.jitter_ms=20",
        "link.loss=0.05",
        "world.turret_period_s=2",
    ];
    let mut a = run(&sets, 15.0);
    let mut b = run(&sets, 15.0);
    a.wall_seconds = 0.0;
    b.wall_seconds = 0.0;
    assert_eq!(a, b);
    let mut other = preset(&sets);
    other.seed = 99;
    let mut c = run_deterministic(&other, "test", 15.0, &mut |_| {}).unwrap();
    c.wall_seconds = 0.0;
    assert_ne!(a.clients, c.clients);
}

#[test]
fn server_executes_each_move_once_in_order_despite_duplicates_and_loss() {
    let (s, records) = run_collect(
        &[
            "link.latency_ms=40",
            "link.jitter_ms=15",
            "link.duplicate=0.3",
            "link.loss=0.1",
            "link.reorder=true",
            "client_fps=120",
        ],
        20.0,
    );
    let mut last = std::collections::BTreeMap::new();
    let mut executed = 0u64;
    for r in &records {
        if let Event::RemoteMoveExecuted(x) = &r.event {
            let (client, move_id) = (x.client, x.move_id);
            let prev = last.insert(client, move_id).unwrap_or(0);
            assert!(
                move_id > prev,
                "client {client}: move {move_id} after {prev}"
            );
            executed += 1;
        }
    }
    assert!(s.packets.duplicated > 100);
    assert!(executed <= total(&s, |c| c.moves_sent));
    assert!(executed as f64 > 0.95 * total(&s, |c| c.moves_sent) as f64);
}

#[test]
fn corrections_name_the_deviating_values_and_full_validation_lists_all() {
    let corrections = |full: bool| {
        let (_, records) = run_collect(
            &[
                "world.turret_period_s=1",
                "world.turret_knockback=2000",
                "link.latency_ms=50",
                &format!("gmc.force_full_validation={full}"),
            ],
            20.0,
        );
        records
            .into_iter()
            .filter_map(|r| match r.event {
                Event::Correction { deviations, .. } => Some(deviations),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    let first_only = corrections(false);
    assert!(first_only.len() > 10);
    for devs in &first_only {
        assert_eq!(devs.len(), 1, "{devs:?}");
        let d = &devs[0];
        assert!(d.error > d.tolerance, "{d:?}");
        assert_ne!(d.predicted, d.authoritative);
        assert!(d.move_id > 0);
    }
    let full = corrections(true);
    assert!(
        full.iter().any(|d| d.len() >= 2),
        "full validation lists more than the first value"
    );
}

#[test]
fn an_outage_recovers_once_the_link_is_back() {
    let mut p = preset(&["link.latency_ms=30", "client_fps=60"]);
    p.link.outages.push(movescope::conditions::link::Window {
        start_s: 3.0,
        duration_s: 3.0,
    });
    let mut session = Session::new(&p).unwrap();
    let mut acked_after = 0usize;
    session.run_until(5.5, &mut |_| {});
    let stuck = session.client(0).unwrap().pending_moves();
    assert!(stuck > 50, "moves pile up during the outage: {stuck}");
    session.run_until(10.0, &mut |r: Record| {
        if let (Machine::Server, Event::RemoteMoveExecuted(x)) = (r.machine, &r.event)
            && x.client == 0
        {
            acked_after += 1;
        }
    });
    let pending = session.client(0).unwrap().pending_moves();
    assert!(pending < 10, "still {pending} pending after recovery");
    assert!(acked_after > 100);
}

/// Case count: `PROPTEST_CASES` when set (for long local runs), else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn a_consistent_binding_change_respawns_the_pawns_without_corrections() {
    let mut p = preset(&["client_fps=120", "link.latency_ms=40"]);
    p.clients = 2;
    let mut session = Session::new(&p).unwrap();
    let mut before = Summary::default_builder(&p);
    session.run_until(15.0, &mut |r| before.record(&r));
    let before = before.finish("deterministic", "t", p.seed, 15.0, 0.0);
    // Bind the dash AlwaysCombine, consistently.
    p.faults.dash_always_combine = true;
    session
        .command(
            Command::ChangeBindings {
                bindings: Box::new(p.bindings().unwrap()),
                consistent: true,
            },
            &mut |_| {},
        )
        .unwrap();
    let mut after = Summary::default_builder(&p);
    session.run_until(45.0, &mut |r| after.record(&r));
    let after = after.finish("deterministic", "t", p.seed, 30.0, 0.0);
    assert_eq!(
        total(&before, |c| c.corrections) + total(&after, |c| c.corrections),
        0
    );
    for c in &before.clients {
        assert!(c.dash_presses - c.server_dashes <= 1, "{c:?}");
    }
    // After the change the server misses most pulses: the new combine mode is in force.
    assert!(total(&after, |c| c.server_dashes) * 2 < total(&after, |c| c.dash_presses));
    assert_eq!(after.packets.malformed, 0);
}

#[test]
fn a_client_only_binding_change_corrupts_the_exchanged_states() {
    let mut p = preset(&["link.latency_ms=30"]);
    p.clients = 2;
    let mut session = Session::new(&p).unwrap();
    session.run_until(5.0, &mut |_| {});
    // The client stops sending its location (now ClientValidated) but the server still
    // decodes the old layout.
    p.bindings
        .push(movescope::session::preset::BindingOverride {
            name: "location".into(),
            prediction: Some(
                movescope::model::binding::PredictionMode::ServerAuth_Output_ClientValidated,
            ),
            ..Default::default()
        });
    session
        .command(
            Command::ChangeBindings {
                bindings: Box::new(p.bindings().unwrap()),
                consistent: false,
            },
            &mut |_| {},
        )
        .unwrap();
    let mut after = Summary::default_builder(&p);
    session.run_until(15.0, &mut |r| after.record(&r));
    let after = after.finish("deterministic", "t", p.seed, 10.0, 0.0);
    let trouble = total(&after, |c| c.corrections) + after.packets.malformed;
    assert!(
        trouble > 10,
        "corrections {} malformed {}",
        total(&after, |c| c.corrections),
        after.packets.malformed
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(12), .. ProptestConfig::default() })]
    /// Invariant: a session with no pitfall and no server-decided outcome never corrects,
    /// whatever the frame rate and network conditions.
    #[test]
    fn clean_sessions_never_correct(
        fps in 15.0f64..200.0,
        latency in 0.0f64..150.0,
        jitter in 0.0f64..30.0,
        loss in 0.0f64..0.15,
        fps_jitter in 0.0f64..0.5,
        seed in any::<u64>(),
    ) {
        let mut p = Preset {
            seed,
            client_fps: fps,
            client_fps_jitter: fps_jitter,
            ..Preset::default()
        };
        p.link.latency_ms = latency;
        p.link.jitter_ms = jitter;
        p.link.loss = loss;
        let s = run_deterministic(&p, "prop", 8.0, &mut |_| {}).unwrap();
        prop_assert_eq!(total(&s, |c| c.corrections), 0, "{:?}", s.clients);
        prop_assert!(total(&s, |c| c.moves_sent) > 0);
    }
}

#[test]
fn the_value_trace_adds_move_values_and_changes_nothing_else() {
    use movescope::model::pawn::Execution;
    use movescope::model::telemetry::{Event, Machine};
    // Lossy, sub-stepped, with a pitfall that corrects (replays run).
    let sets = [
        "faults.unbound_member=true",
        "link.loss=0.05",
        "gmc.max_time_step=0.005",
    ];
    let (_, plain) = run_collect(&sets, 6.0);
    let (_, traced) = run_collect(&[&sets[..], &["value_trace=true"]].concat(), 6.0);
    let without: Vec<_> = traced
        .iter()
        .filter(|r| !matches!(r.event, Event::MoveValues(_)))
        .cloned()
        .collect();
    assert!(without == plain, "the trace changed the session");
    let mut execs = std::collections::BTreeMap::<String, usize>::new();
    for r in &traced {
        let Event::MoveValues(v) = &r.event else {
            continue;
        };
        *execs.entry(format!("{:?}", v.exec)).or_default() += 1;
        match (r.machine, v.exec) {
            (Machine::Client(c), Execution::Live | Execution::Combined | Execution::Replay) => {
                assert_eq!(v.owner, Some(c))
            }
            (Machine::Server, Execution::Remote) => assert!(v.owner.is_some()),
            other => panic!("unexpected traced execution {other:?}"),
        }
        assert!(!v.substeps.is_empty());
        if let Machine::Client(_) = r.machine {
            // Nothing runs after the tick on the client: the end is the last sub-step.
            assert_eq!(v.substeps.last(), Some(&v.exit));
        }
    }
    for e in ["Live", "Replay", "Remote"] {
        assert!(
            execs.get(e).is_some_and(|n| *n > 0),
            "no {e} execution traced: {execs:?}"
        );
    }
    // Moves longer than MaxTimeStep are split into sub-steps, each traced.
    assert!(
        traced
            .iter()
            .any(|r| matches!(&r.event, Event::MoveValues(v) if v.substeps.len() > 1))
    );
}
