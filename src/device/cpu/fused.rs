//! The CPU's entry points of the fused kernel families (attention, LayerNorm): f32 operands
//! checked and handed to their kernels (attention.rs, layer_norm.rs).

use super::{attention, layer_norm, reserve, CpuBackend, CpuStorage};
use crate::dtype::{CpuData, DType};
use crate::error::{Error, Result};

impl CpuBackend {
    /// Fused attention (see `op::attention`): the forward, or with `grad` (the forward's output
    /// and the output's gradient) the backward.
    pub(crate) fn attention(
        &self,
        q: &CpuStorage,
        k: &CpuStorage,
        v: &CpuStorage,
        mask: Option<&CpuStorage>,
        grad: Option<(&CpuStorage, &CpuStorage)>,
        args: &crate::op::attention::AttentionArgs,
    ) -> Result<CpuStorage> {
        fn f32s(s: &CpuStorage) -> Result<&[f32]> {
            fused_f32s("scaled_dot_product_attention", s)
        }
        let inputs = attention::Inputs {
            q: f32s(q)?,
            k: f32s(k)?,
            v: f32s(v)?,
            mask: mask.map(f32s).transpose()?,
            dout: grad.map(|(_, g)| f32s(g)).transpose()?,
        };
        let out = match grad {
            None => {
                reserve(args.forward_len(), DType::F32)?;
                attention::forward(&inputs, args)
            }
            Some((saved, _)) => {
                reserve(args.backward_len(), DType::F32)?;
                attention::backward(&inputs, f32s(saved)?, args)
            }
        };
        CpuStorage::new(CpuData::F32(out))
    }

    /// Fused LayerNorm (see `op::layer_norm`): the forward, or with `grad` (the forward's output
    /// and the output's gradient) the backward.
    pub(crate) fn layer_norm(
        &self,
        x: &CpuStorage,
        w: Option<&CpuStorage>,
        b: Option<&CpuStorage>,
        grad: Option<(&CpuStorage, &CpuStorage)>,
        args: &crate::op::layer_norm::LayerNormArgs,
    ) -> Result<CpuStorage> {
        fn f32s(s: &CpuStorage) -> Result<&[f32]> {
            fused_f32s("layer_norm", s)
        }
        let (x, w, b) = (f32s(x)?, w.map(f32s).transpose()?, b.map(f32s).transpose()?);
        let out = match grad {
            None => {
                reserve(args.forward_len(), DType::F32)?;
                layer_norm::forward(x, w, b, args)
            }
            Some((saved, dy)) => {
                reserve(args.backward_len(), DType::F32)?;
                layer_norm::backward(x, w, f32s(saved)?, f32s(dy)?, args)
            }
        };
        CpuStorage::new(CpuData::F32(out))
    }
}

/// The f32 elements of a fused kernel's operand (`op` names the kernel in the error).
fn fused_f32s<'a>(op: &'static str, s: &'a CpuStorage) -> Result<&'a [f32]> {
    match &s.data {
        CpuData::F32(v) => Ok(v.as_slice()),
        d => {
            Err(Error::UnsupportedDType { op, dtype: d.dtype(), reason: "the fused kernel takes f32 operands".into() })
        }
    }
}
