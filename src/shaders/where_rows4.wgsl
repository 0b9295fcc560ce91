// where(cond, a, b) with broadcasting, RUN vec4s of a row per thread: binary_rows4.wgsl's
// shape of work (see there) for three operands, each running along the rows or, where
// C_SPLAT / A_SPLAT / B_SPLAT say, constant along them (a `masked_fill` by a [n, 1] mask).
// Params: `op::params::WhereParams`.
@group(0) @binding(0) var<storage, read> cond: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> a: array<vec4<S>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<S>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<S>>;
@group(0) @binding(4) var<uniform> P: Params;

fn load_c(o: u32) -> vec4<u32> {
    if (C_SPLAT) {
        return vec4<u32>(cond[o / 4u][o % 4u]);
    }
    return cond[o / 4u];
}

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
    let inner = RANK - 1u;
    let runs = p(P_SHAPE + inner) / (4u * RUN);
    let rem = udiv(i, runs);
    let c = (i - rem * runs) * RUN * 4u;
    var co = p(P_C_OFFSET) + select(c, 0u, C_SPLAT);
    var ao = p(P_A_OFFSET) + select(c, 0u, A_SPLAT);
    var bo = p(P_B_OFFSET) + select(c, 0u, B_SPLAT);
    // The row's offsets over the outer dims (the prelude's walk).
    let o = walk(rem, inner, vec3<u32>(P_C_STRIDES, P_A_STRIDES, P_B_STRIDES));
    co += o.x;
    ao += o.y;
    bo += o.z;
    let cs = load_c(co);
    let xs = load_a(ao);
    let ys = load_b(bo);
    for (var k = 0u; k < RUN; k++) {
        let m = select(load_c(co + 4u * k), cs, C_SPLAT);
        let x = select(load_a(ao + 4u * k), xs, A_SPLAT);
        let y = select(load_b(bo + 4u * k), ys, B_SPLAT);
        out[i * RUN + k] = select(y, x, m != vec4<u32>(0u));
    }
}
