//! [`ProcessGroup`]: the collectives every backend implements, and [`Work`], the handle of one
//! that may still be running (PyTorch's `Work` from `async_op=True`).
//!
//! Tensors here are values, not buffers written in place: a collective takes this rank's tensor
//! and its `Work` gives back the result as new tensors on the input's device (what
//! `torch.distributed`'s functional collectives do). An in-place form would need tensors whose
//! storage can be rewritten under other views; the value form loses nothing for DDP, which sets
//! each gradient from the result.

use std::future::Future;
use std::pin::Pin;

use crate::error::{Error, Result};
use crate::tensor::Tensor;

use super::Backend;

/// How a reduction combines the ranks' tensors (PyTorch's `ReduceOp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceOp {
    /// Elementwise sum.
    Sum,
    /// Elementwise mean over the ranks (floating-point tensors only).
    Avg,
    /// Elementwise maximum.
    Max,
    /// Elementwise minimum.
    Min,
}

/// The future a [`Work`] resolves through.
type Pending = Pin<Box<dyn Future<Output = Result<Vec<Tensor>>> + Send>>;

/// A collective that has been started; [`Work::wait`] gives its result. Dropping a `Work`
/// without waiting still lets the collective finish on the backends that need every rank to
/// take part (MPI and NCCL requests are completed before their buffers are freed).
pub struct Work {
    pending: Pending,
}

impl Work {
    /// A collective whose result is ready, or comes from `future`.
    pub(crate) fn new(future: impl Future<Output = Result<Vec<Tensor>>> + Send + 'static) -> Work {
        Work { pending: Box::pin(future) }
    }

    /// Waits for the collective and returns its result: one tensor for `all_reduce`,
    /// `broadcast` and `reduce_scatter`, one per rank (in rank order) for `all_gather`, none for
    /// `barrier`.
    pub async fn wait(self) -> Result<Vec<Tensor>> {
        self.pending.await
    }

    /// [`Work::wait`] for the collectives with one result.
    pub async fn wait_one(self) -> Result<Tensor> {
        let mut out = self.pending.await?;
        match out.len() {
            1 => Ok(out.remove(0)),
            n => Err(Error::invalid("Work::wait_one", format!("this collective gave {n} tensors; use wait()"))),
        }
    }

    /// Blocking [`Work::wait`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn wait_blocking(self) -> Result<Vec<Tensor>> {
        crate::block::block_on(self.wait())
    }

    /// Blocking [`Work::wait_one`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn wait_one_blocking(self) -> Result<Tensor> {
        crate::block::block_on(self.wait_one())
    }
}

/// A group of ranks that run collectives together (PyTorch's `ProcessGroup`). Every rank must
/// call the same collectives in the same order with tensors of the same shape and dtype; a
/// backend checks what it can and fails with an error naming the mismatch rather than hang.
pub trait ProcessGroup: Send + Sync {
    /// Which backend runs the collectives.
    fn backend(&self) -> Backend;

    /// This rank's index, `0..world_size`.
    fn rank(&self) -> usize;

    /// How many ranks the group has.
    fn world_size(&self) -> usize;

    /// This rank's index among the ranks on its machine: which GPU it should use.
    fn local_rank(&self) -> usize;

    /// The device this rank should use ([`super::local_device`]): `cuda:{local_rank}` where
    /// there are CUDA devices, else the local rank's hardware GPU adapter, else the best device.
    fn local_device(&self) -> Result<crate::Device> {
        Ok(super::device_for_local_rank(self.local_rank()))
    }

    /// Starts reducing `tensor` over every rank with `op`; the result (on `tensor`'s device)
    /// is the same on every rank.
    fn all_reduce(&self, tensor: &Tensor, op: ReduceOp) -> Result<Work>;

    /// Starts sending rank `src`'s `tensor` to every rank; each rank passes a tensor of the
    /// same shape and dtype (its values are ignored except on `src`).
    fn broadcast(&self, tensor: &Tensor, src: usize) -> Result<Work>;

    /// Starts gathering every rank's `tensor` on every rank: the result is one tensor per rank.
    fn all_gather(&self, tensor: &Tensor) -> Result<Work>;

    /// Starts reducing `inputs` (one tensor per rank, the same shapes on every rank) with `op`
    /// and leaves on rank `r` the reduction of everyone's `inputs[r]`.
    fn reduce_scatter(&self, inputs: &[Tensor], op: ReduceOp) -> Result<Work>;

    /// Starts a barrier: its `Work` completes once every rank has entered it.
    fn barrier(&self) -> Result<Work>;

    /// Ends every rank of the group with `code`, for a rank that failed and cannot take part in
    /// the next collective (the others would otherwise wait for it until their timeout).
    fn abort(&self, code: i32);
}

/// Checks a reduction's operands: `Avg` needs floating point.
pub(crate) fn check_reduce(op_name: &'static str, t: &Tensor, op: ReduceOp) -> Result<()> {
    if op == ReduceOp::Avg && !t.dtype().is_float() {
        return Err(Error::invalid(
            op_name,
            format!("ReduceOp::Avg needs a floating-point tensor, this one is {}; use Sum and divide", t.dtype()),
        ));
    }
    Ok(())
}

/// Checks that `src` names a rank of a group of `world` ranks.
pub(crate) fn check_rank(op_name: &'static str, src: usize, world: usize) -> Result<()> {
    if src >= world {
        return Err(Error::invalid(
            op_name,
            format!("rank {src} is out of range for a group of {world} ranks (0..{world})"),
        ));
    }
    Ok(())
}

/// Checks that `reduce_scatter` got one input per rank, all of the first one's shape and dtype.
pub(crate) fn check_scatter_inputs(inputs: &[Tensor], world: usize) -> Result<()> {
    const OP: &str = "reduce_scatter";
    if inputs.len() != world {
        return Err(Error::invalid(OP, format!("{} inputs for {world} ranks; give one tensor per rank", inputs.len())));
    }
    if let Some(bad) = inputs.iter().find(|t| t.shape() != inputs[0].shape() || t.dtype() != inputs[0].dtype()) {
        return Err(Error::invalid(
            OP,
            format!(
                "the inputs differ: {:?} {} and {:?} {}; give tensors of one shape and dtype",
                inputs[0].shape(),
                inputs[0].dtype(),
                bad.shape(),
                bad.dtype()
            ),
        ));
    }
    Ok(())
}
