//! One way to run slow work: anything that can take more than a few milliseconds (the disk, a
//! re-simulation, compression, the doctor) runs as a [`Job`] on its own thread, never on the
//! UI thread. The UI polls it each frame; a job reports its progress and stops early when
//! cancelled. Dropping a job cancels it (its thread finishes its current step and ends; its
//! result is dropped).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Instant;

use crossbeam_channel::{Receiver, TryRecvError, bounded};

/// What a job's thread can see: whether it was cancelled, and where to report progress.
#[derive(Clone)]
pub struct JobCtx {
    cancel: Arc<AtomicBool>,
    progress: Arc<AtomicU32>,
}

impl JobCtx {
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Progress in [0, 1].
    pub fn set_progress(&self, fraction: f64) {
        let f = fraction.clamp(0.0, 1.0) as f32;
        self.progress.store(f.to_bits(), Ordering::Relaxed);
    }
}

/// What polling a job gives.
pub enum Poll<T> {
    Pending,
    Ready(T),
    /// The thread ended without a result (it panicked).
    Lost,
}

/// Slow work on a thread of its own.
pub struct Job<T> {
    /// What the job does, for the status line ("writing exports/a.csv").
    pub what: String,
    rx: Receiver<T>,
    ctx: JobCtx,
    started: Instant,
}

impl<T: Send + 'static> Job<T> {
    /// Starts `work` on a new thread.
    pub fn spawn(
        what: impl Into<String>,
        work: impl FnOnce(&JobCtx) -> T + Send + 'static,
    ) -> Result<Job<T>, String> {
        let what = what.into();
        let (tx, rx) = bounded(1);
        let ctx = JobCtx {
            cancel: Arc::new(AtomicBool::new(false)),
            progress: Arc::new(AtomicU32::new(0f32.to_bits())),
        };
        let theirs = ctx.clone();
        std::thread::Builder::new()
            .name(format!("job: {what}"))
            .spawn(move || {
                let out = work(&theirs);
                let _ = tx.send(out);
            })
            .map_err(|e| format!("cannot start {what}: {e}"))?;
        Ok(Job {
            what,
            rx,
            ctx,
            started: Instant::now(),
        })
    }
}

impl<T> Job<T> {
    /// The result, once there is one (never blocks).
    pub fn poll(&mut self) -> Poll<T> {
        match self.rx.try_recv() {
            Ok(v) => Poll::Ready(v),
            Err(TryRecvError::Empty) => Poll::Pending,
            Err(TryRecvError::Disconnected) => Poll::Lost,
        }
    }

    pub fn progress(&self) -> f32 {
        f32::from_bits(self.ctx.progress.load(Ordering::Relaxed))
    }

    pub fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    pub fn cancel(&self) {
        self.ctx.cancel.store(true, Ordering::Relaxed);
    }
}

impl<T> Drop for Job<T> {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// Jobs whose result is a line for the status bar (file writes: CSV, PNG, bug reports,
/// finishing a recording). The app polls them all each frame.
#[derive(Default)]
pub struct StatusJobs {
    jobs: Vec<Job<Result<String, String>>>,
}

impl StatusJobs {
    pub fn push(&mut self, job: Job<Result<String, String>>) {
        self.jobs.push(job);
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// What is still running ("writing exports/a.csv, 40 %").
    pub fn running(&self) -> Vec<String> {
        self.jobs
            .iter()
            .map(|j| {
                let p = j.progress();
                if p > 0.0 {
                    format!("{} ({:.0} %)", j.what, p * 100.0)
                } else {
                    j.what.clone()
                }
            })
            .collect()
    }

    /// The results of the jobs that ended since the last call.
    pub fn finished(&mut self) -> Vec<Result<String, String>> {
        let mut out = Vec::new();
        self.jobs.retain_mut(|j| match j.poll() {
            Poll::Pending => true,
            Poll::Ready(r) => {
                out.push(r);
                false
            }
            Poll::Lost => {
                out.push(Err(format!("{} stopped without a result", j.what)));
                false
            }
        });
        out
    }

    /// Waits for every job (bounded by the jobs themselves; used when the window closes so a
    /// recording's index is written).
    pub fn wait_all(&mut self) -> Vec<Result<String, String>> {
        let mut out = Vec::new();
        for j in self.jobs.drain(..) {
            match j.rx.recv() {
                Ok(r) => out.push(r),
                Err(_) => out.push(Err(format!("{} stopped without a result", j.what))),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_reports_progress_and_its_result() {
        let (go_tx, go_rx) = bounded::<()>(0);
        let mut job = Job::spawn("test", move |ctx| {
            ctx.set_progress(0.5);
            go_rx.recv().ok();
            42
        })
        .unwrap();
        assert!(matches!(job.poll(), Poll::Pending));
        go_tx.send(()).unwrap();
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        loop {
            match job.poll() {
                Poll::Ready(v) => {
                    assert_eq!(v, 42);
                    break;
                }
                Poll::Pending => {
                    assert!(Instant::now() < deadline, "the job ended within 10 s");
                    std::thread::yield_now();
                }
                Poll::Lost => panic!("lost"),
            }
        }
        assert_eq!(job.progress(), 0.5);
    }

    #[test]
    fn dropping_a_job_cancels_it() {
        let (seen_tx, seen_rx) = bounded::<bool>(1);
        let (go_tx, go_rx) = bounded::<()>(0);
        let job = Job::spawn("cancel", move |ctx| {
            go_rx.recv().ok();
            let _ = seen_tx.send(ctx.is_cancelled());
        })
        .unwrap();
        drop(job);
        go_tx.send(()).unwrap();
        assert_eq!(
            seen_rx.recv_timeout(std::time::Duration::from_secs(10)),
            Ok(true)
        );
    }
}
