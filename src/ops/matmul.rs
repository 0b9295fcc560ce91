//! Matrix multiplication with PyTorch's `matmul` rules: vector·vector, matrix·vector, 2-D, and
//! batched with broadcast batch dims. Transposed operands are read through their strides, without
//! a copy.

use std::sync::Arc;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::op::unary::UnaryOp;
use crate::op::{MatOperand, MatmulArgs};
use crate::ops::grad::sum_to;
use crate::shape::broadcast_shapes;
use crate::tensor::Tensor;

/// The single stride that steps through all batch dims of `l` (its first `nb` dims), if one
/// exists: 0 when every batch dim is broadcast or size 1.
fn collapse_batch(l: &Layout, nb: usize) -> Option<usize> {
    let dims: Vec<(usize, usize)> =
        (0..nb).filter(|&i| l.shape()[i] != 1).map(|i| (l.shape()[i], l.strides()[i])).collect();
    if dims.windows(2).any(|w| w[0].1 != w[1].1 * w[1].0) {
        return None;
    }
    Some(dims.last().map_or(0, |d| d.1))
}

/// Expands `t` to `batch + [rows, cols]` and describes it as a matmul operand, copying only when
/// its batch dims cannot be walked with one stride.
fn operand(t: &Tensor, batch: &[usize]) -> Result<(Tensor, MatOperand)> {
    let r = t.rank();
    let mut shape = batch.to_vec();
    shape.extend_from_slice(&t.shape()[r - 2..]);
    let mut x = t.broadcast_to(&shape)?;
    let nb = batch.len();
    let bs = match collapse_batch(x.layout(), nb) {
        Some(s) => s,
        None => {
            x = x.contiguous()?;
            collapse_batch(x.layout(), nb).unwrap_or(0)
        }
    };
    let l = x.layout();
    let op = MatOperand {
        offset: l.offset(),
        batch_stride: bs,
        row_stride: l.strides()[nb],
        col_stride: l.strides()[nb + 1],
    };
    Ok((x, op))
}

