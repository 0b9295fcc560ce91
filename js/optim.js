// wt.optim: PyTorch's SGD, Adam, AdamW and RMSprop in JavaScript spelling. The state and the update rule
// are the Rust optimizer's (src/wasm/optim.rs): fused kernels, up to eight parameters a launch.
// The parameters are the JS Tensors given at construction; step() hands the optimizer their
// current values (so a model moved with `to` before the first step keeps working, as in
// PyTorch, and one moved after it fails clearly) and gives each Tensor its updated value.
import * as check from './check.js';
import { watchStep } from './leakwatch.js';
import { stepBoundary } from './stepscope.js';
import { core, finalizer } from './internal.js';
import { ownRaws } from './nnargs.js';
import { assignRaw, markHandOff, rawOf, Tensor } from './tensor.js';

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

const isGroup = (v) => v !== null && typeof v === 'object' && !(v instanceof Tensor) && 'params' in v;

/**
 * The parameter groups given to an optimizer: an iterable of Tensors (one group), or of
 * `{ params, ...options }` objects (PyTorch's param groups), as `[{ params, options }]`.
 */
function groupsOf(fn, params, keys) {
  if (params === null || typeof params !== 'object' || typeof params[Symbol.iterator] !== 'function') {
    check.fail(TypeError, fn, 'params', params, 'an array of parameter Tensors (model.parameters()) or of parameter groups ({ params, ...options })');
  }
  const list = [...params];
  if (!list.some(isGroup)) return [{ params: paramList(fn, list), options: {} }];
  const groups = list.map((g, i) => {
    if (!isGroup(g)) check.fail(TypeError, fn, `params[${i}]`, g, 'a parameter group { params, ...options } (groups and tensors cannot mix)');
    const { params: ps, ...options } = g;
    check.options(`${fn}: params[${i}]`, options, keys);
    return { params: paramList(`${fn}: params[${i}].params`, ps), options };
  });
  const all = groups.flatMap((g) => g.params);
  if (new Set(all).size !== all.length) throw new Error(`${fn}: a parameter appears in more than one parameter group; give each parameter once`);
  return groups;
}

