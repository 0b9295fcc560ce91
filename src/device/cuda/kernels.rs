//! `Kernels` for CUDA: parameter packing and launches per family (the matmul in matmul.rs).

use std::sync::Arc;

use super::context::CudaDevice;
use super::pool::CudaStorage;
use crate::device::backend::Operand;
use crate::dtype::{CpuData, DType};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::op::binary::BinaryOp;
use crate::op::fill::Fill;
use crate::op::optim::OptimStep;
use crate::op::param_layout::KernelParams;
use crate::op::params::*;
use crate::op::reduce::{strided_params, InPlace, ReduceOp};
use crate::op::sort::{bitonic_steps, SelectPlan};
use crate::op::{IndexMode, MapOp};
use crate::shaders::{accumulator, params, KernelKey, Walk, WG};

/// Rows this short are reduced one thread per row (reduce_small.cu).
const SMALL_ROW: usize = 64;
/// Elements one reduction block folds per pass.
const REDUCE_CHUNK: usize = 16384;
/// Grid-stride loops cover any size; more blocks than this only add scheduling.
const MAX_BLOCKS: usize = 1 << 20;

/// A 1-D grid of `WG`-thread blocks covering `n` items (at least one block).
pub(super) fn grid(n: usize) -> (u32, u32, u32) {
    (n.div_ceil(WG as usize).clamp(1, MAX_BLOCKS) as u32, 1, 1)
}

pub(super) const BLOCK: (u32, u32, u32) = (WG, 1, 1);

/// Threads a top-k selection pass aims for (op::sort::select_chunks).
const SELECT_THREADS: usize = 16384;

impl CudaDevice {
    /// dst[dl] = op(src[sl]) elementwise over `sl`'s shape.
    pub(super) fn launch_map(
        &self,
        op: MapOp,
        src: &CudaStorage,
        sl: &Layout,
        dst: &CudaStorage,
        dl: &Layout,
    ) -> Result<()> {
        let n = sl.numel();
        if n == 0 {
            return Ok(());
        }
        let p = params::map(sl, dl)?;
        let key = KernelKey::Map { op, src: src.dtype(), dst: dst.dtype(), walk: Walk::DYNAMIC };
        self.launch(key, &[src.ptr(0), dst.ptr(0)], &p, grid(n), BLOCK)
    }

    /// A contiguous copy of an operand whose strides cuBLAS cannot express.
    pub(super) fn contiguous(self: &Arc<Self>, s: &CudaStorage, l: &Layout) -> Result<CudaStorage> {
        self.map(s, l, MapOp::Cast, s.dtype())
    }

    /// One thread per output element of an index-family kernel (`index`, `index_add`) over a
    /// source and an index buffer, into a fresh output of `n` elements of the source's dtype.
    fn launch_indexed<P: KernelParams>(
        self: &Arc<Self>,
        key: KernelKey,
        params: &P,
        src: &CudaStorage,
        idx: &CudaStorage,
        n: usize,
    ) -> Result<CudaStorage> {
        let out = self.alloc(n, src.dtype())?;
        if n == 0 {
            return Ok(out);
        }
        self.launch(key, &[src.ptr(0), idx.ptr(0), out.ptr(0)], params, grid(n), BLOCK)?;
        Ok(out)
    }
}

fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

impl CudaDevice {
    /// The first `keep` (at most `op::sort::SELECT_MAX_KEEP`) positions of each row of a
    /// contiguous [m, k] view in the stable sort's order, as i32 [m, keep] (select.cu, two
    /// launches when rows are cut into chunks; as wgpu's `select_top`).
    pub(crate) fn select_top(
        self: &Arc<Self>,
        src: &CudaStorage,
        l: &Layout,
        (m, k): (usize, usize),
        descending: bool,
        keep: usize,
    ) -> Result<CudaStorage> {
        if m * keep == 0 {
            return self.alloc(0, DType::I32);
        }
        let plan = SelectPlan::new((m, k), l.offset(), descending, keep, SELECT_THREADS)?;
        let key = KernelKey::Select { dtype: src.dtype() };
        let first = self.alloc(m * plan.nchunks * keep, DType::I32)?;
        let p = plan.params(false);
        self.launch(key, &[src.ptr(0), src.ptr(0), first.ptr(0)], &p, grid(m * plan.nchunks), BLOCK)?;
        if plan.nchunks == 1 {
            return Ok(first);
        }
        let out = self.alloc(m * keep, DType::I32)?;
        self.launch(key, &[src.ptr(0), first.ptr(0), out.ptr(0)], &plan.params(true), grid(m), BLOCK)?;
        Ok(out)
    }
}

