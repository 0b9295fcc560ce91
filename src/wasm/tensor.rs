//! `RawTensor`: the tensor as wasm-bindgen exports it. Ops take op names as strings (the enum
//! arms' own names) so one method serves each family; the JS `Tensor` class gives them their
//! method names and number-or-tensor arguments.

use futures::FutureExt;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::args::{self, opt_device};
use super::live::Live;
use super::{device, js_err};
use crate::{BinaryOp, DType, Device, Error, ReduceOp, Tensor, UnaryOp};

/// A tensor handle (cheap to clone: it shares the data).
#[wasm_bindgen]
#[derive(Clone)]
pub struct RawTensor {
    pub(super) t: Tensor,
    /// Counts this handle in `wt.memory()` while it lives.
    _live: Live,
}

impl RawTensor {
    pub(super) fn new(t: Tensor) -> RawTensor {
        let _live = Live::new(t.device());
        RawTensor { t, _live }
    }
}

pub(super) type R = Result<RawTensor, JsValue>;

pub(super) fn wrap(r: crate::Result<Tensor>) -> R {
    r.map(RawTensor::new).map_err(js_err)
}

pub(super) fn dtype(v: &JsValue) -> Result<DType, JsValue> {
    args::string("dtype", "dtype", v)?.parse().map_err(js_err)
}

/// Floating-point dtypes only, for the random constructors (PyTorch refuses integer `rand`).
fn float_dtype(op: &'static str, v: &JsValue) -> Result<DType, JsValue> {
    match dtype(v)? {
        d @ (DType::F32 | DType::F16) => Ok(d),
        d => Err(js_err(Error::invalid(
            op,
            format!("dtype {d} is not supported: {op} makes floating-point tensors (float32, float16)"),
        ))),
    }
}

fn find<T: Copy>(all: &[T], name: &JsValue, of: impl Fn(T) -> &'static str, what: &'static str) -> Result<T, JsValue> {
    let name = args::string(what, "op", name)?;
    all.iter()
        .copied()
        .find(|&o| of(o) == name)
        .ok_or_else(|| js_err(Error::invalid(what, format!("unknown op '{name}'"))))
}

#[wasm_bindgen]
impl RawTensor {
    /// From f32 data (then converted to `dtype`). The data arrives as a `Vec` so that
    /// wasm-bindgen's one copy out of JS memory is the only one: the tensor takes it.
    #[wasm_bindgen(js_name = fromF32)]
    pub fn from_f32(data: Vec<f32>, shape: Vec<f64>, dtype_: JsValue, device_: JsValue) -> R {
        let t =
            Tensor::from_vec(data, &args::shape("tensor", &shape)?, opt_device("tensor", &device_)?).map_err(js_err)?;
        wrap(t.to_dtype(dtype(&dtype_)?))
    }

    /// From i32 data.
    #[wasm_bindgen(js_name = fromI32)]
    pub fn from_i32(data: Vec<i32>, shape: Vec<f64>, device_: JsValue) -> R {
        wrap(Tensor::from_vec(data, &args::shape("tensor", &shape)?, opt_device("tensor", &device_)?))
    }

    /// From u32 data.
    #[wasm_bindgen(js_name = fromU32)]
    pub fn from_u32(data: Vec<u32>, shape: Vec<f64>, device_: JsValue) -> R {
        wrap(Tensor::from_vec(data, &args::shape("tensor", &shape)?, opt_device("tensor", &device_)?))
    }

    /// From u8 data (a `Uint8Array` or `Uint8ClampedArray`).
    #[wasm_bindgen(js_name = fromU8)]
    pub fn from_u8(data: Vec<u8>, shape: Vec<f64>, device_: JsValue) -> R {
        wrap(Tensor::from_vec(data, &args::shape("tensor", &shape)?, opt_device("tensor", &device_)?))
    }

    /// From i8 data.
    #[wasm_bindgen(js_name = fromI8)]
    pub fn from_i8(data: Vec<i8>, shape: Vec<f64>, device_: JsValue) -> R {
        wrap(Tensor::from_vec(data, &args::shape("tensor", &shape)?, opt_device("tensor", &device_)?))
    }

    /// From int64 data (a `BigInt64Array`), range-checked into i32.
    #[wasm_bindgen(js_name = fromI64)]
    pub fn from_i64(data: &[i64], shape: Vec<f64>, device_: JsValue) -> R {
        wrap(Tensor::from_i64(data, &args::shape("tensor", &shape)?, opt_device("tensor", &device_)?))
    }

