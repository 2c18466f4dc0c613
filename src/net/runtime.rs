//! What every live machine thread shares: the pausable session clock, the bounded telemetry
//! channel (drops the oldest when full, counted), the command channel and worker handle, the
//! panic guard that turns a dead thread into an error record, and the readiness wait.

use crate::model::telemetry::{Event, LogLevel, Machine, Record};
use crate::net::transport::Endpoint;
use crate::session::control::MachineCmd;
use crossbeam_channel::{Receiver, Sender, TrySendError, bounded};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Records the telemetry channel holds before the oldest are dropped.
pub const TELEMETRY_CAPACITY: usize = 1 << 16;
/// Commands a thread's channel holds.
pub(crate) const COMMAND_CAPACITY: usize = 256;

/// Session time shared by every thread: wall time since the session started, minus pauses.
#[derive(Debug)]
pub struct SessionClock {
    pub(crate) epoch: Instant,
    pub(crate) paused_total_ns: AtomicU64,
    /// Wall nanoseconds since epoch at which the current pause began; 0 when running.
    pub(crate) pause_started_ns: AtomicU64,
    /// Session time (f64 bits) at which the current server started its world clock.
    pub(crate) server_start: AtomicU64,
    /// False on a participant until the host's first ping said the server's time (its
    /// clock-offset samples wait for it).
    pub(crate) server_known: AtomicBool,
}

impl SessionClock {
    pub fn new() -> Self {
        SessionClock {
            epoch: Instant::now(),
            paused_total_ns: AtomicU64::new(0),
            pause_started_ns: AtomicU64::new(0),
            server_start: AtomicU64::new(0f64.to_bits()),
            server_known: AtomicBool::new(true),
        }
    }

    /// A participant's clock: the server's time is not known until the host says it.
    pub fn for_participant() -> Self {
        let c = SessionClock::new();
        c.server_known.store(false, Ordering::Release);
        c
    }

    /// Whether [`SessionClock::server_time`] is known (always, but on a participant before
    /// the host's first ping).
    pub fn server_time_known(&self) -> bool {
        self.server_known.load(Ordering::Acquire)
    }

    fn wall_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// Seconds of session time.
    pub fn now(&self) -> f64 {
        let paused = self.pause_started_ns.load(Ordering::Acquire);
        let at = if paused != 0 { paused } else { self.wall_ns() };
        at.saturating_sub(self.paused_total_ns.load(Ordering::Acquire)) as f64 / 1e9
    }

    /// The `Instant` laminar is told for session time `t` (so pauses do not time out
    /// connections).
    pub fn instant(&self, t: f64) -> Instant {
        self.epoch + Duration::from_secs_f64(t.max(0.0))
    }

    pub fn is_paused(&self) -> bool {
        self.pause_started_ns.load(Ordering::Acquire) != 0
    }

    pub fn pause(&self) {
        if !self.is_paused() {
            self.pause_started_ns
                .store(self.wall_ns().max(1), Ordering::Release);
        }
    }

    pub fn resume(&self) {
        let started = self.pause_started_ns.swap(0, Ordering::AcqRel);
        if started != 0 {
            self.paused_total_ns
                .fetch_add(self.wall_ns().saturating_sub(started), Ordering::AcqRel);
        }
    }

    /// A participant's clock: the host's server said its world time is `server_time` at our
    /// session time `t` (the control channel's estimate).
    pub fn set_server_time(&self, t: f64, server_time: f64) {
        self.server_start
            .store((t - server_time).to_bits(), Ordering::Release);
        self.server_known.store(true, Ordering::Release);
    }

    /// The server's world time at session time `t`.
    pub fn server_time(&self, t: f64) -> f64 {
        t - f64::from_bits(self.server_start.load(Ordering::Acquire))
    }
}

impl Default for SessionClock {
    fn default() -> Self {
        Self::new()
    }
}

/// Telemetry producer that never blocks: when full, drops the oldest record and counts it.
#[derive(Clone)]
pub struct TelemetryTx {
    pub(crate) tx: Sender<Record>,
    pub(crate) oldest: Receiver<Record>,
    pub(crate) dropped: Arc<AtomicU64>,
    /// A participant: a copy of every record for the host (dropped, and counted, when the
    /// link to the host falls behind).
    pub(crate) copy: Option<(Sender<Record>, Arc<AtomicU64>)>,
}

