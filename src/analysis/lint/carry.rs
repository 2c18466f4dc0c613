//! The rules about state carried from one execution of a move to the next: an unbound
//! member the path reads before it sets it (pitfall 1) and an event raised in a move that is
//! not sealed (pitfall 3).

use std::collections::{HashMap, HashSet};

use super::ctx::Ctx;
use super::gmc;
use super::program::{BindingRow, Component, Program, Step};
use super::settled::is_reset;
use super::syntax::{CondKind, EventKind, Func, Pos};
use super::table::{NOT_SEALED, Severity, UNBOUND_STATE};
use crate::model::binding::{CombineMode, PredictionMode};

/// Pitfall 1: a state member the path reads before anything in the move sets it, and writes.
pub(super) fn unbound_state(
    cx: &mut Ctx,
    c: &Component,
    path: &[Step],
    fields: &HashMap<String, String>,
    bound: &HashSet<String>,
) {
    let p = cx.p;
    // Per member: (first read that happened before any unconditional plain write, first write).
    let mut fresh: HashSet<&str> = HashSet::new();
    let mut carried_read: HashMap<&str, (u32, usize)> = HashMap::new();
    let mut first_write: HashMap<&str, (Step, bool)> = HashMap::new();
    // Members some path write sets to a value other than a constant reset: a member the path
    // only ever clears (`RequestedVelocity = FVector::ZeroVector`) is a request consumed from
    // outside the move, not state the tick carries.
    let mut changed: HashSet<&str> = HashSet::new();
    // Per member: the conditions of its plain writes: a read under all of them (in the same
    // branch, after the write) reads what this move wrote.
    let mut fresh_under: HashMap<&str, Vec<Vec<CondId>>> = HashMap::new();
    // Per member: the values from settings alone its writes give it. One such value is the
    // same in every move; two (`TopSpeed = SprintSpeed` in one branch, `= WalkSpeed` in
    // another) make the member remember which branch ran last.
    let mut settled: HashMap<&str, HashSet<String>> = HashMap::new();
    for s in path {
        let f = &p.funcs[s.func];
        // `X = f(X)` reads X before it writes it (its right side is walked after the write
        // event is recorded).
        let (name, write, plain) = match &f.events[s.event].kind {
            EventKind::Read { name } => (name.as_str(), false, false),
            // `X = FMath::Clamp(X, …)` keeps a setting in range: the same every move.
            EventKind::Write { target, rhs, .. }
                if super::settled::is_normalization(
                    target,
                    &super::settled::substituted(cx, s, rhs),
                ) =>
            {
                continue;
            }
            EventKind::Write {
                target, plain, rhs, ..
            } => {
                // Only writes that run on the owner's re-executions carry state into a replay;
                // a constant or a value worked out from settings alone
                // (`FloorZ = FMath::Cos(…FloorAngle…)`) is the same in every move.
                let state = fields.get(target).is_some_and(|t| gmc::is_state_type(t));
                if state && !is_reset(rhs) && !cx.not_replayed(s) {
                    if super::settled::from_settings(cx, path, s, target, rhs) {
                        settled
                            .entry(target.as_str())
                            .or_default()
                            .insert(super::settled::substituted(cx, s, rhs));
                    } else {
                        changed.insert(target.as_str());
                    }
                }
                (
                    target.as_str(),
                    true,
                    *plain && !gmc::words(rhs).any(|w| w == target),
                )
            }
            _ => continue,
        };
        if f.locals.contains(name) || bound.contains(name) {
            continue;
        }
        let Some((key, ty)) = fields.get_key_value(name) else {
            continue;
        };
        if !gmc::is_state_type(ty) {
            continue;
        }
        let key = key.as_str();
        if fresh.contains(key) {
            continue;
        }
        let chain = cx.deciding_conds(s);
        if dominated(&fresh_under, key, &chain) {
            continue;
        }
        let unconditional = p.conds(s).is_empty() || (write && ladder_write(p, s, key));
        if write {
            // Server-only or live-only state is never replayed.
            // A write that never runs in a replay (a latch, server-only code) exempts only
            // itself: the member is reported at its first write that does.
            let guarded = cx.not_replayed(s);
            match first_write.get_mut(key) {
                None => {
                    first_write.insert(key, (s.clone(), guarded));
                }
                Some(first) if first.1 && !guarded => *first = (s.clone(), false),
                Some(_) => {}
            }
            if plain && unconditional && !carried_read.contains_key(key) {
                fresh.insert(key);
                continue;
            }
            if plain
                && !returns_before(cx, s)
                && !chain
                    .iter()
                    .any(|&(fi, k)| p.funcs[fi].conds[k as usize].kind == CondKind::Switch)
            {
                fresh_under.entry(key).or_default().push(chain);
                continue;
            }
            if !plain {
                carried_read
                    .entry(key)
                    .or_insert((f.events[s.event].pos.line, f.file));
            }
        } else {
            carried_read
                .entry(key)
                .or_insert((f.events[s.event].pos.line, f.file));
        }
    }
    changed.extend(settled.iter().filter(|(_, v)| v.len() > 1).map(|(k, _)| *k));
    let found: Vec<(&str, &Step, (u32, usize))> = first_write
        .iter()
        .filter(|(k, (_, guarded))| !fresh.contains(*k) && !guarded && changed.contains(*k))
        .filter_map(|(k, (s, _))| Some((*k, s, *carried_read.get(k)?)))
        .filter(|(k, _, _)| !super::shadow::is_side_state(p, path, k))
        .collect();
    report_unbound(cx, c, found);
}

