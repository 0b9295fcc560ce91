// Binary family with broadcasting: out[i] = op(a[strided], b[strided]).
// Params: 0 numel, 1 rank, 2 a offset, 3 b offset, 4..12 shape, 12..20 a strides,
// 20..28 b strides, 28 fast path (1 when a and b are contiguous with the output's shape).
@group(0) @binding(0) var<storage, read> a: array<S>;
@group(0) @binding(1) var<storage, read> b: array<S>;
@group(0) @binding(2) var<storage, read_write> out: array<D>;
@group(0) @binding(3) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= p(0u)) {
        return;
    }
    var ao = p(2u);
    var bo = p(3u);
    if (p(28u) == 1u) {
        ao += i;
        bo += i;
    } else {
        var rem = i;
        for (var d = i32(p(1u)) - 1; d >= 0; d--) {
            let du = u32(d);
            let size = p(4u + du);
            let c = rem % size;
            rem = rem / size;
            ao += c * p(12u + du);
            bo += c * p(20u + du);
        }
    }
    out[i] = op(a[ao], b[bo]);
}
