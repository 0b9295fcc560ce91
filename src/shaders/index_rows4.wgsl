// index_select of whole rows, a vec4 of a row per thread: the selected slices are runs of
// `cols` contiguous elements (a multiple of 4, each run starting at a multiple of 4), as an
// embedding lookup's are. One index load and one division per four outputs, where index.wgsl
// pays a division per dim and an index load per element. An out-of-range index reads as 0.
// Params: `op::params::IndexRows4Params`.
@group(0) @binding(0) var<storage, read> src: array<vec4<S>>;
@group(0) @binding(1) var<storage, read> idx: array<I>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<S>>;
@group(0) @binding(3) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= p(P_THREADS)) {
        return;
    }
    let cols4 = p(P_COLS);
    let row = udiv(i, cols4);
    let c4 = i - row * cols4;
    let outer = udiv(row, p(P_SELECTED));
    let j = row - outer * p(P_SELECTED);
    let id = i32(idx[p(P_INDEX_OFFSET) + j]);
    let ok = id >= 0 && u32(id) < p(P_DIM_SIZE);
    let at = (p(P_SRC_OFFSET) + outer * p(P_OUTER_STRIDE) + select(0u, u32(id), ok) * p(P_DIM_STRIDE)) / 4u + c4;
    dst[i] = select(vec4<S>(S(0)), src[at], ok);
}
