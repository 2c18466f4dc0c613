//! Each lint rule on forms of its mistake written differently from the one the rule was first
//! written from, and on correct forms that look alike: `tests/lint/forms/<rule-id>/` holds
//! `bad-*` and `good-*` cases, each a `.cpp`/`.h` file or a folder (a header and a `.cpp`, a
//! helper in another file, a `.cpp` alone). In a bad case every expected finding is marked on
//! its line with `// expect: <rule-id>` (in any of its files); the lint must find exactly
//! those, and nothing else. A good case must give no finding at all. Together with the rule's
//! `<rule-id>.bad.cpp` and `.good.cpp` in tests/lint/, every rule has at least three wrong
//! forms and two right ones.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use movescope::analysis::lint::{self, RULES, Rates, render};
use movescope::session::preset::Preset;

mod common;

use common::files_of;

fn forms() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint/forms")
}

/// Lints a case: the whole file or folder, or only the paths its `LINT` file lists (a `.cpp`
/// named alone, its header to be found).
fn lint(p: &Path) -> lint::LintReport {
    let only = p.join("LINT");
    let paths: Vec<PathBuf> = match std::fs::read_to_string(&only) {
        Ok(list) => list
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| p.join(l.trim()))
            .collect(),
        Err(_) => vec![p.to_path_buf()],
    };
    lint::lint_paths(&paths, Rates::of(&Preset::default()))
}

/// The cases of one rule: (path, bad?).
fn cases(rule: &str) -> Vec<(PathBuf, bool)> {
    let Ok(entries) = std::fs::read_dir(forms().join(rule)) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, bool)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            if name.starts_with("bad-") {
                Some((p, true))
            } else if name.starts_with("good-") {
                Some((p, false))
            } else {
                None
            }
        })
        .collect();
    out.sort();
    out
}

fn file_name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// (file, line, rule) of every `// expect: rule` marker of a case.
fn expected(case: &Path) -> BTreeSet<(String, u32, String)> {
    let mut out = BTreeSet::new();
    for f in files_of(case) {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, l) in text.lines().enumerate() {
            if let Some(r) = l.split("// expect: ").nth(1) {
                out.insert((file_name(&f), i as u32 + 1, r.trim().to_string()));
            }
        }
    }
    out
}

fn found(r: &lint::LintReport) -> BTreeSet<(String, u32, String)> {
    r.findings
        .iter()
        .map(|f| {
            (
                file_name(&r.files[f.file].path),
                f.pos.line,
                f.rule.id.to_string(),
            )
        })
        .collect()
}

#[test]
fn every_rule_has_three_wrong_forms_and_two_right_ones() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint");
    let mut short = Vec::new();
    for rule in RULES {
        let c = cases(rule.id);
        let bad = c.iter().filter(|(_, b)| *b).count()
            + usize::from(base.join(format!("{}.bad.cpp", rule.id)).exists());
        let good = c.iter().filter(|(_, b)| !*b).count()
            + usize::from(base.join(format!("{}.good.cpp", rule.id)).exists());
        if bad < 3 || good < 2 {
            short.push(format!("{}: {bad} wrong, {good} right", rule.id));
        }
    }
    assert!(
        short.is_empty(),
        "rules without enough forms:\n{}",
        short.join("\n")
    );
}

#[test]
fn wrong_forms_are_found_on_their_lines_and_nowhere_else() {
    let mut failures = Vec::new();
    for rule in RULES {
        for (case, bad) in cases(rule.id) {
            if !bad {
                continue;
            }
            let want = expected(&case);
            assert!(
                want.iter().any(|(_, _, r)| r == rule.id),
                "{} marks no `{}` finding",
                case.display(),
                rule.id
            );
            let r = lint(&case);
            assert!(
                r.problems.is_empty(),
                "{}: {:?}",
                case.display(),
                r.problems
            );
            let got = found(&r);
            if got != want {
                failures.push(format!(
                    "{}\n  expected {:?}\n  found    {:?}\n{}",
                    case.display(),
                    want.difference(&got).collect::<Vec<_>>(),
                    got.difference(&want).collect::<Vec<_>>(),
                    render::text(&r, false)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn right_forms_lint_clean() {
    let mut failures = Vec::new();
    for rule in RULES {
        for (case, bad) in cases(rule.id) {
            if bad {
                continue;
            }
            let r = lint(&case);
            assert!(
                r.problems.is_empty(),
                "{}: {:?}",
                case.display(),
                r.problems
            );
            assert!(
                !r.components.is_empty(),
                "{}: no component found",
                case.display()
            );
            if !r.findings.is_empty() {
                failures.push(format!("{}\n{}", case.display(), render::text(&r, false)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_table_marks_conditional_bindings_and_costs_aims_as_angles() {
    let src = r#"
class UAimMovement : public UGMC_OrganicMovementCmp
{
	GENERATED_BODY()
	FRotator AimRotation;
	FVector MoveDirectionInput;
	FVector TargetLocation;
	bool bUseTarget = false;
};

void UAimMovement::BindReplicationData_Implementation()
{
	Super::BindReplicationData_Implementation();
	BindCompressedRotator(AimRotation, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	BindCompressedVector(MoveDirectionInput, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	if (bUseTarget)
	{
		BindCompressedVector(TargetLocation, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);
	}
}
"#;
    let r = lint::lint_sources(
        vec![lint::SourceFile::new(
            PathBuf::from("aim.cpp"),
            src.to_string(),
            None,
        )],
        Rates::of(&Preset::default()),
    );
    let c = &r.components[0];
    let bits: Vec<u32> = c.bindings.iter().map(lint::row_bits).collect();
    // An aim is angles (180° per component), a direction an axis, a location a magnitude.
    assert_eq!(bits, vec![54, 30, 60], "{bits:?}");
    let table = render::table_text(c);
    assert!(table.contains("TargetLocation †"), "{table}");
    assert!(!table.contains("AimRotation †"), "{table}");
    assert!(
        table.contains("† made only when a condition holds"),
        "{table}"
    );
}

/// `input-written-in-tick` decides once per member whether it is a pulse or a value the tick
/// derives, from all its writes: one member cleared under a condition and computed elsewhere
/// gets the same fix in every finding; a flag only ever cleared is a pulse.
#[test]
fn every_finding_on_one_input_gives_the_same_fix() {
    let case = forms().join("input-written-in-tick/bad-one-member-reset-and-derived.cpp");
    let r = lint(&case);
    let advice = |member: &str| -> BTreeSet<bool> {
        r.findings
            .iter()
            .filter(|f| f.rule.id == "input-written-in-tick" && f.message.contains(member))
            .map(|f| f.message.contains("bind it as an output"))
            .collect()
    };
    let boost = advice("`BoostInput`");
    assert_eq!(boost, BTreeSet::from([true]), "{}", render::text(&r, false));
    let dodge = advice("`bWantsDodge`");
    assert_eq!(
        dodge,
        BTreeSet::from([false]),
        "{}",
        render::text(&r, false)
    );
}
