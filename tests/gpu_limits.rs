//! The wgpu execution model at its edges: dispatches beyond 65535 workgroups fold into 2-D,
//! oversized tensors are refused with the limit (uncaptured-error capture is in `isolated.rs`),
//! and f16 on an adapter without `shader-f16` is a clear `UnsupportedDType`.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;
use webtensor::{DType, Device, Error, Tensor};

fn dispatches_beyond_65535_workgroups_fold_into_2d(g: Device) {
    // 17M elements = 66407 workgroups of 256 threads: more than one grid dimension allows.
    let n = 17 << 20;
    let x = Tensor::ones(&[n], DType::F32, g).unwrap().add_scalar(1.0).unwrap();
    let tail = f32s(&x.narrow(0, n - 3, 3).unwrap());
    assert_eq!(tail, vec![2.0, 2.0, 2.0], "last elements of a folded dispatch");
    assert_eq!(f32s(&x.sum_all().unwrap()), vec![2.0 * n as f32]);
    // 70000 rows: one workgroup per row in reduce and softmax, folded too.
    let rows = Tensor::randn(&[70_000, 3], Some(5), g).unwrap();
    let cpu = rows.to_blocking(Device::CPU).unwrap();
    assert_close(&f32s(&rows.sum(&[1], false).unwrap()), &f32s(&cpu.sum(&[1], false).unwrap()), 1e-5, "70000-row sum");
    assert_close(&f32s(&rows.softmax(1).unwrap()), &f32s(&cpu.softmax(1).unwrap()), 1e-5, "70000-row softmax");
    assert_eq!(i32s(&rows.argmax(Some(1), false).unwrap()), i32s(&cpu.argmax(Some(1), false).unwrap()));
}

fn limit(g: Device, name: &str) -> u64 {
    let info = webtensor::devices().into_iter().find(|i| i.device == g).unwrap();
    info.limits.iter().find(|(n, _)| n == name).unwrap().1
}

