//! From C++ text to what the rules read: every class with its bases and fields, every function
//! definition with the events of its body in source order (calls, writes, reads, locals,
//! returns), each event with the conditions it sits under. Parsed with tree-sitter's C++
//! grammar, walked iteratively (deeply nested input cannot overflow the stack).

use std::collections::HashSet;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{Node, ParseOptions, Parser, Tree};

use super::nodes::{advance, declared_name, function_declarator};
use super::source::{ReadProblem, SourceFile};

/// A place in a file: 1-based line and column (in characters), and the width to underline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
    pub len: u32,
}

/// A class or struct declaration.
#[derive(Debug, Clone)]
pub struct ClassDecl {
    pub file: usize,
    pub name: String,
    pub bases: Vec<String>,
    /// Data members: (name, type text).
    pub fields: Vec<(String, String)>,
    pub pos: Pos,
}

/// What kind of construct a condition comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CondKind {
    If,
    /// The `else` of an `if` (text is the `if`'s condition).
    Else,
    Ternary,
    Switch,
    Loop,
    /// `#if` / `#ifdef` inside a function.
    Preproc,
}

/// One condition an event can sit under, linked to the one around it.
#[derive(Debug, Clone)]
pub struct Cond {
    pub kind: CondKind,
    /// The condition's text, whitespace collapsed.
    pub text: String,
    pub pos: Pos,
    pub parent: Option<u32>,
}

/// What happened at one place of a body.
#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    /// `path(args)`: `path` is the callee's text without blanks (`UGameplayStatics::PlaySound2D`,
    /// `GetWorld()->GetTimeSeconds`), `name` its last identifier, `receiver` what stands before
    /// `->` or `.`.
    Call {
        path: String,
        name: String,
        receiver: Option<String>,
        args: Vec<String>,
    },
    /// A write of `target` (a plain name, `this->` removed). `plain` for `=`; compound
    /// assignments, `++`/`--` and writes to a part (`V.Z = 0`) are not plain.
    Write {
        target: String,
        plain: bool,
        rhs: String,
        /// The written expression, blanks and `this->` removed (`Input.bJump`).
        path: String,
    },
    /// A name read (a plain identifier or `this->name`).
    Read {
        name: String,
    },
    /// A field read that is not a call, e.g. `GetWorld()->TimeSeconds` (`name` = the field).
    Field {
        path: String,
        name: String,
    },
    /// A local variable declared (or a parameter).
    Local {
        name: String,
        ty: String,
        init: String,
    },
    Return,
}

#[derive(Debug, Clone)]
pub struct Event {
    pub kind: EventKind,
    pub pos: Pos,
    /// The innermost condition this event sits under (see [`Func::conds_of`]).
    pub cond: Option<u32>,
}

/// A function definition.
#[derive(Debug, Clone)]
pub struct Func {
    pub file: usize,
    /// The class it belongs to (`UX::F` or defined inside `class UX`).
    pub class: Option<String>,
    pub name: String,
    pub params: Vec<String>,
    pub pos: Pos,
    /// The first line of the definition (for `allow` comments above it).
    pub first_line: u32,
    pub events: Vec<Event>,
    pub conds: Vec<Cond>,
    pub locals: HashSet<String>,
}

/// Conditions are followed outward at most this far (hostile nesting).
const MAX_COND_CHAIN: usize = 64;

impl Func {
    /// The conditions around `cond`, innermost first.
    pub fn conds_of(&self, cond: Option<u32>) -> impl Iterator<Item = &Cond> {
        let mut at = cond;
        std::iter::from_fn(move || {
            let c = self.conds.get(at? as usize)?;
            at = c.parent;
            Some(c)
        })
        .take(MAX_COND_CHAIN)
    }
}

/// Everything one file holds.
#[derive(Debug, Default)]
pub struct FileSyntax {
    pub classes: Vec<ClassDecl>,
    pub funcs: Vec<Func>,
    /// Syntax errors the parser recovered from.
    pub errors: usize,
}

/// How long one file may take to parse before it is reported and skipped.
pub const PARSE_BUDGET: Duration = Duration::from_secs(10);

/// Parses a file and extracts its classes and functions.
pub fn analyse(
    parser: &mut Parser,
    file_index: usize,
    src: &SourceFile,
) -> Result<FileSyntax, ReadProblem> {
    let tree = parse(parser, &src.blanked)?;
    let lines = LineIndex::new(&src.blanked);
    let mut x = Extractor {
        text: &src.blanked,
        lines: &lines,
        file: file_index,
        out: FileSyntax::default(),
    };
    x.top(&tree);
    Ok(x.out)
}

