//! `Embedding`: a lookup table of learned vectors, as PyTorch's `nn.Embedding` (weight
//! `[num_embeddings, embedding_dim]`, initialised N(0, 1); `padding_idx` zeroes that row and
//! keeps its gradient at zero).

use super::{Module, ModuleCore, Parameter};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Options of [`Embedding::new`].
#[derive(Debug, Clone, Copy, Default)]
pub struct EmbeddingOptions {
    /// A row that stays at zero and gets no gradient (a padding token), if any.
    pub padding_idx: Option<usize>,
    /// Seed of the initial values (random when `None`).
    pub seed: Option<u64>,
    /// Where the weight is made (the default device when `None`).
    pub device: Option<Device>,
}

/// A table of `num_embeddings` vectors of size `embedding_dim`, looked up by integer index.
pub struct Embedding {
    core: ModuleCore,
    weight: Parameter,
    padding_idx: Option<usize>,
}

impl Embedding {
    /// A table with weights drawn from N(0, 1) (the padding row, if any, zero).
    pub fn new(num_embeddings: usize, embedding_dim: usize, options: EmbeddingOptions) -> Result<Embedding> {
        if let Some(p) = options.padding_idx {
            if p >= num_embeddings {
                return Err(Error::invalid(
                    "Embedding",
                    format!("padding_idx {p} must be below num_embeddings ({num_embeddings})"),
                ));
            }
        }
        let mut w = Tensor::randn(&[num_embeddings, embedding_dim], options.seed, options.device)?;
        if let Some(p) = options.padding_idx {
            let rows = Tensor::arange(0.0, num_embeddings as f64, 1.0, crate::DType::I32, options.device)?;
            let keep = rows.ne_scalar(p as f64)?.unsqueeze(1)?;
            w = keep.where_(&w, &w.zeros_like()?)?;
        }
        let core = ModuleCore::new();
        let weight = core.register_parameter("weight", &w)?;
        Ok(Embedding { core, weight, padding_idx: options.padding_idx })
    }

    /// The `[num_embeddings, embedding_dim]` table.
    pub fn weight(&self) -> &Parameter {
        &self.weight
    }
}

impl Module for Embedding {
    fn core(&self) -> &ModuleCore {
        &self.core
    }

    /// `indices` of any shape (an integer dtype) give `[*indices.shape, embedding_dim]`.
    fn forward(&self, indices: &Tensor) -> Result<Tensor> {
        embedding(indices, &self.weight.tensor(), self.padding_idx)
    }
}

/// Rows of `weight` picked by `indices` (PyTorch's `F.embedding`): the output has shape
/// `[*indices.shape, weight.shape[1]]`. Rows at `padding_idx` get no gradient.
pub fn embedding(indices: &Tensor, weight: &Tensor, padding_idx: Option<usize>) -> Result<Tensor> {
    const OP: &str = "embedding";
    if weight.rank() != 2 {
        return Err(Error::invalid(OP, format!("weight must be 2-d [num_embeddings, dim], got {:?}", weight.shape())));
    }
    if indices.dtype().is_float() {
        return Err(Error::invalid(
            OP,
            format!("indices must be an integer tensor (i32 or u32), got {:?}", indices.dtype()),
        ));
    }
    if let Some(p) = padding_idx.filter(|&p| p >= weight.shape()[0]) {
        return Err(Error::invalid(
            OP,
            format!("padding_idx {p} must be below num_embeddings ({}, weight's first dim)", weight.shape()[0]),
        ));
    }
    let flat = indices.reshape(&[-1])?;
    let rows = weight.index_select_as(0, &flat, OP)?;
    let rows = match padding_idx {
        // The forward value is the row as it is; only the gradient is cut, as PyTorch does.
        Some(p) => flat.ne_scalar(p as f64)?.unsqueeze(1)?.where_(&rows, &rows.detach())?,
        None => rows,
    };
    let mut shape: Vec<isize> = indices.shape().iter().map(|&d| d as isize).collect();
    shape.push(weight.shape()[1] as isize);
    rows.reshape(&shape)
}
