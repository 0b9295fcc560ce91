//! Every op on the GPU under test against the CPU reference backend, on random inputs with sizes
//! that are not multiples of the workgroup (256) or matmul tile (64), plus size-0 and size-1 dims.

mod common;
use common::*;
use webtensor::{BinaryOp, DType, Device, ReduceOp, Tensor, UnaryOp};

/// Runs `f` on the CPU and on the GPU over the same seeded inputs and compares.
fn check(what: &str, tol: f32, f: impl Fn(Device) -> Tensor) {
    let Some(g) = gpu() else { return };
    let want = f(Device::CPU);
    let got = f(g);
    assert_eq!(got.device(), g, "{what}: result left the device");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_close(&f32s(&got), &f32s(&want), tol, what);
}

fn randn(shape: &[usize], seed: u64, d: Device) -> Tensor {
    Tensor::randn(shape, Some(seed), d).unwrap()
}

#[test]
fn unary_ops_match_cpu() {
    for op in UnaryOp::ALL {
        for shape in [&[0usize][..], &[1], &[257], &[3, 1000], &[7, 13, 11]] {
            // Positive inputs for the ops with restricted domains.
            let domain = |d| {
                let x = randn(shape, 1, d);
                match op {
                    UnaryOp::Log | UnaryOp::Sqrt | UnaryOp::Rsqrt => x.abs().unwrap().add_scalar(0.1).unwrap(),
                    UnaryOp::Reciprocal => x.abs().unwrap().add_scalar(0.5).unwrap(),
                    _ => x.mul_scalar(3.0).unwrap(),
                }
            };
            check(&format!("{} {shape:?}", op.name()), 2e-5, |d| domain(d).unary(op).unwrap());
        }
        // Through a transposed view.
        check(&format!("{} of a transposed view", op.name()), 2e-5, |d| {
            randn(&[33, 65], 2, d).abs().unwrap().add_scalar(0.5).unwrap().t().unwrap().unary(op).unwrap()
        });
    }
    check("int abs/neg/square/sign", 0.0, |d| {
        let i = randn(&[1001], 3, d).mul_scalar(100.0).unwrap().to_dtype(DType::I32).unwrap();
        Tensor::cat(&[i.abs().unwrap(), i.neg().unwrap(), i.square().unwrap(), i.sign().unwrap(), i.relu().unwrap()], 0)
            .unwrap()
    });
}

