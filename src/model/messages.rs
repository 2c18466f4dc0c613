//! Messages the client and server exchange. The model hands these to whatever carries them
//! (the virtual-time harness, or the live transport) and says how they must be delivered.
//!
//! [`ClientMsg::wire_bytes`] / [`ServerMsg::wire_bytes`] give the size of the bit-packed
//! encoding: a fixed header plus every carried bound value at its wire size, in binding order.

use super::binding::{Bindings, FieldMask, Value, zigzag};
use super::pawn::PawnValues;
use std::sync::Arc;

/// Bytes of the fixed datagram header: magic (2), protocol version (1), message kind (1),
/// sender (2), sequence number (4), binding layout version (1). See `crate::wire`.
pub const HEADER_BYTES: usize = 11;

/// The kind of a message, for packet telemetry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum MsgKind {
    Join,
    Moves,
    Ping,
    Welcome,
    Ack,
    Correction,
    WorldTime,
    Pong,
    Reset,
    ProxySpawn,
    ProxyDespawn,
    StateUpdate,
    /// A transport-level datagram (live sessions: laminar's acks, keep-alives, resends).
    Transport,
}

/// How a message must travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// Retransmitted until delivered, in order, at most once.
    Reliable,
    /// May be lost, duplicated or reordered; the receiver deduplicates.
    Unreliable,
}

/// One move as the client sends it.
#[derive(Clone, Debug, PartialEq)]
pub struct WireMove {
    pub id: u32,
    /// Seconds, in whole 10 µs units.
    pub timestamp: f64,
    /// Seconds, in whole 10 µs units.
    pub delta: f64,
    /// Input values; only the fields in `Bindings::client_sends_input` are meaningful.
    pub input: PawnValues,
    /// Output values; only the fields in `Bindings::client_sends_output` are meaningful.
    pub output: PawnValues,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ClientMsg {
    /// Ask the server for a pawn. `incarnation` tells a retransmitted join (the same number)
    /// from a client that restarted (a larger one: every client started later in a session
    /// gets the session's next number), and a replay of an old join (a smaller or equal one,
    /// from elsewhere) from both. `proof` is [`join_proof`] with the client's own key (a
    /// stranger does not know it, and a join seen on the wire proves only itself);
    /// `layout_hash` lets the server notice a binding list that differs from its own.
    Join {
        incarnation: u32,
        proof: u64,
        layout_hash: u32,
    },
    /// A batch of completed moves, oldest first, all made with binding layout `layout`.
    /// `epoch` is the number of server corrections the client had adopted when it sent it.
    Moves {
        layout: u8,
        epoch: u32,
        /// How far in the past (ms) the client displays other pawns: the server rolls them
        /// back by this much for hit checks.
        view_delay_ms: u16,
        moves: Vec<WireMove>,
    },
    Ping {
        seq: u32,
        client_time: f64,
    },
}

/// A value the server found deviating, in one move.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviationReport {
    pub move_id: u32,
    /// Index into the binding list.
    pub binding: u16,
    pub client_value: Value,
    pub server_value: Value,
}

/// What actor replication brings when it spawns a pawn's actor on a machine: the actor's
/// transform at that moment and its ordinary (unbound) actor properties. Bound values are not
/// part of it: they come with server updates.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpawnData {
    pub location: glam::DVec3,
    /// (pitch, yaw, roll) in degrees.
    pub rotation: glam::DVec3,
    /// The demo pawn's team as an actor property; 0 when it travels only bound
    /// (`faults.spawn_data_only_bound`).
    pub team: u8,
}

/// A vector as Unreal quantizes a new actor's transform on spawn: to one decimal, rounded
/// half away from zero per component (`FVector_NetQuantize10`).
pub fn quantize_on_spawn(v: glam::DVec3) -> glam::DVec3 {
    let q = |x: f64| (x * 10.0).round() / 10.0;
    glam::DVec3::new(q(v.x), q(v.y), q(v.z))
}

/// Bits of [`SpawnData`] on the wire: six 32-bit floats and the team.
pub const SPAWN_DATA_BITS: usize = 6 * 32 + 8;

