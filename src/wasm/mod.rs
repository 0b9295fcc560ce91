//! The JavaScript façade (wasm-bindgen): type conversion and errors only; every rule lives in
//! the Rust core. Errors become JS `Error`s carrying the core's message. Async methods clone the
//! tensor handle (an `Arc`) before awaiting, so no JS object stays borrowed across an await
//! (wasm-bindgen's "recursive use of an object" error). The hand-written `js/` layer wraps
//! `RawTensor` in the user-facing `Tensor` class (number-or-tensor arguments, tidy, dispose).

mod manage;
mod tensor;

use js_sys::{Array, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::{Device, Error};

pub use tensor::RawTensor;

/// A core error as a JS `Error` with the same message.
pub(crate) fn js_err(e: Error) -> JsValue {
    js_sys::Error::new(&e.to_string()).into()
}

pub(crate) fn device(s: &str) -> Result<Device, JsValue> {
    Device::parse(s).map_err(js_err)
}

pub(crate) fn set(o: &Object, k: &str, v: impl Into<JsValue>) {
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(o, &JsValue::from_str(k), &v.into());
}

/// Installs the panic hook, discovers adapters, splits those named in `logical` (an object such
/// as `{ "webgpu:0": [{ memoryLimit: 1 << 26 }, {}] }`, or undefined) into logical devices, and
/// opens the best device; resolves to its name.
#[wasm_bindgen(js_name = initCore)]
pub fn init_core(logical: JsValue) -> Promise {
    console_error_panic_hook::set_once();
    future_to_promise(async move {
        let splits = manage::logical_configs(&logical)?;
        if !splits.is_empty() {
            crate::device::wgpu::discover().await.map_err(js_err)?;
            for (physical, configs) in splits {
                crate::set_logical_device_configuration(physical, &configs).map_err(js_err)?;
            }
        }
        crate::init().await.map(|d| JsValue::from_str(&d.to_string())).map_err(js_err)
    })
}

/// Every usable device as `{ name, backend, type, fallback, adapter, driver, limits, features,
/// logical }`.
#[wasm_bindgen(js_name = devices)]
pub fn devices_js() -> Array {
    crate::devices()
        .into_iter()
        .map(|i| {
            let o = Object::new();
            set(&o, "name", i.device.to_string());
            set(&o, "backend", i.backend);
            set(&o, "type", i.device_type);
            set(&o, "fallback", i.software);
            set(&o, "adapter", i.name);
            set(&o, "driver", i.driver);
            let limits = Object::new();
            for (k, v) in i.limits {
                set(&limits, &k, v as f64);
            }
            set(&o, "limits", limits);
            set(&o, "features", i.features.into_iter().map(JsValue::from).collect::<Array>());
            set(&o, "logical", i.logical.map_or(JsValue::NULL, |k| JsValue::from(k as f64)));
            JsValue::from(o)
        })
        .collect()
}

/// The best device's name.
#[wasm_bindgen(js_name = bestDevice)]
pub fn best_device_js() -> String {
    crate::best_device().to_string()
}

/// Opens a device (required before first use on the web).
#[wasm_bindgen(js_name = open)]
pub fn open_js(name: &str) -> Promise {
    let d = device(name);
    future_to_promise(async move { crate::open(d?).await.map(|_| JsValue::UNDEFINED).map_err(js_err) })
}

/// Waits for the device's queued work and reports GPU errors.
#[wasm_bindgen(js_name = synchronize)]
pub fn synchronize_js(name: &str) -> Promise {
    let d = device(name);
    future_to_promise(async move { crate::synchronize(d?).await.map(|_| JsValue::UNDEFINED).map_err(js_err) })
}

/// Where creation without a device goes.
#[wasm_bindgen(js_name = setDefaultDevice)]
pub fn set_default_device_js(name: &str) -> Result<(), JsValue> {
    crate::set_default_device(device(name)?);
    Ok(())
}

/// The default device's name.
#[wasm_bindgen(js_name = defaultDevice)]
pub fn default_device_js() -> String {
    crate::default_device().to_string()
}

/// Bytes held by live tensors on the device.
#[wasm_bindgen(js_name = memoryAllocated)]
pub fn memory_allocated_js(name: &str) -> Result<f64, JsValue> {
    crate::memory_allocated(device(name)?).map(|b| b as f64).map_err(js_err)
}

/// Bytes held by the device's caching allocator.
#[wasm_bindgen(js_name = memoryReserved)]
pub fn memory_reserved_js(name: &str) -> Result<f64, JsValue> {
    crate::memory_reserved(device(name)?).map(|b| b as f64).map_err(js_err)
}

/// Peak bytes allocated since the last reset.
#[wasm_bindgen(js_name = maxMemoryAllocated)]
pub fn max_memory_allocated_js(name: &str) -> Result<f64, JsValue> {
    crate::max_memory_allocated(device(name)?).map(|b| b as f64).map_err(js_err)
}

/// Restarts peak tracking.
#[wasm_bindgen(js_name = resetPeakMemoryStats)]
pub fn reset_peak_memory_stats_js(name: &str) -> Result<(), JsValue> {
    crate::reset_peak_memory_stats(device(name)?).map_err(js_err)
}

/// Returns cached blocks to the driver.
#[wasm_bindgen(js_name = emptyCache)]
pub fn empty_cache_js(name: &str) -> Result<(), JsValue> {
    crate::empty_cache(device(name)?).map_err(js_err)
}

/// A human-readable memory summary.
#[wasm_bindgen(js_name = memorySummary)]
pub fn memory_summary_js(name: &str) -> Result<String, JsValue> {
    crate::memory_summary(device(name)?).map_err(js_err)
}
