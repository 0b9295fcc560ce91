//! `Kernels` for CUDA: parameter packing and launches per family, and the cuBLAS matmul.

use std::ffi::{c_int, c_longlong, c_void};
use std::sync::Arc;

use cudarc::cublas::result::gemm_strided_batched_ex;
use cudarc::cublas::sys::{cublasComputeType_t, cublasGemmAlgo_t, cublasOperation_t, cudaDataType};

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
use crate::op::{IndexMode, MapOp, MatOperand, MatmulArgs, MatmulProgram};
use crate::shaders::{accumulator, params, KernelKey, Walk, WG};

/// Rows this short are reduced one thread per row (reduce_small.cu).
const SMALL_ROW: usize = 64;
/// Elements one reduction block folds per pass.
const REDUCE_CHUNK: usize = 16384;
/// Grid-stride loops cover any size; more blocks than this only add scheduling.
const MAX_BLOCKS: usize = 1 << 20;

/// A 1-D grid of `WG`-thread blocks covering `n` items (at least one block).
fn grid(n: usize) -> (u32, u32, u32) {
    (n.div_ceil(WG as usize).clamp(1, MAX_BLOCKS) as u32, 1, 1)
}

const BLOCK: (u32, u32, u32) = (WG, 1, 1);

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
    fn contiguous(self: &Arc<Self>, s: &CudaStorage, l: &Layout) -> Result<CudaStorage> {
        self.map(s, l, MapOp::Cast, s.dtype())
    }

    fn matmul_blas(
        &self,
        a: &CudaStorage,
        b: &CudaStorage,
        c: &CudaStorage,
        g: &MatmulArgs,
        plan: &GemmPlan,
        accumulate: bool,
    ) -> Result<()> {
        let dtype = a.dtype();
        let ty = if dtype == DType::F16 { cudaDataType::CUDA_R_16F } else { cudaDataType::CUDA_R_32F };
        let compute = if dtype == DType::F32 && super::allow_tf32() {
            cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32
        } else {
            cublasComputeType_t::CUBLAS_COMPUTE_32F
        };
        // With `accumulate`, C's values (a broadcast bias) are added to the product.
        let (alpha, beta) = (1.0f32, if accumulate { 1.0f32 } else { 0.0 });
        let int = |x: usize| {
            c_int::try_from(x).map_err(|_| Error::invalid("matmul", "a dimension past 2^31 is beyond cuBLAS"))
        };
        let (n, m, k, ldb, lda, batch) =
            (int(g.n)?, int(g.m)?, int(g.k)?, int(plan.b.ld)?, int(plan.a.ld)?, int(g.batch)?);
        self.bind()?;
        self.launches.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS's first operand is B.
        // SAFETY: the pointers address live blocks sized for these strides (the op layer
        // checked the geometry); alpha and beta are host f32s, as CUBLAS_COMPUTE_32F wants.
        let r = super::discover::guarded("cuBLAS", || unsafe {
            gemm_strided_batched_ex(
                *self.blas.handle(),
                plan.b.op,
                plan.a.op,
                n,
                m,
                k,
                &alpha as *const f32 as *const c_void,
                b.ptr(g.b.offset) as *const c_void,
                ty,
                ldb,
                g.b.batch_stride as c_longlong,
                a.ptr(g.a.offset) as *const c_void,
                ty,
                lda,
                g.a.batch_stride as c_longlong,
                &beta as *const f32 as *const c_void,
                c.ptr(0) as *mut c_void,
                ty,
                n,
                (g.m * g.n) as c_longlong,
                batch,
                compute,
                cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
            .map_err(|e| format!("{e:?}"))
        });
        r.map_err(|msg| Error::Gpu { device: self.name(), msg: format!("cuBLAS matmul: {msg}") })?;
        if crate::device::policy::launch_blocking() {
            self.synchronize()?;
        }
        Ok(())
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

/// How cuBLAS reads one row-major `rows x cols` operand as its column-major transpose.
#[derive(Debug, Clone, Copy, PartialEq)]
struct BlasOperand {
    op: cublasOperation_t,
    ld: usize,
}

/// Both operands of a cuBLAS matmul.
#[derive(Debug, Clone, Copy, PartialEq)]
struct GemmPlan {
    a: BlasOperand,
    b: BlasOperand,
}

/// A row-major `rows x cols` matrix with these strides, as cuBLAS sees its transpose: rows
/// contiguous is a column-major `cols x rows` matrix (no transpose); columns contiguous is a
/// column-major `rows x cols` one (transpose). Any other stride pattern needs a copy. A
/// dimension of size 1 may have any stride.
fn blas_operand(rows: usize, cols: usize, o: &MatOperand) -> Option<BlasOperand> {
    if cols == 1 || o.col_stride == 1 {
        let ld = if rows == 1 { cols } else { o.row_stride };
        (ld >= cols.max(1)).then_some(BlasOperand { op: cublasOperation_t::CUBLAS_OP_N, ld })
    } else if rows == 1 || o.row_stride == 1 {
        let ld = if cols == 1 { rows } else { o.col_stride };
        (ld >= rows.max(1)).then_some(BlasOperand { op: cublasOperation_t::CUBLAS_OP_T, ld })
    } else {
        None
    }
}

fn gemm_plan(g: &MatmulArgs) -> (Option<BlasOperand>, Option<BlasOperand>) {
    (blas_operand(g.m, g.k, &g.a), blas_operand(g.k, g.n, &g.b))
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

    /// `a @ b` (+ `bias` on every row: floats only, which the op guarantees): cuBLAS for
    /// floats, the bias broadcast into C first and added by the product (beta = 1); the
    /// kernels for integers.
    pub(crate) fn matmul(
        self: &Arc<Self>,
        a: &CudaStorage,
        b: &CudaStorage,
        bias: Option<&CudaStorage>,
        g: &MatmulArgs,
    ) -> Result<CudaStorage> {
        let dtype = a.dtype();
        let total = g.batch * g.m * g.n;
        if bias.is_some() && !dtype.is_float() {
            return Err(Error::invalid("addmm", "internal: a bias on an integer matmul"));
        }
        let rows = Layout::strided(&[g.batch * g.m, g.n], &[0, 1], g.bias_offset);
        if total == 0 || g.k == 0 {
            // An empty inner dimension sums nothing: the product is all zeros (plus the bias).
            return match bias {
                Some(bias) if total > 0 => self.contiguous(bias, &rows),
                _ => self.fill(total, Fill::Value(0.0), dtype),
            };
        }
        if dtype.is_float() {
            let out = match bias {
                Some(bias) => self.contiguous(bias, &rows)?,
                None => self.alloc(total, dtype)?,
            };
            let mut g = *g;
            let (mut pa, mut pb) = gemm_plan(&g);
            // An operand cuBLAS cannot stride through is copied to a contiguous one first.
            let (ca, cb);
            let a = if pa.is_none() {
                let l = operand_layout(g.batch, g.m, g.k, &g.a);
                ca = self.contiguous(a, &l)?;
                g.a = MatOperand { offset: 0, batch_stride: g.m * g.k, row_stride: g.k, col_stride: 1 };
                pa = blas_operand(g.m, g.k, &g.a);
                &ca
            } else {
                a
            };
            let b = if pb.is_none() {
                let l = operand_layout(g.batch, g.k, g.n, &g.b);
                cb = self.contiguous(b, &l)?;
                g.b = MatOperand { offset: 0, batch_stride: g.k * g.n, row_stride: g.n, col_stride: 1 };
                pb = blas_operand(g.k, g.n, &g.b);
                &cb
            } else {
                b
            };
            let (Some(pa), Some(pb)) = (pa, pb) else {
                return Err(Error::invalid("matmul", "internal: a contiguous operand has no cuBLAS layout"));
            };
            self.matmul_blas(a, b, &out, &g, &GemmPlan { a: pa, b: pb }, bias.is_some())?;
            return Ok(out);
        }
        // Integers: the kernels, which wrap on overflow like the CPU; tiles unless the shape is
        // skinny (see MatmulProgram).
        let out = self.alloc(total, dtype)?;
        let program = g.program();
        if program != MatmulProgram::Tiled {
            let p = params::matmul_items(g, total, false);
            let launch = if program == MatmulProgram::Dot { (grid(total * WG as usize).0, 1, 1) } else { grid(total) };
            let key = KernelKey::Matmul { dtype, program, bias: false };
            self.launch(key, &[a.ptr(0), b.ptr(0), out.ptr(0)], &p, launch, BLOCK)?;
            return Ok(out);
        }
        const TILE: usize = 16;
        let mut base = 0;
        while base < g.batch {
            let count = (g.batch - base).min(65535);
            let p = params::matmul(g, base);
            let gx = u32::try_from(g.n.div_ceil(TILE)).map_err(|_| Error::invalid("matmul", "too many columns"))?;
            let gy = u32::try_from(g.m.div_ceil(TILE)).map_err(|_| Error::invalid("matmul", "too many rows"))?;
            if gy > 65535 {
                return Err(Error::invalid(
                    "matmul",
                    format!("an integer matmul with {} rows is past the kernel's grid (65535 * 16 rows)", g.m),
                ));
            }
            let ptrs = [a.ptr(0), b.ptr(0), out.ptr(0)];
            self.launch(
                KernelKey::Matmul { dtype, program, bias: false },
                &ptrs,
                &p,
                (gx, gy, count as u32),
                (TILE as u32, TILE as u32, 1),
            )?;
            base += count;
        }
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

/// The strided `[batch, rows, cols]` view of one matmul operand.
fn operand_layout(batch: usize, rows: usize, cols: usize, o: &MatOperand) -> Layout {
    Layout::strided(&[batch, rows, cols], &[o.batch_stride, o.row_stride, o.col_stride], o.offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(offset: usize, batch_stride: usize, row_stride: usize, col_stride: usize) -> MatOperand {
        MatOperand { offset, batch_stride, row_stride, col_stride }
    }

    #[test]
    fn blas_reads_row_major_and_transposed_operands() {
        let n = cublasOperation_t::CUBLAS_OP_N;
        let t = cublasOperation_t::CUBLAS_OP_T;
        // A contiguous [3, 4]: rows contiguous, leading dimension 4.
        assert_eq!(blas_operand(3, 4, &op(0, 12, 4, 1)), Some(BlasOperand { op: n, ld: 4 }));
        // Its transpose view [4, 3] with strides (1, 4): columns contiguous.
        assert_eq!(blas_operand(4, 3, &op(0, 12, 1, 4)), Some(BlasOperand { op: t, ld: 4 }));
        // A column slice of a wider matrix keeps its parent's leading dimension.
        assert_eq!(blas_operand(3, 2, &op(1, 0, 10, 1)), Some(BlasOperand { op: n, ld: 10 }));
        // A single row may have any row stride.
        assert_eq!(blas_operand(1, 5, &op(0, 5, 0, 1)), Some(BlasOperand { op: n, ld: 5 }));
        // Every-other-element strides need a copy.
        assert_eq!(blas_operand(3, 4, &op(0, 24, 8, 2)), None);
        // Overlapping rows (leading dimension below the row length) are refused.
        assert_eq!(blas_operand(3, 4, &op(0, 0, 2, 1)), None);
    }
}
