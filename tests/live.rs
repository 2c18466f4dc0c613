//! Live sessions over real UDP loopback (laminar, port 0). Bounded waits with clear failures;
//! the tests run one at a time because they measure time on a shared 2-core machine.

use std::net::UdpSocket;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use movescope::conditions::link::{LinkParams, Window};
use movescope::model::telemetry::{Event, Machine, Record};
use movescope::net::live::{Command, LiveSession, run_live};
use movescope::session::preset::Direction;
use movescope::session::summary::SummaryBuilder;

mod common;
use common::preset;
use common::until;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Reads every record for `d`.
fn collect(s: &LiveSession, d: Duration) -> Vec<Record> {
    let deadline = Instant::now() + d;
    let mut seen = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        if let Ok(r) = s.telemetry().recv_timeout(left) {
            seen.push(r);
        }
    }
    seen
}

fn summary_of(records: &[Record], clients: u16) -> movescope::session::summary::Summary {
    let mut b = SummaryBuilder::new(clients);
    for r in records {
        b.record(r);
    }
    b.finish("live", "test", 1, 0.0, 0.0)
}

#[test]
fn a_clean_live_session_has_no_corrections() {
    let _g = serial();
    let p = preset(&["clients=2", "ai_pawns=1", "link.latency_ms=10"]);
    let s = run_live(&p, "test", 3.0, &mut |_| {}).expect("starts");
    assert_eq!(s.mode, "live");
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    for c in &s.clients {
        assert_eq!(c.corrections, 0, "{c:?}");
        assert!(c.frames > 100, "{c:?}");
        assert!(c.moves_sent > 50, "{c:?}");
        assert!(
            c.clock_offset_ms_mean.expect("sampled").abs() < 3.0,
            "{c:?}"
        );
    }
    assert!(s.server.remote_moves_executed > 100);
    assert!(s.server.local_moves_executed > 100);
}

#[test]
fn configured_40ms_one_way_gives_an_80ms_round_trip() {
    let _g = serial();
    let p = preset(&["clients=2", "ai_pawns=0", "link.latency_ms=40"]);
    let s = run_live(&p, "test", 3.0, &mut |_| {}).expect("starts");
    for c in &s.clients {
        let rtt = c.rtt_ms_mean.expect("pinged");
        assert!((79.0..=84.0).contains(&rtt), "client {} rtt {rtt}", c.id);
        assert_eq!(c.corrections, 0);
    }
}

#[test]
fn loss_and_an_outage_recover_once_the_link_is_back() {
    let _g = serial();
    let mut p = preset(&[
        "clients=1",
        "ai_pawns=0",
        "link.latency_ms=20",
        "link.loss=0.1",
    ]);
    // Three seconds of 100 % loss, shorter than the 5 s connection timeout.
    p.link.outages.push(Window {
        start_s: 2.0,
        duration_s: 3.0,
    });
    let s = LiveSession::start(&p).expect("starts");
    let records = until(
        &s,
        Duration::from_secs(14),
        "the session to run to 10 s",
        |r| r.t > 10.0,
    );
    let moves_in = |from: f64, to: f64| {
        records
            .iter()
            .filter(|r| r.t >= from && r.t < to && matches!(r.event, Event::RemoteMoveExecuted(_)))
            .count()
    };
    assert!(moves_in(0.0, 2.0) > 10, "moves flowed before the outage");
    let delivered_during = records
        .iter()
        .filter(|r| {
            r.t > 2.1
                && r.t < 5.0
                && matches!(
                    r.event,
                    Event::Packet {
                        fate: movescope::model::telemetry::PacketFate::Delivered,
                        ..
                    }
                )
        })
        .count();
    assert_eq!(
        delivered_during, 0,
        "nothing gets through during the outage"
    );
    assert!(
        moves_in(8.0, 10.0) > 40,
        "moves flow again after it: {} (last record {:?}, moves 5-8 s: {})",
        moves_in(8.0, 10.0),
        records.last(),
        moves_in(5.0, 8.0)
    );
    // Settled: no corrections and no rejoin in the last two seconds.
    assert!(
        !records.iter().any(
            |r| r.t > 8.0 && matches!(r.event, Event::Correction { .. } | Event::Joined { .. })
        ),
        "still correcting or rejoining after recovery"
    );
    let summary = summary_of(&records, 1);
    assert!(summary.packets.dropped > 50, "the outage dropped packets");
    s.stop();
}

