//! f32 matrix product for the npm package's CPU device (wasm32 with simd128): packed panels and
//! a 4x8 microkernel. matrixmultiply's wasm kernel is 8x8, whose sixteen accumulators and
//! four operand vectors do not fit x86's sixteen vector registers, so V8 spilled inside the
//! inner loop (0.84x tfjs-wasm's XNNPACK in Chromium). A 6x8 kernel did not fit either: LLVM
//! hoists all six splats of A ahead of their uses (19 live vectors; 0.81-0.94x). Four rows keep
//! eight accumulators, two vectors of B and four splats live, as XNNPACK's x86 wasm SIMD
//! configuration does (4x8 "loadsplat").
//!
//! Blocking follows Goto: a KC x NC panel of B packed into strips of 8 columns, an MC x KC block
//! of A packed into strips of 4 rows (both zero-padded at the edges), and the microkernel adds
//! each 4x8 tile of their product into C.

use core::arch::wasm32::*;
use std::cell::RefCell;

use crate::op::MatmulArgs;

const MR: usize = 4;
const NR: usize = 8;
/// Depth of a packed block: a strip of A (4 x 256) and of B (256 x 8) stay in L1.
const KC: usize = 256;
/// Rows of A per packed block (a multiple of MR): 64 x 256 floats, 64 KB, for L2.
const MC: usize = 64;
/// Columns of B per packed panel (a multiple of NR): 256 x 1024 floats, 1 MB.
const NC: usize = 1024;

/// One operand's geometry: `x[i][j]` is `data[offset + i * rs + j * cs]`.
#[derive(Clone, Copy)]
struct Operand<'a> {
    data: &'a [f32],
    offset: usize,
    rs: usize,
    cs: usize,
}

impl Operand<'_> {
    #[inline(always)]
    fn at(&self, i: usize, j: usize) -> f32 {
        self.data[self.offset + i * self.rs + j * self.cs]
    }
}

/// `c += a . b` for one product of `g` (batch index `bi`), `c` row-major with `g.n` columns.
pub(super) fn sgemm(a: &[f32], b: &[f32], g: &MatmulArgs, bi: usize, c: &mut [f32]) {
    let (m, k, n) = (g.m, g.k, g.n);
    let a = Operand { data: a, offset: g.a.offset + bi * g.a.batch_stride, rs: g.a.row_stride, cs: g.a.col_stride };
    // B transposed: its columns are packed as A's rows are.
    let b = Operand { data: b, offset: g.b.offset + bi * g.b.batch_stride, rs: g.b.col_stride, cs: g.b.row_stride };
    SCRATCH.with_borrow_mut(|(bp, ap)| {
        // Packing writes every value of each strip it uses, padding included: the buffers
        // only grow, and are never cleared.
        let (bn, an) = (KC * NC.min(n.next_multiple_of(NR)), MC * KC);
        if bp.len() < bn {
            bp.resize(bn, 0.0);
        }
        if ap.len() < an {
            ap.resize(an, 0.0);
        }
        blocks(&a, &b, (m, k, n), c, bp, ap);
    });
}

thread_local! {
    /// The packed panels, kept between products (at most 1.06 MiB): a fresh zeroed megabyte
    /// for each product cost a convolution in wasm, whose im2col blocks make 40 products of
    /// 32 rows, a tenth of its time in the allocator's memset.
    static SCRATCH: RefCell<(Vec<f32>, Vec<f32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// The Goto loops over packed blocks of `a` and `b` (`m` x `k` by `k` x `n`) into `c`, with
/// `bp` and `ap` as the panels.
fn blocks(a: &Operand, b: &Operand, (m, k, n): (usize, usize, usize), c: &mut [f32], bp: &mut [f32], ap: &mut [f32]) {
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            pack::<NR>(b, jc, nc, pc, kc, bp);
            for ic in (0..m).step_by(MC) {
                let mc = MC.min(m - ic);
                pack::<MR>(a, ic, mc, pc, kc, ap);
                for (s, jr) in (0..nc).step_by(NR).enumerate() {
                    let strip_b = &bp[s * kc * NR..(s + 1) * kc * NR];
                    for (t, ir) in (0..mc).step_by(MR).enumerate() {
                        let strip_a = &ap[t * kc * MR..(t + 1) * kc * MR];
                        let tile = kernel(strip_a, strip_b, kc);
                        add_tile(&tile, c, n, ic + ir, jc + jr, MR.min(mc - ir), NR.min(nc - jr));
                    }
                }
            }
        }
    }
}

