//! Bindings of the model ops for `wt.nn.functional` (js/functional.js): convolution, pooling,
//! padding, interpolation, attention and one_hot, plus strided slices for `Tensor.slice`. The JS
//! layer checks the arguments' types first; these check their values (every number through
//! `args`, never wasm-bindgen's silent casts). Types and errors only.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::args::{self, flag, Fields};
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

/// `F.conv1d` / `F.conv2d`; options `stride`, `padding` (integers), `paddingMode` (undefined
/// for the explicit `padding`, 'same' or 'valid'), `dilation`, `groups`.
#[wasm_bindgen(js_name = nnConv)]
pub fn conv(op: JsValue, x: &RawTensor, weight: &RawTensor, bias: Option<RawTensor>, opts: JsValue) -> R {
    let name = which("conv", &op, ["conv1d", "conv2d"])?;
    let f = Fields::new(name, &opts);
    let padding_mode = f.get("paddingMode");
    let padding = if padding_mode.is_undefined() {
        ConvPadding::Explicit(f.counts("padding")?)
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
        stride: f.counts("stride")?,
        padding,
        dilation: f.counts("dilation")?,
        groups: f.count("groups")?,
    };
    let b = bias.as_ref().map(|b| &b.t);
    wrap(if name == "conv1d" { nn::conv1d(&x.t, &weight.t, b, &o) } else { nn::conv2d(&x.t, &weight.t, b, &o) })
}

/// `F.conv_transpose1d` / `F.conv_transpose2d`; options `stride`, `padding`, `outputPadding`,
/// `groups`, `dilation`.
#[wasm_bindgen(js_name = nnConvTranspose)]
pub fn conv_transpose(op: JsValue, x: &RawTensor, weight: &RawTensor, bias: Option<RawTensor>, opts: JsValue) -> R {
    let name = which("convTranspose", &op, ["conv_transpose1d", "conv_transpose2d"])?;
    let f = Fields::new(name, &opts);
    let o = ConvTransposeOptions {
        stride: f.counts("stride")?,
        padding: f.counts("padding")?,
        output_padding: f.counts("outputPadding")?,
        groups: f.count("groups")?,
        dilation: f.counts("dilation")?,
    };
    let b = bias.as_ref().map(|b| &b.t);
    wrap(if name == "conv_transpose1d" {
        nn::conv_transpose1d(&x.t, &weight.t, b, &o)
    } else {
        nn::conv_transpose2d(&x.t, &weight.t, b, &o)
    })
}

/// `F.max_pool1d` / `F.max_pool2d`: `[values, indices]` with `returnIndices`, else
/// `[values]` (the indices cost four times the values); options `stride`, `padding`,
/// `dilation`, `ceilMode`, `returnIndices`.
#[wasm_bindgen(js_name = nnMaxPool)]
pub fn max_pool(op: JsValue, x: &RawTensor, kernel: Vec<f64>, opts: JsValue) -> Result<Array, JsValue> {
    let name = which("maxPool", &op, ["max_pool1d", "max_pool2d"])?;
    let f = Fields::new(name, &opts);
    let with_indices = f.flag("returnIndices")?;
    let o = MaxPoolOptions {
        stride: f.counts("stride")?,
        padding: f.counts("padding")?,
        dilation: f.counts("dilation")?,
        ceil_mode: f.flag("ceilMode")?,
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

/// `F.avg_pool1d` / `F.avg_pool2d`; options `stride`, `padding`, `ceilMode`,
/// `countIncludePad`, `divisorOverride` (undefined for none).
#[wasm_bindgen(js_name = nnAvgPool)]
pub fn avg_pool(op: JsValue, x: &RawTensor, kernel: Vec<f64>, opts: JsValue) -> R {
    let name = which("avgPool", &op, ["avg_pool1d", "avg_pool2d"])?;
    let f = Fields::new(name, &opts);
    let o = AvgPoolOptions {
        stride: f.counts("stride")?,
        padding: f.counts("padding")?,
        ceil_mode: f.flag("ceilMode")?,
        count_include_pad: f.flag("countIncludePad")?,
        divisor_override: f
            .opt_number("divisorOverride")?
            .map(|d| args::count(name, "divisorOverride", d))
            .transpose()?,
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

/// `F.scaled_dot_product_attention`; options `dropoutP`, `isCausal`, `scale` and `seed`
/// (undefined for the defaults).
#[wasm_bindgen(js_name = nnScaledDotProductAttention)]
pub fn scaled_dot_product_attention(
    q: &RawTensor,
    k: &RawTensor,
    v: &RawTensor,
    attn_mask: Option<RawTensor>,
    opts: JsValue,
) -> R {
    let op = "scaled_dot_product_attention";
    let f = Fields::new(op, &opts);
    let dropout_p = f.number("dropoutP")?;
    if !(0.0..=1.0).contains(&dropout_p) {
        return Err(js_err(Error::invalid(op, format!("dropoutP {dropout_p} must be a probability in [0, 1]"))));
    }
    let o = AttentionOptions {
        attn_mask: attn_mask.map(|m| m.t.clone()),
        dropout_p,
        is_causal: f.flag("isCausal")?,
        scale: f.opt_number("scale")?,
        seed: args::seed(op, f.opt_number("seed")?)?,
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

/// `Conv1d`'s / `Conv2d`'s initial `weight` (and `bias`), PyTorch's uniform(±1/sqrt(fan_in));
/// options `groups`, `bias`, `seed` and `device` (undefined for the defaults).
#[wasm_bindgen(js_name = nnConvInit)]
pub fn conv_init(
    op: JsValue,
    in_channels: f64,
    out_channels: f64,
    kernel: Vec<f64>,
    opts: JsValue,
) -> Result<Array, JsValue> {
    let name = which("ConvInit", &op, ["Conv1d", "Conv2d"])?;
    let f = Fields::new(name, &opts);
    let options = nn::ConvLayerOptions {
        conv: ConvOptions { groups: f.count("groups")?, ..Default::default() },
        bias: f.flag("bias")?,
        seed: args::seed(name, f.opt_number("seed")?)?,
        device: args::opt_device(name, &f.get("device"))?,
    };
    let (cin, cout) = (args::count(name, "inChannels", in_channels)?, args::count(name, "outChannels", out_channels)?);
    let k = counts(name, "kernelSize", &kernel)?;
    Ok(if name == "Conv1d" {
        super::nn::state(&nn::Conv1d::new(cin, cout, &k, options).map_err(js_err)?)
    } else {
        super::nn::state(&nn::Conv2d::new(cin, cout, &k, options).map_err(js_err)?)
    })
}
