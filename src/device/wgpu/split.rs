//! Tensors larger than one binding (`max_storage_buffer_binding_size`, 128 MiB on lavapipe and
//! by default in browsers): buffers may be larger (`max_buffer_size`), so the ops that can work
//! piecewise bind byte ranges and dispatch once per piece. Contiguous elementwise ops, fills and
//! reductions whose source is too large split this way; ops that cannot split refuse with an
//! error naming the limit (see `WgpuDevice::dispatch`).

use super::context::Bind;
use super::WgpuDevice;

/// Binding offsets are multiples of this (WebGPU's `minStorageBufferOffsetAlignment` is at most
/// 256), so pieces start at multiples of it.
pub(crate) const ALIGN: u64 = 256;

/// A contiguous run of `n` elements of `esz` bytes starting at element `start` of `buffer`: the
/// binding (its offset aligned down to [`ALIGN`]) and the element offset of `start` inside it.
pub(crate) fn span(buffer: &wgpu::Buffer, start: usize, n: usize, esz: usize) -> (Bind<'_>, usize) {
    let first = (start * esz) as u64;
    let offset = first - first % ALIGN;
    let size = (first + (n * esz) as u64 - offset).next_multiple_of(4).max(4);
    (Bind::range(buffer, offset, size), ((first - offset) / esz as u64) as usize)
}

impl WgpuDevice {
    /// The binding limit in bytes.
    pub(crate) fn max_binding(&self) -> u64 {
        self.limits.max_storage_buffer_binding_size
    }

    /// Whether any of `buffers` is larger than one binding (a small view of a huge buffer must
    /// still be bound as a range).
    pub(crate) fn exceeds(&self, buffers: &[&wgpu::Buffer]) -> bool {
        buffers.iter().any(|b| b.size() > self.max_binding())
    }

    /// Whether `n` elements of `esz` bytes need more than one binding.
    pub(crate) fn too_big(&self, n: usize, esz: usize) -> bool {
        (n * esz) as u64 > self.max_binding().saturating_sub(ALIGN)
    }

    /// Elements per piece for `esz`-byte elements: a multiple of `granule` that fits one
    /// binding with room for the alignment slack of [`span`].
    pub(crate) fn piece_elems(&self, esz: usize, granule: usize) -> usize {
        let fit = (self.max_binding().saturating_sub(ALIGN) as usize) / esz;
        (fit / granule * granule).max(granule)
    }
}

use std::sync::Arc;

use super::kernels::REDUCE_CHUNK;
use super::WgpuStorage;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::op::binary::BinaryOp;
use crate::op::fill::Fill;
use crate::op::params::*;
use crate::op::reduce::ReduceOp;
use crate::op::MapOp;
use crate::shaders::{accumulator, params, KernelKey, Walk, WG};

/// Elements of a piece are multiples of this, so every piece after the first starts 256-byte
/// aligned for 2- and 4-byte elements.
const GRANULE: usize = 1024;

/// How one operand of a split binary op is bound for each piece.
enum Operand {
    /// Contiguous with the output's shape: piece `i` reads the same range as it writes.
    Follows,
    /// A single element broadcast everywhere: bound once, read with stride 0.
    Scalar,
}

fn operand(l: &Layout, shape: &[usize]) -> Option<Operand> {
    if l.is_contiguous() && l.shape() == shape {
        Some(Operand::Follows)
    } else if l.numel() == 1 {
        Some(Operand::Scalar)
    } else {
        None
    }
}

