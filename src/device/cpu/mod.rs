//! The CPU backend: the reference semantics for every other backend, and the fallback inside
//! WebAssembly. Elementwise kernels walk strided layouts directly (views never copy first);
//! f32 matmul goes through gemm.rs (the `gemm` crate natively, wasm_gemm.rs in wasm).

use std::sync::Arc;

use half::f16;

use crate::device::backend::Operand;
use crate::device::memory::MemoryStats;
use crate::device::pinned::PinnedHost;
use crate::device::{Device, DeviceInfo};
use crate::dtype::{CpuData, DType};
use crate::error::{Error, Result};
use crate::layout::{Layout, StridedOffsets};
use crate::op::binary::BinaryOp;
use crate::op::fill::Fill;
use crate::op::reduce::ReduceOp;
use crate::op::{IndexMode, MapOp, MatmulArgs};
use crate::shape::numel;
use broadcast::select_broadcast;
use elementwise::{binary_data, cast, copy, narrow_reached, unary, widen};
use width::{with_width, Bits};

/// `f` compiled for AVX2 where the CPU has it (`simd_x86::wide`: loops bound by arithmetic, such
/// as LayerNorm's rows and the random generator's rounds), else as compiled.
#[cfg(target_arch = "x86_64")]
use simd_x86::wide;

/// Elsewhere `f` runs as compiled.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn wide<R>(f: impl FnOnce() -> R) -> R {
    f()
}

pub(crate) mod alloc;
mod attention;
mod broadcast;
mod elementwise;
pub(crate) mod expr;
mod fused;
mod gemm;
mod launch;
mod layer_norm;
mod meta;
mod optim;
mod par;
mod reduce;
mod scalar;
mod scan;
mod scatter;
#[cfg(target_arch = "x86_64")]
mod simd_x86;
mod sort;
#[cfg(not(target_arch = "wasm32"))]
mod spin;
mod strided;
mod width;
#[cfg(all(target_arch = "wasm32", not(target_feature = "simd128")))]
compile_error!("the wasm32 build needs wasm SIMD: build with -C target-feature=+simd128 (.cargo/config.toml sets it)");
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm_gemm;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm_pow;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm_rows;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm_simd;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm_unary;

use gemm::{naive_matmul, sgemm_batched};
pub(crate) use meta::{meta_stats, MetaStorage};
pub(crate) use scalar::Scalar;

static CPU_STATS: MemoryStats = MemoryStats::new();

pub(crate) fn stats() -> &'static MemoryStats {
    &CPU_STATS
}

pub(crate) fn info() -> DeviceInfo {
    let threads = par::threads();
    DeviceInfo {
        device: Device::CPU,
        name: format!("cpu ({threads} thread{}, {})", if threads == 1 { "" } else { "s" }, std::env::consts::ARCH),
        backend: "cpu".into(),
        device_type: "cpu".into(),
        software: false,
        driver: String::new(),
        limits: vec![],
        features: vec![],
        memory: None,
        logical: None,
    }
}

/// Host storage with its memory accounted for, and, for a tensor made by `pin_memory`, a
/// page-locked copy of its bytes for one device's uploads.
pub(crate) struct CpuStorage {
    data: CpuData,
    bytes: u64,
    pinned: Option<Arc<dyn PinnedHost>>,
}

impl CpuStorage {
    /// Accounts for `data`, or refuses it when it would pass the CPU's memory limit.
    pub(crate) fn new(data: CpuData) -> Result<Self> {
        let bytes = (data.len() * data.dtype().size_in_bytes()) as u64;
        let reserved = CPU_STATS.try_reserve(bytes) || (alloc::release_cache() && CPU_STATS.try_reserve(bytes));
        if !reserved {
            return Err(CPU_STATS.oom(
                "cpu".into(),
                bytes,
                "the memory limit set with set_memory_limit would be passed",
            ));
        }
        CPU_STATS.on_alloc(bytes, false);
        Ok(CpuStorage { data, bytes, pinned: None })
    }

    /// The bytes of its elements.
    pub(crate) fn held_bytes(&self) -> u64 {
        self.bytes
    }

    /// The same storage with a page-locked copy attached (`Tensor::pin_memory`).
    pub(crate) fn with_pinned(mut self, pinned: Arc<dyn PinnedHost>) -> Self {
        self.pinned = Some(pinned);
        self
    }

    /// The page-locked copy, if the tensor was pinned.
    pub(crate) fn pinned(&self) -> Option<&Arc<dyn PinnedHost>> {
        self.pinned.as_ref()
    }

