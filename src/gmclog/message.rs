//! What a GMC line says: its message text read into a [`Msg`]. GMC 2.x and 1.x formats are
//! both read; which one a line is in shows in the text itself (docs/gmc-logs.md lists every
//! format and what it becomes).

use crate::model::logged::CheckedState;

use super::scan::{Ts, after, number, number_after, timestamp, triple_after, ts_after, whole};

/// One GMC message.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Msg<'a> {
    /// Client: a (re-)execution of its current move (2.x `gmc.LogClientMoveTrace`; 1.x
    /// `TrackClientMove` raw result, which prints no delta time).
    Executed {
        ts: Ts,
        delta: Option<f64>,
    },
    /// Client: move `index` of a batch of `of` was sent (1.x prints no batch size).
    Sent {
        index: u16,
        of: Option<u16>,
        ts: Ts,
    },
    /// Server: a client's move arrived.
    ServerReceived {
        ts: Ts,
    },
    /// Server: a client's move was executed.
    ServerExecuted {
        ts: Ts,
        delta: Option<f64>,
    },
    /// Server: validated (2.x) or resolved (1.x), or the reply saved (2.x).
    ServerValidated {
        ts: Ts,
    },
    ServerSavedReply {
        ts: Ts,
    },
    /// Client: the server's reply (AP move / server state) for the move with this timestamp.
    ReplyReceived {
        ts: Ts,
    },
    ReplyComplemented {
        ts: Ts,
    },
    /// `Input state:`, `Output state:` and the other headers of a dump.
    DumpHeader(Dump),
    /// One dumped value line: `ActorLocation:  X=1 Y=2 Z=3`, `Bool:  [0] true  [1] false`.
    DumpValue {
        name: &'a str,
        value: &'a str,
    },
    /// Client, 2.x `gmc.LogClientReplay`: a stage of the replay block.
    Replay(ReplayStage),
    /// `Replayed N moves.`
    Replayed {
        moves: u16,
    },
    /// `Replayed client actor location differs by 3.25 cm …` (location, rotation, scale,
    /// control rotation).
    DiffersBy {
        what: &'a str,
        amount: f64,
    },
    /// A bound value that failed validation. `index` is GMC's binding index for its type
    /// (2.x), `None` for single-value types and 1.x slot names (`Float3`).
    NotValid {
        name: &'a str,
        index: Option<u16>,
        client: Option<&'a str>,
        server: Option<&'a str>,
        /// 1.x: the difference and tolerance it printed.
        by: Option<(f64, f64)>,
        /// The side whose code prints this punctuation (GMC's client and server print the
        /// sentence differently; 1.x's sentences differ in their words).
        punct: Side,
    },
    /// The client's move with this timestamp failed validation on `side` (2.x Verbose; 1.x
    /// "Starting replay …" / "rejected by server").
    FailedValidation {
        side: Side,
        ts: Ts,
        /// Which state the verdict line names (2.x: input or output; 1.x: none).
        state: Option<CheckedState>,
    },
    /// Client: `Source move with timestamp … s was not valid.`: the client's own check
    /// (`CL_ShouldReplay`) found the server's reply apart from its source move and replays.
    SourceNotValid {
        ts: Ts,
    },
    /// Client: a deviation it could not replay from, or a direct adoption without replay.
    ReplayNotAllowed,
    AdoptedWithoutReplay,
    /// Server, `gmc.LogNumExecutedRemoteMoves`: moves executed this frame (a proxy move: 0).
    RemoteMovesThisFrame {
        moves: u16,
        proxy: bool,
    },
    /// Server, `gmc.LogForcedNetUpdates`: the reason after "due to".
    ForcedUpdate {
        reason: &'a str,
    },
    /// `LogGMCMovement` VeryVerbose (2.x) or `gmc.LogMoveExecution` (1.x): an iteration of a
    /// move's execution began.
    IterationStarted {
        ts: Ts,
    },
    /// Client clock: a hard re-sync (new and old world time, ping in ms), a corrected
    /// discrepancy, or a world-time line (`gmc.LogNetWorldTime`).
    ClockSynced {
        new_time: f64,
        old_time: Option<f64>,
        ping_ms: Option<f64>,
    },
    ClockCorrected {
        seconds: f64,
    },
    WorldTime {
        server: bool,
        time: f64,
        ping_ms: Option<f64>,
    },
    /// Smoothing of a simulated pawn: interpolating or extrapolating this frame, at this
    /// smoothing time (`current time`), with a delay when the line gives one.
    Smoothing {
        extrapolating: bool,
        now: Option<f64>,
    },
    SmoothingDelay {
        delay: f64,
    },
    /// A warning-worthy GMC message, kept as a log entry.
    Notice(&'a str),
    /// A GMC line movescope reads but does not use (a trace header it needs nothing from).
    Known,
    /// A GMC line movescope does not know.
    Unknown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dump {
    Input,
    Output,
    /// A smoothing block's state (target, start, new, …).
    Smoothing,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ReplayStage {
    /// `Logging complemented AP move.` (2.x) / `--- Replay Start ---` (1.x).
    Start,
    ClientStateBefore,
    CorrectedBefore,
    After,
    /// 1.x: `Received Server State : .Timestamp = …` (3 decimals).
    Source(Ts),
    /// 1.x: one replayed move.
    ReplayedMove,
    /// 1.x: `--- Replay End ---`.
    End,
    /// 1.x `gmc.ShowClientLocationCorrections`: locations before, adopted and after.
    Corrected {
        original: [f64; 3],
        corrected: [f64; 3],
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Client,
    Server,
}

/// Reads a GMC message.
pub fn classify(msg: &str) -> Msg<'_> {
    if let Some(rest) = msg.strip_prefix("Client move trace ::: ") {
        return move_trace(rest);
    }
    if let Some(rest) = msg.strip_prefix("Client replay ::: ") {
        return replay(rest);
    }
    if let Some(rest) = msg.strip_prefix("Smoothing ::: ") {
        return smoothing(rest);
    }
    if let Some(rest) = msg.strip_prefix("TrackClientMove: ") {
        return v1_track(rest);
    }
    if let Some(rest) = msg.strip_prefix("ClientReplayLog: ") {
        return v1_replay(rest);
    }
    if let Some(rest) = msg.strip_prefix("MoveExecutionLog: ") {
        return v1_iteration(rest);
    }
    if let Some(rest) = msg.strip_prefix("UGMC_MovementUtilityCmp::") {
        return iteration(rest);
    }
    if msg.contains(" was not valid")
        && let Some(m) = not_valid(msg)
    {
        return m;
    }
    other(msg)
}

fn move_trace(rest: &str) -> Msg<'_> {
    if let Some(m) = dump(rest) {
        return m;
    }
    let ts = ts_after(rest, "with timestamp ");
    let delta = number_after(rest, "and delta time ");
    let Some(ts) = ts else {
        return Msg::Unknown;
    };
    if rest.starts_with("Client executed local move") {
        Msg::Executed { ts, delta }
    } else if let Some(r) = rest.strip_prefix("Client sent move ") {
        let (index, of) = batch_position(r);
        Msg::Sent { index, of, ts }
    } else if rest.starts_with("Server received remote move") {
        Msg::ServerReceived { ts }
    } else if rest.starts_with("Server executed remote move") {
        Msg::ServerExecuted { ts, delta }
    } else if rest.starts_with("Server validated remote move") {
        Msg::ServerValidated { ts }
    } else if rest.starts_with("Server saved autonomous proxy move") {
        Msg::ServerSavedReply { ts }
    } else if rest.starts_with("Client received autonomous proxy move") {
        Msg::ReplyReceived { ts }
    } else if rest.starts_with("Client complemented autonomous proxy move") {
        Msg::ReplyComplemented { ts }
    } else {
        Msg::Unknown
    }
}

/// `3/5 with …` → (3, Some(5)).
fn batch_position(r: &str) -> (u16, Option<u16>) {
    let Some((i, rest)) = whole(r) else {
        return (1, None);
    };
    let of = rest
        .strip_prefix('/')
        .and_then(whole)
        .and_then(|(n, _)| u16::try_from(n).ok());
    (u16::try_from(i).unwrap_or(1), of)
}

/// A dump's header or value line (after the block's prefix).
fn dump(rest: &str) -> Option<Msg<'_>> {
    match rest {
        "Input state:" => return Some(Msg::DumpHeader(Dump::Input)),
        "Output state:" => return Some(Msg::DumpHeader(Dump::Output)),
        _ => {}
    }
    let (name, value) = rest.split_once(":  ")?;
    let plain = !name.is_empty() && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
    plain.then_some(Msg::DumpValue { name, value })
}

