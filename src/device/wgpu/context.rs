//! One opened wgpu device: queue, batched command encoder, pipeline cache keyed by `KernelKey`,
//! the buffer pool, and the capture of wgpu's uncaptured errors and device loss (whose native
//! defaults would panic or go unnoticed).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::pool::Pool;
use crate::device::memory::MemoryStats;
use crate::device::policy::{launch_blocking, lock};
use crate::device::transfer::TransferStats;
use crate::device::DeviceInfo;
use crate::error::{Error, Result};
use crate::op::param_layout::KernelParams;
use crate::shaders::KernelKey;

/// Dispatches recorded before the encoder is submitted without being asked to: keeps the GPU
/// busy on long op chains while bounding how much work a later readback waits for.
const SUBMIT_EVERY: usize = 64;

/// A storage binding: a whole buffer, or `size` bytes of it from `offset` (a multiple of the
/// adapter's storage offset alignment, 256 at most).
#[derive(Clone, Copy)]
pub(crate) struct Bind<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub offset: u64,
    pub size: Option<u64>,
}

impl<'a> Bind<'a> {
    pub(crate) fn whole(buffer: &'a wgpu::Buffer) -> Self {
        Bind { buffer, offset: 0, size: None }
    }

    pub(crate) fn range(buffer: &'a wgpu::Buffer, offset: u64, size: u64) -> Self {
        Bind { buffer, offset, size: Some(size) }
    }

    fn bytes(&self) -> u64 {
        self.size.unwrap_or(self.buffer.size() - self.offset)
    }
}

/// Words in a kernel's params uniform (`array<vec4<u32>, 16>`).
pub(crate) const PARAM_WORDS: usize = crate::op::param_layout::MAX_WORDS;

pub(crate) struct Pipeline {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

/// What is recorded and not yet submitted.
#[derive(Default)]
struct Pending {
    /// The compute pass dispatches go into, kept open across them (each dispatch is its own
    /// usage scope, so later ones see earlier writes) until a copy or the submission needs the
    /// encoder: a pass begun and ended per dispatch cost two more WebGPU calls and a pass's
    /// setup in the driver each time. Declared before `encoder`, which it locks while open.
    pass: Option<wgpu::ComputePass<'static>>,
    encoder: Option<wgpu::CommandEncoder>,
    dispatches: usize,
    /// One uniform buffer for the parameters of every dispatch in this batch, a slot each
    /// (see [`WgpuDevice::param_slot`]), and the bytes written into it when the batch is
    /// submitted. A buffer created, mapped, filled and unmapped per dispatch was a fifth of
    /// the WebGPU calls' time in a chain of small ops (Dawn in Node).
    params: Option<wgpu::Buffer>,
    param_bytes: Vec<u8>,
}

impl Pending {
    /// The open compute pass, begun (with the encoder, if need be) when there is none.
    fn pass(&mut self, device: &wgpu::Device) -> &mut wgpu::ComputePass<'static> {
        let Pending { pass, encoder, .. } = self;
        pass.get_or_insert_with(|| {
            encoder
                .get_or_insert_with(|| device.create_command_encoder(&Default::default()))
                .begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None })
                .forget_lifetime()
        })
    }

    /// The encoder for commands outside the pass (copies, timestamps), with the pass ended.
    fn encoder(&mut self, device: &wgpu::Device) -> &mut wgpu::CommandEncoder {
        self.pass = None;
        self.encoder.get_or_insert_with(|| device.create_command_encoder(&Default::default()))
    }
}

