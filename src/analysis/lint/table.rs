//! The rule table: each rule's stable id, severity, why it matters in the source document's
//! terms, the fix, and the shipped lesson that shows it (docs/lint.md lists the same table).

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One rule of the table in docs/lint.md.
#[derive(Debug)]
pub struct Rule {
    pub id: &'static str,
    /// The usual severity (some rules raise or lower it per finding).
    pub severity: Severity,
    pub title: &'static str,
    pub why: &'static str,
    pub fix: &'static str,
    /// The shipped preset that shows what it does.
    pub pitfall: Option<&'static str>,
}

macro_rules! rules {
    ($($name:ident = $id:literal, $sev:ident, $pit:expr, $title:literal, $why:literal, $fix:literal;)*) => {
        $(pub const $name: &Rule = &Rule {
            id: $id, severity: Severity::$sev, title: $title, why: $why, fix: $fix, pitfall: $pit,
        };)*
        /// Every rule, in the order docs/lint.md lists them.
        pub const RULES: &[&Rule] = &[$($name),*];
    };
}

rules! {
    BIND_OUTSIDE = "bind-outside-bind-replication-data", Error, Some("pitfall-10-binding-mismatch"),
        "a value is bound outside BindReplicationData_Implementation",
        "bindings must be made in BindReplicationData_Implementation, before any net serialization, identically on every machine; a binding made elsewhere can exist on one machine and not the other, and bindings that differ corrupt every state the two exchange",
        "move the Bind call into BindReplicationData_Implementation (or a helper it calls), after Super";
    NO_SUPER = "bind-without-super", Error, Some("pitfall-10-binding-mismatch"),
        "BindReplicationData_Implementation does not call Super",
        "the base class's bindings (GMC's own among them) are then never made: the layout lacks them, and it differs from any machine whose code does call Super",
        "call Super::BindReplicationData_Implementation() first";
    BEFORE_SUPER = "bind-before-super", Warning, Some("pitfall-10-binding-mismatch"),
        "a value is bound before Super::BindReplicationData_Implementation",
        "the binding order is the wire layout and the comparison layout; the document's order is base, then derived, then the ability component last, so a base class that changes its bindings shifts yours",
        "call Super::BindReplicationData_Implementation() before the first Bind call";
    BOUND_TWICE = "bound-twice", Error, None,
        "the same member is bound twice",
        "bindings cannot be removed once made; two bindings of one member carry and compare it twice and make two indices for one value",
        "remove the second Bind call";
    CONDITIONAL = "binding-under-condition", Warning, Some("pitfall-10-binding-mismatch"),
        "a binding is made only when a condition holds",
        "the binding list must be identical on every machine; a condition that differs between them (net mode, role, authority) gives client and server different layouts, and every state they exchange is then misread",
        "bind unconditionally; decide in the tick what the value is used for";
    INPUT_COMBINES = "input-not-combine-if-unchanged", Warning, Some("pitfall-04-dash-always-combine"),
        "an input is not bound CombineIfUnchanged",
        "frames are combined into one move while the inputs allow it; an input bound AlwaysCombine keeps the first value of the window, so a one-frame press in the middle of a combined move never reaches the server",
        "bind player input ClientAuth_Input with EGMC_CombineMode::CombineIfUnchanged";
    INPUT_WRITTEN = "input-written-in-tick", Warning, Some("pitfall-12-input-written-by-tick"),
        "the prediction path writes a ClientAuth_Input value",
        "an input is the client's record of what the player did for that move; the server and every replay read it from the move, so a tick that changes it (a jump flag reset after use) acts on a value the next execution does not see",
        "a pulse the tick clears (a jump flag): clear it where input is gathered (PreLocalMoveExecution) instead; a value the tick derives (a gait, a stance): bind it ServerAuth_Output_ClientValidated, not as an input";
    WORLD_TIME = "world-time-in-tick", Warning, Some("pitfall-02a-wall-clock-in-tick"),
        "the prediction path reads the world or real clock",
        "the prediction tick must depend only on bound state and its DeltaTime; the clock reads differently on the client, on the server and in a replay of the same move, so their results differ and a correction follows",
        "use GetMoveTimestamp() (the move's own time) or a bound timer counted down with DeltaTime";
    FRAME_DELTA = "frame-delta-in-tick", Warning, Some("pitfall-02c-frame-delta-in-tick"),
        "the prediction path reads the frame's delta, or a value the last frame sampled, instead of the move's",
        "a move's delta is its own (combined, clamped, sub-stepped); the frame delta, and what TickComponent sampled in the last frame, are this machine's frame, which the server and a replay never see",
        "use the DeltaTime the hook is given (or GetMoveDeltaTime()); work a sampled value out in the move, or bind it";
    RANDOM = "unseeded-random-in-tick", Warning, Some("pitfall-02d-unseeded-random-in-tick"),
        "the prediction path draws an unseeded random number",
        "client, server and replay draw different numbers for the same move, so their results differ",
        "use GenerateNetRandomNumber / GenerateNetRandomAngle, or an FRandomStream seeded from bound state (e.g. the move timestamp) in the move";
    UNBOUND_STATE = "unbound-state-in-tick", Warning, Some("pitfall-01-unbound-member"),
        "a member carries state from move to move but is not bound",
        "bound values are the only state a replay restores; an unbound member the tick writes keeps its newest value while older moves are replayed on top of it, so the replay differs from the live run and the next correction is guaranteed",
        "bind it, recompute it at the start of every tick (PreMovementUpdate), or make it a local";
    SIDE_EFFECT = "unguarded-side-effect", Warning, Some("pitfall-05-unguarded-side-effects"),
        "a side effect on the prediction path runs on every execution of the move",
        "replays, combined re-runs and simulated executions run the same move again; a sound, effect, spawn, RPC or damage there happens again each time",
        "run it only on a live move: if (!CL_IsReplaying() && !IsSimulatedMove()) on the owner, !IsSimulatedMove() on the server; or react to a bound value in GenSimulationTick / WorldTickEnd";
    NOT_SEALED = "one-shot-not-sealed", Warning, Some("pitfall-03-one-shot-not-sealed"),
        "a one-shot is raised in a move that is not sealed",
        "the next frame is combined into the pending move and the tick runs again from the state before the event, so the event is raised a second time",
        "call CL_DoNotCombineNextMove() right after the event";
    SYNC_APPLIED = "transition-in-sync-applied", Warning, Some("pitfall-08-transition-in-sync-applied"),
        "a transition of a bound value is detected in OnSyncDataApplied",
        "OnSyncDataApplied fires every time a state is loaded, many times a frame during a replay and with historical values, so a change seen there may be a state from 100 ms ago about to be re-executed",
        "keep an unbound Last* copy and compare in WorldTickEnd_Implementation, in both directions";
    NOT_SIMULATED = "proxy-value-not-simulated", Warning, Some("pitfall-09-proxy-value-not-simulated"),
        "simulated proxies read a value bound SimulationMode None",
        "values bound SimulationMode None never reach simulated proxies; there the member keeps its default",
        "bind it with a SimulationMode other than None (Periodic_Output, or PeriodicAndOnChange_Output for a rare flag)";
    UNSEEN_CALL = "binding-call-unseen", Note, None,
        "bindings are made through a pointer in a function no BindReplicationData_Implementation in these files calls",
        "an ability component binds through the movement component; the lint cannot see where that function is called, and it must be called from BindReplicationData_Implementation, after everything else",
        "call it from the movement component's BindReplicationData_Implementation, last (or lint that file too)";
    HEADER_MISSING = "header-not-found", Note, None,
        "a component's class declaration was not read",
        "the rules about members need the class declaration (which names are members and of what type): without it the members are inferred from what the class's functions assign (not GMC's own), and unbound-state-in-tick, frame-delta-in-tick, input-written-in-tick for members, transition-in-sync-applied and the member-writes table run on those, missing members only read and types no write tells",
        "lint the header too (name the folder that holds both), or keep the header where its #include says";
    MODE_UNKNOWN = "mode-not-literal", Note, None,
        "a binding's mode is not written as an enumerator",
        "the lint cannot tell the mode, so the binding table shows it as unknown and the rules that need it skip the binding",
        "write the EGMC_* enumerator in the Bind call";
}

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.id == id)
}
