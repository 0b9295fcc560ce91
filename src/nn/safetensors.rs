//! Checkpoints in the `.safetensors` format (Hugging Face's; what `safetensors.torch.save_file`
//! writes): a state dict to bytes and back, so weights move between webtensor and PyTorch in
//! both directions. Saving reads each tensor back from its device; loading creates the tensors
//! on the device asked for. The file's dtypes that webtensor does not store are converted on
//! load, exactly or with a range check: BF16 and F64 to f32 (F64 rounds to the nearest f32),
//! I64/U64/I16/U16 to i32 (an error names the first value outside i32's range, since
//! PyTorch indexes and counts, e.g. BatchNorm's `num_batches_tracked`, in int64).

use super::safetensors_format::{self as format, Entry, Record};
use crate::device::cpu::host_vec;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

const SAVE: &str = "save_safetensors";
const LOAD: &str = "load_safetensors";

/// One tensor's bytes, ready to write, with its dtype's name in the format.
struct Bytes {
    dtype: &'static str,
    shape: Vec<usize>,
    data: Vec<u8>,
}

/// `v` as little-endian bytes, in a buffer allocated fallibly (see `host_vec`).
fn le_bytes<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Result<Vec<u8>> {
    let mut out = host_vec::<u8>(v.len().saturating_mul(N))?;
    v.iter().for_each(|&x| out.extend_from_slice(&f(x)));
    Ok(out)
}

/// A tensor's values as little-endian bytes in its safetensors dtype.
async fn host_bytes(t: &Tensor) -> Result<Bytes> {
    // The readback and the byte copy both live at once: see that the host has room for them
    // before either is made.
    let n = usize::try_from(t.nbytes()).unwrap_or(usize::MAX);
    drop((host_vec::<u8>(n)?, host_vec::<u8>(n)?));
    let (dtype, data) = match t.dtype() {
        DType::F32 => ("F32", le_bytes(&t.to_vec::<f32>().await?, f32::to_le_bytes)?),
        DType::F16 => ("F16", le_bytes(&t.to_vec::<half::f16>().await?, half::f16::to_le_bytes)?),
        DType::I32 => ("I32", le_bytes(&t.to_vec::<i32>().await?, i32::to_le_bytes)?),
        DType::U32 => ("U32", le_bytes(&t.to_vec::<u32>().await?, u32::to_le_bytes)?),
        DType::Bool => ("BOOL", le_bytes(&t.to_vec::<bool>().await?, |b| [u8::from(b)])?),
        DType::U8 => ("U8", t.to_vec::<u8>().await?),
        DType::I8 => ("I8", le_bytes(&t.to_vec::<i8>().await?, i8::to_le_bytes)?),
    };
    Ok(Bytes { dtype, shape: t.shape().to_vec(), data })
}

/// `dict` (a `state_dict`, or any named tensors on any devices) as the bytes of a
/// `.safetensors` file, with optional string `metadata` (the header's `__metadata__`, written
/// sorted by key). Names must be unique; the file lists tensors in the format's canonical order,
/// so the same dict gives the same bytes, the bytes PyTorch's `save_file` writes for it.
pub async fn save_safetensors(dict: &[(String, Tensor)], metadata: &[(String, String)]) -> Result<Vec<u8>> {
    let mut tensors = Vec::with_capacity(dict.len());
    for (i, (name, t)) in dict.iter().enumerate() {
        if dict[..i].iter().any(|(n, _)| n == name) {
            return Err(Error::invalid(SAVE, format!("the name '{name}' appears twice; names must be unique")));
        }
        tensors.push((name.as_str(), host_bytes(t).await?));
    }
    // The file is built in one more buffer of the tensors' total size (plus a small header).
    drop(host_vec::<u8>(tensors.iter().map(|(_, b)| b.data.len()).sum::<usize>().saturating_add(1 << 16))?);
    let records =
        tensors.iter().map(|(name, b)| Record { name, dtype: b.dtype, shape: &b.shape, data: &b.data }).collect();
    format::write(records, metadata, SAVE)
}

/// Blocking [`save_safetensors`] (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn save_safetensors_blocking(dict: &[(String, Tensor)], metadata: &[(String, String)]) -> Result<Vec<u8>> {
    crate::block::block_on(save_safetensors(dict, metadata))
}

