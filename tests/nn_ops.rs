//! The model ops beyond the PyTorch fixtures (tests/nn_fixtures.rs): a small CNN trains on
//! every device and agrees with the CPU step by step, bad arguments get errors that say what
//! would be right (and leave the inputs usable), empty batches work, f16 runs where the device
//! has it.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use webtensor::nn::{
    self, AdaptiveAvgPool2d, AttentionOptions, AvgPoolOptions, ClassLossOptions, Conv2d, ConvLayerOptions, ConvOptions,
    ConvPadding, ConvTransposeOptions, Flatten, InterpolateMode, InterpolateOptions, Linear, LinearOptions, MaxPool2d,
    MaxPoolOptions, Module, ReLU, Sequential,
};
use webtensor::optim::{Adam, AdamOptions, Optimizer};
use webtensor::{DType, Device, PadMode, Tensor};

device_main!(a_cnn_learns_and_matches_the_cpu, bad_arguments_get_clear_errors, empty_batches_and_f16);

/// Bars: class 0 has a horizontal bar, class 1 a vertical one, on noise.
fn bars(n: usize, d: Device) -> (Tensor, Tensor) {
    let noise = Tensor::rand(&[n, 1, 8, 8], Some(7), None).unwrap().to_vec_blocking::<f32>().unwrap();
    let mut x = noise.iter().map(|v| v * 0.3).collect::<Vec<f32>>();
    let mut y = vec![0i32; n];
    for (i, label) in y.iter_mut().enumerate() {
        *label = (i % 2) as i32;
        let at = 1 + (i * 5) % 6;
        for k in 0..8 {
            let (r, c) = if *label == 0 { (at, k) } else { (k, at) };
            x[i * 64 + r * 8 + c] += 1.0;
        }
    }
    (t(&x, &[n, 1, 8, 8], d), Tensor::from_slice(&y, &[n], d).unwrap())
}

fn cnn(d: Device) -> Sequential {
    let conv = |cin, cout, pad, seed| {
        let conv = ConvOptions { padding: ConvPadding::Explicit(vec![pad]), ..Default::default() };
        Conv2d::new(cin, cout, &[3], ConvLayerOptions { conv, seed: Some(seed), device: Some(d), ..Default::default() })
            .unwrap()
    };
    Sequential::new()
        .push(conv(1, 4, 1, 1))
        .unwrap()
        .push(ReLU::new())
        .unwrap()
        .push(MaxPool2d::new(&[2], MaxPoolOptions::default()))
        .unwrap()
        .push(conv(4, 8, 0, 2))
        .unwrap()
        .push(ReLU::new())
        .unwrap()
        .push(AdaptiveAvgPool2d::new(&[1]))
        .unwrap()
        .push(Flatten::default())
        .unwrap()
        .push(Linear::new(8, 2, LinearOptions { seed: Some(3), device: Some(d), ..Default::default() }).unwrap())
        .unwrap()
}

fn train(d: Device) -> Vec<f32> {
    let (x, y) = bars(16, d);
    let model = cnn(d);
    assert_eq!(model.state_dict()[0].0, "0.weight");
    assert_eq!(model.state_dict()[0].1.shape(), &[4, 1, 3, 3]);
    let mut opt = Adam::new(model.parameters(), AdamOptions { lr: 0.03, ..Default::default() }).unwrap();
    (0..25)
        .map(|_| {
            opt.zero_grad();
            let loss = nn::cross_entropy(&model.forward(&x).unwrap(), &y, ClassLossOptions::default()).unwrap();
            loss.backward().unwrap();
            opt.step().unwrap();
            loss.item_blocking::<f32>().unwrap()
        })
        .collect()
}

fn a_cnn_learns_and_matches_the_cpu(d: Device) {
    let losses = train(d);
    assert!(losses[24] < 0.3 * losses[0], "the CNN learns on {d}: {losses:?}");
    if d != Device::CPU {
        let cpu = train(Device::CPU);
        assert_close(&losses, &cpu, 2e-3, &format!("losses on {d} vs cpu"));
    }
}

fn expect_err(r: webtensor::Result<Tensor>, needle: &str, what: &str) {
    match r {
        Ok(t) => panic!("{what}: expected an error mentioning {needle:?}, got a tensor of shape {:?}", t.shape()),
        Err(e) => assert!(e.to_string().contains(needle), "{what}: {e} (wanted {needle:?})"),
    }
}

