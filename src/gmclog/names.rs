//! Names for the values GMC prints by type and index (`SinglePrecisionFloat[1]`): GMC numbers
//! bindings per type in binding order, and a subclass's `Super::BindReplicationData` binds its
//! parent's values first, so a component's binding list (read by `movescope lint`) with GMC's
//! own parents' lists in front of it names every index.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::analysis::lint::{ComponentReport, LintReport};
use crate::model::binding::{
    Binding, BoundType, CombineMode, Field, InterpolationFunction, MAX_CUSTOM, PredictionMode,
    SimulationMode,
};
use crate::model::logged::{MemberCode, WriteSite};

/// The values GMC's own components bind in `BindReplicationData_Implementation`, in order.
/// Source: GMC 2.x `GMCOrganicMovementComponent.cpp` and `GMCGoldSrcMovementComponent.cpp`
/// as published in public projects (docs/research/gmc-parent-bindings.md names the commits
/// read). `UGMC_ReplicationCmp` and `UGMC_MovementUtilityCmp` bind nothing themselves; the
/// organic component's oldest published version binds 10 (no `ActorBaseRotation`), the
/// newer ones 11, which is what this table holds.
pub const ORGANIC: [(&str, BoundType); 11] = [
    ("RawInputVector", BoundType::CompressedVector),
    ("CurrentRootCollisionShape", BoundType::HalfByte),
    ("CurrentRootCollisionExtent", BoundType::CompressedVector),
    ("MovementMode", BoundType::HalfByte),
    ("bReceivedUpwardForce", BoundType::Bool),
    ("bHasRootMotion", BoundType::Bool),
    ("MontageTracker.Montage", BoundType::AnimMontageReference),
    ("MontageTracker.MontagePosition", BoundType::Float),
    ("MontageTracker.MontagePlayRate", BoundType::Float),
    ("MontageTracker.bMontagePaused", BoundType::Bool),
    (
        "RelBasedMovementAux.ActorBaseRotation",
        BoundType::CompressedRotator,
    ),
];

/// `UGMC_GoldSrcMovementCmp` (derives from the organic component) after the organic list.
pub const GOLDSRC: [(&str, BoundType); 9] = [
    ("bWantsToSprint", BoundType::Bool),
    ("bWantsToCrouch", BoundType::Bool),
    ("bWantsToJump", BoundType::Bool),
    ("bCanJump", BoundType::Bool),
    ("bJustLandedPostPhysics", BoundType::Bool),
    ("bJustJumped", BoundType::Bool),
    ("bJustLanded", BoundType::Bool),
    ("bIsSprinting", BoundType::Bool),
    ("MaxSpeed", BoundType::CompressedFloat),
];

/// GMC's own bindings of a GMC class, parents first (empty for classes that bind nothing or
/// that this table does not know).
pub fn gmc_class_bindings(class: &str) -> Vec<(String, BoundType)> {
    let own = |t: &[(&str, BoundType)]| -> Vec<(String, BoundType)> {
        t.iter().map(|(n, ty)| (n.to_string(), *ty)).collect()
    };
    match class {
        "UGMC_OrganicMovementCmp" => own(&ORGANIC),
        "UGMC_GoldSrcMovementCmp" => {
            let mut v = own(&ORGANIC);
            v.extend(own(&GOLDSRC));
            v
        }
        _ => Vec::new(),
    }
}

/// Member names by (type, index), from a whole binding list in binding order.
#[derive(Clone, Debug, Default)]
pub struct Naming {
    names: HashMap<(BoundType, u16), String>,
    /// How many values of each type the list binds.
    counts: HashMap<BoundType, u16>,
    /// Where the names came from ("UMyMoveCmp in MyMoveCmp.h, after UGMC_OrganicMovementCmp's
    /// 11"), for the import's notes.
    pub source: String,
    /// The component's members as its code writes them (`movescope lint`'s reading), for the
    /// doctor's evidence.
    pub code: Vec<crate::model::logged::MemberCode>,
}

impl Naming {
    /// No names: values read as GMC prints them.
    pub fn none() -> Naming {
        Naming::default()
    }

