//! `CudaDevice`: one CUDA context with one stream, cuBLAS on that stream, the kernel cache
//! (NVRTC, once per variant), the caching allocator's state and the pinned staging pool.

use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::sync::{Arc, Mutex};

use cudarc::cublas::CudaBlas;
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DeviceRepr, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::{result as nvrtc, sys as nvrtc_sys};

use super::pool::{Block, Staging};
use super::source;
use crate::device::memory::MemoryStats;
use crate::device::policy::{launch_blocking, lock};
use crate::device::transfer::TransferStats;
use crate::device::DeviceInfo;
use crate::error::{Error, Result};
use crate::op::param_layout::{KernelParams, MAX_WORDS};
use crate::shaders::KernelKey;

/// Kernel parameters as they travel: the words of an `op::params` struct widened to 64 bits,
/// zero past their end. The kernel's generated `Params` struct (source.rs) is those words in
/// order, so the driver copies the struct's size from the front of this block.
#[repr(C)]
#[derive(Clone, Copy)]
struct Words([u64; MAX_WORDS]);

// SAFETY: plain old data; every generated `Params` struct is a prefix of it (u64 fields only).
unsafe impl DeviceRepr for Words {}

impl Words {
    fn of<P: KernelParams>(params: &P) -> Words {
        let mut w = [0u64; MAX_WORDS];
        for (slot, v) in w.iter_mut().zip(params.words()) {
            *slot = v as u64;
        }
        Words(w)
    }
}

/// What NVRTC compiles for: a cubin for the device's own architecture when NVRTC knows it (no
/// JIT, no PTX-version mismatch with the driver), else PTX that the driver JIT-compiles.
#[derive(Debug, Clone)]
enum Target {
    Cubin(String),
    Ptx(String),
}

/// One opened CUDA device.
pub(crate) struct CudaDevice {
    pub(crate) info: DeviceInfo,
    pub(super) ctx: Arc<CudaContext>,
    pub(super) stream: Arc<CudaStream>,
    pub(super) blas: CudaBlas,
    targets: Vec<Target>,
    functions: Mutex<HashMap<KernelKey, CudaFunction>>,
    pub(super) pool: Mutex<HashMap<u64, Vec<Block>>>,
    pub(super) staging: Mutex<Staging>,
    pub(crate) stats: MemoryStats,
    pub(crate) transfers: TransferStats,
    /// Kernel launches and cuBLAS calls since the device opened (see `kernel_launches`).
    pub(crate) launches: std::sync::atomic::AtomicU64,
}

impl CudaDevice {
    /// Opens the device `info` describes: a context, a non-blocking stream and a cuBLAS handle
    /// (discovery has checked that the driver, NVRTC and cuBLAS load).
    pub(super) fn open(info: DeviceInfo) -> std::result::Result<Arc<CudaDevice>, String> {
        let name = info.device;
        let fail = |what: &str, e: &dyn std::fmt::Display| format!("{name}: {what} failed: {e}");
        let ctx = CudaContext::new(name.ordinal()).map_err(|e| fail("creating a context", &e))?;
        // One stream orders everything, so cudarc's per-buffer event tracking (for several
        // streams) would only cost time.
        // SAFETY: no other stream of this context is ever used.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().map_err(|e| fail("creating a stream", &e))?;
        let blas = CudaBlas::new(stream.clone()).map_err(|e| fail("creating a cuBLAS handle", &e))?;
        let cc = |i: usize| info.limits.get(i).map_or(0, |l| l.1);
        let (major, minor) = (cc(0), cc(1));
        // The device's own architecture first; then PTX for the newest architectures an older
        // NVRTC may know, which the driver JIT-compiles forward for a newer GPU.
        let own = major * 10 + minor;
        let mut targets = vec![Target::Cubin(format!("sm_{own}")), Target::Ptx(format!("compute_{own}"))];
        targets.extend([90, 80, 75].into_iter().filter(|&a| a < own).map(|a| Target::Ptx(format!("compute_{a}"))));
        Ok(Arc::new(CudaDevice {
            info,
            ctx,
            stream,
            blas,
            targets,
            functions: Mutex::new(HashMap::new()),
            pool: Mutex::new(HashMap::new()),
            staging: Mutex::new(Staging::default()),
            stats: MemoryStats::new(),
            transfers: TransferStats::default(),
            launches: Default::default(),
        }))
    }

