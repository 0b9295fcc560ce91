//! The vendored UCI handwritten digits (`data/digits/`, CC BY 4.0), embedded once for `train`
//! and `bench-loader`.

use webtensor::{nn, DType, Device, Tensor};

const BYTES: &[u8] = include_bytes!("../../data/digits/digits.safetensors");

/// The 1,797 images as f32 pixels scaled to [0, 1] (`[1797, 64]`) and their i32 labels, on the
/// CPU.
pub fn load() -> Result<(Tensor, Tensor), Box<dyn std::error::Error>> {
    let dict = nn::load_safetensors(BYTES, Some(Device::CPU))?;
    let get = |name: &str| {
        dict.iter()
            .find(|(k, _)| k == name)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| format!("the vendored digits file has no '{name}'"))
    };
    let images = get("images")?.to_dtype(DType::F32)?.mul_scalar(1.0 / 16.0)?.reshape(&[-1, 64])?;
    Ok((images, get("labels")?.to_dtype(DType::I32)?))
}
