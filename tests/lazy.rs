//! The lazy elementwise tier (`set_lazy_elementwise`) on the WebGPU adapters and, switched on
//! here, CUDA: chains of f32
//! elementwise ops give the eager ops' values (broadcasts, views, reshapes, scalars, repeated
//! operands, chains past a program's limits, every recordable unary and binary op), in fewer
//! launches; gradients through recorded chains are the eager ones; a memory query, a
//! synchronize and launch-blocking mode realize or bypass it; a realization that fails (a
//! memory limit) reports its op and leaves the result usable once the limit is raised.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::{cuda_trial, gpu_trial, no_f16_trial, run_in_order};
use common::*;

use webtensor::op::binary::BinaryOp;
use webtensor::op::unary::UnaryOp;
use webtensor::{kernel_launches, set_lazy_elementwise, DType, Device, Tensor};

fn main() {
    // CUDA records only where switched on (its generated kernels are new to hardware).
    webtensor::__set_lazy_cuda(true);
    let mut t = vec![];
    for (name, f) in [
        ("chains_match_eager", chains_match_eager as fn(Device)),
        ("every_op_in_a_chain", every_op_in_a_chain),
        ("chains_past_the_limits", chains_past_the_limits),
        ("a_chain_is_one_launch", a_chain_is_one_launch),
        ("gradients_through_chains", gradients_through_chains),
        ("memory_queries_and_synchronize_realize", memory_queries_and_synchronize_realize),
        ("failed_realization_keeps_the_result", failed_realization_keeps_the_result),
        ("pending_inputs_are_freed_when_memory_runs_out", pending_inputs_are_freed_when_memory_runs_out),
        ("launch_blocking_runs_op_by_op", launch_blocking_runs_op_by_op),
        ("pending_results_are_bounded", pending_results_are_bounded),
    ] {
        t.push(gpu_trial(name, f));
        t.push(no_f16_trial(name, f));
        t.push(cuda_trial(name, f));
    }
    run_in_order(t)
}

/// Values in [-2, 2) from a simple generator (no device randomness: both modes see the same).
fn data(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2654435761).wrapping_add(12345);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 8) as f32 / (1u32 << 24) as f32 * 4.0 - 2.0
        })
        .collect()
}

fn tensor(shape: &[usize], seed: u32, d: Device) -> Tensor {
    t(&data(shape.iter().product(), seed), shape, d)
}

/// `f`'s result with the tier on and off, after checking it is the same both ways (a few ulps:
/// a compiler may contract a product and a sum of one kernel into one rounding).
fn same_both_ways(what: &str, f: impl Fn() -> Tensor) {
    set_lazy_elementwise(true);
    let lazy = f32s(&f());
    set_lazy_elementwise(false);
    let eager = f32s(&f());
    set_lazy_elementwise(true);
    assert_close(&lazy, &eager, 2e-6, what);
}