    /// From uint64 data (a `BigUint64Array`), range-checked into u32.
    #[wasm_bindgen(js_name = fromU64)]
    pub fn from_u64(data: &[u64], shape: Vec<f64>, device_: JsValue) -> R {
        wrap(Tensor::from_u64(data, &args::shape("tensor", &shape)?, opt_device("tensor", &device_)?))
    }

    /// From 0/1 bytes as bool.
    #[wasm_bindgen(js_name = fromBool)]
    pub fn from_bool(data: &[u8], shape: Vec<f64>, device_: JsValue) -> R {
        let v: Vec<bool> = data.iter().map(|&b| b != 0).collect();
        wrap(Tensor::from_vec(v, &args::shape("tensor", &shape)?, opt_device("tensor", &device_)?))
    }

    /// `value` in `shape`.
    pub fn full(shape: Vec<f64>, value: f64, dtype_: JsValue, device_: JsValue) -> R {
        wrap(Tensor::full(&args::shape("full", &shape)?, value, dtype(&dtype_)?, opt_device("full", &device_)?))
    }

    /// `start, start + step, ...` below `end`.
    pub fn arange(start: f64, end: f64, step: f64, dtype_: JsValue, device_: JsValue) -> R {
        wrap(Tensor::arange(start, end, step, dtype(&dtype_)?, opt_device("arange", &device_)?))
    }

    /// Uniform [0, 1) samples (normal ones when `normal`) of a float `dtype`, seeded when
    /// `seed` is given.
    pub fn random(shape: Vec<f64>, normal: bool, seed: Option<f64>, dtype_: JsValue, device_: JsValue) -> R {
        let op = if normal { "randn" } else { "rand" };
        let (shape, seed, dt, d) =
            (args::shape(op, &shape)?, args::seed(op, seed)?, float_dtype(op, &dtype_)?, opt_device(op, &device_)?);
        let t = if normal { Tensor::randn(&shape, seed, d) } else { Tensor::rand(&shape, seed, d) };
        wrap(t.and_then(|t| if dt == DType::F32 { Ok(t) } else { t.to_dtype(dt) }))
    }

    /// Another handle to the same tensor.
    #[wasm_bindgen(js_name = cloneHandle)]
    pub fn clone_handle(&self) -> RawTensor {
        self.clone()
    }

    /// The shape.
    #[wasm_bindgen(getter)]
    pub fn shape(&self) -> Vec<u32> {
        self.t.shape().iter().map(|&d| d as u32).collect()
    }

    /// The dtype name.
    #[wasm_bindgen(getter)]
    pub fn dtype(&self) -> String {
        self.t.dtype().to_string()
    }

    /// The device name.
    #[wasm_bindgen(getter)]
    pub fn device(&self) -> String {
        self.t.device().to_string()
    }

    /// Number of elements.
    #[wasm_bindgen(getter)]
    pub fn numel(&self) -> f64 {
        self.t.numel() as f64
    }

    /// A unary op by name (`exp`, `relu`, ...).
    pub fn unary(&self, op: JsValue) -> R {
        wrap(self.t.unary(find(&UnaryOp::ALL, &op, UnaryOp::name, "unary")?))
    }

    /// A binary op by name with another tensor.
    pub fn binary(&self, op: JsValue, other: &RawTensor) -> R {
        wrap(self.t.binary(&other.t, find(&BinaryOp::ALL, &op, BinaryOp::name, "binary")?))
    }

    /// A binary op by name with a number.
    #[wasm_bindgen(js_name = binaryScalar)]
    pub fn binary_scalar(&self, op: JsValue, other: f64) -> R {
        wrap(self.t.binary_scalar(other, find(&BinaryOp::ALL, &op, BinaryOp::name, "binary")?))
    }

    /// `cond ? a : b` with this tensor as the condition.
    #[wasm_bindgen(js_name = whereThen)]
    pub fn where_then(&self, a: &RawTensor, b: &RawTensor) -> R {
        wrap(self.t.where_(&a.t, &b.t))
    }

    /// Limits values to `[min, max]`.
    pub fn clamp(&self, min: Option<f64>, max: Option<f64>) -> R {
        wrap(self.t.clamp(min, max))
    }

