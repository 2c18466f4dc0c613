//! The app's panels driven headlessly with egui_kittest (no GPU): the controls reach the live
//! session.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use movescope::app::{AppOptions, MovescopeApp};
use movescope::preset::Preset;

fn harness() -> Harness<'static, MovescopeApp> {
    let preset = Preset {
        clients: 1,
        ai_pawns: 0,
        ..Preset::default()
    };
    let options = AppOptions::live(preset, "test");
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |_cc| MovescopeApp::new(options));
    h.run_steps(3);
    h
}

#[test]
fn the_window_names_every_plot_and_control() {
    let h = harness();
    for label in [
        "Move delta",
        "Frames per move",
        "Corrections: replay depth",
        "Interpolation delay",
        "Round trip (ping)",
        "Clock offset",
        "Pitfall switches",
        "Event log",
        "wall_clock_in_tick",
        "World view",
        "seen from",
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
    h.get_by_label("wall_clock_in_tick").click();
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
    h.get_by_label("dash_always_combine").click();
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