fn chains_match_eager(d: Device) {
    let x = tensor(&[4, 1, 8], 1, d);
    let y = tensor(&[1, 5, 8], 2, d);
    let z = tensor(&[8], 3, d);
    same_both_ways("exp * 2 + y", || x.exp().unwrap().mul_scalar(2.0).unwrap().add(&y).unwrap());
    same_both_ways("broadcasts", || x.add(&y).unwrap().tanh().unwrap().mul(&z).unwrap().sub_scalar(0.25).unwrap());
    // A recorded result read through a reshape, a transpose (a leaf, realized first) and a
    // narrow, then used again.
    same_both_ways("reshape of a recorded result", || {
        let a = x.add(&y).unwrap().sigmoid().unwrap();
        a.reshape(&[20, 8]).unwrap().mul(&z).unwrap().reshape(&[4, 5, 8]).unwrap().add(&a).unwrap()
    });
    same_both_ways("transposed recorded result", || {
        let a = x.add(&y).unwrap().relu().unwrap();
        a.transpose(0, 2).unwrap().mul_scalar(3.0).unwrap().add_scalar(1.0).unwrap()
    });
    same_both_ways("narrowed and strided leaves", || {
        let w = tensor(&[6, 10], 4, d);
        let v = w.narrow(1, 2, 5).unwrap().t().unwrap();
        v.mul(&v).unwrap().sqrt().unwrap().add(&w.narrow(0, 1, 5).unwrap().narrow(1, 3, 6).unwrap()).unwrap()
    });
    same_both_ways("rows of whole fours from an unaligned view", || {
        // Four positions of a row a thread (the wgpu program's lanes): a narrowed view at an
        // odd offset, a transposed one (innermost stride 4) and a broadcast row.
        let w = tensor(&[6, 9], 21, d);
        let a = w.narrow(1, 1, 8).unwrap().narrow(0, 1, 4).unwrap();
        let b = tensor(&[8, 4], 22, d).t().unwrap();
        a.mul(&b).unwrap().add(&tensor(&[8], 23, d)).unwrap().exp().unwrap()
    });
    same_both_ways("a repeated operand", || {
        let e = x.exp().unwrap();
        e.mul(&e).unwrap().div(&e.add_scalar(1.0).unwrap()).unwrap()
    });
    same_both_ways("contiguous of a view in a chain", || {
        let w = tensor(&[8, 6], 5, d);
        w.t().unwrap().contiguous().unwrap().neg().unwrap().maximum(&tensor(&[6, 8], 6, d)).unwrap()
    });
    same_both_ways("a rank-5 broadcast", || {
        let a = tensor(&[2, 3, 1, 4, 5], 7, d);
        let b = tensor(&[3, 2, 1, 5], 8, d);
        a.mul(&b).unwrap().exp().unwrap().log1p().unwrap()
    });
    same_both_ways("where and clamp in a chain", || {
        let c = x.add(&y).unwrap().gt_scalar(0.0).unwrap();
        let a = x.exp().unwrap().mul(&y).unwrap();
        c.where_(&a, &y.neg().unwrap()).unwrap().clamp(Some(-0.5), Some(1.5)).unwrap().add_scalar(0.25).unwrap()
    });
    same_both_ways("a broadcast condition", || {
        let c = z.gt_scalar(0.0).unwrap();
        c.where_(&x.add(&y).unwrap(), &z.mul_scalar(2.0).unwrap()).unwrap().sigmoid().unwrap()
    });
    same_both_ways("one element", || tensor(&[1], 9, d).square().unwrap().add_scalar(1.0).unwrap().rsqrt().unwrap());
}

/// Each recordable unary op after two recorded ops, and each binary op between two recorded
/// results: the generated program spells them as the eager kernels do.
fn every_op_in_a_chain(d: Device) {
    let x = tensor(&[3, 33], 10, d);
    let y = tensor(&[3, 33], 11, d);
    for &u in UnaryOp::ALL.iter() {
        if u.result_dtype(DType::F32) != Ok(DType::F32) {
            continue;
        }
        same_both_ways(&format!("{} in a chain", u.name()), || {
            x.mul_scalar(0.4).unwrap().add_scalar(0.1).unwrap().unary(u).unwrap().mul_scalar(1.5).unwrap()
        });
    }
    for &op in BinaryOp::ALL.iter() {
        if op.int_only() || op.result_dtype(DType::F32, DType::F32) != Ok(DType::F32) {
            continue;
        }
        same_both_ways(&format!("{} in a chain", op.name()), || {
            let a = x.mul_scalar(1.7).unwrap().add_scalar(0.3).unwrap();
            let b = y.abs().unwrap().add_scalar(0.5).unwrap();
            a.binary(&b, op).unwrap().sub_scalar(1.0).unwrap()
        });
    }
}

