//! Bindings of the model ops for `wt.nn.functional` (js/functional.js): convolution, pooling,
//! padding, interpolation, attention and one_hot, plus strided slices for `Tensor.slice`. The JS
//! layer checks the arguments' types first; these check their values (every number through
//! `args`, never wasm-bindgen's silent casts). Types and errors only.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::args::{self, flag};
use super::js_err;
use super::tensor::{wrap, RawTensor, R};
use crate::nn::{
    self, AttentionOptions, AvgPoolOptions, ConvOptions, ConvPadding, ConvTransposeOptions, MaxPoolOptions,
};
use crate::{Error, PadMode};

/// Non-negative integers (sizes, strides, paddings) from JS numbers.
fn counts(op: &'static str, what: &str, v: &[f64]) -> Result<Vec<usize>, JsValue> {
    v.iter().map(|&x| args::count(op, what, x)).collect()
}

/// The op name of a 1-D/2-D pair, checked against the accepted ones.
fn which(op: &'static str, v: &JsValue, accepted: [&'static str; 2]) -> Result<&'static str, JsValue> {
    let name = args::string(op, "op", v)?;
    accepted.into_iter().find(|a| *a == name).ok_or_else(|| {
        js_err(Error::invalid(op, format!("unknown op {name:?}; use {} or {}", accepted[0], accepted[1])))
    })
}

/// `F.conv1d` / `F.conv2d`; `paddingMode` is undefined (explicit `padding`), 'same' or 'valid'.
#[wasm_bindgen(js_name = nnConv)]
#[allow(clippy::too_many_arguments)]
pub fn conv(
    op: JsValue,
    x: &RawTensor,
    weight: &RawTensor,
    bias: Option<RawTensor>,
    stride: Vec<f64>,
    padding: Vec<f64>,
    padding_mode: JsValue,
    dilation: Vec<f64>,
    groups: f64,
) -> R {
    let name = which("conv", &op, ["conv1d", "conv2d"])?;
    let padding = if padding_mode.is_undefined() {
        ConvPadding::Explicit(counts(name, "padding", &padding)?)
    } else {
        match args::string(name, "padding", &padding_mode)?.as_str() {
            "same" => ConvPadding::Same,
            "valid" => ConvPadding::Valid,
            other => {
                return Err(js_err(Error::invalid(name, format!("padding {other:?}; use 'same', 'valid' or numbers"))))
            }
        }
    };
    let o = ConvOptions {
        stride: counts(name, "stride", &stride)?,
        padding,
        dilation: counts(name, "dilation", &dilation)?,
        groups: args::count(name, "groups", groups)?,
    };
    let b = bias.as_ref().map(|b| &b.t);
    wrap(if name == "conv1d" { nn::conv1d(&x.t, &weight.t, b, &o) } else { nn::conv2d(&x.t, &weight.t, b, &o) })
}

/// `F.conv_transpose1d` / `F.conv_transpose2d`.
#[wasm_bindgen(js_name = nnConvTranspose)]
#[allow(clippy::too_many_arguments)]
pub fn conv_transpose(
    op: JsValue,
    x: &RawTensor,
    weight: &RawTensor,
    bias: Option<RawTensor>,
    stride: Vec<f64>,
    padding: Vec<f64>,
    output_padding: Vec<f64>,
    groups: f64,
    dilation: Vec<f64>,
) -> R {
    let name = which("convTranspose", &op, ["conv_transpose1d", "conv_transpose2d"])?;
    let o = ConvTransposeOptions {
        stride: counts(name, "stride", &stride)?,
        padding: counts(name, "padding", &padding)?,
        output_padding: counts(name, "outputPadding", &output_padding)?,
        groups: args::count(name, "groups", groups)?,
        dilation: counts(name, "dilation", &dilation)?,
    };
    let b = bias.as_ref().map(|b| &b.t);
    wrap(if name == "conv_transpose1d" {
        nn::conv_transpose1d(&x.t, &weight.t, b, &o)
    } else {
        nn::conv_transpose2d(&x.t, &weight.t, b, &o)
    })
}

