//! The lazy tier's kernel on the CPU: a recorded chain of f32 elementwise ops (`op::expr`) in
//! one pass over the output, a block of positions at a time (each leaf gathered into L1, the
//! ops run over the block, the result written), with the op descriptors' CPU semantics. The
//! CPU itself runs ops eagerly; this serves soft placement, which re-runs a GPU's call here.

use super::CpuStorage;
use crate::device::backend::Operand;
use crate::dtype::CpuData;
use crate::error::{Error, Result};
use crate::layout::StridedOffsets;
use crate::op::expr::Program;
use crate::shape::numel;

/// Positions per block: every leaf's block and the scratch values stay in L1.
const BLOCK: usize = 512;

/// `program` over `leaves` (each read through a layout of `shape`) into a new f32 tensor.
pub(crate) fn elementwise(
    program: &Program,
    leaves: &[Operand<'_, &CpuStorage>],
    shape: &[usize],
    scalars: &[f32],
) -> Result<CpuStorage> {
    let n = numel(shape);
    let mut data = Vec::with_capacity(leaves.len());
    for leaf in leaves {
        match leaf.s.data() {
            CpuData::F32(v) => data.push(v.as_slice()),
            other => {
                return Err(Error::invalid(
                    program.name(),
                    format!("internal: an elementwise program read {:?} data", other.dtype()),
                ))
            }
        }
    }
    let mut offsets: Vec<StridedOffsets> =
        leaves.iter().map(|l| StridedOffsets::new(l.l.shape(), l.l.strides(), l.l.offset())).collect();
    let mut out = vec![0.0f32; n];
    let mut blocks: Vec<Vec<f32>> = vec![Vec::with_capacity(BLOCK); leaves.len()];
    let mut regs = Vec::new();
    for chunk in out.chunks_mut(BLOCK) {
        for ((block, it), src) in blocks.iter_mut().zip(&mut offsets).zip(&data) {
            block.clear();
            block.extend(it.by_ref().take(chunk.len()).map(|o| src[o]));
        }
        let loads: Vec<&[f32]> = blocks.iter().map(Vec::as_slice).collect();
        program.eval_block(&loads, scalars, &mut regs, chunk);
    }
    CpuStorage::new(CpuData::F32(out))
}
