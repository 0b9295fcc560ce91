// The model ops of wt.nn.functional (re-exported by functional.js): convolution, pooling,
// padding, interpolation, attention and oneHot, PyTorch's F.* in JavaScript spelling. Each
// checks its arguments' types and calls the Rust function the Rust API runs (src/wasm/nn_ops.rs).
import * as check from './check.js';
import { core } from './internal.js';
import { ints, ownRaws, probability } from './nnargs.js';
import { rawOf, Tensor } from './tensor.js';

function conv(fn, op, input, weight, bias, opts) {
  const o = check.options(fn, opts, ['stride', 'padding', 'dilation', 'groups']);
  const stride = ints(fn, 'stride', o.stride, [1]);
  const dilation = ints(fn, 'dilation', o.dilation, [1]);
  const groups = o.groups === undefined ? 1 : check.integer(fn, 'groups', o.groups, 1, 2 ** 31 - 1);
  let padding = [0];
  let mode;
  if (o.padding === 'same' || o.padding === 'valid') mode = o.padding;
  else if (typeof o.padding === 'string') check.fail(RangeError, fn, 'padding', o.padding, "'same', 'valid', an integer or an array of integers");
  else padding = ints(fn, 'padding', o.padding, [0]);
  const [x, w] = [rawOf(fn, 'input', input), rawOf(fn, 'weight', weight)];
  const [b] = ownRaws(fn, [['bias', bias]]);
  return new Tensor(core().nnConv(op, x, w, b, { stride, padding, paddingMode: mode, dilation, groups }));
}

/** 2-D convolution of `[N, C, H, W]` (or `[C, H, W]`) by `weight` `[O, C/groups, kh, kw]`, optional `bias` `[O]`; options `stride`, `padding` (numbers, 'same' or 'valid'), `dilation`, `groups`. */
export function conv2d(input, weight, bias, opts) { check.arity('conv2d', arguments.length, 4); return conv('conv2d', 'conv2d', input, weight, bias, opts); }
/** 1-D convolution of `[N, C, L]` (or `[C, L]`) by `weight` `[O, C/groups, k]`. */
export function conv1d(input, weight, bias, opts) { check.arity('conv1d', arguments.length, 4); return conv('conv1d', 'conv1d', input, weight, bias, opts); }

function convTranspose(fn, op, input, weight, bias, opts) {
  const o = check.options(fn, opts, ['stride', 'padding', 'outputPadding', 'groups', 'dilation']);
  const arr = (k, d) => Float64Array.from(ints(fn, k, o[k], d));
  const groups = o.groups === undefined ? 1 : check.integer(fn, 'groups', o.groups, 1, 2 ** 31 - 1);
  const [stride, padding, outputPadding, dilation] = [arr('stride', [1]), arr('padding', [0]), arr('outputPadding', [0]), arr('dilation', [1])];
  const [x, w] = [rawOf(fn, 'input', input), rawOf(fn, 'weight', weight)];
  const [b] = ownRaws(fn, [['bias', bias]]);
  return new Tensor(core().nnConvTranspose(op, x, w, b, { stride, padding, outputPadding, groups, dilation }));
}

/** 2-D transposed convolution of `[N, Cin, H, W]` by `weight` `[Cin, Cout/groups, kh, kw]`; options `stride`, `padding`, `outputPadding`, `groups`, `dilation`. */
export function convTranspose2d(input, weight, bias, opts) { check.arity('convTranspose2d', arguments.length, 4); return convTranspose('convTranspose2d', 'conv_transpose2d', input, weight, bias, opts); }
/** 1-D transposed convolution of `[N, Cin, L]` by `weight` `[Cin, Cout/groups, k]`. */
export function convTranspose1d(input, weight, bias, opts) { check.arity('convTranspose1d', arguments.length, 4); return convTranspose('convTranspose1d', 'conv_transpose1d', input, weight, bias, opts); }

