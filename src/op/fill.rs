//! What the fill kernel family writes: one value, or uniform samples from a counter-based
//! generator (Threefry-2x32-20, Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
//! SC'11). Sample `i` of a seed is a pure function of (seed, i), so every device computes its
//! own samples where they are needed, in parallel, with the same bits as the CPU: `rand` and
//! dropout's masks no longer travel from the host (a GPT step at nanoGPT's size uploaded 600 MB
//! of masks per step). Threefry needs only 32-bit adds, rotations and xors, which WGSL, CUDA and
//! Rust all do exactly (no 64-bit or high-half multiplies, which WGSL lacks). The CPU runs
//! [`uniform`]; [`WGSL_THREEFRY`] (in the preludes of fill.wgsl and attention.wgsl) and
//! `fill.cu` hold the same rounds, and the cross-device test holds them equal bit for bit.

/// What a fill writes into each element.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Fill {
    /// This value (converted to the dtype).
    Value(f64),
    /// f32 samples in [0, 1): element `i` is [`uniform`]`(seed, i)`.
    Uniform {
        /// The generator's key.
        seed: u64,
    },
    /// f32 standard normal samples: element `i` is [`normal`]`(seed, i)`.
    Normal {
        /// The generator's key.
        seed: u64,
    },
}

/// Threefry-2x32's rotation constants, one per round (cycling every 8).
const ROTATIONS: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
/// The key schedule's parity constant.
const PARITY: u32 = 0x1BD1_1BDA;

/// Threefry-2x32 with 20 rounds of counter `ctr` under `key` (Random123's reference algorithm;
/// its known-answer vectors are the unit tests below).
pub(crate) fn threefry2x32(key: [u32; 2], ctr: [u32; 2]) -> [u32; 2] {
    let ks = [key[0], key[1], PARITY ^ key[0] ^ key[1]];
    let (mut x0, mut x1) = (ctr[0].wrapping_add(ks[0]), ctr[1].wrapping_add(ks[1]));
    for r in 0..20 {
        x0 = x0.wrapping_add(x1);
        x1 = x1.rotate_left(ROTATIONS[r % 8]) ^ x0;
        if r % 4 == 3 {
            let s = r / 4 + 1;
            x0 = x0.wrapping_add(ks[s % 3]);
            x1 = x1.wrapping_add(ks[(s + 1) % 3]).wrapping_add(s as u32);
        }
    }
    [x0, x1]
}

/// The same generator in WGSL, for the programs that draw samples (fill.wgsl, attention.wgsl's
/// dropout): `threefry(k0, k1, c)` is the first word of [`threefry2x32`] at counter `(c, 0)`,
/// its rounds written out so nothing is indexed at run time; `threefry_at(k0, k1, first,
/// first_hi, i)` both words at the 64-bit counter `(first_hi, first) + i`, as the CPU numbers
/// the samples of a tensor past 2^32 elements (filled in pieces, each binding under 4 GiB).
pub(crate) const WGSL_THREEFRY: &str = "\
fn rotl(x: u32, r: u32) -> u32 {
    return (x << r) | (x >> (32u - r));
}

fn mix(x: vec2<u32>, r: u32) -> vec2<u32> {
    let a = x.x + x.y;
    return vec2<u32>(a, rotl(x.y, r) ^ a);
}

fn threefry2_hi(k0: u32, k1: u32, c: u32, hi: u32) -> vec2<u32> {
    let k2 = 0x1BD11BDAu ^ k0 ^ k1;
    var x = vec2<u32>(c + k0, hi + k1);
    x = mix(mix(mix(mix(x, 13u), 15u), 26u), 6u) + vec2<u32>(k1, k2 + 1u);
    x = mix(mix(mix(mix(x, 17u), 29u), 16u), 24u) + vec2<u32>(k2, k0 + 2u);
    x = mix(mix(mix(mix(x, 13u), 15u), 26u), 6u) + vec2<u32>(k0, k1 + 3u);
    x = mix(mix(mix(mix(x, 17u), 29u), 16u), 24u) + vec2<u32>(k1, k2 + 4u);
    x = mix(mix(mix(mix(x, 13u), 15u), 26u), 6u) + vec2<u32>(k2, k0 + 5u);
    return x;
}

