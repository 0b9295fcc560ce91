// Softmax / log-softmax of each row of a contiguous [m, k] input, one block per row: max, then
// sum of exp(x - max), then the output. Params: `op::params::SoftmaxParams`.
extern "C" __global__ void k(const S* __restrict__ src, S* __restrict__ dst, Params P) {
    __shared__ float red[WG];
    u64 m = P.rows, k = P.k;
    unsigned t = threadIdx.x;
    for (u64 row = blockIdx.x; row < m; row += gridDim.x) {
        u64 base = P.offset + row * k;
        float mx = -3.402823466e38f;
        for (u64 j = t; j < k; j += WG) {
            mx = fmaxf(mx, load(src[base + j]));
        }
        red[t] = mx;
        __syncthreads();
        for (unsigned s = WG / 2; s > 0; s /= 2) {
            if (t < s) red[t] = fmaxf(red[t], red[t + s]);
            __syncthreads();
        }
        float rmax = red[0];
        __syncthreads();
        float sum = 0.0f;
        for (u64 j = t; j < k; j += WG) {
            sum += expf(load(src[base + j]) - rmax);
        }
        red[t] = sum;
        __syncthreads();
        for (unsigned s = WG / 2; s > 0; s /= 2) {
            if (t < s) red[t] += red[t + s];
            __syncthreads();
        }
        float total = red[0];
        for (u64 j = t; j < k; j += WG) {
            float y = load(src[base + j]) - rmax;
            dst[row * k + j] = store(LOG ? y - logf(total) : expf(y) / total);
        }
        __syncthreads();
    }
}
