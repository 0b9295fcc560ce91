//! The op manifest: every public elementwise and reduction op with its family, its doc, the
//! dtype it returns for each input dtype (or why it refuses it) and its accuracy against
//! PyTorch, built from the op tables (`op::table`) and the dtype rules the ops themselves run
//! (`UnaryOp::result_dtype`, `BinaryOp::result_dtype`, `ReduceOp::output_dtype`). What is
//! restated elsewhere is generated from it or checked against it:
//!
//! - the JS op table (`wt.__opTable()`, through [`json`]), which the JS suite checks the
//!   methods, the results' dtypes on every device and the `.d.ts` result types against, and
//!   which the fuzz draws its ops from;
//! - the tolerances both suites hold the special-value fixtures to ([`Tolerance`]);
//! - the op reference `docs/guide/ops.md` ([`markdown`]; a test fails on any drift);
//! - the Rust test that runs every op on every dtype on every device (`tests/manifest.rs`).

use crate::dtype::DType;
use crate::op::binary::BinaryOp;
use crate::op::reduce::ReduceOp;
use crate::op::unary::UnaryOp;

/// The kind of an op in the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// One tensor in, one out, elementwise (`x.exp()`).
    Unary,
    /// Two tensors (or a tensor and a number) in, broadcast, elementwise (`a.add(b)`).
    Binary,
    /// A reduction over some or all dimensions (`x.sum()`).
    Reduce,
}

impl Family {
    /// The family's name in the op table (`unary`, `binary`, `reduce`).
    pub fn name(self) -> &'static str {
        match self {
            Family::Unary => "unary",
            Family::Binary => "binary",
            Family::Reduce => "reduce",
        }
    }
}

/// How far an op's result may be from PyTorch's (f32) on every device: the bound at input `x`
/// where PyTorch gives `want` is `rel' * |want| + abs'` (see [`Tolerance::bound`]). Exact ops
/// have all zeros. The Rust and JS special-value suites both read these.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Tolerance {
    /// Relative error.
    pub rel: f32,
    /// Absolute error.
    pub abs: f32,
    /// Further relative error per unit of `|x|` (up to 100): exp-based ops magnify the input's
    /// own rounding by `|x|`.
    pub rel_per_x: f32,
    /// Further absolute error times `1 + want^2` (tan: its derivative).
    pub abs_per_slope: f32,
    /// Relative error times `1 + |log2 want| / 8` (up to 150 for the logarithm): pow is
    /// `exp2(b log2 a)`, whose exponent's error grows with its size.
    pub rel_per_log2: f32,
    /// Past `|x|` this large any answer in range stands (0: no limit). The WGSL sin and cos
    /// reduce their argument exactly up to 8192; beyond, an f32 argument carries almost no
    /// phase and the driver's answer is kept.
    pub max_x: f32,
}

impl Tolerance {
    const EXACT: Tolerance =
        Tolerance { rel: 0.0, abs: 0.0, rel_per_x: 0.0, abs_per_slope: 0.0, rel_per_log2: 0.0, max_x: 0.0 };

    const fn rel(rel: f32) -> Tolerance {
        Tolerance { rel, ..Tolerance::EXACT }
    }

    /// The largest error allowed at input `x` where PyTorch gives `want`, or `None` where any
    /// answer stands.
    pub fn bound(&self, x: f32, want: f32) -> Option<f32> {
        if self.max_x > 0.0 && x.abs() > self.max_x {
            return None;
        }
        // Each term only where the op has it: 0 * inf would be NaN.
        let mut rel = self.rel + self.rel_per_x * x.abs().min(100.0);
        if self.rel_per_log2 > 0.0 {
            rel += self.rel_per_log2 * (1.0 + want.abs().log2().abs().min(150.0) / 8.0);
        }
        let mut bound = self.abs;
        if rel > 0.0 {
            bound += rel * want.abs();
        }
        if self.abs_per_slope > 0.0 {
            bound += self.abs_per_slope * (1.0 + want * want);
        }
        Some(bound)
    }
}