function maxPool(fn, op, input, kernelSize, opts) {
  const o = check.options(fn, opts, ['stride', 'padding', 'dilation', 'ceilMode', 'returnIndices']);
  const k = Float64Array.from(ints(fn, 'kernelSize', kernelSize));
  const arr = (key, d) => Float64Array.from(ints(fn, key, o[key], d));
  const ceil = check.flag(fn, 'ceilMode', o.ceilMode, false);
  const indices = check.flag(fn, 'returnIndices', o.returnIndices, false);
  const [v, i] = core().nnMaxPool(op, rawOf(fn, 'input', input), k, {
    stride: arr('stride', []), padding: arr('padding', [0]), dilation: arr('dilation', [1]), ceilMode: ceil, returnIndices: indices,
  });
  return indices ? [new Tensor(v), new Tensor(i)] : new Tensor(v);
}

/** 2-D max pooling of `[N, C, H, W]` (or `[C, H, W]`); options `stride` (default the kernel), `padding`, `dilation`, `ceilMode`, `returnIndices` (then `[values, indices]`, int32 flat indices in each input plane). */
export function maxPool2d(input, kernelSize, opts) { check.arity('maxPool2d', arguments.length, 3); return maxPool('maxPool2d', 'max_pool2d', input, kernelSize, opts); }
/** 1-D max pooling of `[N, C, L]` (or `[C, L]`). */
export function maxPool1d(input, kernelSize, opts) { check.arity('maxPool1d', arguments.length, 3); return maxPool('maxPool1d', 'max_pool1d', input, kernelSize, opts); }

function avgPool(fn, op, input, kernelSize, opts) {
  const o = check.options(fn, opts, ['stride', 'padding', 'ceilMode', 'countIncludePad', 'divisorOverride']);
  const k = Float64Array.from(ints(fn, 'kernelSize', kernelSize));
  const arr = (key, d) => Float64Array.from(ints(fn, key, o[key], d));
  const div = o.divisorOverride === undefined || o.divisorOverride === null ? undefined : check.integer(fn, 'divisorOverride', o.divisorOverride, 1, 2 ** 31 - 1);
  return new Tensor(core().nnAvgPool(op, rawOf(fn, 'input', input), k, {
    stride: arr('stride', []), padding: arr('padding', [0]), ceilMode: check.flag(fn, 'ceilMode', o.ceilMode, false),
    countIncludePad: check.flag(fn, 'countIncludePad', o.countIncludePad, true), divisorOverride: div,
  }));
}

/** 2-D average pooling; options `stride`, `padding`, `ceilMode`, `countIncludePad` (default true), `divisorOverride`. */
export function avgPool2d(input, kernelSize, opts) { check.arity('avgPool2d', arguments.length, 3); return avgPool('avgPool2d', 'avg_pool2d', input, kernelSize, opts); }
/** 1-D average pooling. */
export function avgPool1d(input, kernelSize, opts) { check.arity('avgPool1d', arguments.length, 3); return avgPool('avgPool1d', 'avg_pool1d', input, kernelSize, opts); }

/** 2-D adaptive average pooling to `outputSize` (one number or `[oh, ow]`). */
export function adaptiveAvgPool2d(input, outputSize) {
  check.arity('adaptiveAvgPool2d', arguments.length, 2);
  const fn = 'adaptiveAvgPool2d';
  return new Tensor(core().nnAdaptiveAvgPool('adaptive_avg_pool2d', rawOf(fn, 'input', input), Float64Array.from(ints(fn, 'outputSize', outputSize))));
}
/** 1-D adaptive average pooling to `outputSize`. */
export function adaptiveAvgPool1d(input, outputSize) {
  check.arity('adaptiveAvgPool1d', arguments.length, 2);
  const fn = 'adaptiveAvgPool1d';
  return new Tensor(core().nnAdaptiveAvgPool('adaptive_avg_pool1d', rawOf(fn, 'input', input), Float64Array.from(ints(fn, 'outputSize', outputSize))));
}

