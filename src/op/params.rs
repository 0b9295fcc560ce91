//! The parameters of every GPU kernel program, declared once (see `op::param_layout`): the
//! launches fill these structs by field, WGSL reads them by the generated `P_*` constants and
//! CUDA by the generated struct's fields. Counts, offsets and strides are in elements unless
//! a field says vec4s. Strided programs index at most 8 dims (`shaders::params::MAX_RANK`).

use super::param_layout::kernel_params;

kernel_params! {
    /// map.wgsl / map.cu: a strided read, an elementwise op or cast, a strided write.
    struct MapParams {
        /// Elements (rows, in row mode).
        numel,
        rank,
        src_offset,
        dst_offset,
        shape[8],
        src_strides[8],
        dst_strides[8],
        /// 1 when both sides are contiguous (no index arithmetic).
        fast,
        /// Row mode's row length (a thread per row of the innermost dim), or 0.
        row_len,
    }

    /// map4.wgsl: a contiguous map a vec4 at a time.
    struct Map4Params {
        /// vec4s.
        count,
        /// In vec4s.
        src_offset,
        /// In vec4s.
        dst_offset,
    }

    /// binary.wgsl / binary.cu, and binary_rows4.wgsl (`numel` counts its threads there:
    /// numel / (4 RUN)).
    struct BinaryParams {
        numel,
        rank,
        a_offset,
        b_offset,
        shape[8],
        a_strides[8],
        b_strides[8],
        /// 1: a and b contiguous with the output's shape; 2: a thread per row of a rank-2
        /// output with few columns (dispatched over rows); else 0.
        mode,
    }

    /// binary4.wgsl: contiguous same-shape operands a vec4 at a time.
    struct Binary4Params {
        /// vec4s.
        count,
        /// In vec4s.
        a_offset,
        /// In vec4s.
        b_offset,
    }

    /// binary_scalar.wgsl / .cu and binary_scalar4.wgsl (count and offset in vec4s there).
    struct ScalarParams {
        count,
        offset,
        /// The scalar as `shaders::scalar_bits` packs it.
        bits,
    }

    /// where.wgsl / where.cu, and where_rows4.wgsl (`numel` counts its threads there).
    struct WhereParams {
        numel,
        rank,
        c_offset,
        a_offset,
        shape[8],
        c_strides[8],
        a_strides[8],
        b_strides[8],
        b_offset,
        /// 1: all three contiguous with the output's shape, no index arithmetic (it cost a
        /// same-shape where over 1M 28 ms on lavapipe, an add 5).
        fast,
    }

    /// clamp4.wgsl: clamp of aligned f32 a vec4 at a time.
    struct Clamp4Params {
        /// vec4s.
        count,
        /// In vec4s.
        offset,
        lo_bits,
        hi_bits,
    }

    /// pad.wgsl: constant padding of f32.
    struct PadParams {
        /// Output elements (rows, in row mode).
        numel,
        rank,
        src_offset,
        /// The padding value's f32 bits.
        value_bits,
        /// The output's shape.
        shape[8],
        src_strides[8],
        /// Padding entries ahead of the source in each dim.
        before[8],
        src_shape[8],
        /// Row mode's row length (a thread per row of the innermost dim, for software
        /// adapters, which pay per invocation for the index arithmetic), or 0.
        row_len,
    }

    /// fill.wgsl / fill.cu: a value or uniform samples (`op::fill`).
    struct FillParams {
        numel,
        /// The value as `shaders::scalar_bits` packs it.
        bits,
        /// 1: uniform samples of the generator; 2: standard normal samples.
        mode,
        key_lo,
        key_hi,
        /// The index of the first element (a piece of a larger fill continues its counters):
        /// all of it on CUDA, its low 32 bits on wgpu, which reads the rest from `first_hi`.
        first,
        first_hi,
    }


    /// reduce.wgsl / reduce.cu: workgroup folds of chunks of contiguous rows.
    struct ReduceParams {
        rows,
        k,
        /// Elements one workgroup folds.
        chunk,
        /// Chunks per row.
        chunks,
        offset,
    }

    /// reduce_small.wgsl / .cu: a thread per short row or per interleaved chunk of one.
    struct ReduceSmallParams {
        rows,
        k,
        offset,
        /// Chunks per row (CUDA: one).
        chunks,
    }

    /// reduce_sum4.wgsl: the first pass of a software adapter's f32 sum, a vec4 a step.
    struct ReduceSum4Params {
        rows,
        /// Row length in vec4s.
        k,
        /// In vec4s.
        offset,
        chunks,
    }

    /// reduce_strided.wgsl / .cu: a thread per output of a strided view ([kept.., reduced..]):
    /// output g is kept index (g / m2, g % m2) at `offset + (g / m2) rs1 + (g % m2) rs2`, folding
    /// the k1 x k2 reduced elements at `a es1 + b es2` in row-major order.
    struct StridedReduceParams {
        outputs,
        offset,
        m2,
        rs1,
        rs2,
        k1,
        k2,
        es1,
        es2,
    }

    /// softmax.wgsl / .cu: a workgroup (or on software adapters a thread) per row.
    struct SoftmaxParams {
        rows,
        k,
        offset,
        /// 1: a thread per row.
        serial,
    }

    /// The tiled matmul programs (matmul, matmul_blocked(4), matmul_register .wgsl; matmul.cu
    /// and matmul_blocked.cu): `[batch, m, k] @ [batch, k, n]`, batches from `first_batch` on.
    struct MatmulParams {
        m,
        n,
        k,
        a_batch_stride,
        b_batch_stride,
        a_offset,
        b_offset,
        first_batch,
        a_row_stride,
        a_col_stride,
        b_row_stride,
        b_col_stride,
        /// matmul_blocked: 8-row blocks per workgroup (1, 2, 4, 8 or 16).
        row_blocks,
        /// Where the bias starts (the variants with one: `KernelKey::Matmul`'s `bias`).
        bias_offset,
    }

    /// matmul_naive and matmul_dot (.wgsl, .cu): a thread (or workgroup) per output, every
    /// batch in one launch.
    struct MatmulItemsParams {
        m,
        n,
        k,
        a_batch_stride,
        b_batch_stride,
        a_offset,
        b_offset,
        /// Outputs (rows, in row mode).
        items,
        a_row_stride,
        a_col_stride,
        b_row_stride,
        b_col_stride,
        /// matmul_naive: 1 for a thread per output row, reading the row of `a` once per column
        /// from cache and indexing with no division per output (per-output threads made
        /// [153600,3]@[3,8] 8x slower than a copy).
        row_mode,
        /// Where the bias starts (as in `MatmulParams`).
        bias_offset,
    }

    /// sort.wgsl / sort.cu: one step of the bitonic argsort.
    struct SortParams {
        rows,
        /// Row length.
        len,
        /// Padded row length (a power of two).
        np,
        offset,
        descending,
        /// The merge's size (0: initialise the positions).
        kk,
        /// The step's distance.
        j,
    }

    /// select.wgsl / select.cu: top-k of chunks of rows, then of the chunks' candidates.
    struct SelectParams {
        rows,
        /// Row length.
        len,
        offset,
        descending,
        keep,
        chunks,
        /// Positions per chunk.
        chunk,
        /// 0: chunks of the rows into candidates (the result when `chunks` is 1); 1: the merge.
        merge,
    }

    /// index.wgsl / index.cu: index_select / gather along `dim`.
    struct IndexParams {
        numel,
        rank,
        src_offset,
        dim,
        /// The output's shape.
        shape[8],
        src_strides[8],
        /// The source's size along `dim`.
        dim_size,
        /// 0 select, 1 gather.
        gather,
        index_offset,
    }

    /// index_rows4.wgsl: index_select of whole rows of a multiple of 4, a vec4 per thread.
    struct IndexRows4Params {
        /// numel / 4.
        threads,
        /// Row length / 4.
        cols,
        /// Positions selected.
        selected,
        src_offset,
        /// The source's stride along the selected dim.
        dim_stride,
        /// The source's stride of the dims before it (collapsed into one).
        outer_stride,
        /// The source's size along the selected dim.
        dim_size,
        index_offset,
    }

    /// index_add.wgsl / index_add.cu: index_add / scatter_add / scatter into a contiguous output.
    struct IndexAddParams {
        numel,
        rank,
        src_offset,
        dim,
        /// The output's shape.
        shape[8],
        src_strides[8],
        dim_size,
        /// 0 select, 1 gather.
        gather,
        index_offset,
        src_shape[8],
        /// 1: the last source element naming a position wins (scatter).
        assign,
    }

    /// optim.cu: the fused optimizer update of one tensor (`op::optim::OptimStep`).
    struct OptimParams {
        n,
        /// Element offsets of the parameter, the gradient and the two states.
        offsets[4],
        flags,
        /// The step's scalars' f32 bits.
        scalars[7],
    }

    /// optim_multi.wgsl: the fused optimizer update of up to `op::optim::MULTI` tensors in one
    /// dispatch. Tensor `t`'s outputs start at `starts[t]` of the flat outputs; its parameter,
    /// gradient and states are read at `offsets[4 t..4 t + 4]` from the binding slots packed a
    /// byte each (parameter lowest) in `slots[t]`.
    struct OptimMultiParams {
        n,
        count,
        flags,
        scalars[7],
        starts[8],
        offsets[32],
        slots[8],
    }

    /// The lazy tier's generated elementwise programs (`op::expr`): the output's coalesced
    /// shape (`op::expr::MAX_RANK` dims), each leaf's offset and strides over it (leaf `k`'s at
    /// `strides[5 k..]`), the scalars' f32 bits.
    struct ElementwiseParams {
        numel,
        shape[5],
        offsets[6],
        strides[30],
        scalars[8],
    }



}
