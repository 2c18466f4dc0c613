//! A session's effective [`Settings`] and [`Settings::plan`]: validating a command against
//! them, changing them, and saying what each machine must be told and what `SessionChanged`
//! text to record (the settings' differences, in words); also the commands that bring a
//! session to another preset.

use std::sync::Arc;

use super::command::{Command, CommandError, MAX_CLIENTS, Outcome, invalid, restart_keys};
use super::diff;
use super::machine::{MachineCmd, To};
use crate::conditions::link::LinkParams;
use crate::model::binding::Bindings;
use crate::model::settings::Faults;
use crate::session::preset::{BindingsError, Direction, LinkOverride, Preset};

/// What a command means for the session, once validated: what to tell which machine, its
/// outcome, and the `SessionChanged` text to record (`None`: not a change of the session).
#[derive(Debug)]
pub struct Planned {
    pub sends: Vec<(To, MachineCmd)>,
    /// Restart the server and every client with the session's binding layouts (a binding
    /// list change: GMC binds once per pawn, so a new list means new pawns everywhere).
    pub respawn: bool,
    pub outcome: Outcome,
    pub change: Option<String>,
}

/// The settings a running session has: its effective preset (every change applied) and its
/// binding layouts. Both drivers keep one and change it only through [`Settings::plan`].
#[derive(Clone, Debug)]
pub struct Settings {
    preset: Preset,
    layout_version: u8,
    /// The binding list the session started with (layout version 0).
    initial_bindings: Arc<Bindings>,
    /// The list clients start with (differs only under `faults.binding_mismatch`).
    client_bindings: Arc<Bindings>,
    /// Layouts defined since, in order: (version, list, selected). Unselected entries are
    /// client-only redefinitions (the pitfall).
    client_layouts: Vec<(u8, Arc<Bindings>, bool)>,
}

impl Settings {
    /// The settings of a session starting with `preset` (validated).
    pub fn new(preset: &Preset) -> Result<Settings, BindingsError> {
        Ok(Settings {
            initial_bindings: Arc::new(preset.checked_bindings()?),
            client_bindings: Arc::new(preset.client_bindings()?),
            preset: preset.clone(),
            layout_version: 0,
            client_layouts: Vec::new(),
        })
    }

    /// The preset as the session runs it now.
    pub fn preset(&self) -> &Preset {
        &self.preset
    }

    /// The binding list the session started with (layout version 0 on the server).
    pub fn initial_bindings(&self) -> &Arc<Bindings> {
        &self.initial_bindings
    }

    /// The list a (re)started client makes first.
    pub fn client_bindings(&self) -> &Arc<Bindings> {
        &self.client_bindings
    }

    /// The layouts a (re)started client must define, in order (version, list, select).
    pub fn client_layouts(&self) -> &[(u8, Arc<Bindings>, bool)] {
        &self.client_layouts
    }

    /// The layouts a restarted server must define, in order.
    pub fn server_layouts(&self) -> Vec<(u8, Arc<Bindings>)> {
        self.client_layouts
            .iter()
            .filter(|(_, _, consistent)| *consistent)
            .map(|(v, b, _)| (*v, b.clone()))
            .collect()
    }

    /// The binding list the server uses now: the newest consistent binding change, or the
    /// list the session started with.
    pub fn bindings(&self) -> Arc<Bindings> {
        self.client_layouts
            .iter()
            .rev()
            .find(|(_, _, consistent)| *consistent)
            .map_or_else(|| self.initial_bindings.clone(), |(_, b, _)| b.clone())
    }

    /// The preset with `edit` applied, validated like a preset file.
    fn validated(&self, edit: impl FnOnce(&mut Preset)) -> Result<Preset, CommandError> {
        let mut p = self.preset.clone();
        edit(&mut p);
        p.validate().map_err(invalid)?;
        Ok(p)
    }

    /// The id `AddClient` gives the next client.
    pub fn next_client_id(clients: &[u16]) -> u16 {
        clients.iter().max().map_or(0, |k| k + 1)
    }

