// wt.nn.Module: PyTorch's nn.Module in JavaScript spelling. A module registers parameters,
// buffers and submodules by name; everything else (parameters(), namedParameters(), buffers(),
// to(), train()/eval(), stateDict(), loadStateDict(), zeroGrad(), dispose()) follows from that
// registry. Registered names also become properties (`this.weight`, `this.fc`). The module owns
// what it registered: its tensors leave wt.tidy() scopes, and moves, optimizer steps and loads
// give the same Tensor objects new values (see assignRaw), so references held elsewhere (an
// optimizer, a variable) follow.
import * as check from './check.js';
import { core } from './internal.js';
import { assignRaw, consumeHandOff, markHandOff, rawOf, setPending, Tensor, untrack } from './tensor.js';

const KINDS = ['parameter', 'buffer', 'module'];

// The registry's rules (valid names, each slot once, how a state dict fills the slots) are the
// core's, nn::registry in Rust, which Rust modules follow too; this file keeps the slots, the
// properties and the walk order. There a slot's identity is a number: equal for the entries
// that hold the same tensor object.
function identities(entries) {
  const ids = new Map();
  return entries.map(([, t]) => {
    if (!ids.has(t)) ids.set(t, ids.size);
    return ids.get(t);
  });
}

// `entries` ([name, tensor]) with each tensor once, under its first name.
function firstOfEach(entries) {
  return Array.from(core().registryFirstOfEach(Uint32Array.from(identities(entries))), (i) => entries[i]);
}
// Tensors wrapped by nn.Parameter (and whether they learn): assigning one to a module attribute
// registers it as a parameter, as assigning a torch.nn.Parameter does.
const PARAMETERS = new WeakMap();

/**
 * PyTorch's `nn.Parameter`: marks `data` (a floating-point leaf) as a parameter, so that
 * assigning it to a module attribute (`this.scale = new wt.nn.Parameter(wt.ones([4]))`)
 * registers it. Returns `data` itself; `requiresGrad` false registers it frozen.
 */
export function Parameter(data, requiresGrad = true) {
  check.arity('Parameter', arguments.length, 2);
  const fn = 'Parameter';
  if (!(data instanceof Tensor)) check.fail(TypeError, fn, 'data', data, 'a Tensor');
  rawOf(fn, 'data', data);
  if (!data.isLeaf) throw new Error(`${fn}: data must be a leaf tensor (made by you, not by an op): pass t.detach()`);
  if (data.dtype !== 'float32' && data.dtype !== 'float16') throw new Error(`${fn}: data must be floating point to be learned, got ${data.dtype}`);
  PARAMETERS.set(data, check.flag(fn, 'requiresGrad', requiresGrad, true));
  data.requiresGrad_(PARAMETERS.get(data));
  return data;
}

export class Module {
  #params = new Map();
  #buffers = new Map();
  #children = new Map();
  #training = true;

  /**
   * Registers `tensor` (a floating-point leaf: made by you, not by an op; pass `t.detach()`
   * otherwise) as a learnable parameter named `name`, marks it `requiresGrad` (freeze it
   * afterwards with `requiresGrad_(false)`: that survives `to`, steps and loads), and returns
   * it. `null` registers an absent parameter (as PyTorch's `None`). The name becomes a property.
   * A subclass that declares a field of a name its base class registered hides that property
   * (fields are defined after `super()` returns): in TypeScript write `declare weight: Tensor`.
   */
  registerParameter(name, tensor) {
    const fn = 'registerParameter';
    this.#checkName(fn, name);
    const t = tensor === null ? null : parameterOf(fn, name, tensor);
    this.#claim(name, 'parameter');
    this.#params.set(name, t);
    return tensor;
  }

  /** Registers `tensor` as a buffer named `name`: state that moves and is saved with the module but is not learned. */
  registerBuffer(name, tensor) {
    const fn = 'registerBuffer';
    this.#checkName(fn, name);
    const t = tensor === null ? null : bufferOf(fn, name, tensor);
    this.#claim(name, 'buffer');
    this.#buffers.set(name, t);
    return tensor;
  }

  /** Registers `module` as a submodule named `name`; its parameters appear as `name.<theirs>`. */
  registerModule(name, module) {
    const fn = 'registerModule';
    this.#checkName(fn, name);
    if (module !== null && !(module instanceof Module)) check.fail(TypeError, fn, 'module', module, 'a wt.nn.Module or null');
    this.#claim(name, 'module');
    this.#children.set(name, module);
    return module;
  }

