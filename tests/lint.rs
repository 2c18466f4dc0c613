//! `movescope lint` on the small components in tests/lint/: every rule fires on the lines
//! marked `// expect: <rule>` of its `.bad.cpp` and nowhere else, and its `.good.cpp` (the
//! correct form) lints clean. Also the binding table, allow comments, the output formats, exit
//! codes and hostile files.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use movescope::analysis::lint::{self, RULES, Rates, Severity, SourceFile, render};
use movescope::model::binding::BoundType;
use movescope::session::preset::Preset;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint")
}

fn rates() -> Rates {
    Rates::of(&Preset::default())
}

fn lint_file(p: &Path) -> lint::LintReport {
    lint::lint_paths(&[p.to_path_buf()], rates())
}

fn lint_text(name: &str, src: &str) -> lint::LintReport {
    lint::lint_sources(
        vec![SourceFile::new(PathBuf::from(name), src.to_string(), None)],
        rates(),
    )
}

/// (line, rule) of every `// expect: rule` marker.
fn expected(p: &Path) -> BTreeSet<(u32, String)> {
    let text = std::fs::read_to_string(p).unwrap();
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            l.split("// expect: ")
                .nth(1)
                .map(|r| (i as u32 + 1, r.trim().to_string()))
        })
        .collect()
}

fn found(r: &lint::LintReport) -> BTreeSet<(u32, String)> {
    r.findings
        .iter()
        .map(|f| (f.pos.line, f.rule.id.to_string()))
        .collect()
}

#[test]
fn every_rule_fires_on_its_bad_component_and_nowhere_else() {
    for rule in RULES {
        let bad = dir().join(format!("{}.bad.cpp", rule.id));
        assert!(bad.exists(), "no test component {}", bad.display());
        let want = expected(&bad);
        assert!(
            !want.is_empty(),
            "{} marks no expected finding",
            bad.display()
        );
        assert!(want.iter().all(|(_, r)| r == rule.id), "{}", bad.display());
        let r = lint_file(&bad);
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        assert_eq!(
            found(&r),
            want,
            "{}:\n{}",
            bad.display(),
            render::text(&r, false)
        );
    }
}

#[test]
fn every_correct_form_lints_clean() {
    for rule in RULES {
        let good = dir().join(format!("{}.good.cpp", rule.id));
        let r = lint_file(&good);
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        assert!(
            r.findings.is_empty(),
            "{}:\n{}",
            good.display(),
            render::text(&r, false)
        );
        assert_eq!(r.exit_code(), 0);
        assert!(
            !r.components.is_empty(),
            "{}: no component found",
            good.display()
        );
    }
}

#[test]
fn rules_have_ids_severities_and_lessons_that_exist() {
    let mut ids = BTreeSet::new();
    for rule in RULES {
        assert!(ids.insert(rule.id), "duplicate id {}", rule.id);
        assert!(!rule.why.is_empty() && !rule.fix.is_empty());
        if let Some(p) = rule.pitfall {
            assert!(
                Preset::find(p).is_ok(),
                "{} names the lesson {p}, which is not shipped",
                rule.id
            );
        }
    }
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/lint.md"))
        .unwrap();
    for rule in RULES {
        assert!(
            doc.contains(&format!("`{}`", rule.id)),
            "docs/lint.md lacks {}",
            rule.id
        );
    }
}

#[test]
fn machine_conditions_are_errors_and_others_warnings() {
    let r = lint_file(&dir().join("binding-under-condition.bad.cpp"));
    let sev: Vec<Severity> = r.findings.iter().map(|f| f.severity).collect();
    assert_eq!(sev, [Severity::Error, Severity::Warning, Severity::Error]);
}

