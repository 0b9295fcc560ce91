//! The CUDA C of the lazy tier's generated programs (`op::expr`), as `shaders/elementwise.rs`
//! writes their WGSL: a grid-stride loop over the output reads each leaf at its offset plus the
//! position (a leaf contiguous over the output) or through its strides over the coalesced
//! shape, runs the program's ops as the eager kernels spell them (`UnaryOp::cuda_float`,
//! `BinaryOp::cuda`) and stores the result. Params: `op::params::ElementwiseParams`.

use crate::op::binary::CUDA_BINARY;
use crate::op::expr::{Instr, Program, MAX_RANK};

/// The op functions and the entry point (the prelude and the `Params` struct come first);
/// `rank` is the coalesced shape's, leaf `k` read flat where bit `k` of `flat` is set.
pub(super) fn render(program: &Program, rank: usize, flat: u8) -> String {
    let f = "__device__ __forceinline__";
    let leaves = program.leaves();
    let mut src = String::new();
    let mut helpers: Vec<&'static str> = Vec::new();
    for (r, i) in program.instrs().iter().enumerate() {
        match *i {
            Instr::Unary(u, _) => {
                let h = u.cuda_helpers();
                if !h.is_empty() && !helpers.contains(&h) {
                    helpers.push(h);
                }
                src += &format!("{f} float op{r}(float v) {{ return {}; }}\n", u.cuda_float());
            }
            Instr::Binary(op, _, _) => {
                if !helpers.contains(&CUDA_BINARY) {
                    helpers.push(CUDA_BINARY);
                }
                src += &format!("{f} float op{r}(float a, float b) {{ return {}; }}\n", op.cuda(true));
            }
            Instr::Load(_) | Instr::LoadBool(_) | Instr::Scalar(_) | Instr::Select(..) => {}
        }
    }
    let mut out = helpers.concat();
    out += &src;
    // A condition is a bool tensor: a 32-bit word per element.
    let bools = program.bool_leaves();
    let ty = |k: usize| if bools & (1 << k) != 0 { "unsigned" } else { "float" };
    let params: Vec<String> = (0..leaves).map(|k| format!("const {}* __restrict__ l{k}", ty(k))).collect();
    out += &format!(
        "extern \"C\" __global__ void k({}float* __restrict__ out, Params P) {{\nFOR_EACH(i, P.numel) {{\n",
        params.iter().map(|p| format!("{p}, ")).collect::<String>()
    );
    let strided: Vec<usize> = (0..leaves).filter(|k| flat & (1 << k) == 0).collect();
    for &k in &strided {
        out += &format!("u64 o{k} = P.offsets[{k}];\n");
    }
    if !strided.is_empty() && rank > 0 {
        out += "u64 rem = i;\n";
        for d in (1..rank.min(MAX_RANK)).rev() {
            out += &format!("{{ u64 size = P.shape[{d}]; u64 q = rem / size; u64 c = rem - q * size;");
            for &k in &strided {
                out += &format!(" o{k} += c * P.strides[{}];", k * MAX_RANK + d);
            }
            out += " rem = q; }\n";
        }
        for &k in &strided {
            out += &format!("o{k} += rem * P.strides[{}];\n", k * MAX_RANK);
        }
    }
    for (r, i) in program.instrs().iter().enumerate() {
        out += &match *i {
            Instr::Load(k) | Instr::LoadBool(k) if flat & (1 << k) != 0 => {
                format!("float v{r} = (float)l{k}[P.offsets[{k}] + i];\n")
            }
            Instr::Load(k) | Instr::LoadBool(k) => format!("float v{r} = (float)l{k}[o{k}];\n"),
            Instr::Scalar(k) => format!("float v{r} = __uint_as_float((unsigned)P.scalars[{k}]);\n"),
            Instr::Unary(_, a) => format!("float v{r} = op{r}(v{a});\n"),
            Instr::Binary(_, a, b) => format!("float v{r} = op{r}(v{a}, v{b});\n"),
            Instr::Select(c, a, b) => format!("float v{r} = v{c} != 0.0f ? v{a} : v{b};\n"),
        };
    }
    out += &format!("out[i] = v{};\n}}\n}}\n", program.result());
    out
}