/// CUDA's kernel families (`launch.rs` dispatches a `KernelCall` to them).
impl CudaDevice {
    pub(crate) fn upload(self: &Arc<Self>, data: &CpuData) -> Result<CudaStorage> {
        self.upload_with(data, false)
    }

    pub(crate) fn fill(self: &Arc<Self>, n: usize, value: Fill, dtype: DType) -> Result<CudaStorage> {
        let out = self.alloc(n, dtype)?;
        if n > 0 {
            let p = params::fill(n, value, dtype, 0);
            self.launch(KernelKey::Fill { dtype }, &[out.ptr(0)], &p, grid(n), BLOCK)?;
        }
        Ok(out)
    }

    pub(crate) fn map(self: &Arc<Self>, src: &CudaStorage, l: &Layout, op: MapOp, dst: DType) -> Result<CudaStorage> {
        let out = self.alloc(l.numel(), dst)?;
        self.launch_map(op, src, l, &out, &Layout::contiguous(l.shape()))?;
        Ok(out)
    }

    pub(crate) fn binary(
        self: &Arc<Self>,
        op: BinaryOp,
        a: &CudaStorage,
        la: &Layout,
        b: &CudaStorage,
        lb: &Layout,
        shape: &[usize],
    ) -> Result<CudaStorage> {
        let dtype = a.dtype();
        let n = numel(shape);
        let out = self.alloc(n, op.out_dtype(dtype))?;
        if n == 0 {
            return Ok(out);
        }
        let p = params::binary(op.name(), la, lb, shape)?;
        self.launch(
            KernelKey::Binary { op, dtype, walk: Walk::DYNAMIC },
            &[a.ptr(0), b.ptr(0), out.ptr(0)],
            &p,
            grid(n),
            BLOCK,
        )?;
        Ok(out)
    }

    pub(crate) fn binary_scalar(
        self: &Arc<Self>,
        op: BinaryOp,
        a: &CudaStorage,
        la: &Layout,
        value: f64,
    ) -> Result<Option<CudaStorage>> {
        let (dtype, n) = (a.dtype(), la.numel());
        if !la.is_contiguous() || n == 0 {
            return Ok(None);
        }
        let out = self.alloc(n, op.out_dtype(dtype))?;
        let p =
            ScalarParams { count: n, offset: la.offset(), bits: crate::shaders::scalar_bits(value, dtype) as usize };
        self.launch(KernelKey::BinaryScalar { op, dtype }, &[a.ptr(0), out.ptr(0)], &p, grid(n), BLOCK)?;
        Ok(Some(out))
    }

    pub(crate) fn where_(
        self: &Arc<Self>,
        c: &Operand<&CudaStorage>,
        a: &Operand<&CudaStorage>,
        b: &Operand<&CudaStorage>,
        shape: &[usize],
    ) -> Result<CudaStorage> {
        let (lc, la, lb) = (&*c.l, &*a.l, &*b.l);
        let (c, a, b) = (c.s, a.s, b.s);
        let dtype = a.dtype();
        let n = numel(shape);
        let out = self.alloc(n, dtype)?;
        if n == 0 {
            return Ok(out);
        }
        let p = params::where_(lc, la, lb, shape)?;
        let ptrs = [c.ptr(0), a.ptr(0), b.ptr(0), out.ptr(0)];
        self.launch(KernelKey::Where { dtype, walk: Walk::DYNAMIC }, &ptrs, &p, grid(n), BLOCK)?;
        Ok(out)
    }

