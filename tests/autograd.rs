//! Autograd semantics beyond single rules (those are in grad_fixtures.rs): accumulation, grad
//! mode, leaves and detach, errors that say what to do, graph freeing, gradients across
//! devices, and finite-difference checks of composed functions. (Memory that returns to its
//! baseline is measured in training_memory.rs, alone on the device.)
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use webtensor::{BackwardOptions, DType, Device, Tensor, UnaryOp};

device_main!(grads_accumulate_until_cleared, shared_inputs_sum_their_gradients, narrow_views_gradients_join_in_place, no_grad_and_detach_cut_the_graph, backward_errors_say_what_to_do, graph_is_freed_unless_retained, finite_differences_agree, shapes_flow_on_meta; meta: shapes_flow_on_meta; gpu: gradients_cross_devices_back_to_their_leaf; plain: grad_mode_is_per_thread, readme_example_converges);

fn leaf(data: &[f32], shape: &[usize], d: Device) -> Tensor {
    t(data, shape, d).requires_grad_(true).unwrap()
}

fn grads_accumulate_until_cleared(d: Device) {
    let x = leaf(&[1.0, 2.0, 3.0], &[3], d);
    assert!(x.is_leaf() && x.requires_grad() && x.grad().is_none());
    let y = x.square().unwrap().sum_all().unwrap();
    assert_eq!(y.grad_fn(), Some("sum"));
    assert!(!y.is_leaf());
    y.backward().unwrap();
    assert_close(&f32s(&x.grad().unwrap()), &[2.0, 4.0, 6.0], 1e-6, "first backward");
    // A second graph adds to the same .grad, as in PyTorch.
    x.mul_scalar(3.0).unwrap().sum_all().unwrap().backward().unwrap();
    assert_close(&f32s(&x.grad().unwrap()), &[5.0, 7.0, 9.0], 1e-6, "accumulated");
    x.set_grad(None).unwrap();
    assert!(x.grad().is_none());
    x.sum_all().unwrap().backward().unwrap();
    assert_close(&f32s(&x.grad().unwrap()), &[1.0, 1.0, 1.0], 1e-6, "after clearing");
    // A wrong gradient for set_grad is refused and the old one stays.
    let bad = t(&[1.0, 2.0], &[2], d);
    assert!(x.set_grad(Some(bad)).unwrap_err().to_string().contains("must match"));
    assert!(x.grad().is_some());
}

fn shared_inputs_sum_their_gradients(d: Device) {
    // y = x * x + x through two paths into one node: dy/dx = 2x + 1.
    let x = leaf(&[0.5, -1.0], &[2], d);
    let h = x.mul(&x).unwrap();
    let y = h.add(&x).unwrap().add(&h).unwrap().sum_all().unwrap(); // 2x^2 + x
    y.backward().unwrap();
    assert_close(&f32s(&x.grad().unwrap()), &[3.0, -3.0], 1e-6, "4x + 1");
    // Only the leaves that require grad get one.
    let a = leaf(&[1.0, 2.0], &[2], d);
    let b = t(&[3.0, 4.0], &[2], d);
    a.mul(&b).unwrap().sum_all().unwrap().backward().unwrap();
    assert_close(&f32s(&a.grad().unwrap()), &[3.0, 4.0], 1e-6, "da");
    assert!(b.grad().is_none() && !b.requires_grad());
}

