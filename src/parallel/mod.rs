//! Data parallelism on one machine: [`DataParallel`] keeps one replica of a module per device
//! (any mix: logical devices on one adapter, `cpu` with `webgpu:0`, several GPUs, `cuda:N`),
//! splits each global batch across them, runs forward and backward on every replica, and
//! all-reduces the gradients so that each replica holds the gradient of the whole batch;
//! [`Replicated`] then steps one optimizer per replica identically. This is PyTorch's
//! `DistributedDataParallel` and TensorFlow's `MirroredStrategy` without processes or a
//! network, and it is built on exactly that: each replica is a
//! [`crate::distributed::DistributedDataParallel`] over one rank of a `local` process group
//! ([`crate::distributed::LocalGroup`]), so the bucketing, the gradient hooks and the averaging
//! are the ones that run across processes; the local group's all-reduce sums on the first
//! replica's device and copies the sum back to each.
//!
//! What it matches: with losses that average over their batch (PyTorch's default reduction),
//! each shard's loss is weighted by its share of the global batch, so the summed gradient is
//! exactly the gradient of the global batch's mean loss, even when the batch does not divide
//! evenly; training on N devices reaches the weights of one device within f32 rounding. What it
//! does not: BatchNorm normalises each shard by its own statistics (as DDP without
//! `SyncBatchNorm`; running statistics are taken from the first replica, as DDP's
//! `broadcast_buffers`), and dropout draws different masks per replica.

mod replicated;

pub use replicated::Replicated;

use std::sync::Arc;

use crate::device::Device;
use crate::distributed::{DdpOptions, DistributedDataParallel, LocalGroup, ProcessGroup};
use crate::error::{Error, Result};
use crate::nn::Module;
use crate::nn::Parameter;
use crate::optim::Optimizer;
use crate::tensor::{Tensor, ToOptions};

/// One replica of a module per device; the first device's replica is the one to evaluate and
/// save (its `state_dict` has the plain module's keys, not DDP's `module.` prefix).
pub struct DataParallel<M: Module> {
    replicas: Vec<DistributedDataParallel<M>>,
    devices: Vec<Device>,
    /// The local group the replicas' DDP wrappers reduce over (reset after a failed step).
    group: Arc<crate::distributed::LocalRank>,
}

/// How a global batch of `n` rows is split over `parts` replicas: as even as possible, the
/// first `n % parts` shards one row larger (PyTorch's `tensor_split`). Shards may be empty
/// when `n < parts`; those replicas sit the step out.
pub fn split_sizes(n: usize, parts: usize) -> Vec<usize> {
    if parts == 0 {
        return Vec::new();
    }
    (0..parts).map(|i| n / parts + usize::from(i < n % parts)).collect()
}

impl<M: Module> DataParallel<M> {
    /// Builds one replica per device with `build(device)` (which must put the module on that
    /// device), then copies the first replica's parameters and buffers into the others, so
    /// every replica starts from the same weights whatever `build` drew.
    pub async fn new(devices: &[Device], mut build: impl FnMut(Device) -> Result<M>) -> Result<DataParallel<M>> {
        const OP: &str = "DataParallel::new";
        if devices.is_empty() {
            return Err(Error::invalid(OP, "no devices; give at least one (e.g. [webgpu:0, webgpu:1] or [cpu])"));
        }
        for (i, d) in devices.iter().enumerate() {
            if devices[..i].contains(d) {
                return Err(Error::invalid(OP, format!("{d} is listed twice; give each device once")));
            }
        }
        let mut replicas = Vec::with_capacity(devices.len());
        for &d in devices {
            let m = build(d)?;
            if let Some(p) = m.parameters().iter().find(|p| p.device() != d) {
                return Err(Error::invalid(
                    OP,
                    format!("build({d}) returned a module with a parameter on {}; create it on {d}", p.device()),
                ));
            }
            replicas.push(m);
        }
        let ranks = LocalGroup::ranks(replicas.len())?;
        let group = ranks[0].clone();
        let mut wrapped = Vec::with_capacity(replicas.len());
        for (m, g) in replicas.into_iter().zip(ranks) {
            wrapped.push(DistributedDataParallel::new(m, g as Arc<dyn ProcessGroup>, DdpOptions::default()).await?);
        }
        let dp = DataParallel { replicas: wrapped, devices: devices.to_vec(), group };
        dp.sync_replicas().await?;
        Ok(dp)
    }