/// The `unbound-state-in-tick` findings: each member at its first write that a replay runs,
/// citing the read that came before the move set it.
fn report_unbound(cx: &mut Ctx, c: &Component, mut found: Vec<(&str, &Step, (u32, usize))>) {
    found.sort_by_key(|(_, s, _)| (s.func, s.event));
    for (name, s, (line, file)) in found {
        let at = cx.at(s);
        let cited = cx.line_ref(at.0, file, line);
        cx.add(UNBOUND_STATE, Severity::Warning, &c.class, at, Some(s.func), format!(
            "`{name}` is written on the prediction path and read on the next move ({cited} reads it before the move sets it), but it is not bound"));
    }
}

/// A write of `key` at `s` in every branch of an if / else-if / else ladder (with no condition
/// around the call that reached it): unconditional.
fn ladder_write(p: &Program, s: &Step, key: &str) -> bool {
    let f = &p.funcs[s.func];
    s.via.as_ref().is_none_or(|site| {
        p.funcs[site.func]
            .conds_of(p.funcs[site.func].events[site.event].cond)
            .next()
            .is_none()
    }) && f.events[s.event]
        .cond
        .is_some_and(|c| ladder_writes(f, c, key))
}

/// One condition on the way to an event: (function, condition index).
type CondId = (usize, u32);

/// Whether a `return` comes before step `s` in its function, or before the call that reached
/// it in a caller: the write may not run though every condition around it holds. A return
/// under a test of a state the conditions around `s` rule out (`if (State == Done) return;`
/// in a helper called under `if (State == Running)`), or under a test false wherever moves
/// run (a simulated proxy's), cannot run there.
fn returns_before(cx: &Ctx, s: &Step) -> bool {
    let p = cx.p;
    let mut sites = vec![(s.func, s.event)];
    let mut at = s.via.clone();
    while let Some(site) = at {
        sites.push((site.func, site.event));
        at = site.parent.clone();
    }
    let around: Vec<(String, Vec<String>)> = p
        .conds(s)
        .iter()
        .filter(|c| c.0 == CondKind::If)
        .filter_map(|c| equalities(&c.1))
        .collect();
    sites.into_iter().any(|(func, upto)| {
        let f = &p.funcs[func];
        f.events[..upto].iter().any(|e| {
            let mut at = e.cond;
            let mut ruled_out = false;
            for _ in 0..64 {
                let Some(k) = at else { break };
                let c = &f.conds[k as usize];
                ruled_out |= cx.never_where_moves_run(func, k)
                    || (c.kind == CondKind::If
                        && equalities(&c.text).is_some_and(|(var, vals)| {
                            around.iter().any(|(v, held)| {
                                *v == var && held.iter().all(|h| !vals.contains(h))
                            })
                        }));
                at = c.parent;
            }
            e.kind == EventKind::Return && !ruled_out
        })
    })
}

