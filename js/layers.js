// The built-in layers of wt.nn, PyTorch's names, arguments, parameter names and shapes: Linear,
// Embedding, LayerNorm, GroupNorm, BatchNorm1d/2d, Dropout, Sequential, Flatten, Identity, the
// activations and the loss modules. Initial values come from the Rust layers' constructors
// (nnLinearInit, ...), so a seed gives the same weights as in Rust; forward passes call the
// functional forms (js/functional.js).
import * as check from './check.js';
import * as F from './functional.js';
import { eps, momentum, ownRaws, paddingIndex, probability, takeBatchNorm } from './nnargs.js';
import { core } from './internal.js';
import { full } from './create.js';
import { Module } from './module.js';
import { rawOf, Tensor } from './tensor.js';

/** Registers the `[name, raw, isBuffer]` entries the Rust constructors return. */
function registerAll(m, entries) {
  for (const [name, raw, isBuffer] of entries) {
    const t = new Tensor(raw);
    if (isBuffer) m.registerBuffer(name, t);
    else m.registerParameter(name, t);
  }
}

const seedOf = (fn, v) => (v === undefined || v === null ? undefined : check.integer(fn, 'seed', v, 0));
const count = (fn, arg, v) => check.integer(fn, arg, v, 0, 2 ** 31 - 1);

/** `y = x W^T + b`: `weight` `[outFeatures, inFeatures]`, `bias` `[outFeatures]`, uniform(±1/sqrt(in)) as PyTorch's. */
export class Linear extends Module {
  constructor(inFeatures, outFeatures, opts) {
    check.arity('Linear', arguments.length, 3);
    super();
    const fn = 'Linear';
    const o = check.options(fn, opts, ['bias', 'seed', 'device']);
    this.inFeatures = count(fn, 'inFeatures', inFeatures);
    this.outFeatures = count(fn, 'outFeatures', outFeatures);
    registerAll(this, core().nnLinearInit(this.inFeatures, this.outFeatures, check.flag(fn, 'bias', o.bias, true), seedOf(fn, o.seed), check.optDevice(fn, o.device)));
    if (!o.bias && o.bias !== undefined) this.registerParameter('bias', null);
  }
  forward(x) { return F.linear(x, this.getParameter('weight'), this.getParameter('bias')); }
  extraRepr() { return `inFeatures=${this.inFeatures}, outFeatures=${this.outFeatures}, bias=${this.bias !== null}`; }
}

/** A table of `numEmbeddings` learned vectors of size `embeddingDim` (N(0, 1)), looked up by int32 index. */
export class Embedding extends Module {
  constructor(numEmbeddings, embeddingDim, opts) {
    check.arity('Embedding', arguments.length, 3);
    super();
    const fn = 'Embedding';
    const o = check.options(fn, opts, ['paddingIdx', 'seed', 'device']);
    this.numEmbeddings = count(fn, 'numEmbeddings', numEmbeddings);
    this.embeddingDim = count(fn, 'embeddingDim', embeddingDim);
    this.paddingIdx = paddingIndex(fn, o.paddingIdx, this.numEmbeddings);
    registerAll(this, core().nnEmbeddingInit(this.numEmbeddings, this.embeddingDim, this.paddingIdx ?? undefined, seedOf(fn, o.seed), check.optDevice(fn, o.device)));
  }
  forward(input) { return F.embedding(input, this.getParameter('weight'), { paddingIdx: this.paddingIdx }); }
  extraRepr() { return `${this.numEmbeddings}, ${this.embeddingDim}${this.paddingIdx === null ? '' : `, paddingIdx=${this.paddingIdx}`}`; }
}

