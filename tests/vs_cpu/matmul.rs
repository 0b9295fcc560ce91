//! Matmul on the GPU against the CPU: every program by shape (the tiled cases also run under
//! both kernel shapes, see main.rs).

use super::{check, randn};
use webtensor::{DType, Device, Tensor};

/// (Runs where there is an accelerator: `check` compares each with the CPU.)
pub(crate) fn matmul_matches_cpu(_gpu: Device) {
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
    if crate::common::has_f16(webtensor::Device::webgpu(0)) {
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

/// The tiled matmul cases (past the naive and dot programs' shapes).
pub(crate) fn tiled_matmul_cases(label: &str) {
    for (sa, sb) in [(&[130, 70][..], &[70, 257][..]), (&[3, 20, 40], &[40, 70]), (&[64, 64], &[64, 64])] {
        check(&format!("tiled ({label}) {sa:?} @ {sb:?}"), 1e-4, |d| {
            randn(sa, 46, d).matmul(&randn(sb, 47, d)).unwrap()
        });
    }
    check(&format!("tiled ({label}) of transposed, offset operands"), 1e-4, |d| {
        let a = randn(&[71, 130], 48, d).narrow(0, 1, 70).unwrap();
        a.t().unwrap().matmul(&randn(&[90, 70], 49, d).t().unwrap()).unwrap()
    });
    // A weight gradient's shape, X^T @ dY over many rows: hardware GPUs split its long inner
    // dimension into slices (more output tiles than software adapters split at).
    check(&format!("tiled ({label}) X^T @ dY: [4500, 300]^T @ [4500, 260]"), 1e-3, |d| {
        randn(&[4500, 300], 54, d).t().unwrap().matmul(&randn(&[4500, 260], 55, d)).unwrap()
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
    // Enough 128x128 tiles (80, counting batches) for hardware GPUs' register-tiled program:
    // edges in m, n and k (not a multiple of its 8-deep steps), both operands transposed
    // (loads along the other stride), integers and a large plain product. (A broadcast B folds
    // the batches into the rows of one product: [14, 130, 70] @ [70, 257] has 45 such tiles.)
    check(&format!("register-tiled ({label}) [14, 130, 70] @ [14, 70, 257]"), 1e-4, |d| {
        randn(&[14, 130, 70], 62, d).matmul(&randn(&[14, 70, 257], 63, d)).unwrap()
    });
    check(&format!("register-tiled ({label}) of transposed operands"), 1e-4, |d| {
        let a = randn(&[14, 70, 130], 64, d).transpose(1, 2).unwrap();
        a.matmul(&randn(&[14, 257, 70], 65, d).transpose(1, 2).unwrap()).unwrap()
    });
    check(&format!("register-tiled ({label}) on integers"), 0.0, |d| {
        let a = randn(&[5, 300, 41], 66, d).mul_scalar(5.0).unwrap().to_dtype(DType::I32).unwrap();
        // B batched too: a broadcast B would fold the batches into rows (45 tiles of 128x128).
        a.matmul(&randn(&[5, 41, 700], 67, d).mul_scalar(5.0).unwrap().to_dtype(DType::I32).unwrap()).unwrap()
    });
    check(&format!("register-tiled ({label}) [1200, 300] @ [300, 1100]"), 1e-4, |d| {
        randn(&[1200, 300], 68, d).matmul(&randn(&[300, 1100], 69, d)).unwrap()
    });
    register_vec4_cases(label);
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

/// Register-tiled products whose operands are laid out in whole vec4s (hardware GPUs'
/// matmul_register4.wgsl; elsewhere other programs, against the same CPU results): each operand
/// read along k or along its other dim, edges in m, n and k (multiples of 4, not of the
/// 128x128 tiles or 8-deep steps), batches with a broadcast operand, offset views, integers, f16, a
/// bias, and split-K over register tiles with a remainder slice, aligned and not.
fn register_vec4_cases(label: &str) {
    let x = |d| randn(&[1100, 300], 70, d);
    let w = |d| randn(&[1028, 300], 71, d);
    check(&format!("register vec4 ({label}): x @ W^T (A and B along k)"), 1e-4, |d| {
        x(d).matmul(&w(d).t().unwrap()).unwrap()
    });
    check(&format!("register vec4 ({label}): x^T @ y (A along m, B along n)"), 1e-4, |d| {
        randn(&[300, 1100], 72, d).t().unwrap().matmul(&randn(&[300, 1028], 73, d)).unwrap()
    });
    check(&format!("register vec4 ({label}): x^T @ W^T (A along m, B along k)"), 1e-4, |d| {
        randn(&[300, 1100], 74, d).t().unwrap().matmul(&w(d).t().unwrap()).unwrap()
    });
    // (A broadcast B folds the batches into rows: one product of too few tiles.)
    check(&format!("register vec4 ({label}): a broadcast A @ batches"), 1e-4, |d| {
        randn(&[132, 72], 75, d).matmul(&randn(&[14, 72, 260], 76, d)).unwrap()
    });
    check(&format!("register vec4 ({label}): offset views"), 1e-4, |d| {
        let a = randn(&[1101, 300], 77, d).narrow(0, 1, 1100).unwrap();
        a.matmul(&randn(&[300, 1036], 78, d).narrow(1, 4, 1028).unwrap()).unwrap()
    });
    check(&format!("register vec4 ({label}): integers"), 0.0, |d| {
        let a = randn(&[5, 300, 44], 79, d).mul_scalar(5.0).unwrap().to_dtype(DType::I32).unwrap();
        a.matmul(&randn(&[5, 44, 700], 80, d).mul_scalar(5.0).unwrap().to_dtype(DType::I32).unwrap()).unwrap()
    });
    if crate::common::has_f16(webtensor::Device::webgpu(0)) {
        // vec4<f16> loads, f32 sums; the result's rounding to f16 may differ by an ulp (1e-3).
        check(&format!("register vec4 ({label}): f16"), 2e-3, |d| {
            let w16 = w(d).to_dtype(DType::F16).unwrap();
            x(d).to_dtype(DType::F16).unwrap().matmul(&w16.t().unwrap()).unwrap()
        });
    }
    check(&format!("register vec4 ({label}): a Linear's bias as the epilogue"), 1e-4, |d| {
        webtensor::nn::linear(&x(d), &w(d), Some(&randn(&[1028], 81, d))).unwrap()
    });
    // Sums of ~8200 products: f32 rounding differs by order more than 1e-4 (as split-K above).
    check(&format!("register vec4 ({label}): split-K, [516, 8200] @ [8200, 388]"), 1e-3, |d| {
        randn(&[8200, 516], 82, d).t().unwrap().matmul(&randn(&[8200, 388], 83, d)).unwrap()
    });
    check(&format!("register ({label}): split-K off vec4s, [514, 8201] @ [8201, 388]"), 1e-3, |d| {
        randn(&[8201, 514], 84, d).t().unwrap().matmul(&randn(&[8201, 388], 85, d)).unwrap()
    });
}