fn threefry2(k0: u32, k1: u32, c: u32) -> vec2<u32> {
    return threefry2_hi(k0, k1, c, 0u);
}

fn threefry(k0: u32, k1: u32, c: u32) -> u32 {
    return threefry2(k0, k1, c).x;
}

fn threefry_at(k0: u32, k1: u32, first: u32, first_hi: u32, i: u32) -> vec2<u32> {
    let lo = first + i;
    return threefry2_hi(k0, k1, lo, first_hi + select(0u, 1u, lo < first));
}
";

/// Sample `i` of `seed` as an f32 in [0, 1): the top 24 bits of the first output word for
/// counter (i mod 2^32, i / 2^32), so every value is a multiple of 2^-24 and exact in f32.
pub(crate) fn uniform(seed: u64, i: u64) -> f32 {
    let [w, _] = threefry2x32([seed as u32, (seed >> 32) as u32], [i as u32, (i >> 32) as u32]);
    (w >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// Sample `i` of `seed` from the standard normal distribution, by Box-Muller from both words of
/// [`threefry2x32`] at counter `(i mod 2^32, i / 2^32)`: `u1` in (0, 1] from the first word's
/// top 24 bits, `u2` in [0, 1) from the second's, `sqrt(-2 ln u1) * cos(pi * (2 u2 - 1))`. The
/// angle lies in [-pi, pi), where WGSL's `cos` is accurate, and f32 throughout as on the GPUs,
/// so the devices agree to a few ulps (their `log`, `cos` and `sqrt` are not all correctly
/// rounded), not bit for bit as [`uniform`]'s samples do.
pub(crate) fn normal(seed: u64, i: u64) -> f32 {
    let [w0, w1] = threefry2x32([seed as u32, (seed >> 32) as u32], [i as u32, (i >> 32) as u32]);
    let u1 = ((w0 >> 8) + 1) as f32 * (1.0 / 16_777_216.0);
    let u2 = (w1 >> 8) as f32 * (1.0 / 16_777_216.0);
    (-2.0 * u1.ln()).sqrt() * (std::f32::consts::PI * (2.0 * u2 - 1.0)).cos()
}

/// Counters a lane-parallel [`threefry_lanes`] call takes.
const LANES: usize = 8;

/// The first output word of [`threefry2x32`] at counters `(c, 0)` for eight counters at once:
/// the same rounds over arrays of eight, which the compiler turns into vector instructions (two
/// SSE2 registers per array, or one AVX2 register in a `wide` copy).
#[inline(always)]
fn threefry_lanes(key: [u32; 2], c: [u32; LANES]) -> [u32; LANES] {
    let ks = [key[0], key[1], PARITY ^ key[0] ^ key[1]];
    let mut x0 = c.map(|c| c.wrapping_add(ks[0]));
    let mut x1 = [ks[1]; LANES];
    // One round with rotation `$r` (a constant, so each is a pair of shifts).
    macro_rules! round {
        ($r:expr) => {
            for l in 0..LANES {
                x0[l] = x0[l].wrapping_add(x1[l]);
                x1[l] = x1[l].rotate_left($r) ^ x0[l];
            }
        };
    }
    // The key injection after rounds 4s - 1.
    macro_rules! inject {
        ($s:expr) => {
            for l in 0..LANES {
                x0[l] = x0[l].wrapping_add(ks[$s % 3]);
                x1[l] = x1[l].wrapping_add(ks[($s + 1) % 3]).wrapping_add($s);
            }
        };
    }
    round!(13);
    round!(15);
    round!(26);
    round!(6);
    inject!(1);
    round!(17);
    round!(29);
    round!(16);
    round!(24);
    inject!(2);
    round!(13);
    round!(15);
    round!(26);
    round!(6);
    inject!(3);
    round!(17);
    round!(29);
    round!(16);
    round!(24);
    inject!(4);
    round!(13);
    round!(15);
    round!(26);
    round!(6);
    inject!(5);
    x0
}

/// Samples `first..first + out.len()` of `seed` into `out`, each [`uniform`]'s. Where the
/// counters stay below 2^32 (almost always) they are drawn eight at a time
/// ([`threefry_lanes`]); `rand` and dropout on the CPU draw through it. Natively it is inlined
/// into its callers' AVX2 copies (`cpu::wide`); in the `.wasm` one copy serves them all.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
#[cfg_attr(target_arch = "wasm32", inline(never))]
pub(crate) fn uniform_run(seed: u64, first: u64, out: &mut [f32]) {
    let key = [seed as u32, (seed >> 32) as u32];
    if first + out.len() as u64 > 1 << 32 {
        out.iter_mut().enumerate().for_each(|(j, o)| *o = uniform(seed, first + j as u64));
        return;
    }
    let (base, len) = (first as u32, out.len());
    let mut chunks = out.chunks_exact_mut(LANES);
    for (k, chunk) in chunks.by_ref().enumerate() {
        let c0 = base.wrapping_add((k * LANES) as u32);
        let words = threefry_lanes(key, std::array::from_fn(|l| c0.wrapping_add(l as u32)));
        for (o, w) in chunk.iter_mut().zip(words) {
            *o = (w >> 8) as f32 * (1.0 / 16_777_216.0);
        }
    }
    let rest = chunks.into_remainder();
    let done = len - rest.len();
    for (j, o) in rest.iter_mut().enumerate() {
        *o = uniform(seed, first + (done + j) as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::{threefry2x32, threefry_lanes, uniform, uniform_run};

    #[test]
    fn lanes_and_runs_give_the_single_samples() {
        let key = [0x1319_8a2e, 0x0370_7344];
        let c: [u32; 8] = std::array::from_fn(|l| 0x243f_6a88 + l as u32 * 977);
        let want = c.map(|c| threefry2x32(key, [c, 0])[0]);
        assert_eq!(threefry_lanes(key, c), want);
        for (seed, first) in [(42u64, 0u64), (7, 1000), (u64::MAX, (1 << 32) - 5), (3, 1 << 40)] {
            let mut run = vec![0.0f32; 37];
            uniform_run(seed, first, &mut run);
            let one: Vec<f32> = (0..37).map(|j| uniform(seed, first + j)).collect();
            assert_eq!(run, one, "seed {seed}, from {first}");
        }
    }

    #[test]
    fn threefry_matches_random123_known_answers() {
        // kat_vectors of Random123 1.09 for threefry2x32_20.
        assert_eq!(threefry2x32([0, 0], [0, 0]), [0x6b20_0159, 0x99ba_4efe]);
        assert_eq!(threefry2x32([u32::MAX, u32::MAX], [u32::MAX, u32::MAX]), [0x1cb9_96fc, 0xbb00_2be7]);
        assert_eq!(threefry2x32([0x1319_8a2e, 0x0370_7344], [0x243f_6a88, 0x85a3_08d3]), [0xc492_3a9c, 0x483d_f7a0]);
    }

    #[test]
    fn uniform_samples_lie_in_the_unit_interval_with_the_right_mean() {
        let n = 100_000;
        let xs: Vec<f32> = (0..n).map(|i| uniform(42, i)).collect();
        assert!(xs.iter().all(|&x| (0.0..1.0).contains(&x)));
        let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "mean {mean}");
        // Another seed gives other samples.
        assert_ne!(uniform(42, 7), uniform(43, 7));
    }
}
