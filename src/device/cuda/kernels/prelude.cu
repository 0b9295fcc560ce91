// Shared by every CUDA kernel variant; the generated part (the `Params` struct of the
// variant's `op::params` layout, types S/D/A/C and the op function) follows it. Parameters come
// in one by-value struct of 64-bit words, so sizes and offsets past 4 Gi elements index
// correctly.
typedef unsigned long long u64;

// f16 is stored as its bit pattern and computed in f32 through PTX conversions, so the kernels
// need no CUDA headers (NVRTC ships none by default).
__device__ __forceinline__ float h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ unsigned short f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ bool is_nan(float x) { return x != x; }
// Overloads so integer-typed variants compile the same expressions (integers are never NaN).
__device__ __forceinline__ bool is_nan(int) { return false; }
__device__ __forceinline__ bool is_nan(unsigned) { return false; }

// A grid-stride loop over n items: any grid size covers any n.
#define FOR_EACH(i, n) for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < (n); i += (u64)gridDim.x * blockDim.x)

// The sum of v over the block (every thread gets it); `red` holds WG floats. The row-per-block
// kernels' reduction (layer_norm.cu, cross_entropy.cu).
__device__ __forceinline__ float block_sum(float v, float* red) {
    unsigned t = threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (unsigned s = WG / 2; s > 0; s /= 2) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    float total = red[0];
    __syncthreads();
    return total;
}

// Threefry-2x32-20 (op::fill's counter-based generator, the CPU's rounds): the block at counter
// (c, hi) under key (k0, k1), its first word returned and its second in `*second`; `threefry`
// the first word alone at (c, 0), `threefry_at` at the 64-bit counter i as (i mod 2^32, i / 2^32),
// as the CPU numbers samples (tensors past 2^32 elements fit on large GPUs). Shared by fill.cu
// (rand, randn), dropout.cu and attention.cu's dropout (whose counters fit in 32 bits).
__device__ __forceinline__ unsigned rotl32(unsigned x, unsigned r) { return (x << r) | (x >> (32u - r)); }

__device__ __forceinline__ unsigned threefry2(unsigned k0, unsigned k1, unsigned c, unsigned hi, unsigned* second) {
    const unsigned rot[8] = {13u, 15u, 26u, 6u, 17u, 29u, 16u, 24u};
    const unsigned ks[3] = {k0, k1, 0x1BD11BDAu ^ k0 ^ k1};
    unsigned x0 = c + k0, x1 = hi + k1;
#pragma unroll
    for (int r = 0; r < 20; r++) {
        x0 += x1;
        x1 = rotl32(x1, rot[r % 8]) ^ x0;
        if (r % 4 == 3) {
            int s = r / 4 + 1;
            x0 += ks[s % 3];
            x1 += ks[(s + 1) % 3] + (unsigned)s;
        }
    }
    *second = x1;
    return x0;
}

__device__ __forceinline__ unsigned threefry(unsigned k0, unsigned k1, unsigned c) {
    unsigned second;
    return threefry2(k0, k1, c, 0u, &second);
}

__device__ __forceinline__ unsigned threefry_at(unsigned k0, unsigned k1, u64 i, unsigned* second) {
    return threefry2(k0, k1, (unsigned)i, (unsigned)(i >> 32), second);
}
