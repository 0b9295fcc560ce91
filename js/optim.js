// wt.optim: PyTorch's SGD, Adam and AdamW in JavaScript spelling. The state and the update rule
// are the Rust optimizer's (src/wasm/optim.rs): one fused kernel per parameter on every device.
// The parameters are the JS Tensors given at construction; step() hands the optimizer their
// current values (so a model moved with `to` before the first step keeps working, as in
// PyTorch, and one moved after it fails clearly) and gives each Tensor its updated value.
import * as check from './check.js';
import { watchStep } from './leakwatch.js';
import { core, finalizer } from './internal.js';
import { ownRaws } from './nnargs.js';
import { assignRaw, rawOf, Tensor } from './tensor.js';

function paramList(fn, params) {
  if (params === null || typeof params !== 'object' || typeof params[Symbol.iterator] !== 'function') {
    check.fail(TypeError, fn, 'params', params, 'an array of parameter Tensors (model.parameters())');
  }
  const list = [...params];
  if (list.length === 0) throw new Error(`${fn}: got an empty parameter list`);
  list.forEach((p, i) => {
    if (!(p instanceof Tensor)) check.fail(TypeError, fn, `params[${i}]`, p, 'a Tensor');
    rawOf(fn, `params[${i}]`, p);
    if (!p.isLeaf) throw new Error(`${fn}: params[${i}] must be a leaf tensor (a module parameter, or t.detach())`);
    if (p.dtype !== 'float32' && p.dtype !== 'float16') throw new Error(`${fn}: params[${i}] must be floating point, got ${p.dtype}`);
  });
  if (new Set(list).size !== list.length) throw new Error(`${fn}: a parameter appears more than once in params`);
  return list;
}

function nonNegative(fn, arg, v, fallback) {
  if (v === undefined) return fallback;
  const x = check.number(fn, arg, v);
  if (!(x >= 0 && Number.isFinite(x))) check.fail(RangeError, fn, arg, v, 'a finite number >= 0');
  return x;
}

/** What every optimizer does: step(), zeroGrad(), lr, dispose(). */
export class Optimizer {
  #raw;
  #params;
  /** @internal */
  constructor(fn, params, make) {
    this.#params = paramList(fn, params);
    this.#raw = make(this.#params.map((p) => p.raw.cloneHandle()));
    finalizer.register(this, this.#raw, this);
  }
  /** The parameters being optimised (the Tensors given at construction). */
  get params() { return [...this.#params]; }
  /** The learning rate; set it for schedules. */
  get lr() { return this.#live('lr').lr; }
  set lr(v) { this.#live('lr').lr = nonNegative('lr', 'lr', v, undefined); }
  #live(fn) {
    if (!this.#raw) throw new Error(`${fn}: this optimizer was disposed`);
    return this.#raw;
  }
  /** Clears every parameter's gradient (sets it to null, as PyTorch 2's `zero_grad`). */
  zeroGrad() {
    for (const p of this.#params) p.grad = null;
  }
  /** One update of every parameter that has a gradient (the others, frozen ones included, are skipped). */
  step() {
    const raw = this.#live('step');
    const current = ownRaws('step', this.#params.map((p, i) => [`params[${i}]`, p]));
    let next;
    try {
      next = raw.step(current);
    } catch (e) {
      // A step refused up front changed nothing; one that failed partway (a device error) has
      // updated some parameters: either way the Tensors take what the optimizer holds. A
      // failure while doing so must not hide the step's own error.
      try {
        this.#take(raw.values());
      } catch {
        // The parameters keep their values; `e` says what went wrong.
      }
      throw e;
    }
    this.#take(next);
    watchStep(() => core().liveTensors());
  }
  #take(raws) {
    raws.forEach((r, i) => assignRaw(this.#params[i], r));
  }
  /** Frees the optimizer's state (momentum, moments); the optimizer cannot be used afterwards. */
  dispose() {
    if (!this.#raw) return;
    finalizer.unregister(this);
    this.#raw.free();
    this.#raw = null;
  }
  [Symbol.dispose]() { this.dispose(); }
}

/** Stochastic gradient descent with PyTorch's momentum, dampening, Nesterov and (L2) weight decay. */
export class SGD extends Optimizer {
  constructor(params, opts) {
    const fn = 'SGD';
    const o = check.options(fn, opts, ['lr', 'momentum', 'dampening', 'weightDecay', 'nesterov', 'fused']);
    const args = [nonNegative(fn, 'lr', o.lr, 1e-3), nonNegative(fn, 'momentum', o.momentum, 0),
      nonNegative(fn, 'dampening', o.dampening, 0), nonNegative(fn, 'weightDecay', o.weightDecay, 0),
      check.flag(fn, 'nesterov', o.nesterov, false), check.flag(fn, 'fused', o.fused, true)];
    super(fn, params, (raws) => core().RawOptimizer.sgd(raws, ...args));
  }
}

function adamArgs(fn, opts, weightDecay) {
  const o = check.options(fn, opts, ['lr', 'betas', 'eps', 'weightDecay', 'fused']);
  const betas = o.betas ?? [0.9, 0.999];
  if (!Array.isArray(betas) || betas.length !== 2) check.fail(TypeError, fn, 'betas', betas, 'an array of two numbers in [0, 1)');
  betas.forEach((b, i) => {
    if (typeof b !== 'number' || !(b >= 0 && b < 1)) check.fail(RangeError, fn, `betas[${i}]`, b, 'a number in [0, 1)');
  });
  return [nonNegative(fn, 'lr', o.lr, 1e-3), betas[0], betas[1], nonNegative(fn, 'eps', o.eps, 1e-8),
    nonNegative(fn, 'weightDecay', o.weightDecay, weightDecay), check.flag(fn, 'fused', o.fused, true)];
}

/** Adam (Kingma & Ba) with PyTorch's defaults (lr 1e-3, betas [0.9, 0.999], eps 1e-8); weight decay is L2 on the gradient. */
export class Adam extends Optimizer {
  constructor(params, opts) {
    const args = adamArgs('Adam', opts, 0);
    super('Adam', params, (raws) => core().RawOptimizer.adam(raws, false, ...args));
  }
}

/** AdamW (Loshchilov & Hutter): Adam with decoupled weight decay (default 0.01, as PyTorch's). */
export class AdamW extends Optimizer {
  constructor(params, opts) {
    const args = adamArgs('AdamW', opts, 0.01);
    super('AdamW', params, (raws) => core().RawOptimizer.adam(raws, true, ...args));
  }
}
