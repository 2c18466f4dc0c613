//! Causes in what is bound: client and server binding different lists, and a member the tick
//! writes that is not bound at all.

use std::collections::BTreeSet;

use super::{Ctx, Detector, TRACE_BOTH};
use crate::analysis::doctor::causes::Cause;
use crate::analysis::doctor::verdict::{CauseVerdict, Quote, Strength};
use crate::model::logged::LoggedStage;
use crate::model::pawn::{Execution, Field};

pub(super) const BINDING_MISMATCH: Detector = Detector {
    cause: Cause::BindingMismatch,
    needs: "simulated: the server's error line when a client joins with another binding list; game log: the value names the client's and the server's dumps of the same move print",
    judge: binding_mismatch,
};

fn binding_mismatch(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    let c = ctx.s.client;
    if ctx.ev.imported() {
        return dumped_layouts(ctx);
    }
    if ctx.ev.mismatch_logged.contains(&c) {
        return CauseVerdict::supported(
            Cause::BindingMismatch,
            Strength::Observed,
            format!("the server logged that client {c} bound a different binding list"),
            Vec::new(),
        );
    }
    CauseVerdict::ruled_out(
        Cause::BindingMismatch,
        format!(
            "the server compares each client's binding list when it joins and logged no difference for client {c}"
        ),
    )
}

/// A game log: do both machines dump the same values for the same move?
fn dumped_layouts(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    let log = &ctx.ev.log;
    let pair = ctx.moves.iter().rev().copied().find_map(|m| {
        Some((
            m,
            log.dump(ctx.s.client, m, LoggedStage::ClientExecuted)?,
            log.dump(ctx.s.client, m, LoggedStage::ServerExecuted)?,
        ))
    });
    let Some((m, c, s)) = pair else {
        return CauseVerdict::cannot_tell(
            Cause::BindingMismatch,
            "a log prints no binding list; the values each machine dumps for the same move would show one, and no move was dumped on both",
            TRACE_BOTH,
        );
    };
    let names = |x: &crate::model::logged::LoggedMove| -> BTreeSet<String> {
        x.input
            .iter()
            .chain(&x.output)
            .map(|v| v.name.to_string())
            .collect()
    };
    let (a, b) = (names(c), names(s));
    let only: Vec<String> = a.symmetric_difference(&b).cloned().collect();
    let quotes = vec![
        Quote::at(format!("the client's dump of move {m}"), log.place(c.at)),
        Quote::at(format!("the server's dump of move {m}"), log.place(s.at)),
    ];
    if only.is_empty() {
        CauseVerdict::ruled_out_by(
            Cause::BindingMismatch,
            format!(
                "both machines dump the same {} values for move {m}",
                a.len()
            ),
            quotes,
        )
    } else {
        CauseVerdict::supported(
            Cause::BindingMismatch,
            Strength::Observed,
            format!(
                "the client and the server dump different values for move {m}: {} only on one side",
                only.join(", ")
            ),
            quotes,
        )
    }
}

pub(super) const UNBOUND_MEMBER: Detector = Detector {
    cause: Cause::UnboundMember,
    needs: "simulated: the binding list against the members the demo pawn's tick writes (with the value trace, the unbound member's value entering each side's execution); game log: the component's code (`--component`: movescope lint's unbound-state-in-tick reading)",
    judge: unbound_member,
};

fn unbound_member(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    if ctx.ev.imported() {
        return unbound_in_code(ctx);
    }
    if !ctx.ev.demo_pawn {
        return CauseVerdict::cannot_tell(
            Cause::UnboundMember,
            "the doctor does not know which members this component's tick writes",
            "`movescope lint` on the component (its unbound-state-in-tick rule)",
        );
    }
    let written = &ctx.ev.written_unbound;
    if written.is_empty() {
        return CauseVerdict::ruled_out(
            Cause::UnboundMember,
            "every member the pawn's tick writes is bound",
        );
    }
    let entered = unbound_entry(ctx);
    // The symptom an unbound member gives in the value trace: both machines began the move
    // with the same bound values and parted inside the tick.
    let symptom = match (ctx.judged, ctx.server) {
        (Some((_, a)), Some(b)) => {
            let all: Vec<&crate::model::binding::Binding> = ctx.ev.bindings.iter().collect();
            matches!(
                crate::analysis::doctor::parting::parting(&all, a, b).stage,
                crate::analysis::doctor::parting::Stage::SubStep { .. }
                    | crate::analysis::doctor::parting::Stage::AfterTick
            )
        }
        _ => false,
    };
    let says = format!(
        "the pawn's tick writes {} but the binding list in force has no such binding{}",
        written.join(", "),
        if entered.is_empty() {
            String::new()
        } else {
            format!("; {}", entered.join("; "))
        }
    );
    let strength = if entered.is_empty() && !symptom {
        Strength::Code
    } else {
        Strength::Observed
    };
    CauseVerdict::supported(Cause::UnboundMember, strength, says, Vec::new())
}

