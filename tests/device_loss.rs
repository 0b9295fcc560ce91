//! Device loss, simulated by destroying the device (its own binary: it destroys the shared GPU
//! device): every later use of the lost device's tensors fails with a typed `DeviceLost`, tensors
//! on other devices are untouched, and `recover` opens a fresh device so new work can go on.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;
use webtensor::{DType, Device, Error, Tensor};

fn device_loss_is_typed_and_recoverable(g: Device) {
    let on_cpu = t(&[1.0, 2.0], &[2], Device::CPU);
    let a = t(&[1.0, 2.0, 3.0], &[3], g);
    assert_eq!(f32s(&a.add_scalar(1.0).unwrap()), vec![2.0, 3.0, 4.0]);

    webtensor::__destroy_device(g).unwrap();
    let lost = |r: webtensor::Result<Tensor>, what: &str| {
        let e = r.unwrap_err();
        assert!(matches!(e, Error::DeviceLost { .. }), "{what}: {e:?}");
        assert!(e.to_string().contains("Destroyed") && e.to_string().contains("recover"), "{what}: {e}");
    };
    lost(a.add(&a), "an op on a lost device's tensor");
    lost(Tensor::zeros(&[4], DType::F32, g), "a new tensor on the lost device");
    lost(a.to_blocking(Device::CPU), "a transfer off the lost device");
    assert!(matches!(a.to_vec_blocking::<f32>(), Err(Error::DeviceLost { .. })));
    assert!(matches!(webtensor::synchronize_blocking(g), Err(Error::DeviceLost { .. })));
    // Other devices are untouched.
    assert_eq!(f32s(&on_cpu.mul_scalar(3.0).unwrap()), vec![3.0, 6.0]);

    webtensor::recover_blocking(g).unwrap();
    let b = Tensor::full(&[3], 4.0, DType::F32, g).unwrap();
    assert_eq!(f32s(&b.sqrt().unwrap()), vec![2.0, 2.0, 2.0], "new work goes on after recover");
    assert_eq!(webtensor::memory_allocated(g).unwrap(), 256, "the fresh device counts from zero: one 256-byte block");
    lost(a.mul_scalar(2.0), "tensors of the lost device stay lost");
    lost(b.add(&a), "mixing a recovered device's tensor with a lost one");
    lost(Tensor::cat(&[a.clone(), b.clone()], 0), "cat across the loss");
    webtensor::recover_blocking(g).unwrap(); // a no-op on a healthy device
    assert_eq!(f32s(&b.add_scalar(1.0).unwrap()), vec![5.0, 5.0, 5.0]);
}

device_main!(; gpu: device_loss_is_typed_and_recoverable);
