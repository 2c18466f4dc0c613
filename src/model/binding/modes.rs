//! The four modes every binding carries: prediction (who owns and validates a value),
//! combine (how frames merge into a move), simulation (whether it reaches proxies) and
//! interpolation (how proxies blend it).

use serde::{Deserialize, Serialize};

use super::types::BoundType;

/// `EGMC_PredictionMode`: who owns a value, which side of the move it belongs to, and who
/// validates it.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PredictionMode {
    ServerAuth_Input_ClientValidated,
    ServerAuth_Output_ClientValidated,
    ServerAuth_InputOutput_ClientValidated,
    ServerAuth_Input_ServerValidated,
    ServerAuth_Output_ServerValidated,
    ServerAuth_InputOutput_ServerValidated,
    ClientAuth_Input,
    ClientAuth_Output,
    ClientAuth_InputOutput,
    Local,
}

impl PredictionMode {
    pub const ALL: [PredictionMode; 10] = [
        PredictionMode::ServerAuth_Input_ClientValidated,
        PredictionMode::ServerAuth_Output_ClientValidated,
        PredictionMode::ServerAuth_InputOutput_ClientValidated,
        PredictionMode::ServerAuth_Input_ServerValidated,
        PredictionMode::ServerAuth_Output_ServerValidated,
        PredictionMode::ServerAuth_InputOutput_ServerValidated,
        PredictionMode::ClientAuth_Input,
        PredictionMode::ClientAuth_Output,
        PredictionMode::ClientAuth_InputOutput,
        PredictionMode::Local,
    ];

    /// Part of the move's input state.
    pub fn is_input(self) -> bool {
        use PredictionMode::*;
        matches!(
            self,
            ServerAuth_Input_ClientValidated
                | ServerAuth_InputOutput_ClientValidated
                | ServerAuth_Input_ServerValidated
                | ServerAuth_InputOutput_ServerValidated
                | ClientAuth_Input
                | ClientAuth_InputOutput
        )
    }

    /// Part of the move's output state.
    pub fn is_output(self) -> bool {
        use PredictionMode::*;
        matches!(
            self,
            ServerAuth_Output_ClientValidated
                | ServerAuth_InputOutput_ClientValidated
                | ServerAuth_Output_ServerValidated
                | ServerAuth_InputOutput_ServerValidated
                | ClientAuth_Output
                | ClientAuth_InputOutput
        )
    }

    pub fn is_server_auth(self) -> bool {
        use PredictionMode::*;
        matches!(
            self,
            ServerAuth_Input_ClientValidated
                | ServerAuth_Output_ClientValidated
                | ServerAuth_InputOutput_ClientValidated
                | ServerAuth_Input_ServerValidated
                | ServerAuth_Output_ServerValidated
                | ServerAuth_InputOutput_ServerValidated
        )
    }

    pub fn is_client_auth(self) -> bool {
        use PredictionMode::*;
        matches!(
            self,
            ClientAuth_Input | ClientAuth_Output | ClientAuth_InputOutput
        )
    }

    /// The server sends its value with every acknowledgement and the client compares.
    pub fn is_client_validated(self) -> bool {
        use PredictionMode::*;
        matches!(
            self,
            ServerAuth_Input_ClientValidated
                | ServerAuth_Output_ClientValidated
                | ServerAuth_InputOutput_ClientValidated
        )
    }

    /// The client sends its value with every move and the server compares.
    pub fn is_server_validated(self) -> bool {
        use PredictionMode::*;
        matches!(
            self,
            ServerAuth_Input_ServerValidated
                | ServerAuth_Output_ServerValidated
                | ServerAuth_InputOutput_ServerValidated
        )
    }

    /// `Local`: bound (saved with moves, restored by replays) but never synchronized.
    pub fn is_local(self) -> bool {
        self == PredictionMode::Local
    }

    /// The client puts this value into the moves it sends.
    pub fn client_sends(self) -> bool {
        self.is_server_validated() || self.is_client_auth()
    }

    /// One-line explanation for tooltips and docs.
    pub fn explain(self) -> &'static str {
        use PredictionMode::*;
        match self {
            ServerAuth_Input_ClientValidated => {
                "Server-owned input value; the server sends it down and the client checks its copy."
            }
            ServerAuth_Output_ClientValidated => {
                "Server-owned result; the server sends it with every reply and the client compares (downstream pressure)."
            }
            ServerAuth_InputOutput_ClientValidated => {
                "Server-owned on both sides of the move; checked by the client."
            }
            ServerAuth_Input_ServerValidated => {
                "Server-owned input value; the client sends its copy up and the server compares."
            }
            ServerAuth_Output_ServerValidated => {
                "Server-owned result; the client sends its prediction up and the server compares (upstream pressure)."
            }
            ServerAuth_InputOutput_ServerValidated => {
                "Server-owned on both sides of the move; checked by the server."
            }
            ClientAuth_Input => {
                "Client-owned input (player input): sent up and used by the server unquestioned."
            }
            ClientAuth_Output => {
                "Client-owned result: the server overwrites its own result with the client's. Cheatable."
            }
            ClientAuth_InputOutput => "Client-owned on both sides of the move.",
            Local => "Never synchronized; saved and restored with moves on this machine only.",
        }
    }
}

