//! One participant's control connection as the host serves it: the magic and the handshake
//! (checked against the join code and the session's room), then the joined participant's
//! records, pongs and leaving.

use super::{Conn, ConnState, HostContext, Joined, MAX_EARLY, ParticipantInfo};
use super::{changed, describe, leave, log, rejected};
use crate::model::telemetry::{Event, LogLevel, Machine, Record, Rejection};
use crate::net::remote::Down;
use crate::net::remote::HELLO_TIMEOUT;
use crate::net::remote::MAGIC;
use crate::net::remote::MAX_WRONG_CODES;
use crate::net::remote::PING_INTERVAL;
use crate::net::remote::PROTOCOL;
use crate::net::remote::RECORDS_PER_S;
use crate::net::remote::Up;
use crate::net::remote::WRONG_CODE_WINDOW;
use crate::net::remote::same_code;
use crate::net::runtime::TelemetryTx;
use crate::session::control::Settings;
use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::Ordering;

/// Why the host drops a control connection; `Display` says it as the host logs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dropped {
    /// The connection did not start with the magic.
    NotMovescope,
    /// No handshake within [`HELLO_TIMEOUT`].
    NoHandshake,
    /// The handshake is not a frame of the join protocol.
    MalformedHandshake,
    /// A joined participant sent something that is not a frame of the protocol.
    MalformedFrame,
    /// The participant said it leaves (said already, so nothing more to say).
    Left,
}

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Dropped::NotMovescope => "not a movescope participant",
            Dropped::NoHandshake => "no handshake in time",
            Dropped::MalformedHandshake => "a malformed handshake",
            Dropped::MalformedFrame => "it sent a malformed frame",
            Dropped::Left => "",
        })
    }
}

/// Handles what arrived on one connection. `Err`: drop it, for this reason.
pub(super) fn serve(
    c: &mut Conn,
    t: f64,
    code: &str,
    max: usize,
    cx: &HostContext,
    wrong: &mut HashMap<IpAddr, VecDeque<f64>>,
) -> Result<(), Dropped> {
    loop {
        let more = match c.state {
            ConnState::Handshaking { since, magic_ok } => {
                handshake_step(c, t, (since, magic_ok), code, max, cx, wrong)?
            }
            ConnState::Joined(_) => joined_step(c, t, cx)?,
            ConnState::Left => false,
        };
        if !more {
            return Ok(());
        }
    }
}

/// A connection before its handshake: the magic, then the handshake, admitted or refused.
/// True when the participant joined (what follows is read as a joined one's).
fn handshake_step(
    c: &mut Conn,
    t: f64,
    (since, magic_ok): (f64, bool),
    code: &str,
    max: usize,
    cx: &HostContext,
    wrong: &mut HashMap<IpAddr, VecDeque<f64>>,
) -> Result<bool, Dropped> {
    let tele = &cx.tele;
    if !magic_ok {
        match c.inbox.take_raw(MAGIC.len()) {
            Some(m) if m == MAGIC => {
                c.state = ConnState::Handshaking {
                    since,
                    magic_ok: true,
                }
            }
            Some(_) => {
                tele.send(rejected(t, Rejection::Foreign));
                return Err(Dropped::NotMovescope);
            }
            None => return waiting_for_handshake(t, since, tele),
        }
    }
    let hello = match c.inbox.next::<Up>() {
        Ok(Some(m)) => m,
        Ok(None) => return waiting_for_handshake(t, since, tele),
        Err(_) => {
            tele.send(rejected(
                t,
                Rejection::Malformed(crate::model::wire::DecodeError::Truncated),
            ));
            return Err(Dropped::MalformedHandshake);
        }
    };
    match admit(c.peer, hello, t, code, max, cx, wrong) {
        Ok((id, welcome, who)) => {
            c.outbox.push(&welcome);
            c.state = ConnState::Joined(Joined {
                id,
                offset: 0.0,
                // The first ping a tenth of a second after the welcome, when the
                // participant's loop runs (one in the welcome's segment would be read late,
                // after its client started, and set its clock late).
                last_ping: t - PING_INTERVAL + 0.1,
                rtt: None,
                tokens: RECORDS_PER_S,
                last_t: t,
                early: Vec::new(),
            });
            tele.send(changed(t, format!("{who} joined from {}", c.peer.ip())));
            Ok(true)
        }
        Err(why) => {
            tele.send(log(
                t,
                LogLevel::Warning,
                format!("host: refused a participant from {}: {why}", c.peer),
            ));
            c.outbox.push(&Down::Refused { why });
            c.closing = true;
            Ok(false)
        }
    }
}

