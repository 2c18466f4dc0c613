//! Simulated proxies, smoothing, net modes, the hook trace and the proxy-side pitfalls, in
//! virtual time.

use movescope::conditions::link::LinkParams;
use movescope::model::messages::MsgKind;
use movescope::model::pawn::{Execution, OneShotKind};
use movescope::model::telemetry::{Event, Hook, Machine, NetContext, Record, Role};
use movescope::session::summary::Summary;
use movescope::sim::harness::Session;
use movescope::sim::run_deterministic;

mod common;
use common::{preset, run, run_collect, total};

#[test]
fn adaptive_delay_tracks_latency_plus_buffer() {
    for (ms, expect) in [(20.0, 150.0), (50.0, 180.0), (150.0, 280.0)] {
        let s = run(&[&format!("link.latency_ms={ms}")], 15.0);
        for c in &s.clients {
            let d = c.interp_delay_ms_mean.expect("proxies displayed");
            assert!(
                (d - expect).abs() < 3.0,
                "{ms} ms: client {} delay {d}",
                c.id
            );
            assert!(c.extrapolation_seconds < 0.05, "{c:?}");
        }
    }
    // The buffer time is a setting.
    let s = run(&["link.latency_ms=50", "smoothing.buffer_time=0.3"], 10.0);
    let d = s.clients[0].interp_delay_ms_mean.unwrap();
    assert!((d - 350.0).abs() < 3.0, "{d}");
}

#[test]
fn adaptive_delay_resyncs_when_latency_changes() {
    let p = preset(&["clients=2", "link.latency_ms=30"]);
    let mut session = Session::new(&p).unwrap();
    session.run_until(8.0, &mut |_| {});
    session
        .command(
            movescope::session::control::Command::SetLink {
                client: 0,
                direction: movescope::session::preset::Direction::Both,
                params: LinkParams {
                    latency_ms: 200.0,
                    ..Default::default()
                },
            },
            &mut |_| {},
        )
        .unwrap();
    let mut delays = Vec::new();
    session.run_until(16.0, &mut |r| {
        if let (Machine::Client(0), Event::ProxiesDisplayed(x)) = (r.machine, &r.event) {
            delays.push((r.t, x.delay_mean));
        }
    });
    let late: Vec<f64> = delays
        .iter()
        .filter(|(t, _)| *t > 12.0)
        .map(|(_, d)| *d)
        .collect();
    assert!(!late.is_empty());
    for d in late {
        assert!(
            (d - 0.33).abs() < 0.01,
            "re-synced to 200 ms + 130 ms buffer: {d}"
        );
    }
}

#[test]
fn on_change_values_reach_proxies_at_once_and_none_values_never() {
    let p = preset(&["clients=3", "link.latency_ms=40", "net_update_rate=10"]);
    let mut session = Session::new(&p).unwrap();
    let mut dashes = Vec::new();
    let mut forced = Vec::new();
    session.run_until(20.0, &mut |r| match &r.event {
        Event::OneShot {
            kind: OneShotKind::DashFired,
            exec: Execution::Remote,
            pawn,
            ..
        } if r.machine == Machine::Server => dashes.push((r.t, *pawn)),
        Event::ForcedUpdate { pawn, binding } if &**binding == "dash_count" => {
            forced.push((r.t, *pawn))
        }
        _ => {}
    });
    assert!(dashes.len() > 10);
    // Each dash forces an update in the same server frame (not at the next 100 ms tick).
    for (t, pawn) in &dashes {
        assert!(
            forced
                .iter()
                .any(|(ft, fp)| fp == pawn && (ft - t).abs() < 1e-9),
            "dash of pawn {pawn} at {t} forced no update"
        );
    }
    // What a client holds for another pawn: dash_count arrives, stride (SimulationMode None)
    // never does.
    let c0 = session.client(0).unwrap();
    let mut saw_dash_count = false;
    for proxy in c0.proxies() {
        for (_, v) in proxy.states() {
            assert_eq!(v.stride, 0.0, "a None value reached a proxy");
            assert_eq!(v.move_ramp, 0.0);
            saw_dash_count |= v.dash_count > 0;
        }
    }
    assert!(saw_dash_count);
}

