//! `nn::utils::clip_grad_norm_` and `clip_grad_value_` against PyTorch
//! (`tests/fixtures/clip.json`, by `scripts/gen_clip_fixtures.py`: norm types 2, 1, inf and 3,
//! max_norm below and above the total, a parameter without a gradient), on every device; the
//! total norm stays on the device; `error_if_nonfinite` refuses before changing anything; many
//! gradients go a few a launch (`op::fused::foreach`) with the composed result.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::{device_main, fixture_trials};
use common::*;
use serde_json::Value;

use webtensor::nn::utils::{clip_grad_norm_, clip_grad_value_, ClipGradNormOptions};
use webtensor::nn::Parameter;
use webtensor::{Device, Tensor};

device_main!(nonfinite_norms_refused_when_asked, two_norms_of_every_size, many_gradients_a_few_a_launch; fixtures: fixture_trials("clip.json", 6, clipping_matches_pytorch));

fn clipping_matches_pytorch(c: &Value, d: Device) {
    let params: Vec<Parameter> = c["params"]
        .as_array()
        .expect("params")
        .iter()
        .map(|p| {
            let shape = usizes(&p["shape"]);
            let param = Parameter::new(&Tensor::zeros(&shape, webtensor::DType::F32, d).unwrap()).unwrap();
            if p["grad"].is_array() {
                param.tensor().set_grad(Some(t(&floats(&p["grad"]), &shape, d))).unwrap();
            }
            param
        })
        .collect();
    let name = c["fn"].as_str().expect("fn");
    if name == "clip_grad_norm_" {
        let norm_type = if c["norm_type"] == "inf" { f64::INFINITY } else { c["norm_type"].as_f64().expect("p") };
        let options = ClipGradNormOptions { norm_type, ..Default::default() };
        let total = clip_grad_norm_(&params, c["max_norm"].as_f64().expect("max_norm"), options).unwrap();
        assert_eq!(total.device(), d, "the norm stays on the device");
        assert_close(
            &f32s(&total),
            &[c["total_norm"].as_f64().unwrap() as f32],
            1e-5,
            &format!("{name} p={norm_type} total on {d}"),
        );
    } else {
        clip_grad_value_(&params, c["clip_value"].as_f64().expect("clip_value")).unwrap();
    }
    for (k, (p, want)) in params.iter().zip(c["after"].as_array().expect("after")).enumerate() {
        match p.grad() {
            Some(g) => assert_close(&f32s(&g), &floats(want), 1e-5, &format!("{name} grad {k} on {d}")),
            None => assert!(want.is_null(), "{name}: grad {k} appeared"),
        }
    }
}

/// The 2-norm's sums of squares (one fused call per f32 gradient: chunks of at least 4096
/// elements, at most 1024 of them) against `sqrt(sum(g^2))` composed on the CPU: empty, one
/// element, a chunk and a bit, past 1024 chunks, and a transposed gradient.
fn two_norms_of_every_size(d: Device) {
    for n in [0usize, 1, 4095, 3 * 4096 + 7, 4096 * 1024 + 4099] {
        let g = Tensor::randn(&[n], Some(n as u64), Device::CPU).unwrap();
        let param = Parameter::new(&Tensor::zeros(&[n], webtensor::DType::F32, d).unwrap()).unwrap();
        param.tensor().set_grad(Some(g.to_blocking(d).unwrap())).unwrap();
        let total = clip_grad_norm_(&[param], f64::INFINITY, ClipGradNormOptions::default()).unwrap();
        let want = g.square().unwrap().sum_all().unwrap().sqrt().unwrap();
        assert_close(&f32s(&total), &f32s(&want), 1e-5, &format!("the 2-norm of {n} elements on {d}"));
    }
    let g = Tensor::randn(&[300, 70], Some(9), Device::CPU).unwrap();
    let param = Parameter::new(&Tensor::zeros(&[70, 300], webtensor::DType::F32, d).unwrap()).unwrap();
    param.tensor().set_grad(Some(g.to_blocking(d).unwrap().t().unwrap())).unwrap();
    let total = clip_grad_norm_(&[param], f64::INFINITY, ClipGradNormOptions::default()).unwrap();
    let want = g.square().unwrap().sum_all().unwrap().sqrt().unwrap();
    assert_close(&f32s(&total), &f32s(&want), 1e-5, &format!("a transposed gradient's 2-norm on {d}"));
}

