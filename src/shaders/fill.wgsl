// Fill: out[i] = value, or with mode 1 a uniform sample in [0, 1) of the counter-based
// generator (op::fill: Threefry-2x32-20 under key (key_lo, key_hi) at counter (first + i, 0),
// the top 24 bits of its first word). Params: `op::params::FillParams`.
@group(0) @binding(0) var<storage, read_write> out: array<D>;
@group(0) @binding(1) var<uniform> P: Params;

fn rotl(x: u32, r: u32) -> u32 {
    return (x << r) | (x >> (32u - r));
}

// One Threefry round: rotations written out, so nothing is indexed at run time.
fn mix(x: vec2<u32>, r: u32) -> vec2<u32> {
    let a = x.x + x.y;
    return vec2<u32>(a, rotl(x.y, r) ^ a);
}

fn threefry(k0: u32, k1: u32, c: u32) -> u32 {
    let k2 = 0x1BD11BDAu ^ k0 ^ k1;
    var x = vec2<u32>(c + k0, k1);
    x = mix(mix(mix(mix(x, 13u), 15u), 26u), 6u) + vec2<u32>(k1, k2 + 1u);
    x = mix(mix(mix(mix(x, 17u), 29u), 16u), 24u) + vec2<u32>(k2, k0 + 2u);
    x = mix(mix(mix(mix(x, 13u), 15u), 26u), 6u) + vec2<u32>(k0, k1 + 3u);
    x = mix(mix(mix(mix(x, 17u), 29u), 16u), 24u) + vec2<u32>(k1, k2 + 4u);
    x = mix(mix(mix(mix(x, 13u), 15u), 26u), 6u) + vec2<u32>(k2, k0 + 5u);
    return x.x;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i < p(P_NUMEL)) {
        if (p(P_MODE) == 1u) {
            out[i] = D(f32(threefry(p(P_KEY_LO), p(P_KEY_HI), p(P_FIRST) + i) >> 8u) * (1.0 / 16777216.0));
        } else {
            out[i] = value(p(P_BITS));
        }
    }
}
