//! Literal fixtures for every op, on every device (cpu and the GPU under test), including
//! transposed, broadcast and offset views as inputs.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

device_main!(
    unary_ops,
    binary_ops_with_broadcast_and_scalars,
    reductions,
    softmax_is_stable,
    matmul_shapes,
    movement_and_indexing,
    casts_between_all_dtypes,
    nan_propagates_and_scalars_keep_their_value,
    logical_and_bitwise_ops,
    composed_reductions_and_scans
);
use webtensor::{BinaryOp, DType, Device, Tensor};

fn unary_ops(d: Device) {
    let x = t(&[-2.0, -0.5, 0.0, 0.5, 1.5, 2.5], &[2, 3], d);
    let cases: Vec<(&str, Tensor, Vec<f32>)> = vec![
        ("neg", x.neg().unwrap(), vec![2.0, 0.5, -0.0, -0.5, -1.5, -2.5]),
        ("abs", x.abs().unwrap(), vec![2.0, 0.5, 0.0, 0.5, 1.5, 2.5]),
        ("square", x.square().unwrap(), vec![4.0, 0.25, 0.0, 0.25, 2.25, 6.25]),
        ("relu", x.relu().unwrap(), vec![0.0, 0.0, 0.0, 0.5, 1.5, 2.5]),
        ("floor", x.floor().unwrap(), vec![-2.0, -1.0, 0.0, 0.0, 1.0, 2.0]),
        ("ceil", x.ceil().unwrap(), vec![-2.0, -0.0, 0.0, 1.0, 2.0, 3.0]),
        ("round", x.round().unwrap(), vec![-2.0, -0.0, 0.0, 0.0, 2.0, 2.0]),
        ("sign", x.sign().unwrap(), vec![-1.0, -1.0, 0.0, 1.0, 1.0, 1.0]),
        ("exp", x.exp().unwrap(), vec![0.135335, 0.606531, 1.0, 1.648721, 4.481689, 12.182494]),
        ("sigmoid", x.sigmoid().unwrap(), vec![0.119203, 0.377541, 0.5, 0.622459, 0.817574, 0.924142]),
        ("tanh", x.tanh().unwrap(), vec![-0.964028, -0.462117, 0.0, 0.462117, 0.905148, 0.986614]),
        ("sin", x.sin().unwrap(), vec![-0.909297, -0.479426, 0.0, 0.479426, 0.997495, 0.598472]),
        ("cos", x.cos().unwrap(), vec![-0.416147, 0.877583, 1.0, 0.877583, 0.070737, -0.801144]),
        ("gelu", x.gelu().unwrap(), vec![-0.0455, -0.154269, 0.0, 0.345731, 1.399789, 2.484476]),
        ("silu", x.silu().unwrap(), vec![-0.238406, -0.18877, 0.0, 0.31123, 1.226362, 2.310355]),
    ];
    for (name, got, want) in cases {
        assert_close(&f32s(&got), &want, 1e-5, &format!("{name} on {d}"));
    }
    let p = t(&[0.25, 1.0, 4.0, 9.0], &[4], d);
    assert_close(&f32s(&p.sqrt().unwrap()), &[0.5, 1.0, 2.0, 3.0], 1e-6, "sqrt");
    assert_close(&f32s(&p.rsqrt().unwrap()), &[2.0, 1.0, 0.5, 1.0 / 3.0], 1e-6, "rsqrt");
    assert_close(&f32s(&p.reciprocal().unwrap()), &[4.0, 1.0, 0.25, 1.0 / 9.0], 1e-6, "reciprocal");
    assert_close(&f32s(&p.log().unwrap()), &[-1.386294, 0.0, 1.386294, 2.197225], 1e-5, "log");
    // A transposed view as input: the op reads through strides.
    let tv = x.t().unwrap();
    assert_close(
        &f32s(&tv.abs().unwrap()),
        &[2.0, 0.5, 0.5, 1.5, 0.0, 2.5],
        0.0,
        &format!("abs of a transposed view on {d}"),
    );
    // Integer forms keep the dtype; float-only ops promote to f32.
    let i = Tensor::from_slice(&[-3i32, 0, 4], &[3], d).unwrap();
    assert_eq!(i.abs().unwrap().dtype(), DType::I32);
    assert_eq!(i32s(&i.abs().unwrap()), vec![3, 0, 4]);
    assert_eq!(i32s(&i.neg().unwrap()), vec![3, 0, -4]);
    assert_eq!(i32s(&i.sign().unwrap()), vec![-1, 0, 1]);
    assert_eq!(i.exp().unwrap().dtype(), DType::F32);
    assert_close(&f32s(&i.exp().unwrap()), &[0.049787, 1.0, 54.59815], 1e-5, "exp of i32");
}