/// The gradients of narrow views (`split`, `narrow`, `select`, `unbind`) are joined by the
/// backward pass (`autograd/regions.rs`): pieces that tile the input, leave gaps, overlap,
/// narrow along two dims, meet a whole gradient, or reach an intermediate node all give the
/// gradient the padded-and-summed rule gives.
fn narrow_views_gradients_join_in_place(d: Device) {
    let data: Vec<f32> = (0..24).map(|i| i as f32 * 0.25 - 2.0).collect();
    let grad = |f: &dyn Fn(&Tensor) -> Tensor| -> Vec<f32> {
        let x = leaf(&data, &[4, 6], d);
        f(&x).backward().unwrap();
        f32s(&x.grad().unwrap())
    };
    let per_col = |w: [f32; 6]| -> Vec<f32> { (0..24).map(|i| w[i % 6]).collect() };
    let sum = |t: Tensor| t.sum_all().unwrap();
    // A split that tiles the columns: one concatenation.
    let tiles = grad(&|x| {
        let p = x.split(2, 1).unwrap();
        sum(p[0].add(&p[1].mul_scalar(2.0).unwrap()).unwrap().add(&p[2].mul_scalar(3.0).unwrap()).unwrap())
    });
    assert_eq!(tiles, per_col([1.0, 1.0, 2.0, 2.0, 3.0, 3.0]), "split pieces on {d}");
    // A gap (the middle piece unused) and an end piece alone.
    let gap = grad(&|x| {
        let p = x.split(2, 1).unwrap();
        sum(p[0].add(&p[2].mul_scalar(3.0).unwrap()).unwrap())
    });
    assert_eq!(gap, per_col([1.0, 1.0, 0.0, 0.0, 3.0, 3.0]), "a gap on {d}");
    let last = grad(&|x| sum(x.narrow(1, 5, 1).unwrap()));
    assert_eq!(last, per_col([0.0, 0.0, 0.0, 0.0, 0.0, 1.0]), "one piece at the end on {d}");
    // Overlapping stretches sum.
    let overlap = grad(&|x| sum(x.narrow(1, 0, 4).unwrap().add(&x.narrow(1, 2, 4).unwrap()).unwrap()));
    assert_eq!(overlap, per_col([1.0, 1.0, 2.0, 2.0, 1.0, 1.0]), "overlap on {d}");
    // Pieces along two dims, and pieces meeting a whole gradient.
    let two_dims = grad(&|x| sum(x.narrow(0, 1, 2).unwrap()).add(&sum(x.narrow(1, 3, 3).unwrap())).unwrap());
    let want: Vec<f32> = (0..24).map(|i| f32::from((1..3).contains(&(i / 6)) as u8) + f32::from(i % 6 >= 3)).collect();
    assert_eq!(two_dims, want, "two dims on {d}");
    let mixed = grad(&|x| sum(x.narrow(1, 0, 3).unwrap()).add(&sum(x.mul_scalar(0.5).unwrap())).unwrap());
    assert_eq!(mixed, per_col([1.5, 1.5, 1.5, 0.5, 0.5, 0.5]), "pieces and a whole gradient on {d}");
    // select (rows, as unbind gives), into an intermediate node (2x) rather than the leaf.
    let rows = grad(&|x| {
        let h = x.mul_scalar(2.0).unwrap();
        let r: Vec<Tensor> = (0..4).map(|i| h.select(0, i).unwrap()).collect();
        sum(r[0].add(&r[3].mul_scalar(-1.0).unwrap()).unwrap()).add(&sum(h.select(0, 1).unwrap())).unwrap()
    });
    let want: Vec<f32> = (0..24).map(|i| [2.0, 2.0, 0.0, -2.0][i / 6]).collect();
    assert_eq!(rows, want, "select and unbind on {d}");
    // Values, not only ones: the pieces carry their own gradients.
    let values = grad(&|x| {
        let p = x.chunk(3, 1).unwrap();
        sum(p[0].square().unwrap()).add(&sum(p[2].square().unwrap())).unwrap()
    });
    let want: Vec<f32> =
        data.iter().enumerate().map(|(i, v)| if (2..4).contains(&(i % 6)) { 0.0 } else { 2.0 * v }).collect();
    assert_close(&values, &want, 1e-6, &format!("squared pieces on {d}"));
}

fn no_grad_and_detach_cut_the_graph(d: Device) {
    let x = leaf(&[1.0, 2.0], &[2], d);
    {
        let _g = webtensor::no_grad();
        assert!(!webtensor::is_grad_enabled());
        let y = x.mul_scalar(2.0).unwrap();
        assert!(!y.requires_grad() && y.is_leaf());
        {
            let _e = webtensor::enable_grad();
            assert!(x.mul_scalar(2.0).unwrap().requires_grad());
        }
        assert!(!webtensor::is_grad_enabled());
    }
    assert!(webtensor::is_grad_enabled());
    let z = x.exp().unwrap().detach();
    assert!(!z.requires_grad() && z.is_leaf());
    assert_close(&f32s(&z), &[1f32.exp(), 2f32.exp()], 1e-6, "detach keeps values");
    // Detached values act as constants: only the direct path contributes.
    x.mul(&z).unwrap().sum_all().unwrap().backward().unwrap();
    assert_close(&f32s(&x.grad().unwrap()), &[1f32.exp(), 2f32.exp()], 1e-5, "d(x * const)");
}

