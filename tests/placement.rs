//! Soft placement and the placement log. Both are module-wide switches, so this binary runs its
//! trials one at a time, in order (libtest-mimic, `harness = false`), and restores the
//! defaults at the end.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::*;
use webtensor::{
    clear_placement_log, placement_log, set_log_device_placement, set_soft_device_placement, DType, Device, Error,
    Tensor,
};

/// One trial per step, in order (an absent adapter without `shader-f16` is reported ignored),
/// then the defaults restored.
fn main() {
    use common::trials::{no_f16_trial, plain_trial, run_in_order};
    run_in_order(vec![
        plain_trial("strict_by_default", strict_by_default),
        plain_trial("soft_placement_falls_back_and_records_why", soft_placement_falls_back_and_records_why),
        plain_trial("log_records_every_op", log_records_every_op),
        no_f16_trial("soft_placement_runs_unsupported_ops_on_the_cpu", soft_placement_runs_unsupported_ops_on_the_cpu),
        plain_trial("defaults_restored", defaults_restored),
    ])
}

/// Both switches back off (the trials before may have failed with one on).
fn defaults_restored() {
    set_soft_device_placement(false);
    set_log_device_placement(false);
    assert!(!webtensor::soft_device_placement());
}

fn strict_by_default() {
    assert!(!webtensor::soft_device_placement());
    for d in [Device::cuda(1), Device::webgpu(3)] {
        let e = Tensor::zeros(&[2], DType::F32, d).unwrap_err();
        assert!(matches!(e, Error::DeviceUnavailable { .. }), "{d}: {e:?}");
    }
}

fn soft_placement_falls_back_and_records_why() {
    set_soft_device_placement(true);
    clear_placement_log();
    // Logging is off: fallbacks are recorded anyway.
    let t = Tensor::ones(&[3], DType::F32, Device::cuda(1)).unwrap();
    assert_eq!(t.device(), webtensor::best_device());
    assert_eq!(f32s(&t), vec![1.0; 3]);
    let log = placement_log();
    assert_eq!(log.len(), 1, "{log:?}");
    let why = log[0].fallback.as_deref().unwrap_or_default();
    assert!(why.contains("cuda:1") && why.contains("soft placement"), "{why}");
    if let Some(g) = gpu() {
        // A missing adapter falls back to the first one of the same kind.
        let x = Tensor::from_slice(&[1.0f32, 2.0], &[2], Device::webgpu(3)).unwrap();
        assert_eq!(x.device(), Device::webgpu(0));
        let y = t.narrow(0, 0, 2).unwrap().to_blocking(Device::webgpu(7)).unwrap();
        assert_eq!(y.device(), Device::webgpu(0));
        assert_eq!(f32s(&y.add(&x).unwrap()), vec![2.0, 3.0]);
        let fallbacks: Vec<_> = placement_log().into_iter().filter(|p| p.fallback.is_some()).collect();
        assert_eq!(fallbacks.len(), 3, "{fallbacks:?}");
        assert_eq!((fallbacks[2].op, fallbacks[2].output), ("to", Device::webgpu(0)));
        let _ = g;
    }
    // Soft placement does not hide other errors.
    assert!(matches!(Tensor::from_slice(&[1.0f32], &[2], Device::cuda(0)), Err(Error::DataLength { .. })));
    set_soft_device_placement(false);
    assert!(Tensor::zeros(&[1], DType::F32, Device::cuda(1)).is_err());
}

fn log_records_every_op() {
    set_log_device_placement(true);
    clear_placement_log();
    let a = Tensor::ones(&[2, 2], DType::F32, Device::CPU).unwrap();
    let b = a.add(&a).unwrap().sum(&[0], false).unwrap();
    let expected = vec![
        ("full", vec![], Device::CPU),
        ("add", vec![Device::CPU, Device::CPU], Device::CPU),
        ("sum", vec![Device::CPU], Device::CPU),
    ];
    // Internal copies (the `contiguous` a reduction may need) are logged too, as TensorFlow logs
    // every op that runs; the user's ops appear in order.
    let got: Vec<_> =
        placement_log().into_iter().map(|p| (p.op, p.inputs, p.output)).filter(|p| p.0 != "contiguous").collect();
    assert_eq!(got, expected);
    if let Some(g) = gpu() {
        clear_placement_log();
        let c = b.to_blocking(g).unwrap().matmul(&a.to_blocking(g).unwrap()).unwrap();
        let log = placement_log();
        let ops: Vec<_> = log.iter().map(|p| p.op).collect();
        assert_eq!(ops, vec!["to", "to", "matmul"], "{log:?}");
        assert_eq!(log[0].inputs, vec![Device::CPU]);
        assert_eq!(log[0].output, g);
        assert_eq!((log[2].inputs.clone(), log[2].output), (vec![g, g], g));
        assert!(log.iter().all(|p| p.fallback.is_none()));
        assert_eq!(c.device(), g);
    }
    // Off again: nothing more is recorded.
    set_log_device_placement(false);
    clear_placement_log();
    let _ = a.mul(&a).unwrap().exp().unwrap();
    assert!(placement_log().is_empty());
}

/// An op the device cannot run (f16 without `shader-f16`) runs on the CPU under soft placement,
/// with the result moved back; strict mode refuses it.
fn soft_placement_runs_unsupported_ops_on_the_cpu(d: Device) {
    let x = t(&[1.0, 2.0, 3.0, 4.0], &[2, 2], d);
    set_soft_device_placement(false);
    assert!(matches!(x.to_dtype(DType::F16), Err(Error::UnsupportedDType { .. })));
    assert!(Tensor::zeros(&[2], DType::F16, d).is_err());

    set_soft_device_placement(true);
    clear_placement_log();
    let h = x.to_dtype(DType::F16).unwrap();
    assert_eq!((h.device(), h.dtype()), (d, DType::F16), "the result moved back to {d}");
    assert_eq!(f32s(&h.to_blocking(Device::CPU).unwrap()), vec![1.0, 2.0, 3.0, 4.0]);
    let s = h.add(&h).unwrap().sum(&[0], false).unwrap();
    assert_eq!((s.device(), s.dtype()), (d, DType::F16));
    assert_eq!(f32s(&s.to_blocking(Device::CPU).unwrap()), vec![8.0, 12.0]);
    // A transposed f16 view is gathered on the host: no shader here can read f16.
    let tv = h.t().unwrap().to_blocking(Device::CPU).unwrap();
    assert_eq!(f32s(&tv), vec![1.0, 3.0, 2.0, 4.0]);
    let z = Tensor::zeros(&[3], DType::F16, d).unwrap();
    assert_eq!(z.device(), d);
    let log = placement_log();
    let fell: Vec<_> = log.iter().filter(|p| p.fallback.is_some()).map(|p| p.op).collect();
    // sum over dim 0 reduces its permuted view in place (no contiguous copy to fall back).
    assert_eq!(fell, vec!["to_dtype", "add", "sum", "full"], "{log:?}");
    let why = log[0].fallback.as_deref().unwrap_or_default();
    assert!(why.contains("shader-f16") && why.contains("ran on cpu"), "{why}");
    set_soft_device_placement(false);
}
