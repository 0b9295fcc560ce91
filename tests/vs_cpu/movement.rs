//! Movement and indexing ops on the GPU against the CPU: cat, views, gathers, scatters, padding.

use super::{check, randn};
use webtensor::{DType, Device, Tensor};

/// (Runs where there is an accelerator: `check` compares each with the CPU.)
pub(crate) fn movement_and_index_match_cpu(_gpu: Device) {
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
