//! Every live control, driven deterministically through the virtual-time harness: the same
//! `Command`s the live session takes, applied at a session time, each checked for its effect
//! and for its `SessionChanged` record in the stream.

mod common;

use movescope::conditions::link::LinkParams;
use movescope::model::input::RawInput;
use movescope::model::messages::MsgKind;
use movescope::model::telemetry::{Event, LogLevel, Machine, PacketFate, Record};
use movescope::session::control::{Command, CommandError, Outcome};
use movescope::session::preset::{Direction, Preset};
use movescope::sim::harness::Session;

use common::preset;

/// A session of `sets` run to `t0`, then `cmd` applied, then run to `t1`. Returns the
/// outcome, the records before the command, the command's own records, and those after.
fn around(
    sets: &[&str],
    t0: f64,
    cmd: Command,
    t1: f64,
) -> (Outcome, Vec<Record>, Vec<Record>, Vec<Record>) {
    let mut s = Session::new(&preset(sets)).unwrap();
    let mut before = Vec::new();
    s.run_until(t0, &mut |r| before.push(r));
    let mut at = Vec::new();
    let outcome = s.command(cmd, &mut |r| at.push(r)).expect("accepted");
    let mut after = Vec::new();
    s.run_until(t1, &mut |r| after.push(r));
    (outcome, before, at, after)
}

fn changes(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match &r.event {
            Event::SessionChanged { what } => Some(what.clone()),
            _ => None,
        })
        .collect()
}

