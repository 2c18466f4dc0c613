//! The server's copies of clients' pawns (executions, verdicts, frames), the pawns it
//! controls, and proxies as a client shows them.

use std::sync::Arc;

use super::{Assembler, DumpTarget, SERVER_VERDICTS};
use crate::gmclog::line::{Role, Verbosity};
use crate::gmclog::message::{Dump, Msg, Side};
use crate::gmclog::scan::Ts;
use crate::model::logged::{CheckSide, CheckedState, LoggedCheck, LoggedStage};
use crate::model::telemetry::{DisplayMode, Event, Machine, SampleKind};

impl Assembler {
    // ---- the server's copies ----

    pub(super) fn server_line(
        &mut self,
        p: usize,
        file: usize,
        t: f64,
        frame: Option<u16>,
        msg: &Msg<'_>,
    ) {
        let Some(client) = self.cast.pawns[p].client else {
            return;
        };
        match *msg {
            Msg::ServerExecuted { ts, delta } => {
                self.server_executed(p, file, t, frame, client, ts, delta);
                self.capture_server_move(p, t, LoggedStage::ServerExecuted, client, ts, delta);
            }
            Msg::ServerValidated { ts } => {
                self.verdict_missing(p, t, client);
                self.capture_server_move(p, t, LoggedStage::ServerValidated, client, ts, None);
            }
            Msg::ServerSavedReply { ts } => {
                self.verdict_missing(p, t, client);
                self.capture_server_move(p, t, LoggedStage::ServerSavedReply, client, ts, None);
            }
            Msg::IterationStarted { .. } => {
                self.pawns[p].iterations = self.pawns[p].iterations.saturating_add(1)
            }
            Msg::DumpHeader(Dump::Output) => {
                self.pawns[p].dump = DumpTarget::Output(SampleKind::Authoritative)
            }
            Msg::DumpHeader(_) => self.pawns[p].dump = DumpTarget::Ignored,
            Msg::DumpValue { name, value } => self.dump_value(p, name, value),
            Msg::NotValid { punct, .. } => {
                let d = self.deviation(msg);
                let at = self.at;
                self.pawns[p].pending.value_line(d, at, Side::Server, punct);
            }
            Msg::FailedValidation { side, ts, state } => {
                self.server_verdict(p, t, client, ts, state, side == Side::Server)
            }
            Msg::ForcedUpdate { reason } => self.forced(p, t, reason),
            Msg::Notice(text) => self.notice(p, t, text, Verbosity::Warning),
            Msg::ServerReceived { .. } => self.pawns[p].dump = DumpTarget::Ignored,
            _ => {}
        }
    }

    /// A server trace header whose dump follows.
    #[allow(clippy::too_many_arguments)]
    fn capture_server_move(
        &mut self,
        p: usize,
        t: f64,
        stage: LoggedStage,
        client: u16,
        ts: Ts,
        delta: Option<f64>,
    ) {
        self.pawns[p].current = Some(ts);
        let id = self.clients.entry(client).or_default().id_or_new(ts);
        self.begin_capture(p, t, stage, client, id, ts, delta);
        if stage != LoggedStage::ServerExecuted {
            self.pawns[p].dump = DumpTarget::Ignored;
        }
    }