#[test]
fn value_bound_simulation_none_never_reaches_proxies() {
    let with = run(&["faults.proxy_value_not_simulated=true"], 20.0);
    let without = run(&[], 20.0);
    assert_eq!(total(&with, |c| c.proxy_effects), 0);
    assert!(total(&without, |c| c.proxy_effects) > 20);
    // Proxies see every other player's dash.
    for c in &without.clients {
        let others: u64 = without
            .clients
            .iter()
            .filter(|o| o.id != c.id)
            .map(|o| o.server_dashes)
            .sum();
        assert!(
            c.proxy_effects + 2 >= others && c.proxy_effects <= others,
            "{} vs {others}",
            c.proxy_effects
        );
    }
}

#[test]
fn a_late_joiner_shows_no_replicated_state_during_the_post_spawn_pause() {
    let mut p = preset(&["clients=3"]);
    p.join_interval_s = 2.0; // client 2 joins at 6 s
    let mut paused_until = Vec::new();
    let mut first_spawn = None;
    run_deterministic(&p, "t", 12.0, &mut |r| {
        if r.machine == Machine::Client(2) {
            match &r.event {
                Event::ProxySpawned { .. } => {
                    first_spawn.get_or_insert(r.t);
                }
                Event::ProxiesDisplayed(x) if x.paused > 0 => paused_until.push(r.t),
                _ => {}
            }
        }
    })
    .unwrap();
    let spawn = first_spawn.expect("client 2 saw proxies");
    let last_paused = paused_until.iter().copied().fold(0.0, f64::max);
    let pause = p.gmc.post_spawn_smoothing_pause;
    assert!(
        (last_paused - spawn - pause).abs() < 0.1,
        "paused from {spawn} to {last_paused}, expected {pause} s"
    );
}

#[test]
fn spawn_data_only_as_a_bound_value_is_missing_during_the_pause() {
    let with = run(&["faults.spawn_data_only_bound=true"], 10.0);
    let without = run(&[], 10.0);
    assert!(total(&with, |c| c.proxy_frames_team_unknown) > 100);
    assert_eq!(total(&without, |c| c.proxy_frames_team_unknown), 0);
}

#[test]
fn transitions_detected_in_on_sync_data_applied_fire_too_often() {
    let base = [
        "world.turret_period_s=1",
        "link.latency_ms=80",
        "client_fps=120",
    ];
    let with = run(
        &[
            base[0],
            base[1],
            base[2],
            "faults.transition_in_sync_applied=true",
        ],
        40.0,
    );
    let without = run(&base, 40.0);
    assert!(
        total(&with, |c| c.transitions_detected) > total(&with, |c| c.server_dashes) + 5,
        "{:?}",
        with.clients
    );
    for c in &without.clients {
        assert!(
            c.transitions_detected.abs_diff(c.server_dashes) <= 1,
            "{c:?}"
        );
    }
}

#[test]
fn bindings_that_differ_between_client_and_server_corrupt_states_and_are_reported() {
    let s = run(&["faults.binding_mismatch=true"], 10.0);
    assert!(
        s.errors
            .iter()
            .any(|e| e.contains("different binding list")),
        "{:?}",
        s.errors
    );
    assert!(total(&s, |c| c.corrections) > 100);
    let clean = run(&[], 10.0);
    assert!(clean.errors.is_empty());
}

#[test]
fn a_tick_reading_displayed_proxies_diverges() {
    let with = run(
        &[
            "faults.tick_reads_proxy_transform=true",
            "link.latency_ms=50",
        ],
        20.0,
    );
    let without = run(&["link.latency_ms=50"], 20.0);
    assert!(total(&with, |c| c.corrections) > 20, "{:?}", with.clients);
    assert_eq!(total(&without, |c| c.corrections), 0);
}

#[test]
fn listen_server_host_is_a_server_pawn_and_smooths_remote_pawns() {
    let (s, records) = run_collect(&["net_mode=listen", "link.latency_ms=40"], 15.0);
    // Client 0 is the host: it is no network client.
    assert_eq!(
        s.clients.iter().map(|c| c.id).collect::<Vec<_>>(),
        vec![1, 2]
    );
    assert_eq!(total(&s, |c| c.corrections), 0);
    let server_roles = &s.roles["server"];
    let host = server_roles
        .iter()
        .filter(|(_, r)| r.contains(&Role::LocallyControlledServerPawn))
        .count();
    assert_eq!(
        host, 3,
        "two AI pawns and the host's pawn: {server_roles:?}"
    );
    let smoothed = server_roles
        .values()
        .filter(|r| r.contains(&Role::SmoothedListenServerPawn))
        .count();
    assert_eq!(smoothed, 2);
    assert!(s.server.host_interp_delay_ms_mean.is_some());
    // Nobody corrects the host: no correction is ever sent to a client 0.
    assert!(
        !records
            .iter()
            .any(|r| matches!(r.event, Event::CorrectionSent { client: 0, .. }))
    );
}

