//! The sliding-window geometry that convolution and pooling share: per-dim kernel, stride,
//! dilation and padding, output sizes as PyTorch computes them, and `windows`, the im2col view.
//!
//! `windows` is a strided view, not a copy: window `(oy, ox)` at kernel offset `(i, j)` of a
//! padded plane with strides `(sh, sw)` sits at `oy*stride_h*sh + i*dil_h*sh + ...`, so every
//! window of the plane is one layout over the same storage. Making that view contiguous is the
//! im2col gather, done by each device's strided-copy kernel, and the copy feeds the tiled
//! matmul; nothing loops on the host.

use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::tensor::Tensor;

/// One spatial dim of a sliding window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Axis {
    /// Input size (before padding).
    pub size: usize,
    /// Kernel size.
    pub kernel: usize,
    /// Step between windows.
    pub stride: usize,
    /// Step between kernel taps.
    pub dilation: usize,
    /// Padding before.
    pub before: usize,
    /// Padding after that the windows read (may differ from `before`: "same" padding of an
    /// even kernel, pooling's `ceil_mode`).
    pub after: usize,
    /// Number of windows.
    pub out: usize,
}

impl Axis {
    /// The span one window covers, `dilation * (kernel - 1) + 1`.
    pub fn span(&self) -> usize {
        self.dilation * (self.kernel - 1) + 1
    }

    /// The padded size.
    pub fn padded(&self) -> usize {
        self.before + self.size + self.after
    }

    /// Convolution's geometry: `out = (size + before + after - span) / stride + 1`; an error
    /// when the padded input is smaller than one window.
    pub fn conv(
        op: &'static str,
        size: usize,
        kernel: usize,
        stride: usize,
        dilation: usize,
        pad: (usize, usize),
    ) -> Result<Axis> {
        let [n, k, s, d, b, a] = bounded(op, [size, kernel, stride, dilation, pad.0, pad.1])?;
        let span = d * (k - 1) + 1;
        let padded = fits(op, "the padded input", b + n + a)?;
        if padded < span {
            return Err(Error::invalid(
                op,
                format!(
                    "input size {size} padded to {padded} is smaller than the kernel's span {span} (kernel {kernel}, dilation {dilation})"
                ),
            ));
        }
        let out = ((padded - span) / s + 1) as usize;
        Ok(Axis { size, kernel, stride, dilation, before: pad.0, after: pad.1, out })
    }

    /// Pooling's geometry (PyTorch's `pooling_output_shape`): symmetric padding of at most half
    /// the kernel, and with `ceil_mode` a last window that may run past the padding but must
    /// start inside the input or the padding before it.
    pub fn pool(
        op: &'static str,
        size: usize,
        kernel: usize,
        stride: usize,
        dilation: usize,
        pad: usize,
        ceil_mode: bool,
    ) -> Result<Axis> {
        let [n, k, s, d, p] = bounded(op, [size, kernel, stride, dilation, pad])?;
        if p > k / 2 {
            return Err(Error::invalid(
                op,
                format!("padding {pad} is more than half the kernel ({kernel}); use at most {}", k / 2),
            ));
        }
        let span = d * (k - 1) + 1;
        let num = n + 2 * p - span + if ceil_mode { s - 1 } else { 0 };
        let mut out = num.div_euclid(s) + 1;
        if ceil_mode && (out - 1) * s >= n + p {
            out -= 1;
        }
        if out < 1 {
            return Err(Error::invalid(
                op,
                format!("input size {size} padded by {pad} on each side is smaller than the window {span}: the output would be empty"),
            ));
        }
        // The windows read up to (out - 1) * stride + span of the padded input.
        let after = ((out - 1) * s + span - (n + p)).max(0);
        fits(op, "the padded input", p + n + after)?;
        Ok(Axis { size, kernel, stride, dilation, before: pad, after: after as usize, out: out as usize })
    }

    /// The geometry of a transposed convolution of `size` entries: the convolution whose
    /// output has `size` entries and whose input is the full `(size - 1) * stride + span`.
    pub fn transposed(op: &'static str, size: usize, kernel: usize, stride: usize, dilation: usize) -> Result<Axis> {
        let [n, k, s, d] = bounded(op, [size, kernel, stride, dilation])?;
        let full = (n - 1).max(0) * s + d * (k - 1) + 1;
        fits(op, "the full output", full)?;
        Ok(Axis { size: 0, kernel, stride, dilation, before: 0, after: 0, out: size })
    }
}

/// The largest size, stride, kernel, dilation or padding a window takes (and the largest
/// padded extent): 2^31 - 1, so that products of two stay exact in i64 on every target.
const LIMIT: i64 = i32::MAX as i64;

