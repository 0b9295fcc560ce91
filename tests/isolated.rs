//! Tests that measure the device as a whole (timings, memory counters, global modes) and so must
//! not share it with other tests running in parallel: libtest-mimic trials (`harness = false`)
//! run one at a time, in order.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::*;
use std::time::Instant;
use webtensor::{DType, Device, Error, Tensor};

/// One trial per measurement and device (an absent GPU's trials are reported ignored), run one
/// at a time in this order.
fn main() {
    use common::trials::{cpu_trial, device_trials, gpu_trial, meta_trial, plain_trial, run_in_order};
    let mut t = vec![
        gpu_trial("synchronize_waits_for_queued_gpu_work", synchronize_waits_for_queued_gpu_work),
        cpu_trial("memory_stats_follow_tensors", memory_stats_follow_tensors),
        gpu_trial("memory_stats_follow_tensors", memory_stats_follow_tensors),
        plain_trial("meta_device_plans_memory", meta_device_plans_memory),
        plain_trial("arange_past_the_memory_limit_is_an_error", arange_past_the_memory_limit_is_an_error),
        gpu_trial(
            "uncaptured_gpu_errors_become_errors_and_the_device_survives",
            uncaptured_gpu_errors_become_errors_and_the_device_survives,
        ),
        gpu_trial("transfers_are_counted", transfers_are_counted),
        gpu_trial("events_time_gpu_work", events_time_gpu_work),
    ];
    t.extend(device_trials("fused_kernels_follow_the_setting", fused_kernels_follow_the_setting));
    t.extend(device_trials("memory_limit_refuses_cleanly", memory_limit_refuses_cleanly));
    t.push(meta_trial("memory_limit_refuses_cleanly", memory_limit_refuses_cleanly));
    t.extend(device_trials("soak_allocations_return_to_start", soak_allocations_return_to_start));
    t.push(meta_trial("soak_allocations_return_to_start", soak_allocations_return_to_start));
    run_in_order(t)
}

