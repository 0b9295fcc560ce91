//! Issue 44's multi-tensor optimizer step: parameters sharing a step go to the backend together,
//! which updates up to eight a launch on wgpu (with the fused kernels asked for everywhere, as
//! here, on the CPU adapters too), binding each distinct buffer once. Checked against the same
//! optimizers as separate ops (`fused: false`) over many parameters of awkward sizes (empty,
//! one element, past a workgroup, odd) in two groups, with a frozen parameter and an f16 one
//! among them; the launches a step costs; and that the new parameters (views of shared flat
//! outputs) save, load and resume like any other (the optimizer's state, and the parameters
//! through .safetensors).
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::*;

use webtensor::nn::Parameter;
use webtensor::optim::{Adam, AdamOptions, AdamW, Optimizer, ParamGroup, SgdOptions, SGD};
use webtensor::{DType, Device};

fn main() {
    use common::trials::{device_trials, gpu_trial, no_f16_trial, run_in_order};
    // Eight parameters a launch on the CPU adapters too (by default one: it measured slower
    // there), so that the suite runs the multi-tensor kernel wherever it runs.
    webtensor::set_fused_kernels(webtensor::FusedKernels::Always);
    let mut t = device_trials("many_parameters_match_separate_ops", many_parameters_match_separate_ops);
    t.push(no_f16_trial("many_parameters_match_separate_ops", many_parameters_match_separate_ops));
    t.extend(device_trials("state_of_shared_outputs_saves_and_resumes", state_of_shared_outputs_saves_and_resumes));
    t.push(gpu_trial("a_step_launches_a_kernel_per_eight_parameters", a_step_launches_a_kernel_per_eight_parameters));
    t.push(no_f16_trial(
        "a_step_launches_a_kernel_per_eight_parameters",
        a_step_launches_a_kernel_per_eight_parameters,
    ));
    // Launch counts are per device: one trial at a time.
    run_in_order(t)
}

const SHAPES: &[&[usize]] =
    &[&[3], &[1], &[0], &[17, 5], &[128], &[4097], &[2, 3, 4], &[1000], &[7], &[64, 64], &[5], &[300], &[2], &[33, 3]];

fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n).map(|i| (((i * 37 + seed * 101) % 211) as f32 / 105.0 - 1.0) * 0.5).collect()
}

/// The parameters on `d`: SHAPES, plus an f16 one where `d` has f16.
fn params(d: Device) -> Vec<Parameter> {
    let mut ps: Vec<Parameter> = SHAPES
        .iter()
        .enumerate()
        .map(|(k, s)| Parameter::new(&t(&values(s.iter().product(), k), s, d)).unwrap())
        .collect();
    if has_f16(d) {
        let h = t(&values(6, 99), &[6], d).to_dtype(DType::F16).unwrap();
        ps.push(Parameter::new(&h).unwrap());
    }
    ps
}

/// Gradients for step `step`; parameter 4 stays frozen (no gradient, skipped).
fn set_grads(ps: &[Parameter], step: usize) {
    for (k, p) in ps.iter().enumerate() {
        let v = p.tensor();
        let g = if k == 4 {
            None
        } else {
            let g = t(&values(v.numel(), 7 * k + step + 1), v.shape(), v.device());
            Some(g.to_dtype(v.dtype()).unwrap())
        };
        v.set_grad(g).unwrap();
    }
}

fn groups<O: Clone>(ps: Vec<Parameter>, a: O, b: O) -> Vec<ParamGroup<O>> {
    let (first, rest) = ps.split_at(SHAPES.len() / 2);
    vec![ParamGroup { params: first.to_vec(), options: a }, ParamGroup { params: rest.to_vec(), options: b }]
}

type Make = fn(Vec<Parameter>, bool) -> Box<dyn Optimizer>;

fn makers() -> Vec<(&'static str, Make)> {
    vec![
        ("AdamW", |ps, fused| {
            let o = |wd| AdamOptions { lr: 0.01, weight_decay: wd, fused, ..Default::default() };
            Box::new(AdamW::with_groups(groups(ps, o(0.1), o(0.0))).unwrap())
        }),
        ("Adam", |ps, fused| {
            let o = |wd| AdamOptions { lr: 0.02, weight_decay: wd, betas: (0.8, 0.99), fused, ..Default::default() };
            Box::new(Adam::with_groups(groups(ps, o(0.01), o(0.0))).unwrap())
        }),
        ("SGD", |ps, fused| {
            let o = |nesterov| SgdOptions {
                lr: 0.1,
                momentum: 0.9,
                nesterov,
                weight_decay: 0.01,
                fused,
                ..Default::default()
            };
            Box::new(SGD::with_groups(groups(ps, o(true), o(false))).unwrap())
        }),
        ("SGD without momentum", |ps, fused| {
            let o = |lr| SgdOptions { lr, fused, ..Default::default() };
            Box::new(SGD::with_groups(groups(ps, o(0.1), o(0.05))).unwrap())
        }),
    ]
}