    /// Validates `cmd` against the session (its `clients`), changes the settings it changes,
    /// and says what each machine must be told and what to record. Lifecycle commands
    /// (adding, removing, restarting machines; pausing) change no setting: the driver does
    /// them after this said they are valid.
    pub fn plan(&mut self, cmd: &Command, clients: &[u16]) -> Result<Planned, CommandError> {
        let (before, bindings_before) = (self.preset.clone(), self.bindings());
        let Applied {
            sends,
            respawn,
            outcome,
            new_bindings,
            what,
        } = self.apply(cmd, clients)?;
        let Some(what) = what else {
            return Ok(Planned {
                sends,
                respawn,
                outcome,
                change: None,
            });
        };
        let mut diff = match cmd {
            Command::SetLink {
                client, direction, ..
            } => diff::link_diff(&before, &self.preset, *client, *direction),
            _ => diff::preset_diff(&before, &self.preset),
        };
        // A binding change, or a pitfall switch that changed the binding list.
        let now_bindings = new_bindings.unwrap_or_else(|| self.bindings());
        diff.extend(diff::bindings_diff(&bindings_before, &now_bindings));
        let Some(text) = diff::change_text(what, &diff) else {
            // Set to what it was.
            return Ok(Planned {
                sends,
                respawn: false,
                outcome: Outcome::NoChange,
                change: None,
            });
        };
        Ok(Planned {
            sends,
            respawn,
            outcome,
            change: Some(text),
        })
    }

    /// Validates `cmd` and changes the settings it changes: one function per command that
    /// does more than set one value.
    fn apply(&mut self, cmd: &Command, clients: &[u16]) -> Result<Applied, CommandError> {
        Ok(match cmd {
            Command::SetLink {
                client,
                direction,
                params,
            } => self.set_link(*client, *direction, params, clients)?,
            Command::SetGmc(g) => {
                if g.use_client_prediction != self.preset.gmc.use_client_prediction {
                    return Err(invalid((
                        "gmc.use_client_prediction".into(),
                        "changed only with a new session (the owner's role is set up with its pawn)"
                            .into(),
                    )));
                }
                self.preset = self.validated(|p| p.gmc = *g)?;
                Applied::told(To::Everyone, MachineCmd::Gmc(*g))
            }
            Command::SetFaults(f) => self.set_faults(f)?,
            Command::SetWorld(w) => {
                self.preset = self.validated(|p| p.world = w.clone())?;
                Applied::told(To::Server, MachineCmd::World(w.clone()))
            }
            Command::SetSmoothing(sm) => {
                self.preset = self.validated(|p| p.smoothing = *sm)?;
                Applied::told(To::Everyone, MachineCmd::Smoothing(*sm))
            }
            Command::SetNetUpdateRate(rate) => {
                self.preset = self.validated(|p| p.net_update_rate = *rate)?;
                Applied::told(To::Server, MachineCmd::NetUpdateRate(*rate))
            }
            Command::SetClientFrameRate { fps, jitter } => {
                self.set_frame_rate(*fps, *jitter, clients)?
            }
            Command::HookTrace(on) => {
                self.preset.hook_trace = *on;
                Applied::told(To::Everyone, MachineCmd::HookTrace(*on))
            }
            Command::ValueTrace(on) => {
                self.preset.value_trace = *on;
                Applied::told(To::Everyone, MachineCmd::ValueTrace(*on))
            }
            Command::BufferTrace(on) => {
                self.preset.buffer_trace = *on;
                Applied::told(To::Everyone, MachineCmd::BufferTrace(*on))
            }
            Command::ChangeBindings {
                bindings,
                consistent,
            } => self.change_bindings(bindings, *consistent)?,
            Command::AddClient
            | Command::RemoveClient(_)
            | Command::RestartClient(_)
            | Command::RestartServer
            | Command::Drive { .. }
            | Command::Pause
            | Command::Resume => lifecycle(cmd, clients)?,
        })
    }

