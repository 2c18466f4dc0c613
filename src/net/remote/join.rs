//! A participant's side: the handshake with the join code, and the link thread that runs the
//! participant's client, carries its telemetry to the host and rejoins when the link is lost.

use crate::model::input::RawInput;
use crate::model::telemetry::{Event, LogLevel, Machine, Record};
use crate::net::client_thread::{ClientSpawn, spawn_client};
use crate::net::remote::Down;
use crate::net::remote::Inbox;
use crate::net::remote::MAGIC;
use crate::net::remote::MAX_BACKLOG;
use crate::net::remote::Outbox;
use crate::net::remote::PROTOCOL;
use crate::net::remote::RemoteCmd;
use crate::net::remote::Up;
use crate::net::remote::frame;
use crate::net::runtime::{SessionClock, TelemetryTx, ThreadCmd, Worker};
use crate::net::transport::Endpoint;
use crate::session::control::{MachineCmd, Settings};
use crate::session::preset::{BindingsError, Preset};
use crossbeam_channel::{Receiver, Sender, bounded};
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How a participant joins.
#[derive(Clone, Debug, PartialEq)]
pub struct JoinOptions {
    /// The host's control address (what the host printed).
    pub host: SocketAddr,
    pub code: String,
    pub name: Option<String>,
}

/// What a host said to a participant's handshake.
struct Welcomed {
    id: u16,
    incarnation: u32,
    secret: u64,
    preset: Preset,
    server: SocketAddr,
    stream: TcpStream,
    endpoint: Endpoint,
    inbox: Inbox,
}

/// Why joining a host failed. Each variant names the host's control address; the text is what
/// the CLI prints.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    #[error("cannot reach the host at {host}: {source}")]
    Unreachable {
        host: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot bind a game socket on {ip}: {source}")]
    GameSocket {
        host: SocketAddr,
        ip: IpAddr,
        source: std::io::Error,
    },
    #[error("cannot talk to the host at {host}: {source}")]
    Send {
        host: SocketAddr,
        source: std::io::Error,
    },
    #[error("the host at {host} closed the connection: {source}")]
    Receive {
        host: SocketAddr,
        source: std::io::Error,
    },
    #[error("the host at {host} closed the connection without an answer")]
    Closed { host: SocketAddr },
    #[error("the host at {host} did not answer the handshake")]
    NoAnswer { host: SocketAddr },
    /// The host refused the handshake: its reason (a wrong code, a full session, ...).
    #[error("the host refused: {why}")]
    Refused { host: SocketAddr, why: String },
    /// An answer that is not a frame of the join protocol: what was wrong with it.
    #[error("the host sent a malformed answer ({detail})")]
    Malformed { host: SocketAddr, detail: String },
    /// The host's preset does not parse or validate here (another movescope version).
    #[error("the host sent a preset this movescope cannot read: {error}")]
    Preset {
        host: SocketAddr,
        error: crate::session::preset::PresetError,
    },
}

/// The CLI reports errors as text; `?` turns a join error into its message.
impl From<JoinError> for String {
    fn from(e: JoinError) -> String {
        e.to_string()
    }
}

/// Connects, shakes hands, and returns the welcome (or why the host refused).
fn handshake(opts: &JoinOptions) -> Result<Welcomed, JoinError> {
    let host = opts.host;
    let stream = connect(host)?;
    let local_ip = stream
        .local_addr()
        .map_or(IpAddr::V4(Ipv4Addr::LOCALHOST), |a| a.ip());
    let endpoint =
        Endpoint::bind(SocketAddr::new(local_ip, 0)).map_err(|source| JoinError::GameSocket {
            host,
            ip: local_ip,
            source,
        })?;
    let Greeted {
        id,
        incarnation,
        secret,
        preset,
        server,
        stream,
        inbox,
    } = greet(opts, stream, endpoint.local_addr().port())?;
    Ok(Welcomed {
        id,
        incarnation,
        secret,
        preset,
        server,
        stream,
        endpoint,
        inbox,
    })
}

fn connect(host: SocketAddr) -> Result<TcpStream, JoinError> {
    TcpStream::connect_timeout(&host, Duration::from_secs(3))
        .map_err(|source| JoinError::Unreachable { host, source })
}

