//! The layering rule of docs/ARCHITECTURE.md, checked on the source: every `crate::layer::…`
//! (library) or `movescope::layer::…` (binary) path points to the same layer or one below it,
//! and no two files import each other, directly or around a loop.
//!
//! Reads the non-test part of each file (up to its first `#[cfg(test)]`), skipping comments. A
//! child file naming its own folder's `mod.rs` (the module it belongs to) is not an edge: a
//! child sees its parent by Rust's rules, and the parent re-exporting a child is.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Bottom to top. A file may use its own layer and the layers before it.
const LAYERS: &[&str] = &[
    "support",
    "model",
    "conditions",
    "session",
    "sim",
    "net",
    "analysis",
    "gmclog",
    "app",
    "bench",
    "cli",
];

/// The layer of a file under `src/`: its first folder; `main.rs` is the CLI's, `lib.rs` none.
fn layer_of(rel: &Path) -> Option<&'static str> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    if first == "main.rs" {
        return Some("cli");
    }
    if first == "lib.rs" {
        return None;
    }
    let name = first.trim_end_matches(".rs");
    LAYERS.iter().copied().find(|l| *l == name)
}

fn rank(layer: &str) -> usize {
    LAYERS
        .iter()
        .position(|l| *l == layer)
        .unwrap_or_else(|| panic!("unknown layer {layer}"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file (`net/remote/mod.rs` → ["net", "remote"]).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        parts.push(stem.to_string());
    }
    parts
}

/// Paths named in the non-test, non-comment code of a file, as module paths from the crate root.
fn named_paths(text: &str, module: &[String], binary: bool) -> Vec<Vec<String>> {
    let code = text.split("\n#[cfg(test)]").next().unwrap_or(text);
    let mut out = Vec::new();
    for line in code.lines() {
        let t = line.trim_start();
        if t.starts_with("//") {
            continue;
        }
        let roots: &[&str] = if binary {
            &["movescope::", "crate::"]
        } else {
            &["crate::", "super::"]
        };
        for root in roots {
            let mut rest = t;
            while let Some(i) = rest.find(root) {
                let before = rest[..i].chars().last();
                let after = &rest[i + root.len()..];
                rest = after;
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let mut path: Vec<String> = match *root {
                    "super::" => module[..module.len().saturating_sub(1)].to_vec(),
                    "crate::" if binary => vec!["<bin>".into()],
                    _ => Vec::new(),
                };
                let mut tail = after;
                loop {
                    let seg: String = tail
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if seg.is_empty() {
                        break;
                    }
                    if seg == "super" {
                        path.pop();
                    } else {
                        path.push(seg.clone());
                    }
                    tail = &tail[seg.len()..];
                    match tail.strip_prefix("::") {
                        Some(t) => tail = t,
                        None => break,
                    }
                }
                out.push(path);
            }
        }
    }
    out
}

/// The file a module path lands in: the longest prefix that is a module file.
fn file_of(path: &[String], files: &BTreeMap<Vec<String>, PathBuf>) -> Option<PathBuf> {
    (1..=path.len())
        .rev()
        .find_map(|n| files.get(&path[..n]).cloned())
}

struct Source {
    rel: PathBuf,
    module: Vec<String>,
    binary: bool,
    text: String,
}

fn sources() -> Vec<Source> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).expect("under src").to_path_buf();
            let first = rel
                .components()
                .next()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .unwrap_or_default();
            let binary = matches!(first.as_str(), "main.rs" | "cli" | "bench");
            let mut module = module_of(&rel);
            if binary {
                module.insert(0, "<bin>".into());
            }
            Source {
                text: std::fs::read_to_string(&f).expect("read source"),
                rel,
                module,
                binary,
            }
        })
        .collect()
}

