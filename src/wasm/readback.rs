//! Reading a tensor's elements into JavaScript: a new typed array of the dtype's kind (`data`,
//! `dataSync`), or the caller's own array (`data({ into })`, `dataSync({ into })`). The latter
//! is what a loop that reads every step wants: a fresh 16 MB `ArrayBuffer` costs the engine
//! first-touch page faults whenever its allocator takes the memory from the OS (in Node,
//! `new Float32Array(4M)` filled took 1.4-2.1 ms or 5.7-12 ms run to run, where filling a warm
//! array took 0.7-0.9 ms), which made readbacks bimodal in webtensor and TF.js alike.

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js_err;
use super::tensor::RawTensor;
use crate::{DType, Device, Error, Tensor};

/// Host data of a tensor as the matching typed array (f16 arrives as a Float32Array).
pub(super) async fn typed(t: Tensor) -> Result<JsValue, JsValue> {
    if let Some(v) = typed_in_place(&t) {
        return Ok(v);
    }
    if let Some(v) = typed_from_gpu(&t).await? {
        return Ok(v);
    }
    let t = if t.dtype() == DType::F16 { t.to_dtype(DType::F32).map_err(js_err)? } else { t };
    Ok(match t.dtype() {
        DType::I32 => js_sys::Int32Array::from(t.to_vec::<i32>().await.map_err(js_err)?.as_slice()).into(),
        DType::U32 => js_sys::Uint32Array::from(t.to_vec::<u32>().await.map_err(js_err)?.as_slice()).into(),
        DType::Bool => {
            let v: Vec<u8> = t.to_vec::<bool>().await.map_err(js_err)?.into_iter().map(u8::from).collect();
            js_sys::Uint8Array::from(v.as_slice()).into()
        }
        DType::U8 => js_sys::Uint8Array::from(t.to_vec::<u8>().await.map_err(js_err)?.as_slice()).into(),
        DType::I8 => js_sys::Int8Array::from(t.to_vec::<i8>().await.map_err(js_err)?.as_slice()).into(),
        _ => js_sys::Float32Array::from(t.to_vec::<f32>().await.map_err(js_err)?.as_slice()).into(),
    })
}

/// A WebGPU tensor's elements copied once, from the mapped readback buffer into a new typed
/// array (see `readback_web.rs`); None for other devices and for dtypes the GPU widens.
async fn typed_from_gpu(t: &Tensor) -> Result<Option<JsValue>, JsValue> {
    let Some(buffer) = t.read_array_buffer().await.map_err(js_err)? else {
        return Ok(None);
    };
    Ok(Some(match t.dtype() {
        DType::I32 => js_sys::Int32Array::new(&buffer).into(),
        DType::U32 => js_sys::Uint32Array::new(&buffer).into(),
        _ => js_sys::Float32Array::new(&buffer).into(),
    }))
}

/// A contiguous CPU tensor's elements copied once, from its storage into a new typed array;
/// None where [`typed`] must convert or gather first.
fn typed_in_place(t: &Tensor) -> Option<JsValue> {
    use crate::dtype::CpuData;
    t.with_cpu_elements(|data, r| {
        Some(match data {
            CpuData::F32(v) => js_sys::Float32Array::from(&v[r]).into(),
            CpuData::I32(v) => js_sys::Int32Array::from(&v[r]).into(),
            CpuData::U32(v) => js_sys::Uint32Array::from(&v[r]).into(),
            CpuData::U8(v) | CpuData::Bool(v) => js_sys::Uint8Array::from(&v[r]).into(),
            CpuData::I8(v) => js_sys::Int8Array::from(&v[r]).into(),
            CpuData::F16(_) => return None,
        })
    })
}

