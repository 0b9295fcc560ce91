//! `webtensor::data`: datasets and the DataLoader. Every epoch visits every sample once, seeded
//! shuffles repeat and differ between epochs, `drop_last` and `len` agree with PyTorch's, a
//! custom dataset is stacked, bad arguments are errors, and a model trains from the batches on
//! every device.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use webtensor::data::{permutation, DataLoader, DataLoaderOptions, Dataset, TensorDataset};
use webtensor::{DType, Device, Tensor};

device_main!(batches_cover_the_dataset, a_model_trains_from_the_loader, prefetch_gives_the_same_batches_on_the_device; plain: the_permutation_is_fixed, custom_datasets_and_errors, prefetch_reports_dataset_errors_and_panics);

/// Features whose row i is [i, 10 i] and labels i % 3, on `d`.
fn rows(n: usize, d: Device) -> TensorDataset {
    let x: Vec<f32> = (0..n).flat_map(|i| [i as f32, 10.0 * i as f32]).collect();
    let y: Vec<i32> = (0..n as i32).map(|i| i % 3).collect();
    let x = Tensor::from_slice(&x, &[n, 2], d).unwrap();
    let y = Tensor::from_slice(&y, &[n], d).unwrap();
    TensorDataset::new(vec![x, y]).unwrap()
}

fn batches_cover_the_dataset(d: Device) {
    let opts = DataLoaderOptions { batch_size: 4, shuffle: true, seed: Some(7), drop_last: false, pin_memory: false };
    let mut loader = DataLoader::new(rows(10, d), opts).unwrap();
    assert_eq!(loader.len(), 3, "ceil(10 / 4)");
    let mut epochs = Vec::new();
    for _ in 0..2 {
        let mut seen = Vec::new();
        let mut sizes = Vec::new();
        for batch in loader.iter() {
            let b = batch.unwrap();
            assert_eq!((b[0].device(), b[0].dtype(), b[1].dtype()), (d, DType::F32, DType::I32));
            let (x, y) = (f32s(&b[0]), i32s(&b[1]));
            sizes.push(y.len());
            for (k, &label) in y.iter().enumerate() {
                let i = x[2 * k] as usize;
                assert_eq!((x[2 * k + 1], label), (10.0 * i as f32, (i % 3) as i32), "fields stay paired");
                seen.push(i);
            }
        }
        assert_eq!(sizes, [4, 4, 2]);
        let mut sorted = seen.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..10).collect::<Vec<_>>(), "every sample once per epoch");
        epochs.push(seen);
    }
    assert_ne!(epochs[0], epochs[1], "a new order each epoch");
    assert_eq!(epochs[0], permutation(10, 7, 0), "the shared permutation");
    // The same seed gives the same batches; drop_last drops the short one.
    let opts = DataLoaderOptions { drop_last: true, ..opts };
    let mut again = DataLoader::new(rows(10, d), opts).unwrap();
    assert_eq!(again.len(), 2);
    let first: Vec<usize> = again
        .iter()
        .flat_map(|b| f32s(&b.unwrap()[0]).iter().step_by(2).map(|&v| v as usize).collect::<Vec<_>>())
        .collect();
    assert_eq!(first, epochs[0][..8]);
    // Without shuffle the order is 0..n.
    let mut plain = DataLoader::new(rows(5, d), DataLoaderOptions { batch_size: 2, ..Default::default() }).unwrap();
    let labels: Vec<i32> = plain.iter().flat_map(|b| i32s(&b.unwrap()[1])).collect();
    assert_eq!(labels, [0, 1, 2, 0, 1]);
}

/// The shuffle is the same in every language: this order is asserted by the JS suite too.
fn the_permutation_is_fixed() {
    assert_eq!(permutation(10, 0, 0), [6, 3, 2, 9, 8, 1, 4, 7, 0, 5]);
    assert_eq!(permutation(0, 3, 1), Vec::<usize>::new());
    let p = permutation(1000, 42, 3);
    let mut s = p.clone();
    s.sort_unstable();
    assert_eq!(s, (0..1000).collect::<Vec<_>>());
}

/// A map-style dataset computing its samples: the default `get_batch` stacks them.
struct Squares;
impl Dataset for Squares {
    fn len(&self) -> usize {
        6
    }
    fn get(&self, i: usize) -> webtensor::Result<Vec<Tensor>> {
        Ok(vec![Tensor::from_slice(&[i as f32, (i * i) as f32], &[2], Device::CPU)?])
    }
}

fn custom_datasets_and_errors() {
    let mut loader = DataLoader::new(Squares, DataLoaderOptions { batch_size: 4, ..Default::default() }).unwrap();
    let batches: Vec<Vec<Tensor>> = loader.iter().map(|b| b.unwrap()).collect();
    assert_eq!(batches[0][0].shape(), &[4, 2]);
    assert_eq!(f32s(&batches[1][0]), [4.0, 16.0, 5.0, 25.0]);
    let e = DataLoader::new(Squares, DataLoaderOptions { batch_size: 0, ..Default::default() }).err().unwrap();
    assert!(e.to_string().contains("batch_size must be at least 1"), "{e}");
    let a = Tensor::zeros(&[3, 2], DType::F32, None).unwrap();
    let b = Tensor::zeros(&[4], DType::F32, None).unwrap();
    let e = TensorDataset::new(vec![a.clone(), b]).err().unwrap().to_string();
    assert!(e.contains("tensor 1 has shape [4]") && e.contains("[3, 2]"), "{e}");
    assert!(TensorDataset::new(vec![]).is_err());
    let ds = TensorDataset::new(vec![a]).unwrap();
    assert!(matches!(ds.get(3), Err(webtensor::Error::IndexOutOfRange { .. })));
    assert_eq!(ds.get(2).unwrap()[0].shape(), &[2]);
}

