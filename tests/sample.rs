//! `multinomial` (issue 45): with and without replacement, its draws follow the weights (a
//! chi-square bound, the distribution PyTorch's `torch.multinomial` samples), a seed gives the
//! same draws on every device, rows without replacement never repeat a category, and bad
//! arguments are errors. `rand` and dropout generated on each device (the counter-based
//! generator of `op::fill`): the CPU's bits on every device, uniform by moments and a
//! chi-square.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use webtensor::{DType, Device, Tensor};

device_main!(
    draws_follow_the_weights,
    without_replacement_never_repeats,
    bad_arguments_are_errors,
    rand_is_generated_on_the_device_with_the_cpus_bits,
    randn_is_generated_on_the_device
);

fn rand_is_generated_on_the_device_with_the_cpus_bits(d: Device) {
    // A seed past 2^32 (both key words used) and an odd count.
    let seed = 0x1234_5678_9abc_def0;
    let x = Tensor::rand(&[1000, 37], Some(seed), d).unwrap();
    assert_eq!(x.device(), d);
    let got = f32s(&x);
    if d != Device::CPU {
        // The CPU itself is held to the distribution below (and the generator to its own unit
        // tests in op::fill), not to itself.
        let want = f32s(&Tensor::rand(&[1000, 37], Some(seed), Device::CPU).unwrap());
        assert!(got.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "the CPU's bits on {d}");
    }
    assert!(got.iter().all(|&v| (0.0..1.0).contains(&v) && (v * 16_777_216.0).fract() == 0.0));
    let n = got.len() as f64;
    let mean = got.iter().map(|&v| v as f64).sum::<f64>() / n;
    let var = got.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / n;
    assert!((mean - 0.5).abs() < 0.01 && (var - 1.0 / 12.0).abs() < 0.005, "mean {mean}, variance {var}");
    let mut counts = [0f64; 10];
    got.iter().for_each(|&v| counts[(v * 10.0) as usize] += 1.0);
    // 9 degrees of freedom: 99.99% of honest samples stay below 33.7.
    let c = chi2(&counts, &[1.0; 10], n);
    assert!(c < 33.7, "chi2 {c}, counts {counts:?}");
    assert_ne!(f32s(&Tensor::rand(&[8], Some(seed + 1), d).unwrap()), got[..8].to_vec(), "another seed");
    // Dropout's mask comes from the same generator: the same elements dropped everywhere.
    let ones = Tensor::ones(&[4096], DType::F32, d).unwrap();
    let dropped = f32s(&webtensor::nn::dropout(&ones, 0.25, true, Some(9)).unwrap());
    let on_cpu = Tensor::ones(&[4096], DType::F32, Device::CPU).unwrap();
    assert_eq!(dropped, f32s(&webtensor::nn::dropout(&on_cpu, 0.25, true, Some(9)).unwrap()));
    let kept = dropped.iter().filter(|&&v| v != 0.0).count() as f64 / 4096.0;
    assert!((kept - 0.75).abs() < 0.03, "kept {kept}");
}

/// `randn` on the device from the counter-based generator: nothing uploaded, the CPU's values
/// up to the device's rounding of log, cos and sqrt, standard normal by moments and a
/// chi-square over bins of equal probability.
fn randn_is_generated_on_the_device(d: Device) {
    let seed = 0xfeed_0000_beef;
    webtensor::synchronize_blocking(d).unwrap();
    webtensor::reset_transfer_stats(d).unwrap();
    let x = Tensor::randn(&[300, 337], Some(seed), d).unwrap();
    webtensor::synchronize_blocking(d).unwrap();
    let uploaded = webtensor::transfer_stats(d).unwrap().host_to_device_bytes;
    assert_eq!(uploaded, 0, "randn on {d} uploaded {uploaded} bytes");
    assert_eq!(x.device(), d);
    let got = f32s(&x);
    let want = f32s(&Tensor::randn(&[300, 337], Some(seed), Device::CPU).unwrap());
    let worst = got.iter().zip(&want).map(|(a, b)| (a - b).abs() / b.abs().max(1.0)).fold(0.0, f32::max);
    assert!(worst < 1e-5, "randn on {d} is {worst} from the cpu's values");
    let n = got.len() as f64;
    let mean = got.iter().map(|&v| v as f64).sum::<f64>() / n;
    let var = got.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / n;
    assert!(mean.abs() < 0.01 && (var - 1.0).abs() < 0.015, "mean {mean}, variance {var} on {d}");
    // Eight bins of probability 1/8 each: the normal's octiles.
    let edges = [-1.150_349_4, -0.674_489_75, -0.318_639_36, 0.0, 0.318_639_36, 0.674_489_75, 1.150_349_4];
    let mut counts = [0f64; 8];
    got.iter().for_each(|&v| counts[edges.iter().filter(|&&e| v >= e).count()] += 1.0);
    // 7 degrees of freedom: 99.99% of honest samples stay below 29.9.
    let c = chi2(&counts, &[1.0; 8], n);
    assert!(c < 29.9, "chi2 {c}, counts {counts:?} on {d}");
    assert!(got.iter().all(|v| v.is_finite()));
    assert_ne!(f32s(&Tensor::randn(&[8], Some(seed + 1), d).unwrap()), got[..8].to_vec(), "another seed");
}

