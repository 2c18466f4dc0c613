//! The virtual-time harness: a server, N clients (each with its own clock and frame rate) and
//! their links, run event by event as fast as the CPU allows. The harness plays the role of the
//! network and the transport: it carries the model's messages through seeded [`Link`]s and
//! gives reliable messages retransmission, ordering and deduplication.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};
use std::sync::Arc;

use crate::conditions::link::{Fate, Link};
use crate::model::binding::Bindings;
use crate::model::client::Client;
use crate::model::input::{InputScript, RawInput};
use crate::model::messages::{Delivery, MsgKind};
use crate::model::server::Server;
use crate::model::telemetry::{Event, LogLevel, Machine, PacketFate, Record};
use crate::session::control::{Command, CommandError, MachineCmd, Outcome, Settings, To};
use crate::session::preset::{BindingsError, Preset};
use crate::session::setup::{self, FrameClock};

/// Seconds between clock-offset samples.
pub const CLOCK_SAMPLE_INTERVAL: f64 = 0.1;

/// A datagram on its way: the encoded bytes, exactly as a socket would carry them.
#[derive(Clone, Debug)]
struct Packet {
    client: u16,
    /// The incarnation of the client this packet is from or for (a packet of a removed or
    /// restarted client's earlier incarnation is dropped, as its socket is gone).
    generation: u32,
    /// Client to server.
    up: bool,
    bytes: Vec<u8>,
    reliable_seq: Option<u32>,
    kind: MsgKind,
}

impl Packet {
    fn endpoints(&self) -> (Machine, Machine) {
        if self.up {
            (Machine::Client(self.client), Machine::Server)
        } else {
            (Machine::Server, Machine::Client(self.client))
        }
    }
}

#[derive(Debug)]
enum Action {
    /// A frame of client (id, generation).
    ClientFrame(u16, u32),
    /// A command, by its index in `Session::commands`.
    Command(u32),
    ServerFrame,
    /// Packets in flight are kept in `Session::packets`; these are their slots.
    Deliver(u32),
    Retransmit(u32),
    ClockSample,
}

struct Scheduled {
    /// The time, as a key that orders like `f64::total_cmp` ([`time_key`]), in the high 64
    /// bits, and the scheduling sequence number in the low: events order by time, then by
    /// when they were scheduled, in one integer comparison.
    order: u128,
    action: Action,
}

/// `t` as an unsigned key with the order of `f64::total_cmp` (so the heap compares integers).
fn time_key(t: f64) -> u64 {
    let b = t.to_bits() as i64;
    ((b ^ (((b >> 63) as u64) >> 1) as i64) as u64) ^ (1 << 63)
}

/// The inverse of [`time_key`].
fn key_time(key: u64) -> f64 {
    let b = (key ^ (1 << 63)) as i64;
    f64::from_bits((b ^ (((b >> 63) as u64) >> 1) as i64) as u64)
}

impl Scheduled {
    fn at(&self) -> f64 {
        key_time((self.order >> 64) as u64)
    }
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    /// Reversed: the earliest (then first scheduled) event is the heap's maximum.
    fn cmp(&self, other: &Self) -> Ordering {
        other.order.cmp(&self.order)
    }
}

/// Reliable delivery state of one direction: retransmission happens at the sender, ordering and
/// deduplication here at the receiver.
#[derive(Default)]
struct ReliableChannel {
    next_seq: u32,
    expected: u32,
    held: BTreeMap<u32, Vec<u8>>,
}

struct ClientSlot {
    client: Client,
    /// Bumped when the client is restarted (its earlier frames and packets are dropped).
    generation: u32,
    start: f64,
    input: InputScript,
    frames: FrameClock,
    /// Input from outside instead of the script (`Command::Drive`).
    drive: Option<RawInput>,
    up: Link,
    down: Link,
    up_rel: ReliableChannel,
    down_rel: ReliableChannel,
}

/// The clients by id (ids are small and dense: a vector, not a map; iterated in id order).
#[derive(Default)]
struct Clients(Vec<Option<ClientSlot>>);

