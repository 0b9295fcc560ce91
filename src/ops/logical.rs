//! PyTorch's logical ops (`logical_and`, `logical_or`, `logical_xor`, `logical_not`: any dtype
//! in, bool out, nonzero is true) and `bitwise_not`, composed from casts to bool, the bitwise
//! kernels and comparisons, so every device decides truth as the casts do (NaN is true). Not
//! differentiable (bool and integer outputs).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::binary::BinaryOp;
use crate::tensor::Tensor;

impl Tensor {
    fn logical(&self, other: &Tensor, op: BinaryOp) -> Result<Tensor> {
        self.same_device(other, op.name())?;
        let _g = crate::tensor::node::pause();
        self.to_dtype(DType::Bool)?.binary(&other.to_dtype(DType::Bool)?, op)
    }

    /// Elementwise `self && other`, with broadcasting (nonzero is true; bool result).
    pub fn logical_and(&self, other: &Tensor) -> Result<Tensor> {
        self.logical(other, BinaryOp::BitwiseAnd)
    }

    /// Elementwise `self || other`, with broadcasting (nonzero is true; bool result).
    pub fn logical_or(&self, other: &Tensor) -> Result<Tensor> {
        self.logical(other, BinaryOp::BitwiseOr)
    }

    /// Elementwise exclusive or, with broadcasting (nonzero is true; bool result).
    pub fn logical_xor(&self, other: &Tensor) -> Result<Tensor> {
        self.logical(other, BinaryOp::BitwiseXor)
    }

    /// Elementwise `!self` (zero is true; bool result).
    pub fn logical_not(&self) -> Result<Tensor> {
        let _g = crate::tensor::node::pause();
        self.to_dtype(DType::Bool)?.eq_scalar(0.0)
    }

    /// Elementwise `~self`: every bit flipped for integers, `logical_not` for bool. Floats are
    /// an error, as in PyTorch.
    pub fn bitwise_not(&self) -> Result<Tensor> {
        let _g = crate::tensor::node::pause();
        match self.dtype() {
            DType::Bool => self.logical_not(),
            DType::I32 | DType::I8 => self.bitwise_xor_scalar(-1.0),
            DType::U32 => self.bitwise_xor_scalar(u32::MAX as f64),
            DType::U8 => self.bitwise_xor_scalar(u8::MAX as f64),
            dtype => Err(Error::UnsupportedDType {
                op: "bitwise_not",
                dtype,
                reason: "bitwise ops take integer or bool tensors; convert with to_dtype(i32) first".into(),
            }),
        }
    }
}