/// An opened wgpu device.
pub(crate) struct WgpuDevice {
    pub(crate) info: DeviceInfo,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) limits: wgpu::Limits,
    pub(crate) f16: bool,
    /// Whether the device writes GPU timestamps (`Event` uses them).
    pub(crate) timestamps: bool,
    pending: Mutex<Pending>,
    /// Submissions and uploads held behind a host step (web soft placement; see hold.rs).
    #[cfg(target_arch = "wasm32")]
    pub(crate) hold: Mutex<super::hold::Hold>,
    pipelines: Mutex<HashMap<KernelKey, Arc<Pipeline>>>,
    pub(crate) pool: Mutex<Pool>,
    pub(crate) stats: MemoryStats,
    pub(crate) transfers: TransferStats,
    pub(crate) error: Arc<Mutex<Option<String>>>,
    pub(crate) lost: Arc<Mutex<Option<String>>>,
    /// Test hook: make the next dispatch invalid (see `inject_dispatch_error`).
    pub(crate) poison_next_dispatch: AtomicBool,
    /// Whether kernels are shaped for a software adapter (set for those): the tiled matmul from
    /// registers (matmul_blocked.wgsl), softmax and reductions a thread per row or chunk, all
    /// without barriers. A test hook flips it so both shapes are checked on every adapter (see
    /// `set_software_kernels`).
    pub(crate) software_kernels: AtomicBool,
    /// Dispatches recorded since the device opened (see `kernel_launches`).
    pub(crate) launches: AtomicU64,
    /// vec4s each thread of the vectorised elementwise kernels takes (see kernels.rs): 2 on
    /// llvmpipe (Mesa's lavapipe), 8 on other software adapters (SwiftShader, whose name a
    /// browser does not tell), 4 on GPUs (fewer threads would leave a large GPU idle). Measured
    /// (10 adds of 4M f32, one value read back, ms an add): Dawn on lavapipe 1: 6.5-7.1, 2: 5.5,
    /// 4: 7.0-7.6, 8: 5.4-6.9; Chromium's SwiftShader 1: 27.5, 2: 20.3-20.4, 4: 18.5-19.7,
    /// 8: 16.8-17.7, 16: 17.7-19.4 (add 1M 4.8 with 4, 4.3-4.6 with 8, 4.1 with 16).
    pub(crate) vec4_per_thread: usize,
    /// On the web, launch-blocking verdicts still on their way (see `dispatch`): each channel
    /// closes once its error scope has been popped and any error stored.
    #[cfg(target_arch = "wasm32")]
    verdicts: Mutex<Vec<futures::channel::oneshot::Receiver<()>>>,
}

