//! The app's panels driven headlessly with egui_kittest (no GPU): the controls reach the live
//! session.

mod common;

use common::ui::type_number;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use movescope::app::{AppOptions, MovescopeApp};
use movescope::session::preset::Preset;

fn harness() -> Harness<'static, MovescopeApp> {
    harness_sized(1280.0, 800.0)
}

/// The app at `w`×`h` points (a tall window shows a whole pane without scrolling).
fn harness_sized(w: f32, h: f32) -> Harness<'static, MovescopeApp> {
    let preset = Preset {
        clients: 1,
        ai_pawns: 0,
        ..Preset::default()
    };
    let options = AppOptions::live(preset, "test");
    let mut h = Harness::builder()
        .with_size(egui::vec2(w, h))
        .build_eframe(move |_cc| MovescopeApp::new(options));
    h.run_steps(3);
    h
}

#[test]
fn the_window_names_every_plot_and_control() {
    let h = harness();
    for label in [
        // Plot titles carry their unit.
        "Move delta (ms)",
        "Frames per move (frames)",
        "Corrections: replay depth (moves)",
        "Interpolation delay (ms)",
        "Round trip (ping) (ms)",
        "Clock offset (ms)",
        "Pitfall switches",
        "Event log",
        // Pitfall switches in words.
        "Tick reads the clock",
        "World view",
        "seen from",
        // The event log's filters.
        "corrections",
        "warnings & errors",
        "session changes",
    ] {
        h.get_by_label(label);
    }
}

#[test]
fn a_pitfall_switch_reaches_the_session() {
    let mut h = harness();
    assert!(
        !h.state()
            .session()
            .unwrap()
            .preset()
            .faults
            .wall_clock_in_tick
    );
    h.get_by_label("Tick reads the clock").click();
    h.run_steps(2);
    assert!(
        h.state()
            .session()
            .unwrap()
            .preset()
            .faults
            .wall_clock_in_tick
    );
    // A binding mistake goes through a consistent binding change.
    h.get_by_label("Dash press combined away").click();
    h.run_steps(2);
    let p = h.state().session().unwrap().preset();
    assert!(p.faults.dash_always_combine);
    assert_eq!(
        p.bindings().unwrap().by_name("input_dash").unwrap().combine,
        movescope::model::binding::CombineMode::AlwaysCombine
    );
}

#[test]
fn pause_stops_the_session_clock() {
    let mut h = harness();
    h.get_by_label("Pause (Space)").click();
    h.run_steps(2);
    assert!(h.state().is_paused());
    assert!(h.state().session().unwrap().clock().is_paused());
    h.get_by_label("Resume (Space)").click();
    h.run_steps(2);
    assert!(!h.state().session().unwrap().clock().is_paused());
}

/// A recording of the default preset with an unbound member, its cursor at `cursor`, in a
/// folder of its own (removed when the returned guard drops).
fn recording_with_cursor(name: &str, cursor: f64) -> (common::TempDir, std::path::PathBuf) {
    recording_of(name, Some(cursor))
}

/// As [`recording_with_cursor`], with the cursor the header names, if any.
fn recording_of(name: &str, cursor: Option<f64>) -> (common::TempDir, std::path::PathBuf) {
    use movescope::session::recording::{Footer, Header, write_all};
    let mut preset = Preset::default();
    preset.set("faults.unbound_member=true").unwrap();
    preset.set("link.latency_ms=50").unwrap();
    let mut records = Vec::new();
    movescope::sim::run_deterministic(&preset, "test", 8.0, &mut |r| records.push(r.clone()))
        .unwrap();
    let mut header = Header::new(&preset, "test", "deterministic").unwrap();
    header.cursor = cursor;
    let dir = common::TempDir::new(&format!("app-{name}"));
    let path = dir.join(name);
    write_all(&path, &header, records, Footer::default()).unwrap();
    (dir, path)
}

/// The app on a recording, loaded.
fn opened(path: std::path::PathBuf) -> Harness<'static, MovescopeApp> {
    opened_stepping(path, 0.25)
}

/// The app on a recording, loaded, each frame `step_dt` seconds after the last (short steps
/// make two clicks a double-click).
fn opened_stepping(path: std::path::PathBuf, step_dt: f32) -> Harness<'static, MovescopeApp> {
    let options = AppOptions {
        source: movescope::app::Source::Recording { path, at: None },
        ..AppOptions::live(Preset::default(), "test")
    };
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_step_dt(step_dt)
        .build_eframe(move |_cc| MovescopeApp::new(options));
    loaded(&mut h);
    h
}

/// Steps the app until the recording is loaded (bounded).
fn loaded(h: &mut Harness<'static, MovescopeApp>) {
    step_until(h, "the recording finished loading", |a| !a.is_loading());
}

/// Steps the app one frame at a time until `done` holds, failing the test with `what` after
/// 2000 frames (background work — loading, what-if, doctor, journeys — ends well before).
fn step_until(
    h: &mut Harness<'static, MovescopeApp>,
    what: &str,
    done: impl Fn(&MovescopeApp) -> bool,
) {
    for _ in 0..2000 {
        if done(h.state()) {
            return;
        }
        h.run_steps(1);
    }
    assert!(done(h.state()), "{what} within 2000 frames");
}

#[test]
fn a_recording_opens_at_its_cursor_and_the_timeline_moves_it() {
    let (_dir, path) = recording_with_cursor("t.msrec", 3.0);
    let mut h = opened(path);
    h.run_steps(2);
    assert!(h.state().session().is_none(), "no live session runs");
    assert_eq!(h.state().time().cursor(), 3.0);
    assert!(h.state().store().records() > 10_000);
    // The recorded settings are shown (and cannot be changed).
    h.get_by_label("Member written, not bound");
    h.get_by_label("mark >>").click();
    h.run_steps(2);
    let next = h.state().time().cursor();
    assert!(next > 3.0, "jumped to the next correction: {next}");
    assert!(
        h.state()
            .store()
            .log_between(next, next)
            .iter()
            .any(|e| e.text.contains("corrected")),
        "a correction is at the cursor"
    );
    h.get_by_label("< frame").click();
    h.run_steps(2);
    assert!(h.state().time().cursor() < next);
    h.get_by_label("Play").click();
    h.run_steps(2);
    assert!(h.state().time().is_playing());
    h.get_by_label("Pause").click();
    h.run_steps(2);
    assert!(!h.state().time().is_playing());
}