fn binary_ops_with_broadcast_and_scalars(d: Device) {
    let a = t(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], d);
    let col = t(&[10.0, 20.0], &[2, 1], d);
    let row = t(&[1.0, 0.0, -1.0], &[3], d);
    assert_close(&f32s(&a.add(&col).unwrap()), &[11.0, 12.0, 13.0, 24.0, 25.0, 26.0], 0.0, "add col");
    assert_close(&f32s(&a.sub(&row).unwrap()), &[0.0, 2.0, 4.0, 3.0, 5.0, 7.0], 0.0, "sub row");
    assert_close(&f32s(&a.mul(&row).unwrap()), &[1.0, 0.0, -3.0, 4.0, 0.0, -6.0], 0.0, "mul row");
    assert_close(&f32s(&a.div(&col).unwrap()), &[0.1, 0.2, 0.3, 0.2, 0.25, 0.3], 1e-6, "div col");
    assert_close(&f32s(&a.pow_scalar(2.0).unwrap()), &[1.0, 4.0, 9.0, 16.0, 25.0, 36.0], 1e-5, "pow");
    let neg = t(&[-2.0, -2.0, 0.0], &[3], d);
    let e = t(&[2.0, 3.0, 0.0], &[3], d);
    assert_close(&f32s(&neg.pow(&e).unwrap()), &[4.0, -8.0, 1.0], 1e-5, "pow of negative bases");
    assert_close(&f32s(&a.maximum_scalar(3.5).unwrap()), &[3.5, 3.5, 3.5, 4.0, 5.0, 6.0], 0.0, "maximum");
    assert_close(&f32s(&a.minimum(&row).unwrap()), &[1.0, 0.0, -1.0, 1.0, 0.0, -1.0], 0.0, "minimum");
    assert_close(&f32s(&a.add_scalar(0.5).unwrap()), &[1.5, 2.5, 3.5, 4.5, 5.5, 6.5], 0.0, "add scalar");
    // Comparisons give bool.
    let gt = a.gt_scalar(3.0).unwrap();
    assert_eq!(gt.dtype(), DType::Bool);
    assert_eq!(gt.to_vec_blocking::<bool>().unwrap(), vec![false, false, false, true, true, true]);
    assert_eq!(i32s(&a.eq(&a.t().unwrap().t().unwrap()).unwrap()), vec![1; 6]);
    assert_eq!(i32s(&a.le_scalar(2.0).unwrap()), vec![1, 1, 0, 0, 0, 0]);
    assert_eq!(i32s(&a.ne_scalar(2.0).unwrap()), vec![1, 0, 1, 1, 1, 1]);
    assert_eq!(i32s(&a.lt(&col).unwrap()), vec![1; 6]);
    assert_eq!(i32s(&a.ge_scalar(5.0).unwrap()), vec![0, 0, 0, 0, 1, 1]);
    // Offset view (narrow) plus transposed view.
    let n = a.narrow(1, 1, 2).unwrap(); // [[2,3],[5,6]]
    let s = n.add(&n.t().unwrap()).unwrap(); // [[4,8],[8,12]]
    assert_close(&f32s(&s), &[4.0, 8.0, 8.0, 12.0], 0.0, &format!("offset + transposed views on {d}"));
    // Integer arithmetic stays integer; division promotes to f32 (true division).
    let i = Tensor::from_slice(&[7i32, -7, 9], &[3], d).unwrap();
    assert_eq!(i32s(&i.add_scalar(3.0).unwrap()), vec![10, -4, 12]);
    assert_eq!(i.add_scalar(3.0).unwrap().dtype(), DType::I32);
    assert_eq!(i.div_scalar(2.0).unwrap().dtype(), DType::F32);
    assert_close(&f32s(&i.div_scalar(2.0).unwrap()), &[3.5, -3.5, 4.5], 0.0, "int div");
    assert_eq!(i.add_scalar(0.5).unwrap().dtype(), DType::F32);
    // where and clamp.
    let w = a.gt_scalar(3.0).unwrap().where_(&a, &a.neg().unwrap()).unwrap();
    assert_close(&f32s(&w), &[-1.0, -2.0, -3.0, 4.0, 5.0, 6.0], 0.0, "where");
    let wb = row.gt_scalar(0.5).unwrap().where_(&a, &col).unwrap();
    assert_close(&f32s(&wb), &[1.0, 10.0, 10.0, 4.0, 20.0, 20.0], 0.0, "where with broadcasting");
    assert_close(&f32s(&a.clamp(Some(2.0), Some(4.5)).unwrap()), &[2.0, 2.0, 3.0, 4.0, 4.5, 4.5], 0.0, "clamp");
}