/// Packs rows `r0..r0 + rows` and columns `p0..p0 + depth` of `x` into strips of `W` rows,
/// each stored column after column (`W` values per column), the last strip zero-padded.
/// A is packed as it is (strips of MR rows); B transposed (strips of NR columns).
fn pack<const W: usize>(x: &Operand, r0: usize, rows: usize, p0: usize, depth: usize, out: &mut [f32]) {
    for (t, ir) in (0..rows).step_by(W).enumerate() {
        let strip = &mut out[t * depth * W..(t + 1) * depth * W];
        let live = W.min(rows - ir);
        if live == W && x.rs == 1 {
            // A full strip whose W values per column lie side by side (B stored row-major, as
            // the im2col windows of a convolution are): one block copy per column. Value by
            // value, each index computed and bounds-checked, packing took a quarter of a
            // 32-row product (a convolution's: each value of B serves only 32 rows), which ran
            // at 27 GFLOP/s against 37 with 256 rows; now 33-36.
            let start = x.offset + (r0 + ir) + p0 * x.cs;
            for (p, col) in strip.chunks_exact_mut(W).enumerate() {
                let at = start + p * x.cs;
                col.copy_from_slice(&x.data[at..at + W]);
            }
            continue;
        }
        for (p, col) in strip.chunks_exact_mut(W).enumerate() {
            for (i, v) in col.iter_mut().enumerate() {
                *v = if i < live { x.at(r0 + ir + i, p0 + p) } else { 0.0 };
            }
        }
    }
}

/// The 4x8 tile `a . b` of a packed strip of A (kc x MR) and of B (kc x NR).
#[inline(always)]
fn kernel(a: &[f32], b: &[f32], kc: usize) -> [[v128; 2]; MR] {
    let mut acc = [[f32x4_splat(0.0); 2]; MR];
    let (a, b) = (&a[..kc * MR], &b[..kc * NR]);
    for p in 0..kc {
        // SAFETY: p < kc, and the slices hold kc * MR and kc * NR floats, so each 16-byte load
        // of B (at p * NR and p * NR + 4) and each 4-byte splat of A lies inside them; wasm
        // loads are unaligned.
        unsafe {
            let bp = b.as_ptr().add(p * NR);
            let b0 = v128_load(bp as *const v128);
            let b1 = v128_load(bp.add(4) as *const v128);
            let ap = a.as_ptr().add(p * MR);
            for (i, row) in acc.iter_mut().enumerate() {
                let ai = v128_load32_splat(ap.add(i) as *const u32);
                row[0] = f32x4_add(row[0], f32x4_mul(ai, b0));
                row[1] = f32x4_add(row[1], f32x4_mul(ai, b1));
            }
        }
    }
    acc
}

/// Adds the top-left `rows` x `cols` of `tile` into `c` (row-major, `n` columns) at (`i0`, `j0`).
fn add_tile(tile: &[[v128; 2]; MR], c: &mut [f32], n: usize, i0: usize, j0: usize, rows: usize, cols: usize) {
    for (i, row) in tile.iter().enumerate().take(rows) {
        let at = (i0 + i) * n + j0;
        let dst = &mut c[at..at + cols];
        if cols == NR {
            let p = dst.as_mut_ptr() as *mut v128;
            // SAFETY: `dst` holds NR = 8 floats: two v128, stored unaligned.
            unsafe {
                v128_store(p, f32x4_add(v128_load(p), row[0]));
                v128_store(p.add(1), f32x4_add(v128_load(p.add(1)), row[1]));
            }
        } else {
            let mut vals = [0.0f32; NR];
            // SAFETY: `vals` holds NR = 8 floats: two v128.
            unsafe {
                v128_store(vals.as_mut_ptr() as *mut v128, row[0]);
                v128_store(vals.as_mut_ptr().add(4) as *mut v128, row[1]);
            }
            for (d, v) in dst.iter_mut().zip(vals) {
                *d += v;
            }
        }
    }
}