#[test]
fn the_app_records_a_live_session() {
    let dir = common::TempDir::new("app-rec");
    let path = dir.join("live.msrec");
    let options = AppOptions {
        record: Some(path.clone()),
        ..AppOptions::live(
            Preset {
                clients: 1,
                ai_pawns: 0,
                ..Preset::default()
            },
            "test",
        )
    };
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |_cc| MovescopeApp::new(options));
    // Run until the session has 1.5 s of data (bounded by wall time).
    run_until_live_data(&mut h, 1.5);
    h.get_by_label("Stop recording").click();
    // The recording is finished on a job thread; the status line says when it is done.
    step_until(&mut h, "the recording was finished", |a| {
        a.status().contains("recorded")
    });
    let rec = movescope::session::recording::Recording::open(&path).unwrap();
    assert!(rec.footer.is_some(), "finished with an index");
    let (records, damage) = rec.load_all();
    assert!(damage.is_none());
    assert!(records.len() > 100, "{}", records.len());
    assert_eq!(rec.header.mode, "live");
}

#[test]
fn the_bindings_table_changes_a_mode_in_the_session() {
    let mut h = harness();
    h.get_by_label("Bindings table").click();
    h.run_steps(4);
    // GMC's built-ins are rows of the table, each with its mode and tolerance.
    for name in ["scale", "angular_velocity", "control_rotation"] {
        h.get_by_label(&format!("{name} tolerance"));
        h.get_by_label(&format!("{name} prediction"));
    }
    h.get_by_label("input_dash combine").click();
    h.run_steps(2);
    h.get_by_label("AlwaysCombine").click();
    h.run_steps(2);
    let b = h.state().session().unwrap().bindings();
    assert_eq!(
        b.by_name("input_dash").unwrap().combine,
        movescope::model::binding::CombineMode::AlwaysCombine,
        "the session switched to the edited binding list"
    );
    h.get_by_label("input_dash simulation").click();
    h.run_steps(2);
    h.get_by_label("None").click();
    h.run_steps(2);
    let b = h.state().session().unwrap().bindings();
    assert_eq!(
        b.by_name("input_dash").unwrap().simulation,
        movescope::model::binding::SimulationMode::None
    );
}

#[test]
fn a_network_profile_and_a_gmc_setting_reach_the_session() {
    let mut h = harness();
    h.get_by_label("profile").click();
    h.run_steps(2);
    h.get_by_label("Mobile 4G").click();
    h.run_steps(2);
    let link = h.state().session().unwrap().preset().link_params(0, true);
    assert_eq!(
        (link.latency_ms, link.jitter_ms, link.loss),
        (100.0, 20.0, 0.04)
    );
    h.get_by_label("GMC settings").click();
    h.run_steps(4);
    h.get_by_label("bUseClientReplay").click();
    h.run_steps(2);
    assert!(!h.state().session().unwrap().preset().gmc.use_client_replay);
}

