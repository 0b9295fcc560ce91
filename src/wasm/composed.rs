//! `RawTensor` bindings of the composed ops (src/ops/logical.rs, composed.rs, scan.rs,
//! rearrange.rs): logical and bitwise-not, the parametrised activations and `lerp`, scans and
//! the composed reductions, masking and rearranging. The JS `Tensor` checks the arguments'
//! types first; these check their values.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::args;
use super::js_err;
use super::tensor::{wrap, RawTensor, R};
use crate::{DType, Error, Tensor};

/// Optional dims: `None` (JS `undefined`) means every dim.
fn opt_dims(op: &'static str, rank: usize, dims: Option<Vec<f64>>) -> Result<Vec<isize>, JsValue> {
    match dims {
        Some(d) => args::dims(op, &d),
        None => Ok((0..rank as isize).collect()),
    }
}

fn parts(r: crate::Result<Vec<Tensor>>) -> Result<Array, JsValue> {
    Ok(r.map_err(js_err)?.into_iter().map(|t| JsValue::from(RawTensor::new(t))).collect())
}

#[wasm_bindgen]
impl RawTensor {
    /// A logical op (`and`, `or`, `xor`) with broadcasting (bool).
    pub fn logical(&self, op: &str, other: &RawTensor) -> R {
        match op {
            "and" => wrap(self.t.logical_and(&other.t)),
            "or" => wrap(self.t.logical_or(&other.t)),
            "xor" => wrap(self.t.logical_xor(&other.t)),
            _ => Err(js_err(Error::invalid("logical", format!("no logical op {op:?}; use and, or or xor")))),
        }
    }

    /// A logical op with a number (nonzero is true) as the other operand.
    #[wasm_bindgen(js_name = logicalScalar)]
    pub fn logical_scalar(&self, op: &str, other: f64) -> R {
        // Truth decided in f64 (1e-50 is true), then a bool scalar.
        let truth = if other != 0.0 || other.is_nan() { 1.0 } else { 0.0 };
        let s = Tensor::full_on(&[], truth, DType::Bool, self.t.device()).map_err(js_err)?;
        self.logical(op, &RawTensor::new(s))
    }

    /// Elementwise not (bool).
    #[wasm_bindgen(js_name = logicalNot)]
    pub fn logical_not(&self) -> R {
        wrap(self.t.logical_not())
    }

    /// Every bit flipped (integers), not (bool).
    #[wasm_bindgen(js_name = bitwiseNot)]
    pub fn bitwise_not(&self) -> R {
        wrap(self.t.bitwise_not())
    }

    /// `x` where positive, `slope * x` elsewhere.
    #[wasm_bindgen(js_name = leakyRelu)]
    pub fn leaky_relu(&self, slope: f64) -> R {
        wrap(self.t.leaky_relu(slope))
    }

    /// `x` where positive, `weight * x` elsewhere: one weight for all, or one per channel (dim 1).
    pub fn prelu(&self, weight: &RawTensor) -> R {
        wrap(self.t.prelu(&weight.t))
    }

    /// `x` where positive, `alpha * (e^x - 1)` elsewhere.
    pub fn elu(&self, alpha: f64) -> R {
        wrap(self.t.elu(alpha))
    }

    /// `log(1 + e^(beta x)) / beta`, `x` past the threshold.
    #[wasm_bindgen(js_name = softplusWith)]
    pub fn softplus_with(&self, beta: f64, threshold: f64) -> R {
        wrap(self.t.softplus_with(beta, threshold))
    }

    /// `this + weight * (end - this)`, weight a tensor.
    pub fn lerp(&self, end: &RawTensor, weight: &RawTensor) -> R {
        wrap(self.t.lerp(&end.t, &weight.t))
    }

    /// `this + weight * (end - this)`, weight a number.
    #[wasm_bindgen(js_name = lerpScalar)]
    pub fn lerp_scalar(&self, end: &RawTensor, weight: f64) -> R {
        wrap(self.t.lerp_scalar(&end.t, weight))
    }

