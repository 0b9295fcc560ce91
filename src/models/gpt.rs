//! A GPT as nanoGPT's `model.py` writes it: token and position embeddings, `n_layer` blocks of
//! pre-norm causal self-attention and a GELU MLP, a final LayerNorm, and an output layer that
//! shares the token embedding's table. Its `state_dict` keys are nanoGPT's
//! (`transformer.wte.weight`, `transformer.h.0.attn.c_attn.weight`, ..., `lm_head.weight`), so
//! checkpoints move between the two. Weights start as nanoGPT's do (normal with std 0.02; the
//! residual projections 0.02 / sqrt(2 n_layer); biases zero), from a seed. `generate` keeps a
//! KV cache, so each new token costs one position's work, not a whole forward pass.

use std::sync::Arc;

use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::nn::{
    self, AttentionOptions, ClassLossOptions, Dropout, Embedding, EmbeddingOptions, LayerNorm, Linear, LinearOptions,
    Module, ModuleCore, ModuleList, NormOptions, Parameter,
};
use crate::optim::{AdamOptions, AdamW, ParamGroup};
use crate::tensor::Tensor;

/// The model's shape (nanoGPT's `GPTConfig`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GptConfig {
    /// Tokens in the vocabulary.
    pub vocab_size: usize,
    /// The longest context.
    pub block_size: usize,
    /// Transformer blocks.
    pub n_layer: usize,
    /// Attention heads (`n_embd` must be a multiple).
    pub n_head: usize,
    /// The embedding width.
    pub n_embd: usize,
    /// Dropout after the embeddings, in attention and after each residual branch.
    pub dropout: f64,
    /// Biases in the Linear layers and LayerNorms (nanoGPT's `bias`).
    pub bias: bool,
}

impl GptConfig {
    /// nanoGPT's `shakespeare_char`: 6 layers, 6 heads, 384 wide, context 256, dropout 0.2.
    pub fn shakespeare_char(vocab_size: usize) -> GptConfig {
        GptConfig { vocab_size, block_size: 256, n_layer: 6, n_head: 6, n_embd: 384, dropout: 0.2, bias: false }
    }

    /// nanoGPT's CPU recipe for Shakespeare: 4 layers, 4 heads, 128 wide, context 64, no dropout.
    pub fn cpu(vocab_size: usize) -> GptConfig {
        GptConfig { vocab_size, block_size: 64, n_layer: 4, n_head: 4, n_embd: 128, dropout: 0.0, bias: false }
    }

    fn check(&self) -> Result<()> {
        let ok = self.vocab_size > 0 && self.block_size > 0 && self.n_layer > 0 && self.n_head > 0;
        if !ok || !self.n_embd.is_multiple_of(self.n_head) || self.n_embd == 0 {
            return Err(Error::invalid(
                "GPT",
                format!(
                    "a config needs positive sizes and n_embd ({}) a multiple of n_head ({})",
                    self.n_embd, self.n_head
                ),
            ));
        }
        if !(0.0..1.0).contains(&self.dropout) {
            return Err(Error::invalid("GPT", format!("dropout must be in [0, 1), got {}", self.dropout)));
        }
        Ok(())
    }
}

/// Normal(0, std) of `shape`, seeded.
fn normal(shape: &[usize], std: f64, seed: u64, device: Device) -> Result<Tensor> {
    Tensor::randn(shape, Some(seed), device)?.mul_scalar(std)
}

/// A Linear layer with nanoGPT's initial weights (bias zero).
fn linear(i: usize, o: usize, bias: bool, std: f64, seed: u64, device: Device) -> Result<Linear> {
    let l = Linear::new(i, o, LinearOptions { bias, seed: Some(seed), device: Some(device) })?;
    l.weight().replace(normal(&[o, i], std, seed, device)?, None)?;
    if let Some(b) = l.bias() {
        b.replace(Tensor::zeros(&[o], DType::F32, device)?, None)?;
    }
    Ok(l)
}

fn layer_norm(n: usize, bias: bool, device: Device) -> Result<LayerNorm> {
    LayerNorm::new(&[n], NormOptions { bias, device: Some(device), ..Default::default() })
}

