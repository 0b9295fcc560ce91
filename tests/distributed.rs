//! `webtensor::distributed` within one process: post-accumulate gradient hooks, the `local`
//! group's collectives and errors, DistributedDataParallel over it (world of one, and two ranks
//! on two devices), DistributedSampler's sharding, and the environment `init_process_group`
//! reads. The MPI backend across processes is `distributed_mpi.rs`.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::*;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use webtensor::distributed::{
    env_rank_from, init_process_group, Backend, DdpOptions, DistributedDataParallel, DistributedSampler, EnvRank, Init,
    LocalGroup, ProcessGroup, ReduceOp, Rendezvous, SamplerOptions,
};
use webtensor::nn::{self, Linear, LinearOptions, Module, Reduction};
use webtensor::{Device, Tensor};

fn a_post_accumulate_hook_sees_the_whole_gradient_once_per_pass() {
    let w = t(&[1.0, 2.0], &[2], Device::CPU).requires_grad_(true).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (c, s) = (calls.clone(), seen.clone());
    let handle = w
        .register_post_accumulate_grad_hook(Arc::new(move |leaf: &Tensor| {
            c.fetch_add(1, Ordering::SeqCst);
            s.lock().unwrap().push(f32s(&leaf.grad().unwrap()));
            Ok(())
        }))
        .unwrap();
    // `w` is used twice (as a tied weight is): the hook runs once, after both contributions.
    w.mul(&w).unwrap().add(&w.mul_scalar(3.0).unwrap()).unwrap().sum_all().unwrap().backward().unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(seen.lock().unwrap()[0], vec![5.0, 7.0]);
    // A second pass accumulates, and the hook sees the sum.
    w.sum_all().unwrap().backward().unwrap();
    assert_eq!(seen.lock().unwrap()[1], vec![6.0, 8.0]);
    handle.remove();
    w.sum_all().unwrap().backward().unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 2, "a removed hook does not run");
    let out = w.mul_scalar(2.0).unwrap();
    let err = out.register_post_accumulate_grad_hook(Arc::new(|_: &Tensor| Ok(()))).unwrap_err().to_string();
    assert!(err.contains("not a leaf"), "{err}");
}

fn a_hook_error_ends_backward_with_it() {
    let w = t(&[1.0], &[1], Device::CPU).requires_grad_(true).unwrap();
    let h = w
        .register_post_accumulate_grad_hook(Arc::new(|_: &Tensor| {
            Err(webtensor::Error::InvalidArgument { op: "hook", msg: "refused".into() })
        }))
        .unwrap();
    let err = w.mul_scalar(2.0).unwrap().sum_all().unwrap().backward().unwrap_err().to_string();
    assert!(err.contains("refused"), "{err}");
    h.remove();
}

fn local_collectives_on_every_device(dev: Device) {
    let ranks = LocalGroup::ranks(3).unwrap();
    let mine = |r: usize| t(&[r as f32, 1.0], &[2], dev);
    let works: Vec<_> = ranks.iter().map(|g| g.all_reduce(&mine(g.rank()), ReduceOp::Sum).unwrap()).collect();
    for w in works {
        let out = w.wait_one_blocking().unwrap();
        assert_eq!(out.device(), dev);
        assert_eq!(f32s(&out), vec![3.0, 3.0]);
    }
    let works: Vec<_> = ranks.iter().map(|g| g.all_reduce(&mine(g.rank()), ReduceOp::Avg).unwrap()).collect();
    works.into_iter().for_each(|w| assert_eq!(f32s(&w.wait_one_blocking().unwrap()), vec![1.0, 1.0]));
    let works: Vec<_> = ranks.iter().map(|g| g.all_reduce(&mine(g.rank()), ReduceOp::Max).unwrap()).collect();
    works.into_iter().for_each(|w| assert_eq!(f32s(&w.wait_one_blocking().unwrap()), vec![2.0, 1.0]));
    let works: Vec<_> = ranks.iter().map(|g| g.broadcast(&mine(g.rank()), 2).unwrap()).collect();
    works.into_iter().for_each(|w| assert_eq!(f32s(&w.wait_one_blocking().unwrap()), vec![2.0, 1.0]));
    let works: Vec<_> = ranks.iter().map(|g| g.all_gather(&mine(g.rank())).unwrap()).collect();
    for w in works {
        let parts = w.wait_blocking().unwrap();
        assert_eq!(parts.iter().map(|p| f32s(p)[0]).collect::<Vec<_>>(), vec![0.0, 1.0, 2.0]);
    }
    let works: Vec<_> = ranks
        .iter()
        .map(|g| {
            let inputs: Vec<Tensor> = (0..3).map(|k| t(&[(g.rank() * 10 + k) as f32], &[1], dev)).collect();
            g.reduce_scatter(&inputs, ReduceOp::Sum).unwrap()
        })
        .collect();
    for (r, w) in works.into_iter().enumerate() {
        assert_eq!(f32s(&w.wait_one_blocking().unwrap()), vec![(30 + 3 * r) as f32]);
    }
    let works: Vec<_> = ranks.iter().map(|g| g.barrier().unwrap()).collect();
    works.into_iter().for_each(|w| assert!(w.wait_blocking().unwrap().is_empty()));
}

