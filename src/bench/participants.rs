//! `bench --participants`: how many participants one host holds at 60 fps, and bytes per
//! participant.

use crate::bench::percentile;
use movescope::model::telemetry::Machine;
use movescope::session::preset::Preset;

/// `bench --participants`: how many participants one host holds at 60 fps.
pub(crate) fn bench_participants(list: &str) -> Result<(), String> {
    use movescope::model::telemetry::{Event, PacketFate};
    use movescope::net::live::LiveSession;
    let counts: Vec<usize> = list
        .split(',')
        .map(|n| n.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .ok()
        .filter(|v: &Vec<usize>| !v.is_empty() && v.iter().all(|n| (1..=63).contains(n)))
        .ok_or_else(|| {
            format!(
                "--participants: expected numbers from 1 to 63 separated by commas, got {list:?}"
            )
        })?;
    const SECONDS: f64 = 8.0;
    const WARM_UP: f64 = 3.0;
    let target = 1000.0 / 60.0;
    println!(
        "hosting on loopback: participants at 60 fps each (client thread + control link, in this process), server at 60 fps, 2 AI pawns; {SECONDS:.0} s per count, figures after {WARM_UP:.0} s"
    );
    println!(
        "{:>12} {:>22} {:>22} {:>16} {:>18} {:>9}",
        "participants",
        "client frame p50/p99",
        "server frame p50/p99",
        "game B/s each",
        "control B/s each",
        "dropped"
    );
    let mut held = 0;
    for &n in &counts {
        let mut p = Preset::builtin_default();
        p.clients = 0;
        p.ai_pawns = 2;
        p.client_fps = 60.0;
        p.server_fps = 60.0;
        let host = LiveSession::host(
            &p,
            &movescope::net::remote::HostOptions {
                listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
                code: Some("BENCH1".into()),
                max_participants: n,
            },
        )?;
        let (addr, _) = host
            .hosting()
            .ok_or_else(|| "the host has no address".to_string())?;
        let mut joined = Vec::new();
        for i in 0..n {
            joined.push(LiveSession::join(movescope::net::remote::JoinOptions {
                host: addr,
                code: "BENCH1".into(),
                name: Some(format!("p{i}")),
            })?);
        }
        let started = std::time::Instant::now();
        let t0 = host.clock().now();
        let (mut client_dts, mut server_dts) = (Vec::new(), Vec::new());
        let mut game_bytes = 0u64;
        let ids: std::collections::BTreeSet<u16> = joined
            .iter()
            .filter_map(|j| j.joined().map(|(id, _)| id))
            .collect();
        while started.elapsed().as_secs_f64() < SECONDS {
            std::thread::sleep(std::time::Duration::from_millis(10));
            for j in &joined {
                for _ in j.telemetry().try_iter() {}
            }
            for r in host.telemetry().try_iter() {
                if r.t - t0 < WARM_UP {
                    continue;
                }
                match (&r.machine, &r.event) {
                    (Machine::Client(_), Event::Frame { dt }) if *dt > 0.0 => {
                        client_dts.push(dt * 1000.0)
                    }
                    (Machine::Server, Event::Frame { dt }) if *dt > 0.0 => {
                        server_dts.push(dt * 1000.0)
                    }
                    (
                        _,
                        Event::Packet {
                            from,
                            to,
                            bytes,
                            fate: PacketFate::Sent,
                            ..
                        },
                    ) if [*from, *to]
                        .iter()
                        .any(|m| matches!(m, Machine::Client(c) if ids.contains(c))) =>
                    {
                        game_bytes += u64::from(*bytes)
                    }
                    _ => {}
                }
            }
        }
        let measured = started.elapsed().as_secs_f64() - WARM_UP;
        let ps = host.participants();
        let control: u64 = ps.iter().map(|p| p.control_in + p.control_out).sum();
        let dropped =
            host.telemetry_dropped() + joined.iter().map(|j| j.telemetry_dropped()).sum::<u64>();
        drop(joined);
        host.stop();
        client_dts.sort_by(f64::total_cmp);
        server_dts.sort_by(f64::total_cmp);
        let p99 = percentile(&client_dts, 0.99);
        let sp99 = percentile(&server_dts, 0.99);
        let ok = p99 < 1.5 * target && sp99 < 1.5 * target && ps.len() == n;
        if ok {
            held = held.max(n);
        }
        println!(
            "{:>12} {:>10.2}/{:>6.2} ms {:>4.2}× {:>10.2}/{:>6.2} ms {:>4.2}× {:>16.0} {:>18.0} {:>9}{}",
            n,
            percentile(&client_dts, 0.5),
            p99,
            p99 / target,
            percentile(&server_dts, 0.5),
            sp99,
            sp99 / target,
            game_bytes as f64 / n as f64 / measured,
            // Control bytes are counted from the join on (about the whole run).
            control as f64 / n as f64 / SECONDS,
            dropped,
            if ps.len() < n {
                "  (not every participant joined)"
            } else {
                ""
            }
        );
    }
    println!(
        "held at 60 fps with frame pacing p99 < 1.5× target (25 ms): {held} participants of those tried (aim: 32)"
    );
    Ok(())
}