    pub(crate) fn reduce(
        self: &Arc<Self>,
        op: ReduceOp,
        src: &CudaStorage,
        l: &Layout,
        m: usize,
        k: usize,
    ) -> Result<CudaStorage> {
        let dtype = src.dtype();
        let out_dtype = op.output_dtype(dtype);
        if !l.is_contiguous() {
            // A strided view ([kept.., reduced..]): one thread per output in place when the
            // outputs are many and each folds few elements (InPlace), else gathered and
            // reduced as rows.
            if let Some(p) = strided_params(l, m, InPlace::hardware(true)) {
                let out = self.alloc(m, out_dtype)?;
                let key = KernelKey::ReduceStrided { op, src: dtype, dst: out_dtype };
                self.launch(key, &[src.ptr(0), out.ptr(0)], &p, grid(m), BLOCK)?;
                return Ok(out);
            }
            let rows = self.map(src, l, MapOp::Cast, dtype)?;
            return self.reduce(op, &rows, &Layout::contiguous(l.shape()), m, k);
        }
        let out = self.alloc(m, out_dtype)?;
        if m == 0 {
            return Ok(out);
        }
        if k <= SMALL_ROW {
            let key = KernelKey::ReduceSmall { op, src: dtype, dst: out_dtype };
            let p = ReduceSmallParams { rows: m, k, offset: l.offset(), chunks: 1 };
            self.launch(key, &[src.ptr(0), out.ptr(0)], &p, grid(m), BLOCK)?;
            return Ok(out);
        }
        // Long rows fold in passes of REDUCE_CHUNK into an accumulator-typed temporary; an
        // arg-reduction keeps whole rows in one pass so indices stay global.
        let mut temp: Option<CudaStorage> = None;
        let (mut k, mut off, mut sd) = (k, l.offset(), dtype);
        loop {
            let nchunks = if op.is_arg() { 1 } else { k.div_ceil(REDUCE_CHUNK).max(1) };
            let chunk = if nchunks == 1 { k.max(1) } else { REDUCE_CHUNK };
            let src_ptr = temp.as_ref().map_or(src.ptr(0), |t| t.ptr(0));
            let p = ReduceParams { rows: m, k, chunk, chunks: nchunks, offset: off };
            let blocks = (m * nchunks).clamp(1, MAX_BLOCKS) as u32;
            if nchunks == 1 {
                let key = KernelKey::Reduce { op, src: sd, dst: out_dtype };
                self.launch(key, &[src_ptr, out.ptr(0)], &p, (blocks, 1, 1), BLOCK)?;
                return Ok(out);
            }
            let acc = accumulator(dtype);
            let next = self.alloc(m * nchunks, acc)?;
            let key = KernelKey::Reduce { op, src: sd, dst: acc };
            self.launch(key, &[src_ptr, next.ptr(0)], &p, (blocks, 1, 1), BLOCK)?;
            temp = Some(next);
            (k, off, sd) = (nchunks, 0, acc);
        }
    }

    pub(crate) fn softmax(
        self: &Arc<Self>,
        src: &CudaStorage,
        l: &Layout,
        m: usize,
        k: usize,
        log: bool,
    ) -> Result<CudaStorage> {
        let dtype = src.dtype();
        let out = self.alloc(m * k, dtype)?;
        if m * k > 0 {
            let p = SoftmaxParams { rows: m, k, offset: l.offset(), serial: 0 };
            let blocks = m.clamp(1, MAX_BLOCKS) as u32;
            self.launch(KernelKey::Softmax { log, dtype }, &[src.ptr(0), out.ptr(0)], &p, (blocks, 1, 1), BLOCK)?;
        }
        Ok(out)
    }

