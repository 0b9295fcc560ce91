// wt.parallel: data parallelism across devices in one page or process (PyTorch's DDP and
// TensorFlow's MirroredStrategy without processes or a network) over Rust's algorithm: one
// replica of a module per device, the global batch split as tensor_split, each shard's mean loss
// weighted by its share (times the replicas) so the averaged gradient is exactly the global
// batch's, and the gradients averaged by the core's DistributedDataParallel reducer
// (RawDataParallel: a local process group, buckets started from gradient hooks while each
// replica's backward runs). This file keeps what only JS can do: building the JS modules,
// running their forwards, checking the loss; buffers broadcast from the first replica; one
// optimizer per replica stepped together.
import * as check from './check.js';
import { cat } from './create.js';
import { core } from './internal.js';
import { ownRaws } from './nnargs.js';
import { Tensor, rawOf } from './tensor.js';
import { Module } from './module.js';

/** How `n` rows split over `parts` replicas: the first `n % parts` shards one row larger. */
export function splitSizes(n, parts) {
  const fn = 'splitSizes';
  check.integer(fn, 'n', n, 0, 2 ** 32 - 1);
  check.integer(fn, 'parts', parts, 0, 1024);
  return Array.from({ length: parts }, (_, i) => Math.floor(n / parts) + (i < n % parts ? 1 : 0));
}

/** Disposes each tensor that is not one of `keep`. */
function disposeAll(list, keep = []) {
  for (const t of list) if (t && !keep.includes(t) && !t.disposed) t.dispose();
}

/**
 * One replica of a module per device. Make it with `await DataParallel.create(devices, build)`,
 * where `build(device)` returns (or resolves to) a module whose parameters are on `device`.
 */
export class DataParallel {
  #replicas;
  #devices;
  // The core's reducer over the replicas' parameters (see src/wasm/parallel.rs).
  #raw;
  // Loss functions found to be means over the batch (see #checkMean).
  #means = new WeakSet();

  /** @internal Use `DataParallel.create`. */
  constructor(replicas, devices) {
    this.#replicas = replicas;
    this.#devices = devices;
    const names = replicas[0].namedParameters().map(([k]) => k);
    this.#raw = new (core().RawDataParallel)(this.#paramRaws('DataParallel.create'), names, replicas.length);
  }

