//! Devices: the cheap `Device` descriptor (kind + ordinal, like `torch.device`), parsing and
//! printing, discovery (`devices`, `is_available`, ...), `best_device` and the default device.
//! Opening the backend behind a descriptor is separate, because on the web it is asynchronous.

pub(crate) mod backend;
pub(crate) mod cpu;
pub mod cuda;
pub mod event;
pub mod memory;
pub(crate) mod pinned;
pub mod placement;
pub mod policy;
#[cfg(not(target_arch = "wasm32"))]
pub mod profile;
pub mod scope;
pub mod transfer;
pub(crate) mod wgpu;

use std::cell::Cell;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::error::{Error, Result};

pub use self::wgpu::synchronize;

/// The kind of a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeviceKind {
    /// The CPU backend (native code natively, WebAssembly in browsers and Node).
    Cpu,
    /// A wgpu adapter: WebGPU in browsers, Vulkan/Metal/DX12/GL natively.
    WebGpu,
    /// An NVIDIA GPU through CUDA (cargo feature `cuda`, native only).
    Cuda,
    /// Shapes and dtypes only, no storage.
    Meta,
}

impl DeviceKind {
    fn prefix(self) -> &'static str {
        match self {
            DeviceKind::Cpu => "cpu",
            DeviceKind::WebGpu => "webgpu",
            DeviceKind::Cuda => "cuda",
            DeviceKind::Meta => "meta",
        }
    }
}

/// Where a tensor lives: a kind and an ordinal. Cheap to copy and compare; says nothing about
/// whether the device exists (that is checked when it is used), like `torch.device("cuda:5")`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Device {
    kind: DeviceKind,
    ordinal: usize,
}

impl Device {
    /// The CPU.
    pub const CPU: Device = Device { kind: DeviceKind::Cpu, ordinal: 0 };
    /// The meta device.
    pub const META: Device = Device { kind: DeviceKind::Meta, ordinal: 0 };

    /// The CPU device.
    pub fn cpu() -> Device {
        Device::CPU
    }

    /// The meta device (shapes and dtypes, no data).
    pub fn meta() -> Device {
        Device::META
    }

    /// The `n`-th wgpu adapter, best first.
    pub fn webgpu(n: usize) -> Device {
        Device { kind: DeviceKind::WebGpu, ordinal: n }
    }

    /// The `n`-th CUDA device.
    pub fn cuda(n: usize) -> Device {
        Device { kind: DeviceKind::Cuda, ordinal: n }
    }

    /// The kind of device.
    pub fn kind(&self) -> DeviceKind {
        self.kind
    }

    /// The ordinal (0 for cpu and meta).
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// Parses `cpu`, `meta`, `webgpu[:N]`, `cuda[:N]`, natively `vulkan|metal|dx12|gl[:N]` (the
    /// N-th adapter of that wgpu backend, resolved to its `webgpu:M` device), and TensorFlow's
    /// forms: `/CPU:0`, `/GPU:N`, `/device:GPU:N`, `/job:localhost/replica:0/task:0/device:GPU:N`
    /// and plain `gpu[:N]`, where GPU N is the N-th accelerator (see [`Device::accelerator`]).
    /// Case does not matter.
    pub fn parse(s: &str) -> Result<Device> {
        let bad = |reason: String| Error::ParseDevice { input: s.to_string(), reason };
        let t = tf_device_part(s.trim()).map_err(bad)?.to_ascii_lowercase();
        let (name, ordinal) = match t.split_once(':') {
            None => (t.as_str(), None),
            Some((n, o)) => {
                let o: usize =
                    o.parse().map_err(|_| bad(format!("'{o}' is not a device index (expected 0, 1, ...)")))?;
                (n, Some(o))
            }
        };
        let with = |kind: DeviceKind| Device { kind, ordinal: ordinal.unwrap_or(0) };
        match name {
            "cpu" | "meta" if ordinal.is_some_and(|o| o != 0) => {
                Err(bad(format!("there is only one {name} device; write '{name}'")))
            }
            "cpu" => Ok(Device::CPU),
            "meta" => Ok(Device::META),
            "webgpu" | "wgpu" => Ok(with(DeviceKind::WebGpu)),
            "gpu" => Device::accelerator(ordinal.unwrap_or(0)),
            "cuda" => Ok(with(DeviceKind::Cuda)),
            "vulkan" | "metal" | "dx12" | "gl" => self::wgpu::resolve_backend_alias(name, ordinal.unwrap_or(0)),
            "" => Err(bad("the string is empty".into())),
            other => Err(bad(format!("'{other}' is not a device kind"))),
        }
    }