impl WgpuDevice {
    /// A contiguous map over `n` elements in binding-sized pieces.
    pub(crate) fn map_pieces(
        &self,
        op: MapOp,
        (src, s0, sd): (&wgpu::Buffer, usize, DType),
        (dst, d0, dd): (&wgpu::Buffer, usize, DType),
        n: usize,
    ) -> Result<()> {
        let (se, de) = (sd.gpu_size_in_bytes(), dd.gpu_size_in_bytes());
        let piece = self.piece_elems(se.max(de), GRANULE);
        let mut start = 0;
        while start < n {
            let len = piece.min(n - start);
            let (sb, so) = span(src, s0 + start, len, se);
            let (db, dof) = span(dst, d0 + start, len, de);
            if [len, so, dof].iter().all(|v| v % 4 == 0) {
                let p = Map4Params { count: len / 4, src_offset: so / 4, dst_offset: dof / 4 };
                self.dispatch(KernelKey::Map4 { op, src: sd, dst: dd }, &[sb, db], &p, self.groups(len / 4, WG)?)?;
            } else {
                let p = MapParams {
                    numel: len,
                    rank: 1,
                    src_offset: so,
                    dst_offset: dof,
                    shape: [len, 0, 0, 0, 0, 0, 0, 0],
                    src_strides: [1, 0, 0, 0, 0, 0, 0, 0],
                    dst_strides: [1, 0, 0, 0, 0, 0, 0, 0],
                    fast: 1,
                    row_len: 0,
                };
                self.dispatch(
                    KernelKey::Map { op, src: sd, dst: dd, walk: Walk::of(1, len) },
                    &[sb, db],
                    &p,
                    self.groups(len, WG)?,
                )?;
            }
            start += len;
        }
        Ok(())
    }

    /// A binary op over `n` output elements in pieces, when each operand either follows the
    /// output or is a single broadcast element; `Ok(false)` when it cannot split.
    pub(crate) fn binary_pieces(
        &self,
        op: BinaryOp,
        (a, la): (&wgpu::Buffer, &Layout),
        (b, lb): (&wgpu::Buffer, &Layout),
        out: &wgpu::Buffer,
        shape: &[usize],
        dtype: DType,
    ) -> Result<bool> {
        let (Some(ma), Some(mb)) = (operand(la, shape), operand(lb, shape)) else {
            return Ok(false);
        };
        let n = la.numel().max(lb.numel()).max(crate::shape::numel(shape));
        let esz = dtype.gpu_size_in_bytes();
        let piece = self.piece_elems(4, GRANULE);
        let mut start = 0;
        while start < n {
            let len = piece.min(n - start);
            let bind = |buf, l: &Layout, m: &Operand| match m {
                Operand::Follows => (span(buf, l.offset() + start, len, esz), 1),
                Operand::Scalar => (span(buf, l.offset(), 1, esz), 0),
            };
            let ((ab, ao), sa) = bind(a, la, &ma);
            let ((bb, bo), sb) = bind(b, lb, &mb);
            // Comparisons write bool words (4 bytes); other ops write the input dtype.
            let (ob, _) = span(out, start, len, if op.is_comparison() { 4 } else { esz });
            let both = sa == 1 && sb == 1;
            if both && [len, ao, bo].iter().all(|v| v % 4 == 0) {
                let p = Binary4Params { count: len / 4, a_offset: ao / 4, b_offset: bo / 4 };
                self.dispatch(KernelKey::Binary4 { op, dtype }, &[ab, bb, ob], &p, self.groups(len / 4, WG)?)?;
            } else {
                let p = BinaryParams {
                    numel: len,
                    rank: 1,
                    a_offset: ao,
                    b_offset: bo,
                    shape: [len, 0, 0, 0, 0, 0, 0, 0],
                    a_strides: [sa, 0, 0, 0, 0, 0, 0, 0],
                    b_strides: [sb, 0, 0, 0, 0, 0, 0, 0],
                    mode: both as usize,
                };
                self.dispatch(
                    KernelKey::Binary { op, dtype, walk: Walk::of(1, len) },
                    &[ab, bb, ob],
                    &p,
                    self.groups(len, WG)?,
                )?;
            }
            start += len;
        }
        Ok(true)
    }

    /// A fill of `n` elements in pieces.
    pub(crate) fn fill_pieces(&self, out: &wgpu::Buffer, n: usize, value: Fill, dtype: DType) -> Result<()> {
        let esz = dtype.gpu_size_in_bytes();
        let piece = self.piece_elems(esz, GRANULE);
        let mut start = 0;
        while start < n {
            let len = piece.min(n - start);
            let (ob, _) = span(out, start, len, esz);
            let p = params::fill(len, value, dtype, start);
            self.dispatch(KernelKey::Fill { dtype }, &[ob], &p, self.groups(len, WG)?)?;
            start += len;
        }
        Ok(())
    }

