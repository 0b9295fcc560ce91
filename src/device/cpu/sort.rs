//! Sorting rows on the CPU: the reference for the GPU's bitonic sort. Each row's positions are
//! sorted by the shared key (`op::sort`), stably, so ties keep input order on every backend.

use super::{par, reserve, CpuStorage};
use crate::dtype::{CpuData, DType};
use crate::error::Result;
use crate::op::sort::{f16_key, f32_key, i32_key};

/// The positions (i32) of each of the `m` rows of `k` elements starting at `offset`, in
/// ascending or descending key order; equal keys keep their order.
pub(crate) fn argsort(src: &CpuStorage, offset: usize, m: usize, k: usize, descending: bool) -> Result<CpuStorage> {
    reserve(m * k, DType::I32)?;
    let keys: Vec<u32> = {
        let range = offset..offset + m * k;
        match src.data() {
            CpuData::F32(v) => v[range].iter().map(|x| f32_key(x.to_bits())).collect(),
            CpuData::F16(v) => v[range].iter().map(|x| f16_key(x.to_bits())).collect(),
            CpuData::I32(v) => v[range].iter().map(|&x| i32_key(x)).collect(),
            CpuData::U32(v) => v[range].to_vec(),
            CpuData::Bool(v) | CpuData::U8(v) => v[range].iter().map(|&x| x as u32).collect(),
            CpuData::I8(v) => v[range].iter().map(|&x| i32_key(x as i32)).collect(),
        }
    };
    let flip = if descending { u32::MAX } else { 0 };
    let parts = par::ranges(m, k.max(1) * 16, |rows| {
        let mut out = Vec::with_capacity(rows.len() * k);
        for r in rows {
            let row = &keys[r * k..(r + 1) * k];
            let mut pos: Vec<i32> = (0..k as i32).collect();
            // `sort_by_key` is stable: equal keys stay in position order either way. Descending
            // is ascending on the keys' complement: one sort instantiation, not two (each is
            // ~5 KB of .wasm).
            pos.sort_by_key(|&i| row[i as usize] ^ flip);
            out.extend(pos);
        }
        out
    });
    CpuStorage::new(CpuData::I32(parts.concat()))
}