#[test]
fn a_trace_file_replays_on_the_links_and_its_statistics_show() {
    let dir = std::env::temp_dir().join(format!("movescope-app-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("cafe.csv");
    let mut csv = String::from("time_s,rtt_ms,lost\n");
    for i in 0..100 {
        csv.push_str(&format!("{i},{},{}\n", 60 + i % 5, u8::from(i % 25 == 3)));
    }
    std::fs::write(&file, csv).unwrap();
    // Tall enough that the Controls pane shows the whole trace section without scrolling.
    let options = AppOptions::live(
        Preset {
            clients: 1,
            ai_pawns: 0,
            ..Preset::default()
        },
        "test",
    );
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 1600.0))
        .build_eframe(move |_cc| MovescopeApp::new(options));
    h.run_steps(3);
    h.get_by_label("trace: none").click();
    h.run_steps(2);
    h.get_by_label("trace file").click();
    h.run_steps(1);
    h.get_by_label("trace file")
        .type_text(file.to_str().unwrap());
    h.run_steps(1);
    h.get_by_label("Replay").click();
    h.run_steps(3);
    let link = h.state().session().unwrap().preset().link_params(0, true);
    let t = link.trace.expect("the link replays the trace");
    assert_eq!((t.source.as_str(), t.samples.len()), ("cafe.csv", 100));
    // The panel says what replays, and the sliders it replaces are marked.
    h.get_by_label_contains("100 samples over 100 s");
    h.get_by_label_contains("come from the trace");
    h.get_by_label("Stop replaying").click();
    h.run_steps(3);
    assert!(
        h.state()
            .session()
            .unwrap()
            .preset()
            .link_params(0, true)
            .trace
            .is_none()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_traces_switch_on_live() {
    let mut h = harness();
    h.get_by_label("Session").click();
    h.run_steps(3);
    h.get_by_label("value trace").click();
    h.get_by_label("hook trace").click();
    h.run_steps(2);
    let p = h.state().session().unwrap().preset();
    assert!(p.value_trace && p.hook_trace);
}

#[test]
fn a_lesson_starts_its_scenario_asks_then_makes_the_change() {
    let mut h = harness();
    h.get_by_label("Lessons").click();
    h.run_steps(4);
    h.get_by_label("lesson").click();
    h.run_steps(3);
    h.get_by_label("Pitfall 1: an unbound member").click();
    h.run_steps(4);
    assert!(
        h.state().session().unwrap().preset().faults.unbound_member,
        "the lesson's scenario runs"
    );
    // Predict, then reveal: the session waits (no evidence yet) and the answer is hidden.
    let reveal = "Replays and combined re-runs restore only bound values";
    assert!(
        h.state().session().unwrap().clock().is_paused(),
        "held until the question is answered"
    );
    assert!(h.query_by_label_contains(reveal).is_none(), "answer hidden");
    assert!(
        h.query_by_label_contains("What you should have seen")
            .is_none()
    );
    assert!(h.query_by_label_contains("corrections follow").is_none());
    h.get_by_label("Yes: replays start from a different move_ramp than the server had")
        .click();
    h.run_steps(2);
    assert!(
        h.query_by_label_contains(reveal).is_none(),
        "not before Answer"
    );
    h.get_by_label("Answer").click();
    h.run_steps(2);
    h.get_by_label("Right.");
    h.get_by_label_contains(reveal);
    // Every choice shows its reason once answered, a wrong one's too.
    h.get_by_label_contains("This link loses nothing, yet corrections come");
    // Answered, the choices are plain text (a disabled radio button is nearly invisible on
    // the light theme), the answer marked.
    h.get_by_label(
        "Yes: replays start from a different move_ramp than the server had  (your choice, right)",
    );
    assert!(
        h.query_by_label("Yes: replays start from a different move_ramp than the server had")
            .is_none(),
        "no radio button left after the answer"
    );
    assert!(
        !h.state().session().unwrap().clock().is_paused(),
        "the session runs once answered"
    );
    assert!(h.state().time().is_following());
    // Step 3 switches the pitfall off in the running session.
    h.get_by_label("Next step").click();
    h.run_steps(2);
    h.get_by_label("Next step").click();
    h.run_steps(2);
    // The conclusion waits for the last step's change.
    assert!(
        h.query_by_label_contains("What you should have seen")
            .is_none()
    );
    h.get_by_label("Do it").click();
    h.run_steps(2);
    assert!(!h.state().session().unwrap().preset().faults.unbound_member);
    assert!(h.state().time().is_following(), "Do it returns to live");
    h.get_by_label_contains("What you should have seen");
    h.get_by_label("Open the paired variant");
}

#[test]
fn a_what_if_run_is_drawn_over_the_recording() {
    let (_dir, path) = recording_with_cursor("w.msrec", 2.0);
    let mut h = opened(path);
    h.get_by_label("What if…").click();
    h.run_steps(4);
    // The recording has unbound_member on: the button adds the line that switches it off.
    h.get_by_role_and_label(egui::accesskit::Role::Button, "Member written, not bound")
        .click();
    h.run_steps(2);
    h.get_by_label("Run B").click();
    step_until(&mut h, "the what-if finished", |a| {
        a.whatif_result().is_some()
    });
    let c = h.state().whatif_result().expect("a what-if result");
    assert_eq!(c.changes, vec!["faults.unbound_member=false".to_string()]);
    assert!(c.clients.iter().all(|x| x.corrections_b == 0));
    assert!(c.clients.iter().any(|x| x.corrections_a > 0));
    h.run_steps(2);
    h.get_by_label("Go to the first difference");
}

#[test]
fn the_journey_of_the_move_at_the_cursor() {
    let (_dir, path) = recording_with_cursor("j.msrec", 3.0);
    let mut h = opened(path);
    h.get_by_label("Move journey").click();
    h.run_steps(2);
    // The journey shows first (traced on a job); the bound values follow from a background
    // re-simulation.
    step_until(&mut h, "the journey was traced", |a| a.lineage().is_some());
    let first = h
        .state()
        .lineage()
        .expect("a lineage is shown at once")
        .clone()
        .expect("traced");
    assert!(
        first
            .value_trace
            .starts_with("not traced; re-simulating the first")
            || first.value_trace.starts_with("re-simulated"),
        "{}",
        first.value_trace
    );
    step_until(&mut h, "the re-simulation ended", |a| {
        !a.is_tracing_values()
    });
    h.run_steps(2);
    let l = h
        .state()
        .lineage()
        .expect("a lineage is shown")
        .clone()
        .expect("traced");
    assert_eq!((l.client, l.move_id), (first.client, first.move_id));
    assert_eq!(l.client, 0);
    assert!(
        l.steps
            .iter()
            .any(|s| s.what.starts_with("executed on the server"))
    );
    // The recording is virtual-time and has no value trace: the app re-simulated it, and
    // every execution shows its bound values.
    assert!(
        l.value_trace.starts_with("re-simulated"),
        "{}",
        l.value_trace
    );
    assert!(
        l.steps
            .iter()
            .filter(|s| s.what.starts_with("executed"))
            .all(|s| s.values.is_some()),
        "{}",
        l.to_text()
    );
    assert!(
        h.get_all_by_label("Move journey").count() >= 2,
        "the button and the window"
    );
    h.get_by_label_contains("Bound values in -> out of each execution: re-simulated");
}

#[test]
fn the_doctor_explains_the_opened_recording() {
    let (_dir, path) = recording_with_cursor("doc.msrec", 3.0);
    let mut h = opened(path);
    // The event log's journey buttons come first; the doctor's follow.
    let in_log = h.query_all_by_label("journey").count();
    h.get_by_label("Doctor").click();
    step_until(&mut h, "the doctor finished", |a| {
        a.doctor_report().is_some()
    });
    let r = h.state().doctor_report().expect("a doctor report").clone();
    assert!(r.corrections > 0);
    assert!(
        r.value_trace.starts_with("re-simulated"),
        "{}",
        r.value_trace
    );
    assert!(r.diagnoses.iter().all(|d| d.parted.is_some()));
    h.run_steps(2);
    h.get_by_label("Desync doctor");
    // A correction's journey from the doctor.
    h.get_all_by_label("journey")
        .nth(in_log)
        .expect("the doctor's first journey button")
        .click();
    h.run_steps(3);
    step_until(&mut h, "the re-simulation ended", |a| {
        !a.is_tracing_values()
    });
    let l = h
        .state()
        .lineage()
        .expect("a journey is shown")
        .clone()
        .expect("traced");
    assert_eq!(
        (l.client, l.move_id),
        (r.diagnoses[0].client, r.diagnoses[0].move_id)
    );
    // Any move by its number (as a log or a bug report names it): the cursor goes where the
    // client closed it and its journey opens.
    let (client, wanted) = (r.diagnoses[0].client, r.diagnoses[0].move_id + 7);
    type_number(&mut h, "Go to client", &client.to_string());
    type_number(&mut h, "move", &wanted.to_string());
    h.get_by_label("Go").click();
    h.run_steps(3);
    step_until(&mut h, "the journey traced", |a| {
        !a.is_tracing_values()
            && a.lineage()
                .is_some_and(|l| l.as_ref().is_ok_and(|l| l.move_id == wanted))
    });
    let l = h
        .state()
        .lineage()
        .expect("a journey")
        .clone()
        .expect("traced");
    assert_eq!((l.client, l.move_id), (client, wanted));
    // A move the data does not hold is said, not guessed.
    type_number(&mut h, "move", "4000000");
    h.get_by_label("Go").click();
    h.run_steps(3);
    h.get_by_label_contains(&format!("client {client} closed no move 4000000"));
    // From the symptom to its lesson: asked first (the lesson replaces the recording
    // shown), then the lesson starts live, its question first.
    h.get_by_label("Pitfall 1: an unbound member").click();
    h.run_steps(4);
    assert!(h.state().session().is_none(), "started without asking");
    h.get_by_label_contains("Start the lesson \"Pitfall 1: an unbound member\"?");
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    assert!(h.query_by_label("Start the lesson").is_none());
    h.get_by_label("Pitfall 1: an unbound member").click();
    h.run_steps(2);
    h.get_by_label("Start the lesson").click();
    h.run_steps(4);
    let s = h
        .state()
        .session()
        .expect("the lesson's scenario runs live");
    assert!(s.preset().faults.unbound_member);
    h.get_by_label("Will the clients be corrected?");
}

/// A live app of `clients` clients where client 0's link is 100 ms / 10 ms both ways and the
/// others' are 0 / 0.
fn harness_with_client0_at_100ms(clients: u16) -> Harness<'static, MovescopeApp> {
    let mut preset = Preset {
        clients,
        ai_pawns: 0,
        ..Preset::default()
    };
    preset.link.latency_ms = 0.0;
    preset.link.jitter_ms = 0.0;
    preset
        .link_overrides
        .push(movescope::session::preset::LinkOverride {
            client: 0,
            direction: movescope::session::preset::Direction::Both,
            link: movescope::conditions::link::LinkParams {
                latency_ms: 100.0,
                jitter_ms: 10.0,
                ..preset.link.clone()
            },
        });
    let options = AppOptions::live(preset, "test");
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |_cc| MovescopeApp::new(options));
    h.run_steps(3);
    h
}

