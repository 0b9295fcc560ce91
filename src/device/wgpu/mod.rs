//! The wgpu backend: adapter discovery and choice (`adapters.rs`), the per-device context with
//! its batched encoder, pipeline cache and error capture (`context.rs`), the caching buffer pool
//! (`pool.rs`), the kernel launches (`kernels.rs`) and readback (`readback.rs`).

mod adapters;
mod context;
mod elementwise;
mod fallback;
mod fused;
mod hold;
mod kernels;
mod launch;
mod matmul;
mod one_pass;
mod optim;
mod pinned;
mod pool;
mod readback;
#[cfg(target_arch = "wasm32")]
mod readback_web;
mod sort;
mod split;

#[cfg(target_arch = "wasm32")]
pub(crate) use adapters::forget_empty_discovery;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use adapters::set_budget_threshold;
pub(crate) use adapters::{
    adapter_infos, budget_threshold, configure_logical, discover, get, open, resolve_backend_alias,
};

/// After `device` was lost (driver reset, `destroy`, a browser reclaiming the GPU), opens a fresh
/// device on the same adapter so new work can go on. Tensors of the lost device stay lost (their
/// ops fail with `DeviceLost`); tensors on other devices are untouched. A no-op for a device
/// that is not lost, and for cpu and meta.
pub async fn recover(device: Device) -> Result<()> {
    match device.kind() {
        crate::device::DeviceKind::WebGpu => adapters::recover(device.ordinal()).await,
        _ => Ok(()),
    }
}

/// Blocking [`recover`] (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn recover_blocking(device: Device) -> Result<()> {
    crate::block::block_on(recover(device))
}

/// Destroys `device`'s wgpu device, which reports it lost, to test loss handling.
#[doc(hidden)]
pub fn destroy_device(device: Device) -> Result<()> {
    if let Backend::Wgpu(d) = Backend::of(device)? {
        d.device.destroy();
        #[cfg(not(target_arch = "wasm32"))]
        let _ = d.device.poll(wgpu::PollType::Poll);
    }
    Ok(())
}
pub(crate) use crate::device::policy::lock;
pub(crate) use context::WgpuDevice;
pub(crate) use fallback::or_cpu;
pub(crate) use pool::WgpuStorage;

use crate::device::{Backend, Device};
use crate::error::Result;

/// Waits until every op queued on `device` has finished on the GPU, and reports any GPU error
/// raised since the last check. The public `webtensor::synchronize` also reports the index
/// checks queued by indexed ops (`tensor/checks.rs`) and calls this. Timings of GPU work must
/// end with this: ops only record commands. A no-op for cpu and meta.
pub async fn synchronize(device: Device) -> Result<()> {
    match Backend::of(device)? {
        Backend::Wgpu(d) => d.synchronize().await,
        Backend::Cuda(d) => d.synchronize(),
        _ => Ok(()),
    }
}

/// Raises a wgpu validation error on `device` outside any op (a buffer whose size breaks the
/// mapping rules), for tests of error capture: the next `synchronize` or readback must return it
/// as `Error::Gpu` and the device must keep working.
#[doc(hidden)]
pub fn inject_validation_error(device: Device) -> Result<()> {
    if let Backend::Wgpu(d) = Backend::of(device)? {
        let _ = d.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("injected-invalid-buffer"),
            size: 3,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::MAP_WRITE,
            mapped_at_creation: true,
        });
    }
    Ok(())
}

/// Test hook: shape this device's kernels for a software adapter (`Some(true)`: matmul tiles
/// from registers, softmax and reductions a thread per row or chunk, no barriers), for a GPU
/// (`Some(false)`: workgroup memory and trees), or as the adapter type says (`None`), so the
/// suite checks both on whatever adapter it has. A no-op for other devices.
#[doc(hidden)]
pub fn set_software_kernels(device: Device, software: Option<bool>) -> Result<()> {
    if let Backend::Wgpu(d) = Backend::of(device)? {
        d.software_kernels.store(software.unwrap_or(d.info.software), std::sync::atomic::Ordering::Relaxed);
    }
    Ok(())
}

/// Makes the next kernel dispatched on `device` invalid (a grid one past the device's limit), for
/// tests of error attribution in launch-blocking mode.
#[doc(hidden)]
pub fn inject_dispatch_error(device: Device) -> Result<()> {
    if let Backend::Wgpu(d) = Backend::of(device)? {
        d.poison_next_dispatch.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    Ok(())
}