  #registry(kind) {
    return { parameter: this.#params, buffer: this.#buffers, module: this.#children }[kind];
  }

  // PyTorch's __setattr__, applied when the registry is next read: a Module or an nn.Parameter
  // held in a plain attribute (`this.fc = new nn.Linear(3, 2)` in a constructor) is registered
  // under that name, in assignment order; a registered name whose property was redefined by a
  // class field takes the field's value.
  #adopt() {
    for (const key of Object.keys(this)) {
      const d = Object.getOwnPropertyDescriptor(this, key);
      if (!d || !('value' in d)) continue;
      const v = d.value;
      const kind = KINDS.find((k) => this.#registry(k).has(key));
      if (kind !== undefined) {
        if (this.#registry(kind).get(key) !== v && (v === null || v instanceof Module || v instanceof Tensor)) this.#set(kind, key, v);
        continue;
      }
      if (v instanceof Module && v !== this) {
        delete this[key];
        this.#claim(key, 'module');
        this.#children.set(key, v);
      } else if (v instanceof Tensor && PARAMETERS.has(v)) {
        delete this[key];
        this.#claim(key, 'parameter');
        this.#params.set(key, parameterOf(`${key} =`, key, v));
        if (!PARAMETERS.get(v)) v.requiresGrad_(false);
      }
    }
  }

  // Stores `v` under a registered `name` of `kind`, checked as registration checks it.
  #set(kind, name, v) {
    const map = this.#registry(kind);
    if (kind === 'parameter') map.set(name, v === null ? null : parameterOf(`${name} =`, name, v));
    else if (kind === 'buffer') map.set(name, v === null ? null : bufferOf(`${name} =`, name, v));
    else if (v === null || v instanceof Module) map.set(name, v);
    else check.fail(TypeError, `${name} =`, 'value', v, 'a wt.nn.Module or null');
  }

  // Checks that `name` can be registered (before the value is checked and the name claimed, so
  // a refused value leaves the name free).
  #checkName(fn, name) {
    if (typeof name !== 'string') check.fail(TypeError, fn, 'name', name, "a non-empty string without '.'");
    const taken = KINDS.some((k) => this.#registry(k).has(name));
    const problem = core().registryNameProblem(name, taken);
    if (problem !== undefined) throw taken ? new Error(`${fn}: ${problem}`) : new TypeError(`${fn}: ${problem}`);
    // A class field declared without a value (`fc;`, or TypeScript's `fc: Linear;`) is an own
    // property holding undefined: it becomes the registered name. Anything else (a method such
    // as `forward`, a property with a value) is taken.
    const own = Object.getOwnPropertyDescriptor(this, name);
    const declared = own !== undefined && 'value' in own && own.value === undefined && own.configurable;
    if (!declared && name in this) throw new Error(`${fn}: '${name}' is already an attribute of this module; choose another name`);
  }

