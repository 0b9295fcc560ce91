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
