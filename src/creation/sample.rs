//! Random integers: `randint` (uniform in `[low, high)`) and `randperm` (a uniform permutation),
//! drawn on the host from the seeded generator `rand` uses (a seed, or the global one that
//! `manual_seed` sets), so the same seed gives the same values on every device.

use super::{next_seed, place, SplitMix64};
use crate::device::Device;
use crate::dtype::{CpuData, DType};
use crate::error::{Error, Result};
use crate::shape::checked_numel;
use crate::tensor::Tensor;

impl SplitMix64 {
    /// A uniform integer in `0..n` (n >= 1) without modulo bias (Lemire's multiply-and-reject).
    fn below(&mut self, n: u64) -> u64 {
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = u128::from(self.next()) * u128::from(n);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }
}

impl Tensor {
    /// Integers uniform in `[low, high)` of `shape` (PyTorch's `randint`), as `dtype` (an
    /// integer dtype whose range holds both bounds; int32 where PyTorch gives int64).
    pub fn randint(
        low: i64,
        high: i64,
        shape: &[usize],
        seed: Option<u64>,
        dtype: DType,
        device: impl Into<Option<Device>>,
    ) -> Result<Tensor> {
        let op = "randint";
        if high <= low {
            return Err(Error::invalid(
                op,
                format!("high ({high}) must be greater than low ({low}): values are drawn from [low, high)"),
            ));
        }
        let (min, max) = match dtype {
            DType::I32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
            DType::U32 => (0, i64::from(u32::MAX)),
            DType::U8 => (0, 255),
            DType::I8 => (-128, 127),
            other => {
                return Err(Error::UnsupportedDType {
                    op,
                    dtype: other,
                    reason: "randint makes integers; use int32 (the default), uint32, uint8 or int8".into(),
                })
            }
        };
        if low < min || high - 1 > max {
            return Err(Error::invalid(
                op,
                format!("[{low}, {high}) does not fit {dtype}, whose values are {min}..={max}"),
            ));
        }
        let n = checked_numel(op, shape)?;
        crate::device::cpu::reserve(n, dtype)?;
        let mut rng = SplitMix64(seed.unwrap_or_else(next_seed));
        let span = (high - low) as u64;
        let data = CpuData::from_f64(dtype, (0..n).map(|_| (low + rng.below(span) as i64) as f64));
        Tensor::from_cpu_data(data, shape, place(device), op)
    }

    /// A uniform random permutation of `0..n` as int32 (PyTorch's `randperm`; int64 there).
    pub fn randperm(n: usize, seed: Option<u64>, device: impl Into<Option<Device>>) -> Result<Tensor> {
        let op = "randperm";
        if n > i32::MAX as usize {
            return Err(Error::invalid(op, format!("n = {n} does not fit int32 indices (at most {})", i32::MAX)));
        }
        crate::device::cpu::reserve(n, DType::I32)?;
        let mut rng = SplitMix64(seed.unwrap_or_else(next_seed));
        let mut p: Vec<i32> = (0..n as i32).collect();
        // Fisher-Yates from the end: every permutation equally likely.
        for i in (1..n).rev() {
            p.swap(i, rng.below(i as u64 + 1) as usize);
        }
        Tensor::from_cpu_data(CpuData::I32(p), &[n], place(device), op)
    }
}
