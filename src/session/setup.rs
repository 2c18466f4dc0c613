//! How a session's machines are set up from a preset, written once for both drivers (the
//! virtual-time harness and the live threads): a client's configuration, input script,
//! frame rate and frame jitter, its links' seeds, and the packet records both drivers write.

use std::sync::Arc;

use crate::conditions::link::Link;
use crate::model::binding::Bindings;
use crate::model::client::{Client, ClientConfig};
use crate::model::input::InputScript;
use crate::model::messages::MsgKind;
use crate::model::telemetry::{Event, Machine, PacketFate, Record};
use crate::session::preset::Preset;
use crate::support::rng::{Rng, derive_seed, purpose};

/// Everything a driver needs to run one client of a preset.
pub struct ClientSetup {
    pub client: Client,
    pub script: InputScript,
    pub frames: FrameClock,
    /// The client's link up to the server, and the server's link down to it.
    pub up: Link,
    pub down: Link,
}

/// Client `id`'s frames per second and their relative jitter: its own in
/// `client_overrides`, else the preset's.
pub fn frame_rate(preset: &Preset, id: u16) -> (f64, f64) {
    let o = preset.client_overrides.iter().find(|o| o.client == id);
    (
        o.and_then(|o| o.fps).unwrap_or(preset.client_fps),
        o.and_then(|o| o.fps_jitter)
            .unwrap_or(preset.client_fps_jitter),
    )
}

/// Sets up client `id` of `preset`: its configuration (with `bindings` and the `layouts`
/// defined since the session started), input script, frame clock and links, each from its
/// own seeded stream.
pub fn client(
    preset: &Preset,
    id: u16,
    incarnation: u32,
    bindings: Arc<Bindings>,
    layouts: &[(u8, Arc<Bindings>, bool)],
) -> ClientSetup {
    let idx = u64::from(id);
    let seed = preset.seed;
    let mut client = Client::new(preset.client_config(id, incarnation, bindings));
    for (v, b, select) in layouts {
        client.define_layout(*v, b.clone());
        if *select {
            client.use_layout(*v);
        }
    }
    ClientSetup {
        client,
        script: InputScript::new(
            preset.input_for(id),
            derive_seed(seed, purpose::CLIENT_INPUT, idx),
        ),
        frames: {
            let (fps, jitter) = frame_rate(preset, id);
            FrameClock {
                fps,
                jitter,
                rng: Rng::new(derive_seed(seed, purpose::CLIENT_FRAMES, idx)),
            }
        },
        up: Link::new(
            preset.link_params(id, true),
            derive_seed(seed, purpose::LINK_UP, idx),
        ),
        down: Link::new(
            preset.link_params(id, false),
            derive_seed(seed, purpose::LINK_DOWN, idx),
        ),
    }
}

/// Client `id`'s configuration (for a driver that builds the client itself).
pub fn client_config(
    preset: &Preset,
    id: u16,
    incarnation: u32,
    bindings: Arc<Bindings>,
) -> ClientConfig {
    preset.client_config(id, incarnation, bindings)
}

/// A client's frame rate with its seeded jitter.
pub struct FrameClock {
    pub fps: f64,
    /// Relative: 0.2 = each frame ±20 %.
    pub jitter: f64,
    rng: Rng,
}

impl FrameClock {
    /// Seconds to the next frame.
    pub fn next_dt(&mut self) -> f64 {
        (1.0 / self.fps) * (1.0 + self.jitter * (2.0 * self.rng.f64() - 1.0))
    }
}

/// Seconds after the session started that client `id` starts its world and joins.
pub fn join_time(preset: &Preset, id: u16) -> f64 {
    f64::from(id + 1) * preset.join_interval_s
}

/// The record of a datagram: kept by the receiver when delivered, by the sender otherwise.
pub fn packet_record(
    t: f64,
    from: Machine,
    to: Machine,
    bytes: usize,
    fate: PacketFate,
    kind: MsgKind,
) -> Record {
    let machine = if fate == PacketFate::Delivered {
        to
    } else {
        from
    };
    Record {
        t,
        machine,
        event: Event::Packet {
            from,
            to,
            bytes: bytes as u32,
            fate,
            kind,
        },
    }
}