/// The cached keys and values of one layer, `[B, n_head, T, head]` each.
#[derive(Clone)]
struct Cache {
    k: Tensor,
    v: Tensor,
}

/// nanoGPT's `CausalSelfAttention`: one projection to queries, keys and values, causal
/// attention over the heads, an output projection.
pub struct CausalSelfAttention {
    core: ModuleCore,
    c_attn: Arc<Linear>,
    c_proj: Arc<Linear>,
    resid_dropout: Arc<Dropout>,
    n_head: usize,
    dropout: f64,
}

impl CausalSelfAttention {
    fn new(c: &GptConfig, seed: u64, device: Device) -> Result<CausalSelfAttention> {
        let core = ModuleCore::new();
        let n = c.n_embd;
        let proj_std = 0.02 / ((2 * c.n_layer) as f64).sqrt();
        let c_attn = core.register_module("c_attn", linear(n, 3 * n, c.bias, 0.02, seed, device)?)?;
        let c_proj = core.register_module("c_proj", linear(n, n, c.bias, proj_std, seed ^ 1, device)?)?;
        let resid_dropout = core.register_module("resid_dropout", Dropout::new(c.dropout, Some(seed ^ 2))?)?;
        Ok(CausalSelfAttention { core, c_attn, c_proj, resid_dropout, n_head: c.n_head, dropout: c.dropout })
    }

    /// `[B, T, C]` as the heads `[B, n_head, T, C / n_head]` (a view of the projection's split).
    fn heads(&self, x: &Tensor) -> Result<Tensor> {
        let (b, t, c) = (x.shape()[0] as isize, x.shape()[1] as isize, x.shape()[2] as isize);
        let nh = self.n_head as isize;
        x.view(&[b, t, nh, c / nh])?.transpose(1, 2)
    }

    /// Attention of `x` (`[B, T, C]`) over itself (causal), or, with a cache, of the new
    /// positions over the cached ones and themselves; returns the output and the new cache.
    fn attend(&self, x: &Tensor, cache: Option<&Cache>) -> Result<(Tensor, Cache)> {
        let (b, t, c) = (x.shape()[0] as isize, x.shape()[1] as isize, x.shape()[2]);
        let qkv = self.c_attn.forward(x)?.split(c, 2)?;
        let (q, mut k, mut v) = (self.heads(&qkv[0])?, self.heads(&qkv[1])?, self.heads(&qkv[2])?);
        if let Some(past) = cache {
            k = Tensor::cat(&[past.k.clone(), k], 2)?;
            v = Tensor::cat(&[past.v.clone(), v], 2)?;
        }
        let training = self.core.is_training();
        // With a cache and one new position, every key is in the past: no mask.
        let is_causal = cache.is_none() || t > 1;
        let attn_mask = if cache.is_some() && t > 1 {
            // New rows see the whole past and, causally, each other.
            let (s, l) = (k.shape()[2] as isize, t);
            let rows = Tensor::arange((s - l) as f64, s as f64, 1.0, DType::I32, x.device())?.reshape(&[l, 1])?;
            let cols = Tensor::arange(0.0, s as f64, 1.0, DType::I32, x.device())?.reshape(&[1, s])?;
            Some(cols.le(&rows)?)
        } else {
            None
        };
        let options = AttentionOptions {
            is_causal: is_causal && attn_mask.is_none(),
            attn_mask,
            dropout_p: if training { self.dropout } else { 0.0 },
            ..Default::default()
        };
        let y = nn::scaled_dot_product_attention(&q, &k, &v, &options)?;
        let y = y.transpose(1, 2)?.contiguous()?.view(&[b, t, c as isize])?;
        let y = self.resid_dropout.forward(&self.c_proj.forward(&y)?)?;
        Ok((y, Cache { k, v }))
    }
}

impl Module for CausalSelfAttention {
    fn core(&self) -> &ModuleCore {
        &self.core
    }
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        Ok(self.attend(x, None)?.0)
    }
}

/// nanoGPT's `MLP`: widen to 4x, GELU (its exact form, as nanoGPT's `nn.GELU()`), project back.
pub struct Mlp {
    core: ModuleCore,
    c_fc: Arc<Linear>,
    c_proj: Arc<Linear>,
    dropout: Arc<Dropout>,
}

