//! The fused attention kernel (op::attention) against the reference ("math") formula it
//! replaces, on every device: outputs and the three gradients, over awkward shapes (lengths
//! that are not multiples of anything, head sizes 16 to 128, a value width unlike the key's,
//! queries unlike keys in number), causal, bool and float masks (broadcast, a fully masked
//! row), dropout with a seed, strided operands (the heads of a split projection) and 2-D to
//! 4-D operands. PyTorch's own values for the same op are in tests/nn_fixtures.rs ("sdpa"),
//! which now runs the fused kernel.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use webtensor::nn::{self, AttentionOptions};
use webtensor::{DType, Device, Tensor};

device_main!(fused_attention_matches_the_reference_formula, fused_attention_handles_masks_dropout_and_views);

/// A seeded normal tensor on `d`.
fn randn(shape: &[usize], seed: u64, d: Device) -> Tensor {
    Tensor::randn(shape, Some(seed), Device::CPU).unwrap().to_blocking(d).unwrap()
}

/// Output and gradients of `(attention(q, k, v) * w).sum()` with `math` on or off, and the
/// name of the op that made the output.
fn run(q: &Tensor, k: &Tensor, v: &Tensor, o: &AttentionOptions, math: bool) -> (Vec<Vec<f32>>, &'static str) {
    // The kernels are under test also where the composed formula is faster (hardware GPUs).
    webtensor::set_fused_kernels(webtensor::FusedKernels::Always);
    let leaves: Vec<Tensor> = [q, k, v].iter().map(|t| t.detach().requires_grad_(true).unwrap()).collect();
    let o = AttentionOptions { math, ..o.clone() };
    let out = nn::scaled_dot_product_attention(&leaves[0], &leaves[1], &leaves[2], &o).unwrap();
    let w = randn(out.shape(), 99, out.device());
    out.mul(&w).unwrap().sum_all().unwrap().backward().unwrap();
    let mut all = vec![f32s(&out)];
    all.extend(leaves.iter().map(|t| f32s(&t.grad().expect("a gradient"))));
    (all, out.grad_fn().unwrap_or("none"))
}

fn check(what: &str, q: &Tensor, k: &Tensor, v: &Tensor, o: &AttentionOptions) {
    let (fused, by) = run(q, k, v, o, false);
    let (math, _) = run(q, k, v, o, true);
    assert_eq!(by, "scaled_dot_product_attention", "{what}: the fused kernel ran");
    for (i, name) in ["output", "dq", "dk", "dv"].iter().enumerate() {
        assert_close(&fused[i], &math[i], 2e-4, &format!("{what} on {}: {name}", q.device()));
    }
}

fn fused_attention_matches_the_reference_formula(d: Device) {
    // (batch, heads, L, S, E, Ev)
    let shapes = [(2, 3, 17, 17, 16, 16), (1, 2, 33, 70, 40, 24), (2, 1, 65, 65, 64, 64), (1, 2, 9, 130, 128, 128)];
    for (i, &(b, h, l, s, e, ev)) in shapes.iter().enumerate() {
        let seed = 10 * i as u64;
        let q = randn(&[b, h, l, e], seed, d);
        let k = randn(&[b, h, s, e], seed + 1, d);
        let v = randn(&[b, h, s, ev], seed + 2, d);
        check(&format!("{:?}", shapes[i]), &q, &k, &v, &AttentionOptions::default());
        let causal = AttentionOptions { is_causal: true, ..Default::default() };
        check(&format!("{:?} causal", shapes[i]), &q, &k, &v, &causal);
        let scaled = AttentionOptions { scale: Some(0.3), ..Default::default() };
        check(&format!("{:?} scale 0.3", shapes[i]), &q, &k, &v, &scaled);
    }
}