    /// The first pass of a whole-tensor reduction (one row of `k` elements) in pieces: each
    /// piece folds into its slice of one accumulator per `REDUCE_CHUNK` elements, which the
    /// ordinary passes then reduce.
    pub(crate) fn reduce_pieces(
        self: &Arc<Self>,
        op: ReduceOp,
        src: &wgpu::Buffer,
        offset: usize,
        k: usize,
        dtype: DType,
    ) -> Result<WgpuStorage> {
        let acc = accumulator(dtype);
        let partials = self.alloc(k.div_ceil(REDUCE_CHUNK), acc)?;
        // Pieces are whole multiples of 64 chunks, so each piece's partials start 256-byte
        // aligned (64 accumulators of 4 bytes).
        let piece = self.piece_elems(dtype.gpu_size_in_bytes(), REDUCE_CHUNK * 64);
        let mut start = 0;
        while start < k {
            let len = piece.min(k - start);
            let chunks = len.div_ceil(REDUCE_CHUNK);
            let (sb, so) = span(src, offset + start, len, dtype.gpu_size_in_bytes());
            let (db, _) = span(partials.buffer(), start / REDUCE_CHUNK, chunks, acc.gpu_size_in_bytes());
            let p = ReduceParams { rows: 1, k: len, chunk: REDUCE_CHUNK, chunks, offset: so };
            self.dispatch(KernelKey::Reduce { op, src: dtype, dst: acc }, &[sb, db], &p, self.fold(chunks)?)?;
            start += len;
        }
        Ok(partials)
    }
}

impl WgpuDevice {
    /// The first pass of a reduction over `m` rows of `k` whose source exceeds one binding, in
    /// groups of whole rows. Rows that fold in one pass write straight into `out` (returns
    /// `None`); longer rows write one partial per `REDUCE_CHUNK` into a temporary the ordinary
    /// passes finish (returned). `Ok(Err(()))` when even 128 rows do not fit one binding.
    #[allow(clippy::type_complexity)]
    pub(crate) fn reduce_rows_pieces(
        self: &Arc<Self>,
        op: ReduceOp,
        src: &wgpu::Buffer,
        offset: usize,
        (m, k): (usize, usize),
        dtype: DType,
        out: &WgpuStorage,
    ) -> Result<std::result::Result<Option<WgpuStorage>, ()>> {
        // Output rows start at multiples of 128 rows: 256-byte aligned for 2- and 4-byte values.
        const ROWS: usize = 128;
        let esz = dtype.gpu_size_in_bytes();
        let group = (self.max_binding().saturating_sub(ALIGN) as usize) / (k * esz).max(1) / ROWS * ROWS;
        if group == 0 {
            return Ok(Err(()));
        }
        let chunks = if op.is_arg() { 1 } else { k.div_ceil(REDUCE_CHUNK).max(1) };
        let chunk = if chunks == 1 { k.max(1) } else { REDUCE_CHUNK };
        let acc = accumulator(dtype);
        let (dst, dst_dtype, partials) = if chunks == 1 {
            (out.buffer().clone(), op.output_dtype(dtype), None)
        } else {
            let p = self.alloc(m * chunks, acc)?;
            (p.buffer().clone(), acc, Some(p))
        };
        let mut r0 = 0;
        while r0 < m {
            let rows = group.min(m - r0);
            let (sb, so) = span(src, offset + r0 * k, rows * k, esz);
            let (db, _) = span(&dst, r0 * chunks, rows * chunks, dst_dtype.gpu_size_in_bytes());
            let p = ReduceParams { rows, k, chunk, chunks, offset: so };
            let key = KernelKey::Reduce { op, src: dtype, dst: dst_dtype };
            self.dispatch(key, &[sb, db], &p, self.fold(rows * chunks)?)?;
            r0 += rows;
        }
        Ok(Ok(partials))
    }
}
