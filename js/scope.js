// Scopes: wt.tidy (dispose what a function created) and wt.withDevice (default placement).
import * as check from './check.js';
import { core, scopes } from './internal.js';
import { Tensor } from './tensor.js';
import { forget, track } from './stepscope.js';

export { setStepScope } from './stepscope.js';

/**
 * Runs `fn` (optionally named first, as in TensorFlow.js), then disposes every tensor it created
 * except those in its result. If `fn` throws, every tensor it created is disposed and the error
 * is rethrown. `fn` must be synchronous: an async function, or a returned Promise, is a TypeError.
 */
export function tidy(nameOrFn, maybeFn) {
  check.arity('tidy', arguments.length, 2);
  const fn = check.syncFunction('tidy', typeof nameOrFn === 'string' ? maybeFn : nameOrFn);
  // What tidy returns is its caller's to manage: the step scope does not take it.
  return run('tidy', fn, false);
}

/**
 * @internal wt.tidy for the library's own modules (wt.models.GPT's parts): frees what `fn` made
 * besides its result as soon as it returns, and the result goes where the caller's own tensors
 * go (the enclosing wt.tidy, or the step scope), so a module call in a loop without tidy is
 * released as before. JavaScript frees a handle only at a garbage collection, so without this
 * a forward pass's intermediates (every LayerNorm, projection and activation output) held
 * their device memory through the backward pass, which needs none of them through the handles.
 */
export function scoped(fn) {
  return run('forward', fn, true);
}

function run(name, fn, handBack) {
  const scope = new Set();
  scopes.push(scope);
  let result;
  try {
    result = check.notPromise(name, fn());
  } catch (e) {
    scopes.pop();
    for (const t of scope) t.dispose();
    throw e;
  }
  scopes.pop();
  const keep = tensorsIn(result);
  for (const t of scope) {
    // (A tensor wt.keep() took is in no scope any more.)
    if (!keep.has(t)) t.dispose();
    else if (scopes.length) scopes[scopes.length - 1].add(t);
    else if (handBack) track(t);
  }
  return result;
}

/** The Tensors in `v`: itself, or those in its arrays, objects and Maps, at any depth. */
function tensorsIn(v) {
  const found = new Set();
  const seen = new Set();
  const visit = (x) => {
    if (x instanceof Tensor) found.add(x);
    else if (x && typeof x === 'object' && !seen.has(x) && !ArrayBuffer.isView(x)) {
      seen.add(x);
      (x instanceof Map ? [...x.values()] : Object.values(x)).forEach(visit);
    }
  };
  visit(v);
  return found;
}

/**
 * Exempts `value` (a Tensor, or the Tensors in an array, object or Map) from the enclosing
 * wt.tidy() scopes and from the step scope, as TensorFlow.js's `tf.keep`: it lives until you
 * dispose() it. Returns `value`.
 */
export function keep(value) {
  check.arity('keep', arguments.length, 1);
  const found = tensorsIn(value);
  if (found.size === 0) check.fail(TypeError, 'keep', 'value', value, 'a Tensor, or an array or object of Tensors');
  for (const t of found) {
    for (const s of scopes) s.delete(t);
    forget(t);
  }
  return value;
}

/**
 * Runs `fn` with `device` as the placement of tensors created without one (TensorFlow's
 * `with tf.device(...)`); scopes nest. Ops still need their inputs on one device. `fn` must be
 * synchronous.
 */
export function withDevice(device, fn) {
  check.arity('withDevice', arguments.length, 2);
  const d = check.device('withDevice', device);
  const f = check.syncFunction('withDevice', fn);
  const depth = core().enterDeviceScope(d);
  try {
    return check.notPromise('withDevice', f());
  } finally {
    core().exitDeviceScope(depth);
  }
}
