//! PyTorch's device semantics and the error contract: `to` is not in place, mismatches name both
//! devices, helpers built from `x.device()`/`x.dtype()` work anywhere, `synchronize` waits for
//! the GPU, meta tensors have shapes but no data, and bad input gets a clear `Error`.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

device_main!(helpers_from_device_and_dtype_work_everywhere, bad_input_gives_clear_errors_and_loses_nothing, sizes_that_cannot_be_addressed_are_errors_not_panics; meta: helpers_from_device_and_dtype_work_everywhere, bad_input_gives_clear_errors_and_loses_nothing, sizes_that_cannot_be_addressed_are_errors_not_panics; gpu: to_returns_a_new_tensor_and_leaves_the_original, device_mismatch_names_both_devices; plain: meta_tensors_have_shapes_but_no_data, devices_parse_and_unknown_devices_name_what_exists, best_and_default_devices, sizes_that_cannot_be_addressed_are_errors_not_panics_beyond_devices, random_api_calls_never_panic, tensorflow_device_strings_and_accelerator_indices, with_device_scopes_creation_and_nests, int64_data_is_range_checked_into_32_bits, index_ops_over_small_and_empty_shapes);
use webtensor::{BinaryOp, DType, Device, Error, ReduceOp, Tensor, UnaryOp};

fn to_returns_a_new_tensor_and_leaves_the_original(g: Device) {
    let x = t(&[1.0, 2.0, 3.0], &[3], Device::CPU);
    let y = x.to_blocking(g).unwrap();
    assert_eq!(x.device(), Device::CPU);
    assert_eq!(y.device(), g);
    assert!(!y.shares_storage_with(&x));
    let z = y.mul_scalar(2.0).unwrap().to_blocking(Device::CPU).unwrap();
    assert_eq!(f32s(&x), vec![1.0, 2.0, 3.0]);
    assert_eq!(f32s(&z), vec![2.0, 4.0, 6.0]);
    // Same-device `to` is free: a clone sharing storage.
    assert!(y.to_blocking(g).unwrap().shares_storage_with(&y));
    // Views transfer as their logical contents.
    let v = t(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], g).t().unwrap();
    assert_eq!(f32s(&v.to_blocking(Device::CPU).unwrap()), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    // Every dtype crosses in both directions.
    for dtype in [DType::I32, DType::U32, DType::Bool, DType::F16] {
        if dtype == DType::F16 && !has_f16(g) {
            continue;
        }
        let c = x.to_dtype(dtype).unwrap();
        let back = c.to_blocking(g).unwrap().to_blocking(Device::CPU).unwrap();
        assert_eq!(f32s(&back), f32s(&c), "{dtype} round trip");
    }
}

fn device_mismatch_names_both_devices(g: Device) {
    let a = t(&[1.0, 2.0], &[2], g);
    let b = t(&[1.0, 2.0], &[2], Device::CPU);
    let e = a.add(&b).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "Expected all tensors to be on the same device, but found at least two devices, {g} and cpu! (in op add)"
        )
    );
    assert!(matches!(e, Error::DeviceMismatch { .. }));
    assert!(a.matmul(&b.unsqueeze(1).unwrap()).unwrap_err().to_string().contains("(in op matmul)"));
    assert!(Tensor::cat(&[a.clone(), b.clone()], 0).unwrap_err().to_string().contains("(in op cat)"));
    assert!(a.gt_scalar(0.0).unwrap().where_(&b, &b).unwrap_err().to_string().contains("(in op where)"));
    // Scalars are never a mismatch.
    assert_eq!(f32s(&a.add_scalar(1.0).unwrap()), vec![2.0, 3.0]);
    // Both operands are untouched and the device still works.
    assert_eq!(f32s(&a), vec![1.0, 2.0]);
    assert_eq!(f32s(&b), vec![1.0, 2.0]);
}

/// Device-agnostic code in PyTorch's style: helpers made from `x.device()` and `x.dtype()`.
fn normalize(x: &Tensor) -> Tensor {
    let eps = Tensor::full(&[], 1e-6, x.dtype(), x.device()).unwrap();
    let total = x.abs().unwrap().sum_all().unwrap().add(&eps).unwrap();
    x.div(&total).unwrap().add(&x.zeros_like().unwrap()).unwrap().add(&x.new_zeros(&[1]).unwrap()).unwrap()
}

