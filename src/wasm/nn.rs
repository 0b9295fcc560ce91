//! `torch.nn` for the JS façade. The JS modules (`js/nn/`) own their parameter and buffer
//! tensors; what a layer computes comes from here, from the same Rust code the Rust modules run:
//! initial values (built by the Rust layers' constructors, so seeds give the same weights in
//! both languages), the functional forms (`linear`, `embedding`, the norms, `dropout`, the
//! losses) and `model.to`'s move of a parameter. Types and errors only.

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use super::args::{self, flag, opt_device};
use super::js_err;
use super::tensor::{wrap, RawTensor, R};
use crate::nn::{self, ClassLossOptions, Module, Reduction};
use crate::{DType, Error, Tensor};

/// A module's registered tensors as `[[name, tensor, isBuffer], ...]`, parameters first, in
/// registration order (what the JS module registers in turn).
pub(super) fn state(m: &dyn Module) -> Array {
    let out = Array::new();
    for (name, p) in m.named_parameters() {
        out.push(&Array::of3(&name.into(), &RawTensor::new(p.tensor()).into(), &false.into()));
    }
    for (name, b) in m.named_buffers() {
        out.push(&Array::of3(&name.into(), &RawTensor::new(b.tensor()).into(), &true.into()));
    }
    out
}

fn opt_count(op: &'static str, what: &str, v: Option<f64>) -> Result<Option<usize>, JsValue> {
    v.map(|x| args::count(op, what, x)).transpose()
}

fn shape(op: &'static str, dims: &[f64]) -> Result<Vec<usize>, JsValue> {
    args::shape(op, dims)
}

/// `Linear`'s initial `weight` (and `bias`), PyTorch's uniform(±1/sqrt(in)).
#[wasm_bindgen(js_name = nnLinearInit)]
pub fn linear_init(
    in_features: f64,
    out_features: f64,
    bias: JsValue,
    seed: Option<f64>,
    device: JsValue,
) -> Result<Array, JsValue> {
    const OP: &str = "Linear";
    let options = nn::LinearOptions {
        bias: flag(OP, "bias", &bias)?,
        seed: args::seed(OP, seed)?,
        device: opt_device(OP, &device)?,
    };
    let m = nn::Linear::new(
        args::count(OP, "inFeatures", in_features)?,
        args::count(OP, "outFeatures", out_features)?,
        options,
    )
    .map_err(js_err)?;
    Ok(state(&m))
}

/// `Embedding`'s initial table, N(0, 1) with the padding row zero.
#[wasm_bindgen(js_name = nnEmbeddingInit)]
pub fn embedding_init(
    num_embeddings: f64,
    embedding_dim: f64,
    padding_idx: Option<f64>,
    seed: Option<f64>,
    device: JsValue,
) -> Result<Array, JsValue> {
    const OP: &str = "Embedding";
    let options = nn::EmbeddingOptions {
        padding_idx: opt_count(OP, "paddingIdx", padding_idx)?,
        seed: args::seed(OP, seed)?,
        device: opt_device(OP, &device)?,
    };
    let m = nn::Embedding::new(
        args::count(OP, "numEmbeddings", num_embeddings)?,
        args::count(OP, "embeddingDim", embedding_dim)?,
        options,
    )
    .map_err(js_err)?;
    Ok(state(&m))
}

fn norm_options(
    op: &'static str,
    affine: &JsValue,
    bias: &JsValue,
    device: &JsValue,
) -> Result<nn::NormOptions, JsValue> {
    Ok(nn::NormOptions {
        affine: flag(op, "affine", affine)?,
        bias: flag(op, "bias", bias)?,
        device: opt_device(op, device)?,
        ..Default::default()
    })
}

/// `LayerNorm`'s `weight` (ones) and `bias` (zeros) of `normalizedShape`, as the options say.
#[wasm_bindgen(js_name = nnLayerNormInit)]
pub fn layer_norm_init(
    normalized_shape: Vec<f64>,
    affine: JsValue,
    bias: JsValue,
    device: JsValue,
) -> Result<Array, JsValue> {
    const OP: &str = "LayerNorm";
    let m = nn::LayerNorm::new(&shape(OP, &normalized_shape)?, norm_options(OP, &affine, &bias, &device)?)
        .map_err(js_err)?;
    Ok(state(&m))
}

/// `GroupNorm`'s per-channel `weight` and `bias`.
#[wasm_bindgen(js_name = nnGroupNormInit)]
pub fn group_norm_init(num_groups: f64, num_channels: f64, affine: JsValue, device: JsValue) -> Result<Array, JsValue> {
    const OP: &str = "GroupNorm";
    let m = nn::GroupNorm::new(
        args::count(OP, "numGroups", num_groups)?,
        args::count(OP, "numChannels", num_channels)?,
        norm_options(OP, &affine, &JsValue::TRUE, &device)?,
    )
    .map_err(js_err)?;
    Ok(state(&m))
}