    /// A reduction by name over `dims` (all when absent).
    pub fn reduce(&self, op: JsValue, dims: Option<Vec<f64>>, keepdim: bool) -> R {
        let dims = dims.map(|d| args::dims("reduce", &d)).transpose()?;
        match op.as_string().as_deref() {
            Some("mean") => wrap(match dims {
                Some(d) => self.t.mean(&d, keepdim),
                // Every dim, kept as 1s when asked (as the other reductions keep them).
                None if keepdim => self.t.mean(&(0..self.t.rank() as isize).collect::<Vec<_>>(), true),
                None => self.t.mean_all(),
            }),
            _ => wrap(self.t.reduce(find(&ReduceOp::ALL, &op, ReduceOp::name, "reduce")?, dims.as_deref(), keepdim)),
        }
    }

    /// Index of the max (`max` true) or min along `dim` (flattened when absent).
    pub fn arg(&self, max: bool, dim: Option<f64>, keepdim: bool) -> R {
        let dim = dim.map(|d| args::dim(if max { "argmax" } else { "argmin" }, d)).transpose()?;
        wrap(if max { self.t.argmax(dim, keepdim) } else { self.t.argmin(dim, keepdim) })
    }

    /// Variance (`std` false) or standard deviation over `dims` (all when absent).
    pub fn moments(&self, std: bool, dims: Option<Vec<f64>>, correction: f64, keepdim: bool) -> R {
        let op = if std { "std" } else { "var" };
        let all: Vec<isize> = (0..self.t.rank() as isize).collect();
        let dims = dims.map(|d| args::dims(op, &d)).transpose()?.unwrap_or(all);
        let v = self.t.var(&dims, args::count(op, "correction", correction)?, keepdim);
        wrap(if std { v.and_then(|v| v.sqrt()) } else { v })
    }

    /// Softmax (or log-softmax) along `dim`.
    pub fn softmax(&self, dim: f64, log: bool) -> R {
        let dim = args::dim(if log { "logSoftmax" } else { "softmax" }, dim)?;
        wrap(if log { self.t.log_softmax(dim) } else { self.t.softmax(dim) })
    }

    /// Matrix product.
    pub fn matmul(&self, other: &RawTensor) -> R {
        wrap(self.t.matmul(&other.t))
    }

    /// A view with a new shape (`-1` infers one dim).
    pub fn reshape(&self, shape: Vec<f64>) -> R {
        wrap(self.t.reshape(&args::dims("reshape", &shape)?))
    }

    /// Like `reshape`, but never copies: refuses a non-contiguous tensor.
    pub fn view(&self, shape: Vec<f64>) -> R {
        wrap(self.t.view(&args::dims("view", &shape)?))
    }

    /// The transpose of a tensor of at most 2 dims (more is an error: use `transpose`).
    pub fn t(&self) -> R {
        wrap(self.t.t())
    }

    /// Reordered dims.
    pub fn permute(&self, dims: Vec<f64>) -> R {
        wrap(self.t.permute(&args::dims("permute", &dims)?))
    }

    /// Two dims swapped.
    pub fn transpose(&self, a: f64, b: f64) -> R {
        wrap(self.t.transpose(args::dim("transpose", a)?, args::dim("transpose", b)?))
    }

    /// `len` entries of `dim` from `start`.
    pub fn narrow(&self, dim: f64, start: f64, len: f64) -> R {
        let (dim, start, len) =
            (args::dim("narrow", dim)?, args::count("narrow", "start", start)?, args::count("narrow", "length", len)?);
        wrap(self.t.narrow(dim, start, len))
    }

    /// `num_samples` category indices per row of weights, with or without replacement.
    pub fn multinomial(&self, num_samples: f64, replacement: bool, seed: Option<f64>) -> R {
        let k = args::int("multinomial", "numSamples", num_samples, 0.0, i32::MAX as f64)? as usize;
        wrap(self.t.multinomial(k, replacement, args::seed("multinomial", seed)?))
    }

    /// The slice at `index` of `dim`, that dim removed (negative counts from the end).
    pub fn select(&self, dim: f64, index: f64) -> R {
        let index = args::int("select", "index", index, i32::MIN as f64, i32::MAX as f64)? as isize;
        wrap(self.t.select(args::dim("select", dim)?, index))
    }