/// `A == X || A == Y` as (`A`, [`X`, `Y`]); None for any other condition.
fn equalities(text: &str) -> Option<(String, Vec<String>)> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let t = t
        .strip_prefix('(')
        .and_then(|x| x.strip_suffix(')'))
        .unwrap_or(&t);
    let mut var = None;
    let mut vals = Vec::new();
    for part in t.split("||") {
        let (a, b) = part.trim_matches(['(', ')']).split_once("==")?;
        if a.is_empty() || b.is_empty() || b.contains(['&', '|', '!', '<', '>']) {
            return None;
        }
        match &var {
            None => var = Some(a.to_string()),
            Some(v) if v == a => {}
            Some(_) => return None,
        }
        vals.push(b.to_string());
    }
    Some((var?, vals))
}

/// Whether a plain write of `key` recorded in `fresh_under` sits under conditions that all
/// hold around `chain` too (its conditions are the outer part of `chain`): then a read at
/// `chain` comes after that write in the same branch.
fn dominated(fresh_under: &HashMap<&str, Vec<Vec<CondId>>>, key: &str, chain: &[CondId]) -> bool {
    fresh_under.get(key).is_some_and(|ws| {
        ws.iter()
            .any(|w| w.len() <= chain.len() && chain.ends_with(w))
    })
}

/// Whether the outermost `if` around condition `cond` writes `name` plainly in every branch
/// (an if / else-if / else ladder, nested ladders included).
fn ladder_writes(f: &Func, cond: u32, name: &str) -> bool {
    let mut top = cond;
    for _ in 0..64 {
        match f.conds.get(top as usize) {
            Some(c) if !matches!(c.kind, CondKind::If | CondKind::Else) => return false,
            Some(c) => match c.parent {
                Some(p) => top = p,
                None => break,
            },
            None => return false,
        }
    }
    let pos = f.conds[top as usize].pos;
    pair_writes(f, pos, None, name, 0)
}

/// The `if` at `pos` under `parent` has an `else`, and both branches write `name`.
fn pair_writes(f: &Func, pos: Pos, parent: Option<u32>, name: &str, depth: u8) -> bool {
    let side = |kind: CondKind| {
        f.conds
            .iter()
            .position(|c| c.kind == kind && c.pos == pos && c.parent == parent)
            .map(|i| i as u32)
    };
    match (side(CondKind::If), side(CondKind::Else)) {
        (Some(a), Some(b)) if depth < 16 => {
            branch_writes(f, a, name, depth) && branch_writes(f, b, name, depth)
        }
        _ => false,
    }
}

/// A branch writes `name` plainly itself, or holds a full ladder that does.
fn branch_writes(f: &Func, branch: u32, name: &str, depth: u8) -> bool {
    f.events.iter().any(|e| {
        e.cond == Some(branch)
            && matches!(&e.kind, EventKind::Write { target, plain: true, rhs, .. }
                if target == name && !gmc::words(rhs).any(|w| w == name))
    }) || f
        .conds
        .iter()
        .filter(|c| c.parent == Some(branch) && c.kind == CondKind::If)
        .any(|c| pair_writes(f, c.pos, Some(branch), name, depth + 1))
}

