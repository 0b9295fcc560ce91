//! The least and the greatest value of an index tensor, a fused family (see `op::fused`): the
//! queued range check of an indexed op on a GPU (`tensor::checks`), one call where the composed
//! form launched a minimum, a maximum (two stages each past one chunk) and a `cat` of the two.
//! Values equal to an ignored one (cross-entropy's `ignore_index`) are skipped, which also
//! saves the loss the masking of its targets. Two deterministic stages on GPUs
//! (index_range.wgsl, index_range.cu), as `foreach`'s sums: a workgroup per chunk of
//! [`super::foreach::chunk_len`] elements writes its pair to scratch (of the index dtype), then
//! one workgroup folds the pairs; a single chunk's pair goes straight to the output. A tensor
//! whose values are all skipped gives `[0, 0]` (in range wherever any index is).

use super::foreach::chunk_len;
use super::{Grid, Pass};
use crate::dtype::DType;
use crate::op::param_layout::{kernel_params, KernelParams};

kernel_params! {
    /// index_range.wgsl / index_range.cu: a stage of the index's range.
    struct IndexRangeParams {
        numel,
        src_offset,
        /// Chunks of `chunk_len` elements, each a pair in scratch.
        chunks,
        chunk_len,
        /// 1: skip the values equal to `ignore` (its bits as the index dtype's).
        ignore_on,
        ignore,
    }
}

/// `[min, max]` of `n` contiguous i32 or u32 elements from `src_offset`, skipping `ignore`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IndexRangeArgs {
    pub n: usize,
    pub src_offset: usize,
    pub ignore: Option<i32>,
    /// I32 or U32.
    pub dtype: DType,
}

impl IndexRangeArgs {
    /// Chunks of the first stage (at least one).
    pub(crate) fn chunks(&self) -> usize {
        self.n.div_ceil(chunk_len(self.n)).max(1)
    }

    /// Partial pairs a workgroup per chunk (part 0), then their fold (part 1); part 0 alone for
    /// one chunk.
    pub(crate) fn passes(&self) -> Vec<Pass> {
        let p = IndexRangeParams {
            numel: self.n,
            src_offset: self.src_offset,
            chunks: self.chunks(),
            chunk_len: chunk_len(self.n),
            ignore_on: usize::from(self.ignore.is_some()),
            ignore: self.ignore.map_or(0, |i| i as u32 as usize),
        };
        let first = Pass { part: 0, words: p.words(), grid: Grid::Groups(self.chunks()) };
        if self.chunks() == 1 {
            return vec![first];
        }
        vec![first, Pass { part: 1, words: p.words(), grid: Grid::Groups(1) }]
    }

    /// The CPU's kernel over the elements widened to i64: `[min, max]` of those not ignored,
    /// `[0, 0]` where there are none.
    pub(crate) fn cpu(&self, values: impl Iterator<Item = i64>) -> [i64; 2] {
        let ignore = self.ignore.map(i64::from);
        let (lo, hi) =
            values.filter(|&v| Some(v) != ignore).fold((i64::MAX, i64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
        if lo > hi {
            [0, 0]
        } else {
            [lo, hi]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignored_values_are_skipped_and_none_left_is_zero() {
        let a = IndexRangeArgs { n: 4, src_offset: 0, ignore: Some(-100), dtype: DType::I32 };
        assert_eq!(a.cpu([3, -100, 7, 1].into_iter()), [1, 7]);
        assert_eq!(a.cpu([-100, -100].into_iter()), [0, 0]);
        let b = IndexRangeArgs { ignore: None, ..a };
        assert_eq!(b.cpu([3, -100].into_iter()), [-100, 3]);
    }

    #[test]
    fn chunks_and_passes() {
        let a = IndexRangeArgs { n: 4096, src_offset: 0, ignore: None, dtype: DType::U32 };
        assert_eq!((a.chunks(), a.passes().len()), (1, 1));
        let b = IndexRangeArgs { n: 4097, ..a };
        assert_eq!((b.chunks(), b.passes().len()), (2, 2));
    }
}