#[test]
fn foreign_and_malformed_datagrams_are_counted_and_ignored() {
    let _g = serial();
    let p = preset(&["clients=1", "ai_pawns=0"]);
    let s = LiveSession::start(&p).expect("starts");
    until(&s, Duration::from_secs(3), "the client to join", |r| {
        matches!(r.event, Event::Joined { .. })
    });
    // Not laminar at all.
    let junk = UdpSocket::bind("127.0.0.1:0").unwrap();
    for i in 0..40u8 {
        junk.send_to(&[i; 33], s.server_addr()).unwrap();
    }
    // Laminar-framed, but not movescope: through a laminar endpoint of our own.
    let mut fake = movescope::net::transport::Endpoint::bind_loopback(0).unwrap();
    for i in 0..20u8 {
        fake.send(s.server_addr(), vec![i; 17], false);
    }
    let t0 = Instant::now();
    fake.poll(0.0, t0, &mut Vec::new());
    let mut foreign = 0;
    let mut unadmitted = 0;
    let mut moves_after = 0;
    until(
        &s,
        Duration::from_secs(5),
        "60 rejected datagrams and more moves",
        |r| {
            match &r.event {
                Event::Rejected { reason } => match reason {
                    movescope::model::telemetry::Rejection::Foreign => foreign += 1,
                    // Laminar-framed, but no join from an address that never joined: it
                    // never reaches laminar or the model.
                    movescope::model::telemetry::Rejection::Unadmitted => unadmitted += 1,
                    _ => {}
                },
                Event::RemoteMoveExecuted(_) => moves_after += 1,
                _ => {}
            }
            foreign >= 40 && unadmitted >= 20 && moves_after > 30
        },
    );
    assert_eq!(foreign, 40);
    assert_eq!(unadmitted, 20);
    s.stop();
}

/// Datagrams from anyone on the machine: forged copies of a client's messages from another
/// port are dropped as the wrong source, a client hears only its server, and a flood of new
/// source ports leaves the server's gate bounded while the session goes on.
#[test]
fn datagrams_from_other_addresses_are_dropped_by_kind_and_state_stays_bounded() {
    use movescope::model::messages::ClientMsg;
    use movescope::model::telemetry::Rejection;
    let _g = serial();
    let p = preset(&["clients=1", "ai_pawns=0"]);
    let s = LiveSession::start(&p).expect("starts");
    until(&s, Duration::from_secs(3), "the client to join", |r| {
        matches!(r.event, Event::Joined { .. })
    });
    let b = p.checked_bindings().expect("valid");
    // Another laminar endpoint joins as client 9 without the session's join secret (refused
    // as forged), then sends well-formed pings claiming to be client 0.
    let mut forger = movescope::net::transport::Endpoint::bind_loopback(0).unwrap();
    forger.only_from(s.server_addr());
    forger.send(
        s.server_addr(),
        movescope::model::wire::encode_client(
            9,
            1,
            &ClientMsg::Join {
                incarnation: 99,
                proof: s.join_secret() ^ 1,
                layout_hash: b.layout_hash(),
            },
            &b,
        ),
        true,
    );
    let t0 = Instant::now();
    forger.poll(0.0, t0, &mut Vec::new());
    let refused = until(
        &s,
        Duration::from_secs(3),
        "the forger's join refused",
        |r| {
            matches!(
                r.event,
                Event::Rejected {
                    reason: Rejection::ForgedJoin
                }
            )
        },
    );
    assert!(
        !refused
            .iter()
            .any(|r| matches!(r.event, Event::Joined { client: 9, .. })),
        "a join without the secret was admitted"
    );
    for i in 0..20u32 {
        let bytes = movescope::model::wire::encode_client(
            0,
            1000 + i,
            &ClientMsg::Ping {
                seq: i,
                client_time: 1.0e234,
            },
            &b,
        );
        forger.send(s.server_addr(), bytes, false);
    }
    forger.poll(0.01, Instant::now(), &mut Vec::new());
    // A flood of new source ports, each with a laminar-framed datagram.
    let mut flood = Vec::new();
    for _ in 0..300 {
        let mut e = movescope::net::transport::Endpoint::bind_loopback(0).unwrap();
        e.send(s.server_addr(), vec![7; 20], false);
        e.poll(0.0, t0, &mut Vec::new());
        flood.push(e);
    }
    let (mut wrong, mut unadmitted, mut moves_after) = (0, 0, 0);
    let records = until(
        &s,
        Duration::from_secs(8),
        "the forgeries and the flood dropped, and moves go on",
        |r| {
            match &r.event {
                Event::Rejected {
                    reason: Rejection::WrongSource,
                } => wrong += 1,
                Event::Rejected {
                    reason: Rejection::Unadmitted,
                } => unadmitted += 1,
                Event::RemoteMoveExecuted(_) => moves_after += 1,
                _ => {}
            }
            wrong >= 20
                && unadmitted >= 300 - movescope::net::transport::MAX_PENDING as u32
                && moves_after > 30
        },
    );
    // Nothing forged reached the model: no absurd round trip, no pong to the forger.
    assert!(records.iter().all(|r| match r.event {
        Event::Rtt { rtt } => rtt.abs() < 10.0,
        _ => true,
    }));
    // The flood reached laminar through at most MAX_PENDING unknown addresses at a time.
    assert!(unadmitted >= 300 - movescope::net::transport::MAX_PENDING as u32);
    s.stop();
}

