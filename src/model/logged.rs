//! What a game's own log says, as records: an imported session carries, beside the records
//! every session has, the evidence GMC printed about the moves around each desync — each
//! machine's dumps of a move (the state it began from and the state it ended with), each side's
//! validation verdicts with the lines they were read from, and what the logs hold at all. The
//! doctor reads these; nothing in the move cycle produces them.
//!
//! Invariant: every value here is one GMC printed, quoted from a line whose file and number
//! are kept ([`LogLine`]); nothing is computed or filled in where the log is silent.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::binding::Value;
use super::deviation::Deviation;

/// One line of one of the imported files (`file` indexes [`LogContents::files`]; `line` is
/// 1-based, as an editor counts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LogLine {
    pub file: u16,
    pub line: u64,
}

/// Where in GMC's move cycle a move was dumped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum LoggedStage {
    /// The client's last execution of the move before it was sent (`Client executed local
    /// move`): Input state = the state the move began from (a combined move is executed again
    /// from the same start every frame), Output state = its prediction.
    ClientExecuted,
    /// The server executed the client's move (`Server executed remote move`): Input state =
    /// the state the server's pawn began it from, Output state = the server's own result
    /// before validation.
    ServerExecuted,
    /// The server's pawn after validating the move (`Server validated remote move`): the state
    /// the next move begins from, unless something writes it in between.
    ServerValidated,
    /// The reply the server saved for the client (`Server saved autonomous proxy move`).
    ServerSavedReply,
    /// The reply as the client received it (`Client received autonomous proxy move`).
    ReplyReceived,
}

impl LoggedStage {
    pub fn on_server(self) -> bool {
        matches!(
            self,
            LoggedStage::ServerExecuted
                | LoggedStage::ServerValidated
                | LoggedStage::ServerSavedReply
        )
    }

    /// The trace line's words, as an engineer finds it in the log.
    pub fn gmc_line(self) -> &'static str {
        match self {
            LoggedStage::ClientExecuted => "Client executed local move",
            LoggedStage::ServerExecuted => "Server executed remote move",
            LoggedStage::ServerValidated => "Server validated remote move",
            LoggedStage::ServerSavedReply => "Server saved autonomous proxy move",
            LoggedStage::ReplyReceived => "Client received autonomous proxy move",
        }
    }
}

/// A value as a dump printed it: its name (the component's member, or GMC's `Type[index]`,
/// or an integrated value's name), the value read from the text, and the text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggedValue {
    pub name: Arc<str>,
    pub value: Value,
    pub text: Arc<str>,
    /// The dump line it was printed on.
    pub at: LogLine,
}

/// One move as one machine dumped it at one stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggedMove {
    /// The session time of its trace header line.
    pub t: f64,
    pub client: u16,
    pub move_id: u32,
    /// GMC's move identity, as printed.
    pub timestamp: f64,
    /// The delta time printed with it (NaN: not printed).
    pub delta: f64,
    pub stage: LoggedStage,
    /// The `Input state:` dump (empty: not printed).
    pub input: Vec<LoggedValue>,
    /// The `Output state:` dump (empty: not printed).
    pub output: Vec<LoggedValue>,
    /// The header line of the trace block.
    pub at: LogLine,
}

impl LoggedMove {
    pub fn input_value(&self, name: &str) -> Option<&LoggedValue> {
        self.input.iter().find(|v| &*v.name == name)
    }

    pub fn output_value(&self, name: &str) -> Option<&LoggedValue> {
        self.output.iter().find(|v| &*v.name == name)
    }
}

/// Which machine's validation a verdict came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CheckSide {
    /// `CL_ShouldReplay`: the client compared the server's reply with its own source move.
    Client,
    /// `SV_ApplyValidatedState`: the server compared the values the client sent with its own.
    Server,
}

/// Which state failed validation, as the verdict line says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CheckedState {
    Input,
    Output,
}

/// One failed validation of one move on one side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggedCheck {
    pub client: u16,
    pub move_id: u32,
    pub timestamp: f64,
    pub side: CheckSide,
    /// `None` when no line said which state (GMC 1.x, or a verdict line missing).
    pub state: Option<CheckedState>,
    /// The values its lines named (GMC prints the first deviating one unless
    /// `gmc.ForceFullSyncDataValidation` is on).
    pub deviations: Vec<Deviation>,
    /// The per-value lines and the verdict lines, in the order they were read.
    pub lines: Vec<LogLine>,
    /// Whether the per-value lines' punctuation is the one GMC's code prints on `side` (the
    /// client and the server print the same sentence with different punctuation).
    pub punctuation_agrees: bool,
}