fn replay(rest: &str) -> Msg<'_> {
    match rest {
        "Logging complemented AP move." => Msg::Replay(ReplayStage::Start),
        "Logging client state before replay." => Msg::Replay(ReplayStage::ClientStateBefore),
        "Logging corrected client state before replay." => {
            Msg::Replay(ReplayStage::CorrectedBefore)
        }
        "Logging corrected client state after replay." => Msg::Replay(ReplayStage::After),
        _ => dump(rest).unwrap_or(Msg::Unknown),
    }
}

fn smoothing(rest: &str) -> Msg<'_> {
    if let Some(r) = rest.strip_prefix("Logging ") {
        let extrapolating = r.starts_with("extrapolation");
        let now = number_after(r, "(current time = ");
        return Msg::Smoothing { extrapolating, now };
    }
    if rest.ends_with(" state:") || rest.ends_with("Delay:") || rest.ends_with("Latest:") {
        return Msg::DumpHeader(Dump::Smoothing);
    }
    if let Some(d) = number_after(rest, "CurrentDelay = ") {
        return Msg::SmoothingDelay { delay: d };
    }
    if let Some(m) = dump(rest) {
        return m;
    }
    Msg::Known
}

fn iteration(rest: &str) -> Msg<'_> {
    match ts_after(rest, "Starting execution of move with timestamp ") {
        Some(ts) => Msg::IterationStarted { ts },
        None => Msg::Known,
    }
}