#[test]
fn restarting_the_server_and_a_client_rejoins() {
    let _g = serial();
    let p = preset(&["clients=2", "ai_pawns=1"]);
    let mut s = LiveSession::start(&p).expect("starts");
    let mut joined = 0;
    until(&s, Duration::from_secs(10), "both clients to join", |r| {
        joined += usize::from(matches!(r.event, Event::Joined { .. }));
        joined == 2
    });
    s.command(Command::RestartClient(1)).unwrap();
    until(&s, Duration::from_secs(10), "client 1 to rejoin", |r| {
        matches!(
            r.event,
            Event::Joined {
                client: 1,
                rejoin: true,
                ..
            }
        )
    });
    s.command(Command::RestartServer).unwrap();
    let mut back = std::collections::BTreeSet::new();
    until(
        &s,
        Duration::from_secs(15),
        "both clients to join the new server",
        |r| {
            if let Event::Joined { client, .. } = r.event {
                back.insert(client);
            }
            back.len() == 2
        },
    );
    // Moves flow again.
    until(
        &s,
        Duration::from_secs(10),
        "moves on the new server",
        |r| matches!(&r.event, Event::RemoteMoveExecuted(x) if x.client == 0),
    );
    s.stop();
}

#[test]
fn a_binding_edit_respawns_every_pawn_over_udp_and_moves_flow_with_the_new_list() {
    let _g = serial();
    let mut p = preset(&["clients=2", "ai_pawns=1"]);
    let mut s = LiveSession::start(&p).expect("starts");
    let mut joined = 0;
    until(&s, Duration::from_secs(10), "both clients to join", |r| {
        joined += usize::from(matches!(r.event, Event::Joined { .. }));
        joined == 2
    });
    p.faults.dash_always_combine = true;
    let outcome = s
        .command(Command::ChangeBindings {
            bindings: Box::new(p.bindings().expect("valid")),
            consistent: true,
        })
        .expect("accepted");
    assert_eq!(outcome, movescope::net::live::Outcome::Respawned);
    let mut back = std::collections::BTreeSet::new();
    let mut respawn_marked = false;
    until(
        &s,
        Duration::from_secs(15),
        "the respawn marked and both clients joined to the new server",
        |r| {
            match &r.event {
                Event::SessionChanged { what } => {
                    respawn_marked |= what.contains("every pawn respawned")
                }
                Event::Joined { client, .. } => {
                    back.insert(*client);
                }
                _ => {}
            }
            respawn_marked && back.len() == 2
        },
    );
    until(
        &s,
        Duration::from_secs(10),
        "moves on the respawned pawns",
        |r| matches!(&r.event, Event::RemoteMoveExecuted(x) if x.client == 1),
    );
    assert_eq!(
        s.bindings().by_name("input_dash").expect("bound").combine,
        movescope::model::binding::CombineMode::AlwaysCombine
    );
    s.stop();
}

