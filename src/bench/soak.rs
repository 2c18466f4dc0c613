//! `bench --soak MINUTES`: a live session under a hostile flood: memory and drops by kind.

use crate::bench::rss_kb;
use movescope::session::preset::Preset;

pub(crate) fn bench_soak(minutes: f64) -> Result<(), String> {
    use movescope::model::messages::ClientMsg;
    use movescope::model::telemetry::{Event, Rejection};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::time::{Duration, Instant};

    let p = Preset::builtin_default();
    let session = movescope::net::live::LiveSession::start(&p)?;
    let target = session.server_addr();
    let rx = session.telemetry().clone();
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicU64::new(0));
    let bindings = p.checked_bindings().map_err(|e| e.to_string())?;
    let secret = session.join_secret();
    let clients = p.clients;
    // The flood: one thread, about 6 000 datagrams a second of four kinds, and once a second
    // the session's own joins replayed byte for byte and forged joins from a new port
    // (MOVESCOPE_SOAK_NO_FLOOD=1: none, the same session's baseline).
    let no_flood = std::env::var_os("MOVESCOPE_SOAK_NO_FLOOD").is_some();
    let flood = {
        let (stop, sent) = (stop.clone(), sent.clone());
        std::thread::spawn(move || -> std::io::Result<()> {
            let id = movescope::net::transport::laminar_protocol_id().to_be_bytes();
            let junk = std::net::UdpSocket::bind("127.0.0.1:0")?;
            let fast = std::net::UdpSocket::bind("127.0.0.1:0")?;
            let mut forger = movescope::net::transport::Endpoint::bind_loopback(0)?;
            let t0 = Instant::now();
            let mut i: u64 = 0;
            while !stop.load(Ordering::Relaxed) {
                if no_flood {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
                let tick = Instant::now();
                for _ in 0..8 {
                    i += 1;
                    // Not laminar at all.
                    junk.send_to(&i.to_le_bytes(), target)?;
                    // Laminar-framed garbage from a new source port each time.
                    let fresh = std::net::UdpSocket::bind("127.0.0.1:0")?;
                    let mut g = id.to_vec();
                    g.extend_from_slice(&i.to_le_bytes());
                    fresh.send_to(&g, target)?;
                    // One fast sender of laminar-framed garbage.
                    fast.send_to(&g, target)?;
                    fast.send_to(&g, target)?;
                    sent.fetch_add(4, Ordering::Relaxed);
                }
                // Forged, well-formed copies of client 0's pings (absurd clock values).
                let bytes = movescope::model::wire::encode_client(
                    0,
                    i as u32,
                    &ClientMsg::Ping {
                        seq: i as u32,
                        client_time: if i.is_multiple_of(2) { 1.0e234 } else { 12.0 },
                    },
                    &bindings,
                );
                forger.send(target, bytes, false);
                let now = Instant::now();
                forger.poll((now - t0).as_secs_f64(), now, &mut Vec::new());
                sent.fetch_add(1, Ordering::Relaxed);
                // Once a second: every client's join as it sent it (incarnation 0, the
                // client's proof of it, its first sequence numbers), replayed from the forger's
                // port, and a join with a rewritten sender id and no proof from a new port.
                if i % 1600 < 8 {
                    let join = |id: u16, seq: u32, secret: u64| {
                        movescope::model::wire::encode_client(
                            id,
                            seq,
                            &ClientMsg::Join {
                                incarnation: 0,
                                proof: first_join_proof(secret, id, bindings.layout_hash()),
                                layout_hash: bindings.layout_hash(),
                            },
                            &bindings,
                        )
                    };
                    for c in 0..clients {
                        for seq in 1..=2 {
                            forger.send(target, join(c, seq, secret), true);
                            sent.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    let mut stranger = movescope::net::transport::Endpoint::bind_loopback(0)?;
                    let ids = [0u16, 1, 2, 3, 63, 128, 200, 65535];
                    let id = ids[(i / 1600) as usize % ids.len()];
                    stranger.send(target, join(id, 1, secret ^ i), true);
                    let now = Instant::now();
                    stranger.poll((now - t0).as_secs_f64(), now, &mut Vec::new());
                    sent.fetch_add(1, Ordering::Relaxed);
                }
                // A new forger every 2 s: the attacker's own laminar state (it lives in this
                // process too) does not pile up in the figure.
                if i % 3200 < 8 {
                    forger = movescope::net::transport::Endpoint::bind_loopback(0)?;
                }
                // About 200 rounds a second.
                if let Some(left) = Duration::from_millis(5).checked_sub(tick.elapsed()) {
                    std::thread::sleep(left);
                }
            }
            Ok(())
        })
    };
    #[derive(Default)]
    struct Tally {
        counts: std::collections::BTreeMap<&'static str, u64>,
        moves: u64,
        /// Moves executed per client (a replayed join that displaced one would stop it).
        per_client: std::collections::BTreeMap<u16, u64>,
        errors: Vec<String>,
        /// Clients the server dropped (none may be, whatever the flood sends).
        dropped: Vec<String>,
    }
    let drain = |t: &mut Tally| {
        for r in rx.try_iter() {
            match &r.event {
                Event::Rejected { reason } => {
                    *t.counts
                        .entry(match reason {
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
                        })
                        .or_default() += 1
                }
                Event::RemoteMoveExecuted(m) => {
                    t.moves += 1;
                    *t.per_client.entry(m.client).or_default() += 1;
                }
                Event::ClientDropped { client, why } => {
                    t.dropped
                        .push(format!("client {client} at {:.1} s ({why})", r.t));
                }
                Event::Log {
                    level: movescope::model::telemetry::LogLevel::Error,
                    text,
                } => t.errors.push(text.clone()),
                _ => {}
            }
        }
    };
    let mut tally = Tally::default();
    let started = Instant::now();
    let total = Duration::from_secs_f64(minutes * 60.0);
    // Warm-up: the session and the flood settle for 10 s before the first RSS figure.
    let warm = Duration::from_secs(10).min(total / 4);
    while started.elapsed() < warm {
        std::thread::sleep(Duration::from_millis(20));
        drain(&mut tally);
    }
    let rss_start = rss_kb();
    println!(
        "soak: live default preset under a hostile flood for {minutes} min (RSS after {} s warm-up: {} kB)",
        warm.as_secs(),
        rss_start.map_or("?".into(), |k| k.to_string())
    );
    let mut next_report = started + warm + Duration::from_secs(60);
    let mut last_minute = tally.per_client.clone();
    // Laminar pages in its fixed 65 535-entry buffers as a connection's sequence numbers
    // advance (~200 a second): RSS climbs for about 5.5 minutes, then stays. Growth is also
    // given from the 6-minute mark, when the run is long enough.
    let steady_at = Duration::from_secs(360);
    let mut rss_steady = None;
    while started.elapsed() < total {
        std::thread::sleep(Duration::from_millis(20));
        drain(&mut tally);
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
            // Every client kept playing through the minute.
            for c in 0..clients {
                let now = tally.per_client.get(&c).copied().unwrap_or(0);
                if now == last_minute.get(&c).copied().unwrap_or(0) {
                    tally
                        .errors
                        .push(format!("client {c} executed no move in a minute"));
                }
            }
            last_minute = tally.per_client.clone();
        }
    }
    stop.store(true, Ordering::Relaxed);
    let flood_result = flood.join();
    drain(&mut tally);
    let rss_end = rss_kb();
    session.stop();
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
        "  hostile datagrams sent: {}; the session went on: {} moves executed ({})",
        sent.load(Ordering::Relaxed),
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
    match flood_result {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(format!("the flood thread failed: {e}")),
        Err(_) => return Err("the flood thread panicked".into()),
    }
    if tally.moves == 0 {
        return Err("no moves were executed under the flood".into());
    }
    if !tally.dropped.is_empty() {
        return Err(format!(
            "the server dropped real clients under the flood: {}",
            tally.dropped.join("; ")
        ));
    }
    if let Some(c) = (0..clients).find(|c| !tally.per_client.contains_key(c)) {
        return Err(format!("client {c} executed no move under the flood"));
    }
    if !tally.errors.is_empty() {
        return Err(format!("errors under the flood: {:?}", tally.errors));
    }
    Ok(())
}

/// The proof client `id`'s first join carries in a session whose secret is `secret`.
fn first_join_proof(secret: u64, id: u16, layout_hash: u32) -> u64 {
    use movescope::model::messages::{client_key, join_proof};
    join_proof(client_key(secret, id), id, 0, layout_hash)
}
