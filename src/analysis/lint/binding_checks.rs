//! The binding rules of [`super::rules`]: how a component's BindReplicationData calls Super,
//! and per binding whether it is bound twice, under a condition, with an input's wrong combine
//! mode, or with a mode the lint cannot read.

use std::collections::HashMap;

use super::ctx::Ctx;
use super::gmc::{self, Arg};
use super::program::{BindingRow, Component, Program};
use super::syntax::{CondKind, Pos};
use super::table::*;
use crate::model::binding::{CombineMode, PredictionMode};

/// Runs the binding rules on `c`: its Super call, then each binding, then the conditions the
/// bindings are made under (one finding per condition).
pub(super) fn binding_rules(cx: &mut Ctx, c: &Component) {
    let p = cx.p;
    super_call(cx, c);
    let mut first_at: HashMap<&str, &BindingRow> = HashMap::new();
    let mut conditional = Conditional::default();
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
        if !local_root {
            bound_twice(cx, c, b, &mut first_at);
        }
        if let Some(cond) = binding_condition(p, b, local_root.then_some(root)) {
            conditional.add(b, cond);
        }
        input_combines(cx, c, b);
        mode_unknown(cx, c, b);
    }
    conditional.report(cx, c);
}

/// Whether the component's first BindReplicationData calls Super, and before its bindings.
fn super_call(cx: &mut Ctx, c: &Component) {
    let p = cx.p;
    let Some(&bf) = c.bind_funcs.first() else {
        return;
    };
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

/// Whether `b` binds a member already bound (by its text; `first_at` holds each member's
/// first binding).
fn bound_twice<'r>(
    cx: &mut Ctx,
    c: &Component,
    b: &'r BindingRow,
    first_at: &mut HashMap<&'r str, &'r BindingRow>,
) {
    if let Some(prev) = first_at.get(b.member.as_str()) {
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
}

/// Whether a ClientAuth_Input binding combines in a way that merges or drops presses
/// (`Default` is GMC's per-type rule; for discrete inputs it keeps pulses apart).
fn input_combines(cx: &mut Ctx, c: &Component, b: &BindingRow) {
    if b.prediction.value() != Some(PredictionMode::ClientAuth_Input) {
        return;
    }
    let bad = matches!(
        b.combine.value(),
        Some(
            CombineMode::AlwaysCombine
                | CombineMode::AlwaysCombineOverwrite
                | CombineMode::NeverCombine,
        )
    );
    if !bad {
        return;
    }
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

/// Whether one of `b`'s modes is not an enumerator the lint can read.
fn mode_unknown(cx: &mut Ctx, c: &Component, b: &BindingRow) {
    let unknown: Vec<&str> = [
        matches!(b.prediction, Arg::Unknown(_)).then_some("prediction"),
        matches!(b.combine, Arg::Unknown(_)).then_some("combine"),
        matches!(b.simulation, Arg::Unknown(_)).then_some("simulation"),
        matches!(b.interpolation, Arg::Unknown(_)).then_some("interpolation"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if unknown.is_empty() {
        return;
    }
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

/// A condition's (function, line, column).
type CondAt = (usize, u32, u32);

/// A condition (shown text, position, machine?) and the bindings made under it.
type Group<'r> = ((String, Pos, bool), Vec<&'r BindingRow>);

/// Bindings under one condition, to report once: by the condition, in the order the
/// conditions were met.
#[derive(Default)]
struct Conditional<'r> {
    grouped: HashMap<CondAt, Group<'r>>,
    order: Vec<CondAt>,
}

impl<'r> Conditional<'r> {
    /// Files `b` under its condition `cond` (shown text, position, machine?).
    fn add(&mut self, b: &'r BindingRow, cond: (String, Pos, bool)) {
        let (_, pos, _) = &cond;
        let key = (b.step.func, pos.line, pos.col);
        let order = &mut self.order;
        self.grouped
            .entry(key)
            .or_insert_with(|| {
                order.push(key);
                (cond.clone(), Vec::new())
            })
            .1
            .push(b);
    }

    /// One finding per condition, naming its bindings: an error for a machine condition (it
    /// differs between server and client), else a warning.
    fn report(mut self, cx: &mut Ctx, c: &Component) {
        let p = cx.p;
        for key in self.order {
            let Some(((text, pos, machine), rows)) = self.grouped.remove(&key) else {
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
}

/// The condition a binding is made under, if any: one around it or its helper's call, or an
/// early return before it (`if (!HasAuthority()) return;`); a machine condition first. Returns
/// (shown text, position, machine?). Loops, tests of a local the binding is made through, and
/// null checks of the pointers calls are made through (`if (!Comp) return;`), do not count.
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
        .filter(|(_, t, func, _)| !p.tests_only_receivers(*func, t))
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
