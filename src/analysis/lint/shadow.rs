//! A flag that only remembers whether a side setting is applied: `if (bWant && !bRaised) {
//! Tolerances.X = Wide; bRaised = true; } else if (!bWant && bRaised) { restore; bRaised =
//! false; }`. It is written on the prediction path and read on the next move, but what it
//! decides is a write to something the move does not simulate with (GMC's error tolerances,
//! which only the server's comparison reads, or a member the move never reads), so binding it
//! would change nothing a replay computes. [`guards_only_side_settings`] tells such a member
//! apart from carried state, per function and per branch.

use std::collections::HashSet;

use super::gmc;
use super::program::{Program, Step};
use super::settled::is_reset;
use super::syntax::{CondKind, EventKind, Func};

/// Whether `name` is such a flag, or a member only such a flag's branches read (the saved
/// value a restore writes back).
pub(super) fn is_side_state(p: &Program, path: &[Step], name: &str) -> bool {
    guards_only_side_settings(p, path, name) || read_only_in_side_branches(p, path, name)
}

/// Whether `name` is a member of the component that the path writes, and every function of
/// `path` that touches it sets it only to constants, reads it
/// only in `if` conditions, and under those conditions writes nothing but `name` itself and
/// side settings, and calls nothing but logging, debug drawing, math and getters.
fn guards_only_side_settings(p: &Program, path: &[Step], name: &str) -> bool {
    let funcs: HashSet<usize> = path.iter().map(|s| s.func).collect();
    let mut read_outside: HashSet<&str> = HashSet::new();
    let (mut touched, mut written) = (false, false);
    for &fi in &funcs {
        let f = &p.funcs[fi];
        let guards = guards_of(f, name);
        read_outside.extend(f.events.iter().filter_map(|e| match &e.kind {
            EventKind::Read { name } if !under(f, &guards, e.cond) => Some(name.as_str()),
            _ => None,
        }));
        if !touches(f, name) {
            continue;
        }
        touched = true;
        if !constant_writes(f, name) || !reads_only_in_ifs(f, name) {
            return false;
        }
        written |= own_member(p, f, name) && writes(f, name);
    }
    touched
        && written
        && funcs.iter().all(|&fi| {
            let f = &p.funcs[fi];
            guarded_events_are_side(p, f, name, &guards_of(f, name), &read_outside)
        })
}

/// Whether every read of `name` on the path sits in a branch of one flag that
/// [`guards_only_side_settings`] (so its value only reaches side settings).
fn read_only_in_side_branches(p: &Program, path: &[Step], name: &str) -> bool {
    let funcs: HashSet<usize> = path.iter().map(|s| s.func).collect();
    let reads: Vec<(usize, Option<u32>)> = funcs
        .iter()
        .flat_map(|&fi| {
            p.funcs[fi]
                .events
                .iter()
                .filter_map(move |e| match &e.kind {
                    EventKind::Read { name: n } if n == name => Some((fi, e.cond)),
                    _ => None,
                })
        })
        .collect();
    let Some(&(fi, cond)) = reads.first() else {
        return false;
    };
    let f = &p.funcs[fi];
    let candidates: HashSet<&str> = f
        .conds_of(cond)
        .filter(|c| matches!(c.kind, CondKind::If | CondKind::Else))
        .flat_map(|c| gmc::words(&c.text))
        .filter(|w| *w != name)
        .collect();
    candidates.into_iter().any(|flag| {
        reads.iter().all(|&(fi, cond)| {
            let f = &p.funcs[fi];
            under(f, &guards_of(f, flag), cond)
        }) && guards_only_side_settings(p, path, flag)
    })
}

/// The `if`/`else` conditions of `f` that mention `name`.
fn guards_of(f: &Func, name: &str) -> HashSet<usize> {
    f.conds
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            matches!(c.kind, CondKind::If | CondKind::Else)
                && gmc::words(&c.text).any(|w| w == name)
        })
        .map(|(i, _)| i)
        .collect()
}

