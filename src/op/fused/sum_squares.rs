//! The sum of squares of an f32 tensor (`clip_grad_norm_`'s 2-norms), a fused family (see
//! `op::fused`): one pass where the composed formula squares into a temporary of the tensor's
//! size and then sums it. Two deterministic stages on GPUs (sum_squares.wgsl, sum_squares.cu):
//! a workgroup per chunk of [`chunk_len`] elements writes its partial sum to scratch, then one
//! workgroup adds the chunks in order; a tensor of one chunk (most biases and norms' weights)
//! is one pass, its sum written straight to the output. Each square is rounded to f32 before it is added, as the
//! composed `square` then `sum` rounds it; the CPU adds in f64 (as its sums do).

use super::{Grid, Pass};
use crate::op::param_layout::{kernel_params, KernelParams};

kernel_params! {
    /// sum_squares.wgsl / sum_squares.cu: a stage of the sum of squares.
    struct SumSquaresParams {
        numel,
        src_offset,
        /// Chunks of `chunk_len` elements, each a partial sum in scratch.
        chunks,
        chunk_len,
    }
}

/// At most this many chunks, so the second stage's one workgroup adds few partials.
const MAX_CHUNKS: usize = 1024;

/// Elements per chunk: at least 4096 (a workgroup's 256 invocations take 16 each), more where
/// [`MAX_CHUNKS`] would be exceeded.
pub(crate) fn chunk_len(n: usize) -> usize {
    n.div_ceil(MAX_CHUNKS).max(4096)
}

/// The sum of squares of `n` contiguous f32 elements from `src_offset` on: a 1-element output.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SumSquaresArgs {
    pub n: usize,
    pub src_offset: usize,
}

impl SumSquaresArgs {
    /// Chunks of the first stage.
    pub(crate) fn chunks(&self) -> usize {
        self.n.div_ceil(chunk_len(self.n)).max(1)
    }

    /// The two stages: partial sums a workgroup per chunk (part 0), then their sum (part 1);
    /// part 0 alone for one chunk.
    pub(crate) fn passes(&self) -> Vec<Pass> {
        let p = SumSquaresParams {
            numel: self.n,
            src_offset: self.src_offset,
            chunks: self.chunks(),
            chunk_len: chunk_len(self.n),
        };
        let first = Pass { part: 0, words: p.words(), grid: Grid::Groups(self.chunks()) };
        if self.chunks() == 1 {
            return vec![first];
        }
        vec![first, Pass { part: 1, words: p.words(), grid: Grid::Groups(1) }]
    }

    /// The CPU's kernel: each square rounded to f32, added in f64 over eight lanes.
    pub(crate) fn cpu(x: &[f32]) -> f32 {
        let mut lanes = [0f64; 8];
        let mut chunks = x.chunks_exact(8);
        for c in chunks.by_ref() {
            for (acc, &v) in lanes.iter_mut().zip(c) {
                *acc += f64::from(v * v);
            }
        }
        let rest: f64 = chunks.remainder().iter().map(|&v| f64::from(v * v)).sum();
        (lanes.iter().sum::<f64>() + rest) as f32
    }
}
