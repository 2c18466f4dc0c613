//! The shipped presets and lessons, built into the binary: `--preset NAME` and the app's
//! Presets and Lessons lists work from any directory (an installed binary, another folder).
//! A test checks that this list is exactly the `presets/` folder.

/// (name, RON text) of every file in `presets/`, by name.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "basics-01-no-prediction",
        include_str!("../../presets/basics-01-no-prediction.ron"),
    ),
    (
        "basics-02-prediction",
        include_str!("../../presets/basics-02-prediction.ron"),
    ),
    (
        "basics-03-correction-and-replay",
        include_str!("../../presets/basics-03-correction-and-replay.ron"),
    ),
    (
        "basics-04-replay-depth-and-latency",
        include_str!("../../presets/basics-04-replay-depth-and-latency.ron"),
    ),
    (
        "basics-05-combining",
        include_str!("../../presets/basics-05-combining.ron"),
    ),
    (
        "basics-06-slow-frame",
        include_str!("../../presets/basics-06-slow-frame.ron"),
    ),
    (
        "basics-07-proxies-show-the-past",
        include_str!("../../presets/basics-07-proxies-show-the-past.ron"),
    ),
    (
        "basics-08-the-clock",
        include_str!("../../presets/basics-08-the-clock.ron"),
    ),
    ("default", include_str!("../../presets/default.ron")),
    (
        "net-01-high-latency",
        include_str!("../../presets/net-01-high-latency.ron"),
    ),
    (
        "net-02-jitter-vs-buffer",
        include_str!("../../presets/net-02-jitter-vs-buffer.ron"),
    ),
    (
        "net-02-jitter-vs-buffer-fixed",
        include_str!("../../presets/net-02-jitter-vs-buffer-fixed.ron"),
    ),
    (
        "net-03-burst-loss",
        include_str!("../../presets/net-03-burst-loss.ron"),
    ),
    (
        "net-04-listen-server",
        include_str!("../../presets/net-04-listen-server.ron"),
    ),
    (
        "net-04-listen-server-dedicated",
        include_str!("../../presets/net-04-listen-server-dedicated.ron"),
    ),
    (
        "net-05-30-vs-144-fps",
        include_str!("../../presets/net-05-30-vs-144-fps.ron"),
    ),
    (
        "pitfall-01-unbound-member",
        include_str!("../../presets/pitfall-01-unbound-member.ron"),
    ),
    (
        "pitfall-01-unbound-member-fixed",
        include_str!("../../presets/pitfall-01-unbound-member-fixed.ron"),
    ),
    (
        "pitfall-02a-wall-clock-in-tick",
        include_str!("../../presets/pitfall-02a-wall-clock-in-tick.ron"),
    ),
    (
        "pitfall-02a-wall-clock-in-tick-fixed",
        include_str!("../../presets/pitfall-02a-wall-clock-in-tick-fixed.ron"),
    ),
    (
        "pitfall-02b-reads-displayed-pawns",
        include_str!("../../presets/pitfall-02b-reads-displayed-pawns.ron"),
    ),
    (
        "pitfall-02b-reads-displayed-pawns-fixed",
        include_str!("../../presets/pitfall-02b-reads-displayed-pawns-fixed.ron"),
    ),
    (
        "pitfall-02c-frame-delta-in-tick",
        include_str!("../../presets/pitfall-02c-frame-delta-in-tick.ron"),
    ),
    (
        "pitfall-02c-frame-delta-in-tick-fixed",
        include_str!("../../presets/pitfall-02c-frame-delta-in-tick-fixed.ron"),
    ),
    (
        "pitfall-02d-unseeded-random-in-tick",
        include_str!("../../presets/pitfall-02d-unseeded-random-in-tick.ron"),
    ),
    (
        "pitfall-02d-unseeded-random-in-tick-fixed",
        include_str!("../../presets/pitfall-02d-unseeded-random-in-tick-fixed.ron"),
    ),
    (
        "pitfall-03-one-shot-not-sealed",
        include_str!("../../presets/pitfall-03-one-shot-not-sealed.ron"),
    ),
    (
        "pitfall-03-one-shot-not-sealed-fixed",
        include_str!("../../presets/pitfall-03-one-shot-not-sealed-fixed.ron"),
    ),
    (
        "pitfall-04-dash-always-combine",
        include_str!("../../presets/pitfall-04-dash-always-combine.ron"),
    ),
    (
        "pitfall-04-dash-always-combine-fixed",
        include_str!("../../presets/pitfall-04-dash-always-combine-fixed.ron"),
    ),
    (
        "pitfall-05-unguarded-side-effects",
        include_str!("../../presets/pitfall-05-unguarded-side-effects.ron"),
    ),
    (
        "pitfall-05-unguarded-side-effects-fixed",
        include_str!("../../presets/pitfall-05-unguarded-side-effects-fixed.ron"),
    ),
    (
        "pitfall-06-no-world-time-replicator",
        include_str!("../../presets/pitfall-06-no-world-time-replicator.ron"),
    ),
    (
        "pitfall-06-no-world-time-replicator-fixed",
        include_str!("../../presets/pitfall-06-no-world-time-replicator-fixed.ron"),
    ),
    (
        "pitfall-07-spawn-data-only-bound",
        include_str!("../../presets/pitfall-07-spawn-data-only-bound.ron"),
    ),
    (
        "pitfall-07-spawn-data-only-bound-fixed",
        include_str!("../../presets/pitfall-07-spawn-data-only-bound-fixed.ron"),
    ),
    (
        "pitfall-08-transition-in-sync-applied",
        include_str!("../../presets/pitfall-08-transition-in-sync-applied.ron"),
    ),
    (
        "pitfall-08-transition-in-sync-applied-fixed",
        include_str!("../../presets/pitfall-08-transition-in-sync-applied-fixed.ron"),
    ),
    (
        "pitfall-09-proxy-value-not-simulated",
        include_str!("../../presets/pitfall-09-proxy-value-not-simulated.ron"),
    ),
    (
        "pitfall-09-proxy-value-not-simulated-fixed",
        include_str!("../../presets/pitfall-09-proxy-value-not-simulated-fixed.ron"),
    ),
    (
        "pitfall-10-binding-mismatch",
        include_str!("../../presets/pitfall-10-binding-mismatch.ron"),
    ),
    (
        "pitfall-10-binding-mismatch-fixed",
        include_str!("../../presets/pitfall-10-binding-mismatch-fixed.ron"),
    ),
    (
        "pitfall-11-standalone-only",
        include_str!("../../presets/pitfall-11-standalone-only.ron"),
    ),
    (
        "pitfall-11-standalone-only-fixed",
        include_str!("../../presets/pitfall-11-standalone-only-fixed.ron"),
    ),
    (
        "pitfall-12-input-written-by-tick",
        include_str!("../../presets/pitfall-12-input-written-by-tick.ron"),
    ),
    (
        "pitfall-12-input-written-by-tick-fixed",
        include_str!("../../presets/pitfall-12-input-written-by-tick-fixed.ron"),
    ),
];

