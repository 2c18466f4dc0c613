//! The owner's wait: how long after a client made a move its own pawn shows the result. With
//! prediction the client shows its own result in the frame it made the move (0); without, it
//! shows the server's state like another player's, so the wait is the move's age on the
//! server (there and executed) plus the display delay the client shows server states with
//! (back and smoothed). Derived from records every session has (the pawn's role, the move
//! age, the clients' display delay), so older recordings show it too.

use std::collections::BTreeMap;

use crate::model::telemetry::{Event, Machine, Record, Role};

/// What the derivation needs, per client.
#[derive(Debug, Default)]
pub struct OwnInput {
    /// Whether the client predicts its own pawn (from the pawn's role on the client).
    predicted: BTreeMap<u16, bool>,
    /// The client's latest mean display delay of the server's states (s).
    display_delay: BTreeMap<u16, f64>,
}

impl OwnInput {
    /// The owner's wait a record gives, if it gives one: (client, when, seconds).
    pub fn derive(&mut self, r: &Record) -> Option<(Machine, f64)> {
        match (&r.event, r.machine) {
            (Event::Role { role, .. }, Machine::Client(c)) => {
                let predicted = match role {
                    Role::AutonomousProxy => true,
                    Role::AutonomousProxyNotPredicted => false,
                    _ => return None,
                };
                self.predicted.insert(c, predicted);
                None
            }
            (Event::ProxiesDisplayed(x), Machine::Client(c)) if x.proxies > x.paused => {
                self.display_delay.insert(c, x.delay_mean);
                None
            }
            (Event::RemoteMoveExecuted(x), Machine::Server) => {
                let c = x.client;
                let wait = match self.predicted.get(&c)? {
                    true => 0.0,
                    false => x.age + self.display_delay.get(&c)?,
                };
                Some((Machine::Client(c), wait))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::telemetry::{ProxiesDisplayed, RemoteMove};
    use std::sync::Arc;

    fn at(machine: Machine, event: Event) -> Record {
        Record {
            t: 1.0,
            machine,
            event,
        }
    }

    fn executed(age: f64) -> Record {
        at(
            Machine::Server,
            Event::RemoteMoveExecuted(Arc::new(RemoteMove {
                pawn: 3,
                client: 0,
                move_id: 7,
                timestamp: 0.9,
                delta: 1.0 / 60.0,
                substeps: 1,
                age,
            })),
        )
    }

    #[test]
    fn the_owner_waits_nothing_with_prediction_and_there_and_back_without() {
        let mut own = OwnInput::default();
        assert_eq!(
            own.derive(&executed(0.1)),
            None,
            "the role is not yet known"
        );
        let role = |role| at(Machine::Client(0), Event::Role { pawn: 3, role });
        own.derive(&role(Role::AutonomousProxy));
        assert_eq!(own.derive(&executed(0.1)), Some((Machine::Client(0), 0.0)));
        own.derive(&role(Role::AutonomousProxyNotPredicted));
        assert_eq!(own.derive(&executed(0.1)), None, "no display delay yet");
        own.derive(&at(
            Machine::Client(0),
            Event::ProxiesDisplayed(Arc::new(ProxiesDisplayed {
                proxies: 3,
                paused: 0,
                delay_mean: 0.23,
                delay_max: 0.25,
                extrapolation_seconds: 0.0,
                team_unknown_frames: 0,
                frames: 3,
            })),
        ));
        let (m, wait) = own.derive(&executed(0.12)).expect("derived");
        assert_eq!(m, Machine::Client(0));
        assert!((wait - 0.35).abs() < 1e-9, "{wait}");
    }
}
