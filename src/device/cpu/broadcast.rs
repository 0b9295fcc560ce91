//! Binary elementwise walks with broadcasting. The output is cut into rows along its (coalesced)
//! innermost dim; each row is one tight loop over slices, with the common operand patterns
//! (both contiguous, one a repeated element) as their own loops the compiler vectorises, and
//! rows are split across threads. Per-element index arithmetic over the rank (what a strided
//! iterator does) cost 5-10x on broadcasts such as `x + bias`, `x * 0.5` or `dist + norms[:, None]`.
//! The pattern loops are compiled per op and type, so the rare ones (comparisons, u32 and bool
//! ops) take `ONE_LOOP`: the same rows through the one strided loop.

use std::mem::MaybeUninit;
use std::ops::{BitAnd, BitOr, Not};

use super::par;
use crate::layout::{coalesce, Layout};
use crate::shape::numel;

/// The output of a broadcast op over `shape` cut into rows along its innermost (coalesced) dim,
/// with where each of `N` operands starts a row and steps within it.
struct Rows<const N: usize> {
    /// Elements per row.
    k: usize,
    /// Number of rows.
    count: usize,
    /// Each operand's step along a row.
    step: [usize; N],
    /// The output dims the rows run over, and each operand's strides along them.
    outer: Vec<usize>,
    outer_strides: [Vec<usize>; N],
    /// Each operand's storage offset.
    base: [usize; N],
}

impl<const N: usize> Rows<N> {
    fn new(shape: &[usize], layouts: [&Layout; N]) -> Self {
        let strides = layouts.map(|l| l.broadcast_strides(shape));
        let (mut dims, mut s) = coalesce(shape, std::array::from_fn(|o| strides[o].as_slice()));
        // A 0-d (or all size-1) output is one row of one element.
        let k = dims.pop().unwrap_or(1);
        let step = std::array::from_fn(|o| s[o].pop().unwrap_or(0));
        Rows {
            k,
            count: numel(shape).checked_div(k).unwrap_or(0),
            step,
            outer: dims,
            outer_strides: s,
            base: layouts.map(|l| l.offset()),
        }
    }

    /// Where each operand's storage holds the first element of output row `row`.
    fn starts(&self, row: usize) -> [usize; N] {
        std::array::from_fn(|o| {
            let (mut rem, mut off) = (row, self.base[o]);
            for (&size, &stride) in self.outer.iter().zip(&self.outer_strides[o]).rev() {
                off += (rem % size) * stride;
                rem /= size;
            }
            off
        })
    }
}

/// One output row of `k` elements: `a` and `b` start at `oa`/`ob` and step `ia`/`ib`.
#[inline(always)]
fn row<const PATTERNS: bool, T: Copy, U>(
    out: &mut [MaybeUninit<U>],
    (a, oa, ia): (&[T], usize, usize),
    (b, ob, ib): (&[T], usize, usize),
    f: &impl Fn(T, T) -> U,
) {
    let k = out.len();
    if !PATTERNS {
        for (j, o) in out.iter_mut().enumerate() {
            o.write(f(a[oa + j * ia], b[ob + j * ib]));
        }
        return;
    }
    match (ia, ib) {
        (1, 1) => {
            for ((o, &x), &y) in out.iter_mut().zip(&a[oa..oa + k]).zip(&b[ob..ob + k]) {
                o.write(f(x, y));
            }
        }
        (1, 0) => {
            let y = b[ob];
            for (o, &x) in out.iter_mut().zip(&a[oa..oa + k]) {
                o.write(f(x, y));
            }
        }
        (0, 1) => {
            let x = a[oa];
            for (o, &y) in out.iter_mut().zip(&b[ob..ob + k]) {
                o.write(f(x, y));
            }
        }
        _ => {
            for (j, o) in out.iter_mut().enumerate() {
                o.write(f(a[oa + j * ia], b[ob + j * ib]));
            }
        }
    }
}

/// [`zip_broadcast`]'s `PATTERNS`: a loop per operand pattern, for the hot ops.
pub(super) const ALL_PATTERNS: bool = true;
/// [`zip_broadcast`]'s `PATTERNS`: rows through the one strided loop, a quarter of the code,
/// for ops that are rarely hot.
pub(super) const ONE_LOOP: bool = false;

