//! GMC fidelity: one test per claim of the source document
//! (`gmc-prediction-skill.txt`) that the model once got wrong. Each test is named after the
//! claim and runs in virtual time. docs/model.md has the table of claims and tests.

use movescope::model::pawn::Execution;
use movescope::model::telemetry::{Event, Hook, Machine, NetContext, Record, Role};
use movescope::session::preset::Preset;
use movescope::session::summary::Summary;
use movescope::sim::run_deterministic;

mod common;

use common::{run, run_collect, total};

fn shipped(name: &str, sets: &[&str]) -> Preset {
    let (mut p, _) = Preset::find(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    for kv in sets {
        p.set(kv).unwrap_or_else(|e| panic!("{kv}: {e}"));
    }
    p
}

fn run_preset(p: &Preset, seconds: f64) -> (Summary, Vec<Record>) {
    let mut records = Vec::new();
    let s = run_deterministic(p, "test", seconds, &mut |r| records.push(r.clone()))
        .expect("valid preset");
    (s, records)
}

fn hooks(
    records: &[Record],
) -> impl Iterator<Item = (Machine, Hook, u16, Option<NetContext>)> + '_ {
    records.iter().filter_map(|r| match r.event {
        Event::Hook {
            hook,
            pawn,
            context,
            ..
        } => Some((r.machine, hook, pawn, context)),
        _ => None,
    })
}

/// "IsSimulatedMove() is true when GMC runs the prediction tick for display or rollback only
/// (the ForwardSimulation and LocalSimulation smoothing modes, pawn rollback). Those executions
/// must not touch gameplay state outside the bound set."
#[test]
fn simulated_moves_must_not_touch_gameplay_state_outside_the_bound_set() {
    for mode in ["ForwardSimulation", "LocalSimulation"] {
        simulated_executions_play_no_guarded_side_effect(mode);
    }
}

fn simulated_executions_play_no_guarded_side_effect(mode: &str) {
    let base = ["link.latency_ms=50"];
    let (fwd, records) = run_collect(&[base[0], &format!("smoothing.mode={mode}")], 20.0);
    let interp = run(&[base[0]], 20.0);
    let simulated_effects = records
        .iter()
        .filter(|r| {
            matches!(
                r.event,
                Event::SideEffect {
                    exec: Execution::Simulated,
                    ..
                }
            )
        })
        .count();
    assert_eq!(
        simulated_effects, 0,
        "a guarded side effect ran in a simulated execution"
    );
    let simulated_shots = records
        .iter()
        .filter(|r| {
            matches!(
                r.event,
                Event::OneShot {
                    exec: Execution::Simulated,
                    ..
                }
            )
        })
        .count();
    assert!(
        simulated_shots > 0,
        "{mode}: simulated executions raised one-shots"
    );
    for (f, i) in fwd.clients.iter().zip(&interp.clients) {
        assert_eq!(
            f.side_effects, i.side_effects,
            "{mode}, client {}: side effects are the same whatever the smoothing mode",
            f.id
        );
    }
}

/// "GMC can roll other pawns back to the executing pawn's view time while a move runs
/// (bRollBackServerPawns, bRollBackClientPawns, both default true; OnPawnRolledBack). This is
/// why hooks fire with historical states on pawns that are not the one moving."
#[test]
fn rollback_puts_other_pawns_at_the_movers_view_time_while_a_move_runs() {
    let corrections = |roll: &str| {
        let p = shipped(
            "pitfall-02b-reads-displayed-pawns",
            &[&format!("gmc.roll_back_server_pawns={roll}")],
        );
        let (s, _) = run_preset(&p, 30.0);
        total(&s, |c| c.corrections)
    };
    let off = corrections("false");
    let on = corrections("true");
    assert!(
        off > 300,
        "a tick reading displayed pawns without rollback: {off}"
    );
    assert!(
        on * 5 < off,
        "rollback covers the tick: {on} corrections with it, {off} without"
    );
    assert!(
        on > 0,
        "rollback cannot make an interpolated view exact: some corrections remain"
    );

    // The hook trace: OnPawnRolledBack and RollbackSwap loads fire on the pawns that are not
    // moving, around remote moves on the server and replays on the clients.
    let p = shipped(
        "pitfall-02b-reads-displayed-pawns",
        &["gmc.roll_back_server_pawns=true", "hook_trace=true"],
    );
    let (_, records) = run_preset(&p, 10.0);
    let mut server_rolled = 0;
    let mut client_rolled = 0;
    let mut swaps = 0;
    let mut moved: std::collections::HashSet<u16> = Default::default();
    for (machine, hook, pawn, ctx) in hooks(&records) {
        match (machine, hook) {
            (Machine::Server, Hook::OnPawnRolledBack) => {
                server_rolled += 1;
                moved.insert(pawn);
            }
            (Machine::Client(_), Hook::OnPawnRolledBack) => client_rolled += 1,
            (_, Hook::OnSyncDataApplied) if ctx == Some(NetContext::RollbackSwap) => swaps += 1,
            _ => {}
        }
    }
    assert!(server_rolled > 100, "server rollbacks: {server_rolled}");
    assert!(
        client_rolled > 0,
        "client rollbacks during replays: {client_rolled}"
    );
    // Each rolled-back pawn is swapped in and out again.
    assert_eq!(swaps, 2 * (server_rolled + client_rolled));
    // AI pawns (ids past the players) are rolled back too, not only player pawns.
    assert!(moved.len() > 3, "pawns rolled back: {moved:?}");

    let p = shipped(
        "pitfall-02b-reads-displayed-pawns",
        &[
            "gmc.roll_back_server_pawns=false",
            "gmc.roll_back_client_pawns=false",
            "hook_trace=true",
        ],
    );
    let (_, records) = run_preset(&p, 5.0);
    assert_eq!(
        hooks(&records)
            .filter(|(_, h, _, _)| *h == Hook::OnPawnRolledBack)
            .count(),
        0,
        "no rollback when both switches are off"
    );
}

