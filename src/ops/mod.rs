//! The public op API on `Tensor`, one file per family. Every op checks devices first, then shapes
//! and dtypes, hands one kernel family to the storage (see `storage.rs`), which forwards to a
//! backend, and builds its output through `Tensor::from_op`, where autograd records the op. Each
//! op's backward rule sits next to its forward.

pub mod binary;
pub mod cast;
pub mod classify;
pub mod composed;
pub(crate) mod grad;
pub mod index;
pub mod inplace;
pub mod logical;
pub mod matmul;
pub mod movement;
pub mod pad;
pub mod pin;
pub mod rearrange;
pub mod reduce;
pub mod sample;
pub mod scan;
pub mod sort;
pub mod unary;

pub use crate::op::{IndexMode, MapOp};
pub use pad::PadMode;
