//! TensorFlow's device-placement controls: soft placement (a request for a device that does not
//! exist falls back to one that does) and the placement log (which op ran where, and why when it
//! fell back). Both are module-wide switches, off by default; with logging off an op pays one
//! relaxed atomic load.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::device::{best_device, Backend, Device, DeviceKind};
use crate::error::{Error, Result};

static SOFT: AtomicBool = AtomicBool::new(false);
static LOGGING: AtomicBool = AtomicBool::new(false);
static LOG: Mutex<VecDeque<Placement>> = Mutex::new(VecDeque::new());

/// Entries kept before the oldest are dropped, so a long-running program with logging on holds
/// bounded memory.
const LOG_CAPACITY: usize = 10_000;

/// Where one op ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The op (`add`, `matmul`, `to`, `zeros`, ...).
    pub op: &'static str,
    /// Devices of the tensor inputs (empty for creation ops).
    pub inputs: Vec<Device>,
    /// Device of the result.
    pub output: Device,
    /// Why the op did not run where it was asked to, if it fell back.
    pub fallback: Option<String>,
}

/// Turns soft placement on or off (TensorFlow's `set_soft_device_placement`). With it on, asking
/// for a device that does not exist (`cuda:1` without CUDA, `webgpu:3` with one adapter) gives an
/// existing device instead of an error, and the fallback is recorded in the placement log.
pub fn set_soft_device_placement(on: bool) {
    SOFT.store(on, Ordering::Relaxed);
}

/// Whether soft placement is on.
pub fn soft_device_placement() -> bool {
    SOFT.load(Ordering::Relaxed)
}

/// Turns the placement log on or off (TensorFlow's `set_log_device_placement`). Fallbacks are
/// recorded even when it is off.
pub fn set_log_device_placement(on: bool) {
    LOGGING.store(on, Ordering::Relaxed);
}

/// The recorded placements, oldest first.
pub fn placement_log() -> Vec<Placement> {
    crate::device::policy::lock(&LOG).iter().cloned().collect()
}

/// Empties the placement log.
pub fn clear_placement_log() {
    crate::device::policy::lock(&LOG).clear();
}

fn push(p: Placement) {
    log::info!(
        target: "webtensor::placement",
        "{} on {} (inputs: {}){}",
        p.op,
        p.output,
        p.inputs.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "),
        p.fallback.as_ref().map_or(String::new(), |f| format!("; fell back: {f}"))
    );
    let mut log = crate::device::policy::lock(&LOG);
    if log.len() >= LOG_CAPACITY {
        log.pop_front();
    }
    log.push_back(p);
}

/// Records that `op` produced a result on `output` from inputs on `inputs` (when logging is on).
pub(crate) fn record(op: &'static str, inputs: &[Device], output: Device) {
    if LOGGING.load(Ordering::Relaxed) {
        push(Placement { op, inputs: inputs.to_vec(), output, fallback: None });
    }
}

/// Records a fallback (always).
pub(crate) fn record_fallback(op: &'static str, inputs: &[Device], output: Device, reason: String) {
    push(Placement { op, inputs: inputs.to_vec(), output, fallback: Some(reason) });
}

/// The device an op asked for `device` runs on: `device` itself when it can be used; under soft
/// placement an existing device otherwise (the first adapter of the same kind, else the best
/// device), with the fallback recorded; without soft placement, the error naming what exists.
pub(crate) fn resolve(op: &'static str, device: Device) -> Result<Device> {
    match Backend::of(device) {
        Ok(_) => Ok(device),
        Err(e @ Error::DeviceUnavailable { .. }) if soft_device_placement() => {
            let same_kind = match device.kind() {
                DeviceKind::Cuda => Device::cuda(0),
                _ => Device::webgpu(0),
            };
            let gpu = matches!(device.kind(), DeviceKind::WebGpu | DeviceKind::Cuda);
            let target = if gpu && Backend::of(same_kind).is_ok() { same_kind } else { best_device() };
            if Backend::of(target).is_err() {
                return Err(e);
            }
            record_fallback(op, &[], target, format!("soft placement: {e}; using {target}"));
            Ok(target)
        }
        Err(e) => Err(e),
    }
}
