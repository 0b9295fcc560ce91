//! Reduction kernel descriptors: name, identities, dtype rules, WGSL and CUDA combine
//! expressions.

use super::params::StridedReduceParams;
use crate::dtype::DType;
use crate::layout::{split_reduce, Layout};
use crate::op::table::op_enum;

op_enum! {
    /// A reduction kernel. Mean, var and std are built from these.
    ReduceOp;
    /// Sum (integers accumulate wrapping in 32 bits).
    Sum => sum,
    /// Product.
    Prod => prod,
    /// Maximum.
    Max => max,
    /// Minimum.
    Min => min,
    /// Index of the first maximum (i32 result).
    ArgMax => argmax,
    /// Index of the first minimum (i32 result).
    ArgMin => argmin,
    ;
}

impl ReduceOp {
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

    /// The output dtype for an input of `dtype` (the reductions take every dtype).
    pub fn output_dtype(self, dtype: DType) -> DType {
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

/// When a GPU reduces a strided view in place (one thread per output folding its elements one
/// after another) rather than gathering it and reducing rows: with at least `min_outputs`
/// outputs `m`, and a fold `k` of at most `m / outputs_per_fold` elements (0: any fold). A lone
/// thread's fold is latency-bound, so only many outputs pay for a long fold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InPlace {
    /// Fewer outputs than this leave the device idle: gather instead.
    pub min_outputs: usize,
    /// Outputs needed per element each one folds.
    pub outputs_per_fold: usize,
}

impl InPlace {
    /// Software adapters, whose threads are SIMD lanes of a few cores: 16 outputs fill them and
    /// a long fold costs nothing extra (x.sum(0) over 1024x1024 on Dawn and lavapipe 15.3 ->
    /// 1.6 ms).
    pub(crate) const SOFTWARE: InPlace = InPlace { min_outputs: 16, outputs_per_fold: 0 };

    /// Measured on an H100 (`examples/strided_reduce.rs`, CUDA and NVIDIA's Vulkan driver, sums
    /// over columns, a middle dim and BatchNorm's (N, H, W)). CUDA's kernel won 1.5x with 4096
    /// outputs of 256, 1.8x with 8192 of 1024, 5-12x with 65536-262144 of 256-1024, and lost
    /// with 1024 or fewer outputs of any length (0.03-0.86x, BatchNorm's 0.02-0.1x) and 8192 of
    /// 4096 (0.75x). The WGSL kernel is slower per element there: it won with 8192-16384
    /// outputs of 256 (1.1-1.6x) and 65536 of 1024 (3.6x), and lost with 8192 of 1024 (0.72x)
    /// and 16384 of 1024 (0.86x).
    const CUDA: InPlace = InPlace { min_outputs: 4096, outputs_per_fold: 8 };
    const WGPU: InPlace = InPlace { min_outputs: 8192, outputs_per_fold: 32 };

    /// The rule for a hardware GPU through `cuda` or else wgpu, unless
    /// `WEBTENSOR_STRIDED_REDUCE=<min_outputs>,<outputs_per_fold>` says otherwise (read once; for
    /// timing both paths on another GPU with the example: `0,0` always in place,
    /// `18446744073709551615,0` always gathered).
    pub(crate) fn hardware(cuda: bool) -> InPlace {
        static SET: std::sync::OnceLock<Option<InPlace>> = std::sync::OnceLock::new();
        let set = SET.get_or_init(|| {
            let v = std::env::var("WEBTENSOR_STRIDED_REDUCE").ok()?;
            let (a, b) = v.split_once(',')?;
            Some(InPlace { min_outputs: a.trim().parse().ok()?, outputs_per_fold: b.trim().parse().ok()? })
        });
        set.unwrap_or(if cuda { Self::CUDA } else { Self::WGPU })
    }

    /// Whether `m` outputs of `k` elements each run in place.
    pub(crate) fn fits(self, m: usize, k: usize) -> bool {
        m >= self.min_outputs.max(1) && k.saturating_mul(self.outputs_per_fold) <= m
    }
}

/// The geometry of a GPU reduction of a strided view with one thread per output (WGSL's
/// `reduce_strided.wgsl`, CUDA's `reduce_strided.cu`): the view `l` ([kept.., reduced..], `m`
/// kept elements) as up to two kept dims (outer size `m / m2`, inner `m2`, strides `rs1`,
/// `rs2`) and up to two reduced ones (`k1` x `k2`, strides `es1`, `es2`), as the kernels'
/// params. `None` when the view has more dims than that
/// or `rule` says a thread per output would not pay: the caller then gathers the view and
/// reduces rows with its workgroup trees.
pub(crate) fn strided_params(l: &Layout, m: usize, rule: InPlace) -> Option<StridedReduceParams> {
    if m == 0 || !rule.fits(m, l.numel() / m) {
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
    Some(StridedReduceParams { outputs: m, offset: l.offset(), m2, rs1, rs2, k1, k2, es1, es2 })
}