#[test]
fn binary_ops_match_cpu() {
    // [300, 8] + [300, 1] and [1, 5] + [257, 1] coalesce to [rows, few cols]: one thread per row
    // (where the columns are not a multiple of 4). Where they are, a vec4 of each row per
    // thread (binary_rows4.wgsl): a bias [64, 36] + [36], [4, 6, 32] + [6, 1] over three dims
    // (runs of 8 vec4s), [5, 48] + [48] (runs of 4) and [17, 1] + [1, 300] with the first
    // operand constant along the rows.
    let shapes: [(&[usize], &[usize]); 10] = [
        (&[64, 36], &[36]),
        (&[4, 6, 32], &[6, 1]),
        (&[5, 48], &[48]),
        (&[1000], &[1000]),
        (&[3, 1, 5], &[4, 1]),
        (&[17, 1], &[1, 300]),
        (&[0, 3], &[3]),
        (&[], &[2, 2]),
        (&[300, 8], &[300, 1]),
        (&[1, 5], &[257, 1]),
    ];
    for op in BinaryOp::ALL {
        // Bitwise ops take integers only.
        for (sa, sb) in shapes.into_iter().filter(|_| !op.int_only()) {
            check(&format!("{} {sa:?} {sb:?}", op.name()), 2e-5, |d| {
                let a = randn(sa, 4, d);
                let b = randn(sb, 5, d);
                let (a, b) = if op == BinaryOp::Pow { (a.abs().unwrap().add_scalar(0.1).unwrap(), b) } else { (a, b) };
                a.binary(&b, op).unwrap()
            });
        }
        for dtype in [DType::I32, DType::U32] {
            check(&format!("{} {dtype}", op.name()), 2e-5, |d| {
                let a = randn(&[513], 6, d).abs().unwrap().mul_scalar(50.0).unwrap().to_dtype(dtype).unwrap();
                let b = randn(&[513], 7, d)
                    .abs()
                    .unwrap()
                    .mul_scalar(50.0)
                    .unwrap()
                    .add_scalar(1.0)
                    .unwrap()
                    .to_dtype(dtype)
                    .unwrap();
                a.binary(&b, op).unwrap()
            });
        }
    }
    // Row broadcasts over strided and offset views: columns step by the view's strides.
    check("row broadcast of a transposed view and an offset vector", 2e-5, |d| {
        let a = randn(&[8, 300], 41, d).t().unwrap();
        a.binary(&randn(&[9], 42, d).narrow(0, 1, 8).unwrap(), BinaryOp::Add).unwrap()
    });
    check("vec4 row broadcast of offset views", 2e-5, |d| {
        // Rows 40 apart from element 4, and a vector from element 4: both aligned to vec4s.
        let a = randn(&[64, 40], 44, d).narrow(1, 4, 32).unwrap();
        a.binary(&randn(&[36], 45, d).narrow(0, 4, 32).unwrap(), BinaryOp::Mul).unwrap()
    });
    // clamp in one pass (clamp4.wgsl: contiguous, vec4-aligned f32) with NaNs in the data (log
    // of negatives), bounds crossed (every element becomes the upper one), an aligned view
    // and an unaligned one (composed from maximum and minimum instead).
    // (The log's values may differ by an ulp between devices: the tolerance is for those.)
    check("clamp", 1e-6, |d| {
        let x = randn(&[4, 250], 50, d).mul_scalar(3.0).unwrap();
        let nan = x.log().unwrap();
        let flat = x.flatten().unwrap();
        let parts = [
            x.clamp(Some(-1.0), Some(2.0)).unwrap(),
            nan.clamp(Some(0.5), Some(1.0)).unwrap(),
            x.clamp(Some(2.0), Some(-1.0)).unwrap(),
            flat.narrow(0, 4, 996).unwrap().clamp(Some(-0.5), Some(0.5)).unwrap(),
            flat.narrow(0, 1, 996).unwrap().clamp(Some(-0.5), Some(0.5)).unwrap(),
        ];
        Tensor::cat(&parts.iter().map(|t| t.flatten().unwrap()).collect::<Vec<_>>(), 0).unwrap()
    });
    check("row broadcast comparison [n, 1] == [8]", 0.0, |d| {
        let ids = Tensor::arange(0.0, 8.0, 1.0, DType::I32, d).unwrap();
        let am = randn(&[1000, 8], 43, d).argmin(Some(1), false).unwrap().unsqueeze(1).unwrap();
        am.binary(&ids, BinaryOp::Eq).unwrap()
    });
    check("where", 0.0, |d| {
        let c = randn(&[40, 1], 8, d).gt_scalar(0.0).unwrap();
        c.where_(&randn(&[40, 70], 9, d), &randn(&[70], 10, d)).unwrap()
    });
    // Rows of a multiple of 4 (where_rows4.wgsl): a [n, 1] mask over rows of 64 (runs of eight
    // vec4s) and a [n, 1] value in rows of 36 (runs of one).
    check("where in vec4 runs", 0.0, |d| {
        let c = randn(&[40, 1], 14, d).gt_scalar(0.0).unwrap();
        let a = c.where_(&randn(&[40, 64], 15, d), &randn(&[64], 16, d)).unwrap();
        let m = randn(&[40, 36], 17, d).gt_scalar(0.0).unwrap();
        let b = m.where_(&randn(&[40, 1], 18, d), &randn(&[40, 36], 19, d)).unwrap();
        Tensor::cat(&[a.flatten().unwrap(), b.flatten().unwrap()], 0).unwrap()
    });
    // All three contiguous with the output's shape (the GPUs' fast path), at offsets (views
    // of a larger tensor), and a transposed operand (coalesced, not flat).
    check("where, same shapes", 0.0, |d| {
        let x = randn(&[3, 50, 60], 11, d);
        let (c, a, b) = (x.gt_scalar(0.0).unwrap(), randn(&[50, 60], 12, d), randn(&[50, 60], 13, d));
        let flat = c.where_(&x, &x.neg().unwrap()).unwrap();
        let views =
            c.narrow(0, 1, 1).unwrap().where_(&x.narrow(0, 2, 1).unwrap(), &x.narrow(0, 1, 1).unwrap()).unwrap();
        let t = c
            .narrow(0, 0, 1)
            .unwrap()
            .squeeze(Some(0))
            .unwrap()
            .where_(&a, &b.t().unwrap().contiguous().unwrap().t().unwrap())
            .unwrap();
        Tensor::cat(&[flat.flatten().unwrap(), views.flatten().unwrap(), t.flatten().unwrap()], 0).unwrap()
    });
}

