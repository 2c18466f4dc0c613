//! Sessions across machines (host and join), on loopback only: real processes for the
//! workshop test, in-process sessions for admission. Bounded waits with clear failures.

use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use movescope::model::messages::ClientMsg;
use movescope::model::telemetry::{Event, Machine, Rejection};
use movescope::net::live::LiveSession;
use movescope::net::remote::{HostOptions, JoinOptions};

mod common;
use common::preset;
use common::proc::{Proc, client_of};
use common::until;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn loopback_host(code: &str) -> HostOptions {
    HostOptions {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        code: Some(code.into()),
        max_participants: 4,
    }
}

/// A wrong code is refused with the reason; a participant with the code joins as a client the
/// host did not have, and the host sees its telemetry (its own moves, executed by the server)
/// and its real round trip apart from the simulated one.
#[test]
fn a_participant_joins_with_the_code_and_a_wrong_code_is_refused_saying_why() {
    let _g = serial();
    let host = LiveSession::host(
        &preset(&["clients=1", "ai_pawns=0"]),
        &loopback_host("K7M2QX"),
    )
    .expect("hosts");
    let (addr, code) = host.hosting().expect("a host");
    assert_eq!(code, "K7M2QX");
    let wrong = LiveSession::join(JoinOptions {
        host: addr,
        code: "K7M2QY".into(),
        name: Some("mallory".into()),
    });
    let err = wrong.err().expect("refused");
    match &err {
        movescope::net::live::SessionStartError::Join(
            movescope::net::remote::JoinError::Refused { host, why },
        ) => {
            assert_eq!(*host, addr);
            assert!(why.contains("wrong join code"), "{why}");
        }
        other => panic!("expected the host's refusal, got {other:?}"),
    }
    assert!(
        err.to_string()
            .starts_with("the host refused: wrong join code"),
        "{err}"
    );
    let p = LiveSession::join(JoinOptions {
        host: addr,
        code: " k7m2qx ".into(),
        name: Some("ana".into()),
    })
    .expect("joins");
    let (id, _) = p.joined().expect("a participant");
    assert_eq!(id, 1, "the host's own client is 0");
    assert_eq!(p.client_ids(), vec![1]);
    // The participant's session takes nothing but driving its own pawn.
    let mut p = p;
    assert!(p.command(movescope::net::live::Command::Pause).is_err());
    assert!(
        p.command(movescope::net::live::Command::Drive {
            client: 0,
            input: None
        })
        .is_err()
    );
    let (mut moves_of_1, mut real, mut joined_log) = (0, 0, false);
    until(
        &host,
        Duration::from_secs(8),
        "the participant's moves executed on the host and its real round trip",
        |r| {
            match (&r.machine, &r.event) {
                (Machine::Server, Event::RemoteMoveExecuted(m)) if m.client == 1 => moves_of_1 += 1,
                (Machine::Client(1), Event::RealRtt { rtt }) => {
                    assert!(*rtt >= 0.0 && *rtt < 0.5, "{rtt}");
                    real += 1;
                }
                (Machine::Server, Event::SessionChanged { what }) if what.contains("ana") => {
                    assert!(
                        what.contains("client 1") && what.contains("joined"),
                        "{what}"
                    );
                    joined_log = true;
                }
                _ => {}
            }
            moves_of_1 > 30 && real >= 2 && joined_log
        },
    );
    // The refusal is in the host's log and counted.
    assert_eq!(host.client_ids(), vec![0, 1]);
    p.stop();
    host.stop();
}