    pub(crate) fn data(&self) -> &CpuData {
        &self.data
    }

    pub(crate) fn into_data(mut self) -> CpuData {
        std::mem::replace(&mut self.data, CpuData::F32(Vec::new()))
    }
}

impl Drop for CpuStorage {
    fn drop(&mut self) {
        CPU_STATS.on_free(self.bytes, true);
        // The buffer may serve a later result (alloc.rs).
        #[cfg(not(target_arch = "wasm32"))]
        alloc::recycle(std::mem::replace(&mut self.data, CpuData::F32(Vec::new())));
    }
}

/// Checks, before a CPU kernel builds its output, that `n` elements of `dtype` fit the memory
/// limit and that the system can provide them: large requests are probed with a fallible
/// reservation, because a failed infallible allocation aborts the process (fatal in WASM).
pub(crate) fn reserve(n: usize, dtype: DType) -> Result<()> {
    let bytes = n.saturating_mul(dtype.size_in_bytes());
    let fits = CPU_STATS.fits(bytes as u64) || (alloc::release_cache() && CPU_STATS.fits(bytes as u64));
    if !fits {
        return Err(CPU_STATS.oom(
            "cpu".into(),
            bytes as u64,
            "the memory limit set with set_memory_limit would be passed",
        ));
    }
    if bytes >= 1 << 20 {
        host_vec::<u8>(bytes)?;
    }
    Ok(())
}

/// An empty `Vec` with room for `n` elements, or an out-of-memory error: host staging (file
/// bytes, readbacks being converted) that must not abort the process when the system cannot
/// provide it (an infallible allocation that fails is fatal in WASM).
pub(crate) fn host_vec<T>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        let bytes = n.saturating_mul(std::mem::size_of::<T>()) as u64;
        CPU_STATS.oom("cpu".into(), bytes, "the system could not provide that much host memory")
    })?;
    Ok(v)
}

/// Runs `$body` with `$T` bound to the storage type of `$dtype`.
macro_rules! with_type {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            DType::F32 => {
                type $T = f32;
                $body
            }
            DType::F16 => {
                type $T = f16;
                $body
            }
            DType::I32 => {
                type $T = i32;
                $body
            }
            DType::U32 => {
                type $T = u32;
                $body
            }
            DType::Bool => {
                type $T = u8;
                $body
            }
            // Kernels other than casts never see 8-bit integers: storage.rs computes on their
            // i32 widening.
            DType::U8 | DType::I8 => return Err(narrow_reached()),
        }
    };
}

/// The stateless CPU backend.
pub(crate) struct CpuBackend;

impl CpuBackend {
    /// The first `keep` positions of each row's stable sort (argsort, or topk's fewer, selected
    /// without sorting whole rows).
    pub(crate) fn argsort_keep(
        &self,
        src: &CpuStorage,
        l: &Layout,
        (m, k): (usize, usize),
        descending: bool,
        keep: usize,
    ) -> Result<CpuStorage> {
        sort::argsort(src, l.offset(), (m, k), descending, keep)
    }

    /// Clamp with both bounds in one pass (f32; `None` for other dtypes, which compose it).
    pub(crate) fn clamp_f32(&self, src: &CpuStorage, l: &Layout, lo: f32, hi: f32) -> Result<Option<CpuStorage>> {
        reserve(l.numel(), DType::F32)?;
        elementwise::clamp_f32(&src.data, l, lo, hi).map(CpuStorage::new).transpose()
    }

    /// Constant padding of f32 `l` into `shape` in one pass (`None` for other dtypes, which
    /// compose it).
    pub(crate) fn pad_f32(
        &self,
        src: &CpuStorage,
        l: &Layout,
        before: &[usize],
        shape: &[usize],
        value: f32,
    ) -> Result<Option<CpuStorage>> {
        let CpuData::F32(v) = &src.data else { return Ok(None) };
        reserve(shape.iter().product(), DType::F32)?;
        CpuStorage::new(CpuData::F32(elementwise::pad_f32(v, l, before, shape, value))).map(Some)
    }

