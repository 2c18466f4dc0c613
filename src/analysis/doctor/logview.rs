//! A game log's dumps read as the story of one desync: where the client's and the server's
//! executions of the same move first ended apart, and which values changed between two moves
//! on either machine (nothing in GMC's move cycle writes a bound value there, apart from the
//! inputs the next move brings).
//!
//! Values are compared as printed, within the precision they were printed with (a client
//! prints quantized values, the server its own result before quantizing: the last printed
//! digit may differ without a real difference).

use super::evidence::Evidence;
use crate::model::logged::{LoggedMove, LoggedStage, LoggedValue};

/// Two printed values of the same name.
pub(super) type Pair<'a> = (&'a LoggedValue, &'a LoggedValue);

/// Whether two printed values differ: numbers beyond one step of the printed precision, other
/// text as text.
pub(super) fn differ(a: &LoggedValue, b: &LoggedValue, slack: f64) -> bool {
    let (na, nb) = (numbers(&a.text), numbers(&b.text));
    if na.is_empty() || na.len() != nb.len() {
        return a.text.trim() != b.text.trim();
    }
    na.iter().zip(&nb).any(|((x, dx), (y, dy))| {
        (x - y).abs() > slack.max(1.5 * 10f64.powi(-i32::from((*dx).min(*dy))))
    })
}

/// How far apart two printed values may be and still be one value: GMC 1.x prints a client's
/// result before quantizing it (to hundredths), 2.x what it holds.
pub(super) fn slack(ev: &Evidence<'_>) -> f64 {
    if ev.log.contents.is_some_and(|c| c.gmc() == 1) {
        0.011
    } else {
        0.0
    }
}

/// The numbers in a printed value, each with its decimals.
fn numbers(text: &str) -> Vec<(f64, u8)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        if (b[i] == b'-' || b[i] == b'+') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if b[i].is_ascii_digit() {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let mut decimals = 0u8;
            if i < b.len() && b[i] == b'.' {
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                    decimals = decimals.saturating_add(1);
                }
            }
            if let Ok(v) = text[start..i].parse::<f64>() {
                out.push((v, decimals));
            }
        } else {
            i = start + 1;
        }
    }
    out
}

/// The values of `a` that differ from the same-named values of `b`.
pub(super) fn apart<'a>(
    ev: &Evidence<'_>,
    a: &'a [LoggedValue],
    b: &'a [LoggedValue],
) -> Vec<Pair<'a>> {
    let slack = slack(ev);
    a.iter()
        .filter_map(|x| {
            let y = b.iter().find(|y| y.name == x.name)?;
            differ(x, y, slack).then_some((x, y))
        })
        .collect()
}

/// Where client and server first ended a move apart.
pub(super) struct Parted<'a> {
    pub move_id: u32,
    pub client: &'a LoggedMove,
    pub server: &'a LoggedMove,
    /// Values that ended apart (client's, server's).
    pub outputs: Vec<Pair<'a>>,
    /// Values that began apart.
    pub inputs: Vec<Pair<'a>>,
}

/// The first of `client`'s `moves` (in timestamp order) whose client and server executions
/// both logged and ended apart.
pub(super) fn first_parted<'a>(
    ev: &Evidence<'a>,
    client: u16,
    moves: &[u32],
) -> Option<Parted<'a>> {
    moves.iter().find_map(|&m| {
        let c = ev.log.dump(client, m, LoggedStage::ClientExecuted)?;
        let s = ev.log.dump(client, m, LoggedStage::ServerExecuted)?;
        let outputs = apart(ev, &c.output, &s.output);
        (!outputs.is_empty()).then(|| Parted {
            move_id: m,
            client: c,
            server: s,
            outputs,
            inputs: apart(ev, &c.input, &s.input),
        })
    })
}

/// How many of `client`'s `moves` both machines dumped.
pub(super) fn compared_alike(ev: &Evidence<'_>, client: u16, moves: &[u32]) -> Option<u32> {
    let both = moves
        .iter()
        .filter(|m| {
            ev.log
                .dump(client, **m, LoggedStage::ClientExecuted)
                .is_some()
                && ev
                    .log
                    .dump(client, **m, LoggedStage::ServerExecuted)
                    .is_some()
        })
        .count();
    (both > 0).then_some(both as u32)
}

/// A value that changed between two moves on one machine.
pub(super) struct Write<'a> {
    /// The move it entered.
    pub move_id: u32,
    /// The dump it left the previous move in, and the one it entered this move in.
    pub before: &'a LoggedMove,
    pub after: &'a LoggedMove,
    pub values: Vec<Pair<'a>>,
}

/// Which machine's dumps.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Client,
    Server,
}

/// Values that entered one of `client`'s `moves` on `side` other than its previous move left
/// them — inputs excepted (an input is what the next move brings: its mode says so, or,
/// unnamed, the other machine began the move with the same value).
pub(super) fn writes<'a>(
    ev: &Evidence<'a>,
    client: u16,
    side: Side,
    moves: &[u32],
) -> Vec<Write<'a>> {
    moves
        .iter()
        .filter_map(|&m| {
            let (before, after) = consecutive(ev, client, side, m)?;
            // A replay between the two executions re-ran the moves: the client then began
            // the next one where the replay left it, not where its first run ended.
            if side == Side::Client && replayed_between(ev, client, before.t, after.t) {
                return None;
            }
            let other = ev.log.dump(
                client,
                m,
                match side {
                    Side::Client => LoggedStage::ServerExecuted,
                    Side::Server => LoggedStage::ClientExecuted,
                },
            );
            let values: Vec<Pair<'a>> = apart(ev, &before.output, &after.input)
                .into_iter()
                .filter(|(_, now)| is_input(ev, now, other) == Some(false))
                .collect();
            (!values.is_empty()).then_some(Write {
                move_id: m,
                before,
                after,
                values,
            })
        })
        .collect()
}

