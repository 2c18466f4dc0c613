//! The time cursor every view reads: where in the session the user is looking, whether it
//! plays, how fast, and the selected range. It changes only through [`TimeCommand`]s (from the
//! timeline bar, the keyboard, a click in a plot or the event log) and [`TimeControl::advance`],
//! so it is tested without a UI.

use crate::model::telemetry::Machine;
use crate::session::store::{MarkKind, Store};

/// Playback speeds the timeline offers.
pub const SPEEDS: [f64; 6] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0];

/// A change of the cursor.
#[derive(Clone, Debug, PartialEq)]
pub enum TimeCommand {
    Play,
    Pause,
    TogglePlay,
    /// One of [`SPEEDS`] (others are clamped into ¼×–8×).
    SetSpeed(f64),
    /// One frame of `machine` forward (`true`) or back.
    StepFrame {
        machine: Machine,
        forward: bool,
    },
    /// To the next (or previous) move `machine` closed.
    StepMove {
        machine: Machine,
        forward: bool,
    },
    /// To the next (or previous) marker of these kinds.
    JumpMark {
        kinds: Vec<MarkKind>,
        forward: bool,
    },
    /// To a session time (clamped to what the store holds).
    Seek(f64),
    SelectRange(f64, f64),
    ClearRange,
    /// Back to the newest data, following it as it arrives.
    FollowLive,
}

/// Where the views look.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeControl {
    cursor: f64,
    playing: bool,
    speed: f64,
    follow: bool,
    range: Option<(f64, f64)>,
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl::following()
    }
}

impl TimeControl {
    /// Following the newest data (a live session).
    pub fn following() -> Self {
        TimeControl {
            cursor: 0.0,
            playing: false,
            speed: 1.0,
            follow: true,
            range: None,
        }
    }

    /// Parked at `t` (a recording).
    pub fn at(t: f64) -> Self {
        TimeControl {
            cursor: t,
            follow: false,
            ..TimeControl::following()
        }
    }

    pub fn cursor(&self) -> f64 {
        self.cursor
    }
    pub fn is_playing(&self) -> bool {
        self.playing
    }
    pub fn is_following(&self) -> bool {
        self.follow
    }
    pub fn speed(&self) -> f64 {
        self.speed
    }
    pub fn range(&self) -> Option<(f64, f64)> {
        self.range
    }

    /// Applies a command; positions are looked up in (and clamped to) `store`.
    pub fn apply(&mut self, cmd: TimeCommand, store: &Store) {
        let (lo, hi) = (store.earliest(), store.latest().max(store.earliest()));
        let clamp = |t: f64| if t.is_finite() { t.clamp(lo, hi) } else { hi };
        match cmd {
            TimeCommand::Play => {
                if self.follow {
                    // Playing from "now" would go nowhere: play from the cursor instead.
                    self.follow = false;
                }
                if self.cursor >= hi {
                    self.cursor = lo;
                }
                self.playing = true;
            }
            TimeCommand::Pause => {
                self.follow = false;
                self.playing = false;
            }
            TimeCommand::TogglePlay => {
                let cmd = if self.playing {
                    TimeCommand::Pause
                } else {
                    TimeCommand::Play
                };
                self.apply(cmd, store);
            }
            TimeCommand::SetSpeed(s) => {
                if s.is_finite() {
                    self.speed = s.clamp(SPEEDS[0], SPEEDS[SPEEDS.len() - 1]);
                }
            }
            TimeCommand::StepFrame { machine, forward } => {
                self.park();
                if let Some(t) = store.next_frame(machine, self.cursor, forward) {
                    self.cursor = clamp(t);
                }
            }
            TimeCommand::StepMove { machine, forward } => {
                self.park();
                if let Some(t) = store.next_move(machine, self.cursor, forward) {
                    self.cursor = clamp(t);
                }
            }
            TimeCommand::JumpMark { kinds, forward } => {
                self.park();
                if let Some(t) = store.next_mark(&kinds, self.cursor, forward) {
                    self.cursor = clamp(t);
                }
            }
            TimeCommand::Seek(t) => {
                self.follow = false;
                self.cursor = clamp(t);
            }
            TimeCommand::SelectRange(a, b) => {
                let (a, b) = (clamp(a.min(b)), clamp(a.max(b)));
                self.range = (b > a).then_some((a, b));
            }
            TimeCommand::ClearRange => self.range = None,
            TimeCommand::FollowLive => {
                self.follow = true;
                self.playing = false;
                self.cursor = hi;
            }
        }
    }