/// Copies `t`'s elements into `out`, a typed array of its dtype's kind and exactly its length
/// (the JS wrapper checks both first; checked again here): in place from CPU storage, else
/// through a host vector, with no new JS array.
async fn fill_into(t: Tensor, out: JsValue) -> Result<JsValue, JsValue> {
    const OP: &str = "data";
    let len = js_sys::Reflect::get(&out, &JsValue::from_str("length"))?.as_f64().unwrap_or(-1.0);
    if len != t.numel() as f64 {
        return Err(js_err(Error::invalid(OP, format!("`into` holds {len} elements; the tensor has {}", t.numel()))));
    }
    let kind_ok = match t.dtype() {
        DType::F32 | DType::F16 => out.is_instance_of::<js_sys::Float32Array>(),
        DType::I32 => out.is_instance_of::<js_sys::Int32Array>(),
        DType::U32 => out.is_instance_of::<js_sys::Uint32Array>(),
        DType::Bool | DType::U8 => out.is_instance_of::<js_sys::Uint8Array>(),
        DType::I8 => out.is_instance_of::<js_sys::Int8Array>(),
    };
    if !kind_ok {
        return Err(js_err(Error::invalid(
            OP,
            format!("`into` is not the typed array a {:?} tensor reads into", t.dtype()),
        )));
    }
    use crate::dtype::CpuData;
    let done = t.with_cpu_elements(|data, r| {
        match data {
            CpuData::F32(v) => out.unchecked_ref::<js_sys::Float32Array>().copy_from(&v[r]),
            CpuData::I32(v) => out.unchecked_ref::<js_sys::Int32Array>().copy_from(&v[r]),
            CpuData::U32(v) => out.unchecked_ref::<js_sys::Uint32Array>().copy_from(&v[r]),
            CpuData::U8(v) | CpuData::Bool(v) => out.unchecked_ref::<js_sys::Uint8Array>().copy_from(&v[r]),
            CpuData::I8(v) => out.unchecked_ref::<js_sys::Int8Array>().copy_from(&v[r]),
            CpuData::F16(_) => return None,
        }
        Some(())
    });
    if done.is_none() {
        let t = if t.dtype() == DType::F16 { t.to_dtype(DType::F32).map_err(js_err)? } else { t };
        match t.dtype() {
            DType::I32 => {
                out.unchecked_ref::<js_sys::Int32Array>().copy_from(&t.to_vec::<i32>().await.map_err(js_err)?)
            }
            DType::U32 => {
                out.unchecked_ref::<js_sys::Uint32Array>().copy_from(&t.to_vec::<u32>().await.map_err(js_err)?)
            }
            DType::Bool => {
                let v: Vec<u8> = t.to_vec::<bool>().await.map_err(js_err)?.into_iter().map(u8::from).collect();
                out.unchecked_ref::<js_sys::Uint8Array>().copy_from(&v)
            }
            DType::U8 => out.unchecked_ref::<js_sys::Uint8Array>().copy_from(&t.to_vec::<u8>().await.map_err(js_err)?),
            DType::I8 => out.unchecked_ref::<js_sys::Int8Array>().copy_from(&t.to_vec::<i8>().await.map_err(js_err)?),
            _ => out.unchecked_ref::<js_sys::Float32Array>().copy_from(&t.to_vec::<f32>().await.map_err(js_err)?),
        }
    }
    Ok(out)
}

#[wasm_bindgen]
impl RawTensor {
    /// The elements copied into `out` (a typed array of the dtype's kind and the tensor's
    /// length), which the promise resolves to.
    #[wasm_bindgen(js_name = dataInto)]
    pub fn data_into(&self, out: JsValue) -> Promise {
        super::promise(fill_into(self.t.clone(), out))
    }

    /// [`RawTensor::data_into`], synchronously: only for tensors on the cpu.
    #[wasm_bindgen(js_name = dataSyncInto)]
    pub fn data_sync_into(&self, out: JsValue) -> Result<JsValue, JsValue> {
        if self.t.device() != Device::CPU {
            return Err(js_err(Error::invalid(
                "dataSync",
                format!("this tensor is on {}; read it with await t.data({{ into }})", self.t.device()),
            )));
        }
        futures::FutureExt::now_or_never(fill_into(self.t.clone(), out))
            .unwrap_or_else(|| Err(js_err(Error::invalid("dataSync", "the read did not complete"))))
    }
}
