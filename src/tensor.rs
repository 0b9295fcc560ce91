//! `Tensor`: an `Arc` over (storage, layout, dtype, device). Clones are cheap and views share
//! storage. Metadata, device checks, transfers (`to`) and readback (`to_vec`) live here; ops live
//! in `ops/`, constructors in `creation.rs`.

use std::fmt;
use std::sync::Arc;

use crate::device::placement;
use crate::device::transfer::{self, Direction};
use crate::device::{Device, DeviceKind};
use crate::dtype::{CpuDataHandle, DType, Element};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::ops::MapOp;
use crate::storage::Storage;

struct Inner {
    storage: Arc<Storage>,
    layout: Layout,
    dtype: DType,
    device: Device,
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
    /// A contiguous tensor over fresh storage.
    pub(crate) fn from_parts(storage: Storage, shape: &[usize], dtype: DType, device: Device) -> Tensor {
        Tensor(Arc::new(Inner { storage: Arc::new(storage), layout: Layout::contiguous(shape), dtype, device }))
    }

    /// A view: same storage, new layout.
    pub(crate) fn with_layout(&self, layout: Layout) -> Tensor {
        Tensor(Arc::new(Inner { storage: self.0.storage.clone(), layout, dtype: self.0.dtype, device: self.0.device }))
    }

    pub(crate) fn storage(&self) -> &Arc<Storage> {
        &self.0.storage
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
    pub(crate) fn map(&self, op: MapOp, dtype: DType, name: &'static str) -> Result<Tensor> {
        let storage = self.storage().map(self.layout(), op, dtype).map_err(|e| e.in_op(name))?;
        placement::record(name, &[self.device()], self.device());
        Ok(Tensor::from_parts(storage, self.shape(), dtype, self.device()))
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
            Tensor::from_parts(storage, self.shape(), self.dtype(), device)
        } else {
            let data = self.storage().read(self.layout(), "to").await?;
            let storage = Storage::from_cpu_with(data, device, options.non_blocking).map_err(|e| e.in_op("to"))?;
            transfer::record_move(self.device(), device, self.nbytes());
            Tensor::from_parts(storage, self.shape(), self.dtype(), device)
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
        let data = self.storage().read(self.layout(), "to_vec").await?;
        transfer::record(self.device(), Direction::DeviceToHost, self.nbytes());
        T::from_data(CpuDataHandle(data))
            .ok_or_else(|| Error::invalid("to_vec", "internal: storage dtype differs from tensor dtype"))
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
        write!(f, "Tensor(shape={:?}, dtype={}, device={})", self.shape(), self.dtype(), self.device())
    }
}