    /// [`Kernels::reduce`]'s values before they become storage.
    fn reduce_data(&self, op: ReduceOp, src: &CpuStorage, l: &Layout, m: usize, k: usize) -> Result<CpuData> {
        let dtype = src.data.dtype();
        // A strided view ([kept.., reduced..] as `Tensor::reduce` permutes it), or short rows,
        // are reduced in place where strided.rs knows the pattern; otherwise a view is gathered
        // into rows first.
        if let CpuData::F32(v) = &src.data {
            // Several contiguous rows of f32: their extremes and sums in wasm SIMD (see
            // `wasm_rows::reduce_rows`).
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            if l.is_contiguous() && m > 1 && k >= SIMD_ROWS_FROM {
                if let Some(out) = wasm_rows::reduce_rows(op, &v[l.offset()..l.offset() + m * k], m, k) {
                    return Ok(out);
                }
            }
            if let Some(out) = strided::reduce_f32(op, v, l, m) {
                return Ok(out);
            }
        }
        let gathered;
        let (data, start) = if l.is_contiguous() {
            (&src.data, l.offset())
        } else {
            reserve(l.numel(), dtype)?;
            gathered = copy(&src.data, l)?;
            (&gathered, 0)
        };
        Ok(with_type!(dtype, T => reduce::rows(op, &T::slice(data)?[start..start + m * k], m, k)))
    }

    /// The f32 sums of each row of the `[m, k]` view `l` divided by `d` (a mean, average
    /// pooling's windows) in one kernel: the sums as [`Kernels::reduce`] makes them, divided in
    /// place right after (by the product with `1 / d` where that is exact), instead
    /// of a division op with an output of its own. `None` for other dtypes, which compose it.
    pub(crate) fn sum_div_f32(
        &self,
        src: &CpuStorage,
        l: &Layout,
        m: usize,
        k: usize,
        d: f32,
    ) -> Result<Option<CpuStorage>> {
        if src.data.dtype() != DType::F32 {
            return Ok(None);
        }
        let CpuData::F32(mut v) = self.reduce_data(ReduceOp::Sum, src, l, m, k)? else { return Ok(None) };
        match crate::op::binary::exact_reciprocal(d as f64) {
            Some(r) => v.iter_mut().for_each(|x| *x *= r as f32),
            None => v.iter_mut().for_each(|x| *x /= d),
        }
        CpuStorage::new(CpuData::F32(v)).map(Some)
    }
}

/// The shortest contiguous rows that `wasm_rows::reduce_rows` reduces (shorter ones take
/// the tap folds, four rows at a time).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
const SIMD_ROWS_FROM: usize = 4;

/// The CPU's kernel families (`launch.rs` dispatches a `KernelCall` to them).
impl CpuBackend {
    pub(crate) fn fill(&self, n: usize, value: Fill, dtype: DType) -> Result<CpuStorage> {
        reserve(n, dtype)?;
        match value {
            Fill::Value(v) => CpuStorage::new(alloc::filled(dtype, v, n)),
            Fill::Uniform { seed } => {
                // SAFETY: every element of each chunk is written.
                let data = unsafe {
                    par::fill(n, 1, |first, chunk| {
                        // Drawn in runs of RUN (eight counters per vector step), then written.
                        const RUN: usize = 256;
                        let mut run = [0.0f32; RUN];
                        for (k, part) in chunk.chunks_mut(RUN).enumerate() {
                            let run = &mut run[..part.len()];
                            wide(|| crate::op::fill::uniform_run(seed, (first + k * RUN) as u64, run));
                            part.iter_mut().zip(run.iter()).for_each(|(slot, &u)| {
                                slot.write(u);
                            });
                        }
                    })
                };
                CpuStorage::new(CpuData::F32(data))
            }
            Fill::Normal { seed } => {
                // SAFETY: every element of each chunk is written.
                let data = unsafe {
                    par::fill(n, 1, |first, chunk| {
                        for (j, slot) in chunk.iter_mut().enumerate() {
                            slot.write(crate::op::fill::normal(seed, (first + j) as u64));
                        }
                    })
                };
                CpuStorage::new(CpuData::F32(data))
            }
        }
    }

    pub(crate) fn map(&self, src: &CpuStorage, l: &Layout, op: MapOp, dst: DType) -> Result<CpuStorage> {
        reserve(l.numel(), dst)?;
        let d = &src.data;
        let out = match (op, d) {
            (MapOp::Cast, _) if d.dtype() == dst => copy(d, l)?,
            (MapOp::Cast, CpuData::U8(v)) => cast(i32::slice(&widen(v, l))?, dst),
            (MapOp::Cast, CpuData::I8(v)) => cast(i32::slice(&widen(v, l))?, dst),
            (MapOp::Cast, _) if l.is_contiguous() => {
                let n = l.numel();
                with_type!(d.dtype(), T => cast(&T::slice(d)?[l.offset()..l.offset() + n], dst))
            }
            (MapOp::Cast, _) => {
                let c = copy(d, l)?;
                with_type!(d.dtype(), T => cast(T::slice(&c)?, dst))
            }
            (MapOp::Unary(u), _) => unary(d, l, u)?,
        };
        CpuStorage::new(out)
    }