#[test]
fn standalone_never_predicts_replays_combines_or_smooths() {
    let faults = [
        "net_mode=standalone",
        "client_fps=120",
        "faults.unbound_member=true",
        "faults.wall_clock_in_tick=true",
        "faults.no_seal_after_one_shot=true",
        "faults.unguarded_side_effects=true",
        "faults.tick_reads_proxy_transform=true",
        "faults.transition_in_sync_applied=true",
    ];
    let (s, records) = run_collect(&faults, 15.0);
    assert!(s.clients.is_empty());
    assert!(s.errors.is_empty() && s.warnings.is_empty());
    assert_eq!(s.server.remote_moves_executed, 0);
    assert!(s.server.local_moves_executed > 1000);
    assert!(!records.iter().any(|r| matches!(
        r.event,
        Event::Correction { .. } | Event::ProxiesDisplayed(_) | Event::MoveClosed { .. }
    )));
    assert!(!records.iter().any(|r| matches!(
        r.event,
        Event::Packet {
            kind: MsgKind::StateUpdate,
            ..
        }
    )));
}

#[test]
fn without_client_prediction_the_owner_is_smoothed_and_never_corrected() {
    let s = run(
        &[
            "gmc.use_client_prediction=false",
            "link.latency_ms=50",
            "world.turret_period_s=1",
        ],
        15.0,
    );
    assert_eq!(total(&s, |c| c.corrections), 0);
    for c in &s.clients {
        let roles = &s.roles[&format!("client {}", c.id)];
        assert!(
            roles
                .values()
                .any(|r| r.contains(&Role::AutonomousProxyNotPredicted))
        );
        assert_eq!(c.one_shot_events, 0, "the owner runs no prediction tick");
    }
}

