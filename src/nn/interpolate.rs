//! `interpolate`, PyTorch's `F.interpolate` for `nearest`, `linear` (3-D input) and `bilinear`
//! (4-D input) resizing. Source positions are computed on the host in f32 exactly as PyTorch's
//! CPU kernels do; nearest resizing is an `index_select` per spatial dim and linear resizing a
//! matmul by an interpolation matrix per dim (two taps per row), so gradients come from those
//! ops and every device runs its own kernels.

use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The resizing rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InterpolateMode {
    /// The entry at `floor(dst * scale)` with PyTorch's f32 scale (`in / out`, or
    /// `1 / scale_factor` when one is given): PyTorch's `nearest`.
    #[default]
    Nearest,
    /// Linear interpolation along `L` of `[N, C, L]`.
    Linear,
    /// Linear interpolation along `H` and `W` of `[N, C, H, W]`.
    Bilinear,
}

impl InterpolateMode {
    /// Parses PyTorch's mode names.
    pub fn parse(name: &str) -> Result<InterpolateMode> {
        Ok(match name {
            "nearest" => InterpolateMode::Nearest,
            "linear" => InterpolateMode::Linear,
            "bilinear" => InterpolateMode::Bilinear,
            other => {
                return Err(Error::invalid(
                    "interpolate",
                    format!("unknown mode {other:?}; use \"nearest\", \"linear\" or \"bilinear\""),
                ))
            }
        })
    }
}

/// Options of [`interpolate`]: exactly one of `size` and `scale_factor` (one value for every
/// spatial dim or one per dim).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InterpolateOptions {
    /// The output's spatial size.
    pub size: Option<Vec<usize>>,
    /// Multiplier of each spatial size (the output size is `floor(size * factor)`).
    pub scale_factor: Option<Vec<f64>>,
    /// The resizing rule.
    pub mode: InterpolateMode,
    /// Linear modes: whether the corner pixels' centres align (`None` is false); not for
    /// `nearest`.
    pub align_corners: Option<bool>,
}