/// `F.max_pool1d` / `F.max_pool2d`: `[values, indices]` with `return_indices`, else
/// `[values]` (the indices cost four times the values).
#[wasm_bindgen(js_name = nnMaxPool)]
#[allow(clippy::too_many_arguments)]
pub fn max_pool(
    op: JsValue,
    x: &RawTensor,
    kernel: Vec<f64>,
    stride: Vec<f64>,
    padding: Vec<f64>,
    dilation: Vec<f64>,
    ceil_mode: JsValue,
    return_indices: JsValue,
) -> Result<Array, JsValue> {
    let name = which("maxPool", &op, ["max_pool1d", "max_pool2d"])?;
    let with_indices = flag(name, "returnIndices", &return_indices)?;
    let o = MaxPoolOptions {
        stride: counts(name, "stride", &stride)?,
        padding: counts(name, "padding", &padding)?,
        dilation: counts(name, "dilation", &dilation)?,
        ceil_mode: flag(name, "ceilMode", &ceil_mode)?,
    };
    let k = counts(name, "kernelSize", &kernel)?;
    let tensor = |t| JsValue::from(RawTensor::new(t));
    match (name == "max_pool1d", with_indices) {
        (true, true) => nn::max_pool1d_with_indices(&x.t, &k, &o).map(|(v, i)| Array::of2(&tensor(v), &tensor(i))),
        (false, true) => nn::max_pool2d_with_indices(&x.t, &k, &o).map(|(v, i)| Array::of2(&tensor(v), &tensor(i))),
        (true, false) => nn::max_pool1d(&x.t, &k, &o).map(|v| Array::of1(&tensor(v))),
        (false, false) => nn::max_pool2d(&x.t, &k, &o).map(|v| Array::of1(&tensor(v))),
    }
    .map_err(js_err)
}

/// `F.avg_pool1d` / `F.avg_pool2d`.
#[wasm_bindgen(js_name = nnAvgPool)]
#[allow(clippy::too_many_arguments)]
pub fn avg_pool(
    op: JsValue,
    x: &RawTensor,
    kernel: Vec<f64>,
    stride: Vec<f64>,
    padding: Vec<f64>,
    ceil_mode: JsValue,
    count_include_pad: JsValue,
    divisor_override: Option<f64>,
) -> R {
    let name = which("avgPool", &op, ["avg_pool1d", "avg_pool2d"])?;
    let o = AvgPoolOptions {
        stride: counts(name, "stride", &stride)?,
        padding: counts(name, "padding", &padding)?,
        ceil_mode: flag(name, "ceilMode", &ceil_mode)?,
        count_include_pad: flag(name, "countIncludePad", &count_include_pad)?,
        divisor_override: divisor_override.map(|d| args::count(name, "divisorOverride", d)).transpose()?,
    };
    let k = counts(name, "kernelSize", &kernel)?;
    wrap(if name == "avg_pool1d" { nn::avg_pool1d(&x.t, &k, &o) } else { nn::avg_pool2d(&x.t, &k, &o) })
}

/// `F.adaptive_avg_pool1d` / `F.adaptive_avg_pool2d`.
#[wasm_bindgen(js_name = nnAdaptiveAvgPool)]
pub fn adaptive_avg_pool(op: JsValue, x: &RawTensor, output_size: Vec<f64>) -> R {
    let name = which("adaptiveAvgPool", &op, ["adaptive_avg_pool1d", "adaptive_avg_pool2d"])?;
    let s = counts(name, "outputSize", &output_size)?;
    wrap(if name == "adaptive_avg_pool1d" {
        nn::adaptive_avg_pool1d(&x.t, &s)
    } else {
        nn::adaptive_avg_pool2d(&x.t, &s)
    })
}

/// `F.pad`: (before, after) pairs from the last dim; `mode` is a PyTorch mode name.
#[wasm_bindgen(js_name = nnPad)]
pub fn pad(x: &RawTensor, pads: Vec<f64>, mode: JsValue, value: f64) -> R {
    let pads: Vec<isize> = pads
        .iter()
        .map(|&p| args::int("pad", "pad", p, -(i32::MAX as f64), i32::MAX as f64).map(|v| v as isize))
        .collect::<Result<_, _>>()?;
    let mode = PadMode::parse(&args::string("pad", "mode", &mode)?).map_err(js_err)?;
    wrap(x.t.pad(&pads, mode, value))
}

