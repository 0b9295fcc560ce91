// PyTorch's attention modules in JavaScript: nn.MultiheadAttention, nn.TransformerEncoderLayer
// and nn.TransformerDecoderLayer, with PyTorch's parameter names (`in_proj_weight`,
// `out_proj.weight`, `self_attn.*`, `linear1`, `norm1`, ...) so state dicts load both ways, its
// defaults (batchFirst false: [L, N, E]), its mask conventions (a bool `attnMask` or
// `keyPaddingMask` is true where attention is NOT allowed; a float one is added) and its
// initialisation (xavier-uniform in_proj, zero biases).
import * as check from './check.js';
import { full } from './create.js';
import * as F from './functional.js';
import { Dropout, LayerNorm, Linear } from './layers.js';
import { Module, Parameter } from './module.js';
import { constant_, xavierUniform_ } from './nninit.js';
import { rawOf } from './tensor.js';

/** A mask as scores to add: bool true -> -inf (PyTorch's MHA convention), float as it is. */
function additive(mask) {
  return mask.dtype === 'bool' ? full(mask.shape, 0, { device: mask.device }).maskedFill(mask, -Infinity) : mask;
}

/** PyTorch's `nn.MultiheadAttention(embedDim, numHeads, { dropout, bias, batchFirst, seed, device })`. */
export class MultiheadAttention extends Module {
  constructor(embedDim, numHeads, opts) {
    super();
    check.arity('MultiheadAttention', arguments.length, 3);
    const fn = 'MultiheadAttention';
    const o = check.options(fn, opts, ['dropout', 'bias', 'batchFirst', 'seed', 'device']);
    this.embedDim = check.integer(fn, 'embedDim', embedDim, 1);
    this.numHeads = check.integer(fn, 'numHeads', numHeads, 1);
    if (this.embedDim % this.numHeads !== 0) throw new RangeError(`${fn}: embedDim (${this.embedDim}) must be divisible by numHeads (${this.numHeads})`);
    this.dropout = o.dropout === undefined ? 0 : check.number(fn, 'dropout', o.dropout);
    this.batchFirst = check.flag(fn, 'batchFirst', o.batchFirst);
    const bias = check.flag(fn, 'bias', o.bias, true);
    const seed = o.seed === undefined ? undefined : check.integer(fn, 'seed', o.seed, 0);
    const device = check.optDevice(fn, o.device);
    const E = this.embedDim;
    this.in_proj_weight = new Parameter(xavierUniform_(full([3 * E, E], 0, { device }), { seed }));
    this.in_proj_bias = bias ? new Parameter(full([3 * E], 0, { device })) : null;
    this.out_proj = new Linear(E, E, { bias, seed: seed === undefined ? undefined : seed + 1, device });
    if (bias) constant_(this.out_proj.bias, 0);
  }