    /// The `n`-th accelerator, TensorFlow's `/GPU:n`: `cuda:n` when this machine has CUDA
    /// devices, else `webgpu:n` (software adapters included: asking for a GPU by number is a
    /// request, not a preference). When there is none, an error naming the devices that exist
    /// -- unless soft placement is on, in which case the descriptor is returned and falls back
    /// where it is used, with the reason in the placement log.
    pub fn accelerator(n: usize) -> Result<Device> {
        let (kind, count) = match cuda::count() {
            0 => (DeviceKind::WebGpu, self::wgpu::adapter_infos().len()),
            c => (DeviceKind::Cuda, c),
        };
        let device = Device { kind, ordinal: n };
        if n < count || placement::soft_device_placement() {
            return Ok(device);
        }
        let what = if kind == DeviceKind::Cuda { "CUDA device" } else { "accelerator (CUDA or WebGPU adapter)" };
        Err(unavailable_because(device, format!("GPU:{n} asks for the {}-th {what}, and there are {count}", n + 1)))
    }
}

/// The device part of a TensorFlow device string: `/job:localhost/replica:0/task:0/device:GPU:1`,
/// `/device:GPU:1` and `/GPU:1` all give `GPU:1`; a string without a leading `/` is returned
/// as it is.
fn tf_device_part(s: &str) -> std::result::Result<&str, String> {
    let Some(rest) = s.strip_prefix('/') else { return Ok(s) };
    let mut device = None;
    for part in rest.split('/') {
        let lower = part.to_ascii_lowercase();
        if let Some(d) = lower.strip_prefix("device:") {
            device = Some(&part[part.len() - d.len()..]);
        } else if ["job:", "replica:", "task:"].iter().any(|p| lower.starts_with(p)) {
            // Cluster coordinates: one process is the whole cluster here, so they select nothing.
        } else if lower.starts_with("cpu") || lower.starts_with("gpu") {
            device = Some(part);
        } else {
            return Err(format!("'/{part}' is not part of a TensorFlow device name (job, replica, task, device)"));
        }
    }
    device.ok_or_else(|| "the TensorFlow device name has no device part (e.g. /device:GPU:0)".to_string())
}

impl TryFrom<usize> for Device {
    type Error = Error;
    /// The `n`-th accelerator (TensorFlow's `/GPU:n`, PyTorch's `torch.device(0)`): see
    /// [`Device::accelerator`].
    fn try_from(n: usize) -> Result<Device> {
        Device::accelerator(n)
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            DeviceKind::Cpu | DeviceKind::Meta => f.write_str(self.kind.prefix()),
            k => write!(f, "{}:{}", k.prefix(), self.ordinal),
        }
    }
}

impl FromStr for Device {
    type Err = Error;
    fn from_str(s: &str) -> Result<Device> {
        Device::parse(s)
    }
}

impl TryFrom<&str> for Device {
    type Error = Error;
    fn try_from(s: &str) -> Result<Device> {
        Device::parse(s)
    }
}

/// What is known about a usable device.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceInfo {
    /// The device this describes.
    pub device: Device,
    /// Adapter or CPU name.
    pub name: String,
    /// `cpu`, `vulkan`, `metal`, `dx12`, `gl`, `webgpu` (browser), `cuda`.
    pub backend: String,
    /// `cpu`, `discrete`, `integrated`, `virtual`, `software`, `other`.
    pub device_type: String,
    /// Whether this is a software/fallback adapter (lavapipe, SwiftShader, llvmpipe).
    pub software: bool,
    /// Driver name and version, where the adapter reports them.
    pub driver: String,
    /// Key limits as (name, value).
    pub limits: Vec<(String, u64)>,
    /// Optional features the adapter offers (e.g. `shader-f16`).
    pub features: Vec<String>,
    /// Device memory in bytes, where known.
    pub memory: Option<u64>,
    /// For a logical device (see [`set_logical_device_configuration`]): its index among the
    /// logical devices of its adapter.
    pub logical: Option<usize>,
}

/// One logical device carved out of an adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LogicalDeviceConfig {
    /// Its memory limit in bytes (see [`memory::set_memory_limit`]).
    pub memory_limit: Option<u64>,
}

