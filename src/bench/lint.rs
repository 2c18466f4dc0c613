//! `movescope bench --lint LINES`: `movescope lint` on a generated tree of GMC components of
//! about LINES lines (files of ~500 lines: a class with its members, BindReplicationData with
//! helpers, the organic hooks with branches, loops and calls, and some findings), written to a
//! temporary folder and linted three times; prints the time of each run and lines per second.

use std::fmt::Write as _;
use std::time::Instant;

use movescope::analysis::lint::{self, Rates};
use movescope::session::preset::Preset;

/// One generated component file of about 500 lines.
fn component(k: usize) -> String {
    let class = format!("UBenchMovement{k}");
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated for movescope bench --lint.\n#pragma once\n#include \"GMCOrganicMovementComponent.h\"\n\nUCLASS(ClassGroup=(Custom), meta=(BlueprintSpawnableComponent))\nclass BENCH_API {class} : public UGMC_OrganicMovementCmp\n{{\n\tGENERATED_BODY()\npublic:"
    );
    for i in 0..40 {
        let _ = writeln!(
            s,
            "\tUPROPERTY(EditAnywhere, BlueprintReadWrite, Category=\"Bench\")\n\tfloat Value{i} = 0.f;"
        );
    }
    let _ = writeln!(
        s,
        "\tbool bInputDash = false;\n\tint32 DashCount = 0;\n\tfloat Ramp = 0.f;\n\tvoid BindMore();\n\tfloat Helper(float X, float Y) const;\n}};\n"
    );
    let _ = writeln!(
        s,
        "void {class}::BindReplicationData_Implementation()\n{{\n\tSuper::BindReplicationData_Implementation();"
    );
    let _ = writeln!(
        s,
        "\tBindBool(bInputDash, EGMC_PredictionMode::ClientAuth_Input, EGMC_CombineMode::CombineIfUnchanged, EGMC_SimulationMode::None, EGMC_InterpolationFunction::NearestNeighbour);"
    );
    let _ = writeln!(
        s,
        "\tBindInt(DashCount, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::NearestNeighbour);"
    );
    for i in 0..20 {
        let _ = writeln!(
            s,
            "\tBindSinglePrecisionFloat(Value{i}, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, EGMC_CombineMode::Default, EGMC_SimulationMode::Periodic_Output, EGMC_InterpolationFunction::Linear);"
        );
    }
    let _ = writeln!(s, "\tBindMore();\n}}\n\nvoid {class}::BindMore()\n{{");
    for i in 20..30 {
        let _ = writeln!(
            s,
            "\tBindCompressedSinglePrecisionFloat(Value{i}, EGMC_PredictionMode::ServerAuth_Output_ClientValidated, {{}}, EGMC_SimulationMode::None, {{}});"
        );
    }
    let _ = writeln!(
        s,
        "}}\n\nfloat {class}::Helper(float X, float Y) const\n{{\n\treturn FMath::Clamp(X * Y, -1.f, 1.f);\n}}\n"
    );
    for hook in ["PreMovementUpdate", "MovementUpdate", "PostMovementUpdate"] {
        let _ = writeln!(
            s,
            "void {class}::{hook}_Implementation(float DeltaSeconds)\n{{\n\tSuper::{hook}_Implementation(DeltaSeconds);\n\tconst bool bLive = !CL_IsReplaying() && !IsSimulatedMove();"
        );
        for i in 0..24 {
            let v = i % 30;
            let _ = writeln!(
                s,
                "\tif (Value{v} > {i}.f && bInputDash)\n\t{{\n\t\tValue{v} = Helper(Value{v}, DeltaSeconds);\n\t\tfor (int32 j = 0; j < 3; ++j) {{ Velocity += UpdatedComponent->GetForwardVector() * (Value{v} + j); }}\n\t}}\n\telse\n\t{{\n\t\tValue{v} = FMath::Max(0.f, Value{v} - DeltaSeconds * 2.f); // a comment\n\t}}"
            );
        }
        let _ = writeln!(
            s,
            "\tif (bLive) {{ UGameplayStatics::PlaySound2D(this, nullptr); }}\n\tRamp += DeltaSeconds;\n}}\n"
        );
    }
    s
}

pub(crate) fn bench_lint(lines: usize) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("movescope-bench-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut written = 0;
    let mut k = 0;
    let mut bytes = 0;
    while written < lines {
        let text = component(k);
        written += text.lines().count();
        bytes += text.len();
        let path = dir.join(format!("BenchMovement{k}.cpp"));
        std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
        k += 1;
    }
    println!(
        "lint: {k} generated files, {written} lines, {:.1} MB in {}",
        bytes as f64 / 1e6,
        dir.display()
    );
    let rates = Rates::of(&Preset::builtin_default());
    let mut times = Vec::new();
    let mut findings = 0;
    for run in 1..=3 {
        let t = Instant::now();
        let r = lint::lint_paths(std::slice::from_ref(&dir), rates);
        let s = t.elapsed().as_secs_f64();
        findings = r.findings.len();
        if r.lines != written || r.components.len() != k {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(format!(
                "bench --lint: read {} lines and {} components, wrote {written} and {k}",
                r.lines,
                r.components.len()
            ));
        }
        println!("  run {run}: {s:.3} s ({:.0} lines/s)", written as f64 / s);
        times.push(s);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "lint: median {:.3} s for {written} lines ({findings} findings); goal ≤ 2 s for 100 000 lines",
        times[1]
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
