//! Classes are keyed by name and place: a project that vendors a plugin twice, or keeps an
//! older copy of a component, declares the same class in two folders, and the two must stay
//! two components. A file's unit is its module's folder (the one holding `Public`/`Private`/
//! `Classes`, else the file's own folder), so a header in `Public` and its `.cpp` in `Private`
//! are one unit. A class name found in more than one unit is renamed, in each, to
//! `Name (unit)`; a base named by such a class is the one in the same unit.

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

use super::syntax::FileSyntax;

/// The unit of a file: its path up to a `Public`/`Private`/`Classes` folder, else its folder.
pub fn unit_of(path: &Path) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut out = PathBuf::new();
    for c in dir.components() {
        if let Component::Normal(n) = c
            && matches!(n.to_str(), Some("Public" | "Private" | "Classes"))
        {
            return out;
        }
        out.push(c);
    }
    dir.to_path_buf()
}

/// The class name without the unit a duplicate was given.
pub fn base_name(key: &str) -> &str {
    key.split(" (").next().unwrap_or(key)
}

/// Renames classes declared or defined in more than one unit (see the module's text).
pub fn separate(syn: &mut [FileSyntax], paths: &[PathBuf]) {
    let units: Vec<PathBuf> = paths.iter().map(|p| unit_of(p)).collect();
    let mut seen: HashMap<String, BTreeSet<usize>> = HashMap::new();
    for (i, s) in syn.iter().enumerate() {
        let u = unit_index(&units, i);
        for c in &s.classes {
            seen.entry(c.name.clone()).or_default().insert(u);
        }
        for f in &s.funcs {
            if let Some(c) = &f.class {
                seen.entry(c.clone()).or_default().insert(u);
            }
        }
    }
    let twice: HashMap<&String, ()> = seen
        .iter()
        .filter(|(_, u)| u.len() > 1)
        .map(|(n, _)| (n, ()))
        .collect();
    if twice.is_empty() {
        return;
    }
    let shown = |name: &str, file: usize| -> String {
        let unit = &units[unit_index(&units, file)];
        let unit = if unit.as_os_str().is_empty() {
            ".".to_string()
        } else {
            unit.display().to_string()
        };
        format!("{name} ({unit})")
    };
    let twice: BTreeSet<String> = twice.keys().map(|s| (*s).clone()).collect();
    for (i, s) in syn.iter_mut().enumerate() {
        for c in &mut s.classes {
            if twice.contains(&c.name) {
                c.name = shown(&c.name, i);
            }
            for b in &mut c.bases {
                if twice.contains(b.as_str()) {
                    *b = shown(b, i);
                }
            }
        }
        for f in &mut s.funcs {
            if let Some(c) = &mut f.class
                && twice.contains(c.as_str())
            {
                *c = shown(c, i);
            }
        }
    }
}

/// Files of one unit share an index (the first file of that unit).
fn unit_index(units: &[PathBuf], i: usize) -> usize {
    units.iter().position(|u| *u == units[i]).unwrap_or(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_in_public_and_its_cpp_in_private_are_one_unit() {
        assert_eq!(
            unit_of(Path::new("P/Plugins/A/Source/M/Public/Sub/X.h")),
            unit_of(Path::new("P/Plugins/A/Source/M/Private/Sub/X.cpp"))
        );
        assert_ne!(
            unit_of(Path::new("P/Plugins/A/Source/M/Public/X.h")),
            unit_of(Path::new("P/Plugins/B/Source/M/Public/X.h"))
        );
        assert_eq!(unit_of(Path::new("a.cpp")), PathBuf::new());
        assert_eq!(base_name("UFoo (Plugins/A)"), "UFoo");
    }
}
