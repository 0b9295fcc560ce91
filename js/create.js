// Creation: wt.tensor, full/zeros/ones, arange, rand/randn, the *Like forms, cat and stack;
// eye, linspace, logspace, randint, randperm and manualSeed.
import * as check from './check.js';
import { core } from './internal.js';
import { Tensor, rawOf } from './tensor.js';

const { LONG } = check;

const CREATE = ['device', 'dtype', 'requiresGrad'];

/** `t`, marked as requiring grad when the options say so (disposed if that fails). */
function marked(fn, t, o) {
  try {
    return check.flag(fn, 'options.requiresGrad', o.requiresGrad) ? t.requiresGrad_(true) : t;
  } catch (e) {
    t.dispose();
    throw e;
  }
}

/** Shape and flat values of nested arrays, checking that they are rectangular. */
function nested(fn, values) {
  const shape = [];
  for (let v = values; Array.isArray(v); v = v[0]) shape.push(v.length);
  const flat = [];
  const walk = (v, depth, path) => {
    if (depth === shape.length) {
      if (typeof v !== 'number' && typeof v !== 'boolean' && typeof v !== 'bigint') check.fail(TypeError, fn, `values${path}`, v, 'a number, a boolean or a bigint');
      flat.push(v);
      return;
    }
    if (!Array.isArray(v) || v.length !== shape[depth]) {
      throw new RangeError(`${fn}: values are ragged: values${path} has ${Array.isArray(v) ? `length ${v.length}` : 'no dimension'} where ${shape[depth]} was expected; nested arrays must be rectangular`);
    }
    v.forEach((x, i) => walk(x, depth + 1, `${path}[${i}]`));
  };
  walk(values, 0, '');
  return { shape, flat };
}

/**
 * A tensor from a number or boolean (0-d), nested arrays, or a typed array (`shape` gives it
 * more than one dim). The dtype is inferred when not given: bool for booleans, int32/uint32 for
 * Int32Array/Uint32Array, uint8 for Uint8Array and Uint8ClampedArray (image bytes), int8 for
 * Int8Array, float32 otherwise. 64-bit integers (BigInt64Array, BigUint64Array,
 * bigints) become int32/uint32, each value range-checked.
 */
export function tensor(values, opts) {
  check.arity('tensor', arguments.length, 2);
  const fn = 'tensor';
  const o = check.options(fn, opts, [...CREATE, 'shape']);
  const device = check.optDevice(fn, o.device);
  let shape;
  let flat;
  let inferred = 'f32';
  if (typeof values === 'number' || typeof values === 'boolean' || typeof values === 'bigint') {
    shape = [];
    flat = [values];
    if (typeof values === 'boolean') inferred = 'bool';
    if (typeof values === 'bigint') inferred = 'i32';
  } else if (Array.isArray(values)) {
    ({ shape, flat } = nested(fn, values));
    if (flat.length && flat.every((x) => typeof x === 'boolean')) inferred = 'bool';
    if (flat.some((x) => typeof x === 'bigint')) {
      if (!flat.every((x) => typeof x === 'bigint')) check.fail(TypeError, fn, 'values', values, 'all bigints or no bigints (do not mix them with numbers)');
      inferred = 'i32';
    }
  } else if (ArrayBuffer.isView(values) && !(values instanceof DataView) && typeof values[Symbol.iterator] === 'function') {
    shape = [values.length];
    flat = values;
    if (values instanceof Int32Array || values instanceof BigInt64Array) inferred = 'i32';
    if (values instanceof Uint32Array || values instanceof BigUint64Array) inferred = 'u32';
    if (values instanceof Uint8Array || values instanceof Uint8ClampedArray) inferred = 'u8';
    if (values instanceof Int8Array) inferred = 'i8';
  } else {
    check.fail(TypeError, fn, 'values', values, 'a number, a boolean, (nested) arrays of them, or a typed array');
  }
  if (o.shape !== undefined) shape = check.shape(fn, o.shape, 'options.shape');
  const dtype = check.dtype(fn, o.dtype, inferred);
  const dims = Float64Array.from(shape);
  return marked(fn, make(fn, values, flat, dims, dtype, device), o);
}

/**
 * 64-bit integers (a BigInt64Array, a BigUint64Array, or bigints in arrays): range-checked into
 * the 32-bit integer dtypes (PyTorch's and ONNX's int64 indices arrive this way; webtensor
 * stores integers in 32 bits), converted exactly-or-nearest to the float dtypes.
 */
