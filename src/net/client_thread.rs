//! A live client machine's thread: its model `Client`, its endpoint, its frame clock, commands
//! from the session and telemetry to it.

use crate::model::binding::Bindings;
use crate::model::client::Client;
use crate::model::input::{InputScript, RawInput};
use crate::model::messages::{Delivery, MsgKind};
use crate::model::telemetry::{Event, LogLevel, Machine, PacketFate, Record};
use crate::net::runtime::COMMAND_CAPACITY;
use crate::net::runtime::MachineLoop;
use crate::net::runtime::SessionClock;
use crate::net::runtime::TelemetryTx;
use crate::net::runtime::ThreadCmd;
use crate::net::runtime::Worker;
use crate::net::runtime::guarded;
use crate::net::runtime::sleep_until;
use crate::net::transport::{Endpoint, KEEPALIVE_INTERVAL, TransportEvent};
use crate::session::control::MachineCmd;
use crate::session::preset::Preset;
use crate::session::setup::{self, FrameClock, packet_record};
use crossbeam_channel::bounded;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) struct ClientSpawn<'a> {
    pub(crate) preset: &'a Preset,
    pub(crate) id: u16,
    pub(crate) incarnation: u32,
    /// The client's own join key (derived from the session's secret, or a participant's as
    /// its host gave it).
    pub(crate) key: u64,
    pub(crate) bindings: Arc<Bindings>,
    pub(crate) layouts: Vec<(u8, Arc<Bindings>, bool)>,
    pub(crate) endpoint: Endpoint,
    pub(crate) server: SocketAddr,
    pub(crate) clock: Arc<SessionClock>,
    pub(crate) tele: TelemetryTx,
    pub(crate) start: f64,
}

/// Starts a client's thread: its model as the session sets it up, its endpoint hearing only
/// the server through the client's up link.
pub(crate) fn spawn_client(s: ClientSpawn) -> Worker {
    let (tx, rx) = bounded(COMMAND_CAPACITY);
    let stop = Arc::new(AtomicBool::new(false));
    let setup::ClientSetup {
        mut client,
        script,
        frames,
        up,
        down: _,
    } = setup::client(s.preset, s.id, s.incarnation, s.bindings, &s.layouts);
    client.set_join_key(s.key);
    let mut endpoint = s.endpoint;
    // A client hears only its server: anything else is dropped before laminar.
    endpoint.only_from(s.server);
    endpoint.set_link(s.server, Some(up));
    let stop2 = stop.clone();
    let (clock, tele, server, start, id) = (s.clock, s.tele, s.server, s.start, s.id);
    let (guard_tele, guard_clock) = (tele.clone(), clock.clone());
    let handle = std::thread::Builder::new()
        .name(format!("client {id}"))
        .spawn(move || {
            guarded(Machine::Client(id), &guard_tele, &guard_clock, move || {
                let me = Machine::Client(id);
                let mut lp = MachineLoop::new(&clock, &tele, (me, start), rx);
                let mut st = ClientThread {
                    client,
                    script,
                    frames,
                    drive: None,
                    endpoint,
                    server,
                    tele: &tele,
                    clock: &clock,
                    id,
                    start,
                    next_frame: start,
                    next_keepalive: start,
                    next_sample: start,
                };
                while !stop2.load(Ordering::Acquire) {
                    for c in lp.commands() {
                        st.on_command(c);
                    }
                    if lp.paused() {
                        continue;
                    }
                    let t = clock.now();
                    if t < start {
                        sleep_until(&st.endpoint, &clock, start);
                        continue;
                    }
                    st.turn(&mut lp, t);
                }
            })
        })
        .expect("spawning a thread");
    Worker {
        tx,
        stop,
        handle: Some(handle),
        addr: None,
    }
}

/// A client thread's state from turn to turn: its model, its input script (or the input
/// driving it), its frame clock, its endpoint, and when the next frame, keepalive and clock
/// sample are due.
struct ClientThread<'a> {
    client: Client,
    script: InputScript,
    frames: FrameClock,
    drive: Option<RawInput>,
    endpoint: Endpoint,
    server: SocketAddr,
    tele: &'a TelemetryTx,
    clock: &'a SessionClock,
    id: u16,
    /// Session time of the client's local time 0.
    start: f64,
    next_frame: f64,
    next_keepalive: f64,
    next_sample: f64,
}

