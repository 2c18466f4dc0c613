//! What a condition can be on each machine a move runs on: the owning client live and in a
//! replay, the server executing a client's move and its own pawn's, and a simulated proxy's
//! simulated execution. A guard is read from what its condition evaluates to there (three
//! values: true, false, cannot tell), not from the words it contains: `ROLE_Authority ||
//! ROLE_AutonomousProxy` is true on the owner, so it guards nothing from a replay, and
//! `IsPlayerControlled()` is true in the owner's replays too.
//!
//! The role and execution queries and what they return per machine come from the source
//! document ("Roles", "Side effects": the machine table) and GMC's replication component.

/// A machine and kind of execution the prediction path runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum World {
    /// The owning client's live move.
    OwnerLive,
    /// The owning client replaying a move after a correction (`CL_IsReplaying()`).
    OwnerReplay,
    /// The server executing a move a client sent.
    ServerRemote,
    /// The server's own pawn: a listen host's, an AI's, a standalone game's.
    ServerLocal,
    /// A simulated execution (`IsSimulatedMove()`): a proxy's forward simulation, a rollback.
    Simulated,
}

pub const WORLDS: [World; 5] = [
    World::OwnerLive,
    World::OwnerReplay,
    World::ServerRemote,
    World::ServerLocal,
    World::Simulated,
];

/// Per world: `Some(value)` when the condition is known there.
pub type Truth = [Option<bool>; 5];

/// Network roles in UE's order (`ENetRole`), as a set of the possible ones.
const ROLE_NONE: u8 = 1;
const ROLE_SIM: u8 = 2;
const ROLE_AUTO: u8 = 4;
const ROLE_AUTH: u8 = 8;
/// Net modes in UE's order (`ENetMode`).
const NM_STANDALONE: u8 = 1;
const NM_DEDICATED: u8 = 2;
const NM_LISTEN: u8 = 4;
const NM_CLIENT: u8 = 8;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    Bool(Option<bool>),
    /// A role: the set it can be, in order bits (`ROLE_*`).
    Role(u8),
    /// A net mode: the set it can be (`NM_*`).
    Net(u8),
    Unknown,
}

impl Val {
    fn truth(self) -> Option<bool> {
        match self {
            Val::Bool(b) => b,
            _ => None,
        }
    }
}

fn w(world: World) -> usize {
    WORLDS.iter().position(|x| *x == world).unwrap_or(0)
}

/// `[owner live, owner replay, server remote, server local, simulated]`.
type Row = [Option<bool>; 5];
const T: Option<bool> = Some(true);
const F: Option<bool> = Some(false);
const U: Option<bool> = None;

/// What a query returns in each world (`None`: not a query the lint knows).
fn query(name: &str) -> Option<Row> {
    Some(match name {
        "CL_IsReplaying" | "IsReplaying" | "bIsReplaying" => [F, T, F, F, F],
        "IsSimulatedMove" | "IsExecutingSimulatedMove" => [F, F, F, F, T],
        "IsLocalMove" => [T, F, F, T, F],
        "HasAuthority" | "IsServerPawn" | "IsServer" => [F, F, T, T, F],
        "IsNetworkedServer" => [F, F, T, U, F],
        "IsClient" | "IsClientPawn" => [T, T, F, F, T],
        "IsAutonomousProxy" | "IsPredictedAutonomousProxy" => [T, T, F, F, F],
        "IsSimulatedProxy" => [F, F, F, F, T],
        "IsLocallyControlled" | "IsLocalController" | "IsLocalPlayerController" => [T, T, F, U, F],
        "IsPlayerControlled" => [T, T, T, U, U],
        "IsBotControlled" => [F, F, F, U, U],
        "IsLocallyControlledServerPawn"
        | "IsLocallyControlledDedicatedServerPawn"
        | "IsLocallyControlledListenServerPawn" => [F, F, F, T, F],
        "IsRemotelyControlledServerPawn" | "SV_IsExecutingRemoteMoves" => [F, F, T, F, F],
        "IsSmoothedListenServerPawn" => [F, F, F, F, U],
        "IsServerBot" | "ShouldComputeAvoidance" => [F, F, F, U, F],
        "IsRunningDedicatedServer" | "IsDedicatedServer" | "IsListenServer" => [F, F, U, U, F],
        // Build configurations (`#if UE_SERVER`): a client build is never a server build.
        "UE_SERVER" => [F, F, U, U, F],
        _ => return None,
    })
}