/** What every optimizer does: step(), zeroGrad(), lr, paramGroups, dispose(). */
export class Optimizer {
  #raw;
  #params;
  #groups;
  /** @internal `make(handles, sizes)` builds the raw optimizer over the groups' parameters. */
  constructor(groups, make) {
    this.#params = groups.flatMap((g) => g.params);
    this.#raw = make(this.#params.map((p) => p.raw.cloneHandle()), Uint32Array.from(groups, (g) => g.params.length));
    finalizer.register(this, this.#raw, this);
    // PyTorch's param_groups: each group's parameters and options; `lr` reads and sets the
    // group's learning rate (what schedulers change). The other options are as constructed, and
    // setting one is an error rather than a change the steps would silently ignore.
    this.#groups = groups.map((g, i) => {
      const raw = () => this.#live('paramGroups');
      const group = { params: [...g.params] };
      for (const [key, value] of Object.entries(g.resolved)) {
        if (key === 'lr') continue;
        // Arrays (betas) frozen too: `betas[0] = x` throws in a module instead of going unread.
        const fixed = Array.isArray(value) ? Object.freeze([...value]) : value;
        Object.defineProperty(group, key, {
          get: () => fixed,
          set: () => {
            throw new TypeError(`paramGroups[${i}].${key} is fixed when the optimizer is made (only lr can change afterwards); make a new optimizer with the ${key} you want`);
          },
          enumerable: true,
        });
      }
      return Object.defineProperty(group, 'lr', {
        get: () => raw().groupLr(i),
        set: (v) => raw().setGroupLr(i, nonNegative('paramGroups[].lr', 'lr', v, undefined)),
        enumerable: true,
      });
    });
  }
  /** The parameters being optimised (the Tensors given at construction), in group order. */
  get params() { return [...this.#params]; }
  /** The parameter groups (PyTorch's `param_groups`): `opt.paramGroups[0].lr` is settable. */
  get paramGroups() { return this.#groups; }
  /** The first group's learning rate; setting it sets every group's. */
  get lr() { return this.#live('lr').lr; }
  set lr(v) { this.#live('lr').lr = nonNegative('lr', 'lr', v, undefined); }
  /** @internal The raw optimizer (for the schedulers). */
  get _raw() { return this.#live('scheduler'); }
  #live(fn) {
    if (!this.#raw) throw new Error(`${fn}: this optimizer was disposed`);
    return this.#raw;
  }
  /**
   * The state to resume from (PyTorch's `state_dict()`): `{ state: { 0: { step, exp_avg,
   * exp_avg_sq }, ... }, paramGroups: [{ lr, initialLr }, ...] }`, by parameter index (the order
   * of `params`), the tensors new handles (dispose them, or save them: saving frees them).
   */
  stateDict() {
    check.arity('stateDict', arguments.length, 0);
    const raw = this.#live('stateDict');
    const [index, names, tensors, steps] = [raw.stateIndex(), raw.stateNames(), raw.stateTensors(), raw.stateSteps()];
    const state = {};
    steps.forEach((s, i) => {
      if (s >= 0 || Number.isNaN(s)) state[i] = Number.isNaN(s) ? {} : { step: s };
    });
    index.forEach((i, k) => {
      state[i][names[k]] = markHandOff(new Tensor(tensors[k]), 'state');
    });
    const [lrs, initial] = [raw.stateLrs(), raw.stateInitialLrs()];
    let next = 0;
    const paramGroups = this.#groups.map((g, k) => ({
      lr: lrs[k],
      initialLr: Number.isNaN(initial[k]) ? null : initial[k],
      params: g.params.map(() => next++), // PyTorch's: the indices of the group's parameters
    }));
    return { state, paramGroups };
  }

  /**
   * Resumes from a `stateDict()` of the same optimizer over the same parameters (its tensors
   * are moved to the parameters' devices). All or nothing; resolves when loaded.
   */
  async loadStateDict(dict) {
    check.arity('loadStateDict', arguments.length, 1);
    const fn = 'Optimizer.loadStateDict';
    const raw = this.#live('loadStateDict');
    if (!dict || typeof dict !== 'object' || typeof dict.state !== 'object' || !Array.isArray(dict.paramGroups)) {
      check.fail(TypeError, fn, 'dict', dict, "an optimizer's stateDict(): { state, paramGroups }");
    }
    const n = this.#params.length;
    const saved = dict.paramGroups.reduce((t, g) => t + (Array.isArray(g.params) ? g.params.length : NaN), 0);
    if (saved !== n || dict.paramGroups.length !== this.#groups.length) {
      throw new Error(`${fn}: the state is for ${saved} parameters in ${dict.paramGroups.length} groups, this optimizer has ${n} in ${this.#groups.length}`);
    }
    const steps = new Float64Array(n).fill(-1);
    const [index, names, moved] = [[], [], []];
    try {
      for (const [key, entry] of Object.entries(dict.state)) {
        const i = check.integer(fn, 'a state index', Number(key), 0, n - 1);
        steps[i] = entry.step === undefined ? NaN : check.integer(fn, `state[${i}].step`, entry.step, 0);
        for (const [name, t] of Object.entries(entry)) {
          if (name === 'step') continue;
          const r = rawOf(fn, `state[${i}].${name}`, t);
          moved.push(r.device === this.#params[i].device ? r.cloneHandle() : await r.to(this.#params[i].device));
          index.push(i);
          names.push(name);
        }
      }
      const lrs = Float64Array.from(dict.paramGroups, (g, k) => nonNegative(fn, `paramGroups[${k}].lr`, g.lr, undefined));
      const initial = Float64Array.from(dict.paramGroups, (g) => (g.initialLr === null || g.initialLr === undefined ? NaN : g.initialLr));
      raw.loadState(Uint32Array.from(index), names, moved.splice(0), steps, lrs, initial);
    } finally {
      moved.forEach((r) => r.free());
    }
  }

  /** Clears every parameter's gradient (sets it to null, as PyTorch 2's `zero_grad`). */
  zeroGrad() {
    for (const p of this.#params) p.grad = null;
  }
  /** One update of every parameter that has a gradient (the others, frozen ones included, are skipped). */
  step() {
    const raw = this.#live('step');
    stepBoundary(this);
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

const SGD_KEYS = ['lr', 'momentum', 'dampening', 'weightDecay', 'nesterov'];

/** SGD's options of one group (its own over the defaults `d`), checked. */
function sgdOptions(fn, o, d) {
  const v = { ...d, ...Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined)) };
  return {
    lr: nonNegative(fn, 'lr', v.lr, 1e-3), momentum: nonNegative(fn, 'momentum', v.momentum, 0),
    dampening: nonNegative(fn, 'dampening', v.dampening, 0), weightDecay: nonNegative(fn, 'weightDecay', v.weightDecay, 0),
    nesterov: check.flag(fn, 'nesterov', v.nesterov, false),
  };
}

/**
 * Stochastic gradient descent with PyTorch's momentum, dampening, Nesterov and (L2) weight
 * decay, over parameters or parameter groups (`[{ params, lr, weightDecay }, ...]`).
 */
export class SGD extends Optimizer {
  constructor(params, opts) {
    check.arity('SGD', arguments.length, 2);
    const fn = 'SGD';
    const defaults = check.options(fn, opts, [...SGD_KEYS, 'fused']);
    const fused = check.flag(fn, 'fused', defaults.fused, true);
    const groups = groupsOf(fn, params, SGD_KEYS).map((g) => ({ ...g, resolved: sgdOptions(fn, g.options, defaults) }));
    const numbers = Float64Array.from(groups.flatMap(({ resolved: r }) => [r.lr, r.momentum, r.dampening, r.weightDecay, r.nesterov ? 1 : 0]));
    super(groups, (raws, sizes) => core().RawOptimizer.sgd(raws, sizes, numbers, fused));
  }
}

const ADAM_KEYS = ['lr', 'betas', 'eps', 'weightDecay'];

/** Adam's options of one group (its own over the defaults `d`), checked. */
function adamOptions(fn, o, d, weightDecay) {
  const v = { ...d, ...Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined)) };
  const betas = v.betas ?? [0.9, 0.999];
  if (!Array.isArray(betas) || betas.length !== 2) check.fail(TypeError, fn, 'betas', betas, 'an array of two numbers in [0, 1)');
  betas.forEach((b, i) => {
    if (typeof b !== 'number' || !(b >= 0 && b < 1)) check.fail(RangeError, fn, `betas[${i}]`, b, 'a number in [0, 1)');
  });
  return {
    lr: nonNegative(fn, 'lr', v.lr, 1e-3), betas: [...betas], eps: nonNegative(fn, 'eps', v.eps, 1e-8),
    weightDecay: nonNegative(fn, 'weightDecay', v.weightDecay, weightDecay),
  };
}

/** The raw Adam or AdamW over `params` (tensors or groups) with `opts` as defaults. */
function adamGroups(fn, params, opts, weightDecay, decoupled) {
  const defaults = check.options(fn, opts, [...ADAM_KEYS, 'fused']);
  const fused = check.flag(fn, 'fused', defaults.fused, true);
  const groups = groupsOf(fn, params, ADAM_KEYS).map((g) => ({ ...g, resolved: adamOptions(fn, g.options, defaults, weightDecay) }));
  const numbers = Float64Array.from(groups.flatMap(({ resolved: r }) => [r.lr, r.betas[0], r.betas[1], r.eps, r.weightDecay]));
  return [groups, (raws, sizes) => core().RawOptimizer.adam(raws, sizes, numbers, decoupled, fused)];
}

/**
 * Adam (Kingma & Ba) with PyTorch's defaults (lr 1e-3, betas [0.9, 0.999], eps 1e-8); weight
 * decay is L2 on the gradient. Parameters or parameter groups, as SGD.
 */
export class Adam extends Optimizer {
  constructor(params, opts) {
    check.arity('Adam', arguments.length, 2);
    super(...adamGroups('Adam', params, opts, 0, false));
  }
}

/**
 * AdamW (Loshchilov & Hutter): Adam with decoupled weight decay (default 0.01, as PyTorch's).
 * nanoGPT decays the 2-D weights only: `new AdamW([{ params: decay, weightDecay: 0.1 },
 * { params: noDecay, weightDecay: 0 }], { lr, betas })`.
 */
export class AdamW extends Optimizer {
  constructor(params, opts) {
    check.arity('AdamW', arguments.length, 2);
    super(...adamGroups('AdamW', params, opts, 0.01, true));
  }
}

const RMSPROP_KEYS = ['lr', 'alpha', 'eps', 'weightDecay', 'momentum', 'centered'];

/**
 * RMSprop (PyTorch's `torch.optim.RMSprop`: lr 0.01, alpha 0.99, eps 1e-8, weightDecay 0,
 * momentum 0, centered false), over parameters or parameter groups.
 */
export class RMSprop extends Optimizer {
  constructor(params, opts) {
    check.arity('RMSprop', arguments.length, 2);
    const fn = 'RMSprop';
    const defaults = check.options(fn, opts, RMSPROP_KEYS);
    const resolve = (o) => {
      const v = { ...defaults, ...Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined)) };
      return {
        lr: nonNegative(fn, 'lr', v.lr, 0.01), alpha: nonNegative(fn, 'alpha', v.alpha, 0.99), eps: nonNegative(fn, 'eps', v.eps, 1e-8),
        weightDecay: nonNegative(fn, 'weightDecay', v.weightDecay, 0), momentum: nonNegative(fn, 'momentum', v.momentum, 0),
        centered: check.flag(fn, 'centered', v.centered, false),
      };
    };
    const groups = groupsOf(fn, params, RMSPROP_KEYS).map((g) => ({ ...g, resolved: resolve(g.options) }));
    const numbers = Float64Array.from(groups.flatMap(({ resolved: r }) => [r.lr, r.alpha, r.eps, r.weightDecay, r.momentum, r.centered ? 1 : 0]));
    super(groups, (raws, sizes) => core().RawOptimizer.rmsprop(raws, sizes, numbers));
  }
}

export * as lrScheduler from './lrscheduler.js';
