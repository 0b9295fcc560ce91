//! Scoped placement, TensorFlow's `with tf.device(...)`: inside [`with_device`] (or while a
//! [`DeviceScope`] guard lives) tensors created without a device go to the scope's device. Scopes
//! are per thread and nest; the innermost wins. Ops are unaffected: their inputs must still share
//! one device, and nothing is copied implicitly.

use std::cell::RefCell;
use std::marker::PhantomData;

use super::Device;

thread_local! {
    static SCOPES: RefCell<Vec<Device>> = const { RefCell::new(Vec::new()) };
}

/// The innermost scope's device on this thread, if a scope is open.
pub(crate) fn current() -> Option<Device> {
    SCOPES.with(|s| s.borrow().last().copied())
}

/// A placement scope: while it lives, creation without a device on this thread goes to its
/// device. Dropping it restores the enclosing placement (also when unwinding from a panic).
/// Not `Send`: a scope belongs to the thread that opened it.
#[must_use = "the scope ends when the guard is dropped"]
pub struct DeviceScope {
    depth: usize,
    _thread_bound: PhantomData<*const ()>,
}

impl Drop for DeviceScope {
    fn drop(&mut self) {
        // Truncate rather than pop: guards dropped out of order still leave the stack as it was
        // before this scope opened.
        SCOPES.with(|s| s.borrow_mut().truncate(self.depth));
    }
}

/// Opens a placement scope on this thread (see [`DeviceScope`]).
pub fn device_scope(device: Device) -> DeviceScope {
    let depth = SCOPES.with(|s| {
        let mut s = s.borrow_mut();
        s.push(device);
        s.len() - 1
    });
    DeviceScope { depth, _thread_bound: PhantomData }
}

/// Runs `f` with `device` as the placement for tensors created without a device, then restores
/// the enclosing placement: TensorFlow's `with tf.device(device):`.
///
/// ```
/// use webtensor::{DType, Device, Tensor};
/// let t = webtensor::with_device(Device::META, || Tensor::zeros(&[2], DType::F32, None)).unwrap();
/// assert_eq!(t.device(), Device::META);
/// assert_eq!(Tensor::zeros(&[2], DType::F32, None).unwrap().device(), Device::CPU);
/// ```
pub fn with_device<R>(device: Device, f: impl FnOnce() -> R) -> R {
    let _scope = device_scope(device);
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_nest_and_restore() {
        assert_eq!(current(), None);
        with_device(Device::META, || {
            assert_eq!(current(), Some(Device::META));
            with_device(Device::webgpu(1), || assert_eq!(current(), Some(Device::webgpu(1))));
            assert_eq!(current(), Some(Device::META));
        });
        assert_eq!(current(), None);
    }

    #[test]
    fn a_panic_inside_restores_the_scope() {
        let r = std::panic::catch_unwind(|| with_device(Device::META, || panic!("boom")));
        assert!(r.is_err());
        assert_eq!(current(), None);
    }

    #[test]
    fn guards_dropped_out_of_order_leave_the_outer_state() {
        let outer = device_scope(Device::META);
        let inner = device_scope(Device::webgpu(0));
        drop(outer);
        assert_eq!(current(), None);
        drop(inner);
        assert_eq!(current(), None);
    }
}
