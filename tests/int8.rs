//! u8 and i8 tensors against PyTorch and across devices: `tests/fixtures/int8.json` (made by
//! `scripts/gen_int8_fixtures.py`) holds casts in and out (wrapping to the low 8 bits), wrapping
//! arithmetic, promotion, comparisons, sums in a wider type, and the ops that move or pick
//! elements. Beyond the fixtures: creation and readback, views, transfers, memory accounting,
//! and the errors.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::{device_main, fixture_trials};
use common::*;

use serde_json::Value;
use webtensor::{DType, Device, Tensor};

device_main!(
    creation_views_and_transfers,
    int8_indices_are_refused;
    meta: bytes_on_meta;
    fixtures: fixture_trials("int8.json", 65, int8_matches_pytorch)
);

fn dtype_of(v: &Value) -> DType {
    v.as_str().expect("dtype").parse().expect("a dtype name")
}

/// An input of a case: its values in f32 (exact for every 8-bit and small integer) cast to its
/// dtype; i32 values go through i32 so large ones stay exact.
fn input(v: &Value, d: Device) -> Tensor {
    let shape = usizes(&v["shape"]);
    let data = floats(&v["data"]);
    match dtype_of(&v["dtype"]) {
        DType::I32 => Tensor::from_slice(&data.iter().map(|&x| x as i32).collect::<Vec<_>>(), &shape, d).unwrap(),
        DType::F32 => t(&data, &shape, d),
        dt => Tensor::from_slice(&data.iter().map(|&x| x as i32).collect::<Vec<_>>(), &shape, d)
            .unwrap()
            .to_dtype(dt)
            .unwrap(),
    }
}

fn apply(op: &str, a: &Value, x: &[Tensor]) -> webtensor::Result<Tensor> {
    let s = |k: &str| a[k].as_str().expect(k);
    Ok(match op {
        "cast" => x[0].to_dtype(s("dtype").parse()?)?,
        "binary" => {
            let f = s("fn");
            match f {
                "add" => x[0].add(&x[1])?,
                "sub" => x[0].sub(&x[1])?,
                "mul" => x[0].mul(&x[1])?,
                "maximum" => x[0].maximum(&x[1])?,
                "minimum" => x[0].minimum(&x[1])?,
                "div" => x[0].div(&x[1])?,
                "remainder" => x[0].remainder(&x[1])?,
                "floor_divide" => x[0].floor_divide(&x[1])?,
                "bitwise_xor" => x[0].bitwise_xor(&x[1])?,
                "eq" => x[0].eq(&x[1])?,
                "lt" => x[0].lt(&x[1])?,
                "ge" => x[0].ge(&x[1])?,
                other => panic!("binary {other}"),
            }
        }
        "scalar" => {
            let v = a["s"].as_f64().expect("s");
            match s("fn") {
                "add" => x[0].add_scalar(v)?,
                "sub" => x[0].sub_scalar(v)?,
                "mul" => x[0].mul_scalar(v)?,
                other => panic!("scalar {other}"),
            }
        }
        "unary" => match s("fn") {
            "neg" => x[0].neg()?,
            "abs" => x[0].abs()?,
            "bitwiseNot" => x[0].bitwise_not()?,
            other => panic!("unary {other}"),
        },
        "sum" => x[0].sum_all()?,
        "max" => x[0].max_all()?,
        "argmin" => x[0].argmin(None, false)?,
        "cumsum" => x[0].cumsum(0)?,
        "sort" => x[0].sort(0, true)?.0,
        "matmul" => x[0].matmul(&x[1])?,
        "flip_t" => x[0].t()?.flip(&[0])?,
        "index_select" => x[0].index_select(1, &x[1])?,
        "where" => x[0].gt(&x[1])?.where_(&x[0], &x[1])?,
        "cat" => Tensor::cat(&[x[0].clone(), x[1].clone()], 0)?,
        other => panic!("int8.json has an op this suite does not know: {other}"),
    })
}

