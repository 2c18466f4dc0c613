//! A live client machine's thread: its model `Client`, its endpoint, its frame clock, commands
//! from the session and telemetry to it.

use crate::model::binding::Bindings;
use crate::model::input::RawInput;
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
use crate::session::setup::{self, packet_record};
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

pub(crate) fn spawn_client(s: ClientSpawn) -> Worker {
    let (tx, rx) = bounded(COMMAND_CAPACITY);
    let stop = Arc::new(AtomicBool::new(false));
    let setup::ClientSetup {
        mut client,
        script,
        mut frames,
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
                let mut script = script;
                let mut drive: Option<RawInput> = None;
                let mut lp = MachineLoop::new(&clock, &tele, (me, start), rx);
                let mut next_frame = start;
                let mut next_keepalive = start;
                let mut next_sample = start;
                while !stop2.load(Ordering::Acquire) {
                    for c in lp.commands() {
                        match c {
                            ThreadCmd::Do(MachineCmd::UpLink(params)) => {
                                if let Some(l) = endpoint.link_mut(&server) {
                                    l.set_params(params);
                                }
                            }
                            ThreadCmd::Do(MachineCmd::Drive(i)) => drive = i,
                            ThreadCmd::Do(MachineCmd::FrameRate { fps, jitter }) => {
                                frames.fps = fps;
                                frames.jitter = jitter;
                            }
                            ThreadCmd::Do(c) => c.apply_to_client(&mut client),
                            ThreadCmd::Wake => {}
                        }
                    }
                    if lp.paused() {
                        continue;
                    }
                    let t = clock.now();
                    if t < start {
                        sleep_until(&endpoint, &clock, start);
                        continue;
                    }
                    let local = t - start;
                    for ev in lp.poll(&mut endpoint, t) {
                        match ev {
                            TransportEvent::Datagram { bytes, .. } => {
                                let kind = crate::model::wire::kind_of(&bytes);
                                if kind != MsgKind::Transport {
                                    tele.send(packet_record(
                                        t,
                                        Machine::Server,
                                        me,
                                        bytes.len(),
                                        PacketFate::Delivered,
                                        kind,
                                    ));
                                }
                                let _ = client.handle_datagram(local, &bytes);
                            }
                            TransportEvent::TimedOut(_) | TransportEvent::Disconnected(_) => {
                                tele.send(Record {
                                    t,
                                    machine: me,
                                    event: Event::Log {
                                        level: LogLevel::Warning,
                                        text: "transport: the connection to the server timed out"
                                            .into(),
                                    },
                                });
                            }
                            TransportEvent::Connected(_) => {}
                        }
                    }
                    if t >= next_frame {
                        let raw = if client.is_playing() {
                            let scripted = script.sample(local);
                            drive.unwrap_or(scripted)
                        } else {
                            RawInput::default()
                        };
                        client.frame(local, raw);
                        let dt = frames.next_dt();
                        next_frame += dt;
                        if next_frame < t {
                            next_frame = t + dt; // fell behind: do not try to catch up
                        }
                    }
                    while let Some(txm) = client.poll_transmit() {
                        tele.send(packet_record(
                            t,
                            me,
                            Machine::Server,
                            txm.bytes.len(),
                            PacketFate::Sent,
                            txm.kind,
                        ));
                        endpoint.send(server, txm.bytes, txm.delivery == Delivery::Reliable);
                    }
                    if t >= next_keepalive {
                        next_keepalive = t + KEEPALIVE_INTERVAL.as_secs_f64();
                        endpoint.send(
                            server,
                            crate::model::wire::encode_keepalive(&crate::model::wire::Header {
                                sender: id,
                                seq: 0,
                                layout: 0,
                            }),
                            true,
                        );
                    }
                    if t >= next_sample {
                        next_sample = t + crate::sim::harness::CLOCK_SAMPLE_INTERVAL;
                        if client.is_playing() && clock.server_time_known() {
                            tele.send(Record {
                                t,
                                machine: me,
                                event: Event::ClockOffset {
                                    offset: client.synced_time(local) - clock.server_time(t),
                                },
                            });
                        }
                    }
                    lp.end_turn(
                        &mut endpoint,
                        t,
                        next_frame.min(next_keepalive),
                        |_| Machine::Server,
                        |s| client.drain_telemetry(s),
                    );
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
