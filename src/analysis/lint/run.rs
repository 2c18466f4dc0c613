//! "Run with this layout": a linted component's binding table as the layout a session runs
//! (`Preset::component`). Types and modes are taken as written; what the lint could not read
//! is chosen and said: a mode it could not read runs with GMC's default (enumerator 0), a
//! member bound twice runs once, and a value bound to an unknown type is left out.

use super::gmc::Arg;
use super::{ComponentReport, SourceFile};
use crate::model::binding::{
    CombineMode, InterpolationFunction, MAX_CUSTOM, PredictionMode, SimulationMode,
};
use crate::session::imported::{BUILT_INS, ImportedLayout, ImportedValue};

/// The layout a component runs as, with what had to be chosen for it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunLayout {
    pub layout: ImportedLayout,
    /// One sentence per choice made for the user ("`Speed`: its combine mode `Mode` could not
    /// be read; it runs with GMC's default AlwaysCombine").
    pub notes: Vec<String>,
}

fn mode<T: Copy + std::fmt::Debug>(
    arg: &Arg<T>,
    default: T,
    member: &str,
    what: &str,
    notes: &mut Vec<String>,
) -> T {
    match arg {
        Arg::Given(v) | Arg::Default(v) => *v,
        Arg::Unknown(text) => {
            notes.push(format!(
                "`{member}`: its {what} `{}` could not be read; it runs with GMC's default {default:?}",
                text.trim()
            ));
            default
        }
    }
}

/// The component's values as a session layout (binding order kept).
pub fn run_layout(c: &ComponentReport, files: &[SourceFile]) -> RunLayout {
    let mut notes = Vec::new();
    let mut values: Vec<ImportedValue> = Vec::new();
    for b in &c.bindings {
        let member = b.member.as_str();
        if values.iter().any(|v| v.name == member) {
            notes.push(format!(
                "`{member}` is bound twice (line {}); it runs once",
                b.pos.line
            ));
            continue;
        }
        if b.in_loop {
            notes.push(format!(
                "`{member}` is bound in a loop (line {}), as many times as the loop runs, which the source does not tell; it runs once",
                b.pos.line
            ));
        }
        if BUILT_INS.iter().any(|f| f.member_name() == member) {
            notes.push(format!(
                "`{member}` has the name of a value movescope binds itself; it runs as `{member}_`"
            ));
        }
        if values.len() == MAX_CUSTOM {
            notes.push(format!(
                "only the first {MAX_CUSTOM} values run: a session carries at most that many of a component's own"
            ));
            break;
        }
        let prediction = mode(
            &b.prediction,
            PredictionMode::ServerAuth_Output_ClientValidated,
            member,
            "prediction mode",
            &mut notes,
        );
        let combine = mode(
            &b.combine,
            CombineMode::AlwaysCombine,
            member,
            "combine mode",
            &mut notes,
        );
        let simulation = mode(
            &b.simulation,
            SimulationMode::Periodic_Output,
            member,
            "simulation mode",
            &mut notes,
        );
        let interpolation = mode(
            &b.interpolation,
            InterpolationFunction::NearestNeighbour,
            member,
            "interpolation",
            &mut notes,
        );
        let name = if BUILT_INS.iter().any(|f| f.member_name() == member) {
            format!("{member}_")
        } else {
            member.to_string()
        };
        values.push(ImportedValue {
            name,
            ty: b.ty,
            prediction,
            combine,
            simulation,
            interpolation,
            tolerance: 0.0,
            behaviour: None,
            file: files.get(b.file).map(|f| f.path.clone()),
            line: b.pos.line,
        });
    }
    RunLayout {
        layout: ImportedLayout {
            class: c.class.clone(),
            values,
        },
        notes,
    }
}