/** Normalises over the trailing `normalizedShape` dims, with a learned `weight` (ones) and `bias` (zeros). */
export class LayerNorm extends Module {
  constructor(normalizedShape, opts) {
    check.arity('LayerNorm', arguments.length, 2);
    super();
    const fn = 'LayerNorm';
    const o = check.options(fn, opts, ['eps', 'elementwiseAffine', 'bias', 'device']);
    this.normalizedShape = check.shape(fn, typeof normalizedShape === 'number' ? [normalizedShape] : normalizedShape, 'normalizedShape');
    this.eps = eps(fn, o.eps);
    const affine = check.flag(fn, 'elementwiseAffine', o.elementwiseAffine, true);
    const bias = check.flag(fn, 'bias', o.bias, true);
    registerAll(this, core().nnLayerNormInit(Float64Array.from(this.normalizedShape), affine, bias, check.optDevice(fn, o.device)));
    if (!affine) this.registerParameter('weight', null);
    if (!affine || !bias) this.registerParameter('bias', null);
  }
  forward(x) { return F.layerNorm(x, this.normalizedShape, { weight: this.getParameter('weight'), bias: this.getParameter('bias'), eps: this.eps }); }
  extraRepr() { return `[${this.normalizedShape}], eps=${this.eps}`; }
}

/** Normalises `[N, C, *]` input over `numGroups` groups of channels, with per-channel `weight` and `bias`. */
export class GroupNorm extends Module {
  constructor(numGroups, numChannels, opts) {
    check.arity('GroupNorm', arguments.length, 3);
    super();
    const fn = 'GroupNorm';
    const o = check.options(fn, opts, ['eps', 'affine', 'device']);
    this.numGroups = count(fn, 'numGroups', numGroups);
    this.numChannels = count(fn, 'numChannels', numChannels);
    this.eps = eps(fn, o.eps);
    const affine = check.flag(fn, 'affine', o.affine, true);
    registerAll(this, core().nnGroupNormInit(this.numGroups, this.numChannels, affine, check.optDevice(fn, o.device)));
    if (!affine) {
      this.registerParameter('weight', null);
      this.registerParameter('bias', null);
    }
  }
  forward(x) { return F.groupNorm(x, this.numGroups, { weight: this.getParameter('weight'), bias: this.getParameter('bias'), eps: this.eps }); }
  extraRepr() { return `${this.numGroups}, ${this.numChannels}, eps=${this.eps}`; }
}

class BatchNorm extends Module {
  #kind;
  constructor(kind, numFeatures, opts) {
    super();
    const o = check.options(kind, opts, ['eps', 'momentum', 'affine', 'trackRunningStats', 'device']);
    this.#kind = kind;
    this.numFeatures = count(kind, 'numFeatures', numFeatures);
    this.eps = eps(kind, o.eps);
    this.momentum = momentum(kind, o.momentum, true);
    const affine = check.flag(kind, 'affine', o.affine, true);
    const track = check.flag(kind, 'trackRunningStats', o.trackRunningStats, true);
    registerAll(this, core().nnBatchNormInit(this.numFeatures, affine, track, check.optDevice(kind, o.device)));
    if (!affine) {
      this.registerParameter('weight', null);
      this.registerParameter('bias', null);
    }
    if (!track) ['running_mean', 'running_var', 'num_batches_tracked'].forEach((n) => this.registerBuffer(n, null));
  }
  forward(x) {
    const fn = this.#kind;
    const input = rawOf(fn, 'input', x);
    const running = ['running_mean', 'running_var', 'num_batches_tracked'].map((k) => this.getBuffer(k));
    const [rm, rv, n, w, b] = ownRaws(fn, [['running_mean', running[0]], ['running_var', running[1]],
      ['num_batches_tracked', running[2]], ['weight', this.getParameter('weight')], ['bias', this.getParameter('bias')]]);
    const out = core().nnBatchNorm(input, rm, rv, n, w, b, { module: fn, training: this.training, momentum: this.momentum ?? undefined, eps: this.eps });
    return takeBatchNorm(out, running);
  }
  extraRepr() { return `${this.numFeatures}, eps=${this.eps}, momentum=${this.momentum}`; }
}

/**
 * Batch normalisation of `[N, C]` or `[N, C, L]` input: batch statistics while training (and
 * the running statistics, registered buffers, updated), running statistics in evaluation.
 */
