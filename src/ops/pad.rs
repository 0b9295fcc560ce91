//! Padding and strided slicing: `pad` (PyTorch's `F.pad`: constant, reflect, replicate,
//! circular), `slice_step` (`x[start:end:step]`), and `dilate`, the zero insertion that strided
//! slicing's gradient and transposed convolution share. All composed from `cat`, `narrow` and
//! `index_select` (host-built index tables the size of one dim), so gradients come from those
//! ops' rules and every device runs them with its own kernels.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::grad::unary_rule;
use crate::shape::normalize_dim;
use crate::tensor::Tensor;

/// How `pad` fills the new entries, PyTorch's `mode` of `F.pad`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PadMode {
    /// A constant value (negative pads crop).
    #[default]
    Constant,
    /// Mirrored without repeating the edge: `[2, 1 | 0, 1, 2, 3 | 2, 1]`.
    Reflect,
    /// The edge repeated: `[0, 0 | 0, 1, 2, 3 | 3, 3]`.
    Replicate,
    /// Wrapped around: `[2, 3 | 0, 1, 2, 3 | 0, 1]`.
    Circular,
}

impl PadMode {
    /// Parses PyTorch's mode names.
    pub fn parse(name: &str) -> Result<PadMode> {
        Ok(match name {
            "constant" => PadMode::Constant,
            "reflect" => PadMode::Reflect,
            "replicate" => PadMode::Replicate,
            "circular" => PadMode::Circular,
            other => {
                return Err(Error::invalid(
                    "pad",
                    format!("unknown mode {other:?}; use \"constant\", \"reflect\", \"replicate\" or \"circular\""),
                ))
            }
        })
    }

    /// PyTorch's name of the mode.
    pub fn name(self) -> &'static str {
        match self {
            PadMode::Constant => "constant",
            PadMode::Reflect => "reflect",
            PadMode::Replicate => "replicate",
            PadMode::Circular => "circular",
        }
    }
}

impl Tensor {
    /// Pads the last dims (PyTorch's `F.pad`): `pads` holds (before, after) pairs starting from
    /// the last dim, so `[1, 2]` pads the last dim by 1 before and 2 after and `[1, 1, 2, 2]`
    /// also pads the dim before it by 2. `value` fills constant padding, where negative pads
    /// crop; the other modes need pads in `0..size` (reflect) or `0..=size` (circular).
    pub fn pad(&self, pads: &[isize], mode: PadMode, value: f64) -> Result<Tensor> {
        let op = "pad";
        if !pads.len().is_multiple_of(2) || pads.len() > 2 * self.rank() {
            return Err(Error::invalid(
                op,
                format!(
                    "{} pad values for a tensor of {} dims; give (before, after) pairs for at most every dim",
                    pads.len(),
                    self.rank()
                ),
            ));
        }
        if mode == PadMode::Constant {
            if let Some(y) = self.pad_constant_once(pads, value)? {
                return Ok(y);
            }
        }
        let mut y = self.clone();
        for (i, pair) in pads.chunks(2).enumerate() {
            let d = self.rank() - 1 - i;
            let (before, after) = (pair[0], pair[1]);
            y = match mode {
                PadMode::Constant => pad_constant(&y, d, before, after, value)?,
                _ => pad_indexed(&y, d, before, after, mode)?,
            };
        }
        Ok(y)
    }

    /// Constant padding (no cropping) of an f32 tensor by one call (`KernelCall::Pad`: one pass
    /// on the CPU and on wgpu within one binding, else a fill and a strided copy), its gradient
    /// the interior of the output's; `None` for other dtypes, cropping and more dims than the
    /// GPU programs index, which compose.
    fn pad_constant_once(&self, pads: &[isize], value: f64) -> Result<Option<Tensor>> {
        let rank = self.rank();
        let indexable =
            self.device().kind() == crate::device::DeviceKind::Cpu || rank <= crate::shaders::params::MAX_RANK;
        if pads.is_empty() || self.dtype() != DType::F32 || pads.iter().any(|&p| p < 0) || !indexable {
            return Ok(None);
        }
        let (mut before, mut after) = (vec![0usize; rank], vec![0usize; rank]);
        for (i, pair) in pads.chunks(2).enumerate() {
            (before[rank - 1 - i], after[rank - 1 - i]) = (pair[0] as usize, pair[1] as usize);
        }
        let mut shape = Vec::with_capacity(rank);
        for d in 0..rank {
            match self.shape()[d].checked_add(before[d]).and_then(|v| v.checked_add(after[d])) {
                Some(v) if v <= isize::MAX as usize => shape.push(v),
                // The cat path says what is too large.
                _ => return Ok(None),
            }
        }
        if shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).is_none_or(|n| n > isize::MAX as usize) {
            return Ok(None);
        }
        let storage = self.storage().pad(self.layout(), &before, &shape, value as f32).map_err(|e| e.in_op("pad"))?;
        let (device, sizes) = (self.device(), self.shape().to_vec());
        crate::device::placement::record("pad", &[device], device);
        Ok(Some(Tensor::from_op(storage, &shape, DType::F32, device, "pad", &[self], |_| {
            unary_rule(move |g| {
                let mut g = g.clone();
                for d in (0..rank).filter(|&d| before[d] + after[d] > 0) {
                    g = g.narrow(d as isize, before[d], sizes[d])?;
                }
                Ok(g)
            })
        })))
    }

    /// Every `step`-th entry of `dim` in `range` (Python's `x[start:end:step]`; a view). As in
    /// Python the range is clamped to the dim, so `0..usize::MAX` means to the end.
    pub fn slice_step(&self, dim: isize, range: std::ops::Range<usize>, step: usize) -> Result<Tensor> {
        let op = "slice";
        let layout = self.layout().slice_step(op, dim, range.start, range.end, step)?;
        let d = normalize_dim(op, dim, self.rank())?;
        let (size, start) = (self.shape()[d], range.start.min(range.end.min(self.shape()[d])));
        Ok(self.view_op(layout, op, |_| {
            unary_rule(move |g| {
                // The gradient lands on every step-th entry from start: zeros in between.
                let spread = dilate(g, d, step)?;
                let after = size - start - spread.shape()[d];
                pad_constant(&spread, d, start as isize, after as isize, 0.0)
            })
        }))
    }
}

