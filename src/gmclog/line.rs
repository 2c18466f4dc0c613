//! One line of an Unreal log: the engine's prefix (time, frame counter, category, verbosity)
//! and, for GMC's categories, GMC's own prefix (time of day, player, actor, net mode, role).
//! Formats: docs/gmc-logs.md ("Anatomy of a line").

/// The engine's and GMC's prefixes of one line, and the message after them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line<'a> {
    /// Seconds from the engine's time field (UTC or local date-time: since 1970; "since
    /// start" mode: since start), or from GMC's time of day when the engine wrote none.
    pub wall: Option<f64>,
    /// The engine's frame counter modulo 1000.
    pub frame: Option<u16>,
    pub category: &'a str,
    pub verbosity: Verbosity,
    /// GMC's prefix; `None` for other categories and GMC lines without an actor.
    pub who: Option<Who<'a>>,
    pub msg: &'a str,
}

/// Unreal's verbosity names (a `Log` line prints none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verbosity {
    Log,
    Display,
    Warning,
    Error,
    Fatal,
    Verbose,
    VeryVerbose,
}

/// GMC's prefix: who logged the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Who<'a> {
    /// The first local player's name (v2) or the pawn's own name (v1); empty on a dedicated
    /// server.
    pub player: &'a str,
    pub actor: &'a str,
    /// `None` in GMC 1.x lines, which print no net mode.
    pub net_mode: Option<NetMode>,
    pub role: Role,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NetMode {
    Standalone,
    DedicatedServer,
    ListenServer,
    Client,
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    AutonomousProxy,
    SimulatedProxy,
    /// `local  Authority`: a pawn the server (or a standalone game) controls itself.
    LocalAuthority,
    /// `remote Authority`: the server's copy of a client's pawn.
    RemoteAuthority,
    /// `Authority` without local/remote (not written by the versions read), `None`, `MAX`.
    Other,
}

impl NetMode {
    fn parse(s: &str) -> NetMode {
        match s {
            "Standalone" => NetMode::Standalone,
            "Dedicated Server" => NetMode::DedicatedServer,
            "Listen Server" => NetMode::ListenServer,
            "Client" => NetMode::Client,
            _ => NetMode::Other,
        }
    }

    /// A server process (or a standalone game, which is its own server).
    pub fn is_server(self) -> bool {
        matches!(
            self,
            NetMode::DedicatedServer | NetMode::ListenServer | NetMode::Standalone
        )
    }
}

impl Role {
    fn parse(s: &str) -> Option<Role> {
        Some(match s {
            "Autonomous Proxy" => Role::AutonomousProxy,
            "Simulated Proxy" => Role::SimulatedProxy,
            "local  Authority" => Role::LocalAuthority,
            "remote Authority" => Role::RemoteAuthority,
            "Authority" | "None" | "MAX" => Role::Other,
            _ => return None,
        })
    }
}

/// Why a line is not one [`parse`] can read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotALine {
    /// No `Category: ` after the engine's prefix (a continuation of a multi-line message, a
    /// header line of the log file).
    NoCategory,
    /// A GMC category whose line has neither GMC's prefix nor its "no actor" form.
    NoGmcPrefix,
}

/// Reads one line (without its line end).
pub fn parse(text: &str) -> Result<Line<'_>, NotALine> {
    let (wall, frame, rest) = engine_time(text);
    let (category, rest) = category(rest).ok_or(NotALine::NoCategory)?;
    let (verbosity, rest) = verbosity(rest);
    if !category.starts_with("LogGMC") {
        return Ok(Line {
            wall,
            frame,
            category,
            verbosity,
            who: None,
            msg: rest,
        });
    }
    let (gmc_time, who, msg) = gmc_prefix(rest).ok_or(NotALine::NoGmcPrefix)?;
    Ok(Line {
        wall: wall.or(gmc_time),
        frame,
        category,
        verbosity,
        who,
        msg,
    })
}

