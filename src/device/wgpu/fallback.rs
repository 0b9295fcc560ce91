//! Soft placement for ops a GPU cannot run (TensorFlow's soft placement, for kernels): when a
//! kernel fails for a dtype the device lacks (f16 without `shader-f16`) and soft placement is
//! on, the op runs on the CPU over host copies of its inputs and the result moves back to the
//! device; the fallback is recorded in the placement log. Native only: the readback it needs
//! cannot block in a browser, so there the error stands.

use std::sync::Arc;

use super::{WgpuDevice, WgpuStorage};
use crate::device::cpu::CpuStorage;
use crate::dtype::CpuData;
use crate::error::{Error, Result};

impl WgpuDevice {
    /// The whole buffer behind `s` on the host, so layouts over `s` index it unchanged.
    pub(crate) async fn read_raw(&self, s: &WgpuStorage) -> Result<CpuData> {
        let size = s.buffer().size();
        let bytes = self.read_bytes(s.buffer(), 0, size).await?;
        Ok(CpuData::from_gpu_bytes(s.dtype(), &bytes, size as usize / s.dtype().gpu_size_in_bytes()))
    }
}

/// `result` if it succeeded; otherwise, under soft placement and for a dtype the device lacks,
/// `cpu` run over host copies of `inputs`, moved back to `dev`.
pub(crate) fn or_cpu(
    op: &'static str,
    dev: &Arc<WgpuDevice>,
    inputs: &[&WgpuStorage],
    result: Result<WgpuStorage>,
    cpu: impl FnOnce(&[CpuStorage]) -> Result<CpuStorage>,
) -> Result<WgpuStorage> {
    let err = match result {
        Ok(s) => return Ok(s),
        Err(e) => e,
    };
    if !matches!(err, Error::UnsupportedDType { .. }) || !crate::device::placement::soft_device_placement() {
        return Err(err);
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = (op, dev, inputs, cpu);
        Err(err)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let host = inputs
            .iter()
            .map(|s| crate::block::block_on(dev.read_raw(s)).and_then(CpuStorage::new))
            .collect::<Result<Vec<_>>>()?;
        let out = cpu(&host)?;
        let back = dev.upload_data(out.data())?;
        let device = dev.info.device;
        use crate::device::transfer::{record, Direction};
        for s in inputs {
            record(device, Direction::DeviceToHost, s.buffer().size());
        }
        record(device, Direction::HostToDevice, (out.data().len() * out.data().dtype().size_in_bytes()) as u64);
        crate::device::placement::record_fallback(
            op,
            &vec![device; inputs.len()],
            device,
            format!("soft placement: {device} cannot run it ({}); ran on cpu and moved the result back", err.in_op(op)),
        );
        Ok(back)
    }
}
