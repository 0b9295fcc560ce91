//! `clip_grad_norm_`'s multi-tensor kernels, a fused family (see `op::fused`), as PyTorch's
//! `_foreach_norm` and `_foreach_mul_`: one call takes up to [`TENSORS`] f32 tensors (each
//! bound once, each from its own offset), where the composed form launched per gradient.
//!
//! - [`ForeachOp::SumSquares`]: the sum of the squares of every element of every tensor, a
//!   one-element output, in two deterministic stages on GPUs (foreach.wgsl, foreach.cu): a
//!   workgroup per chunk of [`chunk_len`] elements of one tensor writes its partial sum to
//!   scratch, then one workgroup adds the chunks in order; a call of one chunk is one pass, its
//!   sum written straight to the output. Each square is rounded to f32 before it is added, as
//!   the composed `square` then `sum` rounds it; the CPU adds in f64 (as its sums do).
//! - [`ForeachOp::Scale`]: every tensor times a one-element coefficient tensor (the clipping
//!   coefficient, which stays on the device), written flat: tensor `t` at
//!   [`ForeachArgs::out_start`] of the output, so the scaled gradients are views of one buffer
//!   (which the multi-tensor optimizer step then binds once for all of them).
//!
//! Both parts number their work in chunks, tensor `t`'s from `starts[t]`: a chunk (and so a
//! workgroup) never spans two tensors, so the tensor a workgroup reads is uniform in it.

use super::{Grid, Pass};
use crate::op::param_layout::{kernel_params, KernelParams};

/// Most tensors one call takes: with the coefficient, the output and the scratch, WebGPU's
/// guaranteed eight storage bindings.
pub(crate) const TENSORS: usize = 5;

kernel_params! {
    /// foreach.wgsl / foreach.cu: a pass over up to `TENSORS` tensors.
    struct ForeachParams {
        /// Tensors in the call.
        count,
        /// Tensor t's first element in its input.
        offsets[5],
        /// Tensor t's elements.
        numel[5],
        /// Tensor t's first chunk; `starts[count]` is the number of chunks.
        starts[6],
        /// Elements per chunk.
        chunk_len,
        /// Where the coefficient is in its input (scale).
        coef_offset,
    }
}

/// At most about this many chunks, so the second stage's one workgroup adds few partials.
const MAX_CHUNKS: usize = 1024;

/// Elements per chunk for `n` elements in all: at least 4096 (a workgroup's 256 invocations
/// take 16 each), more where [`MAX_CHUNKS`] would be exceeded.
pub(crate) fn chunk_len(n: usize) -> usize {
    n.div_ceil(MAX_CHUNKS).max(4096)
}

/// What a call computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ForeachOp {
    /// The sum of squares of all the tensors' elements. Inputs: the tensors.
    SumSquares,
    /// Each tensor times the coefficient, flat. Inputs: the tensors (input 0 again in the slots
    /// of absent ones), then the coefficient in slot [`TENSORS`].
    Scale,
}

/// A call over `count` contiguous f32 tensors: tensor `t` is `numel[t]` elements from
/// `offsets[t]` of input `t` (`count` at least 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ForeachArgs {
    pub op: ForeachOp,
    pub count: usize,
    pub numel: [usize; TENSORS],
    pub offsets: [usize; TENSORS],
    /// Where the coefficient is in input [`TENSORS`] (scale).
    pub coef_offset: usize,
}

impl ForeachArgs {
    /// Elements of all the tensors.
    pub(crate) fn total(&self) -> usize {
        self.numel[..self.count].iter().sum()
    }

    /// Where tensor `t` starts in a scale's flat output.
    pub(crate) fn out_start(&self, t: usize) -> usize {
        self.numel[..t].iter().sum()
    }

    /// The parameters: each tensor's first chunk, and the chunks in all.
    fn params(&self) -> ForeachParams {
        let len = chunk_len(self.total());
        let mut p = ForeachParams {
            count: self.count,
            offsets: self.offsets,
            numel: self.numel,
            chunk_len: len,
            coef_offset: self.coef_offset,
            ..ForeachParams::default()
        };
        for t in 0..self.count {
            p.starts[t + 1] = p.starts[t] + self.numel[t].div_ceil(len);
        }
        p
    }

    /// Chunks in all (the first stage's partial sums).
    pub(crate) fn chunks(&self) -> usize {
        self.params().starts[self.count].max(1)
    }

    /// Sum of squares: partial sums a workgroup per chunk (part 0), then their sum (part 1);
    /// part 0 alone for one chunk. Scale: a workgroup per chunk (part 2).
    pub(crate) fn passes(&self) -> Vec<Pass> {
        let p = self.params();
        let chunks = self.chunks();
        match self.op {
            ForeachOp::Scale => vec![Pass { part: 2, words: p.words(), grid: Grid::Groups(chunks) }],
            ForeachOp::SumSquares => {
                let first = Pass { part: 0, words: p.words(), grid: Grid::Groups(chunks) };
                if chunks == 1 {
                    return vec![first];
                }
                vec![first, Pass { part: 1, words: p.words(), grid: Grid::Groups(1) }]
            }
        }
    }

    /// The CPU's sum of squares of one tensor: each square rounded to f32, added in f64 over
    /// eight lanes.
    pub(crate) fn cpu_sum_squares(x: &[f32]) -> f64 {
        let mut lanes = [0f64; 8];
        let mut chunks = x.chunks_exact(8);
        for c in chunks.by_ref() {
            for (acc, &v) in lanes.iter_mut().zip(c) {
                *acc += f64::from(v * v);
            }
        }
        let rest: f64 = chunks.remainder().iter().map(|&v| f64::from(v * v)).sum();
        lanes.iter().sum::<f64>() + rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(numel: &[usize]) -> ForeachArgs {
        let mut a = ForeachArgs {
            op: ForeachOp::SumSquares,
            count: numel.len(),
            numel: [0; TENSORS],
            offsets: [0; TENSORS],
            coef_offset: 0,
        };
        a.numel[..numel.len()].copy_from_slice(numel);
        a
    }

    #[test]
    fn a_chunk_holds_elements_of_one_tensor() {
        // 10 + 5000 elements: one chunk for the first, two for the second (4096 each).
        let a = args(&[10, 5000]);
        let p = a.params();
        assert_eq!(p.chunk_len, 4096);
        assert_eq!(&p.starts[..3], &[0, 1, 3]);
        assert_eq!(a.chunks(), 3);
        assert_eq!(a.passes().len(), 2);
        assert_eq!(a.out_start(1), 10);
        assert_eq!(a.total(), 5010);
    }

    #[test]
    fn the_parameter_arrays_hold_every_tensor() {
        let len = |name| ForeachParams::FIELDS.iter().find(|f| f.name == name).map(|f| f.len);
        assert_eq!(len("offsets"), Some(TENSORS));
        assert_eq!(len("numel"), Some(TENSORS));
        assert_eq!(len("starts"), Some(TENSORS + 1));
    }

    #[test]
    fn one_chunk_is_one_pass_and_scale_is_one_pass() {
        assert_eq!(args(&[7]).passes().len(), 1);
        let mut a = args(&[1 << 20, 3, 1 << 22]);
        a.op = ForeachOp::Scale;
        let passes = a.passes();
        assert_eq!(passes.len(), 1);
        assert_eq!(passes[0].part, 2);
        // Chunks grow past 4096 so the count stays near MAX_CHUNKS (one more per tensor).
        assert!(a.chunks() <= MAX_CHUNKS + TENSORS, "{}", a.chunks());
    }
}
