//! Every op on the GPU under test (and `cuda:0` where there is one) against the CPU reference backend, on random inputs with sizes
//! that are not multiples of the workgroup (256) or matmul tile (64), plus size-0 and size-1 dims.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;
mod elementwise;
mod matmul;
mod movement;
mod reductions;

use common::trials::device_main;
use common::*;
use elementwise::{
    binary_ops_match_cpu, clamp_keeps_the_cpus_zeros_and_nans, division_by_a_power_of_two_is_the_quotient_bit_for_bit,
    scalar_operand_kernels_match_cpu, unary_ops_match_cpu, vec4_and_scalar_elementwise_paths_agree,
};
use matmul::matmul_matches_cpu;
use movement::movement_and_index_match_cpu;
use reductions::{reductions_match_cpu, softmax_matches_cpu};
use webtensor::{Device, Tensor};

/// Runs `f` on the CPU and on each accelerator under test (the GPU adapter, and `cuda:0` where
/// the build and the machine have one) over the same seeded inputs and compares.
pub(crate) fn check(what: &str, tol: f32, f: impl Fn(Device) -> Tensor) {
    let accelerators: Vec<Device> = gpu().into_iter().chain(cuda()).collect();
    if accelerators.is_empty() {
        return;
    }
    let want = f(Device::CPU);
    for g in accelerators {
        let got = f(g);
        let what = format!("{what} on {g}");
        assert_eq!(got.device(), g, "{what}: result left the device");
        assert_eq!(got.shape(), want.shape(), "{what}: shape");
        assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
        assert_close(&f32s(&got), &f32s(&want), tol, &what);
    }
}

/// The same inputs on every device: drawn on the CPU and copied (a device's own `randn` agrees
/// with the CPU's only to a few ulps, which ill-conditioned ops such as `tan` near a pole
/// magnify past the comparison's tolerance).
pub(crate) fn randn(shape: &[usize], seed: u64, d: Device) -> Tensor {
    Tensor::randn(shape, Some(seed), Device::CPU).unwrap().to_blocking(d).unwrap()
}

/// The kernels the wgpu backend shapes by adapter (software: matmul tiles from registers,
/// softmax and reductions a thread per row or chunk; GPU: workgroup memory and trees), both
/// shapes on this adapter, then back to its own choice. One test owns the switch so the shape
/// under test is the one set.
fn software_and_gpu_kernel_shapes_match_cpu(g: Device) {
    for software in [true, false] {
        webtensor::__set_software_kernels(g, Some(software)).unwrap();
        let label = if software { "software shapes" } else { "GPU shapes" };
        matmul::tiled_matmul_cases(label);
        reductions::softmax_cases();
        reductions::reduction_cases();
    }
    webtensor::__set_software_kernels(g, None).unwrap();
}

// Every test here compares an accelerator with the CPU: ignored (not ok) where there is none.
device_main!(; gpu: clamp_keeps_the_cpus_zeros_and_nans, unary_ops_match_cpu, binary_ops_match_cpu, vec4_and_scalar_elementwise_paths_agree, scalar_operand_kernels_match_cpu, division_by_a_power_of_two_is_the_quotient_bit_for_bit, matmul_matches_cpu, movement_and_index_match_cpu, reductions_match_cpu, softmax_matches_cpu, software_and_gpu_kernel_shapes_match_cpu);
