//! What every check shares: a [`Finding`], and the context a check runs in (the program,
//! the findings so far, and whether a step runs only on a live move or on one machine).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use super::guard::{self, World};
use super::program::{BindingRow, Program, Step};
use super::syntax::{CondKind, EventKind, Pos};
use super::table::{Rule, Severity};

/// One thing a rule found.
#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: &'static Rule,
    pub severity: Severity,
    pub file: usize,
    pub pos: Pos,
    pub message: String,
    pub component: String,
    /// The function it is in (for `allow` comments above it).
    pub func: Option<usize>,
}

pub(super) struct Ctx<'a> {
    pub(super) p: &'a Program,
    pub(super) out: Vec<Finding>,
    /// What each condition is per machine, by (function, line, column): an `if` and its
    /// `else` share one entry.
    truths: RefCell<HashMap<(usize, u32, u32), guard::Truth>>,
    /// Whether an `if` is a set-once latch, by (function, condition).
    latches: RefCell<HashMap<(usize, u32), bool>>,
    /// Every member some component binds: GMC restores it for each execution of a move, so a
    /// branch that tests it and clears it (`if (bJump) { …; bJump = false; }`) is no latch.
    pub(super) bound: HashSet<String>,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(p: &'a Program) -> Ctx<'a> {
        Ctx {
            p,
            out: Vec::new(),
            truths: RefCell::default(),
            latches: RefCell::default(),
            bound: HashSet::new(),
        }
    }

    /// [`guard::truth`] of a condition of `func`, computed once.
    fn truth_of(&self, func: usize, c: &super::syntax::Cond) -> guard::Truth {
        let key = (func, c.pos.line, c.pos.col);
        if let Some(t) = self.truths.borrow().get(&key) {
            return *t;
        }
        let local = |n: &str| self.local_init(func, n);
        let t = guard::truth(&c.text, &local);
        self.truths.borrow_mut().insert(key, t);
        t
    }
}

