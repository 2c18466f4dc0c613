//! A session change in words, for [`super::plan`]: the settings that differ between the
//! effective presets before and after a command, and between its binding lists.

use crate::model::binding::Bindings;
use crate::session::preset::{Direction, Preset};

/// The `SessionChanged` text: the command's own words, the differences, or both; `None` when
/// neither says anything (the setting was set to what it was).
pub(super) fn change_text(what: String, diff: &[String]) -> Option<String> {
    match (what.is_empty(), diff.is_empty()) {
        (true, true) => None,
        (true, false) => Some(diff.join("; ")),
        (false, true) => Some(what),
        (false, false) => Some(format!("{what}: {}", diff.join("; "))),
    }
}

/// The differences of `client`'s link in the `direction` changed (`up …`, `down …`).
pub(super) fn link_diff(
    before: &Preset,
    now: &Preset,
    client: u16,
    direction: Direction,
) -> Vec<String> {
    let mut d = Vec::new();
    for (up, name) in [(true, "up"), (false, "down")] {
        let hit = match direction {
            Direction::Both => true,
            Direction::Up => up,
            Direction::Down => !up,
        };
        if hit {
            d.extend(
                json_diff(
                    &before.link_params(client, up),
                    &now.link_params(client, up),
                )
                .into_iter()
                .map(|x| format!("{name} {x}")),
            );
        }
    }
    d
}

/// `key: old -> new` for every leaf that differs between two serializable values (dotted keys;
/// arrays compare whole).
fn json_diff<T: serde::Serialize>(a: &T, b: &T) -> Vec<String> {
    fn walk(key: &str, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
        use serde_json::Value;
        // A trace is named by its source (its samples would fill the log).
        if key == "trace" || key.ends_with(".trace") {
            if a != b {
                let name = |v: &Value| {
                    v.get("source")
                        .and_then(Value::as_str)
                        .map_or_else(|| "none".to_string(), |s| format!("the trace {s}"))
                };
                out.push(format!("{key}: {} -> {}", name(a), name(b)));
            }
            return;
        }
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for (k, va) in x {
                    let path = if key.is_empty() {
                        k.clone()
                    } else {
                        format!("{key}.{k}")
                    };
                    match y.get(k) {
                        Some(vb) => walk(&path, va, vb, out),
                        None => out.push(format!("{path}: {va} -> (none)")),
                    }
                }
            }
            _ if a != b => out.push(format!("{key}: {a} -> {b}")),
            _ => {}
        }
    }
    let (Ok(a), Ok(b)) = (serde_json::to_value(a), serde_json::to_value(b)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    walk("", &a, &b, &mut out);
    out
}

/// The settings that differ between two presets (links are described by their command).
pub(super) fn preset_diff(a: &Preset, b: &Preset) -> Vec<String> {
    json_diff(a, b)
        .into_iter()
        .filter(|d| !d.starts_with("link_overrides:") && !d.starts_with("lesson"))
        .collect()
}

/// Bindings added, removed or changed (by name) between two binding lists.
pub(super) fn bindings_diff(a: &Bindings, b: &Bindings) -> Vec<String> {
    let mut out = Vec::new();
    for x in a.list() {
        match b.list().iter().find(|y| y.name == x.name) {
            None => out.push(format!("binding {} removed", x.name)),
            Some(y) => out.extend(
                json_diff(x, y)
                    .into_iter()
                    .filter(|d| !d.starts_with("name:"))
                    .map(|d| format!("binding {} {d}", x.name)),
            ),
        }
    }
    for y in b.list() {
        if !a.list().iter().any(|x| x.name == y.name) {
            out.push(format!("binding {} added", y.name));
        }
    }
    if out.is_empty() && a.list() != b.list() {
        out.push("binding order changed".to_string());
    }
    out
}