/// `step - 1` zeros inserted between neighbours along `dim`: `n` entries become
/// `(n - 1) * step + 1` (the input of a strided slice's gradient and of transposed convolution).
pub(crate) fn dilate(x: &Tensor, dim: usize, step: usize) -> Result<Tensor> {
    let n = x.shape()[dim];
    if step <= 1 || n <= 1 {
        return Ok(x.clone());
    }
    // [.., n, ..] -> [.., n, 1, ..] ++ zeros [.., n, step - 1, ..] -> [.., n * step, ..].
    let col = x.unsqueeze(dim as isize + 1)?;
    let mut zshape = col.shape().to_vec();
    zshape[dim + 1] = step - 1;
    let wide = Tensor::cat(&[col, x.new_zeros(&zshape)?], dim as isize + 1)?;
    let mut merged: Vec<isize> = x.shape().iter().map(|&s| s as isize).collect();
    merged[dim] = (n * step) as isize;
    wide.reshape(&merged)?.narrow(dim as isize, 0, (n - 1) * step + 1)
}

/// Constant padding of one dim: `cat` with filled blocks, `narrow` for negative pads.
fn pad_constant(x: &Tensor, d: usize, before: isize, after: isize, value: f64) -> Result<Tensor> {
    let n = x.shape()[d];
    let crop = |p: isize| if p < 0 { p.unsigned_abs() } else { 0 };
    let (crop_before, crop_after) = (crop(before), crop(after));
    if crop_before > n || crop_after > n - crop_before {
        return Err(Error::invalid(
            "pad",
            format!("negative pads ({before}, {after}) crop more than the {n} entries of dim {d}"),
        ));
    }
    let kept = n - crop_before - crop_after;
    let grown = kept.checked_add(before.max(0) as usize).and_then(|v| v.checked_add(after.max(0) as usize));
    if grown.is_none_or(|v| v > isize::MAX as usize) {
        return Err(Error::invalid("pad", format!("pads ({before}, {after}) of dim {d} make it too large to address")));
    }
    let mut y = x.narrow(d as isize, crop_before, kept)?;
    let block = |len: isize| -> Result<Tensor> {
        let mut s = y.shape().to_vec();
        s[d] = len as usize;
        Tensor::full_on(&s, value, x.dtype(), x.device())
    };
    let mut parts = Vec::with_capacity(3);
    if before > 0 {
        parts.push(block(before)?);
    }
    parts.push(y.clone());
    if after > 0 {
        parts.push(block(after)?);
    }
    if parts.len() > 1 {
        y = Tensor::cat(&parts, d as isize)?;
    }
    Ok(y)
}

/// Reflect, replicate or circular padding of one dim: one `index_select` with the source
/// index of every output entry.
fn pad_indexed(x: &Tensor, d: usize, before: isize, after: isize, mode: PadMode) -> Result<Tensor> {
    let n = x.shape()[d] as isize;
    let largest = before.max(after);
    let ok = before >= 0
        && after >= 0
        && match mode {
            PadMode::Reflect => largest < n,
            PadMode::Replicate => n > 0 || largest == 0,
            _ => largest <= n,
        };
    if !ok {
        let need = match mode {
            PadMode::Reflect => format!("between 0 and {} (less than the size)", n - 1),
            PadMode::Replicate => "at least 0, on a dim that is not empty".to_string(),
            _ => format!("between 0 and {n} (at most the size)"),
        };
        return Err(Error::invalid(
            "pad",
            format!("{} padding ({before}, {after}) of dim {d} with {n} entries: each pad must be {need}", mode.name()),
        ));
    }
    if before == 0 && after == 0 {
        return Ok(x.clone());
    }
    let source = |i: isize| -> i32 {
        let j = i - before;
        let k = match mode {
            PadMode::Reflect => {
                let r = j.abs();
                if r >= n {
                    2 * (n - 1) - r
                } else {
                    r
                }
            }
            PadMode::Replicate => j.clamp(0, n - 1),
            _ => j.rem_euclid(n),
        };
        k as i32
    };
    let len = n + before + after;
    let idx: Vec<i32> = (0..len).map(source).collect();
    let idx = Tensor::from_slice(&idx, &[len as usize], x.device())?;
    x.index_select(d as isize, &idx)
}
