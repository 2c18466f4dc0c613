//! `bench --live`: live loopback latency and frame pacing.

use crate::bench::percentile;
use movescope::session::preset::Preset;

pub(crate) fn bench_live() -> Result<(), String> {
    use movescope::model::messages::{HEADER_BYTES, MOVES_BATCH_HEADER_BITS, MsgKind};
    use movescope::model::telemetry::{Event, Machine, PacketFate};

    // 1 + 2: two clients, no configured latency.
    let mut p = Preset::builtin_default();
    p.clients = 2;
    p.ai_pawns = 0;
    p.gmc.ping_interval = 0.01;
    let mut rtts = Vec::new();
    let (mut bytes, mut value_bits, mut moves, mut datagrams) = (0u64, 0u64, 0u64, 0u64);
    movescope::net::live::run_live(&p, "bench", 5.0, &mut |r| match &r.event {
        Event::Rtt { rtt } => rtts.push(rtt * 1000.0),
        Event::MovesSent {
            new_moves,
            resent_moves,
            value_bits: v,
            bytes: b,
            ..
        } if *resent_moves == 0 => {
            bytes += u64::from(*b);
            value_bits += u64::from(*v);
            moves += u64::from(*new_moves);
        }
        Event::Packet {
            kind: MsgKind::Moves,
            fate: PacketFate::Sent,
            ..
        } => datagrams += 1,
        _ => {}
    })?;
    rtts.sort_by(f64::total_cmp);
    println!("live transport over laminar on 127.0.0.1 (2 clients, 0 ms configured latency, 5 s)");
    println!(
        "  round trip (ping): {} samples, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms   (aim: p99 < 1 ms)",
        rtts.len(),
        percentile(&rtts, 0.5),
        percentile(&rtts, 0.99),
        rtts.last().copied().unwrap_or(f64::NAN)
    );
    if moves > 0 && datagrams > 0 {
        let fixed_bits = (HEADER_BYTES * 8 + MOVES_BATCH_HEADER_BITS) as f64;
        let per_move_bits = (bytes as f64 * 8.0 - fixed_bits * datagrams as f64) / moves as f64;
        let minimum_bits = value_bits as f64 / moves as f64;
        println!(
            "  bytes per move: {:.2} B on the wire ({moves} moves in {datagrams} datagrams)",
            bytes as f64 / moves as f64
        );
        println!(
            "    fixed per datagram: {} B header + {:.1} B batch header (epoch, view delay, count, first id, base timestamp, widths)",
            HEADER_BYTES,
            MOVES_BATCH_HEADER_BITS as f64 / 8.0
        );
        println!(
            "    per move: {per_move_bits:.1} bits against {minimum_bits:.1} bits of bit-packed bound values: {:+.1} % (timestamp step, delta flag, byte padding)   (aim: within 10 % plus a fixed header)",
            (per_move_bits / minimum_bits - 1.0) * 100.0
        );
    }

    // 3: frame pacing, 16 clients at 120 fps.
    let mut p = Preset::builtin_default();
    p.clients = 16;
    p.client_fps = 120.0;
    p.join_interval_s = 0.05;
    let mut dts = Vec::new();
    movescope::net::live::run_live(&p, "bench", 6.0, &mut |r| {
        if let (Machine::Client(_), Event::Frame { dt }) = (r.machine, &r.event)
            && r.t > 2.0
            && *dt > 0.0
        {
            dts.push(dt * 1000.0);
        }
    })?;
    dts.sort_by(f64::total_cmp);
    let target = 1000.0 / 120.0;
    println!(
        "frame pacing, 16 clients at 120 fps (target {target:.2} ms), {} frames after warm-up:",
        dts.len()
    );
    println!(
        "  p50 {:.3} ms, p99 {:.3} ms ({:.2}× target), max {:.3} ms   (aim: p99 < 1.5× target)",
        percentile(&dts, 0.5),
        percentile(&dts, 0.99),
        percentile(&dts, 0.99) / target,
        dts.last().copied().unwrap_or(f64::NAN)
    );
    Ok(())
}
