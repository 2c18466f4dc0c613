//! Server → client messages (welcome, acks, corrections, world time, pongs, resets, proxy
//! spawns and despawns, state updates): encoding (state-update entries through the
//! [`EntryCache`] when there is one), decoding a body once the header is read, and decoding
//! a state update straight into its target.

use super::bits::{BitReader, BitWriter};
use super::cache::EntryCache;
use super::entries::{EntryTarget, read_entries, write_entry};
use super::header::{
    DecodeError, Header, K_ACK, K_CORRECTION, K_PONG, K_PROXY_DESPAWN, K_PROXY_SPAWN, K_RESET,
    K_STATE_UPDATE, K_WELCOME, K_WORLD_TIME, MAX_DATAGRAM, SERVER_SENDER, header, peek_header,
};
use super::values::{
    read_ping, read_spawn, read_time, read_value, read_values, write_ping, write_spawn,
    write_value, write_values,
};
use crate::model::binding::{Bindings, BoundType};
use crate::model::messages::{DeviationReport, HEADER_BYTES, ProxyEntry, ServerMsg};
use crate::model::pawn::PawnValues;

/// Encodes a server message; `b` must be the binding list of `msg.layout()`.
pub fn encode_server(seq: u32, msg: &ServerMsg, b: &Bindings) -> Vec<u8> {
    encode_server_with(seq, msg, b, None, Vec::new())
}

/// [`encode_server`], reusing state-update entries encoded earlier (the same bytes).
pub fn encode_server_cached(
    seq: u32,
    msg: &ServerMsg,
    b: &Bindings,
    cache: &mut EntryCache,
) -> Vec<u8> {
    encode_server_with(seq, msg, b, Some(cache), Vec::new())
}

/// [`encode_server_cached`] into `buf` (emptied first; the same bytes, its allocation reused).
pub fn encode_server_cached_into(
    seq: u32,
    msg: &ServerMsg,
    b: &Bindings,
    cache: &mut EntryCache,
    buf: Vec<u8>,
) -> Vec<u8> {
    encode_server_with(seq, msg, b, Some(cache), buf)
}

fn encode_server_with(
    seq: u32,
    msg: &ServerMsg,
    b: &Bindings,
    mut cache: Option<&mut EntryCache>,
    buf: Vec<u8>,
) -> Vec<u8> {
    let h = &Header {
        sender: SERVER_SENDER,
        seq,
        layout: msg.layout(),
    };
    let kind = match msg {
        ServerMsg::Welcome { .. } => K_WELCOME,
        ServerMsg::Ack { .. } => K_ACK,
        ServerMsg::Correction { .. } => K_CORRECTION,
        ServerMsg::WorldTime { .. } => K_WORLD_TIME,
        ServerMsg::Pong { .. } => K_PONG,
        ServerMsg::Reset => K_RESET,
        ServerMsg::ProxySpawn { .. } => K_PROXY_SPAWN,
        ServerMsg::ProxyDespawn { .. } => K_PROXY_DESPAWN,
        ServerMsg::StateUpdate { .. } => K_STATE_UPDATE,
    };
    // Room for the usual size of each entry, so the buffer is not grown while writing.
    let capacity = match msg {
        ServerMsg::StateUpdate { entries, .. } => 32 + 40 * entries.len(),
        _ => 64,
    };
    let mut w = BitWriter::reusing(buf, header(kind, h), capacity.min(MAX_DATAGRAM + 8));
    match msg {
        ServerMsg::Welcome {
            pawn,
            spawn,
            replicators,
            server_time,
            ..
        } => {
            w.bits(u64::from(*pawn), 16);
            w.bits(u64::from(*replicators), 8);
            w.bits(server_time.to_bits(), 64);
            write_spawn(&mut w, spawn);
        }
        ServerMsg::Ack {
            move_id, values, ..
        } => {
            w.bits(u64::from(*move_id), 32);
            write_values(&mut w, b, values, b.client_validated);
        }
        ServerMsg::Correction {
            move_id,
            epoch,
            state,
            deviations,
            ..
        } => {
            w.bits(u64::from(*move_id), 32);
            w.bits(u64::from(*epoch), 32);
            write_values(&mut w, b, state, b.server_auth);
            let n = deviations.len().min(255);
            w.bits(n as u64, 8);
            for d in &deviations[..n] {
                w.bits(u64::from(d.move_id), 32);
                w.bits(u64::from(d.binding as u8), 8);
                let ty = b
                    .list()
                    .get(d.binding as usize)
                    .map_or(BoundType::Bool, |x| x.ty);
                write_value(&mut w, ty, &d.client_value);
                write_value(&mut w, ty, &d.server_value);
            }
        }
        ServerMsg::WorldTime {
            replicator,
            server_time,
        } => {
            w.bits(u64::from(*replicator), 8);
            w.bits(server_time.to_bits(), 64);
        }
        ServerMsg::Pong { seq, client_time } => write_ping(&mut w, *seq, *client_time),
        ServerMsg::Reset => {}
        ServerMsg::ProxySpawn { pawn, owner, spawn } => {
            w.bits(u64::from(*pawn), 16);
            w.bits(u64::from(*owner), 16);
            write_spawn(&mut w, spawn);
        }
        ServerMsg::ProxyDespawn { pawn } => w.bits(u64::from(*pawn), 16),
        ServerMsg::StateUpdate {
            server_time,
            entries,
            ..
        } => {
            w.bits(server_time.to_bits(), 64);
            let n = entries.len().min(255);
            w.bits(n as u64, 8);
            let shared = match (entries.shared_parts(), cache.as_deref()) {
                (Some((all, picked)), Some(c)) => {
                    c.write_shared(&mut w, h.layout, *server_time, all, &picked[..n])
                }
                _ => None,
            };
            if shared.is_none() {
                for e in entries.iter().take(n) {
                    match cache.as_deref_mut() {
                        Some(c) => c.write(&mut w, b, h.layout, *server_time, e),
                        None => write_entry(&mut w, b, e),
                    }
                }
            }
        }
    }
    w.finish()
}

