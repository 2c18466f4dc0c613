//! GMC fidelity: one test per claim of the source document
//! (`gmc-prediction-skill.txt`) that the model once got wrong. Each test is named after the
//! claim and runs in virtual time. docs/model.md has the table of claims and tests.

use movescope::model::pawn::Execution;
use movescope::model::telemetry::{Event, Hook, Machine, NetContext, Record};
use movescope::preset::Preset;
use movescope::sim::run_deterministic;
use movescope::summary::Summary;

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
    let base = ["link.latency_ms=50"];
    let (fwd, records) = run_collect(&[base[0], "smoothing.mode=ForwardSimulation"], 20.0);
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
    assert!(simulated_shots > 0, "forward simulation raised one-shots");
    for (f, i) in fwd.clients.iter().zip(&interp.clients) {
        assert_eq!(
            f.side_effects, i.side_effects,
            "client {}: side effects are the same whatever the smoothing mode",
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
