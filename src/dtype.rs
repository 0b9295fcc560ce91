//! Element types: the `DType` tag, how each is stored on the CPU and on GPUs, and the `Element`
//! trait that maps Rust types to dtypes for creation and readback.

use std::fmt;
use std::str::FromStr;

use half::f16;

use crate::error::{Error, Result};

/// The element type of a tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// 32-bit IEEE float.
    F32,
    /// 16-bit IEEE float (GPUs need the `shader-f16` feature).
    F16,
    /// 32-bit signed integer.
    I32,
    /// 32-bit unsigned integer.
    U32,
    /// Boolean (one byte on the CPU, a 32-bit word on GPUs, where WGSL has no 8-bit type).
    Bool,
    /// 8-bit unsigned integer (images, quantised weights): one byte on the CPU, a 32-bit word on
    /// GPUs. Stored, moved, indexed and cast natively; arithmetic computes in i32 and wraps back.
    U8,
    /// 8-bit signed integer, stored and computed as `U8` is.
    I8,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 7] = [DType::F32, DType::F16, DType::I32, DType::U32, DType::Bool, DType::U8, DType::I8];

    /// Bytes per element in CPU memory and in transfers.
    pub fn size_in_bytes(self) -> usize {
        match self {
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F16 => 2,
            DType::Bool | DType::U8 | DType::I8 => 1,
        }
    }

    /// Bytes per element in a GPU buffer (bool, u8 and i8 are widened to a 32-bit word).
    pub fn gpu_size_in_bytes(self) -> usize {
        match self {
            DType::F16 => 2,
            _ => 4,
        }
    }

    /// Whether this is a floating-point dtype.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F16)
    }

    /// Whether this is an integer dtype (bool excluded).
    pub fn is_int(self) -> bool {
        matches!(self, DType::I32 | DType::U32 | DType::U8 | DType::I8)
    }

    /// Whether this is an 8-bit integer: kernels store, move and cast it, and compute on its
    /// i32 widening (see `storage.rs`).
    pub fn is_narrow(self) -> bool {
        matches!(self, DType::U8 | DType::I8)
    }

    /// The canonical name, as accepted by `FromStr` and printed by `Display`.
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::I32 => "i32",
            DType::U32 => "u32",
            DType::Bool => "bool",
            DType::U8 => "u8",
            DType::I8 => "i8",
        }
    }

    /// The dtype of `a op b` under PyTorch-like promotion: equal dtypes stay; floats win over
    /// integers and bool; f32 wins over f16; i32 wins over u32 (there is no 64-bit type to widen
    /// to); a wider integer wins over u8 and i8, and u8 with i8 is i32 (PyTorch's int16, which
    /// there is none of); anything wins over bool.
    pub fn promote(a: DType, b: DType) -> DType {
        use DType::*;
        match (a, b) {
            _ if a == b => a,
            (F32, _) | (_, F32) => F32,
            (F16, _) | (_, F16) => F16,
            (I32, _) | (_, I32) | (U8, I8) | (I8, U8) => I32,
            (U32, I8) | (I8, U32) => I32,
            (U32, _) | (_, U32) => U32,
            (U8, _) | (_, U8) => U8,
            (I8, _) | (_, I8) => I8,
            _ => Bool,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DType {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "f32" | "float32" | "float" => Ok(DType::F32),
            "f16" | "float16" | "half" => Ok(DType::F16),
            "i32" | "int32" | "int" => Ok(DType::I32),
            "u32" | "uint32" => Ok(DType::U32),
            "bool" => Ok(DType::Bool),
            "u8" | "uint8" => Ok(DType::U8),
            "i8" | "int8" => Ok(DType::I8),
            _ => Err(Error::invalid(
                "dtype",
                format!("unknown dtype '{s}'; expected one of f32, f16, i32, u32, bool, u8, i8"),
            )),
        }
    }
}

/// Host-side data of one dtype: how the CPU backend stores a tensor.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CpuData {
    F32(Vec<f32>),
    F16(Vec<f16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    /// 0 or 1 per element.
    Bool(Vec<u8>),
    U8(Vec<u8>),
    I8(Vec<i8>),
}

impl CpuData {
    pub(crate) fn dtype(&self) -> DType {
        match self {
            CpuData::F32(_) => DType::F32,
            CpuData::F16(_) => DType::F16,
            CpuData::I32(_) => DType::I32,
            CpuData::U32(_) => DType::U32,
            CpuData::Bool(_) => DType::Bool,
            CpuData::U8(_) => DType::U8,
            CpuData::I8(_) => DType::I8,
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            CpuData::F32(v) => v.len(),
            CpuData::F16(v) => v.len(),
            CpuData::I32(v) => v.len(),
            CpuData::U32(v) => v.len(),
            CpuData::Bool(v) | CpuData::U8(v) => v.len(),
            CpuData::I8(v) => v.len(),
        }
    }

