//! The virtual-time harness: a server, N clients (each with its own clock and frame rate) and
//! their links, run event by event as fast as the CPU allows. The harness plays the role of the
//! network and the transport: it carries the model's messages through seeded [`Link`]s and
//! gives reliable messages retransmission, ordering and deduplication.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};
use std::sync::Arc;

use crate::model::binding::Bindings;
use crate::model::client::Client;
use crate::model::input::{InputScript, RawInput};
use crate::model::messages::{Delivery, MsgKind};
use crate::model::server::Server;
use crate::model::telemetry::{Event, Machine, PacketFate, Record};
use crate::preset::Preset;
use crate::rng::{Rng, derive_seed, purpose};
use crate::sim::link::{Fate, Link, LinkParams};

/// Seconds between clock-offset samples.
pub const CLOCK_SAMPLE_INTERVAL: f64 = 0.1;

/// A datagram on its way: the encoded bytes, exactly as a socket would carry them.
#[derive(Clone, Debug)]
struct Packet {
    client: u16,
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
    ClientFrame(u16),
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
    start: f64,
    input: InputScript,
    frame_rng: Rng,
    fps: f64,
    fps_jitter: f64,
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
    fn values_mut(&mut self) -> impl Iterator<Item = &mut ClientSlot> {
        self.0.iter_mut().filter_map(Option::as_mut)
    }
}

/// A whole session in virtual time.
pub struct Session {
    bindings: Arc<Bindings>,
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
    /// Builds a session from a preset. Fails with the preset's validation message.
    pub fn new(preset: &Preset) -> Result<Session, String> {
        let bindings = Arc::new(preset.checked_bindings()?);
        let server = Server::new(preset.server_config(bindings.clone()));
        let client_bindings = Arc::new(preset.client_bindings()?);
        let mut s = Session {
            bindings: bindings.clone(),
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
            let o = preset.client_overrides.iter().find(|o| o.client == i);
            let seed = preset.seed;
            let idx = u64::from(i);
            let start = f64::from(i + 1) * preset.join_interval_s;
            s.clients.insert(
                i,
                ClientSlot {
                    client: Client::new(preset.client_config(
                        i,
                        derive_seed(seed, purpose::CLIENT_NONCE, idx) as u32,
                        client_bindings.clone(),
                    )),
                    start,
                    input: InputScript::new(
                        preset.input_for(i),
                        derive_seed(seed, purpose::CLIENT_INPUT, idx),
                    ),
                    frame_rng: Rng::new(derive_seed(seed, purpose::CLIENT_FRAMES, idx)),
                    fps: o.and_then(|o| o.fps).unwrap_or(preset.client_fps),
                    fps_jitter: o
                        .and_then(|o| o.fps_jitter)
                        .unwrap_or(preset.client_fps_jitter),
                    up: Link::new(
                        preset.link_params(i, true),
                        derive_seed(seed, purpose::LINK_UP, idx),
                    ),
                    down: Link::new(
                        preset.link_params(i, false),
                        derive_seed(seed, purpose::LINK_DOWN, idx),
                    ),
                    up_rel: ReliableChannel::default(),
                    down_rel: ReliableChannel::default(),
                },
            );
            s.schedule(start, Action::ClientFrame(i));
        }
        s.schedule(0.0, Action::ServerFrame);
        s.schedule(CLOCK_SAMPLE_INTERVAL, Action::ClockSample);
        Ok(s)
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
    pub fn bindings(&self) -> &Arc<Bindings> {
        &self.bindings
    }

    /// Changes one direction of one client's link from now on.
    pub fn set_link(&mut self, client: u16, up: bool, params: LinkParams) {
        if let Some(s) = self.clients.get_mut(&client) {
            if up {
                s.up.set_params(params);
            } else {
                s.down.set_params(params);
            }
        }
    }

    /// Changes the binding list while the session runs. Consistent: a new layout version is
    /// defined on the server and every client; each client switches at its next new move and
    /// the server executes every move with the layout it was made with. Inconsistent (the
    /// pitfall): the clients redefine the version they are using and the server is not told.
    pub fn change_bindings(&mut self, bindings: Bindings, consistent: bool) {
        let b = Arc::new(bindings);
        if consistent {
            let v = self.server.layouts().next_version();
            self.server.define_layout(v, b.clone());
            self.server.use_layout(v);
            for s in self.clients.values_mut() {
                s.client.define_layout(v, b.clone());
                s.client.use_layout(v);
            }
        } else {
            for s in self.clients.values_mut() {
                let v = s.client.layouts().current();
                s.client.define_layout(v, b.clone());
            }
        }
        self.bindings = b;
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
            Action::ClientFrame(i) => {
                let slot = self
                    .clients
                    .get_mut(&i)
                    .expect("scheduled for an existing client");
                let local = now - slot.start;
                let raw = if slot.client.is_playing() {
                    slot.input.sample(local)
                } else {
                    RawInput::default()
                };
                slot.client.frame(local, raw);
                let base = 1.0 / slot.fps;
                let dt = base * (1.0 + slot.fps_jitter * (2.0 * slot.frame_rng.f64() - 1.0));
                self.flush_client(i, sink);
                self.collect_client(i, sink);
                self.schedule(now + dt, Action::ClientFrame(i));
            }
            Action::ServerFrame => {
                self.server.frame(now);
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
                for (i, s) in self.clients.iter() {
                    if s.client.is_playing() {
                        let offset = s.client.synced_time(now - s.start) - now;
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
        let slot = self
            .clients
            .get_mut(&i)
            .expect("scheduled for an existing client");
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
        self.server.drain_telemetry_each(|t, event| {
            sink(Record {
                t,
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
            let reliable_seq = match tx.delivery {
                Delivery::Reliable => {
                    let ch = &mut self
                        .clients
                        .get_mut(&i)
                        .expect("scheduled for an existing client")
                        .up_rel;
                    ch.next_seq += 1;
                    Some(ch.next_seq)
                }
                Delivery::Unreliable => None,
            };
            self.transmit(
                Packet {
                    client: i,
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
            self.transmit(
                Packet {
                    client: to,
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
        let machine = if fate == PacketFate::Delivered {
            to
        } else {
            from
        };
        sink(Record {
            t: self.now,
            machine,
            event: Event::Packet {
                from,
                to,
                bytes: pkt.bytes.len() as u32,
                fate,
                kind: pkt.kind,
            },
        });
    }

    fn transmit(&mut self, pkt: Packet, sink: &mut Sink) {
        let now = self.now;
        let slot = self
            .clients
            .get_mut(&pkt.client)
            .expect("scheduled for an existing client");
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
        self.packet_record(&pkt, PacketFate::Delivered, sink);
        let i = pkt.client;
        let up = pkt.up;
        let Some(seq) = pkt.reliable_seq else {
            self.hand_over(i, up, &pkt.bytes, sink);
            self.recycle(pkt.bytes);
            return;
        };
        let slot = self
            .clients
            .get_mut(&i)
            .expect("scheduled for an existing client");
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
    fn recycle(&mut self, bytes: Vec<u8>) {
        if self.spare.len() < SPARE_BUFFERS {
            self.spare.push(bytes);
        }
    }

    /// Gives a delivered datagram to its receiver.
    fn hand_over(&mut self, i: u16, up: bool, bytes: &[u8], sink: &mut Sink) {
        if up {
            // A malformed datagram is reported by the model's telemetry.
            let _ = self.server.handle_datagram(self.now, bytes);
            self.flush_server(sink);
            self.collect_server(sink);
        } else {
            let slot = self
                .clients
                .get_mut(&i)
                .expect("scheduled for an existing client");
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
