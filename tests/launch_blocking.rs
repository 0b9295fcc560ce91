//! Launch-blocking mode (a module-wide switch, so this binary holds one sequential test): an
//! injected GPU error is returned by the op that caused it, naming its kernel; without the mode
//! the same error only surfaces at the next synchronize.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;
use webtensor::Device;
use webtensor::{set_launch_blocking, Error};

fn launch_blocking_attributes_errors_to_their_op(g: Device) {
    let a = t(&[1.0, 2.0, 3.0], &[3], g);

    set_launch_blocking(false);
    webtensor::__inject_dispatch_error(g).unwrap();
    // Held: the lazy tier runs a recorded op only for a result that is still wanted.
    let sum = a.add(&a);
    assert!(sum.is_ok(), "without launch blocking the op only records");
    let e = webtensor::synchronize_blocking(g).unwrap_err();
    assert!(matches!(e, Error::Gpu { .. }), "{e:?}");

    set_launch_blocking(true);
    assert!(webtensor::launch_blocking());
    let fine = a.mul_scalar(2.0).unwrap();
    webtensor::__inject_dispatch_error(g).unwrap();
    let e = a.exp().unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::Gpu { .. }), "{e:?}");
    assert!(msg.contains("launch blocking") && msg.contains("Unary(Exp)"), "the error names its kernel: {msg}");
    // Reported once, by its op: the device, later ops and other tensors are fine.
    webtensor::synchronize_blocking(g).unwrap();
    assert_eq!(f32s(&fine), vec![2.0, 4.0, 6.0]);
    assert_close(&f32s(&a.exp().unwrap().log().unwrap()), &[1.0, 2.0, 3.0], 1e-6, "ops after the error");
    set_launch_blocking(false);
}

device_main!(; gpu: launch_blocking_attributes_errors_to_their_op);
