//! Logical devices: one adapter split in two, each its own wgpu device with its own memory limit,
//! with a transfer between them. Its own binary: the split must come before any GPU is used.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;
use webtensor::{DType, Device, DeviceKind, Error, LogicalDeviceConfig, Tensor};

fn two_logical_devices_on_one_adapter(g: Device) {
    let before = webtensor::device_count(DeviceKind::WebGpu);
    let mib = 1u64 << 20;
    let configs = [LogicalDeviceConfig { memory_limit: Some(8 * mib) }, LogicalDeviceConfig { memory_limit: None }];
    webtensor::set_logical_device_configuration(g, &configs).unwrap();
    assert_eq!(webtensor::device_count(DeviceKind::WebGpu), before + 1);
    let (l0, l1) = (Device::webgpu(g.ordinal()), Device::webgpu(g.ordinal() + 1));
    let infos = webtensor::devices();
    for (k, d) in [l0, l1].iter().enumerate() {
        let i = infos.iter().find(|i| i.device == *d).unwrap();
        assert_eq!(i.logical, Some(k), "{i:?}");
        assert!(i.name.contains(&format!("logical {k} of 2")), "{}", i.name);
    }
    assert_eq!(webtensor::memory_limit(l0).unwrap(), Some(8 * mib));
    assert_eq!(webtensor::memory_limit(l1).unwrap(), None);

    // Each is a device of its own: mixing them is a mismatch, `to` moves data between them.
    let x = t(&[1.0, 2.0, 3.0], &[3], l0);
    let y = x.to_blocking(l1).unwrap();
    assert_eq!(y.device(), l1);
    assert_eq!(f32s(&y.mul_scalar(2.0).unwrap()), vec![2.0, 4.0, 6.0]);
    let e = x.add(&y).unwrap_err().to_string();
    assert!(e.contains(&format!("{l0} and {l1}")), "{e}");
    let s0 = webtensor::transfer_stats(l0).unwrap();
    let s1 = webtensor::transfer_stats(l1).unwrap();
    assert_eq!((s0.device_to_device_copies, s1.device_to_device_copies), (1, 1));
    assert_eq!(s1.device_to_device_bytes, 12);

    // Memory limits are per logical device.
    assert!(matches!(Tensor::zeros(&[4 << 20], DType::F32, l0), Err(Error::OutOfMemory { .. })));
    assert!(Tensor::zeros(&[4 << 20], DType::F32, l1).is_ok());
    assert_eq!(webtensor::memory_allocated(l0).unwrap(), 256, "only x's block on {l0}");

    // Once devices are in use the configuration is fixed.
    let e = webtensor::set_logical_device_configuration(l1, &configs).unwrap_err();
    assert!(e.to_string().contains("before any GPU device is used"), "{e}");
    assert!(webtensor::set_logical_device_configuration(Device::CPU, &configs).is_err());
}

device_main!(; gpu: two_logical_devices_on_one_adapter);