/// The own pawn of each client, from its Role records.
fn own_pawns(records: &[Record]) -> std::collections::HashMap<u16, u16> {
    records
        .iter()
        .filter_map(|r| match (r.machine, &r.event) {
            (
                Machine::Client(c),
                Event::Role {
                    pawn,
                    role: Role::AutonomousProxy | Role::AutonomousProxyNotPredicted,
                },
            ) => Some((c, *pawn)),
            _ => None,
        })
        .collect()
}

/// "Simulated proxies … GenSimulationTick(DeltaTime) runs once per frame for cosmetics. The
/// same path serves an autonomous proxy whose bUseClientPrediction is false: it is smoothed
/// like a proxy and gets GenSimulationTick instead of predicted moves."
#[test]
fn an_owner_without_prediction_is_smoothed_like_a_proxy_and_gets_gen_simulation_tick() {
    let (s, records) = run_collect(&["gmc.use_client_prediction=false", "hook_trace=true"], 5.0);
    let own = own_pawns(&records);
    assert_eq!(own.len(), s.clients.len());
    let mut simulation_ticks = 0;
    for (machine, hook, pawn, ctx) in hooks(&records) {
        let Machine::Client(c) = machine else {
            continue;
        };
        if own.get(&c) != Some(&pawn) {
            continue;
        }
        match hook {
            Hook::PreLocalMoveExecution | Hook::GenPredictionTick | Hook::GenAncillaryTick => {
                panic!("client {c} ran {hook:?} on its unpredicted pawn {pawn}")
            }
            Hook::OnSyncDataApplied => assert_eq!(
                ctx,
                Some(NetContext::RemoteClientPawn_Simulation),
                "client {c}: an unpredicted owner's pawn is loaded only by smoothing"
            ),
            Hook::GenSimulationTick => simulation_ticks += 1,
            _ => {}
        }
    }
    assert!(
        simulation_ticks > 3 * 200,
        "GenSimulationTick on own pawns: {simulation_ticks}"
    );
    // It still sends its input: the server executes its moves.
    assert!(
        s.server.remote_moves_executed > 300,
        "{}",
        s.server.remote_moves_executed
    );
}

/// "OnSyncDataApplied … fires each time GMC loads a state into the pawn: before and after a
/// local move, … around remote-move execution on the server, on every smoothing step of a
/// simulated proxy (RemoteClientPawn_Simulation), and during rollback swaps."
#[test]
fn on_sync_data_applied_fires_before_and_after_every_local_move() {
    let (_, records) = run_collect(&["hook_trace=true", "ai_pawns=2"], 5.0);
    let own = own_pawns(&records);
    let mut pre = 0;
    let mut post = 0;
    let mut ancillary = 0;
    let mut server_pre = 0;
    let mut server_post = 0;
    for (machine, hook, pawn, ctx) in hooks(&records) {
        match (machine, hook, ctx) {
            (Machine::Client(c), Hook::OnSyncDataApplied, Some(x)) if own[&c] == pawn => match x {
                NetContext::LocalClientPawn_PreLocalMoveExecution => pre += 1,
                NetContext::LocalClientPawn_PostLocalMoveExecution => post += 1,
                _ => {}
            },
            (Machine::Client(c), Hook::GenAncillaryTick, _) if own[&c] == pawn => ancillary += 1,
            (Machine::Server, Hook::OnSyncDataApplied, Some(x)) => match x {
                NetContext::ServerPawn_PreLocalMoveExecution => server_pre += 1,
                NetContext::ServerPawn_PostLocalMoveExecution => server_post += 1,
                _ => {}
            },
            _ => {}
        }
    }
    // Every local move, fresh or combined re-run, loads before and after.
    assert!(ancillary > 3 * 250, "local moves: {ancillary}");
    assert_eq!(pre, ancillary, "a load before every local move");
    assert_eq!(post, ancillary, "a load after every local move");
    // AI moves on the server too.
    let ai_moves = records
        .iter()
        .filter(|r| matches!(r.event, Event::LocalMoveExecuted { .. }))
        .count();
    assert!(ai_moves > 2 * 250);
    assert_eq!(server_pre, ai_moves);
    assert_eq!(server_post, ai_moves);

    // No smoothing load for a proxy inside PostSpawnSmoothingPause (nothing is applied), while
    // its GenSimulationTick runs every frame.
    let pause = Preset::default().gmc.post_spawn_smoothing_pause;
    let mut spawned: std::collections::HashMap<(Machine, u16), f64> = Default::default();
    let mut ticks_in_pause = 0;
    for r in &records {
        match &r.event {
            Event::ProxySpawned { pawn, .. } => {
                spawned.insert((r.machine, *pawn), r.t);
            }
            Event::Hook {
                hook,
                pawn,
                context,
                ..
            } => {
                let Some(&at) = spawned.get(&(r.machine, *pawn)) else {
                    continue;
                };
                let in_pause = r.t - at < pause - 1e-9;
                if *context == Some(NetContext::RemoteClientPawn_Simulation) {
                    assert!(
                        !in_pause,
                        "{} loaded pawn {pawn} {:.3} s after its spawn",
                        r.machine,
                        r.t - at
                    );
                }
                if *hook == Hook::GenSimulationTick && in_pause {
                    ticks_in_pause += 1;
                }
            }
            _ => {}
        }
    }
    assert!(!spawned.is_empty());
    assert!(
        ticks_in_pause > 0,
        "GenSimulationTick runs during the pause"
    );
}