#[test]
fn live_changes_reach_the_threads() {
    let _g = serial();
    let p = preset(&["clients=1", "ai_pawns=0"]);
    let mut s = LiveSession::start(&p).expect("starts");
    until(&s, Duration::from_secs(3), "a pong", |r| {
        matches!(r.event, Event::Rtt { .. })
    });
    // Link change: 30 ms each way -> ~60 ms round trip.
    s.command(Command::SetLink {
        client: 0,
        direction: Direction::Both,
        params: LinkParams {
            latency_ms: 30.0,
            ..Default::default()
        },
    })
    .unwrap();
    let seen = until(
        &s,
        Duration::from_secs(3),
        "a 60 ms round trip",
        |r| matches!(r.event, Event::Rtt { rtt } if rtt > 0.055),
    );
    // The change is in the record stream (recordings keep it), saying from what to what.
    let changed: Vec<&str> = seen
        .iter()
        .filter_map(|r| match &r.event {
            Event::SessionChanged { what } => Some(what.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        changed.iter().any(|w| w.starts_with("client 0 link")
            && w.contains("up latency_ms: 0.0 -> 30.0")
            && w.contains("down latency_ms: 0.0 -> 30.0")),
        "{changed:?}"
    );
    // The clients' frame rate, live: 10 fps frames from client 0's thread.
    s.command(Command::SetClientFrameRate {
        fps: 10.0,
        jitter: 0.0,
    })
    .unwrap();
    until(&s, Duration::from_secs(3), "a 10 fps frame", |r| {
        matches!(r.event, Event::Frame { dt } if dt > 0.09) && r.machine == Machine::Client(0)
    });
    s.command(Command::SetClientFrameRate {
        fps: 60.0,
        jitter: 0.0,
    })
    .unwrap();
    // Pause: no frames while paused; resume: frames again.
    s.command(Command::Pause).unwrap();
    let _ = collect(&s, Duration::from_millis(100)); // in flight before the pause
    let during = collect(&s, Duration::from_millis(300));
    assert!(
        !during
            .iter()
            .any(|r| matches!(r.event, Event::Frame { .. })),
        "frames while paused"
    );
    s.command(Command::Resume).unwrap();
    until(&s, Duration::from_secs(2), "a frame after resuming", |r| {
        matches!(r.event, Event::Frame { .. }) && r.machine == Machine::Client(0)
    });
    // The hook trace, on demand.
    s.command(Command::HookTrace(true)).unwrap();
    until(&s, Duration::from_secs(2), "a traced hook", |r| {
        matches!(r.event, Event::Hook { .. })
    });
    s.command(Command::HookTrace(false)).unwrap();
    // The value trace, on demand.
    s.command(Command::ValueTrace(true)).unwrap();
    until(&s, Duration::from_secs(2), "traced move values", |r| {
        matches!(r.event, Event::MoveValues(_))
    });
    s.command(Command::ValueTrace(false)).unwrap();
    // A pitfall switch, recorded as a change.
    let mut faults = s.preset().faults.clone();
    faults.unbound_member = true;
    s.command(Command::SetFaults(faults)).unwrap();
    until(
        &s,
        Duration::from_secs(2),
        "the pitfall switch recorded",
        |r| {
            matches!(&r.event, Event::SessionChanged { what }
            if what.starts_with("faults.unbound_member: false -> true")
                && what.contains("binding move_ramp removed"))
        },
    );
    // Add a client.
    s.command(Command::AddClient).unwrap();
    until(&s, Duration::from_secs(3), "client 1 to join", |r| {
        matches!(r.event, Event::Joined { client: 1, .. })
    });
    s.stop();
}

#[test]
fn repeated_link_changes_replace_their_override() {
    let _g = serial();
    let p = preset(&["clients=1", "ai_pawns=0"]);
    let mut s = LiveSession::start(&p).expect("starts");
    for ms in 0..50 {
        s.command(Command::SetLink {
            client: 0,
            direction: Direction::Both,
            params: LinkParams {
                latency_ms: f64::from(ms),
                ..Default::default()
            },
        })
        .unwrap();
    }
    s.command(Command::SetLink {
        client: 0,
        direction: Direction::Up,
        params: LinkParams {
            latency_ms: 7.0,
            ..Default::default()
        },
    })
    .unwrap();
    let o = &s.preset().link_overrides;
    assert_eq!(o.len(), 2, "{o:?}");
    assert_eq!(s.preset().link_params(0, true).latency_ms, 7.0);
    assert_eq!(s.preset().link_params(0, false).latency_ms, 49.0);
    s.stop();
}

#[test]
fn the_session_decides_what_changes_live_and_refuses_bad_values() {
    use movescope::net::live::{CommandError, Outcome};
    let _g = serial();
    let p = preset(&["clients=2", "ai_pawns=0"]);
    let mut s = LiveSession::start(&p).expect("starts");
    // A value preset validation refuses is refused, naming the key; nothing changes.
    let mut g = s.preset().gmc;
    g.world_time_update_interval = 0.0;
    let err = s.command(Command::SetGmc(g)).unwrap_err();
    assert!(
        matches!(&err, CommandError::Invalid { key, .. } if key == "gmc.world_time_update_interval"),
        "{err}"
    );
    assert_eq!(s.preset().gmc.world_time_update_interval, 0.01);
    assert_eq!(
        s.command(Command::RemoveClient(9)).unwrap_err(),
        CommandError::NoSuchClient(9)
    );
    // Live settings change live; a binding mistake respawns every pawn with the new list.
    let mut target = s.preset().clone();
    target.link.latency_ms = 40.0;
    target.smoothing.buffer_time = 0.2;
    assert_eq!(s.change_to(&target).unwrap(), Outcome::AppliedNow);
    assert_eq!(s.preset().link_params(1, false).latency_ms, 40.0);
    assert_eq!(s.preset().smoothing.buffer_time, 0.2);
    target.faults.dash_always_combine = true;
    assert_eq!(s.change_to(&target).unwrap(), Outcome::Respawned);
    assert_eq!(
        s.bindings().by_name("input_dash").unwrap().combine,
        movescope::model::binding::CombineMode::AlwaysCombine
    );
    // The same again changes nothing.
    assert_eq!(s.change_to(&target).unwrap(), Outcome::NoChange);
    // A restart-only setting is named, and nothing is applied.
    target.clients = 3;
    target.link.latency_ms = 80.0;
    assert_eq!(
        s.change_to(&target).unwrap(),
        Outcome::NeedsRestart(vec!["clients".into()])
    );
    assert_eq!(s.preset().link.latency_ms, 40.0);
    s.stop();
}

/// The joins of a live session sent again byte for byte from one new port, and forged joins
/// from many ports — rewritten sender ids without the secret, and captured joins rewritten to
/// another id or a newer incarnation: every one is refused and counted, no pawn is added, and
/// the three real clients keep playing from their own addresses.
#[test]
fn replayed_and_forged_joins_leave_the_joined_clients_playing() {
    use movescope::model::messages::ClientMsg;
    use movescope::model::telemetry::Rejection;
    let _g = serial();
    let p = preset(&["clients=3", "ai_pawns=0"]);
    let s = LiveSession::start(&p).expect("starts");
    let mut joined = 0;
    until(&s, Duration::from_secs(5), "three clients to join", |r| {
        joined += usize::from(matches!(r.event, Event::Joined { .. }));
        joined >= 3
    });
    let b = p.checked_bindings().expect("valid");
    // A first join made with `secret` (the session's, or a forger's guess).
    let join = |id: u16, seq: u32, secret: u64| {
        let key = movescope::model::messages::client_key(secret, id);
        movescope::model::wire::encode_client(
            id,
            seq,
            &ClientMsg::Join {
                incarnation: 0,
                proof: movescope::model::messages::join_proof(key, id, 0, b.layout_hash()),
                layout_hash: b.layout_hash(),
            },
            &b,
        )
    };
    let t0 = Instant::now();
    // What each client sent when it joined (its first datagrams), once each from one port.
    let mut replayer = movescope::net::transport::Endpoint::bind_loopback(0).unwrap();
    replayer.only_from(s.server_addr());
    for c in 0..3 {
        for seq in 1..=2 {
            replayer.send(s.server_addr(), join(c, seq, s.join_secret()), true);
        }
    }
    replayer.poll(0.0, t0, &mut Vec::new());
    // Forged joins from 30 ports: phantom ids and real ones, half made without the secret,
    // half rewritten from a captured join (a real client's proof, with another id or a newer
    // incarnation: what a newer start of a joined client would send, without its key).
    let captured = |c: u16| -> u64 {
        let real = join(c, 1, s.join_secret());
        let (_, d) = movescope::model::wire::decode(&real, |_| Some(&b)).expect("a join");
        let movescope::model::wire::Datagram::Client(ClientMsg::Join { proof, .. }) = d else {
            panic!("a join")
        };
        proof
    };
    let mut forgers = Vec::new();
    for k in 0..30u16 {
        let mut e = movescope::net::transport::Endpoint::bind_loopback(0).unwrap();
        let id = [0, 1, 2, 3, 63, 128, 200, 65535][usize::from(k % 8)];
        let bytes = if k % 2 == 0 {
            join(id, 1, u64::from(k))
        } else {
            let proof = captured(k % 3);
            movescope::model::wire::encode_client(
                id,
                1,
                &ClientMsg::Join {
                    incarnation: 7,
                    proof,
                    layout_hash: b.layout_hash(),
                },
                &b,
            )
        };
        e.send(s.server_addr(), bytes, true);
        e.poll(0.0, t0, &mut Vec::new());
        forgers.push(e);
    }
    let mut moves = [0u32; 3];
    let (mut replayed, mut forged, mut unadmitted) = (0, 0, 0);
    let records = until(
        &s,
        Duration::from_secs(10),
        "the replays and forgeries refused while every client keeps moving",
        |r| {
            match &r.event {
                Event::Rejected {
                    reason: Rejection::ReplayedJoin,
                } => replayed += 1,
                Event::Rejected {
                    reason: Rejection::ForgedJoin,
                } => forged += 1,
                Event::Rejected {
                    reason: Rejection::Unadmitted,
                } => unadmitted += 1,
                Event::RemoteMoveExecuted(m) if m.client < 3 => {
                    moves[usize::from(m.client)] += 1;
                }
                _ => {}
            }
            // Every one of the 36 joins is refused: the six replays, the forgers that claim a
            // joined id (replays from elsewhere too), the rest without the secret, and those
            // beyond the gate's pending limit dropped before laminar.
            replayed >= 6 && replayed + forged + unadmitted >= 36 && moves.iter().all(|&m| m > 120)
        },
    );
    assert!(
        !records.iter().any(
            |r| matches!(&r.event, Event::Joined { .. } | Event::Role { .. })
                && r.machine == Machine::Server
        ),
        "a refused join made a pawn or rebound a client"
    );
    assert!(
        !records
            .iter()
            .any(|r| matches!(&r.event, Event::Log { text, .. }
            if text.contains("timed out") || text.contains("dropped"))),
        "a real client was cut off"
    );
    s.stop();
}

/// A session restarted many times in a row — pitfall 12's "Do it" and back, each a new
/// binding list: every pawn respawned, a new server, every client a new incarnation — gets
/// every client back every time: joined to the new server and moving, none cut off. (The old
/// clients stop before the new server starts, so none is answered with a reset and rejoins in
/// its new start's place.)
#[test]
fn a_session_restarted_many_times_gets_every_client_back_each_time() {
    let _g = serial();
    let (lesson, _) = movescope::session::preset::Preset::find("pitfall-12-input-written-by-tick")
        .expect("shipped");
    let mut s = LiveSession::start(&lesson).expect("starts");
    let clients = lesson.network_clients().count();
    let mut joined = std::collections::BTreeSet::new();
    until(&s, Duration::from_secs(10), "every client to join", |r| {
        if let Event::Joined { client, .. } = r.event {
            joined.insert(client);
        }
        joined.len() == clients
    });
    for round in 0..12 {
        let mut target = s.preset().clone();
        target.faults.derived_value_bound_as_input = round % 2 == 1;
        let outcome = s.change_to(&target).expect("accepted");
        assert_eq!(
            outcome,
            movescope::net::live::Outcome::Respawned,
            "round {round}"
        );
        let (mut back, mut moving) = (
            std::collections::BTreeSet::new(),
            std::collections::BTreeSet::new(),
        );
        until(
            &s,
            Duration::from_secs(15),
            &format!("round {round}: every client back and moving"),
            |r| {
                match &r.event {
                    Event::Joined { client, .. } => {
                        back.insert(*client);
                    }
                    Event::RemoteMoveExecuted(x) if back.contains(&x.client) => {
                        moving.insert(x.client);
                    }
                    Event::ClientDropped { client, why } => {
                        panic!("round {round}: client {client} cut off ({why})")
                    }
                    _ => {}
                }
                moving.len() == clients
            },
        );
    }
    s.stop();
}

/// A client whose datagrams never reach the (re)started server is reported cut off: a record
/// the summary counts, not only transport counters.
#[test]
fn a_client_that_never_reaches_the_server_is_reported_cut_off() {
    let _g = serial();
    let mut p = preset(&["clients=2", "ai_pawns=0"]);
    p.link_overrides
        .push(movescope::session::preset::LinkOverride {
            client: 1,
            direction: movescope::session::preset::Direction::Up,
            link: movescope::conditions::link::LinkParams {
                loss: 1.0,
                ..p.link.clone()
            },
        });
    let s = LiveSession::start(&p).expect("starts");
    let records = until(
        &s,
        Duration::from_secs(12),
        "client 1 reported cut off",
        |r| matches!(r.event, Event::ClientDropped { client: 1, .. }),
    );
    let summary = summary_of(&records, 2);
    let c1 = summary
        .clients
        .iter()
        .find(|c| c.id == 1)
        .expect("client 1");
    assert!(!c1.cut_off.is_empty(), "{:?}", c1.cut_off);
    s.stop();
}

/// Busy threads that keep every core busy until dropped (a starved machine, as on a loaded
/// workshop laptop): twice as many as the machine has cores.
struct Starve {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Starve {
    fn start() -> Starve {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let n = 2 * std::thread::available_parallelism().map_or(2, |n| n.get());
        let threads = (0..n)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        x = std::hint::black_box(
                            x.wrapping_mul(6364136223846793005).wrapping_add(1),
                        );
                    }
                })
            })
            .collect();
        Starve { stop, threads }
    }
}