  /**
   * `[output, weights]` for `query` `[L, N, E]` (`[N, L, E]` with batchFirst) over `key` and
   * `value` `[S, N, E]`: `weights` `[N, L, S]` averaged over the heads (or `[N, H, L, S]`
   * with `averageAttnWeights: false`), null with `needWeights: false`.
   */
  forward(query, key, value, opts) {
    check.arity('MultiheadAttention.forward', arguments.length, 4);
    const fn = 'MultiheadAttention.forward';
    const o = check.options(fn, opts, ['keyPaddingMask', 'needWeights', 'attnMask', 'averageAttnWeights', 'isCausal']);
    [query, key, value].forEach((t, i) => rawOf(fn, ['query', 'key', 'value'][i], t));
    const bf = (t) => (this.batchFirst ? t : t.transpose(0, 1)); // to [N, *, E]
    const [q0, k0, v0] = [bf(query), bf(key), bf(value)];
    const [N, L, E] = q0.shape;
    const S = k0.shape[1];
    const H = this.numHeads;
    const hd = E / H;
    const [wq, wk, wv] = this.in_proj_weight.split(E, 0);
    const [bq, bk, bv] = this.in_proj_bias ? this.in_proj_bias.split(E, 0) : [null, null, null];
    const heads = (t, w, b, len) => F.linear(t, w, b).reshape(N, len, H, hd).transpose(1, 2); // [N, H, len, hd]
    const q = heads(q0, wq, bq, L);
    const k = heads(k0, wk, bk, S);
    const v = heads(v0, wv, bv, S);
    let scores = q.matmul(k.transpose(-2, -1)).mul(1 / Math.sqrt(hd)); // [N, H, L, S]
    if (o.isCausal && (o.attnMask === undefined || o.attnMask === null)) {
      const causal = full([L, S], 1, { device: q.device, dtype: 'bool' }).triu(1);
      scores = scores.add(additive(causal));
    }
    if (o.attnMask !== undefined && o.attnMask !== null) {
      const m = additive(o.attnMask);
      scores = scores.add(m.rank === 3 ? m.reshape(N, H, L, S) : m);
    }
    if (o.keyPaddingMask !== undefined && o.keyPaddingMask !== null) scores = scores.add(additive(o.keyPaddingMask).reshape(N, 1, 1, S));
    const weights = scores.softmax(-1);
    const dropped = F.dropout(weights, { p: this.dropout, training: this.training });
    const y = dropped.matmul(v).transpose(1, 2).reshape(N, L, E);
    const out = this.out_proj.forward(y);
    const output = this.batchFirst ? out : out.transpose(0, 1);
    if (o.needWeights === false) return [output, null];
    // The weights the values were averaged with: after dropout, as PyTorch returns them.
    return [output, o.averageAttnWeights === false ? dropped : dropped.mean(1)];
  }
}

const ACTIVATIONS = { relu: (x) => x.relu(), gelu: (x) => x.gelu() };

/** What the encoder and decoder layers share: the options and the feed-forward block. */
function layerOptions(fn, dModel, nhead, opts) {
  const o = check.options(fn, opts, ['dimFeedforward', 'dropout', 'activation', 'layerNormEps', 'batchFirst', 'normFirst', 'bias', 'seed', 'device']);
  const act = o.activation ?? 'relu';
  if (!(act in ACTIVATIONS) && typeof act !== 'function') check.fail(RangeError, fn, 'activation', act, "'relu', 'gelu' or a function");
  return {
    dModel: check.integer(fn, 'dModel', dModel, 1), nhead: check.integer(fn, 'nhead', nhead, 1),
    ff: o.dimFeedforward === undefined ? 2048 : check.integer(fn, 'dimFeedforward', o.dimFeedforward, 1),
    dropout: o.dropout === undefined ? 0.1 : check.number(fn, 'dropout', o.dropout), act: typeof act === 'function' ? act : ACTIVATIONS[act],
    eps: o.layerNormEps === undefined ? 1e-5 : check.number(fn, 'layerNormEps', o.layerNormEps),
    batchFirst: check.flag(fn, 'batchFirst', o.batchFirst), normFirst: check.flag(fn, 'normFirst', o.normFirst),
    bias: check.flag(fn, 'bias', o.bias, true), seed: o.seed === undefined ? 0 : check.integer(fn, 'seed', o.seed, 0), device: check.optDevice(fn, o.device),
  };
}

/** Registers `linear1`, `dropout`, `linear2` and `norm1..normN` on `m` (PyTorch's names). */
function feedForward(m, c, norms) {
  const o = { bias: c.bias, device: c.device };
  m.linear1 = new Linear(c.dModel, c.ff, { ...o, seed: c.seed + 10 });
  m.dropout = new Dropout(c.dropout);
  m.linear2 = new Linear(c.ff, c.dModel, { ...o, seed: c.seed + 11 });
  for (let i = 1; i <= norms; i++) m[`norm${i}`] = new LayerNorm(c.dModel, { eps: c.eps, bias: c.bias, device: c.device });
  for (let i = 1; i <= norms; i++) m[`dropout${i}`] = new Dropout(c.dropout);
  m.normFirst = c.normFirst;
  m.activation = c.act;
}

