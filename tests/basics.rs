//! The lessons walked as the app runs them: every text of every shipped lesson (each step's,
//! each reveal, each conclusion) quotes figures measured in the state it speaks of; and the
//! basics' scenarios measure what their lessons teach.

use movescope::session::claim::Claim;
use movescope::session::control::Outcome;
use movescope::session::figures::{self, figure};
use movescope::session::lesson::{LessonStates, TextId, Verdict};
use movescope::session::preset::{Lesson, Preset};
use movescope::session::store::Store;
use movescope::sim::harness::Session;

const NAMES: &[&str] = &[
    "basics-01-no-prediction",
    "basics-02-prediction",
    "basics-03-correction-and-replay",
    "basics-04-replay-depth-and-latency",
    "basics-05-combining",
    "basics-06-slow-frame",
    "basics-07-proxies-show-the-past",
    "basics-08-the-clock",
];

const SECONDS: f64 = 20.0;

fn preset(name: &str) -> Preset {
    let (_, text) = movescope::support::shipped::preset_text(name).expect("shipped");
    Preset::from_ron(text, name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The store of `p` run headless for [`SECONDS`].
fn run(p: &Preset) -> Store {
    let mut store = Store::new(None);
    movescope::sim::run_deterministic(p, "basics", SECONDS, &mut |r| store.ingest(r))
        .expect("the scenario runs");
    store
}

/// `p` with the changes of steps `..=k` made.
fn at_step(p: &Preset, k: usize) -> Preset {
    let mut q = p.clone();
    for st in &p.lesson.as_ref().expect("a lesson").steps[..=k] {
        for kv in &st.set {
            q.set(kv).unwrap_or_else(|e| panic!("{kv}: {e}"));
        }
    }
    q
}

fn value(store: &Store, name: &str) -> f64 {
    figure(name)
        .expect("a figure")
        .value(store, SECONDS - 10.0, SECONDS)
        .unwrap_or_else(|| panic!("{name} measured"))
}

/// Seconds each state of a walked lesson runs before its texts are read (the app quotes a
/// figure once 10 s of its state are measured).
const WAIT: f64 = 12.0;

/// A lesson walked as the app runs it: one session; each question answered when it is asked;
/// each "Do it" made in the running session (live when it can be, a restart otherwise, its
/// data then starting again at 0); every text read after [`WAIT`] s of the state it is shown
/// in, through the app's own [`LessonStates`].
struct Walk {
    preset: Preset,
    session: Session,
    store: Store,
    now: f64,
    states: LessonStates,
    /// Every text as the learner read it.
    read: Vec<(TextId, String)>,
    /// Each text of a state that is over, as it read when its state ended.
    at_end: Vec<(TextId, String)>,
}

impl Walk {
    fn new(p: &Preset) -> Walk {
        Walk {
            preset: p.clone(),
            session: Session::new(p).expect("the scenario starts"),
            store: Store::new(None),
            now: 0.0,
            states: LessonStates::default(),
            read: Vec::new(),
            at_end: Vec::new(),
        }
    }

    fn run(&mut self, seconds: f64) {
        let store = &mut self.store;
        self.now += seconds;
        self.session.run_until(self.now, &mut |r| store.ingest(&r));
    }

    fn show(&mut self, id: TextId) {
        self.states.shown(id);
    }

    fn read(&mut self, id: TextId, text: &str) -> String {
        let filled = self.states.fill(id, text, &self.store, self.now);
        self.read.push((id, filled.clone()));
        filled
    }

    fn quoted(&mut self, id: TextId, text: &str, figure: &str) -> f64 {
        self.states
            .quoted(id, text, figure, &self.store, self.now)
            .unwrap_or_else(|| panic!("{figure} quoted and measured in {id:?}: {text}"))
    }

    /// "Do it": the step's changes, in the running session.
    fn change(&mut self, sets: &[String]) {
        let lesson = self.preset.lesson.clone().expect("a lesson");
        let current = self.states.current();
        let mut ids: Vec<TextId> = self.read.iter().map(|(id, _)| *id).collect();
        ids.dedup();
        for id in ids {
            if self.states.shown(id) == current && !self.at_end.iter().any(|(j, _)| *j == id) {
                let text = self
                    .states
                    .fill(id, text_of(&lesson, id), &self.store, self.now);
                self.at_end.push((id, text));
            }
        }
        self.states.change(&self.store, self.now);
        let mut target = self.preset.clone();
        for kv in sets {
            target.set(kv).unwrap_or_else(|e| panic!("{kv}: {e}"));
        }
        let store = &mut self.store;
        match self.session.change_to(&target, &mut |r| store.ingest(&r)) {
            Ok(Outcome::NeedsRestart(_)) => {
                self.session = Session::new(&target).expect("the changed scenario starts");
                self.store = Store::new(None);
                self.now = 0.0;
                self.states.restarted();
            }
            Ok(_) => {}
            Err(e) => panic!("{sets:?}: {e:?}"),
        }
        self.preset = target;
    }

    /// Walks the whole lesson of `p` and reads its conclusion.
    fn lesson(p: &Preset) -> Walk {
        let lesson = p.lesson.clone().expect("a lesson");
        let mut w = Walk::new(p);
        for (k, st) in lesson.steps.iter().enumerate() {
            let asked = st.question.is_some();
            w.show(TextId::Say(k));
            // Answered as soon as asked; a step with no question and no change reveals at once.
            if asked || st.set.is_empty() {
                w.show(TextId::Reveal(k));
            }
            w.run(WAIT);
            w.read(TextId::Say(k), &st.say);
            if asked || st.set.is_empty() {
                w.read(TextId::Reveal(k), &st.reveal);
            }
            if !st.set.is_empty() {
                w.change(&st.set);
                w.show(TextId::Reveal(k));
                w.run(WAIT);
                w.read(TextId::Reveal(k), &st.reveal);
            }
        }
        w.show(TextId::Expect);
        w.show(TextId::Fix);
        w.read(TextId::Expect, &lesson.expect);
        w.read(TextId::Fix, &lesson.fix);
        w
    }
}

/// A figure quoted in state `k` of a walked lesson (after the walk), as `{name@k...}`.
#[allow(dead_code)]
fn figure_at(w: &mut Walk, name: &str, k: usize, client: Option<u16>) -> Option<String> {
    let q = match client {
        Some(c) => format!("{{{name}@{k}#{c}}}"),
        None => format!("{{{name}@{k}}}"),
    };
    let said = w.states.fill(TextId::Expect, &q, &w.store, w.now);
    (!said.starts_with('(') && said != "…").then_some(said)
}

#[test]
#[ignore = "prints every text as read and every figure of every lesson state, for writing claims"]
fn print_figures_per_state() {
    for (name, p) in lessons() {
        let mut w = Walk::lesson(&p);
        let states = p.lesson.as_ref().expect("a lesson").state_count();
        println!("== {name}");
        for (id, text) in w.read.clone() {
            println!("  {id:?}: {text}");
        }
        for k in 0..states {
            for f in figures::FIGURES {
                let all = figure_at(&mut w, f.name, k, None).unwrap_or_default();
                let per: Vec<String> = (0..4)
                    .filter_map(|c| {
                        Some(format!("c{c} {}", figure_at(&mut w, f.name, k, Some(c))?))
                    })
                    .collect();
                println!("  @{k} {:<28} {all:<24} {}", f.name, per.join(" | "));
            }
        }
    }
}

fn text_of(l: &Lesson, id: TextId) -> &str {
    match id {
        TextId::Say(k) => &l.steps[k].say,
        TextId::Reveal(k) => &l.steps[k].reveal,
        TextId::Expect => &l.expect,
        TextId::Fix => &l.fix,
    }
}

fn lessons() -> Vec<(String, Preset)> {
    movescope::support::shipped::PRESETS
        .iter()
        .filter_map(|(name, text)| {
            let p = Preset::from_ron(text, name).ok()?;
            p.lesson.as_ref()?;
            Some((name.to_string(), p))
        })
        .collect()
}

#[test]
fn every_lesson_text_quotes_figures_measured_in_the_state_it_speaks_of() {
    let all = lessons();
    assert!(all.len() >= 20, "{}", all.len());
    for (name, p) in &all {
        let mut w = Walk::lesson(p);
        let lesson = p.lesson.as_ref().expect("a lesson");
        for (id, text) in w.read.clone() {
            let source = text_of(lesson, id);
            for bad in ["…", "{", "not measured", "nothing measured"] {
                assert!(
                    text.matches(bad).count() <= source.matches(bad).count(),
                    "{name} {id:?}: `{bad}` in: {text}"
                );
            }
        }
        // Stepping back after the lesson, a text of a state that is over says what it said
        // when that state ended: its figures are that state's, not the session's now.
        for (id, said) in w.at_end.clone() {
            let again = w.read(id, text_of(lesson, id));
            assert_eq!(again, said, "{name} {id:?} changed after its state");
        }
    }
}

/// Each lesson's claims, checked after the walk in the state each text was shown in: what
/// is not so, or not measured.
fn claims_not_borne_out(name: &str, p: &Preset) -> Vec<String> {
    let lesson = p.lesson.clone().expect("a lesson");
    let mut w = Walk::lesson(p);
    let ids = (0..lesson.steps.len())
        .map(TextId::Reveal)
        .chain([TextId::Expect]);
    let mut wrong = Vec::new();
    for id in ids {
        for text in lesson.claims_of(id) {
            let claim = Claim::parse(text).unwrap_or_else(|e| panic!("{name} {id:?}: {e}"));
            match w.states.check(id, &claim, &w.store, w.now) {
                Verdict::Holds => {}
                v => wrong.push(format!("{name} {id:?} `{text}`: {v:?}")),
            }
        }
    }
    wrong
}

#[test]
fn every_lesson_claim_holds_in_the_state_its_text_is_shown_in() {
    let wrong: Vec<String> = lessons()
        .iter()
        .flat_map(|(name, p)| claims_not_borne_out(name, p))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_reveal_and_every_conclusion_makes_a_checked_claim() {
    for (name, p) in lessons() {
        let lesson = p.lesson.as_ref().expect("a lesson");
        assert!(
            !lesson.claims.is_empty(),
            "{name}: the conclusion claims nothing"
        );
        for (k, st) in lesson.steps.iter().enumerate() {
            assert!(
                st.reveal.is_empty() || !st.claims.is_empty(),
                "{name} step {k}: its reveal claims nothing"
            );
        }
    }
}

/// A claim the session does not bear out fails the walk: the test above can fail.
#[test]
fn a_false_claim_is_caught() {
    let mut p = preset("basics-03-correction-and-replay");
    let lesson = p.lesson.as_mut().expect("a lesson");
    lesson.claims = vec!["corrections@0 = 0".into()];
    let wrong = claims_not_borne_out("basics-03", &p);
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    assert!(
        wrong[0].contains("Corrections the clients received: "),
        "{}",
        wrong[0]
    );
}

#[test]
fn a_state_quoted_after_it_ended_keeps_its_figures_and_a_short_state_says_so() {
    let p = preset("basics-06-slow-frame");
    let mut w = Walk::new(&p);
    w.run(3.0);
    // Changed after 3 s: state 0 never had a whole window.
    w.change(&["client_fps=60".to_string()]);
    w.run(WAIT);
    let said = w.read(
        TextId::Expect,
        "{move_delta_max_ms@0} then {move_delta_max_ms@1}",
    );
    assert!(
        said.starts_with("(not measured: that state ran under 10 s) then ")
            && said.ends_with(" ms"),
        "{said}"
    );
}

#[test]
fn the_basics_come_first_in_order() {
    let mut orders = Vec::new();
    for name in NAMES {
        let p = preset(name);
        let lesson = p.lesson.as_ref().expect("a lesson");
        orders.push(lesson.order);
        // A first question holds the session: nothing is measured before it is answered.
        if lesson.steps[0].question.is_some() {
            let say = &lesson.steps[0].say;
            assert!(
                figures::fill(say, &Store::new(None), 0.0, 10.0) == *say,
                "{name}: the first step's text quotes a figure while the session waits: {say}"
            );
        }
    }
    let mut sorted = orders.clone();
    sorted.sort();
    assert_eq!(orders, sorted, "in order");
    // Before every other lesson.
    for (name, p) in lessons() {
        if !name.starts_with("basics-") {
            assert!(
                p.lesson.expect("a lesson").order > *orders.last().expect("basics"),
                "{name}"
            );
        }
    }
}

#[test]
fn without_prediction_the_wait_is_the_owners_and_with_it_nothing_is_corrected() {
    let p = preset("basics-01-no-prediction");
    let reveal = p.lesson.clone().expect("a lesson").steps[1].reveal.clone();
    let mut w = Walk::lesson(&p);
    let id = TextId::Reveal(1);
    assert_eq!(w.quoted(id, &reveal, "corrections"), 0.0, "{reveal}");
    // "As it did without prediction": the move age is the server's, the same in both states.
    let now = w.quoted(id, &reveal, "move_age_ms");
    let before = w
        .states
        .quoted(id, "{move_age_ms@0}", "move_age_ms", &w.store, w.now)
        .expect("measured before");
    assert!((now - before).abs() < 0.2 * before, "{before} → {now}");
}

#[test]
fn the_slow_frame_conclusion_speaks_of_the_slow_frames() {
    let p = preset("basics-06-slow-frame");
    let expect = p.lesson.clone().expect("a lesson").expect;
    let mut w = Walk::lesson(&p);
    let max = w.quoted(TextId::Expect, &expect, "move_delta_max_ms");
    assert!(
        (49.0..=50.01).contains(&max),
        "MaxMoveDeltaTime is 50 ms, said {max}"
    );
    let substeps = w.quoted(TextId::Expect, &expect, "substeps");
    assert!(
        substeps >= 2.0,
        "a clamped 0.1 s frame runs in 2 sub-steps, said {substeps}"
    );
}

#[test]
fn the_clock_conclusion_speaks_of_the_synchronized_clocks_and_names_disagreeing_clients() {
    let p = preset("basics-08-the-clock");
    let lesson = p.lesson.clone().expect("a lesson");
    let mut w = Walk::lesson(&p);
    let offset = w.quoted(TextId::Expect, &lesson.expect, "clock_offset_ms");
    assert!(offset.abs() < 5.0, "synchronized within {offset} ms");
    // Without the replicator the clients drift apart: the figure says it is their mean and
    // who is where.
    let (_, drifting) = w
        .read
        .iter()
        .find(|(id, _)| *id == TextId::Reveal(1))
        .expect("read")
        .clone();
    assert!(
        drifting.contains("the mean of 3 clients, from"),
        "{drifting}"
    );
}

#[test]
fn without_prediction_the_owner_waits_a_round_trip_and_with_it_the_server_is_behind() {
    let p = preset("basics-01-no-prediction");
    let off = run(&p);
    let rtt = value(&off, "rtt_ms");
    assert!((180.0..260.0).contains(&rtt), "{rtt}");
    let on = run(&at_step(&p, 1));
    let age = value(&on, "move_age_ms");
    assert!((80.0..200.0).contains(&age), "{age}");
    assert_eq!(value(&on, "corrections"), 0.0);
}

#[test]
fn prediction_agrees_with_the_server_and_the_log_stays_empty() {
    let s = run(&preset("basics-02-prediction"));
    assert_eq!(value(&s, "corrections"), 0.0);
    let age = value(&s, "move_age_ms");
    let rtt = value(&s, "rtt_ms");
    // "The one-way trip plus the time a move waits to be closed and sent".
    assert!(age > 0.5 * rtt && age < 0.8 * rtt, "age {age} rtt {rtt}");
}

#[test]
fn a_turret_hit_is_corrected_and_replayed_and_stops_with_the_turret() {
    let p = preset("basics-03-correction-and-replay");
    let s = run(&p);
    assert!(value(&s, "corrections") >= 6.0);
    assert!(value(&s, "replay_depth") >= 2.0);
    let off = run(&at_step(&p, 2));
    assert_eq!(value(&off, "corrections"), 0.0);
}

#[test]
fn replay_depth_grows_with_latency() {
    let p = preset("basics-04-replay-depth-and-latency");
    let near = value(&run(&p), "replay_depth");
    let far = value(&run(&at_step(&p, 1)), "replay_depth");
    eprintln!("replay depth: {near} at 30 ms, {far} at 90 ms");
    assert!(far > 2.0 * near, "{near} → {far}");
}

#[test]
fn frames_combine_at_144_fps_and_not_at_30() {
    let p = preset("basics-05-combining");
    let fast = run(&p);
    let fpm = value(&fast, "frames_per_move");
    assert!(fpm >= 3.0, "{fpm}");
    assert!(value(&fast, "sends_per_s") <= 30.5);
    let slow = run(&at_step(&p, 1));
    assert!(value(&slow, "frames_per_move") < 1.1);
}

#[test]
fn a_slow_frame_is_clamped_and_sub_stepped() {
    let p = preset("basics-06-slow-frame");
    let s = run(&p);
    let max = value(&s, "move_delta_max_ms");
    assert!((49.0..=50.01).contains(&max), "{max}");
    assert!(value(&s, "substeps") >= 2.0);
    let fast = run(&at_step(&p, 1));
    assert!(value(&fast, "substeps") < 1.01);
}

#[test]
fn other_pawns_are_shown_in_the_past_and_jitter_pushes_them_further() {
    let p = preset("basics-07-proxies-show-the-past");
    let calm = value(&run(&p), "interp_delay_ms");
    assert!(calm > 50.0, "{calm}");
    let jitter = value(&run(&at_step(&p, 1)), "interp_delay_ms");
    eprintln!("interpolation delay: {calm} calm, {jitter} with jitter");
    // Clearly: more than a busy machine's frame-time spikes add to the delay live (a 40 ms
    // jitter added about 10 ms, less than the spikes on the same plot).
    assert!(jitter > calm + 25.0, "{calm} → {jitter}");
    // The lesson says so in one sentence, each figure from its own state.
    let reveal = p.lesson.clone().expect("a lesson").steps[1].reveal.clone();
    let mut w = Walk::lesson(&p);
    let now = w.quoted(TextId::Reveal(1), &reveal, "interp_delay_ms");
    let before = w
        .states
        .quoted(
            TextId::Reveal(1),
            "{interp_delay_ms@0}",
            "interp_delay_ms",
            &w.store,
            w.now,
        )
        .expect("measured before");
    assert!(now > before, "grows: {before} → {now}");
}

#[test]
fn the_clock_follows_the_server_with_a_replicator_and_drifts_without() {
    let p = preset("basics-08-the-clock");
    let s = run(&p);
    let with = value(&s, "clock_offset_ms").abs();
    assert!(with < 5.0, "{with}");
    let without = value(&run(&at_step(&p, 1)), "clock_offset_ms").abs();
    eprintln!("clock offset: {with} ms with, {without} ms without");
    assert!(without > 10.0 * with.max(0.1), "{with} → {without}");
}

/// Basics 4's last step asks the learner to drag the latency slider: doing so (here: back to
/// 10 ms, 20 s of it) refutes none of the lesson's claims — its texts keep the figures of the
/// state the lesson made, from before the learner's change.
#[test]
fn dragging_the_slider_a_step_asks_for_refutes_no_claim() {
    let p = preset("basics-04-replay-depth-and-latency");
    let lesson = p.lesson.clone().expect("a lesson");
    let mut w = Walk::lesson(&p);
    let before = w.read(TextId::Reveal(1), &lesson.steps[1].reveal);
    let mut unnoticed = w.states.clone();
    w.states.learner_changed(&w.store, w.now);
    let mut target = w.preset.clone();
    target.set("link.latency_ms=10").expect("a latency");
    let store = &mut w.store;
    w.session
        .change_to(&target, &mut |r| store.ingest(&r))
        .expect("a live change");
    w.run(20.0);
    for (id, claims) in [
        (TextId::Expect, &lesson.claims),
        (TextId::Reveal(1), &lesson.steps[1].claims),
    ] {
        let not_so = w.states.refuted(id, claims, &w.store, w.now);
        assert!(not_so.is_empty(), "{id:?}: {not_so:?}");
    }
    assert_eq!(
        w.read(TextId::Reveal(1), &lesson.steps[1].reveal),
        before,
        "the reveal keeps its figures"
    );
    // Unnoticed, the same change refutes the conclusion's claim (the test can fail).
    let not_so = unnoticed.refuted(TextId::Expect, &lesson.claims, &w.store, w.now);
    assert!(
        !not_so.is_empty(),
        "the slider changed what the figures measure"
    );
}

/// What a text says in words is checked like what it quotes: a text saying there are no
/// corrections (or that nothing dashes, or that every press dashes) carries a claim on that
/// figure, so the walk above holds it to the session in the text's state; a step's "say",
/// which carries no claims, says none of these.
#[test]
fn a_text_that_states_a_count_in_words_claims_it() {
    const SAID: [(&str, &str); 8] = [
        ("no correction", "corrections"),
        ("nothing is corrected", "corrections"),
        ("no corrections", "corrections"),
        ("not corrected", "corrections"),
        ("nothing dashes", "server_dashes"),
        ("dashes nowhere", "server_dashes"),
        ("never dash", "server_dashes"),
        ("every press", "server_dashes"),
    ];
    let mut unclaimed = Vec::new();
    for (name, p) in lessons() {
        let lesson = p.lesson.as_ref().expect("a lesson");
        let mut texts: Vec<(String, &str, &[String])> =
            vec![("expect".into(), &lesson.expect, &lesson.claims)];
        for (k, st) in lesson.steps.iter().enumerate() {
            texts.push((format!("step {k} say"), &st.say, &[]));
            texts.push((format!("step {k} reveal"), &st.reveal, &st.claims));
        }
        for (where_, text, claims) in texts {
            let lower = text.to_lowercase();
            for (words, figure) in SAID {
                let claimed = claims.iter().any(|c| {
                    c.split_whitespace()
                        .next()
                        .is_some_and(|left| left.split(['@', '#']).next() == Some(figure))
                });
                if lower.contains(words) && !claimed {
                    unclaimed.push(format!(
                        "{name} {where_}: says \"{words}\" without a claim on {figure}"
                    ));
                }
            }
        }
    }
    assert!(unclaimed.is_empty(), "{}", unclaimed.join("\n"));
}

/// The window each state's figures come from (the plots shade it): a state that is over keeps
/// its last 10 s; the current one, the last 10 s before now; a restart forgets the windows of
/// the run whose data is gone.
#[test]
fn each_state_names_the_window_its_figures_come_from() {
    let p = preset("basics-04-replay-depth-and-latency");
    let mut w = Walk::lesson(&p);
    let near = |a: Option<(f64, f64)>, b: (f64, f64)| {
        a.is_some_and(|a| (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9)
    };
    // Step 1 asked and ran 12 s, step 2 ran 12 s before its change (at 24 s), then 12 s more;
    // step 3 another 12.
    assert!(
        near(w.states.window_of(0, w.now), (14.0, 24.0)),
        "{:?}",
        w.states.window_of(0, w.now)
    );
    assert!(near(w.states.window_of(1, w.now), (w.now - 10.0, w.now)));
    assert_eq!(w.states.window_of(2, w.now), None, "no such state");
    w.states.learner_changed(&w.store, w.now);
    let frozen_at = w.now;
    w.run(5.0);
    assert!(
        near(w.states.window_of(1, w.now), (frozen_at - 10.0, frozen_at)),
        "the learner's change keeps the window the texts quote"
    );
    w.states.restarted();
    assert_eq!(w.states.window_of(0, w.now), None, "its data is gone");
    assert_eq!(w.states.window_of(1, w.now), None);
}

/// A reveal shown right after its "Do it" speaks of a state not yet measured: it quotes a
/// figure its claims are about, so it reads "…" until the new state has run a whole window,
/// never "no corrections" beside a plot whose corrections have not yet stopped.
#[test]
fn a_reveal_after_a_change_quotes_what_it_claims() {
    let mut bare = Vec::new();
    for (name, p) in lessons() {
        let lesson = p.lesson.as_ref().expect("a lesson");
        for (k, st) in lesson.steps.iter().enumerate() {
            if st.set.is_empty() || st.question.is_some() || st.reveal.is_empty() {
                continue;
            }
            let claimed: Vec<&str> = st
                .claims
                .iter()
                .filter_map(|c| c.split_whitespace().next())
                .map(|left| left.split(['@', '#']).next().unwrap_or(left))
                .collect();
            let quoted = claimed
                .iter()
                .any(|f| st.reveal.contains(&format!("{{{f}")));
            if !quoted {
                bare.push(format!("{name} step {}: {}", k + 1, st.reveal));
            }
        }
    }
    assert!(bare.is_empty(), "{}", bare.join("\n"));
}