/// With the value trace: the unbound members the move began with on each side (the value a
/// replay or combined re-run did not restore).
fn unbound_entry(ctx: &Ctx<'_, '_>) -> Vec<String> {
    let (Some((_, a)), Some(b)) = (ctx.judged, ctx.server) else {
        return Vec::new();
    };
    ctx.ev
        .written_unbound
        .iter()
        .filter_map(|name| {
            let f = Field::from_name(name)?;
            let (x, y) = (a.entry.get(f), b.entry.get(f));
            (f.natural_type().distance(&x, &y) > 1e-6).then(|| {
                let why = match a.exec {
                    Execution::Replay => "a value changed during replay without being bound",
                    Execution::Combined => {
                        "the combined re-run began from its newest value, not the move's (unbound values are not reset)"
                    }
                    _ => "not bound, so no correction restores it",
                };
                format!(
                    "{name} (not bound) entered the client's {} execution as {x} but the server's as {y}: {why}",
                    format!("{:?}", a.exec).to_lowercase()
                )
            })
        })
        .collect()
}

/// A game log: the component's code says whether its tick writes a member it does not bind.
fn unbound_in_code(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    let Some(contents) = ctx.ev.log.contents.filter(|c| !c.code.is_empty()) else {
        return CauseVerdict::cannot_tell(
            Cause::UnboundMember,
            "a log prints only bound values: a member the tick writes but does not bind never shows in it (pitfall 1 looks like any other divergence)",
            "`--component` with the component's source: movescope lint reads which members the tick writes without binding them",
        );
    };
    let unbound: Vec<&crate::model::logged::MemberCode> = contents
        .code
        .iter()
        .filter(|m| {
            m.logged_as.is_none()
                && m.findings
                    .iter()
                    .any(|f| f.starts_with("unbound-state-in-tick"))
        })
        .collect();
    let component = contents.component.clone().unwrap_or_default();
    if unbound.is_empty() {
        return CauseVerdict::ruled_out(
            Cause::UnboundMember,
            format!(
                "movescope lint reads no member the prediction path of {component} writes without binding it"
            ),
        );
    }
    let mut quotes = Vec::new();
    for m in &unbound {
        for w in m.writes.iter().filter(|w| w.hook.is_some()) {
            quotes.push(Quote::at(
                format!(
                    "{} writes {} in {} (`{}`)",
                    w.function,
                    m.member,
                    w.hook.as_deref().unwrap_or("the move"),
                    w.statement
                ),
                w.place.clone(),
            ));
        }
        for f in &m.findings {
            quotes.push(Quote::plain(format!("lint: {f}")));
        }
    }
    let names: Vec<&str> = unbound.iter().map(|m| m.member.as_str()).collect();
    // The symptom an unbound member gives: both machines began a move with the same bound
    // values and ended it apart.
    let symptom = ctx.parted.as_ref().filter(|p| p.inputs.is_empty());
    if let Some(p) = symptom {
        quotes.push(Quote::at(
            format!("the client's execution of move {}", p.move_id),
            ctx.ev.log.place(p.client.at),
        ));
        quotes.push(Quote::at(
            format!("the server's execution of move {}", p.move_id),
            ctx.ev.log.place(p.server.at),
        ));
    }
    CauseVerdict::supported(
        Cause::UnboundMember,
        if symptom.is_some() {
            Strength::Observed
        } else {
            Strength::Code
        },
        format!(
            "the component's prediction path writes {} but binds it nowhere: a replay or a combined re-run starts from its newest value, not the move's{}",
            names.join(", "),
            symptom.map_or(" (the log cannot show an unbound value)".to_string(), |p| format!(
                "; the log shows its symptom: both machines began move {} with the same bound values and ended it apart",
                p.move_id
            ))
        ),
        quotes,
    )
}
