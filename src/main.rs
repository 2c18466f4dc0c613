//! The `movescope` command line.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use movescope::model::telemetry::{Machine, Record};
use movescope::session::preset::{DEFAULT_PRESET_NAME, Preset};
use movescope::session::recording::{Footer, Header, Recorder, Recording};
use movescope::session::summary::Summary;
use movescope::sim::run_deterministic;

#[derive(Parser)]
#[command(
    name = "movescope",
    version,
    about = "See GMC's client-side prediction at work: a server and clients running GMC's move cycle."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    app: AppArgs,
}

/// Without a command: open the app with the preset running live.
#[derive(clap::Args)]
struct AppArgs {
    /// Preset for the app: a RON file, or a shipped preset by name (`pitfall-01-unbound-member`).
    /// Default: the shipped default preset.
    #[arg(long)]
    preset: Option<PathBuf>,
    /// Change a preset value by dotted path (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Save a PNG of the window to FILE after --screenshot-after seconds, then exit.
    #[arg(long, value_name = "FILE")]
    screenshot: Option<PathBuf>,
    /// Seconds before the --screenshot is taken.
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
    screenshot_after: f64,
    /// Record the live session to FILE (`.msrec`) from the start.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Replace an existing --record file.
    #[arg(long)]
    force: bool,
    /// Open these windows at start (repeatable): bindings, doctor, gmc, help, journey, lessons,
    /// whatif, buffer (the interpolation buffer view), track (track one value); `vs-server`
    /// shows the world view side by side with the server's, `presenter` the lessons panel in
    /// presenter mode.
    #[arg(long = "window", value_name = "NAME")]
    windows: Vec<String>,
    /// Seconds of history the app keeps for plots and scrubbing (0: everything).
    #[arg(long, default_value_t = movescope::app::RETENTION, value_name = "SECONDS")]
    retention: f64,
    /// With `--window lessons` on a lesson's preset: answer its first question with choice K
    /// (1 for the first) and run, as if the learner had (for slides and scripted screenshots).
    #[arg(long, value_name = "K")]
    answer: Option<usize>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a preset headless in virtual time and print what happened.
    Run(RunArgs),
    /// Host a session for participants on other machines (a workshop): the server with its AI
    /// pawns and the preset's local clients, and the app for the trainer. Prints the address
    /// and the join code; listens on loopback unless --listen says otherwise.
    Host(HostArgs),
    /// A network trace (ping output from Linux, macOS or Windows, or a CSV of time_s,
    /// rtt_ms or one_way_ms, lost): its statistics, and a link profile fitted to it. Replay it
    /// in a session with `--set link.trace=FILE`.
    Trace {
        file: PathBuf,
        /// Write the preset (default, or --preset) with its link set to the fitted profile.
        #[arg(long, value_name = "FILE")]
        fit: Option<PathBuf>,
        /// The preset --fit starts from.
        #[arg(long)]
        preset: Option<PathBuf>,
        /// Print the statistics and the fitted profile as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Join a hosted session as one participant: your own client and pawn (driven from the
    /// keyboard in the app, by its input script with --headless), with the app.
    Join(JoinArgs),
    /// Measure simulation speed on the standard scenario (8 clients at 120 fps, 8 AI pawns,
    /// 50 ms one-way latency, 1 % loss, full telemetry).
    Bench {
        /// Simulated seconds.
        #[arg(long, default_value_t = 600.0)]
        seconds: f64,
        /// Measure the live transport instead: round-trip overhead at zero configured latency,
        /// bytes per move against the bit-packed minimum, and frame pacing with 16 clients at
        /// 120 fps (about 15 wall seconds).
        #[arg(long)]
        live: bool,
        /// Measure recordings instead: bytes per client-minute, recording overhead on the
        /// standard scenario, opening and seeking a recording of `--hour-seconds` (default one
        /// hour) of the standard scenario.
        #[arg(long)]
        recording: bool,
        /// Measure the plots panel instead: CPU time per frame (UI pass + tessellation) with
        /// 8 clients × `--seconds` of history, movescope's decimated plots against handing
        /// egui_plot every point.
        #[arg(long)]
        plots: bool,
        /// Soak test instead: a live session for MINUTES under a mixed flood of hostile
        /// datagrams (junk, laminar-framed garbage from ever new source ports, forged copies
        /// of a client's messages, one fast sender); prints RSS at start, every minute and at
        /// the end, and the drops by kind.
        #[arg(long, value_name = "MINUTES")]
        soak: Option<f64>,
        /// Measure hosting instead: a host on loopback with N participants (each its own client
        /// at 60 fps, joined over the control channel, in this process) for each N in the
        /// comma-separated list; prints the participants' frame pacing, the server's, and the
        /// bytes per participant per second (game and control channel).
        #[arg(long, value_name = "N,N,…")]
        participants: Option<String>,
        /// Length of the long recording `--recording` opens and seeks in.
        #[arg(long, default_value_t = 3600.0)]
        hour_seconds: f64,
    },
    /// Open a recording (`.msrec`) in the app.
    Open {
        file: PathBuf,
        /// Open at this session time (default: the recording's own cursor, or its start).
        #[arg(long, value_name = "SECONDS")]
        at: Option<f64>,
        /// Save a PNG of the window to FILE after --screenshot-after seconds, then exit.
        #[arg(long, value_name = "FILE")]
        screenshot: Option<PathBuf>,
        /// Seconds before the --screenshot is taken.
        #[arg(long, default_value_t = 3.0, value_name = "SECONDS")]
        screenshot_after: f64,
        /// Run a what-if with this change once loaded, drawn over the recording (repeatable).
        #[arg(long = "whatif", value_name = "KEY=VALUE")]
        whatif: Vec<String>,
    },
    /// Write a bug report for a recording: the view at SECONDS as a PNG (opens a window for a
    /// moment), the recording trimmed around it (it reopens at SECONDS), the preset and
    /// summary.md, into DIR.
    Report {
        file: PathBuf,
        /// The session time the report is about.
        #[arg(long, value_name = "SECONDS")]
        at: f64,
        /// Folder to write (created).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Skip the picture (no window is opened).
        #[arg(long)]
        no_picture: bool,
        /// Replace the files of an earlier report in DIR.
        #[arg(long)]
        force: bool,
    },
    /// Export series of a recording to CSV (one row per point: series, machine, t_s, value, unit).
    Export {
        file: PathBuf,
        /// Start of the range (session seconds; default: the start).
        #[arg(long, value_name = "SECONDS")]
        from: Option<f64>,
        /// End of the range (default: the end).
        #[arg(long, value_name = "SECONDS")]
        to: Option<f64>,
        /// Series to export (repeatable; default: all). Names: move_delta, frames_per_move,
        /// substeps, replay_depth, correction_error, interp_delay, move_age,
        /// move_timestamp_offset, rtt, clock_offset, bytes_sent, remote_moves_per_frame.
        #[arg(long = "series", value_name = "NAME")]
        series: Vec<String>,
        /// CSV file to write (`-` for standard output).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// The desync doctor: explain every correction in a recording (deviating values against
    /// their tolerance, the move, the most likely cause with its evidence) and rank the causes.
    Doctor {
        file: PathBuf,
        /// Print the report as JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Corrections listed in the text report.
        #[arg(long, default_value_t = 20)]
        list: usize,
    },
    /// What if: re-simulate a recorded session in virtual time with changes and compare it
    /// with the original (corrections, replay depth, the first record that differs).
    Whatif {
        file: PathBuf,
        /// A change, as for `run --set` (repeatable; none: check the recording reproduces).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Write the changed run's summary as JSON to this file (`-` for standard output).
        #[arg(long, value_name = "FILE")]
        summary_json: Option<PathBuf>,
        /// Print the comparison as JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Record the changed run (open it next to the original).
        #[arg(long, value_name = "FILE")]
        record: Option<PathBuf>,
        /// Replace an existing --record file.
        #[arg(long)]
        force: bool,
    },
    /// Move lineage: the journey of one move in a recording (closing, sending, the link,
    /// execution on the server, the reply, correction and replays).
    Lineage {
        file: PathBuf,
        /// The owning client.
        #[arg(long)]
        client: u16,
        /// The move id (default: the move the client closed nearest to --at).
        #[arg(long = "move", value_name = "ID")]
        move_id: Option<u32>,
        /// A session time to pick the nearest move by.
        #[arg(long, value_name = "SECONDS")]
        at: Option<f64>,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Describe a recording and print its run summary (the same summary `run` printed).
    Inspect {
        file: PathBuf,
        /// Write the summary as JSON to this file (`-` for standard output).
        #[arg(long, value_name = "FILE")]
        summary_json: Option<PathBuf>,
        /// Print the records themselves, one JSON object per line (time, machine, event).
        #[arg(long)]
        events: bool,
        /// With --events: only records from this session time on (s).
        #[arg(long, value_name = "SECONDS", requires = "events")]
        from: Option<f64>,
        /// With --events: only records up to this session time (s).
        #[arg(long, value_name = "SECONDS", requires = "events")]
        to: Option<f64>,
        /// With --events: only this machine (`server` or a client number).
        #[arg(long, value_name = "MACHINE", requires = "events")]
        machine: Option<String>,
        /// With --events: only events of these kinds (repeatable), e.g. Hook, MoveValues,
        /// Correction, SessionChanged, Packet.
        #[arg(long = "kind", value_name = "KIND", requires = "events")]
        kinds: Vec<String>,
    },
}

#[derive(clap::Args)]
struct HostArgs {
    /// Where participants connect (control on TCP, game datagrams on UDP, same port when
    /// free). Give a LAN address (or 0.0.0.0) to be reachable from other machines.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:7777")]
    listen: std::net::SocketAddr,
    /// The join code participants must give (default: a new random one, printed).
    #[arg(long, value_name = "CODE")]
    code: Option<String>,
    /// Participants the session holds at once.
    #[arg(long, default_value_t = movescope::net::remote::DEFAULT_MAX_PARTICIPANTS, value_name = "N")]
    max_participants: usize,
    #[command(flatten)]
    headless: HeadlessArgs,
    #[command(flatten)]
    app: AppArgs,
}

#[derive(clap::Args)]
struct JoinArgs {
    /// The host's address, as the host printed it (ADDR:PORT).
    addr: String,
    /// The join code the host printed.
    #[arg(long)]
    code: String,
    /// Your name in the trainer's app (join again with the same name to get your pawn back).
    #[arg(long)]
    name: Option<String>,
    #[command(flatten)]
    headless: HeadlessArgs,
    #[command(flatten)]
    app: AppArgs,
}

/// Hosting or joining without a window (scripts, CI).
#[derive(clap::Args)]
struct HeadlessArgs {
    /// Run without a window for --seconds, then print the summary.
    #[arg(long)]
    headless: bool,
    /// With --headless: wall seconds to run.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    seconds: f64,
    /// With --headless: write the summary as JSON to this file (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    summary_json: Option<PathBuf>,
}

#[derive(clap::Args, Default)]
struct RunArgs {
    /// Preset: a RON file, or a shipped preset by name (`pitfall-01-unbound-member`). Default:
    /// the shipped default preset.
    #[arg(long)]
    preset: Option<PathBuf>,
    /// Change a preset value by dotted path, e.g. `link.latency_ms=100` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Simulated seconds (default: the preset's `seconds`).
    #[arg(long)]
    seconds: Option<f64>,
    /// Session seed (default: the preset's `seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// Write the summary as JSON to this file (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    summary_json: Option<PathBuf>,
    /// Run for real: a server and client threads over laminar UDP on 127.0.0.1, for
    /// `--seconds` wall seconds (default 10).
    #[arg(long)]
    live: bool,
    /// Record the session to this file (`.msrec`; open it with `movescope open`).
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Replace an existing --record file (by a rename of the complete new recording).
    #[arg(long)]
    force: bool,
}

/// `--seconds` of a bench (and `--hour-seconds`): the range of a run's length.
fn bench_seconds(flag: &str, s: f64) -> Result<f64, String> {
    movescope::support::ranges::check_as("seconds", flag, s)
        .map_err(|(k, e)| format!("{k}: expected {e}"))?;
    Ok(s)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Run(args)) => run(args),
        Some(Command::Host(args)) => host(args),
        Some(Command::Trace {
            file,
            fit,
            preset,
            json,
        }) => trace(&file, fit.as_deref(), preset, json),
        Some(Command::Join(args)) => join(args),
        Some(Command::Bench {
            soak: Some(minutes),
            ..
        }) => bench_seconds("--soak", minutes).and_then(bench_soak),
        Some(Command::Bench { live: true, .. }) => bench_live(),
        Some(Command::Bench {
            participants: Some(list),
            ..
        }) => bench_participants(&list),
        Some(Command::Bench {
            plots: true,
            seconds,
            ..
        }) => bench_seconds("--seconds", seconds).and_then(bench_plots),
        Some(Command::Bench {
            recording: true,
            seconds,
            hour_seconds,
            ..
        }) => bench_seconds("--seconds", seconds).and_then(|s| {
            bench_seconds("--hour-seconds", hour_seconds).and_then(|h| bench_recording(s, h))
        }),
        Some(Command::Bench { seconds, .. }) => bench_seconds("--seconds", seconds).and_then(bench),
        Some(Command::Open {
            file,
            at,
            screenshot,
            screenshot_after,
            whatif,
        }) => open_recording(
            file,
            at,
            screenshot,
            screenshot_after,
            whatif,
            cli.app.windows.clone(),
        ),
        Some(Command::Inspect {
            file,
            events: true,
            from,
            to,
            machine,
            kinds,
            ..
        }) => inspect_events(&file, from, to, machine.as_deref(), &kinds),
        Some(Command::Inspect {
            file, summary_json, ..
        }) => inspect(&file, summary_json.as_deref()),
        Some(Command::Doctor { file, json, list }) => doctor(&file, json, list),
        Some(Command::Lineage {
            file,
            client,
            move_id,
            at,
            json,
        }) => lineage(&file, client, move_id, at, json),
        Some(Command::Whatif {
            file,
            set,
            summary_json,
            json,
            record,
            force,
        }) => whatif(
            &file,
            &set,
            summary_json.as_deref(),
            json,
            record.as_deref(),
            force,
        ),
        Some(Command::Report {
            file,
            at,
            out,
            no_picture,
            force,
        }) => report(&file, at, &out, no_picture, force),
        Some(Command::Export {
            file,
            from,
            to,
            series,
            out,
        }) => export(&file, from, to, &series, &out),
        None => open_app(cli.app),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("movescope: {e}");
            ExitCode::FAILURE
        }
    }
}

