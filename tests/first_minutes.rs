//! The first minutes of a newcomer: the basics offered on a first run (started or dismissed
//! with one click, and remembered), and lessons that quote what the running session measures.

mod common;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use movescope::app::{AppOptions, MovescopeApp};
use movescope::session::preset::Preset;

use common::ui::retype;

const OFFER: &str = "New to client-side prediction?";

fn app(options: AppOptions) -> Harness<'static, MovescopeApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |_cc| MovescopeApp::new(options));
    h.run_steps(3);
    h
}

fn plain() -> AppOptions {
    AppOptions::live(
        Preset::default(),
        movescope::session::preset::DEFAULT_PRESET_NAME,
    )
}

fn step_until(
    h: &mut Harness<'static, MovescopeApp>,
    what: &str,
    done: impl Fn(&MovescopeApp) -> bool,
) {
    // The live session runs in real time: bounded by 30 s.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::time::Instant::now() < deadline {
        if done(h.state()) {
            return;
        }
        h.run_steps(1);
    }
    assert!(done(h.state()), "{what} within 30 s");
}

#[test]
fn the_offer_starts_the_first_basics_lesson_in_one_click() {
    let mut h = app(AppOptions {
        offer_basics: true,
        ..plain()
    });
    h.get_by_label(OFFER);
    h.get_by_label("Start the first lesson").click();
    h.run_steps(4);
    assert!(h.query_by_label(OFFER).is_none(), "the offer is gone");
    let p = h.state().session().expect("a live session").preset();
    assert!(
        !p.gmc.use_client_prediction,
        "basics 1 runs: prediction off"
    );
    h.get_by_label("Step 1 of 2");
    h.get_by_label("You press a key. When does your own pawn move on your screen?");
    // Answer; the reveal quotes the owner's wait and the round trip this session measures.
    h.get_by_label("After a round trip: the input travels to the server, the result travels back")
        .click();
    h.run_steps(2);
    h.get_by_label("Answer").click();
    // A figure waits for a whole 10 s window of the state it speaks of: "…" before.
    step_until(&mut h, "three seconds measured", |a| {
        a.store().latest() > 3.0
    });
    h.run_steps(2);
    let early = format!("{:?}", h.get_by_label_contains("A round trip late"));
    assert!(early.contains('…') && !early.contains(" ms"), "{early}");
    step_until(&mut h, "the round trip measured", |a| {
        a.time().cursor() > 10.5
    });
    h.run_steps(2);
    let reveal = h.get_by_label_contains("A round trip late");
    let text = format!("{reveal:?}");
    assert!(!text.contains("{rtt_ms}"), "{text}");
    let ms: Vec<f64> = text
        .split(" ms")
        .filter_map(|a| a.rsplit(' ').next()?.parse().ok())
        .collect();
    // The owner's wait first ("shows each input 340 ms after you press it"), then the round
    // trip it is more than.
    assert!(
        ms.get(1).is_some_and(|rtt| (150.0..300.0).contains(rtt)),
        "the measured round trip in {text}"
    );
    assert!(
        ms[0] > ms[1],
        "the owner waits more than the round trip: {text}"
    );
    // Step 2 switches prediction on: a new session, whose plots keep the one before it,
    // drawn over them and named, so before and after stay on one plot.
    h.get_by_label("Next step").click();
    h.run_steps(2);
    h.get_by_label("Do it").click();
    h.run_steps(4);
    let p = h.state().session().expect("a live session").preset();
    assert!(p.gmc.use_client_prediction, "prediction on");
    assert_eq!(
        h.state().overlay_label(),
        Some("before the restart for gmc.use_client_prediction")
    );
    h.get_by_label("before the restart for gmc.use_client_prediction (B)");
}

#[test]
fn the_offer_is_dismissed_with_one_click_and_not_made_again() {
    let mut h = app(AppOptions {
        offer_basics: true,
        ..plain()
    });
    h.get_by_label("Not now").click();
    h.run_steps(2);
    assert!(h.query_by_label(OFFER).is_none());
    assert!(
        h.state().session().unwrap().preset().lesson.is_none(),
        "the default session goes on"
    );
    // Without persist and without the flag: never offered.
    let h = app(plain());
    assert!(h.query_by_label(OFFER).is_none());
}

