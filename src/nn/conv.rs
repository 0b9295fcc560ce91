//! Convolution as functions, PyTorch's `F.conv1d`, `F.conv2d`, `F.conv_transpose1d` and
//! `F.conv_transpose2d`, with stride, padding (explicit, `"same"`, `"valid"`), dilation, groups
//! and bias.
//!
//! The forward pass is im2col into the tiled matmul: the padded input's windows are one strided
//! view (`window.rs`), made contiguous by the device's copy kernel, and one batched matmul per
//! group multiplies them by the weight (on the CPU in wasm, in blocks of output rows per image
//! when the copy would be large, so that it stays in cache). The gradients are convolutions again, as in PyTorch:
//! the input's is the transposed convolution of the output gradient, the weight's a convolution
//! of the input by the output gradient (stride and dilation swapped). Transposed convolution is
//! zero insertion plus a convolution with the flipped weight. So everything runs as the same
//! kernels on every device, and the rules are compositions of differentiable ops.

use crate::error::{Error, Result};
use crate::nn::window::{from_planes, per_axis, to_planes, windows, Axis};
use crate::ops::pad::{dilate, PadMode};
use crate::tensor::Tensor;

/// The padding of a convolution, PyTorch's `padding` argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConvPadding {
    /// Zeros on both sides of each spatial dim: one value for all dims, or one per dim.
    Explicit(Vec<usize>),
    /// The output as large as the input (stride 1 only); an even span pads one more after.
    Same,
    /// No padding (`Explicit(vec![0])`).
    Valid,
}

impl Default for ConvPadding {
    fn default() -> Self {
        ConvPadding::Explicit(vec![0])
    }
}

/// Options of `conv1d`/`conv2d` (PyTorch's defaults: stride 1, no padding, dilation 1, one
/// group). `stride`, `dilation` and explicit padding take one value for every spatial dim or
/// one per dim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvOptions {
    /// Step between windows.
    pub stride: Vec<usize>,
    /// Zero padding.
    pub padding: ConvPadding,
    /// Step between kernel taps.
    pub dilation: Vec<usize>,
    /// Channel groups: input and output channels are split into `groups` independent parts.
    pub groups: usize,
}

impl Default for ConvOptions {
    fn default() -> Self {
        ConvOptions { stride: vec![1], padding: ConvPadding::default(), dilation: vec![1], groups: 1 }
    }
}

/// Options of `conv_transpose1d`/`conv_transpose2d`, as PyTorch's: `padding` crops that many
/// entries from each side of the full output (leaving `dilation * (kernel - 1) - padding` of the
/// implicit convolution's zero padding), and `output_padding` (less than the stride or the
/// dilation) adds entries at the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvTransposeOptions {
    /// Step between input positions in the output.
    pub stride: Vec<usize>,
    /// Cropped from each side of the full output.
    pub padding: Vec<usize>,
    /// Extra size at the end of each spatial dim.
    pub output_padding: Vec<usize>,
    /// Channel groups.
    pub groups: usize,
    /// Step between kernel taps.
    pub dilation: Vec<usize>,
}

impl Default for ConvTransposeOptions {
    fn default() -> Self {
        ConvTransposeOptions {
            stride: vec![1],
            padding: vec![0],
            output_padding: vec![0],
            groups: 1,
            dilation: vec![1],
        }
    }
}

/// 2-D convolution of `input` `[N, C, H, W]` (or unbatched `[C, H, W]`) with `weight`
/// `[O, C / groups, kh, kw]` and an optional `bias` `[O]`: `[N, O, oh, ow]`.
pub fn conv2d(input: &Tensor, weight: &Tensor, bias: Option<&Tensor>, options: &ConvOptions) -> Result<Tensor> {
    conv_nd("conv2d", 2, input, weight, bias, options)
}

/// 1-D convolution of `input` `[N, C, L]` (or `[C, L]`) with `weight` `[O, C / groups, k]`.
pub fn conv1d(input: &Tensor, weight: &Tensor, bias: Option<&Tensor>, options: &ConvOptions) -> Result<Tensor> {
    conv_nd("conv1d", 1, input, weight, bias, options)
}

