//! The `Module` trait and its registry (`ModuleCore`): named parameters, registered buffers and
//! submodules, as PyTorch's `nn.Module`. A layer owns a `ModuleCore`, registers what it holds,
//! and implements `forward`; everything else (`parameters`, `named_parameters`, `buffers`,
//! `to`, `train`/`eval`, `state_dict`, `load_state_dict`) comes with the trait. Only what is
//! registered moves with `to` or is saved: a plain tensor field is the module's own business.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::registry::{plan_load, Slot};
use super::{Buffer, Parameter};
use crate::device::policy::lock;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// A boxed future that borrows the module (`to`, `load_state_dict`).
pub type ModuleFuture<'a> = Pin<Box<dyn Future<Output = Result<()>> + 'a>>;

/// What a module registered, in registration order (which `state_dict` keeps).
#[derive(Default)]
pub struct ModuleCore {
    params: Mutex<Vec<(String, Parameter)>>,
    buffers: Mutex<Vec<(String, Buffer)>>,
    children: Mutex<Vec<(String, Arc<dyn Module>)>>,
    training: AtomicBool,
}

impl ModuleCore {
    /// An empty registry, in training mode (as PyTorch modules start).
    pub fn new() -> ModuleCore {
        ModuleCore { training: AtomicBool::new(true), ..Default::default() }
    }

    fn check_name(&self, what: &'static str, name: &str) -> Result<()> {
        let taken = lock(&self.params).iter().any(|(n, _)| n == name)
            || lock(&self.buffers).iter().any(|(n, _)| n == name)
            || lock(&self.children).iter().any(|(n, _)| n == name);
        match super::registry::name_problem(name, taken) {
            Some(problem) => Err(Error::invalid(what, problem)),
            None => Ok(()),
        }
    }

    /// Registers a learnable tensor under `name` and returns its slot.
    pub fn register_parameter(&self, name: &str, t: &Tensor) -> Result<Parameter> {
        self.check_name("register_parameter", name)?;
        let p = Parameter::new(t)?;
        lock(&self.params).push((name.to_string(), p.clone()));
        Ok(p)
    }

    /// Registers state that moves and is saved with the module but is not learned.
    pub fn register_buffer(&self, name: &str, t: &Tensor) -> Result<Buffer> {
        self.check_name("register_buffer", name)?;
        let b = Buffer::new(t);
        lock(&self.buffers).push((name.to_string(), b.clone()));
        Ok(b)
    }

    /// Points the parameter registered as `name` at the slot `p` (PyTorch's
    /// `module.weight = other.weight`: weight tying). Both names stay in `state_dict`, loading
    /// fills the one slot, `parameters()` lists it once and `to` moves it once. The shapes must
    /// agree; a layer that keeps the slot in a field swaps its field too (`Linear::tie_weight`).
    pub fn set_parameter(&self, name: &str, p: &Parameter) -> Result<()> {
        let mut params = lock(&self.params);
        let Some(slot) = params.iter_mut().find(|(n, _)| n == name) else {
            let names: Vec<&str> = params.iter().map(|(n, _)| n.as_str()).collect();
            return Err(Error::invalid(
                "set_parameter",
                format!("no parameter '{name}' in this module (it has {names:?})"),
            ));
        };
        if slot.1.shape() != p.shape() {
            return Err(Error::ShapeMismatch {
                op: "set_parameter",
                lhs: slot.1.shape(),
                rhs: p.shape(),
                msg: format!("'{name}' must keep its shape"),
            });
        }
        slot.1 = p.clone();
        Ok(())
    }

    /// Registers an existing parameter slot under `name` (shared with whoever holds it).
    pub fn register_parameter_slot(&self, name: &str, p: &Parameter) -> Result<Parameter> {
        self.check_name("register_parameter", name)?;
        lock(&self.params).push((name.to_string(), p.clone()));
        Ok(p.clone())
    }

    /// Registers a submodule; its parameters appear as `name.<theirs>`.
    pub fn register_module<M: Module + 'static>(&self, name: &str, m: M) -> Result<Arc<M>> {
        self.check_name("register_module", name)?;
        let m = Arc::new(m);
        lock(&self.children).push((name.to_string(), m.clone() as Arc<dyn Module>));
        Ok(m)
    }

    /// Registers a submodule that is already shared.
    pub fn register_shared(&self, name: &str, m: Arc<dyn Module>) -> Result<()> {
        self.check_name("register_module", name)?;
        lock(&self.children).push((name.to_string(), m));
        Ok(())
    }

    /// Whether the module is in training mode.
    pub fn is_training(&self) -> bool {
        self.training.load(Ordering::Relaxed)
    }
}