fn trace(
    file: &std::path::Path,
    fit: Option<&std::path::Path>,
    preset: Option<PathBuf>,
    json: bool,
) -> Result<(), String> {
    if let Some(out) = fit {
        let inputs: Vec<&std::path::Path> = std::iter::once(file)
            .chain(preset.as_deref().filter(|p| p.is_file()))
            .collect();
        check_outputs(&[("--fit", Some(out))], &inputs)?;
    }
    let t = movescope::session::preset::load_trace(file)?;
    let s = t.stats();
    let fitted = t.fit();
    if json {
        let v = serde_json::json!({ "stats": s, "fitted_link": fitted });
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        );
    } else {
        println!(
            "{}: {} samples over {:.0} s (one every {:.3} s)",
            t.source, s.samples, s.seconds, s.interval_s
        );
        println!(
            "round trip: mean {:.1} ms, p50 {:.1} ms, p99 {:.1} ms, min {:.1} ms, max {:.1} ms",
            s.rtt_mean_ms, s.rtt_p50_ms, s.rtt_p99_ms, s.rtt_min_ms, s.rtt_max_ms
        );
        println!(
            "loss {:.1} %: {} runs of losses, mean {:.1}, longest {}",
            s.loss * 100.0,
            s.bursts,
            s.burst_mean,
            s.burst_max
        );
        println!(
            "fitted profile (each direction): latency {:.1} ms, jitter {:.1} ms {:?}, burst loss enter {:.4} exit {:.3}",
            fitted.latency_ms,
            fitted.jitter_ms,
            fitted.jitter_distribution,
            fitted.burst_enter,
            fitted.burst_exit
        );
        println!(
            "replay it: --set link.trace={}   (or save the fitted profile with --fit FILE)",
            file.display()
        );
    }
    if let Some(out) = fit {
        let (mut p, _) = load_preset(&RunArgs {
            preset,
            ..RunArgs::default()
        })?;
        p.link = fitted;
        let text = format!(
            "// A link profile fitted by movescope to the trace {}.\n// Schema: docs/presets.md.\n{}\n",
            t.source,
            p.to_ron()
        );
        movescope::support::output::write_file(out, text.as_bytes())
            .map_err(|e| format!("--fit {e}"))?;
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}

/// Resolves `host ADDR` / `join ADDR` (a name or an address with its port).
fn resolve(addr: &str) -> Result<std::net::SocketAddr, String> {
    use std::net::ToSocketAddrs;
    addr.to_socket_addrs()
        .map_err(|e| format!("{addr}: expected ADDR:PORT as the host printed it ({e})"))?
        .next()
        .ok_or_else(|| format!("{addr}: no address found"))
}

/// A headless host or participant: runs the session, writes the recording and the summary.
fn run_headless(
    session: movescope::net::live::LiveSession,
    started: std::time::Instant,
    name: &str,
    mode: &str,
    h: &HeadlessArgs,
    record: Option<&std::path::Path>,
) -> Result<(), String> {
    movescope::support::ranges::check_as("seconds", "--seconds", h.seconds)
        .map_err(|(k, e)| format!("{k}: expected {e}"))?;
    let recorder = match record {
        Some(path) => Some(Recorder::create_replacing(
            path,
            &Header::new(session.preset(), name, mode)?,
        )?),
        None => None,
    };
    let summary = recorded(recorder, |on_record| {
        movescope::net::live::run_session(session, started, name, h.seconds, on_record)
    })?;
    write_summary(&summary, h.summary_json.as_deref())
}