/// The tolerance of a unary op (one exhaustive match: a new op must state its accuracy).
pub fn unary_tolerance(op: UnaryOp) -> Tolerance {
    use UnaryOp::*;
    let t = Tolerance::rel;
    match op {
        Neg | Abs | Square | Relu | Floor | Ceil | Round | Sign => Tolerance::EXACT,
        Sin | Cos => Tolerance { abs: 2e-6, max_x: 8192.0, ..Tolerance::EXACT },
        Tan => Tolerance { abs_per_slope: 2e-6, max_x: 8192.0, ..Tolerance::EXACT },
        Log1p | Expm1 | Elu | Asin | Acos | Atan | Asinh | Acosh | Atanh => t(2e-6),
        Sinh | Cosh | Softplus | Mish => Tolerance { rel: 2e-6, rel_per_x: 2e-7, ..Tolerance::EXACT },
        // A division by 6.
        Hardswish | Hardsigmoid => t(5e-7),
        Exp => Tolerance { rel: 2e-7, rel_per_x: 2e-7, ..Tolerance::EXACT },
        Log => Tolerance { rel: 1e-6, abs: 1e-6, ..Tolerance::EXACT },
        // The shared erf formula.
        Erf | Gelu | GeluGrad => Tolerance { rel: 5e-7, abs: 2e-7, ..Tolerance::EXACT },
        Tanh | Sigmoid | Silu => t(2e-6),
        // 1 + tanh cancels for negative x: an absolute term for the small results there.
        GeluTanh => Tolerance { rel: 2e-6, abs: 1e-6, ..Tolerance::EXACT },
        Sqrt | Rsqrt | Reciprocal => t(1e-6),
    }
}

/// The tolerance of a binary op (one exhaustive match).
pub fn binary_tolerance(op: BinaryOp) -> Tolerance {
    use BinaryOp::*;
    match op {
        Div => Tolerance::rel(1e-6),
        Pow => Tolerance { rel_per_log2: 1e-6, ..Tolerance::EXACT },
        Atan2 => Tolerance::rel(2e-6),
        // remainder, fmod and floor_divide are exact: long division of the significands.
        Add | Sub | Mul | Maximum | Minimum | Eq | Ne | Lt | Le | Gt | Ge | Remainder | Fmod | FloorDivide
        | BitwiseAnd | BitwiseOr | BitwiseXor | BitwiseLeftShift | BitwiseRightShift | Prelu => Tolerance::EXACT,
    }
}

/// What autograd does through an op (for float inputs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gradient {
    /// A backward rule, PyTorch's.
    Yes,
    /// Differentiable with a zero gradient almost everywhere (rounding, `sign`, `floor_divide`),
    /// as PyTorch's.
    Zero,
    /// Not recorded: integer or bool results (comparisons, bitwise ops, arg-reductions).
    No,
}

impl Gradient {
    /// `yes`, `zero` or `no`.
    pub fn name(self) -> &'static str {
        match self {
            Gradient::Yes => "yes",
            Gradient::Zero => "zero",
            Gradient::No => "no",
        }
    }
}

/// The gradient of a unary op (one exhaustive match, as the backward rules in `ops/unary.rs`).
pub fn unary_gradient(op: UnaryOp) -> Gradient {
    use UnaryOp::*;
    match op {
        Floor | Ceil | Round | Sign => Gradient::Zero,
        Neg | Abs | Exp | Log | Sqrt | Rsqrt | Reciprocal | Square | Sin | Cos | Tanh | Sigmoid | Relu | Gelu
        | GeluTanh | Erf | Silu | Log1p | Expm1 | Tan | Asin | Acos | Atan | Sinh | Cosh | Asinh | Acosh | Atanh
        | Softplus | Mish | Hardswish | Hardsigmoid | Elu | GeluGrad => Gradient::Yes,
    }
}

/// The gradient of a binary op: none where `Tensor::binary` records none (comparisons and
/// bitwise ops give integers or bools), zero for `floor_divide`.
pub fn binary_gradient(op: BinaryOp) -> Gradient {
    if op.is_comparison() || op.int_only() {
        Gradient::No
    } else if op == BinaryOp::FloorDivide {
        Gradient::Zero
    } else {
        Gradient::Yes
    }
}

