//! `Layout`: shape, strides and offset into a storage. Every view (reshape of a contiguous
//! tensor, permute, narrow, expand, ...) is a new layout over the same storage. Pure.

use crate::error::{Error, Result};
use crate::shape::{self, contiguous_strides, normalize_dim};

/// How a tensor's elements are found in its storage: element `idx` lives at
/// `offset + sum(idx[i] * strides[i])`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    shape: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
}

impl Layout {
    /// A row-major contiguous layout at offset 0.
    pub fn contiguous(shape: &[usize]) -> Self {
        Layout { shape: shape.to_vec(), strides: contiguous_strides(shape), offset: 0 }
    }

    /// The view of a contiguous tensor of `outer` shape whose region of `inner` shape starts
    /// `before[d]` entries into each dim (padding's interior).
    pub(crate) fn interior(outer: &[usize], before: &[usize], inner: &[usize]) -> Self {
        let strides = crate::shape::contiguous_strides(outer);
        let offset = before.iter().zip(&strides).map(|(b, s)| b * s).sum();
        Layout { shape: inner.to_vec(), strides, offset }
    }

    /// A layout with explicit strides and offset (the caller guarantees they stay in bounds).
    pub(crate) fn strided(shape: &[usize], strides: &[usize], offset: usize) -> Self {
        Layout { shape: shape.to_vec(), strides: strides.to_vec(), offset }
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The strides, in elements.
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }

    /// The offset of element 0, in elements.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        shape::numel(&self.shape)
    }

    /// Whether the elements are stored densely in row-major order (size-1 dims may have any
    /// stride).
    pub fn is_contiguous(&self) -> bool {
        if self.numel() == 0 {
            return true;
        }
        let mut acc = 1;
        for (&d, &s) in self.shape.iter().zip(&self.strides).rev() {
            if d != 1 && s != acc {
                return false;
            }
            acc *= d;
        }
        true
    }

    /// Strides that read this layout broadcast to `target` (aligned at the right; 0 where this
    /// layout has size 1 or lacks the dimension). The caller has checked broadcastability.
    pub(crate) fn broadcast_strides(&self, target: &[usize]) -> Vec<usize> {
        let pad = target.len() - self.shape.len();
        (0..target.len()).map(|i| if i < pad || self.shape[i - pad] == 1 { 0 } else { self.strides[i - pad] }).collect()
    }

    /// Reorders dimensions.
    pub fn permute(&self, op: &'static str, dims: &[isize]) -> Result<Layout> {
        let rank = self.shape.len();
        if dims.len() != rank {
            return Err(Error::invalid(
                op,
                format!("got {} dims {dims:?} for a tensor of rank {rank}; give each dimension once", dims.len()),
            ));
        }
        let dims = shape::normalize_dims(op, dims, rank)?;
        Ok(Layout {
            shape: dims.iter().map(|&d| self.shape[d]).collect(),
            strides: dims.iter().map(|&d| self.strides[d]).collect(),
            offset: self.offset,
        })
    }

    /// Swaps two dimensions.
    pub fn transpose(&self, op: &'static str, a: isize, b: isize) -> Result<Layout> {
        let rank = self.shape.len();
        let (a, b) = (normalize_dim(op, a, rank)?, normalize_dim(op, b, rank)?);
        let mut l = self.clone();
        l.shape.swap(a, b);
        l.strides.swap(a, b);
        Ok(l)
    }

    /// Keeps `len` entries of `dim` starting at `start`.
    pub fn narrow(&self, op: &'static str, dim: isize, start: usize, len: usize) -> Result<Layout> {
        let d = normalize_dim(op, dim, self.shape.len())?;
        let size = self.shape[d];
        if start.checked_add(len).is_none_or(|end| end > size) {
            return Err(Error::invalid(
                op,
                format!("range {start}..{} is outside dimension {d} of size {size}", start.saturating_add(len)),
            ));
        }
        let mut l = self.clone();
        if len > 0 {
            l.offset += start * l.strides[d];
        }
        l.shape[d] = len;
        Ok(l)
    }

    /// Every `step`-th entry of `dim` in `start..end`, clamped to the size as Python slices
    /// are (so a range past the end or backwards is empty): `ceil((end - start) / step)`
    /// entries, the stride multiplied by `step`.
    pub fn slice_step(&self, op: &'static str, dim: isize, start: usize, end: usize, step: usize) -> Result<Layout> {
        let d = normalize_dim(op, dim, self.shape.len())?;
        if step == 0 {
            return Err(Error::invalid(op, "slice step 0; use a step of at least 1"));
        }
        let size = self.shape[d];
        let end = end.min(size);
        let start = start.min(end);
        let len = (end - start).div_ceil(step);
        let mut l = self.clone();
        if len > 0 {
            l.offset += start * l.strides[d];
        }
        l.shape[d] = len;
        l.strides[d] *= step;
        Ok(l)
    }

    /// Removes size-1 dims (all of them, or just `dim`, which must then be size 1 or is kept as
    /// PyTorch does).
    pub fn squeeze(&self, op: &'static str, dim: Option<isize>) -> Result<Layout> {
        let keep: Vec<bool> = match dim {
            None => self.shape.iter().map(|&d| d != 1).collect(),
            Some(dim) => {
                let d = normalize_dim(op, dim, self.shape.len())?;
                (0..self.shape.len()).map(|i| i != d || self.shape[i] != 1).collect()
            }
        };
        Ok(Layout {
            shape: self.shape.iter().zip(&keep).filter(|p| *p.1).map(|p| *p.0).collect(),
            strides: self.strides.iter().zip(&keep).filter(|p| *p.1).map(|p| *p.0).collect(),
            offset: self.offset,
        })
    }

    /// Inserts a size-1 dim at `dim` (in `[-rank-1, rank]`).
    pub fn unsqueeze(&self, op: &'static str, dim: isize) -> Result<Layout> {
        let d = shape::normalize_insert_dim(op, dim, self.shape.len())?;
        let mut l = self.clone();
        let stride = if d < l.shape.len() { l.strides[d] * l.shape[d] } else { 1 };
        l.shape.insert(d, 1);
        l.strides.insert(d, stride);
        Ok(l)
    }

    /// Broadcasts to `target` without copying (stride 0 on the new and size-1 dims).
    pub fn expand(&self, op: &'static str, target: &[usize]) -> Result<Layout> {
        let b = shape::broadcast_shapes(op, &self.shape, target)?;
        shape::checked_numel(op, target)?;
        if b != target {
            return Err(Error::ShapeMismatch {
                op,
                lhs: self.shape.clone(),
                rhs: target.to_vec(),
                msg: "expand can only grow size-1 dims or add leading dims".into(),
            });
        }
        Ok(Layout { shape: target.to_vec(), strides: self.broadcast_strides(target), offset: self.offset })
    }

    /// A view with a new shape over the same elements; only possible without a copy when the
    /// layout is contiguous (the caller copies otherwise).
    pub(crate) fn reshape_contiguous(&self, shape: Vec<usize>) -> Layout {
        Layout { strides: contiguous_strides(&shape), shape, offset: self.offset }
    }

    /// This layout's elements as `shape` without moving any (PyTorch's `view` rule, its
    /// `computeStride`): a dim may split, and dims that are contiguous with each other may
    /// merge; None when a new dim would span two separately strided chunks.
    pub(crate) fn view_as(&self, shape: &[usize]) -> Option<Layout> {
        let (old, old_strides) = (&self.shape, &self.strides);
        let made = |strides: Vec<usize>| Some(Layout { shape: shape.to_vec(), strides, offset: self.offset });
        if old.is_empty() {
            return made(vec![1; shape.len()]);
        }
        if shape::numel(old) == 0 {
            if old.as_slice() == shape {
                return made(old_strides.clone());
            }
            // No element to keep in place: any strides do; the contiguous ones (of sizes >= 1).
            let mut strides = vec![1; shape.len()];
            for d in (0..shape.len().saturating_sub(1)).rev() {
                strides[d] = shape[d + 1].max(1) * strides[d + 1];
            }
            return made(strides);
        }
        let mut strides = vec![0; shape.len()];
        // Walks both shapes from the innermost dim, one contiguous chunk of the old layout at a
        // time; the new dims covering a chunk take strides within it.
        let mut view_d = shape.len() as isize - 1;
        let mut chunk_base = old_strides[old.len() - 1];
        let (mut tensor_numel, mut view_numel) = (1usize, 1usize);
        for tensor_d in (0..old.len()).rev() {
            tensor_numel *= old[tensor_d];
            let chunk_ends =
                tensor_d == 0 || (old[tensor_d - 1] != 1 && old_strides[tensor_d - 1] != tensor_numel * chunk_base);
            if chunk_ends {
                while view_d >= 0 && (view_numel < tensor_numel || shape[view_d as usize] == 1) {
                    strides[view_d as usize] = view_numel * chunk_base;
                    view_numel *= shape[view_d as usize];
                    view_d -= 1;
                }
                if view_numel != tensor_numel {
                    return None;
                }
                if tensor_d > 0 {
                    chunk_base = old_strides[tensor_d - 1];
                    tensor_numel = 1;
                    view_numel = 1;
                }
            }
        }
        if view_d != -1 {
            return None;
        }
        made(strides)
    }
}

