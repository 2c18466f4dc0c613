//! The server's copies of clients' pawns (executions, verdicts, frames), the pawns it
//! controls, and proxies as a client shows them.

use std::sync::Arc;

use super::{Assembler, DumpTarget, SERVER_VERDICTS};
use crate::gmclog::line::{Role, Verbosity};
use crate::gmclog::message::{Dump, Msg, Side};
use crate::gmclog::scan::Ts;
use crate::model::telemetry::{Deviation, DisplayMode, Event, Machine, SampleKind};

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
                self.server_executed(p, file, t, frame, client, ts, delta)
            }
            Msg::IterationStarted { .. } => {
                self.pawns[p].iterations = self.pawns[p].iterations.saturating_add(1)
            }
            Msg::DumpHeader(Dump::Output) => {
                self.pawns[p].dump = DumpTarget::Output(SampleKind::Authoritative)
            }
            Msg::DumpHeader(_) => self.pawns[p].dump = DumpTarget::Ignored,
            Msg::DumpValue { name, value } => self.dump_value(p, name, value),
            Msg::NotValid { .. } => {
                if let Some(d) = self.deviation(msg) {
                    self.server_deviation(p, client, d);
                }
            }
            Msg::FailedValidation {
                side: Side::Server,
                ts,
            } => self.server_verdict(p, t, client, ts),
            Msg::ForcedUpdate { reason } => self.forced(p, t, reason),
            Msg::Notice(text) => self.notice(p, t, text, Verbosity::Warning),
            Msg::ServerReceived { .. }
            | Msg::ServerValidated { .. }
            | Msg::ServerSavedReply { .. } => self.pawns[p].dump = DumpTarget::Ignored,
            _ => {}
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
        self.pawns[p].last_verdict = None;
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

    pub(super) fn server_deviation(&mut self, p: usize, client: u16, d: Deviation) {
        match self.pawns[p].last_verdict {
            // Lines after the verdict line belong to it.
            Some(ts) => {
                let entry = self.verdicts.entry((client, ts.micros)).or_default();
                entry.push(d);
            }
            None => self.pawns[p].pending_devs.push(d),
        }
    }

    pub(super) fn server_verdict(&mut self, p: usize, t: f64, client: u16, ts: Ts) {
        let devs = std::mem::take(&mut self.pawns[p].pending_devs);
        let n = devs.len();
        self.pawns[p].last_verdict = Some(ts);
        self.verdicts.insert((client, ts.micros), devs);
        self.verdict_order.push_back((client, ts.micros));
        while self.verdict_order.len() > SERVER_VERDICTS {
            if let Some(k) = self.verdict_order.pop_front() {
                self.verdicts.remove(&k);
            }
        }
        let move_id = self.clients.entry(client).or_default().id_or_new(ts);
        self.complete_awaiting(client, ts);
        self.emit(
            t,
            Machine::Server,
            Event::CorrectionSent {
                client,
                move_id,
                deviations: u16::try_from(n).unwrap_or(u16::MAX),
            },
        );
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