export class BatchNorm1d extends BatchNorm {
  constructor(numFeatures, opts) { check.arity('BatchNorm1d', arguments.length, 2); super('BatchNorm1d', numFeatures, opts); }
}
/** Batch normalisation of `[N, C, H, W]` input (see BatchNorm1d). */
export class BatchNorm2d extends BatchNorm {
  constructor(numFeatures, opts) { check.arity('BatchNorm2d', arguments.length, 2); super('BatchNorm2d', numFeatures, opts); }
}

/** Zeroes elements with probability `p` while training; with a `seed`, the sequence of masks is reproducible. */
export class Dropout extends Module {
  #calls = 0;
  constructor(p = 0.5, opts) {
    check.arity('Dropout', arguments.length, 2);
    super();
    const o = check.options('Dropout', opts, ['seed']);
    this.p = probability('Dropout', p);
    this.seed = seedOf('Dropout', o.seed) ?? null;
  }
  forward(x) {
    const fn = 'Dropout';
    const seeded = this.training && this.seed !== null;
    const call = seeded ? this.#calls++ : undefined;
    return new Tensor(core().nnDropout(rawOf(fn, 'input', x), this.p, this.training, this.seed ?? undefined, call));
  }
  extraRepr() { return `p=${this.p}`; }
}

/**
 * Modules applied in order, registered as children `0`, `1`, ... so that stateDict keys are
 * PyTorch's (`0.weight`). The tensors passed from one module to the next are freed once the
 * next has used them (parameters and buffers excepted): a custom module that keeps its input or
 * its output in a plain field (to inspect activations, say) should keep `clone()` of it.
 */
export class Sequential extends Module {
  constructor(...modules) {
    super();
    modules.forEach((m) => this.append(m));
  }
  /** Adds `module` at the end; returns this. */
  append(module) {
    const i = this.namedChildren().length;
    if (!(module instanceof Module)) check.fail(TypeError, 'Sequential', `module ${i}`, module, 'a wt.nn.Module');
    this.registerModule(String(i), module);
    return this;
  }
  // The registry is the one list: replacing a child (`seq[0] = other`) changes what runs.
  /** The number of modules. */
  get length() { return this.children().length; }
  /** The module at `index` (negative counts from the end). */
  at(index) { return this.children().at(check.integer('Sequential.at', 'index', index)); }
  /** The modules in order (`for (const layer of seq)`, `[...seq]`), as iterating PyTorch's. */
  [Symbol.iterator]() { return this.children()[Symbol.iterator](); }
  forward(x) {
    // Intermediate outputs are freed as soon as the next module has used them: nobody else
    // holds their handles, and backward keeps what it needs on its own (the graph holds the
    // values, not the JS handles). Without this each call left them to the garbage collector.
    let y = x;
    let owned = null; // the tree's parameters and buffers: never freed here
    const free = (t) => {
      if (t === x || !(t instanceof Tensor)) return; // the caller's input, or not a tensor
      owned ??= new Set([...this.parameters(), ...this.buffers()]);
      if (!owned.has(t)) t.dispose();
    };
    for (const m of this.children()) {
      let next;
      try {
        next = m.forward(y);
      } catch (e) {
        free(y);
        throw e;
      }
      if (next !== y) free(y);
      y = next;
    }
    return y;
  }
}

/** Flattens dims `startDim` to `endDim` (default 1 to -1) into one, as PyTorch's `nn.Flatten`. */
export class Flatten extends Module {
  constructor(startDim = 1, endDim = -1) {
    check.arity('Flatten', arguments.length, 2);
    super();
    this.startDim = check.dim('Flatten', startDim, 'startDim');
    this.endDim = check.dim('Flatten', endDim, 'endDim');
  }
  forward(x) {
    const shape = x.shape;
    const n = shape.length;
    const s = this.startDim < 0 ? this.startDim + n : this.startDim;
    const e = this.endDim < 0 ? this.endDim + n : this.endDim;
    if (n === 0) return x.reshape([1]);
    if (s < 0 || e >= n || s > e) {
      throw new RangeError(`Flatten: startDim ${this.startDim} and endDim ${this.endDim} do not select dims of a rank-${n} input`);
    }
    return x.reshape([...shape.slice(0, s), shape.slice(s, e + 1).reduce((a, b) => a * b, 1), ...shape.slice(e + 1)]);
  }
}

