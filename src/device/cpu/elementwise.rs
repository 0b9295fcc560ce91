//! The CPU's elementwise kernels: unary ops, casts, strided copies and binary ops with
//! broadcasting, each common op folded into its own loop (`fold_const!`) so LLVM vectorises it;
//! the rest share one loop per element width.

use std::mem::MaybeUninit;

use half::f16;

use super::broadcast::{self, zip_broadcast, ALL_PATTERNS, ONE_LOOP};
use super::width::{with_width, Bits};
use super::{par, Scalar};
use crate::dtype::{CpuData, DType};
use crate::error::{Error, Result};
use crate::layout::{Layout, StridedOffsets};
use crate::op::binary::BinaryOp;
use crate::op::unary::UnaryOp;

/// The error of a kernel reached with u8/i8 operands, which `storage.rs` widens first: a bug
/// guard, reported instead of computing on the wrong element type.
pub(super) fn narrow_reached() -> Error {
    Error::invalid(
        "kernel",
        "internal: an 8-bit integer tensor reached a kernel that computes; it must be widened to i32",
    )
}

/// The elements of `l` of an 8-bit integer buffer, widened to i32 (exact).
pub(super) fn widen<T: Copy + Sync + Into<i32>>(v: &[T], l: &Layout) -> CpuData {
    CpuData::I32(map_strided(v, l, |x| x.into()))
}

/// `$body` with `$o` bound to `$op`, a value of the op enum `$E`. For the listed (common) ops
/// `$o` is a constant, so each gets its own loop with the per-element `match` folded away, which
/// LLVM then vectorises; the rest share one loop. A runtime match inside the loop kept f32 add at
/// half NumPy's speed, and made neg over 1M 3.9 ms in wasm against add's 0.3 ms.
macro_rules! fold_const {
    ($E:ident, $op:expr, $o:ident => $body:expr, [$($v:ident),*]) => {
        match $op {
            $($E::$v => {
                const $o: $E = $E::$v;
                $crate::device::cpu::elementwise::outlined(|| $body)
            })*
            other => {
                #[allow(non_snake_case)]
                let $o = other;
                $body
            }
        }
    };
}

/// Runs `f` in a function of its own: each closure type is its own instance, which is never
/// inlined. [`fold_const!`] puts each op's loop in one, so the function that dispatches on the
/// op stays small. Inlined, the loops of 25 unary ops made one 30 KB wasm function (the binary
/// ops' 59 KB), so many registers that V8's optimising compiler allocated them with its
/// cheaper mid-tier allocator (`--turbo-use-mid-tier-regalloc-for-huge-functions`, on by
/// default), spilling inside every op's loop.
#[inline(never)]
pub(super) fn outlined<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// [`fold_const!`] over the common binary arithmetic ops.
macro_rules! fold_op {
    ($op:expr, $o:ident => $body:expr) => {
        fold_const!(BinaryOp, $op, $o => $body, [Add, Sub, Mul, Div, Maximum, Minimum, Pow, Prelu])
    };
}

/// [`fold_const!`] over the unary ops with f32 formulas (each its own vector loop). The rest
/// (libm's sin and cos, the f64 inverse and hyperbolic functions) share one loop that calls the
/// whole `UnaryOp::f32` per element, which costs V8 ~15 ns an element before any arithmetic
/// (ELU's expm1 there: 37 ms per 1M, folded: see the commit).
macro_rules! fold_unary {
    ($op:expr, $o:ident => $body:expr) => {
        fold_const!(UnaryOp, $op, $o => $body, [Neg, Abs, Exp, Log, Sigmoid, Tanh, Silu, Gelu, GeluGrad, Erf, Sqrt, Rsqrt, Reciprocal, Square, Relu, Floor, Ceil, Round, Sign, Log1p, Expm1, Softplus, Mish, Hardswish, Hardsigmoid, Elu])
    };
}

/// `f` over the elements of `l` in row-major order.
fn map_strided<T: Copy + Sync, U: Send>(v: &[T], l: &Layout, f: impl Fn(T) -> U + Sync) -> Vec<U> {
    let n = l.numel();
    if l.is_contiguous() {
        par::map(&v[l.offset()..l.offset() + n], f)
    } else {
        broadcast::map_layout(v, l, f)
    }
}

