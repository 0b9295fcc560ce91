// Workgroup reductions shared by the programs that run a row per workgroup (layer_norm,
// cross_entropy; in their preludes, op::fused): two scratch arrays and the sums of two values.
var<workgroup> red: array<f32, WG>;
var<workgroup> red2: array<f32, WG>;

// The sums of a and b2 over the workgroup (every invocation gets them; invocation t).
fn workgroup_sums(a: f32, b2: f32, t: u32) -> vec2<f32> {
    red[t] = a;
    red2[t] = b2;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s /= 2u) {
        if (t < s) {
            red[t] += red[t + s];
            red2[t] += red2[t + s];
        }
        workgroupBarrier();
    }
    let total = vec2<f32>(red[0], red2[0]);
    workgroupBarrier();
    return total;
}