/// Splits the adapter behind `physical` into one logical device per config (TensorFlow's
/// `set_logical_device_configuration`), so multi-device code can be tested on one GPU. Each
/// logical device is its own wgpu device with its own memory limit; transfers between them work
/// and count as device-to-device. Devices are renumbered, best adapter first, logical devices in
/// order: splitting `webgpu:0` in two makes `webgpu:0` and `webgpu:1` its halves. Must be called
/// before any GPU device is used. On the web, after discovery (`init` takes the configuration);
/// each logical device after the first opens on a fresh request for the same adapter, since a
/// browser adapter opens one device.
pub fn set_logical_device_configuration(physical: Device, configs: &[LogicalDeviceConfig]) -> Result<()> {
    if physical.kind != DeviceKind::WebGpu {
        return Err(Error::invalid(
            "set_logical_device_configuration",
            format!("{physical} cannot be split; logical devices are carved out of webgpu adapters"),
        ));
    }
    self::wgpu::configure_logical(physical.ordinal, configs)
}

/// Kernel launches recorded on `device` since it opened: wgpu compute dispatches, or CUDA
/// kernel launches plus cuBLAS calls. The CPU and meta devices launch none (always 0). For
/// checking what an operation costs on a GPU: a fused optimizer step is one launch per
/// parameter, where the same update as separate ops is about ten.
pub fn kernel_launches(device: Device) -> Result<u64> {
    Ok(match Backend::of(device)? {
        Backend::Cpu | Backend::Meta => 0,
        Backend::Wgpu(d) => d.launches(),
        Backend::Cuda(d) => d.launches(),
    })
}

/// Every usable device: the CPU, then each CUDA device (with the `cuda` feature), then each
/// wgpu adapter best first (natively this enumerates adapters on first call; on wasm it lists
/// those found by `init`).
pub fn devices() -> Vec<DeviceInfo> {
    let mut out = vec![cpu::info()];
    out.extend(cuda::infos());
    out.extend(self::wgpu::adapter_infos());
    out
}

/// Whether at least one device of this kind is usable.
pub fn is_available(kind: DeviceKind) -> bool {
    device_count(kind) > 0
}

/// How many devices of this kind are usable.
pub fn device_count(kind: DeviceKind) -> usize {
    match kind {
        DeviceKind::Cpu | DeviceKind::Meta => 1,
        DeviceKind::WebGpu => self::wgpu::adapter_infos().len(),
        DeviceKind::Cuda => cuda::count(),
    }
}

/// The adapter (or CPU) name of a device, or an error naming what exists.
pub fn device_name(device: Device) -> Result<String> {
    match device.kind {
        DeviceKind::Meta => Ok("meta".into()),
        _ => devices().into_iter().find(|i| i.device == device).map(|i| i.name).ok_or_else(|| unavailable(device)),
    }
}

/// The error for a device that does not exist, listing those that do.
pub(crate) fn unavailable(device: Device) -> Error {
    match device.kind {
        DeviceKind::Cuda => unavailable_because(device, cuda::unavailable_reason(device.ordinal)),
        _ => unavailable_because(device, String::new()),
    }
}

/// The error for a device that cannot be used for `reason`, listing the devices that can.
fn unavailable_because(device: Device, reason: String) -> Error {
    let existing: Vec<String> = devices().iter().map(|i| i.device.to_string()).collect();
    let listed = format!("available devices: {}", existing.join(", "));
    let reason = if reason.is_empty() { listed } else { format!("{reason}; {listed}") };
    Error::DeviceUnavailable { device: device.to_string(), reason }
}

/// The best device and why it was chosen: a CUDA device if there is one, else a hardware wgpu
/// adapter, else the CPU. Software adapters are never chosen over the CPU (they are slower),
/// but `webgpu` still reaches them on request.
pub fn best_device_with_reason() -> (Device, String) {
    if let Some(i) = cuda::infos().first() {
        return (i.device, format!("{} is a CUDA GPU ({})", i.device, i.name));
    }
    let infos = self::wgpu::adapter_infos();
    if let Some(i) = infos.iter().find(|i| !i.software) {
        return (i.device, format!("{} is a {} GPU adapter ({})", i.device, i.device_type, i.name));
    }
    let reason = match infos.first() {
        Some(i) => format!(
            "no hardware accelerator found; {} ({}) is a software adapter, which the CPU backend outruns",
            i.device, i.name
        ),
        None => "no GPU adapter found (no WebGPU, Vulkan, Metal or DX12 driver)".to_string(),
    };
    (Device::CPU, reason)
}

/// The best device: see [`best_device_with_reason`].
pub fn best_device() -> Device {
    best_device_with_reason().0
}

thread_local! {
    static DEFAULT_DEVICE: Cell<Device> = const { Cell::new(Device::CPU) };
}

