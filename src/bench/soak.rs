//! `bench --soak MINUTES`: a live session under a hostile flood: memory and drops by kind.
//!
//! The flood is a thread whose state is [`Flood`], one method per kind of datagram it sends;
//! what the session reports is folded into a [`Tally`], checked each minute and at the end.

use std::collections::BTreeMap;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;

use crate::bench::rss_kb;
use movescope::model::binding::Bindings;
use movescope::model::messages::ClientMsg;
use movescope::model::telemetry::{Event, LogLevel, Record, Rejection};
use movescope::net::transport::Endpoint;
use movescope::session::preset::Preset;

pub(crate) fn bench_soak(minutes: f64) -> Result<(), String> {
    let p = Preset::builtin_default();
    let session = movescope::net::live::LiveSession::start(&p)?;
    let rx = session.telemetry().clone();
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicU64::new(0));
    let bindings = p.checked_bindings().map_err(|e| e.to_string())?;
    let clients = p.clients;
    // The flood: one thread, about 6 000 datagrams a second of four kinds, and once a second
    // the session's own joins replayed byte for byte and forged joins from a new port
    // (MOVESCOPE_SOAK_NO_FLOOD=1: none, the same session's baseline).
    let no_flood = std::env::var_os("MOVESCOPE_SOAK_NO_FLOOD").is_some();
    let flood = {
        let (stop, sent) = (stop.clone(), sent.clone());
        let (target, secret) = (session.server_addr(), session.join_secret());
        std::thread::spawn(move || -> std::io::Result<()> {
            Flood::new(target, bindings, secret, clients, sent)?.run(&stop, no_flood)
        })
    };
    let mut tally = Tally::default();
    let started = Instant::now();
    let total = Duration::from_secs_f64(minutes * 60.0);
    // Warm-up: the session and the flood settle for 10 s before the first RSS figure.
    let warm = Duration::from_secs(10).min(total / 4);
    while started.elapsed() < warm {
        std::thread::sleep(Duration::from_millis(20));
        tally.drain(&rx);
    }
    let rss_start = rss_kb();
    println!(
        "soak: live default preset under a hostile flood for {minutes} min (RSS after {} s warm-up: {} kB)",
        warm.as_secs(),
        rss_start.map_or("?".into(), |k| k.to_string())
    );
    let rss_steady = watch(&mut tally, &rx, &sent, clients, started, warm, total);
    stop.store(true, Ordering::Relaxed);
    let flood_result = flood.join();
    tally.drain(&rx);
    let rss_end = rss_kb();
    session.stop();
    print_end(
        &tally,
        sent.load(Ordering::Relaxed),
        rss_start,
        rss_steady,
        rss_end,
    );
    match flood_result {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(format!("the flood thread failed: {e}")),
        Err(_) => return Err("the flood thread panicked".into()),
    }
    tally.verdict(clients)
}

/// The flood thread's state: where it sends, what it forges joins with, its sockets, and its
/// round count; one method per kind of datagram.
struct Flood {
    target: SocketAddr,
    bindings: Bindings,
    secret: u64,
    clients: u16,
    /// Hostile datagrams sent (read by the report).
    sent: Arc<AtomicU64>,
    /// Laminar's protocol id: garbage framed with it reaches laminar's parsing.
    id: [u8; 2],
    junk: UdpSocket,
    fast: UdpSocket,
    forger: Endpoint,
    t0: Instant,
    i: u64,
}

impl Flood {
    /// The flood's sockets, bound on the loopback.
    fn new(
        target: SocketAddr,
        bindings: Bindings,
        secret: u64,
        clients: u16,
        sent: Arc<AtomicU64>,
    ) -> std::io::Result<Flood> {
        Ok(Flood {
            target,
            bindings,
            secret,
            clients,
            sent,
            id: movescope::net::transport::laminar_protocol_id().to_be_bytes(),
            junk: UdpSocket::bind("127.0.0.1:0")?,
            fast: UdpSocket::bind("127.0.0.1:0")?,
            forger: Endpoint::bind_loopback(0)?,
            t0: Instant::now(),
            i: 0,
        })
    }

