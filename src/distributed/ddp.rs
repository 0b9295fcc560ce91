//! [`DistributedDataParallel`]: PyTorch's DDP. Each rank holds the whole module on its own
//! device and trains on its shard of the batch; at construction the parameters and buffers are
//! broadcast from rank 0, each forward broadcasts the buffers again, and each backward averages
//! the gradients over the ranks in buckets that start while backward is still running (see
//! `reducer.rs`). An optimizer stepped on every rank then keeps the replicas equal.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::Result;
use crate::nn::{Module, ModuleCore};
use crate::tensor::Tensor;

use super::group::ProcessGroup;
use super::reducer::{CommStats, Reducer};
use super::Backend;

/// Options of [`DistributedDataParallel::new`] (PyTorch's keyword arguments of the same names).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DdpOptions {
    /// The size of a gradient bucket in MiB (PyTorch's default: 25). Smaller buckets start
    /// communicating earlier; larger ones make fewer calls.
    pub bucket_cap_mb: f64,
    /// Search each forward's graph for parameters it does not use, so that a model with
    /// branches a step can skip still finishes its reduction (costs a graph walk per forward).
    pub find_unused_parameters: bool,
    /// Send rank 0's buffers (BatchNorm's running statistics) to every rank before each forward.
    pub broadcast_buffers: bool,
}

impl Default for DdpOptions {
    fn default() -> Self {
        DdpOptions { bucket_cap_mb: 25.0, find_unused_parameters: false, broadcast_buffers: true }
    }
}

/// A module trained data parallel over a process group. Use it as the module: `forward`
/// records the reduction of the next backward; save `module()`'s `state_dict` (rank 0's, the
/// plain module's keys, without PyTorch DDP's `module.` prefix).
pub struct DistributedDataParallel<M: Module> {
    module: M,
    group: Arc<dyn ProcessGroup>,
    reducer: Arc<Reducer>,
    options: DdpOptions,
    require_sync: AtomicBool,
}

impl<M: Module> DistributedDataParallel<M> {
    /// Wraps `module` (already on this rank's device) and makes every rank's parameters and
    /// buffers rank 0's. Every rank must call this with the same module structure. In a
    /// `local` group of several ranks (one process), the ranks cannot wait for each other here;
    /// their driver (`DataParallel`) copies the weights instead.
    pub async fn new(module: M, group: Arc<dyn ProcessGroup>, options: DdpOptions) -> Result<Self> {
        if options.bucket_cap_mb.is_nan() || options.bucket_cap_mb <= 0.0 {
            return Err(crate::Error::invalid(
                "DistributedDataParallel::new",
                format!("bucket_cap_mb must be positive, got {}", options.bucket_cap_mb),
            ));
        }
        let cap = (options.bucket_cap_mb * 1024.0 * 1024.0) as usize;
        let reducer =
            Arc::new(Reducer::new(module.named_parameters(), group.clone(), cap, options.find_unused_parameters));
        let ddp = DistributedDataParallel { module, group, reducer, options, require_sync: AtomicBool::new(true) };
        if ddp.waits_in_place() {
            let state = ddp.module.state_dict();
            let mut synced = Vec::with_capacity(state.len());
            for (name, t) in state {
                synced.push((name, ddp.group.broadcast(&t, 0)?.wait_one().await?));
            }
            ddp.module.load_state_dict(&synced).await?;
        }
        Ok(ddp)
    }

