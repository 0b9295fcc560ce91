// The Tensor class: PyTorch's tensor methods in JavaScript spelling over a wasm handle. Every
// method checks its arguments (js/check.js) before anything reaches wasm; every rule about
// shapes, dtypes and devices lives in the Rust core.
import * as check from './check.js';
import { core, finalizer, scopes, wasmExports } from './internal.js';
import { full, tensor } from './create.js';
import { TENSOR_ARITY, guardMethods } from './arity.js';
import { formatTensor, reprExtra } from './format.js';
import { gone, gradOf, pair, rawOf, refusePending } from './handles.js';
import { forget, touch, track } from './stepscope.js';
import { nested, readTarget } from './read.js';

export { assignRaw, consumeHandOff, markHandOff, rawOf, setPending, untrack } from './handles.js';

const { LONG } = check;

/** The other operand of a binary op: a live Tensor or a number (booleans count as 0 and 1). */
export function operand(fn, v) {
  if (v instanceof Tensor) return v;
  if (typeof v === 'number' || typeof v === 'boolean') return check.number(fn, 'other', v);
  return check.fail(TypeError, fn, 'other', v, 'a Tensor or a number');
}

export class Tensor {
  /** @internal */
  constructor(raw) {
    if (!wasmExports() || !(raw instanceof wasmExports().RawTensor)) {
      throw new TypeError('Tensor cannot be constructed directly; use wt.tensor(), wt.zeros(), ... or an op');
    }
    this.raw = raw;
    this.disposed = false;
    finalizer.register(this, raw, this);
    if (scopes.length) scopes[scopes.length - 1].add(this);
    else track(this);
  }

