//! Timing events, like `torch.cuda.Event(enable_timing=True)`: `Event::record` marks a point in
//! a device's stream of work and `elapsed_ms` gives the time between two marks. On adapters with
//! `timestamp-query` the marks are GPU timestamps (an empty compute pass that writes one where it
//! begins); elsewhere, and on the CPU, they are wall-clock times taken after a synchronize. Each
//! event says which it used.

use std::sync::Arc;

use crate::device::wgpu::WgpuDevice;
use crate::device::{Backend, Device};
use crate::error::{Error, Result};

/// How an [`Event`] measured time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimingMethod {
    /// GPU timestamps written in the command stream: the GPU's own time between the marks.
    TimestampQuery,
    /// Wall-clock time read after waiting for the device: includes submission overhead.
    WallClock,
}

enum Mark {
    /// A resolved timestamp waiting in a GPU buffer.
    Timestamp { dev: Arc<WgpuDevice>, resolved: wgpu::Buffer },
    /// Milliseconds on the host clock.
    Clock(f64),
}

/// A point in a device's work, for timing.
pub struct Event {
    device: Device,
    mark: Mark,
}

impl Event {
    /// Marks the current point in `device`'s queued work.
    pub async fn record(device: Device) -> Result<Event> {
        let mark = match Backend::of(device)? {
            Backend::Wgpu(dev) if dev.timestamps => {
                dev.ensure_alive()?;
                let query_set = dev.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("event"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 1,
                });
                let resolved = dev.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("event"),
                    size: 8,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                });
                dev.with_encoder(|e| {
                    drop(e.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("event"),
                        timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                            query_set: &query_set,
                            beginning_of_pass_write_index: Some(0),
                            end_of_pass_write_index: None,
                        }),
                    }));
                    e.resolve_query_set(&query_set, 0..1, &resolved, 0);
                });
                Mark::Timestamp { dev, resolved }
            }
            _ => {
                crate::device::synchronize(device).await?;
                Mark::Clock(crate::clock::now_ms())
            }
        };
        Ok(Event { device, mark })
    }

    /// Blocking [`Event::record`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn record_blocking(device: Device) -> Result<Event> {
        crate::block::block_on(Event::record(device))
    }

    /// The device this event was recorded on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// How this event measures time.
    pub fn method(&self) -> TimingMethod {
        match self.mark {
            Mark::Timestamp { .. } => TimingMethod::TimestampQuery,
            Mark::Clock(_) => TimingMethod::WallClock,
        }
    }

    /// Milliseconds from this event to `end` (waits for both marks to be reached). Both must be
    /// on the same device.
    pub async fn elapsed_ms(&self, end: &Event) -> Result<f64> {
        if self.device != end.device {
            return Err(Error::DeviceMismatch {
                op: "elapsed_ms",
                a: self.device.to_string(),
                b: end.device.to_string(),
            });
        }
        match (&self.mark, &end.mark) {
            (Mark::Clock(a), Mark::Clock(b)) => Ok(b - a),
            (Mark::Timestamp { dev, resolved: a }, Mark::Timestamp { resolved: b, .. }) => {
                let ticks = |bytes: Vec<u8>| bytes.get(..8).map(|s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8])));
                let t0 = ticks(dev.read_bytes(a, 0, 8).await?);
                let t1 = ticks(dev.read_bytes(b, 0, 8).await?);
                let (Some(t0), Some(t1)) = (t0, t1) else {
                    return Err(Error::Gpu {
                        device: self.device.to_string(),
                        msg: "a timestamp read back short".into(),
                    });
                };
                // Signed: events passed in reverse order give a negative time, as in CUDA.
                let ns = (t1 as i128 - t0 as i128) as f64 * dev.queue.get_timestamp_period() as f64;
                Ok(ns / 1e6)
            }
            _ => Err(Error::invalid(
                "elapsed_ms",
                "the two events measured time differently (recorded across a device reset?)",
            )),
        }
    }

    /// Blocking [`Event::elapsed_ms`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn elapsed_ms_blocking(&self, end: &Event) -> Result<f64> {
        crate::block::block_on(self.elapsed_ms(end))
    }
}