/// "PreLocalMoveExecution … owning client and server-controlled pawns, before the move's
/// input is saved — last chance to write input values for this move."
#[test]
fn pre_local_move_execution_runs_before_the_input_is_saved() {
    let (_, records) = run_collect(&["hook_trace=true", "client_fps=120"], 3.0);
    let own = own_pawns(&records);
    // Client 0's own-pawn hooks, frame by frame.
    let mut frames: Vec<Vec<(Hook, u32, Option<NetContext>)>> = Vec::new();
    let mut last_t = f64::NAN;
    for r in &records {
        let (
            Machine::Client(0),
            Event::Hook {
                hook,
                pawn,
                move_id,
                context,
                ..
            },
        ) = (r.machine, &r.event)
        else {
            continue;
        };
        if *pawn != own[&0] || matches!(hook, Hook::WorldTickEnd | Hook::BindReplicationData) {
            continue;
        }
        if r.t != last_t {
            frames.push(Vec::new());
            last_t = r.t;
        }
        frames
            .last_mut()
            .expect("pushed")
            .push((*hook, *move_id, *context));
    }
    let mut combined = 0;
    let mut checked = 0;
    for f in &frames {
        let Some(i) = f.iter().position(|h| h.0 == Hook::PreLocalMoveExecution) else {
            continue;
        };
        checked += 1;
        let id = f[i].1;
        // The input is saved (the Pre load), then the tick runs, all for that same move.
        assert_eq!(
            f[i + 1],
            (
                Hook::OnSyncDataApplied,
                id,
                Some(NetContext::LocalClientPawn_PreLocalMoveExecution)
            ),
            "{f:?}"
        );
        assert_eq!(f[i + 2].0, Hook::GenPredictionTick, "{f:?}");
        assert_eq!(
            f[i + 2].1,
            id,
            "PreLocalMoveExecution names the move the frame went into"
        );
        if i + 2 < f.len()
            && frames
                .iter()
                .filter(|g| g.iter().any(|h| h.1 == id))
                .count()
                > 1
        {
            combined += 1;
        }
    }
    assert!(checked > 300, "frames checked: {checked}");
    assert!(combined > 100, "combined frames among them: {combined}");
}

/// "While the bound inputs allow combining and the accumulated delta stays within
/// MaxCombinedDeltaTime … the newest frame is merged into the pending move", and a move's delta
/// is "clamped to MaxMoveDeltaTime, 0.05 s": with MaxCombinedDeltaTime above MaxMoveDeltaTime
/// GMC merges up to the combined limit and then clamps the move, so the time of the frames past
/// the clamp is lost and the pawn runs slow — shown, with the warning, not prevented.
#[test]
fn a_combining_limit_above_the_clamp_runs_the_pawn_slow_as_in_gmc() {
    let (s, records) = run_collect(&["client_fps=120", "gmc.max_combined_delta_time=0.1"], 10.0);
    let mut frames_max = 0;
    for r in &records {
        if let Event::MoveClosed { delta, frames, .. } = r.event {
            assert!(delta <= 0.05 + 1e-9, "a clamped move of {delta} s");
            frames_max = frames_max.max(frames);
        }
    }
    assert!(
        (11..=13).contains(&frames_max),
        "frames merged up to MaxCombinedDeltaTime: {frames_max}"
    );
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("MaxCombinedDeltaTime") && w.contains("runs slow")),
        "the slow pawn is said: {:?}",
        s.warnings
    );
    // Time moved by client 0's moves against the session's: about half is lost (0.05 of
    // every 0.1 s) while frames combine fully.
    let moved = |records: &[movescope::model::telemetry::Record]| -> f64 {
        records
            .iter()
            .filter(|r| r.machine == Machine::Client(0))
            .filter_map(|r| match r.event {
                Event::MoveClosed { delta, .. } => Some(delta),
                _ => None,
            })
            .sum()
    };
    let slow = moved(&records);
    let (fine_summary, fine_records) = run_collect(&["client_fps=120"], 10.0);
    let fine = moved(&fine_records);
    eprintln!("time moved in 10 s: {fine:.2} s within the clamp, {slow:.2} s above it");
    assert!(fine > 9.5, "within the clamp no time is lost: {fine}");
    assert!(
        slow < 0.75 * fine && slow > 0.4 * fine,
        "the pawn runs slow: {slow} s of {fine} s"
    );
    assert!(
        fine_summary
            .warnings
            .iter()
            .all(|w| !w.contains("MaxCombinedDeltaTime"))
    );
}

