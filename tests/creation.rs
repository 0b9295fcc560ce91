//! The constructors PyTorch users reach for (issue 41): `linspace`, `logspace` and `eye` equal to
//! PyTorch's values (`tests/fixtures/creation.json`, by `scripts/gen_creation_fixtures.py`:
//! linspace's two-sided arithmetic, integer truncation), on every device; `randint` and
//! `randperm` seeded (the same values on every device), uniform by a chi-square bound, within
//! their bounds; `manual_seed` makes unseeded draws repeat; bad arguments are errors.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::{device_main, fixture_trials};
use serde_json::Value;

use webtensor::{DType, Device, Error, Tensor};

device_main!(random_integers, bad_arguments_are_errors; fixtures: fixture_trials("creation.json", 33, range_matches_pytorch));

fn values(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::I32 => t.to_vec_blocking::<i32>().unwrap().into_iter().map(f64::from).collect(),
        _ => t.to_dtype(DType::F32).unwrap().to_vec_blocking::<f32>().unwrap().into_iter().map(f64::from).collect(),
    }
}

fn range_matches_pytorch(c: &Value, d: Device) {
    let a = &c["args"];
    let num = |k: &str| a[k].as_f64().expect(k);
    let dtype = if c["dtype"] == "int32" { DType::I32 } else { DType::F32 };
    let t = match c["op"].as_str().expect("op") {
        "linspace" => Tensor::linspace(num("start"), num("end"), num("steps") as usize, dtype, d),
        "logspace" => Tensor::logspace(num("start"), num("end"), num("steps") as usize, num("base"), dtype, d),
        "eye" => Tensor::eye(num("n") as usize, Some(num("m") as usize), dtype, d),
        other => panic!("unknown op {other}"),
    }
    .unwrap_or_else(|e| panic!("{c} on {d}: {e}"));
    let want: Vec<f64> = c["out"].as_array().expect("out").iter().map(|v| v.as_f64().expect("number")).collect();
    let got = values(&t);
    assert_eq!(got.len(), want.len(), "{c}");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        // linspace is bit-exact in f32 (PyTorch's arithmetic; the JSON parser may be an f64
        // ulp off, so both sides compare as f32); logspace's pow within 1 ulp of f32.
        let (g, w) = (*g as f32 as f64, *w as f32 as f64);
        let tol = if c["op"] == "logspace" && dtype == DType::F32 { 2e-7 * w.abs() } else { 0.0 };
        assert!((g - w).abs() <= tol, "{} element {i}: {g} vs PyTorch's {w} on {d} ({c})", c["op"]);
    }
}

fn random_integers(d: Device) {
    let a = Tensor::randint(-3, 5, &[20_000], Some(7), DType::I32, d).unwrap();
    let v = a.to_vec_blocking::<i32>().unwrap();
    assert!(v.iter().all(|&x| (-3..5).contains(&x)), "values outside [-3, 5)");
    assert_eq!(
        v,
        Tensor::randint(-3, 5, &[20_000], Some(7), DType::I32, Device::CPU).unwrap().to_vec_blocking::<i32>().unwrap(),
        "the same seed gives the same values on every device"
    );
    // Chi-square over the 8 values: 99.99% of uniform draws stay below 31.
    let mut counts = [0f64; 8];
    v.iter().for_each(|&x| counts[(x + 3) as usize] += 1.0);
    let expect = v.len() as f64 / 8.0;
    let chi2: f64 = counts.iter().map(|c| (c - expect).powi(2) / expect).sum();
    assert!(chi2 < 31.0, "randint is not uniform: chi2 = {chi2}, counts {counts:?}");
    let u8s = Tensor::randint(250, 256, &[100], Some(1), DType::U8, d).unwrap();
    assert_eq!(u8s.dtype(), DType::U8);
    let p = Tensor::randperm(1000, Some(3), d).unwrap().to_vec_blocking::<i32>().unwrap();
    let mut sorted = p.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..1000).collect::<Vec<i32>>(), "a permutation of 0..1000");
    assert_ne!(p, (0..1000).collect::<Vec<i32>>(), "shuffled");
    // Each position is uniform: position 0 over 4,000 permutations of 4 is near 1,000 each.
    let mut first = [0f64; 4];
    for s in 0..4000 {
        first[Tensor::randperm(4, Some(s), Device::CPU).unwrap().to_vec_blocking::<i32>().unwrap()[0] as usize] += 1.0;
    }
    let chi2: f64 = first.iter().map(|c| (c - 1000.0).powi(2) / 1000.0).sum();
    assert!(chi2 < 21.0, "randperm's first element is not uniform: {first:?}");
    webtensor::manual_seed(11);
    let x = Tensor::randint(0, 100, &[16], None, DType::I32, d).unwrap().to_vec_blocking::<i32>().unwrap();
    webtensor::manual_seed(11);
    let y = Tensor::randint(0, 100, &[16], None, DType::I32, d).unwrap().to_vec_blocking::<i32>().unwrap();
    assert_eq!(x, y, "manual_seed makes unseeded draws repeat");
    assert_eq!(Tensor::randperm(0, None, d).unwrap().shape(), &[0]);
}

fn bad_arguments_are_errors(d: Device) {
    let e = Tensor::randint(5, 5, &[2], None, DType::I32, d).unwrap_err();
    assert!(e.to_string().contains("high (5) must be greater than low (5)"), "{e}");
    let e = Tensor::randint(0, 300, &[2], None, DType::U8, d).unwrap_err();
    assert!(e.to_string().contains("does not fit u8"), "{e}");
    assert!(matches!(Tensor::randint(0, 2, &[2], None, DType::F32, d), Err(Error::UnsupportedDType { .. })));
    let e = Tensor::linspace(0.0, f64::NAN, 3, DType::F32, d).unwrap_err();
    assert!(e.to_string().contains("finite"), "{e}");
    assert!(matches!(Tensor::linspace(0.0, 1.0, 3, DType::Bool, d), Err(Error::UnsupportedDType { .. })));
    let e = Tensor::eye(1 << 16, Some(1 << 16), DType::F32, d).unwrap_err();
    assert!(e.to_string().contains("identity is more than"), "{e}");
}
