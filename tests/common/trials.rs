//! The suites run by libtest-mimic (`harness = false` in Cargo.toml) instead of libtest: a
//! device whose hardware is absent is reported as *ignored* when the binary starts, never as
//! `ok` (libtest cannot skip at run time), and a fixture file gives one test per case and
//! device, so a failure names its case and the other cases still run. Names follow
//! `case::cpu`, `case::webgpu`, `case::cuda` (built with the `cuda` feature), `case::meta`,
//! which scripts/test.sh counts per device. `WEBTENSOR_REQUIRE_GPU=1` and `WEBTENSOR_REQUIRE_CUDA=1`
//! still turn an absent device into a failure (of the whole binary, at start).
use libtest_mimic::{Arguments, Failed, Trial};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;
use webtensor::Device;

/// The GPU under test and `cuda:0`, looked up once (the lookups panic where a required device is
/// missing).
fn accelerators() -> &'static (Option<Device>, Option<Device>) {
    static ONCE: OnceLock<(Option<Device>, Option<Device>)> = OnceLock::new();
    ONCE.get_or_init(|| {
        let cuda = if cfg!(feature = "cuda") {
            super::cuda()
        } else {
            assert!(
                !super::cuda_required(),
                "WEBTENSOR_REQUIRE_CUDA=1, but the suite was built without the cuda feature"
            );
            None
        };
        (super::gpu(), cuda)
    })
}

/// `f` as a trial body: a panic (a failed assert) is the trial's failure, with its message.
fn body(f: impl FnOnce() + Send + 'static) -> Result<(), Failed> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|e| {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panicked".into());
        Failed::from(msg)
    })
}

/// One trial per device for `f`: `name::cpu`, `name::webgpu` and, built with `cuda`,
/// `name::cuda`; an absent accelerator's trial is ignored.
pub fn device_trials<F>(name: &str, f: F) -> Vec<Trial>
where
    F: Fn(Device) + Send + Sync + Clone + 'static,
{
    let (gpu, cuda) = *accelerators();
    let on = |suffix: &str, device: Option<Device>| {
        let f = f.clone();
        let trial = Trial::test(format!("{name}::{suffix}"), move || match device {
            Some(d) => body(move || f(d)),
            None => Ok(()),
        });
        trial.with_ignored_flag(device.is_none())
    };
    let mut trials = vec![on("cpu", Some(Device::CPU)), on("webgpu", gpu)];
    if cfg!(feature = "cuda") {
        trials.push(on("cuda", cuda));
    }
    trials
}

/// Trials `name::cpu`, `name::webgpu` and (built with `cuda`) `name::cuda` running `cpu`,
/// `webgpu` and `cuda`, functions that pick their device themselves (the property tests, which
/// a macro writes once per device); an absent accelerator's trial is ignored.
#[allow(dead_code)] // not every suite has them
pub fn per_device_trials(name: &str, cpu: fn(), webgpu: fn(), cuda: Option<fn()>) -> Vec<Trial> {
    let (gpu, cuda_device) = *accelerators();
    let on = |suffix: &str, f: fn(), present: bool| {
        Trial::test(format!("{name}::{suffix}"), move || if present { body(f) } else { Ok(()) })
            .with_ignored_flag(!present)
    };
    let mut trials = vec![on("cpu", cpu, true), on("webgpu", webgpu, gpu.is_some())];
    if let Some(f) = cuda {
        trials.push(on("cuda", f, cuda_device.is_some()));
    }
    trials
}

/// The trial `name::meta`.
pub fn meta_trial(name: &str, f: fn(Device)) -> Trial {
    Trial::test(format!("{name}::meta"), move || body(move || f(Device::META)))
}

/// One trial per case of `tests/fixtures/<file>` and device, each running `run(case, device)`;
/// and one that the file holds exactly `count` cases (a regenerated fixture that lost or gained
/// cases must say so here).
pub fn fixture_trials(file: &str, count: usize, run: fn(&serde_json::Value, Device)) -> Vec<Trial> {
    let json = super::fixture_json(file);
    let cases = json["cases"].as_array().cloned().unwrap_or_default();
    let found = cases.len();
    let what = file.to_string();
    let mut trials = vec![Trial::test(format!("{file} holds {count} cases"), move || {
        if found == count {
            Ok(())
        } else {
            Err(format!("{what} holds {found} cases, the suite expects {count}").into())
        }
    })];
    for (i, case) in cases.into_iter().enumerate() {
        // Cases without a name go by their op (or function) and position.
        let what = case["name"].as_str().or(case["op"].as_str()).or(case["fn"].as_str()).unwrap_or("case");
        let name = if case["name"].is_string() { what.to_string() } else { format!("{what} {i}") };
        let case = std::sync::Arc::new(case);
        trials.extend(device_trials(&format!("{file}/{name}"), move |d| run(&case, d)));
    }
    trials
}

