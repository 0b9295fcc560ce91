//! Shapes: broadcasting, dimension normalisation and view-shape inference. Pure functions over
//! `&[usize]`, no device and no storage.

use crate::error::{Error, Result};

/// Formats a shape the way error messages print it: `[2, 3]`.
pub(crate) fn fmt_shape(shape: &[usize]) -> String {
    format!("{shape:?}")
}

/// Number of elements of a shape (1 for a scalar).
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Number of elements of a shape given by a user, or an error when it cannot be addressed (the
/// count or its bytes at 8 per element would overflow), so no later size arithmetic can.
pub fn checked_numel(op: &'static str, shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= isize::MAX as usize / 8)
        .ok_or_else(|| Error::invalid(op, format!("shape {shape:?} has more elements than memory can address")))
}

/// Row-major strides of a contiguous tensor of this shape.
pub fn contiguous_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; shape.len()];
    let mut acc = 1;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        acc *= d.max(1);
    }
    strides
}

/// Turns a possibly negative `dim` into an index in `0..rank`.
pub fn normalize_dim(op: &'static str, dim: isize, rank: usize) -> Result<usize> {
    let r = rank as isize;
    let d = if dim < 0 { dim + r } else { dim };
    if d < 0 || d >= r {
        return Err(Error::DimOutOfRange { op, dim, rank });
    }
    Ok(d as usize)
}

/// Like [`normalize_dim`] but for positions where `rank` itself is valid (unsqueeze, stack).
pub fn normalize_insert_dim(op: &'static str, dim: isize, rank: usize) -> Result<usize> {
    normalize_dim(op, dim, rank + 1)
}

/// Normalises a list of dims, rejecting duplicates.
pub fn normalize_dims(op: &'static str, dims: &[isize], rank: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        let n = normalize_dim(op, d, rank)?;
        if out.contains(&n) {
            return Err(Error::invalid(
                op,
                format!("dim {d} appears more than once in {dims:?}; list each dimension once"),
            ));
        }
        out.push(n);
    }
    Ok(out)
}

/// The NumPy broadcast of two shapes.
pub fn broadcast_shapes(op: &'static str, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for i in 0..rank {
        let da = if i + a.len() >= rank { a[i + a.len() - rank] } else { 1 };
        let db = if i + b.len() >= rank { b[i + b.len() - rank] } else { 1 };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::Broadcast { op, lhs: a.to_vec(), rhs: b.to_vec(), dim: i, a: da, b: db });
        };
    }
    checked_numel(op, &out)?;
    Ok(out)
}

/// Resolves a requested view shape that may contain one `-1` against `numel` elements.
pub fn infer_shape(op: &'static str, from: &[usize], spec: &[isize]) -> Result<Vec<usize>> {
    let n = numel(from);
    let mut infer = None;
    let mut known = 1usize;
    for (i, &d) in spec.iter().enumerate() {
        if d == -1 {
            if infer.replace(i).is_some() {
                return Err(Error::invalid(op, "only one dimension can be -1"));
            }
        } else if d < 0 {
            return Err(Error::invalid(
                op,
                format!("invalid size {d} in shape {spec:?}; sizes must be >= 0 or a single -1"),
            ));
        } else {
            known = known.saturating_mul(d as usize);
        }
    }
    let mut out: Vec<usize> = spec.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(i) = infer {
        if known == 0 || !n.is_multiple_of(known) {
            return Err(Error::ShapeMismatch {
                op,
                lhs: from.to_vec(),
                rhs: out,
                msg: format!("cannot infer the -1 in {spec:?} for {n} elements"),
            });
        }
        out[i] = n / known;
    } else if known != n {
        return Err(Error::ShapeMismatch {
            op,
            lhs: from.to_vec(),
            rhs: out,
            msg: format!("a view must keep the number of elements ({n})"),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_rules() {
        assert_eq!(broadcast_shapes("t", &[3, 1], &[4]).unwrap(), vec![3, 4]);
        assert_eq!(broadcast_shapes("t", &[], &[2, 2]).unwrap(), vec![2, 2]);
        assert_eq!(broadcast_shapes("t", &[0, 1], &[1, 5]).unwrap(), vec![0, 5]);
        let e = broadcast_shapes("add", &[2, 3], &[4, 3]).unwrap_err();
        assert!(e.to_string().contains("[2, 3] and [4, 3]"), "{e}");
    }

    #[test]
    fn infer_and_dims() {
        assert_eq!(infer_shape("v", &[2, 6], &[-1, 3]).unwrap(), vec![4, 3]);
        assert!(infer_shape("v", &[2, 6], &[-1, 5]).is_err());
        assert!(infer_shape("v", &[2, 6], &[-1, -1]).is_err());
        assert_eq!(normalize_dim("d", -1, 3).unwrap(), 2);
        assert!(normalize_dim("d", 3, 3).is_err());
        assert!(normalize_dims("d", &[0, -2], 2).is_err());
        assert_eq!(contiguous_strides(&[2, 3, 4]), vec![12, 4, 1]);
    }
}