impl Mlp {
    fn new(c: &GptConfig, seed: u64, device: Device) -> Result<Mlp> {
        let core = ModuleCore::new();
        let n = c.n_embd;
        let proj_std = 0.02 / ((2 * c.n_layer) as f64).sqrt();
        let c_fc = core.register_module("c_fc", linear(n, 4 * n, c.bias, 0.02, seed, device)?)?;
        let c_proj = core.register_module("c_proj", linear(4 * n, n, c.bias, proj_std, seed ^ 1, device)?)?;
        let dropout = core.register_module("dropout", Dropout::new(c.dropout, Some(seed ^ 2))?)?;
        Ok(Mlp { core, c_fc, c_proj, dropout })
    }
}

impl Module for Mlp {
    fn core(&self) -> &ModuleCore {
        &self.core
    }
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        self.dropout.forward(&self.c_proj.forward(&self.c_fc.forward(x)?.gelu()?)?)
    }
}

/// nanoGPT's `Block`: `x + attn(ln_1(x))`, then `x + mlp(ln_2(x))`.
pub struct Block {
    core: ModuleCore,
    ln_1: Arc<LayerNorm>,
    attn: Arc<CausalSelfAttention>,
    ln_2: Arc<LayerNorm>,
    mlp: Arc<Mlp>,
}

impl Block {
    fn new(c: &GptConfig, seed: u64, device: Device) -> Result<Block> {
        let core = ModuleCore::new();
        let ln_1 = core.register_module("ln_1", layer_norm(c.n_embd, c.bias, device)?)?;
        let attn = core.register_module("attn", CausalSelfAttention::new(c, seed, device)?)?;
        let ln_2 = core.register_module("ln_2", layer_norm(c.n_embd, c.bias, device)?)?;
        let mlp = core.register_module("mlp", Mlp::new(c, seed ^ 0x100, device)?)?;
        Ok(Block { core, ln_1, attn, ln_2, mlp })
    }

    fn step(&self, x: &Tensor, cache: Option<&Cache>) -> Result<(Tensor, Cache)> {
        let (a, cache) = self.attn.attend(&self.ln_1.forward(x)?, cache)?;
        let x = x.add(&a)?;
        let x = x.add(&self.mlp.forward(&self.ln_2.forward(&x)?)?)?;
        Ok((x, cache))
    }
}

impl Module for Block {
    fn core(&self) -> &ModuleCore {
        &self.core
    }
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        Ok(self.step(x, None)?.0)
    }
}

/// nanoGPT's `transformer` ModuleDict: `wte`, `wpe`, `drop`, `h`, `ln_f`, in that order.
pub struct Transformer {
    core: ModuleCore,
    wte: Arc<Embedding>,
    wpe: Arc<Embedding>,
    drop: Arc<Dropout>,
    h: Arc<ModuleList<Block>>,
    ln_f: Arc<LayerNorm>,
}

impl Module for Transformer {
    fn core(&self) -> &ModuleCore {
        &self.core
    }
    fn forward(&self, _x: &Tensor) -> Result<Tensor> {
        Err(Error::invalid("GPT", "the transformer's parts are called by Gpt::forward"))
    }
}

/// Options of [`Gpt::generate`] (nanoGPT's `generate`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenerateOptions {
    /// Logits are divided by it (default 1; below 1 sharper, above flatter).
    pub temperature: f64,
    /// Keep only the `top_k` likeliest tokens (None: all).
    pub top_k: Option<usize>,
    /// Seed of the sampling (None: the global generator).
    pub seed: Option<u64>,
    /// Take the likeliest token instead of sampling (greedy decoding).
    pub greedy: bool,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions { temperature: 1.0, top_k: None, seed: None, greedy: false }
    }
}

/// nanoGPT's GPT.
pub struct Gpt {
    core: ModuleCore,
    config: GptConfig,
    transformer: Arc<Transformer>,
    lm_head: Arc<Linear>,
}