fn reductions(d: Device) {
    let a = t(&[1.0, 5.0, 3.0, 4.0, 2.0, 6.0], &[2, 3], d);
    assert_close(&f32s(&a.sum(&[1], false).unwrap()), &[9.0, 12.0], 0.0, "sum dim 1");
    assert_close(&f32s(&a.sum(&[0], true).unwrap()), &[5.0, 7.0, 9.0], 0.0, "sum dim 0");
    assert_eq!(a.sum(&[0], true).unwrap().shape(), &[1, 3]);
    assert_close(&f32s(&a.sum_all().unwrap()), &[21.0], 0.0, "sum all");
    assert_eq!(a.sum_all().unwrap().shape(), &[] as &[usize]);
    assert_close(&f32s(&a.mean(&[-1], false).unwrap()), &[3.0, 4.0], 1e-6, "mean");
    assert_close(&f32s(&a.mean_all().unwrap()), &[3.5], 1e-6, "mean all");
    assert_close(&f32s(&a.max(&[1], false).unwrap()), &[5.0, 6.0], 0.0, "max");
    assert_close(&f32s(&a.min(&[0], false).unwrap()), &[1.0, 2.0, 3.0], 0.0, "min");
    assert_close(&f32s(&a.prod(&[1], false).unwrap()), &[15.0, 48.0], 0.0, "prod");
    assert_close(&f32s(&a.prod_all().unwrap()), &[720.0], 0.0, "prod all");
    assert_eq!(i32s(&a.argmax(Some(1), false).unwrap()), vec![1, 2]);
    assert_eq!(i32s(&a.argmin(Some(0), false).unwrap()), vec![0, 1, 0]);
    assert_eq!(i32s(&a.argmax(None, false).unwrap()), vec![5]);
    assert_eq!(a.argmax(None, true).unwrap().shape(), &[1, 1]);
    // Ties give the first index, as in PyTorch.
    let ties = t(&[2.0, 7.0, 7.0, 1.0], &[4], d);
    assert_eq!(i32s(&ties.argmax(Some(0), false).unwrap()), vec![1]);
    assert_close(&f32s(&a.var(&[1], 1, false).unwrap()), &[4.0, 4.0], 1e-5, "var");
    assert_close(&f32s(&a.var_all(0).unwrap()), &[35.0 / 12.0], 1e-5, "var all, biased");
    assert_close(&f32s(&a.std(&[0], 1, false).unwrap()), &[2.1213203, 2.1213203, 2.1213203], 1e-5, "std");
    // Reducing over several dims, and over a transposed view.
    let b = Tensor::arange(0.0, 24.0, 1.0, DType::F32, d).unwrap().reshape(&[2, 3, 4]).unwrap();
    assert_close(&f32s(&b.sum(&[0, 2], false).unwrap()), &[60.0, 92.0, 124.0], 0.0, "sum dims 0,2");
    assert_close(
        &f32s(&b.transpose(0, 2).unwrap().sum(&[2], false).unwrap()),
        &[12.0, 20.0, 28.0, 14.0, 22.0, 30.0, 16.0, 24.0, 32.0, 18.0, 26.0, 34.0],
        0.0,
        "sum of transposed",
    );
    // Integer and bool reductions.
    let i = Tensor::from_slice(&[3i32, -1, 4, 1], &[4], d).unwrap();
    assert_eq!(i32s(&i.sum_all().unwrap()), vec![7]);
    assert_eq!(i.sum_all().unwrap().dtype(), DType::I32);
    assert_eq!(i32s(&i.max_all().unwrap()), vec![4]);
    let bools = i.gt_scalar(0.0).unwrap();
    assert_eq!(i32s(&bools.sum_all().unwrap()), vec![3]);
    // Empty reductions: sum is 0, max is an error.
    let e = Tensor::zeros(&[0, 3], DType::F32, d).unwrap();
    assert_close(&f32s(&e.sum(&[0], false).unwrap()), &[0.0, 0.0, 0.0], 0.0, "empty sum");
    assert!(e.max(&[0], false).unwrap_err().to_string().contains("empty"));
}

