//! Shared by the integration tests: which devices to run on, and float comparison.
#![allow(dead_code)]

use webtensor::{Device, DeviceKind, Tensor};

pub mod trials;

/// Whether a missing GPU must fail the run (CI sets it: the software adapters are always there).
pub fn gpu_required() -> bool {
    std::env::var("WEBTENSOR_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// The GPU device the suite exercises (`webgpu:0`, or `WEBTENSOR_TEST_GPU`), if any. Panics when
/// none exists and `WEBTENSOR_REQUIRE_GPU=1`.
pub fn gpu() -> Option<Device> {
    let want = std::env::var("WEBTENSOR_TEST_GPU").unwrap_or_else(|_| "webgpu:0".into());
    let dev = Device::parse(&want).expect("WEBTENSOR_TEST_GPU parses");
    let have = webtensor::devices().iter().any(|i| i.device == dev);
    if !have {
        assert!(
            !gpu_required(),
            "WEBTENSOR_REQUIRE_GPU=1 but {want} does not exist; devices: {:?}",
            webtensor::devices()
        );
        eprintln!("note: no GPU adapter; GPU cases skipped (set WEBTENSOR_REQUIRE_GPU=1 to fail instead)");
        return None;
    }
    Some(dev)
}

/// Whether a missing CUDA device must fail the run (set on machines with an NVIDIA GPU).
pub fn cuda_required() -> bool {
    std::env::var("WEBTENSOR_REQUIRE_CUDA").is_ok_and(|v| v == "1")
}

/// `cuda:0` when this build has CUDA and the machine a CUDA device. Panics when there is none
/// and `WEBTENSOR_REQUIRE_CUDA=1`.
pub fn cuda() -> Option<Device> {
    if webtensor::is_available(DeviceKind::Cuda) {
        return Some(Device::cuda(0));
    }
    assert!(
        !cuda_required(),
        "WEBTENSOR_REQUIRE_CUDA=1 but there is no CUDA device: {}",
        Tensor::zeros(&[1], webtensor::DType::F32, Device::cuda(0)).err().map(|e| e.to_string()).unwrap_or_default()
    );
    None
}

/// Devices with storage to run every op on: the CPU, the GPU under test and `cuda:0` if any.
pub fn devices() -> Vec<Device> {
    let mut v = vec![Device::CPU];
    v.extend(gpu());
    v.extend(cuda());
    v
}

/// Whether `d` supports f16 kernels.
pub fn has_f16(d: Device) -> bool {
    d.kind() == DeviceKind::Cpu
        || webtensor::devices().iter().any(|i| i.device == d && i.features.iter().any(|f| f == "shader-f16"))
}

pub fn f32s(t: &Tensor) -> Vec<f32> {
    t.to_dtype(webtensor::DType::F32).unwrap().to_vec_blocking::<f32>().unwrap()
}

pub fn i32s(t: &Tensor) -> Vec<i32> {
    t.to_dtype(webtensor::DType::I32).unwrap().to_vec_blocking::<i32>().unwrap()
}

/// Elementwise closeness with a relative and absolute tolerance; NaNs must match NaNs.
pub fn assert_close(got: &[f32], want: &[f32], tol: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length {} vs {}", got.len(), want.len());
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * (1.0 + w.abs());
        assert!(
            ok,
            "{what}: element {i}: got {g}, want {w} (tol {tol})\n got {:?}\nwant {:?}",
            &got[..got.len().min(16)],
            &want[..want.len().min(16)]
        );
    }
}

/// A tensor from f32 data on `dev`.
pub fn t(data: &[f32], shape: &[usize], dev: Device) -> Tensor {
    Tensor::from_slice(data, shape, dev).unwrap()
}

/// The numbers of a JSON array as f32 (the PyTorch fixtures under tests/fixtures).
pub fn floats(v: &serde_json::Value) -> Vec<f32> {
    let one = |x: &serde_json::Value| match x.as_str() {
        Some("nan") => f32::NAN,
        Some("inf") => f32::INFINITY,
        Some("-inf") => f32::NEG_INFINITY,
        _ => x.as_f64().expect("number") as f32,
    };
    v.as_array().expect("array").iter().map(one).collect()
}

/// The non-negative integers of a JSON array (shapes in the fixtures).
pub fn usizes(v: &serde_json::Value) -> Vec<usize> {
    v.as_array().expect("array").iter().map(|x| x.as_u64().expect("uint") as usize).collect()
}

/// A GPU adapter without `shader-f16` that opens (CI's llvmpipe GL adapter), for the f16
/// refusal and fallback tests. An adapter that is listed but cannot open (NVIDIA's GL adapter
/// in a headless VM: "Parent device is lost") must say so with a `DeviceUnavailable` naming it,
/// and is passed over. `None` when no such adapter opens, which fails under
/// `WEBTENSOR_REQUIRE_GPU=1` unless the machine has a hardware GPU (where every adapter that
/// opens may have `shader-f16`).
pub fn no_f16_adapter() -> Option<Device> {
    let candidates = webtensor::devices()
        .into_iter()
        .filter(|i| i.backend != "cpu" && !i.features.iter().any(|f| f == "shader-f16"));
    for info in candidates {
        match Tensor::zeros(&[1], webtensor::DType::F32, info.device) {
            Ok(_) => return Some(info.device),
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    matches!(e, webtensor::Error::DeviceUnavailable { .. }) && msg.contains(&info.device.to_string()),
                    "an adapter that does not open says which and why: {msg}"
                );
                eprintln!("note: {} is listed but does not open: {msg}", info.device);
            }
        }
    }
    let hardware = webtensor::devices().iter().any(|i| i.backend != "cpu" && !i.software);
    assert!(
        !gpu_required() || hardware,
        "CI has llvmpipe's GL adapter, which lacks shader-f16 and opens: {:?}",
        webtensor::devices()
    );
    None
}

