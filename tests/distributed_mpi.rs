//! DistributedDataParallel across processes (cargo feature `mpi`): runs `examples/ddp_check.rs`
//! under `mpirun` with 1, 2 and 3 ranks on the CPU and on the GPU adapter (lavapipe in CI), and
//! checks that the ranks reach the losses and weights of one process on the same global batches
//! (SGD with momentum and AdamW, an uneven last batch, `no_sync` accumulation, many buckets
//! against one), that every collective gives the right values, that a parameter no loss used is
//! PyTorch's error unless `find_unused_parameters`, and that a rank that dies or stalls ends the
//! job with an error instead of a hang.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

#[cfg(feature = "mpi")]
mod mpi {
    use super::common;
    use webtensor::Device;

    use std::path::PathBuf;
    use std::process::{Command, Output};
    use std::sync::OnceLock;
    use std::time::{Duration, Instant};

    /// The example binary (`WEBTENSOR_DDP_WORKER`, or built or found up to date once per run): `cargo test --test
    /// distributed_mpi` alone does not build examples, and a stale one would test old code.
    fn worker() -> PathBuf {
        static BIN: OnceLock<PathBuf> = OnceLock::new();
        BIN.get_or_init(|| {
            // A prebuilt worker (machines without cargo, such as a lent GPU machine).
            if let Some(path) = std::env::var_os("WEBTENSOR_DDP_WORKER").map(PathBuf::from).filter(|p| p.exists()) {
                return path;
            }
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            // The features this test was built with, so that the build finds the suite's own
            // artifacts up to date instead of recompiling the library another way.
            let mut features = vec!["mpi"];
            if cfg!(feature = "cuda") {
                features.push("cuda");
            }
            if cfg!(feature = "nccl") {
                features.push("nccl");
            }
            let st = Command::new(cargo)
                .args(["build", "-q", "--example", "ddp_check", "--features", &features.join(",")])
                .status()
                .expect("run cargo build");
            assert!(st.success(), "building examples/ddp_check failed");
            let exe = std::env::current_exe().expect("test binary path");
            exe.parent().and_then(|d| d.parent()).expect("target dir").join("examples").join("ddp_check")
        })
        .clone()
    }

    /// `mpirun -np n ddp_check args...` (oversubscribed: this machine has 2 cores).
    fn mpirun(n: usize, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = Command::new("mpirun");
        c.args(["--oversubscribe", "--bind-to", "none", "-np", &n.to_string()]);
        // Open MPI refuses root unless told; CI runs as root.
        c.env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        c.arg(worker()).args(args);
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().expect("run mpirun (install Open MPI: apt-get install openmpi-bin libopenmpi-dev)")
    }

    /// The JSON line rank 0 printed; panics with both streams when the run failed.
    fn result(n: usize, args: &[&str]) -> serde_json::Value {
        let out = mpirun(n, args, &[]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "mpirun -np {n} ddp_check {args:?} failed: {}\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let line = stdout.lines().rev().find(|l| l.starts_with('{')).unwrap_or_else(|| panic!("no JSON in {stdout}"));
        serde_json::from_str(line).expect("JSON")
    }

    fn floats(v: &serde_json::Value, key: &str) -> Vec<f64> {
        v[key].as_array().unwrap_or_else(|| panic!("no {key}")).iter().map(|x| x.as_f64().expect("number")).collect()
    }

    /// `ranks` processes on `d` (the CPU, the GPU adapter, `cuda:0` staged through the host) reach
    /// one process's losses and weights within 1e-5.
    fn matches_one_process(d: Device, extra: &[&str]) {
        let dev = d.to_string();
        let mut args = vec!["--device", dev.as_str()];
        args.extend_from_slice(extra);
        let one = result(1, &args);
        for ranks in [2, 3] {
            let many = result(ranks, &args);
            assert_eq!(many["world_size"], ranks);
            assert_eq!(many["replicas_equal"], true, "{ranks} ranks on {dev} {extra:?}: replicas differ");
            for key in ["losses", "weights"] {
                let (a, b) = (floats(&one, key), floats(&many, key));
                assert_eq!(a.len(), b.len());
                let worst = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
                assert!(worst <= 1e-5, "{ranks} ranks on {dev} {extra:?}: {key} differ from one process by {worst}");
            }
        }
    }

    fn collectives_give_every_rank_the_right_values(d: Device) {
        let dev = d.to_string();
        for ranks in [1, 2, 3] {
            let v = result(ranks, &["--collectives", "--device", &dev]);
            assert_eq!(v["collectives"], "ok");
            assert_eq!(v["world_size"], ranks);
        }
    }

    fn sgd_with_momentum_matches_one_process(d: Device) {
        matches_one_process(d, &["--optim", "sgd"]);
    }

    fn adamw_matches_one_process(d: Device) {
        matches_one_process(d, &["--optim", "adamw"]);
    }

    fn no_sync_accumulation_matches_one_process(d: Device) {
        matches_one_process(d, &["--optim", "sgd", "--accumulate", "2"]);
    }

    fn many_buckets_give_the_gradients_of_one(d: Device) {
        let dev = d.to_string();
        let one = result(2, &["--device", &dev, "--bucket-mb", "1000"]);
        let many = result(2, &["--device", &dev, "--bucket-mb", "0.0002"]);
        assert_eq!(one["buckets"], 1);
        assert!(many["buckets"].as_u64().expect("buckets") >= 4, "{many}");
        let (a, b) = (floats(&one, "weights"), floats(&many, "weights"));
        let worst = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        assert!(worst <= 1e-6, "on {dev}: bucketed weights differ from one all-reduce by {worst}");
    }

    fn an_unused_parameter_is_pytorchs_error_unless_find_unused() {
        let out = mpirun(2, &["--branchy"], &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "a step that skips the side branch must fail without find_unused");
        assert!(err.contains("expected to have finished reduction in the prior iteration"), "{err}");
        assert!(err.contains("side.weight"), "the error names the unused parameter: {err}");
        let v = result(2, &["--branchy", "--find-unused"]);
        assert_eq!(v["replicas_equal"], true);
    }

    fn a_rank_that_dies_ends_the_job_with_an_error() {
        let t = Instant::now();
        let out = mpirun(2, &["--die-rank", "1"], &[]);
        assert!(!out.status.success());
        assert!(t.elapsed() < Duration::from_secs(60), "the job took {:?} to end", t.elapsed());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("signal") || err.contains("abort"), "mpirun reports the dead rank: {err}");
    }

