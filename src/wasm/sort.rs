//! `RawTensor` bindings of sorting and scatter (src/ops/sort.rs, `scatter` in src/ops/index.rs).
//! The JS `Tensor` checks the arguments' types first; these check their values. Sorts return
//! `[values, indices]`, which the JS class turns into `{ values, indices }`.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::args;
use super::js_err;
use super::tensor::{wrap, RawTensor, R};

/// Values and indices as a two-element JS array.
fn pair(r: crate::Result<(crate::Tensor, crate::Tensor)>) -> Result<Array, JsValue> {
    let (v, i) = r.map_err(js_err)?;
    Ok(Array::of2(&RawTensor::new(v).into(), &RawTensor::new(i).into()))
}

#[wasm_bindgen]
impl RawTensor {
    /// Positions that sort along `dim` (stable).
    pub fn argsort(&self, dim: f64, descending: bool) -> R {
        wrap(self.t.argsort(args::dim("argsort", dim)?, descending))
    }

    /// Sorted values and their positions along `dim` (stable).
    pub fn sort(&self, dim: f64, descending: bool) -> Result<Array, JsValue> {
        pair(self.t.sort(args::dim("sort", dim)?, descending))
    }

    /// The `k` largest (or smallest) values along `dim` and their positions.
    pub fn topk(&self, k: f64, dim: f64, largest: bool) -> Result<Array, JsValue> {
        pair(self.t.topk(args::count("topk", "k", k)?, args::dim("topk", dim)?, largest))
    }

    /// `self` with `src` written at the positions `index` names along `dim`.
    pub fn scatter(&self, dim: f64, index: &RawTensor, src: &RawTensor) -> R {
        wrap(self.t.scatter(args::dim("scatter", dim)?, &index.t, &src.t))
    }

    /// `self` with `value` written at the positions `index` names along `dim`.
    #[wasm_bindgen(js_name = scatterValue)]
    pub fn scatter_value(&self, dim: f64, index: &RawTensor, value: f64) -> R {
        wrap(self.t.scatter_value(args::dim("scatter", dim)?, &index.t, value))
    }
}