fn helpers_from_device_and_dtype_work_everywhere(d: Device) {
    let x = Tensor::randn(&[4, 5], Some(3), d).unwrap();
    let y = normalize(&x);
    assert_eq!(y.device(), d);
    assert_eq!(y.shape(), &[4, 5]);
    assert_eq!(x.new_full(&[2], 7.0).unwrap().dtype(), DType::F32);
    if d != Device::META {
        let s: f32 = f32s(&y.abs().unwrap()).iter().sum();
        assert!((s - 1.0).abs() < 1e-4, "{d}: {s}");
    }
}

fn meta_tensors_have_shapes_but_no_data() {
    let m = Device::META;
    let a = Tensor::zeros(&[8, 16], DType::F32, m).unwrap();
    let b = Tensor::randn(&[3, 16, 4], None, m).unwrap();
    let c = a.matmul(&b).unwrap().softmax(-1).unwrap().sum(&[0], false).unwrap();
    assert_eq!(c.shape(), &[8, 4]);
    assert_eq!(c.device(), m);
    assert_eq!(a.gt_scalar(0.0).unwrap().dtype(), DType::Bool);
    let e = c.to_vec_blocking::<f32>().unwrap_err();
    assert!(matches!(e, Error::MetaReadback { .. }));
    assert!(e.to_string().contains("meta tensor has a shape and a dtype but no data"), "{e}");
    assert!(c.to_blocking(Device::CPU).is_err());
    // Shape errors are still caught on meta.
    assert!(a.matmul(&a).is_err());
    // Anything can be sent to meta.
    assert_eq!(t(&[1.0], &[1], Device::CPU).to_blocking(m).unwrap().device(), m);
}

fn devices_parse_and_unknown_devices_name_what_exists() {
    let e = Device::parse("tpu:0").unwrap_err().to_string();
    assert!(e.contains("'tpu' is not a device kind") && e.contains("accepted forms"), "{e}");
    let e = Tensor::zeros(&[2], DType::F32, Device::webgpu(9)).unwrap_err();
    assert!(matches!(e, Error::DeviceUnavailable { .. }));
    assert!(e.to_string().contains("webgpu:9") && e.to_string().contains("available devices: cpu"), "{e}");
    // CUDA's own cases (built or not, present or not) are in tests/cuda.rs.
    let missing = Device::cuda(webtensor::device_count(webtensor::DeviceKind::Cuda));
    let e = Tensor::zeros(&[2], DType::F32, missing).unwrap_err().to_string();
    assert!(e.contains(&missing.to_string()) && e.contains("available devices: cpu"), "{e}");
    assert!(webtensor::device_name(Device::CPU).unwrap().starts_with("cpu"));
    assert!(webtensor::is_available(webtensor::DeviceKind::Cpu));
    if let Some(g) = gpu() {
        assert_eq!(Device::parse("vulkan").unwrap().kind(), webtensor::DeviceKind::WebGpu);
        assert!(webtensor::device_name(g).is_ok());
        let e = Device::parse("metal:3").unwrap_err().to_string();
        assert!(e.contains("metal:3"), "{e}");
    }
}

fn best_and_default_devices() {
    let (best, why) = webtensor::best_device_with_reason();
    let infos = webtensor::devices();
    // CUDA first where it exists (the README's order), then a hardware adapter, then the CPU.
    let hardware = infos.iter().find(|i| i.device.kind() == webtensor::DeviceKind::WebGpu && !i.software);
    match (webtensor::is_available(webtensor::DeviceKind::Cuda), hardware) {
        (true, _) => assert_eq!(best, Device::cuda(0), "{why}"),
        (false, Some(i)) => assert_eq!(best, i.device, "{why}"),
        (false, None) => assert_eq!(best, Device::CPU, "a software adapter must not beat the CPU: {why}"),
    }
    assert!(!why.is_empty());
    assert_eq!(webtensor::default_device(), Device::CPU);
    assert_eq!(Tensor::zeros(&[1], DType::F32, None).unwrap().device(), Device::CPU);
    if let Some(g) = gpu() {
        webtensor::set_default_device(g);
        assert_eq!(Tensor::ones(&[2], DType::F32, None).unwrap().device(), g);
        webtensor::set_default_device(Device::CPU);
    }
}

