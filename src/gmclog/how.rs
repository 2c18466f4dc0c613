//! What to turn on in a game for a log movescope can read: console commands, the
//! `DefaultEngine.ini` lines that keep them on, what each adds and what it costs.

/// One thing to turn on.
pub struct Switch {
    /// The console command.
    pub command: &'static str,
    /// What it adds in movescope.
    pub adds: &'static str,
    /// Lines it writes.
    pub cost: &'static str,
}

/// In order of use: the first two give moves, corrections and the deviating value.
pub const SWITCHES: [Switch; 7] = [
    Switch {
        command: "gmc.LogClientMoveTrace 1",
        adds: "every move: executed (each version of a combined move), sent, received, executed and validated by the server, the reply received; move timestamps, deltas, frames per move, move age, moves per server frame, and pairing of the client's and the server's logs",
        cost: "about 8 header lines per move plus its input and output dumps (1 line per bound type): roughly 40-80 lines per move",
    },
    Switch {
        command: "Log LogGMCReplication Verbose",
        adds: "which bound value failed validation, with the client's and the server's value (the doctor names it); who found it; `Replayed N moves.` (replay depth); how far the replay moved the pawn",
        cost: "a few lines per correction, nothing per move",
    },
    Switch {
        command: "gmc.LogClientReplay 1",
        adds: "each replay as a block: the server's move, the state before, adopted and after",
        cost: "4 dumps per correction (1 line per bound type each)",
    },
    Switch {
        command: "gmc.LogNetWorldTime 1",
        adds: "the world time against the wall clock each frame: the exact anchor that puts a client's and a server's log on one time axis (without it the axis is estimated from move timestamps)",
        cost: "1 line per frame per player controller",
    },
    Switch {
        command: "Log LogGMCController VeryVerbose",
        adds: "clock re-syncs (new and old world time, ping, jitter) as events, and the round trip",
        cost: "1 line per frame (time adjustments) plus one per re-sync",
    },
    Switch {
        command: "Log LogGMCMovement VeryVerbose",
        adds: "each iteration of each move: sub-steps per move, and the moves each replay re-ran",
        cost: "2 lines per iteration (on every role)",
    },
    Switch {
        command: "gmc.LogSmoothing 1",
        adds: "how simulated proxies are shown (interpolating or extrapolating)",
        cost: "very chatty: 6 lines and 5 dumps per proxy per frame; turn on only briefly",
    },
];

/// The one-line hint for a log with nothing to read.
pub const ONE_LINE: &str = "turn on `gmc.LogClientMoveTrace 1` and `Log LogGMCReplication Verbose` in the game (see `movescope import --how`)";

/// The whole text of `movescope import --how`.
pub fn text() -> String {
    let mut s = String::from(
        "What to turn on in your game for a log movescope can open\n\
         ==========================================================\n\n\
         GMC writes its traces only in builds with logging (Development/DebugGame, not Shipping).\n\
         Type these in the game's console (` key) on every machine (server and clients), or\n\
         start the game with -ExecCmds=\"gmc.LogClientMoveTrace 1, Log LogGMCReplication Verbose\".\n\n",
    );
    for (i, sw) in SWITCHES.iter().enumerate() {
        s.push_str(&format!(
            "{}. {}\n   adds: {}\n   cost: {}\n\n",
            i + 1,
            sw.command,
            sw.adds,
            sw.cost
        ));
    }
    s.push_str(
        "To keep them on in every run, add to Config/DefaultEngine.ini:\n\n\
         [ConsoleVariables]\n\
         gmc.LogClientMoveTrace=1\n\
         gmc.LogClientReplay=1\n\
         gmc.LogNetWorldTime=1\n\n\
         [Core.Log]\n\
         LogGMCReplication=Verbose\n\
         LogGMCController=VeryVerbose\n\n\
         The logs are in <Project>/Saved/Logs/ (one per process; a PIE session with several\n\
         players writes them all into one). Import the server's and each client's together:\n\n\
         movescope import Server.log Client1.log --component Source/MyGame/MyMovementCmp.h --out session.msrec\n\n\
         A 10-minute session with the move trace on writes hundreds of MB; movescope reads it\n\
         in one streaming pass (docs/gmc-logs.md).\n",
    );
    s
}

/// What would fill a plot that a game log left empty (`None`: the log gives it whenever it
/// gives moves).
pub fn silent_plot(metric: crate::session::store::Metric) -> &'static str {
    use crate::session::store::Metric as M;
    match metric {
        M::MoveTimestampOffset | M::MoveDelta | M::FramesPerMove | M::MoveAge => {
            "Not in this game log: the move trace gives it (gmc.LogClientMoveTrace 1; move age also needs the server's log)."
        }
        M::RemoteMovesPerFrame => {
            "Not in this game log: the server's move trace gives it (gmc.LogClientMoveTrace 1 on the server)."
        }
        M::Substeps => {
            "Not in this game log: sub-steps need each iteration's line (Log LogGMCMovement VeryVerbose)."
        }
        M::ReplayDepth => {
            "No replay depth in this game log (`Replayed N moves.` needs Log LogGMCReplication Verbose; a replay block shows with gmc.LogClientReplay 1)."
        }
        M::CorrectionError => {
            "No error ÷ tolerance in this game log: GMC 2.x prints a deviation's two values but not its tolerance (the event log and the doctor give the difference); GMC 1.x prints both. Deviations need Log LogGMCReplication Verbose."
        }
        M::Rtt => {
            "Not in this game log: the round trip comes with clock re-syncs (Log LogGMCController VeryVerbose) or 1.x's world-time lines."
        }
        M::ClockOffset => {
            "A game log gives no clock offset: movescope measures it only in sessions it simulates (clock re-syncs show in the event log)."
        }
        M::InterpDelay => {
            "A game log gives no display delay of proxies (gmc.LogSmoothing 1 shows interpolating and extrapolating in the buffer view)."
        }
        M::BytesSent => "A game log gives no bytes on the wire.",
        M::OwnInputDelay => {
            "A game log gives no owner's wait: it needs the pawn's role on its client and the display delay of proxies, which the log does not print."
        }
    }
}