/// 2-D transposed convolution ("deconvolution", the gradient of `conv2d` by its input) of
/// `input` `[N, Cin, H, W]` (or `[Cin, H, W]`) with `weight` `[Cin, Cout / groups, kh, kw]`:
/// `[N, Cout, (H - 1) * stride - 2 * padding + dilation * (kh - 1) + output_padding + 1, ..]`.
pub fn conv_transpose2d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    options: &ConvTransposeOptions,
) -> Result<Tensor> {
    conv_transpose_nd("conv_transpose2d", 2, input, weight, bias, options)
}

/// 1-D transposed convolution of `input` `[N, Cin, L]` (or `[Cin, L]`) with `weight`
/// `[Cin, Cout / groups, k]`.
pub fn conv_transpose1d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    options: &ConvTransposeOptions,
) -> Result<Tensor> {
    conv_transpose_nd("conv_transpose1d", 1, input, weight, bias, options)
}

/// Checks the operands shared by both kinds, lifts 1-D to 2-D (a height of 1) and unbatched
/// input to a batch of one; returns the 4-D input and weight and how to undo the lifting.
fn lift(
    op: &'static str,
    dims: usize,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
) -> Result<(Tensor, Tensor, bool)> {
    for t in [Some(weight), bias].into_iter().flatten() {
        input.same_device(t, op)?;
    }
    for t in [Some(input), Some(weight), bias].into_iter().flatten() {
        if !t.dtype().is_float() {
            return Err(Error::UnsupportedDType {
                op,
                dtype: t.dtype(),
                reason: "convolution needs floating-point tensors; convert with to_dtype(f32) first".into(),
            });
        }
    }
    if weight.rank() != dims + 2 {
        return Err(Error::invalid(op, format!("expected a {}-D weight, got shape {:?}", dims + 2, weight.shape())));
    }
    let (x, batched) = to_planes(op, dims, input)?;
    let w = if dims == 1 { weight.unsqueeze(2)? } else { weight.clone() };
    Ok((x, w, batched))
}

/// Adds `bias` `[C]` over dim 1 of `y`.
fn add_bias(y: Tensor, bias: Option<&Tensor>, channels: usize, op: &'static str) -> Result<Tensor> {
    let Some(b) = bias else { return Ok(y) };
    if b.shape() != [channels] {
        return Err(Error::ShapeMismatch {
            op,
            lhs: vec![channels],
            rhs: b.shape().to_vec(),
            msg: format!("bias must have one entry per output channel ({channels})"),
        });
    }
    y.add(&b.reshape(&[1, channels as isize, 1, 1])?)
}

pub(crate) fn conv_nd(
    op: &'static str,
    dims: usize,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    o: &ConvOptions,
) -> Result<Tensor> {
    let (x, w, batched) = lift(op, dims, input, weight, bias)?;
    let stride = per_axis(op, "stride", &o.stride, dims, 1)?;
    let dilation = per_axis(op, "dilation", &o.dilation, dims, 1)?;
    let (k, size) = (&w.shape()[2..], &x.shape()[2..]);
    let pads: Vec<(usize, usize)> = match &o.padding {
        ConvPadding::Explicit(p) => per_axis(op, "padding", p, dims, 0)?.into_iter().map(|p| (p, p)).collect(),
        ConvPadding::Valid => vec![(0, 0); 2],
        ConvPadding::Same => {
            if stride.iter().any(|&s| s != 1) {
                return Err(Error::invalid(
                    op,
                    "padding \"same\" needs stride 1, as in PyTorch; give explicit padding",
                ));
            }
            // PyTorch's split: the smaller half before.
            (0..2)
                .map(|i| {
                    dilation[i].checked_mul(k[i] - 1).ok_or_else(|| {
                        Error::invalid(op, format!("dilation {} times kernel {} is too large", dilation[i], k[i]))
                    })
                })
                .map(|t| t.map(|t| (t / 2, t - t / 2)))
                .collect::<Result<_>>()?
        }
    };
    let h = Axis::conv(op, size[0], k[0], stride[0], dilation[0], pads[0])?;
    let wa = Axis::conv(op, size[1], k[1], stride[1], dilation[1], pads[1])?;
    let y = conv2d_core(op, &x, &w, o.groups, &h, &wa)?;
    let y = add_bias(y, bias, w.shape()[0], op)?;
    from_planes(y, dims, batched)
}