fn tensors_beyond_one_binding_split_or_fail_clearly(g: Device) {
    let binding = limit(g, "max_storage_buffer_binding_size");
    // 200 MiB of f32 (past lavapipe's and browsers' 128 MiB binding limit), or just past the
    // binding where it is larger (2 GiB on NVIDIA's Vulkan driver), in whole 8192-element rows.
    let n = (50usize << 20).max((binding as usize / 4 + (1 << 20)) / 8192 * 8192);
    assert!((n * 4) as u64 > binding, "the test needs a tensor past the binding limit ({binding} bytes)");
    let host: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let x = Tensor::from_slice(&host, &[n], g).unwrap();
    let y = x.add_scalar(1.0).unwrap(); // split: x follows, the scalar is broadcast
    let z = x.add(&y).unwrap(); // split: both follow
    let want: f64 = (0..n).map(|i| 2.0 * (i % 1000) as f64 + 1.0).sum();
    let got = f32s(&z.sum_all().unwrap())[0] as f64;
    assert!((got - want).abs() / want < 1e-5, "sum of 200 MiB: {got} vs {want}");
    let back = z.to_blocking(Device::CPU).unwrap();
    let v = back.to_vec_blocking::<f32>().unwrap();
    assert_eq!(v.len(), n);
    for i in [0, 1, 999, 1000, n / 2 + 7, n - 1] {
        assert_eq!(v[i], 2.0 * (i % 1000) as f32 + 1.0, "element {i} after the round trip");
    }
    // A small view of a buffer past one binding is bound as a range.
    assert_eq!(f32s(&x.narrow(0, 1000, 3).unwrap().add_scalar(1.0).unwrap()), vec![1.0, 2.0, 3.0]);
    assert_eq!(f32s(&x.narrow(0, n - 2000, 1000).unwrap().sum_all().unwrap()), vec![499500.0]);
    // Fused dropout in pieces, each continuing the counters: the CPU's mask, also for a view
    // whose offset is not a piece boundary.
    let cpu = x.to_blocking(Device::CPU).unwrap();
    for (at, len) in [(0, n), (3, n - 3)] {
        let on_gpu = webtensor::nn::dropout(&x.narrow(0, at, len).unwrap(), 0.5, true, Some(3)).unwrap();
        let want = webtensor::nn::dropout(&cpu.narrow(0, at, len).unwrap(), 0.5, true, Some(3)).unwrap();
        assert!(f32s(&on_gpu) == f32s(&want), "dropout of {len} elements from {at} split across bindings");
    }
    // Constant padding past one binding: the one-pass kernel takes one binding, and the strided
    // copy into the interior cannot split, so it says so by the op's name.
    let rows = x.reshape(&[-1, 8192]).unwrap();
    let err = rows.pad(&[1, 2], webtensor::PadMode::Constant, -1.0).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("pad") && msg.contains("max_storage_buffer_binding_size"), "{msg}");
    // Within one binding it pads in one pass.
    let small = Tensor::from_slice(&host[..16384], &[2, 8192], g).unwrap();
    let small = small.pad(&[1, 2], webtensor::PadMode::Constant, -1.0).unwrap();
    let want: Vec<f32> =
        std::iter::once(-1.0).chain((8192..16384).map(|i| (i % 1000) as f32)).chain([-1.0, -1.0]).collect();
    assert_eq!(f32s(&small.narrow(0, 1, 1).unwrap()), want, "the second padded row");
    let e = x.mul_scalar(0.0).unwrap().exp().unwrap(); // split map
    assert_eq!(f32s(&e.sum_all().unwrap()), vec![n as f32]);
    assert_eq!(f32s(&Tensor::zeros(&[n], DType::F32, g).unwrap().max_all().unwrap()), vec![0.0]);
    // Reductions over rows split into groups of whole rows: one pass for short rows...
    let rows = x.reshape(&[-1, 1024]).unwrap();
    let sums = f32s(&rows.sum(&[1], false).unwrap());
    assert_eq!(sums.len(), n / 1024);
    let row_sum = |r: usize| (0..1024).map(|j| ((r * 1024 + j) % 1000) as f32).sum::<f32>();
    for r in [0, 1, 777, n / 1024 - 1] {
        assert_eq!(sums[r], row_sum(r), "row {r}");
    }
    let arg = i32s(&rows.argmax(Some(1), false).unwrap());
    assert_eq!(arg[0], 999);
    // ...and through partial results for long rows (8192 > one workgroup's chunk).
    let long = x.reshape(&[-1, 8192]).unwrap().max(&[1], false).unwrap();
    assert_eq!(f32s(&long), vec![999.0; n / 8192]);
    // An op that cannot split says which limit it hit, and the device goes on.
    let err = rows.softmax(-1).unwrap_err();
    assert!(
        matches!(err, Error::TooLarge { .. }) && err.to_string().contains("max_storage_buffer_binding_size"),
        "{err}"
    );
    assert!(err.to_string().starts_with("softmax"), "the error names the op: {err}");
    // An optimizer step over a parameter past one binding (the separate ops, which split) and a
    // small one (the fused kernel) in one group, with the fused kernels asked for everywhere:
    // each gets its update.
    webtensor::set_fused_kernels(webtensor::FusedKernels::Always);
    let big = webtensor::nn::Parameter::new(&x).unwrap();
    let small = webtensor::nn::Parameter::new(&Tensor::ones(&[5], DType::F32, g).unwrap()).unwrap();
    big.tensor().set_grad(Some(Tensor::ones(&[n], DType::F32, g).unwrap())).unwrap();
    small.tensor().set_grad(Some(Tensor::ones(&[5], DType::F32, g).unwrap())).unwrap();
    let sgd = webtensor::optim::SgdOptions { lr: 0.5, ..Default::default() };
    let mut opt = webtensor::optim::SGD::new(vec![big.clone(), small.clone()], sgd).unwrap();
    use webtensor::optim::Optimizer;
    opt.step().unwrap();
    webtensor::set_fused_kernels(webtensor::FusedKernels::Auto);
    assert_eq!(f32s(&small.tensor()), vec![0.5; 5], "the small parameter, fused");
    let stepped = big.tensor();
    for i in [0, 999, n / 2 + 7, n - 1] {
        let got = f32s(&stepped.narrow(0, i, 1).unwrap())[0];
        assert_eq!(got, (i % 1000) as f32 - 0.5, "element {i} of the parameter past one binding");
    }
    drop((opt, big, small, stepped));
    // Past max_buffer_size nothing can be allocated: a clear error, before any allocation.
    let too_many = (limit(g, "max_buffer_size") / 4 + 1) as usize;
    let err = Tensor::zeros(&[too_many], DType::F32, g).unwrap_err();
    assert!(err.to_string().contains("max_buffer_size"), "{err}");
    assert_eq!(f32s(&Tensor::ones(&[4], DType::F32, g).unwrap().sum_all().unwrap()), vec![4.0]);
}

fn f16_without_shader_f16_is_a_clear_error(d: Device) {
    let x = t(&[1.0, 2.0], &[2], d);
    for r in
        [x.to_dtype(DType::F16), Tensor::zeros(&[2], DType::F16, d), Tensor::from_slice(&[half::f16::ONE], &[1], d)]
    {
        let e = r.unwrap_err();
        assert!(matches!(e, Error::UnsupportedDType { dtype: DType::F16, .. }), "{e:?}");
        assert!(e.to_string().contains("shader-f16"), "{e}");
    }
    assert!(
        x.to_dtype(DType::F16).unwrap_err().to_string().starts_with("to_dtype: dtype f16"),
        "the error names the user's op"
    );
    // f32 on the same device still works.
    assert_eq!(f32s(&x.add_scalar(1.0).unwrap()), vec![2.0, 3.0]);
}

device_main!(; gpu: dispatches_beyond_65535_workgroups_fold_into_2d, tensors_beyond_one_binding_split_or_fail_clearly;
    fixtures: [common::trials::no_f16_trial("f16_without_shader_f16_is_a_clear_error", f16_without_shader_f16_is_a_clear_error)]);
