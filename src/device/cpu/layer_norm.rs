//! The fused LayerNorm family on the CPU (semantics in `op::fused::layer_norm`): rows split across
//! threads, lane-parallel f64 passes over a row for its statistics and one to write it; the backward's weight
//! and bias gradients summed per thread in f64 and combined in thread order.

use super::par;
use super::reduce::sum_f64;

/// Row loops through the AVX2 copy where there is one: LayerNorm's passes are bound by
/// arithmetic, and baseline x86-64 runs them at SSE2's width.
use super::wide;
use crate::op::fused::layer_norm::LayerNormArgs;

/// Rows per part below which a split is not worth a thread.
const MIN_ROWS: usize = 64;

/// Threads for `rows` rows.
fn parts(rows: usize) -> usize {
    par::threads().min(rows.div_ceil(MIN_ROWS)).max(1)
}

/// A row's mean and `rsqrt(var + eps)`, the composed formula's: the mean in f64, `c = x - mean`
/// in f32, the variance as the f64 mean of `c^2`. Both sums run over eight f64 lanes
/// (`reduce::sum_f64`, as the CPU's own sums): one running f64 sum was a chain of dependent adds
/// (LayerNorm forward of a GPT step's [768, 128] rows took 0.18 ms a call). `sq` is scratch of
/// the row's length.
#[inline(always)]
fn stats(x: &[f32], eps: f32, sq: &mut [f32]) -> (f32, f32) {
    let n = x.len() as f64;
    let mean = (sum_f64(x) / n) as f32;
    for (s, &v) in sq.iter_mut().zip(x) {
        *s = (v - mean) * (v - mean);
    }
    let var = (sum_f64(sq) / n) as f32;
    (mean, 1.0 / (var + eps).sqrt())
}

/// The forward: `[y, means, rstds]` as `LayerNormArgs::forward_len` lays them out.
pub(super) fn forward(x: &[f32], w: Option<&[f32]>, b: Option<&[f32]>, a: &LayerNormArgs) -> Vec<f32> {
    let mut out = super::alloc::zeroed::<f32>(a.forward_len());
    let (mean_at, rstd_at) = a.stats_at();
    let dst = par::Disjoint::new(&mut out);
    let (w, b) = (w.map(|w| &w[a.w_offset.unwrap_or(0)..][..a.n]), b.map(|b| &b[a.b_offset.unwrap_or(0)..][..a.n]));
    par::split(parts(a.rows), a.rows, |rows| {
        wide(|| {
            let mut sq = vec![0.0f32; a.n];
            for r in rows {
                let xr = &x[a.x_offset + r * a.n..][..a.n];
                let (mean, rstd) = stats(xr, a.eps, &mut sq);
                // SAFETY: row r of y and its two statistics, written by this part alone.
                let (y, m, s) = unsafe {
                    (
                        dst.slice(r * a.n..(r + 1) * a.n),
                        dst.slice(mean_at + r..mean_at + r + 1),
                        dst.slice(rstd_at + r..rstd_at + r + 1),
                    )
                };
                (m[0], s[0]) = (mean, rstd);
                // One loop per affine form, each vectorised (a branch per element was not hoisted).
                let norm = |v: f32| (v - mean) * rstd;
                match (w, b) {
                    (Some(w), Some(b)) => {
                        for (((o, &v), &wi), &bi) in y.iter_mut().zip(xr).zip(w).zip(b) {
                            *o = norm(v) * wi + bi;
                        }
                    }
                    (Some(w), None) => {
                        for ((o, &v), &wi) in y.iter_mut().zip(xr).zip(w) {
                            *o = norm(v) * wi;
                        }
                    }
                    (None, Some(b)) => {
                        for ((o, &v), &bi) in y.iter_mut().zip(xr).zip(b) {
                            *o = norm(v) + bi;
                        }
                    }
                    (None, None) => {
                        for (o, &v) in y.iter_mut().zip(xr) {
                            *o = norm(v);
                        }
                    }
                }
            }
        })
    });
    out
}

/// The backward: `[dx, dw, db]` as `LayerNormArgs::backward_len` lays them out, from the input,
/// the weight, the forward's output (`saved`: its statistics) and the output's gradient.
pub(super) fn backward(x: &[f32], w: Option<&[f32]>, saved: &[f32], dy: &[f32], a: &LayerNormArgs) -> Vec<f32> {
    let mut out = super::alloc::zeroed::<f32>(a.backward_len());
    let (mean_at, rstd_at) = a.stats_at();
    let n = a.n;
    let w = w.map(|w| &w[a.w_offset.unwrap_or(0)..][..n]);
    let dst = par::Disjoint::new(&mut out[..a.rows * n]);
    let partials = par::split(parts(a.rows), a.rows, |rows| {
        wide(|| {
            let (mut dw, mut db) = (vec![0.0f64; n], vec![0.0f64; n]);
            let (mut g, mut xhat, mut gx) = (vec![0.0f32; n], vec![0.0f32; n], vec![0.0f32; n]);
            for r in rows {
                let (xr, dyr) = (&x[a.x_offset + r * n..][..n], &dy[a.dy_offset + r * n..][..n]);
                let (mean, rstd) = (saved[mean_at + r], saved[rstd_at + r]);
                // Element-wise passes that vectorise, then the two row sums over f64 lanes (as
                // the forward's statistics); dw and db accumulate per element in f64.
                for i in 0..n {
                    xhat[i] = (xr[i] - mean) * rstd;
                    g[i] = w.map_or(dyr[i], |w| dyr[i] * w[i]);
                    gx[i] = g[i] * xhat[i];
                    dw[i] += (dyr[i] * xhat[i]) as f64;
                    db[i] += dyr[i] as f64;
                }
                let (mg, mgx) = ((sum_f64(&g) / n as f64) as f32, (sum_f64(&gx) / n as f64) as f32);
                // SAFETY: row r of dx, written by this part alone.
                let dx = unsafe { dst.slice(r * n..(r + 1) * n) };
                for i in 0..n {
                    dx[i] = rstd * (g[i] - mg - xhat[i] * mgx);
                }
            }
            (dw, db)
        })
    });
    let (mut dw, mut db) = (vec![0.0f64; n], vec![0.0f64; n]);
    for (pw, pb) in partials {
        dw.iter_mut().zip(pw).for_each(|(a, b)| *a += b);
        db.iter_mut().zip(pb).for_each(|(a, b)| *a += b);
    }
    let at = a.rows * n;
    out[at..at + n].iter_mut().zip(&dw).for_each(|(o, &v)| *o = v as f32);
    out[at + n..at + 2 * n].iter_mut().zip(&db).for_each(|(o, &v)| *o = v as f32);
    out
}
