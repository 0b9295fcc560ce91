//! Ops that rearrange or mask elements, composed from views, `index_select`, `cat` and `where`
//! (so every device runs them with its own kernels and autograd differentiates them):
//! `masked_fill`, `tril`, `triu`, `flip`, `roll`, `repeat`, `split`, `chunk`.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::normalize_dim;
use crate::tensor::Tensor;

impl Tensor {
    /// `value` where `mask` (bool, broadcast to this tensor's shape) is true, this tensor
    /// elsewhere (PyTorch's `masked_fill`; the gradient flows where the mask is false).
    pub fn masked_fill(&self, mask: &Tensor, value: f64) -> Result<Tensor> {
        self.same_device(mask, "masked_fill")?;
        if mask.dtype() != DType::Bool {
            return Err(Error::invalid("masked_fill", format!("mask is {}; it must be a bool tensor", mask.dtype())));
        }
        let shape = crate::shape::broadcast_shapes("masked_fill", self.shape(), mask.shape())?;
        if shape != self.shape() {
            return Err(Error::invalid(
                "masked_fill",
                format!("mask of shape {:?} does not broadcast to the tensor's {:?}", mask.shape(), self.shape()),
            ));
        }
        let v = Tensor::full_on(&[], value, self.dtype(), self.device())?;
        mask.where_(&v, self)
    }

    /// The lower triangle of the last two dims: entries with `col - row <= diagonal` kept, the
    /// rest zero (PyTorch's `tril`).
    pub fn tril(&self, diagonal: i64) -> Result<Tensor> {
        self.triangle("tril", diagonal, true)
    }

    /// The upper triangle of the last two dims: entries with `col - row >= diagonal` kept, the
    /// rest zero (PyTorch's `triu`).
    pub fn triu(&self, diagonal: i64) -> Result<Tensor> {
        self.triangle("triu", diagonal, false)
    }

    fn triangle(&self, op: &'static str, diagonal: i64, lower: bool) -> Result<Tensor> {
        if self.rank() < 2 {
            return Err(Error::invalid(op, format!("needs at least 2 dims, got shape {:?}", self.shape())));
        }
        let (m, n) = (self.shape()[self.rank() - 2], self.shape()[self.rank() - 1]);
        let dev = self.device();
        let rows = Tensor::arange(0.0, m as f64, 1.0, DType::I32, dev)?.reshape(&[m as isize, 1])?;
        let cols = Tensor::arange(0.0, n as f64, 1.0, DType::I32, dev)?.reshape(&[1, n as isize])?;
        // col - row compared with the diagonal in f32 would lose nothing below 2^24 entries.
        let diff = cols.sub(&rows)?;
        let d = diagonal.clamp(i32::MIN as i64, i32::MAX as i64) as f64;
        let keep = if lower { diff.le_scalar(d)? } else { diff.ge_scalar(d)? };
        keep.where_(self, &Tensor::full_on(&[], 0.0, self.dtype(), dev)?)
    }

    /// The entries of each of `dims` in reverse order (PyTorch's `flip`; a copy).
    pub fn flip(&self, dims: &[isize]) -> Result<Tensor> {
        let dims = crate::shape::normalize_dims("flip", dims, self.rank())?;
        let mut y = self.clone();
        for d in dims {
            let n = self.shape()[d];
            if n > 1 {
                let idx = Tensor::arange(n as f64 - 1.0, -1.0, -1.0, DType::I32, self.device())?;
                y = y.index_select(d as isize, &idx)?;
            }
        }
        Ok(y)
    }

    /// Entries shifted by `shifts[i]` along `dims[i]`, wrapping around (PyTorch's `roll`); with
    /// no dims, over the flattened tensor, keeping the shape.
    pub fn roll(&self, shifts: &[i64], dims: &[isize]) -> Result<Tensor> {
        if dims.is_empty() {
            if shifts.len() != 1 {
                return Err(Error::invalid("roll", format!("{} shifts with no dims; give one shift", shifts.len())));
            }
            let shape: Vec<isize> = self.shape().iter().map(|&s| s as isize).collect();
            return self.flatten()?.roll(shifts, &[0])?.reshape(&shape);
        }
        if shifts.len() != dims.len() {
            return Err(Error::invalid(
                "roll",
                format!("{} shifts for {} dims; give one per dim", shifts.len(), dims.len()),
            ));
        }
        let mut y = self.clone();
        for (&s, &dim) in shifts.iter().zip(dims) {
            let d = normalize_dim("roll", dim, self.rank())?;
            let n = self.shape()[d] as i64;
            if n == 0 || s.rem_euclid(n) == 0 {
                continue;
            }
            // Output i takes input (i - s) mod n.
            let k = s.rem_euclid(n);
            let idx: Vec<i32> = (0..n).map(|i| (i - k).rem_euclid(n) as i32).collect();
            let idx = Tensor::from_slice(&idx, &[n as usize], self.device())?;
            y = y.index_select(d as isize, &idx)?;
        }
        Ok(y)
    }