/// "BindReplicationData … every machine, once, before any net serialization – the only place
/// to bind"; "Bindings cannot be removed once made". A binding edit is a new build: every
/// pawn is respawned with the new list on every machine; nothing is swapped under a running
/// pawn. The clients-only edit stays the binding-mismatch pitfall.
#[test]
fn bindings_are_made_once_per_pawn_so_a_binding_edit_respawns_every_pawn() {
    use movescope::session::control::{Command, Outcome};
    use movescope::sim::harness::Session;
    let mut p = common::preset(&["hook_trace=true", "link.latency_ms=30"]);
    let mut records = Vec::new();
    let mut s = Session::new(&p).expect("valid");
    s.run_until(5.0, &mut |r| records.push(r));
    let binds_before = hooks(&records)
        .filter(|h| h.1 == Hook::BindReplicationData)
        .count();
    // Every machine binds every pawn it has once: 3 clients and the server, 5 pawns each.
    assert_eq!(binds_before, 4 * 5, "BindReplicationData before the edit");
    p.faults.dash_always_combine = true;
    let cut = records.len();
    let outcome = s
        .command(
            Command::ChangeBindings {
                bindings: Box::new(p.bindings().expect("valid")),
                consistent: true,
            },
            &mut |r| records.push(r),
        )
        .expect("accepted");
    assert_eq!(outcome, Outcome::Respawned);
    s.run_until(12.0, &mut |r| records.push(r));
    let after = &records[cut..];
    let changed = after
        .iter()
        .find_map(|r| match &r.event {
            Event::SessionChanged { what } => Some(what.clone()),
            _ => None,
        })
        .expect("the respawn is marked");
    assert!(changed.contains("every pawn respawned"), "{changed}");
    // Every pawn bound again on every machine, with the new list; the session goes on.
    let binds_after = hooks(after)
        .filter(|h| h.1 == Hook::BindReplicationData)
        .count();
    assert_eq!(binds_after, 4 * 5, "BindReplicationData after the edit");
    let moves_after = after
        .iter()
        .filter(|r| matches!(r.event, Event::RemoteMoveExecuted(_)))
        .count();
    assert!(moves_after > 300, "moves after the respawn: {moves_after}");
    let corrections = after
        .iter()
        .filter(|r| matches!(r.event, Event::Correction { .. }))
        .count();
    assert_eq!(corrections, 0, "a consistent new build does not correct");
    assert_eq!(
        s.server()
            .bindings()
            .by_name("input_dash")
            .map(|b| b.combine),
        p.bindings()
            .expect("valid")
            .by_name("input_dash")
            .map(|b| b.combine),
        "the server's pawns use the new list"
    );

    // Clients only: no respawn, the mismatch pitfall.
    let mut s = Session::new(&common::preset(&["link.latency_ms=30"])).expect("valid");
    s.run_until(3.0, &mut |_| {});
    let outcome = s
        .command(
            Command::ChangeBindings {
                bindings: Box::new(p.bindings().expect("valid")),
                consistent: false,
            },
            &mut |_| {},
        )
        .expect("accepted");
    assert_eq!(outcome, Outcome::AtNextMoveBoundary);
}

