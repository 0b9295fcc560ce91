//! Data movement by element width. Copies, `where`, `cat` and gathers never look at the values
//! they move, so they are compiled once per width (4, 2 and 1 bytes) over the bits instead of
//! once per dtype: a walk per dtype put five near-identical copies of each in the .wasm (`cast`'s
//! copies and `where_` alone were 90 KB of its 1.5 MB).

use bytemuck::allocation::{pod_collect_to_vec, try_cast_vec};

use crate::dtype::{CpuData, DType};
use crate::error::Result;

use super::scalar::wrong_storage;

/// `v`'s elements as `B`s of the same size: the same allocation (same size and alignment, so the
/// cast succeeds; the copy is only there so no path can panic).
fn cast_vec<A: bytemuck::Pod, B: bytemuck::Pod>(v: Vec<A>) -> Vec<B> {
    try_cast_vec(v).unwrap_or_else(|(_, v)| pod_collect_to_vec(&v))
}

/// The bits of one element of some width: the storage of every dtype of that width, viewed
/// without copying.
pub(crate) trait Bits: bytemuck::Pod + Default + Send + Sync {
    /// `d`'s elements as bits, or an error for a dtype of another width (which `with_width!`
    /// rules out).
    fn of(d: &CpuData) -> Result<&[Self]>;
    /// `v` as the storage of `dtype` (a dtype of this width).
    fn wrap_as(dtype: DType, v: Vec<Self>) -> CpuData;
}

impl Bits for u32 {
    fn of(d: &CpuData) -> Result<&[u32]> {
        match d {
            CpuData::F32(v) => Ok(bytemuck::cast_slice(v)),
            CpuData::I32(v) => Ok(bytemuck::cast_slice(v)),
            CpuData::U32(v) => Ok(v),
            _ => Err(wrong_storage::<u32>(d)),
        }
    }
    fn wrap_as(dtype: DType, v: Vec<u32>) -> CpuData {
        match dtype {
            DType::F32 => CpuData::F32(cast_vec(v)),
            DType::I32 => CpuData::I32(cast_vec(v)),
            _ => CpuData::U32(v),
        }
    }
}

impl Bits for u16 {
    fn of(d: &CpuData) -> Result<&[u16]> {
        match d {
            CpuData::F16(v) => Ok(bytemuck::cast_slice(v)),
            _ => Err(wrong_storage::<u16>(d)),
        }
    }
    fn wrap_as(_: DType, v: Vec<u16>) -> CpuData {
        CpuData::F16(cast_vec(v))
    }
}

impl Bits for u8 {
    fn of(d: &CpuData) -> Result<&[u8]> {
        match d {
            CpuData::Bool(v) | CpuData::U8(v) => Ok(v),
            CpuData::I8(v) => Ok(bytemuck::cast_slice(v)),
            _ => Err(wrong_storage::<u8>(d)),
        }
    }
    fn wrap_as(dtype: DType, v: Vec<u8>) -> CpuData {
        match dtype {
            DType::Bool => CpuData::Bool(v),
            DType::I8 => CpuData::I8(cast_vec(v)),
            _ => CpuData::U8(v),
        }
    }
}

/// Runs `$body` with `$T` bound to the [`Bits`] type of `$dtype`'s width.
macro_rules! with_width {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype.size_in_bytes() {
            4 => {
                type $T = u32;
                $body
            }
            2 => {
                type $T = u16;
                $body
            }
            _ => {
                type $T = u8;
                $body
            }
        }
    };
}
pub(crate) use with_width;

#[cfg(test)]
mod tests {
    use half::f16;

    use super::*;

    /// Storage read as another type is an error naming both, not an empty slice.
    #[test]
    fn a_wrong_read_is_an_error() {
        use crate::device::cpu::scalar::Scalar;
        let ints = CpuData::I32(vec![1, 2]);
        let e = f32::slice(&ints).unwrap_err().to_string();
        assert!(e.contains("i32 storage read as f32"), "{e}");
        assert_eq!(i32::slice(&ints).unwrap(), &[1, 2]);
        let e = u16::of(&ints).unwrap_err().to_string();
        assert!(e.contains("i32 storage read as u16"), "{e}");
        assert!(u8::of(&CpuData::F32(vec![1.0])).is_err());
        assert_eq!(u32::of(&ints).unwrap().len(), 2);
    }

    #[test]
    fn bits_round_trip_every_dtype() {
        let all = [
            CpuData::F32(vec![1.5, -0.0, f32::NAN]),
            CpuData::F16(vec![f16::from_f32(2.5), f16::NEG_INFINITY]),
            CpuData::I32(vec![-7, i32::MAX]),
            CpuData::U32(vec![u32::MAX, 0]),
            CpuData::Bool(vec![1, 0, 1]),
            CpuData::U8(vec![255, 3]),
            CpuData::I8(vec![-128, 5]),
        ];
        for d in all {
            let dtype = d.dtype();
            let back = with_width!(dtype, T => T::wrap_as(dtype, T::of(&d).unwrap().to_vec()));
            // Compare bits: NaN != NaN as a value.
            assert_eq!(format!("{back:?}"), format!("{d:?}"), "{dtype}");
            assert_eq!(back.len(), d.len());
        }
    }
}
