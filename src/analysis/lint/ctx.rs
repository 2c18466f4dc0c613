//! What every check shares: a [`Finding`], and the context a check runs in (the program,
//! the findings so far, and whether a step runs only on a live move or on one machine).

use std::collections::HashSet;

use super::gmc;
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

    pub(super) fn at(&self, s: &Step) -> (usize, Pos) {
        let f = &self.p.funcs[s.func];
        (f.file, f.events[s.event].pos)
    }

    pub(super) fn event<'b>(&'b self, s: &Step) -> &'b EventKind {
        &self.p.funcs[s.func].events[s.event].kind
    }

    /// Local names whose initial value is a live-move guard (`const bool bLive = !CL_IsReplaying() …`).
    fn guard_words(&self, func: usize) -> HashSet<String> {
        self.p.funcs[func]
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Local { name, init, .. } if gmc::is_live_guard(init) => {
                    Some(name.clone())
                }
                _ => None,
            })
            .collect()
    }

    /// The step runs only on a live move (or on one machine): under a guard, or after an early
    /// return under one in the same function or a caller.
    pub(super) fn guarded(&self, s: &Step, replay_only: bool) -> bool {
        let test = |text: &str, func: usize| {
            let direct = if replay_only {
                is_replay_guard(text)
            } else {
                gmc::is_live_guard(text)
            };
            direct || {
                let g = self.guard_words(func);
                gmc::words(text).any(|w| g.contains(w))
            }
        };
        if self
            .p
            .conds(s)
            .iter()
            .any(|(k, t, f, _)| *k != CondKind::Loop && test(t, *f))
        {
            return true;
        }
        // Early returns: `if (CL_IsReplaying()) return;` before this event, in this function or
        // before the call site in a caller.
        let mut sites = vec![(s.func, s.event)];
        let mut at = s.via.clone();
        while let Some(site) = at {
            sites.push((site.func, site.event));
            at = site.parent.clone();
        }
        sites.iter().any(|&(func, upto)| {
            let f = &self.p.funcs[func];
            f.events[..upto].iter().any(|e| {
                e.kind == EventKind::Return && f.conds_of(e.cond).any(|c| test(&c.text, func))
            })
        })
    }
}

/// A guard that keeps code off the owner's and the server's re-executions: the live-move
/// checks, or a positive test for a simulated proxy (where the prediction path is not the
/// move's).
fn is_replay_guard(text: &str) -> bool {
    let proxy_only = ["IsSimulatedProxy()", "ROLE_SimulatedProxy"]
        .iter()
        .any(|w| {
            text.match_indices(w).any(|(i, _)| {
                let before = text[..i].trim_end();
                !before.ends_with('!') && !before.ends_with("!=")
            })
        })
        && !text.contains("!=");
    proxy_only
        || gmc::words(text).any(|w| {
            matches!(
                w,
                "CL_IsReplaying"
                    | "IsSimulatedMove"
                    | "IsLocalMove"
                    | "IsReplaying"
                    | "bIsReplaying"
            )
        })
}
