//! Every kernel variant the backends can ask for, listed so each one's source can be rendered
//! and validated (naga for WGSL, NVRTC for CUDA) without a GPU.

use super::{accumulator, KernelKey, Walk, LANES_ALIGNED, LANES_RAGGED};
use crate::dtype::DType;
use crate::op::binary::BinaryOp;
use crate::op::fused::FusedKind;
use crate::op::optim::OptimKind;
use crate::op::reduce::ReduceOp;
use crate::op::unary::UnaryOp;
use crate::op::{MapOp, MatmulProgram};

/// Every variant the backends can ask for, for validation without a GPU.
pub(crate) fn all_variants() -> Vec<KernelKey> {
    let mut v = Vec::new();
    for src in DType::ALL {
        for dst in DType::ALL {
            v.push(KernelKey::Map { op: MapOp::Cast, src, dst, walk: Walk::DYNAMIC });
            v.push(KernelKey::Map4 { op: MapOp::Cast, src, dst });
        }
        v.push(KernelKey::Fill { dtype: src });
        if src.is_narrow() {
            // u8/i8 are cast and filled; everything else computes on their i32 widening.
            continue;
        }
        v.push(KernelKey::Where { dtype: src, walk: Walk::DYNAMIC });
        v.push(KernelKey::WhereRows4 { dtype: src, walk: Walk::of(2, 1000), splat: [true, false, true], run: 4 });
        v.push(KernelKey::Sort { dtype: src });
        v.push(KernelKey::Select { dtype: src });
        for index in [DType::I32, DType::U32] {
            v.push(KernelKey::Index { dtype: src, index, walk: Walk::DYNAMIC });
            v.push(KernelKey::IndexRows4 { dtype: src, index });
            // Bool takes the assign mode only (scatter).
            v.push(KernelKey::IndexAdd { dtype: src, index, walk: Walk::DYNAMIC });
        }
    }
    for kind in FusedKind::ALL {
        v.extend(kind.variants().into_iter().map(|(part, dtype)| KernelKey::Fused { kind, part, dtype }));
    }
    for d in [DType::F32, DType::F16, DType::I32, DType::U32] {
        for op in UnaryOp::ALL.into_iter().chain(UnaryOp::INTERNAL) {
            if op.supports(d) {
                v.push(KernelKey::Map { op: MapOp::Unary(op), src: d, dst: d, walk: Walk::DYNAMIC });
                v.push(KernelKey::Map4 { op: MapOp::Unary(op), src: d, dst: d });
            }
        }
        for program in [
            MatmulProgram::Tiled,
            MatmulProgram::Blocked,
            MatmulProgram::Blocked4,
            MatmulProgram::Register,
            MatmulProgram::Register4,
            MatmulProgram::Naive,
            MatmulProgram::Dot,
        ] {
            v.push(KernelKey::Matmul { dtype: d, program, bias: false });
            if d.is_float() {
                v.push(KernelKey::Matmul { dtype: d, program, bias: true });
            }
        }
    }
    for d in DType::ALL.into_iter().filter(|d| !d.is_narrow()) {
        for op in BinaryOp::ALL {
            if op.compute_dtype(d) == d && !(op.int_only() && d.is_float()) {
                v.push(KernelKey::Binary { op, dtype: d, walk: Walk::DYNAMIC });
                v.push(KernelKey::Binary4 { op, dtype: d });
                v.push(KernelKey::BinaryRows4 { op, dtype: d, walk: Walk::of(2, 1000), splat: [false, true], run: 4 });
                v.push(KernelKey::BinaryScalar { op, dtype: d });
                v.push(KernelKey::BinaryScalar4 { op, dtype: d });
            }
        }
        for op in ReduceOp::ALL {
            if op.input_dtype(d) == d {
                let out = op.output_dtype(d);
                v.push(KernelKey::Reduce { op, src: d, dst: out });
                v.push(KernelKey::ReduceSmall { op, src: d, dst: out });
                v.push(KernelKey::ReduceStrided { op, src: d, dst: out });
                if !op.is_arg() {
                    v.push(KernelKey::Reduce { op, src: d, dst: accumulator(d) });
                    v.push(KernelKey::Reduce { op, src: accumulator(d), dst: out });
                }
            }
        }
    }
    for dtype in [DType::F32, DType::F16] {
        for log in [false, true] {
            v.push(KernelKey::Softmax { log, dtype });
        }
    }
    for kind in [OptimKind::Sgd, OptimKind::SgdMomentum, OptimKind::Adam] {
        v.push(KernelKey::Optim { kind });
        for slots in [1, 2, 8, 24] {
            v.push(KernelKey::OptimMulti { kind, slots });
        }
    }
    v.push(KernelKey::Clamp4);
    v.push(KernelKey::ReduceSum4);
    v.push(KernelKey::Pad { walk: Walk::DYNAMIC });
    v.push(KernelKey::Pad { walk: Walk::of(2, 1000) });
    // The rank as a constant of the program (the wgpu backend's form): one of each family.
    let f = DType::F32;
    v.push(KernelKey::Map { op: MapOp::Cast, src: f, dst: f, walk: Walk::of(3, 1000) });
    v.push(KernelKey::Binary { op: BinaryOp::Add, dtype: f, walk: Walk::of(3, 1000) });
    for splat in [[false, false], [true, false], [true, true]] {
        v.push(KernelKey::BinaryRows4 { op: BinaryOp::Add, dtype: f, walk: Walk::of(3, 1 << 24), splat, run: 1 });
    }
    v.push(KernelKey::Where { dtype: f, walk: Walk::of(3, 1000) });
    v.push(KernelKey::Index { dtype: f, index: DType::I32, walk: Walk::of(3, 1000) });
    v.push(KernelKey::IndexAdd { dtype: f, index: DType::I32, walk: Walk::of(3, 1000) });
    v.extend(elementwise_variants());
    crate::order::sort_by(&mut v, |a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    v.dedup();
    v
}

/// The lazy tier's generated programs (elementwise.rs) holding every op it records, a few per
/// program, with a scalar and two leaves: flat, strided over 1 to `MAX_RANK` dims, and vec4.
fn elementwise_variants() -> Vec<KernelKey> {
    use crate::op::expr::{intern, records_binary, records_unary, Instr, Program, MAX_RANK};
    let unary = UnaryOp::ALL.into_iter().chain(UnaryOp::INTERNAL).filter(|&u| records_unary(u));
    let binary = BinaryOp::ALL.into_iter().filter(|&op| records_binary(op));
    let ops: Vec<Result<UnaryOp, BinaryOp>> = unary.map(Ok).chain(binary.map(Err)).collect();
    let mut v = Vec::new();
    for chunk in ops.chunks(12) {
        let mut p = Program::default();
        let (Some(x), Some(y), Some(s)) = (p.push(Instr::Load(0)), p.push(Instr::Load(1)), p.push(Instr::Scalar(0)))
        else {
            continue;
        };
        let mut acc = p.push(Instr::Binary(BinaryOp::Mul, x, s));
        for op in chunk {
            acc = acc.and_then(|a| match op {
                Ok(u) => p.push(Instr::Unary(*u, a)),
                Err(b) => p.push(Instr::Binary(*b, a, y)),
            });
        }
        let Some(r) = acc else { continue };
        p.set_result(r);
        let program = intern(&p);
        v.push(KernelKey::Elementwise { program, walk: Walk::of(1, 1000), flat: 3, vec4: true, lanes: 0 });
        for rank in 1..=MAX_RANK {
            for lanes in [0, LANES_ALIGNED, LANES_RAGGED] {
                v.push(KernelKey::Elementwise { program, walk: Walk::of(rank, 1000), flat: 1, vec4: false, lanes });
            }
        }
        v.push(KernelKey::Elementwise { program, walk: Walk::of(2, 1 << 25), flat: 0, vec4: false, lanes: 0 });
    }
    // `where` over a bool condition (u32 words), a value and a scalar.
    let mut p = Program::default();
    if let (Some(x), Some(c), Some(s)) = (p.push(Instr::Load(0)), p.push(Instr::LoadBool(1)), p.push(Instr::Scalar(0)))
    {
        if let Some(r) = p.push(Instr::Select(c, x, s)) {
            p.set_result(r);
            let program = intern(&p);
            v.push(KernelKey::Elementwise { program, walk: Walk::of(1, 1000), flat: 3, vec4: true, lanes: 0 });
            v.push(KernelKey::Elementwise { program, walk: Walk::of(3, 1000), flat: 1, vec4: false, lanes: 0 });
            v.push(KernelKey::Elementwise {
                program,
                walk: Walk::of(3, 1000),
                flat: 1,
                vec4: false,
                lanes: LANES_RAGGED,
            });
        }
    }
    v
}