    /// Size-1 dims removed (all, or `dim`).
    pub fn squeeze(&self, dim: Option<f64>) -> R {
        wrap(self.t.squeeze(dim.map(|d| args::dim("squeeze", d)).transpose()?))
    }

    /// A size-1 dim inserted at `dim`.
    pub fn unsqueeze(&self, dim: f64) -> R {
        wrap(self.t.unsqueeze(args::dim("unsqueeze", dim)?))
    }

    /// Broadcast to `shape` (`-1` keeps a dim).
    pub fn expand(&self, shape: Vec<f64>) -> R {
        wrap(self.t.expand(&args::dims("expand", &shape)?))
    }

    /// True where NaN (bool).
    pub fn isnan(&self) -> R {
        wrap(self.t.isnan())
    }

    /// True where +inf or -inf (bool).
    pub fn isinf(&self) -> R {
        wrap(self.t.isinf())
    }

    /// True where neither NaN nor infinite (bool).
    pub fn isfinite(&self) -> R {
        wrap(self.t.isfinite())
    }

    /// A contiguous copy when needed.
    pub fn contiguous(&self) -> R {
        wrap(self.t.contiguous())
    }

    /// Converted to `dtype`.
    #[wasm_bindgen(js_name = toDtype)]
    pub fn to_dtype(&self, dtype_: JsValue) -> R {
        wrap(self.t.to_dtype(dtype(&dtype_)?))
    }

    /// Slices of `dim` picked by a 1-D index.
    #[wasm_bindgen(js_name = indexSelect)]
    pub fn index_select(&self, dim: f64, index: &RawTensor) -> R {
        wrap(self.t.index_select(args::dim("indexSelect", dim)?, &index.t))
    }

    /// Elements along `dim` picked by an index of the output's shape.
    pub fn gather(&self, dim: f64, index: &RawTensor) -> R {
        wrap(self.t.gather(args::dim("gather", dim)?, &index.t))
    }

    /// Concatenation (the parts are handles from `cloneHandle`).
    pub fn cat(parts: Vec<RawTensor>, dim: f64) -> R {
        wrap(Tensor::cat(&parts.into_iter().map(|p| p.t).collect::<Vec<_>>(), args::dim("cat", dim)?))
    }

    /// Stacking along a new dim.
    pub fn stack(parts: Vec<RawTensor>, dim: f64) -> R {
        wrap(Tensor::stack(&parts.into_iter().map(|p| p.t).collect::<Vec<_>>(), args::dim("stack", dim)?))
    }

    /// The elements as a typed array (Float32Array for f32 and f16, Int32Array, Uint32Array,
    /// Uint8Array for bool).
    pub fn data(&self) -> Promise {
        let t = self.t.clone();
        super::promise(super::readback::typed(t))
    }

    /// The elements, synchronously: only for tensors on the cpu.
    #[wasm_bindgen(js_name = dataSync)]
    pub fn data_sync(&self) -> Result<JsValue, JsValue> {
        if self.t.device() != Device::CPU {
            return Err(js_err(Error::invalid(
                "dataSync",
                format!(
                    "this tensor is on {}, whose data can only be read asynchronously: use await t.data()",
                    self.t.device()
                ),
            )));
        }
        // On the CPU the read completes without waiting.
        super::readback::typed(self.t.clone())
            .now_or_never()
            .unwrap_or_else(|| Err(js_err(Error::invalid("dataSync", "the read did not complete"))))
    }

    /// A copy on `device` (this tensor is untouched).
    pub fn to(&self, device_: JsValue) -> Promise {
        let t = self.t.clone();
        let d = device("to", &device_);
        super::promise(async move { t.to(d?).await.map(|t| JsValue::from(RawTensor::new(t))).map_err(js_err) })
    }

    /// The value of a one-element tensor as a number (a boolean for bool tensors).
    pub fn item(&self) -> Promise {
        let t = self.t.clone();
        super::promise(async move {
            if t.numel() != 1 {
                return Err(js_err(Error::invalid(
                    "item",
                    format!(
                        "a tensor with {} elements cannot be converted to a number; item() needs exactly one",
                        t.numel()
                    ),
                )));
            }
            let v = super::readback::typed(t.clone()).await?;
            let x = js_sys::Reflect::get_u32(&v, 0)?;
            Ok(if t.dtype() == DType::Bool { JsValue::from_bool(x.as_f64() == Some(1.0)) } else { x })
        })
    }
}
