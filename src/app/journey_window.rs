//! The move journey window: one move's lineage (frames, sending, the link, the server, the
//! reply, corrections and replays), with the bound values in and out of each execution. The
//! records are read and matched on a job; a virtual-time recording without the value trace is
//! re-simulated for the values on a second job (the journey shows first, then again with its
//! values; asking for another journey or closing the window cancels the pending one).

use std::sync::Arc;
use std::time::Duration;

use eframe::egui;
use egui::{Color32, RichText};

use super::action::Action;
use super::jobs::{Job, JobCtx, Poll};
use crate::model::telemetry::Record;
use crate::session::recording::Recording;
use crate::session::timeline::TimeCommand;

/// How far into a virtual-time recording the app re-simulates for a move's bound values (s).
/// The re-run happens on a job when a journey is asked for: 600 s of the standard 8-client
/// scenario, records loaded and re-simulated, take about 1.5 s and hold about 200 MB
/// meanwhile.
const RESIMULATE_MAX_S: f64 = 600.0;

#[derive(Default)]
pub struct JourneyWindow {
    /// The lineage shown (or why none could be).
    shown: Option<Result<crate::analysis::lineage::Lineage, String>>,
    /// The journey being traced (records read and matched).
    first: Option<Job<Traced>>,
    /// The shown lineage again, with its bound values, once the re-simulation ends.
    job: Option<Job<Option<crate::analysis::lineage::Lineage>>>,
    /// A journey of the live session, traced again while its move is young (what happens to
    /// it next — the server's execution, the reply, replays — arrives after it was opened).
    following: Option<Following>,
}

/// A live journey being kept up to date.
struct Following {
    client: u16,
    move_id: Option<u32>,
    t: f64,
    on_server: bool,
    traced_at: std::time::Instant,
}

/// A live journey is traced from the records 3 s either side of its moment: once the session
/// is past that, it is traced a last time.
pub const LIVE_SPAN_S: f64 = 3.0;
/// How often a young live journey is traced again.
const REFRESH: Duration = Duration::from_millis(500);

impl JourneyWindow {
    /// Traces a move of `client`: `move_id`, or the one it closed nearest to `t` (that the
    /// server executed nearest `t` when `on_server`). The records
    /// are read and matched on a job thread; bound values come from the value trace:
    /// recorded, traced live, or (a virtual-time recording up to ten minutes in)
    /// re-simulated on a second job — the journey shows first, then again with its values.
    pub fn trace(
        &mut self,
        source: TraceSource,
        client: u16,
        move_id: Option<u32>,
        t: f64,
        on_server: bool,
    ) {
        self.job = None;
        let live = matches!(source, TraceSource::Live { .. });
        self.following = live.then(|| Following {
            client,
            move_id,
            t,
            on_server,
            traced_at: std::time::Instant::now(),
        });
        match Job::spawn(format!("tracing client {client}'s move"), move |_| {
            trace_move(source, client, move_id, t, on_server)
        }) {
            Ok(j) => self.first = Some(j),
            Err(e) => self.shown = Some(Err(e)),
        }
    }

    /// Polls the journey's jobs.
    fn poll(&mut self, ctx: &egui::Context) {
        if let Some(job) = self.first.as_mut() {
            let traced = match job.poll() {
                Poll::Pending => {
                    ctx.request_repaint_after(Duration::from_millis(50));
                    return;
                }
                Poll::Ready(t) => t,
                Poll::Lost => Traced {
                    shown: Err("tracing the move stopped without a result".into()),
                    resimulate: None,
                },
            };
            self.first = None;
            let mut shown = traced.shown;
            if let (Ok(l), Some(plan)) = (&mut shown, traced.resimulate) {
                match Job::spawn("re-simulating for bound values", move |ctx| plan.run(ctx)) {
                    Ok(j) => self.job = Some(j),
                    Err(e) => {
                        l.value_trace =
                            format!("not traced; could not start the re-simulation: {e}")
                    }
                }
            }
            self.shown = Some(shown);
        }
        if let Some(job) = self.job.as_mut() {
            match job.poll() {
                Poll::Ready(Some(l)) => {
                    self.shown = Some(Ok(l));
                    self.job = None;
                }
                Poll::Ready(None) | Poll::Lost => {
                    self.job = None;
                    if let Some(Ok(l)) = &mut self.shown {
                        l.value_trace =
                            "not traced; the re-simulation stopped without values".into();
                    }
                }
                Poll::Pending => ctx.request_repaint_after(Duration::from_millis(100)),
            }
        }
    }

