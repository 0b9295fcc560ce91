//! Pooling as functions, PyTorch's `F.max_pool1d/2d`, `F.avg_pool1d/2d` and
//! `F.adaptive_avg_pool1d/2d`.
//!
//! Max and average pooling reduce the windows view (`window.rs`) over its kernel dims: the CPU
//! folds each window's taps in place, a GPU gathers the view into rows first. Max pooling's
//! indices (its gradient's too) come from the windows made contiguous rows; the gradient
//! scatters the output gradient to the argmax of each window (`scatter_add`, so windows that
//! share a maximum add up, as in PyTorch); average pooling's is the transposed convolution by a
//! box of ones.
//! Adaptive average pooling is two small matmuls by pooling matrices (row `i` averages input
//! entries `floor(i * in / out) .. ceil((i + 1) * in / out)`), exact for any sizes.

use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::nn::conv::transpose_full;
use crate::nn::window::{from_planes, host_table, per_axis, to_planes, windows, Axis};
use crate::ops::grad::unary_rule;
use crate::ops::pad::PadMode;
use crate::tensor::Tensor;

/// Options of max pooling (PyTorch's defaults: the stride is the kernel size, no padding,
/// dilation 1, floor mode). Each takes one value for every spatial dim or one per dim.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MaxPoolOptions {
    /// Step between windows; empty means the kernel size.
    pub stride: Vec<usize>,
    /// Implicit `-inf` padding on both sides, at most half the kernel.
    pub padding: Vec<usize>,
    /// Step between taps; empty means 1.
    pub dilation: Vec<usize>,
    /// Rounds the output size up, keeping a last partial window that starts inside.
    pub ceil_mode: bool,
}

/// Options of average pooling (PyTorch's defaults: the stride is the kernel size, no padding,
/// floor mode, padding counted in the divisor).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AvgPoolOptions {
    /// Step between windows; empty means the kernel size.
    pub stride: Vec<usize>,
    /// Implicit zero padding on both sides, at most half the kernel.
    pub padding: Vec<usize>,
    /// Rounds the output size up, keeping a last partial window that starts inside.
    pub ceil_mode: bool,
    /// Whether padded entries count in the divisor.
    pub count_include_pad: bool,
    /// Divides every window by this instead.
    pub divisor_override: Option<usize>,
}

impl Default for AvgPoolOptions {
    fn default() -> Self {
        AvgPoolOptions {
            stride: vec![],
            padding: vec![0],
            ceil_mode: false,
            count_include_pad: true,
            divisor_override: None,
        }
    }
}

/// Kernel, stride, padding (and dilation) per 2-D axis, 1-D lifted with a unit height.
fn axes(
    op: &'static str,
    dims: usize,
    size: &[usize],
    kernel: &[usize],
    o: (&[usize], &[usize], &[usize]),
    ceil_mode: bool,
) -> Result<[Axis; 2]> {
    let k = per_axis(op, "kernel_size", kernel, dims, 1)?;
    let or = |v: &[usize], what: &str, unit: usize, default: &[usize]| {
        if v.is_empty() {
            Ok(default.to_vec())
        } else {
            per_axis(op, what, v, dims, unit)
        }
    };
    let (s, p, d) = (or(o.0, "stride", 1, &k)?, or(o.1, "padding", 0, &[0, 0])?, or(o.2, "dilation", 1, &[1, 1])?);
    Ok([
        Axis::pool(op, size[0], k[0], s[0], d[0], p[0], ceil_mode)?,
        Axis::pool(op, size[1], k[1], s[1], d[1], p[1], ceil_mode)?,
    ])
}

/// `x` padded for the windows of `h` and `w` with `value`.
fn padded(x: &Tensor, h: &Axis, w: &Axis, value: f64) -> Result<Tensor> {
    let p = [w.before, w.after, h.before, h.after].map(|v| v as isize);
    if p.iter().all(|&v| v == 0) {
        return Ok(x.clone());
    }
    x.pad(&p, PadMode::Constant, value)
}