/// The state file: a first run offers, answering is saved at once, the next run does not
/// offer. (The only test of this binary that sets `MOVESCOPE_STATE`.)
#[test]
fn a_first_run_offers_the_basics_and_remembers_the_answer() {
    let dir = common::TempDir::new("first-run");
    let state = dir.join("ui.ron");
    // SAFETY: no other test in this binary reads or writes the environment.
    unsafe { std::env::set_var("MOVESCOPE_STATE", &state) };
    let persist = || AppOptions {
        persist: true,
        ..plain()
    };
    let mut h = app(persist());
    h.get_by_label(OFFER);
    h.get_by_label("Not now").click();
    h.run_steps(2);
    let text = std::fs::read_to_string(&state).expect("saved when answered");
    assert!(text.contains("basics_offered: true"), "{text}");
    drop(h);
    let h = app(persist());
    assert!(h.query_by_label(OFFER).is_none(), "remembered");
    // A start that asks for something else (a lesson's preset) is not interrupted.
    std::fs::remove_file(&state).expect("state removed");
    let (lesson, name) = Preset::find("pitfall-01-unbound-member").expect("shipped");
    let h = app(AppOptions {
        persist: true,
        ..AppOptions::live(lesson, &name)
    });
    assert!(h.query_by_label(OFFER).is_none());
    unsafe { std::env::remove_var("MOVESCOPE_STATE") };
}

/// Walking through a lesson never leaves it: the next step keeps the lesson's scenario and
/// its panel (pitfall 3 once showed the default session for a moment).
#[test]
fn the_next_step_keeps_the_lesson_and_its_panel() {
    let mut h = app(plain());
    h.get_by_label("Lessons").click();
    h.run_steps(4);
    h.get_by_label("lesson").click();
    h.run_steps(3);
    h.get_by_label("Pitfall 3: a one-shot without sealing the move")
        .click();
    h.run_steps(4);
    h.get_by_label("It plays again in the re-run").click();
    h.run_steps(1);
    h.get_by_label("Answer").click();
    h.run_steps(2);
    h.get_by_label("Next step").click();
    h.run_steps(1);
    for i in 0..20 {
        h.run_steps(1);
        let p = h.state().session().expect("a live session").preset();
        assert!(
            p.lesson.is_some(),
            "still the lesson's scenario: {}",
            p.title
        );
        assert!(
            h.query_by_label("Step 2 of 2").is_some(),
            "frame {i}: the lesson panel shows step 2 ({}; step 1 shown: {}, panel: {})",
            p.title,
            h.query_by_label("Step 1 of 2").is_some(),
            h.query_by_label("presenter mode").is_some()
        );
    }
    h.get_by_label("Do it").click();
    for _ in 0..20 {
        h.run_steps(1);
        let p = h.state().session().expect("a live session").preset();
        assert!(
            p.lesson.is_some(),
            "still the lesson's scenario: {}",
            p.title
        );
        h.get_by_label("Step 2 of 2");
    }
}

/// A typed number reaches the session when the edit is finished, not per keystroke, and a
/// value outside the range is refused with a message, not clamped.
#[test]
fn a_typed_gmc_setting_applies_on_enter_and_an_invalid_one_is_refused() {
    let mut h = app(plain());
    h.get_by_label("GMC settings").click();
    h.run_steps(4);
    let step = |h: &Harness<'static, MovescopeApp>| {
        h.state()
            .session()
            .expect("live")
            .preset()
            .gmc
            .max_time_step
    };
    assert_eq!(step(&h), 0.04);
    retype(&mut h, "MaxTimeStep (s)", "0.02");
    h.run_steps(2);
    assert_eq!(step(&h), 0.04, "nothing applied while typing");
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    assert_eq!(step(&h), 0.02, "applied on Enter");
    // Out of range: refused, said, and the session keeps its value.
    retype(&mut h, "MaxTimeStep (s)", "-3");
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    assert_eq!(step(&h), 0.02, "not clamped into the range");
    h.get_by_label_contains("`gmc.max_time_step` refused: -3");
}

