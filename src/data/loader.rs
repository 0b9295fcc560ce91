//! [`DataLoader`]: an epoch of a [`Dataset`] cut into batches.

use super::{permutation, Dataset};
#[cfg(not(target_arch = "wasm32"))]
use crate::device::Device;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// How a [`DataLoader`] batches (PyTorch's arguments of the same names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataLoaderOptions {
    /// Samples per batch (PyTorch's default is 1).
    pub batch_size: usize,
    /// Visit the samples in a new shuffled order each epoch.
    pub shuffle: bool,
    /// The shuffle's seed: the same seed gives the same batches, epoch by epoch. `None` draws one
    /// from the global generator (`manual_seed`) when the loader is made.
    pub seed: Option<u64>,
    /// Drop the last batch when it would be smaller than `batch_size`.
    pub drop_last: bool,
    /// Return pinned batches (`Tensor::pin_memory`: page-locked memory for CUDA, a mapped
    /// staging buffer for WebGPU), so that `to(device)` does no host copy; with
    /// [`DataLoader::prefetch`] they are pinned for its device, in its worker.
    pub pin_memory: bool,
}

impl Default for DataLoaderOptions {
    fn default() -> Self {
        DataLoaderOptions { batch_size: 1, shuffle: false, seed: None, drop_last: false, pin_memory: false }
    }
}

/// Batches of a dataset, epoch after epoch (PyTorch's `DataLoader`, in the calling thread):
/// each call of [`DataLoader::iter`] is one epoch, reshuffled when `shuffle` is on.
///
/// ```no_run
/// use webtensor::data::{DataLoader, DataLoaderOptions, TensorDataset};
/// use webtensor::{DType, Tensor};
/// # fn main() -> webtensor::Result<()> {
/// let x = Tensor::randn(&[1000, 64], Some(0), None)?;
/// let y = Tensor::zeros(&[1000], DType::I32, None)?;
/// let opts = DataLoaderOptions { batch_size: 64, shuffle: true, seed: Some(0), ..Default::default() };
/// let mut loader = DataLoader::new(TensorDataset::new(vec![x, y])?, opts)?;
/// for epoch in 0..3 {
///     for batch in loader.iter() {
///         let batch = batch?;                         // [xb, yb] on the CPU
///         let (xb, yb) = (&batch[0], &batch[1]);
///         # let _ = (epoch, xb, yb);
///     }
/// }
/// # Ok(()) }
/// ```
pub struct DataLoader<D: Dataset> {
    dataset: D,
    options: DataLoaderOptions,
    seed: u64,
    epoch: u64,
}

impl<D: Dataset> DataLoader<D> {
    /// A loader over `dataset`; `batch_size` must be at least 1.
    pub fn new(dataset: D, options: DataLoaderOptions) -> Result<DataLoader<D>> {
        if options.batch_size == 0 {
            return Err(Error::invalid("DataLoader", "batch_size must be at least 1, got 0"));
        }
        let seed = options.seed.unwrap_or_else(crate::creation::next_seed);
        Ok(DataLoader { dataset, options, seed, epoch: 0 })
    }

    /// The dataset.
    pub fn dataset(&self) -> &D {
        &self.dataset
    }

    /// The options it was made with.
    pub fn options(&self) -> DataLoaderOptions {
        self.options
    }

    /// Batches per epoch (PyTorch's `len(loader)`).
    pub fn len(&self) -> usize {
        let (n, b) = (self.dataset.len(), self.options.batch_size);
        if self.options.drop_last {
            n / b
        } else {
            n.div_ceil(b)
        }
    }

    /// Whether an epoch has no batches.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The epochs begun so far (each [`DataLoader::iter`] begins one).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The sample order of epoch `epoch`: `0..n`, or its shuffle.
    pub fn order(&self, epoch: u64) -> Vec<usize> {
        let n = self.dataset.len();
        if self.options.shuffle {
            permutation(n, self.seed, epoch)
        } else {
            (0..n).collect()
        }
    }

    /// The next epoch's batches, each already moved to `device` (with `non_blocking`) by a
    /// worker thread that runs up to `depth` batches ahead (at least 1; one more may be in
    /// preparation while the channel is full): the dataset's CPU work and the
    /// uploads of the next batches overlap the loop's compute on this one (native only). The
    /// batches and their order are [`DataLoader::iter`]'s. The dataset is cloned into the worker
    /// (cheap for [`super::TensorDataset`]; wrap a large custom one in an `Arc`).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn prefetch(&mut self, device: Device, depth: usize) -> Result<super::Prefetch>
    where
        D: Clone + Send + 'static,
    {
        let device = crate::device::placement::resolve("DataLoader::prefetch", device)?;
        let pin = self.options.pin_memory;
        let chunks: Vec<Vec<usize>> = self.iter().map_indices().collect();
        super::Prefetch::start(self.dataset.clone(), chunks, device, depth, pin)
    }

    /// The next epoch's batches.
    pub fn iter(&mut self) -> Batches<'_, D> {
        let order = self.order(self.epoch);
        self.epoch += 1;
        Batches { loader: self, order, next: 0 }
    }
}

/// One epoch of a [`DataLoader`]: each item is a batch (one tensor per field) or the error that
/// made it fail.
pub struct Batches<'a, D: Dataset> {
    loader: &'a DataLoader<D>,
    order: Vec<usize>,
    next: usize,
}

impl<D: Dataset> Iterator for Batches<'_, D> {
    type Item = Result<Vec<Tensor>>;

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.loader.options.batch_size;
        let rest = self.order.len() - self.next;
        if rest == 0 || (self.loader.options.drop_last && rest < b) {
            return None;
        }
        let take = rest.min(b);
        let indices = &self.order[self.next..self.next + take];
        self.next += take;
        let batch = self.loader.dataset.get_batch(indices);
        Some(if self.loader.options.pin_memory { batch.and_then(|b| pin_all(&b, None)) } else { batch })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (rest, b) = (self.order.len() - self.next, self.loader.options.batch_size);
        let n = if self.loader.options.drop_last { rest / b } else { rest.div_ceil(b) };
        (n, Some(n))
    }
}

impl<D: Dataset> ExactSizeIterator for Batches<'_, D> {}

#[cfg(not(target_arch = "wasm32"))]
impl<D: Dataset> Batches<'_, D> {
    /// The rest of the epoch as batches of indices, without loading them.
    fn map_indices(self) -> impl Iterator<Item = Vec<usize>> {
        let (b, drop_last) = (self.loader.options.batch_size, self.loader.options.drop_last);
        let rest = self.order[self.next..].to_vec();
        rest.chunks(b)
            .filter(move |c| !drop_last || c.len() == b)
            .map(<[usize]>::to_vec)
            .collect::<Vec<_>>()
            .into_iter()
    }
}

/// Each field of a batch pinned: for `device`, or through `pin_memory`'s choice.
pub(super) fn pin_all(batch: &[Tensor], device: Option<crate::device::Device>) -> Result<Vec<Tensor>> {
    batch.iter().map(|t| device.map_or_else(|| t.pin_memory(), |d| t.pin_memory_for(d))).collect()
}
