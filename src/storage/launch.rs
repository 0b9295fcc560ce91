//! [`Storage::launch`]: a kernel call over `Storage` operands run on the backend they live on.
//! Checks that every operand is on that backend (and, for GPUs, the same opening of the
//! device), widens u8/i8 operands (widen.rs), and on wgpu falls back to the CPU under soft
//! placement; the meta device only accounts for the result's bytes.

use std::sync::Arc;

use super::Storage;
use crate::device::backend::{KernelCall, Kernels};
use crate::device::cpu::{CpuBackend, CpuStorage, MetaStorage};
use crate::device::cuda::CudaStorage;
use crate::device::wgpu::{or_cpu, WgpuDevice, WgpuStorage};
use crate::device::{Backend, Device};
use crate::dtype::DType;
use crate::error::{Error, Result};

pub(super) fn mixed(op: &'static str) -> Error {
    // Ops check devices before they reach storage; this is a guard, not a user-facing path.
    Error::invalid(op, "internal: operands on different backends reached the kernel layer")
}

/// GPU operands of one op must share one wgpu device instance: after a loss and `recover`, an
/// old tensor and a new one have the same device name but not the same device.
pub(super) fn same_gpu(op: &'static str, storages: &[&WgpuStorage]) -> Result<()> {
    let Some(first) = storages.first().map(|s| s.device()) else { return Ok(()) };
    for s in storages {
        if !Arc::ptr_eq(first, s.device()) {
            first.ensure_alive()?;
            s.device().ensure_alive()?;
            return Err(Error::invalid(op, "the operands belong to two openings of the same device"));
        }
    }
    Ok(())
}

/// CUDA operands of one op must share one device (ops check device names first; this guards
/// the kernel layer's pointers).
pub(super) fn same_cuda(op: &'static str, storages: &[&CudaStorage]) -> Result<()> {
    match storages.first() {
        Some(first) if !storages.iter().all(|s| Arc::ptr_eq(first.device(), s.device())) => Err(mixed(op)),
        _ => Ok(()),
    }
}

/// A meta result of `shape` and `dtype`: its bytes accounted for, nothing computed.
pub(super) fn meta(shape: &[usize], dtype: DType) -> Result<Storage> {
    let bytes = crate::shape::checked_numel("meta", shape)? * dtype.size_in_bytes();
    Ok(Storage::Meta(MetaStorage::new(bytes as u64)?))
}

impl Storage {
    /// The backend this storage lives on.
    fn backend(&self) -> Backend {
        match self {
            Storage::Cpu(_) => Backend::Cpu,
            Storage::Wgpu(s) => Backend::Wgpu(s.device().clone()),
            Storage::Cuda(s) => Backend::Cuda(s.device().clone()),
            Storage::Meta(_) => Backend::Meta,
            Storage::Lazy(l) => l.backend(),
        }
    }

    /// Runs `call` on the backend of its operands (or `device`'s, for calls that make a tensor
    /// there: fills, concatenations); with the profiler on, waits for it and records its time.
    pub(crate) fn launch(call: KernelCall<'_, &Storage>, device: Option<Device>) -> Result<Storage> {
        #[cfg(not(target_arch = "wasm32"))]
        if crate::device::profile::profiling() {
            let (name, t0) = (call.name(), std::time::Instant::now());
            let out = Storage::launch_now(&call, device)?;
            out.finish()?;
            crate::device::profile::record(name, t0.elapsed());
            return Ok(out);
        }
        match Storage::launch_now(&call, device) {
            // Pending lazy results hold their inputs: run them (freeing what only they held)
            // and try once more before reporting the device full.
            Err(e @ Error::OutOfMemory { .. }) => match super::lazy::flush_for_memory() {
                true => Storage::launch_now(&call, device),
                false => Err(e),
            },
            r => r,
        }
    }

    /// Waits until the work queued on this storage's device has finished (the profiler's
    /// wait; the CPU's calls finish before they return).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn finish(&self) -> Result<()> {
        match self {
            Storage::Wgpu(s) => crate::block::block_on(s.device().synchronize()),
            Storage::Cuda(s) => s.device().synchronize(),
            Storage::Cpu(_) | Storage::Meta(_) => Ok(()),
            Storage::Lazy(l) => l.resolve()?.finish(),
        }
    }

    fn launch_now(call: &KernelCall<'_, &Storage>, device: Option<Device>) -> Result<Storage> {
        if let Some(widened) = Storage::widened(call, device) {
            return widened;
        }
        let name = call.name();
        let backend = match (device, call.first_operand()) {
            (Some(d), _) => Backend::of(d)?,
            (None, Some(s)) => s.backend(),
            (None, None) => return Err(Error::invalid(name, "internal: a kernel call with no operand and no device")),
        };
        match backend {
            Backend::Cpu => {
                let call = call.map(|s| match s.resolve()? {
                    Storage::Cpu(s) => Ok(s),
                    _ => Err(mixed(name)),
                })?;
                Ok(Storage::Cpu(CpuBackend.launch(&call)?))
            }
            Backend::Wgpu(d) => {
                let call = call.map(|s| match s.resolve()? {
                    Storage::Wgpu(s) => Ok(s),
                    _ => Err(mixed(name)),
                })?;
                Ok(Storage::Wgpu(on_wgpu(&d, call)?))
            }
            Backend::Cuda(d) => {
                let call = call.map(|s| match s.resolve()? {
                    Storage::Cuda(s) => Ok(s),
                    _ => Err(mixed(name)),
                })?;
                same_cuda(name, &call.operands().into_iter().copied().collect::<Vec<_>>())?;
                Ok(Storage::Cuda(d.launch(&call)?))
            }
            Backend::Meta => {
                if call.operands().iter().any(|s| !matches!(s, Storage::Meta(_))) {
                    return Err(mixed(name));
                }
                let (shape, dtype) = call.output();
                meta(&shape, dtype)
            }
        }
    }
}

/// `call` on wgpu device `d`, or under soft placement on the CPU over host copies of its
/// operands (see `or_cpu`).
fn on_wgpu(d: &Arc<WgpuDevice>, call: KernelCall<'_, &WgpuStorage>) -> Result<WgpuStorage> {
    let name = call.name();
    let inputs: Vec<&WgpuStorage> = call.operands().into_iter().copied().collect();
    same_gpu(name, &inputs)?;
    if let Some(first) = inputs.first() {
        if !Arc::ptr_eq(d, first.device()) {
            first.device().ensure_alive()?;
        }
    }
    let r = d.launch(&call);
    let out = (call.output_numel(), call.output().1);
    or_cpu(name, d, &inputs, out, r, || {
        // The same call over the host copies, which arrive in the order of `operands()`.
        let mut next = 0;
        let owned = call
            .map(|_| {
                next += 1;
                Ok(next - 1)
            })
            .map(KernelCall::into_owned);
        move |host: &[CpuStorage]| CpuBackend.launch(&owned?.map(|&i| Ok(&host[i]))?)
    })
}