/// Enter in the Open dialog's file field opens the file, as the button does.
#[test]
fn enter_in_the_open_dialog_opens_the_recording() {
    let mut h = app(plain());
    h.get_by_label("Open…").click();
    h.run_steps(3);
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("recordings/pitfall-01-unbound-member.msrec");
    // The field starts with "recordings/": replace it.
    retype(&mut h, "file", file.to_str().expect("a UTF-8 path"));
    assert!(h.state().session().is_some(), "not yet");
    h.key_press(egui::Key::Enter);
    step_until(&mut h, "the recording opened", |a| {
        a.session().is_none() && !a.is_loading() && a.store().latest() > 1.0
    });
}

/// `--window presenter` alone opens the lessons panel in presenter mode on the preset's lesson,
/// held at its first question (the scenario does not run before it is answered); `--answer K`
/// alone opens the panel with that answer revealed and the session running.
#[test]
fn presenter_mode_or_an_answer_alone_opens_the_lesson() {
    let lesson = |windows: &[&str], answer: Option<usize>| AppOptions {
        windows: windows.iter().map(|w| w.to_string()).collect(),
        answer,
        ..AppOptions::live(
            Preset::find("pitfall-01-unbound-member")
                .expect("shipped")
                .0,
            "pitfall-01-unbound-member",
        )
    };
    let mut h = app(lesson(&["presenter"], None));
    h.run_steps(3);
    assert_eq!(h.state().lesson_shown(), Some("pitfall-01-unbound-member"));
    h.get_by_label("presenter mode");
    h.get_by_label("Will the clients be corrected?");
    assert!(h.state().is_paused(), "the scenario waits for the question");
    // The choices are shown shuffled by the preset's seed: answer the place the right one is
    // shown in.
    let (p, _) = Preset::find("pitfall-01-unbound-member").expect("shipped");
    let first = &p.lesson.as_ref().expect("a lesson").steps[0];
    let shown = first.choice_order(p.seed, "pitfall-01-unbound-member", 0);
    let k = 1 + shown
        .iter()
        .position(|&i| Some(i) == first.answer)
        .expect("the answer is shown");
    let mut h = app(lesson(&[], Some(k)));
    h.run_steps(3);
    assert_eq!(h.state().lesson_shown(), Some("pitfall-01-unbound-member"));
    h.get_by_label("Right.");
    assert!(!h.state().is_paused(), "answered: the scenario runs");
}

/// While a lesson's question is open the pitfall switches (pitfall 1's would show the answer
/// ticked) are hidden; once answered they show, and the answer can no longer change.
#[test]
fn the_switches_do_not_give_the_answer_away_and_an_answer_stands() {
    let mut h = app(AppOptions {
        windows: vec!["lessons".into()],
        ..AppOptions::live(
            Preset::find("pitfall-01-unbound-member")
                .expect("shipped")
                .0,
            "pitfall-01-unbound-member",
        )
    });
    h.run_steps(3);
    assert!(h.query_by_label("Member written, not bound").is_none());
    h.get_by_label_contains("Hidden while the lesson's question is open");
    h.get_by_label("Yes: replays start from a different move_ramp than the server had")
        .click();
    h.run_steps(1);
    h.get_by_label("Answer").click();
    h.run_steps(2);
    h.get_by_label("Right.");
    h.get_by_label("Member written, not bound");
    // A click on another choice after the reveal changes nothing.
    h.get_by_label("Only when packets are lost").click();
    h.run_steps(2);
    h.get_by_label("Right.");
}

/// A window opens below the top bar, never over its buttons.
#[test]
fn windows_open_below_the_top_bar() {
    let mut h = app(plain());
    let bar_bottom = h.get_by_label("Open…").rect().bottom();
    h.get_by_label("Open…").click();
    h.run_steps(3);
    let title = h.get_by_label("Open a recording or game logs").rect();
    assert!(
        title.top() >= bar_bottom,
        "the Open window's title at {} is over the top bar (to {bar_bottom})",
        title.top()
    );
}

