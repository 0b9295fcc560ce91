//! Argument conversion at the wasm boundary. JavaScript numbers arrive as `f64` and devices as
//! raw `JsValue`s, never as `u32`/`i32`/`&str`: wasm-bindgen converts those silently (2^32 wraps
//! to 0, 2.5 truncates to 2) or traps on a non-string. Everything is checked here and refused
//! with an error that names the function, the argument, what was given and what is accepted.
//! The JS layer (`js/check.js`) checks the same things first with friendlier types; this is the
//! safety net for callers of the raw exports.

use wasm_bindgen::prelude::*;

use super::js_err;
use crate::{Device, Error};

/// The largest integer a JS number holds exactly (2^53 - 1).
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

fn describe(v: &JsValue) -> String {
    if let Some(s) = v.as_string() {
        return format!("the string '{s}'");
    }
    if let Some(n) = v.as_f64() {
        return format!("the number {n}");
    }
    if v.is_undefined() {
        return "undefined".into();
    }
    if v.is_null() {
        return "null".into();
    }
    format!("a value of type {}", v.js_typeof().as_string().unwrap_or_default())
}

/// A string argument (a dtype or op name), named `what` in the error.
pub(crate) fn string(op: &'static str, what: &str, v: &JsValue) -> Result<String, JsValue> {
    v.as_string().ok_or_else(|| js_err(Error::invalid(op, format!("{what} must be a string, got {}", describe(v)))))
}

/// A device from a JS value: a device string, or an object with a `name` string (a `DeviceInfo`
/// from `devices()`).
pub(crate) fn device(op: &'static str, v: &JsValue) -> Result<Device, JsValue> {
    let name = match v.as_string() {
        Some(s) => s,
        None => js_sys::Reflect::get(v, &JsValue::from_str("name"))
            .ok()
            .and_then(|n| if v.is_object() { n.as_string() } else { None })
            .ok_or_else(|| {
                js_err(Error::invalid(
                    op,
                    format!(
                        "device must be a device string such as 'cpu' or 'webgpu:0' (or a device from devices()), got {}",
                        describe(v)
                    ),
                ))
            })?,
    };
    Device::parse(&name).map_err(js_err)
}

/// An optional device: `undefined` or `null` mean "the default device".
pub(crate) fn opt_device(op: &'static str, v: &JsValue) -> Result<Option<Device>, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    device(op, v).map(Some)
}

/// A whole number in `[min, max]`, named `what` in the error.
pub(crate) fn int(op: &'static str, what: &str, x: f64, min: f64, max: f64) -> Result<i64, JsValue> {
    if x.is_finite() && x.fract() == 0.0 && x >= min && x <= max {
        Ok(x as i64)
    } else {
        Err(js_err(Error::invalid(op, format!("{what} must be an integer in [{min}, {max}], got {x}"))))
    }
}

/// A shape: sizes that are integers in `[0, 2^53)` whose product memory can address (checked,
/// never wrapped).
pub(crate) fn shape(op: &'static str, dims: &[f64]) -> Result<Vec<usize>, JsValue> {
    let mut out = Vec::with_capacity(dims.len());
    for (i, &d) in dims.iter().enumerate() {
        let n = int(op, &format!("shape[{i}]"), d, 0.0, MAX_SAFE)?;
        out.push(usize::try_from(n).map_err(|_| {
            js_err(Error::invalid(op, format!("shape[{i}] = {n} is larger than this platform can address")))
        })?);
    }
    crate::shape::checked_numel(op, &out).map_err(js_err)?;
    Ok(out)
}

/// A signed dimension index (range-checked against the rank by the op itself).
pub(crate) fn dim(op: &'static str, x: f64) -> Result<isize, JsValue> {
    int(op, "dim", x, i32::MIN as f64, i32::MAX as f64).map(|d| d as isize)
}

/// Signed dims or sizes where `-1` has a meaning (reshape, expand, permute, reduction dims).
pub(crate) fn dims(op: &'static str, xs: &[f64]) -> Result<Vec<isize>, JsValue> {
    xs.iter().map(|&x| dim(op, x)).collect()
}

/// A non-negative count or offset.
pub(crate) fn count(op: &'static str, what: &str, x: f64) -> Result<usize, JsValue> {
    let n = int(op, what, x, 0.0, MAX_SAFE)?;
    usize::try_from(n).map_err(|_| js_err(Error::invalid(op, format!("{what} = {n} is too large"))))
}

/// A byte count (memory limits): an integer in `[0, 2^53)`.
pub(crate) fn bytes(op: &'static str, x: f64) -> Result<u64, JsValue> {
    int(op, "bytes", x, 0.0, MAX_SAFE).map(|b| b as u64)
}

/// A seed: an integer in `[0, 2^53)`.
pub(crate) fn seed(op: &'static str, x: Option<f64>) -> Result<Option<u64>, JsValue> {
    x.map(|s| int(op, "seed", s, 0.0, MAX_SAFE).map(|s| s as u64)).transpose()
}

/// A JS boolean (a number or a string is an error, not truthiness).
pub(crate) fn flag(op: &'static str, what: &str, v: &JsValue) -> Result<bool, JsValue> {
    v.as_bool().ok_or_else(|| js_err(Error::invalid(op, format!("{what} must be a boolean, got {v:?}"))))
}

/// An options object that a JS wrapper passes in place of a run of positional arguments (its
/// keys in camelCase, as the public API spells them). Each read names the op and the key in
/// its error, as the positional readers above do.
pub(crate) struct Fields<'a> {
    op: &'static str,
    obj: &'a JsValue,
}

impl<'a> Fields<'a> {
    /// The options `obj` of `op` (undefined or null reads as an object without keys).
    pub(crate) fn new(op: &'static str, obj: &'a JsValue) -> Self {
        Fields { op, obj }
    }

    /// Field `key` as it is (undefined when absent).
    pub(crate) fn get(&self, key: &str) -> JsValue {
        if !self.obj.is_object() {
            return JsValue::UNDEFINED;
        }
        js_sys::Reflect::get(self.obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    }

    /// A number.
    pub(crate) fn number(&self, key: &str) -> Result<f64, JsValue> {
        let v = self.get(key);
        v.as_f64()
            .ok_or_else(|| js_err(Error::invalid(self.op, format!("{key} must be a number, got {}", describe(&v)))))
    }

    /// A number, or `None` for undefined or null.
    pub(crate) fn opt_number(&self, key: &str) -> Result<Option<f64>, JsValue> {
        let v = self.get(key);
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        self.number(key).map(Some)
    }

    /// A boolean.
    pub(crate) fn flag(&self, key: &str) -> Result<bool, JsValue> {
        flag(self.op, key, &self.get(key))
    }

    /// A non-negative integer.
    pub(crate) fn count(&self, key: &str) -> Result<usize, JsValue> {
        count(self.op, key, self.number(key)?)
    }

    /// Non-negative integers from an array of numbers (a plain or a typed array).
    pub(crate) fn counts(&self, key: &str) -> Result<Vec<usize>, JsValue> {
        let v = self.get(key);
        if !js_sys::Array::is_array(&v) && !v.is_instance_of::<js_sys::Float64Array>() {
            return Err(js_err(Error::invalid(
                self.op,
                format!("{key} must be an array of integers, got {}", describe(&v)),
            )));
        }
        let mut out = Vec::new();
        for x in js_sys::Array::from(&v).iter() {
            let n = x.as_f64().ok_or_else(|| {
                js_err(Error::invalid(self.op, format!("{key} must hold numbers, got {}", describe(&x))))
            })?;
            out.push(count(self.op, key, n)?);
        }
        Ok(out)
    }
}