    /// Floods until `stop`, about 200 rounds a second (`no_flood`: sends nothing).
    fn run(mut self, stop: &AtomicBool, no_flood: bool) -> std::io::Result<()> {
        while !stop.load(Ordering::Relaxed) {
            if no_flood {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            let tick = Instant::now();
            self.garbage()?;
            self.forged_ping();
            // Once a second.
            if self.i % 1600 < 8 {
                self.joins()?;
            }
            // A new forger every 2 s: the attacker's own laminar state (it lives in this
            // process too) does not pile up in the figure.
            if self.i % 3200 < 8 {
                self.forger = Endpoint::bind_loopback(0)?;
            }
            if let Some(left) = Duration::from_millis(5).checked_sub(tick.elapsed()) {
                std::thread::sleep(left);
            }
        }
        Ok(())
    }

    /// Eight rounds of garbage: not laminar at all, laminar-framed from a new source port each
    /// time, and twice from one fast sender.
    fn garbage(&mut self) -> std::io::Result<()> {
        for _ in 0..8 {
            self.i += 1;
            let i = self.i;
            self.junk.send_to(&i.to_le_bytes(), self.target)?;
            let fresh = UdpSocket::bind("127.0.0.1:0")?;
            let mut g = self.id.to_vec();
            g.extend_from_slice(&i.to_le_bytes());
            fresh.send_to(&g, self.target)?;
            self.fast.send_to(&g, self.target)?;
            self.fast.send_to(&g, self.target)?;
            self.sent.fetch_add(4, Ordering::Relaxed);
        }
        Ok(())
    }

    /// A forged, well-formed copy of client 0's ping (absurd clock values).
    fn forged_ping(&mut self) {
        let i = self.i;
        let bytes = movescope::model::wire::encode_client(
            0,
            i as u32,
            &ClientMsg::Ping {
                seq: i as u32,
                client_time: if i.is_multiple_of(2) { 1.0e234 } else { 12.0 },
            },
            &self.bindings,
        );
        self.forger.send(self.target, bytes, false);
        let now = Instant::now();
        self.forger
            .poll((now - self.t0).as_secs_f64(), now, &mut Vec::new());
        self.sent.fetch_add(1, Ordering::Relaxed);
    }

    /// Every client's join as it sent it (incarnation 0, the client's proof of it, its first
    /// sequence numbers), replayed from the forger's port, and a join with a rewritten sender
    /// id and no proof from a new port.
    fn joins(&mut self) -> std::io::Result<()> {
        for c in 0..self.clients {
            for seq in 1..=2 {
                let bytes = self.join(c, seq, self.secret);
                self.forger.send(self.target, bytes, true);
                self.sent.fetch_add(1, Ordering::Relaxed);
            }
        }
        let mut stranger = Endpoint::bind_loopback(0)?;
        let ids = [0u16, 1, 2, 3, 63, 128, 200, 65535];
        let id = ids[(self.i / 1600) as usize % ids.len()];
        stranger.send(self.target, self.join(id, 1, self.secret ^ self.i), true);
        let now = Instant::now();
        stranger.poll((now - self.t0).as_secs_f64(), now, &mut Vec::new());
        self.sent.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Client `id`'s first join with sequence number `seq`, proved with `secret`.
    fn join(&self, id: u16, seq: u32, secret: u64) -> Vec<u8> {
        let layout_hash = self.bindings.layout_hash();
        movescope::model::wire::encode_client(
            id,
            seq,
            &ClientMsg::Join {
                incarnation: 0,
                proof: first_join_proof(secret, id, layout_hash),
                layout_hash,
            },
            &self.bindings,
        )
    }
}

/// What the session reported under the flood.
#[derive(Default)]
struct Tally {
    counts: BTreeMap<&'static str, u64>,
    moves: u64,
    /// Moves executed per client (a replayed join that displaced one would stop it).
    per_client: BTreeMap<u16, u64>,
    errors: Vec<String>,
    /// Clients the server dropped (none may be, whatever the flood sends).
    dropped: Vec<String>,
}

impl Tally {
    /// Folds in every record the session has reported so far.
    fn drain(&mut self, rx: &Receiver<Record>) {
        for r in rx.try_iter() {
            self.take(&r);
        }
    }

    /// What one record counts as: a drop by kind, a move executed, a client dropped, an error.
    fn take(&mut self, r: &Record) {
        match &r.event {
            Event::Rejected { reason } => {
                *self.counts.entry(rejection_name(reason)).or_default() += 1
            }
            Event::RemoteMoveExecuted(m) => {
                self.moves += 1;
                *self.per_client.entry(m.client).or_default() += 1;
            }
            Event::ClientDropped { client, why } => {
                self.dropped
                    .push(format!("client {client} at {:.1} s ({why})", r.t));
            }
            Event::Log {
                level: LogLevel::Error,
                text,
            } => self.errors.push(text.clone()),
            _ => {}
        }
    }

    /// Every client kept playing through the minute (`last_minute`: the counts a minute ago).
    fn check_minute(&mut self, last_minute: &BTreeMap<u16, u64>, clients: u16) {
        for c in 0..clients {
            let now = self.per_client.get(&c).copied().unwrap_or(0);
            if now == last_minute.get(&c).copied().unwrap_or(0) {
                self.errors
                    .push(format!("client {c} executed no move in a minute"));
            }
        }
    }

    /// The run's verdict: moves were executed, by every client, none was dropped, and
    /// nothing went wrong.
    fn verdict(&self, clients: u16) -> Result<(), String> {
        if self.moves == 0 {
            return Err("no moves were executed under the flood".into());
        }
        if !self.dropped.is_empty() {
            return Err(format!(
                "the server dropped real clients under the flood: {}",
                self.dropped.join("; ")
            ));
        }
        if let Some(c) = (0..clients).find(|c| !self.per_client.contains_key(c)) {
            return Err(format!("client {c} executed no move under the flood"));
        }
        if !self.errors.is_empty() {
            return Err(format!("errors under the flood: {:?}", self.errors));
        }
        Ok(())
    }
}

/// How the report names a kind of rejected datagram.
fn rejection_name(reason: &Rejection) -> &'static str {
    match reason {
        Rejection::Foreign => "foreign",
        Rejection::WrongSource => "wrong source",
        Rejection::Unadmitted => "unadmitted",
        Rejection::RateLimited => "rate limited",
        Rejection::Malformed(_) => "malformed",
        Rejection::Duplicate => "duplicate",
        Rejection::ForgedJoin => "forged join",
        Rejection::ClientIdOutOfRange => "join out of range",
        Rejection::StaleJoin => "stale join",
        Rejection::ReplayedJoin => "replayed join",
    }
}

/// The run after the warm-up until `total`: drains the session's reports, prints a line and
/// checks every client each minute; returns the RSS at the 6-minute mark. Laminar pages in its
/// fixed 65 535-entry buffers as a connection's sequence numbers advance (~200 a second): RSS
/// climbs for about 5.5 minutes, then stays. Growth is also given from the 6-minute mark, when
/// the run is long enough.
fn watch(
    tally: &mut Tally,
    rx: &Receiver<Record>,
    sent: &AtomicU64,
    clients: u16,
    started: Instant,
    warm: Duration,
    total: Duration,
) -> Option<u64> {
    let mut next_report = started + warm + Duration::from_secs(60);
    let mut last_minute = tally.per_client.clone();
    let steady_at = Duration::from_secs(360);
    let mut rss_steady = None;
    while started.elapsed() < total {
        std::thread::sleep(Duration::from_millis(20));
        tally.drain(rx);
        if rss_steady.is_none() && started.elapsed() >= steady_at {
            rss_steady = rss_kb();
        }
        if Instant::now() >= next_report {
            next_report += Duration::from_secs(60);
            println!(
                "  {:5.1} min: RSS {} kB, {} hostile datagrams sent, moves executed {}",
                started.elapsed().as_secs_f64() / 60.0,
                rss_kb().map_or("?".into(), |k| k.to_string()),
                sent.load(Ordering::Relaxed),
                tally.moves
            );
            tally.check_minute(&last_minute, clients);
            last_minute = tally.per_client.clone();
        }
    }
    rss_steady
}

/// The end of the report: RSS growth from the warm-up (and from the 6-minute mark), what the
/// flood sent and the session did, drops by kind, and errors.
fn print_end(
    tally: &Tally,
    sent: u64,
    rss_start: Option<u64>,
    rss_steady: Option<u64>,
    rss_end: Option<u64>,
) {
    let growth = |a: Option<u64>| match (a, rss_end) {
        (Some(a), Some(b)) if a > 0 => format!("{:+.1} %", (b as f64 / a as f64 - 1.0) * 100.0),
        _ => "?".into(),
    };
    println!(
        "  end: RSS {} kB; growth {} from the warm-up{}   (aim: < 5 % over 30 min)",
        rss_end.map_or("?".into(), |k| k.to_string()),
        growth(rss_start),
        match rss_steady {
            Some(k) => format!(", {} from the 6-minute mark ({k} kB)", growth(Some(k))),
            None => String::new(),
        }
    );
    println!(
        "  hostile datagrams sent: {sent}; the session went on: {} moves executed ({})",
        tally.moves,
        tally
            .per_client
            .iter()
            .map(|(c, n)| format!("client {c}: {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!("  dropped by kind:");
    for (k, n) in &tally.counts {
        println!("    {k:>13}: {n}");
    }
    if !tally.errors.is_empty() {
        println!("  errors: {:?}", tally.errors);
    }
}

/// The proof client `id`'s first join carries in a session whose secret is `secret`.
fn first_join_proof(secret: u64, id: u16, layout_hash: u32) -> u64 {
    use movescope::model::messages::{client_key, join_proof};
    join_proof(client_key(secret, id), id, 0, layout_hash)
}
