//! The parameters of the strided kernel families (map, binary, where, index, pad, fill,
//! matmul, the lazy tier's programs) from layouts: the `op::params` structs both GPU backends launch with. Strided
//! indexing has 8 slots per shape; the contiguous fast paths read no shape, so they take any
//! rank.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::{coalesce, Layout};
use crate::op::fill::Fill;
use crate::op::params::*;
use crate::op::{IndexMode, MatmulArgs};
use crate::shape::numel;

/// Dims a strided kernel indexes.
pub(crate) const MAX_RANK: usize = 8;

fn check_rank(op: &'static str, rank: usize) -> Result<()> {
    match rank > MAX_RANK {
        true => Err(rank_error(op, rank)),
        false => Ok(()),
    }
}

fn rank_error(op: &'static str, rank: usize) -> Error {
    Error::invalid(op, format!("GPU kernels index at most {MAX_RANK} dims, got {rank}; reshape to fewer dims first"))
}

/// `values` in the first slots of an 8-slot shape or strides field.
fn dims8(values: &[usize]) -> [usize; MAX_RANK] {
    let mut d = [0; MAX_RANK];
    d[..values.len()].copy_from_slice(values);
    d
}

/// Map (unary, cast, copy) from `sl` into `dl`, over the dims the two layouts coalesce to.
pub(crate) fn map(sl: &Layout, dl: &Layout) -> Result<MapParams> {
    let (numel, src_offset, dst_offset) = (sl.numel(), sl.offset(), dl.offset());
    if sl.is_contiguous() && dl.is_contiguous() {
        return Ok(MapParams { numel, src_offset, dst_offset, fast: 1, ..Default::default() });
    }
    let (dims, [ss, ds]) = coalesce(sl.shape(), [sl.strides(), dl.strides()]);
    check_rank("map", dims.len())?;
    Ok(MapParams {
        numel,
        rank: dims.len(),
        src_offset,
        dst_offset,
        shape: dims8(&dims),
        src_strides: dims8(&ss),
        dst_strides: dims8(&ds),
        ..Default::default()
    })
}

/// [`map`]'s params switched to one thread per row of the innermost dim (`row_len` its length,
/// `numel` the row count), when the rows are at least `min_len` long and at least `min_rows`
/// many: each thread then works out its offsets once per row instead of once per element.
pub(crate) fn rows(p: &mut MapParams, min_len: usize, min_rows: usize) -> bool {
    if p.fast == 1 {
        return false;
    }
    split_rows((&mut p.numel, &mut p.row_len), p.rank, &p.shape, min_len, min_rows)
}

/// [`pad`]'s params switched to one thread per row of the innermost dim, as [`rows`] switches
/// map's.
pub(crate) fn pad_rows(p: &mut PadParams, min_len: usize, min_rows: usize) -> bool {
    split_rows((&mut p.numel, &mut p.row_len), p.rank, &p.shape, min_len, min_rows)
}

/// Where the innermost rows of `shape` (of `rank` dims) are at least `min_len` long and at
/// least `min_rows` many: the element count becomes the row count and the row length is set.
fn split_rows(
    (numel, row_len): (&mut usize, &mut usize),
    rank: usize,
    shape: &[usize; MAX_RANK],
    min_len: usize,
    min_rows: usize,
) -> bool {
    if rank < 2 {
        return false;
    }
    let len = shape[rank - 1];
    if len < min_len || *numel / len < min_rows {
        return false;
    }
    (*numel, *row_len) = (*numel / len, len);
    true
}

/// The `splat` flags of binary_rows4.wgsl for [`binary`]'s params `p`, or None where it cannot
/// run them (see [`rows4_splats`]).
pub(crate) fn rows4(p: &BinaryParams) -> Option<[bool; 2]> {
    rows4_splats(p.rank, &p.shape, [(p.a_offset, &p.a_strides), (p.b_offset, &p.b_strides)])
}

