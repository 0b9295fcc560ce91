//! Kernel launches on wgpu: each family packs its params (shapes, strides, offsets) into the
//! uniform its `.wgsl` file reads, allocates the output from the pool and records a dispatch.

use std::sync::Arc;

use super::context::Bind;
use super::{WgpuDevice, WgpuStorage};
use crate::device::backend::Operand;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::op::binary::BinaryOp;
use crate::op::fill::Fill;
use crate::op::param_layout::KernelParams;
use crate::op::params::*;
use crate::op::reduce::{strided_params, InPlace, ReduceOp};
use crate::op::{IndexMode, MapOp};
use crate::shaders::{accumulator, params, KernelKey, Walk, WG};
use crate::shape::numel;

/// Rows this short are reduced one thread per row (reduce_small.wgsl).
const SMALL_ROW: usize = 64;
/// A strided map runs a thread per row on software adapters when rows are at least this long and
/// this many (enough rows to keep every core's lanes busy).
pub(super) const MAP_ROW_MIN_LEN: usize = 4;
pub(super) const MAP_ROW_MIN_ROWS: usize = 1024;
/// Elements one reduction workgroup folds per pass.
pub(super) const REDUCE_CHUNK: usize = 4096;
/// Broadcasts whose coalesced output is [rows, cols] with at most this many columns run one
/// thread per row.
pub(super) const ROW_COLS: u32 = 32;
/// On software adapters, softmax and reductions over at least this many rows run a thread per
/// row (or per chunk) instead of a workgroup with barriers.
const SERIAL_ROWS: usize = 64;
/// Threads a serial reduction pass aims for on a software adapter.
const SERIAL_THREADS: usize = 8192;
/// Most workgroups one row's reduction pass uses (chunks grow past REDUCE_CHUNK instead).
const ROW_CHUNKS: usize = 128;
/// vec4s per thread of the vectorised elementwise kernels (binary4, binary_scalar4, map4), a grid
/// apart so neighbouring threads still read neighbouring vec4s, and of a run of binary_rows4.
/// Software adapters pay per invocation (index math, bounds check, a lane of gathers): one vec4
/// per thread made `add` over 1M elements 0.99x TF.js on Dawn/lavapipe, four made it 1.40x. For
/// the elementwise kernels the count is per adapter (`WgpuDevice::vec4_per_thread`).
const VEC4_PER_THREAD: usize = 4;

/// Whether every one of `bufs` holds whole vec4s, as a vec4 program binding it needs (an
/// operand read one value per row loads the vec4 around it). Every block the pool hands out is
/// a multiple of 16 bytes, but not one cut to a binding's size.
fn whole_vec4s(bufs: &[&WgpuStorage]) -> bool {
    bufs.iter().all(|s| s.buffer().size().is_multiple_of(16))
}

/// The vec4s a thread of binary_rows4 / where_rows4 takes for rows of `cols` elements: runs of 8 where the rows divide into them, else of VEC4_PER_THREAD (an operand
/// constant along the row loads once per run). Chromium's SwiftShader pays more per
/// invocation than lavapipe: ten chained [1024,1024] + [1024] took 17.5 ms there with runs of
/// 4 (TF.js 7.7), 11.6 with 8 and 8.7 with 16, and + [1024,1] 22.4, 9.2 and 7.8; on lavapipe
/// (Node, Dawn) runs of 8 took the bias add from 2.4-2.7 to 2.7-3.3 ms and the column from
/// 1.8-2.1 to 1.5 (TF.js about 4 for both), runs of 16 to 4.1-5.7 and 3.7-4.7.
fn rows4_run(cols: usize) -> usize {
    if cols.is_multiple_of(32) {
        8
    } else if cols.is_multiple_of(4 * VEC4_PER_THREAD) {
        VEC4_PER_THREAD
    } else {
        1
    }
}

pub(super) fn u(x: usize) -> u32 {
    // Buffer limits (< 4 GiB per binding) keep every element index and count within u32.
    x as u32
}

/// Whether every count/offset is a multiple of 4, so the vec4 kernels apply.
pub(super) fn aligned4(vals: &[usize]) -> bool {
    vals.iter().all(|v| v % 4 == 0)
}

