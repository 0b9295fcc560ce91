//! The CUDA matmul: cuBLAS for floats (operands it cannot stride through copied first, a bias
//! broadcast into C and added with beta = 1), the kernels for integers.

use std::ffi::{c_int, c_longlong, c_void};
use std::sync::Arc;

use cudarc::cublas::result::gemm_strided_batched_ex;
use cudarc::cublas::sys::{cublasComputeType_t, cublasGemmAlgo_t, cublasOperation_t, cudaDataType};

use super::context::CudaDevice;
use super::kernels::{grid, BLOCK};
use super::pool::CudaStorage;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::op::fill::Fill;
use crate::op::{MatOperand, MatmulArgs, MatmulProgram};
use crate::shaders::{params, KernelKey, WG};

impl CudaDevice {
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
