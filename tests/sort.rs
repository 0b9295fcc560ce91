//! Sorting and scatter against PyTorch and across devices: `tests/fixtures/sort.json` (made by
//! `scripts/gen_sort_fixtures.py`) holds sort/argsort/topk with ties, NaN, infinities, both
//! zeros, lengths around powers of two, views and empty dims, and scatter, with PyTorch's
//! outputs and gradients. Beyond the fixtures: long rows and every dtype held to the CPU's
//! answer bit for bit, the errors, and the meta device.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::{device_main, fixture_trials};
use common::*;

use serde_json::Value;
use webtensor::{DType, Device, Error, Tensor};

device_main!(
    long_rows_match_pytorchs_order,
    topk_matches_pytorchs_order,
    every_dtype_sorts,
    bad_arguments_are_errors;
    meta: shapes_on_meta;
    fixtures: fixture_trials("sort.json", 43, sorting_and_scatter_match_pytorch)
);

fn sorting_and_scatter_match_pytorch(case: &Value, d: Device) {
    run_fixture_case(case, d, fixture_tolerance("sort.json"), apply);
}

/// The op of a case, as the generator's `OPS` table defines it.
fn apply(op: &str, a: &Value, x: &[Tensor]) -> webtensor::Result<Tensor> {
    let dim = || a["dim"].as_i64().expect("dim") as isize;
    let flag = |k: &str| a[k].as_bool().expect(k);
    let k = || a["k"].as_u64().expect("k") as usize;
    Ok(match op {
        "sort_values" => x[0].sort(dim(), flag("descending"))?.0,
        "sort_indices" => x[0].sort(dim(), flag("descending"))?.1,
        "argsort" => x[0].argsort(dim(), flag("descending"))?,
        "topk_values" => x[0].topk(k(), dim(), flag("largest"))?.0,
        "topk_indices" => x[0].topk(k(), dim(), flag("largest"))?.1,
        "scatter" => x[0].scatter(dim(), &x[1], &x[2])?,
        "scatter_value" => x[0].scatter_value(dim(), &x[1], a["value"].as_f64().expect("value"))?,
        other => panic!("sort.json has an op this suite does not know: {other}"),
    })
}

/// Seeded values with many ties (a few distinct values), so stability is exercised everywhere.
fn tied(shape: &[usize], d: Device) -> Tensor {
    Tensor::rand(shape, Some(7), d).unwrap().mul_scalar(6.0).unwrap().floor().unwrap()
}

/// The order PyTorch's stable sort gives, written independently of every backend: NaN above
/// everything, -0 equal to +0, ties by position. The indices of `row` in that order
/// (descending when `desc`: equal values still by position).
fn reference_order(row: &[f32], desc: bool) -> Vec<usize> {
    let rank = |v: f32| (v.is_nan(), if v == 0.0 { 0.0 } else { v });
    let mut idx: Vec<usize> = (0..row.len()).collect();
    idx.sort_by(|&i, &j| {
        let (a, b) = (rank(row[i]), rank(row[j]));
        let o = a.0.cmp(&b.0).then(a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));
        if desc {
            o.reverse()
        } else {
            o
        }
    });
    idx
}

/// The rows of `x` (host values as f32) along `dim` (0 or -1 of a 2-D tensor).
fn rows_along(x: &Tensor, dim: isize) -> Vec<Vec<f32>> {
    let (v, [r, c]) = (f32s(x), [x.shape()[0], x.shape()[1]]);
    match dim {
        0 => (0..c).map(|j| (0..r).map(|i| v[i * c + j]).collect()).collect(),
        _ => v.chunks(c).map(<[f32]>::to_vec).collect(),
    }
}

fn long_rows_match_pytorchs_order(d: Device) {
    // Rows long enough for many network stages, a row count that is not a power of two, and a
    // length just past one.
    for shape in [[3usize, 5000], [1, 70_000], [129, 65]] {
        let rows = rows_along(&tied(&shape, Device::CPU), -1);
        for desc in [false, true] {
            let want: Vec<i32> = rows.iter().flat_map(|r| reference_order(r, desc)).map(|i| i as i32).collect();
            let got = tied(&shape, d).argsort(-1, desc).unwrap();
            assert_eq!(i32s(&got), want, "{shape:?} descending={desc} on {d}");
        }
    }
    // The values come out sorted and the indices point at them.
    let x = Tensor::randn(&[4, 1000], Some(3), d).unwrap();
    let (v, i) = x.sort(1, false).unwrap();
    let (v, i, x) = (f32s(&v), i32s(&i), f32s(&x));
    for r in 0..4 {
        for c in 0..1000 {
            assert_eq!(v[r * 1000 + c], x[r * 1000 + i[r * 1000 + c] as usize]);
            if c > 0 {
                assert!(v[r * 1000 + c - 1] <= v[r * 1000 + c], "row {r} not sorted at {c} on {d}");
            }
        }
    }
}