/// One op of the manifest.
#[derive(Debug, Clone)]
pub struct OpSpec {
    /// Its family.
    pub family: Family,
    /// Its name (the Rust method's; the JS method is its camelCase form).
    pub name: &'static str,
    /// For each dtype (in [`DType::ALL`] order), the result's dtype when the input (for binary
    /// ops, both operands) has it, or why the op refuses it.
    pub results: Vec<(DType, Result<DType, &'static str>)>,
    /// Its accuracy against PyTorch.
    pub tolerance: Tolerance,
    /// What autograd does through it.
    pub gradient: Gradient,
    /// Whether its method is written by hand with arguments of its own (`elu(alpha)`,
    /// `prelu(weight)`): then `results` describe the op (`Tensor::unary`, `Tensor::binary`),
    /// and the method's own rules are documented with it.
    pub custom: bool,
}

impl OpSpec {
    /// Its documentation, from its table. (A lookup rather than a field, so that the `.wasm`,
    /// which builds specs for the JS op table but never prints docs, does not carry them.)
    pub fn doc(&self) -> &'static str {
        match self.family {
            Family::Unary => UnaryOp::from_name(self.name).map(UnaryOp::doc),
            Family::Binary => BinaryOp::from_name(self.name).map(BinaryOp::doc),
            Family::Reduce => ReduceOp::from_name(self.name).map(ReduceOp::doc),
        }
        .unwrap_or("")
    }
}

/// Every public unary, binary and reduction op, in table order.
pub fn ops() -> Vec<OpSpec> {
    let per_dtype = |f: &dyn Fn(DType) -> Result<DType, &'static str>| DType::ALL.iter().map(|&d| (d, f(d))).collect();
    let unary = UnaryOp::ALL.into_iter().map(|op| OpSpec {
        family: Family::Unary,
        name: op.name(),
        results: per_dtype(&|d| op.result_dtype(d)),
        tolerance: unary_tolerance(op),
        gradient: unary_gradient(op),
        custom: op.custom_method(),
    });
    let binary = BinaryOp::ALL.into_iter().map(|op| OpSpec {
        family: Family::Binary,
        name: op.name(),
        results: per_dtype(&|d| op.result_dtype(d, d)),
        tolerance: binary_tolerance(op),
        gradient: binary_gradient(op),
        custom: op.custom_method(),
    });
    let reduce = ReduceOp::ALL.into_iter().map(|op| OpSpec {
        family: Family::Reduce,
        name: op.name(),
        results: per_dtype(&|d| Ok(op.output_dtype(d))),
        tolerance: Tolerance::EXACT,
        gradient: if op.is_arg() { Gradient::No } else { Gradient::Yes },
        custom: op.custom_method(),
    });
    unary.chain(binary).chain(reduce).collect()
}

/// The manifest as JSON: `[{family, name, custom, results: {f32: "f32" | null, ...}, tolerance:
/// {rel, abs, relPerX, absPerSlope, relPerLog2, maxX}}]` (docs left out: the JS op table
/// does not need them, and the `.wasm` need not carry them).
pub fn json() -> String {
    let entries: Vec<String> = ops()
        .iter()
        .map(|op| {
            let results: Vec<String> = op
                .results
                .iter()
                .map(|(d, r)| format!("\"{}\":{}", d.name(), r.map(|o| format!("\"{}\"", o.name())).unwrap_or("null".into())))
                .collect();
            let t = op.tolerance;
            format!(
                "{{\"family\":\"{}\",\"name\":\"{}\",\"custom\":{},\"results\":{{{}}},\"tolerance\":{{\"rel\":{},\"abs\":{},\"relPerX\":{},\"absPerSlope\":{},\"relPerLog2\":{},\"maxX\":{}}}}}",
                op.family.name(),
                // Names are identifiers (`stringify!` of the method): nothing to escape.
                op.name,
                op.custom,
                results.join(","),
                t.rel,
                t.abs,
                t.rel_per_x,
                t.abs_per_slope,
                t.rel_per_log2,
                t.max_x
            )
        })
        .collect();
    format!("[{}]", entries.join(","))
}

