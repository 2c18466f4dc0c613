//! How a chunk's records become bytes and back: the session times as XOR-delta byte planes,
//! then each record tagged (pawn samples and moves packed, everything else in postcard).

use crate::model::telemetry::{Event, Machine, PawnSample, Record, SampleKind};

/// A chunk's raw payload: the times as byte planes, then each `(machine, event)` in postcard.
/// Records encoding 1: each record starts with a tag — [`TAG_POSTCARD`]: `(machine, event)` in
/// postcard; [`TAG_SAMPLE`]: a pawn sample on its grids ([`PawnSample::on_grid`]), as the
/// difference, in whole grid steps, from a prediction made from the previous sample of the
/// same machine, pawn and kind in the chunk (zigzag varints): the location from the previous
/// location moved by the previous velocity over the time between the two (dead reckoning, a
/// residual of a few steps), velocity and yaw from their previous values. The prediction is
/// computed identically when reading (the times are exact), so every value reads back bit for
/// bit.
pub(super) const ENCODING_TAGGED: u8 = 1;
/// Records encoding 2: as [`ENCODING_TAGGED`], with the pawn's values holding GMC's built-in
/// scale, angular velocity and control rotation. Chunks of encodings 0 and 1 read their
/// values in the layout before them ([`crate::model::pawn::read_legacy_layout`]).
pub(super) const ENCODING_BUILT_INS: u8 = 2;
const TAG_POSTCARD: u8 = 0;
const TAG_SAMPLE: u8 = 1;
/// `MoveClosed` with its timestamp and delta in the wire's 10 µs units: the id as the step
/// from the machine's previous closed move (usually 1), the delta, and the timestamp as its
/// difference from the previous timestamp plus this delta (usually 0).
const TAG_MOVE_CLOSED: u8 = 2;
/// `RemoteMoveExecuted` packed the same way per client (the age stays a full f64).
const TAG_REMOTE_MOVE: u8 = 3;

/// A time in the wire's units, if it is exactly one.
fn exact_units(t: f64) -> Option<i64> {
    let u = crate::model::cycle::to_units(t);
    (crate::model::cycle::from_units(u).to_bits() == t.to_bits()).then_some(u)
}

/// The previous move (id, timestamp units) of each client, for the move tags.
#[derive(Default)]
pub(super) struct MovePrev {
    closed: rustc_hash::FxHashMap<Machine, (u32, i64)>,
    remote: rustc_hash::FxHashMap<u16, (u32, i64)>,
}

fn put_move(raw: &mut Vec<u8>, prev: &mut (u32, i64), id: u32, ts: i64, delta: i64) {
    put_varint(raw, zigzag(i64::from(id) - i64::from(prev.0)));
    put_varint(raw, zigzag(delta));
    put_varint(raw, zigzag(ts - (prev.1 + delta)));
    *prev = (id, ts);
}

fn take_move(rest: &mut &[u8], prev: &mut (u32, i64)) -> Option<(u32, f64, f64)> {
    let id = i64::from(prev.0) + unzigzag(take_varint(rest)?);
    let delta = unzigzag(take_varint(rest)?);
    let ts = prev
        .1
        .checked_add(delta)?
        .checked_add(unzigzag(take_varint(rest)?))?;
    let id = u32::try_from(id).ok()?;
    *prev = (id, ts);
    Some((
        id,
        crate::model::cycle::from_units(ts),
        crate::model::cycle::from_units(delta),
    ))
}

type SampleKey = (Machine, u16, u8);
/// A sample's grid steps and its time (what the next one is predicted from).
type SamplePrev = ([i64; 7], f64);

/// The steps a sample at time `t` is expected to have after `prev`.
fn predict(prev: &SamplePrev, t: f64) -> [i64; 7] {
    let (s, t0) = *prev;
    let mut p = s;
    let dt = t - t0;
    if dt.is_finite() && dt > 0.0 && dt < 10.0 {
        let per_step = PawnSample::VELOCITY_STEP / PawnSample::LOCATION_STEP * dt;
        for i in 0..3 {
            let moved = (s[3 + i] as f64 * per_step).round();
            if moved.abs() < 1e15 {
                p[i] = s[i].wrapping_add(moved as i64);
            }
        }
    }
    p
}

fn sample_steps(s: &PawnSample) -> Option<[i64; 7]> {
    let k = |x: f64, step: f64| {
        let n = (x / step).round();
        // Exactly on the grid, or not packed (then it goes as postcard, bit for bit).
        (n.abs() < 1e15 && ((n as i64) as f64 * step).to_bits() == x.to_bits()).then_some(n as i64)
    };
    Some([
        k(s.location.x, PawnSample::LOCATION_STEP)?,
        k(s.location.y, PawnSample::LOCATION_STEP)?,
        k(s.location.z, PawnSample::LOCATION_STEP)?,
        k(s.velocity.x, PawnSample::VELOCITY_STEP)?,
        k(s.velocity.y, PawnSample::VELOCITY_STEP)?,
        k(s.velocity.z, PawnSample::VELOCITY_STEP)?,
        k(s.yaw, PawnSample::YAW_STEP)?,
    ])
}