impl WgpuDevice {
    /// Records a strided copy/cast/unary from `src` (layout `sl`) into `dst` (layout `dl`).
    pub(super) fn launch_map(
        &self,
        op: MapOp,
        (src, sl, sd): (&wgpu::Buffer, &Layout, DType),
        (dst, dl, dd): (&wgpu::Buffer, &Layout, DType),
    ) -> Result<()> {
        let n = sl.numel();
        if n == 0 {
            return Ok(());
        }
        let esz = sd.gpu_size_in_bytes().max(dd.gpu_size_in_bytes());
        if sl.is_contiguous() && dl.is_contiguous() && (self.too_big(n, esz) || self.exceeds(&[src, dst])) {
            return self.map_pieces(op, (src, sl.offset(), sd), (dst, dl.offset(), dd), n);
        }
        if sl.is_contiguous() && dl.is_contiguous() && aligned4(&[n, sl.offset(), dl.offset()]) {
            let p = Map4Params { count: n / 4, src_offset: sl.offset() / 4, dst_offset: dl.offset() / 4 };
            return self.dispatch(
                KernelKey::Map4 { op, src: sd, dst: dd },
                &[Bind::whole(src), Bind::whole(dst)],
                &p,
                self.vec4_groups(n)?,
            );
        }
        let mut p = params::map(sl, dl)?;
        // Software adapters run a strided copy a thread per row: the per-element index
        // arithmetic (a division per dim) cost ~20 ns an element on lavapipe (a transposing
        // copy of 1M: 22 ms; a convolution's im2col of 9.4M: 228 ms).
        let rows = self.software() && params::rows(&mut p, MAP_ROW_MIN_LEN, MAP_ROW_MIN_ROWS);
        let items = if rows { p.numel } else { n };
        self.dispatch(
            KernelKey::Map { op, src: sd, dst: dd, walk: Walk::of(p.rank, n) },
            &[Bind::whole(src), Bind::whole(dst)],
            &p,
            self.groups(items, WG)?,
        )
    }

    /// An index-family kernel (`index`, `index_add`) over a source and an index buffer, into a
    /// fresh output of `n` elements of the source's dtype, on `threads` threads.
    fn launch_indexed<P: KernelParams>(
        self: &Arc<Self>,
        key: KernelKey,
        params: &P,
        src: &WgpuStorage,
        idx: &WgpuStorage,
        (n, threads): (usize, usize),
    ) -> Result<WgpuStorage> {
        let out = self.alloc(n, src.dtype())?;
        if n == 0 {
            return Ok(out);
        }
        let binds = [Bind::whole(src.buffer()), Bind::whole(idx.buffer()), Bind::whole(out.buffer())];
        self.dispatch(key, &binds, params, self.groups(threads, WG)?)?;
        Ok(out)
    }
}

impl WgpuDevice {
    /// The grid of a vec4 elementwise kernel over `n` elements (`vec4_per_thread` per thread).
    pub(super) fn vec4_groups(&self, n: usize) -> Result<(u32, u32, u32)> {
        self.groups((n / 4).div_ceil(self.vec4_per_thread), WG)
    }