/// Merges adjacent dims that every operand walks as one (`stride[d] == stride[d+1] *
/// shape[d+1]`, which a broadcast dim pair with both strides 0 also satisfies), so a
/// contiguous operand with a scalar one becomes a single row. Size-1 dims are dropped. The
/// broadcast walks of the CPU and the GPU kernels both index over the result: fewer dims, less
/// index arithmetic per element.
pub(crate) fn coalesce<const N: usize>(shape: &[usize], strides: [&[usize]; N]) -> (Vec<usize>, [Vec<usize>; N]) {
    let mut dims: Vec<(usize, [usize; N])> = Vec::with_capacity(shape.len());
    for (d, &size) in shape.iter().enumerate() {
        if size == 1 {
            continue;
        }
        let s: [usize; N] = std::array::from_fn(|o| strides[o][d]);
        if let Some((last, ls)) = dims.last_mut() {
            if ls.iter().zip(&s).all(|(&l, &x)| l == x * size) {
                *last *= size;
                *ls = s;
                continue;
            }
        }
        dims.push((size, s));
    }
    let shape = dims.iter().map(|d| d.0).collect();
    (shape, std::array::from_fn(|o| dims.iter().map(|d| d.1[o]).collect()))
}

/// [`coalesce`] for any number of operands, known at run time (the lazy tier's leaves).
pub(crate) fn coalesce_dyn(shape: &[usize], strides: &[&[usize]]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let mut out_shape: Vec<usize> = Vec::with_capacity(shape.len());
    let mut out: Vec<Vec<usize>> = vec![Vec::with_capacity(shape.len()); strides.len()];
    for (d, &size) in shape.iter().enumerate() {
        if size == 1 {
            continue;
        }
        if let Some(last) = out_shape.last_mut() {
            if out.iter().zip(strides).all(|(o, s)| o.last() == Some(&(s[d] * size))) {
                *last *= size;
                for (o, s) in out.iter_mut().zip(strides) {
                    if let Some(l) = o.last_mut() {
                        *l = s[d];
                    }
                }
                continue;
            }
        }
        out_shape.push(size);
        for (o, s) in out.iter_mut().zip(strides) {
            o.push(s[d]);
        }
    }
    (out_shape, out)
}

/// The view a reduction kernel gets ([kept.., reduced..], `m` kept elements) as its kept and
/// reduced dims, each coalesced: `(kept, kept strides, reduced, reduced strides)`. `None` for an
/// empty view or when no leading dims hold exactly `m` elements.
pub(crate) type ReduceDims = (Vec<usize>, Vec<usize>, Vec<usize>, Vec<usize>);

/// Splits the strided view `l` of a reduction into [`ReduceDims`]; what the CPU's and the
/// GPU's in-place strided reductions match their patterns on.
pub(crate) fn split_reduce(l: &Layout, m: usize) -> Option<ReduceDims> {
    let (shape, strides) = (l.shape(), l.strides());
    if m == 0 || l.numel() == 0 {
        return None;
    }
    let split = (0..=shape.len()).find(|&j| shape[..j].iter().product::<usize>() == m)?;
    let (kept, [ks]) = coalesce(&shape[..split], [&strides[..split]]);
    let (red, [rs]) = coalesce(&shape[split..], [&strides[split..]]);
    Some((kept, ks, red, rs))
}

