//! Calls through pointers, as far as the bindings need them: what class a receiver points to
//! (`this`, a member, a parameter, a local, a chain of them, a `Cast<T>`), which functions make
//! bindings (themselves or through what they call), and which class declares a member reached
//! through a pointer (`Owner->Health` is `AOwnerPawn`'s). A call through a pointer is followed
//! only into a function that makes bindings, so the prediction path keeps to the component.

use std::collections::HashSet;

use super::bind_calls::MAX_HOPS;
use super::gmc;
use super::program::Program;
use super::syntax::EventKind;
use crate::model::binding::BoundType;

/// The class a type's text names: `TObjectPtr<UFoo>`, `UFoo*`, `const UFoo&`, `class UFoo*`
/// → `UFoo`.
pub fn class_of_type(ty: &str) -> Option<String> {
    let mut t = ty.trim();
    for prefix in ["const ", "class ", "struct "] {
        t = t.trim_start_matches(prefix).trim();
    }
    for wrapper in [
        "TObjectPtr<",
        "TWeakObjectPtr<",
        "TStrongObjectPtr<",
        "TSharedPtr<",
        "TUniquePtr<",
        "TSoftObjectPtr<",
    ] {
        if let Some(rest) = t.strip_prefix(wrapper) {
            t = rest.trim();
        }
    }
    let t = t.trim_end_matches(['*', '&', '>', ' ']).trim();
    let t = t.trim_start_matches("class ").trim();
    let name = t.rsplit("::").next().unwrap_or(t);
    let ok = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.starts_with(|c: char| c.is_ascii_uppercase());
    ok.then(|| name.to_string())
}

impl Program {
    /// The class the expression `expr` in function `func` points to or is, if the files tell:
    /// `this`, a parameter or local of a named type (an `auto` one from its initialiser), a
    /// member of the function's class, `A->B` / `A.B` chains, `Cast<T>(…)`.
    pub fn class_of_expr(&self, func: usize, expr: &str) -> Option<String> {
        self.class_of_expr_at(func, expr.trim(), 0)
    }

    fn class_of_expr_at(&self, func: usize, expr: &str, depth: usize) -> Option<String> {
        if depth > MAX_HOPS {
            return None;
        }
        let f = &self.funcs[func];
        let expr = expr.trim().trim_start_matches(['*', '&']);
        if expr == "this" {
            return f.class.clone();
        }
        if let Some(cast) = cast_target(expr) {
            return class_of_type(cast);
        }
        // The last hop of a chain: the type of its field in the class before it.
        if let Some((head, field)) = split_last_hop(expr) {
            let owner = self.class_of_expr_at(func, head, depth + 1)?;
            return self
                .field_type(&owner, field)
                .and_then(|t| class_of_type(&t));
        }
        if f.locals.contains(expr) {
            return self.local_class(func, expr, depth);
        }
        let class = f.class.as_deref()?;
        self.field_type(class, expr).and_then(|t| class_of_type(&t))
    }

    /// A local's or parameter's class: its declared type, or for `auto` its initialiser's.
    fn local_class(&self, func: usize, name: &str, depth: usize) -> Option<String> {
        let (ty, init) = self.funcs[func].events.iter().find_map(|e| match &e.kind {
            EventKind::Local { name: n, ty, init } if n == name => Some((ty, init)),
            _ => None,
        })?;
        if ty.trim_start_matches("const ").starts_with("auto") {
            return self.class_of_expr_at(func, init, depth + 1);
        }
        class_of_type(ty)
    }

    /// The declared type of `field` in `class` or its bases in the files.
    fn field_type(&self, class: &str, field: &str) -> Option<String> {
        self.fields(class)
            .into_iter()
            .find_map(|(n, t)| (n == field).then_some(t))
    }

    /// `Receiver->name(…)` from function `func`: the definitions it reaches when it makes
    /// bindings (an attribute set's `BindAll(this)`, a helper object's `Bind(Component)`, the
    /// component's own helper called back through a pointer). Through a receiver whose class
    /// the files do not tell, the one class defining a binding function of that name.
    pub(super) fn binding_call_through(
        &self,
        func: usize,
        receiver: &str,
        name: &str,
    ) -> Vec<usize> {
        if !self.makes_bindings_by_name(name) {
            return Vec::new();
        }
        let binds = |g: &usize| self.makes_bindings_by_name(&self.funcs[*g].name);
        if let Some(class) = self.class_of_expr(func, receiver)
            && self.class(&class).is_some()
        {
            return self
                .lookup(Some(&class), name, 0)
                .into_iter()
                .filter(binds)
                .collect();
        }
        // GMC's own bind function through a pointer of unknown class is GMC's, not a helper
        // some class happens to name the same.
        if BoundType::from_gmc_function(name).is_some() {
            return Vec::new();
        }
        let owners: HashSet<&str> = self
            .funcs
            .iter()
            .filter(|g| g.name == name || g.name == format!("{name}_Implementation"))
            .filter_map(|g| g.class.as_deref())
            .collect();
        if owners.len() != 1 {
            return Vec::new();
        }
        let only = owners.into_iter().next().unwrap_or_default().to_string();
        self.lookup(Some(&only), name, 0)
            .into_iter()
            .filter(binds)
            .collect()
    }

