//! The checks behind the rules of [`super::table`]: [`check`] runs them on a [`Program`].

use std::collections::{HashMap, HashSet};

use super::gmc::{self, Arg};
use super::program::{BindingRow, Component, Program, Step, is_bind_call};
use super::syntax::{CondKind, EventKind, Pos};
use crate::model::binding::{CombineMode, PredictionMode, SimulationMode};

pub use super::ctx::Finding;
pub use super::table::*;

use super::ctx::Ctx;

/// Runs every rule on the program's components.
pub fn check(p: &Program, comps: &[Component]) -> Vec<Finding> {
    let mut cx = Ctx::new(p);
    outside_bindings(&mut cx, comps);
    for c in comps {
        binding_rules(&mut cx, c);
        let path = p.prediction_path(&c.class);
        if !path.is_empty() {
            prediction_rules(&mut cx, c, &path);
        }
        sync_applied(&mut cx, c);
        not_simulated(&mut cx, c, comps);
        header_missing(&mut cx, c);
    }
    anim_reads(&mut cx, comps);
    cx.out
}

/// A component whose functions were read but whose class declaration was not.
fn header_missing(cx: &mut Ctx, c: &Component) {
    let p = cx.p;
    if p.class(&c.class).is_some() {
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
    cx.add(
        HEADER_MISSING,
        Severity::Note,
        &c.class,
        (f.file, f.pos),
        Some(first),
        format!(
            "no declaration of `{}` was read (looked next to this file, at its #include and in the module's folders): the rules about members ran without its member types",
            c.class
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

fn binding_rules(cx: &mut Ctx, c: &Component) {
    let p = cx.p;
    if let Some(&bf) = c.bind_funcs.first() {
        let f = &p.funcs[bf];
        match c.super_at {
            None => cx.add(
                NO_SUPER,
                Severity::Error,
                &c.class,
                (f.file, f.pos),
                Some(bf),
                format!(
                    "`{}::{}` never calls Super::BindReplicationData_Implementation()",
                    c.class, f.name
                ),
            ),
            Some((k, _)) if k > 0 => {
                let first = &c.bindings[0];
                cx.add(
                    BEFORE_SUPER,
                    Severity::Warning,
                    &c.class,
                    (first.file, first.pos),
                    Some(first.step.func),
                    format!(
                        "`{}` is bound before Super::BindReplicationData_Implementation() ({k} binding{} before it)",
                        first.member,
                        if k == 1 { "" } else { "s" }
                    ),
                );
            }
            _ => {}
        }
    }
    let mut first_at: HashMap<&str, &BindingRow> = HashMap::new();
    // Bindings under one condition, reported once: (function, line, column) of the condition.
    type Group<'r> = ((String, Pos, bool), Vec<&'r BindingRow>);
    let mut grouped: HashMap<(usize, u32, u32), Group> = HashMap::new();
    let mut order = Vec::new();
    for b in &c.bindings {
        // A binding of something a local names (`Variable->CurrentValue` for each entry of a
        // registry) is a different value at each call: it is not compared by its text, and a
        // condition that only tests that local (`if (auto* V = Map.Find(Name))`) is not a
        // condition on the layout.
        let root = b
            .member
            .split(['.', '-', '[', '>', '(', ' '])
            .next()
            .unwrap_or("")
            .trim_start_matches(['*', '&']);
        let local_root = p.funcs[b.step.func].locals.contains(root);
        if local_root {
            // Not compared by its text (see above).
        } else if let Some(prev) = first_at.get(b.member.as_str()) {
            cx.on_binding(
                BOUND_TWICE,
                Severity::Error,
                &c.class,
                b,
                format!(
                    "`{}` is bound a second time (first with {} on {})",
                    b.member,
                    prev.bind,
                    cx.line_ref(b.file, prev.file, prev.pos.line)
                ),
            );
        } else {
            first_at.insert(&b.member, b);
        }
        if let Some(cond) = binding_condition(p, b, local_root.then_some(root)) {
            let (_, pos, _) = &cond;
            let key = (b.step.func, pos.line, pos.col);
            grouped
                .entry(key)
                .or_insert_with(|| {
                    order.push(key);
                    (cond.clone(), Vec::new())
                })
                .1
                .push(b);
        }
        if let Some(PredictionMode::ClientAuth_Input) = b.prediction.value() {
            let bad = match b.combine.value() {
                Some(
                    CombineMode::AlwaysCombine
                    | CombineMode::AlwaysCombineOverwrite
                    | CombineMode::NeverCombine,
                ) => true,
                // `Default` is GMC's per-type rule; for discrete inputs it keeps pulses apart.
                _ => false,
            };
            if bad {
                let how = match &b.combine {
                    Arg::Default(m) => format!("{m:?} (what `{{}}` means)"),
                    a => format!("{:?}", a.value().unwrap_or(CombineMode::Default)),
                };
                cx.on_binding(
                    INPUT_COMBINES,
                    Severity::Warning,
                    &c.class,
                    b,
                    format!(
                        "input `{}` is bound ClientAuth_Input with {how}, not CombineIfUnchanged",
                        b.member
                    ),
                );
            }
        }
        let unknown: Vec<&str> = [
            matches!(b.prediction, Arg::Unknown(_)).then_some("prediction"),
            matches!(b.combine, Arg::Unknown(_)).then_some("combine"),
            matches!(b.simulation, Arg::Unknown(_)).then_some("simulation"),
            matches!(b.interpolation, Arg::Unknown(_)).then_some("interpolation"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !unknown.is_empty() {
            cx.on_binding(
                MODE_UNKNOWN,
                Severity::Note,
                &c.class,
                b,
                format!(
                    "the {} mode of `{}` is not an enumerator the lint can read",
                    unknown.join(", "),
                    b.member
                ),
            );
        }
    }
    for key in order {
        let Some(((text, pos, machine), rows)) = grouped.remove(&key) else {
            continue;
        };
        let names: Vec<String> = rows.iter().map(|r| format!("`{}`", r.member)).collect();
        let what = if names.len() == 1 {
            format!("{} is bound", names[0])
        } else {
            format!("{} bindings ({}) are made", names.len(), names.join(", "))
        };
        let cond_file = p.funcs[key.0].file;
        let cited = cx.line_ref(rows[0].file, cond_file, pos.line);
        cx.on_binding(
            CONDITIONAL,
            if machine {
                Severity::Error
            } else {
                Severity::Warning
            },
            &c.class,
            rows[0],
            format!(
                "{what} only when {text} ({cited}){}",
                if machine {
                    ": that differs between server and client"
                } else {
                    ": unless that is the same on every machine, the layouts differ"
                }
            ),
        );
    }
}

/// Names bound in `c`, and the bases of bound paths (`Data` for `Data.Speed`).
fn bound_names(c: &Component) -> HashSet<String> {
    let mut s = HashSet::new();
    for b in &c.bindings {
        s.insert(b.member_name().to_string());
        s.insert(b.member.clone());
        if let Some(head) = b.member.split(['.', '-']).next() {
            s.insert(head.to_string());
        }
    }
    s
}

fn prediction_rules(cx: &mut Ctx, c: &Component, path: &[Step]) {
    let p = cx.p;
    let fields: HashMap<String, String> = p.fields(&c.class).into_iter().collect();
    let bound = bound_names(c);
    let inputs: Vec<&str> = c
        .bindings
        .iter()
        .filter(|b| b.prediction.value() == Some(PredictionMode::ClientAuth_Input))
        .map(|b| b.member.as_str())
        .collect();
    // Members TickComponent fills from its frame delta.
    let mut delta_members: HashMap<String, (u32, usize)> = HashMap::new();
    for tick in p.lookup(Some(&c.class), "TickComponent", 0) {
        let Some(dt) = p.funcs[tick].params.first().cloned() else {
            continue;
        };
        for s in p.flow(tick) {
            if let EventKind::Write { target, rhs, .. } = cx.event(&s)
                && fields.contains_key(target)
                && gmc::words(rhs).any(|w| w == dt)
            {
                let (file, pos) = cx.at(&s);
                delta_members
                    .entry(target.clone())
                    .or_insert((pos.line, file));
            }
        }
    }
    let sealed = path
        .iter()
        .any(|s| matches!(cx.event(s), EventKind::Call { name, .. } if name == gmc::SEAL));
    let mut stream_seeded: HashSet<String> = HashSet::new();
    // (written path, function) → the finding already made for it.
    let mut input_seen: HashMap<(String, usize), usize> = HashMap::new();
    for s in path {
        let at = cx.at(s);
        let func = Some(s.func);
        match cx.event(s).clone() {
            EventKind::Call {
                path: cp,
                name,
                receiver,
                args,
            } => {
                if gmc::is_world_time_call(&cp, &name, receiver.as_deref()) && !cx.value_guarded(s)
                {
                    cx.add(
                        WORLD_TIME,
                        Severity::Warning,
                        &c.class,
                        at,
                        func,
                        format!("`{cp}()` reads the clock on the prediction path"),
                    );
                }
                if gmc::is_frame_delta_call(&cp, &name) && !cx.value_guarded(s) {
                    cx.add(
                        FRAME_DELTA,
                        Severity::Warning,
                        &c.class,
                        at,
                        func,
                        format!("`{cp}()` is this machine's frame delta, not the move's"),
                    );
                }
                if gmc::is_unseeded_random_call(&cp, &name) && !cx.value_guarded(s) {
                    cx.add(
                        RANDOM,
                        Severity::Warning,
                        &c.class,
                        at,
                        func,
                        format!("`{cp}()` draws a number client, server and replay do not share"),
                    );
                }
                if let Some(r) = &receiver {
                    let is_stream = fields.get(r).is_some_and(|t| t.contains("FRandomStream"));
                    if is_stream && matches!(name.as_str(), "Initialize" | "Reset") {
                        let seeded_from_move = args.iter().any(|a| {
                            gmc::words(a).any(|w| {
                                bound.contains(w)
                                    || w.starts_with("GetMove")
                                    || w == "GetIterationNumber"
                            })
                        });
                        if seeded_from_move {
                            stream_seeded.insert(r.clone());
                        }
                    } else if is_stream
                        && gmc::is_stream_draw(&name)
                        && !stream_seeded.contains(r)
                        && !cx.value_guarded(s)
                    {
                        cx.add(RANDOM, Severity::Warning, &c.class, at, func, format!(
                            "`{r}` is an FRandomStream member that draws here without being seeded from bound state in this move"));
                    }
                }
                let rpc = receiver.is_none() && p.rpcs.contains(&name);
                if (gmc::is_side_effect_call(&cp, &name) || rpc) && !cx.not_replayed(s) {
                    let what = if rpc {
                        format!("the RPC `{name}`")
                    } else {
                        format!("`{cp}()`")
                    };
                    cx.add(SIDE_EFFECT, Severity::Warning, &c.class, at, func, format!(
                        "{what} runs on every execution of the move (replays and combined re-runs too)"));
                }
            }
            EventKind::Field { path: fp, name } => {
                if gmc::is_world_time_field(&name) && !cx.value_guarded(s) {
                    cx.add(
                        WORLD_TIME,
                        Severity::Warning,
                        &c.class,
                        at,
                        func,
                        format!("`{fp}` is the world clock, read on the prediction path"),
                    );
                }
                if gmc::is_frame_delta_field(&name) && !cx.value_guarded(s) {
                    cx.add(
                        FRAME_DELTA,
                        Severity::Warning,
                        &c.class,
                        at,
                        func,
                        format!("`{fp}` is this machine's frame delta, not the move's"),
                    );
                }
            }
            EventKind::Read { name } => {
                if let Some(&(line, file)) = delta_members.get(&name)
                    && !p.funcs[s.func].locals.contains(&name)
                {
                    let cited = cx.line_ref(at.0, file, line);
                    cx.add(FRAME_DELTA, Severity::Warning, &c.class, at, func, format!(
                        "`{name}` holds TickComponent's frame delta (set on {cited}), read on the prediction path"));
                    delta_members.remove(&name);
                }
            }
            EventKind::Write {
                target, path, rhs, ..
            } if !p.funcs[s.func].locals.contains(&target) && cx.on_owner(s) => {
                let hit: Vec<&str> = inputs
                    .iter()
                    .copied()
                    .filter(|m| writes_member(&path, m))
                    .collect();
                if hit.is_empty() {
                    continue;
                }
                // A struct holding inputs (`Input = {}`) names them; a member or a part of one
                // is named itself.
                let what = if hit.len() == 1 && hit[0].len() <= path.len() {
                    format!("`{path}` is a ClientAuth_Input input")
                } else {
                    format!(
                        "`{path}` holds the ClientAuth_Input input{} {}",
                        if hit.len() > 1 { "s" } else { "" },
                        hit.iter()
                            .map(|m| format!("`{m}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                // A pulse cleared after use, or a value the tick derives: the fixes differ.
                let how = if rhs.is_empty() || super::carry::is_reset(&rhs) {
                    "a pulse consumed in the tick: the next execution of the move (a replay, the server's) still sees it set; clear it where input is gathered (PreLocalMoveExecution) and let CombineIfUnchanged keep the press in its own move"
                } else {
                    "a value the tick derives is not the player's input: bind it as an output (ServerAuth_Output_ClientValidated), so the server computes it too and the client's value is checked"
                };
                // One finding per input and function: later writes are listed in it.
                let key = (path.clone(), s.func);
                if let Some(&i) = input_seen.get(&key) {
                    let line = cx.line_ref(cx.out[i].file, at.0, at.1.line);
                    cx.out[i].message.push_str(&format!(" (also {line})"));
                    continue;
                }
                input_seen.insert(key, cx.out.len());
                cx.add(
                    INPUT_WRITTEN,
                    Severity::Warning,
                    &c.class,
                    at,
                    func,
                    format!("{what}, but the prediction path writes it: {how}"),
                );
            }
            _ => {}
        }
    }
    super::carry::unbound_state(cx, c, path, &fields, &bound);
    if !sealed {
        super::carry::one_shots(cx, c, path);
    }
}

/// The condition a binding is made under, if any: one around it or its helper's call, or an
/// early return before it (`if (!HasAuthority()) return;`); a machine condition first. Returns
/// (shown text, position, machine?). Loops, and tests of a local the binding is made through,
/// do not count.
fn binding_condition(
    p: &Program,
    b: &BindingRow,
    local: Option<&str>,
) -> Option<(String, Pos, bool)> {
    let mut conds = p.conds(&b.step);
    conds.extend(p.early_returns(&b.step));
    let conds: Vec<_> = conds
        .into_iter()
        .filter(|(k, ..)| *k != CondKind::Loop)
        .filter(|(_, t, ..)| local.is_none_or(|root| !gmc::words(t).any(|w| w == root)))
        .collect();
    let (k, text, _, pos) = conds
        .iter()
        .find(|(_, t, ..)| gmc::is_machine_condition(t))
        .or(conds.first())?
        .clone();
    let machine = gmc::is_machine_condition(&text);
    let shown = if k == CondKind::Else {
        format!("the else of {text}")
    } else {
        text
    };
    Some((shown, pos, machine))
}

/// Whether a write to `target` (a member, a struct's root, or a path through a pointer)
/// changes the bound member `member` (`bJump`, `Input.bJump`, `Data->bJump`): the member
/// itself, a part of it, or a struct that holds it.
fn writes_member(target: &str, member: &str) -> bool {
    let under = |whole: &str, part: &str| {
        part.strip_prefix(whole).is_some_and(|rest| {
            rest.starts_with('.') || rest.starts_with("->") || rest.starts_with('[')
        })
    };
    target == member || under(member, target) || under(target, member)
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
