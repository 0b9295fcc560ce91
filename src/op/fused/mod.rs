//! The fused kernel families that every backend launches the same way: a family declares its
//! arguments, its parameter struct, its passes (which program part, its parameter words and its
//! grid) and its programs (a WGSL file and a CUDA file) in `op/fused/<family>.rs`; the GPU
//! backends bind the call's inputs, its output and any scratch in that order and launch the
//! passes (`device/wgpu/fused.rs`, `device/cuda/fused.rs`), and the CPU runs its own kernel
//! (`device/cpu/fused.rs`). Adding a family touches six files: its file here and its arm in
//! this registry, its `.wgsl` and `.cu`, its CPU kernel, and the op that calls it.

use crate::dtype::DType;
use crate::op::param_layout::Field;

pub(crate) mod attention;
pub(crate) mod cross_entropy;
pub(crate) mod dropout;
pub(crate) mod foreach;
pub(crate) mod index_range;
pub(crate) mod layer_norm;
pub(crate) mod scan;

use attention::AttentionArgs;
use cross_entropy::CrossEntropyArgs;
use dropout::DropoutArgs;
use foreach::{ForeachArgs, ForeachOp};
use index_range::IndexRangeArgs;
use layer_norm::LayerNormArgs;
use scan::ScanArgs;

/// Which family a program belongs to (part of its `KernelKey`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum FusedKind {
    Attention,
    Dropout,
    CrossEntropy,
    LayerNorm,
    Foreach,
    IndexRange,
    Scan,
}

/// One call of a fused family: which, and its arguments (offsets of the inputs included).
// Attention's arguments (its operands' views and the results' layouts) make the enum large; a
// call is built once per launch and passed by reference, and boxing would end `Copy`.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Fused {
    /// See [`attention`]. Inputs: q, k, v, the mask (q where absent), then for the backward
    /// (`args.dout`) the forward's output and the output's gradient.
    Attention(AttentionArgs),
    /// See [`dropout`]. Input: the source.
    Dropout(DropoutArgs),
    /// See [`cross_entropy`]. Inputs: scores and targets, then for the gradient
    /// (`args.backward`) the forward's output and the per-row loss gradient.
    CrossEntropy(CrossEntropyArgs),
    /// See [`layer_norm`]. Inputs: x, the weight and the bias (x where absent), then for the
    /// backward (`args.backward`) the forward's output and the output's gradient; f32 scratch
    /// after the output.
    LayerNorm(LayerNormArgs),
    /// See [`foreach`]. Inputs: the f32 tensors, then for a scale the coefficient (input 0
    /// where absent); f32 scratch (a partial sum per chunk) after the output.
    Foreach(ForeachArgs),
    /// See [`index_range`]. Input: the i32 or u32 index; scratch of its dtype (a pair per
    /// chunk) after the two-element output.
    IndexRange(IndexRangeArgs),
    /// See [`scan`]. Input: the tensor.
    Scan(ScanArgs),
}

/// How a pass's threads are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grid {
    /// A thread per item: 1-D workgroups (blocks) of `WG` threads over the items.
    Threads(usize),
    /// A workgroup (block) of `WG` threads per item; the programs stride over the items past
    /// the grid the backend launches.
    Groups(usize),
    /// Exactly these workgroups (blocks) of `WG` threads in x and y (each at most 65535).
    Fixed(usize, usize),
    /// This many workgroups (blocks) of the given number of threads (the program's own
    /// workgroup size), numbered over a folded 2-D grid on wgpu.
    Blocks(usize, usize),
}

/// One launch of a family's program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pass {
    /// Which program part: the family maps it to its program and `PART` constant
    /// ([`FusedKind::wgsl`], [`FusedKind::part_constant`]).
    pub part: u8,
    /// The family's parameter struct, as words.
    pub words: Vec<usize>,
    pub grid: Grid,
}

/// Where a call runs, as far as its passes depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Target {
    /// A software adapter (few cores, barriers costly): rows a thread each rather than a
    /// workgroup each.
    pub software: bool,
}

/// An elementwise family's pieces: for a tensor past one binding, wgpu launches the same
/// program over ranges of input 0 and the output (`first..first + len` of `n`), each piece
/// continuing the element numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Elementwise {
    /// Elements of the output.
    pub n: usize,
    /// Where input 0 starts.
    pub src_offset: usize,
}

