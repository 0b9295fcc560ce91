// Matmul with one thread per output element, or per output row when rows are short, each walking
// the inner dim through the strides: the program for a short inner dim or a thin output
// ([n,3]@[3,8], matrix-vector), where the 64x64x16 tiles of matmul.wgsl would mostly multiply
// padding (k = 3 fills 3 of 16 tile steps, n = 8 fills 8 of 64 columns: 40x the useful work).
// Params: `op::params::MatmulItemsParams`.
@group(0) @binding(0) var<storage, read> a: array<S>;
@group(0) @binding(1) var<storage, read> b: array<S>;
@group(0) @binding(2) var<storage, read_write> c: array<S>;
@group(0) @binding(3) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let o = gid.x + gid.y * nwg.x * WG;
    if (o >= p(P_ITEMS)) {
        return;
    }
    let m = p(P_M);
    let n = p(P_N);
    let k = p(P_K);
    let acs = p(P_A_COL_STRIDE);
    let brs = p(P_B_ROW_STRIDE);
    let bcs = p(P_B_COL_STRIDE);
    if (p(P_ROW_MODE) == 1u) {
        // o is a row of [batch * m, n].
        let batch = udiv(o, m);
        let i = o - batch * m;
        let a0 = p(P_A_OFFSET) + batch * p(P_A_BATCH_STRIDE) + i * p(P_A_ROW_STRIDE);
        var bj = p(P_B_OFFSET) + batch * p(P_B_BATCH_STRIDE);
        for (var j = 0u; j < n; j++) {
            var ai = a0;
            var bi = bj;
            var acc = A(0);
            for (var kk = 0u; kk < k; kk++) {
                acc += A(a[ai]) * A(b[bi]);
                ai += acs;
                bi += brs;
            }
            c[o * n + j] = S(epi(acc, j));
            bj += bcs;
        }
        return;
    }
    let row = udiv(o, n);
    let batch = udiv(row, m);
    let i = row - batch * m;
    let j = o - row * n;
    var ai = p(P_A_OFFSET) + batch * p(P_A_BATCH_STRIDE) + i * p(P_A_ROW_STRIDE);
    var bi = p(P_B_OFFSET) + batch * p(P_B_BATCH_STRIDE) + j * bcs;
    var acc = A(0);
    for (var kk = 0u; kk < k; kk++) {
        acc += A(a[ai]) * A(b[bi]);
        ai += acs;
        bi += brs;
    }
    c[o] = S(epi(acc, j));
}
