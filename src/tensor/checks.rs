//! Index checks for indexed ops on devices that run asynchronously (PyTorch's device-side
//! assert). The CPU checks an index as it reads it and fails the op; a GPU kernel cannot fail
//! mid-dispatch, so an indexed op on a GPU queues a small reduction of its index (the least
//! and the greatest value) beside its kernel, and the next readback or `synchronize` of that
//! device reads every queued pair in one transfer per index dtype and turns the first
//! out-of-range one into an error naming the op, the index and the bound. Nothing waits at
//! the op itself, except in launch-blocking mode (natively), which checks at once.
//!
//! The error is reported once and the device stays usable: the op's output holds zeros where
//! the index was out of range (the kernels read nothing outside the source). Checks are kept per
//! thread: the thread that queued an op is the one its readback or `synchronize` reports to (a
//! browser has one; natively, threads sharing a device do not see each other's errors).

use std::cell::RefCell;

use crate::autograd::no_grad;
use crate::device::{Device, DeviceKind};
use crate::dtype::{CpuData, DType};
use crate::error::{Error, Result};
use crate::op::fused::index_range::IndexRangeArgs;
use crate::op::fused::Fused;
use crate::storage::Storage;
use crate::tensor::Tensor;

/// One indexed op's bound: its index must lie in `0..size` along `dim`.
#[derive(Debug, Clone, Copy)]
struct Bound {
    op: &'static str,
    dim: usize,
    size: usize,
}

/// Queued checks of one device and index dtype: `[min, max]` per bound, flat.
struct Queued {
    device: Device,
    pairs: Tensor,
    bounds: Vec<Bound>,
}

thread_local! {
    /// This thread's queued checks on every device, in the order the ops ran.
    static QUEUED: RefCell<Vec<Queued>> = const { RefCell::new(Vec::new()) };
}

/// Queued checks of one device and dtype are folded into one tensor past this many, so a loop
/// that never reads back holds a handful of small tensors, not one per op.
const FOLD_AT: usize = 32;

/// Checks that every value of `index` (i32 or u32) lies in `0..size`: at once on the CPU,
/// queued on devices that run asynchronously (see the module docs). `op` and `dim` name the
/// op and dimension in the error.
pub(crate) fn check_index(op: &'static str, index: &Tensor, dim: usize, size: usize) -> Result<()> {
    check_index_skipping(op, index, dim, size, None)
}

/// [`check_index`] of the values of `index` other than `ignore` (cross-entropy's
/// `ignore_index`).
pub(crate) fn check_index_skipping(
    op: &'static str,
    index: &Tensor,
    dim: usize,
    size: usize,
    ignore: Option<i32>,
) -> Result<()> {
    if index.numel() == 0 || index.device().kind() == DeviceKind::Meta {
        return Ok(());
    }
    let _off = no_grad();
    let pairs = range(op, index, ignore)?;
    let bound = Bound { op, dim, size };
    let device = index.device();
    if device.kind() == DeviceKind::Cpu {
        let Storage::Cpu(s) = &**pairs.storage() else {
            return Err(Error::invalid(op, "internal: a cpu tensor without cpu storage"));
        };
        return judge(s.data(), &[bound], device);
    }
    queue(device, pairs, bound)?;
    #[cfg(not(target_arch = "wasm32"))]
    if crate::device::policy::launch_blocking() {
        return crate::block::block_on(verify(device));
    }
    Ok(())
}

/// `[min, max]` of the values of `index` other than `ignore` (`[0, 0]` if none), one fused
/// call (`op::fused::index_range`) where the composed form was a minimum, a maximum and a
/// `cat`.
fn range(op: &'static str, index: &Tensor, ignore: Option<i32>) -> Result<Tensor> {
    let index = index.contiguous()?;
    let dtype = index.dtype();
    if !matches!(dtype, DType::I32 | DType::U32) {
        return Err(Error::invalid(op, format!("internal: an index of {dtype} reached the range check")));
    }
    let args = IndexRangeArgs { n: index.numel(), src_offset: index.layout().offset(), ignore, dtype };
    let storage = Storage::fused(Fused::IndexRange(args), &[index.storage()]).map_err(|e| e.in_op(op))?;
    Ok(Tensor::from_parts(storage, &[2], dtype, index.device()))
}

/// Adds a check to the device's queue, folding the queue of its dtype when it grows long.
fn queue(device: Device, pairs: Tensor, bound: Bound) -> Result<()> {
    QUEUED.with_borrow_mut(|q| fold_into(q, device, pairs, bound))
}