impl Clients {
    fn insert(&mut self, i: u16, slot: ClientSlot) {
        let i = usize::from(i);
        if self.0.len() <= i {
            self.0.resize_with(i + 1, || None);
        }
        self.0[i] = Some(slot);
    }
    #[inline]
    fn get(&self, i: &u16) -> Option<&ClientSlot> {
        self.0.get(usize::from(*i)).and_then(Option::as_ref)
    }
    #[inline]
    fn get_mut(&mut self, i: &u16) -> Option<&mut ClientSlot> {
        self.0.get_mut(usize::from(*i)).and_then(Option::as_mut)
    }
    fn iter(&self) -> impl Iterator<Item = (u16, &ClientSlot)> {
        self.0
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((i as u16, s.as_ref()?)))
    }
    fn remove(&mut self, i: u16) -> Option<ClientSlot> {
        self.0.get_mut(usize::from(i)).and_then(Option::take)
    }
    fn ids(&self) -> Vec<u16> {
        self.iter().map(|(i, _)| i).collect()
    }
}

/// A whole session in virtual time.
pub struct Session {
    /// The session's effective settings and layouts: the same [`Settings`] the live session
    /// keeps, changed only by [`Command`]s.
    settings: Settings,
    /// Session time at which the current server started (its world clock starts there).
    server_start: f64,
    /// Clients started after the session began (added or restarted): each gets the session's next incarnation.
    incarnations: u32,
    /// Commands scheduled by [`Session::command_at`], by index (taken when applied).
    commands: Vec<Option<Command>>,
    /// The next generation of each client id (see [`ClientSlot::generation`]).
    generations: Vec<u32>,
    now: f64,
    seq: u64,
    queue: BinaryHeap<Scheduled>,
    /// Packets in flight, by slot (`None`: free).
    packets: Vec<Option<Packet>>,
    free_packets: Vec<u32>,
    server: Server,
    server_fps: f64,
    clients: Clients,
    /// Buffers of datagrams that were delivered or dropped, for the next ones to be encoded
    /// into (saves an allocation and a free per datagram).
    spare: Vec<Vec<u8>>,
}

/// Spare datagram buffers kept at most.
const SPARE_BUFFERS: usize = 64;

/// Where the harness hands its telemetry records, as they happen.
type Sink<'a> = dyn FnMut(Record) + 'a;

impl Session {
    /// Builds a session from a preset. Fails when the preset is invalid (the key and what it
    /// expected).
    pub fn new(preset: &Preset) -> Result<Session, BindingsError> {
        let settings = Settings::new(preset)?;
        let server = Server::new(preset.server_config(settings.initial_bindings().clone()));
        let mut s = Session {
            settings,
            server_start: 0.0,
            incarnations: 0,
            commands: Vec::new(),
            generations: Vec::new(),
            now: 0.0,
            seq: 0,
            queue: BinaryHeap::new(),
            packets: Vec::new(),
            free_packets: Vec::new(),
            server,
            server_fps: preset.server_fps,
            clients: Clients::default(),
            spare: Vec::new(),
        };
        for i in preset.network_clients() {
            s.add_client(i, setup::join_time(preset, i), 0);
        }
        s.schedule(0.0, Action::ServerFrame);
        s.schedule(CLOCK_SAMPLE_INTERVAL, Action::ClockSample);
        Ok(s)
    }

    /// Sets up client `id` (incarnation 0: one the session starts with) to start at `start`.
    fn add_client(&mut self, id: u16, start: f64, incarnation: u32) {
        let setup::ClientSetup {
            client,
            script,
            frames,
            up,
            down,
        } = setup::client(
            self.settings.preset(),
            id,
            incarnation,
            self.settings.client_bindings().clone(),
            self.settings.client_layouts(),
        );
        let i = usize::from(id);
        if self.generations.len() <= i {
            self.generations.resize(i + 1, 0);
        }
        let generation = self.generations[i];
        self.generations[i] += 1;
        self.clients.insert(
            id,
            ClientSlot {
                client,
                generation,
                start,
                input: script,
                frames,
                drive: None,
                up,
                down,
                up_rel: ReliableChannel::default(),
                down_rel: ReliableChannel::default(),
            },
        );
        self.schedule(start, Action::ClientFrame(id, generation));
    }