fn fused_attention_handles_masks_dropout_and_views(d: Device) {
    let (b, h, l, s, e) = (2, 2, 12, 10, 16);
    let q = randn(&[b, h, l, e], 1, d);
    let k = randn(&[b, h, s, e], 2, d);
    let v = randn(&[b, h, s, e], 3, d);
    // A bool mask over [L, S] with row 3 fully masked (zero output and gradients).
    let mut keep = vec![0.0f32; l * s];
    for (i, x) in keep.iter_mut().enumerate() {
        *x = ((i * 7 + 3) % 5 != 0 && i / s != 3) as u8 as f32;
    }
    let bool_mask = Tensor::from_slice(&keep, &[l, s], d).unwrap().gt_scalar(0.5).unwrap();
    let masked = AttentionOptions { attn_mask: Some(bool_mask), ..Default::default() };
    check("bool mask with a fully masked row", &q, &k, &v, &masked);
    let (out, _) = run(&q, &k, &v, &masked, false);
    assert!(out[0][3 * e..4 * e].iter().all(|&x| x == 0.0), "a fully masked row attends to nothing");
    // A float mask per head, broadcast over the batch and the query rows.
    let float_mask = randn(&[h, 1, s], 4, d);
    check("float mask [H, 1, S]", &q, &k, &v, &AttentionOptions { attn_mask: Some(float_mask), ..Default::default() });
    // Dropout with a seed: the same mask as the composed path's dropout.
    let drop = AttentionOptions { dropout_p: 0.3, seed: Some(5), is_causal: true, ..Default::default() };
    check("causal with dropout 0.3", &q, &k, &v, &drop);
    // Rows over several tiles and several words of the keep bits the tiled forward saves (16
    // keys a word), a float mask with -inf entries among them.
    let (ql, kl) = (randn(&[1, 2, 70, 40], 11, d), randn(&[1, 2, 83, 40], 12, d));
    let vl = randn(&[1, 2, 83, 24], 13, d);
    let holes = randn(&[70, 83], 14, d);
    let holes = holes.masked_fill(&holes.gt_scalar(1.5).unwrap(), f64::NEG_INFINITY).unwrap();
    let long = AttentionOptions { dropout_p: 0.2, seed: Some(9), attn_mask: Some(holes), ..Default::default() };
    check("dropout over words of keep bits, float mask with holes", &ql, &kl, &vl, &long);
    let long_causal = AttentionOptions { dropout_p: 0.5, seed: Some(3), is_causal: true, ..Default::default() };
    check("causal dropout over words of keep bits", &ql, &ql, &vl.narrow(2, 0, 70).unwrap(), &long_causal);
    // The heads of a split projection: strided views, as nanoGPT makes them.
    let qkv = randn(&[b, l, 3 * h * e], 6, d);
    let heads = |i: usize| {
        qkv.narrow(2, i * h * e, h * e)
            .unwrap()
            .view(&[b as isize, l as isize, h as isize, e as isize])
            .unwrap()
            .transpose(1, 2)
            .unwrap()
    };
    let causal = AttentionOptions { is_causal: true, ..Default::default() };
    check("strided heads of a split", &heads(0), &heads(1), &heads(2), &causal);
    // The split's gradient end to end: the projection's gradient from the fused kernel (on
    // wgpu the three written side by side in the projection's layout and joined with no copy)
    // equals the formula's, and heads that only look alike (k and v swapped, so not in order
    // in one buffer) still get theirs.
    let split_grad = |math: bool, order: [usize; 3]| {
        let x = qkv.detach().requires_grad_(true).unwrap();
        let parts = x.split(h * e, 2).unwrap();
        let head =
            |t: &Tensor| t.view(&[b as isize, l as isize, h as isize, e as isize]).unwrap().transpose(1, 2).unwrap();
        let [qi, ki, vi] = order;
        let o = AttentionOptions { math, ..causal.clone() };
        let out =
            nn::scaled_dot_product_attention(&head(&parts[qi]), &head(&parts[ki]), &head(&parts[vi]), &o).unwrap();
        out.mul(&randn(out.shape(), 98, d)).unwrap().sum_all().unwrap().backward().unwrap();
        f32s(&x.grad().unwrap())
    };
    for order in [[0, 1, 2], [0, 2, 1]] {
        assert_close(
            &split_grad(false, order),
            &split_grad(true, order),
            2e-4,
            &format!("qkv gradient {order:?} on {d}"),
        );
    }
    // 2-D and 3-D operands.
    check("2-D", &randn(&[l, e], 7, d), &randn(&[s, e], 8, d), &randn(&[s, 24], 9, d), &AttentionOptions::default());
    check("3-D", &randn(&[3, l, e], 7, d), &randn(&[3, s, e], 8, d), &randn(&[3, s, 8], 9, d), &causal);
    // What the fused kernel does not take composes, with the same results: f16 is one.
    if has_f16(d) {
        let half = |t: &Tensor| t.to_dtype(DType::F16).unwrap();
        let out = nn::scaled_dot_product_attention(&half(&q), &half(&k), &half(&v), &causal).unwrap();
        assert_eq!(out.dtype(), DType::F16);
    }
}
