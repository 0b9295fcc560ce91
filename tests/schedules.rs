//! Issue 45's optimizer pieces: parameter groups (each with its own learning rate and weight
//! decay, a parameter in two groups refused) and `lr_scheduler` equal to PyTorch's learning rate
//! at every step (`tests/fixtures/schedules.json`, by `scripts/gen_schedule_fixtures.py`: two
//! groups; LambdaLR, StepLR, LinearLR, CosineAnnealingLR past its period, and nanoGPT's linear
//! warmup then cosine as SequentialLR).
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use webtensor::nn::Parameter;
use webtensor::optim::lr_scheduler::{CosineAnnealingLR, LambdaLR, LinearLR, LrScheduler, SequentialLR, StepLR};
use webtensor::optim::{AdamOptions, AdamW, Optimizer, ParamGroup, SgdOptions, SGD};
use webtensor::{DType, Device, Tensor};

fn param(n: usize) -> Parameter {
    Parameter::new(&Tensor::zeros(&[n], DType::F32, Device::CPU).unwrap()).unwrap()
}

fn two_groups() -> SGD {
    let group = |lr| ParamGroup { params: vec![param(2)], options: SgdOptions { lr, ..Default::default() } };
    SGD::with_groups(vec![group(0.1), group(0.03)]).unwrap()
}

