//! The sort order, one source of truth for every backend: each element maps to a `u32` key whose
//! unsigned order is PyTorch's sort order. NaN (of either sign) sorts above `+inf`, `-0` equals
//! `+0` (so a stable sort keeps them in input order), integers sort by value. The CPU functions,
//! the WGSL and the CUDA C below say the same thing; keys are computed from the stored bits, so
//! no compiler's NaN or subnormal assumptions can reorder anything.

use super::params::SelectParams;
use crate::dtype::DType;

/// The key of an f32 with these bits.
pub(crate) fn f32_key(bits: u32) -> u32 {
    let mag = bits & 0x7fff_ffff;
    if mag > 0x7f80_0000 {
        u32::MAX
    } else if mag == 0 {
        0x8000_0000
    } else if bits >> 31 == 1 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

/// The key of an f16 with these bits (16-bit keys, in the same order as f32's).
pub(crate) fn f16_key(bits: u16) -> u32 {
    let (bits, mag) = (bits as u32, (bits & 0x7fff) as u32);
    if mag > 0x7c00 {
        0xffff
    } else if mag == 0 {
        0x8000
    } else if bits >> 15 == 1 {
        !bits & 0xffff
    } else {
        bits | 0x8000
    }
}

/// The key of an i32.
pub(crate) fn i32_key(x: i32) -> u32 {
    (x as u32) ^ 0x8000_0000
}

/// WGSL `fn key(i: u32) -> u32`: the key of element `i` of `src`, which sort.wgsl binds as
/// `array<u32>` whatever the dtype (f16 elements are read as halves of a word, so the kernel
/// needs no `shader-f16`).
pub(crate) fn wgsl_key(dtype: DType) -> String {
    let float = |bits: &str, sign: u32, inf: u32, all: u32| {
        format!(
            "let b = {bits}; let mag = b & {:#x}u;\n    if (mag > {inf:#x}u) {{ return {all:#x}u; }}\n    \
             if (mag == 0u) {{ return {sign:#x}u; }}\n    \
             if ((b & {sign:#x}u) != 0u) {{ return ~b & {all:#x}u; }}\n    return b | {sign:#x}u;",
            sign - 1
        )
    };
    let body = match dtype {
        DType::F32 => float("src[i]", 0x8000_0000, 0x7f80_0000, 0xffff_ffff),
        DType::F16 => float("(src[i / 2u] >> (16u * (i % 2u))) & 0xffffu", 0x8000, 0x7c00, 0xffff),
        DType::I32 | DType::I8 => "return src[i] ^ 0x80000000u;".into(),
        DType::U32 | DType::Bool | DType::U8 => "return src[i];".into(),
    };
    format!("fn key(i: u32) -> u32 {{\n    {body}\n}}\n")
}

/// CUDA `unsigned key(S x)`: the key of one stored element (`S` is the storage type).
pub(crate) fn cuda_key(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => {
            "__device__ __forceinline__ unsigned key(S x) { unsigned b = __float_as_uint(x), mag = b & 0x7fffffffu;
    if (mag > 0x7f800000u) return 0xffffffffu;
    if (mag == 0u) return 0x80000000u;
    return (b >> 31) ? ~b : (b | 0x80000000u); }\n"
        }
        DType::F16 => {
            "__device__ __forceinline__ unsigned key(S x) { unsigned b = x, mag = b & 0x7fffu;
    if (mag > 0x7c00u) return 0xffffu;
    if (mag == 0u) return 0x8000u;
    return (b >> 15) ? (~b & 0xffffu) : (b | 0x8000u); }\n"
        }
        DType::I32 | DType::I8 => {
            "__device__ __forceinline__ unsigned key(S x) { return (unsigned)x ^ 0x80000000u; }\n"
        }
        DType::U32 | DType::Bool | DType::U8 => "__device__ __forceinline__ unsigned key(S x) { return x; }\n",
    }
}

/// The `(k, j)` steps of the bitonic network that sort.wgsl and sort.cu run over rows padded to
/// `np` (a power of two) positions, in order, after the first step `(0, 0)` that writes each
/// row's indices: merges of size `k = 2, 4, .., np`, each in compare distances `j = k/2, .., 1`.
pub(crate) fn bitonic_steps(np: usize) -> impl Iterator<Item = (usize, usize)> {
    std::iter::successors(Some(2), |&k| Some(k * 2))
        .take_while(move |&k| k <= np)
        .flat_map(|k| std::iter::successors(Some(k / 2), |&j| (j > 1).then_some(j / 2)).map(move |j| (k, j)))
}

/// The most positions a GPU's top-k selection keeps per row (select.wgsl's and select.cu's
/// `MAX_KEEP`); a larger k sorts whole rows and narrows.
pub(crate) const SELECT_MAX_KEEP: usize = 32;