impl Ctx<'_> {
    pub(super) fn add(
        &mut self,
        rule: &'static Rule,
        sev: Severity,
        comp: &str,
        at: (usize, Pos),
        func: Option<usize>,
        message: String,
    ) {
        self.out.push(Finding {
            rule,
            severity: sev,
            file: at.0,
            pos: at.1,
            message,
            component: comp.to_string(),
            func,
        });
    }

    /// A finding on a `Bind*` call's line.
    pub(super) fn on_binding(
        &mut self,
        rule: &'static Rule,
        sev: Severity,
        comp: &str,
        b: &BindingRow,
        message: String,
    ) {
        self.add(rule, sev, comp, (b.file, b.pos), Some(b.step.func), message);
    }

    /// "line N" for a line of the finding's own file, "`File.cpp` line N" for another's.
    pub(super) fn line_ref(&self, from: usize, file: usize, line: u32) -> String {
        match self.p.file_names.get(file) {
            Some(name) if file != from => format!("`{name}` line {line}"),
            _ => format!("line {line}"),
        }
    }

    pub(super) fn at(&self, s: &Step) -> (usize, Pos) {
        let f = &self.p.funcs[s.func];
        (f.file, f.events[s.event].pos)
    }

    pub(super) fn event<'b>(&'b self, s: &Step) -> &'b EventKind {
        &self.p.funcs[s.func].events[s.event].kind
    }

    /// The initialiser of local `name` in `func` (`const bool bLive = !CL_IsReplaying() …`).
    fn local_init(&self, func: usize, name: &str) -> Option<String> {
        self.p.funcs[func]
            .events
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::Local { name: n, init, .. } if n == name && !init.is_empty() => {
                    Some(init.clone())
                }
                _ => None,
            })
    }

    /// Where step `s` can run: per world, false only when a condition around it (in its
    /// function or at a call site) or an early return before it rules that world out.
    pub(super) fn can_run(&self, s: &Step) -> [bool; 5] {
        let mut runs = [true; 5];
        let mut rule_out = |t: guard::Truth, want: bool| {
            for (r, v) in runs.iter_mut().zip(t) {
                if v == Some(!want) {
                    *r = false;
                }
            }
        };
        for (func, k) in self.cond_chain(s) {
            let c = &self.p.funcs[func].conds[k as usize];
            match c.kind {
                CondKind::If | CondKind::Preproc => {
                    rule_out(self.truth_of(func, c), true);
                    // A latch runs once, the first time: never in a replay of a later move.
                    if c.kind == CondKind::If && self.is_latch(func, k) {
                        let mut replay = [None; 5];
                        replay[guard::index(World::OwnerReplay)] = Some(false);
                        rule_out(replay, true);
                    }
                }
                CondKind::Else => rule_out(self.truth_of(func, c), false),
                _ => {}
            }
        }
        // Early returns: `if (CL_IsReplaying()) return;` before this event, in this function or
        // before the call site in a caller: what follows runs where the return's conditions
        // do not all hold.
        let mut sites = vec![(s.func, s.event)];
        let mut at = s.via.clone();
        while let Some(site) = at {
            sites.push((site.func, site.event));
            at = site.parent.clone();
        }
        for (func, upto) in sites {
            let f = &self.p.funcs[func];
            for e in f.events[..upto]
                .iter()
                .filter(|e| e.kind == EventKind::Return)
            {
                // The return runs where every condition around it holds.
                let mut returns = [Some(true); 5];
                for c in f.conds_of(e.cond) {
                    let t = self.truth_of(func, c);
                    for (r, v) in returns.iter_mut().zip(t) {
                        let v = match c.kind {
                            CondKind::If | CondKind::Preproc => v,
                            CondKind::Else => v.map(|x| !x),
                            _ => None,
                        };
                        *r = match (*r, v) {
                            (Some(false), _) | (_, Some(false)) => Some(false),
                            (Some(true), Some(true)) => Some(true),
                            _ => None,
                        };
                    }
                }
                if e.cond.is_none() {
                    continue;
                }
                for (r, v) in runs.iter_mut().zip(returns) {
                    if v == Some(true) {
                        *r = false;
                    }
                }
            }
        }
        runs
    }

    /// The conditions around a step, innermost first, as (function, condition index): its
    /// own, then each call site's.
    pub(super) fn cond_chain(&self, s: &Step) -> Vec<(usize, u32)> {
        let mut out = Vec::new();
        let mut push = |func: usize, event: usize| {
            let f = &self.p.funcs[func];
            let mut at = f.events[event].cond;
            while let Some(k) = at {
                if out.len() > 256 {
                    return;
                }
                out.push((func, k));
                at = f.conds.get(k as usize).and_then(|c| c.parent);
            }
        };
        push(s.func, s.event);
        let mut site = s.via.clone();
        while let Some(cs) = site {
            push(cs.func, cs.event);
            site = cs.parent.clone();
        }
        out
    }

    /// The conditions around a step that can be false where moves run (the owner, live and
    /// replaying, and the server for a remote pawn): [`Self::cond_chain`] without those that
    /// hold there (`!IsSmoothedListenServerPawn()`).
    pub(super) fn deciding_conds(&self, s: &Step) -> Vec<(usize, u32)> {
        let moves = [World::OwnerLive, World::OwnerReplay, World::ServerRemote];
        self.cond_chain(s)
            .into_iter()
            .filter(|&(func, k)| {
                let c = &self.p.funcs[func].conds[k as usize];
                let want = match c.kind {
                    CondKind::If | CondKind::Preproc => true,
                    CondKind::Else => false,
                    _ => return true,
                };
                let t = self.truth_of(func, c);
                !moves.iter().all(|w| t[guard::index(*w)] == Some(want))
            })
            .collect()
    }

    /// Whether what sits under condition `k` of `func` never runs where moves run (the owner,
    /// live and replaying, and the server for a remote pawn): `if (GetOwnerRole() ==
    /// ROLE_SimulatedProxy)`.
    pub(super) fn never_where_moves_run(&self, func: usize, k: u32) -> bool {
        let c = &self.p.funcs[func].conds[k as usize];
        let ruled_out = match c.kind {
            CondKind::If | CondKind::Preproc => false,
            CondKind::Else => true,
            _ => return false,
        };
        let t = self.truth_of(func, c);
        [World::OwnerLive, World::OwnerReplay, World::ServerRemote]
            .iter()
            .all(|w| t[guard::index(*w)] == Some(ruled_out))
    }

    /// Whether condition `k` of `func` tests the machine (a role, the net mode, local
    /// control): it is known true or false in some world.
    pub(super) fn is_machine_guard(&self, func: usize, k: u32) -> bool {
        let c = &self.p.funcs[func].conds[k as usize];
        matches!(c.kind, CondKind::If | CondKind::Else)
            && self.truth_of(func, c).iter().any(Option::is_some)
    }

    /// A set-once latch: `if (!bInit) { …; bInit = true; }` (or `if (bFirst) { …; bFirst =
    /// false; }`): the branch, or a function of the class it calls, writes the flag the
    /// condition tests to the value that makes the condition false, and nothing else in the
    /// condition changes. Work under it runs once, not on every move.
    pub(super) fn is_latch(&self, func: usize, k: u32) -> bool {
        if let Some(&v) = self.latches.borrow().get(&(func, k)) {
            return v;
        }
        let v = self.find_latch(func, k);
        self.latches.borrow_mut().insert((func, k), v);
        v
    }

    fn find_latch(&self, func: usize, k: u32) -> bool {
        let f = &self.p.funcs[func];
        let text: String = f.conds[k as usize].text.split_whitespace().collect();
        conjuncts(&text)
            .into_iter()
            .filter_map(latch_flag)
            .filter(|(flag, _)| !self.bound.contains(*flag))
            .any(|(flag, set_to)| {
                self.branch_sets(func, k, flag, set_to)
                    && match set_to {
                        Some(v) => !self.flag_reset(func, flag, v),
                        // A lazy capture: nothing else in the class writes the member.
                        None => !self.written_outside(func, k, flag),
                    }
            })
    }

    /// Whether a function of `func`'s class writes `name` anywhere but in the branch of
    /// condition `k` of `func`.
    fn written_outside(&self, func: usize, k: u32, name: &str) -> bool {
        let Some(class) = self.p.funcs[func].class.as_deref() else {
            return false;
        };
        let cond = &self.p.funcs[func].conds[k as usize];
        self.p
            .funcs
            .iter()
            .enumerate()
            .filter(|(_, f)| f.class.as_deref() == Some(class))
            .any(|(fi, f)| {
                f.events.iter().any(|e| {
                    matches!(&e.kind, EventKind::Write { target, .. } if target == name)
                        && !(fi == func && f.conds_of(e.cond).any(|c| std::ptr::eq(c, cond)))
                })
            })
    }

    /// Whether any function of `func`'s class writes `flag` to anything but `set_to` (then it
    /// is a state that comes and goes, not a set-once latch).
    fn flag_reset(&self, func: usize, flag: &str, set_to: &str) -> bool {
        let Some(class) = self.p.funcs[func].class.as_deref() else {
            return false;
        };
        self.p
            .funcs
            .iter()
            .filter(|f| f.class.as_deref() == Some(class))
            .flat_map(|f| f.events.iter())
            .any(|e| {
                matches!(&e.kind, EventKind::Write { target, rhs, .. }
                    if target == flag && rhs.trim() != set_to)
            })
    }

    /// Whether the branch of condition `k` (or a function of the class it calls) writes
    /// `flag = set_to`.
    fn branch_sets(&self, func: usize, k: u32, flag: &str, set_to: Option<&str>) -> bool {
        let f = &self.p.funcs[func];
        let sets = |e: &super::syntax::Event| {
            matches!(&e.kind, EventKind::Write { target, plain: true, rhs, .. }
                if target == flag && set_to.is_none_or(|v| rhs.trim() == v))
        };
        let cond = &f.conds[k as usize];
        let inside = |c: Option<u32>| f.conds_of(c).any(|x| std::ptr::eq(x, cond));
        f.events.iter().filter(|e| inside(e.cond)).any(|e| {
            if sets(e) {
                return true;
            }
            // A helper the branch calls (`if (!bInit) { Init(); }`, `Init` setting the flag).
            let EventKind::Call {
                name,
                receiver: None,
                ..
            } = &e.kind
            else {
                return false;
            };
            self.p
                .lookup(f.class.as_deref(), name, 0)
                .into_iter()
                .any(|g| self.p.funcs[g].events.iter().any(sets))
        })
    }

    /// The step can run on the owning client (live or replaying).
    pub(super) fn on_owner(&self, s: &Step) -> bool {
        let r = self.can_run(s);
        r[guard::index(World::OwnerLive)] || r[guard::index(World::OwnerReplay)]
    }

    /// The step is kept off the owner's replays (by `!CL_IsReplaying()`, `IsLocalMove()`, or
    /// a machine that does not replay, `HasAuthority()`): what the side-effect rule accepts
    /// as a guard, and state it writes is not carried into a replay. Simulated executions
    /// (`IsSimulatedMove()`) happen only in some smoothing modes and in rollback, so a guard
    /// that leaves them out is not reported (docs/lint.md, "Guards").
    pub(super) fn not_replayed(&self, s: &Step) -> bool {
        !self.can_run(s)[guard::index(World::OwnerReplay)]
    }

    /// For the rules about values a move computes (clock, frame delta, random): the step is
    /// kept to the owner's live moves, or never runs on the owner (server-only work, a
    /// simulated proxy's), so no prediction can differ from it.
    pub(super) fn value_guarded(&self, s: &Step) -> bool {
        let r = self.can_run(s);
        let i = guard::index;
        let owner_live_only = r[i(World::OwnerLive)] && !r[i(World::OwnerReplay)];
        // Never on the owner (the server's or a proxy's work): nothing there is predicted.
        let not_owner = !r[i(World::OwnerLive)] && !r[i(World::OwnerReplay)];
        owner_live_only || not_owner
    }
}

