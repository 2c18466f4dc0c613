//! Hosting under hostile or unusual conditions: strangers holding control connections open,
//! guessed join codes, participants that leave, and a host and participants in two network
//! namespaces the test makes itself (beyond loopback). Bounded waits with clear failures.

use std::io::Read;
use std::net::{SocketAddr, TcpStream};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use movescope::model::telemetry::{Event, Machine, Rejection};
use movescope::net::live::{LiveSession, SessionStartError};
use movescope::net::remote::{
    HELLO_TIMEOUT, HostOptions, JoinError, JoinOptions, MAX_HANDSHAKING, MAX_HANDSHAKING_PER_ADDR,
    MAX_WRONG_CODES,
};
use movescope::session::preset::Preset;

mod common;
use common::preset;
use common::proc::{Proc, client_of};
use common::until;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn host(code: &str) -> LiveSession {
    LiveSession::host(
        &preset(&["clients=1", "ai_pawns=0"]),
        &HostOptions {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            code: Some(code.into()),
            max_participants: 4,
        },
    )
    .expect("hosts")
}

/// A control connection to `to` from the loopback address `from` that sends nothing.
fn idle_from(from: [u8; 4], to: SocketAddr) -> TcpStream {
    use socket2::{Domain, Socket, Type};
    let s = Socket::new(Domain::IPV4, Type::STREAM, None).expect("a socket");
    s.bind(&SocketAddr::from((from, 0)).into())
        .expect("binds another loopback address");
    s.connect(&to.into()).expect("connects");
    s.into()
}

/// Whether the host closed `s` within `limit` (end of stream or a reset).
fn closed_within(s: &mut TcpStream, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    let mut buf = [0u8; 256];
    while Instant::now() < deadline {
        let left = deadline.saturating_duration_since(Instant::now());
        let _ = s.set_read_timeout(Some(left.max(Duration::from_millis(1))));
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => return true,
        }
    }
    false
}

/// Twenty connections from 127.0.0.2 and four each from three more addresses, none sending a
/// byte, hold every handshake slot the host has: a participant from 127.0.0.1 still joins
/// (one address holds at most a few slots, and a newcomer from another address takes the
/// place of the oldest waiting connection of the address holding the most), and every idle
/// connection is closed by the handshake deadline.
#[test]
fn idle_connections_from_other_addresses_do_not_keep_a_participant_out() {
    let _g = serial();
    let h = host("IDLE42");
    let (addr, _) = h.hosting().expect("a host");
    let mut idle: Vec<TcpStream> = (0..20).map(|_| idle_from([127, 0, 0, 2], addr)).collect();
    for a in 3..=5u8 {
        idle.extend((0..4).map(|_| idle_from([127, 0, 0, a], addr)));
    }
    const { assert!(3 * 4 + MAX_HANDSHAKING_PER_ADDR >= MAX_HANDSHAKING) };
    // Let the host accept them all before the participant comes.
    until(
        &h,
        Duration::from_secs(5),
        "the host to refuse the connections over one address's share",
        {
            let mut refused = 0;
            move |r| {
                if let Event::Rejected {
                    reason: Rejection::RateLimited,
                } = r.event
                {
                    refused += 1;
                }
                refused >= 20 - MAX_HANDSHAKING_PER_ADDR
            }
        },
    );
    let started = Instant::now();
    let p = LiveSession::join(JoinOptions {
        host: addr,
        code: "IDLE42".into(),
        name: Some("ana".into()),
    })
    .unwrap_or_else(|e| panic!("a participant kept out by idle connections: {e}"));
    assert!(
        started.elapsed() < Duration::from_secs_f64(HELLO_TIMEOUT),
        "admitted only once the strangers timed out ({:?})",
        started.elapsed()
    );
    let (id, _) = p.joined().expect("a participant");
    until(
        &h,
        Duration::from_secs(5),
        "the participant's moves executed while strangers wait",
        |r| matches!(&r.event, Event::RemoteMoveExecuted(m) if m.client == id),
    );
    // Every idle connection is gone by the deadline (some refused at once, the others closed
    // when their handshake time ran out).
    for (i, s) in idle.iter_mut().enumerate() {
        assert!(
            closed_within(s, Duration::from_secs_f64(HELLO_TIMEOUT + 3.0)),
            "idle connection {i} still open after the handshake deadline"
        );
    }
    drop(p);
    h.stop();
}

