//! The command line's grammar (clap): the app's options and every command's flags.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "movescope",
    version,
    about = "See GMC's client-side prediction at work: a server and clients running GMC's move cycle."
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    #[command(flatten)]
    pub(crate) app: AppArgs,
}

/// Without a command: open the app with the preset running live.
#[derive(clap::Args)]
pub(crate) struct AppArgs {
    /// Preset for the app: a RON file, or a shipped preset by name (`pitfall-01-unbound-member`).
    /// Default: the shipped default preset.
    #[arg(long)]
    pub(crate) preset: Option<PathBuf>,
    /// Change a preset value by dotted path (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub(crate) set: Vec<String>,
    /// Save a PNG of the window to FILE after --screenshot-after seconds, then exit.
    #[arg(long, value_name = "FILE")]
    pub(crate) screenshot: Option<PathBuf>,
    /// Seconds before the --screenshot is taken.
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
    pub(crate) screenshot_after: f64,
    /// Record the live session to FILE (`.msrec`) from the start.
    #[arg(long, value_name = "FILE")]
    pub(crate) record: Option<PathBuf>,
    /// Replace an existing --record file.
    #[arg(long)]
    pub(crate) force: bool,
    /// Open these windows at start (repeatable): bindings, component, doctor, gmc, help, journey, lessons,
    /// whatif, buffer (the interpolation buffer view), track (track one value); `vs-server`
    /// shows the world view side by side with the server's, `presenter` the lessons panel in
    /// presenter mode.
    #[arg(long = "window", value_name = "NAME")]
    pub(crate) windows: Vec<String>,
    /// Seconds of history the app keeps for plots and scrubbing (0: everything).
    #[arg(long, default_value_t = movescope::app::RETENTION, value_name = "SECONDS")]
    pub(crate) retention: f64,
    /// With `--window lessons` on a lesson's preset: answer its first question with the choice
    /// shown K-th (1 for the top one; choices are shown shuffled by the preset's seed, the same
    /// on every run) and run, as if the learner had (for slides and scripted screenshots).
    #[arg(long, value_name = "K")]
    pub(crate) answer: Option<usize>,
    /// With `--window lessons` on a lesson's preset: walk the whole lesson as a learner would,
    /// one move every SECONDS of session — each question answered with the right choice, each
    /// "Do it" made, then the next step — until its conclusion shows (slides, and screenshots
    /// of any step or the conclusion with --screenshot-after).
    #[arg(long, value_name = "SECONDS")]
    pub(crate) walk: Option<f64>,
    /// Check a GMC component's C++ (files or folders, repeatable) in the "Your component"
    /// window at start: its binding table, bandwidth and findings (docs/lint.md).
    #[arg(long, value_name = "PATH")]
    pub(crate) component: Vec<PathBuf>,
}