  /** Handles of every replica's current parameters, row-major (replica by replica). */
  #paramRaws(fn) {
    return this.#replicas.flatMap((r, i) => ownRaws(fn, r.parameters().map((p, j) => [`replicas[${i}].parameters()[${j}]`, p])));
  }

  /** Handles of replica `i`'s current parameters. */
  #rowRaws(fn, i) {
    return ownRaws(fn, this.#replicas[i].parameters().map((p, j) => [`replicas[${i}].parameters()[${j}]`, p]));
  }

  /**
   * Builds one replica per device, then loads the first replica's state into the others, so
   * every replica starts from the same weights whatever `build` drew.
   */
  static async create(devices, build) {
    const fn = 'DataParallel.create';
    if (!Array.isArray(devices) || devices.length === 0) {
      check.fail(TypeError, fn, 'devices', devices, "a non-empty array of devices (e.g. ['webgpu:0', 'webgpu:1'])");
    }
    // Every spelling (TensorFlow's '/GPU:0', an index, a DeviceInfo, 'webgpu') by the name
    // tensors on it report, so that the checks below compare like with like.
    const names = devices.map((d, i) => core().canonicalDevice(check.device(fn, d, `devices[${i}]`)));
    names.forEach((d, i) => {
      if (names.indexOf(d) !== i) throw new RangeError(`${fn}: devices[${i}] (${JSON.stringify(devices[i])}) is ${d}, which is listed twice; give each device once`);
    });
    if (typeof build !== 'function') check.fail(TypeError, fn, 'build', build, 'a function (device) => Module');
    const replicas = [];
    try {
      for (const d of names) {
        const m = await build(d);
        if (!(m instanceof Module)) check.fail(TypeError, fn, `build('${d}')`, m, 'a wt.nn.Module');
        replicas.push(m);
        const off = m.parameters().find((p) => p.device !== d);
        if (off) {
          throw new RangeError(`${fn}: build('${d}') returned a module with a parameter on ${off.device}; build(device) must create the module on the device it is given (${d})`);
        }
      }
      const dp = new DataParallel(replicas, names);
      await dp.syncReplicas();
      return dp;
    } catch (e) {
      for (const r of replicas) r.dispose();
      throw e;
    }
  }

  /** The devices, one per replica. */
  get devices() { return [...this.#devices]; }
  /** The replicas, one per device. */
  get replicas() { return [...this.#replicas]; }
  /** The first replica: evaluate and save this one (its stateDict has the plain module's keys). */
  get module() { return this.#replicas[0]; }

  /** One optimizer per replica from `make(parameters)`, stepped together (see `Replicated`). */
  optimizer(make) {
    if (typeof make !== 'function') check.fail(TypeError, 'DataParallel.optimizer', 'make', make, 'a function (parameters) => Optimizer');
    return new Replicated(this.#replicas.map((r) => make(r.parameters())));
  }

  /**
   * A training step's forward and backward over a global batch: splits `input` and `target`
   * along dim 0, moves each shard to its replica's device, runs `lossFn(output, shardTarget)`
   * (a scalar mean over the shard), weights it by the shard's share, runs backward, then
   * all-reduces this batch's gradients. Gradients accumulate into what the parameters held, as
   * backward does (micro-batches can be accumulated before a step); for a plain step call
   * `optimizer.zeroGrad()` first.
   * Resolves to the global batch's mean loss (a detached Tensor on the first device).
   */
  async forwardBackward(input, target, lossFn) {
    const fn = 'DataParallel.forwardBackward';
    for (const [name, t] of [['input', input], ['target', target]]) {
      if (!(t instanceof Tensor) || t.disposed) check.fail(TypeError, fn, name, t, 'a live Tensor');
      if (t.rank === 0) throw new RangeError(`${fn}: ${name} is a scalar; give a batch with the rows along dim 0`);
    }
    if (typeof lossFn !== 'function') check.fail(TypeError, fn, 'lossFn', lossFn, 'a function (output, target) => scalar Tensor');
    const n = input.shape[0];
    if (target.shape[0] !== n) throw new RangeError(`${fn}: input has ${n} rows but target has ${target.shape[0]}; give one target row per input row`);
    if (n === 0) throw new RangeError(`${fn}: an empty batch; give at least one row`);
    await this.broadcastBuffers();
    // Gradients already held (accumulation over micro-batches) are set aside so the all-reduce
    // sums only this batch's, then added back: summed too, they would count once per replica.
    const held = this.#replicas.map((r) => r.parameters().map((p) => p.grad));
    for (const r of this.#replicas) r.zeroGrad();
    let total = null;
    try {
      total = await this.#fresh(fn, input, target, n, lossFn);
    } finally {
      this.#addBack(held);
    }
    return total;
  }

  /**
   * Refuses a loss that is not a mean over its batch (a sum, say): each shard's loss is weighted
   * by its share of the global batch, which gives the global batch's loss only for a mean. A
   * mean over the shard given twice is the same; a sum doubles. Checked once per loss function.
   */
  async #checkMean(fn, lossFn, out, y) {
    if (this.#means.has(lossFn)) return;
    const temps = [];
    try {
      const o = out.detach();
      temps.push(o);
      const once = lossFn(o, y);
      if (once instanceof Tensor) temps.push(once);
      if (!(once instanceof Tensor) || once.numel() !== 1 || !once.dtype.startsWith('float')) return; // reported below
      const [o2, y2] = [cat([o, o]), cat([y, y])];
      temps.push(o2, y2);
      const twice = lossFn(o2, y2);
      temps.push(twice);
      const [a, b] = [await once.item(), await twice.item()];
      if (!(Math.abs(b - a) <= 1e-4 * Math.max(1, Math.abs(a))) && !(Number.isNaN(a) && Number.isNaN(b))) {
        throw new TypeError(`${fn}: lossFn is not a mean over the batch (its shard gives ${a}, the shard given twice ${b}); DataParallel weights each shard's loss by its share of the global batch, which is right only for a mean: use reduction 'mean' (the losses' default)`);
      }
      this.#means.add(lossFn);
    } finally {
      disposeAll(temps);
    }
  }

  /**
   * forwardBackward on parameters without gradients: each replica's backward on its shard (the
   * core's reducer starts the buckets' averaging from its gradient hooks), a replica without
   * rows joining with zeros, then every replica's averaged gradients; resolves to the loss.
   */
  async #fresh(fn, input, target, n, lossFn) {
    const home = this.#devices[0];
    const world = this.#devices.length;
    const parts = [];
    let start = 0;
    const sizes = splitSizes(n, world);
    try {
      for (let i = 0; i < sizes.length; i++) {
        const rows = sizes[i];
        if (rows === 0) {
          this.#raw.joinWithoutBatch(i, this.#rowRaws(fn, i));
          continue;
        }
        const d = this.#devices[i];
        const temps = [];
        try {
          const xs = input.narrow(0, start, rows);
          const ys = target.narrow(0, start, rows);
          temps.push(xs, ys);
          start += rows;
          const x = await xs.to(d);
          const y = await ys.to(d);
          temps.push(x, y);
          const out = this.#replicas[i].forward(x);
          temps.push(out);
          await this.#checkMean(fn, lossFn, out, y);
          const loss = lossFn(out, y);
          if (loss instanceof Tensor) temps.push(loss);
          if (!(loss instanceof Tensor) || loss.numel() !== 1 || !loss.dtype.startsWith('float')) {
            const what = loss instanceof Tensor ? `a ${loss.dtype} tensor of shape [${loss.shape}]` : typeof loss;
            throw new TypeError(`${fn}: lossFn returned ${what}; it must return one floating-point value, the mean loss over its shard`);
          }
          this.#raw.prepare(i, this.#rowRaws(fn, i), rawOf(fn, 'loss', loss));
          // Averaged over the replicas: the share times the replicas gives the global mean.
          const weighted = loss.mul((rows * world) / n);
          temps.push(weighted);
          await weighted.backwardAsync();
          const detached = weighted.detach();
          temps.push(detached);
          // Moved to the first device after every replica's work is queued (a move off a GPU
          // reads back, which would wait for this replica before the next starts).
          parts.push(detached.reshape([]));
        } finally {
          disposeAll(temps);
        }
      }
      await this.#raw.finish();
      let total = null;
      for (const part of parts) {
        const moved = await part.to(home);
        if (total === null) total = moved;
        else {
          const sum = total.add(moved);
          disposeAll([total, moved]);
          total = sum;
        }
      }
      const mean = total.div(world);
      total.dispose();
      return mean;
    } catch (e) {
      // Some replicas may have joined collectives the others never will.
      this.#raw.reset();
      throw e;
    } finally {
      disposeAll(parts);
    }
  }

  /** Adds the gradients set aside before a forwardBackward back to each replica's. */
  #addBack(held) {
    this.#replicas.forEach((r, i) => r.parameters().forEach((p, j) => {
      const old = held[i][j];
      if (!old) return;
      const now = p.grad;
      if (now) {
        const sum = old.add(now);
        p.grad = sum;
        disposeAll([sum, now]);
      } else {
        p.grad = old;
      }
      old.dispose();
    }));
  }

  /**
   * Copies the first replica's parameters and buffers into the others: after a step that failed
   * partway (an out-of-memory on a later replica leaves the earlier ones stepped), or now and
   * then when replicas on different kinds of device could drift by rounding.
   */
  async syncReplicas() {
    const first = this.#replicas[0].stateDict();
    try {
      for (const r of this.#replicas.slice(1)) await r.loadStateDict(first);
    } finally {
      disposeAll(Object.values(first));
    }
  }

  /**
   * Sums each parameter's gradient over the replicas (in device order, on the first device,
   * through the core's local group) and gives every replica the sum. Every sum is made before
   * any gradient is replaced.
   */
  async allReduceGradients() {
    const fn = 'DataParallel.allReduceGradients';
    const per = this.#replicas.map((r) => r.parameters());
    const count = per[0].length;
    per.forEach((p, i) => {
      if (p.length !== count) throw new Error(`${fn}: replica 0 has ${count} parameters but replica ${i} has ${p.length}; replicas must have the same structure`);
    });
    await this.#raw.allReduceGradients(this.#paramRaws(fn));
  }

  /** Copies the first replica's buffers (BatchNorm's running statistics) into the others. */
  async broadcastBuffers() {
    const first = this.#replicas[0].namedBuffers();
    if (first.length === 0) return;
    const dict = Object.fromEntries(first.map(([k, b]) => [k, b]));
    for (const r of this.#replicas.slice(1)) {
      const own = r.namedBuffers();
      const part = Object.fromEntries(own.map(([k]) => [k, dict[k]]));
      await r.loadStateDict(part, { strict: false });
    }
  }

  /** Frees every replica. */
  dispose() {
    for (const r of this.#replicas) r.dispose();
    this.#raw?.free();
    this.#raw = undefined;
  }
}

/**
 * The optimizers of a DataParallel's replicas, driven as one: `step()` steps each,
 * `zeroGrad()` clears each, `lr` sets each. One optimizer per replica keeps each replica's
 * state (momentum, moments) on its own device.
 */
export class Replicated {
  #opts;
  /** @internal Use `DataParallel.optimizer`. */
  constructor(opts) { this.#opts = opts; }
  /** The optimizers, one per replica. */
  get optimizers() { return [...this.#opts]; }
  /** The first replica's parameters. */
  get params() { return this.#opts[0].params; }
  get lr() { return this.#opts[0].lr; }
  set lr(v) { for (const o of this.#opts) o.lr = v; }
  step() { for (const o of this.#opts) o.step(); }
  zeroGrad() { for (const o of this.#opts) o.zeroGrad(); }
  dispose() { for (const o of this.#opts) o.dispose(); }
  [Symbol.dispose]() { this.dispose(); }
}
