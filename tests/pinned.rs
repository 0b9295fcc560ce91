//! `pin_memory` / `pin_memory_for` / `is_pinned` and the loader's `pin_memory`: pinned for a
//! GPU (page-locked memory for CUDA, a mapped staging buffer for WebGPU; uploads read it with no
//! host copy, and it outlives a dropped tensor's queued copy), a contiguous copy otherwise; the
//! same values on every device, views, gradients, errors.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use webtensor::data::{DataLoader, DataLoaderOptions, TensorDataset};
use webtensor::{DType, Device, DeviceKind, Tensor, ToOptions};

device_main!(pinned_tensors_upload_to_every_device, pinned_loaders_give_the_plain_batches; gpu: pin_memory_refuses_device_tensors; plain: pin_memory_copies_a_cpu_tensor);

/// `pin_memory()` pins where there is a GPU to pin for (cuda:0, else the first WebGPU device).
fn pinned_here() -> bool {
    cuda().is_some() || webtensor::devices().iter().any(|i| i.device.kind() == DeviceKind::WebGpu)
}

fn pin_memory_copies_a_cpu_tensor() {
    let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], Device::CPU).unwrap();
    let t = x.t().unwrap(); // a strided view: pinned as its elements in order
    let p = t.pin_memory().unwrap();
    assert_eq!((p.device(), p.shape()), (Device::CPU, &[3usize, 2][..]));
    assert_eq!(f32s(&p), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    assert_eq!(p.is_pinned(), pinned_here());
    assert!(!x.is_pinned(), "the source stays as it was");
    assert_eq!(f32s(&p.add_scalar(1.0).unwrap()), vec![2.0, 5.0, 3.0, 6.0, 4.0, 7.0], "CPU ops read it as ever");
    let empty = Tensor::zeros(&[0, 4], DType::F32, Device::CPU).unwrap().pin_memory().unwrap();
    assert_eq!(empty.shape(), &[0, 4]);

    // Gradients flow through it as through a copy.
    let leaf = Tensor::from_slice(&[1.0f32, 2.0], &[2], Device::CPU).unwrap().requires_grad_(true).unwrap();
    leaf.pin_memory().unwrap().mul_scalar(3.0).unwrap().sum_all().unwrap().backward().unwrap();
    assert_eq!(f32s(&leaf.grad().unwrap()), vec![3.0, 3.0]);
}

fn pin_memory_refuses_device_tensors(g: Device) {
    let x = Tensor::zeros(&[4], DType::F32, g).unwrap();
    let e = x.pin_memory().unwrap_err().to_string();
    assert!(e.contains("only CPU tensors can be pinned") && e.contains(&g.to_string()), "{e}");
    assert!(x.pin_memory_for(g).unwrap_err().to_string().starts_with("pin_memory_for:"));
    assert!(!x.is_pinned());
    assert_eq!(f32s(&x), vec![0.0; 4], "the tensor is intact");
}

/// A pinned tensor reaches `d` with its values, blocking or not, whole or as a view, for every
/// dtype; dropping it right after a non-blocking upload leaves the upload intact.
fn pinned_tensors_upload_to_every_device(d: Device) {
    let data: Vec<f32> = (0..4096).map(|i| i as f32 * 0.5 - 7.0).collect();
    for non_blocking in [false, true] {
        let p = Tensor::from_slice(&data, &[64, 64], Device::CPU).unwrap().pin_memory_for(d).unwrap();
        assert_eq!(p.is_pinned(), d != Device::CPU, "pinned for {d}");
        let before = webtensor::transfer_stats(d).unwrap();
        let on = p.to_with_blocking(d, ToOptions { non_blocking }).unwrap();
        drop(p); // the page-locked block must outlive the queued copy
        assert_eq!(f32s(&on), data, "{d}, non_blocking {non_blocking}");
        if d != Device::CPU {
            let after = webtensor::transfer_stats(d).unwrap();
            // At least (tests beside this one upload to the same device meanwhile).
            assert!(after.host_to_device_bytes - before.host_to_device_bytes >= 4096 * 4, "{d}: the upload is counted");
        }
    }
    let p = Tensor::from_slice(&data, &[64, 64], Device::CPU).unwrap().pin_memory_for(d).unwrap();
    let part = p.narrow(0, 10, 3).unwrap().to_blocking(d).unwrap(); // a view takes the ordinary path
    assert_eq!(f32s(&part), data[640..832].to_vec());
    let bytes = Tensor::from_slice(&[1u8, 200, 255, 0], &[4], Device::CPU).unwrap().pin_memory_for(d).unwrap();
    assert_eq!(bytes.to_blocking(d).unwrap().to_vec_blocking::<u8>().unwrap(), vec![1, 200, 255, 0]);
    let ints = Tensor::from_slice(&[-3i32, 7], &[2], Device::CPU).unwrap().pin_memory_for(d).unwrap();
    // Pinned for another device: the ordinary path, same values.
    let other = Tensor::from_slice(&[5.0f32], &[1], Device::CPU).unwrap().pin_memory_for(Device::CPU).unwrap();
    assert!(!other.is_pinned());
    assert_eq!(f32s(&other.to_blocking(d).unwrap()), vec![5.0]);
    assert_eq!(i32s(&ints.to_with_blocking(d, ToOptions { non_blocking: true }).unwrap()), vec![-3, 7]);
}

/// `pin_memory: true` yields the same batches as plain loading, pinned where there is a GPU,
/// and prefetching pinned batches to `d` gives them on `d`.
fn pinned_loaders_give_the_plain_batches(d: Device) {
    let x: Vec<f32> = (0..40).map(|i| i as f32).collect();
    let y: Vec<i32> = (0..20).collect();
    let ds = TensorDataset::new(vec![
        Tensor::from_slice(&x, &[20, 2], Device::CPU).unwrap(),
        Tensor::from_slice(&y, &[20], Device::CPU).unwrap(),
    ])
    .unwrap();
    let opts = DataLoaderOptions { batch_size: 6, shuffle: true, seed: Some(9), ..Default::default() };
    let mut plain = DataLoader::new(ds.clone(), opts).unwrap();
    let mut pinned = DataLoader::new(ds.clone(), DataLoaderOptions { pin_memory: true, ..opts }).unwrap();
    let mut ahead = DataLoader::new(ds, DataLoaderOptions { pin_memory: true, ..opts }).unwrap();
    let want: Vec<Vec<Tensor>> = plain.iter().map(|b| b.unwrap()).collect();
    let got: Vec<Vec<Tensor>> = pinned.iter().map(|b| b.unwrap()).collect();
    let moved: Vec<Vec<Tensor>> = ahead.prefetch(d, 2).unwrap().map(|b| b.unwrap()).collect();
    assert_eq!((want.len(), got.len(), moved.len()), (4, 4, 4));
    for ((w, g), m) in want.iter().zip(&got).zip(&moved) {
        assert!(g.iter().all(|t| t.is_pinned() == pinned_here()));
        assert_eq!(f32s(&w[0]), f32s(&g[0]));
        assert_eq!(i32s(&w[1]), i32s(&g[1]));
        assert!(m.iter().all(|t| t.device() == d));
        assert_eq!(f32s(&w[0]), f32s(&m[0].to_blocking(Device::CPU).unwrap()), "{d}");
    }
}