/// A layer or model. Implement `core` and `forward`; the rest is provided.
pub trait Module: Send + Sync {
    /// The registry of this module's parameters, buffers and submodules.
    fn core(&self) -> &ModuleCore;

    /// The forward pass.
    fn forward(&self, x: &Tensor) -> Result<Tensor>;

    /// Every parameter, this module's first, then each submodule's, depth first.
    fn parameters(&self) -> Vec<Parameter> {
        self.named_parameters().into_iter().map(|(_, p)| p).collect()
    }

    /// Parameters with PyTorch's dotted names (`0.weight`, `fc.bias`), each slot once (a tied
    /// weight under its first name), as PyTorch's.
    fn named_parameters(&self) -> Vec<(String, Parameter)> {
        first_of_each(self.named_parameter_slots(), Parameter::same_as)
    }

    /// Every registered parameter name with its slot, shared slots under each of their names
    /// (what `state_dict` and `load_state_dict` walk).
    fn named_parameter_slots(&self) -> Vec<(String, Parameter)> {
        // The guard goes before the children are walked (each locks its own registry).
        let own = lock(&self.core().params).clone();
        with_children(self.core(), own, |m| m.named_parameter_slots())
    }

    /// Registered buffers with dotted names, each buffer once (under its first name), as
    /// PyTorch's.
    fn named_buffers(&self) -> Vec<(String, Buffer)> {
        first_of_each(self.named_buffer_slots(), Buffer::same_as)
    }

    /// Every registered buffer name with its buffer, shared ones under each of their names
    /// (what `state_dict` and `load_state_dict` walk).
    fn named_buffer_slots(&self) -> Vec<(String, Buffer)> {
        let own = lock(&self.core().buffers).clone();
        with_children(self.core(), own, |m| m.named_buffer_slots())
    }

    /// Registered buffers.
    fn buffers(&self) -> Vec<Buffer> {
        self.named_buffers().into_iter().map(|(_, b)| b).collect()
    }

    /// The direct submodules with their names.
    fn named_children(&self) -> Vec<(String, Arc<dyn Module>)> {
        lock(&self.core().children).clone()
    }

    /// Whether the module is in training mode.
    fn is_training(&self) -> bool {
        self.core().is_training()
    }

    /// Training mode (dropout active, batch statistics in BatchNorm), recursively.
    fn train(&self) {
        set_training(self.core(), true);
    }

    /// Evaluation mode, recursively.
    fn eval(&self) {
        set_training(self.core(), false);
    }

    /// Clears every parameter's gradient.
    fn zero_grad(&self) {
        self.parameters().iter().for_each(Parameter::zero_grad);
    }

    /// Parameters then buffers of this module, then each submodule's, with PyTorch's keys and
    /// shapes (a `Linear` weight is `[out, in]`).
    fn state_dict(&self) -> Vec<(String, Tensor)> {
        let core = self.core();
        let mut out: Vec<(String, Tensor)> =
            lock(&core.params).iter().map(|(n, p)| (n.clone(), p.tensor().detach())).collect();
        out.extend(lock(&core.buffers).iter().map(|(n, b)| (n.clone(), b.tensor())));
        with_children(core, out, |m| m.state_dict())
    }

    /// Moves every parameter (with its gradient) and registered buffer to `device`, in place,
    /// as PyTorch's `model.to(device)`. All or nothing: if one transfer fails, nothing moved.
    fn to(&self, device: Device) -> ModuleFuture<'_> {
        Box::pin(move_to(self.named_parameters(), self.named_buffers(), device))
    }

    /// Loads a `state_dict` (strictly, as PyTorch's default): every key must exist with the
    /// same shape, and none may be missing (a tied weight may be given under any one of its
    /// names, as `safetensors.torch.save_model` writes it). Values are converted to each slot's dtype and moved
    /// to its device. All or nothing: on an error nothing changed.
    fn load_state_dict<'a>(&'a self, dict: &'a [(String, Tensor)]) -> ModuleFuture<'a> {
        Box::pin(load_into(self.named_parameter_slots(), self.named_buffer_slots(), dict))
    }

    /// Blocking [`Module::to`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    fn to_blocking(&self, device: Device) -> Result<()> {
        crate::block::block_on(self.to(device))
    }

    /// Blocking [`Module::load_state_dict`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    fn load_state_dict_blocking(&self, dict: &[(String, Tensor)]) -> Result<()> {
        crate::block::block_on(self.load_state_dict(dict))
    }
}

fn set_training(core: &ModuleCore, on: bool) {
    core.training.store(on, Ordering::Relaxed);
    for (_, child) in lock(&core.children).iter() {
        set_training(child.core(), on);
    }
}

