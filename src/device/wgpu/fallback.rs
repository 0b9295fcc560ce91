//! Soft placement for ops a GPU cannot run (TensorFlow's soft placement, for kernels): when a
//! kernel fails for a dtype the device lacks (f16 without `shader-f16`) and soft placement is
//! on, the op runs on the CPU over host copies of its inputs and the result moves back to the
//! device; the fallback is recorded in the placement log. Natively the readback blocks; on the
//! web the op becomes a host step that later work on the device waits behind (`hold.rs`).

use std::sync::Arc;

use super::{WgpuDevice, WgpuStorage};
use crate::device::cpu::CpuStorage;
use crate::dtype::{CpuData, DType};
use crate::error::Result;

impl WgpuDevice {
    /// The whole buffer behind `s` on the host, so layouts over `s` index it unchanged.
    pub(crate) async fn read_raw(&self, s: &WgpuStorage) -> Result<CpuData> {
        let size = s.buffer().size();
        Ok(whole_buffer(s.dtype(), &self.read_bytes(s.buffer(), 0, size).await?))
    }
}

/// The host copy of a whole buffer of `dtype` elements (the block may hold more than the tensor).
pub(crate) fn whole_buffer(dtype: DType, bytes: &[u8]) -> CpuData {
    CpuData::from_gpu_bytes(dtype, bytes, bytes.len() / dtype.gpu_size_in_bytes())
}

/// `result` if it succeeded; otherwise, under soft placement and for a dtype the device lacks,
/// the kernel `cpu` makes (called only then, so the common path copies nothing) run over host
/// copies of `inputs`, its result (`out`: element count and dtype) moved back to `dev`.
/// Natively this blocks on the readback. A browser cannot block: there the output is allocated
/// now and filled by a host step that later submissions wait behind (see hold.rs).
pub(crate) fn or_cpu<K>(
    op: &'static str,
    dev: &Arc<WgpuDevice>,
    inputs: &[&WgpuStorage],
    out: (usize, DType),
    result: Result<WgpuStorage>,
    cpu: impl FnOnce() -> K,
) -> Result<WgpuStorage>
where
    K: FnOnce(&[CpuStorage]) -> Result<CpuStorage> + Send + 'static,
{
    let err = match result {
        Ok(s) => return Ok(s),
        Err(e) => e,
    };
    if !crate::device::policy::falls_back_to_cpu(&err) {
        return Err(err);
    }
    on_cpu(op, dev, inputs, out, err, Box::new(cpu()))
}

/// The CPU kernel of a fallback, over host copies of its inputs, boxed: the fallback's body is
/// one instance instead of one per op's kernel closure.
pub(crate) type HostKernel = Box<dyn FnOnce(&[CpuStorage]) -> Result<CpuStorage> + Send>;

/// [`or_cpu`] once it falls back: `cpu` over host copies of `inputs`, its result moved back.
fn on_cpu(
    op: &'static str,
    dev: &Arc<WgpuDevice>,
    inputs: &[&WgpuStorage],
    out: (usize, DType),
    err: crate::error::Error,
    cpu: HostKernel,
) -> Result<WgpuStorage> {
    #[cfg(target_arch = "wasm32")]
    let back = {
        let output = dev.alloc(out.0, out.1)?;
        dev.defer_host(super::hold::HostStep {
            op,
            inputs: inputs.iter().map(|s| (s.buffer().clone(), s.dtype())).collect(),
            output: output.buffer().clone(),
            len: out.0,
            dtype: out.1,
            run: cpu,
        });
        output
    };
    #[cfg(not(target_arch = "wasm32"))]
    let back = {
        let host = inputs
            .iter()
            .map(|s| crate::block::block_on(dev.read_raw(s)).and_then(CpuStorage::new))
            .collect::<Result<Vec<_>>>()?;
        let result = cpu(&host)?;
        if result.data().dtype() != out.1 || result.data().len() != out.0 {
            return Err(crate::error::Error::invalid(
                op,
                "internal: the cpu kernel's result has another dtype or size",
            ));
        }
        dev.upload_data(result.data())?
    };
    let device = dev.info.device;
    use crate::device::transfer::{record, Direction};
    for s in inputs {
        record(device, Direction::DeviceToHost, s.buffer().size());
    }
    record(device, Direction::HostToDevice, (out.0 * out.1.size_in_bytes()) as u64);
    crate::device::placement::record_fallback(
        op,
        &vec![device; inputs.len()],
        device,
        format!("soft placement: {device} cannot run it ({}); ran on cpu and moved the result back", err.in_op(op)),
    );
    Ok(back)
}
