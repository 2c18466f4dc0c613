//! Folds a telemetry stream into the run summary (`--summary-json`). The summary is a pure
//! function of the records, so the same preset and seed give the same summary.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::model::messages::MsgKind;
use crate::model::pawn::{Execution, OneShotKind};
use crate::model::telemetry::{Event, LogLevel, Machine, PacketFate, Record, Rejection, Role};

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClientSummary {
    pub id: u16,
    pub frames: u64,
    /// Distinct moves sent to the server (resends not counted).
    pub moves_sent: u64,
    /// Bytes of every datagram the client sent (moves, pings, joins; headers included).
    pub bytes_sent: u64,
    /// `bytes_sent` per second between its first and its last datagram.
    pub bytes_sent_per_s: Option<f64>,
    /// Seconds from its first to its last datagram.
    pub sending_seconds: Option<f64>,
    /// Moves sent again (unreliable batches repeat unacknowledged moves).
    pub resent_moves: u64,
    /// Datagrams that carried moves.
    pub move_datagrams: u64,
    /// Mean bits of bound values per move carried (new and repeated), the wire's measure of
    /// a binding table's "bits per move".
    pub value_bits_per_move: Option<f64>,
    pub mean_frames_per_move: Option<f64>,
    pub max_substeps: u16,
    pub corrections: u64,
    pub mean_replay_depth: Option<f64>,
    pub max_replay_depth: u16,
    /// Bound value name → number of corrections it deviated in.
    pub deviations: BTreeMap<String, u64>,
    /// One-shots raised in the client's live and combined executions.
    pub one_shot_events: u64,
    /// Cosmetic side effects played on the client (any execution).
    pub side_effects: u64,
    pub rtt_ms_mean: Option<f64>,
    /// A participant of a hosted session: the mean real round trip between it and the host
    /// (the control channel's pings; the simulated link conditions are not in it).
    pub real_rtt_ms_mean: Option<f64>,
    /// Mean of (client's synchronized clock − server clock) at the same instant.
    pub clock_offset_ms_mean: Option<f64>,
    /// Dash key presses (raw input).
    pub dash_presses: u64,
    /// Dashes the server executed for this client's pawn.
    pub server_dashes: u64,
    /// One-shots the server raised for this client's pawn.
    pub server_one_shot_events: u64,
    /// Mean server time − move timestamp of this client's moves on the server.
    pub move_age_ms_mean: Option<f64>,
    pub unreliable_sends: u64,
    /// How far in the past this client displays the other pawns (mean and max over frames).
    pub interp_delay_ms_mean: Option<f64>,
    pub interp_delay_ms_max: Option<f64>,
    /// Proxy-seconds spent extrapolating (buffer ran dry).
    pub extrapolation_seconds: f64,
    /// Proxy-frames shown without a team (spawn data missing).
    pub proxy_frames_team_unknown: u64,
    /// Dash effects this client played on other pawns (GenSimulationTick).
    pub proxy_effects: u64,
    /// Dash transitions of its own pawn the client detected.
    pub transitions_detected: u64,
    /// Dashes that tagged somebody as this client displayed them, and how many of those the
    /// server's hit check agreed with (same target).
    pub hits_claimed: u64,
    pub hits_confirmed: u64,
    /// Dashes where the server's verdict differed from the client's (either way).
    pub hit_disagreements: u64,
    /// Each time the server dropped this client and removed its pawn: when, why, and when it
    /// joined again (`None`: not before the end of the run).
    pub cut_off: Vec<CutOff>,
}

/// The server dropped a client (its pawn removed).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CutOff {
    /// Session time of the drop (s).
    pub at_s: f64,
    /// Why: "nothing heard for 5 s", "it left", …
    pub why: String,
    /// When it joined again, if it did.
    pub rejoined_at_s: Option<f64>,
}

