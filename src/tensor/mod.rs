//! `Tensor`: an `Arc` over (identity, storage, layout, dtype, device, autograd state). Clones are
//! cheap and views share storage. Metadata, device checks, transfers (`to`) and readback
//! (`to_vec`) live here, and so does the one choke point every op output passes through
//! (`from_op`, `view_op`), which records the autograd graph (`node.rs`). Ops live in `ops/`,
//! constructors in `creation.rs`, the backward traversal in `autograd/`.

pub(crate) mod checks;
pub(crate) mod node;

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::device::placement;
use crate::device::transfer::{self, Direction};
use crate::device::{Device, DeviceKind};
use crate::dtype::{CpuDataHandle, DType, Element};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::op::MapOp;
use crate::storage::Storage;
use node::{Backward, BackwardFn, Edge, InputMeta, Node};

struct Inner {
    /// Unique for the process's lifetime: what autograd and the JS façade key tensors by.
    id: u64,
    storage: Arc<Storage>,
    layout: Layout,
    dtype: DType,
    device: Device,
    /// The op that made this tensor, when it was recorded for autograd (never for leaves).
    node: Option<Arc<Node>>,
    /// Set on leaves by `requires_grad_`; a tensor with a node requires grad by construction.
    requires_grad: AtomicBool,
    /// A leaf's accumulated gradient.
    grad: Mutex<Option<Tensor>>,
    /// The non-differentiable op that cut this tensor off from inputs that required grad, so
    /// that `backward` can say why there is no graph.
    cut_by: Option<&'static str>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl Inner {
    fn new(storage: Arc<Storage>, layout: Layout, dtype: DType, device: Device) -> Inner {
        Inner {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            storage,
            layout,
            dtype,
            device,
            node: None,
            requires_grad: AtomicBool::new(false),
            grad: Mutex::new(None),
            cut_by: None,
        }
    }
}

/// Options of [`Tensor::to_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ToOptions {
    /// Return as soon as a host-to-device copy is queued instead of when it has landed (CUDA,
    /// through pinned staging: the caller's data is staged first, so nothing is read after
    /// return; later ops on the device are ordered after the copy). Readbacks to the host always
    /// wait, since the returned tensor owns its values. wgpu uploads are always queued this way.
    pub non_blocking: bool,
}

/// An n-dimensional array on one device. Cloning shares the data (like PyTorch's reference
/// semantics); ops return new tensors and never modify their inputs.
#[derive(Clone)]
pub struct Tensor(Arc<Inner>);

impl Tensor {
    /// A contiguous leaf over fresh storage (creation, transfers of data that needs no grad).
    pub(crate) fn from_parts(storage: Storage, shape: &[usize], dtype: DType, device: Device) -> Tensor {
        Tensor(Arc::new(Inner::new(Arc::new(storage), Layout::contiguous(shape), dtype, device)))
    }

    /// The choke point for op outputs over fresh storage: a contiguous tensor of `shape`,
    /// recorded for autograd as the output of `op` over `inputs` when grad mode is on and an
    /// input requires grad. `rule` makes the backward rule; it is called only when recording,
    /// with a graph-free alias of the output for rules that need it (exp, softmax, ...).
    pub(crate) fn from_op(
        storage: Storage,
        shape: &[usize],
        dtype: DType,
        device: Device,
        op: &'static str,
        inputs: &[&Tensor],
        rule: impl FnOnce(&Tensor) -> BackwardFn,
    ) -> Tensor {
        Tensor::record(Arc::new(storage), Layout::contiguous(shape), dtype, device, op, inputs, |out| {
            Some(Backward::Rule(rule(out)))
        })
    }

    /// [`Tensor::from_op`] for an op without a gradient (comparisons, argmax, integer results):
    /// its output never requires grad, and remembers `op` so that `backward` can say why.
    pub(crate) fn from_op_nondiff(
        storage: Storage,
        shape: &[usize],
        dtype: DType,
        device: Device,
        op: &'static str,
        inputs: &[&Tensor],
    ) -> Tensor {
        Tensor::record(Arc::new(storage), Layout::contiguous(shape), dtype, device, op, inputs, |_| None)
    }

