//! The inner walk over one function body for [`super::syntax`]: a cursor walk whose state is
//! [`BodyWalk`] (the conditions pending and open around the node), and one method per kind of
//! node that makes a condition or an event.

use tree_sitter::Node;

use super::nodes::{advance_tracked, declared_name, is_assert_or_log, written_name};
use super::syntax::{Cond, CondKind, Event, EventKind, Extractor, Func, squash, tight};

/// The walk's state over one body: the conditions pending and open, and the plain `=`
/// left sides ahead.
#[derive(Default)]
struct BodyWalk {
    /// Left sides of plain `=`: written, not read.
    plain_lhs: Vec<usize>,
    /// (node id, cond) to enter when the walk reaches that node.
    pending: Vec<(usize, u32)>,
    /// (end byte, cond) currently open.
    open: Vec<(usize, u32)>,
}

/// Where the walk's current node sits.
struct At<'t> {
    /// The innermost condition around it.
    cur: Option<u32>,
    /// Its field name in its parent.
    field: Option<&'t str>,
    /// Its parent's kind ("" for the body itself).
    parent: &'t str,
    /// It is the left side of a plain `=`.
    lhs: bool,
}

impl BodyWalk {
    /// Reaching `n` (its field name in its parent of kind `parent`): closes the conditions it
    /// is past, opens the one pending for it, and says where it sits.
    fn enter<'t>(&mut self, n: Node, field: Option<&'t str>, parent: &'t str) -> At<'t> {
        while self
            .open
            .last()
            .is_some_and(|(end, _)| n.start_byte() >= *end)
        {
            self.open.pop();
        }
        if let Some(i) = self.pending.iter().position(|(id, _)| *id == n.id()) {
            let (_, k) = self.pending.swap_remove(i);
            self.open.push((n.end_byte(), k));
        }
        let lhs = self.plain_lhs.last() == Some(&n.id());
        if lhs {
            self.plain_lhs.pop();
        }
        At {
            cur: self.open.last().map(|(_, k)| *k),
            field,
            parent,
            lhs,
        }
    }
}

