//! The progress of `tribunal run` on stderr: an indicatif bar when stderr
//! is a terminal, one line per finished item otherwise (CI logs), and the
//! log writer that keeps log lines from tearing the bar.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use tribunal::judge::internal::run::batch::BatchRound;
use tribunal::judge::{Progress, ResultRow};

/// The bar being drawn, if any: where [`write_stderr`] sends log lines.
static DRAWN: std::sync::Mutex<Option<ProgressBar>> = std::sync::Mutex::new(None);

/// Writes `bytes` (whole log lines) to stderr; while a [`Console`] draws its
/// bar, with the bar taken off the screen and drawn again after, so that a
/// log line never tears it.
pub(crate) fn write_stderr(bytes: &[u8]) -> std::io::Result<()> {
    let bar = DRAWN.lock().ok().and_then(|b| b.clone());
    let write = || std::io::stderr().lock().write_all(bytes);
    match bar {
        Some(bar) if !bar.is_finished() => bar.suspend(write),
        _ => write(),
    }
}

/// Progress on stderr: a bar on a terminal, one line per item otherwise.
#[derive(Debug)]
pub(crate) struct Console {
    bar: Option<ProgressBar>,
    total: AtomicUsize,
    finished: AtomicUsize,
}

impl Default for Console {
    fn default() -> Self {
        Console::new()
    }
}

impl Console {
    /// Chooses the bar when stderr is a terminal.
    pub(crate) fn new() -> Self {
        Console::with_bar(std::io::stderr().is_terminal())
    }

    /// A bar (`true`) or plain lines (`false`).
    fn with_bar(bar: bool) -> Self {
        Console {
            bar: bar.then(|| {
                let b = ProgressBar::new(0);
                if let Ok(style) = ProgressStyle::with_template(
                    "{prefix} [{bar:30}] {pos}/{len} {msg} ({elapsed})",
                ) {
                    b.set_style(style.progress_chars("=> "));
                }
                b
            }),
            total: AtomicUsize::new(0),
            finished: AtomicUsize::new(0),
        }
    }
}

impl Progress for Console {
    fn start(&self, arena: &str, total: usize, skipped: usize, mock: bool) {
        self.total.store(total, Ordering::SeqCst);
        let mode = if mock { " [MOCK]" } else { "" };
        match &self.bar {
            Some(bar) => {
                bar.set_length(total as u64);
                bar.set_prefix(format!("{arena}{mode}"));
                if let Ok(mut drawn) = DRAWN.lock() {
                    *drawn = Some(bar.clone());
                }
            }
            None => {
                let mut err = std::io::stderr().lock();
                let _ = match skipped {
                    0 => writeln!(err, "running {arena}{mode}: {total} run(s)"),
                    _ => writeln!(
                        err,
                        "running {arena}{mode}: {total} run(s), {skipped} already finished"
                    ),
                };
            }
        }
    }

    fn finished(&self, row: &ResultRow) {
        self.finished_all(std::slice::from_ref(row));
    }

    fn finished_all(&self, rows: &[ResultRow]) {
        let Some(last) = rows.last() else { return };
        let first = self.finished.fetch_add(rows.len(), Ordering::SeqCst) + 1;
        match &self.bar {
            Some(bar) => {
                bar.set_message(format!("{} {}", last.outcome.as_str(), last.id));
                bar.inc(rows.len() as u64);
            }
            None => {
                // One write for all the lines: stderr is unbuffered, and
                // `writeln!` straight to it makes one system call per piece.
                let total = self.total.load(Ordering::SeqCst);
                let mut text = String::new();
                for (n, row) in (first..).zip(rows) {
                    let code = match (row.error_code, &row.backend_failure) {
                        (Some(c), Some(f)) => format!(" {}: {f}", c.as_str()),
                        (Some(c), None) => format!(" {}", c.as_str()),
                        (None, _) => String::new(),
                    };
                    text.push_str(&format!(
                        "[{n}/{total}] {} {}#{}{code} ({:.0} ms)\n",
                        row.outcome.as_str(),
                        row.id,
                        row.repeat,
                        row.wall_ms
                    ));
                }
                let _ = std::io::stderr().lock().write_all(text.as_bytes());
            }
        }
    }

    fn batch_round(&self, round: &BatchRound) {
        let mut line = format!("batch round {}: {} submitted", round.round, round.submitted);
        if round.resumed > 0 {
            line.push_str(&format!(", {} resumed", round.resumed));
        }
        line.push_str(&format!(
            " in {} batch(es); {} completed, {} failed; waited {:.1} s",
            round.batches.len(),
            round.succeeded,
            round.failed,
            round.waited.as_secs_f64()
        ));
        match &self.bar {
            Some(bar) => bar.println(line),
            None => {
                let _ = writeln!(std::io::stderr().lock(), "{line}");
            }
        }
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
            if let Ok(mut drawn) = DRAWN.lock() {
                *drawn = None;
            }
        }
    }
}