/// The four 2.x forms (`%s was not valid: client value = %s, server value = %s`, the
/// two-space form, and both with `[%d]`) and 1.x's "was not valid, server-client difference".
fn not_valid(msg: &str) -> Option<Msg<'_>> {
    let at = msg.find(" was not valid")?;
    let subject = &msg[..at];
    if let Some(v1) = v1_not_valid(msg, subject) {
        return Some(v1);
    }
    let rest = &msg[at + " was not valid".len()..];
    let (name, index) = match subject.strip_suffix(']').and_then(|s| s.rsplit_once('[')) {
        Some((n, i)) => (n, Some(i.parse().ok()?)),
        None => (subject, None),
    };
    if name.contains(' ') {
        return None;
    }
    // GMC 2.x: the client prints `: ` and a comma for single values and `:  ` for indexed
    // ones; the server the other way round (SyncCore.h's two IsValidCheck functions).
    let two_spaces = rest.starts_with(":  ");
    let punct = if two_spaces == index.is_some() {
        Side::Client
    } else {
        Side::Server
    };
    let client = after(rest, "client value = ")?;
    let (client, server) = match client.find(" server value = ") {
        Some(i) => (
            client[..i].trim_end().trim_end_matches(','),
            &client[i + " server value = ".len()..],
        ),
        None => (client, ""),
    };
    Some(Msg::NotValid {
        name,
        index,
        client: Some(client.trim()),
        server: Some(server.trim()),
        by: None,
        punct,
    })
}

