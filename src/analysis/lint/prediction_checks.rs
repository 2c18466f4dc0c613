//! The prediction-path rules of [`super::rules`]: a walk over the path's events whose state
//! is [`PathWalk`], one method per kind of event (a call, a field read, a name read, a write),
//! then the carried-state checks of [`super::carry`].

use std::collections::{HashMap, HashSet};

use super::ctx::Ctx;
use super::gmc;
use super::program::{Component, Step};
use super::syntax::EventKind;
use super::table::*;
use crate::model::binding::PredictionMode;

/// Runs the prediction-path rules on `c`'s prediction path `path`; `also_bound` are members
/// of `c` other components bind.
pub(super) fn prediction_rules(
    cx: &mut Ctx,
    c: &Component,
    path: &[Step],
    also_bound: &HashSet<String>,
) {
    let p = cx.p;
    let fields: HashMap<String, String> = p.fields(&c.class).into_iter().collect();
    let mut bound = bound_names(c);
    bound.extend(also_bound.iter().cloned());
    let frame_members = frame_members(cx, c, path, &fields, &bound);
    let mut walk = PathWalk {
        c,
        fields: &fields,
        bound: &bound,
        inputs: c
            .bindings
            .iter()
            .filter(|b| b.prediction.value() == Some(PredictionMode::ClientAuth_Input))
            .map(|b| b.member.as_str())
            .collect(),
        frame_members,
        stream_seeded: HashSet::new(),
        input_seen: HashMap::new(),
        input_findings: Vec::new(),
        derived: HashSet::new(),
    };
    for s in path {
        match cx.event(s).clone() {
            EventKind::Call {
                path: cp,
                name,
                receiver,
                args,
            } => walk.call(cx, s, &cp, &name, receiver.as_deref(), &args),
            EventKind::Field { path: fp, name } => walk.field(cx, s, &fp, &name),
            EventKind::Read { name } => walk.read(cx, s, &name),
            EventKind::Write {
                target,
                path,
                rhs,
                plain,
            } if !p.funcs[s.func].locals.contains(&target) && cx.on_owner(s) => {
                walk.overwrite(
                    cx,
                    s,
                    &target,
                    plain && !gmc::words(&rhs).any(|w| w == target),
                );
                walk.write(cx, s, &path, &rhs)
            }
            _ => {}
        }
    }
    walk.settle_input_advice(cx);
    super::carry::unbound_state(cx, c, path, &fields, &bound);
    super::carry::one_shots(cx, c, path);
}

/// Members TickComponent sets from its delta, or on every frame (under no condition but which
/// machine this is) from something other than a constant, that no binding carries: (line, file, whether from the frame's delta).
/// The move reads them as this frame left them, a replay and the server as theirs did.
fn frame_members(
    cx: &Ctx,
    c: &Component,
    path: &[Step],
    fields: &HashMap<String, String>,
    bound: &HashSet<String>,
) -> HashMap<String, FrameMember> {
    let p = cx.p;
    let mut out: HashMap<String, FrameMember> = HashMap::new();
    for tick in p.lookup(Some(&c.class), "TickComponent", 0) {
        let Some(dt) = p.funcs[tick].params.first().cloned() else {
            continue;
        };
        for s in p.flow(tick) {
            let EventKind::Write { target, rhs, .. } = cx.event(&s) else {
                continue;
            };
            // A sample taken on every frame (under no condition but which machine this is);
            // a capture made when something happens (`if (bFirstTick) { … }`) is not.
            let every_frame = cx.cond_chain(&s).into_iter().all(|(func, k)| {
                cx.is_machine_guard(func, k) || is_null_check(&p.funcs[func].conds[k as usize])
            });
            let from_settings = super::settled::from_settings(cx, path, &s, target, rhs);
            let from_delta = gmc::words(rhs).any(|w| w == dt);
            let sampled = !rhs.trim().is_empty()
                && !super::settled::is_reset(rhs)
                && rhs.trim() != "true"
                && fields.get(target).is_some_and(|ty| gmc::is_state_type(ty))
                && !bound.contains(target);
            if fields.contains_key(target)
                && (from_delta || (sampled && every_frame && !from_settings))
            {
                let (file, pos) = cx.at(&s);
                let m = out.entry(target.clone()).or_insert(FrameMember {
                    line: pos.line,
                    file,
                    from_delta,
                });
                if from_delta && !m.from_delta {
                    *m = FrameMember {
                        line: pos.line,
                        file,
                        from_delta,
                    };
                }
            }
        }
    }
    out
}