/// "IsSimulatedMove() is true when GMC runs the prediction tick for display or rollback only
/// (the ForwardSimulation and LocalSimulation smoothing modes, …)": both modes show proxies
/// in the present, computed by simulated executions, close to where the server has them.
#[test]
fn local_simulation_shows_proxies_in_the_present_by_simulated_executions() {
    let gap = |mode: &str| {
        let (_, records) = run_collect(
            &[
                "link.latency_ms=60",
                "ai_pawns=3",
                "world_view_rate=20",
                &format!("smoothing.mode={mode}"),
            ],
            15.0,
        );
        // Client 0's displayed proxies against the server's pawns at the same instant.
        let mut server: std::collections::HashMap<u16, Vec<(f64, glam::DVec3)>> =
            Default::default();
        for r in &records {
            if let (Machine::Server, Event::PawnSample(p)) = (r.machine, &r.event) {
                server.entry(p.pawn).or_default().push((r.t, p.location));
            }
        }
        // Where the server had `pawn` at `t` (between its samples).
        let server_at = |pawn: u16, t: f64| {
            let s = server.get(&pawn)?;
            let k = s.partition_point(|(st, _)| *st <= t);
            let (t0, a) = *s.get(k.checked_sub(1)?)?;
            let (t1, b) = *s.get(k)?;
            Some(a.lerp(b, (t - t0) / (t1 - t0)))
        };
        let mut sum = 0.0;
        let mut n = 0;
        for r in &records {
            if let (Machine::Client(0), Event::PawnSample(p)) = (r.machine, &r.event) {
                if p.kind != movescope::model::telemetry::SampleKind::Displayed || r.t < 3.0 {
                    continue;
                }
                if let Some(at) = server_at(p.pawn, r.t) {
                    sum += at.distance(p.location);
                    n += 1;
                }
            }
        }
        assert!(n > 100, "{mode}: samples {n}");
        sum / n as f64
    };
    let interpolated = gap("AdaptiveBufferedInterpolation");
    let local = gap("LocalSimulation");
    let forward = gap("ForwardSimulation");
    assert!(
        local < interpolated * 0.6,
        "LocalSimulation {local:.1} vs interpolation {interpolated:.1} (cm behind the server)"
    );
    assert!(
        (local - forward).abs() < interpolated * 0.3,
        "LocalSimulation {local:.1} and ForwardSimulation {forward:.1} show the present"
    );
}

/// "GenAncillaryTick(float DeltaTime, bool bLocalMove, bool bCombinedClientMove) … owning
/// client and server, after the move … bCombinedClientMove is true on the client when the move
/// was re-executed rather than newly enqueued; always false on the server"; replays: "IsLocalMove()
/// is false; GenAncillaryTick is not called for replayed moves."
#[test]
fn executions_are_labelled_with_the_documents_role_queries() {
    let p = common::preset(&[
        "client_fps=120",
        "hook_trace=true",
        "value_trace=true",
        "world.turret_period_s=1",
        "link.latency_ms=40",
    ]);
    let (_, records) = run_preset(&p, 6.0);
    let b = p.checked_bindings().expect("valid");
    let (mut combined, mut server, mut replays) = (0, 0, 0);
    for m in 20..200 {
        let Some(l) =
            movescope::analysis::lineage::trace(b.list(), &records, &[], "recorded", 0, m)
        else {
            continue;
        };
        for s in &l.steps {
            let ancillary: Vec<&String> = s
                .hooks
                .iter()
                .filter(|h| h.starts_with("GenAncillaryTick"))
                .collect();
            if s.what.starts_with("re-executed with the next frame merged") {
                assert!(s.what.contains("IsLocalMove, IsCombinedMove"), "{}", s.what);
                assert_eq!(
                    ancillary,
                    ["GenAncillaryTick(bLocalMove=true, bCombinedClientMove=true)"]
                );
                combined += 1;
            } else if s.what.starts_with("executed on the server") {
                assert_eq!(
                    ancillary,
                    ["GenAncillaryTick(bLocalMove=false, bCombinedClientMove=false)"]
                );
                server += 1;
            } else if s.what.starts_with("re-run in the replay") {
                assert!(
                    ancillary.is_empty(),
                    "no GenAncillaryTick in a replay: {:?}",
                    s.hooks
                );
                replays += 1;
            }
        }
    }
    assert!(combined > 50, "combined re-runs: {combined}");
    assert!(server > 50, "server executions: {server}");
    assert!(replays > 0, "replayed moves: {replays}");
}

/// "The owning client is in a similar position for server-authoritative bound values until
/// its first server update arrives": a value that travels only bound is missing from the
/// owner's first predicted moves, and its first reply corrects it.
#[test]
fn the_owner_lacks_server_authoritative_values_until_its_first_server_update() {
    use movescope::analysis::doctor::Cause;
    let only_bound = shipped("pitfall-07-spawn-data-only-bound", &["value_trace=true"]);
    let (_, records) = run_preset(&only_bound, 10.0);
    let team_corrections: Vec<(u16, u32)> = records
        .iter()
        .filter_map(|r| match (&r.machine, &r.event) {
            (
                Machine::Client(c),
                Event::Correction {
                    move_id,
                    deviations,
                    ..
                },
            ) if deviations.iter().any(|d| &*d.binding == "team") => Some((*c, *move_id)),
            _ => None,
        })
        .collect();
    // One per client, on one of its very first moves.
    assert_eq!(team_corrections.len(), 3, "{team_corrections:?}");
    assert!(
        team_corrections.iter().all(|(_, m)| *m <= 3),
        "{team_corrections:?}"
    );
    let b = only_bound.checked_bindings().expect("valid");
    let report = movescope::analysis::doctor::examine(b.list(), &records);
    let first = report
        .diagnoses
        .iter()
        .filter(|d| d.deviations.iter().any(|v| v.binding == "team"))
        .map(|d| d.cause)
        .collect::<Vec<_>>();
    assert_eq!(first, vec![Some(Cause::BeforeFirstServerUpdate); 3]);

    // Sent also as an actor property, the team seeds the owner's bound copy at spawn.
    let fixed = shipped("pitfall-07-spawn-data-only-bound-fixed", &[]);
    let (s, _) = run_preset(&fixed, 10.0);
    assert_eq!(total(&s, |c| c.corrections), 0);
}

