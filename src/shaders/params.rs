//! The parameter words of the strided kernel families (map, binary, where, index, matmul): one
//! source of truth for both GPU backends, whose kernels read the same word indices (see the
//! header comment of each `.wgsl` and `.cu` file). wgpu narrows the words to u32, CUDA passes
//! them as u64. Strided indexing has 8 slots per shape; the contiguous fast paths read no shape,
//! so they take any rank.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::{coalesce, Layout};
use crate::op::fill::Fill;
use crate::op::{IndexMode, MatmulArgs};
use crate::shape::numel;

/// Dims a strided kernel indexes.
pub(crate) const MAX_RANK: usize = 8;

fn check_rank(op: &'static str, rank: usize) -> Result<()> {
    if rank > MAX_RANK {
        return Err(Error::invalid(
            op,
            format!("GPU kernels index at most {MAX_RANK} dims, got {rank}; reshape to fewer dims first"),
        ));
    }
    Ok(())
}

/// `n` zero words with `parts` (start index, values) written in.
fn words(n: usize, parts: &[(usize, &[usize])]) -> Vec<usize> {
    let mut w = vec![0; n];
    for (at, values) in parts {
        w[*at..*at + values.len()].copy_from_slice(values);
    }
    w
}

/// Map (unary, cast, copy) from `sl` into `dl`: 0 numel, 1 rank, 2 src offset, 3 dst offset,
/// 4..12 shape, 12..20 src strides, 20..28 dst strides (over the dims the two layouts coalesce
/// to), 28 fast path, 29 row length (0: a thread per element; see `rows`).
pub(crate) fn map(sl: &Layout, dl: &Layout) -> Result<Vec<usize>> {
    let n = sl.numel();
    if sl.is_contiguous() && dl.is_contiguous() {
        return Ok(words(30, &[(0, &[n, 0, sl.offset(), dl.offset()]), (28, &[1])]));
    }
    let (dims, [ss, ds]) = coalesce(sl.shape(), [sl.strides(), dl.strides()]);
    check_rank("map", dims.len())?;
    Ok(words(30, &[(0, &[n, dims.len(), sl.offset(), dl.offset()]), (4, &dims), (12, &ss), (20, &ds)]))
}

/// [`map`]'s params switched to one thread per row of the innermost dim (29: its length; 0: the
/// row count), when the rows are at least `min_len` long and at least `min_rows` many: each
/// thread then works out its offsets once per row instead of once per element.
pub(crate) fn rows(p: &mut [usize], min_len: usize, min_rows: usize) -> bool {
    if p[28] == 1 {
        return false;
    }
    split_rows(p, 29, min_len, min_rows)
}

/// [`pad`]'s params switched to one thread per row of the innermost dim (36: its length; 0: the
/// row count), as [`rows`] switches map's.
pub(crate) fn pad_rows(p: &mut [usize], min_len: usize, min_rows: usize) -> bool {
    split_rows(p, 36, min_len, min_rows)
}

/// For params whose word 0 is the element count, 1 the rank and 4.. the shape: where the
/// innermost rows are at least `min_len` long and at least `min_rows` many, word 0 becomes the
/// row count and word `len_at` the row length.
fn split_rows(p: &mut [usize], len_at: usize, min_len: usize, min_rows: usize) -> bool {
    let (n, rank) = (p[0], p[1]);
    if rank < 2 {
        return false;
    }
    let len = p[4 + rank - 1];
    if len < min_len || n / len < min_rows {
        return false;
    }
    (p[0], p[len_at]) = (n / len, len);
    true
}

/// The `splat` flags of binary_rows4.wgsl for [`binary`]'s params `p`, or None where it cannot
/// run them (see [`rows4_splats`]).
pub(crate) fn rows4(p: &[u32]) -> Option<[bool; 2]> {
    rows4_splats(p, [(2, 12), (3, 20)])
}

