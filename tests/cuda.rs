//! The CUDA path. Without a GPU (CI): every kernel variant compiles with NVRTC, and CUDA is
//! reported unavailable with a clear error, strictly or through soft placement. With a CUDA
//! device (`WEBTENSOR_REQUIRE_CUDA=1` fails the run if there is none), the other suites run on
//! `cuda:0` too (see `common::devices`). Soft placement is global state: one test owns it.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;

use webtensor::{Device, DeviceKind, Error, Tensor};

/// Soft placement is global: tests that depend on it being off hold this too.
static PLACEMENT: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn cuda_required() -> bool {
    std::env::var("WEBTENSOR_REQUIRE_CUDA").is_ok_and(|v| v == "1")
}

fn nvrtc_required() -> bool {
    std::env::var("WEBTENSOR_REQUIRE_NVRTC").is_ok_and(|v| v == "1")
}

fn every_cuda_kernel_compiles_with_nvrtc() {
    // PTX for the oldest architecture the kernels target, and a cubin for Hopper (the path a
    // GPU whose architecture NVRTC knows takes).
    let r = webtensor::__cuda_compile_check("compute_75").and_then(|n| {
        let m = webtensor::__cuda_compile_check("sm_90")?;
        assert_eq!(n, m);
        Ok(n)
    });
    if !webtensor::cuda_compiled() {
        let e = r.unwrap_err();
        assert!(e.contains("without the `cuda` feature"), "{e}");
        assert!(!nvrtc_required(), "WEBTENSOR_REQUIRE_NVRTC=1 needs a build with --features cuda");
        return;
    }
    match r {
        Ok(n) => assert!(n > 300, "only {n} variants compiled"),
        Err(e) if e.contains("was not found") && !nvrtc_required() => {
            eprintln!("note: {e}; CUDA sources not compiled (WEBTENSOR_REQUIRE_NVRTC=1 fails instead)")
        }
        Err(e) => panic!("NVRTC rejected a kernel: {e}"),
    }
}

fn cuda_devices_are_listed_or_reported_unavailable() {
    let _strict = PLACEMENT.lock().unwrap_or_else(|e| e.into_inner());
    let listed: Vec<_> = webtensor::devices().into_iter().filter(|i| i.device.kind() == DeviceKind::Cuda).collect();
    assert_eq!(listed.len(), webtensor::device_count(DeviceKind::Cuda));
    if cuda_required() {
        assert!(!listed.is_empty(), "WEBTENSOR_REQUIRE_CUDA=1 but no CUDA device: {:?}", webtensor::devices());
    }
    for i in &listed {
        assert_eq!(i.backend, "cuda");
        assert!(i.memory.is_some_and(|m| m > 0), "{i:?}");
        assert!(i.features.iter().any(|f| f.starts_with("compute-capability-")), "{i:?}");
    }
    if listed.is_empty() {
        assert!(!webtensor::is_available(DeviceKind::Cuda));
        assert_ne!(webtensor::best_device().kind(), DeviceKind::Cuda);
        let e = Tensor::zeros(&[2], webtensor::DType::F32, Device::cuda(0)).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::DeviceUnavailable { .. }), "{e:?}");
        let why = if webtensor::cuda_compiled() {
            ["no CUDA driver", "reports no devices", "failed", "library path"].iter().any(|w| msg.contains(w))
        } else {
            msg.contains("rebuild with the cargo feature `cuda`")
        };
        assert!(why, "the error should say why CUDA is unavailable: {msg}");
        assert!(msg.contains("available devices: cpu"), "{msg}");
        assert!(webtensor::device_name(Device::cuda(0)).is_err());
        assert!(webtensor::memory_allocated(Device::cuda(0)).is_err());
    } else {
        let n = listed.len();
        let e = Tensor::zeros(&[2], webtensor::DType::F32, Device::cuda(n)).unwrap_err().to_string();
        assert!(e.contains(&format!("cuda:{n} does not exist")), "{e}");
    }
}

