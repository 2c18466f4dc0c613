//! Sending: unacknowledged moves packed into batches (reliable new moves, or unreliable
//! repeats for redundancy) and the outgoing datagrams' encoding.

use super::{Client, MAX_BATCH_BYTES, MAX_UNRELIABLE_DATAGRAMS, Move, Transmit};
use crate::model::messages::{ClientMsg, Delivery, WireMove, move_value_bits, moves_bytes_with};
use crate::model::telemetry::Event;
use crate::model::wire;

impl Client {
    fn wire_move(&self, m: &Move) -> WireMove {
        let b = self.bindings_of(m.layout);
        WireMove {
            id: m.id,
            timestamp: m.timestamp,
            delta: m.delta,
            input: m.input.clone(),
            output: m.output.quantized(b.list(), b.client_sends_output),
        }
    }

    pub(super) fn maybe_send(&mut self, now: f64) {
        let interval = 1.0 / self.cfg.gmc.client_send_rate.max(0.001);
        if self.last_send.is_some_and(|t| now - t < interval - 1e-6) {
            return;
        }
        let newest = self.history.back().map_or(0, |m| m.id);
        if newest <= self.sent_upto {
            return;
        }
        self.last_send = Some(now);
        while self
            .reliable_in_flight
            .front()
            .is_some_and(|&id| id <= self.acked)
        {
            self.reliable_in_flight.pop_front();
        }
        let reliable = self.reliable_in_flight.len() < self.cfg.gmc.reliable_pending_threshold;
        // Reliable batches carry only new moves; unreliable ones repeat every unacknowledged
        // move that fits, so a lost datagram is covered by the next one.
        let first = if reliable { self.sent_upto } else { self.acked };
        // The moves to send, converted one by one into the batch (no list of candidates; the
        // batch sized for all of them, so it is not regrown move by move).
        let candidates = || self.history.iter().filter(|m| m.id > first);
        // One layout per batch; a layout change starts a new batch. Each batch carries the sum
        // of its moves' value bits (what `moves_bytes` would add up again).
        let mut batches: Vec<(u8, Vec<WireMove>, usize)> = Vec::new();
        let mut cur: Vec<WireMove> = Vec::with_capacity(candidates().count());
        let mut cur_bits = 0usize;
        let mut cur_layout = candidates().next().map_or(0, |m| m.layout);
        let mut b = self.bindings_of(cur_layout);
        for (layout, m) in candidates().map(|m| (m.layout, self.wire_move(m))) {
            if layout != cur_layout {
                if !cur.is_empty() {
                    batches.push((cur_layout, std::mem::take(&mut cur), cur_bits));
                    cur_bits = 0;
                }
                cur_layout = layout;
                b = self.bindings_of(layout);
            }
            let m_bits = move_value_bits(b, &m);
            cur.push(m);
            cur_bits += m_bits;
            if cur.len() > 1
                && (cur.len() >= 255 || moves_bytes_with(&cur, cur_bits) > MAX_BATCH_BYTES)
            {
                let last = cur.pop().expect("len > 1");
                batches.push((cur_layout, std::mem::take(&mut cur), cur_bits - m_bits));
                cur.push(last);
                cur_bits = m_bits;
            }
        }
        if !cur.is_empty() {
            batches.push((cur_layout, cur, cur_bits));
        }
        if !reliable && batches.len() > MAX_UNRELIABLE_DATAGRAMS {
            // Unreliable: the newest moves, at most this many datagrams.
            batches.drain(..batches.len() - MAX_UNRELIABLE_DATAGRAMS);
        }
        let mut new_moves = 0u16;
        let mut resent = 0u16;
        let mut value_bits = 0u32;
        let mut bytes = 0u32;
        for (layout, batch, batch_bits) in batches {
            let batch_newest = batch.last().map_or(0, |m| m.id);
            bytes += moves_bytes_with(&batch, batch_bits) as u32;
            value_bits += batch_bits as u32;
            for m in &batch {
                if m.id > self.sent_upto {
                    new_moves += 1;
                } else {
                    resent += 1;
                }
            }
            self.sent_upto = self.sent_upto.max(batch_newest);
            if reliable {
                self.reliable_in_flight.push_back(batch_newest);
            }
            self.outbox.push_back((
                ClientMsg::Moves {
                    layout,
                    epoch: self.epoch,
                    view_delay_ms: (self.view_delay * 1000.0).round().clamp(0.0, 65535.0) as u16,
                    moves: batch,
                },
                if reliable {
                    Delivery::Reliable
                } else {
                    Delivery::Unreliable
                },
            ));
        }
        self.telemetry.push((
            now,
            Event::MovesSent {
                new_moves,
                resent_moves: resent,
                value_bits,
                bytes,
                reliable,
                pending_reliable: self.reliable_in_flight.len() as u16,
            },
        ));
    }

    /// The next message to send, as a typed message (tests and tools).
    pub fn poll_msg(&mut self) -> Option<(ClientMsg, Delivery)> {
        self.outbox.pop_front()
    }

    /// The next datagram to send, encoded.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.poll_transmit_reusing(&mut Vec::new())
    }

    /// [`Client::poll_transmit`], encoding into a spare buffer from `spare` when it has one
    /// (the same bytes; the driver gives delivered datagrams' buffers back to save allocations).
    pub fn poll_transmit_reusing(&mut self, spare: &mut Vec<Vec<u8>>) -> Option<Transmit> {
        let (msg, delivery) = self.outbox.pop_front()?;
        self.send_seq = self.send_seq.wrapping_add(1);
        let b = self.bindings_of(msg.layout());
        let buf = spare.pop().unwrap_or_default();
        Some(Transmit {
            bytes: wire::encode_client_into(self.cfg.id, self.send_seq, &msg, b, buf),
            delivery,
            kind: msg.kind(),
        })
    }
}