/// The dumps of `side` that show move `m`'s predecessor ending and `m` beginning.
fn consecutive<'a>(
    ev: &Evidence<'a>,
    client: u16,
    side: Side,
    m: u32,
) -> Option<(&'a LoggedMove, &'a LoggedMove)> {
    let prev = ev.prev_move(client, m)?;
    match side {
        Side::Client => Some((
            ev.log.dump(client, prev, LoggedStage::ClientExecuted)?,
            ev.log.dump(client, m, LoggedStage::ClientExecuted)?,
        )),
        Side::Server => Some((
            ev.log.server_end(client, prev)?,
            ev.log.dump(client, m, LoggedStage::ServerExecuted)?,
        )),
    }
}

/// Whether `client` adopted a correction (and replayed) between `from` and `to`.
fn replayed_between(ev: &Evidence<'_>, client: u16, from: f64, to: f64) -> bool {
    ev.per(client).is_some_and(|p| {
        p.corrected
            .values()
            .flatten()
            .any(|t| *t > from && *t <= to)
    })
}

/// Whether a value entering a move is an input: by its binding's mode, else (unnamed) by the
/// other machine — it began the same move with the same value when the client sent it and the
/// server took it. `None`: neither says (no mode, no other machine's dump).
fn is_input(ev: &Evidence<'_>, now: &LoggedValue, other: Option<&LoggedMove>) -> Option<bool> {
    if let Some(mode) = ev.mode_of(&now.name) {
        return Some(mode.is_input());
    }
    if ev.validated_output(&now.name) {
        return Some(false);
    }
    let v = other?.input_value(&now.name)?;
    Some(!differ(v, now, slack(ev)))
}

/// Values that entered one of `moves` on `side` changed, which neither a mode nor the other
/// machine's dump tells an input from a write.
pub(super) fn undecided<'a>(
    ev: &Evidence<'a>,
    client: u16,
    side: Side,
    moves: &[u32],
) -> Vec<String> {
    let mut out = Vec::new();
    for &m in moves {
        let Some((before, after)) = consecutive(ev, client, side, m) else {
            continue;
        };
        if side == Side::Client && replayed_between(ev, client, before.t, after.t) {
            continue;
        }
        let other = ev.log.dump(
            client,
            m,
            match side {
                Side::Client => LoggedStage::ServerExecuted,
                Side::Server => LoggedStage::ClientExecuted,
            },
        );
        for (_, now) in apart(ev, &before.output, &after.input) {
            if is_input(ev, now, other).is_none() && !out.contains(&now.name.to_string()) {
                out.push(now.name.to_string());
            }
        }
    }
    out
}

/// Whether both dumps a write needs on `side` exist for some of `moves`.
pub(super) fn dumps_on(ev: &Evidence<'_>, client: u16, side: Side, moves: &[u32]) -> bool {
    moves
        .iter()
        .any(|m| consecutive(ev, client, side, *m).is_some())
}

/// `SinglePrecisionFloat[0] 50.000000 → 40.000000`.
pub(super) fn pair_text((a, b): &Pair<'_>) -> String {
    format!("{} {} → {}", a.name, a.text, b.text)
}

/// `ActorLocation client X=… server X=…`.
pub(super) fn sides_text((c, s): &Pair<'_>) -> String {
    format!("{}: client {}, server {}", c.name, c.text, s.text)
}

/// The numeric change of a pair (the first number's), when both are numbers.
pub(super) fn change((a, b): &Pair<'_>) -> Option<f64> {
    let (x, y) = (numbers(&a.text), numbers(&b.text));
    (x.len() == 1 && y.len() == 1).then(|| y[0].0 - x[0].0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::binding::Value;
    use std::sync::Arc;

    fn v(name: &str, text: &str) -> LoggedValue {
        LoggedValue {
            name: Arc::from(name),
            value: Value::Name(Arc::from(text)),
            text: Arc::from(text),
            at: crate::model::logged::LogLine { file: 0, line: 1 },
        }
    }

    #[test]
    fn printed_values_differ_beyond_their_last_digit() {
        let a = v("ActorLocation", "X=1.00 Y=2.00 Z=3.00");
        assert!(!differ(
            &a,
            &v("ActorLocation", "X=1.01 Y=2.00 Z=3.00"),
            0.0
        ));
        assert!(differ(&a, &v("ActorLocation", "X=1.03 Y=2.00 Z=3.00"), 0.0));
        assert!(differ(&v("F", "50.000000"), &v("F", "40.000000"), 0.0));
        assert!(!differ(&v("F", "0.500000"), &v("F", "0.500001"), 0.0));
        assert!(differ(&v("F", "0.500000"), &v("F", "0.500010"), 0.0));
        assert!(!differ(
            &v("L", "3254.789551"),
            &v("L", "3254.790039"),
            0.011
        ));
        assert!(!differ(&v("B", "true"), &v("B", "true"), 0.0));
        assert!(differ(&v("B", "true"), &v("B", "false"), 0.0));
        assert!(differ(
            &v("L", "X=-1.00 Y=0.00 Z=0.00"),
            &v("L", "X=1.00 Y=0.00 Z=0.00"),
            0.0
        ));
    }
}