/// The tolerance `tests/fixtures/<file>` is held to, from `tests/fixtures/tolerances.json` (which
/// the JS suite reads too).
pub fn fixture_tolerance(file: &str) -> f32 {
    // Read once: every case of a fixture file asks.
    static TABLE: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| fixture_json("tolerances.json"));
    table[file].as_f64().unwrap_or_else(|| panic!("tolerances.json has no entry for {file}")) as f32
}

/// A committed PyTorch fixture, `tests/fixtures/<name>` (made by the `scripts/gen_*.py` that
/// names it).
pub fn fixture_json(name: &str) -> serde_json::Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e} (regenerate it with scripts/)"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} parses: {e}"))
}

/// A fixture tensor (`{shape, data, dtype}`) on `d`: i32 as it is, floats as f32, requiring
/// grad when `grad`.
pub fn fixture_tensor(v: &serde_json::Value, d: Device, grad: bool) -> Tensor {
    let shape = usizes(&v["shape"]);
    if v["dtype"] == "i32" {
        let data: Vec<i32> = floats(&v["data"]).iter().map(|&x| x as i32).collect();
        Tensor::from_slice(&data, &shape, d).unwrap()
    } else {
        t(&floats(&v["data"]), &shape, d).requires_grad_(grad).unwrap()
    }
}

/// `Linear(inp, hidden) -> ReLU -> Linear(hidden, out)` on `d` (the MLP of the fixtures and of
/// the memory tests; PyTorch's keys `0.*` and `2.*`).
pub fn relu_mlp(inp: usize, hidden: usize, out: usize, seed: Option<u64>, d: Device) -> webtensor::nn::Sequential {
    use webtensor::nn::{Linear, LinearOptions, ReLU, Sequential};
    let opts = LinearOptions { device: Some(d), seed, ..Default::default() };
    Sequential::new()
        .push(Linear::new(inp, hidden, opts).unwrap())
        .unwrap()
        .push(ReLU::new())
        .unwrap()
        .push(Linear::new(hidden, out, opts).unwrap())
        .unwrap()
}

/// Runs one case of a PyTorch fixture in the format of `scripts/gen_grad_fixtures.py` on `d`:
/// builds the inputs (views applied after marking them), applies `apply(op, args, inputs)`,
/// compares the output and, for cases with an output gradient, `backward_with` it and compares
/// each leaf's gradient. (`trials::fixture_trials` makes one test of each case and device.)
pub fn run_fixture_case(
    case: &serde_json::Value,
    d: Device,
    tol: f32,
    apply: impl Fn(&str, &serde_json::Value, &[Tensor]) -> webtensor::Result<Tensor>,
) {
    use serde_json::Value;
    {
        let name = case["name"].as_str().expect("name");
        let what = |s: &str| format!("{name} on {d}: {s}");
        let mut leaves = Vec::new();
        let mut xs = Vec::new();
        for i in case["inputs"].as_array().expect("inputs") {
            let shape = usizes(&i["shape"]);
            let leaf = fixture_tensor(i, d, i["grad"].as_bool().expect("grad"));
            let x = match i["view"].as_str() {
                None => leaf.clone(),
                Some("t") => leaf.transpose(-2, -1).unwrap(),
                Some("narrow") => leaf.narrow(-1, 1, shape[shape.len() - 1] - 1).unwrap(),
                Some(v) => panic!("unknown view {v}"),
            };
            leaves.push(leaf);
            xs.push(x);
        }
        let y = apply(case["op"].as_str().expect("op"), &case["args"], &xs)
            .unwrap_or_else(|e| panic!("{}", what(&e.to_string())));
        assert_eq!(y.shape(), usizes(&case["out_shape"]).as_slice(), "{}", what("output shape"));
        assert_eq!(y.device(), d, "{}", what("the output lives on the inputs' device"));
        assert_close(&f32s(&y), &floats(&case["out"]), tol, &what("output"));
        if case["out_grad"].is_null() {
            return;
        }
        assert!(y.requires_grad(), "{}", what("the output requires grad"));
        let g = t(&floats(&case["out_grad"]), y.shape(), d);
        y.backward_with(Some(&g), webtensor::BackwardOptions::default())
            .unwrap_or_else(|e| panic!("{}", what(&e.to_string())));
        for (k, (leaf, want)) in leaves.iter().zip(case["grads"].as_array().expect("grads")).enumerate() {
            match want {
                Value::Null => assert!(leaf.grad().is_none(), "{}", what(&format!("input {k} needs no grad"))),
                want => {
                    let got = leaf.grad().unwrap_or_else(|| panic!("{}", what(&format!("input {k} has no grad"))));
                    assert_eq!(got.device(), d, "{}", what("the gradient lives on the leaf's device"));
                    assert_eq!(got.dtype(), webtensor::DType::F32);
                    assert_close(&f32s(&got), &floats(want), tol, &what(&format!("grad of input {k}")));
                }
            }
        }
    }
}

/// A JSON array of integers as `isize`s (dims, shapes with -1).
pub fn isizes(v: &serde_json::Value) -> Vec<isize> {
    v.as_array().expect("array").iter().map(|x| x.as_i64().expect("int") as isize).collect()
}
