//! In-place ops on the JS façade: the two core steps JS composes around any out-of-place method
//! (`t.add_(x)` is `checkInplace`, `add`, `inplaceResult`, then the handle takes the result).
//! The rules are the core's (`ops/inplace.rs`).

use wasm_bindgen::prelude::*;

use super::js_err;
use super::tensor::{RawTensor, R};

/// The in-place methods' names, so errors can name the call (the core's errors take `'static`
/// names; an unknown name is reported as an in-place op).
const NAMES: &[&str] = &[
    "add_",
    "sub_",
    "mul_",
    "div_",
    "pow_",
    "remainder_",
    "fmod_",
    "clamp_",
    "lerp_",
    "maskedFill_",
    "fill_",
    "zero_",
    "copy_",
    "uniform_",
    "normal_",
    "neg_",
    "abs_",
    "exp_",
    "log_",
    "sqrt_",
    "rsqrt_",
    "reciprocal_",
    "square_",
    "sin_",
    "cos_",
    "tan_",
    "tanh_",
    "sigmoid_",
    "relu_",
    "floor_",
    "ceil_",
    "round_",
    "sign_",
    "erf_",
    "log1p_",
    "expm1_",
    "asin_",
    "acos_",
    "atan_",
    "sinh_",
    "cosh_",
    "asinh_",
    "acosh_",
    "atanh_",
];

fn name(op: &str) -> &'static str {
    NAMES.iter().copied().find(|n| *n == op).unwrap_or("in-place op")
}

#[wasm_bindgen]
impl RawTensor {
    /// Refuses an in-place op on a leaf that requires grad while grad mode is on.
    #[wasm_bindgen(js_name = checkInplace)]
    pub fn check_inplace(&self, op: &str) -> Result<(), JsValue> {
        self.t.check_inplace(name(op)).map_err(js_err)
    }

    /// This tensor's value after in-place op `op` computed `out` (shape kept, dtype cast where
    /// PyTorch casts, or always with `any_cast` as `copy_`; a leaf that requires grad stays one
    /// with its gradient). A new handle; this one is unchanged.
    #[wasm_bindgen(js_name = inplaceResult)]
    pub fn inplace_result(&self, op: &str, out: &RawTensor, any_cast: bool) -> R {
        let mut t = self.t.clone();
        t.assign_(name(op), out.t.clone(), any_cast).map_err(js_err)?;
        Ok(RawTensor::new(t))
    }
}