/// One GPU top-k selection (select.wgsl, select.cu) of `keep` from each of `m` rows of `k`: how
/// the rows are cut into chunks and each pass's params, the same for every backend.
pub(crate) struct SelectPlan {
    /// Chunks per row: 1 means the first pass writes the result and no merge runs.
    pub(crate) nchunks: usize,
    /// The kernels' params (of the first pass).
    params: SelectParams,
}

impl SelectPlan {
    /// The plan for about `threads` threads, or an internal error unless `keep` fits the
    /// kernels (callers send larger k to the full sort).
    pub(crate) fn new(
        (m, k): (usize, usize),
        offset: usize,
        descending: bool,
        keep: usize,
        threads: usize,
    ) -> crate::error::Result<Self> {
        if keep > SELECT_MAX_KEEP || keep > k {
            return Err(crate::error::Error::invalid(
                "topk",
                format!("internal: select of {keep} of {k} (at most {SELECT_MAX_KEEP})"),
            ));
        }
        let (nchunks, chunk) = select_chunks(m, k, keep, threads);
        let params = SelectParams {
            rows: m,
            len: k,
            offset,
            descending: descending as usize,
            keep,
            chunks: nchunks,
            chunk,
            merge: 0,
        };
        Ok(SelectPlan { nchunks, params })
    }

    /// The params of the first pass (chunks of the rows) or of the merge.
    pub(crate) fn params(&self, merge: bool) -> SelectParams {
        SelectParams { merge: merge as usize, ..self.params }
    }
}

/// How a GPU's top-k selection of `keep` from `m` rows of `k` cuts rows into chunks so that
/// about `threads` threads run: `(nchunks, chunk)`, chunks of at least 64 positions and of
/// 4 `keep`, and at most 4096 candidates a row, which one thread of the second pass reads (a
/// single row of 1M would otherwise leave it 262,144), the last chunk possibly shorter.
pub(crate) fn select_chunks(m: usize, k: usize, keep: usize, threads: usize) -> (usize, usize) {
    const MAX_CANDIDATES: usize = 4096;
    let most = (k / (4 * keep).max(64)).min(MAX_CANDIDATES / keep.max(1)).max(1);
    let chunk = k.div_ceil(threads.div_ceil(m.max(1)).clamp(1, most)).max(1);
    (k.div_ceil(chunk), chunk)
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    #[test]
    fn bitonic_steps_halve_distances_within_doubling_merges() {
        assert_eq!(bitonic_steps(1).count(), 0);
        assert_eq!(bitonic_steps(8).collect::<Vec<_>>(), [(2, 1), (4, 2), (4, 1), (8, 4), (8, 2), (8, 1)]);
        // log2(np) (log2(np) + 1) / 2 steps.
        assert_eq!(bitonic_steps(1 << 10).count(), 55);
    }

    #[test]
    fn select_chunks_cover_rows_and_bound_the_merge() {
        for (m, k, keep, threads) in [
            (1, 1 << 20, 32, 16384),
            (1, 1 << 20, 1, 1024),
            (1024, 1024, 8, 1024),
            (3, 70_000, 5, 16384),
            (5, 40, 32, 1024),
        ] {
            let (n, chunk) = select_chunks(m, k, keep, threads);
            assert!(
                n * chunk >= k && (n - 1) * chunk < k,
                "chunks cover the row once: {m} {k} {keep} -> {n} x {chunk}"
            );
            assert!(n == 1 || (chunk >= 4 * keep && chunk >= 64), "chunks keep their k: {n} x {chunk}");
            assert!(n * keep <= 4096 || n == 1, "a row's candidates stay few: {n} x {keep}");
        }
    }

    #[test]
    fn keys_order_as_pytorch_sorts() {
        let xs = [f32::NEG_INFINITY, -3.0, -1e-40, -0.0, 0.0, 1e-40, 2.0, f32::INFINITY, f32::NAN, -f32::NAN];
        let keys: Vec<u32> = xs.iter().map(|x| f32_key(x.to_bits())).collect();
        for w in keys.windows(2) {
            assert!(w[0] <= w[1], "{keys:x?}");
        }
        assert_eq!(keys[3], keys[4], "-0 and +0 tie");
        assert_eq!(keys[8], keys[9], "every NaN ties");
        let hs: Vec<u32> = xs.iter().map(|&x| f16_key(f16::from_f32(x).to_bits())).collect();
        for w in hs.windows(2) {
            assert!(w[0] <= w[1], "{hs:x?}");
        }
        assert!(i32_key(i32::MIN) < i32_key(-1) && i32_key(-1) < i32_key(0) && i32_key(0) < i32_key(i32::MAX));
    }
}