/// `v` (contiguous) converted to `dst`. Strided sources are gathered by width first (see
/// `Kernels::map`), so each dtype pair compiles one loop, not a contiguous and a strided one.
pub(super) fn cast<T: Scalar>(v: &[T], dst: DType) -> CpuData {
    match dst {
        DType::F32 => CpuData::F32(par::map(v, T::to_f32)),
        DType::F16 => CpuData::F16(par::map(v, T::to_f16)),
        DType::I32 => CpuData::I32(par::map(v, T::to_i32)),
        DType::U32 => CpuData::U32(par::map(v, T::to_u32)),
        DType::Bool => CpuData::Bool(par::map(v, T::to_bool)),
        // The cast rule for 8-bit integers: to i32 (floats truncate and saturate, NaN is 0), then
        // the low 8 bits, as PyTorch's CPU casts do.
        DType::U8 => CpuData::U8(par::map(v, |x| x.to_i32() as u8)),
        DType::I8 => CpuData::I8(par::map(v, |x| x.to_i32() as i8)),
    }
}

/// The elements of `l` in row-major order, as a new contiguous buffer of the same dtype.
pub(super) fn copy(d: &CpuData, l: &Layout) -> Result<CpuData> {
    let dtype = d.dtype();
    Ok(with_width!(dtype, T => T::wrap_as(dtype, map_strided(T::of(d)?, l, |x| x))))
}

/// `sin` or `cos` of each element, as `UnaryOp::f32` gives them: the reduced polynomial over
/// the whole input in a loop that vectorises (libm's per element kept it scalar: 16M in 54 ms),
/// then libm's answer for the few elements past its range.
fn sin_cos(v: &[f32], want_cos: bool) -> Vec<f32> {
    use crate::op::math::{sin_cos_reduced, sin_f32, SIN_COS_REDUCED_MAX};
    let mut out =
        if want_cos { par::map(v, |x| sin_cos_reduced(x, true)) } else { par::map(v, |x| sin_cos_reduced(x, false)) };
    for (o, &x) in out.iter_mut().zip(v) {
        if x.is_nan() || x.abs() > SIN_COS_REDUCED_MAX {
            *o = sin_f32(x, want_cos);
        }
    }
    out
}

pub(super) fn unary(d: &CpuData, l: &Layout, op: UnaryOp) -> Result<CpuData> {
    // A strided input is gathered by width first, so each op compiles one contiguous loop
    // rather than a contiguous and a strided one (16 folded f32 ops: 30 KB of the .wasm).
    if !l.is_contiguous() {
        return unary(&copy(d, l)?, &Layout::contiguous(l.shape()), op);
    }
    let r = l.offset()..l.offset() + l.numel();
    #[cfg(target_arch = "wasm32")]
    if let (CpuData::F32(v), Some(block)) = (d, wasm_unary_block(op)) {
        // SAFETY: the blocks write every element of each chunk (as long as their input).
        return Ok(CpuData::F32(unsafe { by_blocks(&v[r], block) }));
    }
    if let (CpuData::F32(v), UnaryOp::Sin | UnaryOp::Cos) = (d, op) {
        return Ok(CpuData::F32(sin_cos(&v[r], op == UnaryOp::Cos)));
    }
    Ok(match d {
        CpuData::F32(v) => CpuData::F32(fold_unary!(op, O => par::map(&v[r.clone()], |x| O.f32(x)))),
        CpuData::F16(v) => CpuData::F16(par::map(&v[r], |x| f16::from_f32(op.f32(x.to_f32())))),
        CpuData::I32(v) => CpuData::I32(par::map(&v[r], |x| op.i32(x))),
        CpuData::U32(v) => CpuData::U32(par::map(&v[r], |x| op.u32(x))),
        CpuData::Bool(v) => CpuData::Bool(v[r].to_vec()),
        CpuData::U8(_) | CpuData::I8(_) => return Err(narrow_reached()),
    })
}

/// `block` over consecutive chunks of `v` across the pool: each call gets the input from its
/// chunk's start and the chunk of the output to write.
///
/// # Safety
/// `block` must initialise every element of the chunk it is given.
#[cfg(target_arch = "wasm32")]
unsafe fn by_blocks(v: &[f32], block: impl Fn(&[f32], &mut [MaybeUninit<f32>]) + Sync) -> Vec<f32> {
    // SAFETY: passed on to the caller.
    unsafe { par::fill(v.len(), 1, |start, out| block(&v[start..], out)) }
}

