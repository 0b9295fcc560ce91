//! Constructors: from host data, zeros/ones/full, arange, seeded rand/randn, `*_like` and
//! `new_*`; `ranges.rs` has eye, linspace and logspace, `sample.rs` randint and randperm. Every
//! constructor takes `device: impl Into<Option<Device>>`: `None` means the default device (the
//! CPU unless `set_default_device` changed it), as in PyTorch.

mod ranges;
mod sample;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::device::{default_device, placement, Device};
use crate::dtype::{CpuData, DType, Element};
use crate::error::{Error, Result};
use crate::shape::checked_numel;
use crate::storage::Storage;
use crate::tensor::Tensor;

pub(crate) fn place(device: impl Into<Option<Device>>) -> Device {
    device.into().unwrap_or_else(default_device)
}

impl Tensor {
    pub(crate) fn from_cpu_data(data: CpuData, shape: &[usize], device: Device, op: &'static str) -> Result<Tensor> {
        let expected = checked_numel(op, shape)?;
        if data.len() != expected {
            return Err(Error::DataLength { op, got: data.len(), expected, shape: shape.to_vec() });
        }
        let dtype = data.dtype();
        let device = placement::resolve(op, device)?;
        let bytes = (data.len() * dtype.size_in_bytes()) as u64;
        let storage = Storage::from_cpu(data, device).map_err(|e| e.in_op(op))?;
        crate::device::transfer::record(device, crate::device::transfer::Direction::HostToDevice, bytes);
        placement::record(op, &[], device);
        Ok(Tensor::from_parts(storage, shape, dtype, device))
    }

    /// A tensor holding a copy of `data` with `shape` (their lengths must agree).
    pub fn from_slice<T: Element>(data: &[T], shape: &[usize], device: impl Into<Option<Device>>) -> Result<Tensor> {
        Tensor::from_vec(data.to_vec(), shape, device)
    }

