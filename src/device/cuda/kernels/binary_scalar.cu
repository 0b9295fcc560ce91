// Binary family with a scalar operand in the parameters (no 0-d tensor, fill or broadcast walk):
// out[i] = op(a[offset + i], s). Params: 0 numel, 1 a offset, 2 the scalar's bits (as fill's).
extern "C" __global__ void k(const S* __restrict__ a, D* __restrict__ out, Params P) {
    S s = scalar((unsigned)P.v[2]);
    FOR_EACH(i, P.v[0]) {
        out[i] = op(a[P.v[1] + i], s);
    }
}
