//! The device's queue, kept in order around host steps. On the web an op that falls back to the
//! CPU (soft placement; see `fallback.rs`) cannot block for its inputs: it becomes a host step
//! that reads them asynchronously, runs the CPU kernel and writes the result into the output
//! buffer the op already returned. Until it has, every later submission and upload on that
//! device is held, in order, behind it (a later op may read its output, or an upload may land in
//! a recycled input buffer), then released. Readbacks and `synchronize` wait for the hold to
//! drain. Natively fallbacks block, so nothing is ever held and both calls go straight to the
//! queue.

use super::WgpuDevice;
#[cfg(target_arch = "wasm32")]
pub(crate) use web::HostStep;

/// Work held behind a host step, in submission order.
#[cfg(target_arch = "wasm32")]
enum Step {
    Commands(wgpu::CommandBuffer),
    Write { buffer: wgpu::Buffer, bytes: Vec<u8> },
    Host(HostStep),
}

/// The hold: whether a host step is running, what waits behind it, and who waits for the end.
#[cfg(target_arch = "wasm32")]
#[derive(Default)]
pub(crate) struct Hold {
    active: bool,
    steps: std::collections::VecDeque<Step>,
    /// Steps ever held, and ever released: a waiter waits for the ones held before it asked,
    /// not for the queue to empty (which later work could put off indefinitely).
    held: u64,
    released: u64,
    waiters: Vec<(u64, futures::channel::oneshot::Sender<()>)>,
}

#[cfg(target_arch = "wasm32")]
impl Hold {
    fn push(&mut self, step: Step) {
        self.steps.push_back(step);
        self.held += 1;
    }

    /// The next held step, counting it released and waking whoever waited for it.
    fn pop(&mut self) -> Option<Step> {
        let step = self.steps.pop_front()?;
        self.released += 1;
        let released = self.released;
        for (_, w) in self.waiters.extract_if(.., |(t, _)| *t <= released) {
            let _ = w.send(());
        }
        Some(step)
    }
}

impl WgpuDevice {
    /// Submits `commands`, or holds them behind a running host step.
    pub(crate) fn submit_commands(&self, commands: wgpu::CommandBuffer) {
        #[cfg(target_arch = "wasm32")]
        let commands = {
            let mut hold = super::lock(&self.hold);
            if hold.active {
                hold.push(Step::Commands(commands));
                return;
            }
            commands
        };
        self.queue.submit([commands]);
    }

    /// Writes `bytes` at the start of `buffer` before the next submission, or holds the write
    /// behind a running host step.
    pub(crate) fn write_bytes(&self, buffer: &wgpu::Buffer, bytes: Vec<u8>) {
        #[cfg(target_arch = "wasm32")]
        let bytes = {
            let mut hold = super::lock(&self.hold);
            if hold.active {
                hold.push(Step::Write { buffer: buffer.clone(), bytes });
                return;
            }
            bytes
        };
        self.queue.write_buffer(buffer, 0, &bytes);
    }
}

#[cfg(target_arch = "wasm32")]
mod web {
    use std::sync::Arc;

    use super::{Step, WgpuDevice};
    use crate::device::cpu::CpuStorage;
    use crate::device::policy::lock;
    use crate::device::wgpu::fallback::whole_buffer;
    use crate::dtype::DType;
    use crate::error::{Error, Result};

    use crate::device::wgpu::fallback::HostKernel;

    /// One op run on the host: its inputs (whole buffers, read raw so their layouts index them
    /// unchanged), the CPU kernel, and the output buffer its result goes into.
    pub(crate) struct HostStep {
        pub op: &'static str,
        pub inputs: Vec<(wgpu::Buffer, DType)>,
        pub output: wgpu::Buffer,
        pub len: usize,
        pub dtype: DType,
        pub run: HostKernel,
    }

    impl WgpuDevice {
        /// Queues `step` after everything recorded so far; later work waits for it.
        pub(crate) fn defer_host(self: &Arc<Self>, step: HostStep) {
            self.flush();
            {
                let mut hold = lock(&self.hold);
                if hold.active {
                    hold.push(Step::Host(step));
                    return;
                }
                hold.active = true;
            }
            let dev = self.clone();
            wasm_bindgen_futures::spawn_local(async move { dev.run_held(step).await });
        }

        /// Resolves once everything held so far has gone to the queue (at once when nothing is).
        pub(crate) async fn host_settled(&self) {
            let rx = {
                let mut hold = lock(&self.hold);
                if hold.released >= hold.held {
                    return;
                }
                let (tx, rx) = futures::channel::oneshot::channel();
                let ticket = hold.held;
                hold.waiters.push((ticket, tx));
                rx
            };
            let _ = rx.await;
        }

        /// Runs `step`, then releases what was held behind it, up to and including the next
        /// host step, and so on until nothing is held.
        async fn run_held(self: Arc<Self>, mut step: HostStep) {
            loop {
                let op = step.op;
                if let Err(e) = self.run_host(step).await {
                    let mut slot = lock(&self.error);
                    if slot.is_none() {
                        *slot = Some(format!("soft placement: running {op} on the cpu failed: {e}"));
                    }
                }
                let next = loop {
                    let item = {
                        let mut hold = lock(&self.hold);
                        match hold.pop() {
                            Some(item) => item,
                            None => {
                                hold.active = false;
                                return;
                            }
                        }
                    };
                    match item {
                        Step::Commands(c) => {
                            self.queue.submit([c]);
                        }
                        Step::Write { buffer, bytes } => self.queue.write_buffer(&buffer, 0, &bytes),
                        Step::Host(h) => break h,
                    }
                };
                step = next;
            }
        }

        /// Reads the inputs (everything before this step is submitted already), runs the CPU
        /// kernel and writes its result.
        async fn run_host(&self, step: HostStep) -> Result<()> {
            let mut host = Vec::with_capacity(step.inputs.len());
            for (buffer, dtype) in &step.inputs {
                let bytes = self.read_now(buffer, buffer.size()).await?;
                host.push(CpuStorage::new(whole_buffer(*dtype, &bytes))?);
            }
            let out = (step.run)(&host)?;
            if out.data().dtype() != step.dtype || out.data().len() != step.len {
                return Err(Error::invalid(step.op, "internal: the cpu kernel's result has another dtype or size"));
            }
            let mut bytes = out.data().to_gpu_bytes();
            bytes.resize(bytes.len().next_multiple_of(4), 0);
            if !bytes.is_empty() {
                self.queue.write_buffer(&step.output, 0, &bytes);
            }
            Ok(())
        }
    }
}
