//! Character-level text data, as nanoGPT's `shakespeare_char` prepares it: the vocabulary is
//! the sorted set of characters, the first 90% of the text trains and the rest validates, and a
//! batch is `batch` random windows of `block` characters with the next characters as targets
//! (nanoGPT's `get_batch`). Natively a batch for a GPU goes through pinned memory and a
//! non-blocking copy, as nanoGPT's `pin_memory().to(device, non_blocking=True)`.

use crate::creation::SplitMix64;
use crate::device::Device;
#[cfg(not(target_arch = "wasm32"))]
use crate::device::DeviceKind;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
#[cfg(not(target_arch = "wasm32"))]
use crate::tensor::ToOptions;

/// Which part of the text a batch comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// The first 90%.
    Train,
    /// The last 10%.
    Val,
}

/// A text as character ids, its vocabulary, and its train/validation split.
#[derive(Debug, Clone)]
pub struct CharCorpus {
    vocab: Vec<char>,
    train: Vec<i32>,
    val: Vec<i32>,
}

impl CharCorpus {
    /// The corpus of `text`, split `1 - val_fraction` / `val_fraction` (nanoGPT: 0.1).
    pub fn new(text: &str, val_fraction: f64) -> Result<CharCorpus> {
        const OP: &str = "CharCorpus";
        if !(0.0..1.0).contains(&val_fraction) {
            return Err(Error::invalid(OP, format!("val_fraction must be in [0, 1), got {val_fraction}")));
        }
        let mut vocab: Vec<char> = text.chars().collect();
        vocab.sort_unstable();
        vocab.dedup();
        let ids: Vec<i32> = text.chars().map(|c| vocab.binary_search(&c).map_or(0, |i| i as i32)).collect();
        let n = ((1.0 - val_fraction) * ids.len() as f64) as usize;
        let (train, val) = ids.split_at(n);
        Ok(CharCorpus { vocab, train: train.to_vec(), val: val.to_vec() })
    }

    /// A corpus with a given vocabulary and no text (for sampling from a checkpoint).
    pub fn from_vocab(vocab: &str) -> CharCorpus {
        let mut v: Vec<char> = vocab.chars().collect();
        v.sort_unstable();
        v.dedup();
        CharCorpus { vocab: v, train: Vec::new(), val: Vec::new() }
    }

    /// The vocabulary, sorted.
    pub fn vocab(&self) -> String {
        self.vocab.iter().collect()
    }

    /// How many distinct characters.
    pub fn vocab_size(&self) -> usize {
        self.vocab.len()
    }

    /// Characters in each split.
    pub fn len(&self, split: Split) -> usize {
        self.ids(split).len()
    }

    /// Whether the corpus has no text.
    pub fn is_empty(&self) -> bool {
        self.train.is_empty() && self.val.is_empty()
    }

    fn ids(&self, split: Split) -> &[i32] {
        match split {
            Split::Train => &self.train,
            Split::Val => &self.val,
        }
    }

    /// The ids of `text`; a character outside the vocabulary is an error naming it.
    pub fn encode(&self, text: &str) -> Result<Vec<i32>> {
        text.chars()
            .map(|c| {
                self.vocab.binary_search(&c).map(|i| i as i32).map_err(|_| {
                    Error::invalid(
                        "encode",
                        format!("the character {c:?} is not in the vocabulary of {} characters", self.vocab.len()),
                    )
                })
            })
            .collect()
    }

    /// The text of `ids`; an id outside the vocabulary is an error.
    pub fn decode(&self, ids: &[i32]) -> Result<String> {
        ids.iter()
            .map(|&i| {
                usize::try_from(i).ok().and_then(|i| self.vocab.get(i).copied()).ok_or_else(|| Error::IndexOutOfRange {
                    op: "decode",
                    index: i64::from(i),
                    dim: 0,
                    size: self.vocab.len(),
                })
            })
            .collect()
    }

    /// `batch` random windows of `block` ids from `split` and the windows one character on, as
    /// `[batch, block]` int32 tensors on `device` (nanoGPT's `get_batch`), drawn from `seed`.
    pub fn batch(
        &self,
        split: Split,
        batch: usize,
        block: usize,
        seed: u64,
        device: Device,
    ) -> Result<(Tensor, Tensor)> {
        let data = self.ids(split);
        if data.len() <= block {
            return Err(Error::invalid(
                "batch",
                format!(
                    "the {split:?} split has {} characters, fewer than a window of {block} and its target",
                    data.len()
                ),
            ));
        }
        let mut rng = SplitMix64(seed);
        let span = (data.len() - block) as u64;
        let (mut x, mut y) = (Vec::with_capacity(batch * block), Vec::with_capacity(batch * block));
        for _ in 0..batch {
            let i = (rng.next() % span) as usize;
            x.extend_from_slice(&data[i..i + block]);
            y.extend_from_slice(&data[i + 1..i + 1 + block]);
        }
        #[cfg(not(target_arch = "wasm32"))]
        if device.kind() != DeviceKind::Cpu {
            // Through pinned memory, without waiting for the copy (a browser has neither).
            let up = |v: Vec<i32>| -> Result<Tensor> {
                Tensor::from_vec(v, &[batch, block], Device::CPU)?
                    .pin_memory_for(device)?
                    .to_with_blocking(device, ToOptions { non_blocking: true })
            };
            return Ok((up(x)?, up(y)?));
        }
        Ok((Tensor::from_vec(x, &[batch, block], device)?, Tensor::from_vec(y, &[batch, block], device)?))
    }
}