fn count(records: &[Record], f: impl Fn(&Record) -> bool) -> usize {
    records.iter().filter(|r| f(r)).count()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn rtts(records: &[Record], client: u16) -> Vec<f64> {
    records
        .iter()
        .filter_map(|r| match (&r.event, r.machine) {
            (Event::Rtt { rtt }, Machine::Client(c)) if c == client => Some(*rtt),
            _ => None,
        })
        .collect()
}

fn corrections(records: &[Record]) -> usize {
    count(records, |r| matches!(r.event, Event::Correction { .. }))
}

#[test]
fn a_link_change_takes_effect_at_its_time_and_is_recorded() {
    let (outcome, before, at, after) = around(
        &["clients=2", "ai_pawns=0"],
        3.0,
        Command::SetLink {
            client: 1,
            direction: Direction::Both,
            params: LinkParams {
                latency_ms: 60.0,
                ..LinkParams::default()
            },
        },
        8.0,
    );
    assert_eq!(outcome, Outcome::AppliedNow);
    let c = changes(&at);
    assert_eq!(c.len(), 1);
    assert!(
        c[0].starts_with("client 1 link: ") && c[0].contains("up latency_ms: 0.0 -> 60.0"),
        "{c:?}"
    );
    assert!(at.iter().all(|r| r.t == 3.0));
    assert!(mean(&rtts(&before, 1)) < 0.02);
    let late: Vec<f64> = after
        .iter()
        .filter(|r| r.t > 4.0)
        .filter_map(|r| match (&r.event, r.machine) {
            (Event::Rtt { rtt }, Machine::Client(1)) => Some(*rtt),
            _ => None,
        })
        .collect();
    assert!(mean(&late) > 0.115, "{late:?}");
    // Client 0 keeps its link.
    assert!(mean(&rtts(&after, 0)) < 0.02);
}

#[test]
fn gmc_settings_change_the_send_rate() {
    let sent = |records: &[Record], t0: f64, t1: f64| {
        count(records, |r| {
            r.t > t0
                && r.t <= t1
                && r.machine == Machine::Client(0)
                && matches!(r.event, Event::MovesSent { .. })
        })
    };
    let mut g = Preset::default().gmc;
    g.client_send_rate = 10.0;
    let (outcome, before, at, after) =
        around(&["clients=1", "ai_pawns=0"], 4.0, Command::SetGmc(g), 8.0);
    assert_eq!(outcome, Outcome::AppliedNow);
    assert_eq!(
        changes(&at),
        vec!["gmc.client_send_rate: 30.0 -> 10.0".to_string()]
    );
    let (b, a) = (sent(&before, 2.0, 4.0), sent(&after, 6.0, 8.0));
    assert!((55..=65).contains(&b), "{b} sends in 2 s at 30/s");
    assert!((18..=22).contains(&a), "{a} sends in 2 s at 10/s");
}

#[test]
fn a_tick_pitfall_switched_on_live_makes_corrections() {
    let mut f = Preset::default().faults;
    f.wall_clock_in_tick = true;
    let (outcome, before, at, after) = around(
        &["clients=2", "ai_pawns=0", "link.latency_ms=30"],
        4.0,
        Command::SetFaults(f),
        10.0,
    );
    assert_eq!(outcome, Outcome::AppliedNow);
    assert_eq!(
        changes(&at),
        vec!["faults.wall_clock_in_tick: false -> true".to_string()]
    );
    assert_eq!(corrections(&before), 0);
    assert!(corrections(&after) > 5, "{}", corrections(&after));
}

#[test]
fn a_binding_pitfall_switched_on_live_respawns_every_pawn_with_the_new_list() {
    let mut f = Preset::default().faults;
    f.unbound_member = true;
    let (outcome, _, at, after) = around(
        &["clients=2", "ai_pawns=0", "link.latency_ms=50"],
        4.0,
        Command::SetFaults(f),
        14.0,
    );
    assert_eq!(outcome, Outcome::Respawned);
    let c = changes(&at);
    assert!(
        c[0].contains("faults.unbound_member: false -> true")
            && c[0].contains("binding move_ramp removed"),
        "{c:?}"
    );
    assert!(corrections(&after) > 0, "the pitfall shows");
}

#[test]
fn smoothing_and_net_update_rate_change_what_proxies_show() {
    let delay = |records: &[Record], t0: f64| {
        let v: Vec<f64> = records
            .iter()
            .filter(|r| r.t > t0 && r.machine == Machine::Client(0))
            .filter_map(|r| match &r.event {
                Event::ProxiesDisplayed(x) => Some(x.delay_mean),
                _ => None,
            })
            .collect();
        mean(&v)
    };
    let mut sm = Preset::default().smoothing;
    sm.buffer_time = 0.4;
    let (_, before, at, after) = around(
        &["clients=2", "link.latency_ms=20"],
        6.0,
        Command::SetSmoothing(sm),
        16.0,
    );
    assert_eq!(
        changes(&at),
        vec!["smoothing.buffer_time: 0.13 -> 0.4".to_string()]
    );
    let (d0, d1) = (delay(&before, 4.0), delay(&after, 12.0));
    assert!(d1 > d0 + 0.2, "{d0} -> {d1}");
    let updates = |records: &[Record], t0: f64, t1: f64| {
        count(records, |r| {
            r.t > t0
                && r.t <= t1
                && r.machine == Machine::Server
                && matches!(
                    r.event,
                    Event::Packet {
                        to: Machine::Client(0),
                        fate: PacketFate::Sent,
                        kind: MsgKind::StateUpdate,
                        ..
                    }
                )
        })
    };
    let (_, before, at, after) = around(&["clients=2"], 4.0, Command::SetNetUpdateRate(10.0), 8.0);
    assert_eq!(
        changes(&at),
        vec!["net_update_rate: 30.0 -> 10.0".to_string()]
    );
    let (b, a) = (updates(&before, 2.0, 4.0), updates(&after, 6.0, 8.0));
    assert!(
        a * 2 < b,
        "state updates to client 0: {b} before, {a} after"
    );
}

#[test]
fn a_world_change_reaches_the_server() {
    let mut w = Preset::default().world;
    w.turret_period_s = 0.5;
    let (_, before, at, after) = around(&["clients=2"], 3.0, Command::SetWorld(w), 9.0);
    assert_eq!(
        changes(&at),
        vec!["world.turret_period_s: 0.0 -> 0.5".to_string()]
    );
    let hits = |r: &[Record]| count(r, |r| matches!(r.event, Event::TurretHit { .. }));
    assert_eq!(hits(&before), 0);
    assert!(hits(&after) > 3, "{}", hits(&after));
}

#[test]
fn the_traces_switch_on_at_their_time() {
    let (_, before, at, after) = around(&["clients=1"], 2.0, Command::HookTrace(true), 3.0);
    assert_eq!(changes(&at), vec!["hook_trace: false -> true".to_string()]);
    let hooks = |r: &[Record]| count(r, |r| matches!(r.event, Event::Hook { .. }));
    assert_eq!(hooks(&before), 0);
    assert!(hooks(&after) > 100);
    let (_, before, _, after) = around(&["clients=1"], 2.0, Command::ValueTrace(true), 3.0);
    let values = |r: &[Record]| count(r, |r| matches!(r.event, Event::MoveValues(_)));
    assert_eq!(values(&before), 0);
    assert!(values(&after) > 10);
}

#[test]
fn a_consistent_binding_change_is_recorded_with_what_changed() {
    let mut p = Preset::default();
    p.faults.dash_always_combine = true;
    let (outcome, _, at, after) = around(
        &["clients=1"],
        2.0,
        Command::ChangeBindings {
            bindings: Box::new(p.bindings().unwrap()),
            consistent: true,
        },
        6.0,
    );
    assert_eq!(outcome, Outcome::Respawned);
    let c = changes(&at);
    assert!(
        c[0].starts_with("binding list changed: every pawn respawned")
            && c[0].contains("binding input_dash combine"),
        "{c:?}"
    );
    assert_eq!(corrections(&after), 0, "consistent: no corrections");
}

#[test]
fn pause_and_resume_change_nothing_in_virtual_time() {
    let mut a = Vec::new();
    let mut s = Session::new(&preset(&["clients=2"])).unwrap();
    s.run_until(2.0, &mut |r| a.push(r));
    assert_eq!(
        s.command(Command::Pause, &mut |r| a.push(r)),
        Ok(Outcome::AppliedNow)
    );
    s.command(Command::Resume, &mut |r| a.push(r)).unwrap();
    s.run_until(4.0, &mut |r| a.push(r));
    let mut b = Vec::new();
    let mut s = Session::new(&preset(&["clients=2"])).unwrap();
    s.run_until(4.0, &mut |r| b.push(r));
    assert_eq!(a, b);
}

#[test]
fn clients_are_added_removed_and_restarted() {
    let mut s = Session::new(&preset(&["clients=2", "ai_pawns=0"])).unwrap();
    let mut r = Vec::new();
    s.run_until(3.0, &mut |x| r.push(x));
    s.command(Command::AddClient, &mut |x| r.push(x)).unwrap();
    assert_eq!(s.client_ids(), vec![0, 1, 2]);
    s.run_until(5.0, &mut |x| r.push(x));
    assert!(
        r.iter().any(|x| matches!(
            x.event,
            Event::Joined {
                client: 2,
                rejoin: false,
                ..
            }
        )),
        "client 2 joined"
    );
    s.command(Command::RestartClient(1), &mut |x| r.push(x))
        .unwrap();
    s.run_until(7.0, &mut |x| r.push(x));
    assert!(
        r.iter().any(|x| x.t > 5.0
            && matches!(
                x.event,
                Event::Joined {
                    client: 1,
                    rejoin: true,
                    ..
                }
            )),
        "client 1 rejoined"
    );
    s.command(Command::RemoveClient(0), &mut |x| r.push(x))
        .unwrap();
    s.run_until(9.0, &mut |x| r.push(x));
    assert_eq!(s.client_ids(), vec![1, 2]);
    assert_eq!(
        count(&r, |x| x.t > 7.0
            && x.machine == Machine::Client(0)
            && matches!(x.event, Event::Frame { .. })),
        0,
        "a removed client runs no frames"
    );
    assert_eq!(
        changes(&r),
        vec![
            "client 2 added".to_string(),
            "client 1 restarted (it rejoins)".to_string(),
            "client 0 removed".to_string(),
        ]
    );
    assert_eq!(
        s.command(Command::RemoveClient(0), &mut |_| {}),
        Err(CommandError::NoSuchClient(0))
    );
}

#[test]
fn a_restarted_server_is_rejoined_by_every_client() {
    let mut s = Session::new(&preset(&["clients=2", "ai_pawns=1"])).unwrap();
    let mut r = Vec::new();
    s.run_until(3.0, &mut |x| r.push(x));
    s.command(Command::RestartServer, &mut |x| r.push(x))
        .unwrap();
    s.run_until(8.0, &mut |x| r.push(x));
    for c in [0u16, 1] {
        assert!(
            r.iter().any(
                |x| x.t > 3.0 && matches!(x.event, Event::Joined { client, .. } if client == c)
            ),
            "client {c} joined the new server"
        );
        assert!(
            r.iter()
                .any(|x| x.t > 6.0
                    && matches!(&x.event, Event::RemoteMoveExecuted(m) if m.client == c)),
            "the new server executes client {c}'s moves"
        );
    }
    assert!(changes(&r).contains(&"server restarted (clients rejoin)".to_string()));
}

#[test]
fn a_driven_pawn_follows_the_input_not_its_script() {
    let x_of = |records: &[Record], t: f64| {
        records
            .iter()
            .filter(|r| r.t <= t && r.machine == Machine::Client(0))
            .filter_map(|r| match &r.event {
                Event::PawnSample(p) if p.owner == Some(0) => Some(p.location.x),
                _ => None,
            })
            .next_back()
            .expect("a sample of client 0's pawn")
    };
    let input = RawInput {
        dir: glam::DVec2::new(1.0, 0.0),
        dash: false,
        ..RawInput::default()
    };
    let (outcome, before, at, after) = around(
        &["clients=1", "ai_pawns=0"],
        2.0,
        Command::Drive {
            client: 0,
            input: Some(input),
        },
        5.0,
    );
    assert_eq!(outcome, Outcome::AppliedNow);
    assert!(
        changes(&at).is_empty(),
        "driving is not a change of the session"
    );
    let x0 = x_of(&before, 2.0);
    let x1 = x_of(&after, 5.0);
    assert!(x1 - x0 > 500.0, "moved along +x: {x0} -> {x1}");
}

#[test]
fn a_scheduled_command_runs_at_its_time_and_a_refused_one_is_logged() {
    let run = |cmds: &[(f64, Command)]| {
        let mut s = Session::new(&preset(&["clients=2"])).unwrap();
        for (t, c) in cmds {
            s.command_at(*t, c.clone());
        }
        let mut r = Vec::new();
        s.run_until(6.0, &mut |x| r.push(x));
        r
    };
    let mut f = Preset::default().faults;
    f.wall_clock_in_tick = true;
    let cmds = [
        (2.5, Command::SetFaults(f)),
        (3.0, Command::RemoveClient(9)),
    ];
    let a = run(&cmds);
    let c: Vec<(f64, String)> = a
        .iter()
        .filter_map(|r| match &r.event {
            Event::SessionChanged { what } => Some((r.t, what.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        c,
        vec![(2.5, "faults.wall_clock_in_tick: false -> true".to_string())]
    );
    assert!(a.iter().any(|r| r.t == 3.0
        && matches!(&r.event, Event::Log { level: LogLevel::Error, text } if text.contains("there is no client 9"))));
    // Deterministic: the same commands at the same times give the same stream.
    assert_eq!(a, run(&cmds));
}

#[test]
fn the_harness_decides_like_the_live_session_what_needs_a_restart() {
    let mut s = Session::new(&preset(&["clients=2"])).unwrap();
    s.run_until(1.0, &mut |_| {});
    let mut target = s.preset().clone();
    target.link.latency_ms = 25.0;
    assert_eq!(s.change_to(&target, &mut |_| {}), Ok(Outcome::AppliedNow));
    assert_eq!(s.preset().link_params(1, true).latency_ms, 25.0);
    // The clients' frame rate changes live (a lesson compares before and after on one plot).
    target.client_fps = 120.0;
    assert_eq!(s.change_to(&target, &mut |_| {}), Ok(Outcome::AppliedNow));
    assert_eq!(s.preset().client_fps, 120.0);
    target.server_fps = 30.0;
    assert_eq!(
        s.change_to(&target, &mut |_| {}),
        Ok(Outcome::NeedsRestart(vec!["server_fps".into()]))
    );
    assert_eq!(s.preset().server_fps, 60.0);
    // Whether the owner predicts is set up with its pawn: a new session, and a GMC command
    // that would switch it is refused with the key named.
    let mut predicting = s.preset().clone();
    predicting.gmc.use_client_prediction = !predicting.gmc.use_client_prediction;
    assert_eq!(
        s.change_to(&predicting, &mut |_| {}),
        Ok(Outcome::NeedsRestart(vec![
            "gmc.use_client_prediction".into()
        ]))
    );
    let refused = s.command(Command::SetGmc(predicting.gmc), &mut |_| {});
    assert!(
        matches!(refused, Err(CommandError::Invalid { ref key, .. }) if key == "gmc.use_client_prediction"),
        "{refused:?}"
    );
}

#[test]
fn the_clients_frame_rate_changes_live_and_an_override_keeps_its_own() {
    let frames = |records: &[Record], c: u16, a: f64, b: f64| {
        records
            .iter()
            .filter(|r| {
                r.machine == Machine::Client(c)
                    && r.t >= a
                    && r.t < b
                    && matches!(r.event, Event::Frame { .. })
            })
            .count()
    };
    let mut p = preset(&["clients=2"]);
    p.client_overrides
        .push(movescope::session::preset::ClientOverride {
            client: 1,
            fps: Some(90.0),
            ..Default::default()
        });
    let mut s = Session::new(&p).unwrap();
    let mut before = Vec::new();
    s.run_until(4.0, &mut |r| before.push(r));
    let mut at = Vec::new();
    let outcome = s
        .command(
            Command::SetClientFrameRate {
                fps: 30.0,
                jitter: 0.0,
            },
            &mut |r| at.push(r),
        )
        .expect("accepted");
    assert_eq!(outcome, Outcome::AppliedNow);
    assert_eq!(changes(&at), vec!["client_fps: 60.0 -> 30.0".to_string()]);
    let mut after = Vec::new();
    s.run_until(8.0, &mut |r| after.push(r));
    // Client 0 goes from 60 to 30 frames a second, in the same session (no rejoin); client 1
    // keeps its own 90.
    let (b0, a0) = (frames(&before, 0, 2.0, 4.0), frames(&after, 0, 6.0, 8.0));
    assert!(
        (118..=122).contains(&b0),
        "client 0 before: {b0} frames in 2 s"
    );
    assert!(
        (58..=62).contains(&a0),
        "client 0 after: {a0} frames in 2 s"
    );
    let a1 = frames(&after, 1, 6.0, 8.0);
    assert!(
        (178..=182).contains(&a1),
        "client 1 after: {a1} frames in 2 s"
    );
    assert!(
        !after
            .iter()
            .any(|r| matches!(&r.event, Event::Joined { .. })),
        "nobody rejoined"
    );
}