/// The op reference in Markdown (`docs/guide/ops.md`): per family a table of each op, its
/// JS name, what each input dtype gives and its doc.
pub fn markdown() -> String {
    let camel = |s: &str| {
        let mut out = String::new();
        let mut up = false;
        for c in s.chars() {
            match c {
                '_' => up = true,
                c if up => {
                    out.extend(c.to_uppercase());
                    up = false
                }
                c => out.push(c),
            }
        }
        out
    };
    let mut md = String::from(
        "# Op reference: elementwise ops and reductions\n\n\
         Generated from the op tables in `src/op/` by `webtensor::op::manifest::markdown` \
         (`WEBTENSOR_BLESS=1 cargo test --test manifest` rewrites it; the test fails when it \
         drifts). **Dtypes** lists what each input dtype gives (for binary ops: both operands of \
         that dtype; mixed operands promote first, see the guide); a dtype not listed is refused \
         with an error that says why. The Rust method is the name; the JS method is its camelCase \
         form; **grad** says whether autograd records it (`zero`: a zero gradient almost everywhere, \
         as PyTorch's); `(…)` marks a method written by hand with arguments of its own (the row gives the \
         op's dtypes; the method's are in its doc). Every op runs on every device.\n",
    );
    for family in [Family::Unary, Family::Binary, Family::Reduce] {
        let title = match family {
            Family::Unary => "Unary (`x.op()`)",
            Family::Binary => "Binary (`a.op(b)`, `a.op_scalar(s)`; JS `a.op(b | number)`)",
            Family::Reduce => "Reductions (`x.op(dims, keepdim)`, `x.op_all()`; JS `x.op(dim?, keepdim?)`)",
        };
        md.push_str(&format!("\n## {title}\n\n| op | JS | dtypes | grad | |\n|---|---|---|---|---|\n"));
        for op in ops().into_iter().filter(|o| o.family == family) {
            let mut groups: Vec<(Vec<&str>, DType)> = Vec::new();
            for (d, r) in &op.results {
                if let Ok(out) = r {
                    match groups.iter_mut().find(|(_, o)| o == out) {
                        Some((ins, _)) => ins.push(d.name()),
                        None => groups.push((vec![d.name()], *out)),
                    }
                }
            }
            let dtypes: Vec<String> =
                groups.iter().map(|(ins, out)| format!("{} → {}", ins.join(" "), out.name())).collect();
            let doc = op.doc().lines().map(str::trim).collect::<Vec<_>>().join(" ").replace('|', "\\|");
            // A hand-written method takes arguments of its own (`elu(alpha)`).
            let js = if op.custom { format!("{}(…)", camel(op.name)) } else { camel(op.name) };
            md.push_str(&format!(
                "| `{}` | `{}` | {} | {} | {} |\n",
                op.name,
                js,
                dtypes.join("; "),
                op.gradient.name(),
                doc
            ));
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        let all = ops();
        for op in &all {
            assert_eq!(all.iter().filter(|o| o.name == op.name && o.family == op.family).count(), 1, "{}", op.name);
        }
        for op in UnaryOp::ALL {
            assert_eq!(UnaryOp::from_name(op.name()), Some(op));
        }
        assert_eq!(UnaryOp::from_name("gelu_backward"), None, "internal ops are not public");
        assert!(json().starts_with("[{\"family\":\"unary\",\"name\":\"neg\",\"custom\":false"));
        assert!(UnaryOp::Elu.custom_method() && BinaryOp::Prelu.custom_method() && !BinaryOp::Add.custom_method());
    }

    #[test]
    fn tolerance_bounds() {
        assert_eq!(unary_tolerance(UnaryOp::Neg).bound(3.0, 3.0), Some(0.0));
        assert_eq!(unary_tolerance(UnaryOp::Sin).bound(1e4, 0.5), None);
        let tan = unary_tolerance(UnaryOp::Tan).bound(1.0, 2.0).unwrap();
        assert!((tan - 1e-5).abs() < 1e-9, "{tan}");
    }
}
