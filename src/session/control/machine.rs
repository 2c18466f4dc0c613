//! What one machine is told ([`MachineCmd`]) and who it goes to ([`To`]), and how a client or
//! the server applies a model setting it is told.

use std::sync::Arc;

use crate::conditions::link::LinkParams;
use crate::model::binding::Bindings;
use crate::model::client::Client;
use crate::model::input::RawInput;
use crate::model::server::Server;
use crate::model::settings::{Faults, GmcSettings, SmoothingSettings, WorldSettings};

/// What one machine is told.
#[derive(Clone, Debug)]
pub enum MachineCmd {
    /// A client's link up to the server (the client's side of it).
    UpLink(LinkParams),
    /// The server's link down to `client`.
    DownLink {
        client: u16,
        params: LinkParams,
    },
    Gmc(GmcSettings),
    Faults(Faults),
    World(WorldSettings),
    Smoothing(SmoothingSettings),
    NetUpdateRate(f64),
    /// A client's frames per second and their jitter (the driver's frame clock, not the
    /// model's).
    FrameRate {
        fps: f64,
        jitter: f64,
    },
    HookTrace(bool),
    ValueTrace(bool),
    BufferTrace(bool),
    /// Define a binding layout version; `select`: use it from the next move.
    DefineLayout {
        version: u8,
        bindings: Arc<Bindings>,
        select: bool,
    },
    /// Drive the client's pawn with this input (`None`: its script again).
    Drive(Option<RawInput>),
}

impl MachineCmd {
    /// Applies a model setting to a client (links and driving are the driver's: they are
    /// not the model's).
    pub fn apply_to_client(&self, c: &mut Client) {
        match self {
            MachineCmd::Gmc(g) => c.set_gmc(*g),
            MachineCmd::Faults(f) => c.set_faults(f.clone()),
            MachineCmd::Smoothing(sm) => c.set_smoothing(*sm),
            MachineCmd::HookTrace(on) => c.set_hook_trace(*on),
            MachineCmd::ValueTrace(on) => c.set_value_trace(*on),
            MachineCmd::BufferTrace(on) => c.set_buffer_trace(*on),
            MachineCmd::DefineLayout {
                version,
                bindings,
                select,
            } => define_layout(
                c,
                (Client::define_layout, Client::use_layout),
                (*version, bindings, *select),
            ),
            MachineCmd::UpLink(_)
            | MachineCmd::DownLink { .. }
            | MachineCmd::World(_)
            | MachineCmd::NetUpdateRate(_)
            | MachineCmd::FrameRate { .. }
            | MachineCmd::Drive(_) => {}
        }
    }

    /// Applies a model setting to the server (links are the driver's).
    pub fn apply_to_server(&self, s: &mut Server) {
        match self {
            MachineCmd::Gmc(g) => s.set_gmc(*g),
            MachineCmd::Faults(f) => s.set_faults(f.clone()),
            MachineCmd::World(w) => s.set_world(w.clone()),
            MachineCmd::Smoothing(sm) => s.set_smoothing(*sm),
            MachineCmd::NetUpdateRate(r) => s.set_net_update_rate(*r),
            MachineCmd::HookTrace(on) => s.set_hook_trace(*on),
            MachineCmd::ValueTrace(on) => s.set_value_trace(*on),
            // The server displays no proxies (a listen host's client part does).
            MachineCmd::BufferTrace(_) => {}
            MachineCmd::DefineLayout {
                version,
                bindings,
                select,
            } => define_layout(
                s,
                (Server::define_layout, Server::use_layout),
                (*version, bindings, *select),
            ),
            MachineCmd::UpLink(_)
            | MachineCmd::DownLink { .. }
            | MachineCmd::FrameRate { .. }
            | MachineCmd::Drive(_) => {}
        }
    }
}

/// A layout definition on a machine (a client or the server, by its `define` and `select`):
/// the version defined with its list, and used from the next move when `select`.
type LayoutSetters<M> = (fn(&mut M, u8, Arc<Bindings>), fn(&mut M, u8) -> bool);

fn define_layout<M>(
    m: &mut M,
    (define, use_it): LayoutSetters<M>,
    (version, bindings, select): (u8, &Arc<Bindings>, bool),
) {
    define(m, version, bindings.clone());
    if select {
        use_it(m, version);
    }
}

/// Who a [`MachineCmd`] goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum To {
    Server,
    Client(u16),
    /// Every client of the session.
    Clients,
    /// The server and every client.
    Everyone,
}