/// The `splat` flags of where_rows4.wgsl (cond, a, b) for [`where_`]'s params `p`, or None.
pub(crate) fn where_rows4(p: &WhereParams) -> Option<[bool; 3]> {
    let operands = [(p.c_offset, &p.c_strides), (p.a_offset, &p.a_strides), (p.b_offset, &p.b_strides)];
    rows4_splats(p.rank, &p.shape, operands)
}

/// Per operand (offset, strides) of a walk of `rank` dims of `shape`: whether it is constant
/// along the innermost dim (a splat); None unless that dim is a multiple of 4 and every operand
/// either is constant along it or runs along it with every row at a multiple of 4 (its offset
/// and outer strides).
fn rows4_splats<const N: usize>(
    rank: usize,
    shape: &[usize; MAX_RANK],
    operands: [(usize, &[usize; MAX_RANK]); N],
) -> Option<[bool; N]> {
    if rank == 0 || rank > MAX_RANK || !shape[rank - 1].is_multiple_of(4) {
        return None;
    }
    let mut splat = [false; N];
    for (flag, (offset, strides)) in splat.iter_mut().zip(operands) {
        let outer = &strides[..rank - 1];
        *flag = match strides[rank - 1] {
            0 => true,
            1 if offset.is_multiple_of(4) && outer.iter().all(|s| s.is_multiple_of(4)) => false,
            _ => return None,
        };
    }
    Some(splat)
}

/// Whether a binary op's operands are contiguous with the output's shape (the fast path).
pub(crate) fn same_shape(la: &Layout, lb: &Layout, shape: &[usize]) -> bool {
    la.is_contiguous() && lb.is_contiguous() && la.shape() == shape && lb.shape() == shape
}

/// Binary with broadcasting, over the output's coalesced dims.
pub(crate) fn binary(op: &'static str, la: &Layout, lb: &Layout, shape: &[usize]) -> Result<BinaryParams> {
    let (numel, a_offset, b_offset) = (numel(shape), la.offset(), lb.offset());
    if same_shape(la, lb, shape) {
        return Ok(BinaryParams { numel, a_offset, b_offset, mode: 1, ..Default::default() });
    }
    check_rank(op, shape.len())?;
    let (dims, [sa, sb]) = coalesce(shape, [&la.broadcast_strides(shape), &lb.broadcast_strides(shape)]);
    Ok(BinaryParams {
        numel,
        rank: dims.len(),
        a_offset,
        b_offset,
        shape: dims8(&dims),
        a_strides: dims8(&sa),
        b_strides: dims8(&sb),
        mode: 0,
    })
}

/// where(c, a, b), over the output's coalesced dims.
pub(crate) fn where_(lc: &Layout, la: &Layout, lb: &Layout, shape: &[usize]) -> Result<WhereParams> {
    let (c, a, b) = (lc.broadcast_strides(shape), la.broadcast_strides(shape), lb.broadcast_strides(shape));
    let (dims, [c, a, b]) = coalesce(shape, [&c, &a, &b]);
    check_rank("where", dims.len())?;
    // One dim of unit strides: every operand contiguous with the output's shape.
    let flat = dims.len() <= 1 && [&c, &a, &b].iter().all(|s| s.iter().all(|&v| v == 1));
    Ok(WhereParams {
        numel: numel(shape),
        rank: dims.len(),
        c_offset: lc.offset(),
        a_offset: la.offset(),
        shape: dims8(&dims),
        c_strides: dims8(&c),
        a_strides: dims8(&a),
        b_strides: dims8(&b),
        b_offset: lb.offset(),
        fast: flat as usize,
    })
}

