//! `.safetensors` checkpoints for the JS façade (`wt.nn.saveSafetensors`, `loadSafetensors`,
//! `safetensorsMetadata`); the format and its dtype rules are `crate::nn::safetensors`'s.

use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;

use super::args::opt_device;
use super::js_err;
use super::tensor::RawTensor;
use crate::{nn, Error};

/// The bytes of a `.safetensors` file holding `tensors` under `names` (their own handles: pass
/// clones), with `__metadata__` from the pairs `metaKeys`/`metaValues`; resolves to a Uint8Array.
#[wasm_bindgen(js_name = nnSaveSafetensors)]
pub fn save(names: Vec<String>, tensors: Vec<RawTensor>, meta_keys: Vec<String>, meta_values: Vec<String>) -> Promise {
    super::promise(async move {
        if names.len() != tensors.len() || meta_keys.len() != meta_values.len() {
            return Err(js_err(Error::invalid("saveSafetensors", "names and values must pair up")));
        }
        let dict: Vec<_> = names.into_iter().zip(tensors.into_iter().map(|r| r.t)).collect();
        let meta: Vec<_> = meta_keys.into_iter().zip(meta_values).collect();
        let bytes = nn::save_safetensors(&dict, &meta).await.map_err(js_err)?;
        Ok(Uint8Array::from(bytes.as_slice()).into())
    })
}

/// The tensors of a `.safetensors` file as `[[name, tensor], ...]` in stored order, on `device`
/// (the default device when undefined).
#[wasm_bindgen(js_name = nnLoadSafetensors)]
pub fn load(bytes: &[u8], device: JsValue) -> Result<Array, JsValue> {
    let dict = nn::load_safetensors(bytes, opt_device("loadSafetensors", &device)?).map_err(js_err)?;
    Ok(dict.into_iter().map(|(k, t)| Array::of2(&k.into(), &RawTensor::new(t).into())).collect())
}

/// The header's `__metadata__` as `[[key, value], ...]`, sorted by key.
#[wasm_bindgen(js_name = nnSafetensorsMetadata)]
pub fn metadata(bytes: &[u8]) -> Result<Array, JsValue> {
    let meta = nn::safetensors_metadata(bytes).map_err(js_err)?;
    Ok(meta.into_iter().map(|(k, v)| Array::of2(&k.into(), &v.into())).collect())
}