/// Where tensors created without a device go: the innermost [`scope::with_device`] scope's
/// device, else `cpu` unless [`set_default_device`] said otherwise (per thread natively; per
/// module on wasm, which has one thread).
pub fn default_device() -> Device {
    scope::current().unwrap_or_else(|| DEFAULT_DEVICE.with(|d| d.get()))
}

/// Sets the default device for this thread (PyTorch's `torch.set_default_device`).
pub fn set_default_device(device: Device) {
    DEFAULT_DEVICE.with(|d| d.set(device));
}

/// Discovers adapters and opens the best device. On wasm this is the required first call (it
/// awaits the browser's `requestAdapter`); natively it is optional, since devices open lazily.
pub async fn init() -> Result<Device> {
    self::wgpu::discover().await?;
    let best = best_device();
    open(best).await?;
    Ok(best)
}

/// Opens a device so that it can be used (required on wasm before first use; natively devices
/// also open on first use).
pub async fn open(device: Device) -> Result<()> {
    match device.kind {
        DeviceKind::Cpu | DeviceKind::Meta => Ok(()),
        DeviceKind::WebGpu => self::wgpu::open(device.ordinal).await.map(|_| ()),
        DeviceKind::Cuda => Backend::of(device).map(|_| ()),
    }
}

/// The backend behind a device, opened (natively, lazily) and ready to allocate.
#[derive(Clone)]
pub(crate) enum Backend {
    Cpu,
    Wgpu(Arc<self::wgpu::WgpuDevice>),
    Cuda(Arc<cuda::CudaDevice>),
    Meta,
}

impl Backend {
    /// Whether the fused attention kernels beat the composed formula here, for rows that the
    /// tiled GPU programs take (`tiled`: at most 64 wide) or not. On the CPU and software
    /// adapters they do (a GPT step on lavapipe 592 -> 462 ms). On hardware GPUs the tiled
    /// programs do (an H200 GPT step, nanoGPT's shakespeare-char: CUDA 63.1 -> 60.6 ms, NVIDIA's
    /// Vulkan 116.7 -> 90.3, peak memory 7.5 -> 3.6 GB) and the thread-per-row ones lose to the
    /// composed formula's batched matmuls (CUDA 359 ms fused against 77 composed), so wider
    /// rows compose there (see `policy::set_fused_kernels`).
    pub(crate) fn fused_attention_pays(device: Device, tiled: bool) -> bool {
        match Backend::of(device) {
            Ok(Backend::Cpu | Backend::Meta) => true,
            Ok(Backend::Wgpu(d)) => tiled || d.software(),
            Ok(Backend::Cuda(_)) => tiled,
            Err(_) => false,
        }
    }

    /// Whether the fused attention kernels here write their output and gradients in the
    /// layouts the op asks for (`AttentionArgs::out`, `grads`): the wgpu programs and the CPU's
    /// do; CUDA's take the layouts but have not run on a GPU since.
    pub(crate) fn attention_layouts(device: Device) -> bool {
        matches!(Backend::of(device), Ok(Backend::Wgpu(_) | Backend::Cpu))
    }

    pub(crate) fn of(device: Device) -> Result<Backend> {
        match device.kind {
            DeviceKind::Cpu => Ok(Backend::Cpu),
            DeviceKind::Meta => Ok(Backend::Meta),
            DeviceKind::WebGpu => self::wgpu::get(device.ordinal).map(Backend::Wgpu),
            DeviceKind::Cuda => match cuda::get(device.ordinal) {
                Ok(d) => Ok(Backend::Cuda(d)),
                Err(reason) => Err(unavailable_because(device, reason)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        assert_eq!(Device::parse("cpu").unwrap(), Device::CPU);
        assert_eq!(Device::parse("webgpu").unwrap().to_string(), "webgpu:0");
        assert_eq!(Device::parse("WebGPU:2").unwrap(), Device::webgpu(2));
        assert_eq!(Device::parse("cuda:1").unwrap().to_string(), "cuda:1");
        assert_eq!(Device::parse("meta").unwrap().to_string(), "meta");
        assert_eq!(Device::parse("/CPU:0").unwrap(), Device::CPU);
        assert_eq!(Device::parse("/job:localhost/replica:0/task:0/device:CPU:0").unwrap(), Device::CPU);
        for bad in ["", "tpu", "webgpu:x", "cpu:1", "cuda:-1", "/CPU:1", "/job:localhost", "/foo:0", "/device:TPU:0"] {
            let e = Device::parse(bad).unwrap_err().to_string();
            assert!(e.contains("accepted forms"), "{bad}: {e}");
        }
    }
}
