//! Readback straight into JS memory, for the npm package's `data()` on a browser's (or Dawn's)
//! WebGPU: the staging buffer is mapped through the JS `GPUBuffer` behind wgpu's, and its
//! mapped range copied once into a new `ArrayBuffer`, as TF.js does. Through wgpu's own mapping
//! the bytes went into wasm memory first and then into the typed array: two copies of each
//! byte, plus the conversion to elements.

use std::sync::Arc;

use super::{WgpuDevice, WgpuStorage};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;

/// `GPUMapMode.READ`.
const MAP_READ: u32 = 1;

impl WgpuDevice {
    /// The bytes of `l` over `s`, in row-major order, in a new `ArrayBuffer`; None where the
    /// GPU does not store the dtype as the host does (f16 without the feature, bool and the
    /// 8-bit types widen to 32 bits on the GPU: [`WgpuDevice::read`] converts those) or where
    /// the device is not on the WebGPU backend.
    pub(crate) async fn read_array_buffer(
        self: &Arc<Self>,
        s: &WgpuStorage,
        l: &Layout,
    ) -> Result<Option<js_sys::ArrayBuffer>> {
        if !matches!(s.dtype(), DType::F32 | DType::I32 | DType::U32) || self.device.as_webgpu().is_none() {
            return Ok(None);
        }
        self.check()?;
        let n = l.numel();
        if n == 0 {
            return Ok(Some(js_sys::ArrayBuffer::new(0)));
        }
        let temp = self.gathered(s, l)?;
        let (buf, offset) = match &temp {
            Some(t) => (t.buffer(), 0),
            None => (s.buffer(), (l.offset() * 4) as u64),
        };
        let size = (n * 4) as u64;
        let waited_from = crate::clock::now_ms();
        let staging = self.staged(buf, offset, size).await;
        let fail = |what: &str, e: wasm_bindgen::JsValue| Error::Gpu {
            device: self.name(),
            msg: format!("{what} the readback buffer failed: {e:?}"),
        };
        let Some(raw) = staging.as_webgpu() else {
            return Err(Error::invalid("data", "internal: a WebGPU device's buffer has no GPUBuffer"));
        };
        let mapped = raw.map_async_with_f64_and_f64(MAP_READ, 0.0, size as f64).await;
        self.ensure_alive()?;
        mapped.map_err(|e| fail("mapping", e))?;
        let copy = raw.get_mapped_range_with_f64_and_f64(0.0, size as f64).map(|range| range.slice(0));
        raw.unmap();
        let copy = copy.map_err(|e| fail("reading", e))?;
        self.return_staging(staging);
        self.transfers.add_wait_ms(crate::clock::now_ms() - waited_from);
        self.check()?;
        Ok(Some(copy))
    }
}