/// "Each frame GMC calls PreLocalMoveExecution, saves the input, runs GenPredictionTick …,
/// then GenAncillaryTick, then saves the output": on the owning client a move's saved values
/// (the value trace's exit) follow its GenAncillaryTick and precede the post-move load.
#[test]
fn the_output_is_saved_after_gen_ancillary_tick() {
    let (_, records) = run_collect(&["hook_trace=true", "value_trace=true"], 3.0);
    let mut checked = 0;
    for c in 0..3u16 {
        // (move id, what happened) in the client's own order.
        let mut last: Option<(u32, &str)> = None;
        for r in records.iter().filter(|r| r.machine == Machine::Client(c)) {
            let step = match &r.event {
                Event::Hook {
                    hook: Hook::GenAncillaryTick,
                    move_id,
                    ..
                } => Some((*move_id, "ancillary")),
                Event::MoveValues(v) if matches!(v.exec, Execution::Live | Execution::Combined) => {
                    Some((v.move_id, "output saved"))
                }
                Event::Hook {
                    hook: Hook::OnSyncDataApplied,
                    move_id,
                    context: Some(NetContext::LocalClientPawn_PostLocalMoveExecution),
                    ..
                } => Some((*move_id, "post-move load")),
                _ => None,
            };
            let Some((id, what)) = step else { continue };
            match what {
                "output saved" => {
                    assert_eq!(
                        last,
                        Some((id, "ancillary")),
                        "client {c} move {id}: saved before GenAncillaryTick"
                    );
                    checked += 1;
                }
                "post-move load" => assert_eq!(last, Some((id, "output saved")), "client {c}"),
                _ => {}
            }
            last = Some((id, what));
        }
    }
    assert!(checked > 3 * 100, "moves checked: {checked}");
}

/// "Local is not synchronized at all": whatever its simulation mode, a Local value is in no
/// set of values any message carries.
#[test]
fn local_values_are_not_synchronized_at_all() {
    use movescope::model::binding::{Bindings, PredictionMode, SimulationMode};
    use movescope::model::pawn::default_bindings;
    use movescope::model::settings::Faults;
    let n = default_bindings(&Faults::default()).len();
    let mut lists = 0;
    for sim in SimulationMode::ALL {
        for i in 0..n {
            let mut list = default_bindings(&Faults::default());
            list[i].prediction = PredictionMode::Local;
            list[i].simulation = sim;
            let Ok(b) = Bindings::new(list) else { continue };
            lists += 1;
            let f = b.list()[i].field;
            for (set, mask) in [
                ("sent with moves (input)", b.client_sends_input),
                ("sent with moves (output)", b.client_sends_output),
                ("sent with acknowledgements", b.client_validated),
                ("sent with corrections", b.server_auth),
                ("sent to proxies", b.simulated),
            ] {
                assert!(!mask.contains(f), "{} ({sim:?}) is {set}", b.list()[i].name);
            }
            assert!(b.simulated_list().iter().all(|(g, ..)| *g != f));
        }
    }
    assert!(lists >= n, "binding lists tried: {lists}");
}

/// "The owning client is in a similar position for server-authoritative bound values until
/// its first server update arrives": the join brings the actor's transform and actor
/// properties only. A client that restarts predicts from them and its first reply brings the
/// server's bound values (here the dashes it made before the restart).
#[test]
fn the_join_brings_no_bound_value_only_the_spawned_actor() {
    use movescope::session::control::Command;
    use movescope::sim::harness::Session;
    let p = common::preset(&["clients=1", "value_trace=true"]);
    let mut s = Session::new(&p).expect("valid");
    let mut r = Vec::new();
    s.run_until(6.0, &mut |x| r.push(x));
    let server_pawn = |s: &Session| {
        s.server()
            .pawns()
            .iter()
            .find(|p| p.owner == Some(0))
            .expect("client 0's pawn")
            .values
            .clone()
    };
    let dashes = server_pawn(&s).dash_count;
    assert!(dashes > 0, "the pawn dashed before the restart");
    s.command(Command::RestartClient(0), &mut |x| r.push(x))
        .expect("restart");
    let restarted = s.now();
    s.run_until(8.0, &mut |x| r.push(x));
    let c = s.client(0).expect("client 0");
    assert_eq!(c.values().dash_count, server_pawn(&s).dash_count);
    // Before its first update the restarted client predicted with the class default, not the
    // server's dash count; the first reply is a correction that brings it.
    let after: Vec<&Record> = r
        .iter()
        .filter(|x| x.t > restarted && x.machine == Machine::Client(0))
        .collect();
    let first_move = after
        .iter()
        .find_map(|x| match &x.event {
            Event::MoveValues(v) if v.exec == Execution::Live => Some(v.clone()),
            _ => None,
        })
        .expect("a move after the restart");
    assert_eq!(
        first_move.entry.dash_count, 0,
        "the join brought a bound value"
    );
    let first_reply = after
        .iter()
        .find_map(|x| match &x.event {
            Event::Correction { .. } => Some("correction"),
            Event::Packet {
                kind: movescope::model::messages::MsgKind::Ack,
                ..
            } => Some("ack"),
            _ => None,
        })
        .expect("a reply after the restart");
    assert_eq!(first_reply, "correction");
}