/// The RON text of the shipped preset `name` (`default`, `pitfall-01-unbound-member`; a
/// `presets/` prefix and a `.ron` suffix are accepted).
pub fn preset_text(name: &str) -> Option<(&'static str, &'static str)> {
    let n = name.trim();
    let n = n.strip_prefix("presets/").unwrap_or(n);
    let n = n.strip_suffix(".ron").unwrap_or(n);
    PRESETS.iter().find(|(k, _)| *k == n).copied()
}

/// (name, bytes) of every example recording in `recordings/`, built in as the presets are,
/// so the Open dialog offers them from any folder.
pub const RECORDINGS: &[(&str, &[u8])] = &[
    ("default", include_bytes!("../../recordings/default.msrec")),
    (
        "net-01-high-latency",
        include_bytes!("../../recordings/net-01-high-latency.msrec"),
    ),
    (
        "pitfall-01-unbound-member",
        include_bytes!("../../recordings/pitfall-01-unbound-member.msrec"),
    ),
];

/// The shipped example recording `name` as a file to open: written once to a folder of its
/// own under the system's temporary folder (a recording is read from a file), and written
/// again when what is there differs.
pub fn example_recording(name: &str) -> std::io::Result<std::path::PathBuf> {
    let Some((n, bytes)) = RECORDINGS.iter().find(|(n, _)| *n == name) else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no shipped example recording named {name}"),
        ));
    };
    let dir =
        std::env::temp_dir().join(format!("movescope-{}-examples", env!("CARGO_PKG_VERSION")));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{n}.msrec"));
    if std::fs::read(&path).ok().as_deref() != Some(*bytes) {
        crate::support::output::write_file(&path, bytes).map_err(std::io::Error::other)?;
    }
    Ok(path)
}

/// The names of the shipped presets.
pub fn names() -> impl Iterator<Item = &'static str> {
    PRESETS.iter().map(|(n, _)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_exactly_the_presets_folder() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/presets");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| {
                let name = e.unwrap().file_name().to_string_lossy().to_string();
                name.strip_suffix(".ron").map(str::to_string)
            })
            .collect();
        on_disk.sort();
        let built_in: Vec<String> = names().map(str::to_string).collect();
        assert_eq!(
            built_in, on_disk,
            "src/support/shipped.rs must list every file in presets/"
        );
        for (name, text) in PRESETS {
            let path = format!("{dir}/{name}.ron");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), *text, "{name}");
        }
    }

    #[test]
    fn the_examples_are_exactly_the_recordings_folder_and_open_from_anywhere() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/recordings");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| {
                let name = e.unwrap().file_name().to_string_lossy().to_string();
                name.strip_suffix(".msrec").map(str::to_string)
            })
            .collect();
        on_disk.sort();
        let built_in: Vec<&str> = RECORDINGS.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            built_in, on_disk,
            "src/support/shipped.rs must list every recording"
        );
        for (name, bytes) in RECORDINGS {
            assert_eq!(
                std::fs::read(format!("{dir}/{name}.msrec")).unwrap(),
                *bytes
            );
            let path = example_recording(name).expect("written");
            let rec = crate::session::recording::Recording::open(&path).expect("opens");
            assert!(rec.notes().is_empty(), "{name}: {:?}", rec.notes());
        }
        assert!(example_recording("no-such").is_err());
    }

    #[test]
    fn names_resolve_with_or_without_folder_and_suffix() {
        for n in [
            "pitfall-01-unbound-member",
            "presets/pitfall-01-unbound-member.ron",
            "pitfall-01-unbound-member.ron",
        ] {
            assert_eq!(preset_text(n).unwrap().0, "pitfall-01-unbound-member");
        }
        assert!(preset_text("no-such-preset").is_none());
    }
}