/// Nothing more of the handshake yet: wait for it, until [`HELLO_TIMEOUT`] after the
/// connection was accepted.
fn waiting_for_handshake(t: f64, since: f64, tele: &TelemetryTx) -> Result<bool, Dropped> {
    if t - since > HELLO_TIMEOUT {
        tele.send(rejected(t, Rejection::Unadmitted));
        Err(Dropped::NoHandshake)
    } else {
        Ok(false)
    }
}

/// The next message of a joined participant, if one arrived. True when one was handled.
fn joined_step(c: &mut Conn, t: f64, cx: &HostContext) -> Result<bool, Dropped> {
    let tele = &cx.tele;
    let msg = match c.inbox.next::<Up>() {
        Ok(Some(m)) => m,
        Ok(None) => return Ok(false),
        Err(_) => {
            tele.send(rejected(
                t,
                Rejection::Malformed(crate::model::wire::DecodeError::Truncated),
            ));
            return Err(Dropped::MalformedFrame);
        }
    };
    let ConnState::Joined(j) = &mut c.state else {
        return Ok(false);
    };
    match msg {
        Up::Records(rs) => j.on_records(t, tele, rs),
        Up::Pong { host_t, p_t, held } => j.on_pong(t, cx, host_t, p_t, held),
        Up::Hello { .. } => {
            tele.send(rejected(t, Rejection::Duplicate));
        }
        Up::Leave { why } => {
            let id = j.id;
            let why: String = why.chars().filter(|c| !c.is_control()).take(120).collect();
            let name = leave(cx, id);
            if let Ok(mut d) = cx.departures.lock() {
                d.push((id, why.clone()));
            }
            let who = describe(id, name.as_deref());
            tele.send(changed(t, format!("{who} left the session ({why})")));
            c.state = ConnState::Left;
            return Err(Dropped::Left);
        }
    }
    Ok(true)
}

impl Joined {
    /// The participant's client's records, to the session on the host's time: within the
    /// rate limit, only its own machine's, held back until its clock offset is known.
    fn on_records(&mut self, t: f64, tele: &TelemetryTx, rs: Vec<Record>) {
        self.tokens = (self.tokens + (t - self.last_t).max(0.0) * RECORDS_PER_S).min(RECORDS_PER_S);
        self.last_t = t;
        for mut r in rs {
            if self.tokens < 1.0 {
                tele.send(rejected(t, Rejection::RateLimited));
                continue;
            }
            self.tokens -= 1.0;
            if r.machine != Machine::Client(self.id) || !r.t.is_finite() {
                tele.send(rejected(t, Rejection::WrongSource));
                continue;
            }
            if self.rtt.is_none() {
                if self.early.len() < MAX_EARLY {
                    self.early.push(r);
                } else {
                    tele.send(rejected(t, Rejection::RateLimited));
                }
                continue;
            }
            r.t += self.offset;
            tele.send(r);
        }
    }

    /// A pong to the host's ping: the round trip and the clock offset, and the records that
    /// came before the offset was known, on the host's time now.
    fn on_pong(&mut self, t: f64, cx: &HostContext, host_t: f64, p_t: f64, held: f64) {
        let tele = &cx.tele;
        let trip = (t - host_t - held.clamp(0.0, 1.0)).max(0.0);
        if host_t.is_finite() && p_t.is_finite() && host_t <= t {
            self.rtt = Some(trip);
            self.offset = host_t + held + trip / 2.0 - p_t;
            if let Ok(mut s) = cx.shared.lock()
                && let Some(p) = s.participants.get_mut(&self.id)
            {
                p.real_rtt = Some(trip);
            }
            tele.send(Record {
                t,
                machine: Machine::Client(self.id),
                event: Event::RealRtt { rtt: trip },
            });
            for mut r in self.early.drain(..) {
                r.t += self.offset;
                tele.send(r);
            }
        }
    }
}

