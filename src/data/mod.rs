//! Data loading, PyTorch's `torch.utils.data`: a [`Dataset`] gives samples by index, a
//! [`DataLoader`] cuts an epoch into batches, in order or in a seeded shuffled order, and yields
//! each batch as one tensor per field with a leading batch dimension. A [`TensorDataset`] over
//! CPU tensors (in-memory host arrays) yields CPU batches, as PyTorch's does; move them with
//! `to(device)`. The shuffled order comes from [`permutation`], the one the JS loader uses too,
//! so a seed gives the same batches in Rust and in JavaScript.

mod loader;
#[cfg(not(target_arch = "wasm32"))]
mod prefetch;
pub mod text;

pub use loader::{Batches, DataLoader, DataLoaderOptions};
#[cfg(not(target_arch = "wasm32"))]
pub use prefetch::Prefetch;

use crate::creation::SplitMix64;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// A source of samples, PyTorch's map-style `Dataset`.
pub trait Dataset {
    /// How many samples there are.
    fn len(&self) -> usize;

    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sample `index`: one tensor per field, without a batch dimension.
    fn get(&self, index: usize) -> Result<Vec<Tensor>>;

    /// The samples at `indices` batched along a new leading dimension, one tensor per field.
    /// The default stacks [`Dataset::get`]; datasets that can gather a batch at once (as
    /// [`TensorDataset`] does with one `index_select` per field) override it.
    fn get_batch(&self, indices: &[usize]) -> Result<Vec<Tensor>> {
        let samples = indices.iter().map(|&i| self.get(i)).collect::<Result<Vec<_>>>()?;
        let fields = samples.first().map_or(0, Vec::len);
        if let Some((k, s)) = samples.iter().enumerate().find(|(_, s)| s.len() != fields) {
            return Err(Error::invalid(
                "DataLoader",
                format!(
                    "sample {} has {} fields, sample {} has {fields}; every sample needs the same fields",
                    indices[k],
                    s.len(),
                    indices[0]
                ),
            ));
        }
        (0..fields).map(|f| Tensor::stack(&samples.iter().map(|s| s[f].clone()).collect::<Vec<_>>(), 0)).collect()
    }
}

/// A shared dataset is a dataset, so one too large to clone can go to
/// [`DataLoader::prefetch`]'s worker as an `Arc`.
impl<D: Dataset + ?Sized> Dataset for std::sync::Arc<D> {
    fn len(&self) -> usize {
        (**self).len()
    }
    fn get(&self, index: usize) -> Result<Vec<Tensor>> {
        (**self).get(index)
    }
    fn get_batch(&self, indices: &[usize]) -> Result<Vec<Tensor>> {
        (**self).get_batch(indices)
    }
}

/// Tensors that share their first dimension, sample `i` being row `i` of each (PyTorch's
/// `TensorDataset`): features and labels, say.
#[derive(Clone)]
pub struct TensorDataset {
    tensors: Vec<Tensor>,
}

impl TensorDataset {
    /// A dataset over `tensors`, which must be at least 1-D, on one device, with the same first
    /// dimension.
    pub fn new(tensors: Vec<Tensor>) -> Result<TensorDataset> {
        let op = "TensorDataset";
        let Some(first) = tensors.first() else {
            return Err(Error::invalid(op, "needs at least one tensor"));
        };
        for (k, t) in tensors.iter().enumerate() {
            first.same_device(t, op)?;
            if t.rank() == 0 || t.shape()[0] != first.shape().first().copied().unwrap_or(0) {
                return Err(Error::invalid(
                    op,
                    format!(
                        "tensor {k} has shape {:?}; every tensor needs the first dimension of tensor 0 ({:?})",
                        t.shape(),
                        first.shape()
                    ),
                ));
            }
        }
        Ok(TensorDataset { tensors })
    }

    /// The tensors, in order.
    pub fn tensors(&self) -> &[Tensor] {
        &self.tensors
    }
}

impl Dataset for TensorDataset {
    fn len(&self) -> usize {
        self.tensors[0].shape()[0]
    }

    fn get(&self, index: usize) -> Result<Vec<Tensor>> {
        if index >= self.len() {
            return Err(Error::IndexOutOfRange { op: "TensorDataset", index: index as i64, dim: 0, size: self.len() });
        }
        self.tensors.iter().map(|t| t.narrow(0, index, 1)?.squeeze(Some(0))).collect()
    }

    fn get_batch(&self, indices: &[usize]) -> Result<Vec<Tensor>> {
        let n = self.len();
        if let Some(&bad) = indices.iter().find(|&&i| i >= n) {
            return Err(Error::IndexOutOfRange { op: "TensorDataset", index: bad as i64, dim: 0, size: n });
        }
        if n > i32::MAX as usize {
            return Err(Error::invalid("TensorDataset", format!("{n} samples is more than i32 indices can name")));
        }
        let idx: Vec<i32> = indices.iter().map(|&i| i as i32).collect();
        let idx = Tensor::from_slice(&idx, &[idx.len()], self.tensors[0].device())?;
        self.tensors.iter().map(|t| t.index_select(0, &idx)).collect()
    }
}

/// `0..n` in the shuffled order of `seed` and `epoch` (Fisher-Yates driven by SplitMix64): the
/// order every [`DataLoader`] with `shuffle` uses, in Rust and in JavaScript.
pub fn permutation(n: usize, seed: u64, epoch: u64) -> Vec<usize> {
    let mut rng = SplitMix64(seed ^ epoch.wrapping_mul(0xD1B5_4A32_D192_ED03));
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}