/// The top-level `&&` parts of a condition (blanks removed), outer parentheses dropped.
fn conjuncts(text: &str) -> Vec<&str> {
    let mut t = text;
    while t.starts_with('(') && t.ends_with(')') && closes_at_end(t) {
        t = &t[1..t.len() - 1];
    }
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'|' if depth == 0 && b.get(i + 1) == Some(&b'|') => return Vec::new(),
            b'&' if depth == 0 && b.get(i + 1) == Some(&b'&') => {
                out.push(&t[start..i]);
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&t[start..]);
    out
}

/// Whether the `(` at the start of `t` closes at its end.
fn closes_at_end(t: &str) -> bool {
    let mut depth = 0i32;
    for (i, c) in t.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return i == t.len() - 1;
                }
            }
            _ => {}
        }
    }
    false
}

/// A conjunct that tests a plain flag, or whether a value is still unset (`X.IsZero()`,
/// `X == 0`, `X == nullptr`, `!X.IsValid()`): (the member, the value that makes the test false;
/// `None`: any value the branch captures, a lazy initialisation).
fn latch_flag(c: &str) -> Option<(&str, Option<&'static str>)> {
    let c = c.strip_prefix("this->").unwrap_or(c);
    let unset = [
        ".IsZero()",
        ".IsNearlyZero()",
        ".IsNone()",
        "==0",
        "==0.f",
        "==nullptr",
    ];
    let (flag, set_to) = if let Some(x) = unset.iter().find_map(|u| c.strip_suffix(u)) {
        (x, None)
    } else if let Some(x) = c
        .strip_prefix('!')
        .and_then(|x| x.strip_suffix(".IsValid()"))
    {
        (x, None)
    } else if let Some(x) = c.strip_prefix('!') {
        (x.strip_prefix("this->").unwrap_or(x), Some("true"))
    } else if let Some(x) = c.strip_suffix("==false") {
        (x, Some("true"))
    } else {
        (c, Some("false"))
    };
    (!flag.is_empty() && flag.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then_some((flag, set_to))
}
