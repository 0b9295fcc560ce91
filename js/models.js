// wt.models: complete models written with the public API as a user would. GPT is nanoGPT's
// model.py in JavaScript: the same modules, names (state-dict keys such as
// `transformer.h.0.attn.c_attn.weight`), tying, initial weights (normal, std 0.02; the residual
// projections 0.02 / sqrt(2 nLayer)) and forward; `generate` keeps a KV cache so each new token
// runs one position through the blocks.
import * as check from './check.js';
import { arange, cat, randn } from './create.js';
import { scoped, tidy } from './scope.js';
import { Dropout, Embedding, LayerNorm, Linear, ModuleDict, ModuleList } from './layers.js';
import { Module } from './module.js';
import * as F from './functional.js';
import { rawOf } from './tensor.js';

/** `t`'s weight (and bias) re-drawn as nanoGPT's `_init_weights`: normal(0, std), bias zero. */
function initLinear(layer, std, seed) {
  const device = layer.weight.device;
  layer.weight = randn(layer.weight.shape, { device, seed }).mul(std).detach();
  if (layer.bias) layer.bias = layer.bias.mul(0).detach();
  return layer;
}

class CausalSelfAttention extends Module {
  constructor(c, seed) {
    super();
    const o = { bias: c.bias, device: c.device };
    this.c_attn = initLinear(new Linear(c.nEmbd, 3 * c.nEmbd, { ...o, seed }), 0.02, seed);
    this.c_proj = initLinear(new Linear(c.nEmbd, c.nEmbd, { ...o, seed: seed + 1 }), 0.02 / Math.sqrt(2 * c.nLayer), seed + 1);
    this.resid_dropout = new Dropout(c.dropout, { seed: seed + 2 });
    this.nHead = c.nHead;
    this.dropout = c.dropout;
  }

  /** `[B, T, C]` as heads `[B, nh, T, C / nh]`: a view of the projection's split (PyTorch's rule). */
  #heads(x) {
    const [B, T, C] = x.shape;
    return x.view(B, T, this.nHead, C / this.nHead).transpose(1, 2);
  }

  /**
   * Attention of `x` over itself (causal), or of the new positions over `cache` and themselves;
   * returns `[y, { k, v }]` (the cache's new keys and values).
   */
  attend(x, cache) {
    return scoped(() => this.#attend(x, cache));
  }

  #attend(x, cache) {
    const [B, T, C] = x.shape;
    const [q, k0, v0] = this.c_attn.forward(x).split(C, 2).map((t) => this.#heads(t));
    const k = cache ? cat([cache.k, k0], 2) : k0;
    const v = cache ? cat([cache.v, v0], 2) : v0;
    // One new position over a cache sees every key: no mask.
    const isCausal = !cache;
    const y = F.scaledDotProductAttention(q, k, v, { isCausal, dropoutP: this.training ? this.dropout : 0 });
    const out = this.resid_dropout.forward(this.c_proj.forward(y.transpose(1, 2).contiguous().view(B, T, C)));
    return [out, { k, v }];
  }

  forward(x) { return this.attend(x, null)[0]; }
}

class MLP extends Module {
  constructor(c, seed) {
    super();
    const o = { bias: c.bias, device: c.device };
    this.c_fc = initLinear(new Linear(c.nEmbd, 4 * c.nEmbd, { ...o, seed }), 0.02, seed);
    this.c_proj = initLinear(new Linear(4 * c.nEmbd, c.nEmbd, { ...o, seed: seed + 1 }), 0.02 / Math.sqrt(2 * c.nLayer), seed + 1);
    this.dropout = new Dropout(c.dropout, { seed: seed + 2 });
  }
  // nanoGPT's nn.GELU() is the exact (erf) form.
  forward(x) { return scoped(() => this.dropout.forward(this.c_proj.forward(this.c_fc.forward(x).gelu()))); }
}