    /// A live journey due to be traced again (every half second while the session has not
    /// yet passed its records' span): (client, move, moment, on the server, the last time).
    /// The move is the one first traced, by id.
    pub fn due(&mut self, latest: f64) -> Option<(u16, Option<u32>, f64, bool, bool)> {
        let f = self.following.as_ref()?;
        if self.is_tracing() || f.traced_at.elapsed() < REFRESH {
            return None;
        }
        let move_id = match &self.shown {
            Some(Ok(l)) => Some(l.move_id),
            _ => f.move_id,
        };
        Some((
            f.client,
            move_id,
            f.t,
            f.on_server,
            latest > f.t + LIVE_SPAN_S,
        ))
    }

    /// Stops keeping a live journey up to date (it was traced a last time).
    pub fn stop_following(&mut self) {
        self.following = None;
    }

    /// Whether a live journey is being kept up to date.
    pub fn is_following(&self) -> bool {
        self.following.is_some()
    }

    /// Whether a journey is being traced, or its bound values re-simulated.
    pub fn is_tracing(&self) -> bool {
        self.job.is_some() || self.first.is_some()
    }

    /// The lineage shown (for tests and tools).
    pub fn shown(&self) -> Option<&Result<crate::analysis::lineage::Lineage, String>> {
        self.shown.as_ref()
    }

    pub fn ui(&mut self, ctx: &egui::Context) -> Vec<Action> {
        self.poll(ctx);
        let tracing = self.job.is_some();
        let Some(l) = &self.shown else {
            return Vec::new();
        };
        let mut open = true;
        let mut seek = None;
        super::window(ctx, "Move journey")
            .open(&mut open)
            .default_width(620.0)
            .default_height(620.0)
            .resizable(true)
            .show(ctx, |ui| match l {
                Err(e) => {
                    ui.colored_label(Color32::from_rgb(230, 120, 80), e);
                }
                Ok(l) => {
                    ui.label(RichText::new(format!("client {} move {}", l.client, l.move_id)).strong());
                    ui.weak("Click a step to move the cursor there. (inferred): matched by timing or order, not by the move's id.");
                    ui.horizontal(|ui| {
                        if tracing {
                            ui.spinner();
                        }
                        ui.weak(format!("Bound values in -> out of each execution: {}.", l.value_trace));
                    });
                    if let Some(t) = super::journey_lanes::lanes(ui, l) {
                        seek = Some(t);
                    }
                    for d in l.parted() {
                        ui.label(RichText::new(d).color(if ui.visuals().dark_mode {
                            Color32::from_rgb(240, 170, 80)
                        } else {
                            Color32::from_rgb(170, 90, 0)
                        }));
                    }
                    ui.separator();
                    // The step list fills the window: drag its edge to enlarge it.
                    egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
                        for st in &l.steps {
                            let text = format!(
                                "{:8.3} s  {:<9} {}{}",
                                st.t,
                                st.machine,
                                st.what,
                                if st.inferred { "  (inferred)" } else { "" }
                            );
                            if ui.selectable_label(false, text).clicked() {
                                seek = Some(st.t);
                            }
                            if !st.hooks.is_empty() {
                                ui.label(RichText::new(format!("      hooks: {}", st.hooks.join(", "))).weak());
                            }
                            if let Some(v) = &st.values {
                                ui.label(RichText::new(v.to_text("      ")).monospace());
                            }
                        }
                    });
                }
            });
        if !open {
            self.shown = None;
            self.job = None;
            self.first = None;
            self.following = None;
        }
        if self.following.is_some() {
            ctx.request_repaint_after(REFRESH);
        }
        seek.map(|t| Action::Time(TimeCommand::Seek(t)))
            .into_iter()
            .collect()
    }
}

