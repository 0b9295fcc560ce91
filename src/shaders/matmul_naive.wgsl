// Matmul with one thread per output element, or per output row when rows are short, each walking
// the inner dim through the strides: the program for a short inner dim or a thin output
// ([n,3]@[3,8], matrix-vector), where the 64x64x16 tiles of matmul.wgsl would mostly multiply
// padding (k = 3 fills 3 of 16 tile steps, n = 8 fills 8 of 64 columns: 40x the useful work).
// Params: as matmul.wgsl (0 m, 1 n, 2 k, 3/4 batch strides, 5/6 offsets, 8-11 row/col strides);
// 7 the number of items (outputs, or rows in row mode), 12 row mode (1: a thread computes the n
// outputs of its row, reading the row of `a` once per column from cache and indexing with no
// division per output; per-output threads made [153600,3]@[3,8] 8x slower than a copy).
@group(0) @binding(0) var<storage, read> a: array<S>;
@group(0) @binding(1) var<storage, read> b: array<S>;
@group(0) @binding(2) var<storage, read_write> c: array<S>;
@group(0) @binding(3) var<uniform> P: Params;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let o = gid.x + gid.y * nwg.x * WG;
    if (o >= p(7u)) {
        return;
    }
    let m = p(0u);
    let n = p(1u);
    let k = p(2u);
    let acs = p(9u);
    let brs = p(10u);
    let bcs = p(11u);
    if (p(12u) == 1u) {
        // o is a row of [batch * m, n].
        let batch = udiv(o, m);
        let i = o - batch * m;
        let a0 = p(5u) + batch * p(3u) + i * p(8u);
        var bj = p(6u) + batch * p(4u);
        for (var j = 0u; j < n; j++) {
            var ai = a0;
            var bi = bj;
            var acc = A(0);
            for (var kk = 0u; kk < k; kk++) {
                acc += A(a[ai]) * A(b[bi]);
                ai += acs;
                bi += brs;
            }
            c[o * n + j] = S(acc);
            bj += bcs;
        }
        return;
    }
    let row = udiv(o, n);
    let batch = udiv(row, m);
    let i = row - batch * m;
    let j = o - row * n;
    var ai = p(5u) + batch * p(3u) + i * p(8u);
    var bi = p(6u) + batch * p(4u) + j * bcs;
    var acc = A(0);
    for (var kk = 0u; kk < k; kk++) {
        acc += A(a[ai]) * A(b[bi]);
        ai += acs;
        bi += brs;
    }
    c[o] = S(acc);
}
