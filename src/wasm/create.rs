//! The constructors that PyTorch users reach for beyond js/create.js's basics: `eye`,
//! `linspace`, `logspace`, `randint`, `randperm`, and `manualSeed` (the global generator that
//! unseeded random constructors draw from).

use wasm_bindgen::prelude::*;

use super::args::{self, opt_device};
use super::tensor::{dtype, wrap, RawTensor, R};
use crate::Tensor;

/// Largest size or count a JS number passes here (the core refuses more than it can hold).
const MAX: f64 = i32::MAX as f64;

#[wasm_bindgen]
impl RawTensor {
    /// The `n` x `m` identity.
    pub fn eye(n: f64, m: f64, dtype_: JsValue, device_: JsValue) -> R {
        let (n, m) = (args::int("eye", "n", n, 0.0, MAX)?, args::int("eye", "m", m, 0.0, MAX)?);
        wrap(Tensor::eye(n as usize, Some(m as usize), dtype(&dtype_)?, opt_device("eye", &device_)?))
    }

    /// `steps` evenly spaced values from `start` to `end`, both included.
    pub fn linspace(start: f64, end: f64, steps: f64, dtype_: JsValue, device_: JsValue) -> R {
        let steps = args::int("linspace", "steps", steps, 0.0, MAX)? as usize;
        wrap(Tensor::linspace(start, end, steps, dtype(&dtype_)?, opt_device("linspace", &device_)?))
    }

    /// `base` to the powers `linspace(start, end, steps)`.
    pub fn logspace(start: f64, end: f64, steps: f64, base: f64, dtype_: JsValue, device_: JsValue) -> R {
        let steps = args::int("logspace", "steps", steps, 0.0, MAX)? as usize;
        wrap(Tensor::logspace(start, end, steps, base, dtype(&dtype_)?, opt_device("logspace", &device_)?))
    }

    /// Integers uniform in `[low, high)`.
    pub fn randint(low: f64, high: f64, shape: Vec<f64>, seed: Option<f64>, dtype_: JsValue, device_: JsValue) -> R {
        let limit = 2f64.powi(32);
        let (low, high) =
            (args::int("randint", "low", low, -limit, limit)?, args::int("randint", "high", high, -limit, limit)?);
        let (shape, seed) = (args::shape("randint", &shape)?, args::seed("randint", seed)?);
        wrap(Tensor::randint(low, high, &shape, seed, dtype(&dtype_)?, opt_device("randint", &device_)?))
    }

    /// A uniform random permutation of `0..n` (int32).
    pub fn randperm(n: f64, seed: Option<f64>, device_: JsValue) -> R {
        let n = args::int("randperm", "n", n, 0.0, MAX)? as usize;
        wrap(Tensor::randperm(n, args::seed("randperm", seed)?, opt_device("randperm", &device_)?))
    }
}

/// Seeds the global generator that random constructors without a seed draw from (PyTorch's
/// `manual_seed`): after `manualSeed(s)` the same program makes the same values.
#[wasm_bindgen(js_name = manualSeed)]
pub fn manual_seed(seed: f64) -> Result<(), JsValue> {
    let seed = args::seed("manualSeed", Some(seed))?.unwrap_or(0);
    crate::manual_seed(seed);
    Ok(())
}
