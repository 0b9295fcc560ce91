//! `multinomial` (issue 45): with and without replacement, its draws follow the weights (a
//! chi-square bound, the distribution PyTorch's `torch.multinomial` samples), a seed gives the
//! same draws on every device, rows without replacement never repeat a category, and bad
//! arguments are errors.

mod common;
use common::*;

use webtensor::{DType, Device, Tensor};

device_tests!(draws_follow_the_weights, without_replacement_never_repeats, bad_arguments_are_errors);

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
