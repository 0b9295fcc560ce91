//! Transfer accounting: per device, the bytes and copies that went host-to-device,
//! device-to-host and device-to-device, and the time spent waiting on readback. Counted where a
//! transfer is decided (creation from host data, `to`, readback), so a GPU-to-GPU `to` counts as
//! device-to-device on both sides rather than as a readback plus an upload.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::device::{Backend, Device, DeviceKind};
use crate::error::Result;

/// The direction of a transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
}

/// Counters of one device.
#[derive(Debug, Default)]
pub(crate) struct TransferStats {
    bytes: [AtomicU64; 3],
    copies: [AtomicU64; 3],
    wait_us: AtomicU64,
}

impl TransferStats {
    pub(crate) fn record(&self, dir: Direction, bytes: u64) {
        self.bytes[dir as usize].fetch_add(bytes, Ordering::Relaxed);
        self.copies[dir as usize].fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn add_wait_ms(&self, ms: f64) {
        self.wait_us.fetch_add((ms * 1e3) as u64, Ordering::Relaxed);
    }

    fn snapshot(&self) -> TransferSnapshot {
        let b = |d: Direction| self.bytes[d as usize].load(Ordering::Relaxed);
        let c = |d: Direction| self.copies[d as usize].load(Ordering::Relaxed);
        use Direction::*;
        TransferSnapshot {
            host_to_device_bytes: b(HostToDevice),
            host_to_device_copies: c(HostToDevice),
            device_to_host_bytes: b(DeviceToHost),
            device_to_host_copies: c(DeviceToHost),
            device_to_device_bytes: b(DeviceToDevice),
            device_to_device_copies: c(DeviceToDevice),
            readback_wait_ms: self.wait_us.load(Ordering::Relaxed) as f64 / 1e3,
        }
    }

    fn reset(&self) {
        for a in self.bytes.iter().chain(&self.copies).chain([&self.wait_us]) {
            a.store(0, Ordering::Relaxed);
        }
    }
}

/// A copy of one device's transfer counters.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TransferSnapshot {
    /// Bytes uploaded from the host.
    pub host_to_device_bytes: u64,
    /// Uploads from the host.
    pub host_to_device_copies: u64,
    /// Bytes read back to the host.
    pub device_to_host_bytes: u64,
    /// Readbacks to the host.
    pub device_to_host_copies: u64,
    /// Bytes moved to or from another (non-CPU) device.
    pub device_to_device_bytes: u64,
    /// Copies to or from another (non-CPU) device.
    pub device_to_device_copies: u64,
    /// Milliseconds spent waiting for readbacks to arrive.
    pub readback_wait_ms: f64,
}

/// Records a transfer on `device` (the CPU and meta keep no transfer counters).
pub(crate) fn record(device: Device, dir: Direction, bytes: u64) {
    if is_gpu(device) {
        match Backend::of(device) {
            Ok(Backend::Wgpu(d)) => d.transfers.record(dir, bytes),
            Ok(Backend::Cuda(d)) => d.transfers().record(dir, bytes),
            _ => {}
        }
    }
}

/// Whether `device` keeps transfer counters (the GPU backends).
fn is_gpu(device: Device) -> bool {
    matches!(device.kind(), DeviceKind::WebGpu | DeviceKind::Cuda)
}

/// Records the transfers of a `to` from `src` to `dst`.
pub(crate) fn record_move(src: Device, dst: Device, bytes: u64) {
    match (is_gpu(src), is_gpu(dst)) {
        (true, true) => {
            record(src, Direction::DeviceToDevice, bytes);
            record(dst, Direction::DeviceToDevice, bytes);
        }
        (true, false) => record(src, Direction::DeviceToHost, bytes),
        (false, true) => record(dst, Direction::HostToDevice, bytes),
        (false, false) => {}
    }
}

/// The transfer counters of `device` (all zero for cpu and meta, which transfer nothing).
pub fn transfer_stats(device: Device) -> Result<TransferSnapshot> {
    Ok(match Backend::of(device)? {
        Backend::Wgpu(d) => d.transfers.snapshot(),
        Backend::Cuda(d) => d.transfers().snapshot(),
        _ => TransferSnapshot::default(),
    })
}

/// Zeroes the transfer counters of `device`.
pub fn reset_transfer_stats(device: Device) -> Result<()> {
    match Backend::of(device)? {
        Backend::Wgpu(d) => d.transfers.reset(),
        Backend::Cuda(d) => d.transfers().reset(),
        _ => {}
    }
    Ok(())
}