/// The 4-D convolution without bias, recorded as one op whose rule is two convolutions.
fn conv2d_core(op: &'static str, x: &Tensor, w: &Tensor, groups: usize, h: &Axis, wa: &Axis) -> Result<Tensor> {
    let c = x.shape()[1];
    let o = w.shape()[0];
    if groups == 0 || !c.is_multiple_of(groups) || !o.is_multiple_of(groups) || w.shape()[1] * groups != c {
        return Err(Error::ShapeMismatch {
            op,
            lhs: x.shape().to_vec(),
            rhs: w.shape().to_vec(),
            msg: format!(
                "with {groups} groups the input's {c} channels and the weight's {o} outputs must divide by {groups}, and the weight must have {} input channels per group",
                c.checked_div(groups).unwrap_or(0)
            ),
        });
    }
    let out = {
        let _paused = crate::tensor::node::pause();
        let xp = pad_hw(x, h.before as isize, h.after as isize, wa.before as isize, wa.after as isize)?;
        let (cg, og, kk) = (c / groups, o / groups, h.kernel * wa.kernel);
        let wm = w.reshape(&[groups as isize, og as isize, (cg * kk) as isize])?;
        match chunk_rows(x, cg * kk * wa.out * groups, h.out) {
            Some(rows) => chunked(&xp, &wm, o, h, wa, rows)?,
            None => im2col_matmul(&xp, &wm, o, h, wa, 0, h.out)?,
        }
    };
    let (xs, ws) = (x.clone(), w.clone());
    let (h, wa) = (*h, *wa);
    Ok(Tensor::composite(out, op, &[x, w], |_| {
        Box::new(move |g, need| {
            let gx = if need[0] { Some(input_grad(g, &ws, groups, &h, &wa)?) } else { None };
            let gw = if need[1] { Some(weight_grad(&xs, g, groups, &h, &wa)?) } else { None };
            Ok(vec![gx, gw])
        })
    }))
}

/// The product of the weight `wm` [G, O/G, C/G*kh*kw] with the windows of output rows
/// `r0..r0 + rows` of `xp`: [N, G, C/G, kh, kw, rows, ow] copied to [N, G, C/G*kh*kw, rows*ow]
/// (im2col), giving [N, O, rows, ow].
fn im2col_matmul(xp: &Tensor, wm: &Tensor, o: usize, h: &Axis, wa: &Axis, r0: usize, rows: usize) -> Result<Tensor> {
    let (n, g, ck) = (xp.shape()[0] as isize, wm.shape()[0] as isize, wm.shape()[2] as isize);
    let win = windows(xp, wm.shape()[0], h, wa);
    let win = if rows == h.out { win } else { win.narrow(5, r0, rows)? };
    let cols = win.contiguous()?.reshape(&[n, g, ck, (rows * wa.out) as isize])?;
    wm.matmul(&cols)?.reshape(&[n, o as isize, rows as isize, wa.out as isize])
}

/// Output rows per im2col block on the CPU in wasm: enough that a block's copy of the windows
/// stays in cache (about 512 KiB) between being written and being packed by the product, where
/// a whole batch's copy went out to memory and back (the copy of [8, 32, 64, 64] by 3x3 is
/// 37 MB; a product of 32 rows ran at 22 GFLOP/s from it, 36 with 256 rows). Natively the
/// threaded product is fed whole: not measured in blocks.
/// `None` (one copy of everything) elsewhere and when the whole copy is that small.
fn chunk_rows(x: &Tensor, floats_per_row: usize, h_out: usize) -> Option<usize> {
    const BLOCK_BYTES: usize = 1 << 20;
    let cpu = x.device().kind() == crate::device::DeviceKind::Cpu;
    let row_bytes = (floats_per_row * x.dtype().size_in_bytes()).max(1);
    let total = row_bytes.saturating_mul(h_out).saturating_mul(x.shape()[0]);
    (cfg!(target_arch = "wasm32") && cpu && total > BLOCK_BYTES)
        .then(|| (BLOCK_BYTES / row_bytes).clamp(1, h_out.max(1)))
}

