//! The model ops against PyTorch: `tests/fixtures/nn_ops.json` (made by
//! `scripts/gen_nn_fixtures.py` with PyTorch on the CPU) holds convolutions, pooling, padding,
//! strided slices, attention, interpolation and one_hot, with PyTorch's outputs and gradients.
//! Each case runs on every device (the runner is shared with tests/grad_fixtures.rs).
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::{device_main, fixture_trials};
use common::*;

use serde_json::Value;
use webtensor::nn::{
    self, AttentionOptions, AvgPoolOptions, ConvOptions, ConvPadding, ConvTransposeOptions, InterpolateMode,
    InterpolateOptions, MaxPoolOptions,
};
use webtensor::{Device, PadMode, Tensor};

device_main!(; fixtures: fixture_trials("nn_ops.json", 63, every_model_op_matches_pytorch));

fn every_model_op_matches_pytorch(case: &Value, d: Device) {
    run_fixture_case(case, d, fixture_tolerance("nn_ops.json"), apply);
}

/// An int or a list of ints, PyTorch's "int or tuple", as a list.
fn list(v: &Value) -> Vec<usize> {
    match v.as_u64() {
        Some(n) => vec![n as usize],
        None => usizes(v),
    }
}

fn conv_options(a: &Value) -> ConvOptions {
    let padding = match a["padding"].as_str() {
        Some("same") => ConvPadding::Same,
        Some("valid") => ConvPadding::Valid,
        Some(p) => panic!("padding {p}"),
        None => ConvPadding::Explicit(list(&a["padding"])),
    };
    ConvOptions {
        stride: list(&a["stride"]),
        padding,
        dilation: list(&a["dilation"]),
        groups: a["groups"].as_u64().expect("groups") as usize,
    }
}

fn conv_transpose_options(a: &Value) -> ConvTransposeOptions {
    ConvTransposeOptions {
        stride: list(&a["stride"]),
        padding: list(&a["padding"]),
        output_padding: list(&a["output_padding"]),
        groups: a["groups"].as_u64().expect("groups") as usize,
        dilation: list(&a["dilation"]),
    }
}

fn max_pool_options(a: &Value) -> MaxPoolOptions {
    MaxPoolOptions {
        stride: list(&a["stride"]),
        padding: list(&a["padding"]),
        dilation: list(&a["dilation"]),
        ceil_mode: a["ceil_mode"].as_bool().expect("ceil_mode"),
    }
}

fn avg_pool_options(a: &Value) -> AvgPoolOptions {
    AvgPoolOptions {
        stride: list(&a["stride"]),
        padding: list(&a["padding"]),
        ceil_mode: a["ceil_mode"].as_bool().expect("ceil_mode"),
        count_include_pad: a["count_include_pad"].as_bool().expect("count_include_pad"),
        divisor_override: a["divisor_override"].as_u64().map(|v| v as usize),
    }
}

/// The op of a case, as the generator's `OPS` table defines it.
fn apply(op: &str, a: &Value, x: &[Tensor]) -> webtensor::Result<Tensor> {
    let kernel = || list(&a["kernel"]);
    Ok(match op {
        "conv1d" => nn::conv1d(&x[0], &x[1], x.get(2), &conv_options(a))?,
        "conv2d" => nn::conv2d(&x[0], &x[1], x.get(2), &conv_options(a))?,
        "conv_transpose1d" => nn::conv_transpose1d(&x[0], &x[1], x.get(2), &conv_transpose_options(a))?,
        "conv_transpose2d" => nn::conv_transpose2d(&x[0], &x[1], x.get(2), &conv_transpose_options(a))?,
        "max_pool1d" => nn::max_pool1d(&x[0], &kernel(), &max_pool_options(a))?,
        "max_pool2d" => nn::max_pool2d(&x[0], &kernel(), &max_pool_options(a))?,
        "max_pool2d_indices" => nn::max_pool2d_with_indices(&x[0], &kernel(), &max_pool_options(a))?.1,
        "avg_pool1d" => nn::avg_pool1d(&x[0], &kernel(), &avg_pool_options(a))?,
        "avg_pool2d" => nn::avg_pool2d(&x[0], &kernel(), &avg_pool_options(a))?,
        "adaptive_avg_pool1d" => nn::adaptive_avg_pool1d(&x[0], &list(&a["size"]))?,
        "adaptive_avg_pool2d" => nn::adaptive_avg_pool2d(&x[0], &list(&a["size"]))?,
        "pad" => x[0].pad(
            &isizes(&a["pads"]),
            PadMode::parse(a["mode"].as_str().expect("mode"))?,
            a["value"].as_f64().expect("value"),
        )?,
        "slice_step" => {
            let u = |k: &str| a[k].as_u64().expect(k) as usize;
            x[0].slice_step(u("dim") as isize, u("start")..u("end"), u("step"))?
        }
        "sdpa" => {
            let attn_mask = match a["mask"].as_str() {
                Some("bool") => Some(x[3].gt_scalar(0.0)?),
                Some("float") => Some(x[3].clone()),
                _ => None,
            };
            let o = AttentionOptions {
                attn_mask,
                is_causal: a["causal"].as_bool().expect("causal"),
                scale: a["scale"].as_f64(),
                ..Default::default()
            };
            nn::scaled_dot_product_attention(&x[0], &x[1], &x[2], &o)?
        }
        "interpolate" => {
            let o = InterpolateOptions {
                size: (!a["size"].is_null()).then(|| list(&a["size"])),
                scale_factor: a["scale"].as_f64().map(|s| vec![s]),
                mode: InterpolateMode::parse(a["mode"].as_str().expect("mode"))?,
                align_corners: a["align_corners"].as_bool(),
            };
            nn::interpolate(&x[0], &o)?
        }
        "one_hot" => x[0].one_hot(a["classes"].as_u64().expect("classes") as usize)?,
        other => panic!("nn_ops.json has an op this suite does not know: {other}"),
    })
}