    /// The device's name (`cuda:N`).
    pub(crate) fn name(&self) -> String {
        self.info.device.to_string()
    }

    /// Kernel launches and cuBLAS calls since the device opened.
    pub(crate) fn launches(&self) -> u64 {
        self.launches.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(crate) fn stats(&self) -> &MemoryStats {
        &self.stats
    }

    pub(crate) fn transfers(&self) -> &TransferStats {
        &self.transfers
    }

    /// The raw handle of the one stream everything on this device is ordered on (NCCL enqueues
    /// its collectives there, so they run in order with the kernels around them).
    #[cfg(feature = "nccl")]
    pub(crate) fn raw_stream(&self) -> cudarc::driver::sys::CUstream {
        self.stream.cu_stream()
    }

    /// An event recorded on the device's stream after the work queued so far (NCCL's watchdog
    /// polls one after each collective).
    #[cfg(feature = "nccl")]
    pub(crate) fn record_event(&self) -> Result<cudarc::driver::CudaEvent> {
        self.bind()?;
        self.stream.record_event(None).map_err(|e| self.driver_error("recording an event", e))
    }

    /// Makes this device's context current on the calling thread (driver calls act on it).
    pub(crate) fn bind(&self) -> Result<()> {
        self.ctx.bind_to_thread().map_err(|e| self.driver_error("binding the context", e))
    }

    /// A driver error as the library's error: out-of-memory keeps its meaning, the rest name
    /// the step that failed.
    pub(super) fn driver_error(&self, what: &str, e: DriverError) -> Error {
        Error::Gpu { device: self.name(), msg: format!("{what}: {e}") }
    }

    /// Waits for every queued op and reports a failure from any of them.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.bind()?;
        self.stream.synchronize().map_err(|e| self.driver_error("synchronize", e))?;
        self.reclaim_staging();
        Ok(())
    }

    /// The compiled kernel of `key`, compiling and loading it on first use.
    fn function(&self, key: KernelKey) -> Result<CudaFunction> {
        if let Some(f) = lock(&self.functions).get(&key) {
            return Ok(f.clone());
        }
        let mut errors = Vec::new();
        for target in &self.targets {
            let image = match super::discover::guarded("NVRTC", || compile_for(&key, target)) {
                Ok(image) => image,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            let module = self.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(image));
            match module.and_then(|m| m.load_function(source::ENTRY)) {
                Ok(f) => {
                    // Two threads may compile the same kernel: both launch the one cached, so
                    // no module is unloaded under a queued launch.
                    return Ok(lock(&self.functions).entry(key).or_insert(f).clone());
                }
                Err(e) => errors.push(format!("{target:?}: loading the module failed: {e}")),
            }
        }
        Err(Error::Gpu {
            device: self.name(),
            msg: format!("kernel {key:?} could not be built: {}", errors.join("; ")),
        })
    }

    /// Launches `key` over `grid` blocks of `block` threads with device pointers `ptrs` and
    /// `params`, which must be the struct `key`'s kernel reads (`source::params`; checked in
    /// debug builds). In launch-blocking mode it waits and names the kernel in any error.
    pub(super) fn launch<P: KernelParams>(
        &self,
        key: KernelKey,
        ptrs: &[u64],
        params: &P,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
    ) -> Result<()> {
        debug_assert_eq!(P::FIELDS, super::source::params(&key), "{key:?} launched with another kernel's parameters");
        self.launch_words(key, ptrs, &Words::of(params), grid, block)
    }