/// [`im2col_matmul`] one batch item and `rows` output rows at a time, the blocks joined along
/// the rows and then the batch.
fn chunked(xp: &Tensor, wm: &Tensor, o: usize, h: &Axis, wa: &Axis, rows: usize) -> Result<Tensor> {
    let mut items = Vec::with_capacity(xp.shape()[0]);
    for b in 0..xp.shape()[0] {
        let xb = xp.narrow(0, b, 1)?;
        let blocks = (0..h.out)
            .step_by(rows)
            .map(|r0| im2col_matmul(&xb, wm, o, h, wa, r0, rows.min(h.out - r0)))
            .collect::<Result<Vec<_>>>()?;
        items.push(match blocks.len() {
            1 => blocks.into_iter().next().ok_or_else(|| Error::invalid("conv2d", "no output rows"))?,
            _ => Tensor::cat(&blocks, 2)?,
        });
    }
    Tensor::cat(&items, 0)
}

/// Zero padding of the last two dims (negative values crop).
fn pad_hw(x: &Tensor, top: isize, bottom: isize, left: isize, right: isize) -> Result<Tensor> {
    if top == 0 && bottom == 0 && left == 0 && right == 0 {
        return Ok(x.clone());
    }
    x.pad(&[left, right, top, bottom], PadMode::Constant, 0.0)
}

/// The full transposed convolution of `g` `[N, O, oh, ow]` by `w` `[O, C/G, kh, kw]`: each
/// output position spread over the window it came from, `[N, C, (oh-1)*s + span, ..]`. It is
/// a stride-1 convolution of the zero-dilated, fully padded `g` with the flipped weight whose
/// two channel dims are swapped per group.
pub(crate) fn transpose_full(g: &Tensor, w: &Tensor, groups: usize, h: &Axis, wa: &Axis) -> Result<Tensor> {
    let (o, cg, kh, kw) = (w.shape()[0], w.shape()[1], w.shape()[2], w.shape()[3]);
    if groups == 0 {
        return Err(Error::invalid("conv_transpose", "0 groups; use at least 1"));
    }
    let og = o / groups;
    let gd = dilate(&dilate(g, 2, h.stride)?, 3, wa.stride)?;
    let (ph, pw) = ((h.dilation * (kh - 1)) as isize, (wa.dilation * (kw - 1)) as isize);
    let gp = pad_hw(&gd, ph, ph, pw, pw)?;
    let wt = w
        .reshape(&[groups as isize, og as isize, cg as isize, kh as isize, kw as isize])?
        .transpose(1, 2)?
        .reshape(&[(groups * cg) as isize, og as isize, kh as isize, kw as isize])?
        .flip(&[2, 3])?;
    let ih = Axis::conv("conv_transpose", gp.shape()[2], kh, 1, h.dilation, (0, 0))?;
    let iw = Axis::conv("conv_transpose", gp.shape()[3], kw, 1, wa.dilation, (0, 0))?;
    conv2d_core("conv_transpose", &gp, &wt, groups, &ih, &iw)
}

/// The gradient of a convolution by its input: the full transposed convolution, with the
/// rows the windows never read added back as zeros and the padding cropped.
fn input_grad(g: &Tensor, w: &Tensor, groups: usize, h: &Axis, wa: &Axis) -> Result<Tensor> {
    let full = transpose_full(g, w, groups, h, wa)?;
    // full covers padded rows [0, full_h), never more than the padded input; the input is
    // padded rows [before, before + size).
    let grown = pad_hw(&full, 0, (h.padded() - full.shape()[2]) as isize, 0, (wa.padded() - full.shape()[3]) as isize)?;
    grown.narrow(2, h.before, h.size)?.narrow(3, wa.before, wa.size)
}

