//! A movescope process run by a test: its output lines read with bounded waits, killed when
//! dropped.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Proc {
    child: Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Proc {
    /// movescope with `args`.
    pub fn start(args: &[&str]) -> Proc {
        let mut c = Command::new(env!("CARGO_BIN_EXE_movescope"));
        c.args(args);
        Proc::spawn(c)
    }

    /// movescope with `args`, in the network namespace `ns` (`ip netns exec` runs it in the
    /// same process, so killing this one kills movescope).
    pub fn start_in(ns: &str, args: &[&str]) -> Proc {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", ns, env!("CARGO_BIN_EXE_movescope")])
            .args(args);
        Proc::spawn(c)
    }

    fn spawn(mut c: Command) -> Proc {
        let mut child = c
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
        let (tx, rx) = std::sync::mpsc::channel();
        let out = child.stdout.take().expect("stdout");
        let err = child.stderr.take().expect("stderr");
        let tx2 = tx.clone();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx2.send(format!("stderr: {l}"));
            }
        });
        Proc { child, lines: rx }
    }

    /// The first line containing `what`, within `limit`.
    pub fn line(&self, what: &str, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l.contains(what) => return l,
                Ok(l) => seen.push(l),
                Err(_) => panic!("no line with {what:?} within {limit:?}; saw {seen:#?}"),
            }
        }
    }

    /// Waits for the process to end (bounded); its exit status.
    pub fn wait(&mut self, limit: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(s) = self.child.try_wait().expect("waits") {
                return s;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the process did not end within {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The client id in a participant's "movescope join: client N of the host at ADDR" line.
pub fn client_of(line: &str) -> u16 {
    // "movescope join: client N of the host at ADDR"
    line.split("client ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no client id in {line:?}"))
}
