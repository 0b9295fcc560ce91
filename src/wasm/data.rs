//! `wt.data` for JS: the shuffled order (the same [`crate::data::permutation`] the Rust loader
//! uses, so a seed gives the same batches in both) and fresh seeds. The loader itself is
//! js/data.js: batches are `index_select`s (or a user dataset's samples, stacked) made by the
//! core's ops.

use wasm_bindgen::prelude::*;

use super::args;

/// `0..n` in the shuffled order of `seed` and `epoch`.
#[wasm_bindgen(js_name = dataPermutation)]
pub fn data_permutation(n: f64, seed: u64, epoch: u64) -> Result<Vec<u32>, JsValue> {
    let n = args::int("DataLoader", "dataset length", n, 0.0, u32::MAX as f64)? as usize;
    Ok(crate::data::permutation(n, seed, epoch).into_iter().map(|i| i as u32).collect())
}

/// A seed from the global generator (`manualSeed`, else entropy), for a loader made without one.
#[wasm_bindgen(js_name = dataSeed)]
pub fn data_seed() -> u64 {
    crate::creation::next_seed()
}