/// Thirteen gradients (more than two multi-tensor calls take) of assorted sizes, one empty,
/// one of several chunks, one a view at an offset of a larger tensor and one transposed: the
/// total norm and every clipped gradient equal the composed formula on the CPU, and on GPUs the
/// clipping takes a few launches, not two or more per gradient.
fn many_gradients_a_few_a_launch(d: Device) {
    let sizes = [3usize, 384, 0, 1, 4096 * 3 + 5, 17, 128, 5, 64, 9, 1000, 2, 33];
    let mut params = Vec::new();
    let mut want_sq = 0.0f64;
    let mut grads = Vec::new();
    for (k, &n) in sizes.iter().enumerate() {
        let g = Tensor::randn(&[n], Some(100 + k as u64), Device::CPU).unwrap();
        want_sq += f32s(&g).iter().map(|&v| f64::from(v) * f64::from(v)).sum::<f64>();
        let on = match k {
            // A view at an offset of a larger tensor (the narrow of a cat).
            4 => {
                let pad = Tensor::zeros(&[7], webtensor::DType::F32, Device::CPU).unwrap();
                Tensor::cat(&[pad, g.clone()], 0).unwrap().to_blocking(d).unwrap().narrow(0, 7, n).unwrap()
            }
            _ => g.to_blocking(d).unwrap(),
        };
        let param = Parameter::new(&Tensor::zeros(&[n], webtensor::DType::F32, d).unwrap()).unwrap();
        param.tensor().set_grad(Some(on)).unwrap();
        params.push(param);
        grads.push(g);
    }
    let g = Tensor::randn(&[30, 7], Some(99), Device::CPU).unwrap();
    want_sq += f32s(&g).iter().map(|&v| f64::from(v) * f64::from(v)).sum::<f64>();
    let param = Parameter::new(&Tensor::zeros(&[7, 30], webtensor::DType::F32, d).unwrap()).unwrap();
    param.tensor().set_grad(Some(g.to_blocking(d).unwrap().t().unwrap())).unwrap();
    params.push(param);
    grads.push(g.t().unwrap().contiguous().unwrap());
    webtensor::synchronize_blocking(d).unwrap();
    let before = webtensor::kernel_launches(d).unwrap();
    let max_norm = 0.5;
    let total = clip_grad_norm_(&params, max_norm, ClipGradNormOptions::default()).unwrap();
    let got = f32s(&total)[0];
    let launches = webtensor::kernel_launches(d).unwrap() - before;
    let want = want_sq.sqrt();
    assert!((f64::from(got) - want).abs() <= 1e-5 * want, "the total norm on {d}: {got} against {want}");
    let coef = (max_norm / (want + 1e-6)).min(1.0);
    for (k, (p, g)) in params.iter().zip(&grads).enumerate() {
        let expect: Vec<f32> = f32s(g).iter().map(|&v| (f64::from(v) * coef) as f32).collect();
        assert_close(&f32s(&p.grad().unwrap()), &expect, 1e-5, &format!("clipped gradient {k} on {d}"));
    }
    if d != Device::CPU {
        // Three sums of squares in two stages each, the transposed gradient's copy, the norms'
        // stack and sum, the coefficient's scalar ops and three scales: 17 on lavapipe, where a
        // sum and a product per gradient took 33.
        assert!(launches <= 20, "{launches} launches to clip 14 gradients on {d}");
    }
}

fn nonfinite_norms_refused_when_asked(d: Device) {
    let p = Parameter::new(&Tensor::zeros(&[2], webtensor::DType::F32, d).unwrap()).unwrap();
    p.tensor().set_grad(Some(t(&[f32::INFINITY, 1.0], &[2], d))).unwrap();
    let options = ClipGradNormOptions { error_if_nonfinite: true, ..Default::default() };
    let e = clip_grad_norm_(std::slice::from_ref(&p), 1.0, options).unwrap_err();
    assert!(e.to_string().contains("error_if_nonfinite"), "{e}");
    assert_eq!(f32s(&p.grad().unwrap()), vec![f32::INFINITY, 1.0], "nothing changed");
    let total = clip_grad_norm_(std::slice::from_ref(&p), 1.0, ClipGradNormOptions::default()).unwrap();
    assert!(f32s(&total)[0].is_infinite());
    let none = Parameter::new(&Tensor::zeros(&[2], webtensor::DType::F32, d).unwrap()).unwrap();
    assert_eq!(f32s(&clip_grad_norm_(&[none], 1.0, Default::default()).unwrap()), vec![0.0]);
    assert!(clip_grad_value_(&[p], -1.0).is_err());
}
