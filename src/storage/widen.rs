//! u8 and i8 are stored, moved, filled and cast by every backend, but computed on their i32
//! widening: no kernel family but fill, cast and cat ever sees them. Each call with 8-bit
//! operands is run here on their widenings (one place for every backend), and the i32 result
//! narrowed back where the op keeps the dtype (keeping the low 8 bits, so arithmetic wraps as
//! PyTorch's).

use std::borrow::Cow;

use super::Storage;
use crate::device::backend::{KernelCall, Operand};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::op::MapOp;

/// An operand's elements widened to i32, with their (contiguous) layout.
fn widen(o: &Operand<&Storage>) -> Result<(Storage, Layout)> {
    Ok((cast(o.s, &o.l, DType::I32)?, Layout::contiguous(o.l.shape())))
}

/// `s` read through `l`, cast to a contiguous `dst` (8-bit and i32 data: never lazy).
fn cast(s: &Storage, l: &Layout, dst: DType) -> Result<Storage> {
    let from = s.dtype_or(dst);
    Storage::launch(KernelCall::Map { src: Operand::new(s, l), op: MapOp::Cast, from, dst }, None)
}

/// A widened operand as the call's operand.
fn operand<'a>(w: &'a (Storage, Layout)) -> Operand<'a, &'a Storage> {
    Operand { s: &w.0, l: Cow::Borrowed(&w.1) }
}

/// This contiguous i32 result of `shape`, narrowed back to `dtype`.
fn narrow(out: Storage, shape: &[usize], dtype: DType) -> Result<Storage> {
    cast(&out, &Layout::contiguous(shape), dtype)
}

impl Storage {
    /// `call` over i32 widenings of its 8-bit operands, narrowed back; None when it has none
    /// to widen.
    pub(super) fn widened(call: &KernelCall<'_, &Storage>, device: Option<Device>) -> Option<Result<Storage>> {
        let narrow_out = |dtype: DType| match call {
            KernelCall::Binary { op, .. } | KernelCall::BinaryScalar { op, .. } if op.is_comparison() => None,
            _ => Some(dtype),
        };
        let run = |dtype: DType| -> Result<Storage> {
            let wide = widen_call(call, device)?;
            let (shape, _) = call.output();
            match narrow_out(dtype) {
                Some(d) => narrow(wide, &shape, d),
                None => Ok(wide),
            }
        };
        match *call {
            KernelCall::Map { op: MapOp::Unary(_), dst, .. } if dst.is_narrow() => Some(run(dst)),
            KernelCall::Binary { dtype, .. }
            | KernelCall::BinaryScalar { dtype, .. }
            | KernelCall::Where { dtype, .. }
            | KernelCall::Index { dtype, .. }
            | KernelCall::IndexAdd { dtype, .. }
            | KernelCall::Cat { dtype, .. }
                if dtype.is_narrow() =>
            {
                Some(run(dtype))
            }
            KernelCall::Reduce { dtype, out, .. } if dtype.is_narrow() => Some(match out.is_narrow() {
                true => run(out),
                false => widen_call(call, device),
            }),
            KernelCall::Argsort { dtype, .. } if dtype.is_narrow() => Some(widen_call(call, device)),
            _ => None,
        }
    }
}

/// `call` with its 8-bit operands widened and its dtypes i32 (a reduction's output keeps a
/// wider dtype it already has).
fn widen_call(call: &KernelCall<'_, &Storage>, device: Option<Device>) -> Result<Storage> {
    let i32 = DType::I32;
    match call {
        KernelCall::Map { src, op, .. } => {
            let w = widen(src)?;
            Storage::launch(KernelCall::Map { src: operand(&w), op: *op, from: i32, dst: i32 }, device)
        }
        KernelCall::Binary { op, a, b, shape, .. } => {
            let (wa, wb) = (widen(a)?, widen(b)?);
            let call =
                KernelCall::Binary { op: *op, a: operand(&wa), b: operand(&wb), shape: shape.clone(), dtype: i32 };
            Storage::launch(call, device)
        }
        KernelCall::BinaryScalar { op, a, value, .. } => {
            let w = widen(a)?;
            Storage::launch(KernelCall::BinaryScalar { op: *op, a: operand(&w), value: *value, dtype: i32 }, device)
        }
        KernelCall::Where { c, a, b, shape, .. } => {
            let (wa, wb) = (widen(a)?, widen(b)?);
            let (a, b) = (operand(&wa), operand(&wb));
            Storage::launch(KernelCall::Where { c: c.clone(), a, b, shape: shape.clone(), dtype: i32 }, device)
        }
        KernelCall::Reduce { op, src, m, k, out, .. } => {
            let w = widen(src)?;
            let out = if out.is_narrow() { i32 } else { *out };
            Storage::launch(KernelCall::Reduce { op: *op, src: operand(&w), m: *m, k: *k, dtype: i32, out }, device)
        }
        KernelCall::Argsort { src, m, k, descending, keep, .. } => {
            let w = widen(src)?;
            let call = KernelCall::Argsort {
                src: operand(&w),
                m: *m,
                k: *k,
                descending: *descending,
                keep: *keep,
                dtype: i32,
            };
            Storage::launch(call, device)
        }
        KernelCall::Index { mode, src, idx, dim, shape, .. } => {
            let w = widen(src)?;
            let call = KernelCall::Index {
                mode: *mode,
                src: operand(&w),
                idx: idx.clone(),
                dim: *dim,
                shape: shape.clone(),
                dtype: i32,
            };
            Storage::launch(call, device)
        }
        KernelCall::IndexAdd { mode, src, idx, dim, shape, assign, .. } => {
            let w = widen(src)?;
            let call = KernelCall::IndexAdd {
                mode: *mode,
                src: operand(&w),
                idx: idx.clone(),
                dim: *dim,
                shape: shape.clone(),
                dtype: i32,
                assign: *assign,
            };
            Storage::launch(call, device)
        }
        KernelCall::Cat { parts, dim, shape, .. } => {
            let wide = parts.iter().map(widen).collect::<Result<Vec<_>>>()?;
            let parts = wide.iter().map(operand).collect();
            Storage::launch(KernelCall::Cat { parts, dim: *dim, shape: shape.clone(), dtype: i32 }, device)
        }
        // Nothing else reaches here (see `Storage::widened`).
        other => Storage::launch(other.clone(), device),
    }
}
