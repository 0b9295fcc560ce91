//! Adapter discovery, ordering (best first) and the registry of opened devices. Natively,
//! discovery runs on first use and devices open lazily; on wasm, `init`/`open` do it
//! asynchronously and using an unopened device is an error that says so.

use std::sync::{Arc, Mutex};

use super::{lock, WgpuDevice};
use crate::device::{unavailable, Device, DeviceInfo};
use crate::error::{Error, Result};

struct Entry {
    adapter: wgpu::Adapter,
    info: DeviceInfo,
    opened: Option<Arc<WgpuDevice>>,
    /// Memory limit applied when the device opens (logical devices).
    memory_limit: Option<u64>,
}

static REGISTRY: Mutex<Option<Vec<Entry>>> = Mutex::new(None);

/// The memory-budget threshold (percent) instances are created with; see
/// `set_memory_budget_threshold`.
static BUDGET_THRESHOLD: Mutex<Option<u8>> = Mutex::new(None);

/// A wgpu instance configured from the environment, with `threshold` as its memory budget.
fn instance_with(threshold: Option<u8>) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.memory_budget_thresholds.for_resource_creation = threshold;
    wgpu::Instance::new(desc)
}

fn backend_name(b: wgpu::Backend) -> &'static str {
    match b {
        wgpu::Backend::Vulkan => "vulkan",
        wgpu::Backend::Metal => "metal",
        wgpu::Backend::Dx12 => "dx12",
        wgpu::Backend::Gl => "gl",
        wgpu::Backend::BrowserWebGpu => "webgpu",
        _ => "other",
    }
}

/// Sort key: discrete > integrated > virtual > other > software; then native APIs before GL.
fn rank(info: &wgpu::AdapterInfo) -> (u8, u8) {
    let t = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    };
    (t, (info.backend == wgpu::Backend::Gl) as u8)
}

fn describe(adapter: &wgpu::Adapter, ordinal: usize) -> DeviceInfo {
    let i = adapter.get_info();
    let l = adapter.limits();
    let software = i.device_type == wgpu::DeviceType::Cpu
        || ["llvmpipe", "lavapipe", "swiftshader", "warp", "basic render"]
            .iter()
            .any(|s| i.name.to_ascii_lowercase().contains(s));
    let device_type = match i.device_type {
        wgpu::DeviceType::DiscreteGpu => "discrete",
        wgpu::DeviceType::IntegratedGpu => "integrated",
        wgpu::DeviceType::VirtualGpu => "virtual",
        wgpu::DeviceType::Cpu => "software",
        wgpu::DeviceType::Other => {
            if software {
                "software"
            } else {
                "other"
            }
        }
    };
    let features = adapter.features();
    let mut names = Vec::new();
    for (f, n) in [
        (wgpu::Features::SHADER_F16, "shader-f16"),
        (wgpu::Features::TIMESTAMP_QUERY, "timestamp-query"),
        (wgpu::Features::SUBGROUP, "subgroups"),
    ] {
        if features.contains(f) {
            names.push(n.to_string());
        }
    }
    DeviceInfo {
        device: Device::webgpu(ordinal),
        name: if i.name.is_empty() { "WebGPU adapter".into() } else { i.name.clone() },
        backend: backend_name(i.backend).into(),
        device_type: device_type.into(),
        software,
        driver: format!("{} {}", i.driver, i.driver_info).trim().to_string(),
        limits: vec![
            ("max_buffer_size".into(), l.max_buffer_size),
            ("max_storage_buffer_binding_size".into(), l.max_storage_buffer_binding_size),
            ("max_compute_workgroups_per_dimension".into(), l.max_compute_workgroups_per_dimension as u64),
            ("max_compute_invocations_per_workgroup".into(), l.max_compute_invocations_per_workgroup as u64),
            ("max_compute_workgroup_storage_size".into(), l.max_compute_workgroup_storage_size as u64),
        ],
        features: names,
        memory: None,
        logical: None,
    }
}

#[cfg(not(target_arch = "wasm32"))]
async fn find_adapters(instance: &wgpu::Instance) -> Vec<wgpu::Adapter> {
    instance.enumerate_adapters(wgpu::Backends::all()).await
}

#[cfg(target_arch = "wasm32")]
async fn find_adapters(instance: &wgpu::Instance) -> Vec<wgpu::Adapter> {
    let mut out: Vec<wgpu::Adapter> = Vec::new();
    for power_preference in [wgpu::PowerPreference::HighPerformance, wgpu::PowerPreference::LowPower] {
        let opts = wgpu::RequestAdapterOptions { power_preference, ..Default::default() };
        if let Ok(a) = instance.request_adapter(&opts).await {
            if !out.iter().any(|b| b.get_info() == a.get_info()) {
                out.push(a);
            }
        }
    }
    out
}

