//! Evenly spaced values and the identity: `eye`, `linspace`, `logspace`, with PyTorch's
//! arithmetic (linspace fills its first half up from `start` and its second half down from
//! `end`, in the output's precision, so both ends are exact).

use super::place;
use crate::device::Device;
use crate::dtype::{CpuData, DType};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The most elements a range constructor makes (what an i32 index can name).
const MAX_STEPS: usize = i32::MAX as usize;

/// What linspace and logspace refuse: too many steps, non-finite numbers, booleans.
fn check_range(op: &'static str, steps: usize, numbers: &[(&str, f64)], dtype: DType) -> Result<()> {
    if steps > MAX_STEPS {
        return Err(Error::invalid(op, format!("steps = {steps} is more than {MAX_STEPS} elements; ask for fewer")));
    }
    if let Some((name, v)) = numbers.iter().find(|(_, v)| !v.is_finite()) {
        return Err(Error::invalid(op, format!("{name} must be finite, got {v}")));
    }
    if dtype == DType::Bool {
        return Err(Error::UnsupportedDType { op, dtype, reason: "a range of booleans; use a numeric dtype".into() });
    }
    Ok(())
}

/// PyTorch's linspace values as f64, computed in `f32` arithmetic for `F32`/`F16` outputs and in
/// f64 for integer ones, with fused multiply-adds, as PyTorch's CPU kernel does.
fn spaced(start: f64, end: f64, steps: usize, dtype: DType) -> Vec<f64> {
    if steps == 1 {
        // PyTorch's one step is the start.
        return vec![if dtype.is_float() { start as f32 as f64 } else { start.trunc() }];
    }
    let half = steps / 2;
    let last = steps.saturating_sub(1);
    if dtype.is_float() {
        let (s, e) = (start as f32, end as f32);
        let step = if steps > 1 { (e - s) / last as f32 } else { 0.0 };
        // PyTorch's vectorised kernel fuses the multiply and the add (one rounding).
        (0..steps)
            .map(|i| if i < half { step.mul_add(i as f32, s) } else { (-step).mul_add((last - i) as f32, e) } as f64)
            .collect()
    } else {
        // PyTorch casts the ends to the integer dtype first, then steps in f64.
        let (start, end) = (start.trunc(), end.trunc());
        let step = if steps > 1 { (end - start) / last as f64 } else { 0.0 };
        (0..steps)
            .map(|i| if i < half { step.mul_add(i as f64, start) } else { (-step).mul_add((last - i) as f64, end) })
            .collect()
    }
}

impl Tensor {
    /// The `n` x `m` identity (`m` defaults to `n`): ones on the diagonal (PyTorch's `eye`).
    pub fn eye(n: usize, m: Option<usize>, dtype: DType, device: impl Into<Option<Device>>) -> Result<Tensor> {
        let m = m.unwrap_or(n);
        let numel = n
            .checked_mul(m)
            .filter(|&k| k <= MAX_STEPS)
            .ok_or_else(|| Error::invalid("eye", format!("a {n} x {m} identity is more than {MAX_STEPS} elements")))?;
        crate::device::cpu::reserve(numel, dtype)?;
        let data = CpuData::from_f64(dtype, (0..numel).map(|k| if k / m.max(1) == k % m.max(1) { 1.0 } else { 0.0 }));
        Tensor::from_cpu_data(data, &[n, m], place(device), "eye")
    }

    /// `steps` values from `start` to `end`, both included, evenly spaced (PyTorch's
    /// `linspace`); integer dtypes truncate toward zero (the cast's rule), as PyTorch's.
    pub fn linspace(
        start: f64,
        end: f64,
        steps: usize,
        dtype: DType,
        device: impl Into<Option<Device>>,
    ) -> Result<Tensor> {
        let op = "linspace";
        check_range(op, steps, &[("start", start), ("end", end)], dtype)?;
        crate::device::cpu::reserve(steps, dtype)?;
        let data = CpuData::from_f64(dtype, spaced(start, end, steps, dtype).into_iter());
        Tensor::from_cpu_data(data, &[steps], place(device), op)
    }

    /// `base` to the powers `linspace(start, end, steps)` (PyTorch's `logspace`).
    pub fn logspace(
        start: f64,
        end: f64,
        steps: usize,
        base: f64,
        dtype: DType,
        device: impl Into<Option<Device>>,
    ) -> Result<Tensor> {
        let op = "logspace";
        check_range(op, steps, &[("start", start), ("end", end), ("base", base)], dtype)?;
        crate::device::cpu::reserve(steps, dtype)?;
        let powers = spaced(start, end, steps, dtype).into_iter().map(|p| base.powf(p));
        let data = CpuData::from_f64(dtype, powers);
        Tensor::from_cpu_data(data, &[steps], place(device), op)
    }
}