/** Returns its input. */
export class Identity extends Module {
  forward(x) { return x; }
}

const activation = (name, method) => ({
  [name]: class extends Module {
    /** `opts.inplace` is accepted for PyTorch's signature (`nn.ReLU(inplace=True)`); results are the same. */
    constructor(opts) {
      check.arity(name, arguments.length, 1);
      super();
      check.options(name, opts, ['inplace']);
    }
    forward(x) {
      rawOf(name, 'input', x);
      return x[method]();
    }
  },
})[name];

/** `max(x, 0)` as a module. */
export const ReLU = activation('ReLU', 'relu');
/** GELU as a module: the exact (erf) form, or `new GELU({ approximate: 'tanh' })`. */
export class GELU extends Module {
  constructor(opts) {
    check.arity('GELU', arguments.length, 1);
    super();
    const o = check.options('GELU', opts, ['approximate']);
    this.approximate = o.approximate ?? 'none';
    if (this.approximate !== 'none' && this.approximate !== 'tanh') check.fail(RangeError, 'GELU', 'approximate', this.approximate, "'none' or 'tanh'");
  }
  forward(x) {
    rawOf('GELU', 'input', x);
    return x.gelu({ approximate: this.approximate });
  }
  extraRepr() { return this.approximate === 'tanh' ? "approximate='tanh'" : ''; }
}
/** `x * sigmoid(x)` as a module. */
export const SiLU = activation('SiLU', 'silu');
/** Hyperbolic tangent as a module. */
export const Tanh = activation('Tanh', 'tanh');
/** Logistic sigmoid as a module. */
export const Sigmoid = activation('Sigmoid', 'sigmoid');

/** `x` where positive, `weight * x` elsewhere, with `numParameters` learned slopes (1, or one per channel of dim 1) starting at `init`: PyTorch's `nn.PReLU` (defaults 1 and 0.25). */
export class PReLU extends Module {
  constructor(numParameters = 1, opts) {
    check.arity('PReLU', arguments.length, 2);
    super();
    const fn = 'PReLU';
    const o = check.options(fn, opts, ['init', 'device']);
    this.numParameters = check.integer(fn, 'numParameters', numParameters, 1, 2 ** 31 - 1);
    const init = o.init === undefined ? 0.25 : check.number(fn, 'init', o.init);
    this.registerParameter('weight', full([this.numParameters], init, { device: check.optDevice(fn, o.device) }));
  }
  forward(x) { return F.prelu(x, this.getParameter('weight')); }
  extraRepr() { return `numParameters=${this.numParameters}`; }
}

