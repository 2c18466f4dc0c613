//! What each machine sent, per whole second: bytes (the "Bytes sent per second" plot), and
//! for a client the moves it carried and the datagrams that carried them, so a session's
//! bandwidth can be set against a table's at the rates the session ran at.

use std::collections::VecDeque;

/// Seconds of closed tallies kept per machine.
const KEEP_SECONDS: usize = 120;

/// One second of sending.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SentSecond {
    /// The second's start (session time, whole seconds).
    pub start: f64,
    pub bytes: u64,
    /// Moves carried (new and repeated), from the client's sends.
    pub moves: u64,
    /// Datagrams that carried moves.
    pub move_datagrams: u64,
    /// Bits of bound values in the moves carried.
    pub value_bits: u64,
}

/// Means over whole seconds of a machine's sending.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SentRates {
    /// Whole seconds the means cover.
    pub seconds: usize,
    pub bytes_per_s: f64,
    pub moves_per_s: f64,
    pub move_datagrams_per_s: f64,
    /// Mean bits of bound values per move carried (none without moves).
    pub value_bits_per_move: Option<f64>,
}

#[derive(Debug, Default)]
pub(super) struct SentTally {
    current: Option<SentSecond>,
    closed: VecDeque<SentSecond>,
}

impl SentTally {
    /// The second `t` falls in, closing the one before when `t` is past it; the closed
    /// second is returned (for the plot).
    pub(super) fn at(&mut self, t: f64) -> (Option<SentSecond>, &mut SentSecond) {
        let second = t.floor();
        let mut done = None;
        match self.current {
            Some(c) if second > c.start => {
                done = Some(c);
                self.closed.push_back(c);
                if self.closed.len() > KEEP_SECONDS {
                    self.closed.pop_front();
                }
                self.current = None;
            }
            _ => {}
        }
        let cur = self.current.get_or_insert(SentSecond {
            start: second,
            ..SentSecond::default()
        });
        (done, cur)
    }

    /// Means over the closed seconds that start in `[from, to)`.
    pub(super) fn rates(&self, from: f64, to: f64) -> Option<SentRates> {
        let mut n = 0usize;
        let mut sum = SentSecond::default();
        for s in self
            .closed
            .iter()
            .filter(|s| s.start >= from && s.start < to)
        {
            n += 1;
            sum.bytes += s.bytes;
            sum.moves += s.moves;
            sum.move_datagrams += s.move_datagrams;
            sum.value_bits += s.value_bits;
        }
        (n > 0).then(|| {
            let k = n as f64;
            SentRates {
                seconds: n,
                bytes_per_s: sum.bytes as f64 / k,
                moves_per_s: sum.moves as f64 / k,
                move_datagrams_per_s: sum.move_datagrams as f64 / k,
                value_bits_per_move: (sum.moves > 0)
                    .then(|| sum.value_bits as f64 / sum.moves as f64),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_close_when_a_later_one_starts_and_rates_average_whole_seconds() {
        let mut t = SentTally::default();
        t.at(0.2).1.bytes += 100;
        t.at(0.9).1.moves += 3;
        t.at(0.95).1.value_bits += 300;
        let (done, cur) = t.at(1.1);
        assert_eq!(
            done,
            Some(SentSecond {
                start: 0.0,
                bytes: 100,
                moves: 3,
                move_datagrams: 0,
                value_bits: 300,
            })
        );
        cur.bytes += 300;
        cur.move_datagrams += 2;
        // The second still open is not in the means.
        let r = t.rates(0.0, 10.0).expect("one closed second");
        assert_eq!(r.seconds, 1);
        assert_eq!(r.bytes_per_s, 100.0);
        t.at(3.5);
        let r = t.rates(0.0, 10.0).expect("two closed seconds");
        assert_eq!(r.seconds, 2);
        assert_eq!(r.bytes_per_s, 200.0);
        assert_eq!(r.moves_per_s, 1.5);
        assert_eq!(r.move_datagrams_per_s, 1.0);
        assert_eq!(r.value_bits_per_move, Some(100.0));
        assert_eq!(t.rates(1.0, 2.0).map(|r| r.seconds), Some(1));
        assert_eq!(t.rates(5.0, 9.0), None);
    }
}