/// topk (which GPUs select for k up to 32, in chunks when rows are few, and sort beyond) gives
/// PyTorch's answer, indices too: ties go to the earlier position, NaN is the largest, -0 ties
/// +0 (against [`reference_order`], on every device).
fn topk_matches_pytorchs_order(d: Device) {
    let check = |x: &dyn Fn(Device) -> Tensor, k: usize, dim: isize, what: &str| {
        let host = x(Device::CPU);
        let rows = rows_along(&host, dim);
        for largest in [true, false] {
            let order: Vec<Vec<usize>> = rows.iter().map(|r| reference_order(r, largest)[..k].to_vec()).collect();
            // topk's outputs keep the input's layout with `dim` cut to k: per row for dim -1,
            // per column for dim 0.
            let at = |j: usize, r: usize| if dim == 0 { j * rows.len() + r } else { r * k + j };
            let mut wi = vec![0i32; rows.len() * k];
            let mut wv = vec![0f32; rows.len() * k];
            for (r, o) in order.iter().enumerate() {
                for (j, &i) in o.iter().enumerate() {
                    wi[at(j, r)] = i as i32;
                    wv[at(j, r)] = rows[r][i];
                }
            }
            let (gv, gi) = x(d).topk(k, dim, largest).unwrap();
            let what = format!("{what} k={k} largest={largest} on {d}");
            assert_eq!(i32s(&gi), wi, "{what}");
            let bits =
                |v: &[f32]| v.iter().map(|v| if v.is_nan() { u32::MAX } else { v.to_bits() }).collect::<Vec<_>>();
            assert_eq!(bits(&f32s(&gv)), bits(&wv), "{what}");
        }
    };
    for k in [1, 7, 32, 33] {
        check(&|dev| tied(&[3, 5000], dev), k, -1, "tied [3, 5000]");
    }
    check(&|dev| tied(&[1, 70_000], dev), 5, -1, "tied [1, 70000]");
    check(&|dev| tied(&[129, 65], dev), 32, -1, "tied [129, 65]");
    check(&|dev| tied(&[1000, 40], dev), 3, 0, "tied [1000, 40] over dim 0");
    let special = [f32::NAN, -0.0, 0.0, 1.0, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, f32::NAN, 1.0];
    let row: Vec<f32> = (0..600).map(|i| special[i * 7 % special.len()]).collect();
    check(&|dev| Tensor::from_slice(&row, &[2, 300], dev).unwrap(), 9, -1, "special values");
    check(&|dev| tied(&[4, 3000], dev).sub_scalar(3.0).unwrap().to_dtype(DType::I32).unwrap(), 6, -1, "i32");
    if has_f16(d) {
        check(&|dev| tied(&[4, 3000], dev).to_dtype(DType::F16).unwrap(), 6, -1, "f16");
    }
}

