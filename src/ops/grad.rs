//! Helpers shared by the backward rules in this directory: reducing a broadcast gradient back to
//! an input's shape, and making rules from closures.

use crate::error::Result;
use crate::tensor::node::BackwardFn;
use crate::tensor::Tensor;

/// Sums `g` over the dims that broadcasting added or stretched, so that it has `shape` (the
/// gradient of a broadcast is the sum over the broadcast dims).
pub(crate) fn sum_to(g: &Tensor, shape: &[usize]) -> Result<Tensor> {
    if g.shape() == shape {
        return Ok(g.clone());
    }
    let lead = g.rank() - shape.len();
    let mut dims: Vec<isize> = (0..lead as isize).collect();
    dims.extend(
        shape
            .iter()
            .enumerate()
            .filter(|&(i, &s)| s == 1 && g.shape()[lead + i] != 1)
            .map(|(i, _)| (lead + i) as isize),
    );
    let summed = if dims.is_empty() { g.clone() } else { g.sum(&dims, true)? };
    let target: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
    summed.reshape(&target)
}

/// A rule for a one-input op: `f(grad)` is the input's gradient.
pub(crate) fn unary_rule(f: impl Fn(&Tensor) -> Result<Tensor> + Send + Sync + 'static) -> BackwardFn {
    Box::new(move |g, _| Ok(vec![Some(f(g)?)]))
}

/// A rule for a two-input op: `fa(grad)` and `fb(grad)` are the inputs' gradients, each
/// computed only when that input needs one.
pub(crate) fn binary_rule(
    fa: impl Fn(&Tensor) -> Result<Tensor> + Send + Sync + 'static,
    fb: impl Fn(&Tensor) -> Result<Tensor> + Send + Sync + 'static,
) -> BackwardFn {
    Box::new(move |g, need| {
        let a = if need[0] { Some(fa(g)?) } else { None };
        let b = if need[1] { Some(fb(g)?) } else { None };
        Ok(vec![a, b])
    })
}