#[test]
fn dependencies_point_down() {
    let mut wrong = Vec::new();
    let sources = sources();
    for s in &sources {
        let Some(from) = layer_of(&s.rel) else {
            continue;
        };
        for path in named_paths(&s.text, &s.module, s.binary) {
            let first = path.first().map(String::as_str).unwrap_or("");
            let target = if first == "<bin>" {
                path.get(1).map(String::as_str).unwrap_or("")
            } else {
                first
            };
            if !LAYERS.contains(&target) {
                continue;
            }
            if rank(target) > rank(from) {
                wrong.push(format!(
                    "{} ({from}) uses {} ({target})",
                    s.rel.display(),
                    path.join("::")
                ));
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "dependencies must point down (docs/ARCHITECTURE.md):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_import_cycles_between_files() {
    let sources = sources();
    let files: BTreeMap<Vec<String>, PathBuf> = sources
        .iter()
        .map(|s| (s.module.clone(), s.rel.clone()))
        .collect();
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for s in &sources {
        let entry = edges.entry(s.rel.clone()).or_default();
        for path in named_paths(&s.text, &s.module, s.binary) {
            let Some(to) = file_of(&path, &files) else {
                continue;
            };
            let to_module = module_of(&to);
            let ancestor = s.module.starts_with(&to_module) && to != s.rel;
            let root = to_module.is_empty() || to_module == ["<bin>"];
            if to != s.rel && !ancestor && !root {
                entry.insert(to);
            }
        }
    }
    // Depth-first search for a back edge; the cycle is the stack from its target.
    fn visit(
        n: &PathBuf,
        edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        state: &mut BTreeMap<PathBuf, u8>,
        stack: &mut Vec<PathBuf>,
        cycles: &mut Vec<String>,
    ) {
        state.insert(n.clone(), 1);
        stack.push(n.clone());
        for m in edges.get(n).into_iter().flatten() {
            match state.get(m).copied().unwrap_or(0) {
                0 => visit(m, edges, state, stack, cycles),
                1 => {
                    let at = stack.iter().position(|x| x == m).unwrap_or(0);
                    let mut c: Vec<String> = stack[at..]
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect();
                    c.push(m.display().to_string());
                    cycles.push(c.join(" → "));
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.clone(), 2);
    }
    let mut state = BTreeMap::new();
    let mut cycles = Vec::new();
    for n in edges.keys() {
        if state.get(n).copied().unwrap_or(0) == 0 {
            visit(n, &edges, &mut state, &mut Vec::new(), &mut cycles);
        }
    }
    assert!(
        cycles.is_empty(),
        "files import each other (move the shared part into a lower file):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_checker_sees_a_wrong_direction_and_a_cycle() {
    // The two rules above must be able to fail: a model file naming the app, and two files
    // naming each other, are found.
    let model = vec!["model".to_string(), "pawn".to_string()];
    let paths = named_paths(
        "use crate::app::MovescopeApp;\n// use crate::net::live;\n",
        &model,
        false,
    );
    assert_eq!(
        paths,
        vec![vec!["app".to_string(), "MovescopeApp".to_string()]]
    );
    assert!(rank("app") > rank(layer_of(Path::new("model/pawn.rs")).unwrap_or("model")));
    let sup = named_paths("use super::binding::Field;", &model, false);
    assert_eq!(
        sup,
        vec![vec!["model".to_string(), "binding".into(), "Field".into()]]
    );
}

#[test]
fn the_model_is_sans_io_and_only_the_transport_imports_laminar() {
    let mut wrong = Vec::new();
    for s in sources() {
        let code = s.text.split("\n#[cfg(test)]").next().unwrap_or(&s.text);
        let code: String = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let file = s.rel.display().to_string();
        if file.starts_with("model/") {
            for banned in [
                "std::time",
                "std::thread",
                "std::net",
                "laminar",
                "getrandom",
            ] {
                if code.contains(banned) {
                    wrong.push(format!("{file} (model) names {banned}"));
                }
            }
        }
        if code.contains("laminar::") && file != "net/transport.rs" {
            wrong.push(format!(
                "{file} imports laminar (only net/transport.rs may)"
            ));
        }
        if code.contains("libc::") {
            wrong.push(format!("{file} calls libc (readiness waits use `polling`)"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