/// index_select / gather of `l` along `dim` into `shape`.
pub(crate) fn index(mode: IndexMode, l: &Layout, li: &Layout, dim: usize, shape: &[usize]) -> Result<IndexParams> {
    check_rank("index", shape.len())?;
    Ok(IndexParams {
        numel: numel(shape),
        rank: shape.len(),
        src_offset: l.offset(),
        dim,
        shape: dims8(shape),
        src_strides: dims8(l.strides()),
        dim_size: l.shape()[dim],
        gather: (mode == IndexMode::Gather) as usize,
        index_offset: li.offset(),
    })
}

/// pad.wgsl's params for `l` padded into `shape` with `before[d]` entries ahead of it in each
/// dim (the value's bits are the caller's; a thread per element).
pub(crate) fn pad(l: &Layout, before: &[usize], shape: &[usize]) -> Result<PadParams> {
    check_rank("pad", shape.len())?;
    Ok(PadParams {
        numel: numel(shape),
        rank: shape.len(),
        src_offset: l.offset(),
        shape: dims8(shape),
        src_strides: dims8(l.strides()),
        before: dims8(before),
        src_shape: dims8(l.shape()),
        ..Default::default()
    })
}

/// index_rows4.wgsl's params for `index_select` of `l` along `dim` by a contiguous index (`li`)
/// into `shape`, or None where its rows do not fit: the dims after `dim` must be contiguous in
/// the source and hold a multiple of 4 elements, the dims before it must collapse into one
/// stride, and every row must start at a multiple of 4 (see the shader).
pub(crate) fn index_rows4(l: &Layout, li: &Layout, dim: usize, shape: &[usize]) -> Option<IndexRows4Params> {
    let (src_shape, st) = (l.shape(), l.strides());
    let cols: usize = src_shape[dim + 1..].iter().product();
    // The dims after `dim` walk the source with unit steps in row-major order.
    let mut want = 1;
    for d in (dim + 1..src_shape.len()).rev() {
        if src_shape[d] != 1 && st[d] != want {
            return None;
        }
        want *= src_shape[d];
    }
    // The dims before `dim` as one (stride, extent): each steps over the next's whole extent.
    let (outer_stride, _) = (0..dim).rev().try_fold((0usize, 1usize), |(stride, extent), d| match src_shape[d] {
        1 => Some((stride, extent)),
        size if extent == 1 => Some((st[d], size)),
        size if st[d] == stride * extent => Some((stride, extent * size)),
        _ => None,
    })?;
    let n = numel(shape);
    let aligned = [cols, l.offset(), st[dim], outer_stride].iter().all(|v| v.is_multiple_of(4));
    (aligned && cols > 0 && n > 0).then(|| IndexRows4Params {
        threads: n / 4,
        cols: cols / 4,
        selected: shape[dim],
        src_offset: l.offset(),
        dim_stride: st[dim],
        outer_stride,
        dim_size: src_shape[dim],
        index_offset: li.offset(),
    })
}

/// index_add / scatter_add of `l` along `dim` into a contiguous output of `shape` (`assign`:
/// scatter, the last source wins).
pub(crate) fn index_add(
    mode: IndexMode,
    l: &Layout,
    li: &Layout,
    dim: usize,
    shape: &[usize],
    assign: bool,
) -> Result<IndexAddParams> {
    let p = index(mode, l, li, dim, shape).map_err(|_| rank_error("index_add", shape.len()))?;
    Ok(IndexAddParams {
        numel: p.numel,
        rank: p.rank,
        src_offset: p.src_offset,
        dim,
        shape: p.shape,
        src_strides: p.src_strides,
        dim_size: p.dim_size,
        gather: p.gather,
        index_offset: p.index_offset,
        src_shape: dims8(l.shape()),
        assign: assign as usize,
    })
}