/// `[2026.01.01-12.00.00:000][ 12]`, `[0012.34][ 12]` or nothing.
fn engine_time(text: &str) -> (Option<f64>, Option<u16>, &str) {
    let Some(rest) = text.strip_prefix('[') else {
        return (None, None, text);
    };
    let Some(close) = rest.find(']') else {
        return (None, None, text);
    };
    let wall = date_time(&rest[..close]).or_else(|| rest[..close].trim().parse::<f64>().ok());
    let rest = &rest[close + 1..];
    let Some(inner) = rest.strip_prefix('[') else {
        return (wall, None, rest);
    };
    match inner.find(']') {
        Some(c) => (wall, inner[..c].trim().parse().ok(), &inner[c + 1..]),
        None => (wall, None, rest),
    }
}

/// `YYYY.MM.DD-HH.MM.SS:mmm` as seconds since 1970 (the calendar's days, no time zone).
fn date_time(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    if b.len() != 23 || b[4] != b'.' || b[7] != b'.' || b[10] != b'-' || b[19] != b':' {
        return None;
    }
    let n = |from: usize, to: usize| -> Option<i64> { s.get(from..to)?.parse().ok() };
    let days = days_from_civil(n(0, 4)?, n(5, 7)?, n(8, 10)?);
    let secs = n(11, 13)? * 3600 + n(14, 16)? * 60 + n(17, 19)?;
    Some((days * 86_400 + secs) as f64 + n(20, 23)? as f64 / 1000.0)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `LogGMCReplication: rest`: a category is one word of letters, digits and underscores.
fn category(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    let end = b
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))?;
    (end > 0 && b[end..].starts_with(b": ")).then(|| (&s[..end], &s[end + 2..]))
}

fn verbosity(s: &str) -> (Verbosity, &str) {
    const NAMES: [(&str, Verbosity); 6] = [
        ("Verbose: ", Verbosity::Verbose),
        ("VeryVerbose: ", Verbosity::VeryVerbose),
        ("Warning: ", Verbosity::Warning),
        ("Error: ", Verbosity::Error),
        ("Display: ", Verbosity::Display),
        ("Fatal: ", Verbosity::Fatal),
    ];
    for (name, v) in NAMES {
        if let Some(rest) = s.strip_prefix(name) {
            return (v, rest);
        }
    }
    (Verbosity::Log, s)
}

/// GMC's prefix: `<time> <player> (<actor>: <net mode> | <role>): ` (2.x), `<time> <player>
/// (<actor>: <role>): ` (1.x), or a "no actor" form. Returns GMC's time of day (seconds), who,
/// and the message.
fn gmc_prefix(s: &str) -> Option<(Option<f64>, Option<Who<'_>>, &str)> {
    for no_actor in [
        "| No actor debug info available | ",
        "| GMC_LOG failed, PAWN_REF was nullptr | FORMAT-MSG: ",
    ] {
        if let Some(msg) = s.strip_prefix(no_actor) {
            return Some((None, None, msg));
        }
    }
    let space = memchr::memchr(b' ', s.as_bytes())?;
    let time = time_of_day(&s[..space])?;
    let rest = &s[space + 1..];
    let (close, role) = prefix_end(rest)?;
    let open = find_back(&rest.as_bytes()[..close], b'(', b' ')?;
    let player = rest[..open].trim_end();
    let inner = &rest[open + 2..close];
    let (actor, net_mode) = match find_back(inner.as_bytes(), b'|', b' ') {
        Some(bar) if inner.as_bytes().get(bar + 2) == Some(&b' ') => {
            let (actor, mode) = inner[..bar].rsplit_once(": ")?;
            (actor, Some(NetMode::parse(mode.trim_end())))
        }
        _ => (inner.rsplit_once(": ")?.0, None),
    };
    let who = Who {
        player,
        actor,
        net_mode,
        role,
    };
    Some((Some(time), Some(who), &rest[close + 3..]))
}

/// The last `before` + `c` in `b`: the index of `before`.
fn find_back(b: &[u8], c: u8, before: u8) -> Option<usize> {
    let mut end = b.len();
    while let Some(i) = memchr::memrchr(c, &b[..end]) {
        if i > 0 && b[i - 1] == before {
            return Some(i - 1);
        }
        end = i;
    }
    None
}

