//! Sorting rows on the CPU: the reference for the GPU's bitonic sort. Each row's positions are
//! sorted by the shared key (`op::sort`), stably, so ties keep input order on every backend.

use super::{par, reserve, CpuStorage};
use crate::dtype::{CpuData, DType};
use crate::error::Result;
use crate::op::sort::{f16_key, f32_key, i32_key};

/// The first `keep` positions (i32) of each of the `m` rows of `k` elements starting at
/// `offset`, in ascending or descending key order; equal keys keep their order. `keep < k`
/// (topk) selects the first `keep` in linear time and sorts only those.
pub(crate) fn argsort(
    src: &CpuStorage,
    offset: usize,
    (m, k): (usize, usize),
    descending: bool,
    keep: usize,
) -> Result<CpuStorage> {
    let keep = keep.min(k);
    reserve(m * keep, DType::I32)?;
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
        let mut out = Vec::with_capacity(rows.len() * keep);
        let mut packed = Vec::with_capacity(k);
        for r in rows {
            // Key over position in one u64: an unstable sort of plain integers then orders equal
            // keys by position, which is the stable order (and descending is ascending on the
            // keys' complement). Sorting positions by a looked-up key took 44 us a row of 1024
            // in wasm.
            packed.clear();
            packed.extend(keys[r * k..(r + 1) * k].iter().zip(0u64..).map(|(&key, i)| ((key ^ flip) as u64) << 32 | i));
            if keep < k {
                packed.select_nth_unstable(keep);
                packed.truncate(keep);
            }
            packed.sort_unstable();
            out.extend(packed.iter().map(|&p| p as u32 as i32));
        }
        out
    });
    CpuStorage::new(CpuData::I32(parts.concat()))
}