/// Chains longer than one program (instructions, leaves, scalars) realize their prefix and go
/// on; nothing is lost.
fn chains_past_the_limits(d: Device) {
    let x = tensor(&[5, 7], 12, d);
    same_both_ways("200 ops", || {
        let mut a = x.clone();
        for i in 0..200 {
            a = if i % 2 == 0 { a.mul_scalar(0.99).unwrap() } else { a.sin().unwrap() };
        }
        a
    });
    same_both_ways("nine leaves", || {
        let mut a = tensor(&[5, 7], 20, d);
        for k in 1..9 {
            a = a.add(&tensor(&[5, 7], 20 + k, d)).unwrap().mul_scalar(0.5).unwrap();
        }
        a
    });
    same_both_ways("twelve scalars", || {
        let mut a = x.clone();
        for k in 0..12 {
            a = a.add_scalar(k as f64 * 0.125).unwrap();
        }
        a
    });
}

/// Five ops realized by one readback: one launch for the chain (the eager ops: five).
fn a_chain_is_one_launch(d: Device) {
    let x = tensor(&[64, 64], 30, d);
    let y = tensor(&[64], 31, d);
    let chain = || x.mul(&y).unwrap().tanh().unwrap().add_scalar(1.0).unwrap().mul_scalar(0.5).unwrap().exp().unwrap();
    let count = |lazy: bool| {
        set_lazy_elementwise(lazy);
        webtensor::synchronize_blocking(d).unwrap();
        let before = kernel_launches(d).unwrap();
        let r = chain();
        let mid = kernel_launches(d).unwrap();
        let v = f32s(&r);
        set_lazy_elementwise(true);
        (mid - before, kernel_launches(d).unwrap() - before, v)
    };
    let (recorded, lazy, a) = count(true);
    let (_, eager, b) = count(false);
    assert_eq!(recorded, 0, "recording launches nothing");
    assert_eq!(lazy, 1, "one launch for the chain");
    assert_eq!(eager, 5, "five launches op by op");
    assert_close(&a, &b, 2e-6, "the chain's values");
}

/// `((x * w).tanh() + b).square().mean()`'s gradients with recorded chains are the eager ones.
fn gradients_through_chains(d: Device) {
    let grads = |lazy: bool| {
        set_lazy_elementwise(lazy);
        let x = tensor(&[6, 9], 40, d);
        let w = tensor(&[9], 41, d).requires_grad_(true).unwrap();
        let b = tensor(&[6, 1], 42, d).requires_grad_(true).unwrap();
        let loss = x.mul(&w).unwrap().tanh().unwrap().add(&b).unwrap().square().unwrap().mean(&[0, 1], false).unwrap();
        loss.backward().unwrap();
        let out = [f32s(&loss), f32s(&w.grad().unwrap()), f32s(&b.grad().unwrap())];
        set_lazy_elementwise(true);
        out
    };
    let (lazy, eager) = (grads(true), grads(false));
    for (k, (l, e)) in lazy.iter().zip(&eager).enumerate() {
        assert_close(l, e, 2e-6, &format!("output {k}"));
    }
}

/// A memory query counts a recorded result's bytes as the eager op's (it realizes what is
/// pending); synchronize realizes too.
fn memory_queries_and_synchronize_realize(d: Device) {
    let x = tensor(&[256, 256], 50, d);
    let allocated = |lazy: bool| {
        set_lazy_elementwise(lazy);
        let before = webtensor::memory_allocated(d).unwrap();
        let y = x.exp().unwrap().mul_scalar(2.0).unwrap().add(&x).unwrap();
        let grown = webtensor::memory_allocated(d).unwrap() - before;
        drop(y);
        set_lazy_elementwise(true);
        grown
    };
    assert_eq!(allocated(true), allocated(false), "live bytes after a chain");
    assert!(allocated(true) >= 256 * 256 * 4);
    set_lazy_elementwise(true);
    let y = x.neg().unwrap().exp().unwrap();
    let before = kernel_launches(d).unwrap();
    webtensor::synchronize_blocking(d).unwrap();
    assert_eq!(kernel_launches(d).unwrap() - before, 1, "synchronize ran the pending chain");
    assert_eq!(f32s(&y).len(), 256 * 256);
}

