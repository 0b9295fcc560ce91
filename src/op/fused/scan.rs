//! Running sums (`cumsum`), a fused family (see `op::fused`): a contiguous tensor viewed as
//! `[outer, n, inner]` summed along `n` in one pass, a thread per column (scan.wgsl, scan.cu;
//! on the CPU `device/cpu/scan.rs`). Where the GPUs composed log2(n) shifted copies and adds
//! (a Hillis-Steele scan of `cat`s and `add`s), each column is one sequential sum: f32 in f32
//! on GPUs (PyTorch's CUDA accumulates f32 in f32), in f64 on the CPU (as PyTorch's CPU);
//! i32 wraps.

use super::{Grid, Pass};
use crate::dtype::DType;
use crate::op::param_layout::{kernel_params, KernelParams};

kernel_params! {
    /// scan.wgsl / scan.cu: a thread per (outer, inner) column of `[outer, n, inner]`.
    struct ScanParams {
        /// Columns: outer * inner.
        columns,
        n,
        inner,
        src_offset,
    }
}

/// Running sums of `[outer, n, inner]` (contiguous from `src_offset`) along `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ScanArgs {
    pub outer: usize,
    pub n: usize,
    pub inner: usize,
    pub src_offset: usize,
    /// f32 or i32 (the op widens bool and 8-bit integers to i32 first).
    pub dtype: DType,
}

impl ScanArgs {
    /// Whether the family scans `dtype`.
    pub(crate) fn supports(dtype: DType) -> bool {
        matches!(dtype, DType::F32 | DType::I32)
    }

    /// Elements of the input and the output.
    pub(crate) fn len(&self) -> usize {
        self.outer * self.n * self.inner
    }

    /// The one pass: a thread per column.
    pub(crate) fn pass(&self) -> Pass {
        let columns = self.outer * self.inner;
        let p = ScanParams { columns, n: self.n, inner: self.inner, src_offset: self.src_offset };
        Pass { part: 0, words: p.words(), grid: Grid::Threads(columns) }
    }
}