const PAD_MODES = ['constant', 'reflect', 'replicate', 'circular'];
/** Pads the last dims (PyTorch's `F.pad`): `pad` holds (before, after) pairs from the last dim; `mode` 'constant' (negative pads crop), 'reflect', 'replicate' or 'circular'; `value` fills constant padding. */
export function pad(input, padding, mode = 'constant', value = 0) {
  check.arity('pad', arguments.length, 4);
  const fn = 'pad';
  if (!Array.isArray(padding)) check.fail(TypeError, fn, 'pad', padding, 'an array of (before, after) integer pairs');
  const p = padding.map((v, i) => check.integer(fn, `pad[${i}]`, v, -(2 ** 31 - 1), 2 ** 31 - 1));
  if (!PAD_MODES.includes(mode)) check.fail(RangeError, fn, 'mode', mode, PAD_MODES.map((m) => `'${m}'`).join(', '));
  return new Tensor(core().nnPad(rawOf(fn, 'input', input), Float64Array.from(p), mode, check.number(fn, 'value', value)));
}

const INTERP_MODES = ['nearest', 'linear', 'bilinear'];
/** Resizes `[N, C, L]` or `[N, C, H, W]` input: exactly one of `size` and `scaleFactor`, `mode` 'nearest' (default), 'linear' or 'bilinear', `alignCorners` for the linear modes. */
export function interpolate(input, opts) {
  check.arity('interpolate', arguments.length, 2);
  const fn = 'interpolate';
  const o = check.options(fn, opts, ['size', 'scaleFactor', 'mode', 'alignCorners']);
  const mode = o.mode ?? 'nearest';
  if (!INTERP_MODES.includes(mode)) check.fail(RangeError, fn, 'mode', mode, INTERP_MODES.map((m) => `'${m}'`).join(', '));
  const size = o.size === undefined || o.size === null ? undefined : Float64Array.from(ints(fn, 'size', o.size));
  let scale;
  if (o.scaleFactor !== undefined && o.scaleFactor !== null) {
    const s = typeof o.scaleFactor === 'number' ? [o.scaleFactor] : o.scaleFactor;
    if (!Array.isArray(s)) check.fail(TypeError, fn, 'scaleFactor', o.scaleFactor, 'a number or an array of numbers');
    scale = Float64Array.from(s.map((v, i) => check.number(fn, `scaleFactor[${i}]`, v)));
  }
  const align = o.alignCorners === undefined || o.alignCorners === null ? undefined : check.flag(fn, 'alignCorners', o.alignCorners);
  return new Tensor(core().nnInterpolate(rawOf(fn, 'input', input), size, scale, mode, align));
}

/** Attention `softmax(q k^T * scale + mask) v` of `query` `[.., L, E]` over `key` `[.., S, E]`, `value` `[.., S, Ev]`; options `attnMask` (bool: true takes part; or float, added), `dropoutP`, `isCausal`, `scale` (default 1/sqrt(E)), `seed`. */
export function scaledDotProductAttention(query, key, value, opts) {
  check.arity('scaledDotProductAttention', arguments.length, 4);
  const fn = 'scaledDotProductAttention';
  const o = check.options(fn, opts, ['attnMask', 'dropoutP', 'isCausal', 'scale', 'seed']);
  const p = o.dropoutP === undefined ? 0 : probability(fn, o.dropoutP);
  const scale = o.scale === undefined || o.scale === null ? undefined : check.number(fn, 'scale', o.scale);
  const seed = o.seed === undefined || o.seed === null ? undefined : check.integer(fn, 'seed', o.seed, 0);
  const causal = check.flag(fn, 'isCausal', o.isCausal, false);
  const [q, k, v] = [rawOf(fn, 'query', query), rawOf(fn, 'key', key), rawOf(fn, 'value', value)];
  const [m] = ownRaws(fn, [['attnMask', o.attnMask]]);
  return new Tensor(core().nnScaledDotProductAttention(q, k, v, m, { dropoutP: p, isCausal: causal, scale, seed }));
}

/** `[.., numClasses]` int32 with a 1 at each (integer) index (PyTorch's `F.one_hot`, which gives int64); an index out of range is an error (on GPUs at the next readback or `synchronize`). */
export function oneHot(input, numClasses) {
  check.arity('oneHot', arguments.length, 2);
  const fn = 'oneHot';
  return new Tensor(core().nnOneHot(rawOf(fn, 'input', input), check.integer(fn, 'numClasses', numClasses, 0, 2 ** 31 - 1)));
}