/// `EGMC_CombineMode`: how a bound input behaves when frames are merged into one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CombineMode {
    CombineIfUnchanged,
    AlwaysCombine,
    AlwaysCombineOverwrite,
    Default,
    NeverCombine,
}

impl CombineMode {
    pub const ALL: [CombineMode; 5] = [
        CombineMode::CombineIfUnchanged,
        CombineMode::AlwaysCombine,
        CombineMode::AlwaysCombineOverwrite,
        CombineMode::Default,
        CombineMode::NeverCombine,
    ];

    /// The concrete rule `Default` stands for, per type (docs/model.md): discrete types behave
    /// as CombineIfUnchanged, continuous ones as AlwaysCombineOverwrite.
    pub fn resolve(self, ty: BoundType) -> CombineMode {
        match self {
            CombineMode::Default if ty.is_continuous() => CombineMode::AlwaysCombineOverwrite,
            CombineMode::Default => CombineMode::CombineIfUnchanged,
            m => m,
        }
    }

    pub fn explain(self) -> &'static str {
        match self {
            CombineMode::CombineIfUnchanged => {
                "A change of this input starts a new move: right for inputs, guarantees the server sees one-frame pulses."
            }
            CombineMode::AlwaysCombine => {
                "Frames merge regardless; the move keeps the FIRST value of the window. A one-frame pulse mid-window is lost."
            }
            CombineMode::AlwaysCombineOverwrite => {
                "Frames merge regardless; the move keeps the LATEST value of the window."
            }
            CombineMode::Default => {
                "The type's built-in rule: discrete types as CombineIfUnchanged, continuous ones as AlwaysCombineOverwrite."
            }
            CombineMode::NeverCombine => {
                "Every frame becomes its own move: more moves, more bandwidth."
            }
        }
    }
}

/// `EGMC_SimulationMode`: whether and when a value reaches simulated proxies.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SimulationMode {
    Periodic_Input,
    Periodic_Output,
    Periodic_InputOutput,
    PeriodicAndOnChange_Input,
    PeriodicAndOnChange_Output,
    PeriodicAndOnChange_InputOutput,
    None,
}

impl SimulationMode {
    pub const ALL: [SimulationMode; 7] = [
        SimulationMode::Periodic_Input,
        SimulationMode::Periodic_Output,
        SimulationMode::Periodic_InputOutput,
        SimulationMode::PeriodicAndOnChange_Input,
        SimulationMode::PeriodicAndOnChange_Output,
        SimulationMode::PeriodicAndOnChange_InputOutput,
        SimulationMode::None,
    ];

    pub fn explain(self) -> &'static str {
        match self {
            SimulationMode::Periodic_Input
            | SimulationMode::Periodic_Output
            | SimulationMode::Periodic_InputOutput => {
                "Sent to simulated proxies with every state update; values between updates may be missed."
            }
            SimulationMode::PeriodicAndOnChange_Input
            | SimulationMode::PeriodicAndOnChange_Output
            | SimulationMode::PeriodicAndOnChange_InputOutput => {
                "Sent with every update and also forces an update when it changes: for rare flags."
            }
            SimulationMode::None => "Never reaches simulated proxies.",
        }
    }
}

/// `EGMC_InterpolationFunction` (Custom1–Custom8 are user code in GMC and not modelled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum InterpolationFunction {
    NearestNeighbour,
    StartValue,
    TargetValue,
    Linear,
    Cubic,
}

impl InterpolationFunction {
    pub const ALL: [InterpolationFunction; 5] = [
        InterpolationFunction::NearestNeighbour,
        InterpolationFunction::StartValue,
        InterpolationFunction::TargetValue,
        InterpolationFunction::Linear,
        InterpolationFunction::Cubic,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_flags_follow_the_table() {
        for m in PredictionMode::ALL {
            // Exactly one authority class.
            let classes = [
                m.is_server_auth(),
                m.is_client_auth(),
                m == PredictionMode::Local,
            ];
            assert_eq!(classes.iter().filter(|x| **x).count(), 1, "{m:?}");
            if m.is_server_auth() {
                assert!(m.is_client_validated() ^ m.is_server_validated(), "{m:?}");
            }
            if m == PredictionMode::Local {
                assert!(!m.is_input() && !m.is_output() && !m.client_sends());
            } else {
                assert!(m.is_input() || m.is_output(), "{m:?}");
            }
        }
        assert!(!PredictionMode::ServerAuth_Output_ClientValidated.client_sends());
        assert!(PredictionMode::ServerAuth_Output_ServerValidated.client_sends());
        assert!(PredictionMode::ClientAuth_Input.client_sends());
        assert_eq!(
            CombineMode::Default.resolve(BoundType::Bool),
            CombineMode::CombineIfUnchanged
        );
        assert_eq!(
            CombineMode::Default.resolve(BoundType::CompressedVector2D),
            CombineMode::AlwaysCombineOverwrite
        );
    }
}