    /// Blocking [`DistributedDataParallel::new`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new_blocking(module: M, group: Arc<dyn ProcessGroup>, options: DdpOptions) -> Result<Self> {
        crate::block::block_on(Self::new(module, group, options))
    }

    /// Whether collectives can be waited for where they are issued: every backend but a
    /// `local` group of several ranks, whose ranks take turns on one thread.
    fn waits_in_place(&self) -> bool {
        self.group.backend() != Backend::Local || self.group.world_size() == 1
    }

    /// The wrapped module.
    pub fn module(&self) -> &M {
        &self.module
    }

    /// The process group.
    pub fn group(&self) -> &Arc<dyn ProcessGroup> {
        &self.group
    }

    /// The options it was made with.
    pub fn options(&self) -> DdpOptions {
        self.options
    }

    /// The buckets, as lists of parameter names in the order their all-reduces start.
    pub fn buckets(&self) -> Vec<Vec<String>> {
        self.reducer.buckets.iter().map(|b| b.params.iter().map(|&i| self.reducer.names[i].clone()).collect()).collect()
    }

    /// Runs `f` without averaging gradients (PyTorch's `no_sync()` context): forwards inside
    /// accumulate their backward's gradients locally; the first forward outside then averages
    /// the accumulated sum.
    pub fn no_sync<T>(&self, f: impl FnOnce() -> T) -> T {
        let before = self.require_sync.swap(false, Ordering::SeqCst);
        let out = f();
        self.require_sync.store(before, Ordering::SeqCst);
        out
    }

    /// Waits for the reduction of the last backward and writes the averaged gradients: needed
    /// only in a `local` group of several ranks, after every rank's backward (elsewhere the
    /// last bucket's hook does it before `backward` returns).
    pub async fn finish_reduction(&self) -> Result<()> {
        self.reducer.finalize().await
    }

    /// Blocking [`DistributedDataParallel::finish_reduction`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn finish_reduction_blocking(&self) -> Result<()> {
        crate::block::block_on(self.finish_reduction())
    }

    /// Joins this iteration's gradient averaging without a forward (a replica with no rows in
    /// a global batch smaller than the world): contributes the gradients held (zeros if none).
    pub(crate) fn join_without_batch(&self) -> Result<()> {
        self.reducer.join_without_batch()
    }

    /// Drops the reduction of the iteration in flight (after a failed step).
    pub(crate) fn forget_reduction(&self) {
        self.reducer.disarm();
    }

    /// Where this rank's gradient communication time went so far (buckets, bytes, seconds
    /// starting them inside backward, seconds waiting after it).
    pub fn comm_stats(&self) -> CommStats {
        *crate::device::policy::lock(&self.reducer.stats)
    }

    /// Whether a backward's gradients are still to be averaged.
    pub fn reduction_pending(&self) -> bool {
        self.reducer.in_flight()
    }

    /// One training step's forward and backward on this rank's share of a global batch, the
    /// form that trains to one process's weights: every rank passes the same `input` and
    /// `target` (the whole global batch), takes its rows as [`crate::parallel::split_sizes`]
    /// splits them, runs `loss_fn` (a mean over its rows), weights the loss by its share so that
    /// the average over ranks is the global batch's mean loss, and runs backward (which
    /// averages the gradients). Returns this rank's weighted loss (detached): the sum over ranks
    /// is the global mean loss. A rank whose share is empty (a batch smaller than the world)
    /// contributes zero gradients.
    pub async fn forward_backward_shard(
        &self,
        input: &Tensor,
        target: &Tensor,
        loss_fn: impl Fn(&Tensor, &Tensor) -> Result<Tensor>,
    ) -> Result<Tensor> {
        const OP: &str = "DistributedDataParallel::forward_backward_shard";
        let n = input.shape().first().copied().unwrap_or(0);
        if target.shape().first() != Some(&n) || n == 0 {
            return Err(crate::Error::invalid(
                OP,
                format!(
                    "input {:?} and target {:?} must be non-empty batches with the same number of rows",
                    input.shape(),
                    target.shape()
                ),
            ));
        }
        let (rank, world) = (self.group.rank(), self.group.world_size());
        let sizes = crate::parallel::split_sizes(n, world);
        let (start, rows) = (sizes[..rank].iter().sum::<usize>(), sizes[rank]);
        let device = self.module.parameters().first().map_or(input.device(), |p| p.device());
        let x = input.narrow(0, start.min(n.saturating_sub(1)), rows.max(1))?.to(device).await?;
        let y = target.narrow(0, start.min(n.saturating_sub(1)), rows.max(1))?.to(device).await?;
        let loss = loss_fn(&self.forward(&x)?, &y)?;
        if loss.numel() != 1 || !loss.dtype().is_float() {
            return Err(crate::Error::invalid(
                OP,
                format!(
                    "loss_fn returned shape {:?} {}; it must return one float, the mean loss",
                    loss.shape(),
                    loss.dtype()
                ),
            ));
        }
        // An empty share still runs (on one row, weighted by zero) so that its gradients, all
        // zero, join the ranks' collectives.
        let weighted = loss.mul_scalar((rows * world) as f64 / n as f64)?;
        weighted.backward_async(None, Default::default()).await?;
        weighted.detach().div_scalar(world as f64)
    }

    /// Blocking [`DistributedDataParallel::forward_backward_shard`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn forward_backward_shard_blocking(
        &self,
        input: &Tensor,
        target: &Tensor,
        loss_fn: impl Fn(&Tensor, &Tensor) -> Result<Tensor>,
    ) -> Result<Tensor> {
        crate::block::block_on(self.forward_backward_shard(input, target, loss_fn))
    }

    fn forward_synced(&self, x: &Tensor) -> Result<Tensor> {
        #[cfg(not(target_arch = "wasm32"))]
        if self.options.broadcast_buffers && self.waits_in_place() && self.group.world_size() > 1 {
            for b in self.module.buffers() {
                let src = b.tensor();
                b.set(&self.group.broadcast(&src, 0)?.wait_one_blocking()?)?;
            }
        }
        let out = self.module.forward(x)?;
        if crate::is_grad_enabled() && self.require_sync.load(Ordering::SeqCst) && out.requires_grad() {
            self.reducer.prepare(&out)?;
        } else if self.require_sync.load(Ordering::SeqCst) {
            // A forward without a graph (evaluation) leaves nothing to reduce.
        } else {
            self.reducer.disarm();
        }
        Ok(out)
    }
}

impl<M: Module> Module for DistributedDataParallel<M> {
    fn core(&self) -> &ModuleCore {
        self.module.core()
    }

    /// The module's forward, arming the gradient reduction of the backward through its output
    /// (unless inside `no_sync` or without grad).
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        self.forward_synced(x)
    }
}
