//! In-place ops (`add_`, `mul_`, `clamp_`, `fill_`, `zero_`, `copy_`, `apply_`) on every device,
//! with PyTorch's rules: refused on a leaf that requires grad while grad mode is on (and the
//! tensor left as it was), allowed under `no_grad` where the leaf keeps requiring grad and keeps
//! its gradient, recorded by autograd on other tensors, shape kept, dtype cast where PyTorch
//! casts and refused where it refuses.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use webtensor::{no_grad, DType, Device, Tensor};

device_main!(values_change_in_place, autograd_rules, shapes_and_dtypes);

fn values_change_in_place(d: Device) {
    let mut x = t(&[1.0, 2.0, 3.0], &[3], d);
    let alias = x.clone();
    x.add_(&t(&[1.0, 1.0, 1.0], &[3], d)).unwrap();
    assert_eq!(f32s(&x), [2.0, 3.0, 4.0]);
    x.mul_scalar_(2.0).unwrap().sub_(&t(&[1.0], &[1], d)).unwrap();
    assert_eq!(f32s(&x), [3.0, 5.0, 7.0], "chained, with a broadcast operand");
    x.div_(&t(&[3.0, 5.0, 7.0], &[3], d)).unwrap().add_scalar_(1.0).unwrap();
    assert_eq!(f32s(&x), [2.0, 2.0, 2.0]);
    x.mul_(&t(&[1.0, 2.0, 3.0], &[3], d)).unwrap().clamp_(Some(3.0), Some(5.0)).unwrap();
    assert_eq!(f32s(&x), [3.0, 4.0, 5.0]);
    assert_eq!(f32s(&alias), [1.0, 2.0, 3.0], "a handle taken before keeps the old value");
    x.apply_("relu_", |v| v.sub_scalar(4.0)?.relu()).unwrap();
    assert_eq!(f32s(&x), [0.0, 0.0, 1.0]);
    x.fill_(7.0).unwrap();
    assert_eq!(f32s(&x), [7.0; 3]);
    x.zero_().unwrap();
    assert_eq!(f32s(&x), [0.0; 3]);
    let mut m = Tensor::zeros(&[2, 3], DType::I32, d).unwrap();
    m.copy_(&t(&[1.5, -2.5, 3.0], &[3], d)).unwrap();
    assert_eq!(m.dtype(), DType::I32, "copy_ casts anything, as PyTorch's");
    assert_eq!(i32s(&m), [1, -2, 3, 1, -2, 3], "broadcast over the rows, truncated to integers");
}

fn autograd_rules(d: Device) {
    let mut w = t(&[1.0, 2.0], &[2], d).requires_grad_(true).unwrap();
    let err = w.add_scalar_(1.0).expect_err("refused on a leaf that requires grad");
    assert!(err.to_string().contains("leaf that requires grad"), "{err}");
    assert_eq!(f32s(&w), [1.0, 2.0], "left as it was");
    assert!(w.copy_(&t(&[0.0, 0.0], &[2], d)).is_err(), "copy_ too");

    w.mul(&w).unwrap().sum_all().unwrap().backward().unwrap();
    assert_eq!(f32s(&w.grad().unwrap()), [2.0, 4.0]);
    let src = t(&[5.0, 6.0], &[2], d);
    {
        let _off = no_grad();
        w.sub_(&w.grad().unwrap().mul_scalar(0.5).unwrap()).unwrap();
        assert_eq!(f32s(&w), [0.0, 0.0], "a hand-written SGD step");
        w.copy_(&src).unwrap();
    }
    assert!(w.is_leaf() && w.requires_grad(), "still a parameter");
    assert_eq!(f32s(&w.grad().unwrap()), [2.0, 4.0], "the gradient is kept");
    assert!(!src.requires_grad(), "copy_ marks no other tensor");
    assert_eq!(f32s(&w), [5.0, 6.0]);

    // On a tensor with history the op is recorded: d/dx of sum((2x + 1) * 3) is 6.
    let x = t(&[1.0, 2.0], &[2], d).requires_grad_(true).unwrap();
    let mut y = x.mul_scalar(2.0).unwrap();
    y.add_scalar_(1.0).unwrap().mul_scalar_(3.0).unwrap();
    assert_eq!(f32s(&y), [9.0, 15.0]);
    y.sum_all().unwrap().backward().unwrap();
    assert_eq!(f32s(&x.grad().unwrap()), [6.0, 6.0]);
    // copy_ sends the gradient to its source.
    let s = t(&[1.0, 2.0], &[2], d).requires_grad_(true).unwrap();
    let mut z = Tensor::zeros(&[2, 2], DType::F32, d).unwrap();
    z.copy_(&s).unwrap();
    z.sum_all().unwrap().backward().unwrap();
    assert_eq!(f32s(&s.grad().unwrap()), [2.0, 2.0], "broadcast over two rows");
}

fn shapes_and_dtypes(d: Device) {
    let mut x = t(&[1.0, 2.0, 3.0], &[3], d);
    let err = x.add_(&Tensor::ones(&[2, 3], DType::F32, d).unwrap()).expect_err("would grow");
    assert!(err.to_string().contains("keeps the shape"), "{err}");
    assert_eq!(x.shape(), [3]);
    let mut i = Tensor::ones(&[2], DType::I32, d).unwrap();
    let err = i.add_scalar_(0.5).expect_err("float into int");
    assert!(err.to_string().contains("cannot be written into this"), "{err}");
    assert_eq!(i32s(&i), [1, 1], "left as it was");
    i.mul_(&Tensor::full(&[2], 3.0, DType::I32, d).unwrap()).unwrap();
    assert_eq!(i32s(&i), [3, 3]);
    let mut f = t(&[1.0, 2.0], &[2], d);
    f.add_(&Tensor::ones(&[2], DType::I32, d).unwrap()).unwrap();
    assert_eq!((f.dtype(), f32s(&f)), (DType::F32, vec![2.0, 3.0]), "an integer operand into a float tensor");
    let mut b = Tensor::ones(&[2], DType::Bool, d).unwrap();
    assert!(b.add_scalar_(1.0).is_err(), "a number into a bool tensor");
    if has_f16(d) {
        let mut h = t(&[1.0, 2.0], &[2], d).to_dtype(DType::F16).unwrap();
        h.add_(&t(&[0.5, 0.5], &[2], d)).unwrap();
        assert_eq!(h.dtype(), DType::F16, "float32 into float16 is cast back, as PyTorch");
        assert_eq!(f32s(&h.to_dtype(DType::F32).unwrap()), [1.5, 2.5]);
    }
    if d != Device::CPU {
        let mut c = t(&[0.0, 0.0], &[2], Device::CPU);
        let err = c.copy_(&t(&[1.0, 2.0], &[2], d)).expect_err("another device");
        assert!(err.to_string().contains("move it first"), "{err}");
    }
}