    /// `cumsum` or `cumprod` along `dim`.
    pub fn scan(&self, op: &str, dim: f64) -> R {
        let d = args::dim("scan", dim)?;
        match op {
            "cumsum" => wrap(self.t.cumsum(d)),
            "cumprod" => wrap(self.t.cumprod(d)),
            _ => Err(js_err(Error::invalid("scan", format!("no scan {op:?}; use cumsum or cumprod")))),
        }
    }

    /// `all`, `any` or `logsumexp` over `dims` (every dim when absent).
    #[wasm_bindgen(js_name = reduceComposed)]
    pub fn reduce_composed(&self, op: &str, dims: Option<Vec<f64>>, keepdim: bool) -> R {
        let d = opt_dims("reduce", self.t.rank(), dims)?;
        match op {
            "all" => wrap(self.t.all(&d, keepdim)),
            "any" => wrap(self.t.any(&d, keepdim)),
            "logsumexp" => wrap(self.t.logsumexp(&d, keepdim)),
            _ => Err(js_err(Error::invalid("reduce", format!("no reduction {op:?}")))),
        }
    }

    /// The vector `p`-norm over `dims` (every dim when absent).
    pub fn norm(&self, p: f64, dims: Option<Vec<f64>>, keepdim: bool) -> R {
        let d = opt_dims("norm", self.t.rank(), dims)?;
        wrap(self.t.norm(p, &d, keepdim))
    }

    /// `value` where `mask` is true.
    #[wasm_bindgen(js_name = maskedFill)]
    pub fn masked_fill(&self, mask: &RawTensor, value: f64) -> R {
        wrap(self.t.masked_fill(&mask.t, value))
    }

    /// `tril` (lower) or `triu` with the given diagonal.
    pub fn triangle(&self, lower: bool, diagonal: f64) -> R {
        let k = args::int(if lower { "tril" } else { "triu" }, "diagonal", diagonal, -2f64.powi(53), 2f64.powi(53))?;
        wrap(if lower { self.t.tril(k) } else { self.t.triu(k) })
    }

    /// Reversed along `dims`.
    pub fn flip(&self, dims: Vec<f64>) -> R {
        wrap(self.t.flip(&args::dims("flip", &dims)?))
    }

    /// Rolled by `shifts` along `dims` (flattened when `dims` is empty).
    pub fn roll(&self, shifts: Vec<f64>, dims: Vec<f64>) -> R {
        let s = shifts
            .iter()
            .map(|&x| args::int("roll", "shifts", x, -2f64.powi(53), 2f64.powi(53)))
            .collect::<Result<Vec<_>, _>>()?;
        wrap(self.t.roll(&s, &args::dims("roll", &dims)?))
    }

    /// Tiled `dims` times, padded with leading 1s (PyTorch's `tile`).
    pub fn tile(&self, dims: Vec<f64>) -> R {
        let d = dims.iter().map(|&x| args::count("tile", "dims", x)).collect::<Result<Vec<_>, _>>()?;
        wrap(self.t.tile(&d))
    }

    /// Tiled `sizes` times.
    pub fn repeat(&self, sizes: Vec<f64>) -> R {
        let s = sizes.iter().map(|&x| args::count("repeat", "sizes", x)).collect::<Result<Vec<_>, _>>()?;
        wrap(self.t.repeat(&s))
    }

    /// Views of `size` entries along `dim`.
    pub fn split(&self, size: f64, dim: f64) -> Result<Array, JsValue> {
        parts(self.t.split(args::count("split", "size", size)?, args::dim("split", dim)?))
    }

    /// Views of the given sizes along `dim`.
    #[wasm_bindgen(js_name = splitSizes)]
    pub fn split_sizes(&self, sizes: Vec<f64>, dim: f64) -> Result<Array, JsValue> {
        let s = sizes.iter().map(|&x| args::count("split", "sizes", x)).collect::<Result<Vec<_>, _>>()?;
        parts(self.t.split_sizes(&s, args::dim("split", dim)?))
    }

    /// At most `chunks` equal views along `dim`.
    pub fn chunk(&self, chunks: f64, dim: f64) -> Result<Array, JsValue> {
        parts(self.t.chunk(args::count("chunk", "chunks", chunks)?, args::dim("chunk", dim)?))
    }
}