/// Runs `run` with every record pushed to `recorder` (if any), then finishes the recording
/// (its footer from the summary) and says what was written.
fn recorded(
    mut recorder: Option<Recorder>,
    run: impl FnOnce(&mut dyn FnMut(&Record)) -> Result<Summary, String>,
) -> Result<Summary, String> {
    let mut record_error: Option<String> = None;
    let mut on_record = |r: &Record| {
        if let Some(rec) = recorder.as_mut()
            && let Err(e) = rec.push(r)
        {
            record_error.get_or_insert(e);
        }
    };
    let summary = run(&mut on_record)?;
    if let Some(e) = record_error {
        return Err(format!("recording failed: {e}"));
    }
    if let Some(rec) = recorder {
        let stats = rec.finish(Footer {
            simulated_seconds: summary.simulated_seconds,
            wall_seconds: summary.wall_seconds,
            dropped_records: summary.telemetry_dropped,
        })?;
        eprintln!(
            "recorded {} records in {} chunks to {} ({} bytes)",
            stats.records,
            stats.chunks,
            stats.path.display(),
            stats.bytes
        );
    }
    Ok(summary)
}

fn check_headless(h: &HeadlessArgs, app: &AppArgs) -> Result<(), String> {
    if !h.headless && h.summary_json.is_some() {
        return Err("--summary-json: needs --headless (the app shows the summary itself)".into());
    }
    if h.headless && (app.screenshot.is_some() || !app.windows.is_empty()) {
        return Err("--headless: no window, so no --screenshot or --window".into());
    }
    let record = app.record.as_deref();
    check_outputs(
        &[
            ("--record", record),
            ("--summary-json", h.summary_json.as_deref()),
            ("--screenshot", app.screenshot.as_deref()),
        ],
        &[],
    )?;
    if let Some(r) = record {
        movescope::support::output::new_recording(r, app.force)?;
    }
    Ok(())
}

fn host(args: HostArgs) -> Result<(), String> {
    check_headless(&args.headless, &args.app)?;
    if args.max_participants == 0 || args.max_participants > 63 {
        return Err(format!(
            "--max-participants: expected 1 to 63, got {}",
            args.max_participants
        ));
    }
    if let Some(c) = &args.code
        && (c.trim().is_empty() || c.len() > 64)
    {
        return Err("--code: expected 1 to 64 characters".into());
    }
    let opts = movescope::net::remote::HostOptions {
        listen: args.listen,
        code: args.code.clone(),
        max_participants: args.max_participants,
    };
    let (preset, name) = load_preset(&RunArgs {
        preset: args.app.preset.clone(),
        set: args.app.set.clone(),
        ..RunArgs::default()
    })?;
    if !args.headless.headless {
        return app_for(args.app, preset, name, movescope::app::Source::Host(opts));
    }
    let started = std::time::Instant::now();
    let session = movescope::net::live::LiveSession::host(&preset, &opts)?;
    if let Some((addr, code)) = session.hosting() {
        println!("movescope host: listening on {addr} code: {code}");
        let _ = std::io::stdout().flush();
    }
    run_headless(
        session,
        started,
        &name,
        "live",
        &args.headless,
        args.app.record.as_deref(),
    )
}

fn join(args: JoinArgs) -> Result<(), String> {
    check_headless(&args.headless, &args.app)?;
    if args.app.preset.is_some() || !args.app.set.is_empty() {
        return Err(
            "--preset and --set: a participant runs the host's preset (the trainer sets it)".into(),
        );
    }
    let opts = movescope::net::remote::JoinOptions {
        host: resolve(&args.addr)?,
        code: args.code.clone(),
        name: args.name.clone(),
    };
    if !args.headless.headless {
        let preset = Preset::builtin_default();
        return app_for(
            args.app,
            preset,
            format!("joined {}", args.addr),
            movescope::app::Source::Join(opts),
        );
    }
    let started = std::time::Instant::now();
    let session = movescope::net::live::LiveSession::join(opts)?;
    if let Some((id, server)) = session.joined() {
        println!("movescope join: client {id} of the host at {server}");
        let _ = std::io::stdout().flush();
    }
    let name = format!("joined {}", args.addr);
    run_headless(
        session,
        started,
        &name,
        "live",
        &args.headless,
        args.app.record.as_deref(),
    )
}

/// The app on a hosted or joined session.
fn app_for(
    args: AppArgs,
    preset: Preset,
    name: String,
    source: movescope::app::Source,
) -> Result<(), String> {
    check_windows(&args.windows)?;
    movescope::app::run(movescope::app::AppOptions {
        preset,
        preset_name: name,
        screenshot: args.screenshot.map(|path| movescope::app::ScreenshotPlan {
            path,
            after: args.screenshot_after,
        }),
        source,
        record: args.record,
        record_force: args.force,
        retention: (args.retention > 0.0).then_some(args.retention),
        windows: args.windows,
        persist: true,
        whatif: Vec::new(),
        reopened: false,
        answer: None,
    })
}

fn open_app(args: AppArgs) -> Result<(), String> {
    // Without --preset the app opens the preset used last, if it still loads (never a
    // lesson's scenario: those are not remembered); the top bar says so.
    let last = if args.preset.is_none() {
        movescope::app::layout::UiState::load()
            .and_then(|s| s.last_preset)
            .filter(|p| Preset::find(p).is_ok_and(|(p, _)| p.lesson.is_none()))
            .map(PathBuf::from)
    } else {
        None
    };
    if let Some(p) = &last {
        eprintln!(
            "movescope: opening {}, the preset used last (--preset default for the default)",
            p.display()
        );
    }
    let reopened = last.is_some();
    let (preset, name) = load_preset(&RunArgs {
        preset: args.preset.or(last),
        set: args.set,
        ..RunArgs::default()
    })?;
    if !(args.retention >= 0.0 && args.retention.is_finite()) {
        return Err(format!(
            "--retention: expected seconds ≥ 0, got {}",
            args.retention
        ));
    }
    if !(args.screenshot_after >= 0.0 && args.screenshot_after.is_finite()) {
        return Err(format!(
            "--screenshot-after: expected seconds ≥ 0, got {}",
            args.screenshot_after
        ));
    }
    check_windows(&args.windows)?;
    if let Some(k) = args.answer {
        let choices = preset
            .lesson
            .as_ref()
            .and_then(|l| l.steps.first())
            .filter(|st| st.question.is_some())
            .map(|st| st.choices.len());
        match choices {
            _ if !args.windows.iter().any(|w| w == "lessons") => {
                return Err("--answer: needs --window lessons".into());
            }
            None => {
                return Err(format!(
                    "--answer: the preset {name} is not a lesson whose first step asks a question"
                ));
            }
            Some(n) if k == 0 || k > n => {
                return Err(format!(
                    "--answer: expected a choice from 1 to {n}, got {k}"
                ));
            }
            Some(_) => {}
        }
    }
    check_outputs(
        &[
            ("--screenshot", args.screenshot.as_deref()),
            ("--record", args.record.as_deref()),
        ],
        &[],
    )?;
    if let Some(r) = &args.record {
        movescope::support::output::new_recording(r, args.force)?;
    }
    movescope::app::run(movescope::app::AppOptions {
        preset,
        preset_name: name,
        screenshot: args.screenshot.map(|path| movescope::app::ScreenshotPlan {
            path,
            after: args.screenshot_after,
        }),
        source: movescope::app::Source::Live,
        record: args.record,
        record_force: args.force,
        retention: (args.retention > 0.0).then_some(args.retention),
        windows: args.windows,
        persist: true,
        whatif: Vec::new(),
        reopened,
        answer: args.answer,
    })
}

fn load_preset(args: &RunArgs) -> Result<(Preset, String), String> {
    let (mut preset, name) = match &args.preset {
        Some(path) => Preset::find(&path.display().to_string()).map_err(|e| e.to_string())?,
        None => (Preset::builtin_default(), DEFAULT_PRESET_NAME.to_string()),
    };
    for kv in &args.set {
        preset.set(kv).map_err(|e| e.to_string())?;
    }
    if let Some(seed) = args.seed {
        preset.seed = seed;
    }
    if let Some(s) = args.seconds {
        movescope::support::ranges::check_as("seconds", "--seconds", s)
            .map_err(|(k, e)| format!("{k}: expected {e}"))?;
        preset.seconds = s;
    }
    Ok((preset, name))
}

/// Opens a recording for a command and says on standard error what the user must know
/// about it (not finished, damaged, header from its backup copy).
fn open_recording_file(file: &std::path::Path) -> Result<Recording, String> {
    let rec = Recording::open(file).map_err(|e| e.to_string())?;
    for n in rec.notes() {
        eprintln!("warning: {}: {n}", file.display());
    }
    Ok(rec)
}

/// `--window` names: each one the app knows.
fn check_windows(windows: &[String]) -> Result<(), String> {
    match windows
        .iter()
        .find(|w| !movescope::app::WINDOWS.contains(&w.as_str()))
    {
        Some(w) => Err(format!(
            "--window {w}: expected one of {}",
            movescope::app::WINDOWS.join(", ")
        )),
        None => Ok(()),
    }
}