fn kind_byte(k: SampleKind) -> u8 {
    match k {
        SampleKind::Predicted => 0,
        SampleKind::Displayed => 1,
        SampleKind::Authoritative => 2,
    }
}

/// A machine as postcard writes it (the variant index, then a client's id, both varints),
/// without serde's machinery: the packed tags write one per record.
fn put_machine(out: &mut Vec<u8>, m: Machine) {
    match m {
        Machine::Server => out.push(0),
        Machine::Client(c) => {
            out.push(1);
            put_varint(out, u64::from(c));
        }
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn take_varint(b: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = b.split_first()?;
        *b = rest;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

pub(super) fn encode_records(records: &[Record]) -> Result<Vec<u8>, postcard::Error> {
    let times: Vec<f64> = records.iter().map(|r| r.t).collect();
    let mut raw = time_planes(&times);
    raw.reserve(records.len() * 24);
    let mut last: rustc_hash::FxHashMap<SampleKey, SamplePrev> = Default::default();
    let mut moves = MovePrev::default();
    // Most records fit a small stack buffer (encoding into a slice is the fast path).
    let mut buf = [0u8; 256];
    for r in records {
        if let Event::PawnSample(s) = &r.event
            && let Some(steps) = sample_steps(s)
        {
            raw.push(TAG_SAMPLE);
            put_machine(&mut raw, r.machine);
            put_varint(&mut raw, u64::from(s.pawn));
            put_varint(&mut raw, s.owner.map_or(0, |o| u64::from(o) + 1));
            let kind = kind_byte(s.kind);
            raw.push(kind);
            let prev = last
                .entry((r.machine, s.pawn, kind))
                .or_insert(([0; 7], r.t));
            let expected = predict(prev, r.t);
            for (p, v) in expected.iter().zip(steps) {
                put_varint(&mut raw, zigzag(v.wrapping_sub(*p)));
            }
            *prev = (steps, r.t);
            continue;
        }
        if let Event::MoveClosed {
            move_id,
            timestamp,
            delta,
            frames,
            substeps,
        } = &r.event
            && let (Some(ts), Some(d)) = (exact_units(*timestamp), exact_units(*delta))
        {
            raw.push(TAG_MOVE_CLOSED);
            put_machine(&mut raw, r.machine);
            let prev = moves.closed.entry(r.machine).or_insert((0, 0));
            put_move(&mut raw, prev, *move_id, ts, d);
            put_varint(&mut raw, u64::from(*frames));
            put_varint(&mut raw, u64::from(*substeps));
            continue;
        }
        if let Event::RemoteMoveExecuted(x) = &r.event
            && let (Some(ts), Some(d)) = (exact_units(x.timestamp), exact_units(x.delta))
        {
            raw.push(TAG_REMOTE_MOVE);
            put_machine(&mut raw, r.machine);
            put_varint(&mut raw, u64::from(x.client));
            put_varint(&mut raw, u64::from(x.pawn));
            let prev = moves.remote.entry(x.client).or_insert((0, 0));
            put_move(&mut raw, prev, x.move_id, ts, d);
            put_varint(&mut raw, u64::from(x.substeps));
            raw.extend_from_slice(&x.age.to_le_bytes());
            continue;
        }
        raw.push(TAG_POSTCARD);
        match postcard::to_slice(&(r.machine, &r.event), &mut buf) {
            Ok(bytes) => raw.extend_from_slice(bytes),
            Err(_) => {
                let v = postcard::to_stdvec(&(r.machine, &r.event))?;
                raw.extend_from_slice(&v);
            }
        }
    }
    Ok(raw)
}

/// One record of a tagged payload; `last` carries the samples' previous steps.
pub(super) fn take_tagged(
    rest: &mut &[u8],
    t: f64,
    last: &mut rustc_hash::FxHashMap<SampleKey, SamplePrev>,
    moves: &mut MovePrev,
) -> Result<(Machine, Event), String> {
    let (&tag, tail) = rest.split_first().ok_or("the record ends before its tag")?;
    *rest = tail;
    let short = |what: &str| format!("a packed {what} ends early or is out of range");
    let u16_of = |v: u64| u16::try_from(v).ok();
    match tag {
        TAG_MOVE_CLOSED => {
            let (machine, tail) =
                postcard::take_from_bytes::<Machine>(rest).map_err(|e| e.to_string())?;
            *rest = tail;
            let prev = moves.closed.entry(machine).or_insert((0, 0));
            let (move_id, timestamp, delta) =
                take_move(rest, prev).ok_or_else(|| short("closed move"))?;
            let frames = take_varint(rest)
                .and_then(u16_of)
                .ok_or_else(|| short("closed move"))?;
            let substeps = take_varint(rest)
                .and_then(u16_of)
                .ok_or_else(|| short("closed move"))?;
            Ok((
                machine,
                Event::MoveClosed {
                    move_id,
                    timestamp,
                    delta,
                    frames,
                    substeps,
                },
            ))
        }
        TAG_REMOTE_MOVE => {
            let (machine, tail) =
                postcard::take_from_bytes::<Machine>(rest).map_err(|e| e.to_string())?;
            *rest = tail;
            let bad = || short("remote move");
            let client = take_varint(rest).and_then(u16_of).ok_or_else(bad)?;
            let pawn = take_varint(rest).and_then(u16_of).ok_or_else(bad)?;
            let prev = moves.remote.entry(client).or_insert((0, 0));
            let (move_id, timestamp, delta) = take_move(rest, prev).ok_or_else(bad)?;
            let substeps = take_varint(rest).and_then(u16_of).ok_or_else(bad)?;
            let (age, tail) = rest.split_at_checked(8).ok_or_else(bad)?;
            *rest = tail;
            let age = f64::from_le_bytes(age.try_into().map_err(|_| bad())?);
            Ok((
                machine,
                Event::RemoteMoveExecuted(std::sync::Arc::new(
                    crate::model::telemetry::RemoteMove {
                        pawn,
                        client,
                        move_id,
                        timestamp,
                        delta,
                        substeps,
                        age,
                    },
                )),
            ))
        }
        TAG_POSTCARD => {
            let (v, tail) =
                postcard::take_from_bytes::<(Machine, Event)>(rest).map_err(|e| e.to_string())?;
            *rest = tail;
            Ok(v)
        }
        TAG_SAMPLE => {
            let (machine, tail) =
                postcard::take_from_bytes::<Machine>(rest).map_err(|e| e.to_string())?;
            *rest = tail;
            let bad = || "a pawn sample ends early".to_string();
            let pawn = u16::try_from(take_varint(rest).ok_or_else(bad)?)
                .map_err(|_| "a pawn id out of range".to_string())?;
            let owner = match take_varint(rest).ok_or_else(bad)? {
                0 => None,
                o => Some(u16::try_from(o - 1).map_err(|_| "an owner out of range".to_string())?),
            };
            let (&kind, tail) = rest.split_first().ok_or_else(bad)?;
            *rest = tail;
            let sample_kind = match kind {
                0 => SampleKind::Predicted,
                1 => SampleKind::Displayed,
                2 => SampleKind::Authoritative,
                k => return Err(format!("unknown sample kind {k}")),
            };
            let prev = last.entry((machine, pawn, kind)).or_insert(([0; 7], t));
            let mut steps = predict(prev, t);
            for p in steps.iter_mut() {
                *p = p.wrapping_add(unzigzag(take_varint(rest).ok_or_else(bad)?));
            }
            *prev = (steps, t);
            let v = |i: usize, step: f64| steps[i] as f64 * step;
            let (ls, vs) = (PawnSample::LOCATION_STEP, PawnSample::VELOCITY_STEP);
            Ok((
                machine,
                Event::PawnSample(std::sync::Arc::new(PawnSample {
                    pawn,
                    owner,
                    kind: sample_kind,
                    location: glam::DVec3::new(v(0, ls), v(1, ls), v(2, ls)),
                    velocity: glam::DVec3::new(v(3, vs), v(4, vs), v(5, vs)),
                    yaw: v(6, PawnSample::YAW_STEP),
                })),
            ))
        }
        t => Err(format!("unknown record tag {t}")),
    }
}

/// Session times as eight byte planes (most significant first) of each time's bits XOR the
/// previous time's: records of one frame share their time, so most planes are runs of zeros
/// that compress to almost nothing, and the times come back bit for bit.
fn time_planes(times: &[f64]) -> Vec<u8> {
    let n = times.len();
    let mut out = vec![0u8; 8 * n];
    let mut prev = 0u64;
    for (i, t) in times.iter().enumerate() {
        let bits = t.to_bits();
        let x = bits ^ prev;
        prev = bits;
        for (plane, byte) in x.to_be_bytes().iter().enumerate() {
            out[plane * n + i] = *byte;
        }
    }
    out
}

pub(super) fn read_time_planes(raw: &[u8], n: usize) -> Option<Vec<f64>> {
    let planes = raw.get(..n.checked_mul(8)?)?;
    let mut prev = 0u64;
    Some(
        (0..n)
            .map(|i| {
                let mut b = [0u8; 8];
                for (plane, byte) in b.iter_mut().enumerate() {
                    *byte = planes[plane * n + i];
                }
                prev ^= u64::from_be_bytes(b);
                f64::from_bits(prev)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machines_are_written_as_postcard_writes_them() {
        for m in [
            Machine::Server,
            Machine::Client(0),
            Machine::Client(1),
            Machine::Client(127),
            Machine::Client(128),
            Machine::Client(u16::MAX),
        ] {
            let mut ours = Vec::new();
            put_machine(&mut ours, m);
            let theirs = postcard::to_stdvec(&m).expect("a machine serializes");
            assert_eq!(ours, theirs, "{m:?}");
        }
    }
}