impl TelemetryTx {
    pub(crate) fn new(capacity: usize) -> (TelemetryTx, Receiver<Record>) {
        let (tx, rx) = bounded(capacity);
        (
            TelemetryTx {
                tx,
                oldest: rx.clone(),
                dropped: Arc::new(AtomicU64::new(0)),
                copy: None,
            },
            rx,
        )
    }

    pub fn send(&self, r: Record) {
        if let Some((copy, dropped)) = &self.copy
            && copy.try_send(r.clone()).is_err()
        {
            dropped.fetch_add(1, Ordering::Relaxed);
        }
        let mut r = r;
        loop {
            match self.tx.try_send(r) {
                Ok(()) => return,
                Err(TrySendError::Full(back)) => {
                    if self.oldest.try_recv().is_ok() {
                        self.dropped.fetch_add(1, Ordering::Relaxed);
                    }
                    r = back;
                }
                Err(TrySendError::Disconnected(_)) => return,
            }
        }
    }
}

/// What a thread is told: a setting for its machine, or just to wake up.
pub(crate) enum ThreadCmd {
    Do(MachineCmd),
    Wake,
}

pub(crate) struct Worker {
    pub(crate) tx: Sender<ThreadCmd>,
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) handle: Option<JoinHandle<()>>,
    /// A client's game address (a host takes it off its roster when the client goes).
    pub(crate) addr: Option<SocketAddr>,
}

impl Worker {
    pub(crate) fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        let _ = self.tx.try_send(ThreadCmd::Wake);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// What a stopped machine's error record says (the summary, the app and `run --live` look
/// for it).
pub const STOPPED: &str = "stopped: it panicked";

/// Runs a machine's thread; if it panics, the panic becomes an error record naming the
/// machine and why (the thread ends, the session goes on without it).
pub(crate) fn guarded(me: Machine, tele: &TelemetryTx, clock: &SessionClock, body: impl FnOnce()) {
    if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        let why = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        tele.send(Record {
            t: clock.now(),
            machine: me,
            event: Event::Log {
                level: LogLevel::Error,
                text: format!("{me} {STOPPED}: {why}"),
            },
        });
    }
}

/// What a live machine's loop (a client's or the server's) keeps from turn to turn for its
/// transport and telemetry, and the end of each turn, the same for both.
pub(crate) struct MachineLoop<'a> {
    pub(crate) clock: &'a SessionClock,
    pub(crate) tele: &'a TelemetryTx,
    pub(crate) me: Machine,
    /// Session time of the machine's local time 0.
    pub(crate) start: f64,
    rx: Receiver<ThreadCmd>,
    /// The command a pause woke up on (applied first in the next turn).
    pending: Option<ThreadCmd>,
    /// Transport events, reused every turn.
    events: Vec<crate::net::transport::TransportEvent>,
    notes: Vec<crate::net::transport::LinkNote>,
    scratch: Vec<(f64, Event)>,
    foreign_seen: crate::net::transport::DropCounts,
}

impl<'a> MachineLoop<'a> {
    pub(crate) fn new(
        clock: &'a SessionClock,
        tele: &'a TelemetryTx,
        (me, start): (Machine, f64),
        rx: Receiver<ThreadCmd>,
    ) -> Self {
        MachineLoop {
            clock,
            tele,
            me,
            start,
            rx,
            pending: None,
            events: Vec::new(),
            notes: Vec::new(),
            scratch: Vec::new(),
            foreign_seen: crate::net::transport::DropCounts::default(),
        }
    }

    /// The commands that arrived since the last turn, in order.
    pub(crate) fn commands(&mut self) -> Vec<ThreadCmd> {
        self.pending
            .take()
            .into_iter()
            .chain(self.rx.try_iter())
            .collect()
    }

    /// Whether the session is paused; then this waits for a command (or a short timeout, to
    /// notice the stop flag), and the turn is skipped.
    pub(crate) fn paused(&mut self) -> bool {
        if self.clock.is_paused() {
            self.pending = wait(&self.rx);
            true
        } else {
            false
        }
    }