/// The windows of a padded `[N, C, Hp, Wp]` tensor as contiguous rows `[N, C, oh, ow, kh*kw]`.
fn window_rows(xp: &Tensor, h: &Axis, w: &Axis) -> Result<Tensor> {
    let (n, c) = (xp.shape()[0] as isize, xp.shape()[1] as isize);
    windows(xp, 1, h, w).permute(&[0, 1, 2, 5, 6, 3, 4])?.contiguous()?.reshape(&[
        n,
        c,
        h.out as isize,
        w.out as isize,
        (h.kernel * w.kernel) as isize,
    ])
}

/// 2-D max pooling of `[N, C, H, W]` (or `[C, H, W]`): the maximum of each window, NaN if the
/// window has one. Returns the values and, as PyTorch's `return_indices`, each maximum's flat
/// index `h * W + w` in its input plane (i32; PyTorch's are int64).
pub fn max_pool2d_with_indices(x: &Tensor, kernel: &[usize], options: &MaxPoolOptions) -> Result<(Tensor, Tensor)> {
    let (values, indices) = max_pool("max_pool2d", 2, x, kernel, options, true)?;
    Ok((values, indices.ok_or_else(|| Error::invalid("max_pool2d", "no indices"))?))
}

/// 2-D max pooling (see [`max_pool2d_with_indices`]).
pub fn max_pool2d(x: &Tensor, kernel: &[usize], options: &MaxPoolOptions) -> Result<Tensor> {
    Ok(max_pool("max_pool2d", 2, x, kernel, options, false)?.0)
}

/// 1-D max pooling of `[N, C, L]` (or `[C, L]`); indices count along `L`.
pub fn max_pool1d_with_indices(x: &Tensor, kernel: &[usize], options: &MaxPoolOptions) -> Result<(Tensor, Tensor)> {
    let (values, indices) = max_pool("max_pool1d", 1, x, kernel, options, true)?;
    Ok((values, indices.ok_or_else(|| Error::invalid("max_pool1d", "no indices"))?))
}

/// 1-D max pooling (see [`max_pool1d_with_indices`]).
pub fn max_pool1d(x: &Tensor, kernel: &[usize], options: &MaxPoolOptions) -> Result<Tensor> {
    Ok(max_pool("max_pool1d", 1, x, kernel, options, false)?.0)
}

/// Max pooling's values, a reduction over the windows view in place (no im2col copy on the
/// CPU), and, when `with_indices`, the argmax indices. The gradient needs the argmax too, so
/// its rule works it out from the padded input when backward runs: inference pays for neither
/// (max_pool2d of [8, 32, 64, 64] by 2 in wasm spent 4/5 of its 37 ms on the indices).
fn max_pool(
    op: &'static str,
    dims: usize,
    input: &Tensor,
    kernel: &[usize],
    o: &MaxPoolOptions,
    with_indices: bool,
) -> Result<(Tensor, Option<Tensor>)> {
    if input.dtype() == DType::Bool {
        return Err(Error::UnsupportedDType { op, dtype: DType::Bool, reason: "max pooling needs numbers".into() });
    }
    let (x, batched) = to_planes(op, dims, input)?;
    let [h, w] = axes(op, dims, &x.shape()[2..], kernel, (&o.stride, &o.padding, &o.dilation), o.ceil_mode)?;
    let (n, c) = (x.shape()[0], x.shape()[1]);
    let (wp, l) = (w.padded(), h.out * w.out);
    if h.padded().checked_mul(wp).is_none_or(|v| v > i32::MAX as usize) {
        return Err(Error::invalid(
            op,
            format!("a padded plane of {} x {wp} is past the 2^31 entries i32 indices can name", h.padded()),
        ));
    }
    host_table(op, &[l.max(h.kernel * w.kernel)])?;
    let geometry = Pooled { h, w, n, c };
    let (xp, values) = {
        let _paused = crate::tensor::node::pause();
        let lowest = match x.dtype() {
            DType::I32 => i32::MIN as f64,
            DType::U32 => 0.0,
            _ => f64::NEG_INFINITY,
        };
        let xp = padded(&x, &h, &w, lowest)?;
        // [N, 1, C, kh, kw, oh, ow] reduced over (kh, kw).
        let values = windows(&xp, 1, &h, &w).max(&[3, 4], false)?.reshape(&[
            n as isize,
            c as isize,
            h.out as isize,
            w.out as isize,
        ])?;
        (xp, values)
    };
    let indices = match with_indices {
        true => Some(geometry.indices(&geometry.argmax_flat(&xp, &values)?)?),
        false => None,
    };
    let (hp, shape) = (h.padded(), x.shape().to_vec());
    let values = Tensor::composite(values.clone(), op, &[&x], |_| {
        unary_rule(move |g| {
            let flat = {
                let _paused = crate::tensor::node::pause();
                geometry.argmax_flat(&xp, &values)?
            };
            let g = g.reshape(&[n as isize, c as isize, l as isize])?;
            let plane = g.new_zeros(&[n, c, hp * wp])?.scatter_add(2, &flat, &g)?;
            plane
                .reshape(&[n as isize, c as isize, hp as isize, wp as isize])?
                .narrow(2, h.before, shape[2])?
                .narrow(3, w.before, shape[3])
        })
    });
    let indices = indices.map(|i| from_planes(i, dims, batched)).transpose()?;
    Ok((from_planes(values, dims, batched)?, indices))
}

