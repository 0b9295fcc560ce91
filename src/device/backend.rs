//! The backend seam: one method per kernel family. Each backend (CPU, wgpu; CUDA later)
//! implements `Kernels` over its own storage type; `storage.rs` forwards to it. Ops above this
//! line have already checked devices, shapes and dtypes.

use crate::dtype::{CpuData, DType};
use crate::error::Result;
use crate::layout::Layout;
use crate::op::binary::BinaryOp;
use crate::op::fill::Fill;
use crate::op::optim::OptimStep;
use crate::op::reduce::ReduceOp;
use crate::op::{IndexMode, MapOp, MatmulArgs};

/// The kernel families every backend provides. Outputs are always contiguous.
pub(crate) trait Kernels {
    /// The backend's storage of one tensor's elements.
    type Storage;

    /// Copies host data to the device.
    fn upload(&self, data: &CpuData) -> Result<Self::Storage>;
    /// `n` elements of one value or of uniform samples (see [`Fill`]; samples are f32).
    fn fill(&self, n: usize, value: Fill, dtype: DType) -> Result<Self::Storage>;
    /// Strided read, elementwise op or cast, contiguous write.
    fn map(&self, src: &Self::Storage, l: &Layout, op: MapOp, dst: DType) -> Result<Self::Storage>;
    /// Broadcast binary op; `a` and `b` share a dtype.
    #[allow(clippy::too_many_arguments)]
    fn binary(
        &self,
        op: BinaryOp,
        a: &Self::Storage,
        la: &Layout,
        b: &Self::Storage,
        lb: &Layout,
        shape: &[usize],
    ) -> Result<Self::Storage>;
    /// `a op value` over a contiguous `a` (`value` in `a`'s dtype), or None where this backend
    /// has no kernel for it, and the caller broadcasts a filled 0-d tensor through `binary`
    /// instead. A backend whose broadcast of a one-element operand costs as much as this (the
    /// CPU's) keeps the default.
    fn binary_scalar(
        &self,
        _op: BinaryOp,
        _a: &Self::Storage,
        _la: &Layout,
        _value: f64,
    ) -> Result<Option<Self::Storage>> {
        Ok(None)
    }
    /// `c ? a : b` with broadcasting; `c` is bool.
    #[allow(clippy::too_many_arguments)]
    fn where_(
        &self,
        c: &Self::Storage,
        lc: &Layout,
        a: &Self::Storage,
        la: &Layout,
        b: &Self::Storage,
        lb: &Layout,
        shape: &[usize],
    ) -> Result<Self::Storage>;
    /// Reduces each row of a contiguous `[m, k]` view to one value.
    fn reduce(&self, op: ReduceOp, src: &Self::Storage, l: &Layout, m: usize, k: usize) -> Result<Self::Storage>;
    /// Softmax (or log-softmax) of each row of a contiguous `[m, k]` view.
    fn softmax(&self, src: &Self::Storage, l: &Layout, m: usize, k: usize, log: bool) -> Result<Self::Storage>;
    /// The positions (i32, contiguous `[m, k]`) that sort each row of a contiguous `[m, k]` view,
    /// ascending or descending in `op::sort`'s key order, stably (equal keys keep their order).
    fn argsort(&self, src: &Self::Storage, l: &Layout, m: usize, k: usize, descending: bool) -> Result<Self::Storage>;
    /// Batched matmul over strided operands.
    fn matmul(&self, a: &Self::Storage, b: &Self::Storage, args: &MatmulArgs) -> Result<Self::Storage>;
    /// `index_select` / `gather` along `dim`; the index is contiguous.
    #[allow(clippy::too_many_arguments)]
    fn index(
        &self,
        mode: IndexMode,
        src: &Self::Storage,
        l: &Layout,
        idx: &Self::Storage,
        li: &Layout,
        dim: usize,
        shape: &[usize],
    ) -> Result<Self::Storage>;
    /// The adjoint of `index`: sums `src` into zeros of `shape` along `dim` at the positions the
    /// (contiguous) index names, in increasing source order on every backend. With `assign`,
    /// each position takes the last source element that names it instead (`scatter`).
    #[allow(clippy::too_many_arguments)]
    fn index_add(
        &self,
        mode: IndexMode,
        src: &Self::Storage,
        l: &Layout,
        idx: &Self::Storage,
        li: &Layout,
        dim: usize,
        shape: &[usize],
        assign: bool,
    ) -> Result<Self::Storage>;
    /// One fused optimizer update of `n` contiguous f32 elements: `inputs` are the parameter,
    /// its gradient and, after the first step, `step.kind.states()` state tensors, each with
    /// the element offset it starts at. Returns the new parameter, then the new states.
    fn optim(&self, step: &OptimStep, inputs: &[(&Self::Storage, usize)], n: usize) -> Result<Vec<Self::Storage>>;
    /// Concatenation along `dim` into a new contiguous tensor of `shape`.
    fn cat(
        &self,
        parts: &[(&Self::Storage, &Layout)],
        dim: usize,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Self::Storage>;
}