fn soft_placement_moves_missing_cuda_devices() {
    let _soft = PLACEMENT.lock().unwrap_or_else(|e| e.into_inner());
    let missing = Device::cuda(webtensor::device_count(DeviceKind::Cuda));
    webtensor::set_soft_device_placement(true);
    let x = Tensor::from_slice(&[1.0f32, 2.0], &[2], missing);
    webtensor::set_soft_device_placement(false);
    let x = x.unwrap();
    assert_ne!(x.device(), missing);
    if webtensor::is_available(DeviceKind::Cuda) {
        assert_eq!(x.device(), Device::cuda(0), "a missing cuda:N falls back to cuda:0 first");
    }
    assert_eq!(x.to_vec_blocking::<f32>().unwrap(), vec![1.0, 2.0]);
    let log = webtensor::placement_log();
    assert!(
        log.iter().any(|p| p.fallback.as_deref().is_some_and(|f| f.contains(&missing.to_string()))),
        "the fallback is recorded: {log:?}"
    );
    assert!(Tensor::from_slice(&[1.0f32], &[1], missing).is_err(), "strict again after soft placement is off");
}

fn tf32_is_opt_in() {
    assert!(!webtensor::allow_tf32(), "f32 matmul must be strict f32 by default");
    webtensor::set_allow_tf32(true);
    assert!(webtensor::allow_tf32());
    webtensor::set_allow_tf32(false);
    assert!(!webtensor::allow_tf32());
}

/// Every op on `cuda:0` against the CPU, when a CUDA device exists: the cases the other suites
/// run through `common::devices()` too, plus cuBLAS on transposed and sliced operands, a
/// non-blocking upload and memory accounting.
fn cuda_matches_the_cpu(dev: Device) {
    let a = Tensor::randn(&[3, 70, 90], Some(1), Device::CPU).unwrap();
    let b = Tensor::randn(&[3, 90, 50], Some(2), Device::CPU).unwrap();
    let (ga, gb) = (a.to_blocking(dev).unwrap(), b.to_blocking(dev).unwrap());
    let cases: Vec<(&str, Tensor, Tensor)> = vec![
        ("matmul", a.matmul(&b).unwrap(), ga.matmul(&gb).unwrap()),
        (
            "matmul of transposed views",
            b.transpose(1, 2).unwrap().matmul(&a.transpose(1, 2).unwrap()).unwrap(),
            gb.transpose(1, 2).unwrap().matmul(&ga.transpose(1, 2).unwrap()).unwrap(),
        ),
        (
            "matmul of a strided slice",
            a.narrow(2, 5, 40).unwrap().matmul(&b.narrow(1, 10, 40).unwrap()).unwrap(),
            ga.narrow(2, 5, 40).unwrap().matmul(&gb.narrow(1, 10, 40).unwrap()).unwrap(),
        ),
        ("softmax", a.softmax(-1).unwrap(), ga.softmax(-1).unwrap()),
        ("sum", a.sum(&[1], false).unwrap(), ga.sum(&[1], false).unwrap()),
        ("gelu", a.gelu().unwrap(), ga.gelu().unwrap()),
        ("add broadcast", a.add(&a.narrow(1, 0, 1).unwrap()).unwrap(), ga.add(&ga.narrow(1, 0, 1).unwrap()).unwrap()),
    ];
    for (what, want, got) in cases {
        assert_eq!(got.device(), dev, "{what}");
        common::assert_close(&common::f32s(&got), &common::f32s(&want), 1e-4, what);
    }
    let opts = webtensor::ToOptions { non_blocking: true };
    let x = a.to_with_blocking(dev, opts).unwrap();
    assert_eq!(x.to_vec_blocking::<f32>().unwrap(), a.to_vec_blocking::<f32>().unwrap());
    assert!(webtensor::memory_allocated(dev).unwrap() > 0);
    webtensor::synchronize_blocking(dev).unwrap();
}

device_main!(; cuda: cuda_matches_the_cpu; plain: every_cuda_kernel_compiles_with_nvrtc, cuda_devices_are_listed_or_reported_unavailable, soft_placement_moves_missing_cuda_devices, tf32_is_opt_in);
