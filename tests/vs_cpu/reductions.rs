//! Reductions and softmax on the GPU against the CPU (the case lists also run under both
//! kernel shapes, see main.rs).

use super::{check, randn};
use webtensor::{DType, Device, ReduceOp, Tensor};

/// (Runs where there is an accelerator: `check` compares each with the CPU.)
pub(crate) fn reductions_match_cpu(_gpu: Device) {
    reduction_cases();
}

pub(crate) fn reduction_cases() {
    let cases: [(&[usize], &[isize]); 14] = [
        // Strided views reduced in place (columns, a middle dim, BatchNorm's N/H/W, and a view
        // with more dims than the GPU kernel takes, which is gathered). Hardware GPUs gather
        // these (too few outputs for their folds: op::reduce::InPlace) and reduce the next three
        // in place: many outputs of short folds, one or two kept and reduced dims.
        (&[1000, 300], &[0]),
        (&[64, 9000], &[0]),
        (&[3, 40, 3000], &[1]),
        (&[4, 9000, 2, 3], &[0, 2, 3]),
        (&[6, 40, 50], &[1]),
        (&[4, 64, 8, 8], &[0, 2, 3]),
        (&[3, 4, 5, 6, 7], &[0, 2, 4]),
        (&[100_003], &[0]),
        // Rows past 128 chunks of 4096: chunks grow (and end with a partial one).
        (&[2, 700_001], &[1]),
        (&[3, 5000], &[1]),
        (&[300, 7], &[0]),
        (&[4, 5, 6], &[0, 2]),
        (&[2, 3, 70_000], &[2]),
        (&[1, 1], &[0, 1]),
    ];
    for op in ReduceOp::ALL {
        for (shape, dims) in cases {
            // f32 products of 700k factors drift ~1e-4 from the CPU's f64 accumulation.
            let tol = if op == ReduceOp::Prod && shape.iter().product::<usize>() > 1 << 20 { 1e-3 } else { 1e-4 };
            check(&format!("{} {shape:?} over {dims:?}", op.name()), tol, |d| {
                // Prod of many randn values under/overflows: use values near 1.
                let x = randn(shape, 11, d);
                let x = if op == ReduceOp::Prod { x.mul_scalar(0.001).unwrap().add_scalar(1.0).unwrap() } else { x };
                if op == ReduceOp::ArgMax || op == ReduceOp::ArgMin {
                    x.reduce(op, Some(&dims[..1]), false).unwrap()
                } else {
                    x.reduce(op, Some(dims), false).unwrap()
                }
            });
        }
    }
    check("mean/var/std", 1e-4, |d| {
        let x = randn(&[9, 1234], 12, d);
        Tensor::cat(&[x.mean(&[1], false).unwrap(), x.var(&[1], 1, false).unwrap(), x.std(&[1], 0, false).unwrap()], 0)
            .unwrap()
    });
    check("sum of a large flat tensor", 1e-4, |d| randn(&[1 << 20], 13, d).sum_all().unwrap());
    // Rows of whole vec4s (software adapters' first pass four at a time, reduce_sum4.wgsl): from
    // an aligned offset and an unaligned one (the per-element pass), many rows and one, and
    // NaN and infinities carried through.
    check("sums of rows of whole vec4s", 1e-4, |d| {
        let x = randn(&[8, 4100], 15, d);
        let flat = x.flatten().unwrap();
        let rows = |off: usize| flat.narrow(0, off, 8 * 4096).unwrap().reshape(&[8, 4096]).unwrap();
        let special = Tensor::from_slice(&[f32::NAN, 1.0, 2.0, 3.0], &[4], d).unwrap();
        let inf = Tensor::from_slice(&[f32::INFINITY, 1.0, -1.0, 3.0], &[4], d).unwrap();
        let long = |t: &Tensor| Tensor::cat(&[x.flatten().unwrap(), t.clone()], 0).unwrap().sum_all().unwrap();
        Tensor::cat(
            &[
                rows(4).sum(&[1], false).unwrap(),
                rows(1).sum(&[1], false).unwrap(),
                x.sum(&[1], false).unwrap(),
                x.narrow(1, 4, 4096).unwrap().contiguous().unwrap().sum_all().unwrap().reshape(&[1]).unwrap(),
                long(&special).reshape(&[1]).unwrap(),
                long(&inf).reshape(&[1]).unwrap(),
            ],
            0,
        )
        .unwrap()
    });
    check("int sum", 0.0, |d| {
        randn(&[100_000], 14, d).mul_scalar(10.0).unwrap().to_dtype(DType::I32).unwrap().sum_all().unwrap()
    });
    scan_cases();
}

/// cumsum by the scan family (a thread per column): along the last, a middle and the first
/// dim, of a narrowed view (an offset), rows longer than a workgroup, i32 wrapping past its
/// range, and a bool tensor counted in i32. f32 sums in f32 on GPUs against f64 on the CPU.
pub(crate) fn scan_cases() {
    let cases: [(&[usize], isize); 5] =
        [(&[37, 1000], -1), (&[6, 300, 5], 1), (&[2000, 3], 0), (&[5000], 0), (&[1], 0)];
    for (shape, dim) in cases {
        check(&format!("cumsum {shape:?} along {dim}"), 1e-3, |d| randn(shape, 16, d).cumsum(dim).unwrap());
    }
    check("cumsum of a narrowed view", 1e-4, |d| {
        randn(&[9, 70], 17, d).narrow(0, 3, 4).unwrap().narrow(1, 5, 60).unwrap().cumsum(1).unwrap()
    });
    check("cumsum of i32 wraps", 0.0, |d| {
        Tensor::from_slice(&[i32::MAX, 1, 5, -7, i32::MIN, -1], &[2, 3], d).unwrap().cumsum(1).unwrap()
    });
    check("cumsum of bool counts", 0.0, |d| randn(&[3, 500], 18, d).gt_scalar(0.0).unwrap().cumsum(1).unwrap());
}

/// (Runs where there is an accelerator: `check` compares each with the CPU.)
pub(crate) fn softmax_matches_cpu(_gpu: Device) {
    softmax_cases();
}

pub(crate) fn softmax_cases() {
    // Rows shorter than, at, and past what softmax.wgsl keeps in registers (8 * 256).
    let shapes = [
        (&[5, 1000][..], -1isize),
        (&[300, 3], 0),
        (&[2, 3, 4], 1),
        (&[1], 0),
        (&[4, 5000], 1),
        (&[3, 2048], 1),
        (&[2, 2049], 1),
    ];
    for (shape, dim) in shapes {
        check(&format!("softmax {shape:?} dim {dim}"), 1e-5, |d| {
            randn(shape, 15, d).mul_scalar(10.0).unwrap().softmax(dim).unwrap()
        });
        check(&format!("log_softmax {shape:?} dim {dim}"), 1e-5, |d| {
            randn(shape, 16, d).mul_scalar(10.0).unwrap().log_softmax(dim).unwrap()
        });
    }
}