/// Checks a command's outputs before it runs: none is one of its inputs, and each can be
/// written as a file (`-`, standard output, passes).
fn check_outputs(
    outputs: &[(&str, Option<&std::path::Path>)],
    inputs: &[&std::path::Path],
) -> Result<(), String> {
    for (what, out) in outputs {
        let Some(out) = out.filter(|o| o.as_os_str() != "-") else {
            continue;
        };
        movescope::support::output::not_an_input(out, inputs).map_err(|e| format!("{what} {e}"))?;
        movescope::support::output::writable_file(out, what)?;
    }
    Ok(())
}

fn run(args: RunArgs) -> Result<(), String> {
    let preset_file = args.preset.as_deref().filter(|p| p.is_file());
    let inputs: Vec<&std::path::Path> = preset_file.into_iter().collect();
    check_outputs(
        &[
            ("--record", args.record.as_deref()),
            ("--summary-json", args.summary_json.as_deref()),
        ],
        &inputs,
    )?;
    if let (Some(r), Some(j)) = (&args.record, &args.summary_json)
        && movescope::support::output::same_file(r, j)
    {
        return Err(format!(
            "--record and --summary-json both name {}",
            r.display()
        ));
    }
    if let Some(r) = &args.record {
        movescope::support::output::new_recording(r, args.force)?;
    }
    let (preset, name) = load_preset(&args)?;
    let mode = if args.live { "live" } else { "deterministic" };
    let recorder = match &args.record {
        Some(path) => Some(Recorder::create_replacing(
            path,
            &Header::new(&preset, &name, mode)?,
        )?),
        None => None,
    };
    let summary = recorded(recorder, |on_record| {
        if args.live {
            let seconds = args.seconds.unwrap_or(10.0);
            movescope::net::live::run_live(&preset, &name, seconds, on_record)
        } else {
            run_deterministic(&preset, &name, preset.seconds, on_record)
        }
    })?;
    write_summary(&summary, args.summary_json.as_deref())?;
    // A machine whose thread panicked is an error of the run, after the summary is written.
    let stopped: Vec<&String> = summary
        .errors
        .iter()
        .filter(|e| e.contains(movescope::net::live::STOPPED))
        .collect();
    if !stopped.is_empty() {
        return Err(format!(
            "{} machine(s) stopped during the run: {}",
            stopped.len(),
            stopped
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    Ok(())
}

/// `inspect --events`: the records as JSON lines, filtered.
fn inspect_events(
    file: &std::path::Path,
    from: Option<f64>,
    to: Option<f64>,
    machine: Option<&str>,
    kinds: &[String],
) -> Result<(), String> {
    use std::io::Write;
    let machine = match machine {
        None => None,
        Some("server") => Some(Machine::Server),
        Some(c) => Some(Machine::Client(c.parse().map_err(|_| {
            format!("--machine: expected `server` or a client number, got `{c}`")
        })?)),
    };
    let rec = open_recording_file(file)?;
    let (lo, hi) = (
        from.unwrap_or(f64::NEG_INFINITY),
        to.unwrap_or(f64::INFINITY),
    );
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let mut printed = 0usize;
    let mut failed: Option<String> = None;
    let mut closed = false;
    let damage = rec.for_each(&mut |r: Record| {
        if closed || failed.is_some() || r.t < lo || r.t > hi {
            return;
        }
        if machine.is_some_and(|m| m != r.machine) {
            return;
        }
        let v = match serde_json::to_value(&r) {
            Ok(v) => v,
            Err(e) => {
                failed = Some(e.to_string());
                return;
            }
        };
        // The event's kind is its variant name: the single key of the externally tagged enum
        // (or the string of a unit variant).
        let kind = match &v["event"] {
            serde_json::Value::Object(o) => o.keys().next().cloned().unwrap_or_default(),
            serde_json::Value::String(s) => s.clone(),
            _ => String::new(),
        };
        if !kinds.is_empty() && !kinds.iter().any(|k| k.eq_ignore_ascii_case(&kind)) {
            return;
        }
        printed += 1;
        // The reader may go away (e.g. `| head`): stop quietly.
        closed = writeln!(out, "{v}").is_err();
    });
    drop(out);
    if let Some(e) = failed {
        return Err(e);
    }
    if let Err(d) = damage {
        eprintln!("warning: {}: {d}", file.display());
    }
    if printed == 0 {
        eprintln!("no records match");
    }
    Ok(())
}

fn doctor(file: &std::path::Path, json: bool, list: usize) -> Result<(), String> {
    let rec = open_recording_file(file)?;
    let (records, damage) = rec.load_all();
    if let Some(d) = &damage {
        eprintln!("warning: {}: {d}", file.display());
    }
    let report = movescope::analysis::doctor::examine_recording(&rec, &records);
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        );
    } else {
        println!("{}", rec.describe());
        print!("{}", report.to_text(list));
    }
    Ok(())
}

fn lineage(
    file: &std::path::Path,
    client: u16,
    move_id: Option<u32>,
    at: Option<f64>,
    json: bool,
) -> Result<(), String> {
    let rec = open_recording_file(file)?;
    if let Some(t) = at {
        let (t0, t1) = rec.span();
        if !(t.is_finite() && t >= t0.min(t1) - 1.0 && t <= t1 + 1.0) {
            return Err(format!(
                "--at {t}: expected a time the recording holds ({:.2}–{t1:.2} s)",
                t0.min(t1)
            ));
        }
    }
    let (records, damage) = rec.load_all();
    if let Some(d) = &damage {
        eprintln!("warning: {}: {d}", file.display());
    }
    let m = match (move_id, at) {
        (Some(m), _) => m,
        (None, Some(t)) => movescope::analysis::lineage::move_near(&records, client, t)
            .ok_or_else(|| format!("client {client} closed no move in this recording"))?,
        (None, None) => return Err("give --move ID or --at SECONDS".into()),
    };
    let (values, source) =
        movescope::analysis::valuetrace::of_recording(&rec, &records, None, &|c, mv| {
            c == client && mv == m
        });
    let l = movescope::analysis::lineage::trace(
        &rec.header.bindings,
        &records,
        &values,
        &source,
        client,
        m,
    )
    .ok_or_else(|| format!("the recording holds no move {m} of client {client}"))?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&l).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", l.to_text());
    }
    Ok(())
}

fn whatif(
    file: &std::path::Path,
    set: &[String],
    summary_json: Option<&std::path::Path>,
    json: bool,
    record: Option<&std::path::Path>,
    force: bool,
) -> Result<(), String> {
    check_outputs(
        &[("--summary-json", summary_json), ("--record", record)],
        &[file],
    )?;
    if let Some(r) = record {
        movescope::support::output::new_recording(r, force)?;
    }
    let rec = open_recording_file(file)?;
    let w = movescope::analysis::whatif::run(&rec, set)?;
    if let Some(path) = record {
        let mut header = Header::new(&w.preset_b, &rec.header.preset_name, "deterministic")?;
        header.seed = w.preset_b.seed;
        let stats = movescope::session::recording::write_all(
            path,
            &header,
            w.records_b.iter().cloned(),
            Footer {
                simulated_seconds: w.summary_b.simulated_seconds,
                wall_seconds: w.summary_b.wall_seconds,
                dropped_records: 0,
            },
        )?;
        eprintln!(
            "recorded B to {} ({} bytes)",
            stats.path.display(),
            stats.bytes
        );
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&w.comparison).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", w.comparison.to_text());
    }
    match summary_json {
        Some(p) if p.as_os_str() == "-" && json => {
            return Err("--summary-json - and --json both want standard output".into());
        }
        Some(p) => {
            let text = serde_json::to_string_pretty(&w.summary_b).map_err(|e| e.to_string())?;
            if p.as_os_str() == "-" {
                println!("{text}");
            } else {
                movescope::support::output::write_file(p, (text + "\n").as_bytes())?;
            }
        }
        None => {}
    }
    Ok(())
}

fn inspect(file: &std::path::Path, summary_json: Option<&std::path::Path>) -> Result<(), String> {
    check_outputs(&[("--summary-json", summary_json)], &[file])?;
    let rec = open_recording_file(file)?;
    eprintln!("{}", rec.describe());
    let (summary, damage) = rec.summarize();
    if let Some(d) = &damage {
        eprintln!("warning: {}: {d}", file.display());
    }
    write_summary(&summary, summary_json)
}

fn report(
    file: &std::path::Path,
    at: f64,
    out: &std::path::Path,
    no_picture: bool,
    force: bool,
) -> Result<(), String> {
    use movescope::analysis::report::{REPORT_AFTER, REPORT_BEFORE, records_between, write_report};
    if out.exists() && !out.is_dir() {
        return Err(format!(
            "--out {}: is not a folder; expected a folder for the report's files",
            out.display()
        ));
    }
    for name in movescope::analysis::report::REPORT_FILES {
        let f = out.join(name);
        movescope::support::output::not_an_input(&f, &[file]).map_err(|e| format!("--out {e}"))?;
        if f.exists() && !force {
            return Err(format!(
                "--out {}: holds an earlier report ({name}); pass --force to replace it",
                out.display()
            ));
        }
    }
    let rec = open_recording_file(file)?;
    let (t0, t1) = rec.span();
    if !(at.is_finite() && at >= t0 && at <= t1) {
        return Err(format!(
            "--at {at}: expected a time the recording holds ({t0:.2}–{t1:.2} s)"
        ));
    }
    let window = records_between(&rec, at - REPORT_BEFORE, at + REPORT_AFTER)?;
    let files = write_report(out, &rec.header, &window, at)?;
    println!(
        "wrote {}, {}, {}",
        files.recording.display(),
        files.preset.display(),
        files.summary.display()
    );
    if no_picture {
        return Ok(());
    }
    // The picture: the trimmed recording opened as a user would, at its cursor.
    open_recording(
        files.recording.clone(),
        None,
        Some(files.picture.clone()),
        1.0,
        Vec::new(),
        Vec::new(),
    )
    .map_err(|e| format!("the picture needs a display ({e}); the other files are written"))?;
    println!("wrote {}", files.picture.display());
    Ok(())
}