impl SpawnData {
    /// The spawn data of a pawn whose values are `v`; `team_as_property` says whether the
    /// team travels as an actor property. Location and rotation are quantized to one decimal,
    /// as Unreal sends a new actor's transform by default (`net.QuantizeActorLocationOnSpawn`
    /// and `net.QuantizeActorRotationOnSpawn` are on); the server's actor keeps its exact
    /// values, so the owning client starts up to 0.05 cm from where the server has its pawn.
    pub fn of(v: &PawnValues, team_as_property: bool) -> Self {
        SpawnData {
            location: quantize_on_spawn(v.location),
            rotation: quantize_on_spawn(v.rotation),
            team: if team_as_property { v.team } else { 0 },
        }
    }

    /// A pawn's values as the spawned actor has them: the transform and the actor
    /// properties; every bound value at its default.
    pub fn values(&self) -> PawnValues {
        PawnValues {
            location: self.location,
            rotation: self.rotation,
            team: self.team,
            ..Default::default()
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ServerMsg {
    /// The client's pawn exists; `spawn` is what actor replication brings of it (no bound
    /// value: those come with the first server update); `replicators` is the number of
    /// world-time replicators in the world (they reach the client by actor replication).
    Welcome {
        layout: u8,
        pawn: u16,
        spawn: SpawnData,
        replicators: u8,
        server_time: f64,
    },
    /// The server executed moves up to `move_id`; `values` carries the client-validated fields
    /// of the state after that move.
    Ack {
        layout: u8,
        move_id: u32,
        values: PawnValues,
    },
    /// The server found a deviation; `state` is its authoritative state after `move_id`.
    Correction {
        layout: u8,
        move_id: u32,
        epoch: u32,
        state: PawnValues,
        deviations: Vec<DeviationReport>,
    },
    WorldTime {
        replicator: u8,
        server_time: f64,
    },
    Pong {
        seq: u32,
        client_time: f64,
    },
    /// The server does not know this client (it restarted, or dropped the client): join again.
    Reset,
    /// A pawn this client does not control exists (actor replication), with its actor's
    /// spawn data.
    ProxySpawn {
        pawn: u16,
        owner: u16,
        spawn: SpawnData,
    },
    /// A pawn was destroyed.
    ProxyDespawn {
        pawn: u16,
    },
    /// States of pawns for simulated proxies, at server time `server_time`: only the fields
    /// bound with a SimulationMode other than None are meaningful.
    StateUpdate {
        layout: u8,
        server_time: f64,
        entries: StateEntries,
    },
}

/// The entries of a [`ServerMsg::StateUpdate`]: a list of its own (a decoded datagram), or
/// some of the entries the server built for one net update, picked by index. Every client's
/// datagrams of an update share that list, so building a client's update copies indices, not
/// states, and the encoder finds each entry's bits by its index (see `wire::EntryCache`).
/// Two `StateEntries` are equal when they hold equal entries in the same order, however held.
#[derive(Clone)]
pub struct StateEntries(Held);

#[derive(Clone)]
enum Held {
    Owned(Vec<ProxyEntry>),
    /// Every index is within `all` (see [`StateEntries::picked`]).
    Shared {
        all: Arc<[ProxyEntry]>,
        picked: Vec<u16>,
    },
}

impl StateEntries {
    /// The entries of `all` at the indices `picked`, in that order (an index past the end of
    /// `all` is left out).
    pub fn picked(all: Arc<[ProxyEntry]>, mut picked: Vec<u16>) -> StateEntries {
        picked.retain(|&i| usize::from(i) < all.len());
        StateEntries(Held::Shared { all, picked })
    }

    /// The shared list and the picked indices, when the entries are held that way.
    pub fn shared_parts(&self) -> Option<(&Arc<[ProxyEntry]>, &[u16])> {
        match &self.0 {
            Held::Owned(_) => None,
            Held::Shared { all, picked } => Some((all, picked)),
        }
    }

    pub fn len(&self) -> usize {
        match &self.0 {
            Held::Owned(v) => v.len(),
            Held::Shared { picked, .. } => picked.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th entry.
    pub fn get(&self, i: usize) -> Option<&ProxyEntry> {
        match &self.0 {
            Held::Owned(v) => v.get(i),
            Held::Shared { all, picked } => picked.get(i).and_then(|&k| all.get(usize::from(k))),
        }
    }

    pub fn first(&self) -> Option<&ProxyEntry> {
        self.get(0)
    }

    pub fn iter(&self) -> StateEntriesIter<'_> {
        StateEntriesIter {
            entries: self,
            next: 0,
        }
    }

    /// The entries as a list of their own (moved out when they are one already).
    pub fn into_vec(self) -> Vec<ProxyEntry> {
        match self.0 {
            Held::Owned(v) => v,
            Held::Shared { all, picked } => picked
                .iter()
                .filter_map(|&k| all.get(usize::from(k)).cloned())
                .collect(),
        }
    }
}

impl From<Vec<ProxyEntry>> for StateEntries {
    fn from(v: Vec<ProxyEntry>) -> Self {
        StateEntries(Held::Owned(v))
    }
}

impl FromIterator<ProxyEntry> for StateEntries {
    fn from_iter<I: IntoIterator<Item = ProxyEntry>>(iter: I) -> Self {
        StateEntries(Held::Owned(iter.into_iter().collect()))
    }
}

impl PartialEq for StateEntries {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for StateEntries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The entries of a [`StateEntries`], in order.
pub struct StateEntriesIter<'a> {
    entries: &'a StateEntries,
    next: usize,
}

impl<'a> Iterator for StateEntriesIter<'a> {
    type Item = &'a ProxyEntry;

    fn next(&mut self) -> Option<&'a ProxyEntry> {
        let e = self.entries.get(self.next)?;
        self.next += 1;
        Some(e)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.entries.len().saturating_sub(self.next);
        (left, Some(left))
    }
}

impl<'a> IntoIterator for &'a StateEntries {
    type Item = &'a ProxyEntry;
    type IntoIter = StateEntriesIter<'a>;

    fn into_iter(self) -> StateEntriesIter<'a> {
        self.iter()
    }
}

/// One pawn's state in a [`ServerMsg::StateUpdate`]. The server puts raw values here; they
/// are quantized by the encoding (only the simulated fields travel).
#[derive(Clone, Debug, PartialEq)]
pub struct ProxyEntry {
    pub pawn: u16,
    /// Sent because a PeriodicAndOnChange value changed (not on the periodic schedule).
    pub forced: bool,
    pub values: PawnValues,
}

/// Owner value meaning "nobody" (a server-controlled pawn) in [`ServerMsg::ProxySpawn`].
pub const NO_OWNER: u16 = 0xFFFF;

/// Bits of a `StateUpdate` body before its entries: server time (64) and count (8).
pub const STATE_UPDATE_HEADER_BITS: usize = 64 + 8;

/// Bits of one state-update entry.
pub fn proxy_entry_bits(b: &Bindings, e: &ProxyEntry) -> usize {
    16 + 1 + values_bits(b, &e.values, b.simulated)
}

fn values_bits(b: &Bindings, v: &PawnValues, mask: FieldMask) -> usize {
    b.list()
        .iter()
        .filter(|x| mask.contains(x.field))
        .map(|x| v.member_wire_bits(x.field, x.ty) as usize)
        .sum()
}

fn bytes(bits: usize) -> usize {
    HEADER_BYTES + bits.div_ceil(8)
}

/// Bits of a `Moves` batch before its first move: epoch (32), view delay (16), count (8),
/// consecutive-ids flag
/// (1), first id (32), base timestamp (48), step and delta widths (6 + 6).
pub const MOVES_BATCH_HEADER_BITS: usize = 32 + 16 + 8 + 1 + 32 + 48 + 6 + 6;

/// Bits a `Moves` batch body occupies (see `wire` for the layout): epoch, count, a
/// "consecutive ids" flag, the first id, the base timestamp and two width headers, then per
/// move the timestamp step, the delta (one bit when it equals the step) and the values the
/// client sends, in binding order.
pub fn moves_body_bits(b: &Bindings, moves: &[WireMove]) -> usize {
    moves_frame_bits(moves) + moves.iter().map(|m| move_value_bits(b, m)).sum::<usize>()
}

/// The bits of a `Moves` batch body other than the moves' values: [`moves_body_bits`] is
/// this plus every move's [`move_value_bits`].
pub fn moves_frame_bits(moves: &[WireMove]) -> usize {
    let (consecutive, step_width, delta_width, explicit) = batch_widths(moves);
    let n = moves.len();
    MOVES_BATCH_HEADER_BITS
        + if consecutive { 0 } else { 32 * n }
        + n.saturating_sub(1) * (step_width as usize + 1)
        + explicit * delta_width as usize
}

/// Per-batch facts the compact move encoding needs.
pub struct BatchMeta {
    /// Ids are first, first + 1, …: only the first is sent.
    pub consecutive: bool,
    /// Bits of each timestamp step (zigzag units).
    pub step_width: u32,
    /// Bits of each explicit delta (zigzag units).
    pub delta_width: u32,
    /// Per move: its delta equals the step from the previous move (one bit instead of a delta).
    pub delta_is_step: Vec<bool>,
}

fn width_of(v: u64) -> u32 {
    (64 - v.leading_zeros()).max(1)
}

/// [`batch_meta`] without the per-move list: the consecutive flag, the two widths, and how
/// many moves carry an explicit delta.
pub fn batch_widths(moves: &[WireMove]) -> (bool, u32, u32, usize) {
    use super::time_units::to_units;
    let consecutive = moves.windows(2).all(|w| w[1].id == w[0].id.wrapping_add(1));
    let mut step_width = 1;
    let mut delta_width = 1;
    let mut explicit = 0;
    for (i, m) in moves.iter().enumerate() {
        let delta = to_units(m.delta);
        if i == 0 {
            explicit += 1;
            delta_width = delta_width.max(width_of(zigzag(delta)));
        } else {
            let step = to_units(m.timestamp) - to_units(moves[i - 1].timestamp);
            step_width = step_width.max(width_of(zigzag(step)));
            if step != delta {
                explicit += 1;
                delta_width = delta_width.max(width_of(zigzag(delta)));
            }
        }
    }
    (
        consecutive,
        step_width.min(63),
        delta_width.min(63),
        explicit,
    )
}

pub fn batch_meta(moves: &[WireMove]) -> BatchMeta {
    use super::time_units::to_units;
    let consecutive = moves.windows(2).all(|w| w[1].id == w[0].id.wrapping_add(1));
    let mut step_width = 1;
    let mut delta_width = 1;
    let mut delta_is_step = Vec::with_capacity(moves.len());
    for (i, m) in moves.iter().enumerate() {
        let delta = to_units(m.delta);
        if i == 0 {
            delta_is_step.push(false);
            delta_width = delta_width.max(width_of(zigzag(delta)));
        } else {
            let step = to_units(m.timestamp) - to_units(moves[i - 1].timestamp);
            step_width = step_width.max(width_of(zigzag(step)));
            let same = step == delta;
            delta_is_step.push(same);
            if !same {
                delta_width = delta_width.max(width_of(zigzag(delta)));
            }
        }
    }
    BatchMeta {
        consecutive,
        step_width: step_width.min(63),
        delta_width: delta_width.min(63),
        delta_is_step,
    }
}

/// Bytes of a `Moves` datagram whose moves' values take `value_bits` bits.
pub fn moves_bytes_with(moves: &[WireMove], value_bits: usize) -> usize {
    bytes(moves_frame_bits(moves) + value_bits)
}

/// Bits of the bound values a move carries (the bit-packed minimum of its content).
pub fn move_value_bits(b: &Bindings, m: &WireMove) -> usize {
    values_bits(b, &m.input, b.client_sends_input)
        + values_bits(b, &m.output, b.client_sends_output)
}

/// Bytes of a `Moves` datagram.
pub fn moves_bytes(b: &Bindings, moves: &[WireMove]) -> usize {
    bytes(moves_body_bits(b, moves))
}

impl ClientMsg {
    /// The binding layout version the message's values are encoded with (0 when it has none).
    pub fn layout(&self) -> u8 {
        match self {
            ClientMsg::Moves { layout, .. } => *layout,
            _ => 0,
        }
    }

    /// Bytes of a message whose size does not depend on a binding layout (joins and pings).
    pub fn fixed_bytes(&self) -> Option<usize> {
        match self {
            ClientMsg::Join { .. } => Some(bytes(32 + 64 + 32)),
            ClientMsg::Moves { .. } => None,
            ClientMsg::Ping { .. } => Some(bytes(32 + 64)),
        }
    }

    pub fn wire_bytes(&self, b: &Bindings) -> usize {
        match self {
            ClientMsg::Moves { moves, .. } => moves_bytes(b, moves),
            _ => self.fixed_bytes().unwrap_or(0),
        }
    }

    pub fn kind(&self) -> MsgKind {
        match self {
            ClientMsg::Join { .. } => MsgKind::Join,
            ClientMsg::Moves { .. } => MsgKind::Moves,
            ClientMsg::Ping { .. } => MsgKind::Ping,
        }
    }
}

impl ServerMsg {
    /// The binding layout version the message's values are encoded with (0 when it has none).
    pub fn layout(&self) -> u8 {
        match self {
            ServerMsg::Welcome { layout, .. }
            | ServerMsg::Ack { layout, .. }
            | ServerMsg::Correction { layout, .. }
            | ServerMsg::StateUpdate { layout, .. } => *layout,
            _ => 0,
        }
    }

    pub fn wire_bytes(&self, b: &Bindings) -> usize {
        match self {
            ServerMsg::Welcome { .. } => bytes(16 + 8 + 64 + SPAWN_DATA_BITS),
            ServerMsg::Ack { values, .. } => bytes(32 + values_bits(b, values, b.client_validated)),
            ServerMsg::Correction {
                state, deviations, ..
            } => {
                let devs: usize = deviations
                    .iter()
                    .map(|d| {
                        let ty = b.get(d.binding as usize).ty;
                        32 + 8
                            + ty.wire_bits(&d.client_value) as usize
                            + ty.wire_bits(&d.server_value) as usize
                    })
                    .sum();
                bytes(32 + 32 + values_bits(b, state, b.server_auth) + 8 + devs)
            }
            ServerMsg::WorldTime { .. } => bytes(8 + 64),
            ServerMsg::Pong { .. } => bytes(32 + 64),
            ServerMsg::Reset => bytes(0),
            ServerMsg::ProxySpawn { .. } => bytes(16 + 16 + SPAWN_DATA_BITS),
            ServerMsg::ProxyDespawn { .. } => bytes(16),
            ServerMsg::StateUpdate { entries, .. } => bytes(
                STATE_UPDATE_HEADER_BITS
                    + entries
                        .iter()
                        .map(|e| proxy_entry_bits(b, e))
                        .sum::<usize>(),
            ),
        }
    }

    pub fn kind(&self) -> MsgKind {
        match self {
            ServerMsg::Welcome { .. } => MsgKind::Welcome,
            ServerMsg::Ack { .. } => MsgKind::Ack,
            ServerMsg::Correction { .. } => MsgKind::Correction,
            ServerMsg::WorldTime { .. } => MsgKind::WorldTime,
            ServerMsg::Pong { .. } => MsgKind::Pong,
            ServerMsg::Reset => MsgKind::Reset,
            ServerMsg::ProxySpawn { .. } => MsgKind::ProxySpawn,
            ServerMsg::ProxyDespawn { .. } => MsgKind::ProxyDespawn,
            ServerMsg::StateUpdate { .. } => MsgKind::StateUpdate,
        }
    }
}

/// Client `id`'s own join key, derived from the session's join secret: what its joins are
/// proven with. A hosted session gives each participant its own key only, never the secret,
/// so a participant cannot join as another.
pub fn client_key(secret: u64, id: u16) -> u64 {
    crate::support::siphash::siphash24(secret, KEY_DOMAIN, &id.to_le_bytes())
}

/// The proof a join carries: the client's key's hash of the join's id, incarnation and layout
/// hash. Seen on the wire it proves that one join only: a newer incarnation, another id or
/// another binding list needs the key, which never travels.
pub fn join_proof(key: u64, id: u16, incarnation: u32, layout_hash: u32) -> u64 {
    let mut m = [0u8; 10];
    m[..2].copy_from_slice(&id.to_le_bytes());
    m[2..6].copy_from_slice(&incarnation.to_le_bytes());
    m[6..].copy_from_slice(&layout_hash.to_le_bytes());
    crate::support::siphash::siphash24(key, PROOF_DOMAIN, &m)
}

/// The second halves of the keys of [`client_key`] and [`join_proof`]: a key is used for one
/// purpose only.
const KEY_DOMAIN: u64 = 0x6d73_2d63_6c69_656e;
const PROOF_DOMAIN: u64 = 0x6d73_2d6a_6f69_6e70;

#[cfg(test)]
mod tests {
    use glam::DVec3;

    use super::SpawnData;
    use crate::model::pawn::PawnValues;

    /// Actor replication sends a new actor's location and rotation with one decimal (Unreal's
    /// default); the values the server's pawn holds stay exact.
    #[test]
    fn the_spawn_transform_travels_rounded_to_one_decimal() {
        let v = PawnValues {
            location: DVec3::new(-589.9234, 540.3922, 0.04),
            rotation: DVec3::new(0.0, 137.25, -0.05),
            ..Default::default()
        };
        let s = SpawnData::of(&v, true);
        assert_eq!(s.location, DVec3::new(-589.9, 540.4, 0.0));
        assert_eq!(s.rotation, DVec3::new(0.0, 137.3, -0.1));
        assert_eq!(
            v.location.x, -589.9234,
            "the server's own value is untouched"
        );
    }
}
