//! Op descriptors: the leaf of the crate's layering. Every kernel family's op enums (name, CPU
//! semantics, WGSL and CUDA expressions) and argument structs live here and import nothing from
//! tensors, storage or backends; backends implement kernels over them and `ops/` (the public
//! tensor API) sits above. See ARCHITECTURE.md for the layers.

pub mod binary;
pub(crate) mod expr;
pub(crate) mod fill;
pub(crate) mod fused;
pub mod manifest;
pub(crate) mod math;
pub mod optim;
pub(crate) mod param_layout;
pub(crate) mod params;
pub(crate) mod pow;
pub mod reduce;
pub(crate) mod sort;
pub(crate) mod table;
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
    /// Where the bias starts in its storage when the call has one (`KernelCall::Matmul`'s
    /// `bias`: `n` contiguous elements added to every output row, a Linear's epilogue).
    pub bias_offset: usize,
}

/// Which kernel computes a matmul on the GPU backends, chosen by shape as TF.js and cuBLAS do:
/// one tiled program for every shape made skinny products do 40-170x their useful work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum MatmulProgram {
    /// Output tiles staged through workgroup memory: square-ish products.
    Tiled,
    /// Tiled's shape for software adapters: blocks accumulated in registers straight from the
    /// operands, with no workgroup memory and no barriers (chosen by the wgpu backend).
    Blocked,
    /// Blocked with vec4 loads and stores, for operands laid out for them
    /// ([`MatmulArgs::vec4_aligned`]): a quarter of the loads, each a gather on a software
    /// adapter. The CUDA backend compiles it as Blocked (nvcc vectorises loads itself).
    Blocked4,
    /// Tiled's shape for hardware GPUs on large products: 128x128 output tiles, 8x8 outputs per
    /// thread in registers (chosen by the wgpu backend; CUDA runs cuBLAS).
    Register,
    /// Register with a vec4 load of each operand per thread and step and double-buffered
    /// workgroup tiles, for operands laid out in whole vec4s ([`MatmulArgs::register_vec4`]).
    Register4,
    /// One thread per output walking the inner dim: a short inner dim (`[n,3] @ [3,8]`) or a
    /// thin output (matrix-vector), where tiles would mostly multiply padding.
    Naive,
    /// One workgroup per output, its threads splitting a long inner dim and folding as a tree:
    /// few outputs over a long inner dim (`onehot^T @ x`, [8,153600] @ [153600,3]).
    Dot,
}

impl MatmulArgs {
    /// The program for this shape (see [`MatmulProgram`]).
    pub(crate) fn program(&self) -> MatmulProgram {
        let outputs = self.batch * self.m * self.n;
        if outputs <= 512 && self.k >= 1024 {
            MatmulProgram::Dot
        } else if self.k <= 32 || self.m.min(self.n) <= 4 {
            MatmulProgram::Naive
        } else {
            MatmulProgram::Tiled
        }
    }

    /// Whether B's rows are contiguous runs of whole vec4s: B row-major, `n` a multiple of 4 and
    /// B's offset and strides multiples of 4 (the Blocked4 program; A is read as Blocked does).
    pub(crate) fn vec4_aligned(&self) -> bool {
        let b = &self.b;
        b.col_stride == 1 && [self.n, b.offset, b.batch_stride, b.row_stride].iter().all(|v| v % 4 == 0)
    }

    /// Whether both operands lie in whole vec4s, as matmul_register4.wgsl binds them: each has a
    /// stride of 1 along k or along its other dim, that dim is a multiple of 4, and so are its
    /// other stride, offset and batch stride. (The program reads an operand in vec4s along m or
    /// n, and in scalars of the vec4 binding along k.)
    pub(crate) fn register_vec4(&self) -> bool {
        let whole = |o: &MatOperand, side: usize, k_stride: usize, side_stride: usize| {
            let aligned = |rest: usize| [rest, o.offset, o.batch_stride].iter().all(|v| v.is_multiple_of(4));
            (k_stride == 1 && self.k.is_multiple_of(4) && aligned(side_stride))
                || (side_stride == 1 && side.is_multiple_of(4) && aligned(k_stride))
        };
        whole(&self.a, self.m, self.a.col_stride, self.a.row_stride)
            && whole(&self.b, self.n, self.b.row_stride, self.b.col_stride)
    }
}

#[cfg(test)]
mod tests {
    use super::{MatOperand, MatmulArgs, MatmulProgram};

    fn args(batch: usize, m: usize, k: usize, n: usize) -> MatmulArgs {
        let op = MatOperand { offset: 0, batch_stride: 0, row_stride: 1, col_stride: 1 };
        MatmulArgs { batch, m, n, k, a: op, b: op, bias_offset: 0 }
    }