impl Drop for Starve {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Every client of `p` executed by the server at least once from now on (a client that was
/// lost never moves again), within `limit`; a client reported cut off fails at once.
fn every_client_moving(s: &LiveSession, p: &movescope::session::preset::Preset, what: &str) {
    let clients: std::collections::BTreeSet<u16> = p.network_clients().collect();
    let mut moving = std::collections::BTreeSet::new();
    let mut said = Vec::new();
    until(s, Duration::from_secs(20), what, |r| {
        match &r.event {
            Event::RemoteMoveExecuted(x) => {
                moving.insert(x.client);
            }
            Event::Log { text, .. } => said.push(format!("{:.3} {:?}: {text}", r.t, r.machine)),
            Event::Rejected { reason } => {
                said.push(format!("{:.3} {:?}: {reason:?}", r.t, r.machine))
            }
            Event::Joined { client, .. } => said.push(format!(
                "{:.3} {:?}: client {client} joined",
                r.t, r.machine
            )),
            Event::ClientDropped { client, why } => {
                panic!(
                    "{what}: client {client} cut off ({why}); before it:\n{}",
                    said.join("\n")
                )
            }
            _ => {}
        }
        moving == clients
    });
}

/// Every shipped lesson's "Do it", made as the app makes it (the step's `key=value`s on the
/// session's settings, one change; a change the session cannot make live starts the scenario
/// again) while more busy threads than cores starve the machine: every client stays joined
/// and moving — 2 s after each change, and again after every lesson's last change.
#[test]
fn every_lesson_do_it_keeps_every_client_joined_and_moving_on_a_starved_machine() {
    let _g = serial();
    let _starve = Starve::start();
    for (name, text) in movescope::support::shipped::PRESETS {
        let p = movescope::session::preset::Preset::from_ron(text, name).expect("shipped");
        let Some(lesson) = p.lesson.clone() else {
            continue;
        };
        if p.network_clients().count() == 0 || lesson.steps.iter().all(|st| st.set.is_empty()) {
            continue;
        }
        let mut s = LiveSession::start(&p).expect("starts");
        every_client_moving(&s, &p, &format!("{name}: every client moving at the start"));
        for (k, st) in lesson
            .steps
            .iter()
            .enumerate()
            .filter(|(_, st)| !st.set.is_empty())
        {
            let mut target = s.preset().clone();
            for kv in &st.set {
                target.set(kv).expect("a lesson's change applies");
            }
            if let movescope::net::live::Outcome::NeedsRestart(_) =
                s.change_to(&target).expect("accepted")
            {
                s.stop();
                s = LiveSession::start(&target).expect("restarts");
            }
            for r in collect(&s, Duration::from_secs(2)) {
                if let Event::ClientDropped { client, why } = r.event {
                    panic!(
                        "{name}: step {}'s Do it cut client {client} off ({why})",
                        k + 1
                    );
                }
            }
            every_client_moving(&s, &target, &format!("{name}: step {}'s Do it", k + 1));
        }
        s.stop();
    }
}