fn local_collective_errors_name_the_mistake() {
    let ranks = LocalGroup::ranks(2).unwrap();
    let a = t(&[1.0, 2.0], &[2], Device::CPU);
    // Waiting before every rank joined would hang on one thread: it is an error instead.
    let w0 = ranks[0].all_reduce(&a, ReduceOp::Sum).unwrap();
    let err = w0.wait_blocking().unwrap_err().to_string();
    assert!(err.contains("ranks [1] have not joined"), "{err}");
    // A different collective in the same slot is a mismatch.
    let err = ranks[1].broadcast(&a, 0).err().expect("mismatch").to_string();
    assert!(err.contains("every rank must make the same collectives"), "{err}");
    let err = ranks[1].broadcast(&a, 5).err().expect("bad src").to_string();
    assert!(err.contains("out of range"), "{err}");
    let ints = Tensor::from_slice(&[1i32], &[1], Device::CPU).unwrap();
    let err = ranks[1].all_reduce(&ints, ReduceOp::Avg).err().expect("avg of ints").to_string();
    assert!(err.contains("floating-point"), "{err}");
    let err = ranks[1]
        .reduce_scatter(std::slice::from_ref(&a), ReduceOp::Sum)
        .err()
        .expect("one input for two ranks")
        .to_string();
    assert!(err.contains("one tensor per rank"), "{err}");
}

fn linear(dev: Device) -> Linear {
    Linear::new(4, 3, LinearOptions { seed: Some(5), device: Some(dev), ..Default::default() }).unwrap()
}

fn ddp_in_a_world_of_one_is_the_plain_module(dev: Device) {
    let pg = init_process_group(Backend::Local, Init::Env).unwrap();
    assert_eq!((pg.rank(), pg.world_size(), pg.backend()), (0, 1, Backend::Local));
    let local = pg.local_device().unwrap();
    assert_eq!(local, webtensor::distributed::local_device(pg.as_ref()));
    assert!(webtensor::devices().iter().any(|i| i.device == local), "{local} is a device of this machine");
    let plain = linear(dev);
    let ddp = DistributedDataParallel::new_blocking(linear(dev), pg.clone(), DdpOptions::default()).unwrap();
    let x = Tensor::randn(&[5, 4], Some(1), dev).unwrap();
    for m in [&plain as &dyn Module, &ddp as &dyn Module] {
        m.forward(&x).unwrap().pow_scalar(2.0).unwrap().mean_all().unwrap().backward().unwrap();
    }
    assert!(!ddp.reduction_pending(), "the last bucket's hook finishes the reduction in a world of one");
    for (a, b) in plain.parameters().iter().zip(ddp.parameters()) {
        assert_close(&f32s(&a.grad().unwrap()), &f32s(&b.grad().unwrap()), 1e-6, "grad");
    }
}

