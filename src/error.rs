//! The library's one error type. Every message names the op and both sides of what went wrong,
//! so a user can fix the call without reading the source.

use crate::dtype::DType;
use crate::shape::fmt_shape;

/// Everything that can go wrong in webtensor. Marked `#[non_exhaustive]`: new failure kinds are
/// added as backends grow.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An op got tensors on two devices. The message is PyTorch's.
    #[error(
        "Expected all tensors to be on the same device, but found at least two devices, {a} and {b}! (in op {op})"
    )]
    DeviceMismatch {
        /// The op that was called.
        op: &'static str,
        /// The first device found.
        a: String,
        /// The other device found.
        b: String,
    },
    /// Two shapes that must agree do not.
    #[error("{op}: shape mismatch between {} and {}: {msg}", fmt_shape(lhs), fmt_shape(rhs))]
    ShapeMismatch {
        /// The op that was called.
        op: &'static str,
        /// The left (or first) shape.
        lhs: Vec<usize>,
        /// The right (or second) shape.
        rhs: Vec<usize>,
        /// What would have been right.
        msg: String,
    },
    /// Two shapes cannot be broadcast together (NumPy rules).
    #[error("{op}: shapes {} and {} cannot be broadcast: at dimension {dim} sizes are {a} and {b}; sizes must be equal or one of them 1", fmt_shape(lhs), fmt_shape(rhs))]
    Broadcast {
        /// The op that was called.
        op: &'static str,
        /// The left shape.
        lhs: Vec<usize>,
        /// The right shape.
        rhs: Vec<usize>,
        /// The dimension (counted from the front of the broadcast shape) that disagrees.
        dim: usize,
        /// Size on the left.
        a: usize,
        /// Size on the right.
        b: usize,
    },
    /// A dimension index outside `[-rank, rank - 1]`.
    #[error("{op}: dimension {dim} is out of range for a tensor of rank {rank} (expected a dim in [{}, {}])", -(*rank as isize).max(1), (*rank as isize - 1).max(0))]
    DimOutOfRange {
        /// The op that was called.
        op: &'static str,
        /// The dimension given.
        dim: isize,
        /// The rank of the tensor.
        rank: usize,
    },
    /// Data whose length does not match the shape it was given.
    #[error("{op}: got {got} elements of data, but shape {} needs {expected}", fmt_shape(shape))]
    DataLength {
        /// The op that was called.
        op: &'static str,
        /// Elements supplied.
        got: usize,
        /// Elements the shape needs.
        expected: usize,
        /// The shape given.
        shape: Vec<usize>,
    },
    /// A dtype an op or a device cannot handle.
    #[error("{op}: dtype {dtype} is not supported here: {reason}")]
    UnsupportedDType {
        /// The op that was called.
        op: &'static str,
        /// The dtype given.
        dtype: DType,
        /// Why, and what would work.
        reason: String,
    },
    /// Two dtypes that must agree do not (readback into the wrong Rust type, say).
    #[error("{op}: expected dtype {expected}, got {got}; convert with to_dtype({expected}) first")]
    DTypeMismatch {
        /// The op that was called.
        op: &'static str,
        /// The dtype required.
        expected: DType,
        /// The dtype found.
        got: DType,
    },
    /// A device string that does not parse.
    #[error("unknown device '{input}': {reason}; accepted forms: cpu, webgpu, webgpu:N, vulkan[:N], metal[:N], dx12[:N], gl[:N], cuda, cuda:N, meta, and TensorFlow's /CPU:0, /GPU:N, /device:GPU:N, gpu:N")]
    ParseDevice {
        /// The string given.
        input: String,
        /// What was wrong with it.
        reason: String,
    },
    /// A well-formed device that does not exist or cannot be used here.
    #[error("device {device} is not available: {reason}")]
    DeviceUnavailable {
        /// The device asked for.
        device: String,
        /// Why, including which devices do exist.
        reason: String,
    },
    /// A device that exists but has not been opened yet (WebAssembly opens asynchronously).
    #[error("device {device} has not been opened: await open(\"{device}\") (or init()) before using it")]
    NotOpened {
        /// The device asked for.
        device: String,
    },
    /// Reading the values of a meta tensor, which has none.
    #[error("{op}: a meta tensor has a shape and a dtype but no data; create it on a real device (cpu, webgpu) to read or copy its values")]
    MetaReadback {
        /// The op that was called.
        op: &'static str,
    },
    /// An index outside the range of the dimension it indexes.
    #[error("{op}: index {index} is out of bounds for dimension {dim} with size {size}")]
    IndexOutOfRange {
        /// The op that was called.
        op: &'static str,
        /// The index given.
        index: i64,
        /// The dimension indexed.
        dim: usize,
        /// Its size.
        size: usize,
    },
    /// An index out of range found on a device that runs asynchronously: the op was queued and
    /// its index checked beside it; this is reported at the next readback or `synchronize`, as
    /// PyTorch reports a CUDA device-side assert.
    #[error("{op}: index {index} is out of bounds for dimension {dim} with size {size} (found on {device} by a device-side check and reported at this readback or synchronize; set_launch_blocking(true) reports it at the op itself)")]
    DeviceIndexOutOfRange {
        /// The op that was called.
        op: &'static str,
        /// An index out of range (the greatest, or the least when only that one is out).
        index: i64,
        /// The dimension indexed.
        dim: usize,
        /// Its size.
        size: usize,
        /// Where the op ran.
        device: crate::device::Device,
    },
    /// Any other bad argument; the message says what was wrong and what would be right.
    #[error("{op}: {msg}")]
    InvalidArgument {
        /// The op that was called.
        op: &'static str,
        /// What was wrong and what would be right.
        msg: String,
    },
    /// A tensor larger than the device can bind in one buffer.
    #[error("{op}: a buffer of {bytes} bytes exceeds {device}'s limit {limit_name} = {limit} bytes")]
    TooLarge {
        /// The op that was called.
        op: &'static str,
        /// The device.
        device: String,
        /// Bytes needed.
        bytes: u64,
        /// Which adapter limit.
        limit_name: &'static str,
        /// The limit's value.
        limit: u64,
    },
    /// An error the GPU reported (validation, internal or out of memory), surfaced at the next
    /// synchronize or readback.
    #[error("{device} reported an error: {msg}")]
    Gpu {
        /// The device.
        device: String,
        /// wgpu's description.
        msg: String,
    },
    /// An allocation that the memory limit or the device itself refused.
    #[error("{device} out of memory: tried to allocate {requested} bytes with {allocated} bytes allocated and {reserved} reserved{}; {cause}; free tensors, call empty_cache, or raise the limit with set_memory_limit; in training, use a smaller batch and accumulate gradients over several backward passes before each optimizer step", limit.map_or(String::new(), |l| format!(", limit {l} bytes")))]
    OutOfMemory {
        /// The device.
        device: String,
        /// Bytes asked for.
        requested: u64,
        /// Bytes held by live tensors at the time.
        allocated: u64,
        /// Bytes held by the allocator at the time.
        reserved: u64,
        /// The limit set with `set_memory_limit`, if any.
        limit: Option<u64>,
        /// What refused: the limit or the device.
        cause: String,
    },
    /// The device was lost (driver reset, `destroy`, browser tab in the background too long).
    #[error("device {device} was lost: {reason}")]
    DeviceLost {
        /// The device.
        device: String,
        /// Why, as the driver said.
        reason: String,
    },
}

/// `Result` with webtensor's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Op names the kernel layer uses before it knows which user-facing op called it.
const KERNEL_OPS: [&str; 4] = ["kernel", "alloc", "dispatch", "to"];

impl Error {
    /// Names `op` in an error raised below the op layer (allocation, dispatch), so the message
    /// points at the call the user made.
    pub(crate) fn in_op(mut self, name: &'static str) -> Self {
        match &mut self {
            Error::UnsupportedDType { op, .. } | Error::TooLarge { op, .. } if KERNEL_OPS.contains(op) => *op = name,
            _ => {}
        }
        self
    }

    /// Shorthand for [`Error::InvalidArgument`].
    pub(crate) fn invalid(op: &'static str, msg: impl Into<String>) -> Self {
        Error::InvalidArgument { op, msg: msg.into() }
    }
}