impl Gpt {
    /// A model of `config` with nanoGPT's initial weights from `seed`, on `device`.
    pub fn new(config: GptConfig, seed: u64, device: Device) -> Result<Gpt> {
        config.check()?;
        let c = &config;
        let tcore = ModuleCore::new();
        let emb = |n, s| -> Result<Embedding> {
            let e = Embedding::new(
                n,
                c.n_embd,
                EmbeddingOptions { seed: Some(s), device: Some(device), ..Default::default() },
            )?;
            e.weight().replace(normal(&[n, c.n_embd], 0.02, s, device)?, None)?;
            Ok(e)
        };
        let wte = tcore.register_module("wte", emb(c.vocab_size, seed)?)?;
        let wpe = tcore.register_module("wpe", emb(c.block_size, seed ^ 0x5eed)?)?;
        let drop = tcore.register_module("drop", Dropout::new(c.dropout, Some(seed ^ 0xd0))?)?;
        let mut h = ModuleList::new();
        for i in 0..c.n_layer {
            h.push(Block::new(c, seed.wrapping_add(1000 * (i as u64 + 1)), device)?)?;
        }
        let h = tcore.register_module("h", h)?;
        let ln_f = tcore.register_module("ln_f", layer_norm(c.n_embd, c.bias, device)?)?;
        let transformer = Transformer { core: tcore, wte, wpe, drop, h, ln_f };
        // nanoGPT ties the output layer to the token embedding (wte.weight = lm_head.weight).
        let mut lm_head =
            Linear::new(c.n_embd, c.vocab_size, LinearOptions { bias: false, seed: Some(seed), device: Some(device) })?;
        lm_head.tie_weight(transformer.wte.weight())?;
        let core = ModuleCore::new();
        let transformer = core.register_module("transformer", transformer)?;
        let lm_head = core.register_module("lm_head", lm_head)?;
        Ok(Gpt { core, config, transformer, lm_head })
    }

    /// The config.
    pub fn config(&self) -> &GptConfig {
        &self.config
    }

    /// Parameters, each once; without the position embedding with `non_embedding` (nanoGPT's
    /// `get_num_params`, which counts the tied token embedding as the output layer's).
    pub fn num_parameters(&self, non_embedding: bool) -> usize {
        let all: usize = self.parameters().iter().map(|p| p.shape().iter().product::<usize>()).sum();
        if non_embedding {
            all - self.transformer.wpe.weight().shape().iter().product::<usize>()
        } else {
            all
        }
    }

    /// The hidden states after `ln_f` for token ids `idx` (`[B, T]`, int32), from position
    /// `start` (a cache's length), with the caches of every block.
    fn hidden(&self, idx: &Tensor, start: usize, caches: Option<&[Cache]>) -> Result<(Tensor, Vec<Cache>)> {
        if idx.rank() != 2 {
            return Err(Error::invalid("GPT", format!("idx must be [B, T] token ids, got shape {:?}", idx.shape())));
        }
        let t = idx.shape()[1];
        if start + t > self.config.block_size {
            return Err(Error::invalid(
                "GPT",
                format!(
                    "cannot forward a sequence of length {}, the block size is {}",
                    start + t,
                    self.config.block_size
                ),
            ));
        }
        let tr = &self.transformer;
        let pos = Tensor::arange(start as f64, (start + t) as f64, 1.0, DType::I32, idx.device())?;
        let x = tr.wte.forward(idx)?.add(&tr.wpe.forward(&pos)?)?;
        let mut x = tr.drop.forward(&x)?;
        let mut next = Vec::with_capacity(tr.h.len());
        for (i, block) in tr.h.iter().enumerate() {
            let (y, cache) = block.step(&x, caches.map(|c| &c[i]))?;
            x = y;
            next.push(cache);
        }
        Ok((tr.ln_f.forward(&x)?, next))
    }

    /// nanoGPT's forward: the logits `[B, T, vocab]` and, with `targets` (`[B, T]`, -1 ignored),
    /// the mean cross-entropy.
    pub fn forward_with_targets(&self, idx: &Tensor, targets: Option<&Tensor>) -> Result<(Tensor, Option<Tensor>)> {
        let (x, _) = self.hidden(idx, 0, None)?;
        let logits = self.lm_head.forward(&x)?;
        let loss = match targets {
            Some(t) => {
                let v = self.config.vocab_size as isize;
                let options = ClassLossOptions { ignore_index: Some(-1), ..Default::default() };
                Some(nn::cross_entropy(&logits.view(&[-1, v])?, &t.reshape(&[-1])?, options)?)
            }
            None => None,
        };
        Ok((logits, loss))
    }

