//! The module-registry rules of `nn::registry` for the JS `nn.Module` (js/module.js keeps its
//! slots, properties and walk order; these decide what a name may be, which entries are one
//! slot listed again, and how a state dict fills the slots), so JS and Rust modules follow one
//! set of rules with one set of messages. Types and errors only.

use js_sys::{Array, Int32Array, Object};
use wasm_bindgen::prelude::*;

use super::set;
use crate::nn::registry::{first_of_each, name_problem, plan_load, Slot};

/// Why `name` cannot be registered (`taken`: the module already has it), or undefined.
#[wasm_bindgen(js_name = registryNameProblem)]
pub fn registry_name_problem(name: &str, taken: bool) -> Option<String> {
    name_problem(name, taken)
}

/// The positions of the entries to keep, each slot once under its first name (`ids[i]` names
/// entry `i`'s slot).
#[wasm_bindgen(js_name = registryFirstOfEach)]
pub fn registry_first_of_each(ids: Vec<u32>) -> Vec<u32> {
    let ids: Vec<u64> = ids.into_iter().map(u64::from).collect();
    first_of_each(&ids).into_iter().map(|i| i as u32).collect()
}

/// `[name, shape]` or `[name, id, shape]` entries as (name, id, shape); None for anything else.
fn entries(list: &Array, with_id: bool) -> Option<Vec<(String, u64, Vec<usize>)>> {
    list.iter()
        .map(|e| {
            let e: Array = e.dyn_into().ok()?;
            let name = e.get(0).as_string()?;
            let id = if with_id { e.get(1).as_f64()? as u64 } else { 0 };
            let shape: Array = e.get(if with_id { 2 } else { 1 }).dyn_into().ok()?;
            let dims = shape.iter().map(|d| d.as_f64().map(|d| d as usize)).collect::<Option<Vec<_>>>()?;
            Some((name, id, dims))
        })
        .collect()
}

/// How a state dict fills a module's slots (`nn::registry::plan_load`): `slots` as `[name,
/// identity, shape]` (the identity equal for one tied weight's names), `dict` as `[key,
/// shape]`. Gives `{ sources, missingKeys, unexpectedKeys }` (`sources[i]`: the dict entry that
/// fills slot `i`, or -1), or `{ error }`, the message without the function's name.
#[wasm_bindgen(js_name = registryPlanLoad)]
pub fn registry_plan_load(slots: Array, dict: Array, strict: bool) -> Object {
    let o = Object::new();
    let (Some(slots), Some(dict)) = (entries(&slots, true), entries(&dict, false)) else {
        set(&o, "error", JsValue::from_str("internal: slots and dict entries must be [name, (id,) shape]"));
        return o;
    };
    let slots: Vec<Slot<'_>> =
        slots.iter().map(|(name, identity, shape)| Slot { name, identity: *identity, shape }).collect();
    let dict: Vec<(&str, &[usize])> = dict.iter().map(|(k, _, s)| (k.as_str(), s.as_slice())).collect();
    match plan_load(&slots, &dict, strict) {
        Ok(plan) => {
            let sources: Vec<i32> = plan.sources.iter().map(|s| s.map_or(-1, |i| i as i32)).collect();
            let strings = |v: &[String]| v.iter().map(|s| JsValue::from_str(s)).collect::<Array>();
            set(&o, "sources", Int32Array::from(sources.as_slice()));
            set(&o, "missingKeys", strings(&plan.missing));
            set(&o, "unexpectedKeys", strings(&plan.unexpected));
        }
        Err(msg) => set(&o, "error", JsValue::from_str(&msg)),
    }
    o
}