/// "Other pawns are rolled back … by loading a historical state (hooks see historical states,
/// OnSyncDataApplied fires with RollbackSwap)": a hit check during a rolled-back remote move
/// reads the other pawn's whole bound state at the mover's view time — its velocity too, not
/// only where it stood — and without rollback its present one.
#[test]
fn a_hit_check_in_a_rolled_back_move_reads_the_targets_past_velocity() {
    let sets = |roll: &str| {
        [
            "link.latency_ms=120".to_string(),
            "clients=6".to_string(),
            "world_view_rate=1000".to_string(),
            format!("gmc.roll_back_server_pawns={roll}"),
        ]
    };
    let reads = |records: &[Record]| {
        records
            .iter()
            .filter_map(|r| match &r.event {
                Event::HitTargetRead(h) => Some((
                    (h.client, h.move_id),
                    (h.target, h.seen_at, h.velocity, h.rolled_back, r.t),
                )),
                _ => None,
            })
            .collect::<std::collections::HashMap<_, _>>()
    };
    let on = sets("true");
    let off = sets("false");
    let (_, rolled) = run_collect(&on.iter().map(String::as_str).collect::<Vec<_>>(), 30.0);
    let (_, present) = run_collect(&off.iter().map(String::as_str).collect::<Vec<_>>(), 30.0);
    let (rolled_reads, present_reads) = (reads(&rolled), reads(&present));
    assert!(rolled_reads.len() >= 5, "hits read: {}", rolled_reads.len());
    // The server's own samples of every pawn, every frame: (pawn, time) -> velocity.
    let samples: Vec<(u16, f64, glam::DVec3)> = rolled
        .iter()
        .filter_map(|r| match (&r.machine, &r.event) {
            (Machine::Server, Event::PawnSample(s))
                if s.kind == movescope::model::telemetry::SampleKind::Authoritative =>
            {
                Some((s.pawn, r.t, s.velocity))
            }
            _ => None,
        })
        .collect();
    let (mut differs, mut checked) = (0, 0);
    for (key, (target, seen_at, velocity, rolled_back, time)) in &rolled_reads {
        assert!(rolled_back, "{key:?}");
        assert!(
            *seen_at < *time,
            "{key:?}: read at {seen_at} in the past of {time}"
        );
        // A view time on a frame's end is ambiguous here: the records' times and the server's
        // clock may differ in the last bits. Those reads are left out.
        if samples
            .iter()
            .any(|(p, t, _)| p == target && (t - seen_at).abs() < 1e-6)
        {
            continue;
        }
        let then = samples
            .iter()
            .rfind(|(p, t, _)| p == target && *t < *seen_at)
            .map(|s| s.2)
            .expect("a sample before the view time");
        checked += 1;
        assert!(
            velocity.distance(then) < 0.1,
            "{key:?}: read {velocity} but pawn {target} moved at {then} at {seen_at} s"
        );
        // The same move without rollback (the movement is the same: nothing in the default
        // tick reads other pawns) reads the present.
        let Some(&(now_target, now_at, now_velocity, now_rolled, now_time)) =
            present_reads.get(key)
        else {
            continue;
        };
        assert!(!now_rolled && now_at <= now_time);
        if now_target == *target && now_velocity.distance(*velocity) > 1.0 {
            differs += 1;
        }
    }
    eprintln!("{checked} reads checked, {differs} differ from the present");
    assert!(checked >= 5, "reads checked against the samples: {checked}");
    assert!(
        differs > 0,
        "the past and the present velocities of the targets never differed"
    );
}