    fn a_rank_that_stalls_times_the_others_out() {
        let t = Instant::now();
        let out = mpirun(2, &["--stall-rank", "1"], &[("WEBTENSOR_DIST_TIMEOUT", "3")]);
        assert!(!out.status.success());
        assert!(t.elapsed() < Duration::from_secs(60), "the job took {:?} to end", t.elapsed());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("did not complete within 3 s"), "{err}");
    }

    /// Two ranks on the one GPU through NCCL reach the weights of one process (NCCL 2.30 and later
    /// allow several ranks per GPU with `NCCL_MULTI_RANK_GPU_ENABLE=1`; older ones refuse, and this
    /// fails with NCCL's "Duplicate GPU detected").
    #[cfg(feature = "nccl")]
    fn nccl_across_two_processes_matches_one(_: Device) {
        let env = [("NCCL_MULTI_RANK_GPU_ENABLE", "1")];
        let run = |n: usize, backend: &str| {
            let out = mpirun(n, &["--backend", backend, "--device", "cuda:0", "--optim", "adamw"], &env);
            let stdout = String::from_utf8_lossy(&out.stdout).to_string();
            assert!(
                out.status.success(),
                "{n} ranks over {backend}: {stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let line = stdout.lines().rev().find(|l| l.starts_with('{')).expect("JSON").to_string();
            serde_json::from_str::<serde_json::Value>(&line).expect("JSON")
        };
        let one = run(1, "mpi");
        let two = run(2, "nccl");
        assert_eq!(two["replicas_equal"], true);
        let (a, b) = (floats(&one, "weights"), floats(&two, "weights"));
        let worst = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        assert!(worst <= 1e-5, "NCCL's two ranks differ from one process by {worst}");
    }

    /// A rank that stops taking part ends a NCCL job through the other's watchdog: its
    /// collective, enqueued on the stream with nothing waiting on the host, is still pending
    /// after the timeout (same NCCL condition as above).
    #[cfg(feature = "nccl")]
    fn nccl_watchdog_ends_a_job_whose_rank_stalls(_: Device) {
        let t = Instant::now();
        let env = [("NCCL_MULTI_RANK_GPU_ENABLE", "1"), ("WEBTENSOR_DIST_TIMEOUT", "3")];
        let out = mpirun(2, &["--backend", "nccl", "--device", "cuda:0", "--stall-rank", "1"], &env);
        assert!(!out.status.success());
        assert!(t.elapsed() < Duration::from_secs(60), "the job took {:?} to end", t.elapsed());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("(nccl)") && err.contains("has not completed after 3 s"), "{err}");
    }

    /// The trials, in the order written.
    pub(super) fn main() -> ! {
        use common::trials::{device_trials, plain_trial, run};
        let mut t =
            device_trials("collectives_give_every_rank_the_right_values", collectives_give_every_rank_the_right_values);
        t.extend(device_trials("sgd_with_momentum_matches_one_process", sgd_with_momentum_matches_one_process));
        t.extend(device_trials("adamw_matches_one_process", adamw_matches_one_process));
        t.extend(device_trials("no_sync_accumulation_matches_one_process", no_sync_accumulation_matches_one_process));
        t.extend(device_trials("many_buckets_give_the_gradients_of_one", many_buckets_give_the_gradients_of_one));
        t.push(plain_trial(
            "an_unused_parameter_is_pytorchs_error_unless_find_unused",
            an_unused_parameter_is_pytorchs_error_unless_find_unused,
        ));
        t.push(plain_trial("a_rank_that_dies_ends_the_job_with_an_error", a_rank_that_dies_ends_the_job_with_an_error));
        t.push(plain_trial("a_rank_that_stalls_times_the_others_out", a_rank_that_stalls_times_the_others_out));
        #[cfg(feature = "nccl")]
        t.push(common::trials::cuda_trial(
            "nccl_across_two_processes_matches_one",
            nccl_across_two_processes_matches_one,
        ));
        #[cfg(feature = "nccl")]
        t.push(common::trials::cuda_trial(
            "nccl_watchdog_ends_a_job_whose_rank_stalls",
            nccl_watchdog_ends_a_job_whose_rank_stalls,
        ));
        run(t)
    }
}

/// One trial per case and device (libtest-mimic, `harness = false`): an absent GPU's and
/// `cuda:0`'s are reported ignored, and a build without the `mpi` feature reports the suite
/// ignored.
fn main() {
    #[cfg(feature = "mpi")]
    mpi::main();
    #[cfg(not(feature = "mpi"))]
    common::trials::absent_feature("distributed_mpi", "mpi");
}