/// A unary f32 kernel over a chunk: the input from the chunk's start, the chunk to write.
#[cfg(target_arch = "wasm32")]
type UnaryBlock = fn(&[f32], &mut [MaybeUninit<f32>]);

/// The wasm SIMD kernel of a unary f32 op, where one is written by hand (`wasm_simd`,
/// `wasm_unary`: the exponential-based ops, whose autovectorised loops V8 12+ runs slowly).
#[cfg(target_arch = "wasm32")]
fn wasm_unary_block(op: UnaryOp) -> Option<UnaryBlock> {
    use super::{wasm_simd, wasm_unary};
    Some(match op {
        UnaryOp::Sigmoid => wasm_simd::sigmoid_block,
        UnaryOp::Exp => wasm_unary::exp_block,
        UnaryOp::Log => wasm_unary::log_block,
        UnaryOp::Tanh => wasm_unary::tanh_block,
        UnaryOp::Silu => wasm_unary::silu_block,
        UnaryOp::Gelu => wasm_unary::gelu_block,
        UnaryOp::Elu => wasm_unary::elu_block,
        _ => return None,
    })
}

/// `min(max(x, lo), hi)` over f32 data: clamp's two scalar ops (the maximum and minimum kernels'
/// own rule, NaN kept) fused into one loop, or None for other dtypes. Two passes over 1M took
/// 1.25 ms in wasm, tfjs-wasm's clip 0.9-1.0.
pub(super) fn clamp_f32(d: &CpuData, l: &Layout, lo: f32, hi: f32) -> Option<CpuData> {
    let CpuData::F32(v) = d else { return None };
    #[cfg(target_arch = "wasm32")]
    if l.is_contiguous() && !lo.is_nan() && !hi.is_nan() {
        let v = &v[l.offset()..l.offset() + l.numel()];
        let clamp = |x: &[f32], out: &mut [MaybeUninit<f32>]| super::wasm_unary::clamp_block(x, out, lo, hi);
        // SAFETY: clamp_block writes every element of each chunk (as long as its input).
        return Some(CpuData::F32(unsafe { by_blocks(v, clamp) }));
    }
    const MAX: BinaryOp = BinaryOp::Maximum;
    const MIN: BinaryOp = BinaryOp::Minimum;
    Some(CpuData::F32(map_strided(v, l, |x| MIN.f32(MAX.f32(x, lo), hi))))
}

/// f32 `v` (layout `l`) padded with `value` into `out_shape`, `before[d]` entries ahead of it in
/// each dim `d`: the output filled once and the input's rows copied into its interior (constant
/// padding by one `cat` per dim copied everything once per padded dim: 1.25-1.39 ms over 1M in
/// wasm, tfjs-wasm's pad 0.9-1.1).
pub(super) fn pad_f32(v: &[f32], l: &Layout, before: &[usize], out_shape: &[usize], value: f32) -> Vec<f32> {
    let shape = l.shape();
    let n: usize = out_shape.iter().product();
    let Some(last) = shape.len().checked_sub(1).filter(|_| l.numel() > 0) else {
        return vec![value; n];
    };
    let os = Layout::contiguous(out_shape).strides().to_vec();
    let start: usize = before.iter().zip(&os).map(|(b, s)| b * s).sum();
    let (inner, step) = (shape[last], l.strides()[last]);
    let src = StridedOffsets::new(&shape[..last], &l.strides()[..last], l.offset());
    let dst = StridedOffsets::new(&shape[..last], &os[..last], start);
    // The input's rows land in the output in increasing order: each output element is written
    // once, the gap before a row with `value` and then the row (filling the whole output first
    // wrote the interior twice: 0.20 ms over 1M in wasm against tfjs-wasm's 0.16).
    let mut out = super::alloc::with_capacity(n);
    let spare = &mut out.spare_capacity_mut()[..n];
    let mut pos = 0;
    for (xo, oo) in src.zip(dst) {
        spare[pos..oo].fill(MaybeUninit::new(value));
        let row = &mut spare[oo..oo + inner];
        if step == 1 {
            for (o, &x) in row.iter_mut().zip(&v[xo..xo + inner]) {
                o.write(x);
            }
        } else {
            for (j, o) in row.iter_mut().enumerate() {
                o.write(v[xo + j * step]);
            }
        }
        pos = oo + inner;
    }
    spare[pos..].fill(MaybeUninit::new(value));
    // SAFETY: the loop wrote every element of 0..n once: the rows' destinations increase and
    // do not overlap (distinct output coordinates), each gap up to a row and the tail after the
    // last one were filled.
    unsafe { out.set_len(n) };
    out
}

