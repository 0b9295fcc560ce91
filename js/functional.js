// wt.nn.functional: PyTorch's torch.nn.functional in JavaScript spelling. Every function checks
// its arguments and calls the Rust function the Rust modules run (src/wasm/nn.rs), so layers,
// losses and their gradients are the same code in both languages.
import * as check from './check.js';
import { core } from './internal.js';
import { eps, momentum, ownRaws, paddingIndex, probability, takeBatchNorm } from './nnargs.js';
import { rawOf, Tensor } from './tensor.js';

export * from './modelops.js';

const REDUCTIONS = ['mean', 'sum', 'none'];
function reduction(fn, v) {
  if (v === undefined) return 'mean';
  if (!REDUCTIONS.includes(v)) check.fail(TypeError, fn, 'reduction', v, "'mean', 'sum' or 'none'");
  return v;
}

function normalizedShape(fn, v) {
  return check.shape(fn, typeof v === 'number' ? [v] : v, 'normalizedShape');
}

/** `x W^T + b` for `weight` `[out, in]` and an optional `bias` `[out]` (PyTorch's `F.linear`). */
export function linear(input, weight, bias) {
  check.arity('linear', arguments.length, 3);
  const fn = 'linear';
  const [x, w] = [rawOf(fn, 'input', input), rawOf(fn, 'weight', weight)];
  return new Tensor(core().nnLinear(x, w, ...ownRaws(fn, [['bias', bias]])));
}

/** Rows of `weight` at the integer `input` (PyTorch's `F.embedding`); `paddingIdx`'s row (negative counts from the end) gets no gradient. */
export function embedding(input, weight, opts) {
  check.arity('embedding', arguments.length, 3);
  const fn = 'embedding';
  const o = check.options(fn, opts, ['paddingIdx']);
  const [x, w] = [rawOf(fn, 'input', input), rawOf(fn, 'weight', weight)];
  const pad = paddingIndex(fn, o.paddingIdx, weight.shape[0] ?? 0);
  return new Tensor(core().nnEmbedding(x, w, pad ?? undefined));
}

/** Layer normalisation over the trailing `normalizedShape` dims, with optional `weight` and `bias` of that shape. */
export function layerNorm(input, shape, opts) {
  check.arity('layerNorm', arguments.length, 3);
  const fn = 'layerNorm';
  const o = check.options(fn, opts, ['weight', 'bias', 'eps']);
  const s = normalizedShape(fn, shape);
  const e = eps(fn, o.eps);
  // Handles the callee owns are made last: a check failing after them would leak them.
  const x = rawOf(fn, 'input', input);
  return new Tensor(core().nnLayerNorm(x, Float64Array.from(s), ...ownRaws(fn, [['weight', o.weight], ['bias', o.bias]]), e));
}

/** Group normalisation of `[N, C, *]` input over `numGroups` groups of channels. */
export function groupNorm(input, numGroups, opts) {
  check.arity('groupNorm', arguments.length, 3);
  const fn = 'groupNorm';
  const o = check.options(fn, opts, ['weight', 'bias', 'eps']);
  const g = check.integer(fn, 'numGroups', numGroups, 1);
  const e = eps(fn, o.eps);
  const x = rawOf(fn, 'input', input);
  return new Tensor(core().nnGroupNorm(x, g, ...ownRaws(fn, [['weight', o.weight], ['bias', o.bias]]), e));
}

/**
 * Batch normalisation of `[N, C, *]` input (PyTorch's `F.batch_norm`): with `training`, by the
 * batch's statistics, and `runningMean`/`runningVar` (if given) are updated in place;
 * otherwise by the running statistics, which evaluation needs.
 */
export function batchNorm(input, runningMean, runningVar, opts) {
  check.arity('batchNorm', arguments.length, 4);
  const fn = 'batchNorm';
  const o = check.options(fn, opts, ['weight', 'bias', 'training', 'momentum', 'eps']);
  const training = check.flag(fn, 'training', o.training, false);
  const [m, e] = [momentum(fn, o.momentum, false), eps(fn, o.eps)];
  const x = rawOf(fn, 'input', input);
  const [rm, rv, w, b] = ownRaws(fn, [['runningMean', runningMean], ['runningVar', runningVar], ['weight', o.weight], ['bias', o.bias]]);
  const out = core().nnBatchNorm(x, rm, rv, undefined, w, b, { module: 'batch_norm', training, momentum: m, eps: e });
  return takeBatchNorm(out, [runningMean, runningVar]);
}

/**
 * Zeroes each element with probability `p` (default 0.5) while `training` (default true) and
 * scales the rest by `1 / (1 - p)`, as PyTorch's `F.dropout`; `seed` makes the mask reproducible.
 */
export function dropout(input, opts) {
  check.arity('dropout', arguments.length, 2);
  const fn = 'dropout';
  const o = check.options(fn, opts, ['p', 'training', 'seed']);
  const p = probability(fn, o.p);
  const seed = o.seed === undefined || o.seed === null ? undefined : check.integer(fn, 'seed', o.seed, 0);
  return new Tensor(core().nnDropout(rawOf(fn, 'input', input), p, check.flag(fn, 'training', o.training, true), seed, undefined));
}

