//! Where a component writes each of its members: on the prediction path (in which GMC hook)
//! or outside it, under which conditions, with the statement as written. The desync doctor
//! cites these when a game log shows a value changing between moves: the write the code makes
//! outside the move, or that the code shows none (so it comes from outside the component).

use std::collections::{HashMap, HashSet};

use super::program::{Component, Program, Step};
use super::source::SourceFile;
use super::syntax::EventKind;

/// One write of a member.
#[derive(Debug, Clone, PartialEq)]
pub struct MemberWrite {
    /// The member as written (`Stamina`, `Tracker.Position`).
    pub member: String,
    /// `UMyCmp::ApplyPenalty`.
    pub function: String,
    /// The GMC hook whose call path reaches it (`MovementUpdate`); `None` outside the
    /// prediction path.
    pub hook: Option<String>,
    /// The conditions around it, innermost first, joined (`HasAuthority()`).
    pub guard: Option<String>,
    /// The source line, trimmed.
    pub statement: String,
    pub file: usize,
    pub line: u32,
}

/// Every write of a member of `c`'s class (and its bases in the files): those the prediction
/// path reaches first (with their hook), then the rest.
pub fn member_writes(p: &Program, c: &Component, files: &[SourceFile]) -> Vec<MemberWrite> {
    let members: HashSet<String> = p.fields(&c.class).into_iter().map(|(n, _)| n).collect();
    let mut lines = Lines {
        files,
        split: HashMap::new(),
    };
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for s in p.prediction_path(&c.class) {
        if let Some(w) = write_of(p, &s, &members, &mut lines, Some(hook_of(p, &s))) {
            seen.insert((s.func, s.event));
            out.push(w);
        }
    }
    let chain: HashSet<String> = p.chain(&c.class).into_iter().collect();
    for (fi, f) in p.funcs.iter().enumerate() {
        if !f.class.as_ref().is_some_and(|k| chain.contains(k)) {
            continue;
        }
        for ei in 0..f.events.len() {
            if seen.contains(&(fi, ei)) {
                continue;
            }
            let s = Step {
                func: fi,
                event: ei,
                via: None,
            };
            out.extend(write_of(p, &s, &members, &mut lines, None));
        }
    }
    out
}

/// The member write at step `s`, if it is one.
/// The files' lines, each file split once when first asked.
struct Lines<'a> {
    files: &'a [SourceFile],
    split: HashMap<usize, Vec<&'a str>>,
}

impl Lines<'_> {
    fn get(&mut self, file: usize, line: u32) -> String {
        let Some(src) = self.files.get(file) else {
            return String::new();
        };
        let lines = self
            .split
            .entry(file)
            .or_insert_with(|| src.text.lines().collect());
        lines
            .get((line as usize).saturating_sub(1))
            .map_or_else(String::new, |l| l.trim().to_string())
    }
}

fn write_of(
    p: &Program,
    s: &Step,
    members: &HashSet<String>,
    lines: &mut Lines<'_>,
    hook: Option<String>,
) -> Option<MemberWrite> {
    let f = &p.funcs[s.func];
    let e = &f.events[s.event];
    let EventKind::Write { target, path, .. } = &e.kind else {
        return None;
    };
    if f.locals.contains(target) || !members.contains(target) {
        return None;
    }
    let conds: Vec<String> = p.conds(s).into_iter().map(|(_, t, ..)| t).collect();
    let statement = lines.get(f.file, e.pos.line);
    Some(MemberWrite {
        member: path.clone(),
        function: match &f.class {
            Some(k) => format!("{k}::{}", f.name),
            None => f.name.clone(),
        },
        hook,
        guard: (!conds.is_empty()).then(|| conds.join(" && ")),
        statement,
        file: f.file,
        line: e.pos.line,
    })
}

/// The hook a prediction-path step was reached from: the function at the root of its calls.
fn hook_of(p: &Program, s: &Step) -> String {
    let mut root = s.func;
    let mut at = s.via.clone();
    while let Some(site) = at {
        root = site.func;
        at = site.parent.clone();
    }
    let name = &p.funcs[root].name;
    name.strip_suffix("_Implementation")
        .unwrap_or(name)
        .to_string()
}
