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

/// A leaf's host data: values, or a condition's bytes.
enum Leaf<'a> {
    F32(&'a [f32]),
    Bool(&'a [u8]),
}

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
            CpuData::F32(v) => data.push(Leaf::F32(v.as_slice())),
            // A condition (`where`): 1.0 or 0.0.
            CpuData::Bool(v) => data.push(Leaf::Bool(v.as_slice())),
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
    let mut out = super::alloc::zeroed::<f32>(n);
    let mut blocks: Vec<Vec<f32>> = vec![Vec::with_capacity(BLOCK); leaves.len()];
    let mut regs = Vec::new();
    for chunk in out.chunks_mut(BLOCK) {
        for ((block, it), src) in blocks.iter_mut().zip(&mut offsets).zip(&data) {
            block.clear();
            match src {
                Leaf::F32(v) => block.extend(it.by_ref().take(chunk.len()).map(|o| v[o])),
                Leaf::Bool(v) => block.extend(it.by_ref().take(chunk.len()).map(|o| f32::from(v[o]))),
            }
        }
        let loads: Vec<&[f32]> = blocks.iter().map(Vec::as_slice).collect();
        program.eval_block(&loads, scalars, &mut regs, chunk);
    }
    CpuStorage::new(CpuData::F32(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Layout;
    use crate::op::binary::BinaryOp;
    use crate::op::expr::Instr;
    use crate::op::unary::UnaryOp;

    fn out(s: CpuStorage) -> Vec<f32> {
        match s.into_data() {
            CpuData::F32(v) => v,
            other => panic!("{:?}", other.dtype()),
        }
    }

    /// `where(c, exp(x) * y, -y)` with x transposed, y broadcast along rows and c broadcast
    /// along columns, across several blocks: each element as the ops one by one give it.
    #[test]
    fn programs_over_strided_and_broadcast_leaves() {
        let (rows, cols) = (37, 41);
        let x: Vec<f32> = (0..rows * cols).map(|i| (i as f32 * 0.37).sin()).collect();
        let y: Vec<f32> = (0..cols).map(|j| j as f32 * 0.1 - 2.0).collect();
        let c: Vec<u8> = (0..rows).map(|i| (i % 3 == 0) as u8).collect();
        let (xs, ys, cs) = (
            CpuStorage::new(CpuData::F32(x.clone())).unwrap(),
            CpuStorage::new(CpuData::F32(y.clone())).unwrap(),
            CpuStorage::new(CpuData::Bool(c.clone())).unwrap(),
        );
        // x stored [cols, rows], read transposed; y and c broadcast.
        let lx = Layout::strided(&[rows, cols], &[1, rows], 0);
        let ly = Layout::strided(&[rows, cols], &[0, 1], 0);
        let lc = Layout::strided(&[rows, cols], &[1, 0], 0);
        let mut p = Program::default();
        let (l0, l1, l2) =
            (p.push(Instr::Load(0)).unwrap(), p.push(Instr::Load(1)).unwrap(), p.push(Instr::LoadBool(2)).unwrap());
        let e = p.push(Instr::Unary(UnaryOp::Exp, l0)).unwrap();
        let m = p.push(Instr::Binary(BinaryOp::Mul, e, l1)).unwrap();
        let n = p.push(Instr::Unary(UnaryOp::Neg, l1)).unwrap();
        p.push(Instr::Select(l2, m, n)).unwrap();
        let leaves = [Operand::new(&xs, &lx), Operand::new(&ys, &ly), Operand::new(&cs, &lc)];
        let got = out(elementwise(&p, &leaves, &[rows, cols], &[]).unwrap());
        for i in 0..rows {
            for j in 0..cols {
                let want = if c[i] != 0 { UnaryOp::Exp.f32(x[j * rows + i]) * y[j] } else { -y[j] };
                assert_eq!(got[i * cols + j], want, "({i}, {j})");
            }
        }
    }
}
