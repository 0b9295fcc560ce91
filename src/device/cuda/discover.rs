//! Finding CUDA devices: the driver is loaded at run time; discovery counts and describes the
//! devices without opening them, and each opens (a context, a stream, cuBLAS) on first use.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdevice_attribute as Attr};

use super::context::CudaDevice;
use crate::device::policy::lock;
use crate::device::{Device, DeviceInfo};

/// What discovery found: the devices, or why there are none.
struct Probe {
    infos: Vec<DeviceInfo>,
    none_because: String,
}

static PROBE: OnceLock<Probe> = OnceLock::new();
/// An opened device, or why opening it failed.
type Opened = Result<Arc<CudaDevice>, String>;

/// Opened devices, and opens that failed (not retried: each try costs a context).
static OPENED: Mutex<Option<HashMap<usize, Opened>>> = Mutex::new(None);

/// Runs `f`, turning a panic inside cudarc (a library or symbol that failed to load) into an
/// error, so a broken CUDA install reports instead of aborting.
pub(super) fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(format!("{what} failed inside the CUDA libraries: {msg}"))
    })
}

fn probe() -> &'static Probe {
    PROBE.get_or_init(|| match guarded("CUDA discovery", find) {
        Ok(infos) if infos.is_empty() => Probe { infos, none_because: "the CUDA driver reports no devices".into() },
        Ok(infos) => Probe { infos, none_because: String::new() },
        Err(reason) => Probe { infos: Vec::new(), none_because: reason },
    })
}

fn find() -> Result<Vec<DeviceInfo>, String> {
    // SAFETY: only probes whether the shared library can be opened.
    if !unsafe { sys::is_culib_present() } {
        return Err(
            "no CUDA driver was found (libcuda.so is not on the library path; install the NVIDIA driver)".into()
        );
    }
    // A driver without NVRTC (kernels) or cuBLAS (matmul) cannot run ops: report no usable
    // device, so best_device() and init() go on to wgpu, which the same GPU also serves.
    // SAFETY: only probe whether the shared libraries can be opened.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err("the CUDA driver was found, but NVRTC (libnvrtc.so), which compiles webtensor's kernels, was not \
             on the library path (install the CUDA toolkit, or `pip install nvidia-cuda-nvrtc-cu12` and add its lib \
             folder to LD_LIBRARY_PATH)"
            .into());
    }
    // SAFETY: as above.
    if !unsafe { cudarc::cublas::sys::is_culib_present() } {
        return Err("the CUDA driver was found, but cuBLAS (libcublas.so), which runs matmul, was not on the \
             library path (install the CUDA toolkit, or `pip install nvidia-cublas-cu12` and add its lib folder \
             to LD_LIBRARY_PATH)"
            .into());
    }
    result::init().map_err(|e| format!("the CUDA driver failed to initialise: {e}"))?;
    let count = result::device::get_count().map_err(|e| format!("the CUDA driver cannot count devices: {e}"))?;
    let mut version = 0;
    // SAFETY: writes one int.
    unsafe { sys::cuDriverGetVersion(&mut version) };
    let driver = format!("CUDA driver {}.{}", version / 1000, (version % 1000) / 10);
    (0..count.max(0))
        .map(|i| {
            let dev = result::device::get(i).map_err(|e| format!("cuda:{i}: {e}"))?;
            let name = result::device::get_name(dev).map_err(|e| format!("cuda:{i}: {e}"))?;
            // SAFETY: `dev` came from cuDeviceGet.
            let attr = |a: Attr| unsafe { result::device::get_attribute(dev, a) }.unwrap_or(0);
            let memory = unsafe { result::device::total_mem(dev) }.ok().map(|b| b as u64);
            let (major, minor) = (
                attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
            );
            let integrated = attr(Attr::CU_DEVICE_ATTRIBUTE_INTEGRATED) != 0;
            let mut features =
                vec![format!("compute-capability-{major}.{minor}"), "shader-f16".into(), "cublas".into()];
            if major >= 8 {
                features.push("tf32".into());
            }
            Ok(DeviceInfo {
                device: Device::cuda(i as usize),
                name,
                backend: "cuda".into(),
                device_type: if integrated { "integrated" } else { "discrete" }.into(),
                software: false,
                driver: driver.clone(),
                limits: vec![
                    ("compute_capability_major".into(), major as u64),
                    ("compute_capability_minor".into(), minor as u64),
                    ("multiprocessors".into(), attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) as u64),
                    ("max_threads_per_block".into(), attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK) as u64),
                ],
                features,
                memory,
                logical: None,
            })
        })
        .collect()
}

/// Every CUDA device, described without opening it.
pub(crate) fn infos() -> Vec<DeviceInfo> {
    probe().infos.clone()
}

/// How many CUDA devices there are.
pub(crate) fn count() -> usize {
    probe().infos.len()
}

/// Why `cuda:N` cannot be used.
pub(crate) fn unavailable_reason(ordinal: usize) -> String {
    let p = probe();
    match p.infos.len() {
        0 => p.none_because.clone(),
        n => {
            format!("there {} only {n} CUDA device{}", if n == 1 { "is" } else { "are" }, if n == 1 { "" } else { "s" })
                + &format!(" (cuda:0..cuda:{}), so cuda:{ordinal} does not exist", n - 1)
        }
    }
}

/// The opened device `cuda:ordinal` (opening it on first use), or why it cannot be used.
pub(crate) fn get(ordinal: usize) -> Result<Arc<CudaDevice>, String> {
    let info = probe().infos.get(ordinal).cloned().ok_or_else(|| unavailable_reason(ordinal))?;
    let mut opened = lock(&OPENED);
    let map = opened.get_or_insert_with(HashMap::new);
    map.entry(ordinal).or_insert_with(|| guarded("opening a CUDA device", || CudaDevice::open(info))).clone()
}

/// Compiles every kernel variant with NVRTC for `arch` (`compute_75` gives PTX, `sm_90` a cubin) and returns how many
/// compiled; needs libnvrtc but no GPU, so CI checks the CUDA sources on machines without one.
pub(crate) fn compile_check(arch: &str) -> Result<usize, String> {
    // SAFETY: only probes whether the shared library can be opened.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err("NVRTC (libnvrtc.so) was not found on the library path".into());
    }
    let keys: Vec<_> = crate::shaders::all_variants().into_iter().filter(|k| !k.wgsl_only()).collect();
    // NVRTC is thread-safe; compiling on every core keeps the check quick.
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8);
    let chunk = keys.len().div_ceil(workers).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = keys
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter().try_for_each(|key| guarded("NVRTC", || super::context::compile(key, arch).map(|_| ())))
                })
            })
            .collect();
        handles.into_iter().try_for_each(|h| h.join().unwrap_or_else(|_| Err("an NVRTC worker panicked".into())))
    })?;
    Ok(keys.len())
}