    /// The tensor tiled `dims[i]` times along each dim (PyTorch's `tile`): as `repeat`, but
    /// fewer entries than dims are padded with leading 1s.
    pub fn tile(&self, dims: &[usize]) -> Result<Tensor> {
        let pad = self.rank().saturating_sub(dims.len());
        let sizes: Vec<usize> = std::iter::repeat_n(1, pad).chain(dims.iter().copied()).collect();
        self.repeat(&sizes)
    }

    /// The tensor tiled `sizes[i]` times along each dim (PyTorch's `repeat`; `sizes` may have
    /// more dims than the tensor, which then gains leading dims).
    pub fn repeat(&self, sizes: &[usize]) -> Result<Tensor> {
        if sizes.len() < self.rank() {
            return Err(Error::invalid(
                "repeat",
                format!("{} sizes for a tensor of {} dims; give at least one per dim", sizes.len(), self.rank()),
            ));
        }
        let lead = sizes.len() - self.rank();
        let shape: Vec<usize> = std::iter::repeat_n(1, lead).chain(self.shape().iter().copied()).collect();
        // [s0, s1, ...] -> [1, s0, 1, s1, ...] -> expand to [r0, s0, r1, s1, ...] -> merge pairs.
        let inter: Vec<isize> = shape.iter().flat_map(|&s| [1, s as isize]).collect();
        let expanded: Vec<isize> = shape.iter().zip(sizes).flat_map(|(&s, &r)| [r as isize, s as isize]).collect();
        let out: Vec<usize> = shape
            .iter()
            .zip(sizes)
            .map(|(&s, &r)| s.checked_mul(r).filter(|&v| v <= isize::MAX as usize))
            .collect::<Option<_>>()
            .ok_or_else(|| {
                Error::invalid("repeat", format!("repeating {:?} by {sizes:?} is too large", self.shape()))
            })?;
        crate::shape::checked_numel("repeat", &out)?;
        let out: Vec<isize> = out.into_iter().map(|s| s as isize).collect();
        self.reshape(&inter)?.expand(&expanded)?.reshape(&out)
    }

    /// Views of `size` entries each along `dim` (the last may be shorter), PyTorch's `split`.
    pub fn split(&self, size: usize, dim: isize) -> Result<Vec<Tensor>> {
        let d = normalize_dim("split", dim, self.rank())?;
        if size == 0 {
            return Err(Error::invalid("split", "split size 0; use a size of at least 1"));
        }
        let n = self.shape()[d];
        (0..n.div_ceil(size).max(1)).map(|i| self.narrow(d as isize, i * size, size.min(n - i * size))).collect()
    }

    /// Views of the given sizes along `dim`, which must add up to its length (PyTorch's
    /// `split` with a list).
    pub fn split_sizes(&self, sizes: &[usize], dim: isize) -> Result<Vec<Tensor>> {
        let d = normalize_dim("split", dim, self.rank())?;
        let n = self.shape()[d];
        let total = sizes.iter().try_fold(0usize, |acc, &s| acc.checked_add(s));
        if total != Some(n) {
            let got = total.map_or("more than the address space".into(), |t| t.to_string());
            return Err(Error::invalid("split", format!("sizes {sizes:?} add up to {got}, but dim {d} has {n}")));
        }
        let mut start = 0;
        sizes
            .iter()
            .map(|&s| {
                let t = self.narrow(d as isize, start, s);
                start += s;
                t
            })
            .collect()
    }

    /// At most `chunks` views of equal size along `dim` (the last may be smaller), PyTorch's
    /// `chunk`.
    pub fn chunk(&self, chunks: usize, dim: isize) -> Result<Vec<Tensor>> {
        if chunks == 0 {
            return Err(Error::invalid("chunk", "0 chunks; ask for at least 1"));
        }
        let d = normalize_dim("chunk", dim, self.rank())?;
        self.split(self.shape()[d].div_ceil(chunks).max(1), dim)
    }
}