/// `BatchNorm1d`/`BatchNorm2d`'s `weight`, `bias` and running-statistics buffers.
#[wasm_bindgen(js_name = nnBatchNormInit)]
pub fn batch_norm_init(
    num_features: f64,
    affine: JsValue,
    track_running_stats: JsValue,
    device: JsValue,
) -> Result<Array, JsValue> {
    const OP: &str = "BatchNorm";
    let options = nn::BatchNormOptions {
        affine: flag(OP, "affine", &affine)?,
        track_running_stats: flag(OP, "trackRunningStats", &track_running_stats)?,
        device: opt_device(OP, &device)?,
        ..Default::default()
    };
    let m = nn::BatchNorm1d::new(args::count(OP, "numFeatures", num_features)?, options).map_err(js_err)?;
    Ok(state(&m))
}

/// `F.linear`: `x W^T + b`.
#[wasm_bindgen(js_name = nnLinear)]
pub fn linear(x: &RawTensor, weight: &RawTensor, bias: Option<RawTensor>) -> R {
    wrap(nn::linear(&x.t, &weight.t, bias.as_ref().map(|b| &b.t)))
}

/// `F.embedding`: rows of `weight` at `indices`.
#[wasm_bindgen(js_name = nnEmbedding)]
pub fn embedding(indices: &RawTensor, weight: &RawTensor, padding_idx: Option<f64>) -> R {
    wrap(nn::embedding(&indices.t, &weight.t, opt_count("embedding", "paddingIdx", padding_idx)?))
}

/// `F.layer_norm` over the trailing `normalizedShape` dims.
#[wasm_bindgen(js_name = nnLayerNorm)]
pub fn layer_norm(
    x: &RawTensor,
    normalized_shape: Vec<f64>,
    weight: Option<RawTensor>,
    bias: Option<RawTensor>,
    eps: f64,
) -> R {
    let s = shape("layerNorm", &normalized_shape)?;
    wrap(nn::layer_norm(&x.t, &s, weight.as_ref().map(|w| &w.t), bias.as_ref().map(|b| &b.t), eps))
}

/// `F.group_norm` over `numGroups` groups of channels.
#[wasm_bindgen(js_name = nnGroupNorm)]
pub fn group_norm(x: &RawTensor, num_groups: f64, weight: Option<RawTensor>, bias: Option<RawTensor>, eps: f64) -> R {
    let g = args::count("groupNorm", "numGroups", num_groups)?;
    wrap(nn::group_norm(&x.t, g, weight.as_ref().map(|w| &w.t), bias.as_ref().map(|b| &b.t), eps))
}

/// Batch normalisation as a module (option `module` is `BatchNorm1d` or `BatchNorm2d`, whose
/// input ranks are checked) or as `F.batch_norm` (`batch_norm`); options `training`,
/// `momentum` (undefined for a cumulative average) and `eps`. Resolves to `[y]`, or
/// `[y, runningMean, runningVar, numBatchesTracked]` when training updated the running
/// statistics (the caller swaps them in). Without `numBatchesTracked` (the functional form)
/// momentum must be a number.
#[wasm_bindgen(js_name = nnBatchNorm)]
pub fn batch_norm(
    x: &RawTensor,
    running_mean: Option<RawTensor>,
    running_var: Option<RawTensor>,
    num_batches_tracked: Option<RawTensor>,
    weight: Option<RawTensor>,
    bias: Option<RawTensor>,
    opts: JsValue,
) -> Result<Array, JsValue> {
    let f = args::Fields::new("batchNorm", &opts);
    let name = args::string("batchNorm", "module", &f.get("module"))?;
    let op = match name.as_str() {
        "BatchNorm1d" => {
            nn::check_rank("BatchNorm1d", nn::RANKS_1D, &x.t).map_err(js_err)?;
            "BatchNorm1d"
        }
        "BatchNorm2d" => {
            nn::check_rank("BatchNorm2d", nn::RANKS_2D, &x.t).map_err(js_err)?;
            "BatchNorm2d"
        }
        "batch_norm" => "batch_norm",
        other => return Err(js_err(Error::invalid("batchNorm", format!("unknown module '{other}'")))),
    };
    let training = flag(op, "training", &f.get("training"))?;
    let (momentum, eps) = (f.opt_number("momentum")?, f.number("eps")?);
    let running = match (running_mean, running_var) {
        (Some(m), Some(v)) => {
            let n = match num_batches_tracked {
                Some(n) => n.t,
                None if momentum.is_none() => {
                    return Err(js_err(Error::invalid(op, "momentum must be a number without num_batches_tracked")))
                }
                None => Tensor::zeros(&[], DType::I32, Some(x.t.device())).map_err(js_err)?,
            };
            Some([m.t, v.t, n])
        }
        (None, None) => None,
        _ => return Err(js_err(Error::invalid(op, "pass both runningMean and runningVar, or neither"))),
    };
    let (y, updated) = nn::batch_norm_forward(
        &x.t,
        running,
        weight.as_ref().map(|w| &w.t),
        bias.as_ref().map(|b| &b.t),
        training,
        momentum,
        eps,
    )
    .map_err(js_err)?;
    let out = Array::of1(&RawTensor::new(y).into());
    for t in updated.into_iter().flatten() {
        out.push(&RawTensor::new(t).into());
    }
    Ok(out)
}

