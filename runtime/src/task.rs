//! [`AbortOnDrop`]: a spawned task that does not outlive its handle.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::task::{JoinError, JoinHandle};

/// A spawned task, cancelled when this handle is dropped (tokio's own
/// `JoinHandle` detaches the task instead). For work that must stop with
/// whoever awaits it: a tool call cut by the run's deadline, the runs of an
/// arena whose runner was dropped.
#[derive(Debug)]
pub struct AbortOnDrop<T>(JoinHandle<T>);

impl<T: Send + 'static> AbortOnDrop<T> {
    /// Spawns `future` on the current tokio runtime.
    pub fn spawn(future: impl Future<Output = T> + Send + 'static) -> Self {
        AbortOnDrop(tokio::spawn(future))
    }
}

impl<T> Future for AbortOnDrop<T> {
    type Output = Result<T, JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx)
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        // A no-op for a task that has finished.
        self.0.abort();
    }
}
