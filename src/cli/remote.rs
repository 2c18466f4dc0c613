//! `movescope host` and `movescope join`: sessions across machines (docs/live.md).

use std::io::Write;

use crate::cli::app::app_for;
use crate::cli::args::HostArgs;
use crate::cli::args::JoinArgs;
use crate::cli::args::RunArgs;
use crate::cli::check_headless;
use crate::cli::load_preset;
use crate::cli::run_headless;
use movescope::session::preset::Preset;

/// Resolves `host ADDR` / `join ADDR` (a name or an address with its port).
pub(crate) fn resolve(addr: &str) -> Result<std::net::SocketAddr, String> {
    use std::net::ToSocketAddrs;
    addr.to_socket_addrs()
        .map_err(|e| format!("{addr}: expected ADDR:PORT as the host printed it ({e})"))?
        .next()
        .ok_or_else(|| format!("{addr}: no address found"))
}

pub(crate) fn host(args: HostArgs) -> Result<(), String> {
    check_headless(&args.headless, &args.app)?;
    if args.max_participants == 0 || args.max_participants > 63 {
        return Err(format!(
            "--max-participants: expected 1 to 63, got {}",
            args.max_participants
        ));
    }
    if let Some(c) = &args.code
        && (c.trim().is_empty() || c.len() > 64)
    {
        return Err("--code: expected 1 to 64 characters".into());
    }
    let opts = movescope::net::remote::HostOptions {
        listen: args.listen,
        code: args.code.clone(),
        max_participants: args.max_participants,
    };
    let (preset, name) = load_preset(&RunArgs {
        preset: args.app.preset.clone(),
        set: args.app.set.clone(),
        ..RunArgs::default()
    })?;
    if !args.headless.headless {
        return app_for(args.app, preset, name, movescope::app::Source::Host(opts));
    }
    let started = std::time::Instant::now();
    let session = movescope::net::live::LiveSession::host(&preset, &opts)?;
    if let Some((addr, code)) = session.hosting() {
        announce(format!("movescope host: listening on {addr} code: {code}"));
    }
    run_headless(session, started, &name, &args.headless, &args.app)
}

/// Says on standard output what a headless host or participant is (a script waits for it).
fn announce(line: String) {
    println!("{line}");
    let _ = std::io::stdout().flush();
}

pub(crate) fn join(args: JoinArgs) -> Result<(), String> {
    check_headless(&args.headless, &args.app)?;
    if args.app.preset.is_some() || !args.app.set.is_empty() {
        return Err(
            "--preset and --set: a participant runs the host's preset (the trainer sets it)".into(),
        );
    }
    let opts = movescope::net::remote::JoinOptions {
        host: resolve(&args.addr)?,
        code: args.code.clone(),
        name: args.name.clone(),
    };
    if !args.headless.headless {
        let preset = Preset::builtin_default();
        return app_for(
            args.app,
            preset,
            format!("joined {}", args.addr),
            movescope::app::Source::Join(opts),
        );
    }
    let started = std::time::Instant::now();
    let session = movescope::net::live::LiveSession::join(opts)?;
    if let Some((id, server)) = session.joined() {
        announce(format!(
            "movescope join: client {id} of the host at {server}"
        ));
    }
    let name = format!("joined {}", args.addr);
    run_headless(session, started, &name, &args.headless, &args.app)
}
