//! The GPU's own out-of-memory: wgpu reports it through the out-of-memory error scope around
//! buffer creation, and webtensor must turn it into `Error::OutOfMemory` (after emptying its cache
//! and retrying) with every other tensor and the device still usable.
//!
//! On lavapipe (CI) the refusal comes from wgpu's memory-budget check against the budget and
//! usage the driver reports through `VK_EXT_memory_budget`: lavapipe's budget is the machine's
//! RAM and its usage the RAM in use, so a threshold set about 1.5 GiB above the current usage
//! makes buffer creation fail after that much is filled. (Plain exhaustion cannot be provoked
//! on lavapipe: it takes host memory lazily, at the first write, and aborts the process when that
//! fails.) On a hardware adapter the case allocates until the driver itself refuses; there
//! `WEBTENSOR_REQUIRE_HARDWARE_GPU=1` makes a software adapter fail the case.
//!
//! Own binary: it fills the device, and the threshold must be set before any GPU use.

mod common;

use webtensor::{DType, Device, Error, Tensor};

/// MemTotal and MemAvailable from /proc/meminfo, in bytes.
fn meminfo() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
    };
    Some((field("MemTotal:")?, field("MemAvailable:")?))
}

/// Allocates and fills blocks of `block` bytes until an allocation fails (at most `cap` bytes);
/// returns the error and the blocks held.
fn fill_until_refused(dev: Device, block: u64, cap: u64) -> (Error, Vec<Tensor>) {
    let elems = (block / 4) as usize;
    let mut held = Vec::new();
    loop {
        assert!((held.len() as u64) * block < cap, "{} MiB allocated without an error", cap >> 20);
        match Tensor::zeros(&[elems], DType::F32, dev) {
            Ok(t) => {
                held.push(t);
                // The fill has run once this returns, so the memory is committed.
                webtensor::synchronize_blocking(dev).unwrap();
            }
            Err(e) => return (e, held),
        }
    }
}

#[test]
fn the_drivers_out_of_memory_is_an_error_and_loses_nothing() {
    let Some(dev) = common::gpu() else { return };
    let info = webtensor::devices().into_iter().find(|i| i.device == dev).expect("the device is listed");
    // Host memory that counts in lavapipe's machine-wide usage and is handed back after the
    // refusal: the room it leaves is where the checks' own small buffers (parameters, readback
    // staging) go, since freed GPU memory stays counted (lavapipe keeps it for reuse), and it
    // absorbs the noise of a machine-wide figure.
    let mut ballast: Vec<u8> = Vec::new();
    let (block, cap) = if info.software {
        assert!(
            std::env::var("WEBTENSOR_REQUIRE_HARDWARE_GPU").is_err(),
            "WEBTENSOR_REQUIRE_HARDWARE_GPU is set but {dev} is a software adapter ({})",
            info.name
        );
        let Some((total, available)) = meminfo().filter(|_| info.backend == "vulkan") else {
            eprintln!("note: {} has no memory budget to test against; skipped", info.name);
            return;
        };
        // The threshold must stay well inside the RAM: past it lavapipe aborts the process.
        assert!(available > 4 << 30, "only {} MiB of RAM available; the case needs 4 GiB", available >> 20);
        let used = total - available;
        let percent = ((used + (3 << 29)) * 100).div_ceil(total) as u8;
        webtensor::set_memory_budget_threshold(Some(percent)).unwrap();
        assert_eq!(webtensor::memory_budget_threshold(), Some(percent));
        eprintln!("{} MiB of {} MiB in use: threshold {percent}%", used >> 20, total >> 20);
        ballast = vec![1u8; 512 << 20];
        // The cap is well past the headroom (1.5 GiB + 1%).
        (256 << 20, (3 << 29) + total / 100 + (2 << 30))
    } else {
        let max = info.limits.iter().find(|l| l.0 == "max_buffer_size").map_or(1 << 30, |l| l.1).min(1 << 30);
        // Past any real GPU's memory the driver must have refused.
        (max, 256 << 30)
    };
    let keep = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3], dev).unwrap();
    let (err, mut held) = fill_until_refused(dev, block, cap);
    match &err {
        Error::OutOfMemory { cause, .. } => assert!(cause.contains("the device refused"), "{err}"),
        other => panic!("expected OutOfMemory from the driver, got {other:?}"),
    }
    assert!(!held.is_empty(), "the first block was already refused: {err}");
    eprintln!("refused after {} blocks of {} MiB: {err}", held.len(), block >> 20);
    // Every op needs a little memory (its parameters, a readback buffer): return the ballast
    // and some blocks to the cache first. What stays held is intact, and the device works again:
    // a new tensor of the same size reuses a cached block.
    held.truncate(held.len().saturating_sub(4).max(1));
    assert!(ballast.iter().step_by(4096).all(|&b| b == 1));
    drop(ballast);
    // The kernel's memory counters, which lavapipe's usage comes from, lag by about a second.
    std::thread::sleep(std::time::Duration::from_secs(2));
    webtensor::synchronize_blocking(dev).unwrap();
    assert_eq!(common::f32s(&held[0].sum_all().unwrap()), vec![0.0]);
    assert_eq!(common::f32s(&keep.mul(&keep).unwrap()), vec![1.0, 4.0, 9.0]);
    let again = Tensor::ones(&[(block / 4) as usize], DType::F32, dev).unwrap();
    assert_eq!(common::f32s(&again.sum_all().unwrap()), vec![(block / 4) as f32]);
    let late = webtensor::set_memory_budget_threshold(None).unwrap_err();
    assert!(late.to_string().contains("already in use"), "{late}");
}

#[test]
fn the_budget_threshold_is_checked() {
    let err = webtensor::set_memory_budget_threshold(Some(0)).unwrap_err();
    assert!(err.to_string().contains("give 1..=100"), "{err}");
    let err = webtensor::set_memory_budget_threshold(Some(101)).unwrap_err();
    assert!(err.to_string().contains("give 1..=100"), "{err}");
}
