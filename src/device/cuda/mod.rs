//! The CUDA backend (cargo feature `cuda`, native only): `cuda:N` devices beside the wgpu ones.
//! Built on cudarc with dynamic loading, so the feature compiles without a CUDA toolkit and a
//! binary built with it runs anywhere, reporting no CUDA devices where there is no driver.
//! Elementwise ops and reductions are CUDA C kernels compiled at run time with NVRTC (once per
//! variant, cached); float matmul goes to cuBLAS. Without the feature, `off.rs` supplies
//! uninhabited stand-ins so the rest of the crate compiles unchanged.

use std::sync::atomic::{AtomicBool, Ordering};

#[cfg(all(feature = "cuda", not(target_arch = "wasm32")))]
mod context;
#[cfg(all(feature = "cuda", not(target_arch = "wasm32")))]
mod discover;
#[cfg(all(feature = "cuda", not(target_arch = "wasm32")))]
mod elementwise;
#[cfg(all(feature = "cuda", not(target_arch = "wasm32")))]
mod fused;
#[cfg(all(feature = "cuda", not(target_arch = "wasm32")))]
mod kernels;
#[cfg(all(feature = "cuda", not(target_arch = "wasm32")))]
mod launch;
#[cfg(all(feature = "cuda", not(target_arch = "wasm32")))]
mod matmul;
#[cfg(all(feature = "cuda", not(target_arch = "wasm32")))]
mod pool;
// Pure rendering: compiled (and unit-tested) with or without the feature.
mod elementwise_source;
pub(crate) mod source;

#[cfg(all(feature = "cuda", not(target_arch = "wasm32")))]
pub(crate) use self::{
    context::CudaDevice,
    discover::{compile_check, count, get, infos, unavailable_reason},
    pool::CudaStorage,
};

#[cfg(not(all(feature = "cuda", not(target_arch = "wasm32"))))]
mod off;
#[cfg(not(all(feature = "cuda", not(target_arch = "wasm32"))))]
pub(crate) use self::off::{count, get, infos, unavailable_reason, CudaDevice, CudaStorage};

/// Whether this build of webtensor includes the CUDA backend (the cargo feature `cuda`).
pub fn cuda_compiled() -> bool {
    cfg!(all(feature = "cuda", not(target_arch = "wasm32")))
}

static ALLOW_TF32: AtomicBool = AtomicBool::new(false);

/// Lets cuBLAS run f32 matmuls on TF32 tensor cores (Ampere and newer): inputs are rounded to
/// 10 mantissa bits, about 1e-3 relative error, for several times the speed. Off by default, so
/// f32 matmul is strict f32 unless the user opts in, as with PyTorch's
/// `torch.backends.cuda.matmul.allow_tf32`. Applies to matmuls issued after the call.
pub fn set_allow_tf32(allow: bool) {
    ALLOW_TF32.store(allow, Ordering::Relaxed);
}

/// Whether f32 matmul on CUDA may use TF32 (see [`set_allow_tf32`]).
pub fn allow_tf32() -> bool {
    ALLOW_TF32.load(Ordering::Relaxed)
}