/// The handshake alone, for a caller with its own game socket on `udp_port` (tests, tools):
/// the client id the host gave, the host's game address, the control connection (the
/// participant stays joined while it is open) and the session's join secret (what the
/// participant's joins must carry).
pub fn shake_hands(
    opts: &JoinOptions,
    udp_port: u16,
) -> Result<(u16, SocketAddr, TcpStream, u64), JoinError> {
    let stream = connect(opts.host)?;
    let g = greet(opts, stream, udp_port)?;
    Ok((g.id, g.server, g.stream, g.secret))
}

/// What a host's welcome gave.
struct Greeted {
    id: u16,
    incarnation: u32,
    secret: u64,
    preset: Preset,
    server: SocketAddr,
    stream: TcpStream,
    inbox: Inbox,
}

fn greet(opts: &JoinOptions, mut stream: TcpStream, udp_port: u16) -> Result<Greeted, JoinError> {
    let host = opts.host;
    let _ = stream.set_nodelay(true);
    let mut out = Vec::from(&MAGIC[..]);
    out.extend(frame(&Up::Hello {
        protocol: PROTOCOL,
        code: opts.code.clone(),
        name: opts.name.clone(),
        udp_port,
    }));
    stream
        .write_all(&out)
        .map_err(|source| JoinError::Send { host, source })?;
    let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut inbox = Inbox::default();
    loop {
        let open = inbox
            .fill(&mut stream)
            .map_err(|source| JoinError::Receive { host, source })?;
        match inbox.next::<Down>() {
            Ok(Some(Down::Welcome {
                id,
                incarnation,
                secret,
                preset,
                udp_port,
            })) => {
                let preset = Preset::from_ron(&preset, &format!("the host at {host}"))
                    .map_err(|error| JoinError::Preset { host, error })?;
                let server = SocketAddr::new(host.ip(), udp_port);
                return Ok(Greeted {
                    id,
                    incarnation,
                    secret,
                    preset,
                    server,
                    stream,
                    inbox,
                });
            }
            Ok(Some(Down::Refused { why })) => return Err(JoinError::Refused { host, why }),
            Ok(Some(_)) => {}
            Ok(None) if !open => return Err(JoinError::Closed { host }),
            Ok(None) => {}
            Err(e) => {
                return Err(JoinError::Malformed {
                    host,
                    detail: format!("{e:?}"),
                });
            }
        }
        if Instant::now() > deadline {
            return Err(JoinError::NoAnswer { host });
        }
    }
}

