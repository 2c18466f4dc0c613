//! How the app was started: the preset, what the window shows (live, a recording, hosted,
//! joined), recording from the start, the windows open at start and a planned screenshot.

use std::path::PathBuf;

use crate::session::preset::Preset;

/// Seconds of history the store of a live session keeps by default.
pub const RETENTION: f64 = 600.0;

/// `--screenshot FILE --screenshot-after SECONDS`.
#[derive(Clone, Debug)]
pub struct ScreenshotPlan {
    pub path: PathBuf,
    /// Seconds after the session started (live) or the recording finished loading.
    pub after: f64,
}

/// What the window shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The preset, running live.
    Live,
    /// A recording, opened at `at` (default: its own cursor, else its start).
    Recording { path: PathBuf, at: Option<f64> },
    /// The preset hosted for participants on other machines (the trainer's app).
    Host(crate::net::remote::HostOptions),
    /// One participant of a hosted session (the preset is the host's).
    Join(crate::net::remote::JoinOptions),
}

/// The windows `--window` can open at start.
pub const WINDOWS: [&str; 12] = [
    "bindings",
    "buffer",
    "component",
    "doctor",
    "gmc",
    "help",
    "journey",
    "lessons",
    "presenter",
    "track",
    "vs-server",
    "whatif",
];

/// How the app was started.
#[derive(Clone, Debug)]
pub struct AppOptions {
    pub preset: Preset,
    pub preset_name: String,
    pub screenshot: Option<ScreenshotPlan>,
    pub source: Source,
    /// Live: record the session to this file from the start.
    pub record: Option<PathBuf>,
    /// `record` may replace an existing file (`--force`; by a rename when it is finished).
    pub record_force: bool,
    /// Seconds of a live session's history the store keeps (`None`: all of it).
    pub retention: Option<f64>,
    /// Windows open at start: "bindings", "gmc", "help" (for screenshots and docs).
    pub windows: Vec<String>,
    /// Restore the layout, theme and plot choices of the last run, and save them on exit.
    pub persist: bool,
    /// Recordings: run a what-if with these changes once loaded.
    pub whatif: Vec<String>,
    /// The preset was reopened because it was used last (the top bar says so, with a way
    /// back to the default).
    pub reopened: bool,
    /// `--component`: lint these files or folders in the "Your component" window at start.
    pub component: Vec<PathBuf>,
    /// `--answer K`: the lesson opened with `--window lessons` has its first question
    /// answered with choice K (1-based).
    pub answer: Option<usize>,
    /// `--walk SECONDS`: the lesson opened with `--window lessons` is walked through, one
    /// move every SECONDS of session (right answers, every "Do it", the next step).
    pub walk: Option<f64>,
    /// Offer the basics lessons at start whatever the remembered state says (tests; a plain
    /// start with `persist` offers them until the offer is answered).
    pub offer_basics: bool,
}

impl AppOptions {
    /// The preset, live, nothing else.
    pub fn live(preset: Preset, preset_name: &str) -> AppOptions {
        AppOptions {
            preset,
            preset_name: preset_name.to_string(),
            screenshot: None,
            source: Source::Live,
            record: None,
            record_force: false,
            retention: Some(RETENTION),
            windows: Vec::new(),
            persist: false,
            whatif: Vec::new(),
            reopened: false,
            answer: None,
            walk: None,
            offer_basics: false,
            component: Vec::new(),
        }
    }
}