/// Decodes the body of a server message of kind `kind` (header `h`; `r` just past it), with
/// the state-update entries written into `entries`' buffer (as [`super::decode_reusing`]).
pub(super) fn read_server(
    kind: u8,
    h: &Header,
    r: &mut BitReader,
    b: &Bindings,
    entries: &mut Vec<ProxyEntry>,
) -> Result<ServerMsg, DecodeError> {
    Ok(match kind {
        K_WELCOME => {
            let pawn = r.bits(16)? as u16;
            let replicators = r.bits(8)? as u8;
            let server_time = read_time(r)?;
            let spawn = read_spawn(r)?;
            ServerMsg::Welcome {
                layout: h.layout,
                pawn,
                spawn,
                replicators,
                server_time,
            }
        }
        K_ACK => {
            let move_id = r.bits(32)? as u32;
            let mut values = PawnValues::default();
            read_values(r, b, &mut values, b.client_validated)?;
            ServerMsg::Ack {
                layout: h.layout,
                move_id,
                values,
            }
        }
        K_CORRECTION => {
            let move_id = r.bits(32)? as u32;
            let epoch = r.bits(32)? as u32;
            let mut state = PawnValues::default();
            read_values(r, b, &mut state, b.server_auth)?;
            let n = r.bits(8)? as usize;
            let mut deviations = Vec::with_capacity(n.min(16));
            for _ in 0..n {
                let dm = r.bits(32)? as u32;
                let binding = r.bits(8)? as u16;
                let ty = b
                    .list()
                    .get(binding as usize)
                    .map(|x| x.ty)
                    .ok_or(DecodeError::Truncated)?;
                let client_value = read_value(r, ty)?;
                let server_value = read_value(r, ty)?;
                deviations.push(DeviationReport {
                    move_id: dm,
                    binding,
                    client_value,
                    server_value,
                });
            }
            ServerMsg::Correction {
                layout: h.layout,
                move_id,
                epoch,
                state,
                deviations,
            }
        }
        K_WORLD_TIME => ServerMsg::WorldTime {
            replicator: r.bits(8)? as u8,
            server_time: read_time(r)?,
        },
        K_PONG => {
            let (seq, client_time) = read_ping(r)?;
            ServerMsg::Pong { seq, client_time }
        }
        K_RESET => ServerMsg::Reset,
        K_PROXY_SPAWN => ServerMsg::ProxySpawn {
            pawn: r.bits(16)? as u16,
            owner: r.bits(16)? as u16,
            spawn: read_spawn(r)?,
        },
        K_PROXY_DESPAWN => ServerMsg::ProxyDespawn {
            pawn: r.bits(16)? as u16,
        },
        K_STATE_UPDATE => {
            let server_time = read_time(r)?;
            let n = r.bits(8)? as usize;
            let mut entries = std::mem::take(entries);
            entries.clear();
            entries.reserve(n.min(64));
            // A list takes every entry.
            read_entries(r, b, server_time, n, &mut entries)?;
            ServerMsg::StateUpdate {
                layout: h.layout,
                server_time,
                entries: entries.into(),
            }
        }
        k => return Err(DecodeError::UnknownKind(k)),
    })
}

/// Decodes a state update straight into `target` (no entry list): the header if the whole
/// datagram decoded and every entry was taken. `None` when it is not a state update, when
/// the target stopped taking entries, or when [`decode_reusing`] would fail: the caller then
/// undoes whatever the target took and decodes the datagram with [`decode_reusing`] (which
/// gives the error). So a datagram that does not decode never partly applies.
///
/// [`decode_reusing`]: super::decode_reusing
pub fn decode_state_update_into<'b>(
    bytes: &[u8],
    layouts: impl Fn(u8) -> Option<&'b Bindings>,
    target: &mut impl EntryTarget,
) -> Option<(Header, f64)> {
    let (kind, h) = peek_header(bytes).ok()?;
    if kind != K_STATE_UPDATE {
        return None;
    }
    let b = layouts(h.layout)?;
    let mut r = BitReader::new(bytes, HEADER_BYTES * 8);
    let server_time = read_time(&mut r).ok()?;
    let n = r.bits(8).ok()? as usize;
    match read_entries(&mut r, b, server_time, n, target) {
        Ok(true) => {}
        Ok(false) | Err(_) => return None,
    }
    r.finish().ok()?;
    Some((h, server_time))
}