/// Pitfall 3: a branch of the prediction path that changes bound state and fires an event (a
/// side effect, guarded or not, an RPC, a delegate, a `Play…`/`Spawn…`/`Fire…`/`Trigger…`/
/// `Activate…` call, there or in a function it calls; `On…` hooks are notifications GMC itself
/// fires on every execution), on a path that never calls
/// CL_DoNotCombineNextMove(): the next combined re-run starts from the state before the event
/// and fires it again. A bound flag raised without an event is idempotent and not reported.
pub(super) fn one_shots(cx: &mut Ctx, c: &Component, path: &[Step]) {
    let p = cx.p;
    let fields: HashMap<String, String> = p.fields(&c.class).into_iter().collect();
    let bound: HashSet<&str> = c
        .bindings
        .iter()
        .filter(|b| {
            !matches!(
                b.prediction.value(),
                Some(PredictionMode::ClientAuth_Input) | None
            )
        })
        .map(BindingRow::member_name)
        .collect();
    // (function, condition) → the first bound write under it, and whether an event fires.
    let mut branches: HashMap<(usize, u32), Branch> = HashMap::new();
    let mut order: Vec<(usize, u32)> = Vec::new();
    // The branches each CL_DoNotCombineNextMove() on the path sits in.
    let mut seals: Vec<HashSet<(usize, u32)>> = Vec::new();
    for s in path {
        let f = &p.funcs[s.func];
        let e = &f.events[s.event];
        // Only the owner combines moves: server-only work is not re-run.
        if matches!(e.kind, EventKind::Write { .. } | EventKind::Call { .. }) && !cx.on_owner(s) {
            continue;
        }
        let own = || cx.cond_chain(s);
        match &e.kind {
            EventKind::Write {
                target, plain, rhs, ..
            } if bound.contains(target.as_str()) && !f.locals.contains(target) => {
                // A bound counter raised or lowered by a whole number (a shot fired, ammo
                // spent), or a bound timer re-armed in a branch that tests it (a cooldown
                // set to its duration): the event itself, fired again by a combined re-run.
                let event = is_count_step(target, *plain, rhs)
                    || (*plain
                        && fields
                            .get(target.as_str())
                            .is_some_and(|t| gmc::is_number_type(t))
                        && !is_reset(rhs)
                        && !gmc::words(rhs)
                            .any(|w| f.params.iter().any(|p| p == w) || w == target)
                        && own().into_iter().any(|(func, k)| {
                            let c = &p.funcs[func].conds[k as usize];
                            c.kind == CondKind::If && gmc::words(&c.text).any(|w| w == target)
                        }));
                for key in own() {
                    let entry = branches.entry(key).or_insert_with(|| {
                        order.push(key);
                        (None, false)
                    });
                    if entry.0.is_none() {
                        entry.0 = Some((s.clone(), target.clone()));
                    }
                    entry.1 |= event;
                }
            }
            EventKind::Call { name, .. } if name == gmc::SEAL => {
                seals.push(own().into_iter().collect());
            }
            EventKind::Write { target, rhs, .. }
                if flips_tested_input(cx, c, s, target, rhs) && !f.locals.contains(target) =>
            {
                seals.push(own().into_iter().collect());
            }
            EventKind::Call {
                path: cp,
                name,
                receiver,
                ..
            } if is_event_call(p, cp, name, receiver.as_deref()) => {
                let keys = own();
                for key in keys {
                    branches
                        .entry(key)
                        .or_insert_with(|| {
                            order.push(key);
                            (None, false)
                        })
                        .1 = true;
                }
            }
            _ => {}
        }
    }
    let mut done = HashSet::new();
    for key in order {
        let Some((Some((s, name)), true)) = branches.get(&key) else {
            continue;
        };
        // A seal counts where it runs in the same move: every condition around it is one
        // around the branch (an unconditional seal counts everywhere).
        let around: HashSet<(usize, u32)> = cx.cond_chain(s).into_iter().collect();
        if seals.iter().any(|k| k.is_subset(&around)) || on_pulse_edge(cx, c, s) {
            continue;
        }
        if !done.insert(name.clone()) {
            continue;
        }
        let at = cx.at(s);
        let why = if seals.is_empty() {
            "nothing on the prediction path calls CL_DoNotCombineNextMove()"
        } else {
            "the CL_DoNotCombineNextMove() calls on the prediction path sit under conditions of their own, so none is sure to run in this branch's move"
        };
        cx.add(
            NOT_SEALED,
            Severity::Warning,
            &c.class,
            at,
            Some(s.func),
            format!("`{name}` changes in a branch that fires an event, and {why}"),
        );
    }
}

/// `X++`, `X -= 1`, `X = X + 1`: a count changed by a whole number.
/// A write that flips a ClientAuth_Input input bound CombineIfUnchanged which a condition
/// around the write tests (`if (bArmed && bRequest) { bRequest = false; … }`): the next frame's
/// input differs from this move's, so GMC cannot combine the next frame into this move, and the
/// move is sealed as by CL_DoNotCombineNextMove() (the source document: "an input bound
/// CombineIfUnchanged that flips as the event happens achieves the same").
fn flips_tested_input(cx: &Ctx, c: &Component, s: &Step, target: &str, rhs: &str) -> bool {
    let input = c.bindings.iter().any(|b| {
        b.member == target
            && b.prediction.value() == Some(PredictionMode::ClientAuth_Input)
            && b.combine.value() == Some(CombineMode::CombineIfUnchanged)
    });
    let to_false = is_reset(rhs);
    if !input || !(to_false || rhs.trim() == "true") {
        return false;
    }
    // The branch runs where the condition held: `bRequest` set (cleared by the write) or
    // `!bRequest` (raised by it).
    cx.cond_chain(s).into_iter().any(|(func, k)| {
        let cond = &cx.p.funcs[func].conds[k as usize];
        if cond.kind != CondKind::If {
            return false;
        }
        if to_false {
            requires(&cond.text, target)
        } else {
            requires_clear(&cond.text, target)
        }
    })
}