#[derive(Subcommand)]
pub(crate) enum Command {
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
        /// Measure `movescope lint` instead: a generated tree of GMC components of LINES lines
        /// (100000 for the goal), linted three times.
        #[arg(long, value_name = "LINES")]
        lint: Option<usize>,
        /// Measure `movescope import` instead: game logs of about MB megabytes (the logs GMC
        /// would write for the default preset), imported at a quarter and at the whole size:
        /// time, MB/s and peak memory (1000 for the goal).
        #[arg(long, value_name = "MB")]
        import: Option<f64>,
        /// Measure `movescope import` on a dedicated server's log of CLIENTS clients over ten
        /// minutes (the log GMC would write, every trace on): time, MB/s, peak memory, and
        /// the doctor's time (64 for the goal).
        #[arg(long, value_name = "CLIENTS")]
        import_server: Option<u16>,
        /// Length of the long recording `--recording` opens and seeks in.
        #[arg(long, default_value_t = 3600.0)]
        hour_seconds: f64,
    },
    /// Open a recording (`.msrec`) in the app — or a game's logs: one or several `.log` files
    /// (a server's and its clients'), or a folder of them, imported together first.
    Open {
        #[arg(required = true, num_args = 1.., value_name = "FILE")]
        files: Vec<PathBuf>,
        /// A game log's component (its .h and .cpp, or a folder): names the logged values and
        /// gives the doctor its code (as `movescope import --component`).
        #[arg(long, value_name = "PATH")]
        component: Vec<PathBuf>,
        /// The component's class, when the files hold several.
        #[arg(long, value_name = "CLASS")]
        class: Option<String>,
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
    /// Import an Unreal log of a GMC game (GMC 2.x or 1.x, with its trace console variables
    /// on) into a recording every view opens; `--how` says what to turn on.
    Import(ImportArgs),
    /// Check GMC components' C++ against the rules of the prediction checklist: findings like a
    /// compiler's (with the lesson that shows each), and each component's binding table with
    /// its bits on the wire and bandwidth. Exit 1 on a warning or error, 0 when clean, 2 when
    /// nothing could be read. See docs/lint.md.
    Lint(LintArgs),
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
pub(crate) struct HostArgs {
    /// Where participants connect (control on TCP, game datagrams on UDP, same port when
    /// free). Give a LAN address (or 0.0.0.0) to be reachable from other machines.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:7777")]
    pub(crate) listen: std::net::SocketAddr,
    /// The join code participants must give (default: a new random one, printed).
    #[arg(long, value_name = "CODE")]
    pub(crate) code: Option<String>,
    /// Participants the session holds at once.
    #[arg(long, default_value_t = movescope::net::remote::DEFAULT_MAX_PARTICIPANTS, value_name = "N")]
    pub(crate) max_participants: usize,
    #[command(flatten)]
    pub(crate) headless: HeadlessArgs,
    #[command(flatten)]
    pub(crate) app: AppArgs,
}

#[derive(clap::Args)]
pub(crate) struct JoinArgs {
    /// The host's address, as the host printed it (ADDR:PORT).
    pub(crate) addr: String,
    /// The join code the host printed.
    #[arg(long)]
    pub(crate) code: String,
    /// Your name in the trainer's app (join again with the same name to get your pawn back).
    #[arg(long)]
    pub(crate) name: Option<String>,
    #[command(flatten)]
    pub(crate) headless: HeadlessArgs,
    #[command(flatten)]
    pub(crate) app: AppArgs,
}

/// Hosting or joining without a window (scripts, CI).
#[derive(clap::Args)]
pub(crate) struct HeadlessArgs {
    /// Run without a window for --seconds, then print the summary.
    #[arg(long)]
    pub(crate) headless: bool,
    /// With --headless: wall seconds to run.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub(crate) seconds: f64,
    /// With --headless: write the summary as JSON to this file (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub(crate) summary_json: Option<PathBuf>,
}

#[derive(clap::Args, Default)]
pub(crate) struct RunArgs {
    /// Preset: a RON file, or a shipped preset by name (`pitfall-01-unbound-member`). Default:
    /// the shipped default preset.
    #[arg(long)]
    pub(crate) preset: Option<PathBuf>,
    /// Change a preset value by dotted path, e.g. `link.latency_ms=100` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub(crate) set: Vec<String>,
    /// Simulated seconds (default: the preset's `seconds`).
    #[arg(long)]
    pub(crate) seconds: Option<f64>,
    /// Session seed (default: the preset's `seed`).
    #[arg(long)]
    pub(crate) seed: Option<u64>,
    /// Write the summary as JSON to this file (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub(crate) summary_json: Option<PathBuf>,
    /// Run for real: a server and client threads over laminar UDP on 127.0.0.1, for
    /// `--seconds` wall seconds (default 10).
    #[arg(long)]
    pub(crate) live: bool,
    /// Record the session to this file (`.msrec`; open it with `movescope open`).
    #[arg(long, value_name = "FILE")]
    pub(crate) record: Option<PathBuf>,
    /// Replace an existing --record file (by a rename of the complete new recording).
    #[arg(long)]
    pub(crate) force: bool,
    /// Run with a GMC component's binding layout: lint these files or folders and bind the
    /// component's values after GMC's built-ins ("Run with this layout", docs/lint.md).
    #[arg(long, value_name = "PATH")]
    pub(crate) component: Vec<PathBuf>,
    /// With --component: the class to run when the files hold several components.
    #[arg(long, value_name = "NAME")]
    pub(crate) class: Option<String>,
    /// Also write the logs GMC would write for this session into DIR (`server.log`,
    /// `client-N.log`; move trace, replays, Verbose validation, world time), for
    /// `movescope import` (docs/gmc-logs.md). Switches the value trace on for the dumps.
    #[arg(long, value_name = "DIR")]
    pub(crate) gmc_log: Option<PathBuf>,
    /// With --gmc-log: leave this logging out (repeatable): move-trace, replay, verbose,
    /// world-time, iterations.
    #[arg(long = "gmc-log-without", value_name = "NAME")]
    pub(crate) gmc_log_without: Vec<String>,
}

#[derive(clap::Args, Debug)]
pub(crate) struct ImportArgs {
    /// Unreal log files (`Saved/Logs/*.log`): the server's and each client's, or one PIE log.
    pub(crate) logs: Vec<PathBuf>,
    /// The recording to write (`.msrec`; open it with `movescope open`).
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// Replace an existing --out file (by a rename of the complete new recording).
    #[arg(long)]
    pub(crate) force: bool,
    /// The game's GMC component (files or folders, as `movescope lint` reads them): names the
    /// values GMC prints by type and index (`SinglePrecisionFloat[1]`).
    #[arg(long, value_name = "PATH")]
    pub(crate) component: Vec<PathBuf>,
    /// With --component: the class, when the files hold several components.
    #[arg(long, value_name = "NAME")]
    pub(crate) class: Option<String>,
    /// Print what to turn on in the game for a useful log (console commands and
    /// DefaultEngine.ini lines), what each adds and costs.
    #[arg(long)]
    pub(crate) how: bool,
}

#[derive(clap::Args, Debug)]
pub(crate) struct LintArgs {
    /// Files or folders (.h, .hpp, .cpp, searched recursively).
    pub(crate) paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = LintFormat::Text)]
    pub(crate) format: LintFormat,
    /// Text output without the binding tables.
    #[arg(long)]
    pub(crate) no_tables: bool,
    /// The preset whose rates the bandwidth uses (client fps, ClientSendRate, net update
    /// rate). Default: the shipped default preset.
    #[arg(long)]
    pub(crate) preset: Option<PathBuf>,
    /// Change a preset value, e.g. `gmc.client_send_rate=60` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub(crate) set: Vec<String>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LintFormat {
    Text,
    Json,
    Sarif,
}
