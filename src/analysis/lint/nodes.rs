//! Small helpers over tree-sitter nodes for [`super::syntax`]: the walk's steps, the names
//! declarators declare, and what a left-hand side writes. Iterative or depth-capped, so
//! hostile nesting cannot overflow the stack.

use tree_sitter::{Node, TreeCursor};

/// Unreal's (and GMC's) assertion and logging macros, parsed as calls.
pub(super) fn is_assert_or_log(name: &str) -> bool {
    name.starts_with("check")
        || name.starts_with("ensure")
        || name.starts_with("verify")
        || name.ends_with("_ck")
        || matches!(
            name,
            "UE_LOG" | "UE_CLOG" | "FLog" | "UE_VLOG" | "UE_VLOG_UELOG" | "GMC_LOG"
        )
}

/// [`advance`] that keeps `kinds`, the ancestors' kinds, and stops at the cursor's root.
pub(super) fn advance_tracked<'t>(
    c: &mut TreeCursor<'t>,
    descend: bool,
    kinds: &mut Vec<&'t str>,
) -> bool {
    let kind = c.node().kind();
    if descend && c.goto_first_child() {
        kinds.push(kind);
        return true;
    }
    loop {
        if kinds.is_empty() {
            return false;
        }
        if c.goto_next_sibling() {
            return true;
        }
        if !c.goto_parent() {
            return false;
        }
        kinds.pop();
    }
}

/// Pre-order step: into the first child (when `descend`), else to the next sibling or up.
/// False when the walk is over.
pub(super) fn advance(c: &mut TreeCursor, descend: bool) -> bool {
    if descend && c.goto_first_child() {
        return true;
    }
    loop {
        if c.goto_next_sibling() {
            return true;
        }
        if !c.goto_parent() {
            return false;
        }
    }
}

/// The declared identifier of a declarator, and whether it is a pointer or reference.
pub(super) fn declared_name(d: Node) -> Option<(Node, bool)> {
    let mut d = d;
    let mut pointer = false;
    for _ in 0..32 {
        match d.kind() {
            "identifier" | "field_identifier" => return Some((d, pointer)),
            "pointer_declarator" | "reference_declarator" => {
                pointer = true;
                d = d
                    .child_by_field_name("declarator")
                    .or_else(|| d.named_child(0))?;
            }
            "init_declarator"
            | "array_declarator"
            | "attributed_declarator"
            | "parenthesized_declarator" => {
                d = d
                    .child_by_field_name("declarator")
                    .or_else(|| d.named_child(0))?;
            }
            _ => return None,
        }
    }
    None
}

pub(super) fn function_declarator(d: Node) -> Option<Node> {
    let mut d = d;
    for _ in 0..32 {
        if d.kind() == "function_declarator" {
            return Some(d);
        }
        d = d.child_by_field_name("declarator")?;
    }
    None
}

/// The member a left-hand side writes: `X`, `this->X`, or the base of `X.Y`, `X[i]`.
pub(super) fn written_name(text: &str, n: Node) -> Option<String> {
    let mut n = n;
    for _ in 0..32 {
        match n.kind() {
            "identifier" => return text.get(n.byte_range()).map(str::to_string),
            "field_expression" => {
                let arg = n.child_by_field_name("argument")?;
                let is_arrow = n
                    .child_by_field_name("operator")
                    .and_then(|o| text.get(o.byte_range()))
                    == Some("->");
                if text.get(arg.byte_range()) == Some("this") {
                    return n
                        .child_by_field_name("field")
                        .and_then(|x| text.get(x.byte_range()))
                        .map(str::to_string);
                }
                if is_arrow {
                    // A write through a pointer changes the pointee, not a member here: its
                    // target is the whole path (`Data->bJump`), which matches a binding made
                    // through the same pointer and no member of the class.
                    let t: String = text.get(n.byte_range())?.split_whitespace().collect();
                    return Some(t.trim_start_matches("this->").to_string());
                }
                n = arg;
            }
            "subscript_expression" => n = n.child_by_field_name("argument")?,
            "parenthesized_expression" => n = n.named_child(0)?,
            _ => return None,
        }
    }
    None
}