  // Makes `name` a property whose getter reads the registry and whose setter registers again
  // (as assigning to a PyTorch module attribute does).
  #claim(name, kind) {
    const map = this.#registry(kind);
    Object.defineProperty(this, name, {
      get: () => map.get(name),
      set: (v) => this.#set(kind, name, v),
      enumerable: true,
      // Configurable, so a class field initialised with the registration
      // (`fc = this.registerModule('fc', ...)`) can define itself over it.
      configurable: true,
    });
  }

  /** The submodule at dotted `target` (`'net.0'`; `''` is this module), as PyTorch's `get_submodule`. */
  getSubmodule(target) {
    const fn = 'getSubmodule';
    if (typeof target !== 'string') check.fail(TypeError, fn, 'target', target, "a dotted name such as 'net.0', or ''");
    let m = this;
    const path = [];
    for (const part of target === '' ? [] : target.split('.')) {
      m.#adopt();
      const next = m.#children.get(part);
      if (!(next instanceof Module)) {
        const has = [...m.#children.keys()];
        throw new Error(`${fn}: ${path.length ? `'${path.join('.')}'` : 'this module'} has no submodule '${part}' (it has ${has.length ? has.map((k) => `'${k}'`).join(', ') : 'none'})`);
      }
      path.push(part);
      m = next;
    }
    return m;
  }
  /**
   * The parameter at dotted `target` (`'fc.weight'`), as PyTorch's `get_parameter`; null for a
   * parameter registered as absent. It reads the registry, so a class field that hides the
   * property (see registerParameter) does not hide it here.
   */
  getParameter(target) { return this.#getTensor('getParameter', target, 'parameter'); }
  /** The buffer at dotted `target` (`'bn.running_mean'`), as PyTorch's `get_buffer`. */
  getBuffer(target) { return this.#getTensor('getBuffer', target, 'buffer'); }
  #getTensor(fn, target, kind) {
    if (typeof target !== 'string' || target === '') check.fail(TypeError, fn, 'target', target, `a dotted ${kind} name such as 'fc.weight'`);
    const cut = target.lastIndexOf('.');
    const m = this.getSubmodule(cut < 0 ? '' : target.slice(0, cut));
    const name = target.slice(cut + 1);
    m.#adopt();
    const map = m.#registry(kind);
    if (!map.has(name)) {
      throw new Error(`${fn}: no ${kind} '${target}' (the ${kind}s there: ${[...map.keys()].map((k) => `'${k}'`).join(', ') || 'none'})`);
    }
    return map.get(name);
  }

  /** The forward pass: subclasses implement it. */
  forward() {
    throw new Error(`${this.constructor.name}.forward is not implemented: a wt.nn.Module subclass defines forward(...)`);
  }

  /** Parameters with PyTorch's dotted names (`0.weight`, `fc.bias`), this module's first, then each submodule's; each tensor once. */
  namedParameters() { return firstOfEach(this.#named('params')); }
  /** Every parameter (see namedParameters). */
  parameters() { return this.namedParameters().map(([, p]) => p); }
  /** Registered buffers with dotted names; each tensor once. */
  namedBuffers() { return firstOfEach(this.#named('buffers')); }
  /** Registered buffers. */
  buffers() { return this.namedBuffers().map(([, b]) => b); }
  /** The direct submodules with their names. */
  namedChildren() {
    this.#adopt();
    return [...this.#children].filter(([, m]) => m !== null);
  }
  /** The direct submodules. */
  children() { return this.namedChildren().map(([, m]) => m); }
  /** This module and every submodule, depth first, with dotted names (this one is ''). */
  namedModules(prefix = '') {
    const out = [[prefix, this]];
    for (const [name, m] of this.namedChildren()) out.push(...m.namedModules(prefix ? `${prefix}.${name}` : name));
    return out;
  }
  /** This module and every submodule. */
  modules() { return this.namedModules().map(([, m]) => m); }

  #own(which) {
    this.#adopt();
    return [...(which === 'params' ? this.#params : this.#buffers)].filter(([, t]) => t !== null);
  }

  // Every registered name of `which` with its tensor, this module's first, then each
  // submodule's (a shared tensor under each of its names).
  #named(which, prefix = '') {
    const out = this.#own(which).map(([name, t]) => [prefix + name, t]);
    for (const [name, m] of this.namedChildren()) out.push(...m.#named(which, `${prefix}${name}.`));
    return out;
  }

  /** Whether the module is in training mode (Dropout active, BatchNorm on batch statistics). */
  get training() { return this.#training; }
  /** Training mode (or evaluation with `false`), recursively; returns this module. */
  train(mode = true) {
    const on = check.flag('train', 'mode', mode, true);
    for (const m of this.modules()) m.#training = on;
    return this;
  }
  /** Evaluation mode, recursively; returns this module. */
  eval() { return this.train(false); }

  /** Clears every parameter's gradient (sets it to null, as PyTorch 2 does). */
  zeroGrad() {
    for (const p of this.parameters()) p.grad = null;
  }

  /** Calls `fn` on every submodule (children first) and then on this module; returns this (PyTorch's `apply`). */
  apply(fn) {
    check.arity('Module.apply', arguments.length, 1);
    if (typeof fn !== 'function') check.fail(TypeError, 'Module.apply', 'fn', fn, 'a function (module) => void');
    for (const m of this.children()) m.apply(fn);
    fn(this);
    return this;
  }

  /** The floating-point parameters and buffers as float16, in place (PyTorch's `half()`); needs a device with shader-f16. */
  half() {
    check.arity('half', arguments.length, 0);
    return this.#toDtype('half', 'f16');
  }
  /** The floating-point parameters and buffers as float32, in place (PyTorch's `float()`). */
  float() {
    check.arity('float', arguments.length, 0);
    return this.#toDtype('float', 'f32');
  }

  // Converts every floating-point parameter (a new leaf keeping requiresGrad, its gradient
  // dropped as PyTorch's conversion does) and buffer to `dtype`; all or nothing.
  #toDtype(fn, dtype) {
    const all = [...this.parameters().map((t) => [t, true]), ...this.buffers().map((t) => [t, false])]
      .filter(([t]) => t.dtype === 'float32' || t.dtype === 'float16');
    const made = [];
    try {
      for (const [t, isParam] of all) {
        const r = rawOf(fn, 'parameter', t).toDtype(dtype);
        if (isParam) {
          const leaf = r.detach();
          r.free();
          if (t.requiresGrad) leaf.requiresGrad_(true);
          made.push(leaf);
        } else {
          made.push(r);
        }
      }
    } catch (e) {
      made.forEach((r) => r.free());
      throw e;
    }
    all.forEach(([t], i) => assignRaw(t, made[i]));
    return this;
  }

  /**
   * Moves every parameter (with its gradient) and registered buffer to `device`, in place, as
   * PyTorch's `model.to(device)`, and resolves to this module; a dtype name (`'float16'`)
   * converts the floating-point ones instead (`half()`, `float()`). Tensors the module merely
   * holds in plain fields stay where they are. All or nothing: if a transfer fails, nothing moved.
   */
  async to(device) {
    check.arity('Module.to', arguments.length, 1);
    if (check.isDtype(device)) {
      const dt = check.dtype('Module.to', device);
      if (dt !== 'f32' && dt !== 'f16') throw new TypeError(`Module.to: a module converts to a floating-point dtype (float32, float16), got ${device}`);
      return this.#toDtype('Module.to', dt);
    }
    const d = check.device('Module.to', device);
    const params = this.parameters();
    const buffers = this.buffers();
    const raws = [...params.map((p) => rawOf('Module.to', 'parameter', p)), ...buffers.map((b) => rawOf('Module.to', 'buffer', b))];
    const all = [...params, ...buffers];
    // Until the moves finish, using the module is an error that says to await this call.
    all.forEach((t) => setPending(t, `to('${d}')`));
    const moved = [];
    try {
      for (const [i, r] of raws.entries()) moved.push(i < params.length ? await core().nnMoveParameter(r, d) : await r.to(d));
    } catch (e) {
      for (const r of moved) r.free();
      throw e;
    } finally {
      all.forEach((t) => setPending(t, null));
    }
    all.forEach((t, i) => assignRaw(t, moved[i]));
    return this;
  }

  /**
   * Parameters and buffers by PyTorch's keys (`0.weight`, `bn.running_mean`): this module's
   * parameters, then its buffers, then each submodule's, as a plain object of new, detached
   * Tensor handles. Saving the dict (`saveSafetensors(File)`) frees them once written;
   * otherwise dispose them (or take them in wt.tidy).
   */
  stateDict() {
    const entries = this.#stateEntries();
    const raws = entries.map(([k, t]) => rawOf('stateDict', k, t));
    return Object.fromEntries(entries.map(([k], i) => [k, markHandOff(new Tensor(raws[i].detach()), 'state')]));
  }

  #stateEntries(prefix = '') {
    const out = [];
    for (const which of ['params', 'buffers']) {
      for (const [name, t] of this.#own(which)) out.push([prefix + name, t, which === 'params']);
    }
    for (const [name, m] of this.namedChildren()) out.push(...m.#stateEntries(`${prefix}${name}.`));
    return out;
  }

  /**
   * Loads a state dict (a plain object or a Map of key to Tensor): each value is converted to
   * the dtype of the slot it fills and moved to its device. Strict by default, as PyTorch's:
   * every key must exist with the same shape and none may be missing (a tied weight may come
   * under any one of its names, as `safetensors.torch.save_model` writes it). With `{ strict: false }`
   * unmatched keys are skipped. All or nothing: on an error nothing changed. The tensors of a
   * dict made by `loadSafetensors(File)` are freed once loaded. Resolves to
   * `{ missingKeys, unexpectedKeys }`.
   */
  async loadStateDict(dict, opts) {
    const fn = 'loadStateDict';
    const strict = check.flag(fn, 'strict', check.options(fn, opts, ['strict']).strict, true);
    const given = dictEntries(fn, dict);
    const slots = this.#stateEntries();
    const ids = identities(slots);
    const plan = core().registryPlanLoad(
      slots.map(([k, t], i) => [k, ids[i], [...rawOf(fn, `the module's '${k}'`, t).shape]]),
      [...given].map(([k, v]) => [k, [...rawOf(fn, `dict['${k}']`, v).shape]]),
      strict,
    );
    if (plan.error !== undefined) throw new Error(`${fn}: ${plan.error}`);
    const keys = [...given.keys()];
    const todo = slots.filter((_, i) => plan.sources[i] >= 0).map(([k, now, isParam]) => [keys.indexOf(k), now, isParam]);
    const { missingKeys, unexpectedKeys } = plan;
    const values = [];
    todo.forEach(([, now]) => setPending(now, 'loadStateDict()'));
    try {
      for (const [i, now, isParam] of todo) values.push(await loadValue(given.get(keys[i]), now, isParam));
    } catch (e) {
      for (const r of values) r.free();
      throw e;
    } finally {
      todo.forEach(([, now]) => setPending(now, null));
    }
    todo.forEach(([, now], i) => assignRaw(now, values[i]));
    // A dict loaded from a file (loadSafetensors*()) is freed now it is loaded.
    for (const [, v] of given) consumeHandOff(fn, v, ['loaded']);
    return { missingKeys, unexpectedKeys };
  }

  /** Frees every parameter and buffer of this module and its submodules; the module cannot be used afterwards. */
  dispose() {
    for (const m of this.modules()) {
      for (const [, t] of [...m.#own('params'), ...m.#own('buffers')]) t.dispose();
    }
  }
  [Symbol.dispose]() { this.dispose(); }

  toString() {
    const inner = this.namedChildren().map(([n, m]) => `  (${n}): ${String(m).replace(/\n/g, '\n  ')}`);
    const head = `${this.constructor.name}(${this.extraRepr()}`;
    return inner.length ? `${head}\n${inner.join('\n')}\n)` : `${head})`;
  }
  /** What toString shows inside the parentheses (layers override it, as PyTorch's extra_repr). */
  extraRepr() { return ''; }
}

function parameterOf(fn, name, t) {
  if (!(t instanceof Tensor)) check.fail(TypeError, fn, name, t, 'a Tensor or null');
  const raw = rawOf(fn, name, t);
  if (!t.isLeaf) {
    throw new Error(`${fn}: '${name}' must be a leaf tensor (made by you, not by an op): pass t.detach()`);
  }
  if (t.dtype !== 'float32' && t.dtype !== 'float16') {
    throw new Error(`${fn}: '${name}' must be floating point to be learned, got ${t.dtype}`);
  }
  if (!raw.requiresGrad) raw.requiresGrad_(true);
  untrack(t);
  return t;
}

function bufferOf(fn, name, t) {
  if (!(t instanceof Tensor)) check.fail(TypeError, fn, name, t, 'a Tensor or null');
  rawOf(fn, name, t);
  untrack(t);
  return t;
}

function dictEntries(fn, dict) {
  if (dict instanceof Map) return new Map(dict);
  if (dict && typeof dict === 'object' && !Array.isArray(dict)) return new Map(Object.entries(dict));
  return check.fail(TypeError, fn, 'dict', dict, 'an object or Map of key to Tensor (a stateDict())');
}

// The raw tensor that fills `now`'s slot from `v`: `now`'s dtype and device, detached. For a
// parameter it is a fresh leaf that keeps `now`'s requiresGrad (a frozen one stays frozen) and
// gradient, as PyTorch's in-place copy does. Frees its intermediates.
async function loadValue(v, now, isParam) {
  let r = v.raw.detach();
  const swap = (next) => {
    r.free();
    r = next;
  };
  try {
    if (r.dtype !== now.raw.dtype) swap(r.toDtype(now.raw.dtype));
    if (r.device !== now.raw.device) swap(await r.to(now.raw.device));
    if (isParam) {
      swap(r.detach());
      if (now.raw.requiresGrad) r.requiresGrad_(true);
      const g = now.raw.gradient();
      if (g !== undefined) r.setGradient(g);
    }
  } catch (e) {
    r.free();
    throw e;
  }
  return r;
}