    #[test]
    fn programs_follow_the_shape() {
        // The k-means step's two products, and the shapes tests/vs_cpu/matmul.rs uses per program.
        assert_eq!(args(1, 8, 153_600, 3).program(), MatmulProgram::Dot);
        assert_eq!(args(1, 153_600, 3, 8).program(), MatmulProgram::Naive);
        assert_eq!(args(4, 2, 1500, 3).program(), MatmulProgram::Dot);
        assert_eq!(args(4, 2, 600, 3).program(), MatmulProgram::Naive);
        assert_eq!(args(1, 300, 500, 1).program(), MatmulProgram::Naive);
        assert_eq!(args(1, 40, 9001, 70).program(), MatmulProgram::Tiled);
        assert_eq!(args(1, 30, 5000, 30).program(), MatmulProgram::Tiled);
        assert_eq!(args(1, 1024, 1024, 1024).program(), MatmulProgram::Tiled);
        assert_eq!(args(1, 17, 33, 65).program(), MatmulProgram::Tiled);
    }

    #[test]
    fn vec4_alignment_needs_b_rows_in_whole_vec4s() {
        let row_major = |rows: usize, cols: usize| MatOperand {
            offset: 0,
            batch_stride: rows * cols,
            row_stride: cols,
            col_stride: 1,
        };
        let g = |m, k, n| MatmulArgs { batch: 2, m, n, k, a: row_major(m, k), b: row_major(k, n), bias_offset: 0 };
        // m and k are free: rows past the edge are clamped and A is read a scalar at a time.
        assert!(g(7, 5, 12).vec4_aligned());
        assert!(!g(8, 8, 10).vec4_aligned());
        let a_transposed =
            MatmulArgs { a: MatOperand { row_stride: 1, col_stride: 7, ..row_major(5, 7) }, ..g(7, 5, 8) };
        assert!(a_transposed.vec4_aligned());
        let offset = MatmulArgs { b: MatOperand { offset: 2, ..row_major(8, 8) }, ..g(8, 8, 8) };
        assert!(!offset.vec4_aligned());
        let transposed = MatmulArgs { b: MatOperand { row_stride: 1, col_stride: 8, ..row_major(8, 8) }, ..g(8, 8, 8) };
        assert!(!transposed.vec4_aligned());
        let broadcast = MatmulArgs { b: MatOperand { batch_stride: 0, ..row_major(8, 8) }, ..g(8, 8, 8) };
        assert!(broadcast.vec4_aligned());
    }

    #[test]
    fn register_vec4_takes_operands_in_whole_vec4s() {
        let rows = |r: usize, c: usize| MatOperand { offset: 0, batch_stride: r * c, row_stride: c, col_stride: 1 };
        let cols = |r: usize, c: usize| MatOperand { offset: 0, batch_stride: r * c, row_stride: 1, col_stride: r };
        let g = |m, k, n, a, b| MatmulArgs { batch: 2, m, n, k, a, b, bias_offset: 0 };
        // A GPT's products: x @ W^T (A along k, B along k), dY @ W (A along k, B along n),
        // dY^T @ X (A along m, B along n), and the tied output layer's 65 columns.
        assert!(g(64, 384, 1152, rows(64, 384), cols(384, 1152)).register_vec4());
        assert!(g(64, 1152, 384, rows(64, 1152), rows(1152, 384)).register_vec4());
        assert!(g(1152, 64, 384, cols(1152, 64), rows(64, 384)).register_vec4());
        assert!(g(64, 384, 65, rows(64, 384), cols(384, 65)).register_vec4());
        // A dim of 4s, but not the contiguous one; a stride, an offset or a batch stride off 4.
        assert!(!g(64, 383, 64, rows(64, 383), rows(383, 64)).register_vec4());
        assert!(!g(64, 64, 65, rows(64, 64), rows(64, 65)).register_vec4());
        let offset = MatOperand { offset: 2, ..rows(64, 64) };
        assert!(!g(64, 64, 64, offset, rows(64, 64)).register_vec4());
        let batch = MatOperand { batch_stride: 6, ..rows(64, 64) };
        assert!(!g(64, 64, 64, rows(64, 64), batch).register_vec4());
        let broadcast = MatOperand { batch_stride: 0, ..rows(64, 64) };
        assert!(g(64, 64, 64, rows(64, 64), broadcast).register_vec4());
        let padded = MatOperand { col_stride: 66, ..cols(64, 64) };
        assert!(!g(64, 64, 64, padded, rows(64, 64)).register_vec4());
    }
}
