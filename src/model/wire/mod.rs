//! movescope's wire format: a versioned header, then the message with every bound value
//! bit-packed at its wire size, in binding order. Pure (no IO); used by the live transport and
//! by tests. `encode_*(..).len()` always equals the model's `wire_bytes`.
//!
//! Header (11 bytes): magic `MS` (2), protocol version (1), kind (1), sender (2, client id or
//! 0xFFFF for the server), sequence number (4, per sender), binding layout version (1).
//!
//! `header` holds the header and its checks, `bits` the bit streams, `values` bound values at
//! their wire size, `entries` state-update entries, `cache` the server's cache of encoded
//! entries, `client_msg` and `server_msg` the messages of each direction; this file decodes a
//! datagram of either.

mod bits;
mod cache;
mod client_msg;
mod entries;
mod header;
mod server_msg;
mod values;

use self::bits::BitReader;
use self::client_msg::read_client;
use self::header::{
    K_ACK, K_CORRECTION, K_JOIN, K_KEEPALIVE, K_MOVES, K_PING, K_PONG, K_PROXY_DESPAWN,
    K_PROXY_SPAWN, K_RESET, K_STATE_UPDATE, K_WELCOME, K_WORLD_TIME,
};
use self::server_msg::read_server;
use crate::model::binding::Bindings;
use crate::model::messages::{ClientMsg, HEADER_BYTES, ProxyEntry, ServerMsg};

pub use self::cache::EntryCache;
pub use self::client_msg::{encode_client, encode_client_into};
pub use self::entries::EntryTarget;
pub use self::header::{
    DecodeError, Header, MAGIC, MAX_DATAGRAM, MAX_TIME_S, PROTOCOL_VERSION, SERVER_SENDER,
    SeqWindow, encode_keepalive, join_incarnation, join_prefix, kind_of, peek_header,
};
pub use self::server_msg::{
    decode_state_update_into, encode_server, encode_server_cached, encode_server_cached_into,
};
pub use crate::model::messages::{BatchMeta, batch_meta, batch_widths};

/// A decoded datagram.
#[derive(Clone, Debug, PartialEq)]
pub enum Datagram {
    Client(ClientMsg),
    Server(ServerMsg),
    /// Transport-level keep-alive (carries no message).
    Keepalive,
}

/// The binding list of messages that carry no bound values.
static NO_BINDINGS: std::sync::LazyLock<Bindings> = std::sync::LazyLock::new(Bindings::empty);

/// Decodes a datagram. `layouts` maps the header's layout version to a binding list.
pub fn decode<'b>(
    bytes: &[u8],
    layouts: impl Fn(u8) -> Option<&'b Bindings>,
) -> Result<(Header, Datagram), DecodeError> {
    decode_reusing(bytes, layouts, &mut Vec::new())
}