/// Where a journey's records come from.
pub enum TraceSource {
    File(Arc<Recording>),
    Live {
        records: Vec<Record>,
        bindings: Vec<crate::model::binding::Binding>,
    },
}

/// A journey as first shown, and the re-simulation that adds its bound values (if any).
struct Traced {
    shown: Result<crate::analysis::lineage::Lineage, String>,
    resimulate: Option<Resimulation>,
}

/// Re-simulating a virtual-time recording up to `until` for one move's bound values.
struct Resimulation {
    rec: Arc<Recording>,
    records: Vec<Record>,
    bindings: Vec<crate::model::binding::Binding>,
    client: u16,
    move_id: u32,
    until: f64,
}

impl Resimulation {
    fn run(self, ctx: &JobCtx) -> Option<crate::analysis::lineage::Lineage> {
        let (client, m) = (self.client, self.move_id);
        let (values, source) =
            match crate::analysis::report::records_between(&self.rec, 0.0, self.until) {
                Ok(from_start) => {
                    if ctx.is_cancelled() {
                        return None;
                    }
                    crate::analysis::valuetrace::of_recording(
                        &self.rec,
                        &from_start,
                        Some(self.until),
                        &|c, mv| c == client && mv == m,
                    )
                }
                Err(e) => (Vec::new(), format!("not traced; re-simulation failed: {e}")),
            };
        crate::analysis::lineage::trace(&self.bindings, &self.records, &values, &source, client, m)
    }
}

/// Reads the records around `t` and traces `client`'s move (on a job thread).
fn trace_move(
    source: TraceSource,
    client: u16,
    move_id: Option<u32>,
    t: f64,
    on_server: bool,
) -> Traced {
    let plain = |shown| Traced {
        shown,
        resimulate: None,
    };
    let (records, bindings, rec) = match source {
        TraceSource::File(rec) => {
            match crate::analysis::report::records_between(&rec, t - 3.0, t + 3.0) {
                Ok(r) => (r, rec.header.bindings.clone(), Some(rec)),
                Err(e) => return plain(Err(e.to_string())),
            }
        }
        TraceSource::Live { records, bindings } => (records, bindings, None),
    };
    let near = if on_server {
        crate::analysis::lineage::move_executed_near(&records, client, t)
    } else {
        crate::analysis::lineage::move_near(&records, client, t)
    };
    let Some(m) = move_id.or(near) else {
        return plain(Err(format!("client {client} closed no move near {t:.2} s")));
    };
    let traced = records
        .iter()
        .any(|r| matches!(r.event, crate::model::telemetry::Event::MoveValues(_)));
    let trace = |source: &str| {
        crate::analysis::lineage::trace(&bindings, &records, &[], source, client, m)
            .ok_or_else(|| format!("no records of client {client}'s move {m} near {t:.2} s"))
    };
    let Some(rec) = rec else {
        return plain(trace(if traced {
            "traced live"
        } else {
            "not traced (switch the value trace on in the Session panel)"
        }));
    };
    let until = t + 3.0;
    if traced {
        return plain(trace("recorded"));
    }
    if until > RESIMULATE_MAX_S {
        return plain(trace(&format!(
            "not traced; re-simulating {until:.0} s is left to `movescope lineage` (the app re-simulates up to {RESIMULATE_MAX_S:.0} s)"
        )));
    }
    let shown = trace(&format!(
        "not traced; re-simulating the first {until:.0} s for them"
    ));
    let resimulate = shown.is_ok().then(|| Resimulation {
        rec,
        records: records.clone(),
        bindings: bindings.clone(),
        client,
        move_id: m,
        until,
    });
    Traced { shown, resimulate }
}