/// 1.x `Client location was not valid, server-client difference is %f > %f (tolerance).
/// Move timestamp = %f | Server location = x, y, z | Client location = x, y, z`.
fn v1_not_valid<'a>(msg: &'a str, subject: &'a str) -> Option<Msg<'a>> {
    let what = subject.strip_prefix("Client ")?;
    let by = number_after(msg, "difference is ")?;
    let tol = number_after(msg, " > ")?;
    let server = after(msg, "| Server ")
        .and_then(|s| s.split_once(" = "))
        .map(|x| x.1);
    let client = after(msg, "| Client ")
        .and_then(|s| s.split_once(" = "))
        .map(|x| x.1);
    Some(Msg::NotValid {
        name: what,
        index: None,
        client: client.map(|c| c.split(" |").next().unwrap_or(c).trim()),
        server: server.map(|s| s.split(" |").next().unwrap_or(s).trim()),
        by: Some((by, tol)),
        punct: Side::Server,
    })
}

/// Everything else: replay results, validation verdicts, clock and server lines.
fn other(msg: &str) -> Msg<'_> {
    if let Some(r) = msg.strip_prefix("Replayed ") {
        return replayed(r);
    }
    let state = if msg.contains("client input state failed") {
        Some(CheckedState::Input)
    } else if msg.contains("client output state failed") {
        Some(CheckedState::Output)
    } else {
        None
    };
    if let Some(ts) = ts_after(msg, "failed client-side validation (timestamp = ") {
        return Msg::FailedValidation {
            side: Side::Client,
            ts,
            state,
        };
    }
    if let Some(ts) = ts_after(msg, "failed server-side validation (timestamp = ") {
        return Msg::FailedValidation {
            side: Side::Server,
            ts,
            state,
        };
    }
    if let Some(r) = msg.strip_prefix("Source move with timestamp ")
        && let Some((ts, _)) = timestamp(r)
    {
        return Msg::SourceNotValid { ts };
    }
    if let Some(r) = msg.strip_prefix("Num executed remote moves ::: Executed ") {
        return remote_moves(r);
    }
    if let Some(r) = msg.strip_prefix("Log forced net updates ::: Forced update due to ") {
        return Msg::ForcedUpdate {
            reason: r.trim_end_matches('.'),
        };
    }
    clock(msg)
        .or_else(|| v1_verdicts(msg))
        .or_else(|| notice(msg))
        .unwrap_or(Msg::Unknown)
}

fn replayed(r: &str) -> Msg<'_> {
    if let Some((n, rest)) = whole(r)
        && rest.starts_with(" moves")
    {
        return Msg::Replayed {
            moves: u16::try_from(n).unwrap_or(u16::MAX),
        };
    }
    if let Some(what) = r
        .strip_prefix("client ")
        .and_then(|w| w.split_once(" differs by "))
        && let Some((amount, _)) = number(what.1)
    {
        return Msg::DiffersBy {
            what: what.0.trim_start_matches("actor "),
            amount,
        };
    }
    Msg::Unknown
}

fn remote_moves(r: &str) -> Msg<'_> {
    if r.starts_with("proxy move") {
        return Msg::RemoteMovesThisFrame {
            moves: 0,
            proxy: true,
        };
    }
    match whole(r) {
        Some((n, _)) => Msg::RemoteMovesThisFrame {
            moves: u16::try_from(n).unwrap_or(0),
            proxy: false,
        },
        None => Msg::Unknown,
    }
}

fn clock(msg: &str) -> Option<Msg<'_>> {
    if msg.starts_with("Synced client world time with server") {
        return Some(Msg::ClockSynced {
            new_time: number_after(msg, "new world time = ")?,
            old_time: number_after(msg, "old world time = "),
            ping_ms: number_after(msg, "ping = "),
        });
    }
    if let Some(r) = msg.strip_prefix("Corrected client time discrepancy of ") {
        return Some(Msg::ClockCorrected {
            seconds: number(r)?.0,
        });
    }
    if msg.starts_with("UtcNow: ") {
        let server = msg.contains("ServerWorldTime = ");
        let time = number_after(msg, "WorldTime = ")?;
        return Some(Msg::WorldTime {
            server,
            time,
            ping_ms: number_after(msg, "| Ping = "),
        });
    }
    None
}

