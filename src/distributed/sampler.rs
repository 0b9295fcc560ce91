//! [`DistributedSampler`]: which samples each rank trains on in an epoch (PyTorch's
//! `torch.utils.data.DistributedSampler`): the epoch's order (shuffled by `seed + epoch`, or
//! `0..len`), padded by repeating its start until it divides evenly over the ranks (or cut to a
//! multiple with `drop_last`), then every `world_size`-th index from `rank` on. Every rank gets
//! the same number of samples, so their steps stay in lock step.

use crate::error::{Error, Result};

use super::group::ProcessGroup;

/// Options of [`DistributedSampler::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SamplerOptions {
    /// Shuffle each epoch (seeded by `seed` and the epoch, the same order on every rank).
    pub shuffle: bool,
    /// The shuffle's seed; every rank must use the same one.
    pub seed: u64,
    /// Drop the tail that does not divide evenly instead of padding with repeated samples.
    pub drop_last: bool,
}

impl Default for SamplerOptions {
    fn default() -> Self {
        SamplerOptions { shuffle: true, seed: 0, drop_last: false }
    }
}

/// The indices of one rank's shard of a data set, epoch by epoch.
#[derive(Debug, Clone)]
pub struct DistributedSampler {
    len: usize,
    world: usize,
    rank: usize,
    options: SamplerOptions,
    epoch: u64,
}

impl DistributedSampler {
    /// A sampler over `len` samples for this rank of `group`.
    pub fn new(len: usize, group: &dyn ProcessGroup, options: SamplerOptions) -> Result<Self> {
        Self::for_rank(len, group.world_size(), group.rank(), options)
    }

    /// A sampler for rank `rank` of `world_size` (PyTorch's `num_replicas` and `rank`).
    pub fn for_rank(len: usize, world_size: usize, rank: usize, options: SamplerOptions) -> Result<Self> {
        if world_size == 0 || rank >= world_size {
            return Err(Error::invalid(
                "DistributedSampler",
                format!("rank {rank} does not exist in a world of {world_size}; give 0 <= rank < world_size"),
            ));
        }
        Ok(DistributedSampler { len, world: world_size, rank, options, epoch: 0 })
    }

    /// Sets the epoch, which reseeds the shuffle: call it before each epoch, on every rank, or
    /// every epoch repeats the first one's order (as in PyTorch).
    pub fn set_epoch(&mut self, epoch: u64) {
        self.epoch = epoch;
    }

    /// How many samples each rank gets per epoch.
    pub fn num_samples(&self) -> usize {
        if self.options.drop_last {
            self.len / self.world
        } else {
            self.len.div_ceil(self.world)
        }
    }

    /// This rank's sample indices for the current epoch, in order.
    pub fn indices(&self) -> Vec<usize> {
        let mut order: Vec<usize> = if self.options.shuffle {
            crate::data::permutation(self.len, self.options.seed.wrapping_add(self.epoch), 0)
        } else {
            (0..self.len).collect()
        };
        let total = self.num_samples() * self.world;
        if order.len() < total && !order.is_empty() {
            let mut k = 0;
            while order.len() < total {
                order.push(order[k]);
                k += 1;
            }
        }
        order.truncate(total);
        order.into_iter().skip(self.rank).step_by(self.world).collect()
    }
}