impl Fused {
    /// The family.
    pub(crate) fn kind(&self) -> FusedKind {
        match self {
            Fused::Attention(_) => FusedKind::Attention,
            Fused::Dropout(_) => FusedKind::Dropout,
            Fused::CrossEntropy(_) => FusedKind::CrossEntropy,
            Fused::LayerNorm(_) => FusedKind::LayerNorm,
            Fused::Foreach(_) => FusedKind::Foreach,
            Fused::IndexRange(_) => FusedKind::IndexRange,
            Fused::Scan(_) => FusedKind::Scan,
        }
    }

    /// The name errors, the placement log and fallbacks give the call.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Fused::Attention(a) if a.backward() => "scaled_dot_product_attention_backward",
            Fused::Attention(_) => "scaled_dot_product_attention",
            Fused::Dropout(_) => "dropout",
            Fused::CrossEntropy(a) if a.backward => "cross_entropy_backward",
            Fused::CrossEntropy(_) => "cross_entropy",
            Fused::LayerNorm(a) if a.backward => "layer_norm_backward",
            Fused::LayerNorm(_) => "layer_norm",
            Fused::Foreach(a) if a.op == ForeachOp::Scale => "foreach_mul",
            Fused::Foreach(_) => "sum_squares",
            Fused::IndexRange(_) => "index_range",
            Fused::Scan(_) => "cumsum",
        }
    }

    /// The input bindings the programs declare: a call with fewer inputs (cross-entropy's
    /// forward has no gradient yet) binds input 0 in the rest, which the pass does not read.
    pub(crate) fn input_slots(&self) -> usize {
        match self {
            Fused::Attention(_) => 6,
            Fused::Dropout(_) => 1,
            Fused::CrossEntropy(_) => 4,
            Fused::LayerNorm(_) => 5,
            Fused::Foreach(_) => foreach::TENSORS + 1,
            Fused::IndexRange(_) | Fused::Scan(_) => 1,
        }
    }

    /// The call's inputs in binding order, one per [`Self::input_slots`]: input 0 again in the
    /// slots a call leaves empty (the programs do not read them). Both GPU launchers bind these.
    pub(crate) fn slots<'a, T>(&self, inputs: &'a [T]) -> impl Iterator<Item = &'a T> {
        (0..self.input_slots()).filter_map(move |i| inputs.get(i).or(inputs.first()))
    }

    /// Elements of f32 scratch bound after the output (None: the programs declare none).
    pub(crate) fn scratch(&self) -> Option<usize> {
        match self {
            Fused::LayerNorm(a) => Some(a.scratch()),
            Fused::Foreach(a) if a.op == ForeachOp::Scale => Some(1),
            Fused::Foreach(a) => Some(a.chunks()),
            Fused::IndexRange(a) => Some(2 * a.chunks()),
            Fused::Attention(_) | Fused::Dropout(_) | Fused::CrossEntropy(_) | Fused::Scan(_) => None,
        }
    }

    /// The element type of the programs' data (part of the `KernelKey`).
    pub(crate) fn dtype(&self) -> DType {
        match self {
            Fused::Dropout(a) => a.dtype,
            Fused::Scan(a) => a.dtype,
            Fused::IndexRange(a) => a.dtype,
            Fused::Attention(_) | Fused::CrossEntropy(_) | Fused::LayerNorm(_) | Fused::Foreach(_) => DType::F32,
        }
    }

    /// Elements and dtype of the call's (contiguous) output.
    pub(crate) fn output(&self) -> (usize, DType) {
        match self {
            Fused::Attention(a) if a.backward() => (a.backward_len(), DType::F32),
            Fused::Attention(a) => (a.forward_len(), DType::F32),
            Fused::Dropout(a) => (a.n, a.dtype),
            Fused::CrossEntropy(a) if a.backward => (a.backward_len(), DType::F32),
            Fused::CrossEntropy(a) => (a.forward_len(), DType::F32),
            Fused::LayerNorm(a) if a.backward => (a.backward_len(), DType::F32),
            Fused::LayerNorm(a) => (a.forward_len(), DType::F32),
            Fused::Foreach(a) if a.op == ForeachOp::Scale => (a.total(), DType::F32),
            Fused::Foreach(_) => (1, DType::F32),
            Fused::IndexRange(a) => (2, a.dtype),
            Fused::Scan(a) => (a.len(), a.dtype),
        }
    }

    /// The call's launches on `target`, in order.
    pub(crate) fn passes(&self, target: Target) -> Vec<Pass> {
        match self {
            Fused::Attention(a) => a.passes(),
            Fused::Dropout(a) => vec![a.pass(a.n, 0, a.src_offset, 0)],
            Fused::CrossEntropy(a) => a.passes(target),
            Fused::LayerNorm(a) => a.passes(target),
            Fused::Foreach(a) => a.passes(),
            Fused::IndexRange(a) => a.passes(),
            Fused::Scan(a) => vec![a.pass()],
        }
    }

    /// For an elementwise family, its geometry (see [`Elementwise`]).
    pub(crate) fn elementwise(&self) -> Option<Elementwise> {
        match self {
            Fused::Dropout(a) => Some(Elementwise { n: a.n, src_offset: a.src_offset }),
            Fused::Attention(_)
            | Fused::CrossEntropy(_)
            | Fused::LayerNorm(_)
            | Fused::Foreach(_)
            | Fused::IndexRange(_)
            | Fused::Scan(_) => None,
        }
    }

    /// An elementwise family's pass over elements `first..first + len`, input 0 and the output
    /// bound from `src_offset` and `dst_offset`.
    pub(crate) fn piece(&self, first: usize, len: usize, src_offset: usize, dst_offset: usize) -> Option<Pass> {
        match self {
            Fused::Dropout(a) => Some(a.pass(len, first, src_offset, dst_offset)),
            Fused::Attention(_)
            | Fused::CrossEntropy(_)
            | Fused::LayerNorm(_)
            | Fused::Foreach(_)
            | Fused::IndexRange(_)
            | Fused::Scan(_) => None,
        }
    }

    /// An error where the call is too large for the GPU programs (their u32 counters), naming
    /// `device`; checked before a GPU launch.
    pub(crate) fn check_gpu(&self, device: impl FnOnce() -> String) -> crate::error::Result<()> {
        match self {
            Fused::Attention(a) => a.check_counters(device),
            _ => Ok(()),
        }
    }
}

