// The user-facing API over the wasm exports: PyTorch concepts in JavaScript spelling. This layer
// checks arguments (js/check.js: every public function, before anything reaches wasm), adapts
// them (numbers or tensors, arrays, options) and manages object lifetimes; every rule about
// shapes, dtypes and devices lives in the Rust core.
import * as check from './check.js';

const { LONG } = check;
let wasm = null;

/** @internal Called by the entry points once the .wasm module is instantiated. */
export function bind(exports) {
  wasm = exports;
}

/** @internal Whether the module is bound (the entry points use it for init's retries). */
export function bound() {
  return wasm !== null;
}

function core() {
  if (!wasm) throw new Error('webtensor is not initialised: await init() first');
  return wasm;
}

// Safety net, never the contract: a Tensor collected without dispose() frees its wasm side.
const finalizer = new FinalizationRegistry((raw) => raw.free());
// Scopes of wt.tidy(), innermost last: tensors created inside are disposed on exit.
const scopes = [];

/** The other operand of a binary op: a live Tensor or a number (booleans count as 0 and 1). */
function operand(fn, v) {
  if (v instanceof Tensor) return v;
  if (typeof v === 'number' || typeof v === 'boolean') return check.number(fn, 'other', v);
  return check.fail(TypeError, fn, 'other', v, 'a Tensor or a number');
}

/** `t` as a live raw tensor, or a clear error naming the function and argument. */
function rawOf(fn, arg, t) {
  if (!(t instanceof Tensor)) check.fail(TypeError, fn, arg, t, 'a Tensor');
  if (t.disposed) throw new Error(`${fn}: ${arg} was disposed; it can no longer be used`);
  return t.raw;
}

export class Tensor {
  /** @internal */
  constructor(raw) {
    if (!wasm || !(raw instanceof wasm.RawTensor)) {
      throw new TypeError('Tensor cannot be constructed directly; use wt.tensor(), wt.zeros(), ... or an op');
    }
    this.raw = raw;
    this.disposed = false;
    finalizer.register(this, raw, this);
    if (scopes.length) scopes[scopes.length - 1].add(this);
  }