/// The slider (or number field) labelled `label`.
fn number<'a>(h: &'a Harness<'static, MovescopeApp>, label: &'a str) -> egui_kittest::Node<'a> {
    h.get_all_by_label(label)
        .find(|n| n.accesskit_node().numeric_value().is_some())
        .unwrap_or_else(|| panic!("no number labelled {label}"))
}

/// The number a slider (by its label) shows.
fn slider_value(h: &Harness<'static, MovescopeApp>, label: &str) -> Option<f64> {
    number(h, label).accesskit_node().numeric_value()
}

/// The button labelled `label`.
fn button<'a>(h: &'a Harness<'static, MovescopeApp>, label: &'a str) -> egui_kittest::Node<'a> {
    h.get_by_role_and_label(egui::accesskit::Role::Button, label)
}

#[test]
fn opening_and_closing_panes_and_windows_sends_no_command() {
    let mut h = harness();
    h.run_steps(3);
    // Windows toggled from the top bar and the controls, each opened and closed.
    for name in [
        "Bindings table",
        "GMC settings",
        "Lessons",
        "Doctor",
        "What if…",
        "Help",
    ] {
        button(&h, name).click();
        h.run_steps(4);
        button(&h, name).click();
        h.run_steps(3);
    }
    // Collapsed sections opened and closed.
    for header in ["Session", "Presets", "more link settings"] {
        h.get_by_label(header).click();
        h.run_steps(3);
        h.get_by_label(header).click();
        h.run_steps(2);
    }
    // Dialogs opened and cancelled.
    h.get_by_label("Open…").click();
    h.run_steps(3);
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    h.get_by_label("Export CSV…").click();
    h.run_steps(3);
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    // The journey window (traced on a job) and a tab of the world view.
    h.get_by_label("Move journey").click();
    h.run_steps(3);
    h.get_by_label("seen from").click();
    h.run_steps(2);
    assert_eq!(
        h.state().commands_sent(),
        &[] as &[String],
        "looking changed nothing"
    );
    let changes = h
        .state()
        .store()
        .log()
        .iter()
        .filter(|e| e.kind == movescope::session::store::MarkKind::Change)
        .count();
    assert_eq!(changes, 0, "no session change in the record stream");
    let p = h.state().session().unwrap().preset();
    assert_eq!(
        p,
        &Preset {
            clients: 1,
            ai_pawns: 0,
            ..Preset::default()
        }
    );
}

#[test]
fn gmc_settings_shows_and_keeps_the_default_world_time_interval() {
    let mut h = harness();
    assert_eq!(
        h.state()
            .session()
            .unwrap()
            .preset()
            .gmc
            .world_time_update_interval,
        0.01
    );
    button(&h, "GMC settings").click();
    h.run_steps(4);
    assert_eq!(
        slider_value(&h, "WorldTimeUpdateInterval (s)"),
        Some(0.01),
        "the editor shows GMC's default"
    );
    button(&h, "GMC settings").click();
    h.run_steps(2);
    assert_eq!(
        h.state()
            .session()
            .unwrap()
            .preset()
            .gmc
            .world_time_update_interval,
        0.01,
        "opening the window clamped nothing"
    );
    assert!(h.state().commands_sent().is_empty());
}

#[test]
fn a_profile_for_one_client_shows_that_clients_numbers() {
    let mut h = harness_with_client0_at_100ms(3);
    // All clients: latency differs (0 and 100): the editor says so.
    h.get_by_label_contains("latency ms: the selected links differ");
    h.get_by_label("link of").click();
    h.run_steps(2);
    h.get_by_label("client 1").click();
    h.run_steps(2);
    assert_eq!(slider_value(&h, "latency ms"), Some(0.0));
    h.get_by_label("profile").click();
    h.run_steps(2);
    h.get_by_label("Home Satellite").click();
    h.run_steps(3);
    let p = h.state().session().unwrap().preset();
    assert_eq!(p.link_params(1, true).latency_ms, 100.0);
    assert_eq!(p.link_params(1, false).latency_ms, 100.0);
    assert_eq!(p.link_params(2, true).latency_ms, 0.0, "client 2 untouched");
    assert_eq!(
        slider_value(&h, "latency ms"),
        Some(100.0),
        "the editor shows client 1's link"
    );
    assert_eq!(slider_value(&h, "jitter ms"), Some(10.0));
    h.get_by_label_contains("last change: applied now");
}

#[test]
fn editing_jitter_for_all_clients_leaves_every_latency() {
    let mut h = harness_with_client0_at_100ms(3);
    let before: Vec<f64> = (0..3)
        .map(|c| {
            h.state()
                .session()
                .unwrap()
                .preset()
                .link_params(c, true)
                .latency_ms
        })
        .collect();
    assert_eq!(before, vec![100.0, 0.0, 0.0]);
    // The jitter slider (all clients, both directions), moved with the keyboard.
    number(&h, "jitter ms").increment_accesskit();
    h.run_steps(3);
    let p = h.state().session().unwrap().preset().clone();
    for c in 0..3u16 {
        for up in [true, false] {
            let l = p.link_params(c, up);
            assert_eq!(
                l.latency_ms,
                before[usize::from(c)],
                "client {c} up {up}: latency kept"
            );
        }
    }
    let jitters: Vec<f64> = (0..3).map(|c| p.link_params(c, true).jitter_ms).collect();
    assert!(
        jitters.iter().all(|j| *j == jitters[0]),
        "one jitter for all: {jitters:?}"
    );
    assert!(!h.state().commands_sent().is_empty(), "the edit was sent");
}