    /// nanoGPT's `configure_optimizers`: AdamW over two groups, the 2-D and larger parameters
    /// (matmul weights, embeddings) with `weight_decay` and the rest (biases, LayerNorms) without.
    pub fn configure_optimizers(&self, weight_decay: f64, lr: f64, betas: (f64, f64)) -> Result<AdamW> {
        let base = AdamOptions { lr, betas, ..Default::default() };
        let (decay, no_decay): (Vec<Parameter>, Vec<Parameter>) =
            self.parameters().into_iter().partition(|p| p.shape().len() >= 2);
        AdamW::with_groups(vec![
            ParamGroup { params: decay, options: AdamOptions { weight_decay, ..base } },
            ParamGroup { params: no_decay, options: AdamOptions { weight_decay: 0.0, ..base } },
        ])
    }

    /// The next token for each row of the last logits `[B, vocab]`: the likeliest with
    /// `greedy`, else sampled from softmax(logits / temperature) over the `top_k` likeliest.
    fn pick(logits: &Tensor, o: &GenerateOptions, step: u64) -> Result<Tensor> {
        if o.greedy {
            return logits.argmax(Some(-1), true);
        }
        let mut l = logits.div_scalar(o.temperature)?;
        if let Some(k) = o.top_k {
            let k = k.min(l.shape()[1]).max(1);
            let (v, _) = l.topk(k, -1, true)?;
            let kth = v.narrow(-1, k - 1, 1)?;
            l = l.masked_fill(&l.lt(&kth)?, f64::NEG_INFINITY)?;
        }
        let probs = l.softmax(-1)?;
        probs.multinomial(1, true, o.seed.map(|s| s.wrapping_add(step.wrapping_mul(0x9E37_79B9_7F4A_7C15))))
    }

    /// `max_new_tokens` tokens after `idx` (`[B, T]`, int32), sampled as nanoGPT's `generate`
    /// (temperature, top-k), with a KV cache: each step runs one position through the blocks.
    /// Past the block size the context is cropped to its last `block_size` tokens, and the
    /// cache is rebuilt for it. Returns `[B, T + max_new_tokens]`; nothing is read back.
    pub fn generate(&self, idx: &Tensor, max_new_tokens: usize, options: GenerateOptions) -> Result<Tensor> {
        if !(options.temperature > 0.0 && options.temperature.is_finite()) {
            return Err(Error::invalid(
                "generate",
                format!("temperature must be a finite number > 0, got {}", options.temperature),
            ));
        }
        let _g = crate::tensor::node::pause();
        let bs = self.config.block_size;
        let mut out = idx.clone();
        let mut caches: Option<Vec<Cache>> = None;
        let mut cached = 0usize;
        for step in 0..max_new_tokens {
            let len = out.shape()[1];
            let (x, next) = match &caches {
                // One new position over the cache.
                Some(c) if len <= bs => self.hidden(&out.narrow(1, len - 1, 1)?, cached, Some(c))?,
                // The first step, or a context past the block size: the whole (cropped) window.
                _ => {
                    let from = len.saturating_sub(bs);
                    self.hidden(&out.narrow(1, from, len - from)?, 0, None)?
                }
            };
            cached = next[0].k.shape()[2];
            caches = Some(next);
            let t = x.shape()[1];
            let logits = self.lm_head.forward(&x.narrow(1, t - 1, 1)?)?.squeeze(Some(1))?;
            let token = Self::pick(&logits, &options, step as u64)?.to_dtype(out.dtype())?;
            out = Tensor::cat(&[out, token], 1)?;
        }
        Ok(out)
    }
}

impl Module for Gpt {
    fn core(&self) -> &ModuleCore {
        &self.core
    }

    /// The logits `[B, T, vocab]` for token ids `[B, T]`.
    fn forward(&self, idx: &Tensor) -> Result<Tensor> {
        Ok(self.forward_with_targets(idx, None)?.0)
    }
}
