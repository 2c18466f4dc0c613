//! A participant's side: the handshake with the join code, and the link thread that runs the
//! participant's client, carries its telemetry to the host and rejoins when the link is lost.

use crate::model::input::RawInput;
use crate::model::telemetry::{Event, LogLevel, Machine, Record};
use crate::net::remote::Down;
use crate::net::remote::Inbox;
use crate::net::remote::MAGIC;
use crate::net::remote::PROTOCOL;
use crate::net::remote::Up;
use crate::net::remote::frame;
use crate::net::runtime::{SessionClock, TelemetryTx};
use crate::net::transport::Endpoint;
use crate::session::preset::Preset;
use crossbeam_channel::{Receiver, Sender, bounded};
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

mod link;
use self::link::{Link, participant_loop};

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
