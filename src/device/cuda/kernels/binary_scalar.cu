// Binary family with a scalar operand in the parameters (no 0-d tensor, fill or broadcast walk):
// out[i] = op(a[offset + i], s). Params: `op::params::ScalarParams`.
extern "C" __global__ void k(const S* __restrict__ a, D* __restrict__ out, Params P) {
    S s = scalar((unsigned)P.bits);
    FOR_EACH(i, P.count) {
        out[i] = op(a[P.offset + i], s);
    }
}
