//! Kernels that run in one pass what wgpu otherwise composes (`KernelCall::Clamp`, `Pad`):
//! clamp with both bounds (clamp4.wgsl) and constant padding (pad.wgsl).

use std::sync::Arc;

use super::context::Bind;
use super::kernels::{aligned4, MAP_ROW_MIN_LEN, MAP_ROW_MIN_ROWS};
use super::{WgpuDevice, WgpuStorage};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::op::params::Clamp4Params;
use crate::shaders::{params, KernelKey, Walk, WG};
use crate::shape::numel;

impl WgpuDevice {
    /// f32 `l` over `src` clamped to `[lo, hi]` by one kernel (clamp4.wgsl), or None where it
    /// does not apply (strided, unaligned or split across bindings): the caller then composes
    /// a maximum and a minimum, two passes over the data where TF.js's clip makes one.
    pub(crate) fn clamp_f32(
        self: &Arc<Self>,
        src: &WgpuStorage,
        l: &Layout,
        lo: f32,
        hi: f32,
    ) -> Result<Option<WgpuStorage>> {
        let n = l.numel();
        // NaN bounds (every output NaN) take the composed path; clamp4.wgsl assumes numbers.
        let fits = src.dtype() == DType::F32
            && l.is_contiguous()
            && n > 0
            && aligned4(&[n, l.offset()])
            && !lo.is_nan()
            && !hi.is_nan();
        if !fits || self.too_big(n, 4) || self.exceeds(&[src.buffer()]) {
            return Ok(None);
        }
        let out = self.alloc(n, DType::F32)?;
        if self.exceeds(&[out.buffer()]) {
            return Ok(None);
        }
        let p = Clamp4Params {
            count: n / 4,
            offset: l.offset() / 4,
            lo_bits: lo.to_bits() as usize,
            hi_bits: hi.to_bits() as usize,
        };
        let bufs = [Bind::whole(src.buffer()), Bind::whole(out.buffer())];
        self.dispatch(KernelKey::Clamp4, &bufs, &p, self.vec4_groups(n)?)?;
        Ok(Some(out))
    }

    /// f32 `l` over `src` padded with `value` into `shape` (`before[d]` entries of it ahead in
    /// each dim) by one kernel (pad.wgsl), or None where the data spans more than one binding:
    /// the caller then pads by `cat`s, which write the data once per padded dim.
    pub(crate) fn pad_f32(
        self: &Arc<Self>,
        src: &WgpuStorage,
        l: &Layout,
        before: &[usize],
        shape: &[usize],
        value: f32,
    ) -> Result<Option<WgpuStorage>> {
        let n = numel(shape);
        let small = n > 0 && shape.len() <= params::MAX_RANK;
        if src.dtype() != DType::F32 || !small || self.too_big(n, 4) || self.exceeds(&[src.buffer()]) {
            return Ok(None);
        }
        let mut p = params::pad(l, before, shape)?;
        // A thread per row where a strided map would take one (software adapters): padding
        // [1024, 1024] by 1 in both dims took 24.5 ms a thread per element, 2.2 a thread per
        // row, 8.1 by the cats this replaces (chained, Node, Dawn on lavapipe).
        if self.software() {
            params::pad_rows(&mut p, MAP_ROW_MIN_LEN, MAP_ROW_MIN_ROWS);
        }
        p.value_bits = value.to_bits() as usize;
        let out = self.alloc(n, DType::F32)?;
        if self.exceeds(&[out.buffer()]) {
            return Ok(None);
        }
        let bufs = [Bind::whole(src.buffer()), Bind::whole(out.buffer())];
        let groups = self.groups(p.numel, WG)?;
        self.dispatch(KernelKey::Pad { walk: Walk::of(shape.len(), n) }, &bufs, &p, groups)?;
        Ok(Some(out))
    }
}
