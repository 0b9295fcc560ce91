//! `Scalar`: per-element conversions between the CPU storage types, with the cast rules of
//! `ops::cast` (float to int saturates, int to int wraps, anything to bool is "nonzero").

use half::f16;

use crate::dtype::CpuData;
use crate::error::{Error, Result};

/// The error for storage read as another type than its own: an internal slip (the kernels
/// dispatch on the storage's dtype), reported rather than read as an empty slice.
pub(super) fn wrong_storage<T>(d: &CpuData) -> Error {
    Error::invalid("cpu", format!("internal: {} storage read as {}", d.dtype(), std::any::type_name::<T>()))
}

/// Per-element conversions between the CPU storage types, with the cast rules of `ops::cast`.
pub(crate) trait Scalar: Copy + PartialOrd + Default + Send + Sync + 'static {
    fn to_f32(self) -> f32;
    fn to_i32(self) -> i32;
    fn to_u32(self) -> u32;
    fn to_bool(self) -> u8;
    #[inline]
    fn to_f16(self) -> f16 {
        f16::from_f32(self.to_f32())
    }
    /// The storage's elements, or an error if it holds another type.
    fn slice(d: &CpuData) -> Result<&[Self]>;
    fn wrap(v: Vec<Self>) -> CpuData;
    const FLOAT: bool = false;
    fn from_f64(x: f64) -> Self;
    #[inline]
    fn to_i64(self) -> i64 {
        self.to_i32() as i64
    }
    fn from_i64(x: i64) -> Self;
}

macro_rules! scalar {
    ($t:ty, $variant:ident, $f:expr, $i:expr, $u:expr, $b:expr, $float:expr, $from_f64:expr, $from_i64:expr) => {
        impl Scalar for $t {
            const FLOAT: bool = $float;
            #[inline]
            fn from_f64(x: f64) -> Self {
                ($from_f64)(x)
            }
            #[inline]
            fn from_i64(x: i64) -> Self {
                ($from_i64)(x)
            }
            #[inline]
            fn to_f32(self) -> f32 {
                ($f)(self)
            }
            #[inline]
            fn to_i32(self) -> i32 {
                ($i)(self)
            }
            #[inline]
            fn to_u32(self) -> u32 {
                ($u)(self)
            }
            #[inline]
            fn to_bool(self) -> u8 {
                ($b)(self)
            }
            fn slice(d: &CpuData) -> Result<&[Self]> {
                match d {
                    CpuData::$variant(v) => Ok(v),
                    _ => Err(wrong_storage::<Self>(d)),
                }
            }
            fn wrap(v: Vec<Self>) -> CpuData {
                CpuData::$variant(v)
            }
        }
    };
}
scalar!(f32, F32, |x| x, |x: f32| x as i32, |x: f32| x as u32, |x: f32| (x != 0.0) as u8, true, |x| x as f32, |x| x
    as f32);
scalar!(
    f16,
    F16,
    f16::to_f32,
    |x: f16| x.to_f32() as i32,
    |x: f16| x.to_f32() as u32,
    |x: f16| (x.to_f32() != 0.0) as u8,
    true,
    f16::from_f64,
    |x| f16::from_f64(x as f64)
);
scalar!(i32, I32, |x| x as f32, |x| x, |x| x as u32, |x| (x != 0) as u8, false, |x| x as i32, |x| x as i32);
scalar!(u32, U32, |x| x as f32, |x| x as i32, |x| x, |x| (x != 0) as u8, false, |x| x as u32, |x| x as u32);
scalar!(u8, Bool, |x| x as f32, |x| x as i32, |x| x as u32, |x| (x != 0) as u8, false, |x| (x != 0.0) as u8, |x| (x
    != 0)
    as u8);
