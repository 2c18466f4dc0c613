//! The checks behind the rules of [`super::table`]: [`check`] runs them on a [`Program`].

use std::collections::{HashMap, HashSet};

use super::binding_checks;
use super::gmc;
use super::prediction_checks::{self, bound_names};
use super::program::{BindingRow, Component, Program, is_bind_call};
use super::syntax::{CondKind, EventKind};
use crate::model::binding::{PredictionMode, SimulationMode};

pub use super::ctx::Finding;
pub use super::table::*;

use super::ctx::Ctx;

/// Runs every rule on the program's components.
pub fn check(p: &Program, comps: &[Component]) -> Vec<Finding> {
    let mut cx = Ctx::new(p);
    cx.bound = comps
        .iter()
        .flat_map(|c| &c.bindings)
        .map(|b| b.member_name().to_string())
        .collect();
    outside_bindings(&mut cx, comps);
    for c in comps {
        binding_checks::binding_rules(&mut cx, c);
        let path = p.prediction_path(&c.class);
        if !path.is_empty() {
            let also = bound_by_others(p, c, comps);
            prediction_checks::prediction_rules(&mut cx, c, &path, &also);
        }
        sync_applied(&mut cx, c);
        not_simulated(&mut cx, c, comps);
        header_missing(&mut cx, c);
    }
    anim_reads(&mut cx, comps);
    cx.out
}

/// Members of `c`'s class (or its bases) that another component binds: through a pointer to
/// it (a movement component binding an ability component's `ActionTimer`), or a base
/// component's own bindings when `c` does not override BindReplicationData: bound, though
/// `c`'s own table does not list them.
fn bound_by_others(p: &Program, c: &Component, comps: &[Component]) -> HashSet<String> {
    let chain = p.chain(&c.class);
    comps
        .iter()
        .filter(|o| o.class != c.class)
        .flat_map(|o| o.bindings.iter().map(move |b| (o, b)))
        .filter(|(o, b)| match &b.declared_by {
            Some(d) => chain.contains(d),
            // A base's own binding function binds for every class deriving from it.
            None => chain.contains(&o.class),
        })
        .map(|(_, b)| b.member_name().to_string())
        .collect()
}

/// A component whose functions were read but whose class declaration was not.
fn header_missing(cx: &mut Ctx, c: &Component) {
    let p = cx.p;
    if p.class(&c.class).is_some() {
        return;
    }
    // A class with nothing of its own to check (a namespace's or an attribute set's binding
    // helper whose bindings joined a component's table) needs no declaration.
    if c.bind_funcs.is_empty()
        && c.bindings.is_empty()
        && p.prediction_path(&c.class).is_empty()
        && p.path_of(&c.class, gmc::SYNC_APPLIED).is_empty()
    {
        return;
    }
    let Some(first) = p
        .funcs
        .iter()
        .position(|f| f.class.as_deref() == Some(c.class.as_str()))
    else {
        return;
    };
    let f = &p.funcs[first];
    let fields = p.fields(&c.class);
    let typed = fields.iter().filter(|(_, t)| !t.is_empty()).count();
    cx.add(
        HEADER_MISSING,
        Severity::Note,
        &c.class,
        (f.file, f.pos),
        Some(first),
        format!(
            "no declaration of `{}` was read (looked next to this file, at its #include and in the module's folders): its members are inferred from what its functions assign ({} found, {typed} with a type the assigned value tells), and every rule that reads members runs on those with less: unbound-state-in-tick and frame-delta-in-tick (a member whose type no write tells, or one only read, is not seen), input-written-in-tick for members, transition-in-sync-applied (values compared with kept copies) and the member-writes table",
            c.class,
            fields.len()
        ),
    );
}

fn outside_bindings(cx: &mut Ctx, comps: &[Component]) {
    let p = cx.p;
    let mut reached: HashSet<(usize, usize)> = HashSet::new();
    for c in comps {
        for &root in &c.bind_funcs {
            for s in p.flow(root) {
                reached.insert((s.func, s.event));
            }
        }
    }
    let comp_names: HashSet<&str> = comps.iter().map(|c| c.class.as_str()).collect();
    let mut noted: HashSet<usize> = HashSet::new();
    for (fi, f) in p.funcs.iter().enumerate() {
        let Some(class) = f.class.as_deref() else {
            continue;
        };
        if !comp_names.contains(class) {
            continue;
        }
        for (ei, e) in f.events.iter().enumerate() {
            if reached.contains(&(fi, ei)) || p.binds_parameter(fi, ei) {
                continue;
            }
            let EventKind::Call {
                name,
                receiver,
                args,
                ..
            } = &e.kind
            else {
                continue;
            };
            // A call to the class's own helper binds what its forwarded call binds.
            let helper = p.helper_binding(fi, ei);
            if helper.is_none() && !is_bind_call(&e.kind, true) {
                continue;
            }
            let receiver = helper.as_ref().unwrap_or(receiver);
            let member = args.first().map_or("", String::as_str);
            match receiver {
                None => cx.add(
                    BIND_OUTSIDE,
                    Severity::Error,
                    class,
                    (f.file, e.pos),
                    Some(fi),
                    format!(
                        "`{member}` is bound with {name} in `{}`, not in BindReplicationData_Implementation",
                        f.name
                    ),
                ),
                Some(r) => {
                    if noted.insert(fi) {
                        cx.add(
                            UNSEEN_CALL,
                            Severity::Note,
                            class,
                            (f.file, e.pos),
                            Some(fi),
                            format!(
                                "`{class}::{}` binds through `{r}`; no BindReplicationData_Implementation in these files calls it",
                                f.name
                            ),
                        );
                    }
                }
            }
        }
    }
}

