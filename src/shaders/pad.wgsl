// Constant padding of f32 in one pass: each output element is the source element it covers or
// `value` (PyTorch's `F.pad`, mode "constant", no cropping), where composing it by `cat` wrote
// the data once per padded dim.
// Params: `op::params::PadParams`.
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> P: Params;

// The source offset of output index `i` over the first `dims` dims (before the base offset),
// and whether every coordinate falls inside the source. As the prelude's walk (dims from the
// innermost out, dim 0 peeled); `&` rather than `&&`, which would branch.
fn pad_walk(i: u32, dims: u32) -> vec2<u32> {
    var rem = i;
    var so = 0u;
    var inside = true;
    for (var d = i32(dims) - 1; d >= 1; d--) {
        let du = u32(d);
        let size = p(P_SHAPE + du);
        let q = udiv(rem, size);
        // The source coordinate; below the pad it wraps past any dim size.
        let k = rem - q * size - p(P_BEFORE + du);
        rem = q;
        inside = inside & (k < p(P_SRC_SHAPE + du));
        so += k * p(P_SRC_STRIDES + du);
    }
    // Dim 0 is last: what is left of the index is its coordinate (see udiv).
    if (dims > 0u) {
        let k = rem - p(P_BEFORE);
        inside = inside & (k < p(P_SRC_SHAPE));
        so += k * p(P_SRC_STRIDES);
    }
    return vec2<u32>(so, select(0u, 1u, inside));
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= p(P_NUMEL)) {
        return;
    }
    let rank = select(p(P_RANK), RANK, RANK != 0u);
    let value = bitcast<f32>(p(P_VALUE_BITS));
    let row = p(P_ROW_LEN);
    if (row > 0u) {
        // The outer dims once, then the row as three runs: pad, source, pad (all pad where
        // an outer coordinate falls outside the source).
        let w = pad_walk(i, rank - 1u);
        let inside = w.y == 1u;
        let last = rank - 1u;
        let before = p(P_BEFORE + last);
        let len = p(P_SRC_SHAPE + last);
        let ss = p(P_SRC_STRIDES + last);
        let so = p(P_SRC_OFFSET) + w.x;
        let base = i * row;
        let lo = select(row, before, inside);
        let hi = select(row, before + len, inside);
        for (var j = 0u; j < lo; j++) {
            dst[base + j] = value;
        }
        for (var j = lo; j < hi; j++) {
            dst[base + j] = src[so + (j - before) * ss];
        }
        for (var j = hi; j < row; j++) {
            dst[base + j] = value;
        }
        return;
    }
    let w = pad_walk(i, rank);
    var v = value;
    if (w.y == 1u) {
        v = src[p(P_SRC_OFFSET) + w.x];
    }
    dst[i] = v;
}