    pub fn now(&self) -> f64 {
        self.now
    }
    pub fn server(&self) -> &Server {
        &self.server
    }
    pub fn client(&self, i: u16) -> Option<&Client> {
        self.clients.get(&i).map(|s| &s.client)
    }
    /// The binding list the server uses now.
    pub fn bindings(&self) -> Arc<Bindings> {
        self.settings.bindings()
    }

    /// The preset as the session runs it now (every command applied).
    pub fn preset(&self) -> &Preset {
        self.settings.preset()
    }

    /// The ids of the running clients.
    pub fn client_ids(&self) -> Vec<u16> {
        self.clients.ids()
    }

    /// Applies `cmd` now (at [`Self::now`]): the command vocabulary of live sessions, planned
    /// by the same [`Settings`], so every live control runs in virtual time too. The
    /// `SessionChanged` record goes to `sink`. Virtual time has no wall clock, so pausing
    /// and resuming change nothing here.
    pub fn command(
        &mut self,
        cmd: Command,
        sink: &mut dyn FnMut(Record),
    ) -> Result<Outcome, CommandError> {
        let ids = self.clients.ids();
        let planned = self.settings.plan(&cmd, &ids)?;
        let now = self.now;
        match cmd {
            Command::AddClient => {
                let id = Settings::next_client_id(&ids);
                self.incarnations += 1;
                self.add_client(id, now, self.incarnations);
            }
            Command::RemoveClient(id) => {
                // Its scheduled frames and packets in flight find no slot (or a later
                // generation) and are dropped.
                self.clients.remove(id);
            }
            Command::RestartClient(id) => {
                self.incarnations += 1;
                self.add_client(id, now, self.incarnations);
            }
            Command::RestartServer => self.restart_server(now),
            Command::Pause
            | Command::Resume
            | Command::Drive { .. }
            | Command::SetLink { .. }
            | Command::SetGmc(_)
            | Command::SetFaults(_)
            | Command::SetWorld(_)
            | Command::SetSmoothing(_)
            | Command::SetNetUpdateRate(_)
            | Command::SetClientFrameRate { .. }
            | Command::HookTrace(_)
            | Command::ValueTrace(_)
            | Command::BufferTrace(_)
            | Command::ChangeBindings { .. } => {}
        }
        if planned.respawn {
            // A new binding list: new pawns everywhere, as a new build would have.
            self.restart_server(now);
            for id in self.clients.ids() {
                self.incarnations += 1;
                self.add_client(id, now, self.incarnations);
            }
        }
        for (to, c) in planned.sends {
            let server = matches!(to, To::Server | To::Everyone);
            let clients: Vec<u16> = match to {
                To::Server => Vec::new(),
                To::Client(id) => vec![id],
                To::Clients | To::Everyone => self.clients.ids(),
            };
            if server {
                match &c {
                    MachineCmd::DownLink { client, params } => {
                        if let Some(slot) = self.clients.get_mut(client) {
                            slot.down.set_params(params.clone());
                        }
                    }
                    other => other.apply_to_server(&mut self.server),
                }
            }
            for id in clients {
                let Some(slot) = self.clients.get_mut(&id) else {
                    continue;
                };
                match &c {
                    MachineCmd::UpLink(params) => slot.up.set_params(params.clone()),
                    MachineCmd::Drive(input) => slot.drive = *input,
                    MachineCmd::FrameRate { fps, jitter } => {
                        slot.frames.fps = *fps;
                        slot.frames.jitter = *jitter;
                    }
                    other => other.apply_to_client(&mut slot.client),
                }
            }
        }
        self.collect_server(sink);
        for id in self.clients.ids() {
            self.collect_client(id, sink);
        }
        if let Some(what) = planned.change {
            sink(Record {
                t: now,
                machine: Machine::Server,
                event: Event::SessionChanged { what },
            });
        }
        Ok(planned.outcome)
    }