/// Whether an event under `cond` sits in one of `guards`.
fn under(f: &Func, guards: &HashSet<usize>, cond: Option<u32>) -> bool {
    let mut at = cond;
    for _ in 0..64 {
        let Some(i) = at else { return false };
        if guards.contains(&(i as usize)) {
            return true;
        }
        at = f.conds.get(i as usize).and_then(|c| c.parent);
    }
    false
}

fn touches(f: &Func, name: &str) -> bool {
    f.events.iter().any(|e| match &e.kind {
        EventKind::Read { name: n } | EventKind::Write { target: n, .. } => n == name,
        _ => false,
    })
}

fn writes(f: &Func, name: &str) -> bool {
    f.events
        .iter()
        .any(|e| matches!(&e.kind, EventKind::Write { target, .. } if target == name))
}

/// Each write of `name` is `= true`, `= false` or another constant.
fn constant_writes(f: &Func, name: &str) -> bool {
    f.events.iter().all(|e| match &e.kind {
        EventKind::Write {
            target, rhs, plain, ..
        } if target == name => *plain && (rhs.trim() == "true" || is_reset(rhs)),
        _ => true,
    })
}

/// Each read of `name` is one of its mentions in the text of an `if`'s condition (a read in
/// an assignment, an argument or a ternary makes more reads than mentions).
fn reads_only_in_ifs(f: &Func, name: &str) -> bool {
    let reads = f
        .events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::Read { name: n } if n == name))
        .count();
    let mentions: usize = f
        .conds
        .iter()
        .filter(|c| c.kind == CondKind::If)
        .map(|c| gmc::words(&c.text).filter(|w| *w == name).count())
        .sum();
    reads == mentions
}

/// Under every `if`/`else` whose condition mentions `name`: writes only to `name`, to GMC's
/// error tolerances or to the component's own members nothing outside such branches reads; calls only to what
/// changes nothing; no `return`.
fn guarded_events_are_side(
    p: &Program,
    f: &Func,
    name: &str,
    guards: &HashSet<usize>,
    read_outside: &HashSet<&str>,
) -> bool {
    f.events
        .iter()
        .filter(|e| under(f, guards, e.cond))
        .all(|e| match &e.kind {
            EventKind::Write { target, path, .. } => {
                target == name
                    || is_tolerance(f, target, path)
                    || (own_member(p, f, target) && !read_outside.contains(target.as_str()))
            }
            EventKind::Call { path, name, .. } => changes_nothing(path, name),
            EventKind::Return => false,
            _ => true,
        })
}

/// A member the component's classes in the files declare (GMC's own members are read by
/// GMC's movement, which the files do not show).
fn own_member(p: &Program, f: &Func, target: &str) -> bool {
    !f.locals.contains(target)
        && !gmc::is_inherited_member(target)
        && f.class.as_deref().is_some_and(|c| p.has_field(c, target))
}

/// A write into GMC's error tolerances (`ReplicationSettings.DefaultErrorTolerances`, directly,
/// through a pointer, or through a local holding them): only the server's comparison
/// of a move's values reads them, never the move.
fn is_tolerance(f: &Func, target: &str, path: &str) -> bool {
    const TOLERANCES: &str = "ErrorTolerances";
    path.contains(TOLERANCES)
        || f.events.iter().any(|e| {
            matches!(&e.kind, EventKind::Local { name, ty, init }
                if name == target && (ty.contains(TOLERANCES) || init.contains(TOLERANCES)))
        })
}

/// Logging, assertions, debug drawing, math and getters.
fn changes_nothing(path: &str, name: &str) -> bool {
    super::nodes::is_assert_or_log(name)
        || name.starts_with("DrawDebug")
        || name.starts_with("Get")
        || name == "AddOnScreenDebugMessage"
        || path.starts_with("FMath::")
}