/// `F.dropout`; a seeded module passes its seed and how many masks it drew before (`call`).
#[wasm_bindgen(js_name = nnDropout)]
pub fn dropout(x: &RawTensor, p: f64, training: JsValue, seed: Option<f64>, call: Option<f64>) -> R {
    const OP: &str = "dropout";
    let training = flag(OP, "training", &training)?;
    let seed = match (args::seed(OP, seed)?, call) {
        (Some(s), Some(i)) => Some(nn::call_seed(s, args::count(OP, "call", i)? as u64)),
        (s, _) => s,
    };
    wrap(nn::dropout(&x.t, p, training, seed))
}

/// A loss by its PyTorch name (`cross_entropy`, `nll_loss`, `mse_loss`, `l1_loss`,
/// `binary_cross_entropy_with_logits`) with `reduction` `mean`, `sum` or `none`; the class
/// losses also take `ignoreIndex` (PyTorch's -100 when undefined) and (cross-entropy)
/// `labelSmoothing`.
#[wasm_bindgen(js_name = nnLoss)]
pub fn loss(
    kind: JsValue,
    input: &RawTensor,
    target: &RawTensor,
    reduction: JsValue,
    ignore_index: Option<f64>,
    label_smoothing: f64,
) -> R {
    let kind = args::string("loss", "kind", &kind)?;
    let reduction: Reduction = args::string("loss", "reduction", &reduction)?.parse().map_err(js_err)?;
    let class = ClassLossOptions {
        reduction,
        ignore_index: Some(
            ignore_index
                .map(|i| args::int("loss", "ignoreIndex", i, i32::MIN as f64, i32::MAX as f64))
                .transpose()?
                .unwrap_or(nn::DEFAULT_IGNORE_INDEX),
        ),
        label_smoothing,
    };
    let (x, y) = (&input.t, &target.t);
    wrap(match kind.as_str() {
        "cross_entropy" => nn::cross_entropy(x, y, class),
        "nll_loss" => nn::nll_loss(x, y, class),
        "mse_loss" => nn::mse_loss(x, y, reduction),
        "l1_loss" => nn::l1_loss(x, y, reduction),
        "binary_cross_entropy_with_logits" => nn::binary_cross_entropy_with_logits(x, y, reduction),
        other => Err(Error::invalid("loss", format!("unknown loss '{other}'"))),
    })
}

/// A parameter on `device` as `model.to` moves it: a leaf with the same `requires_grad`, with
/// its gradient moved along (the same tensor when it is already there).
#[wasm_bindgen(js_name = nnMoveParameter)]
pub fn move_parameter(param: &RawTensor, device: JsValue) -> Promise {
    let t = param.t.clone();
    let d = super::device("to", &device);
    super::promise(async move {
        let moved = nn::moved_leaf(&t, d?).await.map_err(js_err)?;
        Ok(RawTensor::new(moved).into())
    })
}

/// `nn.utils.clipGradNorm_`: scales the gradients of `params` (the JS leaves themselves) to a
/// total norm of at most `max_norm`; returns the total norm before clipping (on the device).
#[wasm_bindgen(js_name = nnClipGradNorm)]
pub fn clip_grad_norm(params: Vec<RawTensor>, max_norm: f64, norm_type: f64, error_if_nonfinite: bool) -> R {
    let slots = super::optim::slots("clipGradNorm_", params)?;
    let options = nn::utils::ClipGradNormOptions { norm_type, error_if_nonfinite };
    wrap(nn::utils::clip_grad_norm_(&slots, max_norm, options))
}

/// `nn.utils.clipGradValue_`: clamps every gradient element into `[-clip_value, clip_value]`.
#[wasm_bindgen(js_name = nnClipGradValue)]
pub fn clip_grad_value(params: Vec<RawTensor>, clip_value: f64) -> Result<(), JsValue> {
    let slots = super::optim::slots("clipGradValue_", params)?;
    nn::utils::clip_grad_value_(&slots, clip_value).map_err(js_err)
}
