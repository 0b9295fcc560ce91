//! Switches and helpers shared by every backend, so that no backend reaches into another for
//! them: launch-blocking mode (read by the wgpu and CUDA launch paths), the soft-placement
//! fallback decision (`placement.rs` owns the switch; backends ask here whether an error falls
//! back), and poison-tolerant locking.

use std::sync::atomic::{AtomicU8, Ordering};

use crate::error::Error;

/// Launch-blocking mode: 0 = not yet read from the environment, 1 = off, 2 = on.
static LAUNCH_BLOCKING: AtomicU8 = AtomicU8::new(0);

/// Turns launch-blocking mode on or off (CUDA_LAUNCH_BLOCKING's analogue; natively also
/// `WEBTENSOR_LAUNCH_BLOCKING=1`). With it on, every op is submitted and checked inside an error
/// scope before the next one, so a GPU error is returned by the op that caused it, naming its
/// kernel. It serialises the GPU: a debugging aid, not a mode to run in. On the web the check
/// cannot block: each op still gets its own error scope, and the next synchronize or readback
/// reports the first error with the kernel that caused it.
pub fn set_launch_blocking(on: bool) {
    LAUNCH_BLOCKING.store(if on { 2 } else { 1 }, Ordering::Relaxed);
}

/// Whether launch-blocking mode is on.
pub fn launch_blocking() -> bool {
    if LAUNCH_BLOCKING.load(Ordering::Relaxed) == 0 {
        #[cfg(not(target_arch = "wasm32"))]
        let on = std::env::var("WEBTENSOR_LAUNCH_BLOCKING").is_ok_and(|v| v == "1");
        #[cfg(target_arch = "wasm32")]
        let on = false;
        let _ = LAUNCH_BLOCKING.compare_exchange(0, if on { 2 } else { 1 }, Ordering::Relaxed, Ordering::Relaxed);
    }
    LAUNCH_BLOCKING.load(Ordering::Relaxed) == 2
}

/// The lazy elementwise tier: 0 = not yet read from the environment, 1 = off, 2 = on.
static LAZY: AtomicU8 = AtomicU8::new(0);

/// Turns the lazy elementwise tier on or off (on by default; natively `WEBTENSOR_LAZY=0` turns
/// it off). With it on, f32 elementwise ops on a WebGPU device (unary ops, arithmetic with
/// tensors or scalars, copies) are recorded instead of dispatched, and a chain of them runs as
/// one generated kernel when something consumes it: another kind of op, a readback, a move,
/// a synchronize or a memory query. Values are the eager ops' (to a few ulps where a compiler
/// contracts a product and a sum into one rounding); launch-blocking mode and the profiler run
/// op by op. Applies to ops issued after it.
pub fn set_lazy_elementwise(on: bool) {
    LAZY.store(if on { 2 } else { 1 }, Ordering::Relaxed);
}

/// Whether the lazy elementwise tier is on (see [`set_lazy_elementwise`]).
pub fn lazy_elementwise() -> bool {
    if LAZY.load(Ordering::Relaxed) == 0 {
        #[cfg(not(target_arch = "wasm32"))]
        let on = !std::env::var("WEBTENSOR_LAZY").is_ok_and(|v| v.trim() == "0");
        #[cfg(target_arch = "wasm32")]
        let on = true;
        let _ = LAZY.compare_exchange(0, if on { 2 } else { 1 }, Ordering::Relaxed, Ordering::Relaxed);
    }
    LAZY.load(Ordering::Relaxed) == 2
}

/// The lazy tier on CUDA devices: 0 = not yet read from the environment, 1 = off, 2 = on.
static LAZY_CUDA: AtomicU8 = AtomicU8::new(0);

/// Whether the lazy tier records on CUDA devices too: off until its generated kernels have run
/// on a GPU (they compile in the suite); natively `WEBTENSOR_LAZY_CUDA=1` turns it on.
pub(crate) fn lazy_on_cuda() -> bool {
    if LAZY_CUDA.load(Ordering::Relaxed) == 0 {
        #[cfg(not(target_arch = "wasm32"))]
        let on = std::env::var("WEBTENSOR_LAZY_CUDA").is_ok_and(|v| v.trim() == "1");
        #[cfg(target_arch = "wasm32")]
        let on = false;
        let _ = LAZY_CUDA.compare_exchange(0, if on { 2 } else { 1 }, Ordering::Relaxed, Ordering::Relaxed);
    }
    LAZY_CUDA.load(Ordering::Relaxed) == 2
}

/// Test hook: records on CUDA devices too (see `lazy_on_cuda`).
#[doc(hidden)]
pub fn __set_lazy_cuda(on: bool) {
    LAZY_CUDA.store(if on { 2 } else { 1 }, Ordering::Relaxed);
}

/// When the ops run the fused kernel families (attention, LayerNorm) instead of their composed
/// formulas (the same values, many more kernels), as PyTorch's `enable_flash_sdp` /
/// `enable_math_sdp` switches choose an attention backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FusedKernels {
    /// Where they apply and pay on the device (the default; see `Backend::fused_attention_pays`).
    Auto,
    /// Wherever they apply, also where the composed formula is faster (to test the kernels);
    /// also eight parameters an optimizer launch on the CPU adapters, as on GPUs.
    Always,
    /// Never: every op composes (to measure what the kernels give, or to rule them out when
    /// hunting a wrong result).
    Never,
}

/// 0 = not yet read from the environment, then 1 + the mode's place in Auto, Always, Never.
static FUSED: AtomicU8 = AtomicU8::new(0);

/// Sets when the ops use the fused kernels (natively also `WEBTENSOR_FUSED_KERNELS`: `0` for
/// [`FusedKernels::Never`], `1` for [`FusedKernels::Always`]). Applies to ops issued after it.
pub fn set_fused_kernels(mode: FusedKernels) {
    FUSED.store(1 + mode as u8, Ordering::Relaxed);
}

/// When the ops use the fused kernels (see [`set_fused_kernels`]).
pub fn fused_kernels() -> FusedKernels {
    if FUSED.load(Ordering::Relaxed) == 0 {
        #[cfg(not(target_arch = "wasm32"))]
        let mode = match std::env::var("WEBTENSOR_FUSED_KERNELS").as_deref().map(str::trim) {
            Ok("0") => FusedKernels::Never,
            Ok("1") => FusedKernels::Always,
            _ => FusedKernels::Auto,
        };
        #[cfg(target_arch = "wasm32")]
        let mode = FusedKernels::Auto;
        let _ = FUSED.compare_exchange(0, 1 + mode as u8, Ordering::Relaxed, Ordering::Relaxed);
    }
    match FUSED.load(Ordering::Relaxed) {
        2 => FusedKernels::Always,
        3 => FusedKernels::Never,
        _ => FusedKernels::Auto,
    }
}

/// Whether an op that failed with `err` should run on the CPU instead: soft placement is on and
/// the failure is a dtype the device lacks (TensorFlow's soft placement, for kernels). Every
/// other error is the caller's to see.
pub(crate) fn falls_back_to_cpu(err: &Error) -> bool {
    matches!(err, Error::UnsupportedDType { .. }) && crate::device::placement::soft_device_placement()
}

/// Locks a mutex, recovering the data if another thread panicked while holding it: the state
/// guarded here (queues, pools, caches) stays consistent between statements.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