/// Checks a handshake; on success puts the participant on the roster and says what to send.
fn admit(
    peer: SocketAddr,
    hello: Up,
    t: f64,
    code: &str,
    max: usize,
    cx: &HostContext,
    wrong: &mut HashMap<IpAddr, VecDeque<f64>>,
) -> Result<(u16, Down, String), String> {
    let Up::Hello {
        protocol,
        code: given,
        name,
        udp_port,
    } = hello
    else {
        return Err("the first message was not a handshake".into());
    };
    if protocol != PROTOCOL {
        return Err(format!(
            "this host speaks movescope's join protocol {PROTOCOL}, the participant {protocol}: use the same movescope version"
        ));
    }
    let tries = wrong.entry(peer.ip()).or_default();
    while tries.front().is_some_and(|&w| t - w > WRONG_CODE_WINDOW) {
        tries.pop_front();
    }
    if tries.len() >= MAX_WRONG_CODES {
        cx.tele.send(rejected(t, Rejection::RateLimited));
        return Err(locked_out(peer.ip(), tries, t));
    }
    if !same_code(&given, code) {
        tries.push_back(t);
        cx.tele.send(rejected(t, Rejection::Unadmitted));
        let mut why =
            String::from("wrong join code (ask the trainer for the code the host printed)");
        if tries.len() >= MAX_WRONG_CODES {
            why.push_str(&format!(
                "; that was the {MAX_WRONG_CODES}th wrong code from {} within a minute: {}",
                peer.ip(),
                locked_out(peer.ip(), tries, t)
            ));
        }
        return Err(why);
    }
    let name = name
        .map(|n| {
            n.trim()
                .chars()
                .filter(|c| !c.is_control())
                .take(32)
                .collect::<String>()
        })
        .filter(|n| !n.is_empty());
    let mut s = cx
        .shared
        .lock()
        .map_err(|_| "the host is shutting down".to_string())?;
    let returning = name.as_ref().and_then(|n| {
        s.participants
            .values()
            .find(|p| p.name.as_ref() == Some(n))
            .cloned()
    });
    if let Some(p) = &returning
        && p.connected
    {
        return Err(format!(
            "the name {} is in use by a connected participant; choose another with --name",
            p.name.as_deref().unwrap_or_default()
        ));
    }
    let connected = s.participants.values().filter(|p| p.connected).count();
    if connected >= max {
        cx.tele.send(rejected(t, Rejection::RateLimited));
        return Err(format!("the session is full ({max} participants)"));
    }
    let id = match &returning {
        Some(p) => p.id,
        None => {
            let taken: Vec<u16> = s
                .local_ids
                .iter()
                .copied()
                .chain(s.participants.keys().copied())
                .collect();
            let id = Settings::next_client_id(&taken);
            if id >= crate::session::control::MAX_CLIENTS {
                return Err(format!(
                    "the session has no room for another client (at most {})",
                    crate::session::control::MAX_CLIENTS
                ));
            }
            id
        }
    };
    let udp = SocketAddr::new(peer.ip(), udp_port);
    if let Ok(mut r) = cx.roster.lock() {
        if let Some(old) = returning.as_ref().map(|p| p.udp) {
            r.remove(&old);
        }
        r.insert(udp, id);
    }
    s.participants.insert(
        id,
        ParticipantInfo {
            id,
            name: name.clone(),
            connected: true,
            udp,
            real_rtt: None,
            control_in: 0,
            control_out: 0,
        },
    );
    s.names_version += 1;
    let incarnation = cx.incarnations.fetch_add(1, Ordering::AcqRel) + 1;
    let who = describe(id, name.as_deref());
    let who = if returning.is_some() {
        format!("{who}, back for its pawn,")
    } else {
        who
    };
    Ok((
        id,
        Down::Welcome {
            id,
            incarnation,
            // Its own key only: with the session's secret a participant could join as another.
            secret: crate::model::messages::client_key(cx.secret, id),
            preset: s.preset_ron.clone(),
            udp_port: s.udp_port,
        },
        who,
    ))
}

/// The refusal an address gets while its wrong codes lock it out: how long it still lasts.
fn locked_out(ip: IpAddr, tries: &VecDeque<f64>, t: f64) -> String {
    let oldest = tries.front().copied().unwrap_or(t);
    let left = (WRONG_CODE_WINDOW - (t - oldest)).clamp(1.0, WRONG_CODE_WINDOW);
    format!(
        "{ip} is locked out after {MAX_WRONG_CODES} wrong join codes within a minute: every \
         join from it, even with the right code, is refused for another {left:.0} s"
    )
}
