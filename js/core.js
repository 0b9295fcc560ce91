// The user-facing API over the wasm exports: PyTorch concepts in JavaScript spelling. This layer
// only adapts arguments (numbers or tensors, arrays, options) and manages object lifetimes; every
// rule (shapes, dtypes, devices, errors) lives in the Rust core.

let wasm = null;

/** @internal Called by the entry points once the .wasm module is instantiated. */
export function bind(exports) {
  wasm = exports;
}

function core() {
  if (!wasm) throw new Error('webtensor is not initialised: await init() first');
  return wasm;
}

// Safety net, never the contract: a Tensor collected without dispose() frees its wasm side.
const finalizer = new FinalizationRegistry((raw) => raw.free());
// Scopes of wt.tidy(), innermost last: tensors created inside are disposed on exit.
const scopes = [];

const DTYPES = ['float32', 'float16', 'int32', 'uint32', 'bool'];
const SHORT = { float32: 'f32', float16: 'f16', int32: 'i32', uint32: 'u32', bool: 'bool' };
const LONG = { f32: 'float32', f16: 'float16', i32: 'int32', u32: 'uint32', bool: 'bool' };

function dtypeName(dtype) {
  if (dtype === undefined) return 'f32';
  if (SHORT[dtype]) return SHORT[dtype];
  if (LONG[dtype]) return dtype;
  throw new Error(`unknown dtype '${dtype}'; expected one of ${DTYPES.join(', ')}`);
}

function shapeOf(values) {
  const shape = [];
  let v = values;
  while (Array.isArray(v)) {
    shape.push(v.length);
    v = v[0];
  }
  return shape;
}

export class Tensor {
  /** @internal */
  constructor(raw) {
    this.raw = raw;
    this.disposed = false;
    finalizer.register(this, raw, this);
    if (scopes.length) scopes[scopes.length - 1].add(this);
  }