fn backward_errors_say_what_to_do(d: Device) {
    let x = leaf(&[1.0, -2.0, 3.0], &[3], d);
    // Not a scalar.
    let e = x.mul_scalar(2.0).unwrap().backward().unwrap_err().to_string();
    assert!(e.contains("one-element") && e.contains("backward_with"), "{e}");
    // Nothing requires grad.
    let e = t(&[1.0], &[1], d).exp().unwrap().backward().unwrap_err().to_string();
    assert!(e.contains("requires_grad_(true)"), "{e}");
    // Through a comparison or argmax: named.
    let e = x.gt_scalar(0.0).unwrap().to_dtype(DType::F32).unwrap().sum_all().unwrap().backward().unwrap_err();
    assert!(e.to_string().contains("`gt`"), "{e}");
    let e = x.argmax(None, false).unwrap().to_dtype(DType::F32).unwrap().backward().unwrap_err();
    assert!(e.to_string().contains("`argmax`"), "{e}");
    // requires_grad_ only on float leaves.
    let e = x.exp().unwrap().requires_grad_(false).unwrap_err().to_string();
    assert!(e.contains("not a leaf") && e.contains("detach"), "{e}");
    let ints = Tensor::from_slice(&[1i32, 2], &[2], d).unwrap();
    let e = ints.requires_grad_(true).unwrap_err().to_string();
    assert!(e.contains("floating-point") && e.contains("i32"), "{e}");
    // A gradient of the wrong shape.
    let y = x.exp().unwrap();
    let e = y.backward_with(Some(&t(&[1.0, 1.0], &[2], d)), BackwardOptions::default()).unwrap_err();
    assert!(e.to_string().contains("shape"), "{e}");
    // Nothing was lost: the same graph still runs.
    y.backward_with(Some(&t(&[1.0, 1.0, 1.0], &[3], d)), BackwardOptions::default()).unwrap();
    assert_close(&f32s(&x.grad().unwrap()), &f32s(&y), 1e-6, "exp' = exp");
}

fn graph_is_freed_unless_retained(d: Device) {
    let x = leaf(&[1.0, 2.0], &[2], d);
    let y = x.sin().unwrap().sum_all().unwrap();
    y.backward_with(None, BackwardOptions { retain_graph: true }).unwrap();
    y.backward().unwrap();
    let cos: Vec<f32> = [1f32.cos(), 2f32.cos()].iter().map(|c| 2.0 * c).collect();
    assert_close(&f32s(&x.grad().unwrap()), &cos, 1e-5, "two passes over a retained graph");
    let e = y.backward().unwrap_err().to_string();
    assert!(e.contains("already freed") && e.contains("retain_graph"), "{e}");
}

/// Central differences in f32 (h = 1e-2 keeps rounding error below the tolerance) for a few
/// composed functions of several ops, views and broadcasting.
fn finite_differences_agree(d: Device) {
    type F = fn(&Tensor, &Tensor) -> Tensor;
    let fns: Vec<(&str, F)> = vec![
        ("mlp", |x, w| x.matmul(w).unwrap().tanh().unwrap().square().unwrap().mean_all().unwrap()),
        ("softmax-ce", |x, w| {
            let logits = x.matmul(w).unwrap();
            logits.log_softmax(-1).unwrap().narrow(1, 0, 1).unwrap().sum_all().unwrap().neg().unwrap()
        }),
        ("norm", |x, w| {
            let h = x.matmul(w).unwrap();
            let mu = h.mean(&[-1], true).unwrap();
            let sd = h.var(&[-1], 0, true).unwrap().add_scalar(1e-5).unwrap().sqrt().unwrap();
            h.sub(&mu).unwrap().div(&sd).unwrap().gelu().unwrap().sum_all().unwrap()
        }),
        // GELU's derivative op (its backward's one kernel) has a gradient of its own.
        ("gelu'", |x, w| {
            x.matmul(w).unwrap().mul_scalar(2.0).unwrap().unary(UnaryOp::GeluGrad).unwrap().sum_all().unwrap()
        }),
        ("views", |x, w| {
            let y = x.t().unwrap().reshape(&[-1]).unwrap().narrow(0, 1, 4).unwrap();
            let z = Tensor::cat(&[y.clone(), w.flatten().unwrap()], 0).unwrap();
            z.sigmoid().unwrap().prod_all().unwrap().mul(&w.max_all().unwrap()).unwrap()
        }),
    ];
    let xd: Vec<f32> = (0..6).map(|i| ((i * 37 % 11) as f32 - 5.0) / 7.0).collect();
    let wd: Vec<f32> = (0..9).map(|i| ((i * 53 % 13) as f32 - 6.0) / 9.0).collect();
    for (name, f) in fns {
        let x = leaf(&xd, &[2, 3], d);
        let w = leaf(&wd, &[3, 3], d);
        f(&x, &w).backward().unwrap();
        for (which, base, grad, shape) in
            [("x", &xd, x.grad().unwrap(), [2usize, 3]), ("w", &wd, w.grad().unwrap(), [3, 3])]
        {
            let grad = f32s(&grad);
            let h = 1e-2f32;
            let numeric: Vec<f32> = (0..base.len())
                .map(|i| {
                    let eval = |delta: f32| {
                        let mut v = base.clone();
                        v[i] += delta;
                        let p = t(&v, &shape, d);
                        let (a, b) = if which == "x" { (p, t(&wd, &[3, 3], d)) } else { (t(&xd, &[2, 3], d), p) };
                        f(&a, &b).item_blocking::<f32>().unwrap()
                    };
                    (eval(h) - eval(-h)) / (2.0 * h)
                })
                .collect();
            assert_close(&grad, &numeric, 2e-2, &format!("{name}: d/d{which} on {d}"));
        }
    }
}

