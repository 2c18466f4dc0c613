//! A tolerance finer than the wire: a value sent with two decimals compared with a tolerance
//! below 0.01. Client and server then agree only while their values round to the same step;
//! a difference far below anything the game shows (Unreal's one-decimal spawn transform, a
//! correction's rounded value) becomes a correction whenever the two fall on either side of a
//! step, and the correction hands the client the rounded value again.

use super::origin::{Origin, origin};
use super::{Ctx, Detector};
use crate::analysis::doctor::causes::Cause;
use crate::analysis::doctor::verdict::{CauseVerdict, Strength};
use crate::model::binding::{BoundType, Value};
use crate::model::deviation::Deviation;

pub(super) const WIRE_PRECISION: Detector = Detector {
    cause: Cause::ToleranceFinerThanWire,
    needs: "the deviating value's binding (its type's wire step and its tolerance) and its error; simulated with the value trace: how far apart the two machines began the move",
    judge: wire_precision,
};

/// What the doctor knows of the deviating value's rounding.
struct Rounding<'d> {
    d: &'d Deviation,
    step: f64,
    tolerance: f64,
    /// The most rounding alone can part two values by: one step in every component (for the
    /// spawn transform, the spawn's one-decimal rounding).
    resolution: f64,
    /// The most the wire's rounding alone can (one step in every component).
    wire: f64,
}

fn wire_precision(ctx: &Ctx<'_, '_>) -> CauseVerdict {
    let r = match rounding(ctx) {
        Ok(r) => r,
        Err(v) => return v,
    };
    let name = &r.d.binding;
    if r.tolerance >= r.resolution - 1e-12 {
        return CauseVerdict::ruled_out(
            Cause::ToleranceFinerThanWire,
            format!(
                "{name}'s tolerance {} is not below what rounding can part its copies by ({:.4}; its wire step is {}): rounding alone never exceeds it",
                r.tolerance, r.resolution, r.step
            ),
        );
    }
    let within_step = r.d.error <= r.resolution + 1e-9;
    if ctx.judged.is_some() && ctx.server.is_some() {
        return traced(ctx, &r);
    }
    if within_step {
        return CauseVerdict::supported(
            Cause::ToleranceFinerThanWire,
            Strength::Code,
            format!(
                "{name} is bound with tolerance {} below what rounding can part its copies by ({:.4}: a wire step of {} in each component; for location and rotation, the spawn's one-decimal rounding), and the deviation ({:.4}) is within that: rounding alone makes it. Each correction hands the client the server's rounded value, so the next moves start apart again; a tolerance of at least {:.4} ends it",
                r.tolerance, r.resolution, r.step, r.d.error, r.resolution
            ),
            Vec::new(),
        );
    }
    if r.d.error > 3.0 * r.resolution {
        return CauseVerdict::ruled_out(
            Cause::ToleranceFinerThanWire,
            format!(
                "the values are {:.4} apart, far more than rounding makes (one step of {} per component): something moved them apart",
                r.d.error, r.step
            ),
        );
    }
    CauseVerdict::cannot_tell(
        Cause::ToleranceFinerThanWire,
        format!(
            "{name}'s tolerance {} is below what rounding can part its copies by (a wire step of {} in each component), and the values are {:.4} apart: a few steps, which a start apart by rounding can grow to, or something else",
            r.tolerance, r.step, r.d.error
        ),
        super::VALUE_TRACE,
    )
}