/// The window geometry of one max pooling: what its indices are worked out from.
#[derive(Clone, Copy)]
struct Pooled {
    h: Axis,
    w: Axis,
    n: usize,
    c: usize,
}

impl Pooled {
    /// Each maximum's position `[N, C, oh * ow]` in the padded plane `xp` (i32): the window's
    /// origin plus the tap [`window_argmax`] picks.
    fn argmax_flat(&self, xp: &Tensor, values: &Tensor) -> Result<Tensor> {
        let Pooled { h, w, n, c } = *self;
        let (wp, l, dev) = (w.padded(), h.out * w.out, xp.device());
        let rows = window_rows(xp, &h, &w)?;
        let arg = window_argmax(&rows, values, &h, &w)?.reshape(&[-1])?;
        let taps: Vec<i32> = (0..h.kernel * w.kernel)
            .map(|k| ((k / w.kernel) * h.dilation * wp + (k % w.kernel) * w.dilation) as i32)
            .collect();
        let origins: Vec<i32> = (0..l).map(|i| ((i / w.out) * h.stride * wp + (i % w.out) * w.stride) as i32).collect();
        let taps = Tensor::from_slice(&taps, &[taps.len()], dev)?;
        let origins = Tensor::from_slice(&origins, &[l], dev)?;
        taps.index_select(0, &arg)?.reshape(&[n as isize, c as isize, l as isize])?.add(&origins)
    }

    /// PyTorch's indices `[N, C, oh, ow]`, which count in the unpadded plane, from positions in
    /// the padded one.
    fn indices(&self, flat: &Tensor) -> Result<Tensor> {
        let Pooled { h, w, n, c } = *self;
        let wp = w.padded() as f64;
        let (row, col) = (flat.floor_divide_scalar(wp)?, flat.remainder_scalar(wp)?);
        let row = row.sub_scalar(h.before as f64)?.mul_scalar(w.size as f64)?;
        row.add(&col.sub_scalar(w.before as f64)?)?.reshape(&[n as isize, c as isize, h.out as isize, w.out as isize])
    }
}

/// The tap of each window's maximum, as PyTorch's CPU kernel picks it: the first tap equal to
/// the maximum, never a padding tap (a window of -inf values picks its first real entry), and
/// the last NaN when the window has one.
fn window_argmax(rows: &Tensor, values: &Tensor, h: &Axis, w: &Axis) -> Result<Tensor> {
    let kk = h.kernel * w.kernel;
    let mut hit = rows.eq(&values.unsqueeze(-1)?)?;
    if h.before + h.after + w.before + w.after > 0 {
        // Which taps of which windows read the input, per axis: [oh, 1, kh, 1] & [1, ow, 1, kw].
        let inside = |a: &Axis| -> Vec<bool> {
            (0..a.out)
                .flat_map(|o| {
                    (0..a.kernel).map(move |k| {
                        let at = o * a.stride + k * a.dilation;
                        at >= a.before && at < a.before + a.size
                    })
                })
                .collect()
        };
        let dev = rows.device();
        let vh = Tensor::from_slice(&inside(h), &[h.out, 1, h.kernel, 1], dev)?;
        let vw = Tensor::from_slice(&inside(w), &[1, w.out, 1, w.kernel], dev)?;
        let valid = vh.logical_and(&vw)?.reshape(&[h.out as isize, w.out as isize, kk as isize])?;
        hit = hit.logical_and(&valid)?;
    }
    let first = hit.to_dtype(DType::I32)?.argmax(Some(-1), false)?;
    if !rows.dtype().is_float() {
        return Ok(first);
    }
    let last_nan = rows.isnan()?.flip(&[-1])?.to_dtype(DType::I32)?.argmax(Some(-1), false)?;
    let last_nan = last_nan.neg()?.add_scalar((kk - 1) as f64)?;
    values.isnan()?.where_(&last_nan, &first)
}