fn parse(bytes: &[u8]) -> Result<format::File<'_>> {
    format::read(bytes).map_err(|e| Error::invalid(LOAD, format!("not a valid .safetensors file: {e}")))
}

/// Fixed-size little-endian values of a tensor view, in a buffer allocated fallibly (a file's
/// tensor may be larger than the host can hold twice).
fn values<const N: usize, T>(data: &[u8], f: impl Fn([u8; N]) -> T) -> Result<Vec<T>> {
    let mut out = host_vec(data.len() / N)?;
    out.extend(data.chunks_exact(N).map(|c| {
        let mut a = [0u8; N];
        a.copy_from_slice(c);
        f(a)
    }));
    Ok(out)
}

/// Integers of a wider type as i32, refusing (by name and index) one that does not fit.
fn to_i32<const N: usize, T: Copy + std::fmt::Display>(
    name: &str,
    dtype: &str,
    data: &[u8],
    f: impl Fn([u8; N]) -> T,
    fits: impl Fn(T) -> Option<i32>,
) -> Result<Vec<i32>> {
    let wide = values(data, f)?;
    let mut out = host_vec(wide.len())?;
    for (i, &x) in wide.iter().enumerate() {
        out.push(fits(x).ok_or_else(|| {
            Error::invalid(
                LOAD,
                format!(
                    "'{name}' ({dtype}) holds {x} at element {i}, outside int32's range; webtensor stores \
                     integers as int32"
                ),
            )
        })?);
    }
    Ok(out)
}

/// One stored tensor as a webtensor tensor on `device`.
fn tensor_of(name: &str, entry: &Entry<'_>, device: Option<Device>) -> Result<Tensor> {
    let (shape, data, dt) = (&entry.shape[..], entry.data, entry.dtype);
    match dt {
        "F32" => Tensor::from_vec(values(data, f32::from_le_bytes)?, shape, device),
        "F16" => Tensor::from_vec(values(data, half::f16::from_le_bytes)?, shape, device),
        "BF16" => Tensor::from_vec(values(data, |b| half::bf16::from_le_bytes(b).to_f32())?, shape, device),
        "F64" => Tensor::from_vec(values(data, |b| f64::from_le_bytes(b) as f32)?, shape, device),
        "I32" => Tensor::from_vec(values(data, i32::from_le_bytes)?, shape, device),
        "U32" => Tensor::from_vec(values(data, u32::from_le_bytes)?, shape, device),
        "I64" => {
            Tensor::from_vec(to_i32(name, dt, data, i64::from_le_bytes, |x| i32::try_from(x).ok())?, shape, device)
        }
        "U64" => {
            Tensor::from_vec(to_i32(name, dt, data, u64::from_le_bytes, |x| i32::try_from(x).ok())?, shape, device)
        }
        "I16" => Tensor::from_vec(values(data, |b| i32::from(i16::from_le_bytes(b)))?, shape, device),
        "U16" => Tensor::from_vec(values(data, |b| i32::from(u16::from_le_bytes(b)))?, shape, device),
        "I8" => Tensor::from_vec(values(data, |b: [u8; 1]| b[0] as i8)?, shape, device),
        "U8" => Tensor::from_vec(values(data, |b: [u8; 1]| b[0])?, shape, device),
        "BOOL" => Tensor::from_vec(values(data, |b: [u8; 1]| b[0] != 0)?, shape, device),
        other => Err(Error::invalid(
            LOAD,
            format!(
                "'{name}' is stored as {other}, which webtensor cannot hold; supported: F32, F16, BF16, F64, I64, \
                 U64, I32, U32, I16, U16, I8, U8, BOOL"
            ),
        )),
    }
}

/// The tensors of a `.safetensors` file, in the order they are stored, created on `device`
/// (the default device when `None`); see the module docs for dtype conversions. Pass the result
/// to `Module::load_state_dict`, which converts each to its slot's dtype and device.
pub fn load_safetensors(bytes: &[u8], device: Option<Device>) -> Result<Vec<(String, Tensor)>> {
    let file = parse(bytes)?;
    file.tensors.iter().map(|(name, entry)| Ok((name.clone(), tensor_of(name, entry, device)?))).collect()
}

/// The header's `__metadata__` (string keys and values), sorted by key; empty when absent.
pub fn safetensors_metadata(bytes: &[u8]) -> Result<Vec<(String, String)>> {
    Ok(parse(bytes)?.metadata)
}