fn int8_matches_pytorch(case: &Value, d: Device) {
    let name = case["name"].as_str().expect("name");
    let xs: Vec<Tensor> = case["inputs"].as_array().expect("inputs").iter().map(|v| input(v, d)).collect();
    let y =
        apply(case["op"].as_str().expect("op"), &case["args"], &xs).unwrap_or_else(|e| panic!("{name} on {d}: {e}"));
    assert_eq!(y.dtype(), dtype_of(&case["out_dtype"]), "{name} on {d}: dtype");
    assert_eq!(y.shape(), usizes(&case["out_shape"]).as_slice(), "{name} on {d}: shape");
    assert_close(&f32s(&y), &floats(&case["out"]), fixture_tolerance("int8.json"), &format!("{name} on {d}"));
}

fn creation_views_and_transfers(d: Device) {
    let u = Tensor::from_slice(&[0u8, 1, 127, 128, 200, 255], &[2, 3], d).unwrap();
    assert_eq!((u.dtype(), u.to_vec_blocking::<u8>().unwrap()), (DType::U8, vec![0, 1, 127, 128, 200, 255]));
    let i = Tensor::from_slice(&[-128i8, -1, 0, 1, 127, 5], &[3, 2], d).unwrap();
    assert_eq!(i.to_vec_blocking::<i8>().unwrap(), [-128, -1, 0, 1, 127, 5]);
    // A transposed view reads through; contiguous copies it in the same dtype.
    let ut = u.t().unwrap().contiguous().unwrap();
    assert_eq!((ut.dtype(), ut.to_vec_blocking::<u8>().unwrap()), (DType::U8, vec![0, 128, 1, 200, 127, 255]));
    assert_eq!(Tensor::full(&[2], 300.0, DType::U8, d).unwrap().to_vec_blocking::<u8>().unwrap(), [44, 44]);
    assert_eq!(Tensor::ones(&[3], DType::I8, d).unwrap().to_vec_blocking::<i8>().unwrap(), [1, 1, 1]);
    let r = Tensor::arange(250.0, 260.0, 3.0, DType::U8, d).unwrap();
    assert_eq!(r.to_vec_blocking::<u8>().unwrap(), [250, 253, 0, 3], "arange wraps as casts do");
    // One byte per element on the CPU; a word per element on GPUs (as bool), counted as such.
    let back = u.to_blocking(Device::CPU).unwrap();
    assert_eq!((back.dtype(), back.nbytes()), (DType::U8, 6));
    // Images: the usual path to floats and back.
    let img = u.to_dtype(DType::F32).unwrap().div_scalar(255.0).unwrap();
    let again = img.mul_scalar(255.0).unwrap().round().unwrap().to_dtype(DType::U8).unwrap();
    assert_eq!(again.to_vec_blocking::<u8>().unwrap(), u.to_vec_blocking::<u8>().unwrap());
    // scatter and reading one element.
    let idx = Tensor::from_slice(&[2i32, 0], &[2], d).unwrap();
    let z = Tensor::zeros(&[3], DType::U8, d).unwrap().scatter_value(0, &idx, 255.0).unwrap();
    assert_eq!(z.to_vec_blocking::<u8>().unwrap(), [255, 0, 255]);
    assert_eq!(i.flatten().unwrap().narrow(0, 4, 1).unwrap().item_blocking::<i8>().unwrap(), 127);
}

fn int8_indices_are_refused(d: Device) {
    let x = Tensor::zeros(&[4], DType::F32, d).unwrap();
    let idx = Tensor::from_slice(&[1u8, 2], &[2], d).unwrap();
    let e = x.index_select(0, &idx).unwrap_err();
    assert!(e.to_string().contains("u8"), "{e}");
    assert_eq!(f32s(&x.index_select(0, &idx.to_dtype(DType::I32).unwrap()).unwrap()), [0.0, 0.0]);
}

fn bytes_on_meta(d: Device) {
    // One byte per element on the CPU and meta; a 32-bit word per element on GPUs (as bool).
    let before = webtensor::memory_allocated(d).unwrap();
    let u = Tensor::zeros(&[1000], DType::U8, d).unwrap();
    let used = webtensor::memory_allocated(d).unwrap() - before;
    match d.kind() {
        webtensor::DeviceKind::Cpu | webtensor::DeviceKind::Meta => assert_eq!(used, 1000, "on {d}"),
        _ => assert!(used >= 4000, "on {d}: {used} bytes"),
    }
    let s = u.sum_all().unwrap();
    assert_eq!((s.dtype(), u.add_scalar(1.0).unwrap().dtype()), (DType::I32, DType::U8));
}
