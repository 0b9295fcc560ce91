//! Dtype conversion: `to_dtype`, between every pair of dtypes. Float to integer saturates
//! (NaN becomes 0), integer to integer wraps, anything to bool is "nonzero".

use crate::dtype::DType;
use crate::error::Result;
use crate::op::MapOp;
use crate::ops::grad::unary_rule;
use crate::tensor::Tensor;

impl Tensor {
    /// A copy converted to `dtype` (a free clone when it already has that dtype).
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype() {
            return Ok(self.clone());
        }
        let src = self.dtype();
        self.map(MapOp::Cast, dtype, "to_dtype", |_| unary_rule(move |g| g.to_dtype(src)))
    }
}