    pub(crate) fn binary(
        &self,
        op: BinaryOp,
        a: &CpuStorage,
        la: &Layout,
        b: &CpuStorage,
        lb: &Layout,
        shape: &[usize],
    ) -> Result<CpuStorage> {
        reserve(numel(shape), a.data.dtype())?;
        CpuStorage::new(binary_data(op, &a.data, la, &b.data, lb, shape)?)
    }

    pub(crate) fn where_(
        &self,
        c: &Operand<&CpuStorage>,
        a: &Operand<&CpuStorage>,
        b: &Operand<&CpuStorage>,
        shape: &[usize],
    ) -> Result<CpuStorage> {
        let (lc, la, lb) = (&*c.l, &*a.l, &*b.l);
        let (c, a, b) = (c.s, a.s, b.s);
        reserve(numel(shape), a.data.dtype())?;
        let cv = u8::slice(&c.data)?;
        let dtype = a.data.dtype();
        let out = with_width!(dtype, T => {
            T::wrap_as(dtype, select_broadcast(cv, lc, T::of(&a.data)?, la, T::of(&b.data)?, lb, shape))
        });
        CpuStorage::new(out)
    }

    pub(crate) fn reduce(&self, op: ReduceOp, src: &CpuStorage, l: &Layout, m: usize, k: usize) -> Result<CpuStorage> {
        CpuStorage::new(self.reduce_data(op, src, l, m, k)?)
    }

    pub(crate) fn softmax(&self, src: &CpuStorage, l: &Layout, m: usize, k: usize, log: bool) -> Result<CpuStorage> {
        reserve(m * k, src.data.dtype())?;
        let rows = l.offset()..l.offset() + m * k;
        let out = match &src.data {
            CpuData::F32(v) => CpuData::F32(reduce::softmax_f32(&v[rows], m, k, log)),
            CpuData::F16(v) => CpuData::F16(reduce::softmax(&v[rows], m, k, log)),
            // ops/reduce.rs casts integers to f32 first (`float_input`): no integer instance.
            d => {
                return Err(Error::UnsupportedDType {
                    op: "softmax",
                    dtype: d.dtype(),
                    reason: "softmax needs f32 or f16".into(),
                })
            }
        };
        CpuStorage::new(out)
    }

    /// `a @ b`, plus `bias` on every output row where given (floats: the product accumulates
    /// onto rows that start as the bias, so the epilogue costs no pass of its own).
    pub(crate) fn matmul(
        &self,
        a: &CpuStorage,
        b: &CpuStorage,
        bias: Option<&CpuStorage>,
        args: &MatmulArgs,
    ) -> Result<CpuStorage> {
        reserve(args.batch * args.m * args.n, a.data.dtype())?;
        let row = args.bias_offset..args.bias_offset + args.n;
        let out = match (&a.data, &b.data, bias.map(|s| &s.data)) {
            (CpuData::F32(av), CpuData::F32(bv), None) => CpuData::F32(sgemm_batched(av, bv, args, None)),
            (CpuData::F32(av), CpuData::F32(bv), Some(CpuData::F32(c))) => {
                CpuData::F32(sgemm_batched(av, bv, args, Some(&c[row])))
            }
            (CpuData::F16(av), CpuData::F16(bv), bias) => {
                let (af, bf): (Vec<f32>, Vec<f32>) =
                    (av.iter().map(|x| x.to_f32()).collect(), bv.iter().map(|x| x.to_f32()).collect());
                let bias: Option<Vec<f32>> = match bias {
                    Some(CpuData::F16(c)) => Some(c[row].iter().map(|x| x.to_f32()).collect()),
                    Some(_) => return Err(Error::invalid("addmm", "internal: the bias's dtype is not the product's")),
                    None => None,
                };
                CpuData::F16(sgemm_batched(&af, &bf, args, bias.as_deref()).into_iter().map(f16::from_f32).collect())
            }
            (_, _, Some(_)) => {
                return Err(Error::invalid("addmm", "internal: a bias on an integer matmul or of another dtype"))
            }
            (CpuData::I32(av), CpuData::I32(bv), None) => {
                CpuData::I32(naive_matmul(av, bv, args, 0, |acc, x, y| acc.wrapping_add(x.wrapping_mul(y))))
            }
            (CpuData::U32(av), CpuData::U32(bv), None) => {
                CpuData::U32(naive_matmul(av, bv, args, 0, |acc, x, y| acc.wrapping_add(x.wrapping_mul(y))))
            }
            (d, _, None) => {
                return Err(Error::UnsupportedDType {
                    op: "matmul",
                    dtype: d.dtype(),
                    reason: "matmul needs f32, f16, i32 or u32".into(),
                })
            }
        };
        CpuStorage::new(out)
    }