#[test]
fn binding_table_follows_the_code_with_gmc_defaults_and_wire_bits() {
    let r = lint_file(&dir().join("input-not-combine-if-unchanged.bad.cpp"));
    let c = &r.components[0];
    assert_eq!(c.class, "UDashMovement");
    let names: Vec<&str> = c.bindings.iter().map(|b| b.member.as_str()).collect();
    assert_eq!(names, ["bInputDash", "bInputJump", "InputAim"]);
    let jump = &c.bindings[1];
    assert_eq!(jump.pos.line, 14);
    let j = render::json(&r);
    let rows = j["bindings"].as_array().unwrap();
    assert_eq!(rows[1]["combine"], "AlwaysCombine");
    assert_eq!(rows[1]["interpolation"], "NearestNeighbour");
    assert_eq!(
        rows[1]["defaulted"],
        serde_json::json!(["combine", "interpolation"])
    );
    assert_eq!(rows[0]["bits"], 1);
    // The wire model's own numbers: one table in the code.
    // An input's vector is an axis (1 per component), not a position.
    assert_eq!(
        rows[2]["bits"],
        BoundType::CompressedVector2D.nominal_bits_as(true)
    );
    assert!(
        BoundType::CompressedVector2D.nominal_bits_as(true)
            < BoundType::CompressedVector2D.nominal_bits()
    );
    // All three are ClientAuth_Input: sent with every move, never to proxies.
    let t = &c.totals;
    assert_eq!(
        t.move_bits,
        1 + 1 + BoundType::CompressedVector2D.nominal_bits_as(true)
    );
    assert_eq!(t.proxy_bits, 0);
    assert_eq!(t.state_bits, 0);
    // 60 fps with MaxCombinedDeltaTime 0.0333 s: two frames a move, 30 moves and sends a second.
    assert_eq!(t.frames_per_move, 2);
    assert!((t.moves_per_s - 30.0).abs() < 1e-9);
    assert!(t.client_bytes_per_s > 30.0 * 11.0);
}

#[test]
fn simulated_values_count_toward_proxy_updates_and_rates_come_from_the_preset() {
    let path = dir().join("unguarded-side-effect.good.cpp");
    let r = lint_file(&path);
    let t = &r.components[0].totals;
    assert_eq!(t.proxy_bits, BoundType::Float.nominal_bits());
    assert_eq!(t.state_bits, 32);
    assert!((t.proxy_bytes_per_s - 30.0 * (17.0 + 32.0) / 8.0).abs() < 1e-9);
    let mut p = Preset::default();
    p.set("net_update_rate=10").unwrap();
    let r10 = lint::lint_paths(&[path], Rates::of(&p));
    let t10 = &r10.components[0].totals;
    assert!((t10.proxy_bytes_per_s * 3.0 - t.proxy_bytes_per_s).abs() < 1e-9);
}

#[test]
fn allow_comments_silence_a_rule_on_the_line_above_and_above_the_function() {
    let src = std::fs::read_to_string(dir().join("world-time-in-tick.bad.cpp")).unwrap();
    let line_allowed = src.replace(
        "\tconst double Wall = FPlatformTime::Seconds();",
        "\t// movescope: allow(world-time-in-tick)\n\tconst double Wall = FPlatformTime::Seconds();",
    );
    let r = lint_text("a.cpp", &line_allowed);
    assert_eq!(r.findings.len(), 2);
    assert_eq!(r.silenced, 1);
    let func_allowed = src.replace(
        "void UClockMovement::MovementUpdate_Implementation",
        "// Cosmetic clock, checked by hand.\n// movescope: allow(unguarded-side-effect, world-time-in-tick)\nvoid UClockMovement::MovementUpdate_Implementation",
    );
    let r = lint_text("b.cpp", &func_allowed);
    assert!(r.findings.is_empty(), "{}", render::text(&r, false));
    // Another rule's id does not silence this one.
    let other = src.replace(
        "void UClockMovement::MovementUpdate_Implementation",
        "// movescope: allow(frame-delta-in-tick)\nvoid UClockMovement::MovementUpdate_Implementation",
    );
    assert_eq!(lint_text("c.cpp", &other).findings.len(), 3);
}

#[test]
fn text_output_is_a_compiler_diagnostic_with_caret_and_lesson() {
    let r = lint_file(&dir().join("input-not-combine-if-unchanged.bad.cpp"));
    let t = render::text(&r, true);
    let first = t.lines().next().unwrap();
    assert!(
        first.ends_with(
            "input-not-combine-if-unchanged.bad.cpp:13:2: warning[input-not-combine-if-unchanged]: input `bInputDash` is bound ClientAuth_Input with AlwaysCombine, not CombineIfUnchanged"
        ),
        "{first}"
    );
    assert!(
        t.contains("13 | \tBindBool(bInputDash".replace('\t', " ").as_str()),
        "{t}"
    );
    assert!(t.contains("   |  ^^^^^^^^\n"), "{t}");
    assert!(t.contains("= why: frames are combined"));
    assert!(
        t.contains("= see: movescope --preset pitfall-04-dash-always-combine --window lessons")
    );
    assert!(t.contains("UDashMovement ("));
    assert!(t.contains("* GMC's enumerator 0"));
    assert!(t.contains("0 errors, 2 warnings, 0 notes"));
}