#[test]
fn restart_only_settings_are_pending_until_applied() {
    let mut h = harness();
    h.get_by_label("Session").click();
    h.run_steps(3);
    number(&h, "clients").increment_accesskit();
    h.run_steps(3);
    assert_eq!(
        h.state().session().unwrap().preset().clients,
        1,
        "not applied yet"
    );
    assert!(h.state().commands_sent().is_empty());
    h.get_by_label_contains("Pending until restart: clients 1 -> 2");
    run_until_live_data(&mut h, 0.5);
    h.get_by_label("Restart with these").click();
    h.run_steps(3);
    assert_eq!(h.state().session().unwrap().preset().clients, 2);
    assert!(h.query_by_label_contains("Pending until restart").is_none());
    // The session before the restart stays on the plots.
    assert_eq!(
        h.state().overlay_label(),
        Some("before the restart for clients")
    );
}

#[test]
fn a_recording_opens_fitted_at_its_first_correction() {
    use movescope::session::store::MarkKind;
    let (_dir, path) = recording_of("first.msrec", None);
    let mut h = opened(path);
    h.run_steps(2);
    let store = h.state().store();
    let first = store
        .next_mark(
            &[MarkKind::Correction, MarkKind::Replay],
            f64::NEG_INFINITY,
            true,
        )
        .expect("the recording has corrections");
    assert!(first > store.earliest());
    assert_eq!(h.state().time().cursor(), first);
    // Fitted: the whole 8 s recording, no time before it or after it.
    let (t0, t1) = h.state().plot_window().expect("the plots were drawn");
    assert!(
        t0 >= store.earliest() && t1 <= store.latest() + 1e-9,
        "{t0}..{t1}"
    );
    assert!(
        t1 - t0 >= 0.9 * (store.latest() - store.earliest()),
        "{t0}..{t1}"
    );
    // The log is filled at the cursor.
    assert!(h.query_all_by_label_contains("corrected").count() > 0);
}

#[test]
fn the_event_log_filters_change_the_listed_entries() {
    let (_dir, path) = recording_with_cursor("filters.msrec", 6.0);
    let mut h = opened(path);
    h.run_steps(2);
    let listed =
        |h: &Harness<'static, MovescopeApp>| h.query_all_by_label_contains(" s  client ").count();
    let all = listed(&h);
    assert!(all > 0, "corrections are listed");
    // Corrections off: none of them is listed.
    h.get_by_label("corrections").click();
    h.run_steps(2);
    assert_eq!(listed(&h), 0);
    h.get_by_label_contains("No entry matches the filters");
    h.get_by_label("corrections").click();
    h.run_steps(2);
    assert_eq!(listed(&h), all);
    // One machine: only its entries.
    h.get_by_label("machine").click();
    h.run_steps(2);
    // The legend names client 2 too; the menu's entry is drawn last.
    h.get_all_by_label("client 2")
        .last()
        .expect("client 2 in the menu")
        .click();
    h.run_steps(2);
    let only = listed(&h);
    assert!(only > 0 && only < all, "{only} of {all}");
    assert_eq!(
        h.query_all_by_label_contains(" s  client 0: ").count(),
        0,
        "client 0's entries are hidden"
    );
}

#[test]
fn a_double_click_on_a_point_opens_that_points_move() {
    use egui_plot::PlotPoint;
    use movescope::model::telemetry::{Event, Machine};
    use movescope::session::store::Metric;
    let (_dir, path) = recording_of("dbl.msrec", Some(4.0));
    let records = movescope::session::recording::Recording::open(&path)
        .unwrap()
        .load_all()
        .0;
    let mut h = opened_stepping(path, 0.02);
    h.run_steps(3);
    // A move-age point (placed when the server executed the move) of client 1, in view and
    // with no other client's point within 8 points of it.
    let title = "Move age on the server";
    let tr = h.state().plot_transform(title).expect("the plot is drawn");
    let store = h.state().store();
    let (t0, t1) = h.state().plot_window().unwrap();
    let screen = |p: [f64; 2]| tr.position_from_point(&PlotPoint::new(p[0], p[1] * 1000.0));
    let others: Vec<egui::Pos2> = [Machine::Client(0), Machine::Client(2)]
        .into_iter()
        .filter_map(|m| store.series(m, Metric::MoveAge).map(|s| (m, s)))
        .flat_map(|(m, s)| s.range(t0, t1).map(move |p| (m, p)).collect::<Vec<_>>())
        .map(|(_, p)| screen(p))
        .collect();
    let own: Vec<[f64; 2]> = store
        .series(Machine::Client(1), Metric::MoveAge)
        .unwrap()
        .range(t0 + 0.2 * (t1 - t0), t1 - 0.2 * (t1 - t0))
        .collect();
    let pick = own
        .iter()
        .copied()
        .find(|p| {
            let at = screen(*p);
            others.iter().all(|o| o.distance(at) > 8.0)
                && own
                    .iter()
                    .filter(|q| *q != p)
                    .all(|q| screen(*q).distance(at) > 3.0)
        })
        .expect("an isolated point");
    let at = screen(pick);
    let expected = records
        .iter()
        .find_map(|r| match &r.event {
            Event::RemoteMoveExecuted(x) if x.client == 1 && r.t == pick[0] => Some(x.move_id),
            _ => None,
        })
        .expect("the point's move");
    h.event(egui::Event::PointerMoved(at));
    for _ in 0..2 {
        for pressed in [true, false] {
            h.event(egui::Event::PointerButton {
                pos: at,
                button: egui::PointerButton::Primary,
                pressed,
                modifiers: egui::Modifiers::NONE,
            });
        }
    }
    h.run_steps(4);
    step_until(&mut h, "the journey is traced", |a| {
        a.lineage().is_some() && !a.is_tracing_values()
    });
    let l = h.state().lineage().unwrap().clone().expect("traced");
    assert_eq!((l.client, l.move_id), (1, expected));
    // The click moved the cursor to the point, not the plot under the pointer.
    assert_eq!(h.state().plot_window().unwrap(), (t0, t1));
}

