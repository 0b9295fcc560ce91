//! The JavaScript façade (wasm-bindgen): type conversion and errors only; every rule lives in
//! the Rust core. Errors become JS `Error`s carrying the core's message. Async methods clone the
//! tensor handle (an `Arc`) before awaiting, so no JS object stays borrowed across an await
//! (wasm-bindgen's "recursive use of an object" error). The hand-written `js/` layer wraps
//! `RawTensor` in the user-facing `Tensor` class (number-or-tensor arguments, tidy, dispose).

mod args;
mod composed;
mod create;
mod data;
mod grad;
mod inplace;
mod live;
mod manage;
mod nn;
mod nn_ops;
mod optim;
mod parallel;
mod readback;
mod registry;
mod safetensors;
mod sched;
mod sort;
mod tensor;

use js_sys::{Array, Object, Promise, Reflect};
use std::future::Future;
use std::pin::Pin;
use wasm_bindgen::prelude::*;

use wasm_bindgen_futures::future_to_promise;

use crate::{Device, DeviceKind, Error};

pub use tensor::RawTensor;

/// A JS `Promise` of `fut`. Every async method goes through this one instantiation of
/// `future_to_promise` (a boxed future): called with each method's own future type, it compiled
/// a copy of its spawn-and-settle machinery per method, 28 KB of the .wasm.
pub(crate) fn promise(fut: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    let fut: Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>> = Box::pin(fut);
    future_to_promise(fut)
}

/// A core error as a JS `Error` with the same message.
pub(crate) fn js_err(e: Error) -> JsValue {
    js_sys::Error::new(&e.to_string()).into()
}

