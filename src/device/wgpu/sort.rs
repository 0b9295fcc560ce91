//! Sorting on wgpu: the stable bitonic argsort of rows (sort.wgsl) and top-k selection
//! (select.wgsl), which reads each row once where the network makes log2(k)^2/2 passes.

use std::sync::Arc;

use super::context::Bind;
use super::{WgpuDevice, WgpuStorage};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::op::params::SortParams;
use crate::op::sort::{bitonic_steps, SelectPlan};
use crate::op::MapOp;
use crate::shaders::{KernelKey, WG};

/// Threads a selection pass aims for: software adapters run a few cores' SIMD lanes, hardware
/// GPUs need many more in flight.
const SELECT_THREADS_SOFTWARE: usize = 1024;
const SELECT_THREADS_HARDWARE: usize = 16384;

impl WgpuDevice {
    /// Stable argsort of each row of a contiguous [m, k] view (sort.wgsl): a bitonic network over
    /// rows padded to a power of two, one dispatch per step, then the padding dropped.
    pub(super) fn bitonic_argsort(
        self: &Arc<Self>,
        src: &WgpuStorage,
        l: &Layout,
        m: usize,
        k: usize,
        descending: bool,
    ) -> Result<WgpuStorage> {
        if m * k == 0 {
            return self.alloc(0, DType::I32);
        }
        // Rows are padded to a power of two for the bitonic network; the index buffer and the
        // source must each fit one binding.
        let np = k.next_power_of_two();
        if self.too_big(m * np, 4) || self.exceeds(&[src.buffer()]) {
            return Err(Error::TooLarge {
                op: "argsort",
                device: self.name(),
                bytes: (m * np * 4).max(src.buffer().size() as usize) as u64,
                limit_name: "max_storage_buffer_binding_size (rows padded to a power of two, as i32)",
                limit: self.max_binding(),
            });
        }
        let work = self.alloc(m * np, DType::I32)?;
        let key = KernelKey::Sort { dtype: src.dtype() };
        let binds = [Bind::whole(src.buffer()), Bind::whole(work.buffer())];
        let step = |kk: usize, j: usize, threads: usize| {
            let p = SortParams { rows: m, len: k, np, offset: l.offset(), descending: descending as usize, kk, j };
            self.dispatch(key, &binds, &p, self.groups(threads, WG)?)
        };
        step(0, 0, m * np)?;
        for (kk, j) in bitonic_steps(np) {
            step(kk, j, m * np / 2)?;
        }
        if np == k {
            return Ok(work);
        }
        // Drop the padding: the first k positions of each row, copied out contiguously.
        let out = self.alloc(m * k, DType::I32)?;
        let rows = Layout::contiguous(&[m, np]).narrow("argsort", 1, 0, k)?;
        let dst = Layout::contiguous(&[m, k]);
        self.launch_map(MapOp::Cast, (work.buffer(), &rows, DType::I32), (out.buffer(), &dst, DType::I32))?;
        Ok(out)
    }

    /// The first `keep` (at most `op::sort::SELECT_MAX_KEEP`) positions of each row of a contiguous
    /// [m, k] view in the stable sort's order, as i32 [m, keep] (select.wgsl). Long rows are cut
    /// into chunks so that enough threads run: each keeps its chunk's best `keep`, and a second
    /// pass picks each row's best among them.
    pub(crate) fn select_top(
        self: &Arc<Self>,
        src: &WgpuStorage,
        l: &Layout,
        (m, k): (usize, usize),
        descending: bool,
        keep: usize,
    ) -> Result<WgpuStorage> {
        if m * keep == 0 {
            return self.alloc(0, DType::I32);
        }
        let threads = if self.software() { SELECT_THREADS_SOFTWARE } else { SELECT_THREADS_HARDWARE };
        let plan = SelectPlan::new((m, k), l.offset(), descending, keep, threads)?;
        let key = KernelKey::Select { dtype: src.dtype() };
        let first = self.alloc(m * plan.nchunks * keep, DType::I32)?;
        let binds = [Bind::whole(src.buffer()), Bind::whole(src.buffer()), Bind::whole(first.buffer())];
        self.dispatch(key, &binds, &plan.params(false), self.groups(m * plan.nchunks, WG)?)?;
        if plan.nchunks == 1 {
            return Ok(first);
        }
        let out = self.alloc(m * keep, DType::I32)?;
        let binds = [Bind::whole(src.buffer()), Bind::whole(first.buffer()), Bind::whole(out.buffer())];
        self.dispatch(key, &binds, &plan.params(true), self.groups(m, WG)?)?;
        Ok(out)
    }
}