/// 2-D average pooling of `[N, C, H, W]` (or `[C, H, W]`), with PyTorch's divisor rules.
pub fn avg_pool2d(x: &Tensor, kernel: &[usize], options: &AvgPoolOptions) -> Result<Tensor> {
    avg_pool("avg_pool2d", 2, x, kernel, options)
}

/// 1-D average pooling of `[N, C, L]` (or `[C, L]`).
pub fn avg_pool1d(x: &Tensor, kernel: &[usize], options: &AvgPoolOptions) -> Result<Tensor> {
    avg_pool("avg_pool1d", 1, x, kernel, options)
}

/// Average pooling's divisors (PyTorch's `avg_pool2d` kernel): the window clipped to the
/// padded input, or to the input itself without `count_include_pad`, or the override. Each is
/// a product of one divisor per axis, so whether they are all equal is found from the two
/// axes; the `[oh, ow]` table is only built when they are not (building it every call was half
/// of avg_pool2d's time over a 1024x1024 plane in wasm).
fn divisors(h: &Axis, w: &Axis, o: &AvgPoolOptions, device: Device, dtype: DType) -> Result<Divisor> {
    if let Some(d) = o.divisor_override {
        return Ok(Divisor::One(d as f64));
    }
    let along = |a: &Axis| -> Vec<isize> {
        (0..a.out)
            .map(|i| {
                let start = (i * a.stride) as isize - a.before as isize;
                let end = (start + a.kernel as isize).min((a.size + a.before) as isize);
                if o.count_include_pad {
                    end - start
                } else {
                    end.min(a.size as isize) - start.max(0)
                }
            })
            .collect()
    };
    let (dh, dw) = (along(h), along(w));
    let same = |d: &[isize]| d.iter().all(|&v| v == d[0]);
    if !dh.is_empty() && !dw.is_empty() && same(&dh) && same(&dw) {
        return Ok(Divisor::One((dh[0] * dw[0]) as f64));
    }
    let table: Vec<f32> = dh.iter().flat_map(|&a| dw.iter().map(move |&b| (a * b) as f32)).collect();
    Ok(Divisor::Each(Tensor::from_slice(&table, &[h.out, w.out], device)?.to_dtype(dtype)?))
}

fn avg_pool(op: &'static str, dims: usize, input: &Tensor, kernel: &[usize], o: &AvgPoolOptions) -> Result<Tensor> {
    if !input.dtype().is_float() {
        return Err(Error::UnsupportedDType {
            op,
            dtype: input.dtype(),
            reason: "average pooling needs floating-point input; convert with to_dtype(f32) first".into(),
        });
    }
    if o.divisor_override == Some(0) {
        return Err(Error::invalid(op, "divisor_override 0; give at least 1"));
    }
    let (x, batched) = to_planes(op, dims, input)?;
    let [h, w] = axes(op, dims, &x.shape()[2..], kernel, (&o.stride, &o.padding, &[]), o.ceil_mode)?;
    let c = x.shape()[1];
    host_table(op, &[h.out, w.out])?;
    // One divisor for every window (no padding counted out, or an override) divides by a
    // scalar, which needs no table on the device and no broadcast (avg_pool2d of
    // [8, 32, 64, 64] on Dawn/lavapipe: see the commit).
    let div = divisors(&h, &w, o, x.device(), x.dtype())?;
    let out = {
        let _paused = crate::tensor::node::pause();
        let n = x.shape()[0] as isize;
        let win = windows(&padded(&x, &h, &w, 0.0)?, 1, &h, &w);
        let shape = [n, c as isize, h.out as isize, w.out as isize];
        match &div {
            // Summed and divided in one kernel where the backend has it (the CPU).
            Divisor::One(d) => win.sum_div(Some(&[3, 4]), false, *d)?.reshape(&shape)?,
            Divisor::Each(_) => div.apply(&win.sum(&[3, 4], false)?.reshape(&shape)?)?,
        }
    };
    let shape = x.shape().to_vec();
    let y = Tensor::composite(out, op, &[&x], |_| {
        unary_rule(move |g| {
            if c == 0 {
                return g.new_zeros(&shape);
            }
            // Each output's share spread over its window: the transposed convolution of
            // g / divisor by a box of ones, one channel per group.
            let ones = g.new_ones(&[c, 1, h.kernel, w.kernel])?;
            let full = transpose_full(&div.apply(g)?, &ones, c, &h, &w)?;
            let grow = |a: &Axis, got: usize| (a.padded() - got) as isize;
            let (gh, gw) = (grow(&h, full.shape()[2]), grow(&w, full.shape()[3]));
            full.pad(&[0, gw, 0, gh], PadMode::Constant, 0.0)?
                .narrow(2, h.before, shape[2])?
                .narrow(3, w.before, shape[3])
        })
    });
    from_planes(y, dims, batched)
}

