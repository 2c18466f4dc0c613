//! Writes that give a member the same value in every move: a setting kept in range
//! (`X = FMath::Clamp(X, …)`, also through a setter handed `X`), and a value worked out from
//! settings alone (`FloorZ = FMath::Cos(FMath::DegreesToRadians(FloorAngle))`, where the path
//! writes `FloorAngle` only to keep it in range). A replay computes what the move computed, so
//! such a member carries nothing from one move to the next.

use super::ctx::Ctx;
use super::gmc;
use super::program::Step;
use super::syntax::EventKind;

/// Whether the write at `s` of `target` from `rhs` gives it a value worked out from settings
/// alone (numbers, `FMath` and members whose every write on the path is settled), not from
/// `target` itself.
pub(super) fn from_settings(cx: &Ctx, path: &[Step], s: &Step, target: &str, rhs: &str) -> bool {
    let rhs = substituted(cx, s, rhs);
    !gmc::words(&rhs).any(|w| w == target) && settings_only(cx, path, s, &rhs, 0)
}

/// `X = FMath::Clamp(X, …)`, `Min`, `Max`, `Abs`: a value kept in range, not changed by the move.
pub(super) fn is_normalization(target: &str, rhs: &str) -> bool {
    let r: String = rhs.chars().filter(|c| !c.is_whitespace()).collect();
    ["FMath::Clamp(", "FMath::Min(", "FMath::Max(", "FMath::Abs("]
        .iter()
        .any(|f| r.starts_with(&format!("{f}{target},")) || r.starts_with(&format!("{f}{target})")))
}

/// Whether `rhs` is built from numbers, `FMath` functions and members of the class (declared
/// in the files: GMC's own, written by code the files do not show, are not settings) every
/// write of which on the path is itself settled (looked through at most two levels). A part
/// (`V.Z`) or a call other than math makes it something else.
fn settings_only(cx: &Ctx, path: &[Step], s: &Step, rhs: &str, depth: u8) -> bool {
    let f = &cx.p.funcs[s.func];
    let mut words = gmc::words(rhs).peekable();
    if words.peek().is_none() || depth > 2 {
        return false;
    }
    let part = rhs.contains("->")
        || rhs.char_indices().any(|(i, c)| {
            c == '.'
                && rhs[..i].ends_with(|b: char| b.is_ascii_alphabetic() || b == '_' || b == ')')
        });
    if part {
        return false;
    }
    let mut members = Vec::new();
    for w in words {
        if w == "FMath" || w.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        if is_math_function(rhs, w) {
            continue;
        }
        let declared = f.class.as_deref().is_some_and(|c| cx.p.has_field(c, w));
        if f.locals.contains(w) || f.params.iter().any(|p| p == w) || calls(rhs, w) || !declared {
            return false;
        }
        members.push(w);
    }
    !members.is_empty() && members.iter().all(|m| settled_member(cx, path, m, depth))
}

/// Every write of member `m` on the path keeps it in range or works it out from settings (a
/// member the path never writes is a setting too).
fn settled_member(cx: &Ctx, path: &[Step], m: &str, depth: u8) -> bool {
    path.iter().all(|s| match cx.event(s) {
        EventKind::Write { target, rhs, .. } if target == m => {
            let rhs = substituted(cx, s, rhs);
            is_normalization(m, &rhs) || settings_only(cx, path, s, &rhs, depth + 1)
        }
        _ => true,
    })
}

/// `FMath::Name(` in `rhs`.
fn is_math_function(rhs: &str, w: &str) -> bool {
    rhs.contains(&format!("FMath::{w}("))
}

/// `w(` in `rhs`: a call of something other than a math function.
fn calls(rhs: &str, w: &str) -> bool {
    let mut at = 0;
    while let Some(i) = rhs[at..].find(w) {
        let end = at + i + w.len();
        let before = rhs[..at + i].chars().next_back();
        let whole = before.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        if whole && rhs[end..].trim_start().starts_with('(') {
            return true;
        }
        at = end;
    }
    false
}

/// `rhs` with the function's parameters replaced by what the call that reached `s` passed for
/// them, where that is a plain name (`SetFloorAngle(FloorAngle)` hands `FloorAngle` in).
pub(super) fn substituted(cx: &Ctx, s: &Step, rhs: &str) -> String {
    let f = &cx.p.funcs[s.func];
    let Some(site) = &s.via else {
        return rhs.to_string();
    };
    let EventKind::Call { args, .. } = &cx.p.funcs[site.func].events[site.event].kind else {
        return rhs.to_string();
    };
    let plain = |a: &str| !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut out = String::with_capacity(rhs.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let arg = f
            .params
            .iter()
            .position(|p| p == word)
            .and_then(|i| args.get(i))
            .filter(|a| plain(a));
        out.push_str(arg.map_or(word.as_str(), |a| a.as_str()));
        word.clear();
    };
    for c in rhs.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A constant a member is cleared to.
pub(super) fn is_reset(rhs: &str) -> bool {
    let r: String = rhs.chars().filter(|c| !c.is_whitespace()).collect();
    matches!(
        r.as_str(),
        "false"
            | "0"
            | "0.f"
            | "0.0f"
            | "0.0"
            | "nullptr"
            | "{}"
            | "FVector::ZeroVector"
            | "FRotator::ZeroRotator"
            | "FVector2D::ZeroVector"
            | "FQuat::Identity"
            | "FGameplayTag::EmptyTag"
            | "FGameplayTag()"
            | "NAME_None"
            | "FName()"
    ) || r.ends_with("::None")
}
