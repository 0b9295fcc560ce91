//! The GPU driver's own out-of-memory, on hardware: allocate until the driver refuses. wgpu
//! reports the refusal through the out-of-memory error scope around buffer creation, and
//! webtensor must turn it into `Error::OutOfMemory` (after emptying its cache and retrying) with
//! every other tensor and the device still usable. Needs a hardware adapter: lavapipe allocates
//! device memory from the host lazily, at the first submission, and aborts the process when that
//! fails (tried with an address-space cap), so on software adapters this case cannot be built.
//! Own binary: it fills the device. `WEBTENSOR_REQUIRE_HARDWARE_GPU=1` (set it on GPU machines)
//! makes a software adapter fail the case instead of passing over it.

mod common;

use webtensor::{DType, Error, Tensor};

#[test]
fn the_drivers_out_of_memory_is_an_error_and_loses_nothing() {
    let Some(dev) = common::gpu() else { return };
    let info = webtensor::devices().into_iter().find(|i| i.device == dev).expect("the device is listed");
    if info.software {
        assert!(
            std::env::var("WEBTENSOR_REQUIRE_HARDWARE_GPU").is_err(),
            "WEBTENSOR_REQUIRE_HARDWARE_GPU is set but {dev} is a software adapter ({})",
            info.name
        );
        eprintln!("note: {} is a software adapter; the driver OOM case runs on hardware GPUs only", info.name);
        return;
    }
    let keep = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3], dev).unwrap();
    let max = info.limits.iter().find(|l| l.0 == "max_buffer_size").map_or(1 << 30, |l| l.1).min(1 << 30);
    let elems = (max / 4) as usize;
    let mut held = Vec::new();
    // Past any real GPU's memory (256 GiB) the driver must have refused.
    let err = loop {
        assert!(held.len() < 256 << 30 >> 30, "256 GiB allocated without an error");
        match Tensor::zeros(&[elems], DType::F32, dev) {
            Ok(t) => {
                held.push(t);
                // Make the driver commit the memory now (some allocate lazily).
                webtensor::synchronize_blocking(dev).unwrap();
            }
            Err(e) => break e,
        }
    };
    match &err {
        Error::OutOfMemory { cause, .. } => assert!(cause.contains("the device refused"), "{err}"),
        other => panic!("expected OutOfMemory from the driver, got {other:?}"),
    }
    eprintln!("the driver refused after {} blocks of {} MiB: {err}", held.len(), max >> 20);
    drop(held);
    webtensor::empty_cache(dev).unwrap();
    assert_eq!(common::f32s(&keep.mul(&keep).unwrap()), vec![1.0, 4.0, 9.0]);
    let again = Tensor::ones(&[elems], DType::F32, dev).unwrap();
    assert_eq!(common::f32s(&again.sum_all().unwrap()), vec![elems as f32]);
}