#[test]
fn the_hook_trace_follows_the_documented_order() {
    let (_, records) = run_collect(
        &[
            "hook_trace=true",
            "clients=2",
            "client_fps=120",
            "world.turret_period_s=1",
            "link.latency_ms=60",
        ],
        6.0,
    );
    type H = (Machine, Hook, u32, Option<Execution>, Option<NetContext>);
    let hooks: Vec<H> = records
        .iter()
        .filter_map(|r| match &r.event {
            Event::Hook {
                hook,
                move_id,
                exec,
                context,
                ..
            } => Some((r.machine, *hook, *move_id, *exec, *context)),
            _ => None,
        })
        .collect();
    assert!(hooks.len() > 1000);
    // Never on a dedicated server: GenSimulationTick.
    assert!(
        !hooks
            .iter()
            .any(|h| h.0 == Machine::Server && h.1 == Hook::GenSimulationTick)
    );
    // GenAncillaryTick never runs for replays, and on the server never as a combined move.
    assert!(
        !hooks
            .iter()
            .any(|h| h.1 == Hook::GenAncillaryTick && h.3 == Some(Execution::Replay))
    );
    assert!(!hooks.iter().any(|h| h.0 == Machine::Server
        && h.1 == Hook::GenAncillaryTick
        && h.3 == Some(Execution::Combined)));
    let client: Vec<&H> = hooks.iter().filter(|h| h.0 == Machine::Client(0)).collect();
    let mut local_moves = 0;
    let mut replays = 0;
    for (i, h) in client.iter().enumerate() {
        // PreLocalMoveExecution → (OnSyncDataApplied reset) → GenPredictionTick… →
        // GenAncillaryTick → OnSyncDataApplied(post local move), all for the same move.
        if h.1 == Hook::PreLocalMoveExecution {
            local_moves += 1;
            let rest: Vec<&&H> = client[i + 1..]
                .iter()
                .take_while(|x| x.4 != Some(NetContext::LocalClientPawn_PostLocalMoveExecution))
                .collect();
            let ticks = rest
                .iter()
                .filter(|x| x.1 == Hook::GenPredictionTick)
                .count();
            assert!(ticks >= 1, "{rest:?}");
            assert!(rest.iter().all(|x| x.2 == h.2), "one move: {rest:?}");
            let anc = rest
                .iter()
                .position(|x| x.1 == Hook::GenAncillaryTick)
                .expect("ancillary");
            assert_eq!(
                anc,
                rest.len() - 1,
                "ancillary last before the post-move load: {rest:?}"
            );
        }
        // Replays: pre-replay load → GenPredictionTick (replaying) → post-replay load.
        if h.4 == Some(NetContext::LocalClientPawn_PreReplayMoveExecution) {
            replays += 1;
            assert_eq!(client[i + 1].1, Hook::GenPredictionTick);
            assert_eq!(client[i + 1].3, Some(Execution::Replay));
            let post = client[i + 1..]
                .iter()
                .find(|x| x.1 != Hook::GenPredictionTick)
                .expect("post-replay load");
            assert_eq!(
                post.4,
                Some(NetContext::LocalClientPawn_PostReplayMoveExecution)
            );
            assert_eq!(post.2, h.2);
        }
    }
    assert!(
        local_moves > 300 && replays > 5,
        "{local_moves} local, {replays} replayed"
    );
    // WorldTickEnd closes every client frame: no other hook of that frame follows it.
    let c0: Vec<&Record> = records
        .iter()
        .filter(|r| r.machine == Machine::Client(0) && matches!(r.event, Event::Hook { .. }))
        .collect();
    let mut ends = 0;
    for (i, r) in c0.iter().enumerate() {
        if matches!(
            r.event,
            Event::Hook {
                hook: Hook::WorldTickEnd,
                ..
            }
        ) {
            ends += 1;
            assert!(
                c0.get(i + 1).is_none_or(|n| n.t > r.t),
                "a hook after WorldTickEnd in the same frame"
            );
        }
    }
    assert!(ends > 500);
}

#[test]
fn rollback_makes_the_server_agree_with_what_the_client_saw() {
    let base = ["clients=8", "link.latency_ms=100", "world.spawn_radius=400"];
    let with = run(
        &[base[0], base[1], base[2], "gmc.roll_back_server_pawns=true"],
        120.0,
    );
    let without = run(
        &[
            base[0],
            base[1],
            base[2],
            "gmc.roll_back_server_pawns=false",
        ],
        120.0,
    );
    let claimed = total(&with, |c| c.hits_claimed);
    assert!(claimed > 30, "dashes tagged somebody: {claimed}");
    assert_eq!(
        claimed,
        total(&without, |c| c.hits_claimed),
        "same session up to the check"
    );
    let agree = |s: &Summary| total(s, |c| c.hits_confirmed) as f64 / claimed as f64;
    assert!(agree(&with) > 0.9, "with rollback {}", agree(&with));
    assert!(
        agree(&without) < 0.75,
        "without rollback {}",
        agree(&without)
    );
    assert!(total(&without, |c| c.hit_disagreements) > 3 * total(&with, |c| c.hit_disagreements));
}