fn softmax_is_stable(d: Device) {
    let x = t(&[1.0, 2.0, 3.0, 1000.0, 1000.0, 1000.0], &[2, 3], d);
    assert_close(
        &f32s(&x.softmax(-1).unwrap()),
        &[0.090031, 0.244728, 0.665241, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0],
        1e-5,
        "softmax",
    );
    assert_close(
        &f32s(&x.log_softmax(1).unwrap()),
        &[-2.407606, -1.407606, -0.407606, -1.098612, -1.098612, -1.098612],
        1e-5,
        "log_softmax",
    );
    let s0 = x.softmax(0).unwrap();
    assert_eq!(s0.shape(), &[2, 3]);
    assert_close(&f32s(&s0.sum(&[0], false).unwrap()), &[1.0, 1.0, 1.0], 1e-6, "softmax over dim 0 sums to 1");
}

fn matmul_shapes(d: Device) {
    let a = t(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], d);
    let b = t(&[7.0, 8.0, 9.0, 10.0, 11.0, 12.0], &[3, 2], d);
    assert_close(&f32s(&a.matmul(&b).unwrap()), &[58.0, 64.0, 139.0, 154.0], 0.0, "2-D");
    assert_close(&f32s(&a.matmul(&a.t().unwrap()).unwrap()), &[14.0, 32.0, 32.0, 77.0], 0.0, "transposed operand");
    let v = t(&[1.0, 0.0, -1.0], &[3], d);
    let mv = a.matmul(&v).unwrap();
    assert_eq!(mv.shape(), &[2]);
    assert_close(&f32s(&mv), &[-2.0, -2.0], 0.0, "matrix-vector");
    let vm = v.matmul(&b).unwrap();
    assert_eq!(vm.shape(), &[2]);
    assert_close(&f32s(&vm), &[-4.0, -4.0], 0.0, "vector-matrix");
    let vv = v.matmul(&v).unwrap();
    assert_eq!(vv.shape(), &[] as &[usize]);
    assert_close(&f32s(&vv), &[2.0], 0.0, "dot");
    // Batched with a broadcast batch dim: [2, 2, 3] @ [3, 2].
    let batch = Tensor::stack(&[a.clone(), a.neg().unwrap()], 0).unwrap();
    let bm = batch.matmul(&b).unwrap();
    assert_eq!(bm.shape(), &[2, 2, 2]);
    assert_close(&f32s(&bm), &[58.0, 64.0, 139.0, 154.0, -58.0, -64.0, -139.0, -154.0], 0.0, "batched");
    let i = Tensor::from_slice(&[1i32, 2, 3, 4], &[2, 2], d).unwrap();
    assert_eq!(i32s(&i.matmul(&i).unwrap()), vec![7, 10, 15, 22]);
}

fn movement_and_indexing(d: Device) {
    let a = Tensor::arange(0.0, 6.0, 1.0, DType::F32, d).unwrap().reshape(&[2, 3]).unwrap();
    let b = Tensor::arange(6.0, 12.0, 1.0, DType::F32, d).unwrap().reshape(&[2, 3]).unwrap();
    assert_close(
        &f32s(&Tensor::cat(&[a.clone(), b.clone()], 0).unwrap()),
        &(0..12).map(|x| x as f32).collect::<Vec<_>>(),
        0.0,
        "cat 0",
    );
    assert_close(
        &f32s(&Tensor::cat(&[a.clone(), b.clone()], 1).unwrap()),
        &[0.0, 1.0, 2.0, 6.0, 7.0, 8.0, 3.0, 4.0, 5.0, 9.0, 10.0, 11.0],
        0.0,
        "cat 1",
    );
    let st = Tensor::stack(&[a.clone(), b.clone()], 2).unwrap();
    assert_eq!(st.shape(), &[2, 3, 2]);
    assert_close(&f32s(&st), &[0.0, 6.0, 1.0, 7.0, 2.0, 8.0, 3.0, 9.0, 4.0, 10.0, 5.0, 11.0], 0.0, "stack");
    assert_close(
        &f32s(&Tensor::cat(&[a.t().unwrap(), b.t().unwrap()], 0).unwrap()),
        &[0.0, 3.0, 1.0, 4.0, 2.0, 5.0, 6.0, 9.0, 7.0, 10.0, 8.0, 11.0],
        0.0,
        "cat of transposed views",
    );
    let idx = Tensor::from_slice(&[2i32, 0, 2], &[3], d).unwrap();
    let sel = a.index_select(1, &idx).unwrap();
    assert_close(&f32s(&sel), &[2.0, 0.0, 2.0, 5.0, 3.0, 5.0], 0.0, "index_select");
    let gidx = Tensor::from_slice(&[0u32, 0, 1, 1, 0, 1], &[2, 3], d).unwrap();
    let g = a.gather(0, &Tensor::from_slice(&[1i32, 0, 1], &[1, 3], d).unwrap()).unwrap();
    assert_close(&f32s(&g), &[3.0, 1.0, 5.0], 0.0, "gather dim 0");
    let g1 = a.gather(1, &gidx).unwrap();
    assert_close(&f32s(&g1), &[0.0, 0.0, 1.0, 4.0, 3.0, 4.0], 0.0, "gather dim 1 (u32 index)");
    // Views share storage and copy nothing.
    let v = a.t().unwrap().unsqueeze(0).unwrap().squeeze(None).unwrap();
    assert!(v.shares_storage_with(&a));
    assert!(a.expand(&[4, 2, 3]).unwrap().shares_storage_with(&a));
    assert_eq!(a.unsqueeze(1).unwrap().expand(&[2, 4, 3]).unwrap().layout().strides(), &[3, 0, 1]);
    assert_close(
        &f32s(&a.t().unwrap().contiguous().unwrap()),
        &[0.0, 3.0, 1.0, 4.0, 2.0, 5.0],
        0.0,
        "contiguous of transposed",
    );
    assert_close(
        &f32s(&a.t().unwrap().reshape(&[-1]).unwrap()),
        &[0.0, 3.0, 1.0, 4.0, 2.0, 5.0],
        0.0,
        "reshape copies a non-contiguous view",
    );
    assert!(a.t().unwrap().view(&[-1]).is_err());
    assert_close(&f32s(&a.slice(1, 1..3).unwrap()), &[1.0, 2.0, 4.0, 5.0], 0.0, "slice");
    assert_close(&f32s(&a.permute(&[1, 0]).unwrap()), &[0.0, 3.0, 1.0, 4.0, 2.0, 5.0], 0.0, "permute");
}

