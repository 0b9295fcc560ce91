//! Op descriptors: the leaf of the crate's layering. Every kernel family's op enums (name, CPU
//! semantics, WGSL and CUDA expressions) and argument structs live here and import nothing from
//! tensors, storage or backends; backends implement kernels over them and `ops/` (the public
//! tensor API) sits above. See ARCHITECTURE.md for the layers.

pub mod binary;
pub mod optim;
pub mod reduce;
pub(crate) mod sort;
pub mod unary;
pub(crate) mod wgsl_math;

use unary::UnaryOp;

/// The "map" kernel family: one input element to one output element through a strided read and
/// a strided write. Unary ops, casts and copies (`contiguous`, `cat`) are all maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MapOp {
    /// A unary op; input and output dtypes are equal.
    Unary(UnaryOp),
    /// A dtype conversion (a plain copy when the dtypes are equal).
    Cast,
}

/// How an index op addresses its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexMode {
    /// `index_select`: a 1-D index picks whole slices along `dim`.
    Select,
    /// `gather`: an index of the output's shape picks one element along `dim` per position.
    Gather,
}

/// One operand of a (batched) matmul: where its matrices start and how to step through them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MatOperand {
    pub offset: usize,
    pub batch_stride: usize,
    pub row_stride: usize,
    pub col_stride: usize,
}

/// The geometry of a batched matmul `[batch, m, k] @ [batch, k, n] -> [batch, m, n]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MatmulArgs {
    pub batch: usize,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: MatOperand,
    pub b: MatOperand,
}