/// After MAX_WRONG_CODES wrong codes from one address, the refusal says the address is locked
/// out and for how long; the right code from it is refused with the same words.
#[test]
fn wrong_codes_lock_an_address_out_and_the_refusal_says_for_how_long() {
    let _g = serial();
    let h = host("RIGHT7");
    let (addr, _) = h.hosting().expect("a host");
    let refusal = |code: &str| -> String {
        match LiveSession::join(JoinOptions {
            host: addr,
            code: code.into(),
            name: None,
        }) {
            Err(SessionStartError::Join(JoinError::Refused { why, .. })) => why,
            Err(e) => panic!("expected a refusal, got {e:?}"),
            Ok(_) => panic!("{code} was admitted"),
        }
    };
    for n in 1..MAX_WRONG_CODES {
        let why = refusal("WRONG1");
        assert!(why.contains("wrong join code"), "{n}: {why}");
        assert!(!why.contains("locked out"), "{n}: {why}");
    }
    let last = refusal("WRONG1");
    assert!(
        last.contains("wrong join code") && last.contains("127.0.0.1 is locked out"),
        "{last}"
    );
    let right = refusal("RIGHT7");
    assert!(right.contains("even with the right code"), "{right}");
    let secs: f64 = right
        .split("for another ")
        .nth(1)
        .and_then(|r| r.split(" s").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no time left in {right:?}"));
    assert!((50.0..=60.0).contains(&secs), "{right}");
    h.stop();
}

/// A participant that ends says so on the control channel: the host logs it as left, its pawn
/// goes at once, and the server never reports it cut off ("nothing heard for 5 s").
#[test]
fn a_participant_that_ends_is_logged_as_left_not_dropped() {
    let _g = serial();
    let h = host("LEAVE1");
    let (addr, _) = h.hosting().expect("a host");
    let p = LiveSession::join(JoinOptions {
        host: addr,
        code: "LEAVE1".into(),
        name: Some("ben".into()),
    })
    .expect("joins");
    let (id, _) = p.joined().expect("a participant");
    until(
        &h,
        Duration::from_secs(5),
        "the participant's moves",
        |r| matches!(&r.event, Event::RemoteMoveExecuted(m) if m.client == id),
    );
    p.stop();
    let left = Instant::now();
    until(
        &h,
        Duration::from_secs(3),
        "the host to log ben as left",
        |r| {
            matches!(&r.event, Event::SessionChanged { what }
            if what == &format!("participant ben (client {id}) left the session (its run ended)"))
        },
    );
    assert!(
        left.elapsed() < Duration::from_secs(2),
        "{:?}",
        left.elapsed()
    );
    // Past the server's 5 s silence limit: no drop, no more moves of it.
    let deadline = Instant::now() + Duration::from_secs(6);
    while Instant::now() < deadline {
        if let Ok(r) = h.telemetry().recv_timeout(Duration::from_millis(100)) {
            match &r.event {
                Event::ClientDropped { client, why } if *client == id => {
                    panic!("client {id} reported cut off after it left: {why}")
                }
                Event::RemoteMoveExecuted(m) if m.client == id => {
                    assert!(
                        left.elapsed() < Duration::from_millis(500),
                        "a move of the participant executed {:?} after it left",
                        left.elapsed()
                    );
                }
                _ => {}
            }
        }
    }
    assert_eq!(h.client_ids(), vec![0, id], "it stays known for its name");
    h.stop();
}

/// Two network namespaces made here, joined by a veth pair, deleted when dropped.
struct Namespaces {
    host: String,
    guests: String,
}

impl Namespaces {
    /// `None` (with the reason) where namespaces cannot be made: no `ip`, no privilege.
    fn make() -> Result<Namespaces, String> {
        let id = std::process::id();
        let ns = Namespaces {
            host: format!("msh{id}"),
            guests: format!("msg{id}"),
        };
        let (vh, vg) = (format!("msvh{id}"), format!("msvg{id}"));
        let steps: Vec<Vec<String>> = [
            vec!["netns", "add", &ns.host],
            vec!["netns", "add", &ns.guests],
            vec!["link", "add", &vh, "type", "veth", "peer", "name", &vg],
            vec!["link", "set", &vh, "netns", &ns.host],
            vec!["link", "set", &vg, "netns", &ns.guests],
            vec!["-n", &ns.host, "addr", "add", "10.77.0.1/24", "dev", &vh],
            vec!["-n", &ns.guests, "addr", "add", "10.77.0.2/24", "dev", &vg],
            vec!["-n", &ns.host, "link", "set", &vh, "up"],
            vec!["-n", &ns.guests, "link", "set", &vg, "up"],
            vec!["-n", &ns.host, "link", "set", "lo", "up"],
            vec!["-n", &ns.guests, "link", "set", "lo", "up"],
        ]
        .iter()
        .map(|s| s.iter().map(|x| x.to_string()).collect())
        .collect();
        for s in &steps {
            let out = std::process::Command::new("ip")
                .args(s)
                .output()
                .map_err(|e| format!("cannot run ip: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "ip {} failed: {}",
                    s.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
        }
        Ok(ns)
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for n in [&self.host, &self.guests] {
            let _ = std::process::Command::new("ip")
                .args(["netns", "del", n])
                .output();
        }
    }
}

/// A host in one namespace (10.77.0.1) and three participant processes in another
/// (10.77.0.2): all join and play over a real interface, each leaves when its time runs out
/// and the host logs it as left, not cut off.
#[test]
fn a_host_and_participants_in_two_network_namespaces_play_and_leave() {
    let _g = serial();
    let ns = match Namespaces::make() {
        Ok(ns) => ns,
        Err(why) => {
            eprintln!("skipped: network namespaces cannot be made here ({why})");
            return;
        }
    };
    let dir = common::TempDir::new("netns-host");
    let rec = dir.join("netns.msrec");
    let json = dir.join("host.json");
    let mut host = Proc::start_in(
        &ns.host,
        &[
            "host",
            "--listen",
            "10.77.0.1:7777",
            "--code",
            "NETNS7",
            "--set",
            "clients=0",
            "--set",
            "ai_pawns=1",
            "--headless",
            "--seconds",
            "14",
            "--record",
            rec.to_str().expect("utf-8"),
            "--summary-json",
            json.to_str().expect("utf-8"),
        ],
    );
    host.line("code: ", Duration::from_secs(10));
    let names = ["ana", "ben", "cy"];
    let mut guests: Vec<Proc> = names
        .iter()
        .map(|n| {
            Proc::start_in(
                &ns.guests,
                &[
                    "join",
                    "10.77.0.1:7777",
                    "--code",
                    "NETNS7",
                    "--name",
                    n,
                    "--headless",
                    "--seconds",
                    "7",
                ],
            )
        })
        .collect();
    let mut ids: Vec<u16> = guests
        .iter()
        .map(|g| client_of(&g.line("movescope join: client", Duration::from_secs(10))))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, vec![0, 1, 2]);
    for g in &mut guests {
        assert!(g.wait(Duration::from_secs(30)).success());
    }
    assert!(host.wait(Duration::from_secs(30)).success());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("summary")).expect("json");
    for id in 0..3u64 {
        let c = summary["clients"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["id"].as_u64() == Some(id)))
            .unwrap_or_else(|| panic!("client {id} in {summary}"));
        assert!(c["moves_sent"].as_u64().unwrap_or(0) > 100, "{c}");
        let rtt = c["real_rtt_ms_mean"].as_f64().unwrap_or(-1.0);
        assert!((0.0..50.0).contains(&rtt), "a real round trip: {c}");
        assert!(
            c["cut_off"].as_array().is_none_or(|a| a.is_empty()),
            "client {id} reported cut off: {c}"
        );
    }
    let r = movescope::session::recording::Recording::open(&rec).expect("opens");
    let mut left = Vec::new();
    let mut from = Vec::new();
    r.for_each(&mut |rec| {
        if let (Machine::Server, Event::SessionChanged { what }) = (&rec.machine, &rec.event) {
            if what.contains("left the session (its run ended)") {
                left.push(what.clone());
            }
            if what.contains("joined from 10.77.0.2") {
                from.push(what.clone());
            }
        }
    })
    .expect("reads");
    assert_eq!(from.len(), 3, "joined from the other namespace: {from:?}");
    for n in names {
        assert!(
            left.iter()
                .any(|w| w.contains(&format!("participant {n} "))),
            "{n} logged as left: {left:?}"
        );
    }
}

