//! The backend seam: one value describing a launch ([`KernelCall`]), which `storage.rs` builds
//! once per op and hands to the backend its operands live on, and the [`Kernels`] trait each
//! backend (CPU, wgpu, CUDA) implements over its own storage type. Ops above this line have
//! already checked devices, shapes and dtypes; which kernel serves which shape or adapter is
//! each backend's own choice below it.

use std::borrow::Cow;
use std::sync::Arc;

use crate::dtype::{CpuData, DType};
use crate::error::Result;
use crate::layout::Layout;
use crate::op::binary::BinaryOp;
use crate::op::expr::Program;
use crate::op::fill::Fill;
use crate::op::fused::Fused;
use crate::op::optim::OptimStep;
use crate::op::reduce::ReduceOp;
use crate::op::{IndexMode, MapOp, MatmulArgs};
use crate::shape::numel;

/// One operand of a kernel: a storage handle `S` read through a layout.
#[derive(Debug, Clone)]
pub(crate) struct Operand<'a, S> {
    pub s: S,
    pub l: Cow<'a, Layout>,
}

impl<'a, S> Operand<'a, S> {
    /// `s` read through `l`.
    pub(crate) fn new(s: S, l: &'a Layout) -> Self {
        Operand { s, l: Cow::Borrowed(l) }
    }

    fn map<T>(&self, f: &mut impl FnMut(&S) -> Result<T>) -> Result<Operand<'a, T>> {
        Ok(Operand { s: f(&self.s)?, l: self.l.clone() })
    }

    fn into_owned(self) -> Operand<'static, S> {
        Operand { s: self.s, l: Cow::Owned(self.l.into_owned()) }
    }
}