/// 1.x replay decisions and server rejections.
fn v1_verdicts(msg: &str) -> Option<Msg<'_>> {
    if msg.starts_with("Starting replay from ") {
        let ts = ts_after(msg, "with timestamp ")?;
        return Some(Msg::FailedValidation {
            side: Side::Client,
            ts,
            state: None,
        });
    }
    if msg.starts_with("Client move with timestamp ") && msg.contains("rejected by server") {
        return Some(Msg::FailedValidation {
            side: Side::Server,
            ts: ts_after(msg, "with timestamp ")?,
            state: None,
        });
    }
    if let Some(r) = msg.strip_prefix("Bound data deviates: ServerState_AutonomousProxy.") {
        return Some(v1_bound_deviates(r));
    }
    let deviates = match msg.split_once(" was valid, but ") {
        // `Client move with timestamp T was valid, but velocity deviates by e > tol …`: the
        // client's check of a move the server accepted.
        Some((head, tail)) if head.starts_with("Client move with timestamp ") => {
            tail.split_once(" deviates by ")
        }
        _ => msg
            .strip_prefix("Client ")
            .and_then(|r| r.split_once(" deviates by ")),
    };
    if let Some(what) = deviates {
        let (by, rest) = number(what.1)?;
        let tol = number_after(rest, "> ")?;
        let server = after(msg, "| ServerState.")
            .and_then(|s| s.split_once(" = "))
            .map(|x| x.1);
        let client = after(msg, "| SourceMove.Out")
            .and_then(|s| s.split_once(" = "))
            .map(|x| x.1);
        return Some(Msg::NotValid {
            name: what.0,
            index: None,
            client: client.map(|c| c.split(" |").next().unwrap_or(c).trim()),
            server: server.map(|s| s.split(" |").next().unwrap_or(s).trim()),
            by: Some((by, tol)),
            punct: Side::Client,
        });
    }
    None
}

/// `Float1  (1.5) != SourceMove.OutFloat1  (2.0)` or `Bool1  != SourceMove.OutBool1`.
fn v1_bound_deviates(r: &str) -> Msg<'_> {
    let name_end = r.find(' ').unwrap_or(r.len());
    let name = &r[..name_end];
    let paren = |s: &str| -> Option<(usize, usize)> {
        let open = s.find('(')?;
        let close = s[open..].find(')')? + open;
        Some((open, close))
    };
    let (server, client) = match r.split_once(" != ") {
        Some((l, rr)) => (
            paren(l).map(|(o, c)| &l[o + 1..c]),
            paren(rr).map(|(o, c)| &rr[o + 1..c]),
        ),
        None => (None, None),
    };
    Msg::NotValid {
        name,
        index: None,
        client,
        server,
        by: None,
        punct: Side::Client,
    }
}

fn v1_track(rest: &str) -> Msg<'_> {
    let Some(ts) = ts_after(rest, "Timestamp = ") else {
        return Msg::Unknown;
    };
    let index = || {
        let head = rest.split(':').next().unwrap_or("");
        head.rsplit(' ')
            .find(|w| !w.is_empty())
            .and_then(|w| w.parse().ok())
            .unwrap_or(1)
    };
    if rest.starts_with("Client move execution result") {
        Msg::Executed { ts, delta: None }
    } else if rest.starts_with("Client sent move") {
        Msg::Sent {
            index: index(),
            of: None,
            ts,
        }
    } else if rest.starts_with("Server received move") {
        Msg::ServerReceived { ts }
    } else if rest.starts_with("Server move execution result (raw)") {
        Msg::ServerExecuted { ts, delta: None }
    } else if rest.starts_with("Server move execution result (resolved)") {
        Msg::ServerValidated { ts }
    } else if rest.starts_with("Server sent state") {
        Msg::ServerSavedReply { ts }
    } else if rest.starts_with("Client received state") {
        Msg::ReplyReceived { ts }
    } else {
        Msg::Unknown
    }
}