    /// A tensor taking `data` with `shape` (their lengths must agree).
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize], device: impl Into<Option<Device>>) -> Result<Tensor> {
        Tensor::from_cpu_data(T::into_data(data).0, shape, place(device), "from_vec")
    }

    /// An i32 tensor from int64 data, as PyTorch and ONNX index with (webtensor stores integers
    /// in 32 bits, which every GPU backend has): each value is range-checked, and the first one
    /// outside i32 is an error naming its position, never wrapped.
    pub fn from_i64(data: &[i64], shape: &[usize], device: impl Into<Option<Device>>) -> Result<Tensor> {
        Tensor::from_vec(narrowed("from_i64", data, "int32", |x| i32::try_from(x).ok())?, shape, device)
    }

    /// A u32 tensor from unsigned 64-bit data, range-checked like [`Tensor::from_i64`].
    pub fn from_u64(data: &[u64], shape: &[usize], device: impl Into<Option<Device>>) -> Result<Tensor> {
        Tensor::from_vec(narrowed("from_u64", data, "uint32", |x| u32::try_from(x).ok())?, shape, device)
    }

    /// A 0-d tensor holding `value`.
    pub fn scalar(value: f64, dtype: DType, device: impl Into<Option<Device>>) -> Result<Tensor> {
        Tensor::full(&[], value, dtype, device)
    }

    /// A tensor of `shape` filled with `value`.
    pub fn full(shape: &[usize], value: f64, dtype: DType, device: impl Into<Option<Device>>) -> Result<Tensor> {
        let device = placement::resolve("full", place(device))?;
        let t = Tensor::full_on(shape, value, dtype, device)?;
        placement::record("full", &[], device);
        Ok(t)
    }

    pub(crate) fn full_on(shape: &[usize], value: f64, dtype: DType, device: Device) -> Result<Tensor> {
        let storage =
            Storage::fill(checked_numel("full", shape)?, value, dtype, device).map_err(|e| e.in_op("full"))?;
        Ok(Tensor::from_parts(storage, shape, dtype, device))
    }

    /// A tensor of zeros.
    pub fn zeros(shape: &[usize], dtype: DType, device: impl Into<Option<Device>>) -> Result<Tensor> {
        Tensor::full(shape, 0.0, dtype, device)
    }

    /// A tensor of ones.
    pub fn ones(shape: &[usize], dtype: DType, device: impl Into<Option<Device>>) -> Result<Tensor> {
        Tensor::full(shape, 1.0, dtype, device)
    }

    /// `start, start + step, ...` up to (not including) `end`.
    pub fn arange(start: f64, end: f64, step: f64, dtype: DType, device: impl Into<Option<Device>>) -> Result<Tensor> {
        if step == 0.0 || !step.is_finite() || !start.is_finite() || !end.is_finite() {
            return Err(Error::invalid(
                "arange",
                format!("need finite start/end and a nonzero finite step, got start={start}, end={end}, step={step}"),
            ));
        }
        let n = ((end - start) / step).ceil().max(0.0);
        if n > u32::MAX as f64 {
            return Err(Error::invalid("arange", format!("{n} elements is too many")));
        }
        let n = n as usize;
        // Refuses what the host cannot allocate (wasm32 has 4 GiB) with an error, not an abort.
        crate::device::cpu::reserve(n, dtype)?;
        let data = CpuData::from_f64(dtype, (0..n).map(|i| start + i as f64 * step));
        Tensor::from_cpu_data(data, &[n], place(device), "arange")
    }

    /// Uniform samples in `[0, 1)` (f32), multiples of 2^-24. The same seed gives the same
    /// values on every device: sample `i` is a pure function of (seed, i) (a counter-based
    /// generator, see `op::fill`), computed on the device itself, so no data crosses from the
    /// host (dropout's masks take this path).
    pub fn rand(shape: &[usize], seed: Option<u64>, device: impl Into<Option<Device>>) -> Result<Tensor> {
        let n = checked_numel("rand", shape)?;
        let device = placement::resolve("rand", place(device))?;
        let seed = seed.unwrap_or_else(next_seed);
        let storage = Storage::rand(n, seed, device).map_err(|e| e.in_op("rand"))?;
        placement::record("rand", &[], device);
        Ok(Tensor::from_parts(storage, shape, DType::F32, device))
    }

    /// Standard normal samples (f32, Box-Muller over the counter-based generator `rand` uses),
    /// generated on the device: nothing travels from the host. A seed gives the same values on
    /// every device up to the device's rounding of `log`, `cos` and `sqrt` (a few ulps; see
    /// `op::fill::normal`).
    pub fn randn(shape: &[usize], seed: Option<u64>, device: impl Into<Option<Device>>) -> Result<Tensor> {
        let n = checked_numel("randn", shape)?;
        let device = placement::resolve("randn", place(device))?;
        let seed = seed.unwrap_or_else(next_seed);
        let storage = Storage::randn(n, seed, device).map_err(|e| e.in_op("randn"))?;
        placement::record("randn", &[], device);
        Ok(Tensor::from_parts(storage, shape, DType::F32, device))
    }

    /// Zeros with this tensor's shape, dtype and device.
    pub fn zeros_like(&self) -> Result<Tensor> {
        Tensor::full(self.shape(), 0.0, self.dtype(), self.device())
    }

    /// Ones with this tensor's shape, dtype and device.
    pub fn ones_like(&self) -> Result<Tensor> {
        Tensor::full(self.shape(), 1.0, self.dtype(), self.device())
    }

    /// `value` with this tensor's shape, dtype and device.
    pub fn full_like(&self, value: f64) -> Result<Tensor> {
        Tensor::full(self.shape(), value, self.dtype(), self.device())
    }

    /// Zeros of `shape` with this tensor's dtype and device (PyTorch's `new_zeros`).
    pub fn new_zeros(&self, shape: &[usize]) -> Result<Tensor> {
        Tensor::full(shape, 0.0, self.dtype(), self.device())
    }

    /// Ones of `shape` with this tensor's dtype and device.
    pub fn new_ones(&self, shape: &[usize]) -> Result<Tensor> {
        Tensor::full(shape, 1.0, self.dtype(), self.device())
    }

    /// `value` in `shape` with this tensor's dtype and device.
    pub fn new_full(&self, shape: &[usize], value: f64) -> Result<Tensor> {
        Tensor::full(shape, value, self.dtype(), self.device())
    }
}

/// SplitMix64: tiny, fast, and statistically fine for initialising tensors and shuffling.
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

static GLOBAL_SEED: AtomicU64 = AtomicU64::new(0);
static SEEDED: AtomicBool = AtomicBool::new(false);

/// Seeds the generator used by `rand`/`randn` calls without a seed (PyTorch's `manual_seed`).
pub fn manual_seed(seed: u64) {
    GLOBAL_SEED.store(seed, Ordering::Relaxed);
    SEEDED.store(true, Ordering::Relaxed);
}

fn entropy() -> u64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0x5eed, |d| d.as_nanos() as u64)
    }
    #[cfg(target_arch = "wasm32")]
    {
        (js_sys::Math::random() * u64::MAX as f64) as u64
    }
}

/// A fresh seed from the global generator (seeded by `manual_seed`, else from entropy).
pub(crate) fn next_seed() -> u64 {
    if SEEDED.compare_exchange(false, true, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
        GLOBAL_SEED.store(entropy(), Ordering::Relaxed);
    }
    let s = GLOBAL_SEED.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
    SplitMix64(s).next()
}

/// `data` converted element by element by `fits`, or an error naming the first value that does
/// not fit `target`.
fn narrowed<W: Copy + std::fmt::Display, N>(
    op: &'static str,
    data: &[W],
    target: &str,
    fits: impl Fn(W) -> Option<N>,
) -> Result<Vec<N>> {
    data.iter()
        .enumerate()
        .map(|(i, &x)| {
            fits(x).ok_or_else(|| {
                Error::invalid(
                    op,
                    format!("element {i} is {x}, outside {target}'s range; webtensor stores integers in 32 bits (index with values below 2^31)"),
                )
            })
        })
        .collect()
}
