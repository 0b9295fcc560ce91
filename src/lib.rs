//! # webtensor
//!
//! Tensors with PyTorch's device model — every tensor on one device, explicit `to`, clear
//! mismatch errors, async readback, memory stats, `synchronize` — on WebGPU (in browsers through
//! WebAssembly, natively through wgpu on Vulkan, Metal, DX12 and GL), on the CPU, and with the
//! cargo feature `cuda` on NVIDIA GPUs through CUDA (`cuda:N`).
//!
//! ```no_run
//! use webtensor::{Device, DType, Tensor};
//! # fn main() -> webtensor::Result<()> {
//! let dev = webtensor::best_device();                  // a GPU if there is one, else the CPU
//! let x = Tensor::randn(&[512, 512], Some(1), dev)?;
//! let y = x.matmul(&x.t()?)?.relu()?;
//! let host: Vec<f32> = y.to_vec_blocking()?;           // `y.to_vec().await` on the web
//! let z = y.to_blocking(Device::CPU)?;                 // a new tensor; `y` is untouched
//! # Ok(()) }
//! ```

pub mod autograd;
mod block;
mod clock;
mod creation;
pub mod data;
pub mod device;
pub mod distributed;
mod dtype;
mod error;
mod layout;
pub mod models;
pub mod nn;
pub mod op;
pub mod ops;
pub mod optim;
mod order;
pub mod parallel;
mod shaders;
mod shape;
mod storage;
mod tensor;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use autograd::{enable_grad, is_grad_enabled, no_grad, set_grad_enabled, BackwardOptions, GradMode};
pub use creation::manual_seed;
pub use device::cuda::{allow_tf32, cuda_compiled, set_allow_tf32};
pub use device::event::{Event, TimingMethod};
#[cfg(not(target_arch = "wasm32"))]
pub use device::memory::set_memory_budget_threshold;
pub use device::memory::{
    empty_cache, max_memory_allocated, memory_allocated, memory_budget_threshold, memory_limit, memory_reserved,
    memory_stats, memory_summary, reset_peak_memory_stats, set_memory_limit, MemorySnapshot,
};
pub use device::placement::{
    clear_placement_log, placement_log, set_log_device_placement, set_soft_device_placement, soft_device_placement,
    Placement,
};
pub use device::scope::{device_scope, with_device, DeviceScope};
pub use device::transfer::{reset_transfer_stats, transfer_stats, TransferSnapshot};
pub use device::{
    best_device, best_device_with_reason, default_device, device_count, device_name, devices, init, is_available,
    kernel_launches, open, set_default_device, set_logical_device_configuration, Device, DeviceInfo, DeviceKind,
    LogicalDeviceConfig,
};
pub use dtype::{DType, Element};
pub use error::{Error, Result};
pub use layout::Layout;
pub use op::binary::BinaryOp;
pub use op::reduce::ReduceOp;
pub use op::unary::UnaryOp;
pub use op::{IndexMode, MapOp};
pub use ops::PadMode;
pub use shape::{broadcast_shapes, numel};
pub use tensor::checks::synchronize;
#[cfg(not(target_arch = "wasm32"))]
pub use tensor::checks::synchronize_blocking;
pub use tensor::{Tensor, ToOptions};

pub use device::policy::{
    fused_kernels, launch_blocking, lazy_elementwise, set_fused_kernels, set_launch_blocking, set_lazy_elementwise,
    FusedKernels,
};
#[cfg(not(target_arch = "wasm32"))]
pub use device::profile::{profile_report, profiling, reset_profile, set_profiling, ProfileRow};
pub use device::wgpu::recover;
#[cfg(not(target_arch = "wasm32"))]
pub use device::wgpu::recover_blocking;
#[doc(hidden)]
pub use device::wgpu::{
    destroy_device as __destroy_device, inject_dispatch_error as __inject_dispatch_error,
    inject_validation_error as __inject_validation_error, set_software_kernels as __set_software_kernels,
};

#[doc(hidden)]
pub use device::policy::__set_lazy_cuda;

/// This crate's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The wgpu backends compiled into this build for this platform (`vulkan`, `gl`, `metal`,
/// `dx12`, `webgpu`).
pub fn compiled_backends() -> Vec<&'static str> {
    let b = wgpu::Instance::enabled_backend_features();
    [
        (wgpu::Backends::VULKAN, "vulkan"),
        (wgpu::Backends::METAL, "metal"),
        (wgpu::Backends::DX12, "dx12"),
        (wgpu::Backends::GL, "gl"),
        (wgpu::Backends::BROWSER_WEBGPU, "webgpu"),
    ]
    .into_iter()
    .filter(|(f, _)| b.contains(*f))
    .map(|(_, n)| n)
    .collect()
}

/// Renders every WGSL kernel variant, for validation without a GPU (used by the test suite).
#[doc(hidden)]
pub fn __all_kernel_sources() -> Vec<(String, String)> {
    shaders::all_variants().into_iter().filter(|k| !k.cuda_only()).map(|k| (format!("{k:?}"), k.render())).collect()
}

/// Compiles every CUDA kernel variant with NVRTC for `arch` (`compute_75` gives PTX, `sm_90` a cubin) and returns how
/// many compiled: checks the CUDA sources without a GPU (used by the test suite). Needs the
/// `cuda` feature and libnvrtc on the library path.
#[doc(hidden)]
pub fn __cuda_compile_check(arch: &str) -> std::result::Result<usize, String> {
    #[cfg(all(feature = "cuda", not(target_arch = "wasm32")))]
    return device::cuda::compile_check(arch);
    #[cfg(not(all(feature = "cuda", not(target_arch = "wasm32"))))]
    return Err(format!("webtensor was built without the `cuda` feature; cannot compile for {arch}"));
}

/// The README's and the guide's Rust examples, compiled and run as doctests of the crate: a
/// chapter whose example stops compiling fails `cargo test`.
#[cfg(doctest)]
mod guide {
    macro_rules! chapters {
        ($($name:ident => $path:literal),* $(,)?) => {
            $(#[doc = include_str!($path)] struct $name;)*
        };
    }
    chapters! {
        Readme => "../README.md",
        Devices => "../docs/guide/devices.md",
        Tensors => "../docs/guide/tensors.md",
        Autograd => "../docs/guide/autograd.md",
        Nn => "../docs/guide/nn.md",
        Data => "../docs/guide/data.md",
        Parallel => "../docs/guide/parallel.md",
        Javascript => "../docs/guide/javascript.md",
        Binary => "../docs/guide/binary.md",
        Gpt => "../docs/guide/gpt.md",
        Cuda => "../docs/guide/cuda.md",
        Page => "../docs/guide/page.md",
        Benchmarks => "../docs/guide/benchmarks.md",
        Limits => "../docs/guide/limits.md",
        Introduction => "../docs/guide/introduction.md",
    }
}
