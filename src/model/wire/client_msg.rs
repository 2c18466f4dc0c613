//! Client → server messages (join, moves, ping): encoding, and decoding a body once the
//! header is read. Moves travel compactly: consecutive ids and timestamp steps are sent once,
//! and a delta equal to its step is one bit.

use super::bits::{BitReader, BitWriter};
use super::header::{DecodeError, Header, K_JOIN, K_MOVES, K_PING, header};
use super::values::{read_ping, read_values, write_ping, write_values};
use crate::model::binding::{Bindings, unzigzag, zigzag};
use crate::model::messages::{ClientMsg, WireMove, batch_meta};
use crate::model::pawn::PawnValues;

/// Encodes a client message; `b` must be the binding list of `msg.layout()`.
pub fn encode_client(sender: u16, seq: u32, msg: &ClientMsg, b: &Bindings) -> Vec<u8> {
    encode_client_into(sender, seq, msg, b, Vec::new())
}

/// [`encode_client`] into `buf` (emptied first; the same bytes, its allocation reused).
pub fn encode_client_into(
    sender: u16,
    seq: u32,
    msg: &ClientMsg,
    b: &Bindings,
    buf: Vec<u8>,
) -> Vec<u8> {
    let h = &Header {
        sender,
        seq,
        layout: msg.layout(),
    };
    let kind = match msg {
        ClientMsg::Join { .. } => K_JOIN,
        ClientMsg::Moves { .. } => K_MOVES,
        ClientMsg::Ping { .. } => K_PING,
    };
    let mut w = BitWriter::reusing(buf, header(kind, h), 64);
    match msg {
        ClientMsg::Join {
            incarnation,
            proof,
            layout_hash,
        } => {
            w.bits(u64::from(*incarnation), 32);
            w.bits(*proof, 64);
            w.bits(u64::from(*layout_hash), 32);
        }
        ClientMsg::Moves {
            epoch,
            view_delay_ms,
            moves,
            ..
        } => {
            use crate::model::time_units::to_units;
            let moves = &moves[..moves.len().min(255)];
            let meta = batch_meta(moves);
            w.bits(u64::from(*epoch), 32);
            w.bits(u64::from(*view_delay_ms), 16);
            w.bits(moves.len() as u64, 8);
            w.bits(u64::from(meta.consecutive), 1);
            w.bits(u64::from(moves.first().map_or(0, |m| m.id)), 32);
            w.bits(
                zigzag(moves.first().map_or(0, |m| to_units(m.timestamp))),
                48,
            );
            w.bits(u64::from(meta.step_width), 6);
            w.bits(u64::from(meta.delta_width), 6);
            for (i, m) in moves.iter().enumerate() {
                if !meta.consecutive {
                    w.bits(u64::from(m.id), 32);
                }
                if i > 0 {
                    let step = to_units(m.timestamp) - to_units(moves[i - 1].timestamp);
                    w.bits(zigzag(step), meta.step_width);
                    w.bits(u64::from(meta.delta_is_step[i]), 1);
                }
                if i == 0 || !meta.delta_is_step[i] {
                    w.bits(zigzag(to_units(m.delta)), meta.delta_width);
                }
                write_values(&mut w, b, &m.input, b.client_sends_input);
                write_values(&mut w, b, &m.output, b.client_sends_output);
            }
        }
        ClientMsg::Ping { seq, client_time } => write_ping(&mut w, *seq, *client_time),
    }
    w.finish()
}

/// Decodes the body of a client message of kind `kind` (header `h`; `r` just past it).
pub(super) fn read_client(
    kind: u8,
    h: &Header,
    r: &mut BitReader,
    b: &Bindings,
) -> Result<ClientMsg, DecodeError> {
    Ok(match kind {
        K_JOIN => ClientMsg::Join {
            incarnation: r.bits(32)? as u32,
            proof: r.bits(64)?,
            layout_hash: r.bits(32)? as u32,
        },
        K_MOVES => {
            use crate::model::time_units::from_units;
            let epoch = r.bits(32)? as u32;
            let view_delay_ms = r.bits(16)? as u16;
            let n = r.bits(8)? as usize;
            let consecutive = r.bits(1)? == 1;
            let first_id = r.bits(32)? as u32;
            let mut ts_units = unzigzag(r.bits(48)?);
            let step_width = r.bits(6)? as u32;
            let delta_width = r.bits(6)? as u32;
            let mut moves: Vec<WireMove> = Vec::with_capacity(n.min(64));
            for i in 0..n {
                let id = if consecutive {
                    first_id.wrapping_add(i as u32)
                } else {
                    r.bits(32)? as u32
                };
                let mut delta_units = None;
                if i > 0 {
                    let step = unzigzag(r.bits(step_width)?);
                    ts_units = ts_units.wrapping_add(step);
                    if r.bits(1)? == 1 {
                        delta_units = Some(step);
                    }
                }
                let delta_units = match delta_units {
                    Some(d) => d,
                    None => unzigzag(r.bits(delta_width)?),
                };
                let mut input = PawnValues::default();
                read_values(r, b, &mut input, b.client_sends_input)?;
                let mut output = PawnValues::default();
                read_values(r, b, &mut output, b.client_sends_output)?;
                moves.push(WireMove {
                    id,
                    timestamp: from_units(ts_units),
                    delta: from_units(delta_units),
                    input,
                    output,
                });
            }
            ClientMsg::Moves {
                layout: h.layout,
                epoch,
                view_delay_ms,
                moves,
            }
        }
        K_PING => {
            let (seq, client_time) = read_ping(r)?;
            ClientMsg::Ping { seq, client_time }
        }
        k => return Err(DecodeError::UnknownKind(k)),
    })
}