/// `if (Mesh)`, `if (IsValid(Mesh))`, `if (Mesh != nullptr)`: a pointer that exists on every
/// frame, no event (a `b`-named flag is one).
fn is_null_check(c: &super::syntax::Cond) -> bool {
    use super::syntax::CondKind;
    c.kind == CondKind::If
        && !c.text.contains("||")
        && c.text.split("&&").all(|part| {
            let t: String = part
                .replace("IsValid(", "")
                .replace(".IsValid()", "")
                .replace("!=nullptr", "")
                .replace("this->", "")
                .chars()
                .filter(|c| !matches!(c, '(' | ')') && !c.is_whitespace())
                .collect();
            let flag = t.len() > 1
                && t.starts_with('b')
                && t[1..].starts_with(|c: char| c.is_ascii_uppercase());
            !t.is_empty() && !flag && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// Where TickComponent sets a member the move may read.
#[derive(Clone, Copy)]
struct FrameMember {
    line: u32,
    file: usize,
    /// Set from the frame's delta (else from another value the frame samples).
    from_delta: bool,
}

/// The walk over one component's prediction path: what it knows of the component, and what
/// it has seen so far.
struct PathWalk<'a> {
    c: &'a Component,
    fields: &'a HashMap<String, String>,
    bound: &'a HashSet<String>,
    /// The members bound ClientAuth_Input.
    inputs: Vec<&'a str>,
    /// Members TickComponent sets once a frame, until their first read is reported or the
    /// move sets them itself before reading them.
    frame_members: HashMap<String, FrameMember>,
    /// FRandomStream members seeded from bound state in this move.
    stream_seeded: HashSet<String>,
    /// (written path, function) → the finding already made for it.
    input_seen: HashMap<(String, usize), usize>,
    /// Each input finding: its index, the written path, the inputs it holds, and the length
    /// of its own text (what follows lists the later writes).
    input_findings: Vec<(usize, String, Vec<String>, usize)>,
    /// Inputs some write on the path gives a value other than their reset one: values the
    /// tick derives, whatever their other writes are.
    derived: HashSet<String>,
}

impl PathWalk<'_> {
    /// A call `cp(args)` on the path: the world clock, the frame delta, an unseeded random
    /// number, a random stream drawn from, a side effect or RPC that replays.
    fn call(
        &mut self,
        cx: &mut Ctx,
        s: &Step,
        cp: &str,
        name: &str,
        receiver: Option<&str>,
        args: &[String],
    ) {
        let c = self.c;
        let (at, func, class) = (cx.at(s), Some(s.func), &c.class);
        if gmc::is_world_time_call(cp, name, receiver) && !cx.value_guarded(s) {
            cx.add(
                WORLD_TIME,
                Severity::Warning,
                class,
                at,
                func,
                format!("`{cp}()` reads the clock on the prediction path"),
            );
        }
        if gmc::is_frame_delta_call(cp, name) && !cx.value_guarded(s) {
            cx.add(
                FRAME_DELTA,
                Severity::Warning,
                class,
                at,
                func,
                format!("`{cp}()` is this machine's frame delta, not the move's"),
            );
        }
        if gmc::is_unseeded_random_call(cp, name) && !cx.value_guarded(s) {
            cx.add(
                RANDOM,
                Severity::Warning,
                class,
                at,
                func,
                format!("`{cp}()` draws a number client, server and replay do not share"),
            );
        }
        if let Some(r) = receiver {
            self.stream_call(cx, s, r, name, args);
        }
        let rpc = receiver.is_none() && cx.p.rpcs.contains(name);
        if (gmc::is_side_effect_call(cp, name) || rpc) && !cx.not_replayed(s) {
            let what = if rpc {
                format!("the RPC `{name}`")
            } else {
                format!("`{cp}()`")
            };
            cx.add(
                SIDE_EFFECT,
                Severity::Warning,
                class,
                at,
                func,
                format!(
                    "{what} runs on every execution of the move (replays and combined re-runs too)"
                ),
            );
        }
    }

    /// A call on member `r`: when it is an FRandomStream, seeding it from the move's bound
    /// state, or drawing from it unseeded.
    fn stream_call(&mut self, cx: &mut Ctx, s: &Step, r: &str, name: &str, args: &[String]) {
        let is_stream = self
            .fields
            .get(r)
            .is_some_and(|t| t.contains("FRandomStream"));
        if is_stream && matches!(name, "Initialize" | "Reset") {
            let seeded_from_move = args.iter().any(|a| {
                gmc::words(a).any(|w| {
                    self.bound.contains(w) || w.starts_with("GetMove") || w == "GetIterationNumber"
                })
            });
            if seeded_from_move {
                self.stream_seeded.insert(r.to_string());
            }
        } else if is_stream
            && gmc::is_stream_draw(name)
            && !self.stream_seeded.contains(r)
            && !cx.value_guarded(s)
        {
            cx.add(RANDOM, Severity::Warning, &self.c.class, cx.at(s), Some(s.func), format!(
                "`{r}` is an FRandomStream member that draws here without being seeded from bound state in this move"));
        }
    }

    /// A field read `fp` on the path: the world clock, or the frame delta.
    fn field(&mut self, cx: &mut Ctx, s: &Step, fp: &str, name: &str) {
        let c = self.c;
        let (at, func, class) = (cx.at(s), Some(s.func), &c.class);
        if gmc::is_world_time_field(name) && !cx.value_guarded(s) {
            cx.add(
                WORLD_TIME,
                Severity::Warning,
                class,
                at,
                func,
                format!("`{fp}` is the world clock, read on the prediction path"),
            );
        }
        if gmc::is_frame_delta_field(name) && !cx.value_guarded(s) {
            cx.add(
                FRAME_DELTA,
                Severity::Warning,
                class,
                at,
                func,
                format!("`{fp}` is this machine's frame delta, not the move's"),
            );
        }
    }

    /// A name read on the path: a member TickComponent sets once a frame (reported once).
    fn read(&mut self, cx: &mut Ctx, s: &Step, name: &str) {
        let Some(m) = self.frame_members.get(name).copied() else {
            return;
        };
        if cx.p.funcs[s.func].locals.contains(name) || cx.value_guarded(s) {
            return;
        }
        let at = cx.at(s);
        let cited = cx.line_ref(at.0, m.file, m.line);
        let what = if m.from_delta {
            format!(
                "`{name}` holds TickComponent's frame delta (set on {cited}), read on the prediction path"
            )
        } else {
            format!(
                "`{name}` is set by TickComponent once a frame (on {cited}) and read on the prediction path: the move reads what this machine's last frame left, which the server and a replay do not share; compute it in the move or bind it"
            )
        };
        cx.add(
            FRAME_DELTA,
            Severity::Warning,
            &self.c.class,
            at,
            Some(s.func),
            what,
        );
        self.frame_members.remove(name);
    }

    /// A plain write of a member on the path, under no condition, before the move reads it:
    /// the move sets it itself, so what TickComponent left there is not read.
    fn overwrite(&mut self, cx: &Ctx, s: &Step, target: &str, plain: bool) {
        if plain && cx.p.conds(s).is_empty() {
            self.frame_members.remove(target);
        }
    }

    /// A write of `path` (a member, on the owner) on the path: one of the ClientAuth_Input
    /// inputs, reported once per input and function (later writes are listed in it).
    fn write(&mut self, cx: &mut Ctx, s: &Step, path: &str, rhs: &str) {
        let hit: Vec<&str> = self
            .inputs
            .iter()
            .copied()
            .filter(|m| writes_member(path, m))
            .collect();
        if hit.is_empty() {
            return;
        }
        if !(rhs.is_empty() || super::settled::is_reset(rhs)) {
            self.derived.extend(hit.iter().map(|m| m.to_string()));
        }
        let at = cx.at(s);
        let key = (path.to_string(), s.func);
        if let Some(&i) = self.input_seen.get(&key) {
            let line = cx.line_ref(cx.out[i].file, at.0, at.1.line);
            cx.out[i].message.push_str(&format!(" (also {line})"));
            return;
        }
        self.input_seen.insert(key, cx.out.len());
        let text = input_written_text(path, &hit, false);
        let hit: Vec<String> = hit.iter().map(|m| m.to_string()).collect();
        self.input_findings
            .push((cx.out.len(), path.to_string(), hit, text.len()));
        cx.add(
            INPUT_WRITTEN,
            Severity::Warning,
            &self.c.class,
            at,
            Some(s.func),
            text,
        );
    }

    /// Once every write is seen: each input finding gives the fix its members call for,
    /// decided per member from all its writes on the path (one write of a derived value
    /// makes it a derived value everywhere), so every finding on one member agrees.
    fn settle_input_advice(&self, cx: &mut Ctx) {
        for (i, path, hit, own) in &self.input_findings {
            let derived = hit.iter().any(|m| self.derived.contains(m));
            let hit: Vec<&str> = hit.iter().map(String::as_str).collect();
            let Some(f) = cx.out.get_mut(*i) else {
                continue;
            };
            let rest = f.message.get(*own..).unwrap_or("").to_string();
            f.message = input_written_text(path, &hit, derived) + &rest;
        }
    }
}

/// What a write of inputs `hit` through `path` is, and its fix: a struct holding inputs
/// (`Input = {}`) names them, a member or a part of one is named itself; a pulse cleared
/// after use and a value the tick derives (`derived`: some write gives it a value other
/// than its reset one) are fixed differently.
fn input_written_text(path: &str, hit: &[&str], derived: bool) -> String {
    let what = if hit.len() == 1 && hit[0].len() <= path.len() {
        format!("`{path}` is a ClientAuth_Input input")
    } else {
        format!(
            "`{path}` holds the ClientAuth_Input input{} {}",
            if hit.len() > 1 { "s" } else { "" },
            hit.iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let how = if !derived {
        "a pulse consumed in the tick: the next execution of the move (a replay, the server's) still sees it set; clear it where input is gathered (PreLocalMoveExecution) and let CombineIfUnchanged keep the press in its own move"
    } else {
        "a value the tick derives is not the player's input: bind it as an output (ServerAuth_Output_ClientValidated), so the server computes it too and the client's value is checked"
    };
    format!("{what}, but the prediction path writes it: {how}")
}

/// Whether a write to `target` (a member, a struct's root, or a path through a pointer)
/// changes the bound member `member` (`bJump`, `Input.bJump`, `Data->bJump`): the member
/// itself, a part of it, or a struct that holds it.
fn writes_member(target: &str, member: &str) -> bool {
    let under = |whole: &str, part: &str| {
        part.strip_prefix(whole).is_some_and(|rest| {
            rest.starts_with('.') || rest.starts_with("->") || rest.starts_with('[')
        })
    };
    target == member || under(member, target) || under(target, member)
}

/// Names bound in `c`, and the bases of bound paths (`Data` for `Data.Speed`); a member of
/// another class bound through a pointer only as its path.
pub(super) fn bound_names(c: &Component) -> HashSet<String> {
    let mut s = HashSet::new();
    for b in &c.bindings {
        s.insert(b.member.clone());
        // Another class's member reached through a pointer (`Kit->Fuel`) is that path only: a
        // member of the component's own with the same name is not bound by it.
        if b.declared_by.is_some() {
            continue;
        }
        s.insert(b.member_name().to_string());
        if let Some(head) = b.member.split(['.', '-']).next() {
            s.insert(head.to_string());
        }
    }
    s
}