/// The top bar's buttons stay in place between a live session and a recording.
#[test]
fn top_bar_buttons_keep_their_places_live_and_recording() {
    let mut h = app(plain());
    let place =
        |h: &Harness<'static, MovescopeApp>, label: &str| h.get_by_label(label).rect().left();
    let live: Vec<f32> = ["Open…", "Bug report", "Doctor", "Help"]
        .iter()
        .map(|l| place(&h, l))
        .collect();
    h.get_by_label("Pause (Space)").click();
    h.run_steps(2);
    h.get_by_label("Resume (Space)");
    assert_eq!(place(&h, "Open…"), live[0], "paused");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("recordings/pitfall-01-unbound-member.msrec");
    let mut h = app(AppOptions {
        source: movescope::app::Source::Recording { path, at: None },
        ..plain()
    });
    step_until(&mut h, "the recording loaded", |a| !a.is_loading());
    h.run_steps(2);
    h.get_by_label("Live session");
    let recording: Vec<f32> = ["Open…", "Bug report", "Doctor", "Help"]
        .iter()
        .map(|l| place(&h, l))
        .collect();
    assert_eq!(recording, live);
}

/// A journey opened at the live edge keeps up: the move was closed a moment ago and has not
/// reached the server yet (300 ms away); traced again while it is young, its server execution
/// and the reply show, then the window stops tracing it.
#[test]
fn a_journey_opened_at_the_live_edge_updates() {
    let mut p = Preset::default();
    p.set("clients=1").expect("valid");
    p.set("ai_pawns=0").expect("valid");
    p.set("link.latency_ms=300").expect("valid");
    let mut h = app(AppOptions::live(p, "test"));
    step_until(&mut h, "two seconds of the session", |a| {
        a.store().latest() > 2.0
    });
    h.get_by_label("Move journey").click();
    let has = |a: &MovescopeApp, what: &str| {
        a.lineage()
            .and_then(|l| l.as_ref().ok())
            .is_some_and(|l| l.steps.iter().any(|s| s.what.starts_with(what)))
    };
    step_until(&mut h, "the journey traced", |a| has(a, "closed"));
    let first = h
        .state()
        .lineage()
        .cloned()
        .expect("shown")
        .expect("traced");
    assert!(
        !first
            .steps
            .iter()
            .any(|s| s.what.starts_with("executed on the server")),
        "the move had not reached the server when it was opened"
    );
    assert!(h.state().is_following_journey());
    step_until(&mut h, "its server execution shows", |a| {
        has(a, "executed on the server")
    });
    let later = h
        .state()
        .lineage()
        .cloned()
        .expect("shown")
        .expect("traced");
    assert_eq!((later.client, later.move_id), (first.client, first.move_id));
    step_until(&mut h, "the journey settled", |a| !a.is_following_journey());
}

/// A lesson naming a control by id outlines that control while its text is on screen, and
/// not after the lesson is closed.
#[test]
fn a_control_a_lesson_names_is_pointed_at() {
    use movescope::app::is_pointed;
    let mut h = app(AppOptions {
        windows: vec!["lessons".to_string()],
        answer: Some(1),
        ..AppOptions::live(
            Preset::find("basics-02-prediction").expect("shipped").0,
            "basics-02-prediction",
        )
    });
    h.run_steps(3);
    // Its watch line names the world view's "vs server" toggle.
    assert!(is_pointed(&h.ctx, "world.vs_server"));
    assert!(!is_pointed(&h.ctx, "view.buffer"));
    h.get_by_label("close").click();
    h.run_steps(3);
    assert!(!is_pointed(&h.ctx, "world.vs_server"));
}

