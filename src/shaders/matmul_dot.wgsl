// Matmul with one workgroup per output element: its threads stride over the (long) inner dim
// and fold their partial sums in workgroup memory. The program for few outputs and a
// long inner dim (`onehot^T @ x`, [8,153600]@[153600,3]: 24 outputs), where 64x64 tiles
// computed 1.26 GFLOP for 7.4 MFLOP of products, and split-K still padded every tile.
// Params: `op::params::MatmulItemsParams`.
@group(0) @binding(0) var<storage, read> a: array<S>;
@group(0) @binding(1) var<storage, read> b: array<S>;
@group(0) @binding(2) var<storage, read_write> c: array<S>;
@group(0) @binding(3) var<uniform> P: Params;

var<workgroup> part: array<A, WG>;

const FAN: u32 = 16u;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    // Uniform per workgroup, so every thread reaches the barriers below.
    let o = wid.x + wid.y * nwg.x;
    let live = o < p(P_ITEMS);
    let m = p(P_M);
    let n = p(P_N);
    let k = p(P_K);
    var acc = A(0);
    if (live) {
        let row = udiv(o, n);
        let batch = udiv(row, m);
        let i = row - batch * m;
        let j = o - row * n;
        let a0 = p(P_A_OFFSET) + batch * p(P_A_BATCH_STRIDE) + i * p(P_A_ROW_STRIDE);
        let b0 = p(P_B_OFFSET) + batch * p(P_B_BATCH_STRIDE) + j * p(P_B_COL_STRIDE);
        let acs = p(P_A_COL_STRIDE);
        let brs = p(P_B_ROW_STRIDE);
        for (var kk = t; kk < k; kk += WG) {
            acc += A(a[a0 + kk * acs]) * A(b[b0 + kk * brs]);
        }
    }
    part[t] = acc;
    workgroupBarrier();
    // Two-level fold (see reduce.wgsl): two barriers instead of a tree's eight.
    if (t < WG / FAN) {
        var v = part[t * FAN];
        for (var i = 1u; i < FAN; i++) {
            v += part[t * FAN + i];
        }
        part[t * FAN] = v;
    }
    workgroupBarrier();
    if (live && t == 0u) {
        var v = part[0];
        for (var i = FAN; i < WG; i += FAN) {
            v += part[i];
        }
        c[o] = S(epi(v, o % n));
    }
}
