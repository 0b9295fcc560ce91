// What the register-tiled matmul programs share (matmul_register.wgsl, matmul_register4.wgsl:
// their variant prelude appends this): how a thread stages its share of each tile, and how it
// stores its 8x8 outputs through the epilogue `epi`.

// A thread's share of a 128x8 tile: one vec4, four rows of A (or columns of B) at one k, as
// (q, kk) for rows 4q..4q+3 at kk. With `along_k` (the operand's stride along k is 1) 8
// consecutive threads take the 8 values along k of each row; otherwise 32 consecutive threads
// take 128 consecutive rows. Each thread stores a whole vec4: invocations writing different
// components of one vector in workgroup memory race where a component store is a
// read-modify-write of the vector (Metal, D3D: gpuweb#2112).
fn quad(tid: u32, along_k: bool) -> vec2<u32> {
    if (along_k) {
        return vec2<u32>(tid / BK, tid % BK);
    }
    return vec2<u32>(tid % 32u, tid / 32u);
}

// The thread's share `v` of the A tile into buffer `buf` (an offset in vec4s) of As: row kk
// of the tile, 33 vec4s long (one of padding, so the 8 threads of a quarter-warp that store
// along k hit different banks).
fn store_a(buf: u32, tid: u32, v: vec4<A>) {
    let s = quad(tid, p(P_A_COL_STRIDE) == 1u);
    As[buf + s.y * ROW + s.x] = v;
}

fn store_b(buf: u32, tid: u32, v: vec4<A>) {
    let s = quad(tid, p(P_B_ROW_STRIDE) == 1u);
    Bs[buf + s.y * ROW + s.x] = v;
}

// Row `i` of C at columns j0..j0+3 and j1..j1+3, the parts inside the product (components
// named, not indexed: a dynamically indexed register array goes to local memory on GPUs).
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