fn casts_between_all_dtypes(d: Device) {
    let x = t(&[-1.7, 0.0, 2.5, 300.0], &[4], d);
    assert_eq!(i32s(&x.to_dtype(DType::I32).unwrap()), vec![-1, 0, 2, 300]);
    assert_eq!(x.to_dtype(DType::U32).unwrap().to_vec_blocking::<u32>().unwrap(), vec![0, 0, 2, 300]);
    assert_eq!(x.to_dtype(DType::Bool).unwrap().to_vec_blocking::<bool>().unwrap(), vec![true, false, true, true]);
    let i = Tensor::from_slice(&[-1i32, 5], &[2], d).unwrap();
    assert_eq!(i.to_dtype(DType::U32).unwrap().to_vec_blocking::<u32>().unwrap(), vec![u32::MAX, 5]);
    let b = Tensor::from_slice(&[true, false, true], &[3], d).unwrap();
    assert_close(&f32s(&b), &[1.0, 0.0, 1.0], 0.0, "bool to f32");
    // Integers are promoted to f32 before the kernel, which has only float instances.
    let si = Tensor::from_slice(&[1i32, 2, 3], &[3], d).unwrap().log_softmax(0).unwrap();
    assert_eq!(si.dtype(), DType::F32);
    assert_close(&f32s(&si), &[-2.407_606, -1.407_606, -0.407_606], 1e-6, &format!("i32 log_softmax on {d}"));
    if has_f16(d) {
        let h = x.to_dtype(DType::F16).unwrap();
        assert_eq!(h.dtype(), DType::F16);
        assert_close(&f32s(&h), &[-1.7001953, 0.0, 2.5, 300.0], 0.0, &format!("f16 round trip on {d}"));
        let hs = h.add(&h).unwrap().sum_all().unwrap();
        assert_eq!(hs.dtype(), DType::F16);
        assert_close(&f32s(&hs), &[601.6], 1e-3, "f16 arithmetic");
        let hm = h.reshape(&[2, 2]).unwrap().matmul(&h.reshape(&[2, 2]).unwrap()).unwrap();
        assert_close(
            &f32s(&hm),
            &[2.890664, 0.0, 745.7495, f32::INFINITY],
            2e-3,
            "f16 matmul (300² overflows f16 to inf)",
        );
        assert_close(&f32s(&h.softmax(0).unwrap()), &f32s(&x.softmax(0).unwrap()), 1e-3, "f16 softmax");
    }
}

