//! The lint's three outputs: compiler-style text (`file:line:col: warning[rule]: message`, the
//! line with a caret, why, fix and the lesson), JSON (schema in docs/lint.md) and SARIF 2.1.0
//! for code-scanning tools.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value as Json, json};

use super::gmc::Arg;
use super::rules::{Finding, RULES, Severity};
use super::{BindingRow, ComponentReport, LintReport, Totals};

fn shown_path(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

fn arg<T: std::fmt::Debug + Copy>(a: &Arg<T>) -> (String, bool) {
    match a {
        Arg::Given(v) => (format!("{v:?}"), false),
        Arg::Default(v) => (format!("{v:?}"), true),
        Arg::Unknown(t) => (format!("? ({t})"), false),
    }
}

/// One finding as a compiler prints it.
pub fn finding_text(r: &LintReport, f: &Finding) -> String {
    let path = r
        .files
        .get(f.file)
        .map(|s| shown_path(&s.path))
        .unwrap_or_default();
    let mut s = format!(
        "{path}:{}:{}: {}[{}]: {}\n",
        f.pos.line,
        f.pos.col,
        f.severity.as_str(),
        f.rule.id,
        f.message
    );
    let line = r
        .files
        .get(f.file)
        .map(|s| s.line(f.pos.line as usize))
        .unwrap_or("");
    // One column per character: tabs shown as one space so the caret stays under the code.
    let shown: String = line
        .chars()
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect();
    let w = f.pos.line.to_string().len();
    let caret = " ".repeat(f.pos.col.saturating_sub(1) as usize)
        + &"^".repeat(f.pos.len.clamp(1, 80) as usize);
    let _ = writeln!(s, "{:w$} |", "");
    let _ = writeln!(s, "{} | {}", f.pos.line, shown);
    let _ = writeln!(s, "{:w$} | {}", "", caret);
    let _ = writeln!(s, "{:w$} = why: {}", "", f.rule.why);
    let _ = writeln!(s, "{:w$} = fix: {}", "", f.rule.fix);
    if let Some(p) = f.rule.pitfall {
        let _ = writeln!(
            s,
            "{:w$} = see: movescope --preset {p} --window lessons",
            ""
        );
    }
    s
}

/// The binding table of one component, as text.
pub fn table_text(c: &ComponentReport) -> String {
    let mut s = format!(
        "{} ({}:{}){}: {} binding{}\n",
        c.class,
        shown_path(&c.file),
        c.line,
        if c.through_pointer {
            through_text(c)
        } else {
            String::new()
        },
        c.bindings.len(),
        if c.bindings.len() == 1 { "" } else { "s" }
    );
    if c.bindings.is_empty() {
        return s;
    }
    let mut rows = vec![[
        "#".to_string(),
        "member".into(),
        "bind".into(),
        "bits".into(),
        "prediction".into(),
        "combine".into(),
        "simulation".into(),
        "interpolation".into(),
        "line".into(),
    ]];
    let mut any_default = false;
    let mut any_conditional = false;
    let mut any_looped = false;
    for (i, b) in c.bindings.iter().enumerate() {
        let mark = |a: (String, bool), any: &mut bool| {
            if a.1 {
                *any = true;
                format!("{}*", a.0)
            } else {
                a.0
            }
        };
        rows.push([
            (i + 1).to_string(),
            {
                let mut m = shown_member(b);
                if b.in_loop {
                    any_looped = true;
                    m.push_str(" ×N, uncounted");
                }
                if b.condition.is_some() {
                    any_conditional = true;
                    m.push_str(" †");
                }
                m
            },
            b.bind.clone(),
            super::row_bits(b).to_string(),
            mark(arg(&b.prediction), &mut any_default),
            mark(arg(&b.combine), &mut any_default),
            mark(arg(&b.simulation), &mut any_default),
            mark(arg(&b.interpolation), &mut any_default),
            b.pos.line.to_string(),
        ]);
    }
    let widths: Vec<usize> = (0..9)
        .map(|k| rows.iter().map(|r| r[k].chars().count()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        let mut line = String::from("  ");
        for (k, cell) in r.iter().enumerate() {
            if k == 0 || k == 3 {
                let _ = write!(line, "{cell:>w$}  ", w = widths[k]);
            } else {
                let _ = write!(line, "{cell:<w$}  ", w = widths[k]);
            }
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    if any_default {
        s.push_str("  * GMC's enumerator 0: the argument is `{}` or left out\n");
    }
    if any_conditional {
        s.push_str("  † made only when a condition holds (binding-under-condition)\n");
    }
    if any_looped {
        s.push_str("  ×N made in a loop, once per pass: the bits are one binding's, and the totals leave it out (the count is not known from the source)\n");
    }
    s.push_str(&totals_text(&c.totals));
    s
}

/// A bound member as the table shows it: the component's own by its path (`Input.bJump`);
/// one reached through a pointer under the class that declares it, with the pointer
/// (`UStrideAttributes::Stamina (via Attributes)`).
pub fn shown_member(b: &BindingRow) -> String {
    match (&b.declared_by, b.member.rsplit_once("->")) {
        (Some(class), Some((via, m))) => format!("{class}::{m} (via {via})"),
        _ => b.member.clone(),
    }
}

/// `, binding through `MovementComponent``: what an ability component's table binds through.
fn through_text(c: &ComponentReport) -> String {
    let mut via: Vec<&str> = c
        .bindings
        .iter()
        .filter_map(|b| b.through.as_deref())
        .collect();
    via.dedup();
    match via.as_slice() {
        [one] => format!(", binding through `{one}`"),
        _ => ", binding through a pointer".to_string(),
    }
}

fn totals_text(t: &Totals) -> String {
    let mut s = format!(
        "  per move client → server: {} bits · per server state: {} bits · per proxy update: {} bits\n",
        t.move_bits, t.state_bits, t.proxy_bits
    );
    let _ = writeln!(
        s,
        "  client → server ≈ {:.0} B/s ({:.0} moves/s: {} fps, {} frame{} per move{}, sent at {} Hz) · per proxy ≈ {:.0} B/s at {} updates/s",
        t.client_bytes_per_s,
        t.moves_per_s,
        t.rates.client_fps,
        t.frames_per_move,
        if t.frames_per_move == 1 { "" } else { "s" },
        t.never_combined_by
            .as_ref()
            .map_or(String::new(), |n| format!(
                " as `{n}` is bound NeverCombine"
            )),
        t.rates.client_send_rate,
        t.proxy_bytes_per_s,
        t.rates.net_update_rate
    );
    let g = super::built_in_totals(t.rates);
    let _ = writeln!(
        s,
        "  GMC's built-ins (location, rotation, scale, linear and angular velocity, control rotation: bound by GMC on every pawn, not in this table) add per move {} bits · per server state {} bits · per proxy update {} bits",
        g.move_bits, g.state_bits, g.proxy_bits
    );
    if t.looped > 0 {
        let _ = writeln!(
            s,
            "  ({} binding{} made in a loop (×N) not counted: add {} bits per pass to the figures above)",
            t.looped,
            if t.looped == 1 { "" } else { "s" },
            if t.looped == 1 { "its" } else { "their" }
        );
    }
    if t.unknown > 0 {
        let _ = writeln!(
            s,
            "  ({} binding(s) with a mode the lint cannot read are not counted)",
            t.unknown
        );
    }
    s
}

/// The whole report as text: problems, findings, tables, a summary line.
pub fn text(r: &LintReport, tables: bool) -> String {
    let mut s = String::new();
    for p in &r.problems {
        let _ = writeln!(s, "{}: error: {}", shown_path(&p.path), p.problem);
    }
    for f in &r.files {
        if let Some(remark) = &f.remark {
            let _ = writeln!(s, "{}: note: {remark}", shown_path(&f.path));
        }
    }
    for f in &r.findings {
        s.push_str(&finding_text(r, f));
        s.push('\n');
    }
    if tables {
        for c in &r.components {
            s.push_str(&table_text(c));
            s.push('\n');
        }
    }
    let _ = writeln!(
        s,
        "{} file{}, {} lines, {} component{}: {} error{}, {} warning{}, {} note{}{}",
        r.files.len(),
        if r.files.len() == 1 { "" } else { "s" },
        r.lines,
        r.components.len(),
        if r.components.len() == 1 { "" } else { "s" },
        r.count(Severity::Error),
        if r.count(Severity::Error) == 1 {
            ""
        } else {
            "s"
        },
        r.count(Severity::Warning),
        if r.count(Severity::Warning) == 1 {
            ""
        } else {
            "s"
        },
        r.count(Severity::Note),
        if r.count(Severity::Note) == 1 {
            ""
        } else {
            "s"
        },
        if r.silenced > 0 {
            format!(" ({} silenced by allow comments)", r.silenced)
        } else {
            String::new()
        }
    );
    if r.files.is_empty() {
        s.push_str("nothing could be read\n");
    }
    s
}

fn binding_json(c: &ComponentReport, b: &BindingRow, files: &LintReport) -> Json {
    let file = files
        .files
        .get(b.file)
        .map(|f| shown_path(&f.path))
        .unwrap_or_default();
    let mode = |a: (String, bool)| a.0;
    let defaulted: Vec<&str> = [
        matches!(b.prediction, Arg::Default(_)).then_some("prediction"),
        matches!(b.combine, Arg::Default(_)).then_some("combine"),
        matches!(b.simulation, Arg::Default(_)).then_some("simulation"),
        matches!(b.interpolation, Arg::Default(_)).then_some("interpolation"),
    ]
    .into_iter()
    .flatten()
    .collect();
    json!({
        "component": c.class,
        "name": b.member,
        "declared_by": b.declared_by,
        "condition": b.condition,
        "in_loop": b.in_loop,
        "through": b.through,
        "bind": b.bind,
        "type": format!("{:?}", b.ty),
        "bits": super::row_bits(b),
        "scale": super::row_measure(b).scale.as_str(),
        "scale_from": super::row_measure(b).basis.as_str(),
        "prediction": mode(arg(&b.prediction)),
        "combine": mode(arg(&b.combine)),
        "simulation": mode(arg(&b.simulation)),
        "interpolation": mode(arg(&b.interpolation)),
        "defaulted": defaulted,
        "file": file,
        "line": b.pos.line,
    })
}

fn totals_json(t: &Totals) -> Json {
    json!({
        "move_bits": t.move_bits,
        "state_bits": t.state_bits,
        "proxy_bits": t.proxy_bits,
        "frames_per_move": t.frames_per_move,
        "never_combined_by": t.never_combined_by,
        "moves_per_s": t.moves_per_s,
        "client_bytes_per_s": t.client_bytes_per_s,
        "proxy_bytes_per_s": t.proxy_bytes_per_s,
        "client_fps": t.rates.client_fps,
        "client_send_rate": t.rates.client_send_rate,
        "net_update_rate": t.rates.net_update_rate,
        "uncounted": t.unknown + t.looped,
        "unknown_modes": t.unknown,
        "in_loops": t.looped,
    })
}

/// The report as JSON (docs/lint.md gives the schema).
pub fn json(r: &LintReport) -> Json {
    let path = |i: usize| {
        r.files
            .get(i)
            .map(|f| shown_path(&f.path))
            .unwrap_or_default()
    };
    json!({
        "schema": "movescope-lint/1",
        "files": r.files.len(),
        "lines": r.lines,
        "components": r.components.iter().map(|c| json!({
            "component": c.class,
            "file": shown_path(&c.file),
            "line": c.line,
            "through_pointer": c.through_pointer,
            "totals": totals_json(&c.totals),
        })).collect::<Vec<_>>(),
        "bindings": r.components.iter().flat_map(|c| c.bindings.iter().map(move |b| binding_json(c, b, r))).collect::<Vec<_>>(),
        "findings": r.findings.iter().map(|f| json!({
            "rule": f.rule.id,
            "severity": f.severity.as_str(),
            "file": path(f.file),
            "line": f.pos.line,
            "column": f.pos.col,
            "message": f.message,
            "why": f.rule.why,
            "fix": f.rule.fix,
            "pitfall": f.rule.pitfall,
            "component": f.component,
        })).collect::<Vec<_>>(),
        "problems": r.problems.iter().map(|p| json!({
            "file": shown_path(&p.path),
            "message": p.problem.to_string(),
        })).collect::<Vec<_>>(),
        "totals": {
            "errors": r.count(Severity::Error),
            "warnings": r.count(Severity::Warning),
            "notes": r.count(Severity::Note),
            "silenced": r.silenced,
        },
    })
}

/// The report as SARIF 2.1.0 (one run; every rule listed; locations relative to the folder
/// the lint ran in where they can be).
pub fn sarif(r: &LintReport) -> Json {
    let cwd = std::env::current_dir().ok();
    let uri = |i: usize| {
        let p = r.files.get(i).map(|f| f.path.clone()).unwrap_or_default();
        let rel = match &cwd {
            Some(c) if p.is_absolute() => p.strip_prefix(c).map(Path::to_path_buf).unwrap_or(p),
            _ => p,
        };
        let s = shown_path(&rel);
        s.strip_prefix("./").map(str::to_string).unwrap_or(s)
    };
    let rules: Vec<Json> = RULES
        .iter()
        .map(|rule| {
            let mut help = format!("why: {}\nfix: {}", rule.why, rule.fix);
            if let Some(p) = rule.pitfall {
                help.push_str(&format!("\nsee: movescope --preset {p} --window lessons"));
            }
            json!({
                "id": rule.id,
                "shortDescription": {"text": rule.title},
                "fullDescription": {"text": rule.why},
                "help": {"text": help},
                "defaultConfiguration": {"level": rule.severity.as_str()},
            })
        })
        .collect();
    let results: Vec<Json> = r
        .findings
        .iter()
        .map(|f| {
            json!({
                "ruleId": f.rule.id,
                "ruleIndex": RULES.iter().position(|x| x.id == f.rule.id),
                "level": f.severity.as_str(),
                "message": {"text": f.message},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": uri(f.file), "uriBaseId": "%SRCROOT%"},
                    "region": {
                        "startLine": f.pos.line,
                        "startColumn": f.pos.col,
                        "endLine": f.pos.line,
                        "endColumn": f.pos.col + f.pos.len,
                    },
                }}],
                "partialFingerprints": {
                    "movescope/v1": format!("{}:{}:{}", f.rule.id, f.component, f.message),
                },
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "movescope-lint",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    })
}
