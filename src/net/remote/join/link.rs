//! The participant's link thread: runs the participant's client against the host's server,
//! carries its telemetry up and the host's messages down, and rejoins when the link is lost.

use super::{JoinOptions, Welcomed, handshake, local_log};
use crate::model::input::RawInput;
use crate::model::telemetry::{Event, LogLevel, Machine, Record};
use crate::net::client_thread::{ClientSpawn, spawn_client};
use crate::net::remote::Down;
use crate::net::remote::Inbox;
use crate::net::remote::MAX_BACKLOG;
use crate::net::remote::Outbox;
use crate::net::remote::RemoteCmd;
use crate::net::remote::Up;
use crate::net::runtime::{SessionClock, TelemetryTx, ThreadCmd, Worker};
use crate::session::control::{MachineCmd, Settings};
use crate::session::preset::{BindingsError, Preset};
use crossbeam_channel::Receiver;
use std::collections::HashSet;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Starts the participant's client from a welcome: the host's preset, its id and key, its
/// game endpoint. Gives the worker, the control stream and what was read from it, and the id.
fn start_worker(
    w: Welcomed,
    clock: &Arc<SessionClock>,
    tele: &TelemetryTx,
) -> Result<(Worker, TcpStream, Inbox, u16), BindingsError> {
    let settings = Settings::new(&w.preset)?;
    let worker = spawn_client(ClientSpawn {
        preset: &w.preset,
        id: w.id,
        incarnation: w.incarnation,
        // The participant's own key, as its host gave it.
        key: w.secret,
        bindings: settings.client_bindings().clone(),
        layouts: settings.client_layouts().to_vec(),
        endpoint: w.endpoint,
        server: w.server,
        clock: clock.clone(),
        tele: tele.clone(),
        start: clock.now(),
    });
    Ok((worker, w.stream, w.inbox, w.id))
}

/// What the participant's link thread works with.
pub(super) struct Link {
    pub(super) opts: JoinOptions,
    pub(super) clock: Arc<SessionClock>,
    pub(super) tele: TelemetryTx,
    pub(super) uplink: Receiver<Record>,
    pub(super) drive_rx: Receiver<Option<RawInput>>,
    pub(super) newer: Arc<Mutex<Option<Preset>>>,
    pub(super) stop: Arc<AtomicBool>,
}

/// The link thread's body: a connection per welcome, rejoining once one is lost, until
/// stopped (or the host's preset cannot run here).
pub(super) fn participant_loop(link: Link, first: Welcomed) {
    let mut lt = LinkThread {
        link,
        named: HashSet::new(),
        driving: None,
        me: Machine::Client(0),
    };
    let mut next = Some(first);
    while !lt.link.stop.load(Ordering::Acquire) {
        let welcomed = match next.take() {
            Some(w) => w,
            None => match lt.rejoin() {
                Some(w) => w,
                None => return,
            },
        };
        if !lt.connection(welcomed) {
            return;
        }
    }
}

/// How a connection to the host ends: `None` for a rejoin, a removal or the run ending;
/// else why the link was lost (the participant rejoins and says so).
type Lost = Option<String>;

/// The link thread's state across connections: the pawn names already said, the input
/// driving the pawn (kept for the next connection's client), and which machine it is.
struct LinkThread {
    link: Link,
    named: HashSet<(u16, String)>,
    driving: Option<RawInput>,
    me: Machine,
}

/// A connection to the host while it lasts: the client's worker, the control stream (what was
/// read from it and what waits to be written), and the client's telemetry batched for the host.
struct Connection {
    worker: Worker,
    stream: TcpStream,
    inbox: Inbox,
    outbox: Outbox,
    /// The client id the host gave this connection.
    id: u16,
    batch: Vec<Record>,
    last_sent: f64,
}

