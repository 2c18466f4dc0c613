//! The `movescope` command line, run as a user would.

mod common;

use std::process::Command;

fn movescope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_movescope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs")
}

#[test]
fn run_writes_the_documented_summary_json() {
    let out = movescope(&[
        "run",
        "--seconds",
        "5",
        "--seed",
        "7",
        "--set",
        "clients=2",
        "--set",
        "link.latency_ms=40",
        "--summary-json",
        "-",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    for key in [
        "simulated_seconds",
        "wall_seconds",
        "seed",
        "warnings",
        "errors",
        "clients",
        "server",
        "packets",
    ] {
        assert!(s.get(key).is_some(), "missing {key}");
    }
    assert_eq!(s["mode"], "deterministic");
    assert_eq!(s["seed"], 7);
    assert_eq!(s["simulated_seconds"], 5.0);
    let clients = s["clients"].as_array().expect("list");
    assert_eq!(clients.len(), 2);
    for key in [
        "id",
        "frames",
        "moves_sent",
        "mean_frames_per_move",
        "max_substeps",
        "corrections",
        "mean_replay_depth",
        "max_replay_depth",
        "deviations",
        "one_shot_events",
        "side_effects",
        "rtt_ms_mean",
        "clock_offset_ms_mean",
    ] {
        assert!(clients[0].get(key).is_some(), "client missing {key}");
    }
    let rtt = clients[0]["rtt_ms_mean"].as_f64().expect("rtt");
    assert!((79.0..=81.0).contains(&rtt), "{rtt}");
    for key in [
        "remote_moves_executed",
        "local_moves_executed",
        "one_shot_events",
    ] {
        assert!(s["server"].get(key).is_some(), "server missing {key}");
    }
    for key in ["sent", "delivered", "dropped", "duplicated", "bytes"] {
        assert!(s["packets"].get(key).is_some(), "packets missing {key}");
    }
}

#[test]
fn proxy_keys_and_summary_fields() {
    let out = movescope(&[
        "run",
        "--seconds",
        "4",
        "--set",
        "net_mode=listen",
        "--set",
        "smoothing.mode=FixedDelayInterpolation",
        "--set",
        "smoothing.buffer_time=0.2",
        "--set",
        "net_update_rate=20",
        "--set",
        "faults.spawn_data_only_bound=true",
        "--summary-json",
        "-",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let clients = s["clients"].as_array().expect("list");
    assert_eq!(clients.len(), 2, "client 0 is the listen-server host");
    for key in [
        "interp_delay_ms_mean",
        "interp_delay_ms_max",
        "extrapolation_seconds",
    ] {
        assert!(clients[0].get(key).is_some(), "missing {key}");
    }
    assert_eq!(
        clients[0]["interp_delay_ms_mean"].as_f64(),
        Some(150.0),
        "fixed delay"
    );
    assert!(
        s["roles"]["server"]
            .as_object()
            .is_some_and(|m| !m.is_empty())
    );
    assert!(
        s["roles"]["client 1"]
            .as_object()
            .is_some_and(|m| !m.is_empty())
    );
}

#[test]
fn same_seed_gives_the_same_summary_apart_from_wall_time() {
    let get = || {
        let out = movescope(&[
            "run",
            "--seconds",
            "4",
            "--set",
            "link.loss=0.05",
            "--summary-json",
            "-",
        ]);
        let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        v["wall_seconds"] = serde_json::Value::Null;
        v
    };
    assert_eq!(get(), get());
}

#[test]
fn a_malformed_preset_is_reported_with_file_line_and_column() {
    let dir = common::TempDir::new("cli");
    let path = dir.join("broken.ron");
    std::fs::write(
        &path,
        "(\n    clients: 2,\n    gmc: (max_time_stp: 0.02),\n)\n",
    )
    .unwrap();
    let out = movescope(&["run", "--preset", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("broken.ron:3:"), "{err}");
    assert!(err.contains("max_time_stp"), "{err}");
    let out = movescope(&["run", "--set", "link.latency=5"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("latency_ms"), "suggests the known keys: {err}");
}

#[test]
fn every_shipped_preset_loads_and_runs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("presets");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ron") {
            let out = movescope(&["run", "--preset", path.to_str().unwrap(), "--seconds", "2"]);
            assert!(
                out.status.success(),
                "{}: {}",
                path.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            n += 1;
        }
    }
    assert!(n >= 1);
}

#[test]
fn a_shipped_preset_runs_by_name_from_any_folder() {
    let dir = common::TempDir::new("cli-anywhere");
    let run = |preset: &str| {
        Command::new(env!("CARGO_BIN_EXE_movescope"))
            .args([
                "run",
                "--preset",
                preset,
                "--seconds",
                "3",
                "--summary-json",
                "-",
            ])
            .current_dir(&*dir)
            .output()
            .expect("runs")
    };
    let out = run("pitfall-01-unbound-member");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(s["preset"], "pitfall-01-unbound-member");
    // The folder-and-suffix spelling finds the same built-in preset.
    let out = run("presets/pitfall-01-unbound-member.ron");
    assert!(out.status.success());
    // An unknown name says what is shipped.
    let out = run("no-such-preset");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no shipped preset of that name") && err.contains("pitfall-01-unbound-member"),
        "{err}"
    );
}

#[test]
fn a_preset_file_on_disk_wins_over_the_shipped_name() {
    let dir = common::TempDir::new("cli-local-preset");
    let path = dir.join("default.ron");
    std::fs::write(
        &path,
        "(title: \"mine\", description: \"a local file\", clients: 1)",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_movescope"))
        .args([
            "run",
            "--preset",
            "default.ron",
            "--seconds",
            "1",
            "--summary-json",
            "-",
        ])
        .current_dir(&*dir)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(s["clients"].as_array().map(Vec::len), Some(1));
}

#[test]
fn values_that_would_hang_a_run_are_refused_with_key_range_and_value() {
    for (args, key) in [
        (
            vec![
                "run",
                "--seconds",
                "3",
                "--set",
                "input.dash_period_s=1e-20",
            ],
            "input.dash_period_s",
        ),
        (
            vec!["run", "--seconds", "1", "--set", "client_fps=1e17"],
            "client_fps",
        ),
        (
            vec!["run", "--seconds", "1", "--set", "server_fps=1e9"],
            "server_fps",
        ),
        (vec!["run", "--seconds", "1e9"], "--seconds"),
        (vec!["bench", "--seconds", "NaN"], "--seconds"),
        (
            vec!["run", "--seconds", "1", "--set", "input.stop_chance=5"],
            "input.stop_chance",
        ),
    ] {
        let out = movescope(&args);
        assert!(!out.status.success(), "{args:?} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(key) && err.contains("a number in"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_nan_in_a_preset_file_is_refused_with_its_line() {
    let dir = common::TempDir::new("cli-nan");
    let path = dir.join("nan.ron");
    std::fs::write(
        &path,
        "(\n  title: \"nan\",\n  description: \"NaN smoothing\",\n  smoothing: (min_delay: NaN),\n)\n",
    )
    .unwrap();
    let p = path.display().to_string();
    let out = movescope(&["run", "--seconds", "1", "--preset", &p]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nan.ron:4:")
            && err.contains("smoothing.min_delay")
            && err.contains("got NaN"),
        "{err}"
    );
}

#[test]
fn run_with_a_component_binds_its_layout_and_compares_the_bandwidth() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = root.join("tests/run/TraversalMovement.cpp");
    let out = movescope(&[
        "run",
        "--component",
        file.to_str().unwrap(),
        "--seconds",
        "12",
        "--summary-json",
        "-",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The summary alone on standard output (it parses), the comparison on standard error.
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(summary["clients"][0]["bytes_sent_per_s"].as_f64().unwrap() > 1000.0);
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("layout: expected"), "{text}");
    assert!(text.contains("layout: client 0 sent"), "{text}");
    assert!(text.contains("at its own"), "{text}");
    let c0 = &summary["clients"][0];
    let bits = c0["value_bits_per_move"].as_f64().expect("bits per move");
    assert!(bits > 100.0 && bits < 400.0, "{bits}");
    assert!(c0["move_datagrams"].as_u64().unwrap() > 0);
    assert!(c0["sending_seconds"].as_f64().unwrap() > 1.0);
    // A folder with several components: which one is asked for.
    let out = movescope(&[
        "run",
        "--component",
        root.join("tests/lint").to_str().unwrap(),
        "--seconds",
        "1",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--class"), "{err}");
    let out = movescope(&[
        "run",
        "--component",
        root.join("tests/lint").to_str().unwrap(),
        "--class",
        "UNoSuchThing",
        "--seconds",
        "1",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such component"));
}

/// A client the server dropped is named in the summary (when, why, whether it came back), and
/// a run in which one of the preset's clients stopped playing before the end exits non-zero:
/// an outage of 7 s (every client dropped, all back) passes; one that lasts past the end fails,
/// live and in virtual time.
#[test]
fn a_client_cut_off_is_named_in_the_summary_and_a_client_gone_at_the_end_fails_the_run() {
    let dir = common::TempDir::new("cli-cut-off");
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("presets/default.ron"),
    )
    .expect("the default preset");
    assert!(text.contains("outages: [],"));
    let with_outage = |secs: u32| {
        let p = dir.join(format!("outage-{secs}.ron"));
        let t = text.replace(
            "outages: [],",
            &format!("outages: [(start_s: 2, duration_s: {secs})],"),
        );
        std::fs::write(&p, t).expect("written");
        p
    };
    let summary = |args: &[&str]| {
        let out = movescope(args);
        let s: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
        (out, s)
    };
    let back = with_outage(7);
    let (out, s) = summary(&[
        "run",
        "--preset",
        back.to_str().unwrap(),
        "--seconds",
        "14",
        "--summary-json",
        "-",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for c in s["clients"].as_array().expect("clients") {
        let cut = c["cut_off"].as_array().expect("cut_off");
        assert_eq!(cut.len(), 1, "{c}");
        let at = cut[0]["at_s"].as_f64().expect("at_s");
        assert!(
            (6.5..7.5).contains(&at),
            "dropped 5 s into the outage: {at}"
        );
        assert_eq!(cut[0]["why"], "nothing heard for 5 s");
        let again = cut[0]["rejoined_at_s"].as_f64().expect("came back");
        assert!((9.0..10.5).contains(&again), "{again}");
    }
    let gone = with_outage(100);
    for live in [false, true] {
        let mut args = vec![
            "run",
            "--preset",
            gone.to_str().unwrap(),
            "--seconds",
            "9",
            "--summary-json",
            "-",
        ];
        if live {
            args.push("--live");
        }
        let (out, s) = summary(&args);
        assert!(
            !out.status.success(),
            "live {live}: a run whose clients are gone passed"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("3 client(s) stopped playing before the end of the run: client 0 at"),
            "{err}"
        );
        for c in s["clients"].as_array().expect("clients") {
            let cut = c["cut_off"].as_array().expect("cut_off");
            assert_eq!(cut.len(), 1, "live {live}: {c}");
            assert!(cut[0]["rejoined_at_s"].is_null(), "live {live}: {c}");
        }
        let warnings = s["warnings"].to_string();
        assert!(
            warnings.contains("client 1 was cut off at")
                && warnings.contains("had not joined again"),
            "{warnings}"
        );
    }
}

/// An output that is one of the command's inputs — a preset, a trace a `--set` names, a
/// recording — is refused before anything is written, under every spelling (the same path,
/// relative, through `..`, a symbolic link, a hard link), and so are two outputs on one file;
/// the input is left byte for byte (each of these exited 0 and destroyed it before).
#[test]
fn no_output_overwrites_an_input_or_another_output() {
    let dir = common::TempDir::new("cli-outputs");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let preset = dir.join("p.ron");
    std::fs::copy(root.join("presets/default.ron"), &preset).unwrap();
    let trace = dir.join("t.txt");
    std::fs::write(
        &trace,
        "PING x\n64 bytes from x: icmp_seq=1 ttl=57 time=20.5 ms\n64 bytes from x: icmp_seq=2 ttl=57 time=21.0 ms\n",
    )
    .unwrap();
    let rec = dir.join("r.msrec");
    std::fs::copy(root.join("recordings/default.msrec"), &rec).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&preset, dir.join("link.ron")).unwrap();
    std::fs::hard_link(&preset, dir.join("hard.ron")).unwrap();
    let before: Vec<Vec<u8>> = [&preset, &trace, &rec]
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let run_in = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_movescope"))
            .args(args)
            .current_dir(dir.join("sub"))
            // No display: the app must refuse before it opens a window.
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .expect("runs")
    };
    let p = "../p.ron";
    let t = "../t.txt";
    let r = "../r.msrec";
    for (args, says) in [
        (
            vec!["host", "--headless", "--preset", p, "--summary-json", p],
            "--summary-json",
        ),
        (
            vec!["host", "--preset", p, "--record", p, "--force"],
            "--record",
        ),
        (
            vec![
                "host",
                "--preset",
                p,
                "--record",
                "../sub/../p.ron",
                "--force",
            ],
            "--record",
        ),
        (vec!["--preset", p, "--screenshot", p], "--screenshot"),
        (
            vec!["--preset", p, "--screenshot", "../link.ron"],
            "--screenshot",
        ),
        (
            vec!["--preset", p, "--record", "../hard.ron", "--force"],
            "--record",
        ),
        (
            vec!["--preset", "../link.ron", "--record", p, "--force"],
            "--record",
        ),
        (
            vec!["run", "--set", "link.trace=../t.txt", "--summary-json", t],
            "--summary-json",
        ),
        (
            vec![
                "run",
                "--set",
                "link.trace=../t.txt",
                "--record",
                t,
                "--force",
            ],
            "--record",
        ),
        (
            vec![
                "run",
                "--set",
                "link_overrides.0.link.trace=../t.txt",
                "--record",
                "../t.txt",
                "--force",
            ],
            "--record",
        ),
    ] {
        let out = run_in(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(
            err.contains(says) && err.contains("input"),
            "{args:?}: {err}"
        );
    }
    // Two outputs on one file (whatif printed "recorded" while the file held the JSON).
    for args in [
        vec![
            "whatif",
            r,
            "--set",
            "clients=2",
            "--summary-json",
            "../x",
            "--record",
            "../x",
        ],
        vec!["run", "--summary-json", "../y", "--record", "../sub/../y"],
        vec![
            "host",
            "--headless",
            "--record",
            "../z",
            "--summary-json",
            "../z",
        ],
    ] {
        let out = run_in(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains("both name"), "{args:?}: {err}");
    }
    for (p, b) in [&preset, &trace, &rec].iter().zip(&before) {
        assert_eq!(&std::fs::read(p).unwrap(), b, "{} was changed", p.display());
    }
    assert!(!dir.join("x").exists() && !dir.join("y").exists() && !dir.join("z").exists());
}

/// `--walk` is refused, with what was expected, before any window opens: too short an
/// interval, or a preset that is no lesson.
#[test]
fn walk_is_refused_for_a_short_interval_or_a_preset_without_a_lesson() {
    for (args, expected) in [
        (
            vec!["--preset", "basics-03-correction-and-replay", "--walk", "0"],
            "--walk: expected seconds ≥ 1, got 0",
        ),
        (
            vec!["--preset", "default", "--walk", "5"],
            "is not a lesson",
        ),
    ] {
        let out = movescope(&args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{args:?}: {err}");
    }
}
