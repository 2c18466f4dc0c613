//! The lessons the panel lists: the shipped presets with lesson material, local preset files
//! with lessons, and the lessons that show a doctor's cause.

use crate::session::preset::Preset;

/// A lesson as listed: its preset's name (shipped name or local file) and contents.
#[derive(Clone, Debug)]
pub struct LessonEntry {
    pub name: String,
    pub preset: Preset,
}

/// A preset name reduced to what identifies a lesson: `presets/pitfall-01-x.ron`,
/// `pitfall-01-x.ron` and `pitfall-01-x` are the same lesson.
pub fn lesson_key(name: &str) -> String {
    let base = std::path::Path::new(name.trim())
        .file_name()
        .map_or_else(|| name.to_string(), |n| n.to_string_lossy().to_string());
    base.strip_suffix(".ron").unwrap_or(&base).to_string()
}

/// Every shipped preset with lesson material (built in: works from any folder), and local
/// `presets/` files with lessons that are not shipped, in lesson order.
pub fn shipped_lessons() -> Vec<LessonEntry> {
    lessons_with_local(std::path::Path::new("presets"))
}

/// The built-in lessons and those of the preset files in `local` (a folder that need not
/// exist) that are not shipped, in lesson order.
pub fn lessons_with_local(local: &std::path::Path) -> Vec<LessonEntry> {
    let mut v: Vec<LessonEntry> = crate::support::shipped::PRESETS
        .iter()
        .filter_map(|(name, text)| {
            let preset = Preset::from_ron(text, name).ok()?;
            preset.lesson.as_ref()?;
            Some(LessonEntry {
                name: name.to_string(),
                preset,
            })
        })
        .collect();
    let files = std::fs::read_dir(local)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    for path in files {
        if path.extension().is_none_or(|x| x != "ron") {
            continue;
        }
        let name = path.display().to_string();
        if v.iter().any(|e| lesson_key(&e.name) == lesson_key(&name)) {
            continue;
        }
        if let Ok(preset) = Preset::load(&path)
            && preset.lesson.is_some()
        {
            v.push(LessonEntry { name, preset });
        }
    }
    v.sort_by_key(|e| e.preset.lesson.as_ref().map_or(u32::MAX, |l| l.order));
    v
}

/// The lessons that show `cause`: those whose scenario switches on a pitfall the cause names
/// (or runs without exactly one world-time replicator, or with a modified client), in lesson
/// order.
pub fn lessons_for(cause: crate::analysis::doctor::Cause) -> Vec<LessonEntry> {
    let keys = cause.pitfalls();
    shipped_lessons()
        .into_iter()
        .filter(|e| {
            keys.iter().any(|k| {
                if *k == "world_time_replicators" {
                    return e.preset.world_time_replicators != 1;
                }
                if *k == "modified_client" {
                    return e.preset.client_overrides.iter().any(|o| o.modified);
                }
                crate::model::settings::Faults::EXPLAINED
                    .iter()
                    .position(|(name, _)| name == k)
                    .is_some_and(|i| e.preset.faults.is_on(i))
            })
        })
        .collect()
}