    /// Blocking [`DataParallel::new`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new_blocking(devices: &[Device], build: impl FnMut(Device) -> Result<M>) -> Result<DataParallel<M>> {
        crate::block::block_on(Self::new(devices, build))
    }

    /// The devices, one per replica, in order.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// The replicas, one per device.
    pub fn replicas(&self) -> Vec<&M> {
        self.replicas.iter().map(DistributedDataParallel::module).collect()
    }

    /// The first replica: evaluate and save this one.
    pub fn module(&self) -> &M {
        self.replicas[0].module()
    }

    /// One optimizer per replica, made by `make` from that replica's parameters; stepping the
    /// result steps them all. Since the replicas hold the same weights and, after
    /// [`DataParallel::forward_backward`], the same gradients, every step keeps them equal.
    pub fn optimizer<O: Optimizer>(&self, mut make: impl FnMut(Vec<Parameter>) -> Result<O>) -> Result<Replicated<O>> {
        let opts = self.replicas.iter().map(|r| make(r.parameters())).collect::<Result<Vec<O>>>()?;
        Ok(Replicated::new(opts))
    }

    /// One training step's forward and backward over a global batch: splits `input` and
    /// `target` along dim 0 ([`split_sizes`]), moves each shard to its replica's device
    /// (non-blocking), runs `loss_fn(replica output, shard target)`, which must return a scalar
    /// averaged over the shard, weights it by the shard's share of the batch, runs backward,
    /// then [`DataParallel::all_reduce_gradients`] of this batch's gradients. Gradients
    /// accumulate into what the parameters held, as `backward` does (so micro-batches can be
    /// accumulated before a step); clear them first for a plain step (`optimizer.zero_grad()`).
    /// Returns the global batch's mean loss (detached) on the first device.
    pub async fn forward_backward(
        &self,
        input: &Tensor,
        target: &Tensor,
        loss_fn: impl Fn(&Tensor, &Tensor) -> Result<Tensor>,
    ) -> Result<Tensor> {
        const OP: &str = "DataParallel::forward_backward";
        let n = batch_rows(OP, input, "input")?;
        if batch_rows(OP, target, "target")? != n {
            return Err(Error::invalid(
                OP,
                format!("input has {n} rows but target has {}; give one target row per input row", target.shape()[0]),
            ));
        }
        if n == 0 {
            return Err(Error::invalid(OP, "an empty batch; give at least one row"));
        }
        self.broadcast_buffers().await?;
        // Gradients already held (accumulation over micro-batches) are set aside, so the
        // all-reduce sums only this batch's, then added back: summing the held ones too would
        // count them once per replica.
        let held: Vec<Vec<Option<Tensor>>> =
            self.replicas.iter().map(|r| r.parameters().iter().map(Parameter::grad).collect()).collect();
        self.replicas.iter().for_each(|r| r.zero_grad());
        let result = self.forward_backward_fresh(input, target, n, loss_fn).await;
        if result.is_err() {
            // Some replicas may have joined collectives the others never will.
            self.replicas.iter().for_each(DistributedDataParallel::forget_reduction);
            self.group.reset_group();
        }
        let restored = self.add_back(held);
        let total = result?;
        restored?;
        Ok(total)
    }

    /// `forward_backward` on parameters without gradients: each replica's backward on its shard
    /// (its DDP wrapper starts the bucket all-reduces from the gradient hooks), an empty
    /// shard's replica joining with zeros, then every replica's averaged gradients, and the
    /// global loss.
    async fn forward_backward_fresh(
        &self,
        input: &Tensor,
        target: &Tensor,
        n: usize,
        loss_fn: impl Fn(&Tensor, &Tensor) -> Result<Tensor>,
    ) -> Result<Tensor> {
        const OP: &str = "DataParallel::forward_backward";
        let world = self.devices.len();
        let mut parts = Vec::with_capacity(world);
        let mut start = 0;
        for ((replica, &d), rows) in self.replicas.iter().zip(&self.devices).zip(split_sizes(n, world)) {
            if rows == 0 {
                replica.join_without_batch()?;
                continue;
            }
            let move_opts = ToOptions { non_blocking: true };
            let x = input.narrow(0, start, rows)?.to_with(d, move_opts).await?;
            let y = target.narrow(0, start, rows)?.to_with(d, move_opts).await?;
            start += rows;
            let loss = loss_fn(&replica.forward(&x)?, &y)?;
            if loss.numel() != 1 || !loss.dtype().is_float() {
                return Err(Error::invalid(
                    OP,
                    format!(
                        "loss_fn returned a {} tensor of shape {:?}; it must return one floating-point value, the mean \
                         loss over its shard (PyTorch's default reduction)",
                        loss.dtype(),
                        loss.shape()
                    ),
                ));
            }
            // The gradients are averaged over the replicas, so each shard's mean loss is
            // weighted by its share of the batch times the number of replicas: the average is
            // then exactly the gradient of the global batch's mean loss.
            let weighted = loss.mul_scalar((rows * world) as f64 / n as f64)?;
            weighted.backward_async(None, Default::default()).await?;
            // Moved to the first device only after every replica's work is queued: a move
            // off a GPU reads back, which would wait for this replica before the next starts.
            parts.push(weighted.detach().reshape(&[])?);
        }
        for replica in &self.replicas {
            replica.finish_reduction().await?;
        }
        let mut total: Option<Tensor> = None;
        for part in parts {
            let part = part.to(self.devices[0]).await?;
            total = Some(match total {
                Some(t) => t.add(&part)?,
                None => part,
            });
        }
        total.ok_or_else(|| Error::invalid(OP, "internal: no replica ran"))?.div_scalar(world as f64)
    }

    /// Adds the gradients set aside before a `forward_backward` back to each replica's.
    fn add_back(&self, held: Vec<Vec<Option<Tensor>>>) -> Result<()> {
        for (r, grads) in self.replicas.iter().zip(held) {
            for (p, old) in r.parameters().iter().zip(grads) {
                let Some(old) = old else { continue };
                let sum = match p.grad() {
                    Some(new) => old.add(&new)?,
                    None => old,
                };
                p.tensor().set_grad(Some(sum))?;
            }
        }
        Ok(())
    }

    /// Copies the first replica's parameters and buffers into the others. Replicas stay equal
    /// by construction; call this after a step that failed partway (an out-of-memory on a
    /// later replica leaves the earlier ones stepped), or now and then when replicas on
    /// different kinds of device could drift by rounding.
    pub async fn sync_replicas(&self) -> Result<()> {
        let first = self.replicas[0].state_dict();
        for r in &self.replicas[1..] {
            r.load_state_dict(&first).await?;
        }
        Ok(())
    }

    /// Blocking [`DataParallel::sync_replicas`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn sync_replicas_blocking(&self) -> Result<()> {
        crate::block::block_on(self.sync_replicas())
    }

    /// Blocking [`DataParallel::forward_backward`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn forward_backward_blocking(
        &self,
        input: &Tensor,
        target: &Tensor,
        loss_fn: impl Fn(&Tensor, &Tensor) -> Result<Tensor>,
    ) -> Result<Tensor> {
        crate::block::block_on(self.forward_backward(input, target, loss_fn))
    }

    /// Sums each parameter's gradient over the replicas (in device order, on the first
    /// device) and gives every replica the sum: the all-reduce of DDP. A parameter no replica
    /// has a gradient for keeps none. For callers that run their own forward and backward on
    /// the replicas (and weight their losses themselves), on gradients cleared beforehand:
    /// gradients held from before would be summed too.
    pub async fn all_reduce_gradients(&self) -> Result<()> {
        let per_replica: Vec<Vec<Parameter>> = self.replicas.iter().map(|r| r.module().parameters()).collect();
        let count = per_replica[0].len();
        if let Some(bad) = per_replica.iter().position(|p| p.len() != count) {
            return Err(Error::invalid(
                "DataParallel::all_reduce_gradients",
                format!(
                    "replica 0 has {count} parameters but replica {bad} has {}; replicas must have the same structure",
                    per_replica[bad].len()
                ),
            ));
        }
        let rows: Vec<Vec<Tensor>> = per_replica.iter().map(|ps| ps.iter().map(Parameter::tensor).collect()).collect();
        let ranks: Vec<Arc<dyn ProcessGroup>> = self.replicas.iter().map(|r| r.group().clone()).collect();
        crate::distributed::local::all_reduce_gradients(&rows, &ranks).await
    }

    /// Copies the first replica's buffers (BatchNorm's running statistics) into the others,
    /// as DDP's `broadcast_buffers` does before each forward.
    pub async fn broadcast_buffers(&self) -> Result<()> {
        let first = self.replicas[0].buffers();
        for r in &self.replicas[1..] {
            for (b, src) in r.buffers().iter().zip(&first) {
                b.set(&src.tensor().to(b.tensor().device()).await?)?;
            }
        }
        Ok(())
    }

    /// Blocking [`DataParallel::broadcast_buffers`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn broadcast_buffers_blocking(&self) -> Result<()> {
        crate::block::block_on(self.broadcast_buffers())
    }

    /// Blocking [`DataParallel::all_reduce_gradients`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn all_reduce_gradients_blocking(&self) -> Result<()> {
        crate::block::block_on(self.all_reduce_gradients())
    }
}

/// The rows of a batch tensor (its dim 0), or an error naming the argument.
fn batch_rows(op: &'static str, t: &Tensor, what: &str) -> Result<usize> {
    t.shape()
        .first()
        .copied()
        .ok_or_else(|| Error::invalid(op, format!("{what} is a scalar; give a batch with the rows along dim 0")))
}