class Block extends Module {
  constructor(c, seed) {
    super();
    this.ln_1 = new LayerNorm(c.nEmbd, { bias: c.bias, device: c.device });
    this.attn = new CausalSelfAttention(c, seed);
    this.ln_2 = new LayerNorm(c.nEmbd, { bias: c.bias, device: c.device });
    this.mlp = new MLP(c, seed + 100);
  }
  step(x, cache) {
    return scoped(() => {
      const [a, next] = this.attn.attend(this.ln_1.forward(x), cache);
      const h = x.add(a);
      return [h.add(this.mlp.forward(this.ln_2.forward(h))), next];
    });
  }
  forward(x) { return this.step(x, null)[0]; }
}

const KEYS = ['vocabSize', 'blockSize', 'nLayer', 'nHead', 'nEmbd', 'dropout', 'bias', 'seed', 'device'];

/**
 * nanoGPT's GPT: `new GPT({ vocabSize, blockSize, nLayer, nHead, nEmbd, dropout, bias, seed,
 * device })`. `forward(idx, targets)` gives `{ logits, loss }` (loss when targets are given,
 * -1 ignored); `generate(idx, n, { temperature, topK, seed })` resolves to the extended ids.
 */
export class GPT extends Module {
  constructor(config) {
    super();
    check.arity('GPT', arguments.length, 1);
    const o = check.options('GPT', config, KEYS);
    const need = (k, min = 1) => check.integer('GPT', k, o[k], min, 2 ** 31 - 1);
    const c = {
      vocabSize: need('vocabSize'), blockSize: need('blockSize'), nLayer: need('nLayer'), nHead: need('nHead'), nEmbd: need('nEmbd'),
      dropout: o.dropout === undefined ? 0 : check.number('GPT', 'dropout', o.dropout),
      bias: check.flag('GPT', 'bias', o.bias, true), device: check.optDevice('GPT', o.device),
    };
    if (c.nEmbd % c.nHead !== 0) throw new RangeError(`GPT: nEmbd (${c.nEmbd}) must be a multiple of nHead (${c.nHead})`);
    if (!(c.dropout >= 0 && c.dropout < 1)) check.fail(RangeError, 'GPT', 'dropout', c.dropout, 'a number in [0, 1)');
    const seed = o.seed === undefined ? 0 : check.integer('GPT', 'seed', o.seed, 0);
    this.config = Object.freeze({ ...c });
    const emb = (n, s) => {
      const e = new Embedding(n, c.nEmbd, { seed: s, device: c.device });
      e.weight = randn([n, c.nEmbd], { device: c.device, seed: s }).mul(0.02).detach();
      return e;
    };
    this.transformer = new ModuleDict({
      wte: emb(c.vocabSize, seed),
      wpe: emb(c.blockSize, seed + 7),
      drop: new Dropout(c.dropout, { seed: seed + 11 }),
      h: new ModuleList(Array.from({ length: c.nLayer }, (_, i) => new Block(c, seed + 1000 * (i + 1)))),
      ln_f: new LayerNorm(c.nEmbd, { bias: c.bias, device: c.device }),
    });
    this.lm_head = new Linear(c.nEmbd, c.vocabSize, { bias: false, device: c.device });
    // nanoGPT's tying: one table for the token embedding and the output layer.
    this.lm_head.weight = this.transformer.get('wte').weight;
  }

  /** Parameters, each once (nanoGPT's `get_num_params`; without the position embedding by default). */
  numParameters(nonEmbedding = true) {
    const count = (t) => t.shape.reduce((a, b) => a * b, 1);
    const all = this.parameters().reduce((s, p) => s + count(p), 0);
    return nonEmbedding ? all - count(this.transformer.get('wpe').weight) : all;
  }

