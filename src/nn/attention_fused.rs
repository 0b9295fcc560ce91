//! The fused path of [`super::scaled_dot_product_attention`]: one kernel call for the forward
//! and one for the backward (the attention family, `op::fused::attention`), which never store the
//! `[.., L, S]` scores or probabilities: the backward recomputes them from each query row's
//! log-sum-exp. The values equal the composed formula's (safe softmax for rows that may
//! attend to nothing, dropout from the same generator and counters).

use crate::creation::next_seed;
use crate::device::policy::FusedKernels;
use crate::error::Result;
use crate::op::fused::attention::{AttentionArgs, RowsView};
use crate::op::fused::Fused as FusedCall;
use crate::storage::Storage;
use crate::tensor::node::BackwardFn;
use crate::tensor::Tensor;
use crate::DType;

/// What the fused path takes beyond the operands.
pub(super) struct Fused<'a> {
    pub mask: Option<&'a Tensor>,
    pub causal: bool,
    pub scale: f64,
    pub dropout_p: f64,
    pub seed: Option<u64>,
}

/// `t` as `[n1, n2, rows, cols]` with a unit last stride (a view where it can be), and where
/// its rows are.
fn rows4(t: &Tensor) -> Result<(Tensor, RowsView)> {
    let mut x = t.clone();
    while x.rank() < 4 {
        x = x.unsqueeze(0)?;
    }
    if x.layout().strides()[3] != 1 && x.shape()[3] > 1 {
        x = x.contiguous()?;
    }
    let st = x.layout().strides();
    let view = RowsView { offset: x.layout().offset(), s0: st[0], s1: st[1], s2: st[2] };
    Ok((x, view))
}

/// Whether the fused kernels are wanted on `device` for rows `width` wide (`set_fused_kernels`,
/// and by default where they pay).
fn wanted(device: crate::Device, width: usize) -> bool {
    match crate::device::policy::fused_kernels() {
        FusedKernels::Always => true,
        FusedKernels::Never => false,
        FusedKernels::Auto => crate::device::Backend::fused_attention_pays(device, tiled_rows(width)),
    }
}

/// Whether the GPU programs take rows `width` wide tiled (`AttentionArgs::tiled_width`).
fn tiled_rows(width: usize) -> bool {
    crate::op::fused::attention::TILED_WIDTHS.iter().any(|&t| width <= t as usize)
}