#[test]
fn sarif_has_what_code_scanning_requires() {
    let r = lint_file(&dir().join("world-time-in-tick.bad.cpp"));
    let s = render::sarif(&r);
    assert_eq!(s["version"], "2.1.0");
    let run = &s["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "movescope-lint");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), RULES.len());
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    for res in results {
        let id = res["ruleId"].as_str().unwrap();
        let idx = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], id);
        let loc = &res["locations"][0]["physicalLocation"];
        assert!(!loc["artifactLocation"]["uri"].as_str().unwrap().is_empty());
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
        assert!(!res["message"]["text"].as_str().unwrap().is_empty());
    }
}

fn movescope() -> Command {
    Command::new(env!("CARGO_BIN_EXE_movescope"))
}

#[test]
fn exit_codes_say_clean_found_or_unreadable() {
    let run = |args: &[&str]| {
        let o = movescope().arg("lint").args(args).output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).to_string(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let good = dir().join("bound-twice.good.cpp");
    let bad = dir().join("bound-twice.bad.cpp");
    assert_eq!(run(&[good.to_str().unwrap()]).0, Some(0));
    assert_eq!(run(&[bad.to_str().unwrap()]).0, Some(1));
    let (code, out, _) = run(&["/nonexistent/movescope-lint-input"]);
    assert_eq!(code, Some(2));
    assert!(out.contains("no such file or folder"), "{out}");
    let (code, out, _) = run(&["--format", "json", bad.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["findings"][0]["rule"], "bound-twice");
    assert_eq!(j["findings"][0]["severity"], "error");
    let (code, out, _) = run(&["--format", "sarif", dir().to_str().unwrap()]);
    assert_eq!(code, Some(1));
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["version"], "2.1.0");
}

#[test]
fn a_folder_is_searched_for_sources_only() {
    let tmp = std::env::temp_dir().join(format!("movescope-lint-folder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("Source/Sub")).unwrap();
    std::fs::copy(
        dir().join("bound-twice.bad.cpp"),
        tmp.join("Source/Sub/Twice.cpp"),
    )
    .unwrap();
    std::fs::write(tmp.join("Source/notes.txt"), "BindInt(").unwrap();
    std::fs::write(tmp.join("Source/Empty.h"), "#pragma once\n").unwrap();
    let r = lint::lint_paths(std::slice::from_ref(&tmp), rates());
    assert_eq!(r.files.len(), 2);
    assert_eq!(r.findings.len(), 1);
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn hostile_files_get_a_message_each_and_never_a_panic() {
    let tmp = std::env::temp_dir().join(format!("movescope-lint-hostile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    // Binary, 50 MB (sparse), Latin-1, deep nesting, unbalanced macros, random bytes.
    std::fs::write(tmp.join("binary.cpp"), [0x7fu8, b'E', b'L', b'F', 0, 1, 2]).unwrap();
    let big = std::fs::File::create(tmp.join("big.h")).unwrap();
    big.set_len(50 * 1024 * 1024).unwrap();
    std::fs::write(
        tmp.join("latin1.cpp"),
        b"// \xA9 Studio\nvoid UX::BindReplicationData_Implementation() { BindInt(A, {}, {}, {}, {}); }\n",
    )
    .unwrap();
    let deep = format!(
        "void UX::GenPredictionTick_Implementation(float D) {{ {} FMath::Rand(); {} }}",
        "if (a) { ".repeat(3000),
        "}".repeat(3000)
    );
    std::fs::write(tmp.join("deep.cpp"), deep).unwrap();
    std::fs::write(
        tmp.join("macro.h"),
        "UCLASS( class UX : public UGMC_OrganicMovementCmp {",
    )
    .unwrap();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let noise: Vec<u8> = (0..200_000)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            b"{}()<>;:,.=!&|+-*/\"'#\n abcBindIntifelse_0123"[(seed % 44) as usize]
        })
        .collect();
    std::fs::write(tmp.join("noise.cpp"), noise).unwrap();
    let r = lint::lint_paths(std::slice::from_ref(&tmp), rates());
    let problem = |name: &str| {
        r.problems
            .iter()
            .find(|p| p.path.ends_with(name))
            .map(|p| p.problem.to_string())
    };
    assert!(problem("binary.cpp").unwrap().contains("binary"));
    assert!(problem("big.h").unwrap().contains("bytes"));
    let latin = r
        .files
        .iter()
        .find(|f| f.path.ends_with("latin1.cpp"))
        .unwrap();
    assert!(latin.remark.as_deref().unwrap().contains("Latin-1"));
    assert!(
        r.findings
            .iter()
            .any(|f| f.rule.id == "unseeded-random-in-tick")
    );
    assert_eq!(r.files.len(), 4);
    let _ = std::fs::remove_dir_all(&tmp);
}
