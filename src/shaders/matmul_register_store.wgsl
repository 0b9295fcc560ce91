// The register-tiled matmul programs' stores (matmul_register.wgsl, matmul_register4.wgsl:
// their variant prelude appends this): a thread's 8x8 outputs through the epilogue `epi`.
// Row `i` of C at columns j0..j0+3 and j1..j1+3, the parts inside the product (components
// named, not indexed: see matmul_register.wgsl's `slot`).
fn put(cbase: u32, i: u32, j0: u32, j1: u32, m: u32, n: u32, v0: vec4<A>, v1: vec4<A>) {
    if (i >= m) {
        return;
    }
    let row = cbase + i * n;
    put4(row, j0, n, v0);
    put4(row, j1, n, v1);
}

fn put4(row: u32, j: u32, n: u32, v: vec4<A>) {
    if (j + 3u < n) {
        c[row + j] = S(epi(v.x, j));
        c[row + j + 1u] = S(epi(v.y, j + 1u));
        c[row + j + 2u] = S(epi(v.z, j + 2u));
        c[row + j + 3u] = S(epi(v.w, j + 3u));
        return;
    }
    if (j < n) {
        c[row + j] = S(epi(v.x, j));
    }
    if (j + 1u < n) {
        c[row + j + 1u] = S(epi(v.y, j + 1u));
    }
    if (j + 2u < n) {
        c[row + j + 2u] = S(epi(v.z, j + 2u));
    }
}