fn bad_input_gives_clear_errors_and_loses_nothing(d: Device) {
    let a = t(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], d);
    let msg = |r: webtensor::Result<Tensor>| r.unwrap_err().to_string();
    let e = msg(a.add(&t(&[1.0, 2.0], &[2], d)));
    assert!(e.contains("add") && e.contains("[2, 3]") && e.contains("[2]"), "{e}");
    let e = msg(a.matmul(&a));
    assert!(e.contains("matmul") && e.contains("inner dimensions differ (3 vs 2)"), "{e}");
    let e = msg(a.sum(&[2], false));
    assert!(
        e.contains("sum") && e.contains("dimension 2 is out of range for a tensor of rank 2") && e.contains("[-2, 1]"),
        "{e}"
    );
    let e = msg(Tensor::from_slice(&[1.0f32, 2.0], &[3], d));
    assert!(e.contains("got 2 elements") && e.contains("[3] needs 3"), "{e}");
    let e = a.to_vec_blocking::<i32>().unwrap_err().to_string();
    assert!(e.contains("expected dtype f32, got i32"), "{e}");
    let e = msg(a.reshape(&[4, -1]));
    assert!(e.contains("reshape") && e.contains("-1"), "{e}");
    let e = msg(a.index_select(1, &t(&[0.0], &[1], d)));
    assert!(e.contains("index_select") && e.contains("i32"), "{e}");
    let e = msg(a.to_dtype(DType::U32).unwrap().neg());
    assert!(e.contains("neg") && e.contains("u32"), "{e}");
    assert!(msg(a.transpose(0, 5)).contains("transpose"));
    assert!(msg(a.narrow(1, 2, 5)).contains("outside dimension 1 of size 3"));
    assert!(msg(a.expand(&[3, 3])).contains("expand"));
    assert!(msg(Tensor::cat(&[a.clone(), t(&[1.0], &[1, 1], d)], 0)).contains("cat"));
    assert!(msg(Tensor::arange(0.0, 1.0, 0.0, DType::F32, d)).contains("step"));
    if d == Device::CPU {
        let e = msg(a.index_select(1, &Tensor::from_slice(&[5i32], &[1], d).unwrap()));
        assert!(e.contains("index 5 is out of bounds for dimension 1 with size 3"), "{e}");
    }
    // Nothing was lost: the input still holds its values and the device still computes.
    if d != Device::META {
        assert_eq!(f32s(&a.sum_all().unwrap()), vec![21.0]);
    }
}

fn sizes_that_cannot_be_addressed_are_errors_not_panics(d: Device) {
    let huge = [1usize << 32, 1 << 32];
    assert!(Tensor::zeros(&huge, DType::F32, d).is_err(), "{d}");
    assert!(Tensor::randn(&[usize::MAX], Some(0), d).is_err(), "{d}");
    let row = Tensor::zeros(&[1, 4], DType::F32, d).unwrap();
    assert!(row.expand(&[1 << 40, 1 << 40, 4]).is_err(), "{d}");
    let a = Tensor::zeros(&[1 << 29, 1], DType::F32, Device::META).unwrap();
    let b = Tensor::zeros(&[1, 1 << 30], DType::F32, Device::META).unwrap();
    assert!(a.add(&b).is_ok(), "meta plans a 2^59-element sum without allocating");
    assert!(
        a.unsqueeze(0).unwrap().expand(&[8, 1 << 29, 1]).unwrap().add(&b).is_err(),
        "2^62 elements cannot be addressed"
    );
}

fn sizes_that_cannot_be_addressed_are_errors_not_panics_beyond_devices() {
    // A valid shape too large for this machine is an OutOfMemory error on the CPU, not an abort.
    let e = Tensor::zeros(&[1 << 45], DType::F32, Device::CPU).unwrap_err();
    assert!(matches!(e, Error::OutOfMemory { .. }), "{e:?}");
}