    /// Values as f64, for building data of another dtype (creation helpers; not a hot path).
    pub(crate) fn from_f64(dtype: DType, values: impl Iterator<Item = f64>) -> CpuData {
        match dtype {
            DType::F32 => CpuData::F32(values.map(|v| v as f32).collect()),
            DType::F16 => CpuData::F16(values.map(f16::from_f64).collect()),
            DType::I32 => CpuData::I32(values.map(|v| v as i32).collect()),
            DType::U32 => CpuData::U32(values.map(|v| v as u32).collect()),
            DType::Bool => CpuData::Bool(values.map(|v| (v != 0.0) as u8).collect()),
            // The cast rule: to i32 (truncating, saturating), then the low 8 bits.
            DType::U8 => CpuData::U8(values.map(|v| v as i32 as u8).collect()),
            DType::I8 => CpuData::I8(values.map(|v| v as i32 as i8).collect()),
        }
    }

    /// Bytes as a GPU buffer holds them (bool and u8 widened to u32, i8 to i32).
    pub(crate) fn to_gpu_bytes(&self) -> Vec<u8> {
        match self {
            CpuData::F32(v) => bytemuck::cast_slice(v).to_vec(),
            CpuData::F16(v) => bytemuck::cast_slice(v).to_vec(),
            CpuData::I32(v) => bytemuck::cast_slice(v).to_vec(),
            CpuData::U32(v) => bytemuck::cast_slice(v).to_vec(),
            CpuData::Bool(v) | CpuData::U8(v) => v.iter().flat_map(|&b| (b as u32).to_le_bytes()).collect(),
            CpuData::I8(v) => v.iter().flat_map(|&b| (b as i32).to_le_bytes()).collect(),
        }
    }

    /// The inverse of [`CpuData::to_gpu_bytes`] for `len` elements.
    pub(crate) fn from_gpu_bytes(dtype: DType, bytes: &[u8], len: usize) -> CpuData {
        let n = len * dtype.gpu_size_in_bytes();
        let bytes = &bytes[..n.min(bytes.len())];
        // Aligned bytes (what a mapped range is) are viewed and copied once; pod_collect_to_vec
        // zero-fills a vector and then copies into it.
        fn words<T: bytemuck::AnyBitPattern + bytemuck::NoUninit>(bytes: &[u8]) -> Vec<T> {
            bytemuck::try_cast_slice(bytes).map_or_else(|_| bytemuck::pod_collect_to_vec(bytes), <[T]>::to_vec)
        }
        match dtype {
            DType::F32 => CpuData::F32(words(bytes)),
            DType::F16 => CpuData::F16(words(bytes)),
            DType::I32 => CpuData::I32(words(bytes)),
            DType::U32 => CpuData::U32(words(bytes)),
            DType::Bool => CpuData::Bool(bytes.chunks_exact(4).map(|c| (c != [0, 0, 0, 0]) as u8).collect()),
            // The low byte of each little-endian word (GPU kernels keep u8/i8 words in range).
            DType::U8 => CpuData::U8(bytes.chunks_exact(4).map(|c| c[0]).collect()),
            DType::I8 => CpuData::I8(bytes.chunks_exact(4).map(|c| c[0] as i8).collect()),
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that can be stored in a tensor: `f32`, `half::f16`, `i32`, `u32`, `bool`, `u8`
/// or `i8`.
pub trait Element: Copy + Send + Sync + 'static + sealed::Sealed {
    /// The dtype this Rust type stores as.
    const DTYPE: DType;
    #[doc(hidden)]
    fn into_data(v: Vec<Self>) -> CpuDataHandle;
    #[doc(hidden)]
    fn from_data(d: CpuDataHandle) -> Option<Vec<Self>>;
}

/// Opaque wrapper so that `Element`'s hidden methods do not expose the crate-private `CpuData`.
#[doc(hidden)]
pub struct CpuDataHandle(pub(crate) CpuData);

macro_rules! element {
    ($t:ty, $variant:ident) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$variant;
            fn into_data(v: Vec<Self>) -> CpuDataHandle {
                CpuDataHandle(CpuData::$variant(v))
            }
            fn from_data(d: CpuDataHandle) -> Option<Vec<Self>> {
                match d.0 {
                    CpuData::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}
element!(f32, F32);
element!(f16, F16);
element!(i32, I32);
element!(u32, U32);
element!(u8, U8);
element!(i8, I8);

impl sealed::Sealed for bool {}
impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn into_data(v: Vec<Self>) -> CpuDataHandle {
        CpuDataHandle(CpuData::Bool(v.into_iter().map(u8::from).collect()))
    }
    fn from_data(d: CpuDataHandle) -> Option<Vec<Self>> {
        match d.0 {
            CpuData::Bool(v) => Some(v.into_iter().map(|b| b != 0).collect()),
            _ => None,
        }
    }
}