    /// Names for a binding list in binding order.
    pub fn from_list(list: &[(String, BoundType)], source: String) -> Naming {
        let mut n = Naming {
            source,
            ..Naming::default()
        };
        for (name, ty) in list {
            let i = n.counts.entry(*ty).or_insert(0);
            n.names.insert((*ty, *i), name.clone());
            *i = i.saturating_add(1);
        }
        n
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The member bound as value `index` of `ty`.
    pub fn name(&self, ty: BoundType, index: u16) -> Option<&str> {
        self.names.get(&(ty, index)).map(String::as_str)
    }

    /// How many values of `ty` the list binds.
    pub fn count(&self, ty: BoundType) -> u16 {
        self.counts.get(&ty).copied().unwrap_or(0)
    }

    /// The name a value goes by: its member's, or GMC's own `Type[i]` where the list has none.
    pub fn label(&self, type_name: &str, ty: Option<BoundType>, index: Option<u16>) -> String {
        match (ty, index) {
            (Some(t), Some(i)) => match self.name(t, i) {
                Some(n) => n.to_string(),
                None => format!("{type_name}[{i}]"),
            },
            _ => type_name.to_string(),
        }
    }
}

/// A component's whole binding list as GMC numbers it: its own bindings (as `movescope lint`
/// reads them, parent classes in the files included) with GMC's own parent's inserted where
/// its `Super::BindReplicationData` call falls.
pub fn component_list(c: &ComponentReport) -> (Vec<(String, BoundType)>, String) {
    let own: Vec<(String, BoundType)> = c
        .bindings
        .iter()
        .map(|b| (b.member.clone(), b.ty))
        .collect();
    let at_file = format!("{} ({}:{})", c.class, c.file.display(), c.line);
    let Some((parent, at)) = &c.gmc_parent else {
        return (own, format!("{at_file}, {} bindings", c.bindings.len()));
    };
    let parents = gmc_class_bindings(parent);
    let at = (*at).min(own.len());
    let mut list = own[..at].to_vec();
    list.extend(parents.iter().cloned());
    list.extend(own[at..].iter().cloned());
    let binds_nothing = matches!(
        parent.as_str(),
        "UGMC_ReplicationCmp" | "UGMC_MovementUtilityCmp"
    );
    let source = if binds_nothing {
        format!(
            "{at_file}, {} bindings ({parent} binds nothing itself)",
            c.bindings.len()
        )
    } else if parents.is_empty() {
        format!(
            "{at_file}, {} bindings; {parent}'s own bindings are not known to movescope, so its values may be numbered before these and indexes can be off",
            c.bindings.len()
        )
    } else {
        format!(
            "{at_file}, {} bindings, with {parent}'s {} bound first (GMC's own, docs/gmc-logs.md)",
            c.bindings.len(),
            parents.len()
        )
    };
    (list, source)
}

/// The component's own bindings as a session's binding list (for the recording's header:
/// the doctor reads modes from it). Unreadable modes stay GMC's defaults.
pub fn header_bindings(c: &ComponentReport) -> Vec<Binding> {
    c.bindings
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < MAX_CUSTOM)
        .map(|(i, b)| Binding {
            name: Arc::from(b.member.as_str()),
            field: Field::Custom(i as u8),
            ty: b.ty,
            prediction: b
                .prediction
                .value()
                .unwrap_or(PredictionMode::ServerAuth_Output_ClientValidated),
            combine: b.combine.value().unwrap_or(CombineMode::CombineIfUnchanged),
            simulation: b.simulation.value().unwrap_or(SimulationMode::None),
            interpolation: b
                .interpolation
                .value()
                .unwrap_or(InterpolationFunction::NearestNeighbour),
            tolerance: 0.0,
            behaviour: None,
        })
        .collect()
}

/// A component read for an import: the names of its values, its own binding list (for the
/// recording's header) and what could not be read.
pub struct ComponentNames {
    pub naming: Naming,
    pub bindings: Vec<Binding>,
    /// Files that could not be linted (`path: problem`).
    pub problems: Vec<String>,
}

/// Why a component could not name a log's values.
#[derive(Debug, thiserror::Error)]
pub enum ComponentError {
    #[error("--class {class}: no such component in the files (found: {found})")]
    NoSuchClass { class: String, found: String },
    #[error("--component: the files hold no component that binds values")]
    NoBindings,
    #[error(
        "--component: the files hold several components that bind values; choose one with --class ({found})"
    )]
    Several { found: String },
}

/// Reads the component in `paths` (a header named alone brings its source: the binds are
/// usually in the .cpp) the way `movescope lint` does, and names a log's values from it.
pub fn for_component(
    paths: &[PathBuf],
    class: Option<&str>,
) -> Result<ComponentNames, ComponentError> {
    let mut all = paths.to_vec();
    all.extend(crate::analysis::lint::sources_of_headers(paths));
    let report = crate::analysis::lint::lint_paths(
        &all,
        crate::analysis::lint::Rates::of(&crate::session::preset::Preset::builtin_default()),
    );
    let problems = report
        .problems
        .iter()
        .map(|p| format!("{}: {}", p.path.display(), p.problem))
        .collect();
    let chosen = choose(&report, class)?;
    let (list, source) = component_list(chosen);
    let mut naming = Naming::from_list(&list, source);
    naming.code = member_code(&report, chosen);
    Ok(ComponentNames {
        naming,
        bindings: header_bindings(chosen),
        problems,
    })
}