fn random_api_calls_never_panic() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let devs: Vec<String> = ["cpu", "meta", "webgpu", "webgpu:7", "cuda:1", "vulkan:2", "gl", "", "cpu:3", "x"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let dtypes = DType::ALL.to_vec();
    let mut runner = TestRunner::new(Config { cases: 400, failure_persistence: None, ..Config::default() });
    let strategy = (
        prop::sample::select(devs),
        prop::sample::select(dtypes.clone()),
        prop::sample::select(dtypes),
        prop::collection::vec(0usize..5, 0..4),
        prop::collection::vec(0usize..5, 0..4),
        prop::collection::vec(-5isize..5, 0..4),
        -5isize..5,
        // The fixed calls below, then every op of the op manifest's families (so a new op is
        // fuzzed without an edit here).
        0usize..30 + UnaryOp::ALL.len() + BinaryOp::ALL.len() + ReduceOp::ALL.len(),
    );
    runner
        .run(&strategy, |(dev, d1, d2, s1, s2, dims, dim, op)| {
            let r = std::panic::catch_unwind(|| {
                let Ok(device) = Device::parse(&dev) else { return };
                let Ok(a) = Tensor::ones(&s1, d1, device) else { return };
                let b = Tensor::ones(&s2, d2, device).unwrap_or_else(|_| a.clone());
                let _ = match op {
                    0 => a.add(&b),
                    1 => a.matmul(&b),
                    2 => a.sum(&dims, true),
                    3 => a.reshape(&dims),
                    4 => a.permute(&dims),
                    5 => a.transpose(dim, -dim),
                    6 => a.softmax(dim),
                    7 => a.argmax(Some(dim), false),
                    8 => a.narrow(dim, dims.len(), s2.len()),
                    9 => a.expand(&dims),
                    10 => a.index_select(dim, &b),
                    11 => a.gather(dim, &b),
                    12 => Tensor::cat(&[a.clone(), b.clone()], dim),
                    13 => Tensor::stack(&[a.clone(), b.clone()], dim),
                    14 => a.where_(&b, &a),
                    15 => a.to_dtype(d2),
                    16 => a.squeeze(Some(dim)),
                    17 => a.unsqueeze(dim),
                    18 => a.var(&dims, 1, false),
                    19 => a.max(&dims, false),
                    20 => a.pow(&b),
                    21 => a.div(&b),
                    22 => a.log_softmax(dim),
                    23 => a.prod(&dims, false),
                    24 => a.clamp(Some(dim as f64), Some(-dim as f64)),
                    25 => Tensor::from_slice(&vec![1.0f32; dims.len()], &s1, device),
                    26 => a.view(&dims),
                    27 => a.mean(&dims, false),
                    28 => a.std_all(s2.len()),
                    29 => a.to_blocking(Device::CPU),
                    n => {
                        let (u, b_ops) = (UnaryOp::ALL.len(), BinaryOp::ALL.len());
                        match n - 30 {
                            i if i < u => a.unary(UnaryOp::ALL[i]),
                            i if i < u + b_ops => a.binary(&b, BinaryOp::ALL[i - u]),
                            i => a.reduce(ReduceOp::ALL[i - u - b_ops], Some(&dims), true),
                        }
                    }
                };
                let _ = a.to_vec_blocking::<f32>();
            });
            prop_assert!(r.is_ok(), "panicked");
            Ok(())
        })
        .unwrap();
}

