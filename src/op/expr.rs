//! Elementwise expressions: what the lazy elementwise tier (`storage/lazy.rs`) records instead
//! of dispatching, and what each backend compiles into one kernel when something consumes it.
//! A [`Program`] is a list of f32 instructions in value-numbered order (each reads earlier ones,
//! the last is the result): loads of leaf tensors, scalars carried in the parameters, and the
//! unary and binary op descriptors the eager kernels use, so a fused expression computes what
//! the ops one by one compute. Programs are interned ([`intern`]): a kernel is keyed by the
//! expression's shape (its instructions, not its scalar values or operands' addresses), so a
//! training loop compiles each of its chains once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::binary::BinaryOp;
use super::unary::UnaryOp;
use crate::dtype::DType;

/// Most leaf tensors one program reads: with the output, seven storage bindings, within
/// WebGPU's default eight per stage.
pub(crate) const MAX_LEAVES: usize = 6;
/// Most scalar operands one program carries in its parameters.
pub(crate) const MAX_SCALARS: usize = 8;
/// Most instructions one program holds (a longer chain realizes its prefix first).
pub(crate) const MAX_INSTRS: usize = 48;
/// Most dims one program walks (after its dims are coalesced; a longer shape stays eager).
pub(crate) const MAX_RANK: usize = 5;

/// One instruction over f32 values; operands index earlier instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Instr {
    /// Leaf tensor `k`'s element at this output position.
    Load(u8),
    /// Bool leaf tensor `k`'s element (a condition), as 1.0 or 0.0.
    LoadBool(u8),
    /// Scalar `k` of the call.
    Scalar(u8),
    /// A unary op of an earlier value.
    Unary(UnaryOp, u8),
    /// A binary op of two earlier values.
    Binary(BinaryOp, u8, u8),
    /// `where`: the second value where the first is nonzero, else the third.
    Select(u8, u8, u8),
}

/// A recorded elementwise expression (see the module docs). The result is the last value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct Program {
    instrs: Vec<Instr>,
    /// The value the program outputs (the last unless value numbering found it earlier).
    result: u8,
}

/// Whether the lazy tier records unary op `u` over f32: an op with an f32 result.
pub(crate) fn records_unary(u: UnaryOp) -> bool {
    u.supports(DType::F32) && u.result_dtype(DType::F32) == Ok(DType::F32)
}

/// Whether the lazy tier records binary op `op` over f32: arithmetic with an f32 result (not the
/// comparisons, whose bool result a reduction or `where` consumes, nor the integer-only ops).
pub(crate) fn records_binary(op: BinaryOp) -> bool {
    !op.is_comparison() && !op.int_only() && op.out_dtype(DType::F32) == DType::F32
}

impl Program {
    /// The instructions, in order.
    pub(crate) fn instrs(&self) -> &[Instr] {
        &self.instrs
    }

    /// The index of the value the program outputs.
    pub(crate) fn result(&self) -> u8 {
        self.result
    }

    /// Makes value `r` the output.
    pub(crate) fn set_result(&mut self, r: u8) {
        self.result = r;
    }

    /// How many leaves the program loads (the highest load index + 1).
    pub(crate) fn leaves(&self) -> usize {
        let leaf = |i: &Instr| match i {
            Instr::Load(k) | Instr::LoadBool(k) => Some(*k as usize + 1),
            _ => None,
        };
        self.instrs.iter().filter_map(leaf).max().unwrap_or(0)
    }

    /// Which leaves are bool conditions (bit `k` for leaf `k`), read as 32-bit words.
    pub(crate) fn bool_leaves(&self) -> u8 {
        self.instrs.iter().fold(0, |m, i| if let Instr::LoadBool(k) = i { m | 1 << k } else { m })
    }

    /// Appends `i` unless an equal instruction is already there (value numbering: `x * x` of a
    /// recorded `x` computes it once); its index, or `None` past [`MAX_INSTRS`].
    pub(crate) fn push(&mut self, i: Instr) -> Option<u8> {
        if let Some(at) = self.instrs.iter().position(|&j| j == i) {
            return Some(at as u8);
        }
        if self.instrs.len() >= MAX_INSTRS {
            return None;
        }
        self.instrs.push(i);
        self.result = self.instrs.len() as u8 - 1;
        Some(self.result)
    }

    /// Appends `other`'s instructions with its leaves and scalars renumbered through
    /// `leaf_map` and `scalar_map`; the index of its result, or `None` past [`MAX_INSTRS`].
    pub(crate) fn inline(&mut self, other: &Program, leaf_map: &[u8], scalar_map: &[u8]) -> Option<u8> {
        let mut at: Vec<u8> = Vec::with_capacity(other.instrs.len());
        for i in &other.instrs {
            let j = match *i {
                Instr::Load(k) => Instr::Load(*leaf_map.get(k as usize)?),
                Instr::LoadBool(k) => Instr::LoadBool(*leaf_map.get(k as usize)?),
                Instr::Scalar(k) => Instr::Scalar(*scalar_map.get(k as usize)?),
                Instr::Unary(u, a) => Instr::Unary(u, at[a as usize]),
                Instr::Binary(op, a, b) => Instr::Binary(op, at[a as usize], at[b as usize]),
                Instr::Select(c, a, b) => Instr::Select(at[c as usize], at[a as usize], at[b as usize]),
            };
            at.push(self.push(j)?);
        }
        at.get(other.result as usize).copied()
    }