  #live(fn) {
    if (this.disposed) throw new Error(`${fn}: this tensor was disposed; it can no longer be used`);
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
  gelu() { return this.#unary('gelu'); }
  silu() { return this.#unary('silu'); }
  floor() { return this.#unary('floor'); }
  ceil() { return this.#unary('ceil'); }
  round() { return this.#unary('round'); }
  sign() { return this.#unary('sign'); }

  /** `this ? a : b`, elementwise with broadcasting (this is the condition). */
  where(a, b) {
    const raw = this.#live('where');
    return new Tensor(raw.whereThen(rawOf('where', 'a', a), rawOf('where', 'b', b)));
  }
  clamp(min, max) {
    const raw = this.#live('clamp');
    const lo = min === undefined || min === null ? undefined : check.number('clamp', 'min', min);
    const hi = max === undefined || max === null ? undefined : check.number('clamp', 'max', max);
    return new Tensor(raw.clamp(lo, hi));
  }

  #reduce(op, dim, keepdim) {
    const raw = this.#live(op);
    const dims = check.optDims(op, dim);
    return new Tensor(raw.reduce(op, dims === undefined ? undefined : Float64Array.from(dims), check.flag(op, 'keepdim', keepdim)));
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
    const dims = check.optDims(op, dim);
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

  reshape(shape) { return new Tensor(this.#live('reshape').reshape(Float64Array.from(check.sizes('reshape', shape)))); }
  /** Like reshape, but never copies: a non-contiguous tensor is an error (use reshape or contiguous()). */
  view(shape) { return new Tensor(this.#live('view').view(Float64Array.from(check.sizes('view', shape)))); }
  flatten() { return this.reshape([-1]); }
  permute(dims) {
    const raw = this.#live('permute');
    if (!Array.isArray(dims)) check.fail(TypeError, 'permute', 'dims', dims, 'an array of dims such as [1, 0]');
    return new Tensor(raw.permute(Float64Array.from(dims.map((d, i) => check.dim('permute', d, `dims[${i}]`)))));
  }
  transpose(a, b) {
    const raw = this.#live('transpose');
    return new Tensor(raw.transpose(check.dim('transpose', a, 'dim0'), check.dim('transpose', b, 'dim1')));
  }
  /** The transpose of a tensor of at most 2 dims (PyTorch's `t()`; more dims is an error: use transpose). */
  t() { return new Tensor(this.#live('t').t()); }
  narrow(dim, start, length) {
    const raw = this.#live('narrow');
    const d = check.dim('narrow', dim);
    return new Tensor(raw.narrow(d, check.integer('narrow', 'start', start, 0), check.integer('narrow', 'length', length, 0)));
  }
  /** Entries `start` (inclusive) to `end` (exclusive, default: the end) of `dim`. */
  slice(dim, start, end) {
    const n = this.size(check.dim('slice', dim));
    const s = check.integer('slice', 'start', start, 0);
    const e = end === undefined || end === null ? n : check.integer('slice', 'end', end, 0);
    if (e < s) throw new RangeError(`slice: end (${e}) must not be less than start (${s})`);
    return this.narrow(dim, s, e - s);
  }
  squeeze(dim) {
    const raw = this.#live('squeeze');
    return new Tensor(raw.squeeze(dim === undefined || dim === null ? undefined : check.dim('squeeze', dim)));
  }
  unsqueeze(dim) { return new Tensor(this.#live('unsqueeze').unsqueeze(check.dim('unsqueeze', dim))); }
  expand(shape) { return new Tensor(this.#live('expand').expand(Float64Array.from(check.sizes('expand', shape)))); }
  broadcastTo(shape) { return this.expand(shape); }
  contiguous() { return new Tensor(this.#live('contiguous').contiguous()); }
  /** Another handle to the same data (free; dispose each handle separately). */
  clone() { return new Tensor(this.#live('clone').cloneHandle()); }
  toDtype(dtype) { return new Tensor(this.#live('toDtype').toDtype(check.dtype('toDtype', dtype))); }
  indexSelect(dim, index) {
    const raw = this.#live('indexSelect');
    return new Tensor(raw.indexSelect(check.dim('indexSelect', dim), rawOf('indexSelect', 'index', index)));
  }
  gather(dim, index) {
    const raw = this.#live('gather');
    return new Tensor(raw.gather(check.dim('gather', dim), rawOf('gather', 'index', index)));
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
    const o = check.options(fn, opts, ['device', 'dtype', ...extra]);
    return { ...o, device: o.device ?? raw.device, dtype: o.dtype ?? LONG[raw.dtype] };
  }

  /** Host data as a typed array (Float32Array for float32 and float16). */
  async data() { return this.#live('data').data(); }
  /** Nested arrays of numbers (booleans for bool tensors). */
  async array() {
    const shape = this.shape;
    const isBool = this.dtype === 'bool';
    const flat = Array.from(await this.data(), (x) => (isBool ? x !== 0 : x));
    const nest = (dims, off) => (dims.length === 0 ? flat[off]
      : Array.from({ length: dims[0] }, (_, i) => nest(dims.slice(1), off + i * dims.slice(1).reduce((a, b) => a * b, 1))));
    return nest(shape, 0);
  }
  /** The value of a one-element tensor (a boolean for bool tensors), as PyTorch's `item()`. */
  async item() { return this.#live('item').item(); }
  /** Synchronous read: only for tensors on the cpu (elsewhere an error says to await data()). */
  dataSync() { return this.#live('dataSync').dataSync(); }
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
  }
  [Symbol.dispose]() { this.dispose(); }
  toString() {
    if (this.disposed) return 'Tensor(disposed)';
    return `Tensor(shape=[${this.shape}], dtype=${this.dtype}, device=${this.device})`;
  }
}

const CREATE = ['device', 'dtype'];

/** Shape and flat values of nested arrays, checking that they are rectangular. */
function nested(fn, values) {
  const shape = [];
  for (let v = values; Array.isArray(v); v = v[0]) shape.push(v.length);
  const flat = [];
  const walk = (v, depth, path) => {
    if (depth === shape.length) {
      if (typeof v !== 'number' && typeof v !== 'boolean') check.fail(TypeError, fn, `values${path}`, v, 'a number or a boolean');
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
 * Int32Array/Uint32Array, float32 otherwise.
 */
export function tensor(values, opts) {
  const fn = 'tensor';
  const o = check.options(fn, opts, ['device', 'dtype', 'shape']);
  const device = check.optDevice(fn, o.device);
  let shape;
  let flat;
  let inferred = 'f32';
  if (typeof values === 'number' || typeof values === 'boolean') {
    shape = [];
    flat = [values];
    if (typeof values === 'boolean') inferred = 'bool';
  } else if (Array.isArray(values)) {
    ({ shape, flat } = nested(fn, values));
    if (flat.length && flat.every((x) => typeof x === 'boolean')) inferred = 'bool';
  } else if (ArrayBuffer.isView(values) && !(values instanceof DataView) && typeof values[Symbol.iterator] === 'function') {
    if (typeof values[0] === 'bigint' || values instanceof BigInt64Array || values instanceof BigUint64Array) {
      check.fail(TypeError, fn, 'values', values, 'numbers (64-bit integer arrays are not supported)');
    }
    shape = [values.length];
    flat = values;
    if (values instanceof Int32Array) inferred = 'i32';
    if (values instanceof Uint32Array) inferred = 'u32';
  } else {
    check.fail(TypeError, fn, 'values', values, 'a number, a boolean, (nested) arrays of them, or a typed array');
  }
  if (o.shape !== undefined) shape = check.shape(fn, o.shape, 'options.shape');
  const dtype = check.dtype(fn, o.dtype, inferred);
  const dims = Float64Array.from(shape);
  const w = core();
  if (dtype === 'i32' && values instanceof Int32Array) return new Tensor(w.RawTensor.fromI32(values, dims, device));
  if (dtype === 'u32' && values instanceof Uint32Array) return new Tensor(w.RawTensor.fromU32(values, dims, device));
  if (dtype === 'i32' || dtype === 'u32') {
    const out = dtype === 'i32' ? new Int32Array(flat.length) : new Uint32Array(flat.length);
    for (let i = 0; i < flat.length; i++) {
      const x = typeof flat[i] === 'boolean' ? +flat[i] : flat[i];
      out[i] = check.fitsDtype(fn, `values[${i}]`, Math.trunc(x), dtype);
    }
    return new Tensor(dtype === 'i32' ? w.RawTensor.fromI32(out, dims, device) : w.RawTensor.fromU32(out, dims, device));
  }
  if (dtype === 'bool') return new Tensor(w.RawTensor.fromBool(Uint8Array.from(flat, (x) => (x ? 1 : 0)), dims, device));
  const data = flat instanceof Float32Array ? flat : Float32Array.from(flat, Number);
  return new Tensor(w.RawTensor.fromF32(data, dims, dtype, device));
}

/** `value` in `shape` (an array, or one integer for 1-D). */
export function full(shape, value, opts) {
  const fn = 'full';
  const o = check.options(fn, opts, CREATE);
  const s = check.shape(fn, shape);
  const dtype = check.dtype(fn, o.dtype);
  const v = check.number(fn, 'value', value);
  if (dtype === 'i32' || dtype === 'u32') check.fitsDtype(fn, 'value', v, dtype);
  return new Tensor(core().RawTensor.full(Float64Array.from(s), v, dtype, check.optDevice(fn, o.device)));
}
export function zeros(shape, opts) { return full(shape, 0, opts); }
export function ones(shape, opts) { return full(shape, 1, opts); }

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
  return new Tensor(core().RawTensor.arange(start, end, step, check.dtype(fn, o.dtype), check.optDevice(fn, o.device)));
}

function random(fn, shape, opts, normal) {
  const o = check.options(fn, opts, ['device', 'dtype', 'seed']);
  const s = check.shape(fn, shape);
  const seed = o.seed === undefined || o.seed === null ? undefined : check.integer(fn, 'seed', o.seed, 0);
  return new Tensor(core().RawTensor.random(Float64Array.from(s), normal, seed, check.dtype(fn, o.dtype), check.optDevice(fn, o.device)));
}
/** Uniform samples in [0, 1) (float32 or float16); the same seed gives the same values on every device. */
export function rand(shape, opts) { return random('rand', shape, opts, false); }
/** Standard normal samples (float32 or float16); the same seed gives the same values on every device. */
export function randn(shape, opts) { return random('randn', shape, opts, true); }

function likeOptions(fn, t, opts, extra = []) {
  const raw = rawOf(fn, 'input', t);
  const o = check.options(fn, opts, ['device', 'dtype', ...extra]);
  return { ...o, device: o.device ?? raw.device, dtype: o.dtype ?? LONG[raw.dtype] };
}
/** Zeros with `t`'s shape, dtype and device (options override dtype and device). */
export function zerosLike(t, opts) { return full(t?.shape, 0, likeOptions('zerosLike', t, opts)); }
/** Ones with `t`'s shape, dtype and device. */
export function onesLike(t, opts) { return full(t?.shape, 1, likeOptions('onesLike', t, opts)); }
/** `value` with `t`'s shape, dtype and device. */
export function fullLike(t, value, opts) { return full(t?.shape, value, likeOptions('fullLike', t, opts)); }
/** Uniform samples with `t`'s shape, dtype (a float one) and device. */
export function randLike(t, opts) { return rand(t?.shape, likeOptions('randLike', t, opts, ['seed'])); }
/** Normal samples with `t`'s shape, dtype (a float one) and device. */
export function randnLike(t, opts) { return randn(t?.shape, likeOptions('randnLike', t, opts, ['seed'])); }

function parts(fn, tensors) {
  if (!Array.isArray(tensors)) check.fail(TypeError, fn, 'tensors', tensors, 'an array of Tensors');
  // Check every part before cloning any handle: a handle cloned before a later part fails would
  // never be freed (raw handles have no finalizer).
  const raws = tensors.map((t, i) => rawOf(fn, `tensors[${i}]`, t));
  return raws.map((r) => r.cloneHandle());
}
export function cat(tensors, dim = 0) {
  const d = check.dim('cat', dim);
  return new Tensor(core().RawTensor.cat(parts('cat', tensors), d));
}
export function stack(tensors, dim = 0) {
  const d = check.dim('stack', dim);
  return new Tensor(core().RawTensor.stack(parts('stack', tensors), d));
}

/**
 * Runs `fn` (optionally named first, as in TensorFlow.js), then disposes every tensor it created
 * except those in its result. If `fn` throws, every tensor it created is disposed and the error
 * is rethrown. `fn` must be synchronous: an async function, or a returned Promise, is a TypeError.
 */
export function tidy(nameOrFn, maybeFn) {
  const fn = check.syncFunction('tidy', typeof nameOrFn === 'string' ? maybeFn : nameOrFn);
  const scope = new Set();
  scopes.push(scope);
  let result;
  try {
    result = check.notPromise('tidy', fn());
  } catch (e) {
    scopes.pop();
    for (const t of scope) t.dispose();
    throw e;
  }
  scopes.pop();
  const keep = new Set();
  const seen = new Set();
  const visit = (v) => {
    if (v instanceof Tensor) keep.add(v);
    else if (v && typeof v === 'object' && !seen.has(v) && !ArrayBuffer.isView(v)) {
      seen.add(v);
      (v instanceof Map ? [...v.values()] : Object.values(v)).forEach(visit);
    }
  };
  visit(result);
  for (const t of scope) {
    if (!keep.has(t)) t.dispose();
    else if (scopes.length) scopes[scopes.length - 1].add(t);
  }
  return result;
}

/**
 * Runs `fn` with `device` as the placement of tensors created without one (TensorFlow's
 * `with tf.device(...)`); scopes nest. Ops still need their inputs on one device. `fn` must be
 * synchronous.
 */
export function withDevice(device, fn) {
  const d = check.device('withDevice', device);
  const f = check.syncFunction('withDevice', fn);
  const depth = core().enterDeviceScope(d);
  try {
    return check.notPromise('withDevice', f());
  } finally {
    core().exitDeviceScope(depth);
  }
}

const dev = (fn, d) => check.device(fn, d);
export const devices = () => core().devices();
export const bestDevice = () => core().bestDevice();
export const open = async (device) => core().open(dev('open', device));
export const synchronize = async (device) => core().synchronize(dev('synchronize', device));
export const setDefaultDevice = (device) => core().setDefaultDevice(dev('setDefaultDevice', device));
export const defaultDevice = () => core().defaultDevice();
/** Whether a device of `kind` ('cpu', 'webgpu', 'cuda', 'meta', or 'gpu' for any accelerator) is usable. */
export const isAvailable = (kind) => core().isAvailable(kindOf('isAvailable', kind));
/** How many devices of `kind` are usable. */
export const deviceCount = (kind) => core().deviceCount(kindOf('deviceCount', kind));
function kindOf(fn, kind) {
  if (typeof kind !== 'string') check.fail(TypeError, fn, 'kind', kind, "one of 'cpu', 'webgpu', 'cuda', 'meta', 'gpu'");
  return kind;
}
export const memoryAllocated = (device) => core().memoryAllocated(dev('memoryAllocated', device));
export const memoryReserved = (device) => core().memoryReserved(dev('memoryReserved', device));
export const maxMemoryAllocated = (device) => core().maxMemoryAllocated(dev('maxMemoryAllocated', device));
export const resetPeakMemoryStats = (device) => core().resetPeakMemoryStats(dev('resetPeakMemoryStats', device));
export const emptyCache = (device) => core().emptyCache(dev('emptyCache', device));
export const memorySummary = (device) => core().memorySummary(dev('memorySummary', device));
/** A device's allocator counters: `{ allocated, reserved, peak, allocations }`. */
export const memoryStats = (device) => core().memoryStats(dev('memoryStats', device));

/**
 * What is alive, as TensorFlow.js's `tf.memory()`: live Tensor objects and the bytes their
 * storage holds, in total and per device (devices with live tensors, and the cpu). Compare two
 * snapshots to find a leak.
 */
export function memory() {
  const w = core();
  const perDevice = {};
  let numTensors = 0;
  let numBytes = 0;
  const live = w.liveTensors(); // counted by the core's handles
  for (const name of new Set(['cpu', ...Object.keys(live)])) {
    const n = live[name] ?? 0;
    let allocated = 0;
    let reserved = 0;
    try {
      const s = w.memoryStats(name);
      allocated = s.allocated;
      reserved = s.reserved;
    } catch {
      // A lost or unopened device has no counters; its tensors still count.
    }
    perDevice[name] = { numTensors: n, numBytes: allocated, reserved };
    numTensors += n;
    numBytes += allocated;
  }
  return { numTensors, numBytes, devices: perDevice };
}

// Device management (see the README): soft placement, the placement log, memory limits,
// transfer counters, timing events, recovery after device loss, logical devices, launch blocking.
export const setSoftDevicePlacement = (on) => core().setSoftDevicePlacement(check.flag('setSoftDevicePlacement', 'on', on));
export const softDevicePlacement = () => core().softDevicePlacement();
export const setLogDevicePlacement = (on) => core().setLogDevicePlacement(check.flag('setLogDevicePlacement', 'on', on));
export const placementLog = () => core().placementLog();
export const clearPlacementLog = () => core().clearPlacementLog();
/** A hard memory limit in bytes on `device` (`null` removes it). */
export function setMemoryLimit(device, bytes) {
  const d = dev('setMemoryLimit', device);
  const b = bytes === undefined || bytes === null ? undefined : check.integer('setMemoryLimit', 'bytes', bytes, 0);
  return core().setMemoryLimit(d, b);
}
export const memoryLimit = (device) => core().memoryLimit(dev('memoryLimit', device)) ?? null;
export const transferStats = (device) => core().transferStats(dev('transferStats', device));
export const resetTransferStats = (device) => core().resetTransferStats(dev('resetTransferStats', device));
export const recover = async (device) => core().recover(dev('recover', device));
export function setLogicalDeviceConfiguration(device, configs) {
  const d = dev('setLogicalDeviceConfiguration', device);
  if (!Array.isArray(configs)) check.fail(TypeError, 'setLogicalDeviceConfiguration', 'configs', configs, 'an array of { memoryLimit } objects');
  return core().setLogicalDeviceConfiguration(d, configs);
}
export const setLaunchBlocking = (on) => core().setLaunchBlocking(check.flag('setLaunchBlocking', 'on', on));
export const launchBlocking = () => core().launchBlocking();
/** @internal Test hook: makes the next kernel on `device` invalid. */
export const __injectDispatchError = (device) => core().__injectDispatchError(dev('__injectDispatchError', device));
/** @internal Test hook: destroys `device`, which is then reported lost (see `recover`). */
export const __destroyDevice = (device) => core().__destroyDevice(dev('__destroyDevice', device));
/** @internal The core's op table, which the suite checks this class and the types against. */
export const __opTable = () => core().opTable();

/** A point in a device's queued work, for timing (GPU timestamps where available). */
export class Event {
  /** @internal */
  constructor(raw, device) {
    this.raw = raw;
    this.device = device;
  }
  static async record(device) {
    const d = dev('Event.record', device);
    return new Event(await core().RawEvent.record(d), d);
  }
  /** 'timestamp-query' or 'wall-clock'. */
  get method() { return this.raw.method; }
  /** Milliseconds from this event to `end`. */
  elapsedMs(end) {
    if (!(end instanceof Event)) check.fail(TypeError, 'elapsedMs', 'end', end, 'an Event');
    return this.raw.elapsedMs(end.raw);
  }
}