// -----------------------------------------------------------------------------------------
// The windows of a hosted session: participants named, a participant's panes current.

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use movescope::app::{AppOptions, MovescopeApp, Source};

fn app(source: Source, preset: Preset) -> Harness<'static, MovescopeApp> {
    let options = AppOptions {
        source,
        ..AppOptions::live(preset, "test")
    };
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |_cc| MovescopeApp::new(options));
    h.run_steps(3);
    h
}

/// Steps the app (real time passing: the session runs in threads) until `done`, at most
/// `limit`.
fn step_until(
    h: &mut Harness<'static, MovescopeApp>,
    limit: Duration,
    what: &str,
    mut done: impl FnMut(&Harness<'static, MovescopeApp>) -> bool,
) {
    let deadline = Instant::now() + limit;
    while !done(h) {
        assert!(
            Instant::now() < deadline,
            "timed out after {limit:?}: {what}"
        );
        h.run_steps(2);
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The trainer's window names a participant's client by the name it joined with (the plots'
/// legend), and so does the participant's own window.
#[test]
fn participants_are_named_in_the_trainers_window_and_their_own() {
    let _g = serial();
    let mut trainer = app(
        Source::Host(HostOptions {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            code: Some("NAMES1".into()),
            max_participants: 4,
        }),
        preset(&["clients=1", "ai_pawns=0"]),
    );
    let (addr, _) = trainer
        .state()
        .session()
        .and_then(|s| s.hosting())
        .expect("the app hosts");
    let mut ana = app(
        Source::Join(JoinOptions {
            host: addr,
            code: "NAMES1".into(),
            name: Some("ana".into()),
        }),
        Preset::default(),
    );
    let id = ana
        .state()
        .session()
        .and_then(|s| s.joined())
        .expect("joined")
        .0;
    let label = format!("client {id} · ana");
    for (who, h) in [("the trainer's", &mut trainer), ("ana's", &mut ana)] {
        step_until(
            h,
            Duration::from_secs(10),
            &format!("{label} in {who} legend"),
            |h| h.query_by_label(&label).is_some(),
        );
    }
    // A second participant: ana's window calls ben's pawn by his name too.
    let ben = LiveSession::join(JoinOptions {
        host: addr,
        code: "NAMES1".into(),
        name: Some("ben".into()),
    })
    .expect("ben joins");
    let ben_id = ben.joined().expect("a participant").0;
    step_until(
        &mut ana,
        Duration::from_secs(10),
        "ben named in ana's window",
        |h| h.state().store().client_name(ben_id) == format!("client {ben_id} · ben"),
    );
    // The local client keeps its plain name.
    step_until(
        &mut trainer,
        Duration::from_secs(10),
        "the local client under its plain name beside ana",
        |h| h.query_all_by_label("client 0").next().is_some(),
    );
    assert!(trainer.query_all_by_label(&label).next().is_some());
}

/// The trainer changes a GMC setting: the participant's session and its GMC settings window
/// show the new value, not the one it joined with.
#[test]
fn a_participants_panes_show_the_trainers_changes() {
    use movescope::net::live::Command;
    let _g = serial();
    let mut h = host("FOLLOW");
    let (addr, _) = h.hosting().expect("a host");
    let mut ben = app(
        Source::Join(JoinOptions {
            host: addr,
            code: "FOLLOW".into(),
            name: Some("ben".into()),
        }),
        Preset::default(),
    );
    // What only the server measures is not drawn empty here: a note says where it is.
    assert!(
        ben.query_all_by_label("Move age on the server (ms)")
            .next()
            .is_none()
    );
    assert!(
        ben.query_by_label_contains("on the trainer's screen only: Move age on the server")
            .is_some()
    );
    let before = ben.state().session().expect("joined").preset().gmc;
    assert_eq!(before.world_time_update_interval, 0.01);
    let mut gmc = before;
    gmc.world_time_update_interval = 0.25;
    h.command(Command::SetGmc(gmc))
        .expect("the trainer changes it");
    step_until(
        &mut ben,
        Duration::from_secs(5),
        "the participant's session to hold the trainer's change",
        |b| {
            b.state()
                .session()
                .is_some_and(|s| s.preset().gmc.world_time_update_interval == 0.25)
        },
    );
    ben.get_by_role_and_label(egui::accesskit::Role::Button, "GMC settings")
        .click();
    ben.run_steps(4);
    let shown = ben
        .get_all_by_label("WorldTimeUpdateInterval (s)")
        .find_map(|n| n.accesskit_node().numeric_value());
    assert_eq!(
        shown,
        Some(0.25),
        "the GMC settings window shows the change"
    );
    drop(ben);
    h.stop();
}