/// The gradient of a convolution by its weight: for each group, the padded input (channels
/// as the batch, the batch as channels) convolved with the output gradient as the kernel,
/// stride and dilation swapped; `[O, C/G, kh, kw]`.
fn weight_grad(x: &Tensor, g: &Tensor, groups: usize, h: &Axis, wa: &Axis) -> Result<Tensor> {
    let (n, c) = (x.shape()[0], x.shape()[1]);
    let o = g.shape()[1];
    let (cg, og) = (c / groups, o / groups);
    let xp = pad_hw(x, h.before as isize, h.after as isize, wa.before as isize, wa.after as isize)?;
    let (hp, wp) = (xp.shape()[2] as isize, xp.shape()[3] as isize);
    // [N, G, C/G, Hp, Wp] -> [C/G, G, N, Hp, Wp] -> [C/G, G*N, Hp, Wp].
    let xt = xp.reshape(&[n as isize, groups as isize, cg as isize, hp, wp])?.permute(&[2, 1, 0, 3, 4])?.reshape(&[
        cg as isize,
        (groups * n) as isize,
        hp,
        wp,
    ])?;
    // [N, G, O/G, oh, ow] -> [G, O/G, N, oh, ow] -> [O, N, oh, ow].
    let (oh, ow) = (h.out as isize, wa.out as isize);
    let gt = g
        .reshape(&[n as isize, groups as isize, og as isize, oh, ow])?
        .permute(&[1, 2, 0, 3, 4])?
        .reshape(&[o as isize, n as isize, oh, ow])?;
    let ih = Axis::conv("conv2d", xp.shape()[2], h.out, h.dilation, h.stride, (0, 0))?;
    let iw = Axis::conv("conv2d", xp.shape()[3], wa.out, wa.dilation, wa.stride, (0, 0))?;
    // [C/G, O, kh', kw'] with kh' >= kh (rows past the last window); keep the kernel's.
    let r = conv2d_core("conv2d", &xt, &gt, groups, &ih, &iw)?;
    r.narrow(2, 0, h.kernel)?.narrow(3, 0, wa.kernel)?.permute(&[1, 0, 2, 3])
}

fn conv_transpose_nd(
    op: &'static str,
    dims: usize,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    o: &ConvTransposeOptions,
) -> Result<Tensor> {
    let (x, w, batched) = lift(op, dims, input, weight, bias)?;
    let stride = per_axis(op, "stride", &o.stride, dims, 1)?;
    let dilation = per_axis(op, "dilation", &o.dilation, dims, 1)?;
    let padding = per_axis(op, "padding", &o.padding, dims, 0)?;
    let extra = per_axis(op, "output_padding", &o.output_padding, dims, 0)?;
    let groups = o.groups;
    let cin = x.shape()[1];
    if groups == 0 || !cin.is_multiple_of(groups) || w.shape()[0] != cin {
        return Err(Error::ShapeMismatch {
            op,
            lhs: x.shape().to_vec(),
            rhs: w.shape().to_vec(),
            msg: format!("the weight must be [in_channels ({cin}), out_channels / groups, kernel..] and {groups} groups must divide the input's channels"),
        });
    }
    for i in 0..2 {
        if stride[i] == 0 || dilation[i] == 0 {
            return Err(Error::invalid(op, "stride and dilation must be at least 1"));
        }
        if extra[i] >= stride[i].max(dilation[i]) {
            return Err(Error::invalid(
                op,
                format!("output_padding {} must be smaller than the stride or the dilation", extra[i]),
            ));
        }
    }
    // The input plays the output gradient of a convolution with this geometry.
    let (k, size) = (&w.shape()[2..], &x.shape()[2..]);
    if k.contains(&0) {
        return Err(Error::invalid(op, format!("the weight has an empty kernel: shape {:?}", w.shape())));
    }
    let h = Axis::transposed(op, size[0], k[0], stride[0], dilation[0])?;
    let wa = Axis::transposed(op, size[1], k[1], stride[1], dilation[1])?;
    // Crop `padding` from the start, `padding - output_padding` from the end, leaving PyTorch's
    // (in - 1) * stride - 2 * padding + span + output_padding.
    let mut crops = [(0isize, 0isize); 2];
    for (i, a) in [&h, &wa].into_iter().enumerate() {
        let full = (size[i].max(1) - 1) * a.stride + a.span();
        let out = (full + extra[i]) as i64 - 2 * padding[i].min(u32::MAX as usize) as i64;
        if out <= 0 || size[i] == 0 {
            return Err(Error::invalid(
                op,
                format!(
                    "input size {} gives output size {out} ((in - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1); it must be positive: use less padding",
                    size[i]
                ),
            ));
        }
        crops[i] = (-(padding[i] as isize), extra[i] as isize - padding[i] as isize);
    }
    let full = transpose_full(&x, &w, groups, &h, &wa)?;
    let ((t, b), (l, r)) = (crops[0], crops[1]);
    let y = pad_hw(&full, t, b, l, r)?;
    let cout = w.shape()[1] * groups;
    let y = add_bias(y, bias, cout, op)?;
    from_planes(y, dims, batched)
}