impl Tensor {
    /// Matrix product with PyTorch's rules (1-D operands are promoted and the added dim removed;
    /// batch dims broadcast).
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        self.product(other, None, None)
    }

    /// `self @ other + bias`, `bias` `[n]` added to every row of the product: PyTorch's `addmm`,
    /// what `F.linear` runs. For a floating-point `[.., k] @ [k, n]` on one device the bias is
    /// the product kernel's epilogue (no pass or launch of its own); otherwise the product and
    /// an add (PyTorch's broadcasting).
    pub(crate) fn matmul_bias(&self, other: &Tensor, bias: &Tensor) -> Result<Tensor> {
        let (r, dtype) = (self.rank(), self.dtype());
        let fits = r >= 2
            && other.rank() == 2
            && bias.rank() == 1
            && self.shape()[r - 1] == other.shape()[0]
            && bias.shape()[0] == other.shape()[1]
            && dtype.is_float()
            && other.dtype() == dtype
            && bias.dtype() == dtype
            && other.device() == self.device()
            && bias.device() == self.device();
        if !fits {
            return self.matmul(other)?.add(bias);
        }
        self.product(other, Some(bias), None)
    }

    /// [`Tensor::matmul`], plus `bias` on every row where given (the caller checked it fits:
    /// see [`Tensor::matmul_bias`]). `redo` says how to compute `self` again (the folded
    /// product's rows of an activation: see [`Saved`]); by default `self`'s own.
    fn product(&self, other: &Tensor, bias: Option<&Tensor>, redo: Option<(UnaryOp, Tensor)>) -> Result<Tensor> {
        let op = if bias.is_some() { "addmm" } else { "matmul" };
        let device = self.same_device(other, op)?;
        if self.rank() == 0 || other.rank() == 0 {
            return Err(Error::ShapeMismatch {
                op,
                lhs: self.shape().to_vec(),
                rhs: other.shape().to_vec(),
                msg: "both arguments need at least one dimension".into(),
            });
        }
        let dtype = DType::promote(self.dtype(), other.dtype());
        if dtype == DType::Bool {
            return Err(Error::UnsupportedDType {
                op,
                dtype,
                reason: "matmul of bool tensors; convert with to_dtype(i32) or to_dtype(f32)".into(),
            });
        }
        if dtype.is_narrow() {
            // 8-bit integers multiply in i32 and wrap back, as every op on them does.
            return self.to_dtype(DType::I32)?.matmul(&other.to_dtype(DType::I32)?)?.to_dtype(dtype);
        }
        if self.rank() >= 3 && other.rank() == 2 && self.shape()[self.rank() - 1] == other.shape()[0] {
            return self.matmul_folded(other, bias);
        }
        let redo = redo.or_else(|| self.redo());
        let a = if self.rank() == 1 { self.unsqueeze(0)? } else { self.clone() };
        let b = if other.rank() == 1 { other.unsqueeze(-1)? } else { other.clone() };
        let (ra, rb) = (a.rank(), b.rank());
        let (m, k) = (a.shape()[ra - 2], a.shape()[ra - 1]);
        let (k2, n) = (b.shape()[rb - 2], b.shape()[rb - 1]);
        if k != k2 {
            return Err(Error::ShapeMismatch {
                op,
                lhs: self.shape().to_vec(),
                rhs: other.shape().to_vec(),
                msg: format!("the inner dimensions differ ({k} vs {k2}); expected [.., m, k] @ [.., k, n]"),
            });
        }
        let batch = broadcast_shapes(op, &a.shape()[..ra - 2], &b.shape()[..rb - 2])?;
        let mut out_shape = batch.clone();
        out_shape.extend([m, n]);
        crate::shape::checked_numel(op, &out_shape)?;
        let (a, b) = (a.to_dtype(dtype)?, b.to_dtype(dtype)?);
        let (a, ao) = operand(&a, &batch)?;
        let (b, bo) = operand(&b, &batch)?;
        crate::device::placement::record(op, &[self.device(), other.device()], device);
        let bias = bias.map(Tensor::contiguous).transpose()?;
        let bias_offset = bias.as_ref().map_or(0, |c| c.layout().offset());
        let args = MatmulArgs { batch: batch.iter().product(), m, n, k, a: ao, b: bo, bias_offset };
        let storage = a
            .storage()
            .matmul(b.storage(), bias.as_ref().map(|c| c.storage().as_ref()), &args, dtype)
            .map_err(|e| e.in_op(op))?;
        let mut shape = batch.clone();
        shape.extend([m, n]);
        // Over the expanded operands [batch.., m, k] @ [batch.., k, n]: dA = dY B^T, dB = A^T dY
        // (the broadcast and unsqueeze views above sum and reshape them back). An operand that
        // is a transposed view (`x @ w.t()` in Linear) gets its gradient computed transposed,
        // (dB^T = dY^T A), and handed back as a view: through the view's own backward it
        // arrives contiguous, as PyTorch lays gradients out like their parameters.
        // The bias's gradient is the output's summed over its rows, as an add's would be.
        let ta = Saved::of(&a, self, redo);
        let tb = b.clone();
        let (a_t, b_t) = (transposed(&a), transposed(&b));
        let mut inputs = vec![&a, &b];
        inputs.extend(bias.as_ref());
        let bias_shape = [n];
        let mut out = Tensor::from_op(storage, &shape, dtype, device, op, &inputs, |_| {
            Box::new(move |g, need| {
                let da = match (need[0], a_t) {
                    (false, _) => None,
                    (true, true) => Some(tb.matmul(&g.transpose(-2, -1)?)?.transpose(-2, -1)?),
                    (true, false) => Some(g.matmul(&tb.transpose(-2, -1)?)?),
                };
                let db = match (need[1], b_t) {
                    (false, _) => None,
                    (true, true) => Some(g.transpose(-2, -1)?.matmul(&ta.get()?)?.transpose(-2, -1)?),
                    (true, false) => Some(ta.get()?.transpose(-2, -1)?.matmul(g)?),
                };
                let mut grads = vec![da, db];
                if need.len() > 2 {
                    grads.push(if need[2] { Some(sum_to(g, &bias_shape)?) } else { None });
                }
                Ok(grads)
            })
        });
        if other.rank() == 1 {
            out = out.squeeze(Some(-1))?;
        }
        if self.rank() == 1 {
            out = out.squeeze(Some(if other.rank() == 1 { -1 } else { -2 }))?;
        }
        Ok(out)
    }

    /// `[batch.., m, k] @ [k, n]` as one `[batch * m, k] @ [k, n]` product, PyTorch's folding:
    /// the batch dims become rows (a view when they can be, else a copy), so the weight is
    /// never broadcast. Broadcast, its gradient would be a product per batch entry summed over
    /// the batch (every Linear over [B, T, C]: B weight-sized products and a reduction,
    /// 15% of a GPT training step on the CPU), where folded it is one `x^T dY`.
    fn matmul_folded(&self, other: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
        let r = self.rank();
        let k = self.shape()[r - 1];
        let lead: Vec<isize> = self.shape()[..r - 1].iter().map(|&s| s as isize).collect();
        let rows_shape = [lead.iter().product(), k as isize];
        let rows = self.reshape(&rows_shape)?;
        // An activation's rows are its input's rows, computed again (a view where contiguous).
        let redo = match self.redo() {
            Some((op, h)) if h.is_contiguous() => Some((op, h.reshape(&rows_shape)?)),
            _ => None,
        };
        let mut shape = lead;
        shape.push(other.shape()[1] as isize);
        rows.product(other, bias, redo)?.reshape(&shape)
    }
}

/// The left operand as a product's rule keeps it for the weight's gradient: the operand
/// itself, or, where it is an activation's output (GELU, SiLU: `Tensor::redo`), the
/// activation's input, which that activation's own rule keeps anyway, and the op to compute it
/// again in the backward pass. A Linear after an activation then holds no tensor of its own
/// through the forward: in nanoGPT's MLP the [B, T, 4C] GELU output, 100 MB a layer in the
/// Shakespeare recipe, is freed as soon as the product has read it. The recomputation is the
/// same op on the same input, so the gradients are the same bits.
enum Saved {
    Kept(Tensor),
    Redo(UnaryOp, Tensor),
}

impl Saved {
    /// `a` (the operand as the product read it, made from `self`) or how to compute it again:
    /// only where `a` is `self` itself, contiguous, and the input has its shape and dtype.
    fn of(a: &Tensor, this: &Tensor, redo: Option<(UnaryOp, Tensor)>) -> Saved {
        let same = Arc::ptr_eq(a.storage(), this.storage()) && a.layout() == this.layout() && a.is_contiguous();
        match redo {
            Some((op, h)) if same && h.shape() == a.shape() && h.dtype() == a.dtype() => Saved::Redo(op, h),
            _ => Saved::Kept(a.clone()),
        }
    }

    fn get(&self) -> Result<Tensor> {
        match self {
            Saved::Kept(t) => Ok(t.clone()),
            Saved::Redo(op, h) => h.unary(*op),
        }
    }
}

/// Whether the last two dims of `t` are laid out column-major (a transposed contiguous matrix).
fn transposed(t: &Tensor) -> bool {
    let (r, st, sh) = (t.rank(), t.layout().strides(), t.shape());
    r >= 2 && sh[r - 2] > 1 && sh[r - 1] > 1 && st[r - 2] == 1 && st[r - 1] != 1
}