fn local_role(world: World) -> u8 {
    match world {
        World::OwnerLive | World::OwnerReplay => ROLE_AUTO,
        World::ServerRemote | World::ServerLocal => ROLE_AUTH,
        World::Simulated => ROLE_SIM,
    }
}

fn remote_role(world: World) -> u8 {
    match world {
        World::OwnerLive | World::OwnerReplay | World::Simulated => ROLE_AUTH,
        World::ServerRemote => ROLE_AUTO,
        World::ServerLocal => ROLE_SIM | ROLE_NONE,
    }
}

fn net_mode(world: World) -> u8 {
    match world {
        World::OwnerLive | World::OwnerReplay | World::Simulated => NM_CLIENT,
        World::ServerRemote => NM_DEDICATED | NM_LISTEN,
        World::ServerLocal => NM_STANDALONE | NM_DEDICATED | NM_LISTEN,
    }
}

fn role_const(name: &str) -> Option<u8> {
    Some(match name {
        "ROLE_None" => ROLE_NONE,
        "ROLE_SimulatedProxy" => ROLE_SIM,
        "ROLE_AutonomousProxy" => ROLE_AUTO,
        "ROLE_Authority" => ROLE_AUTH,
        _ => return None,
    })
}

fn net_const(name: &str) -> Option<u8> {
    Some(match name {
        "NM_Standalone" => NM_STANDALONE,
        "NM_DedicatedServer" => NM_DEDICATED,
        "NM_ListenServer" => NM_LISTEN,
        "NM_Client" => NM_CLIENT,
        _ => return None,
    })
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Op(&'static str),
    Open(char),
    Close(char),
    Other,
}

fn tokens(text: &str) -> Vec<Tok> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(text[start..i].to_string()));
        } else {
            let two = b.get(i..i + 2).unwrap_or(&[]);
            let op = match two {
                b"&&" => Some("&&"),
                b"||" => Some("||"),
                b"==" => Some("=="),
                b"!=" => Some("!="),
                b"<=" => Some("<="),
                b">=" => Some(">="),
                b"->" => Some("->"),
                b"::" => Some("::"),
                _ => None,
            };
            if let Some(op) = op {
                out.push(Tok::Op(op));
                i += 2;
                continue;
            }
            out.push(match c {
                b'!' => Tok::Op("!"),
                b'<' => Tok::Op("<"),
                b'>' => Tok::Op(">"),
                b'.' => Tok::Op("."),
                b'(' | b'[' | b'{' => Tok::Open(c as char),
                b')' | b']' | b'}' => Tok::Close(c as char),
                _ => Tok::Other,
            });
            i += 1;
        }
    }
    out
}

/// Evaluates a condition in one world. `local` gives the initialiser of a local name (a
/// `const bool bLive = …` guard), followed at most `depth` deep.
struct Eval<'a> {
    toks: Vec<Tok>,
    at: usize,
    world: World,
    local: &'a dyn Fn(&str) -> Option<String>,
    depth: u8,
}

