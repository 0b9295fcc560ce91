//! Device management from JavaScript: soft placement, the placement log, memory limits,
//! transfer counters, timing events, device recovery, launch blocking and logical devices. (An
//! op's CPU fallback runs as a host step here, since a browser cannot block: see wgpu/hold.rs.)

use js_sys::{Array, Object, Promise};
use wasm_bindgen::prelude::*;

use super::{args, device, js_err, set};

/// Parses `{ "webgpu:0": [{ memoryLimit: bytes | null }, ...], ... }` (or undefined).
pub(crate) fn logical_configs(
    value: &JsValue,
) -> Result<Vec<(crate::Device, Vec<crate::LogicalDeviceConfig>)>, JsValue> {
    const HOW: &str =
        "logicalDevices must look like { 'webgpu:0': [{ memoryLimit: 67108864 }, { memoryLimit: null }] }";
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    let bad = |what: String| JsValue::from(js_sys::Error::new(&format!("{what}; {HOW}")));
    let object: &Object = value.dyn_ref().ok_or_else(|| bad("logicalDevices is not an object".into()))?;
    let mut out = Vec::new();
    for entry in Object::entries(object).iter() {
        let pair = Array::from(&entry);
        let name = pair.get(0).as_string().unwrap_or_default();
        let list: Array =
            pair.get(1).dyn_into().map_err(|_| bad(format!("logicalDevices['{name}'] is not an array")))?;
        let mut configs = Vec::new();
        for (k, c) in list.iter().enumerate() {
            let limit = js_sys::Reflect::get(&c, &JsValue::from_str("memoryLimit")).unwrap_or(JsValue::UNDEFINED);
            let memory_limit = match limit.as_f64() {
                _ if limit.is_undefined() || limit.is_null() => None,
                Some(b) if b >= 0.0 && b.fract() == 0.0 => Some(b as u64),
                _ => {
                    return Err(bad(format!(
                        "logicalDevices['{name}'][{k}].memoryLimit is not a whole number of bytes"
                    )))
                }
            };
            configs.push(crate::LogicalDeviceConfig { memory_limit });
        }
        out.push((device("logicalDevices", &JsValue::from_str(&name))?, configs));
    }
    Ok(out)
}

/// Splits a discovered adapter into logical devices (after `init`, before any GPU device is
/// opened; `init({ logicalDevices })` does it before the best device opens).
#[wasm_bindgen(js_name = setLogicalDeviceConfiguration)]
pub fn set_logical_device_configuration_js(name: JsValue, configs: JsValue) -> Result<(), JsValue> {
    let wrapped = Object::new();
    let name = device("setLogicalDeviceConfiguration", &name)?.to_string();
    set(&wrapped, &name, configs);
    for (physical, configs) in logical_configs(&wrapped)? {
        crate::set_logical_device_configuration(physical, &configs).map_err(js_err)?;
    }
    Ok(())
}

/// Launch-blocking mode on or off: every op gets its own error scope, and the next synchronize
/// or readback reports the first error with the kernel that caused it.
#[wasm_bindgen(js_name = setLaunchBlocking)]
pub fn set_launch_blocking_js(on: bool) {
    crate::set_launch_blocking(on);
}

/// Whether launch-blocking mode is on.
#[wasm_bindgen(js_name = launchBlocking)]
pub fn launch_blocking_js() -> bool {
    crate::launch_blocking()
}

/// Turns the lazy elementwise tier on or off (see `set_lazy_elementwise`).
#[wasm_bindgen(js_name = setLazyElementwise)]
pub fn set_lazy_elementwise_js(on: bool) {
    crate::set_lazy_elementwise(on);
}

/// Whether the lazy elementwise tier is on.
#[wasm_bindgen(js_name = lazyElementwise)]
pub fn lazy_elementwise_js() -> bool {
    crate::lazy_elementwise()
}

/// Kernel launches recorded on a device since it opened (see `kernel_launches`).
#[wasm_bindgen(js_name = kernelLaunches)]
pub fn kernel_launches_js(name: JsValue) -> Result<f64, JsValue> {
    Ok(crate::kernel_launches(device("kernelLaunches", &name)?).map_err(js_err)? as f64)
}

/// When the ops run the fused kernels (attention, LayerNorm): `'auto'` (where they pay),
/// `'always'` or `'never'` (see `set_fused_kernels`).
#[wasm_bindgen(js_name = setFusedKernels)]
pub fn set_fused_kernels_js(mode: &str) -> Result<(), JsValue> {
    use crate::FusedKernels;
    let mode = match mode {
        "auto" => FusedKernels::Auto,
        "always" => FusedKernels::Always,
        "never" => FusedKernels::Never,
        other => {
            return Err(js_err(crate::Error::invalid(
                "setFusedKernels",
                format!("mode {other:?}; use 'auto', 'always' or 'never'"),
            )))
        }
    };
    crate::set_fused_kernels(mode);
    Ok(())
}

/// The fused-kernel mode: `'auto'`, `'always'` or `'never'`.
#[wasm_bindgen(js_name = fusedKernels)]
pub fn fused_kernels_js() -> String {
    match crate::fused_kernels() {
        crate::FusedKernels::Auto => "auto",
        crate::FusedKernels::Always => "always",
        crate::FusedKernels::Never => "never",
    }
    .into()
}

/// Test hook: makes the next kernel dispatched on the device invalid.
#[wasm_bindgen(js_name = __injectDispatchError)]
pub fn inject_dispatch_error_js(name: JsValue) -> Result<(), JsValue> {
    crate::__inject_dispatch_error(device("__injectDispatchError", &name)?).map_err(js_err)
}