fn fold_into(q: &mut Vec<Queued>, device: Device, pairs: Tensor, bound: Bound) -> Result<()> {
    let dtype = pairs.dtype();
    let same = |e: &Queued| e.device == device && e.pairs.dtype() == dtype;
    if q.iter().filter(|e| same(e)).count() < FOLD_AT {
        q.push(Queued { device, pairs, bounds: vec![bound] });
        return Ok(());
    }
    let (mut mine, rest): (Vec<Queued>, Vec<Queued>) = q.drain(..).partition(same);
    *q = rest;
    mine.push(Queued { device, pairs, bounds: vec![bound] });
    // The ops below queue nothing (cat is not an indexed op), so the borrow is not re-entered.
    let parts: Vec<Tensor> = mine.iter().map(|e| e.pairs.clone()).collect();
    let bounds = mine.iter().flat_map(|e| e.bounds.iter().copied()).collect();
    match Tensor::cat(&parts, 0) {
        Ok(pairs) => q.push(Queued { device, pairs, bounds }),
        // Out of memory for the fold: keep the checks as they were rather than lose them.
        Err(e) => {
            q.extend(mine);
            return Err(e);
        }
    }
    Ok(())
}

/// Reads every check queued on `device` and fails with the first index out of range. Called
/// by readbacks and `synchronize` before they read; the checks are consumed either way.
pub(crate) async fn verify(device: Device) -> Result<()> {
    if matches!(device.kind(), DeviceKind::Cpu | DeviceKind::Meta) {
        return Ok(());
    }
    let mine: Vec<Queued> = QUEUED.with_borrow_mut(|q| {
        let (mine, rest) = q.drain(..).partition(|e| e.device == device);
        *q = rest;
        mine
    });
    if mine.is_empty() {
        return Ok(());
    }
    // One readback per index dtype (usually one in all).
    for dtype in [DType::I32, DType::U32] {
        let (parts, bounds): (Vec<Tensor>, Vec<Vec<Bound>>) =
            mine.iter().filter(|e| e.pairs.dtype() == dtype).map(|e| (e.pairs.clone(), e.bounds.clone())).unzip();
        if parts.is_empty() {
            continue;
        }
        let all = if parts.len() == 1 { parts[0].clone() } else { Tensor::cat(&parts, 0)? };
        let data = all.storage().read(all.layout(), "synchronize").await?;
        judge(&data, &bounds.concat(), device)?;
    }
    Ok(())
}

/// The first bound whose `[min, max]` pair in `data` leaves `0..size`, as an error.
fn judge(data: &CpuData, bounds: &[Bound], device: Device) -> Result<()> {
    let values: Vec<i64> = match data {
        CpuData::I32(v) => v.iter().map(|&x| i64::from(x)).collect(),
        CpuData::U32(v) => v.iter().map(|&x| i64::from(x)).collect(),
        _ => return Err(Error::invalid("synchronize", "internal: an index check read back in another dtype")),
    };
    for (b, pair) in bounds.iter().zip(values.chunks_exact(2)) {
        let (lo, hi) = (pair[0], pair[1]);
        let bad = if hi >= b.size as i64 { hi } else { lo };
        if lo < 0 || hi >= b.size as i64 {
            let (op, dim, size) = (b.op, b.dim, b.size);
            return Err(if device.kind() == DeviceKind::Cpu {
                Error::IndexOutOfRange { op, index: bad, dim, size }
            } else {
                Error::DeviceIndexOutOfRange { op, index: bad, dim, size, device }
            });
        }
    }
    Ok(())
}

/// Waits until every op queued on `device` has finished, reports any GPU error raised since the
/// last check, and any index out of range found by an indexed op since then (PyTorch's
/// `torch.cuda.synchronize`, with its device-side asserts). Timings of GPU work must end with
/// this: ops only record commands. A no-op for cpu and meta.
pub async fn synchronize(device: Device) -> Result<()> {
    let flushed = crate::storage::lazy::flush();
    let checked = verify(device).await.and(flushed);
    crate::device::synchronize(device).await?;
    checked
}

/// Blocking [`synchronize`] (native only: a browser cannot block).
#[cfg(not(target_arch = "wasm32"))]
pub fn synchronize_blocking(device: Device) -> Result<()> {
    crate::block::block_on(synchronize(device))
}