/// The first `): ` that closes GMC's prefix: the text before it ends in a role (padded).
fn prefix_end(s: &str) -> Option<(usize, Role)> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr::memchr(b')', &b[from..]) {
        let at = from + i;
        if b[at + 1..].starts_with(b": ") {
            let before = s[..at].trim_end();
            let role_start = before
                .rfind(['|', ':'])
                .map_or(0, |p| p + 1)
                .min(before.len());
            if let Some(role) = Role::parse(before[role_start..].trim_start()) {
                return Some((at, role));
            }
        }
        from = at + 1;
    }
    None
}

/// `+14:03:22.517`, `14:03:22.517` or `-…`: seconds of the day.
fn time_of_day(s: &str) -> Option<f64> {
    let s = s.trim_start_matches(['+', '-']);
    let mut parts = s.splitn(3, ':');
    let h: f64 = parts.next()?.parse().ok()?;
    let m: f64 = parts.next()?.parse().ok()?;
    let sec: f64 = parts.next()?.parse().ok()?;
    Some(h * 3600.0 + m * 60.0 + sec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_v2_line_with_every_field() {
        let l = parse("[2026.01.01-12.00.00:016][ 13]LogGMCReplication: Verbose: +13:00:00.016 MyPlayer             (BP_GMCPawn_C_0: Client           | Autonomous Proxy): Replayed 3 moves.").unwrap();
        assert_eq!(l.frame, Some(13));
        assert_eq!(l.category, "LogGMCReplication");
        assert_eq!(l.verbosity, Verbosity::Verbose);
        let who = l.who.unwrap();
        assert_eq!(who.player, "MyPlayer");
        assert_eq!(who.actor, "BP_GMCPawn_C_0");
        assert_eq!(who.net_mode, Some(NetMode::Client));
        assert_eq!(who.role, Role::AutonomousProxy);
        assert_eq!(l.msg, "Replayed 3 moves.");
        let expected = 20_454.0 * 86_400.0 + 12.0 * 3600.0 + 0.016;
        assert!((l.wall.unwrap() - expected).abs() < 1e-6);
    }

    #[test]
    fn a_dedicated_server_line_has_an_empty_player() {
        let l = parse("[2026.01.01-12.00.00:016][ 13]LogGMCReplication: +13:00:00.016                      (BP_GMCPawn_C_3: Dedicated Server | remote Authority): Client move trace ::: Server executed remote move with timestamp 52.183331 s and delta time 0.016667 s.").unwrap();
        let who = l.who.unwrap();
        assert_eq!(who.player, "");
        assert_eq!(who.net_mode, Some(NetMode::DedicatedServer));
        assert_eq!(who.role, Role::RemoteAuthority);
        assert!(l.msg.starts_with("Client move trace ::: Server executed"));
    }

    #[test]
    fn a_v1_line_has_no_net_mode_and_a_message_with_parentheses() {
        let l = parse("[0012.34][  1]LogGMCReplication: 13:00:00.000 Player Two (with parens) (BP_Pawn_C_1: local  Authority): Client move with timestamp 1.000000 rejected by server (location result deviates).").unwrap();
        assert_eq!(l.wall, Some(12.34));
        let who = l.who.unwrap();
        assert_eq!(who.player, "Player Two (with parens)");
        assert_eq!(who.net_mode, None);
        assert_eq!(who.role, Role::LocalAuthority);
        assert!(l.msg.ends_with("(location result deviates)."));
    }

    #[test]
    fn without_engine_time_gmc_time_of_day_is_used() {
        let l = parse(
            "LogGMCReplication: +01:00:01.500 P (A_0: Listen Server    | local  Authority): x",
        )
        .unwrap();
        assert_eq!(l.wall, Some(3601.5));
        assert_eq!(l.who.unwrap().net_mode, Some(NetMode::ListenServer));
    }

    #[test]
    fn other_categories_and_broken_lines() {
        let l = parse("[2026.01.01-12.00.00:000][  0]LogNet: Warning: something").unwrap();
        assert_eq!(l.category, "LogNet");
        assert_eq!(l.verbosity, Verbosity::Warning);
        assert_eq!(l.who, None);
        assert_eq!(parse("  continuation"), Err(NotALine::NoCategory));
        assert_eq!(
            parse("LogGMCReplication: no prefix here"),
            Err(NotALine::NoGmcPrefix)
        );
        let l = parse("LogGMCReplication: | No actor debug info available | hello").unwrap();
        assert_eq!((l.who, l.msg), (None, "hello"));
    }
}