    /// Per-value lines with no verdict line after them (a log cut or filtered): the move being
    /// processed failed, though no line says which state.
    fn verdict_missing(&mut self, p: usize, t: f64, client: u16) {
        if self.pawns[p].pending.is_empty() {
            return;
        }
        if let Some(ts) = self.pawns[p].current {
            self.server_verdict(p, t, client, ts, None, true);
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn server_executed(
        &mut self,
        p: usize,
        file: usize,
        t: f64,
        frame: Option<u16>,
        client: u16,
        ts: Ts,
        delta: Option<f64>,
    ) {
        self.count_server_frame(file, frame, t);
        let substeps = std::mem::take(&mut self.pawns[p].iterations);
        let pawn = self.cast.pawns[p].pawn;
        let c = self.clients.entry(client).or_default();
        let move_id = c.id_or_new(ts);
        self.emit(
            t,
            Machine::Server,
            Event::RemoteMoveExecuted(Arc::new(crate::model::telemetry::RemoteMove {
                pawn,
                client,
                move_id,
                timestamp: ts.secs(),
                delta: delta.unwrap_or(f64::NAN),
                substeps,
                age: t - ts.secs(),
            })),
        );
    }

    /// Remote moves executed per server frame, counted by the engine's frame counter.
    pub(super) fn count_server_frame(&mut self, file: usize, frame: Option<u16>, t: f64) {
        let Some(f) = frame else {
            return;
        };
        match &mut self.server_frame {
            Some((ff, cur, n)) if *ff == file && *cur == f => *n = n.saturating_add(1),
            _ => {
                self.flush_server_frame(t);
                self.server_frame = Some((file, f, 1));
            }
        }
    }

    pub fn flush_server_frame(&mut self, t: f64) {
        if let Some((_, _, n)) = self.server_frame.take() {
            self.emit(t, Machine::Server, Event::ServerFrame { remote_moves: n });
        }
    }

    /// The server's verdict on a client's move: the lines gathered for it become its check;
    /// the move's dumps around it are kept as evidence; a client's correction of the same
    /// move waiting for it learns the server found it too.
    pub(super) fn server_verdict(
        &mut self,
        p: usize,
        t: f64,
        client: u16,
        ts: Ts,
        state: Option<CheckedState>,
        servers_words: bool,
    ) {
        let mut check = std::mem::take(&mut self.pawns[p].pending);
        check.verdict_line(self.at, state);
        check.punctuation_agrees &= servers_words;
        let move_id = self.clients.entry(client).or_default().id_or_new(ts);
        for d in &mut check.deviations {
            d.move_id = move_id;
        }
        self.verdicts
            .insert((client, ts.micros), check.deviations.clone());
        self.verdict_order.push_back((client, ts.micros));
        while self.verdict_order.len() > SERVER_VERDICTS {
            if let Some(k) = self.verdict_order.pop_front() {
                self.verdicts.remove(&k);
            }
        }
        let logged = LoggedCheck {
            client,
            move_id,
            timestamp: ts.secs(),
            side: CheckSide::Server,
            state: check.state,
            deviations: check.deviations,
            lines: check.lines,
            punctuation_agrees: check.punctuation_agrees,
        };
        // GMC 1.x prints one verdict line per deviating value of a move: one check.
        if let Some((_, held)) = self.pawns[p]
            .held
            .as_mut()
            .filter(|(_, h)| h.move_id == move_id && h.client == client)
        {
            held.deviations.extend(logged.deviations);
            held.lines.extend(logged.lines);
            held.punctuation_agrees &= logged.punctuation_agrees;
            return;
        }
        self.flush_check(p);
        self.pawns[p].held = Some((t, logged));
        self.complete_awaiting(client, ts);
        self.want(client, move_id, t);
    }

    /// The server check held for more verdict lines of the same move, emitted.
    pub(super) fn flush_check(&mut self, p: usize) {
        if let Some((t, check)) = self.pawns[p].held.take() {
            self.emit(t, Machine::Server, Event::LoggedCheck(Arc::new(check)));
        }
    }

    pub(super) fn forced(&mut self, p: usize, t: f64, reason: &str) {
        let pawn = self.cast.pawns[p].pawn;
        self.emit(
            t,
            Machine::Server,
            Event::ForcedUpdate {
                pawn,
                binding: Arc::from(reason),
            },
        );
    }

    pub(super) fn local_line(&mut self, p: usize, t: f64, msg: &Msg<'_>) {
        match *msg {
            Msg::DumpHeader(Dump::Output) => {
                self.pawns[p].dump = DumpTarget::Output(SampleKind::Authoritative)
            }
            Msg::DumpHeader(_) => self.pawns[p].dump = DumpTarget::Ignored,
            Msg::DumpValue { name, value } => self.dump_value(p, name, value),
            Msg::ForcedUpdate { reason } => self.forced(p, t, reason),
            Msg::Notice(text) => self.notice(p, t, text, Verbosity::Warning),
            _ => {}
        }
    }

    // ---- proxies ----

    pub(super) fn proxy_line(&mut self, p: usize, t: f64, msg: &Msg<'_>) {
        let (m, pawn) = (self.cast.pawns[p].machine, self.cast.pawns[p].pawn);
        match *msg {
            Msg::Smoothing { extrapolating, .. } => {
                let mode = if extrapolating {
                    DisplayMode::Extrapolating
                } else {
                    DisplayMode::Interpolating
                };
                if self.pawns[p].display != Some(mode) {
                    self.pawns[p].display = Some(mode);
                    self.emit(
                        t,
                        m,
                        Event::ProxyDisplay {
                            pawn,
                            delay: f64::NAN,
                            mode,
                        },
                    );
                }
            }
            Msg::DumpHeader(_) => {
                let kind = self.cast.pawns[p].key.role;
                self.pawns[p].dump = if kind == Role::SimulatedProxy {
                    DumpTarget::Output(SampleKind::Displayed)
                } else {
                    DumpTarget::Ignored
                };
            }
            Msg::DumpValue { name, value } => self.dump_value(p, name, value),
            _ => {}
        }
    }
}