/// `F.interpolate`: exactly one of `size` and `scaleFactor`; `alignCorners` undefined or a
/// boolean.
#[wasm_bindgen(js_name = nnInterpolate)]
pub fn interpolate(
    x: &RawTensor,
    size: Option<Vec<f64>>,
    scale_factor: Option<Vec<f64>>,
    mode: JsValue,
    align_corners: JsValue,
) -> R {
    let op = "interpolate";
    let o = nn::InterpolateOptions {
        size: size.map(|s| counts(op, "size", &s)).transpose()?,
        scale_factor,
        mode: nn::InterpolateMode::parse(&args::string(op, "mode", &mode)?).map_err(js_err)?,
        align_corners: if align_corners.is_undefined() {
            None
        } else {
            Some(flag(op, "alignCorners", &align_corners)?)
        },
    };
    wrap(nn::interpolate(&x.t, &o))
}

/// `F.scaled_dot_product_attention`.
#[wasm_bindgen(js_name = nnScaledDotProductAttention)]
#[allow(clippy::too_many_arguments)]
pub fn scaled_dot_product_attention(
    q: &RawTensor,
    k: &RawTensor,
    v: &RawTensor,
    attn_mask: Option<RawTensor>,
    dropout_p: f64,
    is_causal: JsValue,
    scale: Option<f64>,
    seed: Option<f64>,
) -> R {
    let op = "scaled_dot_product_attention";
    if !(0.0..=1.0).contains(&dropout_p) {
        return Err(js_err(Error::invalid(op, format!("dropoutP {dropout_p} must be a probability in [0, 1]"))));
    }
    let o = AttentionOptions {
        attn_mask: attn_mask.map(|m| m.t.clone()),
        dropout_p,
        is_causal: flag(op, "isCausal", &is_causal)?,
        scale,
        seed: args::seed(op, seed)?,
        ..Default::default()
    };
    wrap(nn::scaled_dot_product_attention(&q.t, &k.t, &v.t, &o))
}

/// `F.one_hot` (i32).
#[wasm_bindgen(js_name = nnOneHot)]
pub fn one_hot(x: &RawTensor, num_classes: f64) -> R {
    wrap(x.t.one_hot(args::count("oneHot", "numClasses", num_classes)?))
}

#[wasm_bindgen]
impl RawTensor {
    /// Every `step`-th entry of `dim` in `start..end` (clamped to the size).
    #[wasm_bindgen(js_name = sliceStep)]
    pub fn slice_step(&self, dim: f64, start: f64, end: f64, step: f64) -> R {
        let op = "slice";
        let (s, e) = (args::count(op, "start", start)?, args::count(op, "end", end)?);
        wrap(self.t.slice_step(args::dim(op, dim)?, s..e, args::count(op, "step", step)?))
    }
}

/// `Conv1d`'s / `Conv2d`'s initial `weight` (and `bias`), PyTorch's uniform(±1/sqrt(fan_in)).
#[wasm_bindgen(js_name = nnConvInit)]
#[allow(clippy::too_many_arguments)]
pub fn conv_init(
    op: JsValue,
    in_channels: f64,
    out_channels: f64,
    kernel: Vec<f64>,
    groups: f64,
    bias: JsValue,
    seed: Option<f64>,
    device: JsValue,
) -> Result<Array, JsValue> {
    let name = which("ConvInit", &op, ["Conv1d", "Conv2d"])?;
    let options = nn::ConvLayerOptions {
        conv: ConvOptions { groups: args::count(name, "groups", groups)?, ..Default::default() },
        bias: flag(name, "bias", &bias)?,
        seed: args::seed(name, seed)?,
        device: args::opt_device(name, &device)?,
    };
    let (cin, cout) = (args::count(name, "inChannels", in_channels)?, args::count(name, "outChannels", out_channels)?);
    let k = counts(name, "kernelSize", &kernel)?;
    Ok(if name == "Conv1d" {
        super::nn::state(&nn::Conv1d::new(cin, cout, &k, options).map_err(js_err)?)
    } else {
        super::nn::state(&nn::Conv2d::new(cin, cout, &k, options).map_err(js_err)?)
    })
}