/// Whether the branch at `s` runs only while a one-frame input pulse is set: an `if` around it
/// tests (not negated) a ClientAuth_Input bound CombineIfUnchanged that PreLocalMoveExecution
/// gathers from a member it then clears (`bDash = bDashPressed; bDashPressed = false;`). GMC
/// starts a new move where the pulse rises and where it falls, so the move is sealed.
fn on_pulse_edge(cx: &Ctx, c: &Component, s: &Step) -> bool {
    let p = cx.p;
    let pulses: Vec<&str> = c
        .bindings
        .iter()
        .filter(|b| {
            b.prediction.value() == Some(PredictionMode::ClientAuth_Input)
                && b.combine.value() == Some(CombineMode::CombineIfUnchanged)
        })
        .map(|b| b.member.as_str())
        .filter(|m| {
            p.lookup(Some(&c.class), "PreLocalMoveExecution", 0)
                .into_iter()
                .any(|g| gathers_pulse(cx, g, m))
        })
        .collect();
    !pulses.is_empty()
        && cx.cond_chain(s).into_iter().any(|(func, k)| {
            let cond = &p.funcs[func].conds[k as usize];
            cond.kind == CondKind::If && pulses.iter().any(|m| requires(&cond.text, m))
        })
}

/// `input = Source; … Source = false;` in function `g` or what it calls: the input takes a
/// member's value that the gathering then clears.
fn gathers_pulse(cx: &Ctx, g: usize, input: &str) -> bool {
    let writes: Vec<(&str, &str, bool)> =
        cx.p.flow(g)
            .iter()
            .filter_map(|s| match &cx.p.funcs[s.func].events[s.event].kind {
                EventKind::Write { target, rhs, .. } => Some((
                    target.as_str(),
                    rhs.trim(),
                    cx.p.funcs[s.func].locals.contains(rhs.trim()),
                )),
                _ => None,
            })
            .collect();
    writes.iter().enumerate().any(|(i, (t, src, local))| {
        *t == input
            && !local
            && writes[i + 1..]
                .iter()
                .any(|(t2, r2, _)| t2 == src && is_reset(r2))
    })
}

/// Whether condition text `text` requires `member` set: one of its `&&` parts is the member
/// itself (a part of an `||` is not required).
fn requires(text: &str, member: &str) -> bool {
    !text.contains("||")
        && text.split("&&").any(|part| {
            part.trim()
                .trim_matches(['(', ')'])
                .trim_start_matches("this->")
                == member
        })
}

/// Whether condition text `text` requires `member` clear (`!member` as an `&&` part).
fn requires_clear(text: &str, member: &str) -> bool {
    !text.contains("||")
        && text.split("&&").any(|part| {
            part.trim()
                .trim_matches(['(', ')'])
                .trim_start_matches('!')
                .trim_start_matches("this->")
                == member
                && part.trim().trim_start_matches('(').starts_with('!')
        })
}

fn is_count_step(target: &str, plain: bool, rhs: &str) -> bool {
    let r: String = rhs.chars().filter(|c| !c.is_whitespace()).collect();
    let whole = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit());
    if !plain {
        return r.is_empty() || whole(&r);
    }
    [format!("{target}+"), format!("{target}-")]
        .iter()
        .any(|p| r.strip_prefix(p.as_str()).is_some_and(whole))
}

/// A branch of [`one_shots`]: the first bound write under it, and whether an event fires.
type Branch = (Option<(Step, String)>, bool);

/// A call that makes something happen beyond the move's bound state.
fn is_event_call(p: &Program, path: &str, name: &str, receiver: Option<&str>) -> bool {
    let prefixed = |pre: &str| {
        name.strip_prefix(pre)
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_uppercase()))
    };
    gmc::is_side_effect_call(path, name)
        || (receiver.is_none() && p.rpcs.contains(name))
        || (receiver.is_some() && matches!(name, "Broadcast" | "Execute" | "ExecuteIfBound"))
        || ["Play", "Spawn", "Fire", "Trigger", "Activate"]
            .iter()
            .any(|x| prefixed(x))
}