/// Rank 0 on the CPU, rank 1 on `d` (the CPU too, or an accelerator: mixed devices).
fn ddp_over_two_local_ranks_averages_gradients(d: Device) {
    let devs = [Device::CPU, d];
    let ranks = LocalGroup::ranks(2).unwrap();
    let ddps: Vec<_> = ranks
        .iter()
        .zip(&devs)
        .map(|(g, &d)| {
            let opts = DdpOptions { bucket_cap_mb: 0.00001, ..Default::default() };
            DistributedDataParallel::new_blocking(linear(d), g.clone() as Arc<dyn ProcessGroup>, opts).unwrap()
        })
        .collect();
    assert_eq!(ddps[0].buckets().len(), 2, "a bucket per parameter at this cap: {:?}", ddps[0].buckets());
    assert_eq!(ddps[0].buckets()[0], vec!["bias".to_string()], "buckets start from the last parameter");
    let x = Tensor::randn(&[6, 4], Some(2), Device::CPU).unwrap();
    let y = Tensor::randn(&[6, 3], Some(3), Device::CPU).unwrap();
    // The reference: the whole batch on one module.
    let whole = linear(Device::CPU);
    nn::mse_loss(&whole.forward(&x).unwrap(), &y, Reduction::Mean).unwrap().backward().unwrap();
    for (r, (ddp, &d)) in ddps.iter().zip(&devs).enumerate() {
        let xs = x.narrow(0, 3 * r, 3).unwrap().to_blocking(d).unwrap();
        let ys = y.narrow(0, 3 * r, 3).unwrap().to_blocking(d).unwrap();
        nn::mse_loss(&ddp.forward(&xs).unwrap(), &ys, Reduction::Mean).unwrap().backward().unwrap();
        assert!(ddp.reduction_pending());
    }
    for ddp in &ddps {
        ddp.finish_reduction_blocking().unwrap();
    }
    for ddp in &ddps {
        for (a, b) in whole.parameters().iter().zip(ddp.parameters()) {
            assert_close(&f32s(&b.grad().unwrap()), &f32s(&a.grad().unwrap()), 1e-5, "averaged grad");
        }
    }
}

fn the_sampler_shards_as_pytorch_does() {
    let no_shuffle = SamplerOptions { shuffle: false, seed: 0, drop_last: false };
    let shards: Vec<Vec<usize>> =
        (0..3).map(|r| DistributedSampler::for_rank(10, 3, r, no_shuffle).unwrap().indices()).collect();
    // 10 over 3: padded to 12 by repeating the start, then every third index.
    assert_eq!(shards, vec![vec![0, 3, 6, 9], vec![1, 4, 7, 0], vec![2, 5, 8, 1]]);
    let dropped: Vec<Vec<usize>> = (0..3)
        .map(|r| DistributedSampler::for_rank(10, 3, r, SamplerOptions { drop_last: true, ..no_shuffle }).unwrap())
        .map(|s| s.indices())
        .collect();
    assert_eq!(dropped, vec![vec![0, 3, 6], vec![1, 4, 7], vec![2, 5, 8]]);
    let mut s0 = DistributedSampler::for_rank(100, 2, 0, SamplerOptions::default()).unwrap();
    let s1 = DistributedSampler::for_rank(100, 2, 1, SamplerOptions::default()).unwrap();
    let (a, b) = (s0.indices(), s1.indices());
    let mut all: Vec<usize> = a.iter().chain(&b).copied().collect();
    all.sort_unstable();
    assert_eq!(all, (0..100).collect::<Vec<_>>(), "the shards cover the data set once");
    assert_eq!(s0.indices(), a, "the same epoch gives the same order");
    s0.set_epoch(1);
    assert_ne!(s0.indices(), a, "set_epoch reshuffles");
    let err = DistributedSampler::for_rank(10, 2, 2, no_shuffle).unwrap_err().to_string();
    assert!(err.contains("rank 2 does not exist"), "{err}");
}

fn the_environment_gives_rank_and_world() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    };
    assert_eq!(env_rank_from(env(&[])).unwrap(), EnvRank { rank: 0, world_size: 1, local_rank: 0 });
    let torchrun = env(&[("RANK", "3"), ("WORLD_SIZE", "4"), ("LOCAL_RANK", "1")]);
    assert_eq!(env_rank_from(torchrun).unwrap(), EnvRank { rank: 3, world_size: 4, local_rank: 1 });
    let ompi =
        env(&[("OMPI_COMM_WORLD_RANK", "1"), ("OMPI_COMM_WORLD_SIZE", "2"), ("OMPI_COMM_WORLD_LOCAL_RANK", "1")]);
    assert_eq!(env_rank_from(ompi).unwrap(), EnvRank { rank: 1, world_size: 2, local_rank: 1 });
    let err = env_rank_from(env(&[("RANK", "1")])).unwrap_err().to_string();
    assert!(err.contains("set both RANK and WORLD_SIZE"), "{err}");
    let err = env_rank_from(env(&[("RANK", "2"), ("WORLD_SIZE", "2")])).unwrap_err().to_string();
    assert!(err.contains("rank 2 does not exist"), "{err}");
    let err = env_rank_from(env(&[("RANK", "x"), ("WORLD_SIZE", "2")])).unwrap_err().to_string();
    assert!(err.contains("not a non-negative integer"), "{err}");
}

