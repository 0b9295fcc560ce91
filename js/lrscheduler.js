// wt.optim.lrScheduler: PyTorch's torch.optim.lr_scheduler in JavaScript spelling. The
// schedules are the Rust core's (src/optim/lr_scheduler.rs, PyTorch's formulas step for step);
// each holds its optimizer and, as in PyTorch, takes its initial step when constructed and is
// stepped after `opt.step()`.
import * as check from './check.js';
import { core } from './internal.js';
import { Optimizer } from './optim.js';

/** What every schedule does: step(), getLastLr(), lastEpoch. */
export class LRScheduler {
  #raw;
  #opt;
  /** @internal */
  constructor(fn, optimizer, make) {
    if (!(optimizer instanceof Optimizer)) check.fail(TypeError, fn, 'optimizer', optimizer, 'a wt.optim optimizer');
    this.#opt = optimizer;
    this.#raw = make(optimizer._raw);
  }
  /** The optimizer it schedules. */
  get optimizer() { return this.#opt; }
  /** One step of the schedule; call it after `optimizer.step()`. */
  step() {
    check.arity('step', arguments.length, 0);
    this.#live('step').step(this.#opt._raw);
  }
  /** The learning rates it last set, one per parameter group (PyTorch's `get_last_lr()`). */
  getLastLr() { return Array.from(this.#live('getLastLr').lastLr()); }
  /** The epoch it is at. */
  get lastEpoch() { return this.#live('lastEpoch').lastEpoch; }
  #live(fn) {
    if (!this.#raw) throw new Error(`${fn}: this scheduler is part of a SequentialLR now; step that one`);
    return this.#raw;
  }
  /** @internal Hands the raw schedule over (to a SequentialLR); this object is done. */
  _take() {
    const r = this.#live('SequentialLR');
    this.#raw = null;
    return r;
  }
}

const count = (fn, arg, v, fallback, min = 1) => (v === undefined ? fallback : check.integer(fn, arg, v, min, 2 ** 31 - 1));
const num = (fn, arg, v, fallback) => (v === undefined ? fallback : check.number(fn, arg, v));

/** `base_lr * lrLambda(epoch)` (PyTorch's `LambdaLR`): `new LambdaLR(opt, (e) => 0.95 ** e)` or `{ lrLambda }`. */
export class LambdaLR extends LRScheduler {
  constructor(optimizer, lrLambda) {
    check.arity('LambdaLR', arguments.length, 2);
    const f = typeof lrLambda === 'function' ? lrLambda : check.options('LambdaLR', lrLambda, ['lrLambda']).lrLambda;
    if (typeof f !== 'function') check.fail(TypeError, 'LambdaLR', 'lrLambda', f, 'a function (epoch) => factor');
    super('LambdaLR', optimizer, (raw) => core().RawScheduler.lambda(raw, f));
  }
}

/** The learning rate times `gamma` (default 0.1) every `stepSize` epochs (PyTorch's `StepLR`). */
export class StepLR extends LRScheduler {
  constructor(optimizer, opts) {
    check.arity('StepLR', arguments.length, 2);
    const o = check.options('StepLR', opts, ['stepSize', 'gamma']);
    if (o.stepSize === undefined) throw new TypeError('StepLR: stepSize is required ({ stepSize, gamma })');
    const [k, g] = [count('StepLR', 'stepSize', o.stepSize, 1), num('StepLR', 'gamma', o.gamma, 0.1)];
    super('StepLR', optimizer, (raw) => core().RawScheduler.step_lr(raw, k, g));
  }
}

/** From `startFactor` (default 1/3) to `endFactor` (1) of the learning rate over `totalIters` (5) steps (PyTorch's `LinearLR`). */
export class LinearLR extends LRScheduler {
  constructor(optimizer, opts) {
    check.arity('LinearLR', arguments.length, 2);
    const o = check.options('LinearLR', opts, ['startFactor', 'endFactor', 'totalIters']);
    const args = [num('LinearLR', 'startFactor', o.startFactor, 1 / 3), num('LinearLR', 'endFactor', o.endFactor, 1), count('LinearLR', 'totalIters', o.totalIters, 5, 0)];
    super('LinearLR', optimizer, (raw) => core().RawScheduler.linear(raw, ...args));
  }
}

/** Half a cosine down to `etaMin` (default 0) over `tMax` steps (PyTorch's `CosineAnnealingLR`). */
export class CosineAnnealingLR extends LRScheduler {
  constructor(optimizer, opts) {
    check.arity('CosineAnnealingLR', arguments.length, 2);
    const o = check.options('CosineAnnealingLR', opts, ['tMax', 'etaMin']);
    if (o.tMax === undefined) throw new TypeError('CosineAnnealingLR: tMax is required ({ tMax, etaMin })');
    const [t, m] = [count('CosineAnnealingLR', 'tMax', o.tMax, 1), num('CosineAnnealingLR', 'etaMin', o.etaMin, 0)];
    super('CosineAnnealingLR', optimizer, (raw) => core().RawScheduler.cosine(raw, t, m));
  }
}

/**
 * `schedulers` one after another, switching at `milestones` (PyTorch's `SequentialLR`):
 * nanoGPT's warmup then cosine is `new SequentialLR(opt, { schedulers: [warm, cos], milestones: [100] })`.
 * The schedulers given are stepped through this one from then on.
 */
export class SequentialLR extends LRScheduler {
  constructor(optimizer, opts) {
    check.arity('SequentialLR', arguments.length, 2);
    const fn = 'SequentialLR';
    const o = check.options(fn, opts, ['schedulers', 'milestones']);
    if (!Array.isArray(o.schedulers) || o.schedulers.length === 0) check.fail(TypeError, fn, 'schedulers', o.schedulers, 'a non-empty array of schedulers');
    o.schedulers.forEach((s, i) => {
      if (!(s instanceof LRScheduler)) check.fail(TypeError, fn, `schedulers[${i}]`, s, 'a scheduler');
      if (s.optimizer !== optimizer) throw new Error(`${fn}: schedulers[${i}] schedules another optimizer; every scheduler must belong to the same one`);
    });
    if (!Array.isArray(o.milestones)) check.fail(TypeError, fn, 'milestones', o.milestones, 'an array of step numbers');
    const milestones = Uint32Array.from(o.milestones, (m, i) => check.integer(fn, `milestones[${i}]`, m, 0, 2 ** 31 - 1));
    if (milestones.length !== o.schedulers.length - 1) {
      throw new RangeError(`${fn}: expects one milestone fewer than schedulers, got ${o.schedulers.length} schedulers and ${milestones.length} milestones`);
    }
    super(fn, optimizer, (raw) => core().RawScheduler.sequential(raw, o.schedulers.map((s) => s._take()), milestones));
  }
}