/// Logistic regression on two separable blobs, fed by a shuffled loader on the CPU (as PyTorch
/// feeds a GPU: CPU batches moved with `to`), learns on every device.
fn a_model_trains_from_the_loader(d: Device) {
    use webtensor::nn::{self, Linear, LinearOptions, Module};
    use webtensor::optim::{Optimizer, SgdOptions, SGD};
    let n = 64;
    let x: Vec<f32> = (0..n)
        .flat_map(|i| if i % 2 == 0 { [1.0 + 0.01 * i as f32, 1.0] } else { [-1.0, -1.0 - 0.01 * i as f32] })
        .collect();
    let y: Vec<i32> = (0..n as i32).map(|i| i % 2).collect();
    let data = TensorDataset::new(vec![
        Tensor::from_slice(&x, &[n, 2], Device::CPU).unwrap(),
        Tensor::from_slice(&y, &[n], Device::CPU).unwrap(),
    ])
    .unwrap();
    let opts = DataLoaderOptions { batch_size: 16, shuffle: true, seed: Some(1), drop_last: false, pin_memory: false };
    let mut loader = DataLoader::new(data, opts).unwrap();
    let model = Linear::new(2, 2, LinearOptions { device: Some(d), seed: Some(3), ..Default::default() }).unwrap();
    let mut opt = SGD::new(model.parameters(), SgdOptions { lr: 0.5, ..Default::default() }).unwrap();
    let mut losses = Vec::new();
    for _ in 0..5 {
        let mut total = 0.0;
        for batch in loader.iter() {
            let b = batch.unwrap();
            let (xb, yb) = (b[0].to_blocking(d).unwrap(), b[1].to_blocking(d).unwrap());
            opt.zero_grad();
            let loss = nn::cross_entropy(&model.forward(&xb).unwrap(), &yb, Default::default()).unwrap();
            loss.backward().unwrap();
            opt.step().unwrap();
            total += loss.item_blocking::<f32>().unwrap();
        }
        losses.push(total / loader.len() as f32);
    }
    assert!(losses[4] < 0.5 * losses[0], "on {d}: the loss fell from {} to {}", losses[0], losses[4]);
}

/// `prefetch` yields `iter`'s batches, in the same order, already on the device; `drop_last`
/// holds; an early drop stops the worker; the next epoch reshuffles as `iter` would.
fn prefetch_gives_the_same_batches_on_the_device(d: Device) {
    let opts = DataLoaderOptions { batch_size: 4, shuffle: true, seed: Some(3), drop_last: true, pin_memory: false };
    let mut a = DataLoader::new(rows(18, Device::CPU), opts).unwrap();
    let mut b = DataLoader::new(rows(18, Device::CPU), opts).unwrap();
    for epoch in 0..2 {
        let plain: Vec<Vec<Tensor>> = a.iter().map(|r| r.unwrap()).collect();
        let ahead = b.prefetch(d, 2).unwrap();
        assert_eq!(ahead.len(), 4, "18 rows in batches of 4, the last 2 dropped");
        let ahead: Vec<Vec<Tensor>> = ahead.map(|r| r.unwrap()).collect();
        assert_eq!(plain.len(), ahead.len());
        for (p, q) in plain.iter().zip(&ahead) {
            assert!(q.iter().all(|t| t.device() == d), "batches arrive on {d}");
            assert_eq!(f32s(&p[0]), f32s(&q[0].to_blocking(Device::CPU).unwrap()), "epoch {epoch}: same rows");
            assert_eq!(i32s(&p[1]), i32s(&q[1].to_blocking(Device::CPU).unwrap()));
        }
    }
    assert_eq!(b.epoch(), 2);
    // Dropped after one batch: the worker stops and the loader goes on.
    let mut early = b.prefetch(d, 1).unwrap();
    assert!(early.next().unwrap().is_ok());
    drop(early);
    assert_eq!(b.prefetch(d, 3).unwrap().count(), 4);
}

/// A dataset that fails at one index, or panics there: the prefetched epoch ends with an error
/// (never a panic in the caller), after the batches before it.
#[derive(Clone)]
struct Faulty {
    panic: bool,
}

impl Dataset for Faulty {
    fn len(&self) -> usize {
        8
    }
    fn get(&self, index: usize) -> webtensor::Result<Vec<Tensor>> {
        if index == 5 {
            if self.panic {
                panic!("a bug in the dataset");
            }
            return Tensor::zeros(&[2], DType::F32, Device::CPU).and_then(|t| t.reshape(&[7]).map(|t| vec![t]));
        }
        Ok(vec![Tensor::from_slice(&[index as f32], &[1], Device::CPU)?])
    }
}

fn prefetch_reports_dataset_errors_and_panics() {
    for panic in [false, true] {
        let opts = DataLoaderOptions { batch_size: 2, ..Default::default() };
        let mut loader = DataLoader::new(Faulty { panic }, opts).unwrap();
        let got: Vec<webtensor::Result<Vec<Tensor>>> = loader.prefetch(Device::CPU, 2).unwrap().collect();
        assert_eq!(got.len(), 3, "two good batches, then the error, then nothing");
        assert!(got[0].is_ok() && got[1].is_ok());
        let e = got[2].as_ref().expect_err("the failing batch").to_string();
        if panic {
            assert!(e.contains("panicked in the prefetch thread"), "{e}");
        } else {
            assert!(e.contains("reshape"), "{e}");
        }
    }
}