fn bad_arguments_get_clear_errors(d: Device) {
    let x = Tensor::randn(&[1, 4, 5, 5], Some(1), d).unwrap();
    let w = Tensor::randn(&[2, 4, 3, 3], Some(2), d).unwrap();
    let c = |o: ConvOptions| nn::conv2d(&x, &w, None, &o);
    expect_err(c(ConvOptions { groups: 0, ..Default::default() }), "groups", "zero groups");
    expect_err(c(ConvOptions { groups: 3, ..Default::default() }), "divide", "groups that do not divide");
    expect_err(c(ConvOptions { stride: vec![0], ..Default::default() }), "at least 1", "stride 0");
    expect_err(c(ConvOptions { stride: vec![1, 2, 3], ..Default::default() }), "give 1 or 2", "three strides");
    expect_err(
        c(ConvOptions { stride: vec![2], padding: ConvPadding::Same, ..Default::default() }),
        "stride 1",
        "same with stride",
    );
    expect_err(c(ConvOptions { dilation: vec![3], ..Default::default() }), "smaller than the kernel", "too small");
    expect_err(
        nn::conv2d(&x, &w, Some(&Tensor::zeros(&[3], DType::F32, d).unwrap()), &ConvOptions::default()),
        "bias",
        "bias",
    );
    expect_err(
        nn::conv2d(&x.to_dtype(DType::I32).unwrap(), &w, None, &ConvOptions::default()),
        "floating",
        "int input",
    );
    expect_err(nn::conv2d(&x.flatten().unwrap(), &w, None, &ConvOptions::default()), "4-D", "rank");
    expect_err(
        nn::conv_transpose2d(
            &x,
            &w.transpose(0, 1).unwrap(),
            None,
            &ConvTransposeOptions { output_padding: vec![1], ..Default::default() },
        ),
        "output_padding",
        "output padding past the stride",
    );
    let pool = |k: &[usize], o: MaxPoolOptions| nn::max_pool2d(&x, k, &o);
    expect_err(pool(&[3], MaxPoolOptions { padding: vec![2], ..Default::default() }), "half", "pool padding");
    expect_err(pool(&[0], MaxPoolOptions::default()), "at least 1", "kernel 0");
    expect_err(pool(&[7], MaxPoolOptions::default()), "smaller than the window", "window past the input");
    expect_err(
        nn::avg_pool2d(&x, &[2], &AvgPoolOptions { divisor_override: Some(0), ..Default::default() }),
        "divisor_override",
        "divisor 0",
    );
    expect_err(nn::adaptive_avg_pool2d(&x, &[0, 2]), "non-empty", "adaptive to nothing");
    expect_err(x.pad(&[1, 1, 1], PadMode::Constant, 0.0), "pairs", "odd pads");
    expect_err(x.pad(&[5, 0], PadMode::Reflect, 0.0), "less than the size", "reflect too far");
    expect_err(x.pad(&[-6, 0], PadMode::Constant, 0.0), "crop more", "crop too far");
    expect_err(x.slice_step(1, 0..4, 0), "step 0", "step 0");
    let o = InterpolateOptions { size: Some(vec![3]), scale_factor: Some(vec![2.0]), ..Default::default() };
    expect_err(nn::interpolate(&x, &o), "exactly one", "size and scale");
    let o = InterpolateOptions { size: Some(vec![3]), mode: InterpolateMode::Linear, ..Default::default() };
    expect_err(nn::interpolate(&x, &o), "3-D", "linear on 4-D");
    let (q, k) = (Tensor::randn(&[2, 3, 4], Some(3), d).unwrap(), Tensor::randn(&[2, 5, 3], Some(4), d).unwrap());
    expect_err(nn::scaled_dot_product_attention(&q, &k, &k, &AttentionOptions::default()), "key must be", "E mismatch");
    expect_err(x.one_hot(3), "integer", "one_hot of floats");
    // Sizes at the edges of the arithmetic are errors, not overflows or aborted allocations.
    expect_err(c(ConvOptions { dilation: vec![1 << 40], ..Default::default() }), "too large", "huge dilation");
    expect_err(c(ConvOptions { stride: vec![usize::MAX], ..Default::default() }), "too large", "huge stride");
    expect_err(
        c(ConvOptions { padding: ConvPadding::Explicit(vec![usize::MAX / 2]), ..Default::default() }),
        "too large",
        "huge padding",
    );
    expect_err(
        pool(&[3], MaxPoolOptions { dilation: vec![1 << 30], ..Default::default() }),
        "empty",
        "huge pool dilation",
    );
    let o = InterpolateOptions { scale_factor: Some(vec![1e30]), ..Default::default() };
    expect_err(nn::interpolate(&x, &o), "at most", "huge scale factor");
    let o = InterpolateOptions { size: Some(vec![1 << 25, 2]), mode: InterpolateMode::Bilinear, ..Default::default() };
    expect_err(nn::interpolate(&x, &o), "table", "huge interpolation matrix");
    expect_err(nn::adaptive_avg_pool2d(&x, &[1 << 30]), "table", "huge adaptive pooling");
    expect_err(x.pad(&[isize::MIN, 0], PadMode::Constant, 0.0), "crop more", "pad isize::MIN");
    expect_err(x.pad(&[isize::MAX, 0], PadMode::Constant, 0.0), "too", "pad isize::MAX");
    expect_err(
        nn::conv_transpose2d(
            &x,
            &w.transpose(0, 1).unwrap(),
            None,
            &ConvTransposeOptions { padding: vec![9], ..Default::default() },
        ),
        "must be positive",
        "transposed padding past the output",
    );
    // Nothing was lost: the inputs still compute.
    let y = nn::conv2d(&x, &w, None, &ConvOptions::default()).unwrap();
    assert_eq!(y.shape(), &[1, 2, 3, 3]);
    assert!(f32s(&y).iter().all(|v| v.is_finite()));
}

