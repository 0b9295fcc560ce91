// Batched matmul over strided operands with 16x16 shared-memory tiles: the path for integer
// dtypes (cuBLAS has no integer GEMM that wraps like the CPU). Floats go to cuBLAS.
// Params: 0 m, 1 n, 2 k, 3 a batch stride, 4 b batch stride, 5 a offset, 6 b offset,
// 7 first batch of this launch, 8 a row stride, 9 a col stride, 10 b row stride, 11 b col stride.
#define TILE 16
extern "C" __global__ void k(const S* __restrict__ a, const S* __restrict__ b, S* __restrict__ c, Params P) {
    __shared__ A ta[TILE][TILE + 1];
    __shared__ A tb[TILE][TILE + 1];
    u64 m = P.v[0], n = P.v[1], k = P.v[2];
    u64 batch = P.v[7] + blockIdx.z;
    u64 row = blockIdx.y * (u64)TILE + threadIdx.y, col = blockIdx.x * (u64)TILE + threadIdx.x;
    u64 abase = P.v[5] + batch * P.v[3], bbase = P.v[6] + batch * P.v[4];
    A acc = (A)0;
    for (u64 t0 = 0; t0 < k; t0 += TILE) {
        u64 ka = t0 + threadIdx.x, kb = t0 + threadIdx.y;
        ta[threadIdx.y][threadIdx.x] = (row < m && ka < k) ? (A)load(a[abase + row * P.v[8] + ka * P.v[9]]) : (A)0;
        tb[threadIdx.y][threadIdx.x] = (kb < k && col < n) ? (A)load(b[bbase + kb * P.v[10] + col * P.v[11]]) : (A)0;
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
