//! Tests that measure the device as a whole (timings, memory counters) and so must not share it
//! with other tests running in parallel: one test function, run in sequence.

mod common;
use common::*;
use std::time::Instant;
use webtensor::{DType, Device, Error, Tensor};

#[test]
fn isolated_device_measurements() {
    synchronize_waits_for_queued_gpu_work();
    memory_stats_follow_tensors(Device::CPU);
    if let Some(g) = gpu() {
        memory_stats_follow_tensors(g);
    }
    meta_device_plans_memory();
    uncaptured_gpu_errors_become_errors_and_the_device_survives();
}

fn synchronize_waits_for_queued_gpu_work() {
    let Some(g) = gpu() else { return };
    let x = Tensor::randn(&[384, 384], Some(1), g).unwrap();
    webtensor::synchronize_blocking(g).unwrap();
    let start = Instant::now();
    let mut y = x.clone();
    for _ in 0..8 {
        y = y.matmul(&x).unwrap().mul_scalar(0.01).unwrap();
    }
    let recorded = start.elapsed();
    webtensor::synchronize_blocking(g).unwrap();
    let synced = start.elapsed();
    // Ops only record commands; the GPU time shows up at synchronize.
    assert!(synced > recorded * 3, "recording took {recorded:?}, synchronized after {synced:?}");
    // After synchronize the result is ready: reading one element costs little.
    let t0 = Instant::now();
    let _ = y.narrow(0, 0, 1).unwrap().narrow(1, 0, 1).unwrap().item_blocking::<f32>().unwrap();
    assert!(t0.elapsed() < synced, "readback after synchronize took {:?}", t0.elapsed());
}

/// PyTorch's caching-allocator contract: `memory_allocated` drops when tensors drop, while
/// `memory_reserved` keeps the cached blocks until `empty_cache`.
fn memory_stats_follow_tensors(d: Device) {
    use webtensor::{empty_cache, max_memory_allocated, memory_allocated, memory_reserved, reset_peak_memory_stats};
    empty_cache(d).unwrap();
    let a0 = memory_allocated(d).unwrap();
    let r0 = memory_reserved(d).unwrap();
    let mib = 1 << 20;
    let x = Tensor::zeros(&[1024, 1024], DType::F32, d).unwrap(); // 4 MiB
    let y = x.add_scalar(1.0).unwrap(); // another 4 MiB
    assert_eq!(memory_allocated(d).unwrap(), a0 + 8 * mib, "{d}: two 4 MiB tensors");
    reset_peak_memory_stats(d).unwrap();
    let v = y.t().unwrap(); // a view allocates nothing
    assert_eq!(memory_allocated(d).unwrap(), a0 + 8 * mib, "{d}: views share storage");
    drop((x, y, v));
    assert_eq!(memory_allocated(d).unwrap(), a0, "{d}: dropping tensors frees their blocks");
    assert_eq!(max_memory_allocated(d).unwrap(), a0 + 8 * mib, "{d}: peak since reset");
    if d.kind() == webtensor::DeviceKind::Cpu {
        assert_eq!(memory_reserved(d).unwrap(), r0, "the CPU caches nothing");
    } else {
        // The two 4 MiB blocks (and the scalar operand's small block) stay cached.
        let r1 = memory_reserved(d).unwrap();
        assert!(r1 >= r0 + 8 * mib && r1 < r0 + 9 * mib, "{d}: freed blocks stay cached: {r0} -> {r1}");
        // A same-sized allocation reuses a cached block instead of reserving more.
        let z = Tensor::ones(&[1024, 1024], DType::F32, d).unwrap();
        assert_eq!(memory_reserved(d).unwrap(), r1, "{d}: cached block reused");
        assert_eq!(f32s(&z.sum_all().unwrap()), vec![1048576.0], "{d}: a recycled block holds the new values");
        drop(z);
        empty_cache(d).unwrap();
        assert_eq!(memory_reserved(d).unwrap(), r0, "{d}: empty_cache returns cached blocks");
        // empty_cache never touches live tensors.
        let live = Tensor::full(&[1000], 3.0, DType::F32, d).unwrap();
        empty_cache(d).unwrap();
        assert_eq!(f32s(&live.sum_all().unwrap()), vec![3000.0]);
    }
    let summary = webtensor::memory_summary(d).unwrap();
    assert!(
        summary.contains("allocated") && summary.contains("reserved") && summary.contains(&d.to_string()),
        "{summary}"
    );
}

/// Running a computation on `meta` counts the bytes it would allocate.
fn meta_device_plans_memory() {
    let m = Device::META;
    let before = webtensor::memory_allocated(m).unwrap();
    webtensor::reset_peak_memory_stats(m).unwrap();
    let a = Tensor::zeros(&[1000, 1000], DType::F32, m).unwrap();
    let b = a.matmul(&a).unwrap();
    assert_eq!(webtensor::memory_allocated(m).unwrap(), before + 8_000_000);
    drop((a, b));
    assert_eq!(webtensor::memory_allocated(m).unwrap(), before);
    assert_eq!(webtensor::max_memory_allocated(m).unwrap(), before + 8_000_000);
}

/// The injected error is device-wide, so this runs here, away from parallel tests.
fn uncaptured_gpu_errors_become_errors_and_the_device_survives() {
    let Some(g) = gpu() else { return };
    let keep = t(&[1.0, 2.0, 3.0], &[3], g);
    webtensor::__inject_validation_error(g).unwrap();
    let e = webtensor::synchronize_blocking(g).unwrap_err();
    assert!(matches!(e, Error::Gpu { .. }), "{e:?}");
    assert!(e.to_string().contains(&g.to_string()), "{e}");
    // Reported once; the device and its tensors go on working.
    webtensor::synchronize_blocking(g).unwrap();
    assert_eq!(f32s(&keep.mul_scalar(2.0).unwrap()), vec![2.0, 4.0, 6.0]);
}