    /// One client's link: remembered as an override, so restarted machines get it too. It
    /// replaces the overrides it covers, so dragging a slider does not pile them up.
    fn set_link(
        &mut self,
        client: u16,
        direction: Direction,
        params: &LinkParams,
        clients: &[u16],
    ) -> Result<Applied, CommandError> {
        params
            .validate()
            .map_err(|(f, e)| invalid((format!("link.{f}"), e)))?;
        known(clients, client)?;
        self.preset.link_overrides.retain(|o| {
            o.client != client || !(direction == Direction::Both || o.direction == direction)
        });
        self.preset.link_overrides.push(LinkOverride {
            client,
            direction,
            link: params.clone(),
        });
        let mut sends = Vec::new();
        if matches!(direction, Direction::Up | Direction::Both) {
            sends.push((To::Client(client), MachineCmd::UpLink(params.clone())));
        }
        if matches!(direction, Direction::Down | Direction::Both) {
            sends.push((
                To::Server,
                MachineCmd::DownLink {
                    client,
                    params: params.clone(),
                },
            ));
        }
        Ok(Applied {
            sends,
            what: Some(format!("client {client} link")),
            ..Applied::said(None)
        })
    }

    /// The pitfall switches. Binding mistakes change the binding list: the session switches to
    /// the list the new switches make, at the next move boundary, everywhere. Any switch whose
    /// list differs is one (compared, not enumerated: a new binding mistake cannot be
    /// forgotten here).
    fn set_faults(&mut self, f: &Faults) -> Result<Applied, CommandError> {
        let old = &self.preset.faults;
        // The clients' own list differs from the server's under binding_mismatch.
        let mismatch_switch = f.binding_mismatch != old.binding_mismatch;
        let p = self.validated(|p| p.faults = f.clone())?;
        let new_list = p.checked_bindings()?;
        let list = (new_list != self.preset.checked_bindings()?).then_some(new_list);
        let client_list = if mismatch_switch {
            Some(p.client_bindings()?)
        } else {
            None
        };
        self.preset.faults = f.clone();
        let mut applied = Applied::told(To::Everyone, MachineCmd::Faults(f.clone()));
        if let Some(list) = list {
            // A member bound or unbound is a new build: new pawns everywhere.
            self.define_layout(list, true)?;
            applied.respawn = true;
            applied.outcome = Outcome::Respawned;
        }
        if let Some(cl) = client_list {
            // The clients bind another order (or the server's again), as the pitfall's build
            // does; the server keeps its list.
            if applied.respawn {
                self.define_layout(cl, false)?;
            } else {
                applied.sends.extend(self.define_layout(cl, false)?);
                applied.outcome = Outcome::AtNextMoveBoundary;
            }
        }
        Ok(applied)
    }

    /// The clients' frame rate: each client is told its own (the jitter differs per client).
    fn set_frame_rate(
        &mut self,
        fps: f64,
        jitter: f64,
        clients: &[u16],
    ) -> Result<Applied, CommandError> {
        self.preset = self.validated(|p| {
            p.client_fps = fps;
            p.client_fps_jitter = jitter;
        })?;
        let mut applied = Applied::said(Some(String::new()));
        for &id in clients {
            let (fps, jitter) = crate::session::setup::frame_rate(&self.preset, id);
            applied
                .sends
                .push((To::Client(id), MachineCmd::FrameRate { fps, jitter }));
        }
        Ok(applied)
    }

    /// A new binding list: no change when it is the list the session binds already; a new
    /// build (every pawn respawned) when consistent; else the clients' own redefinition (the
    /// binding-mismatch pitfall) at their next move boundary.
    fn change_bindings(
        &mut self,
        bindings: &Bindings,
        consistent: bool,
    ) -> Result<Applied, CommandError> {
        if consistent && *bindings == *self.bindings() {
            // The list the session binds already: no new build.
            return Ok(Applied {
                outcome: Outcome::NoChange,
                ..Applied::said(None)
            });
        }
        if consistent {
            // The preset keeps the list as overrides of the demo pawn's bindings, so saving
            // it or restarting keeps the change.
            self.preset.set_binding_list(bindings.list());
        }
        let define = self.define_layout(bindings.clone(), consistent)?;
        let mut applied = Applied::said(Some(
            if consistent {
                "binding list changed: every pawn respawned with it on the server and every \
                 client (a new build)"
            } else {
                "binding list changed on the clients only (the binding-mismatch pitfall)"
            }
            .to_string(),
        ));
        if consistent {
            // Bindings are made once per pawn: the restarted machines define it.
            applied.respawn = true;
            applied.outcome = Outcome::Respawned;
        } else {
            applied.sends = define;
            applied.outcome = Outcome::AtNextMoveBoundary;
        }
        applied.new_bindings = Some(Arc::new(bindings.clone()));
        Ok(applied)
    }