impl ClientSummary {
    /// The client was cut off and had not joined again when the run ended.
    pub fn gone_at_end(&self) -> Option<&CutOff> {
        self.cut_off.last().filter(|c| c.rejoined_at_s.is_none())
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ServerSummary {
    pub frames: u64,
    pub remote_moves_executed: u64,
    pub local_moves_executed: u64,
    pub one_shot_events: u64,
    pub corrections_sent: u64,
    pub turret_hits: u64,
    pub max_remote_moves_per_frame: u16,
    /// Moves that never arrived in time and were skipped.
    pub moves_skipped: u64,
    /// State updates forced by a PeriodicAndOnChange value.
    pub forced_updates: u64,
    /// Listen server: how far in the past the host displays remote pawns.
    pub host_interp_delay_ms_mean: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PacketSummary {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub duplicated: u64,
    pub bytes: u64,
    /// Received datagrams dropped as duplicates (by sequence number).
    pub duplicates_dropped: u64,
    /// Received datagrams dropped because they could not be decoded.
    pub malformed: u64,
    /// Live: received datagrams dropped before the transport, by kind — not laminar's
    /// (`foreign`), from an address that is not the expected peer's (`wrong_source`), from an
    /// address the server did not admit (`unadmitted`), over a sender's rate (`rate_limited`).
    pub foreign: u64,
    pub wrong_source: u64,
    pub unadmitted: u64,
    pub rate_limited: u64,
    /// Joins refused: without the session's join secret (`forged_joins`), for a client id the
    /// session cannot have (`joins_out_of_range`), older than the client's own (`stale_joins`),
    /// or for a client joined from another address and not a newer start of it
    /// (`replayed_joins`, live).
    pub forged_joins: u64,
    pub joins_out_of_range: u64,
    pub stale_joins: u64,
    pub replayed_joins: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// "deterministic" (virtual time) or "live".
    pub mode: String,
    pub preset: String,
    pub simulated_seconds: f64,
    pub wall_seconds: f64,
    pub seed: u64,
    pub warnings: Vec<String>,
    pub errors: Vec<String>,
    pub clients: Vec<ClientSummary>,
    pub server: ServerSummary,
    pub packets: PacketSummary,
    /// Per machine ("server", "client 0", …): each pawn's role(s) there.
    pub roles: BTreeMap<String, BTreeMap<u16, Vec<Role>>>,
    /// Live sessions: telemetry records dropped because the consumer fell behind.
    pub telemetry_dropped: u64,
    /// Each machine's frame rate against the preset's (a live machine starved of CPU runs
    /// late frames, and its delays are then not the network's).
    pub frame_pacing: Vec<super::pacing::FramePacing>,
}

impl Summary {
    /// Judges every machine's frame pacing against `preset`; a machine that did not keep its
    /// frame rate gets a warning.
    pub fn judge_pacing(&mut self, preset: &crate::session::preset::Preset) {
        for p in &mut self.frame_pacing {
            p.judge(preset);
            if p.keeps_rate == Some(false) {
                self.warnings.push(format!(
                    "{} did not keep its frame rate: {:.1} of {:.0} fps, a frame gap of {:.0} ms (this computer was too busy: delays in this run are not only the network's)",
                    p.machine,
                    p.measured_fps,
                    p.target_fps.unwrap_or(0.0),
                    p.longest_gap_ms
                ));
            }
        }
    }

    /// Notes records a live session dropped (a warning and the count).
    pub fn note_dropped(&mut self, dropped: u64) {
        self.telemetry_dropped = dropped;
        if dropped > 0 {
            self.warnings.push(format!(
                "{dropped} telemetry records were dropped because the consumer fell behind"
            ));
        }
    }
}

#[derive(Default)]
struct Acc {
    s: ClientSummary,
    moves_closed: u64,
    frames_in_moves: u64,
    replay_depth_sum: u64,
    /// Corrections whose depth is known.
    replay_depths: u64,
    rtt_sum: f64,
    rtt_n: u64,
    real_rtt_sum: f64,
    real_rtt_n: u64,
    offset_sum: f64,
    offset_n: u64,
    age_sum: f64,
    age_n: u64,
    delay_sum: f64,
    delay_n: u64,
    delay_max: Option<f64>,
    /// Session times of the client's first and last sent datagram.
    sent_span: Option<(f64, f64)>,
    value_bits: u64,
}

/// Incremental summary builder: feed it every record.
#[derive(Default)]
pub struct SummaryBuilder {
    clients: BTreeMap<u16, Acc>,
    server: ServerSummary,
    packets: PacketSummary,
    logs: BTreeSet<(u8, Machine, String)>,
    log_order: Vec<(LogLevel, String)>,
    roles: BTreeMap<String, BTreeMap<u16, Vec<Role>>>,
    claims: BTreeMap<(u16, u32), Option<u16>>,
    checks: BTreeMap<(u16, u32), Option<u16>>,
    host_delay_sum: f64,
    host_delay_n: u64,
    frames: super::pacing::FrameTally,
}

fn mean(sum: f64, n: u64) -> Option<f64> {
    (n > 0).then(|| sum / n as f64)
}

impl Summary {
    /// A builder sized for a preset's clients.
    pub fn default_builder(preset: &crate::session::preset::Preset) -> SummaryBuilder {
        SummaryBuilder::for_clients(preset.network_clients())
    }
}

impl SummaryBuilder {
    pub fn new(clients: u16) -> Self {
        Self::for_clients(0..clients)
    }

    /// A builder that lists exactly these clients (more appear if their events do).
    pub fn for_clients(ids: impl IntoIterator<Item = u16>) -> Self {
        let mut b = SummaryBuilder::default();
        for id in ids {
            b.client(id);
        }
        b
    }

    fn client(&mut self, id: u16) -> &mut Acc {
        self.clients.entry(id).or_insert_with(|| Acc {
            s: ClientSummary {
                id,
                ..Default::default()
            },
            ..Default::default()
        })
    }

    pub fn record(&mut self, r: &Record) {
        if let Event::Frame { .. } = r.event {
            self.frames.frame(r.machine, r.t);
        }
        match (&r.machine, &r.event) {
            (
                _,
                Event::Packet {
                    bytes,
                    fate,
                    from,
                    kind,
                    ..
                },
            ) => match fate {
                PacketFate::Sent => {
                    self.packets.sent += 1;
                    self.packets.bytes += u64::from(*bytes);
                    if let Machine::Client(c) = from {
                        let a = self.client(*c);
                        a.s.bytes_sent += u64::from(*bytes);
                        if *kind == MsgKind::Moves {
                            a.s.move_datagrams += 1;
                        }
                        a.sent_span = Some(a.sent_span.map_or((r.t, r.t), |(t0, _)| (t0, r.t)));
                    }
                }
                PacketFate::Delivered => self.packets.delivered += 1,
                PacketFate::Dropped => self.packets.dropped += 1,
                PacketFate::Duplicated => self.packets.duplicated += 1,
            },
            (_, Event::Rejected { reason }) => match reason {
                Rejection::Duplicate => self.packets.duplicates_dropped += 1,
                Rejection::Malformed(_) => self.packets.malformed += 1,
                Rejection::Foreign => self.packets.foreign += 1,
                Rejection::WrongSource => self.packets.wrong_source += 1,
                Rejection::Unadmitted => self.packets.unadmitted += 1,
                Rejection::RateLimited => self.packets.rate_limited += 1,
                Rejection::ForgedJoin => self.packets.forged_joins += 1,
                Rejection::ClientIdOutOfRange => self.packets.joins_out_of_range += 1,
                Rejection::StaleJoin => self.packets.stale_joins += 1,
                Rejection::ReplayedJoin => self.packets.replayed_joins += 1,
            },
            (m, Event::Role { pawn, role }) => {
                let roles = self
                    .roles
                    .entry(m.to_string())
                    .or_default()
                    .entry(*pawn)
                    .or_default();
                if !roles.contains(role) {
                    roles.push(*role);
                }
            }
            (m, Event::Log { level, text }) => {
                let key = (*level as u8, *m, text.clone());
                if self.logs.insert(key) {
                    self.log_order.push((*level, format!("{m}: {text}")));
                }
            }
            (Machine::Server, Event::ClientDropped { client, why }) => {
                self.client(*client).s.cut_off.push(CutOff {
                    at_s: r.t,
                    why: why.clone(),
                    rejoined_at_s: None,
                });
            }
            (Machine::Server, Event::Joined { client, .. }) => {
                if let Some(c) = self.client(*client).s.cut_off.last_mut()
                    && c.rejoined_at_s.is_none()
                {
                    c.rejoined_at_s = Some(r.t);
                }
            }
            (Machine::Server, e) => self.server_event(e),
            (Machine::Client(id), e) => {
                let id = *id;
                self.client_event(id, e);
            }
        }
    }

    fn server_event(&mut self, e: &Event) {
        match e {
            Event::Frame { .. } => self.server.frames += 1,
            Event::RemoteMoveExecuted(x) => {
                let crate::model::telemetry::RemoteMove { client, age, .. } = &**x;
                self.server.remote_moves_executed += 1;
                let a = self.client(*client);
                a.age_sum += age * 1000.0;
                a.age_n += 1;
            }
            Event::LocalMoveExecuted { .. } => self.server.local_moves_executed += 1,
            Event::ServerFrame { remote_moves } => {
                self.server.max_remote_moves_per_frame =
                    self.server.max_remote_moves_per_frame.max(*remote_moves);
            }
            Event::OneShot { owner, kind, .. } => {
                self.server.one_shot_events += 1;
                if let Some(c) = owner {
                    let a = self.client(*c);
                    a.s.server_one_shot_events += 1;
                    if *kind == OneShotKind::DashFired {
                        a.s.server_dashes += 1;
                    }
                }
            }
            Event::CorrectionSent { .. } => self.server.corrections_sent += 1,
            Event::TurretHit { .. } => self.server.turret_hits += 1,
            Event::ForcedUpdate { .. } => self.server.forced_updates += 1,
            Event::HitCheck {
                client,
                move_id,
                target,
                ..
            } => {
                self.checks.insert((*client, *move_id), *target);
            }
            Event::ProxiesDisplayed(x) => {
                let crate::model::telemetry::ProxiesDisplayed {
                    delay_mean, frames, ..
                } = &**x;
                self.host_delay_sum += delay_mean * 1000.0 * f64::from(*frames);
                self.host_delay_n += u64::from(*frames);
            }
            Event::MovesSkipped { from, to, .. } => {
                self.server.moves_skipped += u64::from(to - from + 1);
            }
            _ => {}
        }
    }

    fn client_event(&mut self, id: u16, e: &Event) {
        let a = self.client(id);
        match e {
            Event::Frame { .. } => a.s.frames += 1,
            Event::DashPressed => a.s.dash_presses += 1,
            Event::MoveClosed {
                frames, substeps, ..
            } => {
                a.moves_closed += 1;
                a.frames_in_moves += u64::from(*frames);
                a.s.max_substeps = a.s.max_substeps.max(*substeps);
            }
            Event::MovesSent {
                new_moves,
                resent_moves,
                reliable,
                value_bits,
                ..
            } => {
                a.s.moves_sent += u64::from(*new_moves);
                a.s.resent_moves += u64::from(*resent_moves);
                a.value_bits += u64::from(*value_bits);
                if !reliable {
                    a.s.unreliable_sends += 1;
                }
            }
            Event::Correction {
                deviations,
                replay_depth,
                ..
            } => {
                a.s.corrections += 1;
                // A game log may not say a correction's depth: it counts for neither figure.
                if *replay_depth != crate::model::telemetry::REPLAY_DEPTH_UNKNOWN {
                    a.replay_depth_sum += u64::from(*replay_depth);
                    a.replay_depths += 1;
                    a.s.max_replay_depth = a.s.max_replay_depth.max(*replay_depth);
                }
                let names: BTreeSet<&str> = deviations.iter().map(|d| &*d.binding).collect();
                for n in names {
                    *a.s.deviations.entry(n.to_string()).or_default() += 1;
                }
            }
            Event::OneShot { exec, .. } => {
                if matches!(exec, Execution::Live | Execution::Combined) {
                    a.s.one_shot_events += 1;
                }
            }
            Event::SideEffect { .. } => a.s.side_effects += 1,
            Event::ProxiesDisplayed(x) => {
                let crate::model::telemetry::ProxiesDisplayed {
                    proxies,
                    paused,
                    delay_mean,
                    delay_max,
                    extrapolation_seconds,
                    team_unknown_frames,
                    frames,
                } = &**x;
                if *proxies > *paused && *frames > 0 {
                    a.delay_sum += delay_mean * 1000.0 * f64::from(*frames);
                    a.delay_n += u64::from(*frames);
                    let m = delay_max * 1000.0;
                    a.delay_max = Some(a.delay_max.map_or(m, |x| x.max(m)));
                }
                a.s.extrapolation_seconds += extrapolation_seconds;
                a.s.proxy_frames_team_unknown += u64::from(*team_unknown_frames);
            }
            Event::ProxyEffect { .. } => a.s.proxy_effects += 1,
            Event::TransitionDetected { .. } => a.s.transitions_detected += 1,
            Event::HitClaim { move_id, target } => {
                self.claims.insert((id, *move_id), *target);
            }
            Event::Rtt { rtt } => {
                a.rtt_sum += rtt * 1000.0;
                a.rtt_n += 1;
            }
            Event::RealRtt { rtt } => {
                a.real_rtt_sum += rtt * 1000.0;
                a.real_rtt_n += 1;
            }
            Event::ClockOffset { offset } => {
                a.offset_sum += offset * 1000.0;
                a.offset_n += 1;
            }
            _ => {}
        }
    }

    pub fn finish(
        mut self,
        mode: &str,
        preset: &str,
        seed: u64,
        simulated_seconds: f64,
        wall_seconds: f64,
    ) -> Summary {
        for ((client, move_id), claim) in &self.claims {
            let Some(check) = self.checks.get(&(*client, *move_id)) else {
                continue; // never executed (end of run)
            };
            if let Some(a) = self.clients.get_mut(client) {
                if claim.is_some() {
                    a.s.hits_claimed += 1;
                    if check == claim {
                        a.s.hits_confirmed += 1;
                    }
                }
                if check != claim {
                    a.s.hit_disagreements += 1;
                }
            }
        }
        let clients: Vec<ClientSummary> = self
            .clients
            .into_values()
            .map(|a| {
                let mut s = a.s;
                s.mean_frames_per_move = mean(a.frames_in_moves as f64, a.moves_closed);
                s.sending_seconds = a
                    .sent_span
                    .filter(|(t0, t1)| t1 > t0)
                    .map(|(t0, t1)| t1 - t0);
                s.value_bits_per_move = mean(a.value_bits as f64, s.moves_sent + s.resent_moves);
                s.bytes_sent_per_s = s.sending_seconds.map(|d| s.bytes_sent as f64 / d);
                s.mean_replay_depth = mean(a.replay_depth_sum as f64, a.replay_depths);
                s.rtt_ms_mean = mean(a.rtt_sum, a.rtt_n);
                s.real_rtt_ms_mean = mean(a.real_rtt_sum, a.real_rtt_n);
                s.clock_offset_ms_mean = mean(a.offset_sum, a.offset_n);
                s.move_age_ms_mean = mean(a.age_sum, a.age_n);
                s.interp_delay_ms_mean = mean(a.delay_sum, a.delay_n);
                s.interp_delay_ms_max = a.delay_max;
                s
            })
            .collect();
        let (mut warnings, mut errors) = (Vec::new(), Vec::new());
        for (level, text) in self.log_order {
            match level {
                LogLevel::Warning => warnings.push(text),
                LogLevel::Error => errors.push(text),
            }
        }
        for c in &clients {
            if let Some(gone) = ClientSummary::gone_at_end(c) {
                warnings.push(format!(
                    "client {} was cut off at {:.1} s ({}) and had not joined again when the run ended",
                    c.id, gone.at_s, gone.why
                ));
            }
        }
        let mut server = self.server;
        server.host_interp_delay_ms_mean = mean(self.host_delay_sum, self.host_delay_n);
        Summary {
            roles: self.roles,
            mode: mode.to_string(),
            preset: preset.to_string(),
            simulated_seconds,
            wall_seconds,
            seed,
            warnings,
            errors,
            clients,
            server,
            packets: self.packets,
            telemetry_dropped: 0,
            frame_pacing: self.frames.finish(),
        }
    }
}