/// A claim of a lesson's text that the running session does not bear out is said under the
/// text: here pitfall 1 runs with its pitfall already switched off, so the reveal's claim of
/// corrections is untrue in this session, and the panel says so with the measured figure.
#[test]
fn a_claim_the_session_does_not_bear_out_is_said_under_its_text() {
    let name = "pitfall-01-unbound-member";
    let (mut p, _) = Preset::find(name).expect("shipped");
    p.set("faults.unbound_member=false").expect("a switch");
    let first = p.lesson.as_ref().expect("a lesson").steps[0].clone();
    let shown = first.choice_order(p.seed, name, 0);
    let k = 1 + shown
        .iter()
        .position(|&i| Some(i) == first.answer)
        .expect("the answer is shown");
    let mut h = app(AppOptions {
        answer: Some(k),
        ..AppOptions::live(p, name)
    });
    h.run_steps(3);
    h.get_by_label("Right.");
    assert!(
        h.query_by_label_contains("Not so in this session")
            .is_none(),
        "nothing is said before a whole window is measured"
    );
    step_until(&mut h, "a whole window measured", |a| {
        a.time().cursor() > 10.5
    });
    h.run_steps(2);
    h.get_by_label_contains(
        "Not so in this session: Corrections the clients received: 0 here; the lesson says at least 5",
    );
}

/// A lesson opened from the command line shows the plot its first step looks at, as one
/// picked in the panel does: basics 1 points at "Own input to screen", which is off by default.
#[test]
fn a_lesson_opened_at_start_shows_the_plot_its_step_looks_at() {
    let name = "basics-01-no-prediction";
    let (p, _) = Preset::find(name).expect("shipped");
    let mut h = app(AppOptions {
        answer: Some(1),
        ..AppOptions::live(p, name)
    });
    h.run_steps(4);
    h.get_by_label_contains("Own input to screen (ms)  <- look here");
    assert!(
        h.state().plot_transform("Own input to screen").is_some(),
        "drawn"
    );
}

/// `--walk 1`: the lesson is walked through as a learner would — its question answered right,
/// its change made, the next step — until the conclusion shows (basics 3: a question, a step
/// without one, and a change).
#[test]
fn a_walked_lesson_reaches_its_conclusion() {
    let (lesson, name) = Preset::find("basics-03-correction-and-replay").expect("shipped");
    let mut h = app(AppOptions {
        walk: Some(1.0),
        ..AppOptions::live(lesson, &name)
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(40);
    while h
        .query_by_label_contains("What you should have seen")
        .is_none()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the conclusion within 40 s of walking"
        );
        h.run_steps(5);
    }
    h.get_by_label("Step 3 of 3");
    assert_eq!(
        h.state()
            .session()
            .expect("live")
            .preset()
            .world
            .turret_period_s,
        0.0,
        "the last step's change was made"
    );
}

/// Presenter mode at 1280×800 (1024 points of larger text): the timeline's controls stay on
/// one line (short labels), and the top bar leaves the session's title room.
#[test]
fn presenter_mode_keeps_the_timeline_on_one_line() {
    let (lesson, name) = Preset::find("basics-04-replay-depth-and-latency").expect("shipped");
    let options = AppOptions {
        windows: vec!["presenter".into()],
        ..AppOptions::live(lesson, &name)
    };
    // A 1280×800 window at presenter mode's 1.25 text size is 1024×640 points (the harness
    // counts points).
    let mut h = Harness::builder()
        .with_size(egui::vec2(1024.0, 640.0))
        .build_eframe(move |_cc| MovescopeApp::new(options));
    h.run_steps(6);
    let row = h.get_by_label("Timeline").rect();
    let csv = h.get_by_label("CSV…").rect();
    assert!(
        (csv.center().y - row.center().y).abs() < 6.0,
        "the last control of the timeline on its first line: {csv:?} vs {row:?}"
    );
    // The whole title where it fits, else the lesson's short name — never one cut mid-word.
    let lessons = h.get_by_label("Lessons").rect();
    let title = h
        .query_by_label("Basics 4: replay depth grows with latency")
        .or_else(|| h.query_by_label("Basics 4"))
        .expect("the title, whole or short")
        .rect();
    assert!(
        (title.center().y - lessons.center().y).abs() < 6.0,
        "in the top bar: {title:?}"
    );
}