    /// [`Tensor::from_op_nondiff`] over `shape` elements at `offset` of a storage that several
    /// outputs share (a multi-tensor optimizer step's flat f32 outputs).
    pub(crate) fn from_op_nondiff_shared(
        storage: &Arc<Storage>,
        (shape, offset): (&[usize], usize),
        device: Device,
        op: &'static str,
        inputs: &[&Tensor],
    ) -> Tensor {
        let layout = Layout::strided(shape, &crate::shape::contiguous_strides(shape), offset);
        Tensor::record(storage.clone(), layout, DType::F32, device, op, inputs, |_| None)
    }

    /// This tensor's storage under another layout, outside the graph (the caller keeps the
    /// layout inside the storage).
    pub(crate) fn aliasing(&self, layout: Layout) -> Tensor {
        Tensor(Arc::new(Inner::new(self.0.storage.clone(), layout, self.dtype(), self.device())))
    }

    /// [`Tensor::view_op`] with a backward other than a rule (a narrow view's).
    pub(crate) fn view_with(&self, layout: Layout, op: &'static str, backward: Backward) -> Tensor {
        Tensor::record(self.0.storage.clone(), layout, self.dtype(), self.device(), op, &[self], |_| Some(backward))
    }

    /// The choke point for views: same storage, new layout, recorded like [`Tensor::from_op`].
    pub(crate) fn view_op(&self, layout: Layout, op: &'static str, rule: impl FnOnce(&Tensor) -> BackwardFn) -> Tensor {
        Tensor::record(self.0.storage.clone(), layout, self.dtype(), self.device(), op, &[self], |out| {
            Some(Backward::Rule(rule(out)))
        })
    }

    /// Re-labels the result of a composite op (computed with grad mode off) as one op with its
    /// own backward rule, as `clamp` does to get PyTorch's gradient at the bounds.
    pub(crate) fn composite(
        out: Tensor,
        op: &'static str,
        inputs: &[&Tensor],
        rule: impl FnOnce(&Tensor) -> BackwardFn,
    ) -> Tensor {
        if !(node::grad_enabled() && inputs.iter().any(|t| t.requires_grad())) {
            return out;
        }
        let (storage, layout) = (out.0.storage.clone(), out.0.layout.clone());
        Tensor::record(storage, layout, out.dtype(), out.device(), op, inputs, |o| Some(Backward::Rule(rule(o))))
    }

    /// The output of `to(device)`: its gradient moves back to `from`.
    pub(crate) fn moved(storage: Storage, shape: &[usize], dtype: DType, device: Device, from: &Tensor) -> Tensor {
        let src = from.device();
        Tensor::record(Arc::new(storage), Layout::contiguous(shape), dtype, device, "to", &[from], |_| {
            Some(Backward::Move { from: device, to: src })
        })
    }

    fn record(
        storage: Arc<Storage>,
        layout: Layout,
        dtype: DType,
        device: Device,
        op: &'static str,
        inputs: &[&Tensor],
        backward: impl FnOnce(&Tensor) -> Option<Backward>,
    ) -> Tensor {
        let mut once = Some(backward);
        Tensor::record_dyn(storage, layout, dtype, device, op, inputs, &mut |out| once.take().and_then(|f| f(out)))
    }