fn nan_propagates_and_scalars_keep_their_value(d: Device) {
    let x = t(&[1.0, f32::NAN, 3.0], &[3], d);
    let m = f32s(&x.maximum_scalar(2.0).unwrap());
    assert!(m[0] == 2.0 && m[1].is_nan() && m[2] == 3.0, "maximum on {d}: {m:?}");
    let c = f32s(&x.clamp(Some(0.0), Some(2.0)).unwrap());
    assert!(c[0] == 1.0 && c[1].is_nan() && c[2] == 2.0, "clamp keeps NaN on {d}: {c:?}");
    assert!(f32s(&x.max_all().unwrap())[0].is_nan(), "max_all on {d}");
    assert!(f32s(&x.min_all().unwrap())[0].is_nan(), "min_all on {d}");
    let first = t(&[f32::NAN, 1.0, 5.0], &[3], d);
    assert!(f32s(&first.max_all().unwrap())[0].is_nan(), "order does not matter on {d}");
    assert_eq!(i32s(&x.argmax(None, false).unwrap()), vec![1], "argmax finds the NaN on {d}");
    // A row long enough for the tree reduction, with two NaNs in different threads' slots:
    // the first NaN wins, as on the CPU.
    let mut long = vec![0.0f32; 300];
    long[256] = f32::NAN;
    long[5] = f32::NAN;
    let long = t(&long, &[1, 300], d);
    assert_eq!(i32s(&long.argmax(Some(1), false).unwrap()), vec![5], "argmax picks the first NaN on {d}");
    assert_eq!(i32s(&long.argmin(Some(1), false).unwrap()), vec![5], "argmin picks the first NaN on {d}");
    // Of -0 and +0 the first is the maximum (and the minimum of their negations) on the CPU,
    // whichever kernel the shape picks: a single row, rows past 16, rows of a tap fold. GPUs
    // may keep either zero (their lanes race; js/test/rows.mjs says the same), equal to 0.
    for (m, k) in [(1, 40), (2, 40), (2, 16), (3, 1000)] {
        let mut v = vec![-1.0f32; m * k];
        for r in 0..m {
            v[r * k + 2] = -0.0;
            v[r * k + 9] = 0.0;
        }
        let max = f32s(&t(&v, &[m, k], d).amax(&[1], false).unwrap());
        let cpu = d == Device::CPU;
        assert!(max.iter().all(|x| *x == 0.0 && (!cpu || x.is_sign_negative())), "amax [{m}, {k}] on {d}: {max:?}");
        let neg: Vec<f32> = v.iter().map(|x| -x).collect();
        let min = f32s(&t(&neg, &[m, k], d).amin(&[1], false).unwrap());
        assert!(min.iter().all(|x| *x == 0.0 && (!cpu || x.is_sign_positive())), "amin [{m}, {k}] on {d}: {min:?}");
    }
    // Scalars keep their value whatever the tensor's dtype.
    let b = Tensor::from_slice(&[true, false], &[2], d).unwrap();
    assert_eq!(i32s(&b.add_scalar(2.0).unwrap()), vec![3, 2], "bool + 2 on {d}");
    assert_eq!(b.eq_scalar(2.0).unwrap().to_vec_blocking::<bool>().unwrap(), vec![false, false]);
    let i = Tensor::from_slice(&[i32::MAX, 5], &[2], d).unwrap();
    assert_eq!(
        i.eq_scalar(1e10).unwrap().to_vec_blocking::<bool>().unwrap(),
        vec![false, false],
        "out-of-range scalar on {d}"
    );
    // var with correction > n divides by zero (inf), never goes negative.
    let v = f32s(&t(&[1.0, 2.0], &[2], d).var_all(3).unwrap())[0];
    assert!(v.is_infinite() && v > 0.0, "var correction on {d}: {v}");
    // Empty tensors are contiguous and view freely.
    let e = Tensor::zeros(&[2, 0], DType::F32, d).unwrap();
    assert!(e.is_contiguous());
    assert_eq!(e.view(&[0]).unwrap().shape(), &[0]);
}

