// wt.data: PyTorch's torch.utils.data in JavaScript spelling. A dataset gives samples by index;
// a DataLoader cuts each epoch into batches, in order or in a seeded shuffled order (the same
// order the Rust loader takes for the same seed: both come from the core's `permutation`), and
// yields each batch as an array with one tensor per field and a leading batch dimension.
import * as check from './check.js';
import { core } from './internal.js';
import { Tensor } from './tensor.js';
import { stack, tensor } from './create.js';
import { tidy } from './scope.js';

/**
 * Tensors that share their first dimension, sample `i` being row `i` of each (PyTorch's
 * `TensorDataset`). The dataset does not own them: dispose them yourself when done.
 */
export class TensorDataset {
  #tensors;
  constructor(...tensors) {
    const fn = 'TensorDataset';
    const list = tensors.length === 1 && Array.isArray(tensors[0]) ? tensors[0] : tensors;
    if (list.length === 0) check.fail(TypeError, fn, 'tensors', list, 'at least one Tensor');
    list.forEach((t, k) => {
      if (!(t instanceof Tensor)) check.fail(TypeError, fn, `tensors[${k}]`, t, 'a Tensor');
      if (t.disposed) check.fail(TypeError, fn, `tensors[${k}]`, t, 'a live Tensor (this one was disposed)');
    });
    const first = list[0];
    list.forEach((t, k) => {
      if (t.rank === 0 || t.shape[0] !== (first.shape[0] ?? 0)) {
        throw new RangeError(`${fn}: tensor ${k} has shape [${t.shape}]; every tensor needs the first dimension of tensor 0 ([${first.shape}])`);
      }
      if (t.device !== first.device) throw new RangeError(`${fn}: tensor ${k} is on ${t.device}, tensor 0 on ${first.device}; put them on one device`);
    });
    this.#tensors = [...list];
  }