    /// [`Tensor::record`] with the rule's maker behind a reference (called at most once): one
    /// instance instead of one per op's closure (34 of them in the wasm build).
    fn record_dyn(
        storage: Arc<Storage>,
        layout: Layout,
        dtype: DType,
        device: Device,
        op: &'static str,
        inputs: &[&Tensor],
        backward: &mut dyn FnMut(&Tensor) -> Option<Backward>,
    ) -> Tensor {
        let mut inner = Inner::new(storage, layout, dtype, device);
        let recording = node::grad_enabled() && inputs.iter().any(|t| t.requires_grad());
        if recording && dtype.is_float() {
            let alias = Tensor(Arc::new(Inner::new(inner.storage.clone(), inner.layout.clone(), dtype, device)));
            match backward(&alias) {
                Some(b) => {
                    let next = inputs.iter().map(|t| t.requires_grad().then(|| t.edge())).collect();
                    let metas = inputs
                        .iter()
                        .map(|t| InputMeta { shape: t.shape().to_vec(), dtype: t.dtype(), device: t.device() })
                        .collect();
                    inner.node = Some(Arc::new(Node {
                        name: op,
                        next: Mutex::new(next),
                        inputs: metas,
                        backward: Mutex::new(Some(Arc::new(b))),
                        redo: Mutex::new(None),
                    }));
                }
                None => inner.cut_by = Some(op),
            }
        } else if recording {
            inner.cut_by = Some(op);
        } else {
            inner.cut_by = inputs.iter().find_map(|t| t.0.cut_by);
        }
        Tensor(Arc::new(inner))
    }

    /// Where a gradient for this tensor goes: its node, or itself when it is a leaf.
    fn edge(&self) -> Edge {
        match &self.0.node {
            Some(n) => Edge::Node(n.clone()),
            None => Edge::Leaf(self.clone()),
        }
    }

    /// The tensor's identity: unique for the process's lifetime and shared by clones (which
    /// are the same tensor), not by views or copies.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// The recorded node, if this tensor is the output of a recorded op.
    pub(crate) fn node(&self) -> Option<&Arc<Node>> {
        self.0.node.as_ref()
    }

    /// Marks this recorded output as `op(input)`, computable again from `input` (which its
    /// rule keeps): see [`Tensor::redo`]. Nothing where no node was recorded.
    pub(crate) fn set_redo(&self, op: crate::op::unary::UnaryOp, input: &Tensor) {
        if let Some(n) = self.node() {
            *crate::device::policy::lock(&n.redo) = Some((op, input.clone()));
        }
    }

    /// How to compute this tensor again while its graph lives: the unary op and the input it
    /// was computed from, where the op marked it so (`set_redo`). An op that saves this tensor
    /// for its gradient may save the input instead and recompute; both produce the same bits,
    /// as the recomputation is the same op on the same input.
    pub(crate) fn redo(&self) -> Option<(crate::op::unary::UnaryOp, Tensor)> {
        self.node().and_then(|n| crate::device::policy::lock(&n.redo).clone())
    }

    /// The leaf flag behind `requires_grad_`.
    pub(crate) fn requires_grad_flag(&self) -> &AtomicBool {
        &self.0.requires_grad
    }

    /// The leaf's gradient slot.
    pub(crate) fn grad_slot(&self) -> &Mutex<Option<Tensor>> {
        &self.0.grad
    }