fn export(
    file: &std::path::Path,
    from: Option<f64>,
    to: Option<f64>,
    series: &[String],
    out: &std::path::Path,
) -> Result<(), String> {
    use movescope::session::store::{Metric, Store};
    let metrics: Vec<Metric> = if series.is_empty() {
        Metric::ALL.to_vec()
    } else {
        series
            .iter()
            .map(|n| {
                Metric::from_name(n).ok_or_else(|| {
                    let names: Vec<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
                    format!("--series {n}: expected one of {}", names.join(", "))
                })
            })
            .collect::<Result<_, _>>()?
    };
    check_outputs(&[("--out", Some(out))], &[file])?;
    let rec = open_recording_file(file)?;
    let mut store = Store::new(None);
    if let Err(d) = rec.for_each(&mut |r| store.ingest(&r)) {
        eprintln!("warning: {}: {d}", file.display());
    }
    let (t0, t1) = (
        from.unwrap_or(f64::NEG_INFINITY),
        to.unwrap_or(f64::INFINITY),
    );
    let rows = if out.as_os_str() == "-" {
        let mut w = std::io::stdout().lock();
        movescope::analysis::report::export_csv(&store, &metrics, &[], t0, t1, &mut w)
    } else {
        return movescope::support::output::write_atomic(out, |w| {
            movescope::analysis::report::export_csv(&store, &metrics, &[], t0, t1, w)
        })
        .map(|rows| eprintln!("{rows} rows"));
    }
    .map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!("{rows} rows");
    Ok(())
}

fn open_recording(
    file: PathBuf,
    at: Option<f64>,
    screenshot: Option<PathBuf>,
    screenshot_after: f64,
    whatif: Vec<String>,
    windows: Vec<String>,
) -> Result<(), String> {
    check_windows(&windows)?;
    check_outputs(&[("--screenshot", screenshot.as_deref())], &[&file])?;
    let rec = open_recording_file(&file)?;
    let preset = rec.header.preset.clone();
    movescope::app::run(movescope::app::AppOptions {
        preset,
        preset_name: rec.header.preset_name.clone(),
        screenshot: screenshot.map(|path| movescope::app::ScreenshotPlan {
            path,
            after: screenshot_after,
        }),
        source: movescope::app::Source::Recording { path: file, at },
        record: None,
        record_force: false,
        retention: None,
        windows,
        persist: true,
        whatif,
        reopened: false,
        answer: None,
    })
}

fn write_summary(summary: &Summary, summary_json: Option<&std::path::Path>) -> Result<(), String> {
    match summary_json {
        Some(path) => {
            let json = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
            if path.as_os_str() == "-" {
                println!("{json}");
            } else {
                movescope::support::output::write_file(path, (json + "\n").as_bytes())
                    .map_err(|e| format!("--summary-json {e}"))?;
                print_summary(summary);
            }
        }
        None => print_summary(summary),
    }
    Ok(())
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".to_string(), |x| format!("{x:.digits$}"))
}

fn print_summary(s: &Summary) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{} — {:.1} simulated s in {:.2} wall s ({} mode, seed {})",
        s.preset, s.simulated_seconds, s.wall_seconds, s.mode, s.seed
    );
    for w in &s.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    for e in &s.errors {
        let _ = writeln!(out, "error: {e}");
    }
    let _ = writeln!(
        out,
        "{:>6} {:>7} {:>7} {:>11} {:>7} {:>11} {:>12} {:>8} {:>10} {:>9}",
        "client",
        "frames",
        "moves",
        "frames/move",
        "substep",
        "corrections",
        "replay(mean)",
        "rtt ms",
        "clock ms",
        "one-shots"
    );
    for c in &s.clients {
        let _ = writeln!(
            out,
            "{:>6} {:>7} {:>7} {:>11} {:>7} {:>11} {:>12} {:>8} {:>10} {:>9}",
            c.id,
            c.frames,
            c.moves_sent,
            opt(c.mean_frames_per_move, 2),
            c.max_substeps,
            c.corrections,
            opt(c.mean_replay_depth, 1),
            opt(c.rtt_ms_mean, 1),
            opt(c.clock_offset_ms_mean, 1),
            c.one_shot_events
        );
        if !c.deviations.is_empty() {
            let d: Vec<String> = c
                .deviations
                .iter()
                .map(|(k, v)| format!("{k} ×{v}"))
                .collect();
            let _ = writeln!(out, "       deviated: {}", d.join(", "));
        }
        if let Some(real) = c.real_rtt_ms_mean {
            let _ = writeln!(
                out,
                "       a participant: real round trip to the host {real:.1} ms (the rtt column adds the simulated link)"
            );
        }
    }
    let _ = writeln!(
        out,
        "server: {} remote moves, {} local moves, {} one-shots, {} corrections sent",
        s.server.remote_moves_executed,
        s.server.local_moves_executed,
        s.server.one_shot_events,
        s.server.corrections_sent
    );
    let _ = writeln!(
        out,
        "packets: {} sent, {} delivered, {} dropped, {} duplicated, {} bytes",
        s.packets.sent,
        s.packets.delivered,
        s.packets.dropped,
        s.packets.duplicated,
        s.packets.bytes
    );
}

/// The standard scenario of the speed goal.
pub fn standard_scenario() -> Preset {
    let mut p = Preset::builtin_default();
    p.title = "standard benchmark".into();
    p.clients = 8;
    p.ai_pawns = 8;
    p.client_fps = 120.0;
    p.link.latency_ms = 50.0;
    p.link.loss = 0.01;
    p
}

fn bench(seconds: f64) -> Result<(), String> {
    // The same scenario without world-view samples, for comparison (one run, both figures).
    // Its records are kept too, as the standard benchmark always did, so it compares like
    // with like against builds from before world-view samples.
    let mut quiet = standard_scenario();
    quiet.world_view_rate = 0.0;
    let started = std::time::Instant::now();
    let mut session = movescope::sim::harness::Session::new(&quiet)?;
    let mut quiet_records: Vec<Record> = Vec::new();
    session.run_until(seconds, &mut |r| quiet_records.push(r));
    let quiet_wall = started.elapsed().as_secs_f64();
    let kept = quiet_records.len();
    drop(quiet_records);

    let preset = standard_scenario();
    let mut records: Vec<Record> = Vec::new();
    let started = std::time::Instant::now();
    let mut session = movescope::sim::harness::Session::new(&preset)?;
    session.run_until(seconds, &mut |r| records.push(r));
    let wall = started.elapsed().as_secs_f64();
    println!(
        "standard scenario: 8 clients at 120 fps, 8 AI pawns, 50 ms one-way, 1 % loss, full telemetry"
    );
    println!(
        "simulated {seconds:.0} s in {wall:.3} wall s: {:.0}× real time ({} telemetry records kept)",
        seconds / wall,
        records.len()
    );
    println!(
        "without world-view samples (world_view_rate = 0): {:.0}× real time ({kept} telemetry records kept)",
        seconds / quiet_wall
    );

    // The store views read, and the decimation plots will be fed.
    use movescope::session::store::{Metric, Store};
    let started = std::time::Instant::now();
    let mut store = Store::new(None);
    for r in &records {
        store.ingest(r);
    }
    let ingest = started.elapsed().as_secs_f64();
    let machines = store.machines_with(Metric::MoveDelta);
    let points: usize = machines
        .iter()
        .filter_map(|m| store.series(*m, Metric::MoveDelta))
        .map(|s| s.len())
        .sum();
    let mut out = Vec::new();
    let rounds = 20;
    let started = std::time::Instant::now();
    for _ in 0..rounds {
        for m in &machines {
            if let Some(s) = store.series(*m, Metric::MoveDelta) {
                s.decimate(0.0, seconds, 1000, &mut out);
            }
        }
    }
    let decimate = started.elapsed().as_secs_f64() / f64::from(rounds);
    println!(
        "store: {} records ingested in {:.0} ms; {} series, {} move deltas in all, decimated to 1000 columns in {:.2} ms",
        records.len(),
        ingest * 1000.0,
        machines.len(),
        points,
        decimate * 1000.0
    );
    Ok(())
}

/// Frame `i` of the plots benchmark: 1280×800, the pointer hovering inside the first plot
/// (moving a pixel a frame), as a user reading values would.
fn plots_frame_input(i: usize) -> eframe::egui::RawInput {
    eframe::egui::RawInput {
        screen_rect: Some(eframe::egui::Rect::from_min_size(
            eframe::egui::Pos2::ZERO,
            eframe::egui::vec2(1280.0, 800.0),
        )),
        events: vec![eframe::egui::Event::PointerMoved(eframe::egui::pos2(
            200.0 + i as f32,
            120.0,
        ))],
        ..Default::default()
    }
}