/// Runs `trials` with the command line's filters and options, as libtest would, and exits.
pub fn run(trials: Vec<Trial>) -> ! {
    libtest_mimic::run(&Arguments::from_args(), trials).exit()
}

/// The trial `name::webgpu` for a test of the GPU under test alone, ignored where there is none.
pub fn gpu_trial(name: &str, f: fn(Device)) -> Trial {
    let gpu = accelerators().0;
    Trial::test(format!("{name}::webgpu"), move || match gpu {
        Some(d) => body(move || f(d)),
        None => Ok(()),
    })
    .with_ignored_flag(gpu.is_none())
}

/// The trial `name::cuda` for a test of `cuda:0` alone, ignored where there is none (or the
/// suite was built without the `cuda` feature).
pub fn cuda_trial(name: &str, f: fn(Device)) -> Trial {
    let cuda = accelerators().1;
    Trial::test(format!("{name}::cuda"), move || match cuda {
        Some(d) => body(move || f(d)),
        None => Ok(()),
    })
    .with_ignored_flag(cuda.is_none())
}

/// The trial `name` for a test that takes no device.
pub fn plain_trial(name: &str, f: fn()) -> Trial {
    Trial::test(name.to_string(), move || body(f))
}

/// The trial `name::cpu` for a test of the CPU alone.
#[allow(dead_code)] // not every suite has one
pub fn cpu_trial(name: &str, f: fn(Device)) -> Trial {
    Trial::test(format!("{name}::cpu"), move || body(move || f(Device::CPU)))
}

/// The trial `name::webgpu-no-f16` on an adapter without `shader-f16` (such as Mesa's GL
/// llvmpipe), ignored where the machine has none.
#[allow(dead_code)] // not every suite has one
pub fn no_f16_trial(name: &str, f: fn(Device)) -> Trial {
    static ONCE: OnceLock<Option<Device>> = OnceLock::new();
    let d = *ONCE.get_or_init(super::no_f16_adapter);
    Trial::test(format!("{name}::webgpu-no-f16"), move || match d {
        Some(d) => body(move || f(d)),
        None => Ok(()),
    })
    .with_ignored_flag(d.is_none())
}

/// The `main` of a suite built without the cargo feature it tests: one trial, reported
/// ignored, that says so (rather than a binary that passes with nothing run).
#[allow(dead_code)] // not every suite needs a feature
pub fn absent_feature(suite: &str, feature: &str) -> ! {
    let name = format!("{suite} (built without the `{feature}` feature)");
    run(vec![Trial::test(name, || Ok(())).with_ignored_flag(true)])
}

/// Runs `trials` one at a time in the order given, with the command line's filters: suites
/// whose tests read a device's counters or set global modes, which tests running beside them
/// would disturb.
#[allow(dead_code)] // not every suite runs in order
pub fn run_in_order(trials: Vec<Trial>) -> ! {
    let mut args = Arguments::from_args();
    args.test_threads = Some(1);
    libtest_mimic::run(&args, trials).exit()
}

/// The `main` of a libtest-mimic suite: `device_main!(a, b; meta: c; gpu: g; cuda: k; plain: d;
/// fixtures: expr)` runs `a` and `b` on every device, `c` on `meta` (as well, when also listed
/// first), `g` on the GPU under test alone and `k` on `cuda:0` alone (each ignored without its
/// device), `d` once with no device, and adds the trials the expressions give. Every section is
/// optional.
#[allow(unused_macros)] // vs_cpu includes common but has its own tests
macro_rules! device_main {
    (
        $($case:ident),* $(,)?
        $(; meta: $($meta:ident),+ $(,)?)?
        $(; gpu: $($gpu:ident),+ $(,)?)?
        $(; cuda: $($cuda:ident),+ $(,)?)?
        $(; plain: $($plain:ident),+ $(,)?)?
        $(; fixtures: $($fx:expr),+ $(,)?)?
    ) => {
        // The sections are optional, so a suite may make its list by pushes alone.
        #[allow(clippy::vec_init_then_push)]
        fn main() {
            let mut trials = Vec::new();
            $( trials.extend(crate::common::trials::device_trials(stringify!($case), $case)); )*
            $($( trials.push(crate::common::trials::meta_trial(stringify!($meta), $meta)); )+)?
            $($( trials.push(crate::common::trials::gpu_trial(stringify!($gpu), $gpu)); )+)?
            $($( trials.push(crate::common::trials::cuda_trial(stringify!($cuda), $cuda)); )+)?
            $($( trials.push(crate::common::trials::plain_trial(stringify!($plain), $plain)); )+)?
            $($( trials.extend($fx); )+)?
            crate::common::trials::run(trials)
        }
    };
}
#[allow(unused_imports)]
pub(crate) use device_main;
