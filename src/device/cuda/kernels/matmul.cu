// Batched matmul over strided operands with 16x16 shared-memory tiles: the path for integer
// dtypes (cuBLAS has no integer GEMM that wraps like the CPU). Floats go to cuBLAS.
// Params: `op::params::MatmulParams`.
#define TILE 16
extern "C" __global__ void k(const S* __restrict__ a, const S* __restrict__ b, S* __restrict__ c, Params P) {
    __shared__ A ta[TILE][TILE + 1];
    __shared__ A tb[TILE][TILE + 1];
    u64 m = P.m, n = P.n, k = P.k;
    u64 batch = P.first_batch + blockIdx.z;
    u64 row = blockIdx.y * (u64)TILE + threadIdx.y, col = blockIdx.x * (u64)TILE + threadIdx.x;
    u64 abase = P.a_offset + batch * P.a_batch_stride, bbase = P.b_offset + batch * P.b_batch_stride;
    A acc = (A)0;
    for (u64 t0 = 0; t0 < k; t0 += TILE) {
        u64 ka = t0 + threadIdx.x, kb = t0 + threadIdx.y;
        ta[threadIdx.y][threadIdx.x] = (row < m && ka < k) ? (A)load(a[abase + row * P.a_row_stride + ka * P.a_col_stride]) : (A)0;
        tb[threadIdx.y][threadIdx.x] = (kb < k && col < n) ? (A)load(b[bbase + kb * P.b_row_stride + col * P.b_col_stride]) : (A)0;
        __syncthreads();
        for (int j = 0; j < TILE; j++) {
            acc += ta[threadIdx.y][j] * tb[j][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < m && col < n) {
        c[(batch * m + row) * n + col] = store((C)acc);
    }
}