#[test]
fn the_command_palette_takes_gmc_console_names() {
    let mut h = harness();
    // A plot that is off at first.
    let title = "Move timestamp − server time (ms)";
    assert!(h.query_by_label(title).is_none());
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::K);
    h.run_steps(2);
    h.get_by_label("Command palette");
    h.event(egui::Event::Text("gmc.LogNetWorldTime".into()));
    h.run_steps(2);
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    assert!(
        h.query_by_label("Command palette").is_none(),
        "closed after running"
    );
    h.get_by_label(title);
    // An action by a word of its name.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::K);
    h.run_steps(2);
    h.event(egui::Event::Text("buffer".into()));
    h.run_steps(2);
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    h.get_by_label("Interpolation buffer");
    assert_eq!(
        h.state().commands_sent(),
        &[] as &[String],
        "looking changed nothing in the session"
    );
}

/// Steps the app until its live session has `seconds` of data (bounded by 20 s of wall time:
/// the session runs in real time).
fn run_until_live_data(h: &mut Harness<'static, MovescopeApp>, seconds: f64) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while h.state().store().latest() < seconds {
        assert!(
            std::time::Instant::now() < deadline,
            "no {seconds} s of live data within 20 s"
        );
        h.run_steps(1);
        std::thread::yield_now();
    }
}

/// The app at 1280×800 with `options.component` linted and its window drawn.
fn component_harness(options: AppOptions) -> Harness<'static, MovescopeApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |_cc| MovescopeApp::new(options));
    h.run_steps(2);
    assert!(
        h.state_mut().component_window().wait(),
        "the lint did not finish"
    );
    h.run_steps(3);
    h
}

#[test]
fn your_component_shows_the_table_and_findings_and_show_me_opens_the_lesson() {
    let preset = Preset {
        clients: 1,
        ai_pawns: 0,
        ..Preset::default()
    };
    let mut options = AppOptions::live(preset, "test");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint");
    options.component = vec![dir.join("input-not-combine-if-unchanged.bad.cpp")];
    let mut h = component_harness(options);
    h.get_by_label("Your component");
    // In the binding table and in the behaviours of "Run with this layout".
    assert_eq!(h.get_all_by_label("bInputDash").count(), 2);
    h.get_by_label(
        "Per move client to server: 24 bits · per server state: 0 bits · per proxy update: 0 bits",
    );
    let r = h.state_mut().component_window().report().unwrap();
    assert_eq!(r.findings.len(), 2);
    assert!(h.state().lesson_shown().is_none());
    // "Show me" asks first: the lesson's scenario replaces the session shown.
    h.get_all_by_label("Show me").next().unwrap().click();
    h.run_steps(4);
    h.get_by_label("Start the lesson pitfall-04-dash-always-combine?");
    assert!(h.state().lesson_shown().is_none(), "not before the answer");
    h.get_by_label("Cancel").click();
    h.run_steps(3);
    assert!(h.state().lesson_shown().is_none(), "cancelled");
    assert!(
        h.query_by_label("Start the lesson pitfall-04-dash-always-combine?")
            .is_none()
    );
    h.get_all_by_label("Show me").next().unwrap().click();
    h.run_steps(4);
    h.get_by_label("Replace the session").click();
    h.run_steps(4);
    assert_eq!(
        h.state().lesson_shown(),
        Some("pitfall-04-dash-always-combine")
    );
}

#[test]
fn your_component_marks_conditional_bindings() {
    let mut options = AppOptions::live(
        Preset {
            clients: 1,
            ai_pawns: 0,
            ..Preset::default()
        },
        "test",
    );
    options.component = vec![
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/lint/forms/binding-under-condition/bad-preproc-and-ternary.cpp"),
    ];
    let h = component_harness(options);
    h.get_by_label("Debug †");
    h.get_by_label("Stance †");
    h.get_by_label(
        "† made only when a condition holds (binding-under-condition): the layouts can differ between machines",
    );
}

#[test]
fn run_with_this_layout_starts_a_session_with_the_components_bindings() {
    let preset = Preset {
        clients: 1,
        ai_pawns: 0,
        ..Preset::default()
    };
    let mut options = AppOptions::live(preset, "test");
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/run/TraversalMovement.cpp");
    options.component = vec![file];
    let mut h = component_harness(options);
    // Each imported value shows what drives it (guessed from its name and role).
    h.get_by_label("bJumpPressed driven by");
    h.get_by_label("bJumpPressed key");
    h.get_by_label("Stamina driven by");
    assert!(h.state().shown_preset().component.is_none());
    h.get_by_label("Run with this layout").click();
    h.run_steps(4);
    assert!(
        h.state().shown_preset().component.is_none(),
        "asks before replacing the session"
    );
    h.get_by_label("Replace the session").click();
    h.run_steps(4);
    let p = h.state().shown_preset().clone();
    let layout = p
        .component
        .as_ref()
        .expect("the session runs the imported layout");
    assert_eq!(layout.class, "UTraversalMovement");
    let names: Vec<String> = p
        .bindings()
        .expect("valid")
        .list()
        .iter()
        .map(|b| b.name.to_string())
        .collect();
    assert!(names.contains(&"Stamina".to_string()), "{names:?}");
    assert!(!names.contains(&"dash_count".to_string()), "{names:?}");
    // Running it, the window compares the table's expectation with the plot.
    h.get_by_label_contains(
        "This session, per client to the server, at the preset's rates: expected",
    );
}

/// A recording opened without `--at` opens at its first correction, seen from the client it
/// corrected (pitfall-01's is client 1's), and one without corrections at its end, where every
/// plot is filled (not on an empty view at 0 s).
#[test]
fn a_recording_opens_where_there_is_something_to_see() {
    let shipped = |name: &str| {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("recordings")
            .join(format!("{name}.msrec"))
    };
    let mut h = opened(shipped("pitfall-01-unbound-member"));
    h.run_steps(2);
    let t = h.state().time().cursor();
    let first = h
        .state()
        .store()
        .log()
        .iter()
        .find(|e| e.text.contains("corrected"))
        .expect("a correction")
        .clone();
    assert_eq!(t, first.t);
    assert_eq!(
        first.machine,
        movescope::model::telemetry::Machine::Client(1)
    );
    assert_eq!(h.state().world_viewer(), first.machine);
    let mut h = opened(shipped("default"));
    h.run_steps(2);
    assert!(
        h.state()
            .store()
            .log()
            .iter()
            .all(|e| !e.text.contains("corrected"))
    );
    assert_eq!(h.state().time().cursor(), h.state().store().latest());
    assert!(h.state().time().cursor() > 9.0);
}