    /// Whether to shape kernels for a software adapter (see `WgpuDevice::software_kernels`).
    pub(crate) fn software(&self) -> bool {
        self.software_kernels.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A reduction of a strided view ([kept.., reduced..]): one thread per output in place
    /// (reduce_strided.wgsl) where [`InPlace`] says it pays (on software adapters nearly always,
    /// on hardware with many outputs of short folds); otherwise the view is gathered and reduced
    /// as rows.
    fn reduce_view(
        self: &Arc<Self>,
        op: ReduceOp,
        src: &WgpuStorage,
        l: &Layout,
        m: usize,
        k: usize,
    ) -> Result<WgpuStorage> {
        let dtype = src.dtype();
        let rule = if self.software() { InPlace::SOFTWARE } else { InPlace::hardware(false) };
        match strided_params(l, m, rule) {
            Some(p) if !self.exceeds(&[src.buffer()]) => {
                let out_dtype = op.output_dtype(dtype);
                let out = self.alloc(m, out_dtype)?;
                let key = KernelKey::ReduceStrided { op, src: dtype, dst: out_dtype };
                self.dispatch(key, &[Bind::whole(src.buffer()), Bind::whole(out.buffer())], &p, self.groups(m, WG)?)?;
                Ok(out)
            }
            _ => {
                let rows = self.map(src, l, MapOp::Cast, dtype)?;
                self.reduce(op, &rows, &Layout::contiguous(l.shape()), m, k)
            }
        }
    }

    /// Row reductions on software adapters: threads fold interleaved parts of rows (or whole
    /// rows, for arg reductions and when rows are many) with no barriers, pass after pass until
    /// one value per row remains (see reduce_small.wgsl). `temp` is the source when a piecewise
    /// pass already ran; `(m, k, off, sd)` its geometry and dtype.
    fn reduce_serial(
        self: &Arc<Self>,
        op: ReduceOp,
        src: &WgpuStorage,
        mut temp: Option<WgpuStorage>,
        (m, mut k, mut off, mut sd): (usize, usize, usize, DType),
        out: WgpuStorage,
    ) -> Result<WgpuStorage> {
        let out_dtype = op.output_dtype(src.dtype());
        // An f32 sum of rows of whole vec4s: its first pass four elements a step.
        let src_buf = temp.as_ref().map_or(src.buffer(), |t| t.buffer()).clone();
        if op == ReduceOp::Sum
            && sd == DType::F32
            && k >= 256
            && aligned4(&[k, off])
            && src_buf.size().is_multiple_of(16)
        {
            let nchunks = (k / 4 / 64).min(SERIAL_THREADS.div_ceil(m)).max(2);
            let partial = self.alloc(m * nchunks, DType::F32)?;
            let p = ReduceSum4Params { rows: m, k: k / 4, offset: off / 4, chunks: nchunks };
            let bufs = [Bind::whole(&src_buf), Bind::whole(partial.buffer())];
            self.dispatch(KernelKey::ReduceSum4, &bufs, &p, self.groups(m * nchunks, WG)?)?;
            temp = Some(partial);
            (k, off) = (nchunks, 0);
        }
        loop {
            // Enough threads to fill the adapter's lanes and cores, each folding >= 64 elements.
            let nchunks = if op.is_arg() { 1 } else { (k / 64).min(SERIAL_THREADS.div_ceil(m)).max(1) };
            let src_buf = temp.as_ref().map_or(src.buffer(), |t| t.buffer()).clone();
            let p = ReduceSmallParams { rows: m, k, offset: off, chunks: nchunks };
            let last = nchunks == 1;
            let dst_dtype = if last { out_dtype } else { accumulator(src.dtype()) };
            let next = if last { None } else { Some(self.alloc(m * nchunks, dst_dtype)?) };
            let dst = next.as_ref().unwrap_or(&out);
            let key = KernelKey::ReduceSmall { op, src: sd, dst: dst_dtype };
            self.dispatch(key, &[Bind::whole(&src_buf), Bind::whole(dst.buffer())], &p, self.groups(m * nchunks, WG)?)?;
            match next {
                None => return Ok(out),
                Some(n) => {
                    temp = Some(n);
                    (k, off, sd) = (nchunks, 0, dst_dtype);
                }
            }
        }
    }
}

/// wgpu's kernel families (`launch.rs` dispatches a `KernelCall` to them).
impl WgpuDevice {
    pub(crate) fn fill(self: &Arc<Self>, n: usize, value: Fill, dtype: DType) -> Result<WgpuStorage> {
        let out = self.alloc(n, dtype)?;
        if n > 0 {
            if self.too_big(n, dtype.gpu_size_in_bytes()) {
                self.fill_pieces(out.buffer(), n, value, dtype)?;
            } else {
                self.dispatch(
                    KernelKey::Fill { dtype },
                    &[Bind::whole(out.buffer())],
                    &params::fill(n, value, dtype, 0),
                    self.groups(n, WG)?,
                )?;
            }
        }
        Ok(out)
    }

    pub(crate) fn map(self: &Arc<Self>, src: &WgpuStorage, l: &Layout, op: MapOp, dst: DType) -> Result<WgpuStorage> {
        let out = self.alloc(l.numel(), dst)?;
        self.launch_map(op, (src.buffer(), l, src.dtype()), (out.buffer(), &Layout::contiguous(l.shape()), dst))?;
        Ok(out)
    }

