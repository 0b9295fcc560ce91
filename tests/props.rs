//! Property tests over random shapes (including size-0 and size-1 dims and sizes that are not
//! multiples of the workgroup): broadcasting, chains of views, and reductions. Expectations come
//! from naive index arithmetic written here, independent of the library's `Layout`, and every
//! device must agree with them.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::*;
use proptest::prelude::*;
use webtensor::{DType, Device, Tensor};

/// Maps a coordinate of a view to a coordinate of the tensor it was made from.
type CoordMap = Box<dyn Fn(&[usize]) -> Vec<usize>>;

fn config() -> ProptestConfig {
    ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() }
}

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1].max(1);
    }
    s
}

fn coords(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        c[d] = i % shape[d];
        i /= shape[d];
    }
    c
}

/// arange(numel) reshaped to `shape` on `d`: element value = its row-major index.
fn iota(shape: &[usize], d: Device) -> Tensor {
    let n: usize = shape.iter().product();
    let s: Vec<isize> = shape.iter().map(|&x| x as isize).collect();
    Tensor::arange(0.0, n as f64, 1.0, DType::F32, d).unwrap().reshape(&s).unwrap()
}

/// Two broadcast-compatible shapes: a base shape, with some dims set to 1 or dropped on each side.
fn broadcast_pair() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    prop::collection::vec(0usize..6, 0..5)
        .prop_flat_map(|base| {
            let r = base.len();
            (Just(base), prop::collection::vec(any::<bool>(), r), prop::collection::vec(any::<bool>(), r), 0..=r, 0..=r)
        })
        .prop_map(|(base, ones_a, ones_b, drop_a, drop_b)| {
            let a: Vec<usize> = base.iter().zip(&ones_a).map(|(&x, &o)| if o { 1 } else { x }).skip(drop_a).collect();
            let b: Vec<usize> = base.iter().zip(&ones_b).map(|(&x, &o)| if o { 1 } else { x }).skip(drop_b).collect();
            (a, b)
        })
}

