//! Live tensor handles per device, for JS's `wt.memory()` (TensorFlow.js's `numTensors`). Each
//! `RawTensor` holds a `Live` token that counts itself in when made or cloned and out when
//! dropped (JS `dispose()`, or the FinalizationRegistry), so the JS side keeps no count of its
//! own and pays no extra call per op.

use std::cell::RefCell;

use crate::Device;

thread_local! {
    // A few devices at most: a vector scanned in order is smaller in the .wasm than a map.
    static LIVE: RefCell<Vec<(Device, usize)>> = const { RefCell::new(Vec::new()) };
}

/// One live handle on a device.
pub(crate) struct Live(Device);

impl Live {
    pub(crate) fn new(device: Device) -> Live {
        LIVE.with(|m| {
            let mut m = m.borrow_mut();
            match m.iter_mut().find(|(d, _)| *d == device) {
                Some((_, n)) => *n += 1,
                None => m.push((device, 1)),
            }
        });
        Live(device)
    }
}

impl Clone for Live {
    fn clone(&self) -> Live {
        Live::new(self.0)
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        // `try_with`: a handle dropped while the thread's storage is torn down has nothing to count.
        let _ = LIVE.try_with(|m| {
            if let Some((_, n)) = m.borrow_mut().iter_mut().find(|(d, _)| *d == self.0) {
                *n = n.saturating_sub(1);
            }
        });
    }
}

/// Live handles per device, devices with none left out.
pub(crate) fn counts() -> Vec<(Device, usize)> {
    LIVE.with(|m| m.borrow().iter().filter(|(_, n)| *n > 0).copied().collect())
}