/// model-facts: "GMC 2.x default bindings for built-in values: location/rotation/scale
/// ServerAuth_Output_ServerValidated; velocities ServerAuth_Output_ClientValidated; control
/// rotation ClientAuth_Input; all AlwaysCombine, Periodic_Output, interpolated Linear,
/// two-decimal compression", with tolerances location 2, rotation 2, velocities 10, scale 0.01.
#[test]
fn gmcs_built_ins_are_bound_with_gmcs_defaults() {
    use movescope::model::binding::{
        BoundType as T, CombineMode, InterpolationFunction, PredictionMode as P, SimulationMode,
    };
    let b = Preset::default().checked_bindings().expect("valid");
    let expected = [
        (
            "location",
            T::CompressedVector,
            P::ServerAuth_Output_ServerValidated,
            Some(2.0),
        ),
        (
            "rotation",
            T::CompressedRotator,
            P::ServerAuth_Output_ServerValidated,
            Some(2.0),
        ),
        (
            "scale",
            T::CompressedVector,
            P::ServerAuth_Output_ServerValidated,
            Some(0.01),
        ),
        (
            "velocity",
            T::CompressedVector,
            P::ServerAuth_Output_ClientValidated,
            Some(10.0),
        ),
        (
            "angular_velocity",
            T::CompressedVector,
            P::ServerAuth_Output_ClientValidated,
            Some(10.0),
        ),
        // Client-authoritative: nobody compares it, so its tolerance says nothing.
        (
            "control_rotation",
            T::CompressedRotator,
            P::ClientAuth_Input,
            None,
        ),
    ];
    for (name, ty, prediction, tolerance) in expected {
        let got = b
            .by_name(name)
            .unwrap_or_else(|| panic!("`{name}` is not bound"));
        assert_eq!((got.ty, got.prediction), (ty, prediction), "{name}");
        assert_eq!(got.combine, CombineMode::AlwaysCombine, "{name}");
        assert_eq!(got.simulation, SimulationMode::Periodic_Output, "{name}");
        assert_eq!(got.interpolation, InterpolationFunction::Linear, "{name}");
        if let Some(t) = tolerance {
            assert_eq!(got.tolerance, t, "{name}");
        }
    }
}

/// Control rotation is a client-authoritative input: it goes up with every move and the server
/// runs the move with the client's value (no check); velocities and angular velocity come down
/// for the client to check; the demo pawn's turn shows as an angular velocity on both sides.
#[test]
fn the_control_rotation_goes_up_with_each_move_and_the_server_runs_with_it() {
    use movescope::model::telemetry::MoveValues;
    let p = shipped("default", &["value_trace=true"]);
    let (s, records) = run_preset(&p, 10.0);
    assert_eq!(
        total(&s, |c| c.corrections),
        0,
        "the built-ins cost no correction"
    );
    let values = |exec: Execution| {
        records
            .iter()
            .filter_map(move |r| match &r.event {
                Event::MoveValues(v) if v.exec == exec => Some(v.clone()),
                _ => None,
            })
            .map(|v: std::sync::Arc<MoveValues>| ((v.owner, v.move_id), v))
            .collect::<std::collections::HashMap<_, _>>()
    };
    let (client, server) = (values(Execution::Live), values(Execution::Remote));
    let mut compared = 0;
    let mut looking_elsewhere = 0;
    let mut turning = 0;
    for (key, c) in &client {
        let Some(sv) = server.get(key) else { continue };
        // The server runs the move with the control rotation the client gathered.
        assert_eq!(
            sv.entry.control_rotation, c.entry.control_rotation,
            "{key:?}"
        );
        compared += 1;
        looking_elsewhere += usize::from(c.entry.control_rotation.y.abs() > 1.0);
        turning += usize::from(sv.exit.angular_velocity.z.abs() > 1.0);
        assert_eq!(sv.exit.scale, glam::DVec3::ONE);
    }
    assert!(compared > 500, "moves compared: {compared}");
    assert!(
        looking_elsewhere > compared / 10,
        "{looking_elsewhere} of {compared}"
    );
    assert!(turning > 0, "no move turned the pawn");
}

/// The built-ins cost bits on every move: scale goes up for the server to validate and control
/// rotation goes up as an input. Made Local (never synchronized), each move is that much
/// smaller — the figure the bandwidth numbers are built on.
#[test]
fn the_built_ins_bits_are_in_every_moves_size() {
    use movescope::model::binding::PredictionMode;
    use movescope::session::preset::BindingOverride;
    let with = shipped("default", &[]);
    let mut without = with.clone();
    for name in ["scale", "control_rotation"] {
        without.bindings.push(BindingOverride {
            name: name.into(),
            ty: None,
            prediction: Some(PredictionMode::Local),
            combine: None,
            simulation: None,
            interpolation: None,
            tolerance: None,
        });
    }
    let bits = |p: &Preset| {
        let (s, _) = run_preset(p, 10.0);
        s.clients
            .iter()
            .map(|c| c.value_bits_per_move.expect("moves sent"))
            .sum::<f64>()
            / s.clients.len() as f64
    };
    let (a, b) = (bits(&with), bits(&without));
    // Scale (1, 1, 1): 6 + 3 × 8 bits; control rotation (0, yaw, 0): at least 6 + 3 × 1.
    assert!(
        a - b >= 30.0 + 9.0,
        "with the built-ins {a:.1} bits, without {b:.1}"
    );
    assert!(
        a - b <= 30.0 + 6.0 + 3.0 * 17.0,
        "with {a:.1}, without {b:.1}"
    );
}