/// A parser for C++.
pub fn cpp_parser() -> Result<Parser, ReadProblem> {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_cpp::LANGUAGE.into())
        .map_err(|e| ReadProblem::Parse(e.to_string()))?;
    Ok(p)
}

fn parse(parser: &mut Parser, text: &str) -> Result<Tree, ReadProblem> {
    let deadline = Instant::now() + PARSE_BUDGET;
    let mut cb = |_: &tree_sitter::ParseState| {
        if Instant::now() >= deadline {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let bytes = text.as_bytes();
    let tree = parser.parse_with_options(
        &mut |i, _| bytes.get(i..).unwrap_or(&[]),
        None,
        Some(ParseOptions::new().progress_callback(&mut cb)),
    );
    match tree {
        Some(t) => Ok(t),
        None => {
            parser.reset();
            Err(ReadProblem::Parse(format!(
                "parsing took longer than {} s",
                PARSE_BUDGET.as_secs()
            )))
        }
    }
}

struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }
}

pub(super) struct Extractor<'a> {
    pub(super) text: &'a str,
    lines: &'a LineIndex,
    file: usize,
    out: FileSyntax,
}

/// Collapses runs of blanks to one space.
pub(super) fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Removes every blank.
pub(super) fn tight(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

impl<'a> Extractor<'a> {
    pub(super) fn src(&self, n: Node) -> &'a str {
        self.text.get(n.byte_range()).unwrap_or("")
    }

    pub(super) fn pos(&self, n: Node) -> Pos {
        let p = n.start_position();
        let start = self.lines.starts.get(p.row).copied().unwrap_or(0);
        let line_text = self.text.get(start..).unwrap_or("");
        let line_end = line_text.find('\n').map_or(self.text.len(), |e| start + e);
        let col = self
            .text
            .get(start..(start + p.column).min(line_end))
            .map_or(0, |s| s.chars().count());
        let end = n.end_byte().min(line_end).max(n.start_byte());
        let len = self
            .text
            .get(n.start_byte()..end)
            .map_or(1, |s| s.chars().count().max(1));
        Pos {
            line: p.row as u32 + 1,
            col: col as u32 + 1,
            len: len as u32,
        }
    }

    /// The outer walk: classes (with their context for inline functions) and functions.
    fn top(&mut self, tree: &Tree) {
        let mut c = tree.walk();
        // (end byte, class name) of the classes we are inside.
        let mut classes: Vec<(usize, String)> = Vec::new();
        loop {
            let n = c.node();
            while classes
                .last()
                .is_some_and(|(end, _)| n.start_byte() >= *end)
            {
                classes.pop();
            }
            let mut descend = true;
            match n.kind() {
                "ERROR" => self.out.errors += 1,
                "class_specifier" | "struct_specifier" => {
                    if let (Some(name), Some(body)) =
                        (n.child_by_field_name("name"), n.child_by_field_name("body"))
                    {
                        let name = tight(self.src(name));
                        self.class_decl(n, &name, body);
                        classes.push((n.end_byte(), name));
                    }
                }
                "function_definition" => {
                    let class = classes.last().map(|(_, c)| c.clone());
                    self.function(n, class);
                    descend = false;
                }
                _ => {}
            }
            if n.is_missing() {
                self.out.errors += 1;
            }
            if !advance(&mut c, descend) {
                break;
            }
        }
    }

    fn class_decl(&mut self, n: Node, name: &str, body: Node) {
        let mut bases = Vec::new();
        let mut w = n.walk();
        for ch in n.children(&mut w) {
            if ch.kind() == "base_class_clause" {
                let mut w2 = ch.walk();
                for b in ch.named_children(&mut w2) {
                    if b.kind() != "access_specifier" {
                        bases.push(tight(self.src(b)));
                    }
                }
            }
        }
        let mut fields = Vec::new();
        let mut w = body.walk();
        for f in body.named_children(&mut w) {
            if f.kind() != "field_declaration" {
                continue;
            }
            let ty = f.child_by_field_name("type").map(|t| squash(self.src(t)));
            let mut w2 = f.walk();
            for d in f.children_by_field_name("declarator", &mut w2) {
                if let Some((id, pointer)) = declared_name(d)
                    && id.kind() == "field_identifier"
                {
                    let mut t = ty.clone().unwrap_or_default();
                    if pointer {
                        t.push('*');
                    }
                    fields.push((self.src(id).to_string(), t));
                }
            }
        }
        self.out.classes.push(ClassDecl {
            file: self.file,
            name: name.to_string(),
            bases,
            fields,
            pos: self.pos(n),
        });
    }

    fn function(&mut self, n: Node, class: Option<String>) {
        let Some(decl) = n.child_by_field_name("declarator") else {
            return;
        };
        let Some(fdecl) = function_declarator(decl) else {
            return;
        };
        let Some(mut name_node) = fdecl.child_by_field_name("declarator") else {
            return;
        };
        let mut class = class;
        while name_node.kind() == "qualified_identifier" {
            if let Some(scope) = name_node.child_by_field_name("scope") {
                let s = tight(self.src(scope));
                class = Some(s.rsplit("::").next().unwrap_or(&s).to_string());
            }
            match name_node.child_by_field_name("name") {
                Some(nn) => name_node = nn,
                None => break,
            }
        }
        let name = tight(self.src(name_node));
        let mut f = Func {
            file: self.file,
            class,
            name,
            params: Vec::new(),
            pos: self.pos(name_node),
            first_line: n.start_position().row as u32 + 1,
            events: Vec::new(),
            conds: Vec::new(),
            locals: HashSet::new(),
        };
        if let Some(params) = fdecl.child_by_field_name("parameters") {
            let mut w = params.walk();
            for p in params.named_children(&mut w) {
                let ty = p.child_by_field_name("type").map(|t| squash(self.src(t)));
                if let Some((id, _)) = p.child_by_field_name("declarator").and_then(declared_name) {
                    let nm = self.src(id).to_string();
                    f.locals.insert(nm.clone());
                    f.params.push(nm.clone());
                    f.events.push(Event {
                        kind: EventKind::Local {
                            name: nm,
                            ty: ty.unwrap_or_default(),
                            init: String::new(),
                        },
                        pos: self.pos(id),
                        cond: None,
                    });
                }
            }
        }
        if let Some(body) = n.child_by_field_name("body") {
            self.body(body, &mut f);
        }
        self.out.funcs.push(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn syn(src: &str) -> FileSyntax {
        let f = SourceFile::new(PathBuf::from("t.cpp"), src.to_string(), None);
        let mut p = cpp_parser().unwrap();
        analyse(&mut p, 0, &f).unwrap()
    }

    #[test]
    fn extracts_classes_functions_and_events() {
        let s = syn(
            "UCLASS()\nclass GAME_API UMy : public UGMC_OrganicMovementCmp\n{\n GENERATED_BODY()\n UPROPERTY()\n bool bDash;\n float Speed, Ramp;\n AActor* Target;\n};\n\
             void UMy::MovementUpdate_Implementation(float DeltaSeconds)\n{\n  if (bDash) { Ramp += DeltaSeconds; PlaySound(); }\n  else Speed = 3.f;\n  this->Target = nullptr;\n}\n",
        );
        assert_eq!(s.errors, 0);
        let c = &s.classes[0];
        assert_eq!(c.name, "UMy");
        assert_eq!(c.bases, vec!["UGMC_OrganicMovementCmp"]);
        let names: Vec<_> = c.fields.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(names, ["bDash", "Speed", "Ramp", "Target"]);
        assert!(c.fields[3].1.ends_with('*'));
        let f = &s.funcs[0];
        assert_eq!(f.class.as_deref(), Some("UMy"));
        assert_eq!(f.name, "MovementUpdate_Implementation");
        assert_eq!(f.params, vec!["DeltaSeconds"]);
        let call = f
            .events
            .iter()
            .find(|e| matches!(&e.kind, EventKind::Call { name, .. } if name == "PlaySound"))
            .unwrap();
        assert_eq!(call.pos.line, 12);
        assert_eq!(f.conds_of(call.cond).next().unwrap().text, "(bDash)");
        let w = |t: &str| {
            f.events
                .iter()
                .find_map(|e| match &e.kind {
                    EventKind::Write { target, plain, .. } if target == t => Some((*plain, e)),
                    _ => None,
                })
                .unwrap()
        };
        assert!(!w("Ramp").0);
        let (plain, e) = w("Speed");
        assert!(plain);
        assert_eq!(f.conds_of(e.cond).next().unwrap().kind, CondKind::Else);
        assert!(w("Target").0);
        assert!(!f.events.iter().any(|e| e.kind
            == EventKind::Read {
                name: "Speed".into()
            }));
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 20_000;
        let src = format!(
            "void F() {{ int x = {}1{}; }}",
            "(".repeat(depth),
            ")".repeat(depth)
        );
        let s = syn(&src);
        assert_eq!(s.funcs.len(), 1);
    }
}