/// At 1280×800 the Controls pane clips nothing: every box in it ends before the Plots pane.
#[test]
fn the_controls_pane_clips_no_box() {
    let h = harness();
    assert_controls_clip_nothing(&h);
}

/// With the lessons panel open and the Session section expanded (its sliders the widest
/// rows), no label, switch, slider or box in the Controls pane is cut at its edge.
#[test]
fn the_controls_pane_clips_nothing_beside_the_lessons_panel() {
    let mut h = harness();
    h.get_by_label("Lessons").click();
    h.run_steps(3);
    h.get_by_label("Session").click();
    h.run_steps(3);
    number(&h, "server fps");
    assert_controls_clip_nothing(&h);
}

/// The same with "more link settings", the trace section and the smoothing settings open
/// (their rows are the narrowest labels), down the whole pane (a window 1280 wide and tall
/// enough to show it whole).
#[test]
fn the_controls_pane_clips_none_of_its_opened_sections_beside_the_lessons_panel() {
    let mut h = harness_sized(1280.0, 2400.0);
    h.get_by_label("Lessons").click();
    h.run_steps(3);
    for section in ["more link settings", "trace: none"] {
        h.get_by_label(section).click();
        h.run_steps(3);
    }
    h.get_by_label_contains("Smoothing").click();
    h.run_steps(3);
    assert_controls_clip_nothing(&h);
}

fn assert_controls_clip_nothing(h: &Harness<'static, MovescopeApp>) {
    let pane_bottom = h.get_by_label("Timeline").rect().top();
    assert_controls_clip_nothing_below(h, pane_bottom);
}

fn assert_controls_clip_nothing_below(h: &Harness<'static, MovescopeApp>, pane_bottom: f32) {
    use egui::accesskit::Role;
    use egui_kittest::kittest::By;
    let plots_left = h.get_by_label("Plots").rect().left();
    let pane_top = h.get_by_label("Controls").rect().bottom();
    let mut checked = 0;
    for role in [
        Role::ComboBox,
        Role::Button,
        Role::CheckBox,
        Role::Slider,
        Role::SpinButton,
        Role::Label,
    ] {
        for n in h.query_all(By::new().role(role)) {
            let r = n.rect();
            if r.left() < plots_left && r.top() >= pane_top && r.bottom() <= pane_bottom {
                checked += 1;
                assert!(
                    r.right() <= plots_left + 0.5,
                    "{role:?} {:?} {:?} at {r:?} ends at {} past the Controls pane ({plots_left})",
                    n.accesskit_node().label(),
                    n.accesskit_node().value(),
                    r.right()
                );
            }
        }
    }
    assert!(checked > 5, "boxes checked: {checked}");
}

/// A game log opened in the app (dropped, or chosen in Open…) is imported on a job and shown
/// as a recording: its moves, its correction with the move's GMC timestamp.
#[test]
fn opening_another_recording_clears_the_event_log_search() {
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/gmclog/pie-listen-two-clients.log");
    let mut h = opened_stepping(log.clone(), 0.25);
    step_until(&mut h, "the game log loaded", |a| {
        !a.is_opening() && !a.is_loading() && a.store().records() > 0
    });
    *h.state_mut().event_log_search_mut() = "no such entry anywhere".into();
    h.run_steps(2);
    assert!(h.query_by_label_contains("No entry matches").is_some());
    h.state_mut().open_recording(&log, None);
    step_until(&mut h, "the second opening loaded", |a| {
        !a.is_opening() && !a.is_loading() && a.store().records() > 0
    });
    assert!(h.state_mut().event_log_search_mut().is_empty());
    h.run_steps(2);
    assert!(h.query_by_label_contains("No entry matches").is_none());
}

#[test]
fn a_game_log_opens_imported() {
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/gmclog/pie-listen-two-clients.log");
    let mut h = opened_stepping(log, 0.25);
    step_until(&mut h, "the game log imported and loaded", |a| {
        !a.is_opening() && !a.is_loading() && a.store().records() > 0
    });
    let app = h.state();
    assert!(app.status().contains("loaded"), "{}", app.status());
    let row = app
        .store()
        .log()
        .iter()
        .find(|e| e.text.contains("corrected"))
        .expect("the correction's row");
    assert!(
        row.text.ends_with("GMC timestamp 52.150000 s"),
        "{}",
        row.text
    );
    h.run_steps(2);
    // A plot the log left empty says what would fill it.
    assert!(
        h.query_by_label_contains("A game log gives no clock offset")
            .is_some()
    );
}

#[test]
fn help_names_the_keys_that_drive_a_pawn() {
    let mut h = harness();
    h.get_by_label("Help").click();
    h.run_steps(3);
    h.get_by_label("W A S D");
    h.get_by_label_contains("once Controls > Drive a pawn has given it to the keyboard");
    // The longest line wraps inside the window, which stays on the screen (1280 wide).
    let palette = h.get_by_label_contains("the command palette");
    assert!(
        palette.rect().max.x <= 1280.0,
        "cut at the screen's edge: {:?}",
        palette.rect()
    );
}

/// Following a live session is playing: the timeline's button says "Hold view" (not a second
/// "Pause" beside the session's own) and stops at the newest moment; it never restarts the
/// timeline from the session's start.
#[test]
fn the_timeline_pauses_a_followed_live_session_where_it_is() {
    let mut h = harness();
    run_until_live_data(&mut h, 1.0);
    assert!(h.state().time().is_following());
    assert!(
        h.query_by_label("Play").is_none() && h.query_by_label("Pause").is_none(),
        "following live shows Hold view, and only the top bar says Pause"
    );
    h.get_by_label("Pause (Space)");
    h.get_by_label("Hold view").click();
    h.run_steps(2);
    let t = h.state().time();
    assert!(!t.is_following() && !t.is_playing());
    assert!(
        t.cursor() >= 0.9,
        "paused at the newest moment, not the start: {}",
        t.cursor()
    );
    h.get_by_label("Play");
}

