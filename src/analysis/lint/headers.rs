//! The header of a `.cpp` that was named without it: the rules about members
//! (`unbound-state-in-tick`, `input-written-in-tick` for members, `frame-delta-in-tick` for
//! stored deltas) need the class declaration. Looked for where Unreal projects keep it: next
//! to the `.cpp`, at the path of its own `#include` (the same name, or the first quoted
//! include, which Unreal's include-what-you-use order makes the file's own header), resolved
//! from the `.cpp`'s folder and its ancestors, their `Public` and `Classes` folders, and by
//! name in the module's folders. A class whose declaration is still not read gets a note
//! (`header-not-found`), and its members are inferred from what its functions assign
//! (`Program::fields`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Folders searched upwards from a `.cpp` (Private/Sub/X.cpp → the module's root).
const UP: usize = 4;
/// Entries looked at when searching a module's folders by name.
const SEARCH_BUDGET: usize = 20_000;
/// The first bytes of a `.cpp` read for its includes.
const INCLUDE_BYTES: usize = 64 * 1024;

/// Headers to read along with `files`: each `.cpp`'s own header when it is not among them.
pub fn companions(files: &[PathBuf]) -> Vec<PathBuf> {
    let have: BTreeSet<PathBuf> = files.iter().map(|p| canonical(p)).collect();
    let mut out: Vec<PathBuf> = Vec::new();
    let mut added = BTreeSet::new();
    for cpp in files.iter().filter(|p| is_ext(p, &["cpp", "cc", "cxx"])) {
        let Some(h) = own_header(cpp) else { continue };
        let c = canonical(&h);
        if !have.contains(&c) && added.insert(c) {
            out.push(h);
        }
    }
    out
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn is_ext(p: &Path, exts: &[&str]) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| exts.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

/// The quoted includes of a `.cpp`, in order.
fn includes(cpp: &Path) -> Vec<String> {
    let Ok(bytes) = std::fs::read(cpp) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(INCLUDE_BYTES)]).into_owned();
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start().strip_prefix('#')?.trim_start();
            let rest = l.strip_prefix("include")?.trim_start().strip_prefix('"')?;
            Some(rest.split('"').next()?.to_string())
        })
        .filter(|i| !i.is_empty() && !i.contains(".."))
        .collect()
}

fn own_header(cpp: &Path) -> Option<PathBuf> {
    let dir = cpp.parent()?;
    let stem = cpp.file_stem()?.to_str()?;
    for ext in ["h", "hpp"] {
        let p = dir.join(format!("{stem}.{ext}"));
        if p.is_file() {
            return Some(p);
        }
    }
    let incs = includes(cpp);
    let own: Vec<&String> = incs
        .iter()
        .filter(|i| Path::new(i).file_stem().and_then(|s| s.to_str()) == Some(stem))
        .chain(incs.first())
        .collect();
    let ancestors: Vec<&Path> = dir.ancestors().take(UP + 1).collect();
    for inc in &own {
        for a in &ancestors {
            for sub in ["", "Public", "Classes"] {
                let p = a.join(sub).join(inc);
                if p.is_file() && is_ext(&p, &["h", "hpp"]) {
                    return Some(p);
                }
            }
        }
    }
    // By name in the module: from the folder above `Private` (or the `.cpp`'s parent).
    let root = ancestors
        .iter()
        .find(|a| a.join("Public").is_dir() || a.join("Classes").is_dir())
        .copied()
        .unwrap_or(dir);
    let names: Vec<String> = std::iter::once(format!("{stem}.h"))
        .chain(own.iter().filter_map(|i| {
            Path::new(i.as_str())
                .file_name()
                .and_then(|n| n.to_str())
                .map(str::to_string)
        }))
        .collect();
    find_by_name(root, &names)
}

/// The source files of headers named without them (`--component MyCmp.h` when the binds are
/// in `MyCmp.cpp`): next to the header, in the module's `Private` folder at the same place
/// as under `Public` (or `Classes`), else by name in the module's folders.
pub fn sources_of(files: &[PathBuf]) -> Vec<PathBuf> {
    let have: BTreeSet<PathBuf> = files.iter().map(|p| canonical(p)).collect();
    let mut out = Vec::new();
    for h in files.iter().filter(|p| is_ext(p, &["h", "hpp"])) {
        let Some(cpp) = own_source(h) else { continue };
        let c = canonical(&cpp);
        if !have.contains(&c) && !out.iter().any(|o: &PathBuf| canonical(o) == c) {
            out.push(cpp);
        }
    }
    out
}

fn own_source(header: &Path) -> Option<PathBuf> {
    let dir = header.parent()?;
    let stem = header.file_stem()?.to_str()?;
    let names: Vec<String> = ["cpp", "cc", "cxx"]
        .iter()
        .map(|e| format!("{stem}.{e}"))
        .collect();
    for n in &names {
        let p = dir.join(n);
        if p.is_file() {
            return Some(p);
        }
    }
    // Public/Sub/X.h ↔ Private/Sub/X.cpp.
    let parts: Vec<&std::ffi::OsStr> = dir.iter().collect();
    if let Some(i) = parts
        .iter()
        .rposition(|p| *p == "Public" || *p == "Classes")
    {
        let mut mirrored: PathBuf = parts[..i].iter().collect();
        mirrored.push("Private");
        mirrored.extend(&parts[i + 1..]);
        for n in &names {
            let p = mirrored.join(n);
            if p.is_file() {
                return Some(p);
            }
        }
        let module: PathBuf = parts[..i].iter().collect();
        return find_by_name(&module, &names);
    }
    None
}

fn find_by_name(root: &Path, names: &[String]) -> Option<PathBuf> {
    let mut stack = vec![root.to_path_buf()];
    let mut budget = SEARCH_BUDGET;
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for p in entries {
            budget = budget.checked_sub(1)?;
            if p.is_dir() {
                stack.push(p);
            } else if p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| names.iter().any(|x| x == n))
            {
                return Some(p);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cpp_finds_its_header_in_the_modules_public_folder_by_its_include() {
        let root = std::env::temp_dir().join(format!("movescope-headers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let private = root.join("Source/Game/Private/Movement");
        let public = root.join("Source/Game/Public/Movement");
        std::fs::create_dir_all(&private).unwrap();
        std::fs::create_dir_all(&public).unwrap();
        let cpp = private.join("ChargeMovement.cpp");
        std::fs::write(&cpp, "#include \"Movement/ChargeMovement.h\"\n").unwrap();
        std::fs::write(
            public.join("ChargeMovement.h"),
            "class UChargeMovement {};\n",
        )
        .unwrap();
        let found = companions(std::slice::from_ref(&cpp));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            canonical(&found[0]),
            canonical(&public.join("ChargeMovement.h"))
        );
        // Named together: nothing to add.
        assert!(companions(&[cpp, public.join("ChargeMovement.h")]).is_empty());
        let _ = std::fs::remove_dir_all(&root);
    }
}