/// PyTorch's answers (worked out with torch 2.x): truth is "nonzero" (NaN and -0.0 included
/// as torch has them: NaN true, -0.0 false), `~` flips bits, bool bitwise ops stay bool, floats
/// are refused by the bitwise ops, and `lerp` with weight 1 gives `end` exactly.
fn logical_and_bitwise_ops(d: Device) {
    let bools = |x: &Tensor| x.to_vec_blocking::<bool>().unwrap();
    let a = t(&[0.0, 1.5, f32::NAN, -0.0], &[4], d);
    let b = t(&[2.0, 0.0, 3.0, -1.0], &[4], d);
    assert_eq!(bools(&a.logical_and(&b).unwrap()), [false, false, true, false], "logical_and on {d}");
    assert_eq!(bools(&a.logical_or(&b).unwrap()), [true, true, true, true], "logical_or on {d}");
    assert_eq!(bools(&a.logical_xor(&b).unwrap()), [true, true, false, true], "logical_xor on {d}");
    assert_eq!(bools(&a.logical_not().unwrap()), [true, false, false, true], "logical_not on {d}");
    // Broadcasting against an integer tensor.
    let i = Tensor::from_slice(&[0i32, 7], &[2, 1], d).unwrap();
    assert_eq!(
        bools(&i.logical_and(&b).unwrap()),
        [false; 4].into_iter().chain([true, false, true, true]).collect::<Vec<_>>()
    );
    let i = Tensor::from_slice(&[0i32, -1, 5], &[3], d).unwrap();
    assert_eq!(i32s(&i.bitwise_not().unwrap()), [-1, 0, -6], "bitwise_not i32 on {d}");
    let u = Tensor::from_slice(&[0u32, 5], &[2], d).unwrap();
    assert_eq!(u.bitwise_not().unwrap().to_vec_blocking::<u32>().unwrap(), [u32::MAX, u32::MAX - 5]);
    let p = Tensor::from_slice(&[true, true, false], &[3], d).unwrap();
    let q = Tensor::from_slice(&[true, false, false], &[3], d).unwrap();
    let and = p.bitwise_and(&q).unwrap();
    assert_eq!(and.dtype(), DType::Bool);
    assert_eq!(bools(&and), [true, false, false]);
    assert_eq!(bools(&p.bitwise_xor(&q).unwrap()), [false, true, false]);
    assert_eq!(bools(&p.bitwise_not().unwrap()), [false, false, true]);
    // bool & True stays bool (PyTorch's); bool << 1 counts in i32.
    let with_true = p.bitwise_and_scalar(1.0).unwrap();
    assert_eq!((with_true.dtype(), bools(&with_true)), (DType::Bool, vec![true, true, false]));
    assert_eq!(p.bitwise_left_shift_scalar(1.0).unwrap().dtype(), DType::I32);
    // lerp interpolates floats only.
    let ints = Tensor::from_slice(&[1i32, 2], &[2], d).unwrap();
    assert!(ints.lerp_scalar(&ints, 0.5).unwrap_err().to_string().contains("floating-point"));
    let err = a.bitwise_and(&b).unwrap_err().to_string();
    assert!(err.contains("bitwise_and") && err.contains("integer or bool"), "{err}");
    assert!(a.bitwise_not().is_err());
    // The float tensor is still usable after the refusals.
    assert_eq!(f32s(&a.abs().unwrap())[1], 1.5);
    let end = t(&[3.0e-8, 1.0e30, -7.25], &[3], d);
    let start = t(&[1.0, -2.0, 5.0], &[3], d);
    assert_eq!(f32s(&start.lerp_scalar(&end, 1.0).unwrap()), f32s(&end), "lerp(1) on {d}");
    assert_close(&f32s(&start.lerp_scalar(&end, 0.25).unwrap()), &[0.75, 2.5e29, 1.9375], 1e-6, "lerp(0.25)");
    // Integer remainder, fmod and floor division by zero give 0 (NumPy's rule), on every device.
    let n = Tensor::from_slice(&[7i32, -7, 0], &[3], d).unwrap();
    let z = n.zeros_like().unwrap();
    for op in [BinaryOp::Remainder, BinaryOp::Fmod, BinaryOp::FloorDivide] {
        assert_eq!(i32s(&n.binary(&z, op).unwrap()), [0, 0, 0], "{} by zero on {d}", op.name());
    }
}