fn v1_replay(rest: &str) -> Msg<'_> {
    if rest.starts_with("--- Replay Start") {
        Msg::Replay(ReplayStage::Start)
    } else if rest.starts_with("--- Replay End") {
        Msg::Replay(ReplayStage::End)
    } else if rest.starts_with("Received Server State") {
        match ts_after(rest, ".Timestamp = ") {
            Some(ts) => Msg::Replay(ReplayStage::Source(ts)),
            None => Msg::Unknown,
        }
    } else if rest.starts_with("Replaying ---> ") {
        Msg::Replay(ReplayStage::ReplayedMove)
    } else if rest.starts_with("Initial Client State")
        || rest.starts_with("Updated Client State")
        || rest.starts_with("Clearing Moves")
    {
        Msg::Known
    } else {
        Msg::Unknown
    }
}

fn v1_iteration(rest: &str) -> Msg<'_> {
    if rest.contains("--> IN")
        && let Some(ts) = ts_after(rest, "Timestamp = ")
    {
        return Msg::IterationStarted { ts };
    }
    Msg::Known
}

/// Lines kept as warnings in the event log (moves discarded or not executed, limits hit), the
/// 1.x correction line, and the lines read but not needed.
fn notice(msg: &str) -> Option<Msg<'_>> {
    if msg.starts_with("Client was corrected by server") {
        let original = triple_after(msg, "original location = ")?;
        let corrected = triple_after(msg, "corrected location = ")?;
        return Some(Msg::Replay(ReplayStage::Corrected {
            original,
            corrected,
        }));
    }
    const NOTICES: [&str; 7] = [
        "Client move was discarded",
        "Prediction history limit",
        "Remote timestamps were not valid",
        "The server executed a proxy move",
        "No valid source move for",
        "Reached maximum amount of",
        "No state old enough to interpolate",
    ];
    if msg.starts_with("No valid source move for") {
        return Some(Msg::AdoptedWithoutReplay);
    }
    if NOTICES.iter().any(|n| msg.starts_with(n)) {
        return Some(Msg::Notice(msg));
    }
    if msg == "Replay not allowed."
        || msg.starts_with("Client state is deviating but a replay from an invalid source")
    {
        return Some(Msg::ReplayNotAllowed);
    }
    if msg.starts_with("Pawn state was extrapolated") {
        return Some(Msg::Smoothing {
            extrapolating: true,
            now: number_after(msg, "simulation time = "),
        });
    }
    const KNOWN: [&str; 12] = [
        "Dynamic buffer time ::: ",
        "Resuming interpolation",
        "No smoothing was applied",
        "Elapsed time since last valid",
        "Client move history is empty",
        "No source move found",
        "Client world time was",
        "Queried server time",
        "Client move was executed with the local delta",
        "Unreliable client move transmission",
        "SmoothingLog: ",
        "SimulatedTickLog: ",
    ];
    KNOWN
        .iter()
        .any(|k| msg.starts_with(k))
        .then_some(Msg::Known)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: f64) -> Ts {
        Ts::from_secs(s)
    }

    #[test]
    fn the_move_trace_headers() {
        assert_eq!(
            classify(
                "Client move trace ::: Client executed local move with timestamp 52.183331 s and delta time 0.016667 s."
            ),
            Msg::Executed {
                ts: ts(52.183331),
                delta: Some(0.016667)
            }
        );
        assert_eq!(
            classify(
                "Client move trace ::: Client sent move 2/3 with timestamp 1.000000 s and delta time 0.010000 s."
            ),
            Msg::Sent {
                index: 2,
                of: Some(3),
                ts: ts(1.0)
            }
        );
        assert_eq!(
            classify(
                "Client move trace ::: Client received autonomous proxy move with timestamp 1.000000 s and delta time -1.000000 s."
            ),
            Msg::ReplyReceived { ts: ts(1.0) }
        );
        assert_eq!(
            classify("Client move trace ::: Bool:  [0] true  [1] false"),
            Msg::DumpValue {
                name: "Bool",
                value: "[0] true  [1] false"
            }
        );
    }

    #[test]
    fn the_four_not_valid_forms() {
        let client_single = classify(
            "ActorLocation was not valid: client value = X=1.00 Y=2.00 Z=3.00, server value = X=1.00 Y=2.50 Z=3.00",
        );
        let server_multi = classify(
            "SinglePrecisionFloat[1] was not valid: client value = 0.500000, server value = 0.250000",
        );
        let client_multi =
            classify("Bool[2] was not valid:  client value = true  server value = false");
        let server_single = classify(
            "LinearVelocity was not valid:  client value = X=1.00 Y=0.00 Z=0.00  server value = X=2.00 Y=0.00 Z=0.00",
        );
        assert_eq!(
            client_single,
            Msg::NotValid {
                name: "ActorLocation",
                index: None,
                client: Some("X=1.00 Y=2.00 Z=3.00"),
                server: Some("X=1.00 Y=2.50 Z=3.00"),
                by: None,
                punct: Side::Client
            }
        );
        assert_eq!(
            server_multi,
            Msg::NotValid {
                name: "SinglePrecisionFloat",
                index: Some(1),
                client: Some("0.500000"),
                server: Some("0.250000"),
                by: None,
                punct: Side::Server
            }
        );
        assert_eq!(
            client_multi,
            Msg::NotValid {
                name: "Bool",
                index: Some(2),
                client: Some("true"),
                server: Some("false"),
                by: None,
                punct: Side::Client
            }
        );
        assert_eq!(
            server_single,
            Msg::NotValid {
                name: "LinearVelocity",
                index: None,
                client: Some("X=1.00 Y=0.00 Z=0.00"),
                server: Some("X=2.00 Y=0.00 Z=0.00"),
                by: None,
                punct: Side::Server
            }
        );
        // A sentence about a source move is not a bound value.
        assert_eq!(
            classify("Source move with timestamp 2.500000 s was not valid."),
            Msg::SourceNotValid { ts: ts(2.5) }
        );
    }

    #[test]
    fn v1_lines() {
        assert_eq!(
            classify(
                "TrackClientMove: Client sent move (quantized)             3 : Timestamp =    12.345678 (ClientWorldTime =    12.350000) | InputVector = 1, 0, 0 |"
            ),
            Msg::Sent {
                index: 3,
                of: None,
                ts: ts(12.345678)
            }
        );
        assert_eq!(
            classify(
                "Bound data deviates: ServerState_AutonomousProxy.Float1  (1.500000) != SourceMove.OutFloat1  (2.000000)"
            ),
            Msg::NotValid {
                name: "Float1",
                index: None,
                client: Some("2.000000"),
                server: Some("1.500000"),
                by: None,
                punct: Side::Client
            }
        );
        assert_eq!(
            classify(
                "Client velocity deviates by 12.000000 > 5.000000 (tolerance): SourceMove.Timestamp = 3.000000 | ServerState.Velocity =  1.0, 2.0, 3.0 | SourceMove.OutVelocity =  1.0, 2.0, 15.0"
            ),
            Msg::NotValid {
                name: "velocity",
                index: None,
                client: Some("1.0, 2.0, 15.0"),
                server: Some("1.0, 2.0, 3.0"),
                by: Some((12.0, 5.0)),
                punct: Side::Client
            }
        );
        match classify(
            "ClientReplayLog: Received Server State              : .Timestamp =     12.346 |",
        ) {
            Msg::Replay(ReplayStage::Source(t)) => assert!(t.matches(ts(12.345678))),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn replay_results_and_clock() {
        assert_eq!(classify("Replayed 7 moves."), Msg::Replayed { moves: 7 });
        assert_eq!(
            classify(
                "Replayed client actor location differs by 3.25 cm from the original location."
            ),
            Msg::DiffersBy {
                what: "location",
                amount: 3.25
            }
        );
        assert_eq!(
            classify(
                "Synced client world time with server, time discrepancy was 0.300000 s (max allowed is 0.250000 s): new world time = 10.500000 s | old world time = 10.200000 s | ping = 80 ms | jitter = 4 ms"
            ),
            Msg::ClockSynced {
                new_time: 10.5,
                old_time: Some(10.2),
                ping_ms: Some(80.0)
            }
        );
        assert_eq!(classify("Something a later GMC prints."), Msg::Unknown);
    }
}