/// Windows are kept above the timeline: the Track window (a plot that grows) never covers the
/// timeline's buttons.
#[test]
fn the_track_window_stays_above_the_timeline() {
    let preset = Preset {
        clients: 1,
        ai_pawns: 0,
        value_trace: true,
        ..Preset::default()
    };
    let options = AppOptions {
        windows: vec!["track".to_string()],
        ..AppOptions::live(preset, "test")
    };
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |_cc| MovescopeApp::new(options));
    // With values to plot the window takes its full height.
    run_until_live_data(&mut h, 1.5);
    h.run_steps(4);
    let window = h
        .ctx
        .memory(|m| m.area_rect(egui::Id::unique(Some("Track a value"))))
        .expect("the Track window is shown");
    let timeline_top = h.get_by_label("Export CSV…").rect().top();
    assert!(
        window.bottom() <= timeline_top,
        "the window ends at {} below the timeline's buttons at {timeline_top}",
        window.bottom()
    );
}

/// The component window's rate line is the running session's: a table linted when the session
/// ran at another frame rate does not put its frames per move beside the new rate.
#[test]
fn the_component_rate_line_is_the_running_sessions() {
    let preset = Preset {
        clients: 1,
        ai_pawns: 0,
        client_fps: 120.0,
        ..Preset::default()
    };
    let mut options = AppOptions::live(preset, "test");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint");
    options.component = vec![dir.join("input-not-combine-if-unchanged.bad.cpp")];
    let mut h = component_harness(options);
    // Linted while the session ran at 30 fps.
    let earlier = Preset {
        client_fps: 30.0,
        ..Preset::default()
    };
    let paths = h.state_mut().component_window().paths.clone();
    h.state_mut()
        .component_window()
        .lint(paths, movescope::analysis::lint::Rates::of(&earlier));
    assert!(
        h.state_mut().component_window().wait(),
        "the lint did not finish"
    );
    h.run_steps(3);
    h.get_by_label_contains("at 120 fps, 4 frames per move");
    assert!(
        h.query_by_label_contains("at 120 fps, 1 frame per move")
            .is_none()
    );
}

#[test]
fn a_session_of_many_clients_shows_nine_machines_at_first_and_says_how_many_are_hidden() {
    use movescope::session::recording::{Footer, Header, write_all};
    let mut preset = Preset::default();
    preset.set("clients=12").unwrap();
    let mut records = Vec::new();
    movescope::sim::run_deterministic(&preset, "test", 3.0, &mut |r| records.push(r.clone()))
        .unwrap();
    let header = Header::new(&preset, "test", "deterministic").unwrap();
    let dir = common::TempDir::new("app-many");
    let path = dir.join("many.msrec");
    write_all(&path, &header, records, Footer::default()).unwrap();
    let mut h = opened(path);
    h.run_steps(2);
    // The server and the first eight clients are shown; the later clients are hidden.
    use movescope::model::telemetry::Machine;
    let hidden = h.state().plots_hidden();
    assert!(hidden.len() >= 3, "{hidden:?}");
    assert!(
        hidden
            .iter()
            .all(|m| matches!(m, Machine::Client(c) if *c >= 8)),
        "{hidden:?}"
    );
    h.get_by_label("Machines…").click();
    h.run_steps(2);
    h.get_by_label("all").click();
    h.run_steps(3);
    assert_eq!(
        h.state().plots_hidden(),
        [],
        "all shown, and they stay shown"
    );
}

/// A client the server cut off is said in the plots' legend, with when and why: it does not
/// just vanish from the plots and the world view.
#[test]
fn a_client_the_server_cut_off_is_said_in_the_legend() {
    use movescope::model::telemetry::{Event, Machine, Record};
    use movescope::session::recording::{Footer, Header, write_all};
    let mut preset = Preset::default();
    preset.set("clients=2").unwrap();
    let mut records = Vec::new();
    movescope::sim::run_deterministic(&preset, "test", 3.0, &mut |r| records.push(r.clone()))
        .unwrap();
    records.push(Record {
        t: 3.3,
        machine: Machine::Server,
        event: Event::ClientDropped {
            client: 1,
            why: "nothing heard for 5 s".into(),
        },
    });
    let header = Header::new(&preset, "test", "deterministic").unwrap();
    let dir = common::TempDir::new("app-lost");
    let path = dir.join("lost.msrec");
    write_all(&path, &header, records, Footer::default()).unwrap();
    let mut h = opened(path);
    h.run_steps(3);
    // (Panics, naming the label, when the legend does not say it.)
    h.get_by_label_contains("client 1 lost at 3.3 s");
    assert!(
        h.query_by_label_contains("client 0 lost").is_none(),
        "only the lost client is said lost"
    );
}

/// A lesson starts from the view it was written for — the one-shots filter and "vs server"
/// a learner left on are off — and the learner's own view comes back when another session
/// ends the lesson.
#[test]
fn a_lesson_starts_from_its_own_view_and_gives_the_learners_back_when_it_ends() {
    let mut h = harness();
    h.get_by_label("one-shots").click();
    h.get_by_label("vs server").click();
    h.run_steps(3);
    assert!(h.state().event_log_kinds()[3], "one-shots listed");
    assert!(h.state().world_vs_server());
    h.get_by_label("Lessons").click();
    h.run_steps(4);
    h.get_by_label("lesson").click();
    h.run_steps(3);
    h.get_by_label("Basics 7: other pawns show the past")
        .click();
    h.run_steps(4);
    assert_eq!(
        h.state().event_log_kinds(),
        [true, true, true, false],
        "the lesson's event log: one-shots hidden"
    );
    assert!(!h.state().world_vs_server(), "the lesson's world view");
    // The learner changes the view within the lesson: that is the lesson's, not theirs.
    h.get_by_label("vs server").click();
    h.run_steps(2);
    h.get_by_label("lesson").click();
    h.run_steps(3);
    h.get_by_label("Pitfall 1: an unbound member").click();
    h.run_steps(4);
    assert!(
        !h.state().world_vs_server(),
        "the next lesson starts clean too"
    );
    // Another session ends the lesson: the view from before the first lesson is back.
    h.get_by_label("Presets").click();
    h.run_steps(3);
    common::ui::retype(&mut h, "preset file", "default");
    h.get_by_label("Open").click();
    h.run_steps(4);
    assert!(h.state().lesson_shown().is_none(), "the lesson ended");
    assert!(
        h.state().event_log_kinds()[3],
        "the learner's filter is back"
    );
    assert!(h.state().world_vs_server(), "and their world view");
}