fn synchronize_waits_for_queued_gpu_work(g: Device) {
    // Enough GPU work that it outweighs recording: 384 on a software adapter, 2048 on hardware
    // (8 products of 2048 take milliseconds even on an H100, recording them microseconds).
    let software = webtensor::devices().iter().any(|i| i.device == g && i.software);
    let n = if software { 384 } else { 2048 };
    let x = Tensor::randn(&[n, n], Some(1), g).unwrap();
    // Warm up: the first use of a kernel compiles its pipeline, which is recording time, and
    // the first readback makes its staging.
    let _ = x.matmul(&x).unwrap().mul_scalar(0.01).unwrap();
    let _ = x.narrow(0, 0, 1).unwrap().narrow(1, 0, 1).unwrap().item_blocking::<f32>().unwrap();
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
    {
        // The two 4 MiB blocks (and on GPUs the scalar operand's small block) stay cached; on
        // the CPU, blocks of 1 MiB and more (device/cpu/alloc.rs).
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
    // A memory limit that only the cached blocks would pass: they make room for a new tensor
    // (a 4 MiB block cached, a 5 MiB tensor it cannot serve, room for 6 MiB).
    drop(Tensor::zeros(&[1024, 1024], DType::F32, d).unwrap());
    let live = memory_allocated(d).unwrap();
    webtensor::set_memory_limit(d, Some(live + 6 * mib)).unwrap();
    let fits = Tensor::full(&[1280, 1024], 2.0, DType::F32, d);
    webtensor::set_memory_limit(d, None).unwrap();
    assert_eq!(f32s(&fits.unwrap().sum_all().unwrap()), vec![2_621_440.0], "{d}: the cache made room");
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
fn uncaptured_gpu_errors_become_errors_and_the_device_survives(g: Device) {
    let keep = t(&[1.0, 2.0, 3.0], &[3], g);
    webtensor::__inject_validation_error(g).unwrap();
    let e = webtensor::synchronize_blocking(g).unwrap_err();
    assert!(matches!(e, Error::Gpu { .. }), "{e:?}");
    assert!(e.to_string().contains(&g.to_string()), "{e}");
    // Reported once; the device and its tensors go on working.
    webtensor::synchronize_blocking(g).unwrap();
    assert_eq!(f32s(&keep.mul_scalar(2.0).unwrap()), vec![2.0, 4.0, 6.0]);
}

/// TensorFlow's hard memory limit: a refused allocation empties the cache first, then fails with
/// `OutOfMemory` naming requested/allocated/reserved/limit; other tensors keep their values.
fn memory_limit_refuses_cleanly(d: Device) {
    use webtensor::{memory_allocated, memory_reserved, set_memory_limit};
    let mib = 1u64 << 20;
    webtensor::empty_cache(d).unwrap();
    let keep = Tensor::full(&[1000], 2.0, DType::F32, d).unwrap();
    let base = memory_allocated(d).unwrap();
    set_memory_limit(d, Some(base + 10 * mib)).unwrap();
    assert_eq!(webtensor::memory_limit(d).unwrap(), Some(base + 10 * mib));
    let e = Tensor::zeros(&[4 << 20], DType::F32, d).unwrap_err(); // 16 MiB
    match &e {
        Error::OutOfMemory { requested, limit, .. } => {
            assert_eq!(*requested, 16 * mib, "{e}");
            assert_eq!(*limit, Some(base + 10 * mib));
        }
        other => panic!("{d}: expected OutOfMemory, got {other:?}"),
    }
    let msg = e.to_string();
    assert!(msg.contains("out of memory") && msg.contains("16777216") && msg.contains("limit"), "{msg}");
    // Ops that would pass the limit fail the same way, and lose nothing.
    let six = Tensor::zeros(&[3 << 19], DType::F32, d).unwrap(); // 6 MiB fits
    assert!(matches!(six.add_scalar(1.0), Err(Error::OutOfMemory { .. })), "{d}: a second 6 MiB passes the limit");
    if d != Device::META {
        assert_eq!(f32s(&keep.sum_all().unwrap()), vec![2000.0], "{d}: other tensors keep their values");
    }
    drop(six);
    if d.kind() == webtensor::DeviceKind::WebGpu {
        // The 6 MiB block is cached now; an 8 MiB request passes the limit only with the cache
        // counted, so the allocator empties the cache and succeeds.
        assert!(memory_reserved(d).unwrap() >= base + 6 * mib);
        let eight = Tensor::zeros(&[2 << 20], DType::F32, d).unwrap();
        assert!(memory_reserved(d).unwrap() <= base + 10 * mib, "{d}: the cache was emptied to make room");
        drop(eight);
    }
    set_memory_limit(d, None).unwrap();
    assert_eq!(webtensor::memory_limit(d).unwrap(), None);
    assert!(Tensor::zeros(&[4 << 20], DType::F32, d).is_ok(), "{d}: no limit, no refusal");
}

/// Thousands of allocations of varied sizes: `memory_allocated` comes back to where it started
/// and the cache stays bounded by the size classes in use.
fn soak_allocations_return_to_start(d: Device) {
    webtensor::empty_cache(d).unwrap();
    let start = webtensor::memory_allocated(d).unwrap();
    let reserved_start = webtensor::memory_reserved(d).unwrap();
    let mut live = Vec::new();
    for i in 0..3000usize {
        let n = 1 + (i * 7919) % 5000;
        live.push(Tensor::zeros(&[n], DType::F32, d).unwrap());
        if live.len() > 8 {
            live.remove(i % 8);
        }
        if i % 500 == 0 && d != Device::META {
            assert_eq!(f32s(&live[0].add_scalar(1.0).unwrap().sum_all().unwrap()), vec![live[0].numel() as f32]);
        }
    }
    drop(live);
    assert_eq!(webtensor::memory_allocated(d).unwrap(), start, "{d}: allocated returns to its start");
    let reserved = webtensor::memory_reserved(d).unwrap();
    assert!(reserved <= reserved_start + (4 << 20), "{d}: reserved stays bounded: {reserved_start} -> {reserved}");
}

/// Per-device counters of host-to-device, device-to-host and device-to-device copies.
fn transfers_are_counted(g: Device) {
    use webtensor::{reset_transfer_stats, transfer_stats};
    reset_transfer_stats(g).unwrap();
    let x = Tensor::from_slice(&[1.5f32; 1000], &[1000], g).unwrap();
    let c = x.to_blocking(Device::CPU).unwrap();
    assert_eq!(x.to_vec_blocking::<f32>().unwrap().len(), 1000);
    let back = c.to_blocking(g).unwrap();
    let s = transfer_stats(g).unwrap();
    assert_eq!((s.host_to_device_copies, s.host_to_device_bytes), (2, 8000), "{s:?}");
    assert_eq!((s.device_to_host_copies, s.device_to_host_bytes), (2, 8000), "{s:?}");
    assert_eq!(s.device_to_device_copies, 0);
    assert!(s.readback_wait_ms > 0.0, "{s:?}");
    assert_eq!(webtensor::transfer_stats(Device::CPU).unwrap(), webtensor::TransferSnapshot::default());
    // A move between two GPU adapters counts as device-to-device on both, not as host traffic.
    // (An adapter that is listed but does not open, as NVIDIA's GL one in a headless VM, is
    // passed over.)
    let opens = |d: Device| Tensor::zeros(&[1], webtensor::DType::F32, d).is_ok();
    let others = webtensor::devices().into_iter().map(|i| i.device).filter(|&d| d.kind() == g.kind() && d != g);
    if let Some(other) = others.into_iter().find(|&d| opens(d)) {
        reset_transfer_stats(g).unwrap();
        reset_transfer_stats(other).unwrap();
        let y = back.to_blocking(other).unwrap();
        assert_eq!(y.device(), other);
        let (a, b) = (transfer_stats(g).unwrap(), transfer_stats(other).unwrap());
        assert_eq!(
            (a.device_to_device_copies, a.device_to_device_bytes, a.device_to_host_copies),
            (1, 4000, 0),
            "{a:?}"
        );
        assert_eq!(
            (b.device_to_device_copies, b.device_to_device_bytes, b.host_to_device_copies),
            (1, 4000, 0),
            "{b:?}"
        );
        assert_eq!(f32s(&y.to_blocking(Device::CPU).unwrap()), vec![1.5; 1000], "values survive {g} -> {other}");
    }
}

/// `Event`: GPU timestamps where the adapter has them, synchronized wall-clock elsewhere.
fn events_time_gpu_work(g: Device) {
    use webtensor::{Event, TimingMethod};
    // Over a millisecond of work: 384 on a software adapter, 2048 on hardware (384 takes 0.3 ms
    // on an H100).
    let software = webtensor::devices().iter().any(|i| i.device == g && i.software);
    let n = if software { 384 } else { 2048 };
    let x = Tensor::randn(&[n, n], Some(2), g).unwrap();
    webtensor::synchronize_blocking(g).unwrap();
    let start = Event::record_blocking(g).unwrap();
    let mut y = x.clone();
    for _ in 0..4 {
        y = y.matmul(&x).unwrap().mul_scalar(0.01).unwrap();
    }
    let end = Event::record_blocking(g).unwrap();
    let busy = start.elapsed_ms_blocking(&end).unwrap();
    let idle_a = Event::record_blocking(g).unwrap();
    let idle_b = Event::record_blocking(g).unwrap();
    let idle = idle_a.elapsed_ms_blocking(&idle_b).unwrap();
    let has_ts =
        webtensor::devices().iter().any(|i| i.device == g && i.features.iter().any(|f| f == "timestamp-query"));
    let want = if has_ts { TimingMethod::TimestampQuery } else { TimingMethod::WallClock };
    assert_eq!(start.method(), want);
    assert!(busy > 1.0 && idle >= 0.0 && idle < busy, "4 matmuls took {busy} ms, nothing took {idle} ms");
    let c0 = Event::record_blocking(Device::CPU).unwrap();
    let c1 = Event::record_blocking(Device::CPU).unwrap();
    assert_eq!(c0.method(), TimingMethod::WallClock);
    assert!(c0.elapsed_ms_blocking(&c1).unwrap() >= 0.0);
    assert!(matches!(start.elapsed_ms_blocking(&c1), Err(Error::DeviceMismatch { .. })));
    drop(y);
}

/// arange's length comes from its arguments, not a shape: 2^32 - 1 f32s (16 GiB) past a 1 GiB
/// limit is an OutOfMemory error before anything is allocated (on wasm32 it was an abort, which
/// the JS fuzz found). A global limit, so it runs here, alone.
fn arange_past_the_memory_limit_is_an_error() {
    webtensor::set_memory_limit(Device::CPU, Some(1 << 30)).unwrap();
    let e = Tensor::arange(4.0, 4_294_967_299.0, 1.0, DType::F32, Device::CPU).unwrap_err();
    webtensor::set_memory_limit(Device::CPU, None).unwrap();
    assert!(matches!(e, Error::OutOfMemory { .. }), "{e:?}");
}

/// Which op made attention's output on `d` (rows `width` wide) under the current fused-kernel
/// setting.
fn attention_op(d: Device, width: usize) -> String {
    let q = Tensor::randn(&[1, 2, 5, width], Some(1), Device::CPU).unwrap().to_blocking(d).unwrap();
    let q = q.requires_grad_(true).unwrap();
    let out = webtensor::nn::scaled_dot_product_attention(&q, &q, &q, &Default::default()).unwrap();
    out.grad_fn().unwrap_or("none").to_string()
}

/// `set_fused_kernels`: Auto fuses attention where it pays (the CPU and software adapters
/// always, hardware GPUs for rows up to 64 wide, which their tiled programs take); Always fuses
/// everywhere; Never composes everywhere.
fn fused_kernels_follow_the_setting(d: Device) {
    use webtensor::{set_fused_kernels, FusedKernels};
    const FUSED: &str = "scaled_dot_product_attention";
    let software = webtensor::devices().iter().any(|i| i.device == d && i.software);
    let pays_wide = d == Device::CPU || software;
    set_fused_kernels(FusedKernels::Auto);
    assert_eq!(attention_op(d, 8), FUSED, "Auto on {d}, 8 wide");
    assert_eq!(attention_op(d, 72) == FUSED, pays_wide, "Auto on {d}, 72 wide");
    set_fused_kernels(FusedKernels::Always);
    assert_eq!(attention_op(d, 8), FUSED, "Always on {d}");
    assert_eq!(attention_op(d, 72), FUSED, "Always on {d}, 72 wide");
    set_fused_kernels(FusedKernels::Never);
    assert_ne!(attention_op(d, 8), FUSED, "Never on {d}");
    set_fused_kernels(FusedKernels::Auto);
}
