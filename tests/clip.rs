//! `nn::utils::clip_grad_norm_` and `clip_grad_value_` against PyTorch
//! (`tests/fixtures/clip.json`, by `scripts/gen_clip_fixtures.py`: norm types 2, 1, inf and 3,
//! max_norm below and above the total, a parameter without a gradient), on every device; the
//! total norm stays on the device; `error_if_nonfinite` refuses before changing anything.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::{device_main, fixture_trials};
use common::*;
use serde_json::Value;

use webtensor::nn::utils::{clip_grad_norm_, clip_grad_value_, ClipGradNormOptions};
use webtensor::nn::Parameter;
use webtensor::{Device, Tensor};

device_main!(nonfinite_norms_refused_when_asked, two_norms_of_every_size; fixtures: fixture_trials("clip.json", 6, clipping_matches_pytorch));

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