/// Value trace: did the move begin apart, and does that gap go back to values rounded by the
/// wire (a correction the client replayed from, the spawn) rather than to a tick or a write?
fn traced(ctx: &Ctx<'_, '_>, r: &Rounding<'_>) -> CauseVerdict {
    let (name, m) = (&r.d.binding, ctx.s.move_id);
    let began = began_apart(ctx);
    let Some(began) = began else {
        return CauseVerdict::ruled_out(
            Cause::ToleranceFinerThanWire,
            format!(
                "client and server began move {m} from exactly the same values: rounding cannot part equal values, the move's execution did"
            ),
        );
    };
    let found = origin(ctx);
    if r.tolerance >= r.wire && !matches!(found, Origin::FromStart(_)) {
        return CauseVerdict::ruled_out(
            Cause::ToleranceFinerThanWire,
            format!(
                "{name}'s tolerance {} is below only what the spawn's one-decimal rounding leaves ({:.4}), and move {m}'s gap does not go back to the spawn",
                r.tolerance, r.resolution
            ),
        );
    }
    let from = match found {
        Origin::Correction(k) => format!(
            "the correction for move {k}: the client replayed from the server's values as they crossed the wire, rounded to two decimals"
        ),
        Origin::FromStart(k) => format!(
            "client {}'s spawn (its first traced move, {k}, began apart already): Unreal sends a new actor's location and rotation rounded to one decimal",
            ctx.s.client
        ),
        Origin::Tick { id: k, names, .. } => {
            return CauseVerdict::ruled_out(
                Cause::ToleranceFinerThanWire,
                format!(
                    "move {m} began apart, and client {}'s tick parted values that began alike in move {k} ({}): the tick's differences, not rounding",
                    ctx.s.client,
                    names.join(", ")
                ),
            );
        }
        Origin::Between(k) => {
            return CauseVerdict::ruled_out(
                Cause::ToleranceFinerThanWire,
                format!(
                    "move {m} began apart, but the gap goes back to a change between move {k} (which ended exactly alike) and the next: not rounding"
                ),
            );
        }
        Origin::Unknown(k) => {
            return CauseVerdict::cannot_tell(
                Cause::ToleranceFinerThanWire,
                format!(
                    "move {m} began apart ({began}) and so did every traced move back to move {k}: where the gap came from is older than the trace reaches"
                ),
                "the value trace from earlier in the session",
            );
        }
    };
    CauseVerdict::supported(
        Cause::ToleranceFinerThanWire,
        Strength::Observed,
        format!(
            "{name} is bound with tolerance {} below what rounding can part its copies by ({:.4}: a wire step of {} in each component; for location and rotation, the spawn's one-decimal rounding); move {m} began apart ({began}), and no move of client {} was seen to part in its tick: the gap goes back to {from}. Differences that small (and what they grow to within the other values' tolerances) read as a deviation of {:.4} here, and each correction hands the client rounded values again. Below that a tick's own small differences would look the same; with a tolerance of at least {:.4} the corrections that remain are not rounding's",
            r.tolerance, r.resolution, r.step, ctx.s.client, r.d.error, r.resolution
        ),
        Vec::new(),
    )
}

/// The values the desync's move began exactly apart in, in words (none: it began alike).
fn began_apart(ctx: &Ctx<'_, '_>) -> Option<String> {
    let ((_, client), server) = (ctx.judged?, ctx.server?);
    let parts: Vec<String> = ctx
        .ev
        .bindings
        .iter()
        .filter_map(|b| {
            let gap =
                b.ty.distance(&client.entry.get(b.field), &server.entry.get(b.field));
            (gap > 0.0).then(|| format!("{} by {gap:.6}", b.name))
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The deviating value's step and tolerance, or the verdict when the records do not give them.
fn rounding<'d>(ctx: &Ctx<'_, 'd>) -> Result<Rounding<'d>, CauseVerdict> {
    let Some(d) = ctx.s.deviations.first() else {
        return Err(CauseVerdict::cannot_tell(
            Cause::ToleranceFinerThanWire,
            "the correction names no deviating value",
            "GMC's Verbose validation lines (`Log GMC Verbose`), which name each deviating value",
        ));
    };
    let b = ctx.ev.binding(&d.binding);
    let ty = b.map(|b| b.ty).or_else(|| vector_type(&d.predicted));
    let Some(ty) = ty else {
        return Err(CauseVerdict::cannot_tell(
            Cause::ToleranceFinerThanWire,
            format!(
                "the records do not say how {} is bound (two decimals or whole)",
                d.binding
            ),
            "the component's source (`--component`), for its binding list",
        ));
    };
    let Some(step) = ty.wire_step() else {
        return Err(CauseVerdict::ruled_out(
            Cause::ToleranceFinerThanWire,
            format!(
                "{} travels whole ({ty:?}): there is no wire step to fall on either side of",
                d.binding
            ),
        ));
    };
    let wire = ty.wire_resolution().unwrap_or(step);
    let tolerance = if d.tolerance.is_finite() {
        d.tolerance
    } else if let Some(b) = b {
        b.tolerance
    } else {
        return Err(CauseVerdict::cannot_tell(
            Cause::ToleranceFinerThanWire,
            format!("the log prints no tolerance for {}", d.binding),
            "the component's source (`--component`), for the binding's tolerance",
        ));
    };
    Ok(Rounding {
        d,
        step,
        tolerance,
        resolution: b.map_or(wire, crate::analysis::doctor::parting::rounding_limit),
        wire,
    })
}

/// GMC sends every bound vector and rotator with two decimals per component.
fn vector_type(v: &Value) -> Option<BoundType> {
    match v {
        Value::Vec2(_) => Some(BoundType::CompressedVector2D),
        Value::Vec3(_) => Some(BoundType::CompressedVector),
        _ => None,
    }
}