fn schedules_match_pytorch_at_every_step() {
    let f = fixture_json("schedules.json");
    let cases = f["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 5);
    for c in cases {
        let a = &c["args"];
        let num = |k: &str| a[k].as_f64().unwrap_or_else(|| panic!("{k}"));
        let mut opt = two_groups();
        let mut s: Box<dyn LrScheduler> = match a["kind"].as_str().expect("kind") {
            "lambda" => {
                let base = num("base");
                Box::new(LambdaLR::new(&mut opt, move |e| base.powi(e as i32)).unwrap())
            }
            "step" => Box::new(StepLR::new(&mut opt, num("step_size") as usize, num("gamma")).unwrap()),
            "linear" => Box::new(
                LinearLR::new(&mut opt, num("start_factor"), num("end_factor"), num("total_iters") as usize).unwrap(),
            ),
            "cosine" => Box::new(CosineAnnealingLR::new(&mut opt, num("t_max") as usize, num("eta_min")).unwrap()),
            "sequential" => {
                let warm = LinearLR::new(&mut opt, 0.01, 1.0, num("warmup") as usize).unwrap();
                let cos = CosineAnnealingLR::new(&mut opt, num("t_max") as usize, num("eta_min")).unwrap();
                Box::new(
                    SequentialLR::new(&mut opt, vec![Box::new(warm), Box::new(cos)], &[num("warmup") as usize])
                        .unwrap(),
                )
            }
            other => panic!("unknown schedule {other}"),
        };
        for (step, want) in c["lrs"].as_array().expect("lrs").iter().enumerate() {
            if step > 0 {
                opt.step().unwrap();
                s.step(&mut opt).unwrap();
            }
            for g in 0..2 {
                let w = want[g].as_f64().expect("lr");
                let got = opt.group_lr(g).unwrap();
                assert!(
                    (got - w).abs() <= 1e-12 * w.abs().max(1e-12),
                    "{} step {step} group {g}: {got} vs PyTorch's {w}",
                    c["name"]
                );
            }
            if step > 0 {
                assert_eq!(s.last_lr(), vec![opt.group_lr(0).unwrap(), opt.group_lr(1).unwrap()]);
            }
        }
    }
}

fn parameter_groups_have_their_own_options() {
    let ones = || Parameter::new(&Tensor::ones(&[3], DType::F32, Device::CPU).unwrap()).unwrap();
    let (decay, keep) = (ones(), ones());
    for p in [&decay, &keep] {
        p.tensor().set_grad(Some(Tensor::zeros(&[3], DType::F32, Device::CPU).unwrap())).unwrap();
    }
    let base = AdamOptions { lr: 0.1, ..Default::default() };
    let mut opt = AdamW::with_groups(vec![
        ParamGroup { params: vec![decay.clone()], options: AdamOptions { weight_decay: 0.5, ..base } },
        ParamGroup { params: vec![keep.clone()], options: AdamOptions { weight_decay: 0.0, ..base } },
    ])
    .unwrap();
    assert_eq!((opt.param_group_count(), opt.params().len()), (2, 2));
    opt.step().unwrap();
    // Zero gradients: only the decoupled weight decay moves a parameter (1 - lr wd).
    assert_close(&f32s(&decay.tensor()), &[0.95; 3], 1e-6, "decayed group");
    assert_close(&f32s(&keep.tensor()), &[1.0; 3], 0.0, "group without decay");
    opt.set_group_lr(1, 0.5).unwrap();
    assert_eq!((opt.group_lr(0), opt.group_lr(1)), (Some(0.1), Some(0.5)));
    assert!(opt.set_group_lr(2, 0.1).unwrap_err().to_string().contains("no parameter group 2"));
    let twice = AdamW::with_groups(vec![
        ParamGroup { params: vec![decay.clone()], options: base },
        ParamGroup { params: vec![decay.clone()], options: base },
    ]);
    assert!(twice.err().expect("refused").to_string().contains("more than one parameter group"));
}

/// RMSprop against PyTorch (`tests/fixtures/optim.json`): its defaults, and momentum with the
/// centered form and weight decay, six steps of given gradients, on every device.
fn rmsprop_matches_pytorch(d: Device) {
    use webtensor::optim::{RMSprop, RmspropOptions};
    let f = fixture_json("optim.json");
    for run in f["runs"].as_array().expect("runs") {
        let o = &run["options"];
        let num = |k: &str, dflt: f64| o[k].as_f64().unwrap_or(dflt);
        let options = RmspropOptions {
            lr: num("lr", 0.01),
            alpha: num("alpha", 0.99),
            eps: num("eps", 1e-8),
            weight_decay: num("weight_decay", 0.0),
            momentum: num("momentum", 0.0),
            centered: o["centered"].as_bool().unwrap_or(false),
        };
        let params: Vec<Parameter> = run["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| Parameter::new(&t(&floats(&p["data"]), &usizes(&p["shape"]), d)).unwrap())
            .collect();
        let mut opt = RMSprop::new(params.clone(), options).unwrap();
        for (i, s) in run["steps"].as_array().unwrap().iter().enumerate() {
            for (p, g) in params.iter().zip(s["grads"].as_array().unwrap()) {
                p.tensor().set_grad(Some(t(&floats(g), &p.shape(), d))).unwrap();
            }
            opt.step().unwrap();
            for (k, (p, want)) in params.iter().zip(s["after"].as_array().unwrap()).enumerate() {
                assert_close(
                    &f32s(&p.tensor()),
                    &floats(want),
                    1e-5,
                    &format!("{} step {i} param {k} on {d}", run["name"]),
                );
            }
        }
    }
}

device_main!(rmsprop_matches_pytorch, state_dict_resumes_training; plain: schedules_match_pytorch_at_every_step, parameter_groups_have_their_own_options);

/// A saved optimizer state resumes training exactly: 3 steps, save, 3 more, against 3 steps,
/// load into a fresh optimizer over the same values, 3 more (Adam, SGD with momentum, RMSprop
/// centered with momentum); learning rates and initial ones come back; mismatches are refused.
fn state_dict_resumes_training(d: Device) {
    use webtensor::optim::{Adam, RMSprop, RmspropOptions};
    let make = |kind: usize, params: Vec<Parameter>| -> Box<dyn Optimizer> {
        match kind {
            0 => Box::new(Adam::new(params, AdamOptions { lr: 0.05, ..Default::default() }).unwrap()),
            1 => Box::new(SGD::new(params, SgdOptions { lr: 0.1, momentum: 0.9, ..Default::default() }).unwrap()),
            _ => Box::new(
                RMSprop::new(params, RmspropOptions { momentum: 0.5, centered: true, ..Default::default() }).unwrap(),
            ),
        }
    };
    let grads = |step: usize| t(&[0.3 + step as f32, -0.2, 0.1 * step as f32], &[3], d);
    for kind in 0..3 {
        let p = Parameter::new(&t(&[1.0, 2.0, 3.0], &[3], d)).unwrap();
        let mut opt = make(kind, vec![p.clone()]);
        for step in 0..6 {
            if step == 3 {
                // Resume: a fresh optimizer over a copy of the values, given the saved state.
                let saved = opt.state_dict();
                let q = Parameter::new(&p.tensor()).unwrap();
                let mut resumed = make(kind, vec![q.clone()]);
                resumed.set_initial_lr(0, 123.0);
                resumed.load_state_dict(&saved).unwrap();
                assert_eq!(resumed.group_lr(0), opt.group_lr(0));
                for s in 3..6 {
                    q.tensor().set_grad(Some(grads(s))).unwrap();
                    resumed.step().unwrap();
                }
                for s in 3..6 {
                    p.tensor().set_grad(Some(grads(s))).unwrap();
                    opt.step().unwrap();
                }
                assert_close(&f32s(&q.tensor()), &f32s(&p.tensor()), 1e-6, &format!("optimizer {kind} resumed on {d}"));
                let mut wrong = make(kind, vec![param(3), param(3)]);
                assert!(wrong.load_state_dict(&saved).is_err(), "a state for one parameter into two");
                break;
            }
            p.tensor().set_grad(Some(grads(step))).unwrap();
            opt.step().unwrap();
        }
    }
}