fn choose<'a>(
    report: &'a LintReport,
    class: Option<&str>,
) -> Result<&'a ComponentReport, ComponentError> {
    let found = || {
        report
            .components
            .iter()
            .map(|c| c.class.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(class) = class {
        return report
            .components
            .iter()
            .find(|c| c.class == class)
            .ok_or_else(|| ComponentError::NoSuchClass {
                class: class.to_string(),
                found: found(),
            });
    }
    let binding: Vec<&ComponentReport> = report
        .components
        .iter()
        .filter(|c| !c.bindings.is_empty())
        .collect();
    match binding.as_slice() {
        [one] => Ok(one),
        [] => Err(ComponentError::NoBindings),
        _ => Err(ComponentError::Several { found: found() }),
    }
}

/// The component's members as its code writes them, for the doctor's evidence: each bound
/// member (with the name GMC prints it by and its mode) and each member the lint finds carried
/// from move to move unbound, with where the code writes it and the lint's findings on it.
pub fn member_code(report: &LintReport, c: &ComponentReport) -> Vec<MemberCode> {
    let (list, _) = component_list(c);
    let naming = Naming::from_list(&list, String::new());
    let place = |file: usize, line: u32| {
        let name = report.files.get(file).map_or_else(String::new, |f| {
            f.path.file_name().map_or_else(
                || f.path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        });
        format!("{name}:{line}")
    };
    let findings_on = |member: &str| -> Vec<String> {
        let quoted = format!("`{member}`");
        report
            .findings
            .iter()
            .filter(|f| f.component == c.class && f.message.contains(&quoted))
            .map(|f| {
                format!(
                    "{}: {} ({})",
                    f.rule.id,
                    f.message,
                    place(f.file, f.pos.line)
                )
            })
            .collect()
    };
    let writes_of = |member: &str| -> Vec<WriteSite> {
        c.writes
            .iter()
            .filter(|w| {
                w.member == member || crate::analysis::lint::program::root_of(&w.member) == member
            })
            .map(|w| WriteSite {
                function: w.function.clone(),
                hook: w.hook.clone(),
                guard: w.guard.clone(),
                statement: w.statement.chars().take(200).collect(),
                place: place(w.file, w.line),
            })
            .collect()
    };
    let mut out: Vec<MemberCode> = c
        .bindings
        .iter()
        .map(|b| MemberCode {
            member: b.member.clone(),
            logged_as: logged_as(&naming, &b.member, b.ty),
            mode: b.prediction.value().map(|m| format!("{m:?}")),
            writes: writes_of(&b.member),
            findings: findings_on(&b.member),
        })
        .collect();
    for name in unbound_members(report, c) {
        if out.iter().any(|m| m.member == name) {
            continue;
        }
        out.push(MemberCode {
            logged_as: None,
            mode: None,
            writes: writes_of(&name),
            findings: findings_on(&name),
            member: name,
        });
    }
    out
}

/// `SinglePrecisionFloat[2]`: how GMC prints the member bound as `member`.
fn logged_as(naming: &Naming, member: &str, ty: BoundType) -> Option<String> {
    (0..naming.count(ty))
        .find(|i| naming.name(ty, *i) == Some(member))
        .map(|i| format!("{}[{i}]", super::values::log_name(ty)))
}

/// The members the lint's `unbound-state-in-tick` names for this component.
fn unbound_members(report: &LintReport, c: &ComponentReport) -> Vec<String> {
    report
        .findings
        .iter()
        .filter(|f| f.component == c.class && f.rule.id == "unbound-state-in-tick")
        .filter_map(|f| {
            let rest = f.message.strip_prefix('`')?;
            Some(rest.split('`').next()?.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_count_per_type_in_binding_order() {
        let mut list = gmc_class_bindings("UGMC_OrganicMovementCmp");
        list.push(("bWantsToDash".into(), BoundType::Bool));
        list.push(("DashCooldown".into(), BoundType::Float));
        let n = Naming::from_list(&list, "test".into());
        assert_eq!(n.name(BoundType::Bool, 3), Some("bWantsToDash"));
        assert_eq!(n.name(BoundType::Float, 2), Some("DashCooldown"));
        assert_eq!(n.name(BoundType::HalfByte, 1), Some("MovementMode"));
        assert_eq!(n.label("Bool", Some(BoundType::Bool), Some(9)), "Bool[9]");
        assert_eq!(n.count(BoundType::Bool), 4);
        assert_eq!(gmc_class_bindings("UGMC_GoldSrcMovementCmp").len(), 20);
    }
}