fn empty_batches_and_f16(d: Device) {
    let w = Tensor::randn(&[4, 3, 3, 3], Some(2), d).unwrap();
    let x = Tensor::zeros(&[0, 3, 5, 5], DType::F32, d).unwrap();
    let opts = ConvOptions { padding: ConvPadding::Same, ..Default::default() };
    assert_eq!(nn::conv2d(&x, &w, None, &opts).unwrap().shape(), &[0, 4, 5, 5]);
    assert_eq!(nn::max_pool2d(&x, &[2], &MaxPoolOptions::default()).unwrap().shape(), &[0, 3, 2, 2]);
    // No channels: the average pooling gradient is empty too.
    let none = Tensor::zeros(&[1, 0, 4, 4], DType::F32, d).unwrap().requires_grad_(true).unwrap();
    nn::avg_pool2d(&none, &[2], &AvgPoolOptions::default()).unwrap().sum_all().unwrap().backward().unwrap();
    assert_eq!(none.grad().unwrap().shape(), &[1, 0, 4, 4]);
    let x = Tensor::randn(&[2, 3, 6, 6], Some(5), d).unwrap();
    let o = InterpolateOptions { scale_factor: Some(vec![0.5]), mode: InterpolateMode::Bilinear, ..Default::default() };
    assert_eq!(nn::interpolate(&x, &o).unwrap().shape(), &[2, 3, 3, 3]);
    // Integers pool too (padding reads as i32::MIN, never as a maximum).
    let ints =
        Tensor::from_slice(&(0..50).map(|v| (v * 37 % 50) - 25).collect::<Vec<i32>>(), &[1, 2, 5, 5], d).unwrap();
    let o = MaxPoolOptions { stride: vec![2], padding: vec![1], ..Default::default() };
    let got = nn::max_pool2d(&ints, &[3], &o).unwrap();
    assert_eq!(got.dtype(), DType::I32);
    let want = nn::max_pool2d(&ints.to_dtype(DType::F32).unwrap(), &[3], &o).unwrap();
    assert_eq!(i32s(&got), i32s(&want), "i32 max pooling on {d}");
    if !has_f16(d) {
        return;
    }
    let want = f32s(&nn::conv2d(&x, &w, None, &opts).unwrap());
    let half = |t: &Tensor| t.to_dtype(DType::F16).unwrap();
    let got = nn::conv2d(&half(&x), &half(&w), None, &opts).unwrap();
    assert_eq!(got.dtype(), DType::F16);
    assert_close(&f32s(&got), &want, 2e-2, &format!("f16 conv2d on {d}"));
    let pooled = nn::max_pool2d(&half(&x), &[2], &MaxPoolOptions::default()).unwrap();
    assert_close(
        &f32s(&pooled),
        &f32s(&nn::max_pool2d(&x, &[2], &MaxPoolOptions::default()).unwrap()),
        1e-3,
        "f16 max_pool2d",
    );
}