/// `f(a, b)` over `shape`, each operand read through its layout broadcast to `shape`, into a
/// new contiguous vector; `PATTERNS` is [`ALL_PATTERNS`] or [`ONE_LOOP`].
pub(super) fn zip_broadcast<const PATTERNS: bool, T: Copy + Sync, U: Send>(
    a: &[T],
    la: &Layout,
    b: &[T],
    lb: &Layout,
    shape: &[usize],
    f: impl Fn(T, T) -> U + Sync,
) -> Vec<U> {
    let n = numel(shape);
    if PATTERNS && la.is_contiguous() && lb.is_contiguous() && la.shape() == shape && lb.shape() == shape {
        return par::zip(&a[la.offset()..la.offset() + n], &b[lb.offset()..lb.offset() + n], f);
    }
    let rows = Rows::new(shape, [la, lb]);
    let [ia, ib] = rows.step;
    let write = |first: usize, chunk: &mut [MaybeUninit<U>]| {
        for (i, out) in chunk.chunks_mut(rows.k).enumerate() {
            let [pa, pb] = rows.starts(first + i);
            row::<PATTERNS, T, U>(out, (a, pa, ia), (b, pb, ib), &f);
        }
    };
    // SAFETY: `fill` hands out chunks of whole rows of k elements; `row` writes all k of each.
    unsafe {
        if PATTERNS {
            par::fill_inline(rows.count, rows.k, write)
        } else {
            par::fill(rows.count, rows.k, write)
        }
    }
}

/// `c ? a : b` (`c` nonzero) over `shape`, each operand read through its layout broadcast to
/// `shape`, into a new contiguous vector: rows as [`zip_broadcast`]'s, with loops for the
/// patterns of a mask beside one or two full operands (`where(x > 0, g, 0)` is relu's
/// gradient). A strided walk of the three offsets took a fifth of a small MLP's training step.
pub(super) fn select_broadcast<T>(
    c: &[u8],
    lc: &Layout,
    a: &[T],
    la: &Layout,
    b: &[T],
    lb: &Layout,
    shape: &[usize],
) -> Vec<T>
where
    T: Copy + Send + Sync + Default + Not<Output = T> + BitAnd<Output = T> + BitOr<Output = T>,
{
    let rows = Rows::new(shape, [lc, la, lb]);
    let write = |first: usize, chunk: &mut [MaybeUninit<T>]| {
        for (i, out) in chunk.chunks_mut(rows.k).enumerate() {
            let [pc, pa, pb] = rows.starts(first + i);
            let k = out.len();
            // Bit masks, not a select: the rows loop then compiles to vector and/or (a select
            // of `x` or `y` per element stayed scalar in wasm: where over 1M took 2 ms, an add
            // 0.6).
            let pick = |m: u8, x: T, y: T| {
                let mask = if m != 0 { !T::default() } else { T::default() };
                (x & mask) | (y & !mask)
            };
            match rows.step {
                [1, 1, 1] => {
                    for (((o, &m), &x), &y) in
                        out.iter_mut().zip(&c[pc..pc + k]).zip(&a[pa..pa + k]).zip(&b[pb..pb + k])
                    {
                        o.write(pick(m, x, y));
                    }
                }
                [1, 1, 0] => {
                    let y = b[pb];
                    for ((o, &m), &x) in out.iter_mut().zip(&c[pc..pc + k]).zip(&a[pa..pa + k]) {
                        o.write(pick(m, x, y));
                    }
                }
                [1, 0, 1] => {
                    let x = a[pa];
                    for ((o, &m), &y) in out.iter_mut().zip(&c[pc..pc + k]).zip(&b[pb..pb + k]) {
                        o.write(pick(m, x, y));
                    }
                }
                [ic, ia, ib] => {
                    for (j, o) in out.iter_mut().enumerate() {
                        o.write(pick(c[pc + j * ic], a[pa + j * ia], b[pb + j * ib]));
                    }
                }
            }
        }
    };
    // SAFETY: `fill` hands out chunks of whole rows of k elements, and each arm writes all k.
    unsafe { par::fill(rows.count, rows.k, write) }
}