impl FusedKind {
    /// The WGSL program of part `part` (comments stripped by build.rs).
    pub(crate) fn wgsl(self, part: u8) -> &'static str {
        match self {
            FusedKind::Attention if attention::decode(part).1.is_some() => {
                include_str!(concat!(env!("OUT_DIR"), "/attention_tiled.wgsl"))
            }
            FusedKind::Attention => include_str!(concat!(env!("OUT_DIR"), "/attention.wgsl")),
            FusedKind::Dropout => include_str!(concat!(env!("OUT_DIR"), "/dropout.wgsl")),
            FusedKind::CrossEntropy => include_str!(concat!(env!("OUT_DIR"), "/cross_entropy.wgsl")),
            FusedKind::LayerNorm => include_str!(concat!(env!("OUT_DIR"), "/layer_norm.wgsl")),
            FusedKind::Foreach => include_str!(concat!(env!("OUT_DIR"), "/foreach.wgsl")),
            FusedKind::IndexRange => include_str!(concat!(env!("OUT_DIR"), "/index_range.wgsl")),
            FusedKind::Scan => include_str!(concat!(env!("OUT_DIR"), "/scan.wgsl")),
        }
    }

    /// The CUDA program of part `part`.
    pub(crate) fn cuda(self, part: u8) -> &'static str {
        match self {
            FusedKind::Attention if attention::decode(part).1.is_some() => {
                include_str!("../../device/cuda/kernels/attention_tiled.cu")
            }
            FusedKind::Attention => include_str!("../../device/cuda/kernels/attention.cu"),
            FusedKind::Dropout => include_str!("../../device/cuda/kernels/dropout.cu"),
            FusedKind::CrossEntropy => include_str!("../../device/cuda/kernels/cross_entropy.cu"),
            FusedKind::LayerNorm => include_str!("../../device/cuda/kernels/layer_norm.cu"),
            FusedKind::Foreach => include_str!("../../device/cuda/kernels/foreach.cu"),
            FusedKind::IndexRange => include_str!("../../device/cuda/kernels/index_range.cu"),
            FusedKind::Scan => include_str!("../../device/cuda/kernels/scan.cu"),
        }
    }

    /// The `PART` constant the program of part `part` is compiled with.
    pub(crate) fn part_constant(self, part: u8) -> u8 {
        match self {
            FusedKind::Attention => attention::decode(part).0,
            _ => part,
        }
    }

    /// What the WGSL program of part `part` needs beyond the generic prelude (`D`, `PART`).
    pub(crate) fn wgsl_prelude(self, part: u8) -> String {
        match self {
            FusedKind::Attention => {
                let common = include_str!(concat!(env!("OUT_DIR"), "/attention_common.wgsl"));
                let tile = match attention::decode(part).1 {
                    Some(width) => {
                        let (v, bc) = attention::tile(width);
                        format!("const V: u32 = {v}u;\nconst BC: u32 = {bc}u;\nconst TILE: u32 = {}u;\n", v * bc)
                    }
                    None => String::new(),
                };
                format!("{tile}{}{common}", super::fill::WGSL_THREEFRY)
            }
            FusedKind::Dropout => super::fill::WGSL_THREEFRY.to_string(),
            FusedKind::IndexRange | FusedKind::Scan => String::new(),
            FusedKind::CrossEntropy | FusedKind::LayerNorm | FusedKind::Foreach => {
                include_str!(concat!(env!("OUT_DIR"), "/workgroup_sums.wgsl")).to_string()
            }
        }
    }

    /// What the CUDA program of part `part` needs beyond the generic prelude (`D`, `PART`).
    pub(crate) fn cuda_prelude(self, part: u8) -> String {
        match self {
            FusedKind::Attention => {
                let common = include_str!("../../device/cuda/kernels/attention_common.cu");
                match attention::decode(part).1 {
                    Some(width) => {
                        let (v, bc) = attention::tile(width);
                        format!("#define W {}\n#define BC {bc}\n{common}", 4 * v)
                    }
                    None => common.to_string(),
                }
            }
            _ => String::new(),
        }
    }

    /// For programs whose lines holding `#c` are written once per vec4 of a row
    /// (`shaders::expand_rows`: the tiled attention's rows in named registers), the vec4s.
    pub(crate) fn wgsl_row_vec4s(self, part: u8) -> Option<u32> {
        match self {
            FusedKind::Attention => attention::decode(part).1.map(|w| attention::tile(w).0),
            _ => None,
        }
    }

    /// The parameter struct every pass of the family takes.
    pub(crate) fn params(self) -> &'static [Field] {
        use crate::op::param_layout::KernelParams;
        match self {
            FusedKind::Attention => attention::AttentionParams::FIELDS,
            FusedKind::Dropout => dropout::DropoutParams::FIELDS,
            FusedKind::CrossEntropy => cross_entropy::CrossEntropyParams::FIELDS,
            FusedKind::LayerNorm => layer_norm::LayerNormParams::FIELDS,
            FusedKind::Foreach => foreach::ForeachParams::FIELDS,
            FusedKind::IndexRange => index_range::IndexRangeParams::FIELDS,
            FusedKind::Scan => scan::ScanParams::FIELDS,
        }
    }

    /// Whether program part `part` is for software adapters only (CUDA never launches it).
    pub(crate) fn wgsl_only(self, part: u8) -> bool {
        match self {
            FusedKind::Attention
            | FusedKind::Dropout
            | FusedKind::Foreach
            | FusedKind::IndexRange
            | FusedKind::Scan => false,
            FusedKind::CrossEntropy | FusedKind::LayerNorm => part < 2,
        }
    }

    /// Every (part, dtype) the family launches, for validation without a GPU.
    pub(crate) fn variants(self) -> Vec<(u8, DType)> {
        match self {
            FusedKind::Attention => attention::parts().into_iter().map(|part| (part, DType::F32)).collect(),
            FusedKind::Dropout => vec![(0, DType::F32), (0, DType::F16)],
            FusedKind::CrossEntropy => (0..4).map(|part| (part, DType::F32)).collect(),
            FusedKind::LayerNorm => (0..6).map(|part| (part, DType::F32)).collect(),
            FusedKind::Foreach => (0..3).map(|part| (part, DType::F32)).collect(),
            FusedKind::IndexRange => vec![(0, DType::I32), (1, DType::I32), (0, DType::U32), (1, DType::U32)],
            FusedKind::Scan => vec![(0, DType::F32), (0, DType::I32)],
        }
    }

    /// Every family.
    pub(crate) const ALL: [FusedKind; 7] = [
        FusedKind::Attention,
        FusedKind::Dropout,
        FusedKind::CrossEntropy,
        FusedKind::LayerNorm,
        FusedKind::Foreach,
        FusedKind::IndexRange,
        FusedKind::Scan,
    ];
}