impl Eval<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn eat(&mut self, op: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
            || matches!(self.peek(), Some(Tok::Ident(i)) if (op == "&&" && i == "and") || (op == "||" && i == "or") || (op == "!" && i == "not"))
        {
            self.at += 1;
            return true;
        }
        false
    }

    fn or(&mut self) -> Val {
        let mut v = self.and();
        while self.eat("||") {
            let r = self.and();
            v = Val::Bool(match (v.truth(), r.truth()) {
                (Some(true), _) | (_, Some(true)) => T,
                (Some(false), Some(false)) => F,
                _ => U,
            });
        }
        v
    }

    fn and(&mut self) -> Val {
        let mut v = self.cmp();
        while self.eat("&&") {
            let r = self.cmp();
            v = Val::Bool(match (v.truth(), r.truth()) {
                (Some(false), _) | (_, Some(false)) => F,
                (Some(true), Some(true)) => T,
                _ => U,
            });
        }
        v
    }

    fn cmp(&mut self) -> Val {
        let a = self.unary();
        let op = match self.peek() {
            Some(Tok::Op(o)) if matches!(*o, "==" | "!=" | "<" | ">" | "<=" | ">=") => *o,
            _ => return a,
        };
        self.at += 1;
        let b = self.unary();
        Val::Bool(compare(a, op, b))
    }

    fn unary(&mut self) -> Val {
        if self.eat("!") {
            return match self.unary() {
                Val::Bool(b) => Val::Bool(b.map(|x| !x)),
                _ => Val::Bool(U),
            };
        }
        if matches!(self.peek(), Some(Tok::Open('('))) {
            self.at += 1;
            let v = self.or();
            self.skip_to_close();
            return v;
        }
        self.atom()
    }

    /// Skips past the `)` that closes the group just evaluated (anything unread inside it
    /// makes the group's value unknowable, but a well-formed condition has none).
    fn skip_to_close(&mut self) {
        let mut depth = 0usize;
        while let Some(t) = self.peek().cloned() {
            self.at += 1;
            match t {
                Tok::Open(_) => depth += 1,
                Tok::Close(_) if depth == 0 => return,
                Tok::Close(_) => depth -= 1,
                _ => {}
            }
        }
    }

    /// A postfix expression: names joined by `::`, `->`, `.`, with call and index groups. Its
    /// value comes from the last name called or read.
    fn atom(&mut self) -> Val {
        let mut last: Option<String> = None;
        let mut called = false;
        let mut parts = 0usize;
        loop {
            match self.peek().cloned() {
                Some(Tok::Ident(id))
                    if parts == 0
                        || !matches!(
                            self.toks.get(self.at - 1),
                            Some(Tok::Ident(_) | Tok::Close(_))
                        ) =>
                {
                    self.at += 1;
                    last = Some(id);
                    called = false;
                    parts += 1;
                }
                Some(Tok::Op("::" | "->" | ".")) => {
                    self.at += 1;
                }
                Some(Tok::Open(c)) if parts > 0 => {
                    let args_start = self.at + 1;
                    self.at += 1;
                    self.skip_to_close();
                    if c == '(' {
                        called = true;
                        // `IsNetMode(NM_Client)`: the mode is the argument.
                        if last.as_deref() == Some("IsNetMode") {
                            let hit = arg_mask(&self.toks[args_start..self.at.saturating_sub(1)]);
                            let m = net_mode(self.world);
                            return Val::Bool(if hit == 0 {
                                U
                            } else if m & hit == 0 {
                                F
                            } else if m & !hit == 0 {
                                T
                            } else {
                                U
                            });
                        }
                    }
                }
                _ => break,
            }
        }
        let Some(name) = last else {
            return Val::Unknown;
        };
        self.name_value(&name, called)
    }

    fn name_value(&self, name: &str, called: bool) -> Val {
        if let Some(row) = query(name) {
            return Val::Bool(row[w(self.world)]);
        }
        match name {
            "true" => return Val::Bool(T),
            "false" => return Val::Bool(F),
            "GetLocalRole" | "GetOwnerRole" | "GetRole" | "Role" => {
                return Val::Role(local_role(self.world));
            }
            "GetRemoteRole" | "RemoteRole" => return Val::Role(remote_role(self.world)),
            "GetNetMode" => return Val::Net(net_mode(self.world)),
            _ => {}
        }
        if let Some(r) = role_const(name) {
            return Val::Role(r);
        }
        if let Some(n) = net_const(name) {
            return Val::Net(n);
        }
        if !called
            && self.depth < 4
            && let Some(init) = (self.local)(name)
        {
            let mut e = Eval {
                toks: tokens(&init),
                at: 0,
                world: self.world,
                local: self.local,
                depth: self.depth + 1,
            };
            return e.or();
        }
        Val::Unknown
    }
}

fn arg_mask(toks: &[Tok]) -> u8 {
    toks.iter()
        .filter_map(|t| match t {
            Tok::Ident(i) => net_const(i),
            _ => None,
        })
        .fold(0, |a, b| a | b)
}