/// The fused attention, or `None` where it does not apply and the caller composes: dtypes
/// other than f32, batch dims that differ between query, key and value (they broadcast in the
/// composed form), more than two batch dims, empty operands, a float mask that requires grad,
/// a mask that does not broadcast (the composed form reports it), dropout of 1, devices where
/// the kernels lose to the composed formula (`Backend::fused_attention_pays`: hardware GPUs
/// for rows wider than the tiled programs take) unless `set_fused_kernels(Always)`, and `Never`.
pub(super) fn attention(q: &Tensor, k: &Tensor, v: &Tensor, o: &Fused) -> Result<Option<Tensor>> {
    let device = q.device();
    let (r, rk, rv) = (q.rank(), k.rank(), v.rank());
    let batch = &q.shape()[..r - 2];
    let f32s = [q, k, v].iter().all(|t| t.dtype() == DType::F32);
    let mask_ok = o
        .mask
        .is_none_or(|m| m.rank() <= 4 && (m.dtype() == DType::Bool || (m.dtype() == DType::F32 && !m.requires_grad())));
    if !f32s
        || !mask_ok
        || r > 4
        || k.shape()[..rk - 2] != *batch
        || v.shape()[..rv - 2] != *batch
        || [q, k, v].iter().any(|t| t.numel() == 0)
        || o.dropout_p >= 1.0
        || !wanted(device, q.shape()[r - 1].max(v.shape()[rv - 1]))
    {
        return Ok(None);
    }
    let (l, e) = (q.shape()[r - 2], q.shape()[r - 1]);
    let (s, ev) = (k.shape()[rk - 2], v.shape()[rv - 1]);
    // Operands made 4-D and row-addressable outside the graph: the op records its own node.
    let grad_mode = crate::autograd::no_grad();
    let (q4, qv) = rows4(q)?;
    let (k4, kv) = rows4(k)?;
    let (v4, vv) = rows4(v)?;
    let (n1, n2) = (q4.shape()[0], q4.shape()[1]);
    let mask = match o.mask {
        None => None,
        Some(m) => {
            let additive = if m.dtype() == DType::Bool {
                Tensor::zeros(m.shape(), DType::F32, device)?.masked_fill(&m.logical_not()?, f64::NEG_INFINITY)?
            } else {
                m.clone()
            };
            let Ok(full) = additive.broadcast_to(&[n1, n2, l, s]) else {
                return Ok(None);
            };
            let st = full.layout().strides().to_vec();
            let view = RowsView { offset: full.layout().offset(), s0: st[0], s1: st[1], s2: st[2] };
            Some((full, view, st[3]))
        }
    };
    let dropout = (o.dropout_p > 0.0).then(|| {
        let p = o.dropout_p;
        (p as f32, (1.0 / (1.0 - p)) as f32, o.seed.unwrap_or_else(next_seed))
    });
    let args = AttentionArgs {
        n1,
        n2,
        l,
        s,
        e,
        ev,
        scale: o.scale as f32,
        causal: o.causal,
        dropout,
        q: qv,
        k: kv,
        v: vv,
        mask: mask.as_ref().map(|(_, view, col)| (*view, *col)),
        dout: None,
        grads: None,
        out: None,
    };
    // Where the kernels take layouts (wgpu), the output is dense in the query's dim order.
    let layouts = crate::device::Backend::attention_layouts(device);
    let out_layout = layouts.then(|| out_layout(&q4, [n1, n2, l, ev])).flatten();
    let args = AttentionArgs { out: out_layout.as_ref().map(|(s, _)| *s), ..args };
    let op = "scaled_dot_product_attention";
    // An absent mask is bound as q, which the programs do not read.
    let m = mask.as_ref().map_or(q4.storage(), |(m, _, _)| m.storage());
    let inputs = [q4.storage().as_ref(), k4.storage(), v4.storage(), m];
    let storage = Storage::fused(FusedCall::Attention(args), &inputs).map_err(|e| e.in_op(op))?;
    crate::device::placement::record(op, &[q.device(), k.device(), v.device()], device);
    let all = Tensor::from_parts(storage, &[args.forward_len()], DType::F32, device);
    let mut out_shape = batch.to_vec();
    out_shape.extend([l, ev]);
    let out = match out_layout {
        Some((_, layout)) => {
            all.aliasing(layout).reshape(&out_shape.iter().map(|&d| d as isize).collect::<Vec<_>>())?
        }
        None => region(&all, 0, &out_shape)?,
    };
    drop(grad_mode);
    let (shapes, saved) = ([q.shape().to_vec(), k.shape().to_vec(), v.shape().to_vec()], (q4, k4, v4));
    let mask = mask.map(|(m, _, _)| m);
    Ok(Some(Tensor::composite(out, op, &[q, k, v], move |_| backward(args, saved, mask, all, shapes))))
}

/// The output's (n1, n2, row) strides and layout (`shape` `[n1, n2, L, Ev]`) dense in the order of `q`'s
/// strides, largest first, where that order is not the contiguous one (heads split from a
/// `[B, T, C]` projection: `[B, H, T, hs]` with H inside T, so the output transposed back is
/// `[B, T, C]` as it is); `None` where the contiguous layout already is that order.
fn out_layout(q: &Tensor, shape: [usize; 4]) -> Option<([usize; 3], crate::layout::Layout)> {
    let st = q.layout().strides();
    // Dims by decreasing stride (size-1 dims and ties keep their place); the last stays last.
    let mut order = [0usize, 1, 2];
    for i in 1..3 {
        let mut j = i;
        while j > 0 && shape[order[j]] > 1 && st[order[j]] > st[order[j - 1]] {
            order.swap(j - 1, j);
            j -= 1;
        }
    }
    if order == [0, 1, 2] {
        return None;
    }
    let mut strides = [0usize, 0, 0, 1];
    let mut step = shape[3];
    for &d in order.iter().rev() {
        strides[d] = step;
        step *= shape[d];
    }
    Some(([strides[0], strides[1], strides[2]], crate::layout::Layout::strided(&shape, &strides, 0)))
}