impl Extractor<'_> {
    /// The inner walk over one body.
    pub(super) fn body(&mut self, body: Node, f: &mut Func) {
        let mut c = body.walk();
        let mut w = BodyWalk::default();
        // Kinds of the current node's ancestors below `body` (its parent last), kept by the
        // walk: tree-sitter's `parent` and cursor depth both cost a walk from the root.
        let mut kinds: Vec<&str> = Vec::new();
        loop {
            let n = c.node();
            let at = w.enter(n, c.field_name(), kinds.last().copied().unwrap_or(""));
            let descend = self.node(n, f, &mut w, &at);
            if !advance_tracked(&mut c, descend, &mut kinds) {
                break;
            }
        }
    }

    /// What node `n` makes (a condition, an event, a local) by its kind, and whether the walk
    /// goes into it (not into assertions, logging, comments and literals).
    fn node(&mut self, n: Node, f: &mut Func, w: &mut BodyWalk, at: &At) -> bool {
        let cur = at.cur;
        match n.kind() {
            "if_statement" => self.branch(n, f, w, CondKind::If, cur),
            "conditional_expression" => self.branch(n, f, w, CondKind::Ternary, cur),
            "switch_statement" | "while_statement" | "for_statement" | "for_range_loop"
            | "do_statement" => self.loop_or_switch(n, f, w, cur),
            "preproc_if" | "preproc_ifdef" | "preproc_elif" | "preproc_else" => {
                self.preproc(n, f, w, cur)
            }
            // Assertions and logging read values without using them: their arguments are
            // not events (`check(X == 0)` is no read of X).
            "call_expression"
                if n.child_by_field_name("function")
                    .is_some_and(|x| is_assert_or_log(self.src(x))) =>
            {
                return false;
            }
            "call_expression" => self.call(n, f, cur),
            "assignment_expression" => {
                if let (Some(l), Some(op)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("operator"),
                ) && self.src(op) == "="
                {
                    w.plain_lhs.push(l.id());
                }
                self.assignment(n, f, cur)
            }
            "update_expression" => self.update(n, f, cur),
            "declaration" => self.declaration(n, f, cur),
            "return_statement" => self.push(f, EventKind::Return, n, cur),
            "identifier" => self.identifier(n, f, at),
            "field_expression" if at.field != Some("function") => self.field(n, f, at),
            "comment" | "string_literal" | "raw_string_literal" | "char_literal" => return false,
            "lambda_expression" => self.lambda_params(n, f),
            _ => {}
        }
        true
    }

    /// An `if` or a ternary (`kind`): a condition over its consequence, and its `else` over
    /// the alternative.
    fn branch(
        &mut self,
        n: Node,
        f: &mut Func,
        w: &mut BodyWalk,
        kind: CondKind,
        cur: Option<u32>,
    ) {
        let text = n
            .child_by_field_name("condition")
            .map(|x| squash(self.src(x)))
            .unwrap_or_default();
        let k = self.cond(f, kind, text.clone(), n, cur);
        if let Some(cons) = n.child_by_field_name("consequence") {
            w.pending.push((cons.id(), k));
        }
        if let Some(alt) = n.child_by_field_name("alternative") {
            let e = self.cond(f, CondKind::Else, text, n, cur);
            w.pending.push((alt.id(), e));
        }
    }

    /// A `switch` or a loop: a condition over its body; a range `for`'s variable is a local.
    fn loop_or_switch(&mut self, n: Node, f: &mut Func, w: &mut BodyWalk, cur: Option<u32>) {
        let kind = if n.kind() == "switch_statement" {
            CondKind::Switch
        } else {
            CondKind::Loop
        };
        let text = n
            .child_by_field_name("condition")
            .or_else(|| n.child_by_field_name("right"))
            .map(|x| squash(self.src(x)))
            .unwrap_or_default();
        let k = self.cond(f, kind, text, n, cur);
        if let Some(b) = n.child_by_field_name("body") {
            w.pending.push((b.id(), k));
        }
        if n.kind() == "for_range_loop"
            && let Some((id, _)) = n.child_by_field_name("declarator").and_then(declared_name)
        {
            f.locals.insert(self.src(id).to_string());
        }
    }

    /// An `#if`/`#ifdef`/`#elif`/`#else` inside the body: a condition over its whole span
    /// (`#ifndef X` reads `!defined(X)`).
    fn preproc(&mut self, n: Node, f: &mut Func, w: &mut BodyWalk, cur: Option<u32>) {
        let text = n
            .child_by_field_name("condition")
            .or_else(|| n.child_by_field_name("name"))
            .map(|x| squash(self.src(x)))
            .unwrap_or_default();
        let text = if n.kind() == "preproc_ifdef" && self.src(n).trim_start().starts_with("#ifndef")
        {
            format!("!defined({text})")
        } else {
            text
        };
        let k = self.cond(f, CondKind::Preproc, text, n, cur);
        w.open.push((n.end_byte(), k));
    }

    /// `x++`, `--x`: a write of `x` that is not plain.
    fn update(&mut self, n: Node, f: &mut Func, cur: Option<u32>) {
        if let Some(a) = n.child_by_field_name("argument")
            && let Some(t) = written_name(self.text, a)
        {
            self.push(
                f,
                EventKind::Write {
                    target: t,
                    plain: false,
                    rhs: String::new(),
                    path: tight(self.src(a)).trim_start_matches("this->").to_string(),
                },
                a,
                cur,
            );
        }
    }

    /// A name: a read, unless it names a function, a declarator or a label, or is written by
    /// a plain `=`.
    fn identifier(&mut self, n: Node, f: &mut Func, at: &At) {
        let skip = matches!(
            at.field,
            Some("function") | Some("declarator") | Some("label")
        ) || matches!(
            at.parent,
            "qualified_identifier" | "goto_statement" | "labeled_statement"
        );
        if !skip && !at.lhs {
            let name = self.src(n).to_string();
            self.push(f, EventKind::Read { name }, n, at.cur);
        }
    }

    /// `a.b` or `a->b` (not called): `this->b` is a read of `b` (unless written by a plain
    /// `=`), anything else a field read.
    fn field(&mut self, n: Node, f: &mut Func, at: &At) {
        let (Some(arg), Some(fld)) = (
            n.child_by_field_name("argument"),
            n.child_by_field_name("field"),
        ) else {
            return;
        };
        let name = self.src(fld).to_string();
        if self.src(arg) == "this" {
            if !at.lhs {
                self.push(f, EventKind::Read { name }, fld, at.cur);
            }
        } else {
            let path = tight(self.src(n));
            self.push(f, EventKind::Field { path, name }, n, at.cur);
        }
    }

    /// A lambda's parameters: locals of the function.
    fn lambda_params(&mut self, n: Node, f: &mut Func) {
        let Some(params) = n
            .child_by_field_name("declarator")
            .and_then(|d| d.child_by_field_name("parameters"))
        else {
            return;
        };
        let mut w = params.walk();
        for p in params.named_children(&mut w) {
            if let Some((id, _)) = p.child_by_field_name("declarator").and_then(declared_name) {
                f.locals.insert(self.src(id).to_string());
            }
        }
    }

    /// A condition of `kind` at `n` inside `parent`: its index in the function's conditions.
    fn cond(
        &mut self,
        f: &mut Func,
        kind: CondKind,
        text: String,
        n: Node,
        parent: Option<u32>,
    ) -> u32 {
        f.conds.push(Cond {
            kind,
            text,
            pos: self.pos(n),
            parent,
        });
        (f.conds.len() - 1) as u32
    }

    /// An event at `n` under the condition `cond`.
    fn push(&self, f: &mut Func, kind: EventKind, n: Node, cond: Option<u32>) {
        f.events.push(Event {
            kind,
            pos: self.pos(n),
            cond,
        });
    }

    /// A call: its callee's path, name and receiver, and its arguments' text.
    fn call(&mut self, n: Node, f: &mut Func, cur: Option<u32>) {
        let Some(func) = n.child_by_field_name("function") else {
            return;
        };
        let path = tight(self.src(func));
        let (name_node, receiver) = match func.kind() {
            "field_expression" => (
                func.child_by_field_name("field"),
                func.child_by_field_name("argument")
                    .map(|a| tight(self.src(a))),
            ),
            "qualified_identifier" => {
                let mut q = func;
                while let Some(nn) = q.child_by_field_name("name") {
                    q = nn;
                }
                (Some(q), None)
            }
            "template_function" => (func.child_by_field_name("name"), None),
            _ => (Some(func), None),
        };
        let name_node = name_node.map(|x| {
            if x.kind() == "template_function" {
                x.child_by_field_name("name").unwrap_or(x)
            } else {
                x
            }
        });
        let name = name_node.map(|x| tight(self.src(x))).unwrap_or_default();
        let receiver = receiver.filter(|r| r != "this");
        let mut args = Vec::new();
        if let Some(a) = n.child_by_field_name("arguments") {
            let mut w = a.walk();
            for x in a.named_children(&mut w) {
                if x.kind() != "comment" {
                    args.push(squash(self.src(x)));
                }
            }
        }
        let at = name_node.unwrap_or(func);
        let kind = native_event_call(&name, &args).unwrap_or(EventKind::Call {
            path,
            name,
            receiver,
            args,
        });
        self.push(f, kind, at, cur);
    }

    /// An assignment: a write of its left side (plain for `=` of a whole name).
    fn assignment(&mut self, n: Node, f: &mut Func, cur: Option<u32>) {
        let (Some(left), Some(op)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("operator"),
        ) else {
            return;
        };
        let plain_op = self.src(op) == "=";
        let rhs = n
            .child_by_field_name("right")
            .map(|r| squash(self.src(r)))
            .unwrap_or_default();
        let whole = matches!(left.kind(), "identifier")
            || (left.kind() == "field_expression"
                && left
                    .child_by_field_name("argument")
                    .is_some_and(|a| self.src(a) == "this"));
        if let Some(t) = written_name(self.text, left) {
            self.push(
                f,
                EventKind::Write {
                    target: t,
                    plain: plain_op && whole,
                    rhs,
                    path: tight(self.src(left))
                        .trim_start_matches("this->")
                        .to_string(),
                },
                left,
                cur,
            );
        }
    }

    /// A declaration: a local per declarator, with its type and initializer.
    fn declaration(&mut self, n: Node, f: &mut Func, cur: Option<u32>) {
        let ty = n
            .child_by_field_name("type")
            .map(|t| squash(self.src(t)))
            .unwrap_or_default();
        let mut w = n.walk();
        for d in n.children_by_field_name("declarator", &mut w) {
            let init = d
                .child_by_field_name("value")
                .map(|v| squash(self.src(v)))
                .unwrap_or_default();
            if let Some((id, _)) = declared_name(d) {
                let name = self.src(id).to_string();
                f.locals.insert(name.clone());
                self.push(
                    f,
                    EventKind::Local {
                        name,
                        ty: ty.clone(),
                        init,
                    },
                    id,
                    cur,
                );
            }
        }
    }
}

/// GMC's `CALL_NATIVE_EVENT_CONDITIONAL(bNoBlueprint, Object, Event, args…)` (and `_ALWAYS` /
/// `_NEVER`, without the flag): a call of `Object->Event(args…)` (or of its
/// `_Implementation`), read as that call.
fn native_event_call(name: &str, args: &[String]) -> Option<EventKind> {
    let skip = match name {
        "CALL_NATIVE_EVENT_CONDITIONAL" => 1,
        "CALL_NATIVE_EVENT_ALWAYS" | "CALL_NATIVE_EVENT_NEVER" => 0,
        _ => return None,
    };
    let object = args.get(skip)?;
    let event = args.get(skip + 1)?;
    let receiver = (object != "this").then(|| object.clone());
    let path = match &receiver {
        Some(r) => format!("{r}->{event}"),
        None => event.clone(),
    };
    Some(EventKind::Call {
        path,
        name: event.clone(),
        receiver,
        args: args.get(skip + 2..).unwrap_or_default().to_vec(),
    })
}
