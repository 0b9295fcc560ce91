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
        check_positive(op, kernel, stride, dilation)?;
        let mut a = Axis { size, kernel, stride, dilation, before: pad.0, after: pad.1, out: 0 };
        let padded = a.padded();
        if padded < a.span() {
            return Err(Error::invalid(
                op,
                format!(
                    "input size {size} padded to {padded} is smaller than the kernel's span {} (kernel {kernel}, dilation {dilation})",
                    a.span()
                ),
            ));
        }
        a.out = (padded - a.span()) / stride + 1;
        Ok(a)
    }

    /// Pooling's geometry (PyTorch's `pooling_output_shape`): symmetric padding of at most half
    /// the window, and with `ceil_mode` a last window that may run past the padding but must
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
        check_positive(op, kernel, stride, dilation)?;
        let span = dilation * (kernel - 1) + 1;
        if pad > span / 2 {
            return Err(Error::invalid(
                op,
                format!("padding {pad} is more than half the window ({span}); use at most {}", span / 2),
            ));
        }
        let room = (size + 2 * pad).checked_sub(span).ok_or_else(|| {
            Error::invalid(
                op,
                format!("input size {size} padded by {pad} on each side is smaller than the window {span}"),
            )
        })?;
        let mut out = if ceil_mode { room.div_ceil(stride) } else { room / stride } + 1;
        if ceil_mode && (out - 1) * stride >= size + pad {
            out -= 1;
        }
        // The windows read up to (out - 1) * stride + span of the padded input.
        let after = ((out - 1) * stride + span).saturating_sub(size + pad);
        Ok(Axis { size, kernel, stride, dilation, before: pad, after, out })
    }
}

fn check_positive(op: &'static str, kernel: usize, stride: usize, dilation: usize) -> Result<()> {
    if kernel == 0 || stride == 0 || dilation == 0 {
        return Err(Error::invalid(
            op,
            format!("kernel {kernel}, stride {stride}, dilation {dilation}: each must be at least 1"),
        ));
    }
    Ok(())
}

/// The `[N, G, C/G, kh, kw, oh, ow]` view of every window of `x`, a padded `[N, C, Hp, Wp]`
/// tensor (any strides), for axes `h` and `w` with `groups` channel groups. Only for use with
/// the graph paused: the ops that call it give their own backward rule.
pub(crate) fn windows(x: &Tensor, groups: usize, h: &Axis, w: &Axis) -> Tensor {
    let l = x.layout();
    let (s, shape) = (l.strides(), x.shape());
    let cg = shape[1] / groups;
    let dims = [shape[0], groups, cg, h.kernel, w.kernel, h.out, w.out];
    let strides = [s[0], s[1] * cg, s[1], s[2] * h.dilation, s[3] * w.dilation, s[2] * h.stride, s[3] * w.stride];
    let layout = Layout::strided(&dims, &strides, l.offset());
    x.view_op(layout, "windows", |_| {
        Box::new(|_, _| Err(Error::invalid("windows", "the im2col view is differentiated by its op's own rule")))
    })
}