/// Test hook: destroys the device's wgpu device, which the browser then reports lost.
#[wasm_bindgen(js_name = __destroyDevice)]
pub fn destroy_device_js(name: JsValue) -> Result<(), JsValue> {
    crate::__destroy_device(device("__destroyDevice", &name)?).map_err(js_err)
}

/// Soft placement on or off.
#[wasm_bindgen(js_name = setSoftDevicePlacement)]
pub fn set_soft_device_placement_js(on: bool) {
    crate::set_soft_device_placement(on);
}

/// Whether soft placement is on.
#[wasm_bindgen(js_name = softDevicePlacement)]
pub fn soft_device_placement_js() -> bool {
    crate::soft_device_placement()
}

/// The placement log on or off.
#[wasm_bindgen(js_name = setLogDevicePlacement)]
pub fn set_log_device_placement_js(on: bool) {
    crate::set_log_device_placement(on);
}

/// The placement log as `[{ op, inputs, output, fallback }]`, oldest first.
#[wasm_bindgen(js_name = placementLog)]
pub fn placement_log_js() -> Array {
    crate::placement_log()
        .into_iter()
        .map(|p| {
            let o = Object::new();
            set(&o, "op", p.op);
            set(&o, "inputs", p.inputs.iter().map(|d| JsValue::from(d.to_string())).collect::<Array>());
            set(&o, "output", p.output.to_string());
            set(&o, "fallback", p.fallback.map_or(JsValue::NULL, JsValue::from));
            JsValue::from(o)
        })
        .collect()
}

/// Empties the placement log.
#[wasm_bindgen(js_name = clearPlacementLog)]
pub fn clear_placement_log_js() {
    crate::clear_placement_log();
}

/// Sets (or with `null` removes) a device's memory limit in bytes.
#[wasm_bindgen(js_name = setMemoryLimit)]
pub fn set_memory_limit_js(name: JsValue, bytes: Option<f64>) -> Result<(), JsValue> {
    let bytes = bytes.map(|b| args::bytes("setMemoryLimit", b)).transpose()?;
    crate::set_memory_limit(device("setMemoryLimit", &name)?, bytes).map_err(js_err)
}

/// A device's memory limit in bytes, or `undefined`.
#[wasm_bindgen(js_name = memoryLimit)]
pub fn memory_limit_js(name: JsValue) -> Result<Option<f64>, JsValue> {
    Ok(crate::memory_limit(device("memoryLimit", &name)?).map_err(js_err)?.map(|b| b as f64))
}

/// A device's transfer counters.
#[wasm_bindgen(js_name = transferStats)]
pub fn transfer_stats_js(name: JsValue) -> Result<Object, JsValue> {
    let s = crate::transfer_stats(device("transferStats", &name)?).map_err(js_err)?;
    let o = Object::new();
    set(&o, "hostToDeviceBytes", s.host_to_device_bytes as f64);
    set(&o, "hostToDeviceCopies", s.host_to_device_copies as f64);
    set(&o, "deviceToHostBytes", s.device_to_host_bytes as f64);
    set(&o, "deviceToHostCopies", s.device_to_host_copies as f64);
    set(&o, "deviceToDeviceBytes", s.device_to_device_bytes as f64);
    set(&o, "deviceToDeviceCopies", s.device_to_device_copies as f64);
    set(&o, "readbackWaitMs", s.readback_wait_ms);
    Ok(o)
}

/// Zeroes a device's transfer counters.
#[wasm_bindgen(js_name = resetTransferStats)]
pub fn reset_transfer_stats_js(name: JsValue) -> Result<(), JsValue> {
    crate::reset_transfer_stats(device("resetTransferStats", &name)?).map_err(js_err)
}

/// Opens a fresh device in place of a lost one.
#[wasm_bindgen(js_name = recover)]
pub fn recover_js(name: JsValue) -> Promise {
    let d = device("recover", &name);
    super::promise(async move { crate::recover(d?).await.map(|_| JsValue::UNDEFINED).map_err(js_err) })
}

/// A timing event (see `Event` in the Rust docs).
#[wasm_bindgen]
pub struct RawEvent {
    e: std::rc::Rc<crate::Event>,
}

#[wasm_bindgen]
impl RawEvent {
    /// Marks the current point in a device's queued work.
    pub fn record(name: JsValue) -> Promise {
        let d = device("Event.record", &name);
        super::promise(async move {
            let e = crate::Event::record(d?).await.map_err(js_err)?;
            Ok(JsValue::from(RawEvent { e: std::rc::Rc::new(e) }))
        })
    }

    /// `timestamp-query` or `wall-clock`.
    #[wasm_bindgen(getter)]
    pub fn method(&self) -> String {
        match self.e.method() {
            crate::TimingMethod::TimestampQuery => "timestamp-query".into(),
            crate::TimingMethod::WallClock => "wall-clock".into(),
        }
    }

    /// Milliseconds from this event to `end`.
    #[wasm_bindgen(js_name = elapsedMs)]
    pub fn elapsed_ms(&self, end: &RawEvent) -> Promise {
        let (a, b) = (self.e.clone(), end.e.clone());
        super::promise(async move { a.elapsed_ms(&b).await.map(JsValue::from).map_err(js_err) })
    }
}

/// The canonical name of a device spelling (`'/GPU:0'`, `'gpu:0'`, `'webgpu'` -> `'webgpu:0'`),
/// as tensors on it report their device; soft placement applies as it does to creation.
#[wasm_bindgen(js_name = canonicalDevice)]
pub fn canonical_device(name: JsValue) -> Result<String, JsValue> {
    let d = device("canonicalDevice", &name)?;
    Ok(crate::device::placement::resolve("canonicalDevice", d).map_err(js_err)?.to_string())
}