    /// What the transport delivered by session time `t`.
    pub(crate) fn poll(
        &mut self,
        endpoint: &mut Endpoint,
        t: f64,
    ) -> std::vec::Drain<'_, crate::net::transport::TransportEvent> {
        endpoint.poll(t, self.clock.instant(t), &mut self.events);
        self.events.drain(..)
    }

    /// The end of a turn at session time `t`: polls the transport; reports the link's fates
    /// other than `Sent` (a datagram to `peer(address)`) and what the gate dropped; forwards
    /// the model's telemetry (`drain` hands it over) stamped with session time; sleeps until
    /// `until`, the next delayed datagram or an arriving one.
    pub(crate) fn end_turn(
        &mut self,
        endpoint: &mut Endpoint,
        t: f64,
        until: f64,
        peer: impl Fn(SocketAddr) -> Machine,
        drain: impl FnOnce(&mut Vec<(f64, Event)>),
    ) {
        use crate::model::telemetry::PacketFate;
        endpoint.poll(t, self.clock.instant(t), &mut self.events);
        endpoint.take_notes(&mut self.notes);
        for n in self.notes.drain(..) {
            if n.fate != PacketFate::Sent {
                self.tele.send(crate::session::setup::packet_record(
                    t,
                    self.me,
                    peer(n.to),
                    n.bytes,
                    n.fate,
                    crate::model::messages::MsgKind::Transport,
                ));
            }
        }
        report_foreign(endpoint, &mut self.foreign_seen, self.tele, t, self.me);
        drain(&mut self.scratch);
        forward(self.tele, self.me, self.start, &mut self.scratch);
        sleep_until(endpoint, self.clock, until);
    }
}

/// Pushes model telemetry as records stamped with session time.
pub(crate) fn forward(
    tele: &TelemetryTx,
    machine: Machine,
    offset: f64,
    scratch: &mut Vec<(f64, Event)>,
) {
    for (local, event) in scratch.drain(..) {
        tele.send(Record {
            t: offset + local,
            machine,
            event,
        });
    }
}

/// Reports what the transport's gate dropped since the last call, by kind, as `Rejected`
/// records of machine `me`.
pub(crate) fn report_foreign(
    endpoint: &Endpoint,
    seen: &mut crate::net::transport::DropCounts,
    tele: &TelemetryTx,
    t: f64,
    me: Machine,
) {
    use crate::model::telemetry::Rejection;
    let now = endpoint.drops();
    for (was, is, reason) in [
        (&mut seen.foreign, now.foreign, Rejection::Foreign),
        (
            &mut seen.wrong_source,
            now.wrong_source,
            Rejection::WrongSource,
        ),
        (&mut seen.unadmitted, now.unadmitted, Rejection::Unadmitted),
        (
            &mut seen.rate_limited,
            now.rate_limited,
            Rejection::RateLimited,
        ),
    ] {
        if *was == 0 && is > 0 {
            tele.send(Record {
                t,
                machine: me,
                event: Event::Log {
                    level: LogLevel::Warning,
                    text: format!(
                        "transport: dropping datagrams ({}); the summary counts them",
                        match reason {
                            Rejection::Foreign => "not movescope's",
                            Rejection::WrongSource => "from an unexpected address",
                            Rejection::Unadmitted => "from an address that did not join",
                            _ => "over a sender's rate limit",
                        }
                    ),
                },
            });
        }
        while *was < is {
            *was += 1;
            tele.send(Record {
                t,
                machine: me,
                event: Event::Rejected {
                    reason: reason.clone(),
                },
            });
        }
    }
}

/// While paused: sleeps until a command arrives (or a short timeout, to notice the stop flag).
fn wait(rx: &Receiver<ThreadCmd>) -> Option<ThreadCmd> {
    rx.recv_timeout(Duration::from_millis(20)).ok()
}

/// While running: sleeps until `until` (session time), the next delayed datagram is due, or a
/// datagram arrives, whichever is first. Commands are picked up on the next loop iteration (at
/// most a keep-alive interval later).
pub(crate) fn sleep_until(endpoint: &Endpoint, clock: &SessionClock, until: f64) {
    let until = endpoint.next_due().map_or(until, |d| until.min(d));
    let dt = (until - clock.now()).clamp(0.0, 0.02);
    if dt > 0.0 {
        endpoint.wait_readable(Duration::from_secs_f64(dt));
    }
}