/// Where the gradients of `q`, `k` and `v` (4-D, unit last stride) can be written in the
/// inputs' own layouts: when the three are views of one storage with one shape and strides,
/// `k` and `v` each a step `d` further than the one before, and the three together a dense
/// block (a `[B, T, 3C]` projection split into heads, as a GPT's attention makes them). Then
/// the (n1, n2, row) strides the three share and `d`: the gradients go at 0, `d` and `2 d` of a
/// buffer laid out as that block.
fn tiling(q: &Tensor, k: &Tensor, v: &Tensor) -> Option<([usize; 3], usize)> {
    let (lq, lk, lv) = (q.layout(), k.layout(), v.layout());
    let same = std::sync::Arc::ptr_eq(q.storage(), k.storage()) && std::sync::Arc::ptr_eq(q.storage(), v.storage());
    if !same || lq.shape() != lk.shape() || lq.shape() != lv.shape() || lq.strides() != lk.strides() {
        return None;
    }
    if lq.strides() != lv.strides() || lq.shape().len() != 4 || lq.strides()[3] != 1 {
        return None;
    }
    let d = lk.offset().checked_sub(lq.offset())?;
    if d == 0 || lv.offset().checked_sub(lk.offset())? != d {
        return None;
    }
    // Dense and non-overlapping: taken by increasing stride, each stride is the product of the
    // sizes before it (found by search, not a sort: five dims, and no sort instance in the .wasm).
    let mut dims: Vec<(usize, usize)> = lq.shape().iter().copied().zip(lq.strides().iter().copied()).collect();
    dims.push((3, d));
    dims.retain(|&(size, _)| size > 1);
    let mut expect = 1;
    while !dims.is_empty() {
        let at = dims.iter().position(|&(_, stride)| stride == expect)?;
        expect *= dims.swap_remove(at).0;
    }
    let st = lq.strides();
    Some(([st[0], st[1], st[2]], d))
}

/// Elements `at..` of the 1-D `all` viewed as `shape` (no graph: `all` requires no grad).
fn region(all: &Tensor, at: usize, shape: &[usize]) -> Result<Tensor> {
    let n = crate::shape::numel(shape);
    let dims: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    all.narrow(0, at, n)?.reshape(&dims)
}

/// The rule: one backward call over the saved operands and the forward's output, whose result
/// holds the three gradients side by side.
fn backward(
    args: AttentionArgs,
    (q4, k4, v4): (Tensor, Tensor, Tensor),
    mask: Option<Tensor>,
    all: Tensor,
    shapes: [Vec<usize>; 3],
) -> BackwardFn {
    Box::new(move |g, need| {
        let _grad_mode = crate::autograd::no_grad();
        // The gradient has the output's shape: as 4-D rows, a view wherever its rows are unit-strided.
        let (g4, gv) = rows4(g)?;
        let tiles = tiling(&q4, &k4, &v4).filter(|_| crate::device::Backend::attention_layouts(g.device()));
        let grads = tiles;
        let a = AttentionArgs { dout: Some(gv), grads, ..args };
        let m = mask.as_ref().map_or(q4.storage(), |m| m.storage());
        let inputs = [q4.storage().as_ref(), k4.storage(), v4.storage(), m, all.storage(), g4.storage()];
        let storage = Storage::fused(FusedCall::Attention(a), &inputs)
            .map_err(|e| e.in_op("scaled_dot_product_attention_backward"))?;
        let t = Tensor::from_parts(storage, &[a.backward_len()], DType::F32, g.device());
        if let Some((_, step)) = tiles {
            // Each gradient in its input's layout: views of one buffer laid out as the inputs'.
            let (shape, st) = (q4.shape(), q4.layout().strides());
            let layouts = [0, step, 2 * step].map(|at| crate::layout::Layout::strided(shape, st, at));
            let view = |(l, shape): (crate::layout::Layout, &Vec<usize>)| {
                t.aliasing(l).reshape(&shape.iter().map(|&d| d as isize).collect::<Vec<_>>())
            };
            return layouts
                .into_iter()
                .zip(&shapes)
                .zip(need)
                .map(|(ls, &n)| n.then(|| view(ls)).transpose())
                .collect();
        }
        let [dk_at, dv_at, _] = a.grad_at();
        let starts = [0, dk_at, dv_at];
        (0..3).map(|i| need[i].then(|| region(&t, starts[i], &shapes[i])).transpose()).collect()
    })
}