/// Forgets a discovery that found no adapter, so the next [`discover`] looks again: on the web,
/// WebGPU can be provided after a first, CPU-only `init` (Node's `init({ gpu })`).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn forget_empty_discovery() {
    let mut reg = lock(&REGISTRY);
    if reg.as_ref().is_some_and(|entries| entries.is_empty()) {
        *reg = None;
    }
}

/// Finds the usable adapters (those that run compute shaders), best first. Idempotent.
pub(crate) async fn discover() -> Result<()> {
    if lock(&REGISTRY).is_some() {
        return Ok(());
    }
    // On the web, creating an instance without WebGPU (Node without a `gpu`, an old browser, a
    // shared worker) would panic inside wgpu: check first, and find no adapters instead.
    #[cfg(target_arch = "wasm32")]
    if !wgpu::util::is_browser_webgpu_supported().await {
        let mut reg = lock(&REGISTRY);
        if reg.is_none() {
            *reg = Some(Vec::new());
        }
        return Ok(());
    }
    let threshold = budget_threshold();
    let instance = instance_with(threshold);
    let mut adapters: Vec<wgpu::Adapter> = find_adapters(&instance)
        .await
        .into_iter()
        .filter(|a| {
            // The kernels use 256-thread workgroups and up to 8 KiB of workgroup memory.
            let l = a.limits();
            a.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
                && l.max_compute_invocations_per_workgroup >= 256
                && l.max_compute_workgroup_size_x >= 256
                && l.max_compute_workgroup_storage_size >= 8192
        })
        .collect();
    crate::order::sort_by(&mut adapters, |a, b| rank(&a.get_info()).cmp(&rank(&b.get_info())));
    let entries = adapters
        .into_iter()
        .enumerate()
        .map(|(i, adapter)| Entry { info: describe(&adapter, i), adapter, opened: None, memory_limit: None })
        .collect();
    let stale = {
        let mut reg = lock(&REGISTRY);
        // set_memory_budget_threshold may have run meanwhile: then discover again with its value.
        let stale = reg.is_none() && budget_threshold() != threshold;
        if reg.is_none() && !stale {
            *reg = Some(entries);
        }
        stale
    };
    if stale {
        return Box::pin(discover()).await;
    }
    Ok(())
}

/// Natively, runs discovery on first use; on wasm, discovery is `init`'s job.
fn ensure_discovered() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = crate::block::block_on(discover());
    }
}

/// Infos of every usable adapter, best first.
pub(crate) fn adapter_infos() -> Vec<DeviceInfo> {
    ensure_discovered();
    lock(&REGISTRY).as_ref().map(|r| r.iter().map(|e| e.info.clone()).collect()).unwrap_or_default()
}

/// A browser adapter opens one device only (the WebGPU spec consumes it), so a second logical
/// device, or a device after a loss, asks the browser again for the same adapter.
#[cfg(target_arch = "wasm32")]
async fn fresh_adapter(like: &wgpu::Adapter, device: Device) -> Result<wgpu::Adapter> {
    let instance = instance_with(budget_threshold());
    let want = like.get_info();
    find_adapters(&instance).await.into_iter().find(|a| a.get_info() == want).ok_or_else(|| Error::DeviceUnavailable {
        device: device.to_string(),
        reason: format!("the browser no longer offers the adapter {} for a further device", want.name),
    })
}

/// The adapter to open a device of `info` on: natively the entry's own; on the web a fresh one
/// for every logical device after the first.
async fn adapter_for(adapter: wgpu::Adapter, info: &DeviceInfo) -> Result<wgpu::Adapter> {
    #[cfg(target_arch = "wasm32")]
    if info.logical.is_some_and(|k| k > 0) {
        return fresh_adapter(&adapter, info.device).await;
    }
    let _ = info;
    Ok(adapter)
}