    pub(crate) fn binary(
        self: &Arc<Self>,
        op: BinaryOp,
        a: &WgpuStorage,
        la: &Layout,
        b: &WgpuStorage,
        lb: &Layout,
        shape: &[usize],
    ) -> Result<WgpuStorage> {
        let dtype = a.dtype();
        let n = numel(shape);
        let out = self.alloc(n, op.out_dtype(dtype))?;
        if n == 0 {
            return Ok(out);
        }
        let large = self.too_big(n, 4) || self.exceeds(&[a.buffer(), b.buffer(), out.buffer()]);
        if large && self.binary_pieces(op, (a.buffer(), la), (b.buffer(), lb), out.buffer(), shape, dtype)? {
            return Ok(out);
        }
        if params::same_shape(la, lb, shape) && aligned4(&[n, la.offset(), lb.offset()]) {
            let p = Binary4Params { count: n / 4, a_offset: la.offset() / 4, b_offset: lb.offset() / 4 };
            let bufs = [Bind::whole(a.buffer()), Bind::whole(b.buffer()), Bind::whole(out.buffer())];
            self.dispatch(KernelKey::Binary4 { op, dtype }, &bufs, &p, self.vec4_groups(n)?)?;
            return Ok(out);
        }
        let mut p = params::binary(op.name(), la, lb, shape)?;
        if let Some(splat) = params::rows4(&p).filter(|_| whole_vec4s(&[a, b])) {
            // Vec4 loads and a row's offsets once per four outputs.
            let run = rows4_run(p.shape[p.rank - 1]);
            p.numel = n / (4 * run);
            let walk = Walk::of(p.rank, n);
            let key = KernelKey::BinaryRows4 { op, dtype, walk, splat, run: run as u8 };
            let bufs = [Bind::whole(a.buffer()), Bind::whole(b.buffer()), Bind::whole(out.buffer())];
            self.dispatch(key, &bufs, &p, self.groups(n / (4 * run), WG)?)?;
            return Ok(out);
        }
        // A rank-2 broadcast with few columns runs one thread per row (binary.wgsl's mode 2).
        let rows = p.rank == 2 && p.mode == 0 && p.shape[1] <= ROW_COLS as usize;
        if rows {
            p.mode = 2;
        }
        self.dispatch(
            KernelKey::Binary { op, dtype, walk: Walk::of(p.rank, n) },
            &[Bind::whole(a.buffer()), Bind::whole(b.buffer()), Bind::whole(out.buffer())],
            &p,
            self.groups(if rows { p.shape[0] } else { n }, WG)?,
        )?;
        Ok(out)
    }

    pub(crate) fn binary_scalar(
        self: &Arc<Self>,
        op: BinaryOp,
        a: &WgpuStorage,
        la: &Layout,
        value: f64,
    ) -> Result<Option<WgpuStorage>> {
        let dtype = a.dtype();
        let n = la.numel();
        // Strided views and tensors split across bindings take the broadcast path.
        if !la.is_contiguous() || n == 0 || self.too_big(n, 4) || self.exceeds(&[a.buffer()]) {
            return Ok(None);
        }
        let out = self.alloc(n, op.out_dtype(dtype))?;
        if self.exceeds(&[out.buffer()]) {
            return Ok(None);
        }
        let bits = crate::shaders::scalar_bits(value, dtype) as usize;
        let bufs = [Bind::whole(a.buffer()), Bind::whole(out.buffer())];
        if aligned4(&[n, la.offset()]) {
            let p = ScalarParams { count: n / 4, offset: la.offset() / 4, bits };
            self.dispatch(KernelKey::BinaryScalar4 { op, dtype }, &bufs, &p, self.vec4_groups(n)?)?;
        } else {
            let p = ScalarParams { count: n, offset: la.offset(), bits };
            self.dispatch(KernelKey::BinaryScalar { op, dtype }, &bufs, &p, self.groups(n, WG)?)?;
        }
        Ok(Some(out))
    }