/// `a op b` over the sets of values each side can have: known when every pair agrees.
fn compare(a: Val, op: &str, b: Val) -> Option<bool> {
    let (x, y) = match (a, b) {
        (Val::Role(x), Val::Role(y)) | (Val::Net(x), Val::Net(y)) => (x, y),
        (Val::Bool(x), Val::Bool(y)) => {
            let (x, y) = (x?, y?);
            return match op {
                "==" => Some(x == y),
                "!=" => Some(x != y),
                _ => None,
            };
        }
        _ => return None,
    };
    let mut seen = (false, false);
    for i in 0..8u8 {
        for j in 0..8u8 {
            if x & (1 << i) == 0 || y & (1 << j) == 0 {
                continue;
            }
            let r = match op {
                "==" => i == j,
                "!=" => i != j,
                "<" => i < j,
                ">" => i > j,
                "<=" => i <= j,
                _ => i >= j,
            };
            if r {
                seen.0 = true;
            } else {
                seen.1 = true;
            }
        }
    }
    match seen {
        (true, false) => T,
        (false, true) => F,
        _ => U,
    }
}

/// What `text` evaluates to in `world`.
pub fn truth_in(text: &str, world: World, local: &dyn Fn(&str) -> Option<String>) -> Option<bool> {
    let mut e = Eval {
        toks: tokens(text),
        at: 0,
        world,
        local,
        depth: 0,
    };
    let v = e.or();
    // Something left unread (an operator the lint does not evaluate): cannot tell.
    if e.at < e.toks.len() {
        return None;
    }
    v.truth()
}

/// [`truth_in`] for every world.
pub fn truth(text: &str, local: &dyn Fn(&str) -> Option<String>) -> Truth {
    WORLDS.map(|world| truth_in(text, world, local))
}

/// Index of a world in a [`Truth`].
pub fn index(world: World) -> usize {
    w(world)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> Truth {
        truth(text, &|name| match name {
            "bLiveMove" => Some("!CL_IsReplaying() && !IsSimulatedMove()".into()),
            "bIsServer" => Some("GetOwnerRole() == ROLE_Authority".into()),
            _ => None,
        })
    }

    #[test]
    fn the_documents_guards_keep_code_off_replays_and_simulated_executions() {
        for g in [
            "!CL_IsReplaying() && !IsSimulatedMove()",
            "bLiveMove",
            "IsLocalMove()",
            "!(CL_IsReplaying() || IsSimulatedMove())",
            "bLiveMove && bWantsToFire",
        ] {
            let v = t(g);
            assert_eq!(v[1], F, "{g}: replay");
            assert_eq!(v[4], F, "{g}: simulated");
        }
    }

    #[test]
    fn role_tests_that_include_the_owner_guard_nothing_from_its_replays() {
        for g in [
            "GetLocalRole() == ROLE_Authority || GetLocalRole() == ROLE_AutonomousProxy",
            "!IsSimulatedProxy()",
            "IsPlayerControlled()",
            "PawnOwner->IsLocallyControlled()",
            "GetOwnerRole() >= ROLE_AutonomousProxy",
            "GetNetMode() == NM_Client",
        ] {
            assert_ne!(t(g)[1], F, "{g} holds (or may) in the owner's replay");
        }
        // Half the document's guard: off replays, but simulated executions run it.
        assert_eq!(t("!CL_IsReplaying()")[1], F);
        assert_eq!(t("!CL_IsReplaying()")[4], T);
    }

    #[test]
    fn server_only_tests_are_false_on_the_owner() {
        for g in [
            "GetOwner()->HasAuthority()",
            "GetLocalRole() == ROLE_Authority",
            "bIsServer",
            "GetNetMode() < NM_Client",
            "GetNetMode() != NM_Client",
            "IsNetMode(NM_DedicatedServer)",
            "SV_IsExecutingRemoteMoves()",
            "GetRemoteRole() == ROLE_AutonomousProxy",
        ] {
            let v = t(g);
            assert_eq!((v[0], v[1]), (F, F), "{g}");
        }
        assert_eq!(t("bEnableDash"), [U; 5]);
        assert_eq!(t("bEnableDash && HasAuthority()")[0], F);
        assert_eq!(t("bEnableDash || HasAuthority()")[2], T);
    }
}