    /// [`CudaDevice::launch`] for parameters already as words (a fused family's pass: its
    /// struct is the family's, `source::params`; its length checked in debug builds).
    pub(super) fn launch_words_checked(
        &self,
        key: KernelKey,
        ptrs: &[u64],
        words: &[usize],
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
    ) -> Result<()> {
        debug_assert_eq!(words.len(), super::source::params(&key).iter().map(|f| f.len).sum::<usize>(), "{key:?}");
        let mut w = [0u64; MAX_WORDS];
        for (slot, &v) in w.iter_mut().zip(words) {
            *slot = v as u64;
        }
        self.launch_words(key, ptrs, &Words(w), grid, block)
    }

    /// [`CudaDevice::launch`] with the words packed (one copy of the body).
    fn launch_words(
        &self,
        key: KernelKey,
        ptrs: &[u64],
        params: &Words,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
    ) -> Result<()> {
        self.bind()?;
        let f = self.function(key)?;
        let mut b = self.stream.launch_builder(&f);
        for p in ptrs {
            b.arg(p);
        }
        b.arg(params);
        let cfg = LaunchConfig { grid_dim: grid, block_dim: block, shared_mem_bytes: 0 };
        self.launches.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // SAFETY: every kernel takes exactly its buffers' device pointers and one Params, in this
        // order; the buffers outlive the launch (the pool only reuses a block after its tensor
        // is dropped, and stream order puts the reuse after this kernel).
        unsafe { b.launch(cfg) }.map_err(|e| self.driver_error(&format!("launching {key:?}"), e))?;
        if launch_blocking() {
            self.stream.synchronize().map_err(|e| self.driver_error(&format!("kernel {key:?}"), e))?;
        }
        Ok(())
    }
}

/// Compiles `key` for `target`; the image is a cubin or NUL-terminated PTX.
fn compile_for(key: &KernelKey, target: &Target) -> std::result::Result<Vec<u8>, String> {
    let (arch, cubin) = match target {
        Target::Cubin(a) => (a, true),
        Target::Ptx(a) => (a, false),
    };
    let src = CString::new(source::render(key)).map_err(|e| e.to_string())?;
    let prog = nvrtc::create_program(&src, None).map_err(|e| format!("{e:?}"))?;
    let options = [format!("--gpu-architecture={arch}"), "--std=c++14".into()];
    // SAFETY: `prog` is a live program; it is destroyed exactly once below.
    let out = unsafe {
        let compiled = nvrtc::compile_program(prog, &options);
        let out = match compiled {
            Err(e) => {
                let log = nvrtc::get_program_log(prog).map(|l| c_text(&l)).unwrap_or_default();
                Err(format!("{key:?} for {arch}: {e:?}: {log}"))
            }
            Ok(()) if cubin => cubin_of(prog),
            Ok(()) => nvrtc::get_ptx(prog).map(|p| p.iter().map(|&c| c as u8).collect()).map_err(|e| format!("{e:?}")),
        };
        let _ = nvrtc::destroy_program(prog);
        out
    };
    out
}

/// The cubin of a compiled program.
///
/// # Safety
/// `prog` must be a successfully compiled, live NVRTC program.
unsafe fn cubin_of(prog: nvrtc_sys::nvrtcProgram) -> std::result::Result<Vec<u8>, String> {
    let mut size = 0usize;
    nvrtc_sys::nvrtcGetCUBINSize(prog, &mut size).result().map_err(|e| format!("{e:?}"))?;
    let mut image = vec![0u8; size];
    nvrtc_sys::nvrtcGetCUBIN(prog, image.as_mut_ptr() as *mut c_char).result().map_err(|e| format!("{e:?}"))?;
    Ok(image)
}

fn c_text(raw: &[c_char]) -> String {
    let bytes: Vec<u8> = raw.iter().map(|&c| c as u8).take_while(|&b| b != 0).collect();
    CStr::from_bytes_with_nul(&[bytes.as_slice(), &[0]].concat())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Compiles `key` for `arch` (no GPU needed): a cubin for `sm_XY`, PTX for `compute_XY`. The
/// check CI runs on every variant.
pub(super) fn compile(key: &KernelKey, arch: &str) -> std::result::Result<Vec<u8>, String> {
    let target = if arch.starts_with("sm_") { Target::Cubin(arch.into()) } else { Target::Ptx(arch.into()) };
    compile_for(key, &target)
}