/// PyTorch's answers for the non-differentiable composed reductions and the integer scans:
/// `all`/`any` count NaN as true and give true/false over nothing; `cumsum` of bool counts in
/// i32; `norm(0)` counts nonzeros; bad arguments are clear errors.
fn composed_reductions_and_scans(d: Device) {
    let bools = |x: &Tensor| x.to_vec_blocking::<bool>().unwrap();
    let x = t(&[0.0, f32::NAN, 2.0, 1.0, 0.0, 0.0], &[2, 3], d);
    assert_eq!(bools(&x.all(&[1], false).unwrap()), [false, false], "all on {d}");
    assert_eq!(bools(&x.any(&[1], false).unwrap()), [true, true], "any on {d}");
    assert_eq!(bools(&x.any(&[0], true).unwrap()), [true, true, true]);
    assert_eq!(x.all(&[0], true).unwrap().shape(), &[1, 3]);
    let empty = Tensor::zeros(&[0, 2], DType::F32, d).unwrap();
    assert_eq!(bools(&empty.all(&[0], false).unwrap()), [true, true], "all of nothing on {d}");
    assert_eq!(bools(&empty.any(&[0], false).unwrap()), [false, false], "any of nothing on {d}");
    assert!(!empty.any_all().unwrap().item_blocking::<bool>().unwrap());
    // PyTorch refuses integers in leaky_relu (a slope would round away) and elu; the tensor
    // stays usable.
    let ints = Tensor::from_slice(&[-3i32, 4], &[2], d).unwrap();
    let e = ints.leaky_relu(0.5).unwrap_err();
    assert!(e.to_string().contains("to_dtype(f32)"), "{e}");
    for alpha in [1.0, 0.5] {
        let e = ints.elu(alpha).unwrap_err();
        assert!(e.to_string().contains("elu takes floating-point input"), "{e}");
        // The gradient is alpha e^x at or below 0 (PyTorch's elu_backward from the input): still
        // e^-20 far below, where expm1 has rounded to -1; 1 for NaN, as PyTorch gives.
        let x =
            Tensor::from_slice(&[-20.0f32, -1.0, 0.0, 2.0, f32::NAN], &[5], d).unwrap().requires_grad_(true).unwrap();
        x.elu(alpha).unwrap().sum_all().unwrap().backward().unwrap();
        let want: Vec<f32> =
            [(-20.0f64).exp() * alpha, (-1.0f64).exp() * alpha, alpha, 1.0, 1.0].iter().map(|&v| v as f32).collect();
        let got = f32s(&x.grad().unwrap());
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-6 * w.abs(), "elu({alpha}) gradient on {d}: got {got:?}, want {want:?}");
        }
    }
    assert_eq!(i32s(&ints.relu().unwrap()), [0, 4]);
    let b = Tensor::from_slice(&[true, false, true, true], &[4], d).unwrap();
    let c = b.cumsum(0).unwrap();
    assert_eq!((c.dtype(), i32s(&c)), (DType::I32, vec![1, 1, 2, 3]), "cumsum of bool on {d}");
    let i = Tensor::from_slice(&[3i32, -2, 5, 0, 7], &[5], d).unwrap();
    assert_eq!(i32s(&i.cumsum(0).unwrap()), [3, 1, 6, 6, 13]);
    assert_eq!(i32s(&i.cumprod(0).unwrap()), [3, -6, -30, 0, 0]);
    // A long scan (many doubling steps) against the running sum.
    let n = 1000;
    let ones = Tensor::ones(&[n], DType::F32, d).unwrap();
    assert_eq!(f32s(&ones.cumsum(-1).unwrap()), (1..=n).map(|v| v as f32).collect::<Vec<_>>());
    assert_eq!(f32s(&x.norm(0.0, &[], false).unwrap()), [3.0], "norm(0) counts NaN as nonzero on {d}");
    assert_eq!(f32s(&x.amax(&[0], false).unwrap())[2], 2.0);
    assert!(x.norm(f64::NAN, &[], false).unwrap_err().to_string().contains("p = NaN"));
    // Negative p, as PyTorch: (sum |x|^p)^(1/p); a zero element makes it 0.
    assert_close(&f32s(&t(&[1.0, -2.0, 4.0], &[3], d).norm(-1.0, &[], false).unwrap()), &[4.0 / 7.0], 1e-6, "norm(-1)");
    assert_eq!(f32s(&t(&[0.0, 3.0], &[2], d).norm(-1.0, &[], false).unwrap()), [0.0], "norm(-1) with a zero on {d}");
    let parts = t(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5], d).split(2, 0).unwrap();
    assert_eq!(parts.iter().map(f32s).collect::<Vec<_>>(), [vec![1.0, 2.0], vec![3.0, 4.0], vec![5.0]]);
    let err = t(&[1.0, 2.0], &[2], d).split_sizes(&[1, 2], 0).unwrap_err().to_string();
    assert!(err.contains("add up to 3"), "{err}");
    assert_eq!(t(&[1.0, 2.0, 3.0], &[3], d).chunk(2, 0).unwrap().len(), 2);
    let m = t(&[1.0, 2.0, 3.0, 4.0], &[2, 2], d);
    let mask = Tensor::from_slice(&[true, false], &[2], d).unwrap();
    assert_eq!(f32s(&m.masked_fill(&mask, -1.0).unwrap()), [-1.0, 2.0, -1.0, 4.0]);
    assert!(m.masked_fill(&m, 0.0).unwrap_err().to_string().contains("bool"));
    assert_eq!(f32s(&m.repeat(&[1, 2]).unwrap()), [1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0]);
}