/// fill.wgsl / fill.cu for `n` elements of `value` in `dtype`, from element `first` on (a piece
/// of a larger fill continues its counters).
pub(crate) fn fill(n: usize, value: Fill, dtype: DType, first: usize) -> FillParams {
    match value {
        Fill::Value(v) => {
            FillParams { numel: n, bits: crate::shaders::scalar_bits(v, dtype) as usize, ..Default::default() }
        }
        Fill::Uniform { seed } | Fill::Normal { seed } => FillParams {
            numel: n,
            bits: 0,
            mode: if matches!(value, Fill::Normal { .. }) { 2 } else { 1 },
            key_lo: seed as u32 as usize,
            key_hi: (seed >> 32) as usize,
            first,
            first_hi: (first as u64 >> 32) as usize,
        },
    }
}

/// The tiled matmul programs' params, from batch `first_batch` on (`row_blocks` the caller's).
pub(crate) fn matmul(g: &MatmulArgs, first_batch: usize) -> MatmulParams {
    MatmulParams {
        m: g.m,
        n: g.n,
        k: g.k,
        a_batch_stride: g.a.batch_stride,
        b_batch_stride: g.b.batch_stride,
        a_offset: g.a.offset,
        b_offset: g.b.offset,
        first_batch,
        a_row_stride: g.a.row_stride,
        a_col_stride: g.a.col_stride,
        b_row_stride: g.b.row_stride,
        b_col_stride: g.b.col_stride,
        row_blocks: 0,
        bias_offset: g.bias_offset,
    }
}

/// matmul_naive / matmul_dot's params over `items` outputs (or rows, with `row_mode`).
pub(crate) fn matmul_items(g: &MatmulArgs, items: usize, row_mode: bool) -> MatmulItemsParams {
    let t = matmul(g, 0);
    MatmulItemsParams {
        m: t.m,
        n: t.n,
        k: t.k,
        a_batch_stride: t.a_batch_stride,
        b_batch_stride: t.b_batch_stride,
        a_offset: t.a_offset,
        b_offset: t.b_offset,
        items,
        a_row_stride: t.a_row_stride,
        a_col_stride: t.a_col_stride,
        b_row_stride: t.b_row_stride,
        b_col_stride: t.b_col_stride,
        row_mode: row_mode as usize,
        bias_offset: t.bias_offset,
    }
}

/// A lazy-tier program's parameters (`op::expr`) over leaves read through `layouts` (each of
/// the output's `shape`) with `scalars`: the dims coalesced across every leaf, each leaf's
/// offset and strides, and which leaves are contiguous over the output (bit `k` of the flat
/// mask: read without index arithmetic). Also the coalesced shape; an error past the
/// program's limits, which the recorder keeps within.
pub(crate) fn elementwise(
    op: &'static str,
    layouts: &[&Layout],
    shape: &[usize],
    scalars: &[f32],
) -> Result<(ElementwiseParams, u8, Vec<usize>)> {
    use crate::op::expr::{MAX_LEAVES, MAX_RANK as EXPR_RANK, MAX_SCALARS};
    let strides: Vec<&[usize]> = layouts.iter().map(|l| l.strides()).collect();
    let (dims, strides) = crate::layout::coalesce_dyn(shape, &strides);
    if dims.len() > EXPR_RANK || layouts.len() > MAX_LEAVES || scalars.len() > MAX_SCALARS {
        return Err(Error::invalid(op, "internal: an elementwise program past its limits"));
    }
    let dense = crate::shape::contiguous_strides(&dims);
    let mut p = ElementwiseParams { numel: numel(shape), ..Default::default() };
    let mut flat = 0u8;
    for (k, (l, s)) in layouts.iter().zip(&strides).enumerate() {
        p.offsets[k] = l.offset();
        if *s == dense {
            flat |= 1 << k;
        }
        p.strides[k * EXPR_RANK..k * EXPR_RANK + s.len()].copy_from_slice(s);
    }
    p.shape[..dims.len()].copy_from_slice(&dims);
    for (w, s) in p.scalars.iter_mut().zip(scalars) {
        *w = s.to_bits() as usize;
    }
    Ok((p, flat, dims))
}