function fromBigInts(fn, values, flat, dims, dtype, device) {
  const w = core();
  if (dtype === 'i32' && values instanceof BigInt64Array) return new Tensor(w.RawTensor.fromI64(values, dims, device));
  if (dtype === 'u32' && values instanceof BigUint64Array) return new Tensor(w.RawTensor.fromU64(values, dims, device));
  const [lo, hi] = dtype === 'i32' ? [-(2n ** 31n), 2n ** 31n - 1n] : [0n, 2n ** 32n - 1n];
  const nums = new Float64Array(flat.length);
  for (let i = 0; i < flat.length; i++) {
    const b = flat[i];
    if ((dtype === 'i32' || dtype === 'u32') && (b < lo || b > hi)) {
      throw new RangeError(`${fn}: values[${i}] is ${b}n, outside ${LONG[dtype]}'s range [${lo}, ${hi}]; webtensor stores integers in 32 bits`);
    }
    nums[i] = Number(b);
  }
  if (dtype === 'i32') return new Tensor(w.RawTensor.fromI32(Int32Array.from(nums), dims, device));
  if (dtype === 'u32') return new Tensor(w.RawTensor.fromU32(Uint32Array.from(nums), dims, device));
  if (dtype === 'u8' || dtype === 'i8') {
    nums.forEach((x, i) => check.fitsDtype(fn, `values[${i}]`, x, dtype));
    return new Tensor(dtype === 'u8' ? w.RawTensor.fromU8(Uint8Array.from(nums), dims, device) : w.RawTensor.fromI8(Int8Array.from(nums), dims, device));
  }
  if (dtype === 'bool') return new Tensor(w.RawTensor.fromBool(Uint8Array.from(nums, (x) => (x ? 1 : 0)), dims, device));
  return new Tensor(w.RawTensor.fromF32(Float32Array.from(nums), dims, dtype, device));
}

function make(fn, values, flat, dims, dtype, device) {
  const w = core();
  if (values instanceof BigInt64Array || values instanceof BigUint64Array || typeof flat[0] === 'bigint') {
    return fromBigInts(fn, values, flat, dims, dtype, device);
  }
  if (dtype === 'i32' && values instanceof Int32Array) return new Tensor(w.RawTensor.fromI32(values, dims, device));
  if (dtype === 'u32' && values instanceof Uint32Array) return new Tensor(w.RawTensor.fromU32(values, dims, device));
  if (dtype === 'u8' && (values instanceof Uint8Array || values instanceof Uint8ClampedArray)) return new Tensor(w.RawTensor.fromU8(values, dims, device));
  if (dtype === 'i8' && values instanceof Int8Array) return new Tensor(w.RawTensor.fromI8(values, dims, device));
  const ints = { i32: [Int32Array, 'fromI32'], u32: [Uint32Array, 'fromU32'], u8: [Uint8Array, 'fromU8'], i8: [Int8Array, 'fromI8'] }[dtype];
  if (ints) {
    const out = new ints[0](flat.length);
    for (let i = 0; i < flat.length; i++) {
      const x = typeof flat[i] === 'boolean' ? +flat[i] : flat[i];
      out[i] = check.fitsDtype(fn, `values[${i}]`, Math.trunc(x), dtype);
    }
    return new Tensor(w.RawTensor[ints[1]](out, dims, device));
  }
  if (dtype === 'bool') return new Tensor(w.RawTensor.fromBool(Uint8Array.from(flat, (x) => (x ? 1 : 0)), dims, device));
  const data = flat instanceof Float32Array ? flat : Float32Array.from(flat, Number);
  return new Tensor(w.RawTensor.fromF32(data, dims, dtype, device));
}

/** `value` in `shape` (an array, or one integer for 1-D). */
export function full(shape, value, opts) {
  check.arity('full', arguments.length, 3);
  const fn = 'full';
  const o = check.options(fn, opts, CREATE);
  const s = check.shape(fn, shape);
  const dtype = check.dtype(fn, o.dtype);
  const v = check.number(fn, 'value', value);
  if (['i32', 'u32', 'u8', 'i8'].includes(dtype)) check.fitsDtype(fn, 'value', v, dtype);
  return marked(fn, new Tensor(core().RawTensor.full(Float64Array.from(s), v, dtype, check.optDevice(fn, o.device))), o);
}

/**
 * `[shape, opts]` of a creation function that takes PyTorch's varargs sizes: `zeros(2, 3)` is
 * `zeros([2, 3])`, optionally followed by options (`zeros(2, 3, { dtype: 'int32' })`).
 */