/// Resizes the spatial dims of `[N, C, L]` or `[N, C, H, W]` input.
pub fn interpolate(x: &Tensor, options: &InterpolateOptions) -> Result<Tensor> {
    let op = "interpolate";
    let spatial = x.rank().checked_sub(2).filter(|&s| s == 1 || s == 2).ok_or_else(|| {
        Error::invalid(op, format!("expected [N, C, L] or [N, C, H, W] input, got shape {:?}", x.shape()))
    })?;
    let o = options;
    match (o.mode, spatial) {
        (InterpolateMode::Linear, 2) | (InterpolateMode::Bilinear, 1) => {
            let want = if o.mode == InterpolateMode::Linear { "3-D" } else { "4-D" };
            return Err(Error::invalid(op, format!("mode {:?} needs {want} input, got shape {:?}", o.mode, x.shape())));
        }
        (InterpolateMode::Nearest, _) if o.align_corners.is_some() => {
            return Err(Error::invalid(op, "align_corners only applies to the linear modes"));
        }
        _ => {}
    }
    if !x.dtype().is_float() && o.mode != InterpolateMode::Nearest {
        return Err(Error::UnsupportedDType {
            op,
            dtype: x.dtype(),
            reason: "linear interpolation needs floating-point input; convert with to_dtype(f32) first".into(),
        });
    }
    let ins = &x.shape()[2..];
    let (sizes, scales): (Vec<usize>, Vec<Option<f64>>) = match (&o.size, &o.scale_factor) {
        (Some(s), None) => (crate::nn::window::per_dim(op, "size", s, spatial)?, vec![None; spatial]),
        (None, Some(f)) => {
            let f = match f.len() {
                1 => vec![f[0]; spatial],
                n if n == spatial => f.clone(),
                n => return Err(Error::invalid(op, format!("{n} scale factors for {spatial} spatial dims"))),
            };
            if f.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
                return Err(Error::invalid(op, format!("scale factors {f:?} must be positive and finite")));
            }
            let sizes = ins
                .iter()
                .zip(&f)
                .map(|(&n, &s)| {
                    let m = (n as f64 * s).floor();
                    if m > i32::MAX as f64 {
                        return Err(Error::invalid(op, format!("size {n} scaled by {s} is {m}; at most 2^31 - 1")));
                    }
                    Ok(m as usize)
                })
                .collect::<Result<_>>()?;
            (sizes, f.into_iter().map(Some).collect())
        }
        _ => return Err(Error::invalid(op, "give exactly one of size and scale_factor")),
    };
    if sizes.contains(&0) || ins.contains(&0) {
        return Err(Error::invalid(op, format!("input size {ins:?} to {sizes:?}: both must be non-empty")));
    }
    // The output, and each interpolation matrix, must be addressable before anything is built.
    let mut out_shape = x.shape()[..2].to_vec();
    out_shape.extend(&sizes);
    crate::shape::checked_numel(op, &out_shape)?;
    for (&n, &m) in ins.iter().zip(&sizes) {
        crate::nn::window::host_table(op, &[m, n])?;
    }
    let align = o.align_corners.unwrap_or(false);
    let mut y = x.clone();
    for (i, ((&n, &m), scale)) in ins.iter().zip(&sizes).zip(&scales).enumerate() {
        let d = (2 + i) as isize;
        y = if o.mode == InterpolateMode::Nearest {
            let idx: Vec<i32> = (0..m).map(|j| nearest_source(j, n, m, *scale) as i32).collect();
            y.index_select(d, &Tensor::from_slice(&idx, &[m], x.device())?)?
        } else {
            let a =
                Tensor::from_slice(&linear_matrix(n, m, align, *scale), &[m, n], x.device())?.to_dtype(x.dtype())?;
            // Resizing dim d is a matmul by a^T on d moved last.
            let last = (y.rank() - 1) as isize;
            y.transpose(d, last)?.matmul(&a.t()?)?.transpose(d, last)?
        };
    }
    Ok(y)
}

/// PyTorch's `compute_scales_value`: `1 / scale_factor` when given, else `in / out`, in f32.
fn scale_value(scale: Option<f64>, n: usize, m: usize) -> f32 {
    match scale {
        Some(s) if s > 0.0 => (1.0 / s) as f32,
        _ => n as f32 / m as f32,
    }
}

/// PyTorch's `nearest_idx`.
fn nearest_source(j: usize, n: usize, m: usize, scale: Option<f64>) -> usize {
    if m == n {
        j
    } else if m == 2 * n {
        j >> 1
    } else {
        ((j as f32 * scale_value(scale, n, m)).floor() as usize).min(n - 1)
    }
}

/// The `[m, n]` matrix of linear interpolation from `n` to `m` entries (PyTorch's
/// `compute_source_index_and_lambda`).
fn linear_matrix(n: usize, m: usize, align_corners: bool, scale: Option<f64>) -> Vec<f32> {
    let mut a = vec![0f32; m * n];
    let ratio = if align_corners {
        if m > 1 {
            (n - 1) as f32 / (m - 1) as f32
        } else {
            0.0
        }
    } else {
        scale_value(scale, n, m)
    };
    for j in 0..m {
        if m == n {
            a[j * n + j] = 1.0;
            continue;
        }
        let src = if align_corners { ratio * j as f32 } else { (ratio * (j as f32 + 0.5) - 0.5).max(0.0) };
        let i0 = (src.floor() as usize).min(n - 1);
        let l1 = (src - i0 as f32).clamp(0.0, 1.0);
        let i1 = if i0 < n - 1 { i0 + 1 } else { i0 };
        a[j * n + i0] += 1.0 - l1;
        a[j * n + i1] += l1;
    }
    a
}