/// The host's server hears nothing from an address no handshake admitted, and an admitted
/// address speaks only for the client it was admitted as: a participant drives its own pawn.
#[test]
fn a_hosted_server_takes_datagrams_only_from_admitted_addresses_as_their_own_client() {
    let _g = serial();
    let p = preset(&["clients=1", "ai_pawns=0"]);
    let host = LiveSession::host(&p, &loopback_host("ZZ9PLZ")).expect("hosts");
    let (addr, _) = host.hosting().expect("a host");
    until(
        &host,
        Duration::from_secs(3),
        "the local client to join",
        |r| matches!(r.event, Event::Joined { client: 0, .. }),
    );
    let b = p.checked_bindings().expect("valid");
    // A join as client `id` would make it, with its own key.
    let join_as = |id: u16| {
        let key = movescope::model::messages::client_key(host.join_secret(), id);
        movescope::model::wire::encode_client(
            id,
            1,
            &ClientMsg::Join {
                incarnation: 77,
                proof: movescope::model::messages::join_proof(key, id, 77, b.layout_hash()),
                layout_hash: b.layout_hash(),
            },
            &b,
        )
    };
    // A stranger (no handshake) joining as client 5: dropped before laminar.
    let server = host.server_addr();
    let mut stranger = movescope::net::transport::Endpoint::bind_loopback(0).unwrap();
    stranger.only_from(server);
    stranger.send(server, join_as(5), true);
    let t0 = Instant::now();
    stranger.poll(0.0, t0, &mut Vec::new());
    // An admitted address (a handshake with the code) claiming client 0 — the host's own —
    // then claiming the id it was given.
    let mut admitted = movescope::net::transport::Endpoint::bind_loopback(0).unwrap();
    let (id, game, _control, secret) = movescope::net::remote::shake_hands(
        &JoinOptions {
            host: addr,
            code: "ZZ9PLZ".into(),
            name: None,
        },
        admitted.local_addr().port(),
    )
    .expect("admitted");
    assert_eq!(game, server);
    assert_eq!(id, 1);
    assert_eq!(
        secret,
        movescope::model::messages::client_key(host.join_secret(), 1),
        "the host gives the participant its own join key"
    );
    assert_ne!(secret, host.join_secret(), "never the session's secret");
    admitted.only_from(server);
    admitted.send(server, join_as(0), true);
    admitted.poll(0.01, Instant::now(), &mut Vec::new());
    let (mut unadmitted, mut wrong) = (0, 0);
    let seen = until(
        &host,
        Duration::from_secs(5),
        "the stranger dropped and the false claim refused",
        |r| {
            match &r.event {
                Event::Rejected {
                    reason: Rejection::Unadmitted,
                } => unadmitted += 1,
                Event::Rejected {
                    reason: Rejection::WrongSource,
                } => wrong += 1,
                _ => {}
            }
            unadmitted >= 1 && wrong >= 1
        },
    );
    assert!(
        !seen
            .iter()
            .any(|r| matches!(r.event, Event::Joined { client: 5, .. })),
        "the stranger joined"
    );
    admitted.send(server, join_as(1), true);
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut joined = false;
    while !joined && Instant::now() < deadline {
        admitted.poll(t0.elapsed().as_secs_f64(), Instant::now(), &mut Vec::new());
        std::thread::sleep(Duration::from_millis(10));
        for r in host.telemetry().try_iter() {
            joined |= matches!(r.event, Event::Joined { client: 1, .. });
        }
    }
    assert!(joined, "the admitted address joined as its own client");
    host.stop();
}

// -----------------------------------------------------------------------------------------
// Separate processes: a host and three participants, as a workshop runs them.

#[test]
fn a_host_and_three_participant_processes_share_one_session_and_one_recording() {
    let _g = serial();
    let dir = common::TempDir::new("remote-workshop");
    let rec = dir.join("workshop.msrec");
    let host_json = dir.join("host.json");
    let mut host = Proc::start(&[
        "host",
        "--listen",
        "127.0.0.1:0",
        "--set",
        "clients=0",
        "--set",
        "ai_pawns=2",
        "--headless",
        "--seconds",
        "16",
        "--record",
        rec.to_str().unwrap(),
        "--summary-json",
        host_json.to_str().unwrap(),
    ]);
    let said = host.line("code: ", Duration::from_secs(10));
    // "movescope host: listening on ADDR code: CODE"
    let addr = said
        .split("listening on ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .expect("an address")
        .to_string();
    let code = said
        .split("code: ")
        .nth(1)
        .expect("a code")
        .trim()
        .to_string();
    assert_eq!(code.len(), 6, "{said}");
    let join = |name: &str, seconds: &str, code: &str| {
        Proc::start(&[
            "join",
            &addr,
            "--code",
            code,
            "--name",
            name,
            "--headless",
            "--seconds",
            seconds,
        ])
    };
    // A wrong code: refused, told why, nothing joined.
    let mut wrong = join("eve", "3", "NOPE42");
    let why = wrong.line("refused", Duration::from_secs(10));
    assert!(why.contains("wrong join code"), "{why}");
    assert!(!wrong.wait(Duration::from_secs(10)).success());
    let mut a = join("ana", "10", &code);
    let mut b = join("ben", "10", &code);
    let c = join("cy", "10", &code);
    let ids: Vec<u16> = [&a, &b, &c]
        .iter()
        .map(|p| client_of(&p.line("movescope join: client", Duration::from_secs(10))))
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, vec![0, 1, 2], "each participant its own client");
    // Cy is killed mid-session and comes back under the same name: same client, same pawn.
    std::thread::sleep(Duration::from_secs(3));
    drop(c);
    std::thread::sleep(Duration::from_millis(500));
    let mut c2 = join("cy", "6", &code);
    let back = client_of(&c2.line("movescope join: client", Duration::from_secs(10)));
    assert_eq!(back, ids[2], "cy got its pawn back");
    for p in [&mut a, &mut b, &mut c2] {
        assert!(p.wait(Duration::from_secs(30)).success());
    }
    assert!(host.wait(Duration::from_secs(30)).success());
    // The host's summary and recording hold every machine: the server and three clients,
    // each with moves the server executed for its own pawn.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&host_json).expect("summary")).unwrap();
    let clients = summary["clients"].as_array().expect("clients");
    for id in 0..3u64 {
        let c = clients
            .iter()
            .find(|c| c["id"].as_u64() == Some(id))
            .unwrap_or_else(|| panic!("client {id} in the host's summary"));
        assert!(c["moves_sent"].as_u64().unwrap_or(0) > 100, "{c}");
        assert!(
            c["move_age_ms_mean"].is_number(),
            "server executed client {id}: {c}"
        );
        assert!(
            c["real_rtt_ms_mean"].is_number(),
            "real round trip of {id}: {c}"
        );
    }
    let r = movescope::session::recording::Recording::open(&rec).expect("opens");
    let mut machines = std::collections::BTreeSet::new();
    let mut seen_cy_back = false;
    r.for_each(&mut |rec| {
        machines.insert(rec.machine);
        if let Event::SessionChanged { what } = &rec.event {
            seen_cy_back |= what.contains("cy") && what.contains("back for its pawn");
        }
    })
    .expect("reads");
    for m in [
        Machine::Server,
        Machine::Client(0),
        Machine::Client(1),
        Machine::Client(2),
    ] {
        assert!(machines.contains(&m), "{m} in the recording: {machines:?}");
    }
    assert!(
        seen_cy_back,
        "the host's log says cy came back for its pawn"
    );
}