function sizesAndOptions(fn, args) {
  let n = 0;
  while (n < args.length && typeof args[n] === 'number') n++;
  const [shape, rest] = n >= 2 ? [args.slice(0, n), args.slice(n)] : [args[0], args.slice(1)];
  check.arity(fn, 1 + rest.length, 2);
  return [shape, rest[0]];
}
/** Zeros of `shape` (an array, one integer, or PyTorch's varargs: `zeros(2, 3)`), then options. */
export function zeros(...args) {
  const [shape, opts] = sizesAndOptions('zeros', args);
  return full(shape, 0, opts);
}
/** Ones of `shape` (an array, one integer, or PyTorch's varargs: `ones(2, 3)`), then options. */
export function ones(...args) {
  const [shape, opts] = sizesAndOptions('ones', args);
  return full(shape, 1, opts);
}

/**
 * `start, start + step, ...` below `end`: `arange(end)`, `arange(start, end)`,
 * `arange(start, end, step)`, each optionally followed by options.
 */
export function arange(...args) {
  const fn = 'arange';
  const opts = args.length && (args[args.length - 1] === undefined || typeof args[args.length - 1] === 'object') ? args.pop() : undefined;
  if (args.length < 1 || args.length > 3) throw new TypeError(`arange: expected arange(end), arange(start, end) or arange(start, end, step), then options; got ${args.length} numbers`);
  const nums = args.map((a, i) => check.number(fn, ['start', 'end', 'step'][args.length === 1 ? 1 : i], a));
  const [start, end, step] = nums.length === 1 ? [0, nums[0], 1] : [nums[0], nums[1], nums[2] ?? 1];
  const o = check.options(fn, opts, CREATE);
  return marked(fn, new Tensor(core().RawTensor.arange(start, end, step, check.dtype(fn, o.dtype), check.optDevice(fn, o.device))), o);
}

function random(fn, shape, opts, normal) {
  const o = check.options(fn, opts, [...CREATE, 'seed']);
  const s = check.shape(fn, shape);
  const seed = o.seed === undefined || o.seed === null ? undefined : check.integer(fn, 'seed', o.seed, 0);
  return marked(fn, new Tensor(core().RawTensor.random(Float64Array.from(s), normal, seed, check.dtype(fn, o.dtype), check.optDevice(fn, o.device))), o);
}
/** Uniform samples in [0, 1) of `shape` (an array, one integer, or varargs) (float32 or float16); the same seed gives the same values on every device. */
export function rand(...args) { return random('rand', ...sizesAndOptions('rand', args), false); }
/** Standard normal samples of `shape` (an array, one integer, or varargs) (float32 or float16); the same seed gives the same values on every device. */
export function randn(...args) { return random('randn', ...sizesAndOptions('randn', args), true); }

function likeOptions(fn, t, opts, extra = []) {
  const raw = rawOf(fn, 'input', t);
  const o = check.options(fn, opts, [...CREATE, ...extra]);
  return { ...o, device: o.device ?? raw.device, dtype: o.dtype ?? LONG[raw.dtype] };
}
/** Zeros with `t`'s shape, dtype and device (options override dtype and device). */
export function zerosLike(t, opts) { check.arity('zerosLike', arguments.length, 2); return full(t?.shape, 0, likeOptions('zerosLike', t, opts)); }
/** Ones with `t`'s shape, dtype and device. */
export function onesLike(t, opts) { check.arity('onesLike', arguments.length, 2); return full(t?.shape, 1, likeOptions('onesLike', t, opts)); }
/** `value` with `t`'s shape, dtype and device. */
export function fullLike(t, value, opts) { check.arity('fullLike', arguments.length, 3); return full(t?.shape, value, likeOptions('fullLike', t, opts)); }
/** Uniform samples with `t`'s shape, dtype (a float one) and device. */
export function randLike(t, opts) { check.arity('randLike', arguments.length, 2); return rand(t?.shape, likeOptions('randLike', t, opts, ['seed'])); }
/** Normal samples with `t`'s shape, dtype (a float one) and device. */
export function randnLike(t, opts) { check.arity('randnLike', arguments.length, 2); return randn(t?.shape, likeOptions('randnLike', t, opts, ['seed'])); }

function parts(fn, tensors) {
  if (!Array.isArray(tensors)) check.fail(TypeError, fn, 'tensors', tensors, 'an array of Tensors');
  // Check every part before cloning any handle: a handle cloned before a later part fails would
  // never be freed (raw handles have no finalizer).
  const raws = tensors.map((t, i) => rawOf(fn, `tensors[${i}]`, t));
  return raws.map((r) => r.cloneHandle());
}
export function cat(tensors, dim = 0) {
  check.arity('cat', arguments.length, 2);
  const d = check.dim('cat', dim);
  return new Tensor(core().RawTensor.cat(parts('cat', tensors), d));
}
export function stack(tensors, dim = 0) {
  check.arity('stack', arguments.length, 2);
  const d = check.dim('stack', dim);
  return new Tensor(core().RawTensor.stack(parts('stack', tensors), d));
}

