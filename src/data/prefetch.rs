//! [`Prefetch`]: an epoch whose batches are assembled and uploaded by a worker thread, ahead of
//! the loop that consumes them (native only; WebAssembly has no threads here).
//!
//! While the training loop computes on batch k (or waits for the device, reading a loss), the
//! worker gathers batch k+1 on the CPU, runs the dataset's own per-sample work (decoding,
//! augmentation), and queues its upload with `non_blocking`, so the next step finds it on the
//! device. This is PyTorch's worker processes plus `pin_memory` and `non_blocking`, in one thread.

use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

use crate::device::Device;
use crate::error::{Error, Result};
use crate::tensor::{Tensor, ToOptions};

use super::Dataset;

/// One epoch of batches prepared ahead by a worker thread, already on the target device. Made
/// by [`super::DataLoader::prefetch`]. Dropping it early stops the worker.
pub struct Prefetch {
    rx: Option<Receiver<Result<Vec<Tensor>>>>,
    worker: Option<JoinHandle<()>>,
    remaining: usize,
}

impl Prefetch {
    /// Starts the worker: `chunks` are the epoch's batches of indices, at most `depth` of them
    /// prepared ahead of the consumer.
    pub(super) fn start<D: Dataset + Send + 'static>(
        dataset: D,
        chunks: Vec<Vec<usize>>,
        device: Device,
        depth: usize,
        pin: bool,
    ) -> Result<Prefetch> {
        let remaining = chunks.len();
        let (tx, rx) = sync_channel(depth.max(1));
        let worker = std::thread::Builder::new()
            .name("webtensor-prefetch".into())
            .spawn(move || {
                for indices in chunks {
                    let batch = dataset.get_batch(&indices);
                    let batch = if pin { batch.and_then(|b| super::loader::pin_all(&b, Some(device))) } else { batch };
                    let batch = batch.and_then(|fields| {
                        fields
                            .iter()
                            .map(|t| crate::block::block_on(t.to_with(device, ToOptions { non_blocking: true })))
                            .collect::<Result<Vec<Tensor>>>()
                    });
                    let failed = batch.is_err();
                    // The consumer went away (dropped the epoch): stop.
                    if tx.send(batch).is_err() || failed {
                        break;
                    }
                }
            })
            .map_err(|e| Error::invalid("DataLoader::prefetch", format!("could not start the prefetch thread: {e}")))?;
        Ok(Prefetch { rx: Some(rx), worker: Some(worker), remaining })
    }
}

impl Iterator for Prefetch {
    type Item = Result<Vec<Tensor>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == 0 {
            return None;
        }
        let got = self.rx.as_ref()?.recv();
        match got {
            Ok(batch) => {
                self.remaining = if batch.is_err() { 0 } else { self.remaining - 1 };
                Some(batch)
            }
            // The worker ended without sending every batch: its dataset panicked.
            Err(_) => {
                self.remaining = 0;
                let panicked = self.worker.take().map(|w| w.join().is_err()).unwrap_or(false);
                Some(Err(Error::invalid(
                    "DataLoader::prefetch",
                    if panicked {
                        "the dataset panicked in the prefetch thread; the epoch stopped there".to_string()
                    } else {
                        "the prefetch thread stopped before the epoch's end".to_string()
                    },
                )))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Prefetch {}

impl Drop for Prefetch {
    fn drop(&mut self) {
        // Closing the channel first unblocks a worker waiting to send; then wait for it, so no
        // upload is still being queued when the caller goes on (a panic there is not ours to
        // raise again).
        self.rx.take();
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}
