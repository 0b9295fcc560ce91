//! Indices out of range are errors on every device (issue 41): the CPU fails at the op; GPUs
//! queue a check beside the kernel and fail the next readback or `synchronize` with an error
//! naming the op, the index and the bound, as PyTorch's device-side assert. The error is
//! reported once, the device stays usable, and other tensors keep their values. Also the
//! classification losses' PyTorch semantics that go with it: `ignore_index` -100 by default,
//! `[N, C, d]` inputs and probability targets (their values are in `tests/fixtures/train.json`).
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use webtensor::nn::{self, ClassLossOptions, Reduction};
use webtensor::{DType, Device, Error, Tensor};

device_main!(
    every_indexed_op_refuses_an_index_out_of_range,
    cross_entropy_names_the_bad_label,
    the_error_is_reported_once_and_the_device_keeps_working,
    valid_indices_and_ignored_targets_pass,
    many_checks_without_a_readback_fold_and_still_report,
    long_indices_are_checked_in_every_chunk
);

/// Runs `make` and reads its output: the op's own error on the CPU, the readback's on GPUs.
fn outcome(make: impl FnOnce() -> webtensor::Result<Tensor>) -> webtensor::Result<Vec<f32>> {
    let y = make()?;
    y.to_dtype(DType::F32)?.to_vec_blocking::<f32>()
}

/// Asserts `r` is the index error of `op` with `index` against `size` on `d`.
fn refused(r: webtensor::Result<Vec<f32>>, d: Device, op: &str, index: i64, size: usize) {
    let e = r.expect_err(&format!("{op} on {d}: an index out of range was accepted"));
    match &e {
        Error::IndexOutOfRange { op: o, index: i, size: s, .. } if d == Device::CPU => {
            assert_eq!((*o, *i, *s), (op, index, size), "{e}")
        }
        Error::DeviceIndexOutOfRange { op: o, index: i, size: s, device, .. } if d != Device::CPU => {
            assert_eq!((*o, *i, *s, *device), (op, index, size, d), "{e}");
            assert!(e.to_string().contains("set_launch_blocking"), "{e}");
        }
        _ => panic!("{op} on {d}: expected the index error, got {e}"),
    }
}

fn every_indexed_op_refuses_an_index_out_of_range(d: Device) {
    let x = Tensor::randn(&[3, 2], Some(1), d).unwrap();
    let far = Tensor::from_slice(&[0i32, 4], &[2], d).unwrap();
    let neg = Tensor::from_slice(&[-1i32, 0], &[2], d).unwrap();
    refused(outcome(|| x.index_select(1, &far)), d, "index_select", 4, 2);
    refused(outcome(|| x.index_select(0, &neg)), d, "index_select", -1, 3);
    let g = Tensor::from_slice(&[0i32, 1, 4, 0, 1, 0], &[3, 2], d).unwrap();
    refused(outcome(|| x.gather(1, &g)), d, "gather", 4, 2);
    let w = Tensor::randn(&[5, 4], Some(2), d).unwrap();
    let tokens = Tensor::from_slice(&[1i32, 9, 2], &[3], d).unwrap();
    refused(outcome(|| nn::embedding(&tokens, &w, None)), d, "embedding", 9, 5);
    let src = Tensor::ones(&[2, 2], DType::F32, d).unwrap();
    refused(outcome(|| x.index_add(0, &Tensor::from_slice(&[0i32, 3], &[2], d).unwrap(), &src)), d, "index_add", 3, 3);
    let gi = Tensor::from_slice(&[0i32, 2], &[1, 2], d).unwrap();
    refused(outcome(|| x.scatter_add(1, &gi, &src)), d, "scatter_add", 2, 2);
    refused(outcome(|| x.scatter(1, &gi, &src)), d, "scatter", 2, 2);
    let u = Tensor::from_slice(&[1u32, 7], &[2], d).unwrap();
    refused(outcome(|| u.one_hot(5)), d, "one_hot", 7, 5);
    let i = Tensor::from_slice(&[-2i32, 1], &[2], d).unwrap();
    refused(outcome(|| i.one_hot(5)), d, "one_hot", -2, 5);
}

fn cross_entropy_names_the_bad_label(d: Device) {
    let logits = Tensor::randn(&[4, 5], Some(3), d).unwrap();
    let seven = Tensor::from_slice(&[0i32, 7, 1, 2], &[4], d).unwrap();
    refused(outcome(|| nn::cross_entropy(&logits, &seven, ClassLossOptions::default())), d, "cross_entropy", 7, 5);
    // -1 is not PyTorch's ignore_index (-100): it is out of range.
    let minus = Tensor::from_slice(&[0i32, -1, 1, 2], &[4], d).unwrap();
    refused(outcome(|| nn::cross_entropy(&logits, &minus, ClassLossOptions::default())), d, "cross_entropy", -1, 5);
    let logp = logits.log_softmax(1).unwrap();
    refused(outcome(|| nn::nll_loss(&logp, &seven, ClassLossOptions::default())), d, "nll_loss", 7, 5);
    // [N, C, d]: the class dim is 1.
    let seq = Tensor::randn(&[2, 5, 3], Some(4), d).unwrap();
    let t = Tensor::from_slice(&[0i32, 1, 2, 3, 4, 5], &[2, 3], d).unwrap();
    refused(outcome(|| nn::cross_entropy(&seq, &t, ClassLossOptions::default())), d, "cross_entropy", 5, 5);
}