/// Opens the `ordinal`-th adapter (once; later calls return the same device).
pub(crate) async fn open(ordinal: usize) -> Result<Arc<WgpuDevice>> {
    discover().await?;
    // The registry lock is never held while building an error: `unavailable` lists devices,
    // which takes the lock again.
    let found = {
        let reg = lock(&REGISTRY);
        reg.as_ref()
            .and_then(|r| r.get(ordinal))
            .map(|e| (e.adapter.clone(), e.info.clone(), e.opened.clone(), e.memory_limit))
    };
    let (adapter, info, limit) = match found {
        None => return Err(unavailable(Device::webgpu(ordinal))),
        Some((_, _, Some(d), _)) => return Ok(d),
        Some((a, i, None, l)) => (a, i, l),
    };
    let adapter = adapter_for(adapter, &info).await?;
    let dev = Arc::new(WgpuDevice::new(&adapter, info).await?);
    dev.stats.set_limit(limit);
    let mut reg = lock(&REGISTRY);
    match reg.as_mut().and_then(|r| r.get_mut(ordinal)) {
        Some(entry) => Ok(entry.opened.get_or_insert(dev).clone()),
        None => Ok(dev),
    }
}

/// Replaces a lost device with a fresh one on the same adapter, so new work can go on; tensors
/// of the lost device stay unusable. A no-op for a device that is not lost.
pub(crate) async fn recover(ordinal: usize) -> Result<()> {
    let found = {
        let reg = lock(&REGISTRY);
        reg.as_ref()
            .and_then(|r| r.get(ordinal))
            .map(|e| (e.adapter.clone(), e.info.clone(), e.opened.clone(), e.memory_limit))
    };
    let (adapter, info, opened, limit) = found.ok_or_else(|| unavailable(Device::webgpu(ordinal)))?;
    if opened.as_ref().is_none_or(|d| d.ensure_alive().is_ok()) {
        return Ok(());
    }
    // Keep a limit the user set on the lost device (set_memory_limit), else the configured one.
    let limit = opened.as_ref().and_then(|d| d.stats.limit()).or(limit);
    #[cfg(target_arch = "wasm32")]
    let adapter = fresh_adapter(&adapter, info.device).await?;
    let dev = Arc::new(WgpuDevice::new(&adapter, info).await?);
    dev.stats.set_limit(limit);
    if let Some(entry) = lock(&REGISTRY).as_mut().and_then(|r| r.get_mut(ordinal)) {
        entry.opened = Some(dev);
    }
    Ok(())
}

/// Replaces adapter `ordinal`'s entry with one entry per logical device and renumbers.
pub(crate) fn configure_logical(ordinal: usize, configs: &[crate::device::LogicalDeviceConfig]) -> Result<()> {
    const OP: &str = "set_logical_device_configuration";
    if cfg!(target_arch = "wasm32") && lock(&REGISTRY).is_none() {
        return Err(Error::invalid(
            OP,
            "adapters are not discovered yet: pass the configuration to init() (logicalDevices), or call this after init() and before opening a GPU device",
        ));
    }
    if configs.is_empty() {
        return Err(Error::invalid(OP, "give at least one logical device configuration"));
    }
    ensure_discovered();
    // The outcome is decided under the lock; errors that list devices are built after it.
    enum Outcome {
        Done,
        Missing,
        InUse(String),
    }
    let outcome = {
        let mut reg = lock(&REGISTRY);
        match reg.as_mut() {
            None => Outcome::Missing,
            Some(entries) if ordinal >= entries.len() => Outcome::Missing,
            Some(entries) => {
                if let Some(d) = opened_device(entries) {
                    Outcome::InUse(d)
                } else if entries[ordinal].info.logical.is_some() {
                    Outcome::InUse(format!("{} (already split)", entries[ordinal].info.device))
                } else {
                    let base = entries.remove(ordinal);
                    for (k, c) in configs.iter().enumerate().rev() {
                        let mut info = base.info.clone();
                        info.logical = Some(k);
                        info.name = format!("{} (logical {} of {})", base.info.name, k, configs.len());
                        entries.insert(
                            ordinal,
                            Entry { adapter: base.adapter.clone(), info, opened: None, memory_limit: c.memory_limit },
                        );
                    }
                    for (i, e) in entries.iter_mut().enumerate() {
                        e.info.device = Device::webgpu(i);
                    }
                    Outcome::Done
                }
            }
        }
    };
    match outcome {
        Outcome::Done => Ok(()),
        Outcome::Missing => Err(unavailable(Device::webgpu(ordinal))),
        Outcome::InUse(d) => Err(Error::invalid(
            OP,
            format!("{d} is already in use; configure logical devices before any GPU device is used"),
        )),
    }
}

/// The device already opened, if any (settings that shape devices must come before).
fn opened_device(entries: &[Entry]) -> Option<String> {
    entries.iter().find(|e| e.opened.is_some()).map(|e| e.info.device.to_string())
}