  /** The hidden states of `idx` from position `start`, through the blocks with `caches`. */
  #hidden(idx, start, caches) {
    rawOf('GPT.forward', 'idx', idx);
    if (idx.rank !== 2) throw new RangeError(`GPT.forward: idx must be [B, T] token ids, got shape [${idx.shape}]`);
    const T = idx.shape[1];
    if (start + T > this.config.blockSize) throw new RangeError(`GPT.forward: cannot forward a sequence of length ${start + T}, the block size is ${this.config.blockSize}`);
    const t = this.transformer;
    const pos = arange(start, start + T, { device: idx.device, dtype: 'int32' });
    let x = t.get('drop').forward(t.get('wte').forward(idx).add(t.get('wpe').forward(pos)));
    const next = [];
    for (const [i, block] of [...t.get('h')].entries()) {
      const [y, cache] = block.step(x, caches ? caches[i] : null);
      x = y;
      next.push(cache);
    }
    return [t.get('ln_f').forward(x), next];
  }

  /** nanoGPT's forward: `{ logits: [B, T, vocab], loss }` (loss null without targets). */
  forward(idx, targets) {
    check.arity('GPT.forward', arguments.length, 2);
    return scoped(() => this.#forward(idx, targets));
  }

  #forward(idx, targets) {
    const [x] = this.#hidden(idx, 0, null);
    const logits = this.lm_head.forward(x);
    if (targets === undefined || targets === null) return { logits, loss: null };
    rawOf('GPT.forward', 'targets', targets);
    const loss = F.crossEntropy(logits.view(-1, this.config.vocabSize), targets.reshape(-1), { ignoreIndex: -1 });
    return { logits, loss };
  }

  /**
   * `maxNewTokens` ids after `idx` (`[B, T]` int32), sampled as nanoGPT's `generate` (softmax of
   * the logits over `temperature`, among the `topK` likeliest; `greedy` takes the likeliest),
   * seeded with `seed`. A KV cache makes each step one position's work; past the block size the
   * context is cropped and the cache rebuilt. Resolves to `[B, T + maxNewTokens]`.
   */
  async generate(idx, maxNewTokens, opts) {
    check.arity('GPT.generate', arguments.length, 3);
    const fn = 'GPT.generate';
    rawOf(fn, 'idx', idx);
    const n = check.integer(fn, 'maxNewTokens', maxNewTokens, 0, 2 ** 31 - 1);
    const o = check.options(fn, opts, ['temperature', 'topK', 'seed', 'greedy']);
    const temperature = o.temperature === undefined ? 1 : check.number(fn, 'temperature', o.temperature);
    if (!(temperature > 0 && Number.isFinite(temperature))) check.fail(RangeError, fn, 'temperature', temperature, 'a finite number > 0');
    const topK = o.topK === undefined || o.topK === null ? null : check.integer(fn, 'topK', o.topK, 1);
    const seed = o.seed === undefined || o.seed === null ? undefined : check.integer(fn, 'seed', o.seed, 0);
    const greedy = check.flag(fn, 'greedy', o.greedy);
    const bs = this.config.blockSize;
    let out = idx.clone();
    let caches = null;
    let cached = 0;
    const dropCaches = () => caches?.forEach((c) => { c.k.dispose(); c.v.dispose(); });
    try {
      for (let step = 0; step < n; step++) {
        const len = out.shape[1];
        const [next, token] = tidy(() => {
          const useCache = caches && len <= bs;
          const from = Math.max(0, len - bs);
          const input = useCache ? out.narrow(1, len - 1, 1) : out.narrow(1, from, len - from);
          const [x, cs] = this.#hidden(input, useCache ? cached : 0, useCache ? caches : null);
          const logits = this.lm_head.forward(x.narrow(1, x.shape[1] - 1, 1)).squeeze(1);
          return [cs, pick(logits, { temperature, topK, greedy, seed: seed === undefined ? undefined : (seed + step * 7919) % 2 ** 52 })];
        });
        dropCaches();
        caches = next;
        cached = caches[0].k.shape[2];
        const grown = cat([out, token.toDtype(out.dtype)], 1);
        out.dispose();
        token.dispose();
        out = grown;
        // Yield now and then: the page stays responsive and Dawn reclaims memory.
        if (step % 16 === 15) await new Promise((r) => setTimeout(r, 0));
      }
    } finally {
      dropCaches();
    }
    return out;
  }
}

/** The next token of each row of `logits` (`[B, vocab]`), as `[B, 1]`. */
function pick(logits, o) {
  if (o.greedy) return logits.argmax(-1, true);
  let l = logits.div(o.temperature);
  if (o.topK !== null) {
    const k = Math.min(o.topK, l.shape[1]);
    const kth = l.topk(k, -1).values.narrow(-1, k - 1, 1);
    l = l.maskedFill(l.lt(kth), -Infinity);
  }
  return l.softmax(-1).multinomial(1, { replacement: true, ...(o.seed === undefined ? {} : { seed: o.seed }) });
}