impl WgpuDevice {
    pub(crate) async fn new(adapter: &wgpu::Adapter, info: DeviceInfo) -> Result<WgpuDevice> {
        // Ask for what the adapter offers, not WebGPU's conservative defaults (e.g. 128 MiB
        // bindings, where many adapters allow far more).
        let limits = adapter.limits();
        let f16 = adapter.features().contains(wgpu::Features::SHADER_F16);
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let mut required_features = wgpu::Features::empty();
        if f16 {
            required_features |= wgpu::Features::SHADER_F16;
        }
        if timestamps {
            required_features |= wgpu::Features::TIMESTAMP_QUERY;
        }
        let desc = wgpu::DeviceDescriptor {
            label: Some("webtensor"),
            required_features,
            required_limits: limits.clone(),
            ..Default::default()
        };
        let (device, queue) = adapter.request_device(&desc).await.map_err(|e| Error::DeviceUnavailable {
            device: info.device.to_string(),
            reason: format!("the adapter refused to open a device: {e}"),
        })?;
        let error = Arc::new(Mutex::new(None::<String>));
        let slot = error.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut s = lock(&slot);
            if s.is_none() {
                *s = Some(e.to_string());
            }
        }));
        let lost = Arc::new(Mutex::new(None::<String>));
        let slot = lost.clone();
        device.set_device_lost_callback(move |reason, msg| {
            *lock(&slot) = Some(format!("{reason:?}: {msg}"));
        });
        let name = info.name.to_ascii_lowercase();
        let vec4_per_thread = match (name.contains("llvmpipe") || name.contains("lavapipe"), info.software) {
            (true, _) => 2,
            (false, true) => 8,
            (false, false) => 4,
        };
        Ok(WgpuDevice {
            vec4_per_thread,
            software_kernels: AtomicBool::new(info.software),
            info,
            device,
            queue,
            limits,
            f16,
            timestamps,
            pending: Mutex::default(),
            #[cfg(target_arch = "wasm32")]
            hold: Mutex::default(),
            pipelines: Mutex::default(),
            pool: Mutex::default(),
            stats: MemoryStats::new(),
            transfers: TransferStats::default(),
            error,
            lost,
            poison_next_dispatch: AtomicBool::new(false),
            launches: AtomicU64::new(0),
            #[cfg(target_arch = "wasm32")]
            verdicts: Mutex::default(),
        })
    }

    /// Dispatches recorded since the device opened.
    pub(crate) fn launches(&self) -> u64 {
        self.launches.load(Ordering::Relaxed)
    }

    pub(crate) fn stats(&self) -> &MemoryStats {
        &self.stats
    }

    pub(crate) fn name(&self) -> String {
        self.info.device.to_string()
    }

    /// Fails with `DeviceLost` if the device was lost (natively polling first, since wgpu runs
    /// its device-lost callback during a poll).
    pub(crate) fn ensure_alive(&self) -> Result<()> {
        #[cfg(not(target_arch = "wasm32"))]
        let _ = self.device.poll(wgpu::PollType::Poll);
        match lock(&self.lost).clone() {
            Some(reason) => Err(Error::DeviceLost {
                device: self.name(),
                reason: format!(
                    "{reason}; its tensors are gone: call recover(\"{}\") to open a fresh device",
                    self.name()
                ),
            }),
            None => Ok(()),
        }
    }

    /// Fails if the device was lost; otherwise reports (and clears) the first GPU error raised
    /// since the last check.
    pub(crate) fn check(&self) -> Result<()> {
        self.ensure_alive()?;
        match lock(&self.error).take() {
            Some(msg) => Err(Error::Gpu { device: self.name(), msg }),
            None => Ok(()),
        }
    }

    fn pipeline(&self, key: KernelKey) -> Result<Arc<Pipeline>> {
        if let Some(p) = lock(&self.pipelines).get(&key) {
            return Ok(p.clone());
        }
        let label = format!("{key:?}");
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(&label),
            source: wgpu::ShaderSource::Wgsl(key.render().into()),
        });
        let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&label),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let layout = pipeline.get_bind_group_layout(0);
        let p = Arc::new(Pipeline { pipeline, layout });
        lock(&self.pipelines).insert(key, p.clone());
        Ok(p)
    }

    /// Records one dispatch of `key` over `buffers` (bound at 0..n) and `params` (a uniform at
    /// n) into the pending encoder. `params` must be the struct `key`'s program reads
    /// (`KernelKey::params`; checked in debug builds, so the tests catch a mismatch).
    pub(crate) fn dispatch<P: KernelParams>(
        &self,
        key: KernelKey,
        buffers: &[Bind],
        params: &P,
        groups: (u32, u32, u32),
    ) -> Result<()> {
        debug_assert_eq!(P::FIELDS, key.params(), "{key:?} launched with another program's parameters");
        // Buffer limits (< 4 GiB per binding) keep every element index and count within u32.
        let words: Vec<u32> = params.words().into_iter().map(|w| w as u32).collect();
        self.dispatch_words(key, buffers, &words, groups)
    }

    /// [`WgpuDevice::dispatch`] for parameters already as words (a fused family's pass: its
    /// struct is the family's, `KernelKey::params`; its length checked in debug builds).
    pub(crate) fn dispatch_words_checked(
        &self,
        key: KernelKey,
        buffers: &[Bind],
        words: &[usize],
        groups: (u32, u32, u32),
    ) -> Result<()> {
        debug_assert_eq!(words.len(), key.params().iter().map(|f| f.len).sum::<usize>(), "{key:?}'s parameters");
        let words: Vec<u32> = words.iter().map(|&w| w as u32).collect();
        self.dispatch_words(key, buffers, &words, groups)
    }

    /// [`WgpuDevice::dispatch`] after the words are narrowed (one copy of the body, whatever
    /// the parameter struct: code size).
    fn dispatch_words(&self, key: KernelKey, buffers: &[Bind], params: &[u32], groups: (u32, u32, u32)) -> Result<()> {
        if lock(&self.lost).is_some() {
            return self.ensure_alive();
        }
        if key.needs_f16() && !self.f16 {
            return Err(Error::UnsupportedDType {
                op: "kernel",
                dtype: crate::DType::F16,
                reason: format!(
                    "{} ({}) lacks the shader-f16 feature; use f32 or the cpu device",
                    self.name(),
                    self.info.name
                ),
            });
        }
        // A binding past the adapter's limit would be a validation error; refuse it clearly (ops
        // that can split large tensors bind ranges instead).
        let max = self.limits.max_storage_buffer_binding_size;
        if let Some(b) = buffers.iter().find(|b| b.bytes() > max) {
            return Err(Error::TooLarge {
                op: "kernel",
                device: self.name(),
                bytes: b.bytes(),
                limit_name: "max_storage_buffer_binding_size (this op cannot split its operands)",
                limit: max,
            });
        }
        let blocking = launch_blocking();
        if blocking {
            // Earlier ops go in their own submission: an invalid command invalidates its whole
            // command buffer, which must hold this op alone.
            self.flush();
        }
        let scope = blocking.then(|| self.device.push_error_scope(wgpu::ErrorFilter::Validation));
        let groups = if self.poison_next_dispatch.swap(false, Ordering::Relaxed) {
            (self.limits.max_compute_workgroups_per_dimension.saturating_add(1), 1, 1)
        } else {
            groups
        };
        if params.len() > PARAM_WORDS {
            return Err(Error::invalid(
                "kernel",
                format!("internal: {key:?} has {} parameter words; a slot holds {PARAM_WORDS}", params.len()),
            ));
        }
        let pipe = self.pipeline(key)?;
        let mut pending = lock(&self.pending);
        let (params_buffer, params_offset) = self.param_slot(&mut pending, params);
        let mut entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: b.buffer,
                    offset: b.offset,
                    size: b.size.and_then(wgpu::BufferSize::new),
                }),
            })
            .collect();
        entries.push(wgpu::BindGroupEntry {
            binding: buffers.len() as u32,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &params_buffer,
                offset: params_offset,
                size: wgpu::BufferSize::new((PARAM_WORDS * 4) as u64),
            }),
        });
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipe.layout,
            entries: &entries,
        });
        let pass = pending.pass(&self.device);
        pass.set_pipeline(&pipe.pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(groups.0, groups.1, groups.2);
        pending.dispatches += 1;
        self.launches.fetch_add(1, Ordering::Relaxed);
        if pending.dispatches >= SUBMIT_EVERY || blocking {
            self.submit_locked(&mut pending);
        }
        drop(pending);
        #[cfg(target_arch = "wasm32")]
        if let Some(scope) = scope {
            // A browser cannot wait here: the scope is popped now (it covers this op alone)
            // and its verdict, naming this kernel, is stored for the next synchronize or
            // readback, which waits for every verdict first (see `wait_idle`).
            let verdict = scope.pop();
            let slot = self.error.clone();
            let kernel = format!("{key:?}");
            let (done, settled) = futures::channel::oneshot::channel();
            lock(&self.verdicts).push(settled);
            wasm_bindgen_futures::spawn_local(async move {
                if let Some(e) = verdict.await {
                    let mut s = lock(&slot);
                    if s.is_none() {
                        *s = Some(format!("in kernel {kernel} (launch blocking): {e}"));
                    }
                }
                let _ = done.send(());
            });
        }
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(scope) = scope {
            // Wait for this op alone and report its error as its own.
            self.device
                .poll(wgpu::PollType::Wait { submission_index: None, timeout: None })
                .map_err(|e| Error::Gpu { device: self.name(), msg: format!("{key:?}: waiting failed: {e}") })?;
            if let Some(e) = crate::block::block_on(scope.pop()) {
                return Err(Error::Gpu {
                    device: self.name(),
                    msg: format!("in kernel {key:?} (launch blocking): {e}"),
                });
            }
        }
        Ok(())
    }

    /// Bytes between parameter slots in a batch's uniform buffer: a slot, rounded up to the
    /// adapter's uniform offset alignment.
    fn param_stride(&self) -> usize {
        (PARAM_WORDS * 4).next_multiple_of(self.limits.min_uniform_buffer_offset_alignment.max(4) as usize)
    }

    /// The batch's uniform buffer (created for the first dispatch of a batch) and the offset of
    /// a slot holding `params`, zero-padded to PARAM_WORDS. The bytes reach the buffer in one
    /// `write_buffer` just before the batch is submitted (which orders them before its
    /// commands); the dispatch count caps the slots at SUBMIT_EVERY.
    fn param_slot(&self, pending: &mut Pending, params: &[u32]) -> (wgpu::Buffer, u64) {
        let stride = self.param_stride();
        let buffer = pending
            .params
            .get_or_insert_with(|| {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("params"),
                    size: (SUBMIT_EVERY * stride) as u64,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            })
            .clone();
        let offset = pending.dispatches * stride;
        pending.param_bytes.resize(offset, 0);
        pending.param_bytes.extend_from_slice(bytemuck::cast_slice(params));
        pending.param_bytes.resize(offset + PARAM_WORDS * 4, 0);
        (buffer, offset as u64)
    }

    /// Workgroup counts for `n` threads in 1-D workgroups of `wg`, folded into 2-D beyond the
    /// per-dimension limit.
    pub(crate) fn groups(&self, n: usize, wg: u32) -> Result<(u32, u32, u32)> {
        self.fold(n.div_ceil(wg as usize))
    }

    /// `count` workgroups folded into (x, y) under the per-dimension limit.
    pub(crate) fn fold(&self, count: usize) -> Result<(u32, u32, u32)> {
        let max = self.limits.max_compute_workgroups_per_dimension.max(1) as usize;
        let x = count.min(max);
        let y = count.div_ceil(x.max(1));
        if y > max {
            return Err(Error::TooLarge {
                op: "dispatch",
                device: self.name(),
                bytes: count as u64,
                limit_name: "max_compute_workgroups_per_dimension^2 (workgroups)",
                limit: (max * max) as u64,
            });
        }
        Ok((x as u32, y as u32, 1))
    }

    /// Runs `f` with the pending encoder (created if needed), e.g. to record a copy in order.
    pub(crate) fn with_encoder<R>(&self, f: impl FnOnce(&mut wgpu::CommandEncoder) -> R) -> R {
        let mut pending = lock(&self.pending);
        f(pending.encoder(&self.device))
    }

    fn submit_locked(&self, pending: &mut Pending) {
        if let Some(params) = pending.params.take() {
            // Before the commands that read it (both go through the hold, in order).
            self.write_bytes(&params, std::mem::take(&mut pending.param_bytes));
        }
        pending.pass = None;
        if let Some(enc) = pending.encoder.take() {
            self.submit_commands(enc.finish());
        }
        pending.dispatches = 0;
    }

    /// Submits everything recorded so far.
    pub(crate) fn flush(&self) {
        self.submit_locked(&mut lock(&self.pending));
    }

    /// Flushes and waits for the GPU to finish, then reports GPU errors.
    pub(crate) async fn synchronize(&self) -> Result<()> {
        self.flush();
        self.wait_idle().await?;
        self.check()
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) async fn wait_idle(&self) -> Result<()> {
        self.device
            .poll(wgpu::PollType::Wait { submission_index: None, timeout: None })
            .map(|_| ())
            .map_err(|e| Error::Gpu { device: self.name(), msg: format!("waiting for the queue failed: {e}") })
    }

    #[cfg(target_arch = "wasm32")]
    pub(crate) async fn wait_idle(&self) -> Result<()> {
        // Work held behind a host step is not submitted yet: wait until it is.
        self.host_settled().await;
        let (tx, rx) = futures::channel::oneshot::channel();
        self.queue.on_submitted_work_done(move || {
            let _ = tx.send(());
        });
        rx.await.map_err(|_| Error::Gpu { device: self.name(), msg: "the queue was dropped while waiting".into() })?;
        let verdicts = std::mem::take(&mut *lock(&self.verdicts));
        for v in verdicts {
            let _ = v.await;
        }
        Ok(())
    }
}