  #live(fn) {
    if (this.disposed) throw new Error(`${fn}: this tensor ${gone(this)}; it can no longer be used`);
    refusePending(fn, 'this tensor', this);
    touch(this);
    return this.raw;
  }

  get shape() { return Array.from(this.#live('shape').shape); }
  get dtype() { return LONG[this.#live('dtype').dtype]; }
  get device() { return this.#live('device').device; }
  get rank() { return this.#live('rank').shape.length; }
  /** The number of elements (PyTorch's `numel()`, TensorFlow.js's `size`). */
  numel() { return this.#live('numel').numel; }
  /** The shape (no argument) or the size of dimension `dim` (negative counts from the end), as PyTorch's `size()`. */
  size(dim) {
    const shape = this.shape;
    if (dim === undefined) return shape;
    const d = check.dim('size', dim);
    if (d < -shape.length || d >= Math.max(shape.length, 1)) {
      throw new RangeError(`size: dimension ${d} is out of range for a tensor of rank ${shape.length}`);
    }
    return shape.length === 0 ? 1 : shape[d < 0 ? d + shape.length : d];
  }

  #binary(op, other) {
    const raw = this.#live(op);
    const o = operand(op, other);
    if (typeof o === 'number') return new Tensor(raw.binaryScalar(op, o));
    return new Tensor(raw.binary(op, rawOf(op, 'other', o)));
  }

  add(o) { return this.#binary('add', o); }
  sub(o) { return this.#binary('sub', o); }
  mul(o) { return this.#binary('mul', o); }
  div(o) { return this.#binary('div', o); }
  pow(o) { return this.#binary('pow', o); }
  maximum(o) { return this.#binary('maximum', o); }
  minimum(o) { return this.#binary('minimum', o); }
  eq(o) { return this.#binary('eq', o); }
  ne(o) { return this.#binary('ne', o); }
  lt(o) { return this.#binary('lt', o); }
  le(o) { return this.#binary('le', o); }
  gt(o) { return this.#binary('gt', o); }
  ge(o) { return this.#binary('ge', o); }

  #unary(op) { return new Tensor(this.#live(op).unary(op)); }
  neg() { return this.#unary('neg'); }
  abs() { return this.#unary('abs'); }
  exp() { return this.#unary('exp'); }
  log() { return this.#unary('log'); }
  sqrt() { return this.#unary('sqrt'); }
  rsqrt() { return this.#unary('rsqrt'); }
  reciprocal() { return this.#unary('reciprocal'); }
  square() { return this.#unary('square'); }
  sin() { return this.#unary('sin'); }
  cos() { return this.#unary('cos'); }
  tanh() { return this.#unary('tanh'); }
  sigmoid() { return this.#unary('sigmoid'); }
  relu() { return this.#unary('relu'); }
  /** GELU: the exact (erf) form, or with `{ approximate: 'tanh' }` its tanh form (GPT-2's), as PyTorch's. */
  gelu(opts) {
    const o = check.options('gelu', opts, ['approximate']);
    const a = o.approximate ?? 'none';
    if (a !== 'none' && a !== 'tanh') check.fail(RangeError, 'gelu', 'approximate', a, "'none' or 'tanh'");
    return this.#unary(a === 'tanh' ? 'gelu_tanh' : 'gelu');
  }
  /** GELU's tanh approximation (`gelu({ approximate: 'tanh' })`). */
  geluTanh() { return this.#unary('gelu_tanh'); }
  silu() { return this.#unary('silu'); }
  floor() { return this.#unary('floor'); }
  ceil() { return this.#unary('ceil'); }
  round() { return this.#unary('round'); }
  sign() { return this.#unary('sign'); }
  erf() { return this.#unary('erf'); }
  log1p() { return this.#unary('log1p'); }
  expm1() { return this.#unary('expm1'); }
  tan() { return this.#unary('tan'); }
  asin() { return this.#unary('asin'); }
  acos() { return this.#unary('acos'); }
  atan() { return this.#unary('atan'); }
  sinh() { return this.#unary('sinh'); }
  cosh() { return this.#unary('cosh'); }
  asinh() { return this.#unary('asinh'); }
  acosh() { return this.#unary('acosh'); }
  atanh() { return this.#unary('atanh'); }
  mish() { return this.#unary('mish'); }
  hardswish() { return this.#unary('hardswish'); }
  hardsigmoid() { return this.#unary('hardsigmoid'); }
  /** `log(1 + e^(beta x)) / beta`, and `x` where `beta x > threshold` (PyTorch's defaults: 1 and 20). */
  softplus(opts) {
    const o = check.options('softplus', opts, ['beta', 'threshold']);
    const beta = o.beta === undefined ? 1 : check.number('softplus', 'beta', o.beta);
    const threshold = o.threshold === undefined ? 20 : check.number('softplus', 'threshold', o.threshold);
    if (beta === 1 && threshold === 20) return this.#unary('softplus');
    return new Tensor(this.#live('softplus').softplusWith(beta, threshold));
  }
  softplusWith(beta, threshold) { return this.softplus({ beta, threshold }); }
  /** `x` where positive, `negativeSlope * x` elsewhere (default 0.01, as PyTorch). */
  leakyRelu(negativeSlope = 0.01) {
    return new Tensor(this.#live('leakyRelu').leakyRelu(check.number('leakyRelu', 'negativeSlope', negativeSlope)));
  }
  /** `x` where positive, `weight * x` elsewhere: `weight` has one slope, or one per channel (dim 1), as PyTorch's `prelu`. */
  prelu(weight) { return new Tensor(this.#live('prelu').prelu(rawOf('prelu', 'weight', weight))); }
  /** `x` where positive, `alpha * (e^x - 1)` elsewhere (default 1, as PyTorch). */
  elu(alpha = 1) { return new Tensor(this.#live('elu').elu(check.number('elu', 'alpha', alpha))); }
  /** `this + weight * (end - this)`; `weight` a number or a tensor, broadcast with both. */
  lerp(end, weight) {
    const raw = this.#live('lerp');
    const e = rawOf('lerp', 'end', end);
    if (typeof weight === 'number') return new Tensor(raw.lerpScalar(e, check.number('lerp', 'weight', weight)));
    return new Tensor(raw.lerp(e, rawOf('lerp', 'weight', weight)));
  }

  atan2(o) { return this.#binary('atan2', o); }
  remainder(o) { return this.#binary('remainder', o); }
  fmod(o) { return this.#binary('fmod', o); }
  floorDivide(o) { return this.#binary('floor_divide', o); }
  bitwiseAnd(o) { return this.#binary('bitwise_and', o); }
  bitwiseOr(o) { return this.#binary('bitwise_or', o); }
  bitwiseXor(o) { return this.#binary('bitwise_xor', o); }
  bitwiseLeftShift(o) { return this.#binary('bitwise_left_shift', o); }
  bitwiseRightShift(o) { return this.#binary('bitwise_right_shift', o); }
  bitwiseNot() { return new Tensor(this.#live('bitwiseNot').bitwiseNot()); }
  #logical(op, name, other) {
    const raw = this.#live(name);
    const o = operand(name, other);
    if (typeof o === 'number') return new Tensor(raw.logicalScalar(op, o));
    return new Tensor(raw.logical(op, rawOf(name, 'other', o)));
  }
  logicalAnd(o) { return this.#logical('and', 'logicalAnd', o); }
  logicalOr(o) { return this.#logical('or', 'logicalOr', o); }
  logicalXor(o) { return this.#logical('xor', 'logicalXor', o); }
  logicalNot() { return new Tensor(this.#live('logicalNot').logicalNot()); }

  /** Running sums along `dim` (bool sums in int32). */
  cumsum(dim) { return new Tensor(this.#live('cumsum').scan('cumsum', check.dim('cumsum', dim))); }
  /** Running products along `dim`. */
  cumprod(dim) { return new Tensor(this.#live('cumprod').scan('cumprod', check.dim('cumprod', dim))); }
  /** True where every element over `dim` (default: all) is nonzero. */
  all(dim, keepdim) { return this.#reduce('all', dim, keepdim, 'reduceComposed'); }
  /** True where some element over `dim` (default: all) is nonzero. */
  any(dim, keepdim) { return this.#reduce('any', dim, keepdim, 'reduceComposed'); }
  /** `log(sum(exp(x)))` over `dim`, computed stably. */
  logsumexp(dim, keepdim) { return this.#reduce('logsumexp', dim, keepdim, 'reduceComposed'); }
  /** PyTorch's `amax` (the same as `max` with dims). */
  amax(dim, keepdim) { return this.max(dim, keepdim); }
  /** PyTorch's `amin` (the same as `min` with dims). */
  amin(dim, keepdim) { return this.min(dim, keepdim); }
  /** The vector p-norm (default 2) over `dim` (default: all), PyTorch's `linalg.vector_norm`. */
  norm(p = 2, dim, keepdim) {
    const raw = this.#live('norm');
    const q = p === Infinity || p === -Infinity ? p : check.number('norm', 'p', p);
    const dims = check.reductionDims('norm', dim);
    return new Tensor(raw.norm(q, dims === undefined ? undefined : Float64Array.from(dims), check.flag('norm', 'keepdim', keepdim)));
  }
  /** `value` where `mask` (bool, broadcast to this shape) is true. */
  maskedFill(mask, value) {
    const raw = this.#live('maskedFill');
    return new Tensor(raw.maskedFill(rawOf('maskedFill', 'mask', mask), check.number('maskedFill', 'value', operand('maskedFill', value))));
  }
  /** The lower triangle of the last two dims (`col - row <= diagonal`), zeros elsewhere. */
  tril(diagonal = 0) { return new Tensor(this.#live('tril').triangle(true, check.integer('tril', 'diagonal', diagonal))); }
  /** The upper triangle of the last two dims (`col - row >= diagonal`), zeros elsewhere. */
  triu(diagonal = 0) { return new Tensor(this.#live('triu').triangle(false, check.integer('triu', 'diagonal', diagonal))); }
  /** Reversed along `dims` (a dim, an array, or PyTorch's varargs: `flip(0, 1)`; a copy). */
  flip(...dims) { return new Tensor(this.#live('flip').flip(Float64Array.from(check.optDims('flip', check.spread('flip', dims, 'dims')) ?? []))); }
  /** Shifted by `shifts` along `dims`, wrapping around; with no dims, over the flattened tensor. */
  roll(shifts, dims) {
    const raw = this.#live('roll');
    const s = typeof shifts === 'number' ? [shifts] : shifts;
    if (!Array.isArray(s)) check.fail(TypeError, 'roll', 'shifts', shifts, 'an integer or an array of integers');
    const sh = s.map((v, i) => check.integer('roll', `shifts[${i}]`, v));
    return new Tensor(raw.roll(Float64Array.from(sh), Float64Array.from(check.optDims('roll', dims) ?? [])));
  }
  /** Tiled `sizes[i]` times along each dim (PyTorch's `repeat`). */
  repeat(...sizes) {
    const s = check.spread('repeat', sizes, 'sizes');
    return new Tensor(this.#live('repeat').repeat(Float64Array.from(check.shape('repeat', s, 'sizes'))));
  }
  /** Tiled `dims[i]` times along each dim, fewer dims padded with leading 1s (PyTorch's `tile`). */
  tile(...dims) {
    const d = check.spread('tile', dims, 'dims');
    return new Tensor(this.#live('tile').tile(Float64Array.from(check.shape('tile', d, 'dims'))));
  }
  /** Views along `dim`: pieces of `size` entries, or of each size in an array (PyTorch's `split`). */
  split(size, dim = 0) {
    const raw = this.#live('split');
    const d = check.dim('split', dim);
    if (Array.isArray(size)) {
      const sizes = size.map((v, i) => check.integer('split', `size[${i}]`, v, 0));
      return Array.from(raw.splitSizes(Float64Array.from(sizes), d), (r) => new Tensor(r));
    }
    return Array.from(raw.split(check.integer('split', 'size', size, 1), d), (r) => new Tensor(r));
  }
  /** At most `chunks` equal views along `dim`. */
  chunk(chunks, dim = 0) {
    const raw = this.#live('chunk');
    return Array.from(raw.chunk(check.integer('chunk', 'chunks', chunks, 1), check.dim('chunk', dim)), (r) => new Tensor(r));
  }

  /** PyTorch's `Tensor.where(condition, y)`: this where `condition` (nonzero is true) holds, else `y`, with broadcasting (`torch.where(condition, this, y)`). */
  where(condition, y) {
    const raw = this.#live('where');
    return new Tensor(rawOf('where', 'condition', condition).whereThen(raw, rawOf('where', 'y', y)));
  }
  clamp(min, max) {
    const raw = this.#live('clamp');
    const lo = min === undefined || min === null ? undefined : check.number('clamp', 'min', min);
    const hi = max === undefined || max === null ? undefined : check.number('clamp', 'max', max);
    return new Tensor(raw.clamp(lo, hi));
  }

  /** A reduction over `dim` (all dims when absent) through the core's `reduce` or `reduceComposed`. */
  #reduce(op, dim, keepdim, method = 'reduce') {
    const raw = this.#live(op);
    const dims = check.reductionDims(op, dim);
    return new Tensor(raw[method](op, dims === undefined ? undefined : Float64Array.from(dims), check.flag(op, 'keepdim', keepdim)));
  }
  sum(dim, keepdim) { return this.#reduce('sum', dim, keepdim); }
  mean(dim, keepdim) { return this.#reduce('mean', dim, keepdim); }
  max(dim, keepdim) { return this.#reduce('max', dim, keepdim); }
  min(dim, keepdim) { return this.#reduce('min', dim, keepdim); }
  prod(dim, keepdim) { return this.#reduce('prod', dim, keepdim); }
  #arg(op, dim, keepdim) {
    const raw = this.#live(op);
    const d = dim === undefined || dim === null ? undefined : check.dim(op, dim);
    return new Tensor(raw.arg(op === 'argmax', d, check.flag(op, 'keepdim', keepdim)));
  }
  argmax(dim, keepdim) { return this.#arg('argmax', dim, keepdim); }
  argmin(dim, keepdim) { return this.#arg('argmin', dim, keepdim); }
  #moments(op, dim, opts) {
    const raw = this.#live(op);
    const dims = check.reductionDims(op, dim);
    const o = check.options(op, opts, ['correction', 'keepdim']);
    const correction = o.correction === undefined ? 1 : check.integer(op, 'correction', o.correction, 0);
    const d = dims === undefined ? undefined : Float64Array.from(dims);
    return new Tensor(raw.moments(op === 'std', d, correction, check.flag(op, 'keepdim', o.keepdim)));
  }
  var(dim, opts) { return this.#moments('var', dim, opts); }
  std(dim, opts) { return this.#moments('std', dim, opts); }
  softmax(dim = -1) { return new Tensor(this.#live('softmax').softmax(check.dim('softmax', dim), false)); }
  logSoftmax(dim = -1) { return new Tensor(this.#live('logSoftmax').softmax(check.dim('logSoftmax', dim), true)); }
  matmul(o) {
    const raw = this.#live('matmul');
    return new Tensor(raw.matmul(rawOf('matmul', 'other', o)));
  }

  /** The same data in `shape` (an array, or PyTorch's varargs: `reshape(2, -1)`); copies only when it must. */
  reshape(...shape) {
    return new Tensor(this.#live('reshape').reshape(Float64Array.from(check.sizes('reshape', check.spread('reshape', shape, 'shape')))));
  }
  /**
   * Like reshape, but never copies: any shape PyTorch's view rule allows (splitting a dim,
   * merging dims contiguous with each other, of any view); otherwise PyTorch's error, which
   * advises reshape.
   */
  view(...shape) { return new Tensor(this.#live('view').view(Float64Array.from(check.sizes('view', check.spread('view', shape, 'shape'))))); }
  /** Dims `startDim` to `endDim` (default: all) merged into one (PyTorch's `flatten`). */
  flatten(startDim = 0, endDim = -1) {
    const shape = this.shape;
    const rank = Math.max(shape.length, 1);
    const norm = (d, arg) => {
      const v = check.dim('flatten', d, arg);
      if (v < -rank || v >= rank) throw new RangeError(`flatten: ${arg} ${v} is out of range for a tensor of rank ${shape.length} (expected a dim in [${-rank}, ${rank - 1}])`);
      return v < 0 ? v + rank : v;
    };
    const [a, b] = [norm(startDim, 'startDim'), norm(endDim, 'endDim')];
    if (a > b) throw new RangeError(`flatten: startDim (${a}) must not come after endDim (${b})`);
    if (shape.length === 0) return this.reshape([1]);
    return this.reshape([...shape.slice(0, a), -1, ...shape.slice(b + 1)]);
  }
  /** The dims reordered (an array, or PyTorch's varargs: `permute(1, 0)`). */
  permute(...args) {
    const raw = this.#live('permute');
    let dims = check.spread('permute', args, 'dims');
    if (typeof dims === 'number') dims = [dims];
    if (!Array.isArray(dims)) check.fail(TypeError, 'permute', 'dims', dims, 'an array of dims such as [1, 0], or the dims as arguments');
    return new Tensor(raw.permute(Float64Array.from(dims.map((d, i) => check.dim('permute', d, `dims[${i}]`)))));
  }
  transpose(a, b) {
    const raw = this.#live('transpose');
    return new Tensor(raw.transpose(check.dim('transpose', a, 'dim0'), check.dim('transpose', b, 'dim1')));
  }
  /** The transpose of a tensor of at most 2 dims (PyTorch's `t()`; more dims is an error: use transpose). */
  t() { return new Tensor(this.#live('t').t()); }
  /**
   * `numSamples` category indices (int32) per row of non-negative weights (`[n]` or `[m, n]`),
   * drawn with `{ replacement }` or without (the default), seeded with `{ seed }` (else the
   * global generator): PyTorch's `torch.multinomial`, on the device, without a readback.
   */
  multinomial(numSamples, opts) {
    const raw = this.#live('multinomial');
    const o = check.options('multinomial', opts, ['replacement', 'seed']);
    const seed = o.seed === undefined || o.seed === null ? undefined : check.integer('multinomial', 'seed', o.seed, 0);
    return new Tensor(raw.multinomial(check.integer('multinomial', 'numSamples', numSamples, 1, 2 ** 31 - 1), check.flag('multinomial', 'replacement', o.replacement), seed));
  }
  /** The slice at `index` of `dim`, that dim removed (PyTorch's `select`, `x[:, i]`; negative counts from the end; a view). */
  select(dim, index) {
    const raw = this.#live('select');
    return new Tensor(raw.select(check.dim('select', dim), check.integer('select', 'index', index, -(2 ** 31), 2 ** 31 - 1)));
  }
  /** `length` entries of `dim` from `start` (negative: counted from the end, as PyTorch). */
  narrow(dim, start, length) {
    const raw = this.#live('narrow');
    const d = check.dim('narrow', dim);
    let s = check.integer('narrow', 'start', start);
    if (s < 0) s += this.size(d);
    if (s < 0) throw new RangeError(`narrow: start (${start}) is out of range for a dim of size ${this.size(d)}`);
    return new Tensor(raw.narrow(d, s, check.integer('narrow', 'length', length, 0)));
  }
  /**
   * Entries `start` (inclusive) to `end` (exclusive, default: the end) of `dim`, every `step`-th
   * (default 1; Python's `x[start:end:step]`, a view). With a step the range is clamped to the
   * dim as in Python.
   */
  slice(dim, start, end, step) {
    const n = this.size(check.dim('slice', dim));
    // Negative positions count from the end, as Python's slices do.
    const at = (v) => (v < 0 ? Math.max(v + n, 0) : v);
    const s = at(check.integer('slice', 'start', start));
    const e = end === undefined || end === null ? n : at(check.integer('slice', 'end', end));
    if (step !== undefined && step !== null && step !== 1) {
      const k = check.integer('slice', 'step', step, 1, 2 ** 31 - 1);
      return new Tensor(this.#live('slice').sliceStep(check.dim('slice', dim), s, e, k));
    }
    if (e < s) throw new RangeError(`slice: end (${e}) must not be less than start (${s})`);
    return this.narrow(dim, s, e - s);
  }
  /** Dims of size 1 removed: all of them, one dim, or several (an array or PyTorch's varargs). */
  squeeze(...args) {
    const raw = this.#live('squeeze');
    const dims = check.spread('squeeze', args, 'dim');
    if (dims === undefined || dims === null) return new Tensor(raw.squeeze(undefined));
    if (!Array.isArray(dims)) return new Tensor(raw.squeeze(check.dim('squeeze', dims)));
    // Several dims: each normalised against this rank, then squeezed from the last so the
    // earlier ones keep their positions.
    const rank = this.rank;
    const norm = dims.map((d, i) => {
      const v = check.dim('squeeze', d, `dim[${i}]`);
      if (v < -Math.max(rank, 1) || v >= Math.max(rank, 1)) throw new RangeError(`squeeze: dimension ${v} is out of range for a tensor of rank ${rank}`);
      return v < 0 ? v + Math.max(rank, 1) : v;
    });
    let out = new Tensor(raw.cloneHandle());
    for (const d of [...new Set(norm)].sort((a, b) => b - a)) {
      const next = new Tensor(out.raw.squeeze(d));
      out.dispose();
      out = next;
    }
    return out;
  }
  unsqueeze(dim) { return new Tensor(this.#live('unsqueeze').unsqueeze(check.dim('unsqueeze', dim))); }
  /** Broadcast to `shape` (an array, or PyTorch's varargs: `expand(4, -1)`), as a view. */
  expand(...shape) { return new Tensor(this.#live('expand').expand(Float64Array.from(check.sizes('expand', check.spread('expand', shape, 'shape'))))); }
  broadcastTo(shape) { return this.expand(shape); }
  contiguous() { return new Tensor(this.#live('contiguous').contiguous()); }
  /** True (bool) where the value is NaN. */
  isnan() { return new Tensor(this.#live('isnan').isnan()); }
  /** True (bool) where the value is +Infinity or -Infinity. */
  isinf() { return new Tensor(this.#live('isinf').isinf()); }
  /** True (bool) where the value is neither NaN nor infinite. */
  isfinite() { return new Tensor(this.#live('isfinite').isfinite()); }
  /** Another handle to the same data (free; dispose each handle separately). */
  clone() { return new Tensor(this.#live('clone').deepCopy()); }
  toDtype(dtype) { return new Tensor(this.#live('toDtype').toDtype(check.dtype('toDtype', dtype))); }
  indexSelect(dim, index) {
    const raw = this.#live('indexSelect');
    return new Tensor(raw.indexSelect(check.dim('indexSelect', dim), rawOf('indexSelect', 'index', index)));
  }
  gather(dim, index) {
    const raw = this.#live('gather');
    return new Tensor(raw.gather(check.dim('gather', dim), rawOf('gather', 'index', index)));
  }

  /** `this` plus `source` added at the slices `index` names along `dim` (PyTorch's `index_add`). */
  indexAdd(dim, index, source) {
    const raw = this.#live('indexAdd');
    return new Tensor(raw.indexAdd(check.dim('indexAdd', dim), rawOf('indexAdd', 'index', index), rawOf('indexAdd', 'source', source)));
  }
  /** `this` plus `src` added at the positions `index` names along `dim` (PyTorch's `scatter_add`). */
  scatterAdd(dim, index, src) {
    const raw = this.#live('scatterAdd');
    return new Tensor(raw.scatterAdd(check.dim('scatterAdd', dim), rawOf('scatterAdd', 'index', index), rawOf('scatterAdd', 'src', src)));
  }
  /**
   * `this` with `src` (a Tensor or a number) written at the positions `index` names along `dim`
   * (PyTorch's `scatter`); where positions repeat, the last in index order wins.
   */
  scatter(dim, index, src) {
    const raw = this.#live('scatter');
    const d = check.dim('scatter', dim);
    const idx = rawOf('scatter', 'index', index);
    if (src instanceof Tensor) return new Tensor(raw.scatter(d, idx, rawOf('scatter', 'src', src)));
    if (typeof src !== 'number' && typeof src !== 'boolean') check.fail(TypeError, 'scatter', 'src', src, 'a Tensor or a number');
    return new Tensor(raw.scatterValue(d, idx, check.number('scatter', 'src', src)));
  }

  // Sorting (stable; NaN sorts above everything; indices are int32).
  /** Positions that sort along `dim`, ascending or descending (PyTorch's `argsort(stable=True)`). */
  argsort(dim = -1, descending = false) {
    const raw = this.#live('argsort');
    return new Tensor(raw.argsort(check.dim('argsort', dim), check.flag('argsort', 'descending', descending)));
  }
  /** `[values, indices]` (also `.values`, `.indices`): sorted along `dim` and where each value came from. */
  sort(dim = -1, descending = false) {
    const raw = this.#live('sort');
    return pair(raw.sort(check.dim('sort', dim), check.flag('sort', 'descending', descending)));
  }
  /**
   * `[values, indices]` (also `.values`, `.indices`) of the `k` largest (or smallest) entries
   * along `dim`, always in sorted
   * order (`sorted` is accepted for PyTorch's signature; sorted order satisfies both).
   */
  topk(k, dim = -1, largest = true, sorted = true) {
    const raw = this.#live('topk');
    check.flag('topk', 'sorted', sorted, true);
    return pair(raw.topk(check.integer('topk', 'k', k, 0), check.dim('topk', dim), check.flag('topk', 'largest', largest, true)));
  }

  // Autograd (PyTorch's): leaves marked with requiresGrad_ collect gradients in `grad`.
  /** Whether this tensor takes part in autograd (a marked leaf, or the output of a recorded op). */
  get requiresGrad() { return this.#live('requiresGrad').requiresGrad; }
  /** Marks this leaf as needing a gradient (or not), in place; returns this tensor. */
  requiresGrad_(on = true) {
    const raw = this.#live('requiresGrad_');
    raw.requiresGrad_(check.flag('requiresGrad_', 'on', on));
    return this;
  }
  /** Whether this is a leaf of the graph (made by you, not recorded from an op). */
  get isLeaf() { return this.#live('isLeaf').isLeaf; }
  /** The name of the op that made this tensor when it was recorded, else null. */
  get gradFn() { return this.#live('gradFn').gradFn ?? null; }
  /**
   * The gradient accumulated by backward() since it was last cleared (a new Tensor handle on
   * this tensor's device; dispose it, or read it inside wt.tidy), or null.
   */
  get grad() {
    const g = this.#live('grad').gradient();
    return g === undefined ? null : gradOf(new Tensor(g), this);
  }
  /** Replaces the gradient; `null` clears it (as an optimizer's zeroGrad does). */
  set grad(value) {
    const raw = this.#live('grad');
    if (value === null || value === undefined) raw.setGradient(undefined);
    else raw.setGradient(rawOf('grad', 'value', value).cloneHandle());
  }
  /** A leaf over the same data with no autograd history. */
  detach() { return new Tensor(this.#live('detach').detach()); }
  #backwardArgs(fn, grad, opts) {
    if (grad !== undefined && grad !== null && !(grad instanceof Tensor)) {
      if (opts === undefined && typeof grad === 'object') [grad, opts] = [undefined, grad];
      else check.fail(TypeError, fn, 'grad', grad, 'a Tensor of the output\'s shape, or nothing for a one-element output');
    }
    const o = check.options(fn, opts, ['retainGraph']);
    const retain = o.retainGraph === undefined ? false : check.flag(fn, 'retainGraph', o.retainGraph);
    const g = grad === undefined || grad === null ? undefined : rawOf(fn, 'grad', grad).cloneHandle();
    return [g, retain];
  }
  /**
   * Computes the gradient of this one-element tensor (a loss) with respect to every leaf that
   * requires grad and adds it to their `grad` (PyTorch's `loss.backward()`); the graph is freed.
   * Pass `grad` for a non-scalar output, `{ retainGraph: true }` to go through the graph again.
   * A graph whose gradient must leave a GPU through `to()` needs `await backwardAsync()`.
   */
  backward(grad, opts) {
    const raw = this.#live('backward');
    const [g, retain] = this.#backwardArgs('backward', grad, opts);
    raw.backward(g, retain);
  }
  /** backward() that awaits transfers: works for every graph, including ones that cross devices. */
  async backwardAsync(grad, opts) {
    const raw = this.#live('backwardAsync');
    const [g, retain] = this.#backwardArgs('backwardAsync', grad, opts);
    await raw.backwardAsync(g, retain);
  }

  /** Zeros of `shape` with this tensor's dtype and device (options override them). */
  newZeros(shape, opts) { return full(shape, 0, this.#inherit('newZeros', opts)); }
  /** Ones of `shape` with this tensor's dtype and device. */
  newOnes(shape, opts) { return full(shape, 1, this.#inherit('newOnes', opts)); }
  /** `value` in `shape` with this tensor's dtype and device. */
  newFull(shape, value, opts) { return full(shape, value, this.#inherit('newFull', opts)); }
  /** A tensor of `values` with this tensor's dtype and device. */
  newTensor(values, opts) { return tensor(values, this.#inherit('newTensor', opts, ['shape'])); }
  #inherit(fn, opts, extra = []) {
    const raw = this.#live(fn);
    const o = check.options(fn, opts, ['device', 'dtype', 'requiresGrad', ...extra]);
    return { ...o, device: o.device ?? raw.device, dtype: o.dtype ?? LONG[raw.dtype] };
  }

  /**
   * Host data as a typed array (Float32Array for float32 and float16); with `{ into }`, copied
   * into that array (the dtype's kind, `numel` long), which is returned (see read.js).
   */
  async data(opts) {
    const raw = this.#live('data');
    const into = readTarget('data', LONG[raw.dtype], raw.numel, opts);
    return into ? raw.dataInto(into) : raw.data();
  }
  /** Nested arrays of numbers (booleans for bool tensors). */
  async array() {
    const shape = this.shape;
    return nested(await this.data(), shape, this.dtype === 'bool');
  }
  /** The value of a one-element tensor (a boolean for bool tensors), as PyTorch's `item()`. */
  async item() { return this.#live('item').item(); }
  /** Synchronous read: only for tensors on the cpu (elsewhere an error says to await data()). */
  dataSync(opts) {
    const raw = this.#live('dataSync');
    const into = readTarget('dataSync', LONG[raw.dtype], raw.numel, opts);
    return into ? raw.dataSyncInto(into) : raw.dataSync();
  }
  /**
   * A copy on `device` (a device string, a DeviceInfo, or an accelerator index), converted to
   * `dtype` when a dtype name is given, or with another tensor's device and dtype when a Tensor
   * is given, as PyTorch's `to`. This tensor is untouched.
   */
  async to(target, opts) {
    const raw = this.#live('to');
    check.options('to', opts, ['nonBlocking']);
    if (target instanceof Tensor) {
      const otherRaw = rawOf('to', 'other', target);
      const moved = new Tensor(await raw.to(otherRaw.device));
      if (moved.raw.dtype === otherRaw.dtype) return moved;
      try {
        return moved.toDtype(LONG[otherRaw.dtype]);
      } finally {
        moved.dispose();
      }
    }
    if (check.isDtype(target)) return this.toDtype(target);
    return new Tensor(await raw.to(check.device('to', target)));
  }
  async cpu() { return this.to('cpu'); }

  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    finalizer.unregister(this);
    this.raw.free();
    for (const s of scopes) s.delete(this);
    forget(this);
  }
  [Symbol.dispose]() { this.dispose(); }
  /**
   * PyTorch's repr: `tensor([[1., 2.], [3., 4.]], device='webgpu:0')`, summarised past 1000
   * elements. A tensor on the cpu shows its values; elsewhere reading them would wait for the
   * device, so the text says to `await t.print()` (or `t.data()`) instead.
   */
  toString() {
    if (this.disposed) return 'Tensor(disposed)';
    const values = this.device === 'cpu' ? Array.from(this.dataSync()) : null;
    return formatTensor(values, this.shape, this.dtype, this.device, reprExtra(this));
  }
  /** Node's console.log and util.inspect show the repr (see toString). */
  [Symbol.for('nodejs.util.inspect.custom')]() { return this.toString(); }
  /** Reads the values (from any device) and prints the repr with console.log, as TensorFlow.js's `print()`. */
  async print() {
    const values = Array.from(await this.data());
    console.log(formatTensor(values, this.shape, this.dtype, this.device, reprExtra(this)));
  }
}

// Extra positional arguments are refused, never ignored (js/arity.js).
guardMethods(Tensor.prototype, TENSOR_ARITY);