/// [`decode`], with the state-update entries written into `entries`' buffer (taken; its
/// contents are dropped), so a receiver that hands the buffer back allocates none per
/// datagram.
pub fn decode_reusing<'b>(
    bytes: &[u8],
    layouts: impl Fn(u8) -> Option<&'b Bindings>,
    entries: &mut Vec<ProxyEntry>,
) -> Result<(Header, Datagram), DecodeError> {
    let (kind, h) = peek_header(bytes)?;
    let needs_layout = matches!(
        kind,
        K_MOVES | K_WELCOME | K_ACK | K_CORRECTION | K_STATE_UPDATE
    );
    let b: &Bindings = if needs_layout {
        layouts(h.layout).ok_or(DecodeError::UnknownLayout(h.layout))?
    } else {
        &NO_BINDINGS
    };
    let mut r = BitReader::new(bytes, HEADER_BYTES * 8);
    let msg = match kind {
        K_KEEPALIVE => Datagram::Keepalive,
        K_JOIN | K_MOVES | K_PING => Datagram::Client(read_client(kind, &h, &mut r, b)?),
        K_WELCOME | K_ACK | K_CORRECTION | K_WORLD_TIME | K_PONG | K_RESET | K_PROXY_SPAWN
        | K_PROXY_DESPAWN | K_STATE_UPDATE => {
            Datagram::Server(read_server(kind, &h, &mut r, b, entries)?)
        }
        k => return Err(DecodeError::UnknownKind(k)),
    };
    r.finish()?;
    Ok((h, msg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use glam::{DVec2, DVec3};

    use super::bits::BitWriter;
    use super::entries::{
        take_usual_simulated, usual_simulated, write_entry, write_members, write_usual_simulated,
    };
    use super::header::header;
    use super::values::{read_field, read_value, write_field, write_value};
    use crate::model::binding::{BoundType, FieldMask, Value};
    use crate::model::messages::{DeviationReport, SpawnData, WireMove};
    use crate::model::messages::{StateEntries, proxy_entry_bits};
    use crate::model::pawn::default_bindings;
    use crate::model::pawn::{Field, PawnValues};
    use crate::model::settings::Faults;
    use proptest::prelude::*;

    fn bindings() -> Bindings {
        Bindings::new(default_bindings(&Faults::default())).unwrap()
    }

    #[test]
    fn times_no_peer_sends_do_not_decode() {
        let b = bindings();
        for t in [f64::NAN, f64::INFINITY, 1.0e234, -4.0e10] {
            let bytes = encode_client(
                0,
                1,
                &ClientMsg::Ping {
                    seq: 1,
                    client_time: t,
                },
                &b,
            );
            assert_eq!(
                decode(&bytes, |_| Some(&b)).unwrap_err(),
                DecodeError::InsaneTime,
                "{t}"
            );
            let bytes = encode_server(
                1,
                &ServerMsg::WorldTime {
                    replicator: 0,
                    server_time: t,
                },
                &b,
            );
            assert_eq!(
                decode(&bytes, |_| Some(&b)).unwrap_err(),
                DecodeError::InsaneTime
            );
        }
        let ok = encode_client(
            0,
            1,
            &ClientMsg::Ping {
                seq: 1,
                client_time: 3600.0,
            },
            &b,
        );
        assert!(decode(&ok, |_| Some(&b)).is_ok());
    }

    fn pawn(seed: f64) -> PawnValues {
        PawnValues {
            input_move: DVec2::new(0.71, -0.71),
            input_dash: seed > 0.5,
            location: DVec3::new(123.45 * seed, -9876.5, 0.0),
            rotation: DVec3::new(0.0, 179.99 * seed, 0.0),
            velocity: DVec3::new(600.0 * seed, -12.0, 0.0),
            dash_cooldown: 0.37,
            dash_count: 200,
            stride: 149.99,
            move_ramp: 0.5,
            team: 1,
            scale: DVec3::new(1.0, 1.0, 1.25 * seed),
            angular_velocity: DVec3::new(0.0, 0.0, -720.5 * seed),
            control_rotation: DVec3::new(-12.5, 45.0 * seed, 0.0),
            custom: Default::default(),
        }
    }

    fn sample_messages(b: &Bindings) -> (Vec<ClientMsg>, Vec<ServerMsg>) {
        let mv = |id: u32, s: f64| WireMove {
            id,
            timestamp: crate::model::cycle::quantize_time(12.345678 + s),
            delta: 0.033,
            input: pawn(s).quantized(b.list(), b.input),
            output: pawn(s).quantized(b.list(), b.bound),
        };
        let client = vec![
            ClientMsg::Join {
                incarnation: 77,
                proof: 0xDEAD_BEEF_0123_4567,
                layout_hash: b.layout_hash(),
            },
            ClientMsg::Moves {
                layout: 0,
                epoch: 3,
                view_delay_ms: 180,
                moves: vec![mv(1, 0.1), mv(2, 0.9), mv(3, 0.4)],
            },
            ClientMsg::Ping {
                seq: 9,
                client_time: 1.5,
            },
        ];
        let server = vec![
            ServerMsg::Welcome {
                layout: 0,
                pawn: 4,
                spawn: SpawnData::of(&pawn(0.3), true),
                replicators: 1,
                server_time: 99.25,
            },
            ServerMsg::Ack {
                layout: 0,
                move_id: 17,
                values: pawn(0.6).quantized(b.list(), b.bound),
            },
            ServerMsg::Correction {
                layout: 0,
                move_id: 18,
                epoch: 2,
                state: pawn(0.7).quantized(b.list(), b.bound),
                deviations: vec![DeviationReport {
                    move_id: 16,
                    binding: 2,
                    client_value: Value::Vec3(DVec3::new(1.0, 2.0, 0.0)),
                    server_value: Value::Vec3(DVec3::new(5.5, 2.0, 0.0)),
                }],
            },
            ServerMsg::WorldTime {
                replicator: 0,
                server_time: 3.0,
            },
            ServerMsg::Pong {
                seq: 9,
                client_time: 1.5,
            },
            ServerMsg::Reset,
            ServerMsg::ProxySpawn {
                pawn: 3,
                owner: 1,
                spawn: SpawnData {
                    location: DVec3::new(1.5, -2.25, 3.0),
                    rotation: DVec3::new(0.0, 90.0, 0.0),
                    team: 2,
                },
            },
            ServerMsg::ProxyDespawn { pawn: 3 },
            ServerMsg::StateUpdate {
                layout: 0,
                server_time: 12.5,
                entries: vec![
                    ProxyEntry {
                        pawn: 2,
                        forced: false,
                        values: pawn(0.2).quantized(b.list(), b.bound),
                    },
                    ProxyEntry {
                        pawn: 5,
                        forced: true,
                        values: pawn(0.8).quantized(b.list(), b.bound),
                    },
                ]
                .into(),
            },
        ];
        (client, server)
    }

    /// Only the fields a message carries survive the trip; compare those.
    fn masked(b: &Bindings, v: &PawnValues, mask: FieldMask) -> PawnValues {
        let mut out = PawnValues::default();
        out.copy_fields(v, mask);
        out.quantized(b.list(), mask)
    }

    #[test]
    fn member_fast_paths_write_and_read_what_values_do() {
        for seed in [0.0, 0.13, 0.5, 0.77, 1.0, 3.7e6] {
            let v = pawn_values_for(seed);
            for f in Field::ALL {
                for ty in BoundType::ALL {
                    if !f.accepts(ty) {
                        continue;
                    }
                    let mut fast = BitWriter::new([0; HEADER_BYTES]);
                    write_field(&mut fast, ty, f, &v);
                    let mut slow = BitWriter::new([0; HEADER_BYTES]);
                    write_value(&mut slow, ty, &v.get(f));
                    let bytes = fast.finish();
                    assert_eq!(bytes, slow.finish(), "{f:?} {ty:?}");
                    let mut read_fast = PawnValues::default();
                    let mut r = BitReader::new(&bytes, HEADER_BYTES * 8);
                    read_field(&mut r, ty, f, &mut read_fast).unwrap();
                    let mut read_slow = PawnValues::default();
                    let mut r = BitReader::new(&bytes, HEADER_BYTES * 8);
                    read_slow.set(f, &read_value(&mut r, ty).unwrap());
                    assert_eq!(read_fast, read_slow, "{f:?} {ty:?}");
                }
            }
        }
    }

    #[test]
    fn a_cut_state_update_is_truncated() {
        let b = bindings();
        let (_, server) = sample_messages(&b);
        let update = server
            .iter()
            .find(|m| matches!(m, ServerMsg::StateUpdate { .. }))
            .expect("a state update sample");
        let good = encode_server(1, update, &b);
        for cut in HEADER_BYTES..good.len() {
            assert_eq!(
                decode(&good[..cut], |_| Some(&b)).unwrap_err(),
                DecodeError::Truncated,
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn shared_state_update_entries_encode_to_the_same_bytes() {
        let b = bindings();
        let entry = |pawn: u16, forced: bool, seed: f64| ProxyEntry {
            pawn,
            forced,
            values: pawn_values_for(seed),
        };
        let update =
            |server_time: f64, layout: u8, entries: Vec<ProxyEntry>| ServerMsg::StateUpdate {
                layout,
                server_time,
                entries: entries.into(),
            };
        // Hits, a same pawn with other values or flags, a new time, another layout.
        let msgs = [
            update(1.0, 0, vec![entry(2, false, 0.1), entry(3, false, 0.2)]),
            update(1.0, 0, vec![entry(1, false, 0.3), entry(3, false, 0.2)]),
            update(1.0, 0, vec![entry(3, true, 0.2), entry(2, false, 0.15)]),
            update(1.0, 0, vec![entry(2, false, 0.1)]),
            update(1.5, 0, vec![entry(2, false, 0.1), entry(3, false, 0.2)]),
            update(1.5, 1, vec![entry(2, false, 0.1), entry(3, false, 0.2)]),
            update(2.0, 0, vec![entry(4, false, 1e9), entry(5, false, -3e-3)]),
        ];
        let mut cache = EntryCache::default();
        for (seq, msg) in msgs.iter().enumerate() {
            let fresh = encode_server(seq as u32, msg, &b);
            let shared = encode_server_cached(seq as u32, msg, &b, &mut cache);
            assert_eq!(fresh, shared, "message {seq}");
            assert_eq!(shared.len(), msg.wire_bytes(&b), "message {seq}");
        }
    }

    /// Entries picked by index from the list the cache shares encode to the bytes of the same
    /// entries held in a list of their own, with and without the cache; a list the cache does
    /// not share (another allocation with equal entries, another time or layout, an index
    /// past its end) takes the by-value path and gives the same bytes too.
    #[test]
    fn picked_state_update_entries_encode_to_the_same_bytes() {
        let b = bindings();
        let all: Arc<[ProxyEntry]> = (0..16u16)
            .map(|pawn| ProxyEntry {
                pawn,
                forced: pawn % 5 == 0,
                values: pawn_values_for(0.37 * f64::from(pawn) - 2.0),
            })
            .chain(std::iter::once(ProxyEntry {
                pawn: 3,
                forced: false,
                values: pawn_values_for(0.37 * 3.0 - 2.0),
            }))
            .collect();
        let equal_copy: Arc<[ProxyEntry]> = all.iter().cloned().collect();
        let mut cache = EntryCache::default();
        let bits = cache.share(&b, 0, 4.0, &all).to_vec();
        for (e, &(_, eb)) in all.iter().zip(&bits) {
            assert_eq!(eb, proxy_entry_bits(&b, e));
        }
        let picks: [Vec<u16>; 5] = [
            (1..16).collect(),
            (0..16).filter(|&i| i != 7).collect(),
            vec![15, 0, 16, 3, 3],
            vec![],
            vec![2, 17],
        ];
        for (seq, picked) in picks.iter().enumerate() {
            for (time, layout, list) in [
                (4.0, 0, &all),
                (4.0, 0, &equal_copy),
                (4.5, 0, &all),
                (4.0, 1, &all),
            ] {
                let msg = ServerMsg::StateUpdate {
                    layout,
                    server_time: time,
                    entries: StateEntries::picked(list.clone(), picked.clone()),
                };
                let owned = ServerMsg::StateUpdate {
                    layout,
                    server_time: time,
                    entries: picked
                        .iter()
                        .filter_map(|&i| all.get(usize::from(i)).cloned())
                        .collect(),
                };
                let expected = encode_server(seq as u32, &owned, &b);
                let mut fresh = EntryCache::default();
                assert_eq!(encode_server(seq as u32, &msg, &b), expected, "{picked:?}");
                assert_eq!(
                    encode_server_cached(seq as u32, &msg, &b, &mut fresh),
                    expected,
                    "{picked:?}"
                );
                assert_eq!(
                    encode_server_cached(seq as u32, &msg, &b, &mut cache),
                    expected,
                    "{picked:?} at {time} layout {layout}"
                );
                // Encoding at another time cleared the cache: share the list again.
                cache.share(&b, 0, 4.0, &all);
            }
        }
    }

    /// Encoding into a spare buffer (the harness's recycled datagrams) gives the bytes of
    /// encoding into a new one, whatever the spare held before.
    #[test]
    fn encoding_into_spare_buffers_matches_fresh_encoding() {
        let b = bindings();
        let (client, server) = sample_messages(&b);
        let mut spare = vec![0xA5u8; 2000];
        for (seq, m) in client.iter().enumerate() {
            let fresh = encode_client(3, seq as u32, m, &b);
            spare = encode_client_into(3, seq as u32, m, &b, spare);
            assert_eq!(fresh, spare, "{m:?}");
            spare.push(0x5A);
        }
        let mut cache = EntryCache::default();
        let mut fresh_cache = EntryCache::default();
        for (seq, m) in server.iter().enumerate() {
            let fresh = encode_server_cached(seq as u32, m, &b, &mut fresh_cache);
            spare = encode_server_cached_into(seq as u32, m, &b, &mut cache, spare);
            assert_eq!(fresh, spare, "{m:?}");
            assert_eq!(fresh, encode_server(seq as u32, m, &b), "{m:?}");
            spare.extend_from_slice(&[0xFF; 7]);
        }
    }

    fn pawn_values_for(seed: f64) -> PawnValues {
        PawnValues {
            location: DVec3::new(1234.56 * seed, -98.7 * seed, 3.0),
            velocity: DVec3::new(600.0 * seed, 0.0, -1.5),
            rotation: DVec3::new(0.0, 359.99 * seed, 0.0),
            dash_cooldown: (seed * 0.37) as f32,
            dash_count: (seed * 100.0) as u8,
            team: 2,
            ..Default::default()
        }
    }

    #[test]
    fn a_joins_incarnation_is_read_without_decoding_it() {
        let b = bindings();
        let join = ClientMsg::Join {
            incarnation: 0x0102_0304,
            proof: 9,
            layout_hash: 5,
        };
        let bytes = encode_client(2, 1, &join, &b);
        assert_eq!(join_incarnation(&bytes), Some(0x0102_0304));
        let ping = encode_client(
            2,
            2,
            &ClientMsg::Ping {
                seq: 1,
                client_time: 0.5,
            },
            &b,
        );
        assert_eq!(join_incarnation(&ping), None);
        assert_eq!(join_incarnation(&bytes[..HEADER_BYTES + 2]), None);
    }

    #[test]
    fn round_trip_and_sizes_match_wire_bytes() {
        let b = bindings();
        let h = Header {
            sender: 3,
            seq: 1234,
            layout: 0,
        };
        let (client, server) = sample_messages(&b);
        for m in &client {
            let bytes = encode_client(3, 1234, m, &b);
            assert_eq!(bytes.len(), m.wire_bytes(&b), "{m:?}");
            let (h2, d) = decode(&bytes, |_| Some(&b)).expect("decodes");
            assert_eq!(h2, h);
            let expected = match m.clone() {
                ClientMsg::Moves {
                    layout,
                    epoch,
                    view_delay_ms,
                    moves,
                } => ClientMsg::Moves {
                    layout,
                    epoch,
                    view_delay_ms,
                    moves: moves
                        .into_iter()
                        .map(|x| WireMove {
                            input: masked(&b, &x.input, b.client_sends_input),
                            output: masked(&b, &x.output, b.client_sends_output),
                            ..x
                        })
                        .collect(),
                },
                other => other,
            };
            assert_eq!(d, Datagram::Client(expected));
        }
        for m in &server {
            let bytes = encode_server(1234, m, &b);
            assert_eq!(bytes.len(), m.wire_bytes(&b), "{m:?}");
            let (_, d) = decode(&bytes, |_| Some(&b)).expect("decodes");
            let expected = match m.clone() {
                ServerMsg::Ack {
                    layout,
                    move_id,
                    values,
                } => ServerMsg::Ack {
                    layout,
                    move_id,
                    values: masked(&b, &values, b.client_validated),
                },
                ServerMsg::Correction {
                    layout,
                    move_id,
                    epoch,
                    state,
                    deviations,
                } => ServerMsg::Correction {
                    layout,
                    move_id,
                    epoch,
                    state: masked(&b, &state, b.server_auth),
                    deviations,
                },
                ServerMsg::StateUpdate {
                    layout,
                    server_time,
                    entries,
                } => ServerMsg::StateUpdate {
                    layout,
                    server_time,
                    entries: entries
                        .into_vec()
                        .into_iter()
                        .map(|e| ProxyEntry {
                            values: masked(&b, &e.values, b.simulated),
                            ..e
                        })
                        .collect(),
                },
                other => other,
            };
            assert_eq!(d, Datagram::Server(expected));
        }
    }

    #[test]
    fn foreign_and_damaged_datagrams_are_rejected() {
        let b = bindings();
        assert_eq!(
            decode(b"hello", |_| Some(&b)).unwrap_err(),
            DecodeError::TooShort(5)
        );
        assert_eq!(
            decode(b"GET / HTTP/1.1\r\n", |_| Some(&b)).unwrap_err(),
            DecodeError::BadMagic
        );
        let (client, _) = sample_messages(&b);
        let good = encode_client(1, 1, &client[1], &b);
        for cut in HEADER_BYTES..good.len() {
            assert!(decode(&good[..cut], |_| Some(&b)).is_err(), "cut at {cut}");
        }
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(
            decode(&longer, |_| Some(&b)).unwrap_err(),
            DecodeError::TrailingBytes(1)
        );
        let mut other = good.clone();
        other[2] = PROTOCOL_VERSION + 1;
        assert_eq!(
            decode(&other, |_| Some(&b)).unwrap_err(),
            DecodeError::UnsupportedVersion(PROTOCOL_VERSION + 1)
        );
        assert_eq!(
            decode(&good, |_| None).unwrap_err(),
            DecodeError::UnknownLayout(0)
        );
        assert!(matches!(
            decode(&vec![0u8; 5000], |_| Some(&b)),
            Err(DecodeError::TooLarge(5000))
        ));
    }

    #[test]
    fn move_metadata_is_compact_and_exact() {
        let b = bindings();
        let q = crate::model::cycle::quantize_time;
        let mv = |id: u32, ts: f64, delta: f64| WireMove {
            id,
            timestamp: q(ts),
            delta: q(delta),
            input: PawnValues::default(),
            output: PawnValues::default(),
        };
        for moves in [
            // Consecutive, deltas equal to the steps: one bit each.
            vec![
                mv(5, 1.0, 0.01667),
                mv(6, 1.01667, 0.01667),
                mv(7, 1.03334, 0.01667),
            ],
            // A gap in the ids and a clamped delta.
            vec![mv(5, 1.0, 0.016), mv(7, 1.1, 0.05), mv(8, 1.11, 0.01)],
            vec![mv(1, 0.0, 0.0)],
        ] {
            let msg = ClientMsg::Moves {
                layout: 0,
                epoch: 1,
                view_delay_ms: 0,
                moves: moves.clone(),
            };
            let bytes = encode_client(1, 1, &msg, &b);
            assert_eq!(bytes.len(), msg.wire_bytes(&b));
            // The frame bits, exactly, as the encoder lays them out.
            let meta = batch_meta(&moves);
            let frame: usize = crate::model::messages::MOVES_BATCH_HEADER_BITS
                + (0..moves.len())
                    .map(|i| {
                        usize::from(!meta.consecutive) * 32
                            + if i > 0 {
                                meta.step_width as usize + 1
                            } else {
                                0
                            }
                            + if i == 0 || !meta.delta_is_step[i] {
                                meta.delta_width as usize
                            } else {
                                0
                            }
                    })
                    .sum::<usize>();
            assert_eq!(crate::model::messages::moves_frame_bits(&moves), frame);
            let (_, d) = decode(&bytes, |_| Some(&b)).unwrap();
            let Datagram::Client(ClientMsg::Moves { moves: got, .. }) = d else {
                panic!("{d:?}")
            };
            for (a, g) in moves.iter().zip(&got) {
                assert_eq!((a.id, a.timestamp, a.delta), (g.id, g.timestamp, g.delta));
            }
        }
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..1300)) {
            let b = bindings();
            let _ = decode(&bytes, |_| Some(&b));
        }

        #[test]
        fn random_bodies_behind_a_valid_header_never_panic(
            kind in 0u8..24,
            body in proptest::collection::vec(any::<u8>(), 0..400),
        ) {
            let b = bindings();
            let mut bytes = header(kind, &Header { sender: 1, seq: 1, layout: 0 }).to_vec();
            bytes.extend(body);
            let _ = decode(&bytes, |_| Some(&b));
        }

        #[test]
        fn the_usual_simulated_members_write_as_each_member_writes(
            xs in proptest::collection::vec(-1.0e7f64..1.0e7, 10),
            scale in proptest::collection::vec(-20i32..20, 10),
            bytes in proptest::collection::vec(any::<u8>(), 2),
            lead in 0u32..64,
        ) {
            // `write_usual_simulated` against `write_field` member by member (what it
            // replaces), from every bit offset, with components from tiny to past 2^61
            // hundredths (clamped), and non-finite ones.
            let b = bindings();
            prop_assert!(usual_simulated(b.simulated_list()));
            let c = |k: usize| match scale[k] {
                19 => f64::NAN,
                -20 => f64::INFINITY,
                s => xs[k] * 10f64.powi(s),
            };
            let v = PawnValues {
                location: DVec3::new(c(0), c(1), c(2)),
                rotation: DVec3::new(c(3), c(4), c(5)),
                scale: DVec3::new(c(6), 1.0, c(0)),
                velocity: DVec3::new(c(6), c(7), c(8)),
                angular_velocity: DVec3::new(c(1), c(9), c(2)),
                control_rotation: DVec3::new(c(4), c(3), c(8)),
                dash_cooldown: c(9) as f32,
                dash_count: bytes[0],
                team: bytes[1],
                ..PawnValues::default()
            };
            let mut usual = BitWriter::new([0; HEADER_BYTES]);
            let mut each = BitWriter::new([0; HEADER_BYTES]);
            for w in [&mut usual, &mut each] {
                w.bits(0x5A5A_5A5A_5A5A_5A5A, lead);
            }
            write_usual_simulated(&mut usual, &v);
            write_members(&mut each, &b, &v);
            prop_assert_eq!(usual.bit, each.bit);
            prop_assert_eq!(usual.finish(), each.finish());
        }

        #[test]
        fn the_usual_simulated_members_read_as_each_member_reads(
            xs in proptest::collection::vec(-1.0e7f64..1.0e7, 10),
            bytes in proptest::collection::vec(any::<u8>(), 2),
            cut in 0usize..160,
        ) {
            // `take_usual_simulated` against `read_field` member by member (what it replaces),
            // on an encoded entry, also cut short (where both must see the overrun).
            let b = bindings();
            prop_assert!(usual_simulated(b.simulated_list()));
            let v = PawnValues {
                // Up to 58-bit components: past one 128-bit window.
                location: DVec3::new(xs[0] * 1.0e8, xs[1], xs[2]),
                rotation: DVec3::new(xs[3], xs[4] / 1.0e4, xs[5]),
                scale: DVec3::new(1.0, xs[2] / 1.0e7, 1.0),
                velocity: DVec3::new(xs[6] / 1.0e3, xs[7], xs[8] / 1.0e5),
                angular_velocity: DVec3::new(0.0, xs[9], xs[0]),
                control_rotation: DVec3::new(xs[5] / 1.0e5, xs[4], 0.0),
                dash_cooldown: (xs[9] / 1.0e6) as f32,
                dash_count: bytes[0],
                team: bytes[1],
                ..PawnValues::default()
            };
            let e = ProxyEntry { pawn: 3, forced: false, values: v };
            let mut w = BitWriter::new([0; HEADER_BYTES]);
            write_entry(&mut w, &b, &e);
            let mut encoded = w.finish();
            encoded.truncate(encoded.len().min(HEADER_BYTES + cut));
            let mut usual = PawnValues::default();
            let mut r = BitReader::new(&encoded, HEADER_BYTES * 8 + 17);
            take_usual_simulated(&mut r, &mut usual);
            let mut each = PawnValues::default();
            let mut r2 = BitReader::new(&encoded, HEADER_BYTES * 8 + 17);
            let mut failed = false;
            for &(field, ty, _) in b.simulated_list() {
                failed |= read_field(&mut r2, ty, field, &mut each).is_err();
            }
            if failed {
                prop_assert!(r.overrun());
            } else {
                prop_assert!(!r.overrun());
                prop_assert_eq!(r.bit, r2.bit);
                prop_assert_eq!(usual, each);
            }
        }

        #[test]
        fn state_updates_decode_in_place_exactly_when_they_decode(
            seed in 0.0f64..100.0,
            cut in 0usize..2000,
            flip in proptest::option::of((0usize..2000, 0u8..8)),
        ) {
            // `decode_state_update_into` with a list gives the entries `decode` gives, and
            // nothing where `decode` fails (a cut, lengthened or damaged state update).
            let b = bindings();
            let entries = (0..15u16)
                .map(|pawn| ProxyEntry {
                    pawn,
                    forced: pawn % 4 == 0,
                    values: pawn_values_for(seed + f64::from(pawn)),
                })
                .collect();
            let msg = ServerMsg::StateUpdate { layout: 0, server_time: seed, entries };
            let mut bytes = encode_server(7, &msg, &b);
            if cut > bytes.len() {
                bytes.push(0);
            } else if cut >= HEADER_BYTES {
                bytes.truncate(cut);
            }
            if let Some((i, bit)) = flip
                && let Some(x) = bytes.get_mut(HEADER_BYTES + i % 40)
            {
                *x ^= 1 << bit;
            }
            let mut list = Vec::new();
            let in_place = decode_state_update_into(&bytes, |_| Some(&b), &mut list);
            match decode(&bytes, |_| Some(&b)) {
                Ok((h, Datagram::Server(ServerMsg::StateUpdate { server_time, entries, .. }))) => {
                    prop_assert_eq!(in_place, Some((h, server_time)));
                    prop_assert_eq!(StateEntries::from(list), entries);
                }
                _ => prop_assert_eq!(in_place, None),
            }
        }
    }
}
