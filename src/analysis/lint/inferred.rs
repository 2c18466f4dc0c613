//! Members of a class whose declaration was not read (a `.cpp` linted without its header):
//! what its member functions assign, typed by the assigned value where it tells.

use std::collections::{HashMap, HashSet};

use super::gmc;
use super::syntax::{ClassDecl, EventKind, Func};

/// Members of the classes whose declaration is not among the files, read from their member
/// functions: a name such a function assigns that is none of its locals or parameters, not
/// qualified (`A::B`), no engine global (`GEngine`, `GWorld`…) and no member GMC's or Unreal's
/// component bases declare ([`gmc::INHERITED_MEMBERS`]) is a member of its class. Its
/// type comes from what is assigned to it where that tells (`true`, `0.f`, `FVector(…)`,
/// `EMode::X`, a `b`-prefixed name), else it stays unknown ("") and the rules that need a
/// type pass it by.
pub(super) fn inferred_members(
    funcs: &[Func],
    declared: &HashMap<String, usize>,
) -> HashMap<String, Vec<(String, String)>> {
    assigned_members(funcs, |class, _| !declared.contains_key(class))
}

/// Members a read declaration lacks (a header from another version of the class): names its
/// member functions assign that neither the class nor a base declares, when every base is read
/// or is one of GMC's components (whose members [`gmc::INHERITED_MEMBERS`] lists). A base
/// that was not read could declare the name (and bind it), so then nothing is inferred.
pub(super) fn undeclared_members(
    funcs: &[Func],
    classes: &[ClassDecl],
    declared: &HashMap<String, usize>,
) -> HashMap<String, Vec<(String, String)>> {
    let mut known: HashMap<&str, Option<HashSet<&str>>> = HashMap::new();
    for c in classes {
        known
            .entry(c.name.as_str())
            .or_insert_with(|| chain_fields(&c.name, classes, declared));
    }
    assigned_members(funcs, |class, name| {
        known
            .get(class)
            .and_then(|f| f.as_ref())
            .is_some_and(|fields| !fields.contains(name))
    })
}

/// Every field `class` and its bases declare, or None when a base outside GMC's components
/// was not read.
fn chain_fields<'a>(
    class: &str,
    classes: &'a [ClassDecl],
    declared: &HashMap<String, usize>,
) -> Option<HashSet<&'a str>> {
    let mut fields = HashSet::new();
    let mut todo = vec![class.to_string()];
    let mut seen = HashSet::new();
    while let Some(c) = todo.pop() {
        if !seen.insert(c.clone()) || seen.len() > 16 {
            continue;
        }
        match declared.get(&c).map(|i| &classes[*i]) {
            Some(d) => {
                fields.extend(d.fields.iter().map(|(n, _)| n.as_str()));
                todo.extend(
                    d.bases
                        .iter()
                        .map(|b| b.rsplit("::").next().unwrap_or(b).to_string()),
                );
            }
            None if gmc::GMC_CLASSES.contains(&c.as_str()) => {}
            None => return None,
        }
    }
    Some(fields)
}

/// The names member functions assign that are none of their locals or parameters, not
/// qualified, no engine global and no member GMC's components declare, kept where
/// `wanted(class, name)`, with the type the assigned value tells.
fn assigned_members(
    funcs: &[Func],
    wanted: impl Fn(&str, &str) -> bool,
) -> HashMap<String, Vec<(String, String)>> {
    let mut out: HashMap<String, Vec<(String, String)>> = HashMap::new();
    for f in funcs {
        let Some(class) = f.class.as_deref() else {
            continue;
        };
        for e in &f.events {
            let EventKind::Write {
                target, rhs, path, ..
            } = &e.kind
            else {
                continue;
            };
            if f.locals.contains(target)
                || f.params.iter().any(|p| p == target)
                || target.contains("::")
                || is_engine_global(target)
                || gmc::is_inherited_member(target)
                || !wanted(class, target)
            {
                continue;
            }
            let ty = if path == target {
                type_of_assigned(target, rhs)
            } else {
                String::new()
            };
            let members = out.entry(class.to_string()).or_default();
            match members.iter_mut().find(|(n, _)| n == target) {
                Some((_, t)) if t.is_empty() => *t = ty,
                Some(_) => {}
                None => members.push((target.clone(), ty)),
            }
        }
    }
    out
}

/// `GEngine`, `GWorld`, `GIsEditor`…: Unreal's globals.
fn is_engine_global(name: &str) -> bool {
    let mut c = name.chars();
    c.next() == Some('G') && c.next().is_some_and(|x| x.is_ascii_uppercase())
}

/// The type a value assigned to `name` shows, or "" when it does not tell.
fn type_of_assigned(name: &str, rhs: &str) -> String {
    let r = rhs.trim();
    let bool_name = name.len() > 1
        && name.starts_with('b')
        && name[1..].starts_with(|c: char| c.is_ascii_uppercase());
    let ty = if r == "true" || r == "false" || bool_name {
        "bool"
    } else if let Some(t) = ["FVector2D", "FVector", "FRotator", "FQuat", "FName"]
        .into_iter()
        .find(|t| r.starts_with(&format!("{t}(")) || r.starts_with(&format!("{t}::")))
    {
        t
    } else if is_float_literal(r) {
        "float"
    } else if !r.is_empty()
        && r.trim_start_matches('-')
            .chars()
            .all(|c| c.is_ascii_digit())
    {
        "int32"
    } else if let Some((e, _)) = r
        .split_once("::")
        .filter(|(e, _)| e.starts_with('E') && e[1..].starts_with(|c: char| c.is_ascii_uppercase()))
    {
        return e.to_string();
    } else {
        ""
    };
    ty.to_string()
}

/// `0.f`, `1.5f`, `-2.0`, `.5f`: a floating literal.
fn is_float_literal(r: &str) -> bool {
    let t = r.trim_start_matches('-');
    let t = t.strip_suffix(['f', 'F']).unwrap_or(t);
    t.contains('.') && !t.is_empty() && t.chars().all(|c| c.is_ascii_digit() || c == '.')
}