/// A restarted host (same address and code) is rejoined by its participants by themselves,
/// and a participant with a name gets its client id back.
#[test]
fn a_restarted_host_is_rejoined_by_its_participant() {
    let _g = serial();
    let p = preset(&["clients=0", "ai_pawns=0"]);
    // A free port for both hosts (the second binds it again).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let opts = HostOptions {
        listen: SocketAddr::from(([127, 0, 0, 1], port)),
        code: Some("AGAIN7".into()),
        max_participants: 4,
    };
    let host = LiveSession::host(&p, &opts).expect("hosts");
    let (addr, _) = host.hosting().expect("a host");
    let joined = LiveSession::join(JoinOptions {
        host: addr,
        code: "AGAIN7".into(),
        name: Some("dee".into()),
    })
    .expect("joins");
    let (id, _) = joined.joined().expect("a participant");
    until(
        &host,
        Duration::from_secs(5),
        "the participant's moves",
        |r| matches!(&r.event, Event::RemoteMoveExecuted(m) if m.client == id),
    );
    host.stop();
    let host = LiveSession::host(&p, &opts).expect("hosts again on the same port");
    let (mut back, mut moves) = (false, 0);
    until(
        &host,
        Duration::from_secs(10),
        "the participant back, its moves executed by the new server",
        |r| {
            match &r.event {
                Event::SessionChanged { what } if what.contains("dee") => {
                    assert!(what.contains(&format!("client {id}")), "{what}");
                    back = true;
                }
                Event::RemoteMoveExecuted(m) if m.client == id => moves += 1,
                _ => {}
            }
            back && moves > 10
        },
    );
    // The participant's own log says so.
    let said = joined
        .telemetry()
        .try_iter()
        .filter_map(|r| match r.event {
            Event::Log { text, .. } => Some(text),
            _ => None,
        })
        .collect::<Vec<_>>();
    assert!(
        said.iter().any(|t| t.contains("lost the host"))
            && said.iter().any(|t| t.contains("rejoined")),
        "{said:?}"
    );
    drop(joined);
    host.stop();
}

/// Starting fails with a variant that names the address: a control port already taken, a host
/// that is not there, an invalid preset.
#[test]
fn start_errors_name_the_address_or_the_key() {
    use movescope::net::live::SessionStartError;
    use movescope::net::remote::JoinError;
    let _g = serial();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let addr = taken.local_addr().expect("its address");
    let opts = HostOptions {
        listen: addr,
        ..loopback_host("ZZ9PLZ")
    };
    match LiveSession::host(&preset(&["clients=1"]), &opts) {
        Err(SessionStartError::Listen { addr: a, .. }) => assert_eq!(a, addr),
        Err(e) => panic!("expected the listen address refused, got {e:?}"),
        Ok(_) => panic!("hosted on a taken port"),
    }
    // Nobody listens there once the listener is gone.
    drop(taken);
    let e = LiveSession::join(JoinOptions {
        host: addr,
        code: "ZZ9PLZ".into(),
        name: None,
    })
    .err()
    .expect("nobody to join");
    assert!(
        matches!(&e, SessionStartError::Join(JoinError::Unreachable { host, .. }) if *host == addr),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .starts_with(&format!("cannot reach the host at {addr}")),
        "{e}"
    );
    let mut bad = preset(&["clients=1"]);
    bad.server_fps = 0.0;
    match LiveSession::start(&bad) {
        Err(SessionStartError::Preset(movescope::session::preset::BindingsError::Setting {
            key,
            ..
        })) => assert_eq!(key, "server_fps"),
        Err(e) => panic!("expected the preset refused, got {e:?}"),
        Ok(_) => panic!("an invalid preset started"),
    }
}