    /// A new server with the session's settings and binding layouts; clients rejoin it.
    fn restart_server(&mut self, now: f64) {
        let mut server = Server::new(
            self.settings
                .preset()
                .server_config(self.settings.initial_bindings().clone()),
        );
        for (v, b) in self.settings.server_layouts() {
            server.define_layout(v, b);
        }
        if let Some(v) = self.settings.server_layouts().last().map(|(v, _)| *v) {
            server.use_layout(v);
        }
        self.server = server;
        self.server_start = now;
    }

    /// Schedules `cmd` at session time `t` (after the events already scheduled for `t`). A
    /// command refused then is recorded as an error `Log` record of the server.
    pub fn command_at(&mut self, t: f64, cmd: Command) {
        self.commands.push(Some(cmd));
        let i = (self.commands.len() - 1) as u32;
        self.schedule(t.max(self.now), Action::Command(i));
    }

    /// Brings the session to `target`'s settings (what may change live changes; the outcome
    /// names restart-only settings that differ, and then nothing changed): the same decision
    /// as the live session's.
    pub fn change_to(
        &mut self,
        target: &Preset,
        sink: &mut dyn FnMut(Record),
    ) -> Result<Outcome, CommandError> {
        let cmds = match self.settings.commands_to(target, &self.clients.ids())? {
            Ok(cmds) => cmds,
            Err(keys) => return Ok(Outcome::NeedsRestart(keys)),
        };
        let mut outcome = Outcome::NoChange;
        for c in cmds {
            outcome = outcome.max(self.command(c, sink)?);
        }
        self.settings.adopt(target);
        Ok(outcome)
    }

    fn schedule(&mut self, at: f64, action: Action) {
        self.seq += 1;
        self.queue.push(Scheduled {
            order: (u128::from(time_key(at)) << 64) | u128::from(self.seq),
            action,
        });
    }

    /// Runs every event up to and including session time `t_end`, handing each telemetry
    /// record to `sink` in time order per machine.
    pub fn run_until(&mut self, t_end: f64, sink: &mut dyn FnMut(Record)) {
        while self.queue.peek().is_some_and(|s| s.at() <= t_end) {
            let Some(ev) = self.queue.pop() else { break };
            self.now = ev.at();
            // Records go straight to the sink, in the order they happen (no buffer between).
            self.dispatch(ev.action, sink);
        }
        self.now = self.now.max(t_end);
    }

    fn dispatch(&mut self, action: Action, sink: &mut Sink) {
        let now = self.now;
        match action {
            Action::ClientFrame(i, generation) => {
                // A removed or restarted client's earlier frames end here.
                let Some(slot) = self
                    .clients
                    .get_mut(&i)
                    .filter(|s| s.generation == generation)
                else {
                    return;
                };
                let local = now - slot.start;
                let raw = if slot.client.is_playing() {
                    // The script is sampled while driven too, so its stream stays the same.
                    let scripted = slot.input.sample(local);
                    slot.drive.unwrap_or(scripted)
                } else {
                    RawInput::default()
                };
                slot.client.frame(local, raw);
                let dt = slot.frames.next_dt();
                self.flush_client(i, sink);
                self.collect_client(i, sink);
                self.schedule(now + dt, Action::ClientFrame(i, generation));
            }
            Action::Command(k) => {
                if let Some(cmd) = self.commands.get_mut(k as usize).and_then(Option::take)
                    && let Err(e) = self.command(cmd, sink)
                {
                    sink(Record {
                        t: now,
                        machine: Machine::Server,
                        event: Event::Log {
                            level: LogLevel::Error,
                            text: format!("command {e}"),
                        },
                    });
                }
            }
            Action::ServerFrame => {
                self.server.frame(now - self.server_start);
                self.flush_server(sink);
                self.collect_server(sink);
                self.schedule(now + 1.0 / self.server_fps, Action::ServerFrame);
            }
            Action::Deliver(slot) => {
                if let Some(pkt) = self.take_packet(slot) {
                    self.deliver(pkt, sink);
                }
            }
            Action::Retransmit(slot) => {
                if let Some(pkt) = self.take_packet(slot) {
                    self.transmit(pkt, sink);
                }
            }
            Action::ClockSample => {
                let server_now = now - self.server_start;
                for (i, s) in self.clients.iter() {
                    if s.client.is_playing() {
                        let offset = s.client.synced_time(now - s.start) - server_now;
                        sink(Record {
                            t: now,
                            machine: Machine::Client(i),
                            event: Event::ClockOffset { offset },
                        });
                    }
                }
                self.schedule(now + CLOCK_SAMPLE_INTERVAL, Action::ClockSample);
            }
        }
    }