fn tensorflow_device_strings_and_accelerator_indices() {
    for s in ["/CPU:0", "/cpu:0", "/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:0"] {
        assert_eq!(Device::parse(s).unwrap(), Device::CPU, "{s}");
    }
    let e = Device::parse("/CPU:1").unwrap_err().to_string();
    assert!(e.contains("only one cpu device") && e.contains("/GPU:N"), "{e}");
    let e = Device::parse("/job:localhost/replica:0").unwrap_err().to_string();
    assert!(e.contains("no device part"), "{e}");
    let e = Device::parse("/device:TPU:0").unwrap_err().to_string();
    assert!(e.contains("'tpu' is not a device kind"), "{e}");
    // GPU N is the N-th accelerator: CUDA where present, else wgpu adapters.
    let cuda = webtensor::device_count(webtensor::DeviceKind::Cuda);
    let (kind, count) = if cuda > 0 {
        (webtensor::DeviceKind::Cuda, cuda)
    } else {
        (webtensor::DeviceKind::WebGpu, webtensor::device_count(webtensor::DeviceKind::WebGpu))
    };
    if let Some(g) = gpu() {
        assert!(count > 0, "{g} exists, so there is an accelerator");
        for s in ["/GPU:0", "/device:GPU:0", "/job:localhost/replica:0/task:0/device:GPU:0", "gpu", "GPU:0"] {
            let d = Device::parse(s).unwrap();
            assert_eq!((d.kind(), d.ordinal()), (kind, 0), "{s}");
        }
        assert_eq!(Device::try_from(0usize).unwrap(), Device::parse("/GPU:0").unwrap());
    }
    let e = Device::try_from(count).unwrap_err();
    assert!(matches!(e, Error::DeviceUnavailable { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains(&format!("GPU:{count} asks for the {}-th", count + 1)) && msg.contains("available devices: cpu"),
        "{msg}"
    );
    let e = Device::parse(&format!("/GPU:{count}")).unwrap_err().to_string();
    assert!(e.contains("available devices"), "{e}");
}

fn with_device_scopes_creation_and_nests() {
    let inner = gpu().unwrap_or(Device::META);
    let (a, b, c) = webtensor::with_device(inner, || {
        let a = Tensor::zeros(&[2], DType::F32, None).unwrap();
        let b = webtensor::with_device(Device::META, || Tensor::ones(&[1], DType::F32, None).unwrap());
        let c = Tensor::randn(&[3], Some(1), None).unwrap();
        (a, b, c)
    });
    assert_eq!((a.device(), b.device(), c.device()), (inner, Device::META, inner));
    assert_eq!(webtensor::default_device(), Device::CPU, "the scope ended");
    assert_eq!(Tensor::zeros(&[1], DType::F32, None).unwrap().device(), Device::CPU);
    // An explicit device still wins inside a scope, and ops still need one device.
    let on_cpu = webtensor::with_device(inner, || Tensor::ones(&[2], DType::F32, Device::CPU).unwrap());
    assert_eq!(on_cpu.device(), Device::CPU);
    if inner != Device::META {
        let e = webtensor::with_device(inner, || on_cpu.add(&Tensor::ones(&[2], DType::F32, None).unwrap()));
        assert!(matches!(e, Err(Error::DeviceMismatch { .. })), "{e:?}");
    }
    // The guard form, and a panic inside restores the placement.
    {
        let _scope = webtensor::device_scope(Device::META);
        assert_eq!(Tensor::zeros(&[1], DType::F32, None).unwrap().device(), Device::META);
    }
    let r = std::panic::catch_unwind(|| webtensor::with_device(Device::META, || panic!("inside")));
    assert!(r.is_err());
    assert_eq!(webtensor::default_device(), Device::CPU);
}

fn int64_data_is_range_checked_into_32_bits() {
    let t = Tensor::from_i64(&[-5, i32::MAX as i64, 0], &[3], Device::CPU).unwrap();
    assert_eq!((t.dtype(), t.to_vec_blocking::<i32>().unwrap()), (DType::I32, vec![-5, i32::MAX, 0]));
    let e = Tensor::from_i64(&[1, 1 << 31], &[2], Device::CPU).unwrap_err().to_string();
    assert!(e.contains("element 1 is 2147483648, outside int32's range"), "{e}");
    let u = Tensor::from_u64(&[u32::MAX as u64], &[1], Device::CPU).unwrap();
    assert_eq!(u.dtype(), DType::U32);
    assert!(Tensor::from_u64(&[1 << 32], &[1], Device::CPU).is_err());
    assert!(Tensor::from_i64(&[1, 2], &[3], Device::CPU).is_err(), "the shape must match the data");
}

/// index_select and gather over every small shape, empty dims included, and every valid dim and
/// index: results have the right shape and never panic (an empty source's strides may point
/// past its data, which a kernel must not read).
fn index_ops_over_small_and_empty_shapes() {
    let d = Device::CPU;
    let mut shapes: Vec<Vec<usize>> = vec![vec![]];
    for rank in 1..=3 {
        let mut next = Vec::new();
        for s in shapes.iter().filter(|s| s.len() == rank - 1) {
            for size in 0..=2 {
                next.push([s.clone(), vec![size]].concat());
            }
        }
        shapes.extend(next);
    }
    for shape in shapes.iter().filter(|s| !s.is_empty()) {
        let a = Tensor::ones(shape, DType::F32, d).unwrap();
        for dim in 0..shape.len() {
            for id in 0..shape[dim] {
                let i = Tensor::from_slice(&[id as i32], &[1], d).unwrap();
                let s = a.index_select(dim as isize, &i).unwrap();
                let mut want = shape.clone();
                want[dim] = 1;
                assert_eq!(s.shape(), &want[..], "index_select {shape:?} dim {dim}");
                let g = Tensor::full(&want, id as f64, DType::I32, d).unwrap();
                assert_eq!(a.gather(dim as isize, &g).unwrap().shape(), &want[..], "gather {shape:?} dim {dim}");
            }
        }
    }
}
