//! A minimal `block_on` for the native blocking APIs (`to_blocking`, `to_vec_blocking`,
//! `synchronize_blocking`, lazy device opening). Unlike `crate::block::block_on` it may be
//! nested (a blocking call inside another blocking call, or inside a user's executor) without
//! panicking: it only parks the current thread until the future's waker unparks it.
#![cfg(not(target_arch = "wasm32"))]

use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `f` to completion on the current thread.
pub(crate) fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        match f.as_mut().poll(&mut cx) {
            Poll::Ready(v) => return v,
            Poll::Pending => std::thread::park(),
        }
    }
}