    fn collect_client(&mut self, i: u16, sink: &mut Sink) {
        let Some(slot) = self.clients.get_mut(&i) else {
            return;
        };
        let start = slot.start;
        slot.client.drain_telemetry_each(|local, event| {
            sink(Record {
                t: start + local,
                machine: Machine::Client(i),
                event,
            })
        });
    }

    fn collect_server(&mut self, sink: &mut Sink) {
        let start = self.server_start;
        self.server.drain_telemetry_each(|t, event| {
            sink(Record {
                t: start + t,
                machine: Machine::Server,
                event,
            })
        });
    }

    fn flush_client(&mut self, i: u16, sink: &mut Sink) {
        while let Some(tx) = self
            .clients
            .get_mut(&i)
            .and_then(|s| s.client.poll_transmit_reusing(&mut self.spare))
        {
            let Some(slot) = self.clients.get_mut(&i) else {
                return;
            };
            let generation = slot.generation;
            let reliable_seq = match tx.delivery {
                Delivery::Reliable => {
                    let ch = &mut slot.up_rel;
                    ch.next_seq += 1;
                    Some(ch.next_seq)
                }
                Delivery::Unreliable => None,
            };
            self.transmit(
                Packet {
                    client: i,
                    generation,
                    up: true,
                    bytes: tx.bytes,
                    reliable_seq,
                    kind: tx.kind,
                },
                sink,
            );
        }
    }

    fn flush_server(&mut self, sink: &mut Sink) {
        while let Some((to, tx)) = self.server.poll_transmit_reusing(&mut self.spare) {
            let Some(slot) = self.clients.get_mut(&to) else {
                continue;
            };
            let reliable_seq = match tx.delivery {
                Delivery::Reliable => {
                    slot.down_rel.next_seq += 1;
                    Some(slot.down_rel.next_seq)
                }
                Delivery::Unreliable => None,
            };
            let generation = slot.generation;
            self.transmit(
                Packet {
                    client: to,
                    generation,
                    up: false,
                    bytes: tx.bytes,
                    reliable_seq,
                    kind: tx.kind,
                },
                sink,
            );
        }
    }

    fn packet_record(&self, pkt: &Packet, fate: PacketFate, sink: &mut Sink) {
        let (from, to) = pkt.endpoints();
        sink(setup::packet_record(
            self.now,
            from,
            to,
            pkt.bytes.len(),
            fate,
            pkt.kind,
        ));
    }

