//! Reduction kernel descriptors: name, identities, dtype rules, WGSL and CUDA combine
//! expressions.

use crate::dtype::DType;
use crate::layout::{split_reduce, Layout};

/// A reduction kernel. Mean, var and std are built from these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Sum (integers accumulate wrapping in 32 bits).
    Sum,
    /// Product.
    Prod,
    /// Maximum.
    Max,
    /// Minimum.
    Min,
    /// Index of the first maximum (i32 result).
    ArgMax,
    /// Index of the first minimum (i32 result).
    ArgMin,
}

impl ReduceOp {
    /// Every reduction kernel.
    pub const ALL: [ReduceOp; 6] =
        [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::ArgMax, ReduceOp::ArgMin];

    /// The op's name.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::ArgMax => "argmax",
            ReduceOp::ArgMin => "argmin",
        }
    }

    /// Whether the result is an index.
    pub(crate) fn is_arg(self) -> bool {
        matches!(self, ReduceOp::ArgMax | ReduceOp::ArgMin)
    }

    /// Whether an empty reduction has a value (the identity) or is an error.
    pub(crate) fn has_identity(self) -> bool {
        matches!(self, ReduceOp::Sum | ReduceOp::Prod)
    }

    /// The dtype the kernel reads and accumulates in (bool sums and products count in i32).
    pub(crate) fn input_dtype(self, dtype: DType) -> DType {
        match (self, dtype) {
            // Sums of bool and 8-bit integers accumulate in i32 (PyTorch: int64).
            (ReduceOp::Sum | ReduceOp::Prod, DType::Bool | DType::U8 | DType::I8) => DType::I32,
            (_, d) => d,
        }
    }

    /// The output dtype for an input of `dtype`.
    pub(crate) fn output_dtype(self, dtype: DType) -> DType {
        if self.is_arg() {
            DType::I32
        } else {
            self.input_dtype(dtype)
        }
    }

    /// Whether `candidate` replaces `current`: strictly better (so the first of equals wins),
    /// and NaN beats everything and is never replaced, so max/min propagate NaN as in PyTorch.
    /// (`x != x` is the NaN test that works for every `PartialOrd` element type.)
    #[allow(clippy::eq_op)]
    #[inline]
    pub(crate) fn better<T: PartialOrd>(self, candidate: T, current: T) -> bool {
        let nan = |x: &T| x != x;
        if nan(&current) {
            return false;
        }
        nan(&candidate)
            || match self {
                ReduceOp::Max | ReduceOp::ArgMax => candidate > current,
                _ => candidate < current,
            }
    }

    /// WGSL: how accumulator `acc` absorbs value `v` (sum and prod; the others compare with
    /// [`ReduceOp::wgsl_better`]).
    pub(crate) fn wgsl_combine(self) -> &'static str {
        match self {
            ReduceOp::Sum => "acc + v",
            ReduceOp::Prod => "acc * v",
            _ => "select(acc, v, better(v, acc))",
        }
    }

    /// WGSL comparison `better(v, acc)`, with the same NaN rule as [`ReduceOp::better`] for
    /// float accumulators.
    pub(crate) fn wgsl_better(self, float: bool) -> &'static str {
        match (self, float) {
            (ReduceOp::Max | ReduceOp::ArgMax, true) => "!is_nan(acc) && (is_nan(v) || v > acc)",
            (_, true) => "!is_nan(acc) && (is_nan(v) || v < acc)",
            (ReduceOp::Max | ReduceOp::ArgMax, false) => "v > acc",
            (_, false) => "v < acc",
        }
    }
}

impl ReduceOp {
    /// CUDA C: how accumulator `acc` absorbs `v` for sum and prod (integers wrap through
    /// unsigned); the selecting ops compare with [`ReduceOp::cuda_better`].
    pub(crate) fn cuda_combine(self, float: bool) -> &'static str {
        match (self, float) {
            (ReduceOp::Sum, true) => "acc + v",
            (ReduceOp::Prod, true) => "acc * v",
            (ReduceOp::Sum, false) => "(A)((unsigned)acc + (unsigned)v)",
            (ReduceOp::Prod, false) => "(A)((unsigned)acc * (unsigned)v)",
            _ => "(better(v, acc) ? v : acc)",
        }
    }

    /// CUDA C comparison `better(v, acc)`, with the NaN rule of [`ReduceOp::better`].
    pub(crate) fn cuda_better(self, float: bool) -> &'static str {
        match (self, float) {
            (ReduceOp::Max | ReduceOp::ArgMax, true) => "!is_nan(acc) && (is_nan(v) || v > acc)",
            (_, true) => "!is_nan(acc) && (is_nan(v) || v < acc)",
            (ReduceOp::Max | ReduceOp::ArgMax, false) => "v > acc",
            (_, false) => "v < acc",
        }
    }
}

/// The geometry of a GPU reduction of a strided view with one thread per output (WGSL's
/// `reduce_strided.wgsl`, CUDA's `reduce_strided.cu`): the view `l` ([kept.., reduced..], `m`
/// kept elements) as up to two kept dims (outer size `m / m2`, inner `m2`, strides `rs1`,
/// `rs2`) and up to two reduced ones (`k1` x `k2`, strides `es1`, `es2`), as the params
/// `[m, offset, m2, rs1, rs2, k1, k2, es1, es2]`. `None` when the view has more dims than that
/// or too few outputs to fill the device (`min_outputs`), or, past `max_fold` elements per
/// output, when a thread would fold too long alone: the caller then gathers the view and
/// reduces rows with its workgroup trees.
pub(crate) fn strided_params(l: &Layout, m: usize, min_outputs: usize, max_fold: usize) -> Option<[usize; 9]> {
    if m < min_outputs.max(1) || l.numel() / m > max_fold {
        return None;
    }
    let (kept, ks, red, rs) = split_reduce(l, m)?;
    let (m2, rs1, rs2) = match (kept.as_slice(), ks.as_slice()) {
        ([a], [s]) => (*a, 0, *s),
        ([_, b], [s1, s2]) => (*b, *s1, *s2),
        _ => return None,
    };
    let (k1, k2, es1, es2) = match (red.as_slice(), rs.as_slice()) {
        ([a], [s]) => (1, *a, 0, *s),
        ([a, b], [s1, s2]) => (*a, *b, *s1, *s2),
        _ => return None,
    };
    Some([m, l.offset(), m2, rs1, rs2, k1, k2, es1, es2])
}