#[test]
fn reductions_match_cpu() {
    reduction_cases();
}

fn reduction_cases() {
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
}

#[test]
fn softmax_matches_cpu() {
    softmax_cases();
}

fn softmax_cases() {
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

#[test]
fn matmul_matches_cpu() {
    tiled_matmul_cases("this adapter's shape");
    let cases: [(&[usize], &[usize]); 9] = [
        (&[1, 1], &[1, 1]),
        (&[17, 33], &[33, 65]),
        (&[130, 70], &[70, 257]),
        (&[64, 64], &[64, 64]),
        (&[3, 20, 30], &[30, 10]),
        (&[2, 1, 9, 8], &[3, 8, 5]),
        (&[5], &[5, 7]),
        (&[200], &[200]),
        (&[0, 4], &[4, 3]),
    ];
    for (sa, sb) in cases {
        check(&format!("matmul {sa:?} @ {sb:?}"), 1e-4, |d| randn(sa, 17, d).matmul(&randn(sb, 18, d)).unwrap());
    }
    check("matmul of transposed operands", 1e-4, |d| {
        let a = randn(&[70, 130], 19, d);
        let b = randn(&[90, 70], 20, d);
        a.t().unwrap().matmul(&b.t().unwrap()).unwrap()
    });
    // Few outputs over a long inner dimension: one workgroup per output (MatmulProgram::Dot).
    check("dot program: [8, 100000]^T @ [100000, 3]", 1e-4, |d| {
        let x = randn(&[100_000, 8], 28, d);
        let y = randn(&[100_000, 3], 29, d);
        x.t().unwrap().matmul(&y).unwrap()
    });
    check("dot program, batched, offset operands: [4, 2, 1500] @ [4, 1500, 3]", 1e-4, |d| {
        let a = randn(&[4, 3, 1500], 33, d).narrow(1, 1, 2).unwrap();
        a.matmul(&randn(&[4, 1500, 3], 34, d)).unwrap()
    });
    // A short inner dimension or a thin output: one thread per output (MatmulProgram::Naive).
    check("naive program: [1000, 3] (offset view) @ [3, 8]^T-style", 1e-4, |d| {
        let p = randn(&[1001, 3], 35, d).narrow(0, 1, 1000).unwrap();
        p.matmul(&randn(&[8, 3], 36, d).t().unwrap()).unwrap()
    });
    check("naive program: matrix-vector [300, 500] @ [500]", 1e-4, |d| {
        randn(&[300, 500], 37, d).matmul(&randn(&[500], 38, d)).unwrap()
    });
    check("naive program, one thread per output (n > 32): [2, 40, 20] @ [20, 50]", 1e-4, |d| {
        randn(&[2, 40, 20], 44, d).matmul(&randn(&[20, 50], 45, d)).unwrap()
    });
    check("naive program on integers: [50, 7] @ [7, 9]", 0.0, |d| {
        let a = randn(&[50, 7], 39, d).mul_scalar(5.0).unwrap().to_dtype(DType::I32).unwrap();
        a.matmul(&randn(&[7, 9], 40, d).mul_scalar(5.0).unwrap().to_dtype(DType::I32).unwrap()).unwrap()
    });
    // Few output tiles, more outputs than Dot takes, and a long inner dimension: split-K.
    // Sums of 9001 products of magnitude ~95: f32 rounding differs by order more than 1e-4.
    check("split-K with a remainder slice: [40, 9001] @ [9001, 70]", 1e-3, |d| {
        randn(&[40, 9001], 30, d).matmul(&randn(&[9001, 70], 31, d)).unwrap()
    });
    if common::has_f16(webtensor::Device::webgpu(0)) {
        // Partials of 16 * 16 * 1024 = 262144 overflow f16; the f32 accumulation gives 0.
        check("f16 with a long inner dimension accumulates in f32", 1e-3, |d| {
            let a: Vec<f32> = (0..8192).map(|i| if i < 4096 { 16.0 } else { -16.0 }).collect();
            let a = Tensor::from_vec(a, &[1, 8192], d).unwrap().to_dtype(DType::F16).unwrap();
            a.matmul(&Tensor::full(&[8192, 1], 16.0, DType::F16, d).unwrap()).unwrap()
        });
    }
    check("split-K on integers", 0.0, |d| {
        let a = randn(&[30, 5000], 32, d).mul_scalar(3.0).unwrap().to_dtype(DType::I32).unwrap();
        a.matmul(&a.t().unwrap()).unwrap()
    });
    check("dot program on integers", 0.0, |d| {
        let a = randn(&[3, 5000], 32, d).mul_scalar(3.0).unwrap().to_dtype(DType::I32).unwrap();
        a.matmul(&a.t().unwrap()).unwrap()
    });
    check("matmul with k = 0", 0.0, |d| randn(&[3, 0], 21, d).matmul(&randn(&[0, 4], 22, d)).unwrap());
}

#[test]
fn movement_and_index_match_cpu() {
    check("cat of views", 0.0, |d| {
        let a = randn(&[5, 300], 23, d);
        Tensor::cat(&[a.t().unwrap(), a.t().unwrap().narrow(1, 1, 3).unwrap(), randn(&[300, 2], 24, d)], 1).unwrap()
    });
    check("index_select / gather", 0.0, |d| {
        let a = randn(&[50, 40], 25, d);
        let i = Tensor::arange(0.0, 40.0, 3.0, DType::F32, d).unwrap().to_dtype(DType::I32).unwrap();
        let gi = randn(&[50, 40], 26, d)
            .abs()
            .unwrap()
            .mul_scalar(10.0)
            .unwrap()
            .clamp(None, Some(39.0))
            .unwrap()
            .to_dtype(DType::U32)
            .unwrap();
        // Views too: a transposed source (the selected slices strided), a middle dim of a 3-d
        // view, and gathers along dim 0 of a transposed source and along the last dim.
        let at = a.t().unwrap();
        let c = randn(&[6, 50, 7], 28, d).permute(&[2, 1, 0]).unwrap();
        let gi0 = gi.narrow(0, 0, 30).unwrap().narrow(1, 0, 35).unwrap().contiguous().unwrap();
        Tensor::cat(
            &[
                a.index_select(1, &i).unwrap().flatten().unwrap(),
                a.gather(1, &gi).unwrap().flatten().unwrap(),
                at.index_select(0, &i).unwrap().flatten().unwrap(),
                at.index_select(1, &i).unwrap().flatten().unwrap(),
                c.index_select(1, &i).unwrap().flatten().unwrap(),
                at.gather(0, &gi0.t().unwrap().contiguous().unwrap()).unwrap().flatten().unwrap(),
                at.gather(1, &gi0.narrow(1, 0, 30).unwrap().contiguous().unwrap()).unwrap().flatten().unwrap(),
                // Whole rows of a multiple of 4 (index_rows4.wgsl): an embedding lookup, rows
                // under an outer dim, and a view starting one row in.
                a.index_select(0, &i).unwrap().flatten().unwrap(),
                randn(&[6, 40, 8], 29, d).index_select(1, &i).unwrap().flatten().unwrap(),
                randn(&[51, 40], 30, d).narrow(0, 1, 50).unwrap().index_select(0, &i).unwrap().flatten().unwrap(),
            ],
            0,
        )
        .unwrap()
    });
    // Constant padding in one pass (pad.wgsl): a transposed view, an offset 3-d view padded in
    // every dim, the last dim only, and a 4-d image batch (a convolution's input); then at
    // least 1024 rows, which software adapters pad a thread per row: whole rows of padding
    // from the outer dims and a transposed source.
    check("constant pad", 0.0, |d| {
        use webtensor::PadMode;
        let a = randn(&[37, 300], 31, d).t().unwrap();
        let b = randn(&[4, 9, 33], 32, d).narrow(1, 2, 6).unwrap();
        let img = randn(&[2, 3, 17, 19], 33, d);
        let tall = randn(&[3, 400, 6], 34, d);
        let wide = randn(&[6, 1030], 35, d).t().unwrap();
        Tensor::cat(
            &[
                a.pad(&[1, 2, 3, 0], PadMode::Constant, 0.5).unwrap().flatten().unwrap(),
                b.pad(&[2, 1, 0, 3, 1, 1], PadMode::Constant, -2.0).unwrap().flatten().unwrap(),
                b.pad(&[0, 5], PadMode::Constant, 0.0).unwrap().flatten().unwrap(),
                img.pad(&[1, 1, 1, 1], PadMode::Constant, 0.0).unwrap().flatten().unwrap(),
                tall.pad(&[1, 2, 0, 0, 1, 1], PadMode::Constant, 3.0).unwrap().flatten().unwrap(),
                wide.pad(&[2, 1, 1, 0], PadMode::Constant, -1.0).unwrap().flatten().unwrap(),
            ],
            0,
        )
        .unwrap()
    });
    check("casts", 0.0, |d| {
        let x = randn(&[999], 27, d).mul_scalar(1000.0).unwrap();
        let parts: Vec<Tensor> = [DType::I32, DType::U32, DType::Bool]
            .iter()
            .map(|&t| x.to_dtype(t).unwrap().to_dtype(DType::F32).unwrap())
            .collect();
        Tensor::cat(&parts, 0).unwrap()
    });
    // Strided copies with at least 1024 rows of at least 4, which software adapters copy a
    // thread per row: a transpose, an offset 5-d window view (a convolution's im2col), a cast
    // of a permuted view, and a cat writing into a strided region of its output.
    check("row-wise strided copies", 0.0, |d| {
        let t = randn(&[70, 1100], 62, d).t().unwrap().contiguous().unwrap();
        let x = randn(&[2, 3, 18, 18], 63, d);
        let win = x
            .narrow(2, 1, 16)
            .unwrap()
            .narrow(3, 1, 16)
            .unwrap()
            .unsqueeze(2)
            .unwrap()
            .expand(&[2, 3, 9, 16, 16])
            .unwrap()
            .contiguous()
            .unwrap();
        let cast = randn(&[40, 30, 9], 64, d).permute(&[1, 0, 2]).unwrap().to_dtype(DType::I32).unwrap();
        let a = randn(&[1500, 6], 65, d);
        let joined = Tensor::cat(&[a.clone(), randn(&[1500, 5], 66, d), a], 1).unwrap();
        Tensor::cat(
            &[
                t.flatten().unwrap(),
                win.flatten().unwrap(),
                cast.to_dtype(DType::F32).unwrap().flatten().unwrap(),
                joined.flatten().unwrap(),
            ],
            0,
        )
        .unwrap()
    });
}

#[test]
fn vec4_and_scalar_elementwise_paths_agree() {
    // Offsets 0..4 and lengths around multiples of 4 switch between the vec4 kernels (aligned)
    // and the scalar ones; both must match the CPU.
    for off in 0..4 {
        for len in [992, 993, 996] {
            check(&format!("exp/add/cast at offset {off}, len {len}"), 2e-5, |d| {
                let x = randn(&[1003], 30, d).narrow(0, off, len).unwrap();
                let y = randn(&[1003], 31, d).narrow(0, 3 - off, len).unwrap();
                Tensor::cat(
                    &[
                        x.exp().unwrap(),
                        x.add(&y).unwrap(),
                        x.gt(&y).unwrap().to_dtype(DType::F32).unwrap(),
                        x.to_dtype(DType::I32).unwrap().to_dtype(DType::F32).unwrap(),
                    ],
                    0,
                )
                .unwrap()
            });
        }
    }
}

/// `t op scalar` on every device (the GPU backends keep the scalar in the kernel's uniform, the
/// CPU broadcasts it) against the CPU: every op and dtype, vec4 and scalar kernel paths (offsets
/// and lengths around multiples of 4), values that promote an integer tensor to f32, and the
/// gradient through the scalar form.
#[test]
fn scalar_operand_kernels_match_cpu() {
    let run = |d: Device, op: BinaryOp, dtype: DType, off: usize, len: usize, value: f64| {
        let x = randn(&[1003], 40, d).mul_scalar(20.0).unwrap();
        let x = if dtype.is_float() { x } else { x.abs().unwrap().add_scalar(1.0).unwrap() };
        let x = x.to_dtype(dtype).unwrap().narrow(0, off, len).unwrap();
        let x = if op == BinaryOp::Pow && dtype.is_float() { x.abs().unwrap() } else { x };
        x.binary_scalar(value, op).unwrap()
    };
    for d in devices().into_iter().filter(|d| *d != Device::CPU) {
        for op in BinaryOp::ALL {
            let cases: &[(DType, f64)] = if op.int_only() {
                &[(DType::I32, 3.0), (DType::U32, 5.0), (DType::Bool, 1.0)]
            } else {
                &[
                    (DType::F32, 0.5),
                    (DType::F32, -3.0),
                    (DType::F32, 0.0),
                    (DType::I32, 7.0),
                    (DType::I32, 2.5),
                    (DType::U32, 3.0),
                ]
            };
            for &(dtype, value) in cases {
                for (off, len) in [(0, 992), (1, 992), (0, 993), (3, 996)] {
                    let what = format!("{} {dtype} by {value} at offset {off}, len {len} on {d}", op.name());
                    let got = run(d, op, dtype, off, len, value);
                    let want = run(Device::CPU, op, dtype, off, len, value);
                    assert_eq!(got.device(), d, "{what}: device");
                    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
                    assert_close(&f32s(&got), &f32s(&want), 2e-5, &what);
                }
            }
        }
        if has_f16(d) {
            let f = |d: Device| {
                randn(&[517], 41, d).to_dtype(DType::F16).unwrap().mul_scalar(0.3).unwrap().add_scalar(1.0).unwrap()
            };
            assert_close(&f32s(&f(d)), &f32s(&f(Device::CPU)), 1e-3, &format!("f16 scalar ops on {d}"));
        }
        // The gradient of the scalar form is the tensor rule's.
        let grad = |d: Device| {
            let x = randn(&[257], 42, d).abs().unwrap().add_scalar(0.5).unwrap().requires_grad_(true).unwrap();
            let y =
                x.mul_scalar(3.0).unwrap().div_scalar(2.0).unwrap().pow_scalar(1.5).unwrap().sub_scalar(1.0).unwrap();
            y.sum_all().unwrap().backward().unwrap();
            x.grad().expect("a gradient")
        };
        assert_close(&f32s(&grad(d)), &f32s(&grad(Device::CPU)), 1e-5, &format!("grad through scalar ops on {d}"));
    }
}

/// The tiled matmul cases (past the naive and dot programs' shapes).
fn tiled_matmul_cases(label: &str) {
    for (sa, sb) in [(&[130, 70][..], &[70, 257][..]), (&[3, 20, 40], &[40, 70]), (&[64, 64], &[64, 64])] {
        check(&format!("tiled ({label}) {sa:?} @ {sb:?}"), 1e-4, |d| {
            randn(sa, 46, d).matmul(&randn(sb, 47, d)).unwrap()
        });
    }
    check(&format!("tiled ({label}) of transposed, offset operands"), 1e-4, |d| {
        let a = randn(&[71, 130], 48, d).narrow(0, 1, 70).unwrap();
        a.t().unwrap().matmul(&randn(&[90, 70], 49, d).t().unwrap()).unwrap()
    });
    check(&format!("tiled ({label}) on integers"), 0.0, |d| {
        let a = randn(&[65, 40], 50, d).mul_scalar(5.0).unwrap().to_dtype(DType::I32).unwrap();
        a.matmul(&randn(&[40, 129], 51, d).mul_scalar(5.0).unwrap().to_dtype(DType::I32).unwrap()).unwrap()
    });
    // B's rows in whole vec4s (n a multiple of 4, aligned offsets): software adapters take the
    // vec4 program. Edges in m and n, an odd k, a broadcast batch, a transposed A, an offset
    // view and integers.
    for (sa, sb) in [
        (&[300, 68][..], &[68, 260][..]),
        (&[130, 37], &[37, 132]),
        (&[3, 20, 40], &[40, 72]),
        (&[2, 9, 36], &[2, 36, 8]),
    ] {
        check(&format!("tiled ({label}) in vec4s {sa:?} @ {sb:?}"), 1e-4, |d| {
            randn(sa, 52, d).matmul(&randn(sb, 53, d)).unwrap()
        });
    }
    // Short products, whose workgroups keep fewer rows of blocks and take more columns: every
    // count of row blocks (1, 2, 4, 8 and 16) of both software programs, edges past a
    // workgroup's columns, and a broadcast A as a convolution's weight.
    for (sa, sb) in [
        (&[7, 36][..], &[36, 2052][..]),
        (&[20, 36], &[36, 1030]),
        (&[40, 36], &[36, 520]),
        (&[120, 48], &[48, 260]),
        (&[6, 40], &[40, 1030]),
        (&[12, 50], &[50, 517]),
        (&[30, 40], &[40, 258]),
        (&[60, 40], &[40, 130]),
        (&[1, 32, 45], &[3, 1, 45, 300]),
    ] {
        check(&format!("tiled ({label}), short {sa:?} @ {sb:?}"), 1e-4, |d| {
            randn(sa, 60, d).matmul(&randn(sb, 61, d)).unwrap()
        });
    }
    check(&format!("tiled ({label}) in vec4s, transposed A"), 1e-4, |d| {
        randn(&[68, 130], 58, d).t().unwrap().matmul(&randn(&[68, 132], 59, d)).unwrap()
    });
    check(&format!("tiled ({label}) in vec4s, offset view"), 1e-4, |d| {
        let a = randn(&[131, 68], 54, d).narrow(0, 1, 130).unwrap();
        a.matmul(&randn(&[69, 132], 55, d).narrow(0, 1, 68).unwrap()).unwrap()
    });
    check(&format!("tiled ({label}) in vec4s on integers"), 0.0, |d| {
        let a = randn(&[65, 40], 56, d).mul_scalar(5.0).unwrap().to_dtype(DType::I32).unwrap();
        a.matmul(&randn(&[40, 132], 57, d).mul_scalar(5.0).unwrap().to_dtype(DType::I32).unwrap()).unwrap()
    });
}

/// The kernels the wgpu backend shapes by adapter (software: matmul tiles from registers,
/// softmax and reductions a thread per row or chunk; GPU: workgroup memory and trees), both
/// shapes on this adapter, then back to its own choice. One test owns the switch so the shape
/// under test is the one set.
#[test]
fn software_and_gpu_kernel_shapes_match_cpu() {
    let Some(g) = gpu() else { return };
    for software in [true, false] {
        webtensor::__set_software_kernels(g, Some(software)).unwrap();
        let label = if software { "software shapes" } else { "GPU shapes" };
        tiled_matmul_cases(label);
        softmax_cases();
        reduction_cases();
    }
    webtensor::__set_software_kernels(g, None).unwrap();
}

/// clamp's one-pass kernel takes the CPU's rule (`x > lo ? x : lo`, then `y < hi ? y : hi`):
/// zeros of either sign as data and bounds, NaN data giving NaN, NaN bounds (the composed path)
/// making every element NaN. A zero's sign is the driver's where the two zeros meet (the CPU
/// takes the second; NVIDIA's Vulkan gave +0 for clamp(+0, -0, 1); IEEE's maxNum leaves it open):
/// zeros compare equal here, everything else bit for bit.
#[test]
fn clamp_keeps_the_cpus_zeros_and_nans() {
    let Some(g) = gpu() else { return };
    let data = [-0.0f32, 0.0, -1.0, 1.0, f32::NAN, 3.0, -0.0, 0.0, 7.0, -7.0, 0.5, -0.5];
    let bounds = [(0.0, 6.0), (-0.0, 1.0), (-1.0, -0.0), (2.0, -1.0), (f64::NAN, 1.0), (0.0, f64::NAN)];
    for (lo, hi) in bounds {
        let run = |d| f32s(&Tensor::from_slice(&data, &[data.len()], d).unwrap().clamp(Some(lo), Some(hi)).unwrap());
        let (want, got) = (run(Device::CPU), run(g));
        for ((w, v), x) in want.iter().zip(&got).zip(&data) {
            let same = if w.is_nan() { v.is_nan() } else { w.to_bits() == v.to_bits() || (*w == 0.0 && *v == 0.0) };
            assert!(same, "clamp({x}, {lo}, {hi}) on {g}: {v:?}, the cpu gives {w:?}");
        }
    }
}