/// Chi-square of `counts` against `weights` (normalised) over `n` draws.
fn chi2(counts: &[f64], weights: &[f64], n: f64) -> f64 {
    let total: f64 = weights.iter().sum();
    counts
        .iter()
        .zip(weights)
        .filter(|(_, w)| **w > 0.0)
        .map(|(c, w)| (c - n * w / total).powi(2) / (n * w / total))
        .sum()
}

fn draws_follow_the_weights(d: Device) {
    let w = [0.1f32, 0.0, 2.0, 0.5, 1.4];
    let weights: Vec<f64> = w.iter().map(|&x| x as f64).collect();
    let probs = Tensor::from_slice(&w, &[5], d).unwrap();
    let n = 20_000;
    let draws = i32s(&probs.multinomial(n, true, Some(3)).unwrap());
    assert_eq!(draws.len(), n);
    let mut counts = [0f64; 5];
    draws.iter().for_each(|&i| counts[i as usize] += 1.0);
    assert_eq!(counts[1], 0.0, "a zero weight is never drawn");
    // 4 degrees of freedom: 99.99% of honest samples stay below 23.5.
    let c = chi2(&counts, &weights, n as f64);
    assert!(c < 23.5, "with replacement: chi2 {c}, counts {counts:?}");
    assert_eq!(
        draws,
        i32s(&Tensor::from_slice(&w, &[5], Device::CPU).unwrap().multinomial(n, true, Some(3)).unwrap()),
        "the same seed, the same draws on every device"
    );
    // Without replacement, the first draw of each row follows the weights too.
    let rows = 4000;
    let batch = Tensor::from_slice(&w.repeat(rows), &[rows, 5], d).unwrap();
    let firsts = i32s(&batch.multinomial(2, false, Some(5)).unwrap());
    let mut counts = [0f64; 5];
    firsts.chunks(2).for_each(|r| counts[r[0] as usize] += 1.0);
    let c = chi2(&counts, &weights, rows as f64);
    assert!(c < 23.5, "without replacement, first draws: chi2 {c}, counts {counts:?}");
    // Greedy sampling's degenerate case: one category has all the weight.
    let onehot = Tensor::from_slice(&[0.0f32, 0.0, 1.0], &[3], d).unwrap();
    assert_eq!(i32s(&onehot.multinomial(4, true, None).unwrap()), vec![2; 4]);
}

fn without_replacement_never_repeats(d: Device) {
    let w = Tensor::rand(&[50, 8], Some(1), d).unwrap().add_scalar(0.01).unwrap();
    let s = w.multinomial(8, false, Some(2)).unwrap();
    assert_eq!((s.shape(), s.dtype()), (&[50, 8][..], DType::I32));
    for row in i32s(&s).chunks(8) {
        let mut r = row.to_vec();
        r.sort_unstable();
        assert_eq!(r, (0..8).collect::<Vec<i32>>(), "a full draw without replacement is a permutation");
    }
}

fn bad_arguments_are_errors(d: Device) {
    let w = Tensor::ones(&[3], DType::F32, d).unwrap();
    assert!(w.multinomial(4, false, None).unwrap_err().to_string().contains("without replacement from 3 categories"));
    assert!(w.multinomial(0, true, None).is_err());
    assert!(Tensor::ones(&[3], DType::I32, d).unwrap().multinomial(1, true, None).is_err());
    assert!(Tensor::ones(&[2, 2, 2], DType::F32, d).unwrap().multinomial(1, true, None).is_err());
    if d == Device::CPU {
        let neg = Tensor::from_slice(&[1.0f32, -1.0], &[2], d).unwrap();
        assert!(neg.multinomial(1, true, None).unwrap_err().to_string().contains("finite and >= 0"));
        let zero = Tensor::zeros(&[2], DType::F32, d).unwrap();
        assert!(zero.multinomial(1, true, None).unwrap_err().to_string().contains("only zero weights"));
    }
}