#[test]
fn the_buffer_trace_reports_every_state_and_each_display_change() {
    use movescope::model::telemetry::DisplayMode;
    // Jitter larger than the fixed delay: the buffer runs dry and refills.
    let (p, _) = movescope::session::preset::Preset::find("net-02-jitter-vs-buffer").unwrap();
    let mut traced = p.clone();
    traced.buffer_trace = true;
    let mut records = Vec::new();
    run_deterministic(&traced, "test", 8.0, &mut |r| records.push(r.clone())).unwrap();
    let states = records
        .iter()
        .filter(|r| matches!(r.event, Event::ProxyState { .. }))
        .count();
    let modes: Vec<DisplayMode> = records
        .iter()
        .filter_map(|r| match r.event {
            Event::ProxyDisplay { mode, .. } => Some(mode),
            _ => None,
        })
        .collect();
    assert!(states > 500, "{states} states");
    for m in [
        DisplayMode::Waiting,
        DisplayMode::Interpolating,
        DisplayMode::Extrapolating,
    ] {
        assert!(modes.contains(&m), "{m:?} never reported");
    }
    // Every state is reported once, as it arrives: states are not older than the server
    // time at arrival, and each arrival of a proxy's state follows the previous one.
    for r in &records {
        if let Event::ProxyState {
            state_time,
            server_now,
            ..
        } = r.event
        {
            assert!(
                state_time <= server_now + 1e-9,
                "{state_time} > {server_now}"
            );
        }
    }
    // Display changes only: never the same (delay, mode) twice in a row for a pawn.
    let mut last: std::collections::HashMap<(Machine, u16), (f64, DisplayMode)> =
        Default::default();
    for r in &records {
        if let Event::ProxyDisplay { pawn, delay, mode } = r.event
            && let Some(prev) = last.insert((r.machine, pawn), (delay, mode))
        {
            assert_ne!(prev, (delay, mode), "a repeated report at {}", r.t);
        }
    }
    // Off (the default): nothing of it, and the simulation is the same.
    let mut plain = Vec::new();
    run_deterministic(&p, "test", 8.0, &mut |r| plain.push(r.clone())).unwrap();
    assert!(!plain.iter().any(|r| matches!(
        r.event,
        Event::ProxyState { .. } | Event::ProxyDisplay { .. }
    )));
    let without: Vec<&Record> = records
        .iter()
        .filter(|r| {
            !matches!(
                r.event,
                Event::ProxyState { .. } | Event::ProxyDisplay { .. }
            )
        })
        .collect();
    assert_eq!(without.len(), plain.len());
    assert!(without.iter().zip(&plain).all(|(a, b)| *a == b));
}

/// "The actor is visible where actor replication spawned it": during PostSpawnSmoothingPause a
/// new proxy (and a non-predicting owner's own pawn) stands at its spawn transform, not at the
/// world origin, and the pause does not end in a jump from the origin.
#[test]
fn during_the_post_spawn_pause_a_pawn_is_shown_where_actor_replication_spawned_it() {
    use movescope::model::telemetry::{PawnSample, SampleKind};
    for sets in [
        &["clients=3"][..],
        &["clients=3", "gmc.use_client_prediction=false"],
    ] {
        let mut p = preset(sets);
        p.join_interval_s = 2.0; // client 2 joins at 6 s
        let pause = p.gmc.post_spawn_smoothing_pause;
        let mut spawned: std::collections::HashMap<u16, f64> = Default::default();
        let mut own: Option<(u16, f64)> = None;
        let mut in_pause: Vec<std::sync::Arc<PawnSample>> = Vec::new();
        run_deterministic(&p, "t", 9.0, &mut |r| {
            if r.machine != Machine::Client(2) {
                return;
            }
            match &r.event {
                Event::ProxySpawned { pawn, .. } => {
                    spawned.entry(*pawn).or_insert(r.t);
                }
                Event::Role { pawn, .. } if own.is_none() => own = Some((*pawn, r.t)),
                Event::PawnSample(s) => {
                    let since = if Some(s.pawn) == own.map(|o| o.0) {
                        own.map(|o| o.1)
                    } else {
                        spawned.get(&s.pawn).copied()
                    };
                    if since.is_some_and(|at| r.t - at < pause - 0.05) {
                        in_pause.push(s.clone());
                    }
                }
                _ => {}
            }
        })
        .unwrap();
        let watched: Vec<&std::sync::Arc<PawnSample>> = in_pause
            .iter()
            .filter(|s| s.kind == SampleKind::Displayed || own.is_some_and(|o| o.0 == s.pawn))
            .filter(|s| sets.len() > 1 || s.kind == SampleKind::Displayed)
            .collect();
        assert!(watched.len() > 20, "{sets:?}: {} samples", watched.len());
        for s in &watched {
            assert!(
                s.location.length() > 1.0,
                "{sets:?}: pawn {} shown at the origin during its pause: {:?}",
                s.pawn,
                s.location
            );
        }
        // Each stands still (its spawn transform) for the whole pause.
        let mut first: std::collections::HashMap<u16, glam::DVec3> = Default::default();
        for s in &watched {
            let at = *first.entry(s.pawn).or_insert(s.location);
            assert!(
                at.distance(s.location) < 0.2,
                "{sets:?}: pawn {} moved during its pause",
                s.pawn
            );
        }
    }
}