fn bench_plots(seconds: f64) -> Result<(), String> {
    use movescope::app::plots::{PlotsPanel, View};
    use movescope::session::store::Store;
    let p = standard_scenario();
    let mut records = Vec::new();
    movescope::sim::harness::Session::new(&p)?.run_until(seconds, &mut |r| records.push(r));
    let mut store = Store::new(None);
    for r in &records {
        store.ingest(r);
    }
    let view_at = |shift: f64| View {
        t0: shift,
        t1: seconds + shift,
        cursor: seconds,
        range: None,
    };
    // `shift(i)`: where the view starts in frame `i`. Moving a little each frame (panning,
    // playing a recording), the decimated range snaps to a grid and mostly stays, so unchanged
    // series are not decimated again. Jumping back and forth by 0.3 of the window (past a grid
    // step every frame), nothing can be reused, as when following live, where every series
    // grew since the frame before.
    let measure = |naive: bool, frames: usize, shift: &dyn Fn(usize) -> f64| -> (f64, f64, usize) {
        let ctx = eframe::egui::Context::default();
        let mut panel = PlotsPanel::default();
        panel.naive = naive;
        let mut times = Vec::new();
        let mut ui_times = Vec::new();
        let mut vertices = 0;
        for i in 0..frames {
            let input = plots_frame_input(i);
            let started = std::time::Instant::now();
            let view = view_at(shift(i));
            let out = ctx.run_ui(input, |ui| {
                eframe::egui::CentralPanel::default().show(ui, |ui| {
                    panel.show(ui, &store, &view);
                });
            });
            let ui_pass = started.elapsed().as_secs_f64();
            let prims = ctx.tessellate(out.shapes, out.pixels_per_point);
            times.push(started.elapsed().as_secs_f64());
            ui_times.push(ui_pass);
            vertices = prims
                .iter()
                .map(|p| match &p.primitive {
                    eframe::epaint::Primitive::Mesh(m) => m.vertices.len(),
                    _ => 0,
                })
                .sum();
        }
        // The first frames lay out fonts and settle the plots' bounds.
        let median = |v: Vec<f64>| {
            let mut steady: Vec<f64> = v.into_iter().skip(3).collect();
            steady.sort_by(f64::total_cmp);
            percentile(&steady, 0.5)
        };
        (median(times), median(ui_times), vertices)
    };
    let points: usize = movescope::session::store::Metric::ALL
        .iter()
        .flat_map(|m| store.machines_with(*m).into_iter().map(move |c| (c, *m)))
        .filter_map(|(c, m)| store.series(c, m))
        .map(|s| s.len())
        .sum();
    println!(
        "plots panel: 1280×800, the 10 default plots of 8 clients × {seconds:.0} s ({points} stored points in all series), whole history in view, pointer hovering"
    );
    // A warm-up pass first: the first mode measured after building the store otherwise pays
    // for cold caches and fresh pages (it measured about 1.4× its own second run).
    let _ = measure(false, 20, &|_| 0.0);
    let (fast, fast_ui, fv) = measure(false, 43, &|_| 0.0);
    let (panning, panning_ui, pv) = measure(false, 43, &|i| i as f64 * 0.25);
    let (moving, moving_ui, mv) = measure(false, 43, &|i| (i % 2) as f64 * 0.3 * seconds);
    let (naive, naive_ui, nv) = measure(true, 10, &|_| 0.0);
    // Following live: the store grows by a frame of records (1/60 s) before each frame and
    // the view ends at the newest data, the last half of the session in view; against the
    // same window standing still on the same store.
    let half = seconds / 2.0;
    let follow = |grow: bool| -> f64 {
        let ctx = eframe::egui::Context::default();
        let mut panel = PlotsPanel::default();
        let start = seconds - 1.0;
        let mut live = Store::new(None);
        let mut next = 0;
        let mut times = Vec::new();
        for i in 0..43usize {
            let now = if grow { start + i as f64 / 60.0 } else { start };
            while next < records.len() && records[next].t <= now {
                live.ingest(&records[next]);
                next += 1;
            }
            let view = View {
                t0: now - half,
                t1: now,
                cursor: now,
                range: None,
            };
            let input = plots_frame_input(i);
            let started = std::time::Instant::now();
            let out = ctx.run_ui(input, |ui| {
                eframe::egui::CentralPanel::default().show(ui, |ui| {
                    panel.show(ui, &live, &view);
                });
            });
            let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
            times.push(started.elapsed().as_secs_f64());
        }
        let mut steady: Vec<f64> = times.into_iter().skip(3).collect();
        steady.sort_by(f64::total_cmp);
        percentile(&steady, 0.5)
    };
    let still = follow(false);
    let following = follow(true);
    println!(
        "movescope (decimated), view unchanged: median {:.2} ms per frame, UI pass + tessellation ({:.2} ms of it the UI pass), {fv} vertices",
        fast * 1000.0,
        fast_ui * 1000.0
    );
    println!(
        "movescope (decimated), view panning 0.25 s a frame: median {:.2} ms per frame ({:.2} ms of it the UI pass), {pv} vertices",
        panning * 1000.0,
        panning_ui * 1000.0
    );
    println!(
        "movescope (decimated), nothing reusable (a new range every frame): median {:.2} ms per frame ({:.2} ms of it the UI pass), {mv} vertices",
        moving * 1000.0,
        moving_ui * 1000.0
    );
    println!(
        "naive egui_plot (every point): median {:.2} ms per frame ({:.2} ms of it the UI pass), {nv} vertices",
        naive * 1000.0,
        naive_ui * 1000.0
    );
    println!(
        "following live (last {half:.0} s in view, a frame of records appended before each frame): median {:.2} ms per frame; the same window standing still: {:.2} ms; following costs {:.2}× standing still",
        following * 1000.0,
        still * 1000.0,
        following / still
    );
    println!(
        "decimated is {:.1}× faster (view unchanged), {:.1}× (panning), {:.1}× (nothing reusable), {:.1}× (following live)",
        naive / fast,
        naive / panning,
        naive / moving,
        naive / following
    );
    Ok(())
}

