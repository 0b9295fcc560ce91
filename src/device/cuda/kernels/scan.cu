// Running sums (op::fused::scan and scan.wgsl): a thread per (outer, inner) column of a
// contiguous [outer, n, inner], summing along n in order; f32 in f32, i32 wrapping (added as
// unsigned). Params: `op::fused::scan::ScanParams`.
__device__ __forceinline__ float scan_add(float a, float b) { return a + b; }
__device__ __forceinline__ int scan_add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }

extern "C" __global__ void k(const D* __restrict__ src, D* __restrict__ out, Params P) {
    FOR_EACH(c, P.columns) {
        u64 o = c / P.inner;
        u64 base = o * P.n * P.inner + (c - o * P.inner);
        D acc = (D)0;
        for (u64 k = 0; k < P.n; k++) {
            u64 at = base + k * P.inner;
            acc = scan_add(acc, src[P.src_offset + at]);
            out[at] = acc;
        }
    }
}