const lossModule = (name, f, keys) => ({
  [name]: class extends Module {
    #opts;
    constructor(opts) {
      check.arity(name, arguments.length, 1);
      super();
      this.#opts = { ...check.options(name, opts, keys) };
    }
    forward(input, target) { return f(input, target, this.#opts); }
  },
})[name];

/** `F.crossEntropy` as a module (`reduction`, `ignoreIndex`, `labelSmoothing`). */
export const CrossEntropyLoss = lossModule('CrossEntropyLoss', F.crossEntropy, ['reduction', 'ignoreIndex', 'labelSmoothing']);
/** `F.nllLoss` as a module. */
export const NLLLoss = lossModule('NLLLoss', F.nllLoss, ['reduction', 'ignoreIndex']);
/** `F.mseLoss` as a module. */
export const MSELoss = lossModule('MSELoss', F.mseLoss, ['reduction']);
/** `F.l1Loss` as a module. */
export const L1Loss = lossModule('L1Loss', F.l1Loss, ['reduction']);
/** `F.binaryCrossEntropyWithLogits` as a module. */
export const BCEWithLogitsLoss = lossModule('BCEWithLogitsLoss', F.binaryCrossEntropyWithLogits, ['reduction']);

/**
 * Modules under the names `0`, `1`, ... (PyTorch's `nn.ModuleList`): registered children, so
 * their parameters move, train and save with the owner (`h.0.attn.weight`); no forward of its
 * own. `push`/`append`, `extend`, `insert`, `length`, `at(i)` (negative from the end), iteration.
 */
export class ModuleList extends Module {
  constructor(modules = []) {
    super();
    check.arity('ModuleList', arguments.length, 1);
    if (!Array.isArray(modules) && typeof modules?.[Symbol.iterator] !== 'function') check.fail(TypeError, 'ModuleList', 'modules', modules, 'an array (or iterable) of wt.nn.Modules');
    this.extend(modules);
  }
  #items() { return this.namedChildren().map(([, m]) => m); }
  #check(fn, m) {
    if (!(m instanceof Module)) check.fail(TypeError, fn, 'module', m, 'a wt.nn.Module');
    return m;
  }
  /** Adds `module` at the end; returns this. */
  push(module) {
    check.arity('ModuleList.push', arguments.length, 1);
    this.registerModule(String(this.length), this.#check('ModuleList.push', module));
    return this;
  }
  /** PyTorch's spelling of push. */
  append(module) { return this.push(module); }
  /** Adds every module of `modules` at the end; returns this. */
  extend(modules) {
    for (const m of modules) this.push(m);
    return this;
  }
  /** Inserts `module` before `index` (negative counts from the end), renumbering what follows. */
  insert(index, module) {
    check.arity('ModuleList.insert', arguments.length, 2);
    const items = this.#items();
    let i = check.integer('ModuleList.insert', 'index', index, -items.length - 1, items.length);
    if (i < 0) i += items.length;
    items.splice(i, 0, this.#check('ModuleList.insert', module));
    // Renumber: the names are positions, as PyTorch's.
    items.forEach((m, k) => {
      if (k < items.length - 1) this[String(k)] = m;
      else this.registerModule(String(k), m);
    });
    return this;
  }
  /** The number of modules. */
  get length() { return this.#items().length; }
  /** The module at `index` (negative counts from the end). */
  at(index) {
    check.arity('ModuleList.at', arguments.length, 1);
    return this.#items().at(check.integer('ModuleList.at', 'index', index));
  }
  [Symbol.iterator]() { return this.#items()[Symbol.iterator](); }
  forward() { throw new Error('ModuleList has no forward: call its modules in the owner\'s forward (for (const block of this.h) x = block.forward(x))'); }
}

/**
 * Modules under names of your choosing, in insertion order (PyTorch's `nn.ModuleDict`): `get`,
 * `set`, `has`, `keys`, `values`, `entries`, `length`, iteration over `[name, module]`.
 */
export class ModuleDict extends Module {
  constructor(modules = {}) {
    super();
    check.arity('ModuleDict', arguments.length, 1);
    const entries = modules instanceof Map ? [...modules] : modules && typeof modules === 'object' && !Array.isArray(modules) ? Object.entries(modules) : null;
    if (entries === null) check.fail(TypeError, 'ModuleDict', 'modules', modules, 'an object or Map of name to wt.nn.Module');
    for (const [k, m] of entries) this.set(k, m);
  }
  /** Adds (or replaces) the module under `name`; returns this. */
  set(name, module) {
    check.arity('ModuleDict.set', arguments.length, 2);
    if (!(module instanceof Module)) check.fail(TypeError, 'ModuleDict.set', 'module', module, 'a wt.nn.Module');
    if (this.has(name)) this[name] = module;
    else this.registerModule(name, module);
    return this;
  }
  /** The module under `name`, or undefined. */
  get(name) {
    check.arity('ModuleDict.get', arguments.length, 1);
    return this.namedChildren().find(([k]) => k === name)?.[1];
  }
  /** Whether a module is registered under `name`. */
  has(name) { return this.namedChildren().some(([k]) => k === name); }
  keys() { return this.namedChildren().map(([k]) => k); }
  values() { return this.namedChildren().map(([, m]) => m); }
  entries() { return this.namedChildren(); }
  get length() { return this.namedChildren().length; }
  [Symbol.iterator]() { return this.namedChildren()[Symbol.iterator](); }
  forward() { throw new Error('ModuleDict has no forward: call its modules in the owner\'s forward'); }
}
