//! Float classification, PyTorch's `isnan`, `isinf`, `isfinite`: bool tensors of the input's
//! shape, composed from comparisons, which decide NaN and infinities on the bits on every device
//! (see `op/binary.rs`), so they agree everywhere. Integer and bool inputs are never NaN or
//! infinite. Not differentiable (bool outputs).

use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

impl Tensor {
    /// True where the value is NaN (`x != x`, as IEEE defines it).
    pub fn isnan(&self) -> Result<Tensor> {
        if !self.dtype().is_float() {
            return self.zeros_like()?.to_dtype(DType::Bool);
        }
        self.ne(self)
    }

    /// True where the value is +inf or -inf.
    pub fn isinf(&self) -> Result<Tensor> {
        if !self.dtype().is_float() {
            return self.zeros_like()?.to_dtype(DType::Bool);
        }
        // Bool outputs: nothing to record.
        let _g = crate::tensor::node::pause();
        self.abs()?.eq_scalar(f64::INFINITY)
    }

    /// True where the value is neither NaN nor infinite.
    pub fn isfinite(&self) -> Result<Tensor> {
        if !self.dtype().is_float() {
            return self.ones_like()?.to_dtype(DType::Bool);
        }
        // NaN compares false with everything, infinities are not below inf.
        let _g = crate::tensor::node::pause();
        self.abs()?.lt_scalar(f64::INFINITY)
    }
}