/// Average pooling's divisors: one for every window, or a table `[oh, ow]`.
enum Divisor {
    One(f64),
    Each(Tensor),
}

impl Divisor {
    /// `t` divided by each window's divisor.
    fn apply(&self, t: &Tensor) -> Result<Tensor> {
        match self {
            Divisor::One(d) => t.div_scalar(*d),
            Divisor::Each(d) => t.div(d),
        }
    }
}

/// The `[out, size]` matrix whose row `i` averages entries `floor(i * size / out)` to
/// `ceil((i + 1) * size / out)` (PyTorch's adaptive windows).
fn adaptive_matrix(size: usize, out: usize) -> Vec<f32> {
    let mut m = vec![0f32; out * size];
    for i in 0..out {
        let (start, end) = ((i * size) / out, ((i + 1) * size).div_ceil(out));
        for j in start..end {
            m[i * size + j] = 1.0 / (end - start) as f32;
        }
    }
    m
}

/// 2-D adaptive average pooling of `[N, C, H, W]` (or `[C, H, W]`) to `[.., oh, ow]`.
pub fn adaptive_avg_pool2d(x: &Tensor, output_size: &[usize]) -> Result<Tensor> {
    adaptive_avg("adaptive_avg_pool2d", 2, x, output_size)
}

/// 1-D adaptive average pooling of `[N, C, L]` (or `[C, L]`) to `[.., out]`.
pub fn adaptive_avg_pool1d(x: &Tensor, output_size: &[usize]) -> Result<Tensor> {
    adaptive_avg("adaptive_avg_pool1d", 1, x, output_size)
}

fn adaptive_avg(op: &'static str, dims: usize, input: &Tensor, output_size: &[usize]) -> Result<Tensor> {
    if !input.dtype().is_float() {
        return Err(Error::UnsupportedDType {
            op,
            dtype: input.dtype(),
            reason: "average pooling needs floating-point input; convert with to_dtype(f32) first".into(),
        });
    }
    let (x, batched) = to_planes(op, dims, input)?;
    let out = per_axis(op, "output_size", output_size, dims, 1)?;
    let (hs, ws) = (x.shape()[2], x.shape()[3]);
    if out.contains(&0) || hs == 0 || ws == 0 {
        return Err(Error::invalid(
            op,
            format!("output size {out:?} of input {:?}: both must be non-empty", x.shape()),
        ));
    }
    for (o, n) in [(out[0], hs), (out[1], ws)] {
        host_table(op, &[o, n])?;
    }
    let dev = x.device();
    let ph = Tensor::from_slice(&adaptive_matrix(hs, out[0]), &[out[0], hs], dev)?.to_dtype(x.dtype())?;
    let pw = Tensor::from_slice(&adaptive_matrix(ws, out[1]), &[out[1], ws], dev)?.to_dtype(x.dtype())?;
    let y = ph.matmul(&x)?.matmul(&pw.t()?)?;
    from_planes(y, dims, batched)
}