    /// Stepping stops playback and following, from where the cursor is.
    fn park(&mut self) {
        self.playing = false;
        self.follow = false;
    }

    /// Moves the cursor on by `wall_seconds × speed` when playing (stopping at the newest
    /// data), or to the newest data when following.
    pub fn advance(&mut self, wall_seconds: f64, store: &Store) {
        let hi = store.latest();
        if self.follow {
            self.cursor = hi;
        } else if self.playing {
            self.cursor = (self.cursor + wall_seconds.max(0.0) * self.speed).min(hi);
            if self.cursor >= hi && !store.is_growing() {
                self.playing = false;
            }
        }
        self.cursor = self.cursor.max(store.earliest());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::telemetry::{Event, LogLevel, Record};

    fn store() -> Store {
        let mut st = Store::new(None);
        for i in 0..=600 {
            let t = f64::from(i) / 60.0;
            st.ingest(&Record {
                t,
                machine: Machine::Client(0),
                event: Event::Frame { dt: 1.0 / 60.0 },
            });
        }
        for (t, text) in [(2.0, "a"), (5.0, "b")] {
            st.ingest(&Record {
                t,
                machine: Machine::Server,
                event: Event::Log {
                    level: LogLevel::Warning,
                    text: text.into(),
                },
            });
        }
        st
    }

    #[test]
    fn commands_move_the_cursor() {
        let st = store();
        let mut tc = TimeControl::following();
        tc.advance(0.1, &st);
        assert_eq!(tc.cursor(), 10.0);
        tc.apply(TimeCommand::Seek(3.0), &st);
        assert!(!tc.is_following());
        assert_eq!(tc.cursor(), 3.0);
        tc.apply(
            TimeCommand::StepFrame {
                machine: Machine::Client(0),
                forward: true,
            },
            &st,
        );
        assert!((tc.cursor() - 181.0 / 60.0).abs() < 1e-12);
        tc.apply(
            TimeCommand::JumpMark {
                kinds: vec![MarkKind::Warning],
                forward: true,
            },
            &st,
        );
        assert_eq!(tc.cursor(), 5.0);
        tc.apply(
            TimeCommand::JumpMark {
                kinds: vec![MarkKind::Warning],
                forward: false,
            },
            &st,
        );
        assert_eq!(tc.cursor(), 2.0);
        tc.apply(TimeCommand::Seek(99.0), &st);
        assert_eq!(tc.cursor(), 10.0, "clamped to the data");
        tc.apply(TimeCommand::SelectRange(4.0, 1.0), &st);
        assert_eq!(tc.range(), Some((1.0, 4.0)));
        tc.apply(TimeCommand::FollowLive, &st);
        assert!(tc.is_following());
    }

    #[test]
    fn playing_advances_at_speed_and_stops_at_the_end() {
        let st = store();
        let mut tc = TimeControl::at(1.0);
        tc.apply(TimeCommand::SetSpeed(4.0), &st);
        tc.apply(TimeCommand::Play, &st);
        tc.advance(0.5, &st);
        assert_eq!(tc.cursor(), 3.0);
        tc.apply(TimeCommand::SetSpeed(100.0), &st);
        assert_eq!(tc.speed(), 8.0);
        tc.advance(10.0, &st);
        assert_eq!(tc.cursor(), 10.0);
        assert!(!tc.is_playing(), "a finished recording stops at its end");
        tc.apply(TimeCommand::Play, &st);
        assert_eq!(tc.cursor(), 0.0, "play at the end starts over");
    }
}
