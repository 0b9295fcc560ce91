// Partial sums of contiguous f32 rows of `k` elements (k and the offset whole vec4s), each row
// cut into `nchunks` interleaved parts: thread c of a row adds vec4s c, c + nchunks, ... of it
// (neighbouring threads read neighbouring vec4s) in four lanes and writes their sum. The first
// pass of a software adapter's serial sum (reduce_small.wgsl folds the partials): a vec4 a
// step and no bookkeeping where reduce_small takes one element and its fold's checks.
// Params: `op::params::ReduceSum4Params`.
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = gid.x + gid.y * nwg.x * WG;
    let nchunks = p(P_CHUNKS);
    if (g >= p(P_ROWS) * nchunks) {
        return;
    }
    let k = p(P_K);
    let row = udiv(g, nchunks);
    let base = p(P_OFFSET) + row * k;
    var acc = vec4<f32>(0.0);
    for (var j = g - row * nchunks; j < k; j += nchunks) {
        acc += src[base + j];
    }
    dst[g] = (acc.x + acc.y) + (acc.z + acc.w);
}