/** The `n` x `m` identity (`m` defaults to `n`; PyTorch's `eye`), then options. */
export function eye(n, m, opts) {
  check.arity('eye', arguments.length, 3);
  if (m !== undefined && m !== null && typeof m === 'object') [m, opts] = [undefined, m];
  const fn = 'eye';
  const o = check.options(fn, opts, CREATE);
  const rows = check.integer(fn, 'n', n, 0, 2 ** 31 - 1);
  const cols = m === undefined || m === null ? rows : check.integer(fn, 'm', m, 0, 2 ** 31 - 1);
  return marked(fn, new Tensor(core().RawTensor.eye(rows, cols, check.dtype(fn, o.dtype), check.optDevice(fn, o.device))), o);
}

/** `steps` evenly spaced values from `start` to `end`, both included (PyTorch's `linspace`). */
export function linspace(start, end, steps, opts) {
  check.arity('linspace', arguments.length, 4);
  const fn = 'linspace';
  const o = check.options(fn, opts, CREATE);
  const [a, b] = [check.number(fn, 'start', start), check.number(fn, 'end', end)];
  const n = check.integer(fn, 'steps', steps, 0, 2 ** 31 - 1);
  return marked(fn, new Tensor(core().RawTensor.linspace(a, b, n, check.dtype(fn, o.dtype), check.optDevice(fn, o.device))), o);
}

/** `base` (default 10) to the powers `linspace(start, end, steps)` (PyTorch's `logspace`). */
export function logspace(start, end, steps, opts) {
  check.arity('logspace', arguments.length, 4);
  const fn = 'logspace';
  const o = check.options(fn, opts, [...CREATE, 'base']);
  const [a, b] = [check.number(fn, 'start', start), check.number(fn, 'end', end)];
  const n = check.integer(fn, 'steps', steps, 0, 2 ** 31 - 1);
  const base = o.base === undefined ? 10 : check.number(fn, 'base', o.base);
  return marked(fn, new Tensor(core().RawTensor.logspace(a, b, n, base, check.dtype(fn, o.dtype), check.optDevice(fn, o.device))), o);
}

/**
 * Integers uniform in `[low, high)` of `size` (PyTorch's `randint`): `randint(high, size)` or
 * `randint(low, high, size)`, then options (`dtype`, default int32; `seed`; `device`).
 */
export function randint(...args) {
  const fn = 'randint';
  const nums = args.findIndex((a) => typeof a !== 'number');
  const lead = nums < 0 ? args.length : nums;
  if (lead < 1 || lead > 2) throw new TypeError(`${fn}: expected randint(high, size) or randint(low, high, size), then options; got ${lead} leading numbers`);
  check.arity(fn, args.length, lead + 2);
  const [low, high] = lead === 1 ? [0, args[0]] : [args[0], args[1]];
  const size = check.shape(fn, args[lead], 'size');
  const o = check.options(fn, args[lead + 1], [...CREATE, 'seed']);
  const seed = o.seed === undefined || o.seed === null ? undefined : check.integer(fn, 'seed', o.seed, 0);
  const [lo, hi] = [check.integer(fn, 'low', low), check.integer(fn, 'high', high)];
  return new Tensor(core().RawTensor.randint(lo, hi, Float64Array.from(size), seed, check.dtype(fn, o.dtype, 'i32'), check.optDevice(fn, o.device)));
}

/** A uniform random permutation of `0..n` as int32 (PyTorch's `randperm`); options `seed`, `device`. */
export function randperm(n, opts) {
  check.arity('randperm', arguments.length, 2);
  const fn = 'randperm';
  const o = check.options(fn, opts, ['device', 'seed']);
  const seed = o.seed === undefined || o.seed === null ? undefined : check.integer(fn, 'seed', o.seed, 0);
  return new Tensor(core().RawTensor.randperm(check.integer(fn, 'n', n, 0, 2 ** 31 - 1), seed, check.optDevice(fn, o.device)));
}

/**
 * Seeds the global generator (PyTorch's `manual_seed`): random constructors and loaders made
 * without a seed draw from it, so a program repeats its values after `manualSeed(s)`.
 */
export function manualSeed(seed) {
  check.arity('manualSeed', arguments.length, 1);
  core().manualSeed(check.integer('manualSeed', 'seed', seed, 0));
}

/** `numSamples` category indices per row of `probs` (PyTorch's `torch.multinomial`; see `Tensor.multinomial`). */
export function multinomial(probs, numSamples, opts) {
  check.arity('multinomial', arguments.length, 3);
  rawOf('multinomial', 'probs', probs);
  return probs.multinomial(numSamples, opts);
}