    fn transmit(&mut self, pkt: Packet, sink: &mut Sink) {
        let now = self.now;
        let Some(slot) = self
            .clients
            .get_mut(&pkt.client)
            .filter(|s| s.generation == pkt.generation)
        else {
            // The client is gone (removed or restarted): its socket with it.
            self.recycle(pkt.bytes);
            return;
        };
        let fate = if pkt.up {
            slot.up.send(now, pkt.bytes.len())
        } else {
            slot.down.send(now, pkt.bytes.len())
        };
        // Retransmission timeout: one configured round trip plus margin.
        let (u, d) = (slot.up.params(), slot.down.params());
        let rto = ((u.latency_ms + d.latency_ms + 2.0 * (u.jitter_ms + d.jitter_ms)) / 1000.0
            + 0.02)
            .max(0.03);
        self.packet_record(&pkt, PacketFate::Sent, sink);
        match fate {
            Fate::Dropped(_) => {
                self.packet_record(&pkt, PacketFate::Dropped, sink);
                if pkt.reliable_seq.is_some() {
                    let slot = self.keep_packet(pkt);
                    self.schedule(now + rto, Action::Retransmit(slot));
                } else {
                    self.recycle(pkt.bytes);
                }
            }
            Fate::Delivered(at) => {
                let slot = self.keep_packet(pkt);
                self.schedule(at, Action::Deliver(slot));
            }
            Fate::Duplicated(a, b) => {
                self.packet_record(&pkt, PacketFate::Duplicated, sink);
                let first = self.keep_packet(pkt.clone());
                self.schedule(a, Action::Deliver(first));
                let second = self.keep_packet(pkt);
                self.schedule(b, Action::Deliver(second));
            }
        }
    }

    /// Keeps a packet in flight; its slot.
    fn keep_packet(&mut self, pkt: Packet) -> u32 {
        match self.free_packets.pop() {
            Some(slot) => {
                self.packets[slot as usize] = Some(pkt);
                slot
            }
            None => {
                self.packets.push(Some(pkt));
                (self.packets.len() - 1) as u32
            }
        }
    }

    /// The packet in `slot` (the slot is free again).
    fn take_packet(&mut self, slot: u32) -> Option<Packet> {
        let pkt = self.packets.get_mut(slot as usize)?.take()?;
        self.free_packets.push(slot);
        Some(pkt)
    }

    fn deliver(&mut self, pkt: Packet, sink: &mut Sink) {
        if self
            .clients
            .get(&pkt.client)
            .is_none_or(|s| s.generation != pkt.generation)
        {
            // The client is gone (removed or restarted): its socket with it.
            self.recycle(pkt.bytes);
            return;
        }
        self.packet_record(&pkt, PacketFate::Delivered, sink);
        let i = pkt.client;
        let up = pkt.up;
        let Some(seq) = pkt.reliable_seq else {
            self.hand_over(i, up, &pkt.bytes, sink);
            self.recycle(pkt.bytes);
            return;
        };
        let Some(slot) = self.clients.get_mut(&i) else {
            return;
        };
        let ch = if up {
            &mut slot.up_rel
        } else {
            &mut slot.down_rel
        };
        if ch.expected == 0 {
            ch.expected = 1;
        }
        if seq >= ch.expected {
            ch.held.entry(seq).or_insert(pkt.bytes);
        }
        let mut ready = Vec::new();
        while let Some(p) = ch.held.remove(&ch.expected) {
            ready.push(p);
            ch.expected += 1;
        }
        for bytes in ready {
            self.hand_over(i, up, &bytes, sink);
            self.recycle(bytes);
        }
    }

    /// Keeps a finished datagram's buffer for a later datagram.
    #[inline]
    fn recycle(&mut self, bytes: Vec<u8>) {
        if self.spare.len() < SPARE_BUFFERS {
            self.spare.push(bytes);
        }
    }

    /// Gives a delivered datagram to its receiver.
    fn hand_over(&mut self, i: u16, up: bool, bytes: &[u8], sink: &mut Sink) {
        if up {
            // A malformed datagram is reported by the model's telemetry.
            let _ = self
                .server
                .handle_datagram(self.now - self.server_start, bytes);
            self.flush_server(sink);
            self.collect_server(sink);
        } else {
            let Some(slot) = self.clients.get_mut(&i) else {
                return;
            };
            let _ = slot.client.handle_datagram(self.now - slot.start, bytes);
            self.collect_client(i, sink);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_keys_order_like_total_cmp_and_round_trip() {
        let ts = [
            f64::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            1e-300,
            0.008_333,
            0.05,
            1.0,
            600.0,
            f64::INFINITY,
        ];
        for a in ts {
            assert_eq!(key_time(time_key(a)).to_bits(), a.to_bits());
            for b in ts {
                assert_eq!(time_key(a).cmp(&time_key(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }
}
