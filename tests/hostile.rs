//! The hostile-input suite: every class of bad input the adversarial run found, each with
//! its own test. A few thousand cases per `cargo test`; `MOVESCOPE_HOSTILE_CASES=N` runs N
//! per generated class instead (a long run).

use std::path::{Path, PathBuf};

mod common;

use common::TempDir;

fn cases(default: usize) -> usize {
    std::env::var("MOVESCOPE_HOSTILE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn movescope(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_movescope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs")
}

fn fails_saying(args: &[&str], says: &[&str]) {
    let out = movescope(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "movescope {}: succeeded",
        args.join(" ")
    );
    assert_ne!(
        out.status.code(),
        Some(101),
        "movescope {}: panicked: {err}",
        args.join(" ")
    );
    for s in says {
        assert!(
            err.contains(s),
            "movescope {}: `{err}` does not say `{s}`",
            args.join(" ")
        );
    }
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

fn recording(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let out = movescope(&["run", "--seconds", "2", "--record", &s(&path)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

/// No command writes over one of its inputs; the input is left byte for byte.
#[test]
fn no_command_writes_over_its_own_input() {
    let d = TempDir::new("hostile-inputs");
    let rec = recording(&d, "x.msrec");
    let before = std::fs::read(&rec).unwrap();
    let r = s(&rec);
    // Another spelling of the same file.
    std::fs::create_dir_all(d.join("sub")).unwrap();
    let other = s(&d.join("sub").join("..").join("x.msrec"));
    for args in [
        vec!["export", &r, "--out", &r],
        vec!["inspect", &r, "--summary-json", &other],
        vec!["whatif", &r, "--record", &r, "--force"],
        vec!["whatif", &r, "--summary-json", &r],
    ] {
        fails_saying(&args, &["is the command's input"]);
    }
    assert_eq!(
        std::fs::read(&rec).unwrap(),
        before,
        "the recording is unchanged"
    );

    let preset = d.join("p.ron");
    std::fs::write(&preset, "(clients: 1)\n").unwrap();
    let p = s(&preset);
    fails_saying(
        &["run", "--preset", &p, "--record", &p, "--force"],
        &["is the command's input"],
    );
    fails_saying(
        &["run", "--preset", &p, "--summary-json", &p],
        &["is the command's input"],
    );
    assert_eq!(std::fs::read_to_string(&preset).unwrap(), "(clients: 1)\n");

    // A report into the folder its input is in, named as the report's recording.
    let rep = d.join("rep");
    std::fs::create_dir_all(&rep).unwrap();
    let inner = rep.join("session.msrec");
    std::fs::copy(&rec, &inner).unwrap();
    fails_saying(
        &[
            "report",
            &s(&inner),
            "--at",
            "1",
            "--out",
            &s(&rep),
            "--no-picture",
            "--force",
        ],
        &["is the command's input"],
    );
    assert_eq!(std::fs::read(&inner).unwrap(), before);
}

/// A recording is never replaced without --force; with it, by a complete new file.
#[test]
fn a_recording_is_replaced_only_with_force() {
    let d = TempDir::new("hostile-force");
    let rec = recording(&d, "a.msrec");
    let before = std::fs::read(&rec).unwrap();
    fails_saying(
        &["run", "--seconds", "1", "--record", &s(&rec)],
        &["a.msrec", "never replaced without --force"],
    );
    assert_eq!(std::fs::read(&rec).unwrap(), before);
    let src = recording(&d, "src.msrec");
    fails_saying(
        &[
            "whatif",
            &s(&src),
            "--set",
            "link.latency_ms=90",
            "--record",
            &s(&rec),
        ],
        &["never replaced without --force"],
    );
    let out = movescope(&["run", "--seconds", "1", "--record", &s(&rec), "--force"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(std::fs::read(&rec).unwrap(), before, "replaced");
    let out = movescope(&["inspect", &s(&rec)]);
    assert!(out.status.success(), "the replacement opens");
    // No temporary sibling is left behind.
    let left: Vec<_> = std::fs::read_dir(&*d)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".part-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // A second report into the same folder needs --force too.
    let rep = d.join("rep");
    let r = s(&rec);
    let args = [
        "report",
        &r,
        "--at",
        "0.5",
        "--out",
        &s(&rep),
        "--no-picture",
    ];
    assert!(movescope(&args).status.success());
    fails_saying(&args, &["earlier report", "--force"]);
}

/// Outputs that cannot be written are named, with what was expected.
#[test]
fn unwritable_outputs_are_named_with_what_was_expected() {
    let d = TempDir::new("hostile-outputs");
    let rec = recording(&d, "r.msrec");
    let r = s(&rec);
    let plain = d.join("plain");
    std::fs::write(&plain, "x").unwrap();
    let under_file = s(&plain.join("out.json"));
    fails_saying(
        &["inspect", &r, "--summary-json", &under_file],
        &["--summary-json", "plain", "is not a folder"],
    );
    fails_saying(
        &["export", &r, "--out", &s(&d.join("nosuch").join("x.csv"))],
        &["--out", "nosuch", "does not exist"],
    );
    fails_saying(
        &["run", "--seconds", "1", "--record", &s(&d)],
        &["--record", "is a folder"],
    );
    #[cfg(target_os = "linux")]
    {
        fails_saying(
            &["inspect", &r, "--summary-json", "/dev/full"],
            &["/dev/full", "not a regular file"],
        );
        fails_saying(
            &["--screenshot", "/proc/version"],
            &["--screenshot", "/proc/version"],
        );
    }
    fails_saying(
        &["--window", "nosuch"],
        &["--window nosuch", "expected one of", "bindings"],
    );
    fails_saying(&["--record", &s(&d)], &["--record", "is a folder"]);
}

/// Mutated presets: every mutation loads, or is refused with a file position; none panics
/// or hangs.
#[test]
fn mutated_presets_are_refused_with_a_position_or_run() {
    let d = TempDir::new("hostile-presets");
    let base =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("presets/default.ron"))
            .unwrap();
    let bytes = base.as_bytes();
    let mut rng = movescope::support::rng::Rng::new(7);
    let replacements = [
        "NaN", "inf", "-1", "1e300", "1e-300", "0", "\"", "(", ")", ",", "-",
    ];
    let n = cases(1000);
    let mut refused = 0;
    for i in 0..n {
        let at = (rng.f64() * bytes.len() as f64) as usize;
        let mut text = String::from_utf8_lossy(&bytes[..at]).into_owned();
        text += replacements[i % replacements.len()];
        text += &String::from_utf8_lossy(&bytes[(at + 1).min(bytes.len())..]);
        match movescope::session::preset::Preset::from_ron(&text, "mutated.ron") {
            Ok(mut p) => {
                // What loads is valid, and runs briefly without a hang or a panic.
                p.seconds = 0.5;
                movescope::sim::run_deterministic(&p, "mutated", 0.5, &mut |_| {})
                    .unwrap_or_else(|e| panic!("mutation {i} loaded but does not run: {e}"));
            }
            Err(e) => {
                refused += 1;
                let msg = e.to_string();
                assert!(
                    msg.starts_with("mutated.ron:")
                        && (e.position.is_some() || msg.contains("expected")),
                    "mutation {i} refused without a position or what was expected: {msg}"
                );
            }
        }
    }
    assert!(refused > n / 10, "{refused} of {n} refused");
    let _ = d;
}

/// Mutated datagrams (bit flips, cuts, garbage tails) of every message kind: the decoder and
/// both models take each one without a panic, and no absurd time reaches a model.
#[test]
fn mutated_datagrams_never_panic_a_model() {
    use movescope::model::client::Client;
    use movescope::model::messages::{ClientMsg, ServerMsg, WireMove};
    use movescope::model::pawn::PawnValues;
    use movescope::model::server::Server;
    use movescope::model::wire;
    let p = movescope::session::preset::Preset::default();
    let b = std::sync::Arc::new(p.checked_bindings().expect("valid"));
    let v = PawnValues::default();
    let mv = |id| WireMove {
        id,
        timestamp: 1.0 + f64::from(id) / 60.0,
        delta: 1.0 / 60.0,
        input: v.clone(),
        output: v.clone(),
    };
    let mut originals: Vec<Vec<u8>> = vec![
        wire::encode_client(
            0,
            1,
            &ClientMsg::Join {
                incarnation: 7,
                proof: 7,
                layout_hash: b.layout_hash(),
            },
            &b,
        ),
        wire::encode_client(
            0,
            2,
            &ClientMsg::Ping {
                seq: 1,
                client_time: 2.0,
            },
            &b,
        ),
        wire::encode_client(
            0,
            3,
            &ClientMsg::Moves {
                layout: 0,
                epoch: 0,
                view_delay_ms: 100,
                moves: (1..6).map(mv).collect(),
            },
            &b,
        ),
    ];
    let server_msgs = [
        ServerMsg::WorldTime {
            replicator: 0,
            server_time: 3.0,
        },
        ServerMsg::Pong {
            seq: 1,
            client_time: 2.0,
        },
        ServerMsg::ProxySpawn {
            pawn: 3,
            owner: 1,
            spawn: movescope::model::messages::SpawnData {
                team: 1,
                ..Default::default()
            },
        },
        ServerMsg::Ack {
            layout: 0,
            move_id: 4,
            values: v,
        },
    ];
    for (i, m) in server_msgs.iter().enumerate() {
        originals.push(wire::encode_server(10 + i as u32, m, &b));
    }
    let mut rng = movescope::support::rng::Rng::new(11);
    let mut server = Server::new(p.server_config(b.clone()));
    let mut client = Client::new(p.client_config(0, 7, b.clone()));
    let n = cases(3000);
    for i in 0..n {
        let mut d = originals[i % originals.len()].clone();
        match i % 4 {
            0 | 1 => {
                for _ in 0..1 + i % 3 {
                    let bit = (rng.f64() * (d.len() * 8) as f64) as usize;
                    d[bit / 8] ^= 1 << (bit % 8);
                }
            }
            2 => d.truncate((rng.f64() * d.len() as f64) as usize),
            _ => d.extend((0..1 + i % 40).map(|k| (k * 37 + i) as u8)),
        }
        let t = 1.0 + i as f64 * 0.001;
        let _ = server.handle_datagram(t, &d);
        let _ = client.handle_datagram(t, &d);
        if i % 100 == 0 {
            server.frame(t);
            client.frame(t, Default::default());
            while server.poll_transmit().is_some() {}
        }
    }
    // Whatever got in, the models' clocks stay sane.
    let mut telemetry = Vec::new();
    server.drain_telemetry(&mut telemetry);
    client.drain_telemetry(&mut telemetry);
    for (t, e) in telemetry {
        if let movescope::model::telemetry::Event::Rtt { rtt } = e {
            assert!(rtt.abs() < 1.0e9, "round trip {rtt} at {t}");
        }
    }
}

/// A file cut exactly at a chunk boundary is complete as far as it goes: every command that
/// reads it says it was not finished.
#[test]
fn a_file_cut_at_a_chunk_boundary_says_so_in_every_command() {
    let d = TempDir::new("hostile-cut");
    let rec = recording(&d, "full.msrec");
    let opened = movescope::session::recording::Recording::open(&rec).unwrap();
    assert!(opened.chunks.len() > 1);
    let cut_at = opened.chunks[1].offset as usize;
    let bytes = std::fs::read(&rec).unwrap();
    let cut = d.join("cut.msrec");
    std::fs::write(&cut, &bytes[..cut_at]).unwrap();
    let c = s(&cut);
    let csv = s(&d.join("out.csv"));
    let rep = s(&d.join("rep"));
    for args in [
        vec!["inspect", &c],
        vec!["doctor", &c],
        vec!["export", &c, "--out", &csv],
        vec!["lineage", &c, "--client", "0", "--at", "0.5"],
        vec!["whatif", &c],
        vec!["report", &c, "--at", "0.5", "--out", &rep, "--no-picture"],
    ] {
        let out = movescope(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(101), "{args:?}: panicked: {err}");
        assert!(
            err.contains("not finished") && err.contains("cut at a chunk boundary"),
            "{args:?}: {err}"
        );
    }
}

/// Each error names the thing and what was expected.
#[test]
fn errors_name_the_value_and_what_was_expected() {
    let d = TempDir::new("hostile-messages");
    let nan = d.join("nan.ron");
    std::fs::write(
        &nan,
        "(\n    smoothing: (\n        min_buffer_time: NaN,\n    ),\n)\n",
    )
    .unwrap();
    // The NaN is blamed, with its line, not the unrelated --set.
    fails_saying(
        &[
            "run",
            "--preset",
            &s(&nan),
            "--set",
            "clients=2",
            "--seconds",
            "1",
        ],
        &["nan.ron:3:", "smoothing.min_buffer_time", "NaN"],
    );
    let rec = recording(&d, "r.msrec");
    for at in ["NaN", "inf", "1e9", "5e3"] {
        fails_saying(
            &["lineage", &s(&rec), "--client", "0", "--at", at],
            &["--at", "expected a time the recording holds"],
        );
    }
}

/// Joins a stranger could send or replay: without the session's secret, for an id the session
/// cannot have, or an older incarnation than the client's own. Each is refused and counted,
/// creates no pawn and takes no client's place; each kind is logged once.
#[test]
fn forged_out_of_range_and_stale_joins_are_refused_without_a_pawn() {
    use movescope::model::messages::ClientMsg;
    use movescope::model::server::Server;
    use movescope::model::telemetry::{Event, Rejection};
    use movescope::model::wire;
    let mut p = movescope::session::preset::Preset::default();
    p.set("ai_pawns=0").expect("valid");
    let b = std::sync::Arc::new(p.checked_bindings().expect("valid"));
    let secret = p.join_secret();
    // A join as made with `secret` (the session's, or a forger's guess).
    let join = |id: u16, incarnation: u32, secret: u64, seq: u32| {
        let key = movescope::model::messages::client_key(secret, id);
        wire::encode_client(
            id,
            seq,
            &ClientMsg::Join {
                incarnation,
                proof: movescope::model::messages::join_proof(
                    key,
                    id,
                    incarnation,
                    b.layout_hash(),
                ),
                layout_hash: b.layout_hash(),
            },
            &b,
        )
    };
    let mut server = Server::new(p.server_config(b.clone()));
    for c in 0..3 {
        assert_eq!(server.handle_datagram(0.0, &join(c, 0, secret, 1)), Ok(c));
    }
    server.frame(0.01);
    assert_eq!(server.pawns().len(), 3);
    // Sender ids rewritten, no secret.
    for (k, id) in [0u16, 3, 63, 128, 200, 65535].into_iter().enumerate() {
        assert_eq!(
            server.handle_datagram(0.02, &join(id, 9, secret ^ 0xFFFF, 10 + k as u32)),
            Err(Rejection::ForgedJoin),
            "client {id}"
        );
    }
    // A captured join (client 1's, with its proof) rewritten: another id, a newer incarnation,
    // another binding list. The proof proves only the join it came with.
    let (_, captured) = wire::decode(&join(1, 0, secret, 1), |_| Some(&*b)).expect("a join");
    let wire::Datagram::Client(ClientMsg::Join { proof, .. }) = captured else {
        panic!("a join")
    };
    for (k, (id, incarnation, layout_hash)) in [
        (3u16, 0u32, b.layout_hash()),
        (63, 0, b.layout_hash()),
        (1, 5, b.layout_hash()),
        (1, 0, b.layout_hash() ^ 1),
    ]
    .into_iter()
    .enumerate()
    {
        let rewritten = wire::encode_client(
            id,
            30 + k as u32,
            &ClientMsg::Join {
                incarnation,
                proof,
                layout_hash,
            },
            &b,
        );
        assert_eq!(
            server.handle_datagram(0.02, &rewritten),
            Err(Rejection::ForgedJoin),
            "client {id}, incarnation {incarnation}"
        );
    }
    // With the secret, ids the session cannot have.
    for id in [movescope::session::control::MAX_CLIENTS, 200, 65535] {
        assert_eq!(
            server.handle_datagram(0.02, &join(id, 0, secret, 20)),
            Err(Rejection::ClientIdOutOfRange),
            "client {id}"
        );
    }
    // Client 1 restarts (a newer incarnation): accepted; its first join replayed: refused.
    assert_eq!(server.handle_datagram(0.03, &join(1, 4, secret, 1)), Ok(1));
    server.frame(0.04);
    assert_eq!(server.incarnation_of(1), Some(4));
    assert_eq!(
        server.handle_datagram(0.05, &join(1, 0, secret, 2)),
        Err(Rejection::StaleJoin)
    );
    server.frame(0.06);
    assert_eq!(server.pawns().len(), 3, "no phantom pawn");
    assert_eq!(server.client_ids(), vec![0, 1, 2]);
    assert_eq!(server.incarnation_of(1), Some(4));
    let mut events = Vec::new();
    server.drain_telemetry(&mut events);
    let refused = |r: Rejection| {
        events
            .iter()
            .filter(|(_, e)| matches!(e, Event::Rejected { reason } if *reason == r))
            .count()
    };
    assert_eq!(refused(Rejection::ForgedJoin), 10);
    assert_eq!(refused(Rejection::ClientIdOutOfRange), 3);
    assert_eq!(refused(Rejection::StaleJoin), 1);
    let logged = events
        .iter()
        .filter(|(_, e)| matches!(e, Event::Log { text, .. } if text.starts_with("refused a join")))
        .count();
    assert_eq!(logged, 3, "one log line per kind");
}

/// Values in range one by one but absurd: a binding tolerance of `inf` (preset, with its line)
/// or `1e300` (`--set`), a smoothing buffer or delay whose minimum exceeds its maximum, and a
/// MaxTimeStep of 1e-300 (with MaxIterations 1024 every move was 1024 sub-steps) are refused
/// as other out-of-range values are.
#[test]
fn absurd_tolerances_crossed_bounds_and_costly_sub_steps_are_refused() {
    let d = TempDir::new("hostile-values");
    let file = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        s(&p)
    };
    let inf = file(
        "inf.ron",
        "(\n    bindings: [\n        (\n            name: \"velocity\",\n            tolerance: Some(inf),\n        ),\n    ],\n)\n",
    );
    fails_saying(
        &["run", "--preset", &inf, "--seconds", "1"],
        &[
            "inf.ron:5:",
            "bindings.0.tolerance",
            "[0, 1000000]",
            "got inf",
        ],
    );
    let named = file(
        "named.ron",
        "(\n    bindings: [\n        (\n            name: \"velocity\",\n        ),\n    ],\n)\n",
    );
    fails_saying(
        &[
            "run",
            "--preset",
            &named,
            "--set",
            "bindings.0.tolerance=1e300",
            "--seconds",
            "1",
        ],
        &["bindings.0.tolerance", "got 1e300"],
    );
    let crossed = file(
        "crossed.ron",
        "(\n    smoothing: (\n        min_buffer_time: 0.5,\n        max_buffer_time: 0.2,\n    ),\n)\n",
    );
    fails_saying(
        &["run", "--preset", &crossed, "--seconds", "1"],
        &[
            "crossed.ron:",
            "smoothing.max_buffer_time",
            "at least smoothing.min_buffer_time (0.5)",
        ],
    );
    fails_saying(
        &[
            "run",
            "--set",
            "smoothing.min_delay=0.4",
            "--set",
            "smoothing.max_delay=0.1",
            "--seconds",
            "1",
        ],
        &["smoothing.max_delay", "at least smoothing.min_delay (0.4)"],
    );
    fails_saying(
        &[
            "run",
            "--set",
            "gmc.max_time_step=1e-300",
            "--set",
            "gmc.max_iterations=1024",
            "--seconds",
            "1",
        ],
        &["gmc.max_time_step", "[0.001, 1]", "got 1e-300"],
    );
}

/// The offsets of a recording's chunk frames (header copy, records, index), walked from the
/// first chunk magic after the text header.
fn frame_offsets(bytes: &[u8]) -> Vec<usize> {
    let body = bytes
        .windows(4)
        .position(|w| w == b"MSCH")
        .expect("a chunk");
    let mut out = Vec::new();
    let mut at = body;
    while at + 44 <= bytes.len() && &bytes[at..at + 4] == b"MSCH" {
        out.push(at);
        let len = u32::from_le_bytes(bytes[at + 36..at + 40].try_into().expect("4 bytes"));
        at += 44 + len as usize;
    }
    out
}

/// Each records chunk's records, read from the intact file.
fn chunk_records(path: &Path) -> Vec<Vec<movescope::model::telemetry::Record>> {
    let rec = movescope::session::recording::Recording::open(path).expect("opens");
    (0..rec.chunks.len())
        .map(|i| rec.read_chunk(i).expect("intact"))
        .collect()
}

#[test]
fn one_flipped_bit_in_any_frame_or_header_of_a_shipped_recording_costs_at_most_its_chunk() {
    use movescope::session::recording::Recording;
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("recordings/default.msrec");
    let bytes = std::fs::read(&shipped).expect("shipped");
    let chunks = chunk_records(&shipped);
    let all = chunks.concat();
    let frames = frame_offsets(&bytes);
    assert_eq!(
        frames.len(),
        chunks.len() + 2,
        "a header copy, the records, an index"
    );
    let dir = TempDir::new("flip-shipped");
    let path = dir.join("f.msrec");
    // Bits to flip: every bit of every frame and of the trailer, every bit of the first line,
    // one bit of every 13th byte of the text header.
    let first_line = bytes
        .iter()
        .position(|b| *b == b'\n')
        .expect("a first line");
    let mut bits: Vec<(usize, u8)> = Vec::new();
    let every_bit = |from: usize, to: usize, bits: &mut Vec<(usize, u8)>| {
        bits.extend((from..to).flat_map(|at| (0..8).map(move |b| (at, b))));
    };
    every_bit(0, first_line + 1, &mut bits);
    bits.extend(
        (first_line + 1..frames[0])
            .step_by(13)
            .map(|at| (at, (at % 8) as u8)),
    );
    for f in &frames {
        every_bit(*f, f + 44, &mut bits);
    }
    every_bit(bytes.len() - 16, bytes.len(), &mut bits);
    for (at, bit) in bits {
        let mut b = bytes.clone();
        b[at] ^= 1 << bit;
        std::fs::write(&path, &b).expect("write");
        let rec = Recording::open(&path)
            .unwrap_or_else(|e| panic!("byte {at} bit {bit}: the recording is lost: {e}"));
        let (back, _) = rec.load_all();
        // The records chunk whose frame the flip hit, when it hit one: at most it is lost.
        let lost = frames[1..=chunks.len()]
            .iter()
            .position(|f| (*f..f + 44).contains(&at));
        let want: Vec<_> = chunks
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != lost)
            .flat_map(|(_, c)| c.iter().cloned())
            .collect();
        // With the index intact, a damaged frame is damage in its own chunk, not a reason to
        // distrust the index; the header's copy holds no records.
        let index_intact = at < frames[frames.len() - 1];
        if index_intact && at >= frames[0] {
            assert_eq!(rec.index_note, None, "byte {at} bit {bit}");
            let named = rec.damage.as_ref().map(|d| d.chunk as usize);
            let (_, damage) = rec.load_all();
            let named = named.or(damage.map(|d| d.chunk as usize));
            assert!(
                named.is_none() || named == lost,
                "byte {at} bit {bit}: {named:?}"
            );
        }
        assert!(
            back == want || back == all,
            "byte {at} bit {bit}: {} records load, {} expected",
            back.len(),
            want.len()
        );
    }
}

#[test]
fn labels_from_a_recording_reach_the_terminal_short_and_escaped() {
    use movescope::session::preset::Preset;
    use movescope::session::recording::{Footer, Header, write_all};
    let dir = TempDir::new("labels");
    let path = dir.join("labels.msrec");
    let mut preset = Preset::builtin_default();
    preset.title = "\u{1b}]0;owned\u{7}title".into();
    let long_name = "n".repeat(5_000_000);
    let mut header = Header::new(&preset, &long_name, "\u{1b}[31mlive\u{1b}[0m").expect("header");
    header.app_version = format!("{}\u{1b}[2J", header.app_version);
    write_all(&path, &header, Vec::new(), Footer::default()).expect("written");
    for args in [
        vec!["inspect", path.to_str().expect("utf-8")],
        vec!["doctor", path.to_str().expect("utf-8")],
    ] {
        let out = movescope(&args);
        assert_ne!(out.status.code(), Some(101), "{args:?} panicked");
        for stream in [&out.stdout, &out.stderr] {
            let text = String::from_utf8_lossy(stream);
            assert!(
                !text.contains('\u{1b}'),
                "{args:?}: a raw escape reached the terminal"
            );
            let longest = text.lines().map(str::len).max().unwrap_or(0);
            assert!(longest < 1000, "{args:?}: a line of {longest} bytes");
        }
        let said = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("more characters"), "{args:?}: {said}");
    }
}

#[test]
fn preset_errors_quote_the_file_short_and_escaped() {
    let dir = TempDir::new("quoting-presets");
    let cases = [
        format!("(title: \"x\", {}: 1)", "k".repeat(200_000)),
        format!(
            "(bindings: [(name: \"{}\u{1b}[2J\", tolerance: 1.0)])",
            "n".repeat(300_000)
        ),
        "(seconds: \"\u{1b}]0;owned\u{7}\")".to_string(),
    ];
    for (i, text) in cases.iter().enumerate() {
        let path = dir.join(format!("p{i}.ron"));
        std::fs::write(&path, text).expect("write");
        let out = movescope(&["run", "--preset", &s(&path), "--seconds", "1"]);
        assert!(!out.status.success(), "case {i} ran");
        assert_ne!(out.status.code(), Some(101), "case {i} panicked");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains('\u{1b}'),
            "case {i}: a raw escape reached the terminal"
        );
        let longest = err.lines().map(str::len).max().unwrap_or(0);
        assert!(longest < 1000, "case {i}: a line of {longest} bytes");
        assert!(err.contains(&format!("p{i}.ron")), "case {i}: {err}");
    }
}

/// A server told when each client's turn to join is reports only the clients past their own
/// deadline: a late joiner of a staggered session (pitfall 7 joins 3 s apart) is not cut off
/// before its turn, and one that never comes is cut off once.
#[test]
fn an_expected_client_is_cut_off_only_after_its_own_deadline_and_once() {
    use movescope::model::server::Server;
    use movescope::model::telemetry::Event;
    let p = movescope::session::preset::Preset::default();
    let b = std::sync::Arc::new(p.checked_bindings().expect("valid"));
    let mut server = Server::new(p.server_config(b));
    server.expect_clients([(0, 8.0), (1, 11.0)]);
    let mut dropped = Vec::new();
    for frame in 0..=600 {
        let now = f64::from(frame) / 60.0 * 2.0;
        server.frame(now);
        server.drain_telemetry_each(|t, e| {
            if let Event::ClientDropped { client, .. } = e {
                dropped.push((client, t));
            }
        });
    }
    assert_eq!(dropped.len(), 2, "{dropped:?}");
    assert_eq!(dropped[0].0, 0);
    assert!((8.0..8.1).contains(&dropped[0].1), "{dropped:?}");
    assert_eq!(dropped[1].0, 1);
    assert!((11.0..11.1).contains(&dropped[1].1), "{dropped:?}");
}