fn many_parameters_match_separate_ops(d: Device) {
    for (name, make) in makers() {
        let (a, b) = (params(d), params(d));
        let (mut fused, mut separate) = (make(a.clone(), true), make(b.clone(), false));
        for step in 0..3 {
            set_grads(&a, step);
            set_grads(&b, step);
            fused.step().unwrap();
            separate.step().unwrap();
        }
        for (k, (p, q)) in a.iter().zip(&b).enumerate() {
            let (p, q) = (p.tensor(), q.tensor());
            assert_eq!(p.shape(), q.shape());
            assert_eq!(p.dtype(), q.dtype(), "{name}: parameter {k} keeps its dtype");
            assert_close(&f32s(&p), &f32s(&q), 2e-6, &format!("{name} parameter {k} on {d}"));
            assert!(p.grad().is_some() || k == 4, "{name}: the gradient stays until zero_grad");
        }
        assert_eq!(f32s(&a[4].tensor()), values(128, 4), "{name}: the frozen parameter is untouched");
        let (sf, ss) = (fused.state_dict(), separate.state_dict());
        for (k, (x, y)) in sf.params.iter().zip(&ss.params).enumerate() {
            let (x, y) = (x.as_ref(), y.as_ref());
            assert_eq!(x.is_some(), y.is_some(), "{name}: state of parameter {k}");
            for ((nx, tx), (ny, ty)) in x.iter().flat_map(|s| &s.buffers).zip(y.iter().flat_map(|s| &s.buffers)) {
                assert_eq!(nx, ny);
                assert_close(&f32s(tx), &f32s(ty), 2e-6, &format!("{name} {nx} of parameter {k} on {d}"));
            }
        }
    }
}

/// New parameters and states are views of flat outputs several parameters share: a state saved
/// from them loads into a fresh optimizer, which then steps exactly as the original does.
fn state_of_shared_outputs_saves_and_resumes(d: Device) {
    let o = AdamOptions { lr: 0.01, weight_decay: 0.1, ..Default::default() };
    let a = params(d);
    let mut opt = AdamW::new(a.clone(), o).unwrap();
    for step in 0..2 {
        set_grads(&a, step);
        opt.step().unwrap();
    }
    // A copy of every parameter (on the CPU and back) and of the optimizer's state.
    let b: Vec<Parameter> = a
        .iter()
        .map(|p| Parameter::new(&p.tensor().to_blocking(Device::CPU).unwrap().to_blocking(d).unwrap()).unwrap())
        .collect();
    let mut resumed = AdamW::new(b.clone(), o).unwrap();
    resumed.load_state_dict(&opt.state_dict()).unwrap();
    set_grads(&a, 2);
    set_grads(&b, 2);
    opt.step().unwrap();
    resumed.step().unwrap();
    for (k, (p, q)) in a.iter().zip(&b).enumerate() {
        assert_eq!(f32s(&p.tensor()), f32s(&q.tensor()), "parameter {k} after resuming on {d}");
    }
    // The parameters (views of shared outputs) save to .safetensors and load back as they are.
    let dict: Vec<(String, webtensor::Tensor)> =
        a.iter().enumerate().map(|(k, p)| (format!("p{k}"), p.tensor().detach())).collect();
    let bytes = webtensor::nn::save_safetensors_blocking(&dict, &[]).unwrap();
    let loaded = webtensor::nn::load_safetensors(&bytes, Some(d)).unwrap();
    assert_eq!(loaded.len(), dict.len());
    for (name, want) in &dict {
        let got = &loaded.iter().find(|(n, _)| n == name).expect("every parameter saved").1;
        assert_eq!(got.shape(), want.shape());
        assert_eq!(f32s(got), f32s(want), "{name} through .safetensors on {d}");
    }
}

/// After its first step AdamW over 18 f32 parameters with gradients binds the previous step's
/// flat outputs and the gradients: ceil(18 / 8) = 3 launches where the adapter binds 3 + 8
/// inputs and 3 outputs, never more than one per two parameters (an adapter with WebGPU's
/// minimum of 8 storage bindings).
fn a_step_launches_a_kernel_per_eight_parameters(d: Device) {
    let ps: Vec<Parameter> = (0..18).map(|k| Parameter::new(&t(&values(100 + k, k), &[100 + k], d)).unwrap()).collect();
    let mut opt = AdamW::new(ps.clone(), AdamOptions::default()).unwrap();
    let mut counts = Vec::new();
    for step in 0..3 {
        set_grads(&ps, step);
        // The gradients are uploaded before the count starts.
        webtensor::synchronize_blocking(d).unwrap();
        let before = webtensor::kernel_launches(d).unwrap();
        opt.step().unwrap();
        counts.push(webtensor::kernel_launches(d).unwrap() - before);
    }
    for c in &counts {
        assert!(*c >= 3 && *c <= 9, "{counts:?} launches a step for 18 parameters on {d}");
    }
    if d == Device::webgpu(0) {
        assert_eq!(counts[1..], [3, 3], "lavapipe binds many storage buffers: 8 parameters a launch");
    }
}