/// One kernel launch with one output: the family, its operands (handles `S`: a `&Storage`
/// above the backends, a backend's own storage reference below, an index into host copies in
/// a CPU fallback) and its arguments. Dtypes are the operands' (u8/i8 operands are widened to
/// i32 by `storage.rs` before any backend sees them, for every family but fill, map's casts
/// and cat). Outputs are always contiguous.
#[derive(Debug, Clone)]
pub(crate) enum KernelCall<'a, S> {
    /// `n` elements of one value or of uniform samples (see [`Fill`]; samples are f32).
    Fill { n: usize, value: Fill, dtype: DType },
    /// Strided read of `src` (of `from`), elementwise op or cast to `dst`, contiguous write.
    Map { src: Operand<'a, S>, op: MapOp, from: DType, dst: DType },
    /// Broadcast binary op of two operands of `dtype` into `shape`.
    Binary { op: BinaryOp, a: Operand<'a, S>, b: Operand<'a, S>, shape: Cow<'a, [usize]>, dtype: DType },
    /// `a op value` (`value` in `dtype`), by a scalar kernel where the backend has one.
    BinaryScalar { op: BinaryOp, a: Operand<'a, S>, value: f64, dtype: DType },
    /// `c ? a : b` with broadcasting into `shape`; `c` is bool, `a` and `b` of `dtype`.
    Where { c: Operand<'a, S>, a: Operand<'a, S>, b: Operand<'a, S>, shape: Cow<'a, [usize]>, dtype: DType },
    /// Each row of the `[m, k]` view `src` (of `dtype`; possibly strided, [kept.., reduced..])
    /// reduced to one value of `out`.
    Reduce { op: ReduceOp, src: Operand<'a, S>, m: usize, k: usize, dtype: DType, out: DType },
    /// The f32 sums of each row of the `[m, k]` view `src` divided by `d` (means, average
    /// pooling): one pass where the backend has it (the CPU), else a sum and a scalar division.
    SumDiv { src: Operand<'a, S>, m: usize, k: usize, d: f32 },
    /// f32 `src` padded with `value` into `shape`, `before[d]` entries ahead of it in each dim:
    /// one pass where the backend has it (the CPU; wgpu within one binding), else a fill and a
    /// strided copy into the interior.
    Pad { src: Operand<'a, S>, before: Cow<'a, [usize]>, shape: Cow<'a, [usize]>, value: f32 },
    /// f32 `src` clamped to `[lo, hi]`: one pass where the backend has it (the CPU; wgpu for
    /// contiguous, vec4-aligned data within one binding), else a maximum and a minimum.
    Clamp { src: Operand<'a, S>, lo: f32, hi: f32 },
    /// Softmax (or log-softmax) of each row of a contiguous `[m, k]` view.
    Softmax { src: Operand<'a, S>, m: usize, k: usize, log: bool, dtype: DType },
    /// The first `keep` of the positions (i32, `[m, keep]`) that sort each row of a contiguous
    /// `[m, k]` view stably, ascending or descending in `op::sort`'s key order: argsort with
    /// `keep = k`, topk with fewer.
    Argsort { src: Operand<'a, S>, m: usize, k: usize, descending: bool, keep: usize, dtype: DType },
    /// Batched matmul over strided operands of `dtype`, with `bias` (`n` contiguous elements
    /// from `args.bias_offset`) added to every output row when given: a Linear's epilogue,
    /// PyTorch's `addmm`, in the product's own kernel where the backend has one.
    Matmul { a: S, b: S, bias: Option<S>, args: MatmulArgs, dtype: DType },
    /// `index_select` / `gather` of `src` (of `dtype`) along `dim` into `shape`; the index is
    /// contiguous.
    Index {
        mode: IndexMode,
        src: Operand<'a, S>,
        idx: Operand<'a, S>,
        dim: usize,
        shape: Cow<'a, [usize]>,
        dtype: DType,
    },
    /// The adjoint of `Index`: sums `src` into zeros of `shape` along `dim` at the positions the
    /// (contiguous) index names, in increasing source order on every backend. With `assign`,
    /// each position takes the last source element that names it instead (`scatter`).
    IndexAdd {
        mode: IndexMode,
        src: Operand<'a, S>,
        idx: Operand<'a, S>,
        dim: usize,
        shape: Cow<'a, [usize]>,
        dtype: DType,
        assign: bool,
    },
    /// Concatenation of `parts` (of `dtype`) along `dim` into a tensor of `shape`.
    Cat { parts: Vec<Operand<'a, S>>, dim: usize, shape: Cow<'a, [usize]>, dtype: DType },
    /// A call of a fused family (`op::fused`): its inputs, whole storages in the order the
    /// family names them (their offsets are in the call's arguments).
    Fused { call: Fused, inputs: Vec<S> },
    /// The lazy tier's recorded chain of f32 elementwise ops (`op::expr`) in one kernel: leaf
    /// `k` is `leaves[k]`, each read through a layout of the output's `shape` (broadcast
    /// dims have stride 0); `scalars` are the program's scalar operands.
    Elementwise { program: Arc<Program>, leaves: Vec<Operand<'a, S>>, shape: Cow<'a, [usize]>, scalars: Cow<'a, [f32]> },
}

impl<'a, S> KernelCall<'a, S> {
    /// The op name errors, the placement log and fallbacks give this call.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            KernelCall::Fill { value: Fill::Value(_), .. } => "full",
            KernelCall::Fill { value: Fill::Uniform { .. }, .. } => "rand",
            KernelCall::Fill { value: Fill::Normal { .. }, .. } => "randn",
            KernelCall::Map { op: MapOp::Unary(u), .. } => u.name(),
            KernelCall::Map { op: MapOp::Cast, from, dst, .. } if from == dst => "contiguous",
            KernelCall::Map { op: MapOp::Cast, .. } => "to_dtype",
            KernelCall::Binary { op, .. } | KernelCall::BinaryScalar { op, .. } => op.name(),
            KernelCall::Where { .. } => "where",
            KernelCall::Reduce { op, .. } => op.name(),
            KernelCall::SumDiv { .. } => "mean",
            KernelCall::Clamp { .. } => "clamp",
            KernelCall::Pad { .. } => "pad",
            KernelCall::Softmax { log: true, .. } => "log_softmax",
            KernelCall::Softmax { log: false, .. } => "softmax",
            KernelCall::Argsort { k, keep, .. } if keep < k => "topk",
            KernelCall::Argsort { .. } => "argsort",
            KernelCall::Matmul { bias: None, .. } => "matmul",
            KernelCall::Matmul { bias: Some(_), .. } => "addmm",
            KernelCall::Index { mode: IndexMode::Select, .. } => "index_select",
            KernelCall::Index { mode: IndexMode::Gather, .. } => "gather",
            KernelCall::IndexAdd { assign: true, .. } => "scatter",
            KernelCall::IndexAdd { mode: IndexMode::Select, .. } => "index_add",
            KernelCall::IndexAdd { mode: IndexMode::Gather, .. } => "scatter_add",
            KernelCall::Cat { .. } => "cat",
            KernelCall::Fused { call, .. } => call.name(),
            KernelCall::Elementwise { program, .. } => program.name(),
        }
    }

    /// The shape and dtype of the call's (contiguous) output.
    pub(crate) fn output(&self) -> (Cow<'_, [usize]>, DType) {
        match self {
            KernelCall::Fill { n, dtype, .. } => (Cow::Owned(vec![*n]), *dtype),
            KernelCall::Map { src, dst, .. } => (Cow::Borrowed(src.l.shape()), *dst),
            KernelCall::Binary { op, shape, dtype, .. } => (Cow::Borrowed(shape), op.out_dtype(*dtype)),
            KernelCall::BinaryScalar { op, a, dtype, .. } => (Cow::Borrowed(a.l.shape()), op.out_dtype(*dtype)),
            KernelCall::Where { shape, dtype, .. }
            | KernelCall::Index { shape, dtype, .. }
            | KernelCall::IndexAdd { shape, dtype, .. }
            | KernelCall::Cat { shape, dtype, .. } => (Cow::Borrowed(shape), *dtype),
            KernelCall::Reduce { m, out, .. } => (Cow::Owned(vec![*m]), *out),
            KernelCall::SumDiv { m, .. } => (Cow::Owned(vec![*m]), DType::F32),
            KernelCall::Clamp { src, .. } => (Cow::Borrowed(src.l.shape()), DType::F32),
            KernelCall::Pad { shape, .. } => (Cow::Borrowed(shape), DType::F32),
            KernelCall::Softmax { m, k, dtype, .. } => (Cow::Owned(vec![*m, *k]), *dtype),
            KernelCall::Argsort { m, k, keep, .. } => (Cow::Owned(vec![*m, (*keep).min(*k)]), DType::I32),
            KernelCall::Matmul { args, dtype, .. } => (Cow::Owned(vec![args.batch, args.m, args.n]), *dtype),
            KernelCall::Fused { call, .. } => (Cow::Owned(vec![call.output().0]), call.output().1),
            KernelCall::Elementwise { shape, .. } => (Cow::Borrowed(shape), DType::F32),
        }
    }

    /// The output's element count.
    pub(crate) fn output_numel(&self) -> usize {
        numel(&self.output().0)
    }

    /// The first operand's handle, if any (which backend runs the call), without collecting
    /// the others.
    pub(crate) fn first_operand(&self) -> Option<&S> {
        match self {
            KernelCall::Fill { .. } => None,
            KernelCall::Map { src, .. }
            | KernelCall::BinaryScalar { a: src, .. }
            | KernelCall::Reduce { src, .. }
            | KernelCall::SumDiv { src, .. }
            | KernelCall::Clamp { src, .. }
            | KernelCall::Pad { src, .. }
            | KernelCall::Softmax { src, .. }
            | KernelCall::Argsort { src, .. }
            | KernelCall::Binary { a: src, .. }
            | KernelCall::Index { src, .. }
            | KernelCall::IndexAdd { src, .. }
            | KernelCall::Where { c: src, .. } => Some(&src.s),
            KernelCall::Matmul { a, .. } => Some(a),
            KernelCall::Fused { inputs, .. } => inputs.first(),
            KernelCall::Cat { parts, .. } | KernelCall::Elementwise { leaves: parts, .. } => {
                parts.first().map(|p| &p.s)
            }
        }
    }

    /// The operands' handles, in the order the call names them.
    pub(crate) fn operands(&self) -> Vec<&S> {
        match self {
            KernelCall::Fill { .. } => vec![],
            KernelCall::Map { src, .. }
            | KernelCall::BinaryScalar { a: src, .. }
            | KernelCall::Reduce { src, .. }
            | KernelCall::SumDiv { src, .. }
            | KernelCall::Clamp { src, .. }
            | KernelCall::Pad { src, .. }
            | KernelCall::Softmax { src, .. }
            | KernelCall::Argsort { src, .. } => vec![&src.s],
            KernelCall::Binary { a, b, .. } => vec![&a.s, &b.s],
            KernelCall::Where { c, a, b, .. } => vec![&c.s, &a.s, &b.s],
            KernelCall::Matmul { a, b, bias, .. } => [a, b].into_iter().chain(bias).collect(),
            KernelCall::Index { src, idx, .. } | KernelCall::IndexAdd { src, idx, .. } => vec![&src.s, &idx.s],
            KernelCall::Cat { parts, .. } | KernelCall::Elementwise { leaves: parts, .. } => {
                parts.iter().map(|p| &p.s).collect()
            }
            KernelCall::Fused { inputs, .. } => inputs.iter().collect(),
        }
    }

    /// The same call over other handles: `f` maps each operand's (a backend's storage from a
    /// `&Storage`, or an index into host copies), failing the whole call if one fails.
    pub(crate) fn map<T>(&self, mut f: impl FnMut(&S) -> Result<T>) -> Result<KernelCall<'a, T>> {
        let f = &mut f;
        Ok(match self {
            KernelCall::Fill { n, value, dtype } => KernelCall::Fill { n: *n, value: *value, dtype: *dtype },
            KernelCall::Map { src, op, from, dst } => {
                KernelCall::Map { src: src.map(f)?, op: *op, from: *from, dst: *dst }
            }
            KernelCall::Fused { call, inputs } => {
                KernelCall::Fused { call: *call, inputs: inputs.iter().map(&mut *f).collect::<Result<_>>()? }
            }
            KernelCall::Binary { op, a, b, shape, dtype } => {
                KernelCall::Binary { op: *op, a: a.map(f)?, b: b.map(f)?, shape: shape.clone(), dtype: *dtype }
            }
            KernelCall::BinaryScalar { op, a, value, dtype } => {
                KernelCall::BinaryScalar { op: *op, a: a.map(f)?, value: *value, dtype: *dtype }
            }
            KernelCall::Where { c, a, b, shape, dtype } => {
                KernelCall::Where { c: c.map(f)?, a: a.map(f)?, b: b.map(f)?, shape: shape.clone(), dtype: *dtype }
            }
            KernelCall::Reduce { op, src, m, k, dtype, out } => {
                KernelCall::Reduce { op: *op, src: src.map(f)?, m: *m, k: *k, dtype: *dtype, out: *out }
            }
            KernelCall::Softmax { src, m, k, log, dtype } => {
                KernelCall::Softmax { src: src.map(f)?, m: *m, k: *k, log: *log, dtype: *dtype }
            }
            KernelCall::SumDiv { src, m, k, d } => KernelCall::SumDiv { src: src.map(f)?, m: *m, k: *k, d: *d },
            KernelCall::Clamp { src, lo, hi } => KernelCall::Clamp { src: src.map(f)?, lo: *lo, hi: *hi },
            KernelCall::Pad { src, before, shape, value } => {
                KernelCall::Pad { src: src.map(f)?, before: before.clone(), shape: shape.clone(), value: *value }
            }
            KernelCall::Argsort { src, m, k, descending, keep, dtype } => KernelCall::Argsort {
                src: src.map(f)?,
                m: *m,
                k: *k,
                descending: *descending,
                keep: *keep,
                dtype: *dtype,
            },
            KernelCall::Matmul { a, b, bias, args, dtype } => KernelCall::Matmul {
                a: f(a)?,
                b: f(b)?,
                bias: bias.as_ref().map(&mut *f).transpose()?,
                args: *args,
                dtype: *dtype,
            },
            KernelCall::Index { mode, src, idx, dim, shape, dtype } => KernelCall::Index {
                mode: *mode,
                src: src.map(f)?,
                idx: idx.map(f)?,
                dim: *dim,
                shape: shape.clone(),
                dtype: *dtype,
            },
            KernelCall::IndexAdd { mode, src, idx, dim, shape, dtype, assign } => KernelCall::IndexAdd {
                mode: *mode,
                src: src.map(f)?,
                idx: idx.map(f)?,
                dim: *dim,
                shape: shape.clone(),
                dtype: *dtype,
                assign: *assign,
            },
            KernelCall::Cat { parts, dim, shape, dtype } => KernelCall::Cat {
                parts: parts.iter().map(|p| p.map(f)).collect::<Result<_>>()?,
                dim: *dim,
                shape: shape.clone(),
                dtype: *dtype,
            },
            KernelCall::Elementwise { program, leaves, shape, scalars } => KernelCall::Elementwise {
                program: program.clone(),
                leaves: leaves.iter().map(|p| p.map(f)).collect::<Result<_>>()?,
                shape: shape.clone(),
                scalars: scalars.clone(),
            },
        })
    }

    /// The call with its layouts and shape owned, to outlive the op (a web fallback's host
    /// step runs later).
    pub(crate) fn into_owned(self) -> KernelCall<'static, S> {
        let own = |s: Cow<'a, [usize]>| Cow::Owned(s.into_owned());
        match self {
            KernelCall::Fill { n, value, dtype } => KernelCall::Fill { n, value, dtype },
            KernelCall::Map { src, op, from, dst } => KernelCall::Map { src: src.into_owned(), op, from, dst },
            KernelCall::Binary { op, a, b, shape, dtype } => {
                KernelCall::Binary { op, a: a.into_owned(), b: b.into_owned(), shape: own(shape), dtype }
            }
            KernelCall::BinaryScalar { op, a, value, dtype } => {
                KernelCall::BinaryScalar { op, a: a.into_owned(), value, dtype }
            }
            KernelCall::Where { c, a, b, shape, dtype } => {
                KernelCall::Where { c: c.into_owned(), a: a.into_owned(), b: b.into_owned(), shape: own(shape), dtype }
            }
            KernelCall::Reduce { op, src, m, k, dtype, out } => {
                KernelCall::Reduce { op, src: src.into_owned(), m, k, dtype, out }
            }
            KernelCall::Softmax { src, m, k, log, dtype } => {
                KernelCall::Softmax { src: src.into_owned(), m, k, log, dtype }
            }
            KernelCall::SumDiv { src, m, k, d } => KernelCall::SumDiv { src: src.into_owned(), m, k, d },
            KernelCall::Clamp { src, lo, hi } => KernelCall::Clamp { src: src.into_owned(), lo, hi },
            KernelCall::Pad { src, before, shape, value } => {
                KernelCall::Pad { src: src.into_owned(), before: own(before), shape: own(shape), value }
            }
            KernelCall::Argsort { src, m, k, descending, keep, dtype } => {
                KernelCall::Argsort { src: src.into_owned(), m, k, descending, keep, dtype }
            }
            KernelCall::Matmul { a, b, bias, args, dtype } => KernelCall::Matmul { a, b, bias, args, dtype },
            KernelCall::Index { mode, src, idx, dim, shape, dtype } => {
                KernelCall::Index { mode, src: src.into_owned(), idx: idx.into_owned(), dim, shape: own(shape), dtype }
            }
            KernelCall::IndexAdd { mode, src, idx, dim, shape, dtype, assign } => KernelCall::IndexAdd {
                mode,
                src: src.into_owned(),
                idx: idx.into_owned(),
                dim,
                shape: own(shape),
                dtype,
                assign,
            },
            KernelCall::Cat { parts, dim, shape, dtype } => KernelCall::Cat {
                parts: parts.into_iter().map(Operand::into_owned).collect(),
                dim,
                shape: own(shape),
                dtype,
            },
            KernelCall::Fused { call, inputs } => KernelCall::Fused { call, inputs },
            KernelCall::Elementwise { program, leaves, shape, scalars } => KernelCall::Elementwise {
                program,
                leaves: leaves.into_iter().map(Operand::into_owned).collect(),
                shape: own(shape),
                scalars: Cow::Owned(scalars.into_owned()),
            },
        }
    }
}

/// What every backend provides: uploads, one entry point for every single-output kernel call,
/// and the fused optimizer update (several outputs: the parameters and their states).
pub(crate) trait Kernels {
    /// The backend's storage of one tensor's elements.
    type Storage;

    /// Copies host data to the device.
    fn upload(&self, data: &CpuData) -> Result<Self::Storage>;
    /// Runs `call` over this backend's storages. The backend picks the program (by shape,
    /// alignment, adapter) and composes what it has no single kernel for.
    fn launch(&self, call: &KernelCall<'_, &Self::Storage>) -> Result<Self::Storage>;
    /// The fused optimizer update of several tensors of f32 (PyTorch's multi-tensor apply), in
    /// chunks the backend picks: each chunk holds the flat outputs (new parameters, then new
    /// states) of the next `count` tensors, tensor after tensor, or no outputs for tensors it
    /// cannot update (past one GPU binding: the optimizer runs those as separate ops).
    fn optim_multi(
        &self,
        step: &OptimStep,
        tensors: &[OptimTensor<'_, Self::Storage>],
    ) -> Result<Vec<OptimChunk<Self::Storage>>>;
}

/// One tensor of a multi-tensor optimizer update: its parameter, gradient and (after the first
/// step, `step.kind.states()`) states, each with the element offset its contiguous data starts
/// at, and its length.
pub(crate) struct OptimTensor<'a, S> {
    /// As [`Kernels::optim`]'s inputs.
    pub inputs: Vec<(&'a S, usize)>,
    /// Elements.
    pub n: usize,
}

/// The outputs of one launch of a multi-tensor update (see [`Kernels::optim_multi`]).
#[derive(Debug)]
pub(crate) struct OptimChunk<S> {
    /// The new parameters, then each new state, each flat over the chunk's tensors.
    pub outs: Vec<S>,
    /// How many tensors, in the order given, the chunk covers.
    pub count: usize,
}