/// A device from a JS value (see `args::device`), for the function named `op`.
pub(crate) fn device(op: &'static str, v: &JsValue) -> Result<Device, JsValue> {
    args::device(op, v)
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
    promise(async move {
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

/// Discovers adapters again if the first `init` found none (WebGPU was provided later), then
/// opens the best device; resolves to its name.
#[wasm_bindgen(js_name = rediscover)]
pub fn rediscover_js() -> Promise {
    promise(async move {
        crate::device::wgpu::forget_empty_discovery();
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
pub fn open_js(name: JsValue) -> Promise {
    let d = device("open", &name);
    promise(async move { crate::open(d?).await.map(|_| JsValue::UNDEFINED).map_err(js_err) })
}

/// Waits for the device's queued work and reports GPU errors.
#[wasm_bindgen(js_name = synchronize)]
pub fn synchronize_js(name: JsValue) -> Promise {
    let d = device("synchronize", &name);
    promise(async move { crate::synchronize(d?).await.map(|_| JsValue::UNDEFINED).map_err(js_err) })
}

/// Where creation without a device goes.
#[wasm_bindgen(js_name = setDefaultDevice)]
pub fn set_default_device_js(name: JsValue) -> Result<(), JsValue> {
    crate::set_default_device(device("setDefaultDevice", &name)?);
    Ok(())
}

/// The default device's name.
#[wasm_bindgen(js_name = defaultDevice)]
pub fn default_device_js() -> String {
    crate::default_device().to_string()
}

/// Bytes held by live tensors on the device.
#[wasm_bindgen(js_name = memoryAllocated)]
pub fn memory_allocated_js(name: JsValue) -> Result<f64, JsValue> {
    crate::memory_allocated(device("memoryAllocated", &name)?).map(|b| b as f64).map_err(js_err)
}

/// Bytes held by the device's caching allocator.
#[wasm_bindgen(js_name = memoryReserved)]
pub fn memory_reserved_js(name: JsValue) -> Result<f64, JsValue> {
    crate::memory_reserved(device("memoryReserved", &name)?).map(|b| b as f64).map_err(js_err)
}

/// Peak bytes allocated since the last reset.
#[wasm_bindgen(js_name = maxMemoryAllocated)]
pub fn max_memory_allocated_js(name: JsValue) -> Result<f64, JsValue> {
    crate::max_memory_allocated(device("maxMemoryAllocated", &name)?).map(|b| b as f64).map_err(js_err)
}

/// Restarts peak tracking.
#[wasm_bindgen(js_name = resetPeakMemoryStats)]
pub fn reset_peak_memory_stats_js(name: JsValue) -> Result<(), JsValue> {
    crate::reset_peak_memory_stats(device("resetPeakMemoryStats", &name)?).map_err(js_err)
}

/// Returns cached blocks to the driver.
#[wasm_bindgen(js_name = emptyCache)]
pub fn empty_cache_js(name: JsValue) -> Result<(), JsValue> {
    crate::empty_cache(device("emptyCache", &name)?).map_err(js_err)
}

/// A human-readable memory summary.
#[wasm_bindgen(js_name = memorySummary)]
pub fn memory_summary_js(name: JsValue) -> Result<String, JsValue> {
    crate::memory_summary(device("memorySummary", &name)?).map_err(js_err)
}

/// The device kind named by `kind` (`cpu`, `webgpu`, `cuda`, `meta`; `gpu` means the
/// accelerators: cuda where present, else webgpu).
fn kind(op: &'static str, kind: &JsValue) -> Result<DeviceKind, JsValue> {
    let s = kind.as_string().unwrap_or_default().to_ascii_lowercase();
    match s.as_str() {
        "cpu" => Ok(DeviceKind::Cpu),
        "webgpu" | "wgpu" => Ok(DeviceKind::WebGpu),
        "cuda" => Ok(DeviceKind::Cuda),
        "meta" => Ok(DeviceKind::Meta),
        "gpu" if crate::device_count(DeviceKind::Cuda) > 0 => Ok(DeviceKind::Cuda),
        "gpu" => Ok(DeviceKind::WebGpu),
        _ => Err(js_err(Error::invalid(
            op,
            format!("kind must be one of 'cpu', 'webgpu', 'cuda', 'meta', 'gpu', got {kind:?}"),
        ))),
    }
}

/// Whether a device of this kind is usable (`torch.cuda.is_available()` for any kind).
#[wasm_bindgen(js_name = isAvailable)]
pub fn is_available_js(kind_: JsValue) -> Result<bool, JsValue> {
    Ok(crate::is_available(kind("isAvailable", &kind_)?))
}

/// How many devices of this kind are usable.
#[wasm_bindgen(js_name = deviceCount)]
pub fn device_count_js(kind_: JsValue) -> Result<f64, JsValue> {
    Ok(crate::device_count(kind("deviceCount", &kind_)?) as f64)
}

/// Live tensor handles per device as `{ "cpu": 3, "webgpu:0": 1 }` (devices with none left out).
#[wasm_bindgen(js_name = liveTensors)]
pub fn live_tensors_js() -> Object {
    let o = Object::new();
    for (d, n) in live::counts() {
        set(&o, &d.to_string(), n as f64);
    }
    o
}

/// A device's memory counters as `{ allocated, reserved, peak, allocations }` (bytes, count).
#[wasm_bindgen(js_name = memoryStats)]
pub fn memory_stats_js(name: JsValue) -> Result<Object, JsValue> {
    let s = crate::memory_stats(device("memoryStats", &name)?).map_err(js_err)?;
    let o = Object::new();
    set(&o, "allocated", s.allocated as f64);
    set(&o, "reserved", s.reserved as f64);
    set(&o, "peak", s.peak as f64);
    set(&o, "allocations", s.allocations as f64);
    Ok(o)
}

thread_local! {
    /// Open `withDevice` scopes, innermost last (wasm has one thread).
    static SCOPES: std::cell::RefCell<Vec<crate::DeviceScope>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Opens a placement scope (TensorFlow's `with tf.device`); returns its depth for
/// `exitDeviceScope`.
#[wasm_bindgen(js_name = enterDeviceScope)]
pub fn enter_device_scope_js(name: JsValue) -> Result<u32, JsValue> {
    let d = device("withDevice", &name)?;
    Ok(SCOPES.with(|s| {
        let mut s = s.borrow_mut();
        s.push(crate::device_scope(d));
        s.len() as u32 - 1
    }))
}

/// Closes the scope opened at `depth` and any opened inside it.
#[wasm_bindgen(js_name = exitDeviceScope)]
pub fn exit_device_scope_js(depth: u32) {
    // Guards drop innermost first, each restoring the placement before it.
    SCOPES.with(|s| {
        let mut s = s.borrow_mut();
        while s.len() > depth as usize {
            s.pop();
        }
    });
}

/// The core's op table: names per family, the single source the JS methods and their types
/// are checked against (the op-table case in `js/test/cases.mjs`, which checks the other
/// methods of `RawTensor` by reflection), and under `ops` the op
/// manifest (`op::manifest::json`: each op's result dtype per input dtype and its tolerance),
/// which the JS suite runs every op against, the `.d.ts` check is generated from and the
/// fuzz draws from.
#[wasm_bindgen(js_name = opTable)]
pub fn op_table_js() -> Result<Object, JsValue> {
    let names = |v: Vec<&'static str>| v.into_iter().map(JsValue::from).collect::<Array>();
    let o = Object::new();
    set(&o, "unary", names(crate::UnaryOp::ALL.iter().map(|o| o.name()).collect()));
    set(&o, "binary", names(crate::BinaryOp::ALL.iter().map(|o| o.name()).collect()));
    set(&o, "reduce", names(crate::ReduceOp::ALL.iter().map(|o| o.name()).collect()));
    set(&o, "ops", js_sys::JSON::parse(&crate::op::manifest::json())?);
    Ok(o)
}