function classLoss(fn, kind, input, target, opts, smoothing) {
  const o = check.options(fn, opts, smoothing ? ['reduction', 'ignoreIndex', 'labelSmoothing'] : ['reduction', 'ignoreIndex']);
  const ignore = o.ignoreIndex === undefined || o.ignoreIndex === null ? undefined : check.integer(fn, 'ignoreIndex', o.ignoreIndex, -(2 ** 31), 2 ** 31 - 1);
  let ls = 0;
  if (o.labelSmoothing !== undefined) {
    ls = check.number(fn, 'labelSmoothing', o.labelSmoothing);
    if (!(ls >= 0 && ls <= 1)) check.fail(RangeError, fn, 'labelSmoothing', o.labelSmoothing, 'a number in [0, 1]');
  }
  return new Tensor(core().nnLoss(kind, rawOf(fn, 'input', input), rawOf(fn, 'target', target), reduction(fn, o.reduction), ignore, ls));
}

function pairLoss(fn, kind, input, target, opts) {
  const o = check.options(fn, opts, ['reduction']);
  return new Tensor(core().nnLoss(kind, rawOf(fn, 'input', input), rawOf(fn, 'target', target), reduction(fn, o.reduction), undefined, 0));
}

/**
 * Cross-entropy of logits `[N, C]`, `[C]` or `[N, C, d...]` (classes along dim 1) against int32
 * class indices (the input's shape without dim 1) or class probabilities (a float tensor of the
 * input's shape), as PyTorch's `F.cross_entropy`: `reduction` ('mean' | 'sum' | 'none'),
 * `ignoreIndex` (targets equal to it count for nothing; PyTorch's default -100), `labelSmoothing`.
 * A class index out of range is an error on every device (on a GPU, at the next `data()`,
 * `item()` or `synchronize`, as PyTorch's device-side assert).
 */
export function crossEntropy(input, target, opts) { check.arity('crossEntropy', arguments.length, 3); return classLoss('crossEntropy', 'cross_entropy', input, target, opts, true); }
/** Negative log-likelihood of log-probabilities against int32 class indices (PyTorch's `F.nll_loss`; `ignoreIndex` -100 by default). */
export function nllLoss(input, target, opts) { check.arity('nllLoss', arguments.length, 3); return classLoss('nllLoss', 'nll_loss', input, target, opts, false); }
/** Mean squared error (PyTorch's `F.mse_loss`). */
export function mseLoss(input, target, opts) { check.arity('mseLoss', arguments.length, 3); return pairLoss('mseLoss', 'mse_loss', input, target, opts); }
/** Mean absolute error (PyTorch's `F.l1_loss`). */
export function l1Loss(input, target, opts) { check.arity('l1Loss', arguments.length, 3); return pairLoss('l1Loss', 'l1_loss', input, target, opts); }
/** Binary cross-entropy of logits against targets in [0, 1], computed stably (PyTorch's `F.binary_cross_entropy_with_logits`). */
export function binaryCrossEntropyWithLogits(input, target, opts) {
  check.arity('binaryCrossEntropyWithLogits', arguments.length, 3);
  return pairLoss('binaryCrossEntropyWithLogits', 'binary_cross_entropy_with_logits', input, target, opts);
}

const unary = (fn, method) => (...args) => {
  check.arity(fn, args.length, 1);
  rawOf(fn, 'input', args[0]);
  return args[0][method]();
};
/** `max(x, 0)`. */
export const relu = unary('relu', 'relu');
/** GELU: the exact (erf) form, or its tanh form with `{ approximate: 'tanh' }` (PyTorch's `F.gelu`). */
export function gelu(input, opts) {
  check.arity('gelu', arguments.length, 2);
  rawOf('gelu', 'input', input);
  return input.gelu(opts);
}
/** `x * sigmoid(x)`. */
export const silu = unary('silu', 'silu');
/** Hyperbolic tangent. */
export const tanh = unary('tanh', 'tanh');
/** Logistic sigmoid. */
export const sigmoid = unary('sigmoid', 'sigmoid');
/** `x * tanh(softplus(x))`. */
export const mish = unary('mish', 'mish');
/** `x * relu6(x + 3) / 6`. */
export const hardswish = unary('hardswish', 'hardswish');
/** `relu6(x + 3) / 6`. */
export const hardsigmoid = unary('hardsigmoid', 'hardsigmoid');
/** `log(1 + e^(beta x)) / beta`, `x` past the threshold (PyTorch's `F.softplus`; beta 1, threshold 20). */
export function softplus(input, opts) {
  check.arity('softplus', arguments.length, 2);
  rawOf('softplus', 'input', input);
  return input.softplus(opts);
}
/** `x` where positive, `negativeSlope * x` elsewhere (PyTorch's `F.leaky_relu`; default 0.01). */
export function leakyRelu(input, negativeSlope = 0.01) {
  check.arity('leakyRelu', arguments.length, 2);
  rawOf('leakyRelu', 'input', input);
  return input.leakyRelu(negativeSlope);
}
/** `x` where positive, `weight * x` elsewhere, one slope or one per channel (PyTorch's `F.prelu`). */
export function prelu(input, weight) {
  check.arity('prelu', arguments.length, 2);
  rawOf('prelu', 'input', input);
  return input.prelu(weight);
}
/** `x` where positive, `alpha * (e^x - 1)` elsewhere (PyTorch's `F.elu`; default 1). */
export function elu(input, alpha = 1) {
  check.arity('elu', arguments.length, 2);
  rawOf('elu', 'input', input);
  return input.elu(alpha);
}
/** Softmax over `dim` (default -1). */
export function softmax(input, dim = -1) {
  check.arity('softmax', arguments.length, 2);
  rawOf('softmax', 'input', input);
  return input.softmax(dim);
}
/** Log-softmax over `dim` (default -1). */
export function logSoftmax(input, dim = -1) {
  check.arity('logSoftmax', arguments.length, 2);
  rawOf('logSoftmax', 'input', input);
  return input.logSoftmax(dim);
}