/// The `splat` flags of where_rows4.wgsl (cond, a, b) for [`where_`]'s params `p`, or None.
pub(crate) fn where_rows4(p: &[u32]) -> Option<[bool; 3]> {
    rows4_splats(p, [(2, 12), (3, 20), (36, 28)])
}

/// For params whose word 1 is the rank and 4.. the shape, and whose operands have their offset
/// and strides at the given words: per operand, whether it is constant along the innermost dim
/// (a splat); None unless that dim is a multiple of 4 and every operand either is constant
/// along it or runs along it with every row at a multiple of 4 (its offset and outer strides).
fn rows4_splats<const N: usize>(p: &[u32], operands: [(usize, usize); N]) -> Option<[bool; N]> {
    let rank = p[1] as usize;
    if rank == 0 || rank > MAX_RANK || !p[4 + rank - 1].is_multiple_of(4) {
        return None;
    }
    let mut splat = [false; N];
    for (flag, (offset, strides)) in splat.iter_mut().zip(operands) {
        let outer = &p[strides..strides + rank - 1];
        *flag = match p[strides + rank - 1] {
            0 => true,
            1 if p[offset].is_multiple_of(4) && outer.iter().all(|s| s.is_multiple_of(4)) => false,
            _ => return None,
        };
    }
    Some(splat)
}

/// Whether a binary op's operands are contiguous with the output's shape (the fast path).
pub(crate) fn same_shape(la: &Layout, lb: &Layout, shape: &[usize]) -> bool {
    la.is_contiguous() && lb.is_contiguous() && la.shape() == shape && lb.shape() == shape
}

/// Binary with broadcasting: 0 numel, 1 rank, 2 a offset, 3 b offset, 4..12 shape,
/// 12..20 a strides, 20..28 b strides (over the output's coalesced dims), 28 fast path.
pub(crate) fn binary(op: &'static str, la: &Layout, lb: &Layout, shape: &[usize]) -> Result<Vec<usize>> {
    let n = numel(shape);
    if same_shape(la, lb, shape) {
        return Ok(words(29, &[(0, &[n, 0, la.offset(), lb.offset()]), (28, &[1])]));
    }
    check_rank(op, shape.len())?;
    let (dims, [sa, sb]) = coalesce(shape, [&la.broadcast_strides(shape), &lb.broadcast_strides(shape)]);
    Ok(words(29, &[(0, &[n, dims.len(), la.offset(), lb.offset()]), (4, &dims), (12, &sa), (20, &sb)]))
}

/// where(c, a, b): 0 numel, 1 rank, 2 c offset, 3 a offset, 4..12 shape, 12..20 c strides,
/// 20..28 a strides, 28..36 b strides, 36 b offset.
pub(crate) fn where_(lc: &Layout, la: &Layout, lb: &Layout, shape: &[usize]) -> Result<Vec<usize>> {
    let (c, a, b) = (lc.broadcast_strides(shape), la.broadcast_strides(shape), lb.broadcast_strides(shape));
    let (dims, [c, a, b]) = coalesce(shape, [&c, &a, &b]);
    check_rank("where", dims.len())?;
    // One dim of unit strides: every operand contiguous with the output's shape.
    let flat = dims.len() <= 1 && [&c, &a, &b].iter().all(|s| s.iter().all(|&v| v == 1));
    Ok(words(
        38,
        &[
            (0, &[numel(shape), dims.len(), lc.offset(), la.offset()]),
            (4, &dims),
            (12, &c),
            (20, &a),
            (28, &b),
            (36, &[lb.offset(), flat as usize]),
        ],
    ))
}