    /// The name of the op that made the result (what errors name), `"contiguous"` for a copy.
    pub(crate) fn name(&self) -> &'static str {
        match self.instrs.get(self.result as usize) {
            Some(Instr::Unary(u, _)) => u.name(),
            Some(Instr::Binary(op, _, _)) => op.name(),
            Some(Instr::Select(..)) => "where",
            _ => "contiguous",
        }
    }

    /// Evaluates the program over one block of positions: `loads[k]` holds leaf `k`'s values
    /// there, the result goes to `out` (all of one length). The CPU's form of the fused kernel,
    /// with the op descriptors' CPU semantics; `regs` is scratch the caller keeps between blocks.
    pub(crate) fn eval_block(&self, loads: &[&[f32]], scalars: &[f32], regs: &mut Vec<Vec<f32>>, out: &mut [f32]) {
        let n = out.len();
        regs.resize_with(self.instrs.len(), Vec::new);
        for (r, i) in self.instrs.iter().enumerate() {
            let (done, rest) = regs.split_at_mut(r);
            let dst = &mut rest[0];
            dst.resize(n, 0.0);
            match *i {
                Instr::Load(k) | Instr::LoadBool(k) => dst.copy_from_slice(&loads[k as usize][..n]),
                Instr::Scalar(k) => dst.fill(scalars[k as usize]),
                Instr::Unary(u, a) => {
                    for (d, &x) in dst.iter_mut().zip(&done[a as usize]) {
                        *d = u.f32(x);
                    }
                }
                Instr::Binary(op, a, b) => {
                    for ((d, &x), &y) in dst.iter_mut().zip(&done[a as usize]).zip(&done[b as usize]) {
                        *d = op.f32(x, y);
                    }
                }
                Instr::Select(c, a, b) => {
                    let (c, a, b) = (&done[c as usize], &done[a as usize], &done[b as usize]);
                    for (((d, &c), &x), &y) in dst.iter_mut().zip(c).zip(a).zip(b) {
                        *d = if c != 0.0 { x } else { y };
                    }
                }
            }
        }
        if let Some(r) = regs.get(self.result as usize) {
            out.copy_from_slice(&r[..n]);
        }
    }
}

/// The interned programs: an id per distinct program, which kernel keys carry (a `Copy` key
/// names a generated program the way it names a kernel file).
struct Interned {
    ids: HashMap<Arc<Program>, u32>,
    programs: Vec<Arc<Program>>,
}

fn interned() -> &'static Mutex<Interned> {
    static TABLE: OnceLock<Mutex<Interned>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(Interned { ids: HashMap::new(), programs: Vec::new() }))
}

/// The id of `p`, interned on first sight.
pub(crate) fn intern(p: &Program) -> u32 {
    let mut t = lock();
    if let Some(&id) = t.ids.get(p) {
        return id;
    }
    let id = t.programs.len() as u32;
    let p = Arc::new(p.clone());
    t.programs.push(p.clone());
    t.ids.insert(p, id);
    id
}

/// The program interned as `id`.
pub(crate) fn program(id: u32) -> Option<Arc<Program>> {
    lock().programs.get(id as usize).cloned()
}

/// The table, whatever a panicking thread left (entries are only ever added whole).
fn lock() -> std::sync::MutexGuard<'static, Interned> {
    interned().lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_numbering_shares_equal_instructions() {
        let mut p = Program::default();
        let x = p.push(Instr::Load(0)).unwrap();
        let e = p.push(Instr::Unary(UnaryOp::Exp, x)).unwrap();
        let e2 = p.push(Instr::Unary(UnaryOp::Exp, x)).unwrap();
        assert_eq!(e, e2);
        p.push(Instr::Binary(BinaryOp::Mul, e, e2)).unwrap();
        assert_eq!(p.instrs().len(), 3);
        assert_eq!(p.name(), "mul");
    }

    #[test]
    fn inlining_renumbers_leaves_and_scalars() {
        let mut inner = Program::default();
        let a = inner.push(Instr::Load(0)).unwrap();
        let s = inner.push(Instr::Scalar(0)).unwrap();
        inner.push(Instr::Binary(BinaryOp::Add, a, s)).unwrap();
        let mut outer = Program::default();
        let y = outer.push(Instr::Load(0)).unwrap();
        let r = outer.inline(&inner, &[1], &[0]).unwrap();
        outer.push(Instr::Binary(BinaryOp::Mul, y, r)).unwrap();
        assert_eq!(outer.leaves(), 2);
        let (l0, l1) = ([2.0f32, 3.0], [1.0f32, -1.0]);
        let mut out = [0.0f32; 2];
        outer.eval_block(&[&l0, &l1], &[0.5], &mut Vec::new(), &mut out);
        assert_eq!(out, [3.0, -1.5]);
    }

    #[test]
    fn interning_gives_one_id_per_program() {
        let mut p = Program::default();
        p.push(Instr::Load(0)).unwrap();
        p.push(Instr::Unary(UnaryOp::Neg, 0)).unwrap();
        let id = intern(&p);
        assert_eq!(intern(&p.clone()), id);
        assert_eq!(program(id).as_deref(), Some(&p));
    }

    #[test]
    fn programs_stop_at_the_instruction_limit() {
        let mut p = Program::default();
        let mut x = p.push(Instr::Load(0)).unwrap();
        for _ in 1..MAX_INSTRS {
            x = p.push(Instr::Unary(UnaryOp::Neg, x)).unwrap();
        }
        assert_eq!(p.push(Instr::Unary(UnaryOp::Exp, x)), None);
    }
}