    /// The op that cut this tensor off from the graph, if any (see `Inner::cut_by`).
    pub(crate) fn cut_by(&self) -> Option<&'static str> {
        self.0.cut_by
    }

    /// Runs what the lazy elementwise tier recorded for this tensor, if anything (see
    /// `storage/lazy.rs`): for values kept across steps (gradients, parameters, optimizer
    /// state), whose recorded programs would otherwise keep their inputs alive.
    pub(crate) fn realize(&self) -> Result<()> {
        self.storage().resolve().map(|_| ())
    }

    /// A new tensor over the same storage and layout with no autograd history (PyTorch's
    /// `detach`).
    pub fn detach(&self) -> Tensor {
        Tensor(Arc::new(Inner::new(self.0.storage.clone(), self.0.layout.clone(), self.dtype(), self.device())))
    }

    /// Whether this tensor takes part in autograd: a leaf marked with `requires_grad_`, or the
    /// output of a recorded op.
    pub fn requires_grad(&self) -> bool {
        self.0.node.is_some() || self.0.requires_grad.load(Ordering::Relaxed)
    }

    pub(crate) fn storage(&self) -> &Arc<Storage> {
        &self.0.storage
    }

    /// Whether this tensor is a view of part of a storage more than twice the size its own
    /// elements would take (which it keeps alive whole): past that, a copy held for long is
    /// cheaper than the view.
    pub(crate) fn pins_more_than_itself(&self) -> bool {
        let own = (self.numel() * self.dtype().gpu_size_in_bytes()) as u64;
        self.storage().held_bytes() > 2 * crate::device::memory::size_class(own)
    }

    /// The storage read through the layout: this tensor as a kernel's operand.
    pub(crate) fn operand(&self) -> crate::device::backend::Operand<'_, &Storage> {
        crate::device::backend::Operand::new(self.storage().as_ref(), self.layout())
    }

    /// Shape, strides and offset into the storage.
    pub fn layout(&self) -> &Layout {
        &self.0.layout
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        self.0.layout.shape()
    }

    /// The size of dimension `dim` (negative counts from the end).
    pub fn size(&self, dim: isize) -> Result<usize> {
        Ok(self.shape()[crate::shape::normalize_dim("size", dim, self.rank())?])
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.shape().len()
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.0.layout.numel()
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.0.dtype
    }

    /// The device the tensor lives on.
    pub fn device(&self) -> Device {
        self.0.device
    }

    /// Bytes of the tensor's elements (logical size, as transferred).
    pub fn nbytes(&self) -> u64 {
        (self.numel() * self.dtype().size_in_bytes()) as u64
    }

    /// Whether the elements are dense and row-major.
    pub fn is_contiguous(&self) -> bool {
        self.0.layout.is_contiguous()
    }

    /// Whether two tensors share storage (one is a view of the other, or both of a third).
    pub fn shares_storage_with(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.0.storage, &other.0.storage)
    }

    /// The common device of `self` and `other`, or PyTorch's mismatch error naming both.
    pub(crate) fn same_device(&self, other: &Tensor, op: &'static str) -> Result<Device> {
        if self.device() != other.device() {
            return Err(Error::DeviceMismatch { op, a: self.device().to_string(), b: other.device().to_string() });
        }
        Ok(self.device())
    }

    /// Runs the map kernel family (unary op, cast or copy) into a new contiguous tensor.
    /// `rule` is the op's backward rule (see [`Tensor::from_op`]).
    pub(crate) fn map(
        &self,
        op: MapOp,
        dtype: DType,
        name: &'static str,
        rule: impl FnOnce(&Tensor) -> BackwardFn,
    ) -> Result<Tensor> {
        let storage = self.storage().map(self.layout(), op, dtype).map_err(|e| e.in_op(name))?;
        placement::record(name, &[self.device()], self.device());
        Ok(Tensor::from_op(storage, self.shape(), dtype, self.device(), name, &[self], rule))
    }

    /// A copy of this tensor on `device`; `self` is untouched. Free (a clone) when the tensor
    /// is already there. Asynchronous because leaving a GPU needs a readback.
    pub async fn to(&self, device: Device) -> Result<Tensor> {
        self.to_with(device, ToOptions::default()).await
    }

    /// [`Tensor::to`] with options (PyTorch's `to(device, non_blocking=True)`): see
    /// [`ToOptions`].
    pub async fn to_with(&self, device: Device, options: ToOptions) -> Result<Tensor> {
        let device = placement::resolve("to", device)?;
        let out = if device == self.device() {
            self.clone()
        } else if device.kind() == DeviceKind::Meta {
            let storage = Storage::fill(self.numel(), 0.0, self.dtype(), device)?;
            Tensor::moved(storage, self.shape(), self.dtype(), device, self)
        } else if let Some(storage) = self.storage().upload_pinned(self.layout(), device, options.non_blocking) {
            // A pinned tensor goes to its device in one DMA from its page-locked block.
            let storage = storage.map_err(|e| e.in_op("to"))?;
            transfer::record_move(self.device(), device, self.nbytes());
            Tensor::moved(storage, self.shape(), self.dtype(), device, self)
        } else {
            checks::verify(self.device()).await?;
            let data = self.storage().read(self.layout(), "to").await?;
            let storage = Storage::from_cpu_with(data, device, options.non_blocking).map_err(|e| e.in_op("to"))?;
            transfer::record_move(self.device(), device, self.nbytes());
            Tensor::moved(storage, self.shape(), self.dtype(), device, self)
        };
        placement::record("to", &[self.device()], device);
        Ok(out)
    }

    /// Shorthand for `to(Device::CPU)`.
    pub async fn cpu(&self) -> Result<Tensor> {
        self.to(Device::CPU).await
    }

    /// The elements in row-major order. `T` must match the dtype (convert with `to_dtype`).
    pub async fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        if T::DTYPE != self.dtype() {
            return Err(Error::DTypeMismatch { op: "to_vec", expected: self.dtype(), got: T::DTYPE });
        }
        checks::verify(self.device()).await?;
        let data = self.storage().read(self.layout(), "to_vec").await?;
        transfer::record(self.device(), Direction::DeviceToHost, self.nbytes());
        T::from_data(CpuDataHandle(data))
            .ok_or_else(|| Error::invalid("to_vec", "internal: storage dtype differs from tensor dtype"))
    }

    /// The elements' bytes in a new JS `ArrayBuffer`, read back from a WebGPU device through the
    /// browser's mapping (one copy; see `readback_web.rs`), counted as a readback like
    /// [`Tensor::to_vec`]; None for other devices and for dtypes the GPU stores widened.
    #[cfg(target_arch = "wasm32")]
    pub(crate) async fn read_array_buffer(&self) -> Result<Option<js_sys::ArrayBuffer>> {
        let Storage::Wgpu(s) = self.storage().resolve()? else { return Ok(None) };
        checks::verify(self.device()).await?;
        let out = s.device().read_array_buffer(s, self.layout()).await?;
        if out.is_some() {
            transfer::record(self.device(), Direction::DeviceToHost, self.nbytes());
        }
        Ok(out)
    }

    /// Hands `f` the elements of a contiguous tensor on the CPU in place (the storage's data
    /// and this tensor's range of it), counted as a readback like [`Tensor::to_vec`]; None for
    /// other devices and layouts, or where `f` declines. The npm package copies host data
    /// straight from here into a typed array: through `to_vec` it was copied twice; host-side
    /// checks of cpu tensors read through it without waiting on any target.
    pub(crate) fn with_cpu_elements<R>(
        &self,
        f: impl FnOnce(&crate::dtype::CpuData, std::ops::Range<usize>) -> Option<R>,
    ) -> Option<R> {
        let Storage::Cpu(s) = &**self.storage() else { return None };
        if !self.layout().is_contiguous() {
            return None;
        }
        let start = self.layout().offset();
        let r = f(s.data(), start..start + self.numel())?;
        transfer::record(self.device(), Direction::DeviceToHost, self.nbytes());
        Some(r)
    }

    /// The single element of a one-element tensor (PyTorch's `item`).
    pub async fn item<T: Element>(&self) -> Result<T> {
        if self.numel() != 1 {
            return Err(Error::invalid(
                "item",
                format!(
                    "a tensor with {} elements (shape {:?}) has no single value; reduce it or index it first",
                    self.numel(),
                    self.shape()
                ),
            ));
        }
        let v = self.to_vec::<T>().await?;
        v.first().copied().ok_or_else(|| Error::invalid("item", "internal: empty readback"))
    }

    /// Blocking [`Tensor::to`] (native only; a browser cannot block).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_blocking(&self, device: Device) -> Result<Tensor> {
        crate::block::block_on(self.to(device))
    }

    /// Blocking [`Tensor::to_with`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_with_blocking(&self, device: Device, options: ToOptions) -> Result<Tensor> {
        crate::block::block_on(self.to_with(device, options))
    }

    /// Blocking [`Tensor::to_vec`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_vec_blocking<T: Element>(&self) -> Result<Vec<T>> {
        crate::block::block_on(self.to_vec())
    }

    /// Blocking [`Tensor::item`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn item_blocking<T: Element>(&self) -> Result<T> {
        crate::block::block_on(self.item())
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor(shape={:?}, dtype={}, device={}", self.shape(), self.dtype(), self.device())?;
        match &self.0.node {
            Some(n) => write!(f, ", grad_fn={})", n.name),
            None if self.requires_grad() => write!(f, ", requires_grad=true)"),
            None => write!(f, ")"),
        }
    }
}