    /// Whether a condition in `func` only checks pointers that `func` calls through
    /// (`Comp == nullptr`, `!IsValid(Attributes)`, `Helper`): a null check of what a binding is
    /// made through, the same on every machine that has the object, not a condition on the
    /// layout.
    pub fn tests_only_receivers(&self, func: usize, cond: &str) -> bool {
        let f = &self.funcs[func];
        let receivers: HashSet<&str> = f
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Call {
                    receiver: Some(r), ..
                } => Some(r.split(['.', '-', '[']).next().unwrap_or(r)),
                _ => None,
            })
            .collect();
        let mut names = gmc::words(cond).filter(|w| {
            !matches!(
                *w,
                "nullptr" | "NULL" | "IsValid" | "IsValidLowLevel" | "IsValidChecked" | "Get"
            )
        });
        let mut any = false;
        let only = names.all(|w| {
            any = true;
            receivers.contains(w)
        });
        any && only
    }

    /// The class declaring the last member of a bound path reached through a pointer
    /// (`Owner->Health` → `Owner`'s class; `Attributes->Stats.Health` → `Attributes`'s), from
    /// `func` of the binding's component. `None` for the component's own members.
    pub fn declaring_class(&self, func: usize, member: &str) -> Option<String> {
        let (head, last) = member.rsplit_once("->")?;
        if let Some(c) = self.class_of_expr(func, head) {
            // The base in the files that declares it, else the pointer's own class.
            let field = last.split(['.', '[']).next().unwrap_or(last);
            let by = self.chain(&c).into_iter().find(|k| {
                self.class(k)
                    .is_some_and(|d| d.fields.iter().any(|(n, _)| n == field))
            });
            return Some(by.unwrap_or(c));
        }
        // A pointer whose class is not in the files: the type it is declared with.
        let root = head.split(['.', '-', '[']).next().unwrap_or(head);
        let f = &self.funcs[func];
        if f.locals.contains(root) {
            return None;
        }
        (root == head)
            .then(|| f.class.as_deref().and_then(|c| self.field_type(c, root)))
            .flatten()
            .and_then(|t| class_of_type(&t))
    }
}

/// `Cast<UFoo>(X)` / `CastChecked<UFoo>(X)` → `UFoo`.
fn cast_target(expr: &str) -> Option<&str> {
    let rest = expr
        .strip_prefix("Cast<")
        .or_else(|| expr.strip_prefix("CastChecked<"))
        .or_else(|| expr.strip_prefix("ExactCast<"))?;
    rest.split_once(">(").map(|(t, _)| t)
}

/// `A->B.C` → (`A->B`, `C`); `A` alone → `None`. A call or index in the chain is not split.
fn split_last_hop(expr: &str) -> Option<(&str, &str)> {
    if expr.contains(['(', '[']) {
        return None;
    }
    let arrow = expr.rfind("->").map(|i| (i, i + 2));
    let dot = expr.rfind('.').map(|i| (i, i + 1));
    let (at, after) = match (arrow, dot) {
        (Some(a), Some(d)) => {
            if a.0 > d.0 {
                a
            } else {
                d
            }
        }
        (Some(a), None) => a,
        (None, Some(d)) => d,
        (None, None) => return None,
    };
    Some((&expr[..at], &expr[after..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_name_their_class() {
        assert_eq!(
            class_of_type("TObjectPtr<UStrideAttributes>").as_deref(),
            Some("UStrideAttributes")
        );
        assert_eq!(class_of_type("const AMyPawn*").as_deref(), Some("AMyPawn"));
        assert_eq!(class_of_type("class UFoo*").as_deref(), Some("UFoo"));
        assert_eq!(class_of_type("float"), None);
        assert_eq!(class_of_type("auto"), None);
        assert_eq!(split_last_hop("A->B.C"), Some(("A->B", "C")));
        assert_eq!(split_last_hop("A->B"), Some(("A", "B")));
        assert_eq!(split_last_hop("A"), None);
        assert_eq!(cast_target("Cast<UX>(GetOwner())"), Some("UX"));
    }
}
