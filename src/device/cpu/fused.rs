//! The CPU's entry points of the fused kernel families (attention, LayerNorm, cross-entropy,
//! dropout): f32 operands checked and handed to their kernels (attention.rs, layer_norm.rs;
//! cross-entropy's rows are `op::fused::cross_entropy`'s and dropout's runs `op::fill`'s, here in
//! parallel).

use half::f16;

use super::{attention, layer_norm, par, reserve, wide, CpuBackend, CpuStorage};
use crate::dtype::{CpuData, DType};
use crate::error::{Error, Result};
use crate::op::fused::attention::AttentionArgs;
use crate::op::fused::cross_entropy::CrossEntropyArgs;
use crate::op::fused::dropout::DropoutArgs;
use crate::op::fused::foreach::{ForeachArgs, ForeachOp, TENSORS};
use crate::op::fused::layer_norm::LayerNormArgs;
use crate::op::fused::Fused;

impl CpuBackend {
    /// Fused attention (see `op::fused::attention`): the forward, or with `grad` (the forward's
    /// output and the output's gradient) the backward.
    fn attention(
        &self,
        (q, k, v): (&CpuStorage, &CpuStorage, &CpuStorage),
        mask: Option<&CpuStorage>,
        grad: Option<(&CpuStorage, &CpuStorage)>,
        args: &AttentionArgs,
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

    /// Fused LayerNorm (see `op::fused::layer_norm`): the forward, or with `grad` (the
    /// forward's output and the output's gradient) the backward.
    fn layer_norm(
        &self,
        x: &CpuStorage,
        (w, b): (Option<&CpuStorage>, Option<&CpuStorage>),
        grad: Option<(&CpuStorage, &CpuStorage)>,
        args: &LayerNormArgs,
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

    /// `clip_grad_norm_`'s multi-tensor kernels (see `op::fused::foreach`): the sum of squares
    /// of every element (in f64, rounded once), or every tensor times the coefficient, flat.
    fn foreach(&self, op: &'static str, inputs: &[&CpuStorage], a: &ForeachArgs) -> Result<CpuStorage> {
        let missing = || Error::invalid(op, "internal: an input is missing or shorter than its view");
        let xs: Vec<&[f32]> = (0..a.count)
            .map(|t| {
                let x = fused_f32s(op, inputs.get(t).ok_or_else(missing)?)?;
                x.get(a.offsets[t]..a.offsets[t] + a.numel[t]).ok_or_else(missing)
            })
            .collect::<Result<_>>()?;
        if a.op == ForeachOp::SumSquares {
            let total: f64 = xs.iter().map(|x| ForeachArgs::cpu_sum_squares(x)).sum();
            return CpuStorage::new(CpuData::F32(vec![total as f32]));
        }
        let coef = fused_f32s(op, inputs.get(TENSORS).ok_or_else(missing)?)?;
        let k = coef.get(a.coef_offset).copied().ok_or_else(missing)?;
        let n = a.total();
        reserve(n, DType::F32)?;
        let starts: Vec<usize> = (0..a.count).map(|t| a.out_start(t)).collect();
        // SAFETY: each chunk `first..first + len` of the flat output lies within the tensors'
        // spans, which cover 0..n without gaps, and every element of it is written below.
        let out = unsafe {
            par::fill(n, 1, |first, chunk| {
                let end = first + chunk.len();
                for (x, &s) in xs.iter().zip(&starts) {
                    let (lo, hi) = (s.max(first), (s + x.len()).min(end));
                    if lo < hi {
                        for (o, &v) in chunk[lo - first..hi - first].iter_mut().zip(&x[lo - s..hi - s]) {
                            o.write(v * k);
                        }
                    }
                }
            })
        };
        CpuStorage::new(CpuData::F32(out))
    }

    /// A call of a fused family (`op::fused`) over `inputs`, in the family's order.
    pub(crate) fn fused(&self, call: &Fused, inputs: &[&CpuStorage]) -> Result<CpuStorage> {
        let input = |i: usize| {
            inputs.get(i).copied().ok_or_else(|| Error::invalid(call.name(), format!("internal: input {i} is missing")))
        };
        match call {
            Fused::Attention(a) => {
                let mask = a.mask.map(|_| input(3)).transpose()?;
                let grad = if a.backward() { Some((input(4)?, input(5)?)) } else { None };
                self.attention((input(0)?, input(1)?, input(2)?), mask, grad, a)
            }
            Fused::Dropout(a) => self.dropout(input(0)?, a),
            Fused::Foreach(a) => self.foreach(call.name(), inputs, a),
            Fused::IndexRange(a) => {
                let range = a.src_offset..a.src_offset + a.n;
                let pair = match &input(0)?.data {
                    CpuData::I32(v) => v.get(range).map(|s| a.cpu(s.iter().map(|&x| i64::from(x)))),
                    CpuData::U32(v) => v.get(range).map(|s| a.cpu(s.iter().map(|&x| i64::from(x)))),
                    _ => None,
                };
                let internal = || {
                    Error::invalid(call.name(), "internal: the index is not i32 or u32, or is shorter than its view")
                };
                let [lo, hi] = pair.ok_or_else(internal)?;
                // The pair lies within the index's own dtype, so the casts are exact.
                CpuStorage::new(match a.dtype {
                    DType::U32 => CpuData::U32(vec![lo as u32, hi as u32]),
                    _ => CpuData::I32(vec![lo as i32, hi as i32]),
                })
            }
            Fused::Scan(a) => {
                let x = input(0)?;
                reserve(a.len(), a.dtype)?;
                let out = super::scan::cumsum(&x.data, a.src_offset, (a.outer, a.n, a.inner)).ok_or_else(|| {
                    Error::UnsupportedDType {
                        op: "cumsum",
                        dtype: x.data.dtype(),
                        reason: "the scan kernel sums f32 and i32".into(),
                    }
                })?;
                CpuStorage::new(out)
            }
            Fused::CrossEntropy(a) if a.backward => {
                self.cross_entropy(input(0)?, input(1)?, Some((input(2)?, input(3)?)), a)
            }
            Fused::CrossEntropy(a) => self.cross_entropy(input(0)?, input(1)?, None, a),
            Fused::LayerNorm(a) => {
                let w = a.w_offset.map(|_| input(1)).transpose()?;
                let b = a.b_offset.map(|_| input(2)).transpose()?;
                let grad = if a.backward { Some((input(3)?, input(4)?)) } else { None };
                self.layer_norm(input(0)?, (w, b), grad, a)
            }
        }
    }

    /// Fused cross-entropy (see `op::fused::cross_entropy`): the forward, or with `grad` (the
    /// forward's output and the per-row loss gradient) the scores' gradient. Rows in parallel.
    fn cross_entropy(
        &self,
        x: &CpuStorage,
        t: &CpuStorage,
        grad: Option<(&CpuStorage, &CpuStorage)>,
        a: &CrossEntropyArgs,
    ) -> Result<CpuStorage> {
        let x = &fused_f32s("cross_entropy", x)?[a.x_offset..a.x_offset + a.rows * a.classes];
        let t = match &t.data {
            CpuData::I32(v) => &v[a.t_offset..a.t_offset + a.rows],
            d => return Err(Error::DTypeMismatch { op: "cross_entropy", expected: DType::I32, got: d.dtype() }),
        };
        let c = a.classes;
        let out = match grad {
            None => {
                reserve(a.forward_len(), DType::F32)?;
                // Split by the rows' elements, not their count (a fill of one pair per row
                // stayed on one thread).
                let parts = par::ranges(a.rows, c, |rows| {
                    // par::map over the part's row numbers: its loop has an AVX2 copy, into
                    // which `row_forward` inlines (too few rows to split again).
                    let rows: Vec<usize> = rows.collect();
                    par::map(&rows, |r| a.row_forward(&x[r * c..(r + 1) * c], t[r]))
                });
                let pairs: Vec<(f32, f32)> = parts.into_iter().flatten().collect();
                pairs.iter().map(|p| p.0).chain(pairs.iter().map(|p| p.1)).collect()
            }
            Some((saved, g)) => {
                reserve(a.backward_len(), DType::F32)?;
                let lse = &fused_f32s("cross_entropy_backward", saved)?[a.rows..2 * a.rows];
                let g = &fused_f32s("cross_entropy_backward", g)?[a.g_offset..a.g_offset + a.rows];
                // SAFETY: every row is written whole (row_backward hands over each element).
                unsafe {
                    par::fill(a.rows, c, |first, chunk| {
                        for (j, row) in chunk.chunks_mut(c).enumerate() {
                            let r = first + j;
                            a.row_backward(&x[r * c..(r + 1) * c], t[r], lse[r], g[r], |i, v| {
                                row[i].write(v);
                            });
                        }
                    })
                }
            }
        };
        CpuStorage::new(CpuData::F32(out))
    }

    /// Fused dropout of `args.n` contiguous elements of `x` from `args.src_offset` (f32 or f16;
    /// f16 computes in f32 and rounds once, as the GPU programs do).
    fn dropout(&self, x: &CpuStorage, args: &DropoutArgs) -> Result<CpuStorage> {
        let (n, off) = (args.n, args.src_offset);
        let data = match &x.data {
            CpuData::F32(v) => {
                reserve(n, DType::F32)?;
                CpuData::F32(dropout_f32(&v[off..off + n], args))
            }
            CpuData::F16(v) => {
                reserve(n, DType::F32)?;
                let wide: Vec<f32> = v[off..off + n].iter().map(|h| h.to_f32()).collect();
                CpuData::F16(dropout_f32(&wide, args).into_iter().map(f16::from_f32).collect())
            }
            d => {
                return Err(Error::UnsupportedDType {
                    op: "dropout",
                    dtype: d.dtype(),
                    reason: "dropout takes floating-point tensors".into(),
                })
            }
        };
        CpuStorage::new(data)
    }
}

/// `args` applied to `x` (element `i` under counter `i`), in parallel chunks, each in runs of
/// 256 that stay in the L1 cache between drawing the samples and scaling.
fn dropout_f32(x: &[f32], args: &DropoutArgs) -> Vec<f32> {
    const RUN: usize = 256;
    // SAFETY: every element of each chunk is written.
    unsafe {
        par::fill(x.len(), 1, |first, chunk| {
            let mut run = [0.0f32; RUN];
            for (k, part) in chunk.chunks_mut(RUN).enumerate() {
                let at = first + k * RUN;
                let run = &mut run[..part.len()];
                wide(|| args.apply(at as u64, &x[at..at + part.len()], run));
                part.iter_mut().zip(run.iter()).for_each(|(slot, &v)| {
                    slot.write(v);
                });
            }
        })
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