/// A chain whose realization passes the device's memory limit fails where it is used, naming
/// its op; the tensor stays valid and reads once the limit allows.
fn failed_realization_keeps_the_result(d: Device) {
    set_lazy_elementwise(true);
    let x = tensor(&[1024, 256], 60, d);
    let want: Vec<f32> = data(1024 * 256, 60).iter().map(|v| (v * 3.0).exp() + 1.0).collect();
    // (A memory query realizes what is pending: ask before recording.)
    let used = webtensor::memory_allocated(d).unwrap();
    let y = x.mul_scalar(3.0).unwrap().exp().unwrap().add_scalar(1.0).unwrap();
    webtensor::set_memory_limit(d, Some(used + 1024)).unwrap();
    let e = y.to_vec_blocking::<f32>();
    webtensor::set_memory_limit(d, None).unwrap();
    let e = e.expect_err("past the memory limit");
    assert!(matches!(e, webtensor::Error::OutOfMemory { .. }), "{e:?}");
    assert_close(&f32s(&y), &want, 1e-5, "after the limit was lifted");
    assert_close(&f32s(&x), &data(1024 * 256, 60), 0.0, "the input is untouched");
}

/// A recorded result keeps its inputs alive until it runs: when an allocation then fails, the
/// pending results run (freeing inputs only they held) and the allocation is tried again, so
/// a program fits where the eager ops fit.
fn pending_inputs_are_freed_when_memory_runs_out(d: Device) {
    set_lazy_elementwise(true);
    webtensor::synchronize_blocking(d).unwrap();
    let base = webtensor::memory_allocated(d).unwrap();
    let mib: u64 = 1 << 20;
    webtensor::set_memory_limit(d, Some(base + 5 * mib / 2)).unwrap();
    let a = Tensor::ones(&[(mib / 4) as usize], DType::F32, d).unwrap(); // 1 MiB
                                                                         // Ten elements of it, doubled: recorded, holding all of `a` after `a` is dropped.
    let y = a.narrow(0, 0, 10).unwrap().mul_scalar(2.0).unwrap();
    drop(a);
    let big = Tensor::zeros(&[(mib / 2) as usize], DType::F32, d); // 2 MiB: fits once `a` is freed
    webtensor::set_memory_limit(d, None).unwrap();
    assert!(big.is_ok(), "{:?}", big.err());
    assert_eq!(f32s(&y), vec![2.0; 10]);
}

/// Past 1024 pending results (each holding its inputs) the tier runs them: thousands of
/// recorded tensors kept in a list do not pile up unrun.
fn pending_results_are_bounded(d: Device) {
    set_lazy_elementwise(true);
    let x = tensor(&[16], 80, d);
    webtensor::synchronize_blocking(d).unwrap();
    let before = kernel_launches(d).unwrap();
    let kept: Vec<Tensor> = (0..2100).map(|i| x.mul_scalar(i as f64).unwrap()).collect();
    let ran = kernel_launches(d).unwrap() - before;
    assert!(ran > 1024, "{ran} launches while recording 2100 results");
    assert_close(&f32s(&kept[2099]), &data(16, 80).iter().map(|v| v * 2099.0).collect::<Vec<_>>(), 1e-6, "last");
    assert_close(&f32s(&kept[7]), &data(16, 80).iter().map(|v| v * 7.0).collect::<Vec<_>>(), 1e-6, "an early one");
}

/// Launch-blocking mode runs every op on its own.
fn launch_blocking_runs_op_by_op(d: Device) {
    set_lazy_elementwise(true);
    let x = tensor(&[32], 70, d);
    webtensor::set_launch_blocking(true);
    let before = kernel_launches(d).unwrap();
    let y = x.exp().unwrap().add_scalar(1.0).unwrap();
    let launched = kernel_launches(d).unwrap() - before;
    webtensor::set_launch_blocking(false);
    assert_eq!(launched, 2);
    assert_eq!(f32s(&y).len(), 32);
}