    /// A new binding list. Consistent: the server and every client define it as the next
    /// layout version and switch at their next move boundary. Not consistent: the clients
    /// redefine the current version (the binding-mismatch pitfall).
    fn define_layout(
        &mut self,
        bindings: Bindings,
        consistent: bool,
    ) -> Result<Vec<(To, MachineCmd)>, CommandError> {
        let b = Arc::new(bindings);
        if consistent {
            self.layout_version = self
                .layout_version
                .checked_add(1)
                .ok_or(CommandError::TooManyLayouts)?;
        }
        let version = self.layout_version;
        self.client_layouts.push((version, b.clone(), consistent));
        let define = MachineCmd::DefineLayout {
            version,
            bindings: b,
            select: consistent,
        };
        Ok(if consistent {
            vec![(To::Everyone, define)]
        } else {
            vec![(To::Clients, define)]
        })
    }

    /// The commands that bring the session to `target`'s settings, or the restart-only
    /// settings that differ (then nothing may be applied). The one place that decides what
    /// may change live.
    pub fn commands_to(
        &self,
        target: &Preset,
        clients: &[u16],
    ) -> Result<Result<Vec<Command>, Vec<String>>, CommandError> {
        target.validate().map_err(invalid)?;
        let restart = restart_keys(&self.preset, target);
        if !restart.is_empty() {
            return Ok(Err(restart));
        }
        let p = &self.preset;
        let mut cmds = Vec::new();
        if target.faults != p.faults {
            cmds.push(Command::SetFaults(target.faults.clone()));
        }
        if target.bindings != p.bindings || target.component != p.component {
            let bindings = target.checked_bindings()?;
            cmds.push(Command::ChangeBindings {
                bindings: Box::new(bindings),
                consistent: true,
            });
        }
        for &client in clients {
            let (up, down) = (
                target.link_params(client, true),
                target.link_params(client, false),
            );
            let (now_up, now_down) = (p.link_params(client, true), p.link_params(client, false));
            if up == down && (up != now_up || down != now_down) {
                cmds.push(Command::SetLink {
                    client,
                    direction: Direction::Both,
                    params: up,
                });
                continue;
            }
            if up != now_up {
                cmds.push(Command::SetLink {
                    client,
                    direction: Direction::Up,
                    params: up,
                });
            }
            if down != now_down {
                cmds.push(Command::SetLink {
                    client,
                    direction: Direction::Down,
                    params: down,
                });
            }
        }
        if target.smoothing != p.smoothing {
            cmds.push(Command::SetSmoothing(target.smoothing));
        }
        if target.world != p.world {
            cmds.push(Command::SetWorld(target.world.clone()));
        }
        if target.gmc != p.gmc {
            cmds.push(Command::SetGmc(target.gmc));
        }
        if target.net_update_rate != p.net_update_rate {
            cmds.push(Command::SetNetUpdateRate(target.net_update_rate));
        }
        if (target.client_fps, target.client_fps_jitter) != (p.client_fps, p.client_fps_jitter) {
            cmds.push(Command::SetClientFrameRate {
                fps: target.client_fps,
                jitter: target.client_fps_jitter,
            });
        }
        if target.hook_trace != p.hook_trace {
            cmds.push(Command::HookTrace(target.hook_trace));
        }
        if target.value_trace != p.value_trace {
            cmds.push(Command::ValueTrace(target.value_trace));
        }
        if target.buffer_trace != p.buffer_trace {
            cmds.push(Command::BufferTrace(target.buffer_trace));
        }
        Ok(Ok(cmds))
    }

    /// After [`Self::commands_to`]'s commands ran: the effective links equal the target's, so
    /// keep its base link and overrides; names and lesson material change nothing that runs.
    pub fn adopt(&mut self, target: &Preset) {
        self.preset.link = target.link.clone();
        self.preset.link_overrides = target.link_overrides.clone();
        self.preset.title = target.title.clone();
        self.preset.description = target.description.clone();
        self.preset.lesson = target.lesson.clone();
        self.preset.seconds = target.seconds;
    }
}