    pub(crate) fn index(
        &self,
        mode: IndexMode,
        src: &Operand<&CpuStorage>,
        idx: &Operand<&CpuStorage>,
        dim: usize,
        shape: &[usize],
    ) -> Result<CpuStorage> {
        let (l, li) = (&*src.l, &*idx.l);
        let (src, idx) = (src.s, idx.s);
        let op = match mode {
            IndexMode::Select => "index_select",
            IndexMode::Gather => "gather",
        };
        let ids: Vec<i64> = match &idx.data {
            CpuData::I32(v) => v[li.offset()..li.offset() + li.numel()].iter().map(|&x| x as i64).collect(),
            CpuData::U32(v) => v[li.offset()..li.offset() + li.numel()].iter().map(|&x| x as i64).collect(),
            d => return Err(Error::DTypeMismatch { op, expected: DType::I32, got: d.dtype() }),
        };
        let size = l.shape()[dim];
        reserve(numel(shape), src.data.dtype())?;
        if let Some(&bad) = ids.iter().find(|&&i| i < 0 || i as usize >= size) {
            return Err(Error::IndexOutOfRange { op, index: bad, dim, size });
        }
        // Select copies each chosen slice whole (a slice copy where the dims after `dim` are
        // contiguous, as an embedding's rows are); gather walks the output with `dim`'s stride
        // replaced by each index's. A per-element offset from div/mod over the rank, collected
        // into a vector first, made index_select of 1024 rows of 1024 take 8.6 ms in wasm.
        let (dtype, n, sd) = (src.data.dtype(), numel(shape), l.strides()[dim]);
        let out = with_width!(dtype, T => {
            let v = T::of(&src.data)?;
            let mut out: Vec<T> = alloc::with_capacity(n);
            match mode {
                // An empty result reads nothing (an empty source's strides may point anywhere).
                _ if n == 0 => {}
                IndexMode::Select => {
                    let inner = Layout::strided(&shape[dim + 1..], &l.strides()[dim + 1..], 0);
                    let (len, flat) = (inner.numel(), inner.is_contiguous());
                    for o in StridedOffsets::new(&shape[..dim], &l.strides()[..dim], l.offset()) {
                        if len == 1 {
                            // Single elements (selecting along the last dim): one loop per row.
                            out.extend(ids.iter().map(|&id| v[o + id as usize * sd]));
                            continue;
                        }
                        for &id in &ids {
                            let base = o + id as usize * sd;
                            if flat {
                                out.extend_from_slice(&v[base..base + len]);
                            } else {
                                out.extend(StridedOffsets::new(inner.shape(), inner.strides(), base).map(|p| v[p]));
                            }
                        }
                    }
                }
                IndexMode::Gather => {
                    let mut strides = l.strides().to_vec();
                    strides[dim] = 0;
                    // Row by row of the output's last dim, so the inner loop is a plain map over
                    // the index row (the element-wise strided walk took 15 ms over 1M in wasm).
                    let r = shape.len().saturating_sub(1);
                    let (inner, step) = (shape.get(r).copied().unwrap_or(1), strides.get(r).copied().unwrap_or(0));
                    let rows = StridedOffsets::new(&shape[..r], &strides[..r], l.offset());
                    for (o, row) in rows.zip(ids.chunks_exact(inner)) {
                        out.extend(row.iter().enumerate().map(|(j, &id)| v[o + j * step + id as usize * sd]));
                    }
                }
            }
            T::wrap_as(dtype, out)
        });
        CpuStorage::new(out)
    }

    pub(crate) fn cat(
        &self,
        parts: &[Operand<&CpuStorage>],
        dim: usize,
        shape: &[usize],
        dtype: DType,
    ) -> Result<CpuStorage> {
        reserve(numel(shape), dtype)?;
        let out = with_width!(dtype, T => {
            let mut out = vec![T::default(); numel(shape)];
            let dst = Layout::contiguous(shape);
            let mut start = 0;
            for part in parts {
                let len = part.l.shape()[dim];
                let region = dst.narrow("cat", dim as isize, start, len)?;
                broadcast::copy_into(&mut out, &region, T::of(&part.s.data)?, &part.l);
                start += len;
            }
            T::wrap_as(dtype, out)
        });
        CpuStorage::new(out)
    }
}