/// Iterates the storage offsets of a layout's elements in row-major order.
pub(crate) struct StridedOffsets<'a> {
    shape: &'a [usize],
    strides: &'a [usize],
    index: Vec<usize>,
    next: usize,
    remaining: usize,
}

impl<'a> StridedOffsets<'a> {
    pub(crate) fn new(shape: &'a [usize], strides: &'a [usize], offset: usize) -> Self {
        StridedOffsets { shape, strides, index: vec![0; shape.len()], next: offset, remaining: shape::numel(shape) }
    }
}

impl Iterator for StridedOffsets<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let cur = self.next;
        for d in (0..self.shape.len()).rev() {
            self.index[d] += 1;
            self.next += self.strides[d];
            if self.index[d] < self.shape[d] {
                break;
            }
            self.next -= self.strides[d] * self.shape[d];
            self.index[d] = 0;
        }
        Some(cur)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interior_is_the_padded_region() {
        // [2, 3] padded by (1, 1) rows and (2, 0) columns into [4, 5]: element (r, c) of the
        // interior is element (r + 1, c + 2) of the contiguous outer tensor.
        let l = Layout::interior(&[4, 5], &[1, 2], &[2, 3]);
        assert_eq!((l.shape(), l.strides(), l.offset()), (&[2usize, 3][..], &[5usize, 1][..], 7));
        assert_eq!(Layout::interior(&[3], &[0], &[3]).offset(), 0);
    }

    #[test]
    fn view_as_follows_pytorchs_stride_rule() {
        // A split of the last dim of a [2, 6] tensor viewed from a [2, 12] one (nanoGPT's
        // q.view(B, T, nh, hs) of a split of the attention projection).
        let split = Layout::strided(&[2, 6], &[12, 1], 6);
        let v = split.view_as(&[2, 2, 3]).expect("splitting a dim is a view");
        assert_eq!((v.strides(), v.offset()), (&[12, 3, 1][..], 6));
        // Merging dims that are contiguous with each other; refusing ones that are not.
        let t = Layout::contiguous(&[4, 3, 2]).permute("t", &[1, 0, 2]).unwrap(); // [3, 4, 2], strides [2, 6, 1]
        assert!(t.view_as(&[3, 8]).is_none(), "dims 1 and 2 are not contiguous with each other");
        assert_eq!(t.view_as(&[3, 2, 2, 2]).unwrap().strides(), &[2, 12, 6, 1]);
        let tt = Layout::contiguous(&[3, 4]).permute("t", &[1, 0]).unwrap();
        assert!(tt.view_as(&[12]).is_none());
        assert_eq!(tt.view_as(&[4, 3, 1]).unwrap().strides(), &[1, 4, 4], "PyTorch's strides, checked with torch");
        // Size-1 dims anywhere; scalars; empty tensors.
        assert_eq!(Layout::contiguous(&[]).view_as(&[1, 1]).unwrap().strides(), &[1, 1]);
        assert_eq!(Layout::contiguous(&[0, 3]).view_as(&[3, 0]).unwrap().strides(), &[1, 1]);
        assert_eq!(Layout::contiguous(&[2, 3]).view_as(&[6]).unwrap().strides(), &[1]);
    }

    #[test]
    fn views() {
        let l = Layout::contiguous(&[2, 3]);
        let t = l.transpose("t", 0, 1).unwrap();
        assert!(!t.is_contiguous());
        let offs: Vec<usize> = StridedOffsets::new(t.shape(), t.strides(), t.offset()).collect();
        assert_eq!(offs, vec![0, 3, 1, 4, 2, 5]);
        let n = l.narrow("n", 1, 1, 2).unwrap();
        let offs: Vec<usize> = StridedOffsets::new(n.shape(), n.strides(), n.offset()).collect();
        assert_eq!(offs, vec![1, 2, 4, 5]);
        let e = Layout::contiguous(&[3, 1]).expand("e", &[2, 3, 4]).unwrap();
        assert_eq!(e.strides(), &[0, 1, 0]);
        assert!(l.narrow("n", 1, 2, 2).is_err());
    }
}