fn the_error_is_reported_once_and_the_device_keeps_working(d: Device) {
    let keep = Tensor::from_slice(&[1.5f32, -2.0], &[2], d).unwrap();
    let x = Tensor::randn(&[3, 2], Some(1), d).unwrap();
    let bad = x.index_select(0, &Tensor::from_slice(&[5i32], &[1], d).unwrap());
    if d == Device::CPU {
        assert!(matches!(bad, Err(Error::IndexOutOfRange { .. })));
    } else {
        // The op itself returns; the next synchronize reports it, once.
        let bad = bad.expect("GPUs queue the op");
        let e = webtensor::synchronize_blocking(d).expect_err("synchronize reports the bad index");
        assert!(matches!(e, Error::DeviceIndexOutOfRange { index: 5, .. }), "{e}");
        webtensor::synchronize_blocking(d).expect("reported once");
        // The kernel read nothing outside the source: the row is zeros.
        assert_eq!(f32s(&bad), vec![0.0, 0.0]);
    }
    assert_eq!(f32s(&keep), vec![1.5, -2.0]);
    let ok = x.index_select(0, &Tensor::from_slice(&[2i32, 0], &[2], d).unwrap()).unwrap();
    let all = f32s(&x);
    assert_eq!(f32s(&ok), vec![all[4], all[5], all[0], all[1]]);
}

fn valid_indices_and_ignored_targets_pass(d: Device) {
    // Bounds exactly at the edge, u32 indices, empty indices, and PyTorch's default ignore_index.
    let x = Tensor::arange(0.0, 6.0, 1.0, DType::F32, d).unwrap().reshape(&[3, 2]).unwrap();
    let edge = Tensor::from_slice(&[2u32, 0], &[2], d).unwrap();
    assert_eq!(f32s(&x.index_select(0, &edge).unwrap()), vec![4.0, 5.0, 0.0, 1.0]);
    let none = Tensor::zeros(&[0], DType::I32, d).unwrap();
    assert_eq!(x.index_select(0, &none).unwrap().shape(), &[0, 2]);
    let logits = Tensor::randn(&[3, 4], Some(5), d).unwrap();
    let t = Tensor::from_slice(&[3i32, -100, 0], &[3], d).unwrap();
    let per =
        nn::cross_entropy(&logits, &t, ClassLossOptions { reduction: Reduction::None, ..Default::default() }).unwrap();
    let v = f32s(&per);
    assert!(v[0] > 0.0 && v[1] == 0.0 && v[2] > 0.0, "{v:?}");
    // With the ignore index switched off, -100 is out of range again.
    let off = ClassLossOptions { ignore_index: None, ..Default::default() };
    refused(outcome(|| nn::cross_entropy(&logits, &t, off)), d, "cross_entropy", -100, 4);
    webtensor::synchronize_blocking(d).unwrap();
}

/// Indices past one chunk of the range check (4,096 values: `op::fused::index_range`'s two
/// stages): one bad value in the last chunk or in the middle, each caught; u32 indices; every
/// target ignored; one bad target among thousands of ignored ones.
fn long_indices_are_checked_in_every_chunk(d: Device) {
    let n = 3 * 4096 + 5;
    let x = Tensor::randn(&[7, 2], Some(8), d).unwrap();
    let mut idx: Vec<i32> = (0..n as i32).map(|i| i % 7).collect();
    idx[n - 1] = 7;
    let far = Tensor::from_slice(&idx, &[n], d).unwrap();
    refused(outcome(|| x.index_select(0, &far)), d, "index_select", 7, 7);
    idx[n - 1] = 0;
    idx[5000] = -3;
    let neg = Tensor::from_slice(&idx, &[n], d).unwrap();
    refused(outcome(|| x.index_select(0, &neg)), d, "index_select", -3, 7);
    let u: Vec<u32> = (0..n as u32).map(|i| i % 7).collect();
    let y = x.index_select(0, &Tensor::from_slice(&u, &[n], d).unwrap()).unwrap();
    assert_eq!(y.shape(), &[n, 2]);
    webtensor::synchronize_blocking(d).expect("u32 indices in range");
    let logits = Tensor::randn(&[n, 3], Some(9), d).unwrap();
    let none = ClassLossOptions { reduction: Reduction::None, ..Default::default() };
    let ignored = Tensor::full(&[n], -100.0, DType::I32, d).unwrap();
    let per = f32s(&nn::cross_entropy(&logits, &ignored, none).unwrap());
    assert!(per.iter().all(|&v| v == 0.0), "every target ignored on {d}");
    let mut t = vec![-100i32; n];
    t[9000] = 3;
    t[1] = 2;
    let one_bad = Tensor::from_slice(&t, &[n], d).unwrap();
    refused(outcome(|| nn::cross_entropy(&logits, &one_bad, none)), d, "cross_entropy", 3, 3);
}

fn many_checks_without_a_readback_fold_and_still_report(d: Device) {
    let x = Tensor::randn(&[4, 3], Some(6), d).unwrap();
    let good = Tensor::from_slice(&[3i32, 1], &[2], d).unwrap();
    let mut outs = Vec::new();
    for i in 0..100 {
        outs.push(x.index_select(0, &good).unwrap());
        if i == 70 && d != Device::CPU {
            outs.push(x.index_select(1, &Tensor::from_slice(&[3i32], &[1], d).unwrap()).unwrap());
        }
    }
    if d != Device::CPU {
        let e = webtensor::synchronize_blocking(d).expect_err("the one bad index among 100 checks");
        assert!(matches!(e, Error::DeviceIndexOutOfRange { op: "index_select", index: 3, size: 3, .. }), "{e}");
    }
    webtensor::synchronize_blocking(d).unwrap();
    assert_eq!(f32s(&outs[99]).len(), 6);
}
