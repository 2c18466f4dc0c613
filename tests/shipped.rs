//! What the repository ships: every preset in `presets/` loads and runs, and every example
//! recording in `recordings/` opens intact and is exactly what its preset produces today
//! (regenerate with the command in recordings/README.md after a deliberate model change).

use std::path::PathBuf;

use movescope::session::preset::Preset;
use movescope::session::recording::Recording;
use movescope::sim::run_deterministic;

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("folder exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

#[test]
fn every_shipped_preset_loads_and_runs() {
    let presets = files("presets", "ron");
    assert!(presets.len() >= 3, "{presets:?}");
    for p in presets {
        let preset = Preset::load(&p).unwrap_or_else(|e| panic!("{e}"));
        assert!(!preset.title.is_empty() && !preset.description.is_empty());
        run_deterministic(&preset, "test", 2.0, &mut |_| {})
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    }
}

#[test]
fn every_example_recording_opens_and_resimulates_exactly() {
    let recordings = files("recordings", "msrec");
    assert!(recordings.len() >= 3, "{recordings:?}");
    for path in recordings {
        let rec = Recording::open(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            rec.footer.is_some() && rec.damage.is_none(),
            "{}",
            rec.describe()
        );
        let (records, damage) = rec.load_all();
        assert!(damage.is_none());
        assert_eq!(rec.header.mode, "deterministic");
        let seconds = rec.footer.as_ref().map_or(0.0, |f| f.simulated_seconds);
        let mut again = Vec::new();
        run_deterministic(&rec.header.preset, "again", seconds, &mut |r| {
            again.push(r.clone())
        })
        .expect("runs");
        let first_difference = records.iter().zip(&again).position(|(a, b)| a != b);
        assert!(
            first_difference.is_none() && records.len() == again.len(),
            "{}: re-simulating its preset differs (first at record {first_difference:?}; {} vs {} records); regenerate it (recordings/README.md) if the model changed on purpose",
            path.display(),
            records.len(),
            again.len()
        );
    }
}

/// `movescope run` without `--record` makes no world-view samples (nothing else reads them):
/// the summary of every shipped preset must not depend on them.
#[test]
fn every_shipped_preset_summarises_the_same_without_world_view_samples() {
    use movescope::model::telemetry::Event;
    for p in files("presets", "ron") {
        let with = Preset::load(&p).unwrap_or_else(|e| panic!("{e}"));
        let mut without = with.clone();
        without.world_view_rate = 0.0;
        let run = |preset: &Preset| {
            let mut samples = 0usize;
            let mut summary = run_deterministic(preset, "test", 8.0, &mut |r| {
                samples += usize::from(matches!(r.event, Event::PawnSample(_)));
            })
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            summary.wall_seconds = 0.0;
            (summary, samples)
        };
        let (a, sampled) = run(&with);
        let (b, unsampled) = run(&without);
        assert_eq!(unsampled, 0, "{}", p.display());
        assert!(
            with.world_view_rate == 0.0 || sampled > 0,
            "{}: the preset's run made no sample",
            p.display()
        );
        assert_eq!(a, b, "{}: the summary depends on the samples", p.display());
    }
}

/// A recording made by an earlier version (the shipped default of 2026-12-03, before the hit
/// check's read of its target was recorded) still opens whole: every record decodes, and its
/// preset still runs.
#[test]
fn a_recording_of_an_earlier_version_still_opens() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/older/default-2026-12-03.msrec");
    let rec = Recording::open(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(rec.damage.is_none(), "{}", rec.describe());
    let (records, damage) = rec.load_all();
    assert!(damage.is_none(), "{damage:?}");
    assert_eq!(records.len(), 22666);
    let seconds = rec.footer.as_ref().map_or(0.0, |f| f.simulated_seconds);
    assert!(seconds > 9.0, "{seconds}");
    run_deterministic(&rec.header.preset, "again", 1.0, &mut |_| {}).expect("its preset runs");
}

/// A recording written before GMC's built-in scale, angular velocity and control rotation
/// were bound (format 2, record encoding 1) holds pawn states without them: every state
/// reads back whole — its own members as written, the three built-ins at their spawn
/// values — and nothing after a state is read as part of it.
#[test]
fn pawn_states_recorded_before_the_built_ins_read_back() {
    use movescope::model::telemetry::Event;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/older/default-value-trace-2026-12-07.msrec");
    let rec = Recording::open(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rec.header.format, 2);
    let (records, damage) = rec.load_all();
    assert!(damage.is_none(), "{damage:?}");
    let states: Vec<_> = records
        .iter()
        .filter_map(|r| match &r.event {
            Event::MoveValues(v) => Some(v.clone()),
            _ => None,
        })
        .collect();
    assert!(states.len() > 500, "{} move values", states.len());
    let mut moving = 0;
    for v in &states {
        for s in std::iter::once(&v.entry)
            .chain(&v.substeps)
            .chain(std::iter::once(&v.exit))
        {
            assert_eq!(s.scale, glam::DVec3::ONE);
            assert_eq!(s.angular_velocity, glam::DVec3::ZERO);
            assert_eq!(s.control_rotation, glam::DVec3::ZERO);
            assert!(s.location.is_finite() && s.location.length() < 1e5, "{s:?}");
            assert!(s.team <= 2 && s.dash_cooldown >= 0.0, "{s:?}");
        }
        moving += usize::from(v.exit.velocity.length() > 1.0);
    }
    assert!(
        moving > states.len() / 4,
        "{moving} of {} moving",
        states.len()
    );
}