/// A participant's link to its host: a thread that runs the participant's client, carries
/// its telemetry up and the trainer's settings down, and rejoins when the host comes back.
pub struct Participant {
    id: u16,
    preset: Preset,
    server: SocketAddr,
    secret: u64,
    drive: Sender<Option<RawInput>>,
    /// The session's preset as the host last sent it (after the trainer's changes, or a
    /// rejoin), until taken.
    newer: Arc<Mutex<Option<Preset>>>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Participant {
    /// Joins the host (the handshake happens here: its refusal is this call's error).
    /// `uplink` is the copy of the client's telemetry the thread sends to the host.
    pub fn join(
        opts: JoinOptions,
        clock: Arc<SessionClock>,
        tele: TelemetryTx,
        uplink: Receiver<Record>,
    ) -> Result<Participant, JoinError> {
        let w = handshake(&opts)?;
        let (id, preset, server, secret) = (w.id, w.preset.clone(), w.server, w.secret);
        let (drive_tx, drive_rx) = bounded(64);
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let newer: Arc<Mutex<Option<Preset>>> = Arc::default();
        let link = Link {
            opts,
            clock,
            tele,
            uplink,
            drive_rx,
            newer: newer.clone(),
            stop: stop2,
        };
        let handle = std::thread::Builder::new()
            .name("participant link".into())
            .spawn(move || participant_loop(link, w))
            .expect("spawning a thread");
        Ok(Participant {
            id,
            preset,
            server,
            secret,
            drive: drive_tx,
            newer,
            stop,
            handle: Some(handle),
        })
    }

    /// The client id the host gave this participant.
    pub fn id(&self) -> u16 {
        self.id
    }

    /// The session's preset as the host sent it.
    pub fn preset(&self) -> &Preset {
        &self.preset
    }

    /// The session's preset as the host sent it since the last call, if it sent one (the
    /// trainer changed a setting, or the participant rejoined).
    pub fn take_newer_preset(&self) -> Option<Preset> {
        self.newer.lock().ok().and_then(|mut n| n.take())
    }

    /// The host's game address.
    pub fn server(&self) -> SocketAddr {
        self.server
    }

    /// The session's join secret, as the host gave it.
    pub fn secret(&self) -> u64 {
        self.secret
    }

    /// Drives the participant's own pawn (`None`: its script again).
    pub fn drive(&self, input: Option<RawInput>) {
        let _ = self.drive.try_send(input);
    }

    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Participant {
    fn drop(&mut self) {
        self.stop();
    }
}

pub(crate) fn local_log(tele: &TelemetryTx, t: f64, me: Machine, level: LogLevel, text: String) {
    tele.send(Record {
        t,
        machine: me,
        event: Event::Log { level, text },
    });
}

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
struct Link {
    opts: JoinOptions,
    clock: Arc<SessionClock>,
    tele: TelemetryTx,
    uplink: Receiver<Record>,
    drive_rx: Receiver<Option<RawInput>>,
    newer: Arc<Mutex<Option<Preset>>>,
    stop: Arc<AtomicBool>,
}

fn participant_loop(link: Link, first: Welcomed) {
    let Link {
        opts,
        clock,
        tele,
        uplink,
        drive_rx,
        newer,
        stop,
    } = link;
    let mut next = Some(first);
    let mut named: std::collections::HashSet<(u16, String)> = std::collections::HashSet::new();
    let mut driving: Option<RawInput> = None;
    let mut me = Machine::Client(0);
    while !stop.load(Ordering::Acquire) {
        let welcomed = match next.take() {
            Some(w) => w,
            None => {
                // Reconnect once a second until the host takes us back (or we are stopped).
                let mut got = None;
                while got.is_none() && !stop.load(Ordering::Acquire) {
                    match handshake(&opts) {
                        Ok(w) => got = Some(w),
                        Err(_) => {
                            for _ in 0..20 {
                                if stop.load(Ordering::Acquire) {
                                    break;
                                }
                                std::thread::sleep(Duration::from_millis(50));
                            }
                        }
                    }
                }
                match got {
                    Some(w) => {
                        if let Ok(mut n) = newer.lock() {
                            *n = Some(w.preset.clone());
                        }
                        let t = clock.now();
                        local_log(
                            &tele,
                            t,
                            Machine::Client(w.id),
                            LogLevel::Warning,
                            format!("rejoined the host at {} as client {}", opts.host, w.id),
                        );
                        w
                    }
                    None => return,
                }
            }
        };
        let (mut worker, mut stream, mut inbox, id) = match start_worker(welcomed, &clock, &tele) {
            Ok(x) => x,
            Err(e) => {
                local_log(
                    &tele,
                    clock.now(),
                    me,
                    LogLevel::Error,
                    format!("cannot run the host's preset: {e}"),
                );
                return;
            }
        };
        me = Machine::Client(id);
        let me_id = id;
        if driving.is_some() {
            let _ = worker
                .tx
                .try_send(ThreadCmd::Do(MachineCmd::Drive(driving)));
        }
        let _ = stream.set_read_timeout(Some(Duration::from_millis(5)));
        let mut outbox = Outbox::default();
        let mut batch: Vec<Record> = Vec::new();
        let mut last_sent = clock.now();
        let mut ending = false;
        let why: Option<String> = loop {
            if stop.load(Ordering::Acquire) {
                ending = true;
                break None;
            }
            match inbox.fill(&mut stream) {
                Ok(true) => {}
                Ok(false) => break Some("the host closed the connection".into()),
                Err(e) => break Some(format!("the connection to the host failed: {e}")),
            }
            let mut leave: Option<Option<String>> = None;
            loop {
                match inbox.next::<Down>() {
                    Ok(Some(Down::Ping {
                        host_t,
                        server_time,
                        rtt,
                    })) => {
                        let got = clock.now();
                        clock.set_server_time(got, server_time + rtt.unwrap_or(0.0) / 2.0);
                        let p_t = clock.now();
                        outbox.push(&Up::Pong {
                            host_t,
                            p_t,
                            held: p_t - got,
                        });
                    }
                    Ok(Some(Down::Cmd(c))) => match (&c, c.to_machine()) {
                        (RemoteCmd::Pause, _) => clock.pause(),
                        (RemoteCmd::Resume, _) => {
                            clock.resume();
                            let _ = worker.tx.try_send(ThreadCmd::Wake);
                        }
                        (_, Some(m)) => {
                            let _ = worker.tx.try_send(ThreadCmd::Do(m));
                        }
                        (_, None) => {}
                    },
                    Ok(Some(Down::Rejoin)) => {
                        leave = Some(None);
                        break;
                    }
                    Ok(Some(Down::Bye { why })) => {
                        local_log(
                            &tele,
                            clock.now(),
                            me,
                            LogLevel::Error,
                            format!("the host removed this participant: {why}"),
                        );
                        stop.store(true, Ordering::Release);
                        leave = Some(None);
                        break;
                    }
                    Ok(Some(Down::Preset { preset })) => {
                        match Preset::from_ron(&preset, &format!("the host at {}", opts.host)) {
                            Ok(p) => {
                                if let Ok(mut n) = newer.lock() {
                                    *n = Some(p);
                                }
                            }
                            Err(e) => local_log(
                                &tele,
                                clock.now(),
                                me,
                                LogLevel::Warning,
                                format!("the host's changed settings cannot be shown here: {e}"),
                            ),
                        }
                    }
                    Ok(Some(Down::Names { names })) => {
                        // This window's own records (not sent up): views call the other
                        // participants' pawns by their names.
                        for (id, name) in names {
                            let name: String =
                                name.chars().filter(|c| !c.is_control()).take(32).collect();
                            if id != me_id && named.insert((id, name.clone())) {
                                let _ = tele.tx.try_send(Record {
                                    t: clock.now(),
                                    machine: me,
                                    event: Event::SessionChanged {
                                        what: format!(
                                            "{} is in the session",
                                            crate::session::store::describe_participant(
                                                id,
                                                Some(&name)
                                            )
                                        ),
                                    },
                                });
                            }
                        }
                    }
                    Ok(Some(Down::Welcome { .. } | Down::Refused { .. })) => {}
                    Ok(None) => break,
                    Err(e) => {
                        leave = Some(Some(format!("the host sent a malformed frame ({e:?})")));
                        break;
                    }
                }
            }
            if let Some(l) = leave {
                break l;
            }
            for d in drive_rx.try_iter() {
                driving = d;
                let _ = worker.tx.try_send(ThreadCmd::Do(MachineCmd::Drive(d)));
            }
            let t = clock.now();
            batch.extend(uplink.try_iter().filter(|r| r.machine == me));
            if !batch.is_empty() && (t - last_sent >= 0.02 || batch.len() >= 2048) {
                for chunk in batch.chunks(2048) {
                    outbox.push(&Up::Records(chunk.to_vec()));
                }
                batch.clear();
                last_sent = t;
            }
            if outbox.buf.len() > MAX_BACKLOG {
                break Some("the host stopped reading".into());
            }
            let _ = stream.set_nonblocking(true);
            let flushed = outbox.flush(&mut stream);
            let _ = stream.set_nonblocking(false);
            if let Err(e) = flushed {
                break Some(format!("the connection to the host failed: {e}"));
            }
        };
        worker.stop();
        if ending {
            // Said on the control channel, so the host logs this participant as left and
            // its pawn goes at once (not "nothing heard for 5 s").
            batch.extend(uplink.try_iter().filter(|r| r.machine == me));
            for chunk in batch.chunks(2048) {
                outbox.push(&Up::Records(chunk.to_vec()));
            }
            outbox.push(&Up::Leave {
                why: "its run ended".into(),
            });
            let _ = stream.set_nonblocking(false);
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            let _ = outbox.flush(&mut stream);
            let _ = stream.shutdown(std::net::Shutdown::Write);
        }
        if let Some(why) = why {
            local_log(
                &tele,
                clock.now(),
                me,
                LogLevel::Warning,
                format!(
                    "lost the host at {} ({why}); trying to rejoin every second",
                    opts.host
                ),
            );
        }
    }
}