/// One imported file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogFile {
    /// Its name as given to the import (file name only).
    pub name: String,
    /// `2` or `1`: the GMC generation its lines are in (0: no GMC line).
    pub gmc: u8,
    /// Holds a server's lines (a server copy or a server-controlled pawn).
    pub server: bool,
    /// Clients whose own, predicted pawn logged in it.
    pub clients: Vec<u16>,
    /// How its times were put on the session's axis, in words.
    pub clock: String,
}

/// Which kinds of lines the logs hold (what each console variable or verbosity adds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogKinds {
    /// `gmc.LogClientMoveTrace`.
    pub move_trace: bool,
    /// The trace's Input/Output state dumps.
    pub dumps: bool,
    /// Validation lines (`Log LogGMCReplication Verbose`).
    pub validation: bool,
    /// Any Verbose or VeryVerbose `LogGMCReplication` line (had a value failed validation, its
    /// lines would be there).
    pub verbose: bool,
    /// `gmc.LogClientReplay` blocks.
    pub replay_block: bool,
    /// `Replayed N moves.`
    pub replayed_count: bool,
    /// `LogGMCMovement VeryVerbose` iterations.
    pub iterations: bool,
    /// `gmc.LogNetWorldTime`.
    pub world_time: bool,
    /// Clock re-syncs (`LogGMCController VeryVerbose`).
    pub clock_sync: bool,
    /// `gmc.LogNumExecutedRemoteMoves`.
    pub executed_counts: bool,
    /// A ping printed (GMC 1.x `UtcNow … | Ping =`, a clock re-sync's `ping =`).
    pub pings: bool,
}

/// What a member's code does, from `movescope lint`'s reading of the component named at
/// import: where it is written, and what the lint found on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemberCode {
    pub member: String,
    /// How GMC names it in a dump (`SinglePrecisionFloat[0]`), when it is bound.
    pub logged_as: Option<String>,
    /// The binding's prediction mode, as written (when it is bound).
    pub mode: Option<String>,
    pub writes: Vec<WriteSite>,
    /// Lint findings on the member: `rule: message (file:line)`.
    pub findings: Vec<String>,
}

/// One place a component writes a member.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WriteSite {
    /// `UMyCmp::ApplyPenalty`.
    pub function: String,
    /// The GMC hook it runs in when on the prediction path (`GenPredictionTick`), `None` when
    /// the lint finds no path from a hook to it (outside the move cycle).
    pub hook: Option<String>,
    /// The conditions it is written under, innermost first (`HasAuthority()`).
    pub guard: Option<String>,
    /// The statement, as written.
    pub statement: String,
    /// `MyCmp.cpp:42`.
    pub place: String,
}

/// What the imported logs hold: the files, the GMC generation, the kinds of lines, which
/// machines logged, and the component's code when one was named.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LogContents {
    pub files: Vec<LogFile>,
    pub kinds: LogKinds,
    /// Clients whose own log (their predicted pawn's lines) is present.
    pub client_logs: Vec<u16>,
    /// Clients whose pawn's server copy logged (the server's view of them is present).
    pub server_copies: Vec<u16>,
    /// The component that named the values (`UMyCmp (MyCmp.h)`), if any.
    pub component: Option<String>,
    /// Its members' code.
    pub code: Vec<MemberCode>,
}

impl LogContents {
    /// `client.log:12`.
    pub fn place(&self, at: LogLine) -> String {
        let name = self
            .files
            .get(usize::from(at.file))
            .map_or("?", |f| f.name.as_str());
        format!("{name}:{}", at.line)
    }

    /// The GMC generation of the logs: 1 when every GMC line is 1.x, else 2.
    pub fn gmc(&self) -> u8 {
        if self.files.iter().all(|f| f.gmc == 1 || f.gmc == 0)
            && self.files.iter().any(|f| f.gmc == 1)
        {
            1
        } else {
            2
        }
    }

    pub fn has_client_log(&self, client: u16) -> bool {
        self.client_logs.contains(&client)
    }

    pub fn has_server_copy(&self, client: u16) -> bool {
        self.server_copies.contains(&client)
    }

    pub fn code_of(&self, member: &str) -> Option<&MemberCode> {
        self.code
            .iter()
            .find(|c| c.member == member || c.logged_as.as_deref() == Some(member))
    }
}
