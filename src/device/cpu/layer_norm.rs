//! The fused LayerNorm family on the CPU (semantics in `op::layer_norm`): rows split across
//! threads, one pass over a row for its statistics and one to write it; the backward's weight
//! and bias gradients summed per thread in f64 and combined in thread order.

use super::par;
use crate::op::layer_norm::LayerNormArgs;

/// Rows per part below which a split is not worth a thread.
const MIN_ROWS: usize = 64;

/// Threads for `rows` rows.
fn parts(rows: usize) -> usize {
    par::threads().min(rows.div_ceil(MIN_ROWS)).max(1)
}

/// A row's mean and `rsqrt(var + eps)`, the composed formula's: the mean in f64, `c = x - mean`
/// in f32, the variance as the f64 mean of `c^2`.
fn stats(x: &[f32], eps: f32) -> (f32, f32) {
    let n = x.len() as f64;
    let mean = (x.iter().map(|&v| v as f64).sum::<f64>() / n) as f32;
    let var = (x.iter().map(|&v| ((v - mean) * (v - mean)) as f64).sum::<f64>() / n) as f32;
    (mean, 1.0 / (var + eps).sqrt())
}

/// The forward: `[y, means, rstds]` as `LayerNormArgs::forward_len` lays them out.
pub(super) fn forward(x: &[f32], w: Option<&[f32]>, b: Option<&[f32]>, a: &LayerNormArgs) -> Vec<f32> {
    let mut out = vec![0.0f32; a.forward_len()];
    let (mean_at, rstd_at) = a.stats_at();
    let dst = par::Disjoint::new(&mut out);
    let (w, b) = (w.map(|w| &w[a.w_offset.unwrap_or(0)..][..a.n]), b.map(|b| &b[a.b_offset.unwrap_or(0)..][..a.n]));
    par::split(parts(a.rows), a.rows, |rows| {
        for r in rows {
            let xr = &x[a.x_offset + r * a.n..][..a.n];
            let (mean, rstd) = stats(xr, a.eps);
            // SAFETY: row r of y and its two statistics, written by this part alone.
            let (y, m, s) = unsafe {
                (
                    dst.slice(r * a.n..(r + 1) * a.n),
                    dst.slice(mean_at + r..mean_at + r + 1),
                    dst.slice(rstd_at + r..rstd_at + r + 1),
                )
            };
            (m[0], s[0]) = (mean, rstd);
            for (i, (o, &v)) in y.iter_mut().zip(xr).enumerate() {
                let mut t = (v - mean) * rstd;
                if let Some(w) = w {
                    t *= w[i];
                }
                if let Some(b) = b {
                    t += b[i];
                }
                *o = t;
            }
        }
    });
    out
}

/// The backward: `[dx, dw, db]` as `LayerNormArgs::backward_len` lays them out, from the input,
/// the weight, the forward's output (`saved`: its statistics) and the output's gradient.
pub(super) fn backward(x: &[f32], w: Option<&[f32]>, saved: &[f32], dy: &[f32], a: &LayerNormArgs) -> Vec<f32> {
    let mut out = vec![0.0f32; a.backward_len()];
    let (mean_at, rstd_at) = a.stats_at();
    let n = a.n;
    let w = w.map(|w| &w[a.w_offset.unwrap_or(0)..][..n]);
    let dst = par::Disjoint::new(&mut out[..a.rows * n]);
    let partials = par::split(parts(a.rows), a.rows, |rows| {
        let (mut dw, mut db) = (vec![0.0f64; n], vec![0.0f64; n]);
        let (mut g, mut xhat) = (vec![0.0f32; n], vec![0.0f32; n]);
        for r in rows {
            let (xr, dyr) = (&x[a.x_offset + r * n..][..n], &dy[a.dy_offset + r * n..][..n]);
            let (mean, rstd) = (saved[mean_at + r], saved[rstd_at + r]);
            let (mut sg, mut sgx) = (0.0f64, 0.0f64);
            for i in 0..n {
                xhat[i] = (xr[i] - mean) * rstd;
                g[i] = w.map_or(dyr[i], |w| dyr[i] * w[i]);
                sg += g[i] as f64;
                sgx += (g[i] * xhat[i]) as f64;
                dw[i] += (dyr[i] * xhat[i]) as f64;
                db[i] += dyr[i] as f64;
            }
            let (mg, mgx) = ((sg / n as f64) as f32, (sgx / n as f64) as f32);
            // SAFETY: row r of dx, written by this part alone.
            let dx = unsafe { dst.slice(r * n..(r + 1) * n) };
            for i in 0..n {
                dx[i] = rstd * (g[i] - mg - xhat[i] * mgx);
            }
        }
        (dw, db)
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