fn bench_recording(seconds: f64, hour_seconds: f64) -> Result<(), String> {
    use movescope::sim::harness::Session;
    let dir = std::env::temp_dir().join(format!("movescope-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let finish = |rec: Recorder, simulated: f64| {
        rec.finish(Footer {
            simulated_seconds: simulated,
            wall_seconds: 0.0,
            dropped_records: 0,
        })
    };

    // Size: the default preset (3 clients at 60 fps, 2 AI pawns) for a simulated minute, with
    // and without world-view samples.
    for (label, sets) in [
        ("default preset", vec![]),
        (
            "default preset, world_view_rate = 0",
            vec!["world_view_rate=0"],
        ),
    ] {
        let mut p = Preset::builtin_default();
        for kv in &sets {
            p.set(kv).map_err(|e| e.to_string())?;
        }
        let path = dir.join("size.msrec");
        let mut rec =
            Recorder::create_replacing(&path, &Header::new(&p, "bench", "deterministic")?)?;
        let mut session = Session::new(&p)?;
        let mut err = None;
        session.run_until(60.0, &mut |r| {
            if let Err(e) = rec.push(&r) {
                err.get_or_insert(e);
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
        let stats = finish(rec, 60.0)?;
        println!(
            "size, {label}: {} records, {:.0} KB per client-minute ({} clients, 60 s)",
            stats.records,
            stats.bytes as f64 / 1024.0 / f64::from(p.clients),
            p.clients
        );
    }

    // Overhead: the standard scenario (records kept in memory, as `bench` does) with and
    // without recording, alternating twice.
    let p = standard_scenario();
    let mut plain = Vec::new();
    let mut recorded = Vec::new();
    for _ in 0..2 {
        let started = std::time::Instant::now();
        let mut kept = Vec::new();
        Session::new(&p)?.run_until(seconds, &mut |r| kept.push(r));
        plain.push(started.elapsed().as_secs_f64());
        drop(kept);
        let path = dir.join("overhead.msrec");
        let started = std::time::Instant::now();
        let mut rec =
            Recorder::create_replacing(&path, &Header::new(&p, "bench", "deterministic")?)?;
        let mut kept = Vec::new();
        Session::new(&p)?.run_until(seconds, &mut |r| {
            let _ = rec.push(&r);
            kept.push(r);
        });
        finish(rec, seconds)?;
        recorded.push(started.elapsed().as_secs_f64());
    }
    let best = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "overhead, standard scenario {seconds:.0} s: {:.0}× real time without recording, {:.0}× with (best of 2 each, alternating): {:+.1} %",
        seconds / best(&plain),
        seconds / best(&recorded),
        (best(&recorded) / best(&plain) - 1.0) * 100.0
    );

    // A long recording of the standard scenario: write it, open it, seek in it.
    let path = dir.join("hour.msrec");
    let started = std::time::Instant::now();
    let mut rec = Recorder::create_replacing(&path, &Header::new(&p, "bench", "deterministic")?)?;
    Session::new(&p)?.run_until(hour_seconds, &mut |r| {
        let _ = rec.push(&r);
    });
    let stats = finish(rec, hour_seconds)?;
    println!(
        "long recording: {hour_seconds:.0} s of 8 clients, {} records, {:.1} MB ({:.0} KB per client-minute), written in {:.1} s",
        stats.records,
        stats.bytes as f64 / 1e6,
        stats.bytes as f64 / 1024.0 / 8.0 / (hour_seconds / 60.0),
        started.elapsed().as_secs_f64()
    );
    let mut open_times = Vec::new();
    let mut opened = None;
    for _ in 0..5 {
        let started = std::time::Instant::now();
        let r = Recording::open(&path).map_err(|e| e.to_string())?;
        // What the app shows first: the chunk at the cursor, in a store.
        let mut store = movescope::session::store::Store::new(None);
        for x in r
            .read_chunk(r.chunk_at(0.0).unwrap_or(0))
            .map_err(|d| d.to_string())?
        {
            store.ingest(&x);
        }
        open_times.push(started.elapsed().as_secs_f64());
        opened = Some(r);
    }
    let r = opened.ok_or("not opened")?;
    open_times.sort_by(f64::total_cmp);
    println!(
        "open (header + index + first chunk into a store): median {:.1} ms",
        percentile(&open_times, 0.5) * 1000.0
    );
    let mut file = r.reopen().map_err(|e| e.to_string())?;
    let mut rng = movescope::support::rng::Rng::new(7);
    let mut seeks = Vec::new();
    for _ in 0..200 {
        let t = rng.f64() * hour_seconds;
        let started = std::time::Instant::now();
        let i = r.chunk_at(t).ok_or("no chunks")?;
        let records = r.read_chunk_with(&mut file, i).map_err(|d| d.to_string())?;
        seeks.push(started.elapsed().as_secs_f64());
        std::hint::black_box(records);
    }
    seeks.sort_by(f64::total_cmp);
    println!(
        "seek (find and decode the chunk holding a random time): median {:.2} ms, p99 {:.2} ms",
        percentile(&seeks, 0.5) * 1000.0,
        percentile(&seeks, 0.99) * 1000.0
    );
    let started = std::time::Instant::now();
    let mut store = movescope::session::store::Store::new(None);
    let damage = r.for_each(&mut |x| store.ingest(&x));
    println!(
        "full load of the long recording into the store (what the app does in the background): {:.1} s{}",
        started.elapsed().as_secs_f64(),
        if damage.is_err() { " (damaged!)" } else { "" }
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Resident memory of this process (kB), from /proc (Linux); None elsewhere.
fn rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

fn bench_soak(minutes: f64) -> Result<(), String> {
    use movescope::model::messages::ClientMsg;
    use movescope::model::telemetry::{Event, Rejection};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::time::{Duration, Instant};

    let p = Preset::builtin_default();
    let session = movescope::net::live::LiveSession::start(&p)?;
    let target = session.server_addr();
    let rx = session.telemetry().clone();
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicU64::new(0));
    let bindings = p.checked_bindings().map_err(|e| e.to_string())?;
    // The flood: one thread, about 6 000 datagrams a second of four kinds
    // (MOVESCOPE_SOAK_NO_FLOOD=1: none, the same session's baseline).
    let no_flood = std::env::var_os("MOVESCOPE_SOAK_NO_FLOOD").is_some();
    let flood = {
        let (stop, sent) = (stop.clone(), sent.clone());
        std::thread::spawn(move || -> std::io::Result<()> {
            let id = movescope::net::transport::laminar_protocol_id().to_be_bytes();
            let junk = std::net::UdpSocket::bind("127.0.0.1:0")?;
            let fast = std::net::UdpSocket::bind("127.0.0.1:0")?;
            let mut forger = movescope::net::transport::Endpoint::bind_loopback(0)?;
            let t0 = Instant::now();
            let mut i: u64 = 0;
            while !stop.load(Ordering::Relaxed) {
                if no_flood {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
                let tick = Instant::now();
                for _ in 0..8 {
                    i += 1;
                    // Not laminar at all.
                    junk.send_to(&i.to_le_bytes(), target)?;
                    // Laminar-framed garbage from a new source port each time.
                    let fresh = std::net::UdpSocket::bind("127.0.0.1:0")?;
                    let mut g = id.to_vec();
                    g.extend_from_slice(&i.to_le_bytes());
                    fresh.send_to(&g, target)?;
                    // One fast sender of laminar-framed garbage.
                    fast.send_to(&g, target)?;
                    fast.send_to(&g, target)?;
                    sent.fetch_add(4, Ordering::Relaxed);
                }
                // Forged, well-formed copies of client 0's pings (absurd clock values).
                let bytes = movescope::model::wire::encode_client(
                    0,
                    i as u32,
                    &ClientMsg::Ping {
                        seq: i as u32,
                        client_time: if i.is_multiple_of(2) { 1.0e234 } else { 12.0 },
                    },
                    &bindings,
                );
                forger.send(target, bytes, false);
                let now = Instant::now();
                forger.poll((now - t0).as_secs_f64(), now, &mut Vec::new());
                sent.fetch_add(1, Ordering::Relaxed);
                // A new forger every 2 s: the attacker's own laminar state (it lives in this
                // process too) does not pile up in the figure.
                if i % 3200 < 8 {
                    forger = movescope::net::transport::Endpoint::bind_loopback(0)?;
                }
                // About 200 rounds a second.
                if let Some(left) = Duration::from_millis(5).checked_sub(tick.elapsed()) {
                    std::thread::sleep(left);
                }
            }
            Ok(())
        })
    };
    #[derive(Default)]
    struct Tally {
        counts: std::collections::BTreeMap<&'static str, u64>,
        moves: u64,
        errors: Vec<String>,
    }
    let drain = |t: &mut Tally| {
        for r in rx.try_iter() {
            match &r.event {
                Event::Rejected { reason } => {
                    *t.counts
                        .entry(match reason {
                            Rejection::Foreign => "foreign",
                            Rejection::WrongSource => "wrong source",
                            Rejection::Unadmitted => "unadmitted",
                            Rejection::RateLimited => "rate limited",
                            Rejection::Malformed(_) => "malformed",
                            Rejection::Duplicate => "duplicate",
                        })
                        .or_default() += 1
                }
                Event::RemoteMoveExecuted(_) => t.moves += 1,
                Event::Log {
                    level: movescope::model::telemetry::LogLevel::Error,
                    text,
                } => t.errors.push(text.clone()),
                _ => {}
            }
        }
    };
    let mut tally = Tally::default();
    let started = Instant::now();
    let total = Duration::from_secs_f64(minutes * 60.0);
    // Warm-up: the session and the flood settle for 10 s before the first RSS figure.
    let warm = Duration::from_secs(10).min(total / 4);
    while started.elapsed() < warm {
        std::thread::sleep(Duration::from_millis(20));
        drain(&mut tally);
    }
    let rss_start = rss_kb();
    println!(
        "soak: live default preset under a hostile flood for {minutes} min (RSS after {} s warm-up: {} kB)",
        warm.as_secs(),
        rss_start.map_or("?".into(), |k| k.to_string())
    );
    let mut next_report = started + warm + Duration::from_secs(60);
    // Laminar pages in its fixed 65 535-entry buffers as a connection's sequence numbers
    // advance (~200 a second): RSS climbs for about 5.5 minutes, then stays. Growth is also
    // given from the 6-minute mark, when the run is long enough.
    let steady_at = Duration::from_secs(360);
    let mut rss_steady = None;
    while started.elapsed() < total {
        std::thread::sleep(Duration::from_millis(20));
        drain(&mut tally);
        if rss_steady.is_none() && started.elapsed() >= steady_at {
            rss_steady = rss_kb();
        }
        if Instant::now() >= next_report {
            next_report += Duration::from_secs(60);
            println!(
                "  {:5.1} min: RSS {} kB, {} hostile datagrams sent, moves executed {}",
                started.elapsed().as_secs_f64() / 60.0,
                rss_kb().map_or("?".into(), |k| k.to_string()),
                sent.load(Ordering::Relaxed),
                tally.moves
            );
        }
    }
    stop.store(true, Ordering::Relaxed);
    let flood_result = flood.join();
    drain(&mut tally);
    let rss_end = rss_kb();
    session.stop();
    let growth = |a: Option<u64>| match (a, rss_end) {
        (Some(a), Some(b)) if a > 0 => format!("{:+.1} %", (b as f64 / a as f64 - 1.0) * 100.0),
        _ => "?".into(),
    };
    println!(
        "  end: RSS {} kB; growth {} from the warm-up{}   (aim: < 5 % over 30 min)",
        rss_end.map_or("?".into(), |k| k.to_string()),
        growth(rss_start),
        match rss_steady {
            Some(k) => format!(", {} from the 6-minute mark ({k} kB)", growth(Some(k))),
            None => String::new(),
        }
    );
    println!(
        "  hostile datagrams sent: {}; the session went on: {} moves executed",
        sent.load(Ordering::Relaxed),
        tally.moves
    );
    println!("  dropped by kind:");
    for (k, n) in &tally.counts {
        println!("    {k:>13}: {n}");
    }
    if !tally.errors.is_empty() {
        println!("  errors: {:?}", tally.errors);
    }
    match flood_result {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(format!("the flood thread failed: {e}")),
        Err(_) => return Err("the flood thread panicked".into()),
    }
    if tally.moves == 0 {
        return Err("no moves were executed under the flood".into());
    }
    Ok(())
}

/// `bench --participants`: how many participants one host holds at 60 fps.
fn bench_participants(list: &str) -> Result<(), String> {
    use movescope::model::telemetry::{Event, PacketFate};
    use movescope::net::live::LiveSession;
    let counts: Vec<usize> = list
        .split(',')
        .map(|n| n.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .ok()
        .filter(|v: &Vec<usize>| !v.is_empty() && v.iter().all(|n| (1..=63).contains(n)))
        .ok_or_else(|| {
            format!(
                "--participants: expected numbers from 1 to 63 separated by commas, got {list:?}"
            )
        })?;
    const SECONDS: f64 = 8.0;
    const WARM_UP: f64 = 3.0;
    let target = 1000.0 / 60.0;
    println!(
        "hosting on loopback: participants at 60 fps each (client thread + control link, in this process), server at 60 fps, 2 AI pawns; {SECONDS:.0} s per count, figures after {WARM_UP:.0} s"
    );
    println!(
        "{:>12} {:>22} {:>22} {:>16} {:>18} {:>9}",
        "participants",
        "client frame p50/p99",
        "server frame p50/p99",
        "game B/s each",
        "control B/s each",
        "dropped"
    );
    let mut held = 0;
    for &n in &counts {
        let mut p = Preset::builtin_default();
        p.clients = 0;
        p.ai_pawns = 2;
        p.client_fps = 60.0;
        p.server_fps = 60.0;
        let host = LiveSession::host(
            &p,
            &movescope::net::remote::HostOptions {
                listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
                code: Some("BENCH1".into()),
                max_participants: n,
            },
        )?;
        let (addr, _) = host
            .hosting()
            .ok_or_else(|| "the host has no address".to_string())?;
        let mut joined = Vec::new();
        for i in 0..n {
            joined.push(LiveSession::join(movescope::net::remote::JoinOptions {
                host: addr,
                code: "BENCH1".into(),
                name: Some(format!("p{i}")),
            })?);
        }
        let started = std::time::Instant::now();
        let t0 = host.clock().now();
        let (mut client_dts, mut server_dts) = (Vec::new(), Vec::new());
        let mut game_bytes = 0u64;
        let ids: std::collections::BTreeSet<u16> = joined
            .iter()
            .filter_map(|j| j.joined().map(|(id, _)| id))
            .collect();
        while started.elapsed().as_secs_f64() < SECONDS {
            std::thread::sleep(std::time::Duration::from_millis(10));
            for j in &joined {
                for _ in j.telemetry().try_iter() {}
            }
            for r in host.telemetry().try_iter() {
                if r.t - t0 < WARM_UP {
                    continue;
                }
                match (&r.machine, &r.event) {
                    (Machine::Client(_), Event::Frame { dt }) if *dt > 0.0 => {
                        client_dts.push(dt * 1000.0)
                    }
                    (Machine::Server, Event::Frame { dt }) if *dt > 0.0 => {
                        server_dts.push(dt * 1000.0)
                    }
                    (
                        _,
                        Event::Packet {
                            from,
                            to,
                            bytes,
                            fate: PacketFate::Sent,
                            ..
                        },
                    ) if [*from, *to]
                        .iter()
                        .any(|m| matches!(m, Machine::Client(c) if ids.contains(c))) =>
                    {
                        game_bytes += u64::from(*bytes)
                    }
                    _ => {}
                }
            }
        }
        let measured = started.elapsed().as_secs_f64() - WARM_UP;
        let ps = host.participants();
        let control: u64 = ps.iter().map(|p| p.control_in + p.control_out).sum();
        let dropped =
            host.telemetry_dropped() + joined.iter().map(|j| j.telemetry_dropped()).sum::<u64>();
        drop(joined);
        host.stop();
        client_dts.sort_by(f64::total_cmp);
        server_dts.sort_by(f64::total_cmp);
        let p99 = percentile(&client_dts, 0.99);
        let sp99 = percentile(&server_dts, 0.99);
        let ok = p99 < 1.5 * target && sp99 < 1.5 * target && ps.len() == n;
        if ok {
            held = held.max(n);
        }
        println!(
            "{:>12} {:>10.2}/{:>6.2} ms {:>4.2}× {:>10.2}/{:>6.2} ms {:>4.2}× {:>16.0} {:>18.0} {:>9}{}",
            n,
            percentile(&client_dts, 0.5),
            p99,
            p99 / target,
            percentile(&server_dts, 0.5),
            sp99,
            sp99 / target,
            game_bytes as f64 / n as f64 / measured,
            // Control bytes are counted from the join on (about the whole run).
            control as f64 / n as f64 / SECONDS,
            dropped,
            if ps.len() < n {
                "  (not every participant joined)"
            } else {
                ""
            }
        );
    }
    println!(
        "held at 60 fps with frame pacing p99 < 1.5× target (25 ms): {held} participants of those tried (aim: 32)"
    );
    Ok(())
}

fn bench_live() -> Result<(), String> {
    use movescope::model::messages::{HEADER_BYTES, MOVES_BATCH_HEADER_BITS, MsgKind};
    use movescope::model::telemetry::{Event, Machine, PacketFate};

    // 1 + 2: two clients, no configured latency.
    let mut p = Preset::builtin_default();
    p.clients = 2;
    p.ai_pawns = 0;
    p.gmc.ping_interval = 0.01;
    let mut rtts = Vec::new();
    let (mut bytes, mut value_bits, mut moves, mut datagrams) = (0u64, 0u64, 0u64, 0u64);
    movescope::net::live::run_live(&p, "bench", 5.0, &mut |r| match &r.event {
        Event::Rtt { rtt } => rtts.push(rtt * 1000.0),
        Event::MovesSent {
            new_moves,
            resent_moves,
            value_bits: v,
            bytes: b,
            ..
        } if *resent_moves == 0 => {
            bytes += u64::from(*b);
            value_bits += u64::from(*v);
            moves += u64::from(*new_moves);
        }
        Event::Packet {
            kind: MsgKind::Moves,
            fate: PacketFate::Sent,
            ..
        } => datagrams += 1,
        _ => {}
    })?;
    rtts.sort_by(f64::total_cmp);
    println!("live transport over laminar on 127.0.0.1 (2 clients, 0 ms configured latency, 5 s)");
    println!(
        "  round trip (ping): {} samples, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms   (aim: p99 < 1 ms)",
        rtts.len(),
        percentile(&rtts, 0.5),
        percentile(&rtts, 0.99),
        rtts.last().copied().unwrap_or(f64::NAN)
    );
    if moves > 0 && datagrams > 0 {
        let fixed_bits = (HEADER_BYTES * 8 + MOVES_BATCH_HEADER_BITS) as f64;
        let per_move_bits = (bytes as f64 * 8.0 - fixed_bits * datagrams as f64) / moves as f64;
        let minimum_bits = value_bits as f64 / moves as f64;
        println!(
            "  bytes per move: {:.2} B on the wire ({moves} moves in {datagrams} datagrams)",
            bytes as f64 / moves as f64
        );
        println!(
            "    fixed per datagram: {} B header + {:.1} B batch header (epoch, view delay, count, first id, base timestamp, widths)",
            HEADER_BYTES,
            MOVES_BATCH_HEADER_BITS as f64 / 8.0
        );
        println!(
            "    per move: {per_move_bits:.1} bits against {minimum_bits:.1} bits of bit-packed bound values: {:+.1} % (timestamp step, delta flag, byte padding)   (aim: within 10 % plus a fixed header)",
            (per_move_bits / minimum_bits - 1.0) * 100.0
        );
    }

    // 3: frame pacing, 16 clients at 120 fps.
    let mut p = Preset::builtin_default();
    p.clients = 16;
    p.client_fps = 120.0;
    p.join_interval_s = 0.05;
    let mut dts = Vec::new();
    movescope::net::live::run_live(&p, "bench", 6.0, &mut |r| {
        if let (Machine::Client(_), Event::Frame { dt }) = (r.machine, &r.event)
            && r.t > 2.0
            && *dt > 0.0
        {
            dts.push(dt * 1000.0);
        }
    })?;
    dts.sort_by(f64::total_cmp);
    let target = 1000.0 / 120.0;
    println!(
        "frame pacing, 16 clients at 120 fps (target {target:.2} ms), {} frames after warm-up:",
        dts.len()
    );
    println!(
        "  p50 {:.3} ms, p99 {:.3} ms ({:.2}× target), max {:.3} ms   (aim: p99 < 1.5× target)",
        percentile(&dts, 0.5),
        percentile(&dts, 0.99),
        percentile(&dts, 0.99) / target,
        dts.last().copied().unwrap_or(f64::NAN)
    );
    Ok(())
}