fn shapes_flow_on_meta(d: Device) {
    let x = Tensor::zeros(&[8, 4], DType::F32, d).unwrap().requires_grad_(true).unwrap();
    let w = Tensor::zeros(&[4, 3], DType::F32, d).unwrap().requires_grad_(true).unwrap();
    x.matmul(&w).unwrap().relu().unwrap().sum_all().unwrap().backward().unwrap();
    assert_eq!(x.grad().unwrap().shape(), &[8, 4]);
    assert_eq!(w.grad().unwrap().shape(), &[4, 3]);
    assert_eq!(w.grad().unwrap().device(), d);
}

/// The gradient of `to` flows back to the source device, as in PyTorch.
fn gradients_cross_devices_back_to_their_leaf(g: Device) {
    let x = leaf(&[1.0, 2.0, 3.0], &[3], Device::CPU);
    let on_gpu = x.to_blocking(g).unwrap();
    assert_eq!(on_gpu.grad_fn(), Some("to"));
    let y = on_gpu.square().unwrap().sum_all().unwrap().to_blocking(Device::CPU).unwrap();
    y.backward().unwrap();
    let grad = x.grad().unwrap();
    assert_eq!(grad.device(), Device::CPU);
    assert_close(&f32s(&grad), &[2.0, 4.0, 6.0], 1e-6, "d(sum x^2) through the GPU");
    // And a GPU leaf's gradient comes back from the CPU to the GPU.
    let w = leaf(&[1.0, -1.0], &[2], g);
    let y = w.to_blocking(Device::CPU).unwrap().exp().unwrap().sum_all().unwrap();
    // Host to GPU needs no readback, so the async pass completes without waiting (as the
    // synchronous `backward` in a browser relies on).
    use futures::FutureExt;
    y.backward_async(None, BackwardOptions::default()).now_or_never().expect("no wait").unwrap();
    assert_eq!(w.grad().unwrap().device(), g);
    assert_close(&f32s(&w.grad().unwrap()), &[1f32.exp(), (-1f32).exp()], 1e-5, "exp' on the way back");
}

/// Grad mode is per thread, as in PyTorch.
fn grad_mode_is_per_thread() {
    let _g = webtensor::no_grad();
    let other = std::thread::spawn(webtensor::is_grad_enabled).join().unwrap();
    assert!(other && !webtensor::is_grad_enabled());
}

/// The guide's autograd example (docs/guide/autograd.md): least squares by gradient descent, with the update under no_grad.
fn readme_example_converges() {
    let dev = webtensor::best_device();
    let x = Tensor::randn(&[64, 8], Some(0), dev).unwrap();
    let y = Tensor::randn(&[64, 1], Some(1), dev).unwrap();
    let mut w = Tensor::zeros(&[8, 1], DType::F32, dev).unwrap().requires_grad_(true).unwrap();
    let loss_of = |w: &Tensor| x.matmul(w).unwrap().sub(&y).unwrap().square().unwrap().mean_all().unwrap();
    let first = loss_of(&w).item_blocking::<f32>().unwrap();
    for _ in 0..100 {
        let loss = loss_of(&w);
        loss.backward().unwrap();
        let step = {
            let _g = webtensor::no_grad();
            w.sub(&w.grad().expect("w requires grad").mul_scalar(0.1).unwrap()).unwrap()
        };
        w = step.requires_grad_(true).unwrap();
    }
    let last = loss_of(&w).item_blocking::<f32>().unwrap();
    assert!(last < 0.9 * first, "the loss fell: {first} -> {last}");
}
