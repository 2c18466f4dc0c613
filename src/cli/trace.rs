//! `movescope trace`: a network trace's statistics and its fitted link profile.

use std::path::PathBuf;

use crate::cli::args::RunArgs;
use crate::cli::check_outputs;
use crate::cli::load_preset;

pub(crate) fn trace(
    file: &std::path::Path,
    fit: Option<&std::path::Path>,
    preset: Option<PathBuf>,
    json: bool,
) -> Result<(), String> {
    if let Some(out) = fit {
        let inputs: Vec<&std::path::Path> = std::iter::once(file)
            .chain(preset.as_deref().filter(|p| p.is_file()))
            .collect();
        check_outputs(&[("--fit", Some(out))], &inputs)?;
    }
    let t = movescope::session::preset::load_trace(file)?;
    let s = t.stats();
    let fitted = movescope::conditions::link::LinkParams::fit(&t);
    if json {
        let v = serde_json::json!({ "stats": s, "fitted_link": fitted });
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        );
    } else {
        println!(
            "{}: {} samples over {:.0} s (one every {:.3} s)",
            t.source, s.samples, s.seconds, s.interval_s
        );
        println!(
            "round trip: mean {:.1} ms, p50 {:.1} ms, p99 {:.1} ms, min {:.1} ms, max {:.1} ms",
            s.rtt_mean_ms, s.rtt_p50_ms, s.rtt_p99_ms, s.rtt_min_ms, s.rtt_max_ms
        );
        println!(
            "loss {:.1} %: {} runs of losses, mean {:.1}, longest {}",
            s.loss * 100.0,
            s.bursts,
            s.burst_mean,
            s.burst_max
        );
        println!(
            "fitted profile (each direction): latency {:.1} ms, jitter {:.1} ms {:?}, burst loss enter {:.4} exit {:.3}",
            fitted.latency_ms,
            fitted.jitter_ms,
            fitted.jitter_distribution,
            fitted.burst_enter,
            fitted.burst_exit
        );
        println!(
            "replay it: --set link.trace={}   (or save the fitted profile with --fit FILE)",
            file.display()
        );
    }
    if let Some(out) = fit {
        let (mut p, _) = load_preset(&RunArgs {
            preset,
            ..RunArgs::default()
        })?;
        p.link = fitted;
        let text = format!(
            "// A link profile fitted by movescope to the trace {}.\n// Schema: docs/presets.md.\n{}\n",
            t.source,
            p.to_ron()
        );
        movescope::support::output::write_file(out, text.as_bytes())
            .map_err(|e| format!("--fit {e}"))?;
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}