impl ClientThread<'_> {
    /// A command from the session: the up link, the input driving the pawn and the frame rate
    /// are the thread's; the rest goes to the model.
    fn on_command(&mut self, c: ThreadCmd) {
        match c {
            ThreadCmd::Do(MachineCmd::UpLink(params)) => {
                if let Some(l) = self.endpoint.link_mut(&self.server) {
                    l.set_params(params);
                }
            }
            ThreadCmd::Do(MachineCmd::Drive(i)) => self.drive = i,
            ThreadCmd::Do(MachineCmd::FrameRate { fps, jitter }) => {
                self.frames.fps = fps;
                self.frames.jitter = jitter;
            }
            ThreadCmd::Do(c) => c.apply_to_client(&mut self.client),
            ThreadCmd::Wake => {}
        }
    }

    /// One turn at session time `t`: what the transport delivered, the frame when due, what
    /// the model sends, the keepalive and clock sample when due, then the loop's end of turn.
    fn turn(&mut self, lp: &mut MachineLoop<'_>, t: f64) {
        let me = Machine::Client(self.id);
        let local = t - self.start;
        for ev in lp.poll(&mut self.endpoint, t) {
            match ev {
                TransportEvent::Datagram { bytes, .. } => {
                    let kind = crate::model::wire::kind_of(&bytes);
                    if kind != MsgKind::Transport {
                        self.tele.send(packet_record(
                            t,
                            Machine::Server,
                            me,
                            bytes.len(),
                            PacketFate::Delivered,
                            kind,
                        ));
                    }
                    let _ = self.client.handle_datagram(local, &bytes);
                }
                TransportEvent::TimedOut(_) | TransportEvent::Disconnected(_) => {
                    self.tele.send(Record {
                        t,
                        machine: me,
                        event: Event::Log {
                            level: LogLevel::Warning,
                            text: "transport: the connection to the server timed out".into(),
                        },
                    });
                }
                TransportEvent::Connected(_) => {}
            }
        }
        if t >= self.next_frame {
            self.frame(t, local);
        }
        self.send_transmits(t);
        if t >= self.next_keepalive {
            self.next_keepalive = t + KEEPALIVE_INTERVAL.as_secs_f64();
            self.endpoint.send(
                self.server,
                crate::model::wire::encode_keepalive(&crate::model::wire::Header {
                    sender: self.id,
                    seq: 0,
                    layout: 0,
                }),
                true,
            );
        }
        if t >= self.next_sample {
            self.sample_clock(t, local);
        }
        let client = &mut self.client;
        lp.end_turn(
            &mut self.endpoint,
            t,
            self.next_frame.min(self.next_keepalive),
            |_| Machine::Server,
            |s| client.drain_telemetry(s),
        );
    }

    /// A frame of the model with this frame's input (the driving input over the script's;
    /// none before playing), and when the next is due (no catching up after falling behind).
    fn frame(&mut self, t: f64, local: f64) {
        let raw = if self.client.is_playing() {
            let scripted = self.script.sample(local);
            self.drive.unwrap_or(scripted)
        } else {
            RawInput::default()
        };
        self.client.frame(local, raw);
        let dt = self.frames.next_dt();
        self.next_frame += dt;
        if self.next_frame < t {
            self.next_frame = t + dt; // fell behind: do not try to catch up
        }
    }

    /// What the model sends, to the server.
    fn send_transmits(&mut self, t: f64) {
        while let Some(txm) = self.client.poll_transmit() {
            self.tele.send(packet_record(
                t,
                Machine::Client(self.id),
                Machine::Server,
                txm.bytes.len(),
                PacketFate::Sent,
                txm.kind,
            ));
            self.endpoint
                .send(self.server, txm.bytes, txm.delivery == Delivery::Reliable);
        }
    }

    /// The clock sample: how far the client's synchronized time is off the server's, while
    /// playing and once the server's time is known.
    fn sample_clock(&mut self, t: f64, local: f64) {
        self.next_sample = t + crate::sim::harness::CLOCK_SAMPLE_INTERVAL;
        if self.client.is_playing() && self.clock.server_time_known() {
            self.tele.send(Record {
                t,
                machine: Machine::Client(self.id),
                event: Event::ClockOffset {
                    offset: self.client.synced_time(local) - self.clock.server_time(t),
                },
            });
        }
    }
}
