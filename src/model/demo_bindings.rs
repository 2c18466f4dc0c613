//! The demo pawn's `BindReplicationData`: its binding list in layout order — GMC's built-ins
//! with GMC 2.x's defaults, then the demo's own members — and the pitfall switches that are
//! binding mistakes.

use super::binding::{
    Binding, CombineMode, Field, InterpolationFunction, PredictionMode, SimulationMode,
};
use super::settings::Faults;

/// One `Bind*` call: member, prediction, combine, simulation, interpolation, tolerance.
type Row = (
    Field,
    PredictionMode,
    CombineMode,
    SimulationMode,
    InterpolationFunction,
    f64,
);

/// The demo pawn's `BindReplicationData`, in layout order. Pitfall switches that are binding
/// mistakes change this list: `unbound_member` leaves `move_ramp` out, `dash_always_combine`
/// binds `input_dash` as AlwaysCombine, `derived_value_bound_as_input` binds `move_ramp` as a
/// client-authoritative input, `proxy_value_not_simulated` keeps `dash_count` from proxies.
pub fn default_bindings(faults: &Faults) -> Vec<Binding> {
    use CombineMode as C;
    use InterpolationFunction as I;
    use PredictionMode as P;
    use SimulationMode as S;
    let dash_combine = if faults.dash_always_combine {
        C::AlwaysCombine
    } else {
        C::CombineIfUnchanged
    };
    let dash_count_simulation = if faults.proxy_value_not_simulated {
        S::None
    } else {
        S::PeriodicAndOnChange_Output
    };
    let move_ramp: Row = if faults.derived_value_bound_as_input {
        // The mistake: a value the tick derives, bound as the client's input.
        (
            Field::MoveRamp,
            P::ClientAuth_Input,
            C::CombineIfUnchanged,
            S::None,
            I::NearestNeighbour,
            0.0,
        )
    } else {
        (
            Field::MoveRamp,
            P::ServerAuth_Output_ClientValidated,
            C::Default,
            S::None,
            I::Linear,
            0.05,
        )
    };
    let output = P::ServerAuth_Output_ClientValidated;
    let validated = P::ServerAuth_Output_ServerValidated;
    let periodic = S::Periodic_Output;
    let rows: [Row; 13] = [
        (
            Field::InputMove,
            P::ClientAuth_Input,
            C::CombineIfUnchanged,
            S::None,
            I::NearestNeighbour,
            0.0,
        ),
        (
            Field::InputDash,
            P::ClientAuth_Input,
            dash_combine,
            S::None,
            I::NearestNeighbour,
            0.0,
        ),
        // GMC's built-ins, with GMC 2.x's defaults (docs/model.md).
        (
            Field::Location,
            validated,
            C::AlwaysCombine,
            periodic,
            I::Linear,
            2.0,
        ),
        (
            Field::Rotation,
            validated,
            C::AlwaysCombine,
            periodic,
            I::Linear,
            2.0,
        ),
        (
            Field::Scale,
            validated,
            C::AlwaysCombine,
            periodic,
            I::Linear,
            0.01,
        ),
        (
            Field::Velocity,
            output,
            C::AlwaysCombine,
            periodic,
            I::Linear,
            10.0,
        ),
        (
            Field::AngularVelocity,
            output,
            C::AlwaysCombine,
            periodic,
            I::Linear,
            10.0,
        ),
        (
            Field::ControlRotation,
            P::ClientAuth_Input,
            C::AlwaysCombine,
            periodic,
            I::Linear,
            2.0,
        ),
        // The demo's own members.
        (
            Field::DashCooldown,
            output,
            C::Default,
            periodic,
            I::Linear,
            0.05,
        ),
        (
            Field::DashCount,
            output,
            C::Default,
            dash_count_simulation,
            I::NearestNeighbour,
            0.0,
        ),
        (Field::Stride, output, C::Default, S::None, I::Linear, 1.0),
        move_ramp,
        (
            Field::Team,
            output,
            C::Default,
            S::PeriodicAndOnChange_Output,
            I::NearestNeighbour,
            0.0,
        ),
    ];
    rows.into_iter()
        .filter(|r| !(faults.unbound_member && r.0 == Field::MoveRamp))
        .map(binding)
        .collect()
}

fn binding((field, prediction, combine, simulation, interpolation, tolerance): Row) -> Binding {
    Binding {
        name: field.member_name().into(),
        field,
        ty: field.natural_type(),
        prediction,
        combine,
        simulation,
        interpolation,
        tolerance,
        behaviour: None,
    }
}

/// The binding list a client makes under `binding_mismatch`: `rotation` bound before
/// `location` (the server keeps the usual order).
pub fn mismatched_client_bindings(faults: &Faults) -> Vec<Binding> {
    let mut list = default_bindings(faults);
    let loc = list.iter().position(|b| b.field == Field::Location);
    let rot = list.iter().position(|b| b.field == Field::Rotation);
    if let (Some(l), Some(r)) = (loc, rot) {
        list.swap(l, r);
    }
    list
}