    pub(crate) fn where_(
        self: &Arc<Self>,
        c: &Operand<&WgpuStorage>,
        a: &Operand<&WgpuStorage>,
        b: &Operand<&WgpuStorage>,
        shape: &[usize],
    ) -> Result<WgpuStorage> {
        let (lc, la, lb) = (&*c.l, &*a.l, &*b.l);
        let (c, a, b) = (c.s, a.s, b.s);
        let dtype = a.dtype();
        let n = numel(shape);
        let out = self.alloc(n, dtype)?;
        if n == 0 {
            return Ok(out);
        }
        let mut p = params::where_(lc, la, lb, shape)?;
        let bufs =
            [Bind::whole(c.buffer()), Bind::whole(a.buffer()), Bind::whole(b.buffer()), Bind::whole(out.buffer())];
        let walk = Walk::of(p.rank, n);
        // Vec4 runs wherever the rows allow, same-shape operands too (one row: where.wgsl's
        // own fast path loads one element at a time).
        if let Some(splat) = params::where_rows4(&p).filter(|_| whole_vec4s(&[c, a, b])) {
            let run = rows4_run(p.shape[p.rank - 1]);
            p.numel = n / (4 * run);
            let key = KernelKey::WhereRows4 { dtype, walk, splat, run: run as u8 };
            self.dispatch(key, &bufs, &p, self.groups(n / (4 * run), WG)?)?;
            return Ok(out);
        }
        self.dispatch(KernelKey::Where { dtype, walk }, &bufs, &p, self.groups(n, WG)?)?;
        Ok(out)
    }

    pub(crate) fn reduce(
        self: &Arc<Self>,
        op: ReduceOp,
        src: &WgpuStorage,
        l: &Layout,
        m: usize,
        k: usize,
    ) -> Result<WgpuStorage> {
        if !l.is_contiguous() {
            return self.reduce_view(op, src, l, m, k);
        }
        let dtype = src.dtype();
        let out_dtype = op.output_dtype(dtype);
        let out = self.alloc(m, out_dtype)?;
        if m == 0 {
            return Ok(out);
        }
        // Long rows fold in passes of REDUCE_CHUNK into an accumulator-typed temporary; an
        // arg-reduction keeps whole rows in one pass so indices stay global.
        let mut temp: Option<WgpuStorage> = None;
        let (mut k, mut off, mut sd) = (k, l.offset(), dtype);
        if self.too_big(m * k, dtype.gpu_size_in_bytes()) || self.exceeds(&[src.buffer()]) {
            // The source spans several bindings: fold it piecewise first (split.rs).
            if m == 1 && !op.is_arg() {
                temp = Some(self.reduce_pieces(op, src.buffer(), off, k, dtype)?);
                (k, off, sd) = (k.div_ceil(REDUCE_CHUNK), 0, accumulator(dtype));
            } else if let Ok(partials) = self.reduce_rows_pieces(op, src.buffer(), off, (m, k), dtype, &out)? {
                match partials {
                    None => return Ok(out),
                    Some(p) => {
                        (k, off, sd) = (k.div_ceil(REDUCE_CHUNK), 0, accumulator(dtype));
                        temp = Some(p);
                    }
                }
            }
        }
        if temp.is_none() && k <= SMALL_ROW {
            let key = KernelKey::ReduceSmall { op, src: sd, dst: out_dtype };
            let p = ReduceSmallParams { rows: m, k, offset: off, chunks: 1 };
            self.dispatch(key, &[Bind::whole(src.buffer()), Bind::whole(out.buffer())], &p, self.groups(m, WG)?)?;
            return Ok(out);
        }
        // Arg reductions keep whole rows: serially only when the rows are many.
        if self.software() && (!op.is_arg() || m >= SERIAL_ROWS) {
            return self.reduce_serial(op, src, temp, (m, k, off, sd), out);
        }
        loop {
            // At most ROW_CHUNKS workgroups per row: each workgroup pays for its barriers
            // (lavapipe switches between invocations at each), so a 4M sum in 1024 chunks of
            // 4096 spent more time there than reading.
            let chunk = REDUCE_CHUNK.max(k.div_ceil(ROW_CHUNKS).next_multiple_of(WG as usize));
            let nchunks = if op.is_arg() { 1 } else { k.div_ceil(chunk).max(1) };
            let chunk = if nchunks == 1 { k.max(1) } else { chunk };
            let src_buf = temp.as_ref().map_or(src.buffer(), |t| t.buffer()).clone();
            let params = ReduceParams { rows: m, k, chunk, chunks: nchunks, offset: off };
            let groups = self.fold(m * nchunks)?;
            if nchunks == 1 {
                self.dispatch(
                    KernelKey::Reduce { op, src: sd, dst: out_dtype },
                    &[Bind::whole(&src_buf), Bind::whole(out.buffer())],
                    &params,
                    groups,
                )?;
                return Ok(out);
            }
            let acc = accumulator(dtype);
            let next = self.alloc(m * nchunks, acc)?;
            self.dispatch(
                KernelKey::Reduce { op, src: sd, dst: acc },
                &[Bind::whole(&src_buf), Bind::whole(next.buffer())],
                &params,
                groups,
            )?;
            temp = Some(next);
            (k, off, sd) = (nchunks, 0, acc);
        }
    }