impl LinkThread {
    /// Reconnects once a second until the host takes the participant back (`None`: stopped
    /// first); the host's preset is then the newer one, and the rejoin is said.
    fn rejoin(&self) -> Option<Welcomed> {
        let l = &self.link;
        let mut got = None;
        while got.is_none() && !l.stop.load(Ordering::Acquire) {
            match handshake(&l.opts) {
                Ok(w) => got = Some(w),
                Err(_) => {
                    for _ in 0..20 {
                        if l.stop.load(Ordering::Acquire) {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(50));
                    }
                }
            }
        }
        let w = got?;
        if let Ok(mut n) = l.newer.lock() {
            *n = Some(w.preset.clone());
        }
        let t = l.clock.now();
        local_log(
            &l.tele,
            t,
            Machine::Client(w.id),
            LogLevel::Warning,
            format!("rejoined the host at {} as client {}", l.opts.host, w.id),
        );
        Some(w)
    }

    /// One connection: the client runs while the control stream carries the host's messages
    /// down and the client's telemetry up, until stopped (said to the host) or the link is
    /// lost (said in the log). False when the host's preset cannot run here.
    fn connection(&mut self, welcomed: Welcomed) -> bool {
        let (worker, stream, inbox, id) =
            match start_worker(welcomed, &self.link.clock, &self.link.tele) {
                Ok(x) => x,
                Err(e) => {
                    local_log(
                        &self.link.tele,
                        self.link.clock.now(),
                        self.me,
                        LogLevel::Error,
                        format!("cannot run the host's preset: {e}"),
                    );
                    return false;
                }
            };
        self.me = Machine::Client(id);
        if self.driving.is_some() {
            let _ = worker
                .tx
                .try_send(ThreadCmd::Do(MachineCmd::Drive(self.driving)));
        }
        let _ = stream.set_read_timeout(Some(Duration::from_millis(5)));
        let mut c = Connection {
            worker,
            stream,
            inbox,
            outbox: Outbox::default(),
            id,
            batch: Vec::new(),
            last_sent: self.link.clock.now(),
        };
        let mut ending = false;
        let why: Lost = loop {
            if self.link.stop.load(Ordering::Acquire) {
                ending = true;
                break None;
            }
            if let Some(why) = self.connection_turn(&mut c) {
                break why;
            }
        };
        c.worker.stop();
        if ending {
            self.say_leaving(&mut c);
        }
        if let Some(why) = why {
            local_log(
                &self.link.tele,
                self.link.clock.now(),
                self.me,
                LogLevel::Warning,
                format!(
                    "lost the host at {} ({why}); trying to rejoin every second",
                    self.link.opts.host
                ),
            );
        }
        true
    }