function ffBlock(m, x) {
  return m[`dropout${m.norms}`].forward(m.linear2.forward(m.dropout.forward(m.activation(m.linear1.forward(x)))));
}

/** PyTorch's `nn.TransformerEncoderLayer(dModel, nhead, { dimFeedforward, dropout, activation, layerNormEps, batchFirst, normFirst, bias })`. */
export class TransformerEncoderLayer extends Module {
  constructor(dModel, nhead, opts) {
    super();
    check.arity('TransformerEncoderLayer', arguments.length, 3);
    const c = layerOptions('TransformerEncoderLayer', dModel, nhead, opts);
    this.self_attn = new MultiheadAttention(c.dModel, c.nhead, { dropout: c.dropout, bias: c.bias, batchFirst: c.batchFirst, seed: c.seed, device: c.device });
    feedForward(this, c, 2);
    this.norms = 2;
  }
  /** `src` through self-attention (`srcMask`, `srcKeyPaddingMask`, `isCausal`) and the feed-forward block. */
  forward(src, opts) {
    check.arity('TransformerEncoderLayer.forward', arguments.length, 2);
    const o = check.options('TransformerEncoderLayer.forward', opts, ['srcMask', 'srcKeyPaddingMask', 'isCausal']);
    const sa = (x) => this.dropout1.forward(this.self_attn.forward(x, x, x, { attnMask: o.srcMask, keyPaddingMask: o.srcKeyPaddingMask, isCausal: o.isCausal, needWeights: false })[0]);
    let x = src;
    if (this.normFirst) {
      x = x.add(sa(this.norm1.forward(x)));
      return x.add(ffBlock(this, this.norm2.forward(x)));
    }
    x = this.norm1.forward(x.add(sa(x)));
    return this.norm2.forward(x.add(ffBlock(this, x)));
  }
}

/** PyTorch's `nn.TransformerDecoderLayer(dModel, nhead, { ... })`: self-attention, attention over `memory`, feed-forward. */
export class TransformerDecoderLayer extends Module {
  constructor(dModel, nhead, opts) {
    super();
    check.arity('TransformerDecoderLayer', arguments.length, 3);
    const c = layerOptions('TransformerDecoderLayer', dModel, nhead, opts);
    const mha = (s) => new MultiheadAttention(c.dModel, c.nhead, { dropout: c.dropout, bias: c.bias, batchFirst: c.batchFirst, seed: s, device: c.device });
    this.self_attn = mha(c.seed);
    this.multihead_attn = mha(c.seed + 5);
    feedForward(this, c, 3);
    this.norms = 3;
  }
  /** `tgt` through self-attention (`tgtMask`, `tgtKeyPaddingMask`), attention over `memory` (`memoryMask`, `memoryKeyPaddingMask`) and feed-forward. */
  forward(tgt, memory, opts) {
    check.arity('TransformerDecoderLayer.forward', arguments.length, 3);
    const o = check.options('TransformerDecoderLayer.forward', opts, ['tgtMask', 'memoryMask', 'tgtKeyPaddingMask', 'memoryKeyPaddingMask', 'tgtIsCausal']);
    rawOf('TransformerDecoderLayer.forward', 'memory', memory);
    const sa = (x) => this.dropout1.forward(this.self_attn.forward(x, x, x, { attnMask: o.tgtMask, keyPaddingMask: o.tgtKeyPaddingMask, isCausal: o.tgtIsCausal, needWeights: false })[0]);
    const ca = (x) => this.dropout2.forward(this.multihead_attn.forward(x, memory, memory, { attnMask: o.memoryMask, keyPaddingMask: o.memoryKeyPaddingMask, needWeights: false })[0]);
    let x = tgt;
    if (this.normFirst) {
      x = x.add(sa(this.norm1.forward(x)));
      x = x.add(ca(this.norm2.forward(x)));
      return x.add(ffBlock(this, this.norm3.forward(x)));
    }
    x = this.norm1.forward(x.add(sa(x)));
    x = this.norm2.forward(x.add(ca(x)));
    return this.norm3.forward(x.add(ffBlock(this, x)));
  }
}
