//! The lint's binding table on forms written for it: `tests/lint/forms/tables/` holds cases (a
//! file, or a folder of a header, `.cpp` files and helpers) whose `Bind*` lines carry what the
//! table must say of the row made there:
//!
//! - `// bits: N` — the bits of one binding;
//! - `// scale: unit|angle|magnitude type|written|name|default` — what the value measures and
//!   what decided it (the type, a write site, the name as a last resort, the type and mode);
//! - `// shown: TEXT` — the member as the table shows it (a member reached through a pointer
//!   under the class that declares it);
//! - `// loop` — made in a loop: one row marked ×N, left out of the totals.
//!
//! Every marker must match a row, and no case may give a warning or an error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use movescope::analysis::lint::{self, Rates, Severity, render};
use movescope::session::preset::Preset;

mod common;

use common::files_of;

fn tables() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint/forms/tables")
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// (file name, line) → the markers on that line.
fn markers(case: &Path) -> BTreeMap<(String, u32), Vec<String>> {
    let mut out = BTreeMap::new();
    for f in files_of(case) {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, l) in text.lines().enumerate() {
            let found: Vec<String> = l
                .split("// ")
                .skip(1)
                .map(|m| m.trim().to_string())
                .filter(|m| {
                    m.starts_with("bits:")
                        || m.starts_with("scale:")
                        || m.starts_with("shown:")
                        || m == "loop"
                })
                .collect();
            if !found.is_empty() {
                out.insert((name(&f), i as u32 + 1), found);
            }
        }
    }
    out
}

/// What a row says for one marker's kind.
fn says(row: &lint::BindingRow, marker: &str) -> (String, String) {
    let (kind, want) = marker.split_once(':').unwrap_or((marker, ""));
    let got = match kind {
        "bits" => lint::row_bits(row).to_string(),
        "scale" => {
            let m = lint::row_measure(row);
            format!("{} {}", m.scale.as_str(), m.basis.as_str())
        }
        "shown" => render::shown_member(row),
        _ => (if row.in_loop { "loop" } else { "not in a loop" }).to_string(),
    };
    let want = if kind == "loop" {
        "loop".to_string()
    } else {
        want.trim().to_string()
    };
    (want, got)
}

#[test]
fn table_rows_say_what_their_lines_mark() {
    let mut failures = Vec::new();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(tables())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 4, "{cases:?}");
    for case in cases {
        let r = lint::lint_paths(std::slice::from_ref(&case), Rates::of(&Preset::default()));
        let loud = r.findings.iter().any(|f| f.severity != Severity::Note);
        if loud || !r.problems.is_empty() {
            failures.push(format!(
                "{}: not clean\n{}",
                case.display(),
                render::text(&r, true)
            ));
            continue;
        }
        for ((file, line), marks) in markers(&case) {
            let rows: Vec<&lint::BindingRow> = r
                .components
                .iter()
                .flat_map(|c| &c.bindings)
                .filter(|b| b.pos.line == line && name(&r.files[b.file].path) == file)
                .collect();
            if rows.is_empty() {
                failures.push(format!("{}: {file}:{line} made no row", case.display()));
                continue;
            }
            for row in rows {
                for m in &marks {
                    let (want, got) = says(row, m);
                    if want != got {
                        failures.push(format!(
                            "{}: {file}:{line} `{}`: {m} but the table says {got}",
                            case.display(),
                            row.member
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A binding made in a loop is one row marked ×N; the totals leave it out and say so.
#[test]
fn loop_bindings_are_left_out_of_the_totals_and_said_to_be() {
    let case = tables().join("loops-uncounted");
    let r = lint::lint_paths(&[case], Rates::of(&Preset::default()));
    let c = &r.components[0];
    let looped = c.bindings.iter().filter(|b| b.in_loop).count();
    assert_eq!(looped, 2, "{}", render::text(&r, true));
    assert_eq!(c.totals.looped, 2);
    let counted: u32 = c
        .bindings
        .iter()
        .filter(|b| !b.in_loop)
        .map(lint::row_bits)
        .sum();
    assert_eq!(c.totals.state_bits, counted);
    let table = render::table_text(c);
    assert!(table.contains("Charges[i] ×N, uncounted"), "{table}");
    assert!(
        table.contains("2 bindings made in a loop (×N) not counted"),
        "{table}"
    );
    let json = render::json(&r);
    let totals = &json["components"][0]["totals"];
    assert_eq!(totals["in_loops"], 2, "{totals}");
    assert_eq!(totals["uncounted"], 2, "{totals}");
    let rows = json["bindings"].as_array().unwrap();
    assert!(rows.iter().any(|b| b["in_loop"] == true));
    assert!(
        rows.iter()
            .any(|b| b["declared_by"] == "URelicStats" && b["name"] == "Stats->Resolve"),
        "{rows:?}"
    );
}