/// `f` over the elements of `l` (any strides, broadcast dims included) in row-major order, into
/// a new contiguous vector: rows as [`zip_broadcast`]'s, each one loop over a slice, a strided
/// walk or a repeated element. What every strided gather (`contiguous()`, a transpose before a
/// reduction, a cast of a view) goes through; an offset iterator over the rank per element ran a
/// 1024x1024 transpose at 6.7 ms in wasm.
pub(super) fn map_layout<T: Copy + Sync, U: Send>(v: &[T], l: &Layout, f: impl Fn(T) -> U + Sync) -> Vec<U> {
    let rows = Rows::new(l.shape(), [l]);
    let [step] = rows.step;
    // A transpose: consecutive output rows start one element apart and each walks its row at a
    // large step. Row by row, every element is a cache line and a page of its own (a 4096^2
    // transposing copy 53 ms); a few rows at a time, each column of them is a contiguous run of
    // the source (9-10 ms; PyTorch 2.15 39).
    let group = rows.outer.last().copied().filter(|_| rows.outer_strides[0].last() == Some(&1));
    if let Some(group) = group.filter(|&g| g >= TILE_ROWS && rows.k >= 2 * TILE_ROWS && step > 1) {
        let write = |first: usize, chunk: &mut [MaybeUninit<U>]| {
            let (k, n) = (rows.k, chunk.len() / rows.k);
            let mut r = first;
            while r < first + n {
                // Up to TILE rows of one group (their starts one apart) in this chunk.
                let tr = TILE_ROWS.min(group - r % group).min(first + n - r);
                let [base] = rows.starts(r);
                for c0 in (0..k).step_by(TILE_COLS) {
                    for c in c0..(c0 + TILE_COLS).min(k) {
                        let src = &v[base + c * step..base + c * step + tr];
                        for (i, &x) in src.iter().enumerate() {
                            chunk[(r - first + i) * k + c].write(f(x));
                        }
                    }
                }
                r += tr;
            }
        };
        // SAFETY: the tiles cover each chunk's rows and every column of them once.
        return unsafe { par::fill(rows.count, rows.k, write) };
    }
    let write = |first: usize, chunk: &mut [MaybeUninit<U>]| {
        for (i, out) in chunk.chunks_mut(rows.k).enumerate() {
            let ([p], k) = (rows.starts(first + i), out.len());
            match step {
                0 => {
                    let x = v[p];
                    out.iter_mut().for_each(|o| {
                        o.write(f(x));
                    });
                }
                // Slicing to the row's last element first bounds-checks the row once; the
                // zip then covers all of `out`.
                1 => out.iter_mut().zip(&v[p..p + k]).for_each(|(o, &x)| {
                    o.write(f(x));
                }),
                s => out.iter_mut().zip(v[p..=p + (k - 1) * s].iter().step_by(s)).for_each(|(o, &x)| {
                    o.write(f(x));
                }),
            }
        }
    };
    // SAFETY: `fill` hands out chunks of whole rows of k >= 1 elements; each arm writes all k
    // (the slices hold k elements at the row's step, or index out of bounds and panic first).
    unsafe { par::fill(rows.count, rows.k, write) }
}

/// Output rows a transposing gather writes together: the L1's eight ways (rows a power of two
/// apart fall in one set; with 32 at once a 4096^2 copy took 49 ms, with 8 it takes 9-10).
const TILE_ROWS: usize = 8;
/// Columns of those rows written before the next: a tile of 8 x 512 f32 is 16 KiB.
const TILE_COLS: usize = 512;

