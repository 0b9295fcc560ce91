//! Gradients that arrive in pieces: the backward of a narrow view (`narrow`, `split`, `chunk`,
//! slicing) is its gradient placed at `start` along `dim` of the input's shape, zeros
//! elsewhere. Padding each piece with zeros and summing them, as a rule would, costs a fill, a
//! concatenation and a full-size add per piece: a transformer's `qkv.split(C, 2)` paid 4
//! fills, 3 concatenations and 2 adds of `[B, T, 3C]` a layer. Here the pieces meeting at a
//! node are kept apart until the node runs, then joined by one concatenation (zeros only in
//! the gaps), which is PyTorch's `SplitBackward` (one `cat`) for every way of narrowing.

use std::sync::Arc;

use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;

/// A gradient on its way to a node or leaf.
pub(super) enum Grad {
    /// The whole gradient.
    Dense(Tensor),
    /// Pieces along `dim` of a gradient of `shape`: `(start, piece)`, zeros between.
    Pieces { dim: usize, shape: Vec<usize>, parts: Vec<(usize, Tensor)> },
}

/// The whole gradient without a copy, when the pieces are views of one storage that sit
/// exactly where a contiguous gradient's stretches would (what the fused attention's backward
/// writes for a `qkv` split: the three gradients side by side in one buffer). `parts` sorted.
fn adjacent(dim: usize, shape: &[usize], parts: &[(usize, Tensor)]) -> Option<Tensor> {
    let (start0, first) = parts.first()?;
    let full = Layout::contiguous(shape);
    let base = first.layout().offset().checked_sub(start0 * full.strides()[dim])?;
    let full = Layout::strided(shape, full.strides(), base);
    let mut at = 0;
    for (start, part) in parts {
        let len = part.shape()[dim];
        let same = Arc::ptr_eq(part.storage(), first.storage()) && part.dtype() == first.dtype();
        if *start != at || !same || full.narrow("backward", dim as isize, at, len).ok()? != *part.layout() {
            return None;
        }
        at += len;
    }
    (at == shape[dim]).then(|| first.aliasing(full))
}

impl Grad {
    /// The sum of two gradients of one tensor: pieces along the same dim stay pieces.
    pub(super) fn add(self, other: Grad) -> Result<Grad> {
        match (self, other) {
            (Grad::Pieces { dim, shape, mut parts }, Grad::Pieces { dim: d2, shape: s2, parts: p2 })
                if dim == d2 && shape == s2 =>
            {
                parts.extend(p2);
                Ok(Grad::Pieces { dim, shape, parts })
            }
            (a, b) => Ok(Grad::Dense(a.dense()?.add(&b.dense()?)?)),
        }
    }

    /// The gradient as one tensor: the pieces in order with zeros in the gaps, concatenated
    /// once; pieces that overlap (the same stretch narrowed twice) are summed as well.
    pub(super) fn dense(self) -> Result<Tensor> {
        let (dim, shape, mut parts) = match self {
            Grad::Dense(t) => return Ok(t),
            Grad::Pieces { dim, shape, parts } => (dim, shape, parts),
        };
        // By start: an insertion sort, as there are a few pieces (and no sort instance in the .wasm).
        for i in 1..parts.len() {
            let mut j = i;
            while j > 0 && parts[j - 1].0 > parts[j].0 {
                parts.swap(j - 1, j);
                j -= 1;
            }
        }
        let total = shape[dim];
        let overlap = parts.windows(2).any(|w| w[0].0 + w[0].1.shape()[dim] > w[1].0);
        if overlap {
            let mut sum: Option<Tensor> = None;
            for (start, g) in parts {
                let one = Grad::Pieces { dim, shape: shape.clone(), parts: vec![(start, g)] }.dense()?;
                sum = Some(match sum {
                    Some(s) => s.add(&one)?,
                    None => one,
                });
            }
            return match sum {
                Some(s) => Ok(s),
                None => Err(crate::error::Error::invalid("backward", "internal: a gradient without pieces")),
            };
        }
        if let Some(whole) = adjacent(dim, &shape, &parts) {
            return Ok(whole);
        }
        let Some(like) = parts.first().map(|p| p.1.clone()) else {
            return Err(crate::error::Error::invalid("backward", "internal: a gradient without pieces"));
        };
        let zeros = |n: usize| {
            let mut s = shape.clone();
            s[dim] = n;
            like.new_zeros(&s)
        };
        let mut all = Vec::with_capacity(2 * parts.len() + 1);
        let mut at = 0;
        for (start, g) in parts {
            if start > at {
                all.push(zeros(start - at)?);
            }
            at = start + g.shape()[dim];
            all.push(g);
        }
        if at < total {
            all.push(zeros(total - at)?);
        }
        if all.len() == 1 {
            if let Some(only) = all.pop() {
                return Ok(only);
            }
        }
        Tensor::cat(&all, dim as isize)
    }
}