  #live() {
    if (this.disposed) throw new Error('this tensor was disposed; it can no longer be used');
    return this.raw;
  }

  get shape() { return Array.from(this.#live().shape); }
  get dtype() { return LONG[this.#live().dtype]; }
  get device() { return this.#live().device; }
  get size() { return this.#live().numel; }
  get rank() { return this.shape.length; }

  #binary(op, other) {
    const raw = this.#live();
    if (typeof other === 'number') return new Tensor(raw.binaryScalar(op, other));
    if (other instanceof Tensor) return new Tensor(raw.binary(op, other.#live()));
    throw new Error(`${op}: expected a Tensor or a number, got ${typeof other}`);
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

  #unary(op) { return new Tensor(this.#live().unary(op)); }
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

  where(a, b) { return new Tensor(this.#live().whereThen(a.#live(), b.#live())); }
  clamp(min, max) { return new Tensor(this.#live().clamp(min ?? undefined, max ?? undefined)); }

  #reduce(op, dim, keepdim) {
    const dims = dim === undefined || dim === null ? undefined : Int32Array.from([dim].flat());
    return new Tensor(this.#live().reduce(op, dims, !!keepdim));
  }
  sum(dim, keepdim) { return this.#reduce('sum', dim, keepdim); }
  mean(dim, keepdim) { return this.#reduce('mean', dim, keepdim); }
  max(dim, keepdim) { return this.#reduce('max', dim, keepdim); }
  min(dim, keepdim) { return this.#reduce('min', dim, keepdim); }
  prod(dim, keepdim) { return this.#reduce('prod', dim, keepdim); }
  argmax(dim, keepdim) { return new Tensor(this.#live().arg(true, dim ?? undefined, !!keepdim)); }
  argmin(dim, keepdim) { return new Tensor(this.#live().arg(false, dim ?? undefined, !!keepdim)); }
  var(dim, { correction = 1, keepdim = false } = {}) {
    const dims = dim === undefined || dim === null ? undefined : Int32Array.from([dim].flat());
    return new Tensor(this.#live().moments(false, dims, correction, keepdim));
  }
  std(dim, { correction = 1, keepdim = false } = {}) {
    const dims = dim === undefined || dim === null ? undefined : Int32Array.from([dim].flat());
    return new Tensor(this.#live().moments(true, dims, correction, keepdim));
  }
  softmax(dim = -1) { return new Tensor(this.#live().softmax(dim, false)); }
  logSoftmax(dim = -1) { return new Tensor(this.#live().softmax(dim, true)); }
  matmul(o) { return new Tensor(this.#live().matmul(o.#live())); }

  reshape(shape) { return new Tensor(this.#live().reshape(Int32Array.from(shape))); }
  view(shape) { return this.reshape(shape); }
  flatten() { return this.reshape([-1]); }
  permute(dims) { return new Tensor(this.#live().permute(Int32Array.from(dims))); }
  transpose(a, b) { return new Tensor(this.#live().transpose(a, b)); }
  t() { return this.rank < 2 ? this.clone() : this.transpose(0, 1); }
  narrow(dim, start, length) { return new Tensor(this.#live().narrow(dim, start, length)); }
  slice(dim, start, end) { return this.narrow(dim, start, end - start); }
  squeeze(dim) { return new Tensor(this.#live().squeeze(dim ?? undefined)); }
  unsqueeze(dim) { return new Tensor(this.#live().unsqueeze(dim)); }
  expand(shape) { return new Tensor(this.#live().expand(Int32Array.from(shape))); }
  broadcastTo(shape) { return this.expand(shape); }
  contiguous() { return new Tensor(this.#live().contiguous()); }
  clone() { return new Tensor(this.#live().cloneHandle()); }
  toDtype(dtype) { return new Tensor(this.#live().toDtype(dtypeName(dtype))); }
  indexSelect(dim, index) { return new Tensor(this.#live().indexSelect(dim, index.#live())); }
  gather(dim, index) { return new Tensor(this.#live().gather(dim, index.#live())); }

  /** Host data as a typed array (Float32Array for float32 and float16). */
  async data() { return this.#live().data(); }
  /** Nested arrays of numbers (booleans for bool tensors). */
  async array() {
    const flat = Array.from(await this.data(), (x) => (this.dtype === 'bool' ? x !== 0 : x));
    const nest = (dims, off) => (dims.length === 0 ? flat[off]
      : Array.from({ length: dims[0] }, (_, i) => nest(dims.slice(1), off + i * dims.slice(1).reduce((a, b) => a * b, 1))));
    return nest(this.shape, 0);
  }
  /** Synchronous read: only for tensors on the cpu (elsewhere an error says to await data()). */
  dataSync() { return this.#live().dataSync(); }
  /** A copy on `device`; this tensor is untouched. */
  async to(device) { return new Tensor(await this.#live().to(device)); }
  async cpu() { return this.to('cpu'); }

  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    finalizer.unregister(this);
    this.raw.free();
    for (const s of scopes) s.delete(this);
  }
  [Symbol.dispose]() { this.dispose(); }
  toString() { return `Tensor(shape=[${this.shape}], dtype=${this.dtype}, device=${this.device})`; }
}

function options(o) {
  return { device: o?.device ?? undefined, dtype: dtypeName(o?.dtype) };
}

/** A tensor from (nested) arrays or a typed array; `shape` is required for typed arrays. */
export function tensor(values, opts = {}) {
  const { device, dtype } = options(opts);
  const shape = opts.shape ?? (ArrayBuffer.isView(values) ? [values.length] : shapeOf(values));
  const flat = ArrayBuffer.isView(values) ? values : values.flat(Infinity);
  const w = core();
  if (dtype === 'i32') return new Tensor(w.RawTensor.fromI32(Int32Array.from(flat), Uint32Array.from(shape), device));
  if (dtype === 'u32') return new Tensor(w.RawTensor.fromU32(Uint32Array.from(flat), Uint32Array.from(shape), device));
  if (dtype === 'bool') return new Tensor(w.RawTensor.fromBool(Uint8Array.from(flat, (x) => (x ? 1 : 0)), Uint32Array.from(shape), device));
  return new Tensor(w.RawTensor.fromF32(Float32Array.from(flat), Uint32Array.from(shape), dtype, device));
}

export function full(shape, value, opts = {}) {
  const { device, dtype } = options(opts);
  return new Tensor(core().RawTensor.full(Uint32Array.from(shape), value, dtype, device));
}
export const zeros = (shape, opts) => full(shape, 0, opts);
export const ones = (shape, opts) => full(shape, 1, opts);
export function arange(start, end, step = 1, opts = {}) {
  const { device, dtype } = options(opts);
  return new Tensor(core().RawTensor.arange(start, end, step, dtype, device));
}
export function rand(shape, opts = {}) {
  return new Tensor(core().RawTensor.random(Uint32Array.from(shape), false, opts.seed, opts.device));
}
export function randn(shape, opts = {}) {
  return new Tensor(core().RawTensor.random(Uint32Array.from(shape), true, opts.seed, opts.device));
}
export function cat(tensors, dim = 0) {
  return new Tensor(core().RawTensor.cat(tensors.map((t) => t.raw.cloneHandle()), dim));
}
export function stack(tensors, dim = 0) {
  return new Tensor(core().RawTensor.stack(tensors.map((t) => t.raw.cloneHandle()), dim));
}

/** Runs `fn`, then disposes every tensor it created except those it returns. */
export function tidy(fn) {
  const scope = new Set();
  scopes.push(scope);
  let result;
  try {
    result = fn();
  } finally {
    scopes.pop();
  }
  const keep = new Set();
  const visit = (v) => {
    if (v instanceof Tensor) keep.add(v);
    else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') Object.values(v).forEach(visit);
  };
  visit(result);
  for (const t of scope) {
    if (!keep.has(t)) t.dispose();
    else if (scopes.length) scopes[scopes.length - 1].add(t);
  }
  return result;
}

export const devices = () => core().devices();
export const bestDevice = () => core().bestDevice();
export const open = (device) => core().open(device);
export const synchronize = (device) => core().synchronize(device);
export const setDefaultDevice = (device) => core().setDefaultDevice(device);
export const defaultDevice = () => core().defaultDevice();
export const memoryAllocated = (device) => core().memoryAllocated(device);
export const memoryReserved = (device) => core().memoryReserved(device);
export const maxMemoryAllocated = (device) => core().maxMemoryAllocated(device);
export const resetPeakMemoryStats = (device) => core().resetPeakMemoryStats(device);
export const emptyCache = (device) => core().emptyCache(device);
export const memorySummary = (device) => core().memorySummary(device);

// Device management (see the README): soft placement, the placement log, memory limits,
// transfer counters, timing events, recovery after device loss, logical devices, launch blocking.
export const setSoftDevicePlacement = (on) => core().setSoftDevicePlacement(!!on);
export const softDevicePlacement = () => core().softDevicePlacement();
export const setLogDevicePlacement = (on) => core().setLogDevicePlacement(!!on);
export const placementLog = () => core().placementLog();
export const clearPlacementLog = () => core().clearPlacementLog();
export const setMemoryLimit = (device, bytes) => core().setMemoryLimit(device, bytes ?? undefined);
export const memoryLimit = (device) => core().memoryLimit(device) ?? null;
export const transferStats = (device) => core().transferStats(device);
export const resetTransferStats = (device) => core().resetTransferStats(device);
export const recover = (device) => core().recover(device);
export const setLogicalDeviceConfiguration = (device, configs) => core().setLogicalDeviceConfiguration(device, configs);
export const setLaunchBlocking = (on) => core().setLaunchBlocking(!!on);
export const launchBlocking = () => core().launchBlocking();
/** @internal Test hook: makes the next kernel on `device` invalid. */
export const __injectDispatchError = (device) => core().__injectDispatchError(device);
/** @internal Test hook: destroys `device`, which is then reported lost (see `recover`). */
export const __destroyDevice = (device) => core().__destroyDevice(device);

/** A point in a device's queued work, for timing (GPU timestamps where available). */
export class Event {
  /** @internal */
  constructor(raw, device) {
    this.raw = raw;
    this.device = device;
  }
  static async record(device) {
    return new Event(await core().RawEvent.record(device), device);
  }
  /** 'timestamp-query' or 'wall-clock'. */
  get method() { return this.raw.method; }
  /** Milliseconds from this event to `end`. */
  elapsedMs(end) { return this.raw.elapsedMs(end.raw); }
}