/// What a command did to the settings, before its change is put in words.
struct Applied {
    sends: Vec<(To, MachineCmd)>,
    respawn: bool,
    outcome: Outcome,
    /// The binding list the command switched the session to, when it gave one.
    new_bindings: Option<Arc<Bindings>>,
    /// The change's own words (empty: the settings' differences say it); `None`: not a change
    /// of the session.
    what: Option<String>,
}

impl Applied {
    /// A setting changed now, told to `to` as `cmd` and said by the settings' differences.
    fn told(to: To, cmd: MachineCmd) -> Applied {
        Applied {
            sends: vec![(to, cmd)],
            ..Applied::said(Some(String::new()))
        }
    }

    /// Applied now with nothing told: `what` says the change, if it is one.
    fn said(what: Option<String>) -> Applied {
        Applied {
            sends: Vec::new(),
            respawn: false,
            outcome: Outcome::AppliedNow,
            new_bindings: None,
            what,
        }
    }
}

/// `client` is one of the session's `clients`, or the error that says it is not.
fn known(clients: &[u16], client: u16) -> Result<(), CommandError> {
    if clients.contains(&client) {
        Ok(())
    } else {
        Err(CommandError::NoSuchClient(client))
    }
}

/// A lifecycle command (adding, removing, restarting machines; driving; pausing), validated:
/// the change it records (`None`: none) and, for driving, the input for the client.
fn lifecycle(cmd: &Command, clients: &[u16]) -> Result<Applied, CommandError> {
    let what = match cmd {
        Command::AddClient => {
            let id = Settings::next_client_id(clients);
            if id >= MAX_CLIENTS {
                return Err(CommandError::TooManyClients);
            }
            Some(format!("client {id} added"))
        }
        Command::RemoveClient(id) => {
            known(clients, *id)?;
            Some(format!("client {id} removed"))
        }
        Command::RestartClient(id) => {
            known(clients, *id)?;
            Some(format!("client {id} restarted (it rejoins)"))
        }
        Command::RestartServer => Some("server restarted (clients rejoin)".to_string()),
        Command::Drive { client, input } => {
            known(clients, *client)?;
            return Ok(Applied {
                sends: vec![(To::Client(*client), MachineCmd::Drive(*input))],
                ..Applied::said(None)
            });
        }
        _ => None,
    };
    Ok(Applied::said(what))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::settings::Faults;

    fn settings() -> Settings {
        Settings::new(&Preset::default()).unwrap()
    }

    /// Every switch that changes the server's binding list, toggled in a running session,
    /// defines the new list (new pawns everywhere); the others leave the layout alone. Found
    /// by comparing lists: "Derived value bound as input" was once left out of a hand-kept
    /// list of binding switches, and "Do it" in its lesson changed nothing.
    #[test]
    fn every_switch_that_changes_the_binding_list_defines_it_live() {
        for (i, (key, _)) in Faults::EXPLAINED.iter().enumerate() {
            let mut s = settings();
            let before = s.preset().checked_bindings().unwrap();
            let mut p = s.preset().clone();
            p.set(&format!("faults.{key}={}", !s.preset().faults.is_on(i)))
                .unwrap();
            let changes_list = p.checked_bindings().unwrap() != before;
            let planned = s
                .plan(&Command::SetFaults(p.faults.clone()), &[0, 1])
                .unwrap();
            assert_eq!(
                planned.outcome == Outcome::Respawned,
                changes_list,
                "{key}: the list {} change",
                if changes_list { "does" } else { "does not" }
            );
            if changes_list {
                assert_eq!(*s.bindings(), p.checked_bindings().unwrap(), "{key}");
            }
        }
    }

    /// "Bindings differ by side" toggled in a running session: the clients get the other
    /// list (and the server's again when it is switched off); the server keeps its own.
    #[test]
    fn the_binding_mismatch_switch_changes_the_clients_list_live() {
        // The lists a plan defines for the clients only.
        fn to_clients(p: &Planned) -> Vec<Bindings> {
            p.sends
                .iter()
                .filter_map(|(to, c)| match c {
                    MachineCmd::DefineLayout { bindings, .. } if *to == To::Clients => {
                        Some((**bindings).clone())
                    }
                    _ => None,
                })
                .collect()
        }
        let mut s = settings();
        let server: Bindings = (*s.bindings()).clone();
        let mut f = s.preset().faults.clone();
        f.binding_mismatch = true;
        let planned = s.plan(&Command::SetFaults(f.clone()), &[0, 1]).unwrap();
        assert_eq!(planned.outcome, Outcome::AtNextMoveBoundary);
        let defined = to_clients(&planned);
        assert_eq!(defined.len(), 1, "one list, to the clients only");
        assert_ne!(defined[0], server, "the clients bind another order");
        assert_eq!(*s.bindings(), server, "the server keeps its list");
        f.binding_mismatch = false;
        let planned = s.plan(&Command::SetFaults(f), &[0, 1]).unwrap();
        assert_eq!(
            to_clients(&planned),
            vec![server],
            "switched off: the server's list again"
        );
    }

    #[test]
    fn a_refused_command_changes_nothing() {
        let mut s = settings();
        let before = s.preset().clone();
        let mut g = before.gmc;
        g.client_send_rate = f64::NAN;
        let e = s.plan(&Command::SetGmc(g), &[0, 1, 2]).unwrap_err();
        assert!(
            matches!(e, CommandError::Invalid { ref key, .. } if key == "gmc.client_send_rate")
        );
        assert_eq!(s.preset(), &before);
        assert_eq!(
            s.plan(&Command::RemoveClient(7), &[0]).unwrap_err(),
            CommandError::NoSuchClient(7)
        );
    }

    #[test]
    fn a_binding_override_that_cannot_apply_is_refused_by_its_key() {
        let s = settings();
        let mut target = s.preset().clone();
        target
            .bindings
            .push(crate::session::preset::BindingOverride {
                name: "nose".into(),
                ..Default::default()
            });
        let e = s.commands_to(&target, &[0]).unwrap_err();
        assert!(
            matches!(&e, CommandError::Invalid { key, .. } if key == "bindings.0.name"),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .starts_with("refused: `bindings.0.name`: expected one of"),
            "{e}"
        );
    }

    #[test]
    fn a_trace_change_is_recorded_by_the_trace_s_name_not_its_samples() {
        let mut s = settings();
        let mut l = s.preset().link_params(0, true);
        l.trace = Some(Arc::new(crate::conditions::trace::Trace {
            source: "wifi.txt".into(),
            samples: (0..1000).map(|i| (f64::from(i), Some(40.0))).collect(),
        }));
        let p = s
            .plan(
                &Command::SetLink {
                    client: 0,
                    direction: crate::session::preset::Direction::Both,
                    params: l,
                },
                &[0],
            )
            .unwrap();
        let text = p.change.expect("recorded");
        assert!(text.contains("none -> the trace wifi.txt"), "{text}");
        assert!(text.len() < 300, "{text}");
    }

    #[test]
    fn setting_a_value_to_itself_is_no_change_and_not_recorded() {
        let mut s = settings();
        let g = s.preset().gmc;
        let p = s.plan(&Command::SetGmc(g), &[0]).unwrap();
        assert_eq!(p.outcome, Outcome::NoChange);
        assert!(p.change.is_none());
    }

    #[test]
    fn a_binding_pitfall_switch_respawns_every_pawn_with_a_new_layout() {
        let mut s = settings();
        let mut f = s.preset().faults.clone();
        f.unbound_member = true;
        let p = s.plan(&Command::SetFaults(f), &[0]).unwrap();
        assert_eq!(p.outcome, Outcome::Respawned);
        assert!(p.respawn);
        // No machine's layout is swapped under a running pawn: the restarted machines bind
        // the new list.
        assert!(
            !p.sends
                .iter()
                .any(|(_, c)| matches!(c, MachineCmd::DefineLayout { .. }))
        );
        assert_eq!(s.server_layouts().last().map(|(v, _)| *v), Some(1));
        assert!(s.bindings().by_name("move_ramp").is_none());
        let text = p.change.unwrap();
        assert!(
            text.contains("faults.unbound_member: false -> true"),
            "{text}"
        );
        assert!(text.contains("binding move_ramp removed"), "{text}");
    }
}
