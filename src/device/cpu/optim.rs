//! The fused optimizer update on the CPU: [`OptimStep::apply`] over every element, split across
//! threads, writing the new parameter and the new state in one pass.

use super::{par, reserve, CpuStorage};
use crate::dtype::{CpuData, DType};
use crate::error::{Error, Result};
use crate::op::optim::{OptimStep, FIRST};

/// The f32 elements `offset..offset + n` of an input.
fn f32s(s: &CpuStorage, offset: usize, n: usize) -> Result<&[f32]> {
    match s.data() {
        CpuData::F32(v) if offset + n <= v.len() => Ok(&v[offset..offset + n]),
        other => Err(Error::invalid(
            "optimizer step",
            format!("the fused update needs {n} f32 elements at offset {offset}, got {:?}", other.dtype()),
        )),
    }
}

pub(crate) fn optim(step: &OptimStep, inputs: &[(&CpuStorage, usize)], n: usize) -> Result<Vec<CpuStorage>> {
    let states = step.kind.states();
    let first = step.flags & FIRST != 0;
    let want = if first { 2 } else { 2 + states };
    if inputs.len() != want {
        return Err(Error::invalid("optimizer step", format!("expected {want} inputs, got {}", inputs.len())));
    }
    let slices: Vec<&[f32]> = inputs.iter().map(|(s, off)| f32s(s, *off, n)).collect::<Result<_>>()?;
    reserve(n * (1 + states), DType::F32)?;
    let (p, g) = (slices[0], slices[1]);
    let state = |k: usize, i: usize| if first { 0.0 } else { slices[2 + k][i] };
    let parts = par::ranges(n, 1, |r| {
        let mut out: Vec<Vec<f32>> = (0..=states).map(|_| Vec::with_capacity(r.len())).collect();
        for i in r {
            let s1 = if states > 1 { state(1, i) } else { 0.0 };
            let s0 = if states > 0 { state(0, i) } else { 0.0 };
            let y = step.apply(p[i], g[i], s0, s1);
            for (o, v) in out.iter_mut().zip(y) {
                o.push(v);
            }
        }
        out
    });
    let mut outs: Vec<Vec<f32>> = (0..=states).map(|_| Vec::with_capacity(n)).collect();
    for part in parts {
        for (o, v) in outs.iter_mut().zip(part) {
            o.extend(v);
        }
    }
    outs.into_iter().map(|v| CpuStorage::new(CpuData::F32(v))).collect()
}