fn every_dtype_sorts(d: Device) {
    let ints = Tensor::from_slice(&[5i32, -7, 0, i32::MAX, i32::MIN, -7, 3], &[7], d).unwrap();
    let (v, i) = ints.sort(0, false).unwrap();
    assert_eq!(v.to_vec_blocking::<i32>().unwrap(), [i32::MIN, -7, -7, 0, 3, 5, i32::MAX]);
    assert_eq!(i32s(&i), [4, 1, 5, 2, 6, 0, 3]);
    let uints = Tensor::from_slice(&[3u32, u32::MAX, 0, 7], &[4], d).unwrap();
    let (v, _) = uints.sort(0, true).unwrap();
    assert_eq!(v.to_vec_blocking::<u32>().unwrap(), [u32::MAX, 7, 3, 0]);
    let bools = Tensor::from_slice(&[true, false, true, false], &[4], d).unwrap();
    assert_eq!(i32s(&bools.argsort(0, true).unwrap()), [0, 2, 1, 3]);
    if has_f16(d) {
        let x = Tensor::from_slice(&[2.5f32, f32::NAN, -0.0, -1.0, 0.0, f32::NEG_INFINITY], &[6], d).unwrap();
        let (v, i) = x.to_dtype(DType::F16).unwrap().sort(0, false).unwrap();
        assert_eq!(v.dtype(), DType::F16);
        assert_eq!(i32s(&i), [5, 3, 2, 4, 0, 1], "f16 on {d}");
        let (tv, ti) = x.topk(2, 0, true).unwrap();
        assert!(f32s(&tv)[0].is_nan() && f32s(&tv)[1] == 2.5 && i32s(&ti) == [1, 0]);
    }
    // A 0-d tensor sorts to itself at position 0.
    let s = Tensor::from_slice(&[4.0f32], &[], d).unwrap();
    let (v, i) = s.sort(-1, false).unwrap();
    assert_eq!((v.shape(), i.shape()), (&[][..], &[][..]));
    assert_eq!((f32s(&v), i32s(&i)), (vec![4.0], vec![0]));
    // scatter works on bool and integer tensors too.
    let idx = Tensor::from_slice(&[2i32, 0], &[2], d).unwrap();
    let b = Tensor::zeros(&[3], DType::Bool, d).unwrap().scatter_value(0, &idx, 1.0).unwrap();
    assert_eq!(b.to_vec_blocking::<bool>().unwrap(), [true, false, true]);
    let n = Tensor::zeros(&[3], DType::I32, d).unwrap();
    let src = Tensor::from_slice(&[7i32, 9], &[2], d).unwrap();
    assert_eq!(n.scatter(0, &idx, &src).unwrap().to_vec_blocking::<i32>().unwrap(), [9, 0, 7]);
    // Repeated positions: the last source element in index order wins, on every device.
    let rep = Tensor::from_slice(&[1i32, 1, 1, 0], &[4], d).unwrap();
    let src = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4], d).unwrap();
    let out = Tensor::zeros(&[2], DType::F32, d).unwrap().scatter(0, &rep, &src).unwrap();
    assert_eq!(f32s(&out), [4.0, 3.0]);
}

fn bad_arguments_are_errors(d: Device) {
    let x = Tensor::randn(&[3, 4], Some(1), d).unwrap();
    let e = x.topk(5, 1, true).unwrap_err();
    assert!(e.to_string().contains("k = 5 is out of range") && e.to_string().contains("0..=4"), "{e}");
    assert!(matches!(x.sort(2, false), Err(Error::DimOutOfRange { .. })), "dim 2 of a 2-D tensor");
    let idx = Tensor::from_slice(&[0i32, 1], &[1, 2], d).unwrap();
    let e = x.scatter(1, &idx, &Tensor::randn(&[1, 1], Some(2), d).unwrap()).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
    let e = x.scatter(1, &idx.to_dtype(DType::F32).unwrap(), &x).unwrap_err();
    assert!(matches!(e, Error::DTypeMismatch { .. }), "{e}");
    if d != Device::CPU {
        let e = x.scatter(1, &idx.to_blocking(Device::CPU).unwrap(), &x).unwrap_err();
        assert!(e.to_string().contains("Expected all tensors to be on the same device"), "{e}");
    } else {
        // The CPU refuses an index out of range (GPU kernels cannot raise, see ops/index.rs).
        let far = Tensor::from_slice(&[0i32, 9], &[1, 2], d).unwrap();
        assert!(matches!(x.scatter(1, &far, &x), Err(Error::IndexOutOfRange { .. })));
    }
    // Nothing was lost: the inputs still compute.
    let (v, _) = x.topk(4, 1, false).unwrap();
    assert_eq!(f32s(&v).len(), 12);
}

fn shapes_on_meta(d: Device) {
    let x = Tensor::zeros(&[5, 7, 3], DType::F32, d).unwrap();
    let (v, i) = x.sort(1, true).unwrap();
    assert_eq!((v.shape(), i.shape(), i.dtype()), (&[5, 7, 3][..], &[5, 7, 3][..], DType::I32));
    let (v, i) = x.topk(2, 1, true).unwrap();
    assert_eq!((v.shape(), i.shape()), (&[5, 2, 3][..], &[5, 2, 3][..]));
    let idx = Tensor::zeros(&[5, 2, 3], DType::I32, d).unwrap();
    assert_eq!(x.scatter(1, &idx, &v).unwrap().shape(), &[5, 7, 3]);
}