/// `op` over `a` and `b` broadcast to `shape`: f32 arithmetic and comparisons through loops folded per op (the
/// hot path of every model), i32 arithmetic through one loop, the rest through `binary_typed`.
pub(super) fn binary_data(
    op: BinaryOp,
    a: &CpuData,
    la: &Layout,
    b: &CpuData,
    lb: &Layout,
    shape: &[usize],
) -> Result<CpuData> {
    #[cfg(target_arch = "wasm32")]
    if let (BinaryOp::Pow, CpuData::F32(x), CpuData::F32(y)) = (op, a, b) {
        if let Some(out) = pow_f32_wasm(x, la, y, lb, shape) {
            return Ok(CpuData::F32(out));
        }
    }
    // `x ** e` of contiguous bases through `par::map`, whose loop has an AVX2 copy.
    #[cfg(not(target_arch = "wasm32"))]
    if let (BinaryOp::Pow, CpuData::F32(x), CpuData::F32(y)) = (op, a, b) {
        if la.is_contiguous() && la.shape() == shape && lb.numel() == 1 {
            let e = y[lb.offset()];
            return Ok(CpuData::F32(par::map(&x[la.offset()..la.offset() + la.numel()], |v| {
                crate::op::pow::pow_f32(v, e)
            })));
        }
    }
    Ok(match (a, b) {
        (CpuData::F32(x), CpuData::F32(y)) if !op.is_comparison() => CpuData::F32(
            fold_op!(op, O => zip_broadcast::<ALL_PATTERNS, _, _>(x, la, y, lb, shape, |p, q| O.f32(p, q))),
        ),
        (CpuData::I32(x), CpuData::I32(y)) if !op.is_comparison() => {
            CpuData::I32(zip_broadcast::<ALL_PATTERNS, _, _>(x, la, y, lb, shape, |p, q| op.i32(p, q)))
        }
        // f32 comparisons make the masks of relu's and max's gradients, clamps and attention:
        // folded per op, so `x > 0` is a vector loop (4.1 ms over 1M in wasm through the one
        // strided loop with the op matched per element).
        (CpuData::F32(x), CpuData::F32(y)) => CpuData::Bool(fold_const!(BinaryOp, op, O => {
            zip_broadcast::<ALL_PATTERNS, _, _>(x, la, y, lb, shape, |p, q| O.compare(p, q) as u8)
        }, [Gt, Lt, Ge, Le, Eq, Ne])),
        _ => binary_typed(op, a, la, b, lb, shape)?,
    })
}

/// f32 `pow` through its wasm SIMD kernel (`wasm_pow`) where the bases are a contiguous
/// tensor of the output's shape and the exponents another or a single value (`x ** 0.75`);
/// None otherwise, for the broadcasting loops.
#[cfg(target_arch = "wasm32")]
fn pow_f32_wasm(x: &[f32], la: &Layout, y: &[f32], lb: &Layout, shape: &[usize]) -> Option<Vec<f32>> {
    use super::wasm_pow::{pow_block, Exponent};
    if !(la.is_contiguous() && la.shape() == shape) {
        return None;
    }
    let n = la.numel();
    let x = &x[la.offset()..la.offset() + n];
    let y = if lb.numel() == 1 {
        Exponent::All(y[lb.offset()])
    } else if lb.is_contiguous() && lb.shape() == shape {
        Exponent::Each(&y[lb.offset()..lb.offset() + n])
    } else {
        return None;
    };
    let at = |start: usize| match y {
        Exponent::Each(v) => Exponent::Each(&v[start..]),
        all => all,
    };
    // SAFETY: pow_block writes every element of each chunk (`x` and `y` from `start` are at
    // least as long).
    Some(unsafe { par::fill(n, 1, |start, out| pow_block(&x[start..], at(start), out)) })
}