    /// One turn of a connection: what the host sent, the driving input to the client, the
    /// client's telemetry up. `Some` ends the connection.
    fn connection_turn(&mut self, c: &mut Connection) -> Option<Lost> {
        match c.inbox.fill(&mut c.stream) {
            Ok(true) => {}
            Ok(false) => return Some(Some("the host closed the connection".into())),
            Err(e) => return Some(Some(format!("the connection to the host failed: {e}"))),
        }
        loop {
            match c.inbox.next::<Down>() {
                Ok(Some(d)) => {
                    if let Some(leave) = self.on_down(c, d) {
                        return Some(leave);
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    return Some(Some(format!("the host sent a malformed frame ({e:?})")));
                }
            }
        }
        for d in self.link.drive_rx.try_iter() {
            self.driving = d;
            let _ = c.worker.tx.try_send(ThreadCmd::Do(MachineCmd::Drive(d)));
        }
        self.send_up(c)
    }

    /// A message from the host. `Some` ends the connection: a rejoin, or the host removing
    /// this participant (which also stops the link).
    fn on_down(&mut self, c: &mut Connection, d: Down) -> Option<Lost> {
        let clock = &self.link.clock;
        match d {
            Down::Ping {
                host_t,
                server_time,
                rtt,
            } => {
                let got = clock.now();
                clock.set_server_time(got, server_time + rtt.unwrap_or(0.0) / 2.0);
                let p_t = clock.now();
                c.outbox.push(&Up::Pong {
                    host_t,
                    p_t,
                    held: p_t - got,
                });
            }
            Down::Cmd(cmd) => match (&cmd, cmd.to_machine()) {
                (RemoteCmd::Pause, _) => clock.pause(),
                (RemoteCmd::Resume, _) => {
                    clock.resume();
                    let _ = c.worker.tx.try_send(ThreadCmd::Wake);
                }
                (_, Some(m)) => {
                    let _ = c.worker.tx.try_send(ThreadCmd::Do(m));
                }
                (_, None) => {}
            },
            Down::Rejoin => return Some(None),
            Down::Bye { why } => {
                local_log(
                    &self.link.tele,
                    clock.now(),
                    self.me,
                    LogLevel::Error,
                    format!("the host removed this participant: {why}"),
                );
                self.link.stop.store(true, Ordering::Release);
                return Some(None);
            }
            Down::Preset { preset } => self.on_preset(&preset),
            Down::Names { names } => self.on_names(c.id, names),
            Down::Welcome { .. } | Down::Refused { .. } => {}
        }
        None
    }

    /// The session's preset as the trainer changed it: the newer one, when it reads here.
    fn on_preset(&self, preset: &str) {
        match Preset::from_ron(preset, &format!("the host at {}", self.link.opts.host)) {
            Ok(p) => {
                if let Ok(mut n) = self.link.newer.lock() {
                    *n = Some(p);
                }
            }
            Err(e) => local_log(
                &self.link.tele,
                self.link.clock.now(),
                self.me,
                LogLevel::Warning,
                format!("the host's changed settings cannot be shown here: {e}"),
            ),
        }
    }

    /// The other participants' names, each said once as this window's own records (not sent
    /// up): views call the other participants' pawns by their names.
    fn on_names(&mut self, me_id: u16, names: Vec<(u16, String)>) {
        for (id, name) in names {
            let name: String = name.chars().filter(|c| !c.is_control()).take(32).collect();
            if id != me_id && self.named.insert((id, name.clone())) {
                let _ = self.link.tele.tx.try_send(Record {
                    t: self.link.clock.now(),
                    machine: self.me,
                    event: Event::SessionChanged {
                        what: format!(
                            "{} is in the session",
                            crate::session::store::describe_participant(id, Some(&name))
                        ),
                    },
                });
            }
        }
    }

    /// The client's telemetry up, batched (every 20 ms or 2048 records), and what waits to be
    /// written flushed without blocking. `Some` when the host stopped reading or the
    /// connection failed.
    fn send_up(&self, c: &mut Connection) -> Option<Lost> {
        let t = self.link.clock.now();
        let me = self.me;
        c.batch
            .extend(self.link.uplink.try_iter().filter(|r| r.machine == me));
        if !c.batch.is_empty() && (t - c.last_sent >= 0.02 || c.batch.len() >= 2048) {
            for chunk in c.batch.chunks(2048) {
                c.outbox.push(&Up::Records(chunk.to_vec()));
            }
            c.batch.clear();
            c.last_sent = t;
        }
        if c.outbox.buf.len() > MAX_BACKLOG {
            return Some(Some("the host stopped reading".into()));
        }
        let _ = c.stream.set_nonblocking(true);
        let flushed = c.outbox.flush(&mut c.stream);
        let _ = c.stream.set_nonblocking(false);
        if let Err(e) = flushed {
            return Some(Some(format!("the connection to the host failed: {e}")));
        }
        None
    }

    /// The run ended: said on the control channel, so the host logs this participant as left
    /// and its pawn goes at once (not "nothing heard for 5 s"), after the last telemetry.
    fn say_leaving(&self, c: &mut Connection) {
        let me = self.me;
        c.batch
            .extend(self.link.uplink.try_iter().filter(|r| r.machine == me));
        for chunk in c.batch.chunks(2048) {
            c.outbox.push(&Up::Records(chunk.to_vec()));
        }
        c.outbox.push(&Up::Leave {
            why: "its run ended".into(),
        });
        let _ = c.stream.set_nonblocking(false);
        let _ = c.stream.set_write_timeout(Some(Duration::from_secs(1)));
        let _ = c.outbox.flush(&mut c.stream);
        let _ = c.stream.shutdown(std::net::Shutdown::Write);
    }
}