  /** The number of samples. */
  get length() { return this.#tensors[0].shape[0] ?? 0; }
  /** The tensors, in order. */
  get tensors() { return [...this.#tensors]; }

  /** Sample `i`: one view per tensor. */
  getItem(i) {
    const n = check.integer('TensorDataset.getItem', 'index', i, 0, this.length - 1);
    return this.#tensors.map((t) => t.narrow(0, n, 1).squeeze(0));
  }

  /** The samples at `indices`, batched: one `indexSelect` per tensor. */
  getBatch(indices) {
    return tidy(() => {
      const idx = tensor(Int32Array.from(indices), { device: this.#tensors[0].device });
      return this.#tensors.map((t) => t.indexSelect(0, idx));
    });
  }
}

/** A dataset as the loader uses it: `length`, and `getBatch` (made from `getItem` when missing). */
function asDataset(fn, v) {
  if (Array.isArray(v) && v.every((t) => t instanceof Tensor)) return new TensorDataset(v);
  if (v instanceof Tensor) return new TensorDataset(v);
  if (v && typeof v === 'object' && (typeof v.getBatch === 'function' || typeof v.getItem === 'function')) {
    check.integer(fn, 'dataset.length', v.length, 0, 2 ** 32 - 1);
    return v;
  }
  return check.fail(TypeError, fn, 'dataset', v, 'an array of Tensors, a TensorDataset, or an object with length and getItem(i) or getBatch(indices)');
}

const isPromise = (v) => v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';

/** A sample as its list of fields (a lone Tensor or value is one field). */
const fieldsOf = (s) => (Array.isArray(s) ? s : [s]);

/**
 * One field of a batch from the samples' values (PyTorch's `default_collate`): Tensors stacked;
 * numbers as an int32 tensor when all are integers, else float32; booleans as bool; arrays and
 * typed arrays of numbers as rows (a typed array keeps its dtype).
 */
function collate(values, field) {
  const first = values[0];
  if (first instanceof Tensor) return stack(values, 0);
  const kind = (v) => (typeof v === 'number' || typeof v === 'boolean' ? typeof v : ArrayBuffer.isView(v) ? 'typed' : Array.isArray(v) ? 'array' : 'other');
  const k = kind(first);
  if (k === 'other' || values.some((v) => kind(v) !== k)) {
    throw new TypeError(`DataLoader: field ${field} of the samples must be all Tensors, numbers, booleans, arrays or typed arrays of one kind; got ${check.describe(values.find((v) => kind(v) !== k) ?? first)}`);
  }
  if (k === 'boolean') return tensor(values, { dtype: 'bool' });
  if (k === 'number') return tensor(values, { dtype: values.every(Number.isInteger) && values.every((v) => Math.abs(v) < 2 ** 31) ? 'int32' : 'float32' });
  if (k === 'typed') {
    const n = first.length;
    if (values.some((v) => v.length !== n || v.constructor !== first.constructor)) throw new RangeError(`DataLoader: field ${field}'s typed arrays differ in length or type`);
    const all = new first.constructor(values.length * n);
    values.forEach((v, i) => all.set(v, i * n));
    return tensor(all, { shape: [values.length, n] });
  }
  return tensor(values);
}

/** Checks the samples' shape of fields and collates each field. */
function collateSamples(samples, indices) {
  const fields = samples.map(fieldsOf);
  const n = fields[0].length;
  fields.forEach((s, k) => {
    if (s.length !== n) {
      throw new RangeError(`DataLoader: sample ${indices[k]} has ${s.length} fields, sample ${indices[0]} has ${n}; every sample needs the same fields`);
    }
  });
  return Array.from({ length: n }, (_, f) => collate(fields.map((s) => s[f]), f));
}

/** One batch of a user dataset: its `getBatch`, or its samples' fields collated. */
function batchOf(ds, indices) {
  if (typeof ds.getBatch === 'function') {
    const b = ds.getBatch(indices);
    if (isPromise(b)) throw new TypeError('DataLoader: getBatch returned a Promise; iterate with for await (const batch of loader)');
    return b instanceof Tensor ? [b] : b;
  }
  // Tensors getItem makes inside the scope are disposed once stacked; ones it returns from
  // elsewhere (views it keeps, say) are not, since tidy only frees what was made inside it.
  return tidy(() => {
    const samples = indices.map((i) => ds.getItem(i));
    if (samples.some(isPromise)) throw new TypeError('DataLoader: getItem returned a Promise; iterate with for await (const batch of loader)');
    return collateSamples(samples, indices);
  });
}

/**
 * One batch of a dataset whose `getItem`/`getBatch` may be async (awaited, the items of a batch
 * together). Tensors an async `getItem` returns are stacked and left to it (the loader cannot
 * tell made ones from held ones); numbers, arrays and typed arrays need no disposal.
 */
async function batchOfAsync(ds, indices) {
  if (typeof ds.getBatch === 'function') {
    const b = await ds.getBatch(indices);
    return b instanceof Tensor ? [b] : b;
  }
  const samples = await Promise.all(indices.map((i) => ds.getItem(i)));
  return collateSamples(samples, indices);
}

/**
 * Batches of a dataset, epoch after epoch (PyTorch's `DataLoader`): iterating it (`for (const
 * [xb, yb] of loader)`) runs one epoch, reshuffled each time when `shuffle` is on. Batches are
 * new tensors on the dataset's device: dispose them (or run the step in `wt.tidy`).
 */
export class DataLoader {
  #dataset;
  #batchSize;
  #shuffle;
  #dropLast;
  #seed;
  #epoch = 0n;

  constructor(dataset, opts) {
    check.arity('DataLoader', arguments.length, 2);
    const fn = 'DataLoader';
    this.#dataset = asDataset(fn, dataset);
    const o = check.options(fn, opts, ['batchSize', 'shuffle', 'seed', 'dropLast']);
    this.#batchSize = o.batchSize === undefined ? 1 : check.integer(fn, 'batchSize', o.batchSize, 1);
    this.#shuffle = check.flag(fn, 'shuffle', o.shuffle);
    this.#dropLast = check.flag(fn, 'dropLast', o.dropLast);
    this.#seed = o.seed === undefined ? core().dataSeed() : BigInt(check.integer(fn, 'seed', o.seed, 0));
  }

  /** The dataset. */
  get dataset() { return this.#dataset; }
  /** Samples per batch. */
  get batchSize() { return this.#batchSize; }
  /** Batches per epoch (PyTorch's `len(loader)`). */
  get length() {
    const n = this.#dataset.length;
    return this.#dropLast ? Math.floor(n / this.#batchSize) : Math.ceil(n / this.#batchSize);
  }
  /** Epochs begun so far. */
  get epoch() { return Number(this.#epoch); }

  /** The sample order of epoch `epoch` (default: the next one). */
  order(epoch = this.epoch) {
    const n = this.#dataset.length;
    const e = check.integer('DataLoader.order', 'epoch', epoch, 0);
    return this.#shuffle ? core().dataPermutation(n, this.#seed, BigInt(e)) : Uint32Array.from({ length: n }, (_, i) => i);
  }

  /** One epoch's batches. */
  *[Symbol.iterator]() {
    for (const indices of this.#epochIndices()) yield batchOf(this.#dataset, indices);
  }

  /** One epoch's batches from a dataset whose items or batches may come asynchronously (`for await`). */
  async *[Symbol.asyncIterator]() {
    for (const indices of this.#epochIndices()) yield await batchOfAsync(this.#dataset, indices);
  }

  // The next epoch's batches of sample indices.
  *#epochIndices() {
    const order = this.order();
    this.#epoch += 1n;
    const b = this.#batchSize;
    for (let start = 0; start < order.length; start += b) {
      const indices = Array.from(order.subarray(start, Math.min(start + b, order.length)));
      if (this.#dropLast && indices.length < b) return;
      yield indices;
    }
  }
}