/// index_select / gather along `dim`: 0 numel, 1 rank, 2 src offset, 3 dim, 4..12 output shape,
/// 12..20 src strides, 20 src size along dim, 21 mode (1 gather), 22 index offset.
pub(crate) fn index(mode: IndexMode, l: &Layout, li: &Layout, dim: usize, shape: &[usize]) -> Result<Vec<usize>> {
    check_rank("index", shape.len())?;
    Ok(words(
        23,
        &[
            (0, &[numel(shape), shape.len(), l.offset(), dim]),
            (4, shape),
            (12, l.strides()),
            (20, &[l.shape()[dim], (mode == IndexMode::Gather) as usize, li.offset()]),
        ],
    ))
}

/// pad.wgsl's params for `l` padded into `shape` with `before[d]` entries ahead of it in each
/// dim (the value's bits, word 3, are the caller's; word 36, the row length, 0: a thread per
/// element).
pub(crate) fn pad(l: &Layout, before: &[usize], shape: &[usize]) -> Result<Vec<usize>> {
    check_rank("pad", shape.len())?;
    Ok(words(
        37,
        &[(0, &[numel(shape), shape.len(), l.offset()]), (4, shape), (12, l.strides()), (20, before), (28, l.shape())],
    ))
}

/// index_rows4.wgsl's params for `index_select` of `l` along `dim` by a contiguous index (`li`)
/// into `shape`, or None where its rows do not fit: the dims after `dim` must be contiguous in
/// the source and hold a multiple of 4 elements, the dims before it must collapse into one
/// stride, and every row must start at a multiple of 4 (see the shader).
pub(crate) fn index_rows4(l: &Layout, li: &Layout, dim: usize, shape: &[usize]) -> Option<Vec<usize>> {
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
    (aligned && cols > 0 && n > 0)
        .then(|| vec![n / 4, cols / 4, shape[dim], l.offset(), st[dim], outer_stride, src_shape[dim], li.offset()])
}

/// index_add / scatter_add into a contiguous output of `shape` along `dim`: 0 numel, 1 rank,
/// 2 src offset, 3 dim, 4..12 output shape, 12..20 src strides, 20 src size along dim, 21 mode
/// (1 gather), 22 index offset, 23..31 src shape, 31 assign (1: the last source wins).
pub(crate) fn index_add(
    mode: IndexMode,
    l: &Layout,
    li: &Layout,
    dim: usize,
    shape: &[usize],
    assign: bool,
) -> Result<Vec<usize>> {
    check_rank("index_add", shape.len())?;
    Ok(words(
        32,
        &[
            (0, &[numel(shape), shape.len(), l.offset(), dim]),
            (4, shape),
            (12, l.strides()),
            (20, &[l.shape()[dim], (mode == IndexMode::Gather) as usize, li.offset()]),
            (23, l.shape()),
            (31, &[assign as usize]),
        ],
    ))
}

/// fill.wgsl / fill.cu: 0 numel, 1 the value's bits, 2 mode (1: uniform samples), 3 and 4 the
/// generator's key (the seed's low and high words), 5 the index of the first element (`first`:
/// a piece of a larger fill continues its counters).
pub(crate) fn fill(n: usize, value: Fill, dtype: DType, first: usize) -> [usize; 6] {
    match value {
        Fill::Value(v) => [n, crate::shaders::scalar_bits(v, dtype) as usize, 0, 0, 0, first],
        Fill::Uniform { seed } => [n, 0, 1, seed as u32 as usize, (seed >> 32) as usize, first],
    }
}

/// Batched matmul from batch `base` on: 0 m, 1 n, 2 k, 3 a batch stride, 4 b batch stride,
/// 5 a offset, 6 b offset, 7 first batch, 8 a row stride, 9 a col stride, 10 b row stride,
/// 11 b col stride.
pub(crate) fn matmul(g: &MatmulArgs, base: usize) -> [usize; 12] {
    [
        g.m,
        g.n,
        g.k,
        g.a.batch_stride,
        g.b.batch_stride,
        g.a.offset,
        g.b.offset,
        base,
        g.a.row_stride,
        g.a.col_stride,
        g.b.row_stride,
        g.b.col_stride,
    ]
}
