//! What drives each value of an imported binding layout (a GMC component's table from
//! `movescope lint`, run as a session): [`Behaviour`], the default one guessed from the value's
//! name and role, and the keys that can drive an input. The pawn applies them
//! (`model::imported`); here they are data carried by the binding.

use serde::{Deserialize, Serialize};

use super::types::BoundType;

/// A key that drives an imported input when the pawn is driven from the keyboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum InputKey {
    Space,
    Shift,
    Ctrl,
    C,
    E,
    F,
    Q,
    R,
}

impl InputKey {
    pub const ALL: [InputKey; 8] = [
        InputKey::Space,
        InputKey::Shift,
        InputKey::Ctrl,
        InputKey::C,
        InputKey::E,
        InputKey::F,
        InputKey::Q,
        InputKey::R,
    ];

    /// The key's bit in [`RawInput::keys`](crate::model::input::RawInput).
    pub fn bit(self) -> u16 {
        1 << (self as u16)
    }

    pub fn label(self) -> &'static str {
        match self {
            InputKey::Space => "Space",
            InputKey::Shift => "Shift",
            InputKey::Ctrl => "Ctrl",
            InputKey::C => "C",
            InputKey::E => "E",
            InputKey::F => "F",
            InputKey::Q => "Q",
            InputKey::R => "R",
        }
    }
}

/// How an imported value changes during a session. Inputs are written by the owning machine
/// each frame (before combining); outputs by the prediction tick, identically on every
/// machine (a function of the move's inputs, timestamp and delta).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Behaviour {
    /// Input: the input script's move direction (a vector takes it whole, a number its x, a
    /// flag whether it moves).
    Axis,
    /// Input: pressed for one frame every `period_s` seconds (input script), or while `key` is
    /// down (keyboard).
    Press { key: InputKey, period_s: f64 },
    /// Input: held for the first half of every `period_s` seconds (input script), or while
    /// `key` is down (keyboard).
    Hold { key: InputKey, period_s: f64 },
    /// Input: flips every `period_s` seconds.
    Toggle { period_s: f64 },
    /// Output: a wave of the move timestamp with this period, inside the bit band of the
    /// table's nominal size (so it takes the bits the table states), raised while an imported
    /// input (or the move input) is active.
    Wave { period_s: f64 },
    /// Output: counts the moves' iterations in which an imported input is active (numbers add
    /// the iteration's delta).
    Counter,
    /// Output: keeps its spawn value.
    Constant,
}

impl Behaviour {
    /// The behaviour a value gets when it is imported: keys where the name says so (jump,
    /// sprint, crouch, dash …), the move direction for vectors and axes, a toggle for other
    /// flags; outputs follow a wave, counts count.
    pub fn guess(name: &str, ty: BoundType, input: bool) -> Behaviour {
        let n = name.to_ascii_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| n.contains(w));
        if !input {
            return match ty {
                BoundType::Byte | BoundType::HalfByte | BoundType::Int
                    if has(&["count", "num", "stack", "charge", "combo", "index"]) =>
                {
                    Behaviour::Counter
                }
                _ => Behaviour::Wave { period_s: 2.0 },
            };
        }
        let press = |key| Behaviour::Press { key, period_s: 2.5 };
        let hold = |key| Behaviour::Hold { key, period_s: 4.0 };
        // A vector or a number is an axis whatever its name ("AimInput", "SprintAmount").
        if ty.is_continuous() {
            return Behaviour::Axis;
        }
        if has(&["jump", "vault", "mantle", "climb"]) {
            press(InputKey::Space)
        } else if has(&["dash", "dodge", "roll", "blink"]) {
            press(InputKey::Q)
        } else if has(&["fire", "shoot", "attack", "melee", "ability", "cast"]) {
            press(InputKey::F)
        } else if has(&["interact", "use", "grab", "pickup"]) {
            press(InputKey::E)
        } else if has(&["reload"]) {
            press(InputKey::R)
        } else if has(&["sprint", "run", "boost"]) {
            hold(InputKey::Shift)
        } else if has(&["crouch", "prone", "slide"]) {
            hold(InputKey::C)
        } else if has(&["walk", "aim", "block", "zoom"]) {
            hold(InputKey::Ctrl)
        } else {
            Behaviour::Toggle { period_s: 3.0 }
        }
    }

    /// Whether the behaviour is one an input takes (else an output's).
    pub fn is_input(self) -> bool {
        matches!(
            self,
            Behaviour::Axis
                | Behaviour::Press { .. }
                | Behaviour::Hold { .. }
                | Behaviour::Toggle { .. }
        )
    }

    /// A short description for tables ("key Space, or every 2.5 s").
    pub fn describe(self) -> String {
        match self {
            Behaviour::Axis => "move direction".into(),
            Behaviour::Press { key, period_s } => {
                format!("press {} (AI: every {period_s} s)", key.label())
            }
            Behaviour::Hold { key, period_s } => {
                format!("hold {} (AI: half of every {period_s} s)", key.label())
            }
            Behaviour::Toggle { period_s } => format!("toggles every {period_s} s"),
            Behaviour::Wave { period_s } => format!("wave, period {period_s} s"),
            Behaviour::Counter => "counts active inputs".into(),
            Behaviour::Constant => "constant".into(),
        }
    }

    /// The period, where the behaviour has one.
    pub fn period(self) -> Option<f64> {
        match self {
            Behaviour::Press { period_s, .. }
            | Behaviour::Hold { period_s, .. }
            | Behaviour::Toggle { period_s }
            | Behaviour::Wave { period_s } => Some(period_s),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_pick_keys_and_roles_pick_kinds() {
        let b = |n, t, i| Behaviour::guess(n, t, i);
        assert_eq!(
            b("bWantsToJump", BoundType::Bool, true),
            Behaviour::Press {
                key: InputKey::Space,
                period_s: 2.5
            }
        );
        assert!(matches!(
            b("bSprintPressed", BoundType::Bool, true),
            Behaviour::Hold {
                key: InputKey::Shift,
                ..
            }
        ));
        assert_eq!(
            b("LookAxis", BoundType::CompressedVector2D, true),
            Behaviour::Axis
        );
        // A vector named like a key is still an axis.
        assert_eq!(
            b("AimInput", BoundType::CompressedVector2D, true),
            Behaviour::Axis
        );
        assert!(matches!(
            b("bFlag", BoundType::Bool, true),
            Behaviour::Toggle { .. }
        ));
        assert_eq!(b("JumpCount", BoundType::Byte, false), Behaviour::Counter);
        assert!(matches!(
            b("Stamina", BoundType::CompressedFloat, false),
            Behaviour::Wave { .. }
        ));
        assert!(
            InputKey::ALL.iter().all(|k| InputKey::ALL
                .iter()
                .filter(|o| o.bit() == k.bit())
                .count()
                == 1)
        );
    }
}