    pub(crate) fn softmax(
        self: &Arc<Self>,
        src: &WgpuStorage,
        l: &Layout,
        m: usize,
        k: usize,
        log: bool,
    ) -> Result<WgpuStorage> {
        let dtype = src.dtype();
        let out = self.alloc(m * k, dtype)?;
        if m * k > 0 {
            // Software adapters: a thread per row (no barriers) when there are rows enough to
            // fill the lanes; GPUs and few long rows: a workgroup per row.
            let serial = self.software() && m >= SERIAL_ROWS;
            let groups = if serial { self.groups(m, WG)? } else { self.fold(m)? };
            self.dispatch(
                KernelKey::Softmax { log, dtype },
                &[Bind::whole(src.buffer()), Bind::whole(out.buffer())],
                &SoftmaxParams { rows: m, k, offset: l.offset(), serial: serial as usize },
                groups,
            )?;
        }
        Ok(out)
    }

    pub(crate) fn argsort(
        self: &Arc<Self>,
        src: &WgpuStorage,
        l: &Layout,
        m: usize,
        k: usize,
        descending: bool,
    ) -> Result<WgpuStorage> {
        self.bitonic_argsort(src, l, m, k, descending)
    }

    pub(crate) fn index(
        self: &Arc<Self>,
        mode: IndexMode,
        src: &Operand<&WgpuStorage>,
        idx: &Operand<&WgpuStorage>,
        dim: usize,
        shape: &[usize],
    ) -> Result<WgpuStorage> {
        let (l, li) = (&*src.l, &*idx.l);
        let (src, idx) = (src.s, idx.s);
        let n = numel(shape);
        if mode == IndexMode::Select {
            if let Some(p) = params::index_rows4(l, li, dim, shape).filter(|_| whole_vec4s(&[src])) {
                let key = KernelKey::IndexRows4 { dtype: src.dtype(), index: idx.dtype() };
                return self.launch_indexed(key, &p, src, idx, (n, n / 4));
            }
        }
        let key = KernelKey::Index { dtype: src.dtype(), index: idx.dtype(), walk: Walk::of(shape.len(), n) };
        self.launch_indexed(key, &params::index(mode, l, li, dim, shape)?, src, idx, (n, n))
    }

    pub(crate) fn index_add(
        self: &Arc<Self>,
        (mode, assign): (IndexMode, bool),
        src: &Operand<&WgpuStorage>,
        idx: &Operand<&WgpuStorage>,
        dim: usize,
        shape: &[usize],
    ) -> Result<WgpuStorage> {
        let (l, li) = (&*src.l, &*idx.l);
        let (src, idx) = (src.s, idx.s);
        let key =
            KernelKey::IndexAdd { dtype: src.dtype(), index: idx.dtype(), walk: Walk::of(shape.len(), numel(shape)) };
        self.launch_indexed(
            key,
            &params::index_add(mode, l, li, dim, shape, assign)?,
            src,
            idx,
            (numel(shape), numel(shape)),
        )
    }

    pub(crate) fn cat(
        self: &Arc<Self>,
        parts: &[Operand<&WgpuStorage>],
        dim: usize,
        shape: &[usize],
        dtype: DType,
    ) -> Result<WgpuStorage> {
        let out = self.alloc(numel(shape), dtype)?;
        let dst = Layout::contiguous(shape);
        let mut start = 0;
        for part in parts {
            let len = part.l.shape()[dim];
            let region = dst.narrow("cat", dim as isize, start, len)?;
            self.launch_map(MapOp::Cast, (part.s.buffer(), &part.l, part.s.dtype()), (out.buffer(), &region, dtype))?;
            start += len;
        }
        Ok(out)
    }
}