/// Pitfall 8: an `if` in OnSyncDataApplied (or what it calls) that compares a bound value with
/// a copy kept across calls: a `Last*`/`Prev*`/`Was*` member, or any member the class sets
/// from that value (`bWasDead = bIsDead`, inside the branch or after it). When the class's
/// bindings are not in the files (a parent binds them), any member compared with such a copy
/// counts.
fn sync_applied(cx: &mut Ctx, c: &Component) {
    let p = cx.p;
    let path = p.path_of(&c.class, gmc::SYNC_APPLIED);
    if path.is_empty() {
        return;
    }
    let bound = bound_names(c);
    let fields: HashSet<String> = p.fields(&c.class).into_iter().map(|(n, _)| n).collect();
    let copies = kept_copies(p, &c.class);
    let mut funcs: Vec<usize> = path.iter().map(|s| s.func).collect();
    funcs.dedup();
    let mut seen = HashSet::new();
    for func in funcs {
        if !seen.insert(func) {
            continue;
        }
        let f = &p.funcs[func];
        for cond in f.conds.iter().filter(|k| k.kind == CondKind::If) {
            let words: Vec<&str> = gmc::words(&cond.text).collect();
            let is_value = |w: &str| {
                !f.locals.contains(w)
                    && (bound.contains(w) || (bound.is_empty() && fields.contains(w)))
            };
            let transition = words.iter().any(|&v| {
                is_value(v)
                    && words.iter().any(|&k| {
                        k != v
                            && !f.locals.contains(k)
                            && (gmc::is_previous_copy(k)
                                || copies.get(k).is_some_and(|from| from.contains(v)))
                    })
            });
            if transition {
                cx.add(
                    SYNC_APPLIED,
                    Severity::Warning,
                    &c.class,
                    (f.file, cond.pos),
                    Some(func),
                    format!(
                        "`if {}` detects a change of a bound value in OnSyncDataApplied",
                        cond.text
                    ),
                );
            }
        }
    }
}

/// Members the class's functions set from other values: copy → the names its right sides read.
fn kept_copies(p: &Program, class: &str) -> HashMap<String, HashSet<String>> {
    let chain = p.chain(class);
    let mut out: HashMap<String, HashSet<String>> = HashMap::new();
    for f in p.funcs.iter().filter(|f| {
        f.class
            .as_ref()
            .is_some_and(|c| chain.iter().any(|k| k == c))
    }) {
        for e in &f.events {
            if let EventKind::Write {
                target,
                plain: true,
                rhs,
                ..
            } = &e.kind
                && !f.locals.contains(target)
            {
                out.entry(target.clone())
                    .or_default()
                    .extend(gmc::words(rhs).map(str::to_string));
            }
        }
    }
    out
}

fn none_bound(c: &Component) -> HashMap<&str, &BindingRow> {
    c.bindings
        .iter()
        .filter(|b| {
            b.simulation.value() == Some(SimulationMode::None)
                && b.prediction.value() != Some(PredictionMode::Local)
        })
        .map(|b| (b.member_name(), b))
        .collect()
}

/// Pitfall 9: the simulation path reads a value bound SimulationMode None.
fn not_simulated(cx: &mut Ctx, c: &Component, _comps: &[Component]) {
    let p = cx.p;
    let none = none_bound(c);
    if none.is_empty() {
        return;
    }
    let sim = p.simulation_path(&c.class);
    // A member the simulated path sets itself (from values that do arrive) is not missing.
    let written: HashSet<&str> = sim
        .iter()
        .filter_map(|s| match &p.funcs[s.func].events[s.event].kind {
            EventKind::Write { target, .. } => Some(target.as_str()),
            _ => None,
        })
        .collect();
    let mut done = HashSet::new();
    for s in sim.iter().cloned() {
        let f = &p.funcs[s.func];
        let EventKind::Read { name } = &f.events[s.event].kind else {
            continue;
        };
        if f.locals.contains(name) {
            continue;
        }
        if let Some(b) = none.get(name.as_str())
            && !written.contains(name.as_str())
            && done.insert(name.clone())
        {
            let at = cx.at(&s);
            let cited = cx.line_ref(at.0, b.file, b.pos.line);
            cx.add(NOT_SIMULATED, Severity::Warning, &c.class, at, Some(s.func), format!(
                "`{name}` is read by `{}` on simulated proxies, but bound SimulationMode None ({cited})", f.name));
        }
    }
}

/// Pitfall 9 from animation: an anim instance reads `X->Member` of a member bound None.
fn anim_reads(cx: &mut Ctx, comps: &[Component]) {
    let p = cx.p;
    let mut none: HashMap<&str, (&str, u32, usize)> = HashMap::new();
    for c in comps {
        for (n, b) in none_bound(c) {
            none.insert(n, (c.class.as_str(), b.pos.line, b.file));
        }
    }
    if none.is_empty() {
        return;
    }
    let mut done = HashSet::new();
    for (fi, f) in p.funcs.iter().enumerate() {
        let Some(class) = f.class.as_deref() else {
            continue;
        };
        if !p.chain(class).iter().any(|b| b.contains("AnimInstance")) {
            continue;
        }
        for e in &f.events {
            let EventKind::Field { path, name } = &e.kind else {
                continue;
            };
            if let Some(&(comp, line, file)) = none.get(name.as_str())
                && done.insert((class.to_string(), name.clone()))
            {
                let cited = cx.line_ref(f.file, file, line);
                cx.add(NOT_SIMULATED, Severity::Warning, comp, (f.file, e.pos), Some(fi), format!(
                    "`{path}` is read by the animation of `{class}`, but `{comp}` binds `{name}` SimulationMode None ({cited}): simulated proxies never get it"));
            }
        }
    }
}