/// PyTorch's env:// rendezvous (what NCCL's unique id travels through under torchrun): rank 0
/// serves, the others fetch the same bytes, whoever starts first; errors name the variables.
fn the_env_rendezvous_hands_rank_zeros_bytes_to_every_rank() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    };
    assert_eq!(Rendezvous::from_env(env(&[])).unwrap(), None);
    let err = Rendezvous::from_env(env(&[("MASTER_ADDR", "localhost")])).unwrap_err().to_string();
    assert!(err.contains("set both MASTER_ADDR and MASTER_PORT"), "{err}");
    let err = Rendezvous::from_env(env(&[("MASTER_ADDR", "x"), ("MASTER_PORT", "99999")])).unwrap_err().to_string();
    assert!(err.contains("not a port number"), "{err}");
    // A free port: bind to 0 and let it go.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let rv = Rendezvous { addr: "127.0.0.1".into(), port };
    let payload: Vec<u8> = (0..128).map(|i| (i * 7) as u8).collect();
    let timeout = std::time::Duration::from_secs(20);
    // The clients start first: they retry until rank 0 listens.
    let clients: Vec<_> = (1..3)
        .map(|r| {
            let rv = rv.clone();
            std::thread::spawn(move || rv.fetch(r, timeout))
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(100));
    rv.serve(3, &payload, timeout).unwrap();
    for c in clients {
        assert_eq!(c.join().unwrap().unwrap(), payload);
    }
    let err = Rendezvous { addr: "127.0.0.1".into(), port }.fetch(1, std::time::Duration::from_millis(300));
    assert!(err.unwrap_err().to_string().contains("could not reach rank 0"), "nobody serves any more");
}

#[cfg(not(feature = "mpi"))]
fn mpi_without_the_feature_is_a_clear_error() {
    let err = init_process_group(Backend::Mpi, Init::Env).err().expect("no mpi").to_string();
    assert!(err.contains("cargo feature `mpi`"), "{err}");
}

/// One trial per test, and per device for those that take one (libtest-mimic, `harness =
/// false`: an absent GPU's trials are reported ignored).
fn main() {
    use common::trials::{device_trials, plain_trial, run};
    let mut t = device_trials("local_collectives_on_every_device", local_collectives_on_every_device);
    t.extend(device_trials("ddp_in_a_world_of_one_is_the_plain_module", ddp_in_a_world_of_one_is_the_plain_module));
    t.extend(device_trials("ddp_over_two_local_ranks_averages_gradients", ddp_over_two_local_ranks_averages_gradients));
    t.push(plain_trial(
        "a_post_accumulate_hook_sees_the_whole_gradient_once_per_pass",
        a_post_accumulate_hook_sees_the_whole_gradient_once_per_pass,
    ));
    t.push(plain_trial("a_hook_error_ends_backward_with_it", a_hook_error_ends_backward_with_it));
    t.push(plain_trial("local_collective_errors_name_the_mistake", local_collective_errors_name_the_mistake));
    t.push(plain_trial("the_sampler_shards_as_pytorch_does", the_sampler_shards_as_pytorch_does));
    t.push(plain_trial("the_environment_gives_rank_and_world", the_environment_gives_rank_and_world));
    t.push(plain_trial(
        "the_env_rendezvous_hands_rank_zeros_bytes_to_every_rank",
        the_env_rendezvous_hands_rank_zeros_bytes_to_every_rank,
    ));
    #[cfg(not(feature = "mpi"))]
    t.push(plain_trial("mpi_without_the_feature_is_a_clear_error", mpi_without_the_feature_is_a_clear_error));
    run(t)
}