/// Sets the memory-budget threshold (see `memory::set_memory_budget_threshold`): adapters
/// discovered already move to a fresh instance created with it, matched by their adapter info.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn set_budget_threshold(percent: Option<u8>) -> Result<()> {
    const OP: &str = "set_memory_budget_threshold";
    if percent.is_some_and(|p| p == 0 || p > 100) {
        return Err(Error::invalid(
            OP,
            format!("the threshold is a percent of the driver's budget: give 1..=100 (or None), not {percent:?}"),
        ));
    }
    let in_use = |entries: &[Entry]| {
        opened_device(entries).map(|d| {
            Error::invalid(OP, format!("{d} is already in use; set the threshold before any GPU device is used"))
        })
    };
    {
        let reg = lock(&REGISTRY);
        if let Some(e) = reg.as_deref().and_then(in_use) {
            return Err(e);
        }
        if reg.is_none() {
            // Discovery creates its instance with the threshold (and checks it under this lock).
            *lock(&BUDGET_THRESHOLD) = percent;
            return Ok(());
        }
    }
    let fresh = crate::block::block_on(find_adapters(&instance_with(percent)));
    let mut reg = lock(&REGISTRY);
    let entries = reg.as_mut().map(|r| r.as_mut_slice()).unwrap_or_default();
    if let Some(e) = in_use(entries) {
        return Err(e);
    }
    // Logical devices share their adapter; identical GPUs share an info. So the k-th distinct
    // adapter with a given info maps to the k-th fresh one with that info.
    let mut distinct: Vec<wgpu::Adapter> = Vec::new();
    for e in entries.iter() {
        if !distinct.contains(&e.adapter) {
            distinct.push(e.adapter.clone());
        }
    }
    let mut mapping = Vec::with_capacity(distinct.len());
    for (i, old) in distinct.iter().enumerate() {
        let info = old.get_info();
        let k = distinct[..i].iter().filter(|a| a.get_info() == info).count();
        let Some(new) = fresh.iter().filter(|a| a.get_info() == info).nth(k) else {
            return Err(Error::invalid(
                OP,
                format!("the adapter {} is no longer offered by the driver; the threshold was not set", info.name),
            ));
        };
        mapping.push((old.clone(), new.clone()));
    }
    for entry in entries.iter_mut() {
        if let Some((_, new)) = mapping.iter().find(|(old, _)| *old == entry.adapter) {
            entry.adapter = new.clone();
        }
    }
    *lock(&BUDGET_THRESHOLD) = percent;
    Ok(())
}

/// The memory-budget threshold set with `set_budget_threshold`.
pub(crate) fn budget_threshold() -> Option<u8> {
    *lock(&BUDGET_THRESHOLD)
}

/// The opened device behind `webgpu:ordinal` (natively opened on first use).
pub(crate) fn get(ordinal: usize) -> Result<Arc<WgpuDevice>> {
    ensure_discovered();
    let state = {
        let reg = lock(&REGISTRY);
        reg.as_ref().and_then(|r| r.get(ordinal)).map(|e| e.opened.clone())
    };
    match state {
        None => Err(unavailable(Device::webgpu(ordinal))),
        Some(Some(d)) => Ok(d),
        #[cfg(not(target_arch = "wasm32"))]
        Some(None) => crate::block::block_on(open(ordinal)),
        #[cfg(target_arch = "wasm32")]
        Some(None) => Err(Error::NotOpened { device: Device::webgpu(ordinal).to_string() }),
    }
}

/// `vulkan:N` and friends: the N-th adapter of that wgpu backend, as its `webgpu:M` device.
pub(crate) fn resolve_backend_alias(name: &str, n: usize) -> Result<Device> {
    if cfg!(target_arch = "wasm32") {
        return Err(Error::ParseDevice {
            input: format!("{name}:{n}"),
            reason: "native backend names do not exist in a browser; use webgpu[:N]".into(),
        });
    }
    let infos = adapter_infos();
    infos.iter().filter(|i| i.backend == name).nth(n).map(|i| i.device).ok_or_else(|| Error::DeviceUnavailable {
        device: format!("{name}:{n}"),
        reason: format!(
            "found {} {name} adapter(s); adapters: {}",
            infos.iter().filter(|i| i.backend == name).count(),
            infos.iter().map(|i| format!("{} = {} {}", i.device, i.backend, i.name)).collect::<Vec<_>>().join(", ")
        ),
    })
}
