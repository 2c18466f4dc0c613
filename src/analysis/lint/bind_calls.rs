//! Which calls make bindings: a GMC `Bind*` call, and the functions that make one (directly
//! or through what they call). Below the program, which asks it while it is built, and the
//! pointer-following in `through`.

use std::collections::HashSet;

use super::syntax::{EventKind, Func};
use crate::model::binding::BoundType;

/// A receiver's type is looked up at most this many hops deep (`A->B->C`, `auto` locals).
pub(super) const MAX_HOPS: usize = 6;

/// A call to a GMC bind function (`through`: also through a pointer).
pub fn is_bind_call(k: &EventKind, through: bool) -> bool {
    matches!(k, EventKind::Call { name, receiver, .. }
        if BoundType::from_gmc_function(name).is_some() && (through || receiver.is_none()))
}

/// Names of the functions that make bindings: a `Bind*` call of GMC's (directly or through a
/// pointer), or a call of a function so named. By name, so a call through a pointer whose
/// type is unknown can still be told apart from one that binds nothing.
pub(super) fn binding_function_names(funcs: &[Func]) -> HashSet<String> {
    let mut names: HashSet<String> = funcs
        .iter()
        .filter(|f| f.events.iter().any(|e| is_bind_call(&e.kind, true)))
        .map(|f| f.name.clone())
        .collect();
    for _ in 0..MAX_HOPS * 2 {
        let before = names.len();
        for f in funcs {
            if names.contains(&f.name) {
                continue;
            }
            let calls_one = f.events.iter().any(|e| {
                matches!(&e.kind, EventKind::Call { name, .. } if names.contains(name) && *name != f.name)
            });
            if calls_one {
                names.insert(f.name.clone());
            }
        }
        if names.len() == before {
            break;
        }
    }
    names
}