    pub(crate) fn argsort(
        self: &Arc<Self>,
        src: &CudaStorage,
        l: &Layout,
        m: usize,
        k: usize,
        descending: bool,
    ) -> Result<CudaStorage> {
        if m * k == 0 {
            return self.alloc(0, DType::I32);
        }
        // The bitonic network of sort.cu over rows padded to a power of two.
        let np = k.next_power_of_two();
        let work = self.alloc(m * np, DType::I32)?;
        let key = KernelKey::Sort { dtype: src.dtype() };
        let step = |kk: usize, j: usize, threads: usize| {
            let p = SortParams { rows: m, len: k, np, offset: l.offset(), descending: descending as usize, kk, j };
            self.launch(key, &[src.ptr(0), work.ptr(0)], &p, grid(threads), BLOCK)
        };
        step(0, 0, m * np)?;
        for (kk, j) in bitonic_steps(np) {
            step(kk, j, m * np / 2)?;
        }
        if np == k {
            return Ok(work);
        }
        let out = self.alloc(m * k, DType::I32)?;
        let rows = Layout::contiguous(&[m, np]).narrow("argsort", 1, 0, k)?;
        self.launch_map(MapOp::Cast, &work, &rows, &out, &Layout::contiguous(&[m, k]))?;
        Ok(out)
    }

    pub(crate) fn index(
        self: &Arc<Self>,
        mode: IndexMode,
        src: &Operand<&CudaStorage>,
        idx: &Operand<&CudaStorage>,
        dim: usize,
        shape: &[usize],
    ) -> Result<CudaStorage> {
        let (l, li) = (&*src.l, &*idx.l);
        let (src, idx) = (src.s, idx.s);
        let key = KernelKey::Index { dtype: src.dtype(), index: idx.dtype(), walk: Walk::DYNAMIC };
        self.launch_indexed(key, &params::index(mode, l, li, dim, shape)?, src, idx, numel(shape))
    }

    pub(crate) fn index_add(
        self: &Arc<Self>,
        (mode, assign): (IndexMode, bool),
        src: &Operand<&CudaStorage>,
        idx: &Operand<&CudaStorage>,
        dim: usize,
        shape: &[usize],
    ) -> Result<CudaStorage> {
        let (l, li) = (&*src.l, &*idx.l);
        let (src, idx) = (src.s, idx.s);
        let key = KernelKey::IndexAdd { dtype: src.dtype(), index: idx.dtype(), walk: Walk::DYNAMIC };
        self.launch_indexed(key, &params::index_add(mode, l, li, dim, shape, assign)?, src, idx, numel(shape))
    }

    pub(crate) fn fused_optim(
        self: &Arc<Self>,
        step: &OptimStep,
        inputs: &[(&CudaStorage, usize)],
        n: usize,
    ) -> Result<Vec<CudaStorage>> {
        let states = step.kind.states();
        let outs = (0..=states).map(|_| self.alloc(n, DType::F32)).collect::<Result<Vec<_>>>()?;
        let Some(&(g, g_off)) = inputs.get(1) else {
            return Err(Error::invalid("optimizer step", "needs a parameter and its gradient"));
        };
        if n == 0 {
            return Ok(outs);
        }
        // The kernel always takes p, g, s0, s1 and three outputs: on the first step (or where
        // the variant has fewer states) the gradient stands in for a missing input and the
        // parameter's output for a missing output; neither is touched.
        let mut ptrs: Vec<u64> = (0..4).map(|i| inputs.get(i).map_or(g.ptr(g_off), |(s, off)| s.ptr(*off))).collect();
        let first = outs.first().map_or(0, |o| o.ptr(0));
        ptrs.extend((0..3).map(|i| outs.get(i).map_or(first, |o| o.ptr(0))));
        // The pointers carry the offsets; the kernel reads no offset words.
        self.launch(KernelKey::Optim { kind: step.kind }, &ptrs, &step.params(n), grid(n), BLOCK)?;
        Ok(outs)
    }

    pub(crate) fn cat(
        self: &Arc<Self>,
        parts: &[Operand<&CudaStorage>],
        dim: usize,
        shape: &[usize],
        dtype: DType,
    ) -> Result<CudaStorage> {
        let out = self.alloc(numel(shape), dtype)?;
        let dst = Layout::contiguous(shape);
        let mut start = 0;
        for part in parts {
            let len = part.l.shape()[dim];
            let region = dst.narrow("cat", dim as isize, start, len)?;
            self.launch_map(MapOp::Cast, part.s, &part.l, &out, &region)?;
            start += len;
        }
        Ok(out)
    }
}