/// The binary ops beyond the f32/i32 arithmetic fast paths, matched on the operands' storage so
/// each (type, result) pair is compiled once: a generic walk with a runtime dtype match compiled
/// every result type for every operand type (5 copies of ~40 KB in the .wasm).
fn binary_typed(op: BinaryOp, a: &CpuData, la: &Layout, b: &CpuData, lb: &Layout, shape: &[usize]) -> Result<CpuData> {
    macro_rules! compare {
        ($x:expr, $y:expr) => {
            CpuData::Bool(zip_broadcast::<ONE_LOOP, _, _>($x, la, $y, lb, shape, |p, q| op.compare(p, q) as u8))
        };
    }
    macro_rules! cmp_or {
        ($x:expr, $y:expr, $variant:ident, $f:expr) => {
            if op.is_comparison() {
                compare!($x, $y)
            } else {
                CpuData::$variant(zip_broadcast::<ONE_LOOP, _, _>($x, la, $y, lb, shape, $f))
            }
        };
    }
    // f32 and i32 arithmetic and f32 comparisons never reach here (binary_data).
    Ok(match (a, b) {
        // f16 computes in f32 and rounds once, as PyTorch's CPU kernels do: through the f32
        // loops, instead of a second copy of each walk.
        (CpuData::F16(_), CpuData::F16(_)) => {
            let (x, lx) = (cast(f16::slice(&copy(a, la)?)?, DType::F32), Layout::contiguous(la.shape()));
            let (y, ly) = (cast(f16::slice(&copy(b, lb)?)?, DType::F32), Layout::contiguous(lb.shape()));
            let out = binary_data(op, &x, &lx, &y, &ly, shape)?;
            match &out {
                CpuData::F32(v) => cast(v, DType::F16),
                _ => out,
            }
        }
        (CpuData::I32(x), CpuData::I32(y)) => compare!(x, y),
        (CpuData::U32(x), CpuData::U32(y)) => cmp_or!(x, y, U32, |p, q| op.u32(p, q)),
        (CpuData::Bool(x), CpuData::Bool(y)) => cmp_or!(x, y, Bool, |p: u8, q: u8| op.u32(p as u32, q as u32) as u8),
        (CpuData::U8(_), _) | (CpuData::I8(_), _) => return Err(narrow_reached()),
        _ => {
            return Err(Error::invalid(
                op.name(),
                format!("internal: operands of {} and {} reached the CPU kernel", a.dtype(), b.dtype()),
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{binary_data, sin_cos};
    use crate::dtype::CpuData;
    use crate::layout::Layout;
    use crate::op::binary::BinaryOp;
    use crate::op::math::sin_f32;

    /// `x ** e` of contiguous bases (the `par::map` path and its AVX2 copy) gives `pow_f32`'s
    /// bits, special bases included, across the threads' split.
    #[test]
    fn pow_of_contiguous_bases_gives_the_scalar_bits() {
        let specials = [0.0, -0.0, 1.0, -1.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e-40, -2.5, 3e38];
        let x: Vec<f32> = (0..200_000)
            .map(|i| if i % 97 == 0 { specials[i / 97 % 10] } else { (i as f32 - 90_000.0) * 1e-3 })
            .collect();
        for e in [2.5f32, -1.5, 0.75, 7.0, f32::INFINITY] {
            let n = x.len();
            let CpuData::F32(got) = binary_data(
                BinaryOp::Pow,
                &CpuData::F32(x.clone()),
                &Layout::contiguous(&[n]),
                &CpuData::F32(vec![e]),
                &Layout::contiguous(&[]),
                &[n],
            )
            .unwrap() else {
                panic!("f32 in, f32 out")
            };
            for (&b, g) in x.iter().zip(&got) {
                let want = crate::op::pow::pow_f32(b, e);
                assert!(g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()), "{b} ** {e}: {g} vs {want}");
            }
        }
    }

    /// The vectorised kernel gives `sin_f32`'s bits, past the reduced range and for NaN too
    /// (its second pass), across the threads' split.
    #[test]
    fn sin_cos_kernel_gives_the_scalar_bits() {
        let v: Vec<f32> = (0..300_000)
            .map(|i| match i % 1000 {
                7 => 1e10,
                8 => f32::NAN,
                9 => -8192.5,
                10 => f32::NEG_INFINITY,
                _ => (i as f32 - 150_000.0) * 0.05,
            })
            .collect();
        for want_cos in [false, true] {
            let got = sin_cos(&v, want_cos);
            for (&x, g) in v.iter().zip(&got) {
                let want = sin_f32(x, want_cos);
                assert!(g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()), "{x}: {g} vs {want}");
            }
        }
    }
}
