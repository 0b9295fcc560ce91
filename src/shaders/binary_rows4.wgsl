// Binary family with broadcasting, four outputs of a row per thread: the output's innermost
// dim is a multiple of 4, and each operand either runs along it (stride 1, every row starting
// at a multiple of 4: one vec4 load) or holds one value per row (stride 0, A_SPLAT / B_SPLAT:
// one load, splat). A bias `[n, k] + [k]`, `x - max(x, -1, keepdim)`, a BatchNorm scale over
// [N, C, H*W]. The row's offsets are worked out once per four outputs, over the RANK - 1 outer
// dims; binary.wgsl works them out per element (each a division per dim), several times slower
// on software adapters.
// Params: `op::params::BinaryParams`.
@group(0) @binding(0) var<storage, read> a: array<vec4<S>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<S>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<D>>;
@group(0) @binding(3) var<uniform> P: Params;

// Four values of an operand at element offset `o` (a multiple of 4), or for a splat operand
// the one value at `o` four times.
fn load_a(o: u32) -> vec4<S> {
    if (A_SPLAT) {
        return vec4<S>(a[o / 4u][o % 4u]);
    }
    return a[o / 4u];
}

fn load_b(o: u32) -> vec4<S> {
    if (B_SPLAT) {
        return vec4<S>(b[o / 4u][o % 4u]);
    }
    return b[o / 4u];
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= p(P_NUMEL)) {
        return;
    }
    // Each thread takes RUN adjacent vec4s of one row (RUN divides the row's vec4s).
    let inner = RANK - 1u;
    let runs = p(P_SHAPE + inner) / (4u * RUN);
    let rem = udiv(i, runs);
    let c = (i - rem * runs) * RUN * 4u;
    var ao = p(P_A_OFFSET) + select(c, 0u, A_SPLAT);
    var bo = p(P_B_OFFSET) + select(c, 0u, B_SPLAT);
    // The row's offsets over the outer dims (the prelude's walk).
    let o = walk(rem, inner, vec3<u32>(P_A_STRIDES, P_B_STRIDES, P_B_STRIDES));
    ao += o.x;
    bo += o.y;
    // A splat operand's value is loaded once for the run.
    let xs = load_a(ao);
    let ys = load_b(bo);
    for (var k = 0u; k < RUN; k++) {
        let x = select(load_a(ao + 4u * k), xs, A_SPLAT);
        let y = select(load_b(bo + 4u * k), ys, B_SPLAT);
        out[i * RUN + k] = op4(x, y);
    }
}
