//! Running sums on the CPU, the scan family's kernel (`op::fused::scan`): one pass over
//! `[outer, n, inner]`. Along the last
//! dim each row is a sequential sum; along an earlier dim each of the `n` slices adds the
//! previous running slice, a loop over `inner` that vectorises. Floats accumulate in f64, as
//! PyTorch's CPU `cumsum` does; i32 wraps.

use super::par;
use crate::dtype::CpuData;

/// The running sums of contiguous `data` viewed as `[outer, n, inner]` along `n`; `None` for
/// dtypes without this kernel (the scan family takes f32 and i32).
pub(super) fn cumsum(data: &CpuData, offset: usize, (outer, n, inner): (usize, usize, usize)) -> Option<CpuData> {
    let len = outer * n * inner;
    Some(match data {
        // Rows (inner = 1) four at a time: one running f64 sum waits on the previous add, four
        // independent ones keep the adder busy (cumsum(1) of 1024x1024 in wasm: 6.0 -> 3.1 ms).
        CpuData::F32(v) if inner == 1 && n > 0 => CpuData::F32(blocks(&v[offset..offset + len], 4 * n, |x, y| {
            if x.len() < 4 * n {
                for (x, y) in x.chunks_exact(n).zip(y.chunks_exact_mut(n)) {
                    let mut a = 0.0f64;
                    for (&x, y) in x.iter().zip(y) {
                        a += x as f64;
                        *y = a as f32;
                    }
                }
                return;
            }
            let (x0, x1, x2, x3) = (&x[..n], &x[n..2 * n], &x[2 * n..3 * n], &x[3 * n..4 * n]);
            let (y0, rest) = y.split_at_mut(n);
            let (y1, rest) = rest.split_at_mut(n);
            let (y2, y3) = rest.split_at_mut(n);
            let y3 = &mut y3[..n];
            let mut a = [0.0f64; 4];
            for j in 0..n {
                a[0] += x0[j] as f64;
                a[1] += x1[j] as f64;
                a[2] += x2[j] as f64;
                a[3] += x3[j] as f64;
                (y0[j], y1[j], y2[j], y3[j]) = (a[0] as f32, a[1] as f32, a[2] as f32, a[3] as f32);
            }
        })),
        CpuData::F32(v) => CpuData::F32(blocks(&v[offset..offset + len], n * inner, |x, y| {
            let mut acc = vec![0.0f64; inner];
            for (xs, ys) in x.chunks_exact(inner).zip(y.chunks_exact_mut(inner)) {
                for ((a, &x), y) in acc.iter_mut().zip(xs).zip(ys) {
                    *a += x as f64;
                    *y = *a as f32;
                }
            }
        })),
        CpuData::I32(v) => CpuData::I32(blocks(&v[offset..offset + len], n * inner, |x, y| {
            let mut acc = vec![0i32; inner];
            for (xs, ys) in x.chunks_exact(inner).zip(y.chunks_exact_mut(inner)) {
                for ((a, &x), y) in acc.iter_mut().zip(xs).zip(ys) {
                    *a = a.wrapping_add(x);
                    *y = *a;
                }
            }
        })),
        _ => return None,
    })
}

/// `scan` over each block of `block` elements of `v` (the last may be shorter) into the same
/// block of the result, the blocks split across threads.
fn blocks<T: Copy + Default + Send + Sync>(v: &[T], block: usize, scan: impl Fn(&[T], &mut [T]) + Sync) -> Vec<T> {
    let mut out = vec![T::default(); v.len()];
    if block == 0 {
        return out;
    }
    let parts = par::Disjoint::new(&mut out);
    par::ranges(v.len().div_ceil(block), block, |r| {
        for b in r {
            let at = b * block..((b + 1) * block).min(v.len());
            // SAFETY: block b of `out`, which only this part writes; `out` has v.len() elements
            // and outlives the split.
            scan(&v[at.clone()], unsafe { parts.slice(at) });
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_sums_along_each_position() {
        // [2, 3, 2]: along n = 3 for each of outer 2 and inner 2.
        let v: Vec<f32> = (1..=12).map(|i| i as f32).collect();
        let got = cumsum(&CpuData::F32(v), 0, (2, 3, 2));
        let want = [1.0, 2.0, 4.0, 6.0, 9.0, 12.0, 7.0, 8.0, 16.0, 18.0, 27.0, 30.0];
        assert_eq!(got, Some(CpuData::F32(want.to_vec())));
        let got = cumsum(&CpuData::I32(vec![0, i32::MAX, 1, 5]), 0, (1, 4, 1));
        assert_eq!(got, Some(CpuData::I32(vec![0, i32::MAX, i32::MIN, i32::MIN + 5])));
        assert_eq!(cumsum(&CpuData::F32(vec![]), 0, (0, 3, 2)), Some(CpuData::F32(vec![])));
        assert_eq!(cumsum(&CpuData::U32(vec![1]), 0, (1, 1, 1)), None);
        // Rows four at a time and the rest one by one: 7 rows of 5.
        let v: Vec<f32> = (0..35).map(|i| (i % 9) as f32 - 4.0).collect();
        let want: Vec<f32> = v
            .chunks(5)
            .flat_map(|r| {
                r.iter().scan(0.0, |a, &x| {
                    *a += x;
                    Some(*a)
                })
            })
            .collect();
        assert_eq!(cumsum(&CpuData::F32(v), 0, (7, 5, 1)), Some(CpuData::F32(want)));
    }
}