// The provided methods' bodies are free functions over what the module lists, so that each is
// compiled once rather than once per module type (seven in the wasm build: 4.2 KB of the raw
// module, 1 KB gzipped).

/// `own` (this module's entries), then each child's `of_child` entries prefixed `child.`.
fn with_children<T>(
    core: &ModuleCore,
    mut out: Vec<(String, T)>,
    of_child: fn(&dyn Module) -> Vec<(String, T)>,
) -> Vec<(String, T)> {
    for (name, child) in lock(&core.children).iter() {
        out.extend(of_child(child.as_ref()).into_iter().map(|(n, x)| (format!("{name}.{n}"), x)));
    }
    out
}

/// `entries` without the slots listed again (the first name of each stays), by the shared
/// rule of `registry::first_of_each`.
fn first_of_each<T: Clone>(entries: Vec<(String, T)>, same: fn(&T, &T) -> bool) -> Vec<(String, T)> {
    let ids = identities(&entries, same);
    super::registry::first_of_each(&ids).into_iter().map(|i| entries[i].clone()).collect()
}

/// Per entry, the position of the first entry holding the same slot: equal for the names of
/// one shared slot.
fn identities<T>(entries: &[(String, T)], same: fn(&T, &T) -> bool) -> Vec<u64> {
    entries.iter().map(|(_, x)| entries.iter().position(|(_, y)| same(x, y)).unwrap_or(0) as u64).collect()
}

/// [`Module::to`]: every value moved first, then adopted, so a failed transfer changes nothing.
async fn move_to(params: Vec<(String, Parameter)>, buffers: Vec<(String, Buffer)>, device: Device) -> Result<()> {
    let mut moved_params = Vec::with_capacity(params.len());
    for (_, p) in &params {
        moved_params.push(super::parameter::moved_leaf(&p.tensor(), device).await?);
    }
    let mut moved_buffers = Vec::with_capacity(buffers.len());
    for (_, b) in &buffers {
        moved_buffers.push(b.tensor().to(device).await?);
    }
    for ((_, p), t) in params.iter().zip(moved_params) {
        p.adopt_value("Module::to", &t)?;
    }
    for ((_, b), t) in buffers.iter().zip(moved_buffers) {
        b.replace(t);
    }
    Ok(())
}

/// [`Module::load_state_dict`]: keys and shapes checked and every value converted and moved
/// before any slot changes.
async fn load_into(
    params: Vec<(String, Parameter)>,
    buffers: Vec<(String, Buffer)>,
    dict: &[(String, Tensor)],
) -> Result<()> {
    const OP: &str = "load_state_dict";
    let current: Vec<(String, Tensor)> = params
        .iter()
        .map(|(n, p)| (n.clone(), p.tensor()))
        .chain(buffers.iter().map(|(n, b)| (n.clone(), b.tensor())))
        .collect();
    // Parameters and buffers are told apart by identity: buffers' come after the parameters'.
    let offset = params.len() as u64;
    let ids: Vec<u64> = identities(&params, Parameter::same_as)
        .into_iter()
        .chain(identities(&buffers, Buffer::same_as).into_iter().map(|i| i + offset))
        .collect();
    let shapes: Vec<Vec<usize>> = current.iter().map(|(_, t)| t.shape().to_vec()).collect();
    let slots: Vec<Slot<'_>> = current
        .iter()
        .zip(&ids)
        .zip(&shapes)
        .map(|(((name, _), &identity), shape)| Slot { name, identity, shape })
        .collect();
    let given: Vec<(&str, &[usize])> = dict.iter().map(|(k, t)| (k.as_str(), t.shape())).collect();
    let plan = plan_load(&slots, &given, true).map_err(|msg| Error::invalid(OP, msg))?;
    let mut values: Vec<Option<Tensor>> = Vec::with_capacity(current.len());
    for ((_, now), source) in current.iter().zip(&plan.sources) {
        // A tied name the dict gives under another name: that one fills the slot.
        let Some(i) = *source else {
            values.push(None);
            continue;
        };
        let v = {
            let _g = crate::tensor::node::pause();
            dict[i].1.detach().to_dtype(now.dtype())?
        };
        values.push(Some(v.to(now.device()).await?.deep_copy()?));
    }
    let (pv, bv) = values.split_at(params.len());
    for ((_, p), v) in params.iter().zip(pv) {
        // As PyTorch's (an in-place copy): the gradient and requires_grad stay.
        if let Some(v) = v {
            p.replace(v.clone(), p.grad())?;
        }
    }
    for ((_, b), v) in buffers.iter().zip(bv) {
        if let Some(v) = v {
            b.replace(v.clone());
        }
    }
    Ok(())
}