/// The properties, instantiated once per device (`cpu::…`, `webgpu::…`, `cuda::…`) so a failure
/// names the device; `main` makes each a trial.
macro_rules! properties_on {
    ($devices:expr) => {
        proptest! {
            #![proptest_config(config())]

            fn broadcasting_add_matches_index_math((sa, sb) in broadcast_pair()) {
                let out = webtensor::broadcast_shapes("test", &sa, &sb).unwrap();
                let n: usize = out.iter().product();
                let want: Vec<f32> = (0..n).map(|i| {
                    let c = coords(i, &out);
                    let at = |s: &[usize]| -> f32 {
                        let pad = out.len() - s.len();
                        let st = strides(s);
                        (0..s.len()).map(|k| if s[k] == 1 { 0 } else { c[k + pad] * st[k] }).sum::<usize>() as f32
                    };
                    at(&sa) * 1000.0 + at(&sb)
                }).collect();
                for d in $devices {
                    let r = iota(&sa, d).mul_scalar(1000.0).unwrap().add(&iota(&sb, d)).unwrap();
                    prop_assert_eq!(r.shape(), &out[..]);
                    assert_close(&f32s(&r), &want, 0.0, &format!("{sa:?} + {sb:?} on {d}"));
                }
            }

            fn view_chains_read_the_right_elements(
                shape in prop::collection::vec(1usize..6, 1..5),
                ops in prop::collection::vec((0u8..5, any::<prop::sample::Index>(), any::<prop::sample::Index>(), 1usize..4), 0..6),
            ) {
                for d in $devices {
                    let mut t = iota(&shape, d);
                    // `map` turns a coordinate of the current view into a coordinate of the base.
                    let mut map: Vec<CoordMap> = Vec::new();
                    for &(kind, i, j, extra) in &ops {
                        let r = t.rank();
                        match kind {
                            0 if r >= 2 => {
                                let (a, b) = (i.index(r), j.index(r));
                                t = t.transpose(a as isize, b as isize).unwrap();
                                map.push(Box::new(move |c: &[usize]| { let mut c = c.to_vec(); c.swap(a, b); c }));
                            }
                            1 => {
                                let dim = i.index(r);
                                let size = t.shape()[dim];
                                let start = j.index(size);
                                let len = (size - start).min(extra);
                                t = t.narrow(dim as isize, start, len).unwrap();
                                map.push(Box::new(move |c: &[usize]| { let mut c = c.to_vec(); c[dim] += start; c }));
                            }
                            2 if r < 6 => {
                                let dim = i.index(r + 1);
                                t = t.unsqueeze(dim as isize).unwrap();
                                map.push(Box::new(move |c: &[usize]| { let mut c = c.to_vec(); c.remove(dim); c }));
                            }
                            3 => {
                                // Expand: add a leading dim of size `extra` and grow size-1 dims.
                                let mut target = vec![extra];
                                target.extend(t.shape().iter().map(|&s| if s == 1 { extra } else { s }));
                                let ones: Vec<bool> = t.shape().iter().map(|&s| s == 1).collect();
                                t = t.broadcast_to(&target).unwrap();
                                map.push(Box::new(move |c: &[usize]| c[1..].iter().zip(&ones).map(|(&x, &o)| if o { 0 } else { x }).collect()));
                            }
                            4 if r >= 2 => {
                                let mut perm: Vec<usize> = (0..r).collect();
                                perm.rotate_left(1 + i.index(r - 1));
                                let p: Vec<isize> = perm.iter().map(|&x| x as isize).collect();
                                t = t.permute(&p).unwrap();
                                let perm2 = perm.clone();
                                map.push(Box::new(move |c: &[usize]| { let mut o = vec![0; c.len()]; for (k, &p) in perm2.iter().enumerate() { o[p] = c[k]; } o }));
                            }
                            _ => {}
                        }
                    }
                    let st = strides(&shape);
                    let n = t.numel();
                    let want: Vec<f32> = (0..n).map(|i| {
                        let mut c = coords(i, t.shape());
                        for m in map.iter().rev() { c = m(&c); }
                        c.iter().zip(&st).map(|(a, b)| a * b).sum::<usize>() as f32
                    }).collect();
                    assert_close(&f32s(&t), &want, 0.0, &format!("views {ops:?} of {shape:?} on {d}"));
                    // An op over the view reads it the same way.
                    assert_close(&f32s(&t.add_scalar(1.0).unwrap()), &want.iter().map(|x| x + 1.0).collect::<Vec<_>>(), 0.0, "op over view");
                }
            }

            fn reductions_match_naive_sums(
                shape in prop::collection::vec(0usize..7, 1..4),
                mask in prop::collection::vec(any::<bool>(), 3),
                keepdim in any::<bool>(),
                scale in 1usize..300,
            ) {
                let shape: Vec<usize> = shape.iter().enumerate().map(|(i, &s)| if i == 0 { s * scale } else { s }).collect();
                let dims: Vec<isize> = (0..shape.len()).filter(|&i| mask[i]).map(|i| i as isize).collect();
                let kept: Vec<usize> = (0..shape.len()).filter(|&i| !mask[i]).map(|i| shape[i]).collect();
                let m: usize = kept.iter().product();
                let mut want = vec![0f64; m];
                let n: usize = shape.iter().product();
                for i in 0..n {
                    let c = coords(i, &shape);
                    let kc: Vec<usize> = (0..shape.len()).filter(|&k| !mask[k]).map(|k| c[k]).collect();
                    let o = kc.iter().zip(strides(&kept)).map(|(a, b)| a * b).sum::<usize>();
                    want[o] += (i % 97) as f64;
                }
                for d in $devices {
                    let data: Vec<f32> = (0..n).map(|i| (i % 97) as f32).collect();
                    let x = Tensor::from_vec(data, &shape, d).unwrap();
                    let r = x.sum(&dims, keepdim).unwrap();
                    let expect_shape: Vec<usize> = if keepdim { (0..shape.len()).map(|i| if mask[i] { 1 } else { shape[i] }).collect() } else { kept.clone() };
                    prop_assert_eq!(r.shape(), &expect_shape[..]);
                    let w: Vec<f32> = want.iter().map(|&v| v as f32).collect();
                    assert_close(&f32s(&r), &w, 1e-6, &format!("sum {shape:?} over {dims:?} on {d}"));
                    // max/min have no identity: an empty reduced dim is an error even when the output
                    // is empty too, as in PyTorch.
                    let k: usize = (0..shape.len()).filter(|&i| mask[i]).map(|i| shape[i]).product();
                    if k > 0 {
                        let mx = x.max(&dims, keepdim).unwrap();
                        let mn = x.min(&dims, keepdim).unwrap();
                        prop_assert!(f32s(&mx).iter().zip(f32s(&mn)).all(|(a, b)| a >= &b));
                    } else {
                        prop_assert!(x.max(&dims, keepdim).is_err());
                    }
                }
            }
        }
        /// This device's properties, in the order of [`NAMES`](super::NAMES).
        pub(super) const PROPERTIES: [fn(); 3] =
            [broadcasting_add_matches_index_math, view_chains_read_the_right_elements, reductions_match_naive_sums];
    };
}

mod cpu {
    use super::*;
    properties_on!([Device::CPU]);
}

mod webgpu {
    use super::*;
    properties_on!(gpu().into_iter().collect::<Vec<_>>());
}

#[cfg(feature = "cuda")]
mod cuda {
    use super::*;
    properties_on!(cuda().into_iter().collect::<Vec<_>>());
}

/// The properties' names, as the trials are called.
const NAMES: [&str; 3] =
    ["broadcasting_add_matches_index_math", "view_chains_read_the_right_elements", "reductions_match_naive_sums"];

/// One trial per property and device (libtest-mimic, `harness = false`): an absent GPU's are
/// reported ignored, not `ok` over no device.
fn main() {
    let mut trials = Vec::new();
    for (i, name) in NAMES.into_iter().enumerate() {
        #[cfg(feature = "cuda")]
        let on_cuda = Some(cuda::PROPERTIES[i]);
        #[cfg(not(feature = "cuda"))]
        let on_cuda = None;
        trials.extend(common::trials::per_device_trials(name, cpu::PROPERTIES[i], webgpu::PROPERTIES[i], on_cuda));
    }
    common::trials::run(trials)
}