/// `values` as i64 after checking each is a positive kernel/stride/dilation where it must be
/// (positions 1..4) and none passes [`LIMIT`].
fn bounded<const N: usize>(op: &'static str, values: [usize; N]) -> Result<[i64; N]> {
    const NAMES: [&str; 6] = ["input size", "kernel", "stride", "dilation", "padding", "padding"];
    let mut out = [0i64; N];
    for (i, &v) in values.iter().enumerate() {
        if (1..4).contains(&i) && v == 0 {
            return Err(Error::invalid(
                op,
                format!("kernel {}, stride {}, dilation {}: each must be at least 1", values[1], values[2], values[3]),
            ));
        }
        out[i] = i64::try_from(v)
            .ok()
            .filter(|&x| x <= LIMIT)
            .ok_or_else(|| Error::invalid(op, format!("{} {v} is too large; at most {LIMIT}", NAMES[i.min(5)])))?;
    }
    Ok(out)
}

/// `v` if it stays within [`LIMIT`].
fn fits(op: &'static str, what: &str, v: i64) -> Result<i64> {
    if v > LIMIT {
        return Err(Error::invalid(op, format!("{what} would span {v} entries; at most {LIMIT}")));
    }
    Ok(v)
}

/// One value per spatial dim from PyTorch's "an int or a tuple".
pub(crate) fn per_dim(op: &'static str, what: &str, v: &[usize], dims: usize) -> Result<Vec<usize>> {
    match v.len() {
        1 => Ok(vec![v[0]; dims]),
        n if n == dims => Ok(v.to_vec()),
        n => Err(Error::invalid(op, format!("{n} values of {what} for {dims} spatial dims; give 1 or {dims}"))),
    }
}

/// [`per_dim`] lifted to the two axes the kernels work on: a 1-D op gets `unit` for its
/// height of 1.
pub(crate) fn per_axis(op: &'static str, what: &str, v: &[usize], dims: usize, unit: usize) -> Result<Vec<usize>> {
    let v = per_dim(op, what, v, dims)?;
    Ok(if dims == 1 { vec![unit, v[0]] } else { v })
}

/// The input of a 1-D or 2-D windowed op as `[N, C, H, W]`: 1-D input gets a height of 1,
/// unbatched input a batch of 1. Returns whether the input was batched, for [`from_planes`].
pub(crate) fn to_planes(op: &'static str, dims: usize, x: &Tensor) -> Result<(Tensor, bool)> {
    let batched = x.rank() == dims + 2;
    if !batched && x.rank() != dims + 1 {
        return Err(Error::invalid(
            op,
            format!("expected a {}-D (batched) or {}-D input, got shape {:?}", dims + 2, dims + 1, x.shape()),
        ));
    }
    let x = if batched { x.clone() } else { x.unsqueeze(0)? };
    Ok((if dims == 1 { x.unsqueeze(2)? } else { x }, batched))
}

/// Undoes [`to_planes`] on an output.
pub(crate) fn from_planes(y: Tensor, dims: usize, batched: bool) -> Result<Tensor> {
    let y = if dims == 1 { y.squeeze(Some(2))? } else { y };
    if batched {
        Ok(y)
    } else {
        y.squeeze(Some(0))
    }
}

/// Checks the length of a table built on the host (divisors, interpolation and pooling
/// matrices, index lists): at most 2^27 entries, so that an absurd size is an error here rather
/// than an allocation that aborts the process.
pub(crate) fn host_table(op: &'static str, dims: &[usize]) -> Result<usize> {
    const MAX: usize = 1 << 27;
    dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).filter(|&n| n <= MAX).ok_or_else(|| {
        Error::invalid(op, format!("sizes {dims:?} need a table of more than {MAX} entries; use smaller sizes"))
    })
}

/// The `[N, G, C/G, kh, kw, oh, ow]` view of every window of `x`, a padded `[N, C, Hp, Wp]`
/// tensor (any strides), for axes `h` and `w` with `groups` channel groups. Only for use with
/// the graph paused: the ops that call it give their own backward rule.
pub(crate) fn windows(x: &Tensor, groups: usize, h: &Axis, w: &Axis) -> Tensor {
    let l = x.layout();
    let (s, shape) = (l.strides(), x.shape());
    let cg = shape[1] / groups;
    let dims = [shape[0], groups, cg, h.kernel, w.kernel, h.out, w.out];
    // A dim of one entry never steps, so its stride is 0 (a huge stride or dilation there must
    // not overflow); elsewhere stride * steps stays inside the padded plane.
    let step = |st: usize, by: usize, n: usize| if n > 1 { st * by } else { 0 };
    let strides = [
        s[0],
        s[1] * cg,
        s[1],
        step(s[2], h.dilation, h.kernel),
        step(s[3], w.dilation, w.kernel),
        step(s[2], h.stride, h.out),
        step(s[3], w.stride, w.out),
    ];
    let layout = Layout::strided(&dims, &strides, l.offset());
    x.view_op(layout, "windows", |_| {
        Box::new(|_, _| Err(Error::invalid("windows", "the im2col view is differentiated by its op's own rule")))
    })
}