/// Copies the elements of `src` under `l` into `out` under `dst` (same shape; `dst` a view of
/// a contiguous buffer, such as one part's region of a `cat`), row by row: a slice copy where
/// both step 1, a strided loop otherwise.
pub(super) fn copy_into<T: Copy>(out: &mut [T], dst: &Layout, src: &[T], l: &Layout) {
    let rows = Rows::new(l.shape(), [dst, l]);
    let [sd, ss] = rows.step;
    for r in 0..rows.count {
        let ([pd, ps], k) = (rows.starts(r), rows.k);
        if (sd, ss) == (1, 1) {
            out[pd..pd + k].copy_from_slice(&src[ps..ps + k]);
        } else {
            for j in 0..k {
                out[pd + j * sd] = src[ps + j * ss];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain strided walk the fast paths must agree with.
    fn reference(a: &[f32], la: &Layout, b: &[f32], lb: &Layout, shape: &[usize]) -> Vec<f32> {
        let (sa, sb) = (la.broadcast_strides(shape), lb.broadcast_strides(shape));
        let oa = crate::layout::StridedOffsets::new(shape, &sa, la.offset());
        let ob = crate::layout::StridedOffsets::new(shape, &sb, lb.offset());
        oa.zip(ob).map(|(i, j)| a[i] * 10.0 + b[j]).collect()
    }

    #[test]
    fn broadcast_patterns_match_the_strided_walk() {
        let data: Vec<f32> = (0..200).map(|i| i as f32).collect();
        let cases: Vec<(Vec<usize>, Layout, Layout)> = vec![
            (vec![4, 5], Layout::contiguous(&[4, 5]), Layout::contiguous(&[])),
            (vec![4, 5], Layout::contiguous(&[]), Layout::contiguous(&[4, 5])),
            (vec![4, 5], Layout::contiguous(&[4, 5]), Layout::contiguous(&[5])),
            (vec![4, 5], Layout::contiguous(&[4, 1]), Layout::contiguous(&[4, 5])),
            (vec![3, 4, 5], Layout::contiguous(&[3, 1, 5]), Layout::contiguous(&[4, 1])),
            (vec![4, 5], Layout::contiguous(&[5, 4]).transpose("t", 0, 1).unwrap(), Layout::contiguous(&[1, 5])),
            (vec![1, 1], Layout::contiguous(&[1, 1]), Layout::contiguous(&[1])),
            (vec![0, 5], Layout::contiguous(&[0, 5]), Layout::contiguous(&[5])),
            (vec![2, 1, 3], Layout::contiguous(&[2, 1, 3]), Layout::contiguous(&[1, 1, 3])),
        ];
        for (shape, la, lb) in cases {
            let got = zip_broadcast::<ALL_PATTERNS, _, _>(&data, &la, &data[7..], &lb, &shape, |x, y| x * 10.0 + y);
            assert_eq!(got, reference(&data, &la, &data[7..], &lb, &shape), "{shape:?} {la:?} {lb:?}");
            let compact = zip_broadcast::<ONE_LOOP, _, _>(&data, &la, &data[7..], &lb, &shape, |x, y| x * 10.0 + y);
            assert_eq!(compact, got, "compact {shape:?} {la:?} {lb:?}");
        }
    }

    #[test]
    fn select_patterns_match_the_strided_walk() {
        // The kernel selects by element width, as the backend calls it (f32 as its bits).
        let data: Vec<u32> = (0..200).map(|i| (i as f32).to_bits()).collect();
        let mask: Vec<u8> = (0..200).map(|i| ((i * 7) % 3 == 0) as u8).collect();
        let c = |s: &[usize]| Layout::contiguous(s);
        let t = |s: &[usize]| Layout::contiguous(s).transpose("t", 0, 1).unwrap();
        // (shape, mask, a, b): every row pattern (full/scalar operands), broadcasts over rows
        // and columns, a transposed operand, 0-d and empty outputs.
        let cases: Vec<(Vec<usize>, Layout, Layout, Layout)> = vec![
            (vec![4, 5], c(&[4, 5]), c(&[4, 5]), c(&[4, 5])),
            (vec![4, 5], c(&[4, 5]), c(&[4, 5]), c(&[])),
            (vec![4, 5], c(&[4, 5]), c(&[]), c(&[4, 5])),
            (vec![4, 5], c(&[4, 5]), c(&[]), c(&[])),
            (vec![4, 5], c(&[4, 1]), c(&[4, 5]), c(&[5])),
            (vec![3, 4, 5], c(&[1, 4, 5]), t(&[5, 4]).unsqueeze("u", 0).unwrap(), c(&[3, 1, 1])),
            (vec![4, 5], c(&[5]), t(&[5, 4]), c(&[4, 1])),
            (vec![], c(&[]), c(&[]), c(&[])),
            (vec![0, 5], c(&[0, 5]), c(&[5]), c(&[])),
        ];
        for (shape, lc, la, lb) in cases {
            let got = select_broadcast(&mask, &lc, &data, &la, &data[50..], &lb, &shape);
            let off = |l: &Layout| {
                let s = l.broadcast_strides(&shape);
                crate::layout::StridedOffsets::new(&shape, &s, l.offset()).collect::<Vec<_>>()
            };
            let want: Vec<u32> = off(&lc)
                .into_iter()
                .zip(off(&la))
                .zip(off(&lb))
                .map(|((i, j), k)| if mask[i] != 0 { data[j] } else { data[50 + k] })
                .collect();
            assert_eq!(got, want, "{shape:?} {lc:?} {la:?} {lb:?}");
        }
    }

    #[test]
    fn layout_walks_match_the_strided_walk() {
        let data: Vec<f32> = (0..200).map(|i| i as f32).collect();
        let c = |s: &[usize]| Layout::contiguous(s);
        let cases = vec![
            c(&[4, 5]),
            c(&[5, 4]).transpose("t", 0, 1).unwrap(),
            c(&[2, 3, 4]).permute("p", &[2, 0, 1]).unwrap(),
            c(&[3, 1]).expand("e", &[2, 3, 4]).unwrap(),
            c(&[6, 8]).slice_step("s", 1, 1, 8, 3).unwrap().narrow("n", 0, 2, 3).unwrap(),
            c(&[]),
            c(&[0, 5]).transpose("t", 0, 1).unwrap(),
        ];
        for l in cases {
            let got = map_layout(&data, &l, |x| x + 0.5);
            let want: Vec<f32> =
                crate::layout::StridedOffsets::new(l.shape(), l.strides(), l.offset()).map(|o| data[o] + 0.5).collect();
            assert_eq!(got, want, "{l:?}");
        }
    }

    /// Transposing gathers in tiles of rows: groups and rows that the tiles do not divide, a
    /// batch of transposes, a transpose at an offset, and (past the threads' split) chunks that
    /// cut a group of rows.
    #[test]
    fn tiled_transposes_match_the_strided_walk() {
        let data: Vec<f32> = (0..400_000).map(|i| i as f32).collect();
        let c = |s: &[usize]| Layout::contiguous(s);
        let cases = vec![
            c(&[37, 45]).transpose("t", 0, 1).unwrap(),
            c(&[3, 37, 45]).permute("p", &[0, 2, 1]).unwrap(),
            c(&[700, 530]).transpose("t", 0, 1).unwrap(),
            c(&[20, 600]).narrow("n", 0, 3, 16).unwrap().transpose("t", 0, 1).unwrap(),
            c(&[4, 9, 1030]).permute("p", &[2, 0, 1]).unwrap(),
        ];
        for l in cases {
            let got = map_layout(&data, &l, |x| x * 2.0);
            let want: Vec<f32> =
                crate::layout::StridedOffsets::new(l.shape(), l.strides(), l.offset()).map(|o| data[o] * 2.0).collect();
            assert_eq!(got, want, "{l:?}");
        }
    }

    #[test]
    fn copies_into_regions_match_the_strided_walk() {
        let data: Vec<f32> = (0..200).map(|i| i as f32).collect();
        let c = |s: &[usize]| Layout::contiguous(s);
        // (output shape, region of it, source view of the region's shape)
        let cases = vec![
            (vec![4, 5], c(&[4, 5]).narrow("n", 1, 1, 3).unwrap(), c(&[4, 3])),
            (vec![6, 5], c(&[6, 5]).narrow("n", 0, 2, 3).unwrap(), c(&[5, 3]).transpose("t", 0, 1).unwrap()),
            (
                vec![2, 3, 4],
                c(&[2, 3, 4]).narrow("n", 1, 0, 2).unwrap(),
                c(&[2, 1, 4]).expand("e", &[2, 2, 4]).unwrap(),
            ),
            (vec![3], c(&[3]), c(&[3])),
            (vec![0, 4], c(&[0, 4]), c(&[0, 4])),
        ];
        for (shape, region, l) in cases {
            let mut got = vec![-1.0f32; crate::shape::numel(&shape)];
            copy_into(&mut got, &region, &data, &l);
            let mut want = vec![-1.0f32; got.len()];
            let src = crate::layout::StridedOffsets::new(l.shape(), l.strides(), l.offset());
            for (o, i) in crate::layout::StridedOffsets::new(region.shape(), region.strides(), region.offset()).zip(src)
            {
                want[o] = data[i];
            }
            assert_eq!(got, want, "{region:?} {l:?}");
        }
    }

    #[test]
    fn coalesce_merges_contiguous_and_broadcast_runs() {
        let (dims, [sa, sb]) = coalesce(&[2, 3, 4], [&[12, 4, 1], &[0, 0, 0]]);
        assert_eq!((dims, sa, sb), (vec![24], vec![1], vec![0]));
        let (dims, [sa, sb]) = coalesce(&[2, 3, 4], [&[12, 4, 1], &[0, 0, 1]]);
        assert_eq!((dims, sa, sb), (vec![6, 4], vec![4, 1], vec![0, 1]));
    }
}
